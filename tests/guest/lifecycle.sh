#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Module and session lifecycle: rmmod krdma under load. Both nodes have
# an any-address and a bound listener, sessions to each other's listeners
# (both directions), tests running on them (write and read started with
# "test start", send through a "test run" that stays attached) and a
# "monitor".  Node 1 then unloads the module: rmmod finishes in bounded
# time and exits 0, the krdmactl processes still attached to the module
# exit by themselves with a non-zero status and a message that says the
# module went away, every RDMA object of krdma is gone.
# Node 2 sees its sessions go down and its tests end, each with a reason.
# Node 1 reloads the module; both directions connect again and run
# validated tests; nothing is left afterwards and the RDMA resources are
# back where they started.
#
# The connect/disconnect cycles and their leak check are cycles.sh (a
# slow test: make check-slow).
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
PA=7510		# any-address listener (both nodes)
PB=7511		# listener bound to the node's own address (both nodes)
DUR=180		# s; long enough to be still running at the rmmod
# KRDMA_SLOW (the debug kernel, ~25x slower): every bound X times longer
# (rmmod's too).
X=1
[ -z "${KRDMA_SLOW:-}" ] || X=5
KO=$KRDMA_ROOT/kmod/krdma.ko
PEER=$KRDMA_PEER_IP
N=$KRDMA_NODE
T=$(mktemp -d /tmp/lifecycle.XXXXXX)
START=$(date +%s)
RUN='' MON=''

cleanup() {
	for p in $RUN $MON; do
		kill -KILL "$p" 2>/dev/null
	done
}
trap cleanup EXIT

now_ms() { date +%s%3N; }
loaded() { grep -q '^krdma ' /proc/modules; }

# rdma_snap, rdma_cmp, rdma_show: tests/lib/guest-common.sh.

# ---- krdma state -----------------------------------------------------------

nothing_left() {
	[ "$(krdmactl -j listener show)" = "[]" ] &&
		[ "$(krdmactl -j session show)" = "[]" ] &&
		[ "$(krdmactl -j test show)" = "[]" ]
}

# connect NAME PREFIX PORT: session NAME to the peer's listener on PORT.
connect() {
	json_check "$2.connect.$1" \
		"timeout $((90 * X)) krdmactl -j session connect addr $PEER port $3 name $1" \
		"d['state'] == 'up' and d['name'] == '$1'"
}

# start_test NAME SESSION OP SIZE DEPTH: test start, its id in $T/NAME.id.
start_test() {
	if krdmactl -j test start session "$2" op "$3" size "$4" duration $((DUR * X))s depth "$5" \
		>"$T/$1.start" 2>&1 && json_get "d['test_id']" <"$T/$1.start" >"$T/$1.id"; then
		result "p1.start.$1" ok "test=$(cat "$T/$1.id")"
	else
		cat "$T/$1.start"
		result "p1.start.$1" fail
		echo 0 >"$T/$1.id"
	fi
}

reload() {
	for d in $(modinfo -F depends "$KO" 2>/dev/null | tr ',' ' '); do
		modprobe "$d" 2>/dev/null
	done
	# shellcheck disable=SC2086 # a=1 b=2
	insmod "$KO" ${KRDMA_MODPARAMS:-}
}

refcnt_zero() {
	[ "$(cat /sys/module/krdma/refcnt 2>/dev/null)" = 0 ]
}

# ============================================================================
# Part 1: rmmod under load
# ============================================================================
log "part 1: rmmod krdma with listeners, sessions and running tests"
rdma_snap "$T/p1.base"
rdma_show base "$T/p1.base"
refcnt_zero && result p1.refcnt_idle ok || result p1.refcnt_idle fail "refcnt=$(cat /sys/module/krdma/refcnt)"

EVG=$(genlpy --family | json_get "d['groups']['events']")
krdmactl -j monitor >"$T/mon.out" 2>"$T/mon.err" &
MON=$!
wait_for -t $((30 * X)) nl_subscribed $MON "${EVG:-99}" && result p1.monitor_subscribed ok ||
	result p1.monitor_subscribed fail

expect_ok p1.listener_any krdmactl listener add name any port $PA
expect_ok p1.listener_bound krdmactl listener add name bound addr "$KRDMA_IP" port $PB
barrier p1_listening $((120 * X))

# Three sessions to the peer's listeners (the peer does the same to ours):
# write and read tests by "test start", send by a "test run" left attached.
connect "c${N}w" p1 $PA
connect "c${N}r" p1 $PB
connect "c${N}s" p1 $((N == 1 ? PA : PB))
start_test w "c${N}w" write 4k 4
start_test r "c${N}r" read 4k 4
krdmactl -j test run session "c${N}s" op send size 4k duration $((DUR * X))s depth 4 \
	>"$T/run.out" 2>"$T/run.err" &
RUN=$!
wait_for -t $((120 * X)) tests_running 3 && result p1.tests_running ok ||
	{ krdmactl -j test show; result p1.tests_running fail; }
barrier p1_sessions $((300 * X))
# Our listeners hold the peer's three sessions too.
json_check p1.sessions_both_ways "krdmactl -j session show" \
	"sorted(s['role'] for s in d if s['state'] == 'up') == ['client'] * 3 + ['server'] * 3"
barrier p1_armed $((300 * X))
log "armed after $(($(date +%s) - START)) s"

if [ "$N" = 1 ]; then
	# ---- the node that unloads ----
	refcnt_zero && result p1.refcnt_busy ok || result p1.refcnt_busy fail "refcnt=$(cat /sys/module/krdma/refcnt)"
	log "rmmod krdma"
	t0=$(now_ms)
	timeout $((120 * X)) rmmod krdma >"$T/rmmod.out" 2>&1
	rc=$?
	ms=$(($(now_ms) - t0))
	cat "$T/rmmod.out"
	log "rmmod: rc=$rc in ${ms} ms"
	if [ $rc = 0 ] && ! loaded; then
		result p1.rmmod ok "ms=$ms"
	else
		result p1.rmmod fail "rc=$rc" "ms=$ms"
	fi
	[ -e /sys/module/krdma ] && result p1.sysfs_gone fail || result p1.sysfs_gone ok

	# The "test run" still attached must notice by itself, and say why.
	GONE_RE='^krdmactl: .*(unloaded|module)'
	if wait_exit $RUN $((30 * X)); then
		wait $RUN
		rc=$?
		log "test run: rc=$rc stdout: $(cat "$T/run.out") stderr: $(cat "$T/run.err")"
		[ $rc = 1 ] && grep -Eq "$GONE_RE" "$T/run.err" &&
			result p1.local_run_exits ok "rc=$rc" || result p1.local_run_exits fail "rc=$rc"
	else
		kill -KILL $RUN
		wait $RUN
		result p1.local_run_exits fail "hung_$((30 * X))s"
	fi
	RUN=
	# So must the monitor.
	if wait_exit $MON $((15 * X)); then
		wait $MON
		rc=$?
		log "monitor: rc=$rc stderr: $(cat "$T/mon.err")"
		[ $rc != 0 ] && grep -Eq "$GONE_RE" "$T/mon.err" &&
			result p1.local_monitor_exits ok "rc=$rc" || result p1.local_monitor_exits fail "rc=$rc"
	else
		kill -TERM $MON
		wait_exit $MON 10 || kill -KILL $MON
		wait $MON
		log "monitor: still waiting $((15 * X)) s after the unload; stderr: $(cat "$T/mon.err")"
		result p1.local_monitor_exits fail "hung_$((15 * X))s"
	fi
	MON=

	rdma_snap "$T/p1.unloaded"
	rdma_show unloaded "$T/p1.unloaded"
	rdma_cmp "$T/p1.base" "$T/p1.unloaded" unloaded &&
		result p1.unload_freed_rdma ok "krdma_pd_before=$(json_get "d['krdma']['pd']" <"$T/p1.base")" ||
		result p1.unload_freed_rdma fail
	barrier p1_unloaded $((300 * X))

	log "reload"
	if reload >"$T/insmod.out" 2>&1 && loaded; then
		result p1.reload ok "params=${KRDMA_MODPARAMS:-}"
	else
		cat "$T/insmod.out"
		result p1.reload fail
	fi
	refcnt_zero && result p1.refcnt_reloaded ok || result p1.refcnt_reloaded fail
	# The new instance starts from nothing, with the resources it had.
	nothing_left && result p1.reload_empty ok || result p1.reload_empty fail
	rdma_snap "$T/p1.reloaded"
	rdma_cmp "$T/p1.base" "$T/p1.reloaded" same &&
		result p1.reload_rdma_baseline ok ||
		{ rdma_show reloaded "$T/p1.reloaded"; result p1.reload_rdma_baseline fail; }
	expect_ok p1.relisten_any krdmactl listener add name any port $PA
	expect_ok p1.relisten_bound krdmactl listener add name bound addr "$KRDMA_IP" port $PB
else
	# ---- the peer of the node that unloads ----
	barrier p1_unloaded $((300 * X))
	wait_for -t $((90 * X)) no_sessions && result p1.peer_sessions_down ok ||
		{ krdmactl -j session show; result p1.peer_sessions_down fail; }
	if wait_exit $RUN $((60 * X)); then
		wait $RUN
		rc=$?
		log "test run: rc=$rc stderr: $(cat "$T/run.err")"
		[ $rc = 1 ] && result p1.peer_run_exit ok || result p1.peer_run_exit fail "rc=$rc"
		json_check p1.peer_run_reason "cat $T/run.out" \
			"r['status'] != 0 and len(r.get('reason', '')) > 0"
	else
		kill -KILL $RUN
		wait $RUN
		result p1.peer_run_exit fail "hung_$((60 * X))s"
	fi
	RUN=
	# Every session and every test we drove ended with a reason, in events.
	krdma_json events "$T/mon.out" "$(cat "$T/w.id")" "$(cat "$T/r.id")" \
		"$(json_get "r['test_id']" <"$T/run.out" 2>/dev/null || echo 0)" >"$T/ev.json"
	cat "$T/ev.json"
	json_check p1.peer_sessions_reason "cat $T/ev.json" "d['up'] == 6 and d['down_with_reason'] == 6"
	json_check p1.peer_tests_reason "cat $T/ev.json" "d['tests_failed_with_reason'] == 3"
	# Our module is still there: the monitor stays until told to stop.
	kill -INT $MON
	if wait_exit $MON 10; then
		wait $MON
		rc=$?
		[ $rc = 0 ] && result p1.peer_monitor_exit ok || result p1.peer_monitor_exit fail "rc=$rc"
	else
		kill -KILL $MON
		wait $MON
		result p1.peer_monitor_exit fail hung
	fi
	MON=
	rdma_snap "$T/p1.peer_down"
	rdma_cmp "$T/p1.base" "$T/p1.peer_down" no_queues && result p1.peer_freed_queues ok ||
		{ rdma_show peer_down "$T/p1.peer_down"; result p1.peer_freed_queues fail; }
fi
barrier p1_reloaded $((300 * X))
log "reloaded after $(($(date +%s) - START)) s"

# Both directions again, on the reloaded module, data checked.
connect "a${N}" p1.again $PA
connect "b${N}" p1.again $PB
run_test "p1.again_write_$N" "a${N}" write 65536 20 4
run_test "p1.again_read_$N" "b${N}" read 4096 20 4
barrier p1_again $((300 * X))
log "tested again after $(($(date +%s) - START)) s"
expect_ok p1.del_a krdmactl session del name "a${N}"
expect_ok p1.del_b krdmactl session del name "b${N}"
wait_for -t $((60 * X)) no_sessions && result p1.sessions_gone ok ||
	{ krdmactl -j session show; result p1.sessions_gone fail; }
expect_ok p1.unlisten_any krdmactl listener del name any
expect_ok p1.unlisten_bound krdmactl listener del name bound
nothing_left && result p1.nothing_left ok || result p1.nothing_left fail
refcnt_zero && result p1.refcnt_end ok || result p1.refcnt_end fail
p1_rdma_back() {
	rdma_snap "$T/p1.end" && rdma_cmp "$T/p1.base" "$T/p1.end" same
}
wait_for -t $((30 * X)) p1_rdma_back && result p1.rdma_baseline ok ||
	{ rdma_show end "$T/p1.end"; result p1.rdma_baseline fail; }
log "part 1 done after $(($(date +%s) - START)) s"
barrier p1_done $((300 * X))

loaded && result end.module_loaded ok || result end.module_loaded fail
log "done after $(($(date +%s) - START)) s"
barrier end $((300 * X))
rm -rf "$T"
exit 0
