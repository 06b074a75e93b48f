#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# sync.py - the rendezvous of tests/bench/bench-host.sh's two sides, on
# two real hosts and in the QEMU harness's guests alike (over the
# guests' own network): the server side serves it over TCP, both sides
# meet there at each named point, and a side may hand the other a value
# on the way (the client's latency iteration count, the server's CPU
# figures of a point).
#
#   sync.py serve PORT
#       Serve until killed (the server side starts it, and kills it at
#       its end). Prints "listening" once it is.
#   sync.py meet HOST PORT ROLE NAME TIMEOUT [VALUE] [-- NAME TIMEOUT [VALUE]]...
#       Wait (at most TIMEOUT seconds, connecting included: the server
#       side may not be up yet) until the other role (server, client)
#       has reached NAME too; then the next NAME, if any. Print the value
#       the other brought to the last one (a line, maybe empty). Exit 0,
#       or 1 with a message on a timeout or an error.
#   sync.py wait HOST PORT ROLE N TIMEOUT [SERVE-PID]
#       The side that only waits during point N: meets ready.N (120 s),
#       then done.N (TIMEOUT), then hands the other side, at stat.N
#       (120 s), what this host's CPUs did between the two (a JSON
#       object, see cpu_figures, with each vCPU's share of it under
#       "percpu": percpu.py) and prints it too. SERVE-PID: the
#       rendezvous server's process, whose CPU counts as the bench's.
#
# Nothing here polls while it waits: a side blocks in one read of its
# connection, and the server's thread of a waiting side in one select()
# on that connection and a pipe the other side's thread writes to (the
# bench's points measure the idle side's CPU; tests/bench/bench-host.sh).
#
# Protocol: one line "ROLE NAME VALUE" from each side; once both sides of
# NAME are in, each gets "GO VALUE-OF-THE-OTHER" and the connection
# closes. A NAME may be reused once it has been met.
import json
import os
import resource
import select
import socket
import socketserver
import sys
import threading
import time
import percpu  # tests/bench/percpu.py, beside this file

ROLES = ("server", "client")
lock = threading.Lock()
# NAME -> {ROLE: Waiter}: a side that came first and waits for the other.
waiting = {}


class Waiter:
    def __init__(self, value):
        self.value = value
        self.reply = None
        self.rfd, self.wfd = os.pipe()

    def close(self):
        os.close(self.rfd)
        os.close(self.wfd)


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        line = self.rfile.readline().decode("utf-8", "replace").rstrip("\n")
        parts = line.split(" ", 2)
        if len(parts) < 2 or parts[0] not in ROLES:
            self.wfile.write(b"ERR expected: ROLE NAME [VALUE]\n")
            return
        role, name = parts[0], parts[1]
        value = parts[2] if len(parts) > 2 else ""
        other = ROLES[1 - ROLES.index(role)]
        with lock:
            w = waiting.setdefault(name, {})
            if role in w:
                self.wfile.write(("ERR %s is already waiting at %s\n" % (role, name)).encode())
                return
            if other in w:
                # The other came first: it gets our value, we get its.
                o = w.pop(other)
                del waiting[name]
                o.reply = value
                os.write(o.wfd, b"x")
                me = None
                reply = o.value
            else:
                me = w[role] = Waiter(value)
        if me is not None:
            # Until the other side comes (the pipe) or this one goes (its
            # connection readable: it closed, having given up).
            try:
                select.select([me.rfd, self.connection], [], [])
                with lock:
                    reply = me.reply
                    if reply is None:
                        if waiting.get(name, {}).get(role) is me:
                            del waiting[name][role]
                            if not waiting[name]:
                                del waiting[name]
                        return
            finally:
                me.close()
        self.wfile.write(("GO %s\n" % reply).encode())


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True
    address_family = socket.AF_INET6 if socket.has_ipv6 else socket.AF_INET

    def server_bind(self):
        if self.address_family == socket.AF_INET6:
            # Both families on one socket, where the host allows it.
            self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        super().server_bind()


def serve(port):
    try:
        srv = Server(("::" if Server.address_family == socket.AF_INET6 else "", port), Handler)
    except OSError:
        Server.address_family = socket.AF_INET
        srv = Server(("", port), Handler)
    print("listening", flush=True)
    # No poll interval: it blocks in select() until a side connects (it
    # is killed, never shut down).
    srv.serve_forever(poll_interval=None)


def meet_one(host, port, role, name, timeout, value):
    """The other's value, or None (said on stderr)."""
    end = time.monotonic() + timeout
    last = None
    while True:
        left = end - time.monotonic()
        if left <= 0:
            break
        try:
            with socket.create_connection((host, port), timeout=min(left, 5)) as s:
                s.settimeout(max(end - time.monotonic(), 0.1))
                s.sendall(("%s %s %s\n" % (role, name, value)).encode())
                reply = s.makefile("rb").readline().decode("utf-8", "replace").rstrip("\n")
            if reply.startswith("GO "):
                return reply[3:]
            if reply.startswith("ERR "):
                print("sync: %s: %s" % (name, reply[4:]), file=sys.stderr)
                return None
            last = "the connection closed"
        except socket.timeout:
            last = "the other side did not come"
            break
        except OSError as e:
            # Not listening yet (the server side starts it), or gone.
            last = str(e)
            time.sleep(0.5)
    print("sync: %s: not met within %d s at %s:%d as %s (%s)" %
          (name, timeout, host, port, role, last), file=sys.stderr)
    return None


# /proc/stat's cpu line: user nice system idle iowait irq softirq steal ...
STAT_KEYS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
BUSY_KEYS = ("user", "nice", "system", "irq", "softirq", "steal")


def proc_stat():
    with open("/proc/stat") as f:
        for l in f:
            if l.startswith("cpu "):
                v = [int(x) for x in l.split()[1:]]
                return dict(zip(STAT_KEYS, v + [0] * (len(STAT_KEYS) - len(v))))
    return None


def own_ticks(pid):
    """utime + stime of a process (ticks), 0 if it is gone or none."""
    if not pid:
        return 0
    try:
        with open("/proc/%s/stat" % pid) as f:
            rest = f.read().rsplit(")", 1)[1].split()
        return int(rest[11]) + int(rest[12])
    except (OSError, IndexError, ValueError):
        return 0


def self_secs():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def cpu_figures(s0, s1, t0, t1, bench_s):
    """What this host's CPUs did between two /proc/stat readings:
    CPU-seconds of each busy kind and their sum (busy_s), the seconds
    between (secs), the CPUs, and the busy share in CPUs (busy_cpus:
    1.0 is one CPU busy all along); bench_s, bench_cpus: the same of the
    bench's own processes here (this one, the rendezvous server)."""
    hz = os.sysconf("SC_CLK_TCK")
    d = {k: (s1[k] - s0[k]) / hz for k in STAT_KEYS}
    secs = t1 - t0
    fig = {k + "_s": round(d[k], 3) for k in BUSY_KEYS}
    fig["busy_s"] = round(sum(d[k] for k in BUSY_KEYS), 3)
    fig["secs"] = round(secs, 3)
    fig["cpus"] = os.cpu_count()
    # Over the wall time: the ticks of all CPUs are secs x CPUs.
    fig["busy_cpus"] = round(fig["busy_s"] / secs, 4) if secs > 0 else None
    fig["bench_s"] = round(bench_s, 3)
    fig["bench_cpus"] = round(bench_s / secs, 4) if secs > 0 else None
    return fig


def wait_point(host, port, role, n, timeout, serve_pid):
    if meet_one(host, port, role, "ready.%s" % n, 120, "") is None:
        return 1
    hz = os.sysconf("SC_CLK_TCK")
    s0, t0, b0, p0 = proc_stat(), time.monotonic(), self_secs(), own_ticks(serve_pid)
    pc0 = percpu.snapshot()
    ok = meet_one(host, port, role, "done.%s" % n, timeout, "") is not None
    pc1 = percpu.snapshot()
    s1, t1, b1, p1 = proc_stat(), time.monotonic(), self_secs(), own_ticks(serve_pid)
    if not ok:
        return 1
    fig = cpu_figures(s0, s1, t0, t1, (b1 - b0) + (p1 - p0) / hz)
    fig["percpu"] = percpu.figures(pc0, pc1)
    text = json.dumps(fig, sort_keys=True)
    if meet_one(host, port, role, "stat.%s" % n, 120, text) is None:
        return 1
    print(text)
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "serve":
        serve(int(argv[2]))
        return 0
    if len(argv) >= 7 and argv[1] == "meet" and argv[4] in ROLES:
        host, port, role = argv[2], int(argv[3]), argv[4]
        groups, cur = [], []
        for a in argv[5:]:
            if a == "--":
                groups.append(cur)
                cur = []
            else:
                cur.append(a)
        groups.append(cur)
        if all(len(g) in (2, 3) and g[1].isdigit() for g in groups):
            reply = None
            for g in groups:
                reply = meet_one(host, port, role, g[0], int(g[1]), g[2] if len(g) == 3 else "")
                if reply is None:
                    return 1
            print(reply)
            return 0
    if len(argv) in (7, 8) and argv[1] == "wait" and argv[4] in ROLES:
        return wait_point(argv[2], int(argv[3]), argv[4], argv[5], int(argv[6]),
                          argv[7] if len(argv) == 8 else None)
    print("usage: sync.py serve PORT | sync.py meet HOST PORT ROLE NAME TIMEOUT [VALUE] "
          "[-- NAME TIMEOUT [VALUE]]... | sync.py wait HOST PORT ROLE N TIMEOUT [SERVE-PID]",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
