// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma-hostile: messages the kernel must not take from a client peer:
 * malformed ones, which must close the session, and bad TEST_REQs,
 * which must be refused or make the kernel's RDMA fail and close.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hostile.h"
#include "verbs.h"
#include "client.h"

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

/* ---- malformed messages: the kernel must close the session ---- */

void sc_unknown_type(const struct target *t)
{
	if (!connected(t))
		return;
	send_msg(77, g_test_id, 0, 0, NULL, 0);
	expect_closed("type_77");
}

void sc_len_beyond_bytes(const struct target *t)
{
	uint8_t b[HDR_LEN + 24] = {};

	if (!connected(t))
		return;
	hdr_pack(b, KRDMA_MSG_TEST_REQ, 0, g_test_id, 0, 1000, 0);
	send_bytes(b, HDR_LEN + 24, false, 0);
	expect_closed("len=1000_bytes=24");
}

void sc_len_short(const struct target *t)
{
	uint8_t b[HDR_LEN + 24] = {};

	if (!connected(t))
		return;
	hdr_pack(b, KRDMA_MSG_TEST_REQ, 0, g_test_id, 0, 8, 0);
	b[HDR_LEN] = KRDMA_OP_SEND;
	send_bytes(b, HDR_LEN + 24, false, 0);
	expect_closed("len=8_bytes=24");
}

void sc_short_msg(const struct target *t)
{
	uint8_t b[HDR_LEN];

	if (!connected(t))
		return;
	hdr_pack(b, KRDMA_MSG_TEST_REQ, 0, g_test_id, 0, 0, 0);
	send_bytes(b, 16, false, 0);
	expect_closed("16_bytes");
}

void sc_hdr_flags(const struct target *t)
{
	uint8_t b[HDR_LEN + TEST_BODY_LEN];

	if (!connected(t))
		return;
	hdr_pack(b, KRDMA_MSG_TEST_REQ, 0x8000, g_test_id, 0, TEST_BODY_LEN, 0);
	test_body(b + HDR_LEN, KRDMA_OP_SEND, 64, 1, 0, 0, NULL, 0);
	send_bytes(b, HDR_LEN + TEST_BODY_LEN, false, 0);
	expect_closed("flags=0x8000");
}

void sc_len_over_max(const struct target *t)
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

void sc_msg_too_big(const struct target *t)
{
	if (!connected(t))
		return;
	/* The kernel's receive buffers: 32 + max(4096, 4096) bytes. */
	hdr_pack(P.big, KRDMA_MSG_DATA, 0, g_test_id, 0, 8192, 0);
	send_bytes(P.big, HDR_LEN + 8192, false, 0);
	expect_closed("SEND_of_8224_bytes_into_4128");
}

void sc_unexpected_ack(const struct target *t)
{
	if (!connected(t))
		return;
	send_msg(KRDMA_MSG_ITER_ACK, g_test_id, 0, 0, NULL, 0);
	expect_closed("ITER_ACK_without_test");
}

/* A zero-length WRITE_WITH_IMM carrying @imm, while no test runs. */
static void write_imm_no_test(const struct target *t, uint32_t imm)
{
	struct ibv_send_wr wr = {}, *bad;

	if (!connected(t))
		return;
	wr.wr_id = WR_RDMA | 1;
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.imm_data = htonl(imm);
	wr.send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(P.qp, &wr, &bad))
		die("post WRITE_WITH_IMM");
	expect_closed("zero-length_WRITE_WITH_IMM");
}

void sc_write_imm_unexpected(const struct target *t)
{
	write_imm_no_test(t, 5);
}

/* An answer to a lat write_imm test (KRDMA_IMM_ANSWER) nobody runs. */
void sc_write_imm_answer_unexpected(const struct target *t)
{
	write_imm_no_test(t, KRDMA_IMM_ANSWER | 1);
}

/* ---- bad TEST_REQs: refused, or the kernel's RDMA fails and closes ---- */

void sc_req_nregions_beyond(const struct target *t)
{
	struct region r[2];
	uint32_t n;

	if (!connected(t))
		return;
	n = our_ping_regions(r, 4096, 1, P.mr->rkey);
	expect_refused(KRDMA_OP_PING, 4096, 1, 200, r, n);
}

void sc_req_regions_small(const struct target *t)
{
	struct region r[4];
	uint32_t n;

	if (!connected(t))
		return;
	n = our_ping_regions(r, 4096, 2, P.mr->rkey);
	r[1].len = 2048;	/* slot 1's source: half of what size needs */
	expect_refused(KRDMA_OP_PING, 4096, 2, n, r, n);
}

void sc_req_bad_op(const struct target *t)
{
	if (!connected(t))
		return;
	expect_refused(99, 64, 1, 0, NULL, 0);
}

void sc_req_depth_huge(const struct target *t)
{
	if (!connected(t))
		return;
	expect_refused(KRDMA_OP_SEND, 64, 1U << 31, 0, NULL, 0);
}

void sc_req_short_body(const struct target *t)
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

void sc_req_region_wrap(const struct target *t)
{
	struct region r[2];
	uint32_t n;

	if (!connected(t))
		return;
	n = our_ping_regions(r, 8192, 1, P.mr->rkey);
	r[0].addr = 0xfffffffffffff000ULL;
	ping_bad_region(r, n, 8192, "source_0xfffffffffffff000+8K");
}

void sc_req_rkey0(const struct target *t)
{
	struct region r[2];
	uint32_t n;

	if (!connected(t))
		return;
	n = our_ping_regions(r, 4096, 1, 0);
	ping_bad_region(r, n, 4096, "rkey_0");
}

void sc_req_rkey_small(const struct target *t)
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
