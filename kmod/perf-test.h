/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * krdma: what the bw and lat engines share (perf-test.c): a test bound to
 * its pipeline (perf.h) - our test's half (krdma_perf_test_*) and the
 * peer's (krdma_perf_peer_*) set up, started, reported and ended, and the
 * struct krdma_perf_ops the pipeline calls up with. The one place where
 * the pipeline meets test.c and peer.c.
 */
#ifndef _KRDMA_PERF_TEST_H
#define _KRDMA_PERF_TEST_H

#include "perf.h"
#include "test.h"

int krdma_perf_check_params(struct krdma_session *sess,
			    struct krdma_test_params *p, u32 wrs,
			    struct netlink_ext_ack *extack);
u32 krdma_perf_nchunks(struct krdma_session *sess,
		       const struct krdma_test_params *p);

/* Our test: the driver's half. */
struct krdma_perf *krdma_perf_test_setup(struct krdma_test *test,
					 void (*flags)(struct krdma_perf *pf));
int krdma_perf_test_post_regs(struct krdma_test *test,
			      struct krdma_msg_test *req, u32 *nregions);
int krdma_perf_test_start(struct krdma_test *test);
void krdma_perf_test_start_failed(struct krdma_test *test, int ret);
void krdma_perf_test_unexpected(struct krdma_test *test, u16 type);
int krdma_perf_test_fill(struct sk_buff *skb, struct krdma_test *test);
void krdma_perf_test_finish(struct krdma_test *test);
void krdma_perf_test_free(struct krdma_test *test);

/* The peer's test: the responder's half. */
struct krdma_perf *krdma_perf_peer_alloc(struct krdma_session *sess,
					 struct krdma_peer_test *pt);
struct krdma_perf *krdma_perf_peer_alloc_qps(struct krdma_session *sess,
					     struct krdma_peer_test *pt, u32 qps);
int krdma_perf_peer_target(struct krdma_perf *pf, int access);
int krdma_perf_peer_publish(struct krdma_perf *pf, int access,
			    struct krdma_msg_test *ack, u32 *nregions);
bool krdma_perf_peer_recv(struct krdma_session *sess,
			  struct krdma_peer_test *pt, struct krdma_recv *rx,
			  struct ib_wc *wc, const struct krdma_msg_hdr *hdr);
void krdma_perf_peer_end(struct krdma_peer_test *pt);
u64 krdma_perf_peer_cpu_ns(const struct krdma_peer_test *pt);
void krdma_perf_peer_free(struct krdma_peer_test *pt);

#endif /* _KRDMA_PERF_TEST_H */
