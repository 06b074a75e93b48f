// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: keepalive - whether the peer of an up session still answers, and
 * the end of a session whose peer does not ("peer not responding").
 *
 * A session whose peer dies silently (power loss, a crashed host, a cut
 * link) may never hear of it from the transport: rxe retries for ever with
 * a retry count of 7 (kmod/handshake.c), and a lossy wire wants a short ACK
 * timeout rather than one long enough to tell a dead peer from a lost
 * packet. So liveness is the keepalive's to decide. An up
 * session posts a zero-length probe every keepalive_ms: a SEND, which the
 * peer sees (proto.h), or to a version 1 peer an RDMA WRITE, which needs
 * no rkey and consumes no receive (IBA C9-88). When what it waits for -
 * its probe, or READs of ours, which stand in for it - has had no answer
 * of any kind for peer_timeout_ms, the peer is dead. Any answer counts
 * (krdma_peer_alive()): the peer's own probes arriving, so a side whose
 * probe waits behind megabytes of work on a slow, lossy wire still hears
 * its peer; and a guest that stalls for a few seconds under TCG is not
 * taken for dead. The silence runs from the peer's last answer, so a
 * powered-off peer is found within peer_timeout_ms + keepalive_ms (the
 * next look): 9.5 s by default, READs under way or not. An alive peer
 * answers a probe every keepalive_ms; peer_silence_max says how much of
 * peer_timeout_ms it has used.
 *
 * On iWARP nothing of ours completing is an answer (krdma_peer_acked()):
 * only the peer's messages and READ responses are. There the peer's
 * probe is the answer a WRITE test waits for, and it must not queue
 * behind bulk data: the bw engine keeps its lanes off the session's QP
 * where the session has others, and bounds what it queues there where it
 * has not (krdma_perf_iwarp_ctrl_clear()). The deadline does not grow
 * with the peer's queue: a dead peer is found as soon as on IB.
 */
#include <linux/module.h>

#include "conn.h"
#include "krdma.h"

static unsigned int krdma_keepalive_ms = 500;
module_param_named(keepalive_ms, krdma_keepalive_ms, uint, 0644);
MODULE_PARM_DESC(keepalive_ms,
		 "Probe the peer of an up session this often, in ms (0: never)");

static unsigned int krdma_peer_timeout_ms = 9000;
module_param_named(peer_timeout_ms, krdma_peer_timeout_ms, uint, 0644);
MODULE_PARM_DESC(peer_timeout_ms,
		 "Close a session whose peer answers nothing for this long while the keepalive waits for it, in ms");

/**
 * krdma_keepalive_done() - the completion of a keepalive probe
 * @cq: the session's CQ
 * @wc: the completion, of sess->keepalive_cqe
 *
 * The next probe may go; on IB and RoCE a probe that completed is an
 * answer (krdma_peer_acked()).
 */
void krdma_keepalive_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_session *sess =
		container_of(wc->wr_cqe, struct krdma_session, keepalive_cqe);

	spin_lock_bh(&sess->lock);
	sess->keepalive_posted = false;
	spin_unlock_bh(&sess->lock);
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		krdma_wc_error(sess, wc, "keepalive");
		return;
	}
	krdma_peer_acked(sess);
}

/**
 * krdma_keepalive_arm() - the next look at the peer, keepalive_ms from now
 * @sess: the session, up
 *
 * Nothing with keepalive_ms 0.
 *
 * Context: any; krdma_session_set_up() arms it under @sess->lock.
 */
void krdma_keepalive_arm(struct krdma_session *sess)
{
	unsigned int ms = READ_ONCE(krdma_keepalive_ms);

	if (ms)
		queue_delayed_work(krdma_wq, &sess->keepalive_work,
				   msecs_to_jiffies(ms));
}

/**
 * krdma_keepalive_work() - probes the peer, or ends a silent one's session
 * @work: the session's keepalive_work
 *
 * One probe at a time, and none while READs of ours stand in for it, nor
 * while a test-rnr-hold test of ours keeps the peer's receive queue empty
 * (the probe would wait there behind our SENDs, or fail first). A
 * peer silent for peer_timeout_ms while the keepalive waits for it ends
 * the session; otherwise the work arms itself again.
 */
void krdma_keepalive_work(struct work_struct *work)
{
	struct krdma_session *sess = container_of(to_delayed_work(work),
						  struct krdma_session,
						  keepalive_work);
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe		= &sess->keepalive_cqe,
			.opcode		= sess->peer_proto >= 2 ? IB_WR_SEND :
						  IB_WR_RDMA_WRITE,
			.send_flags	= IB_SEND_SIGNALED,
		},
	};
	unsigned int timeout_ms = READ_ONCE(krdma_peer_timeout_ms);
	bool iwarp = sess->kdev->iwarp, probed = false;
	unsigned long silent = 0;
	int ret = 0;

	spin_lock_bh(&sess->lock);
	if (sess->state != KRDMA_SESSION_UP ||
	    krdma_session_gate_closed(sess)) {
		spin_unlock_bh(&sess->lock);
		return;
	}
	/*
	 * iWARP completes our probe as soon as TCP has it (see
	 * krdma_peer_acked()): there the peer's probes, which arrive every
	 * keepalive_ms whatever we do, are what tells it alive, and the
	 * silence is checked at every turn. Its READ replays are rxe's.
	 * One probe at a time: the QP has one send slot for it. Claimed
	 * before the post, which its completion may overtake.
	 */
	if (!sess->keepalive_posted && !READ_ONCE(sess->rnr_test) &&
	    (iwarp || !atomic_read(&sess->reads_in_flight))) {
		sess->keepalive_posted = true;
		probed = true;
	}
	/*
	 * READs get no longer: their driver sends no probe (its READs'
	 * completions, one a MiB at least, stand in for it), and their
	 * responder's probe waits behind its responses (rxe holds a QP's
	 * requester while 64 of its packets are out), yet the longest wait
	 * for an alive peer measured in lossy-wire.sh and multi-qp.sh, 4-QP
	 * READs included, was 5.2 s at most (peer_silence_max, eight runs
	 * with three guest pairs on a 2-core host). Twice the
	 * timeout, which READs had, was set before READ windows were
	 * bounded in bytes (read_window_kb).
	 */
	if ((!probed || iwarp) && timeout_ms) {
		unsigned long last = READ_ONCE(sess->alive_stamp), now = jiffies;

		if (time_after(now, last + msecs_to_jiffies(timeout_ms)))
			silent = now - last;
	}
	spin_unlock_bh(&sess->lock);
	if (probed)
		ret = krdma_post_send(sess, &wr.wr);
	if (ret) {
		/* Closed meanwhile, or failed: the session ends either way. */
		spin_lock_bh(&sess->lock);
		sess->keepalive_posted = false;
		spin_unlock_bh(&sess->lock);
		if (ret == -ENOTCONN)
			return;
		krdma_session_close(sess, "keepalive post failed (%d)", ret);
		return;
	}
	if (silent) {
		krdma_peer_silence_note(sess, silent);
		krdma_session_close(sess, "peer not responding: no answer for %u ms",
				    jiffies_to_msecs(silent));
		return;
	}
	krdma_keepalive_arm(sess);
}
