// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma-hostile: a userspace rdma_cm peer that speaks krdma's wire
 * protocol (kmod/proto.h, Documentation/protocol.rst) badly, one scenario
 * per run, and reports what the krdma module did about it.
 *
 *   krdma-hostile [-t SECONDS] SCENARIO ADDR PORT   client: against a krdma listener
 *   krdma-hostile [-t SECONDS] -l PORT SCENARIO     server: a krdma session connects
 *   krdma-hostile list                              every scenario, one a line
 *
 * Output: one line per outcome,
 *   HOSTILE scenario=NAME outcome=OUTCOME [key=value ...] detail=TEXT
 * where OUTCOME is one of rejected, refused, closed, remote_error,
 * flow_controlled, ok (the safe ones) or accepted, ignored, hang,
 * unexpected, over_offer, error (the unsafe or broken ones). The exit status is 0 only
 * if what was observed is the safe behaviour for the scenario.
 *
 * In server mode the run may wait for SIGUSR1 (ping_stale: "the kernel's
 * test is reported done, its regions are invalidated: try them now";
 * late_iter_ack: "the kernel's test is done: say something late"). The
 * hold scenarios keep their session open, after a "step=held" line, until
 * SIGUSR1 (the script holds several at once against the kernel's caps).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* ---- the wire protocol (kmod/proto.h), big-endian ---- */

#define KRDMA_MAGIC		0x4b52444dU
#define KRDMA_VERSION		1
#define HELLO_LEN		24
#define HDR_LEN			32
#define TEST_BODY_LEN		24
#define REGION_LEN		16
#define RESULT_LEN		24
#define CTRL_BODY_MAX		(4096 - HDR_LEN)	/* kmod/proto.h */

enum { MSG_TEST_REQ = 1, MSG_TEST_ACK, MSG_DATA, MSG_NOTIFY, MSG_RELEASE,
       MSG_PING, MSG_ITER_ACK, MSG_TEST_END, MSG_TEST_RESULT };
enum { OP_PING = 1, OP_SEND, OP_SEND_IMM, OP_WRITE, OP_WRITE_IMM, OP_READ,
       OP_FADD, OP_CSWAP };
enum { MODE_CHECK = 1, MODE_BW, MODE_LAT };

static const char *const reject_names[] = {
	"none", "not_a_krdma_peer", "version_not_supported",
	"parameters_out_of_range", "no_resources", "shutting_down",
	"no_session", "too_many_sessions", "memory_limit",
};
#define REJ_TOO_MANY_SESSIONS	7
#define REJ_MEM_LIMIT		8

static void put16(uint8_t *p, uint16_t v) { p[0] = v >> 8; p[1] = v; }
static void put32(uint8_t *p, uint32_t v) { put16(p, v >> 16); put16(p + 2, v); }
static void put64(uint8_t *p, uint64_t v) { put32(p, v >> 32); put32(p + 4, v); }
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t get32(const uint8_t *p) { return (uint32_t)get16(p) << 16 | get16(p + 2); }
static uint64_t get64(const uint8_t *p) { return (uint64_t)get32(p) << 32 | get32(p + 4); }

struct hello {
	uint32_t magic;
	uint16_t version, flags, sq, rq;
	uint32_t max_msg;
	uint8_t rd_atom, init_rd_atom;
	uint8_t channels, channel;	/* data channels */
	uint32_t cookie;
};

#define HELLO_F_CHANNEL		0x0002

static void hello_pack(uint8_t *b, const struct hello *h)
{
	memset(b, 0, HELLO_LEN);
	put32(b, h->magic);
	put16(b + 4, h->version);
	put16(b + 6, h->flags);
	put16(b + 8, h->sq);
	put16(b + 10, h->rq);
	put32(b + 12, h->max_msg);
	b[16] = h->rd_atom;
	b[17] = h->init_rd_atom;
	b[18] = h->channels;
	b[19] = h->channel;
	put32(b + 20, h->cookie);
}

static void hello_unpack(struct hello *h, const uint8_t *b)
{
	h->magic = get32(b);
	h->version = get16(b + 4);
	h->flags = get16(b + 6);
	h->sq = get16(b + 8);
	h->rq = get16(b + 10);
	h->max_msg = get32(b + 12);
	h->rd_atom = b[16];
	h->init_rd_atom = b[17];
	h->channels = b[18];
	h->channel = b[19];
	h->cookie = get32(b + 20);
}

struct region {
	uint64_t addr;
	uint32_t rkey, len;
};

/* The test pattern of kmod/mem.c: byte k of the payload of (test, iter). */
static uint64_t seed_of(uint32_t test_id, uint64_t iter)
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

static void pattern_fill(uint8_t *p, uint32_t len, uint64_t seed)
{
	for (uint32_t k = 0; k < len; k++)
		p[k] = pattern_byte(seed, k);
}

static bool pattern_check(const uint8_t *p, uint32_t len, uint64_t seed)
{
	for (uint32_t k = 0; k < len; k++)
		if (p[k] != pattern_byte(seed, k))
			return false;
	return true;
}

/* ---- the peer ---- */

#define NRECV		32
#define RECV_SZ		(HDR_LEN + 65536)
#define NSEND		256
#define SEND_SZ		(HDR_LEN + CTRL_BODY_MAX + 64)
#define BIG_SZ		(256 << 10)
#define DATA_SZ		(8 << 20)
#define MEM_SZ		((size_t)NRECV * RECV_SZ + (size_t)NSEND * SEND_SZ + BIG_SZ + DATA_SZ)
#define OUR_MAX_MSG	65536
#define RD_ATOM		16

#define WR_RECV		(1ULL << 40)
#define WR_SEND		(2ULL << 40)
#define WR_RDMA		(3ULL << 40)
#define WR_KIND(id)	((id) & (0xffULL << 40))
#define WR_IDX(id)	((uint32_t)((id) & 0xffffffffULL))
#define NTRACK		4096

struct msg {
	struct msg *next;
	uint16_t type, flags;
	uint32_t test_id, len, status, byte_len, imm;
	uint64_t iter;
	bool has_imm;
	uint8_t body[];
};

struct peer {
	const char *scen;
	bool server;
	int tmo_ms;
	struct rdma_event_channel *ec;
	struct rdma_cm_id *listen_id, *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint8_t *mem;
	struct ibv_mr *mr;
	uint8_t *recv_area, *send_area, *big, *data;
	uint32_t send_next, sends_out;
	uint32_t rdma_next;
	int rdma_done[NTRACK];	/* 0: pending, else ibv_wc_status + 1 */
	struct msg *q_head, *q_tail;
	bool established, disconnected, qp_error, rejected;
	uint8_t rd_resp, rd_init;	/* credits the kernel answered */
	int reject_reason;
	int last_send_err;	/* ibv_wc_status + 1 of a failed SEND */
	struct hello peer_hello;
	uint16_t lport;
	int fails, outcomes;
};

static struct peer P;
static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void nap(void)
{
	struct timespec ts = { 0, 500000 };

	nanosleep(&ts, NULL);
}

/* One outcome line; @safe says whether it counts as the safe behaviour. */
static void outcome(bool safe, const char *out, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void outcome(bool safe, const char *out, const char *fmt, ...)
{
	char detail[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	for (char *c = detail; *c; c++)
		if (*c == ' ' || *c == '\t' || *c == '\n')
			*c = '_';
	printf("HOSTILE scenario=%s outcome=%s safe=%d lport=%u detail=%s\n",
	       P.scen, out, safe ? 1 : 0, P.lport, detail);
	fflush(stdout);
	P.outcomes++;
	if (!safe)
		P.fails++;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	char detail[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	outcome(false, "error", "%s", detail);
	exit(2);
}

static void handle_cm_event(struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		P.established = true;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		P.disconnected = true;
		break;
	case RDMA_CM_EVENT_REJECTED: {
		const uint8_t *d = ev->param.conn.private_data;

		P.rejected = true;
		P.reject_reason = -1;
		if (d && ev->param.conn.private_data_len >= 8 &&
		    get32(d) == KRDMA_MAGIC)
			P.reject_reason = get16(d + 6);
		break;
	}
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		P.disconnected = true;
		break;
	default:
		break;
	}
}

/* Non-blocking: takes every CM event that is there. */
static void poll_cm(void)
{
	struct rdma_cm_event *ev;

	while (rdma_get_cm_event(P.ec, &ev) == 0) {
		handle_cm_event(ev);
		rdma_ack_cm_event(ev);
	}
}

static int post_recv(uint32_t i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(P.recv_area + (size_t)i * RECV_SZ),
		.length = RECV_SZ,
		.lkey = P.mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = WR_RECV | i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(P.qp, &wr, &bad);
}

static void queue_msg(uint32_t i, const struct ibv_wc *wc)
{
	const uint8_t *b = P.recv_area + (size_t)i * RECV_SZ;
	uint32_t keep = wc->byte_len > RECV_SZ ? RECV_SZ : wc->byte_len;
	struct msg *m = calloc(1, sizeof(*m) + keep + 1);

	if (!m)
		die("out of memory");
	m->byte_len = wc->byte_len;
	m->has_imm = wc->wc_flags & IBV_WC_WITH_IMM;
	m->imm = ntohl(wc->imm_data);
	if (wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
		m->type = 0;	/* no header */
	} else if (keep >= HDR_LEN) {
		m->type = get16(b);
		m->flags = get16(b + 2);
		m->test_id = get32(b + 4);
		m->iter = get64(b + 8);
		m->len = get32(b + 16);
		m->status = get32(b + 20);
		memcpy(m->body, b + HDR_LEN, keep - HDR_LEN);
	}
	if (P.q_tail)
		P.q_tail->next = m;
	else
		P.q_head = m;
	P.q_tail = m;
}

/* Handles at most one completion and the CM events; true if there was one. */
static bool poll_once(void)
{
	struct ibv_wc wc;
	int n;

	poll_cm();
	if (!P.cq)
		return false;
	n = ibv_poll_cq(P.cq, 1, &wc);
	if (n <= 0)
		return false;
	switch (WR_KIND(wc.wr_id)) {
	case WR_RECV:
		if (wc.status != IBV_WC_SUCCESS) {
			P.qp_error = true;
			break;
		}
		queue_msg(WR_IDX(wc.wr_id), &wc);
		if (post_recv(WR_IDX(wc.wr_id)))
			P.qp_error = true;
		break;
	case WR_SEND:
		P.sends_out--;
		if (wc.status != IBV_WC_SUCCESS) {
			P.qp_error = true;
			if (!P.last_send_err)
				P.last_send_err = wc.status + 1;
		}
		break;
	case WR_RDMA:
		P.rdma_done[WR_IDX(wc.wr_id) % NTRACK] = wc.status + 1;
		if (wc.status != IBV_WC_SUCCESS)
			P.qp_error = true;
		break;
	}
	return true;
}

static void poll_some(void)
{
	if (!poll_once())
		nap();
}

static struct msg *next_msg(int tmo_ms)
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

/* Waits for a message of @type, dropping others (ITER_ACKs, ...). */
static struct msg *wait_msg(uint16_t type, int tmo_ms)
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

/* Bounded wait for the kernel to disconnect us. */
static bool wait_disconnect(int tmo_ms)
{
	int64_t end = now_ms() + tmo_ms;

	while (!P.disconnected && now_ms() < end)
		poll_some();
	return P.disconnected;
}

/* Sends @n bytes of @buf (copied to a send slot unless it is P.big). */
static int send_bytes(const void *buf, uint32_t n, bool with_imm, uint32_t imm)
{
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_sge sge;
	uint8_t *slot;
	int64_t end = now_ms() + P.tmo_ms;

	while (P.sends_out >= NSEND - 1) {
		if (now_ms() >= end)
			die("send queue stuck");
		poll_some();
	}
	if (buf == P.big) {
		slot = P.big;
	} else {
		if (n > SEND_SZ)
			die("message too long for a send slot");
		slot = P.send_area + (size_t)(P.send_next++ % NSEND) * SEND_SZ;
		memcpy(slot, buf, n);
	}
	sge.addr = (uintptr_t)slot;
	sge.length = n;
	sge.lkey = P.mr->lkey;
	wr.wr_id = WR_SEND | P.send_next;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = with_imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND;
	wr.imm_data = htonl(imm);
	wr.send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(P.qp, &wr, &bad))
		return -1;
	P.sends_out++;
	return 0;
}

static void hdr_pack(uint8_t *b, uint16_t type, uint16_t flags, uint32_t test_id,
		     uint64_t iter, uint32_t len, uint32_t status)
{
	memset(b, 0, HDR_LEN);
	put16(b, type);
	put16(b + 2, flags);
	put32(b + 4, test_id);
	put64(b + 8, iter);
	put32(b + 16, len);
	put32(b + 20, status);
}

/* A well-formed message: header and @body_len bytes of @body. */
static int send_msg(uint16_t type, uint32_t test_id, uint64_t iter,
		    uint32_t status, const void *body, uint32_t body_len)
{
	uint8_t b[SEND_SZ];

	hdr_pack(b, type, 0, test_id, iter, body_len, status);
	if (body_len)
		memcpy(b + HDR_LEN, body, body_len);
	return send_bytes(b, HDR_LEN + body_len, false, 0);
}

/* A krdma_msg_test body with @n regions; returns its length. */
static uint32_t test_body(uint8_t *b, uint8_t op, uint32_t size, uint32_t depth,
			  uint32_t nregions, uint64_t count,
			  const struct region *r, uint32_t n)
{
	memset(b, 0, TEST_BODY_LEN);
	b[0] = op;
	put32(b + 4, size);
	put32(b + 8, depth);
	put32(b + 12, nregions);
	put64(b + 16, count);
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *w = b + TEST_BODY_LEN + i * REGION_LEN;

		put64(w, r[i].addr);
		put32(w + 8, r[i].rkey);
		put32(w + 12, r[i].len);
	}
	return TEST_BODY_LEN + n * REGION_LEN;
}

static uint32_t body_regions(const struct msg *m, struct region *r, uint32_t max)
{
	uint32_t n, avail;

	if (m->len < TEST_BODY_LEN || m->byte_len < HDR_LEN + TEST_BODY_LEN)
		return 0;
	n = get32(m->body + 12);
	avail = (m->byte_len - HDR_LEN - TEST_BODY_LEN) / REGION_LEN;
	if (n > avail)
		n = avail;
	if (n > max)
		n = max;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *w = m->body + TEST_BODY_LEN + i * REGION_LEN;

		r[i].addr = get64(w);
		r[i].rkey = get32(w + 8);
		r[i].len = get32(w + 12);
	}
	return n;
}

/* Posts one RDMA READ/WRITE/atomic; returns its tracking index. */
static uint32_t post_rdma(enum ibv_wr_opcode op, void *local, uint32_t len,
			  uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_sge sge = { .addr = (uintptr_t)local, .length = len, .lkey = lkey };
	uint32_t idx = ++P.rdma_next % NTRACK;

	P.rdma_done[idx] = 0;
	wr.wr_id = WR_RDMA | idx;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD || op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 1;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	if (ibv_post_send(P.qp, &wr, &bad))
		die("cannot post RDMA op: %s", strerror(errno));
	return idx;
}

/* Waits for RDMA op @idx; returns its ibv_wc_status, or -1 on timeout. */
static int wait_rdma(uint32_t idx, int tmo_ms)
{
	int64_t end = now_ms() + tmo_ms;

	while (!P.rdma_done[idx]) {
		if (now_ms() >= end)
			return -1;
		poll_some();
	}
	return P.rdma_done[idx] - 1;
}

static int rdma_sync(enum ibv_wr_opcode op, void *local, uint32_t len,
		     uint64_t raddr, uint32_t rkey)
{
	return wait_rdma(post_rdma(op, local, len, P.mr->lkey, raddr, rkey), P.tmo_ms);
}

static const char *wc_str(int st)
{
	return st < 0 ? "timeout" : ibv_wc_status_str((enum ibv_wc_status)st);
}

/* ---- connection setup ---- */

static void wait_cm(enum rdma_cm_event_type want, struct rdma_cm_event **out)
{
	int64_t end = now_ms() + P.tmo_ms;
	struct rdma_cm_event *ev;

	for (;;) {
		if (rdma_get_cm_event(P.ec, &ev) == 0) {
			if (ev->event == want) {
				*out = ev;
				return;
			}
			die("CM event %s while waiting for %s (status %d)",
			    rdma_event_str(ev->event), rdma_event_str(want), ev->status);
		}
		if (now_ms() >= end)
			die("no CM event %s in time", rdma_event_str(want));
		nap();
	}
}

static void setup_queues(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr qa = {};

	P.pd = ibv_alloc_pd(id->verbs);
	if (!P.pd)
		die("ibv_alloc_pd: %s", strerror(errno));
	P.mem = aligned_alloc(4096, MEM_SZ);
	if (!P.mem)
		die("out of memory");
	memset(P.mem, 0, MEM_SZ);
	P.recv_area = P.mem;
	P.send_area = P.recv_area + (size_t)NRECV * RECV_SZ;
	P.big = P.send_area + (size_t)NSEND * SEND_SZ;
	P.data = P.big + BIG_SZ;
	P.mr = ibv_reg_mr(P.pd, P.mem, MEM_SZ, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_REMOTE_ATOMIC);
	if (!P.mr)
		die("ibv_reg_mr: %s", strerror(errno));
	P.cq = ibv_create_cq(id->verbs, 2048, NULL, NULL, 0);
	if (!P.cq)
		die("ibv_create_cq: %s", strerror(errno));
	qa.send_cq = P.cq;
	qa.recv_cq = P.cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 1024;
	qa.cap.max_recv_wr = NRECV;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, P.pd, &qa))
		die("rdma_create_qp: %s", strerror(errno));
	P.qp = id->qp;
	for (uint32_t i = 0; i < NRECV; i++)
		if (post_recv(i))
			die("ibv_post_recv: %s", strerror(errno));
}

static void good_hello(struct hello *h)
{
	memset(h, 0, sizeof(*h));
	h->magic = KRDMA_MAGIC;
	h->version = KRDMA_VERSION;
	h->sq = 256;
	h->rq = NRECV;
	h->max_msg = OUR_MAX_MSG;
	h->rd_atom = RD_ATOM;
	h->init_rd_atom = RD_ATOM;
}

static void nonblock_cm(void)
{
	int fl = fcntl(P.ec->fd, F_GETFL);

	if (fl < 0 || fcntl(P.ec->fd, F_SETFL, fl | O_NONBLOCK) < 0)
		die("fcntl: %s", strerror(errno));
}

static void record_lport(struct rdma_cm_id *id)
{
	struct sockaddr *sa = rdma_get_local_addr(id);

	if (sa && sa->sa_family == AF_INET)
		P.lport = ntohs(((struct sockaddr_in *)sa)->sin_port);
	else if (sa && sa->sa_family == AF_INET6)
		P.lport = ntohs(((struct sockaddr_in6 *)sa)->sin6_port);
}

/*
 * Client: connects with @pdata (@plen bytes) as the hello. Returns true
 * when established; false when rejected (P.rejected) or failed.
 */
static bool client_connect(const char *addr, const char *port,
			   const void *pdata, uint8_t plen, uint8_t rnr_retry)
{
	struct rdma_conn_param cp = {};
	struct addrinfo hints = { .ai_family = AF_INET }, *res;
	struct rdma_cm_event *ev;
	int64_t end;

	P.ec = rdma_create_event_channel();
	if (!P.ec)
		die("rdma_create_event_channel: %s", strerror(errno));
	nonblock_cm();
	if (rdma_create_id(P.ec, &P.id, NULL, RDMA_PS_TCP))
		die("rdma_create_id: %s", strerror(errno));
	if (getaddrinfo(addr, port, &hints, &res))
		die("bad address %s:%s", addr, port);
	if (rdma_resolve_addr(P.id, NULL, res->ai_addr, 5000))
		die("rdma_resolve_addr: %s", strerror(errno));
	freeaddrinfo(res);
	wait_cm(RDMA_CM_EVENT_ADDR_RESOLVED, &ev);
	rdma_ack_cm_event(ev);
	setup_queues(P.id);
	if (rdma_resolve_route(P.id, 5000))
		die("rdma_resolve_route: %s", strerror(errno));
	wait_cm(RDMA_CM_EVENT_ROUTE_RESOLVED, &ev);
	rdma_ack_cm_event(ev);
	record_lport(P.id);

	cp.private_data = pdata;
	cp.private_data_len = plen;
	cp.responder_resources = RD_ATOM;
	cp.initiator_depth = RD_ATOM;
	cp.retry_count = 6;
	cp.rnr_retry_count = rnr_retry;
	if (rdma_connect(P.id, &cp))
		die("rdma_connect: %s", strerror(errno));
	end = now_ms() + P.tmo_ms;
	while (!P.established && !P.rejected && !P.disconnected && now_ms() < end) {
		struct rdma_cm_event *e;

		if (rdma_get_cm_event(P.ec, &e) == 0) {
			if (e->event == RDMA_CM_EVENT_ESTABLISHED) {
				P.rd_resp = e->param.conn.responder_resources;
				P.rd_init = e->param.conn.initiator_depth;
			}
			if (e->event == RDMA_CM_EVENT_ESTABLISHED &&
			    e->param.conn.private_data &&
			    e->param.conn.private_data_len >= HELLO_LEN)
				hello_unpack(&P.peer_hello, e->param.conn.private_data);
			handle_cm_event(e);
			rdma_ack_cm_event(e);
		} else {
			nap();
		}
	}
	return P.established;
}

static void client_close(void)
{
	if (P.id && P.established && !P.disconnected) {
		rdma_disconnect(P.id);
		wait_disconnect(2000);
	}
}

/* ---- client scenarios ---- */

static struct hello H;
static uint8_t HB[64];

/* Handshake scenarios: the connection must be refused with @want. */
static void expect_reject(const char *addr, const char *port, const void *pd,
			  uint8_t plen, int want)
{
	bool up = client_connect(addr, port, pd, plen, 7);

	if (up) {
		outcome(false, "accepted", "the listener accepted a bad hello");
		client_close();
		return;
	}
	if (!P.rejected) {
		outcome(false, "unexpected", "neither accepted nor rejected");
		return;
	}
	outcome(P.reject_reason == want, "rejected", "reason=%d(%s) want=%d",
		P.reject_reason,
		P.reject_reason >= 0 && P.reject_reason <= REJ_MEM_LIMIT ?
		reject_names[P.reject_reason] : "not_krdma_data", want);
}

static bool connect_good(const char *addr, const char *port, uint16_t rq,
			 uint32_t max_msg, uint8_t rnr_retry)
{
	good_hello(&H);
	H.rq = rq;
	H.max_msg = max_msg;
	hello_pack(HB, &H);
	if (!client_connect(addr, port, HB, HELLO_LEN, rnr_retry)) {
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

/*
 * Is the peer's QP still there? A zero-length RDMA WRITE needs no rkey and
 * consumes nothing at the peer; it fails (transport retries exceeded) if
 * the peer's QP is gone.
 */
static int probe_peer(void)
{
	struct ibv_send_wr wr = {}, *bad;
	uint32_t idx = ++P.rdma_next % NTRACK;

	P.rdma_done[idx] = 0;
	wr.wr_id = WR_RDMA | idx;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(P.qp, &wr, &bad))
		return IBV_WC_GENERAL_ERR;
	return wait_rdma(idx, 3 * P.tmo_ms);
}

/* After a violation: the kernel must close the session. */
static void expect_closed(const char *what)
{
	int st;

	if (wait_disconnect(P.tmo_ms)) {
		outcome(true, "closed", "%s: the kernel closed the session%s%s", what,
			P.last_send_err ? ";our_send=" : "",
			P.last_send_err ? wc_str(P.last_send_err - 1) : "");
		return;
	}
	/*
	 * A session closed before the kernel's CM saw our RTU ends with a
	 * REJ that our CM drops (we are established): no DISCONNECTED ever
	 * comes. Then the kernel's QP is gone, and a probe says so.
	 */
	if (P.qp_error) {
		outcome(false, "ignored", "%s: no disconnect after %d ms (and our QP failed)",
			what, P.tmo_ms);
		return;
	}
	st = probe_peer();
	if (st == IBV_WC_SUCCESS)
		outcome(false, "ignored", "%s: still connected after %d ms", what, P.tmo_ms);
	else if (P.disconnected)
		outcome(true, "closed", "%s: the kernel closed the session (late)", what);
	else
		outcome(st > 0, st > 0 ? "closed" : "hang",
			"%s: no disconnect, but the kernel's QP is gone (probe: %s)", what,
			wc_str(st));
}

static uint32_t g_test_id = 0x4057;

/* TEST_REQ of @mode (0: none, which a krdma peer takes for check). */
static struct msg *test_req_mode(uint8_t op, uint8_t mode, uint32_t size,
				 uint32_t depth, uint32_t nregions, uint64_t count,
				 const struct region *r, uint32_t n)
{
	uint8_t b[CTRL_BODY_MAX];
	uint32_t len = test_body(b, op, size, depth, nregions, count, r, n);

	b[1] = mode;
	if (send_msg(MSG_TEST_REQ, g_test_id, 0, 0, b, len))
		die("cannot send TEST_REQ");
	return wait_msg(MSG_TEST_ACK, P.tmo_ms);
}

/* TEST_REQ; returns the TEST_ACK (or NULL if none came). */
static struct msg *test_req(uint8_t op, uint32_t size, uint32_t depth,
			    uint32_t nregions, uint64_t count,
			    const struct region *r, uint32_t n)
{
	return test_req_mode(op, 0, size, depth, nregions, count, r, n);
}

/* A TEST_REQ the kernel must refuse (TEST_ACK status != 0) or close on. */
static void expect_refused(uint8_t op, uint32_t size, uint32_t depth,
			   uint32_t nregions, const struct region *r, uint32_t n)
{
	struct msg *m = test_req(op, size, depth, nregions, 0, r, n);

	if (!m) {
		if (P.disconnected)
			outcome(true, "closed", "the kernel closed the session on the TEST_REQ");
		else
			outcome(false, "hang", "no TEST_ACK");
		return;
	}
	if (m->status)
		outcome(true, "refused", "TEST_ACK_status=%u(%s)", m->status,
			strerror((int)m->status));
	else
		outcome(false, "accepted", "TEST_ACK_status=0");
	free(m);
	client_close();
}

/* Our memory for a ping: sources then sinks, one region a slot. */
static uint32_t our_ping_regions(struct region *r, uint32_t size, uint32_t depth,
				 uint32_t rkey)
{
	for (uint32_t s = 0; s < 2 * depth; s++) {
		r[s].addr = (uintptr_t)(P.data + (size_t)s * size);
		r[s].rkey = rkey;
		r[s].len = size;
	}
	return 2 * depth;
}

/*
 * A ping whose regions the kernel will RDMA: it accepts the test, then its
 * READ of our source must fail on the wire and close the session.
 */
static void ping_bad_region(const struct region *r, uint32_t n, uint32_t size,
			    const char *what)
{
	struct msg *m = test_req(OP_PING, size, 1, n, 1, r, n);

	if (!m) {
		if (P.disconnected)
			outcome(true, "closed", "%s: closed at TEST_REQ", what);
		else
			outcome(false, "hang", "%s: no TEST_ACK", what);
		return;
	}
	if (m->status) {
		outcome(true, "refused", "%s: TEST_ACK_status=%u", what, m->status);
		free(m);
		client_close();
		return;
	}
	free(m);
	pattern_fill(P.data, size, seed_of(g_test_id, 0));
	send_msg(MSG_PING, g_test_id, 0, 0, NULL, 0);
	m = wait_msg(MSG_ITER_ACK, P.tmo_ms);
	if (m) {
		outcome(false, "accepted", "%s: ITER_ACK_status=%u: the kernel's RDMA went through",
			what, m->status);
		free(m);
		client_close();
		return;
	}
	expect_closed(what);
}

static void sc_ping_rkey_small(void)
{
	uint32_t size = 8192;
	struct region r[2];
	struct ibv_mr *small;

	/* Advertise 8 KiB, register 4 KiB: the kernel's READ must fail. */
	small = ibv_reg_mr(P.pd, P.data, 4096, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
	if (!small)
		die("ibv_reg_mr: %s", strerror(errno));
	r[0] = (struct region){ (uintptr_t)P.data, small->rkey, size };
	r[1] = (struct region){ (uintptr_t)(P.data + 2 * size), P.mr->rkey, size };
	ping_bad_region(r, 2, size, "source_rkey_covers_4K_of_8K");
}

/*
 * The kernel exposed regions for a test we drive (write/read/atomics):
 * @abuse runs against the first region after one valid iteration.
 */
enum abuse { AB_OOB_AFTER, AB_OOB_BEFORE, AB_WRONG_ACCESS, AB_STALE };

static void drive_and_abuse(uint8_t op, enum abuse ab)
{
	uint32_t size = op == OP_FADD ? 8 : 4096;
	struct region r[4];
	struct msg *m;
	uint32_t n;
	int st;

	m = test_req(op, size, 1, 0, 0, NULL, 0);
	if (!m || m->status) {
		outcome(false, "error", "the kernel did not accept a valid test (status %u)",
			m ? m->status : 0);
		free(m);
		return;
	}
	n = body_regions(m, r, 4);
	free(m);
	if (n != 1 || r[0].len != size) {
		outcome(false, "error", "unexpected TEST_ACK regions: n=%u", n);
		return;
	}

	/* One valid iteration first: the rkey works inside the region. */
	if (op == OP_WRITE) {
		pattern_fill(P.data, size, seed_of(g_test_id, 0));
		st = rdma_sync(IBV_WR_RDMA_WRITE, P.data, size, r[0].addr, r[0].rkey);
		send_msg(MSG_NOTIFY, g_test_id, 0, 0, NULL, 0);
	} else if (op == OP_READ) {
		memset(P.data, 0, size);
		st = rdma_sync(IBV_WR_RDMA_READ, P.data, size, r[0].addr, r[0].rkey);
		if (st == IBV_WC_SUCCESS && !pattern_check(P.data, size, seed_of(g_test_id, 0)))
			outcome(false, "unexpected", "READ of the kernel's source: wrong data");
		send_msg(MSG_RELEASE, g_test_id, 0, 0, NULL, 0);
	} else {
		st = rdma_sync(IBV_WR_ATOMIC_FETCH_AND_ADD, P.data, 8, r[0].addr, r[0].rkey);
	}
	if (st != IBV_WC_SUCCESS) {
		outcome(false, "error", "valid access failed: %s", wc_str(st));
		return;
	}
	if (op != OP_FADD) {
		m = wait_msg(MSG_ITER_ACK, P.tmo_ms);
		if (!m || m->status) {
			outcome(false, "error", "valid iteration not acked (status %u)",
				m ? m->status : 0);
			free(m);
			return;
		}
		free(m);
	}
	printf("HOSTILE scenario=%s step=valid_access status=success region=0x%" PRIx64
	       "+%u rkey=0x%x\n", P.scen, r[0].addr, r[0].len, r[0].rkey);

	if (ab == AB_STALE) {
		send_msg(MSG_TEST_END, g_test_id, 1, 0, NULL, 0);
		m = wait_msg(MSG_TEST_RESULT, P.tmo_ms);
		if (!m) {
			outcome(false, "hang", "no TEST_RESULT");
			return;
		}
		free(m);
		/* The regions are invalidated before TEST_RESULT (protocol.rst). */
		if (op == OP_READ)
			st = rdma_sync(IBV_WR_RDMA_READ, P.data, size, r[0].addr, r[0].rkey);
		else if (op == OP_FADD)
			st = rdma_sync(IBV_WR_ATOMIC_FETCH_AND_ADD, P.data, 8, r[0].addr,
				       r[0].rkey);
		else
			st = rdma_sync(IBV_WR_RDMA_WRITE, P.data, size, r[0].addr, r[0].rkey);
	} else if (ab == AB_OOB_AFTER) {
		st = rdma_sync(IBV_WR_RDMA_WRITE, P.data, 16, r[0].addr + r[0].len - 8,
			       r[0].rkey);
	} else if (ab == AB_OOB_BEFORE) {
		st = rdma_sync(op == OP_READ ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE,
			       P.data, 16, r[0].addr - 8, r[0].rkey);
	} else if (op == OP_WRITE) {
		st = rdma_sync(IBV_WR_RDMA_READ, P.data, size, r[0].addr, r[0].rkey);
	} else {
		st = rdma_sync(IBV_WR_RDMA_WRITE, P.data, size, r[0].addr, r[0].rkey);
	}
	if (st == IBV_WC_SUCCESS) {
		outcome(false, "accepted", "the access went through");
		client_close();
		return;
	}
	if (st < 0) {
		outcome(false, "hang", "no completion for the access");
		return;
	}
	/* Our QP is dead now; does the kernel notice its own is too? */
	outcome(true, "remote_error", "wc_status=%s(%d) kernel_closed=%s", wc_str(st), st,
		wait_disconnect(P.tmo_ms / 2) ? "yes" : "no");
}

/* More SENDs than the kernel has receives: flow control must hold. */
static void sc_send_flood(const char *addr, const char *port)
{
	uint32_t n = 8 * 8, acks = 0, size = 64;
	uint8_t b[HDR_LEN + 64];
	struct msg *m;
	int64_t end;

	if (!connect_good(addr, port, 8, 4096, 7))
		return;
	m = test_req(OP_SEND, size, 2, 0, 0, NULL, 0);
	if (!m || m->status) {
		outcome(false, "error", "send test not accepted");
		free(m);
		return;
	}
	free(m);
	for (uint32_t i = 0; i < n; i++) {
		hdr_pack(b, MSG_DATA, 0, g_test_id, i, size, 0);
		pattern_fill(b + HDR_LEN, size, seed_of(g_test_id, i));
		if (send_bytes(b, sizeof(b), false, 0))
			die("post send");
	}
	end = now_ms() + P.tmo_ms;
	while (acks < n && !P.disconnected && !P.qp_error && now_ms() < end) {
		m = next_msg((int)(end - now_ms()));
		if (!m)
			break;
		if (m->type == MSG_ITER_ACK && !m->status)
			acks++;
		free(m);
	}
	if (P.disconnected || P.qp_error) {
		outcome(true, "closed", "sent=%u acked=%u receive_queue=8 our_send=%s", n, acks,
			P.last_send_err ? wc_str(P.last_send_err - 1) : "ok");
		return;
	}
	if (acks != n) {
		outcome(false, "hang", "sent=%u acked=%u", n, acks);
		return;
	}
	send_msg(MSG_TEST_END, g_test_id, n, 0, NULL, 0);
	m = wait_msg(MSG_TEST_RESULT, P.tmo_ms);
	if (!m || m->len < RESULT_LEN) {
		outcome(false, "hang", "no TEST_RESULT after the flood");
		free(m);
		return;
	}
	outcome(get64(m->body) == n && get64(m->body + 8) == n, "flow_controlled",
		"sent=%u acked=%u receive_queue=8 result_iters=%" PRIu64 " validated=%" PRIu64,
		n, acks, get64(m->body), get64(m->body + 8));
	free(m);
	client_close();
}

/*
 * The session's first QP offers RD_ATOM READ/atomic credits each way; its
 * data channel then offers fewer (CH_RESP in flight towards us, CH_INIT
 * from us). The kernel must answer the channel within that offer, as it
 * does a first QP, not with the credits the session settled on: a peer
 * offers what its QP can take.
 */
#define CH_RESP		2
#define CH_INIT		1

static void sc_channel_few_credits(const char *addr, const char *port)
{
	struct addrinfo hints = { .ai_family = AF_INET }, *res;
	struct ibv_qp_init_attr qa = {};
	struct rdma_conn_param cp = {};
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	uint8_t hb[HELLO_LEN];
	struct hello h;
	int64_t end;
	bool up = false, rej = false;
	uint8_t resp = 0, init = 0;

	good_hello(&H);
	H.channels = 1;
	hello_pack(HB, &H);
	if (!client_connect(addr, port, HB, HELLO_LEN, 7)) {
		outcome(false, "error", "a session of 2 QPs was not accepted (reject reason %d)",
			P.reject_reason);
		return;
	}

	if (rdma_create_id(P.ec, &id, NULL, RDMA_PS_TCP))
		die("rdma_create_id: %s", strerror(errno));
	if (getaddrinfo(addr, port, &hints, &res))
		die("bad address %s:%s", addr, port);
	if (rdma_resolve_addr(id, NULL, res->ai_addr, 5000))
		die("rdma_resolve_addr: %s", strerror(errno));
	freeaddrinfo(res);
	wait_cm(RDMA_CM_EVENT_ADDR_RESOLVED, &ev);
	rdma_ack_cm_event(ev);
	/* Like a krdma channel: one-sided work only, no receives. */
	qa.send_cq = P.cq;
	qa.recv_cq = P.cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = 1;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, P.pd, &qa))
		die("rdma_create_qp: %s", strerror(errno));
	if (rdma_resolve_route(id, 5000))
		die("rdma_resolve_route: %s", strerror(errno));
	wait_cm(RDMA_CM_EVENT_ROUTE_RESOLVED, &ev);
	rdma_ack_cm_event(ev);

	good_hello(&h);
	h.flags = HELLO_F_CHANNEL;
	h.channels = 1;
	h.channel = 1;
	h.cookie = P.peer_hello.cookie;
	hello_pack(hb, &h);
	cp.private_data = hb;
	cp.private_data_len = HELLO_LEN;
	cp.responder_resources = CH_RESP;
	cp.initiator_depth = CH_INIT;
	cp.retry_count = 6;
	cp.rnr_retry_count = 7;
	if (rdma_connect(id, &cp))
		die("rdma_connect: %s", strerror(errno));
	end = now_ms() + P.tmo_ms;
	while (!up && !rej && !P.disconnected && now_ms() < end) {
		if (rdma_get_cm_event(P.ec, &ev)) {
			nap();
			continue;
		}
		if (ev->id != id) {
			handle_cm_event(ev);
		} else if (ev->event == RDMA_CM_EVENT_ESTABLISHED) {
			/* In our perspective, as the CM swapped them. */
			resp = ev->param.conn.responder_resources;
			init = ev->param.conn.initiator_depth;
			up = true;
		} else {
			rej = true;
		}
		rdma_ack_cm_event(ev);
	}
	if (!up) {
		outcome(false, rej ? "unexpected" : "hang",
			"the data channel was not connected%s",
			P.disconnected ? "; the session went down" : "");
		return;
	}
	outcome(resp <= CH_RESP && init <= CH_INIT,
		resp <= CH_RESP && init <= CH_INIT ? "ok" : "over_offer",
		"first_qp_responder_resources=%u first_qp_initiator_depth=%u offered_responder_resources=%u offered_initiator_depth=%u answered_responder_resources=%u answered_initiator_depth=%u",
		P.rd_resp, P.rd_init, CH_RESP, CH_INIT, resp, init);
	rdma_disconnect(id);
	client_close();
}

/* Still alive? A new (send) test must be answered. */
static bool kernel_answers(void)
{
	struct msg *m;

	g_test_id++;
	m = test_req(OP_SEND, 64, 1, 0, 0, NULL, 0);
	free(m);
	return m != NULL;
}

/* TEST_END twice in a row: one TEST_RESULT or a close, and no crash. */
static void sc_end_twice(void)
{
	struct msg *m = test_req(OP_WRITE, 4096, 1, 0, 0, NULL, 0);
	int results = 0;

	if (!m || m->status) {
		outcome(false, "error", "write test not accepted");
		free(m);
		return;
	}
	free(m);
	send_msg(MSG_TEST_END, g_test_id, 0, 0, NULL, 0);
	send_msg(MSG_TEST_END, g_test_id, 0, 0, NULL, 0);
	while ((m = wait_msg(MSG_TEST_RESULT, 3000))) {
		results++;
		free(m);
	}
	if (P.disconnected)
		outcome(true, "closed", "TEST_RESULTs=%d, then the kernel closed the session",
			results);
	else if (results != 1)
		outcome(false, "unexpected", "TEST_RESULTs=%d, session still up", results);
	else if (kernel_answers())
		outcome(true, "ok", "TEST_RESULTs=1, the session still answers");
	else
		outcome(P.disconnected, P.disconnected ? "closed" : "hang",
			"TEST_RESULTs=1, then no answer to a new TEST_REQ");
	client_close();
}

/* PING then TEST_END at once: the kernel's READ is still in flight. */
static void sc_ping_end_inflight(void)
{
	uint32_t size = 1 << 20, n;
	struct region r[2];
	struct msg *m;

	n = our_ping_regions(r, size, 1, P.mr->rkey);
	m = test_req(OP_PING, size, 1, n, 0, r, n);
	if (!m || m->status) {
		outcome(false, "error", "ping test not accepted");
		free(m);
		return;
	}
	free(m);
	pattern_fill(P.data, size, seed_of(g_test_id, 0));
	send_msg(MSG_PING, g_test_id, 0, 0, NULL, 0);
	send_msg(MSG_TEST_END, g_test_id, 0, 0, NULL, 0);
	m = wait_msg(MSG_TEST_RESULT, P.tmo_ms);
	if (P.disconnected) {
		outcome(true, "closed", "the kernel closed the session");
	} else if (m) {
		/* Safe only if the kernel still answers: is it alive? */
		bool alive = kernel_answers();

		outcome(alive || P.disconnected, alive ? "ok" : P.disconnected ? "closed" : "hang",
			"TEST_RESULT came; the session %s", alive ? "still answers" :
			"does not answer any more");
	} else {
		outcome(false, "hang", "no TEST_RESULT, no close");
	}
	free(m);
	client_close();
}

/* An atomic test "ended" after 2^62 iterations: the kernel must not spin. */
static void sc_atomic_end_huge(void)
{
	struct msg *m = test_req(OP_FADD, 8, 1, 0, 0, NULL, 0);
	int64_t t0;

	if (!m || m->status) {
		outcome(false, "error", "atomic test not accepted");
		free(m);
		return;
	}
	free(m);
	t0 = now_ms();
	send_msg(MSG_TEST_END, g_test_id, 1ULL << 62, 0, NULL, 0);
	m = wait_msg(MSG_TEST_RESULT, P.tmo_ms);
	if (m)
		outcome(true, "ok", "TEST_RESULT_status=%u after %" PRId64 " ms",
			m->status, now_ms() - t0);
	else if (P.disconnected)
		outcome(true, "closed", "the kernel closed the session");
	else
		outcome(false, "hang", "no answer in %d ms: the kernel is busy with 2^62 iterations",
			P.tmo_ms);
	free(m);
	client_close();
}

/* ---- what a peer may make the kernel spend ---- */

/* Holds the session until SIGUSR1; false if the kernel closed it first. */
static bool hold_session(void)
{
	int64_t end = now_ms() + 20 * (int64_t)P.tmo_ms;

	printf("HOSTILE scenario=%s step=held lport=%u\n", P.scen, P.lport);
	fflush(stdout);
	while (!got_usr1 && !P.disconnected && now_ms() < end)
		poll_some();
	if (got_usr1)
		return true;
	outcome(false, P.disconnected ? "closed" : "hang",
		"the session was not held until SIGUSR1 (disconnected=%d)", P.disconnected);
	return false;
}

/* An idle session, held: it counts against the kernel's session caps. */
static void sc_hold(const char *addr, const char *port)
{
	if (!connect_good(addr, port, NRECV, 4096, 7))
		return;
	if (hold_session())
		outcome(true, "ok", "held_until_SIGUSR1");
	client_close();
}

/* A bw write test of 8 MiB, held: its target stays pinned in the kernel. */
static void sc_hold_bw(const char *addr, const char *port)
{
	struct msg *m;

	if (!connect_good(addr, port, NRECV, 4096, 7))
		return;
	m = test_req_mode(OP_WRITE, MODE_BW, DATA_SZ, 1, 0, 0, NULL, 0);
	if (!m || m->status) {
		outcome(false, "error", "the kernel refused a bw write of 8 MiB (status %u)",
			m ? m->status : 0);
		free(m);
		return;
	}
	free(m);
	if (!hold_session())
		return;
	send_msg(MSG_TEST_END, g_test_id, 0, 0, NULL, 0);
	m = wait_msg(MSG_TEST_RESULT, P.tmo_ms);
	outcome(m != NULL, m ? "ok" : "hang", "held_until_SIGUSR1 TEST_RESULT=%s",
		m ? "yes" : "no");
	free(m);
	client_close();
}

/* A TEST_REQ the kernel must refuse with TEST_ACK status @want. */
static void expect_status(struct msg *m, uint32_t want)
{
	if (!m)
		outcome(false, P.disconnected ? "closed" : "hang", "no TEST_ACK");
	else if (m->status == want)
		outcome(true, "refused", "TEST_ACK_status=%u(%s)", m->status,
			strerror((int)m->status));
	else
		outcome(false, m->status ? "unexpected" : "accepted",
			"TEST_ACK_status=%u(%s) want=%u(%s)", m->status,
			strerror((int)m->status), want, strerror((int)want));
	free(m);
	client_close();
}

/*
 * The peer's test asks the responder for what it must not have: no
 * message ever comes after the TEST_ACK. The kernel must close the
 * session by its stall timer (stall_ms).
 */
static void expect_stall_close(struct msg *m, const char *what)
{
	int64_t t0 = now_ms();

	if (!m || m->status) {
		outcome(false, "error", "%s: the kernel did not accept the test (status %u)",
			what, m ? m->status : 0);
		free(m);
		return;
	}
	free(m);
	printf("HOSTILE scenario=%s step=silent\n", P.scen);
	fflush(stdout);
	if (wait_disconnect(3 * P.tmo_ms))
		outcome(true, "closed", "%s: the kernel closed the session after %" PRId64 " ms",
			what, now_ms() - t0);
	else
		outcome(false, "ignored", "%s: still connected after %d ms of silence",
			what, 3 * P.tmo_ms);
}

struct scenario {
	const char *name;
	bool server;
	const char *what;
};

static const struct scenario scenarios[] = {
	{ "bad_magic", 0, "hello with a wrong magic: reject 1" },
	{ "no_private_data", 0, "no hello at all: reject 1" },
	{ "wrong_version", 0, "hello of version 3 (newer than the module's): reject 2" },
	{ "flags", 0, "hello with flags set: reject 3" },
	{ "sq_depth_0", 0, "send queue depth 0: reject 3" },
	{ "rq_depth_0", 0, "receive queue depth 0: reject 3" },
	{ "depth_65535", 0, "queue depths 65535: reject 3" },
	{ "max_msg_0", 0, "max_msg 0: reject 3" },
	{ "max_msg_huge", 0, "max_msg 4 GiB - 1: reject 3" },
	{ "short_hello", 0, "8 bytes of hello (magic, version, flags): reject 3" },
	{ "hello_mem_hog", 0, "valid hello, 4096 receives of 8 MiB (32 GiB): reject 8, no OOM" },
	{ "channel_no_session", 0, "data channel hello, a cookie no session has: reject 6" },
	{ "channel_index_0", 0, "data channel hello for channel 0: reject 3" },
	{ "channels_16", 0, "hello asking for 16 data channels (17 QPs): reject 3" },
	{ "channel_few_credits", 0, "data channel offering fewer READ credits than the first QP: answered within its offer" },
	{ "unknown_type", 0, "message of type 77: session closed" },
	{ "len_beyond_bytes", 0, "header len larger than the bytes sent: closed" },
	{ "len_short", 0, "header len smaller than the bytes sent: closed" },
	{ "short_msg", 0, "a 16-byte SEND, shorter than a header: closed" },
	{ "hdr_flags", 0, "header flags set: closed" },
	{ "len_over_max", 0, "DATA longer than max_msg in a send test: closed" },
	{ "msg_too_big", 0, "SEND larger than the receive buffers: closed" },
	{ "unexpected_ack", 0, "ITER_ACK with no test running: closed" },
	{ "write_imm_unexpected", 0, "WRITE_WITH_IMM, no test: closed" },
	{ "req_nregions_beyond", 0, "ping TEST_REQ, nregions past the body: refused" },
	{ "req_regions_small", 0, "ping TEST_REQ, regions smaller than size: refused" },
	{ "req_bad_op", 0, "TEST_REQ with op 99: refused" },
	{ "req_depth_huge", 0, "TEST_REQ with depth 2^31: refused" },
	{ "req_short_body", 0, "TEST_REQ with an 8-byte body: refused" },
	{ "req_region_wrap", 0, "ping source at 2^64 - 4096, 8 KiB: READ fails, closed" },
	{ "req_rkey0", 0, "ping regions with rkey 0: READ fails, closed" },
	{ "req_rkey_small", 0, "ping source rkey covers half: READ fails, closed" },
	{ "resp_oob_after", 0, "WRITE 8 bytes past the kernel's write region: remote error" },
	{ "resp_oob_before", 0, "WRITE 8 bytes before the kernel's write region: remote error" },
	{ "resp_read_oob_before", 0, "READ 8 bytes before the kernel's read region: remote error" },
	{ "resp_narrow_write_region", 0, "READ from a write-only region: remote error" },
	{ "resp_narrow_read_region", 0, "WRITE to a read-only region: remote error" },
	{ "resp_narrow_atomic_region", 0, "WRITE to an atomic-only region: remote error" },
	{ "stale_write", 0, "WRITE with a write region's rkey after TEST_RESULT: remote error" },
	{ "stale_read", 0, "READ with a read region's rkey after TEST_RESULT: remote error" },
	{ "stale_atomic", 0, "atomic with an atomic region's rkey after TEST_RESULT: remote error" },
	{ "send_flood", 0, "64 DATA SENDs at once against 8 receives: flow control holds" },
	{ "end_twice", 0, "TEST_END twice: one TEST_RESULT, no crash" },
	{ "ping_end_inflight", 0, "PING then TEST_END at once: no use after free" },
	{ "atomic_end_huge", 0, "atomic TEST_END with 2^62 iterations: no endless loop" },
	{ "hold", 0, "a valid, idle session, held until SIGUSR1" },
	{ "hold_bw", 0, "a bw write test of 8 MiB, held until SIGUSR1, then TEST_END" },
	{ "session_cap", 0, "valid hello while the kernel is at a session cap: reject 7" },
	{ "mem_per_session", 0, "check write of 16 x 8 MiB (128 MiB) over max_session_mem_mb: refused EDQUOT" },
	{ "mem_total", 0, "bw write of 8 MiB over what max_mem_mb leaves: refused ENOBUFS" },
	{ "responder_stall", 0, "check write test, then silence: the kernel's stall timer closes" },
	{ "lat_write_silent", 0, "lat write test, then no write: the polling thread stops, closed" },
	{ "rep_bad_magic", 1, "REP hello with a wrong magic: the kernel closes" },
	{ "rep_wrong_version", 1, "REP hello of version 3: the kernel closes" },
	{ "rep_flags", 1, "REP hello with flags: the kernel closes" },
	{ "rep_depth_0", 1, "REP hello with depths 0: the kernel closes" },
	{ "rep_msg_huge", 1, "REP hello with max_msg 4 GiB - 1: the kernel closes" },
	{ "rep_none", 1, "REP without private data: the kernel closes" },
	{ "reject_unknown", 1, "krdma reject with reason 99" },
	{ "reject_old_version", 1, "a version-1-only peer's reject: version not supported" },
	{ "reject_garbage", 1, "reject with non-krdma data" },
	{ "ack_short_regions", 1, "TEST_ACK regions smaller than size: closed" },
	{ "ack_nregions_beyond", 1, "TEST_ACK nregions past the body: closed" },
	{ "ack_regions_for_send", 1, "TEST_ACK of a send test with regions: closed" },
	{ "ack_rkey_small", 1, "TEST_ACK rkey covers half a region: RDMA fails, closed" },
	{ "ack_region_wrap", 1, "TEST_ACK region at 2^64 - 4096: RDMA fails, closed" },
	{ "ack_rkey0", 1, "TEST_ACK regions with rkey 0: RDMA fails, closed" },
	{ "ping_stale", 1, "good ping responder, then the kernel's rkeys after SIGUSR1" },
	{ "ping_narrow", 1, "WRITE into the kernel's ping source (read-only)" },
	{ "ping_oob", 1, "READ past the end of the kernel's ping source" },
	{ "late_iter_ack", 1, "good send responder, then an ITER_ACK for the ended test after SIGUSR1: closed" },
};

static void run_client(const char *s, const char *addr, const char *port)
{
	struct region r[64];
	uint8_t b[HDR_LEN + 16384];
	struct msg *m;
	uint32_t n;

	good_hello(&H);
	if (!strcmp(s, "bad_magic")) {
		H.magic = 0x52504e47;
	} else if (!strcmp(s, "wrong_version")) {
		H.version = 3;
	} else if (!strcmp(s, "flags")) {
		H.flags = 1;
	} else if (!strcmp(s, "sq_depth_0")) {
		H.sq = 0;
	} else if (!strcmp(s, "rq_depth_0")) {
		H.rq = 0;
	} else if (!strcmp(s, "depth_65535")) {
		H.sq = H.rq = 65535;
	} else if (!strcmp(s, "max_msg_0")) {
		H.max_msg = 0;
	} else if (!strcmp(s, "max_msg_huge")) {
		H.max_msg = 0xffffffffU;
	} else if (!strcmp(s, "hello_mem_hog")) {
		H.sq = H.rq = 4096;
		H.max_msg = 8U << 20;
	} else if (!strcmp(s, "channel_no_session")) {
		H.flags = HELLO_F_CHANNEL;
		H.channels = 1;
		H.channel = 1;
		H.cookie = 0x5eed1234;
	} else if (!strcmp(s, "channel_index_0")) {
		H.flags = HELLO_F_CHANNEL;
		H.channels = 1;
	} else if (!strcmp(s, "channels_16")) {
		H.channels = 16;
	}
	hello_pack(HB, &H);
	if (!strcmp(s, "bad_magic") || !strcmp(s, "no_private_data")) {
		expect_reject(addr, port, HB, !strcmp(s, "bad_magic") ? HELLO_LEN : 0, 1);
		return;
	}
	if (!strcmp(s, "wrong_version")) {
		expect_reject(addr, port, HB, HELLO_LEN, 2);
		return;
	}
	if (!strcmp(s, "short_hello")) {
		expect_reject(addr, port, HB, 8, 3);
		return;
	}
	if (!strcmp(s, "hello_mem_hog")) {
		expect_reject(addr, port, HB, HELLO_LEN, REJ_MEM_LIMIT);
		return;
	}
	if (!strcmp(s, "session_cap")) {
		expect_reject(addr, port, HB, HELLO_LEN, REJ_TOO_MANY_SESSIONS);
		return;
	}
	if (!strcmp(s, "hold")) {
		sc_hold(addr, port);
		return;
	}
	if (!strcmp(s, "hold_bw")) {
		sc_hold_bw(addr, port);
		return;
	}
	if (!strcmp(s, "channel_no_session")) {
		expect_reject(addr, port, HB, HELLO_LEN, 6);
		return;
	}
	if (!strcmp(s, "channel_index_0") || !strcmp(s, "channels_16")) {
		expect_reject(addr, port, HB, HELLO_LEN, 3);
		return;
	}
	if (!strcmp(s, "flags") || !strncmp(s, "sq_depth", 8) ||
	    !strncmp(s, "rq_depth", 8) || !strncmp(s, "depth_", 6) ||
	    !strncmp(s, "max_msg", 7)) {
		expect_reject(addr, port, HB, HELLO_LEN, 3);
		return;
	}

	if (!strcmp(s, "send_flood")) {
		sc_send_flood(addr, port);
		return;
	}
	if (!strcmp(s, "channel_few_credits")) {
		sc_channel_few_credits(addr, port);
		return;
	}
	/* Everything else starts from a valid session, max_msg 4 KiB. */
	if (!connect_good(addr, port, NRECV, !strcmp(s, "len_over_max") ? 1024 : 4096, 7))
		return;

	if (!strcmp(s, "unknown_type")) {
		send_msg(77, g_test_id, 0, 0, NULL, 0);
		expect_closed("type_77");
		return;
	}
	if (!strcmp(s, "len_beyond_bytes")) {
		hdr_pack(b, MSG_TEST_REQ, 0, g_test_id, 0, 1000, 0);
		send_bytes(b, HDR_LEN + 24, false, 0);
		expect_closed("len=1000_bytes=24");
		return;
	}
	if (!strcmp(s, "len_short")) {
		hdr_pack(b, MSG_TEST_REQ, 0, g_test_id, 0, 8, 0);
		memset(b + HDR_LEN, 0, 24);
		b[HDR_LEN] = OP_SEND;
		send_bytes(b, HDR_LEN + 24, false, 0);
		expect_closed("len=8_bytes=24");
		return;
	}
	if (!strcmp(s, "short_msg")) {
		hdr_pack(b, MSG_TEST_REQ, 0, g_test_id, 0, 0, 0);
		send_bytes(b, 16, false, 0);
		expect_closed("16_bytes");
		return;
	}
	if (!strcmp(s, "hdr_flags")) {
		uint8_t body[TEST_BODY_LEN];

		test_body(body, OP_SEND, 64, 1, 0, 0, NULL, 0);
		hdr_pack(b, MSG_TEST_REQ, 0x8000, g_test_id, 0, TEST_BODY_LEN, 0);
		memcpy(b + HDR_LEN, body, TEST_BODY_LEN);
		send_bytes(b, HDR_LEN + TEST_BODY_LEN, false, 0);
		expect_closed("flags=0x8000");
		return;
	}
	if (!strcmp(s, "len_over_max")) {
		/* max_msg 1024 (receive buffers still 32 + 4096): a DATA of
		 * 4000 bytes fits the buffer but not max_msg or the test. */
		m = test_req(OP_SEND, 1024, 1, 0, 0, NULL, 0);
		if (!m || m->status) {
			outcome(false, "error", "send test not accepted");
			free(m);
			return;
		}
		free(m);
		hdr_pack(b, MSG_DATA, 0, g_test_id, 0, 4000, 0);
		pattern_fill(b + HDR_LEN, 4000, seed_of(g_test_id, 0));
		send_bytes(b, HDR_LEN + 4000, false, 0);
		expect_closed("DATA_len=4000_test_size=1024");
		return;
	}
	if (!strcmp(s, "msg_too_big")) {
		/* The kernel's receive buffers: 32 + max(4096, 4096) bytes. */
		hdr_pack(P.big, MSG_DATA, 0, g_test_id, 0, 8192, 0);
		send_bytes(P.big, HDR_LEN + 8192, false, 0);
		expect_closed("SEND_of_8224_bytes_into_4128");
		return;
	}
	if (!strcmp(s, "unexpected_ack")) {
		send_msg(MSG_ITER_ACK, g_test_id, 0, 0, NULL, 0);
		expect_closed("ITER_ACK_without_test");
		return;
	}
	if (!strcmp(s, "write_imm_unexpected")) {
		struct ibv_send_wr wr = {}, *bad;

		wr.wr_id = WR_RDMA | 1;
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = htonl(5);
		wr.send_flags = IBV_SEND_SIGNALED;
		if (ibv_post_send(P.qp, &wr, &bad))
			die("post WRITE_WITH_IMM");
		expect_closed("zero-length_WRITE_WITH_IMM");
		return;
	}
	if (!strcmp(s, "req_nregions_beyond")) {
		n = our_ping_regions(r, 4096, 1, P.mr->rkey);
		expect_refused(OP_PING, 4096, 1, 200, r, n);
		return;
	}
	if (!strcmp(s, "req_regions_small")) {
		n = our_ping_regions(r, 4096, 2, P.mr->rkey);
		r[1].len = 2048;	/* slot 1's source: half of what size needs */
		expect_refused(OP_PING, 4096, 2, n, r, n);
		return;
	}
	if (!strcmp(s, "req_bad_op")) {
		expect_refused(99, 64, 1, 0, NULL, 0);
		return;
	}
	if (!strcmp(s, "req_depth_huge")) {
		expect_refused(OP_SEND, 64, 1U << 31, 0, NULL, 0);
		return;
	}
	if (!strcmp(s, "req_short_body")) {
		hdr_pack(b, MSG_TEST_REQ, 0, g_test_id, 0, 8, 0);
		memset(b + HDR_LEN, 0, 8);
		b[HDR_LEN] = OP_SEND;
		send_bytes(b, HDR_LEN + 8, false, 0);
		m = wait_msg(MSG_TEST_ACK, P.tmo_ms);
		if (m)
			outcome(m->status != 0, m->status ? "refused" : "accepted",
				"TEST_ACK_status=%u", m->status);
		else
			expect_closed("8-byte_TEST_REQ");
		free(m);
		client_close();
		return;
	}
	if (!strcmp(s, "req_region_wrap")) {
		n = our_ping_regions(r, 8192, 1, P.mr->rkey);
		r[0].addr = 0xfffffffffffff000ULL;
		ping_bad_region(r, n, 8192, "source_0xfffffffffffff000+8K");
		return;
	}
	if (!strcmp(s, "req_rkey0")) {
		n = our_ping_regions(r, 4096, 1, 0);
		ping_bad_region(r, n, 4096, "rkey_0");
		return;
	}
	if (!strcmp(s, "req_rkey_small")) {
		sc_ping_rkey_small();
		return;
	}
	if (!strcmp(s, "resp_oob_after")) {
		drive_and_abuse(OP_WRITE, AB_OOB_AFTER);
		return;
	}
	if (!strcmp(s, "resp_oob_before")) {
		drive_and_abuse(OP_WRITE, AB_OOB_BEFORE);
		return;
	}
	if (!strcmp(s, "resp_read_oob_before")) {
		drive_and_abuse(OP_READ, AB_OOB_BEFORE);
		return;
	}
	if (!strcmp(s, "resp_narrow_write_region")) {
		drive_and_abuse(OP_WRITE, AB_WRONG_ACCESS);
		return;
	}
	if (!strcmp(s, "resp_narrow_read_region")) {
		drive_and_abuse(OP_READ, AB_WRONG_ACCESS);
		return;
	}
	if (!strcmp(s, "resp_narrow_atomic_region")) {
		drive_and_abuse(OP_FADD, AB_WRONG_ACCESS);
		return;
	}
	if (!strcmp(s, "stale_write")) {
		drive_and_abuse(OP_WRITE, AB_STALE);
		return;
	}
	if (!strcmp(s, "stale_read")) {
		drive_and_abuse(OP_READ, AB_STALE);
		return;
	}
	if (!strcmp(s, "stale_atomic")) {
		drive_and_abuse(OP_FADD, AB_STALE);
		return;
	}
	if (!strcmp(s, "end_twice")) {
		sc_end_twice();
		return;
	}
	if (!strcmp(s, "ping_end_inflight")) {
		sc_ping_end_inflight();
		return;
	}
	if (!strcmp(s, "atomic_end_huge")) {
		sc_atomic_end_huge();
		return;
	}
	if (!strcmp(s, "mem_per_session")) {
		/* As much as a ping of 126 x 8 MiB would be, over a lower cap. */
		expect_status(test_req(OP_WRITE, DATA_SZ, 16, 0, 0, NULL, 0), EDQUOT);
		return;
	}
	if (!strcmp(s, "mem_total")) {
		expect_status(test_req_mode(OP_WRITE, MODE_BW, DATA_SZ, 1, 0, 0, NULL, 0),
			      ENOBUFS);
		return;
	}
	if (!strcmp(s, "responder_stall")) {
		expect_stall_close(test_req(OP_WRITE, 4096, 1, 0, 0, NULL, 0),
				   "check_write_then_nothing");
		return;
	}
	if (!strcmp(s, "lat_write_silent")) {
		/* Our target, which the kernel would write back into. */
		r[0] = (struct region){ (uintptr_t)P.data, P.mr->rkey, 4096 };
		expect_stall_close(test_req_mode(OP_WRITE, MODE_LAT, 4096, 1, 1, 0, r, 1),
				   "lat_write_then_no_write");
		return;
	}
	die("unknown client scenario %s", s);
}

/* ---- server scenarios: a krdma session connects to us ---- */

/* The kernel's TEST_REQ; fills its regions. */
static struct msg *server_wait_req(struct region *r, uint32_t max, uint32_t *n)
{
	struct msg *m = wait_msg(MSG_TEST_REQ, P.tmo_ms);

	if (!m) {
		outcome(false, P.disconnected ? "unexpected" : "hang", "no TEST_REQ from the kernel");
		return NULL;
	}
	*n = body_regions(m, r, max);
	return m;
}

/* A TEST_ACK for the kernel's test, with the regions of scenario @s. */
static void server_ack(const char *s, struct msg *req)
{
	uint8_t op = req->body[0];
	uint32_t size = get32(req->body + 4), depth = get32(req->body + 8);
	uint32_t need = (op == OP_FADD || op == OP_CSWAP) ? 8 : size;
	bool regions = op >= OP_WRITE;
	struct region r[256];
	uint8_t b[CTRL_BODY_MAX];
	uint32_t n = 0, nreg, len, rkey = P.mr->rkey;
	struct ibv_mr *small = NULL;

	if (depth > 128 || (size_t)depth * need > DATA_SZ / 2)
		die("test too large for us: depth %u size %u", depth, size);
	memset(P.data, 0, DATA_SZ);
	if (!strcmp(s, "ack_rkey_small")) {
		/* Covers the first half of slot 0 only. */
		small = ibv_reg_mr(P.pd, P.data, need / 2 ? need / 2 : 1,
				   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
		if (!small)
			die("ibv_reg_mr: %s", strerror(errno));
		rkey = small->rkey;
	}
	if (regions || !strcmp(s, "ack_regions_for_send")) {
		for (n = 0; n < depth; n++) {
			r[n].addr = (uintptr_t)(P.data + (size_t)n * need);
			r[n].rkey = rkey;
			r[n].len = need;
		}
	}
	nreg = n;
	if (!strcmp(s, "ack_short_regions"))
		r[0].len = need > 1 ? need / 2 : 0;
	else if (!strcmp(s, "ack_nregions_beyond"))
		nreg = n + 100;
	else if (!strcmp(s, "ack_region_wrap"))
		r[0].addr = 0xfffffffffffff000ULL;
	else if (!strcmp(s, "ack_rkey0"))
		for (uint32_t i = 0; i < n; i++)
			r[i].rkey = 0;
	len = test_body(b, op, size, depth, nreg, get64(req->body + 16), r, n);
	send_msg(MSG_TEST_ACK, req->test_id, 0, 0, b, len);
	if (small) {
		/* Our memory past the small MR must never change. */
		expect_closed("RDMA_past_our_half-size_MR");
		/* What lies past the small MR was never the kernel's to write. */
		for (uint32_t i = need / 2; i < need; i++)
			if (P.data[i]) {
				outcome(false, "overrun", "byte %u past our small MR was written", i);
				break;
			}
		return;
	}
	expect_closed(s);
}

/* The kernel drives a ping: READ its source, WRITE its sink, ITER_ACK. */
static void server_ping(const char *s, struct msg *req, struct region *r, uint32_t nr)
{
	uint32_t size = get32(req->body + 4), depth = get32(req->body + 8);
	uint32_t test_id = req->test_id, per, done = 0, good = 0;
	uint8_t b[64], res[RESULT_LEN];
	struct msg *m;
	int st;

	if (req->body[0] != OP_PING || !depth || nr != get32(req->body + 12) ||
	    nr % (2 * depth) || size > DATA_SZ) {
		outcome(false, "error", "want a ping TEST_REQ (got op %u, %u regions)",
			req->body[0], nr);
		return;
	}
	per = nr / (2 * depth);
	test_body(b, OP_PING, size, depth, 0, get64(req->body + 16), NULL, 0);
	send_msg(MSG_TEST_ACK, test_id, 0, 0, b, TEST_BODY_LEN);
	printf("HOSTILE scenario=%s step=test_req op=ping size=%u depth=%u source=0x%" PRIx64
	       "+%u/0x%x sink=0x%" PRIx64 "+%u/0x%x\n", s, size, depth, r[0].addr,
	       r[0].len, r[0].rkey, r[depth * per].addr, r[depth * per].len,
	       r[depth * per].rkey);

	for (;;) {
		m = next_msg(P.tmo_ms);
		if (!m) {
			outcome(false, P.disconnected ? "unexpected" : "hang",
				"the kernel stopped in the middle of its ping (%u done)", done);
			return;
		}
		if (m->type == MSG_TEST_END)
			break;
		if (m->type != MSG_PING) {
			free(m);
			continue;
		}
		if (!strcmp(s, "ping_narrow") || !strcmp(s, "ping_oob")) {
			const struct region *src = &r[(m->iter % depth) * per];

			if (!strcmp(s, "ping_narrow"))
				st = rdma_sync(IBV_WR_RDMA_WRITE, P.data, src->len, src->addr,
					       src->rkey);
			else
				st = rdma_sync(IBV_WR_RDMA_READ, P.data, src->len + 64,
					       src->addr, src->rkey);
			free(m);
			if (st == IBV_WC_SUCCESS)
				outcome(false, "accepted", "the access to the kernel's source went through");
			else
				outcome(st >= 0, st >= 0 ? "remote_error" : "hang",
					"wc_status=%s(%d) kernel_closed=%s", wc_str(st), st,
					wait_disconnect(P.tmo_ms / 2) ? "yes" : "no");
			return;
		}
		/* Well-behaved: every region of the slot, in order. */
		{
			uint32_t slot = m->iter % depth, off = 0;

			for (uint32_t k = 0; k < per; k++) {
				const struct region *src = &r[slot * per + k];

				st = rdma_sync(IBV_WR_RDMA_READ, P.data + off, src->len,
					       src->addr, src->rkey);
				if (st != IBV_WC_SUCCESS) {
					outcome(false, "error", "READ of the kernel's source: %s",
						wc_str(st));
					free(m);
					return;
				}
				off += src->len;
			}
			good += pattern_check(P.data, size, seed_of(test_id, m->iter));
			off = 0;
			for (uint32_t k = 0; k < per; k++) {
				const struct region *snk = &r[(depth + slot) * per + k];

				st = rdma_sync(IBV_WR_RDMA_WRITE, P.data + off, snk->len,
					       snk->addr, snk->rkey);
				if (st != IBV_WC_SUCCESS) {
					outcome(false, "error", "WRITE of the kernel's sink: %s",
						wc_str(st));
					free(m);
					return;
				}
				off += snk->len;
			}
		}
		send_msg(MSG_ITER_ACK, test_id, m->iter, 0, NULL, 0);
		done++;
		free(m);
	}
	free(m);
	put64(res, done);
	put64(res + 8, good);
	put64(res + 16, done - good);
	send_msg(MSG_TEST_RESULT, test_id, 0, 0, res, RESULT_LEN);
	printf("HOSTILE scenario=%s step=ping_done iters=%u validated=%u\n", s, done, good);
	fflush(stdout);

	/* The kernel invalidates its regions after TEST_RESULT; the script
	 * tells us (SIGUSR1) once "test run" has reported the test done. */
	{
		int64_t end = now_ms() + P.tmo_ms;

		while (!got_usr1 && now_ms() < end && !P.disconnected)
			poll_some();
		if (!got_usr1) {
			outcome(false, "error", "no SIGUSR1 in %d ms (disconnected=%d)", P.tmo_ms,
				P.disconnected);
			return;
		}
	}
	/* The sink was remote-writable, the source remote-readable. */
	st = rdma_sync(IBV_WR_RDMA_WRITE, P.data, r[depth * per].len,
		       r[depth * per].addr, r[depth * per].rkey);
	if (st == IBV_WC_SUCCESS)
		outcome(false, "accepted", "WRITE with the kernel's stale sink rkey 0x%x went through",
			r[depth * per].rkey);
	else
		outcome(st >= 0, st >= 0 ? "remote_error" : "hang",
			"stale_sink_rkey=0x%x wc_status=%s(%d) kernel_closed=%s",
			r[depth * per].rkey, wc_str(st), st,
			wait_disconnect(P.tmo_ms / 2) ? "yes" : "no");
}

/*
 * The kernel drives a send test, which we answer well. Once it is over
 * (SIGUSR1: "test run" has reported it done), an ITER_ACK for it comes
 * late - while the script starts the kernel's next test, which replaces
 * the ended one: the kernel must close the session (a protocol error),
 * without freeing the ended test under the handler that looks at it.
 */
static void server_late(const char *s, struct msg *req)
{
	uint32_t size = get32(req->body + 4), depth = get32(req->body + 8);
	uint32_t test_id = req->test_id, done = 0;
	uint8_t b[64], res[RESULT_LEN];
	struct msg *m;
	int64_t end;

	if (req->body[0] != OP_SEND) {
		outcome(false, "error", "want a send TEST_REQ (got op %u)", req->body[0]);
		return;
	}
	test_body(b, OP_SEND, size, depth, 0, get64(req->body + 16), NULL, 0);
	send_msg(MSG_TEST_ACK, test_id, 0, 0, b, TEST_BODY_LEN);
	for (;;) {
		m = next_msg(P.tmo_ms);
		if (!m) {
			outcome(false, P.disconnected ? "unexpected" : "hang",
				"the kernel stopped in the middle of its test (%u done)", done);
			return;
		}
		if (m->type == MSG_TEST_END)
			break;
		if (m->type == MSG_DATA) {
			send_msg(MSG_ITER_ACK, test_id, m->iter, 0, NULL, 0);
			done++;
		}
		free(m);
	}
	free(m);
	put64(res, done);
	put64(res + 8, done);
	put64(res + 16, 0);
	send_msg(MSG_TEST_RESULT, test_id, 0, 0, res, RESULT_LEN);
	printf("HOSTILE scenario=%s step=test_done iters=%u\n", s, done);
	fflush(stdout);

	/* The script reports the test, then sets the kernel up: 3 waits. */
	end = now_ms() + 3 * P.tmo_ms;
	while (!got_usr1 && now_ms() < end && !P.disconnected)
		poll_some();
	if (!got_usr1) {
		outcome(false, "error", "no SIGUSR1 in %d ms (disconnected=%d)", 3 * P.tmo_ms,
			P.disconnected);
		return;
	}
	send_msg(MSG_ITER_ACK, test_id, 0, 0, NULL, 0);
	expect_closed("ITER_ACK_for_an_ended_test");
}

static void run_server(const char *s, const char *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rdma_conn_param cp = {};
	struct rdma_cm_event *ev;
	struct rdma_cm_id *child;
	struct region r[512];
	uint8_t rep[196];
	uint8_t rplen = HELLO_LEN;
	struct msg *m;
	uint32_t nr;

	sin.sin_port = htons((uint16_t)atoi(port));
	P.ec = rdma_create_event_channel();
	if (!P.ec)
		die("rdma_create_event_channel: %s", strerror(errno));
	nonblock_cm();
	if (rdma_create_id(P.ec, &P.listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(P.listen_id, (struct sockaddr *)&sin) ||
	    rdma_listen(P.listen_id, 4))
		die("cannot listen on port %s: %s", port, strerror(errno));
	printf("HOSTILE scenario=%s step=listening port=%s\n", s, port);
	fflush(stdout);

	{
		int saved = P.tmo_ms;

		P.tmo_ms = 3 * saved;	/* the script connects after we listen */
		wait_cm(RDMA_CM_EVENT_CONNECT_REQUEST, &ev);
		P.tmo_ms = saved;
	}
	child = ev->id;
	P.id = child;
	if (ev->param.conn.private_data && ev->param.conn.private_data_len >= HELLO_LEN)
		hello_unpack(&P.peer_hello, ev->param.conn.private_data);
	cp.responder_resources = ev->param.conn.responder_resources;
	cp.initiator_depth = ev->param.conn.initiator_depth;
	rdma_ack_cm_event(ev);
	record_lport(child);
	if (P.peer_hello.magic != KRDMA_MAGIC)
		die("the connecting peer is not krdma");

	if (!strcmp(s, "reject_unknown") || !strcmp(s, "reject_garbage") ||
	    !strcmp(s, "reject_old_version")) {
		uint8_t rej[8];

		if (!strcmp(s, "reject_unknown")) {
			put32(rej, KRDMA_MAGIC);
			put16(rej + 4, KRDMA_VERSION);
			put16(rej + 6, 99);
		} else if (!strcmp(s, "reject_old_version")) {
			/* What a module of protocol 1 only answers a hello of 2. */
			put32(rej, KRDMA_MAGIC);
			put16(rej + 4, 1);
			put16(rej + 6, 2);
		} else {
			memcpy(rej, "GARBAGE!", 8);
		}
		if (rdma_reject(child, rej, sizeof(rej)))
			die("rdma_reject: %s", strerror(errno));
		outcome(true, "rejected_sent", "%s", s);
		return;
	}

	setup_queues(child);
	good_hello(&H);
	/* Mirror the kernel's sizes, like a krdma server. */
	H.sq = P.peer_hello.sq;
	H.rq = P.peer_hello.rq > NRECV ? NRECV : P.peer_hello.rq;
	if (!strcmp(s, "rep_bad_magic"))
		H.magic = 0x52504e47;
	else if (!strcmp(s, "rep_wrong_version"))
		H.version = 3;
	else if (!strcmp(s, "rep_flags"))
		H.flags = 4;
	else if (!strcmp(s, "rep_depth_0"))
		H.sq = H.rq = 0;
	else if (!strcmp(s, "rep_msg_huge"))
		H.max_msg = 0xffffffffU;
	else if (!strcmp(s, "rep_none"))
		rplen = 0;
	memset(rep, 0, sizeof(rep));
	hello_pack(rep, &H);
	cp.private_data = rplen ? rep : NULL;
	cp.private_data_len = rplen;
	cp.rnr_retry_count = 7;
	cp.retry_count = 6;
	if (rdma_accept(child, &cp))
		die("rdma_accept: %s", strerror(errno));

	if (!strncmp(s, "rep_", 4)) {
		/* The kernel checks our hello at ESTABLISHED and closes. */
		if (wait_disconnect(P.tmo_ms))
			outcome(true, "closed", "the kernel closed the session after our %s REP",
				s + 4);
		else
			outcome(false, "accepted", "the kernel kept a session with a bad REP hello");
		return;
	}

	m = server_wait_req(r, 512, &nr);
	if (!m)
		return;
	if (!strncmp(s, "ack_", 4))
		server_ack(s, m);
	else if (!strncmp(s, "ping_", 5))
		server_ping(s, m, r, nr);
	else if (!strcmp(s, "late_iter_ack"))
		server_late(s, m);
	else
		die("unknown server scenario %s", s);
	free(m);
	if (!P.disconnected && !P.qp_error) {
		rdma_disconnect(child);
		wait_disconnect(2000);
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: krdma-hostile [-t SECONDS] SCENARIO ADDR PORT    (client)\n"
		"       krdma-hostile [-t SECONDS] -l PORT SCENARIO      (server)\n"
		"       krdma-hostile list\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *lport = NULL;
	const struct scenario *sc = NULL;
	int opt;

	P.tmo_ms = 20000;
	while ((opt = getopt(argc, argv, "l:t:h")) != -1) {
		switch (opt) {
		case 'l':
			lport = optarg;
			break;
		case 't':
			P.tmo_ms = atoi(optarg) * 1000;
			if (P.tmo_ms <= 0)
				usage();
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 1 && !strcmp(argv[0], "list")) {
		for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
			printf("%s %s %s\n", scenarios[i].name,
			       scenarios[i].server ? "server" : "client", scenarios[i].what);
		return 0;
	}
	if (argc < 1)
		usage();
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		if (!strcmp(scenarios[i].name, argv[0]))
			sc = &scenarios[i];
	if (!sc) {
		fprintf(stderr, "krdma-hostile: unknown scenario %s (see: krdma-hostile list)\n",
			argv[0]);
		return 2;
	}
	if (sc->server != (lport != NULL)) {
		fprintf(stderr, "krdma-hostile: %s is a %s scenario\n", sc->name,
			sc->server ? "server (-l PORT)" : "client (ADDR PORT)");
		return 2;
	}
	if (!lport && argc != 3)
		usage();
	P.scen = sc->name;
	P.server = sc->server;
	signal(SIGUSR1, on_usr1);
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (lport)
		run_server(sc->name, lport);
	else
		run_client(sc->name, argv[1], argv[2]);
	/* Process exit tears the connection down (the kernel sees a DREQ). */
	return P.outcomes && !P.fails ? 0 : 1;
}
