// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl ping: is a krdma peer there? As ping(8): connect a session
 * (its time on a line of its own), then count round trips, each timed
 * on its own and validated, interval apart, a line each; a summary with
 * min/avg/max/mdev; the session taken down again.
 *
 * The kernel reports a test's latency as figures over all its round
 * trips (min, percentiles, avg, stdev), not each one, and a check-mode
 * test's elapsed time includes its setup with the peer. So each round
 * trip is a lat-mode test of one send: its single sample is that round
 * trip, timed by the kernel from post to answer, setup excluded, its
 * data checked by the peer (lat mode checks the first message of a
 * test, the only one here).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <netlink/genl/genl.h>

#include "attrs.h"
#include "cmd.h"
#include "env.h"
#include "output.h"
#include "session.h"
#include "test.h"

#define PING_SIZE_DFLT		64
#define PING_COUNT_DFLT		5
#define PING_INTERVAL_MS_DFLT	1000
#define PING_INTERVAL_MS_MAX	60000

/* The round trips timed so far, for the summary. */
struct ping_stats {
	uint64_t n;		/* round trips timed */
	uint64_t validated;
	uint64_t min_ns, max_ns;
	double sum, sum2;	/* of the ns, and of their squares */
	int32_t status;		/* the kernel's, of the last that failed */
	struct run_env *env;	/* the peer's part from a round trip; or NULL */
};

static void ping_stats_add(struct ping_stats *s, uint64_t ns)
{
	if (!s->n || ns < s->min_ns)
		s->min_ns = ns;
	if (ns > s->max_ns)
		s->max_ns = ns;
	s->sum += (double)ns;
	s->sum2 += (double)ns * (double)ns;
	s->n++;
}

/* The square root of @v, to the nanosecond: no libm for one call. */
static uint64_t isqrt(uint64_t v)
{
	uint64_t x = v, y;

	if (v < 2)
		return v;
	y = (x + 1) / 2;
	while (y < x) {
		x = y;
		y = (x + v / x) / 2;
	}
	return x;
}

/* ping(8)'s mdev: the standard deviation of the round trips. */
static uint64_t ping_mdev_ns(const struct ping_stats *s)
{
	double avg, var;
	uint64_t r;

	if (!s->n)
		return 0;
	avg = s->sum / (double)s->n;
	var = s->sum2 / (double)s->n - avg * avg;
	if (var <= 0)
		return 0;
	/* Rounded to the nearest: r + 1/2 below the root. */
	r = isqrt((uint64_t)var);
	return (double)r * (double)r + (double)r < var ? r + 1 : r;
}

/*
 * The round trip of a lat-mode result: the kernel records half of it
 * (the one-way latency of a send), so twice that, to within 1 ns.
 */
static bool ping_rtt_ns(const struct test_result *res, uint64_t *ns)
{
	if (!res->lat_has[KRDMA_LAT_A_MIN_NS] ||
	    !res->lat_has[KRDMA_LAT_A_SAMPLES] || !res->lat[KRDMA_LAT_A_SAMPLES])
		return false;
	*ns = 2 * res->lat[KRDMA_LAT_A_MIN_NS];
	return true;
}

/* Between round trips: has our session gone down? */
static int ping_wait_event(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	const uint32_t *sess = arg;

	(void)nlh;
	return tb[KRDMA_A_EVENT] && tb[KRDMA_A_SESSION_ID] &&
	       nla_get_u8(tb[KRDMA_A_EVENT]) == KRDMA_EVENT_SESSION_DOWN &&
	       nla_get_u32(tb[KRDMA_A_SESSION_ID]) == *sess;
}

/*
 * Waits @ms between two round trips, as ping(8)'s interval, watching
 * session @sess: 0, -EINTR on ^C, -ENOTCONN if it went down, -EIDRM if
 * the module went away.
 */
static int ping_wait(struct knl_ctx *c, uint32_t sess, int64_t ms)
{
	int64_t deadline = now_ms() + ms, left;
	int rc;

	while ((left = deadline - now_ms()) > 0) {
		rc = knl_events_poll(c, (int)left, ping_wait_event, &sess);
		if (rc > 0)
			return -ENOTCONN;
		/* Timed out: the wait is over. Lost events: the next test
		 * finds out whether the session is still there. */
		if (rc == -ETIMEDOUT)
			break;
		if (rc < 0 && rc != -ENOBUFS)
			return rc;
	}
	return 0;
}

/* One round trip: a line "64 B from PEER: seq=N rtt=41.234 us validated". */
static int ping_once(struct knl_ctx *c, const struct test_args *a,
		     uint64_t size, const char *peer, uint64_t seq,
		     struct ping_stats *s, bool *stopped)
{
	struct report_opts ro = { .quiet = true, .env = s->env };
	uint64_t ns;
	int rc;

	rc = test_run_one(c, a, size, &ro, stopped);
	if (ro.last_status)
		s->status = ro.last_status;
	if (!ro.last.iters)
		return rc;
	if (!ping_rtt_ns(&ro.last, &ns)) {
		fprintf(stderr, "krdmactl: ping %s: the kernel's result of test %u has no latency figure\n",
			peer, ro.last.id);
		return EXIT_ERR;
	}
	ping_stats_add(s, ns);
	/* One round trip validated, however many checks both ends made. */
	s->validated += !!ro.last.validated;
	print_uint(PRINT_JSON, NULL, NULL, ns);
	print_text("%" PRIu64 " B from %s: seq=%" PRIu64 " rtt=%.3f us %s\n",
		   ro.last.size, peer, seq, (double)ns / 1e3,
		   ro.last.validated ? "validated" : "NOT validated");
	/*
	 * A reader of these lines that has gone (ping | head: EPIPE, SIGPIPE
	 * being ignored) is the end of the ping, as for ping(8): the caller
	 * deletes the session, instead of pinging unseen to the count.
	 */
	if (!out_json() && out_flush())
		return EXIT_ERR;
	return rc;
}

/* "--- PEER krdma ping ---", the counts, "rtt min/avg/max/mdev = ...". */
static void ping_summary(const char *peer, const struct ping_stats *s,
			 int64_t time_ms)
{
	uint64_t avg = s->n ? (uint64_t)(s->sum / (double)s->n + 0.5) : 0;
	uint64_t mdev = ping_mdev_ns(s);

	print_text("--- %s krdma ping statistics ---\n", peer);
	print_uint(PRINT_ANY, "round_trips", "%" PRIu64 " round trips", s->n);
	print_uint(PRINT_ANY, "validated", ", %" PRIu64 " validated",
		   s->validated);
	print_uint(PRINT_ANY, "time_ms", ", time %" PRIu64 " ms",
		   (uint64_t)time_ms);
	print_nl();
	if (!s->n)
		return;
	print_uint(PRINT_JSON, "rtt_min_ns", NULL, s->min_ns);
	print_uint(PRINT_JSON, "rtt_avg_ns", NULL, avg);
	print_uint(PRINT_JSON, "rtt_max_ns", NULL, s->max_ns);
	print_uint(PRINT_JSON, "rtt_mdev_ns", NULL, mdev);
	/* The mean in microseconds, as schema 2's readers know it. */
	print_float(PRINT_JSON, "rtt_us", NULL, (double)avg / 1e3, 3);
	print_text("rtt min/avg/max/mdev = %.3f/%.3f/%.3f/%.3f us\n",
		   (double)s->min_ns / 1e3, (double)avg / 1e3,
		   (double)s->max_ns / 1e3, (double)mdev / 1e3);
}

/*
 * The round trips over session @sess: one lat-mode send test each, until
 * @count are done, one could not run (the session is likely gone), or ^C.
 * A round trip whose data came back wrong is said, and the next one runs.
 */
static int ping_round_trips(struct knl_ctx *c, uint32_t sess, const char *peer,
			    uint64_t count, uint64_t size, int64_t interval_ms,
			    struct ping_stats *s, bool *stopped)
{
	bool wrong = false;
	struct test_args a;
	uint64_t seq;
	int rc = EXIT_OK;

	memset(&a, 0, sizeof(a));
	a.session.set = a.session.is_num = true;
	a.session.num = sess;
	a.op.set = true;
	a.op.num = KRDMA_OP_SEND;
	a.mode.set = true;
	a.mode.num = KRDMA_MODE_LAT;
	a.count.set = true;
	a.count.num = 1;
	open_json_array("rtt_ns");
	for (seq = 1; seq <= count; seq++) {
		if (seq > 1)
			rc = ping_wait(c, sess, interval_ms);
		if (rc == -EINTR) {
			sig_received = 0;
			*stopped = true;
			rc = EXIT_OK;
			break;
		}
		if (rc < 0) {
			fprintf(stderr, "krdmactl: ping %s: %s\n", peer,
				rc == -ENOTCONN ? "the session went down" :
				rc == -EIDRM ? "the krdma module was unloaded" :
				strerror(-rc));
			rc = EXIT_ERR;
			break;
		}
		rc = ping_once(c, &a, size, peer, seq, s, stopped);
		wrong |= rc == EXIT_TEST_FAIL;
		if (*stopped || (rc && rc != EXIT_TEST_FAIL))
			break;
	}
	close_json_array();
	if (rc && rc != EXIT_TEST_FAIL)
		return rc;
	return wrong ? EXIT_TEST_FAIL : EXIT_OK;
}

static int ping_run(int argc, char **argv)
{
	struct arg_val addr, port, count, size, timeout, interval;
	struct arg_spec specs[] = {
		{ "addr", ARG_ADDR, ARG_REQUIRED | ARG_POSITIONAL, 0, 0, 0,
		  &addr, "ADDR[:PORT]" },
		{ "port", ARG_PORT, 0, 0, 0, 0, &port, "PORT" },
		{ "count", ARG_COUNT, 0, 0, 1, 1000000, &count, "N" },
		{ "interval", ARG_DURATION, 0, 0, 0, PING_INTERVAL_MS_MAX,
		  &interval, "TIME" },
		{ "size", ARG_SIZE, 0, 0, 1, KRDMA_MSG_SIZE_MAX, &size, "SIZE" },
		{ "timeout", ARG_DURATION, 0, 0, KRDMA_TIMEOUT_MS_MIN,
		  KRDMA_TIMEOUT_MS_MAX, &timeout, "TIME" },
	};
	struct arg_val sess_ref = { .set = true, .is_num = true };
	struct ping_stats stats;
	struct connect_state st;
	struct run_env env;
	bool have_env = false;
	struct knl_ctx *c;
	struct nl_msg *msg;
	bool stopped = false;
	char name[KRDMA_NAME_MAX], peer[96];
	int64_t t0, connect_ms;
	uint32_t tmo;
	int rc, p;

	rc = cmd_args(specs, ARRAY_SIZE(specs), argc, argv);
	if (rc)
		return rc == ARGS_HELP ? EXIT_OK : EXIT_USAGE;
	p = cmd_port(&addr, &port);
	if (p < 0)
		return EXIT_USAGE;
	/* The whole command line is checked before the kernel is asked. */
	c = knl_get_events();
	if (!c)
		return EXIT_ERR;
	format_endpoint(peer, sizeof(peer), &addr.addr, p);
	tmo = timeout.set ? (uint32_t)timeout.num : KRDMA_A_TIMEOUT_MS_DEFAULT;
	/* A name of its own, so that a ping is told apart in session show. */
	snprintf(name, sizeof(name), "ping-%d", (int)getpid());

	/* The session is ours to delete, whatever stops us (session.h). */
	sig_install_owner();
	msg = knl_req(c, KRDMA_CMD_SESSION_NEW, 0);
	if (!msg || put_endpoint(msg, KRDMA_A_PEER_ADDR, &addr.addr, p) ||
	    nla_put_string(msg, KRDMA_A_NAME, name) ||
	    nla_put_u32(msg, KRDMA_A_TIMEOUT_MS, tmo))
		return msg_error();
	memset(&st, 0, sizeof(st));
	st.owned = true;
	t0 = now_ms();
	rc = session_connect_wait(c, msg, tmo, &st);
	if (rc) {
		if (st.have_id)
			session_del_id(c, st.id);
		return rc;
	}
	connect_ms = now_ms() - t0;
	if (!st.up) {
		fprintf(stderr, "krdmactl: ping %s: no krdma session: %s\n", peer,
			st.reason[0] ? st.reason : "no reason given");
		return EXIT_ERR;
	}

	/* Where and when, as a test's record says it (-j, -s). */
	sess_ref.num = st.id;
	if (out_json() || opts.stats)
		have_env = !env_collect(c, &sess_ref, &env);
	open_json_object(NULL);
	print_uint(PRINT_JSON, "schema_version", NULL, REPORT_SCHEMA_VERSION);
	print_string(PRINT_ANY, "peer", "ping %s:", peer);
	print_uint(PRINT_ANY, "session_id", " session %" PRIu64, st.id);
	print_uint(PRINT_ANY, "connect_ms", " connected in %" PRIu64 " ms",
		   (uint64_t)connect_ms);
	print_uint(PRINT_JSON, "size", NULL,
		   size.set ? size.num : PING_SIZE_DFLT);
	print_nl();
	if (!out_json())
		out_flush();
	memset(&stats, 0, sizeof(stats));
	stats.env = have_env ? &env : NULL;
	t0 = now_ms();
	rc = ping_round_trips(c, st.id, peer,
			      count.set ? count.num : PING_COUNT_DFLT,
			      size.set ? size.num : PING_SIZE_DFLT,
			      interval.set ? (int64_t)interval.num
					   : PING_INTERVAL_MS_DFLT,
			      &stats, &stopped);
	ping_summary(peer, &stats, now_ms() - t0);
	print_int(PRINT_JSON, "status", NULL, stats.status);
	print_bool(PRINT_JSON, "ok", NULL, rc == EXIT_OK && !stopped);
	if (have_env) {
		env_print(&env);
		print_nl();
	}
	close_json_object();
	out_flush();
	/* A failure is said; the exit status is the round trips'. */
	session_del_id(c, st.id);
	if (stopped)
		return EXIT_INTR;
	return rc;
}

const struct object ping_obj = {
	.name = "ping",
	.desc = "connect to a krdma peer, time validated round trips, disconnect",
	.fn = ping_run,
	.notes = "As ping(8): connects a session to the listener at ADDR:PORT (within\n"
		 "timeout, default 10s) and prints the time that took on a line of its\n"
		 "own; then count (default 5) round trips, interval (default 1s, 0ms: back\n"
		 "to back) apart, each a send of size bytes (default 64) that the peer\n"
		 "checks and answers, timed on its own by the kernel (a lat-mode test of\n"
		 "one message: the setup of the test is not in its time), a line each;\n"
		 "then min/avg/max/mdev of the round trips, and deletes the session.\n"
		 "^C (SIGTERM, SIGHUP too) stops it; it still prints the summary and\n"
		 "exits 130. -j: one object, the round trips in rtt_ns. Exit 0 if every\n"
		 "round trip was validated, 3 if data came back wrong, 1 if there was no\n"
		 "session or a round trip could not run.\n"
		 "N := NUMBER[ k | M ] (1..1000000); TIME := NUMBER{ ns | us | ms | s | m |\n"
		 "     min | h }, in whole ms (0.5s, 250ms); SIZE := NUMBER[ K | M ][ i ][ B ]\n"
		 "  $ krdmactl ping 192.0.2.1 count 10 interval 0.5s timeout 2.5s\n"
		 KRDMACTL_ADDR_HELP
		 KRDMACTL_PORT_HELP,
};
