// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: posting work requests. Every WR the module posts, on a session's
 * QP or a data channel's, goes through krdma_gated_post(), which teardown
 * closes before it drains the QP.
 */
#include "krdma.h"

/*
 * The one place the module posts work requests, on any of its QPs: under
 * the QP's gate @lock (sess->lock, or a channel's ch->lock), and only
 * while *@dead is false. Teardown sets it under the same lock before it
 * drains the QP, so every WR posted at all is ahead of the drain's marker
 * and has completed when ib_drain_qp() returns; a WR posted behind the
 * marker could complete after it, into freed test state. One of @wr and
 * @rwr is set. A send chain refused at its Nth WR went to the QP up to
 * it: *@bad (if not NULL) is the refused one, @wr when nothing was posted.
 */
int krdma_gated_post(spinlock_t *lock, const bool *dead, struct ib_qp *qp,
		     const struct ib_send_wr *wr, const struct ib_recv_wr *rwr,
		     const struct ib_send_wr **bad)
{
	const struct ib_send_wr *sbad = wr;
	const struct ib_recv_wr *rbad;
	int ret;

	lockdep_assert_held(lock);
	if (*dead)
		ret = -ENOTCONN;
	else if (wr)
		ret = ib_post_send(qp, wr, &sbad);
	else
		ret = ib_post_recv(qp, rwr, &rbad);
	if (bad)
		*bad = sbad;
	return ret;
}

/*
 * Posts on the session's own QP: refused with -ENOTCONN once tearing
 * down. On failure, *@some_posted (if not NULL) says whether WRs of the
 * chain ahead of the refused one went to the QP.
 */
int krdma_post_send_chain(struct krdma_session *sess,
			  const struct ib_send_wr *wr, bool *some_posted)
{
	const struct ib_send_wr *bad;
	int ret;

	spin_lock_bh(&sess->lock);
	ret = krdma_gated_post(&sess->lock, &sess->qp_dead, sess->qp, wr, NULL,
			       &bad);
	spin_unlock_bh(&sess->lock);
	if (some_posted)
		*some_posted = ret && bad != wr;
	return ret;
}

int krdma_post_send(struct krdma_session *sess, const struct ib_send_wr *wr)
{
	return krdma_post_send_chain(sess, wr, NULL);
}
