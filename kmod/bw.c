// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: the bandwidth (bw) mode's engine, over the pipeline (perf.h).
 *
 * The driver keeps up to depth messages in flight on every QP of the test
 * (a lane each), in chains of up to chain messages per ib_post_send(), at
 * most rate bytes a second if the user gives a rate (the pipeline's rate
 * limiter, perf-run.c). Ops that consume the peer's receives (send,
 * send_imm, write_imm) are paced by credits - the responder reports the
 * receives it has reposted in a CREDIT - so a fast driver never meets an
 * RNR NAK; over several QPs (protocol version 3)
 * each lane has its own credits, the responder a lane per QP for what
 * arrives on each, and every CREDIT names its QP and travels on the first
 * (krdma_bw_peer_rx_count()), KRDMA_CREDITS_PER_QP of them a lane at
 * most (krdma_bw_peer_credit()), for which that QP has room on both
 * sides (qp.c). The responder checks what arrives (a
 * sample of the sends, the target of the RDMA ops at the end); the driver
 * checks the data of its READs. A test reports what each QP moved.
 */
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "perf-test.h"

/* How the pipeline runs a bw test, on either side. */
static void krdma_bw_flags(struct krdma_perf *pf)
{
	pf->credits = krdma_op_peer_recvs(pf->op);
	pf->pumps = true;
}

static int krdma_bw_check_params(struct krdma_session *sess,
				 struct krdma_test_params *p,
				 struct netlink_ext_ack *extack)
{
	if (p->signal_every > p->depth) {
		NL_SET_ERR_MSG(extack, "signal_every must not exceed depth");
		return -EINVAL;
	}
	if (p->burst > p->depth) {
		NL_SET_ERR_MSG(extack, "burst must not exceed depth");
		return -EINVAL;
	}
	if (!krdma_perf_rate_fits(p->rate, p->burst, p->size, p->qps)) {
		NL_SET_ERR_MSG(extack, "rate too low: a burst (burst x size a QP) is 1 s at most");
		return -EINVAL;
	}
	/* Credits are counted per QP, and older peers' channels take no receives. */
	if (p->qps > 1 && krdma_op_peer_recvs(p->op) && sess->peer_proto < 3) {
		NL_SET_ERR_MSG(extack,
			       "send, send_imm and write_imm over several QPs need a peer of protocol version 3");
		return -EOPNOTSUPP;
	}
	/*
	 * A window of depth messages, each maybe a WR per chunk (more where
	 * a WR takes fewer SGEs: checked again when they are built).
	 */
	return krdma_perf_check_params(sess, p,
				       p->depth * krdma_perf_nchunks(sess, p),
				       extack);
}

static int krdma_bw_setup(struct krdma_test *test)
{
	struct krdma_perf *pf = krdma_perf_test_setup(test, krdma_bw_flags);
	int ret;

	if (IS_ERR(pf))
		return PTR_ERR(pf);
	krdma_perf_rate_setup(pf, test->p.rate, test->p.burst);
	if (krdma_perf_iwarp_fences(pf)) {
		ret = krdma_perf_alloc_fence_sink(pf, &test->slots[0].sink);
		if (ret)
			return ret;
	}
	return krdma_perf_alloc_sigs(pf, pf->depth);
}

/* The TEST_ACK came: every lane fills its window. */
static void krdma_bw_start(struct krdma_test *test)
{
	struct krdma_perf *pf = test->perf;
	u64 t0 = local_clock();
	int ret;

	ret = krdma_perf_test_start(test);
	if (ret) {
		krdma_perf_test_start_failed(test, ret);
		return;
	}
	krdma_perf_pump_lanes(pf);
	pf->cpu_ns += local_clock() - t0;
}

/*
 * CREDIT, for the driver; nothing else. Credits may trail the last
 * completion, and so TEST_END. A CREDIT is for the lane of the QP it
 * names (before protocol version 3: QP 0, the only one).
 */
static void krdma_bw_on_msg(struct krdma_test *test, struct krdma_recv *rx,
			    const struct krdma_msg_hdr *hdr)
{
	struct krdma_perf *pf = test->perf;
	u16 type = be16_to_cpu(hdr->type);
	u64 t0 = local_clock();
	u64 iter = be64_to_cpu(hdr->iter);
	struct krdma_perf_lane *ln;
	bool ok = false;

	ln = pf && krdma_test_accepted(test) && type == KRDMA_MSG_CREDIT && pf->credits ?
	     krdma_perf_lane_of(pf, hdr->qp) : NULL;
	/*
	 * Its receive goes back before the lane may post on the credit: the
	 * responder's next CREDITs, answers to those posts, find it there.
	 */
	if (ln && krdma_recv_repost(rx)) {
		krdma_session_close(pf->sess, "cannot repost receive");
		return;
	}
	if (ln) {
		/* A channel's lane posts in its own CQ's context. */
		spin_lock_bh(&ln->lock);
		if (iter >= ln->granted && iter <= ln->posted) {
			ln->granted = iter;
			ok = true;
		}
		spin_unlock_bh(&ln->lock);
	}
	if (!ok) {
		krdma_perf_test_unexpected(test, type);
		return;
	}
	krdma_perf_pump_lane(ln);
	pf->cpu_ns += local_clock() - t0;
}

/* What each QP moved, to show one that lags (perftest shows only the sum). */
static int krdma_bw_fill_lanes(struct sk_buff *skb, struct krdma_perf *pf)
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
				ln->conn->index) ||
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

static int krdma_bw_fill(struct sk_buff *skb, struct krdma_test *test)
{
	struct krdma_perf *pf = test->perf;

	if (!pf)
		return 0;
	if (krdma_perf_test_fill(skb, test))
		return -EMSGSIZE;
	/* The figures exist once the test is over (krdma_perf_finish()). */
	return pf->over ? krdma_bw_fill_lanes(skb, pf) : 0;
}

static void krdma_bw_peer_rx_end_done(struct ib_cq *cq, struct ib_wc *wc);

/*
 * send, send_imm, write_imm over several QPs: the QPs whose receives the
 * driver's messages consume, as many as its lanes (the same QPs:
 * krdma_perf_alloc()); 1 for the rest. Their data channels' receives
 * are the peer's test's from its setup (krdma_bw_peer_take_channels()).
 */
static int krdma_bw_peer_qps(struct krdma_session *sess,
			     struct krdma_peer_test *pt, u32 *qps)
{
	struct krdma_conn *conn;
	u32 i;

	*qps = 1;
	if (pt->qps <= 1 || !krdma_op_peer_recvs(pt->op))
		return 0;
	/* Before version 3 our channels post no receives. */
	if (sess->peer_proto < 3)
		return -EOPNOTSUPP;
	if (pt->qps > sess->qps)
		return -EINVAL;
	for (i = 1; i < pt->qps; i++) {
		conn = READ_ONCE(sess->conns[i]);
		if (!conn || !conn->nr_recvs)
			return -EAGAIN;
	}
	*qps = pt->qps;
	return 0;
}

static void krdma_bw_peer_take_channels(struct krdma_perf *pf)
{
	u32 i;

	atomic64_set(&pf->rx_end, S64_MAX);
	pf->rx_end_cqe.done = krdma_bw_peer_rx_end_done;
	for (i = 0; i < pf->nlanes; i++) {
		if (!pf->lanes[i].conn->index)
			continue;
		krdma_conn_set_rx_test(pf->lanes[i].conn, pf->pt);
		pf->rx_lanes = true;
	}
}

/*
 * The receives a test's last messages took, which no CREDIT followed: back
 * to their QP, for the control messages (the session's QP) and the next
 * test. Where the session is closing there is no QP to post them on.
 */
static void krdma_bw_peer_post_held(struct krdma_perf *pf,
				    struct krdma_recv_batch *held)
{
	if (krdma_recv_post_held(held) && !krdma_session_gate_closed(pf->sess))
		krdma_session_close(pf->sess, "cannot repost receive");
}

/*
 * The channels let go of the peer's test: no handler of theirs runs on
 * it after this, and what they received adds to the session QP's.
 */
static void krdma_bw_peer_drop_channels(struct krdma_perf *pf)
{
	struct krdma_perf_lane *ln;
	u32 i;

	if (!pf || !pf->rx_lanes)
		return;
	pf->rx_lanes = false;
	for (i = 0; i < pf->nlanes; i++) {
		ln = &pf->lanes[i];
		if (!ln->conn->index)
			continue;
		krdma_conn_set_rx_test(ln->conn, NULL);
		/* No handler of the channel's runs on the lane any more. */
		krdma_bw_peer_post_held(pf, &ln->rx.held);
		pf->rx.received += ln->rx.received;
		pf->rx.checked += ln->rx.checked;
		pf->rx.bad += ln->rx.bad;
	}
}

/*
 * The responder's side: the target of the RDMA ops, nothing for sends
 * (the data lands in our receives).
 */
static int krdma_bw_peer_setup(struct krdma_session *sess,
			       struct krdma_peer_test *pt,
			       const struct krdma_msg_test *req, u32 body_len,
			       struct krdma_msg_test *ack, u32 *nregions)
{
	int access = krdma_op(pt->op)->peer_access;
	struct krdma_perf *pf;
	u32 qps;
	int ret;

	if (pt->op == KRDMA_OP_PING)
		return -EOPNOTSUPP;
	if (krdma_op_is_send(pt->op) && pt->size > sess->max_msg_size)
		return -EMSGSIZE;
	if (be32_to_cpu(req->nregions))
		return -EPROTO;
	ret = krdma_bw_peer_qps(sess, pt, &qps);
	if (ret)
		return ret;
	pf = krdma_perf_peer_alloc_qps(sess, pt, qps);
	if (!pf)
		return -ENOMEM;
	krdma_bw_flags(pf);
	krdma_bw_peer_take_channels(pf);
	if (!access)
		return 0;
	/* The driver's fence reads a byte of it: krdma_perf_iwarp_fence(). */
	if (sess->kdev->iwarp && pt->op == KRDMA_OP_WRITE && pt->qps > 1)
		access |= IB_ACCESS_REMOTE_READ;
	ret = krdma_perf_peer_target(pf, access);
	if (ret)
		return ret;
	return krdma_perf_peer_publish(pf, access, ack, nregions);
}

/*
 * Credits for QP @qp, what @in received so far, on the session's QP.
 * The driver posts at most rx_window past the last CREDIT it took, so a
 * batch of at least rx_window / KRDMA_CREDITS_PER_QP, rounded up, keeps
 * KRDMA_CREDITS_PER_QP of a lane's outstanding at most: rounded down, a
 * window of 7 was a CREDIT a message, 7 of them.
 */
static void krdma_bw_peer_credit(struct krdma_perf *pf, u8 qp,
				 struct krdma_perf_rx *in)
{
	u32 batch = max_t(u32, 1, DIV_ROUND_UP(pf->rx_window,
					       KRDMA_CREDITS_PER_QP));

	if (in->received - in->credit_sent < batch)
		return;
	/* The receives the CREDIT grants go first: one post for the batch. */
	if (krdma_recv_post_held(&in->held)) {
		krdma_session_close(pf->sess, "cannot repost receive");
		return;
	}
	in->credit_sent = in->received;
	if (krdma_ctrl_send_credit(pf->sess, pf->test_id, qp, in->received))
		krdma_session_close(pf->sess, "cannot send CREDIT");
}

/*
 * The end, handed over from a data channel: its zero-length WRITE
 * completed in the session's CQ context (krdma_bw_peer_rx_count()).
 */
static void krdma_bw_peer_rx_end_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_perf *pf = container_of(wc->wr_cqe, struct krdma_perf,
					     rx_end_cqe);

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		krdma_wc_error(pf->sess, wc, "test end");
		return;
	}
	krdma_peer_acked(pf->sess);
	pf->rx_wait = false;
	krdma_peer_on_end(pf->sess, pf->pt);
}

/*
 * Over data channels: a message of a lane arrived. The TEST_END that
 * travels on the session's QP may overtake the channels' last messages,
 * so the end waits for the sum of all lanes to reach its count. Whoever
 * sees both - the TEST_END (krdma_bw_peer_quiesce()) or the message that
 * makes up the count - ends the test, once (rx_end_claimed): a channel's
 * handler, maybe in a softirq, hands it over to the session's CQ context
 * with a zero-length RDMA WRITE, signaled, on the session's QP, as a
 * driver's lane does (__krdma_perf_lane_done()). The fully ordered
 * atomics make sure one of them sees the other.
 */
static void krdma_bw_peer_rx_count(struct krdma_perf *pf, bool on_channel)
{
	u64 total = atomic64_inc_return(&pf->rx_total);
	struct ib_rdma_wr wr = {};

	/* The session's QP: its messages come before its TEST_END. */
	if (!on_channel || total < (u64)atomic64_read(&pf->rx_end) ||
	    atomic_xchg(&pf->rx_end_claimed, 1))
		return;
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.wr.wr_cqe = &pf->rx_end_cqe;
	if (krdma_post_send(pf->sess, &wr.wr))
		krdma_session_close(pf->sess, "test %u: cannot hand its end over",
				    pf->test_id);
}

static void krdma_bw_peer_on_msg(struct krdma_session *sess,
				 struct krdma_peer_test *pt, struct krdma_recv *rx,
				 struct ib_wc *wc, const struct krdma_msg_hdr *hdr)
{
	struct krdma_perf *pf = pt->perf;
	u64 t0 = local_clock();

	if (!krdma_perf_peer_recv(sess, pt, rx, wc, hdr))
		return;
	krdma_bw_peer_credit(pf, 0, &pf->rx);
	krdma_bw_peer_rx_count(pf, false);
	pf->cpu_ns += local_clock() - t0;
}

/* DATA or a write_imm on data channel @conn, in its CQ's context. */
static void krdma_bw_peer_on_channel_msg(struct krdma_conn *conn,
					 struct krdma_peer_test *pt,
					 struct krdma_recv *rx, struct ib_wc *wc,
					 const struct krdma_msg_hdr *hdr)
{
	struct krdma_session *sess = conn->sess;
	struct krdma_perf *pf = pt->perf;
	struct krdma_perf_lane *ln;
	u64 t0 = local_clock();

	/* Taken: the channel is attached (krdma_bw_peer_take_channels()). */
	ln = pf ? krdma_perf_lane_of(pf, conn->index) : NULL;
	if (!ln) {
		krdma_count(sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
		krdma_session_close(sess, "protocol error: unexpected data on data channel %u",
				    conn->index);
		return;
	}
	if (!krdma_perf_recv(pf, ln, rx, wc, hdr))
		return;
	krdma_bw_peer_credit(pf, conn->index, &ln->rx);
	WRITE_ONCE(ln->cpu_ns, ln->cpu_ns + local_clock() - t0);
	krdma_bw_peer_rx_count(pf, true);
}

/* TEST_END came: does it wait for the channels' messages? */
static void krdma_bw_peer_quiesce(struct krdma_peer_test *pt)
{
	struct krdma_perf *pf = pt->perf;

	if (!pf || !pf->rx_lanes)
		return;
	/* See krdma_bw_peer_rx_count(). */
	atomic64_set(&pf->rx_end, min_t(u64, pt->end_iters, S64_MAX));
	smp_mb();	/* the count read after TEST_END's is set */
	if ((u64)atomic64_read(&pf->rx_total) < pt->end_iters ||
	    atomic_xchg(&pf->rx_end_claimed, 1))
		pf->rx_wait = true;
}

static bool krdma_bw_peer_busy(const struct krdma_peer_test *pt)
{
	return pt->perf && pt->perf->rx_wait;
}

static void krdma_bw_peer_end(struct krdma_peer_test *pt)
{
	krdma_bw_peer_drop_channels(pt->perf);
	if (pt->perf)
		krdma_bw_peer_post_held(pt->perf, &pt->perf->rx.held);
	krdma_perf_peer_end(pt);
}

static void krdma_bw_peer_free(struct krdma_peer_test *pt)
{
	krdma_bw_peer_drop_channels(pt->perf);
	if (pt->perf)
		krdma_bw_peer_post_held(pt->perf, &pt->perf->rx.held);
	krdma_perf_peer_free(pt);
}

/* bw: the target of the one-sided ops, nothing for sends; and the mirror. */
static u64 krdma_bw_peer_bytes(const struct krdma_peer_test *pt)
{
	u64 buf = krdma_buf_bytes(krdma_perf_msg_len(pt->op, pt->size));
	u64 bytes = krdma_op_is_send(pt->op) ? 0 : buf;

	if (pt->bidir)
		bytes += buf;
	return bytes;
}

/* bw: we see the ops that consume our receives, not the one-sided ones. */
static bool krdma_bw_peer_watched(const struct krdma_peer_test *pt)
{
	return krdma_op_peer_recvs(pt->op);
}

const struct krdma_engine_ops krdma_bw_engine = {
	.name		= "bw",
	.peer_validates	= true,
	.check_params	= krdma_bw_check_params,
	.setup		= krdma_bw_setup,
	.post_regs	= krdma_perf_test_post_regs,
	.start		= krdma_bw_start,
	.on_msg		= krdma_bw_on_msg,
	.fill		= krdma_bw_fill,
	.finish		= krdma_perf_test_finish,
	.free		= krdma_perf_test_free,
	.peer_bytes	= krdma_bw_peer_bytes,
	.peer_watched	= krdma_bw_peer_watched,
	.peer_setup	= krdma_bw_peer_setup,
	.peer_on_msg	= krdma_bw_peer_on_msg,
	.peer_on_channel_msg = krdma_bw_peer_on_channel_msg,
	.peer_quiesce	= krdma_bw_peer_quiesce,
	.peer_busy	= krdma_bw_peer_busy,
	.peer_end	= krdma_bw_peer_end,
	.peer_cpu_ns	= krdma_perf_peer_cpu_ns,
	.peer_free	= krdma_bw_peer_free,
};
