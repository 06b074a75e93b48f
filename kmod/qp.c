// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: what a session's QPs carry - the receives of every connection
 * (conns.c makes the QPs) and each message received, handed up to the
 * session's client (the tests); conn 0's pool of control message
 * buffers and the control messages sent from it; what an asynchronous
 * QP event means for the session (a failed completion: post.c).
 *
 * The QPs are made while the session connects (cm.c) and freed by its
 * teardown (session.c); in between, whatever goes wrong on one ends the
 * session through krdma_session_close(), and never waits for teardown.
 */
#include <linux/slab.h>

#include "conn.h"
#include "krdma.h"
#include "mem.h"

/* Set once at load, before any session exists (krdma_session_set_client). */
const struct krdma_session_client *krdma_session_client;

/**
 * krdma_unsignaled_done() - the completion of an unsignaled send WR
 * @cq: its CQ
 * @wc: the completion, of sess->unsignaled_cqe
 *
 * Unsignaled send WRs (the bw and lat engines post many) point here: only
 * an error or a flush completes them on their own.
 */
void krdma_unsignaled_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_session *sess =
		container_of(wc->wr_cqe, struct krdma_session, unsignaled_cqe);

	krdma_wc_error(sess, wc, "unsignaled send");
}

/*
 * A message arrived on data channel @conn: for the peer's test that took
 * the channel's receives (conns.c). Under rx_lock, so that the test
 * cannot go while its handler runs: its engine lets go of the channel
 * under it (krdma_conn_set_rx_test()) before it frees anything.
 */
static void krdma_channel_recv(struct krdma_conn *conn, struct krdma_recv *rx,
			       struct ib_wc *wc)
{
	krdma_delay_channel_rx();
	spin_lock_bh(&conn->rx_lock);
	krdma_session_client->channel_recv(conn, conn->rx_test, rx, wc);
	spin_unlock_bh(&conn->rx_lock);
}

static void krdma_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_recv *rx = container_of(wc->wr_cqe, struct krdma_recv, cqe);
	struct krdma_conn *conn = rx->conn;
	struct krdma_session *sess = conn->sess;
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
	    sess->peer_proto >= 2 && !conn->index) {
		if (krdma_recv_repost(rx))
			krdma_session_close(sess, "cannot repost a receive");
		return;
	}
	krdma_count(sess, KRDMA_CNT_BYTES_RX, wc->byte_len);
	if (conn->index)
		krdma_channel_recv(conn, rx, wc);
	else
		krdma_session_client->recv(sess, rx, wc);
}

/**
 * krdma_session_set_client() - the layer sessions hand their messages up to
 * @client: the tests' (krdma_dispatch_client)
 *
 * Set once at load, before any session exists.
 */
void krdma_session_set_client(const struct krdma_session_client *client)
{
	krdma_session_client = client;
}

/**
 * krdma_recv_repost() - posts a receive again
 * @rx: the receive, the CPU's
 *
 * Gives @rx back to the device and posts it again, on its QP.
 *
 * Return: 0, -ENOTCONN once its QP's gate is closed, or the post's error.
 */
int krdma_recv_repost(struct krdma_recv *rx)
{
	struct krdma_recv_batch one = {};
	struct krdma_conn *conn = rx->conn;

	if (unlikely(READ_ONCE(conn->rnr_hold))) {
		spin_lock_bh(&conn->hold_lock);
		if (conn->rnr_hold) {
			krdma_recv_hold(&conn->rnr_held, rx);
			/* None posted now: the peer's next SEND is NAKed. */
			if (conn->rnr_held.n == conn->nr_recvs)
				mod_delayed_work(krdma_wq, &conn->rnr_work,
						 msecs_to_jiffies(KRDMA_RNR_HOLD_MS));
			spin_unlock_bh(&conn->hold_lock);
			return 0;
		}
		spin_unlock_bh(&conn->hold_lock);
	}
	krdma_recv_hold(&one, rx);
	return krdma_recv_post_held(&one);
}

/**
 * krdma_conn_rnr_hold() - keeps back the receives @conn completes
 * @conn: the session's QP, for the peer's test-rnr-hold test
 *
 * From now on each receive krdma_recv_repost() would post again is kept
 * back; once none is left posted, KRDMA_RNR_HOLD_MS later, or
 * KRDMA_RNR_HOLD_MAX_MS from now whatever the peer sends, rnr_work posts
 * them all (proto.h, KRDMA_TEST_F_RNR_HOLD). The peer's SENDs meanwhile
 * meet an empty receive queue: receiver-not-ready NAKs, which is the
 * test. Messages of every kind wait alike; only this session's.
 *
 * Context: the session's CQ context, before the TEST_ACK goes.
 */
void krdma_conn_rnr_hold(struct krdma_conn *conn)
{
	spin_lock_bh(&conn->hold_lock);
	conn->rnr_hold = true;
	spin_unlock_bh(&conn->hold_lock);
	mod_delayed_work(krdma_wq, &conn->rnr_work,
			 msecs_to_jiffies(KRDMA_RNR_HOLD_MAX_MS));
}

/**
 * krdma_conn_rnr_work() - the hold is over: the receives kept back go
 * @work: the conn's rnr_work
 *
 * Teardown cancels it before the receives are freed (conns.c); a gate
 * closed meanwhile refuses the post, and the receives stay unposted.
 */
void krdma_conn_rnr_work(struct work_struct *work)
{
	struct krdma_conn *conn = container_of(to_delayed_work(work),
					       struct krdma_conn, rnr_work);
	struct krdma_recv_batch held;
	int ret;

	spin_lock_bh(&conn->hold_lock);
	held = conn->rnr_held;
	conn->rnr_held = (struct krdma_recv_batch){};
	conn->rnr_hold = false;
	spin_unlock_bh(&conn->hold_lock);
	ret = krdma_recv_post_held(&held);
	if (ret && ret != -ENOTCONN)
		krdma_session_close(conn->sess,
				    "cannot post the receives an RNR hold kept back: %pe",
				    ERR_PTR(ret));
}

/**
 * krdma_recv_hold() - gives a receive back to the device, posted later
 * @batch: the receives held so far, all of @rx's QP
 * @rx: the receive, the CPU's
 *
 * Gives @rx back to the device, to be posted with the rest of @batch:
 * the caller knows the peer cannot send into it before then (a CREDIT
 * goes after it, krdma_bw_peer_credit()).
 */
void krdma_recv_hold(struct krdma_recv_batch *batch, struct krdma_recv *rx)
{
	krdma_buf_to_device(rx->buf);
	rx->wr.next = NULL;
	if (batch->last)
		batch->last->next = &rx->wr;
	else
		batch->first = &rx->wr;
	batch->last = &rx->wr;
	batch->n++;
}

/**
 * krdma_recv_post_held() - posts the receives held
 * @batch: what krdma_recv_hold() held
 *
 * Posts what @batch holds, in one chain; it is empty afterwards.
 *
 * Return: as krdma_recv_repost(); 0 for an empty @batch.
 */
int krdma_recv_post_held(struct krdma_recv_batch *batch)
{
	struct krdma_conn *conn;
	int ret;

	if (!batch->n)
		return 0;
	conn = container_of(batch->first, struct krdma_recv, wr)->conn;
	ret = krdma_gate_post(&conn->gate, conn->qp, NULL, batch->first, NULL);
	if (!ret)
		krdma_count(conn->sess, KRDMA_CNT_RECV_WRS, batch->n);
	batch->first = NULL;
	batch->last = NULL;
	batch->n = 0;
	return ret;
}

/**
 * krdma_recvs_alloc() - a connection's receives
 * @conn: the connection, its device known
 * @n: how many
 * @len: the bytes each takes
 *
 * @n receives of @len bytes for @conn, not posted yet.
 *
 * Context: process; it may sleep.
 * Return: the receives, or NULL.
 */
struct krdma_recv *krdma_recvs_alloc(struct krdma_conn *conn, u32 n, u32 len)
{
	struct krdma_session *sess = conn->sess;
	struct krdma_recv *recvs;
	u32 i;

	recvs = krdma_failable(kvcalloc(n, sizeof(*recvs), GFP_KERNEL));
	if (!recvs)
		return NULL;
	for (i = 0; i < n; i++) {
		struct krdma_recv *rx = &recvs[i];
		int nsge;

		rx->conn = conn;
		rx->buf = krdma_buf_alloc_dir(sess->kdev, len, "recv", i,
					      DMA_FROM_DEVICE);
		if (!rx->buf)
			goto err;
		/*
		 * Its SGEs are the device's view (debug_dma checks so): taken
		 * once, and the buffer is the CPU's again until its first post.
		 */
		krdma_buf_to_device(rx->buf);
		nsge = krdma_buf_sges(rx->buf, 0, rx->buf->len,
				      sess->kdev->pd->local_dma_lkey, rx->sge,
				      ARRAY_SIZE(rx->sge));
		krdma_buf_to_cpu(rx->buf);
		if (nsge < 0)
			goto err;
		rx->cqe.done = krdma_recv_done;
		rx->wr.wr_cqe = &rx->cqe;
		rx->wr.sg_list = rx->sge;
		rx->wr.num_sge = nsge;
	}
	return recvs;
err:
	krdma_recvs_free(recvs, n);
	return NULL;
}

/**
 * krdma_recvs_post_all() - posts a new QP's receives
 * @recvs: the receives, from krdma_recvs_alloc()
 * @n: all of them
 *
 * All @n receives of a new QP, in one chain.
 *
 * Return: as krdma_recv_repost().
 */
int krdma_recvs_post_all(struct krdma_recv *recvs, u32 n)
{
	struct krdma_recv_batch all = {};
	u32 i;

	for (i = 0; i < n; i++)
		krdma_recv_hold(&all, &recvs[i]);
	return krdma_recv_post_held(&all);
}

/**
 * krdma_recvs_free() - frees a connection's receives
 * @recvs: the receives, or NULL
 * @n: as many as were asked of krdma_recvs_alloc()
 *
 * Once no completion can refer to them: their QP is destroyed.
 *
 * Context: process; it may sleep.
 */
void krdma_recvs_free(struct krdma_recv *recvs, u32 n)
{
	u32 i;

	if (!recvs)
		return;
	for (i = 0; i < n; i++)
		krdma_buf_free(recvs[i].buf);
	kvfree(recvs);
}

static void krdma_ctrl_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_ctrl_tx *tx =
		container_of(wc->wr_cqe, struct krdma_ctrl_tx, cqe);
	struct krdma_session *sess = tx->sess;

	krdma_buf_to_cpu(tx->buf);
	spin_lock_bh(&sess->ctrl_lock);
	list_add_tail(&tx->free_node, &sess->ctrl_free);
	spin_unlock_bh(&sess->ctrl_lock);
	if (unlikely(wc->status != IB_WC_SUCCESS))
		krdma_wc_error(sess, wc, "control send");
	else
		krdma_peer_acked(sess);
}

/* Sends one control message; @status is 0 or a negative errno. */
static int __krdma_ctrl_send(struct krdma_session *sess,
			     enum krdma_msg_type type, u32 test_id, u64 iter,
			     int status, u8 qp, const void *body, u32 body_len)
{
	struct krdma_msg_hdr hdr = {
		.type	 = cpu_to_be16(type),
		.test_id = cpu_to_be32(test_id),
		.iter	 = cpu_to_be64(iter),
		.len	 = cpu_to_be32(body_len),
		.status	 = cpu_to_be32(-status),
		.qp	 = qp,
	};
	struct ib_sge sge[KRDMA_MAX_SGE];
	struct ib_send_wr wr = {};
	struct krdma_ctrl_tx *tx;
	int n, ret;

	if (WARN_ON_ONCE(body_len > KRDMA_CTRL_BODY_MAX))
		return -EMSGSIZE;

	spin_lock_bh(&sess->ctrl_lock);
	tx = list_first_entry_or_null(&sess->ctrl_free, struct krdma_ctrl_tx,
				      free_node);
	if (tx)
		list_del(&tx->free_node);
	spin_unlock_bh(&sess->ctrl_lock);
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
	spin_lock_bh(&sess->ctrl_lock);
	list_add_tail(&tx->free_node, &sess->ctrl_free);
	spin_unlock_bh(&sess->ctrl_lock);
	return ret;
}

/**
 * krdma_ctrl_send() - sends a control message on conn 0
 * @sess: the session
 * @type: the message's type
 * @test_id: the test it is about
 * @iter: the header's iteration (TEST_END: the count; proto.h)
 * @status: 0 or a negative errno, sent as a positive one
 * @body: what follows the header, or NULL
 * @body_len: its length, at most KRDMA_CTRL_BODY_MAX
 *
 * The buffer comes from the session's pool and goes back to it when the
 * send completes.
 *
 * Context: does not sleep.
 * Return: 0, -ENOBUFS with the pool empty, -EMSGSIZE, -ENOTCONN once
 * tearing down, or the post's error.
 */
int krdma_ctrl_send(struct krdma_session *sess, enum krdma_msg_type type,
		    u32 test_id, u64 iter, int status, const void *body,
		    u32 body_len)
{
	return __krdma_ctrl_send(sess, type, test_id, iter, status, 0, body,
				 body_len);
}

/**
 * krdma_ctrl_send_credit() - sends a bw CREDIT
 * @sess: the session
 * @test_id: the peer's test
 * @qp: the QP whose receives it counts
 * @iter: how many
 *
 * bw: @iter receives reposted so far on QP @qp for the peer's test
 * (proto.h); a peer before version 3 has them on QP 0 only.
 *
 * Return: as krdma_ctrl_send().
 */
int krdma_ctrl_send_credit(struct krdma_session *sess, u32 test_id, u8 qp,
			   u64 iter)
{
	return __krdma_ctrl_send(sess, KRDMA_MSG_CREDIT, test_id, iter, 0, qp,
				 NULL, 0);
}

/**
 * krdma_session_free_buffers() - frees conn 0's pool of control buffers
 * @sess: the session; no send of the pool's is in flight
 *
 * Whatever krdma_session_alloc_buffers() made of it, failed or not.
 *
 * Context: process; it may sleep.
 */
void krdma_session_free_buffers(struct krdma_session *sess)
{
	u32 i;

	if (sess->ctrl_tx) {
		for (i = 0; i < sess->nr_ctrl_tx; i++)
			krdma_buf_free(sess->ctrl_tx[i].buf);
		kfree(sess->ctrl_tx);
		sess->ctrl_tx = NULL;
	}
	sess->nr_ctrl_tx = 0;
	INIT_LIST_HEAD(&sess->ctrl_free);
}

/**
 * krdma_session_alloc_buffers() - conn 0's pool of control buffers
 * @sess: the session, its device and QPs known
 *
 * On failure the caller frees it (krdma_session_free_buffers()).
 *
 * Context: process; it may sleep.
 * Return: 0 or -ENOMEM.
 */
int krdma_session_alloc_buffers(struct krdma_session *sess)
{
	struct krdma_device *kdev = sess->kdev;
	u32 nr_ctrl_tx = KRDMA_CTRL_TX + krdma_session_credits(sess->qps);
	u32 i;

	/* A CREDIT holds its buffer until the peer's ACK: as many more. */
	sess->ctrl_tx = krdma_failable(kcalloc(nr_ctrl_tx,
					       sizeof(*sess->ctrl_tx),
					       GFP_KERNEL));
	if (!sess->ctrl_tx)
		return -ENOMEM;

	for (i = 0; i < nr_ctrl_tx; i++) {
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

/**
 * krdma_qp_event() - an asynchronous event of a session's QP
 * @ev: the event
 * @ctx: the connection whose QP it is
 *
 * Asynchronous events of a session's QPs (@ctx: the connection). Counted
 * and logged; one that leaves the QP in the error state ends the session
 * with it, from a work item: the handler may run in interrupt context.
 * Called until the QP is destroyed, which teardown does before it waits
 * for that work.
 *
 * Context: any, an interrupt too.
 */
void krdma_qp_event(struct ib_event *ev, void *ctx)
{
	struct krdma_conn *conn = ctx;
	struct krdma_session *sess = conn->sess;
	/* Cleared before it is destroyed (krdma_conns_destroy_ids()). */
	struct rdma_cm_id *cm_id = READ_ONCE(conn->cm_id);

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

/**
 * krdma_qp_event_work() - ends a session whose QP failed
 * @work: the session's qp_event_work, queued by krdma_qp_event()
 *
 * The first fatal event is the reason.
 */
void krdma_qp_event_work(struct work_struct *work)
{
	struct krdma_session *sess = container_of(work, struct krdma_session,
						  qp_event_work);

	krdma_session_close(sess, "QP %u: %s", sess->qp_event_qpn,
			    ib_event_msg(sess->qp_event));
}
