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

TEST(dev_record_text)
{
	struct nl_msg *msg = dev_msg(2);
	struct capture c;

	capture_start(&c, false, false);
	CHECK_INT(feed(msg, dev_print), 0);
	CHECK_STR(capture_end(&c),
		  "0: rxe0 port 1 state ACTIVE mtu 1024 max_qp_rd_atom 128 max_qp_init_rd_atom 128 max_fast_reg_pages 512 max_sge 32 atomic hca node_guid 5054:00ff:fe00:0001\n"
		  "0: rxe0 port 2 state DOWN mtu 4096 max_qp_rd_atom 128 max_qp_init_rd_atom 128 max_fast_reg_pages 512 max_sge 32 atomic hca node_guid 5054:00ff:fe00:0001\n");
	capture_free(&c);
	nlmsg_free(msg);

	/* no port: still one line for the device */
	msg = dev_msg(0);
	capture_start(&c, false, false);
	CHECK_INT(feed(msg, dev_print), 0);
	CHECK_STR(capture_end(&c),
		  "0: rxe0 max_qp_rd_atom 128 max_qp_init_rd_atom 128 max_fast_reg_pages 512 max_sge 32 atomic hca node_guid 5054:00ff:fe00:0001\n");
	capture_free(&c);
	nlmsg_free(msg);
}

static int64_t get_int(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_int)) {
		unit_fail(__FILE__, __LINE__, "no integer \"%s\"", key);
		return -1;
	}
	return json_object_get_int64(v);
}

static const char *get_str(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string)) {
		unit_fail(__FILE__, __LINE__, "no string \"%s\"", key);
		return "";
	}
	return json_object_get_string(v);
}

TEST(dev_record_json)
{
	struct nl_msg *msg = dev_msg(2);
	struct json_object *root, *o;
	struct capture c;
	const char *s;

	capture_start(&c, true, false);
	open_json_array(NULL);
	CHECK_INT(feed(msg, dev_print), 0);
	close_json_array();
	s = capture_end(&c);
	root = json_tokener_parse(s);
	if (!root || !json_object_is_type(root, json_type_array) ||
	    json_object_array_length(root) != 2) {
		unit_fail(__FILE__, __LINE__, "bad JSON: %s", s);
		goto out;
	}
	o = json_object_array_get_idx(root, 0);
	CHECK_INT(get_int(o, "dev_index"), 0);
	CHECK_STR(get_str(o, "dev"), "rxe0");
	CHECK_INT(get_int(o, "port"), 1);
	CHECK_STR(get_str(o, "state"), "ACTIVE");
	CHECK_INT(get_int(o, "mtu"), 1024);
	CHECK_INT(get_int(o, "max_qp_rd_atom"), 128);
	CHECK_INT(get_int(o, "max_qp_init_rd_atom"), 128);
	CHECK_INT(get_int(o, "max_fast_reg_pages"), 512);
	CHECK_INT(get_int(o, "max_sge"), 32);
	CHECK_STR(get_str(o, "atomic"), "hca");
	CHECK_STR(get_str(o, "node_guid"), "5054:00ff:fe00:0001");
	CHECK_INT(json_object_object_length(o), 11);
	o = json_object_array_get_idx(root, 1);
	CHECK_INT(get_int(o, "port"), 2);
	CHECK_STR(get_str(o, "state"), "DOWN");
	CHECK_INT(get_int(o, "mtu"), 4096);
out:
	json_object_put(root);
	capture_free(&c);
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
	struct nl_msg *msg = session_msg();
	struct json_object *root, *v;
	struct capture c;
	const char *s;

	capture_start(&c, false, false);
	CHECK_INT(feed(msg, session_print), 0);
	CHECK_STR(capture_end(&c),
		  "session 3 name s1 state up role client dev rxe0 local 10.0.0.1:40000 peer [fe80::2]:4791 qpn 17 responder_resources 16\n");
	capture_free(&c);

	opts.stats = true;
	capture_start(&c, false, false);
	CHECK_INT(feed(msg, session_print), 0);
	CHECK_STR(capture_end(&c),
		  "session 3 name s1 state up role client dev rxe0 local 10.0.0.1:40000 peer [fe80::2]:4791 qpn 17 responder_resources 16\n"
		  "    stats send_wrs 10 bytes_tx 40960\n");
	capture_free(&c);

	capture_start(&c, true, false);
	CHECK_INT(feed(msg, session_print), 0);
	s = capture_end(&c);
	root = json_tokener_parse(s);
	CHECK(root != NULL);
	CHECK_INT(get_int(root, "session_id"), 3);
	CHECK_STR(get_str(root, "state"), "up");
	CHECK_STR(get_str(root, "local_addr"), "10.0.0.1");
	CHECK_INT(get_int(root, "local_port"), 40000);
	CHECK_STR(get_str(root, "peer_addr"), "fe80::2");
	CHECK_INT(get_int(root, "peer_port"), 4791);
	CHECK(json_object_object_get_ex(root, "stats", &v) &&
	      get_int(v, "send_wrs") == 10 && get_int(v, "bytes_tx") == 40960);
	CHECK(!json_object_object_get_ex(root, "reason", &v));
	json_object_put(root);
	capture_free(&c);
	opts.stats = false;
	nlmsg_free(msg);
}

/* An up session with data channels: qps after the queue pair numbers. */
TEST(session_record_qps)
{
	struct nl_msg *msg = new_msg(KRDMA_CMD_SESSION_GET);
	struct json_object *root;
	struct capture c;

	nla_put_u32(msg, KRDMA_A_SESSION_ID, 4);
	nla_put_u8(msg, KRDMA_A_SESSION_STATE, KRDMA_SESSION_UP);
	nla_put_u32(msg, KRDMA_A_SESSION_QPN, 17);
	nla_put_u32(msg, KRDMA_A_SESSION_PEER_QPN, 18);
	nla_put_u32(msg, KRDMA_A_SESSION_QPS, 4);
	nla_put_u32(msg, KRDMA_A_SESSION_SQ_DEPTH, 256);
	capture_start(&c, false, false);
	CHECK_INT(feed(msg, session_print), 0);
	CHECK_STR(capture_end(&c),
		  "session 4 state up qpn 17 peer_qpn 18 qps 4 sq_depth 256\n");
	capture_free(&c);

	capture_start(&c, true, false);
	CHECK_INT(feed(msg, session_print), 0);
	root = json_tokener_parse(capture_end(&c));
	CHECK(root != NULL);
	CHECK_INT(get_int(root, "qps"), 4);
	CHECK_INT(get_int(root, "qpn"), 17);
	CHECK_INT(get_int(root, "sq_depth"), 256);
	json_object_put(root);
	capture_free(&c);
	nlmsg_free(msg);

	/* a session event carries it too (monitor) */
	msg = new_msg(KRDMA_CMD_EVENT_NTF);
	nla_put_u8(msg, KRDMA_A_EVENT, KRDMA_EVENT_SESSION_UP);
	nla_put_u32(msg, KRDMA_A_SESSION_ID, 4);
	nla_put_string(msg, KRDMA_A_NAME, "s4");
	nla_put_u32(msg, KRDMA_A_SESSION_QPS, 16);
	capture_start(&c, false, false);
	CHECK_INT(feed(msg, event_print), 0);
	CHECK_STR(capture_end(&c), "session_up session 4 name s4 qps 16\n");
	capture_free(&c);
	capture_start(&c, true, false);
	CHECK_INT(feed(msg, event_print), 0);
	root = json_tokener_parse(capture_end(&c));
	CHECK_STR(get_str(root, "event"), "session_up");
	CHECK_INT(get_int(root, "qps"), 16);
	json_object_put(root);
	capture_free(&c);
	nlmsg_free(msg);
}

TEST(listener_any_address)
{
	struct nl_msg *msg = new_msg(KRDMA_CMD_LISTENER_GET);
	struct json_object *root, *v;
	struct capture c;

	nla_put_u32(msg, KRDMA_A_LISTENER_ID, 1);
	nla_put_string(msg, KRDMA_A_NAME, "l1");
	put_endpoint(msg, KRDMA_A_LOCAL_ADDR, NULL, 4791);
	capture_start(&c, false, false);
	CHECK_INT(feed(msg, listener_print), 0);
	CHECK_STR(capture_end(&c), "listener 1 name l1 local *:4791\n");
	capture_free(&c);

	capture_start(&c, true, false);
	CHECK_INT(feed(msg, listener_print), 0);
	root = json_tokener_parse(capture_end(&c));
	CHECK_INT(get_int(root, "listener_id"), 1);
	CHECK_INT(get_int(root, "local_port"), 4791);
	CHECK(!json_object_object_get_ex(root, "local_addr", &v));
	json_object_put(root);
	capture_free(&c);
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
	struct nl_msg *msg = done_msg(0);
	struct json_object *root, *v;
	struct capture c;

	capture_start(&c, false, false);
	CHECK_INT(feed(msg, print_result_fn), 0);
	/* 65536000 bytes in 0.5 s: 131.072 MB/s, 1.049 Gb/s, 2000 msgs/s */
	CHECK_STR(capture_end(&c),
		  "test 5 session 3 op write size 65536 iters 1000 bytes 65536000 elapsed 500.000ms 131.07 MB/s 1.049 Gb/s 2000 msgs/s validated 1000 status ok\n");
	capture_free(&c);

	capture_start(&c, true, false);
	CHECK_INT(feed(msg, print_result_fn), 0);
	root = json_tokener_parse(capture_end(&c));
	CHECK_INT(get_int(root, "test_id"), 5);
	CHECK_STR(get_str(root, "op"), "write");
	CHECK_INT(get_int(root, "elapsed_ns"), 500000000);
	CHECK_INT(get_int(root, "status"), 0);
	CHECK(json_object_object_get_ex(root, "mb_per_s", &v) &&
	      json_object_get_double(v) > 131.06 &&
	      json_object_get_double(v) < 131.08);
	CHECK(json_object_object_get_ex(root, "msgs_per_s", &v) &&
	      json_object_get_double(v) == 2000.0);
	json_object_put(root);
	capture_free(&c);
	nlmsg_free(msg);

	msg = done_msg(-110);
	capture_start(&c, false, false);
	CHECK_INT(feed(msg, print_result_fn), 0);
	CHECK(strstr(capture_end(&c),
		     " status -110 (Connection timed out) reason \"peer went away\"\n") != NULL);
	capture_free(&c);
	nlmsg_free(msg);
}

/* A bw test over 4 QPs: qps next to depth (per QP), in every printer. */
TEST(test_record_qps)
{
	struct nl_msg *msg = done_msg(0);
	struct json_object *root;
	struct capture c;

	nla_put_u8(msg, KRDMA_A_TEST_MODE, KRDMA_MODE_BW);
	nla_put_u32(msg, KRDMA_A_TEST_DEPTH, 16);
	nla_put_u32(msg, KRDMA_A_TEST_QPS, 4);
	nla_put_u8(msg, KRDMA_A_TEST_STATE, KRDMA_TEST_DONE);

	/* the result of test run */
	capture_start(&c, false, false);
	CHECK_INT(feed(msg, print_result_fn), 0);
	CHECK_STR(capture_end(&c),
		  "test 5 session 3 op write mode bw size 65536 depth 16 qps 4 iters 1000 bytes 65536000 elapsed 500.000ms 131.07 MB/s 1.049 Gb/s 2000 msgs/s validated 1000 status ok\n");
	capture_free(&c);
	capture_start(&c, true, false);
	CHECK_INT(feed(msg, print_result_fn), 0);
	root = json_tokener_parse(capture_end(&c));
	CHECK(root != NULL);
	CHECK_INT(get_int(root, "qps"), 4);
	CHECK_INT(get_int(root, "depth"), 16);
	json_object_put(root);
	capture_free(&c);

	/* test show */
	capture_start(&c, false, false);
	CHECK_INT(feed(msg, test_print), 0);
	CHECK(strstr(capture_end(&c), " size 65536 depth 16 qps 4 state done ") != NULL);
	capture_free(&c);
	capture_start(&c, true, false);
	CHECK_INT(feed(msg, test_print), 0);
	root = json_tokener_parse(capture_end(&c));
	CHECK_INT(get_int(root, "qps"), 4);
	json_object_put(root);
	capture_free(&c);

	/* monitor */
	capture_start(&c, false, false);
	CHECK_INT(feed(msg, event_print), 0);
	CHECK(strstr(capture_end(&c), "test_done test 5 session 3 op write size 65536 depth 16 qps 4 state done ") != NULL);
	capture_free(&c);
	capture_start(&c, true, false);
	CHECK_INT(feed(msg, event_print), 0);
	root = json_tokener_parse(capture_end(&c));
	CHECK_STR(get_str(root, "event"), "test_done");
	CHECK_INT(get_int(root, "qps"), 4);
	json_object_put(root);
	capture_free(&c);
	nlmsg_free(msg);
}

TEST(event_lines)
{
	struct nl_msg *msg = new_msg(KRDMA_CMD_EVENT_NTF);
	struct json_object *root;
	struct capture c;

	nla_put_u8(msg, KRDMA_A_EVENT, KRDMA_EVENT_SESSION_DOWN);
	nla_put_u32(msg, KRDMA_A_SESSION_ID, 9);
	nla_put_string(msg, KRDMA_A_NAME, "s9");
	nla_put_string(msg, KRDMA_A_REASON, "rejected by peer");
	capture_start(&c, false, false);
	CHECK_INT(feed(msg, event_print), 0);
	CHECK_STR(capture_end(&c),
		  "session_down session 9 name s9 reason \"rejected by peer\"\n");
	capture_free(&c);

	capture_start(&c, true, false);
	CHECK_INT(feed(msg, event_print), 0);
	CHECK_INT(feed(msg, event_print), 0);
	{
		const char *s = capture_end(&c);
		const char *nl = strchr(s, '\n');

		/* one object per line */
		CHECK(nl && strchr(nl + 1, '\n') && !strchr(strchr(nl + 1, '\n') + 1, '\n'));
		root = json_tokener_parse(s);
		CHECK_STR(get_str(root, "event"), "session_down");
		CHECK_INT(get_int(root, "session_id"), 9);
		CHECK_STR(get_str(root, "reason"), "rejected by peer");
		json_object_put(root);
	}
	capture_free(&c);
	nlmsg_free(msg);
}

TEST(unknown_enum_values)
{
	struct nl_msg *msg = new_msg(KRDMA_CMD_SESSION_GET);
	struct capture c;

	nla_put_u32(msg, KRDMA_A_SESSION_ID, 1);
	nla_put_u8(msg, KRDMA_A_SESSION_STATE, 77);
	capture_start(&c, false, false);
	CHECK_INT(feed(msg, session_print), 0);
	CHECK_STR(capture_end(&c), "session 1 state unknown(77)\n");
	capture_free(&c);
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
