// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: data channels - the QPs of a session beyond its first.
 *
 * One RC QP is one stream of the transport: in order, one requester, one
 * completion queue. A bw test that wants more of the wire or of the CPUs
 * spreads its messages over several QPs, as rtrs and nvme-rdma spread
 * their queues. Each channel is a connection of its own through the CM
 * (cm.c connects and accepts it), on the session's device and protection
 * domain, so that the FRWR regions a test registers on the first QP are
 * valid on every channel. Control messages stay on the session's QP,
 * which keeps their order; a channel carries a test's data only. With a
 * peer of protocol version 3 it keeps its share of rq_depth receives
 * posted (krdma_channel_nr_recvs()), for the peer's sends and write_imm,
 * and hands what arrives to the peer's test that took them (qp.c,
 * krdma_channel_recv()); an older peer sends one-sided work only (RDMA
 * WRITE, READ, atomics) over it, and it posts no receives.
 *
 * Lifetime: channels are created under the session's cm_mutex while it
 * connects, and live until its teardown, which quiesces them together
 * with the session's QP before the tests go, frees their queues and
 * destroys their CM ids (on iWARP the other way round), and frees them
 * last.
 */
#include <linux/slab.h>

#include "krdma.h"

/* The next data channel of @sess made so far, from index *@i on; or NULL. */
static struct krdma_channel *krdma_channel_next(struct krdma_session *sess,
						u32 *i)
{
	struct krdma_channel *ch;

	while (sess->channels && *i < sess->qps - 1) {
		ch = sess->channels[(*i)++];
		if (ch)
			return ch;
	}
	return NULL;
}

/* The session's array of qps - 1 channel pointers, filled as they connect. */
int krdma_channels_alloc(struct krdma_session *sess, u32 qps)
{
	sess->qps = qps;
	if (qps <= 1)
		return 0;
	sess->channels = krdma_failable(kcalloc(qps - 1, sizeof(*sess->channels),
						GFP_KERNEL));
	return sess->channels ? 0 : -ENOMEM;
}

struct krdma_channel *krdma_channel_new(struct krdma_session *sess, u32 index)
{
	struct krdma_channel *ch;

	ch = krdma_failable(kzalloc(sizeof(*ch), GFP_KERNEL));
	if (!ch)
		return NULL;
	ch->kind = KRDMA_CM_CHANNEL;
	ch->sess = sess;
	ch->index = index;
	krdma_gate_init(&ch->gate);
	spin_lock_init(&ch->rx_lock);
	return ch;
}

/*
 * The receives each data channel of a session of @qps QPs keeps posted,
 * with a peer of version @peer_proto: its share of @rq_depth. A test
 * spreads its depth over its QPs, so the session's receive memory
 * doubles at most with its channels instead of growing with each
 * (rq_depth 80 of 1 MiB over 4 QPs: 140 MiB, not 320, under the
 * default max_session_mem_mb of 256). Both sides compute it, the
 * driver from the peer's rq_depth, to size its lanes' windows.
 */
u32 krdma_channel_nr_recvs(u32 peer_proto, u32 rq_depth, u32 qps)
{
	if (peer_proto < 3 || qps <= 1)
		return 0;
	return clamp_t(u32, DIV_ROUND_UP(rq_depth, qps),
		       min_t(u32, rq_depth, KRDMA_CHANNEL_MIN_RECVS), rq_depth);
}

/*
 * The receive buffers a session's @channels data channels pin, with a
 * peer of version @peer_proto (listener.c charges them to the peer).
 */
u64 krdma_channel_recv_bytes(u32 peer_proto, u32 channels, u32 rq_depth,
			     u32 max_msg_size)
{
	return (u64)channels *
	       krdma_channel_nr_recvs(peer_proto, rq_depth, channels + 1) *
	       krdma_buf_bytes(KRDMA_MSG_HDR_SIZE + max_msg_size);
}

/*
 * Its QP and CQ. The CM id stays (the CM destroys a refused one); on
 * iWARP's teardown it is gone already (krdma_channels_destroy_ids()).
 */
void krdma_channel_free_queues(struct krdma_channel *ch)
{
	if (ch->qp) {
		if (ch->cm_id)
			rdma_destroy_qp(ch->cm_id);
		else
			ib_destroy_qp(ch->qp);
		ch->qp = NULL;
	}
	krdma_cq_free(&ch->cq);
	/* Only now can no completion refer to a buffer any more. */
	krdma_recvs_free(ch->recvs, ch->nr_recvs);
	ch->recvs = NULL;
	ch->nr_recvs = 0;
	krdma_mem_uncharge(ch->sess, ch->mem);
	ch->mem = 0;
}

/*
 * The channel's CQ and QP, on the device its CM id resolved to, which
 * must be the session's. The send queue is the session's size, so that a
 * test fits on every QP alike; the receive queue holds the channel's
 * share of receives, posted, if the peer speaks version 3 - else it has
 * room only for the drain's marker. Called with the session's cm_mutex held, once
 * the session's first QP is connected: peer_proto is known.
 */
int krdma_channel_create_queues(struct krdma_channel *ch)
{
	struct krdma_session *sess = ch->sess;
	struct ib_qp_init_attr attr = {};
	u32 nr_recvs = krdma_channel_nr_recvs(sess->peer_proto, sess->rq_depth,
					      sess->qps);
	char name[24];
	int ret;

	if (!sess->kdev || ch->cm_id->device != sess->kdev->ibdev)
		return -EXDEV;
	if (nr_recvs) {
		ch->recvs = krdma_recvs_alloc(sess, ch, nr_recvs,
					      KRDMA_MSG_HDR_SIZE +
					      sess->max_msg_size);
		if (!ch->recvs)
			return -ENOMEM;
		ch->nr_recvs = nr_recvs;
	}
	snprintf(name, sizeof(name), "%u.%u", sess->id, ch->index);
	ret = krdma_cq_create(sess, &ch->cq, sess->sq_depth + nr_recvs + 4,
			      sess->id + ch->index, true, name);
	if (ret)
		goto err;

	attr.event_handler = krdma_qp_event;
	attr.qp_context = ch;
	attr.send_cq = ch->cq.ib;
	attr.recv_cq = ch->cq.ib;
	attr.qp_type = IB_QPT_RC;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.cap.max_send_wr = sess->sq_depth + 1;
	attr.cap.max_recv_wr = nr_recvs + 1;
	attr.cap.max_send_sge = sess->max_sge;
	/* The session's QP took as many, for the same buffers. */
	attr.cap.max_recv_sge = nr_recvs ?
		min_t(u32, sess->kdev->caps.max_recv_sge, KRDMA_MAX_SGE) : 1;
	attr.cap.max_inline_data = sess->max_inline;
	ret = krdma_caps_create_qp(sess->kdev, ch->cm_id, &attr);
	if (ret)
		goto err;
	ch->qp = ch->cm_id->qp;
	/* Posted before the connection is: as the session's QP does. */
	ret = krdma_recvs_post_all(ch->recvs, nr_recvs);
	if (ret)
		goto err;
	return 0;
err:
	krdma_channel_free_queues(ch);
	return ret;
}

int krdma_channel_post_send(struct krdma_channel *ch,
			    const struct ib_send_wr *wr)
{
	return krdma_gate_post(&ch->gate, ch->qp, wr, NULL, NULL);
}

/* The peer's test @pt takes @ch's receives from now on; NULL: none does. */
void krdma_channel_set_rx_test(struct krdma_channel *ch,
			       struct krdma_peer_test *pt)
{
	spin_lock_bh(&ch->rx_lock);
	ch->rx_test = pt;
	spin_unlock_bh(&ch->rx_lock);
}

/*
 * Teardown, first step, with cm_mutex held: no channel posts any more,
 * every channel is disconnected and drained, so that no completion of
 * theirs runs once the tests are ended.
 */
void krdma_channels_quiesce(struct krdma_session *sess)
{
	struct krdma_channel *ch;
	u32 i = 0;

	while ((ch = krdma_channel_next(sess, &i))) {
		krdma_gate_close(&ch->gate);
		if (ch->cm_id)
			rdma_disconnect(ch->cm_id);
	}
	i = 0;
	while ((ch = krdma_channel_next(sess, &i))) {
		krdma_cq_stop(&ch->cq);
		if (ch->qp)
			ib_drain_qp(ch->qp);
	}
}

/*
 * Teardown, with cm_mutex held (on iWARP after the CM ids): the channels'
 * queues go before the device.
 */
void krdma_channels_free_queues(struct krdma_session *sess)
{
	struct krdma_channel *ch;
	u32 i = 0;

	while ((ch = krdma_channel_next(sess, &i)))
		krdma_channel_free_queues(ch);
}

/*
 * Teardown, once the QPs are drained, without cm_mutex: rdma_destroy_id()
 * waits for a running handler of the channel, which takes cm_mutex and
 * then sees the session closing. On iWARP the QPs go after their ids
 * (see krdma_session_close_work()).
 */
void krdma_channels_destroy_ids(struct krdma_session *sess)
{
	struct krdma_channel *ch;
	u32 i = 0;

	while ((ch = krdma_channel_next(sess, &i))) {
		if (ch->cm_id)
			rdma_destroy_id(ch->cm_id);
		ch->cm_id = NULL;
	}
}

/* Teardown, last. */
void krdma_channels_destroy(struct krdma_session *sess)
{
	struct krdma_channel *ch;
	u32 i = 0;

	while ((ch = krdma_channel_next(sess, &i)))
		kfree(ch);
	kfree(sess->channels);
	sess->channels = NULL;
}
