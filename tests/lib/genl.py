#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Small Generic Netlink client for the krdma tests (python3 stdlib only).

The numbers (commands, attributes, enums, limits) and the attribute types
are read at run time from the family's YNL spec,
Documentation/netlink/specs/krdma.yaml, so they never drift: the uAPI
header is rendered from the same file (scripts/spec-to-c.py), and the
names here are the header's (KRDMA_A_DEV_INDEX, enum krdma_addr_attr),
made by the same rules. Needs python3-yaml (its C loader if there is
one); nothing else outside the standard library.

Command line:

    genl.py [OPTIONS] CMD [ATTR=VALUE ...] [--raw-attr TYPE:HEX ...]

    CMD       LISTENER_ADD, listener_add, KRDMA_CMD_LISTENER_ADD or a number
    ATTR      NAME, name or KRDMA_A_NAME; nested: PEER_ADDR.IPV4=10.0.0.1
              (all parts of one nest are grouped into one nest attribute)
    VALUE     integers: decimal/0x..., or an enum name (TEST_OP=write);
              string: as is (sent NUL-terminated); binary: an IPv4/IPv6
              address or hex:0a0b..; flag: anything (ignored)
    --raw-attr TYPE:HEX   add an attribute with exactly these payload bytes;
              TYPE is a name or a number (flags included: 32782 is
              NAME with NLA_F_NESTED), dotted for inside a nest
              (PEER_ADDR.IPV4:0a4d00)
    --dump    send a dump request (NLM_F_DUMP)
    -j/--json on an error, print a JSON object (errno, msg, offs, attr,
              miss_type, policy) instead of the "error ..." line
    --batch   read requests from stdin, one per line ("CMD ATTR=V ..."),
              print one output line per request (ok / reply / error)
    --listen SECONDS  join the family's multicast groups and print events
              (one JSON object per line) for that long; with --count N,
              stop after N events
    --raw-tail HEX  append these bytes after the attributes
    --reserved N    put N in the genlmsghdr's reserved field
    --nlflags N     add these nlmsg_flags (e.g. 0x400) to the request
    --family  print the family as nlctrl describes it (JSON): id, version,
              hdrsize, maxattr, groups {NAME: ID}, ops {CMD: [flags]}
    --policy [CMD]  print the kernel's attribute policies (JSON), of every
              command or of CMD: {CMD: {"do"|"dump": {ATTR: {type, min_value_u,
              max_value_u, min_length, max_length, nested}}}}
    --spec PATH  the YNL spec (default: $KRDMA_SPEC, or
              ../../Documentation/netlink/specs/krdma.yaml next to this file)

Output: every reply message as one JSON object per line, "ok" for a bare
ACK, "error ERRNO MESSAGE" (ERRNO positive, MESSAGE the kernel's extended
ACK text, empty if none) on failure; details (offset, attribute, missing
attribute, policy) go to stderr.  Exit status: 0 ok, 1 kernel error,
2 local error (usage, family not found).

Library: import genl; g = genl.Genl(); g.do("LISTENER_ADD", [...]);
g.dump("LISTENER_GET"); errors raise genl.NlError.
"""

import errno as errno_mod
import json
import os
import re
import select
import shlex
import socket
import struct
import sys
import time

# ---- netlink constants (linux/netlink.h, linux/genetlink.h) ----
NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_ADD_MEMBERSHIP = 1
NETLINK_CAP_ACK = 10
NETLINK_EXT_ACK = 11

NLMSG_NOOP = 1
NLMSG_ERROR = 2
NLMSG_DONE = 3
NLMSG_OVERRUN = 4

NLM_F_REQUEST = 0x01
NLM_F_MULTI = 0x02
NLM_F_ACK = 0x04
NLM_F_ROOT = 0x100
NLM_F_MATCH = 0x200
NLM_F_DUMP = NLM_F_ROOT | NLM_F_MATCH
NLM_F_CAPPED = 0x100		# in NLMSG_ERROR
NLM_F_ACK_TLVS = 0x200		# in NLMSG_ERROR / NLMSG_DONE

NLMSGERR_ATTR_MSG = 1
NLMSGERR_ATTR_OFFS = 2
NLMSGERR_ATTR_COOKIE = 3
NLMSGERR_ATTR_POLICY = 4
NLMSGERR_ATTR_MISS_TYPE = 5
NLMSGERR_ATTR_MISS_NEST = 6

NLA_F_NESTED = 0x8000
NLA_F_NET_BYTEORDER = 0x4000
NLA_TYPE_MASK = ~(NLA_F_NESTED | NLA_F_NET_BYTEORDER) & 0xffff

GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
CTRL_ATTR_VERSION = 3
CTRL_ATTR_HDRSIZE = 4
CTRL_ATTR_MAXATTR = 5
CTRL_ATTR_OPS = 6
CTRL_ATTR_MCAST_GROUPS = 7
CTRL_ATTR_POLICY = 8
CTRL_ATTR_OP_POLICY = 9
CTRL_ATTR_OP = 10
CTRL_ATTR_OP_ID = 1
CTRL_ATTR_OP_FLAGS = 2
CTRL_ATTR_MCAST_GRP_NAME = 1
CTRL_ATTR_MCAST_GRP_ID = 2
CTRL_ATTR_POLICY_DO = 1
CTRL_ATTR_POLICY_DUMP = 2
CTRL_CMD_GETPOLICY = 10

# Operation flags (CTRL_ATTR_OP_FLAGS).
OP_FLAGS = {0x01: "admin_perm", 0x02: "do", 0x04: "dump", 0x08: "haspol",
            0x10: "uns_admin_perm"}

# enum netlink_attribute_type, as reported in policies.
NL_ATTR_TYPES = ["invalid", "flag", "u8", "u16", "u32", "u64", "s8", "s16",
                 "s32", "s64", "binary", "string", "nul_string", "nested",
                 "nested_array", "bitfield32", "sint", "uint"]

# linux/netlink.h enum netlink_policy_type_attr, for NLMSGERR_ATTR_POLICY.
POLICY_ATTRS = {
    1: ("type", "u32"), 2: ("min_value_s", "s64"), 3: ("max_value_s", "s64"),
    4: ("min_value_u", "u64"), 5: ("max_value_u", "u64"),
    6: ("min_length", "u32"), 7: ("max_length", "u32"),
    8: ("policy_idx", "u32"), 9: ("policy_maxtype", "u32"),
    10: ("bitfield32_mask", "u32"), 12: ("mask", "u64"),
}

INT_FMT = {"u8": "<B", "u16": "<H", "u32": "<I", "u64": "<Q",
           "s8": "<b", "s16": "<h", "s32": "<i", "s64": "<q"}

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SPEC = os.path.join(HERE, "..", "..", "Documentation", "netlink",
                            "specs", "krdma.yaml")


def align4(n):
    return (n + 3) & ~3


def errname(err):
    """EOPNOTSUPP, not python's ENOTSUP alias of the same number."""
    if err == errno_mod.EOPNOTSUPP:
        return "EOPNOTSUPP"
    return errno_mod.errorcode.get(err, "?")


class NlError(Exception):
    """A netlink error: errno (positive) and the extended ACK."""

    def __init__(self, err, msg="", offs=None, attr=None, miss_type=None,
                 miss_nest=None, policy=None):
        self.errno = err
        self.msg = msg or ""
        self.offs = offs
        self.attr = attr
        self.miss_type = miss_type
        self.miss_nest = miss_nest
        self.policy = policy
        super().__init__("error %d %s" % (err, self.msg))

    def as_dict(self):
        return {"error": self.errno,
                "errname": errname(self.errno),
                "msg": self.msg, "offs": self.offs, "attr": self.attr,
                "miss_type": self.miss_type, "miss_nest": self.miss_nest,
                "policy": self.policy}


class LocalError(Exception):
    """Usage or environment problem (not the kernel's answer)."""


# ---- the spec ----

def c_upper(name):
    """YNL's C names: upper case, '-' to '_' (scripts/spec-to-c.py)."""
    return name.upper().replace("-", "_")


def c_lower(name):
    return name.lower().replace("-", "_")


class Enum:
    """A C enum of the uAPI header as the spec defines it: an attribute
    set (each member with its type), the commands, or a value enum."""

    def __init__(self, name, prefix=""):
        self.name = name
        self.values = {}	# full name -> value
        self.by_value = {}	# value -> full name
        self.types = {}		# full name -> (type, enum of its nest or value)
        self.comments = {}	# full name -> "u32", "nest, enum ..."; "do, dump"
        self.prefix = prefix

    def add(self, full, value):
        self.values[full] = value
        self.by_value.setdefault(value, full)

    def short(self, full):
        return full[len(self.prefix):] if full.startswith(self.prefix) else full

    def lookup(self, word):
        """Value of a member given as FULL, SHORT or lower-case short name."""
        w = word.upper().replace("-", "_")
        for cand in (w, self.prefix + w):
            if cand in self.values and not cand.startswith("__"):
                return self.values[cand]
        raise KeyError(word)

    def type_of(self, full):
        """(type, argument): the spec's type of an attribute, and the C
        name of the enum of its nest or of its values (or None)."""
        return self.types.get(full, (None, None))


def _load_yaml(path):
    try:
        import yaml
    except ImportError:
        raise LocalError("reading the spec needs python3-yaml")
    with open(path) as f:
        return yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


class Spec:
    """The family's numbers and types, read from its YNL spec
    (Documentation/netlink/specs/krdma.yaml), with the C names the uAPI
    header has for them (scripts/spec-to-c.py --uapi renders it from the
    same spec, by the same rules): enums by their C tag (krdma_attr,
    krdma_cmd, krdma_addr_attr, krdma_op, ...), constants, limits and
    names in defines (KRDMA_DEPTH_MAX, KRDMA_A_MAX, KRDMA_GENL_NAME)."""
    _parsed = {}

    @classmethod
    def cached(cls, path=None):
        """One parse per spec version: tests/lib/pyeval.py runs main()
        many times in one process, and a guest under TCG is slow."""
        path = path or os.environ.get("KRDMA_SPEC") or DEFAULT_SPEC
        try:
            key = (path, os.stat(path).st_mtime_ns)
        except OSError:
            return cls(path)
        if key not in cls._parsed:
            cls._parsed[key] = cls(path)
        return cls._parsed[key]

    def __init__(self, path=None):
        path = path or os.environ.get("KRDMA_SPEC") or DEFAULT_SPEC
        try:
            y = _load_yaml(path)
        except (OSError, ValueError) as e:
            raise LocalError("cannot read the spec %s: %s" % (path, e))
        except Exception as e:	# yaml.YAMLError
            raise LocalError("cannot parse the spec %s: %s" % (path, e))
        self.path = path
        self.enums = {}
        self.defines = {}
        try:
            self._read(y)
            self.attrs = self.enums[self._set_tag(y, self.sets[y["name"]])]
            self.cmds = self.enums[c_lower(y["operations"].get(
                "enum-name", y["name"] + "-cmd"))]
        except (KeyError, TypeError) as e:
            raise LocalError("%s: not a spec of the family: %r" % (path, e))

    @staticmethod
    def _set_tag(y, s):
        return c_lower(s.get("enum-name", "%s-%s-attrs" % (y["name"], s["name"])))

    def _read(self, y):
        fam = y["name"]
        self.defines[c_upper(y.get("c-family-name", fam + "-family-name"))] = fam
        self.defines[c_upper(y.get("c-version-name", fam + "-family-version"))] = \
            y.get("version", 1)
        value_enums = {}
        for d in y.get("definitions", []):
            if d["type"] == "const":
                if not d.get("header"):
                    name = d.get("c-define-name", "%s-%s" % (fam, d["name"]))
                    self.defines[c_upper(name)] = d["value"]
                continue
            if d["type"] not in ("enum", "flags"):
                continue
            tag = c_lower(d.get("enum-name", "%s-%s" % (fam, d["name"])))
            pfx = c_upper(d.get("name-prefix", "%s-%s-" % (fam, d["name"])))
            en = Enum(tag, pfx)
            v = d.get("value-start", 0)
            for e in d.get("entries", []):
                e = e if isinstance(e, dict) else {"name": e}
                v = e.get("value", v)
                en.add(pfx + c_upper(e["name"]), 1 << v if d["type"] == "flags" else v)
                v += 1
            if d.get("render-max"):
                en.add("__" + pfx + "MAX", v)
                self.defines[pfx + "MAX"] = v - 1
            value_enums[d["name"]] = tag
            self.enums[tag] = en
        self.sets = {s["name"]: s for s in y["attribute-sets"]}
        for s in y["attribute-sets"]:
            pfx = c_upper(s.get("name-prefix", fam + "-a-"))
            en = Enum(self._set_tag(y, s), pfx)
            v = 0
            for a in s["attributes"]:
                v = a.get("value", v + 1)	# YNL: from 1, or the last + 1
                full = pfx + c_upper(a["name"])
                en.add(full, v)
                t = a.get("type")
                if t in ("unused", "pad", None):
                    continue
                arg = None
                if t == "nest":
                    arg = self._set_tag(y, self.sets[a["nested-attributes"]])
                elif "enum" in a:
                    arg = value_enums.get(a["enum"])
                en.types[full] = (t, arg)
                en.comments[full] = t + (", enum " + arg if arg else "") + \
                    (", multi" if a.get("multi-attr") else "")
            en.add("__" + pfx + "MAX", v + 1)
            self.defines[pfx + "MAX"] = v
            self.enums[en.name] = en
        ops = y["operations"]
        pfx = c_upper(ops.get("name-prefix", fam + "-cmd-"))
        en = Enum(c_lower(ops.get("enum-name", fam + "-cmd")), pfx)
        v = 0
        for op in ops["list"]:
            v = op.get("value", v + 1)
            full = pfx + c_upper(op["name"])
            en.add(full, v)
            kinds = [k for k in ("do", "dump", "event") if k in op]
            en.comments[full] = ", ".join(kinds + op.get("flags", []))
        en.add("__" + pfx + "MAX", v + 1)
        self.defines[pfx + "MAX"] = v
        self.enums[en.name] = en
        for g in y.get("mcast-groups", {}).get("list", []):
            self.defines[c_upper(g.get("c-define-name", "%s-mcgrp-%s" % (fam, g["name"])))] = \
                g["name"]

    def cmd(self, word):
        if re.fullmatch(r"\d+", word):
            return int(word)
        try:
            return self.cmds.lookup(word)
        except KeyError:
            raise LocalError("unknown command '%s' (one of: %s)" % (
                word, ", ".join(self.cmds.short(n) for n in self.cmds.values
                                if not n.startswith("__"))))


# The name the guest tests know it by.
Uapi = Spec


# ---- attribute encoding ----

def nla(atype, payload, nested=False):
    t = atype | (NLA_F_NESTED if nested else 0)
    hdr = struct.pack("<HH", 4 + len(payload), t)
    return hdr + payload + b"\0" * (align4(len(payload)) - len(payload))


def parse_nlas(data):
    """[(type without flags, flags, payload)] of a packed attribute stream."""
    out = []
    off = 0
    while off + 4 <= len(data):
        ln, t = struct.unpack_from("<HH", data, off)
        if ln < 4 or off + ln > len(data):
            break
        out.append((t & NLA_TYPE_MASK, t & ~NLA_TYPE_MASK & 0xffff,
                    data[off + 4:off + ln]))
        off += align4(ln)
    return out


class Attr:
    """One attribute to send: a scalar payload or a list of children."""

    def __init__(self, atype, name, payload=None, children=None):
        self.atype = atype
        self.name = name
        self.payload = payload
        self.children = children	# list of Attr for a nest

    def encode(self, base, offsets):
        """Bytes of this attribute placed at byte offset base of the
        message; records (offset, dotted name) of every attribute."""
        offsets.append((base, self.name))
        if self.children is None:
            return nla(self.atype, self.payload)
        body = b""
        for c in self.children:
            body += c.encode(base + 4 + len(body), offsets)
        return nla(self.atype, body, nested=True)


class Genl:
    """A Generic Netlink socket bound to one family (default: krdma)."""

    def __init__(self, family=None, spec=None, timeout=30.0):
        self.uapi = Spec.cached(spec)
        self.family_name = family or self.uapi.defines.get("KRDMA_GENL_NAME",
                                                           "krdma")
        self.version = self.uapi.defines.get("KRDMA_GENL_VERSION", 1)
        self.timeout = timeout
        self.seq = int(time.time()) & 0xffffff
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  NETLINK_GENERIC)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        self.sock.bind((0, 0))
        self.last_offsets = []
        self.last_parts = 0
        self.family_id, self.mcast_groups = self.resolve(self.family_name)

    def close(self):
        self.sock.close()

    # -- low level --

    def _send(self, msg_type, flags, cmd, version, attrs_bytes, reserved=0):
        self.seq += 1
        payload = struct.pack("<BBH", cmd, version, reserved) + attrs_bytes
        hdr = struct.pack("<IHHII", 16 + len(payload), msg_type, flags,
                          self.seq, 0)
        self.sock.sendto(hdr + payload, (0, 0))
        return self.seq

    def _recv(self, timeout=None):
        """One datagram (may hold several messages); bounded in time."""
        t = self.timeout if timeout is None else timeout
        r, _, _ = select.select([self.sock], [], [], t)
        if not r:
            raise NlError(errno_mod.ETIMEDOUT, "no answer from the kernel "
                          "within %gs" % t)
        # Peek at the size first and read exactly that much: the kernel
        # sizes later dump buffers after what we read, so small reads keep
        # dumps split over several datagrams, as with a small client.
        n = self.sock.recv_into(bytearray(16), 16,
                                socket.MSG_PEEK | socket.MSG_TRUNC)
        return self.sock.recv(max(n, 16))

    @staticmethod
    def _messages(data):
        off = 0
        while off + 16 <= len(data):
            ln, t, flags, seq, pid = struct.unpack_from("<IHHII", data, off)
            if ln < 16 or off + ln > len(data):
                break
            yield t, flags, seq, data[off + 16:off + ln]
            off += align4(ln)

    def _ext_ack(self, flags, body, base_offsets):
        """(msg, offs, attr, miss_type, miss_nest, policy) of an
        NLMSG_ERROR/NLMSG_DONE body (after the int error)."""
        res = {"msg": "", "offs": None, "attr": None, "miss_type": None,
               "miss_nest": None, "policy": None}
        if not flags & NLM_F_ACK_TLVS:
            return res
        for t, _, p in parse_nlas(body):
            if t == NLMSGERR_ATTR_MSG:
                res["msg"] = p.split(b"\0", 1)[0].decode(errors="replace")
            elif t == NLMSGERR_ATTR_OFFS and len(p) >= 4:
                res["offs"] = struct.unpack_from("<I", p)[0]
                for off, name in base_offsets:
                    if off == res["offs"]:
                        res["attr"] = name
            elif t == NLMSGERR_ATTR_MISS_TYPE and len(p) >= 4:
                res["miss_type"] = struct.unpack_from("<I", p)[0]
                en = self.uapi.attrs
                res["miss_type"] = en.by_value.get(res["miss_type"],
                                                   res["miss_type"])
            elif t == NLMSGERR_ATTR_MISS_NEST and len(p) >= 4:
                res["miss_nest"] = struct.unpack_from("<I", p)[0]
            elif t == NLMSGERR_ATTR_POLICY:
                pol = {}
                for pt, _, pp in parse_nlas(p):
                    if pt in POLICY_ATTRS:
                        key, fmt = POLICY_ATTRS[pt]
                        if len(pp) >= struct.calcsize(INT_FMT[fmt]):
                            pol[key] = struct.unpack_from(INT_FMT[fmt], pp)[0]
                res["policy"] = pol
        return res

    def request(self, cmd, attrs=None, dump=False, family_id=None,
                version=None, raw=b"", reserved=0, flags=0):
        """Sends one request and returns its reply messages as a list of
        (cmd, attribute bytes).  Raises NlError on an error ACK.  raw:
        bytes appended after the attributes; reserved: the genlmsghdr
        field that must be 0; flags: more nlmsg_flags."""
        fam = self.family_id if family_id is None else family_id
        ver = self.version if version is None else version
        flags |= NLM_F_REQUEST | NLM_F_ACK | (NLM_F_DUMP if dump else 0)
        offsets = []
        body = b""
        for a in attrs or []:
            body += a.encode(20 + len(body), offsets)
        body += raw
        self.last_offsets = offsets
        seq = self._send(fam, flags, cmd, ver, body, reserved)
        replies = []
        self.last_parts = 0	# datagrams the answer came in
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise NlError(errno_mod.ETIMEDOUT, "request not finished "
                              "within %gs" % self.timeout)
            data = self._recv(left)
            self.last_parts += 1
            for t, mflags, mseq, payload in self._messages(data):
                if mseq != seq:
                    continue	# stale answer to an earlier request
                if t == NLMSG_ERROR:
                    err = struct.unpack_from("<i", payload)[0]
                    # Then the request's header (capped) or the whole request.
                    olen = 16
                    if not mflags & NLM_F_CAPPED and len(payload) >= 8:
                        olen = struct.unpack_from("<I", payload, 4)[0]
                    ext = self._ext_ack(mflags, payload[4 + align4(olen):],
                                        offsets)
                    if err:
                        raise NlError(-err, **ext)
                    return replies
                if t == NLMSG_DONE:
                    err = struct.unpack_from("<i", payload)[0] if payload else 0
                    ext = self._ext_ack(mflags, payload[4:], offsets)
                    if err:
                        raise NlError(-err, **ext)
                    # A dump acked with NLM_F_ACK ends here (no extra ACK).
                    return replies
                if t in (NLMSG_NOOP, NLMSG_OVERRUN):
                    continue
                if len(payload) < 4:
                    continue
                rcmd = payload[0]
                replies.append((rcmd, payload[4:]))

    # -- family resolution --

    def resolve(self, name):
        try:
            msgs = self.request(CTRL_CMD_GETFAMILY,
                                [Attr(CTRL_ATTR_FAMILY_NAME, "FAMILY_NAME",
                                      name.encode() + b"\0")],
                                family_id=GENL_ID_CTRL, version=1)
        except NlError as e:
            if e.errno == errno_mod.ENOENT:
                raise LocalError('generic netlink family "%s" not found: is '
                                 'the module loaded?' % name)
            raise
        fid, groups = None, {}
        self.info = {"name": name, "ops": {}}
        for _, body in msgs:
            for t, _, p in parse_nlas(body):
                if t == CTRL_ATTR_FAMILY_ID:
                    fid = struct.unpack_from("<H", p)[0]
                elif t in (CTRL_ATTR_VERSION, CTRL_ATTR_HDRSIZE,
                           CTRL_ATTR_MAXATTR) and len(p) >= 4:
                    key = {CTRL_ATTR_VERSION: "version",
                           CTRL_ATTR_HDRSIZE: "hdrsize",
                           CTRL_ATTR_MAXATTR: "maxattr"}[t]
                    self.info[key] = struct.unpack_from("<I", p)[0]
                elif t == CTRL_ATTR_OPS:
                    for _, _, op in parse_nlas(p):
                        oid, oflags = None, 0
                        for ot, _, opp in parse_nlas(op):
                            if ot == CTRL_ATTR_OP_ID:
                                oid = struct.unpack_from("<I", opp)[0]
                            elif ot == CTRL_ATTR_OP_FLAGS:
                                oflags = struct.unpack_from("<I", opp)[0]
                        if oid is not None:
                            self.info["ops"][oid] = oflags
                elif t == CTRL_ATTR_MCAST_GROUPS:
                    for _, _, grp in parse_nlas(p):
                        gname, gid = None, None
                        for gt, _, gp in parse_nlas(grp):
                            if gt == CTRL_ATTR_MCAST_GRP_NAME:
                                gname = gp.split(b"\0", 1)[0].decode()
                            elif gt == CTRL_ATTR_MCAST_GRP_ID:
                                gid = struct.unpack_from("<I", gp)[0]
                        if gname is not None:
                            groups[gname] = gid
        if fid is None:
            raise LocalError("no family id in the nlctrl reply for %s" % name)
        self.info["id"] = fid
        self.info["groups"] = groups
        return fid, groups

    def family(self):
        """The family as nlctrl describes it: id, version, hdrsize,
        maxattr, groups, and ops {CMD: [flag names]} (names from the
        header)."""
        d = {k: v for k, v in self.info.items() if k != "ops"}
        d["ops"] = {}
        for oid, fl in sorted(self.info["ops"].items()):
            name = self.uapi.cmds.short(self.uapi.cmds.by_value.get(oid,
                                                                    str(oid)))
            d["ops"][name] = [n for b, n in sorted(OP_FLAGS.items()) if fl & b]
        return d

    def policy(self, cmd=None):
        """The kernel's attribute policies (CTRL_CMD_GETPOLICY) as
        {CMD: {"do": {ATTR: {...}}, "dump": {...}}}, attribute names from
        the header; a nested attribute's policy is under "nested"."""
        attrs = [Attr(CTRL_ATTR_FAMILY_ID, "FAMILY_ID",
                      struct.pack("<H", self.family_id))]
        if cmd is not None:
            c = self.uapi.cmd(cmd) if isinstance(cmd, str) else cmd
            attrs.append(Attr(CTRL_ATTR_OP, "OP", struct.pack("<I", c)))
        msgs = self.request(CTRL_CMD_GETPOLICY, attrs, dump=True,
                            family_id=GENL_ID_CTRL, version=1)
        op_pol, pols = {}, {}
        for _, body in msgs:
            for t, _, p in parse_nlas(body):
                if t == CTRL_ATTR_OP_POLICY:
                    for op, _, pp in parse_nlas(p):
                        d = op_pol.setdefault(op, {})
                        for k, _, v in parse_nlas(pp):
                            if k in (CTRL_ATTR_POLICY_DO,
                                     CTRL_ATTR_POLICY_DUMP):
                                d["do" if k == CTRL_ATTR_POLICY_DO
                                  else "dump"] = struct.unpack_from("<I", v)[0]
                elif t == CTRL_ATTR_POLICY:
                    for idx, _, pp in parse_nlas(p):
                        for at, _, ap in parse_nlas(pp):
                            f = {}
                            for k, _, v in parse_nlas(ap):
                                if k in POLICY_ATTRS:
                                    key, fmt = POLICY_ATTRS[k]
                                    if len(v) >= struct.calcsize(INT_FMT[fmt]):
                                        f[key] = struct.unpack_from(
                                            INT_FMT[fmt], v)[0]
                            if "type" in f and f["type"] < len(NL_ATTR_TYPES):
                                f["type"] = NL_ATTR_TYPES[f["type"]]
                            pols.setdefault(idx, {})[at] = f

        def render(idx, en, depth=0):
            out = {}
            for at, f in sorted(pols.get(idx, {}).items()):
                full = en.by_value.get(at, str(at)) if en else str(at)
                f = dict(f)
                if "policy_idx" in f and depth < 4:
                    _, arg = en.type_of(full) if en else (None, None)
                    f["nested"] = render(f.pop("policy_idx"),
                                         self.uapi.enums.get(arg), depth + 1)
                out[full] = f
            return out

        res = {}
        for op, d in sorted(op_pol.items()):
            name = self.uapi.cmds.short(self.uapi.cmds.by_value.get(op, str(op)))
            res[name] = {k: render(v, self.uapi.attrs) for k, v in d.items()}
        return res

    def join(self, group=None):
        """Joins a multicast group (default: all of the family's)."""
        names = [group] if group else list(self.mcast_groups)
        for g in names:
            self.sock.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
                                 self.mcast_groups[g])

    def events(self, timeout):
        """Yields decoded multicast messages until timeout seconds pass."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return
            try:
                data = self._recv(left)
            except NlError:
                return
            for t, _, seq, payload in self._messages(data):
                if t >= 0x10 and seq == 0 and len(payload) >= 4:
                    yield self.decode(payload[0], payload[4:])

    # -- typed attributes --

    def _member(self, en, word):
        try:
            v = en.lookup(word)
        except KeyError:
            if re.fullmatch(r"\d+", word):
                return int(word), word
            raise LocalError("unknown attribute '%s' in %s" % (word, en.name))
        return v, en.by_value[v]

    def encode_value(self, en, full, value):
        typ, arg = en.type_of(full)
        if typ in INT_FMT:
            if isinstance(value, int):
                v = value
            else:
                try:
                    v = int(value, 0)
                except ValueError:
                    venum = self.uapi.enums.get(arg) if arg else None
                    if venum is None:
                        raise LocalError("%s: not a number: %r" % (full, value))
                    try:
                        v = venum.lookup(value)
                    except KeyError:
                        raise LocalError("%s: not a number or a %s name: %r"
                                         % (full, arg, value))
            try:
                return struct.pack(INT_FMT[typ], v)
            except struct.error:
                raise LocalError("%s: %d does not fit %s (use --raw-attr)" %
                                 (full, v, typ))
        if typ == "string":
            return (value if isinstance(value, bytes) else
                    str(value).encode()) + b"\0"
        if typ == "flag":
            return b""
        if typ == "binary" or typ is None:
            if isinstance(value, bytes):
                return value
            s = str(value)
            if s.startswith("hex:"):
                return bytes.fromhex(s[4:])
            for fam in (socket.AF_INET, socket.AF_INET6):
                try:
                    return socket.inet_pton(fam, s)
                except OSError:
                    pass
            if typ is None:
                raise LocalError("%s: unknown type; use --raw-attr" % full)
            raise LocalError("%s: give an IP address or hex:BYTES" % full)
        raise LocalError("%s: cannot encode type %s" % (full, typ))

    def build(self, items, en=None):
        """Attributes from [(NAME, value)], value a list of pairs for a
        nest, or bytes via RawValue.  NAME may be dotted ("PEER_ADDR.PORT"):
        parts of one nest are gathered in its first position."""
        en = en or self.uapi.attrs
        out = []
        nests = {}
        for name, value in items:
            head, _, rest = name.partition(".")
            atype, full = self._member(en, head)
            if rest:
                typ, arg = en.type_of(full)
                sub = self.uapi.enums.get(arg) if typ == "nest" else None
                if sub is None:
                    raise LocalError("%s is not a nest" % full)
                if full not in nests:
                    nests[full] = (Attr(atype, full, children=[]), sub, [])
                    out.append(nests[full][0])
                nests[full][2].append((rest, value))
                continue
            if isinstance(value, RawValue):
                out.append(Attr(atype, full, payload=value.data))
                continue
            typ, arg = en.type_of(full)
            if typ == "nest" and isinstance(value, (list, tuple)):
                sub = self.uapi.enums[arg]
                out.append(Attr(atype, full, children=self.build(value, sub)))
                continue
            out.append(Attr(atype, full,
                            payload=self.encode_value(en, full, value)))
        for a, sub, parts in nests.values():
            a.children = self.build(parts, sub)
        return out

    def decode(self, cmd, body, en=None):
        """A reply's attributes as a dict (short lower-case names)."""
        en = en or self.uapi.attrs
        d, multi = {}, set()
        if en is self.uapi.attrs and cmd is not None:
            d["cmd"] = self.uapi.cmds.short(
                self.uapi.cmds.by_value.get(cmd, str(cmd))).lower()
        for t, flags, p in parse_nlas(body):
            full = en.by_value.get(t, str(t))
            key = en.short(full).lower()
            typ, arg = en.type_of(full)
            if typ == "nest" or flags & NLA_F_NESTED:
                sub = self.uapi.enums.get(arg) if arg else None
                v = self.decode(None, p, sub) if sub else p.hex()
            elif typ in INT_FMT and len(p) >= struct.calcsize(INT_FMT[typ]):
                v = struct.unpack_from(INT_FMT[typ], p)[0]
            elif typ == "string":
                v = p.split(b"\0", 1)[0].decode(errors="replace")
            elif typ == "flag":
                v = True
            elif len(p) == 4 and "ipv4" in key:
                v = socket.inet_ntop(socket.AF_INET, p)
            elif len(p) == 16 and "ipv6" in key:
                v = socket.inet_ntop(socket.AF_INET6, p)
            else:
                v = p.hex()
            if key in d:	# repeated ("multi") attribute: a list
                if key not in multi:
                    d[key] = [d[key]]
                    multi.add(key)
                d[key].append(v)
            else:
                d[key] = v
        return d

    # -- high level --

    def _attrs(self, items, raw):
        attrs = self.build(items or [])
        for name, data in raw or []:
            attrs += self.build([(name, RawValue(data))])
        return self._merge_nests(attrs)

    @staticmethod
    def _merge_nests(attrs):
        """Raw bytes for a nest member join the nest built from pairs."""
        out, seen = [], {}
        for a in attrs:
            if a.children is not None and a.name in seen:
                seen[a.name].children += a.children
                continue
            if a.children is not None:
                seen[a.name] = a
            out.append(a)
        return out

    def do(self, cmd, items=None, raw=None, tail=b"", reserved=0, flags=0):
        """A do request; returns the decoded reply messages (maybe []).
        items: [(NAME, value)]; raw: [(NAME, payload bytes)]; tail: bytes
        after the attributes."""
        c = self.uapi.cmd(cmd) if isinstance(cmd, str) else cmd
        msgs = self.request(c, self._attrs(items, raw), raw=tail,
                            reserved=reserved, flags=flags)
        return [self.decode(rc, b) for rc, b in msgs]

    def dump(self, cmd, items=None, raw=None, tail=b"", reserved=0, flags=0):
        """A dump request; returns every decoded message of the dump."""
        c = self.uapi.cmd(cmd) if isinstance(cmd, str) else cmd
        msgs = self.request(c, self._attrs(items, raw), dump=True, raw=tail,
                            reserved=reserved, flags=flags)
        return [self.decode(rc, b) for rc, b in msgs]


class RawValue:
    def __init__(self, data):
        self.data = data


# ---- command line ----

def parse_request(words):
    """(cmd, items, raw, dump, options) from CLI words: items
    [(name, value)], raw [(name, bytes)], options {"tail", "reserved"}."""
    cmd, items, raw, dump = None, [], [], False
    opts = {"tail": b"", "reserved": 0, "flags": 0}
    i = 0
    while i < len(words):
        w = words[i]
        if w in ("--raw-attr", "--raw-tail", "--reserved", "--nlflags"):
            if i + 1 >= len(words):
                raise LocalError("%s needs a value" % w)
            w = w + "=" + words[i + 1]
            i += 1
        if w.startswith("--raw-tail="):
            try:
                opts["tail"] = bytes.fromhex(w.split("=", 1)[1])
            except ValueError:
                raise LocalError("--raw-tail: bad hex")
        elif w.startswith("--reserved=") or w.startswith("--nlflags="):
            k, v = w[2:].split("=", 1)
            try:
                opts["flags" if k == "nlflags" else k] = int(v, 0)
            except ValueError:
                raise LocalError("--%s: not a number: %r" % (k, v))
        elif w.startswith("--raw-attr="):
            spec = w.split("=", 1)[1]
            name, sep, hx = spec.rpartition(":")
            if not sep or not name:
                raise LocalError("--raw-attr wants TYPE:HEX, got %r" % spec)
            try:
                raw.append((name, bytes.fromhex(hx)))
            except ValueError:
                raise LocalError("--raw-attr %s: bad hex" % spec)
        elif w == "--dump":
            dump = True
        elif cmd is None:
            cmd = w
        elif "=" in w:
            k, v = w.split("=", 1)
            items.append((k, v))
        else:
            raise LocalError("expected ATTR=VALUE, got %r" % w)
        i += 1
    if cmd is None:
        raise LocalError("no command given")
    return cmd, items, raw, dump, opts


def print_error(e, as_json):
    if as_json:
        print(json.dumps(e.as_dict()))
    else:
        print(("error %d %s" % (e.errno, e.msg)).rstrip())
    details = []
    if e.attr or e.offs is not None:
        details.append("attribute %s (offset %s)" % (e.attr or "?", e.offs))
    if e.miss_type is not None:
        details.append("missing attribute %s%s" % (
            e.miss_type, "" if e.miss_nest is None else
            " in the nest at offset %d" % e.miss_nest))
    if e.policy:
        details.append("policy %s" % json.dumps(e.policy, sort_keys=True))
    if details and not as_json:
        print("genl.py: %s: %s" % (os.strerror(e.errno), "; ".join(details)),
              file=sys.stderr)


def run_one(g, words, as_json):
    cmd, items, raw, dump, opts = parse_request(words)
    try:
        if dump:
            msgs = g.dump(cmd, items, raw, **opts)
        else:
            msgs = g.do(cmd, items, raw, **opts)
    except NlError as e:
        print_error(e, as_json)
        return 1
    for m in msgs:
        print(json.dumps(m, sort_keys=True))
    if not msgs and not dump:
        print("ok")
    return 0


def main(argv):
    as_json = False
    batch = False
    family_info = False
    policy = False
    listen = None
    count = None
    spec = None
    words = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(__doc__)
            return 0
        if a in ("-j", "--json"):
            as_json = True
        elif a == "--batch":
            batch = True
        elif a == "--family":
            family_info = True
        elif a == "--policy":
            policy = True
        elif a in ("--listen", "--count", "--spec"):
            if i + 1 >= len(argv):
                print("genl.py: %s needs a value" % a, file=sys.stderr)
                return 2
            if a == "--listen":
                listen = float(argv[i + 1])
            elif a == "--count":
                count = int(argv[i + 1])
            else:
                spec = argv[i + 1]
            i += 1
        else:
            words.append(a)
        i += 1
    try:
        g = Genl(spec=spec)
        try:
            return run_main(g, as_json, batch, family_info, policy, listen,
                            count, words)
        finally:
            g.close()
    except LocalError as e:
        print("genl.py: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:
        print("genl.py: %s" % e, file=sys.stderr)
        return 2


def run_main(g, as_json, batch, family_info, policy, listen, count, words):
    """What main() does once it has the socket."""
    if family_info:
        print(json.dumps(g.family(), sort_keys=True))
        return 0
    if policy:
        try:
            print(json.dumps(g.policy(words[0] if words else None),
                             sort_keys=True))
        except NlError as e:
            print_error(e, as_json)
            return 1
        return 0
    if listen is not None:
        g.join()
        n = 0
        for ev in g.events(listen):
            print(json.dumps(ev, sort_keys=True), flush=True)
            n += 1
            if count is not None and n >= count:
                break
        return 0
    if batch:
        rc = 0
        for line in sys.stdin:
            w = shlex.split(line)
            if not w or w[0].startswith("#"):
                continue
            rc |= run_one(g, w, as_json)
            sys.stdout.flush()
        return rc
    return run_one(g, words, as_json)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
