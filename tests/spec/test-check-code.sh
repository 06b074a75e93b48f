#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Proves tests/spec/check-code.py can fail: it accepts the real files, and
# rejects copies of kmod/netlink.c, the spec, a module source, the CLI's
# policies or the uAPI header with one thing renamed, removed or added,
# naming the item in its output. (The generated files are checked by regenerating them:
# tests/spec/check-generated.sh.)
#
# Usage: tests/spec/test-check-code.sh      (ends with "N passed, M failed")

# shellcheck disable=SC2001 # sed indents multi-line output
set -u

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
CHECK="$TOP/tests/spec/check-code.py"
SPEC="$TOP/Documentation/netlink/specs/krdma.yaml"
NL="$TOP/kmod/netlink.c"
KMOD="$TOP/kmod"
CLI="$TOP/tools/nl-gen.c"

# expect_ok NAME ARGS...: the checker accepts.
expect_ok() {
	local name=$1; shift
	local out rc
	out=$(python3 "$CHECK" "$@" 2>&1); rc=$?
	if [ "$rc" -eq 0 ] && grep -q '^spec: OK (' <<<"$out"; then
		ok "$name"
	else
		ko "$name: checker rejected the real files (rc $rc):"
		sed 's/^/     /' <<<"$out"
	fi
}

# expect_reject NAME PATTERN ARGS...: exit 1 and a line matching PATTERN.
expect_reject() {
	local name=$1 pattern=$2; shift 2
	local out rc
	out=$(python3 "$CHECK" "$@" 2>&1); rc=$?
	if [ "$rc" -eq 1 ] && grep -Eq -- "$pattern" <<<"$out"; then
		ok "$name"
	else
		ko "$name: want exit 1 and /$pattern/, got exit $rc:"
		sed 's/^/     /' <<<"$out"
	fi
}

# mutate SRC DST SED-EXPR: DST is SRC edited, and must differ from it.
mutate() {
	sed -E "$3" "$1" >"$2"
	if cmp -s "$1" "$2"; then
		echo "test-check-code: '$3' changed nothing in $1" >&2
		return 1
	fi
}

# nl_case NAME EXPR PATTERN: netlink.c edited by EXPR.
nl_case() {
	local name=$1 expr=$2 pattern=$3
	if mutate "$NL" "$TMP/$name.c" "$expr"; then
		expect_reject "netlink.c: $name" "$pattern" --netlink "$TMP/$name.c"
	else
		ko "netlink.c: $name: mutation did not apply"
	fi
}

spec_case() {
	local name=$1 expr=$2 pattern=$3
	if mutate "$SPEC" "$TMP/$name.yaml" "$expr"; then
		expect_reject "spec: $name" "$pattern" --spec "$TMP/$name.yaml"
	else
		ko "spec: $name: mutation did not apply"
	fi
}

expect_ok "real files agree"

nl_case family-maxattr 's/(\.maxattr\s*= )KRDMA_A_MAX,/\1KRDMA_A_STATS,/' \
	'family .maxattr = KRDMA_A_STATS, the generated code names it KRDMA_A_MAX'
nl_case family-name 's/(\.name\s*= )KRDMA_GENL_NAME,/\1"krdma",/' \
	'family .name = "krdma", the generated code names it KRDMA_GENL_NAME'
nl_case own-ops 's/(\.ops\s*= )krdma_nl_ops,/\1krdma_my_ops,/' \
	'family .ops = krdma_my_ops, the generated code names it krdma_nl_ops'
nl_case event-never-sent 's/KRDMA_CMD_EVENT_NTF/KRDMA_CMD_STATS_GET/' \
	'KRDMA_CMD_EVENT_NTF \(spec event event-ntf\) is never sent'

spec_case nest-unknown 's/^(        nested-attributes: )port$/\1ports/' \
	"spec: krdma.dev-port nests unknown set 'ports'"
spec_case enum-unknown 's/^(        enum: )session-role$/\1session-roles/' \
	"spec: krdma.session-role uses unknown enum 'session-roles'"
spec_case op-lists-unknown 's/^(            - )test-validated$/\1test-checked/' \
	'spec: op test-get lists test-checked, not an attribute of set krdma'
spec_case u64-without-pad '/name: port$/,/attributes:/{s/^(    attributes:)$/\1\n      -\n        name: speed\n        type: u64/}' \
	'spec: port.speed is u64 but set port has no pad attribute'
printf 'name: krdma\nattribute-sets: []\noperations:\n  list:\n    -\n' >"$TMP/malformed.yaml"
out=$(python3 "$CHECK" --spec "$TMP/malformed.yaml" 2>&1); rc=$?
if [ "$rc" -eq 2 ] && grep -q 'malformed spec' <<<"$out"; then
	ok "spec: malformed is an error"
else
	ko "spec: malformed: exit $rc: $out"
fi

# A module source putting an attribute with the wrong type.
mkdir -p "$TMP/kmod"
cp "$KMOD"/*.c "$KMOD"/*.h "$TMP/kmod/"
if mutate "$KMOD/device.c" "$TMP/kmod/device.c" 's/nla_put_u8\(skb, KRDMA_A_DEV_ATOMIC_CAP/nla_put_u32(skb, KRDMA_A_DEV_ATOMIC_CAP/'; then
	expect_reject "kmod: put type" 'device.c: nla_put_u32\(..KRDMA_A_DEV_ATOMIC_CAP..\) but spec krdma.dev-atomic-cap is u8' \
		--kmod-dir "$TMP/kmod"
else
	ko "kmod: put type: mutation did not apply"
fi
cp "$KMOD/device.c" "$TMP/kmod/device.c"
if mutate "$KMOD/test.c" "$TMP/kmod/test.c" 's/KRDMA_A_PAD\)/KRDMA_STATS_A_PAD)/'; then
	expect_reject "kmod: pad of another set" 'pads with KRDMA_STATS_A_PAD, spec set krdma pads with' \
		--kmod-dir "$TMP/kmod"
else
	ko "kmod: pad of another set: mutation did not apply"
fi

# The CLI's reply policy disagreeing (the generator rendering it wrong).
if mutate "$CLI" "$TMP/nl-gen.c" 's/\[KRDMA_A_TEST_STATUS\] = \{ \.type = NLA_S32/[KRDMA_A_TEST_STATUS] = { .type = NLA_U32/'; then
	expect_reject "cli: policy type" 'krdma_policy\[KRDMA_A_TEST_STATUS\] expects u32, spec krdma.test-status is s32' \
		--cli-attrs "$TMP/nl-gen.c"
else
	ko "cli: policy type: mutation did not apply"
fi
if mutate "$CLI" "$TMP/nl-gen.c" 's/(\[KRDMA_A_NAME\] = \{ \.type = NLA_STRING, \.maxlen = )31 \+ 1/\131/'; then
	expect_reject "cli: string length without its NUL" 'krdma_policy\[KRDMA_A_NAME\] maxlen 31, spec krdma.name max-len 31 \(\+ 1, the NUL\)' \
		--cli-attrs "$TMP/nl-gen.c"
else
	ko "cli: string length: mutation did not apply"
fi
if mutate "$CLI" "$TMP/nl-gen.c" 's/(\[KRDMA_ADDR_A_IPV6\] = \{ \.type = NLA_UNSPEC, \.minlen = )16/\14/'; then
	expect_reject "cli: binary length" 'krdma_addr_policy\[KRDMA_ADDR_A_IPV6\] lengths' \
		--cli-attrs "$TMP/nl-gen.c"
else
	ko "cli: binary length: mutation did not apply"
fi

# genl.py reads the spec: a header (the module's and krdmactl's numbers)
# that disagrees with its reading, in a limit or an attribute's number.
if mutate "$TOP/include/uapi/linux/krdma.h" "$TMP/krdma.h" 's/^(#define KRDMA_DEPTH_MAX\t+)128$/\164/'; then
	expect_reject "header: limit" 'genl.py: reads #define KRDMA_DEPTH_MAX as 128, the header has 64' \
		--header "$TMP/krdma.h"
else
	ko "header: limit: mutation did not apply"
fi
if mutate "$TOP/include/uapi/linux/krdma.h" "$TMP/krdma.h" 's/^(\tKRDMA_A_TEST_COUNT),$/\1 = 99,/'; then
	expect_reject "header: attribute number" 'genl.py: reads KRDMA_A_TEST_COUNT as [0-9]+, the header has 99' \
		--header "$TMP/krdma.h"
else
	ko "header: attribute number: mutation did not apply"
fi

# Unusable input is exit 2, not a pass.
out=$(python3 "$CHECK" --spec "$TMP/does-not-exist.yaml" 2>&1); rc=$?
if [ "$rc" -eq 2 ]; then ok "missing spec is an error"; else ko "missing spec: exit $rc: $out"; fi

finish
