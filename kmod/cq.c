// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: where a session's completions run (module parameter cq_poll).
 *
 * The handlers allocate with GFP_KERNEL, register memory and may stop a
 * kernel thread, so they need process context: a softirq CQ
 * (IB_POLL_SOFTIRQ) is not offered. The choice is between
 *
 *   workqueue  IB_POLL_WORKQUEUE: the core's per-CPU ib-comp-wq, on the
 *              CPU the completion interrupt (for rxe: its tasklet or
 *              work) came on. The default (Documentation/design.rst).
 *   unbound    IB_POLL_UNBOUND_WORKQUEUE: any CPU the scheduler picks.
 *   direct     IB_POLL_DIRECT, polled by a kernel thread per session
 *              ("krdma_cq/ID") that spins while there is work and for a
 *              while after, then sleeps 50-100 us between polls: the
 *              lowest latency, at the price of a CPU per busy session.
 *
 * A session keeps the context it was created with; the parameter applies
 * to new sessions.
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/string.h>

#include "krdma.h"

/* Completions handled per poll, as the core's own pollers do. */
#define KRDMA_CQ_BUDGET		64
/* Empty polls before the poller starts sleeping between polls. */
#define KRDMA_CQ_SPIN		4096

static const char *const krdma_cq_poll_names[] = {
	[KRDMA_CQ_POLL_WORKQUEUE]	= "workqueue",
	[KRDMA_CQ_POLL_UNBOUND]		= "unbound",
	[KRDMA_CQ_POLL_DIRECT]		= "direct",
};

static unsigned int krdma_cq_poll = KRDMA_CQ_POLL_WORKQUEUE;

static int krdma_cq_poll_set(const char *val, const struct kernel_param *kp)
{
	unsigned int i;

	for (i = KRDMA_CQ_POLL_WORKQUEUE; i < ARRAY_SIZE(krdma_cq_poll_names); i++) {
		if (sysfs_streq(val, krdma_cq_poll_names[i])) {
			WRITE_ONCE(krdma_cq_poll, i);
			return 0;
		}
	}
	return -EINVAL;
}

static int krdma_cq_poll_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", krdma_cq_poll_names[READ_ONCE(krdma_cq_poll)]);
}

static const struct kernel_param_ops krdma_cq_poll_ops = {
	.set	= krdma_cq_poll_set,
	.get	= krdma_cq_poll_get,
};

module_param_cb(cq_poll, &krdma_cq_poll_ops, NULL, 0644);
MODULE_PARM_DESC(cq_poll,
		 "Where new sessions handle completions: workqueue (default), unbound or direct");

static int krdma_cq_poller(void *arg)
{
	struct krdma_session *sess = arg;
	unsigned int idle = 0;

	while (!kthread_should_stop()) {
		if (ib_process_cq_direct(sess->cq, KRDMA_CQ_BUDGET)) {
			idle = 0;
			cond_resched();
		} else if (++idle < KRDMA_CQ_SPIN) {
			if (idle % 64)
				cpu_relax();
			else
				cond_resched();
		} else {
			usleep_range(50, 100);
		}
	}
	return 0;
}

/* The session's CQ in the context cq_poll says; sess->cq_poll records it. */
int krdma_cq_create(struct krdma_session *sess, u32 nr_cqe)
{
	static const enum ib_poll_context ctx[] = {
		[KRDMA_CQ_POLL_WORKQUEUE]	= IB_POLL_WORKQUEUE,
		[KRDMA_CQ_POLL_UNBOUND]		= IB_POLL_UNBOUND_WORKQUEUE,
		[KRDMA_CQ_POLL_DIRECT]		= IB_POLL_DIRECT,
	};
	struct task_struct *t;
	struct ib_cq *cq;

	sess->cq_poll = READ_ONCE(krdma_cq_poll);
	cq = krdma_failable_ptr(ib_alloc_cq(sess->kdev->ibdev, sess, nr_cqe, 0,
					    ctx[sess->cq_poll]));
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	sess->cq = cq;
	if (sess->cq_poll != KRDMA_CQ_POLL_DIRECT)
		return 0;
	t = krdma_failable_ptr(kthread_create(krdma_cq_poller, sess, "krdma_cq/%u",
					      sess->id));
	if (IS_ERR(t))
		return PTR_ERR(t);	/* the caller frees the CQ */
	sess->cq_poller = t;
	wake_up_process(t);
	return 0;
}

/*
 * No completion is handled after this but by ib_drain_qp(), which polls a
 * direct CQ itself and must be its only poller.
 */
void krdma_cq_stop(struct krdma_session *sess)
{
	if (sess->cq_poller) {
		kthread_stop(sess->cq_poller);
		sess->cq_poller = NULL;
	}
}
