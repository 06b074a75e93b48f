// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: kernel-to-kernel RDMA test transport.
 *
 * Load order: devices first, so that the netlink family never answers
 * before the device list exists; unload in reverse.
 */
#include <linux/module.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>

#include "test.h"

/* Session teardown and the keepalive; flushed on device removal. */
struct workqueue_struct *krdma_wq;
/*
 * The tests' watchdogs (test.c's progress, peer.c's stall): they only
 * look at a test and queue a session's close, and a completion handler
 * cancels them synchronously when it frees a test - from ib_core's
 * WQ_MEM_RECLAIM workqueues, which may only wait for work of another
 * reclaim workqueue (check_flush_dependency() WARNs otherwise: seen in
 * control.sh, a TEST_RESULT freeing the peer's test while its stall
 * timer ran).
 */
struct workqueue_struct *krdma_timer_wq;

static bool krdma_unloading;

/*
 * Listeners and sessions live in the network namespace of the request that
 * made them, and keep a pointer to it that is not counted, as kernel
 * sockets do: a counted one would keep a deleted namespace, and what is
 * in it, for as long as the module is loaded, for this exit would never
 * run. What keeps a namespace alive is the rdma_cm: each CM id counts a
 * reference (__rdma_create_id()), so while a listener or session has one
 * its namespace stays; it loses it when the RDMA device under it goes,
 * or with "listener del" / "session del". Then, once the namespace is
 * deleted, this exit ends what is left of it - a listener whose device
 * went away, a session still tearing down - and waits for their teardown,
 * the last user of @net. On unload, unregister_pernet_subsys() runs it
 * for every namespace.
 */
static void __net_exit krdma_net_exit(struct net *net)
{
	unsigned int n;

	/* Listeners first: no new sessions, then end the rest. */
	n = krdma_listeners_del_net(net);
	krdma_sessions_close_net(net, krdma_unloading ?
				 "krdma module unloading" :
				 "network namespace deleted");
	if (n && !krdma_unloading)
		pr_info("krdma: %u listener(s) of a deleted network namespace freed\n",
			n);
}

static struct pernet_operations krdma_net_ops = {
	.exit	= krdma_net_exit,
};

static int __init krdma_init(void)
{
	int ret;

	/*
	 * Not WQ_MEM_RECLAIM: krdma is on no memory reclaim path, and its
	 * teardown waits for rdma_cm's own (non-reclaim) work.
	 */
	krdma_fail_init_begin();
	krdma_wq = krdma_failable(alloc_workqueue("krdma", WQ_UNBOUND, 0));
	if (!krdma_wq) {
		ret = -ENOMEM;
		goto out;
	}
	krdma_timer_wq = krdma_failable(alloc_workqueue("krdma_timer",
							WQ_UNBOUND | WQ_MEM_RECLAIM, 0));
	if (!krdma_timer_wq) {
		destroy_workqueue(krdma_wq);
		ret = -ENOMEM;
		goto out;
	}
	/* Before the devices: their PDs can be made to fail too. */
	krdma_fault_init();
	/* Before the first session: what sessions deliver goes to the tests. */
	krdma_session_set_client(&krdma_dispatch_client);
	/* The one place a test's mode picks the engine that runs it. */
	krdma_engine_register(KRDMA_MODE_CHECK, &krdma_check_engine);
	krdma_engine_register(KRDMA_MODE_BW, &krdma_bw_engine);
	krdma_engine_register(KRDMA_MODE_LAT, &krdma_lat_engine);

	ret = krdma_device_init(krdma_sessions_close_device);
	if (ret)
		goto err_wq;

	ret = krdma_failable_int(register_pernet_subsys(&krdma_net_ops));
	if (ret)
		goto err_device;

	ret = krdma_failable_int(krdma_netlink_init());
	if (ret)
		goto err_pernet;

	krdma_fail_init_end();
	pr_info("krdma: version %s loaded\n", KRDMA_VERSION);
	return 0;

err_pernet:
	unregister_pernet_subsys(&krdma_net_ops);
err_device:
	krdma_device_exit();
err_wq:
	krdma_fault_exit();
	destroy_workqueue(krdma_timer_wq);
	destroy_workqueue(krdma_wq);
out:
	krdma_fail_init_end();
	return ret;
}

static void __exit krdma_exit(void)
{
	/* No new requests, then everything of every namespace. */
	krdma_netlink_exit();
	krdma_unloading = true;
	unregister_pernet_subsys(&krdma_net_ops);
	krdma_device_exit();
	krdma_fault_exit();
	destroy_workqueue(krdma_timer_wq);
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
