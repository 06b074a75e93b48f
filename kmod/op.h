/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * krdma: what an op of a test (enum krdma_op) means, in one table
 * (op.c): its work requests, the access the responder's target grants,
 * what it takes of the peer and of the session, the counters it bumps,
 * and whether a device can run it. Below the engines, test.c and peer.c,
 * which all read it; it calls none of them.
 */
#ifndef _KRDMA_OP_H
#define _KRDMA_OP_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <uapi/linux/krdma.h>

struct krdma_device;
struct netlink_ext_ack;

/**
 * struct krdma_op_info - what one op of enum krdma_op means
 * @name: as the CLI and the spec spell it
 * @opcode: the WR that ends one of its messages (a one-WR message's only
 *	one)
 * @lead_opcode: the WRs of a message before its last: a write_imm spread
 *	over several WRs carries its immediate on the last one only, the
 *	others are plain WRITEs; a ping's responder READs before it writes
 *	back
 * @peer_access: what the responder's target grants; 0: it exposes none
 *	(a send lands in its receives, a ping in the driver's regions)
 * @wr_counter: the enum krdma_counter of @opcode's WRs
 * @byte_counter: the enum krdma_counter of the bytes it moves, or
 *	KRDMA_CNT_MAX: none (an atomic's 8 bytes are not counted)
 * @peer_recvs: every message consumes a receive the peer posted (the bw
 *	and lat pipeline then paces it by the peer's credits)
 * @send: a two-sided send, whose message starts with our header
 * @one_sided: a round trip by itself: the peer's device answers into
 *	our buffer, its CPU takes no part (a WRITE answers nothing)
 * @imm: carries immediate data
 * @rd_credits: needs the session's READ/atomic credits (initiator depth)
 * @atomic: an 8-byte atomic on the responder's target
 */
struct krdma_op_info {
	const char		*name;
	enum ib_wr_opcode	opcode;
	enum ib_wr_opcode	lead_opcode;
	int			peer_access;
	u8			wr_counter;
	u8			byte_counter;
	bool			peer_recvs;
	bool			send;
	bool			one_sided;
	bool			imm;
	bool			rd_credits;
	bool			atomic;
};

extern const struct krdma_op_info krdma_op_table[KRDMA_OP_MAX + 1];

/*
 * Any byte may be asked about, from the wire too: one out of range reads
 * as the empty entry 0, an op that is nothing and needs nothing.
 */
static inline const struct krdma_op_info *krdma_op(u8 op)
{
	return &krdma_op_table[op <= KRDMA_OP_MAX ? op : 0];
}

static inline bool krdma_op_is_atomic(u8 op)
{
	return krdma_op(op)->atomic;
}

static inline bool krdma_op_has_imm(u8 op)
{
	return krdma_op(op)->imm;
}

static inline bool krdma_op_is_send(u8 op)
{
	return krdma_op(op)->send;
}

static inline bool krdma_op_is_one_sided(u8 op)
{
	return krdma_op(op)->one_sided;
}

static inline bool krdma_op_peer_recvs(u8 op)
{
	return krdma_op(op)->peer_recvs;
}

/* The bytes one message of @op moves: an atomic's 8, else @size. */
static inline u32 krdma_op_data_len(u8 op, u32 size)
{
	return krdma_op_is_atomic(op) ? sizeof(u64) : size;
}

int krdma_op_supported(const struct krdma_device *kdev, u8 op,
		       struct netlink_ext_ack *extack);

#endif /* _KRDMA_OP_H */
