// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: the bandwidth (bw) and latency (lat) modes of the test engine.
 *
 * bw: the driver keeps up to depth messages in flight (READs: up to
 * read_window_kb) and posts them in chains of up to chain messages per
 * ib_post_send(). Only one message in signal_every (and at least one a
 * MiB) asks for a completion, plus the last one of every burst so that
 * the pipeline never waits on unsignaled work: an RC send queue completes
 * in order, so one completion retires every message before it.
 * Every message carries the same pattern; the receiving side checks it,
 * sampled as sends arrive and once at the end for the RDMA ops. Ops that
 * consume the peer's receives (send, send_imm, write_imm) are paced by
 * credits - the responder reports the receives it has reposted - so a fast
 * driver never meets an RNR NAK.
 *
 * lat: one message at a time, each round trip timed with ktime_get_ns()
 * into the test's histogram (histogram.c). A send is answered by a PONG,
 * in the CQ context. A write is perftest's write_lat: each side has a target the
 * other writes into, and a kernel thread per side polls the last byte of
 * its target for the iteration's marker, then writes back (the responder)
 * or times it (the driver). Both count half the round trip, the one-way
 * latency. A READ or an atomic is a round trip by itself, with nothing
 * for the responder's CPU to do (perftest's read_lat and atomic_lat,
 * krping's rlat): the bw engine with a window of one, every message
 * signaled, its whole round trip recorded from the driver's completion.
 *
 * Several QPs (bw, qps > 1): each QP is a lane - the session's own QP and
 * its data channels (channel.c); on iWARP the data channels alone
 * (krdma_perf_iwarp_ctrl_clear()) - with its own WR templates, signals and
 * window of depth messages, and its share of a count. A lane is pumped by
 * its own completions, in its own CQ's context, under its lock; the lane
 * that finishes last has the test ended in the session's CQ context
 * (krdma_perf_lane_done()). The peer's regions are registered
 * on the first QP and valid on all, being the protection domain's.
 *
 * The rest runs in the session's CQ context, like check mode (test.c),
 * which owns the test objects. The time spent in the handlers (and the
 * pollers) here is the test's CPU time.
 */
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "histogram.h"
#include "test.h"

/* Send WRs a test leaves for control messages (credits, TEST_END). */
#define KRDMA_PERF_CTRL_WRS	4
/* bw: the responder reports credits after this share of the window. */
#define KRDMA_PERF_CREDIT_DIV	4
/* Received sends checked: one in this many (and the first). */
#define KRDMA_PERF_SAMPLE	64
/* lat: signaled sends in flight at most (they complete before the PONG). */
#define KRDMA_PERF_LAT_SIGS	8
/*
 * bw, rate: the longest a burst may be worth. Longer, the sender would sit
 * idle past what a "test stop" should take, and toward the peer's stall
 * timer (stall_ms).
 */
#define KRDMA_PERF_RATE_SPAN_NS	NSEC_PER_SEC

struct krdma_perf_sig {
	struct ib_cqe		cqe;
	struct krdma_perf_lane	*lane;
	u64			msg;	/* the message whose last WR this is */
	bool			busy;	/* posted, not completed */
};

union krdma_perf_wr {
	struct ib_send_wr	send;
	struct ib_rdma_wr	rdma;
	struct ib_atomic_wr	atomic;
};

/* One QP's share of a test's sending. */
struct krdma_perf_lane {
	struct krdma_perf	*pf;
	struct krdma_channel	*ch;		/* NULL: the session's own QP */
	spinlock_t		lock;		/* bw: pumping vs. its completions */
	union krdma_perf_wr	*wr;		/* chain message templates, linked */
	struct ib_sge		*sge;		/* KRDMA_MAX_SGE per WR */
	struct krdma_perf_sig	*sig;
	u32			nsig;
	u64			sig_next;
	atomic_t		sig_pending;	/* the poller posts, CQ completes */
	u64			sig_upto;	/* messages a posted signaled WR covers */
	u64			posted;		/* messages */
	u64			retired;	/* messages known complete */
	u64			quota;		/* a count's share */
	bool			done;		/* bw: all posted, all retired */
	u64			end_ns;		/* bw: ktime_get_ns() when done */
	u64			cpu_ns;
	struct ib_cqe		fence_cqe;	/* iWARP: krdma_perf_iwarp_fence() */
	struct ib_sge		fence_sge;
	bool			fenced;
	struct hrtimer		rate_timer;	/* bw, rate: the next burst */
	u64			rate_next;	/* ktime_get_ns(): budget for it */
};

struct krdma_perf {
	struct krdma_session	*sess;
	struct krdma_test	*test;		/* driver */
	struct krdma_peer_test	*pt;		/* responder */
	u32			test_id;
	u8			op;
	u8			mode;
	u32			size;
	u32			depth;
	u32			window;		/* bw: in flight on a lane */
	u32			signal_every;
	u32			chain;
	u64			rate;		/* bw: bytes/s, 0: no limit */
	u32			burst;
	u64			rate_span;	/* ns a burst of a lane is worth */
	bool			inline_data;
	struct krdma_buf	*buf;		/* what we send (bw responder: the target) */
	struct krdma_buf	*target;	/* lat write: the peer writes here */
	struct krdma_buf	*fence_sink;	/* iWARP: krdma_perf_iwarp_fence() */
	struct task_struct	*poller;	/* lat write */

	/* Sending: chain messages of per WRs each, on every lane. */
	struct krdma_perf_lane	*lanes;
	u32			nlanes;
	atomic_t		lanes_running;	/* bw: lanes not done yet */
	struct ib_cqe		end_cqe;	/* bw: a channel lane hands the end over */
	atomic64_t		retired;	/* bw: messages, all lanes */
	u32			per;
	u32			nwr;
	u64			granted;	/* peer receives reposted */
	u32			rx_window;	/* receives the peer holds for us */
	bool			end_deferred;	/* lat: TEST_END after completions */

	/* Receiving: sends in bw, PONGs in lat. */
	u64			received;
	u64			checked;
	u64			bad;
	u64			credit_sent;

	/* lat */
	u64			t0;
	struct krdma_hist	hist;

	u64			cpu_ns;
	bool			over;		/* krdma_perf_finish() ran */
};

static bool krdma_perf_uses_credits(const struct krdma_perf *pf)
{
	return pf->mode == KRDMA_MODE_BW &&
	       (pf->op == KRDMA_OP_SEND || pf->op == KRDMA_OP_SEND_IMM ||
		pf->op == KRDMA_OP_WRITE_IMM);
}

static bool krdma_op_is_send(u8 op)
{
	return op == KRDMA_OP_SEND || op == KRDMA_OP_SEND_IMM;
}

static bool krdma_perf_polls(const struct krdma_perf *pf)
{
	return pf->mode == KRDMA_MODE_LAT && pf->op == KRDMA_OP_WRITE;
}

/* Ops that are a round trip by themselves: the peer's CPU takes no part. */
static bool krdma_op_is_one_sided(u8 op)
{
	return op == KRDMA_OP_READ || krdma_op_is_atomic(op);
}

/* lat read and atomics: the bw engine, one message at a time. */
static bool krdma_perf_pumps(const struct krdma_perf *pf)
{
	return pf->mode == KRDMA_MODE_BW || krdma_op_is_one_sided(pf->op);
}

/* The responder counts what arrives (sends, write_imm, lat write). */
static bool krdma_perf_peer_counts(const struct krdma_perf *pf)
{
	return krdma_op_is_send(pf->op) || pf->op == KRDMA_OP_WRITE_IMM ||
	       krdma_perf_polls(pf);
}

/* lat, credits and the responder use one lane: the session's QP. */
static struct krdma_perf_lane *krdma_perf_lane0(struct krdma_perf *pf)
{
	return &pf->lanes[0];
}

/* lat write: the last byte of iteration i's message; never 0. */
static u8 krdma_perf_marker(u64 iter)
{
	return (u8)(iter % 255) + 1;
}

/* ------------------------------------------------------------------ */
/* Common                                                              */

static void krdma_perf_end_done(struct ib_cq *cq, struct ib_wc *wc);
static enum hrtimer_restart krdma_perf_rate_timer(struct hrtimer *timer);

/*
 * The READs a lane has in flight, in bytes. A READ response lost on the
 * wire makes the requester ask again from the lost packet on, and the
 * responses of every READ behind it are sent for nothing: on a wire that
 * drops, what is in flight is what one loss costs. 64 READs of 1 MiB in
 * flight made a test on a 1% loss wire crawl until its stall timer fired;
 * a few MiB is still far more than the bandwidth-delay product of any
 * RoCE or InfiniBand link.
 */
static unsigned int krdma_read_window_kb = 2048;
module_param_named(read_window_kb, krdma_read_window_kb, uint, 0644);
MODULE_PARM_DESC(read_window_kb,
		 "bw mode: most RDMA READ bytes in flight on a QP (at least one message)");

/* bw: a signaled completion at least this often (bytes), see below. */
#define KRDMA_PERF_SIGNAL_BYTES	SZ_1M
/*
 * bw over iWARP on a session's only QP: the most a lane has in flight
 * ahead of the keepalive (krdma_perf_iwarp_ctrl_clear()): 2 s at the 0.5
 * MB/s of siw under TCG, a millisecond at 10 Gb/s, where it still
 * covers a LAN's bandwidth-delay product many times over.
 */
#define KRDMA_PERF_IWARP_CTRL_BYTES	SZ_1M

/*
 * iWARP completes a SEND or a WRITE of ours as soon as TCP has it, so it
 * is no answer from the peer: there the keepalive hears the peer alive
 * only from the peer's own probes, which it posts on the session's QP
 * (keepalive.c). A probe queued behind a bw lane on that QP waits for the
 * lane's window and then for the TCP send buffer ahead of it: 64 x 64
 * KiB at 0.5 MB/s under TCG were more than peer_timeout_ms, and a bidir
 * test over 4 QPs was taken for a dead peer at both ends. Stretching the
 * timeout by what is queued is no answer either: a peer that died with
 * megabytes queued would go unnoticed for as long. So the control
 * traffic gets a QP of its own where there is one: with @qps > 1 on
 * iWARP the lanes go on the data channels alone (returns 1: the lanes
 * start at QP 1), as the ULPs that keep an admin queue apart from their
 * I/O queues do. With a single QP they must share it; there the lane's
 * window is held to KRDMA_PERF_IWARP_CTRL_BYTES in krdma_perf_alloc(),
 * which leaves the probe behind a MiB and a socket buffer at most. IB
 * and RoCE complete a WRITE on the peer's ACK, and those completions
 * keep the session alive (krdma_peer_acked()): every QP carries a lane.
 */
static u32 krdma_perf_iwarp_ctrl_clear(struct krdma_session *sess, u32 qps)
{
	return qps > 1 && sess->kdev->iwarp;
}

/*
 * @qps: the QPs the test runs over, the session's first; the caller
 * checked their data channels are there. Lane i sends on QP i, but on
 * iWARP, see krdma_perf_iwarp_ctrl_clear().
 */
static struct krdma_perf *krdma_perf_alloc(struct krdma_session *sess,
					   u8 op, u8 mode, u32 size, u32 depth,
					   u32 test_id, u32 qps)
{
	u32 first = krdma_perf_iwarp_ctrl_clear(sess, qps);
	u32 i, nlanes = qps - first;
	struct krdma_perf *pf;

	pf = krdma_failable(kzalloc(sizeof(*pf), GFP_KERNEL));
	if (!pf)
		return NULL;
	pf->lanes = krdma_failable(kcalloc(nlanes, sizeof(*pf->lanes),
					   GFP_KERNEL));
	if (!pf->lanes) {
		kfree(pf);
		return NULL;
	}
	pf->nlanes = nlanes;
	for (i = 0; i < nlanes; i++) {
		struct krdma_perf_lane *ln = &pf->lanes[i];

		ln->pf = pf;
		ln->ch = i + first ? sess->channels[i + first - 1] : NULL;
		spin_lock_init(&ln->lock);
		/* Soft: the pump takes the lane's lock with spin_lock_bh(). */
		hrtimer_init(&ln->rate_timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_ABS_SOFT);
		ln->rate_timer.function = krdma_perf_rate_timer;
	}
	pf->end_cqe.done = krdma_perf_end_done;
	pf->sess = sess;
	pf->op = op;
	pf->mode = mode;
	pf->size = size;
	pf->depth = depth;
	pf->window = depth;
	if (op == KRDMA_OP_READ)
		pf->window = clamp_t(u32, (u64)READ_ONCE(krdma_read_window_kb) * 1024 / size,
				     1, depth);
	if (mode == KRDMA_MODE_BW && sess->kdev->iwarp && !first)
		pf->window = clamp_t(u32, KRDMA_PERF_IWARP_CTRL_BYTES / size,
				     1, pf->window);
	pf->test_id = test_id;
	return pf;
}

/*
 * Buffer layout: a send is the whole buffer, header then payload; the RDMA
 * ops move the payload alone, so that a power-of-two size stays in one
 * chunk (and one MR) on each side.
 */
static bool krdma_perf_has_hdr(const struct krdma_perf *pf)
{
	return krdma_op_is_send(pf->op);
}

static u32 krdma_perf_data_off(const struct krdma_perf *pf)
{
	return krdma_perf_has_hdr(pf) ? KRDMA_MSG_HDR_SIZE : 0;
}

static u32 krdma_perf_data_len(const struct krdma_perf *pf)
{
	return krdma_op_data_len(pf->op, pf->size);
}

static u32 krdma_perf_msg_len(const struct krdma_perf *pf)
{
	return krdma_perf_data_off(pf) + krdma_perf_data_len(pf);
}

/*
 * Inline data is copied by the CPU at post time: it needs no lkey, stays
 * the CPU's, and must be one virtually contiguous piece.
 */
static bool krdma_perf_can_inline(const struct krdma_perf *pf)
{
	if (pf->op == KRDMA_OP_READ || krdma_op_is_atomic(pf->op))
		return false;
	return krdma_perf_msg_len(pf) <= pf->sess->max_inline &&
	       krdma_perf_msg_len(pf) <= pf->sess->kdev->chunk_size;
}

/* The buffer we send from (@msg_type: its header, for sends). */
static int krdma_perf_alloc_buf(struct krdma_perf *pf, struct krdma_buf **bufp,
				u16 msg_type)
{
	u32 off = krdma_perf_data_off(pf), len = krdma_perf_data_len(pf);

	*bufp = krdma_buf_alloc(pf->sess->kdev, off + len, "perf", 0);
	if (!*bufp)
		return -ENOMEM;
	pf->buf = *bufp;
	if (off) {
		struct krdma_msg_hdr hdr = {
			.type	 = cpu_to_be16(msg_type),
			.test_id = cpu_to_be32(pf->test_id),
			.len	 = cpu_to_be32(pf->size),
		};

		krdma_buf_copy_from(pf->buf, 0, &hdr, sizeof(hdr));
	}
	if (!krdma_op_is_atomic(pf->op) && pf->op != KRDMA_OP_READ)
		krdma_pattern_fill(pf->buf, off, len, krdma_seed(pf->test_id, 0));
	pf->inline_data = krdma_perf_can_inline(pf);
	if (!pf->inline_data)
		krdma_buf_to_device(pf->buf);
	return 0;
}

/*
 * lat write: the zeroed buffer the peer writes into, and its region. The
 * poller watches its last byte, so it starts as no marker (0).
 */
static int krdma_perf_alloc_target(struct krdma_perf *pf, struct krdma_buf **bufp,
				   struct krdma_region **regp)
{
	struct krdma_region *reg;

	*bufp = krdma_buf_alloc(pf->sess->kdev, pf->size, "perf_target", 0);
	if (!*bufp)
		return -ENOMEM;
	pf->target = *bufp;
	krdma_buf_to_device(pf->target);
	reg = krdma_region_create(pf->sess->kdev, pf->target, 0, pf->size,
				  IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE);
	if (IS_ERR(reg))
		return PTR_ERR(reg);
	*regp = reg;
	if (reg->nmrs > KRDMA_MAX_SLOT_REGIONS)
		return -E2BIG;
	return 0;
}

/*
 * iWARP, bw write over data channels: each lane's last act is an RDMA
 * READ of one byte of the peer's target (krdma_perf_iwarp_fence()),
 * which lands here, at the lane's index. Registered for remote write
 * with the test's other memory (krdma_perf_post_regs()), as a READ's
 * sink must be on iWARP.
 */
static bool krdma_perf_iwarp_fences(const struct krdma_perf *pf)
{
	return pf->sess->kdev->iwarp && pf->op == KRDMA_OP_WRITE &&
	       pf->lanes[pf->nlanes - 1].ch && pf->sess->initiator_depth;
}

static int krdma_perf_alloc_fence_sink(struct krdma_perf *pf,
				       struct krdma_buf **bufp)
{
	*bufp = krdma_buf_alloc(pf->sess->kdev, KRDMA_QPS_MAX, "perf_fence", 0);
	if (!*bufp)
		return -ENOMEM;
	pf->fence_sink = *bufp;
	krdma_buf_to_device(pf->fence_sink);
	return 0;
}

static int krdma_perf_alloc_sigs(struct krdma_perf *pf, u32 n)
{
	u32 i, l;

	for (l = 0; l < pf->nlanes; l++) {
		struct krdma_perf_lane *ln = &pf->lanes[l];

		ln->sig = krdma_failable(kcalloc(n, sizeof(*ln->sig), GFP_KERNEL));
		if (!ln->sig)
			return -ENOMEM;
		ln->nsig = n;
		for (i = 0; i < n; i++)
			ln->sig[i].lane = ln;
	}
	return 0;
}

/*
 * Builds one lane's WR templates: chain messages, each of one WR per
 * remote region (@remote, @nremote; none for sends), linked in posting
 * order.
 */
static int krdma_perf_build_lane(struct krdma_perf_lane *ln,
				 const struct krdma_wire_region *remote,
				 void (*done)(struct ib_cq *, struct ib_wc *))
{
	struct krdma_perf *pf = ln->pf;
	struct krdma_session *sess = pf->sess;
	u32 m, k, i;
	int n;

	ln->wr = krdma_failable(kvcalloc(pf->nwr, sizeof(*ln->wr), GFP_KERNEL));
	ln->sge = krdma_failable(kvcalloc(pf->nwr * KRDMA_MAX_SGE,
					  sizeof(*ln->sge), GFP_KERNEL));
	if (!ln->wr || !ln->sge)
		return -ENOMEM;
	for (i = 0; i < ln->nsig; i++)
		ln->sig[i].cqe.done = done;

	for (m = 0; m < pf->chain; m++) {
		u32 off = 0;

		for (k = 0; k < pf->per; k++) {
			union krdma_perf_wr *w = &ln->wr[m * pf->per + k];
			struct ib_sge *sge = &ln->sge[(m * pf->per + k) * KRDMA_MAX_SGE];
			u32 len = krdma_perf_msg_len(pf);

			if (!krdma_perf_has_hdr(pf) && !krdma_op_is_atomic(pf->op))
				len = be32_to_cpu(remote[k].len);

			if (pf->inline_data) {
				/* The CPU copies it: a virtual address, no lkey. */
				sge->addr = (uintptr_t)pf->buf->chunk[0].cpu + off;
				sge->length = len;
				n = 1;
				w->send.send_flags = IB_SEND_INLINE;
			} else if (pf->op == KRDMA_OP_READ) {
				n = krdma_buf_read_sges(pf->buf, off, len,
							sess->kdev->pd->local_dma_lkey,
							sge, sess->max_read_sge);
				if (n < 0)
					return n;
			} else {
				n = krdma_buf_sges(pf->buf, off, len,
						   sess->kdev->pd->local_dma_lkey,
						   sge, sess->max_sge);
				if (n < 0)
					return n;
			}
			w->send.sg_list = sge;
			w->send.num_sge = n;
			w->send.wr_cqe = &sess->unsignaled_cqe;
			if (m * pf->per + k + 1 < pf->nwr)
				w->send.next = &ln->wr[m * pf->per + k + 1].send;

			switch (pf->op) {
			case KRDMA_OP_SEND:
				w->send.opcode = IB_WR_SEND;
				break;
			case KRDMA_OP_SEND_IMM:
				w->send.opcode = IB_WR_SEND_WITH_IMM;
				w->send.ex.imm_data = cpu_to_be32(pf->test_id);
				break;
			case KRDMA_OP_ATOMIC_FADD:
			case KRDMA_OP_ATOMIC_CSWAP:
				w->atomic.remote_addr = be64_to_cpu(remote[k].addr);
				w->atomic.rkey = be32_to_cpu(remote[k].rkey);
				/* fadd counts; cswap(0, 0) leaves the target 0. */
				if (pf->op == KRDMA_OP_ATOMIC_FADD) {
					w->send.opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
					w->atomic.compare_add = 1;
				} else {
					w->send.opcode = IB_WR_ATOMIC_CMP_AND_SWP;
				}
				break;
			default:	/* write, write_imm, read */
				w->rdma.remote_addr = be64_to_cpu(remote[k].addr);
				w->rdma.rkey = be32_to_cpu(remote[k].rkey);
				if (pf->op == KRDMA_OP_READ) {
					w->send.opcode = IB_WR_RDMA_READ;
				} else if (pf->op == KRDMA_OP_WRITE_IMM &&
					   k + 1 == pf->per) {
					w->send.opcode = IB_WR_RDMA_WRITE_WITH_IMM;
					w->send.ex.imm_data = cpu_to_be32(pf->test_id);
				} else {
					w->send.opcode = IB_WR_RDMA_WRITE;
				}
				off += len;
				break;
			}
		}
	}
	return 0;
}

static int krdma_perf_build(struct krdma_perf *pf,
			    const struct krdma_wire_region *remote, u32 nremote,
			    void (*done)(struct ib_cq *, struct ib_wc *))
{
	u32 l;
	int ret = 0;

	pf->per = remote && !krdma_op_is_send(pf->op) ? nremote : 1;
	pf->nwr = pf->chain * pf->per;
	for (l = 0; l < pf->nlanes && !ret; l++)
		ret = krdma_perf_build_lane(&pf->lanes[l], remote, done);
	return ret;
}

static void krdma_perf_count(struct krdma_perf *pf, u32 n)
{
	struct krdma_session *sess = pf->sess;
	u64 bytes = (u64)n * pf->size;

	switch (pf->op) {
	case KRDMA_OP_READ:
		krdma_count(sess, KRDMA_CNT_READ_WRS, n * pf->per);
		krdma_count(sess, KRDMA_CNT_BYTES_RX, bytes);
		break;
	case KRDMA_OP_ATOMIC_FADD:
	case KRDMA_OP_ATOMIC_CSWAP:
		krdma_count(sess, KRDMA_CNT_ATOMIC_WRS, n);
		break;
	case KRDMA_OP_SEND:
	case KRDMA_OP_SEND_IMM:
		krdma_count(sess, KRDMA_CNT_SEND_WRS, n);
		krdma_count(sess, KRDMA_CNT_BYTES_TX, bytes);
		break;
	default:
		krdma_count(sess, KRDMA_CNT_WRITE_WRS, n * pf->per);
		krdma_count(sess, KRDMA_CNT_BYTES_TX, bytes);
		break;
	}
}

/*
 * Posts the lane's messages posted .. posted + @n - 1 with one
 * ib_post_send(); the last one is signaled if @signal_last, and so is
 * every signal_every-th.
 */
static int krdma_perf_post(struct krdma_perf_lane *ln, u32 n, bool signal_last)
{
	struct krdma_perf *pf = ln->pf;
	struct ib_send_wr *last, *next;
	u64 sig_upto = 0;
	u32 m;
	int ret;

	for (m = 0; m < n; m++) {
		struct ib_send_wr *w = &ln->wr[(m + 1) * pf->per - 1].send;
		u64 msg = ln->posted + m;
		struct krdma_perf_sig *sig;

		if ((msg + 1) % pf->signal_every && !(signal_last && m + 1 == n)) {
			w->wr_cqe = &pf->sess->unsignaled_cqe;
			w->send_flags &= ~IB_SEND_SIGNALED;
			continue;
		}
		sig = &ln->sig[ln->sig_next % ln->nsig];
		/* bw: depth bounds it; lat: send completions precede answers. */
		if (READ_ONCE(sig->busy))
			return -EOVERFLOW;
		ln->sig_next++;
		WRITE_ONCE(sig->busy, true);
		sig->msg = msg;
		atomic_inc(&ln->sig_pending);
		w->wr_cqe = &sig->cqe;
		w->send_flags |= IB_SEND_SIGNALED;
		sig_upto = msg + 1;
	}
	last = &ln->wr[n * pf->per - 1].send;
	next = last->next;
	last->next = NULL;
	if (ln->ch)
		ret = krdma_channel_post_send(ln->ch, &ln->wr[0].send);
	else
		ret = krdma_post_send(pf->sess, &ln->wr[0].send);
	last->next = next;
	if (ret)
		return ret;
	ln->posted += n;
	if (sig_upto)
		ln->sig_upto = sig_upto;
	/* The keepalive shares the session's QP only (krdma_reads_begin()). */
	if (pf->op == KRDMA_OP_READ && !ln->ch)
		krdma_reads_begin(pf->sess, n);
	krdma_perf_count(pf, n);
	return 0;
}

/*
 * lat: the lane sends no more. An unsignaled message is not over when
 * the peer has answered it: its ACK may have been lost, and the transport
 * sends it again from our buffer, which the test's end unmaps. So a
 * signaled WR must cover every message, and the test ends only once
 * sig_pending is back to 0. If the last message went unsignaled, a
 * zero-length RDMA WRITE follows it, signaled: it touches no memory on
 * either side (no rkey is checked, IBA C9-88) and, an RC send queue
 * completing in order, completes after every message before it.
 */
static int krdma_perf_fence(struct krdma_perf_lane *ln)
{
	struct krdma_perf *pf = ln->pf;
	struct ib_rdma_wr wr = {};
	struct krdma_perf_sig *sig;
	int ret;

	if (ln->sig_upto == ln->posted)
		return 0;
	sig = &ln->sig[ln->sig_next % ln->nsig];
	if (READ_ONCE(sig->busy))
		return -EOVERFLOW;
	sig->msg = ln->posted - 1;
	WRITE_ONCE(sig->busy, true);
	atomic_inc(&ln->sig_pending);
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.wr.wr_cqe = &sig->cqe;
	if (ln->ch)
		ret = krdma_channel_post_send(ln->ch, &wr.wr);
	else
		ret = krdma_post_send(pf->sess, &wr.wr);
	if (ret) {
		WRITE_ONCE(sig->busy, false);
		atomic_dec(&ln->sig_pending);
		return ret;
	}
	ln->sig_next++;
	ln->sig_upto = ln->posted;
	return 0;
}

static void krdma_perf_wc_error(struct krdma_perf *pf, struct ib_wc *wc)
{
	if (pf->test && wc->status != IB_WC_WR_FLUSH_ERR)
		krdma_test_fail(pf->test, -EIO, "%s", ib_wc_status_msg(wc->status));
	krdma_wc_error(pf->sess, wc, "perf");
}

/*
 * Counts a message received in @buf and checks one in KRDMA_PERF_SAMPLE
 * (and the first): [off, off + len) against the test's pattern. @buf is
 * the CPU's when @cpu_owned, else it is borrowed from the device.
 */
static void krdma_perf_sample(struct krdma_perf *pf, struct krdma_buf *buf,
			      u32 off, u32 len, bool cpu_owned)
{
	bool ok;

	if (pf->received++ % KRDMA_PERF_SAMPLE)
		return;
	pf->checked++;
	if (!cpu_owned)
		krdma_buf_to_cpu(buf);
	ok = krdma_pattern_check(buf, off, len, krdma_seed(pf->test_id, 0));
	if (!cpu_owned)
		krdma_buf_to_device(buf);
	if (ok)
		return;
	pf->bad++;
	krdma_count(pf->sess, KRDMA_CNT_VALIDATION_ERRORS, 1);
}

/* A received send: header first, then the data. */
static void krdma_perf_check_rx(struct krdma_perf *pf, struct krdma_recv *rx)
{
	krdma_perf_sample(pf, rx->buf, KRDMA_MSG_HDR_SIZE, pf->size, true);
}

/* ------------------------------------------------------------------ */
/* Driver                                                              */

static int krdma_perf_check_params(struct krdma_session *sess,
				   struct krdma_test_params *p,
				   struct netlink_ext_ack *extack)
{
	bool hdr = krdma_op_is_send(p->op);
	u32 nchunks = krdma_chunks_for(sess->kdev, (hdr ? KRDMA_MSG_HDR_SIZE : 0) +
				       p->size);
	u32 wrs, i;

	if (p->op == KRDMA_OP_PING) {
		NL_SET_ERR_MSG(extack, "ping runs in check mode only");
		return -EOPNOTSUPP;
	}
	if (p->mode == KRDMA_MODE_LAT && p->op != KRDMA_OP_SEND &&
	    p->op != KRDMA_OP_WRITE && !krdma_op_is_one_sided(p->op)) {
		NL_SET_ERR_MSG(extack, "lat mode measures send, write, read and the atomics");
		return -EOPNOTSUPP;
	}
	if (p->mode == KRDMA_MODE_LAT && p->depth != 1) {
		NL_SET_ERR_MSG(extack, "lat mode runs one message at a time: depth must be 1");
		return -EINVAL;
	}
	if (p->mode == KRDMA_MODE_BW && p->signal_every > p->depth) {
		NL_SET_ERR_MSG(extack, "signal_every must not exceed depth");
		return -EINVAL;
	}
	if (p->chain > p->depth) {
		NL_SET_ERR_MSG(extack, "chain must not exceed depth");
		return -EINVAL;
	}
	if (p->burst > p->depth) {
		NL_SET_ERR_MSG(extack, "burst must not exceed depth");
		return -EINVAL;
	}
	if (p->rate && mul_u64_u64_div_u64((u64)p->burst * p->size * p->qps,
					   NSEC_PER_SEC, p->rate) >
		       KRDMA_PERF_RATE_SPAN_NS) {
		NL_SET_ERR_MSG(extack, "rate too low: a burst (burst x size a QP) is 1 s at most");
		return -EINVAL;
	}
	if (nchunks > sess->max_sge) {
		NL_SET_ERR_MSG(extack, "size needs more SGEs than the device has");
		return -E2BIG;
	}
	if (p->qps > sess->qps) {
		NL_SET_ERR_MSG(extack, "qps exceeds the session's QPs (set qps at connect)");
		return -EINVAL;
	}
	/* Credits are counted per QP, and channels take no receives. */
	if (p->qps > 1 && (krdma_op_is_send(p->op) || p->op == KRDMA_OP_WRITE_IMM)) {
		NL_SET_ERR_MSG(extack, "several QPs carry write, read and atomics only");
		return -EOPNOTSUPP;
	}
	for (i = 1; i < p->qps; i++) {
		if (!sess->channels[i - 1]) {
			NL_SET_ERR_MSG(extack, "data channels still connecting");
			return -EAGAIN;
		}
	}
	/* A message may need a WR per chunk on either side; checked again
	 * with the peer's regions when they come.
	 */
	wrs = p->mode == KRDMA_MODE_BW ? p->depth * nchunks : 2 * p->signal_every;
	if (wrs + KRDMA_PERF_CTRL_WRS > sess->sq_depth) {
		NL_SET_ERR_MSG(extack, "depth too large for the session's send queue");
		return -ENOSPC;
	}
	if ((krdma_op_is_send(p->op) || p->op == KRDMA_OP_WRITE_IMM) &&
	    min(sess->rq_depth, sess->peer_rq_depth) <= KRDMA_RQ_RESERVE + 1) {
		NL_SET_ERR_MSG(extack, "the receive queues are too small");
		return -ENOSPC;
	}
	return 0;
}

static void krdma_perf_sig_done(struct ib_cq *cq, struct ib_wc *wc);

/*
 * bw, with a rate: perftest's software rate limiter. A lane posts a burst
 * of up to burst messages, then waits until its share of the rate (each
 * lane an equal one) has paid for them. rate_next, when the lane may post
 * again, runs ahead of the clock by what it posted. A lane that fell
 * behind - a late timer, a window full of messages the peer is slow to
 * take - catches up by one burst at most: the average holds, and no
 * flood follows a stall.
 */
static void krdma_perf_rate_setup(struct krdma_perf *pf, u64 rate, u32 burst)
{
	pf->rate = rate;
	pf->burst = burst;
	if (rate)
		pf->rate_span = mul_u64_u64_div_u64((u64)burst * pf->size *
						    pf->nlanes, NSEC_PER_SEC, rate);
}

/* Driver buffers, before the TEST_REQ goes out. */
static int krdma_perf_setup(struct krdma_test *test)
{
	struct krdma_session *sess = test->sess;
	struct krdma_perf *pf;
	int ret;

	test->slots = krdma_failable(kcalloc(test->p.depth, sizeof(*test->slots),
					     GFP_KERNEL));
	if (!test->slots)
		return -ENOMEM;
	pf = krdma_perf_alloc(sess, test->p.op, test->p.mode, test->p.size,
			      test->p.depth, test->id, test->p.qps);
	if (!pf)
		return -ENOMEM;
	test->perf = pf;
	pf->test = test;
	/*
	 * At least one completion a MiB: completions are how the session
	 * knows its peer is alive (krdma_peer_alive()), and 16 unsignaled
	 * MiB crossing a lossy wire at 2 MB/s were 8 s of silence.
	 */
	pf->signal_every = clamp_t(u32, KRDMA_PERF_SIGNAL_BYTES / test->p.size,
				   1, test->p.signal_every);
	/* A one-sided round trip ends at its own completion. */
	if (pf->mode == KRDMA_MODE_LAT && krdma_op_is_one_sided(pf->op))
		pf->signal_every = 1;
	pf->chain = test->p.chain;
	krdma_perf_rate_setup(pf, test->p.rate, test->p.burst);
	pf->rx_window = min(sess->peer_rq_depth, sess->rq_depth) - KRDMA_RQ_RESERVE;
	ret = krdma_perf_alloc_buf(pf, &test->slots[0].buf,
				   krdma_op_is_send(pf->op) ? KRDMA_MSG_DATA : 0);
	if (!ret && krdma_perf_polls(pf))
		ret = krdma_perf_alloc_target(pf, &test->slots[0].sink,
					      &test->slots[0].sink_reg);
	else if (!ret && krdma_perf_iwarp_fences(pf))
		ret = krdma_perf_alloc_fence_sink(pf, &test->slots[0].sink);
	if (ret)
		return ret;
	ret = krdma_perf_alloc_sigs(pf, pf->mode == KRDMA_MODE_LAT ?
				    KRDMA_PERF_LAT_SIGS : pf->depth);
	if (ret)
		return ret;
	if (pf->mode == KRDMA_MODE_LAT) {
		ret = krdma_hist_init(&pf->hist);
		if (ret)
			return ret;
	}
	return 0;
}

static bool krdma_perf_more(struct krdma_perf_lane *ln)
{
	struct krdma_test *test = ln->pf->test;

	if (READ_ONCE(test->stop) || READ_ONCE(test->status))
		return false;
	if (test->p.count)
		return ln->posted < ln->quota;
	return ktime_before(ktime_get(), test->deadline);
}

/*
 * bw: all posted work of every lane is done; the read data is checked
 * here, the rest by the responder.
 */
static void krdma_perf_bw_end(struct krdma_perf *pf)
{
	struct krdma_test *test = pf->test;
	u64 done = atomic64_read(&pf->retired);

	WRITE_ONCE(test->completed, done);
	WRITE_ONCE(test->bytes, done * pf->size);
	if (pf->op == KRDMA_OP_READ && done) {
		krdma_buf_to_cpu(pf->buf);
		if (krdma_pattern_check(pf->buf, 0, pf->size,
					krdma_seed(test->id, 0))) {
			WRITE_ONCE(test->validated, 1);
		} else {
			krdma_count(pf->sess, KRDMA_CNT_VALIDATION_ERRORS, 1);
			krdma_test_fail(test, -EBADMSG, "read data differs from the source");
		}
	}
	krdma_test_send_end(test);
}

/*
 * bw, rate: whether @ln may post now, @room held to a burst if so. If not,
 * the timer pumps it once the budget allows - or at the deadline, which
 * ends a timed test then, not a burst later. Completions may pump it
 * before: the timer is rearmed, never doubled.
 */
static bool krdma_perf_rate_allows(struct krdma_perf_lane *ln, u64 *room)
{
	struct krdma_perf *pf = ln->pf;
	struct krdma_test *test = pf->test;
	u64 at = ln->rate_next;

	if (ktime_get_ns() >= at) {
		*room = min_t(u64, *room, pf->burst);
		return true;
	}
	if (!test->p.count)
		at = min_t(u64, at, ktime_to_ns(test->deadline));
	hrtimer_start(&ln->rate_timer, ns_to_ktime(at), HRTIMER_MODE_ABS_SOFT);
	return false;
}

/* bw, rate: @n messages went out; see krdma_perf_rate_setup(). */
static void krdma_perf_rate_charge(struct krdma_perf_lane *ln, u32 n)
{
	struct krdma_perf *pf = ln->pf;
	u64 now = ktime_get_ns();

	if (now > pf->rate_span)
		ln->rate_next = max(ln->rate_next, now - pf->rate_span);
	ln->rate_next += mul_u64_u64_div_u64((u64)n * pf->size * pf->nlanes,
					     NSEC_PER_SEC, pf->rate);
}

/*
 * bw: fills the lane's window, in chains; the burst's last message is
 * signaled. Returns true once, when the lane has nothing more to do.
 */
static bool krdma_perf_pump(struct krdma_perf_lane *ln)
{
	struct krdma_perf *pf = ln->pf;
	struct krdma_test *test = pf->test;
	u64 room, posted = ln->posted;
	int ret = 0;

	lockdep_assert_held(&ln->lock);
	if (ln->done)
		return false;
	if (!krdma_perf_more(ln)) {
		ln->done = ln->retired == ln->posted;
		return ln->done;
	}
	room = pf->window - (ln->posted - ln->retired);
	if (krdma_perf_uses_credits(pf))
		room = min(room, pf->granted + pf->rx_window - ln->posted);
	if (test->p.count)
		room = min(room, ln->quota - ln->posted);
	if (pf->rate && room && !krdma_perf_rate_allows(ln, &room))
		return false;
	while (room && !ret) {
		u32 n = min_t(u64, room, pf->chain);

		room -= n;
		/* lat: the window is one message; its round trip starts here. */
		if (pf->mode == KRDMA_MODE_LAT)
			pf->t0 = ktime_get_ns();
		ret = krdma_perf_post(ln, n, !room);
	}
	if (pf->rate && ln->posted != posted)
		krdma_perf_rate_charge(ln, ln->posted - posted);
	if (ret)
		krdma_test_post_failed(pf->sess, test, pf->test_id, ret);
	return false;
}

static void krdma_perf_wc_error(struct krdma_perf *pf, struct ib_wc *wc);

/* bw: the session's CQ context takes over the end from a channel lane. */
static void krdma_perf_end_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_perf *pf = container_of(wc->wr_cqe, struct krdma_perf,
					     end_cqe);

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		krdma_perf_wc_error(pf, wc);
		return;
	}
	krdma_peer_acked(pf->sess);
	krdma_perf_bw_end(pf);
}

static void krdma_perf_lane_done(struct krdma_perf_lane *ln);

static void krdma_perf_fence_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_perf_lane *ln =
		container_of(wc->wr_cqe, struct krdma_perf_lane, fence_cqe);

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		krdma_perf_wc_error(ln->pf, wc);
		return;
	}
	krdma_peer_alive(ln->pf->sess);
	krdma_perf_lane_done(ln);
}

/*
 * iWARP completes an RDMA WRITE once the transport has it, not once the
 * peer has placed it (IB completes it on the ACK). A data channel's
 * WRITEs and the TEST_END sent after them on the session's QP travel on
 * different connections: the peer could invalidate its regions under
 * WRITEs still on their way (siw: a QP access error at the peer, the
 * session lost at the end of a bidir test over 4 QPs). A READ after them
 * completes only once they are placed: a READ is answered after the
 * WRITEs before it on its connection. Returns true if the lane is done
 * only when that READ completes.
 *
 * One byte, not zero: siw (6.1) answers a READ that waited in its
 * inbound queue - the peer's own lane busy on the connection, as in
 * bidir - with the length and source of the WQE it sent before, if the
 * READ asked for nothing (siw_activate_tx() leaves the SGE as it was);
 * the 64 KiB response to a zero-length READ was a "local length error"
 * here and a TERMINATE there. So the peer's target is readable on
 * iWARP (krdma_perf_peer_setup()).
 */
static bool krdma_perf_iwarp_fence(struct krdma_perf_lane *ln)
{
	struct krdma_perf *pf = ln->pf;
	struct krdma_session *sess = pf->sess;
	struct ib_rdma_wr wr = {};

	if (ln->fenced || !ln->ch || !ln->posted || !krdma_perf_iwarp_fences(pf))
		return false;
	ln->fenced = true;
	if (WARN_ON_ONCE(krdma_buf_read_sges(pf->fence_sink, ln - pf->lanes, 1,
					     sess->kdev->pd->local_dma_lkey,
					     &ln->fence_sge, 1) != 1))
		return false;
	ln->fence_cqe.done = krdma_perf_fence_done;
	wr.wr.wr_cqe = &ln->fence_cqe;
	wr.wr.opcode = IB_WR_RDMA_READ;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.wr.sg_list = &ln->fence_sge;
	wr.wr.num_sge = 1;
	wr.remote_addr = ln->wr[0].rdma.remote_addr;
	wr.rkey = ln->wr[0].rdma.rkey;
	/* Refused: the channel is going down, and the session with it. */
	return !krdma_channel_post_send(ln->ch, &wr.wr);
}

/*
 * bw: @ln has nothing more to do; the last lane done ends the test. The
 * session's CQ context owns the test (test.c): the end - TEST_END, the
 * READ data checked, the test finished if TEST_END cannot go - runs
 * there, serialized with the test's messages and the peer's test, and
 * may sleep. The first QP's lane is in that context already (@in_sess_cq),
 * unless its rate timer ran it. Another (a data channel's lane in its own
 * CQ's context, maybe a softirq; a rate timer) hands the end
 * over with a zero-length RDMA WRITE on the session's QP, signaled: it
 * touches no memory on either side (IBA C9-88), and its completion runs
 * the end there. Once it is posted, the test may end and be freed at
 * any time: nothing of it is touched here after.
 */
static void __krdma_perf_lane_done(struct krdma_perf_lane *ln, bool in_sess_cq)
{
	struct krdma_perf *pf = ln->pf;
	struct ib_rdma_wr wr = {};
	int ret;

	if (!ln->end_ns)
		ln->end_ns = ktime_get_ns();
	if (krdma_perf_iwarp_fence(ln))
		return;
	if (!atomic_dec_and_test(&pf->lanes_running))
		return;
	if (in_sess_cq) {
		krdma_perf_bw_end(pf);
		return;
	}
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.wr.wr_cqe = &pf->end_cqe;
	ret = krdma_post_send(pf->sess, &wr.wr);
	if (ret)
		krdma_test_post_failed(pf->sess, pf->test, pf->test_id, ret);
}

static void krdma_perf_lane_done(struct krdma_perf_lane *ln)
{
	__krdma_perf_lane_done(ln, !ln->ch);
}

/*
 * bw, rate: the lane's next burst is due (or the deadline came). A soft
 * hrtimer: the pump posts under spin_lock_bh(), which a hardirq may not
 * take, and a softirq may post as the data channels' CQs do.
 * krdma_perf_finish() cancels it before the lane goes.
 */
static enum hrtimer_restart krdma_perf_rate_timer(struct hrtimer *timer)
{
	struct krdma_perf_lane *ln = container_of(timer, struct krdma_perf_lane,
						  rate_timer);
	u64 t0 = local_clock();
	bool done;

	spin_lock_bh(&ln->lock);
	done = krdma_perf_pump(ln);
	spin_unlock_bh(&ln->lock);
	WRITE_ONCE(ln->cpu_ns, ln->cpu_ns + local_clock() - t0);
	if (done)
		__krdma_perf_lane_done(ln, false);
	return HRTIMER_NORESTART;
}

/* bw: pumps a lane from any context. */
static void krdma_perf_pump_lane(struct krdma_perf_lane *ln)
{
	bool done;

	spin_lock_bh(&ln->lock);
	done = krdma_perf_pump(ln);
	spin_unlock_bh(&ln->lock);
	if (done)
		krdma_perf_lane_done(ln);
}

/*
 * bw: a lane's messages up to @upto are complete; @t0: when its handler
 * started. Once this lane is counted out of lanes_running, the last lane
 * may end the test and a new one free it: nothing of it is touched then.
 */
static void krdma_perf_bw_retire(struct krdma_perf_lane *ln, u64 upto, u64 t0)
{
	struct krdma_perf *pf = ln->pf;
	struct krdma_test *test = pf->test;
	u64 total;
	bool done;

	spin_lock_bh(&ln->lock);
	if (pf->op == KRDMA_OP_READ && !ln->ch)
		krdma_reads_end(pf->sess, upto - ln->retired);
	/* Lanes add up in any order: the figure may lag, bw_end fixes it. */
	total = atomic64_add_return(upto - ln->retired, &pf->retired);
	ln->retired = upto;
	WRITE_ONCE(test->completed, total);
	WRITE_ONCE(test->bytes, total * pf->size);
	done = krdma_perf_pump(ln);
	spin_unlock_bh(&ln->lock);
	WRITE_ONCE(ln->cpu_ns, ln->cpu_ns + local_clock() - t0);
	if (done)
		krdma_perf_lane_done(ln);
}

/* lat: the next round trip. */
static void krdma_perf_ping(struct krdma_perf *pf)
{
	int ret;

	pf->t0 = ktime_get_ns();
	ret = krdma_perf_post(krdma_perf_lane0(pf), 1, false);
	if (ret)
		krdma_test_post_failed(pf->sess, pf->test, pf->test_id, ret);
}

static void krdma_perf_sig_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_perf_sig *sig =
		container_of(wc->wr_cqe, struct krdma_perf_sig, cqe);
	struct krdma_perf_lane *ln = sig->lane;
	struct krdma_perf *pf = ln->pf;
	struct krdma_test *test = pf->test;
	u64 t0 = local_clock();
	int pending;

	WRITE_ONCE(sig->busy, false);
	pending = atomic_dec_return(&ln->sig_pending);
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		krdma_perf_wc_error(pf, wc);
		return;
	}
	if (pf->op == KRDMA_OP_READ || krdma_op_is_atomic(pf->op))
		krdma_peer_alive(pf->sess);
	else
		krdma_peer_acked(pf->sess);
	if (test && krdma_perf_pumps(pf)) {
		if (pf->mode == KRDMA_MODE_LAT)
			krdma_hist_record(&pf->hist, ktime_get_ns() - pf->t0);
		krdma_perf_bw_retire(ln, sig->msg + 1, t0);
		return;
	}
	ln->retired = sig->msg + 1;
	/* A poller counts its own time, all of it. */
	if (!krdma_perf_polls(pf))
		WRITE_ONCE(ln->cpu_ns, ln->cpu_ns + local_clock() - t0);
	if (!test) {
		/*
		 * Responder's answers: the last one may let TEST_END proceed,
		 * which sends the result and frees the peer test, @pf with it
		 * (KASAN: a use-after-free here in perf.sh on the debug kernel).
		 */
		if (pf->pt->ending && !pending)
			krdma_peer_on_end(pf->sess, pf->pt);
		return;
	}
	if (pf->end_deferred && !pending) {
		pf->end_deferred = false;
		krdma_test_send_end(test);
	}
}

/* lat write: our target goes into the TEST_REQ, valid from now on. */
static int krdma_perf_post_regs(struct krdma_test *test, struct krdma_msg_test *req,
				u32 *nregions)
{
	struct krdma_region *reg = test->slots[0].sink_reg;
	int ret;

	/* read: every READ lands in the one buffer (bw and lat). */
	if (test->p.op == KRDMA_OP_READ)
		return krdma_buf_make_sink(test->sess, test->perf->buf,
					   &test->ctl_cqe);
	if (test->perf->fence_sink)
		return krdma_buf_make_sink(test->sess, test->perf->fence_sink,
					   &test->ctl_cqe);
	if (!reg)
		return 0;
	ret = krdma_region_post_fence(test->sess, reg, &test->ctl_cqe);
	if (!ret)
		ret = krdma_region_post_reg(test->sess, reg, &test->ctl_cqe,
					    IB_ACCESS_LOCAL_WRITE |
					    IB_ACCESS_REMOTE_WRITE);
	if (ret)
		return ret;
	krdma_count(test->sess, KRDMA_CNT_REG_MR_WRS, reg->nmrs);
	krdma_region_to_wire(reg, req->regions);
	*nregions = reg->nmrs;
	return 0;
}

/*
 * lat write: one turn of a poller's wait. It polls with the CPU, yielding
 * every 64 turns so that rxe and everything else on this CPU still run.
 */
static void krdma_perf_relax(unsigned int *spins)
{
	if (++*spins % 64)
		cpu_relax();
	else
		cond_resched();
}

/*
 * lat write: waits for iteration @iter's marker in the last byte of our
 * target.
 */
static bool krdma_perf_poll_marker(struct krdma_perf *pf, u64 iter)
{
	u8 want = krdma_perf_marker(iter);
	unsigned int spins = 0;

	while (krdma_buf_peek_byte(pf->target, pf->size - 1) != want) {
		if (kthread_should_stop() || READ_ONCE(pf->sess->qp_dead) ||
		    (pf->test && (READ_ONCE(pf->test->stop) ||
				  READ_ONCE(pf->test->status))))
			return false;
		krdma_perf_relax(&spins);
	}
	return true;
}

/* lat write: sends iteration @iter's message, its marker last. */
static int krdma_perf_write_iter(struct krdma_perf *pf, u64 iter)
{
	u8 marker = krdma_perf_marker(iter);
	unsigned int spins = 0;

	if (!pf->inline_data) {
		/* The last write must be done with our buffer first. */
		while (atomic_read(&krdma_perf_lane0(pf)->sig_pending)) {
			if (kthread_should_stop() || READ_ONCE(pf->sess->qp_dead))
				return -ENOTCONN;
			krdma_perf_relax(&spins);
		}
		krdma_buf_to_cpu(pf->buf);
	}
	krdma_buf_copy_from(pf->buf, pf->size - 1, &marker, 1);
	if (!pf->inline_data)
		krdma_buf_to_device(pf->buf);
	/* An inline write needs a completion only to free its WQE. */
	return krdma_perf_post(krdma_perf_lane0(pf), 1, !pf->inline_data);
}

/* lat write: what the peer wrote into our target, all but the marker. */
static void krdma_perf_check_target(struct krdma_perf *pf)
{
	krdma_perf_sample(pf, pf->target, 0, pf->size - 1, false);
}

/*
 * lat write, both sides. The driver writes iteration i and waits for its
 * marker to come back; the responder waits for it and writes it back.
 * The driver ends by sending TEST_END itself (never finishing the test
 * here: krdma_test_finish() stops this thread); the responder is stopped
 * when TEST_END comes.
 */
static int krdma_perf_poller(void *arg)
{
	struct krdma_perf *pf = arg;
	struct krdma_test *test = pf->test;
	u64 iter = 0, t0, start = local_clock();
	int ret = 0;

	while (!kthread_should_stop() && !ret) {
		if (!test) {
			if (!krdma_perf_poll_marker(pf, iter))
				break;
			/* The stall timer stops us if the driver stops (limits.c). */
			krdma_peer_progress(pf->pt);
			krdma_perf_check_target(pf);
			ret = krdma_perf_write_iter(pf, iter++);
			continue;
		}
		if (!krdma_perf_more(krdma_perf_lane0(pf)))
			break;
		t0 = ktime_get_ns();
		ret = krdma_perf_write_iter(pf, iter);
		if (ret || !krdma_perf_poll_marker(pf, iter))
			break;
		krdma_hist_record(&pf->hist, (ktime_get_ns() - t0) / 2);
		krdma_perf_check_target(pf);
		iter++;
		WRITE_ONCE(test->completed, iter);
		WRITE_ONCE(test->bytes, iter * pf->size);
		WRITE_ONCE(test->validated, pf->checked - pf->bad);
	}
	if (test && pf->bad)
		krdma_test_fail(test, -EBADMSG, "written data differs from the pattern");
	/* Stopped in the middle of an iteration: the test is ending anyway. */
	if (ret && !kthread_should_stop()) {
		krdma_test_post_failed(pf->sess, test, pf->test_id, ret);
	} else if (test && !kthread_should_stop() && !READ_ONCE(pf->sess->qp_dead)) {
		/* Our buffers go with the test: our writes must be done. */
		while (atomic_read(&krdma_perf_lane0(pf)->sig_pending) &&
		       !kthread_should_stop())
			schedule_timeout_interruptible(1);
		WRITE_ONCE(test->ending, true);
		if (krdma_ctrl_send(pf->sess, KRDMA_MSG_TEST_END, test->id, iter,
				    0, NULL, 0))
			krdma_session_close(pf->sess, "cannot send TEST_END");
	}
	WRITE_ONCE(pf->cpu_ns, pf->cpu_ns + local_clock() - start);
	/* kthread_stop() wants us alive until it comes. */
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

static int krdma_perf_start_poller(struct krdma_perf *pf)
{
	struct task_struct *t;

	t = krdma_failable_ptr(kthread_create(krdma_perf_poller, pf, "krdma_lat/%u",
					      pf->test_id));
	if (IS_ERR(t))
		return PTR_ERR(t);
	pf->poller = t;
	wake_up_process(t);
	return 0;
}

static void krdma_perf_stop_poller(struct krdma_perf *pf)
{
	if (pf && pf->poller) {
		kthread_stop(pf->poller);
		pf->poller = NULL;
	}
}

/* The TEST_ACK came, with the peer's regions if the op needs them. */
static void krdma_perf_start(struct krdma_test *test)
{
	struct krdma_perf *pf = test->perf;
	u64 t0 = local_clock(), share;
	u32 i, rest;
	int ret;

	/* A count is shared out; the first lanes take one more of the rest. */
	share = div_u64_rem(test->p.count, pf->nlanes, &rest);
	for (i = 0; i < pf->nlanes; i++)
		pf->lanes[i].quota = share + (i < rest);

	ret = krdma_perf_build(pf, test->remote, test->remote_per_slot,
			       krdma_perf_sig_done);
	if (!ret && pf->depth * pf->per + KRDMA_PERF_CTRL_WRS > pf->sess->sq_depth)
		ret = -ENOSPC;
	if (!ret && krdma_perf_polls(pf))
		ret = krdma_perf_start_poller(pf);
	if (ret) {
		krdma_test_fail(test, ret, "cannot set up the send queue: %pe",
				ERR_PTR(ret));
		krdma_test_send_end(test);
		return;
	}
	if (krdma_perf_polls(pf))
		return;
	if (!krdma_perf_pumps(pf)) {
		krdma_perf_ping(pf);
		pf->cpu_ns += local_clock() - t0;
		return;
	}
	atomic_set(&pf->lanes_running, pf->nlanes);
	for (i = 0; i < pf->nlanes; i++) {
		pf->lanes[i].rate_next = ktime_get_ns();
		krdma_perf_pump_lane(&pf->lanes[i]);
	}
	pf->cpu_ns += local_clock() - t0;
}

/* CREDIT (bw) or PONG (lat), for the driver; nothing else. */
static void krdma_perf_on_msg(struct krdma_test *test, struct krdma_recv *rx,
			      const struct krdma_msg_hdr *hdr)
{
	struct krdma_perf *pf = test->perf;
	u16 type = be16_to_cpu(hdr->type);
	u64 t1 = ktime_get_ns(), t0 = local_clock();
	u64 iter = be64_to_cpu(hdr->iter);
	int ret;

	if (!pf || !test->started)
		goto proto;
	/* Credits may trail the last completion, and so TEST_END. */
	if (type == KRDMA_MSG_CREDIT) {
		if (!krdma_perf_uses_credits(pf) || iter < pf->granted ||
		    iter > krdma_perf_lane0(pf)->posted)
			goto proto;
		pf->granted = iter;
		if (krdma_recv_repost(rx)) {
			krdma_session_close(pf->sess, "cannot repost receive");
			return;
		}
		krdma_perf_pump_lane(krdma_perf_lane0(pf));
	} else {
		if (type != KRDMA_MSG_PONG ||
		    pf->mode != KRDMA_MODE_LAT || test->ending ||
		    pf->received >= krdma_perf_lane0(pf)->posted ||
		    be32_to_cpu(hdr->len) != pf->size)
			goto proto;
		krdma_hist_record(&pf->hist, (t1 - pf->t0) / 2);
		krdma_perf_check_rx(pf, rx);
		if (krdma_recv_repost(rx)) {
			krdma_session_close(pf->sess, "cannot repost receive");
			return;
		}
		WRITE_ONCE(test->completed, pf->received);
		WRITE_ONCE(test->bytes, pf->received * pf->size);
		WRITE_ONCE(test->validated, pf->checked - pf->bad);
		if (pf->bad)
			krdma_test_fail(test, -EBADMSG, "PONG data differs from the pattern");
		if (krdma_perf_more(krdma_perf_lane0(pf))) {
			krdma_perf_ping(pf);
		} else {
			/* Its buffers go with the test: wait for our sends. */
			ret = krdma_perf_fence(krdma_perf_lane0(pf));
			if (ret)
				krdma_test_post_failed(pf->sess, test, test->id, ret);
			else if (atomic_read(&krdma_perf_lane0(pf)->sig_pending))
				pf->end_deferred = true;
			else
				krdma_test_send_end(test);
		}
	}
	pf->cpu_ns += local_clock() - t0;
	return;
proto:
	krdma_count(test->sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
	krdma_session_close(test->sess, "protocol error: unexpected message type %u",
			    type);
}

static u64 krdma_perf_cpu_ns(const struct krdma_perf *pf)
{
	u64 ns;
	u32 i;

	if (!pf)
		return 0;
	ns = READ_ONCE(pf->cpu_ns);
	for (i = 0; i < pf->nlanes; i++)
		ns += READ_ONCE(pf->lanes[i].cpu_ns);
	return ns;
}

/* What each QP moved, to show one that lags (perftest shows only the sum). */
static int krdma_perf_fill_lanes(struct sk_buff *skb, struct krdma_perf *pf)
{
	u64 start = ktime_to_ns(pf->test->start);
	struct krdma_perf_lane *ln;
	struct nlattr *nest;
	u32 i;

	for (i = 0; i < pf->nlanes; i++) {
		ln = &pf->lanes[i];
		/* A lane stopped before its end has no figure of its own. */
		if (!ln->end_ns)
			continue;
		nest = nla_nest_start(skb, KRDMA_A_TEST_QP);
		if (!nest ||
		    nla_put_u32(skb, KRDMA_TEST_QP_A_INDEX,
				ln->ch ? ln->ch->index : 0) ||
		    nla_put_u64_64bit(skb, KRDMA_TEST_QP_A_ITERS, ln->retired,
				      KRDMA_TEST_QP_A_PAD) ||
		    nla_put_u64_64bit(skb, KRDMA_TEST_QP_A_BYTES,
				      ln->retired * pf->size,
				      KRDMA_TEST_QP_A_PAD) ||
		    nla_put_u64_64bit(skb, KRDMA_TEST_QP_A_ELAPSED_NS,
				      ln->end_ns - start, KRDMA_TEST_QP_A_PAD))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

static int krdma_perf_fill(struct sk_buff *skb, struct krdma_test *test)
{
	struct krdma_perf *pf = test->perf;

	if (!pf)
		return 0;
	if (nla_put_u32(skb, KRDMA_A_TEST_SIGNAL_EVERY, pf->signal_every) ||
	    nla_put_u32(skb, KRDMA_A_TEST_CHAIN, pf->chain) ||
	    (pf->rate &&
	     (nla_put_u64_64bit(skb, KRDMA_A_TEST_RATE, pf->rate, KRDMA_A_PAD) ||
	      nla_put_u32(skb, KRDMA_A_TEST_BURST, pf->burst))) ||
	    nla_put_u8(skb, KRDMA_A_TEST_INLINE, pf->inline_data) ||
	    nla_put_u32(skb, KRDMA_A_TEST_QPS, test->p.qps) ||
	    nla_put_u64_64bit(skb, KRDMA_A_TEST_CPU_NS, krdma_perf_cpu_ns(pf),
			      KRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, KRDMA_A_TEST_PEER_CPU_NS, test->peer_cpu_ns,
			      KRDMA_A_PAD))
		return -EMSGSIZE;
	/* The figures exist once the test is over (krdma_perf_finish()). */
	if (pf->mode == KRDMA_MODE_BW && pf->over)
		return krdma_perf_fill_lanes(skb, pf);
	return krdma_hist_fill(skb, &pf->hist, KRDMA_A_TEST_LAT);
}

/* ------------------------------------------------------------------ */
/* Responder                                                           */

/*
 * Sets up the responder's side: the target region of the RDMA ops, or the
 * PONG template. Called with pt->op/mode/size/depth checked.
 */
static int krdma_perf_peer_setup(struct krdma_session *sess,
				 struct krdma_peer_test *pt,
				 const struct krdma_msg_test *req, u32 body_len,
				 struct krdma_msg_test *ack, u32 *nregions)
{
	bool polls = pt->mode == KRDMA_MODE_LAT && pt->op == KRDMA_OP_WRITE;
	u32 nreq = be32_to_cpu(req->nregions);
	int access = krdma_peer_access(pt->op);
	struct krdma_perf *pf;
	struct krdma_slot *slot;
	int ret;

	if (pt->op == KRDMA_OP_PING ||
	    (pt->mode == KRDMA_MODE_LAT && pt->op != KRDMA_OP_SEND && !polls &&
	     !krdma_op_is_one_sided(pt->op)))
		return -EOPNOTSUPP;
	if (krdma_op_is_send(pt->op) && pt->size > sess->max_msg_size)
		return -EMSGSIZE;
	/* Only a lat write comes with a region: the driver's target. */
	if (polls) {
		if (nreq > (body_len - sizeof(*req)) / sizeof(req->regions[0]) ||
		    krdma_check_wire_regions(req->regions, nreq, 1, pt->size,
					     &pt->remote_per_slot))
			return -EPROTO;
		pt->remote = krdma_failable(kmemdup(req->regions,
						    nreq * sizeof(req->regions[0]),
						    GFP_KERNEL));
		if (!pt->remote)
			return -ENOMEM;
	} else if (nreq) {
		return -EPROTO;
	}
	pt->slots = krdma_failable(kcalloc(pt->depth, sizeof(*pt->slots), GFP_KERNEL));
	if (!pt->slots)
		return -ENOMEM;
	pf = krdma_perf_alloc(sess, pt->op, pt->mode, pt->size, pt->depth,
			      pt->test_id, 1);
	if (!pf)
		return -ENOMEM;
	pt->perf = pf;
	pf->pt = pt;
	pf->signal_every = KRDMA_PERF_LAT_SIGS;
	pf->chain = 1;
	pf->rx_window = min(sess->peer_rq_depth, sess->rq_depth) - KRDMA_RQ_RESERVE;
	slot = &pt->slots[0];

	if (pt->mode == KRDMA_MODE_LAT && pt->op == KRDMA_OP_SEND) {
		ret = krdma_perf_alloc_buf(pf, &slot->buf, KRDMA_MSG_PONG);
		if (!ret)
			ret = krdma_perf_alloc_sigs(pf, KRDMA_PERF_LAT_SIGS);
		if (!ret)
			ret = krdma_perf_build(pf, NULL, 0, krdma_perf_sig_done);
		if (!ret && KRDMA_PERF_LAT_SIGS + KRDMA_PERF_CTRL_WRS > sess->sq_depth)
			ret = -ENOSPC;
		return ret;
	}
	if (!access)
		return 0;	/* bw send: the data lands in our receives */
	/* The driver's fence reads a byte of it: krdma_perf_iwarp_fence(). */
	if (sess->kdev->iwarp && pt->op == KRDMA_OP_WRITE && pt->qps > 1)
		access |= IB_ACCESS_REMOTE_READ;

	if (polls) {
		/* slot->buf is where the driver writes, slot->sink our answer. */
		ret = krdma_perf_alloc_target(pf, &slot->buf, &slot->reg);
		if (!ret)
			ret = krdma_perf_alloc_buf(pf, &slot->sink, 0);
		if (!ret)
			ret = krdma_perf_alloc_sigs(pf, KRDMA_PERF_LAT_SIGS);
		if (!ret)
			ret = krdma_perf_build(pf, pt->remote, pt->remote_per_slot,
					       krdma_perf_sig_done);
		if (!ret && KRDMA_PERF_LAT_SIGS + KRDMA_PERF_CTRL_WRS > sess->sq_depth)
			ret = -ENOSPC;
		if (ret)
			return ret;
	} else {
		ret = krdma_perf_alloc_buf(pf, &slot->buf, 0);
		if (ret)
			return ret;
		if (pf->inline_data) {
			/* Our buffer is a target here, not a source: the device's. */
			pf->inline_data = false;
			krdma_buf_to_device(slot->buf);
		}
		if (pt->op == KRDMA_OP_READ) {
			krdma_buf_to_cpu(slot->buf);
			krdma_pattern_fill(slot->buf, 0, pt->size,
					   krdma_seed(pt->test_id, 0));
			krdma_buf_to_device(slot->buf);
		}
		slot->reg = krdma_region_create(sess->kdev, slot->buf, 0,
						krdma_perf_data_len(pf), access);
		if (IS_ERR(slot->reg)) {
			ret = PTR_ERR(slot->reg);
			slot->reg = NULL;
			return ret;
		}
		if (slot->reg->nmrs > KRDMA_MAX_WIRE_REGIONS)
			return -E2BIG;
	}
	ret = krdma_region_post_fence(sess, slot->reg, &pt->reg_cqe);
	if (!ret)
		ret = krdma_region_post_reg(sess, slot->reg, &pt->reg_cqe, access);
	pt->posted = true;
	if (ret)
		return ret;
	krdma_count(sess, KRDMA_CNT_REG_MR_WRS, slot->reg->nmrs);
	krdma_region_to_wire(slot->reg, ack->regions);
	*nregions = slot->reg->nmrs;
	/* Started last: on failure before this, nothing runs. */
	return polls ? krdma_perf_start_poller(pf) : 0;
}

static void krdma_perf_peer_credit(struct krdma_perf *pf)
{
	u32 batch = max_t(u32, 1, pf->rx_window / KRDMA_PERF_CREDIT_DIV);

	if (pf->received - pf->credit_sent < batch)
		return;
	pf->credit_sent = pf->received;
	if (krdma_ctrl_send(pf->sess, KRDMA_MSG_CREDIT, pf->test_id,
			    pf->received, 0, NULL, 0))
		krdma_session_close(pf->sess, "cannot send CREDIT");
}

/* DATA (a send, or a write_imm without header), for the responder. */
static void krdma_perf_peer_on_msg(struct krdma_session *sess,
				   struct krdma_peer_test *pt, struct krdma_recv *rx,
				   struct ib_wc *wc, const struct krdma_msg_hdr *hdr)
{
	struct krdma_perf *pf = pt->perf;
	u64 t0 = local_clock();
	int ret;

	if (!pf)
		goto proto;
	if (!hdr) {
		if (pf->op != KRDMA_OP_WRITE_IMM ||
		    be32_to_cpu(wc->ex.imm_data) != pt->test_id)
			goto proto;
		pf->received++;
	} else {
		if (be16_to_cpu(hdr->type) != KRDMA_MSG_DATA ||
		    !(krdma_op_is_send(pf->op) || pf->mode == KRDMA_MODE_LAT) ||
		    be32_to_cpu(hdr->len) != pf->size)
			goto proto;
		if (pf->op == KRDMA_OP_SEND_IMM &&
		    (!(wc->wc_flags & IB_WC_WITH_IMM) ||
		     be32_to_cpu(wc->ex.imm_data) != pt->test_id))
			goto proto;
		krdma_perf_check_rx(pf, rx);
	}
	if (krdma_recv_repost(rx)) {
		krdma_session_close(sess, "cannot repost receive");
		return;
	}
	if (pf->mode == KRDMA_MODE_LAT) {
		ret = krdma_perf_post(krdma_perf_lane0(pf), 1, false);
		if (ret)
			krdma_session_close(sess, "lat: cannot post PONG: %d", ret);
	} else {
		krdma_perf_peer_credit(pf);
	}
	pf->cpu_ns += local_clock() - t0;
	return;
proto:
	krdma_count(sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
	krdma_session_close(sess, "protocol error: unexpected data for test %u",
			    pt->test_id);
}

/* TEST_END: check what arrived; @pt->end_iters is what the driver did. */
static void krdma_perf_peer_end(struct krdma_peer_test *pt)
{
	struct krdma_perf *pf = pt->perf;
	struct krdma_buf *buf = pt->slots ? pt->slots[0].buf : NULL;
	bool ok = true;
	u64 val;

	if (!pf)
		return;
	pt->seen = pt->end_iters;
	if (krdma_perf_peer_counts(pf)) {
		pt->seen = pf->received;
		ok = pf->received == pt->end_iters;
	}
	pt->validated = pf->checked - pf->bad;
	pt->errors = pf->bad;
	if (buf && krdma_perf_pumps(pf) && pf->op != KRDMA_OP_READ &&
	    pt->end_iters) {
		krdma_buf_to_cpu(buf);
		if (krdma_op_is_atomic(pf->op)) {
			krdma_buf_copy_to(&val, buf, 0, sizeof(val));
			/* Each fadd added one; cswap(0, 0) never changed it. */
			ok &= val == (pf->op == KRDMA_OP_ATOMIC_FADD ?
				      pt->end_iters : 0);
		} else {
			ok &= krdma_pattern_check(buf, 0, pf->size,
						  krdma_seed(pt->test_id, 0));
		}
		krdma_buf_to_device(buf);
		pt->validated += ok;
	}
	if (!ok) {
		pt->errors++;
		krdma_count(pf->sess, KRDMA_CNT_VALIDATION_ERRORS, 1);
	}
}

/*
 * TEST_END came: a lat write's poller has nothing more to answer, and
 * whatever we answered is covered by a signaled WR (krdma_perf_fence()):
 * the test ends once krdma_perf_peer_busy() says no more.
 */
static void krdma_perf_peer_quiesce(struct krdma_peer_test *pt)
{
	struct krdma_perf *pf = pt->perf;
	int ret;

	if (!pf)
		return;
	krdma_perf_stop_poller(pf);
	ret = krdma_perf_fence(krdma_perf_lane0(pf));
	if (ret)
		krdma_session_close(pf->sess, "test %u: cannot fence its answers: %pe",
				    pt->test_id, ERR_PTR(ret));
}

/* Work of the responder still to complete before TEST_END may proceed. */
static bool krdma_perf_peer_busy(const struct krdma_peer_test *pt)
{
	return pt->perf && atomic_read(&krdma_perf_lane0(pt->perf)->sig_pending);
}

/*
 * debug_dma: the test's buffers are about to be unmapped, so no message
 * that reads or writes them may be incomplete - unless the QP was
 * drained, which completed them all. Inline data was copied at post time.
 */
static void krdma_perf_check_retired(struct krdma_perf *pf)
{
	u32 i;

	if (!krdma_debug_dma || pf->inline_data || READ_ONCE(pf->sess->qp_dead))
		return;
	for (i = 0; i < pf->nlanes; i++)
		WARN(pf->lanes[i].retired != pf->lanes[i].posted,
		     "krdma: test %u: buffers unmapped under %llu incomplete messages on QP %u\n",
		     pf->test_id, pf->lanes[i].posted - pf->lanes[i].retired, i);
}

/* The test is over: keep the figures, free the rest. */
static void krdma_perf_finish(struct krdma_perf *pf)
{
	u32 i;

	if (!pf)
		return;
	krdma_perf_stop_poller(pf);
	/* No pump may arm a rate timer again, nor run on what goes below. */
	for (i = 0; i < pf->nlanes; i++) {
		struct krdma_perf_lane *ln = &pf->lanes[i];

		spin_lock_bh(&ln->lock);
		ln->done = true;
		spin_unlock_bh(&ln->lock);
		hrtimer_cancel(&ln->rate_timer);
	}
	if (pf->lanes[0].wr)
		krdma_perf_check_retired(pf);
	krdma_hist_summarize(&pf->hist);
	pf->over = true;
	for (i = 0; i < pf->nlanes; i++) {
		struct krdma_perf_lane *ln = &pf->lanes[i];

		kvfree(ln->wr);
		ln->wr = NULL;
		kvfree(ln->sge);
		ln->sge = NULL;
		kfree(ln->sig);
		ln->sig = NULL;
	}
	pf->buf = NULL;
}

static void krdma_perf_free(struct krdma_perf *pf)
{
	krdma_perf_finish(pf);
	if (pf) {
		krdma_hist_free(&pf->hist);
		kfree(pf->lanes);
	}
	kfree(pf);
}

static void krdma_perf_test_finish(struct krdma_test *test)
{
	krdma_perf_finish(test->perf);
}

static void krdma_perf_test_free(struct krdma_test *test)
{
	krdma_perf_free(test->perf);
	test->perf = NULL;
}

static u64 krdma_perf_peer_cpu_ns(const struct krdma_peer_test *pt)
{
	return krdma_perf_cpu_ns(pt->perf);
}

static void krdma_perf_peer_free(struct krdma_peer_test *pt)
{
	krdma_perf_free(pt->perf);
	pt->perf = NULL;
}

/* bw: the target of the one-sided ops, nothing for sends; and the mirror. */
static u64 krdma_bw_peer_bytes(const struct krdma_peer_test *pt)
{
	bool send = krdma_op_is_send(pt->op);
	u32 len = krdma_op_data_len(pt->op, pt->size);
	u64 bytes = send ? 0 : krdma_buf_bytes(len);

	if (pt->bidir)
		bytes += krdma_buf_bytes((send ? KRDMA_MSG_HDR_SIZE : 0) + len);
	return bytes;
}

/* bw: we see the ops that consume our receives, not the one-sided ones. */
static bool krdma_bw_peer_watched(const struct krdma_peer_test *pt)
{
	return krdma_op_is_send(pt->op) || pt->op == KRDMA_OP_WRITE_IMM;
}

/* lat: a send's PONG, header and data; a write's target and answer. */
static u64 krdma_lat_peer_bytes(const struct krdma_peer_test *pt)
{
	u32 len = krdma_op_data_len(pt->op, pt->size);

	return krdma_op_is_send(pt->op) ?
		krdma_buf_bytes(KRDMA_MSG_HDR_SIZE + len) :
		2 * krdma_buf_bytes(len);
}

/* lat: a PONG or a write back per iteration. */
static bool krdma_lat_peer_watched(const struct krdma_peer_test *pt)
{
	return true;
}

/* A pipeline needs depth: that many messages in flight, in chains. */
static void krdma_bw_defaults(struct krdma_test_params *p)
{
	p->depth = p->depth ?: KRDMA_BW_DEF_DEPTH;
	p->signal_every = p->signal_every ?:
			  min_t(u32, p->depth, KRDMA_BW_DEF_SIGNAL_EVERY);
	p->chain = p->chain ?: min_t(u32, p->depth, KRDMA_BW_DEF_CHAIN);
	/* A burst is one ib_post_send() unless the user says otherwise. */
	if (p->rate)
		p->burst = p->burst ?: p->chain;
}

#define KRDMA_PERF_ENGINE_OPS					\
	.peer_validates	= true,					\
	.pipelined	= true,					\
	.check_params	= krdma_perf_check_params,		\
	.setup		= krdma_perf_setup,			\
	.post_regs	= krdma_perf_post_regs,			\
	.start		= krdma_perf_start,			\
	.on_msg		= krdma_perf_on_msg,			\
	.fill		= krdma_perf_fill,			\
	.finish		= krdma_perf_test_finish,		\
	.free		= krdma_perf_test_free,			\
	.peer_setup	= krdma_perf_peer_setup,		\
	.peer_on_msg	= krdma_perf_peer_on_msg,		\
	.peer_quiesce	= krdma_perf_peer_quiesce,		\
	.peer_busy	= krdma_perf_peer_busy,			\
	.peer_end	= krdma_perf_peer_end,			\
	.peer_cpu_ns	= krdma_perf_peer_cpu_ns,		\
	.peer_free	= krdma_perf_peer_free

const struct krdma_engine_ops krdma_bw_engine = {
	.name		= "bw",
	.bidir		= true,
	.multi_qp	= true,
	.rate_limit	= true,
	.defaults	= krdma_bw_defaults,
	.peer_bytes	= krdma_bw_peer_bytes,
	.peer_watched	= krdma_bw_peer_watched,
	KRDMA_PERF_ENGINE_OPS,
};

const struct krdma_engine_ops krdma_lat_engine = {
	.name		= "lat",
	.defaults	= krdma_test_defaults_serial,
	.peer_bytes	= krdma_lat_peer_bytes,
	.peer_watched	= krdma_lat_peer_watched,
	KRDMA_PERF_ENGINE_OPS,
};
