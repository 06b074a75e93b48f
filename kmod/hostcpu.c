// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: the host's CPU time over a test, from the kernel's own accounting
 * (kcpustat, what /proc/stat shows), so that a result counts what the
 * test's own CPU time (test-cpu-ns) leaves out: the RDMA driver's
 * softirqs and workers, on both sides, one-sided operations included.
 */
#include <linux/cpumask.h>
#include <linux/kernel_stat.h>
#include <linux/ktime.h>
#include <net/netlink.h>
#include <uapi/linux/krdma.h>

#include "hostcpu.h"
#include "proto.h"

/**
 * krdma_host_cpu_sample() - the host's CPU counters now
 * @s: the sample
 *
 * Now: the host's counters and the clock, in @s->capacity;
 * krdma_host_cpu_since() turns the difference into capacity. CPUs that
 * come and go meanwhile are not followed: a test's figure is for the CPUs
 * online at its end.
 */
void krdma_host_cpu_sample(struct krdma_host_cpu *s)
{
	struct kernel_cpustat kc;
	int cpu;

	memset(s, 0, sizeof(*s));
	for_each_online_cpu(cpu) {
		kcpustat_cpu_fetch(&kc, cpu);
		s->user += kc.cpustat[CPUTIME_USER] + kc.cpustat[CPUTIME_NICE];
		s->system += kc.cpustat[CPUTIME_SYSTEM];
		s->softirq += kc.cpustat[CPUTIME_SOFTIRQ];
		s->irq += kc.cpustat[CPUTIME_IRQ];
	}
	s->capacity = ktime_get_ns();
}

/**
 * krdma_host_cpu_since() - what the host's CPUs did since a sample
 * @from: the sample, or all zeroes
 * @use: set to the use since
 *
 * What the host did since @from; @use is all zeroes if @from is.
 */
void krdma_host_cpu_since(const struct krdma_host_cpu *from,
			  struct krdma_host_cpu *use)
{
	struct krdma_host_cpu now;

	if (!from->capacity) {
		memset(use, 0, sizeof(*use));
		return;
	}
	krdma_host_cpu_sample(&now);
	use->capacity = (now.capacity - from->capacity) * num_online_cpus();
	/* Counters that went back (a CPU went offline) read as 0. */
	use->user = now.user > from->user ? now.user - from->user : 0;
	use->system = now.system > from->system ? now.system - from->system : 0;
	use->softirq = now.softirq > from->softirq ?
		       now.softirq - from->softirq : 0;
	use->irq = now.irq > from->irq ? now.irq - from->irq : 0;
}

/**
 * krdma_host_cpu_fill() - a host's CPU use, nested in @attr
 * @skb: the message
 * @attr: the nest, of enum krdma_host_cpu_attr's attributes
 * @use: the use; nothing is put if it is all zeroes
 *
 * Return: 0 or -EMSGSIZE.
 */
int krdma_host_cpu_fill(struct sk_buff *skb, int attr,
			const struct krdma_host_cpu *use)
{
	struct nlattr *nest;

	if (!use->capacity)
		return 0;
	nest = nla_nest_start(skb, attr);
	if (!nest ||
	    nla_put_u64_64bit(skb, KRDMA_HOST_CPU_A_CAPACITY_NS, use->capacity,
			      KRDMA_HOST_CPU_A_PAD) ||
	    nla_put_u64_64bit(skb, KRDMA_HOST_CPU_A_USER_NS, use->user,
			      KRDMA_HOST_CPU_A_PAD) ||
	    nla_put_u64_64bit(skb, KRDMA_HOST_CPU_A_SYSTEM_NS, use->system,
			      KRDMA_HOST_CPU_A_PAD) ||
	    nla_put_u64_64bit(skb, KRDMA_HOST_CPU_A_SOFTIRQ_NS, use->softirq,
			      KRDMA_HOST_CPU_A_PAD) ||
	    nla_put_u64_64bit(skb, KRDMA_HOST_CPU_A_IRQ_NS, use->irq,
			      KRDMA_HOST_CPU_A_PAD)) {
		if (nest)
			nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/**
 * krdma_host_cpu_to_wire() - the responder's figures, into TEST_RESULT
 * @use: the host's CPU use over the peer's test
 * @res: the TEST_RESULT
 */
void krdma_host_cpu_to_wire(const struct krdma_host_cpu *use,
			    struct krdma_msg_result *res)
{
	res->host_capacity = cpu_to_be64(use->capacity);
	res->host_user = cpu_to_be64(use->user);
	res->host_system = cpu_to_be64(use->system);
	res->host_softirq = cpu_to_be64(use->softirq);
	res->host_irq = cpu_to_be64(use->irq);
}

/**
 * krdma_host_cpu_from_wire() - the responder's figures, from TEST_RESULT
 * @res: the TEST_RESULT, zeroes past what an older peer sent
 * @use: set to the peer's host's CPU use (an older peer's: zeroes)
 */
void krdma_host_cpu_from_wire(const struct krdma_msg_result *res,
			      struct krdma_host_cpu *use)
{
	use->capacity = be64_to_cpu(res->host_capacity);
	use->user = be64_to_cpu(res->host_user);
	use->system = be64_to_cpu(res->host_system);
	use->softirq = be64_to_cpu(res->host_softirq);
	use->irq = be64_to_cpu(res->host_irq);
}
