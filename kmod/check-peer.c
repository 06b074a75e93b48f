// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: the check mode's responder. Every iteration of the peer's test
 * is checked where it lands - a SEND in our receive buffer, a WRITE in
 * the slot we exposed, announced by NOTIFY or its immediate - and acked
 * (ITER_ACK); a READ's slot is refilled once the peer RELEASEs it; a
 * PING is READ from the peer's source and written back to its sink; the
 * atomics' final values are checked at TEST_END. peer.c runs the rest.
 */
#include <linux/math64.h>
#include <linux/slab.h>

#include "check.h"

static void krdma_check_peer_ack(struct krdma_session *sess,
				 struct krdma_peer_test *pt, u64 iter, int status)
{
	if (krdma_ctrl_send(sess, KRDMA_MSG_ITER_ACK, pt->test_id, iter, status,
			    NULL, 0))
		krdma_session_close(sess, "cannot send ITER_ACK");
}

/*
 * Iteration @iter's data where it landed; a WRITE of 0 bytes landed
 * nothing, and its slot must still hold the canary of setup.
 */
static int krdma_check_peer_data(struct krdma_session *sess,
				 struct krdma_peer_test *pt, struct krdma_buf *buf,
				 u32 off, u64 iter)
{
	u64 seed = pt->zero_length ?
		   krdma_check_canary(pt->test_id, iter % pt->depth) :
		   krdma_seed(pt->test_id, iter);

	pt->seen++;
	if (krdma_pattern_check(buf, off, pt->size, seed)) {
		pt->validated++;
		return 0;
	}
	pt->errors++;
	krdma_count(sess, KRDMA_CNT_VALIDATION_ERRORS, 1);
	return -EBADMSG;
}

/* Ping: a write-back is done; the last one may let TEST_END proceed. */
static void krdma_check_peer_write_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_slot *slot = container_of(wc->wr_cqe, struct krdma_slot, wcqe);
	struct krdma_session *sess = cq->cq_context;
	struct krdma_peer_test *pt = slot->pt;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		krdma_wc_error(sess, wc, "ping write");
		return;
	}
	if (--pt->writes == 0 && krdma_peer_in(pt, KRDMA_PP_ENDING))
		krdma_peer_on_end(sess, pt);
}

/* Ping, second half: the source has been read; write it back to the sink. */
static void krdma_check_peer_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_slot *slot = container_of(wc->wr_cqe, struct krdma_slot, cqe);
	struct krdma_session *sess = cq->cq_context;
	struct krdma_peer_test *pt = slot->pt;
	u32 s = slot - pt->slots;
	int status, ret;

	krdma_reads_end(sess, 1);
	krdma_buf_to_cpu(slot->buf);
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		krdma_wc_error(sess, wc, "ping read");
		return;
	}
	krdma_peer_progress(pt);
	status = krdma_check_peer_data(sess, pt, slot->buf, KRDMA_MSG_HDR_SIZE,
				       slot->iter);
	krdma_buf_to_device(slot->buf);
	/*
	 * The sink regions follow all the source regions. The write-back is
	 * signaled: the slot's buffer is freed only once it has completed.
	 */
	slot->wcqe.done = krdma_check_peer_write_done;
	ret = krdma_post_rdma(sess, slot->buf,
			      &pt->remote[(pt->depth + s) * pt->remote_per_slot],
			      pt->remote_per_slot, IB_WR_RDMA_WRITE, &slot->wcqe,
			      0, 0, KRDMA_POST_SIGNAL_LAST);
	if (ret) {
		krdma_session_close(sess, "ping: cannot post write: %d", ret);
		return;
	}
	pt->writes++;
	slot->busy = false;
	krdma_check_peer_ack(sess, pt, slot->iter, status);
}

/**
 * krdma_check_peer_setup() - the check engine's peer_setup: the peer's test
 * @sess: the session
 * @pt: the peer's test, its parameters checked
 * @req: its TEST_REQ
 * @body_len: the TEST_REQ's length
 * @ack: our TEST_ACK, whose regions are filled in
 * @ack_regions: set to how many
 *
 * The slots the driver's data lands in or is read from, registered for
 * its op's access (and invalidated at once for a conformance case that
 * asks it); a ping's the sinks its READs land in too. Everything
 * is allocated before anything is posted; on failure pt->posted says
 * whether something was (then only teardown frees @pt).
 *
 * Context: the session's CQ context; it may sleep.
 * Return: 0; -EPROTO for a malformed request, -ENOSPC or -EMSGSIZE for
 * one our session has no room for, -E2BIG, -ENOMEM, or a post's error.
 */
int krdma_check_peer_setup(struct krdma_session *sess,
			   struct krdma_peer_test *pt,
			   const struct krdma_msg_test *req, u32 body_len,
			   struct krdma_msg_test *ack, u32 *ack_regions)
{
	struct krdma_device *kdev = sess->kdev;
	/* A send-invalidate target is never accessed: it is there to be invalidated. */
	int access = pt->send_inv ? IB_ACCESS_REMOTE_WRITE :
		     krdma_op(pt->op)->peer_access |
		     (pt->read_back ? IB_ACCESS_REMOTE_READ : 0);
	u32 nregions = be32_to_cpu(req->nregions);
	u32 need_wrs, s, n = 0;
	int ret;

	if (nregions > (body_len - sizeof(*req)) / sizeof(req->regions[0]))
		return -EPROTO;
	if (pt->op == KRDMA_OP_PING) {
		/* Sources then sinks: two regions lists of depth slots. */
		if (nregions % 2 ||
		    krdma_check_wire_regions(req->regions, nregions / 2, pt->depth,
					     pt->size, KRDMA_MAX_SLOT_REGIONS,
					     &pt->remote_per_slot) ||
		    krdma_check_wire_regions(req->regions + nregions / 2,
					     nregions / 2, pt->depth, pt->size,
					     KRDMA_MAX_SLOT_REGIONS, &s) ||
		    s != pt->remote_per_slot)
			return -EPROTO;
		pt->remote = kmemdup(req->regions, nregions * sizeof(req->regions[0]),
				     GFP_KERNEL);
		if (!pt->remote)
			return -ENOMEM;
	} else if (nregions) {
		return -EPROTO;
	}

	/*
	 * Our send queue must hold a full window of replies (send-invalidate:
	 * a registration fence and a REG_MR of the target with each).
	 */
	need_wrs = pt->depth * (pt->op == KRDMA_OP_PING ?
				2 * pt->remote_per_slot + 1 : pt->send_inv ? 3 : 1) + 2;
	if (need_wrs > sess->sq_depth)
		return -ENOSPC;
	if (krdma_op_uses_recv(pt->op) &&
	    pt->depth + KRDMA_RQ_RESERVE > sess->rq_depth)
		return -ENOSPC;
	if (krdma_op_is_send(pt->op) && pt->size > sess->max_msg_size)
		return -EMSGSIZE;
	if (krdma_op_is_send(pt->op) && !pt->send_inv)
		return 0;	/* the data lands in our receive buffers */

	pt->slots = krdma_failable(kcalloc(pt->depth, sizeof(*pt->slots), GFP_KERNEL));
	if (!pt->slots)
		return -ENOMEM;
	/* Allocate everything first: a failure then leaves nothing posted. */
	for (s = 0; s < pt->depth; s++) {
		struct krdma_slot *slot = &pt->slots[s];
		/* The atomics' target: 8 bytes, or the words they go to in turn. */
		u32 len = pt->send_inv ? KRDMA_SEND_INV_TARGET : pt->size;

		slot->pt = pt;
		slot->buf = krdma_buf_alloc(kdev, KRDMA_MSG_HDR_SIZE + len,
					    "peer_slot", s);
		if (!slot->buf)
			return -ENOMEM;
		if (pt->op == KRDMA_OP_READ)
			krdma_pattern_fill(slot->buf, KRDMA_MSG_HDR_SIZE, len,
					   krdma_seed(pt->test_id, s));
		else if (pt->zero_length)
			krdma_pattern_fill(slot->buf, KRDMA_MSG_HDR_SIZE, len,
					   krdma_check_canary(pt->test_id, s));
		krdma_buf_to_device(slot->buf);
		if (!access)
			continue;
		slot->reg = krdma_region_create(kdev, slot->buf, KRDMA_MSG_HDR_SIZE,
						len, access);
		if (IS_ERR(slot->reg)) {
			ret = PTR_ERR(slot->reg);
			slot->reg = NULL;
			return ret;
		}
		n += slot->reg->nmrs;
		if (n > KRDMA_MAX_WIRE_REGIONS ||
		    slot->reg->nmrs > KRDMA_MAX_SLOT_REGIONS)
			return -E2BIG;
	}
	/* The REG_MRs, test-violate invalidated-rkey's LOCAL_INVs, replies. */
	if (n * (pt->invalidated ? 2 : 1) + pt->depth + 2 > sess->sq_depth)
		return -ENOSPC;

	/* A ping's responder READs the driver's message into its slots. */
	for (s = 0; pt->op == KRDMA_OP_PING && s < pt->depth; s++) {
		ret = krdma_buf_make_sink(sess, pt->slots[s].buf, &pt->reg_cqe);
		pt->posted |= !!pt->slots[s].buf->sink;
		if (ret)
			return ret;
	}
	/* The fence holds nothing of @pt's: a refusal after it frees @pt. */
	ret = access ? krdma_region_post_fence(sess) : 0;
	if (ret)
		return ret;
	for (s = 0, n = 0; access && s < pt->depth; s++) {
		struct krdma_region *reg = pt->slots[s].reg;

		ret = krdma_fault_peer_reg(pt->test_id, s) ? -EIO :
		      krdma_region_post_reg(sess, reg, &pt->reg_cqe, access);
		pt->posted |= reg->registered;
		if (ret)
			return ret;
		krdma_count(sess, KRDMA_CNT_REG_MR_WRS, reg->nmrs);
		krdma_region_to_wire(reg, &ack->regions[n]);
		n += reg->nmrs;
		/*
		 * A conformance case's: the keys we send are invalid by the
		 * time the peer has them - our TEST_ACK goes behind the
		 * LOCAL_INVs on the same send queue.
		 */
		if (pt->invalidated) {
			ret = krdma_region_post_inv(sess, reg, &pt->reg_cqe);
			if (ret)
				return ret;
			krdma_count(sess, KRDMA_CNT_INV_WRS, reg->nmrs);
		}
	}
	*ack_regions = n;
	return 0;
}

/*
 * Atomics: the final value of every word of every slot's target must be
 * what the driver's sequence produced (krdma_check_atomic_value()).
 * @iters comes from the peer: computed in closed form, never looped over
 * (the words are ours: at most 512 a slot).
 */
static void krdma_check_peer_atomics(struct krdma_peer_test *pt, u64 iters)
{
	u32 nwords = pt->size / sizeof(u64);
	u32 s, w;

	for (s = 0; s < pt->depth; s++) {
		struct krdma_slot *slot = &pt->slots[s];
		/* Slot s saw iterations s, s + depth, ... below iters: k of them. */
		u64 k = iters > s ? div_u64(iters - s - 1, pt->depth) + 1 : 0;
		bool right = true;

		krdma_buf_to_cpu(slot->buf);
		for (w = 0; w < nwords; w++) {
			/* Uses w, w + nwords, ... of the k went to word w. */
			u64 n = k > w ? div_u64(k - w - 1, nwords) + 1 : 0;
			u64 val;

			krdma_buf_copy_to(&val, slot->buf,
					  KRDMA_MSG_HDR_SIZE + w * sizeof(u64),
					  sizeof(val));
			right &= val == krdma_check_atomic_value(pt->op, pt->test_id,
								 s, pt->depth,
								 nwords, w, n);
		}
		pt->seen += k;
		if (right)
			pt->validated++;
		else
			pt->errors++;
	}
}

/*
 * send-invalidate: the SEND of @iter was a SEND_WITH_INV of its slot's
 * key, which our device invalidated as it came, and says so in the
 * receive's completion (IBTA: before the completion is made). The target
 * is registered again, under the key's next value, ahead of our ack:
 * the driver's next SEND to the slot carries that key (proto.h).
 *
 * Return: 0; -ENOKEY for a completion that does not say our key was
 * invalidated - the iteration fails, the target stays as it was;
 * -ENOTCONN if the registration could not be posted (the session is
 * closed).
 */
static int krdma_check_peer_invalidated(struct krdma_session *sess,
					struct krdma_peer_test *pt,
					const struct ib_wc *wc, u64 iter)
{
	struct krdma_region *reg = pt->slots[iter % pt->depth].reg;
	int ret;

	if (!(wc->wc_flags & IB_WC_WITH_INVALIDATE) ||
	    wc->ex.invalidate_rkey != reg->mr[0]->rkey)
		return -ENOKEY;
	reg->registered = false;
	/*
	 * Our previous ITER_ACK may still be unacknowledged: rxe would run
	 * the REG_MR again if it resent that (krdma_region_post_fence()).
	 */
	ret = krdma_region_post_fence(sess);
	if (!ret)
		ret = krdma_region_post_reg(sess, reg, &pt->reg_cqe,
					    IB_ACCESS_REMOTE_WRITE);
	if (ret) {
		krdma_session_close(sess, "send-invalidate: cannot register: %d",
				    ret);
		return -ENOTCONN;
	}
	krdma_count(sess, KRDMA_CNT_REG_MR_WRS, 1);
	return 0;
}

/* In-order arrival: iteration numbers must follow each other. */
static bool krdma_check_peer_next(struct krdma_peer_test *pt, u64 iter)
{
	if (iter != pt->next_iter)
		return false;
	pt->next_iter++;
	return true;
}

/**
 * krdma_check_peer_on_msg() - the check engine's peer_on_msg
 * @sess: the session
 * @pt: the peer's test
 * @rx: the message's receive, reposted here
 * @wc: its completion
 * @hdr: its header, or NULL for a write_imm
 *
 * An iteration's message: the data checked where it landed, then acked.
 * A PING's data is READ first, and acked once checked.
 *
 * Context: the session's CQ context.
 */
void krdma_check_peer_on_msg(struct krdma_session *sess,
			     struct krdma_peer_test *pt, struct krdma_recv *rx,
			     struct ib_wc *wc, const struct krdma_msg_hdr *hdr)
{
	u16 type = hdr ? be16_to_cpu(hdr->type) : KRDMA_MSG_DATA;
	u64 iter = hdr ? be64_to_cpu(hdr->iter) : 0;
	struct krdma_slot *slot;
	int status;

	/* RDMA WRITE with immediate: no header, the iteration is implied. */
	if (!hdr) {
		if (pt->op != KRDMA_OP_WRITE_IMM ||
		    be32_to_cpu(wc->ex.imm_data) != krdma_check_imm(pt->next_iter))
			goto proto;
		iter = pt->next_iter;
		type = KRDMA_MSG_NOTIFY;
	}

	switch (type) {
	case KRDMA_MSG_DATA:
		if (!krdma_op_is_send(pt->op) ||
		    be32_to_cpu(hdr->len) != pt->size ||
		    !krdma_check_peer_next(pt, iter))
			goto proto;
		if (pt->op == KRDMA_OP_SEND_IMM &&
		    (!(wc->wc_flags & IB_WC_WITH_IMM) ||
		     be32_to_cpu(wc->ex.imm_data) != (u32)iter))
			goto proto;
		status = krdma_check_peer_data(sess, pt, rx->buf, KRDMA_MSG_HDR_SIZE,
					       iter);
		if (pt->send_inv) {
			int inv = krdma_check_peer_invalidated(sess, pt, wc, iter);

			if (inv == -ENOTCONN)
				return;
			status = status ?: inv;
		}
		break;
	case KRDMA_MSG_NOTIFY:
		if ((pt->op != KRDMA_OP_WRITE && pt->op != KRDMA_OP_WRITE_IMM) ||
		    !krdma_check_peer_next(pt, iter))
			goto proto;
		slot = &pt->slots[iter % pt->depth];
		krdma_buf_to_cpu(slot->buf);
		status = krdma_check_peer_data(sess, pt, slot->buf, KRDMA_MSG_HDR_SIZE,
					       iter);
		krdma_buf_to_device(slot->buf);
		break;
	case KRDMA_MSG_RELEASE:
		if (pt->op != KRDMA_OP_READ || !krdma_check_peer_next(pt, iter))
			goto proto;
		pt->seen++;
		slot = &pt->slots[iter % pt->depth];
		krdma_buf_to_cpu(slot->buf);
		krdma_pattern_fill(slot->buf, KRDMA_MSG_HDR_SIZE, pt->size,
				   krdma_seed(pt->test_id, iter + pt->depth));
		krdma_buf_to_device(slot->buf);
		status = 0;
		break;
	case KRDMA_MSG_PING:
		if (pt->op != KRDMA_OP_PING || !krdma_check_peer_next(pt, iter))
			goto proto;
		slot = &pt->slots[iter % pt->depth];
		if (slot->busy)
			goto proto;
		slot->busy = true;
		slot->iter = iter;
		slot->cqe.done = krdma_check_peer_read_done;
		/* The slot stayed with the device since setup or the last write. */
		if (krdma_recv_repost(rx) ||
		    krdma_post_rdma(sess, slot->buf,
				    &pt->remote[(iter % pt->depth) * pt->remote_per_slot],
				    pt->remote_per_slot, IB_WR_RDMA_READ,
				    &slot->cqe, 0, 0, KRDMA_POST_SIGNAL_LAST))
			krdma_session_close(sess, "ping: cannot post read");
		return;
	default:
		goto proto;
	}
	/* Repost before acking: the ack lets the driver send again. */
	if (krdma_recv_repost(rx)) {
		krdma_session_close(sess, "cannot repost receive");
		return;
	}
	krdma_check_peer_ack(sess, pt, iter, status);
	return;
proto:
	krdma_count(sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
	krdma_session_close(sess, "protocol error: unexpected message type %u",
			    type);
}

/**
 * krdma_check_peer_may_end() - the check engine's peer_may_end
 * @pt: the peer's test
 *
 * A PING's READ still in flight: TEST_END cannot have come yet.
 *
 * Return: false while one is.
 */
bool krdma_check_peer_may_end(const struct krdma_peer_test *pt)
{
	u32 s;

	for (s = 0; pt->op == KRDMA_OP_PING && s < pt->depth; s++)
		if (pt->slots[s].busy)
			return false;
	return true;
}

/**
 * krdma_check_peer_busy() - the check engine's peer_busy
 * @pt: the peer's test
 *
 * Ping write-backs in flight: the last one ends the test.
 *
 * Return: whether there are any.
 */
bool krdma_check_peer_busy(const struct krdma_peer_test *pt)
{
	return pt->writes;
}

/**
 * krdma_check_peer_end() - the check engine's peer_end
 * @pt: the peer's test, ending
 *
 * The atomics are checked only now: their final values, against what
 * the driver's TEST_END count of them makes.
 */
void krdma_check_peer_end(struct krdma_peer_test *pt)
{
	if (krdma_op_is_atomic(pt->op))
		krdma_check_peer_atomics(pt, pt->end_iters);
}

/**
 * krdma_check_peer_bytes() - the check engine's peer_bytes
 * @pt: the peer's test
 *
 * Sends land in the receive buffers (a send-invalidate's targets are
 * slots of KRDMA_SEND_INV_TARGET bytes); a slot is header and data.
 *
 * Return: what the test's slots pin, in bytes.
 */
u64 krdma_check_peer_bytes(const struct krdma_peer_test *pt)
{
	if (pt->send_inv)
		return pt->depth *
		       krdma_buf_bytes(KRDMA_MSG_HDR_SIZE + KRDMA_SEND_INV_TARGET);
	return krdma_op_is_send(pt->op) ? 0 : pt->depth *
		krdma_buf_bytes(KRDMA_MSG_HDR_SIZE + pt->size);
}

/**
 * krdma_check_peer_watched() - the check engine's peer_watched
 * @pt: the peer's test
 *
 * We see every iteration but the atomics'.
 *
 * Return: whether the stall timer watches it.
 */
bool krdma_check_peer_watched(const struct krdma_peer_test *pt)
{
	return !krdma_op_is_atomic(pt->op);
}
