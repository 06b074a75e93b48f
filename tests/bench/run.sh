#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# run.sh - krdma against perftest (and TCP) in pairs of QEMU guests, each
# point repeated in several runs; prints the table of median ratios.
# Documentation/performance.md.
#
# usage: tests/bench/run.sh [-o DIR] [-R RUNS] [-s SECONDS] [-d DEPTH]
#                           [-q QPS] [-t TIMEOUT] [-P PERFTEST-OPTIONS]
#                           [-L NETEM] [-O STEPS] [-M MODPARAMS] [-m MTU] [-S]
#                           [-u N]
#        tests/bench/run.sh -r DIR
#
#   -o DIR      output directory (default: a new /tmp/krdma-bench.XXXXXX)
#   -R RUNS     runs, each in a fresh pair of guests (default 3)
#   -s SECONDS  measured seconds per point (default 5)
#   -d DEPTH    krdma's depth for the bandwidth points (default 64)
#   -q QPS      QPs of krdma's several-QP points (default 4), DEPTH shared
#   -t TIMEOUT  bound of each guest run (default 1800)
#   -P OPTIONS  more options for every perftest program (e.g. "-u 18")
#   -L NETEM    impair the wire: tc-netem arguments on both guests' NICs
#               (KRDMA_NETEM, e.g. "loss 1%"); by default only the loss
#               rows then run (write, read, send BW at 64 KiB and 1 MiB),
#               krdma's sessions at ACK timeout 14 as perftest's (-u)
#   -O STEPS    only the steps matching this grep -E (KRDMA_BENCH_ONLY,
#               bench-host.sh's step names, e.g. 'bw|lat|tcp')
#   -M PARAMS   krdma module parameters (KRDMA_MODPARAMS, "cq_poll=direct")
#   -m MTU      both guests' NIC MTU (KRDMA_MTU): 9000, the jumbo frames
#               of RoCE deployments, gives rxe's MTU 4096 (the default
#               1500 gives 1024); by default only the bandwidth,
#               message-rate and several-QP points and TCP then run
#   -u N        krdma's sessions' transport ACK timeout, 4.096 us x 2^N,
#               both sides (session connect and listener add ack_timeout;
#               default: 14 with -L, perftest's default -u, else none:
#               the module's 18; 0: the module's with -L too)
#   -S          steer each guest's receive work over all its vCPUs
#               (KRDMA_RPS=1: receive packet steering, as RSS on a host)
#   -r DIR      no run: print the table of the run(s) in DIR again
#
# Run K writes DIR/runK: bench-raw.jsonl (one record per measurement,
# from the guest), host.json (the host's state), bench.json (all of it
# with the ratios and the targets), table.md, and the tools' own output in
# logs/. DIR/bench.json and DIR/table.md hold the series: per point the
# median of the runs' ratios and their spread (tests/bench/report.py),
# and the charts DIR/bw-sweep-OP.svg and DIR/lat-cdf-OP.svg
# (tests/bench/plot.py; none without python3-matplotlib).
# The wire is tests/vm/run.sh's (KRDMA_WIRE, a unix-socket stream by
# default). Exit status: 0 if every guest run passed (a measurement that
# produced no number fails one; a missed target does not). One run takes
# about 20 minutes on a loaded 2-CPU host: each point costs about 20 s
# for its 5 measured ones (the servers' start, the rendezvous, the CPU
# snapshots; 2026-11-30: 40 points to TCP in 819 s, when the old default
# bound of 900 s cut the run before its several-QP and cq points); a loss
# run 5-8.
set -u
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd -P) || exit 2
root=$(cd "$here/../.." && pwd -P) || exit 2

usage() { sed -n 's/^# \{0,1\}//; 8,38p' "$0"; }

# The loss rows (-L): bandwidth at 64 KiB and 1 MiB, both tools.
LOSS_STEPS='^(pt|kr)\.bw\.(write|read|send)\.(65536|1048576)$'
# The MTU rows (-m): every bandwidth and message-rate point (both tools), the
# several-QP points and TCP, their ceiling.
MTU_STEPS='^(pt|kr)\.(bw|msg)\.|^kr\.bwq\.|^tcp$'

out='' runs=3 secs=5 depth=64 qps=4 tmo=1800 report='' ptx='' mtu=${KRDMA_MTU:-} rps=${KRDMA_RPS:-0}
netem=${KRDMA_NETEM:-} only=${KRDMA_BENCH_ONLY:-} modparams=${KRDMA_MODPARAMS:-}
only_set=${KRDMA_BENCH_ONLY:+1}
ack=${KRDMA_BENCH_ACK_TIMEOUT:-} ack_set=${KRDMA_BENCH_ACK_TIMEOUT:+1}
while getopts "o:R:s:d:q:t:r:P:L:O:M:m:u:Sh" opt; do
	case $opt in
	o) out=$OPTARG ;;
	R) runs=$OPTARG ;;
	P) ptx=$OPTARG ;;
	r) report=$OPTARG ;;
	s) secs=$OPTARG ;;
	d) depth=$OPTARG ;;
	q) qps=$OPTARG ;;
	t) tmo=$OPTARG ;;
	L) netem=$OPTARG ;;
	O) only=$OPTARG only_set=1 ;;
	M) modparams=$OPTARG ;;
	m) mtu=$OPTARG ;;
	u) ack=$OPTARG ack_set=1 ;;
	S) rps=1 ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || { usage >&2; exit 2; }
for v in "$runs" "$secs" "$depth" "$qps" "$tmo"; do
	case $v in
	'' | *[!0-9]*) echo "run.sh: bad number '$v'" >&2; exit 2 ;;
	esac
done
[ "$secs" -ge 3 ] || { echo "run.sh: -s must be at least 3" >&2; exit 2; }
if [ "$runs" -lt 1 ] || [ "$runs" -gt 20 ]; then
	echo "run.sh: -R must be 1..20" >&2
	exit 2
fi
if [ "$qps" -lt 1 ] || [ "$qps" -gt 16 ]; then
	echo "run.sh: -q must be 1..16" >&2
	exit 2
fi
case $mtu in
'') ;;
*[!0-9]*) echo "run.sh: bad MTU '$mtu'" >&2; exit 2 ;;
*)
	if [ "$mtu" -lt 1280 ] || [ "$mtu" -gt 9000 ]; then
		echo "run.sh: -m must be 1280..9000" >&2
		exit 2
	fi
	;;
esac
[ -n "$netem" ] && [ -z "$only_set" ] && only=$LOSS_STEPS
[ -n "$mtu" ] && [ -z "$only_set" ] && [ -z "$netem" ] && only=$MTU_STEPS
# The loss rows as perftest runs them: its ACK timeout (-u) is 14.
[ -n "$netem" ] && [ -z "$ack_set" ] && ack=14
case $ack in
'' | 0) ack='' ;;
[89] | [12][0-9] | 3[01]) ;;
*) echo "run.sh: -u must be 8..31, or 0" >&2; exit 2 ;;
esac

# charts DIR: tests/bench/plot.py's SVGs in DIR, with the first python3
# that has matplotlib (pyenv's or a venv's may not; Debian's has it once
# python3-matplotlib is in). Without one, or if it fails: no charts, and
# the exit status stays the table's.
charts() {
	for _py in python3 /usr/bin/python3; do
		"$_py" -c 'import matplotlib' 2>/dev/null || continue
		"$_py" "$here/plot.py" "$1" | sed 's/^/bench: chart /' >&2
		[ "${PIPESTATUS[0]}" -eq 0 ] || echo "bench: charts failed (tests/bench/plot.py $1)" >&2
		return 0
	done
	echo "bench: no charts: no python3 with matplotlib (Debian: python3-matplotlib)" >&2
}

if [ -n "$report" ]; then
	[ -r "$report/bench-raw.jsonl" ] || [ -r "$report/run1/bench-raw.jsonl" ] ||
		{ echo "run.sh: no run in $report" >&2; exit 1; }
	python3 "$here/report.py" "$report"
	prc=$?
	charts "$report"
	exit "$prc"
fi

if [ -n "$out" ]; then
	mkdir -p "$out" || exit 1
	out=$(cd "$out" && pwd -P) || exit 1
else
	out=$(mktemp -d /tmp/krdma-bench.XXXXXX) || exit 1
fi
rm -rf "$out"/run[0-9]* "$out/bench-raw.jsonl" "$out/host.json" "$out/bench.json" \
	"$out/table.md" "$out/logs" "$out/vm.out"

[ -r "$root/kmod/krdma.ko" ] || { echo "run.sh: build the module first (make guest)" >&2; exit 1; }

# The command line that makes this series again (the options that differ
# from the defaults are written out all the same).
cmd="tests/bench/run.sh -R $runs -s $secs -d $depth -q $qps"
[ -z "$ptx" ] || cmd="$cmd -P \"$ptx\""
[ -z "$netem" ] || cmd="$cmd -L \"$netem\""
[ -z "$only_set" ] || cmd="$cmd -O '$only'"
[ -z "$modparams" ] || cmd="$cmd -M \"$modparams\""
[ -z "$mtu" ] || cmd="$cmd -m $mtu"
[ -z "$ack" ] || cmd="$cmd -u $ack"
[ -n "$ack" ] || [ -z "$netem" ] || cmd="$cmd -u 0"
[ "$rps" != 1 ] || cmd="$cmd -S"
[ -z "${KRDMA_WIRE:-}" ] || cmd="KRDMA_WIRE=$KRDMA_WIRE $cmd"
rev=$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)

# host_json FILE STARTED LOAD0 LOAD1 [ENDED]: the host's side of a run.
host_json() {
	python3 - "$@" "$(nproc)" "$(uname -r)" "$rev" "$cmd" "${KRDMA_WIRE:-unix}" \
		"$netem" "$modparams" "$only" "$runs" "$mtu" "$ack" "$rps" <<-'PY'
	import json, sys
	(path, started, load0, load1, ended, ncpu, hkernel, rev, cmd, wire, netem,
	 modparams, only, runs, mtu, ack, rps) = sys.argv[1:18]
	d = {"command": cmd, "started": started, "host_kernel": hkernel,
	     "host_cpus": int(ncpu), "host_load_before": load0,
	     "host_load_after": load1, "revision": rev, "wire": wire,
	     "netem": netem, "modparams": modparams, "only": only, "runs": int(runs),
	     "mtu": int(mtu) if mtu else None,
	     "ack_timeout": int(ack) if ack else None, "rps": rps == "1"}
	if ended:
	    d["ended"] = ended
	json.dump(d, open(path, "w"), indent=1, sort_keys=True)
	PY
}

# A crash of a userspace tool (perftest's librdmacm once died with a
# general protection fault after a rejected connect) is not a kernel
# problem: the measurement it spoils fails the run by itself.
ign='traps: (ib_[a-z_]+|iperf3)\[[0-9]+\] general protection fault'

rps_txt=
[ "$rps" != 1 ] || rps_txt=", receive packet steering over all vCPUs"
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
echo "bench: $started, host load average $load0 ($(nproc) CPUs), $runs run(s)," \
	"wire ${KRDMA_WIRE:-unix}${netem:+ with netem \"$netem\"}${mtu:+, NIC MTU $mtu}${rps_txt}${modparams:+, krdma $modparams}${ack:+, krdma sessions at ack_timeout $ack}," \
	"output in $out" >&2
failed=0
for k in $(seq 1 "$runs"); do
	rdir=$out/run$k
	mkdir -p "$rdir" || exit 1
	rstart=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	rload0=$(cut -d' ' -f1-3 /proc/loadavg)
	echo "bench: run $k of $runs, $rstart, host load average $rload0" >&2
	SCAN_DMESG_IGNORE="${SCAN_DMESG_IGNORE:+$SCAN_DMESG_IGNORE|}$ign" \
	KRDMA_BENCH_SECS=$secs KRDMA_BENCH_DEPTH=$depth KRDMA_BENCH_QPS=$qps \
	KRDMA_BENCH_PT_EXTRA=$ptx KRDMA_BENCH_ONLY=$only KRDMA_BENCH_ACK_TIMEOUT=$ack \
	KRDMA_NETEM=$netem KRDMA_MODPARAMS=$modparams KRDMA_MTU=$mtu KRDMA_RPS=$rps \
		"$root/tests/vm/run.sh" -t "$tmo" -o "$rdir" "$here/bench-guest.sh" >"$rdir/vm.out"
	vmrc=$?
	echo "bench: run $k: $(tail -n 1 "$rdir/vm.out")" >&2
	if [ "$vmrc" -ne 0 ]; then
		failed=$((failed + 1))
		echo "bench: run $k failed (see $rdir/vm.out)" >&2
	fi
	host_json "$rdir/host.json" "$rstart" "$rload0" "$(cut -d' ' -f1-3 /proc/loadavg)" ""
done
host_json "$out/host.json" "$started" "$load0" "$(cut -d' ' -f1-3 /proc/loadavg)" \
	"$(date -u +%Y-%m-%dT%H:%M:%SZ)"
python3 "$here/report.py" "$out"
prc=$?
charts "$out"
[ "$failed" -eq 0 ] || { echo "bench: $failed of $runs guest run(s) failed" >&2; exit 1; }
exit "$prc"
