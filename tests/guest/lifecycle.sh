#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Module and session lifecycle.
#
# Part 1, "rmmod krdma under load": both nodes have an any-address and a
# bound listener, sessions to each other's listeners (both directions),
# tests running on them (write and read started with "test start", send
# through a "test run" that stays attached) and a "monitor".  Node 1 then
# unloads the module: rmmod finishes in bounded time and exits 0, the
# krdmactl processes still attached to the module exit by themselves with
# a non-zero status and a message that says the module went away, every
# RDMA object of krdma is gone.
# Node 2 sees its sessions go down and its tests end, each with a reason.
# Node 1 reloads the module; both directions connect again and run
# validated tests; nothing is left afterwards and the RDMA resources are
# back where they started.
#
# Part 2, "connect/disconnect cycles": node 1 listens, node 2 connects and
# deletes a session KRDMA_CYCLES times (default 1000) from one process
# (tests/lib/genl.py, waiting for the SESSION_UP and SESSION_DOWN events of
# every cycle).  Before and after, on both nodes: the RDMA resources
# (rdma resource show: summary counts and the qp/cq/mr/pd/cm_id lists) must
# be back exactly; kernel slab within a tolerance (see slab_cmp below).
#
# Env: KRDMA_CYCLES (default 1000; 50 with KRDMA_SLOW), KRDMA_SLAB_TOL_OBJS
# (per-cache object tolerance, default 64), KRDMA_SLAB_TOL_KB (meminfo
# SUnreclaim tolerance, default 512).
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
PA=7510		# any-address listener (both nodes)
PB=7511		# listener bound to the node's own address (both nodes)
PC=7520		# node 1's listener for the cycles
DUR=180		# s; long enough to be still running at the rmmod
# KRDMA_SLOW (the debug kernel, ~25x slower, kmemleak on): fewer cycles,
# every bound X times longer (rmmod's too).
X=1
CYCLES=${KRDMA_CYCLES:-1000}
if [ -n "${KRDMA_SLOW:-}" ]; then
	X=5
	CYCLES=${KRDMA_CYCLES:-50}
fi
WARMUP=10
TOL_OBJS=${KRDMA_SLAB_TOL_OBJS:-64}
TOL_KB=${KRDMA_SLAB_TOL_KB:-512}
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
left() { echo $((KRDMA_DEADLINE - $(date +%s))); }
loaded() { grep -q '^krdma ' /proc/modules; }

# ---- RDMA resources --------------------------------------------------------

# rdma_snap, rdma_cmp, rdma_show: tests/lib/guest-common.sh.

# ---- slab ------------------------------------------------------------------

# slab_snap FILE: the allocated objects of every slab cache and the Slab
# lines of /proc/meminfo, as JSON.  SLUB counts every object of a per-CPU
# slab as allocated (/proc/slabinfo's active_objs, the "objects" file): the
# count jumps by up to a slab's worth of objects (512 for kmalloc-8, 64 for
# kmalloc-64, 21 for kmalloc-192) whenever a CPU takes a new slab, which
# made two idle snapshots differ by up to 347 objects.  So each cache is
# shrunk (per-CPU slabs flushed to the node lists, whose free objects are
# counted) and its "objects" read at once, through files opened and read
# beforehand (no allocation in between), three times, keeping the smallest
# count.  Reclaimable slab (dentries, inodes) is dropped first.
slab_snap() {
	sync
	echo 2 >/proc/sys/vm/drop_caches
	krdma_json slab-snap "$1"
}

# slab_cmp BASE NOW [MID]: JSON with the verdict and the numbers.  The
# check that catches a per-cycle leak is the object count of each kmalloc
# cache (krdma allocates only with kmalloc; rdma_cm, ib_cm and rxe too; the
# guests boot with slab_nomerge, so no other cache shares their counts): a
# leak of one object per cycle adds CYCLES objects to one cache.  Measured
# on the Debian 6.1 TCG guests: two idle snapshots differ by 0 objects in
# every kmalloc cache, the snapshots before and after 1000 cycles by +2 at
# most -- but once in a CI run on a loaded host by more than 64 in one
# cache, for good.  A leak grows with the cycles, a one-time jump (a
# cache's first slab of a new size class, a daemon's allocation) does not:
# with MID, the snapshot taken halfway, a cache's growth is twice the
# smaller of its two halves' increases, so only an increase seen in both
# halves counts.  KRDMA_SLAB_TOL_OBJS=64 leaves room for background
# activity: over 1000 cycles a leak of one object (of any size) every 15
# cycles fails; with KRDMA_CYCLES=N, any leak of more than 64/N objects
# per cycle.  Frees (negative deltas) never fail.  The other caches
# (dentries, inodes, files, skbs) follow what userspace does: their largest
# changes are printed, not checked.  SUnreclaim (pages of every
# unreclaimable cache, partly filled slabs included) is coarse: it moved by
# -40..+76 kB between idle snapshots and by +152..+208 kB over 1000 cycles;
# KRDMA_SLAB_TOL_KB=512 (halves counted the same way) catches a leak of
# half a KiB or more per cycle over 1000 cycles (a 1 KiB session struct
# each), the per-cache counts everything smaller.
slab_cmp() {
	krdma_json slab-cmp "$TOL_OBJS" "$TOL_KB" "$@"
}

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
			"d['status'] != 0 and len(d.get('reason', '')) > 0"
	else
		kill -KILL $RUN
		wait $RUN
		result p1.peer_run_exit fail "hung_$((60 * X))s"
	fi
	RUN=
	# Every session and every test we drove ended with a reason, in events.
	krdma_json events "$T/mon.out" "$(cat "$T/w.id")" "$(cat "$T/r.id")" \
		"$(json_get "d['test_id']" <"$T/run.out" 2>/dev/null || echo 0)" >"$T/ev.json"
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

# ============================================================================
# Part 2: connect/disconnect cycles
# ============================================================================

# cycles COUNT BUDGET OUT: COUNT connect/delete cycles to node 1's cycle
# listener from one process, each waiting for its session's UP and DOWN
# events; stops early after BUDGET seconds or 5 failed cycles.  Progress
# every 100 cycles on stderr, a JSON summary in OUT.
cycles() {
	python3 - "$KRDMA_ROOT/tests/lib" "$PEER" $PC "$1" "$2" >"$3" <<'EOF'
import errno, json, sys, time
sys.path.insert(0, sys.argv[1])
import genl
peer, port, n, budget = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
g = genl.Genl(timeout=30)
ev = genl.Genl(timeout=30)
ev.join("events")
E = g.uapi.enums["krdma_event"]
UP, DOWN = E.lookup("SESSION_UP"), E.lookup("SESSION_DOWN")
queued = []

def state(sid):
    """The session's state by request (after an event overrun)."""
    try:
        d = g.do("SESSION_GET", [("SESSION_ID", sid)])
    except genl.NlError as e:
        if e.errno == errno.ENOENT:
            return DOWN, "gone"
        raise
    st = d[0].get("session_state") if d else None
    return (UP if st == 2 else DOWN if st in (3, 4) else None), d[0].get("reason", "")

def wait_event(sid, tmo):
    """(event, reason) of session sid: UP or DOWN; (None, ...) on timeout."""
    end = time.monotonic() + tmo
    while True:
        for e in queued:
            if e.get("session_id") == sid and e.get("event") in (UP, DOWN):
                queued.remove(e)
                return e["event"], e.get("reason", "")
        del queued[:]
        left = end - time.monotonic()
        if left <= 0:
            return None, "no event within %gs" % tmo
        try:
            data = ev._recv(min(left, 1.0))
        except genl.NlError:
            continue
        except OSError as e:
            if e.errno != errno.ENOBUFS:
                raise
            what, reason = state(sid)
            if what is not None:
                return what, reason
            continue
        for t, _, seq, payload in ev._messages(data):
            if t == ev.family_id and len(payload) >= 4:
                queued.append(ev.decode(payload[0], payload[4:]))

def pct(v, p):
    v = sorted(v)
    return round(v[min(len(v) - 1, int(len(v) * p))], 1) if v else None

conn, dele, fails = [], [], []
t_start = time.monotonic()
done = 0
for i in range(n):
    if time.monotonic() - t_start > budget:
        print("cycles: time budget of %ds used up after %d cycles" % (budget, done),
              file=sys.stderr)
        break
    if len(fails) >= 5:
        break
    t0 = time.monotonic()
    try:
        r = g.do("SESSION_NEW", [("PEER_ADDR.IPV4", peer), ("PEER_ADDR.PORT", port)])
    except genl.NlError as e:
        fails.append("cycle %d: SESSION_NEW: %s" % (i, e))
        continue
    sid = r[0]["session_id"]
    what, reason = wait_event(sid, 30)
    t1 = time.monotonic()
    if what != UP:
        fails.append("cycle %d: session %d not up: %s" % (i, sid, reason))
        if what is None:
            try:
                g.do("SESSION_DEL", [("SESSION_ID", sid)])
            except genl.NlError:
                pass
            wait_event(sid, 30)
        continue
    try:
        g.do("SESSION_DEL", [("SESSION_ID", sid)])
    except genl.NlError as e:
        fails.append("cycle %d: SESSION_DEL: %s" % (i, e))
        continue
    what, reason = wait_event(sid, 30)
    t2 = time.monotonic()
    if what != DOWN:
        fails.append("cycle %d: session %d not down: %s" % (i, sid, reason))
        continue
    conn.append((t1 - t0) * 1000)
    dele.append((t2 - t1) * 1000)
    done += 1
    if done % 100 == 0:
        el = time.monotonic() - t_start
        print("cycles: %d/%d in %.1f s (%.1f ms/cycle)" % (done, n, el, el * 1000 / done),
              file=sys.stderr, flush=True)
el = time.monotonic() - t_start
print(json.dumps({
    "requested": n, "done": done, "failed": len(fails), "failures": fails[:5],
    "elapsed_s": round(el, 1),
    "ms_per_cycle": round(el * 1000 / max(done, 1), 1),
    "connect_ms": {"p50": pct(conn, .5), "p95": pct(conn, .95), "max": pct(conn, 1)},
    "delete_ms": {"p50": pct(dele, .5), "p95": pct(dele, .95), "max": pct(dele, 1)},
}))
EOF
}

log "part 2: $CYCLES connect/disconnect cycles"
if [ "$N" = 1 ]; then
	expect_ok p2.listen krdmactl listener add name cyc port $PC
	barrier p2_listening $((120 * X))
else
	barrier p2_listening $((120 * X))
	# Warm-up: first-use allocations (neighbour and route entries, id
	# arrays) are not leaks.
	cycles $WARMUP $((120 * X)) "$T/warm.json" 2>&1
	json_check p2.warmup "cat $T/warm.json" "d['done'] == $WARMUP"
fi
barrier p2_warm $((300 * X))
wait_for -t $((60 * X)) no_sessions || result p2.warm_sessions_gone fail
rdma_snap "$T/p2.base"
rdma_show before "$T/p2.base"
slab_snap "$T/slab.idle"
slab_snap "$T/slab.base"
log "slab noise (idle): $(slab_cmp "$T/slab.idle" "$T/slab.base")"
# The comparison itself must be able to fail: the baseline with one
# kmalloc-64 object more per cycle, in both halves, is a leak. With fewer
# cycles than the tolerance (the debug kernel's 50, where kmemleak watches
# every object anyway) the smallest leak this check sees is more than one
# per cycle.
HALF=$((CYCLES / 2))
LEAK_PER_CYCLE=$((TOL_OBJS / CYCLES + 1))
log "the slab check sees a leak of $LEAK_PER_CYCLE object(s) per cycle"
krdma_json slab-add "$T/slab.base" kmalloc-64 $((HALF * LEAK_PER_CYCLE)) "$T/slab.leak.mid"
krdma_json slab-add "$T/slab.leak.mid" kmalloc-64 $(((CYCLES - HALF) * LEAK_PER_CYCLE)) \
	"$T/slab.leak"
slab_cmp "$T/slab.base" "$T/slab.leak" "$T/slab.leak.mid" >"$T/slab.leak.json"
json_check p2.slab_check_can_fail "cat $T/slab.leak.json" \
	"not d['objs_ok'] and d['worst_cache'] == 'kmalloc-64'"
barrier p2_base $((120 * X))
log "baseline after $(($(date +%s) - START)) s"

# run_cycles PART COUNT [RESERVE]: node 2 runs COUNT cycles within what is
# left of the time but RESERVE seconds (kept for the second half), node 1
# waits.
run_cycles() {
	if [ "$N" = 2 ]; then
		budget=$(($(left) - 150 - ${3:-0}))
		[ $budget -ge 30 ] || budget=30
		log "cycles ($1): $2, time budget ${budget} s"
		cycles "$2" $budget "$T/cycles.$1.json" 2>&1
		log "cycles ($1): $(cat "$T/cycles.$1.json")"
		json_check "p2.cycles.$1" "cat $T/cycles.$1.json" "d['done'] == $2 and d['failed'] == 0"
		MS=$(json_get "d['ms_per_cycle']" <"$T/cycles.$1.json")
		result "p2.cycle_time.$1" ok "ms_per_cycle=${MS:-?}" "cycles=$2"
		barrier "p2_cycled_$1" $((120 * X))
	else
		barrier "p2_cycled_$1" $(($(left) - 60))
	fi
}

# Teardown is asynchronous on both sides: wait (bounded) until it is over,
# then the RDMA resources must be exactly where they were.
rdma_ok() {
	rdma_snap "$T/p2.after" && rdma_cmp "$T/p2.base" "$T/p2.after" same
}
settled() {
	wait_for -t $((60 * X)) no_sessions && result "p2.sessions_gone.$1" ok ||
		{ krdmactl -j session show | head -c 2000; result "p2.sessions_gone.$1" fail; }
	wait_for -t $((60 * X)) rdma_ok && result "p2.rdma_baseline.$1" ok ||
		result "p2.rdma_baseline.$1" fail
}

# The halfway snapshot, with both nodes idle. Half of the remaining time
# is kept for the second half.
run_cycles first $HALF $(($(left) / 2))
settled half
slab_snap "$T/slab.mid"
log "slab halfway: $(slab_cmp "$T/slab.base" "$T/slab.mid")"
barrier p2_mid $((120 * X))
run_cycles second $((CYCLES - HALF))
settled after
rdma_show after "$T/p2.after"

# Slab: freed memory may come back late (ib_cm time-wait entries, RCU):
# retry the comparison for up to 90 s, a leak does not go away.
t0=$(date +%s)
end=$((t0 + 90 * X))
while :; do
	slab_snap "$T/slab.after"
	slab_cmp "$T/slab.base" "$T/slab.after" "$T/slab.mid" >"$T/slab.json"
	grep -q '"objs_ok": true' "$T/slab.json" && grep -q '"meminfo_ok": true' "$T/slab.json" && break
	[ "$(date +%s)" -lt $end ] || break
	log "slab not back yet: $(json_get "'worst %s %+d objs (%+d in both halves), SUnreclaim %+d kB, halves %s' % (d['worst_cache'], d['worst_delta_objs'], d['worst_growth_objs'], d['sunreclaim_delta_kb'], d['halves'])" <"$T/slab.json")"
	sleep 5
done
SETTLE=$(($(date +%s) - t0))
log "slab before -> after: $(cat "$T/slab.json")"
W=$(json_get "'%s=%+d,%+d_in_both_halves' % (d['worst_cache'], d['worst_delta_objs'], d['worst_growth_objs'])" <"$T/slab.json")
json_check p2.slab_kmalloc "cat $T/slab.json" "d['objs_ok']"
result p2.slab_worst ok "worst=$W" "tolerance=$TOL_OBJS" "settled_in=${SETTLE}s"
json_check p2.meminfo_slab "cat $T/slab.json" "d['meminfo_ok']"
barrier p2_measured $((300 * X))
log "measured after $(($(date +%s) - START)) s"

[ "$N" = 1 ] && expect_ok p2.unlisten krdmactl listener del name cyc
nothing_left && result end.nothing_left ok || result end.nothing_left fail
refcnt_zero && result end.refcnt ok || result end.refcnt fail
loaded && result end.module_loaded ok || result end.module_loaded fail
log "done after $(($(date +%s) - START)) s"
barrier end $((300 * X))
rm -rf "$T"
exit 0
