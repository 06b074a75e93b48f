// SPDX-License-Identifier: GPL-2.0
/*
 * Whole krdmactl commands against the scripted kernel of fake_nl.c:
 * what each command sends, and how it handles replies, errors (extended
 * ACK), events, lost events and ^C.
 *
 * Most are tables of struct cmd_case: a command line and what it must
 * give; check_cmd() runs one, and a failure names its line.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <net/if.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <json.h>
#include <netlink/genl/genl.h>

#include "attrs.h"
#include "cmd.h"
#include "env.h"
#include "fake_nl.h"
#include "output.h"
#include "report.h"
#include "resolve.h"
#include "unit.h"

/* ---- running a command line ---- */

struct run {
	int rc;
	struct capture out;
	char err[4096];
};

static const struct object *find_obj(const char *name)
{
	size_t i;

	for (i = 0; i < nobjects; i++)
		if (!strcmp(objects[i]->name, name))
			return objects[i];
	abort();
}

/* Run "OBJECT ARGS..." or "help OBJECT ..." (space separated) with the
 * fake kernel. */
static void run(struct run *r, bool json, const char *line)
{
	char buf[512], *argv[32], *tok, *save = NULL;
	FILE *tmp = tmpfile();
	int argc = 0, saved;
	size_t n;

	snprintf(buf, sizeof(buf), "%s", line);
	for (tok = strtok_r(buf, " ", &save); tok && argc < 31;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;

	opts.json = json;
	capture_start(&r->out, json, false);
	fflush(stderr);
	saved = dup(2);
	dup2(fileno(tmp), 2);

	if (!strcmp(argv[0], "help"))
		r->rc = help_dispatch(argc - 1, argv + 1);
	else
		r->rc = obj_dispatch(find_obj(argv[0]), argc - 1, argv + 1);

	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(r->err, 1, sizeof(r->err) - 1, tmp);
	r->err[n] = '\0';
	fclose(tmp);
	capture_end(&r->out);
	opts.json = false;
}

static void run_fmt(struct run *r, bool json, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void run_fmt(struct run *r, bool json, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	run(r, json, line);
}

static void run_end(struct run *r)
{
	capture_free(&r->out);
	fake_end();
}

/* ---- a table of command lines ---- */

/*
 * What a request must carry, for struct cmd_case: attribute @type (its
 * name @name, for a failure) in request @req (0, the first, unless
 * SENT_IN()), with the number @num (whatever its width), the string
 * @str, an endpoint of port @port (-1: none), the same with the address
 * @str (a literal; NULL: none), or not at all.
 */
struct sent {
	int type;		/* KRDMA_A_*; 0 ends the list */
	const char *name;
	int req;
	enum {
		SENT_NUM, SENT_STRING, SENT_ENDPOINT_PORT, SENT_ENDPOINT,
		SENT_NOTHING,
	} how;
	uint64_t num;
	const char *str;
	int port;
};

#define SENT_IN(i, t, v)						\
	{ .type = (t), .name = #t, .req = (i), .how = SENT_NUM, .num = (v) }
#define SENT(t, v)		SENT_IN(0, t, v)
#define SENT_STR(t, s)							\
	{ .type = (t), .name = #t, .how = SENT_STRING, .str = (s) }
#define SENT_PORT(t, p)							\
	{ .type = (t), .name = #t, .how = SENT_ENDPOINT_PORT, .port = (p) }
#define SENT_EP(t, a, p)						\
	{ .type = (t), .name = #t, .how = SENT_ENDPOINT, .str = (a),	\
	  .port = (p) }
#define NOT_SENT_IN(i, t)						\
	{ .type = (t), .name = #t, .req = (i), .how = SENT_NOTHING }
#define NOT_SENT(t)		NOT_SENT_IN(0, t)

/*
 * -j test run's one document is {"schema_version": 3, "results": [...],
 * "env"}: of this krdmactl's schema (its results "results/0/...").
 */
#define JSON_SCHEMA	JSON_NUM("schema_version", REPORT_SCHEMA_VERSION)

/*
 * A command line and what it must give. It runs against @kernel (-j with
 * @json, -M with @mib, -s with @stats), @setup(@mode) called once the
 * fake kernel has begun, ^C (or @signal) at the @sigint-th wait for
 * events when that is not 0. Checked: the exit status @rc always; stdout
 * and stderr exactly where @out and @err are not NULL, their starts where
 * @out_starts and @err_starts are; each of @out_has and @err_has in them
 * and none of @out_lacks and @err_lacks; with REQS(n), that the kernel
 * heard n requests; each command @req_cmds names, request i's; the
 * command of the last request, where @last_req names one; each attribute
 * @sent names; that @signal was caught; each value @json_has names in
 * the JSON document it printed; last @also, for what only this case
 * checks.
 */
struct cmd_case {
	const char *what;	/* a name, where the line alone is not one */
	fake_kernel_fn kernel;
	void (*setup)(int mode);
	int mode;
	const char *line;
	bool json, mib, stats;
	int sigint, signal;
	int rc;
	const char *out, *err, *out_starts, *err_starts;
	const char *out_has[10], *out_lacks[3], *err_has[3], *err_lacks[2];
	bool check_nreqs;
	int nreqs;
	uint8_t req_cmds[8];	/* 0: not checked */
	uint8_t last_req;	/* the last request's command; 0: not checked */
	struct sent sent[10];
	struct json_want json_has[40];
	void (*also)(const char *what, const struct run *r);
};

#define REQS(n)		.check_nreqs = true, .nreqs = (n)

/* "-j -M -s what: line", as a failure names the case. */
static void case_name(const struct cmd_case *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s%s", c->json ? "-j " : "",
		 c->mib ? "-M " : "", c->stats ? "-s " : "",
		 c->what ? c->what : "", c->what ? ": " : "",
		 c->line ? c->line : "");
}

static void check_starts(const char *what, const char *stream, const char *s,
			 const char *start)
{
	if (start && strncmp(s, start, strlen(start)))
		unit_fail_case(__FILE__, __LINE__, what,
			       "%s does not start \"%s\"; it is:\n%s", stream,
			       start, s);
}

/* The number in @a, whatever its width; false if it is no number. */
static bool attr_num(const struct nlattr *a, uint64_t *v)
{
	switch (nla_len(a)) {
	case 1:
		*v = nla_get_u8(a);
		return true;
	case 2:
		*v = nla_get_u16(a);
		return true;
	case 4:
		*v = nla_get_u32(a);
		return true;
	case 8:
		*v = nla_get_u64(a);
		return true;
	}
	return false;
}

static void check_sent(const char *what, const struct sent *s)
{
	struct nlattr *tb[KRDMA_A_MAX + 1];
	struct endpoint ep;
	struct ip_addr want;
	uint64_t v = 0;

	if (fake_req_attrs(s->req, tb)) {
		unit_fail_case(__FILE__, __LINE__, what,
			       "no request %d to find %s in (%d sent)",
			       s->req, s->name, fake_nreqs());
		return;
	}
	if (s->how == SENT_NOTHING) {
		if (tb[s->type])
			unit_fail_case(__FILE__, __LINE__, what,
				       "request %d: %s sent", s->req, s->name);
		return;
	}
	if (!tb[s->type]) {
		unit_fail_case(__FILE__, __LINE__, what,
			       "request %d: no %s", s->req, s->name);
		return;
	}
	switch (s->how) {
	case SENT_NUM:
		if (!attr_num(tb[s->type], &v) || v != s->num)
			unit_fail_case(__FILE__, __LINE__, what,
				       "request %d: %s is %llu, want %llu",
				       s->req, s->name, (unsigned long long)v,
				       (unsigned long long)s->num);
		break;
	case SENT_STRING:
		CHECK_STR_CASE(what, nla_get_string(tb[s->type]), s->str);
		break;
	case SENT_ENDPOINT_PORT:
		if (get_endpoint(tb[s->type], &ep) || ep.port != s->port)
			unit_fail_case(__FILE__, __LINE__, what,
				       "request %d: %s's port is %d, want %d",
				       s->req, s->name, ep.port, s->port);
		break;
	case SENT_ENDPOINT:
		memset(&want, 0, sizeof(want));
		if (get_endpoint(tb[s->type], &ep) || ep.port != s->port ||
		    ep.has_addr != !!s->str ||
		    (s->str && (parse_ip_addr(s->str, &want) ||
				memcmp(&ep.addr, &want, sizeof(want)))))
			unit_fail_case(__FILE__, __LINE__, what,
				       "request %d: %s is not %s port %d",
				       s->req, s->name,
				       s->str ? s->str : "no address", s->port);
		break;
	case SENT_NOTHING:
		break;
	}
}

/* What @r, the run of @c (named @what), gave: @c's checks. */
static void check_result(const char *what, const struct run *r,
			 const struct cmd_case *c)
{
	size_t i;

	if (r->rc != c->rc)
		unit_fail_case(__FILE__, __LINE__, what,
			       "exit status %d, want %d; stderr: %s", r->rc,
			       c->rc, r->err);
	if (c->out)
		CHECK_STR_CASE(what, r->out.buf, c->out);
	if (c->err)
		CHECK_STR_CASE(what, r->err, c->err);
	check_starts(what, "stdout", r->out.buf, c->out_starts);
	check_starts(what, "stderr", r->err, c->err_starts);
	for (i = 0; i < ARRAY_SIZE(c->out_has); i++)
		CHECK_HAS_CASE(what, r->out.buf, c->out_has[i]);
	for (i = 0; i < ARRAY_SIZE(c->out_lacks); i++)
		CHECK_LACKS_CASE(what, r->out.buf, c->out_lacks[i]);
	for (i = 0; i < ARRAY_SIZE(c->err_has); i++)
		CHECK_HAS_CASE(what, r->err, c->err_has[i]);
	for (i = 0; i < ARRAY_SIZE(c->err_lacks); i++)
		CHECK_LACKS_CASE(what, r->err, c->err_lacks[i]);
	if (c->check_nreqs)
		CHECK_INT_CASE(what, fake_nreqs(), c->nreqs);
	for (i = 0; i < ARRAY_SIZE(c->req_cmds); i++)
		if (c->req_cmds[i])
			CHECK_INT_CASE(what, fake_req_cmd((int)i),
				       c->req_cmds[i]);
	if (c->last_req)
		CHECK_INT_CASE(what, fake_req_cmd(fake_nreqs() - 1),
			       c->last_req);
	for (i = 0; i < ARRAY_SIZE(c->sent) && c->sent[i].type; i++)
		check_sent(what, &c->sent[i]);
	if (c->signal)
		CHECK_INT_CASE(what, fake_signal_uncaught(), 0);
	check_json(what, r->out.buf, c->json_has, ARRAY_SIZE(c->json_has));
	if (c->also)
		c->also(what, r);
}

/* Run case @c and check what it gave. */
static void check_cmd(const struct cmd_case *c)
{
	char what[600];
	struct run r;

	case_name(c, what, sizeof(what));
	fake_begin(c->kernel);
	if (c->setup)
		c->setup(c->mode);
	if (c->sigint && c->signal)
		fake_signal_on_wait(c->sigint, c->signal);
	else if (c->sigint)
		fake_sigint_on_wait(c->sigint);
	opts.mib = c->mib;
	opts.stats = c->stats;
	run(&r, c->json, c->line);
	opts.mib = false;
	opts.stats = false;
	check_result(what, &r, c);
	run_end(&r);
}

static void check_cmds(const struct cmd_case *c, size_t n)
{
	for (; n--; c++)
		check_cmd(c);
}

#define CHECK_CMDS(t)	check_cmds(t, ARRAY_SIZE(t))

/*
 * A command line refused before the kernel is asked anything: exit status
 * @rc, @err (if not NULL) in what it says.
 */
static void check_refused(fake_kernel_fn kernel, const char *line, int rc,
			  const char *err)
{
	check_cmd(&(const struct cmd_case){
		.kernel = kernel, .line = line, .rc = rc, .err_has = { err },
		REQS(0),
	});
}

/* A command line refused (EXIT_USAGE), and what it says of why. */
struct refusal {
	const char *line;
	const char *err;
};

/* Each row through check_refused() with @kernel. */
static void check_refusals(fake_kernel_fn kernel, const struct refusal *t,
			   size_t n)
{
	for (; n--; t++)
		check_refused(kernel, t->line, EXIT_USAGE, t->err);
}

#define CHECK_REFUSALS(kernel, t)	check_refusals(kernel, t, ARRAY_SIZE(t))

/* ---- building replies ---- */

static uint32_t tb_u32(struct nlattr **tb, int type)
{
	return tb[type] ? nla_get_u32(tb[type]) : 0xffffffffu;
}

static struct nl_msg *session_msg(uint8_t cmd, uint32_t id, const char *name)
{
	struct nl_msg *m = fake_msg(cmd);

	nla_put_u32(m, KRDMA_A_SESSION_ID, id);
	if (name)
		nla_put_string(m, KRDMA_A_NAME, name);
	return m;
}

static struct nl_msg *session_event(uint8_t ev, uint32_t id, const char *name,
				    const char *reason)
{
	struct nl_msg *m = session_msg(KRDMA_CMD_EVENT_NTF, id, name);

	nla_put_u8(m, KRDMA_A_EVENT, ev);
	if (reason)
		nla_put_string(m, KRDMA_A_REASON, reason);
	return m;
}

static struct nl_msg *test_event(uint8_t ev, uint32_t id, int32_t status,
				 const char *reason)
{
	struct nl_msg *m = fake_msg(KRDMA_CMD_EVENT_NTF);

	nla_put_u8(m, KRDMA_A_EVENT, ev);
	nla_put_u32(m, KRDMA_A_TEST_ID, id);
	nla_put_u32(m, KRDMA_A_SESSION_ID, 5);
	nla_put_u64(m, KRDMA_A_TEST_ITERS, 1000);
	nla_put_u64(m, KRDMA_A_TEST_BYTES, 1000 * 65536ULL);
	nla_put_u64(m, KRDMA_A_TEST_ELAPSED_NS, 1000000000ULL);
	if (ev == KRDMA_EVENT_TEST_DONE) {
		nla_put_u8(m, KRDMA_A_TEST_OP, KRDMA_OP_WRITE);
		nla_put_u32(m, KRDMA_A_TEST_SIZE, 65536);
		nla_put_u32(m, KRDMA_A_TEST_STATUS, (uint32_t)status);
		nla_put_u64(m, KRDMA_A_TEST_VALIDATED, 10);
		if (reason)
			nla_put_string(m, KRDMA_A_REASON, reason);
	}
	return m;
}

/* A finished lat + bidir test: the figures krdmactl prints. */
static struct nl_msg *perf_event(void)
{
	struct nl_msg *m = test_event(KRDMA_EVENT_TEST_DONE, 9, 0, NULL);
	struct nlattr *nest;

	nla_put_u8(m, KRDMA_A_TEST_MODE, KRDMA_MODE_BW);
	nla_put_u8(m, KRDMA_A_TEST_BIDIR, 1);
	nla_put_u64(m, KRDMA_A_TEST_PEER_ITERS, 500);
	nla_put_u64(m, KRDMA_A_TEST_PEER_BYTES, 500 * 65536ULL);
	nla_put_u64(m, KRDMA_A_TEST_CPU_NS, 250000000ULL);
	nest = nla_nest_start(m, KRDMA_A_TEST_LAT);
	nla_put_u64(m, KRDMA_LAT_A_SAMPLES, 3);
	nla_put_u64(m, KRDMA_LAT_A_MIN_NS, 1000);
	nla_put_u64(m, KRDMA_LAT_A_P50_NS, 2500);
	nla_put_u64(m, KRDMA_LAT_A_P999_NS, 9000);
	nla_nest_end(m, nest);
	return m;
}

static void k_none(uint8_t cmd, struct nlattr **tb, struct nl_msg *req)
{
	(void)cmd;
	(void)tb;
	(void)req;
	fake_error(-EOPNOTSUPP, NULL, 0);
}

/* ---- listener ---- */

static struct endpoint seen_ep;
static bool seen_nested_flag;
static char seen_name[64];
static int seen_ack_timeout;	/* -1: none */

static void k_listener_add(uint8_t cmd, struct nlattr **tb,
			   struct nl_msg *req)
{
	struct nl_msg *m;

	(void)req;
	if (cmd != KRDMA_CMD_LISTENER_ADD) {
		fake_error(-EOPNOTSUPP, NULL, 0);
		return;
	}
	memset(&seen_ep, 0, sizeof(seen_ep));
	seen_name[0] = '\0';
	if (tb[KRDMA_A_LOCAL_ADDR]) {
		get_endpoint(tb[KRDMA_A_LOCAL_ADDR], &seen_ep);
		seen_nested_flag = tb[KRDMA_A_LOCAL_ADDR]->nla_type &
				   NLA_F_NESTED;
	}
	if (tb[KRDMA_A_NAME])
		snprintf(seen_name, sizeof(seen_name), "%s",
			 nla_get_string(tb[KRDMA_A_NAME]));
	seen_ack_timeout = tb[KRDMA_A_SESSION_ACK_TIMEOUT] ?
		nla_get_u8(tb[KRDMA_A_SESSION_ACK_TIMEOUT]) : -1;
	m = fake_msg(KRDMA_CMD_LISTENER_ADD);
	nla_put_u32(m, KRDMA_A_LISTENER_ID, 3);
	nla_put_string(m, KRDMA_A_NAME, seen_name[0] ? seen_name : "listener3");
	/* As the module: a listener's own only, not a 0. */
	if (seen_ack_timeout > 0)
		nla_put_u8(m, KRDMA_A_SESSION_ACK_TIMEOUT,
			   (uint8_t)seen_ack_timeout);
	fake_reply(m);
	fake_ack();
}

/*
 * A "listener add" line and what k_listener_add saw of it: the ACK
 * timeout (-1: none), an address (of @family) or none, the port, the
 * scope (the index of interface @scope_if; without one, 0); what it
 * printed, where @out is not NULL. With @resolve, host names and zones
 * are resolved (getaddrinfo()).
 */
struct listener_case {
	const char *line;
	bool json, resolve;
	const char *out;
	int ack_timeout;
	bool has_addr;
	int family, port;
	const char *scope_if;
};

static void check_listener_cases(const struct listener_case *c, size_t n)
{
	char what[256];
	struct run r;

	for (; n--; c++) {
		snprintf(what, sizeof(what), "%s%s", c->json ? "-j " : "",
			 c->line);
		parse_resolver = c->resolve ? resolve_host : NULL;
		fake_begin(k_listener_add);
		run(&r, c->json, c->line);
		parse_resolver = NULL;
		CHECK_INT_CASE(what, r.rc, 0);
		if (c->out)
			CHECK_STR_CASE(what, r.out.buf, c->out);
		CHECK_INT_CASE(what, seen_ack_timeout, c->ack_timeout);
		CHECK_CASE(what, seen_ep.has_addr == c->has_addr);
		if (c->has_addr)
			CHECK_INT_CASE(what, seen_ep.addr.family, c->family);
		CHECK_INT_CASE(what, seen_ep.port, c->port);
		CHECK_INT_CASE(what, seen_ep.addr.scope_id,
			       c->scope_if ? if_nametoindex(c->scope_if) : 0);
		run_end(&r);
	}
}

#define CHECK_LISTENER_CASES(t)	check_listener_cases(t, ARRAY_SIZE(t))

/* k_listener_add saw the address as a nested attribute. */
static void check_nested_addr(const char *what, const struct run *r)
{
	(void)r;
	CHECK_CASE(what, seen_nested_flag);
}

TEST(cmd_listener_add)
{
	static const struct listener_case cases[] = {
		/* the ACK timeout of the sessions it accepts: sent, and shown */
		{ "listener add name l1 port 4791 ack_timeout 14",
		  .out = "listener 3 name l1 ack_timeout 14\n",
		  .ack_timeout = 14, .port = 4791 },
		{ "listener add name l1 port 4791 ack_timeout 14", .json = true,
		  .out = "{\"listener_id\":3,\"name\":\"l1\",\"ack_timeout\":14}\n",
		  .ack_timeout = 14, .port = 4791 },
		{ "listener add port 4791 ack_timeout 0",
		  .out = "listener 3 name listener3\n", .ack_timeout = 0,
		  .port = 4791 },
		/* any address; v6 with the port inside addr */
		{ "listener add port 18515", .json = true,
		  .out = "{\"listener_id\":3,\"name\":\"listener3\"}\n",
		  .ack_timeout = -1, .port = 18515 },
		{ "listener a addr [fd00::1]:5000", .ack_timeout = -1,
		  .has_addr = true, .family = AF_INET6, .port = 5000 },
		/* link-local: the interface goes along as the scope */
		{ "listener a addr [fe80::1%lo]:5000", .resolve = true,
		  .ack_timeout = -1, .has_addr = true, .family = AF_INET6,
		  .port = 5000, .scope_if = "lo" },
	};
	static const struct refusal refused[] = {
		{ "listener add port 4791 ack_timeout 5",
		  "ack_timeout '5' out of range: must be 8..31, or 0 for the module's" },
		{ "listener add port 4791 ack_timeout 32",
		  "ack_timeout '32' out of range: must be 0..31" },
	};

	check_cmd(&(const struct cmd_case){
		.kernel = k_listener_add,
		.line = "listener add name l1 addr 10.0.0.1 port 4791",
		.out = "listener 3 name l1\n", .err = "", REQS(1),
		.req_cmds = { KRDMA_CMD_LISTENER_ADD },
		.sent = { SENT_STR(KRDMA_A_NAME, "l1"),
			  SENT_EP(KRDMA_A_LOCAL_ADDR, "10.0.0.1", 4791),
			  NOT_SENT(KRDMA_A_SESSION_ACK_TIMEOUT) },
		.also = check_nested_addr,
	});
	CHECK_LISTENER_CASES(cases);
	CHECK_REFUSALS(k_listener_add, refused);
}

/* A listener bound to a device, and one whose device went away. */
static void k_listeners(uint8_t cmd, struct nlattr **tb, struct nl_msg *req)
{
	struct nl_msg *m;

	(void)tb;
	if (cmd != KRDMA_CMD_LISTENER_GET ||
	    !(nlmsg_hdr(req)->nlmsg_flags & NLM_F_DUMP)) {
		fake_error(-EINVAL, "expected a dump", 0);
		return;
	}
	m = fake_msg(cmd);
	nla_put_u32(m, KRDMA_A_LISTENER_ID, 1);
	nla_put_string(m, KRDMA_A_NAME, "a");
	nla_put_string(m, KRDMA_A_DEV_NAME, "rxe0");
	fake_reply(m);
	m = fake_msg(cmd);
	nla_put_u32(m, KRDMA_A_LISTENER_ID, 2);
	nla_put_string(m, KRDMA_A_NAME, "b");
	nla_put_string(m, KRDMA_A_REASON, "RDMA device removed");
	fake_reply(m);
	fake_done();
}

TEST(cmd_listener_show_reason)
{
	static const struct cmd_case cases[] = {
		{ .kernel = k_listeners, .line = "listener show",
		  .out = "listener 1 name a dev rxe0\n"
			 "listener 2 name b reason \"RDMA device removed\"\n" },
		{ .kernel = k_listeners, .json = true, .line = "listener",
		  .json_has = { JSON_LEN("", 2),
				JSON_STRING("1/reason", "RDMA device removed") } },
	};

	CHECK_CMDS(cases);
}

static void k_eperm(uint8_t cmd, struct nlattr **tb, struct nl_msg *req)
{
	(void)cmd;
	(void)tb;
	(void)req;
	fake_error(-EPERM, NULL, 0);
}

TEST(cmd_errno_error)
{
	check_cmd(&(const struct cmd_case){
		.kernel = k_eperm, .line = "listener del name l1", .rc = 1,
		.out = "",
		.err = "krdmactl: listener del: Operation not permitted (CAP_NET_ADMIN is required)\n",
	});
}

static void k_bad_size(uint8_t cmd, struct nlattr **tb, struct nl_msg *req)
{
	(void)tb;
	(void)req;
	if (cmd == KRDMA_CMD_TEST_START)
		fake_error(-EINVAL, "size must be 8 for atomics",
			   KRDMA_A_TEST_SIZE);
	else
		fake_error(-EOPNOTSUPP, NULL, 0);
}

TEST(cmd_extack_message)
{
	check_cmd(&(const struct cmd_case){
		.kernel = k_bad_size,
		.line = "test start session s1 op atomic_fadd size 16", .rc = 1,
		.out = "",
		.err = "krdmactl: size must be 8 for atomics (attribute size)\n"
		       "Try \"krdmactl test start help\".\n",
		.sent = { SENT_STR(KRDMA_A_NAME, "s1"),
			  NOT_SENT(KRDMA_A_SESSION_ID) },
	});
}

/* ---- session connect ---- */

static int connect_mode;	/* what the fake peer does */

static void k_connect(uint8_t cmd, struct nlattr **tb, struct nl_msg *req)
{
	struct nl_msg *m;

	(void)req;
	if (cmd == KRDMA_CMD_SESSION_NEW) {
		fake_reply(session_msg(cmd, 5, "s1"));
		fake_ack();
		/* noise first: another session, a test */
		fake_event(session_event(KRDMA_EVENT_SESSION_UP, 4, "other",
					 NULL));
		fake_event(test_event(KRDMA_EVENT_TEST_PROGRESS, 5, 0, NULL));
		if (connect_mode == 0)
			fake_event(session_event(KRDMA_EVENT_SESSION_UP, 5,
						 "s1", NULL));
		else if (connect_mode == 1)
			fake_event(session_event(KRDMA_EVENT_SESSION_DOWN, 5,
						 "s1", "rejected by peer"));
		else if (connect_mode == 2)
			fake_overrun();
		return;
	}
	if (cmd == KRDMA_CMD_SESSION_GET && tb_u32(tb, KRDMA_A_SESSION_ID) == 5) {
		m = session_msg(cmd, 5, "s1");
		nla_put_u8(m, KRDMA_A_SESSION_STATE,
			   connect_mode == 2 ? KRDMA_SESSION_UP
					     : KRDMA_SESSION_CONNECTING);
		fake_reply(m);
		fake_ack();
		return;
	}
	fake_error(-ENOENT, NULL, 0);
}

static void set_connect_mode(int mode)
{
	connect_mode = mode;
}

/* k_connect, its peer doing @m (0 up, 1 down, 2 overrun, 3 silent). */
#define CONNECT(m)	.kernel = k_connect, .setup = set_connect_mode, .mode = (m)

TEST(cmd_session_connect_up)
{
	static const struct cmd_case cases[] = {
		{ CONNECT(0),
		  .line = "session connect addr 10.0.0.2 port 4791 name s1 timeout 2s src 10.0.0.1 sq_depth 64",
		  .out = "session 5 name s1 up\n", .err = "", REQS(1),
		  .sent = { SENT_EP(KRDMA_A_PEER_ADDR, "10.0.0.2", 4791),
			    SENT_EP(KRDMA_A_LOCAL_ADDR, "10.0.0.1", -1),
			    SENT(KRDMA_A_TIMEOUT_MS, 2000),
			    SENT(KRDMA_A_SESSION_SQ_DEPTH, 64),
			    NOT_SENT(KRDMA_A_SESSION_RQ_DEPTH),
			    /* the kernel's default, 1 */
			    NOT_SENT(KRDMA_A_SESSION_QPS),
			    /* the device's default */
			    NOT_SENT(KRDMA_A_SESSION_TOS),
			    /* the module's */
			    NOT_SENT(KRDMA_A_SESSION_ACK_TIMEOUT),
			    SENT_STR(KRDMA_A_NAME, "s1") } },
		{ CONNECT(0), .line = "session connect addr 10.0.0.2 port 4791 tos 96",
		  .sent = { SENT(KRDMA_A_SESSION_TOS, 96) } },
	};

	CHECK_CMDS(cases);
	check_refused(k_connect, "session connect addr 10.0.0.2 port 4791 tos 256",
		      EXIT_USAGE, "tos '256' out of range: must be 0..255");
}

TEST(cmd_session_connect_ack_timeout)
{
	static const struct refusal bad[] = {
		{ "session connect addr 10.0.0.2 ack_timeout 7",
		  "ack_timeout '7' out of range: must be 8..31, or 0 for the module's" },
		{ "session connect addr 10.0.0.2 ack_timeout 1",
		  "ack_timeout '1' out of range: must be 8..31" },
		{ "session connect addr 10.0.0.2 ack_timeout 32",
		  "ack_timeout '32' out of range: must be 0..31" },
		{ "session connect addr 10.0.0.2 ack_timeout 14x",
		  "ack_timeout" },
		{ "session connect addr 10.0.0.2 ack_timeout", "ack_timeout" },
		{ "test run addr 10.0.0.2 op write count 1 ack_timeout 4",
		  "ack_timeout '4' out of range: must be 8..31" },
	};
	static const struct cmd_case ok[] = {
		{ CONNECT(0), .line = "session connect addr 10.0.0.2 port 4791",
		  .sent = { NOT_SENT(KRDMA_A_SESSION_ACK_TIMEOUT) } },
		/* perftest's */
		{ CONNECT(0),
		  .line = "session connect addr 10.0.0.2 port 4791 ack_timeout 14",
		  .sent = { SENT(KRDMA_A_SESSION_ACK_TIMEOUT, 14) } },
		{ CONNECT(0),
		  .line = "session connect addr 10.0.0.2 port 4791 ack_timeout 8",
		  .sent = { SENT(KRDMA_A_SESSION_ACK_TIMEOUT, 8) } },
		{ CONNECT(0),
		  .line = "session connect addr 10.0.0.2 port 4791 ack_timeout 31",
		  .sent = { SENT(KRDMA_A_SESSION_ACK_TIMEOUT, 31) } },
		/* said: the module's */
		{ CONNECT(0),
		  .line = "session connect addr 10.0.0.2 port 4791 ack_timeout 0",
		  .sent = { SENT(KRDMA_A_SESSION_ACK_TIMEOUT, 0) } },
	};

	CHECK_CMDS(ok);
	CHECK_REFUSALS(k_connect, bad);
}

TEST(cmd_session_connect_qps)
{
	static const char *const bad[][2] = {
		{ "qps 0", "qps '0' out of range: must be 1..16" },
		{ "qps 17", "qps '17' out of range: must be 1..16" },
		{ "qps four", "invalid qps 'four': not a number" },
		{ "qps 2 qps 4", "duplicate keyword 'qps'" },
		{ "qps", "keyword 'qps' needs a value (qps N)" },
	};
	static const struct cmd_case good[] = {
		{ CONNECT(0),
		  .line = "session connect addr 10.0.0.2 port 4791 qps 4 sq_depth 64",
		  .out = "session 5 name s1 up\n", .err = "", REQS(1),
		  .req_cmds = { KRDMA_CMD_SESSION_NEW },
		  .sent = { SENT(KRDMA_A_SESSION_QPS, 4),
			    SENT(KRDMA_A_SESSION_SQ_DEPTH, 64) } },
		/* both ends of the range; a unique prefix of the keyword */
		{ CONNECT(0), .line = "session connect addr 10.0.0.2:4791 qps 16",
		  .sent = { SENT(KRDMA_A_SESSION_QPS, KRDMA_QPS_MAX) } },
		{ CONNECT(0), .line = "session connect addr 10.0.0.2:4791 q 1",
		  .sent = { SENT(KRDMA_A_SESSION_QPS, 1) } },
	};
	char line[256], want[256];
	size_t i;

	CHECK_CMDS(good);

	/* refused by the command line: nothing is sent */
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(line, sizeof(line),
			 "session connect addr 10.0.0.2:4791 %s", bad[i][0]);
		snprintf(want, sizeof(want),
			 "krdmactl: session connect: %s\n", bad[i][1]);
		check_cmd(&(const struct cmd_case){
			.kernel = k_connect, .line = line, .rc = EXIT_USAGE,
			.out = "", .err_starts = want, REQS(0),
		});
	}
}

TEST(cmd_session_connect_down)
{
	static const struct cmd_case cases[] = {
		{ CONNECT(1), .line = "session connect addr 10.0.0.2:4791",
		  .rc = 1, .out = "",
		  .err = "krdmactl: session 5 name s1 failed to connect: rejected by peer\n" },
		{ CONNECT(1), .json = true,
		  .line = "session connect addr 10.0.0.2:4791", .rc = 1,
		  .json_has = { JSON_STRING("state", "down"),
				JSON_STRING("reason", "rejected by peer") } },
	};

	CHECK_CMDS(cases);
}

TEST(cmd_session_connect_lost_events)
{
	/* the event queue overruns: the outcome is asked for instead */
	check_cmd(&(const struct cmd_case){
		CONNECT(2), .line = "session connect addr 10.0.0.2 port 4791",
		.out = "session 5 name s1 up\n", REQS(2),
		.req_cmds = { [1] = KRDMA_CMD_SESSION_GET },
	});
}

TEST(cmd_session_connect_no_event)
{
	check_cmd(&(const struct cmd_case){
		CONNECT(3),
		.line = "session connect addr 10.0.0.2 port 4791 timeout 100ms",
		.rc = 1,
		.err_has = { "session 5: no up/down event within 5100 ms" },
		.req_cmds = { [1] = KRDMA_CMD_SESSION_GET },
	});
}

TEST(cmd_session_show_help)
{
	check_cmd(&(const struct cmd_case){
		.kernel = k_none, .json = true, .line = "session show help",
		.out_starts = "Usage: krdmactl session show [ ID | name NAME ]",
		REQS(0),
	});
}

static void k_sessions(uint8_t cmd, struct nlattr **tb, struct nl_msg *req)
{
	struct nl_msg *m;

	(void)tb;
	if (cmd != KRDMA_CMD_SESSION_GET ||
	    !(nlmsg_hdr(req)->nlmsg_flags & NLM_F_DUMP)) {
		fake_error(-EINVAL, "expected a dump", 0);
		return;
	}
	m = session_msg(cmd, 1, "a");
	nla_put_u8(m, KRDMA_A_SESSION_STATE, KRDMA_SESSION_UP);
	nla_put_u8(m, KRDMA_A_SESSION_ACK_TIMEOUT, 14);
	fake_reply(m);
	m = session_msg(cmd, 2, "b");
	nla_put_u8(m, KRDMA_A_SESSION_STATE, KRDMA_SESSION_DOWN);
	nla_put_string(m, KRDMA_A_REASON, "peer closed");
	fake_reply(m);
	fake_done();
}

TEST(cmd_session_show_all)
{
	static const struct cmd_case cases[] = {
		{ .kernel = k_sessions, .line = "session",
		  .out = "session 1 name a state up ack_timeout 14\n"
			 "session 2 name b state down reason \"peer closed\"\n" },
		{ .kernel = k_sessions, .json = true, .line = "session show",
		  .json_has = { JSON_LEN("", 2), JSON_HAS("1/reason"),
				JSON_NUM("0/ack_timeout", 14),
				JSON_NO("1/ack_timeout") } },
	};

	CHECK_CMDS(cases);
}

/* ---- test run ---- */

/*
 * The fake kernels of "test run/start" start test 9, send a PROGRESS of it
 * and the DONE of another test (8), then end test 9 each its own way:
 * k_test_passes, k_test_perf (a bw bidir test with latency and CPU
 * figures), k_test_fails (-EIO), k_test_data_mismatch (-EBADMSG), or
 * k_test_silent, which sends no DONE: krdmactl must ask (TEST_GET) or
 * stop the test (TEST_STOP).
 */
static struct nl_msg *test_passes_done(void)
{
	return test_event(KRDMA_EVENT_TEST_DONE, 9, 0, NULL);
}

static struct nl_msg *test_fails_done(void)
{
	return test_event(KRDMA_EVENT_TEST_DONE, 9, -EIO,
			  "data mismatch at 4096");
}

static struct nl_msg *test_data_mismatch_done(void)
{
	return test_event(KRDMA_EVENT_TEST_DONE, 9, -EBADMSG, "data mismatch");
}

/* Serves the test commands; @done makes test 9's DONE event (NULL: none). */
static void k_test_ending(struct nl_msg *(*done)(void), uint8_t cmd,
			  struct nlattr **tb)
{
	struct nl_msg *m;

	switch (cmd) {
	case KRDMA_CMD_TEST_START:
		m = fake_msg(cmd);
		nla_put_u32(m, KRDMA_A_TEST_ID, 9);
		fake_reply(m);
		fake_ack();
		fake_event(test_event(KRDMA_EVENT_TEST_PROGRESS, 9, 0, NULL));
		fake_event(test_event(KRDMA_EVENT_TEST_DONE, 8, -EIO, "x"));
		if (done)
			fake_event(done());
		return;
	case KRDMA_CMD_TEST_STOP:
		if (tb_u32(tb, KRDMA_A_TEST_ID) != 9) {
			fake_error(-ENOENT, NULL, 0);
			return;
		}
		fake_ack();
		fake_event(test_event(KRDMA_EVENT_TEST_DONE, 9, 0, NULL));
		return;
	case KRDMA_CMD_TEST_GET:
		m = fake_msg(cmd);
		nla_put_u32(m, KRDMA_A_TEST_ID, 9);
		nla_put_u8(m, KRDMA_A_TEST_STATE, KRDMA_TEST_DONE);
		nla_put_u32(m, KRDMA_A_TEST_STATUS, 0);
		nla_put_u64(m, KRDMA_A_TEST_ITERS, 7);
		fake_reply(m);
		fake_ack();
		return;
	}
	fake_error(-EOPNOTSUPP, NULL, 0);
}

static void k_test_passes(uint8_t cmd, struct nlattr **tb, struct nl_msg *req)
{
	(void)req;
	k_test_ending(test_passes_done, cmd, tb);
}

static void k_test_perf(uint8_t cmd, struct nlattr **tb, struct nl_msg *req)
{
	(void)req;
	k_test_ending(perf_event, cmd, tb);
}

static void k_test_fails(uint8_t cmd, struct nlattr **tb, struct nl_msg *req)
{
	(void)req;
	k_test_ending(test_fails_done, cmd, tb);
}

static void k_test_data_mismatch(uint8_t cmd, struct nlattr **tb,
				 struct nl_msg *req)
{
	(void)req;
	k_test_ending(test_data_mismatch_done, cmd, tb);
}

static void k_test_silent(uint8_t cmd, struct nlattr **tb, struct nl_msg *req)
{
	(void)req;
	k_test_ending(NULL, cmd, tb);
}

TEST(cmd_test_run_ok)
{
	check_cmd(&(const struct cmd_case){
		.kernel = k_test_passes, .json = true,
		.line = "test run session 5 op write size 64K count 1000 depth 16",
		.err = "",
		/* the environment asked for first (this kernel has none),
		 * then the test */
		REQS(2), .req_cmds = { KRDMA_CMD_SESSION_GET },
		.sent = { SENT_IN(1, KRDMA_A_SESSION_ID, 5),
			  NOT_SENT_IN(1, KRDMA_A_NAME),
			  SENT_IN(1, KRDMA_A_TEST_OP, KRDMA_OP_WRITE),
			  SENT_IN(1, KRDMA_A_TEST_SIZE, 65536),
			  SENT_IN(1, KRDMA_A_TEST_COUNT, 1000),
			  SENT_IN(1, KRDMA_A_TEST_DEPTH, 16),
			  NOT_SENT_IN(1, KRDMA_A_TEST_DURATION_MS),
			  /* not a terminal */
			  NOT_SENT_IN(1, KRDMA_A_TEST_INTERVAL_MS),
			  /* the kernel's default, 1 */
			  NOT_SENT_IN(1, KRDMA_A_TEST_QPS) },
		.json_has = { JSON_SCHEMA, JSON_NUM("results/0/test_id", 9),
			      JSON_NUM("results/0/status", 0),
			      /* 65.536 MB in 1 s */
			      JSON_BETWEEN("results/0/mb_per_s", 65.53, 65.545) },
	});
}

TEST(cmd_test_run_perf_figures)
{
	static const struct cmd_case texts[] = {
		{ .kernel = k_test_perf,
		  .line = "test run session 5 op write mode bw size 64K count 1000 signal_every 4 chain 2 bidir",
		  .sent = { SENT(KRDMA_A_TEST_MODE, KRDMA_MODE_BW),
			    SENT(KRDMA_A_TEST_SIGNAL_EVERY, 4),
			    SENT(KRDMA_A_TEST_CHAIN, 2),
			    SENT(KRDMA_A_TEST_BIDIR, 1) },
		  .out_has = {
			" mode bw bidir 1 size 65536",
			/* 65.536 MB one way, 32.768 MB back, in 1 s */
			" peer_iters 500 peer_bytes 32768000 both ways 98.30 MB/s",
			" lat samples 3 min 1.00us p50 2.50us p99.9 9.00us cpu 250.000ms",
		  } },
		/* -M: the record's bandwidths in MiB/s; JSON keeps MB/s and bytes */
		{ .kernel = k_test_perf, .mib = true,
		  .line = "test run session 5 op write mode bw size 64K count 1000 bidir",
		  .out_has = { " 62.50 MiB/s ", " both ways 93.75 MiB/s" },
		  .out_lacks = { "MB/s" } },
		{ .kernel = k_test_perf, .json = true,
		  .line = "test run session 5 op write mode bw size 64K count 1000 bidir",
		  .json_has = { JSON_SCHEMA,
				JSON_NUM("results/0/lat/p99_9_ns", 9000),
				JSON_BETWEEN("results/0/bidir_mb_per_s", 98.29, 98.31),
				JSON_NUM("results/0/cpu_ns", 250000000) } },
		{ .kernel = k_test_perf, .json = true, .mib = true,
		  .line = "test run session 5 op write mode bw size 64K count 1000 bidir",
		  .json_has = { JSON_SCHEMA,
				JSON_DOUBLE("results/0/mb_per_s", 65.54),
				JSON_NUM("results/0/bytes", 65536000) } },
	};

	CHECK_CMDS(texts);
}

/*
 * The kernel's refusal of several QPs outside mode bw, as an extack;
 * otherwise the passing kernel.
 */
static void k_test_qps(uint8_t cmd, struct nlattr **tb, struct nl_msg *req)
{
	if (cmd == KRDMA_CMD_TEST_START && tb[KRDMA_A_TEST_QPS] &&
	    nla_get_u32(tb[KRDMA_A_TEST_QPS]) > 1 &&
	    (!tb[KRDMA_A_TEST_MODE] ||
	     nla_get_u8(tb[KRDMA_A_TEST_MODE]) != KRDMA_MODE_BW)) {
		fake_error(-EINVAL, "qps is for the bw mode",
			   KRDMA_A_TEST_QPS);
		return;
	}
	k_test_passes(cmd, tb, req);
}

TEST(cmd_test_qps)
{
	static const char *const bad[][2] = {
		{ "qps 0", "qps '0' out of range: must be 1..16" },
		{ "qps 17", "qps '17' out of range: must be 1..16" },
		{ "qps -1", "invalid qps '-1': not a number" },
		{ "qps 4 qps 4", "duplicate keyword 'qps'" },
	};
	static const char *const cmds[] = { "run", "start" };
	static const struct cmd_case cases[] = {
		/* run: each test of a sweep asks for the same QPs */
		{ .kernel = k_test_qps,
		  .line = "test run session 5 op write mode bw size 4K-8K count 1000 depth 16 qps 4",
		  .err = "", REQS(2),
		  .sent = { SENT_IN(0, KRDMA_A_TEST_QPS, 4),
			    SENT_IN(0, KRDMA_A_TEST_DEPTH, 16),
			    SENT_IN(0, KRDMA_A_TEST_MODE, KRDMA_MODE_BW),
			    SENT_IN(1, KRDMA_A_TEST_QPS, 4),
			    SENT_IN(1, KRDMA_A_TEST_DEPTH, 16),
			    SENT_IN(1, KRDMA_A_TEST_MODE, KRDMA_MODE_BW) } },
		/* start */
		{ .kernel = k_test_qps,
		  .line = "test start session s4 op read mode bw qps 16",
		  .out = "test 9\n",
		  .sent = { SENT(KRDMA_A_TEST_QPS, KRDMA_QPS_MAX),
			    SENT_STR(KRDMA_A_NAME, "s4") } },
		/* the kernel's word on qps outside bw, pointing at the attribute */
		{ .kernel = k_test_qps,
		  .line = "test start session 5 op write qps 2", .rc = 1,
		  .out = "",
		  .err = "krdmactl: qps is for the bw mode (attribute qps)\n"
			 "Try \"krdmactl test start help\".\n",
		  REQS(1), .sent = { SENT(KRDMA_A_TEST_QPS, 2) } },
	};
	char line[256], want[256];
	size_t i, j;

	CHECK_CMDS(cases);

	/* refused by the command line: nothing is sent */
	for (j = 0; j < ARRAY_SIZE(cmds); j++) {
		for (i = 0; i < ARRAY_SIZE(bad); i++) {
			snprintf(line, sizeof(line),
				 "test %s session 5 op write mode bw %s",
				 cmds[j], bad[i][0]);
			snprintf(want, sizeof(want), "krdmactl: test %s: %s",
				 cmds[j], bad[i][1]);
			check_cmd(&(const struct cmd_case){
				.kernel = k_test_qps, .line = line,
				.rc = EXIT_USAGE, .out = "", .err_starts = want,
				REQS(0),
			});
		}
	}
}

TEST(cmd_qps_in_help)
{
	static const struct cmd_case helps[] = {
		{ .kernel = k_none, .line = "session connect help",
		  .out_has = { "[ qps N ]" } },
		{ .kernel = k_none, .line = "test run help",
		  .out_has = { "[ bidir ] [ qps N ]" } },
	};

	CHECK_CMDS(helps);
}

TEST(cmd_test_run_sweep)
{
	/* start takes one size only, and a range of one is a range */
	static const struct refusal refused[] = {
		{ "test start session 5 op write size 2-8",
		  "a size range is for \"test run\"" },
		{ "test start session 5 op write size 4K-4K",
		  "a size range is for \"test run\"" },
	};

	/* One test per power of two: 2, 4 and 8 bytes. */
	check_cmd(&(const struct cmd_case){
		.kernel = k_test_passes,
		.line = "test run session 5 op write mode bw size 2-8 count 10",
		REQS(3),
		.sent = { SENT_IN(0, KRDMA_A_TEST_SIZE, 2),
			  SENT_IN(1, KRDMA_A_TEST_SIZE, 4),
			  SENT_IN(2, KRDMA_A_TEST_SIZE, 8) },
	});
	CHECK_REFUSALS(k_test_passes, refused);
}

static void k_test_report(uint8_t cmd, struct nlattr **tb, struct nl_msg *req);

/*
 * -j test run has one shape, whatever the command line or the outcome:
 * one object, the schema's version, "results" (a record per size: one
 * for a size, none, a range of one, a one-shot run; one per power of two
 * of a range; none if none ran) and "env" once, no record with a version
 * or an env of its own. The text of a range of one is the sweep's table.
 */
TEST(cmd_test_run_shape)
{
	static const struct {
		const char *line;
		size_t results;
		int rc;
	} runs[] = {
		{ "test run session 5 op write mode bw size 4K count 10", 1, 0 },
		{ "test run session 5 op write mode bw count 10", 1, 0 },
		{ "test run session 5 op write mode bw size 4K-4K count 10", 1, 0 },
		{ "test run session 5 op write mode bw size 4K-8K count 10", 2, 0 },
		{ "test run session 5 op send mode lat size 64-64 count 10", 1, 0 },
	};
	static const struct cmd_case cases[] = {
		/* a test the kernel refuses: still the object, no result in it */
		{ .kernel = k_bad_size, .json = true,
		  .line = "test run session 5 op write mode bw size 4K count 10",
		  .rc = EXIT_ERR, .json_has = { JSON_LEN("results", 0) } },
		/* one size, the sweep's table: a range of one */
		{ .kernel = k_test_report,
		  .line = "test run session 5 op write mode bw size 32K-32K count 10",
		  .out = "  #bytes     #iters     BW[MB/s]   BW[Gb/s]  MsgRate[Mpps]\n"
			 "     32K       1000        32.77      0.262       0.001000\n" },
	};
	struct json_object *o, *v, *list, *e;
	struct run r;
	size_t i, j;

	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		fake_begin(k_test_report);
		run(&r, true, runs[i].line);
		CHECK_INT_CASE(runs[i].line, r.rc, runs[i].rc);
		o = json_tokener_parse(r.out.buf);
		if (!o || !json_object_is_type(o, json_type_object) ||
		    !json_object_object_get_ex(o, "schema_version", &v) ||
		    json_object_get_int(v) != REPORT_SCHEMA_VERSION ||
		    !json_object_object_get_ex(o, "results", &list) ||
		    !json_object_is_type(list, json_type_array) ||
		    json_object_array_length(list) != runs[i].results) {
			unit_fail(__FILE__, __LINE__, "\"%s\": %s", runs[i].line,
				  r.out.buf);
			json_object_put(o);
			run_end(&r);
			continue;
		}
		for (j = 0; j < runs[i].results; j++) {
			e = json_object_array_get_idx(list, j);
			CHECK_CASE(runs[i].line,
				   json_object_object_get_ex(e, "status", NULL) &&
				   !json_object_object_get_ex(e, "schema_version", NULL) &&
				   !json_object_object_get_ex(e, "env", NULL));
		}
		json_object_put(o);
		run_end(&r);
	}

	CHECK_CMDS(cases);
}

/*
 * The reporting kernel: test 9 ends with the size and mode asked for; in
 * lat mode with percentiles, stdev and a histogram of two buckets, in bw
 * mode with qps > 1 one figure per QP, the last QP at half the rate.
 */
static void k_test_report(uint8_t cmd, struct nlattr **tb, struct nl_msg *req)
{
	uint32_t size = tb[KRDMA_A_TEST_SIZE] ? tb_u32(tb, KRDMA_A_TEST_SIZE) :
						 4096;
	uint8_t mode = tb[KRDMA_A_TEST_MODE] ?
		       nla_get_u8(tb[KRDMA_A_TEST_MODE]) : KRDMA_MODE_CHECK;
	uint32_t qps = tb[KRDMA_A_TEST_QPS] ? tb_u32(tb, KRDMA_A_TEST_QPS) : 1;
	struct nlattr *nest, *b;
	struct nl_msg *m;
	uint32_t i;

	(void)req;
	if (cmd != KRDMA_CMD_TEST_START) {
		fake_error(-EOPNOTSUPP, NULL, 0);
		return;
	}
	m = fake_msg(cmd);
	nla_put_u32(m, KRDMA_A_TEST_ID, 9);
	fake_reply(m);
	fake_ack();
	m = fake_msg(KRDMA_CMD_EVENT_NTF);
	nla_put_u8(m, KRDMA_A_EVENT, KRDMA_EVENT_TEST_DONE);
	nla_put_u32(m, KRDMA_A_TEST_ID, 9);
	nla_put_u8(m, KRDMA_A_TEST_MODE, mode);
	nla_put_u32(m, KRDMA_A_TEST_SIZE, size);
	nla_put_u64(m, KRDMA_A_TEST_ITERS, 1000);
	nla_put_u64(m, KRDMA_A_TEST_BYTES, 1000ULL * size);
	nla_put_u64(m, KRDMA_A_TEST_ELAPSED_NS, 1000000000ULL);
	nla_put_u32(m, KRDMA_A_TEST_STATUS, 0);
	if (mode == KRDMA_MODE_LAT) {
		nest = nla_nest_start(m, KRDMA_A_TEST_LAT);
		nla_put_u64(m, KRDMA_LAT_A_SAMPLES, 1000);
		nla_put_u64(m, KRDMA_LAT_A_MIN_NS, 1000);
		nla_put_u64(m, KRDMA_LAT_A_P50_NS, 1500);
		nla_put_u64(m, KRDMA_LAT_A_P99_NS, 3000);
		nla_put_u64(m, KRDMA_LAT_A_P999_NS, 3500);
		nla_put_u64(m, KRDMA_LAT_A_MAX_NS, 3900);
		nla_put_u64(m, KRDMA_LAT_A_STDEV_NS, 400);
		b = nla_nest_start(m, KRDMA_LAT_A_HIST);
		nla_put_u64(m, KRDMA_HIST_A_LO_NS, 1024);
		nla_put_u64(m, KRDMA_HIST_A_HI_NS, 1280);
		nla_put_u64(m, KRDMA_HIST_A_COUNT, 900);
		nla_nest_end(m, b);
		b = nla_nest_start(m, KRDMA_LAT_A_HIST);
		nla_put_u64(m, KRDMA_HIST_A_LO_NS, 3584);
		nla_put_u64(m, KRDMA_HIST_A_HI_NS, 4096);
		nla_put_u64(m, KRDMA_HIST_A_COUNT, 100);
		nla_nest_end(m, b);
		nla_nest_end(m, nest);
	}
	if (mode == KRDMA_MODE_BW) {
		nest = nla_nest_start(m, KRDMA_A_TEST_HOST_CPU);
		nla_put_u64(m, KRDMA_HOST_CPU_A_CAPACITY_NS, 2000000000ULL);
		nla_put_u64(m, KRDMA_HOST_CPU_A_USER_NS, 100000000ULL);
		nla_put_u64(m, KRDMA_HOST_CPU_A_SYSTEM_NS, 400000000ULL);
		nla_put_u64(m, KRDMA_HOST_CPU_A_SOFTIRQ_NS, 300000000ULL);
		nla_put_u64(m, KRDMA_HOST_CPU_A_IRQ_NS, 0);
		nla_nest_end(m, nest);
		/* the responder of one-sided ops: no handler, softirqs only */
		nest = nla_nest_start(m, KRDMA_A_TEST_PEER_HOST_CPU);
		nla_put_u64(m, KRDMA_HOST_CPU_A_CAPACITY_NS, 2000000000ULL);
		nla_put_u64(m, KRDMA_HOST_CPU_A_SOFTIRQ_NS, 500000000ULL);
		nla_nest_end(m, nest);
		/* where the peer measured (a peer of version 4; lat: older) */
		nest = nla_nest_start(m, KRDMA_A_TEST_PEER_ENV);
		nla_put_string(m, KRDMA_HOST_ENV_A_HOST, "peer-b");
		nla_put_string(m, KRDMA_HOST_ENV_A_FW_VER, "20.31.1014");
		nla_put_u32(m, KRDMA_HOST_ENV_A_LINK_MBIT_PER_S, 25000);
		nla_put_u32(m, KRDMA_HOST_ENV_A_LINK_WIDTH, 1);
		nla_nest_end(m, nest);
	}
	for (i = 0; mode == KRDMA_MODE_BW && qps > 1 && i < qps; i++) {
		nest = nla_nest_start(m, KRDMA_A_TEST_QP);
		nla_put_u32(m, KRDMA_TEST_QP_A_INDEX, i);
		nla_put_u64(m, KRDMA_TEST_QP_A_ITERS, 1000 / qps);
		nla_put_u64(m, KRDMA_TEST_QP_A_BYTES, 1000ULL / qps * size);
		nla_put_u64(m, KRDMA_TEST_QP_A_ELAPSED_NS,
			    i == qps - 1 ? 2000000000ULL : 1000000000ULL);
		nla_nest_end(m, nest);
	}
	fake_event(m);
}

TEST(cmd_test_run_sweep_table)
{
	static const struct cmd_case texts[] = {
		/* text: one header, a row per size, sizes in units */
		{ .kernel = k_test_report,
		  .line = "test run session 5 op write mode bw size 32K-64K count 10",
		  .out = "  #bytes     #iters     BW[MB/s]   BW[Gb/s]  MsgRate[Mpps]\n"
			 "     32K       1000        32.77      0.262       0.001000\n"
			 "     64K       1000        65.54      0.524       0.001000\n" },
		/* -M: perftest's MiB/s, named in the header (65536000 B/s) */
		{ .kernel = k_test_report, .mib = true,
		  .line = "test run session 5 op write mode bw size 32K-64K count 10",
		  .out = "  #bytes     #iters    BW[MiB/s]   BW[Gb/s]  MsgRate[Mpps]\n"
			 "     32K       1000        31.25      0.262       0.001000\n"
			 "     64K       1000        62.50      0.524       0.001000\n" },
		/* lat: the latency columns, in microseconds */
		{ .kernel = k_test_report,
		  .line = "test run session 5 op send mode lat size 64-128 count 10",
		  .out_has = { "t_p99.9[us]",
			       "\n      64       1000       1.00       1.50          -       3.00       3.50       3.90       0.40\n" } },
		/* JSON: one document, an array of the results */
		{ .kernel = k_test_report, .json = true,
		  .line = "test run session 5 op write mode bw size 2-8 count 10",
		  .json_has = { JSON_SCHEMA, JSON_NO("results/3"),
				JSON_NUM("results/2/size", 8) } },
	};

	CHECK_CMDS(texts);
}

TEST(cmd_test_run_histogram)
{
	static const struct cmd_case cases[] = {
		{ .kernel = k_test_report, .json = true,
		  .line = "test run session 5 op send mode lat size 64 count 10",
		  .json_has = { JSON_SCHEMA,
				JSON_NUM("results/0/lat/stdev_ns", 400),
				JSON_LEN("results/0/lat/histogram", 2),
				JSON_NUM("results/0/lat/histogram/1/count", 100) } },
		/* text: a bar per bucket, the fullest PLOT_WIDTH wide */
		{ .kernel = k_test_report,
		  .line = "test run session 5 op send mode lat size 64 count 10 histogram",
		  .out_has = {
			" stdev 0.40us",
			"test 9: latency histogram, 1000 samples\n",
			/* each column in the unit its header names */
			"    from[us]       to[us]   #samples\n",
			"       900 |##################################################\n",
			"       100 |######\n",
		  } },
	};

	CHECK_CMDS(cases);

	/* histogram and expect belong to run */
	check_refused(k_test_report, "test start session 5 op send mode lat histogram",
		      EXIT_USAGE, "histogram is for \"test run\"");
}

TEST(cmd_test_run_expect)
{
	static const struct cmd_case cases[] = {
		/* met: exit 0, each threshold in the JSON record */
		{ .kernel = k_test_report, .json = true,
		  .line = "test run session 5 op send mode lat size 64 count 10 expect p99<=3us expect p50<=2us",
		  .err = "",
		  .json_has = { JSON_SCHEMA, JSON_LEN("results/0/expect", 2),
				JSON_TRUE("results/0/expect/0/met") } },
		/* missed: exit 4 (the data was right), and which, by how much */
		{ .kernel = k_test_report,
		  .line = "test run session 5 op send mode lat size 64 count 10 expect p99<=2.5us",
		  .rc = EXIT_EXPECT,
		  .err = "krdmactl: test 9 (size 64): expect p99<=2.5us missed: p99 was 3.00us\n" },
		/* every size of a sweep: 32K moves 32.77 MB/s, 64K 65.54 */
		{ .kernel = k_test_report,
		  .line = "test run session 5 op write mode bw size 32K-64K count 10 expect bw>=50",
		  .rc = EXIT_EXPECT,
		  .err_has = { "(size 32K): expect bw>=50 missed: bw was 32.77 MB/s" },
		  .err_lacks = { "64K" } },
		/* the hosts' CPUs: of all their CPUs' time, split */
		{ .kernel = k_test_report,
		  .line = "test run session 5 op write mode bw size 64K count 10",
		  .out_has = { " host_cpu 40.0% (user 5.0% sys 20.0% softirq 15.0% irq 0.0%) peer_host_cpu 25.0% (user 0.0% sys 0.0% softirq 25.0% irq 0.0%)" } },
		{ .kernel = k_test_report, .json = true,
		  .line = "test run session 5 op write mode bw size 64K count 10",
		  .json_has = { JSON_SCHEMA,
				JSON_NUM("results/0/peer_host_cpu/softirq_ns", 500000000),
				JSON_DOUBLE("results/0/peer_host_cpu/busy_pct", 25.0) } },
		/* the slowest QP: 4 QPs, the last at half the rate of the others */
		{ .kernel = k_test_report,
		  .line = "test run session 5 op write mode bw size 64K qps 4 count 10 expect min_qp_bw>=8MB/s",
		  .out_has = { " qp_min 8.19 MB/s qp_max 16.38 MB/s" } },
		{ .kernel = k_test_report,
		  .line = "test run session 5 op write mode bw size 64K qps 4 count 10 expect min_qp_bw>=0.1Gb/s",
		  .rc = EXIT_EXPECT, .err_has = { "min_qp_bw was 8.19 MB/s" } },
	};
	/* a figure the mode does not have is refused before anything runs */
	static const struct refusal refused[] = {
		{ "test run session 5 op write mode bw expect p99<=1ms",
		  "p99 is measured in lat mode, not in bw mode" },
		{ "test run session 5 op write expect min_qp_bw>=1",
		  "per-QP figures come from bw mode" },
		{ "test run session 5 op write expect bw>=",
		  "invalid expect 'bw>='" },
	};

	CHECK_CMDS(cases);
	CHECK_REFUSALS(k_test_report, refused);
}

/*
 * The pinged kernel: session 6 comes up; each round trip is a lat-mode
 * test of one send (ids 9, 10, ...), whose one-way latency is 20 us,
 * 21 us, 22 us, ... (round trips of 40, 42, 44 us); the session is
 * deleted. ping_mode: 1 fails round trip 2's data, 2 gives no latency
 * figure, 3 takes the session down after round trip 1.
 */
static void k_env(uint8_t cmd, struct nlattr **tb, struct nl_msg *req);
static void k_conform(uint8_t cmd, struct nlattr **tb, struct nl_msg *req);
static void k_conform_fails(uint8_t cmd, struct nlattr **tb,
			    struct nl_msg *req);

static uint8_t ping_cmds[12];
static unsigned int ping_ncmds;
static int ping_mode;
static uint32_t ping_next_test;
static bool ping_test_args_ok;

static void k_ping(uint8_t cmd, struct nlattr **tb, struct nl_msg *req)
{
	uint32_t id = ping_next_test;
	bool bad = ping_mode == 1 && id == 10;
	struct nlattr *nest;
	struct nl_msg *m;

	(void)req;
	if (ping_ncmds < sizeof(ping_cmds))
		ping_cmds[ping_ncmds++] = cmd;
	switch (cmd) {
	case KRDMA_CMD_SESSION_NEW:
		ping_next_test = 9;
		ping_test_args_ok = true;
		fake_reply(session_msg(cmd, 6, "ping"));
		fake_ack();
		fake_event(session_event(KRDMA_EVENT_SESSION_UP, 6, "ping",
					 NULL));
		return;
	case KRDMA_CMD_TEST_START:
		if (tb_u32(tb, KRDMA_A_SESSION_ID) != 6 ||
		    nla_get_u8(tb[KRDMA_A_TEST_OP]) != KRDMA_OP_SEND) {
			fake_error(-EINVAL, "wrong test", 0);
			return;
		}
		/* one message, timed on its own */
		ping_test_args_ok &= tb[KRDMA_A_TEST_MODE] &&
				     nla_get_u8(tb[KRDMA_A_TEST_MODE]) == KRDMA_MODE_LAT &&
				     tb[KRDMA_A_TEST_COUNT] &&
				     nla_get_u64(tb[KRDMA_A_TEST_COUNT]) == 1;
		ping_next_test++;
		m = fake_msg(cmd);
		nla_put_u32(m, KRDMA_A_TEST_ID, id);
		fake_reply(m);
		fake_ack();
		m = fake_msg(KRDMA_CMD_EVENT_NTF);
		nla_put_u8(m, KRDMA_A_EVENT, KRDMA_EVENT_TEST_DONE);
		nla_put_u32(m, KRDMA_A_TEST_ID, id);
		nla_put_u8(m, KRDMA_A_TEST_MODE, KRDMA_MODE_LAT);
		nla_put_u32(m, KRDMA_A_TEST_SIZE, tb_u32(tb, KRDMA_A_TEST_SIZE));
		nla_put_u64(m, KRDMA_A_TEST_ITERS, 1);
		/* As the kernel says of a lat send: both ends checked it. */
		nla_put_u64(m, KRDMA_A_TEST_VALIDATED, bad ? 0 : 2);
		/* the test's setup: never in a round trip */
		nla_put_u64(m, KRDMA_A_TEST_ELAPSED_NS, 3000000);
		if (ping_mode != 2) {
			nest = nla_nest_start(m, KRDMA_A_TEST_LAT);
			nla_put_u64(m, KRDMA_LAT_A_SAMPLES, 1);
			nla_put_u64(m, KRDMA_LAT_A_MIN_NS, 20000 + 1000 * (id - 9));
			nla_put_u64(m, KRDMA_LAT_A_MAX_NS, 20000 + 1000 * (id - 9));
			nla_nest_end(m, nest);
		}
		nla_put_u32(m, KRDMA_A_TEST_STATUS, bad ? (uint32_t)-EBADMSG : 0);
		if (bad)
			nla_put_string(m, KRDMA_A_REASON, "send data differs from the pattern");
		fake_event(m);
		if (ping_mode == 3)
			fake_event(session_event(KRDMA_EVENT_SESSION_DOWN, 6,
						 "ping", "peer went away"));
		return;
	case KRDMA_CMD_SESSION_DEL:
		fake_ack();
		return;
	case KRDMA_CMD_SESSION_GET:
	case KRDMA_CMD_DEV_GET:
	case KRDMA_CMD_VERSION_GET:
		/* the environment, as for a test */
		k_env(cmd, tb, req);
		return;
	}
	fake_error(-EOPNOTSUPP, NULL, 0);
}

static int64_t json_int(struct json_object *o, const char *key)
{
	struct json_object *v;

	return o && json_object_object_get_ex(o, key, &v) ?
	       json_object_get_int64(v) : -1;
}

/* The string of @key in @o; NULL if there is none (or it is null). */
static const char *json_str(struct json_object *o, const char *key)
{
	struct json_object *v;

	return o && json_object_object_get_ex(o, key, &v) ?
	       json_object_get_string(v) : NULL;
}

static void ping_setup(int mode)
{
	ping_ncmds = 0;
	ping_mode = mode;
}

static void ping_begin(int mode)
{
	ping_setup(mode);
	fake_begin(k_ping);
}

/* k_ping in mode @m: 0 as it should, 1 bad data, 2 no latency, 3 down. */
#define PING(m)		.kernel = k_ping, .setup = ping_setup, .mode = (m)

/*
 * ping as ping(8): the connect time on its own, each round trip the
 * kernel's time of one message (not the test's setup), a line each, the
 * summary's min/avg/max/mdev.
 */
/* Each test of k_ping's was one lat-mode message. */
static void check_ping_tests(const char *what, const struct run *r)
{
	(void)r;
	CHECK_CASE(what, ping_test_args_ok);
}

TEST(cmd_ping)
{
	static const struct cmd_case cases[] = {
		{ PING(0), .json = true, .line = "ping 10.0.0.2:7471 count 3",
		  /* the session, its environment, the round trips, the delete */
		  REQS(8),
		  .req_cmds = { KRDMA_CMD_SESSION_NEW, KRDMA_CMD_SESSION_GET,
				[4] = KRDMA_CMD_TEST_START, KRDMA_CMD_TEST_START,
				KRDMA_CMD_TEST_START, KRDMA_CMD_SESSION_DEL },
		  .also = check_ping_tests,
		  .json_has = {
			JSON_STRING("peer", "10.0.0.2:7471"),
			JSON_NUM("session_id", 6), JSON_MIN("connect_ms", 0),
			JSON_NUM("round_trips", 3), JSON_NUM("validated", 3),
			JSON_NUM("size", 64), JSON_LEN("rtt_ns", 3),
			JSON_NUM("rtt_ns/0", 40000), JSON_NUM("rtt_ns/2", 44000),
			JSON_NUM("rtt_min_ns", 40000),
			JSON_NUM("rtt_avg_ns", 42000),
			JSON_NUM("rtt_max_ns", 44000),
			/* sqrt(((-2000)^2 + 0 + 2000^2) / 3) */
			JSON_NUM("rtt_mdev_ns", 1633),
			/* the mean round trip, not the 3 ms the tests took */
			JSON_DOUBLE("rtt_us", 42.0),
			JSON_NUM("status", 0), JSON_TRUE("ok"),
			JSON_HAS("env/timestamp"),
			JSON_STRING("env/module", "9.9.9"),
		  } },
		/* text: a line for the session, one per round trip, the summary */
		{ PING(0), .line = "ping 10.0.0.2:7471 count 2 size 128 interval 0ms",
		  .out_has = {
			"ping 10.0.0.2:7471: session 6 connected in ",
			"\n128 B from 10.0.0.2:7471: seq=1 rtt=40.000 us validated\n"
			"128 B from 10.0.0.2:7471: seq=2 rtt=42.000 us validated\n"
			"--- 10.0.0.2:7471 krdma ping statistics ---\n"
			"2 round trips, 2 validated, time ",
			"\nrtt min/avg/max/mdev = 40.000/41.000/42.000/1.000 us\n",
		  } },
		/* the default count is ping's few, not one */
		{ PING(0), .line = "ping 10.0.0.2:7471",
		  .out_has = { "seq=5 ", "5 round trips, 5 validated" },
		  .out_lacks = { "seq=6 " } },
		/* data that came back wrong: said, the others still run, exit 3 */
		{ PING(1), .json = true, .line = "ping 10.0.0.2:7471 count 3",
		  .rc = EXIT_TEST_FAIL,
		  .err_has = { "send data differs from the pattern" },
		  .json_has = { JSON_NUM("round_trips", 3),
				JSON_NUM("validated", 2),
				JSON_NUM("status", -EBADMSG), JSON_FALSE("ok") },
		  .last_req = KRDMA_CMD_SESSION_DEL },
		/* ... and on its line */
		{ PING(1), .line = "ping 10.0.0.2:7471 count 2",
		  .rc = EXIT_TEST_FAIL,
		  .out_has = { "seq=2 rtt=42.000 us NOT validated\n" } },
		/* no latency figure from the kernel: no time made up, exit 1 */
		{ PING(2), .line = "ping 10.0.0.2:7471 count 3", .rc = EXIT_ERR,
		  .err_has = { "the kernel's result of test 9 has no latency figure" },
		  .out_has = { "0 round trips, 0 validated" },
		  .out_lacks = { "rtt min/avg/max/mdev" },
		  REQS(3), .req_cmds = { [2] = KRDMA_CMD_SESSION_DEL } },
		/* the session goes down between round trips: said, exit 1 */
		{ PING(3), .line = "ping 10.0.0.2:7471 count 3", .rc = EXIT_ERR,
		  .err_has = { "ping 10.0.0.2:7471: the session went down" },
		  .out_has = { "1 round trips, 1 validated" } },
		/* ^C between round trips: the summary of those done, exit 130 */
		{ PING(0), .what = "^C", .sigint = 1,
		  .line = "ping 10.0.0.2:7471 count 3", .rc = EXIT_INTR,
		  .out_has = { "1 round trips, 1 validated",
			       "rtt min/avg/max/mdev = 40.000/40.000/40.000/0.000 us" },
		  .last_req = KRDMA_CMD_SESSION_DEL },
		/* a real SIGHUP there: caught as ^C is, the session deleted */
		{ PING(0), .what = "SIGHUP", .sigint = 1, .signal = SIGHUP,
		  .line = "ping 10.0.0.2:7471 count 3", .rc = EXIT_INTR,
		  .last_req = KRDMA_CMD_SESSION_DEL },
		/* no listener there: exit 1, the reason, nothing left behind */
		{ CONNECT(1), .line = "ping 10.0.0.2 port 7471", .rc = EXIT_ERR,
		  .err_has = { "ping 10.0.0.2:7471: no krdma session: rejected by peer" } },
	};
	static const struct refusal refused[] = {
		{ "ping 10.0.0.2:7471 port 7472",
		  "conflicting ports in 'addr' and 'port'" },
		{ "ping 10.0.0.2:7471 interval 2m", "interval '2m' out of range" },
	};
	CHECK_CMDS(cases);

	/*
	 * The reader of its lines gone (ping | head; here a stream whose
	 * every write fails): it stops after the round trip it could not
	 * print, deletes the session, exit 1 - not two more round trips.
	 */
	{
		char *argv[] = { "10.0.0.2:7471", "count", "3", NULL };
		FILE *full = fopen("/dev/full", "w");
		int rc;

		CHECK(full != NULL);
		if (full) {
			ping_begin(0);
			out_init(full, false, false);
			rc = obj_dispatch(find_obj("ping"), 3, argv);
			out_init(stdout, false, false);
			fclose(full);
			fake_end();
			CHECK_INT(rc, EXIT_ERR);
			CHECK_INT(ping_ncmds, 3);
			CHECK_INT(ping_cmds[1], KRDMA_CMD_TEST_START);
			CHECK_INT(ping_cmds[2], KRDMA_CMD_SESSION_DEL);
		}
	}

	CHECK_REFUSALS(k_ping, refused);
}

/*
 * Without a port, listener add, session connect and ping use krdma's own,
 * 7362, spelled out here: it is what two hosts must agree on.
 */
TEST(cmd_default_port)
{
	static const struct listener_case listeners[] = {
		{ "listener add name l1", .ack_timeout = -1, .port = 7362 },
		{ "listener add addr 10.0.0.1", .ack_timeout = -1,
		  .has_addr = true, .family = AF_INET, .port = 7362 },
		/* a port given still wins, in addr or on its own */
		{ "listener add addr 10.0.0.1:7471", .ack_timeout = -1,
		  .has_addr = true, .family = AF_INET, .port = 7471 },
	};
	static const struct cmd_case cases[] = {
		{ CONNECT(0), .line = "session connect addr 10.0.0.2 name s1",
		  .sent = { SENT_PORT(KRDMA_A_PEER_ADDR, 7362) } },
		{ PING(0), .line = "ping 10.0.0.2",
		  .sent = { SENT_PORT(KRDMA_A_PEER_ADDR, 7362) },
		  .out_has = { "ping 10.0.0.2:7362:" } },
		/* and the help says which */
		{ .kernel = k_none, .line = "listener help",
		  .out_has = { "[ port PORT ]", "default 7362" } },
	};

	CHECK_INT(KRDMACTL_PORT_DFLT, 7362);
	CHECK_LISTENER_CASES(listeners);
	CHECK_CMDS(cases);
	check_refused(k_connect, "session connect addr 10.0.0.2:1 port 2",
		      EXIT_USAGE, "conflicting ports");
}

/*
 * A one-shot run's kernel: session 7 comes up (or goes down, or says
 * nothing: oneshot_connect), TEST_START is served by k_test_ending() with
 * oneshot_done (or refused: oneshot_start_err), SESSION_DEL is acked.
 * What was asked is recorded, and the SESSION_NEW and SESSION_DEL seen.
 */
enum { OS_UP, OS_DOWN, OS_SILENT };
static int oneshot_connect;
static struct nl_msg *(*oneshot_done)(void);
static int oneshot_start_err;
static uint8_t os_cmds[16];
static unsigned int os_ncmds;
static uint32_t os_del_id, os_test_session;

static void k_oneshot(uint8_t cmd, struct nlattr **tb, struct nl_msg *req)
{
	(void)req;
	if (os_ncmds < sizeof(os_cmds))
		os_cmds[os_ncmds++] = cmd;
	switch (cmd) {
	case KRDMA_CMD_SESSION_NEW:
		fake_reply(session_msg(cmd, 7, "run"));
		fake_ack();
		if (oneshot_connect == OS_UP)
			fake_event(session_event(KRDMA_EVENT_SESSION_UP, 7,
						 "run", NULL));
		else if (oneshot_connect == OS_DOWN)
			fake_event(session_event(KRDMA_EVENT_SESSION_DOWN, 7,
						 "run", "rejected by peer"));
		return;
	case KRDMA_CMD_SESSION_DEL:
		os_del_id = tb_u32(tb, KRDMA_A_SESSION_ID);
		fake_ack();
		return;
	case KRDMA_CMD_TEST_START:
		os_test_session = tb_u32(tb, KRDMA_A_SESSION_ID);
		if (oneshot_start_err) {
			fake_error(oneshot_start_err,
				   "size exceeds the session's max_msg (set at connect)",
				   0);
			return;
		}
		break;
	}
	k_test_ending(oneshot_done, cmd, tb);
}

/* The session was deleted, last: whatever happened, nothing is left. */
static void check_deleted(const char *what, const struct run *r)
{
	if (!os_ncmds || os_cmds[os_ncmds - 1] != KRDMA_CMD_SESSION_DEL ||
	    os_del_id != 7)
		unit_fail(__FILE__, __LINE__, "\"%s\" (rc %d): session 7 not deleted last (%u requests, deleted %u): %s",
			  what, r->rc, os_ncmds, os_del_id, r->err);
}

/* ... and named run-SOMETHING when it was made. */
static void check_named_and_deleted(const char *what, const struct run *r)
{
	struct nlattr *tb[KRDMA_A_MAX + 1];

	CHECK_INT_CASE(what, fake_req_attrs(0, tb), 0);
	CHECK_CASE(what, tb[KRDMA_A_NAME] &&
		   !strncmp(nla_get_string(tb[KRDMA_A_NAME]), "run-", 4));
	check_deleted(what, r);
}

/*
 * ... after a hangup; and whoever read stdout gone too: the writes fail,
 * reported, instead of SIGPIPE killing it before the delete.
 */
static void check_deleted_sigpipe_ignored(const char *what,
					  const struct run *r)
{
	struct sigaction sa;

	check_deleted(what, r);
	CHECK_CASE(what, sigaction(SIGPIPE, NULL, &sa) == 0 &&
		   sa.sa_handler == SIG_IGN);
}

/*
 * A one-shot run against k_oneshot: the session comes up as @connect,
 * the test ends with @done, or the kernel refuses it with @start_err;
 * @want is the command line and what it must give.
 */
struct oneshot_case {
	int connect;
	struct nl_msg *(*done)(void);
	int start_err;
	struct cmd_case want;
};

static void check_oneshot_cases(const struct oneshot_case *c, size_t n)
{
	for (; n--; c++) {
		oneshot_connect = c->connect;
		oneshot_done = c->done;
		oneshot_start_err = c->start_err;
		os_ncmds = 0;
		os_del_id = os_test_session = 0;
		check_cmd(&c->want);
	}
}

/* "test run addr HOST ..." connects, runs, prints and deletes. */
TEST(cmd_test_run_oneshot)
{
	static const struct oneshot_case cases[] = {
		/* success: a session sized for the test, the test over it */
		{ OS_UP, test_passes_done, 0, {
		  .kernel = k_oneshot,
		  .line = "test run addr 10.0.0.2 op send size 1M qps 2 depth 100 count 10",
		  REQS(3), .req_cmds = { KRDMA_CMD_SESSION_NEW,
					 KRDMA_CMD_TEST_START },
		  .out_has = { "test 9 " }, .err = "",
		  .sent = { SENT_IN(1, KRDMA_A_SESSION_ID, 7),
			    SENT_PORT(KRDMA_A_PEER_ADDR, 7362),
			    SENT(KRDMA_A_SESSION_MAX_MSG_SIZE, 1 << 20),
			    SENT(KRDMA_A_SESSION_QPS, 2),
			    SENT(KRDMA_A_SESSION_RQ_DEPTH, 103),
			    SENT(KRDMA_A_SESSION_SQ_DEPTH, 2002),
			    /* the test names the session by id */
			    NOT_SENT_IN(1, KRDMA_A_NAME) },
		  .also = check_named_and_deleted } },
		/* a WRITE of the defaults needs nothing of the session; what
		 * the user gives is sent as given */
		{ OS_UP, test_passes_done, 0, {
		  .kernel = k_oneshot,
		  .line = "test run addr 10.0.0.2:7471 op write tos 96 rq_depth 8 count 10 ack_timeout 14",
		  .sent = { SENT_PORT(KRDMA_A_PEER_ADDR, 7471),
			    NOT_SENT(KRDMA_A_SESSION_MAX_MSG_SIZE),
			    NOT_SENT(KRDMA_A_SESSION_QPS),
			    NOT_SENT(KRDMA_A_SESSION_SQ_DEPTH),
			    SENT(KRDMA_A_SESSION_RQ_DEPTH, 8),
			    SENT(KRDMA_A_SESSION_TOS, 96),
			    SENT(KRDMA_A_SESSION_ACK_TIMEOUT, 14) },
		  .also = check_deleted } },
		/* a failed test, data that failed validation: deleted all the same */
		{ OS_UP, test_fails_done, 0, {
		  .kernel = k_oneshot,
		  .line = "test run addr 10.0.0.2 op write count 10",
		  .rc = EXIT_ERR, .also = check_deleted } },
		{ OS_UP, test_data_mismatch_done, 0, {
		  .kernel = k_oneshot,
		  .line = "test run addr 10.0.0.2 op write count 10",
		  .rc = EXIT_TEST_FAIL, .also = check_deleted } },
		/* an error: the kernel refuses the test */
		{ OS_UP, test_passes_done, -EMSGSIZE, {
		  .kernel = k_oneshot,
		  .line = "test run addr 10.0.0.2 op send size 2M count 10",
		  .rc = EXIT_ERR, .err_has = { "max_msg" },
		  .also = check_deleted } },
		/* an error: the session goes down instead of up */
		{ OS_DOWN, test_passes_done, 0, {
		  .kernel = k_oneshot,
		  .line = "test run addr 10.0.0.2 op send size 2M count 10",
		  .rc = EXIT_ERR,
		  .err_has = { "no session to 10.0.0.2:7362: rejected by peer" },
		  REQS(2),	/* no test */
		  .also = check_deleted } },
		/* ^C while the test runs: stopped, its result, deleted, 130 */
		{ OS_UP, NULL, 0, {
		  .kernel = k_oneshot, .what = "^C, running", .sigint = 1,
		  .line = "test run addr 10.0.0.2 op write duration 1h",
		  .rc = EXIT_INTR, .err_has = { "stopping test 9" },
		  .out_has = { "test 9 " }, .also = check_deleted } },
		/* ^C while connecting: deleted, and not said to be left behind */
		{ OS_SILENT, NULL, 0, {
		  .kernel = k_oneshot, .what = "^C, connecting", .sigint = 1,
		  .line = "test run addr 10.0.0.2 op write duration 1h",
		  .rc = EXIT_INTR, .err_has = { "deleting session 7" },
		  .err_lacks = { "left as it is" }, .also = check_deleted } },
		/* The terminal (or ssh) gone, a real SIGHUP, while connecting
		 * and while the test runs: caught, the session deleted all the
		 * same. */
		{ OS_SILENT, NULL, 0, {
		  .kernel = k_oneshot, .what = "hangup, connecting",
		  .sigint = 1, .signal = SIGHUP,
		  .line = "test run addr 10.0.0.2 op write duration 1h",
		  .rc = EXIT_INTR, .also = check_deleted_sigpipe_ignored } },
		{ OS_UP, NULL, 0, {
		  .kernel = k_oneshot, .what = "hangup, running",
		  .sigint = 1, .signal = SIGHUP,
		  .line = "test run addr 10.0.0.2 op write duration 1h",
		  .rc = EXIT_INTR, .also = check_deleted_sigpipe_ignored } },
	};
	/* the command line, checked before the kernel hears anything */
	static const struct refusal refused[] = {
		{ "test run op write count 10",
		  "one of 'session', 'addr' is required" },
		{ "test run session 5 addr 10.0.0.2 op write",
		  "cannot be used together" },
		{ "test run session 5 op write max_msg 1M",
		  "'max_msg' is for a one-shot run" },
		{ "test run addr 10.0.0.2:1 port 2 op write",
		  "conflicting ports" },
		{ "test start addr 10.0.0.2 op write",
		  "is for \"test run\"" },
		{ "test run addr 10.0.0.2 op write name x",
		  "unknown keyword 'name'" },
	};

	check_oneshot_cases(cases, ARRAY_SIZE(cases));
	CHECK_REFUSALS(k_oneshot, refused);
}

/*
 * The measured kernel: session 5 on rxe0 (port 1 active, MTU 1024),
 * krdma 9.9.9, peer protocol 2; the test from k_test_report.
 */
static void k_env(uint8_t cmd, struct nlattr **tb, struct nl_msg *req)
{
	struct nlattr *nest;
	struct nl_msg *m;

	switch (cmd) {
	case KRDMA_CMD_SESSION_GET:
		m = session_msg(cmd, 5, "s");
		nla_put_string(m, KRDMA_A_DEV_NAME, "rxe0");
		nla_put_u8(m, KRDMA_A_SESSION_CQ_POLL, KRDMA_CQ_POLL_SOFTIRQ);
		nla_put_u32(m, KRDMA_A_SESSION_PEER_PROTO, 2);
		nla_put_u8(m, KRDMA_A_SESSION_ACK_TIMEOUT, 14);
		fake_reply(m);
		fake_ack();
		return;
	case KRDMA_CMD_DEV_GET:
		m = fake_msg(cmd);
		nla_put_string(m, KRDMA_A_DEV_NAME, "rxe0");
		nest = nla_nest_start(m, KRDMA_A_DEV_PORT);
		nla_put_u32(m, KRDMA_PORT_A_INDEX, 1);
		nla_put_u8(m, KRDMA_PORT_A_STATE, 4);
		nla_put_u32(m, KRDMA_PORT_A_ACTIVE_MTU, 1024);
		nla_nest_end(m, nest);
		fake_reply(m);
		fake_ack();
		return;
	case KRDMA_CMD_VERSION_GET:
		m = fake_msg(cmd);
		nla_put_string(m, KRDMA_A_VERSION, "9.9.9");
		fake_reply(m);
		fake_ack();
		return;
	}
	k_test_report(cmd, tb, req);
}

static void put_file(const char *root, const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	CHECK_INT(system(cmd), 0);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* An RFC 3339 UTC time to the second: 2026-11-29T07:01:33Z. */
static bool is_rfc3339_utc(const char *s)
{
	static const char form[] = "dddd-dd-ddTdd:dd:ddZ";
	size_t i;

	if (!s || strlen(s) != sizeof(form) - 1)
		return false;
	for (i = 0; form[i]; i++)
		if (form[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != form[i])
			return false;
	return true;
}

TEST(env_rate)
{
	/* /sys/class/infiniband/DEV/ports/N/rate */
	static const struct {
		const char *in;
		int rc;
		uint64_t mbit;		/* when rc is 0 */
		uint32_t width;
	} cases[] = {
		{ "100 Gb/sec (4X EDR)", 0, 100000, 4 },
		{ "2.5 Gb/sec (1X SDR)", 0, 2500, 1 },
		/* newer kernels always write the decimal */
		{ "400.0 Gb/sec (4X NDR)", 0, 400000, 4 },
		{ "56 Gb/sec (4X FDR)", 0, 56000, 4 },
		{ "12 Gb/sec (12X SDR)", 0, 12000, 12 },
		{ "", .rc = -EINVAL },
		{ "fast", .rc = -EINVAL },
		{ "10 Mb/sec (1X SDR)", .rc = -EINVAL },
		{ "10 Gb/sec (X SDR)", .rc = -EINVAL },
		{ "10 Gb/sec (0X SDR)", .rc = -EINVAL },
	};
	uint64_t mbit;
	uint32_t width;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *what = cases[i].in;

		mbit = width = 0;
		CHECK_INT_CASE(what, env_parse_rate(what, &mbit, &width),
			       cases[i].rc);
		if (cases[i].rc)
			continue;
		CHECK_U64_CASE(what, mbit, cases[i].mbit);
		CHECK_INT_CASE(what, width, cases[i].width);
	}
}

TEST(cmd_test_run_env)
{
	/* what the fake sysfs and k_env give: a string, or a number */
	static const struct {
		const char *key;
		const char *str;
		int64_t num;
	} keys[] = {
		{ "dev", .str = "rxe0" },
		{ "transport", .str = "roce" },
		{ "active_mtu", .num = 1024 },
		{ "netdev_mtu", .num = 1500 },
		{ "cq_poll", .str = "softirq" },
		{ "module", .str = "9.9.9" },
		{ "peer_proto", .num = 2 },
		{ "ack_timeout", .num = 14 },
		{ "fw_ver", .str = "16.35.2000" },
		{ "link_rate_mbit_per_s", .num = 100000 },
		{ "link_width", .num = 4 },
		/* the peer's own, from the first result (k_test_report's) */
		{ "peer_host", .str = "peer-b" },
		{ "peer_fw_ver", .str = "20.31.1014" },
		{ "peer_link_rate_mbit_per_s", .num = 25000 },
		{ "peer_link_width", .num = 1 },
	};
	char root[] = "/tmp/krdma-unit-sysfs.XXXXXX", cmd[128];
	struct json_object *o, *e, *v;
	struct utsname u;
	struct run r;
	size_t i;

	CHECK(mkdtemp(root) != NULL);
	put_file(root, "class/infiniband/rxe0/node_type", "1: CA\n");
	put_file(root, "class/infiniband/rxe0/ports/1/link_layer", "Ethernet\n");
	put_file(root, "class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0", "eth0\n");
	put_file(root, "class/net/eth0/mtu", "1500\n");
	put_file(root, "devices/system/cpu/cpuidle/current_driver", "none\n");
	put_file(root, "class/infiniband/rxe0/fw_ver", "16.35.2000\n");
	put_file(root, "class/infiniband/rxe0/ports/1/rate", "100 Gb/sec (4X EDR)\n");
	env_sysfs_root = root;
	CHECK_INT(uname(&u), 0);

	fake_begin(k_env);
	run(&r, true, "test run session 5 op write mode bw size 4K-8K count 10");
	CHECK_INT(r.rc, 0);
	o = json_tokener_parse(r.out.buf);
	CHECK(o && json_object_object_get_ex(o, "env", &e));
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		if (keys[i].str)
			CHECK_STR_CASE(keys[i].key, json_str(e, keys[i].key),
				       keys[i].str);
		else
			CHECK_INT_CASE(keys[i].key, json_int(e, keys[i].key),
				       keys[i].num);
	}
	/* no cpufreq here: null, not a guess */
	CHECK(e && json_object_object_get_ex(e, "governor", &v) && v == NULL);
	/* when and where */
	CHECK(e && json_object_object_get_ex(e, "timestamp", &v) &&
	      is_rfc3339_utc(json_object_get_string(v)));
	CHECK(e && json_object_object_get_ex(e, "host", &v) &&
	      !strcmp(json_object_get_string(v), u.nodename));
	json_object_put(o);
	run_end(&r);

	/* a device without them (rxe has no fw_ver on old kernels): null */
	snprintf(cmd, sizeof(cmd), "rm -f '%s/class/infiniband/rxe0/fw_ver'", root);
	CHECK_INT(system(cmd), 0);
	put_file(root, "class/infiniband/rxe0/ports/1/rate", "\n");
	fake_begin(k_env);
	run(&r, true, "test run session 5 op write mode bw size 4K count 10");
	CHECK_INT(r.rc, 0);
	o = json_tokener_parse(r.out.buf);
	CHECK(o && json_object_object_get_ex(o, "env", &e));
	CHECK(e && json_object_object_get_ex(e, "fw_ver", &v) && v == NULL);
	CHECK(e && json_object_object_get_ex(e, "link_rate_mbit_per_s", &v) && v == NULL);
	CHECK(e && json_object_object_get_ex(e, "link_width", &v) && v == NULL);
	json_object_put(o);
	run_end(&r);
	put_file(root, "class/infiniband/rxe0/fw_ver", "16.35.2000\n");
	put_file(root, "class/infiniband/rxe0/ports/1/rate", "2.5 Gb/sec (1X SDR)\n");

	/* text: once, with -s */
	opts.stats = true;
	fake_begin(k_env);
	run(&r, false, "test run session 5 op write mode bw size 4K-8K count 10");
	opts.stats = false;
	CHECK(strstr(r.out.buf, "env timestamp ") != NULL);
	CHECK(strstr(r.out.buf, " dev rxe0 fw_ver 16.35.2000 link_rate 2.5Gb/s link_width 1X transport roce active_mtu 1024 netdev eth0 netdev_mtu 1500 cq_poll softirq governor - idle_driver none module 9.9.9 peer_proto 2 ack_timeout 14 peer_host peer-b peer_fw_ver 20.31.1014 peer_link_rate 25Gb/s peer_link_width 1X\n") != NULL);
	CHECK(strstr(strstr(r.out.buf, "env timestamp") + 1, "env timestamp") == NULL);
	run_end(&r);

	env_sysfs_root = "/sys";
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK_INT(system(cmd), 0);
}

/* A file of @text, for compare; its name in @path (a mkstemp template). */
static void put_json(char *path, const char *text)
{
	int fd = mkstemp(path);
	FILE *f;

	if (fd < 0) {
		unit_fail(__FILE__, __LINE__, "mkstemp %s failed", path);
		return;
	}
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
}

/* @in, its words @res and @base replaced by the names @res and @base. */
static void subst_files(char *out, size_t len, const char *in,
			const char *res, const char *base)
{
	size_t n = 0;

	while (*in && n + 1 < len) {
		if (!strncmp(in, "@res", 4)) {
			n += snprintf(out + n, len - n, "%s", res);
			in += 4;
		} else if (!strncmp(in, "@base", 5)) {
			n += snprintf(out + n, len - n, "%s", base);
			in += 5;
		} else {
			out[n++] = *in++;
		}
	}
	out[n < len ? n : len - 1] = '\0';
}

/*
 * A compare of two files, their texts @res and @base: @want's line and
 * err name them @res and @base; it runs with k_none.
 */
struct compare_case {
	const char *res, *base;
	struct cmd_case want;
};

static void check_compare_cases(const struct compare_case *c, size_t n)
{
	char res[] = "/tmp/krdma-unit-res.XXXXXX";
	char base[] = "/tmp/krdma-unit-base.XXXXXX";
	char line[512], err[512];
	struct cmd_case want;

	for (; n--; c++) {
		strcpy(res, "/tmp/krdma-unit-res.XXXXXX");
		strcpy(base, "/tmp/krdma-unit-base.XXXXXX");
		put_json(res, c->res);
		put_json(base, c->base);
		want = c->want;
		want.kernel = k_none;
		if (!want.what)
			want.what = want.line;
		subst_files(line, sizeof(line), want.line, res, base);
		want.line = line;
		if (want.err) {
			subst_files(err, sizeof(err), want.err, res, base);
			want.err = err;
		}
		check_cmd(&want);
		unlink(res);
		unlink(base);
	}
}

#define CHECK_COMPARE_CASES(t)	check_compare_cases(t, ARRAY_SIZE(t))

TEST(cmd_compare)
{
	static const char res_text[] =
		"[{\"op\":\"write\",\"mode\":\"bw\",\"size\":65536,\"qps\":1,\"mb_per_s\":80,\"status\":0,\"env\":{\"timestamp\":\"2026-11-29T07:01:33Z\",\"host\":\"a\",\"kernel\":\"6.12\",\"dev\":\"rxe0\",\"governor\":null,\"idle_driver\":null}},"
		"{\"op\":\"send\",\"mode\":\"lat\",\"size\":64,\"status\":0,\"lat\":{\"p50_ns\":1000,\"p99_ns\":5000}},"
		"{\"op\":\"read\",\"mode\":\"bw\",\"size\":64,\"status\":0,\"mb_per_s\":1}]";
	/* the failed run of a test is no baseline for it */
	static const char base_text[] =
		"[{\"op\":\"send\",\"mode\":\"lat\",\"size\":64,\"status\":-5,\"lat\":{\"p99_ns\":1}},"
		"{\"op\":\"send\",\"mode\":\"lat\",\"size\":64,\"status\":0,\"lat\":{\"p50_ns\":1050,\"p99_ns\":4000}},"
		"{\"op\":\"write\",\"mode\":\"bw\",\"size\":65536,\"qps\":1,\"mb_per_s\":100,\"status\":0,\"env\":{\"timestamp\":\"2026-11-22T07:00:00Z\",\"host\":\"b\",\"kernel\":\"6.1\",\"dev\":\"rxe0\",\"governor\":\"performance\"}}]";
	static const struct compare_case cases[] = {
		{ res_text, base_text, {
		  .line = "compare @res baseline @base", .rc = EXIT_REGRESSION,
		  .out_has = {
			"write bw 64K: mb_per_s 80.00 vs 100.00 (-20.0%) worse\n",
			"send lat 64: p99_ns 5000.00 vs 4000.00 (+25.0%) worse\n",
			"env: kernel 6.12 vs 6.1\n",
			/* null (sysfs had none) is not the word "null" */
			"env: governor - vs performance\n",
			/* another host is a difference; another day is not */
			"env: host a vs b\n",
			"3 figures compared, 2 worse, 0 better than the baseline by more than 10%; 1 results without a baseline\n",
		  },
		  .out_lacks = {
			/* p50 moved 4.8%: within the tolerance */
			"p50_ns",
			"idle_driver",
			"timestamp",
		  } } },
		{ res_text, base_text, {
		  .json = true,
		  .line = "compare @res baseline @base tolerance 30",
		  .json_has = {
			JSON_LEN("moved", 0),
			JSON_LEN("env_differs/kernel", 2),
			/* JSON null stays null, not the string "null" */
			JSON_LEN("env_differs/governor", 2),
			JSON_NULL("env_differs/governor/0"),
			JSON_STRING("env_differs/governor/1", "performance"),
			JSON_DOUBLE("tolerance_pct", 30),
		  } } },
		/* the baseline's own figures: nothing moved */
		{ res_text, base_text, {
		  .line = "compare @base baseline @base" } },
		{ res_text, base_text, {
		  .line = "compare /nonexistent/x.json baseline @base",
		  .rc = EXIT_ERR, .err_has = { "/nonexistent/x.json" } } },
	};

	CHECK_COMPARE_CASES(cases);
}

TEST(cmd_test_run_failed)
{
	static const struct cmd_case cases[] = {
		{ .kernel = k_test_fails,
		  .line = "test run session 5 op read size 4K duration 10s interval 500ms",
		  .rc = 1,
		  .out_starts = "test 9 session 5 op write size 65536 iters 1000",
		  .out_has = { " status -5 (Input/output error) reason \"data mismatch at 4096\"\n" },
		  .err = "krdmactl: test 9 failed: data mismatch at 4096\n" },
		/* it ran, and its data was wrong: 3, not a runtime error */
		{ .kernel = k_test_data_mismatch,
		  .line = "test run session 5 op read size 4K count 10",
		  .rc = EXIT_TEST_FAIL,
		  .err = "krdmactl: test 9 failed: data mismatch\n" },
		/* the same in a sweep: the other sizes passed */
		{ .kernel = k_test_data_mismatch,
		  .line = "test run session 5 op read size 4K-8K count 10",
		  .rc = EXIT_TEST_FAIL },
	};

	CHECK_CMDS(cases);
}

TEST(cmd_test_run_interrupted)
{
	/* ^C while waiting: TEST_STOP, then the result from DONE */
	check_cmd(&(const struct cmd_case){
		.kernel = k_test_silent, .sigint = 1,
		.line = "test run session 5 op write size 1M", .rc = EXIT_INTR,
		.err_has = { "stopping test 9" }, REQS(2),
		.req_cmds = { [1] = KRDMA_CMD_TEST_STOP },
		.sent = { SENT_IN(1, KRDMA_A_TEST_ID, 9) },
		.out_starts = "test 9 ",
	});
}

TEST(cmd_test_run_no_events)
{
	/* no DONE event: the test's state is asked for */
	check_cmd(&(const struct cmd_case){
		.kernel = k_test_silent,
		.line = "test run session 5 op atomic_cswap",
		.req_cmds = { [1] = KRDMA_CMD_TEST_GET },
		.out = "test 9 iters 7 status ok\n",
	});
}

TEST(cmd_test_rate)
{
	/* the rate and the burst sent (none: the kernel's default) */
	static const struct cmd_case cases[] = {
		{ .kernel = k_test_silent,
		  .line = "test start session s1 op write mode bw rate 2 burst 4",
		  .sent = { SENT(KRDMA_A_TEST_RATE, 2000000),
			    SENT(KRDMA_A_TEST_BURST, 4) } },
		/* a unit; no burst given, none sent: the kernel's default */
		{ .kernel = k_test_silent,
		  .line = "test start session s1 op write mode bw rate 10Gb/s",
		  .sent = { SENT(KRDMA_A_TEST_RATE, 1250000000),
			    NOT_SENT(KRDMA_A_TEST_BURST) } },
		/* without a rate, neither goes */
		{ .kernel = k_test_silent,
		  .line = "test start session s1 op write mode bw",
		  .sent = { NOT_SENT(KRDMA_A_TEST_RATE),
			    NOT_SENT(KRDMA_A_TEST_BURST) } },
		/* perftest's units: Mb/s, MiB/s, and packets/s times the size */
		{ .kernel = k_test_silent,
		  .line = "test start session s1 op write mode bw rate 100Mb/s",
		  .sent = { SENT(KRDMA_A_TEST_RATE, 12500000),
			    NOT_SENT(KRDMA_A_TEST_BURST) } },
		{ .kernel = k_test_silent,
		  .line = "test start session s1 op write mode bw rate 100MiB/s",
		  .sent = { SENT(KRDMA_A_TEST_RATE, 104857600),
			    NOT_SENT(KRDMA_A_TEST_BURST) } },
		{ .kernel = k_test_silent,
		  .line = "test start session s1 op write mode bw rate 1.5GB/s",
		  .sent = { SENT(KRDMA_A_TEST_RATE, 1500000000),
			    NOT_SENT(KRDMA_A_TEST_BURST) } },
		{ .kernel = k_test_silent,
		  .line = "test start session s1 op write mode bw size 4K rate 1000pps",
		  .sent = { SENT(KRDMA_A_TEST_RATE, 4096000),
			    NOT_SENT(KRDMA_A_TEST_BURST) } },
		{ .kernel = k_test_silent,
		  .line = "test start session s1 op write mode bw size 64 rate 1.5Mpps",
		  .sent = { SENT(KRDMA_A_TEST_RATE, 96000000),
			    NOT_SENT(KRDMA_A_TEST_BURST) } },
		/* an atomic is 8 bytes, whatever the size */
		{ .kernel = k_test_silent,
		  .line = "test start session s1 op atomic_fadd mode bw rate 1kpps",
		  .sent = { SENT(KRDMA_A_TEST_RATE, 8000),
			    NOT_SENT(KRDMA_A_TEST_BURST) } },
		/* a packet rate over a sweep: each size's own bytes/s */
		{ .kernel = k_test_passes,
		  .line = "test run session s1 op write mode bw size 1K-2K rate 10kpps count 10",
		  .sent = { SENT_IN(0, KRDMA_A_TEST_RATE, 10240000),
			    SENT_IN(1, KRDMA_A_TEST_RATE, 20480000) } },
	};
	static const struct refusal refused[] = {
		{ "test start session s1 op write mode bw rate 1kpps",
		  "needs the size of a packet" },
		{ "test start session s1 op write mode bw rate 2MB",
		  "invalid rate '2MB': expected MB/s such as 2 or 0.5, or a unit: MB/s, GB/s, MiB/s, GiB/s, Mb/s, Gb/s, or packets/s: pps, kpps, Mpps" },
		{ "test start session s1 op write mode bw rate 2 burst 0",
		  "burst '0' out of range: must be 1..128" },
		{ "test start session s1 op write mode bw rate", "rate" },
	};

	CHECK_CMDS(cases);
	CHECK_REFUSALS(k_test_silent, refused);
}

TEST(cmd_test_start_sends_only_what_is_given)
{
	static const struct cmd_case cases[] = {
		/* The kernel alone decides defaults: no size given, none sent. */
		{ .kernel = k_test_silent,
		  .line = "test start session s1 op atomic_f", .out = "test 9\n",
		  .sent = { NOT_SENT(KRDMA_A_TEST_SIZE),
			    NOT_SENT(KRDMA_A_TEST_DEPTH),
			    NOT_SENT(KRDMA_A_TEST_COUNT),
			    NOT_SENT(KRDMA_A_TEST_MODE),
			    SENT_STR(KRDMA_A_NAME, "s1") } },
		{ .kernel = k_test_silent,
		  .line = "test start session s1 op write",
		  .sent = { NOT_SENT(KRDMA_A_TEST_SIZE) } },
		/* test run without a size runs once, at the kernel's default. */
		{ .kernel = k_test_silent,
		  .line = "test run session s1 op write count 5",
		  REQS(2),	/* one start, then its state */
		  .req_cmds = { KRDMA_CMD_TEST_START, KRDMA_CMD_TEST_GET },
		  .sent = { NOT_SENT(KRDMA_A_TEST_SIZE) } },
	};

	CHECK_CMDS(cases);
}

/* ---- monitor, version, dev, stats ---- */

/* A test's event of session @sess. */
static struct nl_msg *sess_test_event(uint8_t ev, uint32_t test, uint32_t sess)
{
	struct nl_msg *m = fake_msg(KRDMA_CMD_EVENT_NTF);

	nla_put_u8(m, KRDMA_A_EVENT, ev);
	nla_put_u32(m, KRDMA_A_TEST_ID, test);
	nla_put_u32(m, KRDMA_A_SESSION_ID, sess);
	return m;
}

/* Sessions the monitored kernel has: s5 (5) only. */
static void k_monitor(uint8_t cmd, struct nlattr **tb, struct nl_msg *req)
{
	(void)req;
	if (cmd == KRDMA_CMD_SESSION_GET && tb[KRDMA_A_NAME] &&
	    !strcmp(nla_get_string(tb[KRDMA_A_NAME]), "s5")) {
		fake_reply(session_msg(cmd, 5, "s5"));
		fake_ack();
		return;
	}
	fake_error(-ENOENT, NULL, 0);
}

/*
 * Events of sessions 4, 5 and 7 (named "later", which the kernel does
 * not know yet), their tests 2 (of 5) and 3 (of 7), one of no session
 * (a struct cmd_case's setup: @mode unused).
 */
static void queue_monitor_events(int mode)
{
	struct nl_msg *m;

	(void)mode;

	fake_event(session_event(KRDMA_EVENT_SESSION_UP, 4, "s4", NULL));
	fake_event(sess_test_event(KRDMA_EVENT_TEST_PROGRESS, 2, 5));
	fake_event(session_event(KRDMA_EVENT_SESSION_UP, 7, "later", NULL));
	fake_event(sess_test_event(KRDMA_EVENT_TEST_DONE, 3, 7));
	m = fake_msg(KRDMA_CMD_EVENT_NTF);
	nla_put_u8(m, KRDMA_A_EVENT, 99);	/* one of no session */
	nla_put_u32(m, KRDMA_A_LISTENER_ID, 1);
	fake_event(m);
	fake_event(sess_test_event(KRDMA_EVENT_TEST_DONE, 2, 5));
	fake_event(session_event(KRDMA_EVENT_SESSION_DOWN, 5, "s5", "bye"));
}

/* "[2026-11-29T07:01:33.123456Z]", the RFC 3339 UTC time "monitor timestamp" gives. */
static bool is_timestamp(const char *s, size_t len)
{
	static const char pat[] = "[dddd-dd-ddTdd:dd:dd.ddddddZ]";
	size_t i;

	if (len != sizeof(pat) - 1)
		return false;
	for (i = 0; i < len; i++)
		if (pat[i] == 'd' ? !is_digit(s[i]) : s[i] != pat[i])
			return false;
	return true;
}

/* k_monitor, the events of queue_monitor_events() queued, ^C after them */
#define MONITOR		.kernel = k_monitor, .setup = queue_monitor_events, \
			.sigint = 1

TEST(cmd_monitor)
{
	static const struct cmd_case cases[] = {
		{ MONITOR, .line = "monitor",
		  .out = "session_up session 4 name s4\n"
			 "test_progress test 2 session 5\n"
			 "session_up session 7 name later\n"
			 "test_done test 3 session 7\n"
			 "unknown(99) listener 1\n"
			 "test_done test 2 session 5\n"
			 "session_down session 5 name s5 reason \"bye\"\n",
		  REQS(0) },
		/* by id: the session's events and its tests' */
		{ MONITOR, .line = "monitor session 5",
		  .out = "test_progress test 2 session 5\n"
			 "test_done test 2 session 5\n"
			 "session_down session 5 name s5 reason \"bye\"\n",
		  REQS(0) },
		/* by the name of a session that exists: asked, then by id */
		{ MONITOR, .line = "monitor session s5",
		  .out = "test_progress test 2 session 5\n"
			 "test_done test 2 session 5\n"
			 "session_down session 5 name s5 reason \"bye\"\n",
		  REQS(1) },
		/* by the name of one that comes later: from its first event */
		{ MONITOR, .line = "monitor session later",
		  .out = "session_up session 7 name later\n"
			 "test_done test 3 session 7\n",
		  REQS(1) },
		{ MONITOR, .line = "monitor test 2",
		  .out = "test_progress test 2 session 5\n"
			 "test_done test 2 session 5\n",
		  REQS(0) },
		{ MONITOR, .line = "monitor test 2 session 7", .out = "",
		  REQS(0) },
		{ MONITOR, .line = "monitor session nosuch", .out = "", REQS(1) },
	};
	static const struct refusal refused[] = {
		{ "monitor session", "needs a value" },
		{ "monitor test s1", "invalid test" },
		{ "monitor frob", "unknown keyword 'frob'" },
	};
	struct json_object *o, *v;
	const char *nl;
	struct run r;

	CHECK_CMDS(cases);

	/* timestamp: the time each event came, first on its line */
	fake_begin(k_none);
	fake_event(session_event(KRDMA_EVENT_SESSION_UP, 1, "s1", NULL));
	fake_event(test_event(KRDMA_EVENT_TEST_DONE, 2, 0, NULL));
	fake_sigint_on_wait(1);
	run(&r, false, "monitor timestamp");
	CHECK_INT(r.rc, 0);
	CHECK(r.out.buf[0] == '[' && is_timestamp(r.out.buf, 29));
	CHECK(!strncmp(r.out.buf + 29, " session_up session 1 name s1\n", 30));
	nl = strchr(r.out.buf, '\n');
	CHECK(nl && is_timestamp(nl + 1, 29) &&
	      !strncmp(nl + 30, " test_done test 2 session 5 op write", 36));
	CHECK_INT(fake_nreqs(), 0);
	run_end(&r);

	/* JSON: a "timestamp" key, the rest as without it */
	fake_begin(k_none);
	fake_event(session_event(KRDMA_EVENT_SESSION_UP, 1, "s1", NULL));
	fake_sigint_on_wait(1);
	run(&r, true, "monitor timestamp session 1");
	o = json_tokener_parse(r.out.buf);
	CHECK(o && json_object_object_get_ex(o, "timestamp", &v) &&
	      json_object_get_string_len(v) == 27 &&
	      json_object_get_string(v)[26] == 'Z');
	CHECK(o && json_object_object_get_ex(o, "event", &v) &&
	      !strcmp(json_object_get_string(v), "session_up"));
	json_object_put(o);
	run_end(&r);

	CHECK_REFUSALS(k_monitor, refused);
}

static void k_version(uint8_t cmd, struct nlattr **tb, struct nl_msg *req)
{
	struct nl_msg *m;

	(void)tb;
	(void)req;
	if (cmd != KRDMA_CMD_VERSION_GET) {
		fake_error(-EOPNOTSUPP, NULL, 0);
		return;
	}
	m = fake_msg(cmd);
	nla_put_string(m, KRDMA_A_VERSION, "1.2.3");
	nla_put_u32(m, KRDMA_A_ABI_VERSION, KRDMA_ABI_VERSION + 1);
	fake_reply(m);
	fake_ack();
}

TEST(cmd_version)
{
	char want[128];

	snprintf(want, sizeof(want), "krdmactl %s (abi %d), module 1.2.3, abi %d\n",
		 KRDMACTL_VERSION, KRDMA_ABI_VERSION, KRDMA_ABI_VERSION + 1);
	check_cmd(&(const struct cmd_case){
		.kernel = k_version, .line = "version", .out = want,
		.err_has = { "warning: module ABI" },
	});
}

static void k_dev(uint8_t cmd, struct nlattr **tb, struct nl_msg *req)
{
	struct nl_msg *m;

	if (cmd != KRDMA_CMD_DEV_GET ||
	    (nlmsg_hdr(req)->nlmsg_flags & NLM_F_DUMP) || !tb[KRDMA_A_DEV_NAME]) {
		fake_error(-EINVAL, "expected a do with a device name", 0);
		return;
	}
	if (strcmp(nla_get_string(tb[KRDMA_A_DEV_NAME]), "rxe0")) {
		fake_error(-ENODEV, "no such RDMA device", KRDMA_A_DEV_NAME);
		return;
	}
	m = fake_msg(cmd);
	nla_put_u32(m, KRDMA_A_DEV_INDEX, 2);
	nla_put_string(m, KRDMA_A_DEV_NAME, "rxe0");
	fake_reply(m);
	fake_ack();
}

TEST(cmd_dev_show_one)
{
	static const struct cmd_case cases[] = {
		{ .kernel = k_dev, .line = "dev show rxe0", .out = "2: rxe0\n" },
		{ .kernel = k_dev, .json = true, .line = "dev show name mlx9",
		  .rc = 1,
		  .out = "",	/* no half-built JSON on errors */
		  .err = "krdmactl: no such RDMA device (attribute dev)\n" },
	};

	CHECK_CMDS(cases);
}

static void k_stats(uint8_t cmd, struct nlattr **tb, struct nl_msg *req)
{
	struct nlattr *nest;
	struct nl_msg *m;

	(void)tb;
	(void)req;
	if (cmd == KRDMA_CMD_STATS_RESET) {
		fake_ack();
		return;
	}
	m = fake_msg(cmd);
	nest = nla_nest_start(m, KRDMA_A_STATS | NLA_F_NESTED);
	nla_put_u64(m, KRDMA_STATS_A_SESSIONS_OPENED, 3);
	nla_put_u64(m, KRDMA_STATS_A_WC_ERRORS, 0);
	nla_put_u64(m, KRDMA_STATS_A_MAX + 1, 42);	/* a newer counter */
	nla_nest_end(m, nest);
	fake_reply(m);
	fake_ack();
}

TEST(cmd_stats)
{
	char text[128], json[128];

	/* The unknown counter is named by its number, one past the last. */
	snprintf(text, sizeof(text), "sessions_opened 3\nwc_errors 0\nstat_%d 42\n",
		 KRDMA_STATS_A_MAX + 1);
	snprintf(json, sizeof(json),
		 "{\"sessions_opened\":3,\"wc_errors\":0,\"stat_%d\":42}\n",
		 KRDMA_STATS_A_MAX + 1);
	{
		const struct cmd_case cases[] = {
			{ .kernel = k_stats, .line = "stats", .out = text },
			{ .kernel = k_stats, .json = true, .line = "stats show",
			  .out = json },
			{ .kernel = k_stats, .line = "stats reset", .out = "",
			  .req_cmds = { KRDMA_CMD_STATS_RESET } },
		};

		CHECK_CMDS(cases);
	}
}

TEST(cmd_help_everywhere)
{
	static const char *const lines[] = {
		"dev help", "listener help", "session help", "test help",
		"stats help", "monitor help", "version help",
		"listener add help", "session connect help", "test run help",
		"test stop help", "stats reset help", "dev show help",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(lines); i++)
		check_cmd(&(const struct cmd_case){
			.kernel = k_none, .line = lines[i],
			.out_has = { "Usage: krdmactl " }, REQS(0),
		});
}

/* "help OBJECT [ WORDS ]" prints what "OBJECT [ WORDS ] help" does. */
TEST(cmd_help_object)
{
	static const struct {
		const char *line, *same_as;
	} cases[] = {
		{ "help test", "test help" },
		{ "help te", "test help" },
		{ "help test run", "test run help" },
		{ "help session connect", "session connect help" },
		{ "help ping", "ping help" },
		{ "help compare", "compare help" },
	};
	static const struct refusal refused[] = {
		{ "help frob", "krdmactl: help: unknown object 'frob' (valid objects: dev," },
		{ "help frob", "Try \"krdmactl help\".\n" },
		{ "help s", "ambiguous object 's'" },
		{ "help test frob", "unknown test command 'frob'" },
	};
	struct run r, want;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		fake_begin(k_none);
		run(&want, false, cases[i].same_as);
		run(&r, false, cases[i].line);
		CHECK_INT_CASE(cases[i].line, r.rc, EXIT_OK);
		CHECK_STR_CASE(cases[i].line, r.err, "");
		CHECK(strstr(r.out.buf, "Usage: krdmactl ") != NULL);
		CHECK_STR_CASE(cases[i].line, r.out.buf, want.out.buf);
		CHECK_INT_CASE(cases[i].line, fake_nreqs(), 0);
		capture_free(&want.out);
		run_end(&r);
	}
	CHECK_REFUSALS(k_none, refused);
}

TEST(cmd_usage_errors_exit_2)
{
	/* an unknown command, a bad value, conflicting keywords: 2 and the hint */
	static const struct refusal refused[] = {
		{ "session frob", "Try \"krdmactl session help\".\n" },
		{ "session connect addr 10.0.0.2 port 1 timeout 5",
		  "a time needs a unit" },
		{ "session connect addr 10.0.0.2 port 1 timeout 5",
		  "Try \"krdmactl session connect help\".\n" },
		{ "listener add addr 10.0.0.1:1 port 2",
		  "Try \"krdmactl listener add help\".\n" },
	};

	CHECK_REFUSALS(k_test_silent, refused);
}

/*
 * --parse-only: a command line that parses ends with 0 where it would
 * first ask the kernel (or read a file), one that does not with 2; the
 * kernel hears nothing either way.
 */
TEST(cmd_parse_only)
{
	static const struct {
		const char *line;
		int rc;
	} cases[] = {
		{ "test run session 5 op write mode bw expect bw>=500", 0 },
		{ "test run session 5 op write expect p99<=2ms", EXIT_USAGE },
		{ "test run session 5 op write mode bw expect bw", EXIT_USAGE },
		{ "test start session s1 op send size 4K duration 1h", 0 },
		{ "session connect addr hostA port 7471 name s1", 0 },
		{ "session connect addr hostA", 0 },	/* krdma's port */
		{ "session connect", EXIT_USAGE },
		{ "ping hostA:7471", 0 },
		{ "ping hostA", 0 },
		/* checked after parsing, before the kernel: still a usage error */
		{ "ping hostA:1 port 2", EXIT_USAGE },
		{ "listener add addr fe80::1%eth0 port 7471", 0 },
		{ "listener del", EXIT_USAGE },
		{ "stats show", 0 },
		{ "monitor", 0 },
		{ "version", 0 },
		/* the files are not read */
		{ "compare /nonexistent/a.json baseline /nonexistent/b.json", 0 },
		{ "compare a.json", EXIT_USAGE },
	};
	size_t i;

	knl_parse_only = true;
	parse_resolver = resolve_unchecked;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		check_cmd(&(const struct cmd_case){
			.kernel = k_none, .line = cases[i].line,
			.rc = cases[i].rc, REQS(0),
			/* nothing printed but a usage error */
			.out = "", .err = cases[i].rc ? NULL : "",
		});
	knl_parse_only = false;
	parse_resolver = NULL;

	/* without it, the same line does reach the kernel */
	check_cmd(&(const struct cmd_case){
		.kernel = k_none, .line = "stats show", .rc = EXIT_ERR,
		REQS(1),
	});
}

/*
 * One exit status per cause, as krdmactl(8) lists them; the numbers are
 * what scripts test, so they are spelled out here, not taken from cmd.h.
 * Where two causes meet, the worse one is told: interrupted, then broken,
 * then wrong data, then a threshold missed.
 */
TEST(cmd_exit_codes)
{
	static const struct cmd_case cases[] = {
		{ .kernel = k_test_passes,
		  .line = "test run session 5 op write count 10", .rc = 0 },
		{ .kernel = k_test_fails,
		  .line = "test run session 5 op write count 10", .rc = 1 },
		{ .kernel = k_none,
		  .line = "test run session 5 op write count 10", .rc = 1 },
		{ .kernel = k_none, .line = "test run session 5 op frob", .rc = 2 },
		{ .kernel = k_test_data_mismatch,
		  .line = "test run session 5 op read count 10", .rc = 3 },
		/* 65.54 MB/s, right data */
		{ .kernel = k_test_passes,
		  .line = "test run session 5 op write count 10 expect bw>=1000",
		  .rc = 4 },
		{ .kernel = k_test_passes,
		  .line = "test run session 5 op write count 10 expect bw>=10",
		  .rc = 0 },
		/* wrong data and a threshold missed: the data */
		{ .kernel = k_test_data_mismatch,
		  .line = "test run session 5 op read count 10 expect bw>=1000",
		  .rc = 3 },
		/* broken and a threshold missed: broken */
		{ .kernel = k_test_fails,
		  .line = "test run session 5 op read count 10 expect bw>=1000",
		  .rc = 1 },
		/* interrupted: the result is partial, whatever it says */
		{ .kernel = k_test_silent, .sigint = 1,
		  .line = "test run session 5 op write expect bw>=1000",
		  .rc = 130 },
	};

	CHECK_CMDS(cases);
	CHECK_INT(EXIT_TEST_FAIL, 3);
	CHECK_INT(EXIT_EXPECT, 4);
	CHECK_INT(EXIT_REGRESSION, 5);
}

/* compare reads no file it cannot trust: schemas, bad JSON, tolerance. */
TEST(cmd_compare_trust)
{
	static const char res_text[] =
		"[{\"schema_version\":2,\"op\":\"send\",\"mode\":\"lat\",\"size\":64,\"status\":0,"
		"\"lat\":{\"p50_ns\":1000,\"p99_9_ns\":9000}}]";
	static const struct {
		const char *text, *err;
	} bad[] = {
		{ "[{\"op\":\"send\",\n  \"mode\": lat}]",
		  "not JSON at line 2, column 11: unexpected character\n" },
		{ "[{\"op\":\"send\",\"size\":64",
		  "not JSON at line 1, column 24: the file ends inside a value\n" },
		{ "{\"op\":\"send\"}\n{\"op\":\"read\"}\n",
		  "not JSON at line 2, column 1: more after the end of the JSON value\n" },
		{ " \n", "empty, not JSON\n" },
		{ "{\"schema_version\":7,\"op\":\"send\"}",
		  "record 1 has schema_version 7, newer than the 3 this krdmactl reads: compare with a newer krdmactl\n" },
		/* schema 3: one document, the records in its "results" */
		{ "{\"schema_version\":4,\"results\":[{\"op\":\"send\"}]}",
		  "schema_version 4 is newer than the 3 this krdmactl reads: compare with a newer krdmactl\n" },
		{ "{\"schema_version\":2,\"results\":[{\"op\":\"send\"}]}",
		  "\"results\" in a document of schema_version 2, not 3 or later: not krdmactl's\n" },
		{ "{\"results\":[{\"op\":\"send\"}]}",
		  "\"results\" in a document of schema_version (none), not 3 or later: not krdmactl's\n" },
		{ "{\"schema_version\":3,\"results\":{\"op\":\"send\"}}",
		  "results is an object, not an array\n" },
		{ "{\"schema_version\":3,\"results\":[{\"op\":\"send\"},7]}",
		  "record 2 is a number, not an object (a test's result)\n" },
		{ "{\"schema_version\":3,\"results\":[]}",
		  "no test results in it (records with an op, from krdmactl -j test run)\n" },
		{ "{\"schema_version\":3,\"op\":\"send\"}",
		  "record 1 has schema_version 3 outside a \"results\" list: not krdmactl's\n" },
		{ "[{\"schema_version\":3,\"op\":\"send\"}]",
		  "record 1 has schema_version 3 outside a \"results\" list: not krdmactl's\n" },
		{ "[{\"schema_version\":2,\"op\":\"send\"},{\"schema_version\":\"2\",\"op\":\"send\"}]",
		  "record 2: schema_version \"2\" is not a version\n" },
		/* JSON, but not results: said so, not "nothing in common" */
		{ "42\n",
		  "a number, not results (krdmactl -j test run writes an object)\n" },
		{ "[{\"op\":\"send\"},[{\"op\":\"send\"}]]",
		  "record 2 is an array, not an object (a test's result)\n" },
		/* a figure is a number: "900" is not silently read as 900 */
		{ "{\"schema_version\":2,\"op\":\"send\",\"mb_per_s\":\"900\"}",
		  "record 1: mb_per_s is a string, not a number\n" },
		{ "{\"op\":\"send\",\"lat\":{\"p99.9_ns\":true}}",
		  "record 1: lat.p99_9_ns is a boolean, not a number\n" },
		{ "{\"op\":\"send\",\"lat\":[1]}",
		  "record 1: lat is an array, not an object\n" },
		{ "{\"schema_version\":2,\"tolerance_pct\":10.0,\"moved\":[]}",
		  "no test results in it (records with an op, from krdmactl -j test run)\n" },
	};
	/* schema 1 (no schema_version): p99.9_ns is read as p99_9_ns */
	static const char schema1[] =
		"[{\"op\":\"send\",\"mode\":\"lat\",\"size\":64,\"status\":0,"
		"\"lat\":{\"p50_ns\":1000,\"p99.9_ns\":6000}}]";
	static const char p50_1030[] =
		"[{\"schema_version\":2,\"op\":\"send\",\"mode\":\"lat\",\"size\":64,\"status\":0,"
		"\"lat\":{\"p50_ns\":1030,\"p99_9_ns\":9000}}]";
	static const char schema4[] =
		"{\"schema_version\":4,\"results\":[{\"op\":\"send\"}]}";
	/* today's document: one env for all its records */
	static const char schema3[] =
		"{\"schema_version\":3,\"results\":[{\"op\":\"send\",\"mode\":\"lat\",\"size\":64,\"status\":0,"
		"\"lat\":{\"p50_ns\":1000,\"p99_9_ns\":6000}},{\"op\":\"write\",\"mode\":\"bw\",\"size\":64,\"status\":0,\"mb_per_s\":5}],"
		"\"env\":{\"host\":\"b\",\"peer_host\":\"c\"}}";
	static const char p50_null[] =
		"[{\"schema_version\":2,\"op\":\"send\",\"mode\":\"lat\",\"size\":64,\"status\":0,"
		"\"lat\":{\"p50_ns\":null,\"p99_9_ns\":9000}}]";
	static const struct compare_case cases[] = {
		/* schema 1: p99.9_ns compared as p99_9_ns - not silently
		 * dropped */
		{ res_text, schema1, {
		  .line = "compare @res baseline @base tolerance 5%", .rc = 5,
		  .out_has = { "send lat 64: p99_9_ns 9000.00 vs 6000.00 (+50.0%) worse\n",
			       "2 figures compared, 1 worse, 0 better than the baseline by more than 5%;" },
		  .err_has = { "1 record of schema 1 (no schema_version) read as schema 3\n" } } },
		/* fractional tolerances */
		{ res_text, p50_1030, {
		  .line = "compare @res baseline @base tolerance 2.5%",
		  .out_has = { "p50_ns 1000.00 vs 1030.00 (-2.9%) better\n",
			       "by more than 2.5%;" },
		  .err = "" } },
		{ res_text, p50_1030, {
		  .line = "compare @res baseline @base tolerance 3%",
		  .out_lacks = { "p50_ns" } } },
		/* the result is checked as the baseline is: a newer one refused */
		{ res_text, schema4, {
		  .line = "compare @base baseline @res", .rc = 1,
		  .err_has = { "schema_version 4 is newer than the 3 this krdmactl reads" } } },
		/*
		 * Today's document against the older shapes, both ways: its
		 * records matched with a schema 2 array's, its env (once, for
		 * all its records) compared with each record's own.
		 */
		{ res_text, schema3, {
		  .line = "compare @res baseline @base", .rc = 5,
		  .out_has = { "send lat 64: p99_9_ns 9000.00 vs 6000.00 (+50.0%) worse\n" },
		  .err = "" } },
		{ res_text, schema3, {
		  .line = "compare @base baseline @res",
		  .out_has = { "p99_9_ns 6000.00 vs 9000.00 (-33.3%) better\n" } } },
		/*
		 * A figure null in one file is not measured there: not
		 * compared, and said so - not read as 0 and reported as a
		 * fall of 100%.
		 */
		{ res_text, p50_null, {
		  .line = "compare @res baseline @base",
		  .out_lacks = { "p50_ns" },
		  .out_has = { "1 figures compared, 0 worse, 0 better" },
		  .err = "krdmactl: compare: send lat 64: p50_ns is null in @base: not compared\n" } },
		{ res_text, p50_null, {
		  .json = true, .line = "compare @base baseline @res",
		  .out_has = { "\"moved\":[]" },
		  .err_has = { "p50_ns is null in" } } },
	};
	char res[] = "/tmp/krdma-unit-res.XXXXXX", base[] = "/tmp/krdma-unit-base.XXXXXX";
	char old[] = "/tmp/krdma-unit-old.XXXXXX";
	struct run r;
	size_t i;

	CHECK_COMPARE_CASES(cases);

	/* a bad tolerance is a usage error */
	check_refused(k_none, "compare a baseline b tolerance 5%%",
		      EXIT_USAGE, "invalid tolerance '5%%': expected a percentage such as 5, 5% or 2.5%");
	check_refused(k_none, "compare a baseline b tolerance 1001",
		      EXIT_USAGE, "tolerance '1001' out of range: must be 0%..1000%");

	/* one clean line each, nothing of json-c's own text, exit 1 */
	put_json(res, res_text);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[512];

		strcpy(base, "/tmp/krdma-unit-base.XXXXXX");
		put_json(base, bad[i].text);
		snprintf(want, sizeof(want), "krdmactl: compare: %s: %s", base,
			 bad[i].err);
		fake_begin(k_none);
		run_fmt(&r, false, "compare %s baseline %s", res, base);
		CHECK_INT_CASE(bad[i].text, r.rc, 1);
		CHECK_STR_CASE(bad[i].text, r.err, want);
		run_end(&r);
		unlink(base);
	}
	unlink(res);

	/* today's document against a schema 2 object and its env */
	strcpy(base, "/tmp/krdma-unit-base.XXXXXX");
	put_json(base, schema3);
	put_json(old, "{\"schema_version\":2,\"op\":\"send\",\"mode\":\"lat\",\"size\":64,\"status\":0,"
		      "\"lat\":{\"p50_ns\":1000,\"p99_9_ns\":6000},\"env\":{\"host\":\"a\",\"peer_host\":null}}");
	fake_begin(k_none);
	run_fmt(&r, false, "compare %s baseline %s", base, old);
	CHECK_INT(r.rc, 0);
	CHECK(strstr(r.out.buf, "1 figures compared") != NULL ||
	      strstr(r.out.buf, "2 figures compared") != NULL);
	CHECK(strstr(r.out.buf, "env: host b vs a\n") != NULL);
	CHECK(strstr(r.out.buf, "env: peer_host c vs -\n") != NULL);
	run_end(&r);
	unlink(old);
	unlink(base);
}

/* Numbers as people write them reach the kernel as the exact integers. */
TEST(cmd_number_grammar)
{
	/* what the module cannot count is said, not rounded */
	static const struct refusal refused[] = {
		{ "test start session s1 op write duration 1500us",
		  "invalid duration '1500us': not a whole number of milliseconds" },
		{ "test start session s1 op write duration 100us",
		  "invalid duration '100us': not a whole number of milliseconds" },
		{ "test start session s1 op write count 1.5",
		  "invalid count '1.5': not a whole number of iterations" },
		{ "test start session s1 op write count 1K",
		  "invalid count '1K': K is 1024, in sizes; a count's thousands are k: 1k" },
		{ "test start session s1 op write count 1.5K",
		  "invalid count '1.5K': K is 1024, in sizes; a count's thousands are k: 1.5k" },
		{ "test start session s1 op write count 1m",
		  "invalid count '1m': expected a count such as 1000, 10k, 1.5M or 2G" },
		/* the plain N of depth, qps, ...: say what is wrong with it */
		{ "test start session s1 op write depth 1k",
		  "invalid depth '1k': expected a whole number without a unit or a fraction, such as 16" },
		{ "test start session s1 op write depth 1.5",
		  "invalid depth '1.5': expected a whole number without a unit or a fraction, such as 16" },
		{ "test start session s1 op write depth many",
		  "invalid depth 'many': not a number" },
		{ "test start session s1 op write size 1.5",
		  "invalid size '1.5': not a whole number of bytes" },
		{ "test start session s1 op write duration 1.5",
		  "a time needs a unit" },
	};
	static const struct refusal refused_ping[] = {
		{ "ping 10.0.0.2:7471 count 2M",
		  "count '2M' out of range: must be 1..1000000" },
		{ "session connect addr 10.0.0.2 port 7471 timeout 2.5ms",
		  "not a whole number of milliseconds" },
	};
	static const struct cmd_case cases[] = {
		{ .kernel = k_test_silent,
		  .line = "test start session s1 op write mode bw size 1.5M count 1M interval 1.5s",
		  .sent = { SENT(KRDMA_A_TEST_COUNT, 1000000),
			    SENT(KRDMA_A_TEST_SIZE, 1572864),
			    SENT(KRDMA_A_TEST_INTERVAL_MS, 1500) } },
		{ .kernel = k_test_silent,
		  .line = "test start session s1 op write duration 2000us",
		  .sent = { SENT(KRDMA_A_TEST_DURATION_MS, 2) } },
	};

	CHECK_CMDS(cases);
	CHECK_REFUSALS(k_test_silent, refused);
	CHECK_REFUSALS(k_ping, refused_ping);
}

/* Every key of @o (and of the objects in it), once, into @keys. */
static void collect_keys(struct json_object *o, struct json_object *keys)
{
	size_t i;

	if (json_object_is_type(o, json_type_array)) {
		for (i = 0; i < json_object_array_length(o); i++)
			collect_keys(json_object_array_get_idx(o, i), keys);
		return;
	}
	if (!json_object_is_type(o, json_type_object))
		return;
	json_object_object_foreach(o, key, val) {
		json_object_object_add(keys, key, NULL);
		collect_keys(val, keys);
	}
}

/*
 * tools/README.md is what krdmactl(8) calls the reference of the JSON
 * keys: every key a test result, its environment, thresholds, QPs,
 * latency and histogram can have must be in it, as `key`.
 */
TEST(json_keys_documented)
{
	static const struct {
		fake_kernel_fn kernel;
		const char *line;
	} runs[] = {
		{ k_test_perf, "test run session 5 op write mode bw size 64K count 1000 bidir" },
		{ k_test_report, "test run session 5 op write mode bw size 64K qps 4 count 10 expect bw>=1" },
		{ k_test_report, "test run session 5 op send mode lat size 64 count 10 expect p99<=1ms histogram" },
		{ k_test_fails, "test run session 5 op write count 10" },
		{ k_env, "test run session 5 op write mode bw size 4K-8K count 10" },
		{ k_ping, "ping 10.0.0.2:7471 count 3" },
		{ k_conform, "conform session s1" },
		{ k_conform_fails, "conform session s1" },
	};
	char root[] = "/tmp/krdma-unit-sysfs.XXXXXX", cmd[128], *doc = NULL;
	struct json_object *keys = json_object_new_object(), *o;
	size_t i, len = 0;
	struct run r;
	FILE *f;

	CHECK(mkdtemp(root) != NULL);
	put_file(root, "class/infiniband/rxe0/node_type", "1: CA\n");
	put_file(root, "class/net/eth0/mtu", "1500\n");
	env_sysfs_root = root;
	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		fake_begin(runs[i].kernel);
		run(&r, true, runs[i].line);
		o = json_tokener_parse(r.out.buf);
		CHECK_CASE(runs[i].line, o != NULL);
		collect_keys(o, keys);
		json_object_put(o);
		run_end(&r);
	}
	env_sysfs_root = "/sys";
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK_INT(system(cmd), 0);

	/* run from tests/unit (make check) */
	f = fopen("../../tools/README.md", "r");
	CHECK(f != NULL);
	if (f) {
		CHECK(getdelim(&doc, &len, '\0', f) > 0);
		fclose(f);
	}
	/* the runs had what they are there for */
	CHECK(json_object_object_get_ex(keys, "env", NULL));
	CHECK(json_object_object_get_ex(keys, "histogram", NULL));
	CHECK(json_object_object_get_ex(keys, "met", NULL));
	CHECK(json_object_object_get_ex(keys, "rtt_us", NULL));
	json_object_object_foreach(keys, key, val) {
		char quoted[80];

		(void)val;
		snprintf(quoted, sizeof(quoted), "`%s`", key);
		if (doc && !strstr(doc, quoted))
			unit_fail(__FILE__, __LINE__,
				  "JSON key %s is not in tools/README.md", quoted);
	}
	free(doc);
	json_object_put(keys);
}

/* ---- one source: the tables make the help and the completion ---- */

/* "krdmactl __complete WORDS" (space separated, a trailing space for an
 * empty last word): the candidates, one a line, and what went to stderr. */
static void complete_line(const char *line, char *out, size_t outlen,
			  char *err, size_t errlen)
{
	static const char *const opts[] = { "-j", "--json" };
	char buf[256], *argv[32], *p = buf, *tok;
	FILE *f, *tmp = tmpfile();
	int argc = 0, saved;
	size_t n;

	snprintf(buf, sizeof(buf), "%s", line);
	while ((tok = strsep(&p, " ")) && argc < 31)
		argv[argc++] = tok;
	memset(out, 0, outlen);
	f = fmemopen(out, outlen, "w");
	fflush(stderr);
	saved = dup(2);
	dup2(fileno(tmp), 2);
	complete_run(argc, argv, opts, 2, f);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	fclose(f);
	out[outlen - 1] = '\0';
	rewind(tmp);
	n = fread(err, 1, errlen - 1, tmp);
	err[n] = '\0';
	fclose(tmp);
}

/* "\n" + the synopsis of a command, for finding " kw " in it. */
static void synopsis_of(const struct object *obj, const struct cmd *c,
			char *buf, size_t len)
{
	FILE *f;

	memset(buf, 0, len);
	f = fmemopen(buf, len, "w");
	cmd_synopsis(f, "", obj, c);
	fclose(f);
	buf[len - 1] = '\0';
}

/*
 * Every keyword of every command's table is in its synopsis and is
 * completed where a keyword may come, and nothing else is: a keyword
 * added to a table appears in both without another word changing.
 */
TEST(tables_make_help_and_completion)
{
	struct arg_spec specs[DESCRIBE_MAX];
	char syn[2048], out[4096], err[512], word[64], line[128];
	size_t i, j, shown;
	int k, n;

	for (i = 0; i < nobjects; i++) {
		const struct object *obj = objects[i];

		for (j = 0; j < (obj->fn ? 1 : obj->ncmds); j++) {
			const struct cmd *c = obj->fn ? NULL : &obj->cmds[j];

			n = cmd_describe(obj, c, specs, DESCRIBE_MAX);
			if (n < 0) {
				unit_fail(__FILE__, __LINE__, "%s %s: no table",
					  obj->name, c ? c->name : "");
				continue;
			}
			synopsis_of(obj, c, syn, sizeof(syn));
			snprintf(line, sizeof(line), "%s%s%s ", obj->name,
				 c ? " " : "", c ? c->name : "");
			complete_line(line, out, sizeof(out), err, sizeof(err));
			CHECK_STR(err, "");
			shown = 0;
			for (k = 0; k < n; k++) {
				if (!spec_shows_kw(&specs[k]))
					continue;
				shown++;
				snprintf(word, sizeof(word), "%s ", specs[k].kw);
				if (!strstr(syn, word))
					unit_fail(__FILE__, __LINE__, "%s: '%s' not in the synopsis: %s",
						  line, specs[k].kw, syn);
				snprintf(word, sizeof(word), "%s\n", specs[k].kw);
				if (!strstr(out, word))
					unit_fail(__FILE__, __LINE__, "%s: '%s' not completed: %s",
						  line, specs[k].kw, out);
			}
			/* nothing else, but "@files" for compare's FILE */
			for (k = 0, n = 0; out[k]; k++)
				n += out[k] == '\n';
			if (n - (strstr(out, "@files\n") ? 1 : 0) != (int)shown)
				unit_fail(__FILE__, __LINE__, "%s: %zu keywords, completed:\n%s",
					  line, shown, out);
		}
	}
}

/* What the help must say, now made from the tables. */
TEST(help_from_tables)
{
	static const struct cmd_case helps[] = {
		{ .kernel = k_none, .line = "test help",
		  .out_has = { " rate RATE ", " burst N ", " tos N ",
			       "[ expect COND ]...", "[ histogram ]",
			       "{ session { ID | NAME } | addr HOST[:PORT] }",
			       "OP := { ping | send |",
			       "MODE := { check | bw | lat }" } },
		/* ADDR: host names and IPv6 zones, which work */
		{ .kernel = k_none, .line = "session help",
		  .out_has = { "ADDR := { HOST | IPV4 | IPV6 | IPV6%IFACE }",
			       "[IPV6%IFACE]:PORT" } },
	};
	char syn[2048];

	CHECK_CMDS(helps);
	/* test start takes no run-only keyword, so shows none */
	synopsis_of(&test_obj, &test_obj.cmds[1], syn, sizeof(syn));
	CHECK(strstr(syn, "krdmactl test start session { ID | NAME } op OP") != NULL);
	CHECK(!strstr(syn, "expect") && !strstr(syn, "histogram") &&
	      !strstr(syn, "addr") && !strstr(syn, "tos"));

	/* "show" takes an id or a name, not both */
	check_refused(k_sessions, "session show 1 name a", EXIT_USAGE,
		      "cannot be used together");
}

/* Whether the candidates @out (one a line) have @word. */
static bool offered(const char *out, const char *word)
{
	size_t len = strlen(word);
	const char *p;

	for (p = out; (p = strstr(p, word)); p += len)
		if ((p == out || p[-1] == '\n') && p[len] == '\n')
			return true;
	return false;
}

/*
 * Values from the parser's own tables: expect's metrics (parse_expect()'s,
 * every one); no port after an ADDR:PORT, which has one; the objects after
 * "help".
 */
TEST(complete_values)
{
	static const struct {
		const char *line;
		const char *has, *lacks;
	} cases[] = {
		{ "test run session s1 op send mode lat expect p9", "p99.9", "p50" },
		{ "test run session s1 op write mode bw expect m", "min_qp_bw", "bw" },
		{ "ping 10.0.0.2:7471 ", "count", "port" },
		{ "ping hostA:7471 ", "count", "port" },
		{ "ping [fe80::1%eth0]:7471 ", "count", "port" },
		{ "ping 10.0.0.2 ", "port", NULL },
		{ "ping fe80::1%eth0 ", "port", NULL },
		{ "test run addr hostA:7471 op write ", "tos", "port" },
		{ "test run addr hostA op write ", "port", NULL },
		{ "session connect name s1 addr 10.0.0.2:7471 ", "qps", "port" },
		{ "listener add addr 10.0.0.1:7471 ", "name", "port" },
		{ "listener add addr 10.0.0.1 ", "port", NULL },
		{ "help ", "test", "help" },
		{ "help s", "stats", "test" },
	};
	char out[2048], err[512], want[256];
	const char *name;
	size_t i;
	int m;

	/* after expect, every metric parse_expect() knows, nothing else */
	want[0] = '\0';
	for (m = 0; m < __EXPECT_METRIC_MAX; m++) {
		name = expect_metric_name((enum expect_metric)m);
		CHECK(name != NULL);
		snprintf(want + strlen(want), sizeof(want) - strlen(want),
			 "%s\n", name ? name : "");
	}
	complete_line("test run session s1 op write expect ", out, sizeof(out),
		      err, sizeof(err));
	CHECK_STR(out, want);
	CHECK_STR(err, "");

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *what = cases[i].line;

		complete_line(what, out, sizeof(out), err, sizeof(err));
		CHECK_STR_CASE(what, err, "");
		if (!offered(out, cases[i].has) ||
		    (cases[i].lacks && offered(out, cases[i].lacks)))
			unit_fail(__FILE__, __LINE__, "\"%s\": offered:\n%s", what,
				  out);
	}
}

/* Live names from the module's dumps; without it, nothing and no word. */
TEST(complete_live_names)
{
	static const struct {
		fake_kernel_fn kernel;
		const char *line;
		const char *out;
		int nreqs;
	} cases[] = {
		{ k_sessions, "test run session ", "a\nb\n", 1 },
		{ k_sessions, "session del ", "name\na\nb\n", 1 },
		{ k_sessions, "monitor session b", "b\n", 1 },
		{ k_listeners, "listener show name ", "a\nb\n", 1 },
		/* the kernel refuses: quiet */
		{ k_none, "test run session ", "", 1 },
		/* nothing is asked where no name goes */
		{ k_sessions, "session connect name ", "", 0 },
	};
	char out[1024], err[512];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *what = cases[i].line;

		fake_begin(cases[i].kernel);
		complete_line(what, out, sizeof(out), err, sizeof(err));
		CHECK_STR_CASE(what, out, cases[i].out);
		CHECK_STR_CASE(what, err, "");
		CHECK_INT_CASE(what, fake_nreqs(), cases[i].nreqs);
		fake_end();
	}

	/* no fake: this host's kernel has no krdma family (or no netlink) */
	complete_line("session show name ", out, sizeof(out), err, sizeof(err));
	CHECK_STR(out, "");
	CHECK_STR(err, "");
	knl_put();
}

/* @buf's white space collapsed to single blanks, in place. */
static void collapse_space(char *buf)
{
	char *w, *p;

	for (w = p = buf; p && *p; p++) {
		if (isspace((unsigned char)*p)) {
			if (w == buf || w[-1] != ' ')
				*w++ = ' ';
		} else {
			*w++ = *p;
		}
	}
	if (w)
		*w = '\0';
}

/*
 * A file of the tree (run from tests/unit, as make check does), its white
 * space collapsed to single blanks so that a sentence may wrap anywhere;
 * NULL (and a failure) if it cannot be read.
 */
static char *read_tree_file(const char *rel)
{
	char path[256], *buf = NULL;
	size_t len = 0;
	FILE *f;

	snprintf(path, sizeof(path), "../../%s", rel);
	f = fopen(path, "r");
	if (!f) {
		unit_fail(__FILE__, __LINE__, "cannot read %s", path);
		return NULL;
	}
	if (getdelim(&buf, &len, '\0', f) < 0) {
		unit_fail(__FILE__, __LINE__, "cannot read %s", path);
		free(buf);
		buf = NULL;
	}
	fclose(f);
	collapse_space(buf);
	return buf;
}

/* The value of "#define NAME VALUE" in @text, or -1. */
static long define_of(const char *text, const char *name)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "#define %s ", name);
	p = text ? strstr(text, pat) : NULL;
	return p ? strtol(p + strlen(pat), NULL, 0) : -1;
}

#define CHECK_DOC_SAYS(doc, name, what)					\
	do {								\
		if ((doc) && !strstr((doc), (what)))			\
			unit_fail(__FILE__, __LINE__,			\
				  "%s does not say \"%s\"", name, what); \
	} while (0)

#define CHECK_DOC_NOT_SAYS(doc, name, what)				\
	do {								\
		if ((doc) && strstr((doc), (what)))			\
			unit_fail(__FILE__, __LINE__,			\
				  "%s still says \"%s\"", name, what);	\
	} while (0)

/*
 * What the documentation states of the code, checked against it: the
 * protocol version usage.rst gives (it once said 2 of a module of 3),
 * the exit statuses (tools/README.md once said 1 for a usage error,
 * testing.rst 3 for a missed threshold), and the shape of -j test run,
 * one object whatever the size (the help and the docs once said an
 * array for a size range).
 */
TEST(docs_state_the_code)
{
	static const char *const not_an_array[] = {
		"JSON array", "-j: one array", "an array of one",
		"size range: an array", "sweep's array",
	};
	char *proto = read_tree_file("kmod/proto.h");
	char *usage = read_tree_file("Documentation/usage.rst");
	char *readme = read_tree_file("README.md");
	char *tools = read_tree_file("tools/README.md");
	char *man = read_tree_file("Documentation/krdmactl.8");
	char *testing = read_tree_file("Documentation/testing.rst");
	long ver = define_of(proto, "KRDMA_PROTO_VERSION");
	long min = define_of(proto, "KRDMA_PROTO_VERSION_MIN");
	char want[256];
	struct run r;
	size_t i;

	CHECK(ver >= 1 && min >= 1 && min <= ver);
	snprintf(want, sizeof(want), "this module speaks %ld and accepts peers of %ld to %ld",
		 ver, min, ver);
	CHECK_DOC_SAYS(usage, "Documentation/usage.rst", want);
	snprintf(want, sizeof(want), "here %ld..%ld)", min, ver);
	CHECK_DOC_SAYS(usage, "Documentation/usage.rst", want);

	snprintf(want, sizeof(want), "exits %d on success, %d on a bad command line, %d on a runtime",
		 EXIT_OK, EXIT_USAGE, EXIT_ERR);
	CHECK_DOC_SAYS(readme, "README.md", want);
	snprintf(want, sizeof(want), "| %d | the command line is wrong", EXIT_USAGE);
	CHECK_DOC_SAYS(tools, "tools/README.md", want);
	snprintf(want, sizeof(want), "| %d | runtime error", EXIT_ERR);
	CHECK_DOC_SAYS(tools, "tools/README.md", want);
	snprintf(want, sizeof(want), "| %d | `test run`: the data failed validation",
		 EXIT_TEST_FAIL);
	CHECK_DOC_SAYS(tools, "tools/README.md", want);
	snprintf(want, sizeof(want), "| %d | `test run`: the data was right and an `expect` threshold was missed",
		 EXIT_EXPECT);
	CHECK_DOC_SAYS(tools, "tools/README.md", want);
	snprintf(want, sizeof(want), "| %d | `compare`: a figure got worse",
		 EXIT_REGRESSION);
	CHECK_DOC_SAYS(tools, "tools/README.md", want);
	snprintf(want, sizeof(want), "| %d | `conform`: a case failed",
		 EXIT_CONFORM_FAIL);
	CHECK_DOC_SAYS(tools, "tools/README.md", want);
	snprintf(want, sizeof(want), "| %d | interrupted", EXIT_INTR);
	CHECK_DOC_SAYS(tools, "tools/README.md", want);

	/* README.md's statuses past 1, in the sentence the check above opens */
	snprintf(want, sizeof(want), "%d when a test ran and its data failed validation, %d when the data was right and an `expect` threshold was missed, %d when `compare` found a regression, %d when a `conform` case failed, %d when interrupted",
		 EXIT_TEST_FAIL, EXIT_EXPECT, EXIT_REGRESSION,
		 EXIT_CONFORM_FAIL, EXIT_INTR);
	CHECK_DOC_SAYS(readme, "README.md", want);

	/* krdmactl(8), EXIT STATUS: a tagged paragraph per status */
	snprintf(want, sizeof(want), ".TP .B %d A runtime error:", EXIT_ERR);
	CHECK_DOC_SAYS(man, "krdmactl.8", want);
	snprintf(want, sizeof(want), ".TP .B %d The command line is wrong:",
		 EXIT_USAGE);
	CHECK_DOC_SAYS(man, "krdmactl.8", want);
	snprintf(want, sizeof(want), ".TP .B %d .B \"test run\" ran its test(s) to the end and the data failed validation",
		 EXIT_TEST_FAIL);
	CHECK_DOC_SAYS(man, "krdmactl.8", want);
	snprintf(want, sizeof(want), ".TP .B %d .B \"test run\" ran its test(s) to the end, the data was right, and an .B expect threshold was missed",
		 EXIT_EXPECT);
	CHECK_DOC_SAYS(man, "krdmactl.8", want);
	snprintf(want, sizeof(want), ".TP .B %d .B compare found a figure worse than the baseline's",
		 EXIT_REGRESSION);
	CHECK_DOC_SAYS(man, "krdmactl.8", want);
	snprintf(want, sizeof(want), ".TP .B %d .B conform ran its cases and at least one failed",
		 EXIT_CONFORM_FAIL);
	CHECK_DOC_SAYS(man, "krdmactl.8", want);
	snprintf(want, sizeof(want), ".TP .B %d Interrupted", EXIT_INTR);
	CHECK_DOC_SAYS(man, "krdmactl.8", want);
	snprintf(want, sizeof(want), "thresholds met (exit %d) and missed (exit %d, named)",
		 EXIT_OK, EXIT_EXPECT);
	CHECK_DOC_SAYS(testing, "Documentation/testing.rst", want);

	/* -j test run: one object, whatever the size */
	fake_begin(k_none);
	run(&r, false, "test help");
	collapse_space(r.out.buf);
	CHECK_DOC_SAYS(r.out.buf, "test help",
		       "-j: one JSON object whatever the size");
	CHECK_DOC_SAYS(tools, "tools/README.md",
		       "`-j test run` prints one object whatever the command line or the outcome");
	CHECK_DOC_SAYS(usage, "Documentation/usage.rst",
		       "With ``-j`` a run prints one object, whatever its size");
	for (i = 0; i < ARRAY_SIZE(not_an_array); i++) {
		CHECK_DOC_NOT_SAYS(r.out.buf, "test help", not_an_array[i]);
		CHECK_DOC_NOT_SAYS(tools, "tools/README.md", not_an_array[i]);
		CHECK_DOC_NOT_SAYS(usage, "Documentation/usage.rst",
				   not_an_array[i]);
		CHECK_DOC_NOT_SAYS(man, "krdmactl.8", not_an_array[i]);
		CHECK_DOC_NOT_SAYS(testing, "Documentation/testing.rst",
				   not_an_array[i]);
	}
	run_end(&r);
	free(proto);
	free(usage);
	free(readme);
	free(tools);
	free(man);
	free(testing);
}

/* ---- conform ---- */

/*
 * The conformance kernel: session 5 "s1" on rxe0, up (unless CF_DOWN),
 * max_msg conform_max_msg, READ credits; rxe0's port 1 active at MTU
 * 1024, atomics only with CF_ATOMICS. Each TEST_START is a test (ids
 * from 20) of the count asked for, all of it validated, but a read's
 * that fails with CF_READ_FAILS (-EIO), a send refused with
 * CF_SEND_REFUSED, and a write_imm one short of validated with
 * CF_IMM_SHORT; with CF_SLOW, each runs until stopped (3 iterations).
 */
#define CF_DOWN		0x1
#define CF_ATOMICS	0x2
#define CF_READ_FAILS	0x4
#define CF_SEND_REFUSED	0x8
#define CF_IMM_SHORT	0x10
#define CF_SLOW		0x20	/* no DONE until TEST_STOP */
/*
 * The negative cases (test-violate), each over a session of its own
 * (ids from 30, up; a connect refused with CF_NEG_REFUSED): its test
 * fails on a remote access error, or a remote invalid request for the
 * long SEND; but with CF_NEG_DONE the device lets the out-of-bounds
 * WRITE through, and with CF_NEG_WRONG answers every other one with a
 * local protection error. CF_SERVER: session 5 is the server's end.
 */
#define CF_NEG_REFUSED	0x40
#define CF_NEG_DONE	0x80
#define CF_NEG_WRONG	0x100
#define CF_SERVER	0x200
/* iWARP: a negative case's session closed under it (the peer's
 * TERMINATE), or with CF_NEG_WRONG its test stalled. */
#define CF_IWARP	0x400
/* The peer speaks protocol version 4: no read-back (else 6). */
#define CF_OLD_PEER	0x800
/* The device refuses the unaligned atomic at post (rxe), or with
 * CF_NEG_WRONG any WR at post: -EINVAL and no completion. */
#define CF_POST_REFUSES	0x1000
/* iWARP: our WR was in flight when the TERMINATE broke the QP (siw). */
#define CF_IWARP_INFLIGHT	0x2000
/* siw: the READ of 0 bytes behind a READ of data fails its length. */
#define CF_ZERO_BEHIND_FAILS	0x4000
/* rxe: the REG_MR behind the SEND sent again runs twice and fails. */
#define CF_REG_TWICE	0x8000

/* A case over a session of its own: made, the test run, read, deleted. */
#define CONFORM_OWN_SESSION_CMDS					\
	{ KRDMA_CMD_SESSION_GET, KRDMA_CMD_DEV_GET, KRDMA_CMD_SESSION_NEW, \
	  KRDMA_CMD_TEST_START, KRDMA_CMD_SESSION_GET, KRDMA_CMD_SESSION_DEL }

/* Session 5's ends: 10.0.0.1, the peer's listener 10.0.0.2:7471. */
static const struct ip_addr conform_local = {
	.family = AF_INET, .bytes = { 10, 0, 0, 1 },
};
static const struct ip_addr conform_peer = {
	.family = AF_INET, .bytes = { 10, 0, 0, 2 },
};

static int conform_mode;
static uint32_t conform_max_msg, conform_ntests;	/* max_msg 0: 65536 */
static uint32_t conform_nsessions, conform_ndels;
/* The last session-new's RNR retry count, as the kernel defaults it. */
static uint8_t conform_rnr_retry = 6;
/* The SGEs the last session-new asked for its QPs (0: the default). */
static uint32_t conform_max_sge;

static void conform_setup(int mode)
{
	conform_mode = mode;
	conform_ntests = 0;
	conform_nsessions = 0;
	conform_ndels = 0;
}

/* A negative case's TEST_START: its id, then its DONE. */
static void k_conform_violate(struct nlattr **tb)
{
	uint8_t v = nla_get_u8(tb[KRDMA_A_TEST_VIOLATE]);
	uint32_t id = 20 + conform_ntests++;
	bool done = (conform_mode & CF_NEG_DONE) &&
		    v == KRDMA_VIOLATE_OUT_OF_BOUNDS &&
		    nla_get_u8(tb[KRDMA_A_TEST_OP]) == KRDMA_OP_WRITE;
	uint32_t wc = v == KRDMA_VIOLATE_LONG_SEND ||
		      v == KRDMA_VIOLATE_UNALIGNED ? 9 : 10;
	struct nl_msg *m;

	if (conform_mode & CF_NEG_WRONG)
		wc = 4;		/* IB_WC_LOC_PROT_ERR */
	m = fake_msg(KRDMA_CMD_TEST_START);
	nla_put_u32(m, KRDMA_A_TEST_ID, id);
	fake_reply(m);
	fake_ack();
	m = fake_msg(KRDMA_CMD_EVENT_NTF);
	nla_put_u32(m, KRDMA_A_TEST_ID, id);
	nla_put_u8(m, KRDMA_A_EVENT, KRDMA_EVENT_TEST_DONE);
	nla_put_u8(m, KRDMA_A_TEST_OP, nla_get_u8(tb[KRDMA_A_TEST_OP]));
	nla_put_u8(m, KRDMA_A_TEST_MODE, KRDMA_MODE_CHECK);
	nla_put_u8(m, KRDMA_A_TEST_VIOLATE, v);
	nla_put_u64(m, KRDMA_A_TEST_ITERS, done);
	nla_put_u64(m, KRDMA_A_TEST_VALIDATED, done);
	if (conform_mode & CF_IWARP_INFLIGHT) {
		nla_put_u32(m, KRDMA_A_TEST_STATUS, (uint32_t)-EIO);
		nla_put_u32(m, KRDMA_A_TEST_WC_STATUS, 2);
		nla_put_string(m, KRDMA_A_REASON,
			       "iteration 0: local QP operation error");
		fake_event(m);
		return;
	}
	if (conform_mode & CF_IWARP) {
		bool stalled = conform_mode & CF_NEG_WRONG;

		nla_put_u32(m, KRDMA_A_TEST_STATUS, (uint32_t)(stalled ?
			    -ETIMEDOUT : -ECONNRESET));
		nla_put_string(m, KRDMA_A_REASON, stalled ?
			       "session closed: test 20 stalled for 30000 ms" :
			       "session closed: connection closed: receive flushed");
		fake_event(m);
		return;
	}
	if ((conform_mode & CF_POST_REFUSES) &&
	    (v == KRDMA_VIOLATE_UNALIGNED || (conform_mode & CF_NEG_WRONG))) {
		nla_put_u32(m, KRDMA_A_TEST_STATUS, (uint32_t)-EINVAL);
		nla_put_string(m, KRDMA_A_REASON, "cannot post: -EINVAL");
		fake_event(m);
		return;
	}
	nla_put_u32(m, KRDMA_A_TEST_STATUS, done ? 0 : (uint32_t)-EIO);
	if (!done) {
		nla_put_u32(m, KRDMA_A_TEST_WC_STATUS, wc);
		nla_put_string(m, KRDMA_A_REASON, wc == 9 ?
			       "iteration 0: remote invalid request error" :
			       wc == 10 ? "iteration 0: remote access error" :
			       "iteration 0: local protection error");
	}
	fake_event(m);
}

/* A negative case's session to the peer's listener. */
static void k_conform_session(uint8_t cmd, struct nlattr **tb)
{
	uint32_t id = 30 + conform_nsessions;

	if (cmd == KRDMA_CMD_SESSION_DEL) {
		conform_ndels++;
		fake_ack();
		return;
	}
	conform_nsessions++;
	conform_rnr_retry = tb[KRDMA_A_SESSION_RNR_RETRY] ?
			    nla_get_u8(tb[KRDMA_A_SESSION_RNR_RETRY]) : 6;
	conform_max_sge = tb[KRDMA_A_SESSION_MAX_SGE] ?
			  nla_get_u32(tb[KRDMA_A_SESSION_MAX_SGE]) : 0;
	fake_reply(session_msg(cmd, id, nla_get_string(tb[KRDMA_A_NAME])));
	fake_ack();
	if (conform_mode & CF_NEG_REFUSED)
		fake_event(session_event(KRDMA_EVENT_SESSION_DOWN, id, NULL,
					 "rejected by peer"));
	else
		fake_event(session_event(KRDMA_EVENT_SESSION_UP, id, NULL, NULL));
}

/*
 * A case's test accepted, then DONE with -EIO after @iters iterations,
 * each validated, on a failed completion of status @wc.
 */
static void conform_test_failed(uint32_t id, uint8_t op, uint64_t iters,
				uint32_t wc, const char *reason)
{
	struct nl_msg *m = fake_msg(KRDMA_CMD_TEST_START);

	nla_put_u32(m, KRDMA_A_TEST_ID, id);
	fake_reply(m);
	fake_ack();
	m = fake_msg(KRDMA_CMD_EVENT_NTF);
	nla_put_u32(m, KRDMA_A_TEST_ID, id);
	nla_put_u8(m, KRDMA_A_EVENT, KRDMA_EVENT_TEST_DONE);
	nla_put_u8(m, KRDMA_A_TEST_OP, op);
	nla_put_u8(m, KRDMA_A_TEST_MODE, KRDMA_MODE_CHECK);
	nla_put_u64(m, KRDMA_A_TEST_ITERS, iters);
	nla_put_u64(m, KRDMA_A_TEST_VALIDATED, iters);
	nla_put_u32(m, KRDMA_A_TEST_STATUS, (uint32_t)-EIO);
	nla_put_u32(m, KRDMA_A_TEST_WC_STATUS, wc);
	nla_put_string(m, KRDMA_A_REASON, reason);
	fake_event(m);
}
static void k_conform_test(struct nlattr **tb)
{
	uint8_t op = tb[KRDMA_A_TEST_OP] ? nla_get_u8(tb[KRDMA_A_TEST_OP]) : 0;
	uint64_t n = tb[KRDMA_A_TEST_COUNT] ?
		     nla_get_u64(tb[KRDMA_A_TEST_COUNT]) : 1000;
	bool fails = (conform_mode & CF_READ_FAILS) && op == KRDMA_OP_READ;
	bool shy = (conform_mode & CF_IMM_SHORT) && op == KRDMA_OP_WRITE_IMM;
	uint32_t id = 20 + conform_ntests++;
	struct nl_msg *m;

	if (tb[KRDMA_A_TEST_VIOLATE]) {
		k_conform_violate(tb);
		return;
	}
	if ((conform_mode & CF_SEND_REFUSED) && op == KRDMA_OP_SEND) {
		fake_error(-E2BIG, "size needs more SGEs than the device has", 0);
		return;
	}
	/* As the module refuses it (krdma_test_params_check()). */
	if (tb[KRDMA_A_TEST_READ_BACK] && op != KRDMA_OP_WRITE) {
		fake_error(-EINVAL, "read-back is for write, without a violation", 0);
		return;
	}
	if (tb[KRDMA_A_TEST_ZERO_LENGTH] && op != KRDMA_OP_WRITE &&
	    op != KRDMA_OP_WRITE_IMM && op != KRDMA_OP_READ) {
		fake_error(-EINVAL, "zero-length is for write, write_imm and read, without a violation, read-back or sges", 0);
		return;
	}
	if (tb[KRDMA_A_TEST_SEND_INVALIDATE] && op != KRDMA_OP_SEND) {
		fake_error(-EINVAL, "send-invalidate is for send, without a violation but send-invalidated-rkey", 0);
		return;
	}
	/* The peer's QP of rq_depth 8 keeps 12 receives posted. */
	if (tb[KRDMA_A_TEST_RNR_HOLD] && n <= 12) {
		fake_error(-EINVAL, "rnr-hold needs a count above the receives the peer keeps posted: the session's rq_depth + 4 a QP", 0);
		return;
	}
	if (tb[KRDMA_A_TEST_ZERO_READ_BEHIND] && op != KRDMA_OP_READ) {
		fake_error(-EINVAL, "zero-read-behind is for read, without a violation, zero-length or sges", 0);
		return;
	}
	if (tb[KRDMA_A_TEST_ZERO_READ_BEHIND] &&
	    (conform_mode & CF_ZERO_BEHIND_FAILS)) {
		conform_test_failed(id, op, 0, 1,
				    "iteration 0: the READ of 0 bytes: local length error");
		return;
	}
	if (tb[KRDMA_A_TEST_REG_BEHIND] && op != KRDMA_OP_SEND &&
	    op != KRDMA_OP_SEND_IMM) {
		fake_error(-EINVAL, "reg-behind is for send and send_imm, without a violation or send-invalidate", 0);
		return;
	}
	if (tb[KRDMA_A_TEST_REG_BEHIND] && (conform_mode & CF_REG_TWICE)) {
		conform_test_failed(id, op, 12, 2,
				    "iteration 12: the REG_MR behind the SEND: local QP operation error");
		return;
	}
	if (tb[KRDMA_A_TEST_RNR_HOLD] && !conform_rnr_retry) {
		conform_test_failed(id, op, 12, 13,
				    "iteration 12: RNR retry counter exceeded");
		return;
	}
	if (tb[KRDMA_A_TEST_OP]) {
		m = fake_msg(KRDMA_CMD_TEST_START);
		nla_put_u32(m, KRDMA_A_TEST_ID, id);
		fake_reply(m);
		fake_ack();
		if (conform_mode & CF_SLOW)
			return;
	} else {
		/* TEST_STOP: its DONE, 3 iterations in */
		id = tb_u32(tb, KRDMA_A_TEST_ID);
		conform_ntests--;
		fake_ack();
		n = 0;
	}
	m = fake_msg(KRDMA_CMD_EVENT_NTF);
	nla_put_u32(m, KRDMA_A_TEST_ID, id);
	nla_put_u8(m, KRDMA_A_EVENT, KRDMA_EVENT_TEST_DONE);
	nla_put_u8(m, KRDMA_A_TEST_OP, op);
	nla_put_u8(m, KRDMA_A_TEST_MODE, KRDMA_MODE_CHECK);
	nla_put_u64(m, KRDMA_A_TEST_ITERS, fails || !n ? 3 : n);
	nla_put_u64(m, KRDMA_A_TEST_VALIDATED, fails ? 2 : !n ? 3 :
						shy ? n - 1 : n);
	nla_put_u32(m, KRDMA_A_TEST_STATUS, fails ? (uint32_t)-EIO : 0);
	if (fails)
		nla_put_string(m, KRDMA_A_REASON, "peer reports iteration 3: -EIO");
	fake_event(m);
}

static void k_conform(uint8_t cmd, struct nlattr **tb, struct nl_msg *req)
{
	struct nlattr *nest;
	struct nl_msg *m;

	(void)req;
	switch (cmd) {
	case KRDMA_CMD_SESSION_GET:
		m = session_msg(cmd, 5, "s1");
		nla_put_u8(m, KRDMA_A_SESSION_STATE, conform_mode & CF_DOWN ?
			   KRDMA_SESSION_CONNECTING : KRDMA_SESSION_UP);
		nla_put_u32(m, KRDMA_A_SESSION_MAX_MSG_SIZE,
			    conform_max_msg ? conform_max_msg : 65536);
		nla_put_u8(m, KRDMA_A_SESSION_INITIATOR_DEPTH, 16);
		/* A case's own session: the SGEs it asked for (the device 32). */
		if (tb[KRDMA_A_SESSION_ID] &&
		    nla_get_u32(tb[KRDMA_A_SESSION_ID]) >= 30 && conform_max_sge) {
			nla_put_u32(m, KRDMA_A_SESSION_MAX_SGE, conform_max_sge);
			nla_put_u32(m, KRDMA_A_SESSION_MAX_READ_SGE, 30);
		} else {
			nla_put_u32(m, KRDMA_A_SESSION_MAX_SGE, 16);
			nla_put_u32(m, KRDMA_A_SESSION_MAX_READ_SGE, 16);
		}
		nla_put_u32(m, KRDMA_A_SESSION_PEER_PROTO,
			    conform_mode & CF_OLD_PEER ? 4 : 7);
		if (!(conform_mode & CF_DOWN))
			nla_put_string(m, KRDMA_A_DEV_NAME, "rxe0");
		nla_put_u8(m, KRDMA_A_SESSION_ROLE, conform_mode & CF_SERVER ?
			   KRDMA_ROLE_SERVER : KRDMA_ROLE_CLIENT);
		put_endpoint(m, KRDMA_A_LOCAL_ADDR, &conform_local, 41000);
		put_endpoint(m, KRDMA_A_PEER_ADDR, &conform_peer, 7471);
		break;
	case KRDMA_CMD_DEV_GET:
		m = fake_msg(cmd);
		nla_put_u8(m, KRDMA_A_DEV_ATOMIC_CAP,
			   conform_mode & CF_ATOMICS ? 1 : 0);
		nla_put_u32(m, KRDMA_A_DEV_MAX_SGE, 32);
		nest = nla_nest_start(m, KRDMA_A_DEV_PORT);
		nla_put_u32(m, KRDMA_PORT_A_ACTIVE_MTU, 1024);
		nla_put_u8(m, KRDMA_PORT_A_STATE, 4 /* IB_PORT_ACTIVE */);
		nla_put_u32(m, KRDMA_PORT_A_INDEX, 1);
		nla_nest_end(m, nest);
		break;
	case KRDMA_CMD_TEST_START:
	case KRDMA_CMD_TEST_STOP:
		k_conform_test(tb);
		return;
	case KRDMA_CMD_SESSION_NEW:
	case KRDMA_CMD_SESSION_DEL:
		k_conform_session(cmd, tb);
		return;
	default:
		fake_error(-EOPNOTSUPP, NULL, 0);
		return;
	}
	fake_reply(m);
	fake_ack();
}

/* k_conform with every case of its failures (json_keys_documented). */
static void k_conform_fails(uint8_t cmd, struct nlattr **tb,
			    struct nl_msg *req)
{
	conform_mode = CF_READ_FAILS | CF_SEND_REFUSED;
	k_conform(cmd, tb, req);
	conform_mode = 0;
}

TEST(cmd_conform_one_case)
{
	check_cmd(&(const struct cmd_case){
		.kernel = k_conform, .setup = conform_setup, .json = true,
		.line = "conform session s1 case write.mtu_plus_1",
		.err = "", .rc = EXIT_OK, REQS(3),
		.req_cmds = { KRDMA_CMD_SESSION_GET, KRDMA_CMD_DEV_GET,
			      KRDMA_CMD_TEST_START },
		.sent = { SENT_STR(KRDMA_A_NAME, "s1"),
			  SENT_IN(2, KRDMA_A_SESSION_ID, 5),
			  SENT_IN(2, KRDMA_A_TEST_OP, KRDMA_OP_WRITE),
			  SENT_IN(2, KRDMA_A_TEST_MODE, KRDMA_MODE_CHECK),
			  SENT_IN(2, KRDMA_A_TEST_SIZE, 1025),
			  SENT_IN(2, KRDMA_A_TEST_COUNT, 8) },
		.json_has = { JSON_NUM("schema_version", 1),
			      JSON_STRING("dev", "rxe0"),
			      JSON_NUM("mtu", 1024),
			      JSON_NUM("max_msg", 65536),
			      JSON_LEN("cases", 1),
			      JSON_STRING("cases/0/case", "write.mtu_plus_1"),
			      JSON_STRING("cases/0/op", "write"),
			      JSON_NUM("cases/0/size", 1025),
			      JSON_STRING("cases/0/result", "pass"),
			      JSON_NUM("cases/0/test_id", 20),
			      JSON_NUM("cases/0/status", 0),
			      JSON_NUM("cases/0/iters", 8),
			      JSON_NUM("cases/0/validated", 8),
			      JSON_NO("cases/0/reason"),
			      JSON_NUM("passed", 1), JSON_NUM("failed", 0),
			      JSON_NUM("skipped", 0),
			      JSON_FALSE("interrupted") },
	});
}

TEST(cmd_conform_all_cases)
{
	/* 5 ops at 7 sizes, 4 atomics, 2 at max_sge; 8 negative cases, 2 of
	 * atomics. */
	const struct cmd_case cases[] = {
		{ .what = "no atomics", .kernel = k_conform,
		  .setup = conform_setup, .json = true,
		  .line = "conform session s1", .err = "", .rc = EXIT_OK,
		  .json_has = { JSON_LEN("cases", 68),
				JSON_STRING("cases/0/case", "write.1_byte"),
				JSON_NUM("cases/0/size", 1),
				JSON_NUM("cases/1/size", 1023),
				JSON_NUM("cases/2/size", 1024),
				JSON_NUM("cases/6/size", 65536),
				JSON_STRING("cases/35/case", "atomic_fadd.8_bytes"),
				JSON_STRING("cases/35/result", "skip"),
				JSON_STRING("cases/35/reason",
					    "the device has no atomics (atomic_cap none)"),
				JSON_NO("cases/35/test_id"),
				JSON_STRING("cases/57/case", "atomic_fadd.out_of_bounds"),
				JSON_STRING("cases/57/result", "skip"),
				JSON_STRING("cases/53/case", "send.rnr_retried"),
				JSON_STRING("cases/53/result", "pass"),
				JSON_TRUE("cases/53/rnr_hold"),
				JSON_NUM("cases/53/rnr_retry", 7),
				JSON_NUM("cases/53/iters", 16),
				JSON_STRING("cases/67/case", "send.rnr_retry_exceeded"),
				JSON_STRING("cases/67/result", "pass"),
				JSON_NUM("cases/67/rnr_retry", 0),
				JSON_NUM("cases/67/wc_status", 13),
				JSON_NUM("cases/67/expect_wc_status", 13),
				JSON_NO("cases/67/violate"),
				JSON_STRING("cases/54/case", "send.reg_mr_behind_retried"),
				JSON_STRING("cases/54/result", "pass"),
				JSON_TRUE("cases/54/reg_behind"),
				JSON_NUM("cases/54/iters", 16),
				JSON_STRING("cases/51/case", "read.0_bytes_behind_data"),
				JSON_TRUE("cases/51/zero_read_behind"),
				JSON_STRING("cases/41/case", "read.fenced_after_write"),
				JSON_STRING("cases/39/case", "send.max_sge"),
				JSON_NUM("cases/39/sges", 32),
				JSON_NUM("cases/39/size", 1000),
				JSON_STRING("cases/39/result", "pass"),
				JSON_NUM("passed", 58), JSON_NUM("failed", 0),
				JSON_NUM("skipped", 10) } },
		{ .what = "atomics", .kernel = k_conform,
		  .setup = conform_setup, .mode = CF_ATOMICS, .json = true,
		  .line = "conform session s1", .err = "", .rc = EXIT_OK,
		  .json_has = { JSON_STRING("cases/36/case", "atomic_cswap.8_bytes"),
				JSON_STRING("cases/36/result", "pass"),
				JSON_NUM("cases/36/size", 8),
				JSON_STRING("cases/37/case", "atomic_fadd.wrap_around"),
				JSON_STRING("cases/37/atomic_variant", "fadd_wrap"),
				JSON_STRING("cases/37/result", "pass"),
				JSON_STRING("cases/38/atomic_variant", "cswap_miss"),
				JSON_NO("cases/36/atomic_variant"),
				JSON_NO("cases/36/read_back"),
				JSON_NUM("passed", 67), JSON_NUM("skipped", 1) } },
		{ .what = "text", .kernel = k_conform, .setup = conform_setup,
		  .line = "conform session s1", .rc = EXIT_OK,
		  .out_starts = "conform session 5 (s1): dev rxe0 mtu 1024 max_msg 65536 page ",
		  .out_has = { "write.mtu_plus_1             write            1025  pass 8 validated of 8 iterations of 8\n",
			       "atomic_fadd.8_bytes          atomic_fadd         8  skip the device has no atomics",
			       "write.out_of_bounds          write               1  pass expect remote access error, got remote access error\n",
			       "send.longer_than_receive     send             4096  pass expect remote invalid request error, got remote invalid request error\n",
			       "send_imm.max_sge             send_imm         1000  pass 32 SGEs a WR, 8 validated of 8 iterations of 8\n",
			       "read.fenced_after_write      read             8199  pass each WRITE READ back, 8 validated of 8 iterations of 8\n",
			       "send.rnr_retried             send                1  pass into the peer's empty receive queue, 16 validated of 16 iterations of 16\n",
			       "send.rnr_retry_exceeded      send                1  pass expect RNR retry counter exceeded, got RNR retry counter exceeded\n",
			       "58 passed, 0 failed, 10 skipped\n" } },
		{ .what = "cases that fail", .kernel = k_conform,
		  .setup = conform_setup, .json = true,
		  .mode = CF_ATOMICS | CF_READ_FAILS | CF_SEND_REFUSED | CF_IMM_SHORT,
		  .line = "conform session s1", .rc = EXIT_CONFORM_FAIL,
		  .err_has = { "size needs more SGEs than the device has" },
		  .json_has = { JSON_STRING("cases/7/case", "read.1_byte"),
				JSON_STRING("cases/7/result", "fail"),
				JSON_NUM("cases/7/status", -EIO),
				JSON_NUM("cases/7/iters", 3),
				JSON_NUM("cases/7/validated", 2),
				JSON_STRING("cases/7/reason",
					    "status -5 (Input/output error): peer reports iteration 3: -EIO"),
				JSON_STRING("cases/14/case", "send.1_byte"),
				JSON_STRING("cases/14/result", "fail"),
				JSON_NO("cases/14/status"),
				JSON_STRING("cases/14/reason",
					    "not run: size needs more SGEs than the device has"),
				JSON_STRING("cases/28/case", "write_imm.1_byte"),
				JSON_STRING("cases/28/result", "fail"),
				JSON_NUM("cases/28/status", 0),
				JSON_STRING("cases/28/reason",
					    "status 0, but not every iteration completed and validated"),
				/* the others, and those after, all run */
				JSON_STRING("cases/21/result", "pass"),
				JSON_STRING("cases/36/result", "pass"),
				JSON_NUM("passed", 36), JSON_NUM("failed", 31),
				JSON_NUM("skipped", 1) } },
		{ .what = "^C", .kernel = k_conform, .setup = conform_setup,
		  .mode = CF_SLOW, .json = true, .sigint = 1,
		  .line = "conform session s1", .rc = EXIT_INTR,
		  .last_req = KRDMA_CMD_TEST_STOP,
		  .json_has = { JSON_LEN("cases", 1), JSON_TRUE("interrupted"),
				JSON_STRING("cases/0/result", "stopped"),
				JSON_NUM("cases/0/iters", 3),
				JSON_NO("cases/0/reason"),
				JSON_NUM("passed", 0), JSON_NUM("failed", 0) } },
		{ .what = "a session not up", .kernel = k_conform,
		  .setup = conform_setup, .mode = CF_DOWN,
		  .line = "conform session s1", .rc = EXIT_ERR, REQS(1),
		  .err = "krdmactl: conform: session 5 is not up\n" },
	};

	CHECK_CMDS(cases);
}

TEST(cmd_conform_max_sge)
{
	check_cmd(&(const struct cmd_case){
		.kernel = k_conform, .setup = conform_setup, .json = true,
		.line = "conform session s1 case send.max_sge",
		.err = "", .rc = EXIT_OK, REQS(7),
		/* over a session of its own asking the device's 32 SGEs */
		.req_cmds = { KRDMA_CMD_SESSION_GET, KRDMA_CMD_DEV_GET,
			      KRDMA_CMD_SESSION_NEW, KRDMA_CMD_SESSION_GET,
			      KRDMA_CMD_TEST_START, KRDMA_CMD_SESSION_GET,
			      KRDMA_CMD_SESSION_DEL },
		.sent = { SENT_IN(2, KRDMA_A_SESSION_MAX_SGE, 32),
			  SENT_IN(4, KRDMA_A_TEST_OP, KRDMA_OP_SEND),
			  SENT_IN(4, KRDMA_A_SESSION_ID, 30),
			  SENT_IN(4, KRDMA_A_TEST_SGES, 32),
			  SENT_IN(4, KRDMA_A_TEST_SIZE, 1000) },
		.json_has = { JSON_NUM("cases/0/sges", 32),
			      JSON_STRING("cases/0/result", "pass") },
	});
	/* A READ's: its session's max_read_sge (the fake's 30). */
	check_cmd(&(const struct cmd_case){
		.kernel = k_conform, .setup = conform_setup, .json = true,
		.line = "conform session s1 case read.max_sge",
		.err = "", .rc = EXIT_OK, REQS(7),
		.sent = { SENT_IN(2, KRDMA_A_SESSION_MAX_SGE, 32),
			  SENT_IN(4, KRDMA_A_TEST_OP, KRDMA_OP_READ),
			  SENT_IN(4, KRDMA_A_TEST_SGES, 30),
			  SENT_IN(4, KRDMA_A_TEST_SIZE, 1000) },
		.json_has = { JSON_NUM("cases/0/sges", 30),
			      JSON_STRING("cases/0/result", "pass") },
	});
}

/* The REG_MR behind each SEND: the RNR retried case's session and test. */
TEST(cmd_conform_reg_behind)
{
	static const struct cmd_case cases[] = {
		/* send.rnr_retried's session and test, a REG_MR behind each */
		{ .kernel = k_conform, .setup = conform_setup, .json = true,
		  .line = "conform session s1 case send.reg_mr_behind_retried",
		  .err = "", .rc = EXIT_OK, REQS(6),
		  .req_cmds = CONFORM_OWN_SESSION_CMDS,
		  .sent = { SENT_IN(2, KRDMA_A_SESSION_RQ_DEPTH, 8),
			    SENT_IN(2, KRDMA_A_SESSION_RNR_RETRY, 7),
			    SENT_IN(3, KRDMA_A_TEST_OP, KRDMA_OP_SEND),
			    SENT_IN(3, KRDMA_A_TEST_REG_BEHIND, 1),
			    SENT_IN(3, KRDMA_A_TEST_RNR_HOLD, 1),
			    SENT_IN(3, KRDMA_A_TEST_COUNT, 16) },
		  .json_has = { JSON_TRUE("cases/0/reg_behind"),
				JSON_TRUE("cases/0/rnr_hold"),
				JSON_STRING("cases/0/result", "pass"),
				JSON_NO("cases/0/wc_status") } },
		/* rxe: the REG_MR ran again after the NAKed SEND went again */
		{ .what = "rxe", .kernel = k_conform, .setup = conform_setup,
		  .mode = CF_REG_TWICE, .json = true,
		  .line = "conform session s1 case send.reg_mr_behind",
		  .err_has = { "test 20 failed: iteration 12: the REG_MR behind the SEND: local QP operation error\n" },
		  .rc = EXIT_CONFORM_FAIL,
		  .json_has = { JSON_STRING("cases/0/result", "fail"),
				JSON_NUM("cases/0/wc_status", 2),
				JSON_STRING("cases/0/wc_status_name",
					    "local QP operation error"),
				JSON_NUM("failed", 1) } },
		/* send.rnr_retried asks for none */
		{ .kernel = k_conform, .setup = conform_setup,
		  .line = "conform session s1 case send.rnr_retried",
		  .err = "", .rc = EXIT_OK, REQS(6),
		  .sent = { NOT_SENT_IN(3, KRDMA_A_TEST_REG_BEHIND) } },
	};

	CHECK_CMDS(cases);
}

/* The RNR retried case: 16 SENDs, 4 at a time, over a session of rq_depth 8. */
TEST(cmd_conform_rnr_depth)
{
	check_cmd(&(const struct cmd_case){
		.kernel = k_conform, .setup = conform_setup, .json = true,
		.line = "conform session s1 case send.rnr_retried",
		.err = "", .rc = EXIT_OK, REQS(6),
		.req_cmds = CONFORM_OWN_SESSION_CMDS,
		.sent = { SENT_IN(2, KRDMA_A_SESSION_RQ_DEPTH, 8),
			  SENT_IN(2, KRDMA_A_SESSION_RNR_RETRY, 7),
			  SENT_IN(3, KRDMA_A_TEST_RNR_HOLD, 1),
			  SENT_IN(3, KRDMA_A_TEST_COUNT, 16),
			  SENT_IN(3, KRDMA_A_TEST_DEPTH, 4) },
		.json_has = { JSON_STRING("cases/0/result", "pass") },
	});
}

/* Spurious retransmissions: a session of its own at the shortest timeout. */
TEST(cmd_conform_ack_timeout)
{
	static const struct cmd_case cases[] = {
		{ .kernel = k_conform, .setup = conform_setup, .json = true,
		  .line = "conform session s1 case write.ack_timeout_min",
		  .err = "", .rc = EXIT_OK, REQS(6),
		  .req_cmds = CONFORM_OWN_SESSION_CMDS,
		  .sent = { SENT_IN(2, KRDMA_A_SESSION_ACK_TIMEOUT, 8),
			    SENT_IN(2, KRDMA_A_SESSION_SQ_DEPTH, 512),
			    SENT_IN(2, KRDMA_A_SESSION_MAX_MSG_SIZE, 65536),
			    SENT_IN(3, KRDMA_A_TEST_OP, KRDMA_OP_WRITE),
			    SENT_IN(3, KRDMA_A_TEST_SIZE, 65536),
			    SENT_IN(3, KRDMA_A_TEST_COUNT, 256),
			    SENT_IN(3, KRDMA_A_TEST_DEPTH, 24) },
		  .json_has = { JSON_STRING("cases/0/result", "pass"),
				JSON_NUM("cases/0/ack_timeout", 8),
				JSON_NUM("cases/0/iters", 256) } },
		{ .what = "text", .kernel = k_conform, .setup = conform_setup,
		  .line = "conform session s1 case write.ack_timeout_min",
		  .err = "", .rc = EXIT_OK,
		  .out_has = { "write.ack_timeout_min        write           65536  pass ACK timeout 8, 256 validated of 256 iterations of 256\n" } },
		/* the other cases' sessions take the module's */
		{ .kernel = k_conform, .setup = conform_setup,
		  .line = "conform session s1 case read.0_bytes_behind_data",
		  .err = "", .rc = EXIT_OK, REQS(6),
		  .sent = { NOT_SENT_IN(2, KRDMA_A_SESSION_ACK_TIMEOUT),
			    NOT_SENT_IN(2, KRDMA_A_SESSION_SQ_DEPTH) } },
	};
	char root[] = "/tmp/krdma-unit-sysfs.XXXXXX", cmd[128];

	CHECK_CMDS(cases);
	/* iWARP (rxe0's node_type an RNIC): TCP's retransmissions. */
	CHECK(mkdtemp(root) != NULL);
	put_file(root, "class/infiniband/rxe0/node_type", "4: RNIC\n");
	env_sysfs_root = root;
	check_cmd(&(const struct cmd_case){
		.kernel = k_conform, .setup = conform_setup, .mode = CF_IWARP,
		.json = true, .line = "conform session s1 case write.ack_timeout_min",
		.err = "", .rc = EXIT_OK, REQS(2),
		.json_has = { JSON_STRING("cases/0/result", "skip"),
			      JSON_STRING("cases/0/reason",
					  "iWARP's QPs have no ACK timeout: TCP retransmits") },
	});
	env_sysfs_root = "/sys";
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK_INT(system(cmd), 0);
	/* Messages of one packet have no rest to resend. */
	conform_max_msg = 1000;
	check_cmd(&(const struct cmd_case){
		.kernel = k_conform, .setup = conform_setup, .json = true,
		.line = "conform session s1 case write.ack_timeout_min",
		.err = "", .rc = EXIT_OK, REQS(2),
		.json_has = { JSON_STRING("cases/0/result", "skip"),
			      JSON_STRING("cases/0/reason",
					  "needs messages of several packets: the session's max_msg is not above the MTU") },
	});
	conform_max_msg = 0;
}

/* The fenced READ after a WRITE: a write test with read-back. */
TEST(cmd_conform_read_back)
{
	static const struct cmd_case cases[] = {
		/* over a session of its own, of the session's max_msg */
		{ .kernel = k_conform, .setup = conform_setup, .json = true,
		  .line = "conform session s1 case read.fenced_after_write",
		  .err = "", .rc = EXIT_OK, REQS(6),
		  .req_cmds = CONFORM_OWN_SESSION_CMDS,
		  .sent = { SENT_IN(2, KRDMA_A_SESSION_MAX_MSG_SIZE, 65536),
			    SENT_IN(3, KRDMA_A_SESSION_ID, 30),
			    SENT_IN(3, KRDMA_A_TEST_OP, KRDMA_OP_WRITE),
			    SENT_IN(3, KRDMA_A_TEST_READ_BACK, 1),
			    SENT_IN(3, KRDMA_A_TEST_SIZE, 8199),
			    SENT_IN(4, KRDMA_A_SESSION_ID, 5),
			    SENT_IN(5, KRDMA_A_SESSION_ID, 30) },
		  .json_has = { JSON_TRUE("cases/0/read_back"),
				JSON_STRING("cases/0/op", "read"),
				JSON_STRING("cases/0/result", "pass") } },
		{ .what = "no session of its own", .kernel = k_conform,
		  .setup = conform_setup, .mode = CF_NEG_REFUSED, .json = true,
		  .line = "conform session s1 case read.fenced_after_write",
		  .rc = EXIT_CONFORM_FAIL,
		  .json_has = { JSON_STRING("cases/0/result", "fail"),
				JSON_NO("cases/0/test_id") } },
		{ .what = "the server's end", .kernel = k_conform,
		  .setup = conform_setup, .mode = CF_SERVER, .json = true,
		  .line = "conform session s1 case read.fenced_after_write",
		  .err = "", .rc = EXIT_OK,
		  .json_has = { JSON_STRING("cases/0/result", "skip"),
				JSON_STRING("cases/0/reason",
					    "this case connects a session of its own to the peer's listener: run conform on the side that connected") } },
		/* the other cases ask no read-back */
		{ .kernel = k_conform, .setup = conform_setup, .json = true,
		  .line = "conform session s1 case write.two_pages_plus_7",
		  .err = "", .rc = EXIT_OK, REQS(3),
		  .sent = { SENT_IN(2, KRDMA_A_TEST_OP, KRDMA_OP_WRITE),
			    NOT_SENT_IN(2, KRDMA_A_TEST_READ_BACK) },
		  .json_has = { JSON_NO("cases/0/read_back") } },
		{ .what = "a peer of version 4", .kernel = k_conform,
		  .setup = conform_setup, .mode = CF_OLD_PEER, .json = true,
		  .line = "conform session s1 case read.fenced_after_write",
		  .err = "", .rc = EXIT_OK, REQS(2),
		  .json_has = { JSON_STRING("cases/0/result", "skip"),
				JSON_STRING("cases/0/reason",
					    "the peer's krdma predates read-back (protocol version 5)"),
				JSON_NUM("skipped", 1) } },
	};

	CHECK_CMDS(cases);
}

/* A SEND_WITH_INV of a key of the peer's: a send test that asks it. */
TEST(cmd_conform_send_invalidate)
{
	static const struct cmd_case cases[] = {
		/* over the session, at the MTU + 1 */
		{ .kernel = k_conform, .setup = conform_setup, .json = true,
		  .line = "conform session s1 case send.with_invalidate",
		  .err = "", .rc = EXIT_OK, REQS(3),
		  .req_cmds = { KRDMA_CMD_SESSION_GET, KRDMA_CMD_DEV_GET,
				KRDMA_CMD_TEST_START },
		  .sent = { SENT_IN(2, KRDMA_A_SESSION_ID, 5),
			    SENT_IN(2, KRDMA_A_TEST_OP, KRDMA_OP_SEND),
			    SENT_IN(2, KRDMA_A_TEST_SEND_INVALIDATE, 1),
			    SENT_IN(2, KRDMA_A_TEST_SIZE, 1025) },
		  .json_has = { JSON_TRUE("cases/0/send_invalidate"),
				JSON_STRING("cases/0/op", "send"),
				JSON_STRING("cases/0/result", "pass") } },
		{ .what = "text", .kernel = k_conform, .setup = conform_setup,
		  .line = "conform session s1 case send.with_invalidate",
		  .err = "", .rc = EXIT_OK,
		  .out_has = { "send.with_invalidate         send             1025  pass each SEND invalidated the peer's key, 8 validated of 8 iterations of 8\n" } },
		/* its negative case: a WRITE through the key, its own session */
		{ .kernel = k_conform, .setup = conform_setup, .json = true,
		  .line = "conform session s1 case write.send_invalidated_rkey",
		  .err = "", .rc = EXIT_OK, REQS(6),
		  .req_cmds = CONFORM_OWN_SESSION_CMDS,
		  .sent = { SENT_IN(3, KRDMA_A_TEST_OP, KRDMA_OP_SEND),
			    SENT_IN(3, KRDMA_A_TEST_SEND_INVALIDATE, 1),
			    SENT_IN(3, KRDMA_A_TEST_VIOLATE,
				    KRDMA_VIOLATE_SEND_INVALIDATED_RKEY),
			    SENT_IN(3, KRDMA_A_TEST_SIZE, 1) },
		  .json_has = { JSON_STRING("cases/0/op", "write"),
				JSON_STRING("cases/0/violate", "send_invalidated_rkey"),
				JSON_TRUE("cases/0/send_invalidate"),
				JSON_NUM("cases/0/expect_wc_status", 10),
				JSON_STRING("cases/0/result", "pass") } },
		/* the other sends ask none */
		{ .kernel = k_conform, .setup = conform_setup, .json = true,
		  .line = "conform session s1 case send.mtu_plus_1",
		  .err = "", .rc = EXIT_OK, REQS(3),
		  .sent = { NOT_SENT_IN(2, KRDMA_A_TEST_SEND_INVALIDATE) },
		  .json_has = { JSON_NO("cases/0/send_invalidate") } },
		{ .what = "a peer of version 4", .kernel = k_conform,
		  .setup = conform_setup, .mode = CF_OLD_PEER, .json = true,
		  .line = "conform session s1 case send.with_invalidate",
		  .err = "", .rc = EXIT_OK, REQS(2),
		  .json_has = { JSON_STRING("cases/0/result", "skip"),
				JSON_STRING("cases/0/reason",
					    "the peer's krdma predates SEND_WITH_INV tests (protocol version 6)"),
				JSON_NUM("skipped", 1) } },
	};

	CHECK_CMDS(cases);
}

/* WRs of 0 bytes: a target of 1 byte, shown as what they move. */
TEST(cmd_conform_zero_read_behind)
{
	static const struct cmd_case cases[] = {
		/* over a session of its own, of the session's max_msg */
		{ .kernel = k_conform, .setup = conform_setup, .json = true,
		  .line = "conform session s1 case read.0_bytes_behind",
		  .err = "", .rc = EXIT_OK, REQS(6),
		  .req_cmds = CONFORM_OWN_SESSION_CMDS,
		  .sent = { SENT_IN(2, KRDMA_A_SESSION_MAX_MSG_SIZE, 65536),
			    SENT_IN(3, KRDMA_A_SESSION_ID, 30),
			    SENT_IN(3, KRDMA_A_TEST_OP, KRDMA_OP_READ),
			    SENT_IN(3, KRDMA_A_TEST_ZERO_READ_BEHIND, 1),
			    NOT_SENT_IN(3, KRDMA_A_TEST_ZERO_LENGTH),
			    SENT_IN(3, KRDMA_A_TEST_SIZE, 65536) },
		  .json_has = { JSON_TRUE("cases/0/zero_read_behind"),
				JSON_NUM("cases/0/size", 65536),
				JSON_STRING("cases/0/result", "pass"),
				JSON_NO("cases/0/wc_status") } },
		/* siw: what came instead, the failed completion's status */
		{ .what = "siw", .kernel = k_conform, .setup = conform_setup,
		  .mode = CF_ZERO_BEHIND_FAILS, .json = true,
		  .line = "conform session s1 case read.0_bytes_behind",
		  .err_has = { "test 20 failed: iteration 0: the READ of 0 bytes: local length error\n" },
		  .rc = EXIT_CONFORM_FAIL,
		  .json_has = { JSON_STRING("cases/0/result", "fail"),
				JSON_NUM("cases/0/status", -EIO),
				JSON_NUM("cases/0/wc_status", 1),
				JSON_STRING("cases/0/wc_status_name",
					    "local length error"),
				JSON_STRING("cases/0/reason",
					    "status -5 (Input/output error): iteration 0: the READ of 0 bytes: local length error"),
				JSON_NUM("failed", 1) } },
		{ .what = "siw, text", .kernel = k_conform,
		  .setup = conform_setup, .mode = CF_ZERO_BEHIND_FAILS,
		  .line = "conform session s1 case read.0_bytes_behind",
		  .err_has = { "test 20 failed: iteration 0: the READ of 0 bytes: local length error\n" },
		  .rc = EXIT_CONFORM_FAIL,
		  .out_has = { "read.0_bytes_behind_data     read            65536  fail 0 validated of 0 iterations of 8; status -5 (Input/output error): iteration 0: the READ of 0 bytes: local length error\n" } },
		/* the other reads ask for none */
		{ .kernel = k_conform, .setup = conform_setup,
		  .line = "conform session s1 case read.max_msg",
		  .err = "", .rc = EXIT_OK, REQS(3),
		  .sent = { NOT_SENT_IN(2, KRDMA_A_TEST_ZERO_READ_BEHIND) } },
	};

	CHECK_CMDS(cases);
}

TEST(cmd_conform_zero_length)
{
	static const struct cmd_case cases[] = {
		/* over a session of its own: a post refused ends it */
		{ .kernel = k_conform, .setup = conform_setup, .json = true,
		  .line = "conform session s1 case read.0_bytes",
		  .err = "", .rc = EXIT_OK, REQS(6),
		  .req_cmds = CONFORM_OWN_SESSION_CMDS,
		  .sent = { SENT_IN(3, KRDMA_A_SESSION_ID, 30),
			    SENT_IN(3, KRDMA_A_TEST_OP, KRDMA_OP_READ),
			    SENT_IN(3, KRDMA_A_TEST_ZERO_LENGTH, 1),
			    SENT_IN(3, KRDMA_A_TEST_SIZE, 1) },
		  .json_has = { JSON_TRUE("cases/0/zero_length"),
				JSON_NUM("cases/0/size", 0),
				JSON_STRING("cases/0/result", "pass") } },
		{ .what = "text", .kernel = k_conform, .setup = conform_setup,
		  .line = "conform session s1 case write_imm.0",
		  .err = "", .rc = EXIT_OK,
		  .out_has = { "write_imm.0_bytes            write_imm           0  pass 8 validated of 8 iterations of 8\n" } },
		{ .kernel = k_none, .line = "conform session s1 case list",
		  .rc = EXIT_OK, REQS(0), .err = "",
		  .out_has = { "\nwrite.0_bytes                write               0  data validated\n" } },
		/* the other cases ask for none */
		{ .kernel = k_conform, .setup = conform_setup, .json = true,
		  .line = "conform session s1 case read.1_byte",
		  .err = "", .rc = EXIT_OK, REQS(3),
		  .sent = { NOT_SENT_IN(2, KRDMA_A_TEST_ZERO_LENGTH) },
		  .json_has = { JSON_NO("cases/0/zero_length") } },
		{ .what = "a peer of version 4", .kernel = k_conform,
		  .setup = conform_setup, .mode = CF_OLD_PEER, .json = true,
		  .line = "conform session s1 case write.0_bytes",
		  .err = "", .rc = EXIT_OK, REQS(2),
		  .json_has = { JSON_STRING("cases/0/result", "skip"),
				JSON_STRING("cases/0/reason",
					    "the peer's krdma predates zero-length tests (protocol version 6)"),
				JSON_NO("cases/0/size"),
				JSON_NUM("skipped", 1) } },
	};

	CHECK_CMDS(cases);
}

/* Every word of a 4 KiB atomics target once; an atomic half a word in. */
TEST(cmd_conform_atomic_targets)
{
	static const struct cmd_case cases[] = {
		{ .kernel = k_conform, .setup = conform_setup, .mode = CF_ATOMICS,
		  .json = true, .line = "conform session s1 case atomic_cswap.every_offset",
		  .err = "", .rc = EXIT_OK, REQS(3),
		  .sent = { SENT_IN(2, KRDMA_A_TEST_OP, KRDMA_OP_ATOMIC_CSWAP),
			    SENT_IN(2, KRDMA_A_TEST_SIZE, 4096),
			    SENT_IN(2, KRDMA_A_TEST_COUNT, 512),
			    SENT_IN(2, KRDMA_A_TEST_DEPTH, 1) },
		  .json_has = { JSON_NUM("cases/0/size", 4096),
				JSON_NUM("cases/0/count", 512),
				JSON_STRING("cases/0/result", "pass") } },
		/* 8 bytes is the kernel's default: not asked */
		{ .kernel = k_conform, .setup = conform_setup, .mode = CF_ATOMICS,
		  .json = true, .line = "conform session s1 case atomic_fadd.8_bytes",
		  .err = "", .rc = EXIT_OK, REQS(3),
		  .sent = { NOT_SENT_IN(2, KRDMA_A_TEST_SIZE),
			    NOT_SENT_IN(2, KRDMA_A_TEST_DEPTH),
			    SENT_IN(2, KRDMA_A_TEST_COUNT, 8) } },
		{ .kernel = k_conform, .setup = conform_setup, .mode = CF_ATOMICS,
		  .json = true, .line = "conform session s1 case atomic_fadd.unaligned",
		  .err = "", .rc = EXIT_OK,
		  .json_has = { JSON_NUM("cases/0/size", 16),
				JSON_STRING("cases/0/violate", "unaligned"),
				JSON_NUM("cases/0/wc_status", 9),
				JSON_STRING("cases/0/result", "pass") } },
		/* refused at post, as rxe does: a pass; but not another case */
		{ .what = "refused at post", .kernel = k_conform,
		  .setup = conform_setup, .mode = CF_ATOMICS | CF_POST_REFUSES,
		  .line = "conform session s1 case atomic_fadd.unaligned",
		  .err = "", .rc = EXIT_OK,
		  .out_has = { "atomic_fadd.unaligned        atomic_fadd        16  pass expect remote invalid request error or a refusal at post, got cannot post: -EINVAL\n" } },
		{ .what = "refused at post", .kernel = k_conform,
		  .setup = conform_setup, .mode = CF_ATOMICS | CF_POST_REFUSES,
		  .json = true, .line = "conform session s1 case atomic_fadd.unaligned",
		  .err = "", .rc = EXIT_OK,
		  .json_has = { JSON_TRUE("cases/0/refused_at_post"),
				JSON_NO("cases/0/wc_status"),
				JSON_NUM("cases/0/status", -EINVAL),
				JSON_STRING("cases/0/result", "pass") } },
		{ .what = "another refused at post", .kernel = k_conform,
		  .setup = conform_setup,
		  .mode = CF_ATOMICS | CF_POST_REFUSES | CF_NEG_WRONG,
		  .json = true, .line = "conform session s1 case atomic_cswap.stale_rkey",
		  .rc = EXIT_CONFORM_FAIL,
		  .json_has = { JSON_NO("cases/0/refused_at_post"),
				JSON_STRING("cases/0/reason",
					    "no completion failed: cannot post: -EINVAL"),
				JSON_STRING("cases/0/result", "fail") } },
		{ .what = "a peer of version 4", .kernel = k_conform,
		  .setup = conform_setup, .mode = CF_ATOMICS | CF_OLD_PEER,
		  .json = true, .line = "conform session s1 case atomic_fadd.every_offset",
		  .err = "", .rc = EXIT_OK, REQS(2),
		  .json_has = { JSON_STRING("cases/0/result", "skip"),
				JSON_STRING("cases/0/reason",
					    "the peer's krdma predates atomics targets of more than 8 bytes (protocol version 5)") } },
	};

	CHECK_CMDS(cases);
}

TEST(cmd_conform_atomic_variant)
{
	check_cmd(&(const struct cmd_case){
		.kernel = k_conform, .setup = conform_setup, .mode = CF_ATOMICS,
		.json = true, .line = "conform session s1 case atomic_cswap.miss",
		.err = "", .rc = EXIT_OK, REQS(3),
		.sent = { SENT_IN(2, KRDMA_A_TEST_OP, KRDMA_OP_ATOMIC_CSWAP),
			  SENT_IN(2, KRDMA_A_TEST_ATOMIC_VARIANT, KRDMA_ATOMIC_CSWAP_MISS),
			  SENT_IN(2, KRDMA_A_TEST_COUNT, 8),
			  NOT_SENT_IN(2, KRDMA_A_TEST_VIOLATE) },
		.json_has = { JSON_STRING("cases/0/case", "atomic_cswap.miss"),
			      JSON_STRING("cases/0/atomic_variant", "cswap_miss"),
			      JSON_STRING("cases/0/result", "pass") },
	});
}

TEST(cmd_conform_negative)
{
	const struct cmd_case cases[] = {
		{ .what = "one, as the specification says", .kernel = k_conform,
		  .setup = conform_setup, .json = true,
		  .line = "conform session s1 case write.out_of_bounds",
		  .err = "", .rc = EXIT_OK, REQS(6),
		  /* session 5, rxe0, a session of its own from 10.0.0.1 to
		   * the peer's listener, the test, session 5 still up, the
		   * case's session deleted */
		  .req_cmds = CONFORM_OWN_SESSION_CMDS,
		  .sent = { { .type = KRDMA_A_PEER_ADDR, .name = "peer", .req = 2,
			      .how = SENT_ENDPOINT, .str = "10.0.0.2", .port = 7471 },
			    { .type = KRDMA_A_LOCAL_ADDR, .name = "local", .req = 2,
			      .how = SENT_ENDPOINT, .str = "10.0.0.1", .port = -1 },
			    SENT_IN(2, KRDMA_A_SESSION_MAX_MSG_SIZE, 4096),
			    SENT_IN(3, KRDMA_A_SESSION_ID, 30),
			    SENT_IN(3, KRDMA_A_TEST_VIOLATE, KRDMA_VIOLATE_OUT_OF_BOUNDS),
			    SENT_IN(3, KRDMA_A_TEST_COUNT, 1),
			    SENT_IN(3, KRDMA_A_TEST_DEPTH, 1),
			    SENT_IN(3, KRDMA_A_TEST_SIZE, 1),
			    SENT_IN(4, KRDMA_A_SESSION_ID, 5),
			    SENT_IN(5, KRDMA_A_SESSION_ID, 30) },
		  .json_has = { JSON_STRING("cases/0/case", "write.out_of_bounds"),
				JSON_STRING("cases/0/result", "pass"),
				JSON_STRING("cases/0/violate", "out_of_bounds"),
				JSON_NUM("cases/0/expect_wc_status", 10),
				JSON_NUM("cases/0/wc_status", 10),
				JSON_STRING("cases/0/wc_status_name", "remote access error"),
				JSON_NUM("cases/0/status", -EIO),
				JSON_NO("cases/0/reason"),
				JSON_NUM("passed", 1) } },
		{ .what = "the long SEND", .kernel = k_conform,
		  .setup = conform_setup, .json = true,
		  .line = "conform session s1 case send.longer",
		  .rc = EXIT_OK,
		  .sent = { SENT_IN(3, KRDMA_A_TEST_SIZE, 4096),
			    SENT_IN(3, KRDMA_A_TEST_VIOLATE, KRDMA_VIOLATE_LONG_SEND) },
		  .json_has = { JSON_NUM("cases/0/size", 4096),
				JSON_NUM("cases/0/wc_status", 9),
				JSON_STRING("cases/0/result", "pass") } },
		{ .what = "a read test's region written into", .kernel = k_conform,
		  .setup = conform_setup, .json = true,
		  .line = "conform session s1 case write.read_only",
		  .rc = EXIT_OK,
		  .sent = { SENT_IN(3, KRDMA_A_TEST_OP, KRDMA_OP_READ),
			    SENT_IN(3, KRDMA_A_TEST_VIOLATE, KRDMA_VIOLATE_NO_ACCESS) },
		  .json_has = { JSON_STRING("cases/0/op", "write"),
				JSON_STRING("cases/0/result", "pass") } },
		{ .what = "the device lets it through", .kernel = k_conform,
		  .setup = conform_setup, .mode = CF_NEG_DONE, .json = true,
		  .line = "conform session s1 case write.out_of_bounds",
		  .rc = EXIT_CONFORM_FAIL, REQS(5),
		  .json_has = { JSON_STRING("cases/0/result", "fail"),
				JSON_NO("cases/0/wc_status"),
				JSON_STRING("cases/0/reason",
					    "the device did it: status 0, 1 validated"),
				JSON_NUM("failed", 1) } },
		{ .what = "another status", .kernel = k_conform,
		  .setup = conform_setup, .mode = CF_NEG_WRONG, .json = true,
		  .line = "conform session s1 case read.stale_rkey",
		  .rc = EXIT_CONFORM_FAIL, REQS(5),
		  .last_req = KRDMA_CMD_SESSION_DEL,
		  .json_has = { JSON_STRING("cases/0/result", "fail"),
				JSON_NUM("cases/0/wc_status", 4),
				JSON_STRING("cases/0/wc_status_name",
					    "local protection error"),
				JSON_STRING("cases/0/reason",
					    "iteration 0: local protection error") } },
		{ .what = "text", .kernel = k_conform, .setup = conform_setup,
		  .mode = CF_NEG_WRONG | CF_ATOMICS,
		  .line = "conform session s1 case atomic_fadd.out", .rc = EXIT_CONFORM_FAIL,
		  .out_has = { "atomic_fadd.out_of_bounds    atomic_fadd         8  fail expect remote access error, got local protection error; iteration 0: local protection error\n",
			       "0 passed, 1 failed, 0 skipped\n" } },
		{ .what = "no session to the peer", .kernel = k_conform,
		  .setup = conform_setup, .mode = CF_NEG_REFUSED, .json = true,
		  .line = "conform session s1 case write.stale_rkey",
		  .rc = EXIT_CONFORM_FAIL, REQS(4),
		  .last_req = KRDMA_CMD_SESSION_DEL,
		  .json_has = { JSON_STRING("cases/0/result", "fail"),
				JSON_NO("cases/0/test_id"),
				JSON_STRING("cases/0/reason",
					    "no session to the peer's listener: rejected by peer") } },
		{ .what = "from the server's end", .kernel = k_conform,
		  .setup = conform_setup, .mode = CF_SERVER, .json = true,
		  .line = "conform session s1 case write.stale_rkey",
		  .rc = EXIT_OK, REQS(2),
		  .json_has = { JSON_STRING("cases/0/result", "skip"),
				JSON_STRING("cases/0/reason",
					    "a negative case connects a session of its own to the peer's listener: run conform on the side that connected") } },
	};

	CHECK_CMDS(cases);
}

/* On iWARP (rxe0's node_type an RNIC): the connection terminated. */
TEST(cmd_conform_negative_iwarp)
{
	const struct cmd_case cases[] = {
		{ .what = "the peer terminated", .kernel = k_conform,
		  .setup = conform_setup, .mode = CF_IWARP, .json = true,
		  .line = "conform session s1 case write.out_of_bounds",
		  .err = "", .rc = EXIT_OK, REQS(6),
		  .json_has = { JSON_STRING("cases/0/result", "pass"),
				JSON_STRING("cases/0/expect", "the connection terminated"),
				JSON_NO("cases/0/expect_wc_status"),
				JSON_NO("cases/0/wc_status"),
				JSON_NUM("cases/0/status", -ECONNRESET),
				JSON_NO("cases/0/reason") } },
		{ .what = "text", .kernel = k_conform, .setup = conform_setup,
		  .mode = CF_IWARP, .line = "conform session s1 case send.longer",
		  .rc = EXIT_OK,
		  .out_has = { "send.longer_than_receive     send             4096  pass expect the connection terminated, got the connection terminated\n" } },
		{ .what = "in flight when the TERMINATE came", .kernel = k_conform,
		  .setup = conform_setup, .mode = CF_IWARP | CF_IWARP_INFLIGHT,
		  .line = "conform session s1 case send.longer", .rc = EXIT_OK,
		  .out_has = { "send.longer_than_receive     send             4096  pass expect the connection terminated, got local QP operation error (the connection terminated)\n" } },
		{ .what = "the peer let it through", .kernel = k_conform,
		  .setup = conform_setup, .mode = CF_IWARP | CF_NEG_WRONG,
		  .json = true, .line = "conform session s1 case write.read_only",
		  .rc = EXIT_CONFORM_FAIL, REQS(5),
		  .json_has = { JSON_STRING("cases/0/result", "fail"),
				JSON_NUM("cases/0/status", -ETIMEDOUT),
				JSON_STRING("cases/0/reason",
					    "session closed: test 20 stalled for 30000 ms") } },
		{ .what = "no atomics there", .kernel = k_conform,
		  .setup = conform_setup, .mode = CF_IWARP | CF_ATOMICS,
		  .json = true, .line = "conform session s1 case atomic_fadd.out",
		  .rc = EXIT_OK, REQS(2),
		  .json_has = { JSON_STRING("cases/0/result", "skip"),
				JSON_STRING("cases/0/reason", "iWARP has no RDMA atomics") } },
	};
	char root[] = "/tmp/krdma-unit-sysfs.XXXXXX", cmd[128];

	CHECK(mkdtemp(root) != NULL);
	put_file(root, "class/infiniband/rxe0/node_type", "4: RNIC\n");
	env_sysfs_root = root;
	CHECK_CMDS(cases);
	env_sysfs_root = "/sys";
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK_INT(system(cmd), 0);
}

TEST(cmd_conform_max_msg)
{
	/* A session of max_msg 1000: none of the MTU's sizes fit. */
	conform_max_msg = 1000;
	check_cmd(&(const struct cmd_case){
		.kernel = k_conform, .setup = conform_setup, .json = true,
		.line = "conform session 5", .rc = EXIT_OK,
		.json_has = { JSON_NUM("max_msg", 1000),
			      JSON_STRING("cases/0/result", "pass"),
			      JSON_STRING("cases/1/case", "write.mtu_minus_1"),
			      JSON_STRING("cases/1/result", "skip"),
			      JSON_STRING("cases/1/reason",
					  "larger than the session's max_msg"),
			      JSON_NO("cases/1/size"),
			      JSON_STRING("cases/6/result", "pass"),
			      JSON_NUM("cases/6/size", 1000),
			      /* 1 byte and max_msg of 5 ops, and the
			       * negative cases but the atomics' (their
			       * sessions' max_msg is their own) */
			      JSON_STRING("cases/63/result", "pass"),
			      JSON_NUM("cases/63/size", 4096),
			      JSON_NUM("passed", 31),
			      JSON_NUM("skipped", 37) },
	});
	conform_max_msg = 0;
}

TEST(cmd_conform_refused)
{
	static const struct refusal refused[] = {
		{ "conform", "missing required keyword 'session'" },
		{ "conform case write.mtu", "missing required keyword 'session'" },
		{ "conform session", "keyword 'session' needs a value" },
		{ "conform session s1 case", "keyword 'case' needs a value" },
		{ "conform session s1 case nope",
		  "unknown case 'nope' (\"case list\" lists them)" },
		{ "conform session s1 case write",
		  "ambiguous case 'write'" },
		{ "conform session s1 case write.mtu case read.mtu",
		  "duplicate keyword 'case'" },
		{ "conform session s1 op write", "unknown keyword 'op'" },
	};

	CHECK_REFUSALS(k_conform, refused);
}

TEST(cmd_conform_list)
{
	static const struct cmd_case cases[] = {
		/* no module needed: nothing is asked */
		{ .kernel = k_none, .line = "conform session s1 case list",
		  .rc = EXIT_OK, REQS(0), .err = "",
		  .out_starts = "CASE                         OP               SIZE  EXPECT\n"
				"write.1_byte                 write               1  data validated\n",
		  .out_has = { "\nsend_imm.mtu_plus_1          send_imm        MTU+1  data validated\n",
			       "\nread.two_pages_plus_7        read         2*PAGE+7  data validated\n",
			       "\natomic_cswap.8_bytes         atomic_cswap        8  data validated\n",
			       "\nwrite.read_only_region       write               1  remote access error\n",
			       "\nsend.longer_than_receive     send          max_msg  remote invalid request error\n" } },
		{ .kernel = k_none, .json = true,
		  .line = "conform session s1 case list", .rc = EXIT_OK,
		  REQS(0),
		  .json_has = { JSON_LEN("", 68),
				JSON_STRING("3/case", "write.mtu_plus_1"),
				JSON_STRING("3/op", "write"),
				JSON_STRING("3/size", "MTU+1"),
				JSON_NO("3/violate"),
				JSON_STRING("61/case", "write.read_only_region"),
				JSON_STRING("61/op", "write"),
				JSON_STRING("61/violate", "no_access"),
				JSON_NUM("61/expect_wc_status", 10),
				JSON_STRING("62/violate", "unaligned"),
				JSON_NUM("62/expect_wc_status", 9),
				JSON_TRUE("67/rnr_hold"),
				JSON_NUM("67/expect_wc_status", 13),
				JSON_NO("67/violate"),
				JSON_STRING("54/case", "send.reg_mr_behind_retried"),
				JSON_TRUE("54/reg_behind"),
				JSON_TRUE("54/rnr_hold"),
				JSON_STRING("41/case", "read.fenced_after_write"),
				JSON_STRING("41/op", "read"),
				JSON_TRUE("41/read_back"),
				JSON_STRING("37/atomic_variant", "fadd_wrap"),
				JSON_TRUE("51/zero_read_behind") } },
	};

	CHECK_CMDS(cases);
}
