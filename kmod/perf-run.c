// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: the pipeline of the bw and lat engines (perf.h), which posts a
 * test's messages and retires their completions; what they mean to the
 * test - its figures, its failure, its end - it hands to the test's owner
 * (struct krdma_perf_ops, perf-test.c).
 *
 * A lane keeps up to its window of messages in flight (READs: up to
 * read_window_kb) and posts them in chains of up to chain messages per
 * ib_post_send(). Only one message in signal_every (and at least one a
 * MiB) asks for a completion, plus the last one of every burst so that
 * the pipeline never waits on unsignaled work: an RC send queue completes
 * in order, so one completion retires every message before it. Every
 * message carries the same pattern; the receiving side checks it, sampled
 * as sends arrive and once at the end for the RDMA ops. Ops that consume
 * the peer's receives are paced by the peer's credits when the engine says
 * so (credits), and by a rate when the user gives one (the rate limiter).
 *
 * Several QPs: each QP is a lane - the session's own QP and its data
 * channels (conns.c); on iWARP the data channels alone
 * (krdma_perf_iwarp_ctrl_clear(), perf-wr.c) - with its own WR templates,
 * signals and window, and its share of a count. A lane is pumped by its
 * own completions, in its own CQ's context, under its lock; the lane that
 * finishes last has the owner end the test in the session's CQ context
 * (krdma_perf_lane_done()). The peer's regions are registered on the
 * first QP and valid on all, being the protection domain's.
 *
 * The rest runs in the session's CQ context, like check mode, which owns
 * the test objects. The time spent in the handlers (and the lat engine's
 * pollers) is the test's CPU time.
 */
#include <linux/hrtimer.h>
#include <linux/math64.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "perf.h"

/* Received sends checked: one in this many (and the first). */
#define KRDMA_PERF_SAMPLE	64
/*
 * A data channel's handler runs under its rx_lock, and in a softirq with
 * cq_poll softirq: a sample there is checked this much at a time, never
 * sleeping. Every message of a test carries the same pattern, so each
 * sample of a lane checks the next window of it: a lane sampled
 * size / 64 KiB times has had every byte of its messages checked.
 */
#define KRDMA_PERF_ATOMIC_CHECK	SZ_64K

static void krdma_perf_lane_done(struct krdma_perf_lane *ln);

/* @n messages of pf->per WRs each (a send's and an atomic's: one). */
static void krdma_perf_count(struct krdma_perf *pf, u32 n)
{
	const struct krdma_op_info *op = krdma_op(pf->op);

	krdma_count(pf->sess, op->wr_counter, n * pf->per);
	if (op->byte_counter != KRDMA_CNT_MAX)
		krdma_count(pf->sess, op->byte_counter, (u64)n * pf->size);
}

/**
 * krdma_perf_post() - posts a lane's next messages, in one ib_post_send()
 * @ln: the lane; its messages posted .. posted + @n - 1 go
 * @n: how many, chain at most
 * @signal_last: the last one asks for a completion (every signal_every-th
 *	does anyway)
 *
 * Return: 0, -EOVERFLOW if no signal slot is free, or the post's error.
 */
int krdma_perf_post(struct krdma_perf_lane *ln, u32 n, bool signal_last)
{
	struct krdma_perf *pf = ln->pf;
	struct ib_send_wr *last, *next;
	u64 sig_upto = 0;
	u32 m;
	int ret;

	for (m = 0; m < n; m++) {
		struct ib_send_wr *w = &ln->wr[(m + 1) * pf->per - 1].send;
		u64 msg = ln->posted + m;
		struct krdma_perf_sig *sig;

		if ((msg + 1) % pf->signal_every && !(signal_last && m + 1 == n)) {
			w->wr_cqe = &pf->sess->unsignaled_cqe;
			w->send_flags &= ~IB_SEND_SIGNALED;
			continue;
		}
		sig = &ln->sig[ln->sig_next % ln->nsig];
		/* bw: depth bounds it; lat: send completions precede answers. */
		if (READ_ONCE(sig->busy))
			return -EOVERFLOW;
		ln->sig_next++;
		WRITE_ONCE(sig->busy, true);
		sig->msg = msg;
		atomic_inc(&ln->sig_pending);
		w->wr_cqe = &sig->cqe;
		w->send_flags |= IB_SEND_SIGNALED;
		sig_upto = msg + 1;
	}
	last = &ln->wr[n * pf->per - 1].send;
	next = last->next;
	last->next = NULL;
	ret = krdma_conn_post_send(ln->conn, &ln->wr[0].send);
	last->next = next;
	if (ret)
		return ret;
	ln->posted += n;
	if (sig_upto)
		ln->sig_upto = sig_upto;
	/* The keepalive shares conn 0 only (krdma_reads_begin()). */
	if (pf->op == KRDMA_OP_READ && !ln->conn->index)
		krdma_reads_begin(pf->sess, n);
	krdma_perf_count(pf, n);
	return 0;
}

static void krdma_perf_wc_error(struct krdma_perf *pf, struct ib_wc *wc)
{
	if (pf->ops->failed && wc->status != IB_WC_WR_FLUSH_ERR)
		pf->ops->failed(pf, -EIO, ib_wc_status_msg(wc->status));
	krdma_wc_error(pf->sess, wc, "perf");
}

/*
 * Counts a message received in @buf into @in and checks one in
 * KRDMA_PERF_SAMPLE (and the first): [off, off + len) against the test's
 * pattern, into its checked and bad - in @atomic context, a window of it
 * (KRDMA_PERF_ATOMIC_CHECK). @buf is the CPU's when @cpu_owned, else it
 * is borrowed from the device.
 */
static void krdma_perf_sample_to(struct krdma_perf *pf,
				 struct krdma_perf_rx *in, struct krdma_buf *buf,
				 u32 off, u32 len, bool cpu_owned, bool atomic)
{
	u64 seed = krdma_seed(pf->test_id, 0);
	u32 window, from;
	bool ok;

	if (in->received++ % KRDMA_PERF_SAMPLE)
		return;
	in->checked++;
	if (!cpu_owned)
		krdma_buf_to_cpu(buf);
	if (atomic) {
		div_u64_rem(in->checked - 1,
			    DIV_ROUND_UP(len, KRDMA_PERF_ATOMIC_CHECK), &window);
		from = window * KRDMA_PERF_ATOMIC_CHECK;
		ok = krdma_pattern_check_part(buf, off, from,
					      min_t(u32, len - from,
						    KRDMA_PERF_ATOMIC_CHECK),
					      seed);
	} else {
		ok = krdma_pattern_check(buf, off, len, seed);
	}
	if (!cpu_owned)
		krdma_buf_to_device(buf);
	if (ok)
		return;
	in->bad++;
	krdma_count(pf->sess, KRDMA_CNT_VALIDATION_ERRORS, 1);
}

/**
 * krdma_perf_sample() - counts a message that arrived on the session's QP
 * @pf: the pipeline
 * @buf: where it landed
 * @off: its data, from here
 * @len: this long
 * @cpu_owned: @buf is the CPU's; else it is borrowed from the device
 *
 * One in KRDMA_PERF_SAMPLE (and the first) is checked against the test's
 * pattern, into pf->rx.checked and pf->rx.bad.
 */
void krdma_perf_sample(struct krdma_perf *pf, struct krdma_buf *buf,
		       u32 off, u32 len, bool cpu_owned)
{
	krdma_perf_sample_to(pf, &pf->rx, buf, off, len, cpu_owned, false);
}

/**
 * krdma_perf_check_rx() - counts a received send, as krdma_perf_sample()
 * @pf: the pipeline
 * @rx: its receive: our header first, then the data
 */
void krdma_perf_check_rx(struct krdma_perf *pf, struct krdma_recv *rx)
{
	krdma_perf_sample(pf, rx->buf, pf->data_off, pf->data_len, true);
}

/**
 * krdma_perf_more() - whether a lane of the driver may post more messages
 * @ln: the lane
 *
 * Not once the owner stopped or failed (&krdma_perf_ops.running), nor past
 * the lane's share of a count or, with no count, past the deadline.
 *
 * Return: true if @ln may post another message.
 */
bool krdma_perf_more(struct krdma_perf_lane *ln)
{
	struct krdma_perf *pf = ln->pf;

	if (!pf->ops->running(pf))
		return false;
	if (pf->count)
		return ln->posted < ln->quota;
	return ktime_before(ktime_get(), pf->deadline);
}

/*
 * The rate limiter (bw, with a rate): perftest's software rate limiter. A
 * lane posts a burst of up to burst messages, then waits until its share
 * of the rate (each lane an equal one) has paid for them. rate_next, when
 * the lane may post again, runs ahead of the clock by what it posted. A
 * lane that fell behind - a late timer, a window full of messages the
 * peer is slow to take - catches up by one burst at most: the average
 * holds, and no flood follows a stall. A lane held back is pumped by its
 * timer (krdma_perf_rate_timer()).
 *
 * The longest a burst may be worth: longer, the sender would sit idle past
 * what a "test stop" should take, and toward the peer's stall timer
 * (stall_ms).
 */
#define KRDMA_PERF_RATE_SPAN_NS	NSEC_PER_SEC

/* What @n messages of @size on each of @lanes lanes are worth at @rate, ns. */
static u64 krdma_perf_rate_ns(u64 rate, u32 n, u32 size, u32 lanes)
{
	return mul_u64_u64_div_u64((u64)n * size * lanes, NSEC_PER_SEC, rate);
}

/**
 * krdma_perf_rate_fits() - whether a rate's burst is worth a second at most
 * @rate: bytes a second, over all lanes; 0: no limit, which fits
 * @burst: messages a lane posts at once
 * @size: a message's
 * @lanes: the QPs the test spreads its messages over
 *
 * Return: true if the rate limiter takes it.
 */
bool krdma_perf_rate_fits(u64 rate, u32 burst, u32 size, u32 lanes)
{
	return !rate || krdma_perf_rate_ns(rate, burst, size, lanes) <=
			KRDMA_PERF_RATE_SPAN_NS;
}

/**
 * krdma_perf_rate_setup() - the rate the driver's lanes send at
 * @pf: the driver's pipeline, its lanes made
 * @rate: bytes a second, over all lanes; 0: no limit
 * @burst: messages a lane posts at once
 */
void krdma_perf_rate_setup(struct krdma_perf *pf, u64 rate, u32 burst)
{
	pf->rate = rate;
	pf->burst = burst;
	if (rate)
		pf->rate_span = krdma_perf_rate_ns(rate, burst, pf->size,
						   pf->nlanes);
}

/*
 * bw, rate: whether @ln may post now, @room held to a burst if so. If not,
 * the timer pumps it once the budget allows - or at the deadline, which
 * ends a timed test then, not a burst later. Completions may pump it
 * before: the timer is rearmed, never doubled.
 */
static bool krdma_perf_rate_allows(struct krdma_perf_lane *ln, u64 *room)
{
	struct krdma_perf *pf = ln->pf;
	u64 at = ln->rate_next;

	if (ktime_get_ns() >= at) {
		*room = min_t(u64, *room, pf->burst);
		return true;
	}
	if (!pf->count)
		at = min_t(u64, at, ktime_to_ns(pf->deadline));
	hrtimer_start(&ln->rate_timer, ns_to_ktime(at), HRTIMER_MODE_ABS_SOFT);
	return false;
}

/* bw, rate: @n messages went out; @ln catches up by a burst at most. */
static void krdma_perf_rate_charge(struct krdma_perf_lane *ln, u32 n)
{
	struct krdma_perf *pf = ln->pf;
	u64 now = ktime_get_ns();

	if (now > pf->rate_span)
		ln->rate_next = max(ln->rate_next, now - pf->rate_span);
	ln->rate_next += krdma_perf_rate_ns(pf->rate, n, pf->size, pf->nlanes);
}

/*
 * bw: fills the lane's window, in chains; the burst's last message is
 * signaled. Returns true once, when the lane has nothing more to do.
 */
static bool krdma_perf_pump(struct krdma_perf_lane *ln)
{
	struct krdma_perf *pf = ln->pf;
	u64 room, posted = ln->posted;
	int ret = 0;

	lockdep_assert_held(&ln->lock);
	if (ln->done)
		return false;
	if (!krdma_perf_more(ln)) {
		ln->done = ln->retired == ln->posted;
		return ln->done;
	}
	room = pf->window - (ln->posted - ln->retired);
	if (pf->credits)
		room = min(room, ln->granted + pf->rx_window - ln->posted);
	if (pf->count)
		room = min(room, ln->quota - ln->posted);
	if (pf->rate && room && !krdma_perf_rate_allows(ln, &room))
		return false;
	while (room && !ret) {
		u32 n = min_t(u64, room, pf->chain);

		room -= n;
		/* A window of one message: its round trip starts here. */
		if (pf->round_trips)
			pf->t0 = ktime_get_ns();
		ret = krdma_perf_post(ln, n, !room);
	}
	if (pf->rate && ln->posted != posted)
		krdma_perf_rate_charge(ln, ln->posted - posted);
	if (ret)
		pf->ops->post_failed(pf, ret);
	return false;
}

/* bw: the session's CQ context takes over the end from a channel lane. */
static void krdma_perf_end_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_perf *pf = container_of(wc->wr_cqe, struct krdma_perf,
					     end_cqe);

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		krdma_perf_wc_error(pf, wc);
		return;
	}
	krdma_peer_acked(pf->sess);
	pf->ops->end(pf);
}

static void krdma_perf_fence_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_perf_lane *ln =
		container_of(wc->wr_cqe, struct krdma_perf_lane, fence_cqe);

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		krdma_perf_wc_error(ln->pf, wc);
		return;
	}
	krdma_peer_alive(ln->pf->sess);
	krdma_perf_lane_done(ln);
}

/*
 * iWARP completes an RDMA WRITE once the transport has it, not once the
 * peer has placed it (IB completes it on the ACK). A data channel's
 * WRITEs and the TEST_END sent after them on the session's QP travel on
 * different connections: the peer could invalidate its regions under
 * WRITEs still on their way (siw: a QP access error at the peer, the
 * session lost at the end of a bidir test over 4 QPs). A READ after them
 * completes only once they are placed: a READ is answered after the
 * WRITEs before it on its connection. Returns true if the lane is done
 * only when that READ completes.
 *
 * One byte, not zero: siw (6.1) answers a READ that waited in its
 * inbound queue - the peer's own lane busy on the connection, as in
 * bidir - with the length and source of the WQE it sent before, if the
 * READ asked for nothing (siw_activate_tx() leaves the SGE as it was);
 * the 64 KiB response to a zero-length READ was a "local length error"
 * here and a TERMINATE there. So the peer's target is readable on
 * iWARP (krdma_bw_peer_setup(), bw.c).
 */
static bool krdma_perf_iwarp_fence(struct krdma_perf_lane *ln)
{
	struct krdma_perf *pf = ln->pf;
	struct krdma_session *sess = pf->sess;
	struct ib_rdma_wr wr = {};

	if (ln->fenced || !ln->conn->index || !ln->posted ||
	    !krdma_perf_iwarp_fences(pf))
		return false;
	ln->fenced = true;
	if (WARN_ON_ONCE(krdma_buf_read_sges(pf->fence_sink, ln - pf->lanes, 1,
					     sess->kdev->pd->local_dma_lkey,
					     &ln->fence_sge, 1) != 1))
		return false;
	ln->fence_cqe.done = krdma_perf_fence_done;
	wr.wr.wr_cqe = &ln->fence_cqe;
	wr.wr.opcode = IB_WR_RDMA_READ;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.wr.sg_list = &ln->fence_sge;
	wr.wr.num_sge = 1;
	wr.remote_addr = ln->wr[0].rdma.remote_addr;
	wr.rkey = ln->wr[0].rdma.rkey;
	/* Refused: the channel is going down, and the session with it. */
	return !krdma_conn_post_send(ln->conn, &wr.wr);
}

/*
 * bw: @ln has nothing more to do; the last lane done ends the test. The
 * session's CQ context owns the test (test.c): its end, the owner's
 * (&krdma_perf_ops.end: the READ data checked, TEST_END, the test
 * finished if TEST_END cannot go), runs there, serialized with the
 * test's messages and the peer's test, and may sleep. The first QP's
 * lane is in that context already (@in_sess_cq), unless its rate timer
 * ran it. Another (a data channel's lane in its own CQ's context, maybe
 * a softirq; a rate timer) hands the end over with a zero-length RDMA
 * WRITE on the session's QP, signaled: it touches no memory on either
 * side (IBA C9-88), and its completion runs the end there. Once it is
 * posted, the test may end and be freed at any time: nothing of it is
 * touched here after.
 */
static void __krdma_perf_lane_done(struct krdma_perf_lane *ln, bool in_sess_cq)
{
	struct krdma_perf *pf = ln->pf;
	struct ib_rdma_wr wr = {};
	int ret;

	if (!ln->end_ns)
		ln->end_ns = ktime_get_ns();
	if (krdma_perf_iwarp_fence(ln))
		return;
	if (!atomic_dec_and_test(&pf->lanes_running))
		return;
	if (in_sess_cq) {
		pf->ops->end(pf);
		return;
	}
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.wr.wr_cqe = &pf->end_cqe;
	ret = krdma_post_send(pf->sess, &wr.wr);
	if (ret)
		pf->ops->post_failed(pf, ret);
}

static void krdma_perf_lane_done(struct krdma_perf_lane *ln)
{
	__krdma_perf_lane_done(ln, !ln->conn->index);
}

/*
 * bw, rate: the lane's next burst is due (or the deadline came). A soft
 * hrtimer: the pump posts under spin_lock_bh(), which a hardirq may not
 * take, and a softirq may post as the data channels' CQs do.
 * krdma_perf_finish() cancels it before the lane goes.
 */
static enum hrtimer_restart krdma_perf_rate_timer(struct hrtimer *timer)
{
	struct krdma_perf_lane *ln = container_of(timer, struct krdma_perf_lane,
						  rate_timer);
	u64 t0 = local_clock();
	bool done;

	spin_lock_bh(&ln->lock);
	done = krdma_perf_pump(ln);
	spin_unlock_bh(&ln->lock);
	WRITE_ONCE(ln->cpu_ns, ln->cpu_ns + local_clock() - t0);
	if (done)
		__krdma_perf_lane_done(ln, false);
	return HRTIMER_NORESTART;
}

/**
 * krdma_perf_pump_lane() - bw: fills a lane's window, from any context
 * @ln: the lane
 *
 * The lane done, the last one ends the test (&krdma_perf_ops.end).
 */
void krdma_perf_pump_lane(struct krdma_perf_lane *ln)
{
	bool done;

	spin_lock_bh(&ln->lock);
	done = krdma_perf_pump(ln);
	spin_unlock_bh(&ln->lock);
	if (done)
		krdma_perf_lane_done(ln);
}

/*
 * bw: a lane's messages up to @upto are complete; @t0: when its handler
 * started. Once this lane is counted out of lanes_running, the last lane
 * may end the test and a new one free it: nothing of it is touched then.
 */
static void krdma_perf_bw_retire(struct krdma_perf_lane *ln, u64 upto, u64 t0)
{
	struct krdma_perf *pf = ln->pf;
	u64 total;
	bool done;

	spin_lock_bh(&ln->lock);
	if (pf->op == KRDMA_OP_READ && !ln->conn->index)
		krdma_reads_end(pf->sess, upto - ln->retired);
	/* Lanes add up in any order: the figure may lag, ops->end fixes it. */
	total = atomic64_add_return(upto - ln->retired, &pf->retired);
	ln->retired = upto;
	pf->ops->retired(pf, total);
	done = krdma_perf_pump(ln);
	spin_unlock_bh(&ln->lock);
	WRITE_ONCE(ln->cpu_ns, ln->cpu_ns + local_clock() - t0);
	if (done)
		krdma_perf_lane_done(ln);
}

/**
 * krdma_perf_sig_done() - a lane's signaled WR completed
 * @cq: its CQ
 * @wc: the completion, of a struct krdma_perf_sig
 *
 * Retires every message of its lane up to the one it signals: with pumps,
 * refilling the window; else, the last one in flight, calling
 * &krdma_perf_ops.drained. Given to krdma_perf_build().
 */
void krdma_perf_sig_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct krdma_perf_sig *sig =
		container_of(wc->wr_cqe, struct krdma_perf_sig, cqe);
	struct krdma_perf_lane *ln = sig->lane;
	struct krdma_perf *pf = ln->pf;
	u64 t0 = local_clock();
	int pending;

	WRITE_ONCE(sig->busy, false);
	pending = atomic_dec_return(&ln->sig_pending);
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		krdma_perf_wc_error(pf, wc);
		return;
	}
	if (krdma_op_is_one_sided(pf->op))
		krdma_peer_alive(pf->sess);
	else
		krdma_peer_acked(pf->sess);
	if (pf->pumps && !pf->responder) {
		if (pf->round_trips)
			krdma_hist_record(&pf->hist, ktime_get_ns() - pf->t0);
		krdma_perf_bw_retire(ln, sig->msg + 1, t0);
		return;
	}
	ln->retired = sig->msg + 1;
	/* A poller counts its own time, all of it. */
	if (!pf->polls)
		WRITE_ONCE(ln->cpu_ns, ln->cpu_ns + local_clock() - t0);
	/*
	 * The last one in flight may let the owner end the test: the
	 * responder's last answer a TEST_END that came, which sends the
	 * result and frees the peer test, @pf with it (KASAN: a
	 * use-after-free here in perf.sh on the debug kernel); the driver's
	 * last send the TEST_END it held back. Nothing of @pf after.
	 */
	if (!pending && pf->ops->drained)
		pf->ops->drained(pf);
}

/**
 * krdma_perf_start() - the driver's lanes, ready to send
 * @pf: the driver's pipeline
 * @count: the messages to send, shared out over the lanes; 0: until @deadline
 * @deadline: when a test of no @count stops sending
 * @remote: the peer's regions (from its TEST_ACK), NULL if the op needs none
 * @nremote: how many
 *
 * Builds every lane's WR templates, before the engine starts sending.
 *
 * Return: 0, or a negative errno: -ENOSPC if a window does not fit the
 * session's send queue.
 */
int krdma_perf_start(struct krdma_perf *pf, u64 count, ktime_t deadline,
		     const struct krdma_wire_region *remote, u32 nremote)
{
	u64 share;
	u32 i, rest;
	int ret;

	pf->count = count;
	pf->deadline = deadline;
	/* A count is shared out; the first lanes take one more of the rest. */
	share = div_u64_rem(count, pf->nlanes, &rest);
	for (i = 0; i < pf->nlanes; i++)
		pf->lanes[i].quota = share + (i < rest);

	ret = krdma_perf_build(pf, remote, nremote, krdma_perf_sig_done);
	if (!ret && pf->depth * pf->per + KRDMA_PERF_CTRL_WRS > pf->sess->sq_depth)
		ret = -ENOSPC;
	return ret;
}

/**
 * krdma_perf_pump_lanes() - bw: every lane fills its window
 * @pf: the driver's pipeline, started (krdma_perf_start())
 *
 * Their completions (and rate timers) go on from there.
 */
void krdma_perf_pump_lanes(struct krdma_perf *pf)
{
	u32 i;

	pf->end_cqe.done = krdma_perf_end_done;
	atomic_set(&pf->lanes_running, pf->nlanes);
	for (i = 0; i < pf->nlanes; i++) {
		pf->lanes[i].rate_timer.function = krdma_perf_rate_timer;
		pf->lanes[i].rate_next = ktime_get_ns();
		krdma_perf_pump_lane(&pf->lanes[i]);
	}
}

/**
 * krdma_perf_cpu_ns() - the CPU time of a pipeline's handlers and pollers
 * @pf: the pipeline, or NULL
 *
 * Return: nanoseconds so far; 0 for no @pf.
 */
u64 krdma_perf_cpu_ns(const struct krdma_perf *pf)
{
	u64 ns;
	u32 i;

	if (!pf)
		return 0;
	ns = READ_ONCE(pf->cpu_ns);
	for (i = 0; i < pf->nlanes; i++)
		ns += READ_ONCE(pf->lanes[i].cpu_ns);
	return ns;
}

/**
 * krdma_perf_recv() - a message of the driver's, for the responder
 * @pf: the responder's pipeline
 * @ln: the lane of the data channel it came on (its own counters), or
 *	NULL: the session's QP, which must carry a lane
 * @rx: its receive
 * @wc: its completion
 * @hdr: its header: DATA, a send; NULL: a write_imm, which has none
 *
 * Checks it (a send, a lat write_imm's target: one in KRDMA_PERF_SAMPLE),
 * counts it and reposts its receive, or holds it for the next CREDIT.
 *
 * Return: false if the session is closing on it (a protocol error, no
 * receive to repost).
 */
bool krdma_perf_recv(struct krdma_perf *pf, struct krdma_perf_lane *ln,
		     struct krdma_recv *rx, struct ib_wc *wc,
		     const struct krdma_msg_hdr *hdr)
{
	struct krdma_session *sess = pf->sess;
	struct krdma_perf_rx *in;

	/* On iWARP over several QPs the session's QP carries no lane. */
	if (!ln && krdma_perf_lane0(pf)->conn->index)
		goto proto;
	in = ln ? &ln->rx : &pf->rx;
	if (!hdr) {
		if (pf->op != KRDMA_OP_WRITE_IMM ||
		    be32_to_cpu(wc->ex.imm_data) != pf->test_id)
			goto proto;
		/* lat (the session's QP): in our one target, sampled there. */
		if (pf->target)
			krdma_perf_sample(pf, pf->target, 0, pf->size, false);
		else
			in->received++;
	} else {
		if (be16_to_cpu(hdr->type) != KRDMA_MSG_DATA ||
		    !krdma_op_is_send(pf->op) ||
		    be32_to_cpu(hdr->len) != pf->size)
			goto proto;
		if (pf->op == KRDMA_OP_SEND_IMM &&
		    (!(wc->wc_flags & IB_WC_WITH_IMM) ||
		     be32_to_cpu(wc->ex.imm_data) != pf->test_id))
			goto proto;
		if (ln)
			krdma_perf_sample_to(pf, in, rx->buf, pf->data_off,
					     pf->data_len, true, true);
		else
			krdma_perf_check_rx(pf, rx);
	}
	/*
	 * Paced by CREDITs: the driver cannot send into this receive before
	 * the next CREDIT, which posts it first, with the others of its
	 * batch, in one chain (krdma_bw_peer_credit()).
	 */
	if (pf->credits) {
		krdma_recv_hold(&in->held, rx);
		return true;
	}
	if (krdma_recv_repost(rx)) {
		krdma_session_close(sess, "cannot repost receive");
		return false;
	}
	return true;
proto:
	krdma_count(sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
	krdma_session_close(sess, "protocol error: unexpected data for test %u",
			    pf->test_id);
	return false;
}
