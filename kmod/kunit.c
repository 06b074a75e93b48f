// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma's KUnit cases: what a peer's bytes decide without a wire - the
 * immediates of check-mode write_imm, the regions a TEST_REQ or TEST_ACK
 * describes, the moves of a test's phases, the op table, a test's
 * parameters (defaults and the shared check). Built only on a
 * kernel with CONFIG_KUNIT (the debug kernel: tests/guest-debug/kunit.sh);
 * the cases run when the module loads, their KTAP report in the kernel
 * log.
 */
#include <kunit/test.h>

#include "krdma.h"
#include "proto.h"
#include "test.h"
#include "check.h"

/*
 * A check-mode write_imm carries its iteration modulo 2^31: bit 31 marks
 * the answer of a lat write_imm test (KRDMA_IMM_ANSWER | its id), and
 * iteration 2^31 | id must not pass for one (Documentation/protocol.rst).
 */
static void krdma_kunit_check_imm(struct kunit *t)
{
	static const u64 iters[] = {
		0, 1, 5, 0x7fffffffULL, 0x80000000ULL, 0x80000005ULL,
		0xffffffffULL, 0x100000005ULL, 0x180000005ULL, U64_MAX,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(iters); i++) {
		u32 imm = krdma_check_imm(iters[i]);

		KUNIT_EXPECT_EQ_MSG(t, imm & KRDMA_IMM_ANSWER, 0U,
				    "iteration %llu", iters[i]);
		KUNIT_EXPECT_EQ_MSG(t, imm, (u32)(iters[i] % 0x80000000ULL),
				    "iteration %llu", iters[i]);
	}
	/* The case the review found: iteration 2^31 | 5 against test 5. */
	KUNIT_EXPECT_NE(t, krdma_check_imm(0x80000005ULL),
			KRDMA_IMM_ANSWER | 5U);
}

static void krdma_kunit_region(struct krdma_wire_region *r, u32 len)
{
	r->addr = cpu_to_be64(0x1000);
	r->rkey = cpu_to_be32(0x1234);
	r->len = cpu_to_be32(len);
}

/* Each slot's regions add up to exactly the message; none is empty. */
static void krdma_kunit_wire_regions(struct kunit *t)
{
	const u32 max = KRDMA_MAX_SLOT_REGIONS;
	struct krdma_wire_region r[4];
	u32 per = 0;

	krdma_kunit_region(&r[0], 4096);
	krdma_kunit_region(&r[1], 4096);
	KUNIT_EXPECT_EQ(t, krdma_check_wire_regions(r, 2, 2, 4096, max, &per), 0);
	KUNIT_EXPECT_EQ(t, per, 1U);

	krdma_kunit_region(&r[0], 1024);
	krdma_kunit_region(&r[1], 3072);
	krdma_kunit_region(&r[2], 2048);
	krdma_kunit_region(&r[3], 2048);
	KUNIT_EXPECT_EQ(t, krdma_check_wire_regions(r, 4, 2, 4096, max, &per), 0);
	KUNIT_EXPECT_EQ(t, per, 2U);
	/* More a slot than the caller's WRs take. */
	KUNIT_EXPECT_EQ(t, krdma_check_wire_regions(r, 4, 2, 4096, 1, &per),
			-EPROTO);

	/* A slot one byte short, one with an empty region. */
	krdma_kunit_region(&r[3], 2047);
	KUNIT_EXPECT_EQ(t, krdma_check_wire_regions(r, 4, 2, 4096, max, &per),
			-EPROTO);
	krdma_kunit_region(&r[2], 4096);
	krdma_kunit_region(&r[3], 0);
	KUNIT_EXPECT_EQ(t, krdma_check_wire_regions(r, 4, 2, 4096, max, &per),
			-EPROTO);
	/* Lengths that wrap 32 bits: 0xffffffff + 0x1001 is not 4096. */
	krdma_kunit_region(&r[0], 0xffffffff);
	krdma_kunit_region(&r[1], 0x1001);
	KUNIT_EXPECT_EQ(t, krdma_check_wire_regions(r, 2, 1, 4096, max, &per),
			-EPROTO);
	/* Not a whole number of regions a slot; no slot; none at all. */
	KUNIT_EXPECT_EQ(t, krdma_check_wire_regions(r, 3, 2, 4096, max, &per),
			-EPROTO);
	KUNIT_EXPECT_EQ(t, krdma_check_wire_regions(r, 2, 0, 4096, max, &per),
			-EPROTO);
	KUNIT_EXPECT_EQ(t, krdma_check_wire_regions(r, 0, 2, 4096, max, &per),
			-EPROTO);
}

/*
 * The phases of our test: the moves design.rst draws are taken; a test
 * that teardown has finished takes none, quietly (the lat poller may
 * still try). Illegal moves WARN, which the guest's log scan would fail:
 * they are not made here.
 */
static void krdma_kunit_test_moves(struct kunit *t)
{
	struct krdma_test *test = kunit_kzalloc(t, sizeof(*test), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(t, test);
	spin_lock_init(&test->lock);
	test->phase = KRDMA_TP_REQ_SENT;
	KUNIT_EXPECT_FALSE(t, krdma_test_accepted(test));
	KUNIT_EXPECT_TRUE(t, krdma_test_move(test, KRDMA_TP_RUNNING));
	KUNIT_EXPECT_TRUE(t, krdma_test_accepted(test));
	KUNIT_EXPECT_TRUE(t, krdma_test_move(test, KRDMA_TP_END_SENT));
	KUNIT_EXPECT_TRUE(t, krdma_test_accepted(test));
	KUNIT_EXPECT_TRUE(t, krdma_test_move(test, KRDMA_TP_CLOSING));
	KUNIT_EXPECT_FALSE(t, krdma_test_accepted(test));
	KUNIT_EXPECT_TRUE(t, krdma_test_move(test, KRDMA_TP_FINISHED));
	KUNIT_EXPECT_FALSE(t, krdma_test_move(test, KRDMA_TP_RUNNING));
	KUNIT_EXPECT_FALSE(t, krdma_test_move(test, KRDMA_TP_CLOSING));
	KUNIT_EXPECT_TRUE(t, krdma_test_in(test, KRDMA_TP_FINISHED));
	KUNIT_EXPECT_TRUE(t, krdma_test_move(test, KRDMA_TP_DONE));
	KUNIT_EXPECT_FALSE(t, krdma_test_move(test, KRDMA_TP_FINISHED));
	KUNIT_EXPECT_TRUE(t, krdma_test_in(test, KRDMA_TP_DONE));

	/* A refused test closes from REQ_SENT, never having run. */
	test->phase = KRDMA_TP_REQ_SENT;
	KUNIT_EXPECT_TRUE(t, krdma_test_move(test, KRDMA_TP_CLOSING));
	KUNIT_EXPECT_FALSE(t, krdma_test_accepted(test));
}

/* The peer's test: ACTIVE, ENDING, CLOSING, CLOSED, in that order only. */
static void krdma_kunit_peer_moves(struct kunit *t)
{
	struct krdma_peer_test *pt = kunit_kzalloc(t, sizeof(*pt), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(t, pt);
	pt->phase = KRDMA_PP_ACTIVE;
	KUNIT_EXPECT_TRUE(t, krdma_peer_move(pt, KRDMA_PP_ENDING));
	KUNIT_EXPECT_TRUE(t, krdma_peer_in(pt, KRDMA_PP_ENDING));
	KUNIT_EXPECT_TRUE(t, krdma_peer_move(pt, KRDMA_PP_CLOSING));
	KUNIT_EXPECT_TRUE(t, krdma_peer_in(pt, KRDMA_PP_CLOSING));
	KUNIT_EXPECT_TRUE(t, krdma_peer_move(pt, KRDMA_PP_CLOSED));
	KUNIT_EXPECT_TRUE(t, krdma_peer_in(pt, KRDMA_PP_CLOSED));
}

/*
 * A message over a device that takes fewer SGEs than it spans chunks
 * (cxgb4: 4 in a WR, 1 in a READ) goes as several WRs: each WR's SGEs
 * cover a prefix of what is left, never more than asked, and all of it
 * in the end; krdma_buf_sges() refuses what does not fit at once.
 */
static void krdma_kunit_sges_part(struct kunit *t)
{
	static const u32 lens[] = { 1000, 500, 1000, 24, 1000 };
	struct krdma_buf *buf;
	struct ib_sge sge[KRDMA_MAX_SGE];
	u32 i, off, taken, total = 0;
	int max, n, wrs;

	buf = kunit_kzalloc(t, struct_size(buf, chunk, ARRAY_SIZE(lens)),
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(t, buf);
	buf->nchunks = ARRAY_SIZE(lens);
	for (i = 0; i < buf->nchunks; i++) {
		buf->chunk[i].dma = 0x10000 * (i + 1);
		buf->chunk[i].len = lens[i];
		total += lens[i];
	}
	buf->len = total;
	for (max = 1; max <= 5; max++) {
		for (off = 10, wrs = 0; off < total; off += taken, wrs++) {
			n = krdma_buf_sges_part(buf, off, total - off, 7, sge,
						max, &taken);
			KUNIT_ASSERT_GT(t, n, 0);
			KUNIT_EXPECT_LE(t, n, max);
			KUNIT_EXPECT_GT(t, taken, 0U);
			KUNIT_EXPECT_LE(t, taken, total - off);
			/* The first SGE starts where we are, the rest chunk by chunk. */
			KUNIT_EXPECT_EQ(t, sge[0].lkey, 7U);
			for (i = 1; i < n; i++)
				KUNIT_EXPECT_EQ(t, (u32)sge[i].addr & 0xffff, 0U);
		}
		KUNIT_EXPECT_EQ(t, off, total);
		KUNIT_EXPECT_EQ(t, wrs, DIV_ROUND_UP(ARRAY_SIZE(lens), max));
	}
	KUNIT_EXPECT_EQ(t, krdma_buf_sges(buf, 0, total, 7, sge, 4), -E2BIG);
	KUNIT_EXPECT_EQ(t, krdma_buf_sges(buf, 0, total, 7, sge, 5), 5);
	KUNIT_EXPECT_EQ(t, krdma_buf_sges(buf, 1500, 1, 7, sge, 1), 1);
	KUNIT_EXPECT_EQ(t, sge[0].addr, 0x30000ULL);
	KUNIT_EXPECT_EQ(t, krdma_buf_sges(buf, total, 1, 7, sge, 5), -EINVAL);
}

/* The WR counter an opcode belongs to; KRDMA_CNT_MAX: not one of ours. */
static u8 krdma_kunit_opcode_counter(enum ib_wr_opcode opcode)
{
	switch (opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		return KRDMA_CNT_SEND_WRS;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return KRDMA_CNT_WRITE_WRS;
	case IB_WR_RDMA_READ:
		return KRDMA_CNT_READ_WRS;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return KRDMA_CNT_ATOMIC_WRS;
	default:
		return KRDMA_CNT_MAX;
	}
}

/*
 * The op table's entries must agree with each other: the driver and the
 * responder read different fields of one entry (op.c), so a field that
 * contradicts another splits them as two hand-written branches did.
 */
static void krdma_kunit_op_table(struct kunit *t)
{
	u8 op;

	for (op = 1; op <= KRDMA_OP_MAX; op++) {
		const struct krdma_op_info *i = krdma_op(op);
		bool imm_wr = i->opcode == IB_WR_SEND_WITH_IMM ||
			      i->opcode == IB_WR_RDMA_WRITE_WITH_IMM;

		KUNIT_EXPECT_NOT_NULL_MSG(t, i->name, "op %u", op);
		KUNIT_EXPECT_EQ_MSG(t, i->wr_counter,
				    krdma_kunit_opcode_counter(i->opcode),
				    "op %u", op);
		KUNIT_EXPECT_NE_MSG(t, krdma_kunit_opcode_counter(i->lead_opcode),
				    KRDMA_CNT_MAX, "op %u", op);
		KUNIT_EXPECT_EQ_MSG(t, i->imm, imm_wr, "op %u", op);
		/* Only an immediate or a ping's READ sets the lead WRs apart. */
		if (op != KRDMA_OP_PING && op != KRDMA_OP_WRITE_IMM)
			KUNIT_EXPECT_EQ_MSG(t, i->lead_opcode, i->opcode,
					    "op %u", op);
		KUNIT_EXPECT_EQ_MSG(t, i->peer_recvs,
				    op == KRDMA_OP_SEND || op == KRDMA_OP_SEND_IMM ||
				    op == KRDMA_OP_WRITE_IMM, "op %u", op);
		KUNIT_EXPECT_EQ_MSG(t, i->send,
				    i->wr_counter == KRDMA_CNT_SEND_WRS,
				    "op %u", op);
		KUNIT_EXPECT_EQ_MSG(t, i->atomic,
				    i->wr_counter == KRDMA_CNT_ATOMIC_WRS,
				    "op %u", op);
		/* A send lands in receives, a ping in the driver's regions. */
		KUNIT_EXPECT_EQ_MSG(t, !i->peer_access,
				    i->send || op == KRDMA_OP_PING, "op %u", op);
		/* What comes back to us is a READ's or an atomic's answer. */
		KUNIT_EXPECT_EQ_MSG(t, i->one_sided,
				    op == KRDMA_OP_READ || i->atomic, "op %u", op);
		KUNIT_EXPECT_TRUE_MSG(t, !i->one_sided || i->rd_credits,
				      "op %u", op);
		KUNIT_EXPECT_EQ_MSG(t, i->rd_credits,
				    i->one_sided || op == KRDMA_OP_PING,
				    "op %u", op);
		KUNIT_EXPECT_EQ_MSG(t, !!(i->peer_access & IB_ACCESS_REMOTE_ATOMIC),
				    i->atomic, "op %u", op);
		KUNIT_EXPECT_EQ_MSG(t, i->byte_counter,
				    i->atomic ? KRDMA_CNT_MAX :
				    op == KRDMA_OP_READ ? KRDMA_CNT_BYTES_RX :
				    KRDMA_CNT_BYTES_TX, "op %u", op);
	}
	/* Out of range, from a peer too: the empty entry, nothing needed. */
	KUNIT_EXPECT_PTR_EQ(t, krdma_op(KRDMA_OP_MAX + 1), krdma_op(0));
	KUNIT_EXPECT_PTR_EQ(t, krdma_op(U8_MAX), krdma_op(0));
	KUNIT_EXPECT_NULL(t, krdma_op(0)->name);
	KUNIT_EXPECT_FALSE(t, krdma_op(0)->peer_recvs || krdma_op(0)->atomic ||
			   krdma_op(0)->imm || krdma_op(0)->peer_access);
}

/* What each kind of device refuses, the same for driver and responder. */
static void krdma_kunit_op_supported(struct kunit *t)
{
	struct krdma_device *kdev = kunit_kzalloc(t, sizeof(*kdev), GFP_KERNEL);
	u8 op;

	KUNIT_ASSERT_NOT_NULL(t, kdev);
	for (op = 1; op <= KRDMA_OP_MAX; op++) {
		bool atomic = krdma_op_is_atomic(op);
		bool imm = krdma_op_has_imm(op);

		kdev->iwarp = false;
		kdev->caps.atomic_cap = IB_ATOMIC_HCA;
		KUNIT_EXPECT_EQ_MSG(t, krdma_op_supported(kdev, op, NULL), 0,
				    "op %u", op);
		kdev->caps.atomic_cap = IB_ATOMIC_NONE;
		KUNIT_EXPECT_EQ_MSG(t, krdma_op_supported(kdev, op, NULL),
				    atomic ? -EOPNOTSUPP : 0, "op %u", op);
		kdev->iwarp = true;
		KUNIT_EXPECT_EQ_MSG(t, krdma_op_supported(kdev, op, NULL),
				    atomic || imm ? -EOPNOTSUPP : 0, "op %u", op);
	}
}

/*
 * The spec's defaults (include/krdma_params.h) as a request that leaves
 * everything out but op and mode gets them: the same for our test and a
 * peer's (and so for the bidir mirror), which peer.c fills the same way.
 */
static void krdma_kunit_params_defaults(struct kunit *t)
{
	static const struct {
		struct krdma_test_params in, want;
	} cases[] = {
		{ { .op = KRDMA_OP_WRITE },
		  { .mode = KRDMA_MODE_CHECK, .size = 4096, .depth = 1,
		    .signal_every = 16, .chain = 1, .qps = 1,
		    .interval_ms = 1000, .count = 1000 } },
		{ { .op = KRDMA_OP_ATOMIC_FADD, .mode = KRDMA_MODE_LAT },
		  { .mode = KRDMA_MODE_LAT, .size = 8, .depth = 1,
		    .signal_every = 16, .chain = 1, .qps = 1,
		    .interval_ms = 1000, .count = 1000 } },
		{ { .op = KRDMA_OP_SEND, .mode = KRDMA_MODE_BW },
		  { .mode = KRDMA_MODE_BW, .size = 4096, .depth = 64,
		    .signal_every = 16, .chain = 8, .qps = 1,
		    .interval_ms = 1000, .count = 1000 } },
		/* A small window caps bw's signal_every and chain. */
		{ { .op = KRDMA_OP_WRITE, .mode = KRDMA_MODE_BW, .depth = 4,
		    .duration_ms = 5, .rate = 1000 },
		  { .mode = KRDMA_MODE_BW, .size = 4096, .depth = 4,
		    .signal_every = 4, .chain = 4, .qps = 1, .burst = 4,
		    .interval_ms = 1000, .duration_ms = 5, .rate = 1000 } },
		/* What is given stays. */
		{ { .op = KRDMA_OP_READ, .mode = KRDMA_MODE_BW, .size = 3,
		    .depth = 2, .signal_every = 7, .chain = 9, .qps = 3,
		    .interval_ms = 200, .count = 5, .rate = 9, .burst = 6 },
		  { .mode = KRDMA_MODE_BW, .size = 3, .depth = 2,
		    .signal_every = 7, .chain = 9, .qps = 3, .interval_ms = 200,
		    .count = 5, .rate = 9, .burst = 6 } },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct krdma_test_params p = cases[i].in;
		const struct krdma_test_params *w = &cases[i].want;

		krdma_test_params_defaults(&p);
		KUNIT_EXPECT_EQ_MSG(t, p.mode, w->mode, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(t, p.size, w->size, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(t, p.depth, w->depth, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(t, p.signal_every, w->signal_every, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(t, p.chain, w->chain, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(t, p.qps, w->qps, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(t, p.burst, w->burst, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(t, p.interval_ms, w->interval_ms, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(t, p.count, w->count, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(t, p.duration_ms, w->duration_ms, "case %u", i);
		/* The defaults are within the spec's bounds. */
		KUNIT_EXPECT_EQ_MSG(t, krdma_test_params_check(&p, NULL), 0,
				    "case %u", i);
	}
}

/*
 * The check the driver and the responder share: one change to a valid
 * test each, and what it gets.
 */
static void krdma_kunit_params_check(struct kunit *t)
{
	static const struct {
		u8 mode;
		u8 op;
		u32 size, depth, signal_every, chain, qps, interval_ms, burst;
		u64 count, rate;
		bool bidir;
		int want;
	} cases[] = {
		{ KRDMA_MODE_BW, KRDMA_OP_WRITE, .bidir = true, .qps = 16 },
		{ KRDMA_MODE_LAT, KRDMA_OP_SEND, .bidir = true, .want = -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_WRITE, .qps = 2, .want = -EINVAL },
		{ KRDMA_MODE_BW, KRDMA_OP_WRITE, .qps = 17, .want = -EINVAL },
		/* At its default, an attribute asks a mode for nothing. */
		{ KRDMA_MODE_CHECK, KRDMA_OP_WRITE, .qps = 1, .signal_every = 16,
		  .chain = 1 },
		{ KRDMA_MODE_CHECK, KRDMA_OP_WRITE, .signal_every = 4, .want = -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_WRITE, .chain = 2, .want = -EINVAL },
		{ KRDMA_MODE_LAT, KRDMA_OP_WRITE, .rate = 1, .want = -EINVAL },
		{ KRDMA_MODE_BW, KRDMA_OP_WRITE, .rate = 1, .burst = 129,
		  .want = -EINVAL },
		{ KRDMA_MODE_BW, KRDMA_OP_ATOMIC_CSWAP, .size = 8 },
		{ KRDMA_MODE_BW, KRDMA_OP_ATOMIC_CSWAP, .size = 16, .want = -EINVAL },
		{ KRDMA_MODE_CHECK, 0, .want = -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_MAX + 1, .want = -EINVAL },
		{ KRDMA_MODE_MAX + 1, KRDMA_OP_WRITE, .want = -EOPNOTSUPP },
		{ KRDMA_MODE_BW, KRDMA_OP_WRITE, .size = KRDMA_MSG_SIZE_MAX },
		{ KRDMA_MODE_BW, KRDMA_OP_WRITE, .size = KRDMA_MSG_SIZE_MAX + 1,
		  .want = -EINVAL },
		{ KRDMA_MODE_BW, KRDMA_OP_WRITE, .depth = KRDMA_DEPTH_MAX + 1,
		  .want = -EINVAL },
		{ KRDMA_MODE_BW, KRDMA_OP_WRITE, .chain = KRDMA_CHAIN_MAX + 1,
		  .want = -EINVAL },
		{ KRDMA_MODE_BW, KRDMA_OP_WRITE, .interval_ms = 99, .want = -EINVAL },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct krdma_test_params p = {
			.mode = cases[i].mode, .op = cases[i].op,
			.size = cases[i].size, .depth = cases[i].depth,
			.signal_every = cases[i].signal_every,
			.chain = cases[i].chain, .qps = cases[i].qps,
			.interval_ms = cases[i].interval_ms,
			.count = cases[i].count, .rate = cases[i].rate,
			.burst = cases[i].burst, .bidir = cases[i].bidir,
		};

		krdma_test_params_defaults(&p);
		KUNIT_EXPECT_EQ_MSG(t, krdma_test_params_check(&p, NULL),
				    cases[i].want, "case %u", i);
	}
	/* Left out after the defaults: neither a count nor a duration. */
	{
		struct krdma_test_params p = { .op = KRDMA_OP_WRITE };

		krdma_test_params_defaults(&p);
		p.count = 0;
		KUNIT_EXPECT_EQ(t, krdma_test_params_check(&p, NULL), -EINVAL);
	}
}

/* A conformance case's test: one iteration, an op with the rule to break. */
static void krdma_kunit_violation(struct kunit *t)
{
	static const struct {
		u8 mode, op, violate;
		u64 count;
		u32 depth, duration_ms;
		int want;
	} cases[] = {
		{ KRDMA_MODE_CHECK, KRDMA_OP_WRITE, KRDMA_VIOLATE_OUT_OF_BOUNDS, 1, 1 },
		{ KRDMA_MODE_CHECK, KRDMA_OP_READ, KRDMA_VIOLATE_OUT_OF_BOUNDS, 1, 1 },
		{ KRDMA_MODE_CHECK, KRDMA_OP_ATOMIC_FADD, KRDMA_VIOLATE_STALE_RKEY, 1, 1 },
		{ KRDMA_MODE_CHECK, KRDMA_OP_WRITE_IMM, KRDMA_VIOLATE_STALE_RKEY, 1, 1 },
		{ KRDMA_MODE_CHECK, KRDMA_OP_READ, KRDMA_VIOLATE_NO_ACCESS, 1, 1 },
		{ KRDMA_MODE_CHECK, KRDMA_OP_SEND, KRDMA_VIOLATE_LONG_SEND, 1, 1 },
		{ KRDMA_MODE_CHECK, KRDMA_OP_SEND_IMM, KRDMA_VIOLATE_LONG_SEND, 1, 1 },
		{ KRDMA_MODE_CHECK, KRDMA_OP_WRITE, KRDMA_VIOLATE_INVALIDATED_RKEY, 1, 1 },
		{ KRDMA_MODE_CHECK, KRDMA_OP_READ, KRDMA_VIOLATE_INVALIDATED_RKEY, 1, 1 },
		/* One iteration, and only one. */
		{ KRDMA_MODE_CHECK, KRDMA_OP_WRITE, KRDMA_VIOLATE_OUT_OF_BOUNDS, 2, 1,
		  .want = -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_WRITE, KRDMA_VIOLATE_OUT_OF_BOUNDS, 1, 2,
		  .want = -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_WRITE, KRDMA_VIOLATE_OUT_OF_BOUNDS, 0, 1,
		  1000, .want = -EINVAL },
		/* An op without the rule. */
		{ KRDMA_MODE_CHECK, KRDMA_OP_SEND, KRDMA_VIOLATE_OUT_OF_BOUNDS, 1, 1,
		  .want = -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_PING, KRDMA_VIOLATE_STALE_RKEY, 1, 1,
		  .want = -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_SEND, KRDMA_VIOLATE_INVALIDATED_RKEY, 1, 1,
		  .want = -EINVAL },
		/* Only with test-send-invalidate (krdma_kunit_check_flags()). */
		{ KRDMA_MODE_CHECK, KRDMA_OP_SEND, KRDMA_VIOLATE_SEND_INVALIDATED_RKEY,
		  1, 1, .want = -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_WRITE, KRDMA_VIOLATE_NO_ACCESS, 1, 1,
		  .want = -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_WRITE, KRDMA_VIOLATE_LONG_SEND, 1, 1,
		  .want = -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_WRITE, KRDMA_VIOLATE_MAX + 1, 1, 1,
		  .want = -EINVAL },
		/* The check mode's only. */
		{ KRDMA_MODE_BW, KRDMA_OP_WRITE, KRDMA_VIOLATE_OUT_OF_BOUNDS, 1, 1,
		  .want = -EINVAL },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct krdma_test_params p = {
			.mode = cases[i].mode, .op = cases[i].op,
			.violate = cases[i].violate, .count = cases[i].count,
			.depth = cases[i].depth,
			.duration_ms = cases[i].duration_ms,
		};

		krdma_test_params_defaults(&p);
		KUNIT_EXPECT_EQ_MSG(t, krdma_test_params_check(&p, NULL),
				    cases[i].want, "case %u", i);
	}
}

/* An atomics variant: its op's, a count that ends every slot evenly. */
static void krdma_kunit_atomic_variant(struct kunit *t)
{
	static const struct {
		u8 op, variant;
		u64 count;
		u32 depth, duration_ms;
		int want;
	} cases[] = {
		{ KRDMA_OP_ATOMIC_FADD, KRDMA_ATOMIC_FADD_WRAP, 8, 1 },
		{ KRDMA_OP_ATOMIC_FADD, KRDMA_ATOMIC_FADD_WRAP, 8, 4 },
		{ KRDMA_OP_ATOMIC_CSWAP, KRDMA_ATOMIC_CSWAP_MISS, 16, 2 },
		{ KRDMA_OP_ATOMIC_FADD, KRDMA_ATOMIC_FADD_WRAP, 6, 4, .want = -EINVAL },
		{ KRDMA_OP_ATOMIC_FADD, KRDMA_ATOMIC_FADD_WRAP, 7, 1, .want = -EINVAL },
		{ KRDMA_OP_ATOMIC_FADD, KRDMA_ATOMIC_FADD_WRAP, 0, 1, 1000,
		  .want = -EINVAL },
		{ KRDMA_OP_ATOMIC_CSWAP, KRDMA_ATOMIC_FADD_WRAP, 8, 1, .want = -EINVAL },
		{ KRDMA_OP_ATOMIC_FADD, KRDMA_ATOMIC_CSWAP_MISS, 8, 1, .want = -EINVAL },
		{ KRDMA_OP_WRITE, KRDMA_ATOMIC_FADD_WRAP, 8, 1, .want = -EINVAL },
		{ KRDMA_OP_ATOMIC_FADD, KRDMA_ATOMIC_MAX + 1, 8, 1, .want = -EINVAL },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct krdma_test_params p = {
			.mode = KRDMA_MODE_CHECK, .op = cases[i].op,
			.atomic_variant = cases[i].variant,
			.count = cases[i].count, .depth = cases[i].depth,
			.duration_ms = cases[i].duration_ms,
		};

		krdma_test_params_defaults(&p);
		KUNIT_EXPECT_EQ_MSG(t, krdma_test_params_check(&p, NULL),
				    cases[i].want, "case %u", i);
	}
}

/* test-sges: the same bytes, in order, over exactly as many SGEs. */
static void krdma_kunit_split_sges(struct kunit *t)
{
	struct ib_sge sge[KRDMA_MAX_SGE] = {
		{ .addr = 0x1000, .length = 100, .lkey = 7 },
		{ .addr = 0x9000, .length = 3, .lkey = 7 },
	};
	u64 next = 0x1000;
	u32 total = 0;
	int i, n;

	n = krdma_check_split_sges(sge, 2, KRDMA_MAX_SGE);
	KUNIT_EXPECT_EQ(t, n, KRDMA_MAX_SGE);
	for (i = 0; i < n; i++) {
		/* Contiguous within the first buffer, then the second's. */
		if (next == 0x1000 + 100)
			next = 0x9000;
		KUNIT_EXPECT_EQ_MSG(t, sge[i].addr, next, "sge %d", i);
		KUNIT_EXPECT_GT_MSG(t, sge[i].length, 0U, "sge %d", i);
		KUNIT_EXPECT_EQ(t, sge[i].lkey, 7U);
		next = sge[i].addr + sge[i].length;
		total += sge[i].length;
	}
	KUNIT_EXPECT_EQ(t, total, 103U);
	/* Nothing left to split: 3 bytes over 3 SGEs at most. */
	sge[0] = (struct ib_sge){ .addr = 0x1000, .length = 3 };
	KUNIT_EXPECT_EQ(t, krdma_check_split_sges(sge, 1, 5), 3);
	KUNIT_EXPECT_EQ(t, krdma_check_split_sges(sge, 3, 3), 3);
}

/* test-sges: the sends', the WRITEs' and the READs', at most sge-max. */
static void krdma_kunit_sges(struct kunit *t)
{
	static const struct {
		u8 op;
		u32 sges;
		int want;
	} cases[] = {
		{ KRDMA_OP_SEND, 1 },
		{ KRDMA_OP_SEND_IMM, KRDMA_SGE_MAX },
		{ KRDMA_OP_SEND, KRDMA_SGE_MAX + 1, -EINVAL },
		{ KRDMA_OP_WRITE, 4 },
		{ KRDMA_OP_WRITE_IMM, KRDMA_SGE_MAX },
		{ KRDMA_OP_READ, 4 },
		{ KRDMA_OP_PING, 4, -EINVAL },
		{ KRDMA_OP_ATOMIC_FADD, 2, -EINVAL },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct krdma_test_params p = {
			.mode = KRDMA_MODE_CHECK, .op = cases[i].op,
			.sges = cases[i].sges,
		};

		krdma_test_params_defaults(&p);
		KUNIT_EXPECT_EQ_MSG(t, krdma_test_params_check(&p, NULL),
				    cases[i].want, "case %u", i);
	}
}

/*
 * An atomics target of more than a word (check mode, a multiple of 8 up
 * to atomic-target-max, no variant), and the unaligned atomic it allows.
 */
static void krdma_kunit_atomic_target(struct kunit *t)
{
	static const struct {
		u8 mode, op, violate, variant;
		u32 size;
		int want;
	} cases[] = {
		{ KRDMA_MODE_CHECK, KRDMA_OP_ATOMIC_FADD, 0, 0, 16, 0 },
		{ KRDMA_MODE_CHECK, KRDMA_OP_ATOMIC_CSWAP, 0, 0,
		  KRDMA_ATOMIC_TARGET_MAX, 0 },
		{ KRDMA_MODE_CHECK, KRDMA_OP_ATOMIC_FADD, 0, 0,
		  KRDMA_ATOMIC_TARGET_MAX + 8, -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_ATOMIC_FADD, 0, 0, 12, -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_ATOMIC_FADD, 0, 0, 4, -EINVAL },
		{ KRDMA_MODE_BW, KRDMA_OP_ATOMIC_FADD, 0, 0, 16, -EINVAL },
		{ KRDMA_MODE_LAT, KRDMA_OP_ATOMIC_CSWAP, 0, 0, 16, -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_ATOMIC_FADD, 0, KRDMA_ATOMIC_FADD_WRAP,
		  16, -EINVAL },
		/* Half a word in, inside the target: two words at least. */
		{ KRDMA_MODE_CHECK, KRDMA_OP_ATOMIC_FADD, KRDMA_VIOLATE_UNALIGNED,
		  0, 16, 0 },
		{ KRDMA_MODE_CHECK, KRDMA_OP_ATOMIC_CSWAP, KRDMA_VIOLATE_UNALIGNED,
		  0, 8, -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_WRITE, KRDMA_VIOLATE_UNALIGNED, 0,
		  16, -EINVAL },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct krdma_test_params p = {
			.mode = cases[i].mode, .op = cases[i].op,
			.violate = cases[i].violate, .size = cases[i].size,
			.atomic_variant = cases[i].variant,
			.count = 1, .depth = 1,
		};

		/* A variant's count: a multiple of twice the depth. */
		if (p.atomic_variant)
			p.count = 4;
		krdma_test_params_defaults(&p);
		KUNIT_EXPECT_EQ_MSG(t, krdma_test_params_check(&p, NULL),
				    cases[i].want, "case %u", i);
	}
}

/*
 * The closed form of an atomics target's words against the sequence
 * played out: before each iteration its word holds what the driver
 * expects, and at the end every word what the responder checks.
 */
static void krdma_kunit_atomic_play(struct kunit *t, u8 op, u32 depth,
				    u32 nwords, u32 iters)
{
	u64 val[3][5] = {};
	u32 i, s, w, j;

	for (i = 0; i < iters; i++) {
		j = i / depth;
		s = i % depth;
		w = j % nwords;
		KUNIT_EXPECT_EQ_MSG(t, krdma_check_atomic_value(op, 7, s, depth,
								nwords, w,
								j / nwords),
				    val[s][w], "op %u depth %u words %u iteration %u",
				    op, depth, nwords, i);
		if (op == KRDMA_OP_ATOMIC_FADD)
			val[s][w] += i + 1;
		else
			val[s][w] = krdma_seed(7, i);
	}
	for (s = 0; s < depth; s++) {
		u32 k = iters > s ? (iters - s - 1) / depth + 1 : 0;

		for (w = 0; w < nwords; w++) {
			u32 n = k > w ? (k - w - 1) / nwords + 1 : 0;

			KUNIT_EXPECT_EQ_MSG(t, krdma_check_atomic_value(op, 7, s, depth,
									nwords, w, n),
					    val[s][w], "op %u depth %u words %u end",
					    op, depth, nwords);
		}
	}
}

static void krdma_kunit_atomic_value(struct kunit *t)
{
	u32 depth, nwords, iters;

	for (depth = 1; depth <= 3; depth++) {
		for (nwords = 1; nwords <= 5; nwords += 2) {
			for (iters = 0; iters <= 31; iters += 7) {
				krdma_kunit_atomic_play(t, KRDMA_OP_ATOMIC_FADD,
							depth, nwords, iters);
				krdma_kunit_atomic_play(t, KRDMA_OP_ATOMIC_CSWAP,
							depth, nwords, iters);
			}
		}
	}
}

/*
 * The check mode's flags of one op each, without a violation:
 * test-read-back a write's; test-send-invalidate a send's (IB has no
 * SEND_WITH_INV with an immediate); test-zero-length a write's,
 * write_imm's or read's, and not with read-back or test-sges;
 * test-rnr-hold a send's or send_imm's, and not with test-sges;
 * test-zero-read-behind a read's, and not with test-sges;
 * test-reg-behind a send's or send_imm's, and not with send-invalidate.
 */
enum { KUNIT_READ_BACK, KUNIT_SEND_INV, KUNIT_ZERO_LENGTH, KUNIT_RNR_HOLD,
	KUNIT_ZERO_BEHIND, KUNIT_REG_BEHIND };

static void krdma_kunit_check_flags(struct kunit *t)
{
	static const struct {
		u8 mode, op, violate, flag;
		u32 sges;
		int want;
	} cases[] = {
		{ KRDMA_MODE_CHECK, KRDMA_OP_WRITE, 0, KUNIT_READ_BACK, 0, 0 },
		{ KRDMA_MODE_CHECK, KRDMA_OP_WRITE_IMM, 0, KUNIT_READ_BACK, 0, -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_READ, 0, KUNIT_READ_BACK, 0, -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_PING, 0, KUNIT_READ_BACK, 0, -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_WRITE, KRDMA_VIOLATE_OUT_OF_BOUNDS,
		  KUNIT_READ_BACK, 0, -EINVAL },
		{ KRDMA_MODE_BW, KRDMA_OP_WRITE, 0, KUNIT_READ_BACK, 0, -EINVAL },
		{ KRDMA_MODE_LAT, KRDMA_OP_WRITE, 0, KUNIT_READ_BACK, 0, -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_SEND, 0, KUNIT_SEND_INV, 0, 0 },
		{ KRDMA_MODE_CHECK, KRDMA_OP_SEND_IMM, 0, KUNIT_SEND_INV, 0, -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_WRITE, 0, KUNIT_SEND_INV, 0, -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_SEND, KRDMA_VIOLATE_LONG_SEND,
		  KUNIT_SEND_INV, 0, -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_SEND, KRDMA_VIOLATE_SEND_INVALIDATED_RKEY,
		  KUNIT_SEND_INV, 0, 0 },
		{ KRDMA_MODE_CHECK, KRDMA_OP_WRITE, KRDMA_VIOLATE_SEND_INVALIDATED_RKEY,
		  KUNIT_SEND_INV, 0, -EINVAL },
		{ KRDMA_MODE_BW, KRDMA_OP_SEND, 0, KUNIT_SEND_INV, 0, -EINVAL },
		{ KRDMA_MODE_LAT, KRDMA_OP_SEND, 0, KUNIT_SEND_INV, 0, -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_WRITE, 0, KUNIT_ZERO_LENGTH, 0, 0 },
		{ KRDMA_MODE_CHECK, KRDMA_OP_WRITE_IMM, 0, KUNIT_ZERO_LENGTH, 0, 0 },
		{ KRDMA_MODE_CHECK, KRDMA_OP_READ, 0, KUNIT_ZERO_LENGTH, 0, 0 },
		{ KRDMA_MODE_CHECK, KRDMA_OP_SEND, 0, KUNIT_ZERO_LENGTH, 0, -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_ATOMIC_FADD, 0, KUNIT_ZERO_LENGTH, 0,
		  -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_WRITE, 0, KUNIT_ZERO_LENGTH, 2, -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_READ, KRDMA_VIOLATE_STALE_RKEY,
		  KUNIT_ZERO_LENGTH, 0, -EINVAL },
		{ KRDMA_MODE_BW, KRDMA_OP_WRITE, 0, KUNIT_ZERO_LENGTH, 0, -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_SEND, 0, KUNIT_RNR_HOLD, 0, 0 },
		{ KRDMA_MODE_CHECK, KRDMA_OP_SEND_IMM, 0, KUNIT_RNR_HOLD, 0, 0 },
		{ KRDMA_MODE_CHECK, KRDMA_OP_WRITE, 0, KUNIT_RNR_HOLD, 0, -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_SEND, 0, KUNIT_RNR_HOLD, 2, -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_SEND, KRDMA_VIOLATE_LONG_SEND,
		  KUNIT_RNR_HOLD, 0, -EINVAL },
		{ KRDMA_MODE_BW, KRDMA_OP_SEND, 0, KUNIT_RNR_HOLD, 0, -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_READ, 0, KUNIT_ZERO_BEHIND, 0, 0 },
		{ KRDMA_MODE_CHECK, KRDMA_OP_WRITE, 0, KUNIT_ZERO_BEHIND, 0, -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_READ, 0, KUNIT_ZERO_BEHIND, 2, -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_READ, KRDMA_VIOLATE_OUT_OF_BOUNDS,
		  KUNIT_ZERO_BEHIND, 0, -EINVAL },
		{ KRDMA_MODE_BW, KRDMA_OP_READ, 0, KUNIT_ZERO_BEHIND, 0, -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_SEND, 0, KUNIT_REG_BEHIND, 0, 0 },
		{ KRDMA_MODE_CHECK, KRDMA_OP_SEND_IMM, 0, KUNIT_REG_BEHIND, 0, 0 },
		{ KRDMA_MODE_CHECK, KRDMA_OP_WRITE, 0, KUNIT_REG_BEHIND, 0, -EINVAL },
		{ KRDMA_MODE_CHECK, KRDMA_OP_SEND, KRDMA_VIOLATE_LONG_SEND,
		  KUNIT_REG_BEHIND, 0, -EINVAL },
		{ KRDMA_MODE_BW, KRDMA_OP_SEND, 0, KUNIT_REG_BEHIND, 0, -EINVAL },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct krdma_test_params p = {
			.mode = cases[i].mode, .op = cases[i].op,
			.violate = cases[i].violate,
			.read_back = cases[i].flag == KUNIT_READ_BACK,
			.send_inv = cases[i].flag == KUNIT_SEND_INV,
			.zero_length = cases[i].flag == KUNIT_ZERO_LENGTH,
			.rnr_hold = cases[i].flag == KUNIT_RNR_HOLD,
			.zero_behind = cases[i].flag == KUNIT_ZERO_BEHIND,
			.reg_behind = cases[i].flag == KUNIT_REG_BEHIND,
			.sges = cases[i].sges, .count = 1, .depth = 1,
		};

		krdma_test_params_defaults(&p);
		KUNIT_EXPECT_EQ_MSG(t, krdma_test_params_check(&p, NULL),
				    cases[i].want, "case %u", i);
	}
}

static struct kunit_case krdma_kunit_cases[] = {
	KUNIT_CASE(krdma_kunit_params_defaults),
	KUNIT_CASE(krdma_kunit_params_check),
	KUNIT_CASE(krdma_kunit_violation),
	KUNIT_CASE(krdma_kunit_atomic_variant),
	KUNIT_CASE(krdma_kunit_sges),
	KUNIT_CASE(krdma_kunit_split_sges),
	KUNIT_CASE(krdma_kunit_check_flags),
	KUNIT_CASE(krdma_kunit_atomic_target),
	KUNIT_CASE(krdma_kunit_atomic_value),
	KUNIT_CASE(krdma_kunit_op_table),
	KUNIT_CASE(krdma_kunit_op_supported),
	KUNIT_CASE(krdma_kunit_sges_part),
	KUNIT_CASE(krdma_kunit_check_imm),
	KUNIT_CASE(krdma_kunit_wire_regions),
	KUNIT_CASE(krdma_kunit_test_moves),
	KUNIT_CASE(krdma_kunit_peer_moves),
	{}
};

static struct kunit_suite krdma_kunit_suite = {
	.name = "krdma",
	.test_cases = krdma_kunit_cases,
};

kunit_test_suite(krdma_kunit_suite);
