#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# kmod/netlink-gen.c and kmod/netlink-gen.h must be what
# scripts/spec-to-c.py renders from Documentation/netlink/specs/krdma.yaml
# today: the module's policies, ops table and groups come from the spec
# and nowhere else. Also proves the check can fail: a spec with a check, a
# flag or an operation changed must render differently, and the change
# must be the one expected.
#
# Usage: tests/spec/check-generated.sh      (ends with "N passed, M failed")
#   Regenerate: scripts/spec-to-c.py --source > kmod/netlink-gen.c
#               scripts/spec-to-c.py --header > kmod/netlink-gen.h

# shellcheck disable=SC2001 # sed indents output
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
GEN="$TOP/scripts/spec-to-c.py"
SPEC="$TOP/Documentation/netlink/specs/krdma.yaml"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
ko() { fail=$((fail + 1)); echo "FAIL $*"; }

for kind in source header; do
	case $kind in
	source) file=$TOP/kmod/netlink-gen.c ;;
	header) file=$TOP/kmod/netlink-gen.h ;;
	esac
	if ! python3 "$GEN" --"$kind" >"$TMP/$kind" 2>"$TMP/err"; then
		ko "spec-to-c.py --$kind failed:"
		sed 's/^/     /' "$TMP/err"
	elif diff -u "$file" "$TMP/$kind" >"$TMP/diff"; then
		ok "${file#"$TOP"/} is what the spec renders to"
	else
		ko "${file#"$TOP"/} is out of date; regenerate: scripts/spec-to-c.py --$kind > ${file#"$TOP"/}"
		head -n 40 "$TMP/diff" | sed 's/^/     /'
	fi
done

# spec_case NAME SED-EXPR WANT: the spec edited so renders a source that
# matches WANT (a Perl regex over the whole file) where today's does not.
spec_case() {
	local name=$1 expr=$2 want=$3
	sed -E "$expr" "$SPEC" >"$TMP/$name.yaml"
	if cmp -s "$SPEC" "$TMP/$name.yaml"; then
		ko "spec: $name: the edit changed nothing"
		return
	fi
	python3 "$GEN" --source --spec "$TMP/$name.yaml" >"$TMP/$name.c" 2>&1
	if ! grep -Pzq -- "$want" "$TOP/kmod/netlink-gen.c" && grep -Pzq -- "$want" "$TMP/$name.c"; then
		ok "spec: $name renders /$want/"
	else
		ko "spec: $name: want /$want/ in the rendering only:"
		diff -u "$TOP/kmod/netlink-gen.c" "$TMP/$name.c" | head -n 20 | sed 's/^/     /'
	fi
}

spec_case name-len 's/^(          max-len: )31$/\130/' \
	'\[KRDMA_A_NAME\] = \{ \.type = NLA_NUL_STRING, \.len = 30, \}'
spec_case depth-min '/name: test-depth$/,/max:/{s/^(          min: )1$/\12/}' \
	'\[KRDMA_A_TEST_DEPTH\] = NLA_POLICY_RANGE\(NLA_U32, 2, KRDMA_DEPTH_MAX\)'
spec_case admin-perm-added '/name: stats-get$/a\      flags: [admin-perm]' \
	'KRDMA_CMD_STATS_GET,\n[^}]*GENL_ADMIN_PERM'
spec_case wide-range '/name: test-bidir$/,/max:/{s/^(          max: )1$/\140000/}' \
	'NLA_POLICY_FULL_RANGE\(NLA_U8, &krdma_a_test_bidir_range\)'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
