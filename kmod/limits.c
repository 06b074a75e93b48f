// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: what a peer may make this host spend. Anybody who reaches a
 * listener opens sessions, and the peer of any session asks for tests,
 * whose memory the responder allocates and pins: the number of server
 * sessions and the memory peers ask for are capped here, per listener or
 * session and in all; and so is the time the peer's test may leave the
 * responder waiting (krdma_peer_watch()).
 *
 * What a peer has made us pin is charged to its session as it is asked
 * for, before it is allocated: a server session's receive and control
 * buffers at its CONNECT_REQUEST, the buffers of the peer's test at its
 * TEST_REQ. The charge goes when the memory does.
 */
#include <linux/mm.h>
#include <linux/module.h>

#include "test.h"

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

/* The memory one buffer of @len bytes pins (alloc_pages_exact()). */
u64 krdma_buf_bytes(u32 len)
{
	return PAGE_ALIGN((u64)max_t(u32, len, 1));
}

static u64 krdma_max_mem_bytes(void)
{
	u64 mb = READ_ONCE(krdma_max_mem_mb);

	if (!mb)
		return ((u64)totalram_pages() << PAGE_SHIFT) / 4;
	return mb << 20;
}

bool krdma_session_mem_fits(u64 bytes)
{
	return bytes <= (u64)READ_ONCE(krdma_max_session_mem_mb) << 20;
}

/*
 * May one more server session be made, @listener_sessions being those of
 * its listener? Called with the session table locked, which also keeps
 * the count of all of them (krdma_server_sessions_add()) from moving.
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

/* Under the session table's lock: @n server sessions more (or fewer). */
void krdma_server_sessions_add(int n)
{
	int now = atomic_add_return(n, &krdma_global_stats.server_sessions);

	krdma_stats_peak32(&krdma_global_stats.server_sessions_peak, now);
}

/*
 * Charges @bytes that the peer of @sess asks us to pin. Returns -EDQUOT
 * over the session's cap, -ENOBUFS over the cap of all sessions; nothing
 * is charged then. A session's charges come from one context at a time
 * (its CM handler, then its CQ); sessions charge concurrently, so the
 * module-wide sum is taken first and given back if it went over.
 */
int krdma_mem_charge(struct krdma_session *sess, u64 bytes)
{
	s64 total;

	if (!krdma_session_mem_fits(atomic64_read(&sess->stats.peer_mem) + bytes))
		return -EDQUOT;
	total = atomic64_add_return(bytes, &krdma_global_stats.peer_mem);
	if (total > krdma_max_mem_bytes()) {
		atomic64_sub(bytes, &krdma_global_stats.peer_mem);
		return -ENOBUFS;
	}
	krdma_stats_peak(&krdma_global_stats.peer_mem_peak, total);
	krdma_stats_peak(&sess->stats.peer_mem_peak,
			 atomic64_add_return(bytes, &sess->stats.peer_mem));
	return 0;
}

void krdma_mem_uncharge(struct krdma_session *sess, u64 bytes)
{
	if (!bytes)
		return;
	atomic64_sub(bytes, &sess->stats.peer_mem);
	atomic64_sub(bytes, &krdma_global_stats.peer_mem);
}

/*
 * The buffers the responder of @pt allocates (krdma_peer_setup(),
 * krdma_perf_peer_setup()) and, for bidir, those of our mirror test
 * (krdma_perf_setup()): checked parameters make this a bound.
 */
u64 krdma_peer_test_bytes(const struct krdma_peer_test *pt)
{
	bool send = pt->op == KRDMA_OP_SEND || pt->op == KRDMA_OP_SEND_IMM;
	u32 len = krdma_op_data_len(pt->op, pt->size);
	u64 bytes;

	switch (pt->mode) {
	case KRDMA_MODE_CHECK:
		/* Sends land in the receive buffers; a slot is header and data. */
		return send ? 0 : pt->depth *
			krdma_buf_bytes(KRDMA_MSG_HDR_SIZE + len);
	case KRDMA_MODE_LAT:
		/* send: the PONG, header and data; write: target and answer. */
		return send ? krdma_buf_bytes(KRDMA_MSG_HDR_SIZE + len) :
			2 * krdma_buf_bytes(len);
	default:
		/* bw: the target of the one-sided ops, nothing for sends. */
		bytes = send ? 0 : krdma_buf_bytes(len);
		if (pt->bidir)
			bytes += krdma_buf_bytes((send ? KRDMA_MSG_HDR_SIZE : 0) + len);
		return bytes;
	}
}

/*
 * The responder's stall timer. A peer that starts a test and then sends
 * nothing more leaves the responder waiting with the test's memory
 * pinned and, for a lat write, a thread polling its target: the test is
 * watched while the responder expects the driver to act, and a test the
 * driver leaves idle for stall_ms closes the session, as the driver's
 * own timer does on the other side (test.c, krdma_test_progress()). The
 * one-sided ops of bw and the atomics are not watched: the responder does
 * not see them (their memory stays within the caps above, and a dead
 * driver is the keepalive's to find).
 */
static bool krdma_peer_watched(const struct krdma_peer_test *pt)
{
	switch (pt->mode) {
	case KRDMA_MODE_CHECK:
		return !krdma_op_is_atomic(pt->op);
	case KRDMA_MODE_LAT:
		return true;	/* a PONG or a write back per iteration */
	default:
		/* bw: the ops that consume our receives. */
		return pt->op == KRDMA_OP_SEND || pt->op == KRDMA_OP_SEND_IMM ||
		       pt->op == KRDMA_OP_WRITE_IMM;
	}
}

static void krdma_peer_stall_work(struct work_struct *work)
{
	struct krdma_peer_test *pt = container_of(to_delayed_work(work),
						  struct krdma_peer_test,
						  stall_work);
	unsigned int ms = READ_ONCE(krdma_stall_ms);
	unsigned long idle = jiffies - READ_ONCE(pt->stamp);

	/* TEST_END came: what is left is ours to do. */
	if (READ_ONCE(pt->ending) || !ms)
		return;
	if (idle < msecs_to_jiffies(ms)) {
		queue_delayed_work(krdma_wq, &pt->stall_work,
				   msecs_to_jiffies(ms) - idle);
		return;
	}
	krdma_count(pt->sess, KRDMA_CNT_RESPONDER_TIMEOUTS, 1);
	krdma_session_close(pt->sess, "peer's test %u stalled for %u ms",
			    pt->test_id, jiffies_to_msecs(idle));
}

/* @pt was accepted: from now on the driver must keep it going. */
void krdma_peer_watch(struct krdma_peer_test *pt)
{
	unsigned int ms = READ_ONCE(krdma_stall_ms);

	if (!ms || !krdma_peer_watched(pt))
		return;
	INIT_DELAYED_WORK(&pt->stall_work, krdma_peer_stall_work);
	pt->watched = true;
	krdma_peer_progress(pt);
	queue_delayed_work(krdma_wq, &pt->stall_work, msecs_to_jiffies(ms));
}

/* Before @pt is freed; the timer only ever closes the session. */
void krdma_peer_unwatch(struct krdma_peer_test *pt)
{
	if (pt->watched)
		cancel_delayed_work_sync(&pt->stall_work);
}
