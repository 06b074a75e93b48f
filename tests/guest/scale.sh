#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Scale: N sessions (64; 16 under KRDMA_SLOW) between the two guests, a bw
# test running on every one of them at once, all complete with their data
# checked; the kernel memory a session costs is measured on both sides
# (MemAvailable before and after, held under a bound; Slab's part of it
# reported beside); everything is given back at the end.
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
PORT=7477
N=64
[ -z "${KRDMA_SLOW:-}" ] || N=16
# Bound on the memory of one session with the queues below, in KiB: its
# receive buffers (16 x 8 KiB), control buffers (64 x 8 KiB), QP, CQ and
# a test's buffers come to about 700 KiB; 2 MiB leaves room for what the
# RDMA core and rxe allocate per QP.
MAX_KIB=2048
COUNT=300
[ -z "${KRDMA_SLOW:-}" ] || COUNT=50

mem_kib() {
	sed -n "s/^$1: *\([0-9]*\) kB/\1/p" /proc/meminfo
}

sessions_up() {
	[ "$(krdmactl -j session show | json_get "sum(1 for s in d if s['state'] == 'up')")" = "$1" ]
}

# report NAME BEFORE-AVAIL: the memory per session since BEFORE-AVAIL
# (held to MAX_KIB), and the slab's part of it since SLAB0 (reported).
report() {
	_used=$(($2 - $(mem_kib MemAvailable)))
	_per=$((_used / N))
	_slab=$(($(mem_kib Slab) - SLAB0))
	log "memory: $_used KiB for $N sessions, $_per KiB per session; slab: $_slab KiB, $((_slab / N)) KiB per session"
	result "$1" "$([ "$_per" -le $MAX_KIB ] && echo ok || echo fail)" "kib_per_session=$_per" \
		"slab_kib_per_session=$((_slab / N))"
}

sync
echo 3 >/proc/sys/vm/drop_caches
AVAIL0=$(mem_kib MemAvailable)
SLAB0=$(mem_kib Slab)

if [ "$KRDMA_NODE" = 1 ]; then
	expect_ok listener.add krdmactl listener add name scale port $PORT
	barrier listening
	barrier connected 1200
	wait_for -t 120 sessions_up $N && result server.all_up ok || result server.all_up fail
	report server.mem_per_session "$AVAIL0"
	barrier measured
	barrier client_done 2400
	wait_for -t 120 no_sessions &&
		result server.all_gone ok || result server.all_gone fail
	no_data_errors server.no_errors
	barrier server_checked
	exit 0
fi

barrier listening
i=0
while [ $i -lt $N ]; do
	i=$((i + 1))
	out=$(timeout 90 krdmactl session connect addr "$KRDMA_PEER_IP" port $PORT \
		name "sc$i" max_msg 4K rq_depth 16 sq_depth 128 timeout 60s 2>&1) ||
		{ echo "$out"; result "connect.sc$i" fail; }
done
wait_for -t 120 sessions_up $N && result client.all_up ok || result client.all_up fail
barrier connected
report client.mem_per_session "$AVAIL0"
barrier measured

# A bw test on every session at once.
T=$(mktemp -d /tmp/scale.XXXXXX)
i=0
while [ $i -lt $N ]; do
	i=$((i + 1))
	krdmactl -j test start session "sc$i" op write mode bw size 4096 \
		count $COUNT depth 16 >"$T/start.$i" 2>&1 ||
		{ cat "$T/start.$i"; result "start.sc$i" fail; }
done
all_done() {
	[ "$(krdmactl -j test show | json_get "sum(1 for t in d if t['state'] == 'done')")" = "$N" ]
}
wait_for -t 1200 -i 2 all_done && result tests.all_done ok || result tests.all_done fail
json_check tests.all_passed "krdmactl -j test show" \
	"len(d) == $N and all(t['status'] == 0 and t['iters'] == $COUNT and t['validated'] >= 1 for t in d)"

i=0
while [ $i -lt $N ]; do
	i=$((i + 1))
	krdmactl session del name "sc$i" || result "del.sc$i" fail
done
wait_for -t 120 no_sessions && result client.all_gone ok || result client.all_gone fail
barrier client_done
barrier server_checked
