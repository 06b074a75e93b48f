/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * krdma-hostile: the state of the one peer a run plays, how a run reports
 * what it saw, and the scenario table client.c and server.c fill in.
 */
#ifndef KRDMA_HOSTILE_H
#define KRDMA_HOSTILE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "wire.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The peer's memory: receive and send slots, one big SEND, test data. */
#define NRECV		32
#define RECV_SZ		(HDR_LEN + 65536)
#define NSEND		256
#define SEND_SZ		(HDR_LEN + CTRL_BODY_MAX + 64)
#define BIG_SZ		(256 << 10)
#define DATA_SZ		(8 << 20)
#define MEM_SZ		((size_t)NRECV * RECV_SZ + (size_t)NSEND * SEND_SZ + BIG_SZ + DATA_SZ)
#define OUR_MAX_MSG	65536
#define RD_ATOM		16

/* Completions tracked for RDMA operations, by index. */
#define NTRACK		4096

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
	uint16_t sport;		/* -s: next source port to bind, 0: any */
	int fails, outcomes;
};

extern struct peer P;
extern volatile sig_atomic_t got_usr1;

int64_t now_ms(void);

/* One outcome line; @safe says whether it counts as the safe behaviour. */
void outcome(bool safe, const char *out, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* An outcome "error" for what stops the run, then exit. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* After a violation: the kernel must close the session. */
void expect_closed(const char *what);

/*
 * A scenario: a client one connects to a krdma listener at ADDR PORT, a
 * server one listens on PORT for a krdma session to connect.
 */
enum role { CLIENT, SERVER };

struct target {
	const char *addr;	/* client: the listener's; server: NULL */
	const char *port;
};

struct scenario {
	const char *name;
	enum role role;
	const char *what;
	void (*run)(const struct target *t);
};

extern const struct scenario client_scenarios[];
extern const size_t n_client_scenarios;
extern const struct scenario server_scenarios[];
extern const size_t n_server_scenarios;

#endif
