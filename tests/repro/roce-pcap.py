#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""roce-pcap.py [-c] PCAP: the RoCEv2 packets of a capture (tcpdump -w, any
snap length from 66 bytes), one line each: time, source, destination QP,
opcode, PSN, AckReq, RETH length or AETH syndrome.

-c instead checks that every requester kept its packet sequence: a PSN a
requester sent again must carry the packet it carried the first time (same
opcode, same RETH length). A requester that lost its place in its send
queue (rxe before a fix, tests/repro/rxe-ack-timeout.sh) sends another
message's packet at an old PSN; each such PSN is printed, and the exit
status is 1."""
import struct
import sys

OPS = {0x00: "SEND_FIRST", 0x01: "SEND_MIDDLE", 0x02: "SEND_LAST",
       0x03: "SEND_LAST_IMM", 0x04: "SEND_ONLY", 0x05: "SEND_ONLY_IMM",
       0x06: "WRITE_FIRST", 0x07: "WRITE_MIDDLE", 0x08: "WRITE_LAST",
       0x09: "WRITE_LAST_IMM", 0x0a: "WRITE_ONLY", 0x0b: "WRITE_ONLY_IMM",
       0x0c: "READ_REQ", 0x0d: "RRESP_FIRST", 0x0e: "RRESP_MIDDLE",
       0x0f: "RRESP_LAST", 0x10: "RRESP_ONLY", 0x11: "ACK",
       0x12: "ATOMIC_ACK", 0x13: "CMP_SWAP", 0x14: "FETCH_ADD",
       0x16: "SEND_LAST_INV", 0x17: "SEND_ONLY_INV"}
RETH = {0x06, 0x0a, 0x0b, 0x0c}
AETH = {0x0d, 0x0f, 0x10, 0x11, 0x12}
# Sent by a requester (the rest are a responder's, in the peer's PSN space).
REQUEST = set(range(0x00, 0x0d)) | {0x13, 0x14, 0x16, 0x17}


def packets(path):
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    e = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
    nsec = magic in (0xa1b23c4d, 0x4d3cb2a1)
    off = 24
    while off + 16 <= len(data):
        ts, tf, incl, _ = struct.unpack(e + "IIII", data[off:off + 16])
        pkt = data[off + 16:off + 16 + incl]
        off += 16 + incl
        if len(pkt) < 54 or pkt[12:14] != b"\x08\x00" or pkt[23] != 17:
            continue
        u = 14 + (pkt[14] & 0xf) * 4
        if struct.unpack("!H", pkt[u + 2:u + 4])[0] != 4791:
            continue
        b = u + 8
        op = pkt[b]
        p = {"t": ts + tf / (1e9 if nsec else 1e6),
             "src": ".".join(str(x) for x in pkt[26:30]), "op": op,
             "qp": struct.unpack("!I", pkt[b + 4:b + 8])[0] & 0xffffff,
             "a": pkt[b + 8] >> 7,
             "psn": struct.unpack("!I", pkt[b + 8:b + 12])[0] & 0xffffff,
             "len": None, "syn": None}
        if op in RETH and len(pkt) >= b + 28:
            p["len"] = struct.unpack("!I", pkt[b + 24:b + 28])[0]
        if op in AETH and len(pkt) >= b + 13:
            p["syn"] = pkt[b + 12]
        yield p


def line(p):
    ex = ""
    if p["len"] is not None:
        ex = " len=%d" % p["len"]
    if p["syn"] is not None:
        ex = " syn=0x%02x" % p["syn"]
    return "%.6f %s qp=%d %s psn=%d a=%d%s" % (
        p["t"], p["src"], p["qp"], OPS.get(p["op"], "0x%02x" % p["op"]),
        p["psn"], p["a"], ex)


def check(path):
    first = {}
    bad = 0
    for p in packets(path):
        if p["op"] not in REQUEST:
            continue
        k = (p["src"], p["qp"], p["psn"])
        v = (p["op"], p["len"])
        if k not in first:
            first[k] = (v, p)
        elif first[k][0] != v:
            bad += 1
            if bad <= 5:
                print("PSN %d of %s to QP %d carried another packet:\n  %s\n  %s"
                      % (p["psn"], p["src"], p["qp"], line(first[k][1]), line(p)))
    print("%d PSNs sent again with another packet" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "-c":
        sys.exit(check(sys.argv[2]))
    for p in packets(sys.argv[1]):
        print(line(p))
