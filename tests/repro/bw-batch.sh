#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Measurement, not part of any suite: what krdma's batching costs and
# gives at small messages (issue 32: "at least 1.0 x perftest's message
# rate and 2 x its messages per CPU-second" at 64 B). A bw test keeps
# depth messages in flight, asks for a completion on one in signal_every
# and posts chain WRs per ib_post_send(); each completion is a wake-up of
# the CQ's kworker, each post a pass through rxe's send queue lock.
#
#   make check-vm GUEST_TESTS=../repro/bw-batch
#
# Rounds, KRDMA_REPRO_SECS (5) seconds each, in one pair of guests: write
# (and send) 64 B bw at each "depth/signal_every/chain" of
# KRDMA_REPRO_CONFIGS, the whole list twice (A B C A B C: a drift of the
# bed shows as a difference between a config's two rounds). Each round:
# messages a second, and microseconds of busy CPU a message over both
# guests, from krdma's own host_cpu and peer_host_cpu (busy_pct x
# capacity_ns: every CPU of the host over the test; they agree with
# /proc/stat, Documentation/performance.md), client and server apart.
# Node 1 waits through the rounds in one sleep. Results of 2026-12-01:
# Documentation/performance.md, "Batching at 64 B".
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
PORT=7497
SECS=${KRDMA_REPRO_SECS:-5}
CONFIGS=${KRDMA_REPRO_CONFIGS:-64/16/8 64/64/32 128/64/32 128/128/32}
OPS=${KRDMA_REPRO_OPS:-write send}
ROUNDS=0
for pass in 1 2; do
	for op in $OPS; do
		for c in $CONFIGS; do
			ROUNDS=$((ROUNDS + 1))
		done
	done
done

if [ "$KRDMA_NODE" = 1 ]; then
	expect_ok listener.add krdmactl listener add name l port $PORT
	barrier listening
	barrier go 300
	# Every round SECS and a few for its setup and end (the client then
	# waits for this sleep, not the other way round: no polling here
	# during a round).
	sleep $((ROUNDS * (SECS + 6)))
	barrier end.rounds $((ROUNDS * (SECS + 10) + 300))
else
	barrier listening
	expect_ok connect timeout 120 krdmactl session connect addr "$KRDMA_PEER_IP" \
		port $PORT name s timeout 60s rq_depth 160 sq_depth 1024
	barrier go 300
	for pass in 1 2; do
		for op in $OPS; do
			for c in $CONFIGS; do
				d=${c%%/*} rest=${c#*/}
				s=${rest%%/*} ch=${rest#*/}
				krdmactl -j test run session s op "$op" mode bw size 64 \
					duration "${SECS}s" depth "$d" signal_every "$s" \
					chain "$ch" >/tmp/r.json 2>&1
				fig=$(json_get "'msgs_per_s=%.0f us_per_msg=%.1f client_us=%.1f server_us=%.1f status=%d' % (r['iters'] / (r['elapsed_ns'] / 1e9),
					(r['host_cpu']['busy_pct'] * r['host_cpu']['capacity_ns'] + r['peer_host_cpu']['busy_pct'] * r['peer_host_cpu']['capacity_ns']) / 100 / 1e3 / r['iters'],
					r['host_cpu']['busy_pct'] * r['host_cpu']['capacity_ns'] / 100 / 1e3 / r['iters'],
					r['peer_host_cpu']['busy_pct'] * r['peer_host_cpu']['capacity_ns'] / 100 / 1e3 / r['iters'],
					r['status'])" </tmp/r.json) ||
					log "$op $c: $(cat /tmp/r.json)"
				result "round.$pass.$op.$d-$s-$ch" ok "${fig:-failed}"
			done
		done
	done
	barrier end.rounds 600
	krdmactl session del name s
fi
barrier end 300
