// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: sessions - the table of every session, and each one's life: made
 * and named, found by requests once it is whole, up, and torn down once.
 *
 * A session is one or more RC connections to a peer krdma (conns.c):
 * conn 0 with its control messages (qp.c), for bw tests over several
 * QPs its data channels; and the keepalive that tells whether its peer still answers
 * (keepalive.c). Those parts know nothing of the table: whichever finds
 * the session dead asks for its end (session-end.c), and the teardown
 * here takes them apart in the one order that is safe.
 *
 * Lifetime: the session table holds one reference until teardown ends.
 * Teardown runs once, from close_work: no more posts, drain the QPs, end
 * the tests, free the queues and destroy the CM ids (on iWARP the other
 * way round), tell userspace. The last reference frees the connections.
 */
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>

#include "conn.h"
#include "krdma.h"

static DEFINE_XARRAY_ALLOC1(krdma_sessions);
/* Serializes name checks with insertion, and dumps with removal. */
static DEFINE_MUTEX(krdma_sessions_lock);

static u32 krdma_session_next_id;

static void krdma_session_close_work(struct work_struct *work);

static void krdma_session_connect_timeout(struct work_struct *work)
{
	struct krdma_session *sess = container_of(to_delayed_work(work),
						  struct krdma_session,
						  connect_work);
	static const char * const waiting_for[] = {
		[KRDMA_CONNECT_ADDR] = " resolving the address",
		[KRDMA_CONNECT_ROUTE] = " resolving the route",
		[KRDMA_CONNECT_REPLY] = ": no reply from the server",
	};

	/* cm_mutex: the stage and the channels' count are the CM handler's. */
	mutex_lock(&sess->cm_mutex);
	if (READ_ONCE(sess->state) != KRDMA_SESSION_CONNECTING)
		goto out;
	if (sess->connect_stage == KRDMA_CONNECT_CHANNELS)
		krdma_session_close(sess, "connection timed out after %u ms: %u of %u channels up",
				    sess->timeout_ms, sess->channels_up,
				    sess->qps - 1);
	else
		krdma_session_close(sess, "connection timed out after %u ms%s",
				    sess->timeout_ms,
				    waiting_for[sess->connect_stage]);
out:
	mutex_unlock(&sess->cm_mutex);
}

static struct krdma_session *krdma_session_find_name(struct net *net,
						     const char *name)
{
	struct krdma_session *sess;
	unsigned long id;

	lockdep_assert_held(&krdma_sessions_lock);
	xa_for_each(&krdma_sessions, id, sess)
		if (net_eq(sess->net, net) && !strcmp(sess->name, name))
			return sess;
	return NULL;
}

/* Under the table's lock: the server sessions of listener @listener_id. */
static u32 krdma_listener_sessions(u32 listener_id)
{
	struct krdma_session *sess;
	unsigned long id;
	u32 n = 0;

	lockdep_assert_held(&krdma_sessions_lock);
	xa_for_each(&krdma_sessions, id, sess)
		n += sess->role == KRDMA_ROLE_SERVER &&
		     sess->listener_id == listener_id;
	return n;
}

/**
 * krdma_session_alloc() - a new session, in the table but not yet found
 * @role: client or server
 * @net: its namespace
 * @name: its name, or NULL or empty
 * @listener_id: a server's listener
 * @qps: its QPs, conn 0 and the data channels
 * @extack: why not
 *
 * Returns a new session with two references: the table's and the caller's.
 * An empty @name gets "s<id>". The id and the name are taken, but nothing
 * finds the session until krdma_session_publish(): a request that found
 * it half built could close it under the CM handler that builds it.
 *
 * Its @qps connections are made room for, and conn 0 made: a session
 * always has that one.
 *
 * A server session (@listener_id its listener's) counts against the caps
 * of server sessions from here until teardown has freed it: -EMLINK for
 * its listener's, -EUSERS for all listeners'.
 *
 * Context: process; takes krdma_sessions_lock.
 * Return: the session, or an ERR_PTR(): -EEXIST for a name taken in
 * @net, -EMLINK or -EUSERS, else -ENOMEM or the table's error.
 */
struct krdma_session *krdma_session_alloc(enum krdma_session_role role,
					  struct net *net, const char *name,
					  u32 listener_id, u32 qps,
					  struct netlink_ext_ack *extack)
{
	struct krdma_session *sess;
	u32 id;
	int ret;

	sess = krdma_failable(kzalloc(sizeof(*sess), GFP_KERNEL));
	if (!sess)
		return ERR_PTR(-ENOMEM);
	if (krdma_stats_init(&sess->stats)) {
		kfree(sess);
		return ERR_PTR(-ENOMEM);
	}
	if (krdma_conns_alloc(sess, qps)) {
		krdma_conns_free(sess);
		krdma_stats_free(&sess->stats);
		kfree(sess);
		return ERR_PTR(-ENOMEM);
	}
	kref_init(&sess->ref);
	sess->alive_stamp = jiffies;
	spin_lock_init(&sess->lock);
	spin_lock_init(&sess->ctrl_lock);
	mutex_init(&sess->cm_mutex);
	INIT_LIST_HEAD(&sess->ctrl_free);
	INIT_WORK(&sess->close_work, krdma_session_close_work);
	INIT_DELAYED_WORK(&sess->connect_work, krdma_session_connect_timeout);
	INIT_WORK(&sess->resolve_work, krdma_resolve_work);
	INIT_DELAYED_WORK(&sess->keepalive_work, krdma_keepalive_work);
	INIT_WORK(&sess->qp_event_work, krdma_qp_event_work);
	sess->keepalive_cqe.done = krdma_keepalive_done;
	sess->unsignaled_cqe.done = krdma_unsignaled_done;
	sess->role = role;
	sess->state = KRDMA_SESSION_CONNECTING;
	sess->tos = -1;
	sess->rnr_ask = KRDMA_RNR_RETRY_UNSET;
	sess->net = net;

	mutex_lock(&krdma_sessions_lock);
	if (name && *name && krdma_session_find_name(net, name)) {
		NL_SET_ERR_MSG(extack, "a session with this name exists");
		ret = -EEXIST;
		goto err;
	}
	if (role == KRDMA_ROLE_SERVER) {
		ret = krdma_sessions_admit(krdma_listener_sessions(listener_id));
		if (ret)
			goto err;
	}
	ret = krdma_failable_int(xa_alloc_cyclic(&krdma_sessions, &id, sess,
						 xa_limit_32b,
						 &krdma_session_next_id,
						 GFP_KERNEL));
	if (ret < 0)
		goto err;
	if (role == KRDMA_ROLE_SERVER)
		krdma_server_sessions_add(1);
	sess->id = id;
	sess->listener_id = listener_id;
	if (name && *name)
		strscpy(sess->name, name, sizeof(sess->name));
	else
		snprintf(sess->name, sizeof(sess->name), "s%u", id);
	kref_get(&sess->ref);
	mutex_unlock(&krdma_sessions_lock);
	return sess;

err:
	mutex_unlock(&krdma_sessions_lock);
	krdma_conns_free(sess);
	krdma_stats_free(&sess->stats);
	kfree(sess);
	return ERR_PTR(ret);
}

/**
 * krdma_session_publish() - lets requests find a session
 * @sess: the session, whole
 *
 * Lets requests find @sess: once its CM id and, on a server, its queues
 * are set, with cm_mutex held, so that a close from then on finds it whole
 * (teardown takes cm_mutex). Teardown removes it from the table.
 *
 * Not under krdma_sessions_lock: the release store is all the lookups
 * need, and the CM handler that publishes holds cm_mutex.
 *
 * Context: @sess->cm_mutex held.
 */
void krdma_session_publish(struct krdma_session *sess)
{
	lockdep_assert_held(&sess->cm_mutex);
	/* What was set before (cookie, listener) is seen by the lookups. */
	smp_store_release(&sess->published, true);
}

/* Under krdma_sessions_lock, which keeps @sess in the table. */
static bool krdma_session_published(struct krdma_session *sess)
{
	lockdep_assert_held(&krdma_sessions_lock);
	/* Pairs with krdma_session_publish(). */
	return smp_load_acquire(&sess->published);
}

/**
 * krdma_session_lookup_cookie() - the server session a data channel joins
 * @net: the channel's namespace
 * @listener_id: the listener the channel's request came to
 * @cookie: what the channel's hello names the session by; 0 finds none
 *
 * The server session of listener @listener_id whose first REP carried
 * that @cookie: a data channel joins it.
 *
 * Context: process; takes krdma_sessions_lock.
 * Return: the session, referenced, or NULL.
 */
struct krdma_session *krdma_session_lookup_cookie(struct net *net,
						  u32 listener_id, u32 cookie)
{
	struct krdma_session *sess, *found = NULL;
	unsigned long id;

	mutex_lock(&krdma_sessions_lock);
	xa_for_each(&krdma_sessions, id, sess) {
		if (krdma_session_published(sess) &&
		    sess->cookie == cookie && cookie &&
		    sess->role == KRDMA_ROLE_SERVER &&
		    sess->listener_id == listener_id && net_eq(sess->net, net)) {
			found = sess;
			kref_get(&found->ref);
			break;
		}
	}
	mutex_unlock(&krdma_sessions_lock);
	return found;
}

/**
 * krdma_session_lookup() - a published session of a namespace
 * @net: the namespace
 * @id: the session's id, if no @name
 * @name: its name, or NULL
 *
 * Finds a session of @net by id, or by name when @name is set.
 *
 * Context: process; takes krdma_sessions_lock.
 * Return: the session, referenced, or NULL.
 */
struct krdma_session *krdma_session_lookup(struct net *net, u32 id,
					   const char *name)
{
	struct krdma_session *sess;

	mutex_lock(&krdma_sessions_lock);
	if (name)
		sess = krdma_session_find_name(net, name);
	else
		sess = xa_load(&krdma_sessions, id);
	if (sess && krdma_session_published(sess) && net_eq(sess->net, net))
		kref_get(&sess->ref);
	else
		sess = NULL;
	mutex_unlock(&krdma_sessions_lock);
	return sess;
}

/* Tells the events group that @sess went up or down. */
static void krdma_notify_session(struct krdma_session *sess, enum krdma_event ev)
{
	struct sk_buff *msg;
	void *hdr;

	msg = krdma_event_new(ev, &hdr);
	if (!msg)
		return;
	if (krdma_session_fill_id(msg, sess)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	krdma_event_send(sess->net, msg);
}

/**
 * krdma_session_set_up() - a session that was connecting is up
 * @sess: the session, all its QPs connected
 *
 * Samples the host's environment, arms the keepalive and tells the events
 * group. A session no longer connecting (being closed) stays as it is.
 *
 * Context: the CM handler, @sess->cm_mutex held; it may sleep.
 */
void krdma_session_set_up(struct krdma_session *sess)
{
	bool up = false;

	/*
	 * In the CM's handler, which may sleep (ib_query_port()); before
	 * UP, so before any TEST_REQ of the peer's.
	 */
	if (READ_ONCE(sess->state) == KRDMA_SESSION_CONNECTING)
		krdma_host_env_sample(sess, &sess->env);
	spin_lock_bh(&sess->lock);
	if (sess->state == KRDMA_SESSION_CONNECTING) {
		sess->state = KRDMA_SESSION_UP;
		up = true;
		/* The keepalive waits from now: connecting is not silence. */
		WRITE_ONCE(sess->alive_stamp, jiffies);
		/*
		 * Armed under the lock, while UP: once krdma_session_close()
		 * has made it CLOSING, close_work's cancel is the last word
		 * (armed after it, the probe would run on a freed session).
		 */
		krdma_keepalive_arm(sess);
	}
	spin_unlock_bh(&sess->lock);
	if (!up)
		return;
	krdma_delay_set_up();
	cancel_delayed_work(&sess->connect_work);
	krdma_count(sess, KRDMA_CNT_SESSIONS_OPENED, 1);
	krdma_notify_session(sess, KRDMA_EVENT_SESSION_UP);
}

static void krdma_session_close_work(struct work_struct *work)
{
	struct krdma_session *sess =
		container_of(work, struct krdma_session, close_work);
	bool iwarp;

	cancel_delayed_work_sync(&sess->connect_work);
	/* State is CLOSING: it does not re-arm. */
	cancel_delayed_work_sync(&sess->keepalive_work);

	mutex_lock(&sess->cm_mutex);
	/* Every QP: a test's messages may be on the data channels too. */
	krdma_conns_quiesce(sess);
	krdma_delay_teardown();
	/* No completion runs any more: the tests can be ended and freed. */
	krdma_session_client->down(sess);
	/*
	 * iWARP: the CM ids go before the QPs, as nvmet does it. The iWARP
	 * CM holds a reference to a connection's QP until the connection is
	 * closed or its id destroyed, and siw's destroy_qp waits for the
	 * last one: with the QPs destroyed first under cm_mutex, the CM's
	 * ordered work queue sat in a DISCONNECTED handler waiting for
	 * cm_mutex, the close that would drop the reference queued behind
	 * it, and both nodes hung (multi-qp.sh over siw). The IB CM holds no
	 * such reference: there the QPs go first, under cm_mutex.
	 * Either order is safe here: the QPs are drained and go through
	 * rdma_destroy_qp() while their id lives (or ib_destroy_qp() once it
	 * is gone), the CQs and buffers after the QPs, the PD with the last
	 * device reference; an id destroyed first is what upstream moved
	 * nvme-rdma to ("nvme-rdma: destroy cm id before destroy qp to avoid
	 * use after free", 9817d763dbe1), so that no CM event comes for a
	 * QP that is gone.
	 */
	iwarp = sess->kdev && sess->kdev->iwarp;
	if (!iwarp)
		krdma_conns_free_queues(sess);
	mutex_unlock(&sess->cm_mutex);
	/*
	 * It resolves ids without cm_mutex: gone before they are. No CM
	 * handler queues it again, they all see the session closing.
	 */
	cancel_work_sync(&sess->resolve_work);

	/* Wait for running CM handlers, which must not wait for us. */
	krdma_conns_destroy_ids(sess);
	if (iwarp) {
		mutex_lock(&sess->cm_mutex);
		krdma_conns_free_queues(sess);
		mutex_unlock(&sess->cm_mutex);
	}
	/* No QP is left to raise an event, no CM id to resolve again. */
	cancel_work_sync(&sess->qp_event_work);
	/* Its buffers are gone, and so is the peer's test (its own charge). */
	krdma_mem_uncharge(sess, atomic64_read(&sess->stats.peer_mem));

	spin_lock_bh(&sess->lock);
	sess->state = KRDMA_SESSION_DOWN;
	spin_unlock_bh(&sess->lock);
	krdma_count(sess, KRDMA_CNT_SESSIONS_CLOSED, 1);
	krdma_notify_session(sess, KRDMA_EVENT_SESSION_DOWN);
	pr_debug("krdma: session %u (%s) down: %s\n", sess->id, sess->name,
		 sess->reason);

	mutex_lock(&krdma_sessions_lock);
	xa_erase(&krdma_sessions, sess->id);
	if (sess->role == KRDMA_ROLE_SERVER)
		krdma_server_sessions_add(-1);
	mutex_unlock(&krdma_sessions_lock);
	krdma_session_put(sess);	/* the table's */
	krdma_session_put(sess);	/* the work's */
}

/**
 * krdma_sessions_close_device() - ends every session on a device
 * @kdev: the device, going
 *
 * ib_client.remove: every session on @kdev ends before the device goes.
 *
 * Context: process; waits for their teardown.
 */
void krdma_sessions_close_device(struct krdma_device *kdev)
{
	struct krdma_session *sess;
	unsigned long id;

	mutex_lock(&krdma_sessions_lock);
	xa_for_each(&krdma_sessions, id, sess)
		if (READ_ONCE(sess->kdev) == kdev)
			krdma_session_close(sess, "RDMA device %s removed",
					    dev_name(&kdev->ibdev->dev));
	mutex_unlock(&krdma_sessions_lock);
	flush_workqueue(krdma_wq);
}

/**
 * krdma_sessions_close_net() - ends every session of a namespace
 * @net: the namespace, going
 * @reason: each session's
 *
 * Ends every session of @net and waits for their teardown, which is the
 * last to use @net (its SESSION_DOWN event): see krdma_net_exit().
 *
 * Context: process; waits for their teardown.
 */
void krdma_sessions_close_net(struct net *net, const char *reason)
{
	struct krdma_session *sess;
	unsigned long id;

	mutex_lock(&krdma_sessions_lock);
	xa_for_each(&krdma_sessions, id, sess)
		if (net_eq(sess->net, net))
			krdma_session_close(sess, "%s", reason);
	mutex_unlock(&krdma_sessions_lock);
	flush_workqueue(krdma_wq);
}

/**
 * krdma_session_fill_id() - a session's identity, for netlink
 * @skb: the message
 * @sess: the session
 *
 * The identity of a session: enough for events, safe under any lock.
 *
 * Return: 0 or -EMSGSIZE.
 */
int krdma_session_fill_id(struct sk_buff *skb, struct krdma_session *sess)
{
	enum krdma_session_state state;
	char reason[sizeof(sess->reason)];

	spin_lock_bh(&sess->lock);
	state = sess->state;
	strscpy(reason, sess->reason, sizeof(reason));
	spin_unlock_bh(&sess->lock);

	if (nla_put_u32(skb, KRDMA_A_SESSION_ID, sess->id) ||
	    nla_put_string(skb, KRDMA_A_NAME, sess->name) ||
	    nla_put_u8(skb, KRDMA_A_SESSION_STATE, state) ||
	    nla_put_u8(skb, KRDMA_A_SESSION_ROLE, sess->role))
		return -EMSGSIZE;
	if (reason[0] && nla_put_string(skb, KRDMA_A_REASON, reason))
		return -EMSGSIZE;
	if (krdma_put_addr(skb, KRDMA_A_LOCAL_ADDR, &sess->local_addr) ||
	    krdma_put_addr(skb, KRDMA_A_PEER_ADDR, &sess->peer_addr))
		return -EMSGSIZE;
	/* Set once, while connecting. */
	if (sess->qps && nla_put_u32(skb, KRDMA_A_SESSION_QPS, sess->qps))
		return -EMSGSIZE;
	if (sess->tos >= 0 && nla_put_u8(skb, KRDMA_A_SESSION_TOS, sess->tos))
		return -EMSGSIZE;
	return 0;
}

/*
 * What a session reports while it is up, copied under sess->lock: teardown
 * makes the session CLOSING under that lock before it frees the queues or
 * drops the device, and what is copied was set before it went UP (under
 * the same lock). No cm_mutex: teardown holds that while it drains, and a
 * request must not wait for it under genl_mutex (every other genetlink
 * family would wait too).
 */
struct krdma_session_snap {
	char	dev_name[IB_DEVICE_NAME_MAX];
	u32	qpn;
	u32	peer_qpn;
	u32	sq_depth;
	u32	rq_depth;
	u32	max_msg_size;
	u32	peer_proto;
	u32	max_inline;
	u32	max_sge;
	u32	max_read_sge;
	u8	responder_resources;
	u8	initiator_depth;
	u8	cq_poll;
};

static bool krdma_session_snap(struct krdma_session *sess,
			       struct krdma_session_snap *s)
{
	bool up;

	spin_lock_bh(&sess->lock);
	up = sess->state == KRDMA_SESSION_UP;
	if (up) {
		strscpy(s->dev_name, dev_name(&sess->kdev->ibdev->dev),
			sizeof(s->dev_name));
		s->qpn = krdma_ctrl_conn(sess)->qp->qp_num;
		s->peer_qpn = krdma_ctrl_conn(sess)->peer_qpn;
		s->sq_depth = sess->sq_depth;
		s->rq_depth = sess->rq_depth;
		s->max_msg_size = sess->max_msg_size;
		s->peer_proto = sess->peer_proto;
		s->max_inline = sess->max_inline;
		s->max_sge = sess->max_sge;
		s->max_read_sge = sess->max_read_sge;
		s->responder_resources = sess->responder_resources;
		s->initiator_depth = sess->initiator_depth;
		s->cq_poll = sess->cq_poll;
	}
	spin_unlock_bh(&sess->lock);
	return up;
}

/**
 * krdma_session_fill() - everything about a session, for netlink
 * @skb: the message
 * @sess: the session, referenced
 * @stats: its counters too
 *
 * Everything about a session; sleeps on nothing. What the session has
 * only while up (its device, QPs and what was negotiated) is left out
 * otherwise.
 *
 * Return: 0 or -EMSGSIZE.
 */
int krdma_session_fill(struct sk_buff *skb, struct krdma_session *sess,
		       bool stats)
{
	struct krdma_session_snap s;
	int ret;

	ret = krdma_session_fill_id(skb, sess);
	if (ret)
		return ret;
	if (sess->role == KRDMA_ROLE_SERVER &&
	    nla_put_u32(skb, KRDMA_A_LISTENER_ID, sess->listener_id))
		return -EMSGSIZE;

	if (krdma_session_snap(sess, &s) &&
	    (nla_put_string(skb, KRDMA_A_DEV_NAME, s.dev_name) ||
	     nla_put_u32(skb, KRDMA_A_SESSION_QPN, s.qpn) ||
	     nla_put_u32(skb, KRDMA_A_SESSION_PEER_QPN, s.peer_qpn) ||
	     nla_put_u8(skb, KRDMA_A_SESSION_RESPONDER_RESOURCES,
			s.responder_resources) ||
	     nla_put_u8(skb, KRDMA_A_SESSION_INITIATOR_DEPTH,
			s.initiator_depth) ||
	     nla_put_u32(skb, KRDMA_A_SESSION_SQ_DEPTH, s.sq_depth) ||
	     nla_put_u32(skb, KRDMA_A_SESSION_RQ_DEPTH, s.rq_depth) ||
	     nla_put_u32(skb, KRDMA_A_SESSION_MAX_MSG_SIZE, s.max_msg_size) ||
	     nla_put_u32(skb, KRDMA_A_SESSION_PEER_PROTO, s.peer_proto) ||
	     nla_put_u32(skb, KRDMA_A_SESSION_MAX_INLINE, s.max_inline) ||
	     nla_put_u32(skb, KRDMA_A_SESSION_MAX_SGE, s.max_sge) ||
	     nla_put_u32(skb, KRDMA_A_SESSION_MAX_READ_SGE, s.max_read_sge) ||
	     nla_put_u8(skb, KRDMA_A_SESSION_CQ_POLL, s.cq_poll)))
		return -EMSGSIZE;
	/* Set once, before the session was published: the one in effect. */
	if ((sess->ack_timeout &&
	     nla_put_u8(skb, KRDMA_A_SESSION_ACK_TIMEOUT, sess->ack_timeout)) ||
	    nla_put_u8(skb, KRDMA_A_SESSION_RNR_RETRY, sess->rnr_retry))
		return -EMSGSIZE;
	if (stats)
		return krdma_stats_fill(skb, &sess->stats);
	return 0;
}

static bool krdma_session_visible(void *obj, struct net *net)
{
	struct krdma_session *sess = obj;

	return krdma_session_published(sess) && net_eq(sess->net, net);
}

static int krdma_session_table_fill(struct sk_buff *skb, void *obj)
{
	return krdma_session_fill(skb, obj, true);
}

const struct krdma_nl_table krdma_session_table = {
	.xa		= &krdma_sessions,
	.lock		= &krdma_sessions_lock,
	.visible	= krdma_session_visible,
	.fill		= krdma_session_table_fill,
};
