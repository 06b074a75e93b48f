/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/krdma.yaml */
/* by scripts/spec-to-c.py; make check-spec checks that it is current. */

#ifndef _KRDMA_NETLINK_GEN_H
#define _KRDMA_NETLINK_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/krdma.h>

/* Common nested types */
extern const struct nla_policy krdma_addr_nl_policy[KRDMA_ADDR_A_SCOPE_ID + 1];

/* Ops table for krdma */
extern const struct genl_ops krdma_nl_ops[13];

int krdma_nl_version_get_doit(struct sk_buff *skb, struct genl_info *info);
int krdma_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info);
int krdma_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int krdma_nl_listener_add_doit(struct sk_buff *skb, struct genl_info *info);
int krdma_nl_listener_del_doit(struct sk_buff *skb, struct genl_info *info);
int krdma_nl_listener_get_doit(struct sk_buff *skb, struct genl_info *info);
int krdma_nl_listener_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int krdma_nl_session_new_doit(struct sk_buff *skb, struct genl_info *info);
int krdma_nl_session_del_doit(struct sk_buff *skb, struct genl_info *info);
int krdma_nl_session_get_doit(struct sk_buff *skb, struct genl_info *info);
int krdma_nl_session_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int krdma_nl_test_start_doit(struct sk_buff *skb, struct genl_info *info);
int krdma_nl_test_stop_doit(struct sk_buff *skb, struct genl_info *info);
int krdma_nl_test_get_doit(struct sk_buff *skb, struct genl_info *info);
int krdma_nl_test_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int krdma_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info);
int krdma_nl_stats_reset_doit(struct sk_buff *skb, struct genl_info *info);

enum {
	KRDMA_NLGRP_EVENTS,
};

extern const struct genl_multicast_group krdma_nl_mcgrps[1];

/*
 * An attribute of test-start that only some test modes take: a request
 * of another mode that gives it is refused, with @refusal, unless it
 * gives its default (a value that asks the mode for nothing).
 */
struct krdma_mode_attr {
	u16		attr;
	u8		type;		/* NLA_U8, NLA_U32 or NLA_U64 */
	u32		modes;		/* 1 << mode of each mode that takes it */
	bool		has_default;
	u64		dflt;
	const char	*refusal;
};

extern const struct krdma_mode_attr krdma_test_mode_attrs[15];

#endif /* _KRDMA_NETLINK_GEN_H */
