// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the output layer (tools/output.c) and of the record
 * printers fed with real Generic Netlink messages built with libnl.
 */
#include <inttypes.h>
#include <string.h>
#include <sys/socket.h>

#include <json.h>
#include <netlink/genl/genl.h>

#include <linux/krdma.h>

#include "attrs.h"
#include "output.h"
#include "records.h"
#include "unit.h"

#define FAKE_FAMILY 0x42

/* ---- output layer ---- */

static void print_sample(void)
{
	open_json_array(NULL);
	open_json_object(NULL);
	print_uint(PRINT_ANY, "id", "id %" PRIu64, 7);
	print_string(PRINT_ANY, "name", " name %s", "a\"b");
	print_int(PRINT_ANY, "status", " status %" PRId64, -5);
	print_bool(PRINT_ANY, "ok", " ok %s", false);
	print_float(PRINT_ANY, "rate", " %.2f MB/s", 1234.5678, 2);
	print_string(PRINT_TEXT, NULL, " text-only", "");
	print_uint(PRINT_JSON, "json_only", NULL, 1);
	open_json_object("nested");
	print_uint(PRINT_ANY, "big", " big %" PRIu64, UINT64_MAX);
	close_json_object();
	print_nl();
	close_json_object();
	close_json_array();
}

TEST(output_text)
{
	struct capture c;

	capture_start(&c, false, false);
	print_sample();
	CHECK_STR(capture_end(&c),
		  "id 7 name a\"b status -5 ok false 1234.57 MB/s text-only big 18446744073709551615\n");
	capture_free(&c);

	/* one leading space is dropped at the start of a line, not two */
	capture_start(&c, false, false);
	print_text(" a");
	print_nl();
	print_text("  b");
	print_nl();
	CHECK_STR(capture_end(&c), "a\n  b\n");
	capture_free(&c);
}

TEST(output_json)
{
	struct json_object *root, *o, *v, *n;
	struct capture c;
	const char *s;

	capture_start(&c, true, false);
	print_sample();
	s = capture_end(&c);
	CHECK(strchr(s, '\n') == s + strlen(s) - 1);	/* one line */
	root = json_tokener_parse(s);
	CHECK(root && json_object_is_type(root, json_type_array));
	if (!root || json_object_array_length(root) != 1) {
		unit_fail(__FILE__, __LINE__, "bad JSON: %s", s);
		json_object_put(root);
		capture_free(&c);
		return;
	}
	o = json_object_array_get_idx(root, 0);
	CHECK(json_object_object_get_ex(o, "id", &v) &&
	      json_object_get_int64(v) == 7);
	CHECK(json_object_object_get_ex(o, "name", &v) &&
	      !strcmp(json_object_get_string(v), "a\"b"));
	CHECK(json_object_object_get_ex(o, "status", &v) &&
	      json_object_get_int64(v) == -5);
	CHECK(json_object_object_get_ex(o, "ok", &v) &&
	      json_object_is_type(v, json_type_boolean) &&
	      !json_object_get_boolean(v));
	CHECK(json_object_object_get_ex(o, "rate", &v) &&
	      json_object_is_type(v, json_type_double) &&
	      json_object_get_double(v) > 1234.56 &&
	      json_object_get_double(v) < 1234.58);
	CHECK(strstr(s, "\"rate\":1234.57") != NULL);
	CHECK(json_object_object_get_ex(o, "json_only", &v));
	CHECK(!strstr(s, "text-only"));
	CHECK(json_object_object_get_ex(o, "nested", &n) &&
	      json_object_object_get_ex(n, "big", &v) &&
	      json_object_get_uint64(v) == UINT64_MAX);
	json_object_put(root);
	capture_free(&c);
}

TEST(output_json_pretty)
{
	struct json_object *root;
	struct capture c;
	const char *s;

	capture_start(&c, true, true);
	print_sample();
	s = capture_end(&c);
	/* several lines, indented, and still the same document */
	CHECK(strstr(s, "\n  ") != NULL);
	root = json_tokener_parse(s);
	CHECK(root && json_object_array_length(root) == 1);
	json_object_put(root);
	capture_free(&c);
}

TEST(output_json_reset_discards)
{
	struct capture c;

	capture_start(&c, true, false);
	open_json_array(NULL);
	open_json_object(NULL);
	print_uint(PRINT_ANY, "id", "%" PRIu64, 1);
	out_reset();	/* e.g. the kernel returned an error mid-dump */
	CHECK_STR(capture_end(&c), "");
	capture_free(&c);
}

/* ---- records from netlink messages ---- */

static struct nl_msg *new_msg(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg || !genlmsg_put(msg, 0, 1, FAKE_FAMILY, 0, 0, cmd,
				 KRDMA_GENL_VERSION)) {
		fprintf(stderr, "cannot build a message\n");
		exit(2);
	}
	return msg;
}

static void put_port(struct nl_msg *msg, uint32_t index, uint8_t state,
		     uint32_t mtu)
{
	struct nlattr *nest = nla_nest_start(msg, KRDMA_A_DEV_PORT |
					     NLA_F_NESTED);

	nla_put_u32(msg, KRDMA_PORT_A_INDEX, index);
	nla_put_u8(msg, KRDMA_PORT_A_STATE, state);
	nla_put_u32(msg, KRDMA_PORT_A_ACTIVE_MTU, mtu);
	nla_nest_end(msg, nest);
}

static struct nl_msg *dev_msg(int ports)
{
	struct nl_msg *msg = new_msg(KRDMA_CMD_DEV_GET);

	nla_put_u32(msg, KRDMA_A_DEV_INDEX, 0);
	nla_put_string(msg, KRDMA_A_DEV_NAME, "rxe0");
	nla_put_u64(msg, KRDMA_A_DEV_NODE_GUID, 0x505400fffe000001ULL);
	nla_put_u32(msg, KRDMA_A_DEV_MAX_QP_RD_ATOM, 128);
	nla_put_u32(msg, KRDMA_A_DEV_MAX_QP_INIT_RD_ATOM, 128);
	nla_put_u32(msg, KRDMA_A_DEV_MAX_FAST_REG_PAGES, 512);
	nla_put_u32(msg, KRDMA_A_DEV_MAX_SGE, 32);
	nla_put_u8(msg, KRDMA_A_DEV_ATOMIC_CAP, 1);
	if (ports >= 1)
		put_port(msg, 1, 4, 1024);
	if (ports >= 2)
		put_port(msg, 2, 1, 4096);
	return msg;
}

/* Parse like the tool does (krdma_policy) and hand to a printer. */
static int feed(struct nl_msg *msg, knl_msg_fn fn)
{
	struct nlattr *tb[KRDMA_A_MAX + 1];
	int rc;

	rc = genlmsg_parse(nlmsg_hdr(msg), 0, tb, KRDMA_A_MAX, krdma_policy);
	if (rc < 0) {
		unit_fail(__FILE__, __LINE__, "genlmsg_parse: %d", rc);
		return rc;
	}
	return fn(tb, nlmsg_hdr(msg), NULL);
}

/*
 * What a printer makes of a message: with -j (@json) and -s (@stats),
 * the text exactly (@text) or with @has in it, the values @json_has
 * names in its JSON.
 */
struct print_case {
	const char *name;	/* the printer's */
	knl_msg_fn print;
	bool json, stats;
	const char *text, *has;
	struct json_want json_has[16];
};

#define PRINTER(fn)	.name = #fn, .print = fn

/* Each row's printer fed @msg; a failure names the row's printer. */
static void check_prints(struct nl_msg *msg, const struct print_case *c,
			 size_t n)
{
	struct capture cap;
	char what[64];
	const char *s;

	for (; n--; c++) {
		snprintf(what, sizeof(what), "%s%s%s", c->json ? "-j " : "",
			 c->stats ? "-s " : "", c->name);
		opts.stats = c->stats;
		capture_start(&cap, c->json, false);
		CHECK_INT_CASE(what, feed(msg, c->print), 0);
		s = capture_end(&cap);
		opts.stats = false;
		if (c->text)
			CHECK_STR_CASE(what, s, c->text);
		CHECK_HAS_CASE(what, s, c->has);
		check_json(what, s, c->json_has, ARRAY_SIZE(c->json_has));
		capture_free(&cap);
	}
}

#define CHECK_PRINTS(msg, t)	check_prints(msg, t, ARRAY_SIZE(t))

TEST(dev_record_text)
{
	static const struct print_case two_ports[] = {
		{ PRINTER(dev_print),
		  .text = "0: rxe0 port 1 state ACTIVE mtu 1024 max_qp_rd_atom 128 max_qp_init_rd_atom 128 max_fast_reg_pages 512 max_sge 32 atomic hca node_guid 5054:00ff:fe00:0001\n"
			  "0: rxe0 port 2 state DOWN mtu 4096 max_qp_rd_atom 128 max_qp_init_rd_atom 128 max_fast_reg_pages 512 max_sge 32 atomic hca node_guid 5054:00ff:fe00:0001\n" },
	};
	/* no port: still one line for the device */
	static const struct print_case no_port[] = {
		{ PRINTER(dev_print),
		  .text = "0: rxe0 max_qp_rd_atom 128 max_qp_init_rd_atom 128 max_fast_reg_pages 512 max_sge 32 atomic hca node_guid 5054:00ff:fe00:0001\n" },
	};
	struct nl_msg *msg = dev_msg(2);

	CHECK_PRINTS(msg, two_ports);
	nlmsg_free(msg);
	msg = dev_msg(0);
	CHECK_PRINTS(msg, no_port);
	nlmsg_free(msg);
}

/* dev_print() inside an array, as "dev show" dumps. */
static int dev_print_array(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	int rc;

	open_json_array(NULL);
	rc = dev_print(tb, nlh, arg);
	close_json_array();
	return rc;
}

TEST(dev_record_json)
{
	static const struct print_case cases[] = {
		{ PRINTER(dev_print_array), .json = true,
		  .json_has = {
			JSON_LEN("", 2),
			JSON_NUM("0/dev_index", 0),
			JSON_STRING("0/dev", "rxe0"),
			JSON_NUM("0/port", 1),
			JSON_STRING("0/state", "ACTIVE"),
			JSON_NUM("0/mtu", 1024),
			JSON_NUM("0/max_qp_rd_atom", 128),
			JSON_NUM("0/max_qp_init_rd_atom", 128),
			JSON_NUM("0/max_fast_reg_pages", 512),
			JSON_NUM("0/max_sge", 32),
			JSON_STRING("0/atomic", "hca"),
			JSON_STRING("0/node_guid", "5054:00ff:fe00:0001"),
			JSON_KEYS("0", 11),
			JSON_NUM("1/port", 2),
			JSON_STRING("1/state", "DOWN"),
			JSON_NUM("1/mtu", 4096),
		  } },
	};
	struct nl_msg *msg = dev_msg(2);

	CHECK_PRINTS(msg, cases);
	nlmsg_free(msg);
}

TEST(dev_record_rejects_bad_types)
{
	struct nlattr *tb[KRDMA_A_MAX + 1];
	struct nl_msg *msg = new_msg(KRDMA_CMD_DEV_GET);

	/* a u64 attribute sent as u32 fails the reply policy */
	nla_put_u32(msg, KRDMA_A_DEV_NODE_GUID, 1);
	CHECK(genlmsg_parse(nlmsg_hdr(msg), 0, tb, KRDMA_A_MAX,
			    krdma_policy) < 0);
	nlmsg_free(msg);
}

static struct nl_msg *session_msg(void)
{
	struct nl_msg *msg = new_msg(KRDMA_CMD_SESSION_GET);
	struct ip_addr a;
	struct nlattr *st;

	nla_put_u32(msg, KRDMA_A_SESSION_ID, 3);
	nla_put_string(msg, KRDMA_A_NAME, "s1");
	nla_put_u8(msg, KRDMA_A_SESSION_STATE, KRDMA_SESSION_UP);
	nla_put_u8(msg, KRDMA_A_SESSION_ROLE, KRDMA_ROLE_CLIENT);
	nla_put_string(msg, KRDMA_A_DEV_NAME, "rxe0");
	parse_ip_addr("10.0.0.1", &a);
	put_endpoint(msg, KRDMA_A_LOCAL_ADDR, &a, 40000);
	parse_ip_addr("fe80::2", &a);
	put_endpoint(msg, KRDMA_A_PEER_ADDR, &a, 4791);
	nla_put_u32(msg, KRDMA_A_SESSION_QPN, 17);
	nla_put_u8(msg, KRDMA_A_SESSION_RESPONDER_RESOURCES, 16);
	st = nla_nest_start(msg, KRDMA_A_STATS | NLA_F_NESTED);
	nla_put_u64(msg, KRDMA_STATS_A_SEND_WRS, 10);
	nla_put_u64(msg, KRDMA_STATS_A_BYTES_TX, 40960);
	nla_nest_end(msg, st);
	return msg;
}

TEST(session_record)
{
	static const struct print_case cases[] = {
		{ PRINTER(session_print),
		  .text = "session 3 name s1 state up role client dev rxe0 local 10.0.0.1:40000 peer [fe80::2]:4791 qpn 17 responder_resources 16\n" },
		{ PRINTER(session_print), .stats = true,
		  .text = "session 3 name s1 state up role client dev rxe0 local 10.0.0.1:40000 peer [fe80::2]:4791 qpn 17 responder_resources 16\n"
			  "    stats send_wrs 10 bytes_tx 40960\n" },
		{ PRINTER(session_print), .stats = true, .json = true,
		  .json_has = {
			JSON_NUM("session_id", 3),
			JSON_STRING("state", "up"),
			JSON_STRING("local_addr", "10.0.0.1"),
			JSON_NUM("local_port", 40000),
			JSON_STRING("peer_addr", "fe80::2"),
			JSON_NUM("peer_port", 4791),
			JSON_NUM("stats/send_wrs", 10),
			JSON_NUM("stats/bytes_tx", 40960),
			JSON_NO("reason"),
		  } },
	};
	struct nl_msg *msg = session_msg();

	CHECK_PRINTS(msg, cases);
	nlmsg_free(msg);
}

/* An up session with data channels: qps after the queue pair numbers. */
TEST(session_record_qps)
{
	static const struct print_case session[] = {
		{ PRINTER(session_print),
		  .text = "session 4 state up qpn 17 peer_qpn 18 qps 4 sq_depth 256\n" },
		{ PRINTER(session_print), .json = true,
		  .json_has = { JSON_NUM("qps", 4), JSON_NUM("qpn", 17),
				JSON_NUM("sq_depth", 256) } },
	};
	/* a session event carries it too (monitor) */
	static const struct print_case event[] = {
		{ PRINTER(event_print),
		  .text = "session_up session 4 name s4 qps 16\n" },
		{ PRINTER(event_print), .json = true,
		  .json_has = { JSON_STRING("event", "session_up"),
				JSON_NUM("qps", 16) } },
	};
	struct nl_msg *msg = new_msg(KRDMA_CMD_SESSION_GET);

	nla_put_u32(msg, KRDMA_A_SESSION_ID, 4);
	nla_put_u8(msg, KRDMA_A_SESSION_STATE, KRDMA_SESSION_UP);
	nla_put_u32(msg, KRDMA_A_SESSION_QPN, 17);
	nla_put_u32(msg, KRDMA_A_SESSION_PEER_QPN, 18);
	nla_put_u32(msg, KRDMA_A_SESSION_QPS, 4);
	nla_put_u32(msg, KRDMA_A_SESSION_SQ_DEPTH, 256);
	CHECK_PRINTS(msg, session);
	nlmsg_free(msg);

	msg = new_msg(KRDMA_CMD_EVENT_NTF);
	nla_put_u8(msg, KRDMA_A_EVENT, KRDMA_EVENT_SESSION_UP);
	nla_put_u32(msg, KRDMA_A_SESSION_ID, 4);
	nla_put_string(msg, KRDMA_A_NAME, "s4");
	nla_put_u32(msg, KRDMA_A_SESSION_QPS, 16);
	CHECK_PRINTS(msg, event);
	nlmsg_free(msg);
}

TEST(listener_any_address)
{
	static const struct print_case cases[] = {
		{ PRINTER(listener_print),
		  .text = "listener 1 name l1 local *:4791\n" },
		{ PRINTER(listener_print), .json = true,
		  .json_has = { JSON_NUM("listener_id", 1),
				JSON_NUM("local_port", 4791),
				JSON_NO("local_addr") } },
	};
	struct nl_msg *msg = new_msg(KRDMA_CMD_LISTENER_GET);

	nla_put_u32(msg, KRDMA_A_LISTENER_ID, 1);
	nla_put_string(msg, KRDMA_A_NAME, "l1");
	put_endpoint(msg, KRDMA_A_LOCAL_ADDR, NULL, 4791);
	CHECK_PRINTS(msg, cases);
	nlmsg_free(msg);
}

static struct nl_msg *done_msg(int32_t status)
{
	struct nl_msg *msg = new_msg(KRDMA_CMD_EVENT_NTF);

	nla_put_u8(msg, KRDMA_A_EVENT, KRDMA_EVENT_TEST_DONE);
	nla_put_u32(msg, KRDMA_A_TEST_ID, 5);
	nla_put_u32(msg, KRDMA_A_SESSION_ID, 3);
	nla_put_u8(msg, KRDMA_A_TEST_OP, KRDMA_OP_WRITE);
	nla_put_u32(msg, KRDMA_A_TEST_SIZE, 65536);
	nla_put_u32(msg, KRDMA_A_TEST_STATUS, (uint32_t)status);
	nla_put_u64(msg, KRDMA_A_TEST_ITERS, 1000);
	nla_put_u64(msg, KRDMA_A_TEST_BYTES, 65536000);
	nla_put_u64(msg, KRDMA_A_TEST_ELAPSED_NS, 500000000);
	nla_put_u64(msg, KRDMA_A_TEST_VALIDATED, 1000);
	if (status)
		nla_put_string(msg, KRDMA_A_REASON, "peer went away");
	return msg;
}

static int print_result_fn(struct nlattr **tb, struct nlmsghdr *nlh,
			   void *arg)
{
	(void)arg;
	test_print_result(tb, nlh);
	return 0;
}

TEST(test_result)
{
	static const struct print_case passed[] = {
		/* 65536000 bytes in 0.5 s: 131.072 MB/s, 1.049 Gb/s, 2000 msgs/s */
		{ PRINTER(print_result_fn),
		  .text = "test 5 session 3 op write size 65536 iters 1000 bytes 65536000 elapsed 500.000ms 131.07 MB/s 1.049 Gb/s 2000 msgs/s validated 1000 status ok\n" },
		{ PRINTER(print_result_fn), .json = true,
		  .json_has = { JSON_NUM("test_id", 5),
				JSON_STRING("op", "write"),
				JSON_NUM("elapsed_ns", 500000000),
				JSON_NUM("status", 0),
				JSON_BETWEEN("mb_per_s", 131.06, 131.08),
				JSON_DOUBLE("msgs_per_s", 2000.0) } },
	};
	static const struct print_case failed[] = {
		{ PRINTER(print_result_fn),
		  .has = " status -110 (Connection timed out) reason \"peer went away\"\n" },
	};
	struct nl_msg *msg = done_msg(0);

	CHECK_PRINTS(msg, passed);
	nlmsg_free(msg);
	msg = done_msg(-110);
	CHECK_PRINTS(msg, failed);
	nlmsg_free(msg);
}

/* A bw test over 4 QPs: qps next to depth (per QP), in every printer. */
TEST(test_record_qps)
{
	static const struct print_case cases[] = {
		/* the result of test run */
		{ PRINTER(print_result_fn),
		  .text = "test 5 session 3 op write mode bw size 65536 depth 16 qps 4 iters 1000 bytes 65536000 elapsed 500.000ms 131.07 MB/s 1.049 Gb/s 2000 msgs/s validated 1000 status ok\n" },
		{ PRINTER(print_result_fn), .json = true,
		  .json_has = { JSON_NUM("qps", 4), JSON_NUM("depth", 16) } },
		/* test show */
		{ PRINTER(test_print),
		  .has = " size 65536 depth 16 qps 4 state done " },
		{ PRINTER(test_print), .json = true,
		  .json_has = { JSON_NUM("qps", 4) } },
		/* monitor */
		{ PRINTER(event_print),
		  .has = "test_done test 5 session 3 op write size 65536 depth 16 qps 4 state done " },
		{ PRINTER(event_print), .json = true,
		  .json_has = { JSON_STRING("event", "test_done"),
				JSON_NUM("qps", 4) } },
	};
	struct nl_msg *msg = done_msg(0);

	nla_put_u8(msg, KRDMA_A_TEST_MODE, KRDMA_MODE_BW);
	nla_put_u32(msg, KRDMA_A_TEST_DEPTH, 16);
	nla_put_u32(msg, KRDMA_A_TEST_QPS, 4);
	nla_put_u8(msg, KRDMA_A_TEST_STATE, KRDMA_TEST_DONE);
	CHECK_PRINTS(msg, cases);
	nlmsg_free(msg);
}

TEST(event_lines)
{
	static const struct print_case cases[] = {
		{ PRINTER(event_print),
		  .text = "session_down session 9 name s9 reason \"rejected by peer\"\n" },
	};
	static const struct json_want first[] = {
		JSON_STRING("event", "session_down"),
		JSON_NUM("session_id", 9),
		JSON_STRING("reason", "rejected by peer"),
	};
	struct nl_msg *msg = new_msg(KRDMA_CMD_EVENT_NTF);
	struct capture c;
	const char *s, *nl;

	nla_put_u8(msg, KRDMA_A_EVENT, KRDMA_EVENT_SESSION_DOWN);
	nla_put_u32(msg, KRDMA_A_SESSION_ID, 9);
	nla_put_string(msg, KRDMA_A_NAME, "s9");
	nla_put_string(msg, KRDMA_A_REASON, "rejected by peer");
	CHECK_PRINTS(msg, cases);

	/* -j, two events: one object per line */
	capture_start(&c, true, false);
	CHECK_INT(feed(msg, event_print), 0);
	CHECK_INT(feed(msg, event_print), 0);
	s = capture_end(&c);
	nl = strchr(s, '\n');
	CHECK(nl && strchr(nl + 1, '\n') && !strchr(strchr(nl + 1, '\n') + 1, '\n'));
	check_json("-j event_print, twice", s, first, ARRAY_SIZE(first));
	capture_free(&c);
	nlmsg_free(msg);
}

TEST(unknown_enum_values)
{
	static const struct print_case cases[] = {
		{ PRINTER(session_print),
		  .text = "session 1 state unknown(77)\n" },
	};
	struct nl_msg *msg = new_msg(KRDMA_CMD_SESSION_GET);

	nla_put_u32(msg, KRDMA_A_SESSION_ID, 1);
	nla_put_u8(msg, KRDMA_A_SESSION_STATE, 77);
	CHECK_PRINTS(msg, cases);
	nlmsg_free(msg);
}

TEST(stats_names_and_rates)
{
	struct rates r;
	char buf[32];

#define STATS_NAME(t)	STRMAP_NAME(krdma_stats_attr_strmap, t)
	CHECK_STR(STATS_NAME(KRDMA_STATS_A_SESSIONS_OPENED), "sessions_opened");
	CHECK_STR(STATS_NAME(KRDMA_STATS_A_PROTOCOL_ERRORS), "protocol_errors");
	CHECK_STR(STATS_NAME(KRDMA_STATS_A_POLLERS_REFUSED), "pollers_refused");
	CHECK_STR(STATS_NAME(KRDMA_STATS_A_RESPONDER_POLLERS), "responder_pollers");
	CHECK(STATS_NAME(KRDMA_STATS_A_PAD) == NULL);
	CHECK(STATS_NAME(KRDMA_STATS_A_MAX + 1) == NULL);
	CHECK_STR(port_state_name(4), "ACTIVE");
	CHECK_STR(port_state_name(5), "ACTIVE_DEFER");
	CHECK(port_state_name(6) == NULL);
	CHECK_STR(STRMAP_NAME(krdma_ib_atomic_cap_strmap, 2), "glob");
	CHECK_STR(STRMAP_NAME(krdma_event_strmap, KRDMA_EVENT_TEST_DONE),
		  "test_done");
	CHECK(STRMAP_NAME(krdma_event_strmap, 0) == NULL);
	CHECK_STR(addr_attr_name(KRDMA_ADDR_A_SCOPE_ID), "scope-id");
	CHECK(addr_attr_name(KRDMA_ADDR_A_MAX + 1) == NULL);
	CHECK_STR(lat_stat_name(KRDMA_LAT_A_P999_NS), "p99.9");
	CHECK(lat_stat_name(KRDMA_LAT_A_HIST) == NULL);
	compute_rates(1000000000, 1000, 2000000000, &r);
	CHECK(r.mb_s > 499.99 && r.mb_s < 500.01);
	CHECK(r.gb_s > 3.99 && r.gb_s < 4.01);
	CHECK(r.msgs_s > 499.99 && r.msgs_s < 500.01);
	compute_rates(10, 10, 0, &r);
	CHECK(r.mb_s == 0 && r.msgs_s == 0);
	format_ns(buf, sizeof(buf), 1234567890);
	CHECK_STR(buf, "1.235s");
	format_ns(buf, sizeof(buf), 850000);
	CHECK_STR(buf, "850.000us");
}
