// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl monitor: print krdma events as they happen.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "attrs.h"
#include "cmd.h"
#include "output.h"
#include "records.h"

/* The identifying attributes first, then everything else. */
static const int event_attrs[] = {
	KRDMA_A_TEST_ID,
	KRDMA_A_SESSION_ID,
	KRDMA_A_NAME,
	KRDMA_A_LISTENER_ID,
	KRDMA_A_DEV_NAME,
	KRDMA_A_SESSION_STATE,
	KRDMA_A_SESSION_ROLE,
	KRDMA_A_LOCAL_ADDR,
	KRDMA_A_PEER_ADDR,
	KRDMA_A_SESSION_QPN,
	KRDMA_A_SESSION_PEER_QPN,
	KRDMA_A_SESSION_RESPONDER_RESOURCES,
	KRDMA_A_SESSION_INITIATOR_DEPTH,
	KRDMA_A_SESSION_SQ_DEPTH,
	KRDMA_A_SESSION_RQ_DEPTH,
	KRDMA_A_SESSION_MAX_MSG_SIZE,
	KRDMA_A_SESSION_PEER_PROTO,
	KRDMA_A_SESSION_MAX_INLINE,
	KRDMA_A_SESSION_QPS,
	KRDMA_A_TEST_OP,
	KRDMA_A_TEST_SIZE,
	KRDMA_A_TEST_COUNT,
	KRDMA_A_TEST_DURATION_MS,
	KRDMA_A_TEST_DEPTH,
	KRDMA_A_TEST_QPS,
	KRDMA_A_TEST_STATE,
	KRDMA_A_TEST_ITERS,
	KRDMA_A_TEST_BYTES,
	KRDMA_A_TEST_ELAPSED_NS,
	KRDMA_A_TEST_VALIDATED,
	KRDMA_A_TEST_STATUS,
	KRDMA_A_REASON,
	KRDMA_A_STATS,
};

/* One line of text, or one JSON object per line. */
int event_print(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	const char *name = NULL;
	char buf[32];

	(void)nlh;
	(void)arg;
	if (tb[KRDMA_A_EVENT])
		name = event_name(nla_get_u8(tb[KRDMA_A_EVENT]));
	if (!name) {
		snprintf(buf, sizeof(buf), "unknown(%u)",
			 tb[KRDMA_A_EVENT] ? nla_get_u8(tb[KRDMA_A_EVENT]) : 0);
		name = buf;
	}
	open_json_object(NULL);
	print_string(PRINT_ANY, "event", "%s", name);
	print_attrs(tb, event_attrs, sizeof(event_attrs) / sizeof(event_attrs[0]));
	print_nl();
	close_json_object();
	fflush(out_file());
	return 0;
}

static int monitor_run(int argc, char **argv)
{
	struct knl_ctx *c;
	int rc;

	c = cmd_begin(NULL, 0, argc, argv, &rc);
	if (!c)
		return rc;
	sig_install();
	if (knl_events_open(c))
		return 1;
	for (;;) {
		rc = knl_events_poll(c, -1, event_print, NULL);
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
	.fn_args = "",
	.notes =
	"Prints one line per event (-j: one JSON object per line), e.g.\n"
	"  session_up session 1 name s1\n"
	"  test_done test 2 session 1 op write size 4096 ... status ok\n"
	"until SIGINT or SIGTERM.\n",
};
