/* SPDX-License-Identifier: GPL-2.0 */
/*
 * krdmactl: the environment a test result was measured in.
 */
#ifndef KRDMACTL_ENV_H
#define KRDMACTL_ENV_H

#include <stdbool.h>
#include <stdint.h>

#include "nl.h"
#include "parse.h"

struct run_env {
	char timestamp[32];	/* RFC 3339 UTC, when it was collected */
	char host[65];
	char kernel[65];
	char dev[64];
	char fw_ver[64];
	uint64_t link_mbit;	/* the port's rate, 10^6 bits/s; 0 unknown */
	uint32_t link_width;	/* lanes (4 of "4X"); 0 unknown */
	uint32_t port;
	char transport[8];	/* ib, roce, iwarp */
	uint32_t active_mtu;
	char netdev[32];
	uint32_t netdev_mtu;
	char cq_poll[16];
	char governor[32];
	char idle[32];
	char module[32];
	uint32_t peer_proto;
	uint32_t ack_timeout;	/* the session's, in effect; 0 unknown */
	/* The peer's own, from a test's result (its protocol version 4):
	 * the host name, its device's firmware, its port's link. */
	bool peer_reported;
	char peer_host[65];
	char peer_fw_ver[64];
	uint64_t peer_link_mbit;
	uint32_t peer_link_width;
};

/* Where sysfs is: "/sys", or a tree of the unit tests' own. */
extern const char *env_sysfs_root;

/*
 * A port's sysfs rate, "100 Gb/sec (4X EDR)" or "2.5 Gb/sec (1X SDR)":
 * its 10^6 bits/s and lanes. -EINVAL if it is not of that form.
 */
int env_parse_rate(const char *s, uint64_t *mbit, uint32_t *width);

/*
 * For each_nested() over a device's ports (@arg a struct run_env): the
 * active MTU and index of its first active port, into @arg's.
 */
void env_dev_port(struct nlattr **p, void *arg);

/* Whether RDMA device @dev is an iWARP RNIC (its sysfs node_type). */
bool env_dev_iwarp(const char *dev);

/* Asks the kernel (session, device, versions) and sysfs; the time, the
 * host's name. */
int env_collect(struct knl_ctx *c, const struct arg_val *session,
		struct run_env *e);
/* The peer's host, firmware and link from a result's test-peer-env
 * (@nest, NULL if the peer did not report them), if not taken yet. */
void env_take_peer(struct run_env *e, const struct nlattr *nest);
/* The object "env" in JSON; a line "env timestamp ... peer_link_width W"
 * in text. */
void env_print(const struct run_env *e);

#endif /* KRDMACTL_ENV_H */
