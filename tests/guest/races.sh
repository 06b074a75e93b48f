#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Races a test would otherwise hit only by luck, made certain with the
# delays of debugfs krdma/ (kmod/fault.c).
#
# A server session deleted while its CONNECT_REQUEST handler is still
# building it: the handler sleeps delay_publish_ms (5 s) once the session
# can be found, and node 1 deletes it then - once as a user would (finds
# it with "session show", deletes it by id), once by the name it will
# have, as soon as that name exists. Node 2's connect must end by itself
# (up, or down with a reason: the second time "rejected by peer: peer
# shutting down", the session having been closed before the accept), no
# session may be left on either node, and the RDMA resources (rdma
# resource: qp, cq, pd, mr, cm_id) must be back at their baseline on
# both. The harness fails the run on any oops or WARN. Before the fix a
# SESSION_DEL there made the handler build queues on a CM id teardown had
# already taken (a NULL pointer dereference), or accept a session already
# down and leak its QP, CQ and device reference.
#
# A client session whose teardown is slow: node 2's teardown sleeps
# delay_teardown_ms (8 s) holding the session's cm_mutex, as a long drain
# would. Meanwhile a session dump (unprivileged, like any "session show")
# and another genetlink family's request (nlctrl, "genl ctrl get") must
# answer within 4 s (the debug kernel is slow). Before the fix the dump waited for the teardown's
# cm_mutex holding genl_mutex, and every genetlink request of the host
# with it.
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
PORT=7531
DELAY=5000	# ms; a "session show" takes well under a second
KNOB=/sys/kernel/debug/krdma/delay_publish_ms
TKNOB=/sys/kernel/debug/krdma/delay_teardown_ms
TDELAY=8000	# ms; twice what a request may take meanwhile
T=$(mktemp -d /tmp/races.XXXXXX)

# rdma_counts: the rdma resource totals of every device, e.g.
# "cm_id=1 cq=2 mr=0 pd=2 qp=2".
rdma_counts() {
	rdma -j resource show 2>/dev/null | python3 -c '
import json, sys
tot = {}
for e in json.load(sys.stdin):
    for k, v in e.items():
        if k in ("qp", "cq", "pd", "mr", "cm_id"):
            tot[k] = tot.get(k, 0) + v
print(" ".join("%s=%d" % kv for kv in sorted(tot.items())))'
}

rdma_back() {
	[ "$(rdma_counts)" = "$(cat "$T/rdma.base")" ]
}

# settled ROUND: no session left here, and the RDMA resources back.
settled() {
	wait_for -t 60 no_sessions && result "$1.no_session" ok ||
		{ krdmactl -j session show; result "$1.no_session" fail; }
	if wait_for -t 60 rdma_back; then
		result "$1.rdma_baseline" ok "$(tr ' ' ',' <"$T/rdma.base")"
	else
		result "$1.rdma_baseline" fail "base=$(tr ' ' ',' <"$T/rdma.base")" \
			"now=$(rdma_counts | tr ' ' ',')"
	fi
}

# server_session: true once this node has a server session; its id in
# $T/sid (wait_for discards the output of what it runs).
server_session() {
	krdmactl -j session show 2>/dev/null |
		json_get "[s['session_id'] for s in d if s['role'] == 'server'][0]" >"$T/sid"
}

rdma_counts >"$T/rdma.base"
log "rdma resources: $(cat "$T/rdma.base")"

if [ "$KRDMA_NODE" = 1 ]; then
	if [ -w "$KNOB" ]; then
		result knob ok
	else
		result knob fail "missing=$KNOB"
	fi
	echo $DELAY >"$KNOB"
	expect_ok listener.add krdmactl listener add name races port $PORT
	rdma_counts >"$T/rdma.base"

	# Round 1: "session show" finds it, "session del" deletes it.
	barrier r1
	if wait_for -t 60 -i 0.2 server_session; then
		ID=$(cat "$T/sid")
		expect_ok r1.del krdmactl session del "$ID"
	else
		ID=0
		result r1.found fail
	fi
	settled r1
	barrier r1_done 120

	# Round 2: deleted by name as soon as the name exists. Server
	# sessions are named s<id>, ids are given out in turn, and only
	# this test makes sessions here.
	NAME=s$((ID + 1))
	barrier r2
	if wait_for -t 60 -i 0.2 krdmactl session del name "$NAME"; then
		result r2.del ok "name=$NAME"
	else
		krdmactl -j session show
		result r2.del fail "name=$NAME"
	fi
	settled r2
	barrier r2_done 120

	echo 0 >"$KNOB"
	barrier r3
	barrier r3_done 120
	settled r3
	expect_ok listener.del krdmactl listener del name races
else
	# connect ROUND: connects and records how it ended.
	connect() {
		timeout 90 krdmactl -j session connect addr "$KRDMA_PEER_IP" port $PORT \
			name "$1" timeout 30s >"$T/$1.out" 2>"$T/$1.err"
		echo $? >"$T/$1.rc"
		log "$1: connect rc=$(cat "$T/$1.rc"): $(cat "$T/$1.out" "$T/$1.err")"
	}

	barrier r1
	connect r1
	# Up and then closed by the peer, or down at once: either way, a
	# state and no hang (timeout(1) exits 124).
	json_check r1.connect_ended "cat $T/r1.out" \
		"d['state'] == 'up' or (d['state'] == 'down' and d['reason'])"
	settled r1
	barrier r1_done 120

	barrier r2
	connect r2
	json_check r2.rejected "cat $T/r2.out" \
		"d['state'] == 'down' and d['reason'] == 'rejected by peer: peer shutting down'"
	settled r2
	barrier r2_done 120

	# Round 3: requests while a teardown is slow.
	barrier r3
	connect r3
	json_check r3.up "cat $T/r3.out" "d['state'] == 'up'"
	if [ -w "$TKNOB" ]; then
		result r3.knob ok
	else
		result r3.knob fail "missing=$TKNOB"
	fi
	echo $TDELAY >"$TKNOB"
	expect_ok r3.del krdmactl session del name r3
	# A dump under way, and then another family's request beside it.
	(timeout 4 krdmactl -j session show >"$T/r3.show" 2>&1
	 echo $? >"$T/r3.show.rc") &
	sleep 0.3
	expect_ok r3.other_family_answers timeout 4 genl ctrl get name nlctrl
	wait
	json_check r3.dump_answers "cat $T/r3.show" \
		"[s['state'] for s in d if s['name'] == 'r3'] == ['closing']"
	log "r3: session show rc=$(cat "$T/r3.show.rc")"
	settled r3
	echo 0 >"$TKNOB"
	barrier r3_done 120
fi
rm -rf "$T"
exit 0
