#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Checks the guest tests' JSON helpers (tests/lib/guest-common.sh) over
# their one python (tests/lib/pyeval.py), on the host, under dash as in
# the guests: each helper true where it must be, false where it must be,
# helpers piped into helpers, several subshells at once, a lock left by a
# killed client, the server's end with its shell, and the same answers
# without the server.
#
#   tests/lib/test-pyeval.sh      (part of make check-unit)
set -u
here=$(cd "$(dirname "$0")" && pwd -P)
KRDMA_ROOT=$(dirname "$(dirname "$here")")
KRDMA_OUT=$(mktemp -d /tmp/krdma-pyeval.XXXXXX)
KRDMA_NODE=1 KRDMA_NODES=1
export KRDMA_ROOT KRDMA_OUT KRDMA_NODE KRDMA_NODES
# shellcheck source=../vm/lib.sh
. "$KRDMA_ROOT/tests/vm/lib.sh"
# shellcheck source=guest-common.sh
. "$KRDMA_ROOT/tests/lib/guest-common.sh"

check() { # NAME: the last command's status, recorded
	if [ $? -eq 0 ]; then result "$1" ok; else result "$1" fail; fi
}

helpers() { # PREFIX: every helper, with or without the server
	p=$1
	json_check "$p.check_true" "echo '{\"a\": [1, 2]}'" "d['a'] == [1, 2]" >/dev/null
	# (the failures meant: their results go nowhere)
	out=$(KRDMA_RESULTS=/dev/null json_check "$p.x" "echo '{\"a\": 1}'" "d['a'] == 2")
	case $out in *"RESULT node=1 name=$p.x ok=0"*) true ;; *) false ;; esac
	check "$p.check_false"
	out=$(KRDMA_RESULTS=/dev/null json_check "$p.x" "echo not json" "True")
	case $out in *"ok=0"*) true ;; *) false ;; esac
	check "$p.check_bad_json"
	[ "$(echo '[1, 2, 3]' | json_get "sum(d)")" = 6 ]
	check "$p.get"
	[ "$(echo '{"x": "a b"}' | json_get "d['x']")" = "a b" ]
	check "$p.get_text"
	# A comprehension sees d (a global, as in a one-shot script).
	[ "$(echo '[1, 2]' | json_get "[x * y for x in d for y in d]")" = "[1, 2, 2, 4]" ]
	check "$p.get_comprehension"
	! echo '{}' | json_get "d['missing']" >/dev/null
	check "$p.get_fails"
	echo '[{"qp": 2, "cq": 3}, {"qp": 1, "pd": 4, "ifname": "x"}]' >"$KRDMA_OUT/res.json"
	[ "$(_rdma_totals_of_stdin <"$KRDMA_OUT/res.json")" = "cq=3 pd=4 qp=3" ]
	check "$p.totals"
	echo '[{"state": "running", "iters": 3}]' | _test_progressing_of_stdin
	check "$p.progressing"
	! echo '[{"state": "running", "iters": 0}]' | _test_progressing_of_stdin
	check "$p.not_progressing"
	[ "$(echo '[{"type": "RC"}, {"type": "UD"}, {"type": "RC"}]' |
		krdma_json rc-qps)" = 2 ]
	check "$p.krdma_json"
	err=$(krdma_json rdma-cmp /nonexistent /nonexistent same 2>&1 >/dev/null)
	[ $? -eq 2 ] && case $err in *"krdma_json rdma-cmp"*) true ;; *) false ;; esac
	check "$p.krdma_json_error"
	out=$(printf '{"schema_version": 3, "results": [{"status": 0, "iters": 4, "validated": 4}], "env": {}}' >"$KRDMA_OUT/rt.json"
		krdmactl() { cat "$KRDMA_OUT/rt.json"; }
		run_test x s write 64 4 1)
	case $out in *"name=test.x ok=1"*) true ;; *) false ;; esac
	check "$p.run_test"
	# r is a one-size run's one result: not in the older shape's record.
	out=$(printf '{"schema_version": 2, "status": 0, "iters": 4, "validated": 4}' >"$KRDMA_OUT/rt.json"
		krdmactl() { cat "$KRDMA_OUT/rt.json"; }
		KRDMA_RESULTS=/dev/null run_test x s write 64 4 1)
	case $out in *"name=test.x ok=0"*) true ;; *) false ;; esac
	check "$p.run_test_old_shape"
	# genl.py in the server: its output, and its status (no krdma family
	# on the host: a local error, 2).
	genlpy --help | grep -q 'Generic Netlink'
	check "$p.genl_help"
	err=$(genlpy --spec /nonexistent VERSION_GET 2>&1 >/dev/null)
	[ $? -eq 2 ] && case $err in *"cannot read the spec"*) true ;; *) false ;; esac
	check "$p.genl_error"
	# genl_err over a made-up error: the right one, then a wrong attribute.
	out=$(genlpy() {
		echo '{"error": 22, "errname": "EINVAL", "msg": "name must not be all digits",' \
			'"attr": "KRDMA_A_NAME", "miss_type": null}'
		return 1
	}
		genl_err x EINVAL "all digits" KRDMA_A_NAME NAME=1
		KRDMA_RESULTS=/dev/null genl_err y EINVAL "all digits" KRDMA_A_PORT NAME=1
		KRDMA_RESULTS=/dev/null genl_err z ERANGE "" - NAME=1)
	case $out in *"name=x ok=1"*"name=y ok=0"*"name=z ok=0"*) true ;; *) false ;; esac
	check "$p.genl_err"
	# Helpers piped into helpers, the first printing more than a pipe
	# holds (64 KiB): each needs the server in turn.
	[ "$(echo '[{"type": "RC", "lqpn": 7, "sq-psn": 9}]' | krdma_json psn-snap |
		json_get "d['7']")" = 9 ]
	check "$p.pipeline"
	[ "$(echo 30000 | json_get "json.dumps(list(range(d)))" | json_get "len(d)")" = 30000 ]
	check "$p.pipeline_big"
}

[ -n "${PYEVAL_PID:-}" ] && [ -d "/proc/$PYEVAL_PID" ]
check server.started
helpers served

# Four subshells at once, five requests each: every answer its own.
for i in 1 2 3 4; do
	(for j in 1 2 3 4 5; do
		v=$(echo "[$i, $j]" | json_get "d[0] * 10 + d[1]")
		[ "$v" = "$i$j" ] || echo "wrong: $i $j -> '$v'"
	done) >"$KRDMA_OUT/conc.$i" &
done
wait
! cat "$KRDMA_OUT"/conc.* | grep -q wrong
check served.concurrent

# A lock whose holder was killed is passed over.
echo 999999999 >"$PYEVAL_DIR/lock"
[ "$(echo 5 | json_get "d + 1")" = 6 ]
check served.stale_lock

# Without the server: the same answers, one python each.
served_pid=$PYEVAL_PID
PYEVAL_PID=''
helpers once
PYEVAL_PID=$served_pid

# The server ends when the shell that started it does.
sh -c '. "$KRDMA_ROOT/tests/vm/lib.sh"; . "$KRDMA_ROOT/tests/lib/guest-common.sh"
	echo "$PYEVAL_PID" >"$KRDMA_OUT/child.pid"' >/dev/null
read -r child <"$KRDMA_OUT/child.pid"
n=0
while [ -n "$child" ] && [ -d "/proc/$child" ] && [ $n -lt 50 ]; do
	sleep 0.1
	n=$((n + 1))
done
[ -n "$child" ] && [ ! -d "/proc/$child" ]
check server.ends_with_shell

fails=$(grep -c ' ok=0' "$KRDMA_RESULTS")
total=$(grep -c . "$KRDMA_RESULTS")
echo "test-pyeval: $((total - fails)) passed, $fails failed"
if [ "$fails" -eq 0 ]; then rm -rf "$KRDMA_OUT"; else echo "test-pyeval: see $KRDMA_OUT"; fi
[ "$fails" -eq 0 ]
