// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of tools/parse.c, addr.c and args.c's names: numbers,
 * sizes, durations, addresses, prefix matching, op names, GUIDs.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/krdma.h>

#include "parse.h"
#include "resolve.h"
#include "unit.h"

/* The framework itself must notice a failed check. */
TEST(framework_counts_failures)
{
	int before = unit_failures();

	unit_set_quiet(true);
	CHECK_INT(1 + 1, 3);
	unit_set_quiet(false);
	if (unit_failures() == before + 1)
		unit_set_failures(before);	/* detected: undo it */
	else
		unit_set_failures(before + 1);	/* not detected: fail */
}

static uint64_t size_ok(const char *s)
{
	uint64_t v = 0xdeadbeef;
	int rc = parse_size(s, &v);

	if (rc)
		unit_fail(__FILE__, __LINE__, "parse_size(\"%s\") = %d", s, rc);
	return v;
}

TEST(size_units)
{
	CHECK_U64(size_ok("0"), 0);
	CHECK_U64(size_ok("512"), 512);
	CHECK_U64(size_ok("512B"), 512);
	CHECK_U64(size_ok("4K"), 4096);
	CHECK_U64(size_ok("64k"), 65536);
	CHECK_U64(size_ok("4KB"), 4096);
	CHECK_U64(size_ok("4KiB"), 4096);
	CHECK_U64(size_ok("1M"), 1048576);
	CHECK_U64(size_ok("1MiB"), 1048576);
	CHECK_U64(size_ok("1m"), 1048576);
	CHECK_U64(size_ok("2G"), 2147483648ULL);
	CHECK_U64(size_ok("3g"), 3ULL << 30);
	CHECK_U64(size_ok("1T"), 1ULL << 40);
	CHECK_U64(size_ok("8388608"), KRDMA_MSG_SIZE_MAX);
	/* the largest value that fits */
	CHECK_U64(size_ok("18446744073709551615"), UINT64_MAX);
	CHECK_U64(size_ok("16777215T"), 16777215ULL << 40);
	/* one number grammar: fractions of a unit, when whole bytes */
	CHECK_U64(size_ok("1.5M"), 1572864);
	CHECK_U64(size_ok("0.5K"), 512);
	CHECK_U64(size_ok(".25KiB"), 256);
	CHECK_U64(size_ok("2.0"), 2);
}

TEST(size_rejects)
{
	uint64_t v = 42;

	CHECK_INT(parse_size("99999999999T", &v), -ERANGE);
	CHECK_INT(parse_size("16777216T", &v), -ERANGE);
	CHECK_INT(parse_size("18446744073709551616", &v), -ERANGE);
	CHECK_INT(parse_size("99999999999999999999999", &v), -ERANGE);
	CHECK_INT(parse_size("4Q", &v), -EINVAL);
	CHECK_INT(parse_size("", &v), -EINVAL);
	CHECK_INT(parse_size("-1", &v), -EINVAL);
	CHECK_INT(parse_size("-4K", &v), -EINVAL);
	CHECK_INT(parse_size("+4K", &v), -EINVAL);
	CHECK_INT(parse_size(" 4K", &v), -EINVAL);
	CHECK_INT(parse_size("4K ", &v), -EINVAL);
	CHECK_INT(parse_size("K", &v), -EINVAL);
	CHECK_INT(parse_size("4KK", &v), -EINVAL);
	CHECK_INT(parse_size("4iB", &v), -EINVAL);
	/* a fraction of a byte is no size */
	CHECK_INT(parse_size("1.5", &v), -EDOM);
	CHECK_INT(parse_size("1.0000001K", &v), -EDOM);
	CHECK_INT(parse_size("1.M", &v), -EINVAL);
	CHECK_INT(parse_size(".K", &v), -EINVAL);
	CHECK_INT(parse_size("1.2.3K", &v), -EINVAL);
	CHECK_INT(parse_size("0x10", &v), -EINVAL);
	CHECK_INT(parse_size(NULL, &v), -EINVAL);
	/* failures leave the output alone */
	CHECK_U64(v, 42);
}

TEST(size_ranges)
{
	uint64_t lo = 42, hi = 43;

	CHECK_INT(parse_size_range("2-8M", &lo, &hi), 0);
	CHECK_U64(lo, 2);
	CHECK_U64(hi, 8ULL << 20);
	CHECK_INT(parse_size_range("4K", &lo, &hi), 0);
	CHECK_U64(lo, 4096);
	CHECK_U64(hi, 4096);
	/* a single size need not be a power of two */
	CHECK_INT(parse_size_range("1000", &lo, &hi), 0);
	CHECK_U64(hi, 1000);
	CHECK_INT(parse_size_range("64-64", &lo, &hi), 0);
	CHECK_INT(parse_size_range("1-3", &lo, &hi), 0);
	CHECK_U64(lo, 1);
	CHECK_U64(hi, 3);
	lo = hi = 42;
	CHECK_INT(parse_size_range("3-8K", &lo, &hi), -ERANGE);
	CHECK_INT(parse_size_range("0-8K", &lo, &hi), -ERANGE);
	CHECK_INT(parse_size_range("8K-4K", &lo, &hi), -ERANGE);
	CHECK_INT(parse_size_range("-8K", &lo, &hi), -EINVAL);
	CHECK_INT(parse_size_range("8K-", &lo, &hi), -EINVAL);
	CHECK_INT(parse_size_range("2-4-8", &lo, &hi), -EINVAL);
	CHECK_INT(parse_size_range("2--8", &lo, &hi), -EINVAL);
	CHECK_INT(parse_size_range("123456789012345678901234567890123-4", &lo, &hi),
		  -EINVAL);
	CHECK_INT(parse_size_range(NULL, &lo, &hi), -EINVAL);
	CHECK_U64(lo, 42);
	CHECK_U64(hi, 42);
}

/* A rate limit: a bandwidth, or packets per second (perftest's -p). */
TEST(rates)
{
	uint64_t v = 42;
	bool per_msg = true;

	CHECK_INT(parse_rate("10Gb/s", &v, &per_msg), 0);
	CHECK_U64(v, 1250000000);
	CHECK(!per_msg);
	CHECK_INT(parse_rate("2", &v, &per_msg), 0);
	CHECK_U64(v, 2000000);
	CHECK(!per_msg);
	CHECK_INT(parse_rate("100MiB/s", &v, &per_msg), 0);
	CHECK_U64(v, 104857600);
	CHECK(!per_msg);
	CHECK_INT(parse_rate("1000pps", &v, &per_msg), 0);
	CHECK_U64(v, 1000);
	CHECK(per_msg);
	CHECK_INT(parse_rate("1.5kpps", &v, &per_msg), 0);
	CHECK_U64(v, 1500);
	CHECK(per_msg);
	CHECK_INT(parse_rate("2Mpps", &v, &per_msg), 0);
	CHECK_U64(v, 2000000);
	CHECK(per_msg);
	CHECK_INT(parse_rate("2 pps", &v, &per_msg), -EINVAL);
	CHECK_INT(parse_rate("2p", &v, &per_msg), -EINVAL);
	CHECK_INT(parse_rate("99999999999999999999999pps", &v, &per_msg),
		  -ERANGE);
}

TEST(bandwidths)
{
	uint64_t v = 42;

	/* MB/s, 10^6 bytes/s, bare or with a unit */
	CHECK_INT(parse_bw("2", &v), 0);
	CHECK_U64(v, 2000000);
	CHECK_INT(parse_bw("0.5", &v), 0);
	CHECK_U64(v, 500000);
	CHECK_INT(parse_bw("500MB/s", &v), 0);
	CHECK_U64(v, 500000000);
	CHECK_INT(parse_bw("1.5GB/s", &v), 0);
	CHECK_U64(v, 1500000000);
	CHECK_INT(parse_bw("10Gb/s", &v), 0);
	CHECK_U64(v, 1250000000);
	CHECK_INT(parse_bw(".000001", &v), 0);
	CHECK_U64(v, 1);
	/* perftest's units: --rate_units M and G (bits), its MB/sec (2^20) */
	CHECK_INT(parse_bw("100Mb/s", &v), 0);
	CHECK_U64(v, 12500000);
	CHECK_INT(parse_bw("1.5Mb/s", &v), 0);
	CHECK_U64(v, 187500);
	CHECK_INT(parse_bw("100MiB/s", &v), 0);
	CHECK_U64(v, 104857600);
	CHECK_INT(parse_bw("2GiB/s", &v), 0);
	CHECK_U64(v, 2147483648ULL);
	CHECK_INT(parse_bw("1mb/s", &v), -EINVAL);	/* which one? */
	CHECK_INT(parse_bw("1Mib/s", &v), -EINVAL);
	CHECK_INT(parse_bw("1pps", &v), -EINVAL);	/* a rate, not a bandwidth */
	/* 0 is the kernel's to refuse, with its reason */
	CHECK_INT(parse_bw("0", &v), 0);
	CHECK_U64(v, 0);
	v = 42;
	CHECK_INT(parse_bw("2MB", &v), -EINVAL);
	CHECK_INT(parse_bw("2 MB/s", &v), -EINVAL);
	CHECK_INT(parse_bw("-1", &v), -EINVAL);
	CHECK_INT(parse_bw("0x10", &v), -EINVAL);
	CHECK_INT(parse_bw("inf", &v), -EINVAL);
	CHECK_INT(parse_bw("", &v), -EINVAL);
	/* no exponent: one grammar, DIGITS[.DIGITS] */
	CHECK_INT(parse_bw("1e3", &v), -EINVAL);
	CHECK_INT(parse_bw("99999999999999GB/s", &v), -ERANGE);
	CHECK_INT(parse_bw("99999999999999999999999", &v), -ERANGE);
	CHECK_U64(v, 42);
}

TEST(integers_and_ranges)
{
	uint64_t v = 0;
	uint32_t u = 0;

	CHECK_INT(parse_u64("0", 0, 10, &v), 0);
	CHECK_U64(v, 0);
	CHECK_INT(parse_u64("10", 0, 10, &v), 0);
	CHECK_U64(v, 10);
	CHECK_INT(parse_u64("11", 0, 10, &v), -ERANGE);
	CHECK_INT(parse_u64("4", 5, 10, &v), -ERANGE);
	CHECK_INT(parse_u64("0x1f", 0, 100, &v), 0);
	CHECK_U64(v, 31);
	CHECK_INT(parse_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
	CHECK_U64(v, UINT64_MAX);
	CHECK_INT(parse_u64("18446744073709551616", 0, UINT64_MAX, &v),
		  -ERANGE);
	CHECK_INT(parse_u64("12abc", 0, 100, &v), -EINVAL);
	CHECK_INT(parse_u64("-1", 0, 100, &v), -EINVAL);
	CHECK_INT(parse_u64("", 0, 100, &v), -EINVAL);
	CHECK_INT(parse_u64("0x", 0, 100, &v), -EINVAL);
	CHECK_INT(parse_u32("4294967295", 0, UINT32_MAX, &u), 0);
	CHECK_U64(u, UINT32_MAX);
	CHECK_INT(parse_u32("4294967296", 0, UINT32_MAX, &u), -ERANGE);
	CHECK_INT(parse_u32("129", 1, KRDMA_DEPTH_MAX, &u), -ERANGE);
	CHECK_INT(parse_u32("128", 1, KRDMA_DEPTH_MAX, &u), 0);
	CHECK_U64(u, 128);
}

TEST(durations)
{
	uint64_t ms = 0;

	CHECK_INT(parse_duration_ms("10s", &ms), 0);
	CHECK_U64(ms, 10000);
	CHECK_INT(parse_duration_ms("500ms", &ms), 0);
	CHECK_U64(ms, 500);
	CHECK_INT(parse_duration_ms("2m", &ms), 0);
	CHECK_U64(ms, 120000);
	CHECK_INT(parse_duration_ms("1h", &ms), 0);
	CHECK_U64(ms, 3600000);
	/* a bare number is refused: ms, s, m? */
	CHECK_INT(parse_duration_ms("250", &ms), -EINVAL);
	CHECK_INT(parse_duration_ms("250ms", &ms), 0);
	CHECK_U64(ms, 250);
	CHECK_INT(parse_duration_ms("0s", &ms), 0);
	CHECK_U64(ms, 0);
	ms = 7;
	CHECK_INT(parse_duration_ms("10x", &ms), -EINVAL);
	CHECK_INT(parse_duration_ms("s", &ms), -EINVAL);
	CHECK_INT(parse_duration_ms("", &ms), -EINVAL);
	CHECK_INT(parse_duration_ms("-1s", &ms), -EINVAL);
	/* finer than the module's milliseconds: said, not rounded */
	CHECK_INT(parse_duration_ms("100us", &ms), -EDOM);
	CHECK_INT(parse_duration_ms("1.0005s", &ms), -EDOM);
	CHECK_INT(parse_duration_ms("1.5", &ms), -EINVAL);
	CHECK_INT(parse_duration_ms("10 s", &ms), -EINVAL);
	CHECK_INT(parse_duration_ms("10sec", &ms), -EINVAL);
	CHECK_INT(parse_duration_ms("99999999999999999h", &ms), -ERANGE);
	CHECK_U64(ms, 7);
}

TEST(expectations)
{
	struct expect e;

	CHECK_INT(parse_expect("bw>=500", &e), 0);
	CHECK_INT(e.metric, EXPECT_BW);
	CHECK(!e.at_most && e.value == 500);
	CHECK_INT(parse_expect("min_qp_bw>=1.5Gb/s", &e), 0);
	CHECK_INT(e.metric, EXPECT_MIN_QP_BW);
	CHECK(e.value > 187.49 && e.value < 187.51);
	CHECK_INT(parse_expect("bw>=2GB/s", &e), 0);
	CHECK(e.value == 2000);
	/* perftest's MB/sec, in MB/s (10^6) as the figures are compared */
	CHECK_INT(parse_expect("bw>=100MiB/s", &e), 0);
	CHECK(e.value > 104.857 && e.value < 104.858);
	CHECK_INT(parse_expect("msg_rate>=1.2M", &e), 0);
	CHECK(e.value > 1199999 && e.value < 1200001);
	CHECK_INT(parse_expect("p99<=2ms", &e), 0);
	CHECK_INT(e.metric, EXPECT_P99);
	CHECK(e.at_most && e.value == 2e6);
	CHECK_INT(parse_expect("p99.9<=1.5us", &e), 0);
	CHECK_INT(e.metric, EXPECT_P999);
	CHECK(e.value == 1500);
	CHECK_INT(parse_expect("p999<=1s", &e), 0);
	CHECK_INT(e.metric, EXPECT_P999);
	CHECK_INT(parse_expect("stdev<=250ns", &e), 0);
	CHECK(e.value == 250);
	CHECK(expect_metric_is_latency(EXPECT_MAX));
	CHECK(!expect_metric_is_latency(EXPECT_MSG_RATE));
	/* latency needs its unit; names in full; only >= and <= */
	CHECK_INT(parse_expect("p99<=2", &e), -EINVAL);
	CHECK_INT(parse_expect("p9<=2ms", &e), -EINVAL);
	CHECK_INT(parse_expect("b>=1", &e), -EINVAL);
	CHECK_INT(parse_expect("bw>1", &e), -EINVAL);
	CHECK_INT(parse_expect("bw=1", &e), -EINVAL);
	CHECK_INT(parse_expect("bw>=", &e), -EINVAL);
	CHECK_INT(parse_expect(">=1", &e), -EINVAL);
	CHECK_INT(parse_expect("bw>=-1", &e), -EINVAL);
	CHECK_INT(parse_expect("bw>= 1", &e), -EINVAL);
	CHECK_INT(parse_expect("bw>=0x10", &e), -EINVAL);
	CHECK_INT(parse_expect("bw>=inf", &e), -EINVAL);
	CHECK_INT(parse_expect("bw>=1e9", &e), -EINVAL);
	CHECK_INT(parse_expect("bw>=99999999999999999999999", &e), -ERANGE);
	CHECK_INT(parse_expect("bw>=10MB", &e), -EINVAL);
	CHECK_INT(parse_expect("msg_rate>=1Mpps", &e), -EINVAL);
	CHECK_INT(parse_expect("a_very_long_metric_name>=1", &e), -EINVAL);
}

TEST(addresses)
{
	struct ip_addr a;
	uint8_t want6[16];
	char buf[64];
	uint16_t port = 0;
	bool has_port = true;

	CHECK_INT(parse_ip_addr("10.0.0.1", &a), 0);
	CHECK_INT(a.family, AF_INET);
	CHECK(a.bytes[0] == 10 && a.bytes[1] == 0 && a.bytes[2] == 0 &&
	      a.bytes[3] == 1);
	CHECK_INT(parse_ip_addr("fe80::1", &a), 0);
	CHECK_INT(a.family, AF_INET6);
	inet_pton(AF_INET6, "fe80::1", want6);
	CHECK(!memcmp(a.bytes, want6, 16));
	CHECK_INT(parse_ip_addr("::ffff:10.0.0.1", &a), 0);
	CHECK_INT(a.family, AF_INET6);

	CHECK_INT(parse_ip_addr("10.0.0", &a), -EINVAL);
	CHECK_INT(parse_ip_addr("10.0.0.256", &a), -EINVAL);
	CHECK_INT(parse_ip_addr("10.0.0.1.2", &a), -EINVAL);
	CHECK_INT(parse_ip_addr("fe80::1::2", &a), -EINVAL);
	CHECK_INT(parse_ip_addr("fe80::1%eth0", &a), -EINVAL);
	CHECK_INT(parse_ip_addr("host.example", &a), -EINVAL);
	CHECK_INT(parse_ip_addr("", &a), -EINVAL);

	CHECK_INT(parse_endpoint("10.0.0.1:4791", &a, &port, &has_port), 0);
	CHECK(has_port);
	CHECK_INT(port, 4791);
	CHECK_INT(a.family, AF_INET);
	CHECK_INT(parse_endpoint("[fe80::1]:18515", &a, &port, &has_port), 0);
	CHECK(has_port);
	CHECK_INT(port, 18515);
	CHECK_INT(a.family, AF_INET6);
	CHECK_INT(parse_endpoint("fe80::2", &a, &port, &has_port), 0);
	CHECK(!has_port);
	CHECK_INT(a.family, AF_INET6);
	CHECK_INT(parse_endpoint("[::1]", &a, &port, &has_port), 0);
	CHECK(!has_port);
	CHECK_INT(parse_endpoint("192.168.1.2", &a, &port, &has_port), 0);
	CHECK(!has_port);

	CHECK_INT(parse_endpoint("10.0.0.1:0", &a, &port, &has_port), -ERANGE);
	CHECK_INT(parse_endpoint("10.0.0.1:65536", &a, &port, &has_port),
		  -ERANGE);
	CHECK_INT(parse_endpoint("10.0.0.1:", &a, &port, &has_port), -EINVAL);
	CHECK_INT(parse_endpoint("10.0.0.1:http", &a, &port, &has_port),
		  -EINVAL);
	CHECK_INT(parse_endpoint("[10.0.0.1]:80", &a, &port, &has_port),
		  -EINVAL);
	CHECK_INT(parse_endpoint("[fe80::1]80", &a, &port, &has_port),
		  -EINVAL);
	CHECK_INT(parse_endpoint("[fe80::1", &a, &port, &has_port), -EINVAL);
	CHECK_INT(parse_endpoint(":80", &a, &port, &has_port), -EINVAL);

	CHECK_INT(parse_port("65535", &port), 0);
	CHECK_INT(port, 65535);
	CHECK_INT(parse_port("0", &port), -ERANGE);
	CHECK_INT(parse_port("0x50", &port), -EINVAL);
	CHECK_INT(parse_port("-1", &port), -EINVAL);

	parse_ip_addr("10.0.0.1", &a);
	format_endpoint(buf, sizeof(buf), &a, 4791);
	CHECK_STR(buf, "10.0.0.1:4791");
	parse_ip_addr("fe80::1", &a);
	format_endpoint(buf, sizeof(buf), &a, 4791);
	CHECK_STR(buf, "[fe80::1]:4791");
	format_endpoint(buf, sizeof(buf), &a, -1);
	CHECK_STR(buf, "fe80::1");
	format_endpoint(buf, sizeof(buf), NULL, 4791);
	CHECK_STR(buf, "*:4791");
}

TEST(guid_format)
{
	char buf[32];

	format_guid(buf, sizeof(buf), 0x505400fffe000001ULL);
	CHECK_STR(buf, "5054:00ff:fe00:0001");
	format_guid(buf, sizeof(buf), 0);
	CHECK_STR(buf, "0000:0000:0000:0000");
	format_guid(buf, sizeof(buf), UINT64_MAX);
	CHECK_STR(buf, "ffff:ffff:ffff:ffff");
	format_guid(buf, sizeof(buf), 0x0123456789abcdefULL);
	CHECK_STR(buf, "0123:4567:89ab:cdef");
}

TEST(prefix_matching)
{
	static const char *const words[] = {
		"show", "set", "session", "stats", "del",
	};
	static const char *const nested[] = { "send", "send_imm" };

	CHECK_INT(match_word("show", words, 5), 0);
	CHECK_INT(match_word("sh", words, 5), 0);
	CHECK_INT(match_word("set", words, 5), 1);	/* exact beats prefix */
	CHECK_INT(match_word("sess", words, 5), 2);
	CHECK_INT(match_word("st", words, 5), 3);
	CHECK_INT(match_word("d", words, 5), 4);
	CHECK_INT(match_word("s", words, 5), MATCH_AMBIGUOUS);
	CHECK_INT(match_word("se", words, 5), MATCH_AMBIGUOUS);
	CHECK_INT(match_word("x", words, 5), MATCH_NONE);
	CHECK_INT(match_word("shows", words, 5), MATCH_NONE);
	CHECK_INT(match_word("", words, 5), MATCH_NONE);
	CHECK_INT(match_word("send", nested, 2), 0);
	CHECK_INT(match_word("send_", nested, 2), 1);
	CHECK_INT(match_word("sen", nested, 2), MATCH_AMBIGUOUS);
}

TEST(op_name_parsing)
{
	CHECK_INT(parse_op("ping"), KRDMA_OP_PING);
	CHECK_INT(parse_op("send"), KRDMA_OP_SEND);
	CHECK_INT(parse_op("send_imm"), KRDMA_OP_SEND_IMM);
	CHECK_INT(parse_op("send-imm"), KRDMA_OP_SEND_IMM);
	CHECK_INT(parse_op("write"), KRDMA_OP_WRITE);
	CHECK_INT(parse_op("write_imm"), KRDMA_OP_WRITE_IMM);
	CHECK_INT(parse_op("read"), KRDMA_OP_READ);
	CHECK_INT(parse_op("r"), KRDMA_OP_READ);
	CHECK_INT(parse_op("atomic_fadd"), KRDMA_OP_ATOMIC_FADD);
	CHECK_INT(parse_op("atomic_c"), KRDMA_OP_ATOMIC_CSWAP);
	CHECK_INT(parse_op("atomic"), MATCH_AMBIGUOUS);
	CHECK_INT(parse_op("w"), MATCH_AMBIGUOUS);
	CHECK_INT(parse_op("recv"), MATCH_NONE);
	CHECK_INT(parse_op(""), MATCH_NONE);
	CHECK_STR(op_name(KRDMA_OP_WRITE_IMM), "write_imm");
	CHECK_STR(op_name(KRDMA_OP_ATOMIC_CSWAP), "atomic_cswap");
	CHECK(op_name(0) == NULL);
	CHECK(op_name(KRDMA_OP_MAX + 1) == NULL);
}

TEST(mode_name_parsing)
{
	CHECK_INT(parse_mode("check"), KRDMA_MODE_CHECK);
	CHECK_INT(parse_mode("bw"), KRDMA_MODE_BW);
	CHECK_INT(parse_mode("l"), KRDMA_MODE_LAT);
	CHECK_INT(parse_mode("latency"), MATCH_NONE);
	CHECK_INT(parse_mode(""), MATCH_NONE);
	CHECK_INT(parse_mode(NULL), MATCH_NONE);
	CHECK_STR(mode_names[KRDMA_MODE_BW], "bw");
}

TEST(names)
{
	char long_name[KRDMA_NAME_MAX + 1];

	CHECK_INT(check_name("s1"), 0);
	CHECK_INT(check_name("a-b_c.d"), 0);
	CHECK_INT(check_name("123"), -EINVAL);	/* would read as an id */
	CHECK_INT(check_name(""), -EINVAL);
	CHECK_INT(check_name("a b"), -EINVAL);
	CHECK_INT(check_name("a\tb"), -EINVAL);
	memset(long_name, 'x', KRDMA_NAME_MAX - 1);
	long_name[KRDMA_NAME_MAX - 1] = '\0';
	CHECK_INT(check_name(long_name), 0);
	long_name[KRDMA_NAME_MAX - 1] = 'x';
	long_name[KRDMA_NAME_MAX] = '\0';
	CHECK_INT(check_name(long_name), -ERANGE);
}

TEST(units_in_messages)
{
	char b[32];

	format_size_units(b, sizeof(b), 8U << 20);
	CHECK_STR(b, "8M");
	format_size_units(b, sizeof(b), 1);
	CHECK_STR(b, "1");
	format_size_units(b, sizeof(b), 1536);
	CHECK_STR(b, "1536");
	format_size_units(b, sizeof(b), 4096);
	CHECK_STR(b, "4K");
	format_size_units(b, sizeof(b), 0);
	CHECK_STR(b, "0");
	format_duration_units(b, sizeof(b), 100);
	CHECK_STR(b, "100ms");
	format_duration_units(b, sizeof(b), 60000);
	CHECK_STR(b, "60s");
	format_duration_units(b, sizeof(b), 120000);
	CHECK_STR(b, "2m");
	format_duration_units(b, sizeof(b), 3600000);
	CHECK_STR(b, "1h");
	format_duration_units(b, sizeof(b), 1500);
	CHECK_STR(b, "1500ms");
	format_duration_units(b, sizeof(b), 0);
	CHECK_STR(b, "0ms");
}

static int fake_resolver(const char *host, struct ip_addr *a, char *err,
			 size_t errlen)
{
	if (strcmp(host, "peer-a")) {
		snprintf(err, errlen, "cannot resolve '%s': not found", host);
		return -ENOENT;
	}
	memset(a, 0, sizeof(*a));
	a->family = AF_INET;
	a->bytes[0] = 192;
	a->bytes[3] = 7;
	return 0;
}

TEST(host_names)
{
	struct ip_addr a;
	uint16_t port = 0;
	bool has_port = true;
	char err[128];

	/* without a resolver (the default), names are refused */
	parse_resolver = NULL;
	CHECK_INT(parse_host_endpoint("peer-a", &a, &port, &has_port, err,
				      sizeof(err)), -EINVAL);
	parse_resolver = fake_resolver;
	CHECK_INT(parse_host_endpoint("peer-a", &a, &port, &has_port, err,
				      sizeof(err)), 0);
	CHECK(a.family == AF_INET && a.bytes[0] == 192 && a.bytes[3] == 7);
	CHECK(!has_port);
	CHECK_INT(parse_host_endpoint("peer-a:7471", &a, &port, &has_port, err,
				      sizeof(err)), 0);
	CHECK(has_port);
	CHECK_U64(port, 7471);
	CHECK_INT(parse_host_endpoint("peer-a:0", &a, &port, &has_port, err,
				      sizeof(err)), -ERANGE);
	CHECK_INT(parse_host_endpoint("peer-a:x", &a, &port, &has_port, err,
				      sizeof(err)), -EINVAL);
	CHECK_INT(parse_host_endpoint("peer-b", &a, &port, &has_port, err,
				      sizeof(err)), -ENOENT);
	CHECK_STR(err, "cannot resolve 'peer-b': not found");
	/* not names: a bracket, two colons, nothing */
	CHECK_INT(parse_host_endpoint("[peer-a]:1", &a, &port, &has_port, err,
				      sizeof(err)), -EINVAL);
	CHECK_INT(parse_host_endpoint("a:b:c", &a, &port, &has_port, err,
				      sizeof(err)), -EINVAL);
	CHECK_INT(parse_host_endpoint(":1", &a, &port, &has_port, err,
				      sizeof(err)), -EINVAL);
	/* the real getaddrinfo(): localhost is in every /etc/hosts */
	parse_resolver = resolve_host;
	CHECK_INT(parse_host_endpoint("localhost:9", &a, &port, &has_port, err,
				      sizeof(err)), 0);
	CHECK(a.family == AF_INET || a.family == AF_INET6);
	CHECK_U64(port, 9);
	parse_resolver = NULL;
}

static int fake_zone_resolver(const char *host, struct ip_addr *a, char *err,
			      size_t errlen)
{
	if (strcmp(host, "fe80::1%eth0")) {
		snprintf(err, errlen, "cannot resolve '%s'", host);
		return -ENOENT;
	}
	memset(a, 0, sizeof(*a));
	a->family = AF_INET6;
	a->bytes[0] = 0xfe;
	a->bytes[1] = 0x80;
	a->bytes[15] = 1;
	a->scope_id = 7;
	return 0;
}

TEST(ipv6_zones)
{
	struct ip_addr a;
	uint16_t port = 0;
	bool has_port = true;
	char err[128];

	/* a literal does not take a zone: that is the resolver's */
	CHECK_INT(parse_ip_addr("fe80::1%eth0", &a), -EINVAL);
	parse_resolver = fake_zone_resolver;
	CHECK_INT(parse_host_endpoint("fe80::1%eth0", &a, &port, &has_port, err,
				      sizeof(err)), 0);
	CHECK(a.family == AF_INET6 && a.scope_id == 7 && !has_port);
	CHECK_INT(parse_host_endpoint("[fe80::1%eth0]:7471", &a, &port,
				      &has_port, err, sizeof(err)), 0);
	CHECK(a.scope_id == 7 && has_port);
	CHECK_U64(port, 7471);
	/* brackets or many colons without a zone are not names */
	CHECK_INT(parse_host_endpoint("[fe80::1]:7471", &a, &port, &has_port,
				      err, sizeof(err)), -EINVAL);
	CHECK_INT(parse_host_endpoint("fe80::1", &a, &port, &has_port, err,
				      sizeof(err)), -EINVAL);
	CHECK_INT(parse_host_endpoint("[fe80::1%eth0]x", &a, &port, &has_port,
				      err, sizeof(err)), -EINVAL);
	/* getaddrinfo() turns the interface into its index */
	parse_resolver = resolve_host;
	CHECK_INT(parse_host_endpoint("fe80::1%lo", &a, &port, &has_port, err,
				      sizeof(err)), 0);
	CHECK(a.family == AF_INET6 && a.scope_id == if_nametoindex("lo"));
	CHECK_INT(parse_host_endpoint("[fe80::1%nosuchif0]:1", &a, &port,
				      &has_port, err, sizeof(err)), -ENOENT);
	parse_resolver = NULL;
}

TEST(percentages)
{
	uint64_t v = 7;

	CHECK_INT(parse_percent("5", &v), 0);
	CHECK_U64(v, 500);
	CHECK_INT(parse_percent("5%", &v), 0);
	CHECK_U64(v, 500);
	CHECK_INT(parse_percent("2.5%", &v), 0);
	CHECK_U64(v, 250);
	CHECK_INT(parse_percent("0", &v), 0);
	CHECK_U64(v, 0);
	CHECK_INT(parse_percent("5%%", &v), -EINVAL);
	CHECK_INT(parse_percent("%", &v), -EINVAL);
	CHECK_INT(parse_percent("-5%", &v), -EINVAL);
	CHECK_INT(parse_percent("5 %", &v), -EINVAL);
	CHECK_INT(parse_percent("", &v), -EINVAL);
	CHECK_U64(v, 0);
}

/* One number grammar for every quantity, and each kind's units. */
TEST(number_grammar)
{
	uint64_t v = 42;
	struct expect e;

	/* counts: powers of 1000, as msg_rate; exact */
	CHECK_INT(parse_count("1000", &v), 0);
	CHECK_U64(v, 1000);
	CHECK_INT(parse_count("10k", &v), 0);
	CHECK_U64(v, 10000);
	CHECK_INT(parse_count("1M", &v), 0);
	CHECK_U64(v, 1000000);
	CHECK_INT(parse_count("1.5M", &v), 0);
	CHECK_U64(v, 1500000);
	CHECK_INT(parse_count("2G", &v), 0);
	CHECK_U64(v, 2000000000);
	CHECK_INT(parse_count(".5k", &v), 0);
	CHECK_U64(v, 500);
	CHECK_INT(parse_count("18446744073709551615", &v), 0);
	CHECK_U64(v, UINT64_MAX);
	v = 42;
	CHECK_INT(parse_count("1.5", &v), -EDOM);
	CHECK_INT(parse_count("1.0001k", &v), -EDOM);
	CHECK_INT(parse_count("1K", &v), -EINVAL);	/* K is 1024 in sizes */
	CHECK_INT(parse_count("1m", &v), -EINVAL);
	CHECK_INT(parse_count("1Mi", &v), -EINVAL);
	CHECK_INT(parse_count("0x10", &v), -EINVAL);
	CHECK_INT(parse_count("1e6", &v), -EINVAL);
	CHECK_INT(parse_count("-1", &v), -EINVAL);
	CHECK_INT(parse_count("", &v), -EINVAL);
	CHECK_INT(parse_count(NULL, &v), -EINVAL);
	CHECK_INT(parse_count("18446744073709551616", &v), -ERANGE);
	CHECK_INT(parse_count("18446744073709552G", &v), -ERANGE);
	CHECK_U64(v, 42);

	/* times: fractions and microseconds, exactly, in ns */
	CHECK_INT(parse_duration_ns("1.5s", &v), 0);
	CHECK_U64(v, 1500000000);
	CHECK_INT(parse_duration_ns("100us", &v), 0);
	CHECK_U64(v, 100000);
	CHECK_INT(parse_duration_ns("250ns", &v), 0);
	CHECK_U64(v, 250);
	CHECK_INT(parse_duration_ns("0.5min", &v), 0);
	CHECK_U64(v, 30000000000ULL);
	CHECK_INT(parse_duration_ns("1.5ns", &v), -EDOM);
	CHECK_INT(parse_duration_ns("100", &v), -EINVAL);
	CHECK_INT(parse_duration_ns("100 us", &v), -EINVAL);
	CHECK_INT(parse_duration_ns("100usec", &v), -EINVAL);
	CHECK_INT(parse_duration_ns("6000000h", &v), -ERANGE);
	CHECK_INT(parse_duration_ms("1.5s", &v), 0);
	CHECK_U64(v, 1500);
	CHECK_INT(parse_duration_ms("2000us", &v), 0);
	CHECK_U64(v, 2);
	CHECK_INT(parse_duration_ms("0.25m", &v), 0);
	CHECK_U64(v, 15000);

	/* the same grammar in thresholds, rates and percentages */
	CHECK_INT(parse_expect("p99<=100us", &e), 0);
	CHECK(e.value == 100000);
	CHECK_INT(parse_expect("p50<=.5ms", &e), 0);
	CHECK(e.value == 500000);
	CHECK_INT(parse_expect("msg_rate>=1.5k", &e), 0);
	CHECK(e.value == 1500);
	CHECK_INT(parse_expect("bw>=.5GB/s", &e), 0);
	CHECK(e.value == 500);
	CHECK_INT(parse_expect("bw>=5.", &e), -EINVAL);
	CHECK_INT(parse_bw("1.", &v), -EINVAL);
	CHECK_INT(parse_percent("2.5", &v), 0);
	CHECK_U64(v, 250);
	CHECK_INT(parse_percent("2.5.", &v), -EINVAL);
}
