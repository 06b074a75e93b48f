#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# test_plot.py - tests/bench/plot.py on a tiny synthetic series (two runs
# made up here, through report.py like a real one): every chart is
# written, is XML, names its series, takes krdma's CDF from the
# histogram, carries no date nor embedded glyphs, and comes out byte for
# byte the same from the same data. Part of make check-unit; skipped
# (exit 0) where no python3 has matplotlib.
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))

if importlib.util.find_spec("matplotlib") is None:
    # pyenv's or a venv's python3 may lack what Debian's has.
    if sys.executable != "/usr/bin/python3" and os.access("/usr/bin/python3", os.X_OK):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    print("test_plot: SKIP (no python3 with matplotlib: python3-matplotlib)")
    sys.exit(0)

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("test_plot: FAIL: " + what)


def bw(tool, op, size, mb_s, cpu_s=None):
    r = {"id": "%s.%d" % (op, size), "tool": tool, "kind": "bw", "op": op,
         "size": size, "mb_s": mb_s, "ok": True, "secs": 5.0}
    if cpu_s:
        # Both sides' CPU of the point, as parse.py records it.
        r.update(bytes_moved=int(mb_s * 7e6), cpu_s=cpu_s,
                 mb_per_cpu_s=round(mb_s * 7 / cpu_s, 3),
                 cpu={"client": {"busy_s": cpu_s * 0.6}, "server": {"busy_s": cpu_s * 0.4}})
    return r


def make_run(d, k):
    """Run k (1 or 2): a little faster in run 2, so medians and bars differ."""
    os.makedirs(d)
    f = 1.0 + 0.5 * (k - 1)
    recs = [{"id": "info", "tool": "guest", "kernel": "6.1.0-test", "vcpus": 2,
             "qps": 4, "secs": 5, "depth": 64}]
    for size, base in ((4096, 3.0), (65536, 6.0), (1048576, 9.0)):
        for op in ("write", "read", "send"):
            recs.append(bw("perftest", op, size, base * f, cpu_s=7.0))
            recs.append(bw("krdma", op, size, base * 1.2 * f, cpu_s=2.8))
    recs.append({"id": "tcp", "tool": "iperf3", "kind": "tcp", "op": "tcp",
                 "mb_s": 15.0 * f, "ok": True})
    for op, size in (("write", 1048576), ("read", 1048576), ("write", 65536)):
        r = bw("krdma", op, size, 11.0 * f)
        r.update(id="qps.%s.%d" % (op, size), kind="bwq")
        recs.append(r)
    # send: krdma with its histogram; write: percentiles only (an older
    # krdmactl), which the chart must still draw.
    recs.append({"id": "send.64", "tool": "krdma", "kind": "lat", "op": "send", "size": 64,
                 "ok": True, "p50_us": 300.0 * f, "avg_us": 350.0, "min_us": 200.0,
                 "p99_us": 900.0, "max_us": 2000.0,
                 "hist": [[200000, 262144, 10], [262144, 327680, 50 * k],
                          [524288, 655360, 30], [1572864, 2097152, 1]]})
    recs.append({"id": "write.64", "tool": "krdma", "kind": "lat", "op": "write", "size": 64,
                 "ok": True, "p50_us": 250.0, "avg_us": 260.0, "min_us": 100.0,
                 "p90_us": 400.0, "p99_us": 800.0, "p99_9_us": 1500.0, "max_us": 3000.0})
    for op in ("send", "write"):
        recs.append({"id": "%s.64" % op, "tool": "perftest", "kind": "lat", "op": op,
                     "size": 64, "ok": True, "typical_us": 400.0 * f, "avg_us": 500.0,
                     "min_us": 150.0, "max_us": 5000.0, "p99_us": 2500.0, "p999_us": 4000.0,
                     "iters": 1000})
    with open(os.path.join(d, "bench-raw.jsonl"), "w") as fp:
        for r in recs:
            fp.write(json.dumps(r, sort_keys=True) + "\n")
    with open(os.path.join(d, "host.json"), "w") as fp:
        json.dump({"revision": "test", "runs": 2, "wire": "unix", "netem": ""}, fp)


def run(*args):
    p = subprocess.run([sys.executable] + list(args), capture_output=True, text=True)
    check(p.returncode == 0, "%s exited %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p.stdout


def text_of(path):
    root = ET.parse(path).getroot()
    return " ".join(t for e in root.iter() for t in (e.text, e.tail) if t and t.strip())


def main():
    sys.dont_write_bytecode = True
    sys.path.insert(0, HERE)
    import plot
    # Uniform buckets: the CDF climbs through each and stays flat
    # across the empty ones.
    check(plot.hist_cdf([[1000, 2000, 1], [3000, 4000, 3]]) ==
          ([1.0, 2.0, 3.0, 4.0], [0.0, 0.25, 0.25, 1.0]), "hist_cdf of two buckets")
    check(plot.hist_cdf([[1000, 2000, 0]]) is None, "hist_cdf of no samples")

    top = tempfile.mkdtemp(prefix="krdma-plot-test.")
    try:
        for k in (1, 2):
            make_run(os.path.join(top, "run%d" % k), k)
        with open(os.path.join(top, "host.json"), "w") as fp:
            json.dump({"revision": "test", "runs": 2, "wire": "unix", "netem": ""}, fp)
        run(os.path.join(HERE, "report.py"), top)
        out = run(os.path.join(HERE, "plot.py"), top).split()
        want = {
            "bw-sweep-write.svg": ["krdma, 1 QP", "perftest (ib_write_bw)", "krdma, 4 QPs",
                                   "TCP (iperf3"],
            "bw-sweep-read.svg": ["krdma, 1 QP", "perftest (ib_read_bw)", "krdma, 4 QPs"],
            "bw-sweep-send.svg": ["krdma, 1 QP", "perftest (ib_send_bw)"],
            "lat-cdf-send.svg": ["krdma, run 1 (histogram", "krdma, run 2 (histogram",
                                 "perftest, run 1 (percentiles", "perftest, run 2"],
            "lat-cdf-write.svg": ["krdma, run 1 (percentiles", "perftest, run 2 (percentiles"],
            # krdma: 1.2 x the bytes for 0.4 x the CPU: 3.0 x per CPU-second.
            "cpu-per-byte.svg": ["krdma", "perftest (ib_OP_bw)", "CPU per byte", "3.00x",
                                 "write", "64 KiB"],
        }
        check(sorted(os.path.basename(p) for p in out) == sorted(want),
              "charts written: %s" % out)
        first = {}
        for name, labels in want.items():
            path = os.path.join(top, name)
            if not os.path.exists(path):
                check(False, "%s missing" % name)
                continue
            try:
                txt = text_of(path)
            except ET.ParseError as e:
                check(False, "%s is not XML: %s" % (name, e))
                continue
            for label in labels:
                check(label in txt, "%s has no label %r" % (name, label))
            with open(path, "rb") as fp:
                first[name] = fp.read()
            check(b"<dc:date>" not in first[name], "%s carries a date" % name)
            check(b'id="DejaVu' not in first[name], "%s embeds glyphs" % name)
            check(len(first[name]) < 100000, "%s is %d bytes" % (name, len(first[name])))
        with open(os.path.join(top, "bench.json")) as fp:
            cpu_rows = [r for r in json.load(fp)["rows"] if r["kind"] == "cpu"]
        check(len(cpu_rows) == 9 and all(r["ratio"] == 3.0 for r in cpu_rows),
              "report.py's MB per CPU-s rows: %s" % [(r["metric"], r["ratio"]) for r in cpu_rows])
        check("krdma, 4 QPs" not in text_of(os.path.join(top, "bw-sweep-send.svg")),
              "bw-sweep-send.svg shows several QPs, which were not measured for send")
        run(os.path.join(HERE, "plot.py"), top)
        for name, data in first.items():
            with open(os.path.join(top, name), "rb") as fp:
                check(fp.read() == data, "%s differs when made again" % name)
    finally:
        shutil.rmtree(top)
    print("test_plot: %s" % ("FAIL (%d)" % len(failures) if failures else "ok"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
