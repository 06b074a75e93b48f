// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: the test engine. The side that starts a test drives it; the peer
 * responds. Both halves run in the session's CQ context (IB_POLL_WORKQUEUE),
 * which serializes them per session, so the data path takes no lock; the
 * netlink side only starts, stops and reads a test.
 *
 * Iteration i uses slot i % depth and carries the pattern seeded by
 * (test id, i); whoever receives the data checks it. Protocol:
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

/* Every op but the atomics consumes one peer receive per iteration. */
static bool krdma_op_uses_recv(u8 op)
{
	return !krdma_op_is_atomic(op);
}

/* Does the responder expose a region per slot for this op? */
int krdma_peer_access(u8 op)
{
	switch (op) {
	case KRDMA_OP_WRITE:
	case KRDMA_OP_WRITE_IMM:
		return IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	case KRDMA_OP_READ:
		return IB_ACCESS_REMOTE_READ;
	case KRDMA_OP_ATOMIC_FADD:
	case KRDMA_OP_ATOMIC_CSWAP:
		return IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_ATOMIC;
	default:
		return 0;
	}
}

static u32 krdma_slot_len(struct krdma_test_params *p)
{
	return KRDMA_MSG_HDR_SIZE + p->size;
}

/* ------------------------------------------------------------------ */
/* Generic helpers for slots and regions                               */

static void krdma_slots_free(struct krdma_slot *slots, u32 n)
{
	u32 i;

	if (!slots)
		return;
	for (i = 0; i < n; i++) {
		krdma_region_destroy(slots[i].reg);
		krdma_region_destroy(slots[i].sink_reg);
		krdma_buf_free(slots[i].buf);
		krdma_buf_free(slots[i].sink);
	}
	kfree(slots);
}

/*
 * Posts the RDMA READs or WRITEs moving a slot's payload to or from the
 * peer's regions, one WR per region; only the last one may be signaled,
 * and only the last one of a write_imm carries the immediate.
 */
static int krdma_post_rdma(struct krdma_session *sess, struct krdma_buf *buf,
			   const struct krdma_wire_region *remote, u32 nremote,
			   enum ib_wr_opcode opcode, struct ib_cqe *cqe,
			   u32 imm, bool signal_last)
{
	struct ib_sge sge[KRDMA_MAX_SGE];
	u32 i, off = KRDMA_MSG_HDR_SIZE;
	int n, ret;

	for (i = 0; i < nremote; i++) {
		struct ib_rdma_wr wr = {};
		u32 len = be32_to_cpu(remote[i].len);
		bool last = i + 1 == nremote;

		if (opcode == IB_WR_RDMA_READ)
			n = krdma_buf_read_sges(buf, off, len,
						sess->kdev->pd->local_dma_lkey,
						sge, sess->max_read_sge);
		else
			n = krdma_buf_sges(buf, off, len,
					   sess->kdev->pd->local_dma_lkey, sge,
					   sess->max_sge);
		if (n < 0)
			return n;
		wr.wr.wr_cqe = cqe;
		wr.wr.sg_list = sge;
		wr.wr.num_sge = n;
		wr.wr.opcode = opcode;
		if (opcode == IB_WR_RDMA_WRITE_WITH_IMM) {
			if (last)
				wr.wr.ex.imm_data = cpu_to_be32(imm);
			else
				wr.wr.opcode = IB_WR_RDMA_WRITE;
		}
		wr.wr.send_flags = last && signal_last ? IB_SEND_SIGNALED : 0;
		wr.remote_addr = be64_to_cpu(remote[i].addr);
		wr.rkey = be32_to_cpu(remote[i].rkey);
		if (opcode == IB_WR_RDMA_WRITE && krdma_fault_misaddress())
			wr.remote_addr += len;
		ret = krdma_post_send(sess, &wr.wr);
		if (ret)
			return ret;
		/* Answered by the signaled completion of the last one. */
		if (opcode == IB_WR_RDMA_READ && last)
			krdma_reads_begin(sess, 1);
		krdma_count(sess, opcode == IB_WR_RDMA_READ ? KRDMA_CNT_READ_WRS :
			    KRDMA_CNT_WRITE_WRS, 1);
		krdma_count(sess, opcode == IB_WR_RDMA_READ ? KRDMA_CNT_BYTES_RX :
			    KRDMA_CNT_BYTES_TX, len);
		off += len;
	}
	return 0;
}

/*
 * Checks the regions a peer described: @n regions, @per_slot for each of
 * @depth slots, each slot's regions adding up to exactly @size bytes.
 */
int krdma_check_wire_regions(const struct krdma_wire_region *r, u32 n,
			     u32 depth, u32 size, u32 *per_slot)
{
	u32 s, k, per;

	if (!depth || n % depth)
		return -EPROTO;
	per = n / depth;
	if (!per || per > KRDMA_MAX_SLOT_REGIONS)
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
	krdma_perf_free(test->perf);
	test->perf = NULL;
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
	kfree(test);
}

/*
 * The last reference may be a CQ handler's: the session's own CQ, never a
 * softirq one, so freeing may sleep there.
 */
static void krdma_test_put(struct krdma_test *test)
{
	if (test)
		kref_put(&test->ref, krdma_test_free);
}

/* The session's test, referenced: a new one may replace it meanwhile. */
static struct krdma_test *krdma_test_get_current(struct krdma_session *sess)
{
	struct krdma_test *test;

	spin_lock_bh(&sess->lock);
	test = sess->test;
	if (test)
		kref_get(&test->ref);
	spin_unlock_bh(&sess->lock);
	return test;
}

static int krdma_test_fill(struct sk_buff *skb, struct krdma_test *test)
{
	enum krdma_test_state state;
	char reason[sizeof(test->reason)];
	bool perf_ok;
	ktime_t end;
	int status;

	spin_lock_bh(&test->lock);
	state = test->finishing ? KRDMA_TEST_DONE : test->state;
	perf_ok = !test->finishing || test->perf_final;
	status = test->status;
	end = test->finishing ? test->end : ktime_get();
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
	if (state == KRDMA_TEST_DONE &&
	    (krdma_host_cpu_fill(skb, KRDMA_A_TEST_HOST_CPU, &test->host_use) ||
	     krdma_host_cpu_fill(skb, KRDMA_A_TEST_PEER_HOST_CPU,
				 &test->peer_host_use)))
		return -EMSGSIZE;
	/* Not while krdma_test_finish() turns the figures into their final form. */
	return perf_ok ? krdma_perf_fill(skb, test) : 0;
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

/* Records the first failure; the test ends once nothing is in flight. */
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

/*
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
	 * A channel's post refused as dead saw qp_dead set too: teardown
	 * sets it before it takes each channel's lock to mark it dead.
	 */
	if (READ_ONCE(sess->qp_dead))
		return;
	if (test)
		krdma_test_fail(test, ret, "cannot post: %pe", ERR_PTR(ret));
	krdma_session_close(sess, "test %u: cannot post: %pe", test_id,
			    ERR_PTR(ret));
}

/*
 * Ends a test whose work has all completed. The state turns DONE last, so
 * that a new test may replace this one only once we no longer touch it.
 */
static void krdma_test_finish(struct krdma_test *test)
{
	struct krdma_session *sess = test->sess;
	struct krdma_peer_test *pt;
	struct sk_buff *msg;
	struct krdma_host_cpu host_use;

	/* Outside the lock: a pass over every CPU's counters. */
	krdma_host_cpu_since(&test->host_start, &host_use);
	spin_lock_bh(&test->lock);
	if (test->finishing) {
		spin_unlock_bh(&test->lock);
		return;
	}
	test->finishing = true;
	test->end = ktime_get();
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
	krdma_perf_finish(test->perf);
	spin_lock_bh(&test->lock);
	test->perf_final = true;
	spin_unlock_bh(&test->lock);
	krdma_slots_free(test->slots, test->p.depth);
	test->slots = NULL;

	/* A mirror's figures go to the peer's test it mirrors (bidir). */
	pt = sess->peer_test;
	if (test->p.mirror_of && pt && pt->mirror_id == test->id) {
		pt->mirror_iters = test->completed;
		pt->mirror_bytes = test->bytes;
		pt->mirror_done = true;
	} else {
		pt = NULL;
	}
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
	if (pt && pt->result_ready)
		krdma_peer_send_result(sess, pt);
}

static bool krdma_test_more(struct krdma_test *test)
{
	if (test->stop || test->status)
		return false;
	if (test->p.count)
		return test->issued < test->p.count;
	return ktime_before(ktime_get(), test->deadline);
}

void krdma_test_send_end(struct krdma_test *test)
{
	int ret;

	test->ending = true;
	ret = krdma_ctrl_send(test->sess, KRDMA_MSG_TEST_END, test->id,
			      test->completed, 0, NULL, 0);
	/* Once teardown has begun, it ends the test (krdma_test_post_failed()). */
	if (ret && !READ_ONCE(test->sess->qp_dead)) {
		krdma_test_fail(test, ret, "cannot send TEST_END: %pe",
				ERR_PTR(ret));
		krdma_test_finish(test);
	}
}

static void krdma_test_issue(struct krdma_test *test, struct krdma_slot *slot);

static void krdma_slot_complete(struct krdma_test *test, struct krdma_slot *slot)
{
	slot->busy = false;
	WRITE_ONCE(test->completed, test->completed + 1);
	WRITE_ONCE(test->bytes, test->bytes + test->p.size);
	if (krdma_test_more(test)) {
		krdma_test_issue(test, slot);
		return;
	}
	if (!test->ending) {
		u32 s;

		for (s = 0; s < test->p.depth; s++)
			if (test->slots[s].busy)
				return;
		krdma_test_send_end(test);
	}
}

/* Checks what landed in our buffer for iteration slot->iter. */
static void krdma_slot_check(struct krdma_test *test, struct krdma_slot *slot,
			     struct krdma_buf *buf)
{
	if (krdma_pattern_check(buf, KRDMA_MSG_HDR_SIZE, test->p.size,
				krdma_seed(test->id, slot->iter))) {
		WRITE_ONCE(test->validated, test->validated + 1);
		return;
	}
	krdma_count(test->sess, KRDMA_CNT_VALIDATION_ERRORS, 1);
	krdma_test_fail(test, -EBADMSG, "data mismatch at iteration %llu",
			slot->iter);
}

static void krdma_slot_step(struct krdma_test *test, struct krdma_slot *slot,
			    u8 done)
{
	slot->pending &= ~done;
	if (!slot->pending)
		krdma_slot_complete(test, slot);
}

static void krdma_test_slot_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_slot *slot = container_of(wc->wr_cqe, struct krdma_slot, cqe);
	struct krdma_session *sess = cq->cq_context;
	struct krdma_test *test = sess->test;
	u64 orig;

	if (test->p.op == KRDMA_OP_READ)
		krdma_reads_end(sess, 1);
	krdma_buf_to_cpu(slot->buf);
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		/* A flush is teardown's doing: its reason is the session's. */
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			krdma_test_fail(test, -EIO, "iteration %llu: %s", slot->iter,
					ib_wc_status_msg(wc->status));
		krdma_wc_error(sess, wc, "test");
		return;
	}
	if (test->p.op == KRDMA_OP_READ || krdma_op_is_atomic(test->p.op))
		krdma_peer_alive(sess);
	else
		krdma_peer_acked(sess);

	switch (test->p.op) {
	case KRDMA_OP_READ:
		krdma_slot_check(test, slot, slot->buf);
		if (krdma_ctrl_send(sess, KRDMA_MSG_RELEASE, test->id, slot->iter,
				    0, NULL, 0))
			krdma_session_close(sess, "cannot send RELEASE");
		break;
	case KRDMA_OP_ATOMIC_FADD:
	case KRDMA_OP_ATOMIC_CSWAP:
		krdma_buf_copy_to(&orig, slot->buf, KRDMA_MSG_HDR_SIZE, sizeof(orig));
		if (orig == slot->expect) {
			WRITE_ONCE(test->validated, test->validated + 1);
		} else {
			krdma_count(sess, KRDMA_CNT_VALIDATION_ERRORS, 1);
			krdma_test_fail(test, -EBADMSG,
					"atomic at iteration %llu returned %llu, expected %llu",
					slot->iter, orig, slot->expect);
		}
		if (test->p.op == KRDMA_OP_ATOMIC_FADD)
			slot->expect += slot->iter + 1;
		else
			slot->expect = krdma_seed(test->id, slot->iter);
		break;
	default:
		break;
	}
	krdma_slot_step(test, slot, KRDMA_SLOT_WC);
}

static int krdma_test_post_atomic(struct krdma_test *test,
				  struct krdma_slot *slot)
{
	struct krdma_session *sess = test->sess;
	const struct krdma_wire_region *r = &test->remote[slot - test->slots];
	struct ib_atomic_wr wr = {};
	struct ib_sge sge;
	int ret;

	ret = krdma_buf_sges(slot->buf, KRDMA_MSG_HDR_SIZE, sizeof(u64),
			     sess->kdev->pd->local_dma_lkey, &sge, 1);
	if (ret < 0)
		return ret;
	wr.wr.wr_cqe = &slot->cqe;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.remote_addr = be64_to_cpu(r->addr);
	wr.rkey = be32_to_cpu(r->rkey);
	if (test->p.op == KRDMA_OP_ATOMIC_FADD) {
		wr.wr.opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
		wr.compare_add = slot->iter + 1;
	} else {
		wr.wr.opcode = IB_WR_ATOMIC_CMP_AND_SWP;
		wr.compare_add = slot->expect;
		wr.swap = krdma_seed(test->id, slot->iter);
	}
	ret = krdma_post_send(sess, &wr.wr);
	if (!ret)
		krdma_count(sess, KRDMA_CNT_ATOMIC_WRS, 1);
	return ret;
}

static int krdma_test_post_send(struct krdma_test *test, struct krdma_slot *slot)
{
	struct krdma_session *sess = test->sess;
	struct ib_sge sge[KRDMA_MAX_SGE];
	struct ib_send_wr wr = {};
	int n, ret;

	n = krdma_buf_sges(slot->buf, 0, krdma_slot_len(&test->p),
			   sess->kdev->pd->local_dma_lkey, sge,
			   sess->max_sge);
	if (n < 0)
		return n;
	wr.wr_cqe = &slot->cqe;
	wr.sg_list = sge;
	wr.num_sge = n;
	wr.send_flags = IB_SEND_SIGNALED;
	if (test->p.op == KRDMA_OP_SEND_IMM) {
		wr.opcode = IB_WR_SEND_WITH_IMM;
		wr.ex.imm_data = cpu_to_be32((u32)slot->iter);
	} else {
		wr.opcode = IB_WR_SEND;
	}
	ret = krdma_post_send(sess, &wr);
	if (!ret) {
		krdma_count(sess, KRDMA_CNT_SEND_WRS, 1);
		krdma_count(sess, KRDMA_CNT_BYTES_TX, krdma_slot_len(&test->p));
	}
	return ret;
}

static void krdma_test_issue(struct krdma_test *test, struct krdma_slot *slot)
{
	struct krdma_session *sess = test->sess;
	u32 s = slot - test->slots;
	const struct krdma_wire_region *remote =
		test->remote ? &test->remote[s * test->remote_per_slot] : NULL;
	u64 seed;
	int ret;

	slot->iter = test->issued++;
	slot->busy = true;
	seed = krdma_seed(test->id, slot->iter);

	switch (test->p.op) {
	case KRDMA_OP_SEND:
	case KRDMA_OP_SEND_IMM: {
		struct krdma_msg_hdr hdr = {
			.type	 = cpu_to_be16(KRDMA_MSG_DATA),
			.test_id = cpu_to_be32(test->id),
			.iter	 = cpu_to_be64(slot->iter),
			.len	 = cpu_to_be32(test->p.size),
		};

		krdma_buf_copy_from(slot->buf, 0, &hdr, sizeof(hdr));
		krdma_pattern_fill(slot->buf, KRDMA_MSG_HDR_SIZE, test->p.size, seed);
		slot->pending = KRDMA_SLOT_WC | KRDMA_SLOT_ACK;
		krdma_buf_to_device(slot->buf);
		ret = krdma_test_post_send(test, slot);
		break;
	}
	case KRDMA_OP_WRITE:
	case KRDMA_OP_WRITE_IMM:
		krdma_pattern_fill(slot->buf, KRDMA_MSG_HDR_SIZE, test->p.size, seed);
		slot->pending = KRDMA_SLOT_WC | KRDMA_SLOT_ACK;
		krdma_buf_to_device(slot->buf);
		ret = krdma_post_rdma(sess, slot->buf, remote, test->remote_per_slot,
				      test->p.op == KRDMA_OP_WRITE_IMM ?
				      IB_WR_RDMA_WRITE_WITH_IMM : IB_WR_RDMA_WRITE,
				      &slot->cqe, (u32)slot->iter, true);
		/* Same QP, so the notice arrives after the data has landed. */
		if (!ret && test->p.op == KRDMA_OP_WRITE)
			ret = krdma_ctrl_send(sess, KRDMA_MSG_NOTIFY, test->id,
					      slot->iter, 0, NULL, 0);
		break;
	case KRDMA_OP_READ:
		slot->pending = KRDMA_SLOT_WC | KRDMA_SLOT_ACK;
		krdma_buf_to_device(slot->buf);
		ret = krdma_post_rdma(sess, slot->buf, remote, test->remote_per_slot,
				      IB_WR_RDMA_READ, &slot->cqe, 0, true);
		break;
	case KRDMA_OP_PING:
		krdma_pattern_fill(slot->buf, KRDMA_MSG_HDR_SIZE, test->p.size, seed);
		slot->pending = KRDMA_SLOT_ACK;
		krdma_buf_to_device(slot->buf);
		krdma_buf_to_device(slot->sink);
		ret = krdma_ctrl_send(sess, KRDMA_MSG_PING, test->id, slot->iter,
				      0, NULL, 0);
		break;
	default:	/* atomics */
		slot->pending = KRDMA_SLOT_WC;
		krdma_buf_to_device(slot->buf);
		ret = krdma_test_post_atomic(test, slot);
		break;
	}
	if (ret)
		krdma_test_post_failed(sess, test, test->id, ret);
}

static void krdma_test_ctl_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_session *sess = cq->cq_context;

	if (unlikely(wc->status != IB_WC_SUCCESS))
		krdma_wc_error(sess, wc, "memory registration");
}

static void krdma_test_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_session *sess = cq->cq_context;
	struct krdma_test *test = sess->test;

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

	test->ctl_cqe.done = krdma_test_inv_done;
	test->inv_pending = 0;
	for (s = 0; test->slots && s < test->p.depth; s++) {
		struct krdma_slot *slot = &test->slots[s];
		struct krdma_region *regs[] = { slot->reg, slot->sink_reg };
		int i;

		for (i = 0; i < ARRAY_SIZE(regs); i++) {
			if (!regs[i] || !regs[i]->registered)
				continue;
			if (krdma_region_post_inv(sess, regs[i], &test->ctl_cqe)) {
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

static void krdma_test_on_ack(struct krdma_test *test,
			      const struct krdma_msg_hdr *hdr,
			      const struct krdma_msg_test *body, u32 body_len)
{
	u32 nregions, per = 0, s;
	int status = -(int)be32_to_cpu(hdr->status);

	if (test->started)
		goto proto;
	/* Over its caps on what a peer may make it pin (limits.c). */
	if (status == -EDQUOT || status == -ENOBUFS)
		krdma_test_fail(test, status,
				"peer refused the test: more memory than it allows %s",
				status == -EDQUOT ? "a session (max_session_mem_mb)" :
				"all sessions (max_mem_mb)");
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

	if (krdma_peer_access(test->p.op)) {
		u32 need = krdma_op_data_len(test->p.op, test->p.size);
		/* bw and lat: one target for all messages; check: one per slot. */
		u32 slots = test->p.mode == KRDMA_MODE_CHECK ? test->p.depth : 1;

		if (krdma_check_wire_regions(body->regions, nregions, slots,
					     need, &per))
			goto proto;
		if (krdma_op_is_atomic(test->p.op) && per != 1)
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

	test->started = true;
	krdma_host_cpu_sample(&test->host_start);
	test->start = ktime_get();
	test->deadline = ktime_add_ms(test->start, test->p.duration_ms);
	if (test->perf) {
		krdma_perf_start(test);
		return;
	}
	for (s = 0; s < test->p.depth && krdma_test_more(test); s++)
		krdma_test_issue(test, &test->slots[s]);
	if (!test->issued)
		krdma_test_send_end(test);
	return;
proto:
	krdma_count(test->sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
	krdma_test_fail(test, -EPROTO, "malformed TEST_ACK from peer");
	krdma_session_close(test->sess, "protocol error: malformed TEST_ACK");
}

static void krdma_test_on_iter_ack(struct krdma_test *test,
				   const struct krdma_msg_hdr *hdr)
{
	u64 iter = be64_to_cpu(hdr->iter);
	struct krdma_slot *slot;
	int status = -(int)be32_to_cpu(hdr->status);

	if (!test->started || iter >= test->issued)
		goto proto;
	slot = &test->slots[iter % test->p.depth];
	if (!slot->busy || slot->iter != iter || !(slot->pending & KRDMA_SLOT_ACK))
		goto proto;
	if (status)
		krdma_test_fail(test, status, "peer reports iteration %llu: %pe",
				iter, ERR_PTR(status));
	if (test->p.op == KRDMA_OP_PING) {
		krdma_buf_to_cpu(slot->buf);
		krdma_buf_to_cpu(slot->sink);
		krdma_slot_check(test, slot, slot->sink);
	} else if (test->p.op != KRDMA_OP_READ && !status) {
		/* The peer checked the data where it landed. */
		WRITE_ONCE(test->validated, test->validated + 1);
	}
	krdma_slot_step(test, slot, KRDMA_SLOT_ACK);
	return;
proto:
	krdma_count(test->sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
	krdma_session_close(test->sess, "protocol error: unexpected ITER_ACK %llu",
			    iter);
}

static void krdma_test_on_result(struct krdma_test *test,
				 const struct krdma_msg_hdr *hdr,
				 const struct krdma_msg_result *body, u32 len)
{
	int status = -(int)be32_to_cpu(hdr->status);
	struct krdma_msg_result r = {}, *res = &r;

	/* The figures after the first three came later: absent means 0. */
	if (!test->ending || len < offsetof(struct krdma_msg_result, cpu_ns)) {
		krdma_count(test->sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
		krdma_session_close(test->sess, "protocol error: unexpected TEST_RESULT");
		return;
	}
	memcpy(&r, body, min_t(u32, len, sizeof(r)));
	test->peer_validated = be64_to_cpu(res->validated);
	test->peer_cpu_ns = be64_to_cpu(res->cpu_ns);
	WRITE_ONCE(test->peer_iters, be64_to_cpu(res->mirror_iters));
	WRITE_ONCE(test->peer_bytes, be64_to_cpu(res->mirror_bytes));
	test->peer_host_use.capacity = be64_to_cpu(res->host_capacity);
	test->peer_host_use.user = be64_to_cpu(res->host_user);
	test->peer_host_use.system = be64_to_cpu(res->host_system);
	test->peer_host_use.softirq = be64_to_cpu(res->host_softirq);
	test->peer_host_use.irq = be64_to_cpu(res->host_irq);
	if (test->p.bidir && !test->status && !test->peer_iters)
		krdma_test_fail(test, -EPROTO, "the peer ran no reverse stream");
	if (test->perf)
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
/* Responder side                                                      */

static void krdma_peer_test_free(struct krdma_peer_test *pt)
{
	if (!pt)
		return;
	krdma_peer_unwatch(pt);
	krdma_perf_free(pt->perf);
	krdma_slots_free(pt->slots, pt->depth);
	kfree(pt->remote);
	krdma_mem_uncharge(pt->sess, pt->mem);
	kfree(pt);
}

static void krdma_peer_ack(struct krdma_session *sess,
			   struct krdma_peer_test *pt, u64 iter, int status)
{
	if (krdma_ctrl_send(sess, KRDMA_MSG_ITER_ACK, pt->test_id, iter, status,
			    NULL, 0))
		krdma_session_close(sess, "cannot send ITER_ACK");
}

static int krdma_peer_check(struct krdma_session *sess,
			    struct krdma_peer_test *pt, struct krdma_buf *buf,
			    u32 off, u64 iter)
{
	pt->seen++;
	if (krdma_pattern_check(buf, off, pt->size, krdma_seed(pt->test_id, iter))) {
		pt->validated++;
		return 0;
	}
	pt->errors++;
	krdma_count(sess, KRDMA_CNT_VALIDATION_ERRORS, 1);
	return -EBADMSG;
}

/* Ping: a write-back is done; the last one may let TEST_END proceed. */
static void krdma_peer_write_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_session *sess = cq->cq_context;
	struct krdma_peer_test *pt = sess->peer_test;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		krdma_wc_error(sess, wc, "ping write");
		return;
	}
	if (--pt->writes == 0 && pt->ending)
		krdma_peer_on_end(sess, pt);
}

/* Ping, second half: the source has been read; write it back to the sink. */
static void krdma_peer_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_slot *slot = container_of(wc->wr_cqe, struct krdma_slot, cqe);
	struct krdma_session *sess = cq->cq_context;
	struct krdma_peer_test *pt = sess->peer_test;
	u32 s = slot - pt->slots;
	int status, ret;

	krdma_reads_end(sess, 1);
	krdma_buf_to_cpu(slot->buf);
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		krdma_wc_error(sess, wc, "ping read");
		return;
	}
	krdma_peer_progress(pt);
	status = krdma_peer_check(sess, pt, slot->buf, KRDMA_MSG_HDR_SIZE,
				  slot->iter);
	krdma_buf_to_device(slot->buf);
	/*
	 * The sink regions follow all the source regions. The write-back is
	 * signaled: the slot's buffer is freed only once it has completed.
	 */
	slot->wcqe.done = krdma_peer_write_done;
	ret = krdma_post_rdma(sess, slot->buf,
			      &pt->remote[(pt->depth + s) * pt->remote_per_slot],
			      pt->remote_per_slot, IB_WR_RDMA_WRITE, &slot->wcqe,
			      0, true);
	if (ret) {
		krdma_session_close(sess, "ping: cannot post write: %d", ret);
		return;
	}
	pt->writes++;
	slot->busy = false;
	krdma_peer_ack(sess, pt, slot->iter, status);
}

static int krdma_peer_setup(struct krdma_session *sess,
			    struct krdma_peer_test *pt,
			    const struct krdma_msg_test *req, u32 body_len,
			    struct krdma_msg_test *ack, u32 *ack_regions)
{
	struct krdma_device *kdev = sess->kdev;
	int access = krdma_peer_access(pt->op);
	u32 nregions = be32_to_cpu(req->nregions);
	u32 need_wrs, s, n = 0;
	int ret;

	if (nregions > (body_len - sizeof(*req)) / sizeof(req->regions[0]))
		return -EPROTO;
	if (pt->op == KRDMA_OP_PING) {
		/* Sources then sinks: two regions lists of depth slots. */
		if (nregions % 2 ||
		    krdma_check_wire_regions(req->regions, nregions / 2, pt->depth,
					     pt->size, &pt->remote_per_slot) ||
		    krdma_check_wire_regions(req->regions + nregions / 2,
					     nregions / 2, pt->depth, pt->size,
					     &s) || s != pt->remote_per_slot)
			return -EPROTO;
		pt->remote = kmemdup(req->regions, nregions * sizeof(req->regions[0]),
				     GFP_KERNEL);
		if (!pt->remote)
			return -ENOMEM;
	} else if (nregions) {
		return -EPROTO;
	}

	/* Our send queue must hold a full window of replies. */
	need_wrs = pt->depth * (pt->op == KRDMA_OP_PING ?
				2 * pt->remote_per_slot + 1 : 1) + 2;
	if (need_wrs > sess->sq_depth)
		return -ENOSPC;
	if (krdma_op_uses_recv(pt->op) &&
	    pt->depth + KRDMA_RQ_RESERVE > sess->rq_depth)
		return -ENOSPC;
	if ((pt->op == KRDMA_OP_SEND || pt->op == KRDMA_OP_SEND_IMM) &&
	    pt->size > sess->max_msg_size)
		return -EMSGSIZE;
	if (pt->op == KRDMA_OP_SEND || pt->op == KRDMA_OP_SEND_IMM)
		return 0;	/* the data lands in our receive buffers */

	pt->slots = krdma_failable(kcalloc(pt->depth, sizeof(*pt->slots), GFP_KERNEL));
	if (!pt->slots)
		return -ENOMEM;
	/* Allocate everything first: a failure then leaves nothing posted. */
	for (s = 0; s < pt->depth; s++) {
		struct krdma_slot *slot = &pt->slots[s];
		u32 len = krdma_op_data_len(pt->op, pt->size);

		slot->buf = krdma_buf_alloc(kdev, KRDMA_MSG_HDR_SIZE + len,
					    "peer_slot", s);
		if (!slot->buf)
			return -ENOMEM;
		if (pt->op == KRDMA_OP_READ)
			krdma_pattern_fill(slot->buf, KRDMA_MSG_HDR_SIZE, len,
					   krdma_seed(pt->test_id, s));
		krdma_buf_to_device(slot->buf);
		if (!access)
			continue;
		slot->reg = krdma_region_create(kdev, slot->buf, KRDMA_MSG_HDR_SIZE,
						len, access);
		if (IS_ERR(slot->reg)) {
			ret = PTR_ERR(slot->reg);
			slot->reg = NULL;
			return ret;
		}
		n += slot->reg->nmrs;
		if (n > KRDMA_MAX_WIRE_REGIONS ||
		    slot->reg->nmrs > KRDMA_MAX_SLOT_REGIONS)
			return -E2BIG;
	}
	if (n + pt->depth + 2 > sess->sq_depth)
		return -ENOSPC;

	/* A ping's responder READs the driver's message into its slots. */
	for (s = 0; pt->op == KRDMA_OP_PING && s < pt->depth; s++) {
		ret = krdma_buf_make_sink(sess, pt->slots[s].buf, &pt->reg_cqe);
		pt->posted |= !!pt->slots[s].buf->sink;
		if (ret)
			return ret;
	}
	/* Nothing is posted if it fails; the loop marks what follows. */
	ret = access ? krdma_region_post_fence(sess, pt->slots[0].reg,
					       &pt->reg_cqe) : 0;
	if (ret)
		return ret;
	for (s = 0, n = 0; access && s < pt->depth; s++) {
		struct krdma_region *reg = pt->slots[s].reg;

		ret = krdma_region_post_reg(sess, reg, &pt->reg_cqe, access);
		if (ret) {
			pt->posted = true;
			return ret;
		}
		pt->posted = true;
		krdma_count(sess, KRDMA_CNT_REG_MR_WRS, reg->nmrs);
		krdma_region_to_wire(reg, &ack->regions[n]);
		n += reg->nmrs;
	}
	*ack_regions = n;
	return 0;
}

static void krdma_peer_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_session *sess = cq->cq_context;

	if (unlikely(wc->status != IB_WC_SUCCESS))
		krdma_wc_error(sess, wc, "peer registration");
}

static int krdma_peer_check_req(struct krdma_peer_test *pt,
				const struct krdma_msg_test *req)
{
	pt->op = req->op;
	/* Zero: a peer from before the modes, which only had check. */
	pt->mode = req->mode ?: KRDMA_MODE_CHECK;
	pt->bidir = req->flags & KRDMA_TEST_F_BIDIR;
	pt->qps = req->qps ?: 1;
	if ((req->flags & ~KRDMA_TEST_F_BIDIR) ||
	    (pt->bidir && pt->mode != KRDMA_MODE_BW))
		return -EINVAL;
	pt->size = be32_to_cpu(req->size);
	pt->depth = be32_to_cpu(req->depth);
	pt->count = be64_to_cpu(req->count);
	if (!pt->op || pt->op > KRDMA_OP_MAX || !pt->size ||
	    pt->mode > KRDMA_MODE_MAX || req->qps > KRDMA_QPS_MAX ||
	    (req->qps > 1 && pt->mode != KRDMA_MODE_BW) ||
	    pt->size > KRDMA_MSG_SIZE_MAX || !pt->depth ||
	    pt->depth > KRDMA_DEPTH_MAX ||
	    (krdma_op_is_atomic(pt->op) && pt->size != sizeof(u64)))
		return -EINVAL;
	return 0;
}

/* The memory of @pt, charged to @sess: over a cap, a clear refusal. */
static int krdma_peer_charge(struct krdma_session *sess,
			     struct krdma_peer_test *pt)
{
	u64 bytes = krdma_peer_test_bytes(pt);
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

static int __krdma_test_start(struct krdma_session *sess,
			      struct krdma_test_params *p, u32 *test_id,
			      struct netlink_ext_ack *extack);
static int krdma_peer_start_mirror(struct krdma_session *sess,
				   struct krdma_peer_test *pt);
static void krdma_peer_end_mirror(struct krdma_session *sess,
				  struct krdma_peer_test *pt);

static void krdma_peer_on_req(struct krdma_session *sess,
			      const struct krdma_msg_hdr *hdr,
			      const struct krdma_msg_test *req, u32 body_len)
{
	u32 test_id = be32_to_cpu(hdr->test_id);
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
	pt->sess = sess;
	pt->test_id = test_id;
	krdma_host_cpu_sample(&pt->host_start);
	pt->reg_cqe.done = krdma_peer_reg_done;

	if (sess->peer_test)
		ret = -EBUSY;
	else if (body_len < sizeof(*req))
		ret = -EPROTO;
	else
		ret = krdma_peer_check_req(pt, req);
	/* As krdma_test_check_params() refuses them on the driver's side. */
	if (!ret && ((krdma_op_is_atomic(pt->op) &&
		      (sess->kdev->iwarp ||
		       sess->kdev->ibdev->attrs.atomic_cap == IB_ATOMIC_NONE)) ||
		     (krdma_op_has_imm(pt->op) && sess->kdev->iwarp)))
		ret = -EOPNOTSUPP;
	/* Before any of it is allocated: charged, or refused. */
	if (!ret)
		ret = krdma_peer_charge(sess, pt);
	/* The mirror first: if it cannot run, nothing of ours is posted yet. */
	if (!ret && pt->bidir)
		ret = krdma_peer_start_mirror(sess, pt);
	if (!ret && pt->mode != KRDMA_MODE_CHECK)
		ret = krdma_perf_peer_setup(sess, pt, req, body_len, ack,
					    &nregions);
	else if (!ret)
		ret = krdma_peer_setup(sess, pt, req, body_len, ack, &nregions);

	if (ret && pt->mirror_id) {
		pt->end_iters = 0;
		krdma_peer_end_mirror(sess, pt);
	}
	if (ret && pt->posted) {
		/* Registrations in flight: only teardown, after a drain, frees them. */
		sess->peer_test = pt;
		WRITE_ONCE(sess->serving_reads, pt->op == KRDMA_OP_READ);
		krdma_session_close(sess, "cannot register test memory: %pe",
				    ERR_PTR(ret));
		kfree(ack);
		return;
	}
	if (ret) {
		krdma_peer_test_free(pt);
		nregions = 0;
	} else {
		sess->peer_test = pt;
		WRITE_ONCE(sess->serving_reads, pt->op == KRDMA_OP_READ);
		krdma_peer_watch(pt);
	}
	ack->nregions = cpu_to_be32(nregions);
	if (krdma_ctrl_send(sess, KRDMA_MSG_TEST_ACK, test_id, 0, ret, ack,
			    sizeof(*ack) + nregions * sizeof(ack->regions[0])))
		krdma_session_close(sess, "cannot answer TEST_REQ");
	kfree(ack);
}

/*
 * bidir: the same test, driven from our side, for as long as the peer's
 * runs. From the CQ context: cm_mutex is only tried (teardown holds it
 * while it drains this very CQ); if it is busy, the peer's test is
 * refused rather than run one way.
 */
static int krdma_peer_start_mirror(struct krdma_session *sess,
				   struct krdma_peer_test *pt)
{
	struct krdma_test_params p = {
		.op		= pt->op,
		.mode		= KRDMA_MODE_BW,
		.size		= pt->size,
		.depth		= pt->depth,
		.count		= pt->count,
		/* Without a count it runs until the peer's test ends. */
		.duration_ms	= pt->count ? 0 : KRDMA_DURATION_MS_MAX,
		.interval_ms	= 1000,
		.signal_every	= min_t(u32, pt->depth, KRDMA_BW_DEF_SIGNAL_EVERY),
		.chain		= min_t(u32, pt->depth, KRDMA_BW_DEF_CHAIN),
		.qps		= pt->qps,
		.mirror_of	= pt->test_id,
	};
	int ret;

	if (!mutex_trylock(&sess->cm_mutex))
		return -EBUSY;
	ret = __krdma_test_start(sess, &p, &pt->mirror_id, NULL);
	mutex_unlock(&sess->cm_mutex);
	return ret;
}

/* The peer's test ended: a mirror still running ends with it. */
static void krdma_peer_end_mirror(struct krdma_session *sess,
				  struct krdma_peer_test *pt)
{
	struct krdma_test *mirror = sess->test;

	/* Not done: it is still running, so it is still sess->test. */
	if (!pt->mirror_id || pt->mirror_done || !mirror ||
	    mirror->id != pt->mirror_id)
		return;
	/* A count: it ends by itself, unless the peer's was cut short. */
	if (mirror->p.count && pt->end_iters == mirror->p.count)
		return;
	mirror->stop_quiet = true;
	WRITE_ONCE(mirror->stop, true);
}

static void krdma_peer_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_session *sess = cq->cq_context;
	struct krdma_peer_test *pt = sess->peer_test;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		krdma_wc_error(sess, wc, "peer invalidation");
		return;
	}
	if (--pt->inv_pending == 0) {
		pt->result_ready = true;
		krdma_peer_send_result(sess, pt);
	}
}

/*
 * The responder's last word on a test. With bidir, it waits for our
 * mirror test to be over, so that it can carry the mirror's figures.
 */
void krdma_peer_send_result(struct krdma_session *sess,
			    struct krdma_peer_test *pt)
{
	struct krdma_host_cpu host;
	struct krdma_msg_result res = {
		.iters	      = cpu_to_be64(pt->seen),
		.validated    = cpu_to_be64(pt->validated),
		.errors	      = cpu_to_be64(pt->errors),
		.cpu_ns	      = cpu_to_be64(krdma_perf_cpu_ns(pt->perf)),
		.mirror_iters = cpu_to_be64(pt->mirror_iters),
		.mirror_bytes = cpu_to_be64(pt->mirror_bytes),
	};

	/* krdma_test_finish() of the mirror calls again, with its figures. */
	if (pt->mirror_id && !pt->mirror_done)
		return;
	krdma_host_cpu_since(&pt->host_start, &host);
	res.host_capacity = cpu_to_be64(host.capacity);
	res.host_user = cpu_to_be64(host.user);
	res.host_system = cpu_to_be64(host.system);
	res.host_softirq = cpu_to_be64(host.softirq);
	res.host_irq = cpu_to_be64(host.irq);
	sess->peer_test = NULL;
	WRITE_ONCE(sess->serving_reads, false);
	if (krdma_ctrl_send(sess, KRDMA_MSG_TEST_RESULT, pt->test_id, 0,
			    pt->errors ? -EBADMSG : 0, &res, sizeof(res)))
		krdma_session_close(sess, "cannot send TEST_RESULT");
	krdma_peer_test_free(pt);
}

/*
 * Atomics: the final values must be what the driver's sequence produced.
 * @iters comes from the peer: computed in closed form, never looped over.
 */
static void krdma_peer_check_atomics(struct krdma_peer_test *pt, u64 iters)
{
	u32 s;

	for (s = 0; s < pt->depth; s++) {
		struct krdma_slot *slot = &pt->slots[s];
		/* Slot s saw iterations s, s + depth, ... below iters: k of them. */
		u64 k = iters > s ? div_u64(iters - s - 1, pt->depth) + 1 : 0;
		u64 expect = 0, val, tri;

		if (k && pt->op == KRDMA_OP_ATOMIC_FADD) {
			/* sum of (s + j * depth + 1), j < k, modulo 2^64 */
			tri = k & 1 ? k * ((k - 1) / 2) : (k / 2) * (k - 1);
			expect = k * (s + 1) + (u64)pt->depth * tri;
		} else if (k) {
			expect = krdma_seed(pt->test_id, s + (k - 1) * pt->depth);
		}
		krdma_buf_to_cpu(slot->buf);
		krdma_buf_copy_to(&val, slot->buf, KRDMA_MSG_HDR_SIZE, sizeof(val));
		pt->seen += k;
		if (val == expect)
			pt->validated++;
		else
			pt->errors++;
	}
}

/* TEST_END has come and no work of ours is in flight: invalidate, answer. */
void krdma_peer_on_end(struct krdma_session *sess, struct krdma_peer_test *pt)
{
	u32 s;

	if (pt->mode != KRDMA_MODE_CHECK)
		krdma_perf_peer_end(pt);
	else if (krdma_op_is_atomic(pt->op))
		krdma_peer_check_atomics(pt, pt->end_iters);

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
	if (--pt->inv_pending == 0) {
		struct ib_wc wc = { .status = IB_WC_SUCCESS };

		pt->inv_pending = 1;
		krdma_peer_inv_done(sess->cq.ib, &wc);
	}
}

/* In-order arrival: iteration numbers must follow each other. */
static bool krdma_peer_next(struct krdma_peer_test *pt, u64 iter)
{
	if (iter != pt->next_iter)
		return false;
	pt->next_iter++;
	return true;
}

static void krdma_peer_on_msg(struct krdma_session *sess,
			      struct krdma_recv *rx, struct ib_wc *wc,
			      const struct krdma_msg_hdr *hdr)
{
	struct krdma_peer_test *pt = sess->peer_test;
	u16 type = hdr ? be16_to_cpu(hdr->type) : KRDMA_MSG_DATA;
	u64 iter = hdr ? be64_to_cpu(hdr->iter) : 0;
	struct krdma_slot *slot;
	int status;
	u32 s;

	/* Nothing may follow TEST_END: the test's memory is going away. */
	if (!pt || pt->ending ||
	    (hdr && be32_to_cpu(hdr->test_id) != pt->test_id))
		goto proto;
	krdma_peer_progress(pt);
	if (pt->mode != KRDMA_MODE_CHECK && type != KRDMA_MSG_TEST_END) {
		krdma_perf_peer_on_msg(sess, pt, rx, wc, hdr);
		return;
	}

	/* RDMA WRITE with immediate: no header, the iteration is implied. */
	if (!hdr) {
		if (pt->op != KRDMA_OP_WRITE_IMM ||
		    be32_to_cpu(wc->ex.imm_data) != (u32)pt->next_iter)
			goto proto;
		iter = pt->next_iter;
		type = KRDMA_MSG_NOTIFY;
	}

	switch (type) {
	case KRDMA_MSG_DATA:
		if ((pt->op != KRDMA_OP_SEND && pt->op != KRDMA_OP_SEND_IMM) ||
		    be32_to_cpu(hdr->len) != pt->size ||
		    !krdma_peer_next(pt, iter))
			goto proto;
		if (pt->op == KRDMA_OP_SEND_IMM &&
		    (!(wc->wc_flags & IB_WC_WITH_IMM) ||
		     be32_to_cpu(wc->ex.imm_data) != (u32)iter))
			goto proto;
		status = krdma_peer_check(sess, pt, rx->buf, KRDMA_MSG_HDR_SIZE,
					  iter);
		break;
	case KRDMA_MSG_NOTIFY:
		if ((pt->op != KRDMA_OP_WRITE && pt->op != KRDMA_OP_WRITE_IMM) ||
		    !krdma_peer_next(pt, iter))
			goto proto;
		slot = &pt->slots[iter % pt->depth];
		krdma_buf_to_cpu(slot->buf);
		status = krdma_peer_check(sess, pt, slot->buf, KRDMA_MSG_HDR_SIZE,
					  iter);
		krdma_buf_to_device(slot->buf);
		break;
	case KRDMA_MSG_RELEASE:
		if (pt->op != KRDMA_OP_READ || !krdma_peer_next(pt, iter))
			goto proto;
		pt->seen++;
		slot = &pt->slots[iter % pt->depth];
		krdma_buf_to_cpu(slot->buf);
		krdma_pattern_fill(slot->buf, KRDMA_MSG_HDR_SIZE, pt->size,
				   krdma_seed(pt->test_id, iter + pt->depth));
		krdma_buf_to_device(slot->buf);
		status = 0;
		break;
	case KRDMA_MSG_PING:
		if (pt->op != KRDMA_OP_PING || !krdma_peer_next(pt, iter))
			goto proto;
		slot = &pt->slots[iter % pt->depth];
		if (slot->busy)
			goto proto;
		slot->busy = true;
		slot->iter = iter;
		slot->cqe.done = krdma_peer_read_done;
		/* The slot stayed with the device since setup or the last write. */
		if (krdma_recv_repost(rx) ||
		    krdma_post_rdma(sess, slot->buf,
				    &pt->remote[(iter % pt->depth) * pt->remote_per_slot],
				    pt->remote_per_slot, IB_WR_RDMA_READ,
				    &slot->cqe, 0, true))
			krdma_session_close(sess, "ping: cannot post read");
		return;
	case KRDMA_MSG_TEST_END:
		/* Not while a PING is still being handled (its READ is in flight). */
		for (s = 0; pt->op == KRDMA_OP_PING && s < pt->depth; s++)
			if (pt->slots[s].busy)
				goto proto;
		if (krdma_recv_repost(rx))
			krdma_session_close(sess, "cannot repost receive");
		WRITE_ONCE(pt->ending, true);
		pt->end_iters = iter;
		krdma_perf_peer_quiesce(pt);
		krdma_peer_end_mirror(sess, pt);
		/* The last write-back or PONG to complete ends it otherwise. */
		if (!pt->writes && !krdma_perf_peer_busy(pt))
			krdma_peer_on_end(sess, pt);
		return;
	default:
		goto proto;
	}
	/* Repost before acking: the ack lets the driver send again. */
	if (krdma_recv_repost(rx)) {
		krdma_session_close(sess, "cannot repost receive");
		return;
	}
	krdma_peer_ack(sess, pt, iter, status);
	return;
proto:
	krdma_count(sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
	krdma_session_close(sess, "protocol error: unexpected message type %u",
			    type);
}

/* ------------------------------------------------------------------ */
/* Receive dispatch                                                    */

static void __krdma_test_handle_recv(struct krdma_session *sess,
				     struct krdma_test *test,
				     struct krdma_recv *rx, struct ib_wc *wc)
{
	struct krdma_msg_hdr hdr;
	void *body = NULL;
	u32 len;
	u16 type;

	if (wc->opcode == IB_WC_RECV_RDMA_WITH_IMM) {
		krdma_peer_on_msg(sess, rx, wc, NULL);
		return;
	}
	if (wc->byte_len < sizeof(hdr))
		goto proto;
	krdma_buf_copy_to(&hdr, rx->buf, 0, sizeof(hdr));
	len = be32_to_cpu(hdr.len);
	type = be16_to_cpu(hdr.type);
	if (hdr.flags || len != wc->byte_len - sizeof(hdr))
		goto proto;

	switch (type) {
	case KRDMA_MSG_TEST_REQ:
	case KRDMA_MSG_TEST_ACK:
	case KRDMA_MSG_TEST_RESULT:
		if (len > KRDMA_CTRL_BODY_MAX)
			goto proto;
		body = krdma_failable(kmalloc(max_t(u32, len, 1), GFP_KERNEL));
		if (!body) {
			krdma_session_close(sess, "out of memory");
			return;
		}
		krdma_buf_copy_to(body, rx->buf, sizeof(hdr), len);
		if (krdma_recv_repost(rx)) {
			kfree(body);
			krdma_session_close(sess, "cannot repost receive");
			return;
		}
		if (type == KRDMA_MSG_TEST_REQ) {
			krdma_peer_on_req(sess, &hdr, body, len);
		} else if (!test || test->state != KRDMA_TEST_RUNNING ||
			   be32_to_cpu(hdr.test_id) != test->id) {
			kfree(body);
			goto proto;
		} else if (type == KRDMA_MSG_TEST_ACK) {
			krdma_test_on_ack(test, &hdr, body, len);
		} else {
			krdma_test_on_result(test, &hdr, body, len);
		}
		kfree(body);
		return;
	case KRDMA_MSG_CREDIT:
	case KRDMA_MSG_PONG:
		if (!test || test->state != KRDMA_TEST_RUNNING ||
		    be32_to_cpu(hdr.test_id) != test->id)
			goto proto;
		krdma_perf_on_msg(test, rx, &hdr);
		return;
	case KRDMA_MSG_ITER_ACK:
		if (!test || test->state != KRDMA_TEST_RUNNING ||
		    be32_to_cpu(hdr.test_id) != test->id)
			goto proto;
		if (krdma_recv_repost(rx)) {
			krdma_session_close(sess, "cannot repost receive");
			return;
		}
		krdma_test_on_iter_ack(test, &hdr);
		return;
	default:
		krdma_peer_on_msg(sess, rx, wc, &hdr);
		return;
	}
proto:
	krdma_count(sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
	krdma_session_close(sess, "protocol error: malformed message");
}

/*
 * A message for our test may come late - after it ended, while "test
 * start" replaces it with a new one, which drops the session's reference:
 * the handler holds one of its own (Documentation/design.rst).
 */
static void krdma_test_handle_recv(struct krdma_session *sess,
				   struct krdma_recv *rx, struct ib_wc *wc)
{
	struct krdma_test *test = krdma_test_get_current(sess);

	if (test && READ_ONCE(test->state) != KRDMA_TEST_RUNNING)
		krdma_delay_late_msg();
	__krdma_test_handle_recv(sess, test, rx, wc);
	krdma_test_put(test);
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
	queue_delayed_work(krdma_wq, &test->progress_work,
			   msecs_to_jiffies(test->p.interval_ms));
}

static int krdma_test_check_params(struct krdma_session *sess,
				   struct krdma_test_params *p,
				   struct netlink_ext_ack *extack)
{
	u32 per_iter, nchunks = krdma_chunks_for(sess->kdev, p->size);

	if (krdma_op_is_atomic(p->op) && p->size != sizeof(u64)) {
		NL_SET_ERR_MSG(extack, "atomics operate on 8 bytes: size must be 8");
		return -EINVAL;
	}
	if ((p->op == KRDMA_OP_SEND || p->op == KRDMA_OP_SEND_IMM) &&
	    p->size > sess->max_msg_size) {
		NL_SET_ERR_MSG(extack,
			       "size exceeds the session's max_msg (set at connect)");
		return -EMSGSIZE;
	}
	if ((p->op == KRDMA_OP_READ || p->op == KRDMA_OP_PING ||
	     krdma_op_is_atomic(p->op)) && !sess->initiator_depth) {
		NL_SET_ERR_MSG(extack, "the session negotiated no RDMA READ/atomic credits");
		return -EOPNOTSUPP;
	}
	if (krdma_op_is_atomic(p->op) && sess->kdev->iwarp) {
		NL_SET_ERR_MSG(extack, "iWARP has no RDMA atomics");
		return -EOPNOTSUPP;
	}
	if (krdma_op_has_imm(p->op) && sess->kdev->iwarp) {
		NL_SET_ERR_MSG(extack, "iWARP has no immediate data (send_imm, write_imm)");
		return -EOPNOTSUPP;
	}
	if (krdma_op_is_atomic(p->op) &&
	    sess->kdev->ibdev->attrs.atomic_cap == IB_ATOMIC_NONE) {
		NL_SET_ERR_MSG(extack, "the RDMA device does not support atomics");
		return -EOPNOTSUPP;
	}
	if (p->mode != KRDMA_MODE_CHECK)
		return krdma_perf_check_params(sess, p, extack);
	if (krdma_op_uses_recv(p->op) &&
	    p->depth + KRDMA_RQ_RESERVE > min(sess->rq_depth, sess->peer_rq_depth)) {
		NL_SET_ERR_MSG(extack,
			       "depth exceeds the receive queues (raise rq_depth at connect)");
		return -ENOSPC;
	}
	if (nchunks + 1 > sess->max_sge && p->op != KRDMA_OP_PING &&
	    !krdma_op_is_atomic(p->op)) {
		NL_SET_ERR_MSG(extack, "size needs more SGEs than the device has");
		return -E2BIG;
	}
	/* Worst case work requests in flight: a region per chunk, plus a notice. */
	per_iter = (p->op == KRDMA_OP_WRITE || p->op == KRDMA_OP_READ ||
		    p->op == KRDMA_OP_WRITE_IMM) ? KRDMA_MAX_SLOT_REGIONS + 1 : 1;
	if (p->depth * per_iter + 2 * p->depth * nchunks + 2 > sess->sq_depth) {
		NL_SET_ERR_MSG(extack, "depth too large for the session's send queue");
		return -ENOSPC;
	}
	if (p->op == KRDMA_OP_PING &&
	    2 * p->depth * nchunks > KRDMA_MAX_WIRE_REGIONS) {
		NL_SET_ERR_MSG(extack, "depth x size too large for one test");
		return -E2BIG;
	}
	return 0;
}

static int krdma_test_setup_slots(struct krdma_test *test)
{
	struct krdma_session *sess = test->sess;
	struct krdma_device *kdev = sess->kdev;
	u32 s;
	int ret;

	test->slots = krdma_failable(kcalloc(test->p.depth, sizeof(*test->slots), GFP_KERNEL));
	if (!test->slots)
		return -ENOMEM;
	for (s = 0; s < test->p.depth; s++) {
		struct krdma_slot *slot = &test->slots[s];

		slot->cqe.done = krdma_test_slot_done;
		slot->buf = krdma_buf_alloc(kdev, krdma_slot_len(&test->p),
					    "slot", s);
		if (!slot->buf)
			return -ENOMEM;
		if (test->p.op != KRDMA_OP_PING)
			continue;
		slot->sink = krdma_buf_alloc(kdev, krdma_slot_len(&test->p),
					     "sink", s);
		if (!slot->sink)
			return -ENOMEM;
		slot->reg = krdma_region_create(kdev, slot->buf, KRDMA_MSG_HDR_SIZE,
						test->p.size, IB_ACCESS_REMOTE_READ);
		if (IS_ERR(slot->reg)) {
			ret = PTR_ERR(slot->reg);
			slot->reg = NULL;
			return ret;
		}
		slot->sink_reg = krdma_region_create(kdev, slot->sink,
						     KRDMA_MSG_HDR_SIZE, test->p.size,
						     IB_ACCESS_LOCAL_WRITE |
						     IB_ACCESS_REMOTE_WRITE);
		if (IS_ERR(slot->sink_reg)) {
			ret = PTR_ERR(slot->sink_reg);
			slot->sink_reg = NULL;
			return ret;
		}
	}
	return 0;
}

/* Ping: make our sources and sinks valid, and list them for the peer. */
static int krdma_test_post_regs(struct krdma_test *test,
				struct krdma_msg_test *req, u32 *nregions)
{
	struct krdma_session *sess = test->sess;
	u32 s, pass, n = 0;
	int ret;

	test->ctl_cqe.done = krdma_test_ctl_done;
	ret = krdma_region_post_fence(sess, test->slots[0].reg, &test->ctl_cqe);
	if (ret)
		return ret;
	/* Sources of every slot, then sinks: see struct krdma_msg_test. */
	for (pass = 0; pass < 2; pass++) {
		for (s = 0; s < test->p.depth; s++) {
			struct krdma_slot *slot = &test->slots[s];
			struct krdma_region *reg = pass ? slot->sink_reg : slot->reg;
			int access = pass ? IB_ACCESS_LOCAL_WRITE |
					    IB_ACCESS_REMOTE_WRITE :
					    IB_ACCESS_REMOTE_READ;

			if (n + reg->nmrs > KRDMA_MAX_WIRE_REGIONS)
				return -E2BIG;
			ret = krdma_region_post_reg(sess, reg, &test->ctl_cqe,
						    access);
			if (ret)
				return ret;
			krdma_region_to_wire(reg, &req->regions[n]);
			n += reg->nmrs;
		}
	}
	krdma_count(sess, KRDMA_CNT_REG_MR_WRS, n);
	*nregions = n;
	return 0;
}

/* Read: the slots the READs land in (iWARP: krdma_buf_make_sink()). */
static int krdma_test_post_sinks(struct krdma_test *test)
{
	u32 s;
	int ret;

	test->ctl_cqe.done = krdma_test_ctl_done;
	for (s = 0; s < test->p.depth; s++) {
		ret = krdma_buf_make_sink(test->sess, test->slots[s].buf,
					  &test->ctl_cqe);
		if (ret)
			return ret;
	}
	return 0;
}

/* Called with cm_mutex held: it keeps the queues from being torn down. */
static int __krdma_test_start(struct krdma_session *sess,
			      struct krdma_test_params *p, u32 *test_id,
			      struct netlink_ext_ack *extack)
{
	struct krdma_msg_test *req;
	struct krdma_test *test, *old = NULL;
	u32 nregions = 0;
	int ret;

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
	test->state = KRDMA_TEST_RUNNING;

	lockdep_assert_held(&sess->cm_mutex);
	if (READ_ONCE(sess->state) != KRDMA_SESSION_UP) {
		NL_SET_ERR_MSG(extack, "session is not up");
		ret = -ENOTCONN;
		goto err_free;
	}
	if (sess->test && READ_ONCE(sess->test->state) == KRDMA_TEST_RUNNING) {
		NL_SET_ERR_MSG(extack, "a test is already running on this session");
		ret = -EBUSY;
		goto err_free;
	}
	ret = krdma_test_check_params(sess, p, extack);
	if (ret)
		goto err_free;

	/* Lookups read test->sess as soon as the test is in the table. */
	kref_get(&sess->ref);
	test->sess = sess;
	mutex_lock(&krdma_tests_lock);
	ret = krdma_failable_int(xa_alloc_cyclic(&krdma_tests, &test->id, test,
						 xa_limit_32b,
						 &krdma_test_next_id,
						 GFP_KERNEL));
	mutex_unlock(&krdma_tests_lock);
	if (ret < 0) {
		test->sess = NULL;
		krdma_session_put(sess);	/* the caller holds another */
		goto err_free;
	}

	ret = p->mode == KRDMA_MODE_CHECK ? krdma_test_setup_slots(test) :
	      krdma_perf_setup(test);
	if (ret) {
		NL_SET_ERR_MSG(extack, "cannot allocate the test buffers");
		goto err_test;
	}

	/*
	 * The previous, finished test of this session is replaced; a CQ
	 * handler may still hold it (krdma_test_handle_recv()).
	 */
	spin_lock_bh(&sess->lock);
	old = sess->test;
	sess->test = test;
	spin_unlock_bh(&sess->lock);
	test->progress_jiffies = jiffies;
	if (p->op == KRDMA_OP_PING) {
		ret = krdma_test_post_regs(test, req, &nregions);
	} else if (p->op == KRDMA_OP_READ && !test->perf) {
		ret = krdma_test_post_sinks(test);
	} else if (test->perf) {
		test->ctl_cqe.done = krdma_test_ctl_done;
		ret = krdma_perf_post_regs(test, req, &nregions);
	}
	if (!ret) {
		req->op = p->op;
		req->mode = p->mode;
		req->flags = p->bidir ? KRDMA_TEST_F_BIDIR : 0;
		/* Zero for one, as a peer from before several QPs expects. */
		req->qps = p->qps > 1 ? p->qps : 0;
		req->size = cpu_to_be32(p->size);
		req->depth = cpu_to_be32(p->depth);
		req->nregions = cpu_to_be32(nregions);
		req->count = cpu_to_be64(p->count);
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
	queue_delayed_work(krdma_wq, &test->progress_work,
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

int krdma_test_start(struct krdma_session *sess, struct krdma_test_params *p,
		     u32 *test_id, struct netlink_ext_ack *extack)
{
	int ret;

	mutex_lock(&sess->cm_mutex);
	ret = __krdma_test_start(sess, p, test_id, extack);
	mutex_unlock(&sess->cm_mutex);
	return ret;
}

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

/* Called by session teardown once the QP is drained. */
static void krdma_test_session_down(struct krdma_session *sess)
{
	struct krdma_test *test = sess->test;

	krdma_peer_test_free(sess->peer_test);
	sess->peer_test = NULL;
	WRITE_ONCE(sess->serving_reads, false);
	if (!test)
		return;
	spin_lock_bh(&sess->lock);
	sess->test = NULL;
	spin_unlock_bh(&sess->lock);
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

const struct krdma_session_client krdma_test_session_client = {
	.recv	= krdma_test_handle_recv,
	.down	= krdma_test_session_down,
};

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
