/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * krdma: kernel-to-kernel RDMA test transport, Generic Netlink ABI.
 *
 * Shared by the kernel module (kmod/) and the krdmactl tool (tools/).
 * Documentation/netlink/specs/krdma.yaml is the source of truth; a test
 * checks that this header agrees with it.
 */
#ifndef _UAPI_LINUX_KRDMA_H
#define _UAPI_LINUX_KRDMA_H

#define KRDMA_GENL_NAME		"krdma"
#define KRDMA_GENL_VERSION	1
#define KRDMA_MCGRP_EVENTS	"events"

/* ABI version reported by KRDMA_CMD_VERSION_GET; bumped on incompatible change. */
#define KRDMA_ABI_VERSION	1

/* Limits enforced by the per-operation policies. */
#define KRDMA_NAME_MAX		32	/* including the terminating NUL */
#define KRDMA_MSG_SIZE_MAX	(8U << 20)
#define KRDMA_DEPTH_MAX		128
#define KRDMA_QUEUE_DEPTH_MIN	4	/* session send/receive queue depths */
#define KRDMA_QUEUE_DEPTH_MAX	4096
#define KRDMA_TIMEOUT_MS_MIN	100
#define KRDMA_TIMEOUT_MS_MAX	60000
#define KRDMA_DURATION_MS_MAX	3600000
#define KRDMA_INTERVAL_MS_MIN	100
#define KRDMA_CHAIN_MAX		32	/* bw: WRs posted by one ib_post_send() */
#define KRDMA_QPS_MAX		16	/* queue pairs of one session */

enum krdma_session_state {
	KRDMA_SESSION_CONNECTING = 1,
	KRDMA_SESSION_UP,
	KRDMA_SESSION_CLOSING,
	KRDMA_SESSION_DOWN,
};

/* Where a session's completions run (module parameter cq_poll). */
enum krdma_cq_poll {
	KRDMA_CQ_POLL_WORKQUEUE = 1,	/* IB_POLL_WORKQUEUE */
	KRDMA_CQ_POLL_UNBOUND,		/* IB_POLL_UNBOUND_WORKQUEUE */
	KRDMA_CQ_POLL_DIRECT,		/* IB_POLL_DIRECT, a polling thread */
	KRDMA_CQ_POLL_SOFTIRQ,		/* data channels IB_POLL_SOFTIRQ, the
					 * rest IB_POLL_WORKQUEUE
					 */
};

enum krdma_session_role {
	KRDMA_ROLE_CLIENT = 1,	/* made the connection (active side) */
	KRDMA_ROLE_SERVER,	/* accepted it on a listener (passive side) */
};

enum krdma_op {
	KRDMA_OP_PING = 1,	/* krping loop: READ the source, WRITE it back */
	KRDMA_OP_SEND,
	KRDMA_OP_SEND_IMM,
	KRDMA_OP_WRITE,
	KRDMA_OP_WRITE_IMM,
	KRDMA_OP_READ,
	KRDMA_OP_ATOMIC_FADD,
	KRDMA_OP_ATOMIC_CSWAP,
	__KRDMA_OP_MAX,
};

#define KRDMA_OP_MAX (__KRDMA_OP_MAX - 1)

/*
 * How a test moves its data. check: every iteration is acknowledged and its
 * data compared (the correctness engine). bw: a pipeline of depth
 * operations with selective signaling and chained posts, checked once at
 * the end. lat: one operation at a time, each timed.
 */
enum krdma_test_mode {
	KRDMA_MODE_CHECK = 1,
	KRDMA_MODE_BW,
	KRDMA_MODE_LAT,
	__KRDMA_MODE_MAX,
};

#define KRDMA_MODE_MAX (__KRDMA_MODE_MAX - 1)

enum krdma_test_state {
	KRDMA_TEST_RUNNING = 1,
	KRDMA_TEST_DONE,	/* ended; KRDMA_A_TEST_STATUS says how */
};

enum krdma_event {
	KRDMA_EVENT_SESSION_UP = 1,
	KRDMA_EVENT_SESSION_DOWN,
	KRDMA_EVENT_TEST_PROGRESS,
	KRDMA_EVENT_TEST_DONE,
};

/* Nested in KRDMA_A_LOCAL_ADDR / KRDMA_A_PEER_ADDR. */
enum krdma_addr_attr {
	KRDMA_ADDR_A_UNSPEC,
	KRDMA_ADDR_A_IPV4,	/* binary, 4 bytes, network order */
	KRDMA_ADDR_A_IPV6,	/* binary, 16 bytes, network order */
	KRDMA_ADDR_A_PORT,	/* u16, host order */
	KRDMA_ADDR_A_SCOPE_ID,	/* u32, IPv6 scope: a link-local's ifindex */
	__KRDMA_ADDR_A_MAX,
};

#define KRDMA_ADDR_A_MAX (__KRDMA_ADDR_A_MAX - 1)

/* Nested in KRDMA_A_DEV_PORT. */
enum krdma_port_attr {
	KRDMA_PORT_A_UNSPEC,
	KRDMA_PORT_A_INDEX,	/* u32 */
	KRDMA_PORT_A_STATE,	/* u8, enum ib_port_state */
	KRDMA_PORT_A_ACTIVE_MTU,	/* u32, bytes */
	__KRDMA_PORT_A_MAX,
};

#define KRDMA_PORT_A_MAX (__KRDMA_PORT_A_MAX - 1)

/* Nested in KRDMA_A_TEST_LAT: one-way latency of a lat test, nanoseconds. */
enum krdma_lat_attr {
	KRDMA_LAT_A_UNSPEC,
	KRDMA_LAT_A_PAD,
	KRDMA_LAT_A_SAMPLES,	/* u64: iterations timed */
	KRDMA_LAT_A_MIN_NS,	/* u64 */
	KRDMA_LAT_A_P50_NS,	/* u64 */
	KRDMA_LAT_A_P90_NS,	/* u64 */
	KRDMA_LAT_A_P99_NS,	/* u64 */
	KRDMA_LAT_A_P999_NS,	/* u64 */
	KRDMA_LAT_A_MAX_NS,	/* u64 */
	KRDMA_LAT_A_AVG_NS,	/* u64 */
	KRDMA_LAT_A_STDEV_NS,	/* u64 */
	KRDMA_LAT_A_HIST,	/* nest, multi: one per non-empty bucket */
	__KRDMA_LAT_A_MAX,
};

#define KRDMA_LAT_A_MAX (__KRDMA_LAT_A_MAX - 1)

/* Nested in KRDMA_LAT_A_HIST: one bucket of the latency histogram. */
enum krdma_hist_attr {
	KRDMA_HIST_A_UNSPEC,
	KRDMA_HIST_A_PAD,
	KRDMA_HIST_A_LO_NS,	/* u64: lowest latency in it */
	KRDMA_HIST_A_HI_NS,	/* u64: its end, excluded */
	KRDMA_HIST_A_COUNT,	/* u64: samples */
	__KRDMA_HIST_A_MAX,
};

#define KRDMA_HIST_A_MAX (__KRDMA_HIST_A_MAX - 1)

/*
 * Nested in KRDMA_A_STATS: module-wide or per-session counters, and the
 * gauges of what peers make this host hold, all u64.
 */
enum krdma_stats_attr {
	KRDMA_STATS_A_UNSPEC,
	KRDMA_STATS_A_PAD,
	KRDMA_STATS_A_SESSIONS_OPENED,
	KRDMA_STATS_A_SESSIONS_CLOSED,
	KRDMA_STATS_A_CONNECT_ERRORS,
	KRDMA_STATS_A_REJECTS_SENT,
	KRDMA_STATS_A_TESTS_STARTED,
	KRDMA_STATS_A_TESTS_FAILED,
	KRDMA_STATS_A_SEND_WRS,
	KRDMA_STATS_A_RECV_WRS,
	KRDMA_STATS_A_WRITE_WRS,
	KRDMA_STATS_A_READ_WRS,
	KRDMA_STATS_A_ATOMIC_WRS,
	KRDMA_STATS_A_REG_MR_WRS,
	KRDMA_STATS_A_INV_WRS,
	KRDMA_STATS_A_BYTES_TX,
	KRDMA_STATS_A_BYTES_RX,
	KRDMA_STATS_A_WC_ERRORS,
	KRDMA_STATS_A_VALIDATION_ERRORS,
	KRDMA_STATS_A_PROTOCOL_ERRORS,
	KRDMA_STATS_A_SESSIONS_REFUSED,
	KRDMA_STATS_A_MEM_REFUSED,
	KRDMA_STATS_A_RESPONDER_TIMEOUTS,
	KRDMA_STATS_A_PEER_MEM,			/* gauge, bytes */
	KRDMA_STATS_A_PEER_MEM_PEAK,		/* since the last reset */
	KRDMA_STATS_A_SERVER_SESSIONS,		/* gauge, module-wide only */
	KRDMA_STATS_A_SERVER_SESSIONS_PEAK,	/* since the last reset */
	KRDMA_STATS_A_QP_EVENTS,
	__KRDMA_STATS_A_MAX,
};

#define KRDMA_STATS_A_MAX (__KRDMA_STATS_A_MAX - 1)

enum krdma_attr {
	KRDMA_A_UNSPEC,
	KRDMA_A_PAD,
	KRDMA_A_VERSION,		/* string: module version */
	KRDMA_A_ABI_VERSION,		/* u32 */

	KRDMA_A_DEV_INDEX,		/* u32: ib_device index */
	KRDMA_A_DEV_NAME,		/* string */
	KRDMA_A_DEV_NODE_GUID,		/* u64 */
	KRDMA_A_DEV_MAX_QP_RD_ATOM,	/* u32 */
	KRDMA_A_DEV_MAX_QP_INIT_RD_ATOM,	/* u32 */
	KRDMA_A_DEV_MAX_FAST_REG_PAGES,	/* u32 */
	KRDMA_A_DEV_MAX_SGE,		/* u32 */
	KRDMA_A_DEV_ATOMIC_CAP,		/* u8, enum ib_atomic_cap */
	KRDMA_A_DEV_PORT,		/* nest, krdma_port_attr, multi */

	KRDMA_A_LISTENER_ID,		/* u32 */
	KRDMA_A_NAME,			/* string: listener or session name */
	KRDMA_A_LOCAL_ADDR,		/* nest, krdma_addr_attr */
	KRDMA_A_PEER_ADDR,		/* nest, krdma_addr_attr */
	KRDMA_A_TIMEOUT_MS,		/* u32: connect timeout */

	KRDMA_A_SESSION_ID,		/* u32 */
	KRDMA_A_SESSION_STATE,		/* u8, enum krdma_session_state */
	KRDMA_A_SESSION_ROLE,		/* u8, enum krdma_session_role */
	KRDMA_A_SESSION_QPN,		/* u32 */
	KRDMA_A_SESSION_PEER_QPN,	/* u32 */
	KRDMA_A_SESSION_RESPONDER_RESOURCES,	/* u8 */
	KRDMA_A_SESSION_INITIATOR_DEPTH,	/* u8 */
	KRDMA_A_SESSION_SQ_DEPTH,	/* u32 */
	KRDMA_A_SESSION_RQ_DEPTH,	/* u32 */
	KRDMA_A_SESSION_MAX_MSG_SIZE,	/* u32 */
	KRDMA_A_SESSION_PEER_PROTO,	/* u32: peer's wire protocol version */
	KRDMA_A_REASON,			/* string: why a session, test or listener failed */

	KRDMA_A_TEST_ID,		/* u32 */
	KRDMA_A_TEST_OP,		/* u8, enum krdma_op */
	KRDMA_A_TEST_SIZE,		/* u32: bytes per message */
	KRDMA_A_TEST_COUNT,		/* u64: iterations (0: use duration) */
	KRDMA_A_TEST_DURATION_MS,	/* u32 */
	KRDMA_A_TEST_DEPTH,		/* u32: operations in flight */
	KRDMA_A_TEST_INTERVAL_MS,	/* u32: progress event interval */
	KRDMA_A_TEST_STATE,		/* u8, enum krdma_test_state */
	KRDMA_A_TEST_STATUS,		/* s32: 0 or a negative errno */
	KRDMA_A_TEST_ITERS,		/* u64: iterations completed */
	KRDMA_A_TEST_BYTES,		/* u64: payload bytes moved */
	KRDMA_A_TEST_ELAPSED_NS,	/* u64 */
	KRDMA_A_TEST_VALIDATED,		/* u64: iterations whose data was checked */

	KRDMA_A_STATS,			/* nest, krdma_stats_attr */
	KRDMA_A_EVENT,			/* u8, enum krdma_event */

	KRDMA_A_TEST_MODE,		/* u8, enum krdma_test_mode */
	KRDMA_A_TEST_SIGNAL_EVERY,	/* u32: bw: signal one WR in N */
	KRDMA_A_TEST_CHAIN,		/* u32: bw: WRs per ib_post_send() */
	KRDMA_A_TEST_INLINE,		/* u8: data was sent inline */
	KRDMA_A_TEST_CPU_NS,		/* u64: CPU time of the module's data path */
	KRDMA_A_TEST_PEER_CPU_NS,	/* u64: the same, on the responder */
	KRDMA_A_TEST_LAT,		/* nest, krdma_lat_attr */
	KRDMA_A_SESSION_MAX_INLINE,	/* u32: inline data the QP takes */
	KRDMA_A_SESSION_CQ_POLL,	/* u8, enum krdma_cq_poll */
	KRDMA_A_TEST_BIDIR,		/* u8: bw both ways (the peer mirrors it) */
	KRDMA_A_TEST_PEER_ITERS,	/* u64: bidir: the peer's messages */
	KRDMA_A_TEST_PEER_BYTES,	/* u64: bidir: the peer's bytes */
	KRDMA_A_SESSION_QPS,		/* u32: queue pairs, the control one included */
	KRDMA_A_TEST_QPS,		/* u32: bw: queue pairs the messages spread over */
	KRDMA_A_TEST_QP,		/* nest, krdma_test_qp_attr, multi */
	KRDMA_A_SESSION_TOS,		/* u8: type of service (client) */
	KRDMA_A_TEST_HOST_CPU,		/* nest, krdma_host_cpu_attr */
	KRDMA_A_TEST_PEER_HOST_CPU,	/* nest, krdma_host_cpu_attr */
	KRDMA_A_TEST_RATE,		/* u64: bw: bytes/s at most (software limit) */
	KRDMA_A_TEST_BURST,		/* u32: bw, with a rate: messages per burst */
	__KRDMA_A_MAX,
};

#define KRDMA_A_MAX (__KRDMA_A_MAX - 1)

/* Nested in KRDMA_A_TEST_(PEER_)HOST_CPU: a host's CPUs over a test, ns. */
enum krdma_host_cpu_attr {
	KRDMA_HOST_CPU_A_UNSPEC,
	KRDMA_HOST_CPU_A_PAD,
	KRDMA_HOST_CPU_A_CAPACITY_NS,	/* u64: wall time x online CPUs */
	KRDMA_HOST_CPU_A_USER_NS,	/* u64 */
	KRDMA_HOST_CPU_A_SYSTEM_NS,	/* u64 */
	KRDMA_HOST_CPU_A_SOFTIRQ_NS,	/* u64 */
	KRDMA_HOST_CPU_A_IRQ_NS,	/* u64 */
	__KRDMA_HOST_CPU_A_MAX,
};

#define KRDMA_HOST_CPU_A_MAX (__KRDMA_HOST_CPU_A_MAX - 1)

/* Nested in KRDMA_A_TEST_QP: one queue pair's share of a bw test. */
enum krdma_test_qp_attr {
	KRDMA_TEST_QP_A_UNSPEC,
	KRDMA_TEST_QP_A_PAD,
	KRDMA_TEST_QP_A_INDEX,		/* u32 */
	KRDMA_TEST_QP_A_ITERS,		/* u64 */
	KRDMA_TEST_QP_A_BYTES,		/* u64 */
	KRDMA_TEST_QP_A_ELAPSED_NS,	/* u64 */
	__KRDMA_TEST_QP_A_MAX,
};

#define KRDMA_TEST_QP_A_MAX (__KRDMA_TEST_QP_A_MAX - 1)

enum krdma_cmd {
	KRDMA_CMD_UNSPEC,
	KRDMA_CMD_VERSION_GET,
	KRDMA_CMD_DEV_GET,		/* do (by name) or dump */
	KRDMA_CMD_LISTENER_ADD,
	KRDMA_CMD_LISTENER_DEL,
	KRDMA_CMD_LISTENER_GET,		/* do or dump */
	KRDMA_CMD_SESSION_NEW,		/* connect */
	KRDMA_CMD_SESSION_DEL,
	KRDMA_CMD_SESSION_GET,		/* do or dump */
	KRDMA_CMD_TEST_START,
	KRDMA_CMD_TEST_STOP,
	KRDMA_CMD_TEST_GET,		/* do or dump */
	KRDMA_CMD_STATS_GET,
	KRDMA_CMD_STATS_RESET,
	KRDMA_CMD_EVENT_NTF,		/* multicast on KRDMA_MCGRP_EVENTS */
	__KRDMA_CMD_MAX,
};

#define KRDMA_CMD_MAX (__KRDMA_CMD_MAX - 1)

#endif /* _UAPI_LINUX_KRDMA_H */
