/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * krdma: a session's connections (struct krdma_conn, conns.c): each one's
 * RC QP with its rdma_cm id, its completion context (cq.c), the gate every
 * post goes through (post.c) and its receives (qp.c). The session that
 * holds them is krdma.h's, which knows them by name only: this header
 * sits above it.
 */
#ifndef _KRDMA_CONN_H
#define _KRDMA_CONN_H

#include <linux/spinlock.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "krdma.h"

struct krdma_buf;
struct krdma_conn;
struct krdma_peer_test;
struct krdma_session;

/*
 * The SGEs of a send WR at most, what a session may ask (the spec's):
 * a session's QPs take KRDMA_SGE_DEFAULT unless it asks for more
 * (session-max-sge), and receives KRDMA_RECV_MAX_SGE.
 */
#define KRDMA_MAX_SGE		KRDMA_SGE_MAX
#define KRDMA_RECV_MAX_SGE	KRDMA_SGE_DEFAULT
/* The fewest receives a data channel keeps posted (conns.c). */
#define KRDMA_CHANNEL_MIN_RECVS	8

/* A receive: the message header, then room for the largest body. */
struct krdma_recv {
	struct ib_cqe		cqe;
	struct krdma_conn	*conn;	/* whose QP it is posted on */
	struct krdma_buf	*buf;
	/* Built once: the buffer never moves (krdma_recvs_alloc()). */
	struct ib_recv_wr	wr;
	struct ib_sge		sge[KRDMA_RECV_MAX_SGE];
};

/*
 * Receives given back to the device but not yet posted, to go to their
 * QP in one ib_post_recv() (krdma_recv_post_held()): all of one QP.
 */
struct krdma_recv_batch {
	struct ib_recv_wr	*first;
	struct ib_recv_wr	*last;
	u32			n;
};

/*
 * What stands between a QP and every post on it (post.c): a lock of its
 * own, so the data path takes no session-wide lock, and the flag
 * teardown sets before it drains the QP.
 */
struct krdma_post_gate {
	spinlock_t		lock;		/* closed vs. posting */
	bool			closed;
};

/* A completion queue and, with cq_poll direct, the thread that polls it. */
struct krdma_cq {
	struct ib_cq		*ib;
	struct task_struct	*poller;
	bool			softirq;	/* its handlers must not sleep */
};

/*
 * One connection of a session: an RC QP to the peer with its rdma_cm id,
 * its CQ, its post gate and its receives (conns.c), as rtrs has rtrs_con
 * and nvme-rdma nvme_rdma_queue. A session holds conns[0 .. qps - 1]:
 * conn 0 carries the control messages, the keepalive and the tests of a
 * single QP; conns 1 .. qps - 1, its data channels, the messages of bw
 * tests spread over several QPs. With a peer of protocol version 3 a
 * data channel keeps its share of rq_depth receives posted, for the
 * sends and write_imm of the peer's test.
 */
struct krdma_conn {
	enum krdma_cm_kind	kind;		/* KRDMA_CM_CONN: offset 0 */
	struct krdma_session	*sess;
	u32			index;		/* 0 .. sess->qps - 1 */
	struct rdma_cm_id	*cm_id;
	struct krdma_cq		cq;
	struct ib_qp		*qp;
	u32			peer_qpn;
	bool			resolve_again;	/* see krdma_resolve_work() */
	struct krdma_post_gate	gate;
	struct krdma_recv	*recvs;		/* nr_recvs, or none */
	u32			nr_recvs;
	u64			mem;		/* data channel: charged for its queues */
	/*
	 * A data channel: the peer's test whose messages arrive here, if
	 * any: set and cleared by its engine, in the session's CQ context;
	 * the channel's receive handler runs under it (qp.c,
	 * krdma_channel_recv()).
	 */
	spinlock_t		rx_lock;
	struct krdma_peer_test	*rx_test;
	/*
	 * The session's QP, while the peer's test-rnr-hold test asks it:
	 * the receives it completes are kept back here, not posted again,
	 * until rnr_work posts them all (qp.c, krdma_conn_rnr_hold()).
	 */
	spinlock_t		hold_lock;	/* rnr_hold, rnr_held */
	bool			rnr_hold;
	struct krdma_recv_batch	rnr_held;
	struct delayed_work	rnr_work;
};

/* conns.c: the connections of a session, conn 0 and its data channels */
int krdma_conns_alloc(struct krdma_session *sess, u32 qps);
struct krdma_conn *krdma_conn_new(struct krdma_session *sess, u32 index);
int krdma_conn_create_queues(struct krdma_conn *conn);
void krdma_conn_free_queues(struct krdma_conn *conn);
void krdma_conn_set_rx_test(struct krdma_conn *conn,
			    struct krdma_peer_test *pt);
u32 krdma_channel_nr_recvs(u32 peer_proto, u32 rq_depth, u32 qps);
u64 krdma_channel_recv_bytes(u32 peer_proto, u32 channels, u32 rq_depth,
			     u32 max_msg_size);
void krdma_conns_quiesce(struct krdma_session *sess);
void krdma_conns_free_queues(struct krdma_session *sess);
void krdma_conns_destroy_ids(struct krdma_session *sess);

/* cq.c: the completion context */
int krdma_cq_create(struct krdma_session *sess, struct krdma_cq *cq,
		    u32 nr_cqe, int comp_vector, bool data_only,
		    const char *name);
void krdma_cq_stop(struct krdma_cq *cq);
void krdma_cq_free(struct krdma_cq *cq);

/* post.c: every work request, behind teardown's gate */
void krdma_gate_init(struct krdma_post_gate *gate);
void krdma_gate_close(struct krdma_post_gate *gate);
void krdma_gate_reopen(struct krdma_post_gate *gate);
int krdma_gate_post(struct krdma_post_gate *gate, struct ib_qp *qp,
		    const struct ib_send_wr *wr, const struct ib_recv_wr *rwr,
		    const struct ib_send_wr **bad);

/* Whether teardown has closed @gate: lock-free, for loops to stop early. */
static inline bool krdma_gate_closed(const struct krdma_post_gate *gate)
{
	return READ_ONCE(gate->closed);
}

/*
 * Whether teardown has begun closing @sess's QPs: conn 0's gate closes
 * first (krdma_conns_quiesce()), so a data channel's refusing implies it.
 */
static inline bool krdma_session_gate_closed(const struct krdma_session *sess)
{
	return krdma_gate_closed(&krdma_ctrl_conn(sess)->gate);
}

int krdma_conn_post_send_chain(struct krdma_conn *conn,
			       const struct ib_send_wr *wr, bool *some_posted);
int krdma_conn_post_send(struct krdma_conn *conn, const struct ib_send_wr *wr);
int krdma_post_send_chain(struct krdma_session *sess,
			  const struct ib_send_wr *wr, bool *some_posted);
int krdma_post_send(struct krdma_session *sess, const struct ib_send_wr *wr);
void krdma_wc_error(struct krdma_session *sess, struct ib_wc *wc,
		    const char *what);

/* qp.c: a connection's receives */
int krdma_recv_repost(struct krdma_recv *rx);
void krdma_conn_rnr_hold(struct krdma_conn *conn);
void krdma_conn_rnr_work(struct work_struct *work);
void krdma_recv_hold(struct krdma_recv_batch *batch, struct krdma_recv *rx);
int krdma_recv_post_held(struct krdma_recv_batch *batch);
int krdma_recvs_post_all(struct krdma_recv *recvs, u32 n);
struct krdma_recv *krdma_recvs_alloc(struct krdma_conn *conn, u32 n, u32 len);
void krdma_recvs_free(struct krdma_recv *recvs, u32 n);

#endif /* _KRDMA_CONN_H */
