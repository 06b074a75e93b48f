/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * krdma wire protocol, spoken between two krdma modules.
 *
 * Every field is big-endian. Documentation/protocol.rst describes the
 * exchange; this header is its only definition. A peer is never trusted:
 * every length, count, slot and key it sends is checked before use.
 */
#ifndef _KRDMA_PROTO_H
#define _KRDMA_PROTO_H

#include <linux/stddef.h>
#include <linux/types.h>

#define KRDMA_PROTO_MAGIC	0x4b52444dU	/* "KRDM" */
/*
 * A module speaks KRDMA_PROTO_VERSION and accepts peers of
 * KRDMA_PROTO_VERSION_MIN up to it; a session speaks the lower of the two.
 * Version 2: the keepalive probe is a zero-length SEND (see below).
 * Version 3: the data channels take receives, and a CREDIT names its QP
 * (struct krdma_msg_hdr): send, send_imm and write_imm over several QPs.
 * Version 4: TEST_RESULT carries the responder's host name, firmware
 * version and link (struct krdma_msg_result), sent to and read from a
 * peer of version 4 only.
 * Version 5: a check-mode write's TEST_REQ may set KRDMA_TEST_F_READ_BACK.
 * Version 6: a check-mode TEST_REQ may set KRDMA_TEST_F_INVALIDATED, a
 * check-mode send's KRDMA_TEST_F_SEND_INV, a check-mode write, write_imm
 * or read's KRDMA_TEST_F_ZERO_LENGTH.
 * Version 7: a check-mode send or send_imm's TEST_REQ may set
 * KRDMA_TEST_F_RNR_HOLD, a client's hello KRDMA_HELLO_F_RNR_RETRY.
 */
#define KRDMA_PROTO_VERSION	7
#define KRDMA_PROTO_VERSION_MIN	1

/*
 * Connection handshake, carried in the CM REQ (client to server) and REP
 * (server to client) private data. The REQ holds at most 56 bytes.
 *
 * A session of several QPs is one connection per QP. The first one's REQ
 * asks for @channels more; its REP grants them (an older peer leaves the
 * field zero) and names the session by a random @cookie. Each further
 * connection, a data channel, sets KRDMA_HELLO_F_CHANNEL, its index in
 * @channel (1 .. @channels) and the cookie, and must come from the same
 * address to the same device.
 */
#define KRDMA_HELLO_F_CHANNEL	0x0002
/*
 * A client's hello (version 7): the server's CM REP is to carry
 * @rnr_retry as the RNR retry count (rdma_conn_param.rnr_retry_count
 * of its accept), which the IB CM gives the client's QP - each side of
 * an IB connection says how many times the other retries its RNR NAKs.
 * Without it the server's KRDMA_RNR_RETRY_DEFAULT. Never in a REP.
 */
#define KRDMA_HELLO_F_RNR_RETRY	0x0004

/*
 * The immediate data of a write_imm is the test's id. A lat write_imm is
 * answered by a write_imm into the driver's own target, whose immediate
 * is the id with KRDMA_IMM_ANSWER set: the driver takes those for its
 * test, every other one is for the peer's. Test ids stay below it. A peer
 * that predates lat write_imm refuses the test in its TEST_ACK, and so
 * never sends an answer.
 */
#define KRDMA_IMM_ANSWER	0x80000000U

/*
 * A check-mode write_imm carries its iteration, below KRDMA_IMM_ANSWER:
 * its iteration 2^31 | id would otherwise pass for the answer to a lat
 * write_imm test the responder drives meanwhile.
 */
static inline u32 krdma_check_imm(u64 iter)
{
	return (u32)iter & ~KRDMA_IMM_ANSWER;
}

/*
 * Keepalive (version 2): every up session sends its peer a zero-length
 * SEND every keepalive_ms. It consumes one receive (KRDMA_RQ_RESERVE
 * keeps one for it) and is told from every other message by its length:
 * each of those has at least a header. Its arrival tells the receiver
 * that its peer is alive even while the receiver's own send queue is
 * full of work the lossy wire makes slow. With a version 1 peer the probe
 * is a zero-length RDMA WRITE, which the peer does not see.
 */

struct krdma_cm_hello {
	__be32	magic;
	__be16	version;
	__be16	flags;			/* KRDMA_HELLO_F_*; others must be zero */
	__be16	sq_depth;		/* sender's send queue depth */
	__be16	rq_depth;		/* receives the sender keeps posted */
	__be32	max_msg_size;		/* largest SEND the sender accepts */
	u8	max_qp_rd_atom;		/* sender device's READ/atomic limits */
	u8	max_qp_init_rd_atom;
	u8	channels;		/* data channels besides this QP */
	u8	channel;		/* KRDMA_HELLO_F_CHANNEL: which one */
	__be32	cookie;			/* the session's, from the first REP */
	/*
	 * Version 7. A hello of version 6 or older ends before it: the IB
	 * CM pads the private data with zeros, iWARP's MPA does not, so
	 * its length says (KRDMA_HELLO_V6_LEN).
	 */
	u8	rnr_retry;		/* KRDMA_HELLO_F_RNR_RETRY: 0..7 */
	u8	reserved[3];		/* zero */
};

#define KRDMA_HELLO_V6_LEN	offsetof(struct krdma_cm_hello, rnr_retry)

enum krdma_reject_reason {
	KRDMA_REJ_NOT_KRDMA = 1,	/* no or bad magic */
	KRDMA_REJ_VERSION,		/* protocol version not supported */
	KRDMA_REJ_BAD_PARAM,		/* depths or sizes out of range */
	KRDMA_REJ_NO_RESOURCES,		/* server could not allocate */
	KRDMA_REJ_SHUTDOWN,		/* listener or module going away */
	KRDMA_REJ_NO_SESSION,		/* data channel for no such session */
	KRDMA_REJ_TOO_MANY_SESSIONS,	/* at a cap of server sessions */
	KRDMA_REJ_MEM_LIMIT,		/* asks for more memory than allowed */
};

/* Consumer reject private data, sent with rdma_reject(). */
struct krdma_cm_reject {
	__be32	magic;
	__be16	version;		/* the version the rejecter speaks */
	__be16	reason;			/* enum krdma_reject_reason */
};

/*
 * Every SEND starts with this header; a message body (control payload or
 * test data) follows it directly. Receive buffers are KRDMA_MSG_HDR_SIZE
 * plus the session's maximum message size.
 */
enum krdma_msg_type {
	KRDMA_MSG_TEST_REQ = 1,	/* driver: start a test; body krdma_msg_test */
	KRDMA_MSG_TEST_ACK,	/* responder: ready (or status); body krdma_msg_test */
	KRDMA_MSG_DATA,		/* driver: send/send_imm payload of iteration */
	KRDMA_MSG_NOTIFY,	/* driver: write of iteration landed in slot */
	KRDMA_MSG_RELEASE,	/* driver: read of iteration done, refill slot */
	KRDMA_MSG_PING,		/* driver: source slot of iteration is ready */
	KRDMA_MSG_ITER_ACK,	/* responder: iteration handled (status) */
	KRDMA_MSG_TEST_END,	/* driver: no more iterations (iter = count) */
	KRDMA_MSG_TEST_RESULT,	/* responder: body krdma_msg_result */
	KRDMA_MSG_CREDIT,	/* bw responder: iter = receives reposted so far
				 * on QP qp (version 3; before, the only one)
				 */
	KRDMA_MSG_PONG,		/* lat responder: the answer to iteration iter */
	__KRDMA_MSG_MAX,
};

struct krdma_msg_hdr {
	__be16	type;			/* enum krdma_msg_type */
	__be16	flags;			/* none defined, must be zero */
	__be32	test_id;		/* driver's test id */
	__be64	iter;			/* iteration number */
	__be32	len;			/* body bytes after the header */
	__be32	status;			/* 0 or a positive errno */
	u8	qp;			/* CREDIT: 0 the session's QP, or a
					 * data channel's index (version 3)
					 */
	u8	reserved[7];
};

#define KRDMA_MSG_HDR_SIZE	sizeof(struct krdma_msg_hdr)

/* A remotely accessible piece of a slot: one FRWR memory region. */
struct krdma_wire_region {
	__be64	addr;
	__be32	rkey;
	__be32	len;
};

/*
 * TEST_REQ and TEST_ACK body. The TEST_REQ of a ping carries the driver's
 * source regions then its sink regions; a TEST_ACK carries the responder's
 * target regions for write, read and atomics. Regions are listed slot by
 * slot, nchunks per slot.
 */
#define KRDMA_TEST_F_BIDIR	0x01	/* bw: start the same test back */
/*
 * check write (version 5): the driver READs each iteration back from
 * our target, which then grants remote read too.
 */
#define KRDMA_TEST_F_READ_BACK	0x02
/*
 * check write, write_imm, read, atomics (version 6), a conformance case:
 * we invalidate each target with a LOCAL_INV after registering it and
 * before our TEST_ACK, so the driver's access through its key must fail.
 */
#define KRDMA_TEST_F_INVALIDATED	0x04
/*
 * check send (version 6): we expose a target of KRDMA_SEND_INV_TARGET
 * bytes per slot, one region each; the driver's SEND of iteration i is a
 * SEND_WITH_INV of slot i % depth's key, which our device invalidates.
 * We check our receive's completion says so, then register the target
 * again under the key's next value (ib_inc_rkey()) before our ITER_ACK:
 * the driver's next SEND to the slot carries that key.
 */
#define KRDMA_TEST_F_SEND_INV	0x08
#define KRDMA_SEND_INV_TARGET	8
/*
 * check write, write_imm, read (version 6): each RDMA WRITE or READ moves
 * 0 bytes; size is the target's. Our write target of slot s holds the
 * pattern of krdma_check_canary(test_id, s) from setup on, which every
 * iteration must leave as it was.
 */
#define KRDMA_TEST_F_ZERO_LENGTH	0x10
/*
 * check send, send_imm (version 7), a conformance case: we keep back
 * every receive our session's QP completes from the TEST_REQ on, until
 * none is left posted and KRDMA_RNR_HOLD_MS more have passed, or
 * KRDMA_RNR_HOLD_MAX_MS since the TEST_REQ (both <linux/krdma.h>'s: the
 * netlink ABI documents them), then post them all again.
 * The driver's SENDs meanwhile meet an empty receive queue: our device
 * NAKs them receiver-not-ready, and the driver's retries them (its
 * rnr_retry_count) or fails them. count must exceed the receives our
 * session's QP keeps posted (krdma_session_nr_recvs()), or the queue
 * never runs empty.
 */
#define KRDMA_TEST_F_RNR_HOLD	0x20

struct krdma_msg_test {
	u8	op;			/* enum krdma_op */
	u8	mode;			/* enum krdma_test_mode */
	u8	flags;			/* KRDMA_TEST_F_* */
	u8	qps;			/* bw: QPs used, if more than one */
	__be32	size;			/* bytes per message */
	__be32	depth;			/* slots, and iterations in flight */
	__be32	nregions;
	__be64	count;			/* iterations, 0 = until TEST_END */
	struct krdma_wire_region regions[];
};

/*
 * Largest control body: a TEST_REQ/ACK with its regions. With its header
 * a control message fills one page, and so does each control buffer.
 */
#define KRDMA_CTRL_BODY_MAX	(4096 - KRDMA_MSG_HDR_SIZE)
#define KRDMA_MAX_WIRE_REGIONS \
	((KRDMA_CTRL_BODY_MAX - sizeof(struct krdma_msg_test)) / \
	 sizeof(struct krdma_wire_region))

#define KRDMA_ENV_HOST_LEN	64	/* __NEW_UTS_LEN */
#define KRDMA_ENV_FW_LEN	64	/* IB_FW_VERSION_NAME_MAX */

struct krdma_msg_result {
	__be64	iters;			/* iterations the responder saw */
	__be64	validated;		/* of which data was checked */
	__be64	errors;			/* of which data was wrong */
	__be64	cpu_ns;			/* responder's data-path CPU time */
	__be64	mirror_iters;		/* bidir: the responder's own stream */
	__be64	mirror_bytes;
	/* The responder's host over its side of the test, ns (hostcpu.h). */
	__be64	host_capacity;
	__be64	host_user;
	__be64	host_system;
	__be64	host_softirq;
	__be64	host_irq;
	/*
	 * Version 4: the responder's host and the port its session uses,
	 * as sampled when the session came up. Strings are printable ASCII,
	 * NUL-padded to the end of the field (a name of the field's full
	 * length has no NUL); anything else is a malformed TEST_RESULT.
	 */
	__be32	link_mbit_per_s;	/* 10^6 bits/s, all lanes; 0 unknown */
	u8	link_width;		/* lanes: 1, 2, 4, 8, 12; 0 unknown */
	u8	env_reserved[3];	/* zero */
	u8	host[KRDMA_ENV_HOST_LEN];	/* the node name */
	u8	fw_ver[KRDMA_ENV_FW_LEN];	/* the device's firmware */
};

/* A TEST_RESULT up to version 3, without the responder's env. */
#define KRDMA_RESULT_V3_LEN	offsetof(struct krdma_msg_result, link_mbit_per_s)

#endif /* _KRDMA_PROTO_H */
