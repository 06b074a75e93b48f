// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: kernel-to-kernel RDMA test transport.
 *
 * Load order: devices first, so that the netlink family never answers
 * before the device list exists; unload in reverse.
 */
#include <linux/module.h>
#include <linux/workqueue.h>

#include "krdma.h"

/* Session teardown and test progress; flushed on device removal. */
struct workqueue_struct *krdma_wq;

static int __init krdma_init(void)
{
	int ret;

	/*
	 * Not WQ_MEM_RECLAIM: krdma is on no memory reclaim path, and its
	 * teardown waits for rdma_cm's own (non-reclaim) work.
	 */
	krdma_wq = alloc_workqueue("krdma", WQ_UNBOUND, 0);
	if (!krdma_wq)
		return -ENOMEM;
	/* Before the devices: their PDs can be made to fail too. */
	krdma_fault_init();

	ret = krdma_device_init();
	if (ret)
		goto err_wq;

	ret = krdma_netlink_init();
	if (ret)
		goto err_device;

	pr_info("krdma: version %s loaded\n", KRDMA_VERSION);
	return 0;

err_device:
	krdma_device_exit();
err_wq:
	krdma_fault_exit();
	destroy_workqueue(krdma_wq);
	return ret;
}

static void __exit krdma_exit(void)
{
	/* No new requests, then no new connections, then end the rest. */
	krdma_netlink_exit();
	krdma_listeners_del_all();
	krdma_sessions_close_all();
	krdma_device_exit();
	krdma_fault_exit();
	destroy_workqueue(krdma_wq);
	pr_info("krdma: unloaded\n");
}

module_init(krdma_init);
module_exit(krdma_exit);

MODULE_AUTHOR("krdma developers");
MODULE_DESCRIPTION("Kernel-to-kernel RDMA test transport");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_VERSION(KRDMA_VERSION);
/*
 * The RDMA CM and the verbs core are symbol dependencies already; the
 * softdep says so in modinfo, for a modprobe.d or initramfs tool that
 * reads it rather than modules.dep.
 */
MODULE_SOFTDEP("pre: rdma_cm ib_core");
