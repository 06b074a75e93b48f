// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl session: connections between two krdma instances.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "attrs.h"
#include "cmd.h"
#include "output.h"
#include "records.h"
#include "session.h"

/* How long to wait past the connect timeout for the up/down event. */
#define CONNECT_SLACK_MS 5000

int session_print(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	(void)nlh;
	(void)arg;
	open_json_object(NULL);
	print_attrs(tb, krdma_session_get_rsp_attrs,
		    ARRAY_SIZE(krdma_session_get_rsp_attrs));
	if (opts.stats)
		print_attr(tb, KRDMA_A_STATS);
	print_nl();
	close_json_object();
	return 0;
}

/* ---- connect ---- */

static void copy_name(char *dst, struct nlattr *nla)
{
	if (nla)
		snprintf(dst, KRDMA_NAME_MAX, "%s", nla_get_string(nla));
}

static int connect_reply(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct connect_state *st = arg;

	(void)nlh;
	if (!tb[KRDMA_A_SESSION_ID])
		return 0;
	st->have_id = true;
	st->id = nla_get_u32(tb[KRDMA_A_SESSION_ID]);
	copy_name(st->name, tb[KRDMA_A_NAME]);
	return 0;
}

static int connect_event(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct connect_state *st = arg;
	unsigned int ev;

	(void)nlh;
	if (!tb[KRDMA_A_EVENT] || !tb[KRDMA_A_SESSION_ID] ||
	    nla_get_u32(tb[KRDMA_A_SESSION_ID]) != st->id)
		return 0;
	ev = nla_get_u8(tb[KRDMA_A_EVENT]);
	if (ev != KRDMA_EVENT_SESSION_UP && ev != KRDMA_EVENT_SESSION_DOWN)
		return 0;
	st->finished = true;
	st->up = ev == KRDMA_EVENT_SESSION_UP;
	copy_name(st->name, tb[KRDMA_A_NAME]);
	if (tb[KRDMA_A_REASON])
		snprintf(st->reason, sizeof(st->reason), "%s",
			 nla_get_string(tb[KRDMA_A_REASON]));
	return 1;
}

/* SESSION_GET reply while recovering from lost events or a timeout. */
static int connect_query_reply(struct nlattr **tb, struct nlmsghdr *nlh,
			       void *arg)
{
	struct connect_state *st = arg;
	unsigned int state;
	const char *name;

	(void)nlh;
	if (!tb[KRDMA_A_SESSION_STATE])
		return 0;
	state = nla_get_u8(tb[KRDMA_A_SESSION_STATE]);
	name = STRMAP_NAME(krdma_session_state_strmap, state);
	if (state == KRDMA_SESSION_CONNECTING)
		return 0;
	st->finished = true;
	st->up = state == KRDMA_SESSION_UP;
	copy_name(st->name, tb[KRDMA_A_NAME]);
	if (tb[KRDMA_A_REASON])
		snprintf(st->reason, sizeof(st->reason), "%s",
			 nla_get_string(tb[KRDMA_A_REASON]));
	else if (!st->up)
		snprintf(st->reason, sizeof(st->reason), "session is %s",
			 name ? name : "gone");
	return 0;
}

static int connect_query(struct knl_ctx *c, struct connect_state *st)
{
	struct nl_msg *msg = knl_req(c, KRDMA_CMD_SESSION_GET, 0);

	if (!msg || nla_put_u32(msg, KRDMA_A_SESSION_ID, st->id)) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return knl_exec(c, msg, connect_query_reply, st);
}

int session_connect_wait(struct knl_ctx *c, struct nl_msg *msg,
			 int64_t timeout_ms, struct connect_state *st)
{
	int64_t deadline, wait_ms;
	int rc, qrc;

	if (knl_call(c, msg, connect_reply, st, cmd_what()))
		return 1;
	if (!st->have_id) {
		fprintf(stderr, "krdmactl: %s: the kernel's reply has no session id\n",
			cmd_what());
		return 1;
	}

	sig_install();
	wait_ms = CONNECT_SLACK_MS + timeout_ms;
	deadline = now_ms() + wait_ms;
	while (!st->finished) {
		int64_t left = deadline - now_ms();

		rc = knl_events_poll(c, left > 0 ? (int)left : 0, connect_event,
				     st);
		if (rc >= 0)
			continue;
		if (rc == -EINTR) {
			if (st->owned)
				fprintf(stderr, "krdmactl: interrupted; deleting session %u\n",
					st->id);
			else
				fprintf(stderr, "krdmactl: interrupted; session %u is left as it is (\"krdmactl session del %u\" removes it)\n",
					st->id, st->id);
			return EXIT_INTR;
		}
		if (rc == -EIDRM) {
			fprintf(stderr, "krdmactl: session %u: the krdma module was unloaded\n",
				st->id);
			return 1;
		}
		if (rc != -ENOBUFS && rc != -ETIMEDOUT) {
			fprintf(stderr, "krdmactl: waiting for krdma events: %s\n",
				strerror(-rc));
			return 1;
		}
		/* Events were lost, or none came in time: ask directly. */
		qrc = connect_query(c, st);
		if (st->finished)
			break;
		if (rc == -ENOBUFS)
			continue;
		if (qrc)
			knl_perror(c, qrc, "session show");
		else
			fprintf(stderr, "krdmactl: session %u: no up/down event within %lld ms; it is still connecting\n",
				st->id, (long long)wait_ms);
		return 1;
	}
	return 0;
}

static int connect_result(const struct connect_state *st)
{
	/* Success: the record on stdout.  Failure: the reason on stderr
	 * (and, with -j, the record with "state": "down" on stdout). */
	if (!st->up && !out_json())
		goto failed;
	open_json_object(NULL);
	print_uint(PRINT_ANY, "session_id", "session %" PRIu64, st->id);
	if (st->name[0])
		print_string(PRINT_ANY, "name", " name %s", st->name);
	print_string(PRINT_ANY, "state", " %s", st->up ? "up" : "down");
	if (!st->up && st->reason[0])
		print_string(PRINT_JSON, "reason", NULL, st->reason);
	print_nl();
	close_json_object();
	out_flush();
	if (st->up)
		return 0;
failed:
	fprintf(stderr, "krdmactl: session %u%s%s failed to connect: %s\n",
		st->id, st->name[0] ? " name " : "", st->name,
		st->reason[0] ? st->reason : "no reason given");
	return 1;
}

int session_port(const struct session_args *s)
{
	int p = cmd_port(&s->addr, &s->port);

	if (p >= 0 && s->src.set && s->src.addr.family != s->addr.addr.family) {
		usage_error("'src' and 'addr' must be of the same address family");
		return -1;
	}
	if (p >= 0 && cmd_ack_timeout(&s->ack))
		return -1;
	return p;
}

struct nl_msg *session_new_msg(struct knl_ctx *c, const struct session_args *s,
			       int port)
{
	struct nl_msg *msg = knl_req(c, KRDMA_CMD_SESSION_NEW, 0);

	if (!msg)
		return NULL;
	if (put_endpoint(msg, KRDMA_A_PEER_ADDR, &s->addr.addr, port) ||
	    (s->src.set && put_endpoint(msg, KRDMA_A_LOCAL_ADDR, &s->src.addr,
					s->src.has_port ? s->src.port : -1)) ||
	    (s->name.set && nla_put_string(msg, KRDMA_A_NAME, s->name.str)) ||
	    (s->timeout.set && nla_put_u32(msg, KRDMA_A_TIMEOUT_MS,
					   (uint32_t)s->timeout.num)) ||
	    (s->sqd.set && nla_put_u32(msg, KRDMA_A_SESSION_SQ_DEPTH,
				       (uint32_t)s->sqd.num)) ||
	    (s->rqd.set && nla_put_u32(msg, KRDMA_A_SESSION_RQ_DEPTH,
				       (uint32_t)s->rqd.num)) ||
	    (s->maxmsg.set && nla_put_u32(msg, KRDMA_A_SESSION_MAX_MSG_SIZE,
					  (uint32_t)s->maxmsg.num)) ||
	    (s->qps.set && nla_put_u32(msg, KRDMA_A_SESSION_QPS,
				       (uint32_t)s->qps.num)) ||
	    (s->tos.set && nla_put_u8(msg, KRDMA_A_SESSION_TOS,
				      (uint8_t)s->tos.num)) ||
	    (s->ack.set && nla_put_u8(msg, KRDMA_A_SESSION_ACK_TIMEOUT,
				      (uint8_t)s->ack.num)) ||
	    (s->rnr.set && nla_put_u8(msg, KRDMA_A_SESSION_RNR_RETRY,
				      (uint8_t)s->rnr.num)) ||
	    (s->maxsge.set && nla_put_u32(msg, KRDMA_A_SESSION_MAX_SGE,
					  (uint32_t)s->maxsge.num))) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

int64_t session_timeout_ms(const struct session_args *s)
{
	/* Without one, the kernel's default applies: wait for the longest. */
	return s->timeout.set ? (int64_t)s->timeout.num : KRDMA_TIMEOUT_MS_MAX;
}

int session_del_id(struct knl_ctx *c, uint32_t id)
{
	struct nl_msg *msg = knl_req(c, KRDMA_CMD_SESSION_DEL, 0);
	int rc;

	if (!msg || nla_put_u32(msg, KRDMA_A_SESSION_ID, id)) {
		nlmsg_free(msg);
		fprintf(stderr, "krdmactl: session del %u: out of memory\n", id);
		return -ENOMEM;
	}
	rc = knl_exec(c, msg, NULL, NULL);
	if (rc == -ENOENT)
		return 0;
	if (rc)
		knl_perror(c, rc, "session del");
	return rc;
}

/*
 * "session connect"'s keywords, also those of a one-shot "test run addr
 * ADDR" (sess_only: without name and qps, which the test decides).
 */
size_t session_specs(struct session_args *s, struct arg_spec *specs,
		     bool sess_only)
{
	const struct arg_spec all[] = {
		{ "addr", ARG_ADDR, ARG_REQUIRED, 0, 0, 0, &s->addr, "ADDR" },
		{ "port", ARG_PORT, 0, 0, 0, 0, &s->port, "PORT" },
		{ "name", ARG_NAME, 0, 0, 0, 0, &s->name, "NAME" },
		{ "src", ARG_ADDR, 0, 0, 0, 0, &s->src, "ADDR" },
		{ "timeout", ARG_DURATION, 0, 0, KRDMA_TIMEOUT_MS_MIN,
		  KRDMA_TIMEOUT_MS_MAX, &s->timeout, "TIME" },
		{ "sq_depth", ARG_U32, 0, 0, KRDMA_QUEUE_DEPTH_MIN,
		  KRDMA_QUEUE_DEPTH_MAX, &s->sqd, "N" },
		{ "rq_depth", ARG_U32, 0, 0, KRDMA_QUEUE_DEPTH_MIN,
		  KRDMA_QUEUE_DEPTH_MAX, &s->rqd, "N" },
		{ "max_msg", ARG_SIZE, 0, 0, 1, KRDMA_MSG_SIZE_MAX, &s->maxmsg,
		  "SIZE" },
		{ "qps", ARG_U32, 0, 0, 1, KRDMA_QPS_MAX, &s->qps, "N" },
		{ "tos", ARG_U32, 0, 0, 0, 255, &s->tos, "N" },
		{ "ack_timeout", ARG_U32, 0, 0, 0, KRDMA_ACK_TIMEOUT_MAX, &s->ack,
		  "N" },
		{ "rnr_retry", ARG_U32, 0, 0, 0, 7, &s->rnr, "N" },
		{ "max_sge", ARG_U32, 0, 0, 1, KRDMA_SGE_MAX, &s->maxsge, "N" },
	};
	size_t i, n = 0;

	for (i = 0; i < ARRAY_SIZE(all); i++) {
		if (sess_only && (all[i].val == &s->name ||
				  all[i].val == &s->qps))
			continue;
		specs[n++] = all[i];
	}
	return n;
}

static int session_connect(int argc, char **argv)
{
	struct arg_spec specs[SESSION_SPECS_MAX];
	struct connect_state st;
	struct session_args s;
	struct nl_msg *msg;
	struct knl_ctx *c;
	size_t n;
	int rc, p;

	n = session_specs(&s, specs, false);
	rc = cmd_args(specs, n, argc, argv);
	if (rc)
		return rc == ARGS_HELP ? EXIT_OK : EXIT_USAGE;
	p = session_port(&s);
	if (p < 0)
		return EXIT_USAGE;

	/* Subscribe first: the outcome may be multicast before we read the
	 * reply to SESSION_NEW. */
	c = knl_get_events();
	if (!c)
		return 1;
	msg = session_new_msg(c, &s, p);
	if (!msg)
		return msg_error();
	memset(&st, 0, sizeof(st));
	if (s.name.set)
		snprintf(st.name, sizeof(st.name), "%s", s.name.str);
	rc = session_connect_wait(c, msg, session_timeout_ms(&s), &st);
	if (rc)
		return rc;
	return connect_result(&st);
}

static int session_del(int argc, char **argv)
{
	return cmd_del_ref(argc, argv, KRDMA_CMD_SESSION_DEL, KRDMA_A_SESSION_ID);
}

static int session_show(int argc, char **argv)
{
	return cmd_show_ref(argc, argv, KRDMA_CMD_SESSION_GET, KRDMA_A_SESSION_ID,
			    session_print);
}

static const struct cmd session_cmds[] = {
	{ "connect", session_connect,
	  "connect to a listener and wait until the session is up or down" },
	{ "del", session_del,
	  "disconnect and remove a session" },
	{ "show", session_show,
	  "list sessions, or show one (-s adds its counters)" },
};

const struct object session_obj = {
	.name = "session",
	.desc = "connections to a peer",
	.cmds = session_cmds,
	.ncmds = ARRAY_SIZE(session_cmds),
	.dflt = "show",
	.notes =
	KRDMACTL_ADDR_HELP
	KRDMACTL_PORT_HELP
	"TIME := NUMBER{ ns | us | ms | s | m | min | h } (a unit is required), in\n"
	"        whole ms, 100ms to 60s: 2.5s, 500ms\n"
	"NAME := up to 31 printable characters without spaces, not all digits\n"
	"qps: queue pairs to the peer, the control one included ("
	KRDMACTL_STR(KRDMA_A_SESSION_QPS_MIN) ".." KRDMACTL_STR(KRDMA_A_SESSION_QPS_MAX)
	", default " KRDMACTL_STR(KRDMA_A_SESSION_QPS_DEFAULT) ");\n"
	"     the others carry the RDMA traffic of bw tests run with qps > 1\n"
	KRDMACTL_ACK_TIMEOUT_HELP
	"connect prints \"session ID name NAME up\" and exits 0 once the session\n"
	"is up; if it goes down instead, it prints the reason and exits 1.\n"
	"  $ krdmactl session connect addr 192.0.2.1 name s1 timeout 2.5s qps 4\n",
};
