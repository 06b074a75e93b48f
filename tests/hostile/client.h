/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * krdma-hostile: what the client scenarios share: the ground client.c
 * lays for them, and their entry points, which its table lists.
 */
#ifndef KRDMA_HOSTILE_CLIENT_H
#define KRDMA_HOSTILE_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "hostile.h"

/* The id of the test the scenario drives. */
extern uint32_t g_test_id;
/*
 * end_after_broken_setup's test, which node 1 has fail half way
 * (tests/guest/hostile-peer.sh writes it to krdma/fail_peer_reg_test).
 */
#define BROKEN_TEST_ID	0xb40c

/* Connects with a valid hello; false (and an outcome) if refused. */
bool connect_good(const struct target *t, uint16_t rq,
		  uint32_t max_msg, uint8_t rnr_retry);
bool connected(const struct target *t);
/* TEST_REQ; returns the TEST_ACK (or NULL if none came). */
struct msg *test_req_mode(uint8_t op, uint8_t mode, uint32_t size,
			  uint32_t depth, uint32_t nregions, uint64_t count,
			  const struct region *r, uint32_t n);
struct msg *test_req(uint8_t op, uint32_t size, uint32_t depth,
		     uint32_t nregions, uint64_t count,
		     const struct region *r, uint32_t n);
struct msg *test_req_flags(uint8_t op, uint8_t mode, uint8_t flags,
			   uint32_t size, uint32_t depth, uint64_t count);
uint32_t our_ping_regions(struct region *r, uint32_t size, uint32_t depth,
			  uint32_t rkey);

/* client-hello.c: the handshake */
struct rdma_cm_id;
struct hello;
int channel_join(const struct target *t, struct hello *h, uint32_t send_wrs,
		 uint8_t resp, uint8_t init, struct rdma_cm_id **out,
		 uint8_t *got_resp, uint8_t *got_init);
struct rdma_cm_id *connect_with_channel(const struct target *t, uint16_t version,
					uint8_t *resp, uint8_t *init);
void sc_channel_few_credits(const struct target *t);
void sc_bad_magic(const struct target *t);
void sc_no_private_data(const struct target *t);
void sc_wrong_version(const struct target *t);
void sc_flags(const struct target *t);
void sc_sq_depth_0(const struct target *t);
void sc_rq_depth_0(const struct target *t);
void sc_depth_65535(const struct target *t);
void sc_max_msg_0(const struct target *t);
void sc_max_msg_huge(const struct target *t);
void sc_short_hello(const struct target *t);
void sc_hello_mem_hog(const struct target *t);
void sc_channel_no_session(const struct target *t);
void sc_channel_index_0(const struct target *t);
void sc_channels_16(const struct target *t);
void sc_session_cap(const struct target *t);

/* client-msg.c: malformed messages, bad TEST_REQs */
void sc_unknown_type(const struct target *t);
void sc_len_beyond_bytes(const struct target *t);
void sc_len_short(const struct target *t);
void sc_short_msg(const struct target *t);
void sc_hdr_flags(const struct target *t);
void sc_len_over_max(const struct target *t);
void sc_msg_too_big(const struct target *t);
void sc_unexpected_ack(const struct target *t);
void sc_write_imm_unexpected(const struct target *t);
void sc_write_imm_answer_unexpected(const struct target *t);
void sc_req_nregions_beyond(const struct target *t);
void sc_req_regions_small(const struct target *t);
void sc_req_bad_op(const struct target *t);
void sc_req_depth_huge(const struct target *t);
void sc_req_short_body(const struct target *t);

/* client-keys.c: the kernel's keys, the TEST_REQ flags out of place */
void sc_req_flags_unknown(const struct target *t);
void sc_req_read_back_read(const struct target *t);
void sc_req_invalidated_send(const struct target *t);
void sc_req_send_inv_write(const struct target *t);
void sc_req_send_inv_bw(const struct target *t);
void sc_req_zero_length_send(const struct target *t);
void sc_req_rnr_hold_write(const struct target *t);
void sc_hello_rnr_retry_8(const struct target *t);
void sc_hello_rnr_retry_v6(const struct target *t);
void sc_req_rnr_hold_short(const struct target *t);
void sc_send_inv_unasked(const struct target *t);
void sc_send_inv_wrong_key(const struct target *t);
void sc_req_region_wrap(const struct target *t);
void sc_req_rkey0(const struct target *t);
void sc_req_rkey_small(const struct target *t);

/* client-test.c: misbehaviour inside an accepted test */
void sc_send_flood(const struct target *t);
void sc_end_twice(const struct target *t);
void sc_req_during_test(const struct target *t);
void sc_end_beyond_count(const struct target *t);
void sc_end_before_ack(const struct target *t);
void sc_end_after_broken_setup(const struct target *t);
void sc_channel_msg_no_test(const struct target *t);
void sc_end_beyond_sent(const struct target *t);
void sc_ping_end_inflight(const struct target *t);
void sc_atomic_end_huge(const struct target *t);
void sc_resp_oob_after(const struct target *t);
void sc_resp_oob_before(const struct target *t);
void sc_resp_read_oob_before(const struct target *t);
void sc_resp_narrow_write_region(const struct target *t);
void sc_resp_narrow_read_region(const struct target *t);
void sc_resp_narrow_atomic_region(const struct target *t);
void sc_stale_write(const struct target *t);
void sc_stale_read(const struct target *t);
void sc_stale_atomic(const struct target *t);

/* client-spend.c: what the kernel may be made to spend */
void sc_hold(const struct target *t);
void sc_hold_bw(const struct target *t);
void sc_hold_queues(const struct target *t);
void sc_mem_per_session(const struct target *t);
void sc_mem_total(const struct target *t);
void sc_responder_stall(const struct target *t);
void sc_lat_write_silent(const struct target *t);
void sc_hold_lat_write(const struct target *t);
void sc_lat_write_cap(const struct target *t);

#endif
