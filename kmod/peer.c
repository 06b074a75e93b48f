// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: the peer's tests, the side that responds - a TEST_REQ checked,
 * charged against the caps of limits.c and set up by the engine of its
 * mode, or refused; the bidir mirror we run back; TEST_END, the data
 * checked and the memory invalidated, then TEST_RESULT; and the stall
 * timer that ends a test the peer leaves idle. Runs in the session's CQ
 * context, as test.c does.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "test.h"

/*
 * The responder's stall timer. A peer that starts a test and then sends
 * nothing more leaves the responder waiting with the test's memory
 * pinned and, for a lat write, a thread polling its target: the test is
 * watched while the responder expects the driver to act, and a test the
 * driver leaves idle for stall_ms closes the session, as the driver's
 * own timer does on the other side (test.c, krdma_test_progress()). The
 * one-sided ops of bw and the atomics are not watched: the responder does
 * not see them (their memory stays within the caps above, and a dead
 * driver is the keepalive's to find): the engine says which it sees
 * (peer_watched). After TEST_END, a test that still waits for the
 * driver's messages (a bw over data channels waits for the count that
 * TEST_END named) stays watched: a driver that names more than it sent
 * must not pin the test, and refuse every later one, for ever.
 */
static bool krdma_peer_awaits_driver(const struct krdma_peer_test *pt)
{
	switch (READ_ONCE(pt->phase)) {
	case KRDMA_PP_ACTIVE:
		return true;
	case KRDMA_PP_ENDING:
		/* What is left may be ours to do; the engine tells. */
		return pt->engine->peer_busy && pt->engine->peer_busy(pt);
	default:
		return false;
	}
}

static void krdma_peer_stall_work(struct work_struct *work)
{
	struct krdma_peer_test *pt = container_of(to_delayed_work(work),
						  struct krdma_peer_test,
						  stall_work);
	unsigned int ms = READ_ONCE(krdma_stall_ms);
	unsigned long idle = jiffies - READ_ONCE(pt->stamp);

	if (!ms || !krdma_peer_awaits_driver(pt))
		return;
	if (idle < msecs_to_jiffies(ms)) {
		queue_delayed_work(krdma_timer_wq, &pt->stall_work,
				   msecs_to_jiffies(ms) - idle);
		return;
	}
	krdma_count(pt->sess, KRDMA_CNT_RESPONDER_TIMEOUTS, 1);
	krdma_session_close(pt->sess, "peer's test %u stalled for %u ms",
			    pt->test_id, jiffies_to_msecs(idle));
}

/* @pt was accepted: from now on the driver must keep it going. */
static void krdma_peer_watch(struct krdma_peer_test *pt)
{
	unsigned int ms = READ_ONCE(krdma_stall_ms);

	if (!ms || !pt->engine->peer_watched(pt))
		return;
	krdma_peer_progress(pt);
	queue_delayed_work(krdma_timer_wq, &pt->stall_work, msecs_to_jiffies(ms));
}

/*
 * The last reference went, in the session's CQ context or teardown's
 * work: nothing of @pt is in flight. The stall timer only ever closes the
 * session, never drops a reference, so it can be waited for here.
 */
static void krdma_peer_release(struct kref *ref)
{
	struct krdma_peer_test *pt = container_of(ref, struct krdma_peer_test,
						  ref);

	might_sleep();
	cancel_delayed_work_sync(&pt->stall_work);
	if (pt->engine && pt->engine->peer_free)
		pt->engine->peer_free(pt);
	krdma_slots_free(pt->slots, pt->depth);
	kfree(pt->remote);
	krdma_mem_uncharge(pt->sess, pt->mem);
	kfree(pt);
}

/**
 * krdma_peer_put() - drop a reference to the peer's test
 * @pt: the peer's test, or NULL
 *
 * Context: process context (the last one frees its memory and may wait
 * for the stall timer).
 */
void krdma_peer_put(struct krdma_peer_test *pt)
{
	if (pt)
		kref_put(&pt->ref, krdma_peer_release);
}

/**
 * krdma_peer_get_current() - the peer's test of @sess, referenced
 * @sess: the session
 *
 * Context: the session's CQ context, which alone sets sess->peer_test
 * while the session is up (teardown clears it once the QP is drained).
 *
 * Return: the peer's test with a reference for the caller
 * (krdma_peer_put()), or NULL if the peer runs none.
 */
struct krdma_peer_test *krdma_peer_get_current(struct krdma_session *sess)
{
	struct krdma_peer_test *pt = sess->peer_test;

	if (pt)
		kref_get(&pt->ref);
	return pt;
}

/* The session lets go of its peer's test: TEST_RESULT went, or teardown. */
static void krdma_peer_detach(struct krdma_session *sess)
{
	struct krdma_peer_test *pt = sess->peer_test;

	sess->peer_test = NULL;
	krdma_peer_put(pt);
}

/*
 * The moves of Documentation/design.rst, "A test's phases": TEST_END
 * moves an active test on, the end of our work closes it, the last
 * invalidation's completion makes it closed; a test set up half way is
 * broken from the start and only teardown frees it.
 */
static const u8 krdma_peer_moves[] = {
	[KRDMA_PP_ACTIVE]	= BIT(KRDMA_PP_ENDING),
	[KRDMA_PP_ENDING]	= BIT(KRDMA_PP_CLOSING),
	[KRDMA_PP_CLOSING]	= BIT(KRDMA_PP_CLOSED),
	[KRDMA_PP_CLOSED]	= 0,
	[KRDMA_PP_BROKEN]	= 0,
};

/**
 * krdma_peer_move() - move the peer's test @pt to phase @to
 * @pt: the peer's test
 * @to: the phase it moves to
 *
 * The peer's messages are checked against the phase before they move a
 * test (a protocol error otherwise): a move refused here is krdma's own
 * bug, and WARNs. Only the session's CQ context moves it.
 *
 * Return: whether the test moved.
 */
bool krdma_peer_move(struct krdma_peer_test *pt, enum krdma_peer_phase to)
{
	enum krdma_peer_phase from = pt->phase;

	if (WARN_ONCE(!(krdma_peer_moves[from] & BIT(to)),
		      "krdma: peer's test %u: no move from phase %u to %u\n",
		      pt->test_id, from, to))
		return false;
	WRITE_ONCE(pt->phase, to);
	return true;
}

static void krdma_peer_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_session *sess = cq->cq_context;

	if (unlikely(wc->status != IB_WC_SUCCESS))
		krdma_wc_error(sess, wc, "peer registration");
}

/*
 * The peer's test as the parameters of a test of ours (@p, which a bidir
 * mirror runs), held to what the driver's are (krdma_test_params_check()).
 */
static int krdma_peer_check_req(struct krdma_peer_test *pt,
				const struct krdma_msg_test *req,
				struct krdma_test_params *p)
{
	*p = (struct krdma_test_params){
		.op		= req->op,
		/* Zero: a peer from before the modes, which only had check. */
		.mode		= req->mode ?: KRDMA_MODE_CHECK,
		.size		= be32_to_cpu(req->size),
		.depth		= be32_to_cpu(req->depth),
		.count		= be64_to_cpu(req->count),
		.bidir		= req->flags & KRDMA_TEST_F_BIDIR,
		.read_back	= req->flags & KRDMA_TEST_F_READ_BACK,
		.send_inv	= req->flags & KRDMA_TEST_F_SEND_INV,
		.zero_length	= req->flags & KRDMA_TEST_F_ZERO_LENGTH,
		.rnr_hold	= req->flags & KRDMA_TEST_F_RNR_HOLD,
		.qps		= req->qps,	/* zero for one (old peers) */
		.mirror_of	= pt->test_id,
	};

	/* The driver's defaults made these: a zero is malformed, not left out. */
	if ((req->flags & ~(KRDMA_TEST_F_BIDIR | KRDMA_TEST_F_READ_BACK |
			    KRDMA_TEST_F_INVALIDATED | KRDMA_TEST_F_SEND_INV |
			    KRDMA_TEST_F_ZERO_LENGTH | KRDMA_TEST_F_RNR_HOLD)) ||
	    !p->size || !p->depth)
		return -EINVAL;
	/*
	 * Our QP's receives run out only after more SENDs than we keep
	 * posted; iWARP would end the connection at the first one too many.
	 */
	if (p->rnr_hold &&
	    (p->count <= krdma_ctrl_conn(pt->sess)->nr_recvs ||
	     pt->sess->kdev->iwarp))
		return -EINVAL;
	/* Keys to invalidate: targets of ours, in the check mode. */
	if ((req->flags & KRDMA_TEST_F_INVALIDATED) &&
	    (p->mode != KRDMA_MODE_CHECK || !krdma_op(p->op)->peer_access))
		return -EINVAL;
	/* Without a count it runs until the peer's test ends. */
	if (!p->count)
		p->duration_ms = KRDMA_DURATION_MS_MAX;
	krdma_test_params_defaults(p);
	pt->engine = krdma_engine(p->mode);
	if (!pt->engine || krdma_test_params_check(p, NULL))
		return -EINVAL;
	pt->op = p->op;
	pt->mode = p->mode;
	pt->size = p->size;
	pt->depth = p->depth;
	pt->count = be64_to_cpu(req->count);
	pt->bidir = p->bidir;
	pt->read_back = p->read_back;
	pt->invalidated = req->flags & KRDMA_TEST_F_INVALIDATED;
	pt->send_inv = p->send_inv;
	pt->zero_length = p->zero_length;
	pt->rnr_hold = p->rnr_hold;
	pt->qps = p->qps;
	return 0;
}

/* The memory of @pt, charged to @sess: over a cap, a clear refusal. */
static int krdma_peer_charge(struct krdma_session *sess,
			     struct krdma_peer_test *pt)
{
	u64 bytes = pt->engine->peer_bytes(pt);
	int ret;

	ret = krdma_mem_charge(sess, bytes);
	if (ret) {
		krdma_count(sess, KRDMA_CNT_MEM_REFUSED, 1);
		pr_info_ratelimited("krdma: session %u: refused the peer's test %u: %llu KiB over %s\n",
				    sess->id, pt->test_id, bytes >> 10,
				    ret == -EDQUOT ? "max_session_mem_mb" :
				    "max_mem_mb");
		return ret;
	}
	pt->mem = bytes;
	return 0;
}

/*
 * The responder's last word on a test, once it is closed. With bidir, it
 * waits for our mirror test to be over, so that it can carry the
 * mirror's figures. The session lets go of the test: its caller's
 * reference is the last.
 */
static void krdma_peer_send_result(struct krdma_session *sess,
				   struct krdma_peer_test *pt)
{
	struct krdma_host_cpu host;
	struct krdma_msg_result res = {
		.iters	      = cpu_to_be64(pt->seen),
		.validated    = cpu_to_be64(pt->validated),
		.errors	      = cpu_to_be64(pt->errors),
		.cpu_ns	      = cpu_to_be64(pt->engine->peer_cpu_ns ?
					     pt->engine->peer_cpu_ns(pt) : 0),
		.mirror_iters = cpu_to_be64(pt->mirror_iters),
		.mirror_bytes = cpu_to_be64(pt->mirror_bytes),
	};

	/* krdma_peer_mirror_done() calls again, with the mirror's figures. */
	if (!krdma_peer_in(pt, KRDMA_PP_CLOSED) || pt->mirror_id)
		return;
	krdma_host_cpu_since(&pt->host_start, &host);
	krdma_host_cpu_to_wire(&host, &res);
	/* Our host and port to a peer that reads them, none to another. */
	if (sess->peer_proto >= 4)
		krdma_host_env_to_wire(&sess->env, &res);
	if (krdma_ctrl_send(sess, KRDMA_MSG_TEST_RESULT, pt->test_id, 0,
			    pt->errors ? -EBADMSG : 0, &res,
			    sess->peer_proto >= 4 ? sizeof(res) :
			    KRDMA_RESULT_V3_LEN))
		krdma_session_close(sess, "cannot send TEST_RESULT");
	krdma_peer_detach(sess);
}

/* Every invalidation of @pt has completed: TEST_RESULT can go. */
static void krdma_peer_invalidated(struct krdma_peer_test *pt)
{
	if (krdma_peer_move(pt, KRDMA_PP_CLOSED))
		krdma_peer_send_result(pt->sess, pt);
}

/* Found from its own cqe, as the driver's are (krdma_test_inv_done()). */
static void krdma_peer_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_peer_test *pt = container_of(wc->wr_cqe,
						  struct krdma_peer_test,
						  inv_cqe);

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		krdma_wc_error(pt->sess, wc, "peer invalidation");
		return;
	}
	if (--pt->inv_pending)
		return;
	/* The session's reference goes with TEST_RESULT: this one is last. */
	kref_get(&pt->ref);
	krdma_peer_invalidated(pt);
	krdma_peer_put(pt);
}

/*
 * Our mirror of the peer's test is over (struct krdma_test's on_done):
 * its figures go into the peer's test, whose TEST_RESULT carries them.
 */
static void krdma_peer_mirror_done(struct krdma_session *sess, u32 test_id,
				   u64 iters, u64 bytes)
{
	struct krdma_peer_test *pt = krdma_peer_get_current(sess);

	if (pt && pt->mirror_id == test_id) {
		pt->mirror_iters = iters;
		pt->mirror_bytes = bytes;
		pt->mirror_id = 0;
		krdma_peer_send_result(sess, pt);
	}
	krdma_peer_put(pt);
}

/*
 * bidir: the same test (@p, as krdma_peer_check_req() made it, with the
 * spec's defaults), driven from our side, for as long as the peer's
 * runs. From the CQ context: cm_mutex is only tried (teardown holds it
 * while it drains this very CQ); if it is busy, the peer's test is
 * refused rather than run one way.
 */
static int krdma_peer_start_mirror(struct krdma_session *sess,
				   struct krdma_peer_test *pt,
				   const struct krdma_test_params *p)
{
	struct krdma_test_params mirror = *p;
	int ret;

	/* One way: the peer's test is the other. */
	mirror.bidir = false;
	if (!mutex_trylock(&sess->cm_mutex))
		return -EBUSY;
	ret = krdma_test_start_locked(sess, &mirror, krdma_peer_mirror_done,
				      &pt->mirror_id, NULL);
	mutex_unlock(&sess->cm_mutex);
	return ret;
}

/* The peer's test ended: a mirror still running ends with it. */
static void krdma_peer_end_mirror(struct krdma_session *sess,
				  struct krdma_peer_test *pt)
{
	struct krdma_test *mirror;

	if (!pt->mirror_id)
		return;
	/* Not over: it is still running, so it is still sess->test. */
	mirror = krdma_test_get_current(sess);
	/* A count: it ends by itself, unless the peer's was cut short. */
	if (mirror && mirror->id == pt->mirror_id &&
	    !(mirror->p.count && pt->end_iters == mirror->p.count)) {
		mirror->stop_quiet = true;
		WRITE_ONCE(mirror->stop, true);
	}
	krdma_test_put(mirror);
}

/**
 * krdma_peer_on_req() - the peer's TEST_REQ
 * @sess: the session
 * @hdr: the message's header
 * @req: its body
 * @body_len: its length, not yet checked
 *
 * TEST_REQ: set the peer's test up, or refuse it, and answer TEST_ACK.
 * A bidir test's mirror, ours, starts first.
 *
 * Context: the session's CQ context.
 */
void krdma_peer_on_req(struct krdma_session *sess,
		       const struct krdma_msg_hdr *hdr,
		       const struct krdma_msg_test *req, u32 body_len)
{
	u32 test_id = be32_to_cpu(hdr->test_id);
	struct krdma_test_params p;
	struct krdma_msg_test *ack;
	struct krdma_peer_test *pt;
	u32 nregions = 0;
	int ret;

	krdma_delay_test_req(sess);
	ack = krdma_failable(kzalloc(KRDMA_CTRL_BODY_MAX, GFP_KERNEL));
	pt = krdma_failable(kzalloc(sizeof(*pt), GFP_KERNEL));
	if (!ack || !pt) {
		kfree(ack);
		kfree(pt);
		krdma_session_close(sess, "out of memory for a test request");
		return;
	}
	kref_init(&pt->ref);	/* the session's, once it is accepted */
	pt->sess = sess;
	pt->test_id = test_id;
	INIT_DELAYED_WORK(&pt->stall_work, krdma_peer_stall_work);
	krdma_host_cpu_sample(&pt->host_start);
	pt->reg_cqe.done = krdma_peer_reg_done;

	/*
	 * One peer's test at a time: a driver sends its next TEST_REQ only
	 * after the TEST_RESULT that frees this one.
	 */
	if (sess->peer_test) {
		kfree(ack);
		krdma_peer_put(pt);
		krdma_count(sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
		krdma_session_close(sess, "protocol error: TEST_REQ %u during test %u",
				    test_id, sess->peer_test->test_id);
		return;
	}
	if (body_len < sizeof(*req))
		ret = -EPROTO;
	else
		ret = krdma_peer_check_req(pt, req, &p);
	/* As krdma_test_check_params() refuses them on the driver's side. */
	if (!ret)
		ret = krdma_op_supported(sess->kdev, pt->op, NULL);
	/* Before any of it is allocated: charged, or refused. */
	if (!ret)
		ret = krdma_peer_charge(sess, pt);
	/* The mirror first: if it cannot run, nothing of ours is posted yet. */
	if (!ret && pt->bidir)
		ret = krdma_peer_start_mirror(sess, pt, &p);
	if (!ret)
		ret = pt->engine->peer_setup(sess, pt, req, body_len, ack,
					     &nregions);

	if (ret && pt->mirror_id) {
		pt->end_iters = 0;
		krdma_peer_end_mirror(sess, pt);
	}
	if (ret && pt->posted) {
		/* Registrations in flight: only teardown, after a drain, frees them. */
		pt->phase = KRDMA_PP_BROKEN;
		sess->peer_test = pt;
		krdma_session_close(sess, "cannot register test memory: %pe",
				    ERR_PTR(ret));
		kfree(ack);
		return;
	}
	if (ret) {
		krdma_peer_put(pt);
		nregions = 0;
	} else {
		sess->peer_test = pt;
		krdma_peer_watch(pt);
		/* Before the TEST_ACK, which lets the driver's SENDs go. */
		if (pt->rnr_hold)
			krdma_conn_rnr_hold(krdma_ctrl_conn(sess));
	}
	ack->nregions = cpu_to_be32(nregions);
	if (krdma_ctrl_send(sess, KRDMA_MSG_TEST_ACK, test_id, 0, ret, ack,
			    sizeof(*ack) + nregions * sizeof(ack->regions[0])))
		krdma_session_close(sess, "cannot answer TEST_REQ");
	kfree(ack);
}

/* Closing: the engine checks the data, our regions are invalidated. */
static void krdma_peer_invalidate(struct krdma_session *sess,
				  struct krdma_peer_test *pt)
{
	u32 s;

	if (pt->engine->peer_end)
		pt->engine->peer_end(pt);

	pt->inv_cqe.done = krdma_peer_inv_done;
	pt->inv_pending = 1;	/* held until every invalidation is posted */
	for (s = 0; pt->slots && s < pt->depth; s++) {
		struct krdma_region *reg = pt->slots[s].reg;

		if (!reg || !reg->registered)
			continue;
		if (krdma_region_post_inv(sess, reg, &pt->inv_cqe)) {
			krdma_session_close(sess, "cannot invalidate");
			return;
		}
		krdma_count(sess, KRDMA_CNT_INV_WRS, reg->nmrs);
		pt->inv_pending++;
	}
	if (--pt->inv_pending == 0)
		krdma_peer_invalidated(pt);
}

/**
 * krdma_peer_on_end() - the peer's test is over: invalidate, answer
 * @sess: the session
 * @pt: its peer's test, ending
 *
 * TEST_END has come and no work of ours is in flight: invalidate, answer.
 * TEST_RESULT goes once the invalidations complete (and, with bidir, our
 * mirror is over); it may go before this returns, and free @pt then, but
 * for a reference the caller holds.
 *
 * Context: the session's CQ context.
 */
void krdma_peer_on_end(struct krdma_session *sess, struct krdma_peer_test *pt)
{
	if (!krdma_peer_move(pt, KRDMA_PP_CLOSING))
		return;
	kref_get(&pt->ref);
	krdma_peer_invalidate(sess, pt);
	krdma_peer_put(pt);
}

static void krdma_peer_handle_msg(struct krdma_session *sess,
				  struct krdma_peer_test *pt,
				  struct krdma_recv *rx, struct ib_wc *wc,
				  const struct krdma_msg_hdr *hdr)
{
	u16 type = hdr ? be16_to_cpu(hdr->type) : KRDMA_MSG_DATA;

	/* TEST_END and the data come while it is active, and only then. */
	if (!pt || !krdma_peer_in(pt, KRDMA_PP_ACTIVE) ||
	    (hdr && be32_to_cpu(hdr->test_id) != pt->test_id) ||
	    ((wc->wc_flags & IB_WC_WITH_INVALIDATE) && !pt->send_inv))
		goto proto;
	krdma_peer_progress(pt);
	if (type != KRDMA_MSG_TEST_END) {
		pt->engine->peer_on_msg(sess, pt, rx, wc, hdr);
		return;
	}
	/* No driver ends after more iterations than it asked for. */
	if ((pt->engine->peer_may_end && !pt->engine->peer_may_end(pt)) ||
	    (pt->count && be64_to_cpu(hdr->iter) > pt->count))
		goto proto;
	if (krdma_recv_repost(rx))
		krdma_session_close(sess, "cannot repost receive");
	krdma_peer_move(pt, KRDMA_PP_ENDING);
	pt->end_iters = be64_to_cpu(hdr->iter);
	if (pt->engine->peer_quiesce)
		pt->engine->peer_quiesce(pt);
	krdma_peer_end_mirror(sess, pt);
	/* The last of that work to complete ends it otherwise. */
	if (!pt->engine->peer_busy || !pt->engine->peer_busy(pt))
		krdma_peer_on_end(sess, pt);
	return;
proto:
	krdma_count(sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
	krdma_session_close(sess, "protocol error: unexpected message type %u",
			    type);
}

/**
 * krdma_peer_on_msg() - a message of the peer's test, on conn 0
 * @sess: the session
 * @rx: its receive, which the engine or TEST_END reposts
 * @wc: its completion
 * @hdr: its header, checked; NULL for a write_imm
 *
 * A message of the peer's test: TEST_END is the lifecycle's, the rest
 * the engine's. Nothing may follow TEST_END: the test's memory is going.
 *
 * Context: the session's CQ context.
 */
void krdma_peer_on_msg(struct krdma_session *sess, struct krdma_recv *rx,
		       struct ib_wc *wc, const struct krdma_msg_hdr *hdr)
{
	struct krdma_peer_test *pt = krdma_peer_get_current(sess);

	krdma_peer_handle_msg(sess, pt, rx, wc, hdr);
	krdma_peer_put(pt);
}

/**
 * krdma_peer_session_down() - teardown frees the peer's test
 * @sess: the session, its QPs drained
 *
 * Teardown, once the QP is drained: nothing of the peer's test is in flight.
 *
 * Context: teardown's work, @sess->cm_mutex held.
 */
void krdma_peer_session_down(struct krdma_session *sess)
{
	krdma_peer_detach(sess);
}
