#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# test_host.sh - tests/bench/bench-host.sh's two sides on this one host,
# over 127.0.0.1, with stand-ins for krdmactl, perftest, iperf3 and ss
# that answer as the real ones do (no module, no RDMA device, no guest):
# the sides meet at every point (tests/bench/sync.py), the server takes
# the client's parameters, every step makes its record, report.py its
# table, a measurement that fails fails the client, run-hosts.sh sends
# the right commands over ssh, and (as root, with unshare -m) the
# harness's bench-guest.sh runs the same measurements. Part of make
# check-unit; about two minutes on a loaded host (KEEP=1 keeps its
# directory).
set -u
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd -P) || exit 2
# Not in /tmp: the harness's nodes below each mount a /tmp of their own.
tmp=$(mktemp -d /var/tmp/krdma-bench-test.XXXXXX) || exit 1
bg=''	# what runs in the background, ended with the test
# shellcheck disable=SC2317,SC2086 # trap; a list of PIDs
end() {
	[ -z "$bg" ] || kill $bg 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$tmp"
}
trap end EXIT
trap 'exit 130' INT TERM
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
check() { _n=$1; shift; if "$@"; then ok "$_n"; else bad "$_n"; fi; }

# ---- the stand-ins ---------------------------------------------------------
bin=$tmp/bin
mkdir -p "$bin"
cat >"$bin/krdmactl" <<'EOF'
#!/bin/sh
# krdmactl as the bench uses it; STUB_FAIL=OP.SIZE fails that bw test;
# STUB_KRDMACTL_LOG=FILE gets every command line.
echo "$*" >>"${STUB_KRDMACTL_LOG:-/dev/null}"
[ "$1" = -j ] && shift
case "$1 $2" in
"listener add" | "listener del" | "session del") exit 0 ;;
"session connect") echo "session 1 name bench up"; exit 0 ;;
"session show") echo '[{"name": "bench", "state": "up"}]'; exit 0 ;;
"stats show") echo '{"validation_errors": 0}'; exit 0 ;;
"test run") ;;
*) echo "stub krdmactl: $*" >&2; exit 2 ;;
esac
# A real test lasts; the bench's window is read from /proc/uptime, whose
# 10 ms steps make a stand-in that answers at once a window of 0 s.
sleep 0.1
op='' mode='' size=''
while [ $# -gt 0 ]; do
	case $1 in
	op) op=$2 ;; mode) mode=$2 ;; size) size=$2 ;;
	esac
	shift
done
status=0
[ "${STUB_FAIL:-}" != "$op.$size" ] || status=-5
echo "{\"schema_version\": 3, \"results\": [{\"op\": \"$op\", \"mode\": \"$mode\", \"size\": $size,"
echo " \"status\": $status, \"iters\": 1000, \"validated\": 1, \"bytes\": $((size * 1000)),"
echo " \"elapsed_ns\": 1000000000, \"cpu_ns\": 1000, \"peer_cpu_ns\": 1000,"
echo " \"host_cpu\": {\"capacity_ns\": 2000000000, \"busy_pct\": 12.5},"
echo " \"peer_host_cpu\": {\"capacity_ns\": 2000000000, \"busy_pct\": 20.0},"
echo " \"lat\": {\"samples\": 1000, \"p50_ns\": 7000, \"p99_ns\": 9000,"
echo "         \"histogram\": [{\"lo_ns\": 6000, \"hi_ns\": 8000, \"count\": 1000}]}}],"
echo " \"env\": {\"host\": \"stub\", \"peer_host\": \"stub-peer\"}}"
[ "$status" = 0 ] || { echo "krdmactl: test 1 failed: stub" >&2; exit 1; }
EOF
cat >"$bin/perftest" <<'EOF'
#!/bin/sh
# ib_OP_bw / ib_OP_lat: a server (no address last) logs its arguments and
# leaves; a client prints perftest's table.
prog=${0##*/}
for last; do :; done
case $last in
127.0.0.1) ;;
*) echo "server args: $*"; sleep 0.3; exit 0 ;;
esac
case $prog in
*_bw)
	echo " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]"
	size=4096
	while [ $# -gt 0 ]; do
		[ "$1" != -s ] || size=$2
		shift
	done
	echo " $size       1000           0.00               953.67               0.244140"
	;;
*_lat)
	echo " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] "
	echo " 64      1000          10.00          20.00        14.00              14.50          1.00            18.00                  19.00"
	;;
esac
EOF
for p in write_bw read_bw send_bw send_lat write_lat read_lat atomic_lat; do
	ln -s perftest "$bin/ib_$p"
done
cat >"$bin/iperf3" <<'EOF'
#!/bin/sh
case $1 in
-s) sleep 0.3 ;;
--version) echo "iperf 3.stub" ;;
-c) echo '{"end": {"sum_received": {"bits_per_second": 8e9, "seconds": 1},
       "sum_sent": {"retransmits": 0}}}' ;;
esac
EOF
# Whatever port is asked about listens.
printf '#!/bin/sh\necho "LISTEN 0 0 *:1 *:*"\n' >"$bin/ss"
chmod +x "$bin"/*

# ---- sync.py alone ---------------------------------------------------------
port=$((20000 + $$ % 20000))
python3 "$here/sync.py" serve "$port" >"$tmp/sync.log" 2>&1 &
spid=$!
i=0
until grep -q listening "$tmp/sync.log" 2>/dev/null || [ $i -ge 50 ]; do
	sleep 0.1; i=$((i + 1))
done
python3 "$here/sync.py" meet 127.0.0.1 "$port" server p.1 10 >"$tmp/s.out" &
w=$!
python3 "$here/sync.py" meet 127.0.0.1 "$port" client p.1 10 "42 and more" >"$tmp/c.out"
wait "$w"
check "sync: the server side gets the client's value" [ "$(cat "$tmp/s.out")" = "42 and more" ]
check "sync: the client side gets the server's (none)" [ "$(cat "$tmp/c.out")" = "" ]
python3 "$here/sync.py" meet 127.0.0.1 "$port" client p.2 1 >/dev/null 2>"$tmp/c.err"
check "sync: alone at a point, a timeout, said" \
	grep -q "p.2: not met within 1 s" "$tmp/c.err"
# A name met once may be met again.
python3 "$here/sync.py" meet 127.0.0.1 "$port" server p.1 10 >/dev/null &
w=$!
python3 "$here/sync.py" meet 127.0.0.1 "$port" client p.1 10 >/dev/null
check "sync: a name is met again" [ $? = 0 ]
wait "$w"
# Several names in one process: the last one's value.
python3 "$here/sync.py" meet 127.0.0.1 "$port" server m.1 10 -- m.2 10 srv2 >"$tmp/s.out" &
w=$!
python3 "$here/sync.py" meet 127.0.0.1 "$port" client m.1 10 -- m.2 10 >"$tmp/c.out"
wait "$w"
check "sync: several names in one meet, the last one's value" [ "$(cat "$tmp/c.out")" = srv2 ]
# Nothing polls while a side waits: neither the waiting meet nor any
# thread of the server is woken (no context switch) in 2 s.
python3 "$here/sync.py" meet 127.0.0.1 "$port" server lonely 30 >/dev/null 2>&1 &
w=$!
# Counted once it has connected (a python3 start takes seconds on a
# loaded host), and a second after, for it to block in its read.
i=0
until ss -Htnp state established "dport = :$port" 2>/dev/null | grep -q "pid=$w," ||
	[ $i -ge 300 ]; do
	sleep 0.1; i=$((i + 1))
done
sleep 1
switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^voluntary_ctxt_switches/ { n += $2 } END { print n + 0 }'; }
sw0="$(switches "$spid") $(switches "$w")"
sleep 2
sw1="$(switches "$spid") $(switches "$w")"
check "sync: a waiting side and the server sleep through a wait (switches $sw0 -> $sw1)" \
	[ "$sw0" = "$sw1" ]
kill "$w" 2>/dev/null
wait "$w" 2>/dev/null
# The waiting side of a point: ready.N, done.N, then its CPU figures
# handed over at stat.N, which the other side prints.
python3 "$here/sync.py" wait 127.0.0.1 "$port" server 7 30 "$spid" >"$tmp/s.out" &
w=$!
python3 "$here/sync.py" meet 127.0.0.1 "$port" client ready.7 10 >/dev/null
sleep 1
python3 "$here/sync.py" meet 127.0.0.1 "$port" client done.7 10 -- stat.7 10 >"$tmp/c.out"
wait "$w"
check "sync: wait hands its CPU figures over" cmp -s "$tmp/s.out" "$tmp/c.out"
check "sync: the figures: /proc/stat's busy kinds, the wall time, the bench's own" \
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
busy = sum(d[k + "_s"] for k in ("user", "nice", "system", "irq", "softirq", "steal"))
sys.exit(not (abs(busy - d["busy_s"]) < 0.01 and 0.9 < d["secs"] < 30
              and d["bench_s"] >= 0 and d["busy_cpus"] is not None))' "$tmp/c.out"
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null

# ---- the two sides ---------------------------------------------------------
# run NAME CLIENT-OPTIONS...: both sides on 127.0.0.1, outputs in
# $tmp/NAME.{srv,cli}; their exit statuses in $src and $crc.
run() {
	_name=$1
	shift
	port=$((port + 1))
	echo workqueue >"$tmp/cq_poll"
	PATH=$bin:$PATH KRDMA_BENCH_CQ_POLL=$tmp/cq_poll \
		timeout 300 "$here/bench-host.sh" server -I stub0 -c "$port" -o "$tmp/$_name.srv" \
		>"$tmp/$_name.srv.out" 2>&1 &
	_s=$!
	PATH=$bin:$PATH KRDMA_BENCH_CQ_POLL=$tmp/cq_poll \
		timeout 300 "$here/bench-host.sh" client -I stub0 -c "$port" -o "$tmp/$_name.cli" \
		"$@" 127.0.0.1 >"$tmp/$_name.cli.out" 2>&1 &
	_c=$!
	bg="$_s $_c"
	wait "$_c"
	crc=$?
	wait "$_s"
	src=$?
	bg=''
}

run all -s 1 -d 8 -q 2 -P "-u 18"
check "both sides end 0" [ "$src$crc" = 00 ]
nsteps=$(grep -Ec '^RESULT client name=bench\.(pt|kr|tcp|cq|idle)' "$tmp/all.cli/client.results")
# idle, 8 message-rate, 18 bandwidth, 9 latency (krdma's write_imm too),
# tcp, 3 several-QP, 4 cq
check "every step has a result (44: $nsteps)" [ "$nsteps" = 44 ]
check "no result failed" sh -c "! grep -q ' ok=0' '$tmp/all.cli/client.results' '$tmp/all.srv/server.results'"
# the same but 5 measurements a cq step, and info
nrecs=$(wc -l <"$tmp/all.cli/bench-raw.jsonl")
check "a record per measurement (61: $nrecs)" [ "$nrecs" = 61 ]
check "the server ran perftest for the client's seconds (-s 1: -D 3)" \
	grep -q -- "-D 3 -f 1" "$tmp/all.srv/logs/srv.pt.bw.write.4096.log"
check "the server took the client's perftest options" \
	grep -q -- "-u 18" "$tmp/all.srv/logs/srv.pt.bw.write.4096.log"
# krdma's round trip (stub: 1 ms) makes the count: 1 s / 1 ms
check "the latency count reached the server" \
	grep -q -- "-n 1000 " "$tmp/all.srv/logs/srv.pt.lat.send.64.log"
check "perftest's MiB/s read as MB/s (953.67 MiB/s = 999.995 MB/s)" \
	grep -q '"id": "write.4096".*"mb_s": 999.995,' "$tmp/all.cli/bench-raw.jsonl"
check "the table is made" grep -q "write 4 KiB BW" "$tmp/all.cli/table.md"
check "vCPU by vCPU: both sides of every several-QP point, and TCP's" \
	python3 -c 'import json, os, sys
n = 0
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["id"].startswith("qps.") or r["id"] == "tcp":
        for side in ("client", "server"):
            pc = r["cpu"][side]["percpu"]
            assert pc["cpus"] == os.cpu_count() and len(pc["busy"]) == pc["cpus"], (r["id"], side)
            assert len(pc["net_rx"]) == pc["cpus"] and all(x >= 0 for x in pc["net_rx"]), r["id"]
        n += 1
sys.exit(n != 4)' "$tmp/all.cli/bench-raw.jsonl"
check "vCPU by vCPU: in the table" grep -q "^| krdma write 1 MiB, 2 QPs | [0-9.]* / " "$tmp/all.cli/table.md"
# perftest's 953.67 MiB/s over 64 B; the stub krdma's 64000 B in 1 s
check "the message rate: 64 B send in k msg/s, both tools, apart from the latency point" \
	grep -q '^| send 64 B msg rate (k msg/s) | 15624.9 | 1.0 |' "$tmp/all.cli/table.md"
check "cq_poll back to workqueue" [ "$(cat "$tmp/cq_poll")" = workqueue ]
# Both sides' CPU in every point of the server's, bytes per CPU-second in
# every bandwidth point, the waiting side's figures and its mark.
check "the idle control: both sides' CPU, the waiting side's busy CPUs and mark" \
	python3 -c 'import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if "\"idle\"" in l][0]
sys.exit(not (r["ok"] and r["tool"] == "sleep" and r["cpu"]["client"] and r["cpu"]["server"]
              and r["idle_cpus"] == r["cpu"]["server"]["busy_cpus"]
              and r["idle_bound"] == 0.05 and r["idle_busy"] == (r["idle_cpus"] > 0.05)))' \
	"$tmp/all.cli/bench-raw.jsonl"
check "every bandwidth and message-rate point of both tools: both sides' CPU-seconds, MB per CPU-second" \
	python3 -c 'import json, sys
n = 0
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("kind") == "bw" and r.get("tool") in ("perftest", "krdma") and "." in r["id"] \
            and not r["id"].startswith("cq."):
        c = r["cpu"]
        both = c["client"]["busy_s"] + c["server"]["busy_s"]
        assert abs(r["cpu_s"] - both) < 0.002, r["id"]
        assert r["bytes_moved"] > 0 and r["cpu_s"] > 0, r["id"]
        assert abs(r["mb_per_cpu_s"] - r["bytes_moved"] / 1e6 / r["cpu_s"]) < 0.01, r["id"]
        assert r["bench_cpus"] is not None and "idle_busy" in r, r["id"]
        n += 1
sys.exit(n != 26)' "$tmp/all.cli/bench-raw.jsonl"
check "krdma's own host_cpu beside the bench's /proc/stat, both sides of every krdma point" \
	python3 -c 'import json, sys
n = 0
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("tool") == "krdma" and r.get("cpu", {}).get("server"):
        # The stub client ends within a tick of /proc/uptime: its side
        # may have no window to compare; the server waits the point out.
        cc = r["cpu_check"]
        assert cc["server"]["krdma_pct"] == 20.0, r["id"]
        assert cc.get("client", {"krdma_pct": 12.5})["krdma_pct"] == 12.5, r["id"]
        for side, c in cc.items():
            assert abs(c["diff_pts"] - (c["bench_pct"] - c["krdma_pct"])) < 0.11, (r["id"], side)
            # The stub says 2 CPU-s of capacity: 1 s on each of 2 CPUs.
            assert abs(c["krdma_busy_s"] - c["krdma_pct"] / 100 * 2) < 0.001, (r["id"], side)
            assert abs(c["outside_busy_s"] - (c["bench_busy_s"] - c["krdma_busy_s"])) < 0.002, (r["id"], side)
        n += 1
sys.exit(n < 21)' "$tmp/all.cli/bench-raw.jsonl"
check "the table: krdma's own CPU figures against the bench's" \
	sh -c "grep -q '^| write.65536 | 12.5 | [0-9.]* | [-0-9.n/a]* | 20.0 | [0-9.]* | [-0-9.n/a]* |\$' '$tmp/all.cli/table.md' &&
		grep -q '^Largest difference: [0-9.]* points' '$tmp/all.cli/table.md' &&
		grep -q '^As busy CPU-seconds, krdma.s figure is within the bench.s .* at [0-9]* of [0-9]* sides' '$tmp/all.cli/table.md'"
check "the table: CPU per byte of both tools, the control, the waiting side" \
	sh -c "grep -q '^| write 64 KiB MB per CPU-s | [0-9.]* | [0-9.]* ([0-9.]* + [0-9.]*) | [0-9.]* | ' '$tmp/all.cli/table.md' &&
		grep -q '^Idle-only control (a sleep, nothing running): the waiting side.s CPUs busy [0-9.]* of one CPU (bound 0.050)' '$tmp/all.cli/table.md' &&
		grep -q '^| read 1 MiB BW (MB/s) | [0-9.]* ([0-9.]*)\( \*\*busy\*\*\)\{0,1\} | [0-9.]* (' '$tmp/all.cli/table.md'"
check "bench.json: the CPU rows' ratio, krdma's MB per CPU-s over perftest's" \
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
rows = [r for r in d["rows"] if r["kind"] == "cpu"]
assert len(rows) == 9 and d["control"]["idle_cpus"] is not None
for r in rows:
    assert r["ratio"] == round(r["krdma"] / r["perftest"], 3), r["metric"]
    assert r["target"] == (2.0 if r["size"] >= 65536 else 1.0), r["metric"]' "$tmp/all.cli/bench.json"
# The mark: the bench's own share on the waiting side above the bound
# (the control: that side's CPUs at all).
mark() {
	: >"$tmp/mark.raw"
	python3 "$here/parse.py" "$1" - raw="$tmp/mark.raw" kind="$2" \
		cpu0="cpu 0 0 0 100 0 0 0 0" cpu1="cpu 100 0 0 100 0 0 0 0" up0=0 up1=1 \
		peer="{\"busy_s\": 0.5, \"busy_cpus\": $3, \"bench_cpus\": $4}" >/dev/null
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["idle_busy"])' "$tmp/mark.raw"
}
check "mark: the bench took 6% of a CPU on the waiting side" [ "$(mark krdma bw 0.3 0.06)" = True ]
check "mark: 4%, not" [ "$(mark krdma bw 0.3 0.04)" = False ]
check "mark: the control's waiting side busy 6%" [ "$(mark idle idle 0.06 0.001)" = True ]
check "mark: the control's 2%, not" [ "$(mark idle idle 0.02 0.001)" = False ]

# One krdma measurement fails: the client says which, and exits 1.
STUB_FAIL=read.65536 run one -s 1 -O '^kr\.bw\.read'
check "a failed measurement fails the client" [ "$crc" = 1 ]
check "the server still ends 0" [ "$src" = 0 ]
check "the failed step is named" grep -q "name=bench.kr.bw.read.65536 ok=0" "$tmp/one.cli/client.results"
check "only the steps asked for ran (-O)" [ "$(grep -c '^RESULT client name=bench\.kr' "$tmp/one.cli/client.results")" = 3 ]

# -u: krdma's ACK timeout, the client's sessions' and (taken from the
# client) the server's listener's; recorded, and said in the table.
STUB_KRDMACTL_LOG=$tmp/ack.krdmactl run ack -s 1 -u 14 -O '^(pt|kr)\.bw\.write\.65536$|^cq\.direct$'
check "-u: both sides end 0" [ "$src$crc" = 00 ]
check "-u: the listener takes it" grep -q "^listener add name bench port [0-9]* ack_timeout 14\$" "$tmp/ack.krdmactl"
check "-u: the bench session takes it" grep -q "^session connect addr 127.0.0.1 .*name bench .* ack_timeout 14\$" "$tmp/ack.krdmactl"
check "-u: the cq session takes it" grep -q "^session connect addr 127.0.0.1 .*name cqdirect .* ack_timeout 14\$" "$tmp/ack.krdmactl"
check "-u: recorded" grep -q '"ack_timeout": 14,.*"id": "info"' "$tmp/ack.cli/bench-raw.jsonl"
check "-u: said under the table" grep -q "krdma's sessions at ack_timeout 14 (67 ms per retransmission wait, perftest's default)" "$tmp/ack.cli/table.md"
check "without -u: none given" sh -c "! grep -q ack_timeout '$tmp/all.cli/logs/info.json' || grep -q '\"ack_timeout\": null' '$tmp/all.cli/logs/info.json'"
PATH=$bin:$PATH "$here/bench-host.sh" client -u 7 127.0.0.1 >/dev/null 2>"$tmp/ack.bad"
check "-u 7: refused (exit $?)" grep -q -- "-u must be 8..31" "$tmp/ack.bad"

# A side alone gives up once its wait (-w) is over, says why, exits 1,
# and leaves nothing running (the server's rendezvous, a listener).
for role in server client; do
	port=$((port + 1))
	t0=$(date +%s)
	set -- -I stub0 -c "$port" -w 2 -o "$tmp/alone.$role"
	[ "$role" = server ] || set -- "$@" 127.0.0.1
	PATH=$bin:$PATH KRDMA_BENCH_CQ_POLL=$tmp/cq_poll \
		timeout 60 "$here/bench-host.sh" "$role" "$@" >"$tmp/alone.$role.out" 2>&1
	rc=$?
	check "alone, the $role gives up: exit 1 ($rc), in $(($(date +%s) - t0)) s" \
		[ "$rc" = 1 ] && [ $(($(date +%s) - t0)) -lt 30 ]
	check "alone, the $role says why" \
		grep -q "side did not come to bench.secs: giving up" "$tmp/alone.$role.out"
done
check "alone, the server's rendezvous is gone with it" \
	sh -c "! pgrep -f 'sync[.]py serve $((port - 1))' >/dev/null"

# run-hosts.sh, its ssh and scp made local: the commands it sends (the
# quoting of -P and -O) and what comes back.
cat >"$bin/ssh" <<'EOF'
#!/bin/sh
while [ $# -gt 0 ]; do
	case $1 in
	-o) shift 2 ;;
	*) break ;;
	esac
done
echo "$1: $2" >>"${STUB_SSH_LOG:-/dev/null}"
shift
exec sh -c "$*"
EOF
cat >"$bin/scp" <<'EOF'
#!/bin/sh
while [ $# -gt 2 ]; do shift; done
exec cp -r "${1#*:}" "$2"
EOF
chmod +x "$bin/ssh" "$bin/scp"
port=$((port + 1))
PATH=$bin:$PATH KRDMA_BENCH_CQ_POLL=$tmp/cq_poll STUB_SSH_LOG=$tmp/ssh.log \
	timeout 300 "$here/run-hosts.sh" -a 127.0.0.1 -I stub0 -J stub1 -c "$port" \
	-s 1 -P "-u 18" -O '^(pt|kr)\.bw\.write\.4096$|^tcp$' -o "$tmp/ssh" \
	srv.example cli.example >"$tmp/ssh.out" 2>&1
check "run-hosts.sh: ends 0" [ $? = 0 ]
check "run-hosts.sh: the client side on CLIENT, its options quoted" \
	grep -qF "cli.example: cd '$(cd "$here/../.." && pwd -P)' && tests/bench/bench-host.sh client -c '$port' -s '1' -P '-u 18' -O '^(pt|kr)\.bw\.write\.4096\$|^tcp\$' -I 'stub1' -o " "$tmp/ssh.log"
check "run-hosts.sh: the server side on SERVER, its device" \
	grep -qF "srv.example: cd '$(cd "$here/../.." && pwd -P)' && exec tests/bench/bench-host.sh server -c '$port' -I 'stub0' -o " "$tmp/ssh.log"
check "run-hosts.sh: the records came back, the control, 3 steps and info" \
	[ "$(wc -l <"$tmp/ssh/bench-raw.jsonl" 2>/dev/null)" = 5 ]
check "run-hosts.sh: the table here" grep -q "write 4 KiB BW" "$tmp/ssh/table.md"

# The harness's way, bench-guest.sh with the harness's own lib.sh and
# guest-common.sh (barrier, result, json_get), each node with a /tmp of
# its own as a guest has (root and unshare -m: skipped without): the
# same steps make the same records as the host way's, the device's name
# aside.
only='^(pt|kr)\.(bw|lat|msg)\.(write|send)\.(4096|64)$|^tcp$|^cq\.direct$'
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	mkdir -p "$tmp/h.out"
	echo workqueue >"$tmp/cq_poll"
	# shellcheck disable=SC2016 # expanded by the node's shell
	node_sh='mount -t tmpfs none /tmp && exec sh "$KRDMA_ROOT/tests/bench/bench-guest.sh"'
	hp=''
	for node in 1 2; do
		PATH=$bin:$PATH KRDMA_ROOT=$(cd "$here/../.." && pwd -P) KRDMA_OUT=$tmp/h.out \
		KRDMA_NODES=2 KRDMA_NODE=$node KRDMA_PEER_IP=127.0.0.1 \
		KRDMA_BENCH_SECS=1 KRDMA_BENCH_DEPTH=8 KRDMA_BENCH_QPS=2 \
		KRDMA_BENCH_PT_EXTRA="-u 18" KRDMA_BENCH_ONLY=$only \
		KRDMA_BENCH_CQ_POLL=$tmp/cq_poll KRDMA_BENCH_SYNC_PORT=$((port + 1)) \
			timeout 300 unshare -m sh -c "$node_sh" >"$tmp/h.node$node.out" 2>&1 &
		hp="$hp $!"
	done
	bg=$hp
	hrc=''
	for p in $hp; do
		wait "$p"
		hrc="$hrc$?"
	done
	bg=''
	check "harness: both nodes end 0" [ "$hrc" = 00 ]
	check "harness: no result failed" sh -c "! grep -q ' ok=0' '$tmp/h.out/node1.results' '$tmp/h.out/node2.results'"
	# id, tool and command of each measurement: what was run
	what() {
		python3 -c 'import json, re, sys
ids = set()
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d.get("id") != "info" and re.search(sys.argv[2], "%s.%s" % (d.get("tool"), d.get("id"))):
        print(d.get("tool"), d.get("id"), re.sub(r"-d \S+", "-d DEV", d.get("cmd", "")))' "$1" "$2"
	}
	what "$tmp/h.out/bench-raw.jsonl" . >"$tmp/h.what"
	what "$tmp/all.cli/bench-raw.jsonl" \
		'^(perftest|krdma)\.(msg\.)?(write|send)\.(4096|64)$|^iperf3\.tcp$|^krdma\.cq\.direct\.|^sleep\.idle$' >"$tmp/a.what"
	check "harness: the same measurements as the host way (19: $(wc -l <"$tmp/h.what"))" \
		[ "$(wc -l <"$tmp/h.what")" = 19 ]
	check "harness: the same command lines as the host way" cmp -s "$tmp/h.what" "$tmp/a.what"
	check "harness: the sides met through the rendezvous, not the polling barrier" \
		sh -c "[ ! -e '$tmp/h.out/.barrier' ] && grep -q listening '$tmp/h.out/logs/sync.log'"
	check "harness: the server side's CPU in the points' records" \
		python3 -c 'import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
bw = [r for r in recs if r.get("kind") in ("bw", "idle") and not r["id"].startswith("cq.")]
sys.exit(not (len(bw) == 9 and all(r["cpu"]["server"] and r.get("idle_cpus") is not None
                                   for r in bw)))' "$tmp/h.out/bench-raw.jsonl"
else
	echo "skip harness: bench-guest.sh needs root and unshare -m here"
fi

for f in all.srv.out all.cli.out ssh.out h.node1.out h.node2.out; do
	[ "$fail" -eq 0 ] || [ ! -e "$tmp/$f" ] || { echo "--- $f"; tail -n 30 "$tmp/$f"; }
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
