#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The bash completion offers the right words at each position. What is
# right is read from krdmactl's own help (made from the tables its parser
# uses), not written here: a keyword added to a command must be completed
# without this file changing.
#
#   KRDMACTL=path  the krdmactl to complete (default tools/krdmactl,
#                  built if missing); no module needed, none is asked.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd -P)
KRDMACTL=${KRDMACTL:-$top/tools/krdmactl}
if [ ! -x "$KRDMACTL" ]; then
	make -s -C "$top/tools" >/dev/null || exit 1
fi
# The completion runs "${words[0]}", i.e. "krdmactl".
krdmactl() { "$KRDMACTL" "$@"; }

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
# check "WANTED WORDS" word...: the candidates, sorted, are those.
check() {
	local want got
	want=$(tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort -u | tr '\n' ' ')
	shift
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_krdmactl
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort -u | tr '\n' ' ')
	if [ "$got" = "$want" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: '$*' -> '$got', wanted '$want'"
	fi
}

# The keywords of one usage line of "krdmactl OBJ help": its lower-case
# words (values are upper case), continuation lines joined.
usage_keywords() {	# OBJ [CMD]
	krdmactl "$1" help | sed 's/^Usage://; s/^ *//' | awk -v obj="$1" -v cmd="${2:-}" '
		/^krdmactl / { take = ($2 == obj && $3 != "help" && (cmd == "" || $3 == cmd)); if (take) { $1 = $2 = ""; if (cmd != "") $3 = ""; print } next }
		/^[[{]/ && take { print; next }
		{ take = 0 }' |
		grep -oE '(^|[ [{|])[a-z][a-z_]*' | tr -d ' [{|' | sort -u | tr '\n' ' '
}

# ---- objects, commands, options: from "krdmactl help" ----
objects=$(krdmactl help | sed -n 's/.*OBJECT := {\(.*\)}.*/\1/p' | tr -d '|')
[ -n "$objects" ] || { echo "FAIL: no OBJECT list in krdmactl help"; exit 1; }
check "$objects help" krdmactl ""
check "$(tr ' ' '\n' <<<"$objects" | grep '^s')" krdmactl s
options=$(krdmactl help | sed -n 's/^ *\(-[[:alnum:]]\), \(--[[:alnum:]-]*\) .*/\1 \2/p' | tr '\n' ' ')
check "$options" krdmactl -
check "--json" krdmactl --j
# "help OBJECT", which prints what "OBJECT help" does
check "$objects" krdmactl help ""
check "test" krdmactl -j help t
if [ "$(krdmactl help test)" = "$(krdmactl test help)" ]; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
	echo "FAIL: krdmactl help test is not krdmactl test help"
fi

# ---- every command's keywords, as its usage line names them ----
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# In an empty directory: compare's FILE completes none.
cd "$tmp" || exit 1
for obj in $objects; do
	# The commands, each on a line of its own with its description
	# ("  show     list ..."): a keyword opening the synopsis of an
	# object without commands ("krdmactl conform session ...") is none.
	cmds=$(krdmactl "$obj" help | sed -n 's/^ *\(Usage:\)\? *krdmactl [^ ]* \([a-z][a-z_]*\).*/\2/p' |
	       grep -vx help | sort -u |
	       while read -r c; do krdmactl "$obj" help | grep -q "^  $c  " && echo "$c"; done)
	if [ -z "$cmds" ]; then
		check "$(usage_keywords "$obj")" krdmactl "$obj" ""
		continue
	fi
	check "$(echo $cmds) help" krdmactl "$obj" ""
	for cmd in $cmds; do
		check "$(usage_keywords "$obj" "$cmd")" krdmactl "$obj" "$cmd" ""
	done
done
# A keyword given is offered no more; a group's other members neither.
# An ADDR:PORT has its port: no port keyword after it.
check "$(usage_keywords session connect | tr ' ' '\n' | grep -vx 'addr\|name\|port')" \
	krdmactl session connect addr 10.0.0.2:7471 name s1 ""
check "$(usage_keywords session connect | tr ' ' '\n' | grep -vx 'addr\|name')" \
	krdmactl session connect addr 10.0.0.2 name s1 ""
check "$(usage_keywords ping | tr ' ' '\n' | grep -vx 'port')" krdmactl ping 10.0.0.2:7471 ""
check "$(usage_keywords ping)" krdmactl ping 10.0.0.2 ""
check "" krdmactl test run addr hostA:7471 op write po
check "port" krdmactl test run addr hostA op write po
check "duration depth" krdmactl -j test run session s1 op write d
check "depth" krdmactl test run session s1 op write count 10 d

# ---- values: ops and modes from the help's lists, units ----
ops=$(krdmactl test help | tr '\n' ' ' | sed -n 's/.*OP := {\([^}]*\)}.*/\1/p' | tr -d '|')
modes=$(krdmactl test help | sed -n 's/^MODE := {\(.*\)}.*/\1/p' | tr -d '|')
[ -n "$ops" ] && [ -n "$modes" ] || { echo "FAIL: no OP or MODE list in krdmactl test help"; exit 1; }
check "$ops" krdmactl test run session s1 op ""
check "read" krdmactl -j test run session s1 op re
check "$modes" krdmactl test start session s1 op write mode ""
check "10MB/s 10GB/s 10MiB/s 10GiB/s 10Mb/s 10Gb/s 10pps 10kpps 10Mpps" \
	krdmactl test run addr hostA op write mode bw rate 10
check "10GB/s 10GiB/s 10Gb/s" krdmactl test run session s1 op write rate 10G
check "5ms 5s 5m 5h" krdmactl test run session s1 op write duration 5
check "2K 2M 2G" krdmactl test run session s1 op write size 2
check "10k 10M 10G" krdmactl ping 10.0.0.2:7471 count 10
# expect's metrics (the unit test complete_values checks them all)
check "p50 p90 p99 p99.9" krdmactl test run session s1 op send mode lat expect p
check "min_qp_bw msg_rate max" krdmactl test run session s1 op write mode bw expect m
# conform's cases, from its own list, and "list"
cases=$(krdmactl conform session s1 case list | sed 1d | awk '{ print $1 }' | tr '\n' ' ')
[ -n "$cases" ] || { echo "FAIL: no cases in krdmactl conform session s1 case list"; exit 1; }
check "$cases list" krdmactl conform session s1 case ""
check "$(tr ' ' '\n' <<<"$cases" | grep '^write\.mtu')" krdmactl conform session s1 case write.mtu
check "case" krdmactl conform session s1 ""

# ---- files after compare ----
touch base.json today.json
check "base.json today.json result baseline tolerance" krdmactl compare ""
check "base.json" krdmactl compare today.json baseline b

# ---- live names: none without the module, and no error shown ----
check "" krdmactl test run session ""
check "name" krdmactl session del ""
check "" krdmactl dev show ""

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
