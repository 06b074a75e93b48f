// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: the "krdma" Generic Netlink family.
 *
 * Documentation/netlink/specs/krdma.yaml describes the same ABI; every
 * operation has its own strict policy, every change needs CAP_NET_ADMIN.
 * Kernel 6.1 has no split ops, so the table is written out by hand.
 */
#include <linux/module.h>
#include <net/genetlink.h>
#include <uapi/linux/krdma.h>

#include "krdma.h"

static struct genl_family krdma_genl_family;

void *krdma_genlmsg_put(struct sk_buff *skb, u32 portid, u32 seq, int flags,
			u8 cmd)
{
	return genlmsg_put(skb, portid, seq, &krdma_genl_family, flags, cmd);
}

struct sk_buff *krdma_genlmsg_new_reply(struct genl_info *info, u8 cmd,
					void **hdr)
{
	struct sk_buff *msg;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return NULL;
	*hdr = genlmsg_put_reply(msg, info, &krdma_genl_family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static int krdma_nl_version_get(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;

	msg = krdma_genlmsg_new_reply(info, KRDMA_CMD_VERSION_GET, &hdr);
	if (!msg)
		return -ENOMEM;
	if (nla_put_string(msg, KRDMA_A_VERSION, KRDMA_VERSION) ||
	    nla_put_u32(msg, KRDMA_A_ABI_VERSION, KRDMA_ABI_VERSION)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static const struct nla_policy krdma_dev_get_policy[KRDMA_A_DEV_NAME + 1] = {
	[KRDMA_A_DEV_NAME] = { .type = NLA_NUL_STRING, .len = IB_DEVICE_NAME_MAX - 1 },
};

static const struct genl_ops krdma_genl_ops[] = {
	{
		.cmd	= KRDMA_CMD_VERSION_GET,
		.doit	= krdma_nl_version_get,
	},
	{
		.cmd	= KRDMA_CMD_DEV_GET,
		.doit	= krdma_device_nl_get,
		.dumpit	= krdma_device_nl_dump,
		.policy	= krdma_dev_get_policy,
		.maxattr = ARRAY_SIZE(krdma_dev_get_policy) - 1,
	},
};

static const struct genl_multicast_group krdma_mcgrps[] = {
	{ .name = KRDMA_MCGRP_EVENTS },
};

static struct genl_family krdma_genl_family __ro_after_init = {
	.name		= KRDMA_GENL_NAME,
	.version	= KRDMA_GENL_VERSION,
	.maxattr	= KRDMA_A_MAX,
	.netnsok	= true,
	.module		= THIS_MODULE,
	.ops		= krdma_genl_ops,
	.n_ops		= ARRAY_SIZE(krdma_genl_ops),
	.resv_start_op	= KRDMA_CMD_MAX + 1,
	.mcgrps		= krdma_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(krdma_mcgrps),
};

int __init krdma_netlink_init(void)
{
	return genl_register_family(&krdma_genl_family);
}

void krdma_netlink_exit(void)
{
	genl_unregister_family(&krdma_genl_family);
}
