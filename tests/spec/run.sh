#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# All the spec checks, no VM needed (python3-yaml, groff-base, a built or
# buildable tools/krdmactl):
#   check-header.py        header, netlink.c, kmod and CLI agree with the spec
#   test-check-header.sh   ... and that checker rejects broken copies
#   check-manpage.sh       the man page covers what krdmactl's help lists
#   check-generated.sh     kmod/netlink-gen.[ch] are what the spec renders
#                          to (scripts/spec-to-c.py)
#   check-abi-doc.sh       Documentation/netlink-abi.rst is what the spec
#                          renders to (scripts/spec-to-rst.py), and valid RST
# Ends with the sum, "N passed, M failed".

set -u
DIR=$(cd "$(dirname "$0")" && pwd)
pass=0
fail=0

# count OUTPUT: add its closing "N passed, M failed".
count() {
	local line p f
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' <<<"$1" | tail -n 1)
	if [ -z "$line" ]; then
		fail=$((fail + 1))
		return
	fi
	read -r p _ f _ <<<"$line"
	pass=$((pass + p))
	fail=$((fail + f))
}

echo "== check-header.py"
out=$(python3 "$DIR/check-header.py" 2>&1); rc=$?
echo "$out"
if [ "$rc" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi

echo "== test-check-header.sh"
out=$("$DIR/test-check-header.sh" 2>&1)
grep -v '^ok ' <<<"$out"
count "$out"

echo "== check-manpage.sh"
out=$("$DIR/check-manpage.sh" 2>&1)
echo "$out"
count "$out"

echo "== check-generated.sh"
out=$("$DIR/check-generated.sh" 2>&1)
grep -v '^ok ' <<<"$out"
count "$out"

echo "== check-abi-doc.sh"
out=$("$DIR/check-abi-doc.sh" 2>&1)
grep -v '^ok ' <<<"$out"
count "$out"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
