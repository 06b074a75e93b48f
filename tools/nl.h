/* SPDX-License-Identifier: GPL-2.0 */
/*
 * krdmactl: Generic Netlink plumbing (libnl-genl-3).
 *
 * One request socket (sequence-checked, extended ACK enabled) and, when a
 * command needs them, one event socket subscribed to the "events" group
 * (sequence check disabled, non-blocking).
 */
#ifndef KRDMACTL_NL_H
#define KRDMACTL_NL_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include <linux/krdma.h>

struct knl_ctx {
	struct nl_sock *sk;		/* requests */
	struct nl_sock *ev;		/* events, or NULL */
	int family;
	struct nl_msg *req;		/* request in flight (for extack) */
	char ext_msg[256];		/* kernel's extack message, if any */
	char ext_detail[128];		/* what else we learnt about an error */
};

/*
 * Called for each message received, with its attributes parsed and
 * validated against krdma_policy (nlh gives access to repeated attributes
 * such as KRDMA_A_DEV_PORT).  Return 0 to go on, < 0 to report an
 * error (the rest of a dump is then drained but not passed on), or (for
 * events) > 0 to stop waiting.
 */
typedef int (*knl_msg_fn)(struct nlattr **tb, struct nlmsghdr *nlh,
			 void *arg);

/*
 * krdmactl --parse-only: the command line is parsed and checked as ever,
 * and the command stops where it would first talk to the kernel (or read
 * a file): knl_*open() return NULL without a word, and obj_dispatch()
 * turns the command's status into 0.  What the documentation shows is
 * tested this way (tests/unit/doc_commands.py), without a module.
 */
extern bool knl_parse_only;
/* With --parse-only: notes that the command got this far; true. */
bool knl_parse_only_stop(void);
/* The command stopped at knl_parse_only_stop() (and forget it). */
bool knl_take_parse_only_stopped(void);

/* The context, opened on first use; NULL (error printed) on failure. */
struct knl_ctx *knl_get(void);
/* Same for another family (the unit tests use "nlctrl"). */
struct knl_ctx *knl_open(const char *family);
/* knl_open() that describes a failure into err instead of printing it. */
struct knl_ctx *knl_try_open(const char *family, char *err, size_t errlen);
void knl_put(void);

/* A new request for cmd; flags e.g. NLM_F_DUMP.  NULL on ENOMEM. */
struct nl_msg *knl_req(struct knl_ctx *c, uint8_t cmd, int flags);
/*
 * Send msg (consumed) and wait for the whole answer (reply messages, then
 * ACK or DONE).  Returns 0, a negative errno from the kernel or the
 * callback, or -ENOMEM/-ETIMEDOUT/-EIO for local failures.  Prints
 * nothing; see knl_perror().
 */
int knl_exec(struct knl_ctx *c, struct nl_msg *msg, knl_msg_fn fn, void *arg);
/*
 * Print the error of the last knl_exec(): "krdmactl: <extack text>" when
 * the kernel sent one, else "krdmactl: <what>: <strerror>".
 */
void knl_perror(struct knl_ctx *c, int err, const char *what);
/* Whether knl_perror() reported a value the kernel refused since the last
 * call (the usage hint then follows the command). */
bool knl_take_value_refused(void);
/* knl_exec() + knl_perror(what) on failure. */
int knl_call(struct knl_ctx *c, struct nl_msg *msg, knl_msg_fn fn, void *arg,
	    const char *what);

/* Subscribe to the "events" group; must precede the triggering request. */
int knl_events_open(struct knl_ctx *c);
/*
 * knl_get() subscribed to the events group (knl_events_open()), for a
 * command that follows what its request sets off; NULL (error printed)
 * on failure.
 */
struct knl_ctx *knl_get_events(void);
/* Same for any family and group (the unit tests use nlctrl's). */
int knl_events_subscribe(struct knl_ctx *c, const char *family,
			 const char *group);
/*
 * Wait up to timeout_ms (-1: forever) for events and pass each
 * KRDMA_CMD_EVENT_NTF to fn.  Returns fn's positive value when it asks to
 * stop, 0 if events were handled without that, -ETIMEDOUT, -EINTR if a
 * signal caught by sig_install() arrived, -ENOBUFS if events were lost
 * (socket overrun), -EIDRM if the krdma family was unregistered (module
 * unloaded; after knl_events_open()), or another negative errno.
 */
int knl_events_poll(struct knl_ctx *c, int timeout_ms, knl_msg_fn fn, void *arg);

/* SIGINT/SIGTERM: record the signal in sig_received instead of dying. */
extern volatile sig_atomic_t sig_received;
void sig_install(void);
/*
 * For a command that deletes at its end what it made (a one-shot test
 * run's session, ping's): sig_install(), and SIGHUP recorded too (the
 * terminal or the ssh connection gone), SIGPIPE ignored (whoever read
 * stdout gone: the writes fail instead, and are reported at the end), so
 * that neither kills it before it has deleted it.
 */
void sig_install_owner(void);

/* Milliseconds on a monotonic clock. */
int64_t now_ms(void);

#endif /* KRDMACTL_NL_H */
