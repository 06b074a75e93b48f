#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# A hostile peer: tests/hostile/krdma-hostile speaks krdma's protocol badly
# (malformed hellos, messages, region lists, out-of-bounds and stale rkeys,
# floods) against node 1's krdma.  Node 2 runs the hostile tool, first as a
# client of node 1's listener, then as a server node 1's sessions connect
# to (bad REPs and TEST_ACKs, abused regions, forged answers: CREDITs for
# a QP the session lacks or past what was sent, a PONG too many, a late
# ITER_ACK, TEST_RESULTs repeated or malformed).  Every scenario is checked from both ends: the tool's HOSTILE line
# (the safe outcome, exit 0) and the kernel's view (session gone with the
# right reason in the event stream, counters).  Then hostile clients push
# node 1 against its caps (sessions per listener and in all, memory per
# session and in all, lowered for the run) and leave tests idle: node 1
# must refuse with a reason, read back within its caps while they hold on,
# and close the idle tests by its stall timer, the polling thread of an
# idle lat write mostly asleep meanwhile.  Then hostile clients ask for
# the most queue memory a session can (16 QPs, send queues of 4096),
# several times over: node 1 must charge its QPs and CQs to max_mem_mb,
# which its own measure (MemAvailable, VmallocUsed) must bear out.  At
# the end a normal session between the two guests still connects, both
# ways, and validated tests pass.
#
# KRDMA_HOSTILE_SKIP="name ..." skips scenarios (recorded as skipped);
# KRDMA_HOSTILE_ONLY="name ..." runs only those (and the final check);
# "caps" names the whole caps phase, "queues" the queue memory's.
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
PORT=7491		# node 1's listener for the hostile clients
PORT2=7492		# node 1's second listener (caps phase)
SPORT=7520		# node 2: hostile servers, one port per scenario
FPORT=7499		# node 2: krdma listener of the final check
HOSTILE=$KRDMA_ROOT/tests/hostile/krdma-hostile
H=$KRDMA_OUT/hostile	# the tool's output, read by both nodes
TMO=10			# the tool's own waits (seconds)
# The debug kernel (KRDMA_SLOW, ~25x slower) can take more than 10 s from
# a connection to its TEST_REQ, or from a test's end to the next step:
# longer waits there (each ends as soon as what it waits for happens).
[ -z "${KRDMA_SLOW:-}" ] || TMO=25
TOOL_LIMIT=$((TMO * 9))	# bounds a whole run of the tool (3 x TMO waits and more)
# Node 1's stall timer, both sides of a test: the hostile tool's idle tests
# must be closed by it within 3 x TMO.
STALL_MS=5000
[ -z "${KRDMA_SLOW:-}" ] || STALL_MS=20000
MIB=1048576
T=$(mktemp -d /tmp/hostile.XXXXXX)
SKIP=" ${KRDMA_HOSTILE_SKIP:-} "
ONLY=" ${KRDMA_HOSTILE_ONLY:-} "

# Client scenarios: NAME  OUTCOMES(tool)  REASON: ERE for the reason of the
# kernel's session_down event (spaces as _; "-": no session may exist;
# "!ERE": must not match, e.g. the kernel must close the session itself
# when its queue pair failed, not wait for the peer to disconnect;
# "OUTCOME=ERE;OUTCOME=ERE": where the kernel may rightly do either of two
# things, the reason each outcome of the tool must come with).
# ping_end_inflight: a TEST_END behind a PING whose 1 MiB READ is still
# running is refused (the responder's slot is busy), one that comes after
# the write-back is answered; which one depends on how fast the READ is.
# send_flood: 64 SENDs into 8 receives are held back by RNR NAKs (the tool
# connects with rnr_retry 7, "for ever"), never refused: IB and RoCE only
# (iWARP has no RNR NAK; this test runs on rxe).
CLIENT_SCENARIOS='
bad_magic		rejected	-
no_private_data		rejected	-
wrong_version		rejected	-
flags			rejected	-
hello_rnr_retry_8	rejected	-
hello_rnr_retry_v6	rejected	-
sq_depth_0		rejected	-
rq_depth_0		rejected	-
depth_65535		rejected	-
max_msg_0		rejected	-
max_msg_huge		rejected	-
short_hello		rejected	-
hello_mem_hog		rejected	-
channel_no_session	rejected	-
channel_index_0		rejected	-
channels_16		rejected	-
channel_few_credits	ok		.
unknown_type		closed		protocol_error:_unexpected_message_type_77
len_beyond_bytes	closed		protocol_error:_malformed_message
len_short		closed		protocol_error:_malformed_message
short_msg		closed		protocol_error:_malformed_message
hdr_flags		closed		protocol_error:_malformed_message
len_over_max		closed		protocol_error:_unexpected_message_type_3
msg_too_big		closed		receive_completion_failed
unexpected_ack		closed		protocol_error:_malformed_message
write_imm_unexpected	closed		protocol_error
write_imm_answer_unexpected	closed	protocol_error
req_nregions_beyond	refused		disconnected_by_peer
req_regions_small	refused		disconnected_by_peer
req_bad_op		refused		disconnected_by_peer
req_depth_huge		refused		disconnected_by_peer
req_short_body		refused		disconnected_by_peer
req_flags_unknown	refused		disconnected_by_peer
req_read_back_read	refused		disconnected_by_peer
req_invalidated_send	refused		disconnected_by_peer
req_send_inv_write	refused		disconnected_by_peer
req_send_inv_bw		refused		disconnected_by_peer
req_zero_length_send	refused		disconnected_by_peer
req_rnr_hold_write	refused		disconnected_by_peer
req_rnr_hold_short	refused		disconnected_by_peer
send_inv_unasked	closed		protocol_error:_malformed_message
send_inv_wrong_key	refused		disconnected_by_peer
req_region_wrap		closed		ping_read_completion_failed:_remote_access_error
req_rkey0		closed		ping_read_completion_failed:_remote_access_error
req_rkey_small		closed		ping_read_completion_failed:_remote_access_error
resp_oob_after		remote_error	!disconnected_by_peer
resp_oob_before		remote_error	!disconnected_by_peer
resp_read_oob_before	remote_error	!disconnected_by_peer
resp_narrow_write_region remote_error	!disconnected_by_peer
resp_narrow_read_region	remote_error	!disconnected_by_peer
resp_narrow_atomic_region remote_error	!disconnected_by_peer
stale_write		remote_error	!disconnected_by_peer
stale_read		remote_error	!disconnected_by_peer
stale_atomic		remote_error	!disconnected_by_peer
send_flood		flow_controlled	disconnected_by_peer
end_twice		closed		protocol_error:_unexpected_message_type_8
req_during_test		closed		protocol_error:_TEST_REQ_[0-9]+_during_test_[0-9]+
end_beyond_count	closed		protocol_error:_unexpected_message_type_8
end_before_ack		ok		disconnected_by_peer
end_beyond_sent		closed		peer.s_test_[0-9]+_stalled_for
end_after_broken_setup	closed		cannot_register_test_memory
channel_msg_no_test	closed		protocol_error:_unexpected_message_on_data_channel_1
ping_end_inflight	closed|ok	closed=protocol_error:_unexpected_message_type_8;ok=disconnected_by_peer
atomic_end_huge		ok		disconnected_by_peer
'
# Server scenarios: NAME  OP(node 1's test, "-": none; words joined by +
# replace the default size, count 4 stays; send_invalidate: a check-mode
# send test of SEND_WITH_INVs, through raw netlink)  REASON(node 1's
# session, as above; for a refused handshake (OP -) the words themselves,
# spaces as _)
SERVER_SCENARIOS='
rep_bad_magic		-	bad_handshake_from_server:_not_a_krdma_peer
rep_wrong_version	-	bad_handshake_from_server:_protocol_version_not_supported_(server_8,_here_1..7)
rep_flags		-	bad_handshake_from_server:_connection_parameters_out_of_range
rep_depth_0		-	bad_handshake_from_server:_connection_parameters_out_of_range
rep_msg_huge		-	bad_handshake_from_server:_connection_parameters_out_of_range
rep_none		-	bad_handshake_from_server:_not_a_krdma_peer
reject_unknown		-	rejected_by_peer:_unknown_reason
reject_old_version	-	rejected_by_peer:_protocol_version_not_supported_(peer_1,_here_1..7)
reject_garbage		-	rejected:_consumer_defined
ack_short_regions	write	protocol_error:_malformed_TEST_ACK
ack_nregions_beyond	write	protocol_error:_malformed_TEST_ACK
ack_regions_for_send	send	protocol_error:_malformed_TEST_ACK
ack_send_inv_wrong_len	send_invalidate	protocol_error:_malformed_TEST_ACK
ack_rkey_small		write	test_completion_failed:_remote_access_error
ack_region_wrap		write	test_completion_failed:_remote_access_error
ack_rkey0		read	test_completion_failed:_remote_access_error
ping_stale		ping	!disconnected_by_peer
ping_narrow		ping	!disconnected_by_peer
ping_oob		ping	!disconnected_by_peer
late_iter_ack		send	protocol_error:_malformed_message
ack_twice_1m		write_imm+mode+lat+size+1M	protocol_error:_unexpected_TEST_ACK
ack_twice_4k		write_imm+mode+lat+size+4K	protocol_error:_unexpected_TEST_ACK
result_twice		ping	protocol_error:_unexpected_TEST_RESULT
result_status		ping	protocol_error:_malformed_message
result_short		ping	protocol_error:_unexpected_TEST_RESULT
result_env_garbage	ping	protocol_error:_malformed_TEST_RESULT
result_iters		ping	disconnected_by_peer
credit_qp_beyond	send+mode+bw+size+4K	protocol_error:_unexpected_message_type_10
credit_beyond_sent	send+mode+bw+size+4K	protocol_error:_unexpected_message_type_10
pong_twice		send+mode+lat+size+4K	protocol_error:_unexpected_message_type_11
'
# Caps scenarios: NAME  SCENARIO(tool)  LISTENER(1: PORT, 2: PORT2)  OUTCOMES
# REASON(node 1's session, as above). hold* stay in the background until
# released; node 2 runs them in this order, in the steps node 1 checks.
CAPS_SCENARIOS='
hold1			hold		1	ok		disconnected_by_peer
hold2			hold		1	ok		disconnected_by_peer
hold3			hold		1	ok		disconnected_by_peer
sessions_per_listener	session_cap	1	rejected	-
hold4			hold		2	ok		disconnected_by_peer
hold5			hold		2	ok		disconnected_by_peer
sessions_total		session_cap	2	rejected	-
mem_per_session		mem_per_session	1	refused		disconnected_by_peer
memhold1		hold_bw		1	ok		disconnected_by_peer
memhold2		hold_bw		1	ok		disconnected_by_peer
mem_total		mem_total	1	refused		disconnected_by_peer
lathold1		hold_lat_write	1	ok		disconnected_by_peer
lat_write_cap		lat_write_cap	1	refused		disconnected_by_peer
responder_stall		responder_stall	1	closed		peer.s_test_[0-9]+_stalled_for
lat_write_silent	lat_write_silent 1	closed		peer.s_test_[0-9]+_stalled_for
'

# Queue memory: QHOG hold_queues clients, each a session of 16 QPs of
# about 5 MiB (rxe) that is charged in all, against a max_mem_mb of
# QMEM_MB: the first fits, the next only in part, the others not at all.
# Node 1's MemAvailable may drop by QMEM_MB and QSLACK_MB more (the CM's
# and rxe's per-connection state, the monitor); rxe allocates its rings
# with vmalloc, so VmallocUsed grows by the QPs' and CQs' memory, which
# the charge, an estimate, must cover, but for QSLACK_MB.
QHOG=4
QMEM_MB=96
QSESS_MB=128
QSLACK_MB=16

# end_after_broken_setup: node 1 fails the setup of the test of this id
# half way (kmod/fault.c; BROKEN_TEST_ID in tests/hostile/client.h).
BROKEN_KNOB=/sys/kernel/debug/krdma/fail_peer_reg_test
BROKEN_TEST_ID=$((0xb40c))

# mem_kib FIELD: FIELD of /proc/meminfo, in KiB.
mem_kib() {
	sed -n "s/^$1: *\([0-9]*\) kB/\1/p" /proc/meminfo
}

# reason_ok REASON ERE: the ERE column's test (see above).
reason_ok() {
	case $2 in
	!*) [ "$1" != none ] && ! printf '%s' "$1" | grep -Eq -- "${2#!}" ;;
	*) printf '%s' "$1" | grep -Eq -- "$2" ;;
	esac
}

skipped() {
	case $SKIP in *" $1 "*) return 0 ;; esac
	[ "$ONLY" = "  " ] && return 1
	case $ONLY in *" $1 "*) return 1 ;; esac
	return 0
}

# The last HOSTILE outcome line of scenario $1 (the tool's run of that
# name, whichever of its scenarios it ran), field $2 (outcome, lport).
hfield() {
	grep "^HOSTILE scenario=[^ ]* outcome=" "$H/$1.out" 2>/dev/null | tail -n 1 |
		tr ' ' '\n' | sed -n "s/^$2=//p"
}

# session_down reason (spaces as _) of the session whose peer port is $1,
# or whose name is $1 when it is not a number; "none" if there is none.
down_reason() {
	python3 - "$T/mon.out" "$1" <<'EOF'
import json, sys
key = sys.argv[2]
for line in open(sys.argv[1]):
    try:
        e = json.loads(line)
    except ValueError:
        continue
    if e.get("event") != "session_down":
        continue
    if (key.isdigit() and e.get("peer_port") == int(key)) or e.get("name") == key:
        print(e.get("reason", "").replace(" ", "_"))
        sys.exit(0)
print("none")
EOF
}

# Any session event for peer port $1?
has_session() {
	grep -q "\"peer_port\":$1[,}]" "$T/mon.out"
}

# kernel_check NAME REASON-REGEX: node 1's view of scenario NAME.
kernel_check() {
	_kc_port=$(hfield "$1" lport)
	if [ -z "$_kc_port" ]; then
		result "kernel.$1" fail "no_lport"
		return
	fi
	if [ "$2" = - ]; then
		# Refused at the handshake: no session was ever created.
		if has_session "$_kc_port"; then
			grep "\"peer_port\":${_kc_port}[,}]" "$T/mon.out"
			result "kernel.$1" fail "session_created"
		else
			result "kernel.$1" ok "no_session"
		fi
		return
	fi
	_kc_want=$2 _kc_out=
	case $2 in
	*=*)	# The reason that goes with the tool's outcome.
		_kc_out=$(hfield "$1" outcome)
		_kc_want=$(echo "$2" | tr ';' '\n' | sed -n "s/^$_kc_out=//p")
		if [ -z "$_kc_want" ]; then
			result "kernel.$1" fail "outcome=$_kc_out" "want=$2"
			return
		fi
		;;
	esac
	wait_for -t 20 sh -c "grep -q '\"session_down\".*\"peer_port\":${_kc_port}[,}]' $T/mon.out"
	_kc_r=$(down_reason "$_kc_port")
	if [ "$_kc_r" != none ] && reason_ok "$_kc_r" "$_kc_want"; then
		result "kernel.$1" ok "reason=$_kc_r" ${_kc_out:+"outcome=$_kc_out"}
	else
		result "kernel.$1" fail "reason=$_kc_r" "want=$_kc_want"
	fi
}

# The most times a second the polling thread of a lat write that its
# driver leaves silent may wake (lat_write_silent): once it has waited far
# longer than a round trip, it naps up to 1 ms at a time (kmod/lat.c).
# Before, it napped 5 us: 3088 a second here (TCG's timers are slow; up
# to 200,000 on a host whose timers keep up).
SILENT_WAKEUPS_MAX=1500

# pollers_none: node 1 runs no responder's poller (lat write).
pollers_none() {
	[ "$(krdmactl -j stats show | json_get "d.get('responder_pollers')")" = 0 ]
}

# silent_wakeups: lat_write_silent, node 1's side. While node 2's test
# stays silent, the voluntary context switches of its responder's poller
# (the krdma_lat/ thread, the only one then) over 2 s from when it is seen,
# per second of the time /proc/uptime says went by (a busy TCG guest's
# shell is slow: stall_ms is raised meanwhile, so that the poller lasts).
silent_wakeups() {
	if ! wait_for -t 120 -i 0.2 sh -c "grep -ls '^krdma_lat/' /proc/[0-9]*/comm >/dev/null"; then
		result kernel.caps.lat_silent_wakeups fail "no_poller_seen"
		return
	fi
	_sw_st=$(grep -ls '^krdma_lat/' /proc/[0-9]*/comm | head -n 1)
	_sw_st=${_sw_st%/comm}/status
	_sw_t0=$(cut -d ' ' -f 1 /proc/uptime)
	_sw_a=$(sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' "$_sw_st")
	sleep 2
	_sw_b=$(sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' "$_sw_st")
	_sw_t1=$(cut -d ' ' -f 1 /proc/uptime)
	if [ -z "$_sw_a" ] || [ -z "$_sw_b" ]; then
		result kernel.caps.lat_silent_wakeups fail "poller_gone_early" \
			"from=$_sw_t0" "to=$_sw_t1"
		return
	fi
	_sw_rate=$(awk -v a="$_sw_a" -v b="$_sw_b" -v t0="$_sw_t0" -v t1="$_sw_t1" \
		'BEGIN { printf "%d", (b - a) / (t1 - t0) }')
	if [ "$_sw_rate" -le $SILENT_WAKEUPS_MAX ]; then
		result kernel.caps.lat_silent_wakeups ok "per_s=$_sw_rate" \
			"switches=$((_sw_b - _sw_a))" "from=$_sw_t0" "to=$_sw_t1"
	else
		result kernel.caps.lat_silent_wakeups fail "per_s=$_sw_rate" \
			"switches=$((_sw_b - _sw_a))" "from=$_sw_t0" "to=$_sw_t1" \
			"max=$SILENT_WAKEUPS_MAX"
	fi
}

# late_came: session $LATE_S has received more than $LATE_RX bytes.
late_came() {
	[ "$(krdmactl -j -s session show name "$LATE_S" |
		json_get "d[0]['stats']['bytes_rx']")" -gt "$LATE_RX" ]
}

# late_round SESSION: late_iter_ack, once the kernel's test is done. The
# hostile's ITER_ACK for it comes late; its handler, having found the
# ended test, sleeps delay_late_msg_ms (kmod/fault.c), and a new test
# starts meanwhile, replacing the ended one: the handler holds its own
# reference (before, the test was freed under it: KASAN on the debug
# kernel), sees a message for no running test and closes the session.
late_round() {
	LATE_S=$1
	_lr_knob=/sys/kernel/debug/krdma/delay_late_msg_ms
	if [ -w $_lr_knob ]; then
		result kernel.late.knob ok
	else
		result kernel.late.knob fail "missing=$_lr_knob"
	fi
	# Long enough to see the message come and start a test (seconds on
	# the debug kernel), short of the tool's wait for the close.
	echo $((TMO * 1000 / 2)) >$_lr_knob
	# The new test must not stall out (stall_ms) before the
	# handler wakes and closes the session for its message; nor may
	# the keepalive close it: the sleeping handler holds up the CQ
	# context, so neither our probe's completion nor anything of the
	# peer's counts as an answer meanwhile, and the debug kernel's
	# sleep (12.5 s) is longer than peer_timeout_ms (10 s).
	echo 60000 >/sys/module/krdma/parameters/stall_ms
	_lr_pto=$(cat /sys/module/krdma/parameters/peer_timeout_ms)
	echo 60000 >/sys/module/krdma/parameters/peer_timeout_ms
	LATE_RX=$(krdmactl -j -s session show name "$1" | json_get "d[0]['stats']['bytes_rx']")
	barrier late_go 300
	if wait_for -t 60 -i 0.2 late_came; then
		expect_ok kernel.late.start krdmactl test start session "$1" op send \
			size 4096 count 4 depth 2
	else
		result kernel.late.came fail
	fi
	barrier late_tried 300
	echo 0 >$_lr_knob
	wait_for -t 60 sh -c "! krdmactl session show name $1 >/dev/null 2>&1"
	echo $STALL_MS >/sys/module/krdma/parameters/stall_ms
	echo "$_lr_pto" >/sys/module/krdma/parameters/peer_timeout_ms
}

if [ "$KRDMA_NODE" = 1 ]; then
	# ---- node 1: krdma, attacked ----
	echo $STALL_MS >/sys/module/krdma/parameters/stall_ms
	# end_after_broken_setup's test fails half way through its setup.
	if ! skipped end_after_broken_setup; then
		if [ -w $BROKEN_KNOB ]; then
			echo $BROKEN_TEST_ID >$BROKEN_KNOB
		else
			result kernel.broken.knob fail "missing=$BROKEN_KNOB"
		fi
	fi
	krdmactl -j monitor >"$T/mon.out" 2>"$T/mon.err" &
	MON=$!
	EVG=$(genlpy --family | json_get "d['groups']['events']")
	wait_for -t 20 nl_subscribed $MON "${EVG:-99}" || result monitor.subscribed fail
	expect_ok listener.add krdmactl listener add name hostile port $PORT
	expect_ok stats.reset krdmactl stats reset
	barrier listening

	# Handshakes: refused with a reason, counted, no session.
	barrier hello_done 300
	# Bad hellos are protocol errors; a hello asking for too much is not.
	NREJ=$(echo "$CLIENT_SCENARIOS" | while read -r name outcomes reason; do
		[ "$outcomes" = rejected ] && ! skipped "$name" && echo "$name"; done | wc -l)
	NHELLO=$(echo "$CLIENT_SCENARIOS" | while read -r name outcomes reason; do
		[ "$outcomes" = rejected ] && [ "$name" != hello_mem_hog ] &&
			! skipped "$name" && echo "$name"; done | wc -l)
	json_check kernel.hello.counted "krdmactl -j stats show" \
		"d['rejects_sent'] == $NREJ and d['protocol_errors'] == $NHELLO and d['sessions_opened'] == 0"
	# A peer of another protocol version: the log says which versions.
	if ! skipped wrong_version; then
		dmesg | grep -q 'rejected a connection: protocol version not supported (peer 8, here 1\.\.7)$' &&
			result kernel.wrong_version_logged ok ||
			{ dmesg | grep 'rejected a connection' | tail -n 3; result kernel.wrong_version_logged fail; }
	fi
	barrier hello_checked 300

	barrier client_done 900
	echo "$CLIENT_SCENARIOS" | while read -r name outcomes reason; do
		[ -n "$name" ] || continue
		skipped "$name" && continue
		kernel_check "$name" "$reason"
	done
	[ -w $BROKEN_KNOB ] && echo 0 >$BROKEN_KNOB
	wait_for -t 60 no_sessions &&
		result kernel.no_session_left ok ||
		{ krdmactl -j session show; result kernel.no_session_left fail; }
	json_check kernel.listener_alive "krdmactl -j listener show name hostile" \
		"len(d) == 1 and d[0]['local_port'] == $PORT"
	# Every protocol error and failed completion named above was counted;
	# every session that was opened (or failed to) is closed.
	NPROTO=$(echo "$CLIENT_SCENARIOS" | while read -r name outcomes reason; do
		case $reason in *=*) ;; *protocol_error*) skipped "$name" || echo "$name" ;; esac; done | wc -l)
	NWC=$(echo "$CLIENT_SCENARIOS" | while read -r name outcomes reason; do
		case $reason in *completion_failed*) skipped "$name" || echo "$name" ;; esac; done | wc -l)
	json_check kernel.counters "krdmactl -j stats show" \
		"d['protocol_errors'] >= $NHELLO + $NPROTO and d['wc_errors'] >= $NWC and d['sessions_closed'] == d['sessions_opened'] + d['connect_errors'] and d['rejects_sent'] == $NREJ and d['validation_errors'] == 0"
	krdmactl -j stats show
	barrier kernel_checked 300

	# ---- node 1 connects to hostile servers ----
	i=0
	echo "$SERVER_SCENARIOS" >"$T/server.list"
	while read -r name op reason; do
		[ -n "$name" ] || continue
		i=$((i + 1))
		skipped "$name" && continue
		barrier "srv_$name" 300 || continue
		sp=$((SPORT + i))
		krdmactl -j session connect addr "$KRDMA_PEER_IP" port $sp name "h$i" \
			timeout 10s >"$T/$name.conn" 2>"$T/$name.err"
		if grep -q "no listener on that port" "$T/$name.conn"; then
			log "$name: no listener seen on port $sp, connecting again"
			krdmactl -j session connect addr "$KRDMA_PEER_IP" port $sp name "h$i" \
				timeout 10s >"$T/$name.conn" 2>"$T/$name.err"
		fi
		if [ "$op" = - ]; then
			# Refused at the handshake, with the reason in words.
			json_check "kernel.$name" "cat $T/$name.conn" \
				"d['state'] == 'down' and '$reason'.replace('_', ' ') in d['reason']"
			barrier "srv_${name}_done" 300
			continue
		fi
		json_check "kernel.$name.connect" "cat $T/$name.conn" "d['state'] == 'up'"
		case $op in
		send_invalidate)
			# A send-invalidate test (conform's send.with_invalidate;
			# krdmactl has no word for it), through raw netlink: its
			# outcome is the session's reason below.
			sid=$(krdmactl -j session show name "h$i" | json_get "d[0]['session_id']")
			python3 "$KRDMA_ROOT/tests/lib/genl.py" TEST_START SESSION_ID="$sid" \
				TEST_OP=send TEST_MODE=check TEST_SIZE=4096 TEST_COUNT=4 \
				TEST_DEPTH=2 TEST_SEND_INVALIDATE=1 >"$T/$name.start" 2>&1
			;;
		*+*)
			# shellcheck disable=SC2046 # the words of $op, split
			krdmactl -j test run session "h$i" op $(echo "$op" | tr + ' ') count 4 \
				>"$T/$name.test" 2>"$T/$name.err"
			;;
		*)
			krdmactl -j test run session "h$i" op "$op" size 4096 count 4 depth 2 \
				>"$T/$name.test" 2>"$T/$name.err"
			;;
		esac
		if [ "$op" = send_invalidate ]; then
			# Started (a test id back); the TEST_ACK then ended it.
			json_check "kernel.$name.started" "cat $T/$name.start" \
				"d.get('test_id', 0) > 0"
		elif [ "$name" = ping_stale ]; then
			json_check kernel.ping_stale.test "cat $T/$name.test" \
				"r['status'] == 0 and r['iters'] == 4 and r['validated'] == 4"
			# Done: our regions are invalidated; the hostile may try them.
			barrier stale_go 300
			barrier stale_tried 300
		elif [ "$name" = result_twice ]; then
			# Done well before the second TEST_RESULT, or failed by it.
			json_check kernel.result_twice.test "cat $T/$name.test" \
				"(r['status'] == 0 and r['validated'] == 4) or 'unexpected TEST_RESULT' in r.get('reason', '')"
		elif [ "$name" = result_iters ]; then
			# The peer's count is not ours: the test fails, says so.
			json_check kernel.result_iters.test "cat $T/$name.test" \
				"r['status'] != 0 and 'peer saw 5 iterations, we did 4' in r.get('reason', '')"
		elif [ "$name" = result_env_garbage ]; then
			# Closed on it: the test fails, and nothing of the garbage
			# reaches its env.
			json_check kernel.result_env_garbage.test "cat $T/$name.test" \
				"r['status'] != 0 and len(r.get('reason', '')) > 0 and all(d['env'][k] is None for k in ('peer_host', 'peer_fw_ver', 'peer_link_rate_mbit_per_s', 'peer_link_width'))"
		elif [ "$name" = late_iter_ack ]; then
			json_check kernel.late_iter_ack.test "cat $T/$name.test" \
				"r['status'] == 0 and r['iters'] == 4 and r['validated'] == 4"
			late_round "h$i"
		else
			json_check "kernel.$name.test" "cat $T/$name.test" \
				"r['status'] != 0 and len(r.get('reason', '')) > 0"
		fi
		barrier "srv_${name}_done" 300
		wait_for -t 30 sh -c "! krdmactl session show name h$i >/dev/null 2>&1" ||
			krdmactl session del name "h$i"
		wait_for -t 20 sh -c "grep -q '\"session_down\".*\"name\":\"h$i\"' $T/mon.out"
		r=$(down_reason "h$i")
		if [ "$r" != none ] && reason_ok "$r" "$reason"; then
			result "kernel.$name" ok "reason=$r"
		else
			result "kernel.$name" fail "reason=$r" "want=$reason"
		fi
	done <"$T/server.list"

	# ---- caps: what hostile clients may make node 1 spend ----
	if ! skipped caps; then
		# Low, so that a few sessions reach them: 3 server sessions a
		# listener, 5 in all; 64 MiB a session, 20 MiB for all of them.
		PRM=/sys/module/krdma/parameters
		SAVED=
		for kv in max_listener_sessions=3 max_sessions=5 max_session_mem_mb=64 \
			max_mem_mb=20 max_responder_pollers=1; do
			SAVED="$SAVED ${kv%%=*}=$(cat "$PRM/${kv%%=*}")"
			echo "${kv#*=}" >"$PRM/${kv%%=*}"
		done
		expect_ok caps.listener2 krdmactl listener add name hostile2 port $PORT2
		expect_ok caps.stats_reset krdmactl stats reset
		barrier caps_ready 300
		# Node 2 holds 3 sessions on the first listener, 2 on the second,
		# and was refused one more on each (the listener's cap, then all).
		barrier caps_sessions_held 300
		json_check kernel.caps.sessions "krdmactl -j stats show" \
			"d['server_sessions'] == 5 and d['server_sessions_peak'] == 5 and d['sessions_refused'] == 2 and d['rejects_sent'] == 2"
		barrier caps_sessions_checked 300
		wait_for -t 60 no_sessions || result kernel.caps.sessions_gone fail
		barrier caps_sessions_released 300
		# A test over the session's cap refused; two of 8 MiB held; a
		# third refused over the cap of all sessions.
		barrier caps_mem_held 300
		json_check kernel.caps.mem "krdmactl -j stats show" \
			"16 * $MIB < d['peer_mem'] <= 20 * $MIB and d['peer_mem_peak'] <= 20 * $MIB and d['mem_refused'] == 2"
		json_check kernel.caps.mem_session "krdmactl -j -s session show" \
			"len([s for s in d if s['stats']['peer_mem'] > 8 * $MIB]) == 2 and all(s['stats']['peer_mem_peak'] <= 64 * $MIB for s in d)"
		barrier caps_mem_checked 300
		wait_for -t 60 no_sessions || result kernel.caps.mem_gone fail
		barrier caps_mem_released 300
		# One lat write held, whose poller is all max_responder_pollers
		# allows; one more refused, to the hostile tool and to node 2's
		# krdma, which says why. Held past stall_ms: raised meanwhile.
		echo 60000 >"$PRM/stall_ms"
		barrier caps_pollers_ready 300
		barrier caps_pollers_held 300
		json_check kernel.caps.pollers "krdmactl -j stats show" \
			"d['responder_pollers'] == 1 and d['pollers_refused'] == 2"
		if dmesg | grep -q "refused the peer's lat write test [0-9]*: over max_responder_pollers (1)$"; then
			result kernel.caps.pollers_logged ok
		else
			dmesg | grep 'refused the peer' | tail -n 3
			result kernel.caps.pollers_logged fail
		fi
		barrier caps_pollers_checked 300
		# The idle tests: 15 s at least, for silent_wakeups' reads.
		echo $((STALL_MS > 15000 ? STALL_MS : 15000)) >"$PRM/stall_ms"
		barrier caps_pollers_released 300
		wait_for -t 60 pollers_none || result kernel.caps.pollers_gone fail
		# responder_stall, then lat_write_silent, whose poller is
		# the only one.
		barrier caps_silent_go 300
		silent_wakeups
		barrier caps_done 900
		echo $STALL_MS >"$PRM/stall_ms"
		echo "$CAPS_SCENARIOS" | while read -r name _ _ outcomes reason; do
			[ -n "$name" ] && kernel_check "$name" "$reason"
		done
		wait_for -t 60 no_sessions || result kernel.caps.no_session_left fail
		# Within the caps all along, all given back, the idle tests timed
		# out, their polling thread (lat write) gone.
		json_check kernel.caps.counters "krdmactl -j stats show" \
			"d['server_sessions'] == 0 and d['server_sessions_peak'] == 5 and d['peer_mem'] == 0 and d['peer_mem_peak'] <= 20 * $MIB and d['sessions_refused'] == 2 and d['mem_refused'] == 2 and d['responder_timeouts'] == 2 and d['validation_errors'] == 0"
		krdmactl -j stats show
		if grep -qs '^krdma_lat/' /proc/[0-9]*/comm; then
			result kernel.caps.lat_thread_gone fail
		else
			result kernel.caps.lat_thread_gone ok
		fi
		for kv in $SAVED; do
			echo "${kv#*=}" >"$PRM/${kv%%=*}"
		done
		expect_ok caps.listener2_del krdmactl listener del name hostile2
		barrier caps_checked 300
		# A normal krdma client (node 2's) is served again.
		barrier back_done 300
		json_check kernel.caps.back "krdmactl -j stats show" \
			"d['server_sessions'] == 0 and d['responder_timeouts'] == 2 and d['validation_errors'] == 0"
	fi

	# ---- queues: the QPs and CQs hostile clients make node 1 create ----
	if ! skipped queues; then
		PRM=/sys/module/krdma/parameters
		SAVED=
		for kv in max_session_mem_mb=$QSESS_MB max_mem_mb=$QMEM_MB; do
			SAVED="$SAVED ${kv%%=*}=$(cat "$PRM/${kv%%=*}")"
			echo "${kv#*=}" >"$PRM/${kv%%=*}"
		done
		expect_ok queues.stats_reset krdmactl stats reset
		sync
		echo 3 >/proc/sys/vm/drop_caches
		QA0=$(mem_kib MemAvailable)
		QV0=$(mem_kib VmallocUsed)
		QS0=$(mem_kib Slab)
		barrier queues_ready 300
		# Node 2's clients hold what they were given.
		barrier queues_held 900
		QA1=$(mem_kib MemAvailable)
		QV1=$(mem_kib VmallocUsed)
		QS1=$(mem_kib Slab)
		krdmactl -j stats show >"$T/queues.stats"
		krdmactl -j -s session show >"$T/queues.sessions"
		QPM=$(json_get "d['peer_mem'] // 1024" <"$T/queues.stats")
		QPP=$(json_get "d['peer_mem_peak'] // 1024" <"$T/queues.stats")
		QREF=$(json_get "d['mem_refused']" <"$T/queues.stats")
		QN=$(json_get "len(d)" <"$T/queues.sessions")
		QCH=$(json_get "sum(s['qps'] for s in d)" <"$T/queues.sessions")
		QDROP=$((QA0 - QA1))
		QVM=$((QV1 - QV0))
		log "queues: $QN sessions, $QCH QPs asked for, $QREF refused over a cap;" \
			"charged ${QPM} KiB (peak ${QPP}), max_mem_mb $QMEM_MB;" \
			"MemAvailable -${QDROP} KiB, VmallocUsed +${QVM} KiB, Slab +$((QS1 - QS0)) KiB"
		cat "$T/queues.stats"
		# The cap was reached (else this proves nothing), and kept.
		json_check kernel.queues.charged "cat $T/queues.stats" \
			"d['mem_refused'] >= 1 and 0 < d['peer_mem'] <= $QMEM_MB * $MIB and d['peer_mem_peak'] <= $QMEM_MB * $MIB"
		json_check kernel.queues.session "cat $T/queues.sessions" \
			"len(d) >= 1 and all(s['stats']['peer_mem_peak'] <= $QSESS_MB * $MIB for s in d)"
		if [ "$QDROP" -le $(((QMEM_MB + QSLACK_MB) * 1024)) ]; then
			result kernel.queues.mem_available ok "drop_kib=$QDROP" "qps=$QCH"
		else
			result kernel.queues.mem_available fail "drop_kib=$QDROP" \
				"max_kib=$(((QMEM_MB + QSLACK_MB) * 1024))" "qps=$QCH"
		fi
		if [ "$QVM" -le $((QPM + QSLACK_MB * 1024)) ]; then
			result kernel.queues.estimate ok "vmalloc_kib=$QVM" "charged_kib=$QPM"
		else
			result kernel.queues.estimate fail "vmalloc_kib=$QVM" "charged_kib=$QPM"
		fi
		barrier queues_checked 300
		barrier queues_released 300
		wait_for -t 60 no_sessions || result kernel.queues.sessions_gone fail
		json_check kernel.queues.given_back "krdmactl -j stats show" \
			"d['server_sessions'] == 0 and d['peer_mem'] == 0"
		for kv in $SAVED; do
			echo "${kv#*=}" >"$PRM/${kv%%=*}"
		done
	fi

	# ---- still sane: a normal session to node 2's krdma ----
	barrier final_listening 120
	json_check final.connect "timeout 60 krdmactl -j session connect addr $KRDMA_PEER_IP port $FPORT name final" \
		"d['state'] == 'up'"
	run_test final.write final write 4096 20 4
	run_test final.ping final ping 65536 10 2
	run_test final.read final read 4096 20 4
	expect_ok final.del krdmactl session del name final
	json_check final.no_validation_errors "krdmactl -j stats show" "d['validation_errors'] == 0"
	barrier final_done 120
	kill -INT $MON
	wait_exit $MON 10 || kill -KILL $MON
	cp "$T/mon.out" "$H/node1-events.json" 2>/dev/null
	expect_ok listener.del krdmactl listener del name hostile
	rm -rf "$T"
	exit 0
fi

# ---- node 2: the hostile peer ----
mkdir -p "$H"
if [ -x "$HOSTILE" ]; then
	result hostile.built ok
else
	result hostile.built fail "missing=$HOSTILE"
fi

# next_sport: the first of 16 source ports of its own for one run of the
# tool (-s), so that node 1 tells each scenario's sessions apart by port
# (a file, since the loops that call it run in subshells).
next_sport() {
	_ns=$(cat "$T/sport" 2>/dev/null || echo 20000)
	echo $((_ns + 16)) >"$T/sport"
	echo "$_ns"
}

# run_client NAME OUTCOMES [SCENARIO PORT]: one client scenario against
# node 1 (by default SCENARIO is NAME, PORT $PORT).
run_client() {
	if [ $# -lt 3 ] && skipped "$1"; then
		result "hostile.$1" ok skipped=1
		return
	fi
	timeout $TOOL_LIMIT "$HOSTILE" -t $TMO -s "$(next_sport)" "${3:-$1}" \
		"$KRDMA_PEER_IP" "${4:-$PORT}" >"$H/$1.out" 2>&1
	_rc_rc=$?
	cat "$H/$1.out"
	_rc_out=$(hfield "$1" outcome)
	if [ $_rc_rc -eq 0 ] && printf '%s' "$_rc_out" | grep -Eqx -- "$2"; then
		result "hostile.$1" ok "outcome=$_rc_out"
	else
		result "hostile.$1" fail "rc=$_rc_rc" "outcome=${_rc_out:-none}" "want=$2"
	fi
}

barrier listening
phase=hello
echo "$CLIENT_SCENARIOS" | while read -r name outcomes reason; do
	[ -n "$name" ] || continue
	if [ $phase = hello ] && [ "$outcomes" != rejected ]; then
		barrier hello_done 300
		barrier hello_checked 300
		phase=messages
	fi
	run_client "$name" "$outcomes"
done
barrier client_done 900
barrier kernel_checked 900	# node 1 reads its view of every scenario

i=0
echo "$SERVER_SCENARIOS" >"$T/server.list"
while read -r name op reason; do
	[ -n "$name" ] || continue
	i=$((i + 1))
	if skipped "$name"; then
		result "hostile.$name" ok skipped=1
		continue
	fi
	sp=$((SPORT + i))
	# Not under timeout(1): SIGUSR1 must reach the tool, whose own waits
	# are bounded; wait_exit and kill -KILL below bound the rest.
	"$HOSTILE" -t $TMO -l $sp "$name" >"$H/$name.out" 2>&1 &
	pid=$!
	wait_for -t 20 grep -q "step=listening" "$H/$name.out" ||
		result "hostile.$name.listen" fail
	barrier "srv_$name" 300 || { kill $pid; wait $pid; continue; }
	if [ "$name" = ping_stale ]; then
		barrier stale_go 300
		kill -USR1 $pid
		wait_exit $pid $((TMO * 6)) || kill -KILL $pid
		barrier stale_tried 300
	elif [ "$name" = late_iter_ack ]; then
		barrier late_go 300
		kill -USR1 $pid
		barrier late_tried 300
	fi
	wait_exit $pid $TOOL_LIMIT || kill -KILL $pid
	wait $pid
	rc=$?
	cat "$H/$name.out"
	out=$(hfield "$name" outcome)
	case $name in
	rep_*) want=closed ;;
	reject_*) want=rejected_sent ;;
	ack_* | late_* | result_* | credit_* | pong_*) want=closed ;;
	*) want=remote_error ;;
	esac
	if [ $rc -eq 0 ] && [ "$out" = $want ]; then
		result "hostile.$name" ok "outcome=$out"
	else
		result "hostile.$name" fail "rc=$rc" "outcome=${out:-none}" "want=$want"
	fi
	barrier "srv_${name}_done" 300
done <"$T/server.list"

# hold_start NAME SCENARIO PORT: a held session, in the background.
hold_start() {
	"$HOSTILE" -t $TMO -s "$(next_sport)" "$2" "$KRDMA_PEER_IP" "$3" >"$H/$1.out" 2>&1 &
	echo $! >"$T/$1.pid"
	wait_for -t $((TMO * 3)) grep -q "step=held" "$H/$1.out" ||
		{ cat "$H/$1.out"; result "hostile.$1.held" fail; }
}

# hold_release NAME...: SIGUSR1 lets each go; its outcome is checked.
hold_release() {
	for _hr in "$@"; do
		kill -USR1 "$(cat "$T/$_hr.pid")"
	done
	for _hr in "$@"; do
		_hr_pid=$(cat "$T/$_hr.pid")
		wait_exit "$_hr_pid" $TOOL_LIMIT || kill -KILL "$_hr_pid"
		wait "$_hr_pid"
		_hr_rc=$?
		cat "$H/$_hr.out"
		_hr_out=$(hfield "$_hr" outcome)
		if [ $_hr_rc -eq 0 ] && [ "$_hr_out" = ok ]; then
			result "hostile.$_hr" ok "outcome=$_hr_out"
		else
			result "hostile.$_hr" fail "rc=$_hr_rc" "outcome=${_hr_out:-none}"
		fi
	done
}

# caps_run NAME: scenario NAME of $CAPS_SCENARIOS, held or run to its end.
caps_run() {
	# shellcheck disable=SC2046 # the scenario's fields, split on purpose
	set -- $(echo "$CAPS_SCENARIOS" | grep "^$1[[:space:]]")
	_cr_port=$PORT
	[ "$3" = 2 ] && _cr_port=$PORT2
	case $2 in
	hold*) hold_start "$1" "$2" $_cr_port ;;
	*) run_client "$1" "$4" "$2" $_cr_port ;;
	esac
}

if ! skipped caps; then
	barrier caps_ready 300
	for n in hold1 hold2 hold3 sessions_per_listener hold4 hold5 sessions_total; do
		caps_run $n
	done
	barrier caps_sessions_held 300
	barrier caps_sessions_checked 300
	hold_release hold1 hold2 hold3 hold4 hold5
	barrier caps_sessions_released 300
	for n in mem_per_session memhold1 memhold2 mem_total; do
		caps_run $n
	done
	barrier caps_mem_held 300
	barrier caps_mem_checked 300
	hold_release memhold1 memhold2
	barrier caps_mem_released 300
	barrier caps_pollers_ready 300
	caps_run lathold1
	caps_run lat_write_cap
	# A krdma driver is told why.
	json_check caps.capdrv.connect "timeout 60 krdmactl -j session connect addr $KRDMA_PEER_IP port $PORT name capdrv" \
		"d['state'] == 'up'"
	# The JSON on stdout; the failure in words on stderr.
	krdmactl -j test run session capdrv op write mode lat size 4096 count 20 \
		>"$T/capdrv.test" 2>"$T/capdrv.err"
	json_check caps.capdrv.refused "cat $T/capdrv.test" \
		"r['status'] != 0 and 'max_responder_pollers' in r.get('reason', '')"
	if grep -q 'peer refused the test: .*(max_responder_pollers)$' "$T/capdrv.err"; then
		result caps.capdrv.said ok
	else
		cat "$T/capdrv.err"
		result caps.capdrv.said fail
	fi
	expect_ok caps.capdrv.del krdmactl session del name capdrv
	barrier caps_pollers_held 300
	barrier caps_pollers_checked 300
	hold_release lathold1
	barrier caps_pollers_released 300
	caps_run responder_stall
	barrier caps_silent_go 300
	caps_run lat_write_silent
	barrier caps_done 900
	barrier caps_checked 300
	# Node 1, back to its usual caps, serves a normal krdma client.
	json_check back.connect "timeout 60 krdmactl -j session connect addr $KRDMA_PEER_IP port $PORT name back" \
		"d['state'] == 'up'"
	run_test back.write back write 4096 20 4
	json_check back.lat_write "krdmactl -j test run session back op write mode lat size 4096 count 20" \
		"r['status'] == 0 and r['iters'] == 20"
	expect_ok back.del krdmactl session del name back
	barrier back_done 300
fi

if ! skipped queues; then
	barrier queues_ready 300
	# One after the other, each held (or refused) before the next asks.
	i=1
	while [ $i -le $QHOG ]; do
		"$HOSTILE" -t $TMO -s "$(next_sport)" hold_queues "$KRDMA_PEER_IP" $PORT \
			>"$H/queues$i.out" 2>&1 &
		echo $! >"$T/queues$i.pid"
		wait_for -t $((TMO * 6)) grep -Eq "step=held|outcome=" "$H/queues$i.out" ||
			{ cat "$H/queues$i.out"; result "hostile.queues$i.held" fail; }
		i=$((i + 1))
	done
	barrier queues_held 900
	barrier queues_checked 300
	i=1
	while [ $i -le $QHOG ]; do
		_q_pid=$(cat "$T/queues$i.pid")
		grep -q "step=held" "$H/queues$i.out" && kill -USR1 "$_q_pid"
		wait_exit "$_q_pid" $TOOL_LIMIT || kill -KILL "$_q_pid"
		wait "$_q_pid"
		_q_rc=$?
		cat "$H/queues$i.out"
		_q_out=$(hfield "queues$i" outcome)
		if [ $_q_rc -eq 0 ] && printf '%s' "$_q_out" | grep -Eqx 'ok|refused'; then
			result "hostile.queues$i" ok "outcome=$_q_out"
		else
			result "hostile.queues$i" fail "rc=$_q_rc" "outcome=${_q_out:-none}"
		fi
		i=$((i + 1))
	done
	barrier queues_released 300
fi

# The final check: node 1 connects to a krdma listener here.
expect_ok final.listener krdmactl listener add name final port $FPORT
barrier final_listening
barrier final_done 600
expect_ok final.listener_del krdmactl listener del name final
rm -rf "$T"
exit 0
