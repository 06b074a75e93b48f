// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma-hostile: a client peer that misbehaves inside a test the kernel
 * accepted: accesses to the regions it exposed that it must refuse,
 * more SENDs than it has receives, a TEST_END twice, too early or
 * after 2^62 iterations.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostile.h"
#include "verbs.h"
#include "client.h"

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
	outcome(remote_refused(st), remote_refused(st) ? "remote_error" : "other_error",
		"wc_status=%s(%d) kernel_closed=%s", wc_str(st), st,
		wait_disconnect(P.tmo_ms / 2) ? "yes" : "no");
}

/* More SENDs than the kernel has receives: flow control must hold. */
void sc_send_flood(const struct target *t)
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
void sc_end_twice(const struct target *t)
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
void sc_ping_end_inflight(const struct target *t)
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
void sc_atomic_end_huge(const struct target *t)
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
	/* Promptly, and saying the fetch-and-add total is not 2^62. */
	if (m)
		outcome(m->status == EBADMSG, m->status == EBADMSG ? "ok" : "wrong_status",
			"TEST_RESULT_status=%u after %" PRId64 " ms", m->status, now_ms() - t0);
	else if (P.disconnected)
		outcome(true, "closed", "the kernel closed the session");
	else
		outcome(false, "hang", "no answer in %d ms: the kernel is busy with 2^62 iterations",
			P.tmo_ms);
	free(m);
	client_close();
}

/* ---- the kernel's regions, abused ---- */

void sc_resp_oob_after(const struct target *t)
{
	drive_and_abuse(t, KRDMA_OP_WRITE, AB_OOB_AFTER);
}

void sc_resp_oob_before(const struct target *t)
{
	drive_and_abuse(t, KRDMA_OP_WRITE, AB_OOB_BEFORE);
}

void sc_resp_read_oob_before(const struct target *t)
{
	drive_and_abuse(t, KRDMA_OP_READ, AB_OOB_BEFORE);
}

void sc_resp_narrow_write_region(const struct target *t)
{
	drive_and_abuse(t, KRDMA_OP_WRITE, AB_WRONG_ACCESS);
}

void sc_resp_narrow_read_region(const struct target *t)
{
	drive_and_abuse(t, KRDMA_OP_READ, AB_WRONG_ACCESS);
}

void sc_resp_narrow_atomic_region(const struct target *t)
{
	drive_and_abuse(t, KRDMA_OP_ATOMIC_FADD, AB_WRONG_ACCESS);
}

void sc_stale_write(const struct target *t)
{
	drive_and_abuse(t, KRDMA_OP_WRITE, AB_STALE);
}

void sc_stale_read(const struct target *t)
{
	drive_and_abuse(t, KRDMA_OP_READ, AB_STALE);
}

void sc_stale_atomic(const struct target *t)
{
	drive_and_abuse(t, KRDMA_OP_ATOMIC_FADD, AB_STALE);
}

/* ---- control messages out of their phase ---- */

/* A write test the kernel accepted, or false (and an outcome). */
static bool accepted_write(const struct target *t, uint64_t count)
{
	struct msg *m;

	if (!connected(t))
		return false;
	m = test_req(KRDMA_OP_WRITE, 4096, 1, 0, count, NULL, 0);
	if (!m || m->status) {
		outcome(false, "error", "write test not accepted (status %u)", m ? m->status : 0);
		free(m);
		return false;
	}
	free(m);
	return true;
}

/* The kernel must close the session now, on what we just sent. */
static void expect_protocol_close(const char *what)
{
	expect_closed(what);
	client_close();
}

/* A second TEST_REQ while the first test runs: one test at a time. */
void sc_req_during_test(const struct target *t)
{
	struct msg *m;

	if (!accepted_write(t, 0))
		return;
	g_test_id++;
	m = test_req(KRDMA_OP_WRITE, 4096, 1, 0, 0, NULL, 0);
	if (m) {
		outcome(false, "accepted", "a TEST_REQ during a test was answered (status %u)",
			m->status);
		free(m);
		client_close();
		return;
	}
	expect_protocol_close("TEST_REQ_during_a_test");
}

/* TEST_END naming more iterations than the test's count. */
void sc_end_beyond_count(const struct target *t)
{
	if (!accepted_write(t, 4))
		return;
	send_msg(KRDMA_MSG_TEST_END, g_test_id, 5, 0, NULL, 0);
	expect_protocol_close("TEST_END_of_5_for_a_count_of_4");
}

/*
 * TEST_REQ and TEST_END back to back, before the TEST_ACK came: the
 * kernel takes them in order - one TEST_ACK, one TEST_RESULT of 0
 * iterations - and answers the next test.
 */
void sc_end_before_ack(const struct target *t)
{
	uint8_t b[CTRL_BODY_MAX];
	uint64_t iters, validated;
	uint32_t len = test_body(b, KRDMA_OP_WRITE, 4096, 1, 0, 0, NULL, 0);
	struct msg *ack, *res;

	if (!connected(t))
		return;
	if (send_msg(KRDMA_MSG_TEST_REQ, g_test_id, 0, 0, b, len) ||
	    send_msg(KRDMA_MSG_TEST_END, g_test_id, 0, 0, NULL, 0))
		die("cannot send TEST_REQ, TEST_END");
	ack = wait_msg(KRDMA_MSG_TEST_ACK, P.tmo_ms);
	res = ack ? wait_msg(KRDMA_MSG_TEST_RESULT, P.tmo_ms) : NULL;
	if (!ack || ack->status || !res || res->len < RESULT_LEN) {
		outcome(false, P.disconnected ? "closed" : "hang",
			"TEST_ACK %s (status %u), TEST_RESULT %s", ack ? "came" : "missing",
			ack ? ack->status : 0, res ? "came" : "missing");
	} else {
		result_unpack(res, &iters, &validated);
		outcome(iters == 0 && kernel_answers(), "ok",
			"TEST_RESULT iters=%" PRIu64 " status=%u; the session still answers",
			iters, res->status);
	}
	free(ack);
	free(res);
	client_close();
}

/*
 * TEST_REQ and TEST_END back to back for a test whose setup node 1 makes
 * fail half way (debugfs krdma/fail_peer_reg_test = BROKEN_TEST_ID): its
 * first slot's registration is posted, its second refused. The kernel
 * must close the session without answering, keep that work until
 * teardown's drain (KASAN and kmemleak on the debug kernel say whether
 * it did), and take the TEST_END for the broken test as nothing to end.
 */
void sc_end_after_broken_setup(const struct target *t)
{
	uint8_t b[CTRL_BODY_MAX];
	uint32_t len = test_body(b, KRDMA_OP_WRITE, 4096, 2, 0, 4, NULL, 0);
	struct msg *ack;

	if (!connected(t))
		return;
	if (send_msg(KRDMA_MSG_TEST_REQ, BROKEN_TEST_ID, 0, 0, b, len) ||
	    send_msg(KRDMA_MSG_TEST_END, BROKEN_TEST_ID, 0, 0, NULL, 0))
		die("cannot send TEST_REQ, TEST_END");
	ack = wait_msg(KRDMA_MSG_TEST_ACK, P.tmo_ms);
	if (ack) {
		outcome(false, "answered", "TEST_ACK (status %u) for a test set up half way",
			ack->status);
		free(ack);
		client_close();
		return;
	}
	expect_protocol_close("TEST_REQ_set_up_half_way");
}

/*
 * A DATA message on a data channel while no test of ours runs: a data
 * channel carries only the data of the peer's test that took its
 * receives, so the kernel closes the session.
 */
void sc_channel_msg_no_test(const struct target *t)
{
	uint8_t b[HDR_LEN + 64], resp = 0, init = 0;
	struct rdma_cm_id *ch = connect_with_channel(t, KRDMA_PROTO_VERSION, &resp, &init);

	if (!ch)
		return;
	hdr_pack(b, KRDMA_MSG_DATA, 0, g_test_id, 0, 64, 0);
	pattern_fill(b + HDR_LEN, 64, seed_of(g_test_id, 0));
	if (send_bytes_on(ch->qp, b, sizeof(b), false, 0))
		die("cannot send on the data channel");
	expect_closed("DATA_on_a_data_channel_without_a_test");
	rdma_disconnect(ch);
	client_close();
}

/*
 * A bw send test over two QPs, and at once a TEST_END naming 5 messages
 * that never came: the responder waits for the data channel's share,
 * which its stall timer must end (not pin the test, refusing every
 * later one, for ever).
 */
void sc_end_beyond_sent(const struct target *t)
{
	uint8_t b[CTRL_BODY_MAX], resp = 0, init = 0;
	/* Version 3: sends over several QPs, each QP with its credits. */
	struct rdma_cm_id *ch = connect_with_channel(t, KRDMA_PROTO_VERSION, &resp, &init);
	uint32_t len = test_body(b, KRDMA_OP_SEND, 64, 2, 0, 0, NULL, 0);
	struct msg *m;

	if (!ch)
		return;
	b[offsetof(struct krdma_msg_test, mode)] = KRDMA_MODE_BW;
	b[offsetof(struct krdma_msg_test, qps)] = 2;
	if (send_msg(KRDMA_MSG_TEST_REQ, g_test_id, 0, 0, b, len))
		die("cannot send TEST_REQ");
	m = wait_msg(KRDMA_MSG_TEST_ACK, P.tmo_ms);
	if (!m || m->status) {
		outcome(false, "error", "bw send test over 2 QPs not accepted (status %u)",
			m ? m->status : 0);
		free(m);
		client_close();
		return;
	}
	free(m);
	send_msg(KRDMA_MSG_TEST_END, g_test_id, 5, 0, NULL, 0);
	/* The kernel's stall timer: stall_ms, well within 3 of our waits. */
	if (wait_disconnect(3 * P.tmo_ms))
		outcome(true, "closed", "the kernel closed the session it waited on");
	else
		outcome(false, "hang", "still up %d ms after a TEST_END of 5 unsent messages",
			3 * P.tmo_ms);
	rdma_disconnect(ch);
	client_close();
}
