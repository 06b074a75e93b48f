// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl conform: is this device's kernel verbs implementation right?
 * A table of cases, each a check-mode test of its own over a session
 * (the module's check engine compares every iteration's data byte by
 * byte at the other side), reported pass, fail (with what came instead)
 * or skip (the device or the session cannot take the case).
 *
 * The positive cases: every op the device supports at 1 byte, around
 * the path MTU, across page boundaries and at the session's largest
 * message. The negative ones break a rule of the verbs (test-violate)
 * over a session of their own, connected to the peer's listener for the
 * case and deleted after it, since the case sends that session's QP to
 * the error state: the case passes if the failed completion's status is
 * the one the specification names, and the session conform runs on is
 * still up (Documentation/conformance.rst).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <netlink/genl/genl.h>

#include "attrs.h"
#include "cmd.h"
#include "conform.h"
#include "env.h"
#include "output.h"
#include "session.h"
#include "test.h"

/* The version of "conform -j"'s document; bumped on a change that breaks
 * a reader (a key renamed or removed, a unit changed). */
#define CONFORM_SCHEMA_VERSION	1

/* The sizes of an op that moves messages of any length. */
#define CONFORM_SIZES(op, name)						\
	CONFORM_POSITIVE(op, name ".1_byte", CONFORM_ONE_BYTE),		\
	CONFORM_POSITIVE(op, name ".mtu_minus_1", CONFORM_MTU_MINUS_1),	\
	CONFORM_POSITIVE(op, name ".mtu", CONFORM_MTU),			\
	CONFORM_POSITIVE(op, name ".mtu_plus_1", CONFORM_MTU_PLUS_1),	\
	CONFORM_POSITIVE(op, name ".page_plus_1", CONFORM_PAGE_PLUS_1),	\
	CONFORM_POSITIVE(op, name ".two_pages_plus_7", CONFORM_TWO_PAGES_PLUS_7), \
	CONFORM_POSITIVE(op, name ".max_msg", CONFORM_MAX_MSG)

/* A case of the data moved right. */
#define CONFORM_POSITIVE(op_, name_, size_)				\
	{ .name = name_, .op = op_, .size = size_ }
/* An atomics case of a variant of the sequence (test-atomic-variant). */
#define CONFORM_VARIANT(op_, name_, variant_)				\
	{ .name = name_, .op = op_, .size = CONFORM_ATOMIC,		\
	  .atomic_variant = variant_ }
/*
 * A WR of as many SGEs as the device takes (test-sges), over a session
 * of its own whose QPs ask for them all (session-max-sge).
 */
#define CONFORM_MAX_SGE(op_, name_)					\
	{ .name = name_, .op = op_, .size = CONFORM_SGE_MSG, .max_sge = true, \
	  .own_session = true }
/* An atomic at every 8-byte-aligned offset of a page-sized target. */
#define CONFORM_EVERY_OFFSET(op_, name_)				\
	{ .name = name_, .op = op_, .size = CONFORM_ATOMIC_TARGET,	\
	  .every_offset = true }
/* A WRITE, then a READ of it fenced behind (test-read-back). */
#define CONFORM_READ_BACK(name_, size_)					\
	{ .name = name_, .op = KRDMA_OP_WRITE, .size = size_,		\
	  .read_back = true, .own_session = true }
/*
 * WRs of 0 bytes (test-zero-length) at a target of 1 that must stay,
 * over a session of their own: a device may refuse them at post (siw a
 * READ of no SGE), which ends the session.
 */
#define CONFORM_ZERO_LENGTH(op_, name_)					\
	{ .name = name_, .op = op_, .size = CONFORM_ZERO, .zero_length = true, \
	  .own_session = true }
/* A negative case: @violate, and the status our completion must have. */
#define CONFORM_NEGATIVE(op_, name_, size_, violate_, wc_)		\
	{ .name = name_, .op = op_, .size = size_, .violate = violate_,	\
	  .expect_wc = wc_ }

const struct conform_case conform_cases[] = {
	CONFORM_SIZES(KRDMA_OP_WRITE, "write"),
	CONFORM_SIZES(KRDMA_OP_READ, "read"),
	CONFORM_SIZES(KRDMA_OP_SEND, "send"),
	CONFORM_SIZES(KRDMA_OP_SEND_IMM, "send_imm"),
	CONFORM_SIZES(KRDMA_OP_WRITE_IMM, "write_imm"),
	CONFORM_POSITIVE(KRDMA_OP_ATOMIC_FADD, "atomic_fadd.8_bytes", CONFORM_ATOMIC),
	CONFORM_POSITIVE(KRDMA_OP_ATOMIC_CSWAP, "atomic_cswap.8_bytes", CONFORM_ATOMIC),
	/* The target carried past 2^64 and back; a compare that misses. */
	CONFORM_VARIANT(KRDMA_OP_ATOMIC_FADD, "atomic_fadd.wrap_around",
			KRDMA_ATOMIC_FADD_WRAP),
	CONFORM_VARIANT(KRDMA_OP_ATOMIC_CSWAP, "atomic_cswap.miss",
			KRDMA_ATOMIC_CSWAP_MISS),
	/* A SEND's WR with every SGE the session's QP takes. */
	CONFORM_MAX_SGE(KRDMA_OP_SEND, "send.max_sge"),
	CONFORM_MAX_SGE(KRDMA_OP_SEND_IMM, "send_imm.max_sge"),
	/* A READ fenced behind a WRITE to the same memory sees its data. */
	CONFORM_READ_BACK("read.fenced_after_write", CONFORM_TWO_PAGES_PLUS_7),
	/* Every 8-byte word of a 4 KiB target, each its own atomic. */
	CONFORM_EVERY_OFFSET(KRDMA_OP_ATOMIC_FADD, "atomic_fadd.every_offset"),
	CONFORM_EVERY_OFFSET(KRDMA_OP_ATOMIC_CSWAP, "atomic_cswap.every_offset"),
	/* The RDMA WRs with every SGE the session's QP takes. */
	CONFORM_MAX_SGE(KRDMA_OP_WRITE, "write.max_sge"),
	CONFORM_MAX_SGE(KRDMA_OP_WRITE_IMM, "write_imm.max_sge"),
	CONFORM_MAX_SGE(KRDMA_OP_READ, "read.max_sge"),
	/*
	 * A SEND_WITH_INV of several packets (the key rides the last one)
	 * invalidates the peer's key, which the peer's receive reports.
	 */
	{ .name = "send.with_invalidate", .op = KRDMA_OP_SEND,
	  .size = CONFORM_MTU_PLUS_1, .send_invalidate = true },
	/*
	 * An RDMA WRITE, WRITE_WITH_IMM and READ of 0 bytes: nothing moved,
	 * the target (the peer's, ours for a READ) as it was, the
	 * immediate delivered. A SEND always carries krdma's header: its
	 * SEND of 0 bytes is the keepalive probe, on every session.
	 */
	CONFORM_ZERO_LENGTH(KRDMA_OP_WRITE, "write.0_bytes"),
	CONFORM_ZERO_LENGTH(KRDMA_OP_WRITE_IMM, "write_imm.0_bytes"),
	CONFORM_ZERO_LENGTH(KRDMA_OP_READ, "read.0_bytes"),
	/*
	 * A READ of 0 bytes (of one SGE, as a ULP's fence READ has) right
	 * behind a READ of the session's largest message: the responder
	 * must answer it with nothing even when it takes it while still
	 * answering the first. The known bug siw.zero_length_read
	 * (siw_activate_tx(), drivers/infiniband/sw/siw/siw_qp.c) answers
	 * it with the first one's length.
	 */
	{ .name = "read.0_bytes_behind_data", .op = KRDMA_OP_READ,
	  .size = CONFORM_MAX_MSG, .zero_read_behind = true,
	  .own_session = true },
	/*
	 * SENDs into a receive queue the peer has let run empty: NAKed
	 * receiver-not-ready and sent again until its receives are back
	 * (rnr_retry 7, for ever), every one delivered.
	 */
	/*
	 * WRITEs of several packets over a session whose ACK timeout is
	 * the shortest krdma takes (ack-timeout-min: 1 ms; rxe rounds it up
	 * to a jiffy): where an ACK takes longer - a slow or loaded host, a
	 * long path - messages are sent again while their first sending is
	 * still being answered, and the responder must take the duplicates
	 * for duplicates. The known bug rxe.ack_timeout_requester_lost
	 * (req_retry(), retry_first_write_send(), rxe_req.c; rxe_comp.c)
	 * resends a message's rest at the next one's PSN, which the
	 * responder NAKs as an invalid request: on a TCG guest it shows in
	 * most runs, not all (when it shows is when the vCPUs stall). Run
	 * by name only: where the path is slow, its storm of retransmissions
	 * takes the host's CPUs from every other session (on a KASAN guest
	 * kernel, long enough for the peers' keepalives to fail).
	 */
	{ .name = "write.ack_timeout_min", .op = KRDMA_OP_WRITE,
	  .size = CONFORM_MAX_MSG, .ack_timeout = KRDMA_ACK_TIMEOUT_MIN,
	  .own_session = true, .by_name = true },
	{ .name = "send.rnr_retried", .op = KRDMA_OP_SEND,
	  .size = CONFORM_ONE_BYTE, .rnr_hold = true, .rnr_retry = 7,
	  .own_session = true },
	/*
	 * The same SENDs, each with a REG_MR of a free region of ours right
	 * behind it, nothing between them (test-reg-behind): the SEND the
	 * empty queue NAKs is sent again, and the REG_MR behind it, which
	 * has run, must not run a second time. The known bug
	 * rxe.reg_mr_twice (req_retry(), req_next_wqe(), rxe_req.c) runs it
	 * again, and rxe_reg_fast_mr() (rxe_mr.c) fails it: the region is
	 * valid already.
	 */
	{ .name = "send.reg_mr_behind_retried", .op = KRDMA_OP_SEND,
	  .size = CONFORM_ONE_BYTE, .rnr_hold = true, .rnr_retry = 7,
	  .reg_behind = true, .own_session = true },
	/*
	 * The responder NAKs: a Remote Access Error for an access outside
	 * what the peer's MR grants, an Invalid Request for a message its
	 * receive cannot hold (IBTA vol. 1, the responder's errors).
	 */
	CONFORM_NEGATIVE(KRDMA_OP_WRITE, "write.out_of_bounds", CONFORM_ONE_BYTE,
			 KRDMA_VIOLATE_OUT_OF_BOUNDS, CONFORM_WC_REM_ACCESS_ERR),
	CONFORM_NEGATIVE(KRDMA_OP_READ, "read.out_of_bounds", CONFORM_ONE_BYTE,
			 KRDMA_VIOLATE_OUT_OF_BOUNDS, CONFORM_WC_REM_ACCESS_ERR),
	CONFORM_NEGATIVE(KRDMA_OP_ATOMIC_FADD, "atomic_fadd.out_of_bounds",
			 CONFORM_ATOMIC, KRDMA_VIOLATE_OUT_OF_BOUNDS,
			 CONFORM_WC_REM_ACCESS_ERR),
	CONFORM_NEGATIVE(KRDMA_OP_WRITE, "write.stale_rkey", CONFORM_ONE_BYTE,
			 KRDMA_VIOLATE_STALE_RKEY, CONFORM_WC_REM_ACCESS_ERR),
	CONFORM_NEGATIVE(KRDMA_OP_READ, "read.stale_rkey", CONFORM_ONE_BYTE,
			 KRDMA_VIOLATE_STALE_RKEY, CONFORM_WC_REM_ACCESS_ERR),
	CONFORM_NEGATIVE(KRDMA_OP_ATOMIC_CSWAP, "atomic_cswap.stale_rkey",
			 CONFORM_ATOMIC, KRDMA_VIOLATE_STALE_RKEY,
			 CONFORM_WC_REM_ACCESS_ERR),
	CONFORM_NEGATIVE(KRDMA_OP_READ, "write.read_only_region", CONFORM_ONE_BYTE,
			 KRDMA_VIOLATE_NO_ACCESS, CONFORM_WC_REM_ACCESS_ERR),
	/*
	 * 4 bytes into a target of two words: inside it, not aligned; the
	 * requester may see that itself (rxe does, validate_send_wr()).
	 */
	{ .name = "atomic_fadd.unaligned", .op = KRDMA_OP_ATOMIC_FADD,
	  .size = CONFORM_ATOMIC_PAIR, .violate = KRDMA_VIOLATE_UNALIGNED,
	  .expect_wc = CONFORM_WC_REM_INV_REQ_ERR, .post_may_refuse = true },
	CONFORM_NEGATIVE(KRDMA_OP_SEND, "send.longer_than_receive",
			 CONFORM_MAX_MSG, KRDMA_VIOLATE_LONG_SEND,
			 CONFORM_WC_REM_INV_REQ_ERR),
	/* Keys the peer invalidated with LOCAL_INV before sending them. */
	CONFORM_NEGATIVE(KRDMA_OP_WRITE, "write.invalidated_rkey",
			 CONFORM_ONE_BYTE, KRDMA_VIOLATE_INVALIDATED_RKEY,
			 CONFORM_WC_REM_ACCESS_ERR),
	CONFORM_NEGATIVE(KRDMA_OP_READ, "read.invalidated_rkey",
			 CONFORM_ONE_BYTE, KRDMA_VIOLATE_INVALIDATED_RKEY,
			 CONFORM_WC_REM_ACCESS_ERR),
	/* A WRITE through the key a SEND_WITH_INV just invalidated. */
	{ .name = "write.send_invalidated_rkey", .op = KRDMA_OP_SEND,
	  .size = CONFORM_ONE_BYTE, .send_invalidate = true,
	  .violate = KRDMA_VIOLATE_SEND_INVALIDATED_RKEY,
	  .expect_wc = CONFORM_WC_REM_ACCESS_ERR },
	/* The same empty queue, no retry allowed: the SEND fails. */
	{ .name = "send.rnr_retry_exceeded", .op = KRDMA_OP_SEND,
	  .size = CONFORM_ONE_BYTE, .rnr_hold = true, .rnr_retry = 0,
	  .own_session = true, .expect_wc = CONFORM_WC_RNR_RETRY_EXC_ERR },
};
const size_t conform_ncases = ARRAY_SIZE(conform_cases);

const char *conform_size_text(enum conform_size s)
{
	static const char *const texts[] = {
		[CONFORM_ONE_BYTE] = "1",
		[CONFORM_MTU_MINUS_1] = "MTU-1",
		[CONFORM_MTU] = "MTU",
		[CONFORM_MTU_PLUS_1] = "MTU+1",
		[CONFORM_PAGE_PLUS_1] = "PAGE+1",
		[CONFORM_TWO_PAGES_PLUS_7] = "2*PAGE+7",
		[CONFORM_MAX_MSG] = "max_msg",
		[CONFORM_ATOMIC] = "8",
		[CONFORM_SGE_MSG] = "1000",
		[CONFORM_ATOMIC_PAIR] = "16",
		[CONFORM_ATOMIC_TARGET] = KRDMACTL_STR(KRDMA_ATOMIC_TARGET_MAX),
		[CONFORM_ZERO] = "0",
	};

	return (unsigned int)s < ARRAY_SIZE(texts) ? texts[s] : "?";
}

uint32_t conform_sges(const struct conform_case *cc,
		      const struct conform_target *t)
{
	return cc->op == KRDMA_OP_READ ? t->session_max_read_sge :
					 t->session_max_sge;
}

uint64_t conform_count(const struct conform_case *cc, uint64_t size)
{
	if (cc->rnr_hold)
		return CONFORM_RNR_COUNT;
	if (cc->ack_timeout)
		return CONFORM_ACK_COUNT;
	return cc->every_offset ? size / 8 : CONFORM_COUNT;
}

uint8_t conform_wr_op(const struct conform_case *cc)
{
	/*
	 * A read test's region, written into; a send-invalidate's target,
	 * WRITTEN through the key its SEND invalidated.
	 */
	if (cc->violate == KRDMA_VIOLATE_NO_ACCESS ||
	    cc->violate == KRDMA_VIOLATE_SEND_INVALIDATED_RKEY)
		return KRDMA_OP_WRITE;
	return cc->read_back ? KRDMA_OP_READ : cc->op;
}

int conform_find(const char *name)
{
	/* An exact name wins: "write.mtu" is a prefix of "write.mtu_plus_1". */
	return match_table(name, conform_cases, conform_ncases,
			   sizeof(conform_cases[0]));
}

static bool op_atomic(uint8_t op)
{
	return op == KRDMA_OP_ATOMIC_FADD || op == KRDMA_OP_ATOMIC_CSWAP;
}

/* The size a case's test asks for: none for 8-byte atomics, the default. */
static uint64_t conform_test_size(const struct conform_case *cc, uint64_t size)
{
	return op_atomic(cc->op) && size == 8 ? 0 : size;
}

/* What the device and the session allow of @op: NULL, or why not. */
static const char *conform_op_skip(uint8_t op, const struct conform_target *t)
{
	bool imm = op == KRDMA_OP_SEND_IMM || op == KRDMA_OP_WRITE_IMM;

	/* As the module refuses them (krdma_op_supported()). */
	if (op_atomic(op) && t->iwarp)
		return "iWARP has no RDMA atomics";
	if (imm && t->iwarp)
		return "iWARP has no immediate data";
	if (op_atomic(op) && t->atomic_cap == 0 /* IB_ATOMIC_NONE */)
		return "the device has no atomics (atomic_cap none)";
	if ((op_atomic(op) || op == KRDMA_OP_READ) && !t->initiator_depth)
		return "the session negotiated no READ/atomic credits";
	return NULL;
}

uint64_t conform_size(const struct conform_case *cc,
		      const struct conform_target *t, const char **why)
{
	bool mtu = cc->size >= CONFORM_MTU_MINUS_1 &&
		   cc->size <= CONFORM_MTU_PLUS_1;
	uint64_t size = 0;

	*why = conform_op_skip(cc->op, t);
	if (*why)
		return 0;
	if (cc->by_name && !t->named) {
		*why = "run only when asked for by name: on a slow path it sends every message again";
		return 0;
	}
	if ((conform_negative_case(cc) || cc->own_session) && !t->client) {
		*why = conform_negative_case(cc) ?
		       "a negative case connects a session of its own to the peer's listener: run conform on the side that connected" :
		       "this case connects a session of its own to the peer's listener: run conform on the side that connected";
		return 0;
	}
	/* An atomics target of more than one word came with version 5. */
	if ((cc->size == CONFORM_ATOMIC_PAIR ||
	     cc->size == CONFORM_ATOMIC_TARGET) && t->peer_proto < 5) {
		*why = "the peer's krdma predates atomics targets of more than 8 bytes (protocol version 5)";
		return 0;
	}
	if (cc->read_back && !t->initiator_depth) {
		*why = "the session negotiated no READ/atomic credits";
		return 0;
	}
	if (cc->read_back && t->peer_proto < 5) {
		*why = "the peer's krdma predates read-back (protocol version 5)";
		return 0;
	}
	if (cc->violate == KRDMA_VIOLATE_INVALIDATED_RKEY && t->peer_proto < 6) {
		*why = "the peer's krdma predates invalidated keys (protocol version 6)";
		return 0;
	}
	if (cc->zero_length && t->peer_proto < 6) {
		*why = "the peer's krdma predates zero-length tests (protocol version 6)";
		return 0;
	}
	if (cc->send_invalidate && t->peer_proto < 6) {
		*why = "the peer's krdma predates SEND_WITH_INV tests (protocol version 6)";
		return 0;
	}
	if (cc->rnr_hold && t->iwarp) {
		*why = "iWARP has no receiver-not-ready NAK: a SEND into an empty receive queue ends the connection (RFC 5040)";
		return 0;
	}
	if (cc->rnr_hold && t->peer_proto < 7) {
		*why = "the peer's krdma predates receive holds (protocol version 7)";
		return 0;
	}
	if (cc->max_sge && conform_sges(cc, t) < 2) {
		*why = cc->op == KRDMA_OP_READ ?
		       "the session's QPs take one SGE a READ" :
		       "the session's QPs take one SGE a WR";
		return 0;
	}
	/* A SEND a byte longer than the peer's receive: an SGE to spare. */
	if (cc->violate == KRDMA_VIOLATE_LONG_SEND && t->max_sge < 4) {
		*why = "the device takes fewer than 4 SGEs a WR";
		return 0;
	}
	if (mtu && !t->mtu) {
		*why = "the device reports no active MTU";
		return 0;
	}
	if (cc->ack_timeout && t->iwarp) {
		*why = "iWARP's QPs have no ACK timeout: TCP retransmits";
		return 0;
	}
	if (cc->ack_timeout && t->max_msg <= t->mtu) {
		*why = "needs messages of several packets: the session's max_msg is not above the MTU";
		return 0;
	}
	switch (cc->size) {
	case CONFORM_ONE_BYTE:
		size = 1;
		break;
	case CONFORM_MTU_MINUS_1:
		size = t->mtu - 1;
		break;
	case CONFORM_MTU:
		size = t->mtu;
		break;
	case CONFORM_MTU_PLUS_1:
		size = (uint64_t)t->mtu + 1;
		break;
	case CONFORM_PAGE_PLUS_1:
		size = (uint64_t)t->page_size + 1;
		break;
	case CONFORM_TWO_PAGES_PLUS_7:
		size = 2 * (uint64_t)t->page_size + 7;
		break;
	case CONFORM_MAX_MSG:
		/* A negative case's session is connected at its own. */
		size = cc->violate ? CONFORM_NEG_MAX_MSG : t->max_msg;
		break;
	case CONFORM_ATOMIC:
		return 8;
	/* Not a message: an atomic moves 8 bytes whatever max_msg is. */
	case CONFORM_ATOMIC_PAIR:
		return 16;
	case CONFORM_ATOMIC_TARGET:
		return KRDMA_ATOMIC_TARGET_MAX;
	/* The target's, which the WRs of 0 bytes must leave as it was. */
	case CONFORM_ZERO:
		return 1;
	case CONFORM_SGE_MSG:
		size = CONFORM_SGE_MSG_SIZE;
		break;
	}
	if (!size) {
		*why = "the size comes to 0 bytes, which no krdma test has";
		return 0;
	}
	if (size > (cc->violate ? CONFORM_NEG_MAX_MSG : t->max_msg)) {
		*why = "larger than the session's max_msg";
		return 0;
	}
	return size;
}

/* ---- the session and its device, as "session show" and "dev show" ---- */

struct conform_info {
	struct conform_target t;
	bool up;
	uint32_t id;
	char name[KRDMA_NAME_MAX];
	char dev[64];
	/* The session's ends: a negative case connects from the one to the
	 * other's listener. */
	struct endpoint local, peer;
};

static int conform_session_reply(struct nlattr **tb, struct nlmsghdr *nlh,
				 void *arg)
{
	struct conform_info *in = arg;

	(void)nlh;
	in->up = tb[KRDMA_A_SESSION_STATE] &&
		 nla_get_u8(tb[KRDMA_A_SESSION_STATE]) == KRDMA_SESSION_UP;
	if (tb[KRDMA_A_SESSION_ID])
		in->id = nla_get_u32(tb[KRDMA_A_SESSION_ID]);
	snprintf(in->name, sizeof(in->name), "%s",
		 tb[KRDMA_A_NAME] ? nla_get_string(tb[KRDMA_A_NAME]) : "");
	snprintf(in->dev, sizeof(in->dev), "%s",
		 tb[KRDMA_A_DEV_NAME] ? nla_get_string(tb[KRDMA_A_DEV_NAME]) : "");
	if (tb[KRDMA_A_SESSION_MAX_MSG_SIZE])
		in->t.max_msg = nla_get_u32(tb[KRDMA_A_SESSION_MAX_MSG_SIZE]);
	if (tb[KRDMA_A_SESSION_INITIATOR_DEPTH])
		in->t.initiator_depth =
			nla_get_u8(tb[KRDMA_A_SESSION_INITIATOR_DEPTH]);
	if (tb[KRDMA_A_SESSION_MAX_SGE])
		in->t.session_max_sge = nla_get_u32(tb[KRDMA_A_SESSION_MAX_SGE]);
	if (tb[KRDMA_A_SESSION_MAX_READ_SGE])
		in->t.session_max_read_sge =
			nla_get_u32(tb[KRDMA_A_SESSION_MAX_READ_SGE]);
	if (tb[KRDMA_A_SESSION_PEER_PROTO])
		in->t.peer_proto = nla_get_u32(tb[KRDMA_A_SESSION_PEER_PROTO]);
	in->t.client = tb[KRDMA_A_SESSION_ROLE] &&
		       nla_get_u8(tb[KRDMA_A_SESSION_ROLE]) == KRDMA_ROLE_CLIENT &&
		       tb[KRDMA_A_LOCAL_ADDR] && tb[KRDMA_A_PEER_ADDR] &&
		       !get_endpoint(tb[KRDMA_A_LOCAL_ADDR], &in->local) &&
		       !get_endpoint(tb[KRDMA_A_PEER_ADDR], &in->peer) &&
		       in->local.has_addr && in->peer.has_addr &&
		       in->peer.port > 0;
	return 0;
}

static int conform_dev_reply(struct nlattr **tb, struct nlmsghdr *nlh,
			     void *arg)
{
	struct conform_info *in = arg;
	struct run_env e;

	memset(&e, 0, sizeof(e));
	if (tb[KRDMA_A_DEV_ATOMIC_CAP])
		in->t.atomic_cap = nla_get_u8(tb[KRDMA_A_DEV_ATOMIC_CAP]);
	if (tb[KRDMA_A_DEV_MAX_SGE])
		in->t.max_sge = nla_get_u32(tb[KRDMA_A_DEV_MAX_SGE]);
	each_nested(nlh, KRDMA_A_DEV_PORT, KRDMA_PORT_A_MAX, krdma_port_policy,
		    env_dev_port, &e);
	in->t.mtu = e.active_mtu;
	return 0;
}

/* What the cases are decided on; EXIT_OK, or EXIT_ERR said. */
static int conform_info_get(struct knl_ctx *c, const struct arg_val *sess,
			    struct conform_info *in)
{
	struct nl_msg *msg = knl_req(c, KRDMA_CMD_SESSION_GET, 0);
	long page = sysconf(_SC_PAGESIZE);

	memset(in, 0, sizeof(*in));
	in->t.page_size = page > 0 ? (uint32_t)page : 4096;
	if (!msg || put_ref(msg, KRDMA_A_SESSION_ID, sess, NULL)) {
		nlmsg_free(msg);
		return msg_error();
	}
	if (knl_call(c, msg, conform_session_reply, in, "session show"))
		return EXIT_ERR;
	if (!in->up || !in->dev[0]) {
		fprintf(stderr, "krdmactl: %s: session %u is not up\n",
			cmd_what(), in->id);
		return EXIT_ERR;
	}
	msg = knl_req(c, KRDMA_CMD_DEV_GET, 0);
	if (!msg || nla_put_string(msg, KRDMA_A_DEV_NAME, in->dev)) {
		nlmsg_free(msg);
		return msg_error();
	}
	if (knl_call(c, msg, conform_dev_reply, in, "dev show"))
		return EXIT_ERR;
	in->t.iwarp = env_dev_iwarp(in->dev);
	return EXIT_OK;
}

/* ---- running the cases ---- */

struct conform_tally {
	unsigned int pass, fail, skip;
};

/* What a case runs that its op and size do not say, for -j. */
static void conform_variant_json(const struct conform_case *cc)
{
	if (cc->atomic_variant)
		print_string(PRINT_JSON, "atomic_variant", NULL,
			     STRMAP_NAME(krdma_atomic_variant_strmap,
					 cc->atomic_variant));
	if (cc->read_back)
		print_bool(PRINT_JSON, "read_back", NULL, true);
	if (cc->send_invalidate)
		print_bool(PRINT_JSON, "send_invalidate", NULL, true);
	if (cc->zero_length)
		print_bool(PRINT_JSON, "zero_length", NULL, true);
	if (cc->zero_read_behind)
		print_bool(PRINT_JSON, "zero_read_behind", NULL, true);
	if (cc->reg_behind)
		print_bool(PRINT_JSON, "reg_behind", NULL, true);
	if (cc->ack_timeout)
		print_uint(PRINT_JSON, "ack_timeout", NULL, cc->ack_timeout);
	if (cc->rnr_hold) {
		print_bool(PRINT_JSON, "rnr_hold", NULL, true);
		print_uint(PRINT_JSON, "rnr_retry", NULL, cc->rnr_retry);
	}
}

/* A row: "CASE OP SIZE RESULT", the detail after it. */
static void conform_row_start(const struct conform_case *cc, uint64_t size,
			      const char *result)
{
	bool sized = size != 0;	/* 0: skipped, the size as the table has it */
	char sz[24];

	/* A case of 0 bytes shows what its WRs move, not its target. */
	if (cc->zero_length)
		size = 0;
	if (sized)
		snprintf(sz, sizeof(sz), "%" PRIu64, size);
	else
		snprintf(sz, sizeof(sz), "%s", conform_size_text(cc->size));
	print_text("%-28s %-12s %8s  %-4s ", cc->name, op_name(conform_wr_op(cc)),
		   sz, result);
	print_string(PRINT_JSON, "case", NULL, cc->name);
	print_string(PRINT_JSON, "op", NULL, op_name(conform_wr_op(cc)));
	conform_variant_json(cc);
	if (sized)
		print_uint(PRINT_JSON, "size", NULL, size);
	print_string(PRINT_JSON, "result", NULL, result);
}

/*
 * A check-mode test of @cc's op over session @id: @count iterations, and
 * what the case asks of the test beyond its op (of the session @t).
 */
static void conform_test_args(struct test_args *a, const struct conform_case *cc,
			      const struct conform_target *t, uint32_t id,
			      uint64_t count)
{
	memset(a, 0, sizeof(*a));
	a->session.set = a->session.is_num = true;
	a->session.num = id;
	a->op.set = a->mode.set = a->count.set = true;
	a->op.num = cc->op;
	a->mode.num = KRDMA_MODE_CHECK;
	a->count.num = count;
	a->conform.atomic_variant.set = cc->atomic_variant != 0;
	a->conform.atomic_variant.num = cc->atomic_variant;
	a->conform.sges.set = cc->max_sge;
	a->conform.sges.num = conform_sges(cc, t);
	a->conform.read_back.set = cc->read_back;
	a->conform.read_back.num = 1;
	a->conform.send_invalidate.set = cc->send_invalidate;
	a->conform.send_invalidate.num = 1;
	a->conform.zero_length.set = cc->zero_length;
	a->conform.zero_length.num = 1;
	a->conform.rnr_hold.set = cc->rnr_hold;
	a->conform.rnr_hold.num = 1;
	a->conform.zero_read_behind.set = cc->zero_read_behind;
	a->conform.zero_read_behind.num = 1;
	a->conform.reg_behind.set = cc->reg_behind;
	a->conform.reg_behind.num = 1;
	a->depth.set = cc->rnr_hold || cc->ack_timeout;
	a->depth.num = cc->rnr_hold ? CONFORM_RNR_DEPTH : CONFORM_ACK_DEPTH;
}

/*
 * A case's session of its own: connected from the session's local
 * address to its peer's listener, named conform-PID-N, of @max_msg (an
 * RNR case's of its receive depth and RNR retry count too). Returns 0
 * with its id in *@id (0 if the kernel never named one), or why not in
 * @why.
 */
static int conform_own_connect(struct knl_ctx *c, const struct conform_info *in,
			       const struct conform_case *cc, uint32_t max_msg,
			       uint32_t *id, char *why, size_t len)
{
	static unsigned int n;
	char name[KRDMA_NAME_MAX];
	struct connect_state st;
	struct session_args s;
	struct nl_msg *msg;
	int rc;

	snprintf(name, sizeof(name), "conform-%d-%u", (int)getpid(), ++n);
	memset(&s, 0, sizeof(s));
	s.addr.set = s.src.set = s.name.set = s.maxmsg.set = true;
	s.addr.addr = in->peer.addr;
	s.src.addr = in->local.addr;
	s.name.str = name;
	s.maxmsg.num = max_msg;
	s.rqd.set = s.rnr.set = cc->rnr_hold;
	s.rqd.num = CONFORM_RNR_RQ_DEPTH;
	s.rnr.num = cc->rnr_retry;
	s.ack.set = s.sqd.set = cc->ack_timeout != 0;
	s.ack.num = cc->ack_timeout;
	s.sqd.num = CONFORM_ACK_SQ_DEPTH;
	/* Every SGE the device takes, up to krdma's most. */
	s.maxsge.set = cc->max_sge;
	s.maxsge.num = in->t.max_sge < KRDMA_SGE_MAX ? in->t.max_sge :
						       KRDMA_SGE_MAX;
	msg = session_new_msg(c, &s, in->peer.port);
	if (!msg) {
		snprintf(why, len, "out of memory");
		return EXIT_ERR;
	}
	memset(&st, 0, sizeof(st));
	st.owned = true;
	rc = session_connect_wait(c, msg, session_timeout_ms(&s), &st);
	*id = st.have_id ? st.id : 0;
	if (!rc && !st.up) {
		snprintf(why, len, "no session to the peer's listener: %s",
			 st.reason[0] ? st.reason : "no reason given");
		rc = EXIT_ERR;
	} else if (rc) {
		snprintf(why, len, "no session to the peer's listener");
	}
	return rc;
}

/* Session @id as session show has it, into @in: 0, or an exit code. */
static int conform_session_get(struct knl_ctx *c, uint32_t id,
			       struct conform_info *in)
{
	struct nl_msg *msg = knl_req(c, KRDMA_CMD_SESSION_GET, 0);

	memset(in, 0, sizeof(*in));
	if (!msg || nla_put_u32(msg, KRDMA_A_SESSION_ID, id)) {
		nlmsg_free(msg);
		return EXIT_ERR;
	}
	return knl_call(c, msg, conform_session_reply, in, "session show");
}

/* Is session @id still up? */
static bool conform_session_up(struct knl_ctx *c, uint32_t id)
{
	struct conform_info in;

	return !conform_session_get(c, id, &in) && in.up;
}

/*
 * A case's session of its own is over: a pass still needs the session
 * conform runs on up (the failure stayed where it was made, else @reason
 * says so), and @own deleted (0: none came). Returns whether it passed.
 */
static bool conform_own_end(struct knl_ctx *c, const struct conform_info *in,
			    uint32_t own, bool pass, char *reason, size_t len)
{
	if (pass && !conform_session_up(c, in->id)) {
		snprintf(reason, len, "session %s went down too", in->name);
		pass = false;
	}
	if (own && session_del_id(c, own))
		pass = false;
	return pass;
}

/*
 * iWARP's verdict on a negative case: the peer's TERMINATE ended the
 * connection (RFC 5040) - the session closed under the test, or our WR,
 * still in flight when the TERMINATE broke our QP, completed with a local
 * QP operation error (siw's status for the WR it was sending then; once
 * in 2026-11-30's runs, the long SEND).
 */
static bool conform_iwarp_terminated(const struct report_opts *ro)
{
	return ro->last_status == -ECONNRESET ||
	       ro->last_wc_status == CONFORM_WC_LOC_QP_OP_ERR;
}

/*
 * Negative case @cc: over a session of its own, one iteration breaking
 * the case's rule; it passes if the test failed on a completion of the
 * status the IBTA specification names - on iWARP, where a remote error
 * is the peer's TERMINATE and the end of the stream (RFC 5040), if the
 * session was closed under the test (-ECONNRESET) - and the session
 * conform runs on is still up (the failure stayed where it was made).
 * The case's session is deleted whatever happened.
 */
static void conform_negative(struct knl_ctx *c, const struct conform_case *cc,
			     const struct conform_info *in, uint64_t size,
			     struct conform_tally *tally, bool *stopped)
{
	struct report_opts ro = {
		.quiet = true, .failure_expected = true, .last_wc_status = -1,
	};
	char reason[400] = "";
	struct test_args a;
	bool pass = false, refused = false;
	uint32_t id = 0;

	if (!conform_own_connect(c, in, cc, CONFORM_NEG_MAX_MSG, &id, reason,
				 sizeof(reason))) {
		/* One iteration that breaks the rule; an RNR case's count. */
		conform_test_args(&a, cc, &in->t, id,
				  cc->rnr_hold ? conform_count(cc, size) : 1);
		if (cc->violate) {
			a.depth.set = a.conform.violate.set = true;
			a.depth.num = 1;
			a.conform.violate.num = cc->violate;
		}
		c->ext_msg[0] = '\0';
		test_run_one(c, &a, conform_test_size(cc, size), &ro, stopped);
		if (!ro.last.id)
			snprintf(reason, sizeof(reason), "not run: %s",
				 c->ext_msg[0] ? c->ext_msg :
				 "no result from the kernel");
		else if (!ro.last_status)
			snprintf(reason, sizeof(reason),
				 "the device did it: status 0, %" PRIu64 " validated",
				 ro.last.validated);
		else if (in->t.iwarp && !conform_iwarp_terminated(&ro))
			snprintf(reason, sizeof(reason), "%s", ro.last_reason);
		else if (!in->t.iwarp && ro.last_wc_status != cc->expect_wc &&
			 !(refused = cc->post_may_refuse && ro.last_wc_status < 0 &&
				     ro.last_status == -EINVAL))
			snprintf(reason, sizeof(reason), "%s%s",
				 ro.last_wc_status < 0 ? "no completion failed: " : "",
				 ro.last_reason);
		else
			pass = true;
	}
	pass = conform_own_end(c, in, id, pass, reason, sizeof(reason));
	if (*stopped)
		pass = false;
	else if (pass)
		tally->pass++;
	else
		tally->fail++;
	conform_row_start(cc, size, *stopped ? "stopped" : pass ? "pass" : "fail");
	if (cc->violate)
		print_string(PRINT_JSON, "violate", NULL,
			     STRMAP_NAME(krdma_violation_strmap, cc->violate));
	if (in->t.iwarp) {
		/* RFC 5040: the peer's TERMINATE, then the stream closed. */
		print_string(PRINT_ANY, "expect", "expect %s",
			     "the connection terminated");
	} else {
		print_uint(PRINT_JSON, "expect_wc_status", NULL, cc->expect_wc);
		print_string(PRINT_TEXT, NULL, "expect %s",
			     wc_status_name(cc->expect_wc));
		if (cc->post_may_refuse)
			print_text(" or a refusal at post");
	}
	if (refused) {
		print_bool(PRINT_JSON, "refused_at_post", NULL, true);
		print_string(PRINT_TEXT, NULL, ", got %s", ro.last_reason);
	}
	if (ro.last_wc_status >= 0) {
		print_uint(PRINT_JSON, "wc_status", NULL, (uint64_t)ro.last_wc_status);
		print_string(PRINT_ANY, "wc_status_name", ", got %s",
			     wc_status_name((uint32_t)ro.last_wc_status));
	}
	if (ro.last.id) {
		print_uint(PRINT_JSON, "test_id", NULL, ro.last.id);
		print_int(PRINT_JSON, "status", NULL, ro.last_status);
		if (in->t.iwarp && ro.last_status == -ECONNRESET)
			print_string(PRINT_TEXT, NULL, ", got %s",
				     "the connection terminated");
		else if (in->t.iwarp && pass)
			print_text(" (the connection terminated)");
	}
	if (!pass && !*stopped && reason[0]) {
		print_text("; %s", reason);
		print_string(PRINT_JSON, "reason", NULL, reason);
	}
	print_nl();
}

/*
 * Case @cc over the session: skipped, or a check-mode test of
 * CONFORM_COUNT iterations that passes if every one completed and was
 * validated, with status 0; or a negative case.
 */
static void conform_one(struct knl_ctx *c, const struct conform_case *cc,
			const struct conform_info *in,
			struct conform_tally *tally, bool *stopped)
{
	struct report_opts ro = { .quiet = true, .last_wc_status = -1 };
	struct conform_target tg;
	struct conform_info oi;
	const char *why = NULL;
	uint64_t size = conform_size(cc, &in->t, &why);
	uint64_t count = conform_count(cc, size);
	struct test_args a;
	char reason[400] = "";
	uint32_t own = 0;
	bool ran, pass, connected = true;
	int rc = EXIT_ERR;

	open_json_object(NULL);
	if (!size) {
		tally->skip++;
		conform_row_start(cc, 0, "skip");
		print_string(PRINT_ANY, "reason", "%s", why);
		print_nl();
		close_json_object();
		return;
	}
	if (conform_negative_case(cc)) {
		conform_negative(c, cc, in, size, tally, stopped);
		close_json_object();
		if (!out_json())
			out_flush();
		return;
	}
	/* Its own session: the max_msg of the one conform runs on. */
	if (cc->own_session)
		connected = !conform_own_connect(c, in, cc, in->t.max_msg, &own,
						 reason, sizeof(reason));
	/* A max_sge case's SGEs: what its session's QPs took. */
	tg = in->t;
	if (connected && own && cc->max_sge &&
	    !conform_session_get(c, own, &oi)) {
		tg.session_max_sge = oi.t.session_max_sge;
		tg.session_max_read_sge = oi.t.session_max_read_sge;
	}
	conform_test_args(&a, cc, &tg, own ?: in->id, count);
	/* Each word once: slot 0's uses go to the words in turn. */
	if (cc->every_offset) {
		a.depth.set = true;
		a.depth.num = 1;
	}
	c->ext_msg[0] = '\0';
	if (connected)
		rc = test_run_one(c, &a, conform_test_size(cc, size), &ro,
				  stopped);
	ran = ro.last.id != 0;
	pass = rc == EXIT_OK && ran && !ro.last_status &&
	       ro.last.iters == count &&
	       ro.last.validated == ro.last.iters;
	if (cc->own_session)
		pass = conform_own_end(c, in, own, pass, reason, sizeof(reason));
	/* ^C: neither a pass nor the device's failure. */
	if (*stopped)
		pass = false;
	else if (pass)
		tally->pass++;
	else
		tally->fail++;
	conform_row_start(cc, size, *stopped ? "stopped" : pass ? "pass" :
			  "fail");
	if (cc->max_sge)
		print_uint(PRINT_ANY, "sges", "%" PRIu64 " SGEs a WR, ",
			   conform_sges(cc, &tg));
	if (cc->read_back)
		print_text("each WRITE READ back, ");
	if (cc->send_invalidate)
		print_text("each SEND invalidated the peer's key, ");
	if (cc->rnr_hold)
		print_text("into the peer's empty receive queue, ");
	if (cc->ack_timeout)
		print_uint(PRINT_TEXT, NULL, "ACK timeout %" PRIu64 ", ",
			   cc->ack_timeout);
	if (ran) {
		print_uint(PRINT_JSON, "test_id", NULL, ro.last.id);
		print_int(PRINT_JSON, "status", NULL, ro.last_status);
		print_uint(PRINT_ANY, "validated", "%" PRIu64, ro.last.validated);
		print_uint(PRINT_ANY, "iters", " validated of %" PRIu64,
			   ro.last.iters);
		print_uint(PRINT_ANY, "count", " iterations of %" PRIu64,
			   count);
	}
	/* What came instead: the status of the completion that failed it. */
	if (!pass && !*stopped && ro.last_wc_status >= 0) {
		print_uint(PRINT_JSON, "wc_status", NULL,
			   (uint64_t)ro.last_wc_status);
		print_string(PRINT_JSON, "wc_status_name", NULL,
			     wc_status_name((uint32_t)ro.last_wc_status));
	}
	/* Unless no session of its own came, or the other went down too. */
	if (!pass && !*stopped && !reason[0]) {
		if (ran && ro.last_status)
			snprintf(reason, sizeof(reason), "status %d (%s)%s%s",
				 ro.last_status, strerror(-ro.last_status),
				 ro.last_reason[0] ? ": " : "",
				 ro.last_reason);
		else if (ran)
			snprintf(reason, sizeof(reason),
				 "status 0, but not every iteration completed and validated");
		else
			snprintf(reason, sizeof(reason), "not run: %s",
				 c->ext_msg[0] ? c->ext_msg :
				 "no result from the kernel");
	}
	if (!pass && !*stopped) {
		print_text("%s%s", ran ? "; " : "", reason);
		print_string(PRINT_JSON, "reason", NULL, reason);
	}
	print_nl();
	close_json_object();
	if (!out_json())
		out_flush();
}

static void conform_list(void)
{
	size_t i;

	print_text("%-28s %-12s %8s  %s\n", "CASE", "OP", "SIZE", "EXPECT");
	open_json_array(NULL);
	for (i = 0; i < conform_ncases; i++) {
		const struct conform_case *cc = &conform_cases[i];

		open_json_object(NULL);
		print_string(PRINT_ANY, "case", "%-28s", cc->name);
		print_string(PRINT_ANY, "op", " %-12s", op_name(conform_wr_op(cc)));
		print_string(PRINT_ANY, "size", " %8s",
			     conform_size_text(cc->size));
		conform_variant_json(cc);
		if (conform_negative_case(cc)) {
			if (cc->violate)
				print_string(PRINT_JSON, "violate", NULL,
					     STRMAP_NAME(krdma_violation_strmap,
							 cc->violate));
			print_uint(PRINT_JSON, "expect_wc_status", NULL,
				   cc->expect_wc);
			print_string(PRINT_TEXT, NULL, "  %s",
				     wc_status_name(cc->expect_wc));
		} else {
			print_string(PRINT_TEXT, NULL, "  %s", "data validated");
		}
		print_nl();
		close_json_object();
	}
	close_json_array();
}

static int conform_run(int argc, char **argv)
{
	struct arg_val sess, cas;
	const struct arg_spec specs[] = {
		{ "session", ARG_REF, ARG_REQUIRED, 0, 0, 0, &sess,
		  "{ ID | NAME }" },
		{ "case", ARG_STR, 0, 0, 0, 63, &cas, "CASE" },
	};
	struct conform_tally tally = { 0, 0, 0 };
	struct conform_info in;
	bool stopped = false;
	struct knl_ctx *c;
	int rc, k = -1;
	size_t i;

	rc = cmd_args(specs, ARRAY_SIZE(specs), argc, argv);
	if (rc)
		return rc == ARGS_HELP ? EXIT_OK : EXIT_USAGE;
	if (cas.set && !strcmp(cas.str, "list")) {
		conform_list();
		return EXIT_OK;
	}
	if (cas.set) {
		k = conform_find(cas.str);
		if (k < 0)
			return usage_error("%s case '%s' (\"case list\" lists them)",
					   k == MATCH_AMBIGUOUS ? "ambiguous" :
					   "unknown", cas.str);
	}
	/* Subscribed before the first test starts: a short one may be
	 * over before the reply to TEST_START is read. */
	c = knl_get_events();
	if (!c)
		return EXIT_ERR;
	rc = conform_info_get(c, &sess, &in);
	if (rc)
		return rc;
	sig_install();
	open_json_object(NULL);
	print_uint(PRINT_JSON, "schema_version", NULL, CONFORM_SCHEMA_VERSION);
	print_uint(PRINT_ANY, "session_id", "conform session %" PRIu64, in.id);
	print_string(PRINT_ANY, "session", " (%s)", in.name);
	print_string(PRINT_ANY, "dev", ": dev %s", in.dev);
	print_uint(PRINT_ANY, "mtu", " mtu %" PRIu64, in.t.mtu);
	print_uint(PRINT_ANY, "max_msg", " max_msg %" PRIu64, in.t.max_msg);
	print_uint(PRINT_ANY, "page_size", " page %" PRIu64, in.t.page_size);
	print_uint(PRINT_ANY, "count", ", %" PRIu64 " iterations a case",
		   CONFORM_COUNT);
	print_nl();
	print_text("%-28s %-12s %8s  %-4s %s\n", "CASE", "OP", "SIZE",
		   "RESULT", "DETAIL");
	if (!out_json())
		out_flush();
	open_json_array("cases");
	in.t.named = k >= 0;
	for (i = 0; i < conform_ncases && !stopped; i++)
		if (k < 0 || (size_t)k == i)
			conform_one(c, &conform_cases[i], &in, &tally,
				    &stopped);
	close_json_array();
	print_uint(PRINT_ANY, "passed", "%" PRIu64 " passed", tally.pass);
	print_uint(PRINT_ANY, "failed", ", %" PRIu64 " failed", tally.fail);
	print_uint(PRINT_ANY, "skipped", ", %" PRIu64 " skipped", tally.skip);
	print_bool(PRINT_JSON, "interrupted", NULL, stopped);
	print_nl();
	close_json_object();
	out_flush();
	if (stopped)
		return EXIT_INTR;
	return tally.fail ? EXIT_CONFORM_FAIL : EXIT_OK;
}

const struct object conform_obj = {
	.name = "conform",
	.desc = "conformance cases of the device's kernel verbs over a session",
	.fn = conform_run,
	.notes =
	"Runs each case of a table over an up session: a check-mode test of\n"
	KRDMACTL_STR(CONFORM_COUNT) " iterations (every one acknowledged and its data compared byte by\n"
	"byte at the other side), reported pass, fail (the test's status and\n"
	"reason, validated/iterations) or skip (the device lacks the op: no\n"
	"atomics, iWARP; or the session cannot take it: max_msg too small, no\n"
	"READ/atomic credits). The cases: write, read, send, send_imm and\n"
	"write_imm at 1 byte, MTU-1, MTU, MTU+1 (the active MTU of the device's\n"
	"port), PAGE+1, 2*PAGE+7 (this host's page size) and max_msg (the\n"
	"session's); atomic_fadd and atomic_cswap at 8 bytes, and again with\n"
	"the target carried past 2^64 and back (atomic_fadd.wrap_around) and\n"
	"with compares that miss (atomic_cswap.miss). The negative\n"
	"cases break a rule of the verbs once - an access past the peer's\n"
	"region, under its MR's previous key, a WRITE into a region registered\n"
	"for READ, a SEND a byte longer than the receive - each over a session\n"
	"of its own to the peer's listener (run conform on the side that\n"
	"connected), deleted after it: pass if the test failed on the\n"
	"completion status the specification names and the session is still\n"
	"up (Documentation/conformance.rst).\n"
	"CASE: a case's name (a unique prefix will do), to run it alone; or list:\n"
	"      \"case list\" lists the cases, with no module needed.\n"
	"-j: one object, a record per case in \"cases\". Exit 0 if no case\n"
	"failed, 6 if one did, 1 if the session is not there or not up.\n"
	"  $ krdmactl conform session s1 case write.mtu_plus_1\n",
};
