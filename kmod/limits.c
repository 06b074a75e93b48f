// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: what a peer may make this host spend. Anybody who reaches a
 * listener opens sessions, and the peer of any session asks for tests,
 * whose memory the responder allocates and pins: the number of server
 * sessions, the memory peers ask for and the threads that poll for their
 * lat write tests are capped here, per listener or session and in all
 * (what a peer's test asks for: krdma_peer_test_bytes() in peer.c, with
 * the time it may leave the responder waiting).
 *
 * What a peer has made us pin is charged to its session as it is asked
 * for, before it is allocated: a server session's receive and control
 * buffers and its first QP and CQ at its CONNECT_REQUEST, a data
 * channel's QP and CQ when it connects, the buffers of the peer's test at
 * its TEST_REQ. The charge goes when the memory does.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <rdma/ib_verbs.h>

#include "conn.h"
#include "krdma.h"

static unsigned int krdma_max_sessions = 256;
module_param_named(max_sessions, krdma_max_sessions, uint, 0644);
MODULE_PARM_DESC(max_sessions,
		 "Most server sessions of all listeners together (connecting, up or closing)");

static unsigned int krdma_max_listener_sessions = 128;
module_param_named(max_listener_sessions, krdma_max_listener_sessions, uint, 0644);
MODULE_PARM_DESC(max_listener_sessions, "Most server sessions of one listener");

/*
 * The client picks the queue sizes of both sides, and the driver of a
 * test its depth and size: without a cap, anybody who reaches a listener
 * makes it pin 4096 receives of 8 MiB, or a ping of 126 slots of 8 MiB.
 */
static unsigned int krdma_max_session_mem_mb = 256;
module_param_named(max_session_mem_mb, krdma_max_session_mem_mb, uint, 0644);
MODULE_PARM_DESC(max_session_mem_mb,
		 "Most memory the peer of a session may make it pin (receive buffers, the peer's test), in MiB");

static unsigned int krdma_max_mem_mb;
module_param_named(max_mem_mb, krdma_max_mem_mb, uint, 0644);
MODULE_PARM_DESC(max_mem_mb,
		 "Most memory the peers of all sessions together may make this host pin, in MiB (0: a quarter of the RAM)");

/*
 * A peer's lat write test has a thread of ours poll our target for its
 * writes for as long as the test runs (lat.c): while the driver writes, a
 * CPU (on an HCA it only spins), and while it is silent, until stall_ms
 * ends it, a wake-up a millisecond. Without a cap, anybody who reaches a
 * listener has max_sessions (256) of them run. 16: more lat write tests
 * at once than a host has CPUs to give them measure the scheduler, not
 * the wire, and 16 leaves a test host room for its own. A fixed number,
 * not one per CPU, so that a test behaves the same on any host.
 */
static unsigned int krdma_max_responder_pollers = 16;
module_param_named(max_responder_pollers, krdma_max_responder_pollers, uint, 0644);
MODULE_PARM_DESC(max_responder_pollers,
		 "Most lat write tests of peers this host responds to at once, each with a thread polling for the peer's writes");

/**
 * krdma_buf_bytes() - what a buffer pins
 * @len: its length
 *
 * The memory one buffer of @len bytes pins (alloc_pages_exact()).
 *
 * Return: bytes, whole pages.
 */
u64 krdma_buf_bytes(u32 len)
{
	return PAGE_ALIGN((u64)max_t(u32, len, 1));
}

/*
 * No verb says what a QP or CQ costs the provider, and the client picks
 * the depths of ours (to 4096 slots, 16 QPs): the charge is an estimate,
 * rxe's sizing in 6.1 (rxe_queue_init()) with room for others'. A work
 * queue is a ring of one more entry than asked, so that full is told
 * from empty, rounded up to a power of two, of entries of at least a
 * cache line, rounded up to a power of two too (rxe; mlx4/5's basic
 * blocks and rings are powers of two as well). A send entry is the
 * provider's header (rxe's struct rxe_send_wqe: 208 bytes) and the larger
 * of its SGEs and inline data; a receive entry its header (rxe: 40) and
 * its SGEs; a CQE a struct ib_wc (rxe's struct rxe_cqe holds one: 72
 * bytes, 128 in the ring; mlx5's: 64 or 128). Each ring costs a page
 * more (rxe's vmalloc_user() of a header and the ring), each QP
 * KRDMA_EST_QP_FIXED (the provider's and the CM's state, the responder's
 * resources), each CQ a page (ib_alloc_cq()'s batch of completions).
 * rxe with 16 SGEs and 256 bytes inline: a send queue of 4096 is 8192
 * entries of 512 bytes, 4 MiB, as estimated.
 */
#define KRDMA_EST_SEND_WQE_HDR	256
#define KRDMA_EST_RECV_WQE_HDR	64
#define KRDMA_EST_MIN_ENTRY	64
#define KRDMA_EST_QP_FIXED	(16 << 10)

static u64 krdma_ring_bytes(u32 entries, u32 entry_size)
{
	u64 slots = roundup_pow_of_two((u64)entries + 1);
	u64 size = roundup_pow_of_two(max_t(u32, entry_size,
					    KRDMA_EST_MIN_ENTRY));

	return PAGE_ALIGN(slots * size) + PAGE_SIZE;
}

/**
 * krdma_qp_est_bytes() - what a QP costs its provider, estimated
 * @send_wr: its send queue's depth
 * @send_sge: SGEs per send WR
 * @max_inline: inline bytes per send WR
 * @recv_wr: its receive queue's depth
 * @recv_sge: SGEs per receive WR
 *
 * What a QP of these capabilities costs its provider, at most.
 *
 * Return: bytes.
 */
u64 krdma_qp_est_bytes(u32 send_wr, u32 send_sge, u32 max_inline,
		       u32 recv_wr, u32 recv_sge)
{
	u32 send = KRDMA_EST_SEND_WQE_HDR +
		   max_t(u32, send_sge * sizeof(struct ib_sge), max_inline);
	u32 recv = KRDMA_EST_RECV_WQE_HDR + recv_sge * sizeof(struct ib_sge);

	return KRDMA_EST_QP_FIXED + krdma_ring_bytes(send_wr, send) +
	       krdma_ring_bytes(recv_wr, recv);
}

/**
 * krdma_cq_est_bytes() - what a CQ costs, estimated
 * @nr_cqe: its entries
 *
 * What a CQ of @nr_cqe entries costs its provider and the core, at most.
 *
 * Return: bytes.
 */
u64 krdma_cq_est_bytes(u32 nr_cqe)
{
	return krdma_ring_bytes(nr_cqe, sizeof(struct ib_wc)) + PAGE_SIZE;
}

/**
 * krdma_session_queues_bytes() - what a server session's conn 0 queues cost
 * @sq_depth: the session's send queue depth, as the client asked
 * @rq_depth: its receive queue depth, as asked
 * @qps: its QPs in all
 *
 * A server session's first QP and CQ of @qps QPs in all, as
 * krdma_conn_create_queues() asks for conn 0's (its SGEs and inline data
 * at most; the same sizes, krdma.h), before its depths are clamped to
 * the device's.
 *
 * Return: bytes, estimated.
 */
u64 krdma_session_queues_bytes(u32 sq_depth, u32 rq_depth, u32 qps)
{
	u32 send_wrs = krdma_session_nr_send_wrs(sq_depth, qps);
	u32 recvs = krdma_session_nr_recvs(rq_depth, qps) + 1;

	return krdma_qp_est_bytes(send_wrs, KRDMA_SGE_DEFAULT, KRDMA_MAX_INLINE,
				  recvs, KRDMA_RECV_MAX_SGE) +
	       krdma_cq_est_bytes(send_wrs + recvs);
}

/**
 * krdma_channel_queues_bytes() - what a data channel's queues cost
 * @sq_depth: the session's send queue depth
 * @nr_recvs: the receives the channel keeps posted
 *
 * A data channel's QP and CQ, as krdma_conn_create_queues() asks for
 * them, @nr_recvs being krdma_channel_nr_recvs().
 *
 * Return: bytes, estimated.
 */
u64 krdma_channel_queues_bytes(u32 sq_depth, u32 nr_recvs)
{
	return krdma_qp_est_bytes(sq_depth + 1, KRDMA_SGE_DEFAULT,
				  KRDMA_MAX_INLINE, nr_recvs + 1,
				  KRDMA_RECV_MAX_SGE) +
	       krdma_cq_est_bytes(sq_depth + nr_recvs + 4);
}

static u64 krdma_max_mem_bytes(void)
{
	u64 mb = READ_ONCE(krdma_max_mem_mb);

	if (!mb)
		return ((u64)totalram_pages() << PAGE_SHIFT) / 4;
	return mb << 20;
}

/**
 * krdma_session_mem_fits() - may a session's peer make us pin this much?
 * @bytes: all the peer would have pinned
 *
 * Return: whether @bytes is within max_session_mem_mb.
 */
bool krdma_session_mem_fits(u64 bytes)
{
	return bytes <= (u64)READ_ONCE(krdma_max_session_mem_mb) << 20;
}

/**
 * krdma_sessions_admit() - may one more server session be made?
 * @listener_sessions: the server sessions of its listener
 *
 * May one more server session be made, @listener_sessions being those of
 * its listener? Called with the session table locked, which also keeps
 * the count of all of them (krdma_server_sessions_add()) from moving.
 *
 * Context: krdma_sessions_lock held.
 * Return: 0, -EMLINK at max_listener_sessions, -EUSERS at max_sessions.
 */
int krdma_sessions_admit(u32 listener_sessions)
{
	if (listener_sessions >= READ_ONCE(krdma_max_listener_sessions))
		return -EMLINK;
	if (atomic_read(&krdma_global_stats.server_sessions) >=
	    READ_ONCE(krdma_max_sessions))
		return -EUSERS;
	return 0;
}

/**
 * krdma_server_sessions_add() - counts server sessions made or freed
 * @n: how many more (or, negative, fewer)
 *
 * Context: krdma_sessions_lock held.
 */
void krdma_server_sessions_add(int n)
{
	int now = atomic_add_return(n, &krdma_global_stats.server_sessions);

	krdma_stats_peak32(&krdma_global_stats.server_sessions_peak, now);
}

/**
 * krdma_mem_charge() - charges what a session's peer makes us pin
 * @sess: the session
 * @bytes: what the peer asks for
 *
 * Charges @bytes that the peer of @sess asks us to pin; nothing is
 * charged on failure. A session charges from its CQ (the peer's tests)
 * while a data channel's CM handler charges its queues, and sessions
 * charge concurrently: each sum is taken first and given back if it went
 * over.
 *
 * Return: 0, -EDQUOT over the session's cap, -ENOBUFS over the cap of
 * all sessions.
 */
int krdma_mem_charge(struct krdma_session *sess, u64 bytes)
{
	s64 mine, total;

	mine = atomic64_add_return(bytes, &sess->stats.peer_mem);
	if (!krdma_session_mem_fits(mine)) {
		atomic64_sub(bytes, &sess->stats.peer_mem);
		return -EDQUOT;
	}
	total = atomic64_add_return(bytes, &krdma_global_stats.peer_mem);
	if (total > krdma_max_mem_bytes()) {
		atomic64_sub(bytes, &krdma_global_stats.peer_mem);
		atomic64_sub(bytes, &sess->stats.peer_mem);
		return -ENOBUFS;
	}
	krdma_stats_peak(&krdma_global_stats.peer_mem_peak, total);
	krdma_stats_peak(&sess->stats.peer_mem_peak, mine);
	return 0;
}

/**
 * krdma_responder_poller_get() - room for one more responder's poller
 * @max: set to max_responder_pollers, for the refusal's message
 *
 * Never over the cap, even for a moment: the gauge that stats report
 * stays within it. krdma_responder_poller_put() gives it back.
 *
 * Return: 0, or -EUSERS at max_responder_pollers.
 */
int krdma_responder_poller_get(unsigned int *max)
{
	atomic_t *n = &krdma_global_stats.responder_pollers;
	int old = atomic_read(n);

	*max = READ_ONCE(krdma_max_responder_pollers);
	do {
		if ((unsigned int)old >= *max)
			return -EUSERS;
	} while (!atomic_try_cmpxchg(n, &old, old + 1));
	return 0;
}

/**
 * krdma_responder_poller_put() - a responder's poller is gone
 */
void krdma_responder_poller_put(void)
{
	atomic_dec(&krdma_global_stats.responder_pollers);
}

/**
 * krdma_mem_uncharge() - gives back what krdma_mem_charge() charged
 * @sess: the session charged
 * @bytes: as much as was charged, now freed
 */
void krdma_mem_uncharge(struct krdma_session *sess, u64 bytes)
{
	if (!bytes)
		return;
	atomic64_sub(bytes, &sess->stats.peer_mem);
	atomic64_sub(bytes, &krdma_global_stats.peer_mem);
}
