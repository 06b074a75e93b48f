/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * krdma: faults on demand (fault.c, debugfs): allocation failures
 * (krdma/fail_alloc), through krdma_failable(), which every allocation
 * of the module goes through; delays that widen race windows
 * (krdma/delay_*_ms); and the other knobs the tests misbehave with. Stubs
 * where debugfs is not built.
 */
#ifndef _KRDMA_FAULT_H
#define _KRDMA_FAULT_H

#include <linux/err.h>
#include <linux/types.h>

#include "proto.h"

struct krdma_session;

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
bool krdma_alloc_fail(void);
void krdma_fail_init_begin(void);
void krdma_fail_init_end(void);
#else
static inline bool krdma_alloc_fail(void)
{
	return false;
}

static inline void krdma_fail_init_begin(void)
{
}

static inline void krdma_fail_init_end(void)
{
}
#endif

#ifdef CONFIG_DEBUG_FS
void krdma_fault_init(void);
void krdma_fault_exit(void);
void krdma_delay_publish(const struct krdma_session *sess);
size_t krdma_sim_dma_max_mapping(void);
void krdma_delay_test_req(const struct krdma_session *sess);
void krdma_delay_late_msg(void);
void krdma_delay_teardown(void);
void krdma_delay_set_up(void);
void krdma_delay_channel_rx(void);
u16 krdma_hello_version_sent(void);
bool krdma_fault_peer_reg(u32 test_id, u32 slot);
bool krdma_fault_atomic_reg(void);
u32 krdma_fault_lat_tail_first_ms(void);
#else
static inline void krdma_fault_init(void)
{
}

static inline void krdma_fault_exit(void)
{
}

static inline void krdma_delay_publish(const struct krdma_session *sess)
{
}

static inline size_t krdma_sim_dma_max_mapping(void)
{
	return SIZE_MAX;
}

static inline void krdma_delay_test_req(const struct krdma_session *sess)
{
}

static inline void krdma_delay_late_msg(void)
{
}

static inline void krdma_delay_teardown(void)
{
}

static inline void krdma_delay_set_up(void)
{
}

static inline void krdma_delay_channel_rx(void)
{
}

static inline u16 krdma_hello_version_sent(void)
{
	return KRDMA_PROTO_VERSION;
}

static inline bool krdma_fault_peer_reg(u32 test_id, u32 slot)
{
	return false;
}

static inline bool krdma_fault_atomic_reg(void)
{
	return false;
}

static inline u32 krdma_fault_lat_tail_first_ms(void)
{
	return 0;
}
#endif

/*
 * Every allocation of the module goes through one of these, so that
 * krdma/fail_alloc can fail it: @call is not made when a fault is injected.
 */
#define krdma_failable(call)	 (krdma_alloc_fail() ? NULL : (call))
#define krdma_failable_ptr(call) (krdma_alloc_fail() ? ERR_PTR(-ENOMEM) : (call))
#define krdma_failable_int(call) (krdma_alloc_fail() ? -ENOMEM : (call))

#endif /* _KRDMA_FAULT_H */
