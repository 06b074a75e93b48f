// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: connections through the RDMA connection manager - the active
 * side's connect (resolve address and route, connect, established), and
 * every CM event of a connection (struct krdma_conn: conn 0 or a data
 * channel), on either side, in one handler. The handshake is
 * handshake.c's, listeners listener.c's.
 *
 * A session of several QPs connects conn 0, then one more connection
 * per data channel (conns.c), each carrying the session's cookie; it is
 * up once all of them are. A data channel's credits are negotiated
 * alike, within those of its session.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/genetlink.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include "cm.h"
#include "conn.h"
#include "mem.h"

/*
 * Before route resolution, which turns it into the path's traffic class
 * (RoCE: the IP header's TOS byte of every packet the QP sends) or its
 * service level (IB); the data channels get it too, or a session would
 * travel in two classes.
 */
static void krdma_cm_set_tos(struct krdma_session *sess, struct rdma_cm_id *id)
{
	if (sess->tos >= 0)
		rdma_set_service_type(id, sess->tos);
}

/*
 * Why a connection failed, for the session's reason. @qp names the QP
 * when it is a data channel's ("" for the session's first).
 */
static void krdma_rejected(struct krdma_session *sess, struct rdma_cm_id *id,
			   struct rdma_cm_event *ev, const char *qp)
{
	const struct krdma_cm_reject *rej;
	char vers[40] = "";
	u8 len = 0;
	u16 reason;

	rej = rdma_consumer_reject_data(id, ev, &len);
	if (rej && len >= sizeof(*rej) &&
	    be32_to_cpu(rej->magic) == KRDMA_PROTO_MAGIC) {
		reason = be16_to_cpu(rej->reason);
		if (reason == KRDMA_REJ_VERSION)
			krdma_versions(vers, sizeof(vers), "peer", rej->version);
		krdma_session_close(sess, "%srejected by peer: %s%s", qp,
				    krdma_reject_reason(reason) ?: "unknown reason",
				    vers);
		return;
	}
	if (ev->status == IB_CM_REJ_INVALID_SERVICE_ID)
		krdma_session_close(sess, "%sconnection refused: no listener on that port",
				    qp);
	else
		krdma_session_close(sess, "%srejected: %s", qp,
				    rdma_reject_msg(id, ev->status));
}

/* Every CM event that ends a connection, the session's or a channel's. */
static void krdma_cm_failure(struct krdma_session *sess, struct rdma_cm_id *id,
			     struct rdma_cm_event *ev, const char *qp)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_ERROR:
		krdma_session_close(sess, "%saddress resolution failed: %pe", qp,
				    ERR_PTR(ev->status));
		break;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		krdma_session_close(sess, "%sroute resolution failed: %pe", qp,
				    ERR_PTR(ev->status));
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
		krdma_session_close(sess, "%speer unreachable (%s): %pe", qp,
				    "no krdma listener on that port?",
				    ERR_PTR(ev->status));
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
		krdma_session_close(sess, "%sconnection error: %pe", qp,
				    ERR_PTR(ev->status));
		break;
	case RDMA_CM_EVENT_REJECTED:
		krdma_rejected(sess, id, ev, qp);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		krdma_session_close(sess, "%sdisconnected by peer", qp);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		krdma_session_close(sess, "RDMA device removed");
		break;
	case RDMA_CM_EVENT_ADDR_CHANGE:
		krdma_session_close(sess, "local address changed");
		break;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		break;
	default:
		pr_debug("krdma: session %u: unexpected CM event %s\n",
			 sess->id, rdma_event_msg(ev->event));
		break;
	}
}

/*
 * Address resolution goes in attempts of at most KRDMA_RESOLVE_ATTEMPT_MS
 * within the connect's timeout, as the in-tree ULPs' short resolve
 * timeouts do. ib_core's rdma_resolve_ip() sends the ARP request before
 * it lists the request where the neighbour update's notifier looks: an
 * answer inside that window leaves the request asleep until its own
 * timeout, unless another neighbour changes meanwhile. With one attempt
 * as long as the connect's timeout that lost whole connects (seen after
 * a peer's silence, its neighbour entry FAILED); the next attempt finds
 * the neighbour resolved. Each attempt also asks ARP again, so a peer
 * whose address comes up late is found within the timeout.
 */
#define KRDMA_RESOLVE_ATTEMPT_MS 2000U

/* What is left of the connect's time, in ms (at least 1). */
static unsigned long krdma_connect_left_ms(struct krdma_session *sess)
{
	long left = (long)(sess->connect_deadline - jiffies);

	return max(left > 0 ? jiffies_to_msecs(left) : 0, 1U);
}

static int krdma_resolve_addr(struct krdma_session *sess,
			      struct rdma_cm_id *id, struct sockaddr *src)
{
	return rdma_resolve_addr(id, src, (struct sockaddr *)&sess->peer_addr,
				 min_t(unsigned long, KRDMA_RESOLVE_ATTEMPT_MS,
				       krdma_connect_left_ms(sess)));
}

/*
 * An attempt timed out with time left: true if @conn's id is resolved
 * again (its resolve_again set). Not from its handler:
 * rdma_resolve_addr() on an id that resolved before cancels the last
 * request synchronously, and that request's work is running the handler.
 */
static bool krdma_resolve_later(struct krdma_conn *conn,
				struct rdma_cm_event *ev)
{
	struct krdma_session *sess = conn->sess;

	if (ev->event != RDMA_CM_EVENT_ADDR_ERROR || ev->status != -ETIMEDOUT ||
	    time_after_eq(jiffies, sess->connect_deadline))
		return false;
	conn->resolve_again = true;
	queue_work(krdma_wq, &sess->resolve_work);
	return true;
}

/*
 * The next of the session's ids, from conn *@i on, that an attempt left
 * to resolve again, its flag cleared; NULL when none is, or the session
 * is no longer connecting.
 */
static struct rdma_cm_id *krdma_resolve_next(struct krdma_session *sess,
					     u32 *i)
{
	struct rdma_cm_id *id = NULL;
	struct krdma_conn *conn;

	mutex_lock(&sess->cm_mutex);
	if (READ_ONCE(sess->state) != KRDMA_SESSION_CONNECTING)
		goto out;
	while (!id && *i < sess->qps) {
		conn = sess->conns[(*i)++];
		if (conn && conn->resolve_again) {
			conn->resolve_again = false;
			id = conn->cm_id;
		}
	}
out:
	mutex_unlock(&sess->cm_mutex);
	return id;
}

/**
 * krdma_resolve_work() - resolves again the addresses of timed-out attempts
 * @work: the session's resolve_work
 *
 * Not under cm_mutex: rdma_resolve_addr() on an id that resolved before
 * cancels its last request synchronously (rdma_addr_cancel()), and a
 * request's work runs our CM handler, which takes cm_mutex, under the
 * CM's handler_mutex (lockdep saw cm_mutex -> request work ->
 * handler_mutex -> cm_mutex on the debug kernel). The ids live on:
 * teardown cancels this work before it destroys them.
 */
void krdma_resolve_work(struct work_struct *work)
{
	struct krdma_session *sess = container_of(work, struct krdma_session,
						  resolve_work);
	struct rdma_cm_id *id;
	int ret = 0;
	u32 i = 0;

	while (!ret && (id = krdma_resolve_next(sess, &i))) {
		/* A bound id keeps its source address: src is not looked at. */
		ret = krdma_resolve_addr(sess, id, NULL);
	}
	pr_debug("krdma: session %u: address resolution again: %d\n",
		 sess->id, ret);
	if (ret)
		krdma_session_close(sess, "address resolution failed: %pe",
				    ERR_PTR(ret));
}

/*
 * Conn 0 offers everything the device can, the server lowers it; a data
 * channel offers the credits conn 0 settled on, and names itself.
 */
static int krdma_conn_connect(struct krdma_conn *conn)
{
	struct krdma_session *sess = conn->sess;
	struct rdma_conn_param param = {};
	struct krdma_cm_hello hello;

	krdma_fill_hello(sess, &hello);
	if (!conn->index) {
		krdma_fill_conn_param(&param, &hello,
				      krdma_max_rd_atom(sess->kdev),
				      krdma_max_init_rd_atom(sess->kdev),
				      KRDMA_RNR_RETRY_DEFAULT);
	} else {
		hello.flags |= cpu_to_be16(KRDMA_HELLO_F_CHANNEL);
		hello.channel = conn->index;
		krdma_fill_conn_param(&param, &hello, sess->responder_resources,
				      sess->initiator_depth,
				      KRDMA_RNR_RETRY_DEFAULT);
	}
	return rdma_connect_locked(conn->cm_id, &param);
}

/*
 * The client's conn 0 is connected: one more connection per data
 * channel, from the same source address (so to the same device) to the
 * same peer. Called from conn 0's handler with cm_mutex held.
 */
static int krdma_channels_connect(struct krdma_session *sess)
{
	struct sockaddr_storage src = sess->local_addr;
	struct krdma_conn *conn;
	struct rdma_cm_id *id;
	u32 i;
	int ret;

	/* sin_port and sin6_port share their offset: any source port. */
	((struct sockaddr_in *)&src)->sin_port = 0;
	for (i = 1; i < sess->qps; i++) {
		conn = krdma_conn_new(sess, i);
		if (!conn)
			return -ENOMEM;
		id = krdma_failable_ptr(rdma_create_id(sess->net, krdma_cm_handler,
						       conn, RDMA_PS_TCP,
						       IB_QPT_RC));
		if (IS_ERR(id)) {
			kfree(conn);
			return PTR_ERR(id);
		}
		conn->cm_id = id;
		/* From here teardown destroys it. */
		sess->conns[i] = conn;
		krdma_cm_set_tos(sess, id);
		ret = krdma_cm_set_timers(id, sess->ack_timeout);
		if (!ret)
			ret = krdma_resolve_addr(sess, id, (struct sockaddr *)&src);
		if (ret)
			return ret;
	}
	return 0;
}

static void krdma_client_established(struct krdma_conn *conn,
				     struct rdma_cm_event *ev)
{
	struct krdma_session *sess = conn->sess;
	struct krdma_cm_hello h;
	char vers[40] = "";
	int rej, ret;
	u8 rr, id;

	rej = krdma_check_hello(ev->param.conn.private_data,
				ev->param.conn.private_data_len, &h);
	if (!rej && h.flags)
		rej = KRDMA_REJ_BAD_PARAM;
	if (rej) {
		krdma_count(sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
		if (rej == KRDMA_REJ_VERSION)
			krdma_versions(vers, sizeof(vers), "server",
				       krdma_hello_version(ev->param.conn.private_data));
		krdma_session_close(sess, "bad handshake from server: %s%s",
				    krdma_reject_reason(rej), vers);
		return;
	}
	krdma_take_peer_hello(sess, &h);
	conn->peer_qpn = ev->param.conn.qp_num;
	/* The server's REP gave it our QP: what we asked, if we did. */
	sess->rnr_retry = ev->param.conn.rnr_retry_count;
	krdma_conn_credits(sess->kdev, ev, &rr, &id);
	/*
	 * Never beyond what the server's hello says it takes: siw raises
	 * the server's IRD to our ORD whatever the server accepted.
	 */
	sess->responder_resources = min3(rr, h.max_qp_init_rd_atom,
					 krdma_max_rd_atom(sess->kdev));
	sess->initiator_depth = min3(id, h.max_qp_rd_atom,
				     krdma_max_init_rd_atom(sess->kdev));
	memcpy(&sess->local_addr, &conn->cm_id->route.addr.src_addr,
	       sizeof(sess->local_addr));
	if (h.channels != sess->qps - 1) {
		/* A peer from before data channels answers 0. */
		krdma_session_close(sess, "the peer grants %u QPs, not %u",
				    h.channels + 1, sess->qps);
		return;
	}
	if (sess->qps == 1) {
		krdma_session_set_up(sess);
		return;
	}
	sess->cookie = be32_to_cpu(h.cookie);
	sess->connect_stage = KRDMA_CONNECT_CHANNELS;
	ret = krdma_channels_connect(sess);
	if (ret)
		krdma_session_close(sess, "cannot connect the data channels: %pe",
				    ERR_PTR(ret));
}

/* Client: a data channel is connected; the last one brings the session up. */
static void krdma_channel_established(struct krdma_conn *conn,
				      struct rdma_cm_event *ev)
{
	struct krdma_session *sess = conn->sess;
	struct krdma_cm_hello h;
	int rej;

	rej = krdma_check_hello(ev->param.conn.private_data,
				ev->param.conn.private_data_len, &h);
	if (!rej && (be16_to_cpu(h.flags) != KRDMA_HELLO_F_CHANNEL ||
		     h.channel != conn->index ||
		     be32_to_cpu(h.cookie) != sess->cookie))
		rej = KRDMA_REJ_BAD_PARAM;
	if (rej) {
		krdma_count(sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
		krdma_session_close(sess, "bad handshake from server on data channel %u: %s",
				    conn->index, krdma_reject_reason(rej));
		return;
	}
	conn->peer_qpn = ev->param.conn.qp_num;
	if (++sess->channels_up == sess->qps - 1)
		krdma_session_set_up(sess);
}

/*
 * ESTABLISHED: a client checks the server's answer, conn 0's bringing
 * the data channels up next; a server's conn 0 is up (its data channels
 * are usable once accepted).
 */
static void krdma_conn_established(struct krdma_conn *conn,
				   struct rdma_cm_event *ev)
{
	if (conn->sess->role == KRDMA_ROLE_CLIENT) {
		if (conn->index)
			krdma_channel_established(conn, ev);
		else
			krdma_client_established(conn, ev);
	} else if (!conn->index) {
		krdma_session_set_up(conn->sess);
	}
}

/*
 * Client, ADDR_RESOLVED: the connection's queues on the device found,
 * then the route. @qp names the QP in a reason.
 */
static void krdma_conn_addr_resolved(struct krdma_conn *conn,
				     struct rdma_cm_id *id, const char *qp)
{
	struct krdma_session *sess = conn->sess;
	int ret;

	ret = krdma_conn_create_queues(conn);
	if (ret) {
		krdma_session_close(sess, "%scannot create queues on %s: %pe",
				    qp, dev_name(&id->device->dev),
				    ERR_PTR(ret));
		return;
	}
	if (!conn->index)
		sess->connect_stage = KRDMA_CONNECT_ROUTE;
	ret = rdma_resolve_route(id, krdma_connect_left_ms(sess));
	if (ret)
		krdma_session_close(sess, "%sroute resolution failed: %pe", qp,
				    ERR_PTR(ret));
}

/* Client, ROUTE_RESOLVED: the connect, with the hello. */
static void krdma_conn_route_resolved(struct krdma_conn *conn,
				      const char *qp)
{
	struct krdma_session *sess = conn->sess;
	int ret;

	if (!conn->index)
		sess->connect_stage = KRDMA_CONNECT_REPLY;
	ret = krdma_conn_connect(conn);
	/* iWARP: the TCP connect is made here (siw), and refused. */
	if (ret == -ECONNREFUSED)
		krdma_session_close(sess, "%sconnection refused: no listener on that port",
				    qp);
	else if (ret)
		krdma_session_close(sess, "%sconnect failed: %pe", qp,
				    ERR_PTR(ret));
}

/**
 * krdma_cm_handler() - the CM events of a connection
 * @id: the connection's CM id
 * @ev: the event
 *
 * The CM events of a connection, conn 0 or a data channel, on either
 * side: the id's context is the connection. A server's ids come from a
 * listener and inherit its handler, which hands them on here.
 *
 * Context: the CM's handler context, which may sleep; takes the
 * session's cm_mutex.
 * Return: 0: teardown destroys the id, never the CM.
 */
int krdma_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct krdma_conn *conn = id->context;
	struct krdma_session *sess = conn->sess;
	char qp[32] = "";

	pr_debug("krdma: session %u QP %u: %s (status %d)\n", sess->id,
		 conn->index, rdma_event_msg(ev->event), ev->status);
	/* A reason names a data channel; conn 0's say nothing more. */
	if (conn->index)
		snprintf(qp, sizeof(qp), "data channel %u: ", conn->index);
	mutex_lock(&sess->cm_mutex);
	if (READ_ONCE(sess->state) != KRDMA_SESSION_CONNECTING &&
	    READ_ONCE(sess->state) != KRDMA_SESSION_UP)
		goto out;	/* teardown has started: it owns the id now */

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		krdma_conn_addr_resolved(conn, id, qp);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		krdma_conn_route_resolved(conn, qp);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		krdma_conn_established(conn, ev);
		break;
	default:
		if (!krdma_resolve_later(conn, ev))
			krdma_cm_failure(sess, id, ev, qp);
		break;
	}
out:
	mutex_unlock(&sess->cm_mutex);
	/* Teardown destroys the id; never let the CM do it under us. */
	return 0;
}

/**
 * krdma_connect() - a client session: its connect starts
 * @p: the session's parameters
 * @id: set to the new session's id
 * @extack: why not
 *
 * Returns once address resolution has started; the CM handler goes on
 * from there, and a connect that fails or times out closes the session.
 * A session made that fails here is closed already: teardown frees it.
 *
 * Context: process; it may sleep.
 * Return: 0, or a negative errno.
 */
int krdma_connect(struct krdma_session_params *p, u32 *id,
		  struct netlink_ext_ack *extack)
{
	struct krdma_session *sess;
	struct rdma_cm_id *cm_id;
	int ret;

	sess = krdma_session_alloc(KRDMA_ROLE_CLIENT, p->net, p->name, 0,
				   p->qps, extack);
	if (IS_ERR(sess))
		return PTR_ERR(sess);
	/*
	 * Nothing finds the session until it has its CM id; until then its
	 * teardown, and its CM handler, wait for cm_mutex.
	 */
	mutex_lock(&sess->cm_mutex);
	sess->sq_depth = p->sq_depth;
	sess->rq_depth = p->rq_depth;
	sess->max_msg_size = p->max_msg_size;
	sess->timeout_ms = p->timeout_ms;
	sess->local_addr = p->local_addr;
	sess->peer_addr = p->peer_addr;
	sess->tos = p->tos;
	sess->ack_timeout = krdma_ack_timeout_val(p->ack_timeout);
	sess->rnr_ask = p->rnr_ask;
	sess->max_sge_ask = p->max_sge;

	cm_id = rdma_create_id(p->net, krdma_cm_handler, krdma_ctrl_conn(sess),
			       RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(cm_id)) {
		ret = PTR_ERR(cm_id);
		krdma_session_close(sess, "cannot create CM id: %pe", cm_id);
		goto out;
	}
	krdma_ctrl_conn(sess)->cm_id = cm_id;
	krdma_cm_set_tos(sess, cm_id);
	ret = krdma_cm_set_timers(cm_id, sess->ack_timeout);
	if (ret) {
		krdma_session_close(sess, "cannot set the transport timers: %pe",
				    ERR_PTR(ret));
		goto out;
	}

	sess->connect_stage = KRDMA_CONNECT_ADDR;
	sess->connect_deadline = jiffies + msecs_to_jiffies(p->timeout_ms);
	queue_delayed_work(krdma_wq, &sess->connect_work,
			   msecs_to_jiffies(p->timeout_ms));
	ret = krdma_resolve_addr(sess, cm_id, p->local_addr.ss_family ?
				 (struct sockaddr *)&p->local_addr : NULL);
	if (ret) {
		NL_SET_ERR_MSG(extack,
			       "cannot resolve the address: no route or no RDMA device");
		krdma_session_close(sess, "address resolution failed: %pe",
				    ERR_PTR(ret));
		goto out;
	}
	krdma_session_publish(sess);
	*id = sess->id;
out:
	mutex_unlock(&sess->cm_mutex);
	krdma_session_put(sess);
	return ret;
}

