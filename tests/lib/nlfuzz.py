#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Seeded fuzzer of the krdma Generic Netlink family (python3 stdlib only).

    nlfuzz.py [--seed N] [--count N] [options]

Sends COUNT requests, each one datagram on a raw NETLINK_GENERIC socket,
and checks every answer.  Case I is made from its own random generator
seeded with (SEED, I), so "--seed S --only I" sends exactly the message
that case I of a full run sent.  tests/lib/genl.py supplies the numbers
(uapi header), the family (nlctrl: id, ops and their flags) and the
kernel's own per-op attribute policies (CTRL_CMD_GETPOLICY).

What is sent: first every command number 0..255, as a do and as a dump;
then, for every op, one case of each mutation below; then random cases.
Mutations of a valid request of the op: dropped (required) attributes,
wrong payload lengths (0, 1, 3, 5, 7, 4096 bytes), attributes of other
ops, unknown attribute types (0, > KRDMA_A_MAX, in nests too),
NLA_F_NESTED set on scalars or missing on nests, garbage and deep
nests, nla_len below 4 or past the end, trailing bytes, truncated
datagrams and nlmsghdr/genlmsghdr, nlmsg_len past the datagram, 64 KiB
messages, boundary and extreme integers, strings without NUL, too long
or with non-printables, dump flag on do-only ops, stray nlmsg_flags,
genlmsghdr.reserved set, random bodies, several messages in one
datagram, control message types and requests without NLM_F_REQUEST or
NLM_F_ACK.  Every message goes to the krdma family id (or is a control
message type below 0x10): nothing reaches another family.

A model of the kernel's netlink core (netlink_rcv_skb, genetlink's
header checks for new families, strict policy validation with the
kernel's own policies) and of the family's required attributes predicts
for each message whether the kernel answers at all, and whether it must
refuse it.

Classes of answers (summary "classes"):
    dropped   no answer, as predicted (datagram or nlmsg_len too short,
              nlmsg_len past the datagram, no NLM_F_REQUEST and no ACK)
    ack0      the bare ACK of a control message / a non-request
    ack       success, no data;  reply: success with data
    dump      a dump ending with NLMSG_DONE
    noack     success without NLM_F_ACK and without data (nothing sent)
    error     an error answer (per errno in "errnos")
    send_refused  sendto() failed: ENODATA for an empty datagram (6.1)

Violations (non-zero exit): timeout (no answer, or the kernel hung in
sendmsg: a watchdog ends the run), unexpected_reply (an answer where
none is due, or a message nobody asked for), extra_answer (more than
one error/ACK/DONE, or messages after it), no_extack (an error without
NLMSGERR_ATTR_MSG, an offset or a missing-attribute report, outside the
allowed exceptions), accepted_invalid (success where the model says the
kernel must refuse), wrong_errno (EPERM for an admin op when
unprivileged, EOPNOTSUPP for an unknown command), send_error (sendto()
refused a non-empty datagram), cleanup_failed,
leftover (objects left at the end), family_gone (the family stops
answering).

Allowed errors without an extended ACK (the kernel core answers before
the family has an extack to fill, in 6.1):
    EOPNOTSUPP  the command has no op, or the op has no dump (do) handler
                (genl_family_rcv_msg(), genl_family_rcv_msg_dumpit())
    EPERM       an admin op (GENL_ADMIN_PERM) from a process without
                CAP_NET_ADMIN (genl_family_rcv_msg())
    EINVAL      nlmsg_len too short for the genlmsghdr: not a well-formed
                header (genl_family_rcv_msg())

Requests that create something (LISTENER_ADD, SESSION_NEW, TEST_START)
and succeed are counted in "created", undone at once (listener/session
deleted, test stopped and waited for) and listed in "created_cases".
Objects present at the start, and those given with --protect-*, are
never deleted: a request that could delete them is replaced by another
(so "--only" replays a case exactly when the same objects exist).

Options:
    --seed N          random seed (default 1)
    --count N         number of cases (default 3000)
    --only I[,J..]    send only these cases (of the same seed)
    --timeout S       wait for an answer at most S seconds (default 5)
    --hang S          watchdog: a single case may take S seconds (60)
    --budget S        send no new case after S seconds (the summary's
                      "count" says how many were run; default: no limit)
    --min-random N    fail (exit 1) unless at least N random cases ran
                      after the sweep of every op and mutation: a budget
                      that a slow host eats up in the sweep must not pass
                      for a fuzzing run (default 0)
    --ip ADDR         this host's IPv4 address on the RDMA device
                      (requests that connect or listen use it; 127.0.0.1)
    --dev NAME        RDMA device for DEV_GET (rxe0)
    --port-base P     listeners bind P..P+99, connects go to P+100..P+199
                      (nothing listens there) (default 7300)
    --session ID      an up session: TEST_START and SESSION_GET use it
                      (--session-frac of them, default 0.2); protected
    --protect-session ID|NAME, --protect-listener ID|NAME  (repeatable)
    --unprivileged / --privileged   what to expect of admin ops (default:
                      by effective uid)
    --max-violations N  violations listed in the summary (default 20)
    --hex-cap N       bytes of an offending message shown as hex (256)
    --trace FILE      write every case and its answers there (JSON lines)
    --print           print the cases (JSON lines: index, kind, op, hex,
                      prediction) and send nothing
    --offline F P     with --print: take the family (genl.py --family)
                      and the policies (genl.py --policy) from the JSON
                      files F and P instead of the kernel
    -v                progress and every violation on stderr

Output: one JSON line on stdout: seed, count (cases run), sent, mode,
elapsed_s, classes, errnos, kinds, exceptions (errors without extack
that were allowed, per reason), created, created_cases, slowest (the 5
slowest cases), violations (count), violation_kinds,
violation_list (capped; each with the case index, kind, op, what, the
message hex and its length).  Exit status: 0 clean, 1 violations,
2 local error (usage, family not found), 3 watchdog (a hang).
"""

import errno as E
import json
import os
import random
import select
import socket
import struct
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True		# no __pycache__ in the source tree
import genl  # noqa: E402

NLMSG_HDR = struct.Struct("<IHHII")
GENL_HDR = struct.Struct("<BBH")
NLMSG_MIN_TYPE = 0x10
NLM_F_ECHO = 0x08
NLM_F_DUMP = genl.NLM_F_DUMP
NLM_F_REQUEST = genl.NLM_F_REQUEST
NLM_F_ACK = genl.NLM_F_ACK
NLA_F_NESTED = genl.NLA_F_NESTED
NLA_F_NET_BYTEORDER = genl.NLA_F_NET_BYTEORDER
NOID = 0x7ffffff0			# an id nothing has
ODD_LENGTHS = (0, 1, 3, 5, 7, 4096)
INT_WIDTH = {"u8": 1, "u16": 2, "u32": 4, "u64": 8,
             "s8": 1, "s16": 2, "s32": 4, "s64": 8}
FLAG_NAMES = {0x01: "REQUEST", 0x02: "MULTI", 0x04: "ACK", 0x08: "ECHO",
              0x10: "DUMP_INTR", 0x20: "DUMP_FILTERED", 0x100: "ROOT",
              0x200: "MATCH", 0x400: "ATOMIC", 0x800: "APPEND"}
# Create ops: a success makes an object the fuzzer must undo.
CREATES = {"LISTENER_ADD": "LISTENER_ID", "SESSION_NEW": "SESSION_ID",
           "TEST_START": "TEST_ID"}


def isgraph_kernel(c):
    """The kernel's isgraph() (lib/ctype.c, Latin-1 table) of byte c."""
    if 0x21 <= c <= 0x7e:
        return True
    return c >= 0xa1


# ---- attribute trees ----

class N:
    """One attribute to send: type (flags included), a payload or
    children, and optionally a false nla_len."""

    __slots__ = ("t", "payload", "kids", "lie")

    def __init__(self, t, payload=b"", kids=None, lie=None):
        self.t = t
        self.payload = payload
        self.kids = kids
        self.lie = lie

    @property
    def num(self):
        return self.t & genl.NLA_TYPE_MASK

    def copy(self):
        return N(self.t, self.payload,
                 None if self.kids is None else [k.copy() for k in self.kids],
                 self.lie)

    def encode(self):
        body = (b"".join(k.encode() for k in self.kids)
                if self.kids is not None else self.payload)
        out = genl.nla(self.t, body)
        if self.lie is not None:
            out = struct.pack("<H", self.lie & 0xffff) + out[2:]
        return out


def from_attrs(attrs):
    """genl.Attr trees (Genl.build) as N trees."""
    out = []
    for a in attrs:
        if a.children is not None:
            out.append(N(a.atype | NLA_F_NESTED, kids=from_attrs(a.children)))
        else:
            out.append(N(a.atype, a.payload))
    return out


def encode_all(nodes):
    return b"".join(n.encode() for n in nodes)


def nlmsg(fam, flags, seq, cmd, body=b"", version=1, reserved=0, pid=0,
          length=None):
    payload = GENL_HDR.pack(cmd & 0xff, version & 0xff, reserved & 0xffff) + body
    ln = NLMSG_HDR.size + len(payload) if length is None else length
    return NLMSG_HDR.pack(ln & 0xffffffff, fam, flags & 0xffff, seq, pid) + payload


def kernel_view(data):
    """The messages netlink_rcv_skb() hands on, as (offset, nlmsg_len,
    type, flags, seq); it stops at the first nlmsg_len below 16 or past
    the end of the datagram."""
    out = []
    off = 0
    while len(data) - off >= NLMSG_HDR.size:
        ln, t, fl, seq, _ = NLMSG_HDR.unpack_from(data, off)
        if ln < NLMSG_HDR.size or len(data) - off < ln:
            break
        out.append((off, ln, t, fl, seq))
        off += min(genl.align4(ln), len(data) - off)
    return out


def walk_attrs(data):
    """Attributes as netlink's nla_for_each_attr() sees them:
    ([(type with flags, payload)], leftover bytes)."""
    out = []
    off = 0
    while len(data) - off >= 4:
        ln, t = struct.unpack_from("<HH", data, off)
        if ln < 4 or ln > len(data) - off:
            break
        out.append((t, data[off + 4:off + ln]))
        off += genl.align4(ln)
    return out, max(len(data) - off, 0)


# ---- the model ----

class Model:
    """What the kernel must do with one message: expectation ("none",
    "ack0", "answer"), the reason it must be refused (or None), and
    which errors may come without an extended ACK."""

    def __init__(self, fz):
        self.fz = fz

    def header_anomaly(self, flags, reserved):
        if reserved:
            return "genlmsghdr.reserved set"
        f = flags
        if f & NLM_F_DUMP == NLM_F_DUMP:
            f &= ~NLM_F_DUMP
        bad = f & ~(NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO)
        if bad:
            return "nlmsg_flags 0x%x" % bad
        return None

    def validate(self, data, pol, depth=0):
        """Strict policy validation (6.1 lib/nlattr.c) of an attribute
        stream; returns (reason or None, {type: payload} last wins)."""
        attrs, rest = walk_attrs(data)
        tb = {}
        for t, p in attrs:
            num = t & genl.NLA_TYPE_MASK
            if num == 0 or num not in pol:
                return "attribute type %d not in the policy" % num, tb
            spec = pol[num]
            typ = spec.get("type")
            nested = bool(t & NLA_F_NESTED)
            if typ in ("nested", "nested_array"):
                if not nested:
                    return "attribute %d: NLA_F_NESTED missing" % num, tb
            elif nested:
                return "attribute %d: NLA_F_NESTED not expected" % num, tb
            r = self.check_value(num, spec, p, depth)
            if r:
                return r, tb
            tb[num] = p
        if rest:
            return "%d bytes left over after the attributes" % rest, tb
        return None, tb

    def check_value(self, num, spec, p, depth):
        typ = spec.get("type")
        n = len(p)
        if typ in INT_WIDTH:
            if n != INT_WIDTH[typ]:
                return "attribute %d: length %d for %s" % (num, n, typ)
            v = int.from_bytes(p, "little", signed=typ.startswith("s"))
            lo = spec.get("min_value_u", spec.get("min_value_s"))
            hi = spec.get("max_value_u", spec.get("max_value_s"))
            if lo is not None and v < lo or hi is not None and v > hi:
                return "attribute %d: %d out of [%s, %s]" % (num, v, lo, hi)
        elif typ == "nul_string":
            mx = spec.get("max_length", 0)
            minlen = min(n, mx + 1) if mx else n
            if not minlen or b"\0" not in p[:minlen]:
                return "attribute %d: string without NUL" % num
            if mx and n - (p[-1:] == b"\0") > mx:
                return "attribute %d: string longer than %d" % (num, mx)
        elif typ == "string":
            mx = spec.get("max_length", 0)
            if n < 1 or mx and n - (p[-1:] == b"\0") > mx:
                return "attribute %d: bad string length %d" % (num, n)
        elif typ == "binary":
            lo, hi = spec.get("min_length"), spec.get("max_length")
            if lo is not None and n < lo or hi is not None and n > hi:
                return "attribute %d: length %d out of [%s, %s]" % (num, n, lo, hi)
        elif typ == "flag":
            if n:
                return "attribute %d: flag with a payload" % num
        elif typ in ("nested", "nested_array") and "nested_num" in spec:
            r, _ = self.validate(p, spec["nested_num"], depth + 1)
            if r:
                return "in attribute %d: %s" % (num, r)
        return None

    def semantic(self, op, tb):
        """The handlers' own checks that refuse a request whatever the
        state (required attributes, names of new objects, addresses)."""
        A = self.fz.anum
        ADDR = self.fz.addr_num

        def need(*names):
            return any(A[x] in tb for x in names if x in A)

        def name_check():
            p = tb.get(A.get("NAME"))
            if p is None:
                return None
            s = p.split(b"\0", 1)[0]
            if not s:
                return "empty name"
            for c in s:
                if c < 0x80 and not isgraph_kernel(c):
                    return "name with byte 0x%02x" % c
            if all(0x30 <= c <= 0x39 for c in s):
                return "all-digit name"
            return None

        def addr(key, need_ip):
            p = tb.get(A.get(key))
            if p is None:
                return None, None
            a = dict((t & genl.NLA_TYPE_MASK, v) for t, v in walk_attrs(p)[0])
            v4, v6, port = ADDR["IPV4"] in a, ADDR["IPV6"] in a, ADDR["PORT"] in a
            if v4 and v6:
                return "%s: IPv4 and IPv6" % key, None
            if need_ip and not v4 and not v6:
                return "%s: no address" % key, None
            return None, (6 if v6 else 4, port)

        if op == "DEV_GET" and not need("DEV_NAME"):
            return "DEV_NAME missing"
        if op in ("LISTENER_DEL", "LISTENER_GET") and not need("LISTENER_ID", "NAME"):
            return "listener id or name missing"
        if op in ("SESSION_DEL", "SESSION_GET") and not need("SESSION_ID", "NAME"):
            return "session id or name missing"
        if op in ("TEST_STOP", "TEST_GET") and not need("TEST_ID"):
            return "TEST_ID missing"
        if op == "LISTENER_ADD":
            if not need("LOCAL_ADDR"):
                return "LOCAL_ADDR missing"
            r = name_check()
            if r:
                return r
            r, a = addr("LOCAL_ADDR", False)
            if r:
                return r
            if not a[1]:
                return "no port"
        if op == "SESSION_NEW":
            if not need("PEER_ADDR"):
                return "PEER_ADDR missing"
            r = name_check()
            if r:
                return r
            r, peer = addr("PEER_ADDR", True)
            if r:
                return r
            if not peer[1]:
                return "no peer port"
            r, loc = addr("LOCAL_ADDR", True)
            if r:
                return r
            if loc and loc[0] != peer[0]:
                return "address families differ"
        if op == "TEST_START":
            if not need("TEST_OP"):
                return "TEST_OP missing"
            cnt, dur = tb.get(A["TEST_COUNT"]), tb.get(A["TEST_DURATION_MS"])
            if cnt is not None and dur is not None:
                return "count and duration"
            if dur is None and cnt is not None and not int.from_bytes(cnt, "little"):
                return "count 0"
            if not need("SESSION_ID", "NAME"):
                return "session id or name missing"
        return None

    def predict(self, data, off, ln, t, flags):
        """One message: dict(expect, reject, noext, eperm, eopnotsupp,
        op, dump, cmd)."""
        fz = self.fz
        r = {"expect": "answer", "reject": None, "noext": None,
             "eperm": False, "eopnotsupp": False, "op": None,
             "dump": False, "cmd": None, "hdr": None}
        if not flags & NLM_F_REQUEST or t < NLMSG_MIN_TYPE:
            r["expect"] = "ack0" if flags & NLM_F_ACK else "none"
            return r
        if ln < NLMSG_HDR.size + GENL_HDR.size:
            r["reject"] = "nlmsg_len %d: no room for the genlmsghdr" % ln
            r["noext"] = "short genlmsghdr"
            return r
        cmd, _, reserved = GENL_HDR.unpack_from(data, off + NLMSG_HDR.size)
        r["cmd"] = cmd
        hdr = self.header_anomaly(flags, reserved)
        r["hdr"] = hdr
        if hdr:
            r["reject"] = hdr
        dump = flags & NLM_F_DUMP == NLM_F_DUMP
        r["dump"] = dump
        op = fz.op_by_cmd.get(cmd)
        r["op"] = op
        if op is None:
            r["reject"] = r["reject"] or "command %d has no op" % cmd
            r["eopnotsupp"] = not hdr
            r["noext"] = "EOPNOTSUPP"
            return r
        if fz.unprivileged and "admin_perm" in fz.op_flags[op]:
            r["reject"] = r["reject"] or "admin op, unprivileged"
            r["eperm"] = True
            r["noext"] = "EPERM"
            # No handler for this kind of request as well: 6.1 checks the
            # permission first (EPERM), 6.12 the handler (EOPNOTSUPP).
            if dump and "dump" not in fz.op_flags[op] or \
                    not dump and "do" not in fz.op_flags[op]:
                r["noext"] = "EPERM or EOPNOTSUPP"
            return r
        if dump and "dump" not in fz.op_flags[op] or \
                not dump and "do" not in fz.op_flags[op]:
            r["reject"] = r["reject"] or ("no %s handler" % ("dump" if dump else "do"))
            r["noext"] = "EOPNOTSUPP"
            return r
        if hdr:
            return r
        pol = fz.pol_num.get(op, {}).get("dump" if dump else "do", {})
        body = data[off + NLMSG_HDR.size + GENL_HDR.size:off + ln]
        why, tb = self.validate(body, pol)
        if why:
            r["reject"] = why
            return r
        if not dump:
            r["reject"] = self.semantic(op, tb)
        return r


# ---- generation ----

class Case:
    __slots__ = ("idx", "kind", "op", "data", "nocap", "subs", "note")

    def __init__(self, idx, kind, op, data, nocap=False, note=""):
        self.idx = idx
        self.kind = kind
        self.op = op
        self.data = data
        self.nocap = nocap
        self.note = note
        self.subs = []


KINDS = [
    ("valid", 3), ("drop_attr", 4), ("drop_all", 2), ("wrong_len", 6),
    ("other_op_attr", 4), ("unknown_attr", 4), ("nested_flag", 4),
    ("nest_garbage", 4), ("deep_nest", 2), ("empty_nest", 2),
    ("bad_nla_len", 5), ("trailing", 3), ("truncate", 4),
    ("short_datagram", 2), ("bad_nlmsg_len", 3), ("short_genl", 2),
    ("oversize", 2), ("extreme_int", 8), ("string", 6), ("dump_flag", 3),
    ("nlmsg_flags", 4), ("reserved", 2), ("version", 1),
    ("random_body", 4), ("random_attrs", 4), ("multi_msg", 3),
    ("dup_attr", 2), ("netbyteorder", 1), ("control_type", 1),
    ("no_request", 2), ("no_ack", 2), ("combo", 6), ("random_cmd", 2),
]
KIND_NAMES = [k for k, _ in KINDS]
KIND_WEIGHTS = [w for _, w in KINDS]


class Fuzzer:
    def __init__(self, opts, fam=None, pol=None):
        self.o = opts
        if fam is None:
            self.g = genl.Genl(timeout=opts.timeout)
            self.uapi = self.g.uapi
            fam = self.g.family()
            pol = self.g.policy()
        else:
            self.g = None
            self.uapi = genl.Uapi()
            # Genl.build needs only the header: a Genl without a socket.
            self.offline_genl = genl.Genl.__new__(genl.Genl)
            self.offline_genl.uapi = self.uapi
        self.fam_id = fam["id"]
        self.unprivileged = opts.unprivileged
        u = self.uapi
        self.anum = {u.attrs.short(n): v for n, v in u.attrs.values.items()
                     if not n.startswith("__")}
        addr_en = u.enums["krdma_addr_attr"]
        self.addr_num = {addr_en.short(n): v for n, v in addr_en.values.items()
                         if not n.startswith("__")}
        self.a_max = u.defines.get("KRDMA_A_MAX", max(self.anum.values()))
        self.op_flags = fam["ops"]
        self.op_by_cmd = {}
        for name in self.op_flags:
            self.op_by_cmd[u.cmd(name)] = name
        self.ops = sorted(self.op_flags, key=lambda n: u.cmd(n))
        self.pol_num = {}
        for op, kinds in (pol or {}).items():
            self.pol_num[op] = {k: self._num_policy(v, u.attrs)
                                for k, v in kinds.items()}
        self.model = Model(self)
        self.protect_ids = {"SESSION_ID": set(), "LISTENER_ID": set()}
        self.protect_names = set()
        for v in opts.protect_session + ([str(opts.session)] if opts.session else []):
            self._protect("SESSION_ID", v)
        for v in opts.protect_listener:
            self._protect("LISTENER_ID", v)
        self.sweep = self._sweep_plan()

    def _protect(self, key, v):
        if str(v).isdigit():
            self.protect_ids[key].add(int(v))
        else:
            self.protect_names.add(str(v).encode())

    def _num_policy(self, d, en):
        out = {}
        for full, spec in d.items():
            try:
                num = en.values[full] if full in en.values else int(full)
            except ValueError:
                continue
            s = dict(spec)
            if "nested" in s:
                _, arg = en.type_of(full)
                sub = self.uapi.enums.get(arg) if arg else None
                s["nested_num"] = self._num_policy(s["nested"], sub) if sub else {}
            out[num] = s
        return out

    # -- valid requests --

    def base(self, op, dump, rng):
        """A valid request of op (a list of N)."""
        o = self.o
        pb = o.port_base
        sid = o.session if o.session and rng.random() < o.session_frac else NOID
        items = []
        if op == "DEV_GET" and not dump:
            items = [("DEV_NAME", o.dev)]
        elif op == "LISTENER_ADD":
            items = [("NAME", "fzl%d" % rng.randrange(10 ** 6)),
                     ("LOCAL_ADDR.PORT", pb + rng.randrange(100))]
            if rng.random() < 0.5:
                items.append(("LOCAL_ADDR.IPV4", o.ip))
        elif op in ("LISTENER_DEL", "LISTENER_GET") and not dump:
            lid = NOID
            if op == "LISTENER_GET" and self.protect_ids["LISTENER_ID"]:
                lid = rng.choice(sorted(self.protect_ids["LISTENER_ID"]))
            items = [("LISTENER_ID", lid)] if rng.random() < 0.7 else \
                [("NAME", "nosuch%d" % rng.randrange(100))]
        elif op == "SESSION_NEW":
            items = [("NAME", "fzs%d" % rng.randrange(10 ** 6)),
                     ("PEER_ADDR.IPV4", o.ip),
                     ("PEER_ADDR.PORT", pb + 100 + rng.randrange(100))]
            for k, v in (("TIMEOUT_MS", 1000), ("SESSION_SQ_DEPTH", 16),
                         ("SESSION_RQ_DEPTH", 16),
                         ("SESSION_MAX_MSG_SIZE", 4096)):
                if rng.random() < 0.5:
                    items.append((k, v))
        elif op in ("SESSION_DEL", "SESSION_GET") and not dump:
            s = sid if op == "SESSION_GET" else NOID
            items = [("SESSION_ID", s)] if rng.random() < 0.8 else \
                [("NAME", "nosuch%d" % rng.randrange(100))]
        elif op == "TEST_START":
            items = [("SESSION_ID", sid), ("TEST_OP", rng.randrange(1, 9))]
            for k, v in (("TEST_SIZE", 64), ("TEST_COUNT", 4),
                         ("TEST_DEPTH", 1), ("TEST_INTERVAL_MS", 1000)):
                if rng.random() < 0.6:
                    items.append((k, v))
        elif op in ("TEST_STOP", "TEST_GET") and not dump:
            items = [("TEST_ID", NOID)]
        try:
            return from_attrs(self.uapi_build(items))
        except genl.LocalError:
            return []

    def uapi_build(self, items):
        return (self.g or self.offline_genl).build(items)

    def policy_of(self, op, dump):
        return self.pol_num.get(op, {}).get("dump" if dump else "do", {})

    def valid_payload(self, spec, rng, num=None):
        typ = spec.get("type")
        if typ in INT_WIDTH:
            lo = spec.get("min_value_u", spec.get("min_value_s", 0))
            hi = spec.get("max_value_u", spec.get("max_value_s",
                                                  (1 << 8 * INT_WIDTH[typ]) - 1))
            v = rng.randint(lo, min(hi, lo + 1000))
            return v.to_bytes(INT_WIDTH[typ], "little",
                              signed=typ.startswith("s"))
        if typ in ("nul_string", "string"):
            return b"fz%d\0" % rng.randrange(1000)
        if typ == "binary":
            n = spec.get("min_length", 4) or 0
            return bytes(rng.randrange(256) for _ in range(n))
        if typ == "flag":
            return b""
        return b""

    def valid_node(self, num, spec, rng):
        if spec.get("type") in ("nested", "nested_array"):
            kids = [N(k, self.valid_payload(s, rng))
                    for k, s in sorted(spec.get("nested_num", {}).items())
                    if s.get("type") not in ("nested", "nested_array")
                    and rng.random() < 0.6]
            return N(num | NLA_F_NESTED, kids=kids)
        return N(num, self.valid_payload(spec, rng))

    # -- mutation helpers --

    @staticmethod
    def all_nodes(nodes, parent_spec=None):
        """[(list holding the node, index, node)] of every attribute."""
        out = []
        for i, n in enumerate(nodes):
            out.append((nodes, i, n))
            if n.kids is not None:
                out.extend(Fuzzer.all_nodes(n.kids))
        return out

    def spec_of(self, op, dump, node, nodes):
        """The policy entry of node (top level or in a nest)."""
        pol = self.policy_of(op, dump)
        if node in nodes:
            return pol.get(node.num, {})
        for top in nodes:
            if top.kids is not None and node in top.kids:
                return pol.get(top.num, {}).get("nested_num", {}).get(node.num, {})
        return {}

    def rand_bytes(self, rng, n):
        return bytes(rng.getrandbits(8) for _ in range(n)) if n < 256 else \
            rng.getrandbits(8 * n).to_bytes(n, "little")

    def extreme_values(self, spec, width, rng):
        bits = 8 * width
        vals = [0, 1, (1 << bits) - 1, (1 << bits) - 2, 1 << (bits - 1),
                (1 << (bits - 1)) - 1, rng.getrandbits(bits)]
        lo = spec.get("min_value_u")
        hi = spec.get("max_value_u")
        for b in (lo, hi):
            if b is not None:
                vals += [b - 1, b, b + 1]
        return [v for v in vals if 0 <= v < (1 << bits)]

    # -- one case --

    def make(self, idx):
        rng = random.Random(self.o.seed * 1000003 + idx)
        for attempt in range(20):
            case = self._make(idx, rng)
            case.subs = [(off, ln, t, fl, seq,
                          self.model.predict(case.data, off, ln, t, fl))
                         for off, ln, t, fl, seq in kernel_view(case.data)]
            if self._unsafe(case) is None:
                return case
        raise AssertionError("case %d: no safe variant" % idx)

    def _unsafe(self, case):
        """None if the case may be sent; "foreign" if a message would go
        to another family; "protected" if it could delete a protected
        object."""
        for off, ln, t, fl, seq, p in case.subs:
            if fl & NLM_F_REQUEST and t >= NLMSG_MIN_TYPE and t != self.fam_id:
                return "foreign"
            if p["op"] not in ("SESSION_DEL", "LISTENER_DEL", "TEST_STOP"):
                continue
            body = case.data[off + 20:off + ln]
            for at, pay in walk_attrs(body)[0]:
                num = at & genl.NLA_TYPE_MASK
                if num == self.anum.get("NAME"):
                    if pay.split(b"\0", 1)[0] in self.protect_names:
                        return "protected"
                for key in ("SESSION_ID", "LISTENER_ID"):
                    if num == self.anum.get(key) and len(pay) >= 4 and \
                            struct.unpack_from("<I", pay)[0] in self.protect_ids[key]:
                        return "protected"
        return None

    def _sweep_plan(self):
        plan = [("cmd_sweep", c, d) for c in range(256) for d in (False, True)]
        for op in self.ops:
            for k in KIND_NAMES:
                plan.append((k, op, None))
        return plan

    def _make(self, idx, rng):
        if idx < len(self.sweep):
            kind, op, dump = self.sweep[idx]
            if kind == "cmd_sweep":
                flags = NLM_F_REQUEST | NLM_F_ACK | (NLM_F_DUMP if dump else 0)
                data = nlmsg(self.fam_id, flags, self.seq(idx), op)
                name = self.op_by_cmd.get(op, str(op))
                return Case(idx, "cmd_sweep", name + (".dump" if dump else ""),
                            data)
        else:
            kind = rng.choices(KIND_NAMES, KIND_WEIGHTS)[0]
            op = rng.choice(self.ops)
        dump = "dump" in self.op_flags[op] and \
            ("do" not in self.op_flags[op] or rng.random() < 0.3)
        c = self.mutate(idx, rng, kind, op, dump)
        c.nocap = rng.random() < 0.1
        return c

    def seq(self, idx, k=0):
        return ((idx + 1) << 3 | k) & 0xffffffff

    ATTR_KINDS = ("drop_attr", "drop_all", "wrong_len", "other_op_attr",
                  "unknown_attr", "nested_flag", "nest_garbage", "deep_nest",
                  "empty_nest", "bad_nla_len", "trailing", "extreme_int",
                  "string", "dup_attr", "netbyteorder")

    def mutate_attrs(self, rng, kind, op, dump, nodes):
        """An attribute-level mutation of nodes (changed in place where
        possible); returns (nodes, bytes to append, note)."""
        pol = self.policy_of(op, dump)
        tail = b""
        note = ""

        def pick():
            alln = self.all_nodes(nodes)
            return rng.choice(alln) if alln else None

        def nest_type():
            nested = [a for a, s in pol.items() if s.get("type") == "nested"]
            return rng.choice(nested) if nested else rng.randrange(1, self.a_max + 1)

        if kind == "drop_attr":
            p = pick()
            if p:
                lst, i, n = p
                note = "drop %d" % n.num
                del lst[i]
        elif kind == "drop_all":
            nodes = []
        elif kind == "wrong_len":
            p = pick()
            if p:
                n = p[2]
                ln = rng.choice(ODD_LENGTHS)
                n.kids = None
                if rng.random() < 0.5:
                    n.t &= ~NLA_F_NESTED
                n.payload = self.rand_bytes(rng, ln)
                note = "attr %d len %d" % (n.num, ln)
        elif kind == "other_op_attr":
            others = [(a, s) for o2 in self.ops for d2 in ("do", "dump")
                      for a, s in self.pol_num.get(o2, {}).get(d2, {}).items()
                      if a not in pol]
            if others:
                a, s = rng.choice(others)
                node = self.valid_node(a, s, rng)
            else:
                a = rng.randrange(1, self.a_max + 1)
                node = N(a, self.rand_bytes(rng, 4))
            nodes.insert(rng.randrange(len(nodes) + 1), node)
            note = "attr %d" % a
        elif kind == "unknown_attr":
            nests = [n for n in nodes if n.kids is not None]
            if nests and rng.random() < 0.4:
                host = rng.choice(nests)
                t2 = rng.choice([0, len(self.addr_num), 0x7f,
                                 rng.randrange(4, 0x4000)])
                host.kids.insert(rng.randrange(len(host.kids) + 1),
                                 N(t2, self.rand_bytes(rng, 4)))
                note = "nested attr %d" % t2
            else:
                t = rng.choice([0, self.a_max + 1, self.a_max + 2,
                                rng.randrange(self.a_max + 1, 0x4000), 0x3fff])
                t |= rng.choice([0, 0, NLA_F_NESTED, NLA_F_NET_BYTEORDER])
                nodes.insert(rng.randrange(len(nodes) + 1),
                             N(t, self.rand_bytes(rng, rng.choice([0, 4, 8, 13]))))
                note = "attr 0x%x" % t
        elif kind == "nested_flag":
            p = pick()
            if p:
                n = p[2]
                n.t ^= NLA_F_NESTED
                if n.kids is None and n.t & NLA_F_NESTED and rng.random() < 0.5:
                    n.kids = [N(1, n.payload)] if n.payload else []
                note = "attr %d nested flag %s" % (
                    n.num, "on" if n.t & NLA_F_NESTED else "off")
        elif kind in ("nest_garbage", "deep_nest", "empty_nest"):
            a = nest_type()
            nodes = [n for n in nodes if n.num != a]
            if kind == "nest_garbage":
                node = N(a | NLA_F_NESTED, self.rand_bytes(rng, rng.randrange(1, 65)))
            elif kind == "empty_nest":
                node = N(a | NLA_F_NESTED, kids=[])
            else:
                inner = N(rng.randrange(1, 4), struct.pack("<H", 7000) + b"\0\0")
                for _ in range(rng.randrange(2, 40)):
                    inner = N(rng.randrange(1, 4) | NLA_F_NESTED, kids=[inner])
                node = N(a | NLA_F_NESTED, kids=[inner])
            nodes.insert(rng.randrange(len(nodes) + 1), node)
            note = "%s %d" % (kind, a)
        elif kind == "bad_nla_len":
            if not nodes:
                nodes = [N(rng.randrange(1, self.a_max + 1), b"\0" * 4)]
            n = pick()[2]
            total = len(encode_all(nodes))
            n.lie = rng.choice([0, 1, 2, 3, total + 4, 0xffff,
                                rng.randrange(4, 0x10000)])
            note = "attr %d nla_len %d" % (n.num, n.lie)
        elif kind == "trailing":
            tail = self.rand_bytes(rng, rng.choice([1, 2, 3, 4, 6, 9]))
            note = "tail %d" % len(tail)
        elif kind == "extreme_int":
            ints = [n for _, _, n in self.all_nodes(nodes)
                    if self.spec_of(op, dump, n, nodes).get("type") in INT_WIDTH]
            if not ints:
                cand = [(a, s) for a, s in pol.items() if s.get("type") in INT_WIDTH]
                if cand:
                    a, s = rng.choice(cand)
                    nodes.append(N(a, self.valid_payload(s, rng)))
                    ints = [nodes[-1]]
            if ints:
                n = rng.choice(ints)
                spec = self.spec_of(op, dump, n, nodes)
                w = INT_WIDTH[spec["type"]]
                v = rng.choice(self.extreme_values(spec, w, rng))
                n.payload = v.to_bytes(w, "little")
                note = "attr %d = %d" % (n.num, v)
        elif kind == "string":
            strs = [(a, s) for a, s in pol.items()
                    if s.get("type") in ("nul_string", "string")]
            if strs:
                a, s = rng.choice(strs)
                mx = s.get("max_length", 31) or 31
                v = rng.choice([
                    b"abc", b"", b"\0", b"a b\0", b"a\x01b\0", b"\x7f\0",
                    b"\xff\xfe\0", b"\xc3\xa9t\xc3\xa9\0", b"\xe2\x82\xac\0",
                    b"12345\0", b"x" * mx + b"\0", b"y" * (mx + 1) + b"\0",
                    b"z" * (mx + 1), b"ab\0cd\0", b"\n\0", b"\t\0", b"-\0",
                    b"%s%n%x\0", b"\0abc\0", b"q" * 4096, b"Q" * 200 + b"\0",
                    self.rand_bytes(rng, rng.randrange(1, 40)),
                    self.rand_bytes(rng, rng.randrange(1, 20)) + b"\0"])
                nodes = [n for n in nodes if n.num != a]
                nodes.insert(rng.randrange(len(nodes) + 1), N(a, v))
                note = "attr %d = %r" % (a, v[:40])
        elif kind == "dup_attr":
            if nodes:
                n = rng.choice(nodes)
                spec = pol.get(n.num, {})
                nodes.insert(rng.randrange(len(nodes) + 1),
                             self.valid_node(n.num, spec, rng) if spec else n.copy())
                note = "attr %d twice" % n.num
        elif kind == "netbyteorder":
            p = pick()
            if p:
                p[2].t |= NLA_F_NET_BYTEORDER
                note = "attr %d" % p[2].num
        return nodes, tail, note

    def mutate(self, idx, rng, kind, op, dump, k=0):
        """A case of the given kind for op (k: index of the message in
        the datagram, for its seq)."""
        fam = self.fam_id
        cmd = self.uapi.cmd(op)
        seq = self.seq(idx, k)
        flags = NLM_F_REQUEST | NLM_F_ACK | (NLM_F_DUMP if dump else 0)
        nodes = self.base(op, dump, rng)
        note = ""
        hdr = dict(version=1, reserved=0, pid=0)
        tail = b""
        opname = op + (".dump" if dump else "")

        def msg():
            return nlmsg(fam, flags, seq, cmd, encode_all(nodes) + tail, **hdr)

        if kind in self.ATTR_KINDS:
            nodes, tail, note = self.mutate_attrs(rng, kind, op, dump, nodes)
            # Nothing to mutate (e.g. no string in this op): add what
            # does not belong instead.
            if not note and kind != "drop_all":
                kind = rng.choice(("other_op_attr", "unknown_attr", "nest_garbage"))
                nodes, tail, note = self.mutate_attrs(rng, kind, op, dump, nodes)
                note = "instead: %s %s" % (kind, note)
        elif kind == "combo":
            ks = rng.sample(self.ATTR_KINDS, rng.randrange(2, 4))
            notes = []
            for k2 in ks:
                nodes, t2, n2 = self.mutate_attrs(rng, k2, op, dump, nodes)
                tail += t2
                notes.append("%s(%s)" % (k2, n2))
            note = " ".join(notes)
        elif kind == "truncate":
            full = msg()
            cut = rng.randrange(0, len(full)) if len(full) > 20 else 18
            data = full[:cut]
            if rng.random() < 0.5 and cut >= 16:
                data = struct.pack("<I", cut) + data[4:]
                note = "cut at %d, nlmsg_len fixed" % cut
            else:
                note = "cut at %d of %d" % (cut, len(full))
            return Case(idx, kind, opname, data, note=note)
        elif kind == "short_datagram":
            n = rng.randrange(0, 16)
            data = msg()[:n] if rng.random() < 0.5 else self.rand_bytes(rng, n)
            return Case(idx, kind, opname, data, note="%d bytes" % n)
        elif kind == "bad_nlmsg_len":
            full = msg()
            ln = rng.choice([0, 1, 8, 15, len(full) + 1, len(full) + 4,
                             0xffffffff, 0x10000,
                             rng.randrange(len(full) + 1, 1 << 20)])
            data = struct.pack("<I", ln) + full[4:]
            return Case(idx, kind, opname, data,
                        note="nlmsg_len %d of %d" % (ln, len(full)))
        elif kind == "short_genl":
            ln = rng.randrange(16, 20)
            full = msg()
            if rng.random() < 0.5:
                data = struct.pack("<I", ln) + full[4:ln]
                note = "nlmsg_len %d" % ln
            else:
                # The rest of the datagram is then the next message:
                # make it one (a valid request of op).
                nxt = nlmsg(fam, NLM_F_REQUEST | NLM_F_ACK, self.seq(idx, 7), cmd,
                            encode_all(self.base(op, False, rng)))
                data = struct.pack("<I", ln) + full[4:ln] + \
                    b"\0" * (genl.align4(ln) - ln) + nxt
                note = "nlmsg_len %d, then a request" % ln
            return Case(idx, kind, opname, data, note=note)
        elif kind == "oversize":
            v = rng.randrange(5)
            pol = self.policy_of(op, dump)
            if v == 0:		# one attribute as big as nla_len allows
                a = rng.choice(list(pol) or [rng.randrange(1, self.a_max + 1)])
                nodes.append(N(a, self.rand_bytes(rng, 0xffff - 4 - rng.randrange(4))))
                note = "attr %d of 64 KiB" % a
            elif v == 1 and nodes:	# 64 KiB of repeats of a valid attribute
                a = rng.choice(nodes)
                rep = max(1, 65536 // max(len(a.encode()), 4))
                nodes = nodes + [a.copy() for _ in range(rep)]
                note = "%d repeats of attr %d" % (rep, a.num)
            elif v == 2:
                tail = b"\0" * 65536
                note = "64 KiB of zeros"
            elif v == 3:
                tail = self.rand_bytes(rng, 65536)
                note = "64 KiB random"
            else:
                tail = b"".join(genl.nla(rng.randrange(1, 0x4000), b"\0" * 4)
                                for _ in range(8192))
                note = "8192 random-type attributes"
        elif kind == "dump_flag":
            flags = (flags & ~NLM_F_DUMP) | (0 if dump else NLM_F_DUMP)
            if rng.random() < 0.3:
                flags = (flags & ~NLM_F_DUMP) | rng.choice([0x100, 0x200])
            note = "flags 0x%x" % flags
        elif kind == "nlmsg_flags":
            bit = rng.choice([0x02, 0x08, 0x10, 0x20, 0x40, 0x80, 0x100,
                              0x200, 0x400, 0x800, 0x1000, 0x8000,
                              rng.getrandbits(16)])
            flags = (flags | bit) if rng.random() < 0.8 else (bit | NLM_F_REQUEST)
            note = "flags 0x%x" % flags
        elif kind == "reserved":
            hdr["reserved"] = rng.choice([1, 0x8000, 0xffff, rng.randrange(1, 0x10000)])
            note = "reserved 0x%x" % hdr["reserved"]
        elif kind == "version":
            hdr["version"] = rng.choice([0, 2, 0xff, rng.randrange(256)])
            hdr["pid"] = rng.choice([0, 1, 0xffffffff, rng.getrandbits(32)])
            note = "version %d pid %d" % (hdr["version"], hdr["pid"])
        elif kind == "random_body":
            body = self.rand_bytes(rng, rng.randrange(0, 200))
            fl = rng.choice([flags, rng.getrandbits(16) | NLM_F_REQUEST])
            data = NLMSG_HDR.pack(NLMSG_HDR.size + len(body), fam, fl, seq, 0) + body
            c = body[0] if body else None
            return Case(idx, kind, self.op_by_cmd.get(c, str(c)), data,
                        note="%d bytes, flags 0x%x" % (len(body), fl))
        elif kind == "random_attrs":
            nodes = []
            tail = self.rand_bytes(rng, rng.randrange(1, 300))
            note = "%d random bytes" % len(tail)
        elif kind == "multi_msg":
            parts = []
            n = rng.randrange(2, 4)
            for j in range(n):
                k2 = rng.choice(self.ATTR_KINDS + ("valid", "no_ack", "dump_flag",
                                                   "reserved", "no_request"))
                op2 = rng.choice(self.ops)
                d2 = "dump" in self.op_flags[op2] and rng.random() < 0.3
                parts.append(self.mutate(idx, rng, k2, op2, d2, k=j + 1).data)
            data = b"".join(x + b"\0" * (genl.align4(len(x)) - len(x)) for x in parts)
            if rng.random() < 0.3:
                data += self.rand_bytes(rng, rng.randrange(1, 16))
            return Case(idx, kind, "+".join(self.op_by_cmd.get(x[16], "?")
                                            for x in parts if len(x) > 16),
                        data, note="%d messages" % n)
        elif kind == "control_type":
            t = rng.choice([0, 1, 2, 3, 4, 15, rng.randrange(0, 16)])
            data = NLMSG_HDR.pack(20, t, NLM_F_REQUEST | NLM_F_ACK, seq, 0) + \
                GENL_HDR.pack(cmd, 1, 0)
            return Case(idx, kind, "type%d" % t, data)
        elif kind == "no_request":
            flags &= ~NLM_F_REQUEST
            if rng.random() < 0.5:
                flags &= ~NLM_F_ACK
            note = "flags 0x%x" % flags
        elif kind == "no_ack":
            flags &= ~NLM_F_ACK
        elif kind == "random_cmd":
            cmd = rng.randrange(256)
            opname = self.op_by_cmd.get(cmd, str(cmd))
        return Case(idx, kind, opname, msg(), note=note)


# ---- sending and checking ----

def parse_msgs(data):
    off = 0
    while off + 16 <= len(data):
        ln, t, fl, seq, pid = NLMSG_HDR.unpack_from(data, off)
        if ln < 16 or off + ln > len(data):
            break
        yield t, fl, seq, data[off + 16:off + ln]
        off += genl.align4(ln)


def ext_ack(t, flags, payload):
    """(errno, report) of an NLMSG_ERROR/NLMSG_DONE payload; report has
    msg, offs, miss_type, miss_nest, policy, cookie as present."""
    err = struct.unpack_from("<i", payload)[0] if len(payload) >= 4 else 0
    rep = {}
    if not flags & genl.NLM_F_ACK_TLVS:
        return err, rep
    if t == genl.NLMSG_ERROR:
        olen = 16
        if not flags & genl.NLM_F_CAPPED and len(payload) >= 8:
            olen = struct.unpack_from("<I", payload, 4)[0]
        tlvs = payload[4 + genl.align4(olen):]
    else:
        tlvs = payload[4:]
    names = {genl.NLMSGERR_ATTR_MSG: "msg", genl.NLMSGERR_ATTR_OFFS: "offs",
             genl.NLMSGERR_ATTR_MISS_TYPE: "miss_type",
             genl.NLMSGERR_ATTR_MISS_NEST: "miss_nest",
             genl.NLMSGERR_ATTR_POLICY: "policy",
             genl.NLMSGERR_ATTR_COOKIE: "cookie"}
    for at, _, p in genl.parse_nlas(tlvs):
        k = names.get(at)
        if k == "msg":
            rep[k] = p.split(b"\0", 1)[0].decode(errors="replace")
        elif k in ("offs", "miss_type", "miss_nest") and len(p) >= 4:
            rep[k] = struct.unpack_from("<I", p)[0]
        elif k:
            rep[k] = p.hex()
    return err, rep


class Runner:
    def __init__(self, fz, opts):
        self.fz = fz
        self.o = opts
        self.g = fz.g
        self.socks = {False: self._sock(True), True: self._sock(False)}
        self.classes = {}
        self.errnos = {}
        self.kinds = {}
        self.exceptions = {}
        self.created = {"listener": 0, "session": 0, "test": 0}
        self.created_cases = []
        self.violations = []
        self.vkinds = {}
        self.sent = 0
        self.answers = []
        self.slow = []
        self.current = None		# (case, start), for the watchdog
        self.t0 = time.monotonic()
        names = set()
        self.baseline = self.objects(names)
        # What exists already is never deleted by a case.
        fz.protect_ids["SESSION_ID"] |= self.baseline["session"] - {None}
        fz.protect_ids["LISTENER_ID"] |= self.baseline["listener"] - {None}
        fz.protect_names |= {n.encode() for n in names}

    def _sock(self, cap):
        s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, genl.NETLINK_GENERIC)
        s.setsockopt(genl.SOL_NETLINK, genl.NETLINK_EXT_ACK, 1)
        if cap:
            s.setsockopt(genl.SOL_NETLINK, genl.NETLINK_CAP_ACK, 1)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
        s.bind((0, 0))
        return s

    # -- bookkeeping --

    def count(self, d, k, n=1):
        d[k] = d.get(k, 0) + n

    def violate(self, case, what, **kw):
        self.count(self.vkinds, what)
        if len(self.violations) < self.o.max_violations:
            v = {"case": case.idx if case else None,
                 "kind": case.kind if case else None,
                 "op": case.op if case else None, "what": what}
            if case is not None:
                v["note"] = case.note
                v["len"] = len(case.data)
                v["hex"] = case.data[:self.o.hex_cap].hex()
            v.update(kw)
            self.violations.append(v)
        if self.o.verbose:
            print("nlfuzz: VIOLATION %s case %s %s: %s" % (
                what, case.idx if case else "-", case.kind if case else "",
                json.dumps(kw)), file=sys.stderr)

    def objects(self, names=None):
        """{"listener": {id}, "session": {id}, "test": {id}} now; names
        (a set) gets the listeners' and sessions' names."""
        out = {}
        for kind, cmd, key in (("listener", "LISTENER_GET", "listener_id"),
                               ("session", "SESSION_GET", "session_id"),
                               ("test", "TEST_GET", "test_id")):
            try:
                msgs = self.g.dump(cmd)
            except genl.NlError as e:
                msgs = []
                self.violate(None, "family_gone", detail="%s dump: %s" % (cmd, e))
            out[kind] = {m.get(key) for m in msgs}
            if names is not None:
                names.update(m["name"] for m in msgs if "name" in m)
        return out

    # -- one case --

    def recv_one(self, sock, timeout):
        if timeout > 0:
            r, _, _ = select.select([sock], [], [], timeout)
            if not r:
                return None
        try:
            n = sock.recv_into(bytearray(16), 16,
                               socket.MSG_PEEK | socket.MSG_TRUNC | socket.MSG_DONTWAIT)
            return sock.recv(max(n, 16), socket.MSG_DONTWAIT)
        except BlockingIOError:
            return None

    def run_case(self, case):
        sock = self.socks[case.nocap]
        self.current = (case, time.monotonic())
        self.answers = []
        try:
            sock.sendto(case.data, (0, 0))
        except OSError as e:
            # 6.1 refuses an empty datagram (ENODATA); anything else the
            # socket refuses is not what this fuzzer means to test.
            self.count(self.errnos, "send:" + genl.errname(e.errno))
            if case.data or e.errno != E.ENODATA:
                self.violate(case, "send_error", errno=genl.errname(e.errno))
            self.count(self.classes, "send_refused")
            self.count(self.kinds, case.kind)
            self.current = None
            return
        self.sent += 1
        subs = {s[4]: s for s in case.subs}
        if not subs:
            self.count(self.kinds, case.kind)
            self.count(self.classes, "dropped")
        got = {seq: [] for seq in subs}
        done = set()
        deadline = time.monotonic() + self.o.timeout

        def pending():
            for seq, (off, ln, t, fl, _, p) in subs.items():
                if seq in done:
                    continue
                if p["expect"] == "ack0":
                    return True
                if p["expect"] == "answer" and (fl & NLM_F_ACK or p["dump"]):
                    return True
                if any(m[1] & genl.NLM_F_MULTI for m in got[seq]):
                    return True
            return False

        while True:
            data = self.recv_one(sock, 0)
            if data is None:
                if not pending():
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    self.violate(case, "timeout",
                                 detail="no answer within %gs" % self.o.timeout)
                    break
                data = self.recv_one(sock, left)
                if data is None:
                    continue
            for t, fl, seq, payload in parse_msgs(data):
                if seq not in got:
                    self.violate(case, "unexpected_reply",
                                 detail="message type %d seq %d nobody asked for" % (t, seq))
                    continue
                if seq in done:
                    self.violate(case, "extra_answer",
                                 detail="message type %d after the answer" % t)
                    continue
                got[seq].append((t, fl, payload))
                if t in (genl.NLMSG_ERROR, genl.NLMSG_DONE):
                    done.add(seq)
        for seq, sub in subs.items():
            self.check(case, sub, got[seq])
        self.current = None

    def check(self, case, sub, msgs):
        off, ln, t, fl, seq, p = sub
        kind = case.kind
        if self.o.trace:
            a = {"seq": seq, "expect": p["expect"], "reject": p["reject"],
                 "msgs": []}
            for mt, mfl, pay in msgs:
                m = {"type": mt, "flags": mfl}
                if mt in (genl.NLMSG_ERROR, genl.NLMSG_DONE):
                    err, rep = ext_ack(mt, mfl, pay)
                    m["errno"] = genl.errname(-err) if err < 0 else 0
                    m.update(rep)
                elif len(pay) >= 4:
                    m["cmd"] = pay[0]
                m.pop("policy", None)
                a["msgs"].append(m)
            self.answers.append(a)
        self.count(self.kinds, kind)
        if p["expect"] == "none":
            if msgs:
                self.violate(case, "unexpected_reply", seq=seq,
                             detail="answer to a message the kernel must drop")
            self.count(self.classes, "dropped")
            return
        if p["expect"] == "ack0":
            if len(msgs) == 1 and msgs[0][0] == genl.NLMSG_ERROR and \
                    ext_ack(*msgs[0])[0] == 0:
                self.count(self.classes, "ack0")
            else:
                self.violate(case, "unexpected_reply", seq=seq,
                             detail="want one bare ACK, got %d messages" % len(msgs))
            return
        terms = [m for m in msgs if m[0] in (genl.NLMSG_ERROR, genl.NLMSG_DONE)]
        data = [m for m in msgs if m[0] not in (genl.NLMSG_ERROR, genl.NLMSG_DONE,
                                                genl.NLMSG_NOOP)]
        if len(terms) > 1:
            self.violate(case, "extra_answer", seq=seq,
                         detail="%d answers" % len(terms))
        err, rep = (ext_ack(*terms[0]) if terms else (0, {}))
        if not terms and (fl & NLM_F_ACK or any(m[1] & genl.NLM_F_MULTI for m in data)):
            return	# the timeout is already recorded
        if err < 0:
            en = -err
            name = genl.errname(en)
            self.count(self.classes, "error")
            self.count(self.errnos, name)
            reported = rep.get("msg") or "offs" in rep or "miss_type" in rep
            if not reported:
                why = p["noext"]
                ok = (why == "EOPNOTSUPP" and en == E.EOPNOTSUPP or
                      why == "EPERM" and en == E.EPERM or
                      why == "EPERM or EOPNOTSUPP" and
                      en in (E.EPERM, E.EOPNOTSUPP) or
                      why == "short genlmsghdr" and en == E.EINVAL)
                if ok:
                    self.count(self.exceptions, why)
                else:
                    self.violate(case, "no_extack", seq=seq, errno=name,
                                 predicted=p["reject"])
            if p["eperm"] and en != E.EPERM and not (p["hdr"] and en == E.EINVAL) and \
                    not (p["noext"] == "EPERM or EOPNOTSUPP" and en == E.EOPNOTSUPP):
                self.violate(case, "wrong_errno", seq=seq, errno=name,
                             want="EPERM", msg=rep.get("msg"))
            if not self.fz.unprivileged and en == E.EPERM:
                self.violate(case, "wrong_errno", seq=seq, errno=name,
                             want="not EPERM as admin", msg=rep.get("msg"))
            if p["eopnotsupp"] and en != E.EOPNOTSUPP:
                self.violate(case, "wrong_errno", seq=seq, errno=name,
                             want="EOPNOTSUPP", msg=rep.get("msg"))
            if data and not p["dump"]:
                self.violate(case, "extra_answer", seq=seq,
                             detail="%d data messages and an error" % len(data))
            return
        # Success.
        cls = ("dump" if any(m[1] & genl.NLM_F_MULTI for m in data) or
               (terms and terms[0][0] == genl.NLMSG_DONE)
               else "reply" if data else "ack" if terms else "noack")
        self.count(self.classes, cls)
        if p["reject"]:
            self.violate(case, "accepted_invalid", seq=seq, why=p["reject"],
                         answer=cls)
        self.undo(case, sub, data)

    # -- objects made by a case --

    def undo(self, case, sub, data):
        p = sub[5]
        if p["dump"] or p["op"] not in CREATES:
            return
        key = CREATES[p["op"]]
        for t, fl, payload in data:
            if len(payload) < 4:
                continue
            d = self.g.decode(payload[0], payload[4:])
            oid = d.get(key.lower())
            if oid is None:
                continue
            kind = p["op"].split("_")[0].lower()
            self.count(self.created, kind)
            if len(self.created_cases) < self.o.max_violations:
                self.created_cases.append({"case": case.idx, "kind": case.kind,
                                           "op": p["op"], "id": oid,
                                           "note": case.note,
                                           "hex": case.data[:self.o.hex_cap].hex()})
            try:
                self.remove(kind, oid)
            except genl.NlError as e:
                self.violate(case, "cleanup_failed", object=kind, id=oid,
                             detail=str(e))

    def remove(self, kind, oid):
        if kind == "listener":
            self.g.do("LISTENER_DEL", [("LISTENER_ID", oid)])
        elif kind == "session":
            try:
                self.g.do("SESSION_DEL", [("SESSION_ID", oid)])
            except genl.NlError as e:
                if e.errno != E.ENOENT:	# already gone: fine
                    raise
        elif kind == "test":
            try:
                self.g.do("TEST_STOP", [("TEST_ID", oid)])
            except genl.NlError as e:
                if e.errno not in (E.EALREADY, E.ENOENT):
                    raise
            wait = max(20, 4 * self.o.timeout)
            end = time.monotonic() + wait
            while time.monotonic() < end:
                try:
                    d = self.g.do("TEST_GET", [("TEST_ID", oid)])
                except genl.NlError as e:
                    if e.errno == E.ENOENT:
                        return
                    raise
                if d and d[0].get("test_state") != 1:	# KRDMA_TEST_RUNNING
                    return
                time.sleep(0.05)
            raise genl.NlError(E.ETIMEDOUT, "test %d still running %g s "
                               "after TEST_STOP" % (oid, wait))

    # -- the run --

    def finish(self):
        """Family still there; nothing left but what was there before."""
        try:
            v = self.g.do("VERSION_GET")
            if not v or "abi_version" not in v[0]:
                self.violate(None, "family_gone", detail="VERSION_GET: %r" % v)
        except genl.NlError as e:
            self.violate(None, "family_gone", detail="VERSION_GET: %s" % e)
            return
        end = time.monotonic() + 30
        while True:
            now = self.objects()
            extra = {k: sorted(x for x in now[k] - self.baseline[k] if x is not None)
                     for k in now}
            # A session keeps its last test, ended, until it goes: only
            # a test still running is left over.
            extra["test"] = [x for x in extra["test"] if self.running(x)]
            if not any(extra.values()) or time.monotonic() > end:
                break
            for kind in ("test", "session", "listener"):
                for oid in extra[kind]:
                    try:
                        self.remove(kind, oid)
                    except genl.NlError:
                        pass
            time.sleep(0.5)
        if any(extra.values()):
            self.violate(None, "leftover", objects=extra)

    def running(self, test_id):
        try:
            d = self.g.do("TEST_GET", [("TEST_ID", test_id)])
        except genl.NlError:
            return False
        return bool(d) and d[0].get("test_state") == 1	# KRDMA_TEST_RUNNING

    def summary(self, count, watchdog=None):
        s = {"seed": self.o.seed, "count": count, "sent": self.sent,
             "mode": "unprivileged" if self.fz.unprivileged else "privileged",
             "elapsed_s": round(time.monotonic() - self.t0, 2),
             "classes": self.classes, "errnos": self.errnos,
             "kinds": self.kinds, "exceptions": self.exceptions,
             "created": self.created, "created_cases": self.created_cases,
             "violations": sum(self.vkinds.values()),
             "violation_kinds": self.vkinds,
             "violation_list": self.violations,
             "slowest": [{"case": i, "kind": k, "op": op, "s": round(dt, 3)}
                         for dt, i, k, op in sorted(self.slow, reverse=True)[:5]]}
        if watchdog:
            s["watchdog"] = watchdog
        return s


def watchdog(runner, hang, count):
    while True:
        time.sleep(1)
        cur = runner.current
        if cur and time.monotonic() - cur[1] > hang:
            case = cur[0]
            runner.violate(case, "timeout",
                           detail="the kernel has not returned from sendmsg/recv "
                           "for %gs" % hang)
            print(json.dumps(runner.summary(count, watchdog="case %d" % case.idx),
                             sort_keys=True), flush=True)
            os._exit(3)


class Opts:
    seed = 1
    count = 3000
    only = None
    timeout = 5.0
    hang = 60.0
    ip = "127.0.0.1"
    dev = "rxe0"
    port_base = 7300
    session = None
    session_frac = 0.2
    unprivileged = None
    max_violations = 20
    hex_cap = 256
    do_print = False
    trace = None
    budget = None
    min_random = 0
    offline = None
    verbose = False

    def __init__(self):
        self.protect_session = []
        self.protect_listener = []


def parse_args(argv):
    o = Opts()
    i = 0

    def val():
        nonlocal i
        if i + 1 >= len(argv):
            raise genl.LocalError("%s needs a value" % argv[i])
        i += 1
        return argv[i]
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        elif a == "--seed":
            o.seed = int(val(), 0)
        elif a == "--count":
            o.count = int(val(), 0)
        elif a == "--only":
            o.only = [int(x, 0) for x in val().split(",")]
        elif a == "--timeout":
            o.timeout = float(val())
        elif a == "--hang":
            o.hang = float(val())
        elif a == "--budget":
            o.budget = float(val())
        elif a == "--min-random":
            o.min_random = int(val(), 0)
        elif a == "--ip":
            o.ip = val()
        elif a == "--dev":
            o.dev = val()
        elif a == "--port-base":
            o.port_base = int(val(), 0)
        elif a == "--session":
            o.session = int(val(), 0)
        elif a == "--session-frac":
            o.session_frac = float(val())
        elif a == "--protect-session":
            o.protect_session.append(val())
        elif a == "--protect-listener":
            o.protect_listener.append(val())
        elif a == "--unprivileged":
            o.unprivileged = True
        elif a == "--privileged":
            o.unprivileged = False
        elif a == "--max-violations":
            o.max_violations = int(val(), 0)
        elif a == "--hex-cap":
            o.hex_cap = int(val(), 0)
        elif a == "--trace":
            o.trace = val()
        elif a == "--print":
            o.do_print = True
        elif a == "--offline":
            o.offline = (val(), val())
        elif a == "-v":
            o.verbose = True
        else:
            raise genl.LocalError("unknown argument %r (see --help)" % a)
        i += 1
    if o.unprivileged is None:
        o.unprivileged = os.geteuid() != 0
    if o.offline and not o.do_print:
        raise genl.LocalError("--offline needs --print")
    return o


def main(argv):
    try:
        o = parse_args(argv)
        if o.offline:
            with open(o.offline[0]) as f:
                fam = json.load(f)
            with open(o.offline[1]) as f:
                pol = json.load(f)
            fz = Fuzzer(o, fam, pol)
        else:
            fz = Fuzzer(o)
    except (genl.LocalError, OSError, ValueError) as e:
        print("nlfuzz: %s" % e, file=sys.stderr)
        return 2
    except genl.NlError as e:
        print("nlfuzz: the family does not answer: %s" % e, file=sys.stderr)
        return 2
    idxs = o.only if o.only is not None else range(o.count)
    if o.do_print:
        for i in idxs:
            c = fz.make(i)
            print(json.dumps({"case": i, "kind": c.kind, "op": c.op,
                              "note": c.note, "nocap": c.nocap,
                              "len": len(c.data), "hex": c.data.hex(),
                              "subs": [{"off": s[0], "len": s[1], "type": s[2],
                                        "flags": s[3], "seq": s[4],
                                        "expect": s[5]["expect"],
                                        "reject": s[5]["reject"]}
                                       for s in c.subs]}))
        return 0
    try:
        r = Runner(fz, o)
    except OSError as e:
        print("nlfuzz: %s" % e, file=sys.stderr)
        return 2
    threading.Thread(target=watchdog, args=(r, o.hang, len(idxs)),
                     daemon=True).start()
    trace = open(o.trace, "w") if o.trace else None
    ran = 0
    for n, i in enumerate(idxs):
        if o.budget is not None and time.monotonic() - r.t0 > o.budget:
            break
        case = fz.make(i)
        t = time.monotonic()
        r.run_case(case)
        dt = time.monotonic() - t
        ran += 1
        r.slow.append((dt, i, case.kind, case.op))
        if len(r.slow) > 20:
            r.slow.sort(reverse=True)
            del r.slow[5:]
        if trace:
            trace.write(json.dumps({"case": i, "kind": case.kind, "op": case.op,
                                    "note": case.note, "len": len(case.data),
                                    "s": round(dt, 4),
                                    "hex": case.data[:o.hex_cap].hex(),
                                    "answers": r.answers}) + "\n")
        if o.verbose and n % 500 == 499:
            print("nlfuzz: %d cases, %.1fs" % (n + 1, time.monotonic() - r.t0),
                  file=sys.stderr)
    r.finish()
    s = r.summary(ran)
    s["sweep"] = len(fz.sweep)
    s["random"] = max(0, ran - len(fz.sweep)) if o.only is None else 0
    short = o.only is None and s["random"] < o.min_random
    if short:
        s["too_few_random"] = o.min_random
    print(json.dumps(s, sort_keys=True), flush=True)
    if short:
        print("nlfuzz: only %d random cases ran after the sweep of %d, want %d"
              % (s["random"], s["sweep"], o.min_random), file=sys.stderr)
    return 1 if s["violations"] or short else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
