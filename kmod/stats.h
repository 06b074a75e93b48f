/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * krdma: the counters, module-wide and per session, summed over CPUs,
 * and the gauges of what peers make us hold (stats.c, limits.c).
 */
#ifndef _KRDMA_STATS_H
#define _KRDMA_STATS_H

#include <linux/atomic.h>
#include <linux/percpu.h>
#include <linux/types.h>
#include <asm/local64.h>

struct sk_buff;

/* Counters, module-wide and per session. */
enum krdma_counter {
	KRDMA_CNT_SESSIONS_OPENED,
	KRDMA_CNT_SESSIONS_CLOSED,
	KRDMA_CNT_CONNECT_ERRORS,
	KRDMA_CNT_REJECTS_SENT,
	KRDMA_CNT_TESTS_STARTED,
	KRDMA_CNT_TESTS_FAILED,
	KRDMA_CNT_SEND_WRS,
	KRDMA_CNT_RECV_WRS,
	KRDMA_CNT_WRITE_WRS,
	KRDMA_CNT_READ_WRS,
	KRDMA_CNT_ATOMIC_WRS,
	KRDMA_CNT_REG_MR_WRS,
	KRDMA_CNT_INV_WRS,
	KRDMA_CNT_BYTES_TX,
	KRDMA_CNT_BYTES_RX,
	KRDMA_CNT_WC_ERRORS,
	KRDMA_CNT_VALIDATION_ERRORS,
	KRDMA_CNT_PROTOCOL_ERRORS,
	KRDMA_CNT_SESSIONS_REFUSED,
	KRDMA_CNT_MEM_REFUSED,
	KRDMA_CNT_RESPONDER_TIMEOUTS,
	KRDMA_CNT_QP_EVENTS,
	KRDMA_CNT_POLLERS_REFUSED,
	KRDMA_CNT_MAX,
};

/*
 * The counters, a set per CPU summed when read: every post and every
 * completion counts, on every CPU that handles a CQ, and one atomic64
 * per counter bounced its cache line between them (local64_t: atomic
 * against the CPU's own interrupts, readable whole from another).
 */
struct krdma_counters {
	local64_t	cnt[KRDMA_CNT_MAX];
};

/*
 * The counters, and what peers make us hold (limits.c): gauges, which a
 * reset leaves alone, and their peaks, which it sets to the gauge.
 */
struct krdma_stats {
	struct krdma_counters __percpu *pcpu;
	atomic64_t	peer_mem;		/* bytes pinned for the peers */
	atomic64_t	peer_mem_peak;
	atomic_t	server_sessions;	/* module-wide only */
	atomic_t	server_sessions_peak;
	atomic64_t	peer_silence_max;	/* ms, keepalive.c */
	atomic_t	responder_pollers;	/* module-wide only */
};

/* stats.c */
extern struct krdma_stats krdma_global_stats;
int krdma_stats_init(struct krdma_stats *s);
void krdma_stats_free(struct krdma_stats *s);
void krdma_stats_add(struct krdma_stats *s, enum krdma_counter c, u64 v);
u64 krdma_stats_read(struct krdma_stats *s, enum krdma_counter c);
void krdma_stats_reset(struct krdma_stats *s);
void krdma_stats_peak(atomic64_t *peak, s64 v);
void krdma_stats_peak32(atomic_t *peak, int v);
int krdma_stats_fill(struct sk_buff *skb, struct krdma_stats *s);

#endif /* _KRDMA_STATS_H */
