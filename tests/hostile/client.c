// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma-hostile: the table of the client scenarios, which connect to a
 * krdma listener and misbehave as its session's peer, and the ground they
 * share: a session up with a valid hello, the TEST_REQ that opens a test.
 * client-hello.c, client-msg.c, client-test.c and client-spend.c play them.
 */
#define _GNU_SOURCE

#include "hostile.h"
#include "verbs.h"
#include "client.h"

bool connect_good(const struct target *t, uint16_t rq,
		  uint32_t max_msg, uint8_t rnr_retry)
{
	struct hello h;
	uint8_t hb[HELLO_LEN];

	good_hello(&h);
	h.rq = rq;
	h.max_msg = max_msg;
	hello_pack(hb, &h);
	if (!client_connect(t->addr, t->port, hb, HELLO_LEN, rnr_retry)) {
		outcome(false, "error", "a valid hello was not accepted (reject reason %d)",
			P.reject_reason);
		return false;
	}
	/*
	 * We are established once we sent the RTU; give the kernel's CM time
	 * to see it, so that what follows meets an up session (a session
	 * closed before that can only REJ, which our CM ignores).
	 */
	{
		int64_t end = now_ms() + 500;

		while (now_ms() < end && !P.disconnected)
			poll_some();
	}
	return true;
}

/* The session most scenarios start from: max_msg 4 KiB. */
bool connected(const struct target *t)
{
	return connect_good(t, NRECV, 4096, 7);
}

uint32_t g_test_id = 0x4057;

/* TEST_REQ of @mode (0: none, which a krdma peer takes for check). */
static struct msg *test_req_full(uint8_t op, uint8_t mode, uint8_t flags,
				 uint32_t size, uint32_t depth, uint32_t nregions,
				 uint64_t count, const struct region *r, uint32_t n)
{
	uint8_t b[CTRL_BODY_MAX];
	uint32_t len = test_body(b, op, size, depth, nregions, count, r, n);

	b[offsetof(struct krdma_msg_test, mode)] = mode;
	b[offsetof(struct krdma_msg_test, flags)] = flags;
	if (send_msg(KRDMA_MSG_TEST_REQ, g_test_id, 0, 0, b, len))
		die("cannot send TEST_REQ");
	return wait_msg(KRDMA_MSG_TEST_ACK, P.tmo_ms);
}

struct msg *test_req_mode(uint8_t op, uint8_t mode, uint32_t size,
			  uint32_t depth, uint32_t nregions, uint64_t count,
			  const struct region *r, uint32_t n)
{
	return test_req_full(op, mode, 0, size, depth, nregions, count, r, n);
}

/* A TEST_REQ of no regions with @flags (KRDMA_TEST_F_*); its TEST_ACK. */
struct msg *test_req_flags(uint8_t op, uint8_t mode, uint8_t flags,
			   uint32_t size, uint32_t depth, uint64_t count)
{
	return test_req_full(op, mode, flags, size, depth, 0, count, NULL, 0);
}

/* TEST_REQ; returns the TEST_ACK (or NULL if none came). */
struct msg *test_req(uint8_t op, uint32_t size, uint32_t depth,
		     uint32_t nregions, uint64_t count,
		     const struct region *r, uint32_t n)
{
	return test_req_mode(op, 0, size, depth, nregions, count, r, n);
}

/* Our memory for a ping: sources then sinks, one region a slot. */
uint32_t our_ping_regions(struct region *r, uint32_t size, uint32_t depth,
			  uint32_t rkey)
{
	for (uint32_t s = 0; s < 2 * depth; s++) {
		r[s].addr = (uintptr_t)(P.data + (size_t)s * size);
		r[s].rkey = rkey;
		r[s].len = size;
	}
	return 2 * depth;
}

const struct scenario client_scenarios[] = {
	{ "bad_magic", CLIENT, "hello with a wrong magic: reject 1", sc_bad_magic },
	{ "no_private_data", CLIENT, "no hello at all: reject 1", sc_no_private_data },
	{ "wrong_version", CLIENT, "hello of version 8 (newer than the module's): reject 2",
	  sc_wrong_version },
	{ "flags", CLIENT, "hello with flags set: reject 3", sc_flags },
	{ "hello_rnr_retry_8", CLIENT, "hello asking RNR retry count 8: reject 3",
	  sc_hello_rnr_retry_8 },
	{ "hello_rnr_retry_v6", CLIENT,
	  "version 6 hello with the RNR retry flag: reject 3", sc_hello_rnr_retry_v6 },
	{ "sq_depth_0", CLIENT, "send queue depth 0: reject 3", sc_sq_depth_0 },
	{ "rq_depth_0", CLIENT, "receive queue depth 0: reject 3", sc_rq_depth_0 },
	{ "depth_65535", CLIENT, "queue depths 65535: reject 3", sc_depth_65535 },
	{ "max_msg_0", CLIENT, "max_msg 0: reject 3", sc_max_msg_0 },
	{ "max_msg_huge", CLIENT, "max_msg 4 GiB - 1: reject 3", sc_max_msg_huge },
	{ "short_hello", CLIENT, "8 bytes of hello (magic, version, flags): reject 3",
	  sc_short_hello },
	{ "hello_mem_hog", CLIENT,
	  "valid hello, 4096 receives of 8 MiB (32 GiB): reject 8, no OOM", sc_hello_mem_hog },
	{ "channel_no_session", CLIENT,
	  "data channel hello, a cookie no session has: reject 6", sc_channel_no_session },
	{ "channel_index_0", CLIENT, "data channel hello for channel 0: reject 3",
	  sc_channel_index_0 },
	{ "channels_16", CLIENT, "hello asking for 16 data channels (17 QPs): reject 3",
	  sc_channels_16 },
	{ "channel_few_credits", CLIENT,
	  "data channel offering fewer READ credits than the first QP: answered within its offer",
	  sc_channel_few_credits },
	{ "unknown_type", CLIENT, "message of type 77: session closed", sc_unknown_type },
	{ "len_beyond_bytes", CLIENT, "header len larger than the bytes sent: closed",
	  sc_len_beyond_bytes },
	{ "len_short", CLIENT, "header len smaller than the bytes sent: closed", sc_len_short },
	{ "short_msg", CLIENT, "a 16-byte SEND, shorter than a header: closed", sc_short_msg },
	{ "hdr_flags", CLIENT, "header flags set: closed", sc_hdr_flags },
	{ "len_over_max", CLIENT, "DATA longer than max_msg in a send test: closed",
	  sc_len_over_max },
	{ "msg_too_big", CLIENT, "SEND larger than the receive buffers: closed", sc_msg_too_big },
	{ "unexpected_ack", CLIENT, "ITER_ACK with no test running: closed", sc_unexpected_ack },
	{ "write_imm_unexpected", CLIENT, "WRITE_WITH_IMM, no test: closed",
	  sc_write_imm_unexpected },
	{ "write_imm_answer_unexpected", CLIENT,
	  "WRITE_WITH_IMM answering a lat write_imm test, none runs: closed",
	  sc_write_imm_answer_unexpected },
	{ "req_nregions_beyond", CLIENT, "ping TEST_REQ, nregions past the body: refused",
	  sc_req_nregions_beyond },
	{ "req_regions_small", CLIENT, "ping TEST_REQ, regions smaller than size: refused",
	  sc_req_regions_small },
	{ "req_bad_op", CLIENT, "TEST_REQ with op 99: refused", sc_req_bad_op },
	{ "req_depth_huge", CLIENT, "TEST_REQ with depth 2^31: refused", sc_req_depth_huge },
	{ "req_short_body", CLIENT, "TEST_REQ with an 8-byte body: refused", sc_req_short_body },
	{ "req_flags_unknown", CLIENT, "TEST_REQ with flag 0x80: refused",
	  sc_req_flags_unknown },
	{ "req_read_back_read", CLIENT, "read TEST_REQ with the read-back flag: refused",
	  sc_req_read_back_read },
	{ "req_invalidated_send", CLIENT,
	  "send TEST_REQ with the invalidated flag: refused", sc_req_invalidated_send },
	{ "req_send_inv_write", CLIENT,
	  "write TEST_REQ with the send-invalidate flag: refused", sc_req_send_inv_write },
	{ "req_send_inv_bw", CLIENT,
	  "bw send TEST_REQ with the send-invalidate flag: refused", sc_req_send_inv_bw },
	{ "req_zero_length_send", CLIENT,
	  "send TEST_REQ with the zero-length flag: refused", sc_req_zero_length_send },
	{ "req_rnr_hold_write", CLIENT,
	  "write TEST_REQ with the RNR-hold flag: refused", sc_req_rnr_hold_write },
	{ "req_rnr_hold_short", CLIENT,
	  "send TEST_REQ with the RNR-hold flag, count 2: refused", sc_req_rnr_hold_short },
	{ "send_inv_unasked", CLIENT,
	  "NOTIFY as a SEND_WITH_INV of the kernel's target key: closed",
	  sc_send_inv_unasked },
	{ "send_inv_wrong_key", CLIENT,
	  "send-invalidate SEND of slot 0 with slot 1's key: iteration refused",
	  sc_send_inv_wrong_key },
	{ "req_region_wrap", CLIENT, "ping source at 2^64 - 4096, 8 KiB: READ fails, closed",
	  sc_req_region_wrap },
	{ "req_rkey0", CLIENT, "ping regions with rkey 0: READ fails, closed", sc_req_rkey0 },
	{ "req_rkey_small", CLIENT, "ping source rkey covers half: READ fails, closed",
	  sc_req_rkey_small },
	{ "resp_oob_after", CLIENT,
	  "WRITE 8 bytes past the kernel's write region: remote error", sc_resp_oob_after },
	{ "resp_oob_before", CLIENT,
	  "WRITE 8 bytes before the kernel's write region: remote error", sc_resp_oob_before },
	{ "resp_read_oob_before", CLIENT,
	  "READ 8 bytes before the kernel's read region: remote error", sc_resp_read_oob_before },
	{ "resp_narrow_write_region", CLIENT, "READ from a write-only region: remote error",
	  sc_resp_narrow_write_region },
	{ "resp_narrow_read_region", CLIENT, "WRITE to a read-only region: remote error",
	  sc_resp_narrow_read_region },
	{ "resp_narrow_atomic_region", CLIENT, "WRITE to an atomic-only region: remote error",
	  sc_resp_narrow_atomic_region },
	{ "stale_write", CLIENT,
	  "WRITE with a write region's rkey after TEST_RESULT: remote error", sc_stale_write },
	{ "stale_read", CLIENT,
	  "READ with a read region's rkey after TEST_RESULT: remote error", sc_stale_read },
	{ "stale_atomic", CLIENT,
	  "atomic with an atomic region's rkey after TEST_RESULT: remote error", sc_stale_atomic },
	{ "send_flood", CLIENT, "64 DATA SENDs at once against 8 receives: flow control holds",
	  sc_send_flood },
	{ "end_twice", CLIENT, "TEST_END twice: one TEST_RESULT, no crash", sc_end_twice },
	{ "req_during_test", CLIENT, "a second TEST_REQ while a test runs: closed",
	  sc_req_during_test },
	{ "end_beyond_count", CLIENT, "TEST_END of 5 iterations for a count of 4: closed",
	  sc_end_beyond_count },
	{ "end_before_ack", CLIENT,
	  "TEST_REQ and TEST_END back to back: an ACK, a RESULT of 0, still answers",
	  sc_end_before_ack },
	{ "channel_msg_no_test", CLIENT,
	  "a DATA message on a data channel while no test runs: closed", sc_channel_msg_no_test },
	{ "end_after_broken_setup", CLIENT,
	  "TEST_REQ whose setup fails half way (node 1's fail_peer_reg_test), then TEST_END: closed",
	  sc_end_after_broken_setup },
	{ "end_beyond_sent", CLIENT,
	  "bw send over 2 QPs, TEST_END of 5 messages never sent: closed by the stall timer",
	  sc_end_beyond_sent },
	{ "ping_end_inflight", CLIENT, "PING then TEST_END at once: no use after free",
	  sc_ping_end_inflight },
	{ "atomic_end_huge", CLIENT, "atomic TEST_END with 2^62 iterations: no endless loop",
	  sc_atomic_end_huge },
	{ "hold", CLIENT, "a valid, idle session, held until SIGUSR1", sc_hold },
	{ "hold_bw", CLIENT, "a bw write test of 8 MiB, held until SIGUSR1, then TEST_END",
	  sc_hold_bw },
	{ "hold_queues", CLIENT,
	  "16 QPs of send queues of 4096 (the most QP memory), held until SIGUSR1; reject 8 over a cap",
	  sc_hold_queues },
	{ "session_cap", CLIENT, "valid hello while the kernel is at a session cap: reject 7",
	  sc_session_cap },
	{ "mem_per_session", CLIENT,
	  "check write of 16 x 8 MiB (128 MiB) over max_session_mem_mb: refused EDQUOT",
	  sc_mem_per_session },
	{ "mem_total", CLIENT, "bw write of 8 MiB over what max_mem_mb leaves: refused ENOBUFS",
	  sc_mem_total },
	{ "responder_stall", CLIENT,
	  "check write test, then silence: the kernel's stall timer closes", sc_responder_stall },
	{ "lat_write_silent", CLIENT,
	  "lat write test, then no write: the polling thread stops, closed", sc_lat_write_silent },
	{ "hold_lat_write", CLIENT,
	  "a lat write test, no write, held until SIGUSR1, then TEST_END", sc_hold_lat_write },
	{ "lat_write_cap", CLIENT,
	  "lat write over max_responder_pollers: refused EUSERS", sc_lat_write_cap },
};

const size_t n_client_scenarios = ARRAY_SIZE(client_scenarios);
