#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# sync.py - the rendezvous of tests/bench/bench-host.sh's two sides on two
# real hosts (in the QEMU harness the harness's barrier does it): the
# server side serves it over TCP, both sides meet there at each named
# point, and a side may hand the other a value on the way (the client's
# latency iteration count).
#
#   sync.py serve PORT
#       Serve until killed (the server side starts it, and kills it at
#       its end). Prints "listening" once it is.
#   sync.py meet HOST PORT ROLE NAME TIMEOUT [VALUE]
#       Wait (at most TIMEOUT seconds, connecting included: the server
#       side may not be up yet) until the other role (server, client)
#       has reached NAME too; print the value it brought (a line, maybe
#       empty). Exit 0, or 1 with a message on a timeout or an error.
#
# Protocol: one line "ROLE NAME VALUE" from each side; once both sides of
# NAME are in, each gets "GO VALUE-OF-THE-OTHER" and the connection
# closes. A NAME may be reused once it has been met.
import socket
import socketserver
import sys
import threading
import time

ROLES = ("server", "client")
cond = threading.Condition()
# NAME -> {ROLE: value}; NAME -> {ROLE: the other's value}, once met
waiting = {}
met = {}


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
        with cond:
            w = waiting.setdefault(name, {})
            if role in w:
                self.wfile.write(("ERR %s is already waiting at %s\n" % (role, name)).encode())
                return
            w[role] = value
            if other in w:
                met[name] = {role: w[other], other: w[role]}
                del waiting[name]
                cond.notify_all()
            # The connection closing (the side gave up) ends the wait too.
            while not (name in met and role in met[name]):
                if not cond.wait(1.0) and self.gone():
                    if waiting.get(name, {}).pop(role, None) is not None and not waiting[name]:
                        del waiting[name]
                    return
            reply = met[name].pop(role)
            if not met[name]:
                del met[name]
        self.wfile.write(("GO %s\n" % reply).encode())

    def gone(self):
        try:
            self.request.setblocking(False)
            try:
                return self.request.recv(1, socket.MSG_PEEK) == b""
            except BlockingIOError:
                return False
            finally:
                self.request.setblocking(True)
        except OSError:
            return True


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
    srv.serve_forever()


def meet(host, port, role, name, timeout, value):
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
                print(reply[3:])
                return 0
            if reply.startswith("ERR "):
                print("sync: %s: %s" % (name, reply[4:]), file=sys.stderr)
                return 1
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
    return 1


def main(argv):
    if len(argv) == 3 and argv[1] == "serve":
        serve(int(argv[2]))
        return 0
    if len(argv) in (7, 8) and argv[1] == "meet" and argv[4] in ROLES:
        return meet(argv[2], int(argv[3]), argv[4], argv[5], int(argv[6]),
                    argv[7] if len(argv) == 8 else "")
    print("usage: sync.py serve PORT | sync.py meet HOST PORT ROLE NAME TIMEOUT [VALUE]",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
