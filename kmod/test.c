// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: our tests, the side that drives them - the registry netlink
 * reads, start and stop, the control messages that open and close a test
 * (TEST_ACK, TEST_RESULT), its events and its end. The data moves in the
 * engine of its mode (struct krdma_engine_ops); the peer's side is
 * peer.c's. Both run in the session's CQ context (IB_POLL_WORKQUEUE),
 * which serializes them per session, so the data path takes no lock; the
 * netlink side only starts, stops and reads a test. Protocol:
 * Documentation/protocol.rst.
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/genetlink.h>

#include "test.h"

/*
 * A test with no completed iteration for this long has a dead peer; the
 * responder's timer waits as long for the driver (limits.c).
 */
unsigned int krdma_stall_ms = 30000;
module_param_named(stall_ms, krdma_stall_ms, uint, 0644);
MODULE_PARM_DESC(stall_ms, "Close a session whose test makes no progress for this long (ms)");

static DEFINE_XARRAY_ALLOC1(krdma_tests);
static DEFINE_MUTEX(krdma_tests_lock);
static u32 krdma_test_next_id;

/* The engine of each mode, registered once at load (main.c). */
static const struct krdma_engine_ops *krdma_engines[KRDMA_MODE_MAX + 1];

/**
 * krdma_engine_register() - the engine that runs a test mode
 * @mode: the mode (enum krdma_test_mode)
 * @ops: its engine
 *
 * Once at load (main.c), before any session exists.
 */
void krdma_engine_register(u8 mode, const struct krdma_engine_ops *ops)
{
	krdma_engines[mode] = ops;
}

/**
 * krdma_engine() - the engine of a test mode
 * @mode: the mode, as asked (not yet checked)
 *
 * Return: the engine; NULL for a mode no engine runs: refused.
 */
const struct krdma_engine_ops *krdma_engine(u8 mode)
{
	return mode <= KRDMA_MODE_MAX ? krdma_engines[mode] : NULL;
}

/* ------------------------------------------------------------------ */
/* Generic helpers for slots and regions                               */

/**
 * krdma_slots_free() - frees a test's slots, their buffers and regions
 * @slots: the slots, or NULL
 * @n: how many (the test's depth)
 *
 * Their regions are invalidated, or their QP drained.
 *
 * Context: process; it may sleep.
 */
void krdma_slots_free(struct krdma_slot *slots, u32 n)
{
	u32 i;

	if (!slots)
		return;
	for (i = 0; i < n; i++) {
		krdma_region_destroy(slots[i].reg);
		krdma_region_destroy(slots[i].sink_reg);
		krdma_region_destroy(slots[i].scratch);
		krdma_buf_free(slots[i].buf);
		krdma_buf_free(slots[i].sink);
	}
	kfree(slots);
}

/**
 * krdma_check_wire_regions() - checks the regions a peer described
 * @r: the regions, slot by slot
 * @n: how many
 * @depth: the test's slots
 * @size: the bytes each slot's regions must add up to
 * @max_per: the most regions a slot may have
 * @per_slot: set to the regions a slot has, when they pass
 *
 * Checks the regions a peer described: @n regions, @per_slot for each of
 * @depth slots, at most @max_per a slot, each slot's regions adding up to
 * exactly @size bytes.
 *
 * Return: 0, or -EPROTO.
 */
int krdma_check_wire_regions(const struct krdma_wire_region *r, u32 n,
			     u32 depth, u32 size, u32 max_per, u32 *per_slot)
{
	u32 s, k, per;

	if (!depth || n % depth)
		return -EPROTO;
	per = n / depth;
	if (!per || per > max_per)
		return -EPROTO;
	for (s = 0; s < depth; s++) {
		u64 total = 0;

		for (k = 0; k < per; k++) {
			u32 len = be32_to_cpu(r[s * per + k].len);

			if (!len)
				return -EPROTO;
			total += len;
		}
		if (total != size)
			return -EPROTO;
	}
	*per_slot = per;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Driver side                                                         */

static void krdma_test_release(struct krdma_test *test)
{
	cancel_delayed_work_sync(&test->progress_work);
	if (test->engine->free)
		test->engine->free(test);
	krdma_slots_free(test->slots, test->p.depth);
	test->slots = NULL;
	kfree(test->remote);
	test->remote = NULL;
}

static void krdma_test_free(struct kref *ref)
{
	struct krdma_test *test = container_of(ref, struct krdma_test, ref);

	krdma_test_release(test);
	krdma_session_put(test->sess);
	/* krdma_test_get_current() may be looking at it, without a lock. */
	kfree_rcu(test, rcu);
}

/**
 * krdma_test_put() - drops a reference to our test
 * @test: the test, or NULL
 *
 * The last reference may be a CQ handler's: the session's own CQ, never a
 * softirq one, so freeing may sleep there.
 *
 * Context: process; it may sleep.
 */
void krdma_test_put(struct krdma_test *test)
{
	if (test)
		kref_put(&test->ref, krdma_test_free);
}

/**
 * krdma_test_get_current() - the session's test, referenced
 * @sess: the session
 *
 * The session's test, referenced: a new one may replace it meanwhile.
 * krdma_test_put() lets it go.
 *
 * Return: the test, or NULL.
 */
struct krdma_test *krdma_test_get_current(struct krdma_session *sess)
{
	struct krdma_test *test;

	rcu_read_lock();
	test = rcu_dereference(sess->test);
	/* Replaced and put meanwhile: its memory waits for our grace period. */
	if (test && !kref_get_unless_zero(&test->ref))
		test = NULL;
	rcu_read_unlock();
	return test;
}

static int krdma_test_fill(struct sk_buff *skb, struct krdma_test *test)
{
	enum krdma_test_state state;
	char reason[sizeof(test->reason)];
	bool figures_ok, finished;
	ktime_t end;
	int status;

	spin_lock_bh(&test->lock);
	finished = krdma_test_over(test->phase);
	state = finished ? KRDMA_TEST_DONE : test->state;
	figures_ok = test->phase != KRDMA_TP_FINISHED;
	status = test->status;
	end = finished ? test->end : ktime_get();
	strscpy(reason, test->reason, sizeof(reason));
	spin_unlock_bh(&test->lock);

	if (nla_put_u32(skb, KRDMA_A_TEST_ID, test->id) ||
	    nla_put_u32(skb, KRDMA_A_SESSION_ID, test->sess->id) ||
	    nla_put_u8(skb, KRDMA_A_TEST_OP, test->p.op) ||
	    nla_put_u8(skb, KRDMA_A_TEST_MODE, test->p.mode) ||
	    (test->p.bidir &&
	     (nla_put_u8(skb, KRDMA_A_TEST_BIDIR, 1) ||
	      nla_put_u64_64bit(skb, KRDMA_A_TEST_PEER_ITERS,
				READ_ONCE(test->peer_iters), KRDMA_A_PAD) ||
	      nla_put_u64_64bit(skb, KRDMA_A_TEST_PEER_BYTES,
				READ_ONCE(test->peer_bytes), KRDMA_A_PAD))) ||
	    nla_put_u32(skb, KRDMA_A_TEST_SIZE, test->p.size) ||
	    nla_put_u64_64bit(skb, KRDMA_A_TEST_COUNT, test->p.count, KRDMA_A_PAD) ||
	    nla_put_u32(skb, KRDMA_A_TEST_DEPTH, test->p.depth) ||
	    nla_put_u32(skb, KRDMA_A_TEST_INTERVAL_MS, test->p.interval_ms) ||
	    (test->p.duration_ms &&
	     nla_put_u32(skb, KRDMA_A_TEST_DURATION_MS, test->p.duration_ms)) ||
	    nla_put_u8(skb, KRDMA_A_TEST_STATE, state) ||
	    nla_put_s32(skb, KRDMA_A_TEST_STATUS, status) ||
	    nla_put_u64_64bit(skb, KRDMA_A_TEST_ITERS, READ_ONCE(test->completed),
			      KRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, KRDMA_A_TEST_BYTES, READ_ONCE(test->bytes),
			      KRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, KRDMA_A_TEST_ELAPSED_NS,
			      test->start ? ktime_to_ns(ktime_sub(end, test->start)) : 0,
			      KRDMA_A_PAD) ||
	    nla_put_u64_64bit(skb, KRDMA_A_TEST_VALIDATED,
			      READ_ONCE(test->validated), KRDMA_A_PAD))
		return -EMSGSIZE;
	if (reason[0] && nla_put_string(skb, KRDMA_A_REASON, reason))
		return -EMSGSIZE;
	if ((test->p.violate &&
	     nla_put_u8(skb, KRDMA_A_TEST_VIOLATE, test->p.violate)) ||
	    (test->p.atomic_variant &&
	     nla_put_u8(skb, KRDMA_A_TEST_ATOMIC_VARIANT, test->p.atomic_variant)) ||
	    (test->p.sges && nla_put_u32(skb, KRDMA_A_TEST_SGES, test->p.sges)) ||
	    (test->p.read_back && nla_put_u8(skb, KRDMA_A_TEST_READ_BACK, 1)) ||
	    (test->p.send_inv &&
	     nla_put_u8(skb, KRDMA_A_TEST_SEND_INVALIDATE, 1)) ||
	    (test->p.zero_length &&
	     nla_put_u8(skb, KRDMA_A_TEST_ZERO_LENGTH, 1)) ||
	    (test->p.rnr_hold && nla_put_u8(skb, KRDMA_A_TEST_RNR_HOLD, 1)) ||
	    (test->p.zero_behind &&
	     nla_put_u8(skb, KRDMA_A_TEST_ZERO_READ_BEHIND, 1)) ||
	    (test->p.reg_behind && nla_put_u8(skb, KRDMA_A_TEST_REG_BEHIND, 1)) ||
	    (READ_ONCE(test->wc_status) &&
	     nla_put_u32(skb, KRDMA_A_TEST_WC_STATUS, READ_ONCE(test->wc_status))))
		return -EMSGSIZE;
	if (state == KRDMA_TEST_DONE &&
	    (krdma_host_cpu_fill(skb, KRDMA_A_TEST_HOST_CPU, &test->host_use) ||
	     krdma_host_cpu_fill(skb, KRDMA_A_TEST_PEER_HOST_CPU,
				 &test->peer_host_use) ||
	     krdma_host_env_fill(skb, KRDMA_A_TEST_PEER_ENV, &test->peer_env)))
		return -EMSGSIZE;
	/* Not while krdma_test_finish() turns the figures into their final form. */
	return figures_ok && test->engine->fill ? test->engine->fill(skb, test) : 0;
}

/* The event @ev of @test, ready to send; NULL if it cannot be had. */
static struct sk_buff *krdma_test_event(struct krdma_test *test,
					enum krdma_event ev)
{
	struct sk_buff *msg;
	void *hdr;

	msg = krdma_event_new(ev, &hdr);
	if (!msg)
		return NULL;
	if (krdma_test_fill(msg, test)) {
		nlmsg_free(msg);
		return NULL;
	}
	genlmsg_end(msg, hdr);
	return msg;
}

static void krdma_test_notify(struct krdma_test *test, enum krdma_event ev)
{
	struct sk_buff *msg = krdma_test_event(test, ev);

	if (msg)
		krdma_event_send(test->sess->net, msg);
}

/**
 * krdma_test_fail() - records why a test failed
 * @test: our test
 * @status: a negative errno
 * @fmt: the reason, printf-style
 * @...: its arguments
 *
 * Records the first failure; the test ends once nothing is in flight.
 */
void krdma_test_fail(struct krdma_test *test, int status, const char *fmt, ...)
{
	va_list args;

	spin_lock_bh(&test->lock);
	if (!test->status) {
		test->status = status;
		va_start(args, fmt);
		vsnprintf(test->reason, sizeof(test->reason), fmt, args);
		va_end(args);
	}
	spin_unlock_bh(&test->lock);
}

/**
 * krdma_test_post_failed() - a post of a test's failed: its session ends
 * @sess: the session
 * @test: our test, or NULL for the peer's
 * @test_id: the test's id, ours or the peer's
 * @ret: the post's error
 *
 * A post for @test, or for the peer's test @test_id when @test is NULL,
 * failed with @ret. Once teardown has begun (the QPs marked dead, which
 * refuses posts with -ENOTCONN) it is teardown that ends the test, with
 * the session's reason (krdma_test_session_down()): that says more than
 * the refused post. Before, the failure is the test's, and ends the
 * session.
 */
void krdma_test_post_failed(struct krdma_session *sess, struct krdma_test *test,
			    u32 test_id, int ret)
{
	/*
	 * A channel's post refused by its closed gate sees the session's
	 * closed too: teardown closes that one first.
	 */
	if (krdma_session_gate_closed(sess))
		return;
	if (test)
		krdma_test_fail(test, ret, "cannot post: %pe", ERR_PTR(ret));
	krdma_session_close(sess, "test %u: cannot post: %pe", test_id,
			    ERR_PTR(ret));
}

/*
 * The moves of Documentation/design.rst, "A test's phases". A refused
 * test closes from REQ_SENT; one accepted that cannot start sends its
 * TEST_END from there; teardown finishes a test from any phase.
 */
static const u8 krdma_test_moves[] = {
	[KRDMA_TP_REQ_SENT]	= BIT(KRDMA_TP_RUNNING) | BIT(KRDMA_TP_END_SENT) |
				  BIT(KRDMA_TP_CLOSING) | BIT(KRDMA_TP_FINISHED),
	[KRDMA_TP_RUNNING]	= BIT(KRDMA_TP_END_SENT) | BIT(KRDMA_TP_FINISHED),
	[KRDMA_TP_END_SENT]	= BIT(KRDMA_TP_CLOSING) | BIT(KRDMA_TP_FINISHED),
	[KRDMA_TP_CLOSING]	= BIT(KRDMA_TP_FINISHED),
	[KRDMA_TP_FINISHED]	= BIT(KRDMA_TP_DONE),
	[KRDMA_TP_DONE]		= 0,
};

/**
 * krdma_test_move() - move @test to phase @to
 * @test: our test
 * @to: the phase it moves to
 *
 * What a peer sends is checked against the phase before it moves a test
 * (a protocol error otherwise): a move refused here is krdma's own bug,
 * and WARNs - but for a test that teardown has finished meanwhile, which
 * takes no move any more but the finish's own to DONE. The lock orders
 * the CQ context's moves against the lat poller's (TEST_END) and
 * netlink's readers.
 *
 * Return: whether the test moved.
 */
bool krdma_test_move(struct krdma_test *test, enum krdma_test_phase to)
{
	enum krdma_test_phase from;
	bool ok;

	spin_lock_bh(&test->lock);
	from = test->phase;
	ok = krdma_test_moves[from] & BIT(to);
	if (ok)
		WRITE_ONCE(test->phase, to);
	spin_unlock_bh(&test->lock);
	/* Teardown may finish a test under the lat poller's feet. */
	WARN_ONCE(!ok && !krdma_test_over(from),
		  "krdma: test %u: no move from phase %u to %u\n", test->id,
		  from, to);
	return ok;
}

/*
 * Ends a test whose work has all completed. The state turns DONE last, so
 * that a new test may replace this one only once we no longer touch it.
 */
static void krdma_test_finish(struct krdma_test *test)
{
	struct krdma_session *sess = test->sess;
	void (*on_done)(struct krdma_session *sess, u32 test_id, u64 iters,
			u64 bytes) = test->on_done;
	u64 iters, bytes;
	u32 id = test->id;
	struct sk_buff *msg;
	struct krdma_host_cpu host_use;

	/* Outside the lock: a pass over every CPU's counters. */
	krdma_host_cpu_since(&test->host_start, &host_use);
	spin_lock_bh(&test->lock);
	/* Teardown after a failed TEST_END: finished already. */
	if (krdma_test_over(test->phase)) {
		spin_unlock_bh(&test->lock);
		return;
	}
	WRITE_ONCE(test->phase, KRDMA_TP_FINISHED);
	test->end = ktime_get();
	if (test->p.rnr_hold)
		WRITE_ONCE(sess->rnr_test, false);
	test->host_use = host_use;
	if (!test->status && test->stop && test->stop_quiet) {
		snprintf(test->reason, sizeof(test->reason),
			 "ended with the peer's test %u", test->p.mirror_of);
	} else if (!test->status && test->stop) {
		test->status = -ECANCELED;
		strscpy(test->reason, "stopped", sizeof(test->reason));
	}
	spin_unlock_bh(&test->lock);

	if (test->status && test->status != -ECANCELED)
		krdma_count(sess, KRDMA_CNT_TESTS_FAILED, 1);
	cancel_delayed_work(&test->progress_work);
	/* Buffers go now; the record stays for "test show". */
	if (test->engine->finish)
		test->engine->finish(test);
	krdma_test_move(test, KRDMA_TP_DONE);
	krdma_slots_free(test->slots, test->p.depth);
	test->slots = NULL;
	iters = test->completed;
	bytes = test->bytes;

	/*
	 * The event goes out once the state is DONE, so that whoever reacts
	 * to it can start the next test on the session at once.
	 */
	msg = krdma_test_event(test, KRDMA_EVENT_TEST_DONE);
	spin_lock_bh(&test->lock);
	test->state = KRDMA_TEST_DONE;
	spin_unlock_bh(&test->lock);
	/* From here a new test may replace and free this one. */
	if (msg)
		krdma_event_send(sess->net, msg);
	if (on_done)
		on_done(sess, id, iters, bytes);
}

/**
 * krdma_test_send_end() - our test's data is done: TEST_END goes
 * @test: our test, running, or accepted but unable to start
 *
 * The peer's TEST_RESULT ends it then. If TEST_END cannot be sent before
 * teardown has begun, the test fails and ends here.
 *
 * Context: the session's CQ context.
 */
void krdma_test_send_end(struct krdma_test *test)
{
	int ret;

	if (!krdma_test_move(test, KRDMA_TP_END_SENT))
		return;
	ret = krdma_ctrl_send(test->sess, KRDMA_MSG_TEST_END, test->id,
			      test->completed, 0, NULL, 0);
	/* Once teardown has begun, it ends the test (krdma_test_post_failed()). */
	if (ret && !krdma_session_gate_closed(test->sess)) {
		krdma_test_fail(test, ret, "cannot send TEST_END: %pe",
				ERR_PTR(ret));
		krdma_test_finish(test);
	}
}

static void krdma_test_ctl_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_session *sess = cq->cq_context;

	if (unlikely(wc->status != IB_WC_SUCCESS))
		krdma_wc_error(sess, wc, "memory registration");
}

/*
 * The test is found from its own cqe: not sess->test, which a late
 * completion would find replaced by the next test.
 */
static void krdma_test_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_test *test = container_of(wc->wr_cqe, struct krdma_test,
					       inv_cqe);
	struct krdma_session *sess = cq->cq_context;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		krdma_wc_error(sess, wc, "invalidation");
		return;
	}
	if (--test->inv_pending == 0)
		krdma_test_finish(test);
}

/* Ping exposes our slots; they are invalidated before the test ends. */
static void krdma_test_invalidate_and_finish(struct krdma_test *test)
{
	struct krdma_session *sess = test->sess;
	u32 s;

	if (!krdma_test_move(test, KRDMA_TP_CLOSING))
		return;
	test->inv_cqe.done = krdma_test_inv_done;
	test->inv_pending = 0;
	for (s = 0; test->slots && s < test->p.depth; s++) {
		struct krdma_slot *slot = &test->slots[s];
		struct krdma_region *regs[] = { slot->reg, slot->sink_reg };
		int i;

		for (i = 0; i < ARRAY_SIZE(regs); i++) {
			if (!regs[i] || !regs[i]->registered)
				continue;
			if (krdma_region_post_inv(sess, regs[i], &test->inv_cqe)) {
				krdma_session_close(sess, "cannot invalidate");
				return;
			}
			krdma_count(sess, KRDMA_CNT_INV_WRS, regs[i]->nmrs);
			test->inv_pending++;
		}
	}
	if (!test->inv_pending)
		krdma_test_finish(test);
}

/**
 * krdma_test_on_ack() - the peer's TEST_ACK to our TEST_REQ
 * @test: our test
 * @hdr: the message's header
 * @body: its body, the regions the peer exposes
 * @body_len: its length, not yet checked
 *
 * The peer accepted or refused our TEST_REQ; accepted, the test starts.
 * A malformed or unexpected one ends the session.
 *
 * Context: the session's CQ context.
 */
void krdma_test_on_ack(struct krdma_test *test, const struct krdma_msg_hdr *hdr,
		       const struct krdma_msg_test *body, u32 body_len)
{
	u32 nregions, per = 0, i;
	int status = -(int)be32_to_cpu(hdr->status);

	/* One answer to one TEST_REQ: a second would start a closing test. */
	if (!krdma_test_in(test, KRDMA_TP_REQ_SENT)) {
		krdma_count(test->sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
		krdma_session_close(test->sess, "protocol error: unexpected TEST_ACK");
		return;
	}
	/* Over its caps on what a peer may make it pin (limits.c). */
	if (status == -EDQUOT || status == -ENOBUFS)
		krdma_test_fail(test, status,
				"peer refused the test: more memory than it allows %s",
				status == -EDQUOT ? "a session (max_session_mem_mb)" :
				"all sessions (max_mem_mb)");
	/* A lat write over its cap on the threads that poll for them. */
	else if (status == -EUSERS)
		krdma_test_fail(test, status,
				"peer refused the test: as many lat write tests as it allows (max_responder_pollers)");
	/* Its device refused a REG_MR granting remote atomic access (mem.c). */
	else if (status == -EACCES && krdma_op_is_atomic(test->p.op))
		krdma_test_fail(test, status,
				"peer refused the test: its device cannot register memory for remote atomics");
	else if (status)
		krdma_test_fail(test, status, "peer refused the test: %pe",
				ERR_PTR(status));
	if (status) {
		krdma_test_invalidate_and_finish(test);
		return;
	}
	if (body_len < sizeof(*body))
		goto proto;
	nregions = be32_to_cpu(body->nregions);
	if (nregions > (body_len - sizeof(*body)) / sizeof(body->regions[0]))
		goto proto;

	if (krdma_op(test->p.op)->peer_access || test->p.send_inv) {
		/*
		 * The atomics' too: 8 bytes, or a check test's words; a
		 * send-invalidate target is one key's (proto.h).
		 */
		u32 need = test->p.send_inv ? KRDMA_SEND_INV_TARGET : test->p.size;
		/* A target per slot, or one for all messages. */
		u32 slots = test->engine->remote_per_slot ? test->p.depth : 1;

		/*
		 * A slot's regions fill a slot's WRs; one target for every
		 * message is split over as many WRs as it takes (perf-wr.c),
		 * as many regions as the responder's TEST_ACK holds: an 8 MiB
		 * target over cxgb4's 508 KiB registrations is 17.
		 */
		u32 max_per = test->p.send_inv ? 1 :
			      test->engine->remote_per_slot ?
			      KRDMA_MAX_SLOT_REGIONS : KRDMA_MAX_WIRE_REGIONS;

		if (krdma_check_wire_regions(body->regions, nregions, slots,
					     need, max_per, &per))
			goto proto;
		/* An atomic's word never straddles two of the peer's regions. */
		for (i = 0; krdma_op_is_atomic(test->p.op) && i < nregions; i++)
			if (be32_to_cpu(body->regions[i].len) % sizeof(u64))
				goto proto;
		test->remote = kmemdup(body->regions,
				       nregions * sizeof(body->regions[0]),
				       GFP_KERNEL);
		if (!test->remote) {
			krdma_test_fail(test, -ENOMEM, "out of memory");
			krdma_test_send_end(test);
			return;
		}
		test->remote_per_slot = per;
	} else if (nregions) {
		goto proto;
	}

	if (!krdma_test_move(test, KRDMA_TP_RUNNING))
		return;
	krdma_host_cpu_sample(&test->host_start);
	test->start = ktime_get();
	test->deadline = ktime_add_ms(test->start, test->p.duration_ms);
	test->engine->start(test);
	return;
proto:
	krdma_count(test->sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
	krdma_test_fail(test, -EPROTO, "malformed TEST_ACK from peer");
	krdma_session_close(test->sess, "protocol error: malformed TEST_ACK");
}

/**
 * krdma_test_on_result() - the peer's TEST_RESULT to our TEST_END
 * @test: our test
 * @hdr: the message's header
 * @body: its body, the peer's figures
 * @len: its length, not yet checked
 *
 * The peer's last word on our test: its figures, then the end.
 *
 * Context: the session's CQ context.
 */
void krdma_test_on_result(struct krdma_test *test,
			  const struct krdma_msg_hdr *hdr,
			  const struct krdma_msg_result *body, u32 len)
{
	int status = -(int)be32_to_cpu(hdr->status);
	struct krdma_msg_result r = {}, *res = &r;

	/* The figures after the first three came later: absent means 0. */
	if (!krdma_test_in(test, KRDMA_TP_END_SENT) ||
	    len < offsetof(struct krdma_msg_result, cpu_ns)) {
		krdma_count(test->sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
		krdma_session_close(test->sess, "protocol error: unexpected TEST_RESULT");
		return;
	}
	memcpy(&r, body, min_t(u32, len, sizeof(r)));
	/*
	 * Version 4's env: from a peer that announced it, checked (what no
	 * krdma sends is a forged result); an older peer's bytes past
	 * version 3's figures, if any, are not read: its env is absent.
	 */
	if (test->sess->peer_proto >= 4 && len >= sizeof(r) &&
	    krdma_host_env_from_wire(res, &test->peer_env)) {
		krdma_count(test->sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
		krdma_session_close(test->sess, "protocol error: malformed TEST_RESULT");
		return;
	}
	if (test->engine->on_result)
		test->engine->on_result(test);
	test->peer_validated = be64_to_cpu(res->validated);
	test->peer_cpu_ns = be64_to_cpu(res->cpu_ns);
	WRITE_ONCE(test->peer_iters, be64_to_cpu(res->mirror_iters));
	WRITE_ONCE(test->peer_bytes, be64_to_cpu(res->mirror_bytes));
	krdma_host_cpu_from_wire(res, &test->peer_host_use);
	if (test->p.bidir && !test->status && !test->peer_iters)
		krdma_test_fail(test, -EPROTO, "the peer ran no reverse stream");
	if (test->engine->peer_validates)
		WRITE_ONCE(test->validated, test->validated + test->peer_validated);
	if (status)
		krdma_test_fail(test, status, "peer: %llu of %llu iterations wrong",
				be64_to_cpu(res->errors), be64_to_cpu(res->iters));
	else if (be64_to_cpu(res->iters) != test->completed &&
		 krdma_op_uses_recv(test->p.op))
		krdma_test_fail(test, -EPROTO, "peer saw %llu iterations, we did %llu",
				be64_to_cpu(res->iters), test->completed);
	krdma_test_invalidate_and_finish(test);
}

/* ------------------------------------------------------------------ */
/* Start, stop, progress, teardown                                     */

static void krdma_test_progress(struct work_struct *work)
{
	struct krdma_test *test = container_of(to_delayed_work(work),
					       struct krdma_test, progress_work);
	u64 done = READ_ONCE(test->completed);

	if (READ_ONCE(test->state) != KRDMA_TEST_RUNNING)
		return;
	if (done != test->progress_completed) {
		test->progress_completed = done;
		test->progress_jiffies = jiffies;
	} else if (time_after(jiffies, test->progress_jiffies +
			      msecs_to_jiffies(krdma_stall_ms))) {
		krdma_test_fail(test, -ETIMEDOUT, "no progress for %u ms: peer dead?",
				krdma_stall_ms);
		krdma_session_close(test->sess, "test %u stalled for %u ms",
				    test->id, krdma_stall_ms);
		return;
	}
	krdma_test_notify(test, KRDMA_EVENT_TEST_PROGRESS);
	queue_delayed_work(krdma_timer_wq, &test->progress_work,
			   msecs_to_jiffies(test->p.interval_ms));
}

/*
 * The spec's bounds (the responder asks the same); what the session and
 * its device allow, whatever the mode; then the engine.
 */
static int krdma_test_check_params(struct krdma_session *sess,
				   const struct krdma_engine_ops *engine,
				   struct krdma_test_params *p,
				   struct netlink_ext_ack *extack)
{
	int ret;

	ret = krdma_test_params_check(p, extack);
	if (ret)
		return ret;
	if (krdma_op_is_send(p->op) && p->size > sess->max_msg_size) {
		NL_SET_ERR_MSG(extack,
			       "size exceeds the session's max_msg (set at connect)");
		return -EMSGSIZE;
	}
	if (krdma_op(p->op)->rd_credits && !sess->initiator_depth) {
		NL_SET_ERR_MSG(extack, "the session negotiated no RDMA READ/atomic credits");
		return -EOPNOTSUPP;
	}
	/* The responder refuses the same (krdma_peer_on_req()). */
	ret = krdma_op_supported(sess->kdev, p->op, extack);
	if (ret)
		return ret;
	return engine->check_params(sess, p, extack);
}

/**
 * krdma_test_start_locked() - starts a test of ours: TEST_REQ goes
 * @sess: the session, up
 * @p: the test's parameters, their defaults applied
 * @on_done: told of its end (see struct krdma_test); NULL for
 *	userspace's tests
 * @test_id: set to the new test's id
 * @extack: why not
 *
 * Called with cm_mutex held: it keeps the queues from being torn down.
 * The session's previous test, finished, is replaced. A TEST_REQ that
 * cannot be sent ends the session.
 *
 * Context: process, @sess->cm_mutex held; it may sleep.
 * Return: 0; -EOPNOTSUPP, -ENOTCONN, -EBUSY with a test running, or the
 * error of the parameters' check, of the setup or of the TEST_REQ's send.
 */
int krdma_test_start_locked(struct krdma_session *sess,
			    struct krdma_test_params *p,
			    void (*on_done)(struct krdma_session *sess,
					    u32 test_id, u64 iters, u64 bytes),
			    u32 *test_id, struct netlink_ext_ack *extack)
{
	const struct krdma_engine_ops *engine = krdma_engine(p->mode);
	struct krdma_msg_test *req;
	struct krdma_test *test, *old = NULL;
	u32 nregions = 0;
	int ret;

	if (!engine) {
		NL_SET_ERR_MSG(extack, "no engine runs this mode");
		return -EOPNOTSUPP;
	}
	test = krdma_failable(kzalloc(sizeof(*test), GFP_KERNEL));
	req = krdma_failable(kzalloc(KRDMA_CTRL_BODY_MAX, GFP_KERNEL));
	if (!test || !req) {
		ret = -ENOMEM;
		goto err_free;
	}
	kref_init(&test->ref);
	spin_lock_init(&test->lock);
	INIT_DELAYED_WORK(&test->progress_work, krdma_test_progress);
	test->p = *p;
	test->engine = engine;
	test->on_done = on_done;
	test->state = KRDMA_TEST_RUNNING;
	test->phase = KRDMA_TP_REQ_SENT;

	lockdep_assert_held(&sess->cm_mutex);
	if (READ_ONCE(sess->state) != KRDMA_SESSION_UP) {
		NL_SET_ERR_MSG(extack, "session is not up");
		ret = -ENOTCONN;
		goto err_free;
	}
	old = rcu_dereference_protected(sess->test,
					lockdep_is_held(&sess->cm_mutex));
	if (old && READ_ONCE(old->state) == KRDMA_TEST_RUNNING) {
		NL_SET_ERR_MSG(extack, "a test is already running on this session");
		ret = -EBUSY;
		goto err_free;
	}
	ret = krdma_test_check_params(sess, engine, p, extack);
	if (ret)
		goto err_free;

	/* Lookups read test->sess as soon as the test is in the table. */
	kref_get(&sess->ref);
	test->sess = sess;
	mutex_lock(&krdma_tests_lock);
	ret = krdma_failable_int(xa_alloc_cyclic(&krdma_tests, &test->id, test,
						 xa_limit_31b,	/* KRDMA_IMM_ANSWER */
						 &krdma_test_next_id,
						 GFP_KERNEL));
	mutex_unlock(&krdma_tests_lock);
	if (ret < 0) {
		test->sess = NULL;
		krdma_session_put(sess);	/* the caller holds another */
		goto err_free;
	}

	ret = engine->setup(test);
	if (ret) {
		NL_SET_ERR_MSG(extack, "cannot allocate the test buffers");
		goto err_test;
	}

	/*
	 * The previous, finished test of this session is replaced; a CQ
	 * handler may still hold it (krdma_dispatch_recv()).
	 */
	old = rcu_replace_pointer(sess->test, test,
				  lockdep_is_held(&sess->cm_mutex));
	test->progress_jiffies = jiffies;
	test->ctl_cqe.done = krdma_test_ctl_done;
	if (engine->post_regs)
		ret = engine->post_regs(test, req, &nregions);
	if (!ret) {
		req->op = p->op;
		req->mode = p->mode;
		req->flags = (p->bidir ? KRDMA_TEST_F_BIDIR : 0) |
			     (p->read_back ? KRDMA_TEST_F_READ_BACK : 0) |
			     (p->send_inv ? KRDMA_TEST_F_SEND_INV : 0) |
			     (p->zero_length ? KRDMA_TEST_F_ZERO_LENGTH : 0) |
			     (p->rnr_hold ? KRDMA_TEST_F_RNR_HOLD : 0) |
			     (p->violate == KRDMA_VIOLATE_INVALIDATED_RKEY ?
			      KRDMA_TEST_F_INVALIDATED : 0);
		/* Zero for one, as a peer from before several QPs expects. */
		req->qps = p->qps > 1 ? p->qps : 0;
		req->size = cpu_to_be32(p->size);
		req->depth = cpu_to_be32(p->depth);
		req->nregions = cpu_to_be32(nregions);
		req->count = cpu_to_be64(p->count);
		/* Its end lets the keepalive probe again (krdma_test_finish()). */
		if (p->rnr_hold)
			WRITE_ONCE(sess->rnr_test, true);
		ret = krdma_ctrl_send(sess, KRDMA_MSG_TEST_REQ, test->id, 0, 0, req,
				      sizeof(*req) +
				      nregions * sizeof(req->regions[0]));
	}
	kfree(req);
	if (old) {
		mutex_lock(&krdma_tests_lock);
		xa_erase(&krdma_tests, old->id);
		mutex_unlock(&krdma_tests_lock);
		krdma_test_put(old);
	}
	if (ret) {
		/* Registrations may be in flight: teardown frees the test. */
		krdma_test_fail(test, ret, "cannot start: %pe", ERR_PTR(ret));
		krdma_session_close(sess, "cannot start test %u: %pe", test->id,
				    ERR_PTR(ret));
		NL_SET_ERR_MSG(extack, "cannot send the test request: session closed");
		return ret;
	}

	krdma_count(sess, KRDMA_CNT_TESTS_STARTED, 1);
	queue_delayed_work(krdma_timer_wq, &test->progress_work,
			   msecs_to_jiffies(p->interval_ms));
	*test_id = test->id;
	return 0;

err_test:
	mutex_lock(&krdma_tests_lock);
	xa_erase(&krdma_tests, test->id);
	mutex_unlock(&krdma_tests_lock);
	krdma_test_put(test);
	kfree(req);
	return ret;
err_free:
	kfree(test);
	kfree(req);
	return ret;
}

/**
 * krdma_test_start() - krdma_test_start_locked(), for userspace
 * @sess: the session
 * @p: the test's parameters, their defaults applied
 * @test_id: set to the new test's id
 * @extack: why not
 *
 * Context: process; takes @sess->cm_mutex.
 * Return: as krdma_test_start_locked().
 */
int krdma_test_start(struct krdma_session *sess, struct krdma_test_params *p,
		     u32 *test_id, struct netlink_ext_ack *extack)
{
	int ret;

	mutex_lock(&sess->cm_mutex);
	ret = krdma_test_start_locked(sess, p, NULL, test_id, extack);
	mutex_unlock(&sess->cm_mutex);
	return ret;
}

/**
 * krdma_test_stop() - asks a running test of ours to stop
 * @net: the namespace asking
 * @test_id: the test
 * @extack: why not
 *
 * The data path sees it at its next completion; the test ends as it
 * would at its count.
 *
 * Context: process; takes krdma_tests_lock.
 * Return: 0, -ENOENT, or -EALREADY for a test that has ended.
 */
int krdma_test_stop(struct net *net, u32 test_id,
		    struct netlink_ext_ack *extack)
{
	struct krdma_test *test;
	int ret = 0;

	mutex_lock(&krdma_tests_lock);
	test = xa_load(&krdma_tests, test_id);
	if (!test || !net_eq(test->sess->net, net)) {
		NL_SET_ERR_MSG(extack, "no such test");
		ret = -ENOENT;
	} else if (READ_ONCE(test->state) != KRDMA_TEST_RUNNING) {
		NL_SET_ERR_MSG(extack, "test has already ended");
		ret = -EALREADY;
	} else {
		/* Seen by the data path at the next completion. */
		WRITE_ONCE(test->stop, true);
	}
	mutex_unlock(&krdma_tests_lock);
	return ret;
}

/**
 * krdma_test_session_down() - teardown ends the session's test of ours
 * @sess: the session, its QPs drained
 *
 * Session teardown, once the QP is drained (after peer.c's half): a test
 * still running ends with the session's reason.
 *
 * Context: teardown's work, @sess->cm_mutex held.
 */
void krdma_test_session_down(struct krdma_session *sess)
{
	struct krdma_test *test;

	test = rcu_replace_pointer(sess->test, NULL,
				   lockdep_is_held(&sess->cm_mutex));
	if (!test)
		return;
	if (test->state == KRDMA_TEST_RUNNING) {
		krdma_test_fail(test, -ECONNRESET, "session closed: %s",
				sess->reason);
		krdma_test_finish(test);
	}
	mutex_lock(&krdma_tests_lock);
	xa_erase(&krdma_tests, test->id);
	mutex_unlock(&krdma_tests_lock);
	krdma_test_put(test);
}

static bool krdma_test_visible(void *obj, struct net *net)
{
	struct krdma_test *test = obj;

	return net_eq(test->sess->net, net);
}

static int krdma_test_table_fill(struct sk_buff *skb, void *obj)
{
	return krdma_test_fill(skb, obj);
}

const struct krdma_nl_table krdma_test_table = {
	.xa		= &krdma_tests,
	.lock		= &krdma_tests_lock,
	.visible	= krdma_test_visible,
	.fill		= krdma_test_table_fill,
};
