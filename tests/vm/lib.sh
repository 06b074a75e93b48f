# shellcheck shell=sh
# lib.sh - helpers for krdma guest test scripts (POSIX sh; source it):
#
#     . "$KRDMA_ROOT/tests/vm/lib.sh"
#
# Environment provided by the harness (see README.md): KRDMA_NODE (1..N),
# KRDMA_NODES, KRDMA_IP, KRDMA_PEER_IP (2 guests only), KRDMA_ROOT,
# KRDMA_OUT (directory shared by all guests and the host), KRDMA_DEADLINE
# (epoch seconds by which the script must be done).
#
# Functions:
#   result NAME ok|fail [key=value ...]
#       Append "RESULT node=<i> name=NAME ok=1|0 key=value ..." to
#       $KRDMA_OUT/node<i>.results (and echo it).  Any ok=0 fails the run.
#       Whitespace inside NAME and key=value words is replaced with '_'.
#       ok|fail also accepts 1|0, pass, true|false.  The guest's uptime
#       at each result goes to node<i>.results.times (a profile).
#   barrier NAME [TIMEOUT]
#       Wait until all KRDMA_NODES nodes have reached barrier NAME (default
#       timeout 120 s).  A name may be reused: each node counts its own
#       passes.  On timeout: message on stderr, a failed result
#       "barrier.NAME", return 1.
#   wait_for [-t TIMEOUT] [-i INTERVAL] CMD [ARGS...]
#       Poll CMD (output discarded) until it succeeds; default 60 s / 0.5 s.
#       Returns 0 on success, 1 on timeout.
#   expect_ok DESC CMD [ARGS...]
#   expect_fail DESC CMD [ARGS...]
#       Run CMD, record result DESC ok if it succeeded (expect_ok) / failed
#       (expect_fail), else a failed result with rc=; the command's output
#       is printed on a failed expectation.  Returns 0 iff as expected.
#   vm_crash
#       Stop this guest at once, as a power failure would: nothing more
#       reaches its peers (no CM disconnect). Its results so far count and
#       its script is recorded as having exited 0; the harness's own
#       unload check does not run for it.
#   node_ip I      print the IP address of node I (10.77.0.I)
#   log MSG...     print "[node<i> <uptime>] MSG" on stdout

: "${KRDMA_NODE:?lib.sh: KRDMA_NODE not set (not running under tests/vm/run.sh?)}"
: "${KRDMA_NODES:?lib.sh: KRDMA_NODES not set}"
: "${KRDMA_OUT:?lib.sh: KRDMA_OUT not set}"

KRDMA_RESULTS="$KRDMA_OUT/node$KRDMA_NODE.results"

log() {
	# shellcheck disable=SC2034
	read -r _krdma_up _krdma_rest </proc/uptime 2>/dev/null || _krdma_up='?'
	echo "[node$KRDMA_NODE $_krdma_up] $*"
}

node_ip() {
	echo "10.77.0.$1"
}

_krdma_word() {
	# tr only where there is whitespace: an exec costs ~0.1 s under TCG.
	case $1 in
	*[[:space:]]*) printf '%s' "$1" | tr -s ' \t\n\r' '____' ;;
	*) printf '%s' "$1" ;;
	esac
}

result() {
	if [ $# -lt 2 ]; then
		echo "result: usage: result NAME ok|fail [key=value ...]" >&2
		return 2
	fi
	_krdma_name=$(_krdma_word "$1")
	case $2 in
	ok | 1 | pass | true) _krdma_ok=1 ;;
	fail | 0 | false) _krdma_ok=0 ;;
	*)
		echo "result: bad status '$2' for $1 (use ok or fail); recording a failure" >&2
		_krdma_ok=0
		;;
	esac
	shift 2
	_krdma_line="RESULT node=$KRDMA_NODE name=$_krdma_name ok=$_krdma_ok"
	for _krdma_kv in "$@"; do
		_krdma_line="$_krdma_line $(_krdma_word "$_krdma_kv")"
	done
	echo "$_krdma_line" >>"$KRDMA_RESULTS"
	echo "$_krdma_line"
	# When, for a profile of the test (node<i>.results.times: uptime, name).
	read -r _krdma_up _krdma_rest </proc/uptime 2>/dev/null || _krdma_up='?'
	echo "$_krdma_up $_krdma_name" >>"$KRDMA_RESULTS.times"
}

wait_for() {
	_krdma_to=60
	_krdma_iv=0.5
	while [ $# -gt 0 ]; do
		case $1 in
		-t) _krdma_to=$2; shift 2 ;;
		-i) _krdma_iv=$2; shift 2 ;;
		--) shift; break ;;
		*) break ;;
		esac
	done
	if [ $# -eq 0 ]; then
		echo "wait_for: no command" >&2
		return 2
	fi
	_krdma_end=$(($(date +%s) + _krdma_to))
	while :; do
		"$@" >/dev/null 2>&1 && return 0
		[ "$(date +%s)" -lt "$_krdma_end" ] || break
		sleep "$_krdma_iv"
	done
	echo "wait_for: timed out after ${_krdma_to}s: $*" >&2
	return 1
}

barrier() {
	if [ $# -lt 1 ]; then
		echo "barrier: usage: barrier NAME [TIMEOUT]" >&2
		return 2
	fi
	_krdma_bname=$(printf '%s' "$1" | tr -c 'A-Za-z0-9_.-' '_')
	_krdma_bto=${2:-120}
	# Pass count of this node for this name (guest-local state).
	_krdma_bcnt="/tmp/.krdma-barrier.$_krdma_bname"
	_krdma_gen=$(($(cat "$_krdma_bcnt" 2>/dev/null || echo 0) + 1))
	echo "$_krdma_gen" >"$_krdma_bcnt"
	_krdma_bdir="$KRDMA_OUT/.barrier/$_krdma_bname.$_krdma_gen"
	mkdir -p "$_krdma_bdir"
	: >"$_krdma_bdir/node$KRDMA_NODE"
	_krdma_end=$(($(date +%s) + _krdma_bto))
	while :; do
		_krdma_n=0
		for _krdma_f in "$_krdma_bdir"/node*; do
			[ -e "$_krdma_f" ] && _krdma_n=$((_krdma_n + 1))
		done
		[ "$_krdma_n" -ge "$KRDMA_NODES" ] && return 0
		[ "$(date +%s)" -lt "$_krdma_end" ] || break
		sleep 0.2
	done
	echo "barrier: '$1' (pass $_krdma_gen) timed out after ${_krdma_bto}s: $_krdma_n of $KRDMA_NODES nodes arrived" >&2
	result "barrier.$_krdma_bname" fail "arrived=$_krdma_n" "nodes=$KRDMA_NODES"
	return 1
}

_krdma_expect() {
	_krdma_want=$1
	_krdma_desc=$2
	shift 2
	if [ $# -eq 0 ]; then
		echo "expect_*: usage: expect_ok|expect_fail DESC CMD [ARGS...]" >&2
		return 2
	fi
	_krdma_tmp=$(mktemp /tmp/krdma-expect.XXXXXX)
	"$@" >"$_krdma_tmp" 2>&1
	_krdma_rc=$?
	if { [ "$_krdma_want" = ok ] && [ "$_krdma_rc" -eq 0 ]; } ||
		{ [ "$_krdma_want" = fail ] && [ "$_krdma_rc" -ne 0 ]; }; then
		result "$_krdma_desc" ok "rc=$_krdma_rc"
		rm -f "$_krdma_tmp"
		return 0
	fi
	echo "--- expected $( [ "$_krdma_want" = ok ] && echo success || echo failure ) of: $* (rc=$_krdma_rc); output:"
	cat "$_krdma_tmp"
	echo "---"
	rm -f "$_krdma_tmp"
	result "$_krdma_desc" fail "rc=$_krdma_rc"
	return 1
}

expect_ok() { _krdma_expect ok "$@"; }
expect_fail() { _krdma_expect fail "$@"; }

# gid_index: the GID index of rxe0's IPv4 address (RoCEv2, IPv4-mapped),
# for tools that take one (ibv_rc_pingpong, perftest).
gid_index() {
	for g in /sys/class/infiniband/"${KRDMA_RDMA_DEV:-rxe0}"/ports/1/gids/*; do
		case $(cat "$g" 2>/dev/null) in
		0000:0000:0000:0000:0000:ffff:*) echo "${g##*/}"; return 0 ;;
		esac
	done
	return 1
}

vm_crash() {
	log "vm_crash: powering off now"
	dmesg >"$KRDMA_OUT/node$KRDMA_NODE.dmesg" 2>&1
	echo 0 >"$KRDMA_OUT/node$KRDMA_NODE.rc"
	sync
	echo o >/proc/sysrq-trigger
	# Power-off is asynchronous: do nothing more meanwhile.
	sleep 600
}
