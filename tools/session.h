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

struct connect_state {
	bool have_id;
	uint32_t id;
	char name[KRDMA_NAME_MAX];
	bool finished;
	bool up;
	char reason[256];
};

/*
 * Sends @msg (a SESSION_NEW, after knl_events_open()) and follows the
 * session until it is up or down (@st says which, and why), giving it
 * @timeout_ms and some slack. Returns 0, or the exit status of a failure
 * already reported (the session never reported, ^C, the module gone).
 */
int session_connect_wait(struct knl_ctx *c, struct nl_msg *msg,
			 int64_t timeout_ms, struct connect_state *st);

#endif /* KRDMACTL_SESSION_H */
