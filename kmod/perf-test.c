// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: a bw or lat test bound to its pipeline (perf-test.h), the half
 * the two engines share. The driver's: its parameters checked, its
 * pipeline and buffers set up, started once the TEST_ACK came, reported,
 * and its figures, failure and end, which the pipeline hands up through
 * krdma_perf_test_ops; the responder's: its pipeline, target and region,
 * what arrives, its check at TEST_END, and its end once its answers are
 * complete (krdma_perf_peer_ops). The engines (bw.c, lat.c) add what is
 * their own; the pipeline (perf-run.c, perf-wr.c) knows no test.
 */
#include <linux/slab.h>
#include <net/genetlink.h>

#include "perf-test.h"

/* A signaled completion at least this often (bytes), see krdma_perf_test_setup(). */
#define KRDMA_PERF_SIGNAL_BYTES	SZ_1M

/**
 * krdma_perf_check_params() - what bw and lat check of a test alike
 * @sess: the session it would run on
 * @p: its parameters
 * @wrs: the send WRs the engine's window may take at once, but for control
 *	messages
 * @extack: for the reason of a refusal
 *
 * Return: 0, or the negative errno of the first check it fails.
 */
int krdma_perf_check_params(struct krdma_session *sess,
			    struct krdma_test_params *p, u32 wrs,
			    struct netlink_ext_ack *extack)
{
	u32 i;

	if (p->op == KRDMA_OP_PING) {
		NL_SET_ERR_MSG(extack, "ping runs in check mode only");
		return -EOPNOTSUPP;
	}
	if (p->chain > p->depth) {
		NL_SET_ERR_MSG(extack, "chain must not exceed depth");
		return -EINVAL;
	}
	/* A send is one WR; an RDMA op is split where it needs (perf-wr.c). */
	if (krdma_op_is_send(p->op) && krdma_perf_nchunks(sess, p) > sess->max_sge) {
		NL_SET_ERR_MSG(extack, "size needs more SGEs than the device has");
		return -E2BIG;
	}
	if (p->qps > sess->qps) {
		NL_SET_ERR_MSG(extack, "qps exceeds the session's QPs (set qps at connect)");
		return -EINVAL;
	}
	for (i = 1; i < p->qps; i++) {
		if (!sess->conns[i]) {
			NL_SET_ERR_MSG(extack, "data channels still connecting");
			return -EAGAIN;
		}
	}
	if (wrs + KRDMA_PERF_CTRL_WRS > sess->sq_depth) {
		NL_SET_ERR_MSG(extack, "depth too large for the session's send queue");
		return -ENOSPC;
	}
	if (krdma_op_peer_recvs(p->op) &&
	    min(sess->rq_depth, sess->peer_rq_depth) <= KRDMA_RQ_RESERVE + 1) {
		NL_SET_ERR_MSG(extack, "the receive queues are too small");
		return -ENOSPC;
	}
	return 0;
}

/**
 * krdma_perf_nchunks() - the chunks (and so the SGEs) a message takes here
 * @sess: the session
 * @p: the test's parameters
 *
 * A message may need a WR per chunk on the peer's side too, checked again
 * with the peer's regions when they come (krdma_perf_start()).
 *
 * Return: how many chunks of the device one message of @p spans.
 */
u32 krdma_perf_nchunks(struct krdma_session *sess,
		       const struct krdma_test_params *p)
{
	return krdma_chunks_for(sess->kdev, krdma_perf_msg_len(p->op, p->size));
}

/* Our test, as the pipeline sees it: krdma_perf_test_ops. */
static bool krdma_perf_test_running(const struct krdma_perf *pf)
{
	const struct krdma_test *test = pf->test;

	return !READ_ONCE(test->stop) && !READ_ONCE(test->status);
}

static void krdma_perf_test_failed(struct krdma_perf *pf, int status,
				   const char *reason)
{
	krdma_test_fail(pf->test, status, "%s", reason);
}

static void krdma_perf_test_post_failed(struct krdma_perf *pf, int ret)
{
	krdma_test_post_failed(pf->sess, pf->test, pf->test_id, ret);
}

/* pumps: the figures so far; krdma_perf_test_end() sets the last. */
static void krdma_perf_test_retired(struct krdma_perf *pf, u64 total)
{
	WRITE_ONCE(pf->test->completed, total);
	WRITE_ONCE(pf->test->bytes, total * pf->size);
}

/*
 * bw: all posted work of every lane is done; the read data is checked
 * here, the rest by the responder.
 */
static void krdma_perf_test_end(struct krdma_perf *pf)
{
	struct krdma_test *test = pf->test;
	u64 done = atomic64_read(&pf->retired);

	krdma_perf_test_retired(pf, done);
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

/* lat: the TEST_END held back for our last sends (end_deferred). */
static void krdma_perf_test_drained(struct krdma_perf *pf)
{
	if (!pf->end_deferred)
		return;
	pf->end_deferred = false;
	krdma_test_send_end(pf->test);
}

static const struct krdma_perf_ops krdma_perf_test_ops = {
	.running	= krdma_perf_test_running,
	.failed		= krdma_perf_test_failed,
	.post_failed	= krdma_perf_test_post_failed,
	.retired	= krdma_perf_test_retired,
	.end		= krdma_perf_test_end,
	.drained	= krdma_perf_test_drained,
};

/**
 * krdma_perf_test_setup() - the driver's pipeline and buffer
 * @test: our bw or lat test, before its TEST_REQ goes out
 * @flags: the engine's, sets how the pipeline runs (struct krdma_perf)
 *
 * What bw and lat have in common; the engine sets up the rest on the
 * pipeline returned, test->perf.
 *
 * Return: the pipeline, or an ERR_PTR(); what was made is freed with
 * the test.
 */
struct krdma_perf *krdma_perf_test_setup(struct krdma_test *test,
					 void (*flags)(struct krdma_perf *pf))
{
	struct krdma_session *sess = test->sess;
	struct krdma_perf *pf;
	int ret;

	test->slots = krdma_failable(kcalloc(test->p.depth, sizeof(*test->slots),
					     GFP_KERNEL));
	if (!test->slots)
		return ERR_PTR(-ENOMEM);
	pf = krdma_perf_alloc(sess, test->p.op, test->p.size, test->p.depth,
			      test->id, test->p.qps);
	if (!pf)
		return ERR_PTR(-ENOMEM);
	test->perf = pf;
	pf->test = test;
	pf->ops = &krdma_perf_test_ops;
	/*
	 * At least one completion a MiB: completions are how the session
	 * knows its peer is alive (krdma_peer_alive()), and 16 unsignaled
	 * MiB crossing a lossy wire at 2 MB/s were 8 s of silence.
	 */
	pf->signal_every = clamp_t(u32, KRDMA_PERF_SIGNAL_BYTES / test->p.size,
				   1, test->p.signal_every);
	pf->chain = test->p.chain;
	pf->rx_window = krdma_perf_rx_window(pf);
	ret = krdma_perf_alloc_buf(pf, &test->slots[0].buf,
				   krdma_op_is_send(pf->op) ? KRDMA_MSG_DATA : 0);
	if (ret)
		return ERR_PTR(ret);
	flags(pf);
	return pf;
}

/**
 * krdma_perf_test_post_regs() - what the peer may reach of our test
 * @test: our bw or lat test
 * @req: its TEST_REQ, which lists a lat write's target
 * @nregions: set to how many regions @req lists
 *
 * A READ's sink, or an iWARP fence's, registered; a lat write's target,
 * registered and listed in @req, valid from now on.
 *
 * Return: 0 or a negative errno.
 */
int krdma_perf_test_post_regs(struct krdma_test *test,
			      struct krdma_msg_test *req, u32 *nregions)
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
	ret = krdma_region_post_fence(test->sess);
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

/**
 * krdma_perf_test_start() - the TEST_ACK came: the lanes, ready to send
 * @test: our bw or lat test, its peer's regions in test->remote
 *
 * Return: 0, or a negative errno for krdma_perf_test_start_failed().
 */
int krdma_perf_test_start(struct krdma_test *test)
{
	return krdma_perf_start(test->perf, test->p.count, test->deadline,
				test->remote, test->remote_per_slot);
}

/**
 * krdma_perf_test_start_failed() - the test cannot start sending
 * @test: our bw or lat test
 * @ret: why, a negative errno
 *
 * Fails the test and sends its TEST_END: nothing is in flight.
 */
void krdma_perf_test_start_failed(struct krdma_test *test, int ret)
{
	krdma_test_fail(test, ret, "cannot set up the send queue: %pe",
			ERR_PTR(ret));
	krdma_test_send_end(test);
}

/**
 * krdma_perf_test_unexpected() - a control message the engine does not expect
 * @test: our bw or lat test
 * @type: the message's type
 *
 * The peer is broken: a protocol error closes the session.
 */
void krdma_perf_test_unexpected(struct krdma_test *test, u16 type)
{
	krdma_count(test->sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
	krdma_session_close(test->sess, "protocol error: unexpected message type %u",
			    type);
}

/**
 * krdma_perf_test_fill() - what bw and lat report alike
 * @skb: the message
 * @test: our bw or lat test, with its pipeline
 *
 * The engine adds its own figures.
 *
 * Return: 0, or -EMSGSIZE.
 */
int krdma_perf_test_fill(struct sk_buff *skb, struct krdma_test *test)
{
	struct krdma_perf *pf = test->perf;

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
	return 0;
}

/**
 * krdma_perf_test_finish() - our test is over: its buffers go
 * @test: our bw or lat test
 *
 * The figures stay for "test show" until krdma_perf_test_free().
 */
void krdma_perf_test_finish(struct krdma_test *test)
{
	krdma_perf_finish(test->perf);
}

/**
 * krdma_perf_test_free() - our test's pipeline goes
 * @test: our bw or lat test
 */
void krdma_perf_test_free(struct krdma_test *test)
{
	krdma_perf_free(test->perf);
	test->perf = NULL;
}

/* The peer's test, as the pipeline sees it: krdma_perf_peer_ops. */

/*
 * lat: our last answer in flight completed; if TEST_END came, it may
 * proceed now (krdma_peer_on_end() frees @pf).
 */
static void krdma_perf_peer_drained(struct krdma_perf *pf)
{
	if (krdma_peer_in(pf->pt, KRDMA_PP_ENDING))
		krdma_peer_on_end(pf->sess, pf->pt);
}

static const struct krdma_perf_ops krdma_perf_peer_ops = {
	.drained	= krdma_perf_peer_drained,
};

/**
 * krdma_perf_peer_alloc_qps() - the responder's half of a bw or lat test
 * @sess: the session
 * @pt: the peer's test
 * @qps: the QPs the driver's messages arrive on (bw's receives over
 *	several QPs): a lane each; else 1, the session's QP, which only the
 *	lat engine posts on (PONGs, write answers)
 *
 * Return: the pipeline, also in pt->perf; NULL: out of memory.
 */
struct krdma_perf *krdma_perf_peer_alloc_qps(struct krdma_session *sess,
					     struct krdma_peer_test *pt, u32 qps)
{
	struct krdma_perf *pf;

	pt->slots = krdma_failable(kcalloc(pt->depth, sizeof(*pt->slots), GFP_KERNEL));
	if (!pt->slots)
		return NULL;
	pf = krdma_perf_alloc(sess, pt->op, pt->size, pt->depth, pt->test_id, qps);
	if (!pf)
		return NULL;
	pt->perf = pf;
	pf->pt = pt;
	pf->responder = true;
	pf->ops = &krdma_perf_peer_ops;
	pf->signal_every = KRDMA_PERF_LAT_SIGS;
	pf->chain = 1;
	pf->rx_window = krdma_perf_rx_window(pf);
	return pf;
}

/**
 * krdma_perf_peer_alloc() - the responder's half, on the session's QP
 * @sess: the session
 * @pt: the peer's test
 *
 * Return: as krdma_perf_peer_alloc_qps().
 */
struct krdma_perf *krdma_perf_peer_alloc(struct krdma_session *sess,
					 struct krdma_peer_test *pt)
{
	return krdma_perf_peer_alloc_qps(sess, pt, 1);
}

/**
 * krdma_perf_peer_target() - the responder's target of a one-sided op
 * @pf: the responder's pipeline
 * @access: what the driver may do to it
 *
 * A READ's source, patterned; in the peer test's first slot, with the
 * region the driver will reach it through.
 *
 * Return: 0 or a negative errno.
 */
int krdma_perf_peer_target(struct krdma_perf *pf, int access)
{
	struct krdma_peer_test *pt = pf->pt;
	struct krdma_slot *slot = &pt->slots[0];
	int ret;

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
	slot->reg = krdma_region_create(pf->sess->kdev, slot->buf, 0,
					pf->data_len, access);
	if (IS_ERR(slot->reg)) {
		ret = PTR_ERR(slot->reg);
		slot->reg = NULL;
		return ret;
	}
	if (slot->reg->nmrs > KRDMA_MAX_WIRE_REGIONS)
		return -E2BIG;
	return 0;
}

/**
 * krdma_perf_peer_publish() - registers the responder's region
 * @pf: the responder's pipeline
 * @access: what the driver may do to it
 * @ack: the TEST_ACK, which lists it
 * @nregions: set to how many regions @ack lists
 *
 * Return: 0 or a negative errno.
 */
int krdma_perf_peer_publish(struct krdma_perf *pf, int access,
			    struct krdma_msg_test *ack, u32 *nregions)
{
	struct krdma_peer_test *pt = pf->pt;
	struct krdma_region *reg = pt->slots[0].reg;
	int ret;

	ret = krdma_region_post_fence(pf->sess);
	if (!ret)
		ret = krdma_region_post_reg(pf->sess, reg, &pt->reg_cqe, access);
	pt->posted |= reg->registered;
	if (ret)
		return ret;
	krdma_count(pf->sess, KRDMA_CNT_REG_MR_WRS, reg->nmrs);
	krdma_region_to_wire(reg, ack->regions);
	*nregions = reg->nmrs;
	return 0;
}

/**
 * krdma_perf_peer_recv() - the driver's DATA or write_imm on the session's QP
 * @sess: the session
 * @pt: the peer's test it is for
 * @rx: its receive
 * @wc: its completion
 * @hdr: its header; NULL for a write_imm
 *
 * Return: as krdma_perf_recv(); a peer's test without a pipeline takes
 * nothing, a protocol error.
 */
bool krdma_perf_peer_recv(struct krdma_session *sess,
			  struct krdma_peer_test *pt, struct krdma_recv *rx,
			  struct ib_wc *wc, const struct krdma_msg_hdr *hdr)
{
	if (pt->perf)
		return krdma_perf_recv(pt->perf, NULL, rx, wc, hdr);
	krdma_count(sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
	krdma_session_close(sess, "protocol error: unexpected data for test %u",
			    pt->test_id);
	return false;
}

/**
 * krdma_perf_peer_end() - TEST_END: the responder checks what arrived
 * @pt: the peer's test; pt->end_iters is what the driver did
 *
 * Sets the figures its TEST_RESULT reports.
 */
void krdma_perf_peer_end(struct krdma_peer_test *pt)
{
	struct krdma_perf *pf = pt->perf;
	struct krdma_buf *buf = pt->slots ? pt->slots[0].buf : NULL;
	bool ok = true;
	u64 val;

	if (!pf)
		return;
	pt->seen = pt->end_iters;
	/* It counts what arrives: sends, write_imm, a lat write. */
	if (krdma_op_peer_recvs(pf->op) || pf->polls) {
		pt->seen = pf->rx.received;
		ok = pf->rx.received == pt->end_iters;
	}
	pt->validated = pf->rx.checked - pf->rx.bad;
	pt->errors = pf->rx.bad;
	if (buf && pf->pumps && pf->op != KRDMA_OP_READ &&
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

/**
 * krdma_perf_peer_cpu_ns() - the responder's CPU time in the test
 * @pt: the peer's test
 *
 * Return: nanoseconds, for its TEST_RESULT.
 */
u64 krdma_perf_peer_cpu_ns(const struct krdma_peer_test *pt)
{
	return krdma_perf_cpu_ns(pt->perf);
}

/**
 * krdma_perf_peer_free() - the responder's pipeline goes
 * @pt: the peer's test
 */
void krdma_perf_peer_free(struct krdma_peer_test *pt)
{
	krdma_perf_free(pt->perf);
	pt->perf = NULL;
}
