// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: listeners, the passive side of rdma_cm - an id bound to an
 * address and listening, the connection requests it gets (a new server
 * session, or a data channel joining one by its cookie), its device going
 * away, and the registry netlink lists. The connections' own CM events
 * are cm.c's.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/genetlink.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <rdma/rdma_cm.h>

#include "cm.h"
#include "conn.h"
#include "mem.h"

#define KRDMA_LISTEN_BACKLOG	128

static DEFINE_XARRAY_ALLOC1(krdma_listeners);
static DEFINE_MUTEX(krdma_listeners_lock);
static u32 krdma_listener_next_id;

static bool krdma_same_host(const struct sockaddr_storage *a,
			    const struct sockaddr *b)
{
	const struct sockaddr_in6 *a6 = (const void *)a, *b6 = (const void *)b;
	const struct sockaddr_in *a4 = (const void *)a, *b4 = (const void *)b;

	if (a->ss_family != b->sa_family)
		return false;
	if (a->ss_family == AF_INET)
		return a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	return ipv6_addr_equal(&a6->sin6_addr, &b6->sin6_addr);
}

/* Server: may @child be data channel h->channel of @sess? */
static int krdma_channel_check(struct krdma_session *sess,
			       struct rdma_cm_id *child,
			       const struct krdma_cm_hello *h)
{
	enum krdma_session_state state = READ_ONCE(sess->state);

	if (state != KRDMA_SESSION_CONNECTING && state != KRDMA_SESSION_UP)
		return KRDMA_REJ_SHUTDOWN;
	if (!krdma_same_host(&sess->peer_addr,
			     (struct sockaddr *)&child->route.addr.dst_addr))
		return KRDMA_REJ_NO_SESSION;
	if (h->channels != sess->qps - 1 || sess->conns[h->channel] ||
	    !sess->kdev || child->device != sess->kdev->ibdev)
		return KRDMA_REJ_BAD_PARAM;
	return 0;
}

/* The RNR retry count a client's hello asks for its QPs, or ours. */
static u8 krdma_rnr_retry_asked(const struct krdma_cm_hello *h)
{
	return be16_to_cpu(h->flags) & KRDMA_HELLO_F_RNR_RETRY ?
	       h->rnr_retry : KRDMA_RNR_RETRY_DEFAULT;
}

/*
 * A connection request for a data channel: it joins the server session
 * its cookie names. Returns non-zero to have the CM destroy @child.
 */
static int krdma_channel_accept(struct krdma_listener *l,
				struct rdma_cm_id *child,
				struct rdma_cm_event *ev,
				const struct krdma_cm_hello *h)
{
	struct rdma_conn_param param = {};
	struct krdma_session *sess;
	struct krdma_conn *conn;
	struct krdma_cm_hello rep;
	int rej, ret;
	u8 rr, id;
	u64 mem;

	sess = krdma_session_lookup_cookie(l->net, l->id, be32_to_cpu(h->cookie));
	if (!sess) {
		krdma_stats_add(&krdma_global_stats, KRDMA_CNT_PROTOCOL_ERRORS, 1);
		pr_info_ratelimited("krdma: listener %u: rejected a data channel for no session\n",
				    l->id);
		krdma_reject(child, KRDMA_REJ_NO_SESSION);
		return -ECONNREFUSED;
	}
	mutex_lock(&sess->cm_mutex);
	rej = krdma_channel_check(sess, child, h);
	if (rej) {
		krdma_count(sess, KRDMA_CNT_PROTOCOL_ERRORS, 1);
		ret = -ECONNREFUSED;
		goto out;
	}
	rej = KRDMA_REJ_NO_RESOURCES;
	conn = krdma_conn_new(sess, h->channel);
	if (!conn) {
		ret = -ENOMEM;
		goto out;
	}
	conn->cm_id = child;
	/*
	 * Its QP and CQ, to the caps: the session's CONNECT_REQUEST found
	 * them within the session's, not within what all sessions have left.
	 */
	mem = krdma_channel_queues_bytes(sess->sq_depth,
					 krdma_channel_nr_recvs(sess->peer_proto,
								sess->rq_depth,
								sess->qps));
	ret = krdma_mem_charge(sess, mem);
	if (ret) {
		krdma_count(sess, KRDMA_CNT_MEM_REFUSED, 1);
		kfree(conn);
		rej = KRDMA_REJ_MEM_LIMIT;
		goto out;
	}
	conn->mem = mem;
	ret = krdma_conn_create_queues(conn);
	if (ret) {
		kfree(conn);
		goto out;
	}
	conn->peer_qpn = ev->param.conn.qp_num;
	krdma_fill_hello(sess, &rep);
	rep.flags = cpu_to_be16(KRDMA_HELLO_F_CHANNEL);
	rep.channel = conn->index;
	/*
	 * Within what this connection offers, as for the first QP (see
	 * krdma_listener_connect_request()): a peer offers what its QP can
	 * take, and may offer a channel less than it settled on for the
	 * session. Never more than the session's, which our limits bound.
	 */
	krdma_conn_credits(sess->kdev, ev, &rr, &id);
	krdma_fill_conn_param(&param, &rep,
			      min3(rr, h->max_qp_init_rd_atom,
				   sess->responder_resources),
			      min3(id, h->max_qp_rd_atom, sess->initiator_depth),
			      krdma_rnr_retry_asked(h));
	child->context = conn;
	ret = krdma_cm_set_timers(child, sess->ack_timeout);
	if (!ret)
		ret = rdma_accept(child, &param);
	if (ret) {
		/* The CM destroys @child, and nothing calls us for it again. */
		krdma_conn_free_queues(conn);
		kfree(conn);
		rej = 0;	/* no reject after a failed accept */
		goto out;
	}
	sess->conns[conn->index] = conn;
out:
	mutex_unlock(&sess->cm_mutex);
	if (rej && ret) {
		pr_info_ratelimited("krdma: session %u: refused data channel %u: %s\n",
				    sess->id, h->channel, krdma_reject_reason(rej));
		krdma_reject(child, rej);
	}
	krdma_session_put(sess);
	return ret ? -ECONNREFUSED : 0;
}

static int krdma_listener_connect_request(struct krdma_listener *l,
					  struct rdma_cm_id *child,
					  struct rdma_cm_event *ev)
{
	struct rdma_conn_param param = {};
	struct krdma_session *sess;
	struct krdma_cm_hello h, rep;
	char vers[40] = "";
	int rej, ret;
	u8 rr, id;
	u64 mem, chq;
	u32 sq, rq;

	rej = krdma_check_hello(ev->param.conn.private_data,
				ev->param.conn.private_data_len, &h);
	if (rej) {
		krdma_stats_add(&krdma_global_stats, KRDMA_CNT_PROTOCOL_ERRORS, 1);
		if (rej == KRDMA_REJ_VERSION)
			krdma_versions(vers, sizeof(vers), "peer",
				       krdma_hello_version(ev->param.conn.private_data));
		pr_info_ratelimited("krdma: listener %u: rejected a connection: %s%s\n",
				    l->id, krdma_reject_reason(rej), vers);
		krdma_reject(child, rej);
		return -ECONNREFUSED;	/* the CM destroys @child */
	}
	if (be16_to_cpu(h.flags) & KRDMA_HELLO_F_CHANNEL)
		return krdma_channel_accept(l, child, ev, &h);
	/*
	 * What the client's sizes make us pin (qp.c and conns.c allocate
	 * it), and what its queues cost the provider: the first QP's charged
	 * now, each data channel's as it connects, all within the session's
	 * cap from here. The first QP has room for every QP's CREDITs.
	 */
	sq = be16_to_cpu(h.sq_depth);
	rq = be16_to_cpu(h.rq_depth);
	mem = (rq + krdma_session_credits(h.channels + 1)) *
	      krdma_buf_bytes(KRDMA_MSG_HDR_SIZE +
			      max_t(u32, be32_to_cpu(h.max_msg_size),
				    KRDMA_CTRL_BODY_MAX)) +
	      (KRDMA_CTRL_TX + krdma_session_credits(h.channels + 1)) *
	      krdma_buf_bytes(KRDMA_MSG_HDR_SIZE + KRDMA_CTRL_BODY_MAX) +
	      krdma_channel_recv_bytes(be16_to_cpu(h.version), h.channels,
				       rq, be32_to_cpu(h.max_msg_size)) +
	      krdma_session_queues_bytes(sq, rq, h.channels + 1);
	chq = h.channels *
	      krdma_channel_queues_bytes(sq,
					 krdma_channel_nr_recvs(be16_to_cpu(h.version),
								rq, h.channels + 1));
	if (!krdma_session_mem_fits(mem + chq)) {
		krdma_stats_add(&krdma_global_stats, KRDMA_CNT_MEM_REFUSED, 1);
		pr_info_ratelimited("krdma: listener %u: refused a connection asking for %llu MiB of buffers and queues (max_session_mem_mb)\n",
				    l->id, (mem + chq) >> 20);
		krdma_reject(child, KRDMA_REJ_MEM_LIMIT);
		return -ECONNREFUSED;
	}

	sess = krdma_session_alloc(KRDMA_ROLE_SERVER, l->net, NULL, l->id,
				   h.channels + 1, NULL);
	if (IS_ERR(sess)) {
		ret = PTR_ERR(sess);
		if (ret != -EMLINK && ret != -EUSERS) {
			krdma_reject(child, KRDMA_REJ_NO_RESOURCES);
			return -ECONNREFUSED;
		}
		krdma_stats_add(&krdma_global_stats, KRDMA_CNT_SESSIONS_REFUSED, 1);
		pr_info_ratelimited("krdma: listener %u: refused a connection: %s\n",
				    l->id, ret == -EMLINK ?
				    "the listener has max_listener_sessions" :
				    "there are max_sessions server sessions");
		krdma_reject(child, KRDMA_REJ_TOO_MANY_SESSIONS);
		return -ECONNREFUSED;
	}
	/*
	 * Nothing finds the session yet. From the moment something can, a
	 * close must find it built: its teardown waits for cm_mutex.
	 */
	mutex_lock(&sess->cm_mutex);
	krdma_ctrl_conn(sess)->cm_id = child;
	child->context = krdma_ctrl_conn(sess);
	/* The client's queue sizes hold both ways. */
	krdma_take_peer_hello(sess, &h);
	sess->sq_depth = sess->peer_sq_depth;
	sess->rq_depth = sess->peer_rq_depth;
	sess->max_msg_size = sess->peer_max_msg_size;
	sess->timeout_ms = KRDMA_A_TIMEOUT_MS_DEFAULT;
	/* The listener's, or the module's now: this session's from here. */
	sess->ack_timeout = krdma_ack_timeout_val(l->ack_timeout);
	/* The client's REQ gave it our QPs. */
	sess->rnr_retry = ev->param.conn.rnr_retry_count;
	krdma_ctrl_conn(sess)->peer_qpn = ev->param.conn.qp_num;
	sess->cookie = get_random_u32() ?: 1;
	memcpy(&sess->local_addr, &child->route.addr.src_addr,
	       sizeof(sess->local_addr));
	memcpy(&sess->peer_addr, &child->route.addr.dst_addr,
	       sizeof(sess->peer_addr));

	/* Every session is within its cap: all of them may not be. */
	ret = krdma_mem_charge(sess, mem);
	if (ret) {
		mutex_unlock(&sess->cm_mutex);
		krdma_stats_add(&krdma_global_stats, KRDMA_CNT_MEM_REFUSED, 1);
		pr_info_ratelimited("krdma: listener %u: refused a connection: its %llu KiB of buffers and queues are over max_mem_mb\n",
				    l->id, mem >> 10);
		krdma_reject(child, KRDMA_REJ_MEM_LIMIT);
		krdma_session_close(sess, "over the memory limit of all sessions");
		krdma_session_put(sess);
		return 0;	/* teardown destroys @child */
	}
	ret = krdma_conn_create_queues(krdma_ctrl_conn(sess));
	if (ret) {
		mutex_unlock(&sess->cm_mutex);
		krdma_reject(child, KRDMA_REJ_NO_RESOURCES);
		krdma_session_close(sess, "cannot create queues: %pe",
				    ERR_PTR(ret));
		krdma_session_put(sess);
		return 0;
	}

	/*
	 * ev->param.conn is in our perspective: responder_resources is what
	 * the client wants to have in flight towards us.
	 */
	krdma_conn_credits(sess->kdev, ev, &rr, &id);
	sess->responder_resources = min3(rr, h.max_qp_init_rd_atom,
					 krdma_max_rd_atom(sess->kdev));
	sess->initiator_depth = min3(id, h.max_qp_rd_atom,
				     krdma_max_init_rd_atom(sess->kdev));

	/*
	 * Before the accept: the client's data channels look the session
	 * up by its cookie as soon as it is established.
	 */
	krdma_session_publish(sess);
	krdma_delay_publish(sess);
	/*
	 * A SESSION_DEL, or the device going, may have closed it since:
	 * refuse the connection rather than accept a session whose
	 * teardown is waiting for cm_mutex.
	 */
	if (READ_ONCE(sess->state) != KRDMA_SESSION_CONNECTING) {
		krdma_reject(child, KRDMA_REJ_SHUTDOWN);
		mutex_unlock(&sess->cm_mutex);
		krdma_session_put(sess);
		return 0;	/* teardown destroys @child */
	}
	krdma_fill_hello(sess, &rep);
	krdma_fill_conn_param(&param, &rep, sess->responder_resources,
			      sess->initiator_depth, krdma_rnr_retry_asked(&h));
	ret = krdma_cm_set_timers(child, sess->ack_timeout);
	if (!ret)
		ret = rdma_accept(child, &param);
	mutex_unlock(&sess->cm_mutex);
	if (ret)
		krdma_session_close(sess, "accept failed: %pe", ERR_PTR(ret));
	krdma_session_put(sess);
	return 0;
}

/*
 * The RDMA device under a listener's address is going away. The CM's
 * removal (cma_process_remove()) waits until every id on the device is
 * destroyed, so a listener that kept its id would block "rdma link
 * delete" until the module unloads. It gives the id up instead: it stays
 * listed, without an id and with the reason "RDMA device removed", until
 * "listener del" frees it. It is not rebound when a device with that
 * address comes back - the user adds it again - because nothing says the
 * address will come back, or on which device.
 *
 * Whoever swaps l->cm_id out under krdma_listeners_lock owns the id. If
 * we do, we return non-zero and the CM destroys it (rdma_destroy_id()
 * must not be called from the id's own handler). If "listener del" or
 * the unload took it first, they destroy it: we return 0, and their
 * rdma_destroy_id() waits for this handler to return. Until
 * krdma_listener_add() has published the id, it is not ours to give up
 * either: device_removed tells the add to fail and destroy it.
 *
 * Only a listener bound to one device's address gets here: the CM
 * destroys a wildcard listener's per-device ids itself.
 */
static int krdma_listener_removal(struct krdma_listener *l,
				  struct rdma_cm_id *id)
{
	bool give_up;

	mutex_lock(&krdma_listeners_lock);
	l->device_removed = true;
	give_up = l->cm_id == id;
	if (give_up) {
		l->cm_id = NULL;
		pr_info("krdma: listener %u: RDMA device removed\n", l->id);
	}
	mutex_unlock(&krdma_listeners_lock);
	/* If we gave the id up, a listener del may free @l from here on. */
	return give_up;
}

/*
 * A listener's id, and the ids of its connection requests, which inherit
 * its handler: the context says which; a connection's events are cm.c's.
 */
static int krdma_listener_cm_handler(struct rdma_cm_id *id,
				     struct rdma_cm_event *ev)
{
	struct krdma_listener *l;

	if (krdma_cm_kind_of(id) != KRDMA_CM_LISTENER)
		return krdma_cm_handler(id, ev);

	l = id->context;
	pr_debug("krdma: listener %u: %s (status %d)\n", l->id,
		 rdma_event_msg(ev->event), ev->status);
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return krdma_listener_connect_request(l, id, ev);
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return krdma_listener_removal(l, id);
	default:
		return 0;
	}
}

static struct krdma_listener *krdma_listener_find(struct net *net, u32 id,
						  const char *name)
{
	struct krdma_listener *l;
	unsigned long i;

	lockdep_assert_held(&krdma_listeners_lock);
	if (!name) {
		l = xa_load(&krdma_listeners, id);
		return l && net_eq(l->net, net) ? l : NULL;
	}
	xa_for_each(&krdma_listeners, i, l)
		if (net_eq(l->net, net) && !strcmp(l->name, name))
			return l;
	return NULL;
}

static void krdma_listener_free(struct krdma_listener *l)
{
	kfree(l);
}

static int krdma_probe_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	return 0;
}

/*
 * rdma_bind_addr() fails with -EADDRNOTAVAIL both for an address that is
 * on no RDMA device and for a port another id holds (cma_check_port()).
 * Binding the same address to an ephemeral port tells the two apart.
 */
static int krdma_bind_error(struct net *net, const struct sockaddr_storage *addr,
			    int ret, struct netlink_ext_ack *extack)
{
	struct sockaddr_storage probe = *addr;
	struct rdma_cm_id *id;

	if (ret == -EADDRNOTAVAIL) {
		/* sin_port and sin6_port share their offset. */
		((struct sockaddr_in *)&probe)->sin_port = 0;
		id = rdma_create_id(net, krdma_probe_handler, NULL, RDMA_PS_TCP,
				    IB_QPT_RC);
		if (!IS_ERR(id)) {
			if (!rdma_bind_addr(id, (struct sockaddr *)&probe))
				ret = -EADDRINUSE;
			rdma_destroy_id(id);
		}
	}
	if (ret == -EADDRINUSE)
		NL_SET_ERR_MSG(extack, "address and port already in use");
	else if (ret == -EADDRNOTAVAIL || ret == -ENODEV)
		NL_SET_ERR_MSG(extack, "address is not on an RDMA device of this host");
	else
		NL_SET_ERR_MSG(extack, "cannot bind the address");
	return ret;
}

/**
 * krdma_listener_add() - listens for sessions on an address
 * @net: the namespace
 * @name: its name, or NULL or empty: "l<id>"
 * @addr: the address, with its port; no IP: any
 * @ack_timeout: its sessions' ACK timeout; 0: the module parameter's
 * @id: set to the new listener's id
 * @extack: why not
 *
 * Context: process; takes krdma_listeners_lock.
 * Return: 0; -EEXIST for a name taken in @net, -EADDRINUSE,
 * -EADDRNOTAVAIL, -ENODEV, or another negative errno.
 */
int krdma_listener_add(struct net *net, const char *name,
		       struct sockaddr_storage *addr, u8 ack_timeout, u32 *id,
		       struct netlink_ext_ack *extack)
{
	struct krdma_listener *l;
	struct rdma_cm_id *cm_id;
	int ret;

	l = krdma_failable(kzalloc(sizeof(*l), GFP_KERNEL));
	if (!l)
		return -ENOMEM;
	l->kind = KRDMA_CM_LISTENER;
	l->net = net;
	l->addr = *addr;
	l->ack_timeout = ack_timeout;

	/* Id and name first: a connection request may arrive at once. */
	mutex_lock(&krdma_listeners_lock);
	if (name && *name && krdma_listener_find(net, 0, name)) {
		mutex_unlock(&krdma_listeners_lock);
		NL_SET_ERR_MSG(extack, "a listener with this name exists");
		krdma_listener_free(l);
		return -EEXIST;
	}
	ret = krdma_failable_int(xa_alloc_cyclic(&krdma_listeners, &l->id,
						 XA_ZERO_ENTRY, xa_limit_32b,
						 &krdma_listener_next_id,
						 GFP_KERNEL));
	mutex_unlock(&krdma_listeners_lock);
	if (ret < 0) {
		krdma_listener_free(l);
		return ret;
	}
	if (name && *name)
		strscpy(l->name, name, sizeof(l->name));
	else
		snprintf(l->name, sizeof(l->name), "l%u", l->id);

	cm_id = rdma_create_id(net, krdma_listener_cm_handler, l, RDMA_PS_TCP,
			       IB_QPT_RC);
	if (IS_ERR(cm_id)) {
		ret = PTR_ERR(cm_id);
		goto err_free;
	}
	ret = rdma_bind_addr(cm_id, (struct sockaddr *)addr);
	if (ret) {
		ret = krdma_bind_error(net, addr, ret, extack);
		goto err_id;
	}
	ret = rdma_listen(cm_id, KRDMA_LISTEN_BACKLOG);
	if (ret) {
		NL_SET_ERR_MSG(extack, "cannot listen on the address");
		goto err_id;
	}

	mutex_lock(&krdma_listeners_lock);
	if (l->device_removed) {
		/* Its handler left the id to us: see krdma_listener_removal(). */
		mutex_unlock(&krdma_listeners_lock);
		NL_SET_ERR_MSG(extack, "the RDMA device of the address went away");
		ret = -ENODEV;
		goto err_id;
	}
	l->cm_id = cm_id;
	xa_store(&krdma_listeners, l->id, l, GFP_KERNEL);
	mutex_unlock(&krdma_listeners_lock);
	*id = l->id;
	return 0;

err_id:
	rdma_destroy_id(cm_id);
err_free:
	mutex_lock(&krdma_listeners_lock);
	xa_erase(&krdma_listeners, l->id);
	mutex_unlock(&krdma_listeners_lock);
	krdma_listener_free(l);
	return ret;
}

/*
 * Unlists @l and takes its id, if it still has one, under the lock: from
 * then on a DEVICE_REMOVAL on the id leaves it to the caller, who
 * destroys it without the lock (its handler takes the lock, and
 * rdma_destroy_id() waits for a running handler) and then frees @l.
 */
static struct rdma_cm_id *krdma_listener_unlist(struct krdma_listener *l)
{
	struct rdma_cm_id *cm_id = l->cm_id;

	lockdep_assert_held(&krdma_listeners_lock);
	xa_erase(&krdma_listeners, l->id);
	l->cm_id = NULL;
	return cm_id;
}

static void krdma_listener_destroy(struct krdma_listener *l,
				   struct rdma_cm_id *cm_id)
{
	/* No id: its device went away and the CM destroyed it. */
	if (cm_id)
		rdma_destroy_id(cm_id);
	krdma_listener_free(l);
}

/**
 * krdma_listener_del() - stops a listener and frees it
 * @net: the namespace
 * @id: the listener's id, if no @name
 * @name: its name, or NULL
 * @extack: why not
 *
 * Its sessions go on.
 *
 * Context: process; waits for a running handler of its CM id.
 * Return: 0 or -ENOENT.
 */
int krdma_listener_del(struct net *net, u32 id, const char *name,
		       struct netlink_ext_ack *extack)
{
	struct rdma_cm_id *cm_id = NULL;
	struct krdma_listener *l;

	mutex_lock(&krdma_listeners_lock);
	l = krdma_listener_find(net, id, name);
	if (l)
		cm_id = krdma_listener_unlist(l);
	mutex_unlock(&krdma_listeners_lock);
	if (!l) {
		NL_SET_ERR_MSG(extack, "no such listener");
		return -ENOENT;
	}
	krdma_listener_destroy(l, cm_id);
	return 0;
}

/**
 * krdma_listeners_del_net() - deletes every listener of a namespace
 * @net: the namespace, going
 *
 * Context: process; waits for running handlers of their CM ids.
 * Return: how many there were.
 */
unsigned int krdma_listeners_del_net(struct net *net)
{
	struct rdma_cm_id *cm_id;
	struct krdma_listener *l;
	unsigned int n = 0;
	unsigned long id;

	/* One at a time: each id is destroyed without the lock. */
	for (;; n++) {
		cm_id = NULL;
		mutex_lock(&krdma_listeners_lock);
		xa_for_each(&krdma_listeners, id, l)
			if (net_eq(l->net, net))
				break;
		if (l)
			cm_id = krdma_listener_unlist(l);
		mutex_unlock(&krdma_listeners_lock);
		if (!l)
			return n;
		krdma_listener_destroy(l, cm_id);
	}
}

static int krdma_listener_fill(struct sk_buff *skb, struct krdma_listener *l)
{
	struct rdma_cm_id *cm_id = l->cm_id;

	lockdep_assert_held(&krdma_listeners_lock);
	if (nla_put_u32(skb, KRDMA_A_LISTENER_ID, l->id) ||
	    nla_put_string(skb, KRDMA_A_NAME, l->name) ||
	    krdma_put_addr(skb, KRDMA_A_LOCAL_ADDR, &l->addr))
		return -EMSGSIZE;
	/* Its own only: without one, each session takes the module's. */
	if (l->ack_timeout &&
	    nla_put_u8(skb, KRDMA_A_SESSION_ACK_TIMEOUT, l->ack_timeout))
		return -EMSGSIZE;
	/* A listed listener without an id lost it with its device. */
	if (!cm_id)
		return nla_put_string(skb, KRDMA_A_REASON, "RDMA device removed");
	if (cm_id->device &&
	    nla_put_string(skb, KRDMA_A_DEV_NAME, dev_name(&cm_id->device->dev)))
		return -EMSGSIZE;
	return 0;
}

/**
 * krdma_listener_fill_lookup() - one listener, into a message
 * @msg: the message
 * @net: the requester's namespace
 * @id: the listener's id, if no @name
 * @name: its name, or NULL
 *
 * Puts listener @id, or the one named @name, into @msg.
 *
 * Context: process; takes krdma_listeners_lock.
 * Return: 0, -ENOENT, or -EMSGSIZE.
 */
int krdma_listener_fill_lookup(struct sk_buff *msg, struct net *net, u32 id,
			       const char *name)
{
	struct krdma_listener *l;
	int ret;

	mutex_lock(&krdma_listeners_lock);
	l = krdma_listener_find(net, id, name);
	ret = l ? krdma_listener_fill(msg, l) : -ENOENT;
	mutex_unlock(&krdma_listeners_lock);
	return ret;
}

static bool krdma_listener_visible(void *obj, struct net *net)
{
	struct krdma_listener *l = obj;

	return net_eq(l->net, net);
}

static int krdma_listener_table_fill(struct sk_buff *skb, void *obj)
{
	return krdma_listener_fill(skb, obj);
}

const struct krdma_nl_table krdma_listener_table = {
	.xa		= &krdma_listeners,
	.lock		= &krdma_listeners_lock,
	.visible	= krdma_listener_visible,
	.fill		= krdma_listener_table_fill,
};
