#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Proves tests/spec/check-header.py can fail: it accepts the real files, and
# rejects copies of the header, kmod/netlink.c, the spec, a module source
# or the CLI's policies with one thing renamed, shifted, removed or added,
# naming the item in its output.
#
# Usage: tests/spec/test-check-header.sh      (ends with "N passed, M failed")

# shellcheck disable=SC2001 # sed indents multi-line output
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
CHECK="$TOP/tests/spec/check-header.py"
SPEC="$TOP/Documentation/netlink/specs/krdma.yaml"
HDR="$TOP/include/uapi/linux/krdma.h"
NL="$TOP/kmod/netlink.c"
NLGEN="$TOP/kmod/netlink-gen.c"
KMOD="$TOP/kmod"
CLI="$TOP/tools/attrs.c"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

pass=0
fail=0

ok() { pass=$((pass + 1)); echo "ok   $*"; }
ko() { fail=$((fail + 1)); echo "FAIL $*"; }

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
		echo "test-check-header: '$3' changed nothing in $1" >&2
		return 1
	fi
}

# Header mutations: one file each, checked with the real spec and netlink.c.
hdr_case() {
	local name=$1 expr=$2 pattern=$3
	if mutate "$HDR" "$TMP/$name.h" "$expr"; then
		expect_reject "header: $name" "$pattern" --header "$TMP/$name.h"
	else
		ko "header: $name: mutation did not apply"
	fi
}

# nl_case NAME FILE EXPR PATTERN: FILE is netlink.c or the generated
# netlink-gen.c; the checker reads the mutated copy with the other one.
nl_case() {
	local name=$1 file=$2 expr=$3 pattern=$4 files
	if mutate "$file" "$TMP/$name.c" "$expr"; then
		if [ "$file" = "$NL" ]; then files="$TMP/$name.c,$NLGEN"; else files="$NL,$TMP/$name.c"; fi
		expect_reject "${file##*/}: $name" "$pattern" --netlink "$files"
	else
		ko "${file##*/}: $name: mutation did not apply"
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

hdr_case attr-renamed 's/\bKRDMA_A_DEV_NAME\b/KRDMA_A_DEVICE_NAME/' \
	'no KRDMA_A_DEV_NAME|KRDMA_A_DEVICE_NAME.*not in the spec'
hdr_case attr-removed '/^\s*KRDMA_A_TEST_ELAPSED_NS,/d' \
	'no KRDMA_A_TEST_ELAPSED_NS'
hdr_case attr-removed-shifts '/^\s*KRDMA_A_TEST_ELAPSED_NS,/d' \
	'KRDMA_A_TEST_VALIDATED = 41, spec .* = 42'
hdr_case attr-added '/^\s*KRDMA_A_EVENT,/a\	KRDMA_A_EXTRA,' \
	'KRDMA_A_EXTRA = .* not in the spec'
hdr_case nested-attr-shifted 's/^(\s*KRDMA_ADDR_A_UNSPEC),/\1 = 1,/' \
	'KRDMA_ADDR_A_IPV4 = 2, spec'
hdr_case enum-value-shifted 's/KRDMA_SESSION_CONNECTING = 1/KRDMA_SESSION_CONNECTING = 2/' \
	'KRDMA_SESSION_CONNECTING = 2, spec'
hdr_case enum-entry-renamed 's/\bKRDMA_OP_SEND_IMM\b/KRDMA_OP_SENDIMM/' \
	'no KRDMA_OP_SEND_IMM'
hdr_case enum-tag-renamed 's/^enum krdma_test_state \{/enum krdma_test_states {/' \
	'enum krdma_test_states is not named in the spec'
hdr_case op-max-off 's/#define KRDMA_OP_MAX \(__KRDMA_OP_MAX - 1\)/#define KRDMA_OP_MAX __KRDMA_OP_MAX/' \
	'KRDMA_OP_MAX = 9, spec'
hdr_case cmd-removed '/^\s*KRDMA_CMD_STATS_RESET,/d' \
	'no KRDMA_CMD_STATS_RESET'
hdr_case cmd-swapped 's/^(\s*)KRDMA_CMD_TEST_STOP,/\1KRDMA_CMD_TEST_GET_TMP,/; s/^(\s*)KRDMA_CMD_TEST_GET,(.*)$/\1KRDMA_CMD_TEST_STOP,/; s/KRDMA_CMD_TEST_GET_TMP/KRDMA_CMD_TEST_GET/' \
	'KRDMA_CMD_TEST_STOP = 11, spec .* = 10'
hdr_case family-name 's/"krdma"/"krdma2"/' \
	"KRDMA_GENL_NAME = 'krdma2', spec family name = 'krdma'"
hdr_case family-version 's/(#define KRDMA_GENL_VERSION\s+)1/\12/' \
	'KRDMA_GENL_VERSION = 2, spec'
hdr_case mcgrp-name 's/"events"/"event"/' \
	"KRDMA_MCGRP_EVENTS = 'event'"
hdr_case const-value 's/(#define KRDMA_DEPTH_MAX\s+)128/\164/' \
	'KRDMA_DEPTH_MAX = 64, spec const depth-max = 128'
hdr_case const-added '/^#define KRDMA_ABI_VERSION/a#define KRDMA_FOO_MAX 7' \
	'KRDMA_FOO_MAX = 7 is not in the spec'
hdr_case type-comment 's|(KRDMA_A_DEV_INDEX,\s*)/\* u32|\1/* u64|' \
	'KRDMA_A_DEV_INDEX is commented "u64", spec krdma.dev-index is u32'
hdr_case nest-comment 's|krdma_port_attr, multi|krdma_addr_attr, multi|' \
	'KRDMA_A_DEV_PORT is commented "nest, krdma_addr_attr"'

nl_case admin-perm-dropped "$NLGEN" '/\.cmd\s*=\s*KRDMA_CMD_LISTENER_ADD/,/\}/{/GENL_ADMIN_PERM/d}' \
	'KRDMA_CMD_LISTENER_ADD: GENL_ADMIN_PERM not set, spec has admin-perm'
nl_case admin-perm-added "$NLGEN" '/\.cmd\s*=\s*KRDMA_CMD_STATS_GET,/a\		.flags	= GENL_ADMIN_PERM,' \
	'KRDMA_CMD_STATS_GET: GENL_ADMIN_PERM set, spec has no admin-perm'
nl_case op-removed "$NLGEN" '/\.cmd\s*=\s*KRDMA_CMD_STATS_RESET/,/\}/{/cmd|doit|flags/d}' \
	'KRDMA_CMD_STATS_RESET .* missing from the ops table'
nl_case dump-removed "$NLGEN" '/krdma_nl_session_get_dumpit/d' \
	'KRDMA_CMD_SESSION_GET: no .dumpit, spec has dump'
nl_case range-min "$NLGEN" 's/(\.min = )KRDMA_TIMEOUT_MS_MIN,/\110,/' \
	'KRDMA_A_TIMEOUT_MS.*min=10.*wants.*min=100'
nl_case range-max "$NLGEN" 's/NLA_POLICY_RANGE\(NLA_U32, 1, KRDMA_DEPTH_MAX\)/NLA_POLICY_RANGE(NLA_U32, 1, 256)/' \
	'KRDMA_A_TEST_DEPTH.*max=256.*wants.*max=128'
nl_case op-range "$NLGEN" 's/NLA_POLICY_RANGE\(NLA_U8, 1, KRDMA_OP_MAX\)/NLA_POLICY_RANGE(NLA_U8, 0, KRDMA_OP_MAX)/' \
	'KRDMA_A_TEST_OP.*min=0'
nl_case name-len "$NLGEN" 's/(\[KRDMA_A_NAME\] = \{ \.type = NLA_NUL_STRING, \.len = )31/\132/' \
	'KRDMA_A_NAME.*len=32.*wants.*len=31'
nl_case policy-extra-attr "$NLGEN" '/^static const struct nla_policy krdma_session_get_nl_policy/,/^\};/{s/(\[KRDMA_A_SESSION_ID\].*)$/\1\n\t[KRDMA_A_LISTENER_ID] = { .type = NLA_U32 },/}' \
	'krdma_session_get_nl_policy .* accepts KRDMA_A_LISTENER_ID'
nl_case policy-missing-attr "$NLGEN" '/^static const struct nla_policy krdma_test_start_nl_policy/,/^\};/{/KRDMA_A_TEST_COUNT/d}' \
	'krdma_test_start_nl_policy .* has no entry for KRDMA_A_TEST_COUNT'
nl_case policy-type "$NLGEN" 's/\[KRDMA_A_TEST_COUNT\] = \{ \.type = NLA_U64, \}/[KRDMA_A_TEST_COUNT] = { .type = NLA_U32, }/' \
	'KRDMA_A_TEST_COUNT.*NLA_U32.*wants.*NLA_U64'
nl_case nested-exact-len "$NLGEN" 's/NLA_POLICY_EXACT_LEN\(4\)/NLA_POLICY_EXACT_LEN(8)/' \
	'krdma_addr_nl_policy\[KRDMA_ADDR_A_IPV4\].*len=8'
nl_case nested-not-validated "$NLGEN" 's/NLA_POLICY_NESTED\(krdma_addr_nl_policy\)/{ .type = NLA_NESTED }/g' \
	'does not validate its contents'
nl_case mcgrp "$NLGEN" 's/\{ \.name = KRDMA_MCGRP_EVENTS, \}/{ .name = "evts", }/' \
	"multicast groups \['evts'\]"
nl_case family-maxattr "$NL" 's/(\.maxattr\s*= )KRDMA_A_MAX,/\1KRDMA_A_STATS,/' \
	'family .maxattr = KRDMA_A_STATS'

spec_case attr-renamed 's/^(        name: )test-validated$/\1test-checked/' \
	'no KRDMA_A_TEST_CHECKED|KRDMA_A_TEST_VALIDATED .* not in the spec'
spec_case check-changed 's/^(          max-len: )31$/\130/' \
	'KRDMA_A_NAME.*len=31.*wants.*len=30'
spec_case admin-perm-dropped '/name: session-del/,/flags/{/flags: \[admin-perm\]/d}' \
	'KRDMA_CMD_SESSION_DEL: GENL_ADMIN_PERM set, spec has no admin-perm'
# Removing a whole operation: done in python, sed cannot cut a YAML item.
python3 - "$SPEC" "$TMP/op-removed.yaml" <<'EOF'
import sys, yaml
spec = yaml.safe_load(open(sys.argv[1]))
spec['operations']['list'] = [op for op in spec['operations']['list']
                              if op['name'] != 'stats-reset']
with open(sys.argv[2], 'w') as f:
    f.write('# SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)\n')
    yaml.safe_dump(spec, f, sort_keys=False)
EOF
expect_reject "spec: op-removed" 'KRDMA_CMD_STATS_RESET = 13 is not in the spec' \
	--spec "$TMP/op-removed.yaml"
expect_reject "spec: op-removed (netlink.c)" 'ops table has KRDMA_CMD_STATS_RESET, not in the spec' \
	--spec "$TMP/op-removed.yaml"
printf 'name: krdma\nattribute-sets: []\noperations:\n  list:\n    -\n' >"$TMP/malformed.yaml"
out=$(python3 "$CHECK" --spec "$TMP/malformed.yaml" 2>&1); rc=$?
if [ "$rc" -eq 2 ] && grep -q 'malformed spec' <<<"$out"; then
	ok "spec: malformed is an error"
else
	ko "spec: malformed: exit $rc: $out"
fi
spec_case version 's/^version: 1$/version: 2/' \
	'KRDMA_GENL_VERSION = 1, spec family version = 2'

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

# The CLI's reply policy disagreeing.
if [ -f "$CLI" ]; then
	if mutate "$CLI" "$TMP/attrs.c" 's/\[KRDMA_A_TEST_STATUS\]\s*= \{ \.type = NLA_S32/[KRDMA_A_TEST_STATUS] = { .type = NLA_U32/'; then
		expect_reject "cli: policy type" 'krdma_policy\[KRDMA_A_TEST_STATUS\] expects u32, spec krdma.test-status is s32' \
			--cli-attrs "$TMP/attrs.c"
	else
		ko "cli: policy type: mutation did not apply"
	fi
fi

# Unusable input is exit 2, not a pass.
out=$(python3 "$CHECK" --header "$TMP/does-not-exist.h" 2>&1); rc=$?
if [ "$rc" -eq 2 ]; then ok "missing header is an error"; else ko "missing header: exit $rc: $out"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
