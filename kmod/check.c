// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: the check mode's driver. Iteration i uses slot i % depth and
 * carries the pattern seeded by (test id, i); whoever receives the data
 * checks it: the responder (check-peer.c) what we SEND or WRITE and acks
 * each iteration, we what we READ, what a PING brought back and what an
 * atomic returned. A slot is reused once its WR completed and its ack
 * came. Protocol: Documentation/protocol.rst.
 */
#include <linux/slab.h>

#include "check.h"

static u32 krdma_slot_len(struct krdma_test_params *p)
{
	return KRDMA_MSG_HDR_SIZE + p->size;
}

static bool krdma_check_more(struct krdma_test *test)
{
	if (test->stop || test->status)
		return false;
	if (test->p.count)
		return test->issued < test->p.count;
	return ktime_before(ktime_get(), test->deadline);
}

/**
 * krdma_post_rdma() - moves a slot's payload to or from the peer's regions
 * @sess: the session, whose conn 0 they go on
 * @buf: the slot's buffer, the device's; its payload follows our header
 * @remote: the peer's regions, as many as the payload needs
 * @nremote: how many
 * @opcode: RDMA READ, WRITE or WRITE with immediate
 * @cqe: every WR's completion
 * @imm: a write_imm's immediate
 * @sges: SGEs each WR carries, its memory split to fill them
 *	(krdma_check_split_sges()); 0: as many as its memory takes
 * @flags: KRDMA_POST_SIGNAL_LAST, KRDMA_POST_FENCE
 *
 * Posts the RDMA READs or WRITEs moving a slot's payload to or from the
 * peer's regions, a WR per region - or more, where a region spans more
 * of our chunks than a WR takes SGEs (cxgb4: 4); only the last one may
 * be signaled, and only the last one of a write_imm carries the
 * immediate. A fence holds every one of them until the READs and
 * atomics posted before have completed.
 *
 * Return: 0, or the error of the SGEs or of a post (WRs before it went).
 */
int krdma_post_rdma(struct krdma_session *sess, struct krdma_buf *buf,
		    const struct krdma_wire_region *remote, u32 nremote,
		    enum ib_wr_opcode opcode, struct ib_cqe *cqe,
		    u32 imm, u32 sges, unsigned int flags)
{
	struct ib_sge sge[KRDMA_MAX_SGE];
	u32 i, off = KRDMA_MSG_HDR_SIZE;
	bool read = opcode == IB_WR_RDMA_READ;
	int n, ret;

	for (i = 0; i < nremote; i++) {
		u32 len = be32_to_cpu(remote[i].len), done = 0, taken;

		do {
			struct ib_rdma_wr wr = {};
			bool last;

			n = krdma_buf_rdma_sges_part(sess, buf, read, off + done,
						     len - done, sge, &taken);
			if (n < 0)
				return n;
			if (sges)
				n = krdma_check_split_sges(sge, n, sges);
			last = i + 1 == nremote && done + taken == len;
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
			wr.wr.send_flags = last && (flags & KRDMA_POST_SIGNAL_LAST) ?
					   IB_SEND_SIGNALED : 0;
			if (flags & KRDMA_POST_FENCE)
				wr.wr.send_flags |= IB_SEND_FENCE;
			wr.remote_addr = be64_to_cpu(remote[i].addr) + done;
			wr.rkey = be32_to_cpu(remote[i].rkey);
			if (opcode == IB_WR_RDMA_WRITE && krdma_fault_misaddress())
				wr.remote_addr += len;
			ret = krdma_post_send(sess, &wr.wr);
			if (ret)
				return ret;
			/* Answered by the signaled completion of the last one. */
			if (read && last)
				krdma_reads_begin(sess, 1);
			krdma_count(sess, read ? KRDMA_CNT_READ_WRS :
				    KRDMA_CNT_WRITE_WRS, 1);
			krdma_count(sess, read ? KRDMA_CNT_BYTES_RX :
				    KRDMA_CNT_BYTES_TX, taken);
			done += taken;
		} while (done < len);
		off += len;
	}
	return 0;
}

static void krdma_check_issue(struct krdma_test *test, struct krdma_slot *slot);

/**
 * krdma_check_atomic_value() - what a word of an atomics test's target holds
 * @op: atomic_fadd or atomic_cswap
 * @test_id: the test's id, which seeds cswap's values
 * @s: the slot whose target it is
 * @depth: the test's
 * @nwords: the target's 8-byte words (its size / 8)
 * @w: the word
 * @n: the iterations that went to the word
 *
 * Slot @s's j-th use (iteration s + j * depth) goes to word j % @nwords,
 * so the word's m-th one is j = @w + m * @nwords: fetch-and-add adds the
 * iteration's number plus one, compare-and-swap leaves its seed. The
 * driver's expectation before an iteration and the responder's check of
 * the final values are both this, in closed form: @n may come from the
 * peer, and is never looped over.
 *
 * Return: the word's value, modulo 2^64.
 */
u64 krdma_check_atomic_value(u8 op, u32 test_id, u32 s, u32 depth,
			     u32 nwords, u32 w, u64 n)
{
	u64 tri;

	if (!n)
		return 0;
	if (op == KRDMA_OP_ATOMIC_CSWAP)
		return krdma_seed(test_id, s + (w + (n - 1) * nwords) * depth);
	/* The sum over m < n of (s + 1 + depth * (w + m * nwords)). */
	tri = n & 1 ? n * ((n - 1) / 2) : (n / 2) * (n - 1);
	return n * (s + 1) + (u64)depth * (n * w + nwords * tri);
}

/*
 * Our slots' WRs are READs: a read test's, but for a conformance case
 * that WRITEs into its read-only region instead (test-violate no-access).
 */
static bool krdma_check_reads(const struct krdma_test *test)
{
	return test->p.op == KRDMA_OP_READ &&
	       test->p.violate != KRDMA_VIOLATE_NO_ACCESS;
}

/*
 * A conformance case's WR completed: the device carried out what breaks
 * a rule. Conclusive where the completion is the responder's word - an
 * RC ACK, a READ's response - and the case's session is
 * ended with it. An iWARP WRITE or SEND completes once it is sent: the
 * peer's refusal is a TERMINATE, which ends the connection (RFC 5040),
 * and a peer that let it through leaves the test to the stall watchdog.
 * Either way the iteration's data is nothing to check.
 */
static void krdma_check_violation_done(struct krdma_test *test)
{
	if (test->sess->kdev->iwarp && !krdma_check_reads(test))
		return;
	krdma_test_fail(test, -EREMOTEIO,
			"iteration 0: the device carried out a WR that breaks the rule");
	krdma_session_close(test->sess, "the conformance case's WR was carried out");
}

/**
 * krdma_check_violated() - the peer's region as a conformance case aims
 * @test: the test, with test-violate (a test of one iteration)
 * @remote: the peer's first region of the slot
 * @bad: where the changed copy goes
 *
 * out-of-bounds: the first byte past the region's end; stale-rkey: the
 * key the MR had before the peer's REG_MR gave it a new one
 * (ib_inc_rkey() moves the key's low byte by one); unaligned: 4 bytes
 * into the atomics' target. Anything else aims as the test would
 * (invalidated-rkey: the peer invalidated the key it sent).
 *
 * Return: @bad, or @remote.
 */
static const struct krdma_wire_region *
krdma_check_violated(const struct krdma_test *test,
		     const struct krdma_wire_region *remote,
		     struct krdma_wire_region *bad)
{
	u32 rkey = be32_to_cpu(remote->rkey);

	*bad = *remote;
	switch (test->p.violate) {
	case KRDMA_VIOLATE_OUT_OF_BOUNDS:
		bad->addr = cpu_to_be64(be64_to_cpu(remote->addr) +
					be32_to_cpu(remote->len));
		return bad;
	case KRDMA_VIOLATE_STALE_RKEY:
		bad->rkey = cpu_to_be32((rkey & ~0xffU) | ((rkey - 1) & 0xff));
		return bad;
	case KRDMA_VIOLATE_UNALIGNED:
		/* Half a word in: the target is two words or more. */
		bad->addr = cpu_to_be64(be64_to_cpu(remote->addr) + sizeof(u32));
		return bad;
	default:
		return remote;
	}
}

/*
 * A slot's RDMA WRITEs or READs; a conformance case's go to the one
 * region it breaks a rule of (the iteration fails at the peer's device,
 * whatever else the slot spans). test-zero-length's are one WR of no
 * SGE, a region of 0 bytes at the target's start: the verbs let a 0-byte
 * RDMA WRITE or READ (and WRITE_WITH_IMM, whose immediate still arrives)
 * carry any key, and it must move nothing.
 */
static int krdma_check_post_rdma(struct krdma_test *test, struct krdma_slot *slot,
				 const struct krdma_wire_region *remote,
				 enum ib_wr_opcode opcode, u32 imm)
{
	struct krdma_wire_region bad;
	u32 nremote = test->remote_per_slot;

	if (test->p.zero_length) {
		bad = *remote;
		bad.len = 0;
		remote = &bad;
		nremote = 1;
	} else if (test->p.violate) {
		remote = krdma_check_violated(test, remote, &bad);
		nremote = 1;
		if (test->p.violate == KRDMA_VIOLATE_NO_ACCESS)
			opcode = IB_WR_RDMA_WRITE;
	}
	return krdma_post_rdma(test->sess, slot->buf, remote, nremote, opcode,
			       &slot->cqe, imm, test->p.sges,
			       KRDMA_POST_SIGNAL_LAST);
}

/*
 * Is this the atomics variant's iteration (test-atomic-variant)? A slot's
 * first, third, ... one; the one after it brings the target back to the
 * test's sequence, and a count a multiple of twice the depth ends every
 * slot on such a one, so the peer's check of the final values holds.
 */
static bool krdma_check_variant_turn(const struct krdma_test *test,
				     const struct krdma_slot *slot)
{
	return test->p.atomic_variant &&
	       !(div_u64(slot->iter, test->p.depth) & 1);
}

/*
 * What iteration slot->iter adds: iter + 1, the sequence the peer checks
 * the final values against; fadd-wrap takes 2^32 off the variant's
 * iteration - the target, 0 or a small sum, goes below 0: to just under
 * 2^64 - and puts it back on the next one's, which carries the target
 * past 2^64 back to the sum.
 */
static u64 krdma_check_fadd_addend(const struct krdma_test *test,
				   const struct krdma_slot *slot)
{
	u64 add = slot->iter + 1;

	if (test->p.atomic_variant != KRDMA_ATOMIC_FADD_WRAP)
		return add;
	return krdma_check_variant_turn(test, slot) ? add - BIT_ULL(32) :
						      add + BIT_ULL(32);
}

static void krdma_slot_complete(struct krdma_test *test, struct krdma_slot *slot)
{
	slot->busy = false;
	WRITE_ONCE(test->completed, test->completed + 1);
	WRITE_ONCE(test->bytes, test->bytes + (test->p.zero_length ? 0 :
		   krdma_op_data_len(test->p.op, test->p.size)));
	if (krdma_check_more(test)) {
		krdma_check_issue(test, slot);
		return;
	}
	if (krdma_test_in(test, KRDMA_TP_RUNNING)) {
		u32 s;

		for (s = 0; s < test->p.depth; s++)
			if (test->slots[s].busy)
				return;
		krdma_test_send_end(test);
	}
}

/*
 * Checks what landed in our buffer for iteration slot->iter: a READ of
 * 0 bytes nothing, the canary it was filled with still there.
 */
static void krdma_slot_check(struct krdma_test *test, struct krdma_slot *slot,
			     struct krdma_buf *buf)
{
	u64 seed = test->p.zero_length ? krdma_check_canary(test->id, slot->iter) :
		   krdma_seed(test->id, slot->iter);

	if (krdma_pattern_check(buf, KRDMA_MSG_HDR_SIZE, test->p.size, seed)) {
		WRITE_ONCE(test->validated, test->validated + 1);
		return;
	}
	krdma_count(test->sess, KRDMA_CNT_VALIDATION_ERRORS, 1);
	krdma_test_fail(test, -EBADMSG, "data mismatch at iteration %llu",
			slot->iter);
}

static void krdma_slot_step(struct krdma_test *test, struct krdma_slot *slot,
			    u8 done)
{
	slot->pending &= ~done;
	if (!slot->pending)
		krdma_slot_complete(test, slot);
}

/*
 * A WR of the slot's iteration failed: the test fails with it, but for a
 * flush, which is teardown's doing and whose reason is the session's.
 */
static void krdma_check_wc_failed(struct krdma_test *test,
				  struct krdma_slot *slot, struct ib_wc *wc,
				  const char *what)
{
	if (wc->status != IB_WC_WR_FLUSH_ERR) {
		WRITE_ONCE(test->wc_status, wc->status);
		krdma_test_fail(test, -EIO, "iteration %llu: %s%s", slot->iter,
				what, ib_wc_status_msg(wc->status));
	}
	krdma_wc_error(test->sess, wc, "test");
}

static void krdma_check_slot_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_slot *slot = container_of(wc->wr_cqe, struct krdma_slot, cqe);
	struct krdma_session *sess = cq->cq_context;
	struct krdma_test *test = slot->test;
	u64 orig;

	if (krdma_check_reads(test))
		krdma_reads_end(sess, 1);
	/* Injected: the hand-over syncs nothing (fault bit 8, mem.c). */
	if (krdma_fault_slot_sync())
		krdma_buf_to_cpu_range(slot->buf, 0, 0);
	else
		krdma_buf_to_cpu(slot->buf);
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		krdma_check_wc_failed(test, slot, wc, "");
		return;
	}
	if (unlikely(test->p.violate)) {
		krdma_check_violation_done(test);
		return;
	}
	if (krdma_op_is_one_sided(test->p.op))
		krdma_peer_alive(sess);
	else
		krdma_peer_acked(sess);

	switch (test->p.op) {
	case KRDMA_OP_READ:
		krdma_slot_check(test, slot, slot->buf);
		if (krdma_ctrl_send(sess, KRDMA_MSG_RELEASE, test->id, slot->iter,
				    0, NULL, 0))
			krdma_session_close(sess, "cannot send RELEASE");
		break;
	case KRDMA_OP_ATOMIC_FADD:
	case KRDMA_OP_ATOMIC_CSWAP:
		krdma_buf_copy_to(&orig, slot->buf, KRDMA_MSG_HDR_SIZE, sizeof(orig));
		if (orig == slot->expect) {
			WRITE_ONCE(test->validated, test->validated + 1);
		} else {
			krdma_count(sess, KRDMA_CNT_VALIDATION_ERRORS, 1);
			krdma_test_fail(test, -EBADMSG,
					"atomic at iteration %llu returned %llu, expected %llu",
					slot->iter, orig, slot->expect);
		}
		/* A variant's next; the others' is computed at the issue. */
		if (!test->p.atomic_variant)
			break;
		if (test->p.op == KRDMA_OP_ATOMIC_FADD)
			slot->expect += krdma_check_fadd_addend(test, slot);
		else if (!krdma_check_variant_turn(test, slot))
			slot->expect = krdma_seed(test->id, slot->iter);
		break;
	default:
		break;
	}
	krdma_slot_step(test, slot, KRDMA_SLOT_WC);
}

/*
 * A second READ of the slot's iteration, into the slot's sink, completed:
 * test-read-back's fenced READ must have brought what the WRITE wrote (the
 * sink held another iteration's pattern, or zeroes, before);
 * test-zero-read-behind's READ of 0 bytes must have left the canary the
 * sink was filled with.
 */
static void krdma_check_sink_read_done(struct ib_cq *cq, struct ib_wc *wc,
				       bool zero)
{
	struct krdma_slot *slot = container_of(wc->wr_cqe, struct krdma_slot, wcqe);
	struct krdma_session *sess = cq->cq_context;
	struct krdma_test *test = slot->test;
	u64 seed = zero ? krdma_check_canary(test->id, slot->iter) :
			  krdma_seed(test->id, slot->iter);

	krdma_reads_end(sess, 1);
	krdma_buf_to_cpu(slot->sink);
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		krdma_check_wc_failed(test, slot, wc, zero ? "the READ of 0 bytes: " :
							     "read-back: ");
		return;
	}
	if (!krdma_pattern_check(slot->sink, KRDMA_MSG_HDR_SIZE, test->p.size,
				 seed)) {
		krdma_count(sess, KRDMA_CNT_VALIDATION_ERRORS, 1);
		krdma_test_fail(test, -EBADMSG, "iteration %llu: %s", slot->iter,
				zero ? "the READ of 0 bytes wrote into its SGE" :
				"the fenced READ brought other data than the WRITE wrote");
	}
	krdma_slot_step(test, slot, zero ? KRDMA_SLOT_ZERO_READ :
					   KRDMA_SLOT_READ_BACK);
}

static void krdma_check_read_back_done(struct ib_cq *cq, struct ib_wc *wc)
{
	krdma_check_sink_read_done(cq, wc, false);
}

static void krdma_check_zero_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	krdma_check_sink_read_done(cq, wc, true);
}

/*
 * test-read-back: the memory our WRITE went to, READ into the slot's
 * sink behind a fence. An IB responder runs a READ after the WRITEs
 * before it on the QP in any case; the fence is what the verbs give a
 * ULP to ask for it (IB_SEND_FENCE), and what a device must honour.
 */
static int krdma_check_post_read_back(struct krdma_test *test,
				      struct krdma_slot *slot,
				      const struct krdma_wire_region *remote)
{
	krdma_buf_to_device(slot->sink);
	return krdma_post_rdma(test->sess, slot->sink, remote,
			       test->remote_per_slot, IB_WR_RDMA_READ,
			       &slot->wcqe, 0, 0,
			       KRDMA_POST_SIGNAL_LAST | KRDMA_POST_FENCE);
}

/*
 * test-zero-read-behind: a READ of one SGE of 0 bytes, unfenced, right
 * behind the slot's READ of the same target, so that the responder may
 * take it while it still sends the first one's response (siw queues it
 * then: Documentation/conformance.rst, "Known device bugs"). The SGE is
 * real - the sink's first payload byte, lkey and all - as a ULP's would
 * be; only its length is 0.
 */
static int krdma_check_post_zero_read(struct krdma_test *test,
				      struct krdma_slot *slot,
				      const struct krdma_wire_region *remote)
{
	struct krdma_session *sess = test->sess;
	struct ib_rdma_wr wr = {};
	struct ib_sge sge;
	int ret;

	krdma_pattern_fill(slot->sink, KRDMA_MSG_HDR_SIZE, test->p.size,
			   krdma_check_canary(test->id, slot->iter));
	krdma_buf_to_device(slot->sink);
	if (krdma_buf_read_sges(slot->sink, KRDMA_MSG_HDR_SIZE, 1,
				sess->kdev->pd->local_dma_lkey, &sge, 1) != 1)
		return -EINVAL;
	sge.length = 0;
	wr.wr.wr_cqe = &slot->wcqe;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.wr.opcode = IB_WR_RDMA_READ;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.remote_addr = be64_to_cpu(remote->addr);
	wr.rkey = be32_to_cpu(remote->rkey);
	ret = krdma_post_send(sess, &wr.wr);
	if (ret)
		return ret;
	krdma_reads_begin(sess, 1);
	krdma_count(sess, KRDMA_CNT_READ_WRS, 1);
	return 0;
}

/* test-reg-behind's invalidation: only an error is news. */
static void krdma_check_scratch_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	if (unlikely(wc->status != IB_WC_SUCCESS))
		krdma_wc_error(cq->cq_context, wc, "the invalidation behind a REG_MR");
}

static struct ib_cqe krdma_check_scratch_inv_cqe = {
	.done = krdma_check_scratch_inv_done,
};

/*
 * test-reg-behind: the REG_MR behind the slot's SEND completed, after the
 * SEND's own completion. A device that ran it a second time when it sent
 * the SEND again (rxe.reg_mr_twice) found the region valid and failed it
 * here. The region is invalidated now, behind the WRs in flight, so that
 * the slot's next REG_MR finds it free with nothing between it and its
 * SEND.
 */
static void krdma_check_reg_behind_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_slot *slot = container_of(wc->wr_cqe, struct krdma_slot, wcqe);
	struct krdma_test *test = slot->test;
	int ret;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		krdma_check_wc_failed(test, slot, wc, "the REG_MR behind the SEND: ");
		return;
	}
	ret = krdma_region_post_inv(test->sess, slot->scratch,
				    &krdma_check_scratch_inv_cqe);
	if (ret) {
		krdma_test_post_failed(test->sess, test, test->id, ret);
		return;
	}
	krdma_count(test->sess, KRDMA_CNT_INV_WRS, slot->scratch->nmrs);
	krdma_slot_step(test, slot, KRDMA_SLOT_REG_BEHIND);
}

/*
 * test-reg-behind: a REG_MR of the slot's scratch region right behind its
 * SEND, no fence before it (krdma_region_post_fence() is what krdma's own
 * registrations have against rxe.reg_mr_twice).
 */
static int krdma_check_post_reg_behind(struct krdma_test *test,
				       struct krdma_slot *slot)
{
	int ret;

	ret = krdma_region_post_reg(test->sess, slot->scratch, &slot->wcqe,
				    IB_ACCESS_LOCAL_WRITE);
	if (!ret)
		krdma_count(test->sess, KRDMA_CNT_REG_MR_WRS, slot->scratch->nmrs);
	return ret;
}

/*
 * The peer's region of slot @s's target that holds byte *@off of it (a
 * target of more than a chunk of the peer's is more than one region),
 * *@off then the byte's offset in it.
 */
static const struct krdma_wire_region *
krdma_check_remote_at(const struct krdma_test *test, u32 s, u64 *off)
{
	const struct krdma_wire_region *r =
		&test->remote[s * test->remote_per_slot];
	u32 i;

	for (i = 0; i + 1 < test->remote_per_slot; i++) {
		if (*off < be32_to_cpu(r[i].len))
			break;
		*off -= be32_to_cpu(r[i].len);
	}
	return &r[i];
}

static int krdma_check_post_atomic(struct krdma_test *test,
				   struct krdma_slot *slot)
{
	struct krdma_session *sess = test->sess;
	const struct krdma_test_params *p = &test->p;
	u32 s = slot - test->slots, nwords = p->size / sizeof(u64);
	/* This slot's earlier uses, then those of the word this one goes to. */
	u64 earlier = div_u64(slot->iter, p->depth);
	u32 w = do_div(earlier, nwords);
	u64 off = w * sizeof(u64);
	const struct krdma_wire_region *r = krdma_check_remote_at(test, s, &off);
	struct krdma_wire_region bad;
	struct ib_atomic_wr wr = {};
	struct ib_sge sge;
	int ret;

	/*
	 * What the word holds before this iteration: what its earlier ones
	 * left (a variant's sequence is followed as it goes,
	 * krdma_check_slot_done()).
	 */
	if (!p->atomic_variant)
		slot->expect = krdma_check_atomic_value(p->op, test->id, s,
							p->depth, nwords, w,
							earlier);
	if (test->p.violate)
		r = krdma_check_violated(test, r, &bad);

	ret = krdma_buf_sges(slot->buf, KRDMA_MSG_HDR_SIZE, sizeof(u64),
			     sess->kdev->pd->local_dma_lkey, &sge, 1);
	if (ret < 0)
		return ret;
	wr.wr.wr_cqe = &slot->cqe;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.remote_addr = be64_to_cpu(r->addr) + off;
	wr.rkey = be32_to_cpu(r->rkey);
	wr.wr.opcode = krdma_op(test->p.op)->opcode;
	if (test->p.op == KRDMA_OP_ATOMIC_FADD) {
		wr.compare_add = krdma_check_fadd_addend(test, slot);
	} else {
		/* A miss compares with what the target does not hold. */
		wr.compare_add = krdma_check_variant_turn(test, slot) ?
				 ~slot->expect : slot->expect;
		wr.swap = krdma_seed(test->id, slot->iter);
	}
	ret = krdma_post_send(sess, &wr.wr);
	if (!ret)
		krdma_count(sess, KRDMA_CNT_ATOMIC_WRS, 1);
	return ret;
}

/**
 * krdma_check_split_sges() - the same bytes over more SGEs (test-sges)
 * @sge: the SGEs, with room for @want
 * @n: how many there are
 * @want: how many there should be
 *
 * The longest entry split in two, the first half first, until there are
 * @want, or no entry has two bytes to split: the same bytes in the same
 * order.
 *
 * Return: the number of SGEs now.
 */
int krdma_check_split_sges(struct ib_sge *sge, int n, int want)
{
	while (n < want) {
		int i, longest = 0;

		for (i = 1; i < n; i++)
			if (sge[i].length > sge[longest].length)
				longest = i;
		if (sge[longest].length < 2)
			break;
		memmove(&sge[longest + 2], &sge[longest + 1],
			(n - longest - 1) * sizeof(*sge));
		sge[longest + 1] = sge[longest];
		sge[longest].length /= 2;
		sge[longest + 1].addr += sge[longest].length;
		sge[longest + 1].length -= sge[longest].length;
		n++;
	}
	return n;
}

/*
 * test-violate send-invalidated-rkey: after the SEND_WITH_INV (posted
 * unsignaled), a WRITE of a byte into the slot's target through the key
 * @rkey it invalidated - the case's verdict, on the slot's completion.
 * The same QP: the peer's device takes the WRITE after the SEND, the key
 * invalid by then whatever the peer registers after it.
 */
static int krdma_check_post_stale_write(struct krdma_test *test,
					struct krdma_slot *slot,
					const struct krdma_wire_region *target,
					u32 rkey)
{
	struct krdma_wire_region stale = {
		.addr	= target->addr,
		.rkey	= cpu_to_be32(rkey),
		.len	= cpu_to_be32(1),
	};

	return krdma_post_rdma(test->sess, slot->buf, &stale, 1,
			       IB_WR_RDMA_WRITE, &slot->cqe, 0, 0,
			       KRDMA_POST_SIGNAL_LAST);
}

static int krdma_check_post_send(struct krdma_test *test, struct krdma_slot *slot)
{
	bool stale_write = test->p.violate == KRDMA_VIOLATE_SEND_INVALIDATED_RKEY;
	struct krdma_session *sess = test->sess;
	struct krdma_wire_region *target = NULL;
	struct ib_sge sge[KRDMA_MAX_SGE];
	struct ib_send_wr wr = {};
	u32 rkey = 0;
	int n, ret;

	n = krdma_buf_sges(slot->buf, 0, krdma_slot_len(&test->p),
			   sess->kdev->pd->local_dma_lkey, sge,
			   sess->max_sge);
	if (n < 0)
		return n;
	if (test->p.sges)
		n = krdma_check_split_sges(sge, n, test->p.sges);
	/*
	 * A conformance case's SEND is a byte longer than the peer's
	 * receive (its size is the session's max_msg, krdma_check_params()):
	 * the buffer's first byte again.
	 */
	if (test->p.violate == KRDMA_VIOLATE_LONG_SEND) {
		if (n >= sess->max_sge)
			return -E2BIG;
		sge[n] = sge[0];
		sge[n++].length = 1;
	}
	wr.wr_cqe = &slot->cqe;
	wr.sg_list = sge;
	wr.num_sge = n;
	wr.send_flags = IB_SEND_SIGNALED;
	wr.opcode = krdma_op(test->p.op)->opcode;
	if (krdma_op_has_imm(test->p.op))
		wr.ex.imm_data = cpu_to_be32((u32)slot->iter);
	if (test->p.send_inv) {
		/* The slot's target: one region (krdma_test_on_ack()). */
		target = &test->remote[slot - test->slots];
		rkey = be32_to_cpu(target->rkey);
		wr.opcode = IB_WR_SEND_WITH_INV;
		wr.ex.invalidate_rkey = rkey;
		/*
		 * The peer registers the target again under the key's next
		 * value before it acks; the slot waits for that ack.
		 */
		target->rkey = cpu_to_be32(ib_inc_rkey(rkey));
		if (stale_write)
			wr.send_flags = 0;
	}
	ret = krdma_post_send(sess, &wr);
	if (ret)
		return ret;
	krdma_count(sess, KRDMA_CNT_SEND_WRS, 1);
	krdma_count(sess, KRDMA_CNT_BYTES_TX, krdma_slot_len(&test->p));
	return stale_write ? krdma_check_post_stale_write(test, slot, target, rkey) : 0;
}

static void krdma_check_issue(struct krdma_test *test, struct krdma_slot *slot)
{
	struct krdma_session *sess = test->sess;
	u32 s = slot - test->slots;
	const struct krdma_wire_region *remote =
		test->remote ? &test->remote[s * test->remote_per_slot] : NULL;
	u64 seed;
	int ret;

	slot->iter = test->issued++;
	slot->busy = true;
	seed = krdma_seed(test->id, slot->iter);

	switch (test->p.op) {
	case KRDMA_OP_SEND:
	case KRDMA_OP_SEND_IMM: {
		struct krdma_msg_hdr hdr = {
			.type	 = cpu_to_be16(KRDMA_MSG_DATA),
			.test_id = cpu_to_be32(test->id),
			.iter	 = cpu_to_be64(slot->iter),
			.len	 = cpu_to_be32(test->p.size),
		};

		krdma_buf_copy_from(slot->buf, 0, &hdr, sizeof(hdr));
		krdma_pattern_fill(slot->buf, KRDMA_MSG_HDR_SIZE, test->p.size, seed);
		slot->pending = KRDMA_SLOT_WC | KRDMA_SLOT_ACK |
				(test->p.reg_behind ? KRDMA_SLOT_REG_BEHIND : 0);
		krdma_buf_to_device(slot->buf);
		ret = krdma_check_post_send(test, slot);
		if (!ret && test->p.reg_behind)
			ret = krdma_check_post_reg_behind(test, slot);
		break;
	}
	case KRDMA_OP_WRITE:
	case KRDMA_OP_WRITE_IMM:
		krdma_pattern_fill(slot->buf, KRDMA_MSG_HDR_SIZE, test->p.size, seed);
		slot->pending = KRDMA_SLOT_WC | KRDMA_SLOT_ACK |
				(test->p.read_back ? KRDMA_SLOT_READ_BACK : 0);
		krdma_buf_to_device(slot->buf);
		ret = krdma_check_post_rdma(test, slot, remote,
					    krdma_op(test->p.op)->opcode,
					    krdma_check_imm(slot->iter));
		/* Same QP, so the notice arrives after the data has landed. */
		if (!ret && test->p.op == KRDMA_OP_WRITE)
			ret = krdma_ctrl_send(sess, KRDMA_MSG_NOTIFY, test->id,
					      slot->iter, 0, NULL, 0);
		if (!ret && test->p.read_back)
			ret = krdma_check_post_read_back(test, slot, remote);
		break;
	case KRDMA_OP_READ:
		slot->pending = KRDMA_SLOT_WC | KRDMA_SLOT_ACK |
				(test->p.zero_behind ? KRDMA_SLOT_ZERO_READ : 0);
		/* What a READ of 0 bytes must leave as it is. */
		if (test->p.zero_length)
			krdma_pattern_fill(slot->buf, KRDMA_MSG_HDR_SIZE, test->p.size,
					   krdma_check_canary(test->id, slot->iter));
		krdma_buf_to_device(slot->buf);
		ret = krdma_check_post_rdma(test, slot, remote, IB_WR_RDMA_READ, 0);
		if (!ret && test->p.zero_behind)
			ret = krdma_check_post_zero_read(test, slot, remote);
		break;
	case KRDMA_OP_PING:
		krdma_pattern_fill(slot->buf, KRDMA_MSG_HDR_SIZE, test->p.size, seed);
		slot->pending = KRDMA_SLOT_ACK;
		krdma_buf_to_device(slot->buf);
		krdma_buf_to_device(slot->sink);
		ret = krdma_ctrl_send(sess, KRDMA_MSG_PING, test->id, slot->iter,
				      0, NULL, 0);
		break;
	default:	/* atomics */
		slot->pending = KRDMA_SLOT_WC;
		krdma_buf_to_device(slot->buf);
		ret = krdma_check_post_atomic(test, slot);
		break;
	}
	if (ret)
		krdma_test_post_failed(sess, test, test->id, ret);
}

static void krdma_check_on_iter_ack(struct krdma_test *test,
				    const struct krdma_msg_hdr *hdr)
{
	u64 iter = be64_to_cpu(hdr->iter);
	struct krdma_slot *slot;
	int status = -(int)be32_to_cpu(hdr->status);

	if (!krdma_test_in(test, KRDMA_TP_RUNNING) || iter >= test->issued)
		goto proto;
	slot = &test->slots[iter % test->p.depth];
	if (!slot->busy || slot->iter != iter || !(slot->pending & KRDMA_SLOT_ACK))
		goto proto;
	if (status)
		krdma_test_fail(test, status, "peer reports iteration %llu: %pe",
				iter, ERR_PTR(status));
	if (test->p.op == KRDMA_OP_PING) {
		krdma_buf_to_cpu(slot->buf);
		krdma_buf_to_cpu(slot->sink);
		krdma_slot_check(test, slot, slot->sink);
	} else if (test->p.op != KRDMA_OP_READ && !status) {
		/* The peer checked the data where it landed. */
		WRITE_ONCE(test->validated, test->validated + 1);
	}
	krdma_slot_step(test, slot, KRDMA_SLOT_ACK);
	return;
proto:
	krdma_count(test->sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
	krdma_session_close(test->sess, "protocol error: unexpected ITER_ACK %llu",
			    iter);
}

/* What test.c checked for every mode aside: queues, SGEs, regions. */
static int krdma_check_params(struct krdma_session *sess,
			      struct krdma_test_params *p,
			      struct netlink_ext_ack *extack)
{
	u32 per_iter, sge_bytes, nchunks = krdma_chunks_for(sess->kdev, p->size);

	if (krdma_op_uses_recv(p->op) &&
	    p->depth + KRDMA_RQ_RESERVE > min(sess->rq_depth, sess->peer_rq_depth)) {
		NL_SET_ERR_MSG(extack,
			       "depth exceeds the receive queues (raise rq_depth at connect)");
		return -ENOSPC;
	}
	/* A send is one WR; an RDMA op is split where it needs (post_rdma). */
	if (nchunks + 1 > sess->max_sge && krdma_op_is_send(p->op)) {
		NL_SET_ERR_MSG(extack, "size needs more SGEs than the device has");
		return -E2BIG;
	}
	/*
	 * As many SGEs as asked: the session's for the op, each of a byte
	 * or more, and a WR's worth (a send's header is in its WR).
	 */
	sge_bytes = krdma_op_is_send(p->op) ? krdma_slot_len(p) : p->size;
	if (p->sges && (p->sges > (p->op == KRDMA_OP_READ ? sess->max_read_sge :
				   sess->max_sge) ||
			p->sges > sge_bytes ||
			krdma_chunks_for(sess->kdev, sge_bytes) > p->sges)) {
		NL_SET_ERR_MSG(extack,
			       "sges: more than the session's max_sge (a read's max_read_sge), than the message's bytes, or fewer than its memory takes");
		return -EINVAL;
	}
	if (p->read_back && sess->peer_proto < 5) {
		NL_SET_ERR_MSG(extack, "read-back needs a peer of protocol version 5");
		return -EOPNOTSUPP;
	}
	if (p->zero_length && sess->peer_proto < 6) {
		NL_SET_ERR_MSG(extack,
			       "zero-length needs a peer of protocol version 6");
		return -EOPNOTSUPP;
	}
	if (p->send_inv && sess->peer_proto < 6) {
		NL_SET_ERR_MSG(extack,
			       "send-invalidate needs a peer of protocol version 6");
		return -EOPNOTSUPP;
	}
	if (p->rnr_hold && sess->peer_proto < 7) {
		NL_SET_ERR_MSG(extack, "rnr-hold needs a peer of protocol version 7");
		return -EOPNOTSUPP;
	}
	if (p->rnr_hold && sess->kdev->iwarp) {
		NL_SET_ERR_MSG(extack,
			       "rnr-hold: iWARP has no receiver-not-ready retry (a SEND into an empty receive queue ends the connection)");
		return -EOPNOTSUPP;
	}
	/* The peer's QP keeps krdma_session_nr_recvs() posted (proto.h). */
	if (p->rnr_hold &&
	    p->count <= krdma_session_nr_recvs(sess->peer_rq_depth, sess->qps)) {
		NL_SET_ERR_MSG(extack,
			       "rnr-hold needs a count above the receives the peer keeps posted: the session's rq_depth + 4 a QP");
		return -EINVAL;
	}
	if (p->violate == KRDMA_VIOLATE_INVALIDATED_RKEY && sess->peer_proto < 6) {
		NL_SET_ERR_MSG(extack,
			       "invalidated-rkey needs a peer of protocol version 6");
		return -EOPNOTSUPP;
	}
	if (krdma_op_is_atomic(p->op) && p->size != sizeof(u64) &&
	    sess->peer_proto < 5) {
		NL_SET_ERR_MSG(extack,
			       "an atomics target of more than 8 bytes needs a peer of protocol version 5");
		return -EOPNOTSUPP;
	}
	/* One byte more than the peer's receive takes: an SGE more. */
	if (p->violate == KRDMA_VIOLATE_LONG_SEND &&
	    (p->size != sess->max_msg_size || nchunks + 2 > sess->max_sge)) {
		NL_SET_ERR_MSG(extack,
			       "long-send needs size = the session's max_msg and an SGE to spare");
		return -EINVAL;
	}
	/*
	 * Worst case work requests in flight: a region per chunk, plus a
	 * notice; and where a WR may take fewer SGEs than a message spans
	 * chunks of ours, a WR more at most at each of our chunk boundaries
	 * (krdma_post_rdma()).
	 */
	per_iter = (p->op == KRDMA_OP_WRITE || p->op == KRDMA_OP_READ ||
		    p->op == KRDMA_OP_WRITE_IMM) ? KRDMA_MAX_SLOT_REGIONS + 1 : 1;
	if (per_iter > 1 && nchunks + 1 > min(sess->max_sge, sess->max_read_sge))
		per_iter += nchunks;
	/*
	 * The READ back as many WRs again; a READ of 0 bytes one; a REG_MR
	 * and its LOCAL_INV two.
	 */
	if (p->read_back)
		per_iter *= 2;
	per_iter += p->zero_behind + 2 * p->reg_behind;
	if (p->depth * per_iter + 2 * p->depth * nchunks + 2 > sess->sq_depth) {
		NL_SET_ERR_MSG(extack, "depth too large for the session's send queue");
		return -ENOSPC;
	}
	/*
	 * A ping's slots are ours, a region (an MR) per chunk their data
	 * spans behind the header: the peer takes at most
	 * KRDMA_MAX_SLOT_REGIONS a slot (and refused more with a bare
	 * EPROTO).
	 */
	if (p->op == KRDMA_OP_PING && nchunks + 1 > KRDMA_MAX_SLOT_REGIONS) {
		NL_SET_ERR_MSG(extack,
			       "size spans more memory regions than a ping slot may have (16)");
		return -E2BIG;
	}
	if (p->op == KRDMA_OP_PING &&
	    2 * p->depth * nchunks > KRDMA_MAX_WIRE_REGIONS) {
		NL_SET_ERR_MSG(extack, "depth x size too large for one test");
		return -E2BIG;
	}
	return 0;
}

static int krdma_check_setup(struct krdma_test *test)
{
	struct krdma_session *sess = test->sess;
	struct krdma_device *kdev = sess->kdev;
	u32 s;
	int ret;

	test->slots = krdma_failable(kcalloc(test->p.depth, sizeof(*test->slots), GFP_KERNEL));
	if (!test->slots)
		return -ENOMEM;
	for (s = 0; s < test->p.depth; s++) {
		struct krdma_slot *slot = &test->slots[s];

		slot->test = test;
		slot->cqe.done = krdma_check_slot_done;
		slot->wcqe.done = test->p.zero_behind ? krdma_check_zero_read_done :
				  test->p.reg_behind ? krdma_check_reg_behind_done :
						       krdma_check_read_back_done;
		slot->buf = krdma_buf_alloc(kdev, krdma_slot_len(&test->p),
					    "slot", s);
		if (!slot->buf)
			return -ENOMEM;
		/* One MR over the slot's first page: nothing goes through it. */
		if (test->p.reg_behind) {
			slot->scratch = krdma_region_create(kdev, slot->buf, 0, 1,
							    IB_ACCESS_LOCAL_WRITE);
			if (IS_ERR(slot->scratch)) {
				ret = PTR_ERR(slot->scratch);
				slot->scratch = NULL;
				return ret;
			}
		}
		if (test->p.op != KRDMA_OP_PING && !test->p.read_back &&
		    !test->p.zero_behind)
			continue;
		slot->sink = krdma_buf_alloc(kdev, krdma_slot_len(&test->p),
					     "sink", s);
		if (!slot->sink)
			return -ENOMEM;
		if (test->p.op != KRDMA_OP_PING)
			continue;
		slot->reg = krdma_region_create(kdev, slot->buf, KRDMA_MSG_HDR_SIZE,
						test->p.size, IB_ACCESS_REMOTE_READ);
		if (IS_ERR(slot->reg)) {
			ret = PTR_ERR(slot->reg);
			slot->reg = NULL;
			return ret;
		}
		slot->sink_reg = krdma_region_create(kdev, slot->sink,
						     KRDMA_MSG_HDR_SIZE, test->p.size,
						     IB_ACCESS_LOCAL_WRITE |
						     IB_ACCESS_REMOTE_WRITE);
		if (IS_ERR(slot->sink_reg)) {
			ret = PTR_ERR(slot->sink_reg);
			slot->sink_reg = NULL;
			return ret;
		}
	}
	return 0;
}

/* Ping: make our sources and sinks valid, and list them for the peer. */
static int krdma_check_post_ping_regs(struct krdma_test *test,
				      struct krdma_msg_test *req, u32 *nregions)
{
	struct krdma_session *sess = test->sess;
	u32 s, pass, n = 0;
	int ret;

	ret = krdma_region_post_fence(sess);
	if (ret)
		return ret;
	/* Sources of every slot, then sinks: see struct krdma_msg_test. */
	for (pass = 0; pass < 2; pass++) {
		for (s = 0; s < test->p.depth; s++) {
			struct krdma_slot *slot = &test->slots[s];
			struct krdma_region *reg = pass ? slot->sink_reg : slot->reg;
			int access = pass ? IB_ACCESS_LOCAL_WRITE |
					    IB_ACCESS_REMOTE_WRITE :
					    IB_ACCESS_REMOTE_READ;

			if (n + reg->nmrs > KRDMA_MAX_WIRE_REGIONS)
				return -E2BIG;
			ret = krdma_region_post_reg(sess, reg, &test->ctl_cqe,
						    access);
			if (ret)
				return ret;
			krdma_region_to_wire(reg, &req->regions[n]);
			n += reg->nmrs;
		}
	}
	krdma_count(sess, KRDMA_CNT_REG_MR_WRS, n);
	*nregions = n;
	return 0;
}

/*
 * Read: the slots the READs land in (and a zero-read-behind's sinks, its
 * READs of 0 bytes' SGEs), read-back: the slots' sinks (iWARP:
 * krdma_buf_make_sink()).
 */
static int krdma_check_post_sinks(struct krdma_test *test)
{
	u32 s;
	int ret;

	for (s = 0; s < test->p.depth; s++) {
		struct krdma_slot *slot = &test->slots[s];

		ret = krdma_buf_make_sink(test->sess, test->p.read_back ?
					  slot->sink : slot->buf,
					  &test->ctl_cqe);
		if (!ret && test->p.zero_behind)
			ret = krdma_buf_make_sink(test->sess, slot->sink,
						  &test->ctl_cqe);
		if (ret)
			return ret;
	}
	return 0;
}

/* TEST_ACK came: fill the window. */
static void krdma_check_start(struct krdma_test *test)
{
	u32 s;

	for (s = 0; s < test->p.depth && krdma_check_more(test); s++)
		krdma_check_issue(test, &test->slots[s]);
	if (!test->issued)
		krdma_test_send_end(test);
}

/* The responder's ITER_ACK: nothing else comes to the check driver. */
static void krdma_check_on_msg(struct krdma_test *test, struct krdma_recv *rx,
			       const struct krdma_msg_hdr *hdr)
{
	if (be16_to_cpu(hdr->type) != KRDMA_MSG_ITER_ACK) {
		krdma_count(test->sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
		krdma_session_close(test->sess,
				    "protocol error: unexpected message type %u",
				    be16_to_cpu(hdr->type));
		return;
	}
	if (krdma_recv_repost(rx)) {
		krdma_session_close(test->sess, "cannot repost receive");
		return;
	}
	krdma_check_on_iter_ack(test, hdr);
}

/*
 * A ping exposes its sources and sinks; a READ lands in our slots, a
 * read-back's in their sinks (on iWARP a sink to register); the other
 * ops expose nothing of ours.
 */
static int krdma_check_post_regs(struct krdma_test *test,
				 struct krdma_msg_test *req, u32 *nregions)
{
	if (test->p.op == KRDMA_OP_PING)
		return krdma_check_post_ping_regs(test, req, nregions);
	if (test->p.op == KRDMA_OP_READ || test->p.read_back)
		return krdma_check_post_sinks(test);
	return 0;
}

const struct krdma_engine_ops krdma_check_engine = {
	.name		= "check",
	.remote_per_slot = true,
	.check_params	= krdma_check_params,
	.setup		= krdma_check_setup,
	.post_regs	= krdma_check_post_regs,
	.start		= krdma_check_start,
	.on_msg		= krdma_check_on_msg,
	.peer_bytes	= krdma_check_peer_bytes,
	.peer_watched	= krdma_check_peer_watched,
	.peer_setup	= krdma_check_peer_setup,
	.peer_on_msg	= krdma_check_peer_on_msg,
	.peer_may_end	= krdma_check_peer_may_end,
	.peer_busy	= krdma_check_peer_busy,
	.peer_end	= krdma_check_peer_end,
};
