#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Guest side of the performance comparison (tests/bench/run.sh): the host
# part, tests/bench/bench-host.sh, run as it is on two hosts of one's own
# (Documentation/performance.md), in the pair of guests: node 1 is its
# server side (perftest servers, iperf3 -s, a krdma listener), node 2 its
# client side, which measures over rxe0 and appends one JSON record per
# measurement to $KRDMA_OUT/bench-raw.jsonl; the host turns them into the
# table (ratios, targets). What differs from two real hosts is only how
# the two sides report (BENCH_HARNESS=1: the harness's result) and where
# the output goes ($KRDMA_OUT, shared by both); they meet as two hosts do,
# through tests/bench/sync.py served by node 1 over the guests' own
# network (KRDMA_PEER_IP, TCP port KRDMA_BENCH_SYNC_PORT, default 7470),
# where the waiting side blocks in a read: the harness's barrier polls
# its shared directory, and would take CPU from the point it waits out.
#
# Environment (from the host): KRDMA_BENCH_SECS (measured seconds per
# point, default 5), KRDMA_BENCH_DEPTH (krdma bandwidth depth, default
# 64), KRDMA_BENCH_QPS (QPs of the several-QP points, default 4; the
# depth is shared between them), KRDMA_BENCH_PT_EXTRA (more perftest
# options, default none), KRDMA_BENCH_ONLY (a grep -E over the step
# names, for trying out the script: "tcp|lat"), KRDMA_BENCH_ACK_TIMEOUT
# (krdma's sessions' and listener's ack_timeout; default none, the
# module's; run.sh -u, 14 with -L).
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u

BENCH_HARNESS=1
if [ "$KRDMA_NODE" = 1 ]; then
	set -- server
else
	set -- client
fi
. "$KRDMA_ROOT/tests/bench/bench-host.sh"
