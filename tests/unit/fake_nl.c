// SPDX-License-Identifier: GPL-2.0
/*
 * Scripted stand-in for the krdma module (see fake_nl.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "attrs.h"
#include "fake_nl.h"
#include "nl.h"

/* The real functions, for pass-through when no fake is active. */
int __real_genl_connect(struct nl_sock *sk);
int __real_genl_ctrl_resolve(struct nl_sock *sk, const char *name);
int __real_genl_ctrl_resolve_grp(struct nl_sock *sk, const char *family,
				 const char *grp);
int __real_nl_send_auto(struct nl_sock *sk, struct nl_msg *msg);
int __real_nl_recvmsgs_default(struct nl_sock *sk);
int __real_nl_socket_modify_cb(struct nl_sock *sk, enum nl_cb_type type,
			       enum nl_cb_kind kind, nl_recvmsg_msg_cb_t fn,
			       void *arg);
int __real_nl_socket_modify_err_cb(struct nl_sock *sk, enum nl_cb_kind kind,
				   nl_recvmsg_err_cb_t fn, void *arg);
int __real_nl_socket_add_membership(struct nl_sock *sk, int grp);
int __real_nl_socket_set_nonblocking(const struct nl_sock *sk);
int __real_poll(struct pollfd *fds, nfds_t n, int timeout);
int __real_ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts,
		 const sigset_t *mask);

enum item_kind { IT_MSG, IT_ACK, IT_DONE, IT_ERR, IT_OVERRUN };

struct item {
	enum item_kind kind;
	struct nl_msg *msg;
	int err;
	char text[128];
	int bad_attr;
};

#define QLEN 64
struct queue {
	struct item items[QLEN];
	int head, tail;
};

struct sock_cbs {
	const struct nl_sock *sk;
	nl_recvmsg_msg_cb_t cb[NL_CB_TYPE_MAX + 1];
	void *arg[NL_CB_TYPE_MAX + 1];
	nl_recvmsg_err_cb_t err;
	void *err_arg;
};

static struct {
	bool on;
	fake_kernel_fn kernel;
	struct queue cmdq, evq;
	const struct nl_sock *ev_sk;
	struct sock_cbs socks[4];
	struct nl_msg *reqs[FAKE_MAX_REQS];
	int nreqs;
	int waits;
	int sigint_wait;
	int sig;		/* fake_signal_on_wait()'s, 0: SIGINT as before */
	int uncaught;
} fk;

static void q_push(struct queue *q, struct item *it)
{
	if (q->tail - q->head >= QLEN) {
		fprintf(stderr, "fake_nl: queue full\n");
		abort();
	}
	q->items[q->tail++ % QLEN] = *it;
}

static bool q_empty(const struct queue *q)
{
	return q->head == q->tail;
}

static void q_clear(struct queue *q)
{
	while (!q_empty(q)) {
		struct item *it = &q->items[q->head++ % QLEN];

		nlmsg_free(it->msg);
	}
	q->head = q->tail = 0;
}

void fake_begin(fake_kernel_fn kernel)
{
	memset(&fk, 0, sizeof(fk));
	fk.on = true;
	fk.kernel = kernel;
}

void fake_end(void)
{
	int i;

	knl_put();
	q_clear(&fk.cmdq);
	q_clear(&fk.evq);
	for (i = 0; i < fk.nreqs; i++)
		nlmsg_free(fk.reqs[i]);
	memset(&fk, 0, sizeof(fk));
	sig_received = 0;
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
}

struct nl_msg *fake_msg(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg || !genlmsg_put(msg, 0, 0, FAKE_FAMILY, 0, 0, cmd,
				 KRDMA_GENL_VERSION))
		abort();
	return msg;
}

void fake_reply(struct nl_msg *msg)
{
	struct item it = { .kind = IT_MSG, .msg = msg };

	q_push(&fk.cmdq, &it);
}

void fake_event(struct nl_msg *msg)
{
	struct item it = { .kind = IT_MSG, .msg = msg };

	q_push(&fk.evq, &it);
}

void fake_ack(void)
{
	struct item it = { .kind = IT_ACK };

	q_push(&fk.cmdq, &it);
}

void fake_done(void)
{
	struct item it = { .kind = IT_DONE };

	q_push(&fk.cmdq, &it);
}

void fake_error(int err, const char *text, int bad_attr)
{
	struct item it = { .kind = IT_ERR, .err = err, .bad_attr = bad_attr };

	if (text)
		snprintf(it.text, sizeof(it.text), "%s", text);
	q_push(&fk.cmdq, &it);
}

void fake_overrun(void)
{
	struct item it = { .kind = IT_OVERRUN };

	q_push(&fk.evq, &it);
}

void fake_sigint_on_wait(int n)
{
	fk.sigint_wait = n;
}

void fake_signal_on_wait(int n, int sig)
{
	fk.sigint_wait = n;
	fk.sig = sig;
}

int fake_signal_uncaught(void)
{
	return fk.uncaught;
}

int fake_nreqs(void)
{
	return fk.nreqs;
}

struct nl_msg *fake_req(int i)
{
	return i < fk.nreqs ? fk.reqs[i] : NULL;
}

uint8_t fake_req_cmd(int i)
{
	struct genlmsghdr *gh;

	if (i >= fk.nreqs)
		return 0;
	gh = nlmsg_data(nlmsg_hdr(fk.reqs[i]));
	return gh->cmd;
}

int fake_req_attrs(int i, struct nlattr **tb)
{
	if (i >= fk.nreqs)
		return -1;
	return genlmsg_parse(nlmsg_hdr(fk.reqs[i]), 0, tb, KRDMA_A_MAX,
			     krdma_policy) < 0 ? -1 : 0;
}

static struct sock_cbs *cbs_of(const struct nl_sock *sk)
{
	size_t i;

	for (i = 0; i < sizeof(fk.socks) / sizeof(fk.socks[0]); i++)
		if (fk.socks[i].sk == sk)
			return &fk.socks[i];
	for (i = 0; i < sizeof(fk.socks) / sizeof(fk.socks[0]); i++)
		if (!fk.socks[i].sk) {
			fk.socks[i].sk = sk;
			return &fk.socks[i];
		}
	abort();
}

/* ---- wrapped functions ---- */

int __wrap_genl_connect(struct nl_sock *sk)
{
	return fk.on ? 0 : __real_genl_connect(sk);
}

int __wrap_genl_ctrl_resolve(struct nl_sock *sk, const char *name)
{
	if (!fk.on)
		return __real_genl_ctrl_resolve(sk, name);
	return strcmp(name, KRDMA_GENL_NAME) ? -NLE_OBJ_NOTFOUND : FAKE_FAMILY;
}

int __wrap_genl_ctrl_resolve_grp(struct nl_sock *sk, const char *family,
				 const char *grp)
{
	if (!fk.on)
		return __real_genl_ctrl_resolve_grp(sk, family, grp);
	return strcmp(grp, KRDMA_MCGRP_EVENTS) ? -NLE_OBJ_NOTFOUND : 1;
}

int __wrap_nl_socket_add_membership(struct nl_sock *sk, int grp)
{
	if (!fk.on)
		return __real_nl_socket_add_membership(sk, grp);
	fk.ev_sk = sk;
	return 0;
}

int __wrap_nl_socket_set_nonblocking(const struct nl_sock *sk)
{
	return fk.on ? 0 : __real_nl_socket_set_nonblocking(sk);
}

int __wrap_nl_socket_modify_cb(struct nl_sock *sk, enum nl_cb_type type,
			       enum nl_cb_kind kind, nl_recvmsg_msg_cb_t fn,
			       void *arg)
{
	if (fk.on) {
		struct sock_cbs *s = cbs_of(sk);

		s->cb[type] = kind == NL_CB_CUSTOM ? fn : NULL;
		s->arg[type] = arg;
	}
	return __real_nl_socket_modify_cb(sk, type, kind, fn, arg);
}

int __wrap_nl_socket_modify_err_cb(struct nl_sock *sk, enum nl_cb_kind kind,
				   nl_recvmsg_err_cb_t fn, void *arg)
{
	if (fk.on) {
		struct sock_cbs *s = cbs_of(sk);

		s->err = kind == NL_CB_CUSTOM ? fn : NULL;
		s->err_arg = arg;
	}
	return __real_nl_socket_modify_err_cb(sk, kind, fn, arg);
}

int __wrap_nl_send_auto(struct nl_sock *sk, struct nl_msg *msg)
{
	struct nlattr *tb[KRDMA_A_MAX + 1];
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *gh = nlmsg_data(nlh);

	if (!fk.on)
		return __real_nl_send_auto(sk, msg);
	(void)sk;
	if (fk.nreqs < FAKE_MAX_REQS)
		fk.reqs[fk.nreqs++] = nlmsg_convert(nlh);
	if (genlmsg_parse(nlh, 0, tb, KRDMA_A_MAX, krdma_policy) < 0) {
		fake_error(-EINVAL, "fake: request fails the reply policy", 0);
		return (int)nlh->nlmsg_len;
	}
	fk.kernel(gh->cmd, tb, msg);
	return (int)nlh->nlmsg_len;
}

/* NLMSG_ERROR for the last request, with extack TLVs (capped). */
static struct nl_msg *error_msg(const struct item *it)
{
	struct nl_msg *req = fk.nreqs ? fk.reqs[fk.nreqs - 1] : NULL;
	struct nl_msg *m;
	struct nlmsgerr e;

	m = nlmsg_alloc_simple(NLMSG_ERROR, NLM_F_CAPPED | NLM_F_ACK_TLVS);
	if (!m)
		abort();
	memset(&e, 0, sizeof(e));
	e.error = it->err;
	if (req)
		e.msg = *nlmsg_hdr(req);
	nlmsg_append(m, &e, sizeof(e), NLMSG_ALIGNTO);
	if (it->text[0])
		nla_put_string(m, NLMSGERR_ATTR_MSG, it->text);
	if (it->bad_attr && req) {
		struct nlmsghdr *rh = nlmsg_hdr(req);
		struct nlattr *a = nla_find(genlmsg_attrdata(nlmsg_data(rh), 0),
					    genlmsg_attrlen(nlmsg_data(rh), 0),
					    it->bad_attr);

		if (a)
			nla_put_u32(m, NLMSGERR_ATTR_OFFS,
				    (uint32_t)((char *)a - (char *)rh));
	}
	return m;
}

int __wrap_nl_recvmsgs_default(struct nl_sock *sk)
{
	struct sockaddr_nl who = { .nl_family = AF_NETLINK };
	struct queue *q;
	struct sock_cbs *s;
	struct item it;
	struct nl_msg *m;

	if (!fk.on)
		return __real_nl_recvmsgs_default(sk);
	q = sk == fk.ev_sk ? &fk.evq : &fk.cmdq;
	if (q_empty(q))
		return -NLE_AGAIN;
	it = q->items[q->head++ % QLEN];
	s = cbs_of(sk);
	switch (it.kind) {
	case IT_MSG:
		if (s->cb[NL_CB_VALID])
			s->cb[NL_CB_VALID](it.msg, s->arg[NL_CB_VALID]);
		nlmsg_free(it.msg);
		return 0;
	case IT_ACK:
		m = nlmsg_alloc_simple(NLMSG_ERROR, 0);
		if (s->cb[NL_CB_ACK])
			s->cb[NL_CB_ACK](m, s->arg[NL_CB_ACK]);
		nlmsg_free(m);
		return 0;
	case IT_DONE: {
		int zero = 0;

		m = nlmsg_alloc_simple(NLMSG_DONE, NLM_F_MULTI);
		nlmsg_append(m, &zero, sizeof(zero), NLMSG_ALIGNTO);
		if (s->cb[NL_CB_FINISH])
			s->cb[NL_CB_FINISH](m, s->arg[NL_CB_FINISH]);
		nlmsg_free(m);
		return 0;
	}
	case IT_ERR:
		m = error_msg(&it);
		if (s->err)
			s->err(&who, nlmsg_data(nlmsg_hdr(m)), s->err_arg);
		nlmsg_free(m);
		return -NLE_FAILURE;
	case IT_OVERRUN:
		return -NLE_NOMEM;
	}
	return 0;
}

int __wrap_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	if (!fk.on)
		return __real_poll(fds, n, timeout);
	/* Only the request socket is poll()ed: is an answer queued? */
	if (q_empty(&fk.cmdq))
		return 0;
	fds[0].revents = POLLIN;
	return 1;
}

int __wrap_ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts,
		 const sigset_t *mask)
{
	if (!fk.on)
		return __real_ppoll(fds, n, ts, mask);
	/* Only the event socket is ppoll()ed.  No real waiting: an empty
	 * queue is a timeout at once. */
	fk.waits++;
	if (fk.waits == fk.sigint_wait) {
		struct sigaction sa;

		if (!fk.sig) {
			sig_received = SIGINT;
		} else if (sigaction(fk.sig, NULL, &sa) == 0 &&
			   sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN) {
			raise(fk.sig);	/* through krdmactl's handler */
		} else {
			fk.uncaught = fk.sig;
			sig_received = fk.sig;
		}
		errno = EINTR;
		return -1;
	}
	if (q_empty(&fk.evq))
		return 0;
	fds[0].revents = POLLIN;
	return 1;
}
