// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma-hostile: verbs and rdma_cm plumbing. The scenarios misbehave on
 * the wire; what they build on here behaves.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hostile.h"
#include "verbs.h"

int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void nap(void)
{
	struct timespec ts = { 0, 500000 };

	nanosleep(&ts, NULL);
}

void handle_cm_event(struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		P.established = true;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		P.disconnected = true;
		break;
	case RDMA_CM_EVENT_REJECTED: {
		P.rejected = true;
		P.reject_reason = reject_reason(ev->param.conn.private_data,
						ev->param.conn.private_data_len);
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

void poll_cm(void)
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
		hdr_unpack(m, b);
		memcpy(m->body, b + HDR_LEN, keep - HDR_LEN);
	}
	if (P.q_tail)
		P.q_tail->next = m;
	else
		P.q_head = m;
	P.q_tail = m;
}

bool poll_once(void)
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

void poll_some(void)
{
	if (!poll_once())
		nap();
}

bool wait_disconnect(int tmo_ms)
{
	int64_t end = now_ms() + tmo_ms;

	while (!P.disconnected && now_ms() < end)
		poll_some();
	return P.disconnected;
}

bool remote_refused(int st)
{
	return st == IBV_WC_REM_ACCESS_ERR || st == IBV_WC_REM_INV_REQ_ERR ||
	       st == IBV_WC_REM_OP_ERR;
}

/* A SEND of @opcode; @extra its immediate or the key it invalidates. */
static int post_send_op(struct ibv_qp *qp, const void *buf, uint32_t n,
			enum ibv_wr_opcode opcode, uint32_t extra)
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
	wr.opcode = opcode;
	if (opcode == IBV_WR_SEND_WITH_INV)
		wr.invalidate_rkey = extra;
	else
		wr.imm_data = htonl(extra);
	wr.send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(qp, &wr, &bad))
		return -1;
	P.sends_out++;
	return 0;
}

int send_bytes(const void *buf, uint32_t n, bool with_imm, uint32_t imm)
{
	return send_bytes_on(P.qp, buf, n, with_imm, imm);
}

int send_bytes_on(struct ibv_qp *qp, const void *buf, uint32_t n, bool with_imm,
		  uint32_t imm)
{
	return post_send_op(qp, buf, n,
			    with_imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND, imm);
}

int send_bytes_inv(const void *buf, uint32_t n, uint32_t rkey)
{
	return post_send_op(P.qp, buf, n, IBV_WR_SEND_WITH_INV, rkey);
}

uint32_t post_rdma(enum ibv_wr_opcode op, void *local, uint32_t len,
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

int wait_rdma(uint32_t idx, int tmo_ms)
{
	int64_t end = now_ms() + tmo_ms;

	while (!P.rdma_done[idx]) {
		if (now_ms() >= end)
			return -1;
		poll_some();
	}
	return P.rdma_done[idx] - 1;
}

int rdma_sync(enum ibv_wr_opcode op, void *local, uint32_t len,
	      uint64_t raddr, uint32_t rkey)
{
	return wait_rdma(post_rdma(op, local, len, P.mr->lkey, raddr, rkey), P.tmo_ms);
}

const char *wc_str(int st)
{
	return st < 0 ? "timeout" : ibv_wc_status_str((enum ibv_wc_status)st);
}

void wait_cm(enum rdma_cm_event_type want, struct rdma_cm_event **out)
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

void setup_queues(struct rdma_cm_id *id)
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

void open_event_channel(void)
{
	int fl;

	P.ec = rdma_create_event_channel();
	if (!P.ec)
		die("rdma_create_event_channel: %s", strerror(errno));
	fl = fcntl(P.ec->fd, F_GETFL);
	if (fl < 0 || fcntl(P.ec->fd, F_SETFL, fl | O_NONBLOCK) < 0)
		die("fcntl: %s", strerror(errno));
}

void resolve_addr(struct rdma_cm_id *id, const char *addr, const char *port)
{
	struct addrinfo hints = { .ai_family = AF_INET }, *res;
	struct rdma_cm_event *ev;

	struct sockaddr_in src = { .sin_family = AF_INET };

	if (getaddrinfo(addr, port, &hints, &res))
		die("bad address %s:%s", addr, port);
	/*
	 * With -s, every connection of the run comes from a port of its own,
	 * so that the kernel's events for it can be told from any other
	 * scenario's (an ephemeral port can come back in a later run).
	 */
	if (P.sport)
		src.sin_port = htons(P.sport++);
	if (rdma_resolve_addr(id, P.sport ? (struct sockaddr *)&src : NULL,
			      res->ai_addr, 5000))
		die("rdma_resolve_addr: %s", strerror(errno));
	freeaddrinfo(res);
	wait_cm(RDMA_CM_EVENT_ADDR_RESOLVED, &ev);
	rdma_ack_cm_event(ev);
}

void record_lport(struct rdma_cm_id *id)
{
	struct sockaddr *sa = rdma_get_local_addr(id);

	if (sa && sa->sa_family == AF_INET)
		P.lport = ntohs(((struct sockaddr_in *)sa)->sin_port);
	else if (sa && sa->sa_family == AF_INET6)
		P.lport = ntohs(((struct sockaddr_in6 *)sa)->sin6_port);
}

bool client_connect(const char *addr, const char *port,
		    const void *pdata, uint8_t plen, uint8_t rnr_retry)
{
	struct rdma_conn_param cp = {};
	struct rdma_cm_event *ev;
	int64_t end;

	open_event_channel();
	if (rdma_create_id(P.ec, &P.id, NULL, RDMA_PS_TCP))
		die("rdma_create_id: %s", strerror(errno));
	resolve_addr(P.id, addr, port);
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

void client_close(void)
{
	if (P.id && P.established && !P.disconnected) {
		rdma_disconnect(P.id);
		wait_disconnect(2000);
	}
}

/*
 * A zero-length RDMA WRITE needs no rkey and
 * consumes nothing at the peer; it fails (transport retries exceeded) if
 * the peer's QP is gone.
 */
int probe_peer(void)
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
