/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A scripted stand-in for the krdma module, for driving whole krdmactl
 * commands in the unit tests.
 *
 * The test binary is linked with -Wl,--wrap for the few libnl and libc
 * calls tools/nl.c makes to talk to the kernel (see the Makefile).  While
 * fake_begin() is in effect those calls are served here: requests go to
 * the test's kernel() function, which queues replies, an ACK or an error
 * (with extended ACK text) and events; otherwise they go to the real
 * functions, so tests/unit/test_nl.c still talks to the real kernel.
 */
#ifndef KRDMA_FAKE_NL_H
#define KRDMA_FAKE_NL_H

#include <stdbool.h>
#include <stdint.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include <linux/krdma.h>

#define FAKE_FAMILY	0x42
#define FAKE_MAX_REQS	16

/* Called for each request; tb parsed with krdma_policy. */
typedef void (*fake_kernel_fn)(uint8_t cmd, struct nlattr **tb,
			       struct nl_msg *req);

void fake_begin(fake_kernel_fn kernel);
void fake_end(void);

/* A reply message (to the command socket) or an event; fill it with
 * nla_put_*() and pass it to fake_reply()/fake_event(). */
struct nl_msg *fake_msg(uint8_t cmd);
void fake_reply(struct nl_msg *msg);
void fake_event(struct nl_msg *msg);
/* End of the answer: ACK, or an error with an optional extack message and
 * optional offending attribute (of the request) for NLMSGERR_ATTR_OFFS. */
void fake_ack(void);
void fake_done(void);	/* NLMSG_DONE ending a dump */
void fake_error(int err, const char *text, int bad_attr);
/* The event socket overruns (ENOBUFS) before the next queued event. */
void fake_overrun(void);
/* Deliver SIGINT on the n-th wait for events (1 = the first). */
void fake_sigint_on_wait(int n);
/*
 * Raise signal @sig, really, on the n-th wait for events, if krdmactl
 * catches it; if it does not (it would have died, or not heard it), the
 * wait is interrupted all the same and fake_signal_uncaught() says which.
 */
void fake_signal_on_wait(int n, int sig);
int fake_signal_uncaught(void);

/* Requests seen so far (copies), oldest first. */
int fake_nreqs(void);
struct nl_msg *fake_req(int i);
uint8_t fake_req_cmd(int i);
/* Parse request i into tb (krdma_policy); 0 on success. */
int fake_req_attrs(int i, struct nlattr **tb);

#endif /* KRDMA_FAKE_NL_H */
