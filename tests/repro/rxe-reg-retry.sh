#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Reproducer, not part of any suite: rxe (6.1) runs a REG_MR work request
# a second time when it retransmits, and the second run fails the QP
# ("rxe_reg_fast_mr: mr->lkey = 0x... not free"; make check-mesh, pair
# 1-2). Run it through the slot semaphore:
#
#   /work/vmslot env KERNEL=$(make -s kver) KRDMA_SUITE_OUT=/tmp/out \
#       tests/run-guest-suite.sh tests/repro/rxe-reg-retry.sh
#
# Node 2 drives KRDMA_REPRO_ROUNDS (default 12) bidir bw WRITE tests over
# one session; node 1, the responder, loses KRDMA_REPRO_NETEM (default
# "loss 5%") of what it sends. For a bidir test the responder posts, on
# the session's QP, its mirror's TEST_REQ, then one REG_MR per slot, then
# its TEST_ACK. When the TEST_REQ (or its ACK) is lost, rxe retransmits
# from the oldest unacknowledged WQE: req_retry() (rxe_req.c) skips the
# REG_MRs, already "done" but not yet completed behind the TEST_REQ, and
# req_next_wqe() hands them to rxe_do_local_ops() again all the same;
# rxe_reg_fast_mr() finds the MR VALID and fails the WQE, the requester
# flushes everything after it, and once the TEST_REQ is acknowledged the
# completer fails the QP (COMPST_ERROR, rxe_qp_error()).
# Results: round.N per test (ok: it passed), then per node the rxe
# counters, the "not free" lines and why the session went down
# (krdma's pr_debug, turned on here).
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
PORT=7493
IF=$(rdma link show rxe0/1 | sed -n 's/.*netdev \([^ ]*\).*/\1/p')
ROUNDS=${KRDMA_REPRO_ROUNDS:-12}

echo 30000 >/sys/module/krdma/parameters/peer_timeout_ms
echo 'module krdma func krdma_session_close_work +p' \
	>/sys/kernel/debug/dynamic_debug/control 2>/dev/null

rxe_counters() {
	rdma -j statistic show link rxe0/1 |
		json_get "' '.join('%s=%s' % (k, v) for k, v in d[0].items() if isinstance(v, int) and v)"
}

if [ "$KRDMA_NODE" = 1 ]; then
	modprobe -q sch_netem 2>/dev/null ||
		{ [ ! -f "$KRDMA_ROOT/kmod/extra/sch_netem.ko" ] ||
			insmod "$KRDMA_ROOT/kmod/extra/sch_netem.ko"; }
	# shellcheck disable=SC2086 # netem's arguments are words
	tc qdisc replace dev "$IF" root netem ${KRDMA_REPRO_NETEM:-loss 5%} &&
		result netem.installed ok || result netem.installed fail
	expect_ok listener.add krdmactl listener add name l port $PORT
	log "server before: $(rxe_counters)"
	barrier listening
	barrier done 1800
	log "server after: $(rxe_counters)"
else
	log "client before: $(rxe_counters)"
	barrier listening
	expect_ok connect timeout 120 krdmactl session connect \
		addr "$KRDMA_PEER_IP" port $PORT name s timeout 60s
	i=1
	while [ "$i" -le "$ROUNDS" ]; do
		t0=$(date +%s)
		json_check "round.$i" \
			"krdmactl -j test run session s op write mode bw size 64K count 50 depth 16 bidir | tee /tmp/round.json" \
			"d['status'] == 0 and d['iters'] == d['peer_iters'] == 50"
		log "round $i: $(($(date +%s) - t0)) s: $(json_get "'%s %s iters=%s peer_iters=%s' % (d['status'], d.get('reason', ''), d['iters'], d['peer_iters'])" </tmp/round.json 2>/dev/null)"
		no_sessions && { log "session gone after round $i"; break; }
		i=$((i + 1))
	done
	log "client after: $(rxe_counters)"
	krdmactl session del name s 2>/dev/null
	wait_for -t 60 no_sessions
	barrier done
fi
n=$(dmesg | grep -c 'rxe_reg_fast_mr.*not free')
log "node $KRDMA_NODE: $n 'not free' lines"
dmesg | grep -E 'not free|krdma: session' || true
barrier end 300
