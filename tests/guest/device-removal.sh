#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# RDMA device removal (ib_client.remove and DEVICE_REMOVAL): removing rxe0
# under an idle session and under a running test ends the sessions with a
# reason; the device comes back and is used again. Then a listener bound
# to rxe0's address, alone and with a session of 4 QPs on it: the removal
# returns within 10 s (the CM destroys the listener's id), the listener
# stays listed with a reason until deleted (or the module unloaded), and
# once rxe0 is back its address and port are taken again and used.
# Last, rxe0 removed while a server session's CONNECT_REQUEST handler is
# still building it (debugfs delay_publish_ms holds the handler once the
# session has its device, until the session is closed): the removal finds
# that session too (krdma_device_get() sets its kdev under the lock the
# removal takes first), closes it, and returns within 10 s; the handler,
# cut short, refuses the connection, and the client's connect ends with a
# reason. Before, a session's kdev was set after its reference was taken:
# a removal in between missed it, kept waiting on the handler's CM id
# (the handler slept its whole delay) and left the PD of a gone device.
# Then node 2's address moves to another MAC (a bond's failover): its
# session ends with "local address changed" (RDMA_CM_EVENT_ADDR_CHANGE).
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
PORT=7473
BPORT=7474
IF=$(rdma_netdev rxe0)
KNOB=/sys/kernel/debug/krdma/delay_publish_ms
HOLD_MS=30000	# the longest krdma holds it (kmod/fault.c); cut short

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

# link_delete NAME: "rdma link delete rxe0" must return within 10 s. It
# runs in the background rather than under timeout(1): a removal the
# kernel cannot finish (cma_process_remove() waiting for an id nobody
# destroys) sleeps uninterruptibly, where no signal ends it and timeout
# would wait for it for ever. A blocked one is left in $LD_PID for
# ld_reap.
LD_PID=
link_delete() {
	_ld_t0=$(date +%s)
	rdma link delete rxe0 >/tmp/ld.out 2>&1 &
	LD_PID=$!
	if wait_exit "$LD_PID" 10; then
		wait "$LD_PID"
		_ld_rc=$?
		LD_PID=
		cat /tmp/ld.out
		if [ $_ld_rc -eq 0 ]; then
			result "$1" ok "secs=$(($(date +%s) - _ld_t0))"
		else
			result "$1" fail "rc=$_ld_rc"
		fi
		return
	fi
	log "rdma link delete still blocked after 10 s: state" \
		"$(cut -d' ' -f3 "/proc/$LD_PID/stat"), in" \
		"$(head -n 4 "/proc/$LD_PID/stack" | tr '\n' ' ')"
	result "$1" fail hung
}

# ld_reap: a link delete left blocked must end now (the listener that held
# it was deleted); else the device can not come back.
ld_reap() {
	[ -n "$LD_PID" ] || return 0
	if wait_exit "$LD_PID" 30; then
		wait "$LD_PID"
		log "the blocked rdma link delete ended (rc $?)"
	else
		result link_delete_released fail
	fi
	LD_PID=
}

# server_session_exists: this node has a server session (being built).
server_session_exists() {
	krdmactl -j session show | grep -q '"role":"server"'
}

# listener_removed NAME LISTENER: LISTENER is reported as having lost its
# device (get, and the dump) and bound to none.
listener_removed() {
	json_check "$1" "krdmactl -j listener show name $2" \
		"d[0].get('reason') == 'RDMA device removed' and 'dev' not in d[0]"
	json_check "$1.dump" "krdmactl -j listener show" \
		"[x.get('reason') for x in d if x['name'] == '$2'] == ['RDMA device removed']"
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
	barrier own_removal_done 600
	sessions_gone && result server.c3_ended ok || result server.c3_ended fail

	# 3a. A listener bound to rxe0's address, no session on it: the
	# removal returns, the listener is reported without its device, is
	# deleted and, once rxe0 is back, added again.
	expect_ok bound.listener_add krdmactl listener add name bound \
		addr "$KRDMA_IP" port $BPORT
	json_check bound.listener_on_rxe0 "krdmactl -j listener show name bound" \
		"d[0].get('dev') == 'rxe0' and 'reason' not in d[0]"
	log "deleting rxe0 under an address-bound listener"
	link_delete bound_idle.link_delete
	listener_removed bound_idle.listener_reason bound
	expect_ok bound_idle.listener_del krdmactl listener del name bound
	ld_reap
	json_check bound_idle.listener_gone "krdmactl -j listener show" \
		"[x for x in d if x['name'] == 'bound'] == []"
	expect_ok bound_idle.link_readd readd
	expect_ok bound_idle.listener_readd krdmactl listener add name bound \
		addr "$KRDMA_IP" port $BPORT
	json_check bound_idle.listener_on_rxe0 "krdmactl -j listener show name bound" \
		"d[0].get('dev') == 'rxe0' and 'reason' not in d[0]"

	# 3b. The same with a session of 4 QPs accepted on it. This time the
	# listener stays listed (the unload frees it) while another takes
	# its address and port.
	barrier bound_listening
	barrier bound_connected 300
	lid=$(krdmactl -j listener show name bound | json_get "d[0]['listener_id']")
	json_check bound.session_4qps "krdmactl -j session show" \
		"len(d) == 1 and d[0]['qps'] == 4 and d[0]['state'] == 'up' and d[0]['listener_id'] == ${lid:-0}"
	log "deleting rxe0 under an address-bound listener with a session of 4 QPs"
	link_delete bound_session.link_delete
	sessions_gone && result bound.server_session_ended ok ||
		result bound.server_session_ended fail
	listener_removed bound_session.listener_reason bound
	# Only a removal still blocked on the listener's id needs it deleted.
	if [ -n "$LD_PID" ]; then
		krdmactl listener del name bound
		ld_reap
	fi
	expect_ok bound_session.link_readd readd
	expect_ok bound_session.rebind krdmactl listener add name bound2 \
		addr "$KRDMA_IP" port $BPORT
	json_check bound_session.listeners "krdmactl -j listener show" \
		"sorted((x['name'], x.get('dev'), x.get('reason')) for x in d if x['name'].startswith('bound')) == [('bound', None, 'RDMA device removed'), ('bound2', 'rxe0', None)]"
	barrier bound_readded
	barrier bound_reused 300

	# 4. A server session still in its CONNECT_REQUEST handler (the
	# delay holds every new server session: only once node 2's b1 is
	# done with).
	if [ -w $KNOB ]; then
		echo $HOLD_MS >$KNOB
	else
		result held.knob fail "missing=$KNOB"
	fi
	barrier held_go
	if wait_for -t 120 server_session_exists; then
		log "deleting rxe0 under a server session being built"
		link_delete held.link_delete
	else
		result held.session_seen fail
	fi
	echo 0 >$KNOB
	sessions_gone && result held.session_ended ok || result held.session_ended fail
	ld_reap
	expect_ok held.link_readd readd
	barrier held_readded 300
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
expect_ok c3.del krdmactl session del c3
barrier own_removal_done

# 3. The peer's address-bound listener: its removal alone (3a), then
# under a session of 4 QPs (3b) whose data channels carried a test.
barrier bound_listening
expect_ok bound.connect krdmactl session connect addr "$KRDMA_PEER_IP" \
	port $BPORT name b4 qps 4
json_check bound.bw_4qps \
	"krdmactl -j test run session b4 op write mode bw size 64K count 400 qps 4" \
	"r['status'] == 0 and r['qps'] == 4 and r['iters'] == 400 and r['validated'] >= 1"
barrier bound_connected
sessions_gone && result bound.client_session_ended ok ||
	result bound.client_session_ended fail
barrier bound_readded
# The listener that took the address and port again takes sessions.
expect_ok bound.reconnect krdmactl session connect addr "$KRDMA_PEER_IP" \
	port $BPORT name b1
run_test after_bound_readd b1 write 65536 10 4
expect_ok b1.del krdmactl session del b1
barrier bound_reused

# 4. Our connection's session on the peer is removed with its device
# while it is being built: the connect ends by itself, with a reason.
barrier held_go
krdmactl -j session connect addr "$KRDMA_PEER_IP" port $PORT name h1 \
	timeout 60s >/tmp/held.json 2>/tmp/held.err
cat /tmp/held.err
json_check held.connect_refused "cat /tmp/held.json" \
	"d['state'] == 'down' and len(d.get('reason', '')) > 0"
sessions_gone || krdmactl session del h1
barrier held_readded

# 5. Our address moves: the wire's NIC becomes a slave of an active-backup
# bond (fail_over_mac active) with a dummy beside it, the address on the
# bond and an rxe device over it. A failover to the dummy gives the bond
# the dummy's MAC: the CM tells every id bound to the bond
# (RDMA_CM_EVENT_ADDR_CHANGE, cma_netdev_callback()) and the session ends
# with that reason. Last, since the wire no longer reaches this node.
# rxe0 goes first: over a bond's slave it would keep the bond's address
# in its GID table (the core lists an active slave's upper addresses), the
# CM could pick it, and its packets would reach rxeb, the bond's device.
# The address and rxe0 come back at the end.
if modprobe -q bonding max_bonds=0 && modprobe -q dummy numdummies=0; then
	monitor_start /tmp/bond.mon
	A4=$(ip -4 -o addr show dev "$IF" | awk '{print $4; exit}')
	expect_ok bond.rxe0_delete rdma link delete rxe0
	expect_ok bond.create ip link add kb0 type bond mode active-backup \
		fail_over_mac active miimon 100
	ip link add kd0 type dummy
	ip link set "$IF" down
	ip addr flush dev "$IF"
	expect_ok bond.enslave sh -c "ip link set $IF master kb0 && ip link set kd0 master kb0"
	ip link set kb0 up
	ip link set "$IF" up
	ip addr add "$A4" dev kb0
	expect_ok bond.rxe rdma link add rxeb type rxe netdev kb0
	wait_for -t 60 sh -c 'rdma link show rxeb/1 | grep -q ACTIVE' ||
		result bond.rxe_active fail
	expect_ok bond.connect krdmactl session connect addr "$KRDMA_PEER_IP" \
		port $PORT name bnd timeout 60s
	json_check bond.on_rxeb "krdmactl -j session show name bnd" \
		"d[0]['state'] == 'up' and d[0]['dev'] == 'rxeb'"
	run_test bond.before bnd write 4096 10 4
	log "bond failover: $(cat /sys/class/net/kb0/address) -> kd0"
	echo kd0 >/sys/class/net/kb0/bonding/active_slave
	wait_for -t 60 grep -q '"event":"session_down".*"name":"bnd"' /tmp/bond.mon
	json_check bond.addr_change_reason \
		"grep '\"event\":\"session_down\".*\"name\":\"bnd\"' /tmp/bond.mon" \
		"d['reason'] == 'local address changed'"
	monitor_stop
	sessions_gone && result bond.session_gone ok || result bond.session_gone fail
	expect_ok bond.rxe_delete rdma link delete rxeb
	ip link del kb0
	ip link del kd0
	ip link set "$IF" up
	ip addr add "$A4" dev "$IF"
	expect_ok bond.rxe0_readd readd
else
	result bond.modules ok skipped="no bonding or dummy module"
fi
barrier "done"
