/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * krdma: what the test layers share. test.c owns our tests (registry,
 * start, stop, events, teardown), peer.c the peer's tests we respond to,
 * dispatch.c hands them the session's control messages; an engine per
 * mode (struct krdma_engine_ops) moves the data: check.c and
 * check-peer.c the check mode, bw.c and lat.c the bw and lat modes over
 * the pipeline of perf.h (perf-run.c, perf-wr.c), to which perf-test.c
 * binds their tests.
 */
#ifndef _KRDMA_TEST_H
#define _KRDMA_TEST_H

#include <linux/ktime.h>

#include "hostcpu.h"
#include "conn.h"
#include "krdma.h"
#include "mem.h"

struct krdma_perf;
struct krdma_test;
struct krdma_peer_test;

/* Remote regions per slot a peer may describe. */
#define KRDMA_MAX_SLOT_REGIONS	16

/* A slot's iteration is over when its WR completed and (if needed) acked. */
#define KRDMA_SLOT_WC	BIT(0)
#define KRDMA_SLOT_ACK	BIT(1)
#define KRDMA_SLOT_READ_BACK	BIT(2)	/* test-read-back's READ */
#define KRDMA_SLOT_ZERO_READ	BIT(3)	/* test-zero-read-behind's READ */
#define KRDMA_SLOT_REG_BEHIND	BIT(4)	/* test-reg-behind's REG_MR */

struct krdma_slot {
	/* Whose slot: a completion finds its test from its own ib_cqe. */
	union {
		struct krdma_test	*test;
		struct krdma_peer_test	*pt;
	};
	struct ib_cqe		cqe;
	/*
	 * ping responder: the write-back; test-read-back: the READ;
	 * test-zero-read-behind: the READ of 0 bytes; test-reg-behind: the
	 * REG_MR
	 */
	struct ib_cqe		wcqe;
	struct krdma_buf	*buf;	/* header room, then the payload */
	/*
	 * ping: where the peer writes back; test-read-back: READ into;
	 * test-zero-read-behind: the 0-byte READ's SGE, a canary in it
	 */
	struct krdma_buf	*sink;
	struct krdma_region	*reg;	/* what the peer may access */
	struct krdma_region	*sink_reg;
	/* test-reg-behind: registered behind each SEND, never the peer's */
	struct krdma_region	*scratch;
	u64			iter;
	u8			pending;	/* KRDMA_SLOT_* still awaited */
	bool			busy;
	u64			expect;	/* atomics: value the peer holds */
};

/*
 * Where our test is. Each control message and completion that moves it
 * is taken once, in the phase that expects it (a peer's message in any
 * other is a protocol error); krdma_test_move() refuses, with a WARN,
 * any move not drawn in Documentation/design.rst ("A test's phases").
 */
enum krdma_test_phase {
	KRDMA_TP_REQ_SENT,	/* TEST_REQ out: TEST_ACK next */
	KRDMA_TP_RUNNING,	/* accepted: the engine moves the data */
	KRDMA_TP_END_SENT,	/* TEST_END out: TEST_RESULT next */
	KRDMA_TP_CLOSING,	/* our regions being invalidated */
	KRDMA_TP_FINISHED,	/* krdma_test_finish() runs: the engine's */
	KRDMA_TP_DONE,		/* figures final, its buffers gone */
};

/*
 * A test of ours. The session's CQ context runs it (test.c); references:
 * the session's (sess->test and the tests table, dropped when it is
 * replaced or the session is torn down), and a handler's in that context
 * for as long as it looks at it (krdma_dispatch_recv()), so that a new
 * test started meanwhile cannot free it under the handler.
 */
struct krdma_test {
	struct kref		ref;
	struct rcu_head		rcu;	/* sess->test's readers */
	u32			id;
	struct krdma_session	*sess;
	struct krdma_test_params p;
	const struct krdma_engine_ops *engine;
	/*
	 * Who started it, when not userspace (a bidir mirror, peer.c), hears
	 * of its end; the test may be freed by then, so it gets the figures.
	 */
	void			(*on_done)(struct krdma_session *sess,
					   u32 test_id, u64 iters, u64 bytes);
	spinlock_t		lock;	/* state, status, reason vs. readers */
	enum krdma_test_state	state;
	int			status;
	char			reason[96];
	u32			wc_status;	/* the completion that failed it */

	enum krdma_test_phase	phase;		/* krdma_test_move() */
	bool			stop;		/* userspace asked to stop */
	u64			issued;
	u64			completed;
	u64			validated;
	u64			bytes;
	u64			peer_validated;
	ktime_t			start;
	ktime_t			end;
	ktime_t			deadline;

	struct krdma_slot	*slots;
	struct krdma_wire_region *remote;	/* peer's regions, slot by slot */
	u32			remote_per_slot;
	struct ib_cqe		ctl_cqe;	/* REG_MR */
	struct ib_cqe		inv_cqe;	/* LOCAL_INV, at the end */
	u32			inv_pending;

	struct delayed_work	progress_work;
	u64			progress_completed;
	unsigned long		progress_jiffies;

	struct krdma_perf	*perf;		/* bw and lat modes */
	bool			stop_quiet;	/* stopped with its original: no error */
	u64			peer_cpu_ns;	/* from TEST_RESULT */
	struct krdma_host_cpu	host_start;	/* a sample at the start */
	struct krdma_host_cpu	host_use;	/* over the test, once done */
	struct krdma_host_cpu	peer_host_use;	/* from TEST_RESULT */
	struct krdma_host_env	peer_env;	/* from TEST_RESULT, version 4 */
	u64			peer_iters;	/* bidir: the peer's mirror */
	u64			peer_bytes;
};

/* Where the peer's test is (krdma_peer_move()), as for ours. */
enum krdma_peer_phase {
	KRDMA_PP_ACTIVE,	/* accepted: its data and TEST_END may come */
	KRDMA_PP_ENDING,	/* TEST_END came: our work in flight ends it */
	KRDMA_PP_CLOSING,	/* its regions being invalidated */
	KRDMA_PP_CLOSED,	/* invalidated: TEST_RESULT waits for the mirror */
	KRDMA_PP_BROKEN,	/* set up half way: only teardown frees it */
};

/*
 * The peer's test. The session's CQ context runs it (peer.c);
 * references: the session's (sess->peer_test, dropped when TEST_RESULT
 * goes or at teardown), and a handler's in that context for as long as
 * it looks at it (krdma_peer_on_msg(), krdma_peer_on_end()), so that
 * the TEST_RESULT that a handler sends cannot free the test under it.
 * A data channel's handler holds none: it runs under the channel's
 * rx_lock, which the engine takes to let go of the test first
 * (krdma_conn_set_rx_test()).
 */
struct krdma_peer_test {
	struct kref		ref;
	struct krdma_session	*sess;
	enum krdma_peer_phase	phase;
	const struct krdma_engine_ops *engine;
	u32			test_id;
	u8			op;
	u8			mode;
	u32			size;
	u32			depth;
	u64			count;		/* 0: until TEST_END */
	u64			next_iter;	/* in-order check of arrivals */
	u64			seen;
	u64			validated;
	u64			errors;
	struct krdma_slot	*slots;
	struct krdma_wire_region *remote;	/* ping: sources then sinks */
	u32			remote_per_slot;
	struct ib_cqe		reg_cqe;
	struct ib_cqe		inv_cqe;
	u32			inv_pending;
	u32			writes;		/* ping write-backs in flight */
	u64			end_iters;	/* from TEST_END */
	bool			posted;		/* REG_MRs went to the QP */
	struct krdma_perf	*perf;		/* bw and lat modes */
	bool			bidir;
	bool			read_back;	/* check write: grant remote read */
	bool			invalidated;	/* check: LOCAL_INV our targets */
	bool			send_inv;	/* check send: SEND_WITH_INV targets */
	bool			zero_length;	/* check: WRITEs of 0 bytes */
	bool			rnr_hold;	/* check send: our receives held */
	u8			qps;		/* bw: the driver's QPs */
	u32			mirror_id;	/* our mirror, while it runs */
	u64			mirror_iters;	/* its figures, once it is over */
	u64			mirror_bytes;
	struct krdma_host_cpu	host_start;	/* a sample at TEST_REQ */
	u64			mem;		/* charged to the session (limits.c) */
	struct delayed_work	stall_work;	/* krdma_peer_watch() */
	unsigned long		stamp;		/* the driver's last sign, jiffies */
};

/* Is @test in @phase? A peer's message is taken only in its own. */
static inline bool krdma_test_in(const struct krdma_test *test,
				 enum krdma_test_phase phase)
{
	return READ_ONCE(test->phase) == phase;
}

/* Finished, or done: no move but FINISHED's to DONE is left. */
static inline bool krdma_test_over(enum krdma_test_phase phase)
{
	return phase >= KRDMA_TP_FINISHED;
}

/* Accepted by the peer and not yet closing: its data messages may come. */
static inline bool krdma_test_accepted(const struct krdma_test *test)
{
	enum krdma_test_phase phase = READ_ONCE(test->phase);

	return phase == KRDMA_TP_RUNNING || phase == KRDMA_TP_END_SENT;
}

static inline bool krdma_peer_in(const struct krdma_peer_test *pt,
				 enum krdma_peer_phase phase)
{
	return READ_ONCE(pt->phase) == phase;
}

/* The driver of @pt moved it on (see krdma_peer_watch()). */
static inline void krdma_peer_progress(struct krdma_peer_test *pt)
{
	WRITE_ONCE(pt->stamp, jiffies);
}

/*
 * A test mode's engine: the driver's half runs our test, the responder's
 * half the peer's. test.c and peer.c own the lifecycle and call these; the
 * engine of a mode is chosen in one place, krdma_engine(). Which attributes
 * a mode takes, and its defaults, are the spec's (params.c). Optional: fill,
 * post_regs, finish, free and every peer_ hook but setup and on_msg.
 */
struct krdma_engine_ops {
	const char *name;
	bool	remote_per_slot;	/* the peer exposes a target per slot */
	bool	peer_validates;		/* the responder's checks are the test's */

	/* The driver: our test. */
	int	(*check_params)(struct krdma_session *sess,
				struct krdma_test_params *p,
				struct netlink_ext_ack *extack);
	int	(*setup)(struct krdma_test *test);
	/* Memory the peer may access, listed in the TEST_REQ @req. */
	int	(*post_regs)(struct krdma_test *test, struct krdma_msg_test *req,
			     u32 *nregions);
	void	(*start)(struct krdma_test *test);	/* TEST_ACK came */
	/* ITER_ACK, CREDIT or PONG: each engine takes those it expects. */
	void	(*on_msg)(struct krdma_test *test, struct krdma_recv *rx,
			  const struct krdma_msg_hdr *hdr);
	/* A write_imm answering our test (KRDMA_IMM_ANSWER). Optional. */
	void	(*on_imm)(struct krdma_test *test, struct krdma_recv *rx,
			  struct ib_wc *wc);
	/*
	 * TEST_RESULT came: every write of the peer's before it has landed.
	 * Optional.
	 */
	void	(*on_result)(struct krdma_test *test);
	int	(*fill)(struct sk_buff *skb, struct krdma_test *test);
	void	(*finish)(struct krdma_test *test);	/* buffers go */
	void	(*free)(struct krdma_test *test);

	/* The responder: the peer's test. */
	u64	(*peer_bytes)(const struct krdma_peer_test *pt);	/* limits.c */
	/* Does the responder see every iteration (its stall timer)? */
	bool	(*peer_watched)(const struct krdma_peer_test *pt);
	int	(*peer_setup)(struct krdma_session *sess,
			      struct krdma_peer_test *pt,
			      const struct krdma_msg_test *req, u32 body_len,
			      struct krdma_msg_test *ack, u32 *nregions);
	void	(*peer_on_msg)(struct krdma_session *sess,
			       struct krdma_peer_test *pt, struct krdma_recv *rx,
			       struct ib_wc *wc, const struct krdma_msg_hdr *hdr);
	/*
	 * DATA (@hdr checked: type, length, test id), or a write_imm (@hdr
	 * NULL) on data channel @conn, whose receives the engine gave @pt
	 * (krdma_conn_set_rx_test()): in the channel's CQ context, under
	 * its rx_lock. Optional.
	 */
	void	(*peer_on_channel_msg)(struct krdma_conn *conn,
				       struct krdma_peer_test *pt,
				       struct krdma_recv *rx, struct ib_wc *wc,
				       const struct krdma_msg_hdr *hdr);
	/* TEST_END came: may it (false: a protocol error), stop sending. */
	bool	(*peer_may_end)(const struct krdma_peer_test *pt);
	void	(*peer_quiesce)(struct krdma_peer_test *pt);
	/* Work in flight whose completion calls krdma_peer_on_end(). */
	bool	(*peer_busy)(const struct krdma_peer_test *pt);
	void	(*peer_end)(struct krdma_peer_test *pt);	/* check the data */
	u64	(*peer_cpu_ns)(const struct krdma_peer_test *pt);
	void	(*peer_free)(struct krdma_peer_test *pt);
};

/* check.c, bw.c, lat.c */
extern const struct krdma_engine_ops krdma_check_engine;
extern const struct krdma_engine_ops krdma_bw_engine;
extern const struct krdma_engine_ops krdma_lat_engine;

/*
 * check mode: every op but the atomics costs the peer a receive each
 * iteration (the data, its NOTIFY or immediate, a RELEASE, a PING), so the
 * peer counts them; the bw and lat pipeline's ops that consume receives
 * are krdma_op_peer_recvs()'s.
 */
static inline bool krdma_op_uses_recv(u8 op)
{
	return !krdma_op_is_atomic(op);
}

/* test.c: our tests, for the engines, peer.c and dispatch.c */
extern unsigned int krdma_stall_ms;
void krdma_engine_register(u8 mode, const struct krdma_engine_ops *ops);
const struct krdma_engine_ops *krdma_engine(u8 mode);
void krdma_test_fail(struct krdma_test *test, int status, const char *fmt, ...)
	__printf(3, 4);
void krdma_test_post_failed(struct krdma_session *sess, struct krdma_test *test,
			    u32 test_id, int ret);
bool krdma_test_move(struct krdma_test *test, enum krdma_test_phase to);
void krdma_test_send_end(struct krdma_test *test);
int krdma_check_wire_regions(const struct krdma_wire_region *r, u32 n,
			     u32 depth, u32 size, u32 max_per, u32 *per_slot);
void krdma_slots_free(struct krdma_slot *slots, u32 n);
int krdma_test_start_locked(struct krdma_session *sess,
			    struct krdma_test_params *p,
			    void (*on_done)(struct krdma_session *sess,
					    u32 test_id, u64 iters, u64 bytes),
			    u32 *test_id, struct netlink_ext_ack *extack);
struct krdma_test *krdma_test_get_current(struct krdma_session *sess);
void krdma_test_put(struct krdma_test *test);
void krdma_test_on_ack(struct krdma_test *test, const struct krdma_msg_hdr *hdr,
		       const struct krdma_msg_test *body, u32 body_len);
void krdma_test_on_result(struct krdma_test *test,
			  const struct krdma_msg_hdr *hdr,
			  const struct krdma_msg_result *body, u32 len);
void krdma_test_session_down(struct krdma_session *sess);

/* params.c: a test's parameters, for test.c, peer.c and netlink */
int krdma_test_attrs_check(struct nlattr **tb, u8 mode,
			   struct netlink_ext_ack *extack);
void krdma_test_params_defaults(struct krdma_test_params *p);
int krdma_test_params_check(const struct krdma_test_params *p,
			    struct netlink_ext_ack *extack);

/* peer.c: the peer's tests */
void krdma_peer_on_req(struct krdma_session *sess,
		       const struct krdma_msg_hdr *hdr,
		       const struct krdma_msg_test *req, u32 body_len);
void krdma_peer_on_msg(struct krdma_session *sess, struct krdma_recv *rx,
		       struct ib_wc *wc, const struct krdma_msg_hdr *hdr);
bool krdma_peer_move(struct krdma_peer_test *pt, enum krdma_peer_phase to);
struct krdma_peer_test *krdma_peer_get_current(struct krdma_session *sess);
void krdma_peer_put(struct krdma_peer_test *pt);
void krdma_peer_on_end(struct krdma_session *sess, struct krdma_peer_test *pt);
void krdma_peer_session_down(struct krdma_session *sess);

#endif /* _KRDMA_TEST_H */
