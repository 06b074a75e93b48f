// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma-hostile: what a client peer may make the kernel spend: sessions,
 * queues and test memory held against its caps, tests over its memory
 * caps, and tests left silent for its stall timer to close.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostile.h"
#include "verbs.h"
#include "client.h"

/*
 * hold_queues: what the kernel's QPs and CQs cost it is the client's to
 * choose - its send queue depth on every QP and the number of QPs - so
 * the most of both, with the least of what the kernel charged all along
 * (receives, their size: hello_mem_hog asks for their most).
 */
#define HOG_SQ		4096
#define HOG_RQ		8
#define HOG_MAX_MSG	4096
#define HOG_CHANNELS	(KRDMA_QPS_MAX - 1)

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
void sc_hold(const struct target *t)
{
	if (!connected(t))
		return;
	if (hold_session())
		outcome(true, "ok", "held_until_SIGUSR1");
	client_close();
}

/*
 * Data channel @index of the session, with a QP of our own as small as
 * can be: the kernel's are sized by the session's hello. Returns 0 when
 * connected (*@out is its id), else the reject reason (-1: none came).
 */
static int hog_channel(const struct target *t, uint8_t index,
		       struct rdma_cm_id **out)
{
	struct hello h;

	good_hello(&h);
	h.sq = HOG_SQ;
	h.rq = HOG_RQ;
	h.max_msg = HOG_MAX_MSG;
	h.channels = HOG_CHANNELS;
	h.channel = index;
	return channel_join(t, &h, 1, RD_ATOM, RD_ATOM, out, NULL, NULL);
}

/*
 * A session of 16 QPs with the deepest send queues, every data channel
 * connected, held until SIGUSR1. The kernel may refuse the session, or
 * any channel, over its memory caps (reject 8); the script runs several
 * and reads back that the kernel stayed within them.
 */
void sc_hold_queues(const struct target *t)
{
	struct rdma_cm_id *ids[HOG_CHANNELS] = {};
	unsigned int up = 0, refused = 0;
	uint8_t hb[HELLO_LEN];
	struct hello h;
	int r;

	good_hello(&h);
	h.sq = HOG_SQ;
	h.rq = HOG_RQ;
	h.max_msg = HOG_MAX_MSG;
	h.channels = HOG_CHANNELS;
	hello_pack(hb, &h);
	if (!client_connect(t->addr, t->port, hb, HELLO_LEN, 7)) {
		if (P.rejected && P.reject_reason == KRDMA_REJ_MEM_LIMIT)
			outcome(true, "refused", "session_refused reason=%d",
				P.reject_reason);
		else
			outcome(false, P.rejected ? "unexpected" : "error",
				"session not accepted (rejected=%d reason %d)",
				P.rejected, P.reject_reason);
		return;
	}
	for (uint8_t i = 1; i <= HOG_CHANNELS && !P.disconnected; i++) {
		r = hog_channel(t, i, &ids[i - 1]);
		if (!r) {
			up++;
		} else if (r == KRDMA_REJ_MEM_LIMIT) {
			refused++;
		} else {
			outcome(false, "unexpected", "data channel %u: reject reason %d",
				i, r);
			client_close();
			return;
		}
	}
	printf("HOSTILE scenario=%s step=held lport=%u channels_up=%u channels_refused=%u\n",
	       P.scen, P.lport, up, refused);
	fflush(stdout);
	if (!hold_session())
		return;
	outcome(true, refused ? "refused" : "ok",
		"held_until_SIGUSR1 channels_up=%u channels_refused=%u", up, refused);
	for (unsigned int i = 0; i < HOG_CHANNELS; i++)
		if (ids[i])
			rdma_disconnect(ids[i]);
	client_close();
}

/*
 * The TEST_ACK @m of a test to hold (@what): accepted, it is held until
 * SIGUSR1, then ended by TEST_END; the kernel must answer TEST_RESULT.
 */
static void hold_test(struct msg *m, const char *what)
{
	if (!m || m->status) {
		outcome(false, "error", "the kernel refused a %s (status %u)", what,
			m ? m->status : 0);
		free(m);
		return;
	}
	free(m);
	if (!hold_session())
		return;
	send_msg(KRDMA_MSG_TEST_END, g_test_id, 0, 0, NULL, 0);
	m = wait_msg(KRDMA_MSG_TEST_RESULT, P.tmo_ms);
	outcome(m != NULL, m ? "ok" : "hang", "held_until_SIGUSR1 TEST_RESULT=%s",
		m ? "yes" : "no");
	free(m);
	client_close();
}

/* A bw write test of 8 MiB, held: its target stays pinned in the kernel. */
void sc_hold_bw(const struct target *t)
{
	if (!connected(t))
		return;
	hold_test(test_req_mode(KRDMA_OP_WRITE, KRDMA_MODE_BW, DATA_SZ, 1, 0, 0, NULL, 0),
		  "bw write of 8 MiB");
}

/* Our target, which the kernel's lat write responder writes back into. */
static struct msg *lat_write_req(void)
{
	struct region r[1];

	r[0] = (struct region){ (uintptr_t)P.data, P.mr->rkey, 4096 };
	return test_req_mode(KRDMA_OP_WRITE, KRDMA_MODE_LAT, 4096, 1, 1, 0, r, 1);
}

/*
 * A lat write test, held without a write: the kernel's responder keeps a
 * thread polling for it, one of max_responder_pollers (for less than
 * stall_ms, which the script raises for it).
 */
void sc_hold_lat_write(const struct target *t)
{
	if (!connected(t))
		return;
	hold_test(lat_write_req(), "lat write");
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

/* ---- caps and stalls: refused, or closed by the stall timer ---- */

/* As much as a ping of 126 x 8 MiB would be, over a lower cap. */
void sc_mem_per_session(const struct target *t)
{
	if (!connected(t))
		return;
	expect_status(test_req(KRDMA_OP_WRITE, DATA_SZ, 16, 0, 0, NULL, 0), EDQUOT);
}

void sc_mem_total(const struct target *t)
{
	if (!connected(t))
		return;
	expect_status(test_req_mode(KRDMA_OP_WRITE, KRDMA_MODE_BW, DATA_SZ, 1, 0, 0, NULL, 0),
		      ENOBUFS);
}

void sc_responder_stall(const struct target *t)
{
	if (!connected(t))
		return;
	expect_stall_close(test_req(KRDMA_OP_WRITE, 4096, 1, 0, 0, NULL, 0),
			   "check_write_then_nothing");
}

void sc_lat_write_silent(const struct target *t)
{
	if (!connected(t))
		return;
	expect_stall_close(lat_write_req(), "lat_write_then_no_write");
}

/* One lat write more than max_responder_pollers allows: refused EUSERS. */
void sc_lat_write_cap(const struct target *t)
{
	if (!connected(t))
		return;
	expect_status(lat_write_req(), EUSERS);
}
