/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * krdma: the pipeline below the bw and lat engines. perf-wr.c builds a
 * test's lanes, buffers and WR templates and frees them; perf-run.c posts
 * them and retires their completions, lane by lane. The engines set how
 * it runs (the flags of struct krdma_perf); perf-test.c, which binds a
 * test to it, what it calls up with (struct krdma_perf_ops). The
 * pipeline knows no test, ends none and calls no engine, test.c or
 * peer.c.
 */
#ifndef _KRDMA_PERF_H
#define _KRDMA_PERF_H

#include <linux/ktime.h>

#include "histogram.h"
#include "conn.h"
#include "krdma.h"
#include "mem.h"

/* lat: signaled sends in flight at most (they complete before the PONG). */
#define KRDMA_PERF_LAT_SIGS	8

/*
 * A message of a bw or lat test, as it lies in its buffer: a send is the
 * whole buffer, our header then the data; the RDMA ops move the data
 * alone, so that a power-of-two size stays in one chunk (and one MR) on
 * each side; an atomic moves 8 bytes. A test's is laid out once, by
 * krdma_perf_alloc() (data_off, data_len, msg_len); a check or a charge
 * made before the test has a pipeline takes it from here.
 */
static inline u32 krdma_perf_data_off(u8 op)
{
	return krdma_op_is_send(op) ? KRDMA_MSG_HDR_SIZE : 0;
}

static inline u32 krdma_perf_msg_len(u8 op, u32 size)
{
	return krdma_perf_data_off(op) + krdma_op_data_len(op, size);
}

struct krdma_perf_sig {
	struct ib_cqe		cqe;
	struct krdma_perf_lane	*lane;
	u64			msg;	/* the message whose last WR this is */
	bool			busy;	/* posted, not completed */
};

union krdma_perf_wr {
	struct ib_send_wr	send;
	struct ib_rdma_wr	rdma;
	struct ib_atomic_wr	atomic;
};

/*
 * What arrived on one QP of a test: messages, those checked against the
 * pattern and those found bad; a bw responder's, the count its last
 * CREDIT granted and the receives held back for the next one.
 */
struct krdma_perf_rx {
	u64			received;
	u64			checked;
	u64			bad;
	u64			credit_sent;
	struct krdma_recv_batch	held;		/* until the next CREDIT */
};

/* One QP's share of a test's sending. */
struct krdma_perf_lane {
	struct krdma_perf	*pf;
	struct krdma_conn	*conn;		/* its QP: conn 0 or a data channel */
	spinlock_t		lock;		/* bw: pumping vs. its completions */
	union krdma_perf_wr	*wr;		/* chain message templates, linked */
	struct ib_sge		*sge;		/* KRDMA_MAX_SGE per WR */
	struct krdma_perf_sig	*sig;
	u32			nsig;
	u64			sig_next;
	atomic_t		sig_pending;	/* the poller posts, CQ completes */
	u64			sig_upto;	/* messages a posted signaled WR covers */
	u64			posted;		/* messages */
	u64			retired;	/* messages known complete */
	u64			quota;		/* a count's share */
	bool			done;		/* bw: all posted, all retired */
	u64			end_ns;		/* bw: ktime_get_ns() when done */
	u64			cpu_ns;
	struct ib_cqe		fence_cqe;	/* iWARP: krdma_perf_iwarp_fence() */
	struct ib_sge		fence_sge;
	bool			fenced;
	struct hrtimer		rate_timer;	/* bw, rate: the next burst */
	u64			rate_next;	/* ktime_get_ns(): budget for it */
	u64			granted;	/* credits: peer receives reposted */
	/*
	 * bw responder, a data channel's lane: what arrived on it, in its
	 * CQ's context under its rx_lock (the session's QP: in pf).
	 */
	struct krdma_perf_rx	rx;
};

struct krdma_perf;

/*
 * What the pipeline calls up with, set by its owner (perf-test.c: our
 * test's, the peer's test's); every end, and every figure of the test's,
 * is the owner's. Each optional but where said.
 */
struct krdma_perf_ops {
	/* The driver, any context: may the lanes post more? Required. */
	bool	(*running)(const struct krdma_perf *pf);
	/* A completion failed with @status, @reason (not a flush). */
	void	(*failed)(struct krdma_perf *pf, int status, const char *reason);
	/* The driver: a post failed with @ret. Required. */
	void	(*post_failed)(struct krdma_perf *pf, int ret);
	/* pumps: @total messages of all lanes retired, under a lane's lock. */
	void	(*retired)(struct krdma_perf *pf, u64 total);
	/*
	 * pumps: every lane is done, in the session's CQ context; the test
	 * may be freed by the time it returns. Required.
	 */
	void	(*end)(struct krdma_perf *pf);
	/*
	 * Not pumping: no signaled WR of lane 0 is in flight any more, in
	 * the session's CQ context; @pf may be freed by the time it returns.
	 */
	void	(*drained)(struct krdma_perf *pf);
};

struct krdma_perf {
	struct krdma_session	*sess;
	const struct krdma_perf_ops *ops;
	/* Its owner's, for ops: the pipeline never looks into them. */
	struct krdma_test	*test;		/* driver */
	struct krdma_peer_test	*pt;		/* responder */
	bool			responder;	/* the peer's test's half */
	u32			test_id;
	u8			op;
	u64			count;		/* driver: 0, until deadline */
	ktime_t			deadline;
	/* How the engine runs the pipeline, set before it starts. */
	bool			credits;	/* paced by the peer's CREDITs */
	bool			pumps;		/* completions refill the window */
	bool			round_trips;	/* each completion is a timed one */
	bool			polls;		/* a poller thread posts and times */
	u32			size;		/* the test's: a message's data */
	u32			data_off;	/* in the buffer: krdma_perf_msg_len() */
	u32			data_len;
	u32			msg_len;
	u32			depth;
	u32			window;		/* bw: in flight on a lane */
	u32			signal_every;
	u32			chain;
	u64			rate;		/* bw: bytes/s, 0: no limit */
	u32			burst;
	u64			rate_span;	/* ns a burst of a lane is worth */
	bool			inline_data;
	struct krdma_buf	*buf;		/* what we send (bw responder: the target) */
	struct krdma_buf	*target;	/* lat write: the peer writes here */
	struct krdma_buf	*fence_sink;	/* iWARP: krdma_perf_iwarp_fence() */
	struct task_struct	*poller;	/* lat write (lat.c) */
	u64			wait_floor_ns;	/* the poller's shortest wait, lately */
	u64			landed;		/* lat write: markers seen */

	/* Sending: chain messages of per WRs each, on every lane. */
	struct krdma_perf_lane	*lanes;
	u32			nlanes;
	atomic_t		lanes_running;	/* bw: lanes not done yet */
	struct ib_cqe		end_cqe;	/* bw: a channel lane hands the end over */
	atomic64_t		retired;	/* bw: messages, all lanes */
	u32			per;
	u32			nwr;
	u32			rx_window;	/* receives the peer holds, a QP */
	bool			end_deferred;	/* lat: TEST_END after completions */

	/* Receiving: sends in bw, PONGs in lat. */
	struct krdma_perf_rx	rx;
	/*
	 * bw responder over data channels too (krdma_bw_peer_rx_count()):
	 * messages of every lane, TEST_END's count (S64_MAX before it), who
	 * ends the test, whether TEST_END waits for the channels' messages.
	 */
	bool			rx_lanes;	/* channels' receives taken */
	atomic64_t		rx_total;
	atomic64_t		rx_end;
	atomic_t		rx_end_claimed;
	bool			rx_wait;
	struct ib_cqe		rx_end_cqe;

	/* lat */
	u64			t0;
	struct krdma_hist	hist;

	u64			cpu_ns;
	bool			over;		/* krdma_perf_finish() ran */
};

/*
 * lat uses one lane, the session's QP; so does the responder, but for
 * the ops that consume its receives over several QPs: a lane a QP there.
 */
static inline struct krdma_perf_lane *krdma_perf_lane0(struct krdma_perf *pf)
{
	return &pf->lanes[0];
}

/* The lane on QP @qp (0: conn 0, or a data channel's index). */
static inline struct krdma_perf_lane *krdma_perf_lane_of(struct krdma_perf *pf,
							 u32 qp)
{
	u32 i;

	for (i = 0; i < pf->nlanes; i++) {
		if (pf->lanes[i].conn->index == qp)
			return &pf->lanes[i];
	}
	return NULL;
}

/* perf-wr.c: memory and WR templates */
struct krdma_perf *krdma_perf_alloc(struct krdma_session *sess, u8 op,
				    u32 size, u32 depth, u32 test_id, u32 qps);
u32 krdma_perf_rx_window(const struct krdma_perf *pf);
int krdma_perf_alloc_buf(struct krdma_perf *pf, struct krdma_buf **bufp,
			 u16 msg_type);
bool krdma_perf_iwarp_fences(const struct krdma_perf *pf);
int krdma_perf_alloc_fence_sink(struct krdma_perf *pf, struct krdma_buf **bufp);
int krdma_perf_alloc_sigs(struct krdma_perf *pf, u32 n);
int krdma_perf_build(struct krdma_perf *pf,
		     const struct krdma_wire_region *remote, u32 nremote,
		     void (*done)(struct ib_cq *cq, struct ib_wc *wc));
void krdma_perf_finish(struct krdma_perf *pf);
void krdma_perf_free(struct krdma_perf *pf);

/* perf-run.c: the pipeline */
bool krdma_perf_rate_fits(u64 rate, u32 burst, u32 size, u32 lanes);
void krdma_perf_rate_setup(struct krdma_perf *pf, u64 rate, u32 burst);
int krdma_perf_start(struct krdma_perf *pf, u64 count, ktime_t deadline,
		     const struct krdma_wire_region *remote, u32 nremote);
void krdma_perf_pump_lanes(struct krdma_perf *pf);
void krdma_perf_pump_lane(struct krdma_perf_lane *ln);
bool krdma_perf_more(struct krdma_perf_lane *ln);
int krdma_perf_post(struct krdma_perf_lane *ln, u32 n, bool signal_last);
void krdma_perf_sig_done(struct ib_cq *cq, struct ib_wc *wc);
void krdma_perf_sample(struct krdma_perf *pf, struct krdma_buf *buf,
		       u32 off, u32 len, bool cpu_owned);
void krdma_perf_check_rx(struct krdma_perf *pf, struct krdma_recv *rx);
bool krdma_perf_recv(struct krdma_perf *pf, struct krdma_perf_lane *ln,
		     struct krdma_recv *rx, struct ib_wc *wc,
		     const struct krdma_msg_hdr *hdr);
u64 krdma_perf_cpu_ns(const struct krdma_perf *pf);

#endif /* _KRDMA_PERF_H */
