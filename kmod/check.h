/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * krdma: the check mode's two halves, check.c (the driver, which holds
 * the engine's table) and check-peer.c (the responder).
 */
#ifndef _KRDMA_CHECK_H
#define _KRDMA_CHECK_H

#include "test.h"

/* check.c */
#define KRDMA_POST_SIGNAL_LAST	BIT(0)	/* the last WR asks for a completion */
#define KRDMA_POST_FENCE	BIT(1)	/* IB_SEND_FENCE on every WR */
int krdma_post_rdma(struct krdma_session *sess, struct krdma_buf *buf,
		    const struct krdma_wire_region *remote, u32 nremote,
		    enum ib_wr_opcode opcode, struct ib_cqe *cqe,
		    u32 imm, u32 sges, unsigned int flags);
int krdma_check_split_sges(struct ib_sge *sge, int n, int want);
u64 krdma_check_atomic_value(u8 op, u32 test_id, u32 s, u32 depth,
			     u32 nwords, u32 w, u64 n);

/*
 * test-zero-length: the pattern of a target no byte may reach - the
 * peer's write target of slot @n, our read slot of iteration @n. Not
 * the pattern any iteration moves, so a WR that moved data shows.
 */
static inline u64 krdma_check_canary(u32 test_id, u64 n)
{
	return ~krdma_seed(test_id, n);
}

/* check-peer.c */
u64 krdma_check_peer_bytes(const struct krdma_peer_test *pt);
bool krdma_check_peer_watched(const struct krdma_peer_test *pt);
int krdma_check_peer_setup(struct krdma_session *sess,
			   struct krdma_peer_test *pt,
			   const struct krdma_msg_test *req, u32 body_len,
			   struct krdma_msg_test *ack, u32 *ack_regions);
void krdma_check_peer_on_msg(struct krdma_session *sess,
			     struct krdma_peer_test *pt, struct krdma_recv *rx,
			     struct ib_wc *wc, const struct krdma_msg_hdr *hdr);
bool krdma_check_peer_may_end(const struct krdma_peer_test *pt);
bool krdma_check_peer_busy(const struct krdma_peer_test *pt);
void krdma_check_peer_end(struct krdma_peer_test *pt);

#endif /* _KRDMA_CHECK_H */
