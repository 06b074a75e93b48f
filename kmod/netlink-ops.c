// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: every request of the "krdma" Generic Netlink family, the doit and
 * dumpit handlers that netlink-gen.c's ops table names. They parse and
 * check what the strict policies cannot, then ask the objects, which
 * export only what fills a message (*_fill, *_fill_lookup, their tables)
 * and the operations themselves. No handler waits for the network.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <net/genetlink.h>
#include <uapi/linux/krdma.h>

#include "handshake.h"
#include "krdma_name.h"
#include "test.h"
#include "netlink-gen.h"

/* Sends @msg, filled by an object, as the reply to @info, unless @ret. */
static int krdma_reply_or_free(struct genl_info *info, struct sk_buff *msg,
			       void *hdr, int ret)
{
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return krdma_genlmsg_reply(info, msg, hdr);
}

/* Turns a nested krdma_addr_attr into a sockaddr; no address means "any". */
static int krdma_parse_addr(struct nlattr *nest, struct sockaddr_storage *ss,
			    bool need_ip, struct netlink_ext_ack *extack)
{
	struct nlattr *tb[KRDMA_ADDR_A_MAX + 1];
	struct sockaddr_in6 *sin6 = (void *)ss;
	struct sockaddr_in *sin = (void *)ss;
	int ret;

	ret = nla_parse_nested(tb, KRDMA_ADDR_A_MAX, nest, krdma_addr_nl_policy,
			       extack);
	if (ret)
		return ret;
	if (tb[KRDMA_ADDR_A_IPV4] && tb[KRDMA_ADDR_A_IPV6]) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "give an IPv4 or an IPv6 address, not both");
		return -EINVAL;
	}
	if (need_ip && !tb[KRDMA_ADDR_A_IPV4] && !tb[KRDMA_ADDR_A_IPV6]) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "address required");
		return -EINVAL;
	}
	if (tb[KRDMA_ADDR_A_SCOPE_ID] && !tb[KRDMA_ADDR_A_IPV6]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[KRDMA_ADDR_A_SCOPE_ID],
				    "a scope is for an IPv6 address");
		return -EINVAL;
	}

	memset(ss, 0, sizeof(*ss));
	if (tb[KRDMA_ADDR_A_IPV6]) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = nla_get_in6_addr(tb[KRDMA_ADDR_A_IPV6]);
		/* The RDMA CM binds a link-local address to this interface. */
		if (tb[KRDMA_ADDR_A_SCOPE_ID])
			sin6->sin6_scope_id = nla_get_u32(tb[KRDMA_ADDR_A_SCOPE_ID]);
		if (tb[KRDMA_ADDR_A_PORT])
			sin6->sin6_port = htons(nla_get_u16(tb[KRDMA_ADDR_A_PORT]));
	} else {
		sin->sin_family = AF_INET;
		if (tb[KRDMA_ADDR_A_IPV4])
			sin->sin_addr.s_addr = nla_get_in_addr(tb[KRDMA_ADDR_A_IPV4]);
		if (tb[KRDMA_ADDR_A_PORT])
			sin->sin_port = htons(nla_get_u16(tb[KRDMA_ADDR_A_PORT]));
	}
	return 0;
}

static bool krdma_addr_has_port(struct sockaddr_storage *ss)
{
	return ((struct sockaddr_in *)ss)->sin_port != 0;
}

static const char *krdma_attr_name(struct genl_info *info)
{
	return info->attrs[KRDMA_A_NAME] ? nla_data(info->attrs[KRDMA_A_NAME]) : NULL;
}

/*
 * A name for a new object: printable, no spaces, not all digits (so that
 * "krdmactl ... 12" always means an id), and not empty.
 */
static int krdma_check_new_name(struct genl_info *info)
{
	struct nlattr *attr = info->attrs[KRDMA_A_NAME];

	if (!attr)
		return 0;
	/* The policy bounds the length; the rest of the rule is shared. */
	switch (krdma_name_check(nla_data(attr))) {
	case KRDMA_NAME_OK:
		return 0;
	case KRDMA_NAME_EMPTY:
		NL_SET_ERR_MSG_ATTR(info->extack, attr, "name is empty");
		break;
	case KRDMA_NAME_TOO_LONG:
		NL_SET_ERR_MSG_ATTR(info->extack, attr, "name is too long");
		break;
	case KRDMA_NAME_BAD_CHAR:
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "name must be printable, without spaces");
		break;
	case KRDMA_NAME_ALL_DIGITS:
		NL_SET_ERR_MSG_ATTR(info->extack, attr, "name must not be all digits");
		break;
	}
	return -EINVAL;
}

/* ------------------------------------------------------------------ */
/* Handlers                                                            */

/*
 * The reply of a command that creates an object, holding its id. Such
 * commands allocate the reply (krdma_genlmsg_new_reply()) before they
 * create anything: once the object exists, the request must not fail for
 * want of memory and leave it behind.
 */
static int krdma_reply_id(struct genl_info *info, struct sk_buff *msg,
			  void *hdr, int attr, u32 id)
{
	return krdma_reply_or_free(info, msg, hdr, nla_put_u32(msg, attr, id));
}

/**
 * krdma_nl_version_get_doit() - version-get: the module's and the ABI's
 * @skb: the request
 * @info: its attributes, none
 *
 * Context: genl_mutex held.
 * Return: 0 or a negative errno.
 */
int krdma_nl_version_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;
	int ret;

	msg = krdma_genlmsg_new_reply(info, KRDMA_CMD_VERSION_GET, &hdr);
	if (!msg)
		return -ENOMEM;
	ret = nla_put_string(msg, KRDMA_A_VERSION, KRDMA_VERSION) ||
	      nla_put_u32(msg, KRDMA_A_ABI_VERSION, KRDMA_ABI_VERSION);
	return krdma_reply_or_free(info, msg, hdr, ret ? -EMSGSIZE : 0);
}

/**
 * krdma_nl_dev_get_doit() - dev-get: one RDMA device, by name
 * @skb: the request
 * @info: its attributes
 *
 * Context: genl_mutex held.
 * Return: 0, -ENODEV, or another negative errno, its reason in extack.
 */
int krdma_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *name = info->attrs[KRDMA_A_DEV_NAME];
	struct sk_buff *msg;
	void *hdr;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, KRDMA_A_DEV_NAME))
		return -EINVAL;
	msg = krdma_genlmsg_new_reply(info, KRDMA_CMD_DEV_GET, &hdr);
	if (!msg)
		return -ENOMEM;
	ret = krdma_device_fill_lookup(msg, genl_info_net(info), name);
	if (ret == -ENODEV)
		NL_SET_ERR_MSG_ATTR(info->extack, name, "no such RDMA device");
	return krdma_reply_or_free(info, msg, hdr, ret);
}

/**
 * krdma_nl_dev_get_dumpit() - dev-get's dump: every RDMA device
 * @skb: the round's message buffer
 * @cb: the dump's state
 *
 * Context: genl_mutex held.
 * Return: as krdma_nl_xa_dump().
 */
int krdma_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return krdma_nl_xa_dump(skb, cb, KRDMA_CMD_DEV_GET, &krdma_device_table);
}

/* The figures in the refusal below. */
static_assert(KRDMA_ACK_TIMEOUT_MIN == 8 && KRDMA_ACK_TIMEOUT_MAX == 31);

/*
 * A session's or listener's session-ack-timeout into @val: 0 when absent
 * (the module parameter's then). The policy bounds it above; 0 is the
 * default's spelling, and 1..7 are refused, as the module parameter is
 * clamped to 8 (1 ms): a timeout shorter would resend what is on its way.
 */
static int krdma_attr_ack_timeout(struct genl_info *info, u8 *val)
{
	struct nlattr *a = info->attrs[KRDMA_A_SESSION_ACK_TIMEOUT];

	*val = a ? nla_get_u8(a) : 0;
	if (*val && *val < KRDMA_ACK_TIMEOUT_MIN) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "ack timeout out of range: 8..31, or 0 for the module parameter's");
		return -ERANGE;
	}
	return 0;
}

/**
 * krdma_nl_listener_add_doit() - listener-add: listens on an address
 * @skb: the request
 * @info: its attributes
 *
 * The reply is the new listener, as listener-get shows it.
 *
 * Context: genl_mutex held.
 * Return: 0 or a negative errno, its reason in extack.
 */
int krdma_nl_listener_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sockaddr_storage addr;
	struct sk_buff *msg;
	u8 ack_timeout;
	void *hdr;
	u32 id;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, KRDMA_A_LOCAL_ADDR))
		return -EINVAL;
	ret = krdma_check_new_name(info);
	if (ret)
		return ret;
	ret = krdma_parse_addr(info->attrs[KRDMA_A_LOCAL_ADDR], &addr, false,
			       info->extack);
	if (ret)
		return ret;
	if (!krdma_addr_has_port(&addr)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KRDMA_A_LOCAL_ADDR],
				    "port required");
		return -EINVAL;
	}
	ret = krdma_attr_ack_timeout(info, &ack_timeout);
	if (ret)
		return ret;
	msg = krdma_genlmsg_new_reply(info, KRDMA_CMD_LISTENER_ADD, &hdr);
	if (!msg)
		return -ENOMEM;
	ret = krdma_listener_add(genl_info_net(info), krdma_attr_name(info),
				 &addr, ack_timeout, &id, info->extack);
	if (!ret)
		ret = krdma_listener_fill_lookup(msg, genl_info_net(info), id,
						 NULL);
	if (ret == -ENOENT)
		NL_SET_ERR_MSG(info->extack, "no such listener");
	return krdma_reply_or_free(info, msg, hdr, ret);
}

/**
 * krdma_nl_listener_del_doit() - listener-del: stops listening
 * @skb: the request
 * @info: its attributes: the listener's id or name
 *
 * Context: genl_mutex held.
 * Return: 0 or a negative errno, its reason in extack.
 */
int krdma_nl_listener_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *id = info->attrs[KRDMA_A_LISTENER_ID];

	if (!id && !info->attrs[KRDMA_A_NAME]) {
		NL_SET_ERR_MSG(info->extack, "listener id or name required");
		return -EINVAL;
	}
	return krdma_listener_del(genl_info_net(info), id ? nla_get_u32(id) : 0,
				  krdma_attr_name(info), info->extack);
}

/**
 * krdma_nl_listener_get_doit() - listener-get: one listener, by id or name
 * @skb: the request
 * @info: its attributes
 *
 * Context: genl_mutex held.
 * Return: 0, -ENOENT, or another negative errno, its reason in extack.
 */
int krdma_nl_listener_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *name = info->attrs[KRDMA_A_NAME];
	struct nlattr *id = info->attrs[KRDMA_A_LISTENER_ID];
	struct sk_buff *msg;
	void *hdr;
	int ret;

	if (!id && !name) {
		NL_SET_ERR_MSG(info->extack, "listener id or name required");
		return -EINVAL;
	}
	msg = krdma_genlmsg_new_reply(info, KRDMA_CMD_LISTENER_GET, &hdr);
	if (!msg)
		return -ENOMEM;
	ret = krdma_listener_fill_lookup(msg, genl_info_net(info),
					 id ? nla_get_u32(id) : 0,
					 name ? nla_data(name) : NULL);
	if (ret == -ENOENT)
		NL_SET_ERR_MSG(info->extack, "no such listener");
	return krdma_reply_or_free(info, msg, hdr, ret);
}

/**
 * krdma_nl_listener_get_dumpit() - listener-get's dump: the namespace's
 * @skb: the round's message buffer
 * @cb: the dump's state
 *
 * Context: genl_mutex held.
 * Return: as krdma_nl_xa_dump().
 */
int krdma_nl_listener_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	return krdma_nl_xa_dump(skb, cb, KRDMA_CMD_LISTENER_GET,
				&krdma_listener_table);
}

/* The figure in session_new's refusal of a small sq_depth. */
static_assert(KRDMA_QPS_SQ_DEPTH_MIN == 5);

/**
 * krdma_nl_session_new_doit() - session-new: connects to a peer
 * @skb: the request
 * @info: its attributes
 *
 * Answers with the session's id at once: the connect goes on in the
 * background, and SESSION_UP (or SESSION_DOWN) on the events group says
 * how it went.
 *
 * Context: genl_mutex held.
 * Return: 0 or a negative errno, its reason in extack.
 */
int krdma_nl_session_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct krdma_session_params p = {
		.net		= genl_info_net(info),
		.name		= krdma_attr_name(info),
		.sq_depth	= KRDMA_A_SESSION_SQ_DEPTH_DEFAULT,
		.rq_depth	= KRDMA_A_SESSION_RQ_DEPTH_DEFAULT,
		.max_msg_size	= KRDMA_A_SESSION_MAX_MSG_SIZE_DEFAULT,
		.timeout_ms	= KRDMA_A_TIMEOUT_MS_DEFAULT,
		.qps		= KRDMA_A_SESSION_QPS_DEFAULT,
	};
	struct nlattr **tb = info->attrs;
	struct sk_buff *msg;
	void *hdr;
	u32 id;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, KRDMA_A_PEER_ADDR))
		return -EINVAL;
	ret = krdma_check_new_name(info);
	if (ret)
		return ret;
	ret = krdma_parse_addr(tb[KRDMA_A_PEER_ADDR], &p.peer_addr, true,
			       info->extack);
	if (ret)
		return ret;
	if (!krdma_addr_has_port(&p.peer_addr)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KRDMA_A_PEER_ADDR],
				    "port required");
		return -EINVAL;
	}
	if (tb[KRDMA_A_LOCAL_ADDR]) {
		ret = krdma_parse_addr(tb[KRDMA_A_LOCAL_ADDR], &p.local_addr, true,
				       info->extack);
		if (ret)
			return ret;
		if (p.local_addr.ss_family != p.peer_addr.ss_family) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[KRDMA_A_LOCAL_ADDR],
					    "source and peer address families differ");
			return -EINVAL;
		}
	}
	if (tb[KRDMA_A_TIMEOUT_MS])
		p.timeout_ms = nla_get_u32(tb[KRDMA_A_TIMEOUT_MS]);
	if (tb[KRDMA_A_SESSION_SQ_DEPTH])
		p.sq_depth = nla_get_u32(tb[KRDMA_A_SESSION_SQ_DEPTH]);
	if (tb[KRDMA_A_SESSION_RQ_DEPTH])
		p.rq_depth = nla_get_u32(tb[KRDMA_A_SESSION_RQ_DEPTH]);
	if (tb[KRDMA_A_SESSION_MAX_MSG_SIZE])
		p.max_msg_size = nla_get_u32(tb[KRDMA_A_SESSION_MAX_MSG_SIZE]);
	if (tb[KRDMA_A_SESSION_QPS])
		p.qps = nla_get_u32(tb[KRDMA_A_SESSION_QPS]);
	if (tb[KRDMA_A_SESSION_MAX_SGE])
		p.max_sge = nla_get_u32(tb[KRDMA_A_SESSION_MAX_SGE]);
	p.tos = tb[KRDMA_A_SESSION_TOS] ?
		nla_get_u8(tb[KRDMA_A_SESSION_TOS]) : -1;
	ret = krdma_attr_ack_timeout(info, &p.ack_timeout);
	if (ret)
		return ret;
	p.rnr_ask = tb[KRDMA_A_SESSION_RNR_RETRY] ?
		    nla_get_u8(tb[KRDMA_A_SESSION_RNR_RETRY]) :
		    KRDMA_RNR_RETRY_UNSET;
	/* The server would refuse it (krdma_check_hello()): say why here. */
	if (p.qps > 1 && p.sq_depth < KRDMA_QPS_SQ_DEPTH_MIN) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KRDMA_A_SESSION_SQ_DEPTH],
				    "sq_depth leaves no room for a test over several QPs: 5 at least");
		return -EINVAL;
	}

	msg = krdma_genlmsg_new_reply(info, KRDMA_CMD_SESSION_NEW, &hdr);
	if (!msg)
		return -ENOMEM;
	ret = krdma_connect(&p, &id, info->extack);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return krdma_reply_id(info, msg, hdr, KRDMA_A_SESSION_ID, id);
}

/* Looks up the session named by KRDMA_A_SESSION_ID or KRDMA_A_NAME. */
static struct krdma_session *krdma_nl_session(struct genl_info *info)
{
	struct nlattr *id = info->attrs[KRDMA_A_SESSION_ID];
	struct krdma_session *sess;

	if (!id && !info->attrs[KRDMA_A_NAME]) {
		NL_SET_ERR_MSG(info->extack, "session id or name required");
		return ERR_PTR(-EINVAL);
	}
	sess = krdma_session_lookup(genl_info_net(info), id ? nla_get_u32(id) : 0,
				    id ? NULL : krdma_attr_name(info));
	if (!sess) {
		NL_SET_ERR_MSG(info->extack, "no such session");
		return ERR_PTR(-ENOENT);
	}
	return sess;
}

/**
 * krdma_nl_session_del_doit() - session-del: ends a session
 * @skb: the request
 * @info: its attributes: the session's id or name
 *
 * Teardown runs in the background; SESSION_DOWN says when it is over.
 *
 * Context: genl_mutex held.
 * Return: 0, -ENOENT, or -EINVAL, its reason in extack.
 */
int krdma_nl_session_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct krdma_session *sess = krdma_nl_session(info);

	if (IS_ERR(sess))
		return PTR_ERR(sess);
	krdma_session_close(sess, "closed by user");
	krdma_session_put(sess);
	return 0;
}

/**
 * krdma_nl_session_get_doit() - session-get: one session, with its counters
 * @skb: the request
 * @info: its attributes: the session's id or name
 *
 * Context: genl_mutex held.
 * Return: 0 or a negative errno, its reason in extack.
 */
int krdma_nl_session_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct krdma_session *sess = krdma_nl_session(info);
	struct sk_buff *msg;
	void *hdr;
	int ret;

	if (IS_ERR(sess))
		return PTR_ERR(sess);
	msg = krdma_genlmsg_new_reply(info, KRDMA_CMD_SESSION_GET, &hdr);
	if (!msg) {
		krdma_session_put(sess);
		return -ENOMEM;
	}
	ret = krdma_session_fill(msg, sess, true);
	krdma_session_put(sess);
	return krdma_reply_or_free(info, msg, hdr, ret);
}

/**
 * krdma_nl_session_get_dumpit() - session-get's dump: the namespace's
 * @skb: the round's message buffer
 * @cb: the dump's state
 *
 * Context: genl_mutex held.
 * Return: as krdma_nl_xa_dump().
 */
int krdma_nl_session_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	return krdma_nl_xa_dump(skb, cb, KRDMA_CMD_SESSION_GET,
				&krdma_session_table);
}

/*
 * The software rate limit of a bw test (perftest's --rate_limit and
 * --burst_size); @p has its bidir, the modes that take them are
 * krdma_test_attrs_check()'s, burst against depth is the bw engine's.
 */
static int krdma_nl_test_rate(struct nlattr **tb, struct krdma_test_params *p,
			      struct netlink_ext_ack *extack)
{
	struct nlattr *rate = tb[KRDMA_A_TEST_RATE], *burst = tb[KRDMA_A_TEST_BURST];

	if (!rate && !burst)
		return 0;
	if (!rate) {
		NL_SET_ERR_MSG_ATTR(extack, burst, "burst goes with a rate");
		return -EINVAL;
	}
	p->rate = nla_get_u64(rate);
	if (!p->rate) {
		NL_SET_ERR_MSG_ATTR(extack, rate,
				    "rate must be above 0 (leave it out for no limit)");
		return -EINVAL;
	}
	/* The mirror runs unlimited: a limit one way only misleads. */
	if (p->bidir) {
		NL_SET_ERR_MSG_ATTR(extack, rate,
				    "rate limits one way: not with bidir");
		return -EOPNOTSUPP;
	}
	if (burst)
		p->burst = nla_get_u32(burst);
	return 0;
}

/* A u32 attribute, or 0 (left out: the policy refuses a 0). */
static u32 krdma_nl_u32(struct nlattr *attr)
{
	return attr ? nla_get_u32(attr) : 0;
}

/**
 * krdma_nl_test_start_doit() - test-start: a test of ours on a session
 * @skb: the request
 * @info: its attributes
 *
 * Answers with the test's id once its TEST_REQ is sent; the test runs in
 * the background, and TEST_DONE on the events group says how it went.
 *
 * Context: genl_mutex held; waits for the session's cm_mutex.
 * Return: 0 or a negative errno, its reason in extack.
 */
int krdma_nl_test_start_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct krdma_test_params p = {};
	struct krdma_session *sess;
	struct sk_buff *msg;
	void *hdr;
	u32 id;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, KRDMA_A_TEST_OP))
		return -EINVAL;
	p.op = nla_get_u8(tb[KRDMA_A_TEST_OP]);
	p.mode = tb[KRDMA_A_TEST_MODE] ? nla_get_u8(tb[KRDMA_A_TEST_MODE]) :
		 KRDMA_A_TEST_MODE_DEFAULT;
	if (!krdma_engine(p.mode)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KRDMA_A_TEST_MODE],
				    "no engine runs this mode");
		return -EOPNOTSUPP;
	}
	ret = krdma_test_attrs_check(tb, p.mode, info->extack);
	if (ret)
		return ret;
	/* What is left out (0) is krdma_test_params_defaults()'s to fill. */
	p.size = krdma_nl_u32(tb[KRDMA_A_TEST_SIZE]);
	p.depth = krdma_nl_u32(tb[KRDMA_A_TEST_DEPTH]);
	p.signal_every = krdma_nl_u32(tb[KRDMA_A_TEST_SIGNAL_EVERY]);
	p.chain = krdma_nl_u32(tb[KRDMA_A_TEST_CHAIN]);
	p.qps = krdma_nl_u32(tb[KRDMA_A_TEST_QPS]);
	p.interval_ms = krdma_nl_u32(tb[KRDMA_A_TEST_INTERVAL_MS]);
	p.duration_ms = krdma_nl_u32(tb[KRDMA_A_TEST_DURATION_MS]);
	if (tb[KRDMA_A_TEST_BIDIR])
		p.bidir = nla_get_u8(tb[KRDMA_A_TEST_BIDIR]);
	if (tb[KRDMA_A_TEST_VIOLATE])
		p.violate = nla_get_u8(tb[KRDMA_A_TEST_VIOLATE]);
	if (tb[KRDMA_A_TEST_ATOMIC_VARIANT])
		p.atomic_variant = nla_get_u8(tb[KRDMA_A_TEST_ATOMIC_VARIANT]);
	p.sges = krdma_nl_u32(tb[KRDMA_A_TEST_SGES]);
	if (tb[KRDMA_A_TEST_READ_BACK])
		p.read_back = nla_get_u8(tb[KRDMA_A_TEST_READ_BACK]);
	if (tb[KRDMA_A_TEST_SEND_INVALIDATE])
		p.send_inv = nla_get_u8(tb[KRDMA_A_TEST_SEND_INVALIDATE]);
	if (tb[KRDMA_A_TEST_ZERO_LENGTH])
		p.zero_length = nla_get_u8(tb[KRDMA_A_TEST_ZERO_LENGTH]);
	if (tb[KRDMA_A_TEST_RNR_HOLD])
		p.rnr_hold = nla_get_u8(tb[KRDMA_A_TEST_RNR_HOLD]);
	if (tb[KRDMA_A_TEST_ZERO_READ_BEHIND])
		p.zero_behind = nla_get_u8(tb[KRDMA_A_TEST_ZERO_READ_BEHIND]);
	if (tb[KRDMA_A_TEST_REG_BEHIND])
		p.reg_behind = nla_get_u8(tb[KRDMA_A_TEST_REG_BEHIND]);
	ret = krdma_nl_test_rate(tb, &p, info->extack);
	if (ret)
		return ret;
	if (tb[KRDMA_A_TEST_COUNT] && tb[KRDMA_A_TEST_DURATION_MS]) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KRDMA_A_TEST_DURATION_MS],
				    "give a count or a duration, not both");
		return -EINVAL;
	}
	if (tb[KRDMA_A_TEST_COUNT]) {
		p.count = nla_get_u64(tb[KRDMA_A_TEST_COUNT]);
		if (!p.count) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[KRDMA_A_TEST_COUNT],
					    "count must be at least 1");
			return -EINVAL;
		}
	}
	/* The bounds are the policy's; krdma_test_start() checks them again. */
	krdma_test_params_defaults(&p);

	sess = krdma_nl_session(info);
	if (IS_ERR(sess))
		return PTR_ERR(sess);
	msg = krdma_genlmsg_new_reply(info, KRDMA_CMD_TEST_START, &hdr);
	if (!msg) {
		krdma_session_put(sess);
		return -ENOMEM;
	}
	ret = krdma_test_start(sess, &p, &id, info->extack);
	krdma_session_put(sess);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return krdma_reply_id(info, msg, hdr, KRDMA_A_TEST_ID, id);
}

/**
 * krdma_nl_test_stop_doit() - test-stop: asks a running test to stop
 * @skb: the request
 * @info: its attributes: the test's id
 *
 * Context: genl_mutex held.
 * Return: as krdma_test_stop().
 */
int krdma_nl_test_stop_doit(struct sk_buff *skb, struct genl_info *info)
{
	if (GENL_REQ_ATTR_CHECK(info, KRDMA_A_TEST_ID))
		return -EINVAL;
	return krdma_test_stop(genl_info_net(info),
			       nla_get_u32(info->attrs[KRDMA_A_TEST_ID]),
			       info->extack);
}

/**
 * krdma_nl_test_get_doit() - test-get: one test of ours, by id
 * @skb: the request
 * @info: its attributes
 *
 * Context: genl_mutex held.
 * Return: 0, -ENOENT, or another negative errno, its reason in extack.
 */
int krdma_nl_test_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, KRDMA_A_TEST_ID))
		return -EINVAL;
	msg = krdma_genlmsg_new_reply(info, KRDMA_CMD_TEST_GET, &hdr);
	if (!msg)
		return -ENOMEM;
	ret = krdma_nl_fill_id(msg, &krdma_test_table, genl_info_net(info),
			       nla_get_u32(info->attrs[KRDMA_A_TEST_ID]));
	if (ret == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KRDMA_A_TEST_ID],
				    "no such test");
	return krdma_reply_or_free(info, msg, hdr, ret);
}

/**
 * krdma_nl_test_get_dumpit() - test-get's dump: the namespace's tests
 * @skb: the round's message buffer
 * @cb: the dump's state
 *
 * Context: genl_mutex held.
 * Return: as krdma_nl_xa_dump().
 */
int krdma_nl_test_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return krdma_nl_xa_dump(skb, cb, KRDMA_CMD_TEST_GET, &krdma_test_table);
}

/*
 * The counters are the module's: every namespace's sessions and
 * listeners count into them, as into the caps they are held to. A
 * container in another network namespace must not read what the host's
 * sessions did, nor reset it; its own sessions' counters are theirs.
 */
static int krdma_nl_stats_visible(struct genl_info *info)
{
	if (net_eq(genl_info_net(info), &init_net))
		return 0;
	NL_SET_ERR_MSG(info->extack,
		       "module-wide counters belong to the initial network namespace; a session's own: session show with stats");
	return -EPERM;
}

/**
 * krdma_nl_stats_get_doit() - stats-get: the module's counters
 * @skb: the request
 * @info: its attributes, none
 *
 * Context: genl_mutex held.
 * Return: 0, -EPERM outside the initial namespace, or another negative
 * errno.
 */
int krdma_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;
	int ret;

	ret = krdma_nl_stats_visible(info);
	if (ret)
		return ret;

	msg = krdma_genlmsg_new_reply(info, KRDMA_CMD_STATS_GET, &hdr);
	if (!msg)
		return -ENOMEM;
	ret = krdma_stats_fill(msg, &krdma_global_stats);
	return krdma_reply_or_free(info, msg, hdr, ret ? -EMSGSIZE : 0);
}

/**
 * krdma_nl_stats_reset_doit() - stats-reset: the module's counters to 0
 * @skb: the request
 * @info: its attributes, none
 *
 * The gauges stay (krdma_stats_reset()).
 *
 * Context: genl_mutex held.
 * Return: 0, or -EPERM outside the initial namespace.
 */
int krdma_nl_stats_reset_doit(struct sk_buff *skb, struct genl_info *info)
{
	int ret = krdma_nl_stats_visible(info);

	if (ret)
		return ret;
	krdma_stats_reset(&krdma_global_stats);
	return 0;
}
