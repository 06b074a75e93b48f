// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: counters, module-wide and per session, reported over netlink.
 */
#include <net/netlink.h>

#include "krdma.h"

static DEFINE_PER_CPU(struct krdma_counters, krdma_global_counters);
struct krdma_stats krdma_global_stats = { .pcpu = &krdma_global_counters };

static const u16 krdma_counter_attr[KRDMA_CNT_MAX] = {
	[KRDMA_CNT_SESSIONS_OPENED]	= KRDMA_STATS_A_SESSIONS_OPENED,
	[KRDMA_CNT_SESSIONS_CLOSED]	= KRDMA_STATS_A_SESSIONS_CLOSED,
	[KRDMA_CNT_CONNECT_ERRORS]	= KRDMA_STATS_A_CONNECT_ERRORS,
	[KRDMA_CNT_REJECTS_SENT]	= KRDMA_STATS_A_REJECTS_SENT,
	[KRDMA_CNT_TESTS_STARTED]	= KRDMA_STATS_A_TESTS_STARTED,
	[KRDMA_CNT_TESTS_FAILED]	= KRDMA_STATS_A_TESTS_FAILED,
	[KRDMA_CNT_SEND_WRS]		= KRDMA_STATS_A_SEND_WRS,
	[KRDMA_CNT_RECV_WRS]		= KRDMA_STATS_A_RECV_WRS,
	[KRDMA_CNT_WRITE_WRS]		= KRDMA_STATS_A_WRITE_WRS,
	[KRDMA_CNT_READ_WRS]		= KRDMA_STATS_A_READ_WRS,
	[KRDMA_CNT_ATOMIC_WRS]		= KRDMA_STATS_A_ATOMIC_WRS,
	[KRDMA_CNT_REG_MR_WRS]		= KRDMA_STATS_A_REG_MR_WRS,
	[KRDMA_CNT_INV_WRS]		= KRDMA_STATS_A_INV_WRS,
	[KRDMA_CNT_BYTES_TX]		= KRDMA_STATS_A_BYTES_TX,
	[KRDMA_CNT_BYTES_RX]		= KRDMA_STATS_A_BYTES_RX,
	[KRDMA_CNT_WC_ERRORS]		= KRDMA_STATS_A_WC_ERRORS,
	[KRDMA_CNT_VALIDATION_ERRORS]	= KRDMA_STATS_A_VALIDATION_ERRORS,
	[KRDMA_CNT_PROTOCOL_ERRORS]	= KRDMA_STATS_A_PROTOCOL_ERRORS,
	[KRDMA_CNT_SESSIONS_REFUSED]	= KRDMA_STATS_A_SESSIONS_REFUSED,
	[KRDMA_CNT_MEM_REFUSED]		= KRDMA_STATS_A_MEM_REFUSED,
	[KRDMA_CNT_RESPONDER_TIMEOUTS]	= KRDMA_STATS_A_RESPONDER_TIMEOUTS,
	[KRDMA_CNT_QP_EVENTS]		= KRDMA_STATS_A_QP_EVENTS,
	[KRDMA_CNT_POLLERS_REFUSED]	= KRDMA_STATS_A_POLLERS_REFUSED,
};

/**
 * krdma_stats_init() - a session's counters
 * @s: the session's stats, zeroed
 *
 * A session's counters; the module's are static.
 *
 * Context: process; it may sleep.
 * Return: 0 or -ENOMEM.
 */
int krdma_stats_init(struct krdma_stats *s)
{
	s->pcpu = krdma_failable(alloc_percpu(struct krdma_counters));
	return s->pcpu ? 0 : -ENOMEM;
}

/**
 * krdma_stats_free() - frees a session's counters
 * @s: the session's stats
 */
void krdma_stats_free(struct krdma_stats *s)
{
	free_percpu(s->pcpu);
	s->pcpu = NULL;
}

/**
 * krdma_stats_add() - adds to a counter
 * @s: the counters, a session's or the module's
 * @c: the counter
 * @v: how much
 *
 * On this CPU's set (struct krdma_counters): from any context, an
 * interrupt's too.
 */
void krdma_stats_add(struct krdma_stats *s, enum krdma_counter c, u64 v)
{
	struct krdma_counters *mine = get_cpu_ptr(s->pcpu);

	local64_add(v, &mine->cnt[c]);
	put_cpu_ptr(s->pcpu);
}

/**
 * krdma_stats_read() - a counter, summed over the CPUs
 * @s: the counters
 * @c: the counter
 *
 * Return: its value; an add on another CPU meanwhile may be in it or not.
 */
u64 krdma_stats_read(struct krdma_stats *s, enum krdma_counter c)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += local64_read(&per_cpu_ptr(s->pcpu, cpu)->cnt[c]);
	return sum;
}

/**
 * krdma_stats_peak() - raises a peak
 * @peak: the peak
 * @v: the gauge's value now
 *
 * Raises @peak to @v if it is lower.
 */
void krdma_stats_peak(atomic64_t *peak, s64 v)
{
	s64 old = atomic64_read(peak);

	while (old < v && !atomic64_try_cmpxchg(peak, &old, v))
		;
}

/**
 * krdma_stats_peak32() - krdma_stats_peak() for a 32-bit gauge
 * @peak: the peak
 * @v: the gauge's value now
 */
void krdma_stats_peak32(atomic_t *peak, int v)
{
	int old = atomic_read(peak);

	while (old < v && !atomic_try_cmpxchg(peak, &old, v))
		;
}

/**
 * krdma_peer_silence_note() - a silence of the peer's, for peer_silence_max
 * @sess: the session
 * @gap: jiffies since the peer's answer before
 *
 * The peer's answer came @gap jiffies after the one before: the margin an
 * alive peer left before peer_timeout_ms, kept per session and
 * module-wide (peer_silence_max). An idle session's gaps are the probes'
 * pace, keepalive_ms, and their round trip (keepalive.c).
 */
void krdma_peer_silence_note(struct krdma_session *sess, unsigned long gap)
{
	s64 ms = jiffies_to_msecs(gap);

	krdma_stats_peak(&sess->stats.peer_silence_max, ms);
	krdma_stats_peak(&krdma_global_stats.peer_silence_max, ms);
}

/**
 * krdma_stats_reset() - counters to 0, peaks down to their gauges
 * @s: the counters
 *
 * The gauges stay: they are what peers make us hold now. The longest
 * silence starts over.
 */
void krdma_stats_reset(struct krdma_stats *s)
{
	int i, cpu;

	/* An add racing with this on another CPU may survive it. */
	for_each_possible_cpu(cpu)
		for (i = 0; i < KRDMA_CNT_MAX; i++)
			local64_set(&per_cpu_ptr(s->pcpu, cpu)->cnt[i], 0);
	/* A charge or a session racing with this may leave the peak low. */
	atomic64_set(&s->peer_mem_peak, atomic64_read(&s->peer_mem));
	atomic_set(&s->server_sessions_peak, atomic_read(&s->server_sessions));
	atomic64_set(&s->peer_silence_max, 0);
}

/**
 * krdma_stats_fill() - counters, gauges and peaks, nested in KRDMA_A_STATS
 * @skb: the message
 * @s: the counters, a session's or the module's
 *
 * Return: 0 or -EMSGSIZE.
 */
int krdma_stats_fill(struct sk_buff *skb, struct krdma_stats *s)
{
	struct nlattr *nest;
	int i;

	nest = nla_nest_start(skb, KRDMA_A_STATS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < KRDMA_CNT_MAX; i++) {
		if (nla_put_u64_64bit(skb, krdma_counter_attr[i],
				      krdma_stats_read(s, i),
				      KRDMA_STATS_A_PAD))
			goto cancel;
	}
	if (nla_put_u64_64bit(skb, KRDMA_STATS_A_PEER_MEM,
			      atomic64_read(&s->peer_mem), KRDMA_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, KRDMA_STATS_A_PEER_MEM_PEAK,
			      atomic64_read(&s->peer_mem_peak), KRDMA_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, KRDMA_STATS_A_PEER_SILENCE_MAX,
			      atomic64_read(&s->peer_silence_max), KRDMA_STATS_A_PAD))
		goto cancel;
	/* A session's own counters have no sessions. */
	if (s == &krdma_global_stats &&
	    (nla_put_u64_64bit(skb, KRDMA_STATS_A_SERVER_SESSIONS,
			       atomic_read(&s->server_sessions), KRDMA_STATS_A_PAD) ||
	     nla_put_u64_64bit(skb, KRDMA_STATS_A_SERVER_SESSIONS_PEAK,
			       atomic_read(&s->server_sessions_peak),
			       KRDMA_STATS_A_PAD) ||
	     nla_put_u64_64bit(skb, KRDMA_STATS_A_RESPONDER_POLLERS,
			       atomic_read(&s->responder_pollers),
			       KRDMA_STATS_A_PAD)))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}
