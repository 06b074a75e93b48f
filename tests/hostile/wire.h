/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * krdma's wire protocol as the tool speaks it: the hello, message headers
 * and test bodies of kmod/proto.h packed from and unpacked to host order,
 * messages sent and received, and the test data pattern.
 */
#ifndef KRDMA_HOSTILE_WIRE_H
#define KRDMA_HOSTILE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto-user.h"

#define HELLO_LEN	((uint32_t)sizeof(struct krdma_cm_hello))
#define REJECT_LEN	((uint32_t)sizeof(struct krdma_cm_reject))
#define HDR_LEN		((uint32_t)KRDMA_MSG_HDR_SIZE)
#define TEST_BODY_LEN	((uint32_t)sizeof(struct krdma_msg_test))
#define REGION_LEN	((uint32_t)sizeof(struct krdma_wire_region))
#define CTRL_BODY_MAX	((uint32_t)KRDMA_CTRL_BODY_MAX)
/* What the tool sends of a result (iters, validated, errors): all the module needs. */
#define RESULT_LEN	((uint32_t)offsetof(struct krdma_msg_result, cpu_ns))

/*
 * The tool speaks the oldest version the module accepts: the module's
 * keepalive probes are then RDMA WRITEs the tool never sees, not SENDs
 * among the messages the scenarios look at.
 */
#define OUR_VERSION	KRDMA_PROTO_VERSION_MIN
/* A version newer than the module's; the scenario descriptions name it. */
#define NEWER_VERSION	(KRDMA_PROTO_VERSION + 1)
_Static_assert(NEWER_VERSION == 8, "the wrong_version descriptions say version 8");

/* struct krdma_cm_hello in host order. */
struct hello {
	uint32_t magic;
	uint16_t version, flags, sq, rq;
	uint32_t max_msg;
	uint8_t rd_atom, init_rd_atom;
	uint8_t channels, channel;	/* data channels */
	uint32_t cookie;
	uint8_t rnr_retry;		/* version 7, with its flag */
};

/* struct krdma_wire_region in host order. */
struct region {
	uint64_t addr;
	uint32_t rkey, len;
};

/* The fixed part of struct krdma_msg_test in host order. */
struct test_params {
	uint8_t op, mode;
	uint32_t size, depth, nregions;
	uint64_t count;
};

/* A received message: its header in host order and its body as it came. */
struct msg {
	struct msg *next;
	uint16_t type, flags;
	uint32_t test_id, len, status, byte_len, imm;
	uint64_t iter;
	bool has_imm;
	uint8_t body[];
};

void hello_pack(uint8_t *b, const struct hello *h);
void hello_unpack(struct hello *h, const uint8_t *b);
/* The hello of a well-behaved peer, which the scenarios then spoil. */
void good_hello(struct hello *h);

void reject_pack(uint8_t *b, uint16_t version, uint16_t reason);
/* The reason of a krdma reject, -1 if @b is not one. */
int reject_reason(const uint8_t *b, uint32_t len);

void hdr_pack(uint8_t *b, uint16_t type, uint16_t flags, uint32_t test_id,
	      uint64_t iter, uint32_t len, uint32_t status);
/* Fills @m's header fields from the header at @b. */
void hdr_unpack(struct msg *m, const uint8_t *b);

/* A krdma_msg_test body with @n regions; returns its length. */
uint32_t test_body(uint8_t *b, uint8_t op, uint32_t size, uint32_t depth,
		   uint32_t nregions, uint64_t count,
		   const struct region *r, uint32_t n);
void test_unpack(struct test_params *t, const struct msg *m);
/* The regions of a TEST_REQ/ACK, at most @max and as many as came. */
uint32_t body_regions(const struct msg *m, struct region *r, uint32_t max);

uint32_t result_pack(uint8_t *b, uint64_t iters, uint64_t validated, uint64_t errors);
void result_unpack(const struct msg *m, uint64_t *iters, uint64_t *validated);

/* A well-formed message: header and @body_len bytes of @body. */
int send_msg(uint16_t type, uint32_t test_id, uint64_t iter,
	     uint32_t status, const void *body, uint32_t body_len);
/* A bw responder's CREDIT: @received receives reposted on QP @qp. */
int send_credit(uint32_t test_id, uint8_t qp, uint64_t received);
/* The next message, NULL after @tmo_ms or once disconnected. */
struct msg *next_msg(int tmo_ms);
/* Waits for a message of @type, dropping others (ITER_ACKs, ...). */
struct msg *wait_msg(uint16_t type, int tmo_ms);

/* The test pattern of kmod/mem.c: byte k of the payload of (test, iter). */
uint64_t seed_of(uint32_t test_id, uint64_t iter);
void pattern_fill(uint8_t *p, uint32_t len, uint64_t seed);
bool pattern_check(const uint8_t *p, uint32_t len, uint64_t seed);

#endif
