/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * krdma: the host and device a session runs on - what a responder tells
 * its driver in TEST_RESULT (protocol version 4), for the result's env.
 */
#ifndef KRDMA_HOSTENV_H
#define KRDMA_HOSTENV_H

#include <linux/types.h>

#include "proto.h"

struct sk_buff;
struct krdma_session;

struct krdma_host_env {
	bool	valid;			/* sampled, or read from the peer */
	u32	link_mbit_per_s;	/* 0 unknown */
	u8	link_width;		/* lanes; 0 unknown */
	char	host[KRDMA_ENV_HOST_LEN + 1];
	char	fw_ver[KRDMA_ENV_FW_LEN + 1];
};

void krdma_host_env_sample(struct krdma_session *sess,
			   struct krdma_host_env *e);
void krdma_host_env_to_wire(const struct krdma_host_env *e,
			    struct krdma_msg_result *res);
int krdma_host_env_from_wire(const struct krdma_msg_result *res,
			     struct krdma_host_env *e);
int krdma_host_env_fill(struct sk_buff *skb, int attr,
			const struct krdma_host_env *e);

#endif /* KRDMA_HOSTENV_H */
