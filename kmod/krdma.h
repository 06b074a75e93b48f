/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * krdma: kernel-to-kernel RDMA test transport - the core every file
 * shares: the module's limits, devices (device.c, caps.c), sessions and
 * their life (session.c, session-end.c, qp.c's control messages,
 * keepalive.c), the CM's two sides (cm.c, listener.c), what a peer may
 * make us spend (limits.c) and netlink's helpers (netlink.c). What has a
 * job of its own has its own header, included here: a session's
 * connections (conn.h), memory (mem.h), counters (stats.h), faults on
 * demand (fault.h), ops (op.h), the wire (proto.h).
 */
#ifndef _KRDMA_H
#define _KRDMA_H

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <uapi/linux/krdma.h>

#include "krdma_params.h"
#include "fault.h"
#include "hostenv.h"
#include "op.h"
#include "proto.h"
#include "stats.h"

/* KRDMA_VERSION comes from the top-level VERSION file (kmod/Kbuild). */

/*
 * The defaults of a session's and a test's parameters, and their bounds,
 * are the spec's: include/krdma_params.h.
 */
/*
 * Receives kept back from tests for TEST_END and stray control traffic,
 * and one for the peer's keepalive probe (proto.h).
 */
#define KRDMA_RQ_RESERVE	3
#define KRDMA_CTRL_TX		64
/*
 * Send WRs a test leaves for control messages (TEST_REQ, TEST_END, the
 * end handed over), and so the least sq_depth a session of several QPs
 * may have: less leaves no bw test room (krdma_check_hello()).
 */
#define KRDMA_PERF_CTRL_WRS	4
#define KRDMA_QPS_SQ_DEPTH_MIN	(KRDMA_PERF_CTRL_WRS + 1)
/*
 * The CREDITs a bw responder has outstanding for each QP's lane at most
 * (bw.c, krdma_bw_peer_credit()). Every lane's CREDITs travel on the
 * session's first QP, so that QP's receives, send queue and control
 * buffers get room for KRDMA_CREDITS_PER_QP a QP of the session on top
 * of rq_depth, sq_depth and KRDMA_CTRL_TX: krdma_session_credits().
 */
#define KRDMA_CREDITS_PER_QP	4
/* Inline data asked of the QP: a 64 B message with its header fits. */
#define KRDMA_MAX_INLINE	256

/* The CREDITs a session of @qps QPs has outstanding at most, each way. */
static inline u32 krdma_session_credits(u32 qps)
{
	return KRDMA_CREDITS_PER_QP * qps;
}

/*
 * The session's first QP keeps rq_depth receives posted for the peer's
 * messages, and one more for each CREDIT the peer may have outstanding
 * for our test's lanes: each of them lands there, whichever QP its lane
 * sends on. qp.c makes the QP so, limits.c charges a server for it.
 */
static inline u32 krdma_session_nr_recvs(u32 rq_depth, u32 qps)
{
	return rq_depth + krdma_session_credits(qps);
}

/*
 * Its send queue: sq_depth for our test (which leaves
 * KRDMA_PERF_CTRL_WRS of them to its control messages), the peer's
 * test's CREDITs and as many control messages of our answers, the
 * keepalive probe and the drain's marker. A bidir mirror's lane 0
 * fills sq_depth on the same queue while we send CREDITs for the peer.
 */
static inline u32 krdma_session_nr_send_wrs(u32 sq_depth, u32 qps)
{
	return sq_depth + krdma_session_credits(qps) + KRDMA_PERF_CTRL_WRS + 2;
}

struct genl_info;
struct netlink_callback;
struct sk_buff;
struct krdma_buf;
struct krdma_conn;
struct krdma_recv;
struct krdma_session;
struct krdma_test;
struct krdma_peer_test;

extern bool krdma_debug_dma;
extern atomic64_t krdma_dma_cpu_sync_bytes;
extern struct workqueue_struct *krdma_wq;
extern struct workqueue_struct *krdma_timer_wq;

struct krdma_caps_profile;

/*
 * What krdma uses of a device's attributes (kmod/caps.c): ibdev->attrs, or
 * lower where caps_profile makes the device look like a hardware NIC.
 */
struct krdma_caps {
	u32			max_qp_wr;
	u32			max_send_sge;
	u32			max_recv_sge;
	u32			max_sge_rd;
	u32			max_qp_rd_atom;
	u32			max_qp_init_rd_atom;
	u32			max_fast_reg_page_list_len;
	enum ib_atomic_cap	atomic_cap;
	/* caps_profile's, looked up once at device add; NULL: none */
	const struct krdma_caps_profile *profile;
};

/*
 * One RDMA device seen by the ib_client. Sessions hold a reference; the
 * protection domain lives as long as the last user.
 */
struct krdma_device {
	struct kref		ref;
	struct ib_device	*ibdev;
	struct ib_pd		*pd;
	struct krdma_caps	caps;
	u32			chunk_size;	/* largest piece one MR maps */
	/*
	 * iWARP: a READ response is placed like a tagged WRITE, so its sink
	 * must be an MR with remote write access (as rdma_rw makes it), not
	 * the local DMA lkey; and it has no atomics.
	 */
	bool			iwarp;
	/*
	 * rxe: REG_MRs go behind a LOCAL_INV of this MR, never registered,
	 * which waits for all that was posted before it
	 * (krdma_region_post_fence()). NULL elsewhere.
	 */
	struct ib_mr		*fence_mr;
};

/* caps.c */
int krdma_caps_init(struct krdma_device *kdev);
int krdma_caps_create_qp(struct krdma_device *kdev, struct rdma_cm_id *cm_id,
			 struct ib_qp_init_attr *attr);
int krdma_caps_create_qp_inline(struct krdma_device *kdev,
				struct rdma_cm_id *cm_id,
				struct ib_qp_init_attr *attr);

/* limits.c: what a peer may make this host spend */
u64 krdma_buf_bytes(u32 len);
u64 krdma_qp_est_bytes(u32 send_wr, u32 send_sge, u32 max_inline,
		       u32 recv_wr, u32 recv_sge);
u64 krdma_cq_est_bytes(u32 nr_cqe);
u64 krdma_session_queues_bytes(u32 sq_depth, u32 rq_depth, u32 qps);
u64 krdma_channel_queues_bytes(u32 sq_depth, u32 nr_recvs);
bool krdma_session_mem_fits(u64 bytes);
int krdma_sessions_admit(u32 listener_sessions);
void krdma_server_sessions_add(int n);
int krdma_mem_charge(struct krdma_session *sess, u64 bytes);
void krdma_mem_uncharge(struct krdma_session *sess, u64 bytes);
int krdma_responder_poller_get(unsigned int *max);
void krdma_responder_poller_put(void);

/*
 * Where a client's connect is: a connect that times out says which answer
 * never came (an unanswered ARP and a lost CM REQ are fixed differently).
 */
enum krdma_connect_stage {
	KRDMA_CONNECT_ADDR,	/* rdma_resolve_addr(): ARP / ND */
	KRDMA_CONNECT_ROUTE,	/* rdma_resolve_route() */
	KRDMA_CONNECT_REPLY,	/* rdma_connect(): the server's REP */
	KRDMA_CONNECT_CHANNELS,	/* the data channels' connects */
};

/*
 * What a CM id's context points to, a listener or a connection (conn.h):
 * both start with this tag (BUILD_BUG_ON in krdma_cm_kind_of(), cm.h),
 * which a listener's handler reads, as a connection request's id
 * inherits it from the listener's.
 */
enum krdma_cm_kind {
	KRDMA_CM_LISTENER = 1,
	KRDMA_CM_CONN,
};

/*
 * cm_id and device_removed change under krdma_listeners_lock. A listener
 * whose device went away stays listed with cm_id NULL (the CM destroyed
 * the id) until "listener del" frees it: see krdma_listener_removal().
 */
struct krdma_listener {
	enum krdma_cm_kind	kind;
	u32			id;
	char			name[KRDMA_NAME_MAX];
	struct net		*net;	/* not counted: see krdma_net_exit() */
	struct rdma_cm_id	*cm_id;
	struct sockaddr_storage	addr;
	u8			ack_timeout;	/* of its sessions; 0: the module's */
	bool			device_removed;
};

/* A control message being sent; from the session's pool. */
struct krdma_ctrl_tx {
	struct ib_cqe		cqe;
	struct krdma_session	*sess;
	struct krdma_buf	*buf;
	struct list_head	free_node;
};

struct krdma_session {
	struct kref		ref;
	u32			id;
	char			name[KRDMA_NAME_MAX];
	/* Built: lookups find it (krdma_session_publish()). */
	bool			published;
	enum krdma_session_role	role;
	struct net		*net;	/* not counted: see krdma_net_exit() */
	u32			listener_id;
	struct krdma_device	*kdev;
	enum krdma_cq_poll	cq_poll;
	struct sockaddr_storage	local_addr;
	struct sockaddr_storage	peer_addr;
	u32			timeout_ms;
	unsigned long		connect_deadline;	/* jiffies: client */

	spinlock_t		lock;	/* state, reason, keepalive_posted */
	enum krdma_session_state state;
	struct mutex		cm_mutex;	/* CM handler vs. teardown */
	char			reason[96];

	/* Our side of the handshake, then what the peer offered. */
	u32			sq_depth;
	u32			rq_depth;
	u32			max_msg_size;
	u32			peer_sq_depth;
	u32			peer_rq_depth;
	u32			peer_max_msg_size;
	u32			peer_proto;
	u32			max_sge;	/* per send WR, from the QP caps */
	u32			max_sge_ask;	/* client: asked; 0: the default */
	u32			max_read_sge;	/* per READ WR: iWARP allows 1 */
	u32			max_inline;	/* inline bytes per send WR */
	u8			responder_resources;
	u8			initiator_depth;
	/*
	 * This host and port, sampled as the session came up: what our
	 * TEST_RESULTs tell a peer of version 4.
	 */
	struct krdma_host_env	env;

	/*
	 * Its QPs: conns[0], made with the session, and qps - 1 data
	 * channels, set under cm_mutex as they connect or join.
	 */
	u32			qps;
	struct krdma_conn	**conns;
	s16			tos;		/* client: set once; -1: default */
	u8			ack_timeout;	/* set once, before publish */
	/* Our QPs' RNR retry count, as the CM set it; a client's ask. */
	u8			rnr_retry;
	u8			rnr_ask;	/* KRDMA_RNR_RETRY_UNSET: none */
	u32			cookie;		/* names the session to channels */
	u32			channels_up;	/* client: ESTABLISHED ones */

	struct krdma_ctrl_tx	*ctrl_tx;
	u32			nr_ctrl_tx;
	spinlock_t		ctrl_lock;	/* ctrl_free */
	struct list_head	ctrl_free;

	struct krdma_test __rcu	*test;		/* we drive it */
	struct krdma_peer_test	*peer_test;	/* the peer drives it */

	struct delayed_work	connect_work;
	/* Under cm_mutex: connect_work's timeout tells it. */
	enum krdma_connect_stage connect_stage;
	/* Client: the address is resolved again (krdma_resolve_work()). */
	struct work_struct	resolve_work;
	struct work_struct	close_work;
	struct delayed_work	keepalive_work;
	struct ib_cqe		keepalive_cqe;
	atomic_t		reads_in_flight;	/* see krdma_reads_begin() */
	unsigned long		alive_stamp;	/* see krdma_peer_alive() */
	struct ib_cqe		unsignaled_cqe;	/* completes only in error */
	bool			keepalive_posted;	/* under lock */
	/*
	 * A test-rnr-hold test of ours runs: the peer keeps its receives
	 * back, and a probe would only wait behind our SENDs (or, with
	 * rnr_retry 0, be the one to fail): no probe meanwhile.
	 */
	bool			rnr_test;
	/* The first fatal asynchronous event of a QP (krdma_qp_event()). */
	struct work_struct	qp_event_work;
	enum ib_event_type	qp_event;
	u32			qp_event_qpn;
	struct krdma_stats	stats;
};

/* The connection that carries the session's control messages. */
static inline struct krdma_conn *krdma_ctrl_conn(const struct krdma_session *sess)
{
	return sess->conns[0];
}

static inline void krdma_count(struct krdma_session *sess,
			       enum krdma_counter c, u64 v)
{
	krdma_stats_add(&sess->stats, c, v);
	krdma_stats_add(&krdma_global_stats, c, v);
}

/* device.c */
/* Called as a device goes, to end what uses it, before it is let go. */
typedef void (*krdma_device_remove_fn)(struct krdma_device *kdev);
int krdma_device_init(krdma_device_remove_fn close_users);
void krdma_device_exit(void);
struct krdma_device *krdma_device_get(struct ib_device *ibdev,
				      struct krdma_device **user);
void krdma_device_put(struct krdma_device *kdev);
int krdma_device_fill(struct sk_buff *skb, struct krdma_device *kdev);
int krdma_device_fill_lookup(struct sk_buff *msg, struct net *net,
			     const struct nlattr *name);
extern const struct krdma_nl_table krdma_device_table;

/*
 * Receiver-not-ready NAKs a QP retries before its WR fails (7 would be
 * for ever): what each side gives the other's QPs (krdma_fill_conn_param())
 * unless a client asked its server for another count for its own
 * (session-rnr-retry, KRDMA_HELLO_F_RNR_RETRY).
 */
#define KRDMA_RNR_RETRY_DEFAULT	6
#define KRDMA_RNR_RETRY_MAX	7
#define KRDMA_RNR_RETRY_UNSET	0xff	/* a client's rnr_ask: none */

/* session.c: the session table, and each session's life */
struct krdma_session_params {
	struct net		*net;
	const char		*name;
	struct sockaddr_storage	local_addr;	/* family AF_UNSPEC: any */
	struct sockaddr_storage	peer_addr;
	u32			sq_depth;
	u32			rq_depth;
	u32			max_msg_size;
	u32			timeout_ms;
	u32			qps;
	s16			tos;		/* -1: the device's default */
	u8			ack_timeout;	/* 0: the module parameter's */
	u8			rnr_ask;	/* of the server, for our QPs; 0xff */
	u32			max_sge;	/* of our send WRs; 0: the default */
};

struct krdma_session *krdma_session_alloc(enum krdma_session_role role,
					  struct net *net, const char *name,
					  u32 listener_id, u32 qps,
					  struct netlink_ext_ack *extack);
void krdma_session_publish(struct krdma_session *sess);
struct krdma_session *krdma_session_lookup(struct net *net, u32 id,
					   const char *name);
struct krdma_session *krdma_session_lookup_cookie(struct net *net,
						  u32 listener_id, u32 cookie);
void krdma_session_set_up(struct krdma_session *sess);
void krdma_sessions_close_device(struct krdma_device *kdev);
void krdma_sessions_close_net(struct net *net, const char *reason);
int krdma_session_fill_id(struct sk_buff *skb, struct krdma_session *sess);
int krdma_session_fill(struct sk_buff *skb, struct krdma_session *sess,
		       bool stats);
extern const struct krdma_nl_table krdma_session_table;

/* session-end.c: how a session is ended, and let go */
void krdma_conns_free(struct krdma_session *sess);
void krdma_session_put(struct krdma_session *sess);
void krdma_session_close(struct krdma_session *sess, const char *fmt, ...)
	__printf(2, 3);

/* qp.c: the session's control messages (a connection's receives: conn.h) */

/*
 * What a session hands up to the layer above it (the tests), which
 * registers once at load, before any session exists: each control message
 * received (@recv owns @rx: it reposts it), and the session going down
 * once no completion runs any more (@down). Sessions call up only
 * through it.
 */
struct krdma_session_client {
	void (*recv)(struct krdma_session *sess, struct krdma_recv *rx,
		     struct ib_wc *wc);
	/*
	 * One received on data channel @conn, for the peer's test @pt that
	 * took its receives (NULL: none did), in the channel's CQ context
	 * - maybe a softirq - under conn->rx_lock.
	 */
	void (*channel_recv)(struct krdma_conn *conn,
			     struct krdma_peer_test *pt, struct krdma_recv *rx,
			     struct ib_wc *wc);
	void (*down)(struct krdma_session *sess);
};

extern const struct krdma_session_client *krdma_session_client;
void krdma_session_set_client(const struct krdma_session_client *client);
int krdma_session_alloc_buffers(struct krdma_session *sess);
void krdma_session_free_buffers(struct krdma_session *sess);
int krdma_ctrl_send(struct krdma_session *sess, enum krdma_msg_type type,
		    u32 test_id, u64 iter, int status, const void *body,
		    u32 body_len);
int krdma_ctrl_send_credit(struct krdma_session *sess, u32 test_id, u8 qp,
			   u64 iter);
void krdma_unsignaled_done(struct ib_cq *cq, struct ib_wc *wc);
void krdma_qp_event(struct ib_event *ev, void *ctx);
void krdma_qp_event_work(struct work_struct *work);

/* keepalive.c: whether a session's peer still answers */

/*
 * RDMA READs of ours the peer has not answered yet. While there are any,
 * they find a dead peer as well as a keepalive would, and the keepalive is
 * not sent: rxe (seen on 6.12) replays a retried READ with the length of
 * the request that came after it - a zero-length keepalive WRITE - and
 * WARNs in rxe_mr_copy() (Documentation/design.rst, "Dead peers").
 */
static inline void krdma_reads_begin(struct krdma_session *sess, int n)
{
	atomic_add(n, &sess->reads_in_flight);
}

/* stats.c: the longest silence of the peer (peer_silence_max) */
void krdma_peer_silence_note(struct krdma_session *sess, unsigned long gap);

/* Silences shorter than this are not worth a look (peer_silence_max). */
#define KRDMA_SILENCE_NOTE	(HZ / 10)

/*
 * The peer answered something just now (a completion that needed it: an
 * ACK, a READ response, a message). The keepalive takes the peer for
 * dead only when what it waits for has had no answer of any kind for
 * peer_timeout_ms (keepalive.c); a lossy, slow peer keeps answering.
 */
static inline void krdma_peer_alive(struct krdma_session *sess)
{
	/* The stamp first: another CQ's context may move it past our now. */
	unsigned long last = READ_ONCE(sess->alive_stamp), now = jiffies;

	if (unlikely(time_after_eq(now, last + KRDMA_SILENCE_NOTE)))
		krdma_peer_silence_note(sess, now - last);
	/* Every completion comes here, on every CPU: write the line rarely. */
	if (now != last)
		WRITE_ONCE(sess->alive_stamp, now);
}

/*
 * A SEND or WRITE of ours completed: on IB and RoCE that follows the
 * peer's ACK, an answer. iWARP completes it once TCP has it, which says
 * nothing of the peer: there only its messages and READ responses do.
 */
static inline void krdma_peer_acked(struct krdma_session *sess)
{
	if (!sess->kdev->iwarp)
		krdma_peer_alive(sess);
}

static inline void krdma_reads_end(struct krdma_session *sess, int n)
{
	atomic_sub(n, &sess->reads_in_flight);
	krdma_peer_alive(sess);
}

void krdma_keepalive_done(struct ib_cq *cq, struct ib_wc *wc);
void krdma_keepalive_arm(struct krdma_session *sess);
void krdma_keepalive_work(struct work_struct *work);

/* cm.c: rdma_cm connections, the active side */
void krdma_resolve_work(struct work_struct *work);
int krdma_connect(struct krdma_session_params *p, u32 *id,
		  struct netlink_ext_ack *extack);

/* listener.c: the passive side */
int krdma_listener_add(struct net *net, const char *name,
		       struct sockaddr_storage *addr, u8 ack_timeout, u32 *id,
		       struct netlink_ext_ack *extack);
int krdma_listener_fill_lookup(struct sk_buff *msg, struct net *net, u32 id,
			       const char *name);
extern const struct krdma_nl_table krdma_listener_table;
int krdma_listener_del(struct net *net, u32 id, const char *name,
		       struct netlink_ext_ack *extack);
unsigned int krdma_listeners_del_net(struct net *net);

/* test.c: the test engine, both roles */
struct krdma_test_params {
	u8	op;
	u8	mode;		/* enum krdma_test_mode */
	u32	size;
	u64	count;
	u32	duration_ms;
	u32	depth;
	u32	interval_ms;
	u32	signal_every;	/* bw and lat: one signaled send WR in N */
	u32	chain;		/* bw: WRs per ib_post_send() */
	bool	bidir;		/* bw: the peer runs the same test back */
	u32	qps;		/* bw: QPs the messages are spread over */
	u64	rate;		/* bw: bytes/s at most, 0: no limit */
	u32	burst;		/* bw, with a rate: messages posted at once */
	u8	violate;	/* check: enum krdma_violation, or 0 */
	u8	atomic_variant;	/* check: enum krdma_atomic_variant, or 0 */
	u32	sges;		/* check, sends: SGEs a WR, or 0 */
	bool	read_back;	/* check, write: a fenced READ of each WRITE */
	bool	send_inv;	/* check, send: SEND_WITH_INV of a peer's key */
	bool	zero_length;	/* check, write(_imm)/read: WRs of 0 bytes */
	bool	rnr_hold;	/* check, sends: the peer holds its receives */
	bool	zero_behind;	/* check, read: a 0-byte READ behind each */
	bool	reg_behind;	/* check, sends: a REG_MR behind each */
	u32	mirror_of;	/* the peer's test this one mirrors, or 0 */
};

int krdma_test_start(struct krdma_session *sess, struct krdma_test_params *p,
		     u32 *test_id, struct netlink_ext_ack *extack);
int krdma_test_stop(struct net *net, u32 test_id,
		    struct netlink_ext_ack *extack);
extern const struct krdma_nl_table krdma_test_table;
extern const struct krdma_session_client krdma_dispatch_client;

/* netlink.c */
int krdma_netlink_init(void);
void krdma_netlink_exit(void);

/*
 * The objects of one kind, for netlink: an xarray by id and the lock that
 * keeps an object alive while it is filled in, @visible says whether a
 * namespace may see an object, @fill puts its attributes.
 */
struct krdma_nl_table {
	struct xarray *xa;
	struct mutex *lock;	/* keeps an object of @xa alive while filled */
	bool (*visible)(void *obj, struct net *net);
	int (*fill)(struct sk_buff *skb, void *obj);
};

int krdma_nl_xa_dump(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd,
		     const struct krdma_nl_table *table);
int krdma_nl_fill_id(struct sk_buff *msg, const struct krdma_nl_table *table,
		     struct net *net, u32 id);
int krdma_genlmsg_reply(struct genl_info *info, struct sk_buff *msg,
			void *hdr);
struct sk_buff *krdma_genlmsg_new_reply(struct genl_info *info, u8 cmd,
					void **hdr);
void krdma_event_send(struct net *net, struct sk_buff *msg);
int krdma_put_addr(struct sk_buff *skb, int attrtype,
		   const struct sockaddr_storage *ss);
struct sk_buff *krdma_event_new(enum krdma_event ev, void **hdr);

#endif /* _KRDMA_H */
