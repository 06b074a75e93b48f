// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: posting work requests. Every WR the module posts, on a session's
 * QP or a data channel's, goes through krdma_gated_post(), which teardown
 * closes before it drains the QP.
 */
#include "krdma.h"

/*
 * The one place the module posts work requests, on any of its QPs: under
 * the QP's gate @lock (sess->lock, or a channel's ch->lock), and only
 * while *@dead is false. Teardown sets it under the same lock before it
 * drains the QP, so every WR posted at all is ahead of the drain's marker
 * and has completed when ib_drain_qp() returns; a WR posted behind the
 * marker could complete after it, into freed test state. One of @wr and
 * @rwr is set.
 */
int krdma_gated_post(spinlock_t *lock, const bool *dead, struct ib_qp *qp,
		     const struct ib_send_wr *wr, const struct ib_recv_wr *rwr)
{
	const struct ib_send_wr *bad;
	const struct ib_recv_wr *rbad;

	lockdep_assert_held(lock);
	if (*dead)
		return -ENOTCONN;
	return wr ? ib_post_send(qp, wr, &bad) : ib_post_recv(qp, rwr, &rbad);
}

/* Posts on the session's own QP: refused with -ENOTCONN once tearing down. */
int krdma_post_send(struct krdma_session *sess, const struct ib_send_wr *wr)
{
	int ret;

	spin_lock_bh(&sess->lock);
	ret = krdma_gated_post(&sess->lock, &sess->qp_dead, sess->qp, wr, NULL);
	spin_unlock_bh(&sess->lock);
	return ret;
}

/*
 * Posts the RDMA READs or WRITEs moving a slot's payload to or from the
 * peer's regions, one WR per region; only the last one may be signaled,
 * and only the last one of a write_imm carries the immediate.
 */
int krdma_post_rdma(struct krdma_session *sess, struct krdma_buf *buf,
		    const struct krdma_wire_region *remote, u32 nremote,
		    enum ib_wr_opcode opcode, struct ib_cqe *cqe,
		    u32 imm, bool signal_last)
{
	struct ib_sge sge[KRDMA_MAX_SGE];
	u32 i, off = KRDMA_MSG_HDR_SIZE;
	int n, ret;

	for (i = 0; i < nremote; i++) {
		struct ib_rdma_wr wr = {};
		u32 len = be32_to_cpu(remote[i].len);
		bool last = i + 1 == nremote;

		if (opcode == IB_WR_RDMA_READ)
			n = krdma_buf_read_sges(buf, off, len,
						sess->kdev->pd->local_dma_lkey,
						sge, sess->max_read_sge);
		else
			n = krdma_buf_sges(buf, off, len,
					   sess->kdev->pd->local_dma_lkey, sge,
					   sess->max_sge);
		if (n < 0)
			return n;
		wr.wr.wr_cqe = cqe;
		wr.wr.sg_list = sge;
		wr.wr.num_sge = n;
		wr.wr.opcode = opcode;
		if (opcode == IB_WR_RDMA_WRITE_WITH_IMM) {
			if (last)
				wr.wr.ex.imm_data = cpu_to_be32(imm);
			else
				wr.wr.opcode = IB_WR_RDMA_WRITE;
		}
		wr.wr.send_flags = last && signal_last ? IB_SEND_SIGNALED : 0;
		wr.remote_addr = be64_to_cpu(remote[i].addr);
		wr.rkey = be32_to_cpu(remote[i].rkey);
		if (opcode == IB_WR_RDMA_WRITE && krdma_fault_misaddress())
			wr.remote_addr += len;
		ret = krdma_post_send(sess, &wr.wr);
		if (ret)
			return ret;
		/* Answered by the signaled completion of the last one. */
		if (opcode == IB_WR_RDMA_READ && last)
			krdma_reads_begin(sess, 1);
		krdma_count(sess, opcode == IB_WR_RDMA_READ ? KRDMA_CNT_READ_WRS :
			    KRDMA_CNT_WRITE_WRS, 1);
		krdma_count(sess, opcode == IB_WR_RDMA_READ ? KRDMA_CNT_BYTES_RX :
			    KRDMA_CNT_BYTES_TX, len);
		off += len;
	}
	return 0;
}
