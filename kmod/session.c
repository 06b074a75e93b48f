// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: sessions - one RC queue pair to a peer krdma, its completion
 * queue, its posted receives and its pool of control message buffers;
 * and, for bw tests over several QPs, its data channels (channel.c).
 *
 * Lifetime: the session table holds one reference until teardown ends.
 * Teardown runs once, from close_work: no more posts, drain the QPs, end
 * the tests, free the queues and destroy the CM ids (on iWARP the other
 * way round), tell userspace.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>

#include "krdma.h"

static DEFINE_XARRAY_ALLOC1(krdma_sessions);
/* Serializes name checks with insertion, and dumps with removal. */
static DEFINE_MUTEX(krdma_sessions_lock);
/* Set once at load, before any session exists (krdma_session_set_client). */
static const struct krdma_session_client *krdma_session_client;

static u32 krdma_session_next_id;

static void krdma_session_close_work(struct work_struct *work);
static void krdma_qp_event_work(struct work_struct *work);

static void krdma_session_connect_timeout(struct work_struct *work)
{
	struct krdma_session *sess = container_of(to_delayed_work(work),
						  struct krdma_session,
						  connect_work);

	if (READ_ONCE(sess->state) == KRDMA_SESSION_CONNECTING)
		krdma_session_close(sess, "connection timed out after %u ms",
				    sess->timeout_ms);
}

static void krdma_session_release(struct kref *ref)
{
	struct krdma_session *sess = container_of(ref, struct krdma_session, ref);

	/* Armed after teardown's cancel, the probe would run on freed memory. */
	WARN_ON_ONCE(delayed_work_pending(&sess->keepalive_work));
	kfree(sess->channels);
	kfree(sess);
}

void krdma_session_put(struct krdma_session *sess)
{
	kref_put(&sess->ref, krdma_session_release);
}

static struct krdma_session *krdma_session_find_name(struct net *net,
						     const char *name)
{
	struct krdma_session *sess;
	unsigned long id;

	lockdep_assert_held(&krdma_sessions_lock);
	xa_for_each(&krdma_sessions, id, sess)
		if (net_eq(sess->net, net) && !strcmp(sess->name, name))
			return sess;
	return NULL;
}

/*
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
 * taken for dead. A powered-off peer is found within keepalive_ms +
 * peer_timeout_ms + keepalive_ms (12 s by default; 22 s while READs are
 * under way, see below).
 *
 * On iWARP nothing of ours completing is an answer (krdma_peer_acked()):
 * only the peer's messages and READ responses are. There the peer's
 * probe is the answer a WRITE test waits for, and it must not queue
 * behind bulk data: the bw engine keeps its lanes off the session's QP
 * where the session has others, and bounds what it queues there where it
 * has not (krdma_perf_iwarp_ctrl_clear()). The deadline does not grow
 * with the peer's queue: a dead peer is found as soon as on IB.
 */
static unsigned int krdma_keepalive_ms = 1000;
module_param_named(keepalive_ms, krdma_keepalive_ms, uint, 0644);
MODULE_PARM_DESC(keepalive_ms,
		 "Probe the peer of an up session this often, in ms (0: never)");

static unsigned int krdma_peer_timeout_ms = 10000;
#define KRDMA_READ_TIMEOUT_FACTOR	2
module_param_named(peer_timeout_ms, krdma_peer_timeout_ms, uint, 0644);
MODULE_PARM_DESC(peer_timeout_ms,
		 "Close a session whose peer answers nothing for this long while the keepalive waits for it, in ms");

static void krdma_keepalive_done(struct ib_cq *cq, struct ib_wc *wc)
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

/*
 * Unsignaled send WRs (the bw and lat engines post many) point here: only
 * an error or a flush completes them on their own.
 */
static void krdma_unsignaled_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_session *sess =
		container_of(wc->wr_cqe, struct krdma_session, unsignaled_cqe);

	krdma_wc_error(sess, wc, "unsignaled send");
}

static void krdma_keepalive_arm(struct krdma_session *sess)
{
	unsigned int ms = READ_ONCE(krdma_keepalive_ms);

	if (ms)
		queue_delayed_work(krdma_wq, &sess->keepalive_work,
				   msecs_to_jiffies(ms));
}

static void krdma_keepalive_work(struct work_struct *work)
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
	if (sess->state != KRDMA_SESSION_UP || sess->qp_dead) {
		spin_unlock_bh(&sess->lock);
		return;
	}
	/*
	 * iWARP completes our probe as soon as TCP has it (see
	 * krdma_peer_acked()): there the peer's probes, which arrive every
	 * keepalive_ms whatever we do, are what tells it alive, and the
	 * silence is checked at every turn. Its READ replays are rxe's.
	 */
	if (!sess->keepalive_posted &&
	    (iwarp || !atomic_read(&sess->reads_in_flight))) {
		/* One probe at a time: the QP has one send slot for it. */
		ret = krdma_gated_post(&sess->lock, &sess->qp_dead, sess->qp,
				       &wr.wr, NULL);
		sess->keepalive_posted = !ret;
		probed = true;
		/* The silence is counted from the probe, not from idle time. */
		if (!iwarp)
			krdma_peer_alive(sess);
	}
	if ((!probed || iwarp) && timeout_ms) {
		/*
		 * READs, ours or the peer's, fill the responder's transmit
		 * queue with their responses, and its probe and its ACKs
		 * wait behind them; on a lossy wire every lost response sends
		 * the rest of the READ again; and the driver of READs sends
		 * no probe (krdma_reads_begin()). lossy-wire.sh and multi-qp.sh
		 * saw more than 6 s without a word from an alive peer on a
		 * loaded host: READs get twice as long.
		 */
		if (atomic_read(&sess->reads_in_flight) ||
		    READ_ONCE(sess->serving_reads))
			timeout_ms *= KRDMA_READ_TIMEOUT_FACTOR;
		if (time_after(jiffies, READ_ONCE(sess->alive_stamp) +
			       msecs_to_jiffies(timeout_ms)))
			silent = jiffies - READ_ONCE(sess->alive_stamp);
	}
	spin_unlock_bh(&sess->lock);
	if (ret) {
		krdma_session_close(sess, "keepalive post failed (%d)", ret);
		return;
	}
	if (silent) {
		krdma_session_close(sess, "peer not responding: no answer for %u ms",
				    jiffies_to_msecs(silent));
		return;
	}
	krdma_keepalive_arm(sess);
}

/* Under the table's lock: the server sessions of listener @listener_id. */
static u32 krdma_listener_sessions(u32 listener_id)
{
	struct krdma_session *sess;
	unsigned long id;
	u32 n = 0;

	lockdep_assert_held(&krdma_sessions_lock);
	xa_for_each(&krdma_sessions, id, sess)
		n += sess->role == KRDMA_ROLE_SERVER &&
		     sess->listener_id == listener_id;
	return n;
}

/*
 * Returns a new session with two references: the table's and the caller's.
 * An empty @name gets "s<id>". The id and the name are taken, but nothing
 * finds the session until krdma_session_publish(): a request that found
 * it half built could close it under the CM handler that builds it.
 *
 * A server session (@listener_id its listener's) counts against the caps
 * of server sessions from here until teardown has freed it: -EMLINK for
 * its listener's, -EUSERS for all listeners'.
 */
struct krdma_session *krdma_session_alloc(enum krdma_session_role role,
					  struct net *net, const char *name,
					  u32 listener_id,
					  struct netlink_ext_ack *extack)
{
	struct krdma_session *sess;
	u32 id;
	int ret;

	sess = krdma_failable(kzalloc(sizeof(*sess), GFP_KERNEL));
	if (!sess)
		return ERR_PTR(-ENOMEM);
	kref_init(&sess->ref);
	spin_lock_init(&sess->lock);
	mutex_init(&sess->cm_mutex);
	INIT_LIST_HEAD(&sess->ctrl_free);
	INIT_WORK(&sess->close_work, krdma_session_close_work);
	INIT_DELAYED_WORK(&sess->connect_work, krdma_session_connect_timeout);
	INIT_DELAYED_WORK(&sess->keepalive_work, krdma_keepalive_work);
	INIT_WORK(&sess->qp_event_work, krdma_qp_event_work);
	sess->keepalive_cqe.done = krdma_keepalive_done;
	sess->unsignaled_cqe.done = krdma_unsignaled_done;
	sess->role = role;
	sess->state = KRDMA_SESSION_CONNECTING;
	sess->tos = -1;
	sess->net = net;

	mutex_lock(&krdma_sessions_lock);
	if (name && *name && krdma_session_find_name(net, name)) {
		NL_SET_ERR_MSG(extack, "a session with this name exists");
		ret = -EEXIST;
		goto err;
	}
	if (role == KRDMA_ROLE_SERVER) {
		ret = krdma_sessions_admit(krdma_listener_sessions(listener_id));
		if (ret)
			goto err;
	}
	ret = krdma_failable_int(xa_alloc_cyclic(&krdma_sessions, &id, sess,
						 xa_limit_32b,
						 &krdma_session_next_id,
						 GFP_KERNEL));
	if (ret < 0)
		goto err;
	if (role == KRDMA_ROLE_SERVER)
		krdma_server_sessions_add(1);
	sess->id = id;
	sess->listener_id = listener_id;
	if (name && *name)
		strscpy(sess->name, name, sizeof(sess->name));
	else
		snprintf(sess->name, sizeof(sess->name), "s%u", id);
	kref_get(&sess->ref);
	mutex_unlock(&krdma_sessions_lock);
	return sess;

err:
	mutex_unlock(&krdma_sessions_lock);
	kfree(sess);
	return ERR_PTR(ret);
}

/*
 * Lets requests find @sess: once its CM id and, on a server, its queues
 * are set, with cm_mutex held, so that a close from then on finds it whole
 * (teardown takes cm_mutex). Teardown removes it from the table.
 *
 * Not under krdma_sessions_lock: the release store is all the lookups
 * need, and the CM handler that publishes holds cm_mutex.
 */
void krdma_session_publish(struct krdma_session *sess)
{
	lockdep_assert_held(&sess->cm_mutex);
	/* What was set before (cookie, listener) is seen by the lookups. */
	smp_store_release(&sess->published, true);
}

/* Under krdma_sessions_lock, which keeps @sess in the table. */
static bool krdma_session_published(struct krdma_session *sess)
{
	lockdep_assert_held(&krdma_sessions_lock);
	/* Pairs with krdma_session_publish(). */
	return smp_load_acquire(&sess->published);
}

/*
 * The server session of listener @listener_id whose first REP carried
 * @cookie: a data channel joins it. Referenced.
 */
struct krdma_session *krdma_session_lookup_cookie(struct net *net,
						  u32 listener_id, u32 cookie)
{
	struct krdma_session *sess, *found = NULL;
	unsigned long id;

	mutex_lock(&krdma_sessions_lock);
	xa_for_each(&krdma_sessions, id, sess) {
		if (krdma_session_published(sess) &&
		    sess->cookie == cookie && cookie &&
		    sess->role == KRDMA_ROLE_SERVER &&
		    sess->listener_id == listener_id && net_eq(sess->net, net)) {
			found = sess;
			kref_get(&found->ref);
			break;
		}
	}
	mutex_unlock(&krdma_sessions_lock);
	return found;
}

/* Finds a session of @net by id, or by name when @name is set; referenced. */
struct krdma_session *krdma_session_lookup(struct net *net, u32 id,
					   const char *name)
{
	struct krdma_session *sess;

	mutex_lock(&krdma_sessions_lock);
	if (name)
		sess = krdma_session_find_name(net, name);
	else
		sess = xa_load(&krdma_sessions, id);
	if (sess && krdma_session_published(sess) && net_eq(sess->net, net))
		kref_get(&sess->ref);
	else
		sess = NULL;
	mutex_unlock(&krdma_sessions_lock);
	return sess;
}

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
		if (READ_ONCE(sess->qp_dead) ||
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

static void krdma_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_recv *rx = container_of(wc->wr_cqe, struct krdma_recv, cqe);
	struct krdma_session *sess = rx->sess;
	u32 len = 0;

	/*
	 * Only what the peer sent is synced: a receive buffer is sized for the
	 * largest message. A WRITE with immediate put its data elsewhere and
	 * nothing here; a failed receive leaves byte_len undefined.
	 */
	if (wc->status == IB_WC_SUCCESS && wc->opcode == IB_WC_RECV)
		len = min(wc->byte_len, rx->buf->len);
	krdma_buf_to_cpu_range(rx->buf, 0, len);
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		krdma_wc_error(sess, wc, "receive");
		return;
	}
	krdma_peer_alive(sess);
	/* The peer's keepalive probe (proto.h): it said all it had to say. */
	if (wc->opcode == IB_WC_RECV && !wc->byte_len &&
	    sess->peer_proto >= 2) {
		if (krdma_recv_repost(rx))
			krdma_session_close(sess, "cannot repost a receive");
		return;
	}
	krdma_count(sess, KRDMA_CNT_BYTES_RX, wc->byte_len);
	krdma_session_client->recv(sess, rx, wc);
}

void krdma_session_set_client(const struct krdma_session_client *client)
{
	krdma_session_client = client;
}

/* Gives @rx back to the device and posts it again. */
int krdma_recv_repost(struct krdma_recv *rx)
{
	struct krdma_session *sess = rx->sess;
	struct ib_sge sge[KRDMA_MAX_SGE];
	struct ib_recv_wr wr = {};
	int n, ret;

	krdma_buf_to_device(rx->buf);
	n = krdma_buf_sges(rx->buf, 0, rx->buf->len, sess->kdev->pd->local_dma_lkey,
			   sge, ARRAY_SIZE(sge));
	if (n < 0)
		return n;
	rx->cqe.done = krdma_recv_done;
	wr.wr_cqe = &rx->cqe;
	wr.sg_list = sge;
	wr.num_sge = n;

	spin_lock_bh(&sess->lock);
	ret = krdma_gated_post(&sess->lock, &sess->qp_dead, sess->qp, NULL, &wr);
	spin_unlock_bh(&sess->lock);
	if (!ret)
		krdma_count(sess, KRDMA_CNT_RECV_WRS, 1);
	return ret;
}

static void krdma_ctrl_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_ctrl_tx *tx =
		container_of(wc->wr_cqe, struct krdma_ctrl_tx, cqe);
	struct krdma_session *sess = tx->sess;

	krdma_buf_to_cpu(tx->buf);
	spin_lock_bh(&sess->lock);
	list_add_tail(&tx->free_node, &sess->ctrl_free);
	spin_unlock_bh(&sess->lock);
	if (unlikely(wc->status != IB_WC_SUCCESS))
		krdma_wc_error(sess, wc, "control send");
	else
		krdma_peer_acked(sess);
}

/* Sends one control message; @status is 0 or a negative errno. */
int krdma_ctrl_send(struct krdma_session *sess, enum krdma_msg_type type,
		    u32 test_id, u64 iter, int status, const void *body,
		    u32 body_len)
{
	struct krdma_msg_hdr hdr = {
		.type	 = cpu_to_be16(type),
		.test_id = cpu_to_be32(test_id),
		.iter	 = cpu_to_be64(iter),
		.len	 = cpu_to_be32(body_len),
		.status	 = cpu_to_be32(-status),
	};
	struct ib_sge sge[KRDMA_MAX_SGE];
	struct ib_send_wr wr = {};
	struct krdma_ctrl_tx *tx;
	int n, ret;

	if (WARN_ON_ONCE(body_len > KRDMA_CTRL_BODY_MAX))
		return -EMSGSIZE;

	spin_lock_bh(&sess->lock);
	tx = list_first_entry_or_null(&sess->ctrl_free, struct krdma_ctrl_tx,
				      free_node);
	if (tx)
		list_del(&tx->free_node);
	spin_unlock_bh(&sess->lock);
	if (!tx)
		return -ENOBUFS;

	krdma_buf_copy_from(tx->buf, 0, &hdr, sizeof(hdr));
	if (body_len)
		krdma_buf_copy_from(tx->buf, sizeof(hdr), body, body_len);
	krdma_buf_to_device(tx->buf);
	n = krdma_buf_sges(tx->buf, 0, sizeof(hdr) + body_len,
			   sess->kdev->pd->local_dma_lkey, sge, ARRAY_SIZE(sge));
	if (n < 0) {
		ret = n;
		goto err;
	}
	tx->cqe.done = krdma_ctrl_send_done;
	wr.wr_cqe = &tx->cqe;
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED;
	wr.sg_list = sge;
	wr.num_sge = n;
	ret = krdma_post_send(sess, &wr);
	if (ret)
		goto err;
	krdma_count(sess, KRDMA_CNT_SEND_WRS, 1);
	krdma_count(sess, KRDMA_CNT_BYTES_TX, sizeof(hdr) + body_len);
	return 0;

err:
	krdma_buf_to_cpu(tx->buf);
	spin_lock_bh(&sess->lock);
	list_add_tail(&tx->free_node, &sess->ctrl_free);
	spin_unlock_bh(&sess->lock);
	return ret;
}

static void krdma_session_free_buffers(struct krdma_session *sess)
{
	u32 i;

	if (sess->recvs) {
		for (i = 0; i < sess->rq_depth; i++)
			krdma_buf_free(sess->recvs[i].buf);
		kfree(sess->recvs);
		sess->recvs = NULL;
	}
	if (sess->ctrl_tx) {
		for (i = 0; i < sess->nr_ctrl_tx; i++)
			krdma_buf_free(sess->ctrl_tx[i].buf);
		kfree(sess->ctrl_tx);
		sess->ctrl_tx = NULL;
	}
	INIT_LIST_HEAD(&sess->ctrl_free);
}

static int krdma_session_alloc_buffers(struct krdma_session *sess)
{
	struct krdma_device *kdev = sess->kdev;
	u32 i;

	sess->recvs = krdma_failable(kcalloc(sess->rq_depth,
					     sizeof(*sess->recvs), GFP_KERNEL));
	sess->ctrl_tx = krdma_failable(kcalloc(KRDMA_CTRL_TX,
					       sizeof(*sess->ctrl_tx),
					       GFP_KERNEL));
	if (!sess->recvs || !sess->ctrl_tx)
		return -ENOMEM;

	for (i = 0; i < sess->rq_depth; i++) {
		struct krdma_recv *rx = &sess->recvs[i];

		rx->sess = sess;
		rx->buf = krdma_buf_alloc(kdev, KRDMA_MSG_HDR_SIZE +
					  max(sess->max_msg_size, KRDMA_CTRL_BODY_MAX),
					  "recv", i);
		if (!rx->buf)
			return -ENOMEM;
	}
	for (i = 0; i < KRDMA_CTRL_TX; i++) {
		struct krdma_ctrl_tx *tx = &sess->ctrl_tx[i];

		tx->sess = sess;
		tx->buf = krdma_buf_alloc(kdev, KRDMA_MSG_HDR_SIZE +
					  KRDMA_CTRL_BODY_MAX, "ctrl_tx", i);
		if (!tx->buf)
			return -ENOMEM;
		sess->nr_ctrl_tx++;
		list_add_tail(&tx->free_node, &sess->ctrl_free);
	}
	return 0;
}

static void krdma_session_destroy_queues(struct krdma_session *sess)
{
	if (sess->qp) {
		/* On iWARP teardown the CM id is gone first (close_work). */
		if (sess->cm_id)
			rdma_destroy_qp(sess->cm_id);
		else
			ib_destroy_qp(sess->qp);
		sess->qp = NULL;
	}
	krdma_cq_free(&sess->cq);
	/* Only now can no completion refer to a buffer any more. */
	krdma_session_free_buffers(sess);
	if (sess->kdev) {
		krdma_device_put(sess->kdev);
		sess->kdev = NULL;
	}
}

/*
 * Asynchronous events of the session's QP and its channels' (@ctx: the
 * session or the channel, told apart by their kind). Counted and logged;
 * one that leaves the QP in the error state ends the session with it, from
 * a work item: the handler may run in interrupt context. Called until the
 * QP is destroyed, which teardown does before it waits for that work.
 */
void krdma_qp_event(struct ib_event *ev, void *ctx)
{
	enum krdma_cm_kind *kind = ctx;
	struct krdma_session *sess;
	struct krdma_channel *ch = NULL;
	struct rdma_cm_id *cm_id;

	if (*kind == KRDMA_CM_CHANNEL) {
		ch = ctx;
		sess = ch->sess;
		cm_id = ch->cm_id;
	} else {
		sess = ctx;
		cm_id = sess->cm_id;
	}
	krdma_count(sess, KRDMA_CNT_QP_EVENTS, 1);
	switch (ev->event) {
	case IB_EVENT_COMM_EST:
		/* A message came before the CM's last word: tell the CM. */
		if (cm_id)
			rdma_notify(cm_id, ev->event);
		fallthrough;
	default:
		/* siw says SQ_DRAINED whenever a flush found work queued. */
		pr_debug("krdma: session %u QP %u: %s\n", sess->id,
			 ev->element.qp->qp_num, ib_event_msg(ev->event));
		break;
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
	case IB_EVENT_PATH_MIG_ERR:
		pr_warn_ratelimited("krdma: session %u QP %u: %s\n", sess->id,
				    ev->element.qp->qp_num,
				    ib_event_msg(ev->event));
		if (cmpxchg(&sess->qp_event, 0, ev->event))
			break;	/* the first one is the reason */
		sess->qp_event_qpn = ev->element.qp->qp_num;
		queue_work(krdma_wq, &sess->qp_event_work);
		break;
	}
}

static void krdma_qp_event_work(struct work_struct *work)
{
	struct krdma_session *sess = container_of(work, struct krdma_session,
						  qp_event_work);

	krdma_session_close(sess, "QP %u: %s", sess->qp_event_qpn,
			    ib_event_msg(sess->qp_event));
}

static int krdma_session_create_qp(struct krdma_session *sess, u32 max_inline,
				   struct ib_qp_init_attr *attr)
{
	const struct ib_device_attr *dattr = &sess->kdev->ibdev->attrs;

	memset(attr, 0, sizeof(*attr));
	attr->event_handler = krdma_qp_event;
	attr->qp_context = sess;
	attr->send_cq = sess->cq.ib;
	attr->recv_cq = sess->cq.ib;
	attr->qp_type = IB_QPT_RC;
	attr->sq_sig_type = IB_SIGNAL_REQ_WR;
	attr->cap.max_send_wr = sess->sq_depth + 2;
	attr->cap.max_recv_wr = sess->rq_depth + 1;
	attr->cap.max_send_sge = min_t(u32, dattr->max_send_sge, KRDMA_MAX_SGE);
	attr->cap.max_recv_sge = min_t(u32, dattr->max_recv_sge, KRDMA_MAX_SGE);
	attr->cap.max_inline_data = max_inline;
	return krdma_failable_int(rdma_create_qp(sess->cm_id, sess->kdev->pd, attr));
}

/*
 * Creates CQ, QP and buffers on the device the CM id is bound to, and posts
 * every receive. Called from the CM handler with cm_mutex held.
 */
int krdma_session_create_queues(struct krdma_session *sess)
{
	struct rdma_cm_id *cm_id = sess->cm_id;
	struct ib_qp_init_attr attr = {};
	const struct ib_device_attr *dattr;
	struct krdma_device *kdev;
	u32 i, nr_cqe;
	char name[16];
	int ret;

	kdev = krdma_device_get(cm_id->device);
	if (!kdev)
		return -ENODEV;
	sess->kdev = kdev;
	dattr = &kdev->ibdev->attrs;

	sess->sq_depth = min_t(u32, sess->sq_depth, dattr->max_qp_wr - 1);
	sess->rq_depth = min_t(u32, sess->rq_depth, dattr->max_qp_wr - 1);
	if (krdma_chunks_for(kdev, KRDMA_MSG_HDR_SIZE + sess->max_msg_size) >
	    min_t(u32, dattr->max_recv_sge, KRDMA_MAX_SGE)) {
		ret = -EMSGSIZE;
		goto err;
	}

	/* +1 on each queue for the drain, +1 send for the keepalive. */
	nr_cqe = sess->sq_depth + sess->rq_depth + 3;
	snprintf(name, sizeof(name), "%u", sess->id);
	/* Sessions, and their channels (channel.c), spread over the vectors. */
	ret = krdma_cq_create(sess, &sess->cq, nr_cqe, sess->id, false, name);
	if (ret)
		goto err;

	ret = krdma_session_create_qp(sess, KRDMA_MAX_INLINE, &attr);
	/* The core has no attribute for it: a device without inline data
	 * refuses the QP.
	 */
	if (ret == -EINVAL)
		ret = krdma_session_create_qp(sess, 0, &attr);
	if (ret)
		goto err;
	sess->qp = cm_id->qp;
	sess->max_sge = attr.cap.max_send_sge;
	sess->max_read_sge = clamp_t(u32, dattr->max_sge_rd, 1, sess->max_sge);
	sess->max_inline = attr.cap.max_inline_data;

	ret = krdma_session_alloc_buffers(sess);
	if (ret)
		goto err;
	for (i = 0; i < sess->rq_depth; i++) {
		ret = krdma_recv_repost(&sess->recvs[i]);
		if (ret)
			goto err;
	}
	return 0;

err:
	/* Nothing was posted successfully that can complete after a drain. */
	spin_lock_bh(&sess->lock);
	sess->qp_dead = true;
	spin_unlock_bh(&sess->lock);
	krdma_cq_stop(&sess->cq);
	if (sess->qp)
		ib_drain_qp(sess->qp);
	krdma_session_destroy_queues(sess);
	spin_lock_bh(&sess->lock);
	sess->qp_dead = false;
	spin_unlock_bh(&sess->lock);
	return ret;
}

/* Tells the events group that @sess went up or down. */
static void krdma_notify_session(struct krdma_session *sess, enum krdma_event ev)
{
	struct sk_buff *msg;
	void *hdr;

	msg = krdma_event_new(ev, &hdr);
	if (!msg)
		return;
	if (krdma_session_fill_id(msg, sess)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	krdma_event_send(sess->net, msg);
}

void krdma_session_set_up(struct krdma_session *sess)
{
	bool up = false;

	spin_lock_bh(&sess->lock);
	if (sess->state == KRDMA_SESSION_CONNECTING) {
		sess->state = KRDMA_SESSION_UP;
		up = true;
		krdma_peer_alive(sess);
		/*
		 * Armed under the lock, while UP: once krdma_session_close()
		 * has made it CLOSING, close_work's cancel is the last word
		 * (armed after it, the probe would run on a freed session).
		 */
		krdma_keepalive_arm(sess);
	}
	spin_unlock_bh(&sess->lock);
	if (!up)
		return;
	krdma_delay_set_up();
	cancel_delayed_work(&sess->connect_work);
	krdma_count(sess, KRDMA_CNT_SESSIONS_OPENED, 1);
	krdma_notify_session(sess, KRDMA_EVENT_SESSION_UP);
}

/* Starts teardown once; the first reason given is the one reported. */
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

static void krdma_session_close_work(struct work_struct *work)
{
	struct krdma_session *sess =
		container_of(work, struct krdma_session, close_work);
	struct rdma_cm_id *cm_id;
	bool iwarp;

	cancel_delayed_work_sync(&sess->connect_work);
	/* State is CLOSING: it does not re-arm. */
	cancel_delayed_work_sync(&sess->keepalive_work);

	mutex_lock(&sess->cm_mutex);
	spin_lock_bh(&sess->lock);
	sess->qp_dead = true;
	spin_unlock_bh(&sess->lock);
	/* A test's messages may be on the channels too. */
	krdma_channels_quiesce(sess);
	if (sess->cm_id)
		rdma_disconnect(sess->cm_id);
	krdma_cq_stop(&sess->cq);
	if (sess->qp)
		ib_drain_qp(sess->qp);
	krdma_delay_teardown();
	/* No completion runs any more: the tests can be ended and freed. */
	krdma_session_client->down(sess);
	/*
	 * iWARP: the CM ids go before the QPs, as nvmet does it. The iWARP
	 * CM holds a reference to a connection's QP until the connection is
	 * closed or its id destroyed, and siw's destroy_qp waits for the
	 * last one: with the QPs destroyed first under cm_mutex, the CM's
	 * ordered work queue sat in a DISCONNECTED handler waiting for
	 * cm_mutex, the close that would drop the reference queued behind
	 * it, and both nodes hung (multi-qp.sh over siw). The IB CM holds no
	 * such reference: there the QPs go first, under cm_mutex.
	 */
	iwarp = sess->kdev && sess->kdev->iwarp;
	if (!iwarp) {
		krdma_channels_free_queues(sess);
		krdma_session_destroy_queues(sess);
	}
	cm_id = sess->cm_id;
	sess->cm_id = NULL;
	mutex_unlock(&sess->cm_mutex);

	/* Wait for running CM handlers, which must not wait for us. */
	krdma_channels_destroy_ids(sess);
	if (cm_id)
		rdma_destroy_id(cm_id);
	if (iwarp) {
		mutex_lock(&sess->cm_mutex);
		krdma_channels_free_queues(sess);
		krdma_session_destroy_queues(sess);
		mutex_unlock(&sess->cm_mutex);
	}
	/* No QP is left to raise an event. */
	cancel_work_sync(&sess->qp_event_work);
	krdma_channels_destroy(sess);
	/* Its buffers are gone, and so is the peer's test (its own charge). */
	krdma_mem_uncharge(sess, atomic64_read(&sess->stats.peer_mem));

	spin_lock_bh(&sess->lock);
	sess->state = KRDMA_SESSION_DOWN;
	spin_unlock_bh(&sess->lock);
	krdma_count(sess, KRDMA_CNT_SESSIONS_CLOSED, 1);
	krdma_notify_session(sess, KRDMA_EVENT_SESSION_DOWN);
	pr_debug("krdma: session %u (%s) down: %s\n", sess->id, sess->name,
		 sess->reason);

	mutex_lock(&krdma_sessions_lock);
	xa_erase(&krdma_sessions, sess->id);
	if (sess->role == KRDMA_ROLE_SERVER)
		krdma_server_sessions_add(-1);
	mutex_unlock(&krdma_sessions_lock);
	krdma_session_put(sess);	/* the table's */
	krdma_session_put(sess);	/* the work's */
}

/* ib_client.remove: every session on @kdev ends before the device goes. */
void krdma_sessions_close_device(struct krdma_device *kdev)
{
	struct krdma_session *sess;
	unsigned long id;

	mutex_lock(&krdma_sessions_lock);
	xa_for_each(&krdma_sessions, id, sess)
		if (READ_ONCE(sess->kdev) == kdev)
			krdma_session_close(sess, "RDMA device %s removed",
					    dev_name(&kdev->ibdev->dev));
	mutex_unlock(&krdma_sessions_lock);
	flush_workqueue(krdma_wq);
}

/*
 * Ends every session of @net and waits for their teardown, which is the
 * last to use @net (its SESSION_DOWN event): see krdma_net_exit().
 */
void krdma_sessions_close_net(struct net *net, const char *reason)
{
	struct krdma_session *sess;
	unsigned long id;

	mutex_lock(&krdma_sessions_lock);
	xa_for_each(&krdma_sessions, id, sess)
		if (net_eq(sess->net, net))
			krdma_session_close(sess, "%s", reason);
	mutex_unlock(&krdma_sessions_lock);
	flush_workqueue(krdma_wq);
}

/* The identity of a session: enough for events, safe under any lock. */
int krdma_session_fill_id(struct sk_buff *skb, struct krdma_session *sess)
{
	enum krdma_session_state state;
	char reason[sizeof(sess->reason)];

	spin_lock_bh(&sess->lock);
	state = sess->state;
	strscpy(reason, sess->reason, sizeof(reason));
	spin_unlock_bh(&sess->lock);

	if (nla_put_u32(skb, KRDMA_A_SESSION_ID, sess->id) ||
	    nla_put_string(skb, KRDMA_A_NAME, sess->name) ||
	    nla_put_u8(skb, KRDMA_A_SESSION_STATE, state) ||
	    nla_put_u8(skb, KRDMA_A_SESSION_ROLE, sess->role))
		return -EMSGSIZE;
	if (reason[0] && nla_put_string(skb, KRDMA_A_REASON, reason))
		return -EMSGSIZE;
	if (krdma_put_addr(skb, KRDMA_A_LOCAL_ADDR, &sess->local_addr) ||
	    krdma_put_addr(skb, KRDMA_A_PEER_ADDR, &sess->peer_addr))
		return -EMSGSIZE;
	/* Set once, while connecting. */
	if (sess->qps && nla_put_u32(skb, KRDMA_A_SESSION_QPS, sess->qps))
		return -EMSGSIZE;
	if (sess->tos >= 0 && nla_put_u8(skb, KRDMA_A_SESSION_TOS, sess->tos))
		return -EMSGSIZE;
	return 0;
}

/*
 * What a session reports while it is up, copied under sess->lock: teardown
 * makes the session CLOSING under that lock before it frees the queues or
 * drops the device, and what is copied was set before it went UP (under
 * the same lock). No cm_mutex: teardown holds that while it drains, and a
 * request must not wait for it under genl_mutex (every other genetlink
 * family would wait too).
 */
struct krdma_session_snap {
	char	dev_name[IB_DEVICE_NAME_MAX];
	u32	qpn;
	u32	peer_qpn;
	u32	sq_depth;
	u32	rq_depth;
	u32	max_msg_size;
	u32	peer_proto;
	u32	max_inline;
	u8	responder_resources;
	u8	initiator_depth;
	u8	cq_poll;
};

static bool krdma_session_snap(struct krdma_session *sess,
			       struct krdma_session_snap *s)
{
	bool up;

	spin_lock_bh(&sess->lock);
	up = sess->state == KRDMA_SESSION_UP;
	if (up) {
		strscpy(s->dev_name, dev_name(&sess->kdev->ibdev->dev),
			sizeof(s->dev_name));
		s->qpn = sess->qp->qp_num;
		s->peer_qpn = sess->peer_qpn;
		s->sq_depth = sess->sq_depth;
		s->rq_depth = sess->rq_depth;
		s->max_msg_size = sess->max_msg_size;
		s->peer_proto = sess->peer_proto;
		s->max_inline = sess->max_inline;
		s->responder_resources = sess->responder_resources;
		s->initiator_depth = sess->initiator_depth;
		s->cq_poll = sess->cq_poll;
	}
	spin_unlock_bh(&sess->lock);
	return up;
}

/* Everything about a session; sleeps on nothing. */
int krdma_session_fill(struct sk_buff *skb, struct krdma_session *sess,
		       bool stats)
{
	struct krdma_session_snap s;
	int ret;

	ret = krdma_session_fill_id(skb, sess);
	if (ret)
		return ret;
	if (sess->role == KRDMA_ROLE_SERVER &&
	    nla_put_u32(skb, KRDMA_A_LISTENER_ID, sess->listener_id))
		return -EMSGSIZE;

	if (krdma_session_snap(sess, &s) &&
	    (nla_put_string(skb, KRDMA_A_DEV_NAME, s.dev_name) ||
	     nla_put_u32(skb, KRDMA_A_SESSION_QPN, s.qpn) ||
	     nla_put_u32(skb, KRDMA_A_SESSION_PEER_QPN, s.peer_qpn) ||
	     nla_put_u8(skb, KRDMA_A_SESSION_RESPONDER_RESOURCES,
			s.responder_resources) ||
	     nla_put_u8(skb, KRDMA_A_SESSION_INITIATOR_DEPTH,
			s.initiator_depth) ||
	     nla_put_u32(skb, KRDMA_A_SESSION_SQ_DEPTH, s.sq_depth) ||
	     nla_put_u32(skb, KRDMA_A_SESSION_RQ_DEPTH, s.rq_depth) ||
	     nla_put_u32(skb, KRDMA_A_SESSION_MAX_MSG_SIZE, s.max_msg_size) ||
	     nla_put_u32(skb, KRDMA_A_SESSION_PEER_PROTO, s.peer_proto) ||
	     nla_put_u32(skb, KRDMA_A_SESSION_MAX_INLINE, s.max_inline) ||
	     nla_put_u8(skb, KRDMA_A_SESSION_CQ_POLL, s.cq_poll)))
		return -EMSGSIZE;
	if (stats)
		return krdma_stats_fill(skb, &sess->stats);
	return 0;
}

static bool krdma_session_visible(void *obj, struct net *net)
{
	struct krdma_session *sess = obj;

	return krdma_session_published(sess) && net_eq(sess->net, net);
}

static int krdma_session_table_fill(struct sk_buff *skb, void *obj)
{
	return krdma_session_fill(skb, obj, true);
}

const struct krdma_nl_table krdma_session_table = {
	.xa		= &krdma_sessions,
	.lock		= &krdma_sessions_lock,
	.visible	= krdma_session_visible,
	.fill		= krdma_session_table_fill,
};
