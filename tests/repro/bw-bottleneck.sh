#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Measurement, not part of any suite: where the time of a one-QP RDMA
# WRITE or READ bandwidth run goes on each guest, per vCPU, for perftest
# and for krdma in the same guests (issue 15: "at least 1.25 x perftest"
# for write and read at 64 KiB and 1 MiB).
#
#   KERNEL=$(make -s kver) KRDMA_SUITE_OUT=/tmp/out \
#       tests/run-guest-suite.sh tests/repro/bw-bottleneck.sh
#
# Node 2 runs each tool for KRDMA_REPRO_SECS (5) seconds per point of
# KRDMA_REPRO_POINTS ("write:65536 read:65536"); both nodes read
# /proc/stat around it and log, per vCPU, the share of the interval that
# was busy and the share that was softirq (where rxe's packet work runs:
# the virtio NIC has one queue, so its receive work starts on one vCPU).
# A tool held by the guest's CPU shows one vCPU near 100%. Results:
# point.TOOL.OP.SIZE with mb_s= and, per node and vCPU, busy/softirq %.
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
PORT=7493
PTPORT=18600
SECS=${KRDMA_REPRO_SECS:-5}
POINTS=${KRDMA_REPRO_POINTS:-write:65536 read:65536}
GID=$(gid_index) || GID=1
PT="-d rxe0 -x $GID -F"

# cpu_snap FILE: the per-vCPU lines of /proc/stat.
cpu_snap() { grep '^cpu[0-9]' /proc/stat >"$1"; }

# cpu_share BEFORE AFTER: "cpuN=busy%/softirq% ..." over the interval.
cpu_share() {
	awk 'NR == FNR { for (i = 2; i <= NF; i++) a[$1, i] = $i; next }
	{
		t = 0
		for (i = 2; i <= NF; i++) { d[i] = $i - a[$1, i]; t += d[i] }
		if (t <= 0) t = 1
		printf "%s%s=%d/%d", sep, $1, 100 * (t - d[5] - d[6]) / t, 100 * d[8] / t
		sep = " "
	} END { print "" }' "$1" "$2"
}

i=0
if [ "$KRDMA_NODE" = 1 ]; then
	expect_ok listener.add krdmactl listener add name l port $PORT
	barrier listening
	for p in $POINTS; do
		op=${p%%:*} size=${p#*:}
		i=$((i + 1))
		timeout $((SECS * 4 + 60)) "ib_${op}_bw" $PT -p $((PTPORT + i)) \
			-s "$size" -D $((SECS + 2)) -f 1 -Q 1 -N >"/tmp/pt$i.log" 2>&1 &
		sleep 1
		for tool in pt kr; do
			barrier "start.$tool.$i" 300
			cpu_snap /tmp/c0
			barrier "end.$tool.$i" 300
			cpu_snap /tmp/c1
			log "node1 $tool $op $size: $(cpu_share /tmp/c0 /tmp/c1)"
			result "node1.$tool.$op.$size" ok "$(cpu_share /tmp/c0 /tmp/c1)"
		done
		wait
	done
else
	barrier listening
	expect_ok connect timeout 120 krdmactl session connect addr "$KRDMA_PEER_IP" \
		port $PORT name s timeout 60s max_msg 1M sq_depth 1024 rq_depth 80
	for p in $POINTS; do
		op=${p%%:*} size=${p#*:}
		i=$((i + 1))
		for tool in pt kr; do
			barrier "start.$tool.$i" 300
			cpu_snap /tmp/c0
			if [ "$tool" = pt ]; then
				# shellcheck disable=SC2086 # perftest's options are words
				timeout $((SECS * 4 + 60)) "ib_${op}_bw" $PT -p $((PTPORT + i)) \
					-s "$size" -D $((SECS + 2)) -f 1 -Q 1 -N "$KRDMA_PEER_IP" \
					>"/tmp/ptc$i.log" 2>&1
				# The line under the header: bytes, iterations, peak, average.
				# Its average is often 0.00 in duration mode at these rates
				# (tests/bench/report.py): MB/s from the iterations.
				mbs=$(awk -v secs="$SECS" '/BW average/ { getline
					printf "%.2f", $1 * $2 / secs / 1e6; exit }' "/tmp/ptc$i.log")
			else
				krdmactl -j test run session s op "$op" mode bw size "$size" \
					duration "${SECS}s" depth 64 >"/tmp/kr$i.json" 2>&1
				mbs=$(json_get "(r or {}).get('mb_per_s', 0)" </tmp/kr$i.json)
			fi
			cpu_snap /tmp/c1
			barrier "end.$tool.$i" 300
			log "node2 $tool $op $size: $mbs MB/s $(cpu_share /tmp/c0 /tmp/c1)"
			result "point.$tool.$op.$size" ok "mb_s=$mbs" "$(cpu_share /tmp/c0 /tmp/c1)"
			cp "/tmp/ptc$i.log" "$KRDMA_OUT/pt$i.log" 2>/dev/null
		done
	done
	krdmactl session del name s
fi
barrier end 300
