/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * krdma: the latency histogram of a lat test - what it records, the
 * figures it reports and the buckets it exports.
 */
#ifndef KRDMA_HISTOGRAM_H
#define KRDMA_HISTOGRAM_H

#include <linux/types.h>

struct sk_buff;

enum krdma_lat_stat {
	KRDMA_LAT_MIN,
	KRDMA_LAT_P50,
	KRDMA_LAT_P90,
	KRDMA_LAT_P99,
	KRDMA_LAT_P999,
	KRDMA_LAT_MAX,
	KRDMA_LAT_AVG,
	KRDMA_LAT_STDEV,
	KRDMA_LAT_NSTATS,
};

/* The most buckets exported: what a netlink message holds with room. */
#define KRDMA_HIST_EXPORT_MAX	64

struct krdma_hist_bucket {
	u64	lo;
	u64	hi;
	u64	count;
};

struct krdma_hist {
	u32			*fine;	/* while the test runs */
	struct krdma_hist_bucket *export;
	u32			nexport;
	u64			samples;
	u64			sum;
	u64			stat[KRDMA_LAT_NSTATS];
};

int krdma_hist_init(struct krdma_hist *h);
void krdma_hist_record(struct krdma_hist *h, u64 ns);
void krdma_hist_summarize(struct krdma_hist *h);
void krdma_hist_free(struct krdma_hist *h);
int krdma_hist_fill(struct sk_buff *skb, const struct krdma_hist *h,
		    int attr);

#endif /* KRDMA_HISTOGRAM_H */
