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
# Round 3 (run first): a session closed while the responder's TEST_REQ
# handler, in the CQ context, sleeps delay_test_req_ms before it
# registers the test's memory. Teardown's drain waits for that handler;
# whatever it posts then comes after the drain's marker and may complete
# after the drain, into freed test state. Every post goes through the
# QP's gate, which refuses it once teardown has begun: node 1's
# module-wide REG_MR count must not move (before the fix, the handler's 4
# REG_MRs were posted on the dead QP), the driver's test must end,
# nothing may be left on either node.
#
# Round 4: a client session whose teardown is slow: node 2's teardown sleeps
# delay_teardown_ms (8 s) holding the session's cm_mutex, as a long drain
# would. Meanwhile a session dump (unprivileged, like any "session show")
# and another genetlink family's request (nlctrl, "genl ctrl get") must
# answer within 4 s (the debug kernel is slow). Before the fix the dump waited for the teardown's
# cm_mutex holding genl_mutex, and every genetlink request of the host
# with it.
#
# Round 5: a server session deleted as it goes up: its ESTABLISHED handler
# sleeps delay_set_up_ms once the session is UP, before it counts it
# opened (so node 1's module-wide sessions_opened, read after the delete,
# must not have moved: the delete came in the window). Teardown cancels
# the keepalive and then waits for the handler's cm_mutex. The session
# must go and nothing be left. Before the fix the keepalive was armed
# after the handler's sleep, behind teardown's cancel, and ran on the
# freed session: the session's release WARNs when its keepalive is still
# pending (and the probe reads freed memory). keepalive_ms is 60 s for the
# round, so that such a keepalive is still pending then.
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
PORT=7531
# The module holds these windows open until the test has acted in them
# (kmod/fault.c, krdma_delay_until()), at most this long: a "session del"
# under TCG on a loaded host was seen to miss a 5 s window. Below the
# client's 30 s connect timeout.
DELAY=20000
# Round 3 finds the session by its counters (python) before it deletes
# it: the debug kernel (KRDMA_SLOW) takes seconds for that.
REQ_DELAY=20000
KNOB=/sys/kernel/debug/krdma/delay_publish_ms
KNOB_REQ=/sys/kernel/debug/krdma/delay_test_req_ms
TKNOB=/sys/kernel/debug/krdma/delay_teardown_ms
TDELAY=8000	# ms; twice what a request may take meanwhile
UKNOB=/sys/kernel/debug/krdma/delay_set_up_ms
# Round 5 finds the session, deletes it and reads a counter, all within
# the handler's sleep: a loaded host once took more than 5 s for that.
UP_DELAY=10000
[ -z "${KRDMA_SLOW:-}" ] || UP_DELAY=20000
T=$(mktemp -d /tmp/races.XXXXXX)

rdma_back() {
	[ "$(rdma_totals)" = "$(cat "$T/rdma.base")" ]
}

# settled ROUND [SECONDS]: no session left here (within SECONDS, 60 by
# default), and the RDMA resources back.
settled() {
	wait_for -t "${2:-60}" no_sessions && result "$1.no_session" ok ||
		{ krdmactl -j session show; result "$1.no_session" fail; }
	if wait_for -t 60 rdma_back; then
		result "$1.rdma_baseline" ok "$(tr ' ' ',' <"$T/rdma.base")"
	else
		result "$1.rdma_baseline" fail "base=$(tr ' ' ',' <"$T/rdma.base")" \
			"now=$(rdma_totals | tr ' ' ',')"
	fi
}

# server_session: true once this node has a server session; its id in
# $T/sid (wait_for discards the output of what it runs).
server_session() {
	krdmactl -j session show 2>/dev/null |
		json_get "[s['session_id'] for s in d if s['role'] == 'server'][0]" >"$T/sid"
}

# server_up: true once this node has an up server session; its id in
# $T/sid.
server_up() {
	krdmactl -j session show 2>/dev/null |
		json_get "[s['session_id'] for s in d if s['role'] == 'server' and s['state'] == 'up'][0]" >"$T/sid"
}

# test_req_came: node 1's server session has received its TEST_REQ (the
# keepalive's probes are not counted as bytes); its id in $T/sid.
test_req_came() {
	krdmactl -j -s session show 2>/dev/null |
		json_get "[s['session_id'] for s in d if s['role'] == 'server' and s['state'] == 'up' and s.get('stats', {}).get('bytes_rx', 0) > 0][0]" >"$T/sid"
}

# mstat NAME: a module-wide counter of this node.
mstat() {
	krdmactl -j stats show | json_get "d['$1']"
}

rdma_totals >"$T/rdma.base"
log "rdma resources: $(cat "$T/rdma.base")"

if [ "$KRDMA_NODE" = 1 ]; then
	if [ -w "$KNOB" ]; then
		result knob ok
	else
		result knob fail "missing=$KNOB"
	fi
	expect_ok listener.add krdmactl listener add name races port $PORT
	rdma_totals >"$T/rdma.base"

	# Round 3 (runs first): closed while the TEST_REQ handler sleeps.
	if [ -w "$KNOB_REQ" ]; then
		result r3.knob ok
	else
		result r3.knob fail "missing=$KNOB_REQ"
	fi
	echo $REQ_DELAY >"$KNOB_REQ"
	REG0=$(mstat reg_mr_wrs)
	barrier r3
	if wait_for -t 60 -i 0.2 test_req_came; then
		expect_ok r3.del krdmactl session del "$(cat "$T/sid")"
	else
		result r3.found fail
	fi
	settled r3
	REG1=$(mstat reg_mr_wrs)
	if [ "$REG0" = "$REG1" ]; then
		result r3.no_post_after_drain ok "reg_mr_wrs=$REG1"
	else
		result r3.no_post_after_drain fail "reg_mr_wrs_before=$REG0" "after=$REG1"
	fi
	echo 0 >"$KNOB_REQ"
	barrier r3_done 120

	echo $DELAY >"$KNOB"
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
	# The client's CM sends its REQ again every ~4.8 s while the
	# handler sleeps. One that leaves node 2 before node 2 has taken in
	# the reject, and comes after the CM has forgotten the rejected
	# connection, is a new CONNECT_REQUEST here (a debug kernel run saw
	# it: session s$((ID + 2)), "connecting"). Its REP goes to a client
	# that no longer knows the connection and drops it: the CM ends the
	# session when its REP retries run out (15 x ~4.8 s).
	settled r2 150
	barrier r2_done 240
	echo 0 >"$KNOB"
	barrier r4
	barrier r4_done 120
	settled r4

	# Round 5: deleted while its ESTABLISHED handler sleeps, UP.
	if [ -w "$UKNOB" ]; then
		result r5.knob ok
	else
		result r5.knob fail "missing=$UKNOB"
	fi
	echo $UP_DELAY >"$UKNOB"
	# A keepalive armed behind teardown's cancel must still be pending
	# when the session is freed, not run during teardown (then in time).
	KA_MS=$(cat /sys/module/krdma/parameters/keepalive_ms)
	echo 60000 >/sys/module/krdma/parameters/keepalive_ms
	OPEN0=$(mstat sessions_opened)
	barrier r5
	if wait_for -t 60 -i 0.2 server_up; then
		expect_ok r5.del krdmactl session del "$(cat "$T/sid")"
		OPEN1=$(mstat sessions_opened)
		if [ "$OPEN0" = "$OPEN1" ]; then
			result r5.in_window ok "sessions_opened=$OPEN1"
		else
			result r5.in_window fail "sessions_opened_before=$OPEN0" \
				"after=$OPEN1"
		fi
	else
		result r5.found fail
	fi
	settled r5
	echo 0 >"$UKNOB"
	echo "$KA_MS" >/sys/module/krdma/parameters/keepalive_ms
	barrier r5_done 120
	expect_ok listener.del krdmactl listener del name races
else
	# connect ROUND: connects and records how it ended.
	connect() {
		timeout 90 krdmactl -j session connect addr "$KRDMA_PEER_IP" port $PORT \
			name "$1" timeout 30s >"$T/$1.out" 2>"$T/$1.err"
		echo $? >"$T/$1.rc"
		log "$1: connect rc=$(cat "$T/$1.rc"): $(cat "$T/$1.out" "$T/$1.err")"
	}

	# Round 3 (runs first): a test whose TEST_REQ node 1 handles while
	# its session is closed; the test must end (not hang: timeout(1)
	# exits 124).
	barrier r3
	connect r3
	json_check r3.up "cat $T/r3.out" "d['state'] == 'up'"
	timeout 60 krdmactl -j test run session r3 op write size 4K count 100000 \
		depth 4 >"$T/r3.test" 2>&1
	RC=$?
	log "r3: test rc=$RC: $(cat "$T/r3.test")"
	# Ended (not 124), and by the close: 100000 iterations cannot finish
	# in 60 s here, so 0 would mean the race never happened.
	if [ $RC -eq 1 ] && grep -q 'session closed' "$T/r3.test"; then
		result r3.test_ended ok "rc=$RC"
	else
		result r3.test_ended fail "rc=$RC" "want=1,session_closed"
	fi
	settled r3
	barrier r3_done 120

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
	barrier r2_done 240

	# Round 4: requests while a teardown is slow.
	barrier r4
	connect r4
	json_check r4.up "cat $T/r4.out" "d['state'] == 'up'"
	if [ -w "$TKNOB" ]; then
		result r4.knob ok
	else
		result r4.knob fail "missing=$TKNOB"
	fi
	echo $TDELAY >"$TKNOB"
	expect_ok r4.del krdmactl session del name r4
	# A dump under way, and then another family's request beside it.
	(timeout 4 krdmactl -j session show >"$T/r4.show" 2>&1
	 echo $? >"$T/r4.show.rc") &
	sleep 0.3
	expect_ok r4.other_family_answers timeout 4 genl ctrl get name nlctrl
	wait
	json_check r4.dump_answers "cat $T/r4.show" \
		"[s['state'] for s in d if s['name'] == 'r4'] == ['closing']"
	log "r4: session show rc=$(cat "$T/r4.show.rc")"
	settled r4
	echo 0 >"$TKNOB"
	barrier r4_done 120

	# Round 5: up here, then closed by node 1 as its side goes up.
	barrier r5
	connect r5
	json_check r5.up "cat $T/r5.out" "d['state'] == 'up'"
	settled r5
	barrier r5_done 120
fi
rm -rf "$T"
exit 0
