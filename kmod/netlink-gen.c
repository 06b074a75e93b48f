// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/krdma.yaml */
/* by scripts/spec-to-c.py; make check-spec checks that it is current. */

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/krdma.h>

#include "krdma_params.h"
#include "netlink-gen.h"

static struct netlink_range_validation krdma_a_timeout_ms_range = {
	.min = KRDMA_TIMEOUT_MS_MIN,
	.max = KRDMA_TIMEOUT_MS_MAX,
};

static struct netlink_range_validation krdma_a_session_max_msg_size_range = {
	.min = 1,
	.max = KRDMA_MSG_SIZE_MAX,
};

static struct netlink_range_validation krdma_a_test_size_range = {
	.min = 1,
	.max = KRDMA_MSG_SIZE_MAX,
};

static struct netlink_range_validation krdma_a_test_duration_ms_range = {
	.min = 1,
	.max = KRDMA_DURATION_MS_MAX,
};

static struct netlink_range_validation krdma_a_test_interval_ms_range = {
	.min = KRDMA_INTERVAL_MS_MIN,
	.max = KRDMA_DURATION_MS_MAX,
};

/* Common nested types */
const struct nla_policy krdma_addr_nl_policy[KRDMA_ADDR_A_SCOPE_ID + 1] = {
	[KRDMA_ADDR_A_IPV4] = NLA_POLICY_EXACT_LEN(4),
	[KRDMA_ADDR_A_IPV6] = NLA_POLICY_EXACT_LEN(16),
	[KRDMA_ADDR_A_PORT] = NLA_POLICY_MIN(NLA_U16, 1),
	[KRDMA_ADDR_A_SCOPE_ID] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* KRDMA_CMD_DEV_GET - do and dump */
static const struct nla_policy krdma_dev_get_nl_policy[KRDMA_A_DEV_NAME + 1] = {
	[KRDMA_A_DEV_NAME] = { .type = NLA_NUL_STRING, .len = 63, },
};

/* KRDMA_CMD_LISTENER_ADD - do */
static const struct nla_policy krdma_listener_add_nl_policy[KRDMA_A_SESSION_ACK_TIMEOUT + 1] = {
	[KRDMA_A_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[KRDMA_A_LOCAL_ADDR] = NLA_POLICY_NESTED(krdma_addr_nl_policy),
	[KRDMA_A_SESSION_ACK_TIMEOUT] = NLA_POLICY_MAX(NLA_U8, KRDMA_ACK_TIMEOUT_MAX),
};

/* KRDMA_CMD_LISTENER_DEL - do */
static const struct nla_policy krdma_listener_del_nl_policy[KRDMA_A_NAME + 1] = {
	[KRDMA_A_LISTENER_ID] = { .type = NLA_U32, },
	[KRDMA_A_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
};

/* KRDMA_CMD_LISTENER_GET - do and dump */
static const struct nla_policy krdma_listener_get_nl_policy[KRDMA_A_NAME + 1] = {
	[KRDMA_A_LISTENER_ID] = { .type = NLA_U32, },
	[KRDMA_A_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
};

/* KRDMA_CMD_SESSION_NEW - do */
static const struct nla_policy krdma_session_new_nl_policy[KRDMA_A_SESSION_RNR_RETRY + 1] = {
	[KRDMA_A_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[KRDMA_A_LOCAL_ADDR] = NLA_POLICY_NESTED(krdma_addr_nl_policy),
	[KRDMA_A_PEER_ADDR] = NLA_POLICY_NESTED(krdma_addr_nl_policy),
	[KRDMA_A_TIMEOUT_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &krdma_a_timeout_ms_range),
	[KRDMA_A_SESSION_SQ_DEPTH] =
		NLA_POLICY_RANGE(NLA_U32, KRDMA_QUEUE_DEPTH_MIN, KRDMA_QUEUE_DEPTH_MAX),
	[KRDMA_A_SESSION_RQ_DEPTH] =
		NLA_POLICY_RANGE(NLA_U32, KRDMA_QUEUE_DEPTH_MIN, KRDMA_QUEUE_DEPTH_MAX),
	[KRDMA_A_SESSION_MAX_MSG_SIZE] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &krdma_a_session_max_msg_size_range),
	[KRDMA_A_SESSION_QPS] = NLA_POLICY_RANGE(NLA_U32, 1, KRDMA_QPS_MAX),
	[KRDMA_A_SESSION_TOS] = { .type = NLA_U8, },
	[KRDMA_A_SESSION_ACK_TIMEOUT] = NLA_POLICY_MAX(NLA_U8, KRDMA_ACK_TIMEOUT_MAX),
	[KRDMA_A_SESSION_MAX_SGE] = NLA_POLICY_RANGE(NLA_U32, 1, KRDMA_SGE_MAX),
	[KRDMA_A_SESSION_RNR_RETRY] = NLA_POLICY_MAX(NLA_U8, 7),
};

/* KRDMA_CMD_SESSION_DEL - do */
static const struct nla_policy krdma_session_del_nl_policy[KRDMA_A_SESSION_ID + 1] = {
	[KRDMA_A_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[KRDMA_A_SESSION_ID] = { .type = NLA_U32, },
};

/* KRDMA_CMD_SESSION_GET - do and dump */
static const struct nla_policy krdma_session_get_nl_policy[KRDMA_A_SESSION_ID + 1] = {
	[KRDMA_A_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[KRDMA_A_SESSION_ID] = { .type = NLA_U32, },
};

/* KRDMA_CMD_TEST_START - do */
static const struct nla_policy krdma_test_start_nl_policy[KRDMA_A_TEST_REG_BEHIND + 1] = {
	[KRDMA_A_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[KRDMA_A_SESSION_ID] = { .type = NLA_U32, },
	[KRDMA_A_TEST_OP] = NLA_POLICY_RANGE(NLA_U8, 1, KRDMA_OP_MAX),
	[KRDMA_A_TEST_SIZE] = NLA_POLICY_FULL_RANGE(NLA_U32, &krdma_a_test_size_range),
	[KRDMA_A_TEST_COUNT] = { .type = NLA_U64, },
	[KRDMA_A_TEST_DURATION_MS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &krdma_a_test_duration_ms_range),
	[KRDMA_A_TEST_DEPTH] = NLA_POLICY_RANGE(NLA_U32, 1, KRDMA_DEPTH_MAX),
	[KRDMA_A_TEST_INTERVAL_MS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &krdma_a_test_interval_ms_range),
	[KRDMA_A_TEST_MODE] = NLA_POLICY_RANGE(NLA_U8, 1, KRDMA_MODE_MAX),
	[KRDMA_A_TEST_SIGNAL_EVERY] = NLA_POLICY_RANGE(NLA_U32, 1, KRDMA_DEPTH_MAX),
	[KRDMA_A_TEST_CHAIN] = NLA_POLICY_RANGE(NLA_U32, 1, KRDMA_CHAIN_MAX),
	[KRDMA_A_TEST_BIDIR] = NLA_POLICY_MAX(NLA_U8, 1),
	[KRDMA_A_TEST_QPS] = NLA_POLICY_RANGE(NLA_U32, 1, KRDMA_QPS_MAX),
	[KRDMA_A_TEST_RATE] = { .type = NLA_U64, },
	[KRDMA_A_TEST_BURST] = NLA_POLICY_RANGE(NLA_U32, 1, KRDMA_DEPTH_MAX),
	[KRDMA_A_TEST_VIOLATE] = NLA_POLICY_RANGE(NLA_U8, 1, KRDMA_VIOLATE_MAX),
	[KRDMA_A_TEST_ATOMIC_VARIANT] = NLA_POLICY_RANGE(NLA_U8, 1, KRDMA_ATOMIC_MAX),
	[KRDMA_A_TEST_SGES] = NLA_POLICY_RANGE(NLA_U32, 1, KRDMA_SGE_MAX),
	[KRDMA_A_TEST_READ_BACK] = NLA_POLICY_MAX(NLA_U8, 1),
	[KRDMA_A_TEST_SEND_INVALIDATE] = NLA_POLICY_MAX(NLA_U8, 1),
	[KRDMA_A_TEST_ZERO_LENGTH] = NLA_POLICY_MAX(NLA_U8, 1),
	[KRDMA_A_TEST_RNR_HOLD] = NLA_POLICY_MAX(NLA_U8, 1),
	[KRDMA_A_TEST_ZERO_READ_BEHIND] = NLA_POLICY_MAX(NLA_U8, 1),
	[KRDMA_A_TEST_REG_BEHIND] = NLA_POLICY_MAX(NLA_U8, 1),
};

/* KRDMA_CMD_TEST_STOP - do */
static const struct nla_policy krdma_test_stop_nl_policy[KRDMA_A_TEST_ID + 1] = {
	[KRDMA_A_TEST_ID] = { .type = NLA_U32, },
};

/* KRDMA_CMD_TEST_GET - do and dump */
static const struct nla_policy krdma_test_get_nl_policy[KRDMA_A_TEST_ID + 1] = {
	[KRDMA_A_TEST_ID] = { .type = NLA_U32, },
};

/* Ops table for krdma */
const struct genl_ops krdma_nl_ops[13] = {
	{
		.cmd		= KRDMA_CMD_VERSION_GET,
		.doit		= krdma_nl_version_get_doit,
	},
	{
		.cmd		= KRDMA_CMD_DEV_GET,
		.doit		= krdma_nl_dev_get_doit,
		.dumpit		= krdma_nl_dev_get_dumpit,
		.policy		= krdma_dev_get_nl_policy,
		.maxattr	= KRDMA_A_DEV_NAME,
	},
	{
		.cmd		= KRDMA_CMD_LISTENER_ADD,
		.doit		= krdma_nl_listener_add_doit,
		.policy		= krdma_listener_add_nl_policy,
		.maxattr	= KRDMA_A_SESSION_ACK_TIMEOUT,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= KRDMA_CMD_LISTENER_DEL,
		.doit		= krdma_nl_listener_del_doit,
		.policy		= krdma_listener_del_nl_policy,
		.maxattr	= KRDMA_A_NAME,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= KRDMA_CMD_LISTENER_GET,
		.doit		= krdma_nl_listener_get_doit,
		.dumpit		= krdma_nl_listener_get_dumpit,
		.policy		= krdma_listener_get_nl_policy,
		.maxattr	= KRDMA_A_NAME,
	},
	{
		.cmd		= KRDMA_CMD_SESSION_NEW,
		.doit		= krdma_nl_session_new_doit,
		.policy		= krdma_session_new_nl_policy,
		.maxattr	= KRDMA_A_SESSION_RNR_RETRY,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= KRDMA_CMD_SESSION_DEL,
		.doit		= krdma_nl_session_del_doit,
		.policy		= krdma_session_del_nl_policy,
		.maxattr	= KRDMA_A_SESSION_ID,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= KRDMA_CMD_SESSION_GET,
		.doit		= krdma_nl_session_get_doit,
		.dumpit		= krdma_nl_session_get_dumpit,
		.policy		= krdma_session_get_nl_policy,
		.maxattr	= KRDMA_A_SESSION_ID,
	},
	{
		.cmd		= KRDMA_CMD_TEST_START,
		.doit		= krdma_nl_test_start_doit,
		.policy		= krdma_test_start_nl_policy,
		.maxattr	= KRDMA_A_TEST_REG_BEHIND,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= KRDMA_CMD_TEST_STOP,
		.doit		= krdma_nl_test_stop_doit,
		.policy		= krdma_test_stop_nl_policy,
		.maxattr	= KRDMA_A_TEST_ID,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= KRDMA_CMD_TEST_GET,
		.doit		= krdma_nl_test_get_doit,
		.dumpit		= krdma_nl_test_get_dumpit,
		.policy		= krdma_test_get_nl_policy,
		.maxattr	= KRDMA_A_TEST_ID,
	},
	{
		.cmd		= KRDMA_CMD_STATS_GET,
		.doit		= krdma_nl_stats_get_doit,
	},
	{
		.cmd		= KRDMA_CMD_STATS_RESET,
		.doit		= krdma_nl_stats_reset_doit,
		.flags		= GENL_ADMIN_PERM,
	},
};

const struct genl_multicast_group krdma_nl_mcgrps[1] = {
	[KRDMA_NLGRP_EVENTS] = { .name = KRDMA_MCGRP_EVENTS, },
};

/* test-start: the attributes that only some test modes take */
const struct krdma_mode_attr krdma_test_mode_attrs[15] = {
	{
		.attr		= KRDMA_A_TEST_SIGNAL_EVERY,
		.type		= NLA_U32,
		.modes		= KRDMA_A_TEST_SIGNAL_EVERY_MODES,
		.has_default	= true,
		.dflt		= KRDMA_A_TEST_SIGNAL_EVERY_DEFAULT,
		.refusal	= "signal-every is for the bw and lat modes",
	},
	{
		.attr		= KRDMA_A_TEST_CHAIN,
		.type		= NLA_U32,
		.modes		= KRDMA_A_TEST_CHAIN_MODES,
		.has_default	= true,
		.dflt		= KRDMA_A_TEST_CHAIN_DEFAULT,
		.refusal	= "chain is for the bw and lat modes",
	},
	{
		.attr		= KRDMA_A_TEST_BIDIR,
		.type		= NLA_U8,
		.modes		= KRDMA_A_TEST_BIDIR_MODES,
		.has_default	= true,
		.dflt		= KRDMA_A_TEST_BIDIR_DEFAULT,
		.refusal	= "bidir is for the bw mode",
	},
	{
		.attr		= KRDMA_A_TEST_QPS,
		.type		= NLA_U32,
		.modes		= KRDMA_A_TEST_QPS_MODES,
		.has_default	= true,
		.dflt		= KRDMA_A_TEST_QPS_DEFAULT,
		.refusal	= "qps is for the bw mode",
	},
	{
		.attr		= KRDMA_A_TEST_RATE,
		.type		= NLA_U64,
		.modes		= KRDMA_A_TEST_RATE_MODES,
		.refusal	= "rate is for the bw mode",
	},
	{
		.attr		= KRDMA_A_TEST_BURST,
		.type		= NLA_U32,
		.modes		= KRDMA_A_TEST_BURST_MODES,
		.refusal	= "burst is for the bw mode",
	},
	{
		.attr		= KRDMA_A_TEST_VIOLATE,
		.type		= NLA_U8,
		.modes		= KRDMA_A_TEST_VIOLATE_MODES,
		.refusal	= "violate is for the check mode",
	},
	{
		.attr		= KRDMA_A_TEST_ATOMIC_VARIANT,
		.type		= NLA_U8,
		.modes		= KRDMA_A_TEST_ATOMIC_VARIANT_MODES,
		.refusal	= "atomic-variant is for the check mode",
	},
	{
		.attr		= KRDMA_A_TEST_SGES,
		.type		= NLA_U32,
		.modes		= KRDMA_A_TEST_SGES_MODES,
		.refusal	= "sges is for the check mode",
	},
	{
		.attr		= KRDMA_A_TEST_READ_BACK,
		.type		= NLA_U8,
		.modes		= KRDMA_A_TEST_READ_BACK_MODES,
		.has_default	= true,
		.dflt		= KRDMA_A_TEST_READ_BACK_DEFAULT,
		.refusal	= "read-back is for the check mode",
	},
	{
		.attr		= KRDMA_A_TEST_SEND_INVALIDATE,
		.type		= NLA_U8,
		.modes		= KRDMA_A_TEST_SEND_INVALIDATE_MODES,
		.has_default	= true,
		.dflt		= KRDMA_A_TEST_SEND_INVALIDATE_DEFAULT,
		.refusal	= "send-invalidate is for the check mode",
	},
	{
		.attr		= KRDMA_A_TEST_ZERO_LENGTH,
		.type		= NLA_U8,
		.modes		= KRDMA_A_TEST_ZERO_LENGTH_MODES,
		.has_default	= true,
		.dflt		= KRDMA_A_TEST_ZERO_LENGTH_DEFAULT,
		.refusal	= "zero-length is for the check mode",
	},
	{
		.attr		= KRDMA_A_TEST_RNR_HOLD,
		.type		= NLA_U8,
		.modes		= KRDMA_A_TEST_RNR_HOLD_MODES,
		.has_default	= true,
		.dflt		= KRDMA_A_TEST_RNR_HOLD_DEFAULT,
		.refusal	= "rnr-hold is for the check mode",
	},
	{
		.attr		= KRDMA_A_TEST_ZERO_READ_BEHIND,
		.type		= NLA_U8,
		.modes		= KRDMA_A_TEST_ZERO_READ_BEHIND_MODES,
		.has_default	= true,
		.dflt		= KRDMA_A_TEST_ZERO_READ_BEHIND_DEFAULT,
		.refusal	= "zero-read-behind is for the check mode",
	},
	{
		.attr		= KRDMA_A_TEST_REG_BEHIND,
		.type		= NLA_U8,
		.modes		= KRDMA_A_TEST_REG_BEHIND_MODES,
		.has_default	= true,
		.dflt		= KRDMA_A_TEST_REG_BEHIND_DEFAULT,
		.refusal	= "reg-behind is for the check mode",
	},
};
