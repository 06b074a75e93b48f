// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma-hostile: how a run reports what it saw. Each outcome is one
 * HOSTILE line, which tests/guest/hostile-peer.sh greps; the exit status
 * says whether every outcome was the safe one.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "hostile.h"
#include "verbs.h"

void outcome(bool safe, const char *out, const char *fmt, ...)
{
	char detail[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	for (char *c = detail; *c; c++)
		if (*c == ' ' || *c == '\t' || *c == '\n')
			*c = '_';
	printf("HOSTILE scenario=%s outcome=%s safe=%d lport=%u detail=%s\n",
	       P.scen, out, safe ? 1 : 0, P.lport, detail);
	fflush(stdout);
	P.outcomes++;
	if (!safe)
		P.fails++;
}

void die(const char *fmt, ...)
{
	char detail[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	outcome(false, "error", "%s", detail);
	exit(2);
}

/* After a violation: the kernel must close the session. */
void expect_closed(const char *what)
{
	int st;

	if (wait_disconnect(P.tmo_ms)) {
		outcome(true, "closed", "%s: the kernel closed the session%s%s", what,
			P.last_send_err ? ";our_send=" : "",
			P.last_send_err ? wc_str(P.last_send_err - 1) : "");
		return;
	}
	/*
	 * A session closed before the kernel's CM saw our RTU ends with a
	 * REJ that our CM drops (we are established): no DISCONNECTED ever
	 * comes. Then the kernel's QP is gone, and a probe says so.
	 */
	if (P.qp_error) {
		outcome(false, "ignored", "%s: no disconnect after %d ms (and our QP failed)",
			what, P.tmo_ms);
		return;
	}
	st = probe_peer();
	if (st == IBV_WC_SUCCESS)
		outcome(false, "ignored", "%s: still connected after %d ms", what, P.tmo_ms);
	else if (P.disconnected)
		outcome(true, "closed", "%s: the kernel closed the session (late)", what);
	else
		outcome(st > 0, st > 0 ? "closed" : "hang",
			"%s: no disconnect, but the kernel's QP is gone (probe: %s)", what,
			wc_str(st));
}
