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

#include "handshake.h"

/* cm.c */
int krdma_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);

#endif /* _KRDMA_CM_H */
