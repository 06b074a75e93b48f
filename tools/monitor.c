// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl monitor: print krdma events as they happen.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <netlink/genl/genl.h>

#include "attrs.h"
#include "cmd.h"
#include "output.h"
#include "records.h"

/*
 * What "monitor" was asked for: a time on every event, and filters
 * (all of those given must match).
 */
struct monitor_opts {
	bool timestamp;
	bool by_session, by_test;
	bool session_known;	/* session_id found (a name resolved) */
	uint32_t session_id;
	const char *session_name;	/* NULL if given by id */
	uint32_t test_id;
};

/*
 * Whether @tb is an event of the session asked for. A session named
 * before it exists is known by its events (a session's own carry its
 * name); from then on by id, which is all a test's events carry.
 */
static bool session_matches(struct monitor_opts *m, struct nlattr **tb)
{
	if (!tb[KRDMA_A_SESSION_ID])
		return false;
	if (!m->session_known && tb[KRDMA_A_NAME] && !tb[KRDMA_A_TEST_ID] &&
	    !strcmp(nla_get_string(tb[KRDMA_A_NAME]), m->session_name)) {
		m->session_known = true;
		m->session_id = nla_get_u32(tb[KRDMA_A_SESSION_ID]);
	}
	return m->session_known &&
	       nla_get_u32(tb[KRDMA_A_SESSION_ID]) == m->session_id;
}

static bool event_wanted(struct monitor_opts *m, struct nlattr **tb)
{
	if (!m)
		return true;
	if (m->by_test && (!tb[KRDMA_A_TEST_ID] ||
			   nla_get_u32(tb[KRDMA_A_TEST_ID]) != m->test_id))
		return false;
	return !m->by_session || session_matches(m, tb);
}

/* One line of text, or one JSON object per line. */
int event_print(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct monitor_opts *m = arg;
	const char *name = NULL;
	char buf[32], now[40];

	(void)nlh;
	if (!event_wanted(m, tb))
		return 0;
	if (tb[KRDMA_A_EVENT])
		name = STRMAP_NAME(krdma_event_strmap,
				   nla_get_u8(tb[KRDMA_A_EVENT]));
	if (!name) {
		snprintf(buf, sizeof(buf), "unknown(%u)",
			 tb[KRDMA_A_EVENT] ? nla_get_u8(tb[KRDMA_A_EVENT]) : 0);
		name = buf;
	}
	open_json_object(NULL);
	if (m && m->timestamp) {
		/* When it was received: the kernel's events carry no time. */
		format_utc_now(now, sizeof(now), true);
		print_string(PRINT_ANY, "timestamp", "[%s] ", now);
	}
	print_string(PRINT_ANY, "event", "%s", name);
	print_attrs_then_rest(tb, krdma_event_ntf_attrs,
			      ARRAY_SIZE(krdma_event_ntf_attrs));
	print_nl();
	close_json_object();
	fflush(out_file());
	return 0;
}

static int session_id_reply(struct nlattr **tb, struct nlmsghdr *nlh,
			    void *arg)
{
	struct monitor_opts *m = arg;

	(void)nlh;
	if (tb[KRDMA_A_SESSION_ID]) {
		m->session_known = true;
		m->session_id = nla_get_u32(tb[KRDMA_A_SESSION_ID]);
	}
	return 0;
}

/*
 * The id of the session named, if it exists now (after subscribing, so
 * that nothing falls between); one that does not is waited for.
 */
static int resolve_session(struct knl_ctx *c, struct monitor_opts *m)
{
	struct nl_msg *msg = knl_req(c, KRDMA_CMD_SESSION_GET, 0);
	int rc;

	if (!msg || nla_put_string(msg, KRDMA_A_NAME, m->session_name)) {
		nlmsg_free(msg);
		return msg_error();
	}
	rc = knl_exec(c, msg, session_id_reply, m);
	if (rc && rc != -ENOENT) {
		knl_perror(c, rc, "session show");
		return 1;
	}
	return 0;
}

static int monitor_run(int argc, char **argv)
{
	struct arg_val ts, sess, test;
	struct arg_spec specs[] = {
		{ "timestamp", ARG_FLAG, 0, 0, 0, 0, &ts, NULL },
		{ "session", ARG_REF, 0, 0, 0, 0, &sess, "{ ID | NAME }" },
		{ "test", ARG_U32, 0, 0, 0, 0, &test, "ID" },
	};
	struct monitor_opts m;
	struct knl_ctx *c;
	int rc;

	c = cmd_begin(specs, ARRAY_SIZE(specs), argc, argv, &rc);
	if (!c)
		return rc;
	memset(&m, 0, sizeof(m));
	m.timestamp = ts.set;
	m.by_session = sess.set;
	m.session_known = sess.set && sess.is_num;
	m.session_id = (uint32_t)sess.num;
	m.session_name = sess.str;
	m.by_test = test.set;
	m.test_id = (uint32_t)test.num;
	sig_install();
	if (knl_events_open(c))
		return 1;
	if (m.by_session && !m.session_known && resolve_session(c, &m))
		return 1;
	for (;;) {
		rc = knl_events_poll(c, -1, event_print, &m);
		if (rc >= 0 || rc == -ETIMEDOUT)
			continue;
		if (rc == -EINTR)
			return 0;
		if (rc == -EIDRM) {
			fprintf(stderr, "krdmactl: the krdma module was unloaded\n");
			return 1;
		}
		if (rc == -ENOBUFS) {
			fprintf(stderr, "krdmactl: warning: event queue overrun, some events were lost\n");
			continue;
		}
		fprintf(stderr, "krdmactl: waiting for krdma events: %s\n",
			strerror(-rc));
		return 1;
	}
}

const struct object monitor_obj = {
	.name = "monitor",
	.desc = "print krdma events until interrupted",
	.fn = monitor_run,
	.notes =
	"Prints one line per event (-j: one JSON object per line), e.g.\n"
	"  session_up session 1 name s1\n"
	"  test_done test 2 session 1 op write size 4096 ... status ok\n"
	"until SIGINT or SIGTERM.\n"
	"timestamp: each event starts with the time it was received, as ip -ts\n"
	"     monitor, RFC 3339 in UTC: [2026-11-29T07:01:33.123456Z] (-j: \"timestamp\")\n"
	"session: only the events of that session and of its tests (a name not\n"
	"     yet connected is followed once its first event names it);\n"
	"test: only the events of that test; with both, those of both\n",
};
