/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * krdma: what the rdma_cm files share - handshake.c's hello, reject and
 * credits for both sides (handshake.h), and cm.c's handler of a
 * connection's events, which a listener's connection requests inherit
 * (listener.c).
 */
#ifndef _KRDMA_CM_H
#define _KRDMA_CM_H

#include <rdma/rdma_cm.h>

#include "conn.h"
#include "handshake.h"

/* cm.c */
int krdma_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);

/*
 * What @id's context is, a listener or a connection: told by the tag
 * both start with, which must stay first in each.
 */
static inline enum krdma_cm_kind krdma_cm_kind_of(const struct rdma_cm_id *id)
{
	BUILD_BUG_ON(offsetof(struct krdma_listener, kind) != 0);
	BUILD_BUG_ON(offsetof(struct krdma_conn, kind) != 0);
	return *(const enum krdma_cm_kind *)id->context;
}

#endif /* _KRDMA_CM_H */
