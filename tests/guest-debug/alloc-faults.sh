#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Every allocation failure path unwinds: the module's fault point
# (debugfs krdma/fail_alloc, kmod/fault.c; only on a kernel with
# CONFIG_FAULT_INJECTION_DEBUG_FS, so this test is in tests/guest-debug/
# and runs under make check-debug).
#
# 1. Node 2, synchronously: each request is repeated with its Nth fault
#    point failed (/proc/thread-self/fail-nth), N = 1, 2, ... until a run
#    injects nothing, so every point on the path fails once. A failure
#    must come back as an error with an extack message and leave nothing
#    behind; the session stays usable.
#    Sessions of several QPs and tests over them are swept too.
# 2. Everywhere (CM handlers, completions, work items): every 331st
#    allocation of the module fails, on one node per cycle, while node 2
#    connects (every other cycle with 3 QPs, whose data channels connect
#    from the CM handlers), runs tests and disconnects over and over.
#    Whatever breaks must end in an error, not a hang; afterwards the RDMA
#    resources are back to their baseline and a clean session moves
#    validated data. The harness's kmemleak scan after rmmod finds any
#    leak.
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
PORT=7477
F=/sys/kernel/debug/krdma/fail_alloc
T=$(mktemp -d /tmp/alloc-faults.XXXXXX)
CYCLES=${KRDMA_FAULT_CYCLES:-16}

if [ ! -d "$F" ]; then
	result fail_alloc.present fail "no $F: kernel without CONFIG_FAULT_INJECTION_DEBUG_FS"
	exit 1
fi
echo 1 >"$F/verbose"		# one line per injection, no stack dump
echo 0 >"$F/probability"
echo N >"$F/task-filter"

# rdma_res: "PD CQ QP MR" of rxe0 (rdma resource show).
rdma_res() {
	rdma -j resource show | json_get \
		"' '.join(str(sum(r.get(k, 0) for r in d)) for k in ('pd', 'cq', 'qp', 'mr'))"
}

BASE=$(rdma_res)
if [ "$KRDMA_NODE" = 1 ]; then
	expect_ok listener.add krdmactl listener add name l port $PORT
fi
barrier listening 300

# ---- 1. every synchronous fault point, one at a time ----
if [ "$KRDMA_NODE" = 2 ]; then
	expect_ok nth.connect timeout 120 krdmactl session connect addr "$KRDMA_PEER_IP" \
		port $PORT name s timeout 30s
	SID=$(krdmactl -j session show name s | json_get "d[0]['session_id']")
	python3 - "$KRDMA_ROOT/tests/lib" "$KRDMA_PEER_IP" "$PORT" "${SID:-0}" >"$T/nth.json" 2>"$T/nth.err" <<'EOF'
import json, sys, time
sys.path.insert(0, sys.argv[1])
import genl
peer, port, sid = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
g = genl.Genl()
NTH = "/proc/thread-self/fail-nth"

def nth(n, cmd, items):
    """Runs cmd with the nth fault point failed: (injected, reply, error)."""
    with open(NTH, "w") as f:
        f.write(str(n))
    reply, err = None, None
    try:
        reply = g.do(cmd, items)
    except genl.NlError as e:
        err = e
    with open(NTH) as f:
        left = int(f.read())
    with open(NTH, "w") as f:
        f.write("0")
    return left == 0, reply, err

def wait(pred, secs):
    end = time.time() + secs
    while time.time() < end:
        if pred():
            return True
        time.sleep(0.2)
    return False

def sessions():
    return [s["session_id"] for s in g.dump("SESSION_GET")]

def tests_running():
    return [t for t in g.dump("TEST_GET") if t.get("test_state") == 1]

out = {}
problems = []

def sweep(label, cmd, items, cleanup):
    points = 0
    for n in range(1, 200):
        injected, reply, err = nth(n, cmd, items(n))
        # ENOMEM is the whole story of an allocation failure; other
        # errors must say why.
        if err is not None and (not injected or err.errno != 12) and not err.msg:
            problems.append("%s n=%d: %s (injected=%s)" % (label, n, err.as_dict(), injected))
        if not cleanup(n, reply, err):
            problems.append("%s n=%d: left something behind" % (label, n))
        if not injected:
            out[label] = points
            return
        points += 1
    problems.append("%s: more than 200 fault points?" % label)

# Listener add: on failure no listener of that name exists.
def listener_cleanup(n, reply, err):
    name = "f%d" % n
    if reply:
        g.do("LISTENER_DEL", [("NAME", name)])
    return not [l for l in g.dump("LISTENER_GET") if l["name"] == name]
sweep("listener_add", "LISTENER_ADD",
      lambda n: [("NAME", "f%d" % n), ("LOCAL_ADDR.PORT", 20000 + n)], listener_cleanup)

# Session new: on failure no session remains; on success it comes up
# (its queues may still fail later: that is part 2) and is deleted.
before = set(sessions())
def session_cleanup(n, reply, err):
    new = set(sessions()) - before
    for s in new:
        try:
            g.do("SESSION_DEL", [("SESSION_ID", s)])
        except genl.NlError:
            pass
    return wait(lambda: not (set(sessions()) - before), 60)
sweep("session_new", "SESSION_NEW",
      lambda n: [("NAME", "n%d" % n), ("PEER_ADDR.IPV4", peer),
                 ("PEER_ADDR.PORT", port), ("TIMEOUT_MS", 20000)], session_cleanup)
sweep("session_new_qps", "SESSION_NEW",
      lambda n: [("NAME", "q%d" % n), ("PEER_ADDR.IPV4", peer),
                 ("PEER_ADDR.PORT", port), ("TIMEOUT_MS", 20000),
                 ("SESSION_QPS", 4)], session_cleanup)

# Test start on the up session: a 64 KiB write test (several chunks,
# FRWR regions on both sides), 4 deep; on failure nothing runs.
def test_cleanup(n, reply, err):
    return wait(lambda: not tests_running(), 60)
sweep("test_start", "TEST_START",
      lambda n: [("SESSION_ID", sid), ("TEST_OP", "write"), ("TEST_SIZE", 65536),
                 ("TEST_COUNT", 5), ("TEST_DEPTH", 4)], test_cleanup)
# A bw test over the four QPs of a session of its own.
g.do("SESSION_NEW", [("NAME", "q"), ("PEER_ADDR.IPV4", peer), ("PEER_ADDR.PORT", port),
                     ("TIMEOUT_MS", 20000), ("SESSION_QPS", 4)])
if wait(lambda: [s for s in g.dump("SESSION_GET")
                 if s["name"] == "q" and s.get("session_state") == 2], 120):
    qsid = [s["session_id"] for s in g.dump("SESSION_GET") if s["name"] == "q"][0]
    sweep("test_start_qps", "TEST_START",
          lambda n: [("SESSION_ID", qsid), ("TEST_OP", "write"), ("TEST_MODE", "bw"),
                     ("TEST_SIZE", 65536), ("TEST_COUNT", 20), ("TEST_DEPTH", 4),
                     ("TEST_QPS", 4)], test_cleanup)
    g.do("SESSION_DEL", [("SESSION_ID", qsid)])
    if not wait(lambda: not [s for s in g.dump("SESSION_GET") if s["name"] == "q"], 60):
        problems.append("the session of 4 QPs did not go")
else:
    problems.append("no session of 4 QPs came up")
for label, cmd, items in (("session_get", "SESSION_GET", [("SESSION_ID", sid)]),
                          ("stats_get", "STATS_GET", []),
                          ("dev_get", "DEV_GET", [("DEV_NAME", "rxe0")])):
    sweep(label, cmd, lambda n: items, lambda n, r, e: True)
out["problems"] = problems
print(json.dumps(out))
EOF
	cat "$T/nth.json" "$T/nth.err"
	json_check nth.every_point_unwinds "cat $T/nth.json" "d['problems'] == []"
	# (The counts include the slab's own fault points on the way, so they
	# vary from run to run: only a floor is checked.)
	json_check nth.points_found "cat $T/nth.json" \
		"d['listener_add'] >= 2 and d['session_new'] >= 2 and d['session_new_qps'] >= 2 and d['test_start'] >= 5 and d['test_start_qps'] >= 5 and d['session_get'] >= 1"
	json_check nth.session_still_up "krdmactl -j session show name s" "d[0]['state'] == 'up'"
	run_test nth.after s write 65536 10 4
	expect_ok nth.del krdmactl session del name s
	wait_for -t 60 no_sessions || result nth.gone fail
fi
barrier nth_done 1200

# ---- 2. failures everywhere, one side per cycle ----
# A session allocates a few hundred times on each side (a buffer per
# receive and per control message), so even 1 % fails nearly every
# connect. Instead every INTERVALth allocation fails: the point moves
# along from cycle to cycle, some cycles get through to the tests and
# their responder, the others fail somewhere on the way.
INTERVAL=${KRDMA_FAULT_INTERVAL:-331}
wait_for -t 60 no_sessions || result random.start_clean fail
echo 10000 >"$F/times"
echo "$INTERVAL" >"$F/interval"
i=0 up=0 tested=0
# faulted_test NAME CMD...: a test under failing allocations may fail (1:
# a runtime error, said), never hang (124), never see wrong data (3) nor
# a bad command line (2). Returns 0 if it passed.
faulted_test() {
	_ft_name=$1
	shift
	timeout 180 "$@" >"$T/$_ft_name.out" 2>&1
	_ft_rc=$?
	case $_ft_rc in
	0 | 1) ;;
	*)
		cat "$T/$_ft_name.out"
		result "random.$_ft_name" fail "rc=$_ft_rc"
		;;
	esac
	return $_ft_rc
}
while [ $i -lt "$CYCLES" ]; do
	i=$((i + 1))
	if [ $((i % 2 + 1)) = "$KRDMA_NODE" ]; then
		echo 100 >"$F/probability"
	fi
	barrier "cycle$i" 600
	if [ "$KRDMA_NODE" = 2 ]; then
		qps=$((i % 2 * 2 + 1))
		if timeout 90 krdmactl session connect addr "$KRDMA_PEER_IP" port $PORT \
			name r$i qps $qps timeout 30s >/dev/null 2>&1; then
			up=$((up + 1))
			ok=0
			faulted_test "write$i" krdmactl test run session r$i op write size 64K count 10 depth 4 ||
				ok=1
			faulted_test "read$i" krdmactl test run session r$i op read size 4K count 10 depth 4 ||
				ok=1
			faulted_test "bw$i" krdmactl test run session r$i op write mode bw size 64K count 30 \
				depth 4 qps $qps || ok=1
			[ $ok -ne 0 ] || tested=$((tested + 1))
		fi
		timeout 60 krdmactl session del name r$i >/dev/null 2>&1
		[ $? -ne 124 ] || result "random.del$i" fail "timeout"
		log "cycle $i: $up up so far"
	fi
	barrier "cycle_end$i" 900
	echo 0 >"$F/probability"
done
# Some cycles must get through to their tests (each test's exit was
# checked above), or the faults never met a running test at all.
if [ "$KRDMA_NODE" = 2 ]; then
	[ "$up" -ge 1 ] &&
		result random.cycles ok "cycles=$CYCLES" "up=$up" "all_passed=$tested" ||
		result random.cycles fail "cycles=$CYCLES" "up=$up" "want=up>=1"
fi
barrier random_done 600
INJECTED=$((10000 - $(cat "$F/times")))
[ "$INJECTED" -gt 0 ] && result random.injected ok "failures=$INJECTED" ||
	result random.injected fail "failures=$INJECTED"
# Whatever the faults left must go away by itself.
for s in $(krdmactl -j session show | json_get "' '.join(str(s['session_id']) for s in d)"); do
	krdmactl session del "$s" >/dev/null 2>&1
done
wait_for -t 120 no_sessions && result random.sessions_gone ok ||
	{ krdmactl -j session show; result random.sessions_gone fail; }
wait_for -t 120 sh -c "[ \"\$(krdmactl -j test show)\" = '[]' ] || ! krdmactl -j test show | grep -q running" ||
	result random.tests_ended fail
barrier clean 300

# ---- afterwards: the baseline, and a clean session works ----
if [ "$KRDMA_NODE" = 2 ]; then
	expect_ok after.connect timeout 90 krdmactl session connect addr "$KRDMA_PEER_IP" \
		port $PORT name a
	run_test after.write a write 65536 10 4
	run_test after.read a read 4096 10 4
	expect_ok after.del krdmactl session del name a
	wait_for -t 60 no_sessions || result after.gone fail
fi
barrier after_done 600
if [ "$KRDMA_NODE" = 1 ]; then
	expect_ok listener.del krdmactl listener del name l
fi
wait_for -t 60 sh -c "[ \"\$(rdma -j resource show | python3 -c \"import json,sys; d=json.load(sys.stdin); print(' '.join(str(sum(r.get(k, 0) for r in d)) for k in ('pd', 'cq', 'qp', 'mr')))\")\" = '$BASE' ]" &&
	result resources.baseline ok "pd_cq_qp_mr=$BASE" ||
	result resources.baseline fail "before=$BASE" "after=$(rdma_res)"
rm -rf "$T"
