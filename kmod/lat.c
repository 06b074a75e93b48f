// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: the latency (lat) mode's engine, over the pipeline (perf.h).
 *
 * One message at a time, each round trip timed with ktime_get_ns() into
 * the test's histogram (histogram.c). A send is answered by a PONG, in
 * the CQ context. A write is perftest's write_lat: each side has a target
 * the other writes into, and a kernel thread per side polls the last byte
 * of its target for the iteration's marker, then writes back (the
 * responder) or times it (the driver). Both count half the round trip,
 * the one-way latency. A write_imm is the same exchange without
 * pollers: each write's immediate wakes the other side's CQ handler,
 * which writes back (the responder) or times it (the driver) - how a
 * kernel ULP learns of a write (rtrs answers its I/O so). A READ or an
 * atomic is a round trip by itself, with nothing for the responder's CPU
 * to do (perftest's read_lat and atomic_lat, krping's rlat): the bw
 * pipeline with a window of one, every message signaled, its whole round
 * trip recorded from the driver's completion.
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "perf-test.h"

/* write, write_imm: each side has a target the other writes into. */
static bool krdma_lat_writes(u8 op)
{
	return op == KRDMA_OP_WRITE || op == KRDMA_OP_WRITE_IMM;
}

/* How the pipeline runs a lat test, on either side. */
static void krdma_lat_flags(struct krdma_perf *pf)
{
	pf->pumps = krdma_op_is_one_sided(pf->op);
	pf->round_trips = pf->pumps;
	pf->polls = pf->op == KRDMA_OP_WRITE;
}

static int krdma_lat_check_params(struct krdma_session *sess,
				  struct krdma_test_params *p,
				  struct netlink_ext_ack *extack)
{
	/* Sends in flight, signaled or not, before their PONGs. */
	int ret = krdma_perf_check_params(sess, p, 2 * p->signal_every, extack);

	if (ret)
		return ret;
	if (p->op != KRDMA_OP_SEND && !krdma_lat_writes(p->op) &&
	    !krdma_op_is_one_sided(p->op)) {
		NL_SET_ERR_MSG(extack,
			       "lat mode measures send, write, write_imm, read and the atomics");
		return -EOPNOTSUPP;
	}
	if (p->depth != 1) {
		NL_SET_ERR_MSG(extack, "lat mode runs one message at a time: depth must be 1");
		return -EINVAL;
	}
	return 0;
}

/* lat write: the last byte of iteration i's message; never 0. */
static u8 krdma_lat_marker(u64 iter)
{
	return (u8)(iter % 255) + 1;
}

/*
 * lat write: the zeroed buffer the peer writes into, and its region. The
 * poller watches its last byte, so it starts as no marker (0).
 */
static int krdma_lat_alloc_target(struct krdma_perf *pf, struct krdma_buf **bufp,
				  struct krdma_region **regp)
{
	struct krdma_region *reg;

	*bufp = krdma_buf_alloc(pf->sess->kdev, pf->size, "perf_target", 0);
	if (!*bufp)
		return -ENOMEM;
	pf->target = *bufp;
	krdma_buf_to_device(pf->target);
	reg = krdma_region_create(pf->sess->kdev, pf->target, 0, pf->size,
				  IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE);
	if (IS_ERR(reg))
		return PTR_ERR(reg);
	*regp = reg;
	if (reg->nmrs > KRDMA_MAX_SLOT_REGIONS)
		return -E2BIG;
	return 0;
}

static int krdma_lat_setup(struct krdma_test *test)
{
	struct krdma_perf *pf = krdma_perf_test_setup(test, krdma_lat_flags);
	int ret;

	if (IS_ERR(pf))
		return PTR_ERR(pf);
	/* A one-sided round trip ends at its own completion. */
	if (pf->round_trips)
		pf->signal_every = 1;
	if (krdma_lat_writes(pf->op)) {
		ret = krdma_lat_alloc_target(pf, &test->slots[0].sink,
					     &test->slots[0].sink_reg);
		if (ret)
			return ret;
	}
	ret = krdma_perf_alloc_sigs(pf, KRDMA_PERF_LAT_SIGS);
	if (ret)
		return ret;
	return krdma_hist_init(&pf->hist);
}

/*
 * lat: the lane sends no more. An unsignaled message is not over when
 * the peer has answered it: its ACK may have been lost, and the transport
 * sends it again from our buffer, which the test's end unmaps. So a
 * signaled WR must cover every message, and the test ends only once
 * sig_pending is back to 0. If the last message went unsignaled, a
 * zero-length RDMA WRITE follows it, signaled: it touches no memory on
 * either side (no rkey is checked, IBA C9-88) and, an RC send queue
 * completing in order, completes after every message before it.
 */
static int krdma_lat_fence(struct krdma_perf_lane *ln)
{
	struct ib_rdma_wr wr = {};
	struct krdma_perf_sig *sig;
	int ret;

	if (ln->sig_upto == ln->posted)
		return 0;
	sig = &ln->sig[ln->sig_next % ln->nsig];
	if (READ_ONCE(sig->busy))
		return -EOVERFLOW;
	sig->msg = ln->posted - 1;
	WRITE_ONCE(sig->busy, true);
	atomic_inc(&ln->sig_pending);
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.wr.wr_cqe = &sig->cqe;
	ret = krdma_conn_post_send(ln->conn, &wr.wr);
	if (ret) {
		WRITE_ONCE(sig->busy, false);
		atomic_dec(&ln->sig_pending);
		return ret;
	}
	ln->sig_next++;
	ln->sig_upto = ln->posted;
	return 0;
}

/* lat: the next round trip. */
static void krdma_lat_ping(struct krdma_perf *pf)
{
	int ret;

	pf->t0 = ktime_get_ns();
	ret = krdma_perf_post(krdma_perf_lane0(pf), 1, false);
	if (ret)
		krdma_test_post_failed(pf->sess, pf->test, pf->test_id, ret);
}

/*
 * lat write: one turn of a poller's wait. It polls with the CPU, yielding
 * every 64 turns so that rxe and everything else on this CPU still run.
 */
static void krdma_lat_relax(unsigned int *spins)
{
	if (++*spins % 64)
		cpu_relax();
	else
		cond_resched();
}

/*
 * lat write: how a poller waits for the peer's write. On an HCA the write
 * lands within a few microseconds, and spinning is the fastest wait there
 * is. Where the round trip is software's (rxe, siw), and more so on a
 * guest whose vCPUs share host CPUs, a spinning CPU takes the time of the
 * very work it waits for - rxe's packet processing, the other guest, the
 * emulated wire: on two TCG guests of 2 vCPUs, write's p50 was 3.4 times
 * send's, whose responder answers from its completion handler and sleeps.
 * And every wake-up of a napping vCPU costs as much again (naps of 100 us
 * halved that, no more). So, as blk-mq's hybrid polling sleeps before it
 * polls, a poller sleeps through most of the wait it expects - three
 * quarters of its shortest wait of late - in one go, spins
 * KRDMA_LAT_SPIN_NS, and only then naps between looks. Where waits are
 * shorter than the spin (an HCA), it only spins.
 *
 * Not the median wait: a wait is measured to the end of our sleep, so on
 * a loaded host, where a sleep ends late, most waits exceed an estimated
 * median, the estimate climbs, the sleep with it: write's p50 was 6.5x
 * send's in the same run (2.6x with the shortest wait, in another). The
 * shortest wait rises only slowly.
 */
#define KRDMA_LAT_SPIN_NS	(20 * NSEC_PER_USEC)
/* A sleep is not interrupted: the test's end waits for it. */
#define KRDMA_LAT_DOZE_MAX_NS	(20 * NSEC_PER_MSEC)
/*
 * A nap: 1/8 of the shortest wait, within these bounds. A median wait is
 * about twice the shortest on TCG; naps of 1/32 woke the vCPU 30 times in
 * it, and each wake-up took from rxe again.
 */
#define KRDMA_LAT_NAP_MIN_US	5
#define KRDMA_LAT_NAP_MAX_US	200
/*
 * A driver that writes nothing (a hostile one, or one that is gone)
 * leaves the responder's poller waiting until stall_ms closes the session,
 * 30 s: napping 5 us, it woke up to 200,000 times a second meanwhile
 * (3,000 on a TCG guest, whose timers are slow), each a CPU's, and any
 * peer may have as many pollers as max_responder_pollers. So a poller that has
 * waited far longer than any round trip it has seen - KRDMA_LAT_IDLE_FLOORS
 * times its shortest wait, and KRDMA_LAT_IDLE_NS at least, which a running
 * test's round trip does not take even on TCG - backs off: its naps grow
 * by a sixteenth of the time waited past that, up to
 * KRDMA_LAT_NAP_IDLE_MAX_NS. A write that comes after all is answered
 * late by that nap: the driver's first sample, if its start took the
 * responder past KRDMA_LAT_IDLE_NS, or a round trip that stalled anyway.
 */
#define KRDMA_LAT_IDLE_NS		(1 * NSEC_PER_MSEC)
#define KRDMA_LAT_IDLE_FLOORS		8
#define KRDMA_LAT_NAP_IDLE_MAX_NS	(1 * NSEC_PER_MSEC)

static void krdma_lat_sleep_ns(u64 ns)
{
	unsigned long us = div_u64(ns, NSEC_PER_USEC);

	usleep_range(us, us + us / 8);
}

/*
 * The shortest wait of late: it follows a shorter wait at once and a
 * longer one by a sixteenth a wait, so a path that got slower is learnt
 * and one early arrival does not count for ever.
 */
static void krdma_lat_note_wait(struct krdma_perf *pf, u64 ns)
{
	u64 floor = pf->wait_floor_ns;

	pf->wait_floor_ns = floor ? min(ns, floor + floor / 16) : ns;
}

/* The nap after @waited ns, @nap while the wait is not far past the usual. */
static u64 krdma_lat_nap_ns(const struct krdma_perf *pf, u64 waited, u64 nap)
{
	u64 idle = max_t(u64, KRDMA_LAT_IDLE_NS,
			 KRDMA_LAT_IDLE_FLOORS * pf->wait_floor_ns);

	if (waited <= idle)
		return nap;
	return min_t(u64, nap + (waited - idle) / 16,
		     max_t(u64, nap, KRDMA_LAT_NAP_IDLE_MAX_NS));
}

/*
 * lat write: waits for iteration @iter's marker in the last byte of our
 * target.
 */
static bool krdma_lat_poll_marker(struct krdma_perf *pf, u64 iter)
{
	u8 want = krdma_lat_marker(iter);
	u64 start = ktime_get_ns(), waited = 0;
	u64 doze = min_t(u64, pf->wait_floor_ns / 4 * 3, KRDMA_LAT_DOZE_MAX_NS);
	u64 nap = clamp_t(u64, pf->wait_floor_ns / 8,
			  KRDMA_LAT_NAP_MIN_US * NSEC_PER_USEC,
			  KRDMA_LAT_NAP_MAX_US * NSEC_PER_USEC);
	unsigned int spins = 0;

	while (krdma_buf_peek_byte(pf->target, pf->size - 1) != want) {
		if (kthread_should_stop() || krdma_session_gate_closed(pf->sess) ||
		    (pf->test && (READ_ONCE(pf->test->stop) ||
				  READ_ONCE(pf->test->status))))
			return false;
		if (waited + KRDMA_LAT_SPIN_NS < doze)
			krdma_lat_sleep_ns(doze - waited);
		else if (waited < doze + KRDMA_LAT_SPIN_NS)
			krdma_lat_relax(&spins);
		else
			krdma_lat_sleep_ns(krdma_lat_nap_ns(pf, waited, nap));
		waited = ktime_get_ns() - start;
	}
	/* The responder's first wait includes the driver's start. */
	if (iter)
		krdma_lat_note_wait(pf, waited);
	return true;
}

/*
 * lat write, krdma/lat_tail_first_ms: the message's last byte, the
 * marker, is written on its own first, and the whole message that many
 * ms later - a placement no HCA is bound to avoid, made certain, so that
 * a test shows that a marker is never taken for its body.
 */
static int krdma_lat_post_tail(struct krdma_perf *pf)
{
	const struct ib_rdma_wr *last = &krdma_perf_lane0(pf)->wr[pf->per - 1].rdma;
	const struct ib_sge *tail = &last->wr.sg_list[last->wr.num_sge - 1];
	struct ib_sge sge = {
		.addr	= tail->addr + tail->length - 1,
		.length	= 1,
		.lkey	= tail->lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.opcode		= IB_WR_RDMA_WRITE,
			.sg_list	= &sge,
			.num_sge	= 1,
			.wr_cqe		= &pf->sess->unsignaled_cqe,
		},
		.rkey		= last->rkey,
		.remote_addr	= last->remote_addr - 1,
	};
	int i, ret;

	for (i = 0; i < last->wr.num_sge; i++)
		wr.remote_addr += last->wr.sg_list[i].length;
	ret = krdma_post_send(pf->sess, &wr.wr);
	if (!ret)
		msleep(krdma_fault_lat_tail_first_ms());
	return ret;
}

/* lat write: sends iteration @iter's message, its marker last. */
static int krdma_lat_write_iter(struct krdma_perf *pf, u64 iter)
{
	int ret;

	u8 marker = krdma_lat_marker(iter);
	unsigned int spins = 0;

	if (!pf->inline_data) {
		/* The last write must be done with our buffer first. */
		while (atomic_read(&krdma_perf_lane0(pf)->sig_pending)) {
			if (kthread_should_stop() || krdma_session_gate_closed(pf->sess))
				return -ENOTCONN;
			krdma_lat_relax(&spins);
		}
		krdma_buf_to_cpu(pf->buf);
	}
	krdma_buf_copy_from(pf->buf, pf->size - 1, &marker, 1);
	if (!pf->inline_data)
		krdma_buf_to_device(pf->buf);
	if (!pf->inline_data && krdma_fault_lat_tail_first_ms()) {
		ret = krdma_lat_post_tail(pf);
		if (ret)
			return ret;
	}
	/* An inline write needs a completion only to free its WQE. */
	return krdma_perf_post(krdma_perf_lane0(pf), 1, !pf->inline_data);
}

/*
 * lat write: what the peer wrote into our target, all but the marker.
 * The marker says that iteration i has come, and times it; it does not
 * say that the rest of it has landed. Nothing orders a message's
 * placement before the completion its writer sees (mlx5 places kernel
 * FRWR writes with PCIe Relaxed Ordering where the function allows it),
 * so the body may land after the last byte. Every iteration writes the
 * same pattern: iteration i's body is checked when iteration i + 1's
 * marker lands (its writer posted it once write i had completed), and
 * the last one's when a message has come that the completion orders -
 * the TEST_END on the responder, the TEST_RESULT on the driver: a
 * receive completes after every write before it on the QP
 * (krdma_lat_check_last()).
 */
static void krdma_lat_check_landed(struct krdma_perf *pf)
{
	if (pf->landed++)
		krdma_perf_sample(pf, pf->target, 0, pf->size - 1, false);
}

/* An ordered message came: the last marker's iteration has landed whole. */
static void krdma_lat_check_last(struct krdma_perf *pf)
{
	if (pf->polls && pf->rx.received < pf->landed)
		krdma_perf_sample(pf, pf->target, 0, pf->size - 1, false);
}

/*
 * lat write, both sides. The driver writes iteration i and waits for its
 * marker to come back; the responder waits for it and writes it back.
 * The driver ends by sending TEST_END itself (never finishing the test
 * here: krdma_test_finish() stops this thread); the responder is stopped
 * when TEST_END comes.
 */
static int krdma_lat_poller(void *arg)
{
	struct krdma_perf *pf = arg;
	struct krdma_test *test = pf->test;
	u64 iter = 0, t0, start = local_clock();
	int ret = 0;

	while (!kthread_should_stop() && !ret) {
		if (!test) {
			if (!krdma_lat_poll_marker(pf, iter))
				break;
			/* The stall timer stops us if the driver stops (limits.c). */
			krdma_peer_progress(pf->pt);
			krdma_lat_check_landed(pf);
			ret = krdma_lat_write_iter(pf, iter++);
			continue;
		}
		if (!krdma_perf_more(krdma_perf_lane0(pf)))
			break;
		t0 = ktime_get_ns();
		ret = krdma_lat_write_iter(pf, iter);
		if (ret || !krdma_lat_poll_marker(pf, iter))
			break;
		krdma_hist_record(&pf->hist, (ktime_get_ns() - t0) / 2);
		krdma_lat_check_landed(pf);
		iter++;
		WRITE_ONCE(test->completed, iter);
		WRITE_ONCE(test->bytes, iter * pf->size);
		WRITE_ONCE(test->validated, pf->rx.checked - pf->rx.bad);
	}
	if (test && pf->rx.bad)
		krdma_test_fail(test, -EBADMSG, "written data differs from the pattern");
	/* Stopped in the middle of an iteration: the test is ending anyway. */
	if (ret && !kthread_should_stop()) {
		krdma_test_post_failed(pf->sess, test, pf->test_id, ret);
	} else if (test && !kthread_should_stop() && !krdma_session_gate_closed(pf->sess)) {
		/* Our buffers go with the test: our writes must be done. */
		while (atomic_read(&krdma_perf_lane0(pf)->sig_pending) &&
		       !kthread_should_stop())
			schedule_timeout_interruptible(1);
		if (krdma_test_move(test, KRDMA_TP_END_SENT) &&
		    krdma_ctrl_send(pf->sess, KRDMA_MSG_TEST_END, test->id, iter,
				    0, NULL, 0))
			krdma_session_close(pf->sess, "cannot send TEST_END");
	}
	WRITE_ONCE(pf->cpu_ns, pf->cpu_ns + local_clock() - start);
	/* kthread_stop() wants us alive until it comes. */
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

static int krdma_lat_start_poller(struct krdma_perf *pf)
{
	struct task_struct *t;

	t = krdma_failable_ptr(kthread_create(krdma_lat_poller, pf, "krdma_lat/%u",
					      pf->test_id));
	if (IS_ERR(t))
		return PTR_ERR(t);
	pf->poller = t;
	wake_up_process(t);
	return 0;
}

static void krdma_lat_stop_poller(struct krdma_perf *pf)
{
	if (pf && pf->poller) {
		kthread_stop(pf->poller);
		pf->poller = NULL;
	}
}

/* The TEST_ACK came: the first round trip, or the poller that runs them. */
static void krdma_lat_start(struct krdma_test *test)
{
	struct krdma_perf *pf = test->perf;
	u64 t0 = local_clock();
	int ret;

	ret = krdma_perf_test_start(test);
	if (!ret && pf->polls)
		ret = krdma_lat_start_poller(pf);
	if (ret) {
		krdma_perf_test_start_failed(test, ret);
		return;
	}
	if (pf->polls)
		return;
	if (pf->pumps)
		krdma_perf_pump_lanes(pf);
	else
		krdma_lat_ping(pf);
	pf->cpu_ns += local_clock() - t0;
}

/* Is the answer to our last ping due? Anything else is the peer's error. */
static bool krdma_lat_answer_due(struct krdma_test *test)
{
	struct krdma_perf *pf = test->perf;

	return pf && krdma_test_in(test, KRDMA_TP_RUNNING) &&
	       pf->rx.received < krdma_perf_lane0(pf)->posted;
}

/*
 * The answer to the last ping came and was sampled: the next ping, or the
 * end. @what: the answer, for the reason of a validation failure.
 */
static void krdma_lat_answered(struct krdma_test *test, struct krdma_recv *rx,
			       const char *what)
{
	struct krdma_perf *pf = test->perf;
	int ret;

	if (krdma_recv_repost(rx)) {
		krdma_session_close(pf->sess, "cannot repost receive");
		return;
	}
	WRITE_ONCE(test->completed, pf->rx.received);
	WRITE_ONCE(test->bytes, pf->rx.received * pf->size);
	WRITE_ONCE(test->validated, pf->rx.checked - pf->rx.bad);
	if (pf->rx.bad)
		krdma_test_fail(test, -EBADMSG, "%s data differs from the pattern",
				what);
	if (krdma_perf_more(krdma_perf_lane0(pf))) {
		krdma_lat_ping(pf);
	} else {
		/* Its buffers go with the test: wait for our sends. */
		ret = krdma_lat_fence(krdma_perf_lane0(pf));
		if (ret)
			krdma_test_post_failed(pf->sess, test, test->id, ret);
		else if (atomic_read(&krdma_perf_lane0(pf)->sig_pending))
			pf->end_deferred = true;
		else
			krdma_test_send_end(test);
	}
}

/* PONG, for the driver; nothing else. */
static void krdma_lat_on_msg(struct krdma_test *test, struct krdma_recv *rx,
			     const struct krdma_msg_hdr *hdr)
{
	struct krdma_perf *pf = test->perf;
	u16 type = be16_to_cpu(hdr->type);
	u64 t1 = ktime_get_ns(), t0 = local_clock();

	if (!krdma_lat_answer_due(test) || type != KRDMA_MSG_PONG ||
	    be32_to_cpu(hdr->len) != pf->size) {
		krdma_perf_test_unexpected(test, type);
		return;
	}
	krdma_hist_record(&pf->hist, (t1 - pf->t0) / 2);
	krdma_perf_check_rx(pf, rx);
	krdma_lat_answered(test, rx, "PONG");
	pf->cpu_ns += local_clock() - t0;
}

/* lat write_imm: the peer's answer landed in our target. */
static void krdma_lat_on_imm(struct krdma_test *test, struct krdma_recv *rx,
			     struct ib_wc *wc)
{
	struct krdma_perf *pf = test->perf;
	u64 t1 = ktime_get_ns(), t0 = local_clock();

	if (!krdma_lat_answer_due(test) || pf->op != KRDMA_OP_WRITE_IMM) {
		krdma_count(test->sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
		krdma_session_close(test->sess,
				    "protocol error: unexpected write_imm answer for test %u",
				    test->id);
		return;
	}
	krdma_hist_record(&pf->hist, (t1 - pf->t0) / 2);
	krdma_perf_sample(pf, pf->target, 0, pf->size, false);
	krdma_lat_answered(test, rx, "written");
	pf->cpu_ns += local_clock() - t0;
}

static int krdma_lat_fill(struct sk_buff *skb, struct krdma_test *test)
{
	if (!test->perf)
		return 0;
	if (krdma_perf_test_fill(skb, test))
		return -EMSGSIZE;
	return krdma_hist_fill(skb, &test->perf->hist, KRDMA_A_TEST_LAT);
}

/* The poller is ours: it stops before the pipeline's memory goes. */
/*
 * TEST_RESULT came, after the peer's last write back: the driver's
 * poller has sent TEST_END and does nothing more.
 */
static void krdma_lat_on_result(struct krdma_test *test)
{
	struct krdma_perf *pf = test->perf;
	u64 bad;

	if (!pf || !pf->polls)
		return;
	bad = pf->rx.bad;
	krdma_lat_check_last(pf);
	WRITE_ONCE(test->validated, pf->rx.checked - pf->rx.bad);
	if (pf->rx.bad > bad)
		krdma_test_fail(test, -EBADMSG, "written data differs from the pattern");
}

static void krdma_lat_finish(struct krdma_test *test)
{
	krdma_lat_stop_poller(test->perf);
	krdma_perf_test_finish(test);
}

static void krdma_lat_free(struct krdma_test *test)
{
	krdma_lat_stop_poller(test->perf);
	krdma_perf_test_free(test);
}

/*
 * A peer's lat write: one of max_responder_pollers for its poller, taken
 * before anything of the test is allocated and held for as long as
 * pf->polls says (krdma_lat_flags()), or a refusal that the driver
 * reports as such (-EUSERS in the TEST_ACK).
 */
static int krdma_lat_poller_admit(struct krdma_session *sess,
				  struct krdma_peer_test *pt)
{
	unsigned int max;

	if (!krdma_responder_poller_get(&max))
		return 0;
	krdma_count(sess, KRDMA_CNT_POLLERS_REFUSED, 1);
	pr_info_ratelimited("krdma: session %u: refused the peer's lat write test %u: over max_responder_pollers (%u)\n",
			    sess->id, pt->test_id, max);
	return -EUSERS;
}

/*
 * The responder's side: the PONG template (send), the target and the
 * answer of a write (which the poller posts) or a write_imm, or the target
 * of a READ or an atomic.
 */
static int krdma_lat_peer_setup(struct krdma_session *sess,
				struct krdma_peer_test *pt,
				const struct krdma_msg_test *req, u32 body_len,
				struct krdma_msg_test *ack, u32 *nregions)
{
	bool writes = krdma_lat_writes(pt->op);
	u32 nreq = be32_to_cpu(req->nregions);
	int access = krdma_op(pt->op)->peer_access;
	struct krdma_perf *pf;
	struct krdma_slot *slot;
	int ret;

	if (pt->op != KRDMA_OP_SEND && !writes && !krdma_op_is_one_sided(pt->op))
		return -EOPNOTSUPP;
	if (krdma_op_is_send(pt->op) && pt->size > sess->max_msg_size)
		return -EMSGSIZE;
	/* Only a write comes with a region: the driver's target. */
	if (writes) {
		if (nreq > (body_len - sizeof(*req)) / sizeof(req->regions[0]) ||
		    krdma_check_wire_regions(req->regions, nreq, 1, pt->size,
					     KRDMA_MAX_SLOT_REGIONS,
					     &pt->remote_per_slot))
			return -EPROTO;
		pt->remote = krdma_failable(kmemdup(req->regions,
						    nreq * sizeof(req->regions[0]),
						    GFP_KERNEL));
		if (!pt->remote)
			return -ENOMEM;
	} else if (nreq) {
		return -EPROTO;
	}
	pf = krdma_perf_peer_alloc(sess, pt);
	if (!pf)
		return -ENOMEM;
	if (pt->op == KRDMA_OP_WRITE) {
		ret = krdma_lat_poller_admit(sess, pt);
		if (ret)
			return ret;
	}
	krdma_lat_flags(pf);
	slot = &pt->slots[0];

	if (pt->op == KRDMA_OP_SEND) {
		ret = krdma_perf_alloc_buf(pf, &slot->buf, KRDMA_MSG_PONG);
		if (!ret)
			ret = krdma_perf_alloc_sigs(pf, KRDMA_PERF_LAT_SIGS);
		if (!ret)
			ret = krdma_perf_build(pf, NULL, 0, krdma_perf_sig_done);
		if (!ret && KRDMA_PERF_LAT_SIGS + KRDMA_PERF_CTRL_WRS > sess->sq_depth)
			ret = -ENOSPC;
		return ret;
	}
	if (!writes) {
		ret = krdma_perf_peer_target(pf, access);
		return ret ?: krdma_perf_peer_publish(pf, access, ack, nregions);
	}
	/* slot->buf is where the driver writes, slot->sink our answer. */
	ret = krdma_lat_alloc_target(pf, &slot->buf, &slot->reg);
	if (!ret)
		ret = krdma_perf_alloc_buf(pf, &slot->sink, 0);
	if (!ret)
		ret = krdma_perf_alloc_sigs(pf, KRDMA_PERF_LAT_SIGS);
	if (!ret)
		ret = krdma_perf_build(pf, pt->remote, pt->remote_per_slot,
				       krdma_perf_sig_done);
	if (!ret && KRDMA_PERF_LAT_SIGS + KRDMA_PERF_CTRL_WRS > sess->sq_depth)
		ret = -ENOSPC;
	if (!ret)
		ret = krdma_perf_peer_publish(pf, access, ack, nregions);
	/* Started last: on failure before this, nothing runs. */
	return ret || !pf->polls ? ret : krdma_lat_start_poller(pf);
}

/*
 * DATA, a send: answered with a PONG. A write_imm (@hdr NULL), whose data
 * krdma_perf_peer_recv() sampled in our target: answered with a write_imm.
 */
static void krdma_lat_peer_on_msg(struct krdma_session *sess,
				  struct krdma_peer_test *pt, struct krdma_recv *rx,
				  struct ib_wc *wc, const struct krdma_msg_hdr *hdr)
{
	struct krdma_perf *pf = pt->perf;
	u64 t0 = local_clock();
	int ret;

	if (!krdma_perf_peer_recv(sess, pt, rx, wc, hdr))
		return;
	ret = krdma_perf_post(krdma_perf_lane0(pf), 1, false);
	if (ret)
		krdma_session_close(sess, "lat: cannot post its answer: %d", ret);
	pf->cpu_ns += local_clock() - t0;
}

/*
 * TEST_END came: a lat write's poller has nothing more to answer, and
 * whatever we answered is covered by a signaled WR (krdma_lat_fence()):
 * the test ends once krdma_lat_peer_busy() says no more.
 */
static void krdma_lat_peer_quiesce(struct krdma_peer_test *pt)
{
	struct krdma_perf *pf = pt->perf;
	int ret;

	if (!pf)
		return;
	krdma_lat_stop_poller(pf);
	krdma_lat_check_last(pf);
	ret = krdma_lat_fence(krdma_perf_lane0(pf));
	if (ret)
		krdma_session_close(pf->sess, "test %u: cannot fence its answers: %pe",
				    pt->test_id, ERR_PTR(ret));
}

/* Work of the responder still to complete before TEST_END may proceed. */
static bool krdma_lat_peer_busy(const struct krdma_peer_test *pt)
{
	return pt->perf && atomic_read(&krdma_perf_lane0(pt->perf)->sig_pending);
}

static void krdma_lat_peer_free(struct krdma_peer_test *pt)
{
	krdma_lat_stop_poller(pt->perf);
	if (pt->perf && pt->perf->polls)
		krdma_responder_poller_put();
	krdma_perf_peer_free(pt);
}

/* lat: a send's PONG, header and data; a write's target and answer. */
static u64 krdma_lat_peer_bytes(const struct krdma_peer_test *pt)
{
	u64 buf = krdma_buf_bytes(krdma_perf_msg_len(pt->op, pt->size));

	return krdma_op_is_send(pt->op) ? buf : 2 * buf;
}

/* lat: a PONG or a write back per iteration. */
static bool krdma_lat_peer_watched(const struct krdma_peer_test *pt)
{
	return true;
}

const struct krdma_engine_ops krdma_lat_engine = {
	.name		= "lat",
	.peer_validates	= true,
	.check_params	= krdma_lat_check_params,
	.setup		= krdma_lat_setup,
	.post_regs	= krdma_perf_test_post_regs,
	.start		= krdma_lat_start,
	.on_msg		= krdma_lat_on_msg,
	.on_imm		= krdma_lat_on_imm,
	.on_result	= krdma_lat_on_result,
	.fill		= krdma_lat_fill,
	.finish		= krdma_lat_finish,
	.free		= krdma_lat_free,
	.peer_bytes	= krdma_lat_peer_bytes,
	.peer_watched	= krdma_lat_peer_watched,
	.peer_setup	= krdma_lat_peer_setup,
	.peer_on_msg	= krdma_lat_peer_on_msg,
	.peer_quiesce	= krdma_lat_peer_quiesce,
	.peer_busy	= krdma_lat_peer_busy,
	.peer_end	= krdma_perf_peer_end,
	.peer_cpu_ns	= krdma_perf_peer_cpu_ns,
	.peer_free	= krdma_lat_peer_free,
};
