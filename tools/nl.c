// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl: Generic Netlink plumbing.
 */
#define _GNU_SOURCE	/* ppoll() */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "attrs.h"
#include "nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* A reply that takes longer than this means the module is stuck. */
#define NL_REPLY_TIMEOUT_MS	30000
#define NL_EVENT_RCVBUF		(4 << 20)

static struct knl_ctx ctx;
/* A request was refused for one of its values (knl_value_refused()). */
static bool value_refused;
static bool ctx_open;
bool knl_parse_only;
static bool parse_only_stopped;

volatile sig_atomic_t sig_received;

int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int nlerr_to_errno(int nlerr)
{
	switch (nlerr < 0 ? -nlerr : nlerr) {
	case NLE_NOMEM:
		return ENOMEM;
	case NLE_AGAIN:
		return EAGAIN;
	case NLE_INTR:
	case NLE_DUMP_INTR:
		return EINTR;
	case NLE_MSG_TRUNC:
	case NLE_MSGSIZE:
		return EMSGSIZE;
	case NLE_SEQ_MISMATCH:
	case NLE_MSG_TOOSHORT:
	case NLE_PARSE_ERR:
		return EPROTO;
	case NLE_PERM:
		return EPERM;
	case NLE_OBJ_NOTFOUND:
		return ENOENT;
	case NLE_OPNOTSUPP:
		return EOPNOTSUPP;
	default:
		return EIO;
	}
}

bool knl_parse_only_stop(void)
{
	if (knl_parse_only)
		parse_only_stopped = true;
	return knl_parse_only;
}

bool knl_take_parse_only_stopped(void)
{
	bool stopped = parse_only_stopped;

	parse_only_stopped = false;
	return stopped;
}

struct knl_ctx *knl_get(void)
{
	return knl_open(KRDMA_GENL_NAME);
}

struct knl_ctx *knl_open(const char *family)
{
	char err[256];
	struct knl_ctx *c = knl_try_open(family, err, sizeof(err));

	if (!c && !knl_parse_only)
		fprintf(stderr, "krdmactl: %s\n", err);
	return c;
}

struct knl_ctx *knl_try_open(const char *family, char *err, size_t errlen)
{
	int one = 1, rc;

	/* Whatever the command: nothing of --parse-only reaches the kernel. */
	if (knl_parse_only_stop()) {
		snprintf(err, errlen, "--parse-only: nothing sent");
		return NULL;
	}
	if (ctx_open)
		return &ctx;
	memset(&ctx, 0, sizeof(ctx));
	ctx.sk = nl_socket_alloc();
	if (!ctx.sk) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	rc = genl_connect(ctx.sk);
	if (rc < 0) {
		snprintf(err, errlen, "cannot open a generic netlink socket: %s",
			 nl_geterror(rc));
		goto fail;
	}
	/* Ask for the kernel's error strings, and don't echo requests. */
	setsockopt(nl_socket_get_fd(ctx.sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	setsockopt(nl_socket_get_fd(ctx.sk), SOL_NETLINK, NETLINK_CAP_ACK,
		   &one, sizeof(one));
	nl_socket_enable_msg_peek(ctx.sk);

	ctx.family = genl_ctrl_resolve(ctx.sk, family);
	if (ctx.family < 0) {
		if (ctx.family == -NLE_OBJ_NOTFOUND)
			snprintf(err, errlen, "generic netlink family \"%s\" not found: is the %s module loaded? (modprobe %s)",
				 family, family, family);
		else
			snprintf(err, errlen, "cannot resolve generic netlink family \"%s\": %s",
				 family, nl_geterror(ctx.family));
		goto fail;
	}
	ctx_open = true;
	return &ctx;
fail:
	nl_socket_free(ctx.sk);
	ctx.sk = NULL;
	return NULL;
}

void knl_put(void)
{
	if (!ctx_open)
		return;
	if (ctx.ev)
		nl_socket_free(ctx.ev);
	nl_socket_free(ctx.sk);
	memset(&ctx, 0, sizeof(ctx));
	ctx_open = false;
}

struct nl_msg *knl_req(struct knl_ctx *c, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, c->family, 0, flags,
			 cmd, KRDMA_GENL_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* ---- extended ACK ---- */

/* Describe the attribute at byte offset off of the request we sent. */
static void describe_offset(struct knl_ctx *c, uint32_t off, char *buf,
			    size_t len)
{
	struct nlmsghdr *nlh;
	struct nlattr *nla, *inner;
	int rem, irem;
	char *base;

	buf[0] = '\0';
	if (!c->req)
		return;
	nlh = nlmsg_hdr(c->req);
	base = (char *)nlh;
	if (off >= nlh->nlmsg_len)
		return;
	nla_for_each_attr(nla, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		int type = nla_type(nla);
		const char *name = attr_name((unsigned int)type);
		uint32_t start = (uint32_t)((char *)nla - base);
		char num[16];

		if (!name) {
			snprintf(num, sizeof(num), "%d", type);
			name = num;
		}
		if (off == start) {
			snprintf(buf, len, "%s", name);
			return;
		}
		if (off < start || off >= start + nla->nla_len)
			continue;
		/* Inside a nest: name the inner attribute of addresses. */
		if (type == KRDMA_A_LOCAL_ADDR || type == KRDMA_A_PEER_ADDR) {
			nla_for_each_nested(inner, nla, irem) {
				const char *iname;

				if ((uint32_t)((char *)inner - base) != off)
					continue;
				iname = addr_attr_name(
					(unsigned int)nla_type(inner));
				snprintf(buf, len, "%s.%s", name,
					 iname ? iname : "?");
				return;
			}
		}
		snprintf(buf, len, "%s", name);
		return;
	}
}

static void parse_ext_tlvs(struct knl_ctx *c, void *start, int len)
{
	static struct nla_policy pol[NLMSGERR_ATTR_MAX + 1] = {
		[NLMSGERR_ATTR_MSG] = { .type = NLA_STRING },
		[NLMSGERR_ATTR_OFFS] = { .type = NLA_U32 },
		[NLMSGERR_ATTR_MISS_TYPE] = { .type = NLA_U32 },
		[NLMSGERR_ATTR_MISS_NEST] = { .type = NLA_U32 },
	};
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	char where[64] = "";

	if (len <= 0 || nla_parse(tb, NLMSGERR_ATTR_MAX, start, len, pol))
		return;
	if (tb[NLMSGERR_ATTR_OFFS])
		describe_offset(c, nla_get_u32(tb[NLMSGERR_ATTR_OFFS]), where,
				sizeof(where));
	if (tb[NLMSGERR_ATTR_MSG]) {
		snprintf(c->ext_msg, sizeof(c->ext_msg), "%s%s%s%s",
			 nla_get_string(tb[NLMSGERR_ATTR_MSG]),
			 where[0] ? " (attribute " : "", where,
			 where[0] ? ")" : "");
	} else if (tb[NLMSGERR_ATTR_MISS_TYPE]) {
		unsigned int t = nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]);
		const char *name;
		char nest[64] = "";

		if (tb[NLMSGERR_ATTR_MISS_NEST]) {
			describe_offset(c, nla_get_u32(tb[NLMSGERR_ATTR_MISS_NEST]),
					nest, sizeof(nest));
			name = addr_attr_name(t);
		} else {
			name = attr_name(t);
		}
		if (name)
			snprintf(c->ext_detail, sizeof(c->ext_detail),
				 "missing attribute %s%s%s", nest,
				 nest[0] ? "." : "", name);
		else
			snprintf(c->ext_detail, sizeof(c->ext_detail),
				 "missing attribute %u%s%s", t,
				 nest[0] ? " in " : "", nest);
	} else if (where[0]) {
		snprintf(c->ext_detail, sizeof(c->ext_detail),
			 "attribute %s", where);
	}
}

/* ---- request/reply ---- */

struct req_state {
	struct knl_ctx *c;
	knl_msg_fn fn;
	void *arg;
	bool done;
	int err;	/* kernel's error */
	int cb_err;	/* first callback error */
};

static int parse_krdma(struct nlmsghdr *nlh, struct nlattr **tb, uint8_t *cmd)
{
	if (!genlmsg_valid_hdr(nlh, 0))
		return -EBADMSG;
	if (genlmsg_parse(nlh, 0, tb, KRDMA_A_MAX, krdma_policy) < 0)
		return -EBADMSG;
	*cmd = ((struct genlmsghdr *)nlmsg_data(nlh))->cmd;
	return 0;
}

static int valid_cb(struct nl_msg *msg, void *arg)
{
	struct req_state *st = arg;
	struct nlattr *tb[KRDMA_A_MAX + 1];
	uint8_t cmd;
	int rc;

	if (st->cb_err)
		return NL_SKIP;
	rc = parse_krdma(nlmsg_hdr(msg), tb, &cmd);
	if (rc) {
		snprintf(st->c->ext_detail, sizeof(st->c->ext_detail),
			 "malformed reply from the kernel");
		st->cb_err = rc;
		return NL_SKIP;
	}
	if (st->fn) {
		rc = st->fn(tb, nlmsg_hdr(msg), st->arg);
		if (rc < 0)
			st->cb_err = rc;
	}
	return NL_OK;
}

static int err_cb(struct sockaddr_nl *who, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct req_state *st = arg;
	size_t off;

	(void)who;
	st->done = true;
	st->err = e->error;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		off = sizeof(*e);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += e->msg.nlmsg_len - NLMSG_HDRLEN;
		off = NLMSG_ALIGN(NLMSG_HDRLEN + off);
		if (off < nlh->nlmsg_len)
			parse_ext_tlvs(st->c, (char *)nlh + off,
				       (int)(nlh->nlmsg_len - off));
	}
	return NL_STOP;
}

static int ack_cb(struct nl_msg *msg, void *arg)
{
	struct req_state *st = arg;

	(void)msg;
	st->done = true;
	return NL_STOP;
}

static int finish_cb(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct req_state *st = arg;
	int len = nlmsg_datalen(nlh);
	int err;

	st->done = true;
	/* A failed dump ends with NLMSG_DONE carrying the error. */
	if (len >= (int)sizeof(int)) {
		memcpy(&err, nlmsg_data(nlh), sizeof(err));
		if (err < 0)
			st->err = err;
		if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
			parse_ext_tlvs(st->c,
				       (char *)nlmsg_data(nlh) + NLMSG_ALIGN(sizeof(int)),
				       len - (int)NLMSG_ALIGN(sizeof(int)));
	}
	return NL_STOP;
}

int knl_exec(struct knl_ctx *c, struct nl_msg *msg, knl_msg_fn fn, void *arg)
{
	struct req_state st = { .c = c, .fn = fn, .arg = arg };
	int rc;

	c->ext_msg[0] = '\0';
	c->ext_detail[0] = '\0';
	c->req = msg;
	nl_socket_modify_cb(c->sk, NL_CB_VALID, NL_CB_CUSTOM, valid_cb, &st);
	nl_socket_modify_cb(c->sk, NL_CB_ACK, NL_CB_CUSTOM, ack_cb, &st);
	nl_socket_modify_cb(c->sk, NL_CB_FINISH, NL_CB_CUSTOM, finish_cb, &st);
	nl_socket_modify_err_cb(c->sk, NL_CB_CUSTOM, err_cb, &st);

	rc = nl_send_auto(c->sk, msg);
	if (rc < 0) {
		snprintf(c->ext_detail, sizeof(c->ext_detail), "send: %s",
			 nl_geterror(rc));
		st.err = -nlerr_to_errno(rc);
		goto out;
	}
	while (!st.done) {
		struct pollfd pfd = { nl_socket_get_fd(c->sk), POLLIN, 0 };
		int n = poll(&pfd, 1, NL_REPLY_TIMEOUT_MS);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			st.err = -errno;
			break;
		}
		if (n == 0) {
			snprintf(c->ext_detail, sizeof(c->ext_detail),
				 "no reply from the krdma module in %d s",
				 NL_REPLY_TIMEOUT_MS / 1000);
			st.err = -ETIMEDOUT;
			break;
		}
		rc = nl_recvmsgs_default(c->sk);
		if (rc < 0 && !st.done) {
			snprintf(c->ext_detail, sizeof(c->ext_detail), "%s",
				 nl_geterror(rc));
			st.err = -nlerr_to_errno(rc);
			break;
		}
	}
out:
	/* Don't leave callbacks pointing at this stack frame: libnl's own
	 * helpers (genl_ctrl_resolve_grp()) clone the socket's callbacks. */
	nl_socket_modify_cb(c->sk, NL_CB_VALID, NL_CB_DEFAULT, NULL, NULL);
	nl_socket_modify_cb(c->sk, NL_CB_ACK, NL_CB_DEFAULT, NULL, NULL);
	nl_socket_modify_cb(c->sk, NL_CB_FINISH, NL_CB_DEFAULT, NULL, NULL);
	nl_socket_modify_err_cb(c->sk, NL_CB_DEFAULT, NULL, NULL);
	c->req = NULL;
	nlmsg_free(msg);
	return st.err ? st.err : st.cb_err;
}

void knl_perror(struct knl_ctx *c, int err, const char *what)
{
	const char *hint = "";

	if (c->ext_msg[0]) {
		fprintf(stderr, "krdmactl: %s\n", c->ext_msg);
		goto out;
	}
	if (err == -EPERM)
		hint = " (CAP_NET_ADMIN is required)";
	else if (err == -EOPNOTSUPP)
		hint = " (not supported by this krdma module)";
	if (c->ext_detail[0])
		fprintf(stderr, "krdmactl: %s: %s (%s)%s\n", what,
			strerror(-err), c->ext_detail, hint);
	else
		fprintf(stderr, "krdmactl: %s: %s%s\n", what, strerror(-err),
			hint);
out:
	/* The kernel refused a value: the command's help says the rules. */
	if (err == -EINVAL || err == -ERANGE || err == -EOPNOTSUPP)
		value_refused = true;
}

bool knl_take_value_refused(void)
{
	bool refused = value_refused;

	value_refused = false;
	return refused;
}

int knl_call(struct knl_ctx *c, struct nl_msg *msg, knl_msg_fn fn, void *arg,
	    const char *what)
{
	int rc = knl_exec(c, msg, fn, arg);

	if (rc)
		knl_perror(c, rc, what);
	return rc;
}

/* ---- events ---- */

struct ev_state {
	struct knl_ctx *c;
	knl_msg_fn fn;
	void *arg;
	int ret;
};

/* nlctrl's CTRL_CMD_DELFAMILY for family id @family: the module is gone. */
static bool family_deleted(struct nlmsghdr *nlh, int family)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1];
	struct genlmsghdr *gnlh = nlmsg_data(nlh);

	if (gnlh->cmd != CTRL_CMD_DELFAMILY ||
	    genlmsg_parse(nlh, 0, tb, CTRL_ATTR_MAX, NULL) < 0 ||
	    !tb[CTRL_ATTR_FAMILY_ID])
		return false;
	return nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]) == family;
}

static int ev_valid_cb(struct nl_msg *msg, void *arg)
{
	struct ev_state *st = arg;
	struct nlattr *tb[KRDMA_A_MAX + 1];
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	uint8_t cmd;
	int rc;

	if (nlh->nlmsg_type == GENL_ID_CTRL) {
		if (family_deleted(nlh, st->c->family)) {
			st->ret = -EIDRM;
			return NL_STOP;
		}
		return NL_SKIP;
	}
	if (nlh->nlmsg_type != st->c->family)
		return NL_SKIP;
	if (parse_krdma(nlh, tb, &cmd) || cmd != KRDMA_CMD_EVENT_NTF) {
		fprintf(stderr, "krdmactl: warning: ignoring a malformed event\n");
		return NL_SKIP;
	}
	rc = st->fn(tb, nlh, st->arg);
	if (rc != 0) {
		st->ret = rc;
		return NL_STOP;
	}
	return NL_OK;
}

int knl_events_open(struct knl_ctx *c)
{
	int grp, rc;

	rc = knl_events_subscribe(c, KRDMA_GENL_NAME, KRDMA_MCGRP_EVENTS);
	if (rc)
		return rc;
	/*
	 * Unloading the module removes the family without a word to the
	 * subscribers of its groups; nlctrl announces it (CTRL_CMD_DELFAMILY).
	 * Best effort: without it, waiting commands only miss that news.
	 */
	grp = genl_ctrl_resolve_grp(c->sk, "nlctrl", "notify");
	if (grp >= 0)
		nl_socket_add_membership(c->ev, grp);
	return 0;
}

struct knl_ctx *knl_get_events(void)
{
	struct knl_ctx *c = knl_get();

	if (!c || knl_events_open(c))
		return NULL;
	return c;
}

int knl_events_subscribe(struct knl_ctx *c, const char *family,
			 const char *group)
{
	int grp, rc;

	if (c->ev)
		return 0;
	grp = genl_ctrl_resolve_grp(c->sk, family, group);
	if (grp < 0) {
		fprintf(stderr, "krdmactl: cannot find multicast group \"%s\" of family \"%s\": %s\n",
			group, family, nl_geterror(grp));
		return -nlerr_to_errno(grp);
	}
	c->ev = nl_socket_alloc();
	if (!c->ev) {
		fprintf(stderr, "krdmactl: out of memory\n");
		return -ENOMEM;
	}
	nl_socket_disable_seq_check(c->ev);
	rc = genl_connect(c->ev);
	if (!rc)
		rc = nl_socket_add_membership(c->ev, grp);
	if (!rc)
		rc = nl_socket_set_nonblocking(c->ev);
	if (rc < 0) {
		fprintf(stderr, "krdmactl: cannot subscribe to krdma events: %s\n",
			nl_geterror(rc));
		nl_socket_free(c->ev);
		c->ev = NULL;
		return -nlerr_to_errno(rc);
	}
	/* Best effort: bursts of progress events should not overrun us. */
	nl_socket_set_buffer_size(c->ev, NL_EVENT_RCVBUF, 0);
	nl_socket_enable_msg_peek(c->ev);
	return 0;
}

/* Handle whatever is queued.  >0: fn asked to stop. */
static int events_drain(struct knl_ctx *c, knl_msg_fn fn, void *arg)
{
	struct ev_state st = { .c = c, .fn = fn, .arg = arg };
	bool lost = false;
	int rc;

	nl_socket_modify_cb(c->ev, NL_CB_VALID, NL_CB_CUSTOM, ev_valid_cb, &st);
	for (;;) {
		rc = nl_recvmsgs_default(c->ev);
		if (st.ret) {
			rc = st.ret;
			break;
		}
		if (rc == -NLE_AGAIN) {
			rc = lost ? -ENOBUFS : 0;
			break;
		}
		if (rc == -NLE_NOMEM) {
			/* ENOBUFS: the socket overran and events were lost. */
			lost = true;
			continue;
		}
		if (rc < 0) {
			rc = -nlerr_to_errno(rc);
			break;
		}
	}
	nl_socket_modify_cb(c->ev, NL_CB_VALID, NL_CB_DEFAULT, NULL, NULL);
	return rc;
}

int knl_events_poll(struct knl_ctx *c, int timeout_ms, knl_msg_fn fn, void *arg)
{
	struct pollfd pfd = { nl_socket_get_fd(c->ev), POLLIN, 0 };
	struct timespec ts, *tsp = NULL;
	sigset_t block, old;
	int rc, n;

	rc = events_drain(c, fn, arg);
	if (rc)
		return rc;

	/* Block SIGINT/SIGTERM so that one arriving before ppoll() is not
	 * missed: ppoll() atomically unblocks them while sleeping. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	if (sig_received) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return -EINTR;
	}
	if (timeout_ms >= 0) {
		ts.tv_sec = timeout_ms / 1000;
		ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000L;
		tsp = &ts;
	}
	n = ppoll(&pfd, 1, tsp, &old);
	rc = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (n < 0)
		return rc == EINTR ? -EINTR : -rc;
	if (n == 0)
		return -ETIMEDOUT;
	return events_drain(c, fn, arg);
}

static void sig_handler(int sig)
{
	sig_received = sig;
}

void sig_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sig_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: interrupt ppoll() */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void sig_install_owner(void)
{
	struct sigaction sa;

	sig_install();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sig_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}
