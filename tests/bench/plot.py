#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# plot.py DIR - the charts of a tests/bench/run.sh series (or of one run).
#
# Reads DIR/bench.json (tests/bench/report.py's, so the charts show the
# table's figures) and the raw records, DIR/runK/bench-raw.jsonl (or
# DIR/bench-raw.jsonl for one run), and writes as SVG:
#
#   DIR/bw-sweep-OP.svg  bandwidth against message size for OP (write,
#                        read, send): krdma and perftest, the median of
#                        the runs with the smallest and the largest run
#                        as error bars; krdma over several QPs where
#                        measured; TCP (iperf3, one figure for the wire,
#                        whatever the size) as a line with its spread.
#   DIR/lat-cdf-OP.svg   the latency CDF of OP (send, write, read,
#                        atomic_fadd), one curve per run: krdma's from
#                        its histogram's buckets, perftest's through the
#                        percentiles it prints (min, typical, p99,
#                        p99.9, max).
#   DIR/cpu-per-byte.svg CPU per byte: MB moved per busy CPU-second of
#                        both guests (report.py's "MB per CPU-s" rows)
#                        at each bandwidth point, krdma and perftest
#                        side by side, the median with the runs' extremes
#                        as error bars, krdma's ratio over each pair.
#
# The same data give the same bytes: no date, a fixed hash salt for the
# SVG's ids, text as text (no embedded glyphs). Prints the files written.
# Exit status 0, 1 if there was nothing to plot, 2 on a usage error or
# without matplotlib (Debian: python3-matplotlib).
import glob
import json
import os
import re
import statistics
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("plot.py: no matplotlib for %s (Debian: python3-matplotlib)" % sys.executable,
          file=sys.stderr)
    sys.exit(2)

SIZES = {64: "64 B", 4096: "4 KiB", 65536: "64 KiB", 1048576: "1 MiB"}
BW_OPS = ("write", "read", "send")
LAT_OPS = ("send", "write", "read", "atomic_fadd")
# What each tool's latency counts (report.py, bench-guest.sh).
WHOLE = ("read", "atomic_fadd", "atomic_cswap")
COLOR = {"krdma": "#1f77b4", "krdma_q": "#2ca02c", "perftest": "#ff7f0e", "tcp": "#7f7f7f"}
RUN_STYLE = ("-", "--", ":", "-.")

matplotlib.rcParams.update({
    "svg.fonttype": "none",
    "svg.hashsalt": "krdma-bench",
    "font.size": 9,
    "axes.grid": True,
    "grid.alpha": 0.3,
})


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def run_dirs(top):
    dirs = [d for d in glob.glob(os.path.join(top, "run[0-9]*")) if os.path.isdir(d)]
    dirs.sort(key=lambda d: int(re.sub(r"\D", "", os.path.basename(d)) or 0))
    return dirs or [top]


def records(d):
    try:
        with open(os.path.join(d, "bench-raw.jsonl")) as f:
            return [json.loads(l) for l in f if l.strip()]
    except (OSError, ValueError):
        return []


def values(row, tool):
    """A tool's figure in every run of the row (one for a single run)."""
    vals = row.get(tool + "_values")
    if vals is None:
        vals = [row.get(tool)]
    return [v for v in vals if v]


def subtitle(meta, runs):
    """runs: how many runs the chart shows (a run of a series is one)."""
    bits = ["rev %s" % meta.get("revision", "?"),
            "%d run%s" % (runs, "" if runs == 1 else "s")]
    bits.append("wire %s" % (meta.get("wire") or "unix"))
    if meta.get("netem"):
        bits.append("netem \"%s\"" % meta["netem"])
    if meta.get("modparams"):
        bits.append("krdma %s" % meta["modparams"])
    return ", ".join(bits)


def save(fig, path):
    fig.savefig(path, format="svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    print(path)


def errorbar(ax, pts, dx, label, color, marker):
    """pts: (size, [values]); the median with the runs' extremes."""
    pts = [(s, v) for s, v in pts if v]
    if not pts:
        return False
    x = [s * dx for s, _ in pts]
    med = [statistics.median(v) for _, v in pts]
    lo = [m - min(v) for m, (_, v) in zip(med, pts)]
    hi = [max(v) - m for m, (_, v) in zip(med, pts)]
    ax.errorbar(x, med, yerr=[lo, hi], label=label, color=color, marker=marker,
                capsize=3, linewidth=1.2, markersize=5)
    return True


def bw_sweep(top, bench, nruns, op):
    rows = bench.get("rows", [])
    meta = bench.get("meta", {})
    bw = sorted((r for r in rows if r.get("kind") == "bw" and r.get("op") == op),
                key=lambda r: r["size"])
    qps = sorted((r for r in rows if r.get("kind") == "qps" and r.get("op") == op),
                 key=lambda r: r["size"])
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    drawn = errorbar(ax, [(r["size"], values(r, "krdma")) for r in bw], 0.94,
                     "krdma, 1 QP", COLOR["krdma"], "o")
    drawn |= errorbar(ax, [(r["size"], values(r, "perftest")) for r in bw], 1.06,
                      "perftest (ib_%s_bw)" % op, COLOR["perftest"], "s")
    nqps = (meta.get("guest") or {}).get("qps", "N")
    drawn |= errorbar(ax, [(r["size"], values(r, "krdma")) for r in qps], 1.0,
                      "krdma, %s QPs" % nqps, COLOR["krdma_q"], "^")
    if not drawn:
        plt.close(fig)
        return None
    # TCP's figure does not depend on the size: the wire's ceiling.
    tcp = values(next((r for r in rows if r.get("kind") == "qps"), {}), "tcp")
    if tcp:
        ax.axhline(statistics.median(tcp), color=COLOR["tcp"], linestyle="--",
                   linewidth=1, label="TCP (iperf3, any size): the wire's ceiling")
        if len(tcp) > 1:
            ax.axhspan(min(tcp), max(tcp), color=COLOR["tcp"], alpha=0.12, linewidth=0)
    ax.set_xscale("log", base=2)
    sizes = sorted({r["size"] for r in bw + qps})
    ax.set_xticks(sizes)
    ax.set_xticklabels([SIZES.get(s, str(s)) for s in sizes])
    ax.minorticks_off()
    ax.set_xlim(sizes[0] / 2, sizes[-1] * 2)
    # Headroom for the legend above the highest bar.
    ax.set_ylim(0, ax.get_ylim()[1] * 1.3)
    ax.set_xlabel("message size")
    ax.set_ylabel("MB/s (10^6 bytes)")
    ax.set_title("%s bandwidth: median of the runs, bars from the lowest to the highest\n%s"
                 % (op, subtitle(meta, nruns)), fontsize=9)
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    path = os.path.join(top, "bw-sweep-%s.svg" % op)
    save(fig, path)
    return path


def cpu_per_byte(top, bench, nruns):
    rows = [r for r in bench.get("rows", []) if r.get("kind") == "cpu"
            and (values(r, "krdma") or values(r, "perftest"))]
    if not rows:
        return None
    meta = bench.get("meta", {})
    fig, ax = plt.subplots(figsize=(7.2, 4.0))
    x = list(range(len(rows)))
    w = 0.38
    for tool, dx, label in (("perftest", -w / 2, "perftest (ib_OP_bw)"),
                            ("krdma", w / 2, "krdma")):
        pts = [(i, values(r, tool)) for i, r in zip(x, rows)]
        pts = [(i, v) for i, v in pts if v]
        if not pts:
            continue
        med = [statistics.median(v) for _, v in pts]
        ax.bar([i + dx for i, _ in pts], med, w, color=COLOR[tool], label=label,
               yerr=[[m - min(v) for m, (_, v) in zip(med, pts)],
                     [max(v) - m for m, (_, v) in zip(med, pts)]], capsize=2)
    top_y = ax.get_ylim()[1]
    for i, r in zip(x, rows):
        if r.get("ratio"):
            hi = max(values(r, "krdma") + values(r, "perftest"))
            ax.text(i, hi + top_y * 0.02, "%.2fx" % r["ratio"], ha="center", fontsize=7)
    ax.set_xticks(x)
    ax.set_xticklabels(["%s\n%s" % (r["op"], SIZES.get(r["size"], r["size"])) for r in rows],
                       fontsize=7.5)
    ax.set_ylim(0, top_y * 1.25)
    ax.set_ylabel("MB per busy CPU-second (both guests)")
    ax.set_title("CPU per byte: payload over /proc/stat busy CPU-s of client + server, "
                 "ratio krdma / perftest\n%s" % subtitle(meta, nruns), fontsize=9)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    path = os.path.join(top, "cpu-per-byte.svg")
    save(fig, path)
    return path


def hist_cdf(hist):
    """CDF points of the buckets [lo_ns, hi_ns, count] in us, each bucket
    taken as uniform (empty buckets are left out: the CDF is flat there)."""
    buckets = sorted((b for b in hist if b and b[2]), key=lambda b: b[0])
    total = sum(b[2] for b in buckets)
    if not total:
        return None
    xs, ys, cum = [], [], 0
    for lo, hi, n in buckets:
        # The last possible bucket has no end (2^64 - 1).
        hi = hi if hi < 2 ** 63 else lo * 2
        xs += [lo / 1e3, hi / 1e3]
        ys += [cum / total]
        cum += n
        ys += [cum / total]
    return xs, ys


def pct_cdf(rec, keys):
    """CDF points through the percentiles a record carries (us)."""
    pts = [(rec.get(k), q) for k, q in keys if rec.get(k)]
    pts.sort()
    return ([x for x, _ in pts], [q for _, q in pts]) if len(pts) >= 2 else None


PT_KEYS = (("min_us", 0.0), ("typical_us", 0.5), ("p99_us", 0.99), ("p999_us", 0.999),
           ("max_us", 1.0))
KR_KEYS = (("min_us", 0.0), ("p50_us", 0.5), ("p90_us", 0.9), ("p99_us", 0.99),
           ("p99_9_us", 0.999), ("p99.9_us", 0.999), ("max_us", 1.0))


def curve(axes, cdf, **kw):
    """The CDF on the left, what is left above it (1 - CDF, the tail, on
    a log scale) on the right; the tail stops where nothing is left."""
    axes[0].plot(cdf[0], cdf[1], **kw)
    tail = [(x, 1 - y) for x, y in zip(*cdf) if 1 - y > 1e-9]
    kw.pop("label", None)
    if tail:
        axes[1].plot([x for x, _ in tail], [y for _, y in tail], **kw)


def lat_cdf(top, runs, meta, op):
    fig, axes = plt.subplots(1, 2, figsize=(8.8, 4.0))
    drawn = False
    many = len(runs) > 1
    for k, recs in enumerate(runs):
        by = {(r.get("tool"), r.get("kind"), r.get("op")): r for r in recs if r.get("ok")}
        style = RUN_STYLE[k % len(RUN_STYLE)]
        tag = ", run %d" % (k + 1) if many else ""
        kr = by.get(("krdma", "lat", op))
        if kr:
            cdf = hist_cdf(kr["hist"]) if kr.get("hist") else None
            how = "histogram"
            if not cdf:
                cdf, how = pct_cdf(kr, KR_KEYS), "percentiles"
            if cdf:
                curve(axes, cdf, color=COLOR["krdma"], linestyle=style, linewidth=1.3,
                      label="krdma%s (%s, p50 %.0f us)" % (tag, how, kr.get("p50_us", 0)))
                drawn = True
        pt = by.get(("perftest", "lat", op))
        cdf = pct_cdf(pt, PT_KEYS) if pt else None
        if cdf:
            curve(axes, cdf, color=COLOR["perftest"], linestyle=style, marker="s",
                  markersize=3.5, linewidth=1,
                  label="perftest%s (percentiles, typical %.0f us)" % (tag, pt["typical_us"]))
            drawn = True
    if not drawn:
        plt.close(fig)
        return None
    xlabel = "latency (us, %s)" % ("round trip" if op in WHOLE else "one way, half a round trip")
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xlabel(xlabel)
    axes[0].set_ylim(0, 1.01)
    axes[0].set_yticks([0, 0.25, 0.5, 0.75, 0.9, 1])
    axes[0].set_ylabel("fraction of the iterations at most x (CDF)")
    axes[1].set_yscale("log")
    axes[1].set_ylabel("fraction above x (1 - CDF, the tail)")
    size = next((r.get("size") for recs in runs for r in recs
                 if r.get("kind") == "lat" and r.get("op") == op), None)
    fig.suptitle("%s %s latency (krdma lat mode, ib_%s_lat): %s"
                 % (op, SIZES.get(size, "%s B" % size), op.split("_")[0],
                    subtitle(meta, len(runs))), fontsize=9)
    axes[0].legend(loc="lower right", fontsize=6.5)
    fig.tight_layout()
    path = os.path.join(top, "lat-cdf-%s.svg" % op)
    save(fig, path)
    return path


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: plot.py DIR (a tests/bench/run.sh series or run)", file=sys.stderr)
        return 2
    top = argv[1]
    bench = load(os.path.join(top, "bench.json"))
    if bench is None:
        print("plot.py: no %s/bench.json (tests/bench/run.sh -r %s makes it)" % (top, top),
              file=sys.stderr)
        return 1
    meta = bench.get("meta", {})
    runs = [records(d) for d in run_dirs(top)]
    out = [bw_sweep(top, bench, len(runs), op) for op in BW_OPS]
    out += [lat_cdf(top, runs, meta, op) for op in LAT_OPS]
    out.append(cpu_per_byte(top, bench, len(runs)))
    if not any(out):
        print("plot.py: nothing to plot in %s" % top, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
