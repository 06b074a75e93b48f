// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: the "krdma" Generic Netlink family.
 *
 * Documentation/netlink/specs/krdma.yaml describes the same ABI. Every
 * operation has its own strict policy, every change needs CAP_NET_ADMIN,
 * reads are open to all. No handler waits for the network: connects and
 * tests complete in the background and report on the "events" group.
 * This file is the family's core: registration, message helpers, dumps
 * and events; it calls nothing above it. The policies and the ops table
 * are generated from the spec into netlink-gen.c (scripts/spec-to-c.py);
 * the handlers they name are all in netlink-ops.c.
 */
#include <linux/in.h>
#include <linux/ctype.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <net/genetlink.h>
#include <uapi/linux/krdma.h>

#include "krdma.h"
#include "netlink-gen.h"

static struct genl_family krdma_genl_family;

/* ------------------------------------------------------------------ */
/* Message helpers                                                     */

/* Puts @obj of @table into @skb as one message of a dump. */
static int krdma_nl_dump_one(struct sk_buff *skb, struct netlink_callback *cb,
			     u8 cmd, const struct krdma_nl_table *table,
			     void *obj)
{
	void *hdr;
	int ret;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &krdma_genl_family, NLM_F_MULTI, cmd);
	if (!hdr)
		return -EMSGSIZE;
	ret = table->fill(skb, obj);
	if (ret) {
		genlmsg_cancel(skb, hdr);
		return ret;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/**
 * krdma_nl_xa_dump() - one round of a dump of a table of objects
 * @skb: the round's message buffer
 * @cb: the dump's state; cb->args[0] is its cursor
 * @cmd: the command each message answers
 * @table: the objects
 *
 * A dump of @table in id order, resumed after the last object sent. Only
 * the objects the requester's namespace may see.
 *
 * Context: process; takes @table's lock.
 * Return: the bytes put in @skb (0: the dump is over), or a negative errno.
 */
int krdma_nl_xa_dump(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd,
		     const struct krdma_nl_table *table)
{
	struct net *net = sock_net(skb->sk);
	unsigned long id;
	void *obj;
	int ret = 0;

	mutex_lock(table->lock);
	xa_for_each_start(table->xa, id, obj, cb->args[0]) {
		if (!table->visible(obj, net))
			continue;
		ret = krdma_nl_dump_one(skb, cb, cmd, table, obj);
		if (ret)
			break;
		cb->args[0] = id + 1;
	}
	mutex_unlock(table->lock);
	/* A full skb ends this round; the next one resumes at the cursor. */
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret ?: skb->len;
}

/**
 * krdma_nl_fill_id() - one object of a table, into a message
 * @msg: the message
 * @table: the objects
 * @net: the requester's namespace
 * @id: the object's id
 *
 * Puts object @id of @table into @msg, if @net may see it.
 *
 * Context: process; takes @table's lock.
 * Return: 0, -ENOENT, or the fill's error.
 */
int krdma_nl_fill_id(struct sk_buff *msg, const struct krdma_nl_table *table,
		     struct net *net, u32 id)
{
	void *obj;
	int ret;

	mutex_lock(table->lock);
	obj = xa_load(table->xa, id);
	ret = obj && table->visible(obj, net) ? table->fill(msg, obj) : -ENOENT;
	mutex_unlock(table->lock);
	return ret;
}

/**
 * krdma_genlmsg_reply() - sends a reply
 * @info: the request
 * @msg: the reply, from krdma_genlmsg_new_reply(); it is consumed
 * @hdr: its header
 *
 * Ends @msg and sends it as the reply to @info.
 *
 * Return: 0 or genlmsg_reply()'s error.
 */
int krdma_genlmsg_reply(struct genl_info *info, struct sk_buff *msg,
			void *hdr)
{
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/**
 * krdma_genlmsg_new_reply() - a reply to a request, its header put
 * @info: the request
 * @cmd: the command it answers
 * @hdr: set to the reply's header
 *
 * Context: process; it may sleep.
 * Return: the reply, or NULL.
 */
struct sk_buff *krdma_genlmsg_new_reply(struct genl_info *info, u8 cmd,
					void **hdr)
{
	struct sk_buff *msg;

	msg = krdma_failable(genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL));
	if (!msg)
		return NULL;
	*hdr = genlmsg_put_reply(msg, info, &krdma_genl_family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/**
 * krdma_put_addr() - an address, as a nested attribute
 * @skb: the message
 * @attrtype: the nest's attribute
 * @ss: the address
 *
 * Puts @ss as a nested krdma_addr_attr; nothing for an unset address.
 *
 * Return: 0 or -EMSGSIZE.
 */
int krdma_put_addr(struct sk_buff *skb, int attrtype,
		   const struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *sin6 = (const void *)ss;
	const struct sockaddr_in *sin = (const void *)ss;
	struct nlattr *nest;

	if (ss->ss_family != AF_INET && ss->ss_family != AF_INET6)
		return 0;
	nest = nla_nest_start(skb, attrtype);
	if (!nest)
		return -EMSGSIZE;
	/* No IP attribute means "any address", as in requests. */
	if (ss->ss_family == AF_INET) {
		if ((sin->sin_addr.s_addr != htonl(INADDR_ANY) &&
		     nla_put_in_addr(skb, KRDMA_ADDR_A_IPV4, sin->sin_addr.s_addr)) ||
		    nla_put_u16(skb, KRDMA_ADDR_A_PORT, ntohs(sin->sin_port)))
			goto err;
	} else {
		if ((!ipv6_addr_any(&sin6->sin6_addr) &&
		     nla_put_in6_addr(skb, KRDMA_ADDR_A_IPV6, &sin6->sin6_addr)) ||
		    nla_put_u16(skb, KRDMA_ADDR_A_PORT, ntohs(sin6->sin6_port)))
			goto err;
	}
	nla_nest_end(skb, nest);
	return 0;
err:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/**
 * krdma_event_new() - an event message, its kind put
 * @ev: the event
 * @hdr: set to the message's header
 *
 * The caller fills it in and ends it, then sends it with
 * krdma_event_send().
 *
 * Context: process; it may sleep.
 * Return: the message, or NULL.
 */
struct sk_buff *krdma_event_new(enum krdma_event ev, void **hdr)
{
	struct sk_buff *msg;

	msg = krdma_failable(genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL));
	if (!msg)
		return NULL;
	*hdr = genlmsg_put(msg, 0, 0, &krdma_genl_family, 0,
			   KRDMA_CMD_EVENT_NTF);
	if (!*hdr || nla_put_u8(msg, KRDMA_A_EVENT, ev)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/**
 * krdma_event_send() - sends an event to a namespace's listeners
 * @net: the namespace
 * @msg: the event, ended; it is consumed
 *
 * Sends event @msg to the events group of @net.
 *
 * Context: process; it may sleep.
 */
void krdma_event_send(struct net *net, struct sk_buff *msg)
{
	/* Nobody listening (-ESRCH) is fine. */
	genlmsg_multicast_netns(&krdma_genl_family, net, msg, 0,
				KRDMA_NLGRP_EVENTS, GFP_KERNEL);
}

static struct genl_family krdma_genl_family __ro_after_init = {
	.name		= KRDMA_GENL_NAME,
	.version	= KRDMA_GENL_VERSION,
	.maxattr	= KRDMA_A_MAX,
	.netnsok	= true,
	.module		= THIS_MODULE,
	.ops		= krdma_nl_ops,
	.n_ops		= ARRAY_SIZE(krdma_nl_ops),
	/*
	 * .resv_start_op stays 0: every op is "new", so the core checks
	 * genlmsghdr.reserved and nlmsg_flags, and rejects any attribute
	 * sent to an op without a policy (version-get, stats-*).
	 */
	.mcgrps		= krdma_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(krdma_nl_mcgrps),
};

/**
 * krdma_netlink_init() - registers the family
 *
 * Return: 0 or genl_register_family()'s error.
 */
int __init krdma_netlink_init(void)
{
	return genl_register_family(&krdma_genl_family);
}

/**
 * krdma_netlink_exit() - unregisters the family
 */
void krdma_netlink_exit(void)
{
	genl_unregister_family(&krdma_genl_family);
}
