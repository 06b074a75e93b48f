#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# parse.py - one measurement of tests/bench/bench-host.sh into one JSON
# record, appended to the raw file (raw=PATH), and printed; exit 0 if
# the measurement produced a number.
#
#   parse.py pt-bw|pt-lat|krdma|iperf3|idle|info OUTPUT key=value...
#
# OUTPUT is the tool's output (perftest's table, krdmactl -j's record,
# iperf3 -J's, or the info object; idle, the control step, has none:
# "-"). The keys: raw (required), id, tool, kind, op, size, cmd, secs;
# err (the tool's stderr, kept on a failure); ctr0/ctr1 (the device's hw
# counters before/after, NAME VALUE lines); tx0/tx1/rx0/rx1/wsecs (the
# NIC's bytes and the seconds between); cpu0/cpu1 and up0/up1 (this
# side's /proc/stat cpu line and /proc/uptime around the run); pc0/pc1
# (files: this side's /proc/stat, softirqs and interrupts around it, for
# each vCPU's part: percpu.py); peer (the server side's figures of the
# point, sync.py wait's JSON object).
#
# The CPU of a point (a record's "cpu"): for each side, the CPU-seconds
# of each busy kind of /proc/stat (user, nice, system, irq, softirq,
# steal: rxe's softirq work, a kernel ULP's workers, perftest's spinning
# all count), their sum busy_s, and busy_cpus (busy_s over the wall
# seconds: 1.0 is one CPU busy all along). cpu_s is both sides' busy_s;
# for a bandwidth point, bytes (the payload moved over the run) per
# cpu_s is mb_per_cpu_s. idle_cpus is the server side's busy_cpus, the
# side that only waits through the point in the rendezvous (the tool's
# own work on it included: rxe's responder, a perftest server);
# bench_cpus what the bench's own processes took there (the waiting
# sync.py, the rendezvous server). A point is marked idle_busy when the
# bench took more than IDLE_BOUND of one CPU on that side, or, for the
# idle control where nothing else runs, when that side's CPUs were.
# cpu_check (krdma's points): krdma's own host_cpu and peer_host_cpu
# beside the bench's figure of the same side, and the two as busy
# CPU-seconds, whose difference is what ran outside the test
# (cpu_check()).
import json, os, re, sys
import percpu  # tests/bench/percpu.py, beside this file

# The most the bench may take of one CPU on the waiting side (and the
# most that side may be busy in the idle control) before a point is
# marked: 5%.
IDLE_BOUND = 0.05
STAT_KEYS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
BUSY_KEYS = ("user", "nice", "system", "irq", "softirq", "steal")

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

def side_cpu(kv):
    """This side's CPU figures (sync.py's cpu_figures, the same keys)
    from the /proc/stat cpu lines and uptimes around the run."""
    try:
        s0, s1 = ([int(x) for x in kv[k].split()[1:]] for k in ("cpu0", "cpu1"))
        secs = float(kv["up1"]) - float(kv["up0"])
    except (KeyError, ValueError):
        return None
    hz = os.sysconf("SC_CLK_TCK")
    d = {k: (b - a) / hz for k, a, b in zip(STAT_KEYS, s0, s1)}
    fig = {k + "_s": round(d.get(k, 0), 3) for k in BUSY_KEYS}
    fig["busy_s"] = round(sum(d.get(k, 0) for k in BUSY_KEYS), 3)
    fig["secs"] = round(secs, 3)
    fig["cpus"] = os.cpu_count()
    fig["busy_cpus"] = round(fig["busy_s"] / secs, 4) if secs > 0 else None
    # Each vCPU's part (pc0/pc1: /proc/stat, softirqs, interrupts).
    try:
        fig["percpu"] = percpu.figures(*(open(kv[k]).read() for k in ("pc0", "pc1")))
    except (KeyError, OSError):
        pass
    return fig

def cpu(rec, kv):
    """Both sides' CPU of the point, into rec (see the top)."""
    client = side_cpu(kv)
    try:
        server = json.loads(kv["peer"]) if kv.get("peer") else None
    except ValueError:
        server = None
    if client is None and server is None:
        return
    rec["cpu"] = {"client": client, "server": server}
    if client and server:
        rec["cpu_s"] = round(client["busy_s"] + server["busy_s"], 3)
    if server:
        rec["idle_cpus"] = server.get("busy_cpus")
        rec["bench_cpus"] = server.get("bench_cpus")
        rec["idle_bound"] = IDLE_BOUND
        if rec.get("kind") == "idle":
            rec["idle_busy"] = (rec["idle_cpus"] or 0) > IDLE_BOUND
        else:
            rec["idle_busy"] = (rec["bench_cpus"] or 0) > IDLE_BOUND
    if rec.get("bytes_moved") and rec.get("cpu_s"):
        rec["mb_per_cpu_s"] = round(rec["bytes_moved"] / 1e6 / rec["cpu_s"], 3)
    cpu_check(rec)

def cpu_check(rec):
    """krdma's own host_cpu/peer_host_cpu against this bench's /proc/stat
    figures of the same side, both in % of all that side's CPUs: the
    bench's window is the whole krdmactl command (the test's setup and
    end with it), krdma's the test alone, so the two percentages differ
    by the point's length outside the test. As busy CPU-seconds the two
    count the same thing (every CPU's user, system, irq, softirq and
    steal time: kmod/hostcpu.c reads the kernel's own per-CPU counters,
    /proc/stat prints them), over windows one inside the other: krdma's
    is the smaller, and the difference is what ran outside the test
    (krdmactl, the session's setup, the rendezvous), whose share of
    those seconds (outside_pct) is the check. krdma's seconds more than
    the bench's by over a tick's rounding would be an error in one of
    them."""
    own = rec.get("krdma_cpu")
    if not own:
        return
    out = {}
    for side, k in sorted(own.items()):
        fig = (rec.get("cpu") or {}).get(side) or {}
        if not fig.get("secs") or not fig.get("cpus"):
            continue
        bench = 100.0 * fig["busy_s"] / (fig["secs"] * fig["cpus"])
        c = {"krdma_pct": k["pct"], "bench_pct": round(bench, 1),
             "diff_pts": round(bench - k["pct"], 1)}
        if k.get("capacity_ns"):
            own_s = k["pct"] / 100.0 * k["capacity_ns"] / 1e9
            out_secs = fig["secs"] - k["capacity_ns"] / 1e9 / fig["cpus"]
            c["krdma_busy_s"] = round(own_s, 3)
            c["bench_busy_s"] = round(fig["busy_s"], 3)
            c["outside_busy_s"] = round(fig["busy_s"] - own_s, 3)
            c["outside_secs"] = round(out_secs, 3)
            if out_secs > 0.05:
                c["outside_pct"] = round(100.0 * (fig["busy_s"] - own_s) /
                                         (out_secs * fig["cpus"]), 1)
        out[side] = c
    if out:
        rec["cpu_check"] = out

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
            # In duration mode the data flows all -D seconds (wsecs), the
            # margins too; the rate is the middle's.
            if rec["ok"] and "wsecs" in kv:
                rec["bytes_moved"] = int(rec["mb_s"] * 1e6 * float(kv["wsecs"]))
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
        # krdmactl -j test run: one object, the size's record in its
        # "results" (schema 3); an older krdmactl printed the record.
        if isinstance(d, dict) and "results" in d:
            if len(d["results"]) != 1:
                raise ValueError("%d results, not one" % len(d["results"]))
            d = d["results"][0]
        rec["status"] = d.get("status")
        rec["iters"] = d["iters"]
        rec["validated"] = d["validated"]
        rec["elapsed_ns"] = d["elapsed_ns"]
        rec["secs"] = d["elapsed_ns"] / 1e9
        rec["mode"] = d.get("mode", "check")
        rec["cpu_ns"] = d.get("cpu_ns")
        rec["peer_cpu_ns"] = d.get("peer_cpu_ns")
        # krdma's own figure of each host's CPUs over the test, in % of
        # all of that host's CPUs: host_cpu the driver's (this side),
        # peer_host_cpu the responder's; cross-checked in cpu_check().
        for side, key in (("client", "host_cpu"), ("server", "peer_host_cpu")):
            v = d.get(key)
            if isinstance(v, dict) and v.get("busy_pct") is not None:
                rec.setdefault("krdma_cpu", {})[side] = {
                    "pct": v["busy_pct"], "capacity_ns": v.get("capacity_ns")}
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
            if ok:
                rec["bytes_moved"] = d["bytes"]
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
        if rec["ok"]:
            rec["bytes_moved"] = int(s["bytes"]) if "bytes" in s else int(
                rec["mb_s"] * 1e6 * rec["secs"])
    elif cmd == "idle":
        # The control: nothing ran; its figures are the CPU's (below).
        rec["ok"] = bool(kv.get("peer"))
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
if cmd != "info":
    cpu(rec, kv)
    c = (rec.get("cpu") or {}).get("client")
    if c and c.get("busy_cpus") is not None and c.get("cpus"):
        # The share of all the client's CPUs that was busy.
        rec["guest_busy"] = round(c["busy_cpus"] / c["cpus"], 3)
if cmd == "idle" and rec.get("idle_cpus") is None:
    rec["ok"] = False
emit(rec)
if cmd != "info":
    print(json.dumps(rec, sort_keys=True))
    sys.exit(0 if rec["ok"] else 1)
