#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The control plane: every krdmactl command and its error paths, checked
# against what the kernel really does.  Node 1 is the server, node 2 the
# client.  Raw requests through tests/lib/genl.py check the kernel's own
# policies and messages where krdmactl would refuse earlier.  Also:
# unprivileged users, a dump of 500 listeners, two tests at once, the
# event stream, ^C on "test run", and network namespaces.
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
PORT=7481
HDR=$KRDMA_ROOT/include/uapi/linux/krdma.h
ABI=$(sed -n 's/^#define[[:space:]]*KRDMA_ABI_VERSION[[:space:]]*\([0-9]*\).*/\1/p' "$HDR")
T=$(mktemp -d /tmp/control.XXXXXX)
EPERM_RE="Operation not permitted"

# sessions_are "['a', 'b']": the sorted names of this node's sessions.
sessions_are() {
	[ "$(krdmactl -j session show | json_get "sorted(s['name'] for s in d)")" = "$1" ]
}

# ---- both nodes: version, devices, listeners, names ----
log "local checks"

expect_rc_msg version.text 0 "^krdmactl .* \(abi $ABI\), module .*, abi $ABI$" krdmactl version
json_check version.json "krdmactl -j version" \
	"d['abi'] == $ABI and d['krdmactl_abi'] == $ABI and len(d['module']) > 0"
json_check dev.show "krdmactl -j dev show" \
	"len(d) == 1 and d[0]['dev'] == 'rxe0' and d[0]['port'] == 1 and d[0]['state'] == 'ACTIVE' and d[0]['mtu'] >= 256 and d[0]['max_qp_rd_atom'] > 0 and d[0]['max_sge'] > 0 and d[0]['atomic'] in ('hca', 'glob') and len(d[0]['node_guid']) == 19 and 'dev_index' in d[0]"
json_check dev.show_name "krdmactl -j dev show rxe0" "len(d) == 1 and d[0]['dev'] == 'rxe0'"
expect_rc_msg dev.show_unknown 1 "no such RDMA device" krdmactl dev show nosuchdev
genl_err dev.raw_unknown ENODEV "no such RDMA device" KRDMA_A_DEV_NAME DEV_GET DEV_NAME=nosuchdev

LP=$((7490 + KRDMA_NODE * 10))	# ports of this part, per node
krdmactl -j listener add name la port $LP >"$T/la.json" 2>&1
LA=$(json_get "d['listener_id']" <"$T/la.json")
[ -n "$LA" ] && result listener.add ok || { cat "$T/la.json"; result listener.add fail; LA=0; }
# tools/README.md: "listener add" prints the new listener like "show" does.
json_check listener.add_prints_listener "cat $T/la.json" "d.get('name') == 'la' and d.get('local_port') == $LP"
json_check listener.show_id "krdmactl -j listener show $LA" \
	"len(d) == 1 and d[0]['name'] == 'la' and d[0]['local_port'] == $LP and d[0]['listener_id'] == $LA"
json_check listener.show_name "krdmactl -j listener show name la" \
	"len(d) == 1 and d[0]['listener_id'] == $LA and d[0]['local_port'] == $LP"
# tools/README.md: no local_addr key for "any" (text: "local *:PORT").
json_check listener.any_addr_json "krdmactl -j listener show name la" "'local_addr' not in d[0]"
expect_rc_msg listener.any_addr_text 0 "local \*:$LP" krdmactl listener show name la
# Bound to this host's address: on rxe0, with a generated name.
LB=$(krdmactl -j listener add addr "$KRDMA_IP" port $((LP + 1)) | json_get "d['listener_id']")
[ -n "$LB" ] && result listener.add_addr ok || { result listener.add_addr fail; LB=0; }
json_check listener.show_addr "krdmactl -j listener show $LB" \
	"d[0]['local_addr'] == '$KRDMA_IP' and d[0]['local_port'] == $((LP + 1)) and d[0]['dev'] == 'rxe0' and d[0]['name'] == 'l$LB'"
expect_rc_msg listener.dup_name 1 "exists" krdmactl listener add name la port $((LP + 2))
expect_rc_msg listener.port_in_use 1 "in use" krdmactl listener add port $LP
expect_rc_msg listener.foreign_addr 1 "not on an RDMA device of this host" \
	krdmactl listener add addr 10.77.0.99 port $((LP + 3))
expect_rc_msg listener.del_unknown_id 1 "no such listener" krdmactl listener del 99999
expect_rc_msg listener.del_unknown_name 1 "no such listener" krdmactl listener del name nosuch
expect_rc_msg listener.show_unknown 1 "no such listener" krdmactl listener show 99999
json_check listener.failed_adds_left_nothing "krdmactl -j listener show" "len(d) == 2"
# Names: the CLI refuses, and so does the kernel when asked directly.
expect_rc_msg listener.cli_name_digits 2 "invalid name" krdmactl listener add name 123 port $((LP + 4))
expect_rc_msg listener.cli_name_space 2 "invalid name" krdmactl listener add name "a b" port $((LP + 4))
genl_err listener.name_digits EINVAL "must not be all digits" KRDMA_A_NAME \
	LISTENER_ADD NAME=123 LOCAL_ADDR.PORT=$((LP + 4))
genl_err listener.name_space EINVAL "printable, without spaces" KRDMA_A_NAME \
	LISTENER_ADD "NAME=a b" LOCAL_ADDR.PORT=$((LP + 4))
genl_err listener.name_empty EINVAL "empty" KRDMA_A_NAME \
	LISTENER_ADD NAME= LOCAL_ADDR.PORT=$((LP + 4))
genl_err listener.name_too_long - "." KRDMA_A_NAME \
	LISTENER_ADD NAME="$(printf 'n%031d' 0)" LOCAL_ADDR.PORT=$((LP + 4))
genl_err listener.no_port EINVAL "port required" KRDMA_A_LOCAL_ADDR \
	LISTENER_ADD NAME=np LOCAL_ADDR.IPV4=0.0.0.0
genl_err listener.port_zero - "." KRDMA_ADDR_A_PORT \
	LISTENER_ADD NAME=np LOCAL_ADDR.PORT=0
genl_err listener.del_no_ref EINVAL "id or name required" - LISTENER_DEL
expect_rc_msg listener.del_id 0 "" krdmactl listener del "$LA"
expect_rc_msg listener.del_name 0 "" krdmactl listener del name "l$LB"
json_check listener.all_gone "krdmactl -j listener show" "d == []"

if [ "$KRDMA_NODE" = 1 ]; then
	# ---- server ----
	log "server"
	MAIN=$(krdmactl -j listener add name main port $PORT | json_get "d['listener_id']")
	[ -n "$MAIN" ] && result listener.main ok || result listener.main fail
	# No port: krdma's own, which the client's one-shot runs reach.
	json_check listener.default_port "krdmactl -j listener add name dflt" \
		"d['local_port'] == 7362"
	barrier listening
	barrier c1_up 300
	json_check server.session "krdmactl -j session show" \
		"any(s['role'] == 'server' and s['state'] == 'up' and s['peer_addr'] == '$KRDMA_PEER_IP' and s['local_port'] == $PORT and s['listener_id'] == ${MAIN:-0} for s in d)"

	log "network namespaces"
	# Network namespaces: nothing of the init namespace is seen from t1,
	# and nothing of t1 from the init namespace.
	if ip netns add t1; then
		json_check netns.no_listeners "ip netns exec t1 krdmactl -j listener show" "d == []"
		json_check netns.no_sessions "ip netns exec t1 krdmactl -j session show" "d == []"
		json_check netns.no_tests "ip netns exec t1 krdmactl -j test show" "d == []"
		json_check netns.listener_add "ip netns exec t1 krdmactl -j listener add name nsl port 7600" \
			"d['listener_id'] > 0"
		json_check netns.listener_inside "ip netns exec t1 krdmactl -j listener show" \
			"len(d) == 1 and d[0]['name'] == 'nsl' and d[0]['local_port'] == 7600"
		json_check netns.not_in_init "krdmactl -j listener show" \
			"sorted(l['name'] for l in d) == ['dflt', 'main']"
		expect_rc_msg netns.del_from_init 1 "no such listener" krdmactl listener del name nsl
		# Connections resolve in the caller's namespace: t1 has no
		# route to the peer that the init namespace reaches.
		ip -n t1 link set lo up
		expect_rc_msg netns.connect_uses_caller_ns 1 "unreachable|address|route" \
			timeout 60 ip netns exec t1 krdmactl session connect addr "$KRDMA_PEER_IP" port 7481 timeout 5s
		json_check netns.connect_left_nothing "ip netns exec t1 krdmactl -j session show" "d == []"
		# The same name and port are free in the init namespace.
		json_check netns.same_name_in_init "krdmactl -j listener add name nsl port 7601" "d['listener_id'] > 0"
		expect_ok netns.del_inside ip netns exec t1 krdmactl listener del name nsl
		json_check netns.empty_inside "ip netns exec t1 krdmactl -j listener show" "d == []"
		expect_ok netns.del_init krdmactl listener del name nsl
		expect_ok netns.delete ip netns del t1
	else
		result netns.add fail
	fi

	# Reads are open to everybody.
	json_check nobody.server.session_show "$NOBODY krdmactl -j session show" \
		"any(s['role'] == 'server' for s in d)"
	json_check nobody.server.listener_show "$NOBODY krdmactl -j listener show" \
		"any(l['name'] == 'main' for l in d)"
	expect_rc_msg nobody.server.listener_del 1 "$EPERM_RE" as_nobody krdmactl listener del name main

	# A dump across many messages: NL listeners, added in one process
	# (fewer on the slow debug kernel, still several messages).
	NL=500
	[ -z "${KRDMA_SLOW:-}" ] || NL=150
	log "$NL listeners"
	python3 - "$KRDMA_ROOT/tests/lib" $NL >"$T/l500.json" 2>&1 <<'EOF'
import json, sys
sys.path.insert(0, sys.argv[1])
import genl
g = genl.Genl()
added = 0
for i in range(int(sys.argv[2])):
    g.do("LISTENER_ADD", [("NAME", "l%d" % i), ("LOCAL_ADDR.PORT", 20000 + i)])
    added += 1
d = g.dump("LISTENER_GET")
print(json.dumps({"added": added, "parts": g.last_parts,
                  "listeners": [[l["listener_id"], l["name"],
                                 l["local_addr"]["port"]] for l in d]}))
EOF
	json_check l500.genl_dump "cat $T/l500.json" \
		"d['added'] == $NL and d['parts'] > 1 and sorted((n, p) for i, n, p in d['listeners'] if n not in ('main', 'dflt')) == sorted(('l%d' % i, 20000 + i) for i in range($NL)) and len(set(i for i, n, p in d['listeners'])) == $NL + 2"
	json_check l500.cli_show "krdmactl -j listener show" \
		"len(d) == $NL + 2 and len(set(l['listener_id'] for l in d)) == $NL + 2 and all(l['local_port'] == 20000 + int(l['name'][1:]) for l in d if l['name'] not in ('main', 'dflt'))"
	json_check l500.cli_show_one "krdmactl -j listener show name l$((NL - 1))" \
		"len(d) == 1 and d[0]['local_port'] == 20000 + $NL - 1"
	i=0
	while [ $i -lt $NL ]; do
		echo "LISTENER_DEL NAME=l$i"
		i=$((i + 1))
	done | genlpy --batch >"$T/l500.del" 2>&1
	[ "$(grep -c '^ok$' "$T/l500.del")" = $NL ] && result l500.del ok ||
		{ head -n 5 "$T/l500.del"; result l500.del fail; }
	json_check l500.gone "krdmactl -j listener show" "sorted(l['name'] for l in d) == ['dflt', 'main']"

	log "waiting for the client"
	barrier client_done 900
	# The client removed every session: the server's side goes away too.
	wait_for -t 60 no_sessions &&
		result server.sessions_gone ok ||
		{ krdmactl -j session show; result server.sessions_gone fail; }
	expect_ok listener.del_main krdmactl listener del name main
	expect_ok listener.del_dflt krdmactl listener del name dflt
	barrier "done"
	rm -rf "$T"
	exit 0
fi

# ---- client ----
barrier listening
log "sessions"

# Connect, show, delete by id and by name; error paths.
OUT=$(timeout 90 krdmactl -j session connect addr "$KRDMA_PEER_IP" port $PORT name c1 2>&1)
C1=$(printf '%s' "$OUT" | json_get "d['session_id'] if d['state'] == 'up' and d['name'] == 'c1' else ''")
if [ -n "$C1" ]; then
	result session.connect ok
else
	echo "$OUT"
	result session.connect fail
	C1=0
fi
barrier c1_up
json_check session.show_id "krdmactl -j session show $C1" \
	"len(d) == 1 and d[0]['name'] == 'c1' and d[0]['state'] == 'up' and d[0]['role'] == 'client' and d[0]['peer_addr'] == '$KRDMA_PEER_IP' and d[0]['peer_port'] == $PORT and d[0]['local_addr'] == '$KRDMA_IP' and d[0]['dev'] == 'rxe0'"
json_check session.show_name "krdmactl -j session show name c1" "len(d) == 1 and d[0]['session_id'] == $C1"
json_check session.show_stats "krdmactl -j -s session show c1" \
	"len(d) == 1 and d[0]['stats']['sessions_opened'] == 1 and d[0]['stats']['recv_wrs'] > 0"
json_check session.show_all "krdmactl -j session show" "[s['name'] for s in d] == ['c1']"
expect_rc_msg session.dup_name 1 "exists" \
	timeout 90 krdmactl session connect addr "$KRDMA_PEER_IP" port $PORT name c1 timeout 10s
json_check session.dup_left_nothing "krdmactl -j session show" "len(d) == 1"
expect_rc_msg session.show_unknown_id 1 "no such session" krdmactl session show 99999
expect_rc_msg session.show_unknown_name 1 "no such session" krdmactl session show name nosuch
expect_rc_msg session.del_unknown_id 1 "no such session" krdmactl session del 99999
expect_rc_msg session.del_unknown_name 1 "no such session" krdmactl session del name nosuch
expect_rc_msg session.cli_name_digits 2 "invalid name" \
	krdmactl session connect addr "$KRDMA_PEER_IP" port $PORT name 123
expect_rc_msg session.cli_name_space 2 "invalid name" \
	krdmactl session connect addr "$KRDMA_PEER_IP" port $PORT name "a b"
genl_err session.name_digits EINVAL "must not be all digits" KRDMA_A_NAME \
	SESSION_NEW NAME=123 PEER_ADDR.IPV4="$KRDMA_PEER_IP" PEER_ADDR.PORT=$PORT
genl_err session.name_space EINVAL "printable, without spaces" KRDMA_A_NAME \
	SESSION_NEW "NAME=a b" PEER_ADDR.IPV4="$KRDMA_PEER_IP" PEER_ADDR.PORT=$PORT
genl_err session.raw_del_unknown ENOENT "no such session" - SESSION_DEL SESSION_ID=99999
genl_err session.raw_del_no_ref EINVAL "id or name required" - SESSION_DEL
# Bad addresses: a 3-byte IPv4 address, no address, both families.
genl_err session.ipv4_3_bytes - "." KRDMA_ADDR_A_IPV4 \
	SESSION_NEW NAME=bad PEER_ADDR.PORT=$PORT --raw-attr PEER_ADDR.IPV4:0a4d00
genl_err session.no_address EINVAL "address required" KRDMA_A_PEER_ADDR \
	SESSION_NEW NAME=bad PEER_ADDR.PORT=$PORT
genl_err session.two_families EINVAL "not both" KRDMA_A_PEER_ADDR \
	SESSION_NEW NAME=bad PEER_ADDR.IPV4="$KRDMA_PEER_IP" PEER_ADDR.IPV6=::1 PEER_ADDR.PORT=$PORT
genl_err session.timeout_range ERANGE "." KRDMA_A_TIMEOUT_MS \
	SESSION_NEW NAME=bad PEER_ADDR.IPV4="$KRDMA_PEER_IP" PEER_ADDR.PORT=$PORT TIMEOUT_MS=99
expect_rc_msg session.cli_bad_addr 2 "invalid addr" \
	krdmactl session connect addr 300.1.1.1 port $PORT
json_check session.bad_left_nothing "krdmactl -j session show" "len(d) == 1"

log "test parameters"
# Test parameters: unknown session, and what the kernel's policy refuses.
expect_rc_msg test.unknown_session_name 1 "no such session" \
	krdmactl test start session nosuch op write size 4096 count 1
expect_rc_msg test.unknown_session_id 1 "no such session" \
	krdmactl test start session 99999 op write size 4096 count 1
RAW="TEST_START SESSION_ID=$C1 TEST_OP=write"
genl_err test.raw_size_0 ERANGE "." KRDMA_A_TEST_SIZE $RAW TEST_SIZE=0
genl_err test.raw_size_9M ERANGE "." KRDMA_A_TEST_SIZE $RAW TEST_SIZE=$((9 << 20))
genl_err test.raw_depth_0 ERANGE "." KRDMA_A_TEST_DEPTH $RAW TEST_SIZE=4096 TEST_DEPTH=0
genl_err test.raw_depth_129 ERANGE "." KRDMA_A_TEST_DEPTH $RAW TEST_SIZE=4096 TEST_DEPTH=129
genl_err test.raw_interval_50 ERANGE "." KRDMA_A_TEST_INTERVAL_MS $RAW TEST_SIZE=4096 TEST_INTERVAL_MS=50
genl_err test.raw_op_0 ERANGE "." KRDMA_A_TEST_OP TEST_START SESSION_ID=$C1 TEST_OP=0
genl_err test.raw_op_9 ERANGE "." KRDMA_A_TEST_OP TEST_START SESSION_ID=$C1 TEST_OP=9
genl_err test.raw_count_and_duration EINVAL "not both" KRDMA_A_TEST_DURATION_MS \
	$RAW TEST_SIZE=4096 TEST_COUNT=10 TEST_DURATION_MS=1000
genl_err test.raw_count_0 EINVAL "at least 1" KRDMA_A_TEST_COUNT $RAW TEST_SIZE=4096 TEST_COUNT=0
genl_err test.raw_no_op EINVAL "" miss:KRDMA_A_TEST_OP TEST_START SESSION_ID=$C1 TEST_SIZE=4096
genl_err test.raw_stop_no_id EINVAL "" miss:KRDMA_A_TEST_ID TEST_STOP
genl_err test.raw_unknown_attr EINVAL "." 200 $RAW --raw-attr 200:00000000
genl_err test.raw_stop_unknown ENOENT "no such test" - TEST_STOP TEST_ID=99999
genl_err test.raw_get_unknown ENOENT "no such test" KRDMA_A_TEST_ID TEST_GET TEST_ID=99999
C="krdmactl test start session c1 op write"
expect_rc_msg test.cli_size_0 2 "size" $C size 0 count 1
expect_rc_msg test.cli_size_9M 2 "size" $C size 9M count 1
expect_rc_msg test.cli_depth_0 2 "depth" $C size 4096 depth 0 count 1
expect_rc_msg test.cli_depth_129 2 "depth" $C size 4096 depth 129 count 1
expect_rc_msg test.cli_interval_50ms 2 "interval" $C size 4096 interval 50ms count 1
expect_rc_msg test.cli_count_and_duration 2 "count.*duration" $C size 4096 count 10 duration 1s
expect_rc_msg test.atomic_size 1 "atomics operate on 8 bytes" \
	krdmactl test start session c1 op atomic_fadd size 4100 count 1
expect_rc_msg test.atomic_size_bw 1 "atomics operate on 8 bytes" \
	krdmactl test start session c1 op atomic_fadd mode bw size 16 count 1
expect_rc_msg test.atomic_target_too_large 1 "atomics operate on 8 bytes" \
	krdmactl test start session c1 op atomic_cswap size 4104 count 1
expect_rc_msg test.stop_unknown 1 "no such test" krdmactl test stop 99999
expect_rc_msg test.show_unknown 1 "no such test" krdmactl test show 99999
json_check test.none_started "krdmactl -j test show" "d == []"

log "tests"
# Durations that outlast the checks made meanwhile, even on the debug
# kernel (KRDMA_SLOW, ~25x slower: a krdmactl call can take seconds).
# TWO: long enough that both tests are still running when the second has
# started, on a host loaded with other guests (10 s was seen too short).
LONG=30 TWO=30
[ -z "${KRDMA_SLOW:-}" ] || LONG=600 TWO=120
# start / show / stop
TID=$(krdmactl -j test start session c1 op write size 4k duration ${LONG}s depth 4 interval 200ms |
	json_get "d['test_id']")
[ -n "$TID" ] && result test.start ok || { result test.start fail; TID=0; }
json_check test.show_running "krdmactl -j test show $TID" \
	"len(d) == 1 and d[0]['state'] == 'running' and d[0]['session_id'] == $C1 and d[0]['op'] == 'write' and d[0]['size'] == 4096 and d[0]['depth'] == 4"
json_check test.show_duration "krdmactl -j test show $TID" \
	"d[0].get('duration_ms') == $LONG * 1000 and d[0].get('interval_ms') == 200"
expect_rc_msg test.busy 1 "already running" krdmactl test start session c1 op read size 4k count 1
expect_rc_msg test.stop 0 "" krdmactl test stop "$TID"
wait_for -t 30 sh -c "krdmactl -j test show $TID | grep -q '\"state\":\"done\"'" ||
	result test.stop_wait fail
json_check test.stopped "krdmactl -j test show $TID" \
	"d[0]['state'] == 'done' and d[0]['status'] == -125 and d[0]['reason'] == 'stopped' and d[0]['validated'] == d[0]['iters']"
expect_rc_msg test.stop_again 1 "already ended" krdmactl test stop "$TID"
run_test run.write c1 write 4096 20 4
run_test run.atomic c1 atomic_fadd 8 20 2

log "ctrl-c"
# ^C on "test run": the test is stopped, reported as such, exit 130.
krdmactl -j test run session c1 op write size 4k duration 60s depth 4 >"$T/run.out" 2>"$T/run.err" &
RUN=$!
# Running, and krdmactl has its SIGINT handler (a background job of a
# non-interactive shell starts with SIGINT ignored).
if wait_for -t 30 sh -c "krdmactl -j test show | grep -q '\"session_id\":$C1,[^}]*\"state\":\"running\"'" &&
	wait_for -t 10 sig_caught $RUN 2; then
	kill -INT $RUN
	if wait_exit $RUN 10; then
		result ctrlc.exits ok
	else
		result ctrlc.exits fail
		kill -KILL $RUN
	fi
	wait $RUN
	RC=$?
	[ $RC = 130 ] && result ctrlc.exit_status ok || result ctrlc.exit_status fail "rc=$RC"
	cat "$T/run.err"
	json_check ctrlc.result "cat $T/run.out" "r['status'] == -125 and r['iters'] == r['validated']"
	RTID=$(json_get "r['test_id']" <"$T/run.out")
	json_check ctrlc.show "krdmactl -j test show ${RTID:-0}" \
		"d[0]['state'] == 'done' and d[0]['status'] == -125 and d[0]['reason'] == 'stopped'"
else
	result ctrlc.running fail
	kill -KILL $RUN
	wait $RUN
fi

log "unprivileged"
# Unprivileged: reads work, changes get EPERM.
expect_ok nobody.version as_nobody krdmactl version
json_check nobody.dev_show "$NOBODY krdmactl -j dev show" "d[0]['dev'] == 'rxe0'"
json_check nobody.session_show "$NOBODY krdmactl -j session show" "[s['name'] for s in d] == ['c1']"
json_check nobody.listener_show "$NOBODY krdmactl -j listener show" "d == []"
json_check nobody.stats_show "$NOBODY krdmactl -j stats show" "d['sessions_opened'] >= 1"
json_check nobody.test_show "$NOBODY krdmactl -j test show" "len(d) == 1"
expect_rc_msg nobody.listener_add 1 "$EPERM_RE" as_nobody krdmactl listener add port 7700
expect_rc_msg nobody.session_connect 1 "$EPERM_RE" \
	as_nobody timeout 60 krdmactl session connect addr "$KRDMA_PEER_IP" port $PORT timeout 5s
expect_rc_msg nobody.session_del 1 "$EPERM_RE" as_nobody krdmactl session del name c1
expect_rc_msg nobody.test_start 1 "$EPERM_RE" as_nobody krdmactl test start session c1 op write size 4k count 1
expect_rc_msg nobody.test_stop 1 "$EPERM_RE" as_nobody krdmactl test stop "${RTID:-1}"
expect_rc_msg nobody.stats_reset 1 "$EPERM_RE" as_nobody krdmactl stats reset
expect_rc_msg nobody.raw_session_del 1 "^error 1( |$)" \
	as_nobody python3 "$KRDMA_ROOT/tests/lib/genl.py" SESSION_DEL SESSION_ID=$C1
json_check nobody.nothing_changed "krdmactl -j session show" "[s['state'] for s in d] == ['up']"

log "two tests at once"
# Two tests on two sessions at once.
json_check two.connect_a "timeout 90 krdmactl -j session connect addr $KRDMA_PEER_IP port $PORT name s_a" "d['state'] == 'up'"
expect_rc_msg two.connect_b_text 0 "^session [0-9]+ name s_b up$" \
	timeout 90 krdmactl session connect addr "$KRDMA_PEER_IP" port $PORT name s_b
TA=$(krdmactl -j test start session s_a op write size 4k duration ${TWO}s depth 4 | json_get "d['test_id']")
TB=$(krdmactl -j test start session s_b op read size 4k duration ${TWO}s depth 4 | json_get "d['test_id']")
json_check two.both_running "krdmactl -j test show" \
	"sorted(t['test_id'] for t in d if t['state'] == 'running') == sorted([${TA:-0}, ${TB:-0}])"
wait_for -t $((TWO + 60)) sh -c "[ \$(krdmactl -j test show | grep -o '\"state\":\"running\"' | wc -l) = 0 ]" ||
	result two.wait fail
json_check two.both_ok "krdmactl -j test show" \
	"len([t for t in d if t['test_id'] in (${TA:-0}, ${TB:-0}) and t['state'] == 'done' and t['status'] == 0 and t['iters'] > 0 and t['validated'] == t['iters']]) == 2"
SA=$(krdmactl -j session show name s_a | json_get "d[0]['session_id']")
expect_ok two.del_a_by_id krdmactl session del "${SA:-0}"
expect_ok two.del_b_by_name krdmactl session del name s_b
wait_for -t 30 sessions_are "['c1']" &&
	result two.sessions_gone ok || { krdmactl -j session show; result two.sessions_gone fail; }

log "events"
# Events: session up, test progress and done, session down.
EVG=$(genlpy --family | json_get "d['groups']['events']")
krdmactl -j monitor >"$T/mon.out" 2>"$T/mon.err" &
MON=$!
wait_for -t 20 nl_subscribed $MON "${EVG:-99}" || result events.subscribed fail
json_check events.connect "timeout 90 krdmactl -j session connect addr $KRDMA_PEER_IP port $PORT name s_ev" "d['state'] == 'up'"
json_check events.run "krdmactl -j test run session s_ev op write size 4k duration 2s depth 4 interval 200ms" \
	"r['status'] == 0 and r['iters'] > 0 and r['validated'] == r['iters']"
expect_ok events.del krdmactl session del name s_ev
wait_for -t 30 grep -q '"event":"session_down".*"name":"s_ev"' "$T/mon.out" ||
	result events.down_seen fail
kill -INT $MON
if wait_exit $MON 10; then
	wait $MON
	RC=$?
	[ $RC = 0 ] && result events.monitor_exit ok || result events.monitor_exit fail "rc=$RC"
else
	result events.monitor_exit fail timeout
	kill -KILL $MON
	wait $MON
fi
cat "$T/mon.err"
python3 - "$T/mon.out" >"$T/mon.json" <<'EOF'
import json, sys
ev = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
up = [e for e in ev if e["event"] == "session_up" and e.get("name") == "s_ev"]
sid = up[0]["session_id"] if up else None
prog = [e for e in ev if e["event"] == "test_progress" and e.get("session_id") == sid]
done = [e for e in ev if e["event"] == "test_done" and e.get("session_id") == sid]
down = [e for e in ev if e["event"] == "session_down" and e.get("session_id") == sid]
print(json.dumps({"up": len(up), "progress": len(prog), "done": done,
                  "down": down, "order": [e["event"] for e in ev
                                          if e.get("session_id") == sid]}))
EOF
json_check events.session_up "cat $T/mon.json" "d['up'] == 1"
json_check events.progress "cat $T/mon.json" "d['progress'] >= 3"
json_check events.test_done "cat $T/mon.json" \
	"len(d['done']) == 1 and d['done'][0]['status'] == 0 and d['done'][0]['state'] == 'done' and d['done'][0]['iters'] == d['done'][0]['validated'] > 0"
json_check events.session_down "cat $T/mon.json" \
	"len(d['down']) == 1 and 'closed by user' in d['down'][0]['reason']"
json_check events.order "cat $T/mon.json" \
	"d['order'][0] == 'session_up' and d['order'][-1] == 'session_down' and d['order'].index('test_done') > max(i for i, e in enumerate(d['order']) if e == 'test_progress')"

log "one-shot"
# oneshot_started SIG: a one-shot run (no port: krdma's own, 7362) of 600 s
# is running, and it catches signal SIG to delete its session.
oneshot_started() {
	krdmactl -j session show | grep -q '"name":"run-' &&
		krdmactl -j test show | grep -q '"state":"running"' && sig_caught "$RUN" "$1"
}
# "test run addr HOST", as ib_write_bw HOST: a session of its own, sized
# for the test, deleted at the end.
json_check oneshot.run "krdmactl -j test run addr $KRDMA_PEER_IP op send mode bw size 256K count 40 depth 8" \
	"r['status'] == 0 and r['iters'] == 40 and r['validated'] >= 1 and r['size'] == 262144"
wait_for -t 30 sessions_are "['c1']" &&
	result oneshot.session_deleted ok || result oneshot.session_deleted fail
# Whatever ends it, the session goes: ^C (exit 130) and a hangup.
for sig in INT:2 HUP:1; do
	krdmactl -j test run addr "$KRDMA_PEER_IP" op write mode bw size 64K duration 600s \
		>"$T/os.out" 2>"$T/os.err" &
	RUN=$!
	if wait_for -t 60 oneshot_started "${sig#*:}"; then
		kill -"${sig%:*}" $RUN
		if wait_exit $RUN 60; then
			wait $RUN
			rc=$?
			[ "${sig%:*}" != INT ] || [ $rc = 130 ] &&
				result "oneshot.sig${sig%:*}.exits" ok "rc=$rc" ||
				result "oneshot.sig${sig%:*}.exits" fail "rc=$rc"
		else
			result "oneshot.sig${sig%:*}.exits" fail
			kill -KILL $RUN
			wait $RUN
		fi
		wait_for -t 30 sessions_are "['c1']" &&
			result "oneshot.sig${sig%:*}.session_deleted" ok ||
			{ krdmactl -j session show; result "oneshot.sig${sig%:*}.session_deleted" fail; }
	else
		cat "$T/os.err"
		result "oneshot.sig${sig%:*}.running" fail
		kill -KILL $RUN
		wait $RUN
	fi
done
# A reader of ping's lines that goes away (head): ping's next line gets
# EPIPE, and it deletes its session and stops, long before its 300
# round trips (150 s) would have.
timeout 90 sh -c "krdmactl ping $KRDMA_PEER_IP count 300 interval 0.5s | head -n 2" >"$T/ping.out" 2>&1
rc=$?
[ $rc != 124 ] && [ "$(wc -l <"$T/ping.out")" -ge 2 ] &&
	result oneshot.ping_epipe.stops ok "rc=$rc" ||
	{ cat "$T/ping.out"; result oneshot.ping_epipe.stops fail "rc=$rc"; }
wait_for -t 30 sessions_are "['c1']" &&
	result oneshot.ping_epipe.session_deleted ok || result oneshot.ping_epipe.session_deleted fail

log "counters"
# Counters: reset by root, then nothing moves while nothing runs.
expect_ok session.del_name krdmactl session del name c1
wait_for -t 30 sessions_are "[]" &&
	result session.all_gone ok || result session.all_gone fail
expect_rc_msg stats.reset 0 "" krdmactl stats reset
json_check stats.zero "krdmactl -j stats show" "len(d) >= 18 and all(v == 0 for v in d.values())"
json_check test.none_left "krdmactl -j test show" "d == []"
log "done"
barrier client_done
barrier "done"
rm -rf "$T"
