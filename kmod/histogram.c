// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: the latency histogram of a lat test.
 *
 * While the test runs, every sample goes into a log-linear histogram of
 * 2^8 linear buckets per power of two, so a percentile read from it is
 * within 1/256 of the true value whatever the spread, in constant memory
 * (perftest keeps every sample, which bounds its iterations). When the
 * test ends the fine histogram becomes the reported figures and a coarse
 * copy of at most KRDMA_HIST_EXPORT_MAX buckets - four to a power of two
 * when that fits, else two, else one - small enough for the netlink
 * message that carries the result, and then it is freed.
 */
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <net/netlink.h>
#include <uapi/linux/krdma.h>

#include "histogram.h"
#include "krdma.h"

#define KRDMA_HIST_SUB_BITS	8
#define KRDMA_HIST_SUB		BIT(KRDMA_HIST_SUB_BITS)
#define KRDMA_HIST_BUCKETS	(KRDMA_HIST_SUB * (64 - KRDMA_HIST_SUB_BITS + 1))

/**
 * krdma_hist_init() - an empty histogram, its buckets allocated
 * @h: the histogram
 *
 * Context: process; it may sleep.
 * Return: 0 or -ENOMEM.
 */
int krdma_hist_init(struct krdma_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->fine = krdma_failable(kvcalloc(KRDMA_HIST_BUCKETS,
					  sizeof(*h->fine), GFP_KERNEL));
	h->export = krdma_failable(kcalloc(KRDMA_HIST_EXPORT_MAX,
					   sizeof(*h->export), GFP_KERNEL));
	if (!h->fine || !h->export) {
		krdma_hist_free(h);
		return -ENOMEM;
	}
	return 0;
}

/**
 * krdma_hist_free() - frees a histogram's buckets
 * @h: the histogram, initialized or zeroed
 */
void krdma_hist_free(struct krdma_hist *h)
{
	kvfree(h->fine);
	h->fine = NULL;
	kfree(h->export);
	h->export = NULL;
}

static u32 krdma_hist_index(u64 v)
{
	u32 e;

	if (v < KRDMA_HIST_SUB)
		return v;
	e = fls64(v) - KRDMA_HIST_SUB_BITS - 1;
	return (e + 1) * KRDMA_HIST_SUB + (u32)(v >> e) - KRDMA_HIST_SUB;
}

/* The lowest value of fine bucket @b. */
static u64 krdma_hist_lower(u32 b)
{
	if (b < KRDMA_HIST_SUB)
		return b;
	return (u64)(b % KRDMA_HIST_SUB + KRDMA_HIST_SUB) <<
	       (b / KRDMA_HIST_SUB - 1);
}

/* The middle of fine bucket @b. */
static u64 krdma_hist_middle(u32 b)
{
	if (b < KRDMA_HIST_SUB)
		return b;
	return krdma_hist_lower(b) + ((1ULL << (b / KRDMA_HIST_SUB - 1)) >> 1);
}

/**
 * krdma_hist_record() - one latency sample
 * @h: the histogram, not yet summarized
 * @ns: the sample
 *
 * No lock: the caller records a histogram's samples one at a time.
 */
void krdma_hist_record(struct krdma_hist *h, u64 ns)
{
	if (!h->samples || ns < h->stat[KRDMA_LAT_MIN])
		h->stat[KRDMA_LAT_MIN] = ns;
	if (ns > h->stat[KRDMA_LAT_MAX])
		h->stat[KRDMA_LAT_MAX] = ns;
	h->sum += ns;
	h->samples++;
	h->fine[krdma_hist_index(ns)]++;
}

/* A fine bucket's value, kept within what was really seen. */
static u64 krdma_hist_value(const struct krdma_hist *h, u32 b)
{
	return clamp(krdma_hist_middle(b), h->stat[KRDMA_LAT_MIN],
		     h->stat[KRDMA_LAT_MAX]);
}

static void krdma_hist_percentiles(struct krdma_hist *h)
{
	static const struct {
		enum krdma_lat_stat stat;
		u32 permille;
	} pct[] = {
		{ KRDMA_LAT_P50, 500 }, { KRDMA_LAT_P90, 900 },
		{ KRDMA_LAT_P99, 990 }, { KRDMA_LAT_P999, 999 },
	};
	u64 seen = 0;
	u32 b, i = 0;

	for (b = 0; b < KRDMA_HIST_BUCKETS && i < ARRAY_SIZE(pct); b++) {
		seen += h->fine[b];
		while (i < ARRAY_SIZE(pct) &&
		       seen * 1000 >= h->samples * pct[i].permille)
			h->stat[pct[i++].stat] = krdma_hist_value(h, b);
	}
}

/*
 * From the histogram, not from a sum of squares, which a long test
 * overflows. Each term, count * d^2 / samples, is at most d^2, so it fits
 * in 64 bits (and mul_u64_u64_div_u64() does not fault) while every
 * deviation d is below 2^32 ns; a wider spread saturates.
 */
static void krdma_hist_stdev(struct krdma_hist *h)
{
	u64 avg = h->stat[KRDMA_LAT_AVG], var = 0, v, d;
	u32 b;

	for (b = 0; b < KRDMA_HIST_BUCKETS; b++) {
		if (!h->fine[b])
			continue;
		v = krdma_hist_value(h, b);
		d = v > avg ? v - avg : avg - v;
		if (d >> 32) {
			var = U64_MAX;
			break;
		}
		var += mul_u64_u64_div_u64((u64)h->fine[b] * d, d, h->samples);
	}
	h->stat[KRDMA_LAT_STDEV] = int_sqrt64(var);
}

/* Coarse bucket of @v at 2^@rb buckets to a power of two, and its range. */
static u32 krdma_hist_coarse(u64 v, u32 rb, u64 *lo, u64 *hi)
{
	u32 r = 1U << rb, e, q, i;

	if (v < 2 * r) {
		/* One to a power of two: 0 and 1 ns share the first. */
		if (!rb) {
			*lo = 0;
			*hi = 2;
			return 0;
		}
		*lo = v;
		*hi = v + 1;
		return v;
	}
	e = fls64(v) - 1;
	q = (v >> (e - rb)) & (r - 1);
	i = r * (e - rb + 1) + q;
	*lo = (u64)(r + q) << (e - rb);
	*hi = *lo + (1ULL << (e - rb));
	if (*hi < *lo)
		*hi = U64_MAX;
	return i;
}

/* Fills the export at 2^@rb buckets to a power of two; false if too many. */
static bool krdma_hist_export_at(struct krdma_hist *h, u32 rb)
{
	struct krdma_hist_bucket *cur = NULL;
	u32 b, i, last = U32_MAX;
	u64 lo, hi;

	h->nexport = 0;
	for (b = 0; b < KRDMA_HIST_BUCKETS; b++) {
		if (!h->fine[b])
			continue;
		/* A fine bucket lies within one coarse bucket: its lowest
		 * value says which.
		 */
		i = krdma_hist_coarse(krdma_hist_lower(b), rb, &lo, &hi);
		if (i != last) {
			if (h->nexport == KRDMA_HIST_EXPORT_MAX)
				return false;
			cur = &h->export[h->nexport++];
			cur->lo = lo;
			cur->hi = hi;
			cur->count = 0;
			last = i;
		}
		cur->count += h->fine[b];
	}
	return true;
}

/**
 * krdma_hist_summarize() - the test is over: its figures and coarse buckets
 * @h: the histogram
 *
 * The fine histogram becomes the figures and at most
 * KRDMA_HIST_EXPORT_MAX buckets, and is freed; a second call does
 * nothing.
 */
void krdma_hist_summarize(struct krdma_hist *h)
{
	u32 rb;

	if (!h->fine)
		return;
	if (h->samples) {
		h->stat[KRDMA_LAT_AVG] = div64_u64(h->sum, h->samples);
		krdma_hist_percentiles(h);
		krdma_hist_stdev(h);
		/* One to a power of two always fits: 64 at most. */
		for (rb = 2; !krdma_hist_export_at(h, rb) && rb; rb--)
			;
	}
	kvfree(h->fine);
	h->fine = NULL;
}

static int krdma_hist_fill_buckets(struct sk_buff *skb,
				   const struct krdma_hist *h)
{
	struct nlattr *nest;
	u32 i;

	for (i = 0; i < h->nexport; i++) {
		nest = nla_nest_start(skb, KRDMA_LAT_A_HIST);
		if (!nest ||
		    nla_put_u64_64bit(skb, KRDMA_HIST_A_LO_NS, h->export[i].lo,
				      KRDMA_HIST_A_PAD) ||
		    nla_put_u64_64bit(skb, KRDMA_HIST_A_HI_NS, h->export[i].hi,
				      KRDMA_HIST_A_PAD) ||
		    nla_put_u64_64bit(skb, KRDMA_HIST_A_COUNT,
				      h->export[i].count, KRDMA_HIST_A_PAD))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

/**
 * krdma_hist_fill() - a histogram's figures and buckets, nested in @attr
 * @skb: the message
 * @h: the histogram
 * @attr: the nest, of enum krdma_lat_attr's attributes
 *
 * The figures nested in @attr; nothing before krdma_hist_summarize().
 *
 * Return: 0 or -EMSGSIZE.
 */
int krdma_hist_fill(struct sk_buff *skb, const struct krdma_hist *h,
		    int attr)
{
	static const int stat_attr[KRDMA_LAT_NSTATS] = {
		[KRDMA_LAT_MIN]	  = KRDMA_LAT_A_MIN_NS,
		[KRDMA_LAT_P50]	  = KRDMA_LAT_A_P50_NS,
		[KRDMA_LAT_P90]	  = KRDMA_LAT_A_P90_NS,
		[KRDMA_LAT_P99]	  = KRDMA_LAT_A_P99_NS,
		[KRDMA_LAT_P999]  = KRDMA_LAT_A_P999_NS,
		[KRDMA_LAT_MAX]	  = KRDMA_LAT_A_MAX_NS,
		[KRDMA_LAT_AVG]	  = KRDMA_LAT_A_AVG_NS,
		[KRDMA_LAT_STDEV] = KRDMA_LAT_A_STDEV_NS,
	};
	struct nlattr *nest;
	int i;

	if (h->fine || !h->export)
		return 0;
	nest = nla_nest_start(skb, attr);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, KRDMA_LAT_A_SAMPLES, h->samples,
			      KRDMA_LAT_A_PAD))
		goto cancel;
	for (i = 0; i < KRDMA_LAT_NSTATS && h->samples; i++)
		if (nla_put_u64_64bit(skb, stat_attr[i], h->stat[i],
				      KRDMA_LAT_A_PAD))
			goto cancel;
	if (krdma_hist_fill_buckets(skb, h))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}
