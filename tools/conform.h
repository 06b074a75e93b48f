/* SPDX-License-Identifier: GPL-2.0 */
/*
 * krdmactl conform: the table of conformance cases, and what decides
 * whether a case runs on a session or is skipped (exported for the unit
 * tests; conform.c runs them).
 */
#ifndef KRDMACTL_CONFORM_H
#define KRDMACTL_CONFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Iterations of a case's check-mode test: each one checked, and quick. */
#define CONFORM_COUNT	8

/* The message size of a case, resolved against the session (conform_size()). */
enum conform_size {
	CONFORM_ONE_BYTE,
	CONFORM_MTU_MINUS_1,
	CONFORM_MTU,
	CONFORM_MTU_PLUS_1,
	CONFORM_PAGE_PLUS_1,		/* one page boundary crossed */
	CONFORM_TWO_PAGES_PLUS_7,	/* two, ending off a word */
	CONFORM_MAX_MSG,		/* the session's max_msg */
	CONFORM_ATOMIC,			/* 8 bytes, the atomics' */
	CONFORM_SGE_MSG,		/* 1000 bytes: one page, split in SGEs */
	CONFORM_ATOMIC_PAIR,		/* an atomics target of 2 words */
	CONFORM_ATOMIC_TARGET,		/* of atomic-target-max: 512 words */
	CONFORM_ZERO,			/* 0 bytes moved, a target of 1 */
};

/* The message of the max_sge cases: within a page, with a send's header. */
#define CONFORM_SGE_MSG_SIZE	1000

struct conform_case {
	const char *name;	/* "write.mtu_plus_1" */
	uint8_t op;		/* enum krdma_op */
	enum conform_size size;
	/*
	 * A negative case: the rule of the verbs its one iteration breaks
	 * (enum krdma_violation; 0 for a positive case), over a session of
	 * its own, and the status (enum ib_wc_status) the specification
	 * names for our failed completion.
	 */
	uint8_t violate;
	uint32_t expect_wc;
	/* Or the device may refuse the WR at ib_post_send(), an immediate
	 * -EINVAL, as the verbs allow for a WR it can tell is invalid. */
	bool post_may_refuse;
	/* A positive atomics case's variant (enum krdma_atomic_variant). */
	uint8_t atomic_variant;
	/* A WR that carries as many SGEs as the session's QP takes. */
	bool max_sge;
	/* A write whose every WRITE is READ back behind a fence. */
	bool read_back;
	/* A send whose every SEND invalidates a key of the peer's. */
	bool send_invalidate;
	/* RDMA WRITEs or READs of 0 bytes (size CONFORM_ZERO). */
	bool zero_length;
	/*
	 * Over a session of its own, as a negative case, for a positive
	 * case a device may break the QP on (siw refuses a fenced READ by
	 * dropping the connection): the session conform runs on survives.
	 */
	bool own_session;
	/* Atomics, one at each word of the target in turn (depth 1). */
	bool every_offset;
	/*
	 * Sends the peer's receive queue runs out of (test-rnr-hold), over
	 * a session of its own whose QPs retry receiver-not-ready NAKs
	 * rnr_retry times (7: for ever).
	 */
	bool rnr_hold;
	uint8_t rnr_retry;
	/*
	 * A READ whose every WR of data has a READ of 0 bytes right behind
	 * it (test-zero-read-behind), over a session of its own: siw breaks
	 * the connection on it (Documentation/conformance.rst).
	 */
	bool zero_read_behind;
	/*
	 * Sends with a REG_MR of a free region of ours right behind each
	 * (test-reg-behind), with rnr_hold: rxe runs it twice.
	 */
	bool reg_behind;
	/*
	 * WRITEs over a session of its own whose QPs retransmit after this
	 * transport ACK timeout (session-ack-timeout; 0: the module's), of
	 * several packets each, CONFORM_ACK_COUNT of them CONFORM_ACK_DEPTH
	 * at a time: where the round trip is longer, each is sent again
	 * while the first sending is still being answered.
	 */
	uint8_t ack_timeout;
	/*
	 * Not in the table, only run when asked for by name: a case that
	 * loads the path (a storm of retransmissions where it is slow).
	 */
	bool by_name;
};

/* The statuses the negative cases expect (enum ib_wc_status). */
#define CONFORM_WC_LOC_QP_OP_ERR	2
#define CONFORM_WC_REM_INV_REQ_ERR	9
#define CONFORM_WC_REM_ACCESS_ERR	10
#define CONFORM_WC_RNR_RETRY_EXC_ERR	13

/*
 * An RNR case's session and test: the peer keeps rq_depth + 4 receives
 * posted on a session of one QP (test-rnr-hold), 12: its SENDs, 4 at a
 * time, empty the queue well before the last.
 */
#define CONFORM_RNR_RQ_DEPTH	8
#define CONFORM_RNR_COUNT	16
#define CONFORM_RNR_DEPTH	4

/*
 * The ACK timeout case's test: enough messages in flight that a spurious
 * retransmission meets the ACK of the first sending (rxe's bug needs two
 * timeouts in a row, Documentation/conformance.rst), and a send queue of
 * its own session to hold them (17 WRs a slot at most).
 */
#define CONFORM_ACK_COUNT	256
#define CONFORM_ACK_DEPTH	24
#define CONFORM_ACK_SQ_DEPTH	512

/* A negative case: it breaks a rule, or exhausts a retry count. */
static inline bool conform_negative_case(const struct conform_case *cc)
{
	return cc->expect_wc != 0;
}

/*
 * A negative case's session: max_msg small enough that a SEND of it and
 * a byte more takes few SGEs anywhere.
 */
#define CONFORM_NEG_MAX_MSG	4096

extern const struct conform_case conform_cases[];
extern const size_t conform_ncases;

/* How a size is written in the case list: "MTU+1", "max_msg". */
const char *conform_size_text(enum conform_size s);

/* The op of the WR a case checks: its test's, but for a read-only region
 * WRITten into and a write's fenced READ back. */
uint8_t conform_wr_op(const struct conform_case *cc);

/* The iterations of case @cc of size @size: each word of an every-offset
 * case's target once, else CONFORM_COUNT. */
uint64_t conform_count(const struct conform_case *cc, uint64_t size);

/* The case named @name (a unique prefix will do): its index, or MATCH_*. */
int conform_find(const char *name);

/*
 * What decides a case: the device's attributes as "dev show" gets them,
 * the session's as "session show" does, and this host's page size.
 */
struct conform_target {
	uint8_t atomic_cap;	/* enum ib_atomic_cap */
	bool iwarp;		/* no atomics, no immediate data */
	uint32_t mtu;		/* the port's active MTU; 0 unknown */
	uint32_t max_msg;	/* the session's */
	uint32_t initiator_depth;	/* READ/atomic credits negotiated */
	uint32_t page_size;
	uint32_t max_sge;	/* the device's */
	uint32_t session_max_sge;	/* a send WR of the session's QPs */
	uint32_t session_max_read_sge;	/* and a READ's */
	bool client;		/* the session connected: its peer listens */
	bool named;		/* the case was asked for by name */
	uint32_t peer_proto;	/* the peer module's protocol version */
};

/* The SGEs a max_sge case's WR carries: the session's most for its op. */
uint32_t conform_sges(const struct conform_case *cc,
		      const struct conform_target *t);

/*
 * The message size of case @cc on @t, or 0 if the case is skipped there,
 * *@why then saying why (the device lacks the op, the session's max_msg
 * is smaller than the case's message, ...).
 */
uint64_t conform_size(const struct conform_case *cc,
		      const struct conform_target *t, const char **why);

#endif /* KRDMACTL_CONFORM_H */
