#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The files generated from the YNL spec, Documentation/netlink/specs/krdma.yaml,
# and the command that makes each: the one list `make regen` writes and
# `make check-spec` checks.
#
#   scripts/spec-regen.sh                 rewrite every generated file
#   scripts/spec-regen.sh --check         diff each with what its generator
#                                         makes now; exit 1 on a difference,
#                                         naming the command that regenerates
#   scripts/spec-regen.sh --check --spec S --top DIR
#                                         the same for spec S against the
#                                         files under DIR (for the tests)
#   scripts/spec-regen.sh --list          the files, one a line

# shellcheck disable=SC2001 # sed indents the diff
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
GENTOP=$TOP
mode='write'
spec=
while [ $# -gt 0 ]; do
	case $1 in
	--check) mode=check ;;
	--list) mode=list ;;
	--spec) spec=$2; shift ;;
	--top) GENTOP=$2; shift ;;
	*) echo "usage: $0 [--check] [--spec SPEC] [--top DIR] | --list" >&2; exit 2 ;;
	esac
	shift
done

# FILE|GENERATOR ARGS, relative to the top of the tree.
GENERATED='include/uapi/linux/krdma.h|scripts/spec-to-c.py --uapi
kmod/netlink-gen.c|scripts/spec-to-c.py --source
kmod/netlink-gen.h|scripts/spec-to-c.py --header
tools/nl-gen.c|scripts/spec-to-c.py --user-source
tools/nl-gen.h|scripts/spec-to-c.py --user-header
include/krdma_params.h|scripts/spec-to-c.py --params
Documentation/netlink-abi.rst|scripts/spec-to-rst.py
'

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
rc=0
while IFS='|' read -r file cmd; do
	[ -n "$file" ] || continue
	if [ "$mode" = list ]; then
		echo "$file"
		continue
	fi
	read -r gen args <<<"$cmd"
	# spec-to-c.py takes the spec as --spec, spec-to-rst.py as its argument.
	sarg=()
	if [ -n "$spec" ]; then
		case $gen in
		*spec-to-c.py) sarg=(--spec "$spec") ;;
		*) sarg=("$spec") ;;
		esac
	fi
	# shellcheck disable=SC2086 # args are words
	if ! python3 "$TOP/$gen" $args "${sarg[@]}" >"$TMP/out" 2>"$TMP/err"; then
		echo "spec-regen: '$cmd' failed:" >&2
		sed 's/^/    /' "$TMP/err" >&2
		rc=2
		continue
	fi
	if [ "$mode" = write ]; then
		# A new file renamed over the old: a reader (a guest test reads the
		# header) sees one or the other, never half of it.
		cmp -s "$TMP/out" "$GENTOP/$file" || {
			cp "$TMP/out" "$GENTOP/$file.regen" && mv "$GENTOP/$file.regen" "$GENTOP/$file" &&
				echo "regenerated $file"
		}
	elif diff -u --label "$file" --label "$file (from the spec)" "$GENTOP/$file" "$TMP/out" \
		>"$TMP/diff" 2>&1; then
		echo "ok   $file is what the spec renders to"
	else
		echo "FAIL $file is not what the spec renders to; regenerate: $cmd > $file  (or: make regen)"
		head -n 30 "$TMP/diff" | sed 's/^/     /'
		[ "$rc" -eq 0 ] && rc=1
	fi
done <<<"$GENERATED"
exit "$rc"
