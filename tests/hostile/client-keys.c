// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma-hostile: the kernel's keys in a client peer's hands, and the
 * TEST_REQ flags of protocol versions 5 to 7 where they do not belong.
 * A flag out of place must be refused; a SEND_WITH_INV is a protocol
 * error but in a send-invalidate test, and one that invalidates another
 * slot's key than its own fails that iteration and nothing else.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "hostile.h"
#include "verbs.h"
#include "client.h"

/* A TEST_REQ of @op in @mode with @flags and @count the kernel must refuse. */
static void expect_count_refused(const struct target *t, uint8_t op,
				 uint8_t mode, uint8_t flags, uint64_t count)
{
	struct msg *m;

	if (!connected(t))
		return;
	m = test_req_flags(op, mode, flags, 64, 1, count);
	if (!m)
		expect_closed("TEST_REQ_flags_out_of_place");
	else
		outcome(m->status != 0, m->status ? "refused" : "accepted",
			"TEST_REQ_flags=0x%x_TEST_ACK_status=%u", flags, m->status);
	free(m);
	client_close();
}

static void expect_flags_refused(const struct target *t, uint8_t op,
				 uint8_t mode, uint8_t flags)
{
	expect_count_refused(t, op, mode, flags, 0);
}

void sc_req_flags_unknown(const struct target *t)
{
	expect_flags_refused(t, KRDMA_OP_SEND, KRDMA_MODE_CHECK, 0x80);
}

void sc_req_read_back_read(const struct target *t)
{
	expect_flags_refused(t, KRDMA_OP_READ, KRDMA_MODE_CHECK,
			     KRDMA_TEST_F_READ_BACK);
}

void sc_req_invalidated_send(const struct target *t)
{
	expect_flags_refused(t, KRDMA_OP_SEND, KRDMA_MODE_CHECK,
			     KRDMA_TEST_F_INVALIDATED);
}

void sc_req_send_inv_write(const struct target *t)
{
	expect_flags_refused(t, KRDMA_OP_WRITE, KRDMA_MODE_CHECK,
			     KRDMA_TEST_F_SEND_INV);
}

void sc_req_send_inv_bw(const struct target *t)
{
	expect_flags_refused(t, KRDMA_OP_SEND, KRDMA_MODE_BW,
			     KRDMA_TEST_F_SEND_INV);
}

void sc_req_zero_length_send(const struct target *t)
{
	expect_flags_refused(t, KRDMA_OP_SEND, KRDMA_MODE_CHECK,
			     KRDMA_TEST_F_ZERO_LENGTH);
}

void sc_req_rnr_hold_write(const struct target *t)
{
	expect_count_refused(t, KRDMA_OP_WRITE, KRDMA_MODE_CHECK,
			     KRDMA_TEST_F_RNR_HOLD, 100);
}

/*
 * Fewer SENDs than the kernel keeps receives posted: its queue would
 * never run empty, and its receives would stay held until the cap.
 */
void sc_req_rnr_hold_short(const struct target *t)
{
	expect_count_refused(t, KRDMA_OP_SEND, KRDMA_MODE_CHECK,
			     KRDMA_TEST_F_RNR_HOLD, 2);
}

/*
 * A write test's NOTIFY sent as a SEND_WITH_INV of the very key the
 * kernel gave for its target: the device invalidates it as asked, and
 * the kernel, which asked for no such thing, must close the session.
 */
void sc_send_inv_unasked(const struct target *t)
{
	uint8_t b[HDR_LEN];
	struct region r[2];
	struct msg *m;
	int st;

	if (!connected(t))
		return;
	m = test_req(KRDMA_OP_WRITE, 4096, 1, 0, 0, NULL, 0);
	if (!m || m->status || body_regions(m, r, 2) != 1) {
		outcome(false, "error", "the kernel did not accept a valid write test");
		free(m);
		return;
	}
	free(m);
	pattern_fill(P.data, 4096, seed_of(g_test_id, 0));
	st = rdma_sync(IBV_WR_RDMA_WRITE, P.data, 4096, r[0].addr, r[0].rkey);
	if (st != IBV_WC_SUCCESS) {
		outcome(false, "error", "valid WRITE failed: %s", wc_str(st));
		return;
	}
	hdr_pack(b, KRDMA_MSG_NOTIFY, 0, g_test_id, 0, 0, 0);
	if (send_bytes_inv(b, sizeof(b), r[0].rkey))
		die("post SEND_WITH_INV");
	expect_closed("NOTIFY_as_SEND_WITH_INV_of_the_target's_key");
}

/*
 * A send-invalidate test of two slots whose first SEND invalidates the
 * second slot's key: the kernel must fail that iteration (its receive
 * reports another key than the slot's) and stay up to end the test -
 * its teardown then invalidates an MR the device already freed.
 */
void sc_send_inv_wrong_key(const struct target *t)
{
	uint8_t b[HDR_LEN + 64];
	struct region r[3];
	struct msg *m;
	uint32_t st;

	if (!connected(t))
		return;
	m = test_req_flags(KRDMA_OP_SEND, KRDMA_MODE_CHECK, KRDMA_TEST_F_SEND_INV,
			   64, 2, 0);
	if (!m || m->status || body_regions(m, r, 3) != 2) {
		outcome(false, "error", "the kernel did not accept a send-invalidate test");
		free(m);
		return;
	}
	free(m);
	hdr_pack(b, KRDMA_MSG_DATA, 0, g_test_id, 0, 64, 0);
	pattern_fill(b + HDR_LEN, 64, seed_of(g_test_id, 0));
	if (send_bytes_inv(b, sizeof(b), r[1].rkey))
		die("post SEND_WITH_INV");
	m = wait_msg(KRDMA_MSG_ITER_ACK, P.tmo_ms);
	if (!m) {
		expect_closed("SEND_WITH_INV_of_slot_1's_key_for_slot_0");
		return;
	}
	st = m->status;
	free(m);
	send_msg(KRDMA_MSG_TEST_END, g_test_id, 1, 0, NULL, 0);
	m = wait_msg(KRDMA_MSG_TEST_RESULT, P.tmo_ms);
	if (!m)
		outcome(false, "hang", "ITER_ACK_status=%u, then no TEST_RESULT", st);
	else
		outcome(st == ENOKEY, st == ENOKEY ? "refused" : "accepted",
			"ITER_ACK_status=%u(%s)_TEST_RESULT_status=%u", st,
			strerror((int)st), m->status);
	free(m);
	client_close();
}
