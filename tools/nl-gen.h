/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/krdma.yaml */
/* by scripts/spec-to-c.py; make check-spec checks that it is current. */

#ifndef _KRDMA_NL_GEN_H
#define _KRDMA_NL_GEN_H

#include <netlink/attr.h>

#include <linux/krdma.h>

/* Reply policies: types and lengths (libnl checks no values). */
extern struct nla_policy krdma_policy[KRDMA_A_MAX + 1];
extern struct nla_policy krdma_host_env_policy[KRDMA_HOST_ENV_A_MAX + 1];
extern struct nla_policy krdma_host_cpu_policy[KRDMA_HOST_CPU_A_MAX + 1];
extern struct nla_policy krdma_test_qp_policy[KRDMA_TEST_QP_A_MAX + 1];
extern struct nla_policy krdma_addr_policy[KRDMA_ADDR_A_MAX + 1];
extern struct nla_policy krdma_port_policy[KRDMA_PORT_A_MAX + 1];
extern struct nla_policy krdma_lat_policy[KRDMA_LAT_A_MAX + 1];
extern struct nla_policy krdma_hist_bucket_policy[KRDMA_HIST_A_MAX + 1];
extern struct nla_policy krdma_stats_policy[KRDMA_STATS_A_MAX + 1];

/* The attributes of each reply and event, in the spec's order. */
extern const int krdma_version_get_rsp_attrs[2];
extern const int krdma_dev_get_rsp_attrs[9];
extern const int krdma_listener_add_rsp_attrs[6];
extern const int krdma_listener_get_rsp_attrs[6];
extern const int krdma_session_new_rsp_attrs[1];
extern const int krdma_session_get_rsp_attrs[26];
extern const int krdma_test_start_rsp_attrs[1];
extern const int krdma_test_get_rsp_attrs[42];
extern const int krdma_stats_get_rsp_attrs[1];
extern const int krdma_event_ntf_attrs[50];

/*
 * The names of each enum's values and each nested set's attributes, as
 * the spec writes them but with '_' for '-' (NULL where none is).
 */
extern const char *const krdma_ib_port_state_strmap[6];
extern const char *const krdma_ib_atomic_cap_strmap[3];
extern const char *const krdma_session_state_strmap[5];
extern const char *const krdma_cq_poll_strmap[5];
extern const char *const krdma_session_role_strmap[3];
extern const char *const krdma_op_strmap[9];
extern const char *const krdma_atomic_variant_strmap[3];
extern const char *const krdma_violation_strmap[8];
extern const char *const krdma_test_mode_strmap[4];
extern const char *const krdma_test_state_strmap[3];
extern const char *const krdma_event_strmap[5];
extern const char *const krdma_host_env_attr_strmap[5];
extern const char *const krdma_host_cpu_attr_strmap[7];
extern const char *const krdma_test_qp_attr_strmap[6];
extern const char *const krdma_addr_attr_strmap[5];
extern const char *const krdma_port_attr_strmap[4];
extern const char *const krdma_lat_attr_strmap[12];
extern const char *const krdma_hist_bucket_attr_strmap[5];
extern const char *const krdma_stats_attr_strmap[31];

/* A name table and its size. */
struct krdma_strmap {
	const char *const *names;
	unsigned int n;
};
/* Of each attribute of the krdma set that takes an enum, its names. */
extern const struct krdma_strmap krdma_attr_enums[KRDMA_A_MAX + 1];

#endif /* _KRDMA_NL_GEN_H */
