#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# More than two hosts: N guests (make check-mesh: 4) on one learning
# switch (KRDMA_WIRE=vde), which, like a real one without flow control,
# drops under load. Every pair of nodes gets a session (the lower node
# connects), and all of them at once run a bw WRITE test in both
# directions (bidir: the peer runs the same test back), then a check-mode
# WRITE, whose every iteration is compared where it lands. Node 1 gathers
# every node's results into one table of per-node totals.
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
PORT=7479
SIZE=64K
if [ -n "${KRDMA_SLOW:-}" ]; then
	COUNT=50 CHECKS=20
else
	COUNT=200 CHECKS=50
fi
me=$KRDMA_NODE
D="$KRDMA_OUT/mesh"
mkdir -p "$D"

[ "$KRDMA_NODES" -ge 3 ] || { result mesh.nodes fail "nodes=$KRDMA_NODES"; exit 0; }
expect_ok listener.add krdmactl listener add name mesh port $PORT
barrier listening 600

# higher: the nodes this one connects to (of a pair, the lower connects).
higher() { seq $((me + 1)) "$KRDMA_NODES"; }

# all_at_once FN: FN J for every higher node J at the same time; waits.
all_at_once() {
	_pids=""
	for j in $(higher); do
		"$1" "$j" &
		_pids="$_pids $!"
	done
	for p in $_pids; do
		wait "$p" || true
	done
}

connect_to() {
	krdmactl session connect addr "10.77.0.$1" port $PORT name "to$1" \
		timeout 60s >"/tmp/connect.$1" 2>&1
}
bw_to() {
	krdmactl -j test run session "to$1" op write mode bw size $SIZE \
		count $COUNT depth 16 bidir >"$D/bw.$me-$1.json" 2>"/tmp/bw.$1.err"
}
check_to() {
	krdmactl -j test run session "to$1" op write size $SIZE count $CHECKS \
		>"$D/check.$me-$1.json" 2>&1
}

all_at_once connect_to
for j in $(higher); do
	grep -q ' up$' "/tmp/connect.$j" && result "connect.$me-$j" ok ||
		{ cat "/tmp/connect.$j"; result "connect.$me-$j" fail; }
done
barrier connected 900
# Every node: a session to each of the others, up.
json_check sessions.all_up "krdmactl -j session show" \
	"len(d) == $KRDMA_NODES - 1 and all(s['state'] == 'up' for s in d)"

# All pairs at once, both ways.
all_at_once bw_to
barrier bw_done 1800
for j in $(higher); do
	json_check "bw.$me-$j" "cat $D/bw.$me-$j.json" \
		"r['status'] == 0 and r['iters'] == $COUNT and r['peer_iters'] == $COUNT and r['validated'] >= 1 and d['env']['peer_host'] == 'node$j'"
	cat "/tmp/bw.$j.err"
done

# Check mode, all pairs at once: every iteration compared.
all_at_once check_to
for j in $(higher); do
	json_check "check.$me-$j" "cat $D/check.$me-$j.json" \
		"r['status'] == 0 and r['iters'] == $CHECKS and r['validated'] == $CHECKS"
done
no_data_errors "node$me.no_errors"
barrier checked 1800

# Node 1: the per-node totals, from every node's results.
if [ "$me" = 1 ]; then
	python3 - "$D" "$KRDMA_NODES" >"$D/table.md" <<'PY'
import glob, json, os, sys
d, n = sys.argv[1], int(sys.argv[2])
tot = {i: {"sessions": 0, "sent": 0, "received": 0, "checked": 0, "ns": 0}
       for i in range(1, n + 1)}
for f in glob.glob(os.path.join(d, "bw.*.json")):
    a, b = map(int, os.path.basename(f)[3:-5].split("-"))
    r = json.load(open(f))["results"][0]
    for node, sent, recv in ((a, r["bytes"], r["peer_bytes"]),
                             (b, r["peer_bytes"], r["bytes"])):
        t = tot[node]
        t["sessions"] += 1
        t["sent"] += sent
        t["received"] += recv
        t["ns"] = max(t["ns"], r["elapsed_ns"])
for f in glob.glob(os.path.join(d, "check.*.json")):
    a, b = map(int, os.path.basename(f)[6:-5].split("-"))
    r = json.load(open(f))["results"][0]
    tot[a]["checked"] += r["validated"]
    tot[b]["checked"] += r["validated"]
print("| node | sessions | sent (MB) | received (MB) | both ways (MB/s) | check-mode iterations validated |")
print("| ---: | ---: | ---: | ---: | ---: | ---: |")
for i, t in sorted(tot.items()):
    rate = (t["sent"] + t["received"]) / 1e6 / (t["ns"] / 1e9) if t["ns"] else 0
    print("| %d | %d | %.1f | %.1f | %.2f | %d |" % (
        i, t["sessions"], t["sent"] / 1e6, t["received"] / 1e6, rate, t["checked"]))
PY
	cat "$D/table.md"
	python3 - "$D/table.md" "$KRDMA_NODES" <<'PY' && result mesh.table ok || result mesh.table fail
import sys
rows = [l for l in open(sys.argv[1]) if l.startswith("| ") and l[2].isdigit()]
n = int(sys.argv[2])
ok = len(rows) == n and all(int(r.split("|")[2]) == n - 1 for r in rows)
sys.exit(0 if ok else 1)
PY
fi
barrier done 600
# The sessions go; nothing is left.
for j in $(higher); do
	expect_ok "del.$me-$j" krdmactl session del name "to$j"
done
wait_for -t 120 no_sessions && result sessions.gone ok || result sessions.gone fail
barrier end 600
exit 0
