// SPDX-License-Identifier: GPL-2.0
/*
 * The netlink plumbing of tools/nl.c against a family every Linux kernel
 * has: "nlctrl" (the Generic Netlink controller).  This checks do and dump
 * requests, ACK/DONE handling, errno propagation and the decoding of the
 * kernel's extended ACK (message and attribute offset) without the krdma
 * module.  Skipped where no netlink socket can be opened.
 *
 * The replies are parsed with krdma's reply policy, which happens to accept
 * the controller's attributes; only CTRL_ATTR_FAMILY_NAME (2, a string
 * there as KRDMA_A_VERSION is here) is looked at.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include <linux/genetlink.h>
#include <netlink/genl/genl.h>

#include "nl.h"
#include "unit.h"

struct families {
	int n;
	bool saw_nlctrl;
	char first[32];
};

static int family_cb(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct families *f = arg;
	const char *name;

	(void)nlh;
	if (!tb[CTRL_ATTR_FAMILY_NAME])
		return 0;
	name = nla_get_string(tb[CTRL_ATTR_FAMILY_NAME]);
	if (!f->n)
		snprintf(f->first, sizeof(f->first), "%s", name);
	if (!strcmp(name, "nlctrl"))
		f->saw_nlctrl = true;
	f->n++;
	return 0;
}

static struct knl_ctx *open_ctrl(void)
{
	struct knl_ctx *c = knl_open("nlctrl");

	if (!c)
		unit_skip("no generic netlink here");
	return c;
}

TEST(nl_do_request)
{
	struct families f = { 0 };
	struct knl_ctx *c = open_ctrl();
	struct nl_msg *msg;

	if (!c)
		return;
	msg = knl_req(c, CTRL_CMD_GETFAMILY, 0);
	CHECK(msg != NULL);
	nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, "nlctrl");
	CHECK_INT(knl_exec(c, msg, family_cb, &f), 0);
	CHECK_INT(f.n, 1);
	CHECK_STR(f.first, "nlctrl");
	CHECK_STR(c->ext_msg, "");
	knl_put();
}

TEST(nl_dump_request)
{
	struct families f = { 0 };
	struct knl_ctx *c = open_ctrl();
	struct nl_msg *msg;

	if (!c)
		return;
	msg = knl_req(c, CTRL_CMD_GETFAMILY, NLM_F_DUMP);
	CHECK_INT(knl_exec(c, msg, family_cb, &f), 0);
	CHECK(f.n >= 1);
	CHECK(f.saw_nlctrl);
	/* the socket is still in step for another request */
	memset(&f, 0, sizeof(f));
	msg = knl_req(c, CTRL_CMD_GETFAMILY, 0);
	nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, "nlctrl");
	CHECK_INT(knl_exec(c, msg, family_cb, &f), 0);
	CHECK_INT(f.n, 1);
	knl_put();
}

TEST(nl_errno_without_message)
{
	struct families f = { 0 };
	struct knl_ctx *c = open_ctrl();
	struct nl_msg *msg;
	int rc;

	if (!c)
		return;
	msg = knl_req(c, CTRL_CMD_GETFAMILY, 0);
	nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, "krdma-nosuch");
	/* a bare errno: ENOENT (EINVAL on older kernels) */
	rc = knl_exec(c, msg, family_cb, &f);
	CHECK(rc == -ENOENT || rc == -EINVAL);
	CHECK_INT(f.n, 0);
	CHECK_STR(c->ext_msg, "");
	knl_put();
}

TEST(nl_extack_message_and_offset)
{
	struct knl_ctx *c = open_ctrl();
	struct nl_msg *msg;
	uint8_t one = 1;
	int rc;

	if (!c)
		return;
	msg = knl_req(c, CTRL_CMD_GETFAMILY, 0);
	/* CTRL_ATTR_FAMILY_ID is a u16: one byte fails the policy */
	nla_put(msg, CTRL_ATTR_FAMILY_ID, 1, &one);
	rc = knl_exec(c, msg, NULL, NULL);
	CHECK(rc == -EINVAL || rc == -ERANGE);
	/* "Attribute failed policy validation (attribute 1)" */
	CHECK(strstr(c->ext_msg, "policy validation") != NULL);
	CHECK(strstr(c->ext_msg, "(attribute 1)") != NULL);
	if (unit_failures())
		printf("    ext_msg \"%s\", detail \"%s\", rc %d\n", c->ext_msg,
		       c->ext_detail, rc);
	knl_put();
}

static int no_event(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	(void)tb;
	(void)nlh;
	(*(int *)arg)++;
	return 1;
}

TEST(nl_events_timeout_and_signal)
{
	struct knl_ctx *c = open_ctrl();
	struct sigaction dfl;
	int64_t t0;
	int events = 0, rc;

	if (!c)
		return;
	/* nlctrl's "notify" only speaks when a family (un)registers */
	CHECK_INT(knl_events_subscribe(c, "nlctrl", "notify"), 0);
	t0 = now_ms();
	rc = knl_events_poll(c, 100, no_event, &events);
	if (rc != -ETIMEDOUT || events)
		unit_skip("nlctrl notification arrived while waiting");
	else
		CHECK(now_ms() - t0 >= 90);

	/* A signal caught by sig_install() interrupts the wait at once,
	 * also when it arrived before the wait started. */
	sig_install();
	sig_received = 0;
	raise(SIGINT);
	CHECK_INT(sig_received, SIGINT);
	t0 = now_ms();
	CHECK_INT(knl_events_poll(c, 5000, no_event, &events), -EINTR);
	CHECK(now_ms() - t0 < 1000);
	sig_received = 0;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGINT, &dfl, NULL);
	sigaction(SIGTERM, &dfl, NULL);
	knl_put();
}
