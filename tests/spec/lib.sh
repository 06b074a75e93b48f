# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# shellcheck shell=bash
#
# The frame of every tests/spec check, sourced first: TOP (the tree),
# TMP (scratch, removed on exit), ok and ko (one check passed or failed)
# and finish, which prints the "N passed, M failed" that run.sh adds up
# and exits with the verdict.

# shellcheck disable=SC2034 # TOP and TMP are the sourcing script's
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

pass=0
fail=0

ok() { pass=$((pass + 1)); echo "ok   $*"; }
ko() { fail=$((fail + 1)); echo "FAIL $*"; }

finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}
