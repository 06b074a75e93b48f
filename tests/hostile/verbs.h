/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * krdma-hostile: the verbs and rdma_cm plumbing of the one connection a
 * run has: queue pair, completion queue and memory set up, work posted,
 * completions and CM events polled.
 */
#ifndef KRDMA_HOSTILE_VERBS_H
#define KRDMA_HOSTILE_VERBS_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* wr_id: the kind of work in the high bits, its index in the low ones. */
#define WR_RECV		(1ULL << 40)
#define WR_SEND		(2ULL << 40)
#define WR_RDMA		(3ULL << 40)
#define WR_KIND(id)	((id) & (0xffULL << 40))
#define WR_IDX(id)	((uint32_t)((id) & 0xffffffffULL))

/* Handles at most one completion and the CM events; true if there was one. */
bool poll_once(void);
/* poll_once, or a short nap if there was nothing. */
void poll_some(void);
void nap(void);

/* Sends @n bytes of @buf (copied to a send slot unless it is P.big). */
int send_bytes(const void *buf, uint32_t n, bool with_imm, uint32_t imm);
/* The same on @qp (a data channel's: it shares the session's CQ and MR). */
int send_bytes_on(struct ibv_qp *qp, const void *buf, uint32_t n, bool with_imm,
		  uint32_t imm);
/* A SEND_WITH_INV of @n bytes of @buf, invalidating the peer's @rkey. */
int send_bytes_inv(const void *buf, uint32_t n, uint32_t rkey);
/* Posts one RDMA READ/WRITE/atomic; returns its tracking index. */
uint32_t post_rdma(enum ibv_wr_opcode op, void *local, uint32_t len,
		   uint32_t lkey, uint64_t raddr, uint32_t rkey);
/* Waits for RDMA op @idx; returns its ibv_wc_status, or -1 on timeout. */
int wait_rdma(uint32_t idx, int tmo_ms);
/* post_rdma from our MR, then wait_rdma. */
int rdma_sync(enum ibv_wr_opcode op, void *local, uint32_t len,
	      uint64_t raddr, uint32_t rkey);
/* An ibv_wc_status, or -1, as text. */
const char *wc_str(int st);
/*
 * Whether completion status @st is the remote side refusing the access
 * (a NAK for access, request or operation), not a peer that never
 * answered (retry exceeded) or a QP already in error (flush).
 */
bool remote_refused(int st);
/* Is the peer's QP still there? An ibv_wc_status, or -1 on timeout. */
int probe_peer(void);

/* Takes every CM event that is there, without blocking. */
void poll_cm(void);
void handle_cm_event(struct rdma_cm_event *ev);
/* The next CM event, which must be @want; dies on any other or none. */
void wait_cm(enum rdma_cm_event_type want, struct rdma_cm_event **out);
/* Bounded wait for the kernel to disconnect us. */
bool wait_disconnect(int tmo_ms);
/* An event channel whose events poll_cm takes without blocking. */
void open_event_channel(void);
/* Resolves @id to ADDR PORT (IPv4). */
void resolve_addr(struct rdma_cm_id *id, const char *addr, const char *port);
/* PD, MR over all our memory, CQ and QP on @id, receives posted. */
void setup_queues(struct rdma_cm_id *id);
void record_lport(struct rdma_cm_id *id);

/*
 * Client: connects with @pdata (@plen bytes) as the hello. Returns true
 * when established; false when rejected (P.rejected) or failed.
 */
bool client_connect(const char *addr, const char *port,
		    const void *pdata, uint8_t plen, uint8_t rnr_retry);
void client_close(void);

#endif
