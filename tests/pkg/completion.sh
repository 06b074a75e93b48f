#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The bash completion offers the right words at each position.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd -P)
# bash-completion's helper, reduced to what _krdmactl uses.
_init_completion() {
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	words=("${COMP_WORDS[@]}")
	cword=$COMP_CWORD
}
complete() { :; }
# shellcheck source=/dev/null
. "$top/tools/completion/krdmactl"

pass=0 fail=0
check() {	# check "WANTED WORDS" word...
	local want=$1
	shift
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_krdmactl
	local got="${COMPREPLY[*]}"
	if [ "$got" = "$want" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: '$*' -> '$got', wanted '$want'"
	fi
}
check "dev listener session test stats monitor version ping compare help" krdmactl ""
check "session stats" krdmactl s
check "connect del show help" krdmactl session ""
check "addr port name src timeout sq_depth rq_depth max_msg qps" krdmactl session connect ""
check "qps" krdmactl test run session s1 op write q
check "ping" krdmactl test run session s1 op pi
check "read" krdmactl -j test run session s1 op re
check "--json" krdmactl --j
# Without the module nothing live is offered.
check "" krdmactl test run session ""
# Live names, from what "krdmactl OBJECT show" prints (a stand-in here).
krdmactl() {
	case "$1 $2" in
	"session show") printf 'session 1 name s1 peer 10.0.0.2:7471 up\nsession 2 name bulk peer 10.0.0.3:7471 up\n' ;;
	"listener show") printf 'listener 1 name main local *:7471\n' ;;
	"dev show") printf '1: rxe0 node_guid 5054:00ff:fe00:0001\n2: mlx5_0 node_guid 0000:0000:0000:0002\n' ;;
	*) return 1 ;;
	esac
}
check "s1 bulk" krdmactl test run session ""
check "bulk" krdmactl test start op write session b
check "name s1 bulk" krdmactl session del ""
check "s1" krdmactl session show name s
check "name main" krdmactl listener del ""
check "main" krdmactl listener show name ""
check "rxe0 mlx5_0" krdmactl dev show ""
check "" krdmactl dev show rxe0 ""
check "" krdmactl listener add name ""
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
