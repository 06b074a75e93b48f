#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# bench-host.sh - krdma against perftest (and TCP, iperf3) between two
# hosts: the part of the performance comparison that runs on a host.
# Documentation/performance.md, "On two hosts of your own".
#
# usage: tests/bench/bench-host.sh server [OPTIONS]
#        tests/bench/bench-host.sh client [OPTIONS] SERVER
#
#   The server side serves (a perftest server per point, iperf3 -s, a
#   krdma listener); the client side measures, against SERVER (the
#   server's address on the RDMA network), and writes the records. Start
#   the server first (on the other host, by hand or over ssh:
#   tests/bench/run-hosts.sh does both); the two meet at every point over
#   TCP (tests/bench/sync.py, served by the server side). Both need the
#   krdma module loaded, krdmactl (in PATH, or tools/krdmactl of this
#   tree), perftest, iperf3, python3, and root (krdmactl's commands need
#   CAP_NET_ADMIN; the cq.* points set the module parameter cq_poll).
#
#   -I DEV      RDMA device (default: the first in /sys/class/infiniband)
#   -o DIR      output directory (client: bench-raw.jsonl and logs/, then
#               the table through report.py; default a new
#               /tmp/krdma-bench.XXXXXX; server: its logs)
#   -c PORT     TCP port of the rendezvous (default 7470)
#   -k PORT     krdma listener's port (default 7471)
#   -w SECONDS  how long to wait for the other side to start (default 600)
#   The client's only, which the server takes from it:
#   -s SECONDS  measured seconds per point (default 5)
#   -d DEPTH    krdma's depth for the bandwidth points (default 64; the
#               message-rate points keep 128 messages in flight, both tools)
#   -q QPS      QPs of krdma's several-QP points (default 4), DEPTH shared
#   -P OPTIONS  more options for every perftest program (both sides)
#   -O STEPS    only the steps matching this grep -E ('bw|lat|tcp';
#               the names: pt.bw.OP.SIZE kr.bw.OP.SIZE pt.msg.OP.SIZE
#               kr.msg.OP.SIZE kr.lat.OP.64 pt.lat.OP.64 tcp
#               kr.bwq.OP.SIZE cq.POLL; idle, the control, runs always)
#   -u N        krdma's transport ACK timeout, both sides' (the sessions'
#               ack_timeout, the listener's): 4.096 us x 2^N, 14 as
#               perftest's default -u; default none, the module's (18)
#
# Exit status: 0 if every measurement produced a number (a missed target
# does not fail), 1 if one did not, 2 on a bad command line.
#
# The QEMU harness runs this same script in its guests
# (tests/bench/bench-guest.sh sources it with BENCH_HARNESS=1: the
# harness's result and node roles, rxe0 as the device, $KRDMA_OUT as the
# directory of both sides; the two meet through the same rendezvous,
# over the guests' own network).
#
# Each point is taken between two meetings, ready.N and done.N; the
# server side waits through it in one process that blocks (sync.py wait:
# no polling, no fork while the point runs) and hands the client what
# its CPUs did meanwhile (/proc/stat, and its own processes' CPU), which
# the client's record of the point carries with its own (parse.py: both
# sides' busy CPU-seconds, bytes per CPU-second, the idle side's busy
# share and its mark). The first step, idle, is the control: nothing
# runs, the client sleeps, the server waits.
#
# Each point runs perftest and krdma back to back, so that a change of
# load between the two touches both as little as possible. Every
# measurement is bounded in time, every wait too; the server side kills
# whatever server is left at the end. The tools' own output is kept in
# DIR/logs. Each record of an RDMA point carries what the client's
# device hw counters did during it (e.g. rxe's completer_retry_err, the
# retransmissions an impaired wire costs); a krdma test that fails
# carries its reason, and a session the wire lost is connected again for
# the next point.
set -u

BENCH_HERE=${KRDMA_ROOT:+$KRDMA_ROOT/tests/bench}
[ -n "$BENCH_HERE" ] || BENCH_HERE=$(cd "$(dirname "$0")" && pwd -P) || exit 2
BENCH_ROOT=$(cd "$BENCH_HERE/../.." && pwd -P) || exit 2

b_usage() { sed -n 's/^# \{0,1\}//; 8,43p' "$BENCH_HERE/bench-host.sh"; }

HARNESS=${BENCH_HARNESS:-0}
ROLE=${1:-}
case $ROLE in
server | client) shift ;;
-h | help) b_usage; exit 0 ;;
*) b_usage >&2; exit 2 ;;
esac

DEV='' OUT='' SYNC_PORT=${KRDMA_BENCH_SYNC_PORT:-7470} KPORT=7471 WAIT=600
SECS=${KRDMA_BENCH_SECS:-5}
DEPTH=${KRDMA_BENCH_DEPTH:-64}
QPS=${KRDMA_BENCH_QPS:-4}
PT_EXTRA=${KRDMA_BENCH_PT_EXTRA:-}
ONLY=${KRDMA_BENCH_ONLY:-}
ACK=${KRDMA_BENCH_ACK_TIMEOUT:-}
OPTIND=1
while getopts "I:o:c:k:w:s:d:q:P:O:u:h" opt; do
	case $opt in
	I) DEV=$OPTARG ;;
	o) OUT=$OPTARG ;;
	c) SYNC_PORT=$OPTARG ;;
	k) KPORT=$OPTARG ;;
	w) WAIT=$OPTARG ;;
	s) SECS=$OPTARG ;;
	d) DEPTH=$OPTARG ;;
	q) QPS=$OPTARG ;;
	P) PT_EXTRA=$OPTARG ;;
	O) ONLY=$OPTARG ;;
	u) ACK=$OPTARG ;;
	h) b_usage; exit 0 ;;
	*) b_usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ "$ROLE" = client ] && [ "$HARNESS" != 1 ]; then
	[ $# -eq 1 ] || { echo "bench-host.sh: client: give the server's address" >&2; exit 2; }
	PEER=$1
else
	[ $# -eq 0 ] || { b_usage >&2; exit 2; }
	PEER=${KRDMA_PEER_IP:-}
fi
for v in "$SECS" "$DEPTH" "$QPS" "$SYNC_PORT" "$KPORT" "$WAIT"; do
	case $v in
	'' | *[!0-9]*) echo "bench-host.sh: bad number '$v'" >&2; exit 2 ;;
	esac
done
[ "$SECS" -ge 1 ] || { echo "bench-host.sh: -s must be at least 1" >&2; exit 2; }
case $ACK in
'' | [89] | [12][0-9] | 3[01]) ;;
*) echo "bench-host.sh: -u must be 8..31" >&2; exit 2 ;;
esac

if [ "$HARNESS" = 1 ]; then
	DEV=${DEV:-${KRDMA_RDMA_DEV:-rxe0}}
	OUT=$KRDMA_OUT
else
	if [ -z "$DEV" ]; then
		for _d in /sys/class/infiniband/*; do
			[ -e "$_d" ] && { DEV=${_d##*/}; break; }
		done
	fi
	[ -n "$DEV" ] || { echo "bench-host.sh: no RDMA device (give -I DEV)" >&2; exit 1; }
	[ -n "$OUT" ] || OUT=$(mktemp -d /tmp/krdma-bench.XXXXXX) || exit 1
	mkdir -p "$OUT" || exit 1
	OUT=$(cd "$OUT" && pwd -P) || exit 1
fi
# The records name the command as typed: krdmactl when it is in PATH.
if command -v krdmactl >/dev/null 2>&1; then
	KRDMACTL=krdmactl
else
	KRDMACTL=$BENCH_ROOT/tools/krdmactl
fi
command -v "$KRDMACTL" >/dev/null 2>&1 || { echo "bench-host.sh: no krdmactl in PATH nor in $BENCH_ROOT/tools (make tools)" >&2; exit 1; }
# The module parameter the cq.* points set on both sides.
CQ_POLL=${KRDMA_BENCH_CQ_POLL:-/sys/module/krdma/parameters/cq_poll}
PBASE=18515		# perftest: one port per step
IPORT=5201		# iperf3
RAW=$OUT/bench-raw.jsonl
LOGS=$OUT/logs
PARSE=$BENCH_HERE/parse.py
mkdir -p "$LOGS"
FAILED=0

# ---- what the harness provides in its guests, and the hosts' own ---------
if [ "$HARNESS" = 1 ]; then
	b_log() { log "$@"; }
	b_result() { result "$@"; }
	b_json_get() { json_get "$1"; }
	b_json_check() { json_check "$@"; }
else
	b_log() { echo "[$ROLE $(date +%H:%M:%S)] $*"; }
	# b_result NAME ok|fail [key=value ...]: a line, the count of failures.
	b_result() {
		_br_ok=1
		[ "$2" = ok ] || { _br_ok=0; FAILED=$((FAILED + 1)); }
		_br_line="RESULT $ROLE name=$1 ok=$_br_ok"
		shift 2
		[ $# -eq 0 ] || _br_line="$_br_line $*"
		echo "$_br_line" | tee -a "$OUT/$ROLE.results"
	}
	b_json_get() {
		python3 -c 'import json, sys
d = json.load(sys.stdin)
print(eval(sys.argv[1]))' "$1" 2>/dev/null
	}
	# b_json_check NAME "COMMAND" "PYTHON-EXPR over d"
	b_json_check() {
		_jc_out=$(sh -c "$2" 2>&1)
		if printf '%s' "$_jc_out" | python3 -c 'import json, sys
d = json.load(sys.stdin)
sys.exit(0 if eval(sys.argv[1]) else 1)' "$3" 2>/dev/null; then
			b_result "$1" ok
		else
			echo "--- $1: '$3' is false for: $2"
			printf '%s\n' "$_jc_out"
			b_result "$1" fail
			return 1
		fi
	}
fi

# b_expect_ok NAME CMD...: runs CMD, records NAME; its output if it failed.
b_expect_ok() {
	_be_name=$1
	shift
	_be_out=$("$@" 2>&1)
	_be_rc=$?
	if [ "$_be_rc" -eq 0 ]; then
		b_result "$_be_name" ok "rc=0"
		return 0
	fi
	echo "--- expected success of: $* (rc=$_be_rc); output:"
	printf '%s\n---\n' "$_be_out"
	b_result "$_be_name" fail "rc=$_be_rc"
	return 1
}

# b_sync NAME TIMEOUT [VALUE] [-- NAME TIMEOUT [VALUE]]...: waits until the
# other side has reached NAME too (then the next NAME); prints the VALUE
# it brought to the last. The rendezvous is the server side's sync.py, on
# two hosts and in the harness's guests alike (there over their network).
# On two hosts, a side the other did not meet in time gives up (exit 1):
# the other is gone or stuck, and every later point would wait for it in
# vain (the harness goes on, within its own deadline, as it always did).
b_sync() {
	b_sync_run meet "$@"
}

# b_sync_run MODE ARGS...: sync.py MODE against the rendezvous.
b_sync_run() {
	_bs_mode=$1
	shift
	if [ "$ROLE" = server ]; then
		_bs_host=127.0.0.1
	else
		_bs_host=$PEER
	fi
	python3 "$BENCH_HERE/sync.py" "$_bs_mode" "$_bs_host" "$SYNC_PORT" "$ROLE" "$@" && return 0
	# Seen, and not taken for the value.
	b_result "barrier.$1" fail >&2
	b_log "the $( [ "$ROLE" = server ] && echo client || echo server) side did not come to $1: giving up" >&2
	[ "$HARNESS" = 1 ] && return 1
	exit 1
}

# b_point_wait N TIMEOUT: the server side through point N (ready.N to
# done.N), blocked in one process; prints what its CPUs did meanwhile
# (a JSON object), which the client gets too (b_point_end).
b_point_wait() {
	b_sync_run wait "$1" "$2" ${sync_pid:+"$sync_pid"}
}

# b_point_end N TIMEOUT: the client side's end of point N; prints the
# server's CPU figures of it.
b_point_end() {
	b_sync "done.$1" "$2" -- "stat.$1" 120
}

# b_wait_for -t SECONDS -i INTERVAL CMD...: until CMD succeeds; 1 on timeout.
b_wait_for() {
	_bw_to=$2 _bw_iv=$4
	shift 4
	_bw_end=$(($(date +%s) + _bw_to))
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -lt "$_bw_end" ] || return 1
		sleep "$_bw_iv"
	done
}

# b_wait_exit PID SECONDS: until child PID has exited; 1 if it has not.
b_wait_exit() {
	_bx_end=$(($(date +%s) + $2))
	while kill -0 "$1" 2>/dev/null; do
		case $(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null) in
		Z | '') return 0 ;;
		esac
		[ "$(date +%s)" -lt "$_bx_end" ] || return 1
		sleep 0.2
	done
	return 0
}

# The GID index of DEV's IPv4 address (RoCEv2, IPv4-mapped), for
# perftest's -x; none (perftest's default) where there is none (IB).
b_gid() {
	for _g in /sys/class/infiniband/"$DEV"/ports/1/gids/*; do
		case $(cat "$_g" 2>/dev/null) in
		0000:0000:0000:0000:0000:ffff:*) echo "${_g##*/}"; return 0 ;;
		esac
	done
	return 1
}

# The netdev whose bytes are the wire's: DEV's (RoCE, iWARP), else the
# first that is not lo.
IFACE=
GID=$(b_gid) || GID=
[ -z "$GID" ] ||
	IFACE=$(cat "/sys/class/infiniband/$DEV/ports/1/gid_attrs/ndevs/$GID" 2>/dev/null) || IFACE=
if [ -z "$IFACE" ]; then
	for _p in /sys/class/net/*; do
		[ "${_p##*/}" = lo ] || { IFACE=${_p##*/}; break; }
	done
fi
nic() { cat "/sys/class/net/$IFACE/statistics/$1_bytes" 2>/dev/null || echo 0; }
# cpu_snap N: /proc/stat's cpu line (all CPUs) and the uptime into
# $cpuN and $upN, with builtins only (no fork around a point).
cpu_snap() {
	read -r _cs_l </proc/stat
	read -r _cs_u _cs_rest </proc/uptime
	eval "cpu$1=\$_cs_l up$1=\$_cs_u"
}
now() { date +%s.%N; }
# pc_snap N: what each vCPU did so far, for percpu.py (one cat, outside
# the point's CPU window: before cpu_snap 0, after cpu_snap 1).
pc_snap() { cat /proc/stat /proc/softirqs /proc/interrupts >"$LOGS/.pc.$1" 2>/dev/null; }
# dev_ctrs FILE: DEV's hw counters (NAME VALUE lines) into FILE.
dev_ctrs() {
	for _c in /sys/class/infiniband/"$DEV"/ports/1/hw_counters/*; do
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

tcp_listening() {
	ss -Hltn "sport = :$1" 2>/dev/null | grep -q .
}

# ---- the steps, the same list on both sides ------------------------------
# pt.bw.OP.SIZE  pt.msg.OP.SIZE (64 and 512 B: a bandwidth point whose
# record's id is msg.OP.SIZE, apart from the latency point of 64 B)  kr.bw.OP.SIZE  kr.lat.OP.64  pt.lat.OP.64  tcp
# kr.bwq.OP.SIZE (several QPs)  cq.POLL
# -O's filter: the idle control always runs, both sides skip the same.
step_skipped() {
	[ -n "$ONLY" ] && [ "$1" != idle ] && ! echo "$1" | grep -Eq -- "$ONLY"
}

steps() {
	# The control: nothing runs; what the idle side's CPUs do meanwhile
	# is the floor of every point's figure (always run, -O or not).
	echo idle
	# Message rate: small writes and sends, where a tool's own cost per
	# message shows (perftest's MsgRate is its BW over the size).
	for size in 64 512; do
		for op in write send; do
			echo "pt.msg.$op.$size"
			echo "kr.msg.$op.$size"
		done
	done
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

# set_cq_poll POLL: this side's sessions from now on complete in POLL.
set_cq_poll() {
	echo "$1" 2>/dev/null >"$CQ_POLL" && return 0
	b_log "cannot set cq_poll to $1 ($CQ_POLL: root, and the krdma module, are needed)"
	return 1
}

# The parameters both sides need, the client's: set after the first meeting.
# perftest: DEV, RoCEv2 over IPv4 where the device has such a GID, QP
# numbers exchanged over TCP (its default; the rdma_cm mode, -R, got
# REJECTED connects under load and then a crash in librdmacm), no cpufreq
# warning.
b_params() {
	PT_COMMON="-d $DEV${GID:+ -x $GID} -F${PT_EXTRA:+ $PT_EXTRA}"
	# Bandwidth: duration mode, -D total seconds with -f seconds of margin
	# at each end, so the measured window is D - 2f = SECS. -Q 1: in
	# duration mode perftest counts completions inside the window, one per
	# -Q messages (100 by default), which quantizes the slow rates of an
	# emulated wire to nothing. -N: no peak (meaningless in duration mode).
	PT_BW="-D $((SECS + 2)) -f 1 -Q 1 -N"
	# Message rate (the msg points, 64 and 512 B): both tools keep the
	# same window, 128 messages (perftest's default tx depth, twice
	# krdma's bw default), and ask for a completion on one message in 64
	# (perftest -Q 64, krdma signal_every 64): a tool's cost per message
	# is then its own, not a completion each that neither needs. krdma
	# posts in chains of 32 (its chain; perftest posts one WR a call).
	# At thousands of messages a second, -Q 64 quantizes the count in the
	# window by a fraction of a percent.
	MSG_DEPTH=128 MSG_SIGNAL=64 MSG_CHAIN=32
	PT_MSG="-D $((SECS + 2)) -f 1 -Q $MSG_SIGNAL -t $MSG_DEPTH -N"
	# Latency: perftest's iteration count is chosen so that it runs about
	# SECS seconds at the round trip krdma just measured (50..5000).
	LAT_MIN=50 LAT_MAX=5000
	# Bounds: a perftest or iperf3 run may not take more than this.
	CLIENT_TMO=$((SECS * 8 + 60))
	SERVER_TMO=$((CLIENT_TMO + 60))
	# krdma's ACK timeout (-u), of the client's sessions and the listener's.
	KR_ACK=${ACK:+ ack_timeout $ACK}
}

# b_meet_params: the client's SECS, ONLY, PT_EXTRA and ACK, given to the
# server (what the harness gives both through the environment is the same).
b_meet_params() {
	_bm_s=$(b_sync bench.secs "$WAIT" "$SECS") || return 1
	_bm_o=$(b_sync bench.only 120 "$ONLY") || return 1
	_bm_p=$(b_sync bench.pt_extra 120 "$PT_EXTRA") || return 1
	_bm_a=$(b_sync bench.ack_timeout 120 "$ACK") || return 1
	if [ "$ROLE" = server ]; then
		case $_bm_s in
		'' | *[!0-9]*) b_log "the client's seconds '$_bm_s' are no number"; return 1 ;;
		esac
		case $_bm_a in
		'' | [89] | [12][0-9] | 3[01]) ;;
		*) b_log "the client's ACK timeout '$_bm_a' is not 8..31"; return 1 ;;
		esac
		SECS=$_bm_s ONLY=$_bm_o PT_EXTRA=$_bm_p ACK=$_bm_a
	fi
	return 0
}

# ---- the server side -------------------------------------------------------
if [ "$ROLE" = server ]; then
	spid='' sync_pid=''
	# shellcheck disable=SC2317 # trap
	cleanup() {
		[ -z "$spid" ] || kill "$spid" 2>/dev/null
		[ -z "$sync_pid" ] || kill "$sync_pid" 2>/dev/null
		"$KRDMACTL" listener del name bench >/dev/null 2>&1
		[ "$HARNESS" = 1 ] || set_cq_poll workqueue >/dev/null 2>&1
	}
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	python3 "$BENCH_HERE/sync.py" serve "$SYNC_PORT" >"$LOGS/sync.log" 2>&1 &
	sync_pid=$!
	# (a python3 start: seconds in a TCG guest on a loaded host)
	b_wait_for -t 60 -i 0.1 grep -q listening "$LOGS/sync.log" ||
		{ echo "bench-host.sh: the rendezvous did not start on port $SYNC_PORT:" >&2
		  cat "$LOGS/sync.log" >&2; exit 1; }
	b_log "device $DEV${GID:+ (GID $GID)}, netdev ${IFACE:-none}, krdma on port $KPORT," \
		"waiting for the client (rendezvous on TCP port $SYNC_PORT)"
	b_meet_params || exit 1
	b_params
	# shellcheck disable=SC2086 # KR_ACK: words or nothing
	b_expect_ok bench.listener "$KRDMACTL" listener add name bench port "$KPORT"$KR_ACK
	b_sync bench.listening 120 >/dev/null || exit 1
	b_sync bench.connected 120 >/dev/null
	n=0
	for step in $(steps); do
		n=$((n + 1))
		step_skipped "$step" && continue
		# shellcheck disable=SC2086 # word lists on purpose
		case $step in
		idle | kr.*)
			# Nothing to start: the control, or krdma (its listener is
			# in the kernel already). Through the point, blocked.
			fig=$(b_point_wait "$n" $((CLIENT_TMO + 90))) && b_log "$step: this side's CPU: $fig"
			continue
			;;
		pt.*)
			IFS=. read -r _ kind op size <<-STEP
				$step
			STEP
			pt_opts=$PT_BW
			[ "$kind" != msg ] || kind=bw pt_opts=$PT_MSG
			port=$((PBASE + n))
			if [ "$kind" = bw ]; then
				args="$PT_COMMON $pt_opts -s $size -p $port"
			else
				# The client picks the count; both must use it.
				iters=$(b_sync "param.$n" 120) ||
					{ [ "$HARNESS" = 1 ] || exit 1; iters=; }
				case $iters in
				'' | *[!0-9]*) iters=$LAT_MIN ;;
				esac
				args="$PT_COMMON $(pt_size_args "$op" "$size") -n $iters -p $port"
			fi
			b_log "server: $(pt_bin "$kind" "$op") $args"
			timeout -k 5 $SERVER_TMO stdbuf -oL -eL "$(pt_bin "$kind" "$op")" $args \
				>"$LOGS/srv.$step.log" 2>&1 &
			spid=$!
			b_wait_for -t 30 -i 0.2 tcp_listening $port ||
				b_log "perftest not listening on $port: going on (the client retries)"
			;;
		cq.*)
			# Our side of the sessions in that completion context.
			set_cq_poll "${step#cq.}"
			b_sync "ready.$n" 120 >/dev/null
			b_sync "done.$n" $((CLIENT_TMO * 2 + 60)) >/dev/null
			set_cq_poll workqueue
			continue
			;;
		tcp)
			b_log "server: iperf3 -s -1 -p $IPORT"
			timeout -k 5 $SERVER_TMO iperf3 -s -1 -p $IPORT >"$LOGS/srv.tcp.log" 2>&1 &
			spid=$!
			b_wait_for -t 30 -i 0.2 tcp_listening $IPORT ||
				b_log "iperf3 not listening on $IPORT: going on"
			;;
		*)
			continue
			;;
		esac
		fig=$(b_point_wait "$n" $((SERVER_TMO + 30))) && b_log "$step: this side's CPU: $fig"
		# The server should be gone with its client; bounded either way.
		if ! b_wait_exit "$spid" 15; then
			b_log "server of $step still running: killing it"
			kill "$spid" 2>/dev/null
			b_wait_exit "$spid" 10 || kill -9 "$spid" 2>/dev/null
		fi
		wait "$spid" 2>/dev/null
		rc=$?
		[ "$rc" -eq 0 ] || { b_log "server of $step exited $rc:"; tail -n 20 "$LOGS/srv.$step.log"; }
		spid=
	done
	b_sync bench.end $((SERVER_TMO + 60)) >/dev/null
	b_json_check bench.server.no_validation_errors "'$KRDMACTL' -j stats show" \
		"d['validation_errors'] == 0"
	[ "$HARNESS" = 1 ] || b_log "done: $FAILED failed"
	[ "$FAILED" -eq 0 ] || [ "$HARNESS" = 1 ]
	exit
fi

# ---- the client side: the measurements ------------------------------------
[ -n "$PEER" ] || { echo "bench-host.sh: client: no server address" >&2; exit 2; }
: >"$RAW"
b_log "device $DEV${GID:+ (GID $GID)}, netdev ${IFACE:-none}, server $PEER, output in $OUT"
b_meet_params || exit 1
b_params
if [ "$HARNESS" = 1 ]; then whose=guest; else whose=host; fi
{
	echo "{"
	echo "\"id\": \"info\", \"tool\": \"$whose\","
	echo "\"host\": \"$(uname -n)\", \"dev\": \"$DEV\","
	echo "\"kernel\": \"$(uname -r)\","
	echo "\"vcpus\": $(nproc),"
	echo "\"cpu_mhz\": \"$(grep -m1 'cpu MHz' /proc/cpuinfo | sed 's/.*: *//')\","
	echo "\"mem_kb\": $(sed -n 's/^MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo),"
	echo "\"perftest\": \"$(ib_write_bw -V 2>&1 | sed -n 's/.*ersion:* *//p' | head -n1)\","
	echo "\"iperf3\": \"$(iperf3 --version 2>&1 | head -n1)\","
	echo "\"secs\": $SECS, \"depth\": $DEPTH, \"qps\": $QPS, \"gid_index\": \"$GID\","
	echo "\"ack_timeout\": ${ACK:-null},"
	echo "\"rxe_mtu\": \"$(ibv_devinfo -d "$DEV" 2>/dev/null | sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p' | head -n1)\","
	echo "\"netdev_mtu\": $(cat "/sys/class/net/$IFACE/mtu" 2>/dev/null || echo null)"
	echo "}"
} >"$LOGS/info.json"
python3 "$PARSE" info "$LOGS/info.json" raw="$RAW"

# Receive buffers for 1 MiB SENDs, enough for DEPTH sends in flight between
# credits (+2 reserved); a send queue for DEPTH messages of a few WRs each;
# QPS QPs for the several-QP points (the others use the first).
bench_connect() {
	# shellcheck disable=SC2086 # KR_ACK: words or nothing
	b_expect_ok "$1" "$KRDMACTL" session connect addr "$PEER" port "$KPORT" \
		name bench max_msg 1M rq_depth $((DEPTH + 16)) sq_depth 1024 qps "$QPS" \
		timeout 30s$KR_ACK
}
# bench_up: the session bench is up.
bench_up() {
	"$KRDMACTL" -j session show 2>/dev/null | b_json_get \
		"[s for s in d if s.get('name') == 'bench' and s.get('state') == 'up'][0]" \
		>/dev/null
}
# shellcheck disable=SC2317 # trap
client_cleanup() {
	"$KRDMACTL" session del name bench >/dev/null 2>&1
	[ "$HARNESS" = 1 ] || set_cq_poll workqueue >/dev/null 2>&1
}
trap client_cleanup EXIT
trap 'exit 130' INT TERM
b_sync bench.listening 120 >/dev/null || exit 1
bench_connect bench.connect
b_sync bench.connected 120 >/dev/null

# pt_client STEP N KIND OP SIZE [ITERS]: runs the perftest client, up to
# 3 tries when it fails at once to reach the server (not listening yet).
# A client that failed later (its QP in error: "Completion with error")
# took its server with it, and another try would only fail to connect.
pt_client() {
	_bin=$(pt_bin "$3" "$4")
	if [ "$3" = bw ]; then
		case $1 in
		pt.msg.*) _args="$PT_COMMON $PT_MSG -s $5 -p $((PBASE + $2))" ;;
		*) _args="$PT_COMMON $PT_BW -s $5 -p $((PBASE + $2))" ;;
		esac
	else
		_args="$PT_COMMON $(pt_size_args "$4" "$5") -n $6 -p $((PBASE + $2))"
	fi
	PT_CMD="$_bin $_args $PEER"
	for _try in 1 2 3; do
		b_log "client ($_try): $PT_CMD"
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
	awk -v rtt="$(cat "$LOGS/.kr.lat.$1.rtt" 2>/dev/null || echo 0)" \
		-v secs="$SECS" -v lo=$LAT_MIN -v hi=$LAT_MAX 'BEGIN {
		n = rtt > 0 ? int(secs * 1e6 / rtt) : lo
		print (n < lo ? lo : (n > hi ? hi : n)) }'
}

# point_end N TIMEOUT: the client's end of point N (cpu_snap 1 taken):
# the server's CPU figures of it into $peer (none if it did not come).
point_end() {
	peer=$(b_point_end "$1" "$2") || peer=
}

# run_krdma FILE ID KIND OP SIZE [N]: runs $KR_CMD (bounded), its JSON into
# $LOGS/FILE.json, and records it as ID with the NIC's bytes, the wall
# time and this side's CPU around it, and with N (a point of its own,
# ready.N met) the server side's CPU too; sets $out, returns the
# parser's verdict.
run_krdma() {
	b_log "$KR_CMD"
	pc_snap 0
	dev_ctrs "$LOGS/.ctr.0"
	_rk_tx0=$(nic tx) _rk_rx0=$(nic rx) _rk_t0=$(now)
	cpu_snap 0
	# shellcheck disable=SC2086
	timeout -k 5 $CLIENT_TMO $KR_CMD >"$LOGS/$1.json" 2>"$LOGS/$1.err"
	cpu_snap 1
	_rk_t1=$(now) _rk_tx1=$(nic tx) _rk_rx1=$(nic rx)
	dev_ctrs "$LOGS/.ctr.1"
	pc_snap 1
	peer=
	[ $# -lt 6 ] || point_end "$6" $((CLIENT_TMO + 30))
	cat "$LOGS/$1.json" "$LOGS/$1.err"
	# shellcheck disable=SC2154 # cpu0 cpu1 up0 up1: cpu_snap's
	out=$(python3 "$PARSE" krdma "$LOGS/$1.json" raw="$RAW" id="$2" \
		tool=krdma kind="$3" op="$4" size="$5" cmd="$KR_CMD" \
		err="$LOGS/$1.err" ctr0="$LOGS/.ctr.0" ctr1="$LOGS/.ctr.1" \
		tx0="$_rk_tx0" tx1="$_rk_tx1" rx0="$_rk_rx0" rx1="$_rk_rx1" \
		wsecs="$(echo "$_rk_t1 $_rk_t0" | awk '{ print $1 - $2 }')" \
		cpu0="$cpu0" cpu1="$cpu1" up0="$up0" up1="$up1" peer="$peer" \
		pc0="$LOGS/.pc.0" pc1="$LOGS/.pc.1")
}

K=$KRDMACTL
n=0
for step in $(steps); do
	n=$((n + 1))
	step_skipped "$step" && continue
	case $step in
	tcp) kind=tcp op=tcp size=0 ;;
	idle) kind=idle op=idle size=0 ;;
	*)
		IFS=. read -r _ kind op size <<-STEP
			$step
		STEP
		;;
	esac
	# A message-rate point is a bandwidth point recorded as msg.OP.SIZE.
	idp=
	[ "$kind" != msg ] || kind=bw idp=msg.
	case $step in
	idle)
		# The control: both sides only wait, this one in one sleep.
		b_sync "ready.$n" 120 >/dev/null || { b_result bench.idle fail why=no_server; continue; }
		b_log "idle: sleep $SECS"
		cpu_snap 0
		sleep "$SECS"
		cpu_snap 1
		point_end "$n" 120
		out=$(python3 "$PARSE" idle - raw="$RAW" id=idle tool=sleep kind=idle op=idle \
			cmd="sleep $SECS" cpu0="$cpu0" cpu1="$cpu1" up0="$up0" up1="$up1" peer="$peer")
		rc=$?
		;;
	pt.*)
		iters=
		if [ "$kind" = lat ]; then
			iters=$(lat_iters "$op")
			b_sync "param.$n" 120 "$iters" >/dev/null
		fi
		b_sync "ready.$n" 120 >/dev/null || { b_result "bench.$step" fail why=no_server; continue; }
		dev_ctrs "$LOGS/.ctr.0"
		tx0=$(nic tx) rx0=$(nic rx)
		cpu_snap 0
		pt_client "$step" "$n" "$kind" "$op" "$size" "$iters"
		cpu_snap 1
		tx1=$(nic tx) rx1=$(nic rx)
		dev_ctrs "$LOGS/.ctr.1"
		point_end "$n" $((CLIENT_TMO * 3 + 30))
		if [ "$kind" = bw ]; then
			out=$(python3 "$PARSE" pt-bw "$LOGS/cli.$step.log" raw="$RAW" id="$idp$op.$size" \
				tool=perftest kind=bw op="$op" size="$size" cmd="$PT_CMD" \
				secs="$SECS" tx0="$tx0" tx1="$tx1" rx0="$rx0" rx1="$rx1" \
				wsecs=$((SECS + 2)) ctr0="$LOGS/.ctr.0" ctr1="$LOGS/.ctr.1" \
				cpu0="$cpu0" cpu1="$cpu1" up0="$up0" up1="$up1" peer="$peer")
		else
			out=$(python3 "$PARSE" pt-lat "$LOGS/cli.$step.log" raw="$RAW" id="$op.$size" \
				tool=perftest kind=lat op="$op" size="$size" cmd="$PT_CMD" \
				ctr0="$LOGS/.ctr.0" ctr1="$LOGS/.ctr.1" \
				cpu0="$cpu0" cpu1="$cpu1" up0="$up0" up1="$up1" peer="$peer")
		fi
		rc=$?
		;;
	kr.*)
		# A session the wire lost (its failed test recorded why) is not
		# all the later points' failure: connect it again.
		if ! bench_up; then
			b_log "session bench is gone: connecting it again"
			b_log "sessions: $("$K" -j session show 2>&1)"
			bench_connect "bench.reconnect.$step"
		fi
		b_sync "ready.$n" 120 >/dev/null || { b_result "bench.$step" fail why=no_server; continue; }
		id=$idp$op.$size
		case $kind in
		bw)
			KR_CMD="$K -j test run session bench op $op mode bw size $size duration ${SECS}s depth $DEPTH"
			[ "$idp" != msg. ] ||
				KR_CMD="$K -j test run session bench op $op mode bw size $size duration ${SECS}s depth $MSG_DEPTH signal_every $MSG_SIGNAL chain $MSG_CHAIN"
			;;
		bwq)
			# The same messages in flight as on one QP, shared out.
			KR_CMD="$K -j test run session bench op $op mode bw size $size duration ${SECS}s depth $(((DEPTH + QPS - 1) / QPS)) qps $QPS"
			id=qps.$op.$size
			;;
		*)
			KR_CMD="$K -j test run session bench op $op mode lat size $size duration ${SECS}s"
			;;
		esac
		run_krdma "cli.$step" "$id" "$kind" "$op" "$size" "$n"
		rc=$?
		[ "$kind" != lat ] ||
			printf '%s' "$out" | b_json_get "d['rtt_avg_us']" >"$LOGS/.kr.lat.$op.rtt"
		;;
	cq.*)
		# Both sides' sessions in this context: a session of its own.
		poll=${step#cq.}
		set_cq_poll "$poll"
		b_sync "ready.$n" 120 >/dev/null || { b_result "bench.$step" fail why=no_peer; continue; }
		rc=0
		# shellcheck disable=SC2086 # KR_ACK: words or nothing
		if ! "$K" session connect addr "$PEER" port "$KPORT" name "cq$poll" \
			max_msg 64K rq_depth $((DEPTH + 16)) sq_depth 1024 qps "$QPS" timeout 30s$KR_ACK; then
			b_sync "done.$n" 120 >/dev/null
			b_result "bench.$step" fail why=connect
			continue
		fi
		for what in "bw write 65536" "bwq write 65536" "lat send 64" \
			"lat write 64" "lat read 64"; do
			# shellcheck disable=SC2086 # split on purpose
			set -- $what
			KR_CMD="$K -j test run session cq$poll op $2 mode ${1%q} size $3 duration ${SECS}s"
			[ "$1" = bw ] && KR_CMD="$KR_CMD depth $DEPTH"
			[ "$1" = bwq ] && KR_CMD="$KR_CMD depth $(((DEPTH + QPS - 1) / QPS)) qps $QPS"
			# ids: cq.POLL.bw, cq.POLL.bwq, cq.POLL.lat (send), cq.POLL.lat_OP
			id=$1
			[ "$1" = lat ] && [ "$2" != send ] && id="lat_$2"
			run_krdma "cli.$step.$id" "cq.$poll.$id" "$1" "$2" "$3" || rc=1
			echo "$out"
		done
		"$K" session del name "cq$poll"
		set_cq_poll workqueue
		b_sync "done.$n" 120 >/dev/null
		;;
	tcp)
		b_sync "ready.$n" 120 >/dev/null || { b_result bench.tcp fail why=no_server; continue; }
		IP_CMD="iperf3 -c $PEER -p $IPORT -t $SECS -J"
		b_log "$IP_CMD"
		pc_snap 0
		tx0=$(nic tx) rx0=$(nic rx)
		cpu_snap 0
		# shellcheck disable=SC2086
		timeout -k 5 $CLIENT_TMO $IP_CMD >"$LOGS/cli.tcp.json" 2>"$LOGS/cli.tcp.err"
		cpu_snap 1
		tx1=$(nic tx) rx1=$(nic rx)
		pc_snap 1
		point_end "$n" $((CLIENT_TMO + 30))
		out=$(python3 "$PARSE" iperf3 "$LOGS/cli.tcp.json" raw="$RAW" id=tcp tool=iperf3 \
			kind=tcp op=tcp cmd="$IP_CMD" tx0="$tx0" tx1="$tx1" rx0="$rx0" rx1="$rx1" \
			wsecs="$SECS" cpu0="$cpu0" cpu1="$cpu1" up0="$up0" up1="$up1" peer="$peer" \
			pc0="$LOGS/.pc.0" pc1="$LOGS/.pc.1")
		rc=$?
		;;
	esac
	echo "$out"
	val=$(printf '%s' "$out" | b_json_get "d.get('mb_s', d.get('typical_us', d.get('avg_us', d.get('idle_cpus'))))")
	if [ "$rc" -eq 0 ]; then
		b_result "bench.$step" ok "value=$val"
	else
		b_result "bench.$step" fail
	fi
done

b_sync bench.end 120 >/dev/null
b_json_check bench.client.no_validation_errors "'$K' -j stats show" \
	"d['validation_errors'] == 0"
"$K" session del name bench
trap - EXIT
[ "$HARNESS" = 1 ] && exit 0
# The table (and, with python3-matplotlib, the charts), as run.sh -r DIR.
python3 "$BENCH_HERE/report.py" "$OUT"
b_log "done: $FAILED failed; the records, the table and the logs are in $OUT"
[ "$FAILED" -eq 0 ]
