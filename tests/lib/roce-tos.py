#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""roce-tos.py IFACE SRC_IP STOPFILE MAXSECS: counts the RoCEv2 packets (UDP
port 4791 over IPv4) that SRC_IP sends on IFACE, by the IP header's TOS
byte, until STOPFILE exists (or MAXSECS), and prints {"TOS": count, ...}
as JSON. Prints "ready" on stderr once it listens. A raw AF_PACKET
socket, so that no capture tool is needed in the guest."""
import os
import json
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
ETH_P_IP = 0x0800
PACKET_OUTGOING = 4
ROCE_PORT = 4791


def main():
    iface, src = sys.argv[1], socket.inet_aton(sys.argv[2])
    stop, secs = sys.argv[3], float(sys.argv[4])
    # What a host sends reaches only ETH_P_ALL taps (dev_queue_xmit_nit()).
    s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(ETH_P_ALL))
    s.bind((iface, 0))
    s.settimeout(0.2)
    print("ready", file=sys.stderr, flush=True)
    counts = {}
    end = time.monotonic() + secs
    while time.monotonic() < end and not os.path.exists(stop):
        try:
            pkt, addr = s.recvfrom(128)
        except socket.timeout:
            continue
        # SOCK_DGRAM: the network header first; what we sent, once.
        if addr[1] != ETH_P_IP or addr[2] != PACKET_OUTGOING:
            continue
        if len(pkt) < 28 or pkt[9] != 17 or pkt[12:16] != src:
            continue
        ihl = (pkt[0] & 0x0f) * 4
        if len(pkt) < ihl + 4 or struct.unpack("!H", pkt[ihl + 2:ihl + 4])[0] != ROCE_PORT:
            continue
        counts[str(pkt[1])] = counts.get(str(pkt[1]), 0) + 1
    print(json.dumps(counts))


main()
