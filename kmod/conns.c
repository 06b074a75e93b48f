// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: a session's connections - each an RC QP to the peer with its
 * rdma_cm id, its CQ, its post gate and its receives (struct krdma_conn,
 * as rtrs has rtrs_con and nvme-rdma nvme_rdma_queue).
 *
 * One RC QP is one stream of the transport: in order, one requester, one
 * completion queue. A session holds conns[0 .. qps - 1]. Conn 0 carries
 * the control messages, which keeps their order, the keepalive, and the
 * tests of a single QP; it has the session's pool of control buffers
 * (qp.c) and room for every QP's CREDITs. A bw test that wants more of
 * the wire or of the CPUs spreads its messages over the others, the data
 * channels, as rtrs and nvme-rdma spread their queues. Each connection
 * goes through the CM on its own (cm.c connects and accepts it), on the
 * session's device and protection domain, so that the FRWR regions a
 * test registers on conn 0 are valid on every one. With a peer of
 * protocol version 3 a data channel keeps its share of rq_depth
 * receives posted (krdma_channel_nr_recvs()), for the peer's sends and
 * write_imm, and hands what arrives to the peer's test that took them
 * (qp.c, krdma_channel_recv()); an older peer sends one-sided work only
 * (RDMA WRITE, READ, atomics) over it, and it posts no receives.
 *
 * Lifetime: conn 0 is made with the session, the data channels under
 * the session's cm_mutex while it connects. Teardown quiesces them all
 * (conn 0's gate first) before the tests go, frees their queues and
 * destroys their CM ids (on iWARP the other way round); the last
 * reference to the session frees them (session-end.c).
 */
#include <linux/slab.h>

#include "conn.h"
#include "krdma.h"
#include "mem.h"

/* The next connection of @sess made so far, from index *@i on; or NULL. */
static struct krdma_conn *krdma_conn_next(struct krdma_session *sess, u32 *i)
{
	struct krdma_conn *conn;

	while (sess->conns && *i < sess->qps) {
		conn = sess->conns[(*i)++];
		if (conn)
			return conn;
	}
	return NULL;
}

/*
 * The same downwards, from below index *@i (start with sess->qps): the
 * data channels before conn 0, which they depend on.
 */
static struct krdma_conn *krdma_conn_prev(struct krdma_session *sess, u32 *i)
{
	struct krdma_conn *conn;

	while (sess->conns && *i > 0) {
		conn = sess->conns[--(*i)];
		if (conn)
			return conn;
	}
	return NULL;
}

/**
 * krdma_conn_new() - a connection of a session, not yet connected
 * @sess: its session
 * @index: its place in sess->conns: 0, or a data channel's
 *
 * Its fields but the CM id: the caller sets that, and stores it in conns[].
 *
 * Return: the connection, or NULL: out of memory.
 */
struct krdma_conn *krdma_conn_new(struct krdma_session *sess, u32 index)
{
	struct krdma_conn *conn;

	conn = krdma_failable(kzalloc(sizeof(*conn), GFP_KERNEL));
	if (!conn)
		return NULL;
	conn->kind = KRDMA_CM_CONN;
	conn->sess = sess;
	conn->index = index;
	krdma_gate_init(&conn->gate);
	spin_lock_init(&conn->rx_lock);
	spin_lock_init(&conn->hold_lock);
	INIT_DELAYED_WORK(&conn->rnr_work, krdma_conn_rnr_work);
	return conn;
}

/**
 * krdma_conns_alloc() - a session's connections, conn 0 made
 * @sess: the session
 * @qps: its QPs, conn 0 and the data channels
 *
 * The session's array of @qps connections, and conn 0 in it: the data
 * channels are filled in as they connect. On failure the caller frees
 * what there is with krdma_conns_free().
 *
 * Return: 0 or -ENOMEM.
 */
int krdma_conns_alloc(struct krdma_session *sess, u32 qps)
{
	sess->qps = qps;
	sess->conns = krdma_failable(kcalloc(qps, sizeof(*sess->conns),
					     GFP_KERNEL));
	if (!sess->conns)
		return -ENOMEM;
	sess->conns[0] = krdma_conn_new(sess, 0);
	return sess->conns[0] ? 0 : -ENOMEM;
}

/**
 * krdma_channel_nr_recvs() - the receives a data channel keeps posted
 * @peer_proto: the peer's protocol version
 * @rq_depth: the session's receive queue depth
 * @qps: the session's QPs
 *
 * The receives each data channel of a session of @qps QPs keeps posted,
 * with a peer of version @peer_proto: its share of @rq_depth. A test
 * spreads its depth over its QPs, so the session's receive memory
 * doubles at most with its channels instead of growing with each
 * (rq_depth 80 of 1 MiB over 4 QPs: 140 MiB, not 320, under the
 * default max_session_mem_mb of 256). Both sides compute it, the
 * driver from the peer's rq_depth, to size its lanes' windows.
 *
 * Return: how many; 0 where channels post none.
 */
u32 krdma_channel_nr_recvs(u32 peer_proto, u32 rq_depth, u32 qps)
{
	if (peer_proto < 3 || qps <= 1)
		return 0;
	return clamp_t(u32, DIV_ROUND_UP(rq_depth, qps),
		       min_t(u32, rq_depth, KRDMA_CHANNEL_MIN_RECVS), rq_depth);
}

/**
 * krdma_channel_recv_bytes() - what a session's data channels' receives pin
 * @peer_proto: the peer's protocol version
 * @channels: its data channels
 * @rq_depth: the session's receive queue depth
 * @max_msg_size: the largest message a receive takes
 *
 * The receive buffers a session's @channels data channels pin, with a
 * peer of version @peer_proto (listener.c charges them to the peer).
 *
 * Return: bytes.
 */
u64 krdma_channel_recv_bytes(u32 peer_proto, u32 channels, u32 rq_depth,
			     u32 max_msg_size)
{
	return (u64)channels *
	       krdma_channel_nr_recvs(peer_proto, rq_depth, channels + 1) *
	       krdma_buf_bytes(KRDMA_MSG_HDR_SIZE + max_msg_size);
}

/**
 * krdma_conn_free_queues() - frees a connection's queues
 * @conn: the connection
 *
 * Its QP, CQ and receives. The CM id stays (the CM destroys a refused
 * one); on iWARP's teardown it is gone already (krdma_conns_destroy_ids()).
 */
void krdma_conn_free_queues(struct krdma_conn *conn)
{
	if (conn->qp) {
		if (conn->cm_id)
			rdma_destroy_qp(conn->cm_id);
		else
			ib_destroy_qp(conn->qp);
		conn->qp = NULL;
	}
	krdma_cq_free(&conn->cq);
	/* Nor can an RNR hold's end post one (qp.c). */
	cancel_delayed_work_sync(&conn->rnr_work);
	/* Only now can no completion refer to a buffer any more. */
	krdma_recvs_free(conn->recvs, conn->nr_recvs);
	conn->recvs = NULL;
	conn->nr_recvs = 0;
	krdma_mem_uncharge(conn->sess, conn->mem);
	conn->mem = 0;
}

/* What conn 0's queues hold besides its own: the session's device. */
static void krdma_session_put_queues(struct krdma_session *sess)
{
	/* Only now can no completion refer to a control buffer any more. */
	krdma_session_free_buffers(sess);
	if (sess->kdev) {
		krdma_device_put(sess->kdev);
		sess->kdev = NULL;
	}
}

/*
 * Conn 0 comes first, on the device its CM id resolved to, which every
 * data channel must then share: the session's device and sizes, clamped
 * to what the device's queues hold. The control traffic of qps QPs
 * first, the rest to the tests; a device whose queues cannot hold the
 * least of both refuses.
 */
static int krdma_session_size_queues(struct krdma_session *sess)
{
	const struct krdma_caps *caps;
	struct krdma_device *kdev;
	u32 extra;

	kdev = krdma_device_get(krdma_ctrl_conn(sess)->cm_id->device,
				&sess->kdev);
	if (!kdev)
		return -ENODEV;
	caps = &kdev->caps;
	extra = krdma_session_nr_send_wrs(sess->sq_depth, sess->qps) -
		sess->sq_depth + 1;
	if (caps->max_qp_wr < extra + KRDMA_QUEUE_DEPTH_MIN)
		return -ENOSPC;
	sess->sq_depth = min_t(u32, sess->sq_depth, caps->max_qp_wr - extra);
	sess->rq_depth = min_t(u32, sess->rq_depth, caps->max_qp_wr - extra);
	if (krdma_chunks_for(kdev, KRDMA_MSG_HDR_SIZE + sess->max_msg_size) >
	    min_t(u32, caps->max_recv_sge, KRDMA_MAX_SGE))
		return -EMSGSIZE;
	return 0;
}

/*
 * Conn 0's QP: a send queue for the control messages of every QP and
 * the test, as much inline data as the device takes; the session's
 * per-WR limits follow from what the device gave it.
 */
static int krdma_conn0_create_qp(struct krdma_conn *conn,
				 struct ib_qp_init_attr *attr)
{
	struct krdma_session *sess = conn->sess;
	const struct krdma_caps *caps = &sess->kdev->caps;
	int ret;

	attr->cap.max_send_wr = krdma_session_nr_send_wrs(sess->sq_depth,
							  sess->qps);
	attr->cap.max_send_sge = min_t(u32, caps->max_send_sge,
				       sess->max_sge_ask ?: KRDMA_SGE_DEFAULT);
	ret = krdma_caps_create_qp_inline(sess->kdev, conn->cm_id, attr);
	if (ret)
		return ret;
	/* As returned, clamped to what was asked (krdma_caps_create_qp()). */
	sess->max_sge = attr->cap.max_send_sge;
	sess->max_read_sge = clamp_t(u32, caps->max_sge_rd, 1, sess->max_sge);
	sess->max_inline = attr->cap.max_inline_data;
	return 0;
}

/*
 * A data channel's QP: the send queue is the session's size, so that a
 * test fits on every QP alike, with conn 0's per-WR limits.
 */
static int krdma_channel_create_qp(struct krdma_conn *conn,
				   struct ib_qp_init_attr *attr)
{
	struct krdma_session *sess = conn->sess;

	attr->cap.max_send_wr = sess->sq_depth + 1;
	attr->cap.max_send_sge = sess->max_sge;
	attr->cap.max_inline_data = sess->max_inline;
	return krdma_caps_create_qp(sess->kdev, conn->cm_id, attr);
}

/**
 * krdma_conn_create_queues() - a connection's CQ, QP and receives
 * @conn: the connection, its CM id resolved
 *
 * A connection's CQ, QP and receives, on the device its CM id resolved
 * to, every receive posted; conn 0's also the session's device, sizes
 * and control buffers. A data channel's receive queue holds its share
 * of receives if the peer speaks version 3 - else only room for the
 * drain's marker. Called from the CM handler (or a server's connection
 * request) with the session's cm_mutex held; a data channel's once conn
 * 0 is connected: peer_proto is known. On failure nothing is left.
 *
 * Return: 0 or a negative errno.
 */
int krdma_conn_create_queues(struct krdma_conn *conn)
{
	struct krdma_session *sess = conn->sess;
	struct ib_qp_init_attr attr = {};
	u32 nr_recvs, nr_cqe, len;
	char name[24];
	int ret;

	if (!conn->index) {
		ret = krdma_session_size_queues(sess);
		if (ret)
			goto err;
		nr_recvs = krdma_session_nr_recvs(sess->rq_depth, sess->qps);
		/* +1 receive for the drain's marker. */
		nr_cqe = krdma_session_nr_send_wrs(sess->sq_depth, sess->qps) +
			 nr_recvs + 1;
		len = max(sess->max_msg_size, KRDMA_CTRL_BODY_MAX);
		snprintf(name, sizeof(name), "%u", sess->id);
	} else {
		if (!sess->kdev || conn->cm_id->device != sess->kdev->ibdev)
			return -EXDEV;
		nr_recvs = krdma_channel_nr_recvs(sess->peer_proto,
						  sess->rq_depth, sess->qps);
		nr_cqe = sess->sq_depth + nr_recvs + 4;
		len = sess->max_msg_size;
		snprintf(name, sizeof(name), "%u.%u", sess->id, conn->index);
	}
	/* Sessions, and their data channels, spread over the vectors. */
	ret = krdma_cq_create(sess, &conn->cq, nr_cqe, sess->id + conn->index,
			      conn->index, name);
	if (ret)
		goto err;

	attr.event_handler = krdma_qp_event;
	attr.qp_context = conn;
	attr.send_cq = conn->cq.ib;
	attr.recv_cq = conn->cq.ib;
	attr.qp_type = IB_QPT_RC;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.cap.max_recv_wr = nr_recvs + 1;
	/* Every QP takes as many, for buffers of the same size. */
	attr.cap.max_recv_sge = nr_recvs ?
		min_t(u32, sess->kdev->caps.max_recv_sge, KRDMA_RECV_MAX_SGE) : 1;
	ret = conn->index ? krdma_channel_create_qp(conn, &attr) :
			    krdma_conn0_create_qp(conn, &attr);
	if (ret)
		goto err;
	conn->qp = conn->cm_id->qp;

	if (nr_recvs) {
		conn->recvs = krdma_recvs_alloc(conn, nr_recvs,
						KRDMA_MSG_HDR_SIZE + len);
		if (!conn->recvs) {
			ret = -ENOMEM;
			goto err;
		}
		conn->nr_recvs = nr_recvs;
	}
	if (!conn->index) {
		ret = krdma_session_alloc_buffers(sess);
		if (ret)
			goto err;
	}
	/* Posted before the connection is, the QP already in INIT. */
	ret = krdma_recvs_post_all(conn->recvs, conn->nr_recvs);
	if (ret)
		goto err;
	return 0;

err:
	/* Nothing was posted successfully that can complete after a drain. */
	krdma_gate_close(&conn->gate);
	krdma_cq_stop(&conn->cq);
	if (conn->qp)
		ib_drain_qp(conn->qp);
	krdma_conn_free_queues(conn);
	if (!conn->index)
		krdma_session_put_queues(sess);
	krdma_gate_reopen(&conn->gate);
	return ret;
}

/**
 * krdma_conn_set_rx_test() - which peer's test takes a data channel's receives
 * @conn: the data channel
 * @pt: the peer's test that takes them from now on; NULL: none does
 */
void krdma_conn_set_rx_test(struct krdma_conn *conn,
			    struct krdma_peer_test *pt)
{
	spin_lock_bh(&conn->rx_lock);
	conn->rx_test = pt;
	spin_unlock_bh(&conn->rx_lock);
}

/**
 * krdma_conns_quiesce() - teardown's first step over every connection
 * @sess: the session, closing
 *
 * Teardown, first step, with cm_mutex held: nothing posts on any QP of
 * the session any more, every one is disconnected and drained, so that
 * no completion runs once the tests are ended. Conn 0's gate closes
 * first: a data channel's refusing implies it (krdma_test_post_failed()).
 * Its drain comes last: until then a data channel's lane may hand a
 * test's end over to it (refused by the closed gate).
 */
void krdma_conns_quiesce(struct krdma_session *sess)
{
	struct krdma_conn *conn;
	u32 i = 0;

	while ((conn = krdma_conn_next(sess, &i))) {
		krdma_gate_close(&conn->gate);
		/* iWARP: disconnected before drained, or the drain waits. */
		if (conn->cm_id)
			rdma_disconnect(conn->cm_id);
	}
	i = sess->qps;
	while ((conn = krdma_conn_prev(sess, &i))) {
		krdma_cq_stop(&conn->cq);
		if (conn->qp)
			ib_drain_qp(conn->qp);
	}
}

/**
 * krdma_conns_free_queues() - teardown: every connection's queues go
 * @sess: the session, quiesced
 *
 * Teardown, with cm_mutex held (on iWARP after the CM ids): the data
 * channels' queues, then conn 0's and the session's buffers, before the
 * device the channels share with it.
 */
void krdma_conns_free_queues(struct krdma_session *sess)
{
	struct krdma_conn *conn;
	u32 i = sess->qps;

	while ((conn = krdma_conn_prev(sess, &i)))
		krdma_conn_free_queues(conn);
	krdma_session_put_queues(sess);
}

/**
 * krdma_conns_destroy_ids() - teardown: every connection's CM id goes
 * @sess: the session, quiesced
 *
 * Teardown, once the QPs are drained, without cm_mutex: rdma_destroy_id()
 * waits for a running handler of the connection, which takes cm_mutex
 * and then sees the session closing. On iWARP the QPs go after their
 * ids (see krdma_session_close_work()). The id is cleared first: a QP
 * event of a QP that outlives it must not reach it (krdma_qp_event()).
 */
void krdma_conns_destroy_ids(struct krdma_session *sess)
{
	struct rdma_cm_id *id;
	struct krdma_conn *conn;
	u32 i = sess->qps;

	/* The data channels first, conn 0 last. */
	while ((conn = krdma_conn_prev(sess, &i))) {
		id = conn->cm_id;
		WRITE_ONCE(conn->cm_id, NULL);
		if (id)
			rdma_destroy_id(id);
	}
}
