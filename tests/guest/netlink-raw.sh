#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The Generic Netlink family without krdmactl (tests/lib/genl.py): what
# nlctrl says about it (ops, permissions, policies) agrees with the uapi
# header, malformed requests are refused with an extended ACK, and events
# reach unprivileged subscribers of the same network namespace only.
# Everything runs on node 1 (a loopback session); node 2 has nothing to do.
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
if [ "$KRDMA_NODE" != 1 ]; then
	exit 0
fi
T=$(mktemp -d /tmp/netlink-raw.XXXXXX)
LIB=$KRDMA_ROOT/tests/lib

log "family and policies"
# The family, its ops and its policies against the header.
python3 - "$LIB" >"$T/abi.json" 2>&1 <<'EOF'
import json, sys
sys.path.insert(0, sys.argv[1])
import genl
g = genl.Genl()
u, D = g.uapi, g.uapi.defines
fam, pol = g.family(), g.policy()
out = {"family": [], "ops": [], "types": [], "limits": []}

if fam.get("version") != D["KRDMA_GENL_VERSION"]:
    out["family"].append("version %s" % fam.get("version"))
if fam.get("maxattr") != D["KRDMA_A_MAX"]:
    out["family"].append("maxattr %s, header %d" % (fam.get("maxattr"), D["KRDMA_A_MAX"]))
if fam.get("hdrsize", 0) != 0:
    out["family"].append("hdrsize %s" % fam["hdrsize"])
if list(fam["groups"]) != [D["KRDMA_MCGRP_EVENTS"]]:
    out["family"].append("groups %s" % fam["groups"])

# Every command of the header is an op (but the notification), with the
# right permission and dump capability ("do or dump" in the header).
ADMIN = {"LISTENER_ADD", "LISTENER_DEL", "SESSION_NEW", "SESSION_DEL",
         "TEST_START", "TEST_STOP", "STATS_RESET"}
want = {}
for full, v in u.cmds.values.items():
    short = u.cmds.short(full)
    if full.startswith("__") or short in ("UNSPEC", "EVENT_NTF"):
        continue
    want[short] = "dump" in u.cmds.comments.get(full, "")
for short, dump in want.items():
    fl = fam["ops"].get(short)
    if fl is None:
        out["ops"].append("%s: no such op" % short)
        continue
    if "do" not in fl:
        out["ops"].append("%s: no do" % short)
    if ("dump" in fl) != dump:
        out["ops"].append("%s: dump %s, header says %s" % (short, "dump" in fl, dump))
    if ("admin_perm" in fl) != (short in ADMIN):
        out["ops"].append("%s: admin_perm %s" % (short, "admin_perm" in fl))
for short in fam["ops"]:
    if short not in want:
        out["ops"].append("%s: op not in the header" % short)

# Policy types against the header's comments (what genl.py relies on).
TYPES = {"u8": ["u8"], "u16": ["u16"], "u32": ["u32"], "u64": ["u64"],
         "s32": ["s32"], "string": ["nul_string", "string"],
         "binary": ["binary"], "nest": ["nested"], "flag": ["flag"]}

def check_types(attrs, en, where):
    for full, f in attrs.items():
        typ, arg = en.type_of(full) if en else (None, None)
        if f.get("type") not in TYPES.get(typ, []):
            out["types"].append("%s %s: kernel %s, header %s" % (where, full, f.get("type"), typ))
        if "nested" in f:
            check_types(f["nested"], u.enums.get(arg), where + "/" + full)

for cmd, kinds in pol.items():
    for kind, attrs in kinds.items():
        check_types(attrs, u.attrs, cmd + "." + kind)

# Limits against the header's #defines.
def lim(cmd, attr, **want):
    for kind in ("do",):
        f = pol.get(cmd, {}).get(kind, {}).get(attr)
        if f is None:
            out["limits"].append("%s.%s %s: no policy" % (cmd, kind, attr))
            continue
        for k, v in want.items():
            if f.get(k) != v:
                out["limits"].append("%s.%s %s: %s %s, want %s" % (cmd, kind, attr, k, f.get(k), v))

lim("TEST_START", "KRDMA_A_TEST_SIZE", min_value_u=1, max_value_u=D["KRDMA_MSG_SIZE_MAX"])
lim("TEST_START", "KRDMA_A_TEST_DEPTH", min_value_u=1, max_value_u=D["KRDMA_DEPTH_MAX"])
lim("TEST_START", "KRDMA_A_TEST_INTERVAL_MS", min_value_u=D["KRDMA_INTERVAL_MS_MIN"])
lim("TEST_START", "KRDMA_A_TEST_DURATION_MS", min_value_u=1, max_value_u=D["KRDMA_DURATION_MS_MAX"])
lim("TEST_START", "KRDMA_A_TEST_OP", min_value_u=1, max_value_u=D["KRDMA_OP_MAX"])
lim("SESSION_NEW", "KRDMA_A_TIMEOUT_MS", max_value_u=D["KRDMA_TIMEOUT_MS_MAX"])
lim("SESSION_NEW", "KRDMA_A_SESSION_MAX_MSG_SIZE", min_value_u=1, max_value_u=D["KRDMA_MSG_SIZE_MAX"])
for cmd in ("LISTENER_ADD", "SESSION_NEW"):
    attr = "KRDMA_A_LOCAL_ADDR" if cmd == "LISTENER_ADD" else "KRDMA_A_PEER_ADDR"
    nest = pol.get(cmd, {}).get("do", {}).get(attr, {}).get("nested", {})
    for a, w in (("KRDMA_ADDR_A_IPV4", {"min_length": 4, "max_length": 4}),
                 ("KRDMA_ADDR_A_IPV6", {"min_length": 16, "max_length": 16}),
                 ("KRDMA_ADDR_A_PORT", {"min_value_u": 1})):
        for k, v in w.items():
            if nest.get(a, {}).get(k) != v:
                out["limits"].append("%s %s/%s: %s %s, want %s" % (cmd, attr, a, k, nest.get(a, {}).get(k), v))
for cmd, kinds in pol.items():
    for kind, attrs in kinds.items():
        if "KRDMA_A_NAME" in attrs and attrs["KRDMA_A_NAME"].get("max_length") != D["KRDMA_NAME_MAX"] - 1:
            out["limits"].append("%s.%s NAME: max_length %s" % (cmd, kind, attrs["KRDMA_A_NAME"].get("max_length")))
# Dumpable ops validate their dump requests too.
for short, dump in want.items():
    if dump and short in pol and "dump" not in pol[short]:
        out["limits"].append("%s: no dump policy" % short)
out["policy"] = pol
out["fam"] = fam
print(json.dumps(out))
EOF
json_check abi.family "cat $T/abi.json" "d['family'] == []"
json_check abi.ops "cat $T/abi.json" "d['ops'] == []"
json_check abi.policies_dumped "cat $T/abi.json" \
	"set(c for c in d['policy'] if d['policy'][c].get('do')) == {'DEV_GET', 'LISTENER_ADD', 'LISTENER_DEL', 'LISTENER_GET', 'SESSION_NEW', 'SESSION_DEL', 'SESSION_GET', 'TEST_START', 'TEST_STOP', 'TEST_GET'}"
json_check abi.policy_types "cat $T/abi.json" "d['types'] == []"
json_check abi.policy_limits "cat $T/abi.json" "d['limits'] == []"
json_check abi.policy_one_op "python3 $LIB/genl.py --policy TEST_STOP" \
	"list(d) == ['TEST_STOP'] and d['TEST_STOP']['do']['KRDMA_A_TEST_ID']['type'] == 'u32'"

log "malformed requests"
# Requests the family must refuse, with a reason where netlink gives one.
genl_err raw.unknown_cmd EOPNOTSUPP "" - 99
genl_err raw.event_cmd EOPNOTSUPP "" - EVENT_NTF
genl_err raw.unspec_cmd EOPNOTSUPP "" - UNSPEC
genl_err raw.version_dump EOPNOTSUPP "" - VERSION_GET --dump
genl_err raw.stats_dump EOPNOTSUPP "" - STATS_GET --dump
genl_err raw.listener_add_dump EOPNOTSUPP "" - LISTENER_ADD --dump LOCAL_ADDR.PORT=7900
genl_err raw.version_with_attr EINVAL "." - VERSION_GET NAME=x
genl_err raw.stats_reset_with_attr EINVAL "." - STATS_RESET NAME=x
genl_err raw.attr_of_other_op EINVAL "." KRDMA_A_LISTENER_ID \
	LISTENER_ADD LISTENER_ID=5 LOCAL_ADDR.PORT=7900
# Above listener-add's highest attribute: the family's last one (a result's
# nest), which no request takes (TEST_SIZE was, until listener-add took
# session-ack-timeout, numbered after it).
genl_err raw.attr_above_op_max EINVAL "Unknown attribute type" KRDMA_A_TEST_PEER_ENV \
	LISTENER_ADD --raw-attr TEST_PEER_ENV:00000000 LOCAL_ADDR.PORT=7900
genl_err raw.attr_type_0 EINVAL "." 0 LISTENER_GET --raw-attr 0:00000000
genl_err raw.nest_without_flag EINVAL "NLA_F_NESTED" KRDMA_A_LOCAL_ADDR \
	LISTENER_ADD --raw-attr LOCAL_ADDR:06000300581b0000
genl_err raw.u32_short - "." KRDMA_A_TEST_ID TEST_GET --raw-attr TEST_ID:0100
genl_err raw.u32_long - "." KRDMA_A_TEST_ID TEST_GET --raw-attr TEST_ID:010000000000
genl_err raw.string_without_nul EINVAL "." KRDMA_A_NAME LISTENER_GET --raw-attr NAME:616263
genl_err raw.trailing_bytes EINVAL "." - LISTENER_GET NAME=x --raw-tail 0800
genl_err raw.reserved_set EINVAL "reserved" - VERSION_GET --reserved 1
genl_err raw.nlmsg_flags EINVAL "nlmsg_flags" - VERSION_GET --nlflags 0x400
genl_err raw.nested_flag_on_string EINVAL "NLA_F_NESTED not expected" 32782 \
	LISTENER_GET --raw-attr 32782:61626300
genl_err raw.dump_bad_attr EINVAL "Unknown attribute type" 200 LISTENER_GET --dump --raw-attr 200:00000000
genl_err raw.get_no_ref EINVAL "id or name required" - LISTENER_GET
genl_err raw.session_get_no_ref EINVAL "id or name required" - SESSION_GET
genl_err raw.dev_get_no_name EINVAL "" miss:KRDMA_A_DEV_NAME DEV_GET
expect_rc_msg raw.empty_dump 0 "" genlpy LISTENER_GET --dump
json_check raw.version "python3 $LIB/genl.py VERSION_GET" \
	"d['cmd'] == 'version_get' and d['abi_version'] == $(sed -n 's/^#define[[:space:]]*KRDMA_ABI_VERSION[[:space:]]*\([0-9]*\).*/\1/p' "$KRDMA_ROOT/include/uapi/linux/krdma.h")"
# Nothing was created along the way.
json_check raw.nothing_created "krdmactl -j listener show" "d == []"

log "unprivileged"
expect_ok nobody.family as_nobody python3 "$LIB/genl.py" --family
expect_ok nobody.policy as_nobody python3 "$LIB/genl.py" --policy
expect_ok nobody.version as_nobody python3 "$LIB/genl.py" VERSION_GET
for c in "LISTENER_ADD LOCAL_ADDR.PORT=7900" "LISTENER_DEL LISTENER_ID=1" \
	"SESSION_NEW PEER_ADDR.IPV4=$KRDMA_IP PEER_ADDR.PORT=7900" "SESSION_DEL SESSION_ID=1" \
	"TEST_START SESSION_ID=1 TEST_OP=write" "TEST_STOP TEST_ID=1" "STATS_RESET"; do
	# shellcheck disable=SC2086
	expect_rc_msg "nobody.${c%% *}" 1 "^error 1( |$)" as_nobody python3 "$LIB/genl.py" $c
done

log "events"
# Events go to unprivileged subscribers, and only in their namespace.
EVG=$(genlpy --family | json_get "d['groups']['events']")
# (not as_nobody: $! must be the subscriber itself, not a subshell)
$NOBODY python3 "$LIB/genl.py" --listen 90 --count 2 >"$T/ev.nobody" 2>&1 &
EVN=$!
EVS=
if ip netns add traw; then
	ip netns exec traw python3 "$LIB/genl.py" --listen 90 >"$T/ev.ns" 2>&1 &
	EVS=$!
else
	result events.netns_add fail
fi
wait_for -t 30 nl_subscribed $EVN "${EVG:-99}" || result events.nobody_subscribed fail
[ -z "$EVS" ] || wait_for -t 30 nl_subscribed $EVS "${EVG:-99}" || result events.ns_subscribed fail
expect_ok events.listener krdmactl listener add name lo addr "$KRDMA_IP" port 7800
json_check events.loopback_connect \
	"timeout 90 krdmactl -j session connect addr $KRDMA_IP port 7800 name lo1 timeout 20s" "d['state'] == 'up'"
if wait_exit $EVN 30; then
	wait $EVN
	json_check events.nobody_got_both "cat $T/ev.nobody | python3 -c 'import json, sys; print(json.dumps([json.loads(l) for l in sys.stdin]))'" \
		"[e['event'] for e in d] == [1, 1] and len(set(e['session_id'] for e in d)) == 2"	# KRDMA_EVENT_SESSION_UP
else
	cat "$T/ev.nobody"
	result events.nobody_got_both fail
	kill $EVN
	wait $EVN
fi
if [ -n "$EVS" ]; then
	kill $EVS
	wait $EVS 2>/dev/null
	expect_rc_msg events.other_netns_got_none 0 "" cat "$T/ev.ns"
	expect_ok events.netns_del ip netns del traw
fi
expect_ok events.session_del krdmactl session del name lo1
wait_for -t 30 no_sessions &&
	result events.sessions_gone ok || result events.sessions_gone fail
expect_ok events.listener_del krdmactl listener del name lo
rm -rf "$T"
