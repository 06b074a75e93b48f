/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * krdma: kernel-to-kernel RDMA test transport - internal interfaces.
 */
#ifndef _KRDMA_H
#define _KRDMA_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

#define KRDMA_VERSION "0.1.0"

struct genl_info;
struct netlink_callback;
struct sk_buff;

/*
 * One RDMA device seen by the ib_client. Sessions hold a reference; the
 * protection domain lives as long as the device stays registered.
 */
struct krdma_device {
	struct list_head	node;	/* on krdma_devices, under krdma_devices_lock */
	struct kref		ref;
	struct ib_device	*ibdev;
	struct ib_pd		*pd;
};

/* device.c */
int krdma_device_init(void);
void krdma_device_exit(void);
struct krdma_device *krdma_device_get(struct ib_device *ibdev);
void krdma_device_put(struct krdma_device *kdev);
int krdma_device_fill(struct sk_buff *skb, struct ib_device *ibdev);
int krdma_device_nl_get(struct sk_buff *skb, struct genl_info *info);
int krdma_device_nl_dump(struct sk_buff *skb, struct netlink_callback *cb);

/* netlink.c */
int krdma_netlink_init(void);
void krdma_netlink_exit(void);
void *krdma_genlmsg_put(struct sk_buff *skb, u32 portid, u32 seq, int flags,
			u8 cmd);
struct sk_buff *krdma_genlmsg_new_reply(struct genl_info *info, u8 cmd,
					void **hdr);

#endif /* _KRDMA_H */
