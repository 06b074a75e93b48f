/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * krdma: what the test engines share. test.c owns tests (start, stop,
 * netlink, teardown) and runs the check mode; perf.c runs the bw and lat
 * modes on the same objects.
 */
#ifndef _KRDMA_TEST_H
#define _KRDMA_TEST_H

#include <linux/ktime.h>

#include "hostcpu.h"
#include "krdma.h"

struct krdma_perf;

/* Remote regions per slot a peer may describe. */
#define KRDMA_MAX_SLOT_REGIONS	16

/* A slot's iteration is over when its WR completed and (if needed) acked. */
#define KRDMA_SLOT_WC	BIT(0)
#define KRDMA_SLOT_ACK	BIT(1)

struct krdma_slot {
	struct ib_cqe		cqe;
	struct ib_cqe		wcqe;	/* ping responder: the write-back */
	struct krdma_buf	*buf;	/* header room, then the payload */
	struct krdma_buf	*sink;	/* ping: where the peer writes back */
	struct krdma_region	*reg;	/* what the peer may access */
	struct krdma_region	*sink_reg;
	u64			iter;
	u8			pending;	/* KRDMA_SLOT_* still awaited */
	bool			busy;
	u64			expect;	/* atomics: value the peer holds */
};

/*
 * A test of ours. The session's CQ context runs it (test.c); references:
 * the session's (sess->test and the tests table, dropped when it is
 * replaced or the session is torn down), and a handler's in that context
 * for as long as it looks at it (krdma_test_handle_recv()), so that a new
 * test started meanwhile cannot free it under the handler.
 */
struct krdma_test {
	struct kref		ref;
	u32			id;
	struct krdma_session	*sess;
	struct krdma_test_params p;
	spinlock_t		lock;	/* state, status, reason vs. readers */
	enum krdma_test_state	state;
	int			status;
	char			reason[96];

	bool			finishing;	/* krdma_test_finish() ran */
	bool			started;	/* TEST_ACK received */
	bool			ending;		/* TEST_END sent */
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
	struct ib_cqe		ctl_cqe;	/* REG_MR and LOCAL_INV */
	u32			inv_pending;

	struct delayed_work	progress_work;
	u64			progress_completed;
	unsigned long		progress_jiffies;

	struct krdma_perf	*perf;		/* bw and lat modes */
	bool			perf_final;	/* its figures are final */
	bool			stop_quiet;	/* stopped with its original: no error */
	u64			peer_cpu_ns;	/* from TEST_RESULT */
	struct krdma_host_cpu	host_start;	/* a sample at the start */
	struct krdma_host_cpu	host_use;	/* over the test, once done */
	struct krdma_host_cpu	peer_host_use;	/* from TEST_RESULT */
	u64			peer_iters;	/* bidir: the peer's mirror */
	u64			peer_bytes;
};

struct krdma_peer_test {
	struct krdma_session	*sess;
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
	bool			ending;		/* TEST_END received */
	bool			posted;		/* REG_MRs went to the QP */
	struct krdma_perf	*perf;		/* bw and lat modes */
	bool			bidir;
	u8			qps;		/* bw: the driver's QPs */
	u32			mirror_id;	/* our test that mirrors this one */
	bool			mirror_done;	/* and its figures: */
	u64			mirror_iters;
	u64			mirror_bytes;
	struct krdma_host_cpu	host_start;	/* a sample at TEST_REQ */
	bool			result_ready;	/* TEST_RESULT waits for the mirror */
	u64			mem;		/* charged to the session (limits.c) */
	bool			watched;	/* by the stall timer: */
	struct delayed_work	stall_work;
	unsigned long		stamp;		/* the driver's last sign, jiffies */
};

/* The driver of @pt moved it on (see krdma_peer_watch()). */
static inline void krdma_peer_progress(struct krdma_peer_test *pt)
{
	WRITE_ONCE(pt->stamp, jiffies);
}

static inline u64 krdma_seed(u32 test_id, u64 iter)
{
	return ((u64)test_id << 40) ^ iter ^ 0x6b72646d61ULL;
}

/* test.c, for perf.c and peer.c */
extern unsigned int krdma_stall_ms;
void krdma_test_fail(struct krdma_test *test, int status, const char *fmt, ...)
	__printf(3, 4);
void krdma_test_post_failed(struct krdma_session *sess, struct krdma_test *test,
			    u32 test_id, int ret);
void krdma_test_send_end(struct krdma_test *test);
int krdma_check_wire_regions(const struct krdma_wire_region *r, u32 n,
			     u32 depth, u32 size, u32 *per_slot);
int krdma_peer_access(u8 op);
void krdma_peer_on_end(struct krdma_session *sess, struct krdma_peer_test *pt);
void krdma_peer_send_result(struct krdma_session *sess,
			    struct krdma_peer_test *pt);

/* peer.c: what the peer's test may cost, how long it may idle */
u64 krdma_peer_test_bytes(const struct krdma_peer_test *pt);
void krdma_peer_watch(struct krdma_peer_test *pt);
void krdma_peer_unwatch(struct krdma_peer_test *pt);

/* perf.c: the bw and lat modes */
int krdma_perf_check_params(struct krdma_session *sess,
			    struct krdma_test_params *p,
			    struct netlink_ext_ack *extack);
int krdma_perf_setup(struct krdma_test *test);
void krdma_perf_start(struct krdma_test *test);
void krdma_perf_on_msg(struct krdma_test *test, struct krdma_recv *rx,
		       const struct krdma_msg_hdr *hdr);
int krdma_perf_post_regs(struct krdma_test *test, struct krdma_msg_test *req,
			 u32 *nregions);
int krdma_perf_peer_setup(struct krdma_session *sess,
			  struct krdma_peer_test *pt,
			  const struct krdma_msg_test *req, u32 body_len,
			  struct krdma_msg_test *ack, u32 *nregions);
void krdma_perf_peer_quiesce(struct krdma_peer_test *pt);
void krdma_perf_peer_on_msg(struct krdma_session *sess,
			    struct krdma_peer_test *pt, struct krdma_recv *rx,
			    struct ib_wc *wc, const struct krdma_msg_hdr *hdr);
void krdma_perf_peer_end(struct krdma_peer_test *pt);
bool krdma_perf_peer_busy(const struct krdma_peer_test *pt);
u64 krdma_perf_cpu_ns(const struct krdma_perf *pf);
void krdma_perf_finish(struct krdma_perf *pf);
int krdma_perf_fill(struct sk_buff *skb, struct krdma_test *test);
void krdma_perf_free(struct krdma_perf *pf);

#endif /* _KRDMA_TEST_H */
