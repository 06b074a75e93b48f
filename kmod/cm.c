// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: connections through the RDMA connection manager - listeners on
 * the passive side, connects on the active side, and every CM event.
 *
 * The handshake rides in the CM private data (struct krdma_cm_hello).
 * READ/atomic credits: the active side offers its device limits, the
 * passive side answers with the lower of its own limits and the offer,
 * and the active side keeps the lower of the answer and its limits. A
 * data channel is answered alike, within the credits of its session.
 *
 * A session of several QPs connects its first QP as above, then one more
 * connection per data channel (channel.c), each carrying the session's
 * cookie; it is up once all of them are.
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

#include "krdma.h"

/*
 * What a lost packet costs: the transport waits 4.096 us x 2^ack_timeout
 * for an ACK before it sends again. 18 (1.07 s) by default: with 14
 * (67 ms, perftest's) and 16 (268 ms), rxe on 6.1 failed QPs with "remote
 * invalid request" on a loaded TCG host, whose vCPUs stall for longer than
 * that and make retransmissions spurious (multi-qp.sh, peer-death.sh's
 * 4-QP WRITE round; never with 18). That is rxe's requester losing its
 * place: two spurious timeouts in a row can make it resend a multi-packet
 * message's rest as a zero-length WRITE at the next message's PSN, and
 * the responder NAKs the shifted stream (design.rst, "Dead peers";
 * tests/repro/rxe-ack-timeout.sh; 6.12 too). No WR pattern krdma could
 * choose avoids it. On a wire that drops packets (soft-RoCE has no PFC)
 * 18 costs a second a lost packet, a tenth of perftest's bandwidth at 1%
 * loss: set ack_timeout=14 there (lossy-wire.sh does).
 *
 * The transport is not what finds a dead peer: the session keepalive is
 * (session.c, peer_timeout_ms), so the retry count is the most there is.
 * rxe takes 7 for "retry for ever" (rxe_comp.c, as IB does for RNR), so a
 * guest stalled for seconds under TCG costs retransmissions, not the
 * session; a device that counts 7 retries gives up after 8 timeouts of
 * silence, which on real hardware only a dead or cut-off peer causes.
 * Receiver-not-ready NAKs are retried KRDMA_CM_RNR_RETRY times (7 would
 * be for ever).
 */
static unsigned int krdma_ack_timeout = 18;
module_param_named(ack_timeout, krdma_ack_timeout, uint, 0644);
MODULE_PARM_DESC(ack_timeout,
		 "Transport ACK timeout of new connections: 4.096 us x 2^N (8..31)");

static u8 krdma_ack_timeout_val(void)
{
	return clamp_t(unsigned int, READ_ONCE(krdma_ack_timeout), 8, 31);
}

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

#define KRDMA_CM_RETRY_COUNT	7
#define KRDMA_CM_RNR_RETRY	6
#define KRDMA_LISTEN_BACKLOG	128

/*
 * Caps the READ/atomic credits this side offers or accepts below what the
 * device allows: lets a test see negotiation pick the lower of two sides.
 */
static unsigned int krdma_rd_atom_limit;
module_param_named(rd_atom_limit, krdma_rd_atom_limit, uint, 0644);
MODULE_PARM_DESC(rd_atom_limit,
		 "Most RDMA READ/atomic operations in flight to offer or accept (0: device limit)");

static DEFINE_XARRAY_ALLOC1(krdma_listeners);
static DEFINE_MUTEX(krdma_listeners_lock);
static u32 krdma_listener_next_id;

static const char *const krdma_reject_reasons[] = {
	[KRDMA_REJ_NOT_KRDMA]		= "not a krdma peer",
	[KRDMA_REJ_VERSION]		= "protocol version not supported",
	[KRDMA_REJ_BAD_PARAM]		= "connection parameters out of range",
	[KRDMA_REJ_NO_RESOURCES]	= "peer out of resources",
	[KRDMA_REJ_SHUTDOWN]		= "peer shutting down",
	[KRDMA_REJ_NO_SESSION]		= "no such session for a data channel",
	[KRDMA_REJ_TOO_MANY_SESSIONS]	= "peer has too many sessions",
	[KRDMA_REJ_MEM_LIMIT]		= "over the peer's memory limit",
};

/* What this side can take as a responder, and issue as an initiator. */
static u8 krdma_limit(u32 dev_limit)
{
	u32 limit = READ_ONCE(krdma_rd_atom_limit);

	if (limit && limit < dev_limit)
		dev_limit = limit;
	return min_t(u32, dev_limit, U8_MAX);
}

static u8 krdma_max_rd_atom(struct ib_device *ibdev)
{
	return krdma_limit(ibdev->attrs.max_qp_rd_atom);
}

static u8 krdma_max_init_rd_atom(struct ib_device *ibdev)
{
	return krdma_limit(ibdev->attrs.max_qp_init_rd_atom);
}

static void krdma_fill_hello(struct krdma_session *sess,
			     struct krdma_cm_hello *hello)
{
	struct ib_device *ibdev = sess->kdev->ibdev;

	memset(hello, 0, sizeof(*hello));
	hello->magic = cpu_to_be32(KRDMA_PROTO_MAGIC);
	hello->version = cpu_to_be16(KRDMA_PROTO_VERSION);
	hello->sq_depth = cpu_to_be16(sess->sq_depth);
	hello->rq_depth = cpu_to_be16(sess->rq_depth);
	hello->max_msg_size = cpu_to_be32(sess->max_msg_size);
	hello->max_qp_rd_atom = krdma_max_rd_atom(ibdev);
	hello->max_qp_init_rd_atom = krdma_max_init_rd_atom(ibdev);
	hello->channels = sess->qps - 1;
	hello->cookie = cpu_to_be32(sess->cookie);
}

/* Checks a peer's hello; returns 0 or an enum krdma_reject_reason. */
static int krdma_check_hello(const void *data, u8 len,
			     struct krdma_cm_hello *out)
{
	const struct krdma_cm_hello *h = data;
	u32 sq, rq, msg;

	if (!data || len < sizeof(*h) || be32_to_cpu(h->magic) != KRDMA_PROTO_MAGIC)
		return KRDMA_REJ_NOT_KRDMA;
	if (be16_to_cpu(h->version) < KRDMA_PROTO_VERSION_MIN ||
	    be16_to_cpu(h->version) > KRDMA_PROTO_VERSION)
		return KRDMA_REJ_VERSION;
	sq = be16_to_cpu(h->sq_depth);
	rq = be16_to_cpu(h->rq_depth);
	msg = be32_to_cpu(h->max_msg_size);
	if ((be16_to_cpu(h->flags) & ~KRDMA_HELLO_F_CHANNEL) ||
	    sq < KRDMA_QUEUE_DEPTH_MIN || sq > KRDMA_QUEUE_DEPTH_MAX ||
	    rq < KRDMA_QUEUE_DEPTH_MIN || rq > KRDMA_QUEUE_DEPTH_MAX ||
	    !msg || msg > KRDMA_MSG_SIZE_MAX || h->channels >= KRDMA_QPS_MAX)
		return KRDMA_REJ_BAD_PARAM;
	if ((be16_to_cpu(h->flags) & KRDMA_HELLO_F_CHANNEL) &&
	    (!h->channel || h->channel > h->channels))
		return KRDMA_REJ_BAD_PARAM;
	*out = *h;
	return 0;
}

/*
 * " (peer 3, here 1..2)": the versions of a KRDMA_REJ_VERSION, for the
 * messages, so that a module of another version says which.
 */
static void krdma_versions(char *buf, size_t len, const char *who, __be16 v)
{
	snprintf(buf, len, " (%s %u, here %u..%u)", who, be16_to_cpu(v),
		 KRDMA_PROTO_VERSION_MIN, KRDMA_PROTO_VERSION);
}

/* The version of a hello refused as KRDMA_REJ_VERSION (magic, length good). */
static __be16 krdma_hello_version(const void *data)
{
	return ((const struct krdma_cm_hello *)data)->version;
}

static void krdma_take_peer_hello(struct krdma_session *sess,
				  const struct krdma_cm_hello *h)
{
	sess->peer_proto = be16_to_cpu(h->version);
	sess->peer_sq_depth = be16_to_cpu(h->sq_depth);
	sess->peer_rq_depth = be16_to_cpu(h->rq_depth);
	sess->peer_max_msg_size = be32_to_cpu(h->max_msg_size);
}

static void krdma_reject(struct rdma_cm_id *id, enum krdma_reject_reason reason)
{
	struct krdma_cm_reject rej = {
		.magic	 = cpu_to_be32(KRDMA_PROTO_MAGIC),
		.version = cpu_to_be16(KRDMA_PROTO_VERSION),
		.reason	 = cpu_to_be16(reason),
	};

	krdma_stats_add(&krdma_global_stats, KRDMA_CNT_REJECTS_SENT, 1);
	rdma_reject(id, &rej, sizeof(rej), IB_CM_REJ_CONSUMER_DEFINED);
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
				    reason < ARRAY_SIZE(krdma_reject_reasons) &&
				    krdma_reject_reasons[reason] ?
				    krdma_reject_reasons[reason] : "unknown reason", vers);
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
 * The READ/atomic credits of a connection event in our perspective: @rr
 * the peer may have in flight to us, @id we may have in flight to it.
 * The IB CM swaps the peer's values into ours; the iWARP CM hands on the
 * IRD as initiator_depth and the ORD as responder_resources
 * (cma_iw_handler(), iw_conn_req_handler()), which reads the other way.
 */
static void krdma_conn_credits(struct krdma_device *kdev,
			       const struct rdma_cm_event *ev, u8 *rr, u8 *id)
{
	*rr = ev->param.conn.responder_resources;
	*id = ev->param.conn.initiator_depth;
	if (kdev->iwarp)
		swap(*rr, *id);
}

static void krdma_fill_conn_param(struct rdma_conn_param *param,
				  struct krdma_cm_hello *hello,
				  u8 responder_resources, u8 initiator_depth)
{
	param->private_data = hello;
	param->private_data_len = sizeof(*hello);
	param->responder_resources = responder_resources;
	param->initiator_depth = initiator_depth;
	param->flow_control = 1;
	param->retry_count = KRDMA_CM_RETRY_COUNT;
	param->rnr_retry_count = KRDMA_CM_RNR_RETRY;
}

static int krdma_client_connect(struct krdma_session *sess)
{
	struct ib_device *ibdev = sess->kdev->ibdev;
	struct rdma_conn_param param = {};
	struct krdma_cm_hello hello;

	krdma_fill_hello(sess, &hello);
	/* Offer everything the device can; the server lowers it. */
	krdma_fill_conn_param(&param, &hello, krdma_max_rd_atom(ibdev),
			      krdma_max_init_rd_atom(ibdev));
	return rdma_connect_locked(sess->cm_id, &param);
}

static int krdma_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);

/*
 * The client's first QP is connected: one more connection per data
 * channel, from the same source address (so to the same device) to the
 * same peer. Called from the first QP's handler with cm_mutex held.
 */
static int krdma_channels_connect(struct krdma_session *sess)
{
	struct sockaddr_storage src = sess->local_addr;
	struct krdma_channel *ch;
	struct rdma_cm_id *id;
	u32 i;
	int ret;

	/* sin_port and sin6_port share their offset: any source port. */
	((struct sockaddr_in *)&src)->sin_port = 0;
	for (i = 1; i < sess->qps; i++) {
		ch = krdma_channel_new(sess, i);
		if (!ch)
			return -ENOMEM;
		id = krdma_failable_ptr(rdma_create_id(sess->net, krdma_cm_handler,
						       ch, RDMA_PS_TCP, IB_QPT_RC));
		if (IS_ERR(id)) {
			kfree(ch);
			return PTR_ERR(id);
		}
		ch->cm_id = id;
		/* From here teardown destroys it. */
		sess->channels[i - 1] = ch;
		krdma_cm_set_tos(sess, id);
		ret = rdma_set_ack_timeout(id, krdma_ack_timeout_val());
		if (!ret)
			ret = rdma_resolve_addr(id, (struct sockaddr *)&src,
						(struct sockaddr *)&sess->peer_addr,
						sess->timeout_ms);
		if (ret)
			return ret;
	}
	return 0;
}

static void krdma_client_established(struct krdma_session *sess,
				     struct rdma_cm_event *ev)
{
	struct ib_device *ibdev = sess->kdev->ibdev;
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
				    krdma_reject_reasons[rej], vers);
		return;
	}
	krdma_take_peer_hello(sess, &h);
	sess->peer_qpn = ev->param.conn.qp_num;
	krdma_conn_credits(sess->kdev, ev, &rr, &id);
	/*
	 * Never beyond what the server's hello says it takes: siw raises
	 * the server's IRD to our ORD whatever the server accepted.
	 */
	sess->responder_resources = min3(rr, h.max_qp_init_rd_atom,
					 krdma_max_rd_atom(ibdev));
	sess->initiator_depth = min3(id, h.max_qp_rd_atom,
				     krdma_max_init_rd_atom(ibdev));
	memcpy(&sess->local_addr, &sess->cm_id->route.addr.src_addr,
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
	ret = krdma_channels_connect(sess);
	if (ret)
		krdma_session_close(sess, "cannot connect the data channels: %pe",
				    ERR_PTR(ret));
}

static int krdma_session_cm_event(struct krdma_session *sess,
				  struct rdma_cm_id *id,
				  struct rdma_cm_event *ev)
{
	int ret;

	pr_debug("krdma: session %u: %s (status %d)\n", sess->id,
		 rdma_event_msg(ev->event), ev->status);
	mutex_lock(&sess->cm_mutex);
	if (READ_ONCE(sess->state) != KRDMA_SESSION_CONNECTING &&
	    READ_ONCE(sess->state) != KRDMA_SESSION_UP)
		goto out;	/* teardown has started: it owns the id now */

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ret = krdma_session_create_queues(sess);
		if (ret) {
			krdma_session_close(sess, "cannot create queues on %s: %pe",
					    dev_name(&id->device->dev),
					    ERR_PTR(ret));
			break;
		}
		ret = rdma_resolve_route(id, sess->timeout_ms);
		if (ret)
			krdma_session_close(sess, "route resolution failed: %pe",
					    ERR_PTR(ret));
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		ret = krdma_client_connect(sess);
		/* iWARP: the TCP connect is made here (siw), and refused. */
		if (ret == -ECONNREFUSED)
			krdma_session_close(sess, "connection refused: no listener on that port");
		else if (ret)
			krdma_session_close(sess, "connect failed: %pe",
					    ERR_PTR(ret));
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (sess->role == KRDMA_ROLE_CLIENT)
			krdma_client_established(sess, ev);
		else
			krdma_session_set_up(sess);
		break;
	default:
		krdma_cm_failure(sess, id, ev, "");
		break;
	}
out:
	mutex_unlock(&sess->cm_mutex);
	/* Teardown destroys the id; never let the CM do it under us. */
	return 0;
}

/* Client: a data channel is connected; the last one brings the session up. */
static void krdma_channel_established(struct krdma_channel *ch,
				      struct rdma_cm_event *ev)
{
	struct krdma_session *sess = ch->sess;
	struct krdma_cm_hello h;
	int rej;

	rej = krdma_check_hello(ev->param.conn.private_data,
				ev->param.conn.private_data_len, &h);
	if (!rej && (be16_to_cpu(h.flags) != KRDMA_HELLO_F_CHANNEL ||
		     h.channel != ch->index ||
		     be32_to_cpu(h.cookie) != sess->cookie))
		rej = KRDMA_REJ_BAD_PARAM;
	if (rej) {
		krdma_count(sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
		krdma_session_close(sess, "bad handshake from server on data channel %u: %s",
				    ch->index, krdma_reject_reasons[rej]);
		return;
	}
	ch->peer_qpn = ev->param.conn.qp_num;
	if (++sess->channels_up == sess->qps - 1)
		krdma_session_set_up(sess);
}

static int krdma_channel_connect(struct krdma_channel *ch)
{
	struct krdma_session *sess = ch->sess;
	struct rdma_conn_param param = {};
	struct krdma_cm_hello hello;

	krdma_fill_hello(sess, &hello);
	hello.flags = cpu_to_be16(KRDMA_HELLO_F_CHANNEL);
	hello.channel = ch->index;
	/* The credits the session's first QP settled on. */
	krdma_fill_conn_param(&param, &hello, sess->responder_resources,
			      sess->initiator_depth);
	return rdma_connect_locked(ch->cm_id, &param);
}

static int krdma_channel_cm_event(struct krdma_channel *ch,
				  struct rdma_cm_id *id,
				  struct rdma_cm_event *ev)
{
	struct krdma_session *sess = ch->sess;
	char qp[24];
	int ret;

	pr_debug("krdma: session %u channel %u: %s (status %d)\n", sess->id,
		 ch->index, rdma_event_msg(ev->event), ev->status);
	snprintf(qp, sizeof(qp), "data channel %u: ", ch->index);
	mutex_lock(&sess->cm_mutex);
	if (READ_ONCE(sess->state) != KRDMA_SESSION_CONNECTING &&
	    READ_ONCE(sess->state) != KRDMA_SESSION_UP)
		goto out;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ret = krdma_channel_create_queues(ch);
		if (!ret)
			ret = rdma_resolve_route(id, sess->timeout_ms);
		if (ret)
			krdma_session_close(sess, "%scannot create queues on %s: %pe",
					    qp, dev_name(&id->device->dev),
					    ERR_PTR(ret));
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		ret = krdma_channel_connect(ch);
		if (ret)
			krdma_session_close(sess, "%sconnect failed: %pe", qp,
					    ERR_PTR(ret));
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		/* A server's channel is usable once accepted. */
		if (sess->role == KRDMA_ROLE_CLIENT)
			krdma_channel_established(ch, ev);
		break;
	default:
		krdma_cm_failure(sess, id, ev, qp);
		break;
	}
out:
	mutex_unlock(&sess->cm_mutex);
	return 0;
}

static bool krdma_same_host(const struct sockaddr_storage *a,
			    const struct sockaddr *b)
{
	const struct sockaddr_in6 *a6 = (const void *)a, *b6 = (const void *)b;
	const struct sockaddr_in *a4 = (const void *)a, *b4 = (const void *)b;

	if (a->ss_family != b->sa_family)
		return false;
	if (a->ss_family == AF_INET)
		return a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	return ipv6_addr_equal(&a6->sin6_addr, &b6->sin6_addr);
}

/* Server: may @child be data channel h->channel of @sess? */
static int krdma_channel_check(struct krdma_session *sess,
			       struct rdma_cm_id *child,
			       const struct krdma_cm_hello *h)
{
	enum krdma_session_state state = READ_ONCE(sess->state);

	if (state != KRDMA_SESSION_CONNECTING && state != KRDMA_SESSION_UP)
		return KRDMA_REJ_SHUTDOWN;
	if (!krdma_same_host(&sess->peer_addr,
			     (struct sockaddr *)&child->route.addr.dst_addr))
		return KRDMA_REJ_NO_SESSION;
	if (h->channels != sess->qps - 1 || sess->channels[h->channel - 1] ||
	    !sess->kdev || child->device != sess->kdev->ibdev)
		return KRDMA_REJ_BAD_PARAM;
	return 0;
}

/*
 * A connection request for a data channel: it joins the server session
 * its cookie names. Returns non-zero to have the CM destroy @child.
 */
static int krdma_channel_accept(struct krdma_listener *l,
				struct rdma_cm_id *child,
				struct rdma_cm_event *ev,
				const struct krdma_cm_hello *h)
{
	struct rdma_conn_param param = {};
	struct krdma_session *sess;
	struct krdma_channel *ch;
	struct krdma_cm_hello rep;
	int rej, ret;
	u8 rr, id;

	sess = krdma_session_lookup_cookie(l->net, l->id, be32_to_cpu(h->cookie));
	if (!sess) {
		krdma_stats_add(&krdma_global_stats, KRDMA_CNT_PROTOCOL_ERRORS, 1);
		pr_info_ratelimited("krdma: listener %u: rejected a data channel for no session\n",
				    l->id);
		krdma_reject(child, KRDMA_REJ_NO_SESSION);
		return -ECONNREFUSED;
	}
	mutex_lock(&sess->cm_mutex);
	rej = krdma_channel_check(sess, child, h);
	if (rej) {
		krdma_count(sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
		ret = -ECONNREFUSED;
		goto out;
	}
	rej = KRDMA_REJ_NO_RESOURCES;
	ch = krdma_channel_new(sess, h->channel);
	if (!ch) {
		ret = -ENOMEM;
		goto out;
	}
	ch->cm_id = child;
	ret = krdma_channel_create_queues(ch);
	if (ret) {
		kfree(ch);
		goto out;
	}
	ch->peer_qpn = ev->param.conn.qp_num;
	krdma_fill_hello(sess, &rep);
	rep.flags = cpu_to_be16(KRDMA_HELLO_F_CHANNEL);
	rep.channel = ch->index;
	/*
	 * Within what this connection offers, as for the first QP (see
	 * krdma_listener_connect_request()): a peer offers what its QP can
	 * take, and may offer a channel less than it settled on for the
	 * session. Never more than the session's, which our limits bound.
	 */
	krdma_conn_credits(sess->kdev, ev, &rr, &id);
	krdma_fill_conn_param(&param, &rep,
			      min3(rr, h->max_qp_init_rd_atom,
				   sess->responder_resources),
			      min3(id, h->max_qp_rd_atom, sess->initiator_depth));
	child->context = ch;
	ret = rdma_set_ack_timeout(child, krdma_ack_timeout_val());
	if (!ret)
		ret = rdma_accept(child, &param);
	if (ret) {
		/* The CM destroys @child, and nothing calls us for it again. */
		krdma_channel_free_queues(ch);
		kfree(ch);
		rej = 0;	/* no reject after a failed accept */
		goto out;
	}
	sess->channels[ch->index - 1] = ch;
out:
	mutex_unlock(&sess->cm_mutex);
	if (rej && ret) {
		pr_info_ratelimited("krdma: session %u: refused data channel %u: %s\n",
				    sess->id, h->channel, krdma_reject_reasons[rej]);
		krdma_reject(child, rej);
	}
	krdma_session_put(sess);
	return ret ? -ECONNREFUSED : 0;
}

static int krdma_listener_connect_request(struct krdma_listener *l,
					  struct rdma_cm_id *child,
					  struct rdma_cm_event *ev)
{
	struct rdma_conn_param param = {};
	struct krdma_session *sess;
	struct krdma_cm_hello h, rep;
	char vers[40] = "";
	int rej, ret;
	u8 rr, id;
	u64 mem;

	rej = krdma_check_hello(ev->param.conn.private_data,
				ev->param.conn.private_data_len, &h);
	if (rej) {
		krdma_stats_add(&krdma_global_stats, KRDMA_CNT_PROTOCOL_ERRORS, 1);
		if (rej == KRDMA_REJ_VERSION)
			krdma_versions(vers, sizeof(vers), "peer",
				       krdma_hello_version(ev->param.conn.private_data));
		pr_info_ratelimited("krdma: listener %u: rejected a connection: %s%s\n",
				    l->id, krdma_reject_reasons[rej], vers);
		krdma_reject(child, rej);
		return -ECONNREFUSED;	/* the CM destroys @child */
	}
	if (be16_to_cpu(h.flags) & KRDMA_HELLO_F_CHANNEL)
		return krdma_channel_accept(l, child, ev, &h);
	/* What the client's sizes make us pin (session.c allocates it). */
	mem = be16_to_cpu(h.rq_depth) *
	      krdma_buf_bytes(KRDMA_MSG_HDR_SIZE +
			      max_t(u32, be32_to_cpu(h.max_msg_size),
				    KRDMA_CTRL_BODY_MAX)) +
	      KRDMA_CTRL_TX * krdma_buf_bytes(KRDMA_MSG_HDR_SIZE +
					      KRDMA_CTRL_BODY_MAX);
	if (!krdma_session_mem_fits(mem)) {
		krdma_stats_add(&krdma_global_stats, KRDMA_CNT_MEM_REFUSED, 1);
		pr_info_ratelimited("krdma: listener %u: refused a connection asking for %llu MiB of buffers (max_session_mem_mb)\n",
				    l->id, mem >> 20);
		krdma_reject(child, KRDMA_REJ_MEM_LIMIT);
		return -ECONNREFUSED;
	}

	sess = krdma_session_alloc(KRDMA_ROLE_SERVER, l->net, NULL, l->id, NULL);
	if (IS_ERR(sess)) {
		ret = PTR_ERR(sess);
		if (ret != -EMLINK && ret != -EUSERS) {
			krdma_reject(child, KRDMA_REJ_NO_RESOURCES);
			return -ECONNREFUSED;
		}
		krdma_stats_add(&krdma_global_stats, KRDMA_CNT_SESSIONS_REFUSED, 1);
		pr_info_ratelimited("krdma: listener %u: refused a connection: %s\n",
				    l->id, ret == -EMLINK ?
				    "the listener has max_listener_sessions" :
				    "there are max_sessions server sessions");
		krdma_reject(child, KRDMA_REJ_TOO_MANY_SESSIONS);
		return -ECONNREFUSED;
	}
	/*
	 * Nothing finds the session yet. From the moment something can, a
	 * close must find it built: its teardown waits for cm_mutex.
	 */
	mutex_lock(&sess->cm_mutex);
	sess->kind = KRDMA_CM_SESSION;
	sess->cm_id = child;
	child->context = sess;
	/* The client's queue sizes hold both ways. */
	krdma_take_peer_hello(sess, &h);
	sess->sq_depth = sess->peer_sq_depth;
	sess->rq_depth = sess->peer_rq_depth;
	sess->max_msg_size = sess->peer_max_msg_size;
	sess->timeout_ms = KRDMA_DEF_TIMEOUT_MS;
	sess->peer_qpn = ev->param.conn.qp_num;
	sess->cookie = get_random_u32() ?: 1;
	memcpy(&sess->local_addr, &child->route.addr.src_addr,
	       sizeof(sess->local_addr));
	memcpy(&sess->peer_addr, &child->route.addr.dst_addr,
	       sizeof(sess->peer_addr));

	/* Every session is within its cap: all of them may not be. */
	ret = krdma_mem_charge(sess, mem);
	if (ret) {
		mutex_unlock(&sess->cm_mutex);
		krdma_stats_add(&krdma_global_stats, KRDMA_CNT_MEM_REFUSED, 1);
		pr_info_ratelimited("krdma: listener %u: refused a connection: its %llu KiB of buffers are over max_mem_mb\n",
				    l->id, mem >> 10);
		krdma_reject(child, KRDMA_REJ_MEM_LIMIT);
		krdma_session_close(sess, "over the memory limit of all sessions");
		krdma_session_put(sess);
		return 0;	/* teardown destroys @child */
	}
	ret = krdma_channels_alloc(sess, h.channels + 1);
	if (!ret)
		ret = krdma_session_create_queues(sess);
	if (ret) {
		mutex_unlock(&sess->cm_mutex);
		krdma_reject(child, KRDMA_REJ_NO_RESOURCES);
		krdma_session_close(sess, "cannot create queues: %pe",
				    ERR_PTR(ret));
		krdma_session_put(sess);
		return 0;
	}

	/*
	 * ev->param.conn is in our perspective: responder_resources is what
	 * the client wants to have in flight towards us.
	 */
	krdma_conn_credits(sess->kdev, ev, &rr, &id);
	sess->responder_resources = min3(rr, h.max_qp_init_rd_atom,
					 krdma_max_rd_atom(child->device));
	sess->initiator_depth = min3(id, h.max_qp_rd_atom,
				     krdma_max_init_rd_atom(child->device));

	/*
	 * Before the accept: the client's data channels look the session
	 * up by its cookie as soon as it is established.
	 */
	krdma_session_publish(sess);
	krdma_delay_publish(sess);
	/*
	 * A SESSION_DEL, or the device going, may have closed it since:
	 * refuse the connection rather than accept a session whose
	 * teardown is waiting for cm_mutex.
	 */
	if (READ_ONCE(sess->state) != KRDMA_SESSION_CONNECTING) {
		krdma_reject(child, KRDMA_REJ_SHUTDOWN);
		mutex_unlock(&sess->cm_mutex);
		krdma_session_put(sess);
		return 0;	/* teardown destroys @child */
	}
	krdma_fill_hello(sess, &rep);
	krdma_fill_conn_param(&param, &rep, sess->responder_resources,
			      sess->initiator_depth);
	ret = rdma_set_ack_timeout(child, krdma_ack_timeout_val());
	if (!ret)
		ret = rdma_accept(child, &param);
	mutex_unlock(&sess->cm_mutex);
	if (ret)
		krdma_session_close(sess, "accept failed: %pe", ERR_PTR(ret));
	krdma_session_put(sess);
	return 0;
}

/*
 * The RDMA device under a listener's address is going away. The CM's
 * removal (cma_process_remove()) waits until every id on the device is
 * destroyed, so a listener that kept its id would block "rdma link
 * delete" until the module unloads. It gives the id up instead: it stays
 * listed, without an id and with the reason "RDMA device removed", until
 * "listener del" frees it. It is not rebound when a device with that
 * address comes back - the user adds it again - because nothing says the
 * address will come back, or on which device.
 *
 * Whoever swaps l->cm_id out under krdma_listeners_lock owns the id. If
 * we do, we return non-zero and the CM destroys it (rdma_destroy_id()
 * must not be called from the id's own handler). If "listener del" or
 * the unload took it first, they destroy it: we return 0, and their
 * rdma_destroy_id() waits for this handler to return. Until
 * krdma_listener_add() has published the id, it is not ours to give up
 * either: device_removed tells the add to fail and destroy it.
 *
 * Only a listener bound to one device's address gets here: the CM
 * destroys a wildcard listener's per-device ids itself.
 */
static int krdma_listener_removal(struct krdma_listener *l,
				  struct rdma_cm_id *id)
{
	bool give_up;

	mutex_lock(&krdma_listeners_lock);
	l->device_removed = true;
	give_up = l->cm_id == id;
	if (give_up) {
		l->cm_id = NULL;
		pr_info("krdma: listener %u: RDMA device removed\n", l->id);
	}
	mutex_unlock(&krdma_listeners_lock);
	/* If we gave the id up, a listener del may free @l from here on. */
	return give_up;
}

/*
 * One handler for listeners, sessions and data channels: a connection
 * request's new id inherits the listener's handler, so the context says
 * which one it is.
 */
static int krdma_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	enum krdma_cm_kind *kind = id->context;
	struct krdma_listener *l;

	if (*kind == KRDMA_CM_SESSION)
		return krdma_session_cm_event(id->context, id, ev);
	if (*kind == KRDMA_CM_CHANNEL)
		return krdma_channel_cm_event(id->context, id, ev);

	l = id->context;
	pr_debug("krdma: listener %u: %s (status %d)\n", l->id,
		 rdma_event_msg(ev->event), ev->status);
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return krdma_listener_connect_request(l, id, ev);
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return krdma_listener_removal(l, id);
	default:
		return 0;
	}
}

int krdma_connect(struct krdma_session_params *p, u32 *id,
		  struct netlink_ext_ack *extack)
{
	struct krdma_session *sess;
	struct rdma_cm_id *cm_id;
	int ret;

	sess = krdma_session_alloc(KRDMA_ROLE_CLIENT, p->net, p->name, 0, extack);
	if (IS_ERR(sess))
		return PTR_ERR(sess);
	/*
	 * Nothing finds the session until it has its CM id; until then its
	 * teardown, and its CM handler, wait for cm_mutex.
	 */
	mutex_lock(&sess->cm_mutex);
	sess->kind = KRDMA_CM_SESSION;
	ret = krdma_channels_alloc(sess, p->qps);
	if (ret) {
		krdma_session_close(sess, "out of memory");
		goto out;
	}
	sess->sq_depth = p->sq_depth;
	sess->rq_depth = p->rq_depth;
	sess->max_msg_size = p->max_msg_size;
	sess->timeout_ms = p->timeout_ms;
	sess->local_addr = p->local_addr;
	sess->peer_addr = p->peer_addr;
	sess->tos = p->tos;

	cm_id = rdma_create_id(p->net, krdma_cm_handler, sess, RDMA_PS_TCP,
			       IB_QPT_RC);
	if (IS_ERR(cm_id)) {
		ret = PTR_ERR(cm_id);
		krdma_session_close(sess, "cannot create CM id: %pe", cm_id);
		goto out;
	}
	sess->cm_id = cm_id;
	krdma_cm_set_tos(sess, cm_id);
	ret = rdma_set_ack_timeout(cm_id, krdma_ack_timeout_val());
	if (ret) {
		krdma_session_close(sess, "cannot set the ACK timeout: %pe",
				    ERR_PTR(ret));
		goto out;
	}

	queue_delayed_work(krdma_wq, &sess->connect_work,
			   msecs_to_jiffies(p->timeout_ms));
	ret = rdma_resolve_addr(cm_id,
				p->local_addr.ss_family ?
				(struct sockaddr *)&p->local_addr : NULL,
				(struct sockaddr *)&p->peer_addr, p->timeout_ms);
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

static struct krdma_listener *krdma_listener_find(struct net *net, u32 id,
						  const char *name)
{
	struct krdma_listener *l;
	unsigned long i;

	lockdep_assert_held(&krdma_listeners_lock);
	if (!name) {
		l = xa_load(&krdma_listeners, id);
		return l && net_eq(l->net, net) ? l : NULL;
	}
	xa_for_each(&krdma_listeners, i, l)
		if (net_eq(l->net, net) && !strcmp(l->name, name))
			return l;
	return NULL;
}

static void krdma_listener_free(struct krdma_listener *l)
{
	kfree(l);
}

static int krdma_probe_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	return 0;
}

/*
 * rdma_bind_addr() fails with -EADDRNOTAVAIL both for an address that is
 * on no RDMA device and for a port another id holds (cma_check_port()).
 * Binding the same address to an ephemeral port tells the two apart.
 */
static int krdma_bind_error(struct net *net, const struct sockaddr_storage *addr,
			    int ret, struct netlink_ext_ack *extack)
{
	struct sockaddr_storage probe = *addr;
	struct rdma_cm_id *id;

	if (ret == -EADDRNOTAVAIL) {
		/* sin_port and sin6_port share their offset. */
		((struct sockaddr_in *)&probe)->sin_port = 0;
		id = rdma_create_id(net, krdma_probe_handler, NULL, RDMA_PS_TCP,
				    IB_QPT_RC);
		if (!IS_ERR(id)) {
			if (!rdma_bind_addr(id, (struct sockaddr *)&probe))
				ret = -EADDRINUSE;
			rdma_destroy_id(id);
		}
	}
	if (ret == -EADDRINUSE)
		NL_SET_ERR_MSG(extack, "address and port already in use");
	else if (ret == -EADDRNOTAVAIL || ret == -ENODEV)
		NL_SET_ERR_MSG(extack, "address is not on an RDMA device of this host");
	else
		NL_SET_ERR_MSG(extack, "cannot bind the address");
	return ret;
}

int krdma_listener_add(struct net *net, const char *name,
		       struct sockaddr_storage *addr, u32 *id,
		       struct netlink_ext_ack *extack)
{
	struct krdma_listener *l;
	struct rdma_cm_id *cm_id;
	int ret;

	l = krdma_failable(kzalloc(sizeof(*l), GFP_KERNEL));
	if (!l)
		return -ENOMEM;
	l->kind = KRDMA_CM_LISTENER;
	l->net = net;
	l->addr = *addr;

	/* Id and name first: a connection request may arrive at once. */
	mutex_lock(&krdma_listeners_lock);
	if (name && *name && krdma_listener_find(net, 0, name)) {
		mutex_unlock(&krdma_listeners_lock);
		NL_SET_ERR_MSG(extack, "a listener with this name exists");
		krdma_listener_free(l);
		return -EEXIST;
	}
	ret = krdma_failable_int(xa_alloc_cyclic(&krdma_listeners, &l->id,
						 XA_ZERO_ENTRY, xa_limit_32b,
						 &krdma_listener_next_id,
						 GFP_KERNEL));
	mutex_unlock(&krdma_listeners_lock);
	if (ret < 0) {
		krdma_listener_free(l);
		return ret;
	}
	if (name && *name)
		strscpy(l->name, name, sizeof(l->name));
	else
		snprintf(l->name, sizeof(l->name), "l%u", l->id);

	cm_id = rdma_create_id(net, krdma_cm_handler, l, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(cm_id)) {
		ret = PTR_ERR(cm_id);
		goto err_free;
	}
	ret = rdma_bind_addr(cm_id, (struct sockaddr *)addr);
	if (ret) {
		ret = krdma_bind_error(net, addr, ret, extack);
		goto err_id;
	}
	ret = rdma_listen(cm_id, KRDMA_LISTEN_BACKLOG);
	if (ret) {
		NL_SET_ERR_MSG(extack, "cannot listen on the address");
		goto err_id;
	}

	mutex_lock(&krdma_listeners_lock);
	if (l->device_removed) {
		/* Its handler left the id to us: see krdma_listener_removal(). */
		mutex_unlock(&krdma_listeners_lock);
		NL_SET_ERR_MSG(extack, "the RDMA device of the address went away");
		ret = -ENODEV;
		goto err_id;
	}
	l->cm_id = cm_id;
	xa_store(&krdma_listeners, l->id, l, GFP_KERNEL);
	mutex_unlock(&krdma_listeners_lock);
	*id = l->id;
	return 0;

err_id:
	rdma_destroy_id(cm_id);
err_free:
	mutex_lock(&krdma_listeners_lock);
	xa_erase(&krdma_listeners, l->id);
	mutex_unlock(&krdma_listeners_lock);
	krdma_listener_free(l);
	return ret;
}

/*
 * Unlists @l and takes its id, if it still has one, under the lock: from
 * then on a DEVICE_REMOVAL on the id leaves it to the caller, who
 * destroys it without the lock (its handler takes the lock, and
 * rdma_destroy_id() waits for a running handler) and then frees @l.
 */
static struct rdma_cm_id *krdma_listener_unlist(struct krdma_listener *l)
{
	struct rdma_cm_id *cm_id = l->cm_id;

	lockdep_assert_held(&krdma_listeners_lock);
	xa_erase(&krdma_listeners, l->id);
	l->cm_id = NULL;
	return cm_id;
}

static void krdma_listener_destroy(struct krdma_listener *l,
				   struct rdma_cm_id *cm_id)
{
	/* No id: its device went away and the CM destroyed it. */
	if (cm_id)
		rdma_destroy_id(cm_id);
	krdma_listener_free(l);
}

int krdma_listener_del(struct net *net, u32 id, const char *name,
		       struct netlink_ext_ack *extack)
{
	struct rdma_cm_id *cm_id = NULL;
	struct krdma_listener *l;

	mutex_lock(&krdma_listeners_lock);
	l = krdma_listener_find(net, id, name);
	if (l)
		cm_id = krdma_listener_unlist(l);
	mutex_unlock(&krdma_listeners_lock);
	if (!l) {
		NL_SET_ERR_MSG(extack, "no such listener");
		return -ENOENT;
	}
	krdma_listener_destroy(l, cm_id);
	return 0;
}

/* Deletes every listener of @net; returns how many there were. */
unsigned int krdma_listeners_del_net(struct net *net)
{
	struct rdma_cm_id *cm_id;
	struct krdma_listener *l;
	unsigned int n = 0;
	unsigned long id;

	/* One at a time: each id is destroyed without the lock. */
	for (;; n++) {
		cm_id = NULL;
		mutex_lock(&krdma_listeners_lock);
		xa_for_each(&krdma_listeners, id, l)
			if (net_eq(l->net, net))
				break;
		if (l)
			cm_id = krdma_listener_unlist(l);
		mutex_unlock(&krdma_listeners_lock);
		if (!l)
			return n;
		krdma_listener_destroy(l, cm_id);
	}
}

static int krdma_listener_fill(struct sk_buff *skb, struct krdma_listener *l)
{
	struct rdma_cm_id *cm_id = l->cm_id;

	lockdep_assert_held(&krdma_listeners_lock);
	if (nla_put_u32(skb, KRDMA_A_LISTENER_ID, l->id) ||
	    nla_put_string(skb, KRDMA_A_NAME, l->name) ||
	    krdma_put_addr(skb, KRDMA_A_LOCAL_ADDR, &l->addr))
		return -EMSGSIZE;
	/* A listed listener without an id lost it with its device. */
	if (!cm_id)
		return nla_put_string(skb, KRDMA_A_REASON, "RDMA device removed");
	if (cm_id->device &&
	    nla_put_string(skb, KRDMA_A_DEV_NAME, dev_name(&cm_id->device->dev)))
		return -EMSGSIZE;
	return 0;
}

/* Puts listener @id, or the one named @name, into @msg: else -ENOENT. */
int krdma_listener_fill_lookup(struct sk_buff *msg, struct net *net, u32 id,
			       const char *name)
{
	struct krdma_listener *l;
	int ret;

	mutex_lock(&krdma_listeners_lock);
	l = krdma_listener_find(net, id, name);
	ret = l ? krdma_listener_fill(msg, l) : -ENOENT;
	mutex_unlock(&krdma_listeners_lock);
	return ret;
}

static bool krdma_listener_visible(void *obj, struct net *net)
{
	struct krdma_listener *l = obj;

	return net_eq(l->net, net);
}

static int krdma_listener_table_fill(struct sk_buff *skb, void *obj)
{
	return krdma_listener_fill(skb, obj);
}

const struct krdma_nl_table krdma_listener_table = {
	.xa		= &krdma_listeners,
	.lock		= &krdma_listeners_lock,
	.visible	= krdma_listener_visible,
	.fill		= krdma_listener_table_fill,
};
