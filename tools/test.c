// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl test: traffic tests over a session.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <netlink/genl/genl.h>

#include "attrs.h"
#include "cmd.h"
#include "output.h"
#include "records.h"
#include "report.h"
#include "test.h"

/* Without events for this long, "test run" asks for the test's state. */
#define TEST_CHECK_MS		5000
/* Progress period asked for by "test run" on a terminal. */
#define TEST_LIVE_INTERVAL_MS	1000

int test_print(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	(void)nlh;
	(void)arg;
	open_json_object(NULL);
	print_attrs(tb, krdma_test_get_rsp_attrs,
		    ARRAY_SIZE(krdma_test_get_rsp_attrs));
	print_nl();
	close_json_object();
	return 0;
}

/* ---- arguments shared by "run" and "start" ---- */

/* The atomics move 8 bytes whatever the size says. */
static bool op_is_atomic(uint64_t op)
{
	return op == KRDMA_OP_ATOMIC_FADD || op == KRDMA_OP_ATOMIC_CSWAP;
}

/*
 * A rate in packets/s is turned into the bytes/s the kernel takes with
 * the test's size, which must then be known here (the kernel's default
 * is not) and small enough that the product fits.
 */
static int rate_check(const struct test_args *a)
{
	uint64_t size = op_is_atomic(a->op.num) ? 8 : a->size.num_hi;

	if (!a->rate.set || !a->rate.per_msg)
		return 0;
	if (!size)
		return usage_error("rate %" PRIu64 " packets/s needs the size of a packet: give size",
				   a->rate.num);
	if (a->rate.num > UINT64_MAX / size)
		return usage_error("rate of %" PRIu64 " packets/s of %" PRIu64 " bytes is out of range",
				   a->rate.num, size);
	return 0;
}

/* The rate limit in bytes/s for messages of @size bytes (rate_check()). */
static uint64_t rate_bytes(const struct test_args *a, uint64_t size)
{
	if (!a->rate.per_msg)
		return a->rate.num;
	return a->rate.num * (op_is_atomic(a->op.num) ? 8 : size);
}

/* Groups of keywords of which one (at most) may be given. */
#define GROUP_LENGTH	1	/* count | duration */
#define GROUP_TARGET	2	/* session | addr, one required */

/*
 * The arguments of "test run" (@run) or "test start", whose table hides
 * what only run takes (to refuse it with a reason, not as unknown).
 */
static int test_parse(struct test_args *a, bool run, int argc, char **argv)
{
	const unsigned int run_only = run ? 0 : ARG_HIDDEN;
	const struct arg_spec test_specs[] = {
		{ "session", ARG_REF, ARG_REQUIRED, GROUP_TARGET, 0, 0,
		  &a->session, "{ ID | NAME }" },
		{ "op", ARG_OP, ARG_REQUIRED, 0, 0, 0, &a->op, "OP" },
		{ "mode", ARG_MODE, 0, 0, 0, 0, &a->mode, "MODE" },
		{ "size", ARG_SIZES, 0, 0, 1, KRDMA_MSG_SIZE_MAX, &a->size,
		  "SIZE" },
		{ "count", ARG_COUNT, 0, GROUP_LENGTH, 1, 0, &a->count, "N" },
		{ "duration", ARG_DURATION, 0, GROUP_LENGTH, 1,
		  KRDMA_DURATION_MS_MAX, &a->duration, "TIME" },
		{ "depth", ARG_U32, 0, 0, 1, KRDMA_DEPTH_MAX, &a->depth, "N" },
		{ "interval", ARG_DURATION, 0, 0, KRDMA_INTERVAL_MS_MIN,
		  KRDMA_DURATION_MS_MAX, &a->interval, "TIME" },
		{ "signal_every", ARG_U32, 0, 0, 1, KRDMA_DEPTH_MAX,
		  &a->signal_every, "N" },
		{ "chain", ARG_U32, 0, 0, 1, KRDMA_CHAIN_MAX, &a->chain, "N" },
		{ "bidir", ARG_FLAG, 0, 0, 0, 0, &a->bidir, NULL },
		{ "qps", ARG_U32, 0, 0, 1, KRDMA_QPS_MAX, &a->qps, "N" },
		{ "rate", ARG_RATE, 0, 0, 0, 0, &a->rate, "RATE" },
		{ "burst", ARG_U32, 0, 0, 1, KRDMA_DEPTH_MAX, &a->burst, "N" },
		{ "expect", ARG_EXPECT, run_only, 0, 0, 0, &a->expect, "COND" },
		{ "histogram", ARG_FLAG, run_only, 0, 0, 0, &a->hist, NULL },
	};
	struct arg_spec specs[ARRAY_SIZE(test_specs) + SESSION_SPECS_MAX];
	size_t i, n = ARRAY_SIZE(test_specs), nconn;
	const char *mode;
	int rc;

	/* conn.name and conn.qps are no keywords: args_parse() leaves them,
	 * and what only conform sets. */
	memset(&a->conn, 0, sizeof(a->conn));
	memset(&a->conform, 0, sizeof(a->conform));
	memcpy(specs, test_specs, sizeof(test_specs));
	/* A one-shot run: "addr ADDR" and the session's keywords, but its
	 * name and qps are the test's. */
	nconn = session_specs(&a->conn, specs + n, true);
	for (i = n; i < n + nconn; i++) {
		specs[i].flags |= run_only;
		if (specs[i].val == &a->conn.addr) {
			specs[i].group = GROUP_TARGET;
			specs[i].meta = "HOST[:PORT]";
		}
	}
	n += nconn;
	/* What is not given is left to the kernel, which alone has defaults. */
	rc = cmd_args(specs, n, argc, argv);
	if (rc)
		return rc;
	for (i = ARRAY_SIZE(test_specs); i < n && a->session.set; i++)
		if (specs[i].val->set)
			return usage_error("'%s' is for a one-shot run (addr HOST), not for an existing session",
					   specs[i].kw);
	mode = a->mode.set ? krdma_test_mode_strmap[a->mode.num] : "check";
	/* A threshold on a figure the test will not have is a mistake now,
	 * not a failed run later.
	 */
	for (i = 0; i < a->expect.nexpect; i++) {
		enum expect_metric m = a->expect.expect[i].metric;

		if (expect_metric_is_latency(m) &&
		    (!a->mode.set || a->mode.num != KRDMA_MODE_LAT))
			return usage_error("expect %s: %s is measured in lat mode, not in %s mode",
					   a->expect.expect[i].text,
					   expect_metric_name(m), mode);
		if (m == EXPECT_MIN_QP_BW &&
		    (!a->mode.set || a->mode.num != KRDMA_MODE_BW))
			return usage_error("expect %s: per-QP figures come from bw mode, not from %s mode",
					   a->expect.expect[i].text, mode);
	}
	return rate_check(a);
}

/* The TEST_START request for message size @size (0: the kernel's default). */
static struct nl_msg *test_start_msg(struct knl_ctx *c,
				     const struct test_args *a, uint64_t size,
				     uint32_t dflt_interval)
{
	struct nl_msg *msg = knl_req(c, KRDMA_CMD_TEST_START, 0);

	if (!msg)
		return NULL;
	if (put_ref(msg, KRDMA_A_SESSION_ID, &a->session, NULL) ||
	    nla_put_u8(msg, KRDMA_A_TEST_OP, (uint8_t)a->op.num) ||
	    (a->mode.set &&
	     nla_put_u8(msg, KRDMA_A_TEST_MODE, (uint8_t)a->mode.num)) ||
	    (a->signal_every.set &&
	     nla_put_u32(msg, KRDMA_A_TEST_SIGNAL_EVERY,
			 (uint32_t)a->signal_every.num)) ||
	    (a->chain.set &&
	     nla_put_u32(msg, KRDMA_A_TEST_CHAIN, (uint32_t)a->chain.num)) ||
	    (a->bidir.set && nla_put_u8(msg, KRDMA_A_TEST_BIDIR, 1)) ||
	    (a->qps.set &&
	     nla_put_u32(msg, KRDMA_A_TEST_QPS, (uint32_t)a->qps.num)) ||
	    (a->rate.set &&
	     nla_put_u64(msg, KRDMA_A_TEST_RATE, rate_bytes(a, size))) ||
	    (a->burst.set &&
	     nla_put_u32(msg, KRDMA_A_TEST_BURST, (uint32_t)a->burst.num)) ||
	    (a->conform.violate.set &&
	     nla_put_u8(msg, KRDMA_A_TEST_VIOLATE, (uint8_t)a->conform.violate.num)) ||
	    (a->conform.atomic_variant.set &&
	     nla_put_u8(msg, KRDMA_A_TEST_ATOMIC_VARIANT,
			(uint8_t)a->conform.atomic_variant.num)) ||
	    (a->conform.sges.set &&
	     nla_put_u32(msg, KRDMA_A_TEST_SGES, (uint32_t)a->conform.sges.num)) ||
	    (a->conform.read_back.set &&
	     nla_put_u8(msg, KRDMA_A_TEST_READ_BACK,
			(uint8_t)a->conform.read_back.num)) ||
	    (a->conform.send_invalidate.set &&
	     nla_put_u8(msg, KRDMA_A_TEST_SEND_INVALIDATE,
			(uint8_t)a->conform.send_invalidate.num)) ||
	    (a->conform.zero_length.set &&
	     nla_put_u8(msg, KRDMA_A_TEST_ZERO_LENGTH,
			(uint8_t)a->conform.zero_length.num)) ||
	    (a->conform.rnr_hold.set &&
	     nla_put_u8(msg, KRDMA_A_TEST_RNR_HOLD,
			(uint8_t)a->conform.rnr_hold.num)) ||
	    (a->conform.zero_read_behind.set &&
	     nla_put_u8(msg, KRDMA_A_TEST_ZERO_READ_BEHIND,
			(uint8_t)a->conform.zero_read_behind.num)) ||
	    (a->conform.reg_behind.set &&
	     nla_put_u8(msg, KRDMA_A_TEST_REG_BEHIND,
			(uint8_t)a->conform.reg_behind.num)) ||
	    (size && nla_put_u32(msg, KRDMA_A_TEST_SIZE, (uint32_t)size)) ||
	    (a->count.set &&
	     nla_put_u64(msg, KRDMA_A_TEST_COUNT, a->count.num)) ||
	    (a->duration.set &&
	     nla_put_u32(msg, KRDMA_A_TEST_DURATION_MS,
			 (uint32_t)a->duration.num)) ||
	    (a->depth.set &&
	     nla_put_u32(msg, KRDMA_A_TEST_DEPTH, (uint32_t)a->depth.num)) ||
	    ((a->interval.set || dflt_interval) &&
	     nla_put_u32(msg, KRDMA_A_TEST_INTERVAL_MS,
			 a->interval.set ? (uint32_t)a->interval.num
					 : dflt_interval))) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

struct run_state {
	struct report_opts *ro;
	bool have_id;
	uint32_t id;
	bool live;		/* progress line on a terminal */
	bool line_shown;
	bool finished;
	int32_t status;
	char reason[256];
};

static int start_reply(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct run_state *st = arg;

	(void)nlh;
	if (tb[KRDMA_A_TEST_ID]) {
		st->have_id = true;
		st->id = nla_get_u32(tb[KRDMA_A_TEST_ID]);
	}
	return 0;
}

static void progress_line(struct run_state *st, struct nlattr **tb)
{
	uint64_t iters = 0, bytes = 0, ns = 0;
	char el[32];
	struct rates r;

	if (!st->live)
		return;
	if (tb[KRDMA_A_TEST_ITERS])
		iters = nla_get_u64(tb[KRDMA_A_TEST_ITERS]);
	if (tb[KRDMA_A_TEST_BYTES])
		bytes = nla_get_u64(tb[KRDMA_A_TEST_BYTES]);
	if (tb[KRDMA_A_TEST_ELAPSED_NS])
		ns = nla_get_u64(tb[KRDMA_A_TEST_ELAPSED_NS]);
	compute_rates(bytes, iters, ns, &r);
	format_ns(el, sizeof(el), ns);
	printf("\rtest %u: %" PRIu64 " iters, %.2f %s, %s\033[K", st->id,
	       iters, bw_text(r.mb_s), bw_text_unit(), el);
	fflush(stdout);
	st->line_shown = true;
}

/* The test ended: print its result (DONE event or TEST_GET reply). */
static void run_finish(struct run_state *st, struct nlattr **tb,
		       struct nlmsghdr *nlh)
{
	st->finished = true;
	st->status = tb[KRDMA_A_TEST_STATUS] ?
		     (int32_t)nla_get_u32(tb[KRDMA_A_TEST_STATUS]) : 0;
	if (tb[KRDMA_A_REASON])
		snprintf(st->reason, sizeof(st->reason), "%s",
			 nla_get_string(tb[KRDMA_A_REASON]));
	if (st->line_shown) {
		printf("\r\033[K");
		fflush(stdout);
		st->line_shown = false;
	}
	report_result(tb, nlh, st->ro);
	/* JSON is one document, written out once the last test is in; a
	 * quiet run's caller reports, and writes out its own document. */
	if (!st->ro->quiet && !out_json())
		out_flush();
}

static int run_event(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct run_state *st = arg;

	if (!tb[KRDMA_A_EVENT] || !tb[KRDMA_A_TEST_ID] ||
	    nla_get_u32(tb[KRDMA_A_TEST_ID]) != st->id)
		return 0;
	switch (nla_get_u8(tb[KRDMA_A_EVENT])) {
	case KRDMA_EVENT_TEST_PROGRESS:
		progress_line(st, tb);
		return 0;
	case KRDMA_EVENT_TEST_DONE:
		run_finish(st, tb, nlh);
		return 1;
	}
	return 0;
}

static int run_query_reply(struct nlattr **tb, struct nlmsghdr *nlh,
			   void *arg)
{
	struct run_state *st = arg;

	if (tb[KRDMA_A_TEST_STATE] &&
	    nla_get_u8(tb[KRDMA_A_TEST_STATE]) == KRDMA_TEST_DONE)
		run_finish(st, tb, nlh);
	else
		progress_line(st, tb);
	return 0;
}

static int test_query(struct knl_ctx *c, struct run_state *st,
		      knl_msg_fn fn)
{
	struct nl_msg *msg = knl_req(c, KRDMA_CMD_TEST_GET, 0);

	if (!msg || nla_put_u32(msg, KRDMA_A_TEST_ID, st->id)) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return knl_exec(c, msg, fn, st);
}

static int test_send_stop(struct knl_ctx *c, uint32_t id)
{
	struct nl_msg *msg = knl_req(c, KRDMA_CMD_TEST_STOP, 0);

	if (!msg || nla_put_u32(msg, KRDMA_A_TEST_ID, id)) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return knl_exec(c, msg, NULL, NULL);
}

/* test.h */
int test_run_one(struct knl_ctx *c, const struct test_args *a, uint64_t size,
		 struct report_opts *ro, bool *stopped)
{
	struct run_state st;
	struct nl_msg *msg;
	bool stop_sent = false;
	int rc;

	memset(&st, 0, sizeof(st));
	st.ro = ro;
	st.live = isatty(STDOUT_FILENO) && !out_json();
	msg = test_start_msg(c, a, size, st.live ? TEST_LIVE_INTERVAL_MS : 0);
	if (!msg)
		return msg_error();
	if (knl_call(c, msg, start_reply, &st, cmd_what()))
		return 1;
	if (!st.have_id) {
		fprintf(stderr, "krdmactl: %s: the kernel's reply has no test id\n",
			cmd_what());
		return 1;
	}

	while (!st.finished) {
		rc = knl_events_poll(c, TEST_CHECK_MS, run_event, &st);
		if (rc >= 0)
			continue;
		if (rc == -EINTR) {
			sig_received = 0;
			*stopped = true;
			if (stop_sent) {
				if (st.line_shown)
					printf("\n");
				fprintf(stderr, "krdmactl: interrupted again; not waiting for test %u\n",
					st.id);
				return 1;
			}
			if (st.line_shown) {
				printf("\n");
				st.line_shown = false;
			}
			fprintf(stderr, "krdmactl: stopping test %u (interrupt again to stop waiting)\n",
				st.id);
			stop_sent = true;
			rc = test_send_stop(c, st.id);
			/* It may have finished meanwhile: wait for DONE. */
			if (rc && rc != -ENOENT && rc != -ESRCH &&
			    rc != -EALREADY)
				knl_perror(c, rc, "test stop");
			continue;
		}
		if (rc == -EIDRM) {
			if (st.line_shown)
				printf("\n");
			fprintf(stderr, "krdmactl: test %u: the krdma module was unloaded\n",
				st.id);
			return 1;
		}
		if (rc != -ETIMEDOUT && rc != -ENOBUFS) {
			fprintf(stderr, "krdmactl: waiting for krdma events: %s\n",
				strerror(-rc));
			return 1;
		}
		/* Quiet for a while, or events lost: check on the test. */
		rc = test_query(c, &st, run_query_reply);
		if (rc) {
			if (st.line_shown)
				printf("\n");
			knl_perror(c, rc, "test show");
			return 1;
		}
	}
	if (st.status) {
		if (!ro->failure_expected)
			fprintf(stderr, "krdmactl: test %u failed: %s\n", st.id,
				st.reason[0] ? st.reason : strerror(-st.status));
		/* The kernel's status for data that is not what was sent. */
		return st.status == -EBADMSG ? EXIT_TEST_FAIL : EXIT_ERR;
	}
	return EXIT_OK;
}

/*
 * One test, or one per power of two of a size range (a sweep), over
 * a->session, the events open. In text a size written as a range (4K-4K
 * too) is a sweep, a table; any other run one record, a line. JSON has
 * one shape whatever the command line or the outcome: one object,
 * {"schema_version", "results": [a record per test run, in order, none
 * if none could start], "env"} (scripts read d['results'][0]['status']).
 * Exit code 3 for data that failed validation, 4 for a threshold missed (by
 * data that was right): the worse news first.
 */
static int run_tests(struct knl_ctx *c, struct test_args *a)
{
	bool stopped = false;
	struct report_opts ro;
	struct run_env env;
	bool broken = false, wrong = false;
	uint64_t size;
	int rc;

	memset(&ro, 0, sizeof(ro));
	ro.sweep = a->size.range;
	ro.bidir = a->bidir.set;
	ro.plot = a->hist.set;
	ro.expect = &a->expect;
	/* Where it was measured, for JSON records and -s; a session that
	 * is not there is for TEST_START to report.
	 */
	if ((out_json() || opts.stats) && !env_collect(c, &a->session, &env))
		ro.env = &env;
	sig_install();
	open_json_object(NULL);
	print_uint(PRINT_JSON, "schema_version", NULL, REPORT_SCHEMA_VERSION);
	open_json_array("results");
	/* No size (0) runs once, at the kernel's default. */
	for (size = a->size.num; !stopped; size *= 2) {
		rc = test_run_one(c, a, size, &ro, &stopped);
		broken |= rc == EXIT_ERR;
		wrong |= rc == EXIT_TEST_FAIL;
		/* A sweep goes on past a size that fails (say, too large for
		 * the session's queues), but not past a broken session.
		 */
		if ((rc && a->size.num == a->size.num_hi) || !size ||
		    size * 2 > a->size.num_hi)
			break;
	}
	close_json_array();
	/* After the results: the peer's part comes with them. */
	if (ro.env && out_json())
		env_print(ro.env);
	close_json_object();
	out_flush();
	/* Interrupted first: the results printed are partial. */
	if (stopped)
		return EXIT_INTR;
	if (broken)
		return EXIT_ERR;
	if (wrong)
		return EXIT_TEST_FAIL;
	return ro.missed ? EXIT_EXPECT : EXIT_OK;
}

/*
 * The receives a session keeps posted for its own control messages (the
 * kernel's KRDMA_RQ_RESERVE): with the session's defaults (the spec's),
 * what a test's depth is measured against.
 */
#define SESSION_RQ_RESERVE	3
/* Send WRs per message in flight, room for check mode's worst case (a
 * WR per region of a slot, and a chunk's notices). */
#define ONESHOT_SQ_PER_DEPTH	20

static uint64_t clamp_depth(uint64_t v)
{
	return v > KRDMA_QUEUE_DEPTH_MAX ? KRDMA_QUEUE_DEPTH_MAX : v;
}

/*
 * A session that the test of @a fits in, for a one-shot run: max_msg
 * the largest SEND, qps the test's, the queues deep enough for the depth
 * asked for (the defaults unless that is more). What the user gave wins.
 */
static void oneshot_size(struct test_args *a)
{
	struct session_args *s = &a->conn;
	uint64_t d = a->depth.num;
	bool sends = a->op.num == KRDMA_OP_SEND ||
		     a->op.num == KRDMA_OP_SEND_IMM;

	if (!s->maxmsg.set && sends && a->size.set) {
		s->maxmsg.set = true;
		s->maxmsg.num = a->size.num_hi;
	}
	if (a->qps.set) {
		s->qps.set = true;
		s->qps.num = a->qps.num;
	}
	if (!a->depth.set)
		return;
	if (!s->rqd.set && d + SESSION_RQ_RESERVE > KRDMA_A_SESSION_RQ_DEPTH_DEFAULT) {
		s->rqd.set = true;
		s->rqd.num = clamp_depth(d + SESSION_RQ_RESERVE);
	}
	if (!s->sqd.set && d * ONESHOT_SQ_PER_DEPTH + 2 > KRDMA_A_SESSION_SQ_DEPTH_DEFAULT) {
		s->sqd.set = true;
		s->sqd.num = clamp_depth(d * ONESHOT_SQ_PER_DEPTH + 2);
	}
}

/*
 * "test run addr HOST[:PORT] ...", as ib_write_bw HOST: a session of its
 * own, sized for the test and named uniquely (run-PID-TIME, so that two
 * runs never meet), the tests over it, and the session deleted whatever
 * happened: a refusal, a failed test, ^C.
 */
static int test_run_oneshot(struct knl_ctx *c, struct test_args *a, int port)
{
	char name[KRDMA_NAME_MAX], peer[96];
	struct connect_state st;
	struct nl_msg *msg;
	int rc;

	oneshot_size(a);
	snprintf(name, sizeof(name), "run-%d-%lx", (int)getpid(),
		 (unsigned long)time(NULL));
	a->conn.name.set = true;
	a->conn.name.str = name;
	format_endpoint(peer, sizeof(peer), &a->conn.addr.addr, port);
	/* From here on a ^C (a hangup, a reader of stdout gone) must come
	 * back to us, to delete the session. */
	sig_install_owner();
	msg = session_new_msg(c, &a->conn, port);
	if (!msg)
		return msg_error();
	memset(&st, 0, sizeof(st));
	st.owned = true;
	rc = session_connect_wait(c, msg, session_timeout_ms(&a->conn), &st);
	if (!rc && !st.up) {
		fprintf(stderr, "krdmactl: %s: no session to %s: %s\n", cmd_what(),
			peer, st.reason[0] ? st.reason : "no reason given");
		rc = EXIT_ERR;
	}
	if (!rc) {
		a->session.set = a->session.is_num = true;
		a->session.num = st.id;
		rc = run_tests(c, a);
	}
	/* A session left behind is an error of its own, if nothing worse. */
	if (st.have_id && session_del_id(c, st.id) && rc == EXIT_OK)
		rc = EXIT_ERR;
	return rc;
}

static int test_run(int argc, char **argv)
{
	struct test_args a;
	struct knl_ctx *c;
	int rc, port = 0;

	rc = test_parse(&a, true, argc, argv);
	if (rc)
		return rc == ARGS_HELP ? EXIT_OK : EXIT_USAGE;
	if (a.conn.addr.set) {
		port = session_port(&a.conn);
		if (port < 0)
			return EXIT_USAGE;
	}
	/* Subscribe before starting: a short test may be over (a session
	 * up) before the reply to TEST_START (SESSION_NEW) is read. */
	c = knl_get_events();
	if (!c)
		return 1;
	if (a.conn.addr.set)
		return test_run_oneshot(c, &a, port);
	return run_tests(c, &a);
}

static int start_print(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	(void)nlh;
	(void)arg;
	open_json_object(NULL);
	print_attr(tb, KRDMA_A_TEST_ID);
	print_attr(tb, KRDMA_A_SESSION_ID);
	print_nl();
	close_json_object();
	return 0;
}

static int test_start(int argc, char **argv)
{
	struct test_args a;
	struct nl_msg *msg;
	struct knl_ctx *c;
	int rc;

	rc = test_parse(&a, false, argc, argv);
	if (rc)
		return rc == ARGS_HELP ? EXIT_OK : EXIT_USAGE;
	if (a.size.range)
		return usage_error("a size range is for \"test run\"");
	if (a.conn.addr.set)
		return usage_error("a one-shot run (addr) is for \"test run\", which deletes its session at the end");
	if (a.expect.set || a.hist.set)
		return usage_error("%s is for \"test run\", which follows the test to its end",
				   a.expect.set ? "expect" : "histogram");
	c = knl_get();
	if (!c)
		return 1;
	msg = test_start_msg(c, &a, a.size.num, 0);
	if (!msg)
		return msg_error();
	return reply_run(c, msg, start_print, NULL);
}

static int test_stop(int argc, char **argv)
{
	struct arg_val id;
	struct arg_spec specs[] = {
		{ "id", ARG_U32, ARG_POSITIONAL | ARG_REQUIRED, 0, 0, 0, &id,
		  "ID" },
	};
	struct knl_ctx *c;
	int rc;

	c = cmd_begin(specs, ARRAY_SIZE(specs), argc, argv, &rc);
	if (!c)
		return rc;
	rc = test_send_stop(c, (uint32_t)id.num);
	if (rc) {
		knl_perror(c, rc, cmd_what());
		return 1;
	}
	return 0;
}

static int test_show(int argc, char **argv)
{
	struct arg_val id;
	const struct arg_spec key = {
		"id", ARG_U32, ARG_POSITIONAL, 0, 0, 0, &id, "ID"
	};

	return cmd_show_key(argc, argv, &key, KRDMA_CMD_TEST_GET,
			    KRDMA_A_TEST_ID, test_print);
}

static const struct cmd test_cmds[] = {
	{ "run", test_run,
	  "start a test, follow it and print the result (exit 0 only on success)" },
	{ "start", test_start,
	  "start a test in the background and print its id" },
	{ "stop", test_stop, "stop a running test" },
	{ "show", test_show, "list tests, or show one" },
};

const struct object test_obj = {
	.name = "test",
	.desc = "traffic tests over a session",
	.cmds = test_cmds,
	.ncmds = ARRAY_SIZE(test_cmds),
	.dflt = "show",
	.notes =
	"OP and MODE: unique prefixes are accepted; OP's - for _ too\n"
	"MODE: check (default): every iteration acknowledged and its data\n"
	"        compared; bw: a pipeline of depth messages, checked at the end;\n"
	"        lat: one message at a time, with latency percentiles (send,\n"
	"        write, write_imm: one way; read, atomics: the round trip)\n"
	"NUMBER := DIGITS[.DIGITS], the unit right after it, taken exactly\n"
	"SIZE := bytes per message: NUMBER[ K | M | G | T ][ i ][ B ] (units of 1024),\n"
	"        1 to 8M, default 4K; the atomics always move 8 (in check mode a\n"
	"        SIZE of 8-byte words up to 4K is their target, a word in turn).\n"
	"        run takes a range MIN-MAX (MIN a power of two): one test per\n"
	"        power of two, 2-8M\n"
	"TIME := NUMBER{ ns | us | ms | s | m | min | h } (a unit is required), in\n"
	"        whole ms: 1.5s, 2000us\n"
	"count: NUMBER[ k | M | G ] in powers of 1000 (10k, 1.5M)\n"
	/* The spec's bounds and defaults (include/krdma_params.h). */
	"depth: operations in flight (" KRDMACTL_STR(KRDMA_A_TEST_DEPTH_MIN) ".."
	KRDMACTL_STR(KRDMA_A_TEST_DEPTH_MAX) "; bw default "
	KRDMACTL_STR(KRDMA_A_TEST_DEPTH_DEFAULT_BW) ", else "
	KRDMACTL_STR(KRDMA_A_TEST_DEPTH_DEFAULT) "); interval:\n"
	"     progress events (>= 100ms); signal_every: one send WR in N asks for a\n"
	"     completion (bw default " KRDMACTL_STR(KRDMA_A_TEST_SIGNAL_EVERY_DEFAULT)
	"); chain: WRs per post (" KRDMACTL_STR(KRDMA_A_TEST_CHAIN_MIN) ".."
	KRDMACTL_STR(KRDMA_A_TEST_CHAIN_MAX) ", bw default "
	KRDMACTL_STR(KRDMA_A_TEST_CHAIN_DEFAULT_BW) ");\n"
	"     bidir: bw both ways at once, the peer running the same test back;\n"
	"     qps: bw with write, read or the atomics, the messages spread over the\n"
	"     session's first N queue pairs (1..16, at most the session's qps),\n"
	"     depth in flight on each and count split between them\n"
	"run: a live progress line on a terminal; ^C stops the test and still prints\n"
	"     its result. A size range prints one table, 4K-4K too, a table of one;\n"
	"     one size one record. -j: one JSON object whatever the size, its\n"
	"     records in results (results[0] for one size).\n"
	"     Rates: MB/s = 10^6 bytes/s, Gb/s = 10^9 bits/s; krdmactl -M prints\n"
	"     MiB/s = 2^20 bytes/s, the \"MB/sec\" of perftest's ib_*_bw.\n"
	"BW   := NUMBER[ MB/s | GB/s | MiB/s | GiB/s | Mb/s | Gb/s ], MB/s if bare\n"
	"        (perftest's --rate_units M and G are Mb/s and Gb/s: say so)\n"
	"RATE := BW | NUMBER{ pps | kpps | Mpps }: rate, bw mode, at most this (a\n"
	"        packet rate needs size), sent in bursts of burst messages (1..depth,\n"
	"        default chain): perftest's --rate_limit, --rate_units, --burst_size\n"
	"COND := METRIC{ >= | <= }VALUE, held to every size; a miss exits 4:\n"
	"        bw, min_qp_bw (the slowest QP, bw mode): BW;\n"
	"        msg_rate: messages/s, N[k|M|G]; lat mode: p50 p90 p99 p99.9 max avg\n"
	"        stdev: a time with its unit, N{ns|us|ms|s}; quoted, for the shell:\n"
	"  $ krdmactl test run session s1 op send mode lat size 64 expect 'p99<=2ms'\n"
	"histogram: lat mode, the latency histogram plotted after the result\n"
	KRDMACTL_ADDR_HELP
	"addr: a one-shot run, as ib_write_bw HOST: connects a session of its own\n"
	"     (named run-PID-TIME; port, src, timeout, tos, ack_timeout, the depths\n"
	"     and max_msg as for \"session connect\", port default 7362) sized for\n"
	"     the test: max_msg the largest SEND, qps the test's, sq_depth and\n"
	"     rq_depth raised for a large depth; runs the test(s), prints, and\n"
	"     deletes the session whatever happens, ^C included\n",
};
