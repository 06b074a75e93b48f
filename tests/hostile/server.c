// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma-hostile: the server scenarios. A krdma session connects to us
 * and we answer it badly: a spoiled REP hello, a reject, a TEST_ACK with
 * bad regions, abuse of the regions of the kernel's ping, or a message
 * for a test that is over.
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

/* The kernel's credits from its CONNECT_REQUEST, which our accept grants. */
static struct rdma_conn_param accept_cp;

/*
 * Listens on the target's port until a krdma session connects; P.id is
 * then its connection, P.peer_hello its hello.
 */
static void wait_for_kernel(const struct target *t)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rdma_cm_event *ev;
	int saved = P.tmo_ms;

	sin.sin_port = htons((uint16_t)atoi(t->port));
	open_event_channel();
	if (rdma_create_id(P.ec, &P.listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(P.listen_id, (struct sockaddr *)&sin) ||
	    rdma_listen(P.listen_id, 4))
		die("cannot listen on port %s: %s", t->port, strerror(errno));
	printf("HOSTILE scenario=%s step=listening port=%s\n", P.scen, t->port);
	fflush(stdout);

	P.tmo_ms = 3 * saved;	/* the script connects after we listen */
	wait_cm(RDMA_CM_EVENT_CONNECT_REQUEST, &ev);
	P.tmo_ms = saved;
	P.id = ev->id;
	if (ev->param.conn.private_data && ev->param.conn.private_data_len >= HELLO_LEN)
		hello_unpack(&P.peer_hello, ev->param.conn.private_data);
	accept_cp.responder_resources = ev->param.conn.responder_resources;
	accept_cp.initiator_depth = ev->param.conn.initiator_depth;
	rdma_ack_cm_event(ev);
	record_lport(P.id);
	if (P.peer_hello.magic != KRDMA_PROTO_MAGIC)
		die("the connecting peer is not krdma");
}

/* Rejects the kernel's connection with @rej as the private data. */
static void reject_kernel(const uint8_t *rej)
{
	if (rdma_reject(P.id, rej, REJECT_LEN))
		die("rdma_reject: %s", strerror(errno));
	outcome(true, "rejected_sent", "%s", P.scen);
}

/* The REP hello of a krdma server, which mirrors the kernel's sizes. */
static void krdma_rep(struct hello *h)
{
	good_hello(h);
	h->sq = P.peer_hello.sq;
	h->rq = P.peer_hello.rq > NRECV ? NRECV : P.peer_hello.rq;
}

/* Accepts the kernel's connection with @len bytes of @h as the REP. */
static void accept_kernel(const struct hello *h, uint8_t len)
{
	uint8_t rep[HELLO_LEN];

	setup_queues(P.id);
	hello_pack(rep, h);
	accept_cp.private_data = len ? rep : NULL;
	accept_cp.private_data_len = len;
	accept_cp.rnr_retry_count = 7;
	accept_cp.retry_count = 6;
	if (rdma_accept(P.id, &accept_cp))
		die("rdma_accept: %s", strerror(errno));
}

/* The kernel checks our REP hello at ESTABLISHED and must close. */
static void expect_rep_closed(const char *what)
{
	if (wait_disconnect(P.tmo_ms))
		outcome(true, "closed", "the kernel closed the session after our %s REP", what);
	else
		outcome(false, "accepted", "the kernel kept a session with a bad REP hello");
}

/* The kernel's TEST_REQ; fills its regions. */
static struct msg *server_wait_req(struct region *r, uint32_t max, uint32_t *n)
{
	struct msg *m = wait_msg(KRDMA_MSG_TEST_REQ, P.tmo_ms);

	if (!m) {
		outcome(false, P.disconnected ? "unexpected" : "hang", "no TEST_REQ from the kernel");
		return NULL;
	}
	*n = body_regions(m, r, max);
	return m;
}

/*
 * Accepts the kernel's session as a krdma server would and waits for its
 * TEST_REQ (NULL if none came), whose regions go to @r.
 */
/* The version our REP announces, if not OUR_VERSION (0). */
static uint16_t rep_version;

static struct msg *kernel_test(const struct target *t, struct region *r, uint32_t max,
			       uint32_t *nr)
{
	struct hello h;

	wait_for_kernel(t);
	krdma_rep(&h);
	if (rep_version)
		h.version = rep_version;
	accept_kernel(&h, HELLO_LEN);
	return server_wait_req(r, max, nr);
}

/* The scenario is over: disconnect, unless the kernel already did. */
static void hang_up(void)
{
	if (!P.disconnected && !P.qp_error) {
		rdma_disconnect(P.id);
		wait_disconnect(2000);
	}
}

/* What a bad TEST_ACK gets wrong. */
enum ack_fault {
	ACK_SHORT_REGIONS,	/* region 0 half of what size needs */
	ACK_NREGIONS_BEYOND,	/* nregions 100 more than the body holds */
	ACK_REGIONS_FOR_SEND,	/* regions although the test has none */
	ACK_RKEY_SMALL,		/* the rkey's MR covers half of slot 0 */
	ACK_REGION_WRAP,	/* region 0 at 2^64 - 4096 */
	ACK_RKEY0,		/* every rkey 0 */
	ACK_TWICE,		/* a refusal, then a good TEST_ACK */
};

/* A TEST_ACK for the kernel's test, with regions that have @fault. */
static void server_ack(struct msg *req, enum ack_fault fault)
{
	struct test_params t;
	uint32_t size, depth, need;
	bool regions;
	struct region r[256];
	uint8_t b[CTRL_BODY_MAX];
	uint32_t n = 0, nreg, len, rkey = P.mr->rkey;
	struct ibv_mr *small = NULL;

	test_unpack(&t, req);
	size = t.size;
	depth = t.depth;
	need = (t.op == KRDMA_OP_ATOMIC_FADD || t.op == KRDMA_OP_ATOMIC_CSWAP) ? 8 : size;
	regions = t.op >= KRDMA_OP_WRITE;

	if (depth > 128 || (size_t)depth * need > DATA_SZ / 2)
		die("test too large for us: depth %u size %u", depth, size);
	memset(P.data, 0, DATA_SZ);
	if (fault == ACK_RKEY_SMALL) {
		/* Covers the first half of slot 0 only. */
		small = ibv_reg_mr(P.pd, P.data, need / 2 ? need / 2 : 1,
				   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
		if (!small)
			die("ibv_reg_mr: %s", strerror(errno));
		rkey = small->rkey;
	}
	if (regions || fault == ACK_REGIONS_FOR_SEND) {
		for (n = 0; n < depth; n++) {
			r[n].addr = (uintptr_t)(P.data + (size_t)n * need);
			r[n].rkey = rkey;
			r[n].len = need;
		}
	}
	nreg = n;
	if (fault == ACK_SHORT_REGIONS)
		r[0].len = need > 1 ? need / 2 : 0;
	else if (fault == ACK_NREGIONS_BEYOND)
		nreg = n + 100;
	else if (fault == ACK_REGION_WRAP)
		r[0].addr = 0xfffffffffffff000ULL;
	else if (fault == ACK_RKEY0)
		for (uint32_t i = 0; i < n; i++)
			r[i].rkey = 0;
	if (fault == ACK_TWICE) {
		/* The refusal ends the kernel's test; nothing may restart it. */
		len = test_body(b, t.op, size, depth, 0, t.count, NULL, 0);
		send_msg(KRDMA_MSG_TEST_ACK, req->test_id, 0, EINVAL, b, len);
	}
	len = test_body(b, t.op, size, depth, nreg, t.count, r, n);
	send_msg(KRDMA_MSG_TEST_ACK, req->test_id, 0, 0, b, len);
	if (small) {
		/* Our memory past the small MR must never change. */
		expect_closed("RDMA_past_our_half-size_MR");
		/* What lies past the small MR was never the kernel's to write. */
		for (uint32_t i = need / 2; i < need; i++)
			if (P.data[i]) {
				outcome(false, "overrun", "byte %u past our small MR was written", i);
				break;
			}
		return;
	}
	expect_closed(P.scen);
}

/*
 * What a ping responder does with the kernel's regions: PING_STALE
 * answers well, then (SIGUSR1) WRITEs the sink with its stale rkey;
 * PING_NARROW WRITEs the read-only source, PING_OOB READs past its end.
 */
enum ping_abuse {
	PING_STALE, PING_NARROW, PING_OOB, PING_RESULT_TWICE,
	PING_RESULT_STATUS,	/* TEST_RESULT's status 2^31: not an errno */
	PING_RESULT_SHORT,	/* TEST_RESULT of 8 bytes */
	PING_RESULT_ITERS,	/* TEST_RESULT of one iteration more than came */
	PING_RESULT_ENV,	/* version 4's env, garbage: escapes, bytes past NUL */
};

/* The kernel drives a ping: READ its source, WRITE its sink, ITER_ACK. */
static void server_ping(struct msg *req, struct region *r, uint32_t nr,
			enum ping_abuse abuse)
{
	struct test_params t;
	uint32_t size, depth;
	uint32_t test_id = req->test_id, per, done = 0, good = 0;
	uint8_t b[64], res[RESULT_LEN];
	struct msg *m;
	int st;

	test_unpack(&t, req);
	size = t.size;
	depth = t.depth;
	if (t.op != KRDMA_OP_PING || !depth || nr != t.nregions ||
	    nr % (2 * depth) || size > DATA_SZ) {
		outcome(false, "error", "want a ping TEST_REQ (got op %u, %u regions)",
			t.op, nr);
		return;
	}
	per = nr / (2 * depth);
	test_body(b, KRDMA_OP_PING, size, depth, 0, t.count, NULL, 0);
	send_msg(KRDMA_MSG_TEST_ACK, test_id, 0, 0, b, TEST_BODY_LEN);
	printf("HOSTILE scenario=%s step=test_req op=ping size=%u depth=%u source=0x%" PRIx64
	       "+%u/0x%x sink=0x%" PRIx64 "+%u/0x%x\n", P.scen, size, depth, r[0].addr,
	       r[0].len, r[0].rkey, r[depth * per].addr, r[depth * per].len,
	       r[depth * per].rkey);

	for (;;) {
		m = next_msg(P.tmo_ms);
		if (!m) {
			outcome(false, P.disconnected ? "unexpected" : "hang",
				"the kernel stopped in the middle of its ping (%u done)", done);
			return;
		}
		if (m->type == KRDMA_MSG_TEST_END)
			break;
		if (m->type != KRDMA_MSG_PING) {
			free(m);
			continue;
		}
		if (abuse == PING_NARROW || abuse == PING_OOB) {
			const struct region *src = &r[(m->iter % depth) * per];

			if (abuse == PING_NARROW)
				st = rdma_sync(IBV_WR_RDMA_WRITE, P.data, src->len, src->addr,
					       src->rkey);
			else
				st = rdma_sync(IBV_WR_RDMA_READ, P.data, src->len + 64,
					       src->addr, src->rkey);
			free(m);
			if (st == IBV_WC_SUCCESS)
				outcome(false, "accepted", "the access to the kernel's source went through");
			else
				outcome(remote_refused(st),
					remote_refused(st) ? "remote_error" :
					st >= 0 ? "other_error" : "hang",
					"wc_status=%s(%d) kernel_closed=%s", wc_str(st), st,
					wait_disconnect(P.tmo_ms / 2) ? "yes" : "no");
			return;
		}
		/* Well-behaved: every region of the slot, in order. */
		{
			uint32_t slot = m->iter % depth, off = 0;

			for (uint32_t k = 0; k < per; k++) {
				const struct region *src = &r[slot * per + k];

				st = rdma_sync(IBV_WR_RDMA_READ, P.data + off, src->len,
					       src->addr, src->rkey);
				if (st != IBV_WC_SUCCESS) {
					outcome(false, "error", "READ of the kernel's source: %s",
						wc_str(st));
					free(m);
					return;
				}
				off += src->len;
			}
			good += pattern_check(P.data, size, seed_of(test_id, m->iter));
			off = 0;
			for (uint32_t k = 0; k < per; k++) {
				const struct region *snk = &r[(depth + slot) * per + k];

				st = rdma_sync(IBV_WR_RDMA_WRITE, P.data + off, snk->len,
					       snk->addr, snk->rkey);
				if (st != IBV_WC_SUCCESS) {
					outcome(false, "error", "WRITE of the kernel's sink: %s",
						wc_str(st));
					free(m);
					return;
				}
				off += snk->len;
			}
		}
		send_msg(KRDMA_MSG_ITER_ACK, test_id, m->iter, 0, NULL, 0);
		done++;
		free(m);
	}
	free(m);
	result_pack(res, abuse == PING_RESULT_ITERS ? done + 1 : done, good, done - good);
	if (abuse == PING_RESULT_STATUS) {
		send_msg(KRDMA_MSG_TEST_RESULT, test_id, 0, 0x80000000u, res, RESULT_LEN);
		expect_closed("TEST_RESULT_status_2^31");
		return;
	}
	if (abuse == PING_RESULT_SHORT) {
		send_msg(KRDMA_MSG_TEST_RESULT, test_id, 0, 0, res, 8);
		expect_closed("TEST_RESULT_of_8_bytes");
		return;
	}
	if (abuse == PING_RESULT_ENV) {
		/* Right figures, an env no krdma writes: a terminal escape in
		 * the host name, bytes after its NUL, 3 lanes at 1 Tb/s. */
		struct krdma_msg_result full = {};
		static const char host[] = "\x1b]0;owned\x07node";

		memcpy(&full, res, RESULT_LEN);
		full.link_mbit_per_s = htobe32(1000000);
		full.link_width = 3;
		memcpy(full.host, host, sizeof(host));
		full.host[sizeof(full.host) - 1] = 'X';
		memset(full.fw_ver, 0xff, sizeof(full.fw_ver));
		send_msg(KRDMA_MSG_TEST_RESULT, test_id, 0, 0, &full, sizeof(full));
		expect_closed("TEST_RESULT_env_garbage");
		return;
	}
	send_msg(KRDMA_MSG_TEST_RESULT, test_id, 0, 0, res, RESULT_LEN);
	printf("HOSTILE scenario=%s step=ping_done iters=%u validated=%u\n", P.scen, done, good);
	fflush(stdout);
	if (abuse == PING_RESULT_ITERS) {
		/* The kernel fails its test, and may go on: we hang up. */
		outcome(true, "closed", "TEST_RESULT said %u iterations of %u", done + 1, done);
		return;
	}
	if (abuse == PING_RESULT_TWICE) {
		/* While the kernel invalidates its regions for the first. */
		send_msg(KRDMA_MSG_TEST_RESULT, test_id, 0, 0, res, RESULT_LEN);
		expect_closed("second_TEST_RESULT");
		return;
	}

	/* The kernel invalidates its regions after TEST_RESULT; the script
	 * tells us (SIGUSR1) once "test run" has reported the test done. */
	{
		int64_t end = now_ms() + P.tmo_ms;

		while (!got_usr1 && now_ms() < end && !P.disconnected)
			poll_some();
		if (!got_usr1) {
			outcome(false, "error", "no SIGUSR1 in %d ms (disconnected=%d)", P.tmo_ms,
				P.disconnected);
			return;
		}
	}
	/* The sink was remote-writable, the source remote-readable. */
	st = rdma_sync(IBV_WR_RDMA_WRITE, P.data, r[depth * per].len,
		       r[depth * per].addr, r[depth * per].rkey);
	if (st == IBV_WC_SUCCESS)
		outcome(false, "accepted", "WRITE with the kernel's stale sink rkey 0x%x went through",
			r[depth * per].rkey);
	else
		outcome(remote_refused(st),
			remote_refused(st) ? "remote_error" : st >= 0 ? "other_error" : "hang",
			"stale_sink_rkey=0x%x wc_status=%s(%d) kernel_closed=%s",
			r[depth * per].rkey, wc_str(st), st,
			wait_disconnect(P.tmo_ms / 2) ? "yes" : "no");
}

/*
 * The kernel drives a send test, which we answer well. Once it is over
 * (SIGUSR1: "test run" has reported it done), an ITER_ACK for it comes
 * late - while the script starts the kernel's next test, which replaces
 * the ended one: the kernel must close the session (a protocol error),
 * without freeing the ended test under the handler that looks at it.
 */
static void server_late(struct msg *req)
{
	struct test_params t;
	uint32_t test_id = req->test_id, done = 0;
	uint8_t b[64], res[RESULT_LEN];
	struct msg *m;
	int64_t end;

	test_unpack(&t, req);
	if (t.op != KRDMA_OP_SEND) {
		outcome(false, "error", "want a send TEST_REQ (got op %u)", t.op);
		return;
	}
	test_body(b, KRDMA_OP_SEND, t.size, t.depth, 0, t.count, NULL, 0);
	send_msg(KRDMA_MSG_TEST_ACK, test_id, 0, 0, b, TEST_BODY_LEN);
	for (;;) {
		m = next_msg(P.tmo_ms);
		if (!m) {
			outcome(false, P.disconnected ? "unexpected" : "hang",
				"the kernel stopped in the middle of its test (%u done)", done);
			return;
		}
		if (m->type == KRDMA_MSG_TEST_END)
			break;
		if (m->type == KRDMA_MSG_DATA) {
			send_msg(KRDMA_MSG_ITER_ACK, test_id, m->iter, 0, NULL, 0);
			done++;
		}
		free(m);
	}
	free(m);
	result_pack(res, done, done, 0);
	send_msg(KRDMA_MSG_TEST_RESULT, test_id, 0, 0, res, RESULT_LEN);
	printf("HOSTILE scenario=%s step=test_done iters=%u\n", P.scen, done);
	fflush(stdout);

	/* The script reports the test, then sets the kernel up: 3 waits. */
	end = now_ms() + 3 * P.tmo_ms;
	while (!got_usr1 && now_ms() < end && !P.disconnected)
		poll_some();
	if (!got_usr1) {
		outcome(false, "error", "no SIGUSR1 in %d ms (disconnected=%d)", 3 * P.tmo_ms,
			P.disconnected);
		return;
	}
	send_msg(KRDMA_MSG_ITER_ACK, test_id, 0, 0, NULL, 0);
	expect_closed("ITER_ACK_for_an_ended_test");
}

/* ---- rejects of the kernel's connection ---- */

static void sc_reject_unknown(const struct target *t)
{
	uint8_t rej[REJECT_LEN];

	wait_for_kernel(t);
	reject_pack(rej, OUR_VERSION, 99);
	reject_kernel(rej);
}

/* What a module of protocol 1 only answers a hello of 2. */
static void sc_reject_old_version(const struct target *t)
{
	uint8_t rej[REJECT_LEN];

	wait_for_kernel(t);
	reject_pack(rej, 1, KRDMA_REJ_VERSION);
	reject_kernel(rej);
}

static void sc_reject_garbage(const struct target *t)
{
	uint8_t rej[REJECT_LEN];

	wait_for_kernel(t);
	memcpy(rej, "GARBAGE!", REJECT_LEN);
	reject_kernel(rej);
}

/* ---- bad REP hellos: the kernel must close ---- */

static void sc_rep_bad_magic(const struct target *t)
{
	struct hello h;

	wait_for_kernel(t);
	krdma_rep(&h);
	h.magic = 0x52504e47;
	accept_kernel(&h, HELLO_LEN);
	expect_rep_closed("bad_magic");
}

static void sc_rep_wrong_version(const struct target *t)
{
	struct hello h;

	wait_for_kernel(t);
	krdma_rep(&h);
	h.version = NEWER_VERSION;
	accept_kernel(&h, HELLO_LEN);
	expect_rep_closed("wrong_version");
}

static void sc_rep_flags(const struct target *t)
{
	struct hello h;

	wait_for_kernel(t);
	krdma_rep(&h);
	h.flags = 4;	/* no such flag */
	accept_kernel(&h, HELLO_LEN);
	expect_rep_closed("flags");
}

static void sc_rep_depth_0(const struct target *t)
{
	struct hello h;

	wait_for_kernel(t);
	krdma_rep(&h);
	h.sq = 0;
	h.rq = 0;
	accept_kernel(&h, HELLO_LEN);
	expect_rep_closed("depth_0");
}

static void sc_rep_msg_huge(const struct target *t)
{
	struct hello h;

	wait_for_kernel(t);
	krdma_rep(&h);
	h.max_msg = 0xffffffffU;
	accept_kernel(&h, HELLO_LEN);
	expect_rep_closed("msg_huge");
}

static void sc_rep_none(const struct target *t)
{
	struct hello h;

	wait_for_kernel(t);
	krdma_rep(&h);
	accept_kernel(&h, 0);
	expect_rep_closed("none");
}

/*
 * How a scenario answers a test the kernel drives: which of the servers
 * above (and server_forge() below) takes the kernel's TEST_REQ.
 */
enum answer { ANSWER_ACK, ANSWER_PING, ANSWER_LATE, ANSWER_FORGE };
static void serve_kernel_test(const struct target *t, enum answer how, int fault);

/* ---- bad TEST_ACKs: the kernel must close ---- */

static void sc_ack_short_regions(const struct target *t)
{
	serve_kernel_test(t, ANSWER_ACK, ACK_SHORT_REGIONS);
}

static void sc_ack_nregions_beyond(const struct target *t)
{
	serve_kernel_test(t, ANSWER_ACK, ACK_NREGIONS_BEYOND);
}

static void sc_ack_regions_for_send(const struct target *t)
{
	serve_kernel_test(t, ANSWER_ACK, ACK_REGIONS_FOR_SEND);
}

/*
 * A send-invalidate test of the kernel's (version 6): its TEST_ACK must
 * give a target of 8 bytes a slot, the key a SEND_WITH_INV carries; a
 * page a slot is malformed.
 */
static void sc_ack_send_inv_wrong_len(const struct target *t)
{
	rep_version = KRDMA_PROTO_VERSION;
	serve_kernel_test(t, ANSWER_ACK, ACK_REGIONS_FOR_SEND);
}

static void sc_ack_rkey_small(const struct target *t)
{
	serve_kernel_test(t, ANSWER_ACK, ACK_RKEY_SMALL);
}

static void sc_ack_region_wrap(const struct target *t)
{
	serve_kernel_test(t, ANSWER_ACK, ACK_REGION_WRAP);
}

static void sc_ack_rkey0(const struct target *t)
{
	serve_kernel_test(t, ANSWER_ACK, ACK_RKEY0);
}

/* ---- the kernel's ping regions, abused ---- */

static void sc_ping_stale(const struct target *t)
{
	serve_kernel_test(t, ANSWER_PING, PING_STALE);
}

static void sc_ping_narrow(const struct target *t)
{
	serve_kernel_test(t, ANSWER_PING, PING_NARROW);
}

static void sc_ping_oob(const struct target *t)
{
	serve_kernel_test(t, ANSWER_PING, PING_OOB);
}

static void sc_result_twice(const struct target *t)
{
	serve_kernel_test(t, ANSWER_PING, PING_RESULT_TWICE);
}

static void sc_result_status(const struct target *t)
{
	serve_kernel_test(t, ANSWER_PING, PING_RESULT_STATUS);
}

static void sc_result_short(const struct target *t)
{
	serve_kernel_test(t, ANSWER_PING, PING_RESULT_SHORT);
}

static void sc_result_iters(const struct target *t)
{
	serve_kernel_test(t, ANSWER_PING, PING_RESULT_ITERS);
}

/* A peer of version 4, whose TEST_RESULT the kernel reads its env from. */
static void sc_result_env_garbage(const struct target *t)
{
	rep_version = 4;
	serve_kernel_test(t, ANSWER_PING, PING_RESULT_ENV);
}

static void sc_ack_twice(const struct target *t)
{
	serve_kernel_test(t, ANSWER_ACK, ACK_TWICE);
}

/* ---- a message for a test that is over ---- */

static void sc_late_iter_ack(const struct target *t)
{
	serve_kernel_test(t, ANSWER_LATE, 0);
}

/* ---- forged answers: a CREDIT or a PONG the kernel must refuse ---- */

/* What a forged answer to the kernel's send test gets wrong. */
enum forge {
	FORGE_CREDIT_QP,	/* bw: a CREDIT for QP 200 of a one-QP session */
	FORGE_CREDIT_ITER,	/* bw: a CREDIT for 2^40 receives, past all sent */
	FORGE_PONG_TWICE,	/* lat: the first ping answered twice */
};

/*
 * Answers the kernel's send test (bw for a CREDIT, lat for a PONG),
 * forging @forge after its first DATA. A PONG carries no iteration (the responder's PONG is written once,
 * for every answer): the kernel takes the extra one for the next ping's
 * answer, and so finds one PONG too many when no answer is due - at the
 * latest after its last ping, since every DATA gets its own PONG here too.
 */
static void server_forge(struct msg *req, enum forge forge)
{
	uint8_t mode = forge == FORGE_PONG_TWICE ? KRDMA_MODE_LAT : KRDMA_MODE_BW;
	struct test_params t;
	uint32_t test_id = req->test_id, datas = 0;
	uint8_t b[64];
	struct msg *m;

	test_unpack(&t, req);
	if (t.op != KRDMA_OP_SEND || t.mode != mode || t.size > SEND_SZ - HDR_LEN) {
		outcome(false, "error", "want a send TEST_REQ of mode %u (got op %u mode %u)",
			mode, t.op, t.mode);
		return;
	}
	test_body(b, t.op, t.size, t.depth, 0, t.count, NULL, 0);
	send_msg(KRDMA_MSG_TEST_ACK, test_id, 0, 0, b, TEST_BODY_LEN);
	while ((m = next_msg(P.tmo_ms))) {
		if (m->type != KRDMA_MSG_DATA) {
			free(m);
			continue;
		}
		if (forge == FORGE_PONG_TWICE) {
			/* The ping's payload back: the pattern the kernel checks. */
			send_msg(KRDMA_MSG_PONG, test_id, 0, 0, m->body, t.size);
			if (!datas)
				send_msg(KRDMA_MSG_PONG, test_id, 0, 0, m->body, t.size);
		} else if (!datas) {
			send_credit(test_id, forge == FORGE_CREDIT_QP ? 200 : 0,
				    forge == FORGE_CREDIT_QP ? 1 : 1ULL << 40);
		}
		datas++;
		free(m);
	}
	printf("HOSTILE scenario=%s step=forged data=%u\n", P.scen, datas);
	fflush(stdout);
	expect_closed(forge == FORGE_CREDIT_QP ? "CREDIT_for_QP_200" :
		      forge == FORGE_CREDIT_ITER ? "CREDIT_past_what_was_sent" :
		      "a_second_PONG");
}

/*
 * The shape of every scenario of a test the kernel drives: accept its
 * session, wait for its TEST_REQ (and the regions it offers), answer it as
 * @how says with @fault (an enum ack_fault, ping_abuse or forge; none
 * for ANSWER_LATE), hang up.
 */
static void serve_kernel_test(const struct target *t, enum answer how, int fault)
{
	struct region r[512];
	struct msg *m;
	uint32_t nr;

	m = kernel_test(t, r, ARRAY_SIZE(r), &nr);
	if (!m)
		return;
	switch (how) {
	case ANSWER_ACK:
		server_ack(m, fault);
		break;
	case ANSWER_PING:
		server_ping(m, r, nr, fault);
		break;
	case ANSWER_LATE:
		server_late(m);
		break;
	case ANSWER_FORGE:
		server_forge(m, fault);
		break;
	}
	free(m);
	hang_up();
}

static void sc_credit_qp_beyond(const struct target *t)
{
	serve_kernel_test(t, ANSWER_FORGE, FORGE_CREDIT_QP);
}

static void sc_credit_beyond_sent(const struct target *t)
{
	serve_kernel_test(t, ANSWER_FORGE, FORGE_CREDIT_ITER);
}

static void sc_pong_twice(const struct target *t)
{
	serve_kernel_test(t, ANSWER_FORGE, FORGE_PONG_TWICE);
}

const struct scenario server_scenarios[] = {
	{ "rep_bad_magic", SERVER, "REP hello with a wrong magic: the kernel closes",
	  sc_rep_bad_magic },
	{ "rep_wrong_version", SERVER, "REP hello of version 8: the kernel closes",
	  sc_rep_wrong_version },
	{ "rep_flags", SERVER, "REP hello with flags: the kernel closes", sc_rep_flags },
	{ "rep_depth_0", SERVER, "REP hello with depths 0: the kernel closes", sc_rep_depth_0 },
	{ "rep_msg_huge", SERVER, "REP hello with max_msg 4 GiB - 1: the kernel closes",
	  sc_rep_msg_huge },
	{ "rep_none", SERVER, "REP without private data: the kernel closes", sc_rep_none },
	{ "reject_unknown", SERVER, "krdma reject with reason 99", sc_reject_unknown },
	{ "reject_old_version", SERVER,
	  "a version-1-only peer's reject: version not supported", sc_reject_old_version },
	{ "reject_garbage", SERVER, "reject with non-krdma data", sc_reject_garbage },
	{ "ack_short_regions", SERVER, "TEST_ACK regions smaller than size: closed",
	  sc_ack_short_regions },
	{ "ack_nregions_beyond", SERVER, "TEST_ACK nregions past the body: closed",
	  sc_ack_nregions_beyond },
	{ "ack_regions_for_send", SERVER, "TEST_ACK of a send test with regions: closed",
	  sc_ack_regions_for_send },
	{ "ack_send_inv_wrong_len", SERVER,
	  "version 6, TEST_ACK of a send-invalidate test with targets of a page: closed",
	  sc_ack_send_inv_wrong_len },
	{ "ack_rkey_small", SERVER, "TEST_ACK rkey covers half a region: RDMA fails, closed",
	  sc_ack_rkey_small },
	{ "ack_region_wrap", SERVER, "TEST_ACK region at 2^64 - 4096: RDMA fails, closed",
	  sc_ack_region_wrap },
	{ "ack_rkey0", SERVER, "TEST_ACK regions with rkey 0: RDMA fails, closed", sc_ack_rkey0 },
	{ "ping_stale", SERVER, "good ping responder, then the kernel's rkeys after SIGUSR1",
	  sc_ping_stale },
	{ "ping_narrow", SERVER, "WRITE into the kernel's ping source (read-only)",
	  sc_ping_narrow },
	{ "ping_oob", SERVER, "READ past the end of the kernel's ping source", sc_ping_oob },
	{ "ack_twice_1m", SERVER,
	  "TEST_ACK refused, then TEST_ACK ok (lat write_imm 1 MiB): closed", sc_ack_twice },
	{ "ack_twice_4k", SERVER,
	  "TEST_ACK refused, then TEST_ACK ok (lat write_imm 4 KiB): closed", sc_ack_twice },
	{ "result_twice", SERVER,
	  "good ping responder, then TEST_RESULT twice: closed", sc_result_twice },
	{ "result_status", SERVER,
	  "good ping responder, then a TEST_RESULT whose status is 2^31: closed", sc_result_status },
	{ "result_short", SERVER,
	  "good ping responder, then a TEST_RESULT of 8 bytes: closed", sc_result_short },
	{ "result_env_garbage", SERVER,
	  "version 4, good ping responder, then a TEST_RESULT whose env is garbage: closed",
	  sc_result_env_garbage },
	{ "result_iters", SERVER,
	  "good ping responder, then a TEST_RESULT of one iteration more: the test fails",
	  sc_result_iters },
	{ "credit_qp_beyond", SERVER,
	  "bw send: a CREDIT for QP 200 of a one-QP session: closed", sc_credit_qp_beyond },
	{ "credit_beyond_sent", SERVER,
	  "bw send: a CREDIT for 2^40 receives, past what was sent: closed",
	  sc_credit_beyond_sent },
	{ "pong_twice", SERVER,
	  "lat send: the first ping answered twice, the rest once: closed", sc_pong_twice },
	{ "late_iter_ack", SERVER,
	  "good send responder, then an ITER_ACK for the ended test after SIGUSR1: closed",
	  sc_late_iter_ack },
};

const size_t n_server_scenarios = ARRAY_SIZE(server_scenarios);
