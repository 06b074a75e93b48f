#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Netlink fuzzing (tests/lib/nlfuzz.py): thousands of random and
# malformed requests to the krdma family, as root (with an up loopback
# session to aim TEST_START at) and as nobody (every admin op must give
# EPERM).  Every request must get exactly one answer, every refusal an
# extended ACK (but the few the kernel core gives without one), nothing
# invalid may be accepted and nothing created may stay.  Afterwards the
# family still answers, no listener, session or test is left, the
# module's refcount is back, kmemleak (debug kernels) finds nothing,
# and a new listener, loopback session and test work.  Both nodes do the
# same on their own, with different seeds.
#
# KRDMA_FUZZ_SEED (default 1; node 2 adds 100), KRDMA_FUZZ_COUNT (root
# cases, default 3000), KRDMA_FUZZ_NOBODY_COUNT (default 1500).  Each
# run also stops after a time budget (50 s root, 20 s nobody) so that a
# loaded host does not stretch the test; the log shows how many cases
# ran.  KRDMA_SLOW (the debug kernel, ~25x slower): fewer cases, three
# times the budgets, longer waits.  A case is reproduced with
# "tests/lib/nlfuzz.py --seed SEED --only CASE" (plus the --ip and
# --session options shown in the log, with the same objects in place).
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
LIB=$KRDMA_ROOT/tests/lib
T=$(mktemp -d /tmp/nl-fuzz.XXXXXX)
chmod 755 "$T"
SEED=$((${KRDMA_FUZZ_SEED:-1} + (KRDMA_NODE - 1) * 100))
COUNT=${KRDMA_FUZZ_COUNT:-3000}
NCOUNT=${KRDMA_FUZZ_NOBODY_COUNT:-1500}
RBUDGET=50 NBUDGET=20 WAITS="--timeout 5 --hang 60"
# Random cases each run must reach after the sweep of every op and
# mutation (nlfuzz.py --min-random): the debug kernel's smaller counts
# leave the unprivileged run its sweep only.
MINR=100 NMINR=50
if [ -n "${KRDMA_SLOW:-}" ]; then
	COUNT=${KRDMA_FUZZ_COUNT:-1000}
	NCOUNT=${KRDMA_FUZZ_NOBODY_COUNT:-500}
	RBUDGET=150 NBUDGET=60 WAITS="--timeout 30 --hang 240"
	MINR=20 NMINR=0
fi
PORT=7850
KL=/sys/kernel/debug/kmemleak
REFCNT=/sys/module/krdma/refcnt

# empty KIND: "krdmactl -j KIND show" prints [].
empty() {
	[ "$(krdmactl -j "$1" show 2>&1)" = "[]" ]
}

# fuzz NAME ARGS...: runs nlfuzz.py (its JSON summary in $T/NAME.json),
# records NAME with the counts; prints the violations if any.
fuzz() {
	_fz_name=$1
	shift
	log "$_fz_name: nlfuzz.py $*"
	"$@" >"$T/$_fz_name.json" 2>"$T/$_fz_name.err"
	_fz_rc=$?
	cat "$T/$_fz_name.err"
	# One line per key, the violations one per line; the last line is
	# the key=value words of the result.
	python3 - "$T/$_fz_name.json" >"$T/$_fz_name.txt" <<'EOF' || cat "$T/$_fz_name.json"
import json, sys
d = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
for k in ("seed", "count", "sweep", "random", "sent", "mode", "elapsed_s", "classes", "errnos",
          "exceptions", "created", "slowest", "violations", "violation_kinds"):
    print("  %s: %s" % (k, json.dumps(d.get(k), sort_keys=True)))
for c in d.get("created_cases", []):
    print("  created: %s" % json.dumps(c, sort_keys=True))
for v in d.get("violation_list", []):
    print("  VIOLATION: %s" % json.dumps(v, sort_keys=True))
print("count=%s random=%s violations=%s errors=%s created=%s elapsed=%ss" % (
    d["count"], d.get("random"), d["violations"], d["classes"].get("error", 0),
    sum(d["created"].values()), d["elapsed_s"]))
EOF
	sed '$d' "$T/$_fz_name.txt"
	_fz_kv=$(tail -n 1 "$T/$_fz_name.txt")
	if [ $_fz_rc -eq 0 ]; then
		# shellcheck disable=SC2086
		result "$_fz_name" ok $_fz_kv
	else
		# shellcheck disable=SC2086
		result "$_fz_name" fail "rc=$_fz_rc" $_fz_kv
	fi
}

log "baseline"
for k in listener session test; do
	if empty $k; then result "fuzz.baseline_no_$k" ok; else result "fuzz.baseline_no_$k" fail; fi
done
REF0=$(cat $REFCNT)
log "module refcount $REF0"
# The harness clears kmemleak before loading the module and checks again
# after unloading it; here it is asked with the module still loaded,
# right after the fuzzing.
[ -w $KL ] || log "kmemleak: not available (no $KL), not checked"

# An up loopback session for TEST_START, SESSION_GET etc. to aim at.
krdmactl -j listener add name fz addr "$KRDMA_IP" port $PORT >"$T/l.json" 2>&1 ||
	cat "$T/l.json"
SID=$(timeout 90 krdmactl -j session connect addr "$KRDMA_IP" port $PORT name fzs \
	timeout 20s 2>"$T/s.err" | json_get "d['session_id']")
if [ -n "$SID" ]; then
	result fuzz.session ok "id=$SID"
	SESS="--session $SID"
else
	cat "$T/s.err"
	result fuzz.session fail
	SESS=
fi

log "fuzzing"
T0=$(date +%s)
# shellcheck disable=SC2086
fuzz fuzz.root timeout 600 python3 "$LIB/nlfuzz.py" --seed "$SEED" --count "$COUNT" \
	--budget $RBUDGET --min-random $MINR $WAITS --ip "$KRDMA_IP" --port-base 7300 $SESS -v
# shellcheck disable=SC2086
fuzz fuzz.nobody timeout 600 $NOBODY python3 "$LIB/nlfuzz.py" --seed $((SEED + 1)) \
	--count "$NCOUNT" --budget $NBUDGET --min-random $NMINR $WAITS --ip "$KRDMA_IP" \
	--port-base 7300 --unprivileged -v
log "fuzzing took $(($(date +%s) - T0)) s"

log "after"
expect_ok fuzz.family_answers krdmactl version
if [ -n "$SID" ]; then
	json_check fuzz.session_still_up "krdmactl -j session show name fzs" "d[0]['state'] == 'up'"
	expect_ok fuzz.session_del krdmactl session del name fzs
fi
# The server side goes when the client has gone.
if wait_for -t 60 empty session; then
	result fuzz.no_session ok
else
	krdmactl session show
	result fuzz.no_session fail
fi
expect_ok fuzz.listener_del krdmactl listener del name fz
for k in listener test; do
	if empty $k; then
		result "fuzz.no_$k" ok
	else
		krdmactl $k show
		result "fuzz.no_$k" fail
	fi
done
if wait_for -t 30 sh -c "[ \"\$(cat $REFCNT)\" = $REF0 ]"; then
	result fuzz.refcnt ok "refcnt=$REF0"
else
	result fuzz.refcnt fail "refcnt=$(cat $REFCNT)" "before=$REF0"
fi

# Still works: a new listener, a loopback session and a test.
expect_ok fuzz.after.listener krdmactl listener add name fz2 addr "$KRDMA_IP" port $((PORT + 1))
json_check fuzz.after.connect \
	"timeout 90 krdmactl -j session connect addr $KRDMA_IP port $((PORT + 1)) name fz2s timeout 20s" \
	"d['state'] == 'up'"
run_test fuzz.after fz2s write 4096 100 4
expect_ok fuzz.after.session_del krdmactl session del name fz2s
if wait_for -t 60 empty session; then
	result fuzz.after.no_session ok
else
	result fuzz.after.no_session fail
fi
expect_ok fuzz.after.listener_del krdmactl listener del name fz2

if [ -w $KL ]; then
	# Objects must be 5 s old and unreferenced in two scans to be reported.
	sleep 6
	echo scan >$KL
	echo scan >$KL
	if grep -q "unreferenced object" $KL; then
		head -n 60 $KL
		result fuzz.kmemleak fail
	else
		result fuzz.kmemleak ok
	fi
fi
rm -rf "$T"
exit 0
