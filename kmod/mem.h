/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * krdma: the memory the devices read and write (mem.c): DMA buffers in
 * chunks, which the CPU or the device owns at any time, the regions FRWR
 * exposes to the peer, and the pattern a test's data carries.
 */
#ifndef _KRDMA_MEM_H
#define _KRDMA_MEM_H

#include <linux/dma-direction.h>
#include <linux/sizes.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "proto.h"

struct krdma_device;
struct krdma_session;

/* The largest chunk of a buffer, and so of a region's MR. */
#define KRDMA_CHUNK_MAX		SZ_1M

/*
 * Memory the device reads or writes. It is owned either by the CPU or by
 * the device, and changes hands only through krdma_buf_to_device() and
 * krdma_buf_to_cpu(), which do the DMA syncs. With debug_dma set, every
 * post, completion and CPU access checks the owner and WARNs on a mismatch.
 */
enum krdma_owner {
	KRDMA_OWNER_CPU,
	KRDMA_OWNER_DEVICE,
};

struct krdma_chunk {
	void		*cpu;
	void		*shadow;	/* shadow_dma: what the device sees */
	u64		dma;
	u32		len;
};

struct krdma_buf {
	struct ib_device	*ibdev;
	enum dma_data_direction	dir;		/* as mapped, and every sync */
	const char		*name;
	u32			index;
	u32			len;
	u32			nchunks;
	enum krdma_owner	owner;
	u32			cpu_off;	/* what the last hand-over */
	u32			cpu_len;	/* to the CPU synced */
	/* iWARP: the MRs READ responses land through, mr[i] on chunk[i]. */
	struct krdma_region	*sink;
	struct krdma_chunk	chunk[];
};

/* A slot range exposed to the peer through FRWR, one MR per chunk. */
struct krdma_region {
	u32		nmrs;
	bool		registered;	/* REG_MR posted, LOCAL_INV not yet */
	struct ib_mr	*mr[];
};

/* mem.c */
struct krdma_buf *krdma_buf_alloc_dir(struct krdma_device *kdev, u32 len,
				      const char *name, u32 index,
				      enum dma_data_direction dir);
struct krdma_buf *krdma_buf_alloc(struct krdma_device *kdev, u32 len,
				  const char *name, u32 index);
void krdma_buf_free(struct krdma_buf *buf);
void krdma_buf_to_device(struct krdma_buf *buf);
void krdma_buf_to_cpu(struct krdma_buf *buf);
void krdma_buf_to_cpu_range(struct krdma_buf *buf, u32 off, u32 len);
void krdma_buf_check(struct krdma_buf *buf, enum krdma_owner owner,
		     const char *what);
u8 krdma_buf_peek_byte(struct krdma_buf *buf, u32 off);
int krdma_buf_sges_part(struct krdma_buf *buf, u32 off, u32 len, u32 lkey,
			struct ib_sge *sge, int max_sge, u32 *taken);
int krdma_buf_sges(struct krdma_buf *buf, u32 off, u32 len, u32 lkey,
		   struct ib_sge *sge, int max_sge);
int krdma_buf_make_sink(struct krdma_session *sess, struct krdma_buf *buf,
			struct ib_cqe *cqe);
int krdma_buf_rdma_sges_part(struct krdma_session *sess,
			     struct krdma_buf *buf, bool read, u32 off,
			     u32 len, struct ib_sge *sge, u32 *taken);
int krdma_buf_read_sges(struct krdma_buf *buf, u32 off, u32 len, u32 lkey,
			struct ib_sge *sge, int max_sge);
void krdma_buf_copy_from(struct krdma_buf *buf, u32 off, const void *src,
			 u32 len);
void krdma_buf_copy_to(void *dst, struct krdma_buf *buf, u32 off, u32 len);
bool krdma_fault_misaddress(void);
bool krdma_fault_slot_sync(void);
/* The seed of a test's pattern, iteration @iter's (bw and lat: 0 for all). */
static inline u64 krdma_seed(u32 test_id, u64 iter)
{
	return ((u64)test_id << 40) ^ iter ^ 0x6b72646d61ULL;
}

void krdma_pattern_fill(struct krdma_buf *buf, u32 off, u32 len, u64 seed);
bool krdma_pattern_check(struct krdma_buf *buf, u32 off, u32 len, u64 seed);
bool krdma_pattern_check_part(struct krdma_buf *buf, u32 off, u32 from,
			      u32 n, u64 seed);
u32 krdma_chunks_for(struct krdma_device *kdev, u32 len);
struct krdma_region *krdma_region_create(struct krdma_device *kdev,
					 struct krdma_buf *buf, u32 off,
					 u32 len, int access);
int krdma_region_post_reg(struct krdma_session *sess, struct krdma_region *reg,
			  struct ib_cqe *cqe, int access);
int krdma_region_post_fence(struct krdma_session *sess);
int krdma_region_post_inv(struct krdma_session *sess, struct krdma_region *reg,
			  struct ib_cqe *cqe);
void krdma_region_to_wire(struct krdma_region *reg,
			  struct krdma_wire_region *wire);
void krdma_region_destroy(struct krdma_region *reg);

#endif /* _KRDMA_MEM_H */
