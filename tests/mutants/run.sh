#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# make check-mutants: does the suite notice when the module is wrong?
# Each tests/mutants/NAME.diff is a small deliberate breakage of kmod/
# ("Mutant:" says what) and names the guest tests that must notice it
# ("Caught-by:"; "Env:" lines set what those tests read, e.g. fewer
# rounds). For each: a copy of the tree with the patch applied is
# built and those tests run on it in guests; the mutant is caught when at
# least one of them fails. A mutant that every test passes survived: the
# suite has a hole there, and this run fails. So does a patch that no
# longer applies or builds (the code moved: refresh the mutant).
#
#   tests/mutants/run.sh [NAME...]      (default: every mutant)
#   tests/mutants/run.sh --applies      every patch still applies to the
#                                       tree (make check-unit, in CI: two
#                                       went stale unseen once)
#
# Env: KERNEL / KVER (the guest kernel, as for make check-vm; the
# Makefile sets both), KRDMA_MUTANT_WORK (where the copies go;
# /var/tmp/krdma-mutants), and what tests/run-guest-suite.sh accepts.
# Not in CI: a boot of the guests and a build per mutant (on a 2-core
# host about 15 minutes for the six).
set -u
here=$(cd "$(dirname "$0")" && pwd -P)
top=$(cd "$here/../.." && pwd -P)
work=${KRDMA_MUTANT_WORK:-/var/tmp/krdma-mutants}
kver=${KVER:-${KERNEL:-}}

if [ "${1:-}" = --applies ]; then
	stale=0
	for m in "$here"/*.diff; do
		if (cd "$top" && patch -s -p1 --dry-run <"$m" >/dev/null); then
			echo "mutants: $(basename "$m" .diff): applies"
		else
			echo "mutants: $(basename "$m" .diff): STALE: the patch no longer applies (refresh it)"
			stale=$((stale + 1))
		fi
	done
	[ $stale -eq 0 ]
	exit
fi

if [ $# -eq 0 ]; then
	for m in "$here"/*.diff; do
		set -- "$@" "$(basename "$m" .diff)"
	done
fi

# first_failure LOG: the first thing LOG says went wrong, on one line.
first_failure() {
	grep -a -m 1 -E '^RESULT .* ok=0( |$)|^vm: FAIL' "$1" | cut -c 1-200
}

caught=0 survived=0 broken=0 summary=""
for name; do
	patch=$here/$name.diff
	if [ ! -f "$patch" ]; then
		echo "mutants: no mutant '$name' (tests/mutants/*.diff)" >&2
		exit 2
	fi
	what=$(sed -n 's/^Mutant: //p' "$patch")
	tests=$(sed -n 's/^Caught-by: //p' "$patch")
	# "Env: VAR=VALUE" lines: what the tests need to fail soon (a test
	# that waits out its bounds for every round costs a boot's worth).
	envs=$(sed -n 's/^Env: //p' "$patch")
	echo "mutants: $name: $what"
	copy=$work/$name
	rm -rf "$copy"
	mkdir -p "$copy"
	git -C "$top" ls-files -z | (cd "$top" && xargs -0 tar -cf -) | tar -C "$copy" -xf -
	if ! (cd "$copy" && patch -s -p1 <"$patch"); then
		echo "mutants: $name: BROKEN: the patch no longer applies (refresh it)"
		broken=$((broken + 1))
		summary="$summary
  $name: broken (does not apply)"
		continue
	fi
	if ! make -C "$copy" ${kver:+KVER=$kver} all hostile >"$copy.build.log" 2>&1; then
		tail -n 20 "$copy.build.log"
		echo "mutants: $name: BROKEN: does not build ($copy.build.log)"
		broken=$((broken + 1))
		summary="$summary
  $name: broken (does not build)"
		continue
	fi
	by=""
	for t in $tests; do
		out=$copy/suite
		(
			IFS='
'
			for e in $envs; do
				export "${e?}"
			done
			KRDMA_SUITE_OUT=$out "$copy/tests/run-guest-suite.sh" \
				"$copy/tests/guest/$t.sh" >"$copy.$t.ktap" 2>&1
		)
		if [ $? -ne 0 ]; then
			by="$by $t"
			echo "mutants: $name: caught by $t: $(first_failure "$out/$t.log")"
		else
			echo "mutants: $name: $t passed"
		fi
	done
	if [ -n "$by" ]; then
		caught=$((caught + 1))
		summary="$summary
  $name: caught by$by"
	else
		survived=$((survived + 1))
		summary="$summary
  $name: SURVIVED $tests"
	fi
done
echo "mutants: $caught caught, $survived survived, $broken broken:$summary"
[ $survived -eq 0 ] && [ $broken -eq 0 ]
