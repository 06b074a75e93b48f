// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: the memory and work requests of the pipeline (perf.h): its
 * lanes, the buffers it sends from or the peer reaches, the WR templates
 * each lane posts from, and their end. Built before the pipeline runs
 * (perf-run.c), freed once it is over; the regions a test exposes are
 * its owner's (perf-test.c).
 */
#include <linux/hrtimer.h>
#include <linux/slab.h>

#include "perf.h"

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

/**
 * krdma_perf_alloc() - a test's pipeline and its lanes
 * @sess: the session
 * @op: the test's op
 * @size: a message's data
 * @depth: the messages a lane may have in flight at most
 * @test_id: the test's
 * @qps: the QPs the test runs over, the session's first; the caller
 *	checked their data channels are there. Lane i sends on QP i, but on
 *	iWARP, see krdma_perf_iwarp_ctrl_clear().
 *
 * Lays out its messages once (data_off, data_len, msg_len); the owner
 * sets its ops and flags.
 *
 * Return: the pipeline, or NULL: out of memory.
 */
struct krdma_perf *krdma_perf_alloc(struct krdma_session *sess, u8 op,
				    u32 size, u32 depth, u32 test_id, u32 qps)
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
		ln->conn = sess->conns[i + first];
		spin_lock_init(&ln->lock);
		/*
		 * Soft: the pump takes the lane's lock with spin_lock_bh().
		 * Armed only once krdma_perf_pump_lanes() set its function;
		 * cancelled by krdma_perf_finish() in any case.
		 */
		hrtimer_init(&ln->rate_timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_ABS_SOFT);
	}
	pf->sess = sess;
	pf->op = op;
	pf->size = size;
	pf->data_off = krdma_perf_data_off(op);
	pf->data_len = krdma_op_data_len(op, size);
	pf->msg_len = krdma_perf_msg_len(op, size);
	pf->depth = depth;
	pf->window = depth;
	if (op == KRDMA_OP_READ)
		pf->window = clamp_t(u32, (u64)READ_ONCE(krdma_read_window_kb) * 1024 / size,
				     1, depth);
	/* A window of one message (lat) is within any bound already. */
	if (sess->kdev->iwarp && !first)
		pf->window = clamp_t(u32, KRDMA_PERF_IWARP_CTRL_BYTES / size,
				     1, pf->window);
	pf->test_id = test_id;
	return pf;
}

/**
 * krdma_perf_rx_window() - a lane's messages in flight past its credits
 * @pf: the pipeline, its lanes made
 *
 * The peer's receives on its QP, the smaller of both sides' sizes. The
 * session's QP keeps KRDMA_RQ_RESERVE of them for control messages; a
 * data channel keeps its share of rq_depth (krdma_channel_nr_recvs()),
 * and a test over several QPs holds all its lanes to the smaller window.
 *
 * Return: the window, in messages.
 */
u32 krdma_perf_rx_window(const struct krdma_perf *pf)
{
	struct krdma_session *sess = pf->sess;
	u32 rq_depth = min(sess->peer_rq_depth, sess->rq_depth);
	u32 window = rq_depth - KRDMA_RQ_RESERVE;
	u32 channel = krdma_channel_nr_recvs(sess->peer_proto, rq_depth,
					     sess->qps);

	if (pf->lanes[pf->nlanes - 1].conn->index && channel)
		window = min(window, channel);
	return window;
}

/* RDMA WRITE, WRITE_WITH_IMM and READ: their WRs follow the remote regions. */
static bool krdma_perf_rdma(const struct krdma_perf *pf)
{
	return !krdma_op_is_send(pf->op) && !krdma_op_is_atomic(pf->op);
}

/*
 * Inline data is copied by the CPU at post time: it needs no lkey, stays
 * the CPU's, and must be one virtually contiguous piece.
 */
static bool krdma_perf_can_inline(const struct krdma_perf *pf)
{
	/* A READ's or an atomic's answer lands in our buffer: a sink. */
	if (krdma_op_is_one_sided(pf->op))
		return false;
	return pf->msg_len <= pf->sess->max_inline &&
	       pf->msg_len <= pf->sess->kdev->chunk_size;
}

/**
 * krdma_perf_alloc_buf() - the buffer a pipeline sends from
 * @pf: the pipeline
 * @bufp: set to it (the owner's slot frees it)
 * @msg_type: a send's header's type
 *
 * A message's length (pf->msg_len), its data patterned; inline if the
 * session allows (pf->inline_data), else the device's.
 *
 * Return: 0 or -ENOMEM.
 */
int krdma_perf_alloc_buf(struct krdma_perf *pf, struct krdma_buf **bufp,
			 u16 msg_type)
{
	u32 off = pf->data_off, len = pf->data_len;

	*bufp = krdma_buf_alloc(pf->sess->kdev, pf->msg_len, "perf", 0);
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
	if (!krdma_op_is_one_sided(pf->op))
		krdma_pattern_fill(pf->buf, off, len, krdma_seed(pf->test_id, 0));
	pf->inline_data = krdma_perf_can_inline(pf);
	if (!pf->inline_data)
		krdma_buf_to_device(pf->buf);
	return 0;
}

/**
 * krdma_perf_iwarp_fences() - whether a lane ends with a READ fence
 * @pf: the driver's pipeline
 *
 * iWARP, bw write over data channels: each lane's last act is an RDMA
 * READ of one byte of the peer's target (krdma_perf_iwarp_fence()),
 * which lands in the fence sink (krdma_perf_alloc_fence_sink()).
 *
 * Return: true if the test needs a fence sink.
 */
bool krdma_perf_iwarp_fences(const struct krdma_perf *pf)
{
	return pf->sess->kdev->iwarp && pf->op == KRDMA_OP_WRITE &&
	       pf->lanes[pf->nlanes - 1].conn->index &&
	       pf->sess->initiator_depth;
}

/**
 * krdma_perf_alloc_fence_sink() - where the lanes' READ fences land
 * @pf: the driver's pipeline, krdma_perf_iwarp_fences()
 * @bufp: set to it (the owner's slot frees it)
 *
 * A byte a lane, at the lane's index. Registered for remote write with
 * the test's other memory (krdma_perf_test_post_regs()), as a READ's
 * sink must be on iWARP.
 *
 * Return: 0 or -ENOMEM.
 */
int krdma_perf_alloc_fence_sink(struct krdma_perf *pf,
				struct krdma_buf **bufp)
{
	*bufp = krdma_buf_alloc(pf->sess->kdev, KRDMA_QPS_MAX, "perf_fence", 0);
	if (!*bufp)
		return -ENOMEM;
	pf->fence_sink = *bufp;
	krdma_buf_to_device(pf->fence_sink);
	return 0;
}

/**
 * krdma_perf_alloc_sigs() - each lane's signal slots
 * @pf: the pipeline
 * @n: how many signaled WRs a lane may have in flight
 *
 * Return: 0 or -ENOMEM; what was made goes with krdma_perf_finish().
 */
int krdma_perf_alloc_sigs(struct krdma_perf *pf, u32 n)
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

/* A write_imm's immediate: the test, and whether it answers (lat). */
static __be32 krdma_perf_imm(const struct krdma_perf *pf)
{
	return cpu_to_be32(pf->responder ? pf->test_id | KRDMA_IMM_ANSWER :
			   pf->test_id);
}

/*
 * The SGEs of one WR of a message, from @off of our buffer, at most @len
 * bytes of it; *@taken: how many it covers.
 */
static int krdma_perf_wr_sges(struct krdma_perf *pf, union krdma_perf_wr *w,
			      struct ib_sge *sge, u32 off, u32 len, u32 *taken)
{
	if (pf->inline_data) {
		/* The CPU copies it: a virtual address, no lkey. */
		sge->addr = (uintptr_t)pf->buf->chunk[0].cpu + off;
		sge->length = len;
		*taken = len;
		w->send.send_flags = IB_SEND_INLINE;
		return 1;
	}
	return krdma_buf_rdma_sges_part(pf->sess, pf->buf,
					pf->op == KRDMA_OP_READ, off, len, sge,
					taken);
}

/*
 * An RDMA WRITE or READ message goes as a WR per remote region, and more
 * where a region spans more of our chunks than a WR takes SGEs (cxgb4:
 * 4, 1 for a READ): how many in all, from a dry run of the SGEs.
 */
static int krdma_perf_rdma_wrs(struct krdma_perf *pf,
			       const struct krdma_wire_region *remote,
			       u32 nremote)
{
	struct ib_sge sge[KRDMA_MAX_SGE];
	union krdma_perf_wr w = {};
	u32 k, off = 0, done, len, taken;
	int n, wrs = 0;

	for (k = 0; k < nremote; k++) {
		len = be32_to_cpu(remote[k].len);
		done = 0;
		do {
			n = krdma_perf_wr_sges(pf, &w, sge, off + done,
					       len - done, &taken);
			if (n < 0)
				return n;
			done += taken;
			wrs++;
		} while (done < len);
		off += len;
	}
	return wrs;
}

/*
 * Builds one lane's WR templates: chain messages, each of one WR per
 * remote region (@remote; none for sends) or more (krdma_perf_rdma_wrs()),
 * linked in posting order.
 */
static int krdma_perf_build_lane(struct krdma_perf_lane *ln,
				 const struct krdma_wire_region *remote,
				 void (*done)(struct ib_cq *cq, struct ib_wc *wc))
{
	struct krdma_perf *pf = ln->pf;
	const struct krdma_op_info *op = krdma_op(pf->op);
	struct krdma_session *sess = pf->sess;
	u32 m, k, i;
	bool last;
	int n;

	ln->wr = krdma_failable(kvcalloc(pf->nwr, sizeof(*ln->wr), GFP_KERNEL));
	ln->sge = krdma_failable(kvcalloc(pf->nwr * KRDMA_MAX_SGE,
					  sizeof(*ln->sge), GFP_KERNEL));
	if (!ln->wr || !ln->sge)
		return -ENOMEM;
	for (i = 0; i < ln->nsig; i++)
		ln->sig[i].cqe.done = done;

	for (m = 0; m < pf->chain; m++) {
		/* Our offset; the remote region k, and how far into it. */
		u32 off = 0, r = 0, roff = 0;

		for (k = 0; k < pf->per; k++) {
			union krdma_perf_wr *w = &ln->wr[m * pf->per + k];
			struct ib_sge *sge = &ln->sge[(m * pf->per + k) * KRDMA_MAX_SGE];
			u32 len = pf->msg_len, taken;

			if (krdma_perf_rdma(pf))
				len = be32_to_cpu(remote[r].len) - roff;
			n = krdma_perf_wr_sges(pf, w, sge, off, len, &taken);
			if (n < 0)
				return n;
			/* A message of the header and data: one WR, all of it. */
			if (!krdma_perf_rdma(pf) && taken < len)
				return -E2BIG;
			w->send.sg_list = sge;
			w->send.num_sge = n;
			w->send.wr_cqe = &sess->unsignaled_cqe;
			if (m * pf->per + k + 1 < pf->nwr)
				w->send.next = &ln->wr[m * pf->per + k + 1].send;

			/* A write_imm's immediate rides on its message's last WR. */
			last = k + 1 == pf->per;
			w->send.opcode = last ? op->opcode : op->lead_opcode;
			switch (pf->op) {
			case KRDMA_OP_SEND:
				break;
			case KRDMA_OP_SEND_IMM:
				w->send.ex.imm_data = cpu_to_be32(pf->test_id);
				break;
			case KRDMA_OP_ATOMIC_FADD:
			case KRDMA_OP_ATOMIC_CSWAP:
				w->atomic.remote_addr = be64_to_cpu(remote[r].addr);
				w->atomic.rkey = be32_to_cpu(remote[r].rkey);
				r++;
				/* fadd counts; cswap(0, 0) leaves the target 0. */
				if (pf->op == KRDMA_OP_ATOMIC_FADD)
					w->atomic.compare_add = 1;
				break;
			default:	/* write, write_imm, read */
				w->rdma.remote_addr = be64_to_cpu(remote[r].addr) +
						      roff;
				w->rdma.rkey = be32_to_cpu(remote[r].rkey);
				if (op->imm && last)
					w->send.ex.imm_data = krdma_perf_imm(pf);
				off += taken;
				roff += taken;
				if (roff == be32_to_cpu(remote[r].len)) {
					r++;
					roff = 0;
				}
				break;
			}
		}
	}
	return 0;
}

/**
 * krdma_perf_build() - every lane's WR templates
 * @pf: the pipeline, its buffer and signal slots made
 * @remote: the peer's regions, a WR each (more where one spans more of our
 *	chunks than a WR takes SGEs); NULL for sends
 * @nremote: how many
 * @done: the completion handler of the lanes' signaled WRs
 *
 * Return: 0 or a negative errno.
 */
int krdma_perf_build(struct krdma_perf *pf,
		     const struct krdma_wire_region *remote, u32 nremote,
		     void (*done)(struct ib_cq *cq, struct ib_wc *wc))
{
	u32 l;
	int ret = 0;

	pf->per = remote && !krdma_op_is_send(pf->op) ? nremote : 1;
	if (remote && krdma_perf_rdma(pf)) {
		ret = krdma_perf_rdma_wrs(pf, remote, nremote);
		if (ret < 0)
			return ret;
		pf->per = ret;
		ret = 0;
	}
	pf->nwr = pf->chain * pf->per;
	for (l = 0; l < pf->nlanes && !ret; l++)
		ret = krdma_perf_build_lane(&pf->lanes[l], remote, done);
	return ret;
}

/*
 * debug_dma: the test's buffers are about to be unmapped, so no message
 * that reads or writes them may be incomplete - unless the QP was
 * drained, which completed them all. Inline data was copied at post time.
 */
static void krdma_perf_check_retired(struct krdma_perf *pf)
{
	u32 i;

	if (!krdma_debug_dma || pf->inline_data || krdma_session_gate_closed(pf->sess))
		return;
	for (i = 0; i < pf->nlanes; i++)
		WARN(pf->lanes[i].retired != pf->lanes[i].posted,
		     "krdma: test %u: buffers unmapped under %llu incomplete messages on QP %u\n",
		     pf->test_id, pf->lanes[i].posted - pf->lanes[i].retired, i);
}

/**
 * krdma_perf_finish() - the test is over: keep the figures, free the rest
 * @pf: the pipeline, or NULL
 *
 * Every way out of a test passes here (its end, a stop, teardown,
 * unload): no lane pumps or arms its rate timer after it.
 */
void krdma_perf_finish(struct krdma_perf *pf)
{
	u32 i;

	if (!pf)
		return;
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

/**
 * krdma_perf_free() - the pipeline goes, figures and all
 * @pf: the pipeline, or NULL
 */
void krdma_perf_free(struct krdma_perf *pf)
{
	krdma_perf_finish(pf);
	if (pf) {
		krdma_hist_free(&pf->hist);
		kfree(pf->lanes);
	}
	kfree(pf);
}
