#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Runs every guest test (tests/guest/*.sh) in a fresh pair of QEMU guests,
# with the DMA ownership checker on. Prints KTAP (as kselftest does, so
# that prove or any CI reads it): one result per test, each after its
# guests' results as a subtest, and the progress and summary as "# "
# diagnostics. Exits non-zero if any test failed.
#
#   tests/run-guest-suite.sh [TEST...]     (default: all of tests/guest/)
#
# Env: KRDMA_SUITE_RUNNER (what runs one test: tests/vm/run.sh; the
# harness selftest gives a fake), KRDMA_SUITE_TIMEOUT (per test, seconds; 1500: hostile-peer alone takes
# over 800 s with other guests on the host), KRDMA_SUITE_OUT (where each
# test's output directory goes), KRDMA_SUITE_DEADLINE (epoch seconds: no
# test runs past it; .ci/run sets it short of CI's limit, so that a hung
# test fails with its log instead of CI being stopped without one), and
# what tests/vm/run.sh accepts.
set -u
here=$(cd "$(dirname "$0")" && pwd -P)
root=$(dirname "$here")
out=${KRDMA_SUITE_OUT:-$(mktemp -d /tmp/krdma-suite.XXXXXX)}
tmo=${KRDMA_SUITE_TIMEOUT:-1500}
runner=${KRDMA_SUITE_RUNNER:-$root/tests/vm/run.sh}
mkdir -p "$out"

if [ $# -eq 0 ]; then
	set -- "$here"/guest/*.sh
fi

# Every test runs with the ownership checker on, plus its own parameters.
export KRDMA_MODPARAMS="debug_dma=1${KRDMA_MODPARAMS:+ $KRDMA_MODPARAMS}"

# subtests LOG: the guests' RESULT lines of LOG as an indented KTAP
# subtest ("RESULT node=1 name=x ok=1 k=v" -> "ok 1 node1.x k=v").
subtests() {
	grep -E '^RESULT node=[0-9]+ name=[^ ]+ ok=[01]' "$1" 2>/dev/null | awk '
		{ n++; ok = ($4 == "ok=1"); node = substr($2, 6); nm = substr($3, 6)
		  rest = ""; for (i = 5; i <= NF; i++) rest = rest " " $i
		  line[n] = (ok ? "ok " : "not ok ") n " node" node "." nm (rest != "" ? " #" rest : "") }
		END { print "    KTAP version 1"; print "    1.." n
		      for (i = 1; i <= n; i++) print "    " line[i] }'
}

pass=0 fail=0 failed="" i=0 retried=0
start=$(date +%s)
echo "KTAP version 1"
echo "1..$#"
deadline=${KRDMA_SUITE_DEADLINE:-}
# test_tmo: the per-test timeout, cut to what is left before the deadline
# (0: nothing worth starting is left).
test_tmo() {
	if [ -z "$deadline" ]; then
		echo "$tmo"
		return
	fi
	left=$((deadline - $(date +%s)))
	if [ "$left" -lt 120 ]; then
		echo 0
	elif [ "$left" -lt "$tmo" ]; then
		echo "$left"
	else
		echo "$tmo"
	fi
}
for t in "$@"; do
	name=$(basename "$t" .sh)
	i=$((i + 1))
	echo "# suite: $name ..."
	t0=$(date +%s)
	ttmo=$(test_tmo)
	if [ "$ttmo" -eq 0 ]; then
		fail=$((fail + 1))
		failed="$failed $name"
		echo "# suite: $name NOT RUN: the suite's deadline (KRDMA_SUITE_DEADLINE) has passed"
		echo "not ok $i $name # not run: out of time"
		continue
	fi
	"$runner" -t "$ttmo" -o "$out/$name" "$t" >"$out/$name.log" 2>&1
	rc=$?
	# A guest that failed before krdma was even loaded, and nothing else
	# (tests/vm/run.sh exits 75 then): that run proves nothing either
	# way. Once, boot again, and say so in the KTAP output.
	if [ $rc -eq 75 ]; then
		why=$(tail -n 1 "$out/$name.log" | sed 's/^vm: FAIL (boot): //')
		retried=$((retried + 1))
		echo "# retried: $name: $why"
		echo "# suite: $name: a guest did not boot cleanly (a kernel report, a hang or a qemu crash before krdma was loaded; see $out/$name.boot1.log); running it again"
		mv "$out/$name.log" "$out/$name.boot1.log"
		mv "$out/$name" "$out/$name.boot1"
		ttmo=$(test_tmo)
		if [ "$ttmo" -gt 0 ]; then
			"$runner" -t "$ttmo" -o "$out/$name" "$t" >"$out/$name.log" 2>&1
			rc=$?
		else
			echo "vm: FAIL: not run again: the suite's deadline has passed" >>"$out/$name.log"
		fi
	fi
	subtests "$out/$name.log"
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1))
		echo "# suite: $name PASS ($(($(date +%s) - t0))s)"
		echo "ok $i $name"
	else
		fail=$((fail + 1))
		failed="$failed $name"
		echo "# suite: $name FAIL ($(($(date +%s) - t0))s); last lines of $out/$name.log:"
		tail -n 25 "$out/$name.log" | sed 's/^/#     /'
		echo "not ok $i $name"
	fi
done
echo "# suite: $pass passed, $fail failed, $retried retried after a bad boot, in $(($(date +%s) - start))s; output in $out"
[ "$fail" -eq 0 ] && exit 0
# Once more at the very end, where a CI log cut to its last lines shows
# it: what each failed test found (failed results, dmesg findings, a
# guest that did not finish).
for name in $failed; do
	echo "# suite: $name failed on:"
	grep -E '^RESULT .* ok=0( |$)|^vm: FAIL|:! ' "$out/$name.log" |
		head -n 20 | sed 's/^/#     /'
	# What a failed json_check saw: its expression and the JSON after it.
	cat "$out/$name"/node*.log 2>/dev/null | grep -A 1 -E "^--- [^ ]+: '" |
		head -n 12 | cut -c 1-1500 | sed 's/^/#     /'
done
echo "# suite: failed:$failed"
exit 1
