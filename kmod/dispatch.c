// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: the session's client, which hands each control message received
 * on the session's QP to the side it is for - our test (test.c and its
 * engine) or the peer's (peer.c) - and tells both when the session goes
 * down. qp.c and session.c call up only through it (struct krdma_session_client).
 */
#include <linux/slab.h>

#include "test.h"

static void __krdma_dispatch_recv(struct krdma_session *sess,
				  struct krdma_test *test,
				  struct krdma_recv *rx, struct ib_wc *wc)
{
	struct krdma_msg_hdr hdr;
	void *body = NULL;
	u32 len;
	u16 type;

	if (wc->opcode == IB_WC_RECV_RDMA_WITH_IMM) {
		if (test && krdma_test_accepted(test) && test->engine->on_imm &&
		    be32_to_cpu(wc->ex.imm_data) == (test->id | KRDMA_IMM_ANSWER))
			test->engine->on_imm(test, rx, wc);
		else
			krdma_peer_on_msg(sess, rx, wc, NULL);
		return;
	}
	if (wc->byte_len < sizeof(hdr))
		goto proto;
	krdma_buf_copy_to(&hdr, rx->buf, 0, sizeof(hdr));
	len = be32_to_cpu(hdr.len);
	type = be16_to_cpu(hdr.type);
	/*
	 * A status is 0 or a positive errno: a larger one, negated where it
	 * is reported, would be no errno (2^31 would not even negate).
	 */
	if (hdr.flags || len != wc->byte_len - sizeof(hdr) ||
	    be32_to_cpu(hdr.status) > MAX_ERRNO)
		goto proto;
	/*
	 * A SEND that invalidated a key of ours: only a send-invalidate
	 * test's data may (krdma_peer_handle_msg() checks it is one).
	 */
	if ((wc->wc_flags & IB_WC_WITH_INVALIDATE) && type != KRDMA_MSG_DATA)
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
		} else if (!test || be32_to_cpu(hdr.test_id) != test->id) {
			/* Its phase is checked where it moves the test. */
			kfree(body);
			goto proto;
		} else if (type == KRDMA_MSG_TEST_ACK) {
			krdma_test_on_ack(test, &hdr, body, len);
		} else {
			krdma_test_on_result(test, &hdr, body, len);
		}
		kfree(body);
		return;
	case KRDMA_MSG_ITER_ACK:
	case KRDMA_MSG_CREDIT:
	case KRDMA_MSG_PONG:
		/* The running test's engine: it takes those of its own. */
		if (!test || !krdma_test_accepted(test) ||
		    be32_to_cpu(hdr.test_id) != test->id)
			goto proto;
		test->engine->on_msg(test, rx, &hdr);
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
static void krdma_dispatch_recv(struct krdma_session *sess,
				struct krdma_recv *rx, struct ib_wc *wc)
{
	struct krdma_test *test = krdma_test_get_current(sess);

	if (test && READ_ONCE(test->state) != KRDMA_TEST_RUNNING)
		krdma_delay_late_msg();
	__krdma_dispatch_recv(sess, test, rx, wc);
	krdma_test_put(test);
}

/*
 * A message on a data channel: only the data of the peer's test that took
 * its receives, which the test's engine checks (struct krdma_session_client).
 * Whatever else comes there is a protocol error.
 */
static void krdma_dispatch_channel_recv(struct krdma_conn *conn,
					struct krdma_peer_test *pt,
					struct krdma_recv *rx, struct ib_wc *wc)
{
	struct krdma_session *sess = conn->sess;
	struct krdma_msg_hdr hdr;
	bool imm = wc->opcode == IB_WC_RECV_RDMA_WITH_IMM;

	/* No test sends to invalidate over a data channel. */
	if (!pt || !pt->engine->peer_on_channel_msg ||
	    (wc->wc_flags & IB_WC_WITH_INVALIDATE))
		goto proto;
	if (!imm) {
		if (wc->byte_len < sizeof(hdr))
			goto proto;
		krdma_buf_copy_to(&hdr, rx->buf, 0, sizeof(hdr));
		if (hdr.flags ||
		    be32_to_cpu(hdr.len) != wc->byte_len - sizeof(hdr) ||
		    be16_to_cpu(hdr.type) != KRDMA_MSG_DATA ||
		    be32_to_cpu(hdr.test_id) != pt->test_id)
			goto proto;
	}
	krdma_peer_progress(pt);
	pt->engine->peer_on_channel_msg(conn, pt, rx, wc, imm ? NULL : &hdr);
	return;
proto:
	krdma_count(sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
	krdma_session_close(sess, "protocol error: unexpected message on data channel %u",
			    conn->index);
}

/* Teardown, once the QP is drained: the peer's test first, then ours. */
static void krdma_dispatch_down(struct krdma_session *sess)
{
	krdma_peer_session_down(sess);
	krdma_test_session_down(sess);
}

const struct krdma_session_client krdma_dispatch_client = {
	.recv		= krdma_dispatch_recv,
	.channel_recv	= krdma_dispatch_channel_recv,
	.down		= krdma_dispatch_down,
};
