# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# percpu.py - where a point's work ran on one side, vCPU by vCPU: each
# vCPU's busy share (/proc/stat's cpuN lines), its NET_RX softirqs
# (/proc/softirqs: the receive work, rxe's included, that the NIC's
# packets raise) and the NIC's virtio interrupts it took
# (/proc/interrupts). Two snapshots, before and after a point, make the
# figures; the server side's come through sync.py (wait), the client's
# from `cat /proc/stat /proc/softirqs /proc/interrupts` (bench-host.sh).
# Documentation/performance.md, "Several QPs".
import re

BUSY = (0, 1, 2, 4, 5, 6)   # user nice system irq softirq steal (no idle, iowait)
FILES = ("/proc/stat", "/proc/softirqs", "/proc/interrupts")


def snapshot():
    """The three files as one text, as `cat` of them makes it."""
    out = []
    for p in FILES:
        try:
            with open(p) as f:
                out.append(f.read())
        except OSError:
            pass
    return "".join(out)


def _parse(text):
    cpus, softirqs, irqs = {}, {}, {}
    ncpu = 0
    for l in text.splitlines():
        m = re.match(r"cpu(\d+) (.*)", l)
        if m:
            v = [int(x) for x in m.group(2).split()]
            cpus[int(m.group(1))] = (sum(v[i] for i in BUSY if i < len(v)), sum(v[:8]))
            continue
        f = l.split()
        if len(f) >= 2 and f[0] in ("NET_RX:", "NET_TX:") and f[1].isdigit():
            softirqs[f[0][:-1]] = [int(x) for x in f[1:] if x.isdigit()]
            continue
        # "  25:  1234  0  PCI-MSI 49153-edge  virtio0-input.0"
        if len(f) >= 3 and f[0].endswith(":") and f[0][:-1].isdigit() and "virtio" in f[-1]:
            ncpu = ncpu or len(cpus)
            vals = [int(x) for x in f[1:1 + ncpu] if x.isdigit()]
            if re.search(r"-(input|output)\.", f[-1]):
                irqs[f[-1]] = vals
    return cpus, softirqs, irqs


def figures(text0, text1):
    """Per vCPU between the snapshots: busy (its busy ticks over all its
    ticks: 1.0 = busy all along), NET_RX and NET_TX softirqs, and each
    virtio queue's interrupts; None if a snapshot is missing."""
    if not text0 or not text1:
        return None
    c0, s0, i0 = _parse(text0)
    c1, s1, i1 = _parse(text1)
    ids = sorted(set(c0) & set(c1))
    fig = {"cpus": len(ids)}
    fig["busy"] = [round((c1[i][0] - c0[i][0]) / (c1[i][1] - c0[i][1]), 3)
                   if c1[i][1] > c0[i][1] else None for i in ids]
    for k in ("NET_RX", "NET_TX"):
        if k in s0 and k in s1:
            fig[k.lower()] = [b - a for a, b in zip(s0[k], s1[k])][:len(ids)]
    fig["irqs"] = {q: [b - a for a, b in zip(i0[q], i1[q])]
                   for q in sorted(set(i0) & set(i1)) if any(i1[q])}
    return fig
