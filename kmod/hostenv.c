// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: where a result was measured, on the responder's side - its host
 * name, its device's firmware and the rate and width of the port its
 * session uses - sent to the driver in TEST_RESULT, so that a result's
 * env names both ends (the CLI reads this host's own from sysfs).
 *
 * The host name is the initial UTS namespace's: the responder answers
 * from a completion handler or a CM worker, in no process's namespace,
 * and the machine (the one whose device and CPUs the figures are of) is
 * what a reader of the result needs; krdmactl's own "host" is uname's,
 * in its namespace.
 */
#include <linux/string.h>
#include <linux/utsname.h>
#include <net/netlink.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <uapi/linux/krdma.h>

#include "conn.h"
#include "hostenv.h"
#include "krdma.h"

/*
 * The port's rate in 10^6 bits/s a lane, as sysfs's ports/N/rate says
 * it (drivers/infiniband/core/sysfs.c): an unknown speed is SDR there.
 */
static u32 krdma_lane_mbit(u16 speed)
{
	switch (speed) {
	case IB_SPEED_DDR:	return 5000;
	case IB_SPEED_QDR:	return 10000;
	case IB_SPEED_FDR10:	return 10000;
	case IB_SPEED_FDR:	return 14000;
	case IB_SPEED_EDR:	return 25000;
	case IB_SPEED_HDR:	return 50000;
	case IB_SPEED_NDR:	return 100000;
	case 256:		return 200000;	/* IB_SPEED_XDR, 6.8 on */
	default:		return 2500;	/* IB_SPEED_SDR */
	}
}

/* @src into @dst (NUL-padded, at most @len bytes), non-printable as '?'. */
static void krdma_env_copy(char *dst, const char *src, size_t len)
{
	size_t i;

	memset(dst, 0, len);
	for (i = 0; i < len && src[i]; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '?';
}

/**
 * krdma_host_env_sample() - this host and a session's port, now
 * @sess: the session, its conn 0 resolved to its device
 * @e: set to what was found; valid even where the device says nothing
 *
 * Context: process; it may sleep (ib_query_port()).
 */
void krdma_host_env_sample(struct krdma_session *sess,
			   struct krdma_host_env *e)
{
	struct rdma_cm_id *id = krdma_ctrl_conn(sess)->cm_id;
	char fw[IB_FW_VERSION_NAME_MAX] = "";
	struct ib_port_attr attr;
	int width;

	memset(e, 0, sizeof(*e));
	/* sethostname() may be writing it: a bounded copy, checked after. */
	krdma_env_copy(e->host, init_utsname()->nodename,
		       min_t(size_t, KRDMA_ENV_HOST_LEN,
			     sizeof(init_utsname()->nodename)));
	if (id && id->device) {
		ib_get_device_fw_str(id->device, fw);
		fw[sizeof(fw) - 1] = '\0';
		krdma_env_copy(e->fw_ver, fw, KRDMA_ENV_FW_LEN);
		if (!ib_query_port(id->device, id->port_num ? id->port_num : 1,
				   &attr)) {
			width = ib_width_enum_to_int(attr.active_width);
			if (width > 0) {
				e->link_width = width;
				e->link_mbit_per_s =
					krdma_lane_mbit(attr.active_speed) * width;
			}
		}
	}
	e->valid = true;
}

/**
 * krdma_host_env_to_wire() - our environment, into TEST_RESULT
 * @e: the session's, sampled
 * @res: the TEST_RESULT, for a peer of version 4
 */
void krdma_host_env_to_wire(const struct krdma_host_env *e,
			    struct krdma_msg_result *res)
{
	res->link_mbit_per_s = cpu_to_be32(e->link_mbit_per_s);
	res->link_width = e->link_width;
	memset(res->env_reserved, 0, sizeof(res->env_reserved));
	memcpy(res->host, e->host, sizeof(res->host));
	memcpy(res->fw_ver, e->fw_ver, sizeof(res->fw_ver));
}

/*
 * A wire string into @dst (@len + 1 bytes): printable ASCII up to the
 * first NUL or the field's end, NULs after it. false if it is not.
 */
static bool krdma_env_string(char *dst, const u8 *src, size_t len)
{
	size_t n = strnlen((const char *)src, len), i;

	for (i = 0; i < len; i++)
		if (i < n ? src[i] < 0x20 || src[i] >= 0x7f : src[i])
			return false;
	memcpy(dst, src, n);
	dst[n] = '\0';
	return true;
}

/* What the lanes of an IB port may be (enum ib_port_width). */
static bool krdma_env_width_ok(u8 w)
{
	return w == 0 || w == 1 || w == 2 || w == 4 || w == 8 || w == 12;
}

/**
 * krdma_host_env_from_wire() - the peer's environment, from TEST_RESULT
 * @res: the TEST_RESULT of a peer of version 4, whole
 * @e: set to the peer's, checked
 *
 * A peer's, checked: what no krdma sends is refused, a forged result.
 *
 * Return: 0, or -EPROTO (and @e invalid).
 */
int krdma_host_env_from_wire(const struct krdma_msg_result *res,
			     struct krdma_host_env *e)
{
	memset(e, 0, sizeof(*e));
	e->link_mbit_per_s = be32_to_cpu(res->link_mbit_per_s);
	e->link_width = res->link_width;
	if (memchr_inv(res->env_reserved, 0, sizeof(res->env_reserved)) ||
	    !krdma_env_width_ok(e->link_width) ||
	    !e->link_width != !e->link_mbit_per_s ||
	    e->link_mbit_per_s > e->link_width * krdma_lane_mbit(256) ||
	    !krdma_env_string(e->host, res->host, sizeof(res->host)) ||
	    !krdma_env_string(e->fw_ver, res->fw_ver, sizeof(res->fw_ver))) {
		memset(e, 0, sizeof(*e));
		return -EPROTO;
	}
	e->valid = true;
	return 0;
}

/**
 * krdma_host_env_fill() - an environment, nested in @attr
 * @skb: the message
 * @attr: the nest, of enum krdma_host_env_attr's attributes
 * @e: the environment; nothing is put if it is not valid
 *
 * Return: 0 or -EMSGSIZE.
 */
int krdma_host_env_fill(struct sk_buff *skb, int attr,
			const struct krdma_host_env *e)
{
	struct nlattr *nest;

	if (!e->valid)
		return 0;
	nest = nla_nest_start(skb, attr);
	if (!nest ||
	    nla_put_string(skb, KRDMA_HOST_ENV_A_HOST, e->host) ||
	    nla_put_string(skb, KRDMA_HOST_ENV_A_FW_VER, e->fw_ver) ||
	    nla_put_u32(skb, KRDMA_HOST_ENV_A_LINK_MBIT_PER_S,
			e->link_mbit_per_s) ||
	    nla_put_u32(skb, KRDMA_HOST_ENV_A_LINK_WIDTH, e->link_width))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}
