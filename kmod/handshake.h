/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * krdma: the connection handshake (handshake.c), which both sides of
 * rdma_cm use: the hello in the CM private data, rejects and their
 * reasons, and the READ/atomic credits of the connection parameters.
 */
#ifndef _KRDMA_HANDSHAKE_H
#define _KRDMA_HANDSHAKE_H

#include <rdma/rdma_cm.h>

#include "krdma.h"

u8 krdma_ack_timeout_val(u8 asked);
int krdma_cm_set_timers(struct rdma_cm_id *id, u8 ack_timeout);
u8 krdma_max_rd_atom(struct krdma_device *kdev);
u8 krdma_max_init_rd_atom(struct krdma_device *kdev);
void krdma_fill_hello(struct krdma_session *sess, struct krdma_cm_hello *hello);
int krdma_check_hello(const void *data, u8 len, struct krdma_cm_hello *out);
void krdma_versions(char *buf, size_t len, const char *who, __be16 v);
__be16 krdma_hello_version(const void *data);
void krdma_take_peer_hello(struct krdma_session *sess,
			   const struct krdma_cm_hello *h);
void krdma_reject(struct rdma_cm_id *id, enum krdma_reject_reason reason);
const char *krdma_reject_reason(u16 reason);
void krdma_conn_credits(struct krdma_device *kdev,
			const struct rdma_cm_event *ev, u8 *rr, u8 *id);
void krdma_fill_conn_param(struct rdma_conn_param *param,
			   struct krdma_cm_hello *hello,
			   u8 responder_resources, u8 initiator_depth,
			   u8 rnr_retry);

#endif /* _KRDMA_HANDSHAKE_H */
