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
 *   direct     IB_POLL_DIRECT, polled by a kernel thread per CQ
 *              ("krdma_cq/ID", or "krdma_cq/ID.N" for data channel N)
 *              that spins while there is work and for a while after,
 *              then sleeps 50-100 us between polls: the lowest latency,
 *              at the price of a CPU per busy QP.
 *   softirq    IB_POLL_SOFTIRQ for the data channels' CQs (conns.c),
 *              whose completions are only bw messages and their
 *              receives, under spinlocks: handled
 *              in the softirq that the completion interrupt raises, with
 *              no context switch. The session's own CQ stays on the
 *              workqueue: its handlers allocate, register memory and send
 *              netlink events, which may sleep.
 *
 * A session keeps the context it was created with, for all its CQs; the
 * parameter applies to new sessions.
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/string.h>

#include "conn.h"
#include "krdma.h"

/* Completions handled per poll, as the core's own pollers do. */
#define KRDMA_CQ_BUDGET		64
/* Empty polls before the poller starts sleeping between polls. */
#define KRDMA_CQ_SPIN		4096

static const char *const krdma_cq_poll_names[] = {
	[KRDMA_CQ_POLL_WORKQUEUE]	= "workqueue",
	[KRDMA_CQ_POLL_UNBOUND]		= "unbound",
	[KRDMA_CQ_POLL_DIRECT]		= "direct",
	[KRDMA_CQ_POLL_SOFTIRQ]		= "softirq",
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
		 "Where new sessions handle completions: workqueue (default), unbound, direct or softirq (data channels only)");

static int krdma_cq_poller(void *arg)
{
	struct ib_cq *cq = arg;
	unsigned int idle = 0;

	while (!kthread_should_stop()) {
		if (ib_process_cq_direct(cq, KRDMA_CQ_BUDGET)) {
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

/**
 * krdma_cq_create() - a CQ of a session's connection
 * @sess: the session
 * @cq: where it goes
 * @nr_cqe: its entries
 * @comp_vector: its completion vector
 * @data_only: a data channel's, whose handlers never sleep
 * @name: names the poller thread
 *
 * In the context cq_poll said when the session's first CQ was made
 * (sess->cq_poll records it). On failure the caller frees @cq.
 *
 * Return: 0 or a negative errno.
 */
int krdma_cq_create(struct krdma_session *sess, struct krdma_cq *cq,
		    u32 nr_cqe, int comp_vector, bool data_only,
		    const char *name)
{
	static const enum ib_poll_context ctx[] = {
		[KRDMA_CQ_POLL_WORKQUEUE]	= IB_POLL_WORKQUEUE,
		[KRDMA_CQ_POLL_UNBOUND]		= IB_POLL_UNBOUND_WORKQUEUE,
		[KRDMA_CQ_POLL_DIRECT]		= IB_POLL_DIRECT,
		[KRDMA_CQ_POLL_SOFTIRQ]		= IB_POLL_WORKQUEUE,
	};
	struct ib_device *ibdev = sess->kdev->ibdev;
	enum ib_poll_context poll;
	struct task_struct *t;
	struct ib_cq *ib;

	if (!sess->cq_poll)
		sess->cq_poll = READ_ONCE(krdma_cq_poll);
	poll = ctx[sess->cq_poll];
	if (sess->cq_poll == KRDMA_CQ_POLL_SOFTIRQ && data_only)
		poll = IB_POLL_SOFTIRQ;
	ib = krdma_failable_ptr(ib_alloc_cq(ibdev, sess, nr_cqe,
					    comp_vector % ibdev->num_comp_vectors,
					    poll));
	if (IS_ERR(ib))
		return PTR_ERR(ib);
	cq->ib = ib;
	cq->softirq = poll == IB_POLL_SOFTIRQ;
	if (sess->cq_poll != KRDMA_CQ_POLL_DIRECT)
		return 0;
	t = krdma_failable_ptr(kthread_create(krdma_cq_poller, ib, "krdma_cq/%s",
					      name));
	if (IS_ERR(t))
		return PTR_ERR(t);
	cq->poller = t;
	wake_up_process(t);
	return 0;
}

/**
 * krdma_cq_stop() - no completion is handled any more but by the drain
 * @cq: the CQ
 *
 * No completion is handled after this but by ib_drain_qp(), which polls a
 * direct CQ itself and must be its only poller.
 */
void krdma_cq_stop(struct krdma_cq *cq)
{
	if (cq->poller) {
		kthread_stop(cq->poller);
		cq->poller = NULL;
	}
}

/**
 * krdma_cq_free() - frees a CQ
 * @cq: the CQ
 *
 * Once no QP uses it any more.
 */
void krdma_cq_free(struct krdma_cq *cq)
{
	krdma_cq_stop(cq);
	if (cq->ib) {
		ib_free_cq(cq->ib);
		cq->ib = NULL;
	}
}
