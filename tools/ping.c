// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl ping: is a krdma peer there? Connect a session, send it
 * validated round trips, print the times, take the session down again.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <netlink/genl/genl.h>

#include "attrs.h"
#include "cmd.h"
#include "output.h"
#include "session.h"
#include "test.h"

#define PING_SIZE_DFLT		64
#define PING_TIMEOUT_MS_DFLT	10000

static void ping_print(const char *peer, uint32_t sess, int64_t connect_ms,
		       const struct report_opts *ro, int rc)
{
	const struct test_result *res = &ro->last;
	double rtt_us = res->iters ?
			(double)res->elapsed_ns / (double)res->iters / 1e3 : 0;

	open_json_object(NULL);
	print_uint(PRINT_JSON, "schema_version", NULL, REPORT_SCHEMA_VERSION);
	print_string(PRINT_ANY, "peer", "ping %s:", peer);
	print_uint(PRINT_ANY, "session_id", " session %" PRIu64, sess);
	print_uint(PRINT_ANY, "connect_ms", " connected in %" PRIu64 " ms",
		   (uint64_t)connect_ms);
	print_uint(PRINT_ANY, "round_trips", ", %" PRIu64, res->iters);
	print_uint(PRINT_ANY, "size", " round trips of %" PRIu64 " B", res->size);
	print_uint(PRINT_ANY, "validated", ", %" PRIu64 " validated", res->validated);
	print_float(PRINT_ANY, "rtt_us", ", rtt %.1f us", rtt_us, 1);
	print_int(PRINT_JSON, "status", NULL, ro->last_status);
	print_bool(PRINT_JSON, "ok", NULL, rc == EXIT_OK);
	print_nl();
	close_json_object();
	out_flush();
}

static int ping_run(int argc, char **argv)
{
	struct arg_val addr, port, count, size, timeout;
	struct arg_spec specs[] = {
		{ "addr", ARG_ADDR, ARG_REQUIRED | ARG_POSITIONAL, 0, 0, 0,
		  &addr, "ADDR[:PORT]" },
		{ "port", ARG_PORT, 0, 0, 0, 0, &port, "PORT" },
		{ "count", ARG_COUNT, 0, 0, 1, 1000000, &count, "N" },
		{ "size", ARG_SIZE, 0, 0, 1, KRDMA_MSG_SIZE_MAX, &size, "SIZE" },
		{ "timeout", ARG_DURATION, 0, 0, KRDMA_TIMEOUT_MS_MIN,
		  KRDMA_TIMEOUT_MS_MAX, &timeout, "TIME" },
	};
	struct report_opts ro = { .quiet = true };
	struct connect_state st;
	struct test_args a;
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
	c = knl_get();
	if (!c)
		return EXIT_ERR;
	format_endpoint(peer, sizeof(peer), &addr.addr, p);
	tmo = timeout.set ? (uint32_t)timeout.num : PING_TIMEOUT_MS_DFLT;
	/* A name of its own, so that a ping is told apart in session show. */
	snprintf(name, sizeof(name), "ping-%d", (int)getpid());

	if (knl_events_open(c))
		return EXIT_ERR;
	msg = knl_req(c, KRDMA_CMD_SESSION_NEW, 0);
	if (!msg || put_endpoint(msg, KRDMA_A_PEER_ADDR, &addr.addr, p) ||
	    nla_put_string(msg, KRDMA_A_NAME, name) ||
	    nla_put_u32(msg, KRDMA_A_TIMEOUT_MS, tmo))
		return msg_error();
	memset(&st, 0, sizeof(st));
	t0 = now_ms();
	rc = session_connect_wait(c, msg, tmo, &st);
	if (rc)
		return rc;
	connect_ms = now_ms() - t0;
	if (!st.up) {
		fprintf(stderr, "krdmactl: ping %s: no krdma session: %s\n", peer,
			st.reason[0] ? st.reason : "no reason given");
		return EXIT_ERR;
	}

	/* Check mode: the peer compares every byte and acknowledges it. */
	memset(&a, 0, sizeof(a));
	a.session.set = a.session.is_num = true;
	a.session.num = st.id;
	a.op.set = true;
	a.op.num = KRDMA_OP_SEND;
	a.count.set = true;
	a.count.num = count.set ? count.num : 1;
	rc = test_run_one(c, &a, size.set ? size.num : PING_SIZE_DFLT, &ro,
			  &stopped);
	if (ro.last.iters)
		ping_print(peer, st.id, connect_ms, &ro, rc);
	/* A failure is said; the exit status is the test's. */
	session_del_id(c, st.id);
	if (stopped)
		return EXIT_INTR;
	return rc;
}

const struct object ping_obj = {
	.name = "ping",
	.desc = "connect to a krdma peer, time validated round trips, disconnect",
	.fn = ping_run,
	.notes = "Connects a session to the listener at ADDR:PORT (within timeout, default\n"
		 "10s), sends count messages (default 1) of size bytes (default 64) in\n"
		 "check mode - each compared by the peer and acknowledged - prints the\n"
		 "time to connect and the mean round trip, and deletes the session.\n"
		 "Exit 0 if every round trip was validated, 3 if data came back wrong,\n"
		 "1 if there was no session.\n"
		 KRDMACTL_ADDR_HELP
		 KRDMACTL_PORT_HELP,
};
