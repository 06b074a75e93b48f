/* SPDX-License-Identifier: GPL-2.0 */
/*
 * krdmactl: how a finished test is reported - its record (a line, or a
 * JSON object), a size sweep's table, the latency histogram's plot, and
 * the thresholds ("expect") it is held to.
 */
#ifndef KRDMACTL_REPORT_H
#define KRDMACTL_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/krdma.h>

#include "attrs.h"
#include "env.h"
#include "parse.h"

/* The version of the JSON documents of test results; bumped on a change
 * that breaks a reader (a key renamed or removed, a unit changed, the
 * shape): 3 since "test run" prints one object, its env once and its
 * records in "results" (compare.c reads the older ones).
 */
#define REPORT_SCHEMA_VERSION	3

/* What a result message says, in the units it is reported in. */
struct test_result {
	uint32_t id;
	uint8_t mode;
	uint64_t size;
	uint64_t iters;
	uint64_t elapsed_ns;
	uint64_t validated;
	bool has_rates;
	struct rates r;
	bool has_both;			/* bidir: both ways together */
	struct rates both;
	bool has_lat;
	bool lat_has[KRDMA_LAT_A_MAX + 1];
	uint64_t lat[KRDMA_LAT_A_MAX + 1];
	unsigned int nqp;		/* queue pairs with figures */
	double qp_min_mb_s;
	double qp_max_mb_s;
};

void test_result_get(struct nlattr **tb, struct nlmsghdr *nlh,
		     struct test_result *res);

/* How "test run" reports: set once per command. */
struct report_opts {
	bool sweep;			/* a table, one row per size */
	bool bidir;
	bool plot;			/* the histogram as a text plot */
	const struct arg_val *expect;	/* thresholds, or NULL */
	struct run_env *env;		/* the run's, or NULL; the peer's
					 * part from the first result */
	bool quiet;			/* no record: the caller reports */
	bool failure_expected;		/* a failed test is no news (conform's
					 * negative cases) */
	bool header_shown;
	bool env_shown;
	unsigned int missed;		/* thresholds missed so far */
	struct test_result last;	/* the latest test's */
	int32_t last_status;
	char last_reason[256];		/* why it failed, the kernel's; "" */
	int64_t last_wc_status;		/* the completion that failed it, -1 */
};

/*
 * Prints a finished test: a record (text line or JSON object), or a row
 * of the sweep's table; then, if asked, the histogram's plot. Checks the
 * thresholds of @ro on a test that passed, counting and naming a miss.
 */
void report_result(struct nlattr **tb, struct nlmsghdr *nlh,
		   struct report_opts *ro);

#endif /* KRDMACTL_REPORT_H */
