// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of tools/parse.c, addr.c and args.c's names: numbers,
 * sizes, durations, addresses, prefix matching, op names, GUIDs.
 *
 * Most are tables: a row is an input and what it must give; a failure
 * names the row's input.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/krdma.h>

#include "nl-gen.h"
#include "parse.h"
#include "resolve.h"
#include "unit.h"

/* The framework itself must notice a failed check. */
TEST(framework_counts_failures)
{
	static const struct json_want wrong[] = {
		JSON_NUM("a/1", 2),		/* it is */
		JSON_STRING("a/1", "2"),	/* a number, not a string */
		JSON_NO("a"),
	};
	int before = unit_failures();

	unit_set_quiet(true);
	CHECK_INT(1 + 1, 3);
	CHECK_INT_CASE("row", 1 + 1, 3);
	CHECK_HAS_CASE("row", "abc", "b");	/* it has */
	CHECK_HAS_CASE("row", "abc", "x");
	CHECK_LACKS_CASE("row", "abc", "b");
	check_json("row", "{\"a\": [1, 2]}", wrong, ARRAY_SIZE(wrong));
	unit_set_quiet(false);
	if (unit_failures() == before + 6)
		unit_set_failures(before);	/* detected: undo it */
	else
		unit_set_failures(before + 1);	/* not detected: fail */
}

/* A row's input as a failure names it: NULL too. */
static const char *str(const char *s)
{
	return s ? s : "(null)";
}

/* A string, what a parser returns for it and the value it gives. */
struct u64_case {
	const char *in;
	int rc;
	uint64_t want;		/* the value when rc is 0 */
};

/*
 * Each row through @parse: its return and, when 0, its value; a failure
 * leaves the value as it was.
 */
static void check_u64_cases(int (*parse)(const char *, uint64_t *),
			    const struct u64_case *c, size_t n)
{
	uint64_t v, want;

	for (; n--; c++) {
		v = 42;
		want = c->rc ? 42 : c->want;
		CHECK_INT_CASE(str(c->in), parse(c->in, &v), c->rc);
		CHECK_U64_CASE(str(c->in), v, want);
	}
}

#define CHECK_U64_CASES(parse, cases)					\
	check_u64_cases(parse, cases, ARRAY_SIZE(cases))

/* A string and the int a function returns for it. */
struct int_case {
	const char *in;
	int want;
};

TEST(size_units)
{
	static const struct u64_case cases[] = {
		{ "0", 0, 0 },
		{ "512", 0, 512 },
		{ "512B", 0, 512 },
		{ "4K", 0, 4096 },
		{ "64k", 0, 65536 },
		{ "4KB", 0, 4096 },
		{ "4KiB", 0, 4096 },
		{ "1M", 0, 1048576 },
		{ "1MiB", 0, 1048576 },
		{ "1m", 0, 1048576 },
		{ "2G", 0, 2147483648ULL },
		{ "3g", 0, 3ULL << 30 },
		{ "1T", 0, 1ULL << 40 },
		{ "8388608", 0, KRDMA_MSG_SIZE_MAX },
		/* the largest value that fits */
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "16777215T", 0, 16777215ULL << 40 },
		/* one number grammar: fractions of a unit, when whole bytes */
		{ "1.5M", 0, 1572864 },
		{ "0.5K", 0, 512 },
		{ ".25KiB", 0, 256 },
		{ "2.0", 0, 2 },
	};

	CHECK_U64_CASES(parse_size, cases);
}

/* Failures leave the output alone (check_u64_cases() sees to it). */
TEST(size_rejects)
{
	static const struct u64_case cases[] = {
		{ "99999999999T", .rc = -ERANGE },
		{ "16777216T", .rc = -ERANGE },
		{ "18446744073709551616", .rc = -ERANGE },
		{ "99999999999999999999999", .rc = -ERANGE },
		{ "4Q", .rc = -EINVAL },
		{ "", .rc = -EINVAL },
		{ "-1", .rc = -EINVAL },
		{ "-4K", .rc = -EINVAL },
		{ "+4K", .rc = -EINVAL },
		{ " 4K", .rc = -EINVAL },
		{ "4K ", .rc = -EINVAL },
		{ "K", .rc = -EINVAL },
		{ "4KK", .rc = -EINVAL },
		{ "4iB", .rc = -EINVAL },
		/* a fraction of a byte is no size */
		{ "1.5", .rc = -EDOM },
		{ "1.0000001K", .rc = -EDOM },
		{ "1.M", .rc = -EINVAL },
		{ ".K", .rc = -EINVAL },
		{ "1.2.3K", .rc = -EINVAL },
		{ "0x10", .rc = -EINVAL },
		{ NULL, .rc = -EINVAL },
	};

	CHECK_U64_CASES(parse_size, cases);
}

TEST(size_ranges)
{
	static const struct {
		const char *in;
		int rc;
		uint64_t lo, hi;	/* when rc is 0 */
	} cases[] = {
		{ "2-8M", 0, 2, 8ULL << 20 },
		{ "4K", 0, 4096, 4096 },
		/* a single size need not be a power of two */
		{ "1000", 0, 1000, 1000 },
		{ "64-64", 0, 64, 64 },
		{ "1-3", 0, 1, 3 },
		{ "3-8K", .rc = -ERANGE },
		{ "0-8K", .rc = -ERANGE },
		{ "8K-4K", .rc = -ERANGE },
		{ "-8K", .rc = -EINVAL },
		{ "8K-", .rc = -EINVAL },
		{ "2-4-8", .rc = -EINVAL },
		{ "2--8", .rc = -EINVAL },
		{ "123456789012345678901234567890123-4", .rc = -EINVAL },
		{ NULL, .rc = -EINVAL },
	};
	uint64_t lo, hi;
	size_t i;

	/* failures leave both alone */
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *what = str(cases[i].in);

		lo = hi = 42;
		CHECK_INT_CASE(what, parse_size_range(cases[i].in, &lo, &hi),
			       cases[i].rc);
		if (cases[i].rc) {
			CHECK_CASE(what, lo == 42 && hi == 42);
			continue;
		}
		CHECK_U64_CASE(what, lo, cases[i].lo);
		CHECK_U64_CASE(what, hi, cases[i].hi);
	}
}

/* A rate limit: a bandwidth, or packets per second (perftest's -p). */
TEST(rates)
{
	static const struct {
		const char *in;
		int rc;
		uint64_t v;		/* when rc is 0 */
		bool per_msg;
	} cases[] = {
		{ "10Gb/s", 0, 1250000000, false },
		{ "2", 0, 2000000, false },
		{ "100MiB/s", 0, 104857600, false },
		{ "1000pps", 0, 1000, true },
		{ "1.5kpps", 0, 1500, true },
		{ "2Mpps", 0, 2000000, true },
		{ "2 pps", .rc = -EINVAL },
		{ "2p", .rc = -EINVAL },
		{ "99999999999999999999999pps", .rc = -ERANGE },
	};
	uint64_t v = 42;
	bool per_msg = true;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *what = cases[i].in;

		CHECK_INT_CASE(what, parse_rate(what, &v, &per_msg),
			       cases[i].rc);
		if (cases[i].rc)
			continue;
		CHECK_U64_CASE(what, v, cases[i].v);
		CHECK_CASE(what, per_msg == cases[i].per_msg);
	}
}

TEST(bandwidths)
{
	static const struct u64_case cases[] = {
		/* MB/s, 10^6 bytes/s, bare or with a unit */
		{ "2", 0, 2000000 },
		{ "0.5", 0, 500000 },
		{ "500MB/s", 0, 500000000 },
		{ "1.5GB/s", 0, 1500000000 },
		{ "10Gb/s", 0, 1250000000 },
		{ ".000001", 0, 1 },
		/* perftest's units: --rate_units M and G (bits), its MB/sec (2^20) */
		{ "100Mb/s", 0, 12500000 },
		{ "1.5Mb/s", 0, 187500 },
		{ "100MiB/s", 0, 104857600 },
		{ "2GiB/s", 0, 2147483648ULL },
		{ "1mb/s", .rc = -EINVAL },	/* which one? */
		{ "1Mib/s", .rc = -EINVAL },
		{ "1pps", .rc = -EINVAL },	/* a rate, not a bandwidth */
		/* 0 is the kernel's to refuse, with its reason */
		{ "0", 0, 0 },
		{ "2MB", .rc = -EINVAL },
		{ "2 MB/s", .rc = -EINVAL },
		{ "-1", .rc = -EINVAL },
		{ "0x10", .rc = -EINVAL },
		{ "inf", .rc = -EINVAL },
		{ "", .rc = -EINVAL },
		/* no exponent: one grammar, DIGITS[.DIGITS] */
		{ "1e3", .rc = -EINVAL },
		{ "99999999999999GB/s", .rc = -ERANGE },
		{ "99999999999999999999999", .rc = -ERANGE },
	};

	CHECK_U64_CASES(parse_bw, cases);
}

/* parse_u64() or parse_u32() of a string between @min and @max. */
struct range_case {
	const char *in;
	uint64_t min, max;
	int rc;
	uint64_t want;		/* when rc is 0 */
};

static void check_range_cases(const struct range_case *c, size_t n, bool u32)
{
	uint64_t v;
	uint32_t u;
	int rc;

	for (; n--; c++) {
		if (u32) {
			rc = parse_u32(c->in, c->min, c->max, &u);
			v = u;
		} else {
			rc = parse_u64(c->in, c->min, c->max, &v);
		}
		CHECK_INT_CASE(c->in, rc, c->rc);
		if (!c->rc)
			CHECK_U64_CASE(c->in, v, c->want);
	}
}

TEST(integers_and_ranges)
{
	static const struct range_case u64s[] = {
		{ "0", 0, 10, 0, 0 },
		{ "10", 0, 10, 0, 10 },
		{ "11", 0, 10, .rc = -ERANGE },
		{ "4", 5, 10, .rc = -ERANGE },
		{ "0x1f", 0, 100, 0, 31 },
		{ "18446744073709551615", 0, UINT64_MAX, 0, UINT64_MAX },
		{ "18446744073709551616", 0, UINT64_MAX, .rc = -ERANGE },
		{ "12abc", 0, 100, .rc = -EINVAL },
		{ "-1", 0, 100, .rc = -EINVAL },
		{ "", 0, 100, .rc = -EINVAL },
		{ "0x", 0, 100, .rc = -EINVAL },
	};
	static const struct range_case u32s[] = {
		{ "4294967295", 0, UINT32_MAX, 0, UINT32_MAX },
		{ "4294967296", 0, UINT32_MAX, .rc = -ERANGE },
		{ "129", 1, KRDMA_DEPTH_MAX, .rc = -ERANGE },
		{ "128", 1, KRDMA_DEPTH_MAX, 0, 128 },
	};

	check_range_cases(u64s, ARRAY_SIZE(u64s), false);
	check_range_cases(u32s, ARRAY_SIZE(u32s), true);
}

/* Failures leave the output alone (check_u64_cases() sees to it). */
TEST(durations)
{
	static const struct u64_case cases[] = {
		{ "10s", 0, 10000 },
		{ "500ms", 0, 500 },
		{ "2m", 0, 120000 },
		{ "1h", 0, 3600000 },
		/* a bare number is refused: ms, s, m? */
		{ "250", .rc = -EINVAL },
		{ "250ms", 0, 250 },
		{ "0s", 0, 0 },
		{ "10x", .rc = -EINVAL },
		{ "s", .rc = -EINVAL },
		{ "", .rc = -EINVAL },
		{ "-1s", .rc = -EINVAL },
		/* finer than the module's milliseconds: said, not rounded */
		{ "100us", .rc = -EDOM },
		{ "1.0005s", .rc = -EDOM },
		{ "1.5", .rc = -EINVAL },
		{ "10 s", .rc = -EINVAL },
		{ "10sec", .rc = -EINVAL },
		{ "99999999999999999h", .rc = -ERANGE },
	};

	CHECK_U64_CASES(parse_duration_ms, cases);
}

/* What parse_expect() makes of a string: the value between lo and hi. */
struct expect_case {
	const char *in;
	int rc;
	enum expect_metric metric;	/* when rc is 0 */
	bool at_most;
	double lo, hi;
};

static void check_expect_cases(const struct expect_case *c, size_t n)
{
	struct expect e;

	for (; n--; c++) {
		CHECK_INT_CASE(c->in, parse_expect(c->in, &e), c->rc);
		if (c->rc)
			continue;
		CHECK_INT_CASE(c->in, e.metric, c->metric);
		CHECK_CASE(c->in, e.at_most == c->at_most);
		CHECK_CASE(c->in, e.value >= c->lo && e.value <= c->hi);
	}
}

#define CHECK_EXPECT_CASES(cases)					\
	check_expect_cases(cases, ARRAY_SIZE(cases))

TEST(expectations)
{
	static const struct expect_case cases[] = {
		{ "bw>=500", 0, EXPECT_BW, false, 500, 500 },
		{ "min_qp_bw>=1.5Gb/s", 0, EXPECT_MIN_QP_BW, false,
		  187.49, 187.51 },
		{ "bw>=2GB/s", 0, EXPECT_BW, false, 2000, 2000 },
		/* perftest's MB/sec, in MB/s (10^6) as the figures are compared */
		{ "bw>=100MiB/s", 0, EXPECT_BW, false, 104.857, 104.858 },
		{ "msg_rate>=1.2M", 0, EXPECT_MSG_RATE, false,
		  1199999, 1200001 },
		{ "p99<=2ms", 0, EXPECT_P99, true, 2e6, 2e6 },
		{ "p99.9<=1.5us", 0, EXPECT_P999, true, 1500, 1500 },
		{ "p999<=1s", 0, EXPECT_P999, true, 1e9, 1e9 },
		{ "stdev<=250ns", 0, EXPECT_STDEV, true, 250, 250 },
		/* latency needs its unit; names in full; only >= and <= */
		{ "p99<=2", .rc = -EINVAL },
		{ "p9<=2ms", .rc = -EINVAL },
		{ "b>=1", .rc = -EINVAL },
		{ "bw>1", .rc = -EINVAL },
		{ "bw=1", .rc = -EINVAL },
		{ "bw>=", .rc = -EINVAL },
		{ ">=1", .rc = -EINVAL },
		{ "bw>=-1", .rc = -EINVAL },
		{ "bw>= 1", .rc = -EINVAL },
		{ "bw>=0x10", .rc = -EINVAL },
		{ "bw>=inf", .rc = -EINVAL },
		{ "bw>=1e9", .rc = -EINVAL },
		{ "bw>=99999999999999999999999", .rc = -ERANGE },
		{ "bw>=10MB", .rc = -EINVAL },
		{ "msg_rate>=1Mpps", .rc = -EINVAL },
		{ "a_very_long_metric_name>=1", .rc = -EINVAL },
	};

	CHECK_EXPECT_CASES(cases);
	CHECK(expect_metric_is_latency(EXPECT_MAX));
	CHECK(!expect_metric_is_latency(EXPECT_MSG_RATE));
}

TEST(addresses)
{
	static const struct {
		const char *in;
		int rc;
		int family;	/* when rc is 0; the bytes inet_pton()'s */
	} addrs[] = {
		{ "10.0.0.1", 0, AF_INET },
		{ "fe80::1", 0, AF_INET6 },
		{ "::ffff:10.0.0.1", 0, AF_INET6 },
		{ "10.0.0", .rc = -EINVAL },
		{ "10.0.0.256", .rc = -EINVAL },
		{ "10.0.0.1.2", .rc = -EINVAL },
		{ "fe80::1::2", .rc = -EINVAL },
		{ "fe80::1%eth0", .rc = -EINVAL },
		{ "host.example", .rc = -EINVAL },
		{ "", .rc = -EINVAL },
	};
	static const struct {
		const char *in;
		int rc;
		int family;	/* when rc is 0 */
		int port;	/* -1: none */
	} endpoints[] = {
		{ "10.0.0.1:4791", 0, AF_INET, 4791 },
		{ "[fe80::1]:18515", 0, AF_INET6, 18515 },
		{ "fe80::2", 0, AF_INET6, -1 },
		{ "[::1]", 0, AF_INET6, -1 },
		{ "192.168.1.2", 0, AF_INET, -1 },
		{ "10.0.0.1:0", .rc = -ERANGE },
		{ "10.0.0.1:65536", .rc = -ERANGE },
		{ "10.0.0.1:", .rc = -EINVAL },
		{ "10.0.0.1:http", .rc = -EINVAL },
		{ "[10.0.0.1]:80", .rc = -EINVAL },
		{ "[fe80::1]80", .rc = -EINVAL },
		{ "[fe80::1", .rc = -EINVAL },
		{ ":80", .rc = -EINVAL },
	};
	static const struct {
		const char *in;
		int rc;
		uint16_t port;	/* when rc is 0 */
	} ports[] = {
		{ "65535", 0, 65535 },
		{ "0", .rc = -ERANGE },
		{ "0x50", .rc = -EINVAL },
		{ "-1", .rc = -EINVAL },
	};
	static const struct {
		const char *addr;	/* NULL: none */
		int port;
		const char *want;
	} formats[] = {
		{ "10.0.0.1", 4791, "10.0.0.1:4791" },
		{ "fe80::1", 4791, "[fe80::1]:4791" },
		{ "fe80::1", -1, "fe80::1" },
		{ NULL, 4791, "*:4791" },
	};
	struct ip_addr a;
	uint8_t want[16];
	char buf[64], what[64];
	uint16_t port = 0;
	bool has_port = true;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(addrs); i++) {
		const char *what = addrs[i].in;

		CHECK_INT_CASE(what, parse_ip_addr(what, &a), addrs[i].rc);
		if (addrs[i].rc)
			continue;
		CHECK_INT_CASE(what, a.family, addrs[i].family);
		CHECK_CASE(what, inet_pton(addrs[i].family, what, want) == 1 &&
			   !memcmp(a.bytes, want,
				   a.family == AF_INET ? 4 : 16));
	}

	for (i = 0; i < ARRAY_SIZE(endpoints); i++) {
		const char *what = endpoints[i].in;

		CHECK_INT_CASE(what, parse_endpoint(what, &a, &port, &has_port),
			       endpoints[i].rc);
		if (endpoints[i].rc)
			continue;
		CHECK_INT_CASE(what, a.family, endpoints[i].family);
		CHECK_CASE(what, has_port == (endpoints[i].port >= 0));
		if (has_port)
			CHECK_INT_CASE(what, port, endpoints[i].port);
	}

	for (i = 0; i < ARRAY_SIZE(ports); i++) {
		CHECK_INT_CASE(ports[i].in, parse_port(ports[i].in, &port),
			       ports[i].rc);
		if (!ports[i].rc)
			CHECK_INT_CASE(ports[i].in, port, ports[i].port);
	}

	for (i = 0; i < ARRAY_SIZE(formats); i++) {
		snprintf(what, sizeof(what), "%s port %d",
			 str(formats[i].addr), formats[i].port);
		if (formats[i].addr)
			parse_ip_addr(formats[i].addr, &a);
		format_endpoint(buf, sizeof(buf),
				formats[i].addr ? &a : NULL, formats[i].port);
		CHECK_STR_CASE(what, buf, formats[i].want);
	}
}

TEST(guid_format)
{
	static const struct {
		uint64_t guid;
		const char *want;
	} cases[] = {
		{ 0x505400fffe000001ULL, "5054:00ff:fe00:0001" },
		{ 0, "0000:0000:0000:0000" },
		{ UINT64_MAX, "ffff:ffff:ffff:ffff" },
		{ 0x0123456789abcdefULL, "0123:4567:89ab:cdef" },
	};
	char buf[32], what[24];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(what, sizeof(what), "%#llx",
			 (unsigned long long)cases[i].guid);
		format_guid(buf, sizeof(buf), cases[i].guid);
		CHECK_STR_CASE(what, buf, cases[i].want);
	}
}

TEST(prefix_matching)
{
	static const char *const words[] = {
		"show", "set", "session", "stats", "del",
	};
	static const char *const nested[] = { "send", "send_imm" };
	static const struct {
		const char *const *words;
		size_t n;
		const char *in;
		int want;
	} cases[] = {
		{ words, 5, "show", 0 },
		{ words, 5, "sh", 0 },
		{ words, 5, "set", 1 },		/* exact beats prefix */
		{ words, 5, "sess", 2 },
		{ words, 5, "st", 3 },
		{ words, 5, "d", 4 },
		{ words, 5, "s", MATCH_AMBIGUOUS },
		{ words, 5, "se", MATCH_AMBIGUOUS },
		{ words, 5, "x", MATCH_NONE },
		{ words, 5, "shows", MATCH_NONE },
		{ words, 5, "", MATCH_NONE },
		{ nested, 2, "send", 0 },
		{ nested, 2, "send_", 1 },
		{ nested, 2, "sen", MATCH_AMBIGUOUS },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		CHECK_INT_CASE(cases[i].in,
			       match_word(cases[i].in, cases[i].words,
					  cases[i].n),
			       cases[i].want);
}

TEST(op_name_parsing)
{
	static const struct int_case cases[] = {
		{ "ping", KRDMA_OP_PING },
		{ "send", KRDMA_OP_SEND },
		{ "send_imm", KRDMA_OP_SEND_IMM },
		{ "send-imm", KRDMA_OP_SEND_IMM },
		{ "write", KRDMA_OP_WRITE },
		{ "write_imm", KRDMA_OP_WRITE_IMM },
		{ "read", KRDMA_OP_READ },
		{ "r", KRDMA_OP_READ },
		{ "atomic_fadd", KRDMA_OP_ATOMIC_FADD },
		{ "atomic_c", KRDMA_OP_ATOMIC_CSWAP },
		{ "atomic", MATCH_AMBIGUOUS },
		{ "w", MATCH_AMBIGUOUS },
		{ "recv", MATCH_NONE },
		{ "", MATCH_NONE },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		CHECK_INT_CASE(cases[i].in, parse_op(cases[i].in),
			       cases[i].want);
	CHECK_STR(op_name(KRDMA_OP_WRITE_IMM), "write_imm");
	CHECK_STR(op_name(KRDMA_OP_ATOMIC_CSWAP), "atomic_cswap");
	CHECK(op_name(0) == NULL);
	CHECK(op_name(KRDMA_OP_MAX + 1) == NULL);
}

TEST(mode_name_parsing)
{
	static const struct int_case cases[] = {
		{ "check", KRDMA_MODE_CHECK },
		{ "bw", KRDMA_MODE_BW },
		{ "l", KRDMA_MODE_LAT },
		{ "latency", MATCH_NONE },
		{ "", MATCH_NONE },
		{ NULL, MATCH_NONE },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		CHECK_INT_CASE(str(cases[i].in), parse_mode(cases[i].in),
			       cases[i].want);
	CHECK_STR(krdma_test_mode_strmap[KRDMA_MODE_BW], "bw");
}

TEST(names)
{
	static const struct int_case cases[] = {
		{ "s1", 0 },
		{ "a-b_c.d", 0 },
		{ "123", -EINVAL },	/* would read as an id */
		{ "", -EINVAL },
		{ "a b", -EINVAL },
		{ "a\tb", -EINVAL },
	};
	char long_name[KRDMA_NAME_MAX + 1];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		CHECK_INT_CASE(cases[i].in, check_name(cases[i].in),
			       cases[i].want);
	memset(long_name, 'x', KRDMA_NAME_MAX - 1);
	long_name[KRDMA_NAME_MAX - 1] = '\0';
	CHECK_INT(check_name(long_name), 0);
	long_name[KRDMA_NAME_MAX - 1] = 'x';
	long_name[KRDMA_NAME_MAX] = '\0';
	CHECK_INT(check_name(long_name), -ERANGE);
}

/* A number and how format_size_units() or format_duration_units() says it. */
struct format_case {
	uint64_t v;
	const char *want;
};

static void check_format_cases(int (*format)(char *, size_t, uint64_t),
			       const struct format_case *c, size_t n)
{
	char b[32], what[24];

	for (; n--; c++) {
		snprintf(what, sizeof(what), "%llu", (unsigned long long)c->v);
		format(b, sizeof(b), c->v);
		CHECK_STR_CASE(what, b, c->want);
	}
}

TEST(units_in_messages)
{
	static const struct format_case sizes[] = {
		{ 8U << 20, "8M" },
		{ 1, "1" },
		{ 1536, "1536" },
		{ 4096, "4K" },
		{ 0, "0" },
	};
	static const struct format_case durations[] = {
		{ 100, "100ms" },
		{ 60000, "60s" },
		{ 120000, "2m" },
		{ 3600000, "1h" },
		{ 1500, "1500ms" },
		{ 0, "0ms" },
	};

	check_format_cases(format_size_units, sizes, ARRAY_SIZE(sizes));
	check_format_cases(format_duration_units, durations,
			   ARRAY_SIZE(durations));
}

/* The names fake_resolver() knows, and their addresses. */
static const struct {
	const char *host;
	struct ip_addr a;
} fake_hosts[] = {
	{ "peer-a", { .family = AF_INET, .bytes = { 192, 0, 0, 7 } } },
	{ "fe80::1%eth0", { .family = AF_INET6,
			    .bytes = { 0xfe, 0x80, [15] = 1 }, .scope_id = 7 } },
};

static int fake_resolver(const char *host, struct ip_addr *a, char *err,
			 size_t errlen)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fake_hosts); i++) {
		if (!strcmp(host, fake_hosts[i].host)) {
			*a = fake_hosts[i].a;
			return 0;
		}
	}
	snprintf(err, errlen, "cannot resolve '%s': not found", host);
	return -ENOENT;
}

/*
 * What parse_host_endpoint() returns for a string, and says (if not
 * NULL); when it is 0, the address (if @addr is not NULL: a literal),
 * its family (0: either), the port (-1: none) and the scope (the index
 * of interface @scope_if, if not NULL).
 */
struct host_case {
	const char *in;
	int rc;
	const char *err;
	const char *addr;
	int family;
	int port;
	uint32_t scope;
	const char *scope_if;
};

/* Each row with @resolver (NULL: names refused). */
static void check_host_cases(resolver_fn resolver, const struct host_case *c,
			     size_t n)
{
	struct ip_addr a, want;
	uint16_t port;
	bool has_port;
	char err[128];

	parse_resolver = resolver;
	for (; n--; c++) {
		port = 0;
		has_port = true;
		CHECK_INT_CASE(c->in, parse_host_endpoint(c->in, &a, &port,
							  &has_port, err,
							  sizeof(err)),
			       c->rc);
		if (c->err)
			CHECK_STR_CASE(c->in, err, c->err);
		if (c->rc)
			continue;
		if (c->family)
			CHECK_INT_CASE(c->in, a.family, c->family);
		else
			CHECK_CASE(c->in, a.family == AF_INET ||
				   a.family == AF_INET6);
		if (c->addr)
			CHECK_CASE(c->in, !parse_ip_addr(c->addr, &want) &&
				   want.family == a.family &&
				   !memcmp(want.bytes, a.bytes, sizeof(a.bytes)));
		CHECK_CASE(c->in, has_port == (c->port >= 0));
		if (has_port)
			CHECK_INT_CASE(c->in, port, c->port);
		CHECK_INT_CASE(c->in, a.scope_id,
			       c->scope_if ? if_nametoindex(c->scope_if) :
			       c->scope);
	}
	parse_resolver = NULL;
}

#define CHECK_HOST_CASES(resolver, t)					\
	check_host_cases(resolver, t, ARRAY_SIZE(t))

TEST(host_names)
{
	/* without a resolver (the default), names are refused */
	static const struct host_case unresolved[] = {
		{ "peer-a", .rc = -EINVAL },
	};
	static const struct host_case cases[] = {
		{ "peer-a", 0, .addr = "192.0.0.7", .family = AF_INET,
		  .port = -1 },
		{ "peer-a:7471", 0, .addr = "192.0.0.7", .family = AF_INET,
		  .port = 7471 },
		{ "peer-a:0", .rc = -ERANGE },
		{ "peer-a:x", .rc = -EINVAL },
		{ "peer-b", -ENOENT, .err = "cannot resolve 'peer-b': not found" },
		/* not names: a bracket, two colons, nothing */
		{ "[peer-a]:1", .rc = -EINVAL },
		{ "a:b:c", .rc = -EINVAL },
		{ ":1", .rc = -EINVAL },
	};
	/* the real getaddrinfo(): localhost is in every /etc/hosts */
	static const struct host_case real[] = {
		{ "localhost:9", 0, .port = 9 },
	};

	CHECK_HOST_CASES(NULL, unresolved);
	CHECK_HOST_CASES(fake_resolver, cases);
	CHECK_HOST_CASES(resolve_host, real);
}

TEST(ipv6_zones)
{
	static const struct host_case cases[] = {
		{ "fe80::1%eth0", 0, .addr = "fe80::1", .family = AF_INET6,
		  .port = -1, .scope = 7 },
		{ "[fe80::1%eth0]:7471", 0, .addr = "fe80::1",
		  .family = AF_INET6, .port = 7471, .scope = 7 },
		/* brackets or many colons without a zone are not names */
		{ "[fe80::1]:7471", .rc = -EINVAL },
		{ "fe80::1", .rc = -EINVAL },
		{ "[fe80::1%eth0]x", .rc = -EINVAL },
	};
	/* getaddrinfo() turns the interface into its index */
	static const struct host_case real[] = {
		{ "fe80::1%lo", 0, .addr = "fe80::1", .family = AF_INET6,
		  .port = -1, .scope_if = "lo" },
		{ "[fe80::1%nosuchif0]:1", .rc = -ENOENT },
	};
	struct ip_addr a;

	/* a literal does not take a zone: that is the resolver's */
	CHECK_INT(parse_ip_addr("fe80::1%eth0", &a), -EINVAL);
	CHECK_HOST_CASES(fake_resolver, cases);
	CHECK_HOST_CASES(resolve_host, real);
}

/* Failures leave the output alone (check_u64_cases() sees to it). */
TEST(percentages)
{
	static const struct u64_case cases[] = {
		{ "5", 0, 500 },
		{ "5%", 0, 500 },
		{ "2.5%", 0, 250 },
		{ "0", 0, 0 },
		{ "5%%", .rc = -EINVAL },
		{ "%", .rc = -EINVAL },
		{ "-5%", .rc = -EINVAL },
		{ "5 %", .rc = -EINVAL },
		{ "", .rc = -EINVAL },
	};

	CHECK_U64_CASES(parse_percent, cases);
}

/* One number grammar for every quantity, and each kind's units. */
TEST(number_grammar)
{
	/* counts: powers of 1000, as msg_rate; exact */
	static const struct u64_case counts[] = {
		{ "1000", 0, 1000 },
		{ "10k", 0, 10000 },
		{ "1M", 0, 1000000 },
		{ "1.5M", 0, 1500000 },
		{ "2G", 0, 2000000000 },
		{ ".5k", 0, 500 },
		{ "1.5k", 0, 1500 },
		{ "10M", 0, 10000000 },
		{ "0.5G", 0, 500000000 },
		{ "007", 0, 7 },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "1.", .rc = -EINVAL },
		{ "1 k", .rc = -EINVAL },
		{ "1kk", .rc = -EINVAL },
		{ "1,000", .rc = -EINVAL },
		{ "1.5", .rc = -EDOM },
		{ "1.0001k", .rc = -EDOM },
		{ "1K", .rc = -EINVAL },	/* K is 1024 in sizes */
		{ "1m", .rc = -EINVAL },
		{ "1Mi", .rc = -EINVAL },
		{ "0x10", .rc = -EINVAL },
		{ "1e6", .rc = -EINVAL },
		{ "-1", .rc = -EINVAL },
		{ "", .rc = -EINVAL },
		{ NULL, .rc = -EINVAL },
		{ "18446744073709551616", .rc = -ERANGE },
		{ "18446744073709552G", .rc = -ERANGE },
	};
	/* times: fractions and microseconds, exactly, in ns */
	static const struct u64_case ns[] = {
		{ "1.5s", 0, 1500000000 },
		{ "100us", 0, 100000 },
		{ "250ns", 0, 250 },
		{ "0.5min", 0, 30000000000ULL },
		{ "1.5ns", .rc = -EDOM },
		{ "100", .rc = -EINVAL },
		{ "100 us", .rc = -EINVAL },
		{ "100usec", .rc = -EINVAL },
		{ "6000000h", .rc = -ERANGE },
	};
	/* and in ms */
	static const struct u64_case ms[] = {
		{ "1.5s", 0, 1500 },
		{ "2000us", 0, 2 },
		{ "0.25m", 0, 15000 },
		{ "2.5s", 0, 2500 },		/* timeout 2.5s */
		{ ".5s", 0, 500 },
		{ "0.001s", 0, 1 },
		{ "1.5h", 0, 5400000 },
		{ "1000000ns", 0, 1 },
		/* what the module cannot count is refused, not rounded */
		{ "100us", .rc = -EDOM },
		{ "1500us", .rc = -EDOM },
		{ "1.5ms", .rc = -EDOM },
		{ "0.0001s", .rc = -EDOM },
		{ "1.5", .rc = -EINVAL },	/* a unit is required */
		{ "5.s", .rc = -EINVAL },
		{ "1.5 s", .rc = -EINVAL },
		{ "-1s", .rc = -EINVAL },
		{ "1e3ms", .rc = -EINVAL },
	};
	/* the same grammar in thresholds, rates and percentages */
	static const struct expect_case expects[] = {
		{ "p99<=100us", 0, EXPECT_P99, true, 100000, 100000 },
		{ "p50<=.5ms", 0, EXPECT_P50, true, 500000, 500000 },
		{ "msg_rate>=1.5k", 0, EXPECT_MSG_RATE, false, 1500, 1500 },
		{ "bw>=.5GB/s", 0, EXPECT_BW, false, 500, 500 },
		{ "bw>=5.", .rc = -EINVAL },
	};
	uint64_t v = 42;

	CHECK_U64_CASES(parse_count, counts);
	CHECK_U64_CASES(parse_duration_ns, ns);
	CHECK_U64_CASES(parse_duration_ms, ms);
	CHECK_EXPECT_CASES(expects);
	CHECK_INT(parse_bw("1.", &v), -EINVAL);
	CHECK_INT(parse_percent("2.5", &v), 0);
	CHECK_U64(v, 250);
	CHECK_INT(parse_percent("2.5.", &v), -EINVAL);
}
