#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# parse.py - one measurement of tests/bench/bench-host.sh into one JSON
# record, appended to the raw file (raw=PATH), and printed; exit 0 if
# the measurement produced a number.
#
#   parse.py pt-bw|pt-lat|krdma|iperf3|info OUTPUT key=value...
#
# OUTPUT is the tool's output (perftest's table, krdmactl -j's record,
# iperf3 -J's, or the info object). The keys: raw (required), id, tool,
# kind, op, size, cmd, secs; err (the tool's stderr, kept on a failure);
# ctr0/ctr1 (the device's hw counters before/after, NAME VALUE lines);
# tx0/tx1/rx0/rx1/wsecs (the NIC's bytes and the seconds between);
# busy0/total0/busy1/total1 (/proc/stat's CPU ticks).
import json, re, sys

def emit(rec):
    with open(RAW, "a") as f:
        f.write(json.dumps(rec, sort_keys=True) + "\n")

def perftest_table(path, key):
    """Header line containing key, then the first numeric data line."""
    lines = open(path, errors="replace").read().splitlines()
    for i, l in enumerate(lines):
        if "#bytes" in l and key in l:
            for d in lines[i + 1:]:
                f = d.split()
                if len(f) >= 5 and f[0].isdigit():
                    return l, f
    return None, None

def counters(kv):
    """rxe's hw counters that moved during the run (ctr0/ctr1: files of
    NAME VALUE lines), e.g. completer_retry_err: the requester's
    retransmissions after an ACK timeout or a NAK."""
    try:
        c0, c1 = ({l.split()[0]: int(l.split()[1]) for l in open(kv[k]) if len(l.split()) == 2}
                  for k in ("ctr0", "ctr1"))
    except (KeyError, OSError, ValueError, IndexError):
        return None
    return {k: c1[k] - c0.get(k, 0) for k in sorted(c1) if c1[k] != c0.get(k, 0)}

def wire(kv):
    """Bytes the NIC moved during the run, over the traffic seconds."""
    try:
        tx = int(kv["tx1"]) - int(kv["tx0"])
        rx = int(kv["rx1"]) - int(kv["rx0"])
        secs = float(kv["wsecs"])
        return round(max(tx, rx) / secs / 1e6, 3) if secs > 0 else None
    except (KeyError, ValueError):
        return None

cmd, path = sys.argv[1], sys.argv[2]
kv = dict(a.split("=", 1) for a in sys.argv[3:])
RAW = kv.pop("raw")
rec = {k: kv[k] for k in ("id", "tool", "kind", "op", "cmd") if k in kv}
if "size" in kv:
    rec["size"] = int(kv["size"])
rec["ok"] = False
try:
    if cmd == "pt-bw":
        head, f = perftest_table(path, "BW average")
        if f:
            # perftest's MB (and MiB) are 2^20 bytes; Gb is 10^9 bits.
            if "Gb/sec" in head:
                scale = 1e9 / 8 / 1e6
            else:
                scale = 1048576 / 1e6
            rec["iters"] = int(f[1])
            rec["mb_s"] = round(float(f[3]) * scale, 3)
            rec["mpps"] = float(f[4])
            rec["secs"] = float(kv["secs"])
            if rec["mb_s"] == 0 and rec["iters"] > 0:
                # 0.00 when its check of the CPU clock failed under TCG
                # ("Correlation coefficient r^2 < 0.9"); its iterations
                # stand: the rate is theirs, marked (report.py).
                rec["mb_s"] = round(rec["iters"] * int(kv["size"]) / rec["secs"] / 1e6, 3)
                rec["derived"] = True
            rec["ok"] = rec["mb_s"] > 0
    elif cmd == "pt-lat":
        head, f = perftest_table(path, "t_typical")
        if f and len(f) >= 9:
            rec["iters"] = int(f[1])
            for i, k in enumerate(("min_us", "max_us", "typical_us", "avg_us",
                                   "stdev_us", "p99_us", "p999_us"), 2):
                rec[k] = float(f[i])
            rec["ok"] = rec["typical_us"] > 0
    elif cmd == "krdma":
        d = json.load(open(path))
        rec["status"] = d.get("status")
        rec["iters"] = d["iters"]
        rec["validated"] = d["validated"]
        rec["elapsed_ns"] = d["elapsed_ns"]
        rec["secs"] = d["elapsed_ns"] / 1e9
        rec["mode"] = d.get("mode", "check")
        rec["cpu_ns"] = d.get("cpu_ns")
        rec["peer_cpu_ns"] = d.get("peer_cpu_ns")
        # check mode compares every iteration, bw and lat sample the data.
        if rec["mode"] == "check":
            checked = d["validated"] == d["iters"]
        else:
            checked = d["validated"] >= 1
        ok = d["status"] == 0 and d["iters"] > 0 and checked
        if rec.get("kind") == "lat":
            # One iteration is a round trip; for send and write perftest
            # reports half of one, and so do krdma's lat figures; a read
            # or an atomic counts whole in both.
            rec["rtt_avg_us"] = round(d["elapsed_ns"] / d["iters"] / 1e3, 3)
            whole = rec.get("op") in ("read", "atomic_fadd", "atomic_cswap")
            rec["avg_us"] = round(rec["rtt_avg_us"] / (1 if whole else 2), 3)
            for k, v in d.get("lat", {}).items():
                if k.endswith("_ns"):
                    rec[k[:-3] + "_us"] = round(v / 1e3, 3)
            # The buckets as they came (ns, one way like the figures):
            # the CDF of tests/bench/plot.py.
            hist = d.get("lat", {}).get("histogram")
            if hist:
                rec["hist"] = [[b.get("lo_ns"), b.get("hi_ns"), b.get("count")]
                               for b in hist]
        else:
            rec["bytes"] = d["bytes"]
            rec["mb_s"] = round(d["bytes"] / (d["elapsed_ns"] / 1e9) / 1e6, 3)
        rec["ok"] = ok
        if d.get("reason"):
            rec["reason"] = d["reason"]
    elif cmd == "iperf3":
        d = json.load(open(path))
        s = d["end"]["sum_received"]
        rec["mb_s"] = round(s["bits_per_second"] / 8 / 1e6, 3)
        rec["secs"] = s["seconds"]
        rec["retransmits"] = d["end"].get("sum_sent", {}).get("retransmits")
        rec["ok"] = rec["mb_s"] > 0
    elif cmd == "info":
        rec = json.load(open(path))
except Exception as e:  # a broken output is a failed measurement
    rec["error"] = "%s: %s" % (type(e).__name__, e)
if not rec.get("ok") and "err" in kv:
    # What the tool said on its way out (krdmactl: the test's reason).
    try:
        msg = " ".join(open(kv["err"], errors="replace").read().split())
        if msg:
            rec["stderr"] = msg[:300]
    except OSError:
        pass
if not rec.get("ok") and cmd.startswith("pt-"):
    # perftest's own words for a failure ("Completion with error at
    # client", "Failed status 9: ...": its QP went to error).
    try:
        bad = [" ".join(l.split()) for l in open(path, errors="replace")
               if re.search(r"[Ff]ail|[Ee]rror|Couldn't|Unable", l)]
        if bad:
            rec["stderr"] = "; ".join(bad[:3])[:300]
    except OSError:
        pass
c = counters(kv)
if c is not None:
    rec["rxe"] = c
w = wire(kv)
if w is not None:
    rec["wire_mb_s"] = w
try:
    # /proc/stat around the run: the share of all vCPUs that was busy.
    busy = int(kv["busy1"]) - int(kv["busy0"])
    total = int(kv["total1"]) - int(kv["total0"])
    rec["guest_busy"] = round(busy / total, 3) if total > 0 else None
except (KeyError, ValueError):
    pass
emit(rec)
if cmd != "info":
    print(json.dumps(rec, sort_keys=True))
    sys.exit(0 if rec["ok"] else 1)
