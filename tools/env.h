/* SPDX-License-Identifier: GPL-2.0 */
/*
 * krdmactl: the environment a test result was measured in.
 */
#ifndef KRDMACTL_ENV_H
#define KRDMACTL_ENV_H

#include <stdint.h>

#include "nl.h"
#include "parse.h"

struct run_env {
	char kernel[65];
	char dev[64];
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
};

/* Where sysfs is: "/sys", or a tree of the unit tests' own. */
extern const char *env_sysfs_root;

/* Asks the kernel (session, device, versions) and sysfs. */
int env_collect(struct knl_ctx *c, const struct arg_val *session,
		struct run_env *e);
/* The object "env" in JSON; a line "env kernel ... peer_proto N" in text. */
void env_print(const struct run_env *e);

#endif /* KRDMACTL_ENV_H */
