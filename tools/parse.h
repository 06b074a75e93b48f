/* SPDX-License-Identifier: GPL-2.0 */
/*
 * krdmactl: pure parsing helpers (no I/O, no netlink): numbers in
 * parse.c, addresses in addr.c, names and keyword arguments in args.c.
 *
 * Everything here is unit tested in tests/unit/.  Functions return 0 on
 * success or a negative errno: -EINVAL for malformed input, -ERANGE for a
 * well-formed value outside the allowed range, -EDOM for a well-formed
 * value that is no whole number of what it is counted in ("1.5" bytes).
 *
 * Every quantity with a unit has one number grammar (parse.c):
 * NUMBER := DIGITS[.DIGITS] | .DIGITS, its unit right after it.
 */
#ifndef KRDMACTL_PARSE_H
#define KRDMACTL_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An ASCII digit, whatever the locale (isdigit() is not). */
static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Unsigned decimal (or 0x-prefixed hex) integer in [min, max]. */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out);

/*
 * Size in bytes: a NUMBER with an optional binary unit:
 * K, M, G, T (any case), optionally followed by "i" and/or "B"
 * ("4K", "64k", "1M", "1.5M", "1MiB", "2G", "512B").  All units are
 * powers of 1024.
 */
int parse_size(const char *s, uint64_t *out);
/*
 * A count (iterations, round trips): a NUMBER with an optional k, M or G,
 * powers of 1000 as for msg_rate ("1000", "10k", "1.5M", "2G").
 */
int parse_count(const char *s, uint64_t *out);
/*
 * "MIN-MAX" of two sizes, MIN a power of two and MIN <= MAX ("2-8M"): the
 * powers of two from MIN up to MAX.  A single size gives lo == hi.
 */
int parse_size_range(const char *s, uint64_t *lo, uint64_t *hi);

/*
 * A time: a NUMBER and a unit, ns, us, ms, s, m or min (minutes) or h
 * ("1.5s", "100us", "2m").  A number without a unit is refused: "timeout
 * 5" read as 5 ms surprised everyone who meant seconds.  In nanoseconds,
 * or in whole milliseconds (what the module counts; -EDOM otherwise).
 */
int parse_duration_ns(const char *s, uint64_t *out);
int parse_duration_ms(const char *s, uint64_t *out);

/*
 * A bandwidth in bytes per second (rounded): a NUMBER of MB/s (10^6
 * bytes/s, as the reports count), bare or with a unit: MB/s, GB/s,
 * MiB/s, GiB/s (2^20, 2^30 bytes/s: perftest's "MB/sec"), Mb/s, Gb/s
 * (10^6, 10^9 bits/s: perftest's --rate_units M, G) ("2", "0.5",
 * "1.5GB/s", "10Gb/s", "100Mb/s"). 0 parses: whether it means anything
 * is the kernel's to say.
 */
int parse_bw(const char *s, uint64_t *bytes_per_s);
/*
 * A rate limit: a bandwidth as parse_bw() (*per_msg false, bytes/s), or
 * messages per second with pps, kpps or Mpps (perftest's --rate_units
 * p; *per_msg true, rounded), which the test's size turns into bytes/s.
 */
int parse_rate(const char *s, uint64_t *value, bool *per_msg);

/*
 * A percentage, bare or with "%" ("5", "5%", "2.5%"), in hundredths of a
 * percent (500, 500, 250): what "compare ... tolerance" takes.
 */
int parse_percent(const char *s, uint64_t *hundredths);

/* A size in the largest binary unit that divides it ("8M", "4K", "100"). */
int format_size_units(char *buf, size_t len, uint64_t v);
/* Milliseconds in the largest unit that divides them ("60s", "100ms"). */
int format_duration_units(char *buf, size_t len, uint64_t ms);

/*
 * A pass/fail threshold on a test's result, "METRIC>=VALUE" or
 * "METRIC<=VALUE": bw and min_qp_bw in MB/s (as parse_bw()), msg_rate in
 * messages/s (as parse_count()), and the latency figures (p50, p90, p99,
 * p99.9, max, avg, stdev) as a time with its unit (as
 * parse_duration_ns(): "p99<=1.5ms").
 */
enum expect_metric {
	EXPECT_BW,
	EXPECT_MIN_QP_BW,
	EXPECT_MSG_RATE,
	EXPECT_P50,
	EXPECT_P90,
	EXPECT_P99,
	EXPECT_P999,
	EXPECT_MAX,
	EXPECT_AVG,
	EXPECT_STDEV,
	__EXPECT_METRIC_MAX,
};

struct expect {
	const char *text;	/* as given */
	enum expect_metric metric;
	bool at_most;		/* "<=", else ">=" */
	double value;		/* MB/s, messages/s or ns */
};

#define EXPECTS_MAX	8

int parse_expect(const char *s, struct expect *e);
const char *expect_metric_name(enum expect_metric m);
/* Latency figures exist only in lat mode. */
bool expect_metric_is_latency(enum expect_metric m);

struct ip_addr {
	int family;		/* AF_INET or AF_INET6 */
	uint8_t bytes[16];	/* network order; 4 used for AF_INET */
	uint32_t scope_id;	/* AF_INET6 link-local: interface index, or 0 */
};

/* Literal IPv4 or IPv6 address (no zone id, no port). */
int parse_ip_addr(const char *s, struct ip_addr *a);
/* TCP/UDP-style port, 1..65535. */
int parse_port(const char *s, uint16_t *port);
/*
 * ADDR, ADDR4:PORT or [ADDR6]:PORT.  *has_port tells whether a port was
 * given.
 */
int parse_endpoint(const char *s, struct ip_addr *a, uint16_t *port,
		   bool *has_port);
/*
 * A host name, HOST:PORT, or an IPv6 address with a zone, ADDR6%IFACE or
 * [ADDR6%IFACE]:PORT: what parse_endpoint() does not take, looked up with
 * parse_resolver (getaddrinfo() in krdmactl, a fake in the unit tests;
 * NULL: refused).  On failure err says why: -ENOENT the name was not
 * found, -EINVAL s is no name.
 */
typedef int (*resolver_fn)(const char *host, struct ip_addr *a, char *err,
			   size_t errlen);
extern resolver_fn parse_resolver;
int parse_host_endpoint(const char *s, struct ip_addr *a, uint16_t *port,
			bool *has_port, char *err, size_t errlen);
/*
 * "10.0.0.1:4791", "[fe80::1]:4791", or with a == NULL "*:4791"; port < 0
 * omits the port.  Returns the snprintf-style length.
 */
int format_endpoint(char *buf, size_t len, const struct ip_addr *a, int port);
/* Address only ("10.0.0.1", "fe80::1"). */
int format_ip_addr(char *buf, size_t len, const struct ip_addr *a);

/* GUID as four 16-bit hex groups, "5054:00ff:fe00:0001" (like iproute2). */
int format_guid(char *buf, size_t len, uint64_t guid);

/*
 * Prefix matching.  An exact match always wins; otherwise a prefix that
 * matches exactly one name is accepted.  Returns the index, MATCH_NONE or
 * MATCH_AMBIGUOUS.  The table variant looks at the "const char *" at the
 * start of each stride-sized element; NULL names are skipped.
 */
#define MATCH_NONE	(-1)
#define MATCH_AMBIGUOUS	(-2)
int match_word(const char *word, const char *const *names, size_t n);
int match_table(const char *word, const void *table, size_t n, size_t stride);

/* Test operations, enum krdma_op; '-' is accepted for '_'. */
int parse_op(const char *s);		/* enum krdma_op or MATCH_* */
const char *op_name(unsigned int op);	/* NULL if unknown */
/* Test modes, enum krdma_test_mode. */
int parse_mode(const char *s);		/* enum krdma_test_mode or MATCH_* */

/* Object names: 1..KRDMA_NAME_MAX-1 printable characters, no white space,
 * and not all digits (a number always means an id on the command line). */
int check_name(const char *s);

/*
 * Table-driven keyword argument parser.
 *
 *	struct arg_val name = {0}, port = {0};
 *	struct arg_spec specs[] = {
 *		{ "name", ARG_NAME, 0, 0, 0, 0, &name, "NAME" },
 *		{ "port", ARG_PORT, ARG_REQUIRED, 0, 0, 0, &port, "PORT" },
 *	};
 *	rc = args_parse(specs, ARRAY_SIZE(specs), argc, argv, err, sizeof(err));
 *
 * Keywords match by unambiguous prefix.  ARG_POSITIONAL lets the keyword be
 * left out when the value comes first and does not look like a keyword
 * ("listener del 3" == "listener del id 3").  Specs sharing a non-zero group
 * are mutually exclusive; if any of them is ARG_REQUIRED, exactly one of
 * the group must be given.  The word "help" in a keyword position makes
 * args_parse return ARGS_HELP.
 */
enum arg_type {
	ARG_STR,	/* ->str; max = length limit (0: none) */
	ARG_NAME,	/* ->str, validated by check_name() */
	ARG_U32,	/* ->num in [min, max] (max 0: UINT32_MAX) */
	ARG_COUNT,	/* ->num in [min, max], parse_count() ("1M") */
	ARG_U64,	/* ->num in [min, max] (max 0: UINT64_MAX) */
	ARG_SIZE,	/* ->num bytes in [min, max] */
	ARG_DURATION,	/* ->num milliseconds in [min, max] */
	ARG_ADDR,	/* ->addr, and ->port/->has_port if "addr:port" */
	ARG_PORT,	/* ->num 1..65535 */
	ARG_OP,		/* ->num enum krdma_op */
	ARG_MODE,	/* ->num enum krdma_test_mode */
	ARG_SIZES,	/* ->num .. ->num_hi: a size or a power-of-two range */
	ARG_FLAG,	/* a keyword alone, no value: ->set */
	ARG_REF,	/* id or name: ->is_num + ->num, or ->str */
	ARG_EXPECT,	/* ->expect[->nexpect++]; the keyword may repeat */
	ARG_PERCENT,	/* ->num hundredths of a percent, parse_percent() */
	ARG_RATE,	/* ->num bytes/s, or messages/s if ->per_msg; parse_rate() */
};

#define ARG_REQUIRED	0x1
#define ARG_POSITIONAL	0x2
/* Parsed, but not in the help's synopsis nor completed (see cmd.h). */
#define ARG_HIDDEN	0x4

struct arg_val {
	bool set;
	bool is_num;		/* ARG_REF: a number was given */
	bool has_port;		/* ARG_ADDR: "addr:port" form */
	bool per_msg;		/* ARG_RATE: ->num is messages/s */
	uint16_t port;
	uint64_t num;
	uint64_t num_hi;	/* ARG_SIZES: the range's end (== num if one) */
	bool range;		/* ARG_SIZES: written as a range, MIN-MAX */
	const char *str;
	struct ip_addr addr;
	struct expect expect[EXPECTS_MAX];
	unsigned int nexpect;
};

struct arg_spec {
	const char *kw;
	enum arg_type type;
	unsigned int flags;
	int group;
	uint64_t min, max;
	struct arg_val *val;
	const char *meta;	/* value placeholder for messages, e.g. "SIZE" */
};

#define ARGS_HELP 1	/* "help" was asked for; errors are -EINVAL */
int args_parse(const struct arg_spec *specs, size_t n, int argc,
	       char *const *argv, char *err, size_t errlen);

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#endif /* KRDMACTL_PARSE_H */
