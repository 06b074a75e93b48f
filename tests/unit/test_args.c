// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the table-driven keyword parser (args_parse()).
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/krdma.h>

#include "parse.h"
#include "unit.h"

/* A "test run"-like table. */
struct targs {
	struct arg_val session, op, size, count, duration, depth, mode, bidir;
};

static int parse_t(struct targs *t, char *err, size_t errlen, int argc,
		   char **argv)
{
	struct arg_spec specs[] = {
		{ "session", ARG_REF, ARG_REQUIRED, 0, 0, 0, &t->session, "S" },
		{ "op", ARG_OP, ARG_REQUIRED, 0, 0, 0, &t->op, "OP" },
		{ "size", ARG_SIZE, 0, 0, 1, KRDMA_MSG_SIZE_MAX, &t->size,
		  "SIZE" },
		{ "count", ARG_U64, 0, 1, 1, 0, &t->count, "N" },
		{ "duration", ARG_DURATION, 0, 1, 1, KRDMA_DURATION_MS_MAX,
		  &t->duration, "TIME" },
		{ "depth", ARG_U32, 0, 0, 1, KRDMA_DEPTH_MAX, &t->depth, "N" },
		{ "mode", ARG_MODE, 0, 0, 0, 0, &t->mode, "MODE" },
		{ "bidir", ARG_FLAG, 0, 0, 0, 0, &t->bidir, NULL },
	};

	return args_parse(specs, ARRAY_SIZE(specs), argc, argv, err, errlen);
}

#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(t, err, ...) \
	parse_t(t, err, sizeof(err), ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

/*
 * A command line (its words, up to the first NULL) and what a parser
 * returns for it; what it says: exactly @err, or with @err_has in it,
 * where not NULL.
 */
struct args_case {
	const char *argv[12];
	int rc;
	const char *err, *err_has;
};

/* Each row through @parse; a failure names the row by its words. */
static void check_args_cases(int (*parse)(char *err, size_t errlen,
					  int argc, char **argv),
			     const struct args_case *c, size_t n)
{
	char *argv[ARRAY_SIZE(c->argv) + 1], err[256], what[256];
	int argc;
	size_t len;

	for (; n--; c++) {
		what[0] = '\0';
		for (argc = 0; argc < (int)ARRAY_SIZE(c->argv) && c->argv[argc];
		     argc++) {
			argv[argc] = (char *)c->argv[argc];
			len = strlen(what);
			snprintf(what + len, sizeof(what) - len, "%s%s",
				 argc ? " " : "", c->argv[argc]);
		}
		argv[argc] = NULL;
		err[0] = '\0';
		CHECK_INT_CASE(what, parse(err, sizeof(err), argc, argv), c->rc);
		if (c->err)
			CHECK_STR_CASE(what, err, c->err);
		CHECK_HAS_CASE(what, err, c->err_has);
	}
}

/* parse_t() into a table of its own, for check_args_cases(). */
static int parse_targs(char *err, size_t errlen, int argc, char **argv)
{
	struct targs t;

	return parse_t(&t, err, errlen, argc, argv);
}

#define CHECK_TARGS_CASES(t)						\
	check_args_cases(parse_targs, t, ARRAY_SIZE(t))

TEST(args_full_line)
{
	struct targs t;
	char err[256];

	CHECK_INT(PARSE(&t, err, "session", "s1", "op", "write", "size", "64K",
			"count", "1000", "depth", "16"), 0);
	CHECK(t.session.set && !t.session.is_num);
	CHECK_STR(t.session.str, "s1");
	CHECK_U64(t.op.num, KRDMA_OP_WRITE);
	CHECK_U64(t.size.num, 65536);
	CHECK(t.count.set);
	CHECK_U64(t.count.num, 1000);
	CHECK(!t.duration.set);
	CHECK_U64(t.depth.num, 16);
	CHECK_STR(err, "");
}

TEST(args_flag_and_mode)
{
	static const struct args_case refused[] = {
		{ { "session", "1", "op", "write", "bidir", "bidir" }, -EINVAL,
		  .err_has = "duplicate keyword 'bidir'" },
		{ { "session", "1", "op", "write", "mode", "fast" }, -EINVAL,
		  .err_has = "unknown mode 'fast' (valid: check, bw, lat" },
	};
	struct targs t;
	char err[256];

	/* A flag takes no value, wherever it stands. */
	CHECK_INT(PARSE(&t, err, "session", "1", "bidir", "op", "write", "mode",
			"bw"), 0);
	CHECK(t.bidir.set);
	CHECK_U64(t.mode.num, KRDMA_MODE_BW);
	CHECK_INT(PARSE(&t, err, "session", "1", "op", "write", "bidir"), 0);
	CHECK(t.bidir.set);
	CHECK_INT(PARSE(&t, err, "session", "1", "op", "write"), 0);
	CHECK(!t.bidir.set);
	CHECK_TARGS_CASES(refused);
}

TEST(args_prefixes_and_ids)
{
	struct targs t;
	char err[256];

	/* "se" is "session" here (no other keyword starts with it), "o" op,
	 * "du" duration, "de" depth; a numeric reference is an id. */
	CHECK_INT(PARSE(&t, err, "se", "7", "o", "read", "si", "1M", "du",
			"10s", "de", "128"), 0);
	CHECK(t.session.is_num);
	CHECK_U64(t.session.num, 7);
	CHECK_U64(t.op.num, KRDMA_OP_READ);
	CHECK_U64(t.size.num, 1 << 20);
	CHECK_U64(t.duration.num, 10000);
	CHECK_U64(t.depth.num, 128);
}

TEST(args_missing_required)
{
	static const struct args_case refused[] = {
		{ { "session", "1", "size", "4K" }, -EINVAL,
		  .err_has = "missing required keyword 'op'" },
		{ { NULL }, -EINVAL,
		  .err_has = "missing required keyword 'session'" },
	};

	CHECK_TARGS_CASES(refused);
}

TEST(args_duplicate)
{
	static const struct args_case refused[] = {
		{ { "session", "1", "op", "read", "size", "1", "size", "2" },
		  -EINVAL, .err = "duplicate keyword 'size'" },
		/* a prefix of an already given keyword is the same keyword */
		{ { "op", "read", "o", "write", "session", "1" }, -EINVAL,
		  .err = "duplicate keyword 'op'" },
	};

	CHECK_TARGS_CASES(refused);
}

TEST(args_unknown_and_ambiguous)
{
	static const struct args_case refused[] = {
		{ { "session", "1", "op", "read", "bogus", "1" }, -EINVAL,
		  .err = "unknown keyword 'bogus' (valid keywords: session, op, size, count, duration, depth, mode, bidir)" },
		{ { "s", "1", "op", "read" }, -EINVAL,
		  .err = "ambiguous keyword 's' (could be: session, size)" },
		{ { "d", "1", "op", "read" }, -EINVAL,
		  .err = "ambiguous keyword 'd' (could be: duration, depth)" },
	};

	CHECK_TARGS_CASES(refused);
}

TEST(args_values)
{
	static const struct args_case refused[] = {
		{ { "session", "1", "op", "read", "size" }, -EINVAL,
		  .err = "keyword 'size' needs a value (size SIZE)" },
		{ { "session", "1", "op", "read", "size", "4Q" }, -EINVAL,
		  .err_has = "invalid size '4Q'" },
		{ { "session", "1", "op", "read", "size", "9M" }, -EINVAL,
		  .err = "size '9M' out of range: must be 1..8M" },
		{ { "session", "1", "op", "read", "depth", "0" }, -EINVAL,
		  .err = "depth '0' out of range: must be 1..128" },
		{ { "session", "1", "op", "atomic" }, -EINVAL,
		  .err = "ambiguous op 'atomic' (could be: atomic_fadd, atomic_cswap)" },
		{ { "session", "1", "op", "recv" }, -EINVAL,
		  .err_has = "unknown op 'recv' (valid: ping, send," },
		{ { "session", "a b", "op", "read" }, -EINVAL,
		  .err_has = "invalid session 'a b'" },
	};

	CHECK_TARGS_CASES(refused);
}

TEST(args_exclusive_group)
{
	static const struct args_case refused[] = {
		{ { "session", "1", "op", "read", "count", "5", "duration",
		    "1s" }, -EINVAL,
		  .err = "'count' and 'duration' cannot be used together" },
	};

	CHECK_TARGS_CASES(refused);
}

TEST(args_help)
{
	static const struct args_case helps[] = {
		{ { "help" }, .rc = ARGS_HELP },
		{ { "session", "1", "help" }, .rc = ARGS_HELP },
	};
	struct targs t;
	char err[256];

	CHECK_TARGS_CASES(helps);
	/* as a value it is just a value */
	CHECK_INT(PARSE(&t, err, "session", "help", "op", "read"), 0);
	CHECK_STR(t.session.str, "help");
}

/* "{ ID | name NAME }" with a positional id, as in "listener del". */
struct refargs {
	struct arg_val id, name;
};

static int parse_ref(struct refargs *r, char *err, size_t errlen, int argc,
		     char **argv)
{
	struct arg_spec specs[] = {
		{ "id", ARG_REF, ARG_POSITIONAL | ARG_REQUIRED, 1, 0, 0, &r->id,
		  "ID" },
		{ "name", ARG_STR, ARG_REQUIRED, 1, 0, KRDMA_NAME_MAX - 1,
		  &r->name, "NAME" },
	};

	return args_parse(specs, ARRAY_SIZE(specs), argc, argv, err, errlen);
}

#define PARSE_REF(r, err, ...) \
	parse_ref(r, err, sizeof(err), ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

/* parse_ref() into a table of its own, for check_args_cases(). */
static int parse_refargs(char *err, size_t errlen, int argc, char **argv)
{
	struct refargs r;

	return parse_ref(&r, err, errlen, argc, argv);
}

TEST(args_positional_and_one_of)
{
	static const struct args_case refused[] = {
		{ { NULL }, -EINVAL, .err = "one of 'id', 'name' is required" },
		{ { "3", "name", "x" }, -EINVAL,
		  .err = "'id' and 'name' cannot be used together" },
		/* a positional value only in first place */
		{ { "name", "x", "3" }, -EINVAL,
		  .err_has = "unknown keyword '3'" },
	};
	struct refargs r;
	char err[256];

	CHECK_INT(PARSE_REF(&r, err, "3"), 0);
	CHECK(r.id.set && r.id.is_num && !r.name.set);
	CHECK_U64(r.id.num, 3);
	CHECK_INT(PARSE_REF(&r, err, "id", "4"), 0);
	CHECK_U64(r.id.num, 4);
	CHECK_INT(PARSE_REF(&r, err, "name", "l1"), 0);
	CHECK(r.name.set && !r.id.set);
	CHECK_STR(r.name.str, "l1");
	CHECK_INT(PARSE_REF(&r, err, "srv"), 0);	/* positional name */
	CHECK_STR(r.id.str, "srv");
	check_args_cases(parse_refargs, refused, ARRAY_SIZE(refused));
}

TEST(args_addr)
{
	struct arg_val addr, port;
	struct arg_spec specs[] = {
		{ "addr", ARG_ADDR, ARG_REQUIRED, 0, 0, 0, &addr, "ADDR" },
		{ "port", ARG_PORT, 0, 0, 0, 0, &port, "PORT" },
	};
	char err[256];

	CHECK_INT(args_parse(specs, 2, 4, ARGV("addr", "10.1.2.3", "port",
					       "4791"), err, sizeof(err)), 0);
	CHECK_INT(addr.addr.family, AF_INET);
	CHECK(!addr.has_port);
	CHECK_U64(port.num, 4791);
	CHECK_INT(args_parse(specs, 2, 2, ARGV("addr", "[::1]:99"), err,
			     sizeof(err)), 0);
	CHECK_INT(addr.addr.family, AF_INET6);
	CHECK(addr.has_port);
	CHECK_INT(addr.port, 99);
	CHECK(!port.set);
	CHECK_INT(args_parse(specs, 2, 2, ARGV("addr", "10.1.2"), err,
			     sizeof(err)), -EINVAL);
	CHECK(strstr(err, "invalid addr '10.1.2'") != NULL);
	CHECK_INT(args_parse(specs, 2, 4, ARGV("addr", "::1", "port", "0"),
			     err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "invalid port '0'") != NULL);
}

TEST(args_durations_need_units)
{
	static const struct args_case refused[] = {
		{ { "session", "s1", "op", "write", "duration", "5" }, -EINVAL,
		  .err = "invalid duration '5': a time needs a unit: 5ms, 5s, 5m or 5h" },
		{ { "session", "s1", "op", "write", "duration", "2h" }, -EINVAL,
		  .err = "duration '2h' out of range: must be 1ms..1h" },
	};
	struct targs t;
	char err[256];

	CHECK_TARGS_CASES(refused);
	CHECK_INT(PARSE(&t, err, "session", "s1", "op", "write", "duration",
			"5s"), 0);
	CHECK_U64(t.duration.num, 5000);
}

TEST(args_link_local_needs_zone)
{
	struct arg_val addr;
	struct arg_spec specs[] = {
		{ "addr", ARG_ADDR, 0, 0, 0, 0, &addr, "ADDR" },
	};
	char err[256];

	CHECK_INT(args_parse(specs, 1, 2, (char *[]){ "addr", "fe80::1", NULL },
			     err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "invalid addr 'fe80::1': a link-local address needs its interface, ADDR6%IFACE");
	CHECK_INT(args_parse(specs, 1, 2, (char *[]){ "addr", "fd00::1", NULL },
			     err, sizeof(err)), 0);
}
