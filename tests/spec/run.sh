#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# All the spec checks, no VM needed (python3-yaml, groff-base, a built or
# buildable tools/krdmactl):
#   check-generated.sh     every file generated from the spec (uapi header,
#                          kmod/netlink-gen.[ch], tools/nl-gen.[ch],
#                          netlink-abi.rst) is what its generator makes of
#                          it now (make regen rewrites them), and that
#                          check can fail
#   check-code.py          netlink.c, kmod's puts and the CLI's policies
#                          agree with the spec; genl.py reads the spec as
#                          the header has it; the spec's references hold
#   test-check-code.sh     ... and that checker rejects broken copies
#   check-ynl-schema.py    the spec is valid against the kernel's YNL schema
#                          of genetlink-legacy, from linux-source-6.12
#                          (skipped, saying so, without the schema or
#                          python3-jsonschema)
#   check-manpage.sh       the man page covers what krdmactl's help lists
#   check-abi-doc.sh       the spec-to-rst.py rendering: valid RST, and it
#                          shows a change of the spec
#   check-modparams.sh     design.rst's "Module parameters" names every
#                          module_param of kmod/, and no other
#   check-ci.sh            testing.rst's "What CI runs" lists exactly the
#                          test steps of .ci/run
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

echo "== check-generated.sh"
out=$("$DIR/check-generated.sh" 2>&1)
grep -v '^ok ' <<<"$out"
count "$out"

echo "== check-code.py"
out=$(python3 "$DIR/check-code.py" 2>&1); rc=$?
echo "$out"
if [ "$rc" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi

echo "== test-check-code.sh"
out=$("$DIR/test-check-code.sh" 2>&1)
grep -v '^ok ' <<<"$out"
count "$out"

echo "== check-ynl-schema.py"
out=$(python3 "$DIR/check-ynl-schema.py" 2>&1)
echo "$out"
count "$out"

echo "== check-manpage.sh"
out=$("$DIR/check-manpage.sh" 2>&1)
echo "$out"
count "$out"

echo "== check-abi-doc.sh"
out=$("$DIR/check-abi-doc.sh" 2>&1)
grep -v '^ok ' <<<"$out"
count "$out"

echo "== check-modparams.sh"
out=$("$DIR/check-modparams.sh" 2>&1)
echo "$out"
count "$out"

echo "== check-ci.sh"
out=$("$DIR/check-ci.sh" 2>&1)
echo "$out"
count "$out"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
