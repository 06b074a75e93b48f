#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Guest side of the performance comparison (tests/bench/run.sh): krdma
# against perftest over the same rxe wire, in the same run, plus TCP
# (iperf3) as the ceiling of that wire. Node 1 serves (perftest servers,
# iperf3 -s, a krdma listener), node 2 measures and appends one JSON
# record per measurement to $KRDMA_OUT/bench-raw.jsonl; the host turns
# them into the table (ratios, targets). Documentation/performance.md.
#
# Each point runs perftest and krdma back to back, so that a change of the
# host's load between the two touches both as little as possible. Every
# measurement is bounded in time, every wait too; node 1 kills whatever
# server is left at the end. The tools' own output is kept in
# $KRDMA_OUT/logs. Each record of an RDMA point carries what rxe0's hw
# counters on node 2 (the requester of every point) did during it, e.g.
# completer_retry_err, the retransmissions an impaired wire
# (KRDMA_NETEM) costs; a krdma test that fails carries its reason, and a
# session the wire lost is connected again for the next point.
#
# Environment (from the host): KRDMA_BENCH_SECS (measured seconds per
# point, default 5), KRDMA_BENCH_DEPTH (krdma bandwidth depth, default
# 64), KRDMA_BENCH_QPS (QPs of the several-QP points, default 4; the
# depth is shared between them), KRDMA_BENCH_PT_EXTRA (more perftest
# options, default none),
# KRDMA_BENCH_ONLY (a grep -E over the step names, for trying out the
# script: "tcp|lat").
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u

SECS=${KRDMA_BENCH_SECS:-5}
DEPTH=${KRDMA_BENCH_DEPTH:-64}
QPS=${KRDMA_BENCH_QPS:-4}
ONLY=${KRDMA_BENCH_ONLY:-}
KPORT=7471		# krdma listener
PBASE=18515		# perftest: one port per step
IPORT=5201		# iperf3
RAW=$KRDMA_OUT/bench-raw.jsonl
LOGS=$KRDMA_OUT/logs
PEER=$KRDMA_PEER_IP
mkdir -p "$LOGS"

GID=$(gid_index) || GID=1

# perftest: rxe0, RoCEv2 over IPv4, QP numbers exchanged over TCP (its
# default; the rdma_cm mode, -R, got REJECTED connects under load and
# then a crash in librdmacm), no cpufreq warning.
PT_COMMON="-d rxe0 -x $GID -F${KRDMA_BENCH_PT_EXTRA:+ $KRDMA_BENCH_PT_EXTRA}"
# Bandwidth: duration mode, -D total seconds with -f seconds of margin at
# each end, so the measured window is D - 2f = SECS. -Q 1: in duration
# mode perftest counts completions inside the window, one per -Q
# messages (100 by default), which quantizes the slow rates of an
# emulated wire to nothing. -N: no peak (meaningless in duration mode).
PT_BW="-D $((SECS + 2)) -f 1 -Q 1 -N"
# Latency: perftest's iteration count is chosen so that it runs about
# SECS seconds at the round trip krdma just measured (50..5000).
LAT_MIN=50 LAT_MAX=5000
# Bounds: a perftest or iperf3 run may not take more than this.
CLIENT_TMO=$((SECS * 8 + 60))
SERVER_TMO=$((CLIENT_TMO + 60))

# ---- the steps, the same list on both nodes ------------------------------
# pt.bw.OP.SIZE  kr.bw.OP.SIZE  kr.lat.OP.64  pt.lat.OP.64  tcp
# kr.bwq.OP.SIZE (several QPs)  cq.POLL
steps() {
	for size in 4096 65536 1048576; do
		for op in write read send; do
			echo "pt.bw.$op.$size"
			echo "kr.bw.$op.$size"
		done
	done
	# read and atomic_fadd: round trips of their own (ib_read_lat,
	# ib_atomic_lat); an atomic moves 8 bytes.
	for what in send.64 write.64 read.64 atomic_fadd.8; do
		echo "kr.lat.$what"
		echo "pt.lat.$what"
		# krdma's write without pollers, held to ib_write_lat too.
		[ "$what" != write.64 ] || echo "kr.lat.write_imm.64"
	done
	echo tcp
	# krdma over several QPs, right after TCP: the ceiling it is held to.
	for what in write.1048576 read.1048576 write.65536; do
		echo "kr.bwq.$what"
	done
	# krdma alone, in each completion context (module parameter cq_poll;
	# softirq is the data channels', so it shows only over several QPs).
	for poll in workqueue unbound direct softirq; do
		echo "cq.$poll"
	done
}

# ---- parsing (python3, on the host's root like everything else) ----------
PARSE=/tmp/bench-parse.py
cat >"$PARSE" <<'EOF'
import json, re, sys

def emit(rec):
    with open(RAW, "a") as f:
        f.write(json.dumps(rec, sort_keys=True) + "\n")

def perftest_table(path, key):
    """Header line containing key, then the first numeric data line."""
    lines = open(path, errors="replace").read().splitlines()
    for i, l in enumerate(lines):
        if "#bytes" in l and key in l:
            for d in lines[i + 1:]:
                f = d.split()
                if len(f) >= 5 and f[0].isdigit():
                    return l, f
    return None, None

def counters(kv):
    """rxe's hw counters that moved during the run (ctr0/ctr1: files of
    NAME VALUE lines), e.g. completer_retry_err: the requester's
    retransmissions after an ACK timeout or a NAK."""
    try:
        c0, c1 = ({l.split()[0]: int(l.split()[1]) for l in open(kv[k]) if len(l.split()) == 2}
                  for k in ("ctr0", "ctr1"))
    except (KeyError, OSError, ValueError, IndexError):
        return None
    return {k: c1[k] - c0.get(k, 0) for k in sorted(c1) if c1[k] != c0.get(k, 0)}

def wire(kv):
    """Bytes the NIC moved during the run, over the traffic seconds."""
    try:
        tx = int(kv["tx1"]) - int(kv["tx0"])
        rx = int(kv["rx1"]) - int(kv["rx0"])
        secs = float(kv["wsecs"])
        return round(max(tx, rx) / secs / 1e6, 3) if secs > 0 else None
    except (KeyError, ValueError):
        return None

cmd, path = sys.argv[1], sys.argv[2]
kv = dict(a.split("=", 1) for a in sys.argv[3:])
RAW = kv.pop("raw")
rec = {k: kv[k] for k in ("id", "tool", "kind", "op", "cmd") if k in kv}
if "size" in kv:
    rec["size"] = int(kv["size"])
rec["ok"] = False
try:
    if cmd == "pt-bw":
        head, f = perftest_table(path, "BW average")
        if f:
            # perftest's MB (and MiB) are 2^20 bytes; Gb is 10^9 bits.
            if "Gb/sec" in head:
                scale = 1e9 / 8 / 1e6
            else:
                scale = 1048576 / 1e6
            rec["iters"] = int(f[1])
            rec["mb_s"] = round(float(f[3]) * scale, 3)
            rec["mpps"] = float(f[4])
            rec["secs"] = float(kv["secs"])
            if rec["mb_s"] == 0 and rec["iters"] > 0:
                # 0.00 when its check of the CPU clock failed under TCG
                # ("Correlation coefficient r^2 < 0.9"); its iterations
                # stand: the rate is theirs, marked (report.py).
                rec["mb_s"] = round(rec["iters"] * int(kv["size"]) / rec["secs"] / 1e6, 3)
                rec["derived"] = True
            rec["ok"] = rec["mb_s"] > 0
    elif cmd == "pt-lat":
        head, f = perftest_table(path, "t_typical")
        if f and len(f) >= 9:
            rec["iters"] = int(f[1])
            for i, k in enumerate(("min_us", "max_us", "typical_us", "avg_us",
                                   "stdev_us", "p99_us", "p999_us"), 2):
                rec[k] = float(f[i])
            rec["ok"] = rec["typical_us"] > 0
    elif cmd == "krdma":
        d = json.load(open(path))
        rec["status"] = d.get("status")
        rec["iters"] = d["iters"]
        rec["validated"] = d["validated"]
        rec["elapsed_ns"] = d["elapsed_ns"]
        rec["secs"] = d["elapsed_ns"] / 1e9
        rec["mode"] = d.get("mode", "check")
        rec["cpu_ns"] = d.get("cpu_ns")
        rec["peer_cpu_ns"] = d.get("peer_cpu_ns")
        # check mode compares every iteration, bw and lat sample the data.
        if rec["mode"] == "check":
            checked = d["validated"] == d["iters"]
        else:
            checked = d["validated"] >= 1
        ok = d["status"] == 0 and d["iters"] > 0 and checked
        if rec.get("kind") == "lat":
            # One iteration is a round trip; for send and write perftest
            # reports half of one, and so do krdma's lat figures; a read
            # or an atomic counts whole in both.
            rec["rtt_avg_us"] = round(d["elapsed_ns"] / d["iters"] / 1e3, 3)
            whole = rec.get("op") in ("read", "atomic_fadd", "atomic_cswap")
            rec["avg_us"] = round(rec["rtt_avg_us"] / (1 if whole else 2), 3)
            for k, v in d.get("lat", {}).items():
                if k.endswith("_ns"):
                    rec[k[:-3] + "_us"] = round(v / 1e3, 3)
            # The buckets as they came (ns, one way like the figures):
            # the CDF of tests/bench/plot.py.
            hist = d.get("lat", {}).get("histogram")
            if hist:
                rec["hist"] = [[b.get("lo_ns"), b.get("hi_ns"), b.get("count")]
                               for b in hist]
        else:
            rec["bytes"] = d["bytes"]
            rec["mb_s"] = round(d["bytes"] / (d["elapsed_ns"] / 1e9) / 1e6, 3)
        rec["ok"] = ok
        if d.get("reason"):
            rec["reason"] = d["reason"]
    elif cmd == "iperf3":
        d = json.load(open(path))
        s = d["end"]["sum_received"]
        rec["mb_s"] = round(s["bits_per_second"] / 8 / 1e6, 3)
        rec["secs"] = s["seconds"]
        rec["retransmits"] = d["end"].get("sum_sent", {}).get("retransmits")
        rec["ok"] = rec["mb_s"] > 0
    elif cmd == "info":
        rec = json.load(open(path))
except Exception as e:  # a broken output is a failed measurement
    rec["error"] = "%s: %s" % (type(e).__name__, e)
if not rec.get("ok") and "err" in kv:
    # What the tool said on its way out (krdmactl: the test's reason).
    try:
        msg = " ".join(open(kv["err"], errors="replace").read().split())
        if msg:
            rec["stderr"] = msg[:300]
    except OSError:
        pass
if not rec.get("ok") and cmd.startswith("pt-"):
    # perftest's own words for a failure ("Completion with error at
    # client", "Failed status 9: ...": its QP went to error).
    try:
        bad = [" ".join(l.split()) for l in open(path, errors="replace")
               if re.search(r"[Ff]ail|[Ee]rror|Couldn't|Unable", l)]
        if bad:
            rec["stderr"] = "; ".join(bad[:3])[:300]
    except OSError:
        pass
c = counters(kv)
if c is not None:
    rec["rxe"] = c
w = wire(kv)
if w is not None:
    rec["wire_mb_s"] = w
try:
    # /proc/stat around the run: the share of all vCPUs that was busy.
    busy = int(kv["busy1"]) - int(kv["busy0"])
    total = int(kv["total1"]) - int(kv["total0"])
    rec["guest_busy"] = round(busy / total, 3) if total > 0 else None
except (KeyError, ValueError):
    pass
emit(rec)
if cmd != "info":
    print(json.dumps(rec, sort_keys=True))
    sys.exit(0 if rec["ok"] else 1)
EOF

IFACE=
for p in /sys/class/net/*; do
	[ "${p##*/}" = lo ] || { IFACE=${p##*/}; break; }
done
nic() { cat "/sys/class/net/$IFACE/statistics/$1_bytes" 2>/dev/null || echo 0; }
# cpu_ticks: "busy=N total=M" from /proc/stat's cpu line (all vCPUs).
cpu_ticks() {
	awk -v s="$1" '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i
		printf "busy%s=%d total%s=%d\n", s, t - $5 - $6, s, t; exit }' /proc/stat
}
now() { date +%s.%N; }
# rxe_ctrs FILE: rxe0's hw counters (NAME VALUE lines) into FILE.
rxe_ctrs() {
	for _c in /sys/class/infiniband/rxe0/ports/1/hw_counters/*; do
		[ -r "$_c" ] && echo "${_c##*/} $(cat "$_c")"
	done >"$1" 2>/dev/null
}

# perftest binary of a step: pt.bw.write.4096 -> ib_write_bw,
# pt.lat.atomic_fadd.8 -> ib_atomic_lat
pt_bin() { echo "ib_${2%_*}_${1}"; }

# pt_size_args OP SIZE: perftest's size option (its atomics take none,
# but the kind of atomic).
pt_size_args() {
	case $1 in
	atomic_fadd) echo "-A FETCH_AND_ADD" ;;
	atomic_cswap) echo "-A CMP_AND_SWAP" ;;
	*) echo "-s $2" ;;
	esac
}

# shellcheck disable=SC2317 # called through wait_for
tcp_listening() {
	ss -Hltn "sport = :$1" 2>/dev/null | grep -q .
}

# ---- node 1: the servers -------------------------------------------------
if [ "$KRDMA_NODE" = 1 ]; then
	spid=
	# shellcheck disable=SC2317 # trap
	cleanup() {
		[ -z "$spid" ] || kill "$spid" 2>/dev/null
		krdmactl listener del name bench >/dev/null 2>&1
	}
	trap cleanup EXIT
	expect_ok bench.listener krdmactl listener add name bench port $KPORT
	barrier bench.listening || exit 1
	barrier bench.connected 120
	n=0
	for step in $(steps); do
		n=$((n + 1))
		if [ -n "$ONLY" ] && ! echo "$step" | grep -Eq -- "$ONLY"; then
			continue
		fi
		# shellcheck disable=SC2086 # word lists on purpose
		case $step in
		pt.*)
			IFS=. read -r _ kind op size <<-STEP
				$step
			STEP
			port=$((PBASE + n))
			if [ "$kind" = bw ]; then
				args="$PT_COMMON $PT_BW -s $size -p $port"
			else
				# The client picks the count; both must use it.
				barrier "param.$n" 120
				iters=$(cat "$KRDMA_OUT/.lat-iters.$n" 2>/dev/null) || iters=$LAT_MIN
				args="$PT_COMMON $(pt_size_args "$op" "$size") -n $iters -p $port"
			fi
			log "server: $(pt_bin "$kind" "$op") $args"
			timeout -k 5 $SERVER_TMO stdbuf -oL -eL "$(pt_bin "$kind" "$op")" $args \
				>"$LOGS/srv.$step.log" 2>&1 &
			spid=$!
			wait_for -t 30 -i 0.2 tcp_listening $port ||
				log "perftest not listening on $port: going on (the client retries)"
			;;
		cq.*)
			# Our side of the sessions in that completion context.
			echo "${step#cq.}" >/sys/module/krdma/parameters/cq_poll
			barrier "ready.$n" 120
			barrier "done.$n" $((CLIENT_TMO * 2 + 60))
			echo workqueue >/sys/module/krdma/parameters/cq_poll
			continue
			;;
		tcp)
			log "server: iperf3 -s -1 -p $IPORT"
			timeout -k 5 $SERVER_TMO iperf3 -s -1 -p $IPORT >"$LOGS/srv.tcp.log" 2>&1 &
			spid=$!
			wait_for -t 30 -i 0.2 tcp_listening $IPORT ||
				log "iperf3 not listening on $IPORT: going on"
			;;
		*)
			continue	# krdma: the listener is in the kernel already
			;;
		esac
		barrier "ready.$n" 120
		barrier "done.$n" $((SERVER_TMO + 30))
		# The server should be gone with its client; bounded either way.
		if ! wait_exit "$spid" 15; then
			log "server of $step still running: killing it"
			kill "$spid" 2>/dev/null
			wait_exit "$spid" 10 || kill -9 "$spid" 2>/dev/null
		fi
		wait "$spid" 2>/dev/null
		rc=$?
		[ "$rc" -eq 0 ] || { log "server of $step exited $rc:"; tail -n 20 "$LOGS/srv.$step.log"; }
		spid=
	done
	barrier bench.end $((SERVER_TMO + 60))
	json_check bench.server.no_validation_errors "krdmactl -j stats show" \
		"d['validation_errors'] == 0"
	exit 0
fi

# ---- node 2: the measurements --------------------------------------------
: >"$RAW"
{
	echo "{"
	echo "\"id\": \"info\", \"tool\": \"guest\","
	echo "\"kernel\": \"$(uname -r)\","
	echo "\"vcpus\": $(nproc),"
	echo "\"cpu_mhz\": \"$(grep -m1 'cpu MHz' /proc/cpuinfo | sed 's/.*: *//')\","
	echo "\"mem_kb\": $(sed -n 's/^MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo),"
	echo "\"perftest\": \"$(ib_write_bw -V 2>&1 | sed -n 's/.*ersion:* *//p' | head -n1)\","
	echo "\"iperf3\": \"$(iperf3 --version 2>&1 | head -n1)\","
	echo "\"secs\": $SECS, \"depth\": $DEPTH, \"qps\": $QPS, \"gid_index\": $GID,"
	echo "\"rxe_mtu\": \"$(ibv_devinfo -d rxe0 2>/dev/null | sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p' | head -n1)\","
	echo "\"netdev_mtu\": $(cat "/sys/class/net/$IFACE/mtu")"
	echo "}"
} >/tmp/info.json
python3 "$PARSE" info /tmp/info.json raw="$RAW"

# Receive buffers for 1 MiB SENDs, enough for DEPTH sends in flight between
# credits (+2 reserved); a send queue for DEPTH messages of a few WRs each;
# QPS QPs for the several-QP points (the others use the first).
bench_connect() {
	expect_ok "$1" krdmactl session connect addr "$PEER" port $KPORT \
		name bench max_msg 1M rq_depth $((DEPTH + 16)) sq_depth 1024 qps "$QPS" \
		timeout 30s
}
# bench_up: the session bench is up.
bench_up() {
	krdmactl -j session show 2>/dev/null | json_get \
		"[s for s in d if s.get('name') == 'bench' and s.get('state') == 'up'][0]" \
		>/dev/null
}
barrier bench.listening || exit 1
bench_connect bench.connect
barrier bench.connected

# pt_client STEP N KIND OP SIZE [ITERS]: runs the perftest client, up to
# 3 tries when it fails at once to reach the server (not listening yet).
# A client that failed later (its QP in error: "Completion with error")
# took its server with it, and another try would only fail to connect.
pt_client() {
	_bin=$(pt_bin "$3" "$4")
	if [ "$3" = bw ]; then
		_args="$PT_COMMON $PT_BW -s $5 -p $((PBASE + $2))"
	else
		_args="$PT_COMMON $(pt_size_args "$4" "$5") -n $6 -p $((PBASE + $2))"
	fi
	PT_CMD="$_bin $_args $PEER"
	for _try in 1 2 3; do
		log "client ($_try): $PT_CMD"
		_t0=$(date +%s)
		# shellcheck disable=SC2086
		timeout -k 5 $CLIENT_TMO stdbuf -oL -eL "$_bin" $_args "$PEER" \
			>"$LOGS/cli.$1.log" 2>&1
		_rc=$?
		tail -n 4 "$LOGS/cli.$1.log"
		[ $_rc -ne 0 ] || return 0
		[ $(($(date +%s) - _t0)) -lt 10 ] || return "$_rc"
		grep -q "Couldn't connect" "$LOGS/cli.$1.log" || return "$_rc"
		sleep 3
	done
	return "$_rc"
}

# lat_iters OP: perftest latency iterations for about SECS seconds at the
# round trip krdma measured for OP.
lat_iters() {
	awk -v rtt="$(cat "/tmp/kr.lat.$1.rtt" 2>/dev/null || echo 0)" \
		-v secs="$SECS" -v lo=$LAT_MIN -v hi=$LAT_MAX 'BEGIN {
		n = rtt > 0 ? int(secs * 1e6 / rtt) : lo
		print (n < lo ? lo : (n > hi ? hi : n)) }'
}

# run_krdma FILE ID KIND OP SIZE: runs $KR_CMD (bounded), its JSON into
# $LOGS/FILE.json, and records it as ID with the NIC's bytes, the wall
# time and the guest's CPU ticks around it; sets $out, returns the
# parser's verdict.
run_krdma() {
	log "$KR_CMD"
	rxe_ctrs /tmp/ctr.0
	_rk_c0=$(cpu_ticks 0) _rk_tx0=$(nic tx) _rk_rx0=$(nic rx) _rk_t0=$(now)
	# shellcheck disable=SC2086
	timeout -k 5 $CLIENT_TMO $KR_CMD >"$LOGS/$1.json" 2>"$LOGS/$1.err"
	_rk_t1=$(now) _rk_tx1=$(nic tx) _rk_rx1=$(nic rx) _rk_c1=$(cpu_ticks 1)
	rxe_ctrs /tmp/ctr.1
	cat "$LOGS/$1.json" "$LOGS/$1.err"
	# shellcheck disable=SC2086 # the cpu_ticks words
	out=$(python3 "$PARSE" krdma "$LOGS/$1.json" raw="$RAW" id="$2" \
		tool=krdma kind="$3" op="$4" size="$5" cmd="$KR_CMD" \
		err="$LOGS/$1.err" ctr0=/tmp/ctr.0 ctr1=/tmp/ctr.1 \
		tx0="$_rk_tx0" tx1="$_rk_tx1" rx0="$_rk_rx0" rx1="$_rk_rx1" \
		wsecs="$(echo "$_rk_t1 $_rk_t0" | awk '{ print $1 - $2 }')" \
		$_rk_c0 $_rk_c1)
}

n=0
for step in $(steps); do
	n=$((n + 1))
	if [ -n "$ONLY" ] && ! echo "$step" | grep -Eq -- "$ONLY"; then
		continue
	fi
	case $step in
	tcp) kind=tcp op=tcp size=0 ;;
	*)
		IFS=. read -r _ kind op size <<-STEP
			$step
		STEP
		;;
	esac
	case $step in
	pt.*)
		iters=
		if [ "$kind" = lat ]; then
			iters=$(lat_iters "$op")
			echo "$iters" >"$KRDMA_OUT/.lat-iters.$n"
			barrier "param.$n" 120
		fi
		barrier "ready.$n" 120 || { result "bench.$step" fail why=no_server; continue; }
		rxe_ctrs /tmp/ctr.0
		tx0=$(nic tx) rx0=$(nic rx)
		pt_client "$step" "$n" "$kind" "$op" "$size" "$iters"
		tx1=$(nic tx) rx1=$(nic rx)
		rxe_ctrs /tmp/ctr.1
		barrier "done.$n" $((CLIENT_TMO * 3 + 30))
		if [ "$kind" = bw ]; then
			out=$(python3 "$PARSE" pt-bw "$LOGS/cli.$step.log" raw="$RAW" id="$op.$size" \
				tool=perftest kind=bw op="$op" size="$size" cmd="$PT_CMD" \
				secs="$SECS" tx0="$tx0" tx1="$tx1" rx0="$rx0" rx1="$rx1" \
				wsecs=$((SECS + 2)) ctr0=/tmp/ctr.0 ctr1=/tmp/ctr.1)
		else
			out=$(python3 "$PARSE" pt-lat "$LOGS/cli.$step.log" raw="$RAW" id="$op.$size" \
				tool=perftest kind=lat op="$op" size="$size" cmd="$PT_CMD" \
				ctr0=/tmp/ctr.0 ctr1=/tmp/ctr.1)
		fi
		rc=$?
		;;
	kr.*)
		# A session the wire lost (its failed test recorded why) is not
		# all the later points' failure: connect it again.
		if ! bench_up; then
			log "session bench is gone: connecting it again"
			_sess=$(krdmactl -j session show 2>&1)
			log "sessions: $_sess"
			bench_connect "bench.reconnect.$step"
		fi
		id=$op.$size
		case $kind in
		bw)
			KR_CMD="krdmactl -j test run session bench op $op mode bw size $size duration ${SECS}s depth $DEPTH"
			;;
		bwq)
			# The same messages in flight as on one QP, shared out.
			KR_CMD="krdmactl -j test run session bench op $op mode bw size $size duration ${SECS}s depth $(((DEPTH + QPS - 1) / QPS)) qps $QPS"
			id=qps.$op.$size
			;;
		*)
			KR_CMD="krdmactl -j test run session bench op $op mode lat size $size duration ${SECS}s"
			;;
		esac
		run_krdma "cli.$step" "$id" "$kind" "$op" "$size"
		rc=$?
		[ "$kind" != lat ] ||
			printf '%s' "$out" | json_get "d['rtt_avg_us']" >"/tmp/kr.lat.$op.rtt"
		;;
	cq.*)
		# Both sides' sessions in this context: a session of its own.
		poll=${step#cq.}
		echo "$poll" >/sys/module/krdma/parameters/cq_poll
		barrier "ready.$n" 120 || { result "bench.$step" fail why=no_peer; continue; }
		rc=0
		if ! krdmactl session connect addr "$PEER" port $KPORT name "cq$poll" \
			max_msg 64K rq_depth $((DEPTH + 16)) sq_depth 1024 qps "$QPS" timeout 30s; then
			barrier "done.$n" 120
			result "bench.$step" fail why=connect
			continue
		fi
		for what in "bw write 65536" "bwq write 65536" "lat send 64" \
			"lat write 64" "lat read 64"; do
			# shellcheck disable=SC2086 # split on purpose
			set -- $what
			KR_CMD="krdmactl -j test run session cq$poll op $2 mode ${1%q} size $3 duration ${SECS}s"
			[ "$1" = bw ] && KR_CMD="$KR_CMD depth $DEPTH"
			[ "$1" = bwq ] && KR_CMD="$KR_CMD depth $(((DEPTH + QPS - 1) / QPS)) qps $QPS"
			# ids: cq.POLL.bw, cq.POLL.bwq, cq.POLL.lat (send), cq.POLL.lat_OP
			id=$1
			[ "$1" = lat ] && [ "$2" != send ] && id="lat_$2"
			run_krdma "cli.$step.$id" "cq.$poll.$id" "$1" "$2" "$3" || rc=1
			echo "$out"
		done
		krdmactl session del name "cq$poll"
		echo workqueue >/sys/module/krdma/parameters/cq_poll
		barrier "done.$n" 120
		;;
	tcp)
		barrier "ready.$n" 120 || { result bench.tcp fail why=no_server; continue; }
		IP_CMD="iperf3 -c $PEER -p $IPORT -t $SECS -J"
		log "$IP_CMD"
		tx0=$(nic tx) rx0=$(nic rx)
		# shellcheck disable=SC2086
		timeout -k 5 $CLIENT_TMO $IP_CMD >"$LOGS/cli.tcp.json" 2>"$LOGS/cli.tcp.err"
		tx1=$(nic tx) rx1=$(nic rx)
		barrier "done.$n" $((CLIENT_TMO + 30))
		out=$(python3 "$PARSE" iperf3 "$LOGS/cli.tcp.json" raw="$RAW" id=tcp tool=iperf3 \
			kind=tcp op=tcp cmd="$IP_CMD" tx0="$tx0" tx1="$tx1" rx0="$rx0" rx1="$rx1" \
			wsecs="$SECS")
		rc=$?
		;;
	esac
	echo "$out"
	val=$(printf '%s' "$out" | json_get "d.get('mb_s', d.get('typical_us', d.get('avg_us')))")
	if [ "$rc" -eq 0 ]; then
		result "bench.$step" ok "value=$val"
	else
		result "bench.$step" fail
	fi
done

barrier bench.end
json_check bench.client.no_validation_errors "krdmactl -j stats show" \
	"d['validation_errors'] == 0"
krdmactl session del name bench
exit 0
