#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Reproducer, not part of any suite: what the wire shows of the
# conformance cases whose verdict is the responder's NAK
# (Documentation/conformance.rst, "Results"). Run it through the VM
# harness as the other reproducers are:
#
#   KERNEL=$(make -s kver) tests/run-guest-suite.sh tests/repro/conform-wire.sh
#
# Node 2 runs, each alone over its own session, send.longer_than_receive,
# send.rnr_retried and send.rnr_retry_exceeded (krdmactl conform ... case
# CASE); node 1, the responder, captures the RoCEv2 headers of its NIC
# (tcpdump, which must be installed: the guests run the host's binaries)
# and decodes the responder's acknowledgements (tests/repro/roce-pcap.py):
# the AETH syndrome of each NAK it sent, which is what the requester's
# completion status is made of (IBTA vol. 1, 9.7.5.2.8: 0x60 | code for a
# NAK, code 1 invalid request, 2 remote access error, 3 remote
# operational error; 0x20 | timer for an RNR NAK). Results:
# wire.long_send.nak (the NAK syndrome rxe sent for the SEND longer than
# the receive, printed: 0x63 on rxe 6.1, where the specification has
# 0x61; a 0x60, a sequence error NAK, may come with it from the RNR case
# whose requester sent its next SEND behind the NAKed one), wire.rnr_naks (RNR NAKs on the wire, and their timer field:
# krdma's minimum RNR timer, 0.64 ms, is code 12: 0x2c), and the cases' own
# verdicts (case.*). The capture is kept in KRDMA_OUT (node1.conform.pcap)
# and its decoded NAKs in node1.naks.txt.
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
PORT=7493
IF=$(rdma link show "${KRDMA_RDMA_DEV:-rxe0}/1" | sed -n 's/.*netdev \([^ ]*\).*/\1/p')
CASES="send.longer_than_receive send.rnr_retried send.rnr_retry_exceeded"

if [ "$KRDMA_NODE" = 1 ]; then
	expect_ok listener.add krdmactl listener add name l port $PORT
	command -v tcpdump >/dev/null ||
		{ result wire.tcpdump fail "no tcpdump on the host"; barrier listening; barrier done 600; exit 1; }
	tcpdump -i "$IF" -s 96 -B 65536 -w /tmp/conform.pcap udp port 4791 \
		2>/tmp/tcpdump.err &
	TCPD=$!
	wait_for -t 30 grep -q listening /tmp/tcpdump.err
	barrier listening
	barrier done 600
	kill "$TCPD"
	wait "$TCPD"
	cat /tmp/tcpdump.err
	cp /tmp/conform.pcap "$KRDMA_OUT/node1.conform.pcap"
	# The acknowledgements this node (the responder) sent with a NAK.
	python3 "$KRDMA_ROOT/tests/repro/roce-pcap.py" /tmp/conform.pcap |
		grep " ACK .* syn=0x[2367]" >/tmp/naks.txt
	cp /tmp/naks.txt "$KRDMA_OUT/node1.naks.txt"
	log "NAKs sent: $(wc -l </tmp/naks.txt); the first of each syndrome:"
	for syn in $(sed -n 's/.* syn=\(0x..\)$/\1/p' /tmp/naks.txt | sort -u); do
		log "  $(grep -m1 " syn=$syn\$" /tmp/naks.txt)"
	done
	# The SEND longer than the receive: one NAK, an error NAK (0x6N).
	long=$(sed -n 's/.* syn=\(0x6[0-9a-f]\)$/\1/p' /tmp/naks.txt | sort -u | tr '\n' ' ')
	[ -n "$long" ] && result wire.long_send.nak ok "syndrome=$long" ||
		result wire.long_send.nak fail "no error NAK on the wire"
	rnr=$(grep -c " syn=0x[23]" /tmp/naks.txt)
	timer=$(sed -n 's/.* syn=\(0x[23].\)$/\1/p' /tmp/naks.txt | sort -u | tr '\n' ' ')
	[ "$rnr" -gt 0 ] && result wire.rnr_naks ok "count=$rnr syndrome=$timer" ||
		result wire.rnr_naks fail "no RNR NAK on the wire"
else
	barrier listening
	expect_ok connect krdmactl session connect addr "$KRDMA_PEER_IP" port $PORT name c1
	for c in $CASES; do
		krdmactl -j conform session c1 case "$c" >"/tmp/$c.json" 2>&1
		got=$(json_get "d['cases'][0]['result'] + ' ' + str(d['cases'][0].get('wc_status_name', ''))" <"/tmp/$c.json")
		[ -n "$got" ] && result "case.$c" ok "$got" ||
			result "case.$c" fail "no result: $(cat "/tmp/$c.json")"
	done
	krdmactl session del name c1
	barrier done
fi
barrier end 300
