// SPDX-License-Identifier: GPL-2.0
/*
 * The table of "krdmactl conform": its case names, and which cases a
 * device and a session take (the commands themselves: test_cmds.c).
 */
#include <string.h>

#include <linux/krdma.h>

#include "conform.h"
#include "parse.h"
#include "unit.h"

/* rxe under a 1500-byte netdev, a session of the defaults. */
static const struct conform_target rxe = {
	.atomic_cap = 1 /* IB_ATOMIC_HCA */, .mtu = 1024, .max_msg = 65536,
	.initiator_depth = 16, .page_size = 4096, .max_sge = 32,
	.session_max_sge = 16, .session_max_read_sge = 16, .client = true,
	.peer_proto = 7,
};

TEST(conform_names_unique_and_found)
{
	size_t i, j;

	CHECK(conform_ncases >= 65);
	for (i = 0; i < conform_ncases; i++) {
		const char *name = conform_cases[i].name;
		const char *op = op_name(conform_wr_op(&conform_cases[i]));

		/* "op.size" or "op.rule", the WR's op first */
		CHECK_CASE(name, !strncmp(name, op, strlen(op)));
		CHECK_CASE(name, name[strlen(op)] == '.');
		for (j = i + 1; j < conform_ncases; j++)
			CHECK_CASE(name, strcmp(name, conform_cases[j].name));
		/* each runs alone by its name */
		CHECK_INT_CASE(name, conform_find(name), (int)i);
	}
	CHECK_INT(conform_find("write.mtu"), 2);
	CHECK_INT(conform_find("write.mtu_p"), 3);
	CHECK_INT(conform_find("atomic_fadd.8"), 35);
	CHECK_INT(conform_find("atomic_f"), MATCH_AMBIGUOUS);
	CHECK_INT(conform_find("send.longer"), (int)conform_ncases - 5);
	CHECK_INT(conform_find("write"), MATCH_AMBIGUOUS);
	CHECK_INT(conform_find("nope"), MATCH_NONE);
	CHECK_INT(conform_find(""), MATCH_NONE);
}

TEST(conform_sizes_on_rxe)
{
	static const struct {
		const char *name;
		uint64_t size;
	} want[] = {
		{ "write.1_byte", 1 },
		{ "write.mtu_minus_1", 1023 },
		{ "read.mtu", 1024 },
		{ "send.mtu_plus_1", 1025 },
		{ "send_imm.page_plus_1", 4097 },
		{ "write_imm.two_pages_plus_7", 8199 },
		{ "send.max_msg", 65536 },
		{ "atomic_fadd.8_bytes", 8 },
		{ "atomic_cswap.8_bytes", 8 },
	};
	const char *why;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		int k = conform_find(want[i].name);

		CHECK_CASE(want[i].name, k >= 0);
		if (k < 0)
			continue;
		why = "unset";
		CHECK_U64_CASE(want[i].name,
			       conform_size(&conform_cases[k], &rxe, &why),
			       want[i].size);
		CHECK_CASE(want[i].name, why == NULL);
	}
	/* On rxe, with the defaults, nothing is skipped: in the table, but
	 * the cases run by name only. */
	for (i = 0; i < conform_ncases; i++)
		CHECK_CASE(conform_cases[i].name,
			   (conform_size(&conform_cases[i], &rxe, &why) > 0) ==
			   !conform_cases[i].by_name);
}

TEST(conform_by_name_only)
{
	struct conform_target t = rxe;
	int k = conform_find("write.ack_timeout_min");
	const char *why = NULL;

	CHECK(k >= 0 && conform_cases[k].by_name);
	if (k < 0)
		return;
	CHECK_U64(conform_size(&conform_cases[k], &t, &why), 0);
	CHECK_STR(why, "run only when asked for by name: on a slow path it sends every message again");
	t.named = true;
	CHECK_U64(conform_size(&conform_cases[k], &t, &why), 65536);
}

/* The cases of op @op skipped on @t, each for @reason. */
static void check_op_skipped(const struct conform_target *t, uint8_t op,
			     const char *reason, bool skipped)
{
	const char *why;
	size_t i;

	for (i = 0; i < conform_ncases; i++) {
		/* A read-back's READ: conform_skips_read_back; RNR cases: */
		/* conform_skips_rnr. */
		if (conform_cases[i].op != op || conform_cases[i].read_back ||
		    conform_cases[i].rnr_hold || conform_cases[i].by_name)
			continue;
		why = NULL;
		CHECK_CASE(conform_cases[i].name,
			   (conform_size(&conform_cases[i], t, &why) == 0) ==
			   skipped);
		if (skipped && why)
			CHECK_STR_CASE(conform_cases[i].name, why, reason);
	}
}

TEST(conform_skips_what_the_device_lacks)
{
	struct conform_target t = rxe;

	t.atomic_cap = 0;	/* IB_ATOMIC_NONE: siw, some NICs */
	check_op_skipped(&t, KRDMA_OP_ATOMIC_FADD,
			 "the device has no atomics (atomic_cap none)", true);
	check_op_skipped(&t, KRDMA_OP_ATOMIC_CSWAP,
			 "the device has no atomics (atomic_cap none)", true);
	check_op_skipped(&t, KRDMA_OP_WRITE, NULL, false);
	check_op_skipped(&t, KRDMA_OP_SEND_IMM, NULL, false);

	t = rxe;
	t.atomic_cap = 2;	/* IB_ATOMIC_GLOB */
	check_op_skipped(&t, KRDMA_OP_ATOMIC_CSWAP, NULL, false);

	t = rxe;
	t.iwarp = true;		/* whatever atomic_cap says */
	check_op_skipped(&t, KRDMA_OP_ATOMIC_FADD, "iWARP has no RDMA atomics",
			 true);
	check_op_skipped(&t, KRDMA_OP_SEND_IMM, "iWARP has no immediate data",
			 true);
	check_op_skipped(&t, KRDMA_OP_WRITE_IMM, "iWARP has no immediate data",
			 true);
	check_op_skipped(&t, KRDMA_OP_READ, NULL, false);
	check_op_skipped(&t, KRDMA_OP_SEND, NULL, false);

	t = rxe;
	t.initiator_depth = 0;
	check_op_skipped(&t, KRDMA_OP_READ,
			 "the session negotiated no READ/atomic credits", true);
	check_op_skipped(&t, KRDMA_OP_ATOMIC_FADD,
			 "the session negotiated no READ/atomic credits", true);
	check_op_skipped(&t, KRDMA_OP_WRITE, NULL, false);
}

/* The max_sge cases: a READ's at max_read_sge (siw: 1, skipped). */
TEST(conform_max_sge_per_op)
{
	struct conform_target t = rxe;
	const char *why = NULL;
	int r = conform_find("read.max_sge"), w = conform_find("write.max_sge");

	CHECK(r >= 0 && w >= 0);
	if (r < 0 || w < 0)
		return;
	t.session_max_sge = 6;
	t.session_max_read_sge = 1;
	CHECK_U64(conform_sges(&conform_cases[w], &t), 6);
	CHECK_U64(conform_size(&conform_cases[w], &t, &why), 1000);
	CHECK_U64(conform_size(&conform_cases[r], &t, &why), 0);
	CHECK_STR(why, "the session's QPs take one SGE a READ");
	t.session_max_read_sge = 4;
	CHECK_U64(conform_sges(&conform_cases[r], &t), 4);
	CHECK_U64(conform_size(&conform_cases[r], &t, &why), 1000);
}

/* The fenced READ after a WRITE: READ credits, a peer of version 5. */
TEST(conform_skips_read_back)
{
	int k = conform_find("read.fenced_after_write");
	struct conform_target t = rxe;
	const char *why = NULL;

	CHECK(k >= 0);
	if (k < 0)
		return;
	CHECK(conform_cases[k].read_back);
	CHECK_INT(conform_wr_op(&conform_cases[k]), KRDMA_OP_READ);
	CHECK_U64(conform_size(&conform_cases[k], &t, &why), 8199);
	CHECK(why == NULL);
	t.initiator_depth = 0;
	CHECK_U64(conform_size(&conform_cases[k], &t, &why), 0);
	CHECK_STR(why, "the session negotiated no READ/atomic credits");
	t = rxe;
	t.peer_proto = 4;
	CHECK_U64(conform_size(&conform_cases[k], &t, &why), 0);
	CHECK_STR(why, "the peer's krdma predates read-back (protocol version 5)");
	t.iwarp = true;	/* READs, and no immediates, on iWARP: still version 5 */
	t.peer_proto = 5;
	CHECK_U64(conform_size(&conform_cases[k], &t, &why), 8199);
}

/* Keys the peer invalidates (LOCAL_INV, SEND_WITH_INV): a peer of version 6. */
TEST(conform_skips_invalidated_rkey)
{
	static const char *const names[] = {
		"write.invalidated_rkey", "read.invalidated_rkey",
	};
	struct conform_target t;
	const char *why = NULL;
	size_t i;
	int k;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		k = conform_find(names[i]);
		CHECK_CASE(names[i], k >= 0);
		if (k < 0)
			continue;
		CHECK_CASE(names[i], conform_cases[k].violate ==
			   KRDMA_VIOLATE_INVALIDATED_RKEY);
		t = rxe;
		CHECK_U64_CASE(names[i], conform_size(&conform_cases[k], &t, &why), 1);
		t.peer_proto = 5;
		CHECK_U64_CASE(names[i], conform_size(&conform_cases[k], &t, &why), 0);
		CHECK_STR_CASE(names[i], why,
			       "the peer's krdma predates invalidated keys (protocol version 6)");
	}
	/* WRs of 0 bytes, at a target of 1 byte: version 6 too. */
	for (i = 0; i < 3; i++) {
		static const char *const zero[] = {
			"write.0_bytes", "write_imm.0_bytes", "read.0_bytes",
		};

		k = conform_find(zero[i]);
		CHECK_CASE(zero[i], k >= 0 && conform_cases[k].zero_length);
		if (k < 0)
			continue;
		CHECK_STR_CASE(zero[i], conform_size_text(conform_cases[k].size), "0");
		t = rxe;
		t.max_msg = 1;
		CHECK_U64_CASE(zero[i], conform_size(&conform_cases[k], &t, &why), 1);
		t.peer_proto = 5;
		CHECK_U64_CASE(zero[i], conform_size(&conform_cases[k], &t, &why), 0);
		CHECK_STR_CASE(zero[i], why,
			       "the peer's krdma predates zero-length tests (protocol version 6)");
	}
	/* The WRITE through the key a SEND_WITH_INV invalidated: version 6. */
	k = conform_find("write.send_invalidated_rkey");
	CHECK(k >= 0);
	if (k < 0)
		return;
	CHECK(conform_cases[k].send_invalidate && conform_cases[k].op == KRDMA_OP_SEND);
	CHECK_INT(conform_wr_op(&conform_cases[k]), KRDMA_OP_WRITE);
	t = rxe;
	CHECK_U64(conform_size(&conform_cases[k], &t, &why), 1);
	t.peer_proto = 5;
	CHECK_U64(conform_size(&conform_cases[k], &t, &why), 0);
	CHECK_STR(why, "the peer's krdma predates SEND_WITH_INV tests (protocol version 6)");
	/* The SEND_WITH_INV case: a send at the MTU + 1, version 6 too. */
	k = conform_find("send.with_invalidate");
	CHECK(k >= 0);
	if (k < 0)
		return;
	CHECK(conform_cases[k].send_invalidate && !conform_cases[k].violate);
	t = rxe;
	CHECK_U64(conform_size(&conform_cases[k], &t, &why), 1025);
	t.peer_proto = 5;
	CHECK_U64(conform_size(&conform_cases[k], &t, &why), 0);
	CHECK_STR(why, "the peer's krdma predates SEND_WITH_INV tests (protocol version 6)");
}

/* The atomics' larger targets: each word once, a peer of version 5. */
TEST(conform_atomic_targets)
{
	static const char *const names[] = {
		"atomic_fadd.every_offset", "atomic_cswap.every_offset",
		"atomic_fadd.unaligned",
	};
	static const uint64_t sizes[] = { 4096, 4096, 16 };
	static const uint64_t counts[] = { 512, 512, 8 };
	struct conform_target t;
	const char *why = NULL;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		int k = conform_find(names[i]);

		CHECK_CASE(names[i], k >= 0);
		if (k < 0)
			continue;
		t = rxe;
		/* not a message: max_msg does not bound it */
		t.max_msg = 1000;
		CHECK_U64_CASE(names[i], conform_size(&conform_cases[k], &t, &why),
			       sizes[i]);
		CHECK_U64_CASE(names[i], conform_count(&conform_cases[k], sizes[i]),
			       counts[i]);
		t.peer_proto = 4;
		CHECK_U64_CASE(names[i], conform_size(&conform_cases[k], &t, &why), 0);
		CHECK_STR_CASE(names[i], why,
			       "the peer's krdma predates atomics targets of more than 8 bytes (protocol version 5)");
		t = rxe;
		t.atomic_cap = 0;
		CHECK_U64_CASE(names[i], conform_size(&conform_cases[k], &t, &why), 0);
		CHECK_STR_CASE(names[i], why, "the device has no atomics (atomic_cap none)");
	}
	CHECK_U64(conform_count(&conform_cases[conform_find("atomic_fadd.8_bytes")], 8), 8);
}

TEST(conform_skips_what_the_session_cannot_take)
{
	/* rxe's target but for mtu, max_msg and page_size (0: rxe's). */
	static const struct {
		const char *what;
		uint32_t mtu, max_msg, page_size;
		const char *name;
		uint64_t size;		/* 0: skipped, for @why */
		const char *why;
	} t[] = {
		/* max_msg between the MTU and a page: the pages' cases skip */
		{ "max_msg 2K", 0, 2048, 0, "send.mtu_plus_1", 1025, NULL },
		{ "max_msg 2K", 0, 2048, 0, "send.page_plus_1", 0,
		  "larger than the session's max_msg" },
		{ "max_msg 2K", 0, 2048, 0, "write.max_msg", 2048, NULL },
		/* the atomics move 8 bytes whatever max_msg is */
		{ "max_msg 1", 0, 1, 0, "atomic_fadd.8_bytes", 8, NULL },
		{ "max_msg 1", 0, 1, 0, "write.1_byte", 1, NULL },
		/* no active port: the MTU's cases, and only those */
		{ "no MTU", 1u << 31, 0, 0, "read.mtu_minus_1", 0,
		  "the device reports no active MTU" },
		{ "no MTU", 1u << 31, 0, 0, "read.page_plus_1", 4097, NULL },
		/* a 64K page (arm64, ppc64) */
		{ "64K pages", 0, 1 << 20, 65536, "write.two_pages_plus_7",
		  131079, NULL },
		/* an MTU of 1: MTU-1 is no message, not a 0-byte one faked */
		{ "MTU 1", 1, 0, 0, "write.mtu_minus_1", 0,
		  "the size comes to 0 bytes, which no krdma test has" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct conform_target tg = rxe;
		const char *why = NULL;
		int k = conform_find(t[i].name);

		/* 1 << 31 stands for 0, which is rxe's */
		if (t[i].mtu)
			tg.mtu = t[i].mtu == 1u << 31 ? 0 : t[i].mtu;
		if (t[i].max_msg)
			tg.max_msg = t[i].max_msg;
		if (t[i].page_size)
			tg.page_size = t[i].page_size;
		CHECK_CASE(t[i].what, k >= 0);
		if (k < 0)
			continue;
		CHECK_U64_CASE(t[i].what, conform_size(&conform_cases[k], &tg, &why),
			       t[i].size);
		if (t[i].why && why)
			CHECK_STR_CASE(t[i].what, why, t[i].why);
		else
			CHECK_CASE(t[i].what, !why == !t[i].why);
	}
}

/* The RNR cases: IB and RoCE only, a peer of version 7, the client. */
TEST(conform_skips_rnr)
{
	static const char *const names[] = {
		"send.rnr_retried", "send.rnr_retry_exceeded",
	};
	struct conform_target t;
	const char *why;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		int k = conform_find(names[i]);

		CHECK_CASE(names[i], k >= 0);
		if (k < 0)
			continue;
		CHECK_CASE(names[i], conform_cases[k].rnr_hold);
		CHECK_U64_CASE(names[i], conform_count(&conform_cases[k], 1),
			       CONFORM_RNR_COUNT);
		t = rxe;
		why = "unset";
		CHECK_U64_CASE(names[i], conform_size(&conform_cases[k], &t, &why), 1);
		CHECK_CASE(names[i], !why);
		t.iwarp = true;
		CHECK_U64_CASE(names[i], conform_size(&conform_cases[k], &t, &why), 0);
		CHECK_CASE(names[i], why && strstr(why, "RFC 5040"));
		t = rxe;
		t.peer_proto = 6;
		CHECK_U64_CASE(names[i], conform_size(&conform_cases[k], &t, &why), 0);
		CHECK_CASE(names[i], why && strstr(why, "protocol version 7"));
		t = rxe;
		t.client = false;
		CHECK_U64_CASE(names[i], conform_size(&conform_cases[k], &t, &why), 0);
	}
	/* The peer's queue (rq_depth + 4 on one QP) runs out before the end. */
	CHECK(CONFORM_RNR_COUNT > CONFORM_RNR_RQ_DEPTH + 4);
	CHECK(CONFORM_RNR_DEPTH + 3 <= CONFORM_RNR_RQ_DEPTH);
}

TEST(conform_negative_cases)
{
	struct conform_target t = rxe;
	const char *why;
	size_t i, n = 0;

	for (i = 0; i < conform_ncases; i++) {
		const struct conform_case *cc = &conform_cases[i];

		/* Retries exhausted: no rule broken, the RNR retry count 0. */
		if (cc->rnr_hold) {
			CHECK_CASE(cc->name, !cc->violate && cc->own_session);
			CHECK_CASE(cc->name, cc->expect_wc ==
				   (cc->rnr_retry == 7 ? 0 :
				    CONFORM_WC_RNR_RETRY_EXC_ERR));
			continue;
		}
		if (!cc->violate) {
			CHECK_CASE(cc->name, cc->expect_wc == 0);
			continue;
		}
		n++;
		/* What the specification names for our completion. */
		CHECK_CASE(cc->name, cc->expect_wc ==
			   (cc->violate == KRDMA_VIOLATE_LONG_SEND ||
			    cc->violate == KRDMA_VIOLATE_UNALIGNED ?
			    CONFORM_WC_REM_INV_REQ_ERR : CONFORM_WC_REM_ACCESS_ERR));
		CHECK_CASE(cc->name, cc->violate <= KRDMA_VIOLATE_MAX);
		/* Its own session: the one conform runs on does not bound it. */
		t = rxe;
		t.max_msg = 1000;
		why = "unset";
		CHECK_CASE(cc->name, conform_size(cc, &t, &why) > 0 && !why);
		/* It connects to the peer's listener: only from the client. */
		t = rxe;
		t.client = false;
		CHECK_U64_CASE(cc->name, conform_size(cc, &t, &why), 0);
		CHECK_CASE(cc->name, why && strstr(why, "run conform on the side that connected"));
	}
	CHECK_INT((int)n, 12);
	/* The SEND a byte over a receive of the negative session's max_msg. */
	CHECK_U64(conform_size(&conform_cases[conform_find("send.longer")], &rxe, &why),
		  CONFORM_NEG_MAX_MSG);
	t = rxe;
	t.max_sge = 3;
	CHECK_U64(conform_size(&conform_cases[conform_find("send.longer")], &t, &why), 0);
	CHECK_STR(why, "the device takes fewer than 4 SGEs a WR");
	CHECK_U64(conform_size(&conform_cases[conform_find("write.out_of")], &t, &why), 1);
	/* The WR of a read-only region's case is a WRITE, of a read test. */
	i = (size_t)conform_find("write.read_only_region");
	CHECK_INT(conform_cases[i].op, KRDMA_OP_READ);
	CHECK_INT(conform_wr_op(&conform_cases[i]), KRDMA_OP_WRITE);
	/* The atomics' negative cases skip with the atomics. */
	t = rxe;
	t.atomic_cap = 0;
	CHECK_U64(conform_size(&conform_cases[conform_find("atomic_fadd.out")], &t, &why), 0);
}

TEST(conform_max_sge_cases)
{
	struct conform_target t = rxe;
	int k = conform_find("send.max_sge");
	const char *why;

	CHECK(k >= 0);
	if (k < 0)
		return;
	CHECK(conform_cases[k].max_sge);
	CHECK_U64(conform_size(&conform_cases[k], &t, &why), 1000);
	/* A QP of one SGE a WR has nothing to split over. */
	t.session_max_sge = 1;
	CHECK_U64(conform_size(&conform_cases[k], &t, &why), 0);
	CHECK_STR(why, "the session's QPs take one SGE a WR");
	/* Below the case's message: skipped as the others are. */
	t = rxe;
	t.max_msg = 999;
	CHECK_U64(conform_size(&conform_cases[k], &t, &why), 0);
	CHECK_STR(why, "larger than the session's max_msg");
}
