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
 * @rwr is set.
 */
int krdma_gated_post(spinlock_t *lock, const bool *dead, struct ib_qp *qp,
		     const struct ib_send_wr *wr, const struct ib_recv_wr *rwr)
{
	const struct ib_send_wr *bad;
	const struct ib_recv_wr *rbad;

	lockdep_assert_held(lock);
	if (*dead)
		return -ENOTCONN;
	return wr ? ib_post_send(qp, wr, &bad) : ib_post_recv(qp, rwr, &rbad);
}

/* Posts on the session's own QP: refused with -ENOTCONN once tearing down. */
int krdma_post_send(struct krdma_session *sess, const struct ib_send_wr *wr)
{
	int ret;

	spin_lock_bh(&sess->lock);
	ret = krdma_gated_post(&sess->lock, &sess->qp_dead, sess->qp, wr, NULL);
	spin_unlock_bh(&sess->lock);
	return ret;
}
