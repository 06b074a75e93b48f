// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma-hostile: the wire. The structs of kmod/proto.h are packed here
 * field by field, so that what a scenario spoils is visible in its own
 * code, never in a second copy of the layout.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "hostile.h"
#include "verbs.h"

void hello_pack(uint8_t *b, const struct hello *h)
{
	struct krdma_cm_hello w = {
		.magic = htobe32(h->magic),
		.version = htobe16(h->version),
		.flags = htobe16(h->flags),
		.sq_depth = htobe16(h->sq),
		.rq_depth = htobe16(h->rq),
		.max_msg_size = htobe32(h->max_msg),
		.max_qp_rd_atom = h->rd_atom,
		.max_qp_init_rd_atom = h->init_rd_atom,
		.channels = h->channels,
		.channel = h->channel,
		.cookie = htobe32(h->cookie),
		.rnr_retry = h->rnr_retry,
	};

	memcpy(b, &w, sizeof(w));
}

void hello_unpack(struct hello *h, const uint8_t *b)
{
	struct krdma_cm_hello w;

	memcpy(&w, b, sizeof(w));
	h->magic = be32toh(w.magic);
	h->version = be16toh(w.version);
	h->flags = be16toh(w.flags);
	h->sq = be16toh(w.sq_depth);
	h->rq = be16toh(w.rq_depth);
	h->max_msg = be32toh(w.max_msg_size);
	h->rd_atom = w.max_qp_rd_atom;
	h->init_rd_atom = w.max_qp_init_rd_atom;
	h->channels = w.channels;
	h->channel = w.channel;
	h->cookie = be32toh(w.cookie);
	h->rnr_retry = w.rnr_retry;
}

void good_hello(struct hello *h)
{
	memset(h, 0, sizeof(*h));
	h->magic = KRDMA_PROTO_MAGIC;
	h->version = OUR_VERSION;
	h->sq = 256;
	h->rq = NRECV;
	h->max_msg = OUR_MAX_MSG;
	h->rd_atom = RD_ATOM;
	h->init_rd_atom = RD_ATOM;
}

void reject_pack(uint8_t *b, uint16_t version, uint16_t reason)
{
	struct krdma_cm_reject w = {
		.magic = htobe32(KRDMA_PROTO_MAGIC),
		.version = htobe16(version),
		.reason = htobe16(reason),
	};

	memcpy(b, &w, sizeof(w));
}

int reject_reason(const uint8_t *b, uint32_t len)
{
	struct krdma_cm_reject w;

	if (!b || len < sizeof(w))
		return -1;
	memcpy(&w, b, sizeof(w));
	if (be32toh(w.magic) != KRDMA_PROTO_MAGIC)
		return -1;
	return be16toh(w.reason);
}

void hdr_pack(uint8_t *b, uint16_t type, uint16_t flags, uint32_t test_id,
	      uint64_t iter, uint32_t len, uint32_t status)
{
	struct krdma_msg_hdr w = {
		.type = htobe16(type),
		.flags = htobe16(flags),
		.test_id = htobe32(test_id),
		.iter = htobe64(iter),
		.len = htobe32(len),
		.status = htobe32(status),
	};

	memcpy(b, &w, sizeof(w));
}

void hdr_unpack(struct msg *m, const uint8_t *b)
{
	struct krdma_msg_hdr w;

	memcpy(&w, b, sizeof(w));
	m->type = be16toh(w.type);
	m->flags = be16toh(w.flags);
	m->test_id = be32toh(w.test_id);
	m->iter = be64toh(w.iter);
	m->len = be32toh(w.len);
	m->status = be32toh(w.status);
}

uint32_t test_body(uint8_t *b, uint8_t op, uint32_t size, uint32_t depth,
		   uint32_t nregions, uint64_t count,
		   const struct region *r, uint32_t n)
{
	struct krdma_msg_test w = {
		.op = op,
		.size = htobe32(size),
		.depth = htobe32(depth),
		.nregions = htobe32(nregions),
		.count = htobe64(count),
	};

	memcpy(b, &w, sizeof(w));
	for (uint32_t i = 0; i < n; i++) {
		struct krdma_wire_region wr = {
			.addr = htobe64(r[i].addr),
			.rkey = htobe32(r[i].rkey),
			.len = htobe32(r[i].len),
		};

		memcpy(b + TEST_BODY_LEN + i * REGION_LEN, &wr, sizeof(wr));
	}
	return TEST_BODY_LEN + n * REGION_LEN;
}

/* Bytes of @m's body that came (the receive buffer keeps at most RECV_SZ). */
static uint32_t body_bytes(const struct msg *m)
{
	uint32_t keep = m->byte_len > RECV_SZ ? RECV_SZ : m->byte_len;

	return keep > HDR_LEN ? keep - HDR_LEN : 0;
}

void test_unpack(struct test_params *t, const struct msg *m)
{
	struct krdma_msg_test w = {};
	uint32_t n = body_bytes(m);

	memcpy(&w, m->body, n < sizeof(w) ? n : sizeof(w));
	t->op = w.op;
	t->mode = w.mode;
	t->size = be32toh(w.size);
	t->depth = be32toh(w.depth);
	t->nregions = be32toh(w.nregions);
	t->count = be64toh(w.count);
}

uint32_t body_regions(const struct msg *m, struct region *r, uint32_t max)
{
	struct test_params t;
	uint32_t n, avail;

	if (m->len < TEST_BODY_LEN || m->byte_len < HDR_LEN + TEST_BODY_LEN)
		return 0;
	test_unpack(&t, m);
	n = t.nregions;
	avail = (m->byte_len - HDR_LEN - TEST_BODY_LEN) / REGION_LEN;
	if (n > avail)
		n = avail;
	if (n > max)
		n = max;
	for (uint32_t i = 0; i < n; i++) {
		struct krdma_wire_region w;

		memcpy(&w, m->body + TEST_BODY_LEN + i * REGION_LEN, sizeof(w));
		r[i].addr = be64toh(w.addr);
		r[i].rkey = be32toh(w.rkey);
		r[i].len = be32toh(w.len);
	}
	return n;
}

uint32_t result_pack(uint8_t *b, uint64_t iters, uint64_t validated, uint64_t errors)
{
	struct krdma_msg_result w = {
		.iters = htobe64(iters),
		.validated = htobe64(validated),
		.errors = htobe64(errors),
	};

	memcpy(b, &w, RESULT_LEN);
	return RESULT_LEN;
}

void result_unpack(const struct msg *m, uint64_t *iters, uint64_t *validated)
{
	struct krdma_msg_result w = {};
	uint32_t n = body_bytes(m);

	memcpy(&w, m->body, n < sizeof(w) ? n : sizeof(w));
	*iters = be64toh(w.iters);
	*validated = be64toh(w.validated);
}

int send_msg(uint16_t type, uint32_t test_id, uint64_t iter,
	     uint32_t status, const void *body, uint32_t body_len)
{
	uint8_t b[SEND_SZ];

	hdr_pack(b, type, 0, test_id, iter, body_len, status);
	if (body_len)
		memcpy(b + HDR_LEN, body, body_len);
	return send_bytes(b, HDR_LEN + body_len, false, 0);
}

int send_credit(uint32_t test_id, uint8_t qp, uint64_t received)
{
	uint8_t b[HDR_LEN];

	hdr_pack(b, KRDMA_MSG_CREDIT, 0, test_id, received, 0, 0);
	b[offsetof(struct krdma_msg_hdr, qp)] = qp;
	return send_bytes(b, HDR_LEN, false, 0);
}

struct msg *next_msg(int tmo_ms)
{
	int64_t end = now_ms() + tmo_ms;
	struct msg *m;

	while (!P.q_head) {
		if (P.disconnected || now_ms() >= end)
			return NULL;
		poll_some();
	}
	m = P.q_head;
	P.q_head = m->next;
	if (!P.q_head)
		P.q_tail = NULL;
	return m;
}

struct msg *wait_msg(uint16_t type, int tmo_ms)
{
	int64_t end = now_ms() + tmo_ms;
	struct msg *m;

	for (;;) {
		int64_t left = end - now_ms();

		if (left <= 0)
			return NULL;
		m = next_msg((int)left);
		if (!m || m->type == type)
			return m;
		free(m);
	}
}

uint64_t seed_of(uint32_t test_id, uint64_t iter)
{
	return ((uint64_t)test_id << 40) ^ iter ^ 0x6b72646d61ULL;
}

static uint8_t pattern_byte(uint64_t seed, uint32_t k)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL +
		     (uint64_t)(k >> 3) * 0xbf58476d1ce4e5b9ULL;

	x ^= x >> 31;
	return (uint8_t)(x >> ((k & 7) * 8));
}

void pattern_fill(uint8_t *p, uint32_t len, uint64_t seed)
{
	for (uint32_t k = 0; k < len; k++)
		p[k] = pattern_byte(seed, k);
}

bool pattern_check(const uint8_t *p, uint32_t len, uint64_t seed)
{
	for (uint32_t k = 0; k < len; k++)
		if (p[k] != pattern_byte(seed, k))
			return false;
	return true;
}
