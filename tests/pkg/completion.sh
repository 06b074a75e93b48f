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
check "dev listener session test stats monitor version help" krdmactl ""
check "session stats" krdmactl s
check "connect del show help" krdmactl session ""
check "addr port name src timeout sq_depth rq_depth max_msg qps" krdmactl session connect ""
check "qps" krdmactl test run session s1 op write q
check "ping" krdmactl test run session s1 op pi
check "read" krdmactl -j test run session s1 op re
check "" krdmactl test run session ""
check "--json" krdmactl --j
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
