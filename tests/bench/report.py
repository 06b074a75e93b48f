#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# report.py DIR - the table of a tests/bench/run.sh run.
#
# DIR is either one guest run (DIR/bench-raw.jsonl, DIR/host.json) or a
# series of them (DIR/run1, DIR/run2, ... each one guest run, and
# DIR/host.json for the series). For one run it writes DIR/bench.json
# and DIR/table.md and prints the table of that run; for a series it
# does that in every DIR/runK, then writes DIR/bench.json and
# DIR/table.md with, per point, the median ratio of the runs and its
# spread (the smallest and largest ratio of a run), and prints that.
# Exit status 1 if no run recorded anything.
import glob
import math
import json
import os
import re
import statistics
import sys

KIB = {4096: "4 KiB", 65536: "64 KiB", 1048576: "1 MiB", 64: "64 B", 512: "512 B"}
# Message rate (small writes and sends): krdma's messages per second at
# least perftest's, and per busy CPU-second at least twice.
MSG_TARGET, MSG_CPU_TARGET = 1.0, 2.0
MSG_POINTS = [(op, size) for size in (64, 512, 4096) for op in ("write", "send")]
# CPU per byte (both guests' busy CPU-seconds, parse.py): krdma's MB per
# CPU-second over perftest's, at 64 KiB and 1 MiB (elsewhere 1.0).
CPU_TARGET = 2.0
# The loss rows (an impaired wire, run.sh -L): every bandwidth point held
# to perftest's own, with krdma's sessions at perftest's ACK timeout, 14
# (run.sh -u; the record "info" and host.json say which it ran with).
LOSS_TARGET = 1.0


def load(path, default):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def load_run(d):
    recs = []
    try:
        with open(os.path.join(d, "bench-raw.jsonl")) as f:
            recs = [json.loads(l) for l in f if l.strip()]
    except OSError:
        pass
    return {"dir": d, "host": load(os.path.join(d, "host.json"), {}),
            "recs": recs}


def wire_label(host):
    """What impaired the wire of a run: '' for a clean one."""
    return host.get("netem") or ""


def num(r, k):
    """A record's figure; none where the tool gave none, or "inf": perftest
    prints inf for every latency when its clock check fails (r^2 < 0.9)."""
    v = r.get(k) if r and r.get("ok") else None
    return v if not isinstance(v, float) or math.isfinite(v) else None


def ratio(a, b):
    return round(a / b, 3) if a and b else None


def analyse(run, netem=""):
    """The rows of one run: every point with both tools and its ratio."""
    recs, host = run["recs"], run["host"]
    info = next((r for r in recs if r.get("id") == "info"), {})
    by = {(r.get("tool"), r.get("id")): r for r in recs}
    netem = wire_label(host) or netem
    # perftest prints a rate of 0.00 when its check of the CPU clock fails
    # ("Correlation coefficient r^2 < 0.9", seen under TCG), but its
    # iteration count stands: the rate is then taken from it (within 0.2%
    # of perftest's own figure at 4 KiB, 6% at 64 KiB, where both were
    # printed) and marked.
    for r in recs:
        if (r.get("tool") == "perftest" and r.get("kind") == "bw" and not r.get("ok")
                and r.get("iters") and r.get("secs") and r.get("size")):
            r["mb_s"] = round(r["iters"] * int(r["size"]) / r["secs"] / 1e6, 3)
            r["derived"] = True
            r["ok"] = True
    rows = []
    for size in (4096, 65536, 1048576):
        for op in ("write", "read", "send"):
            pt = by.get(("perftest", "%s.%d" % (op, size)))
            kr = by.get(("krdma", "%s.%d" % (op, size)))
            p, k = num(pt, "mb_s"), num(kr, "mb_s")
            # Under an impaired wire every bandwidth point's target is
            # LOSS_TARGET (these are the loss rows).
            if netem:
                target = LOSS_TARGET
            else:
                target = 1.25 if op in ("write", "read") and size >= 65536 else 1.0
            rows.append({
                "metric": "%s %s BW (MB/s)" % (op, KIB[size]),
                "kind": "bw", "op": op, "size": size,
                "perftest": p, "krdma": k,
                "measured": bool(pt or kr), "pt_rec": pt, "kr_rec": kr,
                "perftest_derived": bool(pt and pt.get("derived")),
                "ratio": ratio(k, p),
                "target": target,
                "loss": bool(netem),
                "perftest_wire_mb_s": pt.get("wire_mb_s") if pt else None,
                "krdma_wire_mb_s": kr.get("wire_mb_s") if kr else None,
            })
    for op, size in (("send", 64), ("write", 64), ("write_imm", 64), ("read", 64),
                     ("atomic_fadd", 8)):
        # perftest has no write_imm latency: ib_write_lat is its write.
        pt = by.get(("perftest", "%s.%d" % ("write" if op == "write_imm" else op, size)))
        kr = by.get(("krdma", "%s.%d" % (op, size)))
        # krdma's lat mode has a median; check mode (write) only an average.
        k_p50 = num(kr, "p50_us")
        p, k = num(pt, "typical_us"), k_p50 if k_p50 else num(kr, "avg_us")
        pa = num(pt, "avg_us")
        rows.append({
            "metric": "%s %d B latency (us)" % (op, size),
            "kind": "lat", "op": op, "size": size,
            "perftest": p, "krdma": k,
            # perftest's write is measured for write already.
            "measured": bool(kr) if op == "write_imm" else bool(pt or kr),
            "pt_rec": pt, "kr_rec": kr,
            "ratio": ratio(p, k),
            "target": 2.0,
            "perftest_avg_us": pa, "perftest_p99_us": num(pt, "p99_us"),
            "perftest_iters": num(pt, "iters"), "krdma_iters": num(kr, "iters"),
            "krdma_stat": "p50" if k_p50 else "avg",
            "krdma_avg_us": num(kr, "avg_us"), "krdma_p99_us": num(kr, "p99_us"),
            "ratio_avg": ratio(pa, num(kr, "avg_us")),
            "ratio_p99": ratio(num(pt, "p99_us"), num(kr, "p99_us")),
        })
    # CPU per byte: both guests' busy CPU-seconds over each bandwidth point
    # (parse.py's cpu_s), the payload moved per CPU-second, each tool.
    for size in (4096, 65536, 1048576):
        for op in ("write", "read", "send"):
            pt = by.get(("perftest", "%s.%d" % (op, size)))
            kr = by.get(("krdma", "%s.%d" % (op, size)))
            p, k = num(pt, "mb_per_cpu_s"), num(kr, "mb_per_cpu_s")

            def split(rec, side):
                c = ((rec or {}).get("cpu") or {}).get(side) if rec and rec.get("ok") else None
                return c.get("busy_s") if c else None
            rows.append({
                "metric": "%s %s MB per CPU-s" % (op, KIB[size]),
                "kind": "cpu", "op": op, "size": size,
                "perftest": p, "krdma": k,
                "measured": bool(pt or kr), "pt_rec": pt, "kr_rec": kr,
                "ratio": ratio(k, p),
                "target": CPU_TARGET if size >= 65536 and not netem else 1.0,
                "perftest_cpu_s": num(pt, "cpu_s"), "krdma_cpu_s": num(kr, "cpu_s"),
                "perftest_client_cpu_s": split(pt, "client"),
                "perftest_server_cpu_s": split(pt, "server"),
                "krdma_client_cpu_s": split(kr, "client"),
                "krdma_server_cpu_s": split(kr, "server"),
                "perftest_mb": round(pt["bytes_moved"] / 1e6, 1)
                if num(pt, "bytes_moved") else None,
                "krdma_mb": round(kr["bytes_moved"] / 1e6, 1)
                if num(kr, "bytes_moved") else None,
            })
    # Message rate: a bandwidth point's messages per second (perftest's
    # MsgRate is its BW over the size) and per busy CPU-second of both
    # guests, where a tool's own cost per message shows.
    for op, size in MSG_POINTS:
        # 4 KiB is a bandwidth point; 64 and 512 B message-rate points
        # of their own (msg.OP.SIZE: 64 B is a latency point's id too).
        mid = "%s.%d" % (op, size) if size == 4096 else "msg.%s.%d" % (op, size)
        pt, kr = by.get(("perftest", mid)), by.get(("krdma", mid))
        for kind, key, what, target in (
                ("msg", "mb_s", "msg rate (k msg/s)", MSG_TARGET),
                ("msgcpu", "mb_per_cpu_s", "k msg per CPU-s", MSG_CPU_TARGET)):
            p, k = num(pt, key), num(kr, key)
            p, k = (round(v * 1e3 / size, 3) if v else None for v in (p, k))
            rows.append({
                "metric": "%s %s %s" % (op, KIB[size], what),
                "kind": kind, "op": op, "size": size,
                "perftest": p, "krdma": k,
                "measured": bool(pt or kr), "pt_rec": pt, "kr_rec": kr,
                "perftest_derived": bool(pt and pt.get("derived")),
                "ratio": ratio(k, p),
                "target": target if not netem else LOSS_TARGET,
            })
    tcp = by.get(("iperf3", "tcp"))
    # Several QPs, held to TCP over the same wire (iperf3) as the ceiling.
    nqps = info.get("qps", "?")
    for op, size in (("write", 1048576), ("read", 1048576), ("write", 65536)):
        kq = by.get(("krdma", "qps.%s.%d" % (op, size)))
        t, k = num(tcp, "mb_s"), num(kq, "mb_s")
        rows.append({
            "metric": "%s %s BW, %s QPs (MB/s)" % (op, KIB[size], nqps),
            "kind": "qps", "op": op, "size": size,
            "tcp": t, "krdma": k,
            "measured": bool(kq), "pt_rec": tcp, "kr_rec": kq,
            "krdma_1qp": num(by.get(("krdma", "%s.%d" % (op, size))), "mb_s"),
            "ratio": ratio(k, t),
            "target": 0.9,  # issue 32: several QPs at the wire's ceiling
            "krdma_wire_mb_s": kq.get("wire_mb_s") if kq else None,
        })
    for r in rows:
        r["met"] = r["ratio"] is not None and r["ratio"] >= r["target"]
        if netem:
            r["metric"] += ", " + netem
    # Plausibility: what the NIC carried during each point (payload plus
    # RoCEv2 headers, ~7% at a 1024-byte MTU) against what the tool reported.
    checks = []
    for r in rows:
        for tool in ("perftest", "krdma"):
            w, v = r.get(tool + "_wire_mb_s"), r.get(tool)
            if r["kind"] == "lat":
                continue
            if w is not None and v and not 0.85 <= w / v <= 1.35:
                checks.append("%s %s: reported %.1f MB/s, the NIC carried %.1f MB/s"
                              % (tool, r["metric"], v, w))
    # A measurement that gave no number, and why (krdma's reason string).
    failures = []
    for r in rows:
        for tool, rec in (("perftest" if r["kind"] != "qps" else "iperf3", r["pt_rec"]),
                          ("krdma", r["kr_rec"])):
            if rec and not rec.get("ok"):
                why = (rec.get("reason") or rec.get("error") or rec.get("stderr")
                       or ("status %s" % rec["status"] if rec.get("status") else
                           "no number in its output"))
                failures.append("%s %s: %s" % (tool, r["metric"], why))
    # krdma alone in each completion context (module parameter cq_poll).
    cq_rows = []
    for poll in ("workqueue", "unbound", "direct", "softirq"):
        bw = by.get(("krdma", "cq.%s.bw" % poll))
        bwq = by.get(("krdma", "cq.%s.bwq" % poll))
        lat = by.get(("krdma", "cq.%s.lat" % poll))
        wlat = by.get(("krdma", "cq.%s.lat_write" % poll))
        rlat = by.get(("krdma", "cq.%s.lat_read" % poll))
        if not bw and not lat:
            continue
        cpu, secs = num(bw, "cpu_ns"), num(bw, "secs")
        qcpu, qsecs = num(bwq, "cpu_ns"), num(bwq, "secs")
        cq_rows.append({
            "cq_poll": poll, "bw_write_64k_mb_s": num(bw, "mb_s"),
            "bw_cpu_share": round(cpu / 1e9 / secs, 3) if cpu and secs else None,
            "bw_guest_busy": num(bw, "guest_busy"),
            "bwq_write_64k_mb_s": num(bwq, "mb_s"),
            "bwq_cpu_share": round(qcpu / 1e9 / qsecs, 3) if qcpu and qsecs else None,
            "bwq_guest_busy": num(bwq, "guest_busy"),
            "lat_send_64_p50_us": num(lat, "p50_us"),
            "lat_send_64_p99_us": num(lat, "p99_us"),
            "lat_write_64_p50_us": num(wlat, "p50_us"),
            "lat_read_64_p50_us": num(rlat, "p50_us"),
        })
    failures = list(dict.fromkeys(failures))
    # rxe's retransmissions during the point (node 2, the requester, its
    # completer_retry_err: an ACK timeout or a NAK sent it back).
    for r in rows:
        for tool, rec in (("perftest", r["pt_rec"]), ("krdma", r["kr_rec"])):
            if r["kind"] == "qps" and tool == "perftest":
                continue
            x = rec.get("rxe") if rec else None
            r[tool + "_retries"] = x.get("completer_retry_err", 0) if x is not None else None
            r[tool + "_naks"] = x.get("rcvd_seq_err", 0) if x is not None else None
            # Per packet: the two tools' points last unlike spans (a krdma
            # window drains after its duration), so counts alone do not
            # compare. Sent and received: a READ's data comes in.
            pkts = (x.get("sent_pkts", 0) + x.get("rcvd_pkts", 0)) if x is not None else 0
            r[tool + "_retry_rate"] = (round(1000.0 * r[tool + "_retries"] / pkts, 2)
                                       if pkts else None)
    # The waiting side (the server's) during each point: its busy CPUs
    # (the tool's own work there included), the bench's own share, and
    # parse.py's mark (the bench took more than its bound).
    for r in rows:
        for tool, rec in (("perftest" if r["kind"] != "qps" else "iperf3", r["pt_rec"]),
                          ("krdma", r["kr_rec"])):
            rec = rec or {}
            r[tool + "_idle_cpus"] = rec.get("idle_cpus")
            r[tool + "_bench_cpus"] = rec.get("bench_cpus")
            r[tool + "_idle_busy"] = rec.get("idle_busy")
    ctl = by.get(("sleep", "idle"))
    control = None
    if ctl:
        c = ctl.get("cpu") or {}
        control = {"idle_cpus": ctl.get("idle_cpus"), "bench_cpus": ctl.get("bench_cpus"),
                   "client_busy_cpus": (c.get("client") or {}).get("busy_cpus"),
                   "bound": ctl.get("idle_bound"), "marked": ctl.get("idle_busy"),
                   "server": c.get("server")}
    for r in rows:
        r.pop("pt_rec")
        r.pop("kr_rec")
    spread_rows = vcpu_rows(by)
    bound = next((r["idle_bound"] for r in recs if r.get("idle_bound") is not None), None)
    return {"info": info, "tcp": tcp, "rows": rows, "checks": checks,
            "failures": failures, "cq": cq_rows, "control": control, "idle_bound": bound,
            "vcpu": spread_rows, "cpu_check": cpu_check_rows(recs)}


CPU_CHECK_KEYS = tuple("%s_%s" % (side, k) for side in ("client", "server")
                       for k in ("krdma_pct", "bench_pct", "diff_pts", "krdma_busy_s",
                                 "bench_busy_s", "outside_busy_s", "outside_pct"))


def cpu_check_rows(recs):
    """Each krdma point with both figures of a side: krdma's own host_cpu
    (the client's) and peer_host_cpu (the server's, from its TEST_RESULT)
    beside the bench's /proc/stat figure of that side (parse.py's
    cpu_check)."""
    out = []
    for rec in recs:
        cc = rec.get("cpu_check")
        if rec.get("tool") != "krdma" or not cc:
            continue
        row = {"id": rec["id"]}
        for k in CPU_CHECK_KEYS:
            side, key = k.split("_", 1)
            row[k] = (cc.get(side) or {}).get(key)
        out.append(row)
    return out


def cpu_check_lines(rows, series=False):
    if not rows:
        return []
    diffs = [(abs(r[s + "_diff_pts"]), r["id"], s) for r in rows
             for s in ("client", "server") if r.get(s + "_diff_pts") is not None]
    lines = ["", "krdma's own CPU figures (host_cpu, the client's; peer_host_cpu, the "
             "server's) beside the bench's /proc/stat of the same side, both in %% of all "
             "that side's CPUs; the bench's window is the whole krdmactl command, the "
             "test's setup and end too, krdma's the test alone. Outside: the bench's busy "
             "CPU-seconds less krdma's, over the seconds of the bench's window outside "
             "the test (the same counters, one window inside the other)%s:" % (
                 "; the median of the runs" if series else ""), "",
             "| point | client: krdma | client: bench | client: outside | "
             "server: krdma | server: bench | server: outside |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"] + [
                 "| %s | %s | %s | %s | %s | %s | %s |" % (
                     r["id"], f(r["client_krdma_pct"]), f(r["client_bench_pct"]),
                     f(r.get("client_outside_pct")), f(r["server_krdma_pct"]),
                     f(r["server_bench_pct"]), f(r.get("server_outside_pct")))
                 for r in rows]
    if diffs:
        lines += ["", "Largest difference: %.1f points (%s, the %s side)." % max(diffs)]
    # As CPU-seconds krdma's window is inside the bench's: its figure may
    # not exceed the bench's by more than /proc/stat's tick (10 ms a CPU).
    secs = [(r[s + "_krdma_busy_s"], r[s + "_bench_busy_s"]) for r in rows
            for s in ("client", "server")
            if r.get(s + "_krdma_busy_s") is not None and r.get(s + "_bench_busy_s") is not None]
    if secs:
        within = sum(1 for k, b in secs if k <= b + 0.02)
        lines += ["As busy CPU-seconds, krdma's figure is within the bench's (its window "
                  "inside the bench's, 20 ms of ticks allowed) at %d of %d sides." % (
                      within, len(secs))]
    return lines


# The points whose vCPU by vCPU figures (percpu.py) show whether the
# work over several QPs spreads: each several-QP point beside its one-QP
# twin, and TCP's.
VCPU_POINTS = [(("krdma", "qps.%s.%d" % w), "krdma %s %s, %%s QPs" % (w[0], KIB[w[1]]))
               for w in (("write", 1048576), ("read", 1048576), ("write", 65536))] + \
              [(("krdma", "%s.%d" % w), "krdma %s %s, 1 QP" % (w[0], KIB[w[1]]))
               for w in (("write", 1048576), ("read", 1048576), ("write", 65536))] + \
              [(("iperf3", "tcp"), "TCP (iperf3)")]
VCPU_KEYS = ("client_busy", "server_busy", "client_net_rx", "server_net_rx",
             "client_irqs", "server_irqs")


def vcpu_rows(by):
    """Per point: each side's busy share, NET_RX softirqs and NIC
    interrupts (a virtio queue's input), vCPU by vCPU."""
    out = []
    for key, label in VCPU_POINTS:
        rec = by.get(key)
        c = (rec or {}).get("cpu") or {}
        row = {"metric": label, "id": key[1]}
        for side in ("client", "server"):
            pc = (c.get(side) or {}).get("percpu") or {}
            row[side + "_busy"] = pc.get("busy")
            row[side + "_net_rx"] = pc.get("net_rx")
            irqs = [v for q, v in (pc.get("irqs") or {}).items() if "-input." in q]
            row[side + "_irqs"] = [sum(x) for x in zip(*irqs)] if irqs else None
        if any(row[k] for k in VCPU_KEYS):
            out.append(row)
    return out


def vcpu_lines(vrows, nqps, series=False):
    if not vrows:
        return []

    def cell(v, nd):
        return " / ".join(f(x, nd) for x in v) if v else "n/a"
    return ["", "Where the work ran, vCPU by vCPU (vCPU 0 / vCPU 1 ...; client: node 2, "
            "the requester; server: node 1; busy in CPUs; NET_RX: the receive softirqs, "
            "rxe's included; IRQs: the virtio NIC's receive interrupts%s):" % (
                "; the median of the runs" if series else ""), "",
            "| point | client busy | server busy | client NET_RX | server NET_RX "
            "| client IRQs | server IRQs |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"] + [
                "| %s | %s | %s | %s | %s | %s | %s |" % (
                    r["metric"].replace("%s", str(nqps)), cell(r["client_busy"], 2),
                    cell(r["server_busy"], 2), cell(r["client_net_rx"], 0),
                    cell(r["server_net_rx"], 0), cell(r["client_irqs"], 0),
                    cell(r["server_irqs"], 0)) for r in vrows]


def write_poll_cost(lat):
    """krdma's write p50 over its send p50: what write-polling costs (> 1) or
    saves (< 1) against a responder that answers from its completion handler;
    and over write_imm's, the same writes each woken by its immediate. A
    series' rows keep each run's figure (krdma_runs), a run's its own."""
    by = {r["op"]: r for r in lat}

    def cost(other):
        w, o = by.get("write"), by.get(other)
        if not w or not o:
            return None
        vals = [ratio(a, b) for a, b in zip(w.get("krdma_runs", [w["krdma"]]),
                                            o.get("krdma_runs", [o["krdma"]]))]
        vals = [v for v in vals if v]
        if not vals:
            return None
        return "%s%s" % (fx(med(vals)),
                         " (median of the runs, spread %s)" % spread(vals)
                         if len(vals) > 1 else "")

    send, imm = cost("send"), cost("write_imm")
    if not send and not imm:
        return None
    parts = []
    if send:
        parts.append("write p50 / send p50 = %s" % send)
    if imm:
        parts.append("write p50 / write_imm p50 = %s" % imm)
    return ("krdma's write-polling: %s; at most 1.0 means the poller costs no more "
            "than it saves." % "; ".join(parts))


def f(v, nd=1):
    if v is None:
        return "n/a"
    if nd == 2 and v < 0.1:
        nd = 3
    return "%.*f" % (nd, v)


def fx(v):
    return "%s x" % f(v, 2) if v else "n/a"


def met_cell(r):
    if r["ratio"] is None:
        return "**no** (not measured)"
    return "yes" if r["met"] else "**no**"


def cpu_lines(crows, series=False):
    """The CPU-per-byte rows: both guests' busy CPU-seconds and MB per
    CPU-second of each tool, their ratio (krdma / perftest)."""
    if series:
        head = ["| metric | perftest MB per CPU-s | krdma MB per CPU-s | ratio (median) "
                "| spread | runs | perftest CPU-s | krdma CPU-s | target | met |",
                "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
        return head + ["| %s | %s | %s | %s | %s | %s | %s | %s | >= %.2f x | %s |" % (
            r["metric"], f(r["perftest"]), f(r["krdma"]), fx(r["ratio"]),
            spread(r["ratios"]), r["runs_cell"], f(r.get("perftest_cpu_s"), 2),
            f(r.get("krdma_cpu_s"), 2), r["target"], met_cell(r)) for r in crows]
    head = ["| metric | perftest MB | CPU-s (client + server) | MB per CPU-s "
            "| krdma MB | CPU-s (client + server) | MB per CPU-s | ratio | target | met |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]

    def cs(r, tool):
        return "%s (%s + %s)" % (f(r.get(tool + "_cpu_s"), 2),
                                 f(r.get(tool + "_client_cpu_s"), 2),
                                 f(r.get(tool + "_server_cpu_s"), 2))
    return head + ["| %s | %s | %s | %s | %s | %s | %s | %s | >= %.2f x | %s |" % (
        r["metric"], f(r.get("perftest_mb")), cs(r, "perftest"), f(r["perftest"]),
        f(r.get("krdma_mb")), cs(r, "krdma"), f(r["krdma"]), fx(r["ratio"]),
        r["target"], met_cell(r)) for r in crows]


def idle_cell(r, tool):
    """The waiting side's busy CPUs during a point, the bench's own share
    in brackets, marked where the bench took more than its bound."""
    v = r.get(tool + "_idle_cpus")
    if v is None:
        return "n/a"
    return "%s (%s)%s" % (f(v, 2), f(r.get(tool + "_bench_cpus"), 3),
                          " **busy**" if r.get(tool + "_idle_busy") else "")


def idle_lines(rows, control, bound):
    lines = []
    if control:
        lines += ["", "Idle-only control (a sleep, nothing running): the waiting side's "
                  "CPUs busy %s of one CPU (bound %s), the bench's own %s; the sleeping "
                  "side's %s%s." % (
                      f(control.get("idle_cpus"), 3), f(bound, 2),
                      f(control.get("bench_cpus"), 3), f(control.get("client_busy_cpus"), 3),
                      "; **above the bound**" if control.get("marked") else "")]
    shown = [r for r in rows if r["kind"] in ("bw", "msg", "lat", "qps") and (
        r.get("perftest_idle_cpus") is not None or r.get("krdma_idle_cpus") is not None
        or r.get("iperf3_idle_cpus") is not None)]
    if not shown:
        return lines
    lines += ["", "The waiting side (the server's) during each point: its busy CPUs "
              "(user+nice+system+irq+softirq+steal from /proc/stat, in CPUs: 1.00 is one "
              "CPU all along; the tool's own work there counts: rxe's responder, a "
              "perftest server) and, in brackets, the bench's own processes there "
              "(the waiting rendezvous); **busy**: the bench took more than %s of one "
              "CPU:" % f(bound, 2), "",
              "| metric | perftest (or TCP) | krdma |", "| --- | ---: | ---: |"]
    lines += ["| %s | %s | %s |" % (r["metric"], idle_cell(
        r, "iperf3" if r["kind"] == "qps" else "perftest"), idle_cell(r, "krdma"))
        for r in shown]
    return lines


CQ_HEAD = [
    "| cq_poll | write 64 KiB BW (MB/s) | handlers' CPU | guest vCPUs busy "
    "| same, %s QPs (MB/s) | handlers' CPU | guest vCPUs busy "
    "| send 64 B p50 (us) | p99 (us) | write 64 B p50 (us) | read 64 B p50 (us) |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
]
CQ_KEYS = (("bw_write_64k_mb_s", 1), ("bw_cpu_share", 2), ("bw_guest_busy", 2),
           ("bwq_write_64k_mb_s", 1), ("bwq_cpu_share", 2), ("bwq_guest_busy", 2),
           ("lat_send_64_p50_us", 0), ("lat_send_64_p99_us", 0),
           ("lat_write_64_p50_us", 0), ("lat_read_64_p50_us", 0))


def cq_lines(cq_rows, nqps):
    return [CQ_HEAD[0] % nqps, CQ_HEAD[1]] + [
        "| %s | %s |" % (r["cq_poll"], " | ".join(f(r.get(k), nd) for k, nd in CQ_KEYS))
        for r in cq_rows]


def ack_timeout(host, info=None):
    """krdma's sessions' ACK timeout (run.sh -u, bench-host.sh -u): None
    for the module parameter's."""
    return host.get("ack_timeout") or (info or {}).get("ack_timeout")


def ack_wait(n):
    """4.096 us x 2^n, in the unit that reads best."""
    s = 4.096e-6 * 2 ** n
    return "%.0f ms" % (s * 1e3) if s < 1 else "%.2f s" % s


def wire_line(host, info=None):
    w = "wire: %s" % (host.get("wire") or "unix")
    if host.get("netem"):
        w += ", netem \"%s\" on both guests' NICs" % host["netem"]
    if host.get("mtu"):
        w += ", NIC MTU %s on both guests" % host["mtu"]
    if host.get("rps"):
        w += ", receive packet steering over all vCPUs"
    if host.get("modparams"):
        w += "; krdma module parameters \"%s\"" % host["modparams"]
    ack = ack_timeout(host, info)
    if ack:
        w += "; krdma's sessions at ack_timeout %d (%s per retransmission wait%s)" % (
            ack, ack_wait(ack), ", perftest's default" if ack == 14 else "")
    if wire_label(host):
        w += "; loss rows held to >= %.1f x perftest" % LOSS_TARGET
    if host.get("only"):
        w += "; steps \"%s\"" % host["only"]
    return w


def table_one(a, host):
    """The table of one run (the layout of the report before -R)."""
    rows, info = a["rows"], a["info"]
    shown = [r for r in rows if r["measured"]] or rows
    lines = [
        "| metric | perftest | krdma | ratio | target | met |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in shown:
        if r["kind"] in ("qps", "cpu"):
            continue
        if r["kind"] in ("bw", "msg", "msgcpu"):
            kr = f(r["krdma"])
            pt = f(r["perftest"]) + (" (from its iterations)" if r["perftest_derived"] else "")
        else:
            pt = "%s p50 (avg %s)" % (f(r["perftest"], 0), f(r["perftest_avg_us"], 0))
            if r["krdma_stat"] == "p50":
                kr = "%s p50 (avg %s)" % (f(r["krdma"], 0), f(r["krdma_avg_us"], 0))
            else:
                kr = "%s avg*" % f(r["krdma"], 0)
        lines.append("| %s | %s | %s | %s | >= %.2f x | %s |" % (
            r["metric"], pt, kr, fx(r["ratio"]), r["target"], met_cell(r)))
    qrows = [r for r in shown if r["kind"] == "qps"]
    if qrows:
        lines += [
            "",
            "Several QPs against the TCP ceiling (ratio: krdma / TCP):",
            "",
            "| metric | TCP (iperf3) | krdma | ratio | krdma, 1 QP | target | met |",
            "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
        ] + ["| %s | %s | %s | %s | %s | >= %.2f x | %s |" % (
            r["metric"], f(r["tcp"]), f(r["krdma"]), fx(r["ratio"]), f(r["krdma_1qp"]),
            r["target"], met_cell(r)) for r in qrows]
    crows = [r for r in shown if r["kind"] == "cpu"]
    if crows:
        lines += ["", "CPU per byte: the payload each tool moved over the point (MB) per "
                  "busy CPU-second of both guests over it (client + server, /proc/stat's "
                  "user+nice+system+irq+softirq+steal; ratio: krdma / perftest):", ""
                  ] + cpu_lines(crows)
    lines += idle_lines(rows, a.get("control"), a.get("idle_bound"))
    met = sum(1 for r in shown if r["met"])
    tcp_mb = num(a["tcp"], "mb_s")
    bw = [r for r in rows if r["kind"] == "bw"]
    notes = ["", "%d of %d targets met; %s." % (met, len(shown), wire_line(host, info))]
    if tcp_mb:
        best = lambda tool: max([r[tool] for r in bw if r.get(tool)] or [0])
        notes.append("TCP over the same wire (iperf3, %s s): %s MB/s, the wire's ceiling; "
                     "best perftest point %.0f%% of it, best krdma point %.0f%%." % (
                         info.get("secs", "?"), f(tcp_mb), 100 * best("perftest") / tcp_mb,
                         100 * best("krdma") / tcp_mb))
    if any(r.get("perftest_derived") for r in rows):
        notes += ["", "\"from its iterations\": perftest printed 0.00 MB/s (its CPU clock "
                  "check failed); the rate is its iteration count x size / seconds."]
    notes += [
        "",
        "Bandwidth ratio: krdma / perftest; latency ratio: perftest / krdma "
        "(higher is better for both). Latency is one way (half a round trip), "
        "as perftest reports it.",
    ]
    lat = [r for r in shown if r["kind"] == "lat"]
    if lat:
        notes += ["", "krdma's latency comes from its lat mode (a median, like perftest's "
                  "typical; write is write-polling on both sides, like ib_write_lat; write_imm "
                  "the same writes, each side woken by the other's immediate, held to "
                  "ib_write_lat too; send and "
                  "write count half the round trip, read and atomic_fadd all of it, "
                  "on both sides, as ib_read_lat and ib_atomic_lat do). "
                  "Averages against averages: %s; p99 against p99 (target >= 1.0 x): %s."
                  % (", ".join("%s %s" % (r["op"], fx(r["ratio_avg"])) for r in lat),
                     ", ".join("%s %s" % (r["op"], fx(r.get("ratio_p99"))) for r in lat))]
        poll = write_poll_cost(lat)
        if poll:
            notes += ["", poll]
    if a["checks"]:
        notes += ["", "Wire check (what the NIC carried during the point, RoCEv2 "
                  "headers included, against what the tool reported; shown when "
                  "outside 0.85-1.35):", ""] + ["* " + c for c in a["checks"]]
    if a["failures"]:
        notes += ["", "Measurements that gave no number:", ""] + [
            "* " + c for c in a["failures"]]
    if a["cq"]:
        notes += ["", "Completion context (krdma alone, same run; module parameter cq_poll):",
                  ""] + cq_lines(a["cq"], info.get("qps", "?"))
    notes += vcpu_lines(a["vcpu"], info.get("qps", "?"))
    notes += cpu_check_lines(a["cpu_check"])
    return "\n".join(lines + notes) + "\n"


def where(info):
    """Where the client side ran: a guest of the harness, or a host of
    one's own (tests/bench/bench-host.sh, info's tool "host")."""
    if info.get("tool") == "host":
        return "client %s, kernel %s (%s CPUs), device %s" % (
            info.get("host", "?"), info.get("kernel", "?"), info.get("vcpus", "?"),
            info.get("dev", "?"))
    return "guest kernel %s (%s vCPUs, TCG)" % (info.get("kernel", "?"), info.get("vcpus", "?"))


def head_one(run, a):
    host, info = run["host"], a["info"]
    if info.get("tool") == "host" and not host:
        # Two hosts of one's own: no harness host to describe.
        return "\n".join([
            where(info),
            "perftest %s, %s; %s s per point, krdma depth %s, %s QPs for the several-QP points"
            % (info.get("perftest", "?"), info.get("iperf3", "?"), info.get("secs", "?"),
               info.get("depth", "?"), info.get("qps", "?")),
        ]) + "\n"
    return "\n".join([
        "%s, %s, host %s CPUs, load %s -> %s, rev %s" % (
            host.get("started"), where(info),
            host.get("host_cpus"), host.get("host_load_before"),
            host.get("host_load_after"), host.get("revision")),
        "command: %s" % host.get("command"),
        "perftest %s, %s; %s s per point, krdma depth %s, %s QPs for the several-QP points"
        % (info.get("perftest", "?"), info.get("iperf3", "?"), info.get("secs", "?"),
           info.get("depth", "?"), info.get("qps", "?")),
    ]) + "\n"


def report_one(run, netem=""):
    a = analyse(run, netem)
    table = table_one(a, run["host"])
    meta = dict(run["host"], guest=a["info"], wire_check_outliers=a["checks"],
                failures=a["failures"])
    with open(os.path.join(run["dir"], "bench.json"), "w") as fp:
        json.dump({"meta": meta, "rows": a["rows"], "cq": a["cq"], "tcp": a["tcp"],
                   "vcpu": a["vcpu"], "cpu_check": a["cpu_check"],
                   "control": a["control"], "idle_bound": a["idle_bound"],
                   "records": run["recs"], "table": table}, fp, indent=1, sort_keys=True)
    with open(os.path.join(run["dir"], "table.md"), "w") as fp:
        fp.write(table)
    return a, head_one(run, a) + "\n" + table


def med(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def spread(vals):
    vals = [v for v in vals if v is not None]
    return "%s-%s" % (f(min(vals), 2), f(max(vals), 2)) if vals else "n/a"


def report_series(top, runs):
    host = load(os.path.join(top, "host.json"), {})
    per = [report_one(r, wire_label(host))[0] for r in runs]
    n = len(runs)
    keys = [r["metric"] for r in per[0]["rows"]] if per else []
    agg = []
    for i, metric in enumerate(keys):
        rs = [a["rows"][i] for a in per]
        if not any(r["measured"] for r in rs):
            continue
        r0 = rs[0]
        ratios = [r["ratio"] for r in rs]
        g = {
            "metric": metric, "kind": r0["kind"], "op": r0["op"], "size": r0["size"],
            "target": r0["target"],
            "ratios": ratios,
            "ratio": med(ratios),
            "ratio_min": min([x for x in ratios if x is not None], default=None),
            "ratio_max": max([x for x in ratios if x is not None], default=None),
            "runs": sum(1 for x in ratios if x is not None),
            "krdma": med([r["krdma"] for r in rs]),
            "krdma_values": [r["krdma"] for r in rs],
            "krdma_retries": med([r.get("krdma_retries") for r in rs]),
            "perftest_retries": med([r.get("perftest_retries") for r in rs]),
            "krdma_naks": med([r.get("krdma_naks") for r in rs]),
            "perftest_naks": med([r.get("perftest_naks") for r in rs]),
            "krdma_retry_rate": med([r.get("krdma_retry_rate") for r in rs]),
            "perftest_retry_rate": med([r.get("perftest_retry_rate") for r in rs]),
        }
        for tool in ("perftest", "krdma", "iperf3"):
            # The waiting side: the median of the runs; marked if a run was.
            g[tool + "_idle_cpus"] = med([r.get(tool + "_idle_cpus") for r in rs])
            g[tool + "_bench_cpus"] = max([r.get(tool + "_bench_cpus") for r in rs
                                           if r.get(tool + "_bench_cpus") is not None],
                                          default=None)
            g[tool + "_idle_busy"] = any(r.get(tool + "_idle_busy") for r in rs)
        if r0["kind"] == "cpu":
            for k in ("perftest_cpu_s", "krdma_cpu_s", "perftest_mb", "krdma_mb"):
                g[k] = med([r.get(k) for r in rs])
        if r0["kind"] == "qps":
            g["tcp"] = med([r["tcp"] for r in rs])
            g["tcp_values"] = [r["tcp"] for r in rs]
            g["krdma_1qp"] = med([r["krdma_1qp"] for r in rs])
        else:
            g["perftest"] = med([r["perftest"] for r in rs])
            g["perftest_values"] = [r["perftest"] for r in rs]
            g["perftest_derived_runs"] = sum(1 for r in rs if r.get("perftest_derived"))
        if r0["kind"] == "lat":
            g["ratio_avg"] = med([r["ratio_avg"] for r in rs])
            g["ratio_p99"] = med([r.get("ratio_p99") for r in rs])
            g["krdma_runs"] = [r["krdma"] for r in rs]
            g["krdma_stat"] = "p50" if all(r["krdma_stat"] == "p50" for r in rs) else "avg"
        g["met"] = g["ratio"] is not None and g["ratio"] >= g["target"]
        agg.append(g)

    def runs_cell(g):
        return "%d" % n if g["runs"] == n else "%d of %d" % (g["runs"], n)

    lines = [
        "| metric | perftest | krdma | ratio (median) | spread | runs | target | met |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for g in agg:
        g["runs_cell"] = runs_cell(g)
        if g["kind"] in ("qps", "cpu"):
            continue
        nd = 1 if g["kind"] in ("bw", "msg", "msgcpu") else 0
        pt, kr = f(g["perftest"], nd), f(g["krdma"], nd)
        if g["kind"] == "lat":
            pt += " typical"
            kr += " " + g["krdma_stat"]
        elif g["perftest_derived_runs"]:
            pt += " (%d from its iterations)" % g["perftest_derived_runs"]
        lines.append("| %s | %s | %s | %s | %s | %s | >= %.2f x | %s |" % (
            g["metric"], pt, kr, fx(g["ratio"]), spread(g["ratios"]), runs_cell(g),
            g["target"], met_cell(g)))
    qrows = [g for g in agg if g["kind"] == "qps"]
    if qrows:
        lines += [
            "",
            "Several QPs against the TCP ceiling (ratio: krdma / TCP):",
            "",
            "| metric | TCP (iperf3) | krdma | ratio (median) | spread | runs | krdma, 1 QP "
            "| target | met |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
        ] + ["| %s | %s | %s | %s | %s | %s | %s | >= %.2f x | %s |" % (
            g["metric"], f(g["tcp"]), f(g["krdma"]), fx(g["ratio"]), spread(g["ratios"]),
            runs_cell(g), f(g["krdma_1qp"]), g["target"], met_cell(g)) for g in qrows]
    crows = [g for g in agg if g["kind"] == "cpu"]
    if crows:
        lines += ["", "CPU per byte: the payload each tool moved over the point per busy "
                  "CPU-second of both guests over it (/proc/stat's "
                  "user+nice+system+irq+softirq+steal, client + server; the median of the "
                  "runs; ratio: krdma / perftest, the median of the runs' ratios):", ""
                  ] + cpu_lines(crows, series=True)
    ctls = [a["control"] for a in per if a.get("control")]
    control = None
    if ctls:
        control = {k: med([c.get(k) for c in ctls])
                   for k in ("idle_cpus", "bench_cpus", "client_busy_cpus")}
        control["marked"] = any(c.get("marked") for c in ctls)
        control["runs"] = [c.get("idle_cpus") for c in ctls]
    bound = next((a["idle_bound"] for a in per if a.get("idle_bound") is not None), None)
    lines += idle_lines(agg, control, bound)
    met = sum(1 for g in agg if g["met"])
    notes = [
        "",
        "%d of %d targets met (median ratio); %s." % (
            met, len(agg), wire_line(host, per[0]["info"] if per else None)),
        "",
        "Each point was measured in %d runs, each in a fresh pair of guests; "
        "perftest, krdma and TCP: the median of their rates (or latencies) over the "
        "runs; ratio: the median of the runs' ratios, spread: the smallest and "
        "largest of them. Bandwidth ratio: krdma / perftest; latency ratio: "
        "perftest / krdma (one way, half a round trip; perftest's typical against "
        "krdma's p50); higher is better for both. The table of each run is in "
        "runK/table.md." % n,
    ]
    lat = [g for g in agg if g["kind"] == "lat"]
    if lat:
        notes += ["", "Latency, averages against averages (median ratio): %s; p99 against "
                  "p99 (target >= 1.0 x): %s." % (
                      ", ".join("%s %s" % (g["op"], fx(g["ratio_avg"])) for g in lat),
                      ", ".join("%s %s" % (g["op"], fx(g.get("ratio_p99"))) for g in lat))]
        poll = write_poll_cost(lat)
        if poll:
            notes += ["", poll]
    tcps = [num(a["tcp"], "mb_s") for a in per]
    if any(tcps):
        notes += ["", "TCP over the same wire (iperf3): %s MB/s in the runs." % ", ".join(
            f(t) for t in tcps)]
    wtag = "Wire check (the NIC's bytes against the tool's figure, outside 0.85-1.35%s)" % (
        "; on an impaired wire the NIC also carries what is sent again"
        if wire_label(host) else "")
    for tag, key in ((wtag, "checks"),
                     ("Measurements that gave no number", "failures")):
        items = ["* run %d: %s" % (k + 1, c) for k, a in enumerate(per) for c in a[key]]
        if items:
            notes += ["", tag + ":", ""] + items
    retry = [g for g in agg if g.get("krdma_retries") or g.get("perftest_retries")]
    if retry:
        notes += ["", "Retransmissions during the point (rxe0's hw counters on node 2, "
                  "the requester; median of the runs): retries (completer_retry_err: "
                  "the requester went back to an unacknowledged packet and sent "
                  "everything from it again) and, of them, those a NAK asked for "
                  "(rcvd_seq_err: the responder saw a gap, a packet was lost); the "
                  "rest followed an ACK timeout or, for READ, a gap the requester saw "
                  "in the responses. The points last unlike spans (krdma's window "
                  "drains after its duration), so the retries per 1000 packets the "
                  "requester sent and received are what compares:", "",
                  "| metric | perftest retries | NAKs | per 1000 packets | "
                  "krdma retries | NAKs | per 1000 packets |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"] + [
                      "| %s | %s | %s | %s | %s | %s | %s |" % (
                          g["metric"], f(g.get("perftest_retries"), 0),
                          f(g.get("perftest_naks"), 0), f(g.get("perftest_retry_rate"), 1),
                          f(g.get("krdma_retries"), 0), f(g.get("krdma_naks"), 0),
                          f(g.get("krdma_retry_rate"), 1)) for g in retry]
    cqs = [a["cq"] for a in per if a["cq"]]
    if cqs:
        polls = [r["cq_poll"] for r in cqs[0]]
        cq_agg = []
        for p in polls:
            rs = [r for c in cqs for r in c if r["cq_poll"] == p]
            cq_agg.append(dict({"cq_poll": p}, **{k: med([r.get(k) for r in rs])
                                                  for k, _ in CQ_KEYS}))
        notes += ["", "Completion context (krdma alone; module parameter cq_poll; "
                  "median of %d runs):" % len(cqs), ""] + cq_lines(
                      cq_agg, per[0]["info"].get("qps", "?"))
    else:
        cq_agg = []
    # vCPU by vCPU: the median of the runs, element by element.
    vids = [r["id"] for r in per[0]["vcpu"]] if per else []
    vcpu_agg = []
    for vid in vids:
        rs = [r for a in per for r in a["vcpu"] if r["id"] == vid]
        g = {"metric": rs[0]["metric"], "id": vid}
        for k in VCPU_KEYS:
            vals = [r[k] for r in rs if r[k]]
            g[k] = [med(x) for x in zip(*vals)] if vals else None
        vcpu_agg.append(g)
    notes += vcpu_lines(vcpu_agg, per[0]["info"].get("qps", "?") if per else "?", series=True)
    # krdma's own CPU figures against the bench's: the median of the runs.
    check_agg = []
    for cid in [r["id"] for r in per[0]["cpu_check"]] if per else []:
        rs = [r for a in per for r in a["cpu_check"] if r["id"] == cid]
        check_agg.append(dict({"id": cid}, **{k: med([r.get(k) for r in rs])
                                              for k in CPU_CHECK_KEYS}))
    notes += cpu_check_lines(check_agg, series=True)
    table = "\n".join(lines + notes) + "\n"
    info = per[0]["info"] if per else {}
    run_hosts = [r["host"] for r in runs]
    with open(os.path.join(top, "bench.json"), "w") as fp:
        json.dump({"meta": dict(host, guest=info, runs=run_hosts), "rows": agg, "cq": cq_agg,
                   "vcpu": vcpu_agg, "cpu_check": check_agg,
                   "control": control, "idle_bound": bound,
                   "per_run": [{"dir": r["dir"], "rows": a["rows"], "checks": a["checks"],
                                "failures": a["failures"]} for r, a in zip(runs, per)],
                   "table": table}, fp, indent=1, sort_keys=True)
    with open(os.path.join(top, "table.md"), "w") as fp:
        fp.write(table)
    head = [
        "%s to %s: %d runs, %s, host %s CPUs, rev %s" % (
            host.get("started"), host.get("ended", "?"), n, where(info),
            host.get("host_cpus"), host.get("revision")),
        "host load average (1/5/15 min) before and after each run: %s" % "; ".join(
            "%s -> %s" % (h.get("host_load_before"), h.get("host_load_after"))
            for h in run_hosts),
        "command: %s" % host.get("command"),
        "perftest %s, %s; %s s per point, krdma depth %s, %s QPs for the several-QP points"
        % (info.get("perftest", "?"), info.get("iperf3", "?"), info.get("secs", "?"),
           info.get("depth", "?"), info.get("qps", "?")),
    ]
    return "\n".join(head) + "\n\n" + table


def main():
    top = sys.argv[1]
    dirs = sorted(glob.glob(os.path.join(top, "run[0-9]*")),
                  key=lambda d: int(re.sub(r"\D", "", os.path.basename(d)) or 0))
    dirs = [d for d in dirs if os.path.isdir(d)]
    if dirs:
        runs = [load_run(d) for d in dirs]
        text = report_series(top, runs)
    else:
        runs = [load_run(top)]
        text = report_one(runs[0])[1]
    print()
    print(text, end="")
    return 0 if any(r["recs"] for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
