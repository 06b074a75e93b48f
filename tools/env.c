// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl: the environment a result was measured in - when, on which
 * host, kernel, device (its firmware, link rate and width), transport,
 * MTUs, completion context, CPU frequency governor and idle driver,
 * module and peer protocol versions, the session's ACK timeout - recorded
 * next to it, so that two runs can be compared knowing what differed, and
 * a stored baseline is dated. This host's from the kernel and sysfs; the
 * peer's host name, firmware and link from the peer itself, in its test's
 * result, as its CPU figures are (a peer of protocol version 4 reports
 * them).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <sys/utsname.h>

#include <netlink/genl/genl.h>

#include "attrs.h"
#include "cmd.h"
#include "env.h"
#include "output.h"

/* The unit tests point this at a tree of their own. */
const char *env_sysfs_root = "/sys";

/* The first line of sysfs file @fmt..., without its newline; "" if none. */
static void read_sysfs(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void read_sysfs(char *buf, size_t len, const char *fmt, ...)
{
	char path[512], rel[448];
	va_list ap;
	FILE *f;

	buf[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", env_sysfs_root, rel);
	f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

static int env_session_reply(struct nlattr **tb, struct nlmsghdr *nlh,
			     void *arg)
{
	struct run_env *e = arg;
	const char *name;

	(void)nlh;
	if (tb[KRDMA_A_DEV_NAME])
		snprintf(e->dev, sizeof(e->dev), "%s",
			 nla_get_string(tb[KRDMA_A_DEV_NAME]));
	if (tb[KRDMA_A_SESSION_CQ_POLL]) {
		name = STRMAP_NAME(krdma_cq_poll_strmap,
				   nla_get_u8(tb[KRDMA_A_SESSION_CQ_POLL]));
		snprintf(e->cq_poll, sizeof(e->cq_poll), "%s", name ? name : "");
	}
	if (tb[KRDMA_A_SESSION_PEER_PROTO])
		e->peer_proto = nla_get_u32(tb[KRDMA_A_SESSION_PEER_PROTO]);
	if (tb[KRDMA_A_SESSION_ACK_TIMEOUT])
		e->ack_timeout = nla_get_u8(tb[KRDMA_A_SESSION_ACK_TIMEOUT]);
	return 0;
}

/* env.h */
void env_dev_port(struct nlattr **p, void *arg)
{
	struct run_env *e = arg;

	if (e->active_mtu || !p[KRDMA_PORT_A_ACTIVE_MTU] ||
	    !p[KRDMA_PORT_A_STATE] ||
	    nla_get_u8(p[KRDMA_PORT_A_STATE]) != 4 /* IB_PORT_ACTIVE */)
		return;
	e->active_mtu = nla_get_u32(p[KRDMA_PORT_A_ACTIVE_MTU]);
	if (p[KRDMA_PORT_A_INDEX])
		e->port = nla_get_u32(p[KRDMA_PORT_A_INDEX]);
}

static int env_dev_reply(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	(void)tb;
	each_nested(nlh, KRDMA_A_DEV_PORT, KRDMA_PORT_A_MAX, krdma_port_policy,
		    env_dev_port, arg);
	return 0;
}

static int env_version_reply(struct nlattr **tb, struct nlmsghdr *nlh,
			     void *arg)
{
	struct run_env *e = arg;

	(void)nlh;
	if (tb[KRDMA_A_VERSION])
		snprintf(e->module, sizeof(e->module), "%s",
			 nla_get_string(tb[KRDMA_A_VERSION]));
	return 0;
}

int env_parse_rate(const char *s, uint64_t *mbit, uint32_t *width)
{
	uint64_t gbit = 0, milli = 0, scale = 100;
	const char *p = s;
	char *end;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++)
		gbit = gbit * 10 + (uint64_t)(*p - '0');
	/* "2.5": the kernel writes at most one decimal; three are kept. */
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++, scale /= 10)
			milli += scale * (uint64_t)(*p - '0');
	if (strncmp(p, " Gb/sec (", 9))
		return -EINVAL;
	p += 9;
	*width = (uint32_t)strtoul(p, &end, 10);
	if (end == p || *end != 'X' || !*width)
		return -EINVAL;
	*mbit = gbit * 1000 + milli;
	return 0;
}

/* The device's firmware and its port's link, where sysfs has them. */
static void env_sysfs_link(struct run_env *e)
{
	char buf[64];

	read_sysfs(e->fw_ver, sizeof(e->fw_ver), "class/infiniband/%s/fw_ver",
		   e->dev);
	read_sysfs(buf, sizeof(buf), "class/infiniband/%s/ports/%u/rate",
		   e->dev, e->port ? e->port : 1);
	if (env_parse_rate(buf, &e->link_mbit, &e->link_width)) {
		e->link_mbit = 0;
		e->link_width = 0;
	}
}

bool env_dev_iwarp(const char *dev)
{
	char buf[64];

	read_sysfs(buf, sizeof(buf), "class/infiniband/%s/node_type", dev);
	return strstr(buf, "RNIC") != NULL;
}

/* What sysfs says of the device, its netdev and the CPUs. */
static void env_sysfs(struct run_env *e)
{
	char buf[64];

	if (e->dev[0]) {
		if (env_dev_iwarp(e->dev)) {
			snprintf(e->transport, sizeof(e->transport), "iwarp");
		} else {
			read_sysfs(buf, sizeof(buf),
				   "class/infiniband/%s/ports/%u/link_layer",
				   e->dev, e->port ? e->port : 1);
			snprintf(e->transport, sizeof(e->transport), "%s",
				 !strcmp(buf, "Ethernet") ? "roce" :
				 !strcmp(buf, "InfiniBand") ? "ib" : "");
		}
		read_sysfs(e->netdev, sizeof(e->netdev),
			   "class/infiniband/%s/ports/%u/gid_attrs/ndevs/0",
			   e->dev, e->port ? e->port : 1);
		if (e->netdev[0]) {
			read_sysfs(buf, sizeof(buf), "class/net/%s/mtu",
				   e->netdev);
			e->netdev_mtu = (uint32_t)strtoul(buf, NULL, 10);
		}
		env_sysfs_link(e);
	}
	read_sysfs(e->governor, sizeof(e->governor),
		   "devices/system/cpu/cpu0/cpufreq/scaling_governor");
	read_sysfs(e->idle, sizeof(e->idle),
		   "devices/system/cpu/cpuidle/current_driver");
}

static int env_ask(struct knl_ctx *c, struct nl_msg *msg, knl_msg_fn fn,
		   struct run_env *e)
{
	if (!msg)
		return -ENOMEM;
	return knl_exec(c, msg, fn, e);
}

int env_collect(struct knl_ctx *c, const struct arg_val *session,
		struct run_env *e)
{
	struct utsname u;
	struct nl_msg *msg;
	int rc;

	memset(e, 0, sizeof(*e));
	format_utc_now(e->timestamp, sizeof(e->timestamp), false);
	if (!uname(&u)) {
		snprintf(e->kernel, sizeof(e->kernel), "%s", u.release);
		snprintf(e->host, sizeof(e->host), "%s", u.nodename);
	}
	msg = knl_req(c, KRDMA_CMD_SESSION_GET, 0);
	if (msg && put_ref(msg, KRDMA_A_SESSION_ID, session, NULL)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	rc = env_ask(c, msg, env_session_reply, e);
	if (rc)
		return rc;
	if (e->dev[0]) {
		msg = knl_req(c, KRDMA_CMD_DEV_GET, 0);
		if (msg && nla_put_string(msg, KRDMA_A_DEV_NAME, e->dev)) {
			nlmsg_free(msg);
			msg = NULL;
		}
		rc = env_ask(c, msg, env_dev_reply, e);
		if (rc)
			return rc;
	}
	rc = env_ask(c, knl_req(c, KRDMA_CMD_VERSION_GET, 0),
		     env_version_reply, e);
	if (rc)
		return rc;
	env_sysfs(e);
	return 0;
}

/* " key value": unknown is "-" in text, null in JSON. */
static void env_str(const char *key, const char *v)
{
	print_text(" %s", key);
	if (v[0]) {
		print_string(PRINT_ANY, key, " %s", v);
		return;
	}
	print_text(" -");
	print_string(PRINT_JSON, key, NULL, NULL);
}

/* " key value": 0 (unknown) is "-" in text, null in JSON. */
static void env_uint(const char *key, const char *fmt, uint64_t v)
{
	print_text(" %s", key);
	if (v) {
		print_uint(PRINT_ANY, key, fmt, v);
		return;
	}
	print_text(" -");
	print_string(PRINT_JSON, key, NULL, NULL);
}

/*
 * The link of "" (this host) or "peer_": JSON exact integers; text as
 * sysfs says it, "100Gb/s 4X".
 */
static void env_link(const char *who, uint64_t mbit, uint32_t width)
{
	char key[48];

	snprintf(key, sizeof(key), "%slink_rate", who);
	print_text(" %s", key);
	snprintf(key, sizeof(key), "%slink_rate_mbit_per_s", who);
	if (mbit) {
		print_text(" %gGb/s", (double)mbit / 1000);
		print_uint(PRINT_JSON, key, NULL, mbit);
	} else {
		print_text(" -");
		print_string(PRINT_JSON, key, NULL, NULL);
	}
	snprintf(key, sizeof(key), "%slink_width", who);
	env_uint(key, " %" PRIu64 "X", width);
}

void env_take_peer(struct run_env *e, const struct nlattr *nest)
{
	struct nlattr *p[KRDMA_HOST_ENV_A_MAX + 1];

	if (!nest || e->peer_reported ||
	    nla_parse_nested(p, KRDMA_HOST_ENV_A_MAX, (struct nlattr *)nest,
			     krdma_host_env_policy))
		return;
	e->peer_reported = true;
	if (p[KRDMA_HOST_ENV_A_HOST])
		snprintf(e->peer_host, sizeof(e->peer_host), "%s",
			 nla_get_string(p[KRDMA_HOST_ENV_A_HOST]));
	if (p[KRDMA_HOST_ENV_A_FW_VER])
		snprintf(e->peer_fw_ver, sizeof(e->peer_fw_ver), "%s",
			 nla_get_string(p[KRDMA_HOST_ENV_A_FW_VER]));
	if (p[KRDMA_HOST_ENV_A_LINK_MBIT_PER_S])
		e->peer_link_mbit =
			nla_get_u32(p[KRDMA_HOST_ENV_A_LINK_MBIT_PER_S]);
	if (p[KRDMA_HOST_ENV_A_LINK_WIDTH])
		e->peer_link_width = nla_get_u32(p[KRDMA_HOST_ENV_A_LINK_WIDTH]);
}

void env_print(const struct run_env *e)
{
	open_json_object("env");
	print_text("env");
	env_str("timestamp", e->timestamp);
	env_str("host", e->host);
	env_str("kernel", e->kernel);
	env_str("dev", e->dev);
	env_str("fw_ver", e->fw_ver);
	env_link("", e->link_mbit, e->link_width);
	env_str("transport", e->transport);
	print_uint(PRINT_ANY, "active_mtu", " active_mtu %" PRIu64,
		   e->active_mtu);
	env_str("netdev", e->netdev);
	print_uint(PRINT_ANY, "netdev_mtu", " netdev_mtu %" PRIu64,
		   e->netdev_mtu);
	env_str("cq_poll", e->cq_poll);
	env_str("governor", e->governor);
	env_str("idle_driver", e->idle);
	env_str("module", e->module);
	print_uint(PRINT_ANY, "peer_proto", " peer_proto %" PRIu64,
		   e->peer_proto);
	/* The session's transport ACK timeout, 4.096 us x 2^N: what a lost
	 * packet cost this result. */
	env_uint("ack_timeout", " %" PRIu64, e->ack_timeout);
	/* Unknown (null, "-") where the peer did not report them. */
	env_str("peer_host", e->peer_host);
	env_str("peer_fw_ver", e->peer_fw_ver);
	env_link("peer_", e->peer_link_mbit, e->peer_link_width);
	close_json_object();
}
