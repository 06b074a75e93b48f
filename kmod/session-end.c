// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: a session's end - how any layer asks for it, and the last
 * reference that frees the session.
 *
 * Everything that finds a session dead - a failed completion or a QP
 * event (qp.c), a silent peer (keepalive.c), the CM, a test, a request -
 * ends it with krdma_session_close(): the first reason wins and is the one
 * reported, and teardown (session.c's close_work) is queued once, through
 * the work item the session was made with. It stands below the session's
 * parts so that each of them can end the session without calling up into
 * the table and the teardown that take them apart.
 */
#include <linux/slab.h>

#include "krdma.h"

/**
 * krdma_conns_free() - frees a session's connections
 * @sess: the session, its last reference going (or its allocation failing)
 *
 * The session's connections, whose queues and CM ids teardown has taken
 * apart (conns.c): with the session's last reference, so that whatever
 * still holds the session may ask conn 0's gate (krdma_session_gate_closed()).
 */
void krdma_conns_free(struct krdma_session *sess)
{
	u32 i;

	for (i = 0; sess->conns && i < sess->qps; i++)
		kfree(sess->conns[i]);
	kfree(sess->conns);
	sess->conns = NULL;
}

static void krdma_session_release(struct kref *ref)
{
	struct krdma_session *sess = container_of(ref, struct krdma_session, ref);

	/* Armed after teardown's cancel, the probe would run on freed memory. */
	WARN_ON_ONCE(delayed_work_pending(&sess->keepalive_work));
	krdma_conns_free(sess);
	krdma_stats_free(&sess->stats);
	kfree(sess);
}

/**
 * krdma_session_put() - drops a reference to a session
 * @sess: the session
 *
 * The last one frees it, its connections and its counters.
 */
void krdma_session_put(struct krdma_session *sess)
{
	kref_put(&sess->ref, krdma_session_release);
}

/**
 * krdma_session_close() - ends a session, with a reason
 * @sess: the session
 * @fmt: the reason, printf-style
 * @...: its arguments
 *
 * Starts teardown once; the first reason given is the one reported.
 * Teardown runs from close_work: nothing here waits for it.
 *
 * Context: any but a hard interrupt (it takes @sess->lock with bottom
 * halves off).
 */
void krdma_session_close(struct krdma_session *sess, const char *fmt, ...)
{
	va_list args;

	spin_lock_bh(&sess->lock);
	if (sess->state == KRDMA_SESSION_CLOSING ||
	    sess->state == KRDMA_SESSION_DOWN) {
		spin_unlock_bh(&sess->lock);
		return;
	}
	if (sess->state == KRDMA_SESSION_CONNECTING)
		krdma_stats_add(&krdma_global_stats, KRDMA_CNT_CONNECT_ERRORS, 1);
	sess->state = KRDMA_SESSION_CLOSING;
	va_start(args, fmt);
	vsnprintf(sess->reason, sizeof(sess->reason), fmt, args);
	va_end(args);
	spin_unlock_bh(&sess->lock);

	kref_get(&sess->ref);
	if (!queue_work(krdma_wq, &sess->close_work))
		krdma_session_put(sess);
}
