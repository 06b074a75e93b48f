// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: the bandwidth (bw) mode's engine, over the pipeline (perf.h).
 *
 * The driver keeps up to depth messages in flight on every QP of the test
 * (a lane each), in chains of up to chain messages per ib_post_send(), at
 * most rate bytes a second if the user gives a rate. Ops that consume the
 * peer's receives (send, send_imm, write_imm) are paced by credits - the
 * responder reports the receives it has reposted in a CREDIT - so a fast
 * driver never meets an RNR NAK. The responder checks what arrives (a
 * sample of the sends, the target of the RDMA ops at the end); the driver
 * checks the data of its READs. A test reports what each QP moved.
 */
#include <linux/math64.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "perf.h"

/* The responder reports credits after this share of the window. */
#define KRDMA_PERF_CREDIT_DIV	4
/*
 * rate: the longest a burst may be worth. Longer, the sender would sit
 * idle past what a "test stop" should take, and toward the peer's stall
 * timer (stall_ms).
 */
#define KRDMA_PERF_RATE_SPAN_NS	NSEC_PER_SEC

/* How the pipeline runs a bw test, on either side. */
static void krdma_bw_flags(struct krdma_perf *pf)
{
	pf->credits = krdma_op_is_send(pf->op) || pf->op == KRDMA_OP_WRITE_IMM;
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
	if (p->rate && mul_u64_u64_div_u64((u64)p->burst * p->size * p->qps,
					   NSEC_PER_SEC, p->rate) >
		       KRDMA_PERF_RATE_SPAN_NS) {
		NL_SET_ERR_MSG(extack, "rate too low: a burst (burst x size a QP) is 1 s at most");
		return -EINVAL;
	}
	/* Credits are counted per QP, and channels take no receives. */
	if (p->qps > 1 && (krdma_op_is_send(p->op) || p->op == KRDMA_OP_WRITE_IMM)) {
		NL_SET_ERR_MSG(extack, "several QPs carry write, read and atomics only");
		return -EOPNOTSUPP;
	}
	/* A window of depth messages, each maybe a WR per chunk. */
	return krdma_perf_check_params(sess, p,
				       p->depth * krdma_perf_nchunks(sess, p),
				       extack);
}

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

static int krdma_bw_setup(struct krdma_test *test)
{
	struct krdma_perf *pf;
	int ret;

	ret = krdma_perf_setup(test);
	if (ret)
		return ret;
	pf = test->perf;
	krdma_bw_flags(pf);
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

	ret = krdma_perf_start(test);
	if (ret) {
		krdma_perf_start_failed(test, ret);
		return;
	}
	krdma_perf_pump_lanes(pf);
	pf->cpu_ns += local_clock() - t0;
}

/*
 * CREDIT, for the driver; nothing else. Credits may trail the last
 * completion, and so TEST_END.
 */
static void krdma_bw_on_msg(struct krdma_test *test, struct krdma_recv *rx,
			    const struct krdma_msg_hdr *hdr)
{
	struct krdma_perf *pf = test->perf;
	u16 type = be16_to_cpu(hdr->type);
	u64 t0 = local_clock();
	u64 iter = be64_to_cpu(hdr->iter);

	if (!pf || !test->started || type != KRDMA_MSG_CREDIT ||
	    !pf->credits || iter < pf->granted ||
	    iter > krdma_perf_lane0(pf)->posted) {
		krdma_perf_unexpected(test, type);
		return;
	}
	pf->granted = iter;
	if (krdma_recv_repost(rx)) {
		krdma_session_close(pf->sess, "cannot repost receive");
		return;
	}
	krdma_perf_pump_lane(krdma_perf_lane0(pf));
	pf->cpu_ns += local_clock() - t0;
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

static int krdma_bw_fill(struct sk_buff *skb, struct krdma_test *test)
{
	struct krdma_perf *pf = test->perf;

	if (!pf)
		return 0;
	if (krdma_perf_fill(skb, test))
		return -EMSGSIZE;
	/* The figures exist once the test is over (krdma_perf_finish()). */
	return pf->over ? krdma_perf_fill_lanes(skb, pf) : 0;
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
	int access = krdma_peer_access(pt->op);
	struct krdma_perf *pf;
	int ret;

	if (pt->op == KRDMA_OP_PING)
		return -EOPNOTSUPP;
	if (krdma_op_is_send(pt->op) && pt->size > sess->max_msg_size)
		return -EMSGSIZE;
	if (be32_to_cpu(req->nregions))
		return -EPROTO;
	pf = krdma_perf_peer_alloc(sess, pt);
	if (!pf)
		return -ENOMEM;
	krdma_bw_flags(pf);
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

static void krdma_bw_peer_on_msg(struct krdma_session *sess,
				 struct krdma_peer_test *pt, struct krdma_recv *rx,
				 struct ib_wc *wc, const struct krdma_msg_hdr *hdr)
{
	u64 t0 = local_clock();

	if (!krdma_perf_peer_recv(sess, pt, rx, wc, hdr))
		return;
	krdma_perf_peer_credit(pt->perf);
	pt->perf->cpu_ns += local_clock() - t0;
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

const struct krdma_engine_ops krdma_bw_engine = {
	.name		= "bw",
	.bidir		= true,
	.multi_qp	= true,
	.rate_limit	= true,
	.peer_validates	= true,
	.pipelined	= true,
	.defaults	= krdma_bw_defaults,
	.check_params	= krdma_bw_check_params,
	.setup		= krdma_bw_setup,
	.post_regs	= krdma_perf_post_regs,
	.start		= krdma_bw_start,
	.on_msg		= krdma_bw_on_msg,
	.fill		= krdma_bw_fill,
	.finish		= krdma_perf_test_finish,
	.free		= krdma_perf_test_free,
	.peer_bytes	= krdma_bw_peer_bytes,
	.peer_watched	= krdma_bw_peer_watched,
	.peer_setup	= krdma_bw_peer_setup,
	.peer_on_msg	= krdma_bw_peer_on_msg,
	.peer_end	= krdma_perf_peer_end,
	.peer_cpu_ns	= krdma_perf_peer_cpu_ns,
	.peer_free	= krdma_perf_peer_free,
};
