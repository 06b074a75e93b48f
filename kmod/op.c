// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: the op table - what each op of a test means, read by the
 * driving side and the responder alike, so that they cannot disagree on
 * it; and the one check of what a device cannot run, which both make.
 */
#include <net/netlink.h>

#include "krdma.h"

const struct krdma_op_info krdma_op_table[KRDMA_OP_MAX + 1] = {
	/* The driver sends a PING; the responder READs, then writes back. */
	[KRDMA_OP_PING] = {
		.name		= "ping",
		.opcode		= IB_WR_RDMA_WRITE,
		.lead_opcode	= IB_WR_RDMA_READ,
		.wr_counter	= KRDMA_CNT_WRITE_WRS,
		.byte_counter	= KRDMA_CNT_BYTES_TX,
		.rd_credits	= true,
	},
	[KRDMA_OP_SEND] = {
		.name		= "send",
		.opcode		= IB_WR_SEND,
		.lead_opcode	= IB_WR_SEND,
		.wr_counter	= KRDMA_CNT_SEND_WRS,
		.byte_counter	= KRDMA_CNT_BYTES_TX,
		.peer_recvs	= true,
		.send		= true,
	},
	[KRDMA_OP_SEND_IMM] = {
		.name		= "send_imm",
		.opcode		= IB_WR_SEND_WITH_IMM,
		.lead_opcode	= IB_WR_SEND_WITH_IMM,
		.wr_counter	= KRDMA_CNT_SEND_WRS,
		.byte_counter	= KRDMA_CNT_BYTES_TX,
		.peer_recvs	= true,
		.send		= true,
		.imm		= true,
	},
	[KRDMA_OP_WRITE] = {
		.name		= "write",
		.opcode		= IB_WR_RDMA_WRITE,
		.lead_opcode	= IB_WR_RDMA_WRITE,
		.peer_access	= IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
		.wr_counter	= KRDMA_CNT_WRITE_WRS,
		.byte_counter	= KRDMA_CNT_BYTES_TX,
	},
	/* The immediate is what consumes the peer's receive. */
	[KRDMA_OP_WRITE_IMM] = {
		.name		= "write_imm",
		.opcode		= IB_WR_RDMA_WRITE_WITH_IMM,
		.lead_opcode	= IB_WR_RDMA_WRITE,
		.peer_access	= IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
		.wr_counter	= KRDMA_CNT_WRITE_WRS,
		.byte_counter	= KRDMA_CNT_BYTES_TX,
		.peer_recvs	= true,
		.imm		= true,
	},
	[KRDMA_OP_READ] = {
		.name		= "read",
		.opcode		= IB_WR_RDMA_READ,
		.lead_opcode	= IB_WR_RDMA_READ,
		.peer_access	= IB_ACCESS_REMOTE_READ,
		.wr_counter	= KRDMA_CNT_READ_WRS,
		.byte_counter	= KRDMA_CNT_BYTES_RX,
		.one_sided	= true,
		.rd_credits	= true,
	},
	[KRDMA_OP_ATOMIC_FADD] = {
		.name		= "atomic_fadd",
		.opcode		= IB_WR_ATOMIC_FETCH_AND_ADD,
		.lead_opcode	= IB_WR_ATOMIC_FETCH_AND_ADD,
		.peer_access	= IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_ATOMIC,
		.wr_counter	= KRDMA_CNT_ATOMIC_WRS,
		.byte_counter	= KRDMA_CNT_MAX,
		.one_sided	= true,
		.rd_credits	= true,
		.atomic		= true,
	},
	[KRDMA_OP_ATOMIC_CSWAP] = {
		.name		= "atomic_cswap",
		.opcode		= IB_WR_ATOMIC_CMP_AND_SWP,
		.lead_opcode	= IB_WR_ATOMIC_CMP_AND_SWP,
		.peer_access	= IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_ATOMIC,
		.wr_counter	= KRDMA_CNT_ATOMIC_WRS,
		.byte_counter	= KRDMA_CNT_MAX,
		.one_sided	= true,
		.rd_credits	= true,
		.atomic		= true,
	},
};

/**
 * krdma_op_supported() - can @kdev run @op at all?
 * @kdev: the device of the session the test runs on
 * @op: the test's op (enum krdma_op)
 * @extack: where the reason goes, or NULL (the responder, which answers
 *	with the error alone)
 *
 * The driving side asks before it sends TEST_REQ, the responder before
 * it sets the peer's test up: one answer, whichever side's device lacks
 * the op. What the session negotiated (READ/atomic credits, max_msg)
 * and what a mode accepts are checked apart, by each side.
 *
 * Return: 0, or -EOPNOTSUPP.
 */
int krdma_op_supported(const struct krdma_device *kdev, u8 op,
		       struct netlink_ext_ack *extack)
{
	const struct krdma_op_info *info = krdma_op(op);

	if (info->atomic && kdev->iwarp) {
		NL_SET_ERR_MSG(extack, "iWARP has no RDMA atomics");
		return -EOPNOTSUPP;
	}
	if (info->imm && kdev->iwarp) {
		NL_SET_ERR_MSG(extack, "iWARP has no immediate data (send_imm, write_imm)");
		return -EOPNOTSUPP;
	}
	if (info->atomic && kdev->caps.atomic_cap == IB_ATOMIC_NONE) {
		NL_SET_ERR_MSG(extack, "the RDMA device does not support atomics");
		return -EOPNOTSUPP;
	}
	return 0;
}
