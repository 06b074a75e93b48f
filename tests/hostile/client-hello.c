// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma-hostile: the handshake, the client way: hellos the listener
 * must refuse, with the reason it must give, and a data channel
 * offering fewer credits than the session's first QP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "hostile.h"
#include "verbs.h"
#include "client.h"

static const char *const reject_names[] = {
	[0] = "none",
	[KRDMA_REJ_NOT_KRDMA] = "not_a_krdma_peer",
	[KRDMA_REJ_VERSION] = "version_not_supported",
	[KRDMA_REJ_BAD_PARAM] = "parameters_out_of_range",
	[KRDMA_REJ_NO_RESOURCES] = "no_resources",
	[KRDMA_REJ_SHUTDOWN] = "shutting_down",
	[KRDMA_REJ_NO_SESSION] = "no_session",
	[KRDMA_REJ_TOO_MANY_SESSIONS] = "too_many_sessions",
	[KRDMA_REJ_MEM_LIMIT] = "memory_limit",
};

/* Handshake scenarios: the connection must be refused with @want. */
static void expect_reject(const struct target *t, const void *pd,
			  uint8_t plen, int want)
{
	bool up = client_connect(t->addr, t->port, pd, plen, 7);

	if (up) {
		outcome(false, "accepted", "the listener accepted a bad hello");
		client_close();
		return;
	}
	if (!P.rejected) {
		outcome(false, "unexpected", "neither accepted nor rejected");
		return;
	}
	outcome(P.reject_reason == want, "rejected", "reason=%d(%s) want=%d",
		P.reject_reason,
		P.reject_reason >= 0 && P.reject_reason < (int)ARRAY_SIZE(reject_names) ?
		reject_names[P.reject_reason] : "not_krdma_data", want);
}

/* A hello the listener must refuse: @plen bytes of @h. */
static void reject_hello(const struct target *t, const struct hello *h,
			 uint8_t plen, int want)
{
	uint8_t hb[HELLO_LEN];

	hello_pack(hb, h);
	expect_reject(t, hb, plen, want);
}

/*
 * The session's first QP offers RD_ATOM READ/atomic credits each way; its
 * data channel then offers fewer (CH_RESP in flight towards us, CH_INIT
 * from us). The kernel must answer the channel within that offer, as it
 * does a first QP, not with the credits the session settled on: a peer
 * offers what its QP can take.
 */
#define CH_RESP		2
#define CH_INIT		1

/*
 * Joins data channel @h->channel of the session, hello @h (the cookie is
 * set here), with a QP of ours of @send_wrs sends and one receive,
 * offering @resp/@init READ credits. Returns 0 when connected (*@out is
 * its id, the kernel's answer in *@got_resp and *@got_init if given),
 * else the reject reason (-1: none came).
 */
int channel_join(const struct target *t, struct hello *h, uint32_t send_wrs,
		 uint8_t resp, uint8_t init, struct rdma_cm_id **out,
		 uint8_t *got_resp, uint8_t *got_init)
{
	struct ibv_qp_init_attr qa = {};
	struct rdma_conn_param cp = {};
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	uint8_t hb[HELLO_LEN];
	int64_t end;
	int ret = -1;
	bool done = false;

	if (rdma_create_id(P.ec, &id, NULL, RDMA_PS_TCP))
		die("rdma_create_id: %s", strerror(errno));
	resolve_addr(id, t->addr, t->port);
	/* Like a krdma channel: one-sided work only, no receives. */
	qa.send_cq = P.cq;
	qa.recv_cq = P.cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = send_wrs;
	qa.cap.max_recv_wr = 1;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, P.pd, &qa))
		die("rdma_create_qp: %s", strerror(errno));
	if (rdma_resolve_route(id, 5000))
		die("rdma_resolve_route: %s", strerror(errno));
	wait_cm(RDMA_CM_EVENT_ROUTE_RESOLVED, &ev);
	rdma_ack_cm_event(ev);

	h->flags = KRDMA_HELLO_F_CHANNEL;
	h->cookie = P.peer_hello.cookie;
	hello_pack(hb, h);
	cp.private_data = hb;
	cp.private_data_len = HELLO_LEN;
	cp.responder_resources = resp;
	cp.initiator_depth = init;
	cp.retry_count = 6;
	cp.rnr_retry_count = 7;
	if (rdma_connect(id, &cp))
		die("rdma_connect: %s", strerror(errno));
	end = now_ms() + P.tmo_ms;
	while (!done && !P.disconnected && now_ms() < end) {
		if (rdma_get_cm_event(P.ec, &ev)) {
			nap();
			continue;
		}
		if (ev->id != id) {
			handle_cm_event(ev);
		} else if (ev->event == RDMA_CM_EVENT_ESTABLISHED) {
			/* In our perspective, as the CM swapped them. */
			if (got_resp)
				*got_resp = ev->param.conn.responder_resources;
			if (got_init)
				*got_init = ev->param.conn.initiator_depth;
			ret = 0;
			done = true;
		} else {
			if (ev->event == RDMA_CM_EVENT_REJECTED)
				ret = reject_reason(ev->param.conn.private_data,
						    ev->param.conn.private_data_len);
			done = true;
		}
		rdma_ack_cm_event(ev);
	}
	if (ret) {
		rdma_destroy_qp(id);
		rdma_destroy_id(id);
		return ret;
	}
	*out = id;
	return 0;
}

/*
 * A session of two QPs in protocol @version, its data channel offering
 * CH_RESP/CH_INIT READ credits: the channel's id, and what the kernel
 * answered in *@resp and *@init; NULL (and an outcome) if either was not
 * connected.
 */
struct rdma_cm_id *connect_with_channel(const struct target *t, uint16_t version,
					uint8_t *resp, uint8_t *init)
{
	struct rdma_cm_id *id;
	uint8_t hb[HELLO_LEN];
	struct hello h;
	int ret;

	good_hello(&h);
	h.version = version;
	h.channels = 1;
	hello_pack(hb, &h);
	if (!client_connect(t->addr, t->port, hb, HELLO_LEN, 7)) {
		outcome(false, "error", "a session of 2 QPs was not accepted (reject reason %d)",
			P.reject_reason);
		return NULL;
	}
	h.channel = 1;
	ret = channel_join(t, &h, 4, CH_RESP, CH_INIT, &id, resp, init);
	if (ret) {
		outcome(false, ret > 0 ? "unexpected" : "hang",
			"the data channel was not connected (reject reason %d)%s", ret,
			P.disconnected ? "; the session went down" : "");
		return NULL;
	}
	return id;
}


void sc_channel_few_credits(const struct target *t)
{
	uint8_t resp = 0, init = 0;
	struct rdma_cm_id *id = connect_with_channel(t, OUR_VERSION, &resp, &init);

	if (!id)
		return;
	outcome(resp <= CH_RESP && init <= CH_INIT,
		resp <= CH_RESP && init <= CH_INIT ? "ok" : "over_offer",
		"first_qp_responder_resources=%u first_qp_initiator_depth=%u offered_responder_resources=%u offered_initiator_depth=%u answered_responder_resources=%u answered_initiator_depth=%u",
		P.rd_resp, P.rd_init, CH_RESP, CH_INIT, resp, init);
	rdma_disconnect(id);
	client_close();
}

/* ---- the hello: the listener must refuse each ---- */

void sc_bad_magic(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.magic = 0x52504e47;
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_NOT_KRDMA);
}

void sc_no_private_data(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	reject_hello(t, &h, 0, KRDMA_REJ_NOT_KRDMA);
}

void sc_wrong_version(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.version = NEWER_VERSION;
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_VERSION);
}

void sc_flags(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.flags = 1;	/* no such flag */
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_BAD_PARAM);
}

/* KRDMA_HELLO_F_RNR_RETRY asking a count beyond IB's 3 bits. */
void sc_hello_rnr_retry_8(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.version = 7;
	h.flags = KRDMA_HELLO_F_RNR_RETRY;
	h.rnr_retry = 8;
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_BAD_PARAM);
}

/* The flag from a peer that says it speaks version 6, which has none. */
void sc_hello_rnr_retry_v6(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.version = 6;
	h.flags = KRDMA_HELLO_F_RNR_RETRY;
	h.rnr_retry = 3;
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_BAD_PARAM);
}

void sc_sq_depth_0(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.sq = 0;
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_BAD_PARAM);
}

void sc_rq_depth_0(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.rq = 0;
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_BAD_PARAM);
}

void sc_depth_65535(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.sq = 65535;
	h.rq = 65535;
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_BAD_PARAM);
}

void sc_max_msg_0(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.max_msg = 0;
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_BAD_PARAM);
}

void sc_max_msg_huge(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.max_msg = 0xffffffffU;
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_BAD_PARAM);
}

void sc_short_hello(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	reject_hello(t, &h, offsetof(struct krdma_cm_hello, sq_depth),
		     KRDMA_REJ_BAD_PARAM);
}

void sc_hello_mem_hog(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.sq = 4096;
	h.rq = 4096;
	h.max_msg = 8U << 20;
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_MEM_LIMIT);
}

void sc_channel_no_session(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.flags = KRDMA_HELLO_F_CHANNEL;
	h.channels = 1;
	h.channel = 1;
	h.cookie = 0x5eed1234;
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_NO_SESSION);
}

void sc_channel_index_0(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.flags = KRDMA_HELLO_F_CHANNEL;
	h.channels = 1;
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_BAD_PARAM);
}

void sc_channels_16(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.channels = 16;
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_BAD_PARAM);
}

/* A valid hello: the script has brought the kernel to a session cap. */
void sc_session_cap(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_TOO_MANY_SESSIONS);
}
