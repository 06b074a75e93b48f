// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Allocation failures on demand, so that a test can prove every failure
 * path of the module unwinds (as nvme's fault_inject.c does for errors).
 *
 * debugfs krdma/fail_alloc is a standard fault attribute
 * (Documentation/fault-injection/fault-injection.rst): probability,
 * interval, times, task-filter, verbose, and /proc/<pid>/fail-nth. It is
 * consulted at every allocation krdma makes itself and before every
 * object it asks of the RDMA core (PD, CQ, QP, MR), in every context:
 * netlink requests, CM handlers, completions, work items. Unlike failslab
 * it fails nothing outside the module. Only built with
 * CONFIG_FAULT_INJECTION_DEBUG_FS (the debug kernel has it).
 */
#include <linux/debugfs.h>
#include <linux/fault-inject.h>

#include "krdma.h"

static DECLARE_FAULT_ATTR(krdma_fail_alloc_attr);
static struct dentry *krdma_debugfs_dir;

bool krdma_alloc_fail(void)
{
	return should_fail(&krdma_fail_alloc_attr, 1);
}

void krdma_fault_init(void)
{
	struct dentry *attr;

	krdma_debugfs_dir = debugfs_create_dir("krdma", NULL);
	attr = fault_create_debugfs_attr("fail_alloc", krdma_debugfs_dir,
					 &krdma_fail_alloc_attr);
	if (IS_ERR(attr))
		pr_warn("krdma: no fail_alloc in debugfs: %pe\n", attr);
}

void krdma_fault_exit(void)
{
	debugfs_remove_recursive(krdma_debugfs_dir);
}
