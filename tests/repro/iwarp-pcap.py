#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""iwarp-pcap.py [-z] PCAP: the iWARP messages of a capture (tcpdump -s 0
-w, payloads whole) of TCP connections that start in it: each direction's
byte stream is put together in sequence order (bytes seen before are
dropped, a segment beyond a gap waits for it), its MPA Request or Reply
skipped (RFC 5044 7.1; its flags printed: markers, which this does not
decode, stop it) and its FPDUs cut: ULPDU length, DDP segment (RFC 5041),
padding, CRC (there, of zeros, if neither end asked for it). One line
each: time, source->destination, MPA frame or DDP segment: RDMAP opcode
(RFC 5040), for a tagged one STag, TO, payload length and L flag; for an
untagged one QN, MSN, MO; for a Read Request its sink STag and TO, the
read size and the source STag and TO; for a Terminate its layer, error
type and code. And a line for the first FIN or RST of each direction.

-z instead says, of each Read Request of 0 bytes, how many bytes the Read
Response that answered it carried: the Read Responses of a direction
answer its peer's Read Requests in their order (RFC 5040), a response
ending with its segment that has L set; each is checked against the
request's sink STag too. Exit status 1 if one of 0 bytes got data."""
import struct
import sys

OPS = ["Write", "ReadReq", "ReadResp", "Send", "SendInv", "SendSE",
       "SendSEInv", "Terminate"]
LAYERS = ["RDMAP", "DDP", "MPA"]    # of a Terminate (RFC 5040)


def packets(path):
    """(time, (src, dst), seq, flags, payload) of each TCP segment."""
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    e = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
    nsec = magic in (0xa1b23c4d, 0x4d3cb2a1)
    link = struct.unpack(e + "I", data[20:24])[0] & 0xffff
    off = 24
    while off + 16 <= len(data):
        ts, tf, incl, _ = struct.unpack(e + "IIII", data[off:off + 16])
        pkt = data[off + 16:off + 16 + incl]
        off += 16 + incl
        ip, etype = (16, pkt[14:16]) if link == 113 else (14, pkt[12:14])
        if etype == b"\x08\x00" and pkt[ip + 9] == 6:
            end = ip + (struct.unpack("!H", pkt[ip + 2:ip + 4])[0] or incl)
            addr = [".".join(str(b) for b in pkt[ip + 12 + i:ip + 16 + i])
                    for i in (0, 4)]
            tcp = ip + (pkt[ip] & 0xf) * 4
        elif etype == b"\x86\xdd" and pkt[ip + 6] == 6:
            end = ip + 40 + struct.unpack("!H", pkt[ip + 4:ip + 6])[0]
            addr = ["[%s]" % pkt[ip + 8 + i:ip + 24 + i].hex(":", 2)
                    for i in (0, 16)]
            tcp = ip + 40
        else:
            continue
        sport, dport, seq = struct.unpack("!HHI", pkt[tcp:tcp + 8])
        body = pkt[tcp + (pkt[tcp + 12] >> 4) * 4:end]
        yield (ts + tf / (1e9 if nsec else 1e6),
               ("%s:%d" % (addr[0], sport), "%s:%d" % (addr[1], dport)),
               seq, pkt[tcp + 13], body)


class Stream:
    """One direction of a connection: its bytes in order, then its MPA
    frame, then FPDUs."""

    def __init__(self, isn):
        self.next, self.buf, self.held, self.mpa = isn + 1, b"", {}, None
        self.end = None

    def add(self, seq, body):
        if self.mpa == -1:
            return
        self.held[seq] = body
        while True:
            for s, b in list(self.held.items()):
                d = (self.next - s) & 0xffffffff
                if d < 0x80000000:
                    del self.held[s]
                    if d < len(b):
                        break
            else:
                return
            self.buf += b[d:]
            self.next = (self.next + len(b) - d) & 0xffffffff

    def frames(self):
        """The MPA frame, then the ULPDU of each FPDU complete so far."""
        if self.mpa == -1:
            return
        if self.mpa is None:
            if len(self.buf) < 20:
                return
            key, bits, pd_len = struct.unpack("!16sHH", self.buf[:20])
            if len(self.buf) < 20 + pd_len:
                return
            if not key.startswith(b"MPA ID R"):
                self.mpa, self.buf = -1, b""
                return
            self.mpa = bits
            self.buf = self.buf[20 + pd_len:]
            yield "MPA %s markers=%d crc=%d reject=%d rev=%d pd_len=%d" % (
                key.decode("ascii", "replace").split()[2],
                bits >> 15, bits >> 14 & 1, bits >> 13 & 1, bits & 0xff,
                pd_len)
        while len(self.buf) >= 2:
            n = struct.unpack("!H", self.buf[:2])[0]
            whole = (2 + n + 3) // 4 * 4 + 4
            if len(self.buf) < whole:
                return
            yield self.buf[2:2 + n]
            self.buf = self.buf[whole:]


def segments(path):
    """(time, source, destination, line, DDP fields) of each MPA frame and
    DDP segment, in the order their last bytes were captured, and of the
    first FIN or RST of a direction."""
    streams = {}
    for t, (src, dst), seq, flags, body in packets(path):
        if flags & 0x02:
            streams[src, dst] = Stream(seq)
        s = streams.get((src, dst))
        if s is None:
            continue
        if flags & 0x05 and not s.end:
            s.end = "TCP " + ("RST" if flags & 0x04 else "FIN")
            yield t, src, dst, s.end, None
        if not body:
            continue
        s.add(seq, body)
        for u in s.frames():
            if isinstance(u, str):
                yield t, src, dst, u, None
                if s.mpa & 0x8000:
                    sys.exit("%s->%s: MPA markers, not decoded" % (src, dst))
                continue
            op = u[1] & 0xf
            name = OPS[op] if op < len(OPS) else "op%d" % op
            d = {"T": u[0] >> 7, "L": u[0] >> 6 & 1, "op": name}
            if d["T"]:
                d["stag"], to = struct.unpack("!IQ", u[2:14])
                d["len"] = len(u) - 14
                ex = "stag=0x%08x to=0x%x len=%d" % (d["stag"], to, d["len"])
            else:
                qn, msn, mo = struct.unpack("!III", u[6:18])
                ex = "qn=%d msn=%d mo=%d len=%d" % (qn, msn, mo, len(u) - 18)
            if name == "ReadReq" and len(u) >= 46:
                d["sink"], sto, d["size"], sstag, sto2 = struct.unpack(
                    "!IQIIQ", u[18:46])
                ex = "sink_stag=0x%08x sink_to=0x%x size=%d src_stag=0x%08x" \
                     " src_to=0x%x msn=%d" % (d["sink"], sto, d["size"],
                                             sstag, sto2, msn)
            elif name == "Terminate" and len(u) >= 22:
                layer = u[18] >> 4
                ex += " layer=%d(%s) etype=%d ecode=0x%02x H=%d M=%d" % (
                    layer, LAYERS[layer] if layer < 3 else "?", u[18] & 0xf,
                    u[19], u[20] >> 7, u[20] >> 6 & 1)
            yield t, src, dst, "%s %s L=%d" % (name, ex, d["L"]), d


def zero_reads(path):
    asked = {}
    bad = 0
    for t, src, dst, line, d in segments(path):
        if d is None:
            continue
        seg = "%.6f %s->%s %s" % (t, src, dst, line)
        if d["op"] == "ReadReq":
            asked.setdefault((src, dst), []).append([seg, d, []])
        elif d["op"] == "ReadResp":
            q = asked.get((dst, src))
            if not q:
                print("unasked: " + seg)
                continue
            q[0][2].append((seg, d))
            if d["L"]:
                bad += verdict(*q.pop(0))
    for q in asked.values():
        for r in q:
            verdict(*r)
    return 1 if bad else 0


def verdict(req, d, resp):
    """Print what a Read Request of 0 bytes got; 1 if it got data."""
    if d["size"]:
        return 0
    n = sum(r["len"] for _, r in resp)
    other = sum(r["stag"] != d["sink"] for _, r in resp)
    print("%s => %s%d bytes in %d segments%s: %s" % (
        req, "" if resp and resp[-1][1]["L"] else "incomplete: ", n,
        len(resp), " (%d of another STag)" % other if other else "",
        "WRONG, a READ of 0 bytes got data" if n else "ok"))
    for seg, _ in resp[:1] + resp[1:][-1:]:
        print("  " + seg)
    return 1 if n else 0


if __name__ == "__main__":
    if sys.argv[1] == "-z":
        sys.exit(zero_reads(sys.argv[2]))
    for t, src, dst, line, _ in segments(sys.argv[1]):
        print("%.6f %s->%s %s" % (t, src, dst, line))
