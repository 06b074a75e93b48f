/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The kernel's wire definition, kmod/proto.h, in userspace. proto.h is
 * written for the kernel: <linux/types.h> gives userspace its __be32 and
 * __u8 but not the kernel's u8, which proto.h also uses. Here they are,
 * so that the tool packs the very structs the module reads and no wire
 * constant of its own can drift from the module's.
 */
#ifndef KRDMA_HOSTILE_PROTO_USER_H
#define KRDMA_HOSTILE_PROTO_USER_H

#include <linux/types.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;

#include "../../kmod/proto.h"
#include <linux/krdma.h>	/* enum krdma_op, enum krdma_test_mode */

#endif
