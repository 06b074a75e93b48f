// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: DMA-mapped buffers with an explicit owner, FRWR regions, and the
 * data pattern every test writes and checks.
 *
 * A buffer is a list of physically contiguous chunks, each no larger than
 * what one FRWR MR maps on the device, so that a buffer of any size gets
 * one local SGE and at most one MR per chunk.
 */
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "conn.h"
#include "krdma.h"
#include "mem.h"

bool krdma_debug_dma;
module_param_named(debug_dma, krdma_debug_dma, bool, 0644);
MODULE_PARM_DESC(debug_dma,
		 "Check buffer ownership (CPU or device) at every post, completion and CPU access");

/*
 * shadow_dma: the device gets a copy of every buffer, never the CPU's
 * pages. The hand-over to the device copies the CPU's pages into it, the
 * hand-over to the CPU copies back what the device may have written: a
 * bounce buffer, as swiotlb makes on a host whose DMA cannot reach all
 * memory or must not see it (SEV, TDX guests). rxe's DMA is virtual, so
 * a missing or misdirected sync is otherwise invisible there; with a
 * shadow it is stale data, which the tests compare. Read once per
 * buffer, at allocation: a buffer keeps the mode it was made in, so it
 * may be set at any time (tests/guest/dma-checker.sh, for one session).
 */
static bool krdma_shadow_dma;
module_param_named(shadow_dma, krdma_shadow_dma, bool, 0644);
MODULE_PARM_DESC(shadow_dma,
		 "Testing: the device works on a copy of each buffer, synced by copies (a bounce buffer)");

/*
 * Deliberate faults for the tests that prove the checks work; each bit
 * fires once and clears itself. Writable only by root.
 */
static unsigned long krdma_fault;
module_param_named(fault, krdma_fault, ulong, 0600);
MODULE_PARM_DESC(fault,
		 "Inject one fault: 1 = skip a DMA sync for the CPU, 2 = corrupt received data, 4 = an RDMA WRITE past its region, 8 = skip the sync of a check-mode slot's completion");

/* Bytes synced for the CPU while debug_dma is set: debugfs dma_cpu_sync_bytes. */
atomic64_t krdma_dma_cpu_sync_bytes = ATOMIC64_INIT(0);

#define KRDMA_FAULT_SKIP_SYNC	0
#define KRDMA_FAULT_CORRUPT	1
#define KRDMA_FAULT_MISADDRESS	2
#define KRDMA_FAULT_SLOT_SYNC	3

static bool krdma_fault_take(int bit)
{
	return unlikely(READ_ONCE(krdma_fault)) &&
	       test_and_clear_bit(bit, &krdma_fault);
}

/**
 * krdma_fault_misaddress() - is the next RDMA WRITE aimed past its region?
 *
 * The next RDMA WRITE is aimed past the region it was given: the peer's
 * device must refuse it (an access error at its end, an async QP event on
 * iWARP).
 *
 * Return: true once for each fault asked of the module parameter.
 */
bool krdma_fault_misaddress(void)
{
	return krdma_fault_take(KRDMA_FAULT_MISADDRESS);
}

/**
 * krdma_fault_slot_sync() - does the next slot skip its sync for the CPU?
 *
 * The next check-mode slot that completes goes to the CPU without its
 * sync (check.c): under shadow_dma the CPU then reads what it had, not
 * what the device wrote, and the data check must say so.
 *
 * Return: true once for each fault asked of the module parameter.
 */
bool krdma_fault_slot_sync(void)
{
	return krdma_fault_take(KRDMA_FAULT_SLOT_SYNC);
}

static const char *const krdma_owner_names[] = {
	[KRDMA_OWNER_CPU]	= "cpu",
	[KRDMA_OWNER_DEVICE]	= "device",
};

/**
 * krdma_chunks_for() - the chunks a buffer of @len bytes has on a device
 * @kdev: the device, whose chunk_size one MR maps
 * @len: the buffer's length
 *
 * Return: how many; 1 for an empty buffer.
 */
u32 krdma_chunks_for(struct krdma_device *kdev, u32 len)
{
	return max_t(u32, 1, DIV_ROUND_UP(len, kdev->chunk_size));
}

/*
 * alloc_pages_exact() on the device's NUMA node: the HCA's DMA and the
 * CPUs that handle its completions stay on its node (nvme-rdma and rtrs
 * allocate there too). The pages past @size go back; free_pages_exact()
 * frees what is left.
 */
static void *krdma_alloc_pages(int node, size_t size)
{
	unsigned int order = get_order(size);
	unsigned long addr, used, end;
	struct page *page;

	page = alloc_pages_node(node, GFP_KERNEL | __GFP_NOWARN | __GFP_ZERO,
				order);
	if (!page)
		return NULL;
	split_page(page, order);
	addr = (unsigned long)page_address(page);
	end = addr + (PAGE_SIZE << order);
	for (used = addr + PAGE_ALIGN(size); used < end; used += PAGE_SIZE)
		free_page(used);
	return (void *)addr;
}

/*
 * A chunk's pages, and its DMA mapping if @mapped (a chunk of the buffer's
 * nchunks): the one unwind of krdma_buf_alloc_dir() and krdma_buf_free().
 */
static void krdma_chunk_free(struct krdma_buf *buf, struct krdma_chunk *c,
			     bool mapped)
{
	if (mapped)
		ib_dma_unmap_single(buf->ibdev, c->dma, c->len, buf->dir);
	if (c->shadow)
		free_pages_exact(c->shadow, c->len);
	if (c->cpu)
		free_pages_exact(c->cpu, c->len);
	c->shadow = NULL;
	c->cpu = NULL;
}

/**
 * krdma_buf_alloc_dir() - a DMA buffer, mapped for one direction
 * @kdev: the device it is mapped on, on whose NUMA node its pages are
 * @len: its length
 * @name: what debug_dma's warnings call it
 * @index: and its index
 * @dir: the direction it is mapped and synced for
 *
 * A buffer of @len bytes mapped for @dir: DMA_FROM_DEVICE where the
 * device only writes and the CPU only reads what it wrote (receives),
 * so that a sync for the device never writes back what the CPU holds.
 * The CPU owns it.
 *
 * Context: process; it may sleep.
 * Return: the buffer, or NULL.
 */
struct krdma_buf *krdma_buf_alloc_dir(struct krdma_device *kdev, u32 len,
				      const char *name, u32 index,
				      enum dma_data_direction dir)
{
	struct ib_device *ibdev = kdev->ibdev;
	u32 nchunks = krdma_chunks_for(kdev, len);
	struct krdma_buf *buf;
	u32 i, off = 0;

	buf = krdma_failable(kzalloc(struct_size(buf, chunk, nchunks), GFP_KERNEL));
	if (!buf)
		return NULL;
	buf->ibdev = ibdev;
	buf->dir = dir;
	buf->name = name;
	buf->index = index;
	buf->len = len;
	buf->owner = KRDMA_OWNER_CPU;
	buf->cpu_len = len;

	for (i = 0; i < nchunks; i++) {
		struct krdma_chunk *c = &buf->chunk[i];

		c->len = min(len - off, kdev->chunk_size);
		if (!c->len)
			c->len = 1;	/* a zero-length buffer still gets a page */
		c->cpu = krdma_failable(krdma_alloc_pages(ibdev_to_node(ibdev),
							  c->len));
		if (!c->cpu)
			goto err;
		if (krdma_shadow_dma) {
			c->shadow = krdma_failable(krdma_alloc_pages(ibdev_to_node(ibdev),
								     c->len));
			if (!c->shadow) {
				krdma_chunk_free(buf, c, false);
				goto err;
			}
		}
		c->dma = ib_dma_map_single(ibdev, c->shadow ?: c->cpu, c->len,
					   dir);
		if (ib_dma_mapping_error(ibdev, c->dma)) {
			krdma_chunk_free(buf, c, false);
			goto err;
		}
		buf->nchunks++;
		off += c->len;
	}
	return buf;

err:
	krdma_buf_free(buf);
	return NULL;
}

/**
 * krdma_buf_alloc() - a DMA buffer both the CPU and the device write
 * @kdev: the device it is mapped on
 * @len: its length
 * @name: what debug_dma's warnings call it
 * @index: and its index
 *
 * krdma_buf_alloc_dir() with DMA_BIDIRECTIONAL.
 *
 * Context: process; it may sleep.
 * Return: the buffer, or NULL.
 */
struct krdma_buf *krdma_buf_alloc(struct krdma_device *kdev, u32 len,
				  const char *name, u32 index)
{
	return krdma_buf_alloc_dir(kdev, len, name, index, DMA_BIDIRECTIONAL);
}

/**
 * krdma_buf_free() - frees a buffer, its sink's MRs and its mappings
 * @buf: the buffer, or NULL; the device is done with it
 *
 * Context: process; it may sleep.
 */
void krdma_buf_free(struct krdma_buf *buf)
{
	u32 i;

	if (!buf)
		return;
	krdma_region_destroy(buf->sink);
	for (i = 0; i < buf->nchunks; i++)
		krdma_chunk_free(buf, &buf->chunk[i], true);
	kfree(buf);
}

/**
 * krdma_buf_check() - with debug_dma, WARNs unless @owner owns @buf
 * @buf: the buffer
 * @owner: who must own it
 * @what: the access, for the warning
 */
void krdma_buf_check(struct krdma_buf *buf, enum krdma_owner owner,
		     const char *what)
{
	if (!krdma_debug_dma)
		return;
	WARN(buf->owner != owner,
	     "krdma: %s of buffer %s[%u] owned by %s, expected %s\n", what,
	     buf->name, buf->index, krdma_owner_names[buf->owner],
	     krdma_owner_names[owner]);
}

/*
 * The chunk that holds byte @*off of @buf, @*off made relative to it; past
 * the end, the last chunk (and @*off at or beyond its length).
 */
static struct krdma_chunk *krdma_buf_seek(struct krdma_buf *buf, u32 *off)
{
	struct krdma_chunk *c = buf->chunk;

	while (c < buf->chunk + buf->nchunks - 1 && *off >= c->len)
		*off -= c++->len;
	return c;
}

/**
 * krdma_buf_to_device() - hands a buffer to the device
 * @buf: the buffer, the CPU's
 *
 * CPU is done writing: make its stores visible to the device.
 */
void krdma_buf_to_device(struct krdma_buf *buf)
{
	u32 i;

	krdma_buf_check(buf, KRDMA_OWNER_CPU, "hand-over to device");
	for (i = 0; i < buf->nchunks; i++) {
		struct krdma_chunk *c = &buf->chunk[i];

		/* What the device only writes, it gets nothing of ours in. */
		if (c->shadow && buf->dir != DMA_FROM_DEVICE)
			memcpy(c->shadow, c->cpu, c->len);
		ib_dma_sync_single_for_device(buf->ibdev, c->dma, c->len,
					      buf->dir);
	}
	buf->owner = KRDMA_OWNER_DEVICE;
}

/**
 * krdma_buf_to_cpu_range() - hands a buffer to the CPU, part of it synced
 * @buf: the buffer, the device's
 * @off: where the device wrote, from
 * @len: and how much
 *
 * The device is done with [@off, @off + @len) of @buf, and wrote nothing
 * outside it (a receive of byte_len bytes): only that range is synced, and
 * with debug_dma a CPU access outside it WARNs. The whole buffer changes
 * hands all the same - the device will not touch any of it until
 * krdma_buf_to_device().
 */
void krdma_buf_to_cpu_range(struct krdma_buf *buf, u32 off, u32 len)
{
	struct krdma_chunk *end = buf->chunk + buf->nchunks, *c;
	u32 coff = off;

	krdma_buf_check(buf, KRDMA_OWNER_DEVICE, "hand-over to cpu");
	if (WARN_ON_ONCE(off > buf->len || len > buf->len - off))
		off = 0, coff = 0, len = buf->len;
	buf->cpu_off = off;
	buf->cpu_len = len;
	/* Injected: the sync is "forgotten", the buffer stays the device's. */
	if (krdma_fault_take(KRDMA_FAULT_SKIP_SYNC))
		return;
	for (c = krdma_buf_seek(buf, &coff); len && c < end; c++, coff = 0) {
		u32 piece = min(len, c->len - coff);

		ib_dma_sync_single_for_cpu(buf->ibdev, c->dma + coff, piece,
					   buf->dir);
		if (c->shadow)
			memcpy(c->cpu + coff, c->shadow + coff, piece);
		if (krdma_debug_dma)
			atomic64_add(piece, &krdma_dma_cpu_sync_bytes);
		len -= piece;
	}
	buf->owner = KRDMA_OWNER_CPU;
}

/**
 * krdma_buf_to_cpu() - hands a buffer to the CPU, all of it synced
 * @buf: the buffer, the device's
 *
 * Device is done: make all it may have written visible to the CPU.
 */
void krdma_buf_to_cpu(struct krdma_buf *buf)
{
	krdma_buf_to_cpu_range(buf, 0, buf->len);
}

/**
 * krdma_buf_peek_byte() - a byte the device may still be writing
 * @buf: the buffer, the device's
 * @off: the byte
 *
 * Byte @off of a buffer the device owns and may be writing into, for a
 * poller: synced for the CPU and read; the buffer stays the device's. The
 * RDMA WRITE of a message places its last byte last in practice
 * (perftest's write_lat relies on it too), so a poller watches that byte.
 *
 * Nothing is synced back for the device: the CPU wrote nothing, and a sync
 * for the device would copy the CPU's view of the byte over the one the
 * device may have written since (swiotlb's bounce buffer). No cache line
 * of the chunk is ever dirty while the device owns it, so reading it
 * leaves nothing to write back.
 *
 * Return: the byte; 0 past the buffer's end (a WARN).
 */
u8 krdma_buf_peek_byte(struct krdma_buf *buf, u32 off)
{
	struct krdma_chunk *c;

	krdma_buf_check(buf, KRDMA_OWNER_DEVICE, "peek");
	c = krdma_buf_seek(buf, &off);
	if (WARN_ON_ONCE(off >= c->len))
		return 0;
	ib_dma_sync_single_for_cpu(buf->ibdev, c->dma + off, 1, buf->dir);
	/* The device's view, not copied back: the buffer stays its own. */
	return READ_ONCE(*(u8 *)((c->shadow ?: c->cpu) + off));
}

/**
 * krdma_buf_sges_part() - the SGEs of as much of a range as fits
 * @buf: the buffer, the device's
 * @off: the range, from
 * @len: and its length
 * @lkey: every SGE's
 * @sge: filled in
 * @max_sge: room in @sge
 * @taken: the bytes the SGEs cover
 *
 * Fills @sge with the pieces of [off, off + len), at most @max_sge of
 * them: where a device takes fewer SGEs than a message spans chunks
 * (cxgb4: 4), an RDMA WRITE or READ goes as several WRs.
 *
 * Return: the number of SGEs, or -EINVAL for a range outside @buf.
 */
int krdma_buf_sges_part(struct krdma_buf *buf, u32 off, u32 len, u32 lkey,
			struct ib_sge *sge, int max_sge, u32 *taken)
{
	struct krdma_chunk *end = buf->chunk + buf->nchunks, *c;
	int n = 0;

	krdma_buf_check(buf, KRDMA_OWNER_DEVICE, "post");
	*taken = 0;
	if (off > buf->len || len > buf->len - off)
		return -EINVAL;
	for (c = krdma_buf_seek(buf, &off); len && c < end && n < max_sge;
	     c++, off = 0) {
		u32 piece = min(len, c->len - off);

		sge[n].addr = c->dma + off;
		sge[n].length = piece;
		sge[n].lkey = lkey;
		n++;
		len -= piece;
		*taken += piece;
	}
	return n;
}

/**
 * krdma_buf_sges() - the SGEs of a whole range
 * @buf: the buffer, the device's
 * @off: the range, from
 * @len: and its length
 * @lkey: every SGE's
 * @sge: filled in
 * @max_sge: room in @sge
 *
 * All of [off, off + len) in @sge.
 *
 * Return: the number of SGEs; -E2BIG if it takes more than @max_sge,
 * -EINVAL for a range outside @buf.
 */
int krdma_buf_sges(struct krdma_buf *buf, u32 off, u32 len, u32 lkey,
		   struct ib_sge *sge, int max_sge)
{
	u32 taken;
	int n = krdma_buf_sges_part(buf, off, len, lkey, sge, max_sge, &taken);

	return n >= 0 && taken < len ? -E2BIG : n;
}

/**
 * krdma_buf_make_sink() - lets RDMA READ responses land in a buffer
 * @sess: the session whose QP registers it
 * @buf: the buffer, whole
 * @cqe: the registration's completion
 *
 * Makes @buf a place RDMA READ responses may land in, on a device that
 * needs that (iWARP, see struct krdma_device): the whole buffer, one MR
 * per chunk, registered on the session's QP ahead of the READs posted
 * after it (the send queue runs in order; an MR is the protection
 * domain's, so the READs may go on a data channel once a message sent
 * after the registration was answered). The MRs stay valid until the
 * buffer is freed. Elsewhere the local DMA lkey does, and nothing is
 * posted.
 *
 * Context: process; it may sleep.
 * Return: 0, or the error of krdma_region_create() or of the post.
 */
int krdma_buf_make_sink(struct krdma_session *sess, struct krdma_buf *buf,
			struct ib_cqe *cqe)
{
	int access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	struct krdma_region *reg;
	int ret;

	if (!sess->kdev->iwarp || buf->sink)
		return 0;
	reg = krdma_region_create(sess->kdev, buf, 0, buf->len, access);
	if (IS_ERR(reg))
		return PTR_ERR(reg);
	buf->sink = reg;
	ret = krdma_region_post_reg(sess, reg, cqe, access);
	if (!ret)
		krdma_count(sess, KRDMA_CNT_REG_MR_WRS, reg->nmrs);
	return ret;
}

/*
 * krdma_buf_sges_part() for the sink of an RDMA READ: through the
 * buffer's sink MRs where it has them (their iova is the chunk's DMA
 * address).
 */
static int krdma_buf_read_sges_part(struct krdma_buf *buf, u32 off, u32 len,
				    u32 lkey, struct ib_sge *sge, int max_sge,
				    u32 *taken)
{
	u32 first = off;
	int i, n;

	n = krdma_buf_sges_part(buf, off, len, lkey, sge, max_sge, taken);
	if (n <= 0 || !buf->sink)
		return n;
	first = krdma_buf_seek(buf, &first) - buf->chunk;
	for (i = 0; i < n; i++)
		sge[i].lkey = buf->sink->mr[first + i]->lkey;
	return n;
}

/**
 * krdma_buf_rdma_sges_part() - our SGEs of one RDMA WR of a session
 * @sess: the session, whose QP caps bound the SGEs
 * @buf: the buffer, the device's
 * @read: the WR is an RDMA READ: @buf is its sink
 * @off: the range, from
 * @len: and its length
 * @sge: filled in, room for the session's max_sge or max_read_sge
 * @taken: the bytes the SGEs cover
 *
 * Our side of an RDMA op of @sess from byte @off of @buf, as far as one WR
 * takes it (*@taken bytes): a READ's sink through its sink MRs and up to
 * the device's max_sge_rd, the other ops up to max_send_sge.
 *
 * Return: as krdma_buf_sges_part().
 */
int krdma_buf_rdma_sges_part(struct krdma_session *sess,
			     struct krdma_buf *buf, bool read, u32 off,
			     u32 len, struct ib_sge *sge, u32 *taken)
{
	u32 lkey = sess->kdev->pd->local_dma_lkey;

	if (read)
		return krdma_buf_read_sges_part(buf, off, len, lkey, sge,
						sess->max_read_sge, taken);
	return krdma_buf_sges_part(buf, off, len, lkey, sge, sess->max_sge,
				   taken);
}

/**
 * krdma_buf_read_sges() - krdma_buf_sges() for the sink of an RDMA READ
 * @buf: the buffer, the device's
 * @off: the range, from
 * @len: and its length
 * @lkey: every SGE's, but where the buffer has sink MRs
 * @sge: filled in
 * @max_sge: room in @sge
 *
 * Return: as krdma_buf_sges().
 */
int krdma_buf_read_sges(struct krdma_buf *buf, u32 off, u32 len, u32 lkey,
			struct ib_sge *sge, int max_sge)
{
	u32 taken;
	int n = krdma_buf_read_sges_part(buf, off, len, lkey, sge, max_sge,
					 &taken);

	return n >= 0 && taken < len ? -E2BIG : n;
}

/*
 * Walks [off, off + len) of @buf chunk by chunk; @fn gets each CPU piece
 * and its offset from @off. Stops early when @fn returns false.
 */
static bool krdma_buf_walk(struct krdma_buf *buf, u32 off, u32 len,
			   bool (*fn)(void *p, u32 pos, u32 n, void *arg),
			   void *arg)
{
	struct krdma_chunk *end = buf->chunk + buf->nchunks, *c;
	u32 pos = 0;

	krdma_buf_check(buf, KRDMA_OWNER_CPU, "cpu access");
	if (off > buf->len || len > buf->len - off)
		return false;
	if (krdma_debug_dma)
		WARN(off < buf->cpu_off || off + len > buf->cpu_off + buf->cpu_len,
		     "krdma: cpu access to [%u, %u) of buffer %s[%u], synced for the cpu: [%u, %u)\n",
		     off, off + len, buf->name, buf->index, buf->cpu_off,
		     buf->cpu_off + buf->cpu_len);
	for (c = krdma_buf_seek(buf, &off); len && c < end; c++, off = 0) {
		u32 piece = min(len, c->len - off);

		if (!fn(c->cpu + off, pos, piece, arg))
			return false;
		pos += piece;
		len -= piece;
	}
	return true;
}

static bool krdma_copy_from_fn(void *p, u32 pos, u32 n, void *arg)
{
	memcpy(p, arg + pos, n);
	return true;
}

static bool krdma_copy_to_fn(void *p, u32 pos, u32 n, void *arg)
{
	memcpy(arg + pos, p, n);
	return true;
}

/**
 * krdma_buf_copy_from() - copies into a buffer
 * @buf: the buffer, the CPU's
 * @off: where to, in @buf
 * @src: what
 * @len: how much
 *
 * A range outside @buf copies nothing.
 */
void krdma_buf_copy_from(struct krdma_buf *buf, u32 off, const void *src,
			 u32 len)
{
	krdma_buf_walk(buf, off, len, krdma_copy_from_fn, (void *)src);
}

/**
 * krdma_buf_copy_to() - copies out of a buffer
 * @dst: where to
 * @buf: the buffer, the CPU's
 * @off: from where in @buf
 * @len: how much
 *
 * A range outside @buf copies nothing.
 */
void krdma_buf_copy_to(void *dst, struct krdma_buf *buf, u32 off, u32 len)
{
	krdma_buf_walk(buf, off, len, krdma_copy_to_fn, dst);
}

/*
 * The test pattern: byte k of the message seeded by @seed is the low byte
 * of a 64-bit mix of seed and k / 8, so that a shifted, stale or foreign
 * message never passes for the right one.
 */
static inline u8 krdma_pattern_byte(u64 seed, u32 k)
{
	u64 x = seed * 0x9e3779b97f4a7c15ULL + (k >> 3) * 0xbf58476d1ce4e5b9ULL;

	x ^= x >> 31;
	return (u8)(x >> ((k & 7) * 8));
}

static bool krdma_fill_fn(void *p, u32 pos, u32 n, void *arg)
{
	u64 seed = *(u64 *)arg;
	u8 *b = p;
	u32 k;

	for (k = 0; k < n; k++)
		b[k] = krdma_pattern_byte(seed, pos + k);
	return true;
}

/* A check of the bytes from @base on of a message seeded by @seed. */
struct krdma_pattern_walk {
	u64	seed;
	u32	base;
	bool	may_sleep;
};

static bool krdma_check_fn(void *p, u32 pos, u32 n, void *arg)
{
	const struct krdma_pattern_walk *w = arg;
	const u8 *b = p;
	u32 k;

	for (k = 0; k < n; k++)
		if (b[k] != krdma_pattern_byte(w->seed, w->base + pos + k))
			return false;
	/* Up to 8 MiB a message: the CPU is given up between chunks. */
	if (w->may_sleep)
		cond_resched();
	return true;
}

/**
 * krdma_pattern_fill() - writes the message of @seed into a buffer
 * @buf: the buffer, the CPU's
 * @off: where the message starts
 * @len: its length
 * @seed: its seed (krdma_seed())
 */
void krdma_pattern_fill(struct krdma_buf *buf, u32 off, u32 len, u64 seed)
{
	krdma_buf_walk(buf, off, len, krdma_fill_fn, &seed);
}

static bool __krdma_pattern_check(struct krdma_buf *buf, u32 off, u32 len,
				  struct krdma_pattern_walk *w)
{
	if (krdma_fault_take(KRDMA_FAULT_CORRUPT)) {
		u8 byte;

		krdma_buf_copy_to(&byte, buf, off, 1);
		byte ^= 0x5a;
		krdma_buf_copy_from(buf, off, &byte, 1);
	}
	return krdma_buf_walk(buf, off, len, krdma_check_fn, w);
}

/**
 * krdma_pattern_check() - is [@off, @off + @len) of @buf the message of @seed?
 * @buf: the buffer, owned by the CPU
 * @off: where the message starts in @buf
 * @len: the message's length
 * @seed: the message's seed (krdma_seed())
 *
 * Process context only: a message may be 8 MiB, and the check yields the
 * CPU as it goes (might_sleep() makes a debug kernel say so at once when
 * a caller holds a lock). A handler that cannot sleep checks a bounded
 * part with krdma_pattern_check_part().
 *
 * Return: whether every byte is right.
 */
bool krdma_pattern_check(struct krdma_buf *buf, u32 off, u32 len, u64 seed)
{
	struct krdma_pattern_walk w = { .seed = seed, .may_sleep = true };

	might_sleep();
	return __krdma_pattern_check(buf, off, len, &w);
}

/**
 * krdma_pattern_check_part() - a message's bytes [@from, @from + @n) right?
 * @buf: the buffer, owned by the CPU
 * @off: where the message starts in @buf
 * @from: the first byte checked, from the message's start
 * @n: how many bytes are checked; the caller bounds it
 * @seed: the message's seed (krdma_seed())
 *
 * Never sleeps: for completion handlers under a spinlock or in a softirq.
 *
 * Return: whether every byte checked is right.
 */
bool krdma_pattern_check_part(struct krdma_buf *buf, u32 off, u32 from,
			      u32 n, u64 seed)
{
	struct krdma_pattern_walk w = { .seed = seed, .base = from };

	if (from > U32_MAX - off)
		return false;
	return __krdma_pattern_check(buf, off + from, n, &w);
}

/**
 * krdma_region_create() - the MRs that will expose part of a buffer
 * @kdev: the device, whose PD they are in
 * @buf: the buffer
 * @off: the part, from
 * @len: and its length, not 0
 * @access: unused here: krdma_region_post_reg() grants it
 *
 * FRWR: one MR per chunk covering [off, off + len) of @buf. The MRs are
 * mapped here; krdma_region_post_reg() makes them valid on the wire.
 *
 * Context: process; it may sleep.
 * Return: the region, or an ERR_PTR().
 */
struct krdma_region *krdma_region_create(struct krdma_device *kdev,
					 struct krdma_buf *buf, u32 off,
					 u32 len, int access)
{
	struct krdma_region *reg;
	u32 i, nmrs = 0;

	if (off > buf->len || len > buf->len - off || !len)
		return ERR_PTR(-EINVAL);
	for (i = 0; i < buf->nchunks; i++)
		nmrs++;
	reg = krdma_failable(kzalloc(struct_size(reg, mr, nmrs), GFP_KERNEL));
	if (!reg)
		return ERR_PTR(-ENOMEM);

	for (i = 0; i < buf->nchunks && len; i++) {
		struct krdma_chunk *c = &buf->chunk[i];
		struct scatterlist sg;
		struct ib_mr *mr;
		u32 piece, pages;
		int n;

		if (off >= c->len) {
			off -= c->len;
			continue;
		}
		piece = min(len, c->len - off);
		pages = DIV_ROUND_UP(piece + offset_in_page(off), PAGE_SIZE) + 1;
		mr = krdma_failable_ptr(ib_alloc_mr(kdev->pd, IB_MR_TYPE_MEM_REG,
						    pages));
		if (IS_ERR(mr)) {
			krdma_region_destroy(reg);
			return ERR_CAST(mr);
		}
		reg->mr[reg->nmrs++] = mr;

		sg_init_table(&sg, 1);
		sg_dma_address(&sg) = c->dma + off;
		sg_dma_len(&sg) = piece;
		n = ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE);
		if (n != 1) {
			krdma_region_destroy(reg);
			return ERR_PTR(n < 0 ? n : -EINVAL);
		}
		len -= piece;
		off = 0;
	}
	return reg;
}

/**
 * krdma_region_post_reg() - registers a region's MRs on the session's QP
 * @sess: the session
 * @reg: the region
 * @cqe: the last REG_MR's completion
 * @access: what the peer may do through it
 *
 * Posts one REG_MR per MR, only the last one signaled, with a fresh key.
 * On failure reg->registered says whether any of them went to the QP
 * (then only teardown, after its drain, may free @reg). A device that
 * refuses, with nothing posted, to grant remote atomic access gives
 * -EACCES: mlx5 does where its firmware forbids changing that access
 * (mlx5r_umr_can_reconfig(), typically on a VF), a refusal of one test's
 * and not a failure of the QP.
 *
 * Context: process; it may sleep - but for a region of one MR, which a
 * completion handler may register again (a send-invalidate target).
 * Return: 0, -ENOMEM, -EACCES, or the post's error.
 */
int krdma_region_post_reg(struct krdma_session *sess, struct krdma_region *reg,
			  struct ib_cqe *cqe, int access)
{
	bool some_posted = false;
	struct ib_reg_wr one = {}, *wrs = &one;
	u32 i;
	int ret;

	if (reg->nmrs > 1) {
		wrs = krdma_failable(kcalloc(reg->nmrs, sizeof(*wrs), GFP_KERNEL));
		if (!wrs)
			return -ENOMEM;
	}
	for (i = 0; i < reg->nmrs; i++) {
		struct ib_mr *mr = reg->mr[i];

		ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
		wrs[i].wr.opcode = IB_WR_REG_MR;
		wrs[i].wr.wr_cqe = cqe;
		wrs[i].wr.next = i + 1 < reg->nmrs ? &wrs[i + 1].wr : NULL;
		wrs[i].wr.send_flags = i + 1 < reg->nmrs ? 0 : IB_SEND_SIGNALED;
		wrs[i].mr = mr;
		wrs[i].key = mr->rkey;
		wrs[i].access = access;
	}
	if ((access & IB_ACCESS_REMOTE_ATOMIC) && krdma_fault_atomic_reg())
		ret = -EINVAL;
	else
		ret = krdma_post_send_chain(sess, &wrs[0].wr, &some_posted);
	if (wrs != &one)
		kfree(wrs);
	if (!ret || some_posted)
		reg->registered = true;
	if ((ret == -EINVAL || ret == -EOPNOTSUPP) && !some_posted &&
	    (access & IB_ACCESS_REMOTE_ATOMIC))
		ret = -EACCES;
	return ret;
}

/* The fence of krdma_region_post_fence(): only an error is news. */
static void krdma_fence_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_session *sess = cq->cq_context;

	if (unlikely(wc->status != IB_WC_SUCCESS))
		krdma_wc_error(sess, wc, "registration fence");
}

static struct ib_cqe krdma_fence_cqe = { .done = krdma_fence_done };

/**
 * krdma_region_post_fence() - on rxe, a fence ahead of a batch of REG_MRs
 * @sess: the session, whose QP the registrations go on
 *
 * rxe runs a REG_MR a second time when it retransmits a message posted
 * before it (6.1, rxe_req.c): req_retry() restarts the requester at the
 * oldest unacknowledged WQE and skips the REG_MR, done but not completed
 * behind it, yet req_next_wqe() hands it to rxe_do_local_ops() again;
 * rxe_reg_fast_mr() finds the MR valid ("not free"), the WQE fails and
 * so does the QP. A lost bidir TEST_REQ did it: the responder posts its
 * mirror's TEST_REQ, then its registrations. A LOCAL_INV waits there for
 * every WQE before it to complete (rxe_wqe_is_fenced(), IBA 10.6.5.1):
 * the REG_MRs after it complete as soon as they have run, and nothing
 * retransmitted lies before them. Posted once, ahead of a batch of
 * registrations, on the device's fence MR, which is never registered (a
 * free MR stays free). Nothing of a test's is in it: a test refused after
 * its fence was posted (its registration refused by the device) frees
 * its regions with the fence still queued.
 *
 * Return: 0 (nothing posted where the device has no fence MR), or the
 * post's error.
 */
int krdma_region_post_fence(struct krdma_session *sess)
{
	struct ib_send_wr wr = {
		.opcode			= IB_WR_LOCAL_INV,
		.wr_cqe			= &krdma_fence_cqe,
	};

	if (!sess->kdev->fence_mr)
		return 0;
	wr.ex.invalidate_rkey = sess->kdev->fence_mr->rkey;
	return krdma_post_send(sess, &wr);
}

/**
 * krdma_region_post_inv() - invalidates a region's MRs
 * @sess: the session, whose QP registered them
 * @reg: the region
 * @cqe: the last LOCAL_INV's completion
 *
 * Invalidates every MR of @reg: stale rkeys fail on the wire afterwards.
 * Nothing is posted for a region that is not registered.
 *
 * Context: process; it may sleep - but for a region of one MR, which a
 * completion handler may invalidate (test-reg-behind's).
 * Return: 0, -ENOMEM, or the post's error.
 */
int krdma_region_post_inv(struct krdma_session *sess, struct krdma_region *reg,
			  struct ib_cqe *cqe)
{
	struct ib_send_wr one = {}, *wrs = &one;
	u32 i;
	int ret;

	if (!reg->registered)
		return 0;
	if (reg->nmrs > 1) {
		wrs = krdma_failable(kcalloc(reg->nmrs, sizeof(*wrs), GFP_KERNEL));
		if (!wrs)
			return -ENOMEM;
	}
	for (i = 0; i < reg->nmrs; i++) {
		wrs[i].opcode = IB_WR_LOCAL_INV;
		wrs[i].ex.invalidate_rkey = reg->mr[i]->rkey;
		wrs[i].wr_cqe = cqe;
		wrs[i].next = i + 1 < reg->nmrs ? &wrs[i + 1] : NULL;
		wrs[i].send_flags = i + 1 < reg->nmrs ? 0 : IB_SEND_SIGNALED;
	}
	ret = krdma_post_send(sess, wrs);
	if (wrs != &one)
		kfree(wrs);
	if (!ret)
		reg->registered = false;
	return ret;
}

/**
 * krdma_region_to_wire() - a region as the peer is told it
 * @reg: the region, registered
 * @wire: room for its nmrs MRs' address, rkey and length
 */
void krdma_region_to_wire(struct krdma_region *reg,
			  struct krdma_wire_region *wire)
{
	u32 i;

	for (i = 0; i < reg->nmrs; i++) {
		wire[i].addr = cpu_to_be64(reg->mr[i]->iova);
		wire[i].rkey = cpu_to_be32(reg->mr[i]->rkey);
		wire[i].len = cpu_to_be32(reg->mr[i]->length);
	}
}

/**
 * krdma_region_destroy() - deregisters a region's MRs and frees it
 * @reg: the region, or NULL or an ERR_PTR(); invalidated or never
 *	registered, or its QP drained
 *
 * Context: process; it may sleep.
 */
void krdma_region_destroy(struct krdma_region *reg)
{
	u32 i;

	if (IS_ERR_OR_NULL(reg))
		return;
	for (i = 0; i < reg->nmrs; i++)
		ib_dereg_mr(reg->mr[i]);
	kfree(reg);
}
