/* SPDX-License-Identifier: GPL-2.0 */
/*
 * krdmactl: connecting a session, for "session connect" and "ping".
 */
#ifndef KRDMACTL_SESSION_H
#define KRDMACTL_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/krdma.h>

#include "nl.h"
#include "parse.h"

/* What "session connect" takes, and a one-shot "test run addr ..." too. */
struct session_args {
	struct arg_val addr, port, name, src, timeout, sqd, rqd, maxmsg, qps,
		tos, ack, rnr, maxsge;
};

struct connect_state {
	bool have_id;
	uint32_t id;
	char name[KRDMA_NAME_MAX];
	bool finished;
	bool up;
	char reason[256];
	/* The caller deletes the session whatever happens (one-shot runs):
	 * a ^C does not leave it behind. */
	bool owned;
};

/*
 * The port @s connects to (cmd_port()), once its addresses agree: 'src'
 * of the family of 'addr', and its ack_timeout is one (cmd_ack_timeout()).
 * -1, the usage error reported, otherwise.
 */
int session_port(const struct session_args *s);
/*
 * The SESSION_NEW request of @s to port @port (session_port()); NULL on
 * ENOMEM. @s->name may be unset: the kernel names the session.
 */
struct nl_msg *session_new_msg(struct knl_ctx *c, const struct session_args *s,
			       int port);
/*
 * Fills @specs (room for SESSION_SPECS_MAX) with "session connect"'s
 * keywords over @s; @sess_only leaves out name and qps (a one-shot test
 * names its session and takes qps from the test). Returns how many.
 */
#define SESSION_SPECS_MAX	13
size_t session_specs(struct session_args *s, struct arg_spec *specs,
		     bool sess_only);
/* How long session_connect_wait() gives a connect of @s. */
int64_t session_timeout_ms(const struct session_args *s);

/*
 * Sends @msg (a SESSION_NEW, after knl_events_open()) and follows the
 * session until it is up or down (@st says which, and why), giving it
 * @timeout_ms and some slack. Returns 0, or the exit status of a failure
 * already reported (the session never reported, ^C, the module gone).
 */
int session_connect_wait(struct knl_ctx *c, struct nl_msg *msg,
			 int64_t timeout_ms, struct connect_state *st);

/*
 * Deletes session @id: 0, or the errno of a failure, which is reported
 * (a session already gone is no failure).
 */
int session_del_id(struct knl_ctx *c, uint32_t id);

#endif /* KRDMACTL_SESSION_H */
