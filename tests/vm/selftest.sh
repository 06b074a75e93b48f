#!/bin/sh
# selftest.sh - guest script proving the VM harness works without krdma:
# rxe0 is ACTIVE, barriers work, and RDMA traffic flows between two guests
# (rping over rdma_cm, ibv_rc_pingpong over raw verbs).
#
#     KRDMA_NO_LOAD=1 tests/vm/run.sh tests/vm/selftest.sh

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$KRDMA_ROOT/tests/vm/lib.sh"

expect_ok rxe0.exists rdma link show rxe0/1
expect_ok rxe0.active sh -c 'rdma link show rxe0/1 | grep -q "state ACTIVE"'
expect_ok verbs.device sh -c 'ibv_devices | grep -q rxe0'

gid=$(gid_index) || gid=1
# shellcheck disable=SC2317 # called through wait_for
cm_listening() { rdma resource show cm_id 2>/dev/null | grep -q LISTEN; }

# shellcheck disable=SC2317 # called through expect_ok
ping_node() {
	if command -v ping >/dev/null 2>&1; then
		ping -c 3 -W 5 "$1"
	else
		busybox ping -c 3 -W 5 "$1"
	fi
}

if [ "$KRDMA_NODES" -ne 2 ]; then
	# 1 or >2 guests: IP reachability of every other node over the wire,
	# RDMA over rxe loopback on each node.
	barrier start || exit 1
	i=1
	while [ "$i" -le "$KRDMA_NODES" ]; do
		[ "$i" -eq "$KRDMA_NODE" ] || expect_ok "ip.ping.node$i" ping_node "$(node_ip "$i")"
		i=$((i + 1))
	done
	log "rping over rxe loopback"
	timeout 90 rping -s -a "$KRDMA_IP" -C 5 >/tmp/rping-s.log 2>&1 &
	spid=$!
	wait_for -t 30 cm_listening
	expect_ok rping.loopback timeout 60 rping -c -a "$KRDMA_IP" -C 5 -v
	wait "$spid"
	barrier end || exit 1
	exit 0
fi

barrier start || exit 1

peer=$KRDMA_PEER_IP
expect_ok ip.ping ping_node "$peer"

# rping: node 1 serves, node 2 connects.  barrier "rping-listen" orders the client
# after the listen; the server exits after one connection of 5 pings.
if [ "$KRDMA_NODE" -eq 1 ]; then
	timeout 90 rping -s -a "$KRDMA_IP" -C 5 -v >/tmp/rping-s.log 2>&1 &
	spid=$!
	wait_for -t 30 cm_listening
	barrier rping-listen || exit 1
	if wait "$spid"; then
		result rping.server ok
	else
		result rping.server fail
		cat /tmp/rping-s.log
	fi
else
	barrier rping-listen || exit 1
	expect_ok rping.client timeout 60 rping -c -a "$peer" -C 5 -v
fi
barrier rping-done || exit 1

# ibv_rc_pingpong: node 1 serves (TCP 18515 for the QP exchange), node 2
# connects when the server's TCP port is listening.
if [ "$KRDMA_NODE" -eq 1 ]; then
	timeout 90 ibv_rc_pingpong -d rxe0 -g "$gid" -n 100 >/tmp/pp-s.log 2>&1 &
	spid=$!
	wait_for -t 30 sh -c 'ss -Hltn "sport = :18515" | grep -q .'
	barrier pp-listen || exit 1
	if wait "$spid"; then
		result pingpong.server ok "$(grep -o '[0-9.]* usec/iter' /tmp/pp-s.log | tr ' ' '_' | sed 's/^/lat=/')"
	else
		result pingpong.server fail
		cat /tmp/pp-s.log
	fi
else
	barrier pp-listen || exit 1
	expect_ok pingpong.client timeout 60 ibv_rc_pingpong -d rxe0 -g "$gid" -n 100 "$peer"
fi
barrier end || exit 1
exit 0
