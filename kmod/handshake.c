// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: the connection handshake both sides of rdma_cm share - the hello
 * in the CM private data (struct krdma_cm_hello) and its checks, the
 * reject and its reasons, the transport timeouts, and the READ/atomic
 * credits: the active side offers its device limits, the passive side
 * answers with the lower of its own limits and the offer, and the active
 * side keeps the lower of the answer and its limits.
 */
#include <linux/module.h>
#include <linux/string.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include "handshake.h"

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
 * loss: set 14 there, for the sessions that cross such a wire (the
 * session-ack-timeout attribute: "session connect ... ack_timeout 14",
 * "listener add ... ack_timeout 14"), or for all (the module parameter;
 * lossy-wire.sh does both). Documentation/usage.rst, "On a lossy network".
 *
 * The transport is not what finds a dead peer: the session keepalive is
 * (session.c, peer_timeout_ms), so the retry count is the most there is.
 * rxe takes 7 for "retry for ever" (rxe_comp.c, as IB does for RNR), so a
 * guest stalled for seconds under TCG costs retransmissions, not the
 * session; a device that counts 7 retries gives up after 8 timeouts of
 * silence, which on real hardware only a dead or cut-off peer causes.
 * Receiver-not-ready NAKs are retried the session's rnr_retry times,
 * KRDMA_RNR_RETRY_DEFAULT unless it asked (7 would be for ever).
 */
static unsigned int krdma_ack_timeout = 18;
module_param_named(ack_timeout, krdma_ack_timeout, uint, 0644);
MODULE_PARM_DESC(ack_timeout,
		 "Transport ACK timeout of new sessions that set none: 4.096 us x 2^N (8..31)");

#define KRDMA_CM_RETRY_COUNT	7
/*
 * How long our responder tells a sender to wait after an RNR NAK, an
 * empty receive queue: 0.64 ms, the verbs examples' and perftest's.
 * ib_cm leaves it 0, which encodes the longest, 655 ms: rxe stalled a
 * QP that long for each NAK (rxe_comp.c, rnrnak_usec[]), and seven in a
 * row ended the session. The credits keep our receive queues from
 * running empty (design.rst, "Credits over several QPs"); a NAK all the
 * same - an older peer, a bug - costs little now, and
 * KRDMA_CM_RNR_RETRY of them in a row still end the connection.
 */
#define KRDMA_CM_MIN_RNR_TIMER	IB_RNR_TIMER_000_64

/*
 * Caps the READ/atomic credits this side offers or accepts below what the
 * device allows: lets a test see negotiation pick the lower of two sides.
 */
static unsigned int krdma_rd_atom_limit;
module_param_named(rd_atom_limit, krdma_rd_atom_limit, uint, 0644);
MODULE_PARM_DESC(rd_atom_limit,
		 "Most RDMA READ/atomic operations in flight to offer or accept (0: device limit)");

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

/**
 * krdma_reject_reason() - the words of a reject reason
 * @reason: an enum krdma_reject_reason, maybe a newer peer's
 *
 * Return: the words, or NULL for one this module lacks.
 */
const char *krdma_reject_reason(u16 reason)
{
	return reason < ARRAY_SIZE(krdma_reject_reasons) ?
		krdma_reject_reasons[reason] : NULL;
}

/**
 * krdma_ack_timeout_val() - the ACK timeout of a new session
 * @asked: the session's own, or 0
 *
 * The ACK timeout of a new session: its own (@asked, from the session's
 * or its listener's session-ack-timeout, already within
 * KRDMA_ACK_TIMEOUT_MIN..MAX), or with 0 the module parameter's as it is
 * now. The session keeps what this returns, for all its QPs.
 *
 * Return: the exponent, 4.096 us x 2^N.
 */
u8 krdma_ack_timeout_val(u8 asked)
{
	if (asked)
		return asked;
	return clamp_t(unsigned int, READ_ONCE(krdma_ack_timeout),
		       KRDMA_ACK_TIMEOUT_MIN, KRDMA_ACK_TIMEOUT_MAX);
}

/**
 * krdma_cm_set_timers() - a connection's transport timers
 * @id: its CM id
 * @ack_timeout: the session's
 *
 * The transport timers of a connection: before rdma_connect() on the
 * active side, before rdma_accept() on the passive one, where rdma_cm
 * applies them to the QP (its INIT to RTR step sets the RNR timer, the
 * RTR to RTS one the ACK timeout). @ack_timeout is the session's
 * (krdma_ack_timeout_val()), the same for every QP of the session.
 *
 * Return: 0, or rdma_cm's error.
 */
int krdma_cm_set_timers(struct rdma_cm_id *id, u8 ack_timeout)
{
	int ret = rdma_set_ack_timeout(id, ack_timeout);

	return ret ?: rdma_set_min_rnr_timer(id, KRDMA_CM_MIN_RNR_TIMER);
}

/* What this side can take as a responder, and issue as an initiator. */
static u8 krdma_limit(u32 dev_limit)
{
	u32 limit = READ_ONCE(krdma_rd_atom_limit);

	if (limit && limit < dev_limit)
		dev_limit = limit;
	return min_t(u32, dev_limit, U8_MAX);
}

/**
 * krdma_max_rd_atom() - the READ/atomic credits we take as a responder
 * @kdev: the device
 *
 * Return: the device's max_qp_rd_atom, lowered to rd_atom_limit if set.
 */
u8 krdma_max_rd_atom(struct krdma_device *kdev)
{
	return krdma_limit(kdev->caps.max_qp_rd_atom);
}

/**
 * krdma_max_init_rd_atom() - the READ/atomic credits we issue as initiator
 * @kdev: the device
 *
 * Return: the device's max_qp_init_rd_atom, lowered to rd_atom_limit if
 * set.
 */
u8 krdma_max_init_rd_atom(struct krdma_device *kdev)
{
	return krdma_limit(kdev->caps.max_qp_init_rd_atom);
}

/**
 * krdma_fill_hello() - our hello, from a session's settings
 * @sess: the session, its device known
 * @hello: filled in
 *
 * A data channel's flags and index are its caller's to add.
 */
void krdma_fill_hello(struct krdma_session *sess,
		      struct krdma_cm_hello *hello)
{
	memset(hello, 0, sizeof(*hello));
	hello->magic = cpu_to_be32(KRDMA_PROTO_MAGIC);
	hello->version = cpu_to_be16(krdma_hello_version_sent());
	hello->sq_depth = cpu_to_be16(sess->sq_depth);
	hello->rq_depth = cpu_to_be16(sess->rq_depth);
	hello->max_msg_size = cpu_to_be32(sess->max_msg_size);
	hello->max_qp_rd_atom = krdma_max_rd_atom(sess->kdev);
	hello->max_qp_init_rd_atom = krdma_max_init_rd_atom(sess->kdev);
	hello->channels = sess->qps - 1;
	hello->cookie = cpu_to_be32(sess->cookie);
	/* A client's ask, of a server of version 7 (else it refuses it). */
	if (sess->rnr_ask != KRDMA_RNR_RETRY_UNSET &&
	    krdma_hello_version_sent() >= 7) {
		hello->flags = cpu_to_be16(KRDMA_HELLO_F_RNR_RETRY);
		hello->rnr_retry = sess->rnr_ask;
	}
}

/**
 * krdma_check_hello() - checks a peer's hello
 * @data: the CM's private data, or NULL
 * @len: its length
 * @out: set to the hello, if it passes; what a shorter one lacks zero
 *
 * Return: 0 or an enum krdma_reject_reason.
 */
int krdma_check_hello(const void *data, u8 len,
		      struct krdma_cm_hello *out)
{
	struct krdma_cm_hello hello = {}, *h = &hello;
	u32 sq, rq, msg;
	u16 flags;

	if (!data || len < KRDMA_HELLO_V6_LEN)
		return KRDMA_REJ_NOT_KRDMA;
	memcpy(h, data, min_t(size_t, len, sizeof(*h)));
	if (be32_to_cpu(h->magic) != KRDMA_PROTO_MAGIC)
		return KRDMA_REJ_NOT_KRDMA;
	if (be16_to_cpu(h->version) < KRDMA_PROTO_VERSION_MIN ||
	    be16_to_cpu(h->version) > KRDMA_PROTO_VERSION)
		return KRDMA_REJ_VERSION;
	sq = be16_to_cpu(h->sq_depth);
	rq = be16_to_cpu(h->rq_depth);
	msg = be32_to_cpu(h->max_msg_size);
	flags = be16_to_cpu(h->flags);
	if ((flags & ~(KRDMA_HELLO_F_CHANNEL | KRDMA_HELLO_F_RNR_RETRY)) ||
	    ((flags & KRDMA_HELLO_F_RNR_RETRY) &&
	     (len < sizeof(*h) || be16_to_cpu(h->version) < 7 ||
	      h->rnr_retry > KRDMA_RNR_RETRY_MAX)) ||
	    memchr_inv(h->reserved, 0, sizeof(h->reserved)) ||
	    sq < KRDMA_QUEUE_DEPTH_MIN || sq > KRDMA_QUEUE_DEPTH_MAX ||
	    rq < KRDMA_QUEUE_DEPTH_MIN || rq > KRDMA_QUEUE_DEPTH_MAX ||
	    !msg || msg > KRDMA_MSG_SIZE_MAX || h->channels >= KRDMA_QPS_MAX)
		return KRDMA_REJ_BAD_PARAM;
	/* No bw test could run over the data channels (krdma.h). */
	if (h->channels && sq < KRDMA_QPS_SQ_DEPTH_MIN)
		return KRDMA_REJ_BAD_PARAM;
	if ((be16_to_cpu(h->flags) & KRDMA_HELLO_F_CHANNEL) &&
	    (!h->channel || h->channel > h->channels))
		return KRDMA_REJ_BAD_PARAM;
	*out = *h;
	return 0;
}

/**
 * krdma_versions() - the versions of a refusal, for its message
 * @buf: where they go
 * @len: its size
 * @who: "peer" or "server"
 * @v: the other side's version
 *
 * " (peer 4, here 1..3)": the versions of a KRDMA_REJ_VERSION, for the
 * messages, so that a module of another version says which.
 */
void krdma_versions(char *buf, size_t len, const char *who, __be16 v)
{
	snprintf(buf, len, " (%s %u, here %u..%u)", who, be16_to_cpu(v),
		 KRDMA_PROTO_VERSION_MIN, KRDMA_PROTO_VERSION);
}

/**
 * krdma_hello_version() - the version a hello announces
 * @data: the hello, refused as KRDMA_REJ_VERSION (magic, length good)
 *
 * Return: the version, as on the wire.
 */
__be16 krdma_hello_version(const void *data)
{
	return ((const struct krdma_cm_hello *)data)->version;
}

/**
 * krdma_take_peer_hello() - what the peer's hello says, into its session
 * @sess: the session
 * @h: the hello, checked (krdma_check_hello())
 */
void krdma_take_peer_hello(struct krdma_session *sess,
			   const struct krdma_cm_hello *h)
{
	sess->peer_proto = be16_to_cpu(h->version);
	sess->peer_sq_depth = be16_to_cpu(h->sq_depth);
	sess->peer_rq_depth = be16_to_cpu(h->rq_depth);
	sess->peer_max_msg_size = be32_to_cpu(h->max_msg_size);
}

/**
 * krdma_reject() - refuses a connection request, saying why
 * @id: the request's CM id
 * @reason: what the peer is told
 */
void krdma_reject(struct rdma_cm_id *id, enum krdma_reject_reason reason)
{
	struct krdma_cm_reject rej = {
		.magic	 = cpu_to_be32(KRDMA_PROTO_MAGIC),
		.version = cpu_to_be16(KRDMA_PROTO_VERSION),
		.reason	 = cpu_to_be16(reason),
	};

	krdma_stats_add(&krdma_global_stats, KRDMA_CNT_REJECTS_SENT, 1);
	rdma_reject(id, &rej, sizeof(rej), IB_CM_REJ_CONSUMER_DEFINED);
}

/**
 * krdma_conn_credits() - the READ/atomic credits of a connection event
 * @kdev: the device, whose transport says how to read them
 * @ev: a CONNECT_REQUEST or ESTABLISHED event
 * @rr: set to those the peer may have in flight to us
 * @id: set to those we may have in flight to it
 *
 * The READ/atomic credits of a connection event in our perspective: @rr
 * the peer may have in flight to us, @id we may have in flight to it.
 * The IB CM swaps the peer's values into ours; the iWARP CM hands on the
 * IRD as initiator_depth and the ORD as responder_resources
 * (cma_iw_handler(), iw_conn_req_handler()), which reads the other way.
 */
void krdma_conn_credits(struct krdma_device *kdev,
			const struct rdma_cm_event *ev, u8 *rr, u8 *id)
{
	*rr = ev->param.conn.responder_resources;
	*id = ev->param.conn.initiator_depth;
	if (kdev->iwarp)
		swap(*rr, *id);
}

/**
 * krdma_fill_conn_param() - the connection parameters of a connect or accept
 * @param: filled in
 * @hello: our hello, the private data; it must outlive the call @param is
 *	given to
 * @responder_resources: the READ/atomic credits we take
 * @initiator_depth: those we issue
 * @rnr_retry: receiver-not-ready NAKs the peer's QP is to retry: the IB
 *	CM sends it, and the other side's QP takes it (a REQ's to the
 *	server's, a REP's to the client's)
 *
 * With the retry counts of the comment on ack_timeout above.
 */
void krdma_fill_conn_param(struct rdma_conn_param *param,
			   struct krdma_cm_hello *hello,
			   u8 responder_resources, u8 initiator_depth,
			   u8 rnr_retry)
{
	param->private_data = hello;
	param->private_data_len = sizeof(*hello);
	param->responder_resources = responder_resources;
	param->initiator_depth = initiator_depth;
	param->flow_control = 1;
	param->retry_count = KRDMA_CM_RETRY_COUNT;
	param->rnr_retry_count = rnr_retry;
}
