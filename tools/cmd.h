/* SPDX-License-Identifier: GPL-2.0 */
/*
 * krdmactl: object/command dispatch tables, help, and helpers shared by the
 * per-object files.
 */
#ifndef KRDMACTL_CMD_H
#define KRDMACTL_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "nl.h"
#include "parse.h"

/* KRDMACTL_VERSION comes from the top-level VERSION file (tools/Makefile). */

/*
 * Exit statuses, for scripts (krdmactl(8), EXIT STATUS): one per cause,
 * so that CI tells a bad command line from a refusal by the kernel, and
 * corrupt data from a slow run and from a slower run than last week's.
 * These numbers are an interface: never reuse one for another cause.
 */
#define EXIT_OK		0
#define EXIT_ERR	1	/* runtime error: no module, the kernel refused */
#define EXIT_USAGE	2	/* the command line is wrong */
#define EXIT_TEST_FAIL	3	/* a test ran; its data failed validation */
#define EXIT_EXPECT	4	/* test run: the data was right, an expect missed */
#define EXIT_REGRESSION	5	/* compare: a figure got worse than the baseline's */
#define EXIT_CONFORM_FAIL 6	/* conform: a case failed (its test's outcome was
				 * not the one the verbs contract gives) */
#define EXIT_INTR	130	/* stopped by SIGINT/SIGTERM (128 + SIGINT) */

/*
 * krdma's own port, for "listener add", "session connect" and "ping"
 * without one, as 18515 is perftest's: 7362 spells RDMA on a phone
 * keypad. The examples use 7471-7499 (and 4791, RoCEv2's UDP port, in
 * addresses), so a default never hides a port a reader was meant to type.
 */
#define KRDMACTL_PORT_DFLT	7362
/* For help texts: the number as a string literal. */
#define KRDMACTL_STR_(x)	#x
#define KRDMACTL_STR(x)		KRDMACTL_STR_(x)
#define KRDMACTL_ADDR_HELP \
	"ADDR := { HOST | IPV4 | IPV6 | IPV6%IFACE }, with a port HOST:PORT, IPV4:PORT,\n" \
	"        [IPV6]:PORT or [IPV6%IFACE]:PORT; HOST is looked up (getaddrinfo),\n" \
	"        a link-local IPV6 needs its interface: fe80::1%eth0\n"
#define KRDMACTL_PORT_HELP \
	"PORT := 1..65535, default " KRDMACTL_STR(KRDMACTL_PORT_DFLT) " (krdma's own)\n"

/*
 * A command's synopsis is not written here: it is made from the keyword
 * table its function passes to cmd_args() (cmd_describe()), so that the
 * help, the completion and the parser cannot disagree.
 */
struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);	/* 0 on success */
	const char *desc;			/* one line */
};

struct object {
	const char *name;
	const char *desc;
	const struct cmd *cmds;
	size_t ncmds;
	const char *dflt;	/* command used when none is given */
	/* Objects without commands ("monitor", "version"): */
	int (*fn)(int argc, char **argv);
	const char *notes;	/* printed after the synopsis by "help" */
};

extern const struct object dev_obj, listener_obj, session_obj, test_obj,
	stats_obj, monitor_obj, version_obj, ping_obj, compare_obj, conform_obj;
/* Every object, in the order "krdmactl help" lists them. */
extern const struct object *const objects[];
extern const size_t nobjects;

/*
 * The keyword table of @obj's command @c (NULL: @obj's own fn), as the
 * command passes it to cmd_args(), into @specs (at most @max; their val
 * NULL): how many (at most @max), or -1 if the command has none to give. The
 * command is called for it, stopped where it would parse (nothing is
 * sent, read or printed).
 */
#define DESCRIBE_MAX	32
int cmd_describe(const struct object *obj, const struct cmd *c,
		 struct arg_spec *specs, size_t max);
/*
 * "krdmactl __complete WORDS...", the bash completion's question: the
 * words after "krdmactl" up to the one being completed (last, maybe
 * ""); @opts the global options. Prints the candidates, one a line,
 * that start with the last word; "@files" for the files of the
 * directory (bash completes them). Live names (sessions, listeners,
 * devices) are asked of the module, silently without it. Returns 0.
 */
int complete_run(int argc, char **argv, const char *const *opts,
		 size_t nopts, FILE *out);

/*
 * Whether the synopsis names keyword @sp (not hidden, nor a positional
 * one shown by its value alone, "ID" for "id"): what is completed.
 */
bool spec_shows_kw(const struct arg_spec *sp);

/*
 * The synopsis of @obj's command @c (NULL: @obj's own), made from its
 * table: "krdmactl OBJ CMD ARGS", wrapped under ARGS, after @lead.
 */
void cmd_synopsis(FILE *f, const char *lead, const struct object *obj,
		  const struct cmd *c);

/* Run argv[0] (matched by unique prefix) of obj; "help" prints usage. */
int obj_dispatch(const struct object *obj, int argc, char **argv);
void obj_usage(FILE *f, const struct object *obj);
/*
 * "krdmactl help OBJECT [ WORDS ]" (argv[0] OBJECT, argc >= 1): what
 * "krdmactl OBJECT [ WORDS ] help" prints, OBJECT's help or its
 * command's; argv is reordered so.
 */
int help_dispatch(int argc, char **argv);

/*
 * Parse the arguments of the running command with args_parse(): on
 * "help" prints the command's usage and returns ARGS_HELP; on error prints
 * "krdmactl: <obj> <cmd>: <why>" and returns -1.
 */
int cmd_args(const struct arg_spec *specs, size_t n, int argc, char **argv);
/*
 * The start of a command that talks to the kernel: cmd_args(), then the
 * netlink context. NULL means the command ends here with *exit_code (0
 * after "help", EXIT_USAGE or EXIT_ERR after an error already reported).
 */
struct knl_ctx *cmd_begin(const struct arg_spec *specs, size_t n, int argc,
			  char **argv, int *exit_code);
/* "listener add" etc., for messages. */
const char *cmd_what(void);
/*
 * A command line error found after parsing (conflicting keywords): prints
 * "krdmactl: <obj> <cmd>: <why>" and the help hint; returns EXIT_USAGE.
 */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * ARG_HIDDEN (parse.h) keywords are parsed, to be refused with a reason
 * (test start's expect: "for test run"), but neither shown nor completed.
 */

/* The hint every command line error ends with. */
void usage_hint(void);

/*
 * The port of "[ addr ] ADDR[:PORT] [ port PORT ]" (addr may be unset):
 * the one given (twice is fine if they agree), else KRDMACTL_PORT_DFLT.
 * -1 after a usage error (conflicting ports) was reported.
 */
int cmd_port(const struct arg_val *addr, const struct arg_val *port);

/*
 * An "ack_timeout N" (parsed as 0..KRDMA_ACK_TIMEOUT_MAX, or unset): 0 if
 * it is unset, 0 (the module's) or KRDMA_ACK_TIMEOUT_MIN..MAX, else -1
 * after the usage error was reported.
 */
int cmd_ack_timeout(const struct arg_val *v);
#define KRDMACTL_ACK_TIMEOUT_HELP \
	"ack_timeout: the transport ACK timeout of the session's QPs (of each\n" \
	"     session a listener accepts), 4.096 us x 2^N, N 8..31; 0 or none:\n" \
	"     the module parameter ack_timeout (default 18: 1.07 s); 14 (67 ms,\n" \
	"     perftest's) on a wire that drops packets (usage.rst, \"On a lossy\n" \
	"     network\")\n"

/* Report a failure before anything was sent (ENOMEM building a message). */
int msg_error(void);

/*
 * The start of a command with no arguments of its own that sends one do
 * request cmd: cmd_begin() and the message.  NULL means the command ends
 * here with *exit_code (after "help", a bad argument or out of memory).
 */
struct nl_msg *cmd_begin_req(int argc, char **argv, uint8_t cmd,
			     struct knl_ctx **c, int *exit_code);

/*
 * Send msg (a GET, do or dump) and print the reply messages with fn inside
 * a JSON array.  Returns the exit status (0/1).
 */
int show_run(struct knl_ctx *c, struct nl_msg *msg, knl_msg_fn fn, void *arg);
/* Same for a request answered by one message (add, start): no array. */
int reply_run(struct knl_ctx *c, struct nl_msg *msg, knl_msg_fn fn, void *arg);

/* Add "ID" (id_attr) or "name NAME" (KRDMA_A_NAME) of a REF/ID argument. */
int put_ref(struct nl_msg *msg, int id_attr, const struct arg_val *id,
	    const struct arg_val *name);

/*
 * "OBJECT del { ID | name NAME }" and "OBJECT show [ ID | name NAME ]" for
 * objects addressed by id attribute id_attr or by name: one do request
 * (del, show of one) or a dump (show of all), printed with fn.
 */
int cmd_del_ref(int argc, char **argv, uint8_t cmd, int id_attr);
int cmd_show_ref(int argc, char **argv, uint8_t cmd, int id_attr,
		 knl_msg_fn fn);
/*
 * "OBJECT show [ KEY ]" for objects addressed by one positional key (key:
 * an ARG_STR or ARG_U32 spec, sent as attribute attr): a do request for
 * the one given, else a dump; printed with fn.
 */
int cmd_show_key(int argc, char **argv, const struct arg_spec *key,
		 uint8_t cmd, int attr, knl_msg_fn fn);

#endif /* KRDMACTL_CMD_H */
