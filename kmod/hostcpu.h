/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * krdma: what a whole host's CPUs did over a test.
 */
#ifndef KRDMA_HOSTCPU_H
#define KRDMA_HOSTCPU_H

#include <linux/types.h>

struct sk_buff;
struct krdma_msg_result;

/* Summed over the online CPUs, ns; also what TEST_RESULT carries. */
struct krdma_host_cpu {
	u64	capacity;	/* wall time x online CPUs (a use: a delta) */
	u64	user;
	u64	system;
	u64	softirq;
	u64	irq;
};

void krdma_host_cpu_sample(struct krdma_host_cpu *s);
void krdma_host_cpu_since(const struct krdma_host_cpu *from,
			  struct krdma_host_cpu *use);
int krdma_host_cpu_fill(struct sk_buff *skb, int attr,
			const struct krdma_host_cpu *use);
void krdma_host_cpu_to_wire(const struct krdma_host_cpu *use,
			    struct krdma_msg_result *res);
void krdma_host_cpu_from_wire(const struct krdma_msg_result *res,
			      struct krdma_host_cpu *use);

#endif /* KRDMA_HOSTCPU_H */
