#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# RDMA device removal (ib_client.remove and DEVICE_REMOVAL): removing rxe0
# under an idle session and under a running test ends the sessions with a
# reason; the device comes back and is used again.
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
PORT=7473
IF=$(rdma link show rxe0/1 | sed -n 's/.*netdev \([^ ]*\).*/\1/p')

readd() {
	rdma link add rxe0 type rxe netdev "$IF" &&
		wait_for -t 60 sh -c 'rdma link show rxe0/1 | grep -q ACTIVE'
}

# sessions_gone: no session left within 60 s; else what is left is shown.
sessions_gone() {
	wait_for -t 60 no_sessions && return 0
	krdmactl -j session show
	return 1
}

if [ "$KRDMA_NODE" = 1 ]; then
	expect_ok listener.add krdmactl listener add port $PORT
	barrier listening
	barrier connected 300
	# 1. Our device goes away under an idle session.
	log "deleting rxe0 under an idle session"
	expect_ok server.link_delete rdma link delete rxe0
	sessions_gone && result server.sessions_ended ok || result server.sessions_ended fail
	json_check server.no_device "krdmactl -j dev show" "len(d) == 0"
	expect_ok server.link_readd readd
	json_check server.device_back "krdmactl -j dev show" "len(d) == 1 and d[0]['state'] == 'ACTIVE'"
	barrier readded
	barrier "done" 600
	exit 0
fi

barrier listening
expect_ok connect krdmactl session connect addr "$KRDMA_PEER_IP" port $PORT name c1
barrier connected
# The peer's removal reaches us as a disconnect.
sessions_gone && result client.peer_removal_seen ok || result client.peer_removal_seen fail
barrier readded

# 2. Our own device goes away under a running test.
log "peer's device back; reconnecting"
expect_ok reconnect krdmactl session connect addr "$KRDMA_PEER_IP" port $PORT name c2
run_test after_readd c2 write 65536 20 4
krdmactl -j test run session c2 op write size 4096 duration 60s depth 4 >/tmp/dr.json 2>&1 &
runner=$!
wait_for -t 60 sh -c 'krdmactl -j test show | grep -q "\"state\":\"running\""'
log "deleting rxe0 under a running test"
expect_ok client.link_delete rdma link delete rxe0
runner_ended client.test_ended_with_reason $runner /tmp/dr.json removed 90
sessions_gone && result client.sessions_ended ok || result client.sessions_ended fail
expect_ok client.link_readd readd
expect_ok reconnect_again krdmactl session connect addr "$KRDMA_PEER_IP" port $PORT name c3
run_test after_own_readd c3 read 65536 20 4
barrier "done"
