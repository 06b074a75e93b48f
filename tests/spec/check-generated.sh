#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Every file generated from Documentation/netlink/specs/krdma.yaml (the
# uAPI header, kmod/netlink-gen.[ch], krdmactl's tools/nl-gen.[ch],
# Documentation/netlink-abi.rst; the list is in scripts/spec-regen.sh) must
# be what its generator makes of the spec today: the header, the module's
# policies, ops table and groups, the CLI's reply policies, attribute
# lists and name tables and the ABI document come from the spec and nowhere
# else. Also proves
# the check can fail (a changed spec, a hand-edited file: each stale file
# reported with the command that regenerates it), and that the generator
# renders a changed check, flag or operation as expected.
#
# Usage: tests/spec/check-generated.sh      (ends with "N passed, M failed")
#   Regenerate: make regen   (scripts/spec-regen.sh)

# shellcheck disable=SC2001 # sed indents output
set -u

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
GEN="$TOP/scripts/spec-to-c.py"
REGEN="$TOP/scripts/spec-regen.sh"
SPEC="$TOP/Documentation/netlink/specs/krdma.yaml"

# The real files. spec-regen.sh prints one ok/FAIL line a file.
out=$("$REGEN" --check 2>&1); rc=$?
while IFS= read -r line; do
	case $line in
	"ok   "*) pass=$((pass + 1)); echo "$line" ;;
	"FAIL "*) fail=$((fail + 1)); echo "$line" ;;
	*) echo "$line" ;;
	esac
done <<<"$out"
[ "$rc" -le 1 ] || ko "spec-regen.sh --check: exit $rc"

# The check can fail. The files rendered from the spec under $TMP/top (so
# these cases do not depend on the tree being up to date), checked against
# edited specs (or edited themselves): spec-regen.sh --check must exit 1
# and name, for each stale file and only those, the command that
# regenerates it.
"$REGEN" --list >"$TMP/files"
while read -r f; do
	mkdir -p "$TMP/top/$(dirname "$f")"
	: >"$TMP/top/$f"
done <"$TMP/files"
"$REGEN" --spec "$SPEC" --top "$TMP/top" >/dev/null || ko "spec-regen.sh into $TMP/top failed"

# stale_case NAME SPEC WANT...: WANT are the files that must be reported.
stale_case() {
	local name=$1 spec=$2 out rc f
	shift 2
	out=$("$REGEN" --check --spec "$spec" --top "$TMP/top" 2>&1); rc=$?
	local bad=
	[ "$rc" -eq 1 ] || bad="exit $rc"
	while read -r f; do
		local cmd
		cmd=$(grep -F "$f|" "$REGEN" | cut -d'|' -f2)
		if printf '%s\n' "$@" | grep -qxF "$f"; then
			grep -qF "FAIL $f is not what the spec renders to; regenerate: $cmd > $f" <<<"$out" ||
				bad="$bad; $f not reported"
		else
			grep -qF "ok   $f " <<<"$out" || bad="$bad; $f reported"
		fi
	done <"$TMP/files"
	if [ -z "$bad" ]; then
		ok "stale: $name: reported $*"
	else
		ko "stale: $name: ${bad#; }:"
		sed 's/^/     /' <<<"$out" | head -n 30
	fi
}

sed -E '/name: depth-max$/,/value:/{s/^(    value: )128$/\164/}' "$SPEC" >"$TMP/const.yaml"
stale_case const-changed "$TMP/const.yaml" include/uapi/linux/krdma.h Documentation/netlink-abi.rst
sed -E 's/^(          max-len: )31$/\130/' "$SPEC" >"$TMP/check.yaml"
stale_case check-changed "$TMP/check.yaml" kmod/netlink-gen.c tools/nl-gen.c \
	Documentation/netlink-abi.rst
sed -E 's/^(      name: )stats-reset$/\1stats-clear/' "$SPEC" >"$TMP/op.yaml"
stale_case op-renamed "$TMP/op.yaml" include/uapi/linux/krdma.h kmod/netlink-gen.c \
	kmod/netlink-gen.h Documentation/netlink-abi.rst
sed '/^          - session-tos$/d' "$SPEC" >"$TMP/event.yaml"
stale_case event-attr-dropped "$TMP/event.yaml" tools/nl-gen.c tools/nl-gen.h \
	Documentation/netlink-abi.rst
sed -E '/name: test-interval-ms$/,/default:/{s/^(          default: )1000$/\12000/}' "$SPEC" \
	>"$TMP/default.yaml"
stale_case default-changed "$TMP/default.yaml" include/uapi/linux/krdma.h include/krdma_params.h \
	Documentation/netlink-abi.rst
sed -E '/name: test-qps$/,/modes:/{s/^(          modes: )bw$/\1bw, lat/}' "$SPEC" >"$TMP/modes.yaml"
stale_case modes-changed "$TMP/modes.yaml" include/uapi/linux/krdma.h include/krdma_params.h \
	kmod/netlink-gen.c \
	Documentation/netlink-abi.rst
sed -i 's/^\(#define KRDMA_QPS_MAX\t\).*$/\164/' "$TMP/top/include/uapi/linux/krdma.h"
stale_case header-hand-edited "$SPEC" include/uapi/linux/krdma.h
sed -i 's/^\(\t\[KRDMA_A_TEST_STATUS\] = { .type = NLA_\)S32, .minlen = 4 }/\1U32 }/' \
	"$TMP/top/tools/nl-gen.c"
stale_case cli-policy-hand-edited "$SPEC" include/uapi/linux/krdma.h tools/nl-gen.c

# spec_case NAME SED-EXPR WANT [MODE FILE]: the spec edited so renders a
# source that matches WANT (a Perl regex over the whole file) where
# today's does not; the module's kmod/netlink-gen.c (--source) unless
# MODE and FILE say another.
spec_case() {
	local name=$1 expr=$2 want=$3 mode=${4:---source} file=${5:-kmod/netlink-gen.c}
	sed -E "$expr" "$SPEC" >"$TMP/$name.yaml"
	if cmp -s "$SPEC" "$TMP/$name.yaml"; then
		ko "spec: $name: the edit changed nothing"
		return
	fi
	python3 "$GEN" "$mode" --spec "$TMP/$name.yaml" >"$TMP/$name.c" 2>&1
	if ! grep -Pzq -- "$want" "$TOP/$file" && grep -Pzq -- "$want" "$TMP/$name.c"; then
		ok "spec: $name renders /$want/ in $file"
	else
		ko "spec: $name: want /$want/ in the rendering of $file only:"
		diff -u "$TOP/$file" "$TMP/$name.c" | head -n 20 | sed 's/^/     /'
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
# krdmactl's side: a reply's string length (its NUL added), a binary's
# lengths, a reply's attribute list.
spec_case cli-name-len 's/^(          max-len: )31$/\130/' \
	'\[KRDMA_A_NAME\] = \{ \.type = NLA_STRING, \.maxlen = 30 \+ 1 \}' \
	--user-source tools/nl-gen.c
spec_case cli-ipv4-len '/name: ipv4$/,/exact-len:/{s/^(          exact-len: )4$/\15/}' \
	'\[KRDMA_ADDR_A_IPV4\] = \{ \.type = NLA_UNSPEC, \.minlen = 5, \.maxlen = 5 \}' \
	--user-source tools/nl-gen.c
spec_case cli-reply-attr '/name: version-get$/,/abi-version$/{s/^(            - )abi-version$/&\n\1dev-index/}' \
	'krdma_version_get_rsp_attrs\[3\] = \{\n\tKRDMA_A_VERSION,\n\tKRDMA_A_ABI_VERSION,\n\tKRDMA_A_DEV_INDEX,\n\}' \
	--user-source tools/nl-gen.c
# The names krdmactl prints: an enum's entry, a nested set's attribute,
# the enum an attribute's values are named from.
spec_case cli-enum-name 's/^(        name: )session-up$/\1session-start/' \
	'\[KRDMA_EVENT_SESSION_START\] = "session_start",' --user-source tools/nl-gen.c
spec_case cli-attr-name 's/^(        name: )qp-events$/\1qp-async-events/' \
	'\[KRDMA_STATS_A_QP_ASYNC_EVENTS\] = "qp_async_events",' --user-source tools/nl-gen.c
spec_case cli-attr-enum 's/^(        enum: )session-role$/\1session-state/' \
	'\[KRDMA_A_SESSION_ROLE\] = \{ krdma_session_state_strmap, 5 \},' --user-source tools/nl-gen.c
# The doc's keys: each default (per mode too) and each attribute's modes
# in the header both sides share, and the refusal naming them.
spec_case default-bw '/name: test-depth$/,/default:/{s/^(          default: 1; bw: )64$/\132/}' \
	'#define KRDMA_A_TEST_DEPTH_DEFAULT_BW\t32\n' --params include/krdma_params.h
spec_case modes-lat '/name: test-qps$/,/modes:/{s/^(          modes: )bw$/\1bw, lat/}' \
	'\.refusal\t= "qps is for the bw and lat modes"'
# A key the generator cannot read fails it, saying where.
bad_key() {
	local name=$1 expr=$2 want=$3 out
	sed -E "$expr" "$SPEC" >"$TMP/$name.yaml"
	if out=$(python3 "$GEN" --params --spec "$TMP/$name.yaml" 2>&1); then
		ko "bad key: $name: rendered"
	elif grep -qF -- "$want" <<<"$out"; then
		ok "bad key: $name: refused ($want)"
	else
		ko "bad key: $name: refused without '$want': $out"
	fi
}
bad_key default-capital 's/^(          )default: 1000$/\1Default: 1000/' 'must be lower case'
bad_key default-unknown 's/^(          default: )4096$/\1page-size/' "default 'page-size' is no number"
bad_key modes-unknown 's/^(          modes: )bw, lat$/\1bw, stream/' "modes: 'stream' is no test-mode"
bad_key default-mode-unknown 's/^(          default: 1; )bw(: 64)$/\1stream\2/' \
	"default for 'stream', no test-mode"

finish
