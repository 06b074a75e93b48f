// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: posting work requests, and what a failed completion of one
 * means for the session. Every WR the module posts, on any of a
 * session's connections (struct krdma_conn: conn 0 or a data channel),
 * goes through that QP's gate (struct krdma_post_gate), which teardown
 * closes before it drains the QP.
 *
 * A gate's lock covers only posting and closing: the data path never
 * takes the session's lock (sess->lock), which the control path holds
 * for its own state.
 */
#include "conn.h"
#include "krdma.h"

/**
 * krdma_gate_init() - a QP's gate, open
 * @gate: the gate
 */
void krdma_gate_init(struct krdma_post_gate *gate)
{
	spin_lock_init(&gate->lock);
	gate->closed = false;
}

/**
 * krdma_gate_close() - closes a QP's gate, before its drain
 * @gate: the gate
 *
 * From now on every post on the gate's QP is refused with -ENOTCONN.
 * Set under the lock the posts take, so every WR posted at all is ahead
 * of the drain's marker and has completed when ib_drain_qp() returns; a
 * WR posted behind the marker could complete after it, into freed test
 * state.
 */
void krdma_gate_close(struct krdma_post_gate *gate)
{
	spin_lock_bh(&gate->lock);
	gate->closed = true;
	spin_unlock_bh(&gate->lock);
}

/**
 * krdma_gate_reopen() - opens a QP's gate again
 * @gate: the gate
 *
 * A QP whose setup failed and was drained, before it is used again.
 */
void krdma_gate_reopen(struct krdma_post_gate *gate)
{
	spin_lock_bh(&gate->lock);
	gate->closed = false;
	spin_unlock_bh(&gate->lock);
}

/**
 * krdma_gate_post() - posts work requests through a QP's gate
 * @gate: the QP's gate
 * @qp: the QP
 * @wr: send work, or NULL
 * @rwr: receive work, or NULL
 * @bad: the refused send WR, if not NULL
 *
 * The one place the module posts work requests, on any of its QPs. One of
 * @wr and @rwr is set. A send chain refused at its Nth WR went to the QP
 * up to it: *@bad (if not NULL) is the refused one, @wr when nothing was
 * posted.
 *
 * Return: 0, -ENOTCONN once the gate is closed, or the post's error.
 */
int krdma_gate_post(struct krdma_post_gate *gate, struct ib_qp *qp,
		    const struct ib_send_wr *wr, const struct ib_recv_wr *rwr,
		    const struct ib_send_wr **bad)
{
	const struct ib_send_wr *sbad = wr;
	const struct ib_recv_wr *rbad;
	int ret;

	spin_lock_bh(&gate->lock);
	if (gate->closed)
		ret = -ENOTCONN;
	else if (wr)
		ret = ib_post_send(qp, wr, &sbad);
	else
		ret = ib_post_recv(qp, rwr, &rbad);
	spin_unlock_bh(&gate->lock);
	if (bad)
		*bad = sbad;
	return ret;
}

/**
 * krdma_conn_post_send_chain() - posts a chain of send work on a connection
 * @conn: any connection of a session
 * @wr: the chain
 * @some_posted: set on failure, if not NULL
 *
 * Posts send work on @conn, any QP of a session: refused with -ENOTCONN
 * once tearing down. On failure, *@some_posted (if not NULL) says
 * whether WRs of the chain ahead of the refused one went to the QP.
 *
 * Return: 0, -ENOTCONN once tearing down, or the post's error.
 */
int krdma_conn_post_send_chain(struct krdma_conn *conn,
			       const struct ib_send_wr *wr, bool *some_posted)
{
	const struct ib_send_wr *bad;
	int ret;

	ret = krdma_gate_post(&conn->gate, conn->qp, wr, NULL, &bad);
	if (some_posted)
		*some_posted = ret && bad != wr;
	return ret;
}

/**
 * krdma_conn_post_send() - posts send work on a connection
 * @conn: any connection of a session
 * @wr: the work, a chain or one WR
 *
 * Return: as krdma_conn_post_send_chain().
 */
int krdma_conn_post_send(struct krdma_conn *conn, const struct ib_send_wr *wr)
{
	return krdma_conn_post_send_chain(conn, wr, NULL);
}

/**
 * krdma_post_send_chain() - posts a chain of send work on conn 0
 * @sess: the session
 * @wr: the chain
 * @some_posted: set on failure, if not NULL
 *
 * The same on conn 0, which carries the control messages.
 *
 * Return: as krdma_conn_post_send_chain().
 */
int krdma_post_send_chain(struct krdma_session *sess,
			  const struct ib_send_wr *wr, bool *some_posted)
{
	return krdma_conn_post_send_chain(krdma_ctrl_conn(sess), wr,
					  some_posted);
}

/**
 * krdma_post_send() - posts send work on conn 0
 * @sess: the session
 * @wr: the work
 *
 * Return: as krdma_conn_post_send_chain().
 */
int krdma_post_send(struct krdma_session *sess, const struct ib_send_wr *wr)
{
	return krdma_conn_post_send_chain(krdma_ctrl_conn(sess), wr, NULL);
}

/**
 * krdma_wc_error() - a completion failed: the session ends
 * @sess: the session
 * @wc: the completion, its status not IB_WC_SUCCESS
 * @what: the work it completed, for the reason
 *
 * A flush after the gate closed, or before the session is up, ends
 * nothing: the reason is teardown's, or the CM's.
 *
 * Context: any completion handler's, a data channel's softirq too.
 */
void krdma_wc_error(struct krdma_session *sess, struct ib_wc *wc,
		    const char *what)
{
	/*
	 * Flushes are how a draining QP returns its work: not an error. But
	 * a flush nobody asked for means the QP went to the error state on
	 * its own - e.g. the peer broke an access rule on one of our regions
	 * (remote access error at our end) - and nothing will ever complete
	 * again: the session is dead, say so now.
	 */
	if (wc->status == IB_WC_WR_FLUSH_ERR) {
		/*
		 * The rest of the work is flushed too: say it once. Before the
		 * session is up, a flush means the CM is failing the connection
		 * (a REJ, say): its event brings the real reason.
		 */
		if (krdma_session_gate_closed(sess) ||
		    READ_ONCE(sess->state) != KRDMA_SESSION_UP)
			return;
		/*
		 * iWARP: a peer that disconnects closes its TCP connections,
		 * and siw flushes our QP at once (siw_qp_llp_close()), while
		 * the CM's DISCONNECTED comes later through the iWARP CM's
		 * work queue. A QP that fails on its own raises a fatal QP
		 * event first (krdma_qp_event()); without one, the flush is
		 * the connection's end, not an error of ours. The session
		 * ends all the same.
		 */
		if (sess->kdev->iwarp && !READ_ONCE(sess->qp_event)) {
			krdma_session_close(sess, "connection closed: %s flushed",
					    what);
			return;
		}
		krdma_count(sess, KRDMA_CNT_WC_ERRORS, 1);
		krdma_session_close(sess, "queue pair failed: %s flushed", what);
		return;
	}
	krdma_count(sess, KRDMA_CNT_WC_ERRORS, 1);
	krdma_session_close(sess, "%s completion failed: %s (vendor err %u)",
			    what, ib_wc_status_msg(wc->status), wc->vendor_err);
}
