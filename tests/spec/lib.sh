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

# set_diff HAVE WANT MISSING EXTRA SEP: two sorted lists, one item a line
# (files); prints "MISSING: ..." for the items of HAVE not in WANT and
# "EXTRA: ..." for those of WANT not in HAVE, joined by SEP; true if the
# lists are the same.
set_diff() {
	local missing extra
	# Read once each: they may be pipes (<(...)).
	cat "$1" >"$TMP/.have"
	cat "$2" >"$TMP/.want"
	missing=$(comm -23 "$TMP/.have" "$TMP/.want")
	extra=$(comm -13 "$TMP/.have" "$TMP/.want")
	[ -z "$missing" ] || echo "$3: $(echo "$missing" | tr '\n' "$5")"
	[ -z "$extra" ] || echo "$4: $(echo "$extra" | tr '\n' "$5")"
	[ -z "$missing$extra" ]
}

finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}
