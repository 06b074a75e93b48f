// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: kernel-to-kernel RDMA test transport.
 *
 * Load order: devices first, so that the netlink family never answers
 * before the device list exists; unload in reverse.
 */
#include <linux/module.h>

#include "krdma.h"

static int __init krdma_init(void)
{
	int ret;

	ret = krdma_device_init();
	if (ret)
		return ret;

	ret = krdma_netlink_init();
	if (ret)
		goto err_device;

	pr_info("krdma: version %s loaded\n", KRDMA_VERSION);
	return 0;

err_device:
	krdma_device_exit();
	return ret;
}

static void __exit krdma_exit(void)
{
	krdma_netlink_exit();
	krdma_device_exit();
	pr_info("krdma: unloaded\n");
}

module_init(krdma_init);
module_exit(krdma_exit);

MODULE_AUTHOR("krdma developers");
MODULE_DESCRIPTION("Kernel-to-kernel RDMA test transport");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_VERSION(KRDMA_VERSION);
