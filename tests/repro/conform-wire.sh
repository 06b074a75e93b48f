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
# and its decoded NAKs in node1.naks.txt. KRDMA_REPRO_CASES replaces the
# cases (keep send.longer_than_receive among them: its NAK is a result),
# e.g. "send.longer_than_receive send.reg_mr_behind_retried", whose
# NAKed SEND rxe 6.1 sends once more and then nothing (rxe.reg_mr_twice).
#
# Over iWARP (KRDMA_RDMA=siw), whose wire is TCP, it runs instead the case
# read.0_bytes_behind_data, which siw's zero-length READ bug fails
# (Documentation/conformance.rst, siw.zero_length_read):
#
#   make check-iwarp GUEST_TESTS=../repro/conform-wire
#
# Node 1 captures whole packets (-s 0) of TCP port 7493, the rdma_cm
# connections of the sessions, and decodes their MPA FPDUs
# (tests/repro/iwarp-pcap.py): each Read Request of 0 bytes node 2 sent
# and the Read Response node 1's siw answered it with. Results: wire.mpa
# (the MPA flags of the connections' Requests and Replies: markers, CRC;
# siw asks for neither by default), wire.zero_read_answered (ok when siw
# answered a READ of 0 bytes with data, as its bug does: the length, sent
# whole or cut short by node 2's reset, and the request), wire.terminate (the TERMINATE node 2 sent back: layer,
# error type, code; or none, when krdma's teardown of the failed session
# reset the connection before siw sent it) and
# case.read.0_bytes_behind_data. KRDMA_OUT keeps the capture
# (node1.conform-iwarp.pcap), its decoding (node1.iwarp.txt) and the
# verdict on each READ of 0 bytes (node1.zero-reads.txt).
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
PORT=7493
IF=$(rdma link show "${KRDMA_RDMA_DEV:-rxe0}/1" | sed -n 's/.*netdev \([^ ]*\).*/\1/p')
CASES=${KRDMA_REPRO_CASES:-send.longer_than_receive send.rnr_retried send.rnr_retry_exceeded}
SNAP=96 FILTER="udp port 4791"
if iwarp; then
	CASES=read.0_bytes_behind_data SNAP=0 FILTER="tcp port $PORT"
fi
DECODE="$KRDMA_ROOT/tests/repro/iwarp-pcap.py"

# roce_results: node 1's results of the RoCE capture /tmp/conform.pcap.
roce_results() {
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
}

# iwarp_results: node 1's results of the iWARP capture /tmp/conform.pcap.
iwarp_results() {
	cp /tmp/conform.pcap "$KRDMA_OUT/node1.conform-iwarp.pcap"
	python3 "$DECODE" /tmp/conform.pcap >/tmp/iwarp.txt
	cp /tmp/iwarp.txt "$KRDMA_OUT/node1.iwarp.txt"
	python3 "$DECODE" -z /tmp/conform.pcap >/tmp/zero-reads.txt
	cp /tmp/zero-reads.txt "$KRDMA_OUT/node1.zero-reads.txt"
	log "decoded: $(wc -l </tmp/iwarp.txt) lines; MPA frames, TERMINATEs, RSTs, READs of 0 bytes:"
	grep -e " MPA " -e " Terminate " -e " TCP RST" /tmp/iwarp.txt | while read -r l; do log "  $l"; done
	while read -r l; do log "  $l"; done </tmp/zero-reads.txt
	mpa=$(sed -n 's/.* MPA \([A-Za-z]*\) markers=\([01]\) crc=\([01]\).*/\1:markers=\2,crc=\3/p' /tmp/iwarp.txt |
		sort | uniq -c | awk '{ printf "%s%dx%s", s, $1, $2; s = "," }')
	[ -n "$mpa" ] && result wire.mpa ok "frames=$mpa" ||
		result wire.mpa fail "no MPA Request or Reply decoded"
	# The first READ of 0 bytes that came back with data, else the first.
	zero=$(grep -m1 " bytes.*: WRONG" /tmp/zero-reads.txt || grep -m1 " ReadReq " /tmp/zero-reads.txt)
	req=$(printf '%s\n' "$zero" | sed -n 's/.* ReadReq \(.*\) => .*/\1/p')
	got=$(printf '%s\n' "$zero" | sed -n 's/.* => [a-z: ]*\([0-9]*\) bytes in \([0-9]*\) segments.*/\1 \2/p')
	# Its response cut short: by node 2's RST (krdma's teardown).
	case $zero in
	*"=> incomplete:"*) whole=no ;;
	*) whole=yes ;;
	esac
	[ "${got%% *}" -gt 0 ] 2>/dev/null &&
		result wire.zero_read_answered ok "bytes=${got%% *}" "segments=${got#* }" "whole=$whole" "request=$req" ||
		result wire.zero_read_answered fail "bytes=${got:-none}" "request=${req:-none}"
	# Node 2's siw sends a TERMINATE unless krdma's teardown of the
	# session closes the socket first: then the wire has its TCP RST.
	term=$(sed -n "s/.*$KRDMA_PEER_IP:[0-9]*->.* Terminate .*\(layer=.*\)/\1/p" /tmp/iwarp.txt | head -n 1)
	rst=$(grep -c "$KRDMA_PEER_IP:[0-9]*->.* TCP RST" /tmp/iwarp.txt)
	if [ -n "$term" ]; then
		result wire.terminate ok "$term"
	elif [ "$rst" -gt 0 ]; then
		result wire.terminate ok "none: $KRDMA_PEER_IP reset the connection first"
	else
		result wire.terminate fail "no TERMINATE or RST from $KRDMA_PEER_IP"
	fi
}

if [ "$KRDMA_NODE" = 1 ]; then
	expect_ok listener.add krdmactl listener add name l port $PORT
	command -v tcpdump >/dev/null ||
		{ result wire.tcpdump fail "no tcpdump on the host"; barrier listening; barrier "done" 600; exit 1; }
	# shellcheck disable=SC2086 # FILTER is words
	tcpdump -i "$IF" -s $SNAP -B 65536 -w /tmp/conform.pcap $FILTER \
		2>/tmp/tcpdump.err &
	TCPD=$!
	wait_for -t 30 grep -q listening /tmp/tcpdump.err
	barrier listening
	barrier "done" 600
	kill "$TCPD"
	wait "$TCPD"
	cat /tmp/tcpdump.err
	if iwarp; then
		iwarp_results
	else
		roce_results
	fi
else
	barrier listening
	expect_ok connect krdmactl session connect addr "$KRDMA_PEER_IP" port $PORT name c1
	for c in $CASES; do
		krdmactl -j conform session c1 case "$c" >"/tmp/$c.json" 2>"/tmp/$c.err"
		got=$(json_get "d['cases'][0]['result'] + ' ' + str(d['cases'][0].get('wc_status_name', '')) + ' ' + d['cases'][0].get('reason', '')" <"/tmp/$c.json")
		[ -n "$got" ] && result "case.$c" ok "$got" ||
			result "case.$c" fail "no result: $(cat "/tmp/$c.json" "/tmp/$c.err")"
	done
	krdmactl session del name c1
	barrier "done"
fi
barrier end 300
