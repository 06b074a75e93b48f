/* SPDX-License-Identifier: GPL-2.0 */
/*
 * krdmactl: running a test to its end, for "test run" and "ping".
 */
#ifndef KRDMACTL_TEST_H
#define KRDMACTL_TEST_H

#include <stdbool.h>
#include <stdint.h>

#include "nl.h"
#include "parse.h"
#include "report.h"
#include "session.h"

/* What "test run" and "test start" take; what is not set, the kernel decides. */
struct test_args {
	struct arg_val session, op, mode, size, count, duration, depth, interval;
	struct arg_val signal_every, chain, bidir, qps, rate, burst;
	/* conform only, no keywords: the rule of the verbs its one iteration
	 * breaks, the variant of an atomics sequence, SGEs a send WR, a
	 * write's fenced READ back */
	struct {
		struct arg_val violate, atomic_variant, sges, read_back;
		struct arg_val send_invalidate, zero_length, rnr_hold;
		struct arg_val zero_read_behind, reg_behind;
	} conform;
	/* run only: what the CLI does with the result */
	struct arg_val expect, hist;
	/* run only: "addr ADDR" instead of "session", a one-shot run over a
	 * session of its own (conn.name and conn.qps are not parsed) */
	struct session_args conn;
};

/*
 * Runs one test of message size @size (0: the kernel's default) to its
 * end, after knl_events_open(), and reports it through @ro. Returns
 * EXIT_OK if it passed, EXIT_TEST_FAIL if its data failed validation,
 * EXIT_ERR if it could not run to its end, and sets *@stopped when the
 * user interrupted it.
 */
int test_run_one(struct knl_ctx *c, const struct test_args *a, uint64_t size,
		 struct report_opts *ro, bool *stopped);

#endif /* KRDMACTL_TEST_H */
