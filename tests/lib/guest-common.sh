# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# shellcheck shell=sh
# Helpers shared by the krdma guest tests (sourced after tests/vm/lib.sh).

# ---- one python for the whole test: tests/lib/pyeval.py ---------------------
#
# Starting python3 in a TCG guest costs about a second (1.0 s measured for
# `python3 -c "import json"`, 0.1 s for a small binary), and a test makes
# one or two hundred JSON checks: so the checks below go to one python
# started here, in the test's own shell (see pyeval.py for the protocol).
# Where it is not running (KRDMA_PYEVAL=0, or it could not start) each
# check runs its own `pyeval.py --once`, to the same effect.

_pyeval_start() {
	PYEVAL_DIR='' PYEVAL_PID=''
	[ "${KRDMA_PYEVAL:-1}" = 1 ] || return 0
	_pe_dir=$(mktemp -d /tmp/pyeval.XXXXXX) || return 0
	# Not a child of this shell (a test's plain `wait` would wait for it
	# forever): it ends when this shell ($$) is gone.
	(python3 "$KRDMA_ROOT/tests/lib/pyeval.py" "$_pe_dir" $$ \
		</dev/null >/dev/null 2>>"$KRDMA_OUT/node$KRDMA_NODE.pyeval.log" &)
	_pe_i=0
	while [ ! -s "$_pe_dir/ready" ] && [ $_pe_i -lt 600 ]; do
		sleep 0.1
		_pe_i=$((_pe_i + 1))
	done
	read -r _pe_pid 2>/dev/null <"$_pe_dir/ready"
	if [ -n "$_pe_pid" ]; then
		PYEVAL_DIR=$_pe_dir PYEVAL_PID=$_pe_pid
	else
		log "pyeval did not start (node$KRDMA_NODE.pyeval.log): one python a check"
	fi
}

# _pyeval MODE INPUT BODY: MODE test (status only), print (prints the
# value), krdma_json or genl (BODY: the arguments, each ended by a
# newline) or genl_err; INPUT the JSON file, "stdin" (this shell's) or
# "-" (none). What the python printed goes to stdout and stderr; returns
# its status.
_pyeval() {
	# This (sub)shell's own PID: $$ is the test's in every subshell.
	read -r _pe_self _pe_rest </proc/self/stat
	_pe_in=$2
	if [ "$_pe_in" = stdin ]; then
		# Read to its end before taking the lock: in `genlpy | json_get`
		# the writer needs the server too, and a server reading the
		# pipe for the reader would wait for it forever.
		_pyeval_file
		_pe_in=$_pe_file
	fi
	if [ -z "${PYEVAL_PID:-}" ] || [ ! -d "/proc/$PYEVAL_PID" ]; then
		python3 "$KRDMA_ROOT/tests/lib/pyeval.py" --once "$1" "$_pe_in" "$3"
		return
	fi
	# The lock: made with noclobber (atomic); only the server removes it,
	# once the reply is read or its holder is gone.
	until (set -C && echo "$_pe_self" >"$PYEVAL_DIR/lock") 2>/dev/null; do
		sleep 0.02
	done
	printf '%s\n%s\n%s' "$1" "$_pe_in" "$3" >"$PYEVAL_DIR/req"
	echo go >"$PYEVAL_DIR/ctl"
	{
		read -r _pe_st
		read -r _pe_n
		while [ "${_pe_n:-0}" -gt 0 ] && IFS= read -r _pe_l; do
			printf '%s\n' "$_pe_l"
			_pe_n=$((_pe_n - 1))
		done
		while IFS= read -r _pe_l; do
			printf '%s\n' "$_pe_l" >&2
		done
	} <"$PYEVAL_DIR/rep"
	echo 'done' >"$PYEVAL_DIR/ctl"
	return "${_pe_st:-2}"
}

# _pyeval_file [TEXT]: TEXT, or without it this (sub)shell's stdin, in a
# file of this (sub)shell's, for _pyeval's INPUT; its name in $_pe_file.
_pyeval_file() {
	read -r _pf_self _pf_rest </proc/self/stat
	_pe_file=${PYEVAL_DIR:-/tmp}/in.$_pf_self
	if [ $# -eq 0 ]; then
		cat >"$_pe_file"
	else
		printf '%s' "$1" >"$_pe_file"
	fi
}

_pyeval_start

# json_check NAME "COMMAND" "PYTHON-EXPR over d": runs COMMAND (JSON
# output), records NAME ok if the expression is true; returns 1 if not.
json_check() {
	_jc_name=$1 _jc_cmd=$2 _jc_expr=$3
	_jc_out=$(sh -c "$_jc_cmd" 2>&1)
	_pyeval_file "$_jc_out"
	if _pyeval test "$_pe_file" "$_jc_expr"; then
		result "$_jc_name" ok
	else
		echo "--- $_jc_name: '$_jc_expr' is false for: $_jc_cmd"
		printf '%s\n' "$_jc_out"
		result "$_jc_name" fail
		return 1
	fi
}

# monitor_start FILE / monitor_stop: krdmactl monitor's events into
# FILE while a block runs (session_down carries the session's reason).
monitor_start() {
	krdmactl -j monitor >"$1" 2>"$1.err" &
	_mon=$!
	_evg=$(genlpy --family | json_get "d['groups']['events']")
	wait_for -t 20 nl_subscribed $_mon "${_evg:-99}" ||
		result "monitor.subscribed" fail
}
monitor_stop() {
	kill -INT $_mon
	wait $_mon
}

# no_sessions: this node (this netns) has no krdma session left.
no_sessions() {
	[ "$(krdmactl -j session show)" = "[]" ]
}

# rdma_netdev DEV: the network interface under RDMA device DEV's port 1.
rdma_netdev() {
	rdma link show "$1/1" | sed -n 's/.* netdev \([^ ]*\).*/\1/p'
}

# iwarp: the run's RDMA device is iWARP (KRDMA_RDMA=siw, tests/vm/README.md),
# which has no atomics and no immediate data: krdma refuses those ops.
iwarp() {
	[ "${KRDMA_RDMA:-rxe}" = siw ]
}

# no_data_errors NAME: every error counter of the module that a run with
# a well-behaved peer keeps at 0 is 0: no wrong data, no protocol error,
# no failed work request, no responder timed out on a silent driver. Not
# counted here: connect_errors, sessions_refused, mem_refused,
# pollers_refused and tests_failed, which tests cause on purpose and check
# where they do; qp_events, where a COMM_EST (a message before the CM's
# RTU) is normal.
no_data_errors() {
	json_check "$1" "krdmactl -j stats show" \
		"d['validation_errors'] == 0 and d['protocol_errors'] == 0 and d['wc_errors'] == 0 and d['responder_timeouts'] == 0"
}

# silence_report NAME: the longest this node waited for an answer of an
# alive peer (module-wide peer_silence_max), logged, and below what
# closes a session (peer_timeout_ms): how much of the keepalive's
# patience the run used.
silence_report() {
	_sr_limit=$(cat /sys/module/krdma/parameters/peer_timeout_ms)
	json_check "$1.peer_silence" "krdmactl -j stats show" \
		"0 <= d['peer_silence_max'] < $_sr_limit"
	log "$1: longest wait for the peer: $(krdmactl -j stats show | json_get "d['peer_silence_max']") ms"
}

# expect_fail_msg NAME REGEX CMD...: CMD must fail, and what it printed
# must match REGEX (grep -E).
expect_fail_msg() {
	_ef_name=$1 _ef_re=$2
	shift 2
	_ef_out=$("$@" 2>&1)
	_ef_rc=$?
	if [ $_ef_rc -ne 0 ] && printf '%s' "$_ef_out" | grep -Eq -- "$_ef_re"; then
		result "$_ef_name" ok "rc=$_ef_rc"
		printf '%s: %s\n' "$_ef_name" "$(printf '%s' "$_ef_out" | tail -n 1)"
	else
		echo "--- $_ef_name: expected failure matching /$_ef_re/ (rc=$_ef_rc):"
		printf '%s\n' "$_ef_out"
		result "$_ef_name" fail "rc=$_ef_rc"
	fi
}

# run_test NAME SESSION OP SIZE COUNT DEPTH: a test that must succeed with
# every iteration done and its data checked.
run_test() {
	_rt_name=$1
	_rt_out=$(krdmactl -j test run session "$2" op "$3" size "$4" count "$5" depth "$6" 2>&1)
	_rt_rc=$?
	_pyeval_file "$_rt_out"
	if [ $_rt_rc -eq 0 ] &&
		_pyeval test "$_pe_file" "r['status'] == 0 and r['iters'] == $5 and r['validated'] == $5"; then
		result "test.$_rt_name" ok
	else
		echo "--- test.$_rt_name failed (rc=$_rt_rc):"
		printf '%s\n' "$_rt_out"
		result "test.$_rt_name" fail "rc=$_rt_rc"
	fi
}

# ---- Generic Netlink without krdmactl, and other helpers ----

# genlpy ARGS...: tests/lib/genl.py (raw krdma requests; see its --help).
# Not "genl": that is iproute2's tool, which sh -c command strings get.
# (--listen goes on for a while: its own python, the server stays free.)
genlpy() {
	_gp_args='' _gp_in=-
	for _gp_a in "$@"; do
		case $_gp_a in
		--listen | *"
"*)
			python3 "$KRDMA_ROOT/tests/lib/genl.py" "$@"
			return
			;;
		--batch) _gp_in=stdin ;;
		esac
		_gp_args="$_gp_args$_gp_a
"
	done
	_pyeval genl "$_gp_in" "$_gp_args"
}

# genl_err NAME ERRNAME MSG-REGEX ATTR GENL-ARGS...: the raw request must
# fail with errno ERRNAME (e.g. ERANGE; "-": any) and an extended ACK
# message matching MSG-REGEX (python re.search; "." = any non-empty
# message; "" = no check).  ATTR: "-" no check; KRDMA_A_TEST_SIZE,
# KRDMA_ADDR_A_IPV4...: the error offset must point at that attribute;
# miss:KRDMA_A_TEST_ID: the kernel must report that attribute as missing.
genl_err() {
	_ge_name=$1 _ge_errno=$2 _ge_re=$3 _ge_attr=$4
	shift 4
	_ge_out=$(genlpy -j "$@" 2>&1)
	_ge_rc=$?
	_pyeval_file "$_ge_out"
	if [ $_ge_rc -eq 1 ] && _pyeval genl_err "$_pe_file" "$_ge_errno
$_ge_re
$_ge_attr"; then
		result "$_ge_name" ok
		printf '%s: %s\n' "$_ge_name" "$_ge_out"
	else
		echo "--- $_ge_name: expected error $_ge_errno /$_ge_re/ at $_ge_attr (rc=$_ge_rc) from genl.py $*:"
		printf '%s\n' "$_ge_out"
		result "$_ge_name" fail "rc=$_ge_rc"
	fi
}

# expect_rc_msg NAME RC REGEX CMD...: CMD must exit with status RC exactly
# and print (stdout and stderr) something matching REGEX (grep -E), or
# nothing at all if REGEX is empty.
expect_rc_msg() {
	_er_name=$1 _er_want=$2 _er_re=$3
	shift 3
	_er_out=$("$@" 2>&1)
	_er_rc=$?
	if [ $_er_rc -eq "$_er_want" ] && { if [ -z "$_er_re" ]; then [ -z "$_er_out" ]; else
		printf '%s' "$_er_out" | grep -Eq -- "$_er_re"; fi; }; then
		result "$_er_name" ok "rc=$_er_rc"
		printf '%s: %s\n' "$_er_name" "$(printf '%s' "$_er_out" | grep -E -m 1 -- "${_er_re:-^}")"
	else
		echo "--- $_er_name: expected exit $_er_want and output matching /$_er_re/ (rc=$_er_rc) from: $*"
		printf '%s\n' "$_er_out"
		result "$_er_name" fail "rc=$_er_rc"
	fi
}

# as_nobody CMD...: run CMD as uid/gid 65534 without supplementary groups
# ($NOBODY is the same prefix, for command strings run by sh -c).
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups --"
as_nobody() {
	$NOBODY "$@"
}

# sig_caught PID SIGNUM: true once process PID has a handler for SIGNUM.
sig_caught() {
	_sc_mask=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
	[ -n "$_sc_mask" ] && [ $(((0x$_sc_mask >> ($2 - 1)) & 1)) = 1 ]
}

# wait_exit PID SECONDS: wait until process PID (a child) has exited;
# returns 1 if it is still alive after SECONDS.
wait_exit() {
	_we_end=$(($(date +%s) + $2))
	while kill -0 "$1" 2>/dev/null; do
		# A zombie child counts as exited.
		case $(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null) in
		Z | '') return 0 ;;
		esac
		[ "$(date +%s)" -lt "$_we_end" ] || return 1
		sleep 0.2
	done
	return 0
}

# runner_ended NAME PID FILE PATTERN SECONDS: the background krdmactl PID,
# whose output goes to FILE, ends within SECONDS, failing, with PATTERN
# (the reason it was given) in its output; else it is killed.
runner_ended() {
	if wait_exit "$2" "$5"; then
		wait "$2"
		_re_rc=$?
		cat "$3"
		[ $_re_rc -ne 0 ] && grep -q "$4" "$3" &&
			result "$1" ok || result "$1" fail "rc=$_re_rc"
	else
		kill "$2"
		result "$1" fail "hung"
	fi
}

# nl_subscribed PID GROUP: true once a netlink socket of PID has joined
# multicast group GROUP (read from PID's own network namespace;
# /proc/net/netlink shows groups 1..32 only, a higher group counts once
# PID has two sockets).
nl_subscribed() {
	_ns_inodes=$(for _ns_fd in /proc/"$1"/fd/*; do
		readlink "$_ns_fd" 2>/dev/null; done |
		sed -n 's/^socket:\[\([0-9]*\)\]$/\1/p')
	[ -n "$_ns_inodes" ] || return 1
	if [ "$2" -gt 32 ]; then
		[ "$(printf '%s\n' $_ns_inodes | wc -l)" -ge 2 ]
		return
	fi
	awk -v inodes=" $(echo $_ns_inodes) " -v bit="$2" '
		NR > 1 && $2 == 16 && index(inodes, " " $10 " ") {
			g = 0; h = tolower($4)
			for (i = 1; i <= length(h); i++)
				g = g * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
			if (int(g / 2 ^ (bit - 1)) % 2) found = 1
		}
		END { exit !found }' "/proc/$1/net/netlink"
}

# json_get EXPR: evaluates the python expression EXPR over d, the JSON
# read from stdin, and prints it (nothing and status 1 if that fails).
json_get() {
	_pyeval print stdin "$1"
}

# rdma_totals: the rdma resource totals of every device, e.g.
# "cm_id=1 cq=2 mr=0 pd=2 qp=2".
rdma_totals() {
	rdma -j resource show 2>/dev/null | _rdma_totals_of_stdin
}
_rdma_totals_of_stdin() {
	_pyeval print stdin '" ".join("%s=%d" % (k, sum(e.get(k, 0) for e in d))
		for k in sorted({k for e in d for k in e if k in ("qp", "cq", "pd", "mr", "cm_id")}))'
}

# rdma_total RES: one of them (qp, cq, pd, mr or cm_id), a number.
rdma_total() {
	_rt=$(rdma_totals | tr ' ' '\n' | sed -n "s/^$1=//p")
	echo "${_rt:-0}"
}

# rdma_total_is RES N: for wait_for.
rdma_total_is() { [ "$(rdma_total "$1")" = "$2" ]; }

# test_progressing [ID]: test ID (without: any test) is running and has
# done iterations; for wait_for.
test_progressing() {
	krdmactl -j test show ${1:+"$1"} 2>/dev/null | _test_progressing_of_stdin
}
_test_progressing_of_stdin() {
	_pyeval test stdin 'any(t["state"] == "running" and t["iters"] > 0 for t in d)'
}

# ---- snapshots and their checks: tests/lib/krdma_json.py --------------------

# krdma_json COMMAND ARGS...: see tests/lib/krdma_json.py.
krdma_json() {
	_kj_args=
	for _kj_a in "$@"; do
		_kj_args="$_kj_args$_kj_a
"
	done
	# Only the commands that read stdin get it (others may run with a
	# terminal there, which would never end).
	case $1 in
	cqs-in | rc-qps | psn-snap | tcp-snap | tests-running) _kj_in=stdin ;;
	*) _kj_in=- ;;
	esac
	_pyeval krdma_json "$_kj_in" "$_kj_args"
}

# rdma_snap FILE: the rdma resource totals (all devices), the entries of
# each object list by owner, and how many of them krdma owns, as JSON.
rdma_snap() { krdma_json rdma-snap "$1"; }

# rdma_cmp BEFORE NOW MODE: MODE "same": everything equal to BEFORE;
# "unloaded": krdma owns nothing and the totals are BEFORE minus what krdma
# owned then; "no_queues": krdma owns no QP or CQ, and no MR beyond
# BEFORE's (a device's own: rxe's registration fence, kmod/mem.c);
# "no_more": no count of any kind above BEFORE's.
rdma_cmp() { krdma_json rdma-cmp "$1" "$2" "$3"; }

# rdma_show LABEL FILE: logs an rdma_snap.
rdma_show() { log "rdma $1: $(cat "$2")"; }

# cqs_in CTX: how many CQs of this node poll in CTX, the kernel's enum
# ib_poll_context name (SOFTIRQ, WORKQUEUE, ...). The RDMA core's own MAD
# CQ is counted too: compare counts.
cqs_in() { rdma -j resource show cq 2>/dev/null | krdma_json cqs-in "$1"; }

# rc_qps: how many RC QPs this node has.
rc_qps() { rdma -j resource show qp 2>/dev/null | krdma_json rc-qps; }

# psn_snap FILE: the send PSN of each RC QP, by QP number. iWARP has no
# PSNs: there each QP is a TCP connection (siw), and its KiB sent (ss -i),
# by its addresses, stand in (for 1 KiB packets).
psn_snap() {
	if iwarp; then
		# Without tcp_diag ss reads /proc/net/tcp: no bytes_sent.
		modprobe -q tcp_diag 2>/dev/null
		ss -tinH 2>/dev/null | krdma_json tcp-snap >"$1"
	else
		rdma -j resource show qp 2>/dev/null | krdma_json psn-snap >"$1"
	fi
}

# psn_moved NAME BEFORE AFTER NQPS MIN [ONLY]: at least NQPS QPs sent MIN
# packets or more between the two psn_snap files; with ONLY, no more than
# NQPS did.
psn_moved() {
	if _pm_out=$(krdma_json psn-moved "$2" "$3" "$4" "$5" ${6:+only} 2>&1); then
		result "$1" ok "$_pm_out"
	else
		echo "--- $1: not ${6:+exactly }$4 QPs sent $5 packets each: $_pm_out"
		result "$1" fail
	fi
}

# tests_running COUNT: COUNT krdma tests run, each past iteration 0.
tests_running() { krdmactl -j test show | krdma_json tests-running "$1"; }

# rate_plan FILE [WHAT]: the rate limit to test with, from FILE, the
# result of the same bw test run unlimited (krdma_json.py rate-plan):
# sets unl and rate (bytes/s: unlimited, and held to), mbps (the rate as
# krdmactl takes it), burst (messages a lane) and count (messages), and
# bps (a result's bytes/s, for json_check); logs the plan as WHAT.
rate_plan() {
	# shellcheck disable=SC2034 # the caller's variables
	read -r unl rate mbps burst count <<EOF
$(krdma_json rate-plan "$1")
EOF
	# shellcheck disable=SC2034 # the caller's variable
	bps="r['bytes'] * 1e9 / r['elapsed_ns']"
	log "${2:-rate}: unlimited ${unl:-?} B/s; held to ${rate:-?} B/s, bursts of ${burst:-?}, ${count:-?} counted"
}
