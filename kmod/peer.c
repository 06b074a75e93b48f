// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: the responder's guards on a test its peer drives: the memory the
 * test will make it pin, charged against the caps of limits.c before any
 * of it is allocated, and the stall timer that ends a test the peer
 * leaves idle.
 */
#include <linux/mm.h>
#include <linux/workqueue.h>

#include "test.h"

/*
 * The buffers the responder of @pt allocates (krdma_peer_setup(),
 * krdma_perf_peer_setup()) and, for bidir, those of our mirror test
 * (krdma_perf_setup()): checked parameters make this a bound.
 */
u64 krdma_peer_test_bytes(const struct krdma_peer_test *pt)
{
	bool send = pt->op == KRDMA_OP_SEND || pt->op == KRDMA_OP_SEND_IMM;
	u32 len = krdma_op_data_len(pt->op, pt->size);
	u64 bytes;

	switch (pt->mode) {
	case KRDMA_MODE_CHECK:
		/* Sends land in the receive buffers; a slot is header and data. */
		return send ? 0 : pt->depth *
			krdma_buf_bytes(KRDMA_MSG_HDR_SIZE + len);
	case KRDMA_MODE_LAT:
		/* send: the PONG, header and data; write: target and answer. */
		return send ? krdma_buf_bytes(KRDMA_MSG_HDR_SIZE + len) :
			2 * krdma_buf_bytes(len);
	default:
		/* bw: the target of the one-sided ops, nothing for sends. */
		bytes = send ? 0 : krdma_buf_bytes(len);
		if (pt->bidir)
			bytes += krdma_buf_bytes((send ? KRDMA_MSG_HDR_SIZE : 0) + len);
		return bytes;
	}
}

/*
 * The responder's stall timer. A peer that starts a test and then sends
 * nothing more leaves the responder waiting with the test's memory
 * pinned and, for a lat write, a thread polling its target: the test is
 * watched while the responder expects the driver to act, and a test the
 * driver leaves idle for stall_ms closes the session, as the driver's
 * own timer does on the other side (test.c, krdma_test_progress()). The
 * one-sided ops of bw and the atomics are not watched: the responder does
 * not see them (their memory stays within the caps above, and a dead
 * driver is the keepalive's to find).
 */
static bool krdma_peer_watched(const struct krdma_peer_test *pt)
{
	switch (pt->mode) {
	case KRDMA_MODE_CHECK:
		return !krdma_op_is_atomic(pt->op);
	case KRDMA_MODE_LAT:
		return true;	/* a PONG or a write back per iteration */
	default:
		/* bw: the ops that consume our receives. */
		return pt->op == KRDMA_OP_SEND || pt->op == KRDMA_OP_SEND_IMM ||
		       pt->op == KRDMA_OP_WRITE_IMM;
	}
}

static void krdma_peer_stall_work(struct work_struct *work)
{
	struct krdma_peer_test *pt = container_of(to_delayed_work(work),
						  struct krdma_peer_test,
						  stall_work);
	unsigned int ms = READ_ONCE(krdma_stall_ms);
	unsigned long idle = jiffies - READ_ONCE(pt->stamp);

	/* TEST_END came: what is left is ours to do. */
	if (READ_ONCE(pt->ending) || !ms)
		return;
	if (idle < msecs_to_jiffies(ms)) {
		queue_delayed_work(krdma_wq, &pt->stall_work,
				   msecs_to_jiffies(ms) - idle);
		return;
	}
	krdma_count(pt->sess, KRDMA_CNT_RESPONDER_TIMEOUTS, 1);
	krdma_session_close(pt->sess, "peer's test %u stalled for %u ms",
			    pt->test_id, jiffies_to_msecs(idle));
}

/* @pt was accepted: from now on the driver must keep it going. */
void krdma_peer_watch(struct krdma_peer_test *pt)
{
	unsigned int ms = READ_ONCE(krdma_stall_ms);

	if (!ms || !krdma_peer_watched(pt))
		return;
	INIT_DELAYED_WORK(&pt->stall_work, krdma_peer_stall_work);
	pt->watched = true;
	krdma_peer_progress(pt);
	queue_delayed_work(krdma_wq, &pt->stall_work, msecs_to_jiffies(ms));
}

/* Before @pt is freed; the timer only ever closes the session. */
void krdma_peer_unwatch(struct krdma_peer_test *pt)
{
	if (pt->watched)
		cancel_delayed_work_sync(&pt->stall_work);
}
