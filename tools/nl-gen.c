// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/krdma.yaml */
/* by scripts/spec-to-c.py; make check-spec checks that it is current. */

#include <netlink/attr.h>

#include <linux/krdma.h>

#include "nl-gen.h"

/* krdma: krdma_attr */
struct nla_policy krdma_policy[KRDMA_A_MAX + 1] = {
	[KRDMA_A_VERSION] = { .type = NLA_STRING },
	[KRDMA_A_ABI_VERSION] = { .type = NLA_U32 },
	[KRDMA_A_DEV_INDEX] = { .type = NLA_U32 },
	[KRDMA_A_DEV_NAME] = { .type = NLA_STRING, .maxlen = 63 + 1 },
	[KRDMA_A_DEV_NODE_GUID] = { .type = NLA_U64 },
	[KRDMA_A_DEV_MAX_QP_RD_ATOM] = { .type = NLA_U32 },
	[KRDMA_A_DEV_MAX_QP_INIT_RD_ATOM] = { .type = NLA_U32 },
	[KRDMA_A_DEV_MAX_FAST_REG_PAGES] = { .type = NLA_U32 },
	[KRDMA_A_DEV_MAX_SGE] = { .type = NLA_U32 },
	[KRDMA_A_DEV_ATOMIC_CAP] = { .type = NLA_U8 },
	[KRDMA_A_DEV_PORT] = { .type = NLA_NESTED },
	[KRDMA_A_LISTENER_ID] = { .type = NLA_U32 },
	[KRDMA_A_NAME] = { .type = NLA_STRING, .maxlen = 31 + 1 },
	[KRDMA_A_LOCAL_ADDR] = { .type = NLA_NESTED },
	[KRDMA_A_PEER_ADDR] = { .type = NLA_NESTED },
	[KRDMA_A_TIMEOUT_MS] = { .type = NLA_U32 },
	[KRDMA_A_SESSION_ID] = { .type = NLA_U32 },
	[KRDMA_A_SESSION_STATE] = { .type = NLA_U8 },
	[KRDMA_A_SESSION_ROLE] = { .type = NLA_U8 },
	[KRDMA_A_SESSION_QPN] = { .type = NLA_U32 },
	[KRDMA_A_SESSION_PEER_QPN] = { .type = NLA_U32 },
	[KRDMA_A_SESSION_RESPONDER_RESOURCES] = { .type = NLA_U8 },
	[KRDMA_A_SESSION_INITIATOR_DEPTH] = { .type = NLA_U8 },
	[KRDMA_A_SESSION_SQ_DEPTH] = { .type = NLA_U32 },
	[KRDMA_A_SESSION_RQ_DEPTH] = { .type = NLA_U32 },
	[KRDMA_A_SESSION_MAX_MSG_SIZE] = { .type = NLA_U32 },
	[KRDMA_A_SESSION_PEER_PROTO] = { .type = NLA_U32 },
	[KRDMA_A_REASON] = { .type = NLA_STRING },
	[KRDMA_A_TEST_ID] = { .type = NLA_U32 },
	[KRDMA_A_TEST_OP] = { .type = NLA_U8 },
	[KRDMA_A_TEST_SIZE] = { .type = NLA_U32 },
	[KRDMA_A_TEST_COUNT] = { .type = NLA_U64 },
	[KRDMA_A_TEST_DURATION_MS] = { .type = NLA_U32 },
	[KRDMA_A_TEST_DEPTH] = { .type = NLA_U32 },
	[KRDMA_A_TEST_INTERVAL_MS] = { .type = NLA_U32 },
	[KRDMA_A_TEST_STATE] = { .type = NLA_U8 },
	[KRDMA_A_TEST_STATUS] = { .type = NLA_S32, .minlen = 4 },
	[KRDMA_A_TEST_ITERS] = { .type = NLA_U64 },
	[KRDMA_A_TEST_BYTES] = { .type = NLA_U64 },
	[KRDMA_A_TEST_ELAPSED_NS] = { .type = NLA_U64 },
	[KRDMA_A_TEST_VALIDATED] = { .type = NLA_U64 },
	[KRDMA_A_STATS] = { .type = NLA_NESTED },
	[KRDMA_A_EVENT] = { .type = NLA_U8 },
	[KRDMA_A_TEST_MODE] = { .type = NLA_U8 },
	[KRDMA_A_TEST_SIGNAL_EVERY] = { .type = NLA_U32 },
	[KRDMA_A_TEST_CHAIN] = { .type = NLA_U32 },
	[KRDMA_A_TEST_INLINE] = { .type = NLA_U8 },
	[KRDMA_A_TEST_CPU_NS] = { .type = NLA_U64 },
	[KRDMA_A_TEST_PEER_CPU_NS] = { .type = NLA_U64 },
	[KRDMA_A_TEST_LAT] = { .type = NLA_NESTED },
	[KRDMA_A_SESSION_MAX_INLINE] = { .type = NLA_U32 },
	[KRDMA_A_SESSION_CQ_POLL] = { .type = NLA_U8 },
	[KRDMA_A_TEST_BIDIR] = { .type = NLA_U8 },
	[KRDMA_A_TEST_PEER_ITERS] = { .type = NLA_U64 },
	[KRDMA_A_TEST_PEER_BYTES] = { .type = NLA_U64 },
	[KRDMA_A_SESSION_QPS] = { .type = NLA_U32 },
	[KRDMA_A_TEST_QPS] = { .type = NLA_U32 },
	[KRDMA_A_TEST_QP] = { .type = NLA_NESTED },
	[KRDMA_A_SESSION_TOS] = { .type = NLA_U8 },
	[KRDMA_A_TEST_HOST_CPU] = { .type = NLA_NESTED },
	[KRDMA_A_TEST_PEER_HOST_CPU] = { .type = NLA_NESTED },
	[KRDMA_A_TEST_RATE] = { .type = NLA_U64 },
	[KRDMA_A_TEST_BURST] = { .type = NLA_U32 },
	[KRDMA_A_SESSION_ACK_TIMEOUT] = { .type = NLA_U8 },
	[KRDMA_A_TEST_PEER_ENV] = { .type = NLA_NESTED },
	[KRDMA_A_TEST_VIOLATE] = { .type = NLA_U8 },
	[KRDMA_A_TEST_ATOMIC_VARIANT] = { .type = NLA_U8 },
	[KRDMA_A_TEST_SGES] = { .type = NLA_U32 },
	[KRDMA_A_SESSION_MAX_SGE] = { .type = NLA_U32 },
	[KRDMA_A_TEST_WC_STATUS] = { .type = NLA_U32 },
	[KRDMA_A_TEST_READ_BACK] = { .type = NLA_U8 },
	[KRDMA_A_SESSION_MAX_READ_SGE] = { .type = NLA_U32 },
	[KRDMA_A_TEST_SEND_INVALIDATE] = { .type = NLA_U8 },
	[KRDMA_A_TEST_ZERO_LENGTH] = { .type = NLA_U8 },
	[KRDMA_A_SESSION_RNR_RETRY] = { .type = NLA_U8 },
	[KRDMA_A_TEST_RNR_HOLD] = { .type = NLA_U8 },
	[KRDMA_A_TEST_ZERO_READ_BEHIND] = { .type = NLA_U8 },
	[KRDMA_A_TEST_REG_BEHIND] = { .type = NLA_U8 },
};

/* host-env: krdma_host_env_attr */
struct nla_policy krdma_host_env_policy[KRDMA_HOST_ENV_A_MAX + 1] = {
	[KRDMA_HOST_ENV_A_HOST] = { .type = NLA_STRING },
	[KRDMA_HOST_ENV_A_FW_VER] = { .type = NLA_STRING },
	[KRDMA_HOST_ENV_A_LINK_MBIT_PER_S] = { .type = NLA_U32 },
	[KRDMA_HOST_ENV_A_LINK_WIDTH] = { .type = NLA_U32 },
};

/* host-cpu: krdma_host_cpu_attr */
struct nla_policy krdma_host_cpu_policy[KRDMA_HOST_CPU_A_MAX + 1] = {
	[KRDMA_HOST_CPU_A_CAPACITY_NS] = { .type = NLA_U64 },
	[KRDMA_HOST_CPU_A_USER_NS] = { .type = NLA_U64 },
	[KRDMA_HOST_CPU_A_SYSTEM_NS] = { .type = NLA_U64 },
	[KRDMA_HOST_CPU_A_SOFTIRQ_NS] = { .type = NLA_U64 },
	[KRDMA_HOST_CPU_A_IRQ_NS] = { .type = NLA_U64 },
};

/* test-qp: krdma_test_qp_attr */
struct nla_policy krdma_test_qp_policy[KRDMA_TEST_QP_A_MAX + 1] = {
	[KRDMA_TEST_QP_A_INDEX] = { .type = NLA_U32 },
	[KRDMA_TEST_QP_A_ITERS] = { .type = NLA_U64 },
	[KRDMA_TEST_QP_A_BYTES] = { .type = NLA_U64 },
	[KRDMA_TEST_QP_A_ELAPSED_NS] = { .type = NLA_U64 },
};

/* addr: krdma_addr_attr */
struct nla_policy krdma_addr_policy[KRDMA_ADDR_A_MAX + 1] = {
	[KRDMA_ADDR_A_IPV4] = { .type = NLA_UNSPEC, .minlen = 4, .maxlen = 4 },
	[KRDMA_ADDR_A_IPV6] = { .type = NLA_UNSPEC, .minlen = 16, .maxlen = 16 },
	[KRDMA_ADDR_A_PORT] = { .type = NLA_U16 },
	[KRDMA_ADDR_A_SCOPE_ID] = { .type = NLA_U32 },
};

/* port: krdma_port_attr */
struct nla_policy krdma_port_policy[KRDMA_PORT_A_MAX + 1] = {
	[KRDMA_PORT_A_INDEX] = { .type = NLA_U32 },
	[KRDMA_PORT_A_STATE] = { .type = NLA_U8 },
	[KRDMA_PORT_A_ACTIVE_MTU] = { .type = NLA_U32 },
};

/* lat: krdma_lat_attr */
struct nla_policy krdma_lat_policy[KRDMA_LAT_A_MAX + 1] = {
	[KRDMA_LAT_A_SAMPLES] = { .type = NLA_U64 },
	[KRDMA_LAT_A_MIN_NS] = { .type = NLA_U64 },
	[KRDMA_LAT_A_P50_NS] = { .type = NLA_U64 },
	[KRDMA_LAT_A_P90_NS] = { .type = NLA_U64 },
	[KRDMA_LAT_A_P99_NS] = { .type = NLA_U64 },
	[KRDMA_LAT_A_P999_NS] = { .type = NLA_U64 },
	[KRDMA_LAT_A_MAX_NS] = { .type = NLA_U64 },
	[KRDMA_LAT_A_AVG_NS] = { .type = NLA_U64 },
	[KRDMA_LAT_A_STDEV_NS] = { .type = NLA_U64 },
	[KRDMA_LAT_A_HIST] = { .type = NLA_NESTED },
};

/* hist-bucket: krdma_hist_attr */
struct nla_policy krdma_hist_bucket_policy[KRDMA_HIST_A_MAX + 1] = {
	[KRDMA_HIST_A_LO_NS] = { .type = NLA_U64 },
	[KRDMA_HIST_A_HI_NS] = { .type = NLA_U64 },
	[KRDMA_HIST_A_COUNT] = { .type = NLA_U64 },
};

/* stats: krdma_stats_attr */
struct nla_policy krdma_stats_policy[KRDMA_STATS_A_MAX + 1] = {
	[KRDMA_STATS_A_SESSIONS_OPENED] = { .type = NLA_U64 },
	[KRDMA_STATS_A_SESSIONS_CLOSED] = { .type = NLA_U64 },
	[KRDMA_STATS_A_CONNECT_ERRORS] = { .type = NLA_U64 },
	[KRDMA_STATS_A_REJECTS_SENT] = { .type = NLA_U64 },
	[KRDMA_STATS_A_TESTS_STARTED] = { .type = NLA_U64 },
	[KRDMA_STATS_A_TESTS_FAILED] = { .type = NLA_U64 },
	[KRDMA_STATS_A_SEND_WRS] = { .type = NLA_U64 },
	[KRDMA_STATS_A_RECV_WRS] = { .type = NLA_U64 },
	[KRDMA_STATS_A_WRITE_WRS] = { .type = NLA_U64 },
	[KRDMA_STATS_A_READ_WRS] = { .type = NLA_U64 },
	[KRDMA_STATS_A_ATOMIC_WRS] = { .type = NLA_U64 },
	[KRDMA_STATS_A_REG_MR_WRS] = { .type = NLA_U64 },
	[KRDMA_STATS_A_INV_WRS] = { .type = NLA_U64 },
	[KRDMA_STATS_A_BYTES_TX] = { .type = NLA_U64 },
	[KRDMA_STATS_A_BYTES_RX] = { .type = NLA_U64 },
	[KRDMA_STATS_A_WC_ERRORS] = { .type = NLA_U64 },
	[KRDMA_STATS_A_VALIDATION_ERRORS] = { .type = NLA_U64 },
	[KRDMA_STATS_A_PROTOCOL_ERRORS] = { .type = NLA_U64 },
	[KRDMA_STATS_A_SESSIONS_REFUSED] = { .type = NLA_U64 },
	[KRDMA_STATS_A_MEM_REFUSED] = { .type = NLA_U64 },
	[KRDMA_STATS_A_RESPONDER_TIMEOUTS] = { .type = NLA_U64 },
	[KRDMA_STATS_A_PEER_MEM] = { .type = NLA_U64 },
	[KRDMA_STATS_A_PEER_MEM_PEAK] = { .type = NLA_U64 },
	[KRDMA_STATS_A_SERVER_SESSIONS] = { .type = NLA_U64 },
	[KRDMA_STATS_A_SERVER_SESSIONS_PEAK] = { .type = NLA_U64 },
	[KRDMA_STATS_A_QP_EVENTS] = { .type = NLA_U64 },
	[KRDMA_STATS_A_PEER_SILENCE_MAX] = { .type = NLA_U64 },
	[KRDMA_STATS_A_POLLERS_REFUSED] = { .type = NLA_U64 },
	[KRDMA_STATS_A_RESPONDER_POLLERS] = { .type = NLA_U64 },
};

/* KRDMA_CMD_VERSION_GET - do reply */
const int krdma_version_get_rsp_attrs[2] = {
	KRDMA_A_VERSION,
	KRDMA_A_ABI_VERSION,
};

/* KRDMA_CMD_DEV_GET - do and dump reply */
const int krdma_dev_get_rsp_attrs[9] = {
	KRDMA_A_DEV_INDEX,
	KRDMA_A_DEV_NAME,
	KRDMA_A_DEV_PORT,
	KRDMA_A_DEV_MAX_QP_RD_ATOM,
	KRDMA_A_DEV_MAX_QP_INIT_RD_ATOM,
	KRDMA_A_DEV_MAX_FAST_REG_PAGES,
	KRDMA_A_DEV_MAX_SGE,
	KRDMA_A_DEV_ATOMIC_CAP,
	KRDMA_A_DEV_NODE_GUID,
};

/* KRDMA_CMD_LISTENER_ADD - do reply */
const int krdma_listener_add_rsp_attrs[6] = {
	KRDMA_A_LISTENER_ID,
	KRDMA_A_NAME,
	KRDMA_A_LOCAL_ADDR,
	KRDMA_A_DEV_NAME,
	KRDMA_A_REASON,
	KRDMA_A_SESSION_ACK_TIMEOUT,
};

/* KRDMA_CMD_LISTENER_GET - do and dump reply */
const int krdma_listener_get_rsp_attrs[6] = {
	KRDMA_A_LISTENER_ID,
	KRDMA_A_NAME,
	KRDMA_A_LOCAL_ADDR,
	KRDMA_A_DEV_NAME,
	KRDMA_A_REASON,
	KRDMA_A_SESSION_ACK_TIMEOUT,
};

/* KRDMA_CMD_SESSION_NEW - do reply */
const int krdma_session_new_rsp_attrs[1] = {
	KRDMA_A_SESSION_ID,
};

/* KRDMA_CMD_SESSION_GET - do and dump reply */
const int krdma_session_get_rsp_attrs[26] = {
	KRDMA_A_SESSION_ID,
	KRDMA_A_NAME,
	KRDMA_A_SESSION_STATE,
	KRDMA_A_SESSION_ROLE,
	KRDMA_A_DEV_NAME,
	KRDMA_A_LOCAL_ADDR,
	KRDMA_A_PEER_ADDR,
	KRDMA_A_SESSION_QPN,
	KRDMA_A_SESSION_PEER_QPN,
	KRDMA_A_SESSION_QPS,
	KRDMA_A_SESSION_TOS,
	KRDMA_A_SESSION_RESPONDER_RESOURCES,
	KRDMA_A_SESSION_INITIATOR_DEPTH,
	KRDMA_A_SESSION_SQ_DEPTH,
	KRDMA_A_SESSION_RQ_DEPTH,
	KRDMA_A_SESSION_MAX_MSG_SIZE,
	KRDMA_A_SESSION_PEER_PROTO,
	KRDMA_A_SESSION_MAX_INLINE,
	KRDMA_A_SESSION_MAX_SGE,
	KRDMA_A_SESSION_MAX_READ_SGE,
	KRDMA_A_SESSION_CQ_POLL,
	KRDMA_A_SESSION_ACK_TIMEOUT,
	KRDMA_A_SESSION_RNR_RETRY,
	KRDMA_A_LISTENER_ID,
	KRDMA_A_REASON,
	KRDMA_A_STATS,
};

/* KRDMA_CMD_TEST_START - do reply */
const int krdma_test_start_rsp_attrs[1] = {
	KRDMA_A_TEST_ID,
};

/* KRDMA_CMD_TEST_GET - do and dump reply */
const int krdma_test_get_rsp_attrs[42] = {
	KRDMA_A_TEST_ID,
	KRDMA_A_SESSION_ID,
	KRDMA_A_TEST_OP,
	KRDMA_A_TEST_MODE,
	KRDMA_A_TEST_SIZE,
	KRDMA_A_TEST_COUNT,
	KRDMA_A_TEST_DURATION_MS,
	KRDMA_A_TEST_DEPTH,
	KRDMA_A_TEST_QPS,
	KRDMA_A_TEST_RATE,
	KRDMA_A_TEST_BURST,
	KRDMA_A_TEST_SIGNAL_EVERY,
	KRDMA_A_TEST_CHAIN,
	KRDMA_A_TEST_INLINE,
	KRDMA_A_TEST_INTERVAL_MS,
	KRDMA_A_TEST_STATE,
	KRDMA_A_TEST_STATUS,
	KRDMA_A_TEST_ITERS,
	KRDMA_A_TEST_BYTES,
	KRDMA_A_TEST_ELAPSED_NS,
	KRDMA_A_TEST_VALIDATED,
	KRDMA_A_TEST_CPU_NS,
	KRDMA_A_TEST_PEER_CPU_NS,
	KRDMA_A_TEST_LAT,
	KRDMA_A_TEST_BIDIR,
	KRDMA_A_TEST_PEER_ITERS,
	KRDMA_A_TEST_PEER_BYTES,
	KRDMA_A_REASON,
	KRDMA_A_TEST_QP,
	KRDMA_A_TEST_HOST_CPU,
	KRDMA_A_TEST_PEER_HOST_CPU,
	KRDMA_A_TEST_PEER_ENV,
	KRDMA_A_TEST_VIOLATE,
	KRDMA_A_TEST_WC_STATUS,
	KRDMA_A_TEST_ATOMIC_VARIANT,
	KRDMA_A_TEST_SGES,
	KRDMA_A_TEST_READ_BACK,
	KRDMA_A_TEST_SEND_INVALIDATE,
	KRDMA_A_TEST_ZERO_LENGTH,
	KRDMA_A_TEST_RNR_HOLD,
	KRDMA_A_TEST_ZERO_READ_BEHIND,
	KRDMA_A_TEST_REG_BEHIND,
};

/* KRDMA_CMD_STATS_GET - do reply */
const int krdma_stats_get_rsp_attrs[1] = {
	KRDMA_A_STATS,
};

/* KRDMA_CMD_EVENT_NTF - event */
const int krdma_event_ntf_attrs[50] = {
	KRDMA_A_EVENT,
	KRDMA_A_TEST_ID,
	KRDMA_A_SESSION_ID,
	KRDMA_A_NAME,
	KRDMA_A_SESSION_STATE,
	KRDMA_A_SESSION_ROLE,
	KRDMA_A_LOCAL_ADDR,
	KRDMA_A_PEER_ADDR,
	KRDMA_A_SESSION_QPS,
	KRDMA_A_TEST_OP,
	KRDMA_A_TEST_SIZE,
	KRDMA_A_TEST_COUNT,
	KRDMA_A_TEST_DURATION_MS,
	KRDMA_A_TEST_DEPTH,
	KRDMA_A_TEST_QPS,
	KRDMA_A_TEST_STATE,
	KRDMA_A_TEST_ITERS,
	KRDMA_A_TEST_BYTES,
	KRDMA_A_TEST_ELAPSED_NS,
	KRDMA_A_TEST_VALIDATED,
	KRDMA_A_TEST_STATUS,
	KRDMA_A_REASON,
	KRDMA_A_SESSION_TOS,
	KRDMA_A_TEST_MODE,
	KRDMA_A_TEST_INTERVAL_MS,
	KRDMA_A_TEST_SIGNAL_EVERY,
	KRDMA_A_TEST_CHAIN,
	KRDMA_A_TEST_INLINE,
	KRDMA_A_TEST_CPU_NS,
	KRDMA_A_TEST_PEER_CPU_NS,
	KRDMA_A_TEST_LAT,
	KRDMA_A_TEST_BIDIR,
	KRDMA_A_TEST_PEER_ITERS,
	KRDMA_A_TEST_PEER_BYTES,
	KRDMA_A_TEST_RATE,
	KRDMA_A_TEST_BURST,
	KRDMA_A_TEST_QP,
	KRDMA_A_TEST_HOST_CPU,
	KRDMA_A_TEST_PEER_HOST_CPU,
	KRDMA_A_TEST_PEER_ENV,
	KRDMA_A_TEST_VIOLATE,
	KRDMA_A_TEST_WC_STATUS,
	KRDMA_A_TEST_ATOMIC_VARIANT,
	KRDMA_A_TEST_SGES,
	KRDMA_A_TEST_READ_BACK,
	KRDMA_A_TEST_SEND_INVALIDATE,
	KRDMA_A_TEST_ZERO_LENGTH,
	KRDMA_A_TEST_RNR_HOLD,
	KRDMA_A_TEST_ZERO_READ_BEHIND,
	KRDMA_A_TEST_REG_BEHIND,
};

/* enum ib_port_state */
const char *const krdma_ib_port_state_strmap[6] = {
	[0] = "nop",
	[1] = "down",
	[2] = "init",
	[3] = "armed",
	[4] = "active",
	[5] = "active_defer",
};

/* enum ib_atomic_cap */
const char *const krdma_ib_atomic_cap_strmap[3] = {
	[0] = "none",
	[1] = "hca",
	[2] = "glob",
};

/* enum krdma_session_state */
const char *const krdma_session_state_strmap[5] = {
	[KRDMA_SESSION_CONNECTING] = "connecting",
	[KRDMA_SESSION_UP] = "up",
	[KRDMA_SESSION_CLOSING] = "closing",
	[KRDMA_SESSION_DOWN] = "down",
};

/* enum krdma_cq_poll */
const char *const krdma_cq_poll_strmap[5] = {
	[KRDMA_CQ_POLL_WORKQUEUE] = "workqueue",
	[KRDMA_CQ_POLL_UNBOUND] = "unbound",
	[KRDMA_CQ_POLL_DIRECT] = "direct",
	[KRDMA_CQ_POLL_SOFTIRQ] = "softirq",
};

/* enum krdma_session_role */
const char *const krdma_session_role_strmap[3] = {
	[KRDMA_ROLE_CLIENT] = "client",
	[KRDMA_ROLE_SERVER] = "server",
};

/* enum krdma_op */
const char *const krdma_op_strmap[9] = {
	[KRDMA_OP_PING] = "ping",
	[KRDMA_OP_SEND] = "send",
	[KRDMA_OP_SEND_IMM] = "send_imm",
	[KRDMA_OP_WRITE] = "write",
	[KRDMA_OP_WRITE_IMM] = "write_imm",
	[KRDMA_OP_READ] = "read",
	[KRDMA_OP_ATOMIC_FADD] = "atomic_fadd",
	[KRDMA_OP_ATOMIC_CSWAP] = "atomic_cswap",
};

/* enum krdma_atomic_variant */
const char *const krdma_atomic_variant_strmap[3] = {
	[KRDMA_ATOMIC_FADD_WRAP] = "fadd_wrap",
	[KRDMA_ATOMIC_CSWAP_MISS] = "cswap_miss",
};

/* enum krdma_violation */
const char *const krdma_violation_strmap[8] = {
	[KRDMA_VIOLATE_OUT_OF_BOUNDS] = "out_of_bounds",
	[KRDMA_VIOLATE_STALE_RKEY] = "stale_rkey",
	[KRDMA_VIOLATE_NO_ACCESS] = "no_access",
	[KRDMA_VIOLATE_LONG_SEND] = "long_send",
	[KRDMA_VIOLATE_UNALIGNED] = "unaligned",
	[KRDMA_VIOLATE_INVALIDATED_RKEY] = "invalidated_rkey",
	[KRDMA_VIOLATE_SEND_INVALIDATED_RKEY] = "send_invalidated_rkey",
};

/* enum krdma_test_mode */
const char *const krdma_test_mode_strmap[4] = {
	[KRDMA_MODE_CHECK] = "check",
	[KRDMA_MODE_BW] = "bw",
	[KRDMA_MODE_LAT] = "lat",
};

/* enum krdma_test_state */
const char *const krdma_test_state_strmap[3] = {
	[KRDMA_TEST_RUNNING] = "running",
	[KRDMA_TEST_DONE] = "done",
};

/* enum krdma_event */
const char *const krdma_event_strmap[5] = {
	[KRDMA_EVENT_SESSION_UP] = "session_up",
	[KRDMA_EVENT_SESSION_DOWN] = "session_down",
	[KRDMA_EVENT_TEST_PROGRESS] = "test_progress",
	[KRDMA_EVENT_TEST_DONE] = "test_done",
};

/* host-env: krdma_host_env_attr */
const char *const krdma_host_env_attr_strmap[5] = {
	[KRDMA_HOST_ENV_A_HOST] = "host",
	[KRDMA_HOST_ENV_A_FW_VER] = "fw_ver",
	[KRDMA_HOST_ENV_A_LINK_MBIT_PER_S] = "link_mbit_per_s",
	[KRDMA_HOST_ENV_A_LINK_WIDTH] = "link_width",
};

/* host-cpu: krdma_host_cpu_attr */
const char *const krdma_host_cpu_attr_strmap[7] = {
	[KRDMA_HOST_CPU_A_CAPACITY_NS] = "capacity_ns",
	[KRDMA_HOST_CPU_A_USER_NS] = "user_ns",
	[KRDMA_HOST_CPU_A_SYSTEM_NS] = "system_ns",
	[KRDMA_HOST_CPU_A_SOFTIRQ_NS] = "softirq_ns",
	[KRDMA_HOST_CPU_A_IRQ_NS] = "irq_ns",
};

/* test-qp: krdma_test_qp_attr */
const char *const krdma_test_qp_attr_strmap[6] = {
	[KRDMA_TEST_QP_A_INDEX] = "index",
	[KRDMA_TEST_QP_A_ITERS] = "iters",
	[KRDMA_TEST_QP_A_BYTES] = "bytes",
	[KRDMA_TEST_QP_A_ELAPSED_NS] = "elapsed_ns",
};

/* addr: krdma_addr_attr */
const char *const krdma_addr_attr_strmap[5] = {
	[KRDMA_ADDR_A_IPV4] = "ipv4",
	[KRDMA_ADDR_A_IPV6] = "ipv6",
	[KRDMA_ADDR_A_PORT] = "port",
	[KRDMA_ADDR_A_SCOPE_ID] = "scope_id",
};

/* port: krdma_port_attr */
const char *const krdma_port_attr_strmap[4] = {
	[KRDMA_PORT_A_INDEX] = "index",
	[KRDMA_PORT_A_STATE] = "state",
	[KRDMA_PORT_A_ACTIVE_MTU] = "active_mtu",
};

/* lat: krdma_lat_attr */
const char *const krdma_lat_attr_strmap[12] = {
	[KRDMA_LAT_A_SAMPLES] = "samples",
	[KRDMA_LAT_A_MIN_NS] = "min_ns",
	[KRDMA_LAT_A_P50_NS] = "p50_ns",
	[KRDMA_LAT_A_P90_NS] = "p90_ns",
	[KRDMA_LAT_A_P99_NS] = "p99_ns",
	[KRDMA_LAT_A_P999_NS] = "p999_ns",
	[KRDMA_LAT_A_MAX_NS] = "max_ns",
	[KRDMA_LAT_A_AVG_NS] = "avg_ns",
	[KRDMA_LAT_A_STDEV_NS] = "stdev_ns",
	[KRDMA_LAT_A_HIST] = "hist",
};

/* hist-bucket: krdma_hist_attr */
const char *const krdma_hist_bucket_attr_strmap[5] = {
	[KRDMA_HIST_A_LO_NS] = "lo_ns",
	[KRDMA_HIST_A_HI_NS] = "hi_ns",
	[KRDMA_HIST_A_COUNT] = "count",
};

/* stats: krdma_stats_attr */
const char *const krdma_stats_attr_strmap[31] = {
	[KRDMA_STATS_A_SESSIONS_OPENED] = "sessions_opened",
	[KRDMA_STATS_A_SESSIONS_CLOSED] = "sessions_closed",
	[KRDMA_STATS_A_CONNECT_ERRORS] = "connect_errors",
	[KRDMA_STATS_A_REJECTS_SENT] = "rejects_sent",
	[KRDMA_STATS_A_TESTS_STARTED] = "tests_started",
	[KRDMA_STATS_A_TESTS_FAILED] = "tests_failed",
	[KRDMA_STATS_A_SEND_WRS] = "send_wrs",
	[KRDMA_STATS_A_RECV_WRS] = "recv_wrs",
	[KRDMA_STATS_A_WRITE_WRS] = "write_wrs",
	[KRDMA_STATS_A_READ_WRS] = "read_wrs",
	[KRDMA_STATS_A_ATOMIC_WRS] = "atomic_wrs",
	[KRDMA_STATS_A_REG_MR_WRS] = "reg_mr_wrs",
	[KRDMA_STATS_A_INV_WRS] = "inv_wrs",
	[KRDMA_STATS_A_BYTES_TX] = "bytes_tx",
	[KRDMA_STATS_A_BYTES_RX] = "bytes_rx",
	[KRDMA_STATS_A_WC_ERRORS] = "wc_errors",
	[KRDMA_STATS_A_VALIDATION_ERRORS] = "validation_errors",
	[KRDMA_STATS_A_PROTOCOL_ERRORS] = "protocol_errors",
	[KRDMA_STATS_A_SESSIONS_REFUSED] = "sessions_refused",
	[KRDMA_STATS_A_MEM_REFUSED] = "mem_refused",
	[KRDMA_STATS_A_RESPONDER_TIMEOUTS] = "responder_timeouts",
	[KRDMA_STATS_A_PEER_MEM] = "peer_mem",
	[KRDMA_STATS_A_PEER_MEM_PEAK] = "peer_mem_peak",
	[KRDMA_STATS_A_SERVER_SESSIONS] = "server_sessions",
	[KRDMA_STATS_A_SERVER_SESSIONS_PEAK] = "server_sessions_peak",
	[KRDMA_STATS_A_QP_EVENTS] = "qp_events",
	[KRDMA_STATS_A_PEER_SILENCE_MAX] = "peer_silence_max",
	[KRDMA_STATS_A_POLLERS_REFUSED] = "pollers_refused",
	[KRDMA_STATS_A_RESPONDER_POLLERS] = "responder_pollers",
};

/* krdma: the attributes that take an enum, its names */
const struct krdma_strmap krdma_attr_enums[KRDMA_A_MAX + 1] = {
	[KRDMA_A_DEV_ATOMIC_CAP] = { krdma_ib_atomic_cap_strmap, 3 },
	[KRDMA_A_SESSION_STATE] = { krdma_session_state_strmap, 5 },
	[KRDMA_A_SESSION_ROLE] = { krdma_session_role_strmap, 3 },
	[KRDMA_A_TEST_OP] = { krdma_op_strmap, 9 },
	[KRDMA_A_TEST_STATE] = { krdma_test_state_strmap, 3 },
	[KRDMA_A_EVENT] = { krdma_event_strmap, 5 },
	[KRDMA_A_TEST_MODE] = { krdma_test_mode_strmap, 4 },
	[KRDMA_A_SESSION_CQ_POLL] = { krdma_cq_poll_strmap, 5 },
	[KRDMA_A_TEST_VIOLATE] = { krdma_violation_strmap, 8 },
	[KRDMA_A_TEST_ATOMIC_VARIANT] = { krdma_atomic_variant_strmap, 3 },
};
