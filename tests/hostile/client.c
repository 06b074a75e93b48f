// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma-hostile: the client scenarios, which connect to a krdma listener
 * and misbehave as its session's peer: bad hellos, malformed messages,
 * bad regions in the tests they drive, abuse of the regions the kernel
 * exposes, and what a peer may make the kernel spend.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostile.h"
#include "verbs.h"

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

static bool connect_good(const struct target *t, uint16_t rq,
			 uint32_t max_msg, uint8_t rnr_retry)
{
	struct hello h;
	uint8_t hb[HELLO_LEN];

	good_hello(&h);
	h.rq = rq;
	h.max_msg = max_msg;
	hello_pack(hb, &h);
	if (!client_connect(t->addr, t->port, hb, HELLO_LEN, rnr_retry)) {
		outcome(false, "error", "a valid hello was not accepted (reject reason %d)",
			P.reject_reason);
		return false;
	}
	/*
	 * We are established once we sent the RTU; give the kernel's CM time
	 * to see it, so that what follows meets an up session (a session
	 * closed before that can only REJ, which our CM ignores).
	 */
	{
		int64_t end = now_ms() + 500;

		while (now_ms() < end && !P.disconnected)
			poll_some();
	}
	return true;
}

/* The session most scenarios start from: max_msg 4 KiB. */
static bool connected(const struct target *t)
{
	return connect_good(t, NRECV, 4096, 7);
}

static uint32_t g_test_id = 0x4057;

/* TEST_REQ of @mode (0: none, which a krdma peer takes for check). */
static struct msg *test_req_mode(uint8_t op, uint8_t mode, uint32_t size,
				 uint32_t depth, uint32_t nregions, uint64_t count,
				 const struct region *r, uint32_t n)
{
	uint8_t b[CTRL_BODY_MAX];
	uint32_t len = test_body(b, op, size, depth, nregions, count, r, n);

	b[offsetof(struct krdma_msg_test, mode)] = mode;
	if (send_msg(KRDMA_MSG_TEST_REQ, g_test_id, 0, 0, b, len))
		die("cannot send TEST_REQ");
	return wait_msg(KRDMA_MSG_TEST_ACK, P.tmo_ms);
}

/* TEST_REQ; returns the TEST_ACK (or NULL if none came). */
static struct msg *test_req(uint8_t op, uint32_t size, uint32_t depth,
			    uint32_t nregions, uint64_t count,
			    const struct region *r, uint32_t n)
{
	return test_req_mode(op, 0, size, depth, nregions, count, r, n);
}

/* A TEST_REQ the kernel must refuse (TEST_ACK status != 0) or close on. */
static void expect_refused(uint8_t op, uint32_t size, uint32_t depth,
			   uint32_t nregions, const struct region *r, uint32_t n)
{
	struct msg *m = test_req(op, size, depth, nregions, 0, r, n);

	if (!m) {
		if (P.disconnected)
			outcome(true, "closed", "the kernel closed the session on the TEST_REQ");
		else
			outcome(false, "hang", "no TEST_ACK");
		return;
	}
	if (m->status)
		outcome(true, "refused", "TEST_ACK_status=%u(%s)", m->status,
			strerror((int)m->status));
	else
		outcome(false, "accepted", "TEST_ACK_status=0");
	free(m);
	client_close();
}

/* Our memory for a ping: sources then sinks, one region a slot. */
static uint32_t our_ping_regions(struct region *r, uint32_t size, uint32_t depth,
				 uint32_t rkey)
{
	for (uint32_t s = 0; s < 2 * depth; s++) {
		r[s].addr = (uintptr_t)(P.data + (size_t)s * size);
		r[s].rkey = rkey;
		r[s].len = size;
	}
	return 2 * depth;
}

/*
 * A ping whose regions the kernel will RDMA: it accepts the test, then its
 * READ of our source must fail on the wire and close the session.
 */
static void ping_bad_region(const struct region *r, uint32_t n, uint32_t size,
			    const char *what)
{
	struct msg *m = test_req(KRDMA_OP_PING, size, 1, n, 1, r, n);

	if (!m) {
		if (P.disconnected)
			outcome(true, "closed", "%s: closed at TEST_REQ", what);
		else
			outcome(false, "hang", "%s: no TEST_ACK", what);
		return;
	}
	if (m->status) {
		outcome(true, "refused", "%s: TEST_ACK_status=%u", what, m->status);
		free(m);
		client_close();
		return;
	}
	free(m);
	pattern_fill(P.data, size, seed_of(g_test_id, 0));
	send_msg(KRDMA_MSG_PING, g_test_id, 0, 0, NULL, 0);
	m = wait_msg(KRDMA_MSG_ITER_ACK, P.tmo_ms);
	if (m) {
		outcome(false, "accepted", "%s: ITER_ACK_status=%u: the kernel's RDMA went through",
			what, m->status);
		free(m);
		client_close();
		return;
	}
	expect_closed(what);
}

static void sc_req_rkey_small(const struct target *t)
{
	uint32_t size = 8192;
	struct region r[2];
	struct ibv_mr *small;

	if (!connected(t))
		return;
	/* Advertise 8 KiB, register 4 KiB: the kernel's READ must fail. */
	small = ibv_reg_mr(P.pd, P.data, 4096, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
	if (!small)
		die("ibv_reg_mr: %s", strerror(errno));
	r[0] = (struct region){ (uintptr_t)P.data, small->rkey, size };
	r[1] = (struct region){ (uintptr_t)(P.data + 2 * size), P.mr->rkey, size };
	ping_bad_region(r, 2, size, "source_rkey_covers_4K_of_8K");
}

/*
 * The kernel exposed regions for a test we drive (write/read/atomics):
 * @abuse runs against the first region after one valid iteration.
 */
enum abuse { AB_OOB_AFTER, AB_OOB_BEFORE, AB_WRONG_ACCESS, AB_STALE };

static void drive_and_abuse(const struct target *t, uint8_t op,
			    enum abuse ab)
{
	uint32_t size = op == KRDMA_OP_ATOMIC_FADD ? 8 : 4096;
	struct region r[4];
	struct msg *m;
	uint32_t n;
	int st;

	if (!connected(t))
		return;
	m = test_req(op, size, 1, 0, 0, NULL, 0);
	if (!m || m->status) {
		outcome(false, "error", "the kernel did not accept a valid test (status %u)",
			m ? m->status : 0);
		free(m);
		return;
	}
	n = body_regions(m, r, 4);
	free(m);
	if (n != 1 || r[0].len != size) {
		outcome(false, "error", "unexpected TEST_ACK regions: n=%u", n);
		return;
	}

	/* One valid iteration first: the rkey works inside the region. */
	if (op == KRDMA_OP_WRITE) {
		pattern_fill(P.data, size, seed_of(g_test_id, 0));
		st = rdma_sync(IBV_WR_RDMA_WRITE, P.data, size, r[0].addr, r[0].rkey);
		send_msg(KRDMA_MSG_NOTIFY, g_test_id, 0, 0, NULL, 0);
	} else if (op == KRDMA_OP_READ) {
		memset(P.data, 0, size);
		st = rdma_sync(IBV_WR_RDMA_READ, P.data, size, r[0].addr, r[0].rkey);
		if (st == IBV_WC_SUCCESS && !pattern_check(P.data, size, seed_of(g_test_id, 0)))
			outcome(false, "unexpected", "READ of the kernel's source: wrong data");
		send_msg(KRDMA_MSG_RELEASE, g_test_id, 0, 0, NULL, 0);
	} else {
		st = rdma_sync(IBV_WR_ATOMIC_FETCH_AND_ADD, P.data, 8, r[0].addr, r[0].rkey);
	}
	if (st != IBV_WC_SUCCESS) {
		outcome(false, "error", "valid access failed: %s", wc_str(st));
		return;
	}
	if (op != KRDMA_OP_ATOMIC_FADD) {
		m = wait_msg(KRDMA_MSG_ITER_ACK, P.tmo_ms);
		if (!m || m->status) {
			outcome(false, "error", "valid iteration not acked (status %u)",
				m ? m->status : 0);
			free(m);
			return;
		}
		free(m);
	}
	printf("HOSTILE scenario=%s step=valid_access status=success region=0x%" PRIx64
	       "+%u rkey=0x%x\n", P.scen, r[0].addr, r[0].len, r[0].rkey);

	if (ab == AB_STALE) {
		send_msg(KRDMA_MSG_TEST_END, g_test_id, 1, 0, NULL, 0);
		m = wait_msg(KRDMA_MSG_TEST_RESULT, P.tmo_ms);
		if (!m) {
			outcome(false, "hang", "no TEST_RESULT");
			return;
		}
		free(m);
		/* The regions are invalidated before TEST_RESULT (protocol.rst). */
		if (op == KRDMA_OP_READ)
			st = rdma_sync(IBV_WR_RDMA_READ, P.data, size, r[0].addr, r[0].rkey);
		else if (op == KRDMA_OP_ATOMIC_FADD)
			st = rdma_sync(IBV_WR_ATOMIC_FETCH_AND_ADD, P.data, 8, r[0].addr,
				       r[0].rkey);
		else
			st = rdma_sync(IBV_WR_RDMA_WRITE, P.data, size, r[0].addr, r[0].rkey);
	} else if (ab == AB_OOB_AFTER) {
		st = rdma_sync(IBV_WR_RDMA_WRITE, P.data, 16, r[0].addr + r[0].len - 8,
			       r[0].rkey);
	} else if (ab == AB_OOB_BEFORE) {
		st = rdma_sync(op == KRDMA_OP_READ ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE,
			       P.data, 16, r[0].addr - 8, r[0].rkey);
	} else if (op == KRDMA_OP_WRITE) {
		st = rdma_sync(IBV_WR_RDMA_READ, P.data, size, r[0].addr, r[0].rkey);
	} else {
		st = rdma_sync(IBV_WR_RDMA_WRITE, P.data, size, r[0].addr, r[0].rkey);
	}
	if (st == IBV_WC_SUCCESS) {
		outcome(false, "accepted", "the access went through");
		client_close();
		return;
	}
	if (st < 0) {
		outcome(false, "hang", "no completion for the access");
		return;
	}
	/* Our QP is dead now; does the kernel notice its own is too? */
	outcome(true, "remote_error", "wc_status=%s(%d) kernel_closed=%s", wc_str(st), st,
		wait_disconnect(P.tmo_ms / 2) ? "yes" : "no");
}

/* More SENDs than the kernel has receives: flow control must hold. */
static void sc_send_flood(const struct target *t)
{
	uint32_t n = 8 * 8, acks = 0, size = 64;
	uint8_t b[HDR_LEN + 64];
	uint64_t iters, validated;
	struct msg *m;
	int64_t end;

	if (!connect_good(t, 8, 4096, 7))
		return;
	m = test_req(KRDMA_OP_SEND, size, 2, 0, 0, NULL, 0);
	if (!m || m->status) {
		outcome(false, "error", "send test not accepted");
		free(m);
		return;
	}
	free(m);
	for (uint32_t i = 0; i < n; i++) {
		hdr_pack(b, KRDMA_MSG_DATA, 0, g_test_id, i, size, 0);
		pattern_fill(b + HDR_LEN, size, seed_of(g_test_id, i));
		if (send_bytes(b, sizeof(b), false, 0))
			die("post send");
	}
	end = now_ms() + P.tmo_ms;
	while (acks < n && !P.disconnected && !P.qp_error && now_ms() < end) {
		m = next_msg((int)(end - now_ms()));
		if (!m)
			break;
		if (m->type == KRDMA_MSG_ITER_ACK && !m->status)
			acks++;
		free(m);
	}
	if (P.disconnected || P.qp_error) {
		outcome(true, "closed", "sent=%u acked=%u receive_queue=8 our_send=%s", n, acks,
			P.last_send_err ? wc_str(P.last_send_err - 1) : "ok");
		return;
	}
	if (acks != n) {
		outcome(false, "hang", "sent=%u acked=%u", n, acks);
		return;
	}
	send_msg(KRDMA_MSG_TEST_END, g_test_id, n, 0, NULL, 0);
	m = wait_msg(KRDMA_MSG_TEST_RESULT, P.tmo_ms);
	if (!m || m->len < RESULT_LEN) {
		outcome(false, "hang", "no TEST_RESULT after the flood");
		free(m);
		return;
	}
	result_unpack(m, &iters, &validated);
	outcome(iters == n && validated == n, "flow_controlled",
		"sent=%u acked=%u receive_queue=8 result_iters=%" PRIu64 " validated=%" PRIu64,
		n, acks, iters, validated);
	free(m);
	client_close();
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

static void sc_channel_few_credits(const struct target *t)
{
	struct ibv_qp_init_attr qa = {};
	struct rdma_conn_param cp = {};
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	uint8_t hb[HELLO_LEN];
	struct hello h;
	int64_t end;
	bool up = false, rej = false;
	uint8_t resp = 0, init = 0;

	good_hello(&h);
	h.channels = 1;
	hello_pack(hb, &h);
	if (!client_connect(t->addr, t->port, hb, HELLO_LEN, 7)) {
		outcome(false, "error", "a session of 2 QPs was not accepted (reject reason %d)",
			P.reject_reason);
		return;
	}

	if (rdma_create_id(P.ec, &id, NULL, RDMA_PS_TCP))
		die("rdma_create_id: %s", strerror(errno));
	resolve_addr(id, t->addr, t->port);
	/* Like a krdma channel: one-sided work only, no receives. */
	qa.send_cq = P.cq;
	qa.recv_cq = P.cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = 1;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, P.pd, &qa))
		die("rdma_create_qp: %s", strerror(errno));
	if (rdma_resolve_route(id, 5000))
		die("rdma_resolve_route: %s", strerror(errno));
	wait_cm(RDMA_CM_EVENT_ROUTE_RESOLVED, &ev);
	rdma_ack_cm_event(ev);

	good_hello(&h);
	h.flags = KRDMA_HELLO_F_CHANNEL;
	h.channels = 1;
	h.channel = 1;
	h.cookie = P.peer_hello.cookie;
	hello_pack(hb, &h);
	cp.private_data = hb;
	cp.private_data_len = HELLO_LEN;
	cp.responder_resources = CH_RESP;
	cp.initiator_depth = CH_INIT;
	cp.retry_count = 6;
	cp.rnr_retry_count = 7;
	if (rdma_connect(id, &cp))
		die("rdma_connect: %s", strerror(errno));
	end = now_ms() + P.tmo_ms;
	while (!up && !rej && !P.disconnected && now_ms() < end) {
		if (rdma_get_cm_event(P.ec, &ev)) {
			nap();
			continue;
		}
		if (ev->id != id) {
			handle_cm_event(ev);
		} else if (ev->event == RDMA_CM_EVENT_ESTABLISHED) {
			/* In our perspective, as the CM swapped them. */
			resp = ev->param.conn.responder_resources;
			init = ev->param.conn.initiator_depth;
			up = true;
		} else {
			rej = true;
		}
		rdma_ack_cm_event(ev);
	}
	if (!up) {
		outcome(false, rej ? "unexpected" : "hang",
			"the data channel was not connected%s",
			P.disconnected ? "; the session went down" : "");
		return;
	}
	outcome(resp <= CH_RESP && init <= CH_INIT,
		resp <= CH_RESP && init <= CH_INIT ? "ok" : "over_offer",
		"first_qp_responder_resources=%u first_qp_initiator_depth=%u offered_responder_resources=%u offered_initiator_depth=%u answered_responder_resources=%u answered_initiator_depth=%u",
		P.rd_resp, P.rd_init, CH_RESP, CH_INIT, resp, init);
	rdma_disconnect(id);
	client_close();
}

/* Still alive? A new (send) test must be answered. */
static bool kernel_answers(void)
{
	struct msg *m;

	g_test_id++;
	m = test_req(KRDMA_OP_SEND, 64, 1, 0, 0, NULL, 0);
	free(m);
	return m != NULL;
}

/* TEST_END twice in a row: one TEST_RESULT or a close, and no crash. */
static void sc_end_twice(const struct target *t)
{
	struct msg *m;
	int results = 0;

	if (!connected(t))
		return;
	m = test_req(KRDMA_OP_WRITE, 4096, 1, 0, 0, NULL, 0);
	if (!m || m->status) {
		outcome(false, "error", "write test not accepted");
		free(m);
		return;
	}
	free(m);
	send_msg(KRDMA_MSG_TEST_END, g_test_id, 0, 0, NULL, 0);
	send_msg(KRDMA_MSG_TEST_END, g_test_id, 0, 0, NULL, 0);
	while ((m = wait_msg(KRDMA_MSG_TEST_RESULT, 3000))) {
		results++;
		free(m);
	}
	if (P.disconnected)
		outcome(true, "closed", "TEST_RESULTs=%d, then the kernel closed the session",
			results);
	else if (results != 1)
		outcome(false, "unexpected", "TEST_RESULTs=%d, session still up", results);
	else if (kernel_answers())
		outcome(true, "ok", "TEST_RESULTs=1, the session still answers");
	else
		outcome(P.disconnected, P.disconnected ? "closed" : "hang",
			"TEST_RESULTs=1, then no answer to a new TEST_REQ");
	client_close();
}

/* PING then TEST_END at once: the kernel's READ is still in flight. */
static void sc_ping_end_inflight(const struct target *t)
{
	uint32_t size = 1 << 20, n;
	struct region r[2];
	struct msg *m;

	if (!connected(t))
		return;
	n = our_ping_regions(r, size, 1, P.mr->rkey);
	m = test_req(KRDMA_OP_PING, size, 1, n, 0, r, n);
	if (!m || m->status) {
		outcome(false, "error", "ping test not accepted");
		free(m);
		return;
	}
	free(m);
	pattern_fill(P.data, size, seed_of(g_test_id, 0));
	send_msg(KRDMA_MSG_PING, g_test_id, 0, 0, NULL, 0);
	send_msg(KRDMA_MSG_TEST_END, g_test_id, 0, 0, NULL, 0);
	m = wait_msg(KRDMA_MSG_TEST_RESULT, P.tmo_ms);
	if (P.disconnected) {
		outcome(true, "closed", "the kernel closed the session");
	} else if (m) {
		/* Safe only if the kernel still answers: is it alive? */
		bool alive = kernel_answers();

		outcome(alive || P.disconnected, alive ? "ok" : P.disconnected ? "closed" : "hang",
			"TEST_RESULT came; the session %s", alive ? "still answers" :
			"does not answer any more");
	} else {
		outcome(false, "hang", "no TEST_RESULT, no close");
	}
	free(m);
	client_close();
}

/* An atomic test "ended" after 2^62 iterations: the kernel must not spin. */
static void sc_atomic_end_huge(const struct target *t)
{
	struct msg *m;
	int64_t t0;

	if (!connected(t))
		return;
	m = test_req(KRDMA_OP_ATOMIC_FADD, 8, 1, 0, 0, NULL, 0);
	if (!m || m->status) {
		outcome(false, "error", "atomic test not accepted");
		free(m);
		return;
	}
	free(m);
	t0 = now_ms();
	send_msg(KRDMA_MSG_TEST_END, g_test_id, 1ULL << 62, 0, NULL, 0);
	m = wait_msg(KRDMA_MSG_TEST_RESULT, P.tmo_ms);
	if (m)
		outcome(true, "ok", "TEST_RESULT_status=%u after %" PRId64 " ms",
			m->status, now_ms() - t0);
	else if (P.disconnected)
		outcome(true, "closed", "the kernel closed the session");
	else
		outcome(false, "hang", "no answer in %d ms: the kernel is busy with 2^62 iterations",
			P.tmo_ms);
	free(m);
	client_close();
}

/* ---- what a peer may make the kernel spend ---- */

/* Holds the session until SIGUSR1; false if the kernel closed it first. */
static bool hold_session(void)
{
	int64_t end = now_ms() + 20 * (int64_t)P.tmo_ms;

	printf("HOSTILE scenario=%s step=held lport=%u\n", P.scen, P.lport);
	fflush(stdout);
	while (!got_usr1 && !P.disconnected && now_ms() < end)
		poll_some();
	if (got_usr1)
		return true;
	outcome(false, P.disconnected ? "closed" : "hang",
		"the session was not held until SIGUSR1 (disconnected=%d)", P.disconnected);
	return false;
}

/* An idle session, held: it counts against the kernel's session caps. */
static void sc_hold(const struct target *t)
{
	if (!connected(t))
		return;
	if (hold_session())
		outcome(true, "ok", "held_until_SIGUSR1");
	client_close();
}

/* A bw write test of 8 MiB, held: its target stays pinned in the kernel. */
static void sc_hold_bw(const struct target *t)
{
	struct msg *m;

	if (!connected(t))
		return;
	m = test_req_mode(KRDMA_OP_WRITE, KRDMA_MODE_BW, DATA_SZ, 1, 0, 0, NULL, 0);
	if (!m || m->status) {
		outcome(false, "error", "the kernel refused a bw write of 8 MiB (status %u)",
			m ? m->status : 0);
		free(m);
		return;
	}
	free(m);
	if (!hold_session())
		return;
	send_msg(KRDMA_MSG_TEST_END, g_test_id, 0, 0, NULL, 0);
	m = wait_msg(KRDMA_MSG_TEST_RESULT, P.tmo_ms);
	outcome(m != NULL, m ? "ok" : "hang", "held_until_SIGUSR1 TEST_RESULT=%s",
		m ? "yes" : "no");
	free(m);
	client_close();
}

/* A TEST_REQ the kernel must refuse with TEST_ACK status @want. */
static void expect_status(struct msg *m, uint32_t want)
{
	if (!m)
		outcome(false, P.disconnected ? "closed" : "hang", "no TEST_ACK");
	else if (m->status == want)
		outcome(true, "refused", "TEST_ACK_status=%u(%s)", m->status,
			strerror((int)m->status));
	else
		outcome(false, m->status ? "unexpected" : "accepted",
			"TEST_ACK_status=%u(%s) want=%u(%s)", m->status,
			strerror((int)m->status), want, strerror((int)want));
	free(m);
	client_close();
}

/*
 * The peer's test asks the responder for what it must not have: no
 * message ever comes after the TEST_ACK. The kernel must close the
 * session by its stall timer (stall_ms).
 */
static void expect_stall_close(struct msg *m, const char *what)
{
	int64_t t0 = now_ms();

	if (!m || m->status) {
		outcome(false, "error", "%s: the kernel did not accept the test (status %u)",
			what, m ? m->status : 0);
		free(m);
		return;
	}
	free(m);
	printf("HOSTILE scenario=%s step=silent\n", P.scen);
	fflush(stdout);
	if (wait_disconnect(3 * P.tmo_ms))
		outcome(true, "closed", "%s: the kernel closed the session after %" PRId64 " ms",
			what, now_ms() - t0);
	else
		outcome(false, "ignored", "%s: still connected after %d ms of silence",
			what, 3 * P.tmo_ms);
}

/* ---- the hello: the listener must refuse each ---- */

static void sc_bad_magic(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.magic = 0x52504e47;
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_NOT_KRDMA);
}

static void sc_no_private_data(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	reject_hello(t, &h, 0, KRDMA_REJ_NOT_KRDMA);
}

static void sc_wrong_version(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.version = NEWER_VERSION;
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_VERSION);
}

static void sc_flags(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.flags = 1;	/* no such flag */
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_BAD_PARAM);
}

static void sc_sq_depth_0(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.sq = 0;
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_BAD_PARAM);
}

static void sc_rq_depth_0(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.rq = 0;
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_BAD_PARAM);
}

static void sc_depth_65535(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.sq = 65535;
	h.rq = 65535;
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_BAD_PARAM);
}

static void sc_max_msg_0(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.max_msg = 0;
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_BAD_PARAM);
}

static void sc_max_msg_huge(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.max_msg = 0xffffffffU;
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_BAD_PARAM);
}

static void sc_short_hello(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	reject_hello(t, &h, offsetof(struct krdma_cm_hello, sq_depth),
		     KRDMA_REJ_BAD_PARAM);
}

static void sc_hello_mem_hog(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.sq = 4096;
	h.rq = 4096;
	h.max_msg = 8U << 20;
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_MEM_LIMIT);
}

static void sc_channel_no_session(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.flags = KRDMA_HELLO_F_CHANNEL;
	h.channels = 1;
	h.channel = 1;
	h.cookie = 0x5eed1234;
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_NO_SESSION);
}

static void sc_channel_index_0(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.flags = KRDMA_HELLO_F_CHANNEL;
	h.channels = 1;
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_BAD_PARAM);
}

static void sc_channels_16(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	h.channels = 16;
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_BAD_PARAM);
}

/* A valid hello: the script has brought the kernel to a session cap. */
static void sc_session_cap(const struct target *t)
{
	struct hello h;

	good_hello(&h);
	reject_hello(t, &h, HELLO_LEN, KRDMA_REJ_TOO_MANY_SESSIONS);
}

/* ---- malformed messages: the kernel must close the session ---- */

static void sc_unknown_type(const struct target *t)
{
	if (!connected(t))
		return;
	send_msg(77, g_test_id, 0, 0, NULL, 0);
	expect_closed("type_77");
}

static void sc_len_beyond_bytes(const struct target *t)
{
	uint8_t b[HDR_LEN + 24] = {};

	if (!connected(t))
		return;
	hdr_pack(b, KRDMA_MSG_TEST_REQ, 0, g_test_id, 0, 1000, 0);
	send_bytes(b, HDR_LEN + 24, false, 0);
	expect_closed("len=1000_bytes=24");
}

static void sc_len_short(const struct target *t)
{
	uint8_t b[HDR_LEN + 24] = {};

	if (!connected(t))
		return;
	hdr_pack(b, KRDMA_MSG_TEST_REQ, 0, g_test_id, 0, 8, 0);
	b[HDR_LEN] = KRDMA_OP_SEND;
	send_bytes(b, HDR_LEN + 24, false, 0);
	expect_closed("len=8_bytes=24");
}

static void sc_short_msg(const struct target *t)
{
	uint8_t b[HDR_LEN];

	if (!connected(t))
		return;
	hdr_pack(b, KRDMA_MSG_TEST_REQ, 0, g_test_id, 0, 0, 0);
	send_bytes(b, 16, false, 0);
	expect_closed("16_bytes");
}

static void sc_hdr_flags(const struct target *t)
{
	uint8_t b[HDR_LEN + TEST_BODY_LEN];

	if (!connected(t))
		return;
	hdr_pack(b, KRDMA_MSG_TEST_REQ, 0x8000, g_test_id, 0, TEST_BODY_LEN, 0);
	test_body(b + HDR_LEN, KRDMA_OP_SEND, 64, 1, 0, 0, NULL, 0);
	send_bytes(b, HDR_LEN + TEST_BODY_LEN, false, 0);
	expect_closed("flags=0x8000");
}

static void sc_len_over_max(const struct target *t)
{
	uint8_t b[HDR_LEN + 4000];
	struct msg *m;

	if (!connect_good(t, NRECV, 1024, 7))
		return;
	/* max_msg 1024 (receive buffers still 32 + 4096): a DATA of
	 * 4000 bytes fits the buffer but not max_msg or the test. */
	m = test_req(KRDMA_OP_SEND, 1024, 1, 0, 0, NULL, 0);
	if (!m || m->status) {
		outcome(false, "error", "send test not accepted");
		free(m);
		return;
	}
	free(m);
	hdr_pack(b, KRDMA_MSG_DATA, 0, g_test_id, 0, 4000, 0);
	pattern_fill(b + HDR_LEN, 4000, seed_of(g_test_id, 0));
	send_bytes(b, HDR_LEN + 4000, false, 0);
	expect_closed("DATA_len=4000_test_size=1024");
}

static void sc_msg_too_big(const struct target *t)
{
	if (!connected(t))
		return;
	/* The kernel's receive buffers: 32 + max(4096, 4096) bytes. */
	hdr_pack(P.big, KRDMA_MSG_DATA, 0, g_test_id, 0, 8192, 0);
	send_bytes(P.big, HDR_LEN + 8192, false, 0);
	expect_closed("SEND_of_8224_bytes_into_4128");
}

static void sc_unexpected_ack(const struct target *t)
{
	if (!connected(t))
		return;
	send_msg(KRDMA_MSG_ITER_ACK, g_test_id, 0, 0, NULL, 0);
	expect_closed("ITER_ACK_without_test");
}

static void sc_write_imm_unexpected(const struct target *t)
{
	struct ibv_send_wr wr = {}, *bad;

	if (!connected(t))
		return;
	wr.wr_id = WR_RDMA | 1;
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.imm_data = htonl(5);
	wr.send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(P.qp, &wr, &bad))
		die("post WRITE_WITH_IMM");
	expect_closed("zero-length_WRITE_WITH_IMM");
}

/* ---- bad TEST_REQs: refused, or the kernel's RDMA fails and closes ---- */

static void sc_req_nregions_beyond(const struct target *t)
{
	struct region r[2];
	uint32_t n;

	if (!connected(t))
		return;
	n = our_ping_regions(r, 4096, 1, P.mr->rkey);
	expect_refused(KRDMA_OP_PING, 4096, 1, 200, r, n);
}

static void sc_req_regions_small(const struct target *t)
{
	struct region r[4];
	uint32_t n;

	if (!connected(t))
		return;
	n = our_ping_regions(r, 4096, 2, P.mr->rkey);
	r[1].len = 2048;	/* slot 1's source: half of what size needs */
	expect_refused(KRDMA_OP_PING, 4096, 2, n, r, n);
}

static void sc_req_bad_op(const struct target *t)
{
	if (!connected(t))
		return;
	expect_refused(99, 64, 1, 0, NULL, 0);
}

static void sc_req_depth_huge(const struct target *t)
{
	if (!connected(t))
		return;
	expect_refused(KRDMA_OP_SEND, 64, 1U << 31, 0, NULL, 0);
}

static void sc_req_short_body(const struct target *t)
{
	uint8_t b[HDR_LEN + 8] = {};
	struct msg *m;

	if (!connected(t))
		return;
	hdr_pack(b, KRDMA_MSG_TEST_REQ, 0, g_test_id, 0, 8, 0);
	b[HDR_LEN] = KRDMA_OP_SEND;
	send_bytes(b, HDR_LEN + 8, false, 0);
	m = wait_msg(KRDMA_MSG_TEST_ACK, P.tmo_ms);
	if (m)
		outcome(m->status != 0, m->status ? "refused" : "accepted",
			"TEST_ACK_status=%u", m->status);
	else
		expect_closed("8-byte_TEST_REQ");
	free(m);
	client_close();
}

static void sc_req_region_wrap(const struct target *t)
{
	struct region r[2];
	uint32_t n;

	if (!connected(t))
		return;
	n = our_ping_regions(r, 8192, 1, P.mr->rkey);
	r[0].addr = 0xfffffffffffff000ULL;
	ping_bad_region(r, n, 8192, "source_0xfffffffffffff000+8K");
}

static void sc_req_rkey0(const struct target *t)
{
	struct region r[2];
	uint32_t n;

	if (!connected(t))
		return;
	n = our_ping_regions(r, 4096, 1, 0);
	ping_bad_region(r, n, 4096, "rkey_0");
}

/* ---- the kernel's regions, abused ---- */

static void sc_resp_oob_after(const struct target *t)
{
	drive_and_abuse(t, KRDMA_OP_WRITE, AB_OOB_AFTER);
}

static void sc_resp_oob_before(const struct target *t)
{
	drive_and_abuse(t, KRDMA_OP_WRITE, AB_OOB_BEFORE);
}

static void sc_resp_read_oob_before(const struct target *t)
{
	drive_and_abuse(t, KRDMA_OP_READ, AB_OOB_BEFORE);
}

static void sc_resp_narrow_write_region(const struct target *t)
{
	drive_and_abuse(t, KRDMA_OP_WRITE, AB_WRONG_ACCESS);
}

static void sc_resp_narrow_read_region(const struct target *t)
{
	drive_and_abuse(t, KRDMA_OP_READ, AB_WRONG_ACCESS);
}

static void sc_resp_narrow_atomic_region(const struct target *t)
{
	drive_and_abuse(t, KRDMA_OP_ATOMIC_FADD, AB_WRONG_ACCESS);
}

static void sc_stale_write(const struct target *t)
{
	drive_and_abuse(t, KRDMA_OP_WRITE, AB_STALE);
}

static void sc_stale_read(const struct target *t)
{
	drive_and_abuse(t, KRDMA_OP_READ, AB_STALE);
}

static void sc_stale_atomic(const struct target *t)
{
	drive_and_abuse(t, KRDMA_OP_ATOMIC_FADD, AB_STALE);
}

/* ---- caps and stalls: refused, or closed by the stall timer ---- */

/* As much as a ping of 126 x 8 MiB would be, over a lower cap. */
static void sc_mem_per_session(const struct target *t)
{
	if (!connected(t))
		return;
	expect_status(test_req(KRDMA_OP_WRITE, DATA_SZ, 16, 0, 0, NULL, 0), EDQUOT);
}

static void sc_mem_total(const struct target *t)
{
	if (!connected(t))
		return;
	expect_status(test_req_mode(KRDMA_OP_WRITE, KRDMA_MODE_BW, DATA_SZ, 1, 0, 0, NULL, 0),
		      ENOBUFS);
}

static void sc_responder_stall(const struct target *t)
{
	if (!connected(t))
		return;
	expect_stall_close(test_req(KRDMA_OP_WRITE, 4096, 1, 0, 0, NULL, 0),
			   "check_write_then_nothing");
}

static void sc_lat_write_silent(const struct target *t)
{
	struct region r[1];

	if (!connected(t))
		return;
	/* Our target, which the kernel would write back into. */
	r[0] = (struct region){ (uintptr_t)P.data, P.mr->rkey, 4096 };
	expect_stall_close(test_req_mode(KRDMA_OP_WRITE, KRDMA_MODE_LAT, 4096, 1, 1, 0, r, 1),
			   "lat_write_then_no_write");
}

const struct scenario client_scenarios[] = {
	{ "bad_magic", CLIENT, "hello with a wrong magic: reject 1", sc_bad_magic },
	{ "no_private_data", CLIENT, "no hello at all: reject 1", sc_no_private_data },
	{ "wrong_version", CLIENT, "hello of version 3 (newer than the module's): reject 2",
	  sc_wrong_version },
	{ "flags", CLIENT, "hello with flags set: reject 3", sc_flags },
	{ "sq_depth_0", CLIENT, "send queue depth 0: reject 3", sc_sq_depth_0 },
	{ "rq_depth_0", CLIENT, "receive queue depth 0: reject 3", sc_rq_depth_0 },
	{ "depth_65535", CLIENT, "queue depths 65535: reject 3", sc_depth_65535 },
	{ "max_msg_0", CLIENT, "max_msg 0: reject 3", sc_max_msg_0 },
	{ "max_msg_huge", CLIENT, "max_msg 4 GiB - 1: reject 3", sc_max_msg_huge },
	{ "short_hello", CLIENT, "8 bytes of hello (magic, version, flags): reject 3",
	  sc_short_hello },
	{ "hello_mem_hog", CLIENT,
	  "valid hello, 4096 receives of 8 MiB (32 GiB): reject 8, no OOM", sc_hello_mem_hog },
	{ "channel_no_session", CLIENT,
	  "data channel hello, a cookie no session has: reject 6", sc_channel_no_session },
	{ "channel_index_0", CLIENT, "data channel hello for channel 0: reject 3",
	  sc_channel_index_0 },
	{ "channels_16", CLIENT, "hello asking for 16 data channels (17 QPs): reject 3",
	  sc_channels_16 },
	{ "channel_few_credits", CLIENT,
	  "data channel offering fewer READ credits than the first QP: answered within its offer",
	  sc_channel_few_credits },
	{ "unknown_type", CLIENT, "message of type 77: session closed", sc_unknown_type },
	{ "len_beyond_bytes", CLIENT, "header len larger than the bytes sent: closed",
	  sc_len_beyond_bytes },
	{ "len_short", CLIENT, "header len smaller than the bytes sent: closed", sc_len_short },
	{ "short_msg", CLIENT, "a 16-byte SEND, shorter than a header: closed", sc_short_msg },
	{ "hdr_flags", CLIENT, "header flags set: closed", sc_hdr_flags },
	{ "len_over_max", CLIENT, "DATA longer than max_msg in a send test: closed",
	  sc_len_over_max },
	{ "msg_too_big", CLIENT, "SEND larger than the receive buffers: closed", sc_msg_too_big },
	{ "unexpected_ack", CLIENT, "ITER_ACK with no test running: closed", sc_unexpected_ack },
	{ "write_imm_unexpected", CLIENT, "WRITE_WITH_IMM, no test: closed",
	  sc_write_imm_unexpected },
	{ "req_nregions_beyond", CLIENT, "ping TEST_REQ, nregions past the body: refused",
	  sc_req_nregions_beyond },
	{ "req_regions_small", CLIENT, "ping TEST_REQ, regions smaller than size: refused",
	  sc_req_regions_small },
	{ "req_bad_op", CLIENT, "TEST_REQ with op 99: refused", sc_req_bad_op },
	{ "req_depth_huge", CLIENT, "TEST_REQ with depth 2^31: refused", sc_req_depth_huge },
	{ "req_short_body", CLIENT, "TEST_REQ with an 8-byte body: refused", sc_req_short_body },
	{ "req_region_wrap", CLIENT, "ping source at 2^64 - 4096, 8 KiB: READ fails, closed",
	  sc_req_region_wrap },
	{ "req_rkey0", CLIENT, "ping regions with rkey 0: READ fails, closed", sc_req_rkey0 },
	{ "req_rkey_small", CLIENT, "ping source rkey covers half: READ fails, closed",
	  sc_req_rkey_small },
	{ "resp_oob_after", CLIENT,
	  "WRITE 8 bytes past the kernel's write region: remote error", sc_resp_oob_after },
	{ "resp_oob_before", CLIENT,
	  "WRITE 8 bytes before the kernel's write region: remote error", sc_resp_oob_before },
	{ "resp_read_oob_before", CLIENT,
	  "READ 8 bytes before the kernel's read region: remote error", sc_resp_read_oob_before },
	{ "resp_narrow_write_region", CLIENT, "READ from a write-only region: remote error",
	  sc_resp_narrow_write_region },
	{ "resp_narrow_read_region", CLIENT, "WRITE to a read-only region: remote error",
	  sc_resp_narrow_read_region },
	{ "resp_narrow_atomic_region", CLIENT, "WRITE to an atomic-only region: remote error",
	  sc_resp_narrow_atomic_region },
	{ "stale_write", CLIENT,
	  "WRITE with a write region's rkey after TEST_RESULT: remote error", sc_stale_write },
	{ "stale_read", CLIENT,
	  "READ with a read region's rkey after TEST_RESULT: remote error", sc_stale_read },
	{ "stale_atomic", CLIENT,
	  "atomic with an atomic region's rkey after TEST_RESULT: remote error", sc_stale_atomic },
	{ "send_flood", CLIENT, "64 DATA SENDs at once against 8 receives: flow control holds",
	  sc_send_flood },
	{ "end_twice", CLIENT, "TEST_END twice: one TEST_RESULT, no crash", sc_end_twice },
	{ "ping_end_inflight", CLIENT, "PING then TEST_END at once: no use after free",
	  sc_ping_end_inflight },
	{ "atomic_end_huge", CLIENT, "atomic TEST_END with 2^62 iterations: no endless loop",
	  sc_atomic_end_huge },
	{ "hold", CLIENT, "a valid, idle session, held until SIGUSR1", sc_hold },
	{ "hold_bw", CLIENT, "a bw write test of 8 MiB, held until SIGUSR1, then TEST_END",
	  sc_hold_bw },
	{ "session_cap", CLIENT, "valid hello while the kernel is at a session cap: reject 7",
	  sc_session_cap },
	{ "mem_per_session", CLIENT,
	  "check write of 16 x 8 MiB (128 MiB) over max_session_mem_mb: refused EDQUOT",
	  sc_mem_per_session },
	{ "mem_total", CLIENT, "bw write of 8 MiB over what max_mem_mb leaves: refused ENOBUFS",
	  sc_mem_total },
	{ "responder_stall", CLIENT,
	  "check write test, then silence: the kernel's stall timer closes", sc_responder_stall },
	{ "lat_write_silent", CLIENT,
	  "lat write test, then no write: the polling thread stops, closed", sc_lat_write_silent },
};

const size_t n_client_scenarios = ARRAY_SIZE(client_scenarios);
