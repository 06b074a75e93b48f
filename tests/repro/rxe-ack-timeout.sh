#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Reproducer, not part of any suite: rxe (6.1) fails a QP with "remote
# invalid request" when a short transport ACK timeout makes its
# retransmissions spurious (issue 15). Run it through the slot semaphore:
#
#   /work/vmslot env KERNEL=$(make -s kver) KRDMA_SUITE_OUT=/tmp/out \
#       tests/run-guest-suite.sh tests/repro/rxe-ack-timeout.sh
#   KRDMA_REPRO_ACKS=14 KRDMA_CI_WORK=/var/tmp/ci-$USER \
#       /work/vmslot scripts/ci-kernel.sh 6.12 amd64 ../repro/rxe-ack-timeout
#
# For each ack_timeout of KRDMA_REPRO_ACKS (default "18 14": 1.07 s, then
# perftest's 67 ms) a session of 4 QPs runs a bidir WRITE bw test of 400
# 64 KiB messages (multi-qp.sh's bidir round) over the lossless wire. On a
# TCG host a guest stalls for longer than 67 ms, so with 14 rxe retransmits
# while the first sending is still being answered. Node 1 captures the
# RoCE headers (tcpdump, if installed) and checks that no requester ever
# sent a different packet at a PSN it had used (tests/repro/roce-pcap.py
# -c). Results: write.ackN (the test succeeded) and wire.ackN.psn_kept.
#
# What goes wrong in rxe 6.1 (rxe_comp.c, rxe_req.c; unchanged in 6.12):
# after a spurious timeout the requester resends from comp.psn; the ACK
# of the first sending of a message arrives while that message is being
# resent (its WQE "processing", not "pending"), so COMPST_WRITE_SEND goes
# to COMPST_UPDATE_COMP, which moves comp.psn past the message without
# completing it. A second timeout before anything else is acked makes
# req_retry() restart at comp.psn with that message still at the head of
# the send queue: retry_first_write_send() walks it past its end and the
# requester sends its "rest", a zero-length RDMA WRITE ONLY, at the PSN
# the next message had. Every later packet goes out one PSN late; the
# responder, which has the first sending, takes them at the wrong offsets
# and NAKs the message's last packet (check_rkey(): RESPST_ERR_LENGTH,
# AETH_NAK_INVALID_REQ) or a FIRST in the middle of a message
# (check_op_seq(): RESPST_ERR_MISSING_OPCODE_LAST_C). The capture shows
# it: "PSN P carried another packet: WRITE_FIRST len=65536 ... then
# WRITE_ONLY len=0". KRDMA_REPRO_NETEM="delay 40ms 40ms" (netem on node
# 1, the ACK path of node 2's WRITEs) adds spurious timeouts on purpose;
# KRDMA_REPRO_DYNDBG=1 logs rxe_comp.c's states (node*.kmsg.gz);
# KRDMA_REPRO_SIZE and KRDMA_REPRO_COUNT change the messages (64K, 400).
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
PORT=7491
IF=$(rdma link show rxe0/1 | sed -n 's/.*netdev \([^ ]*\).*/\1/p')
ACKS=${KRDMA_REPRO_ACKS:-18 14}

echo 30000 >/sys/module/krdma/parameters/peer_timeout_ms

rxe_counters() {
	rdma -j statistic show link rxe0/1 |
		json_get "' '.join('%s=%s' % (k, v) for k, v in d[0].items() if isinstance(v, int) and v)"
}

if [ -n "${KRDMA_REPRO_DYNDBG:-}" ]; then
	echo 'file rxe_comp.c +pt' >/sys/kernel/debug/dynamic_debug/control
	dmesg -w >/tmp/kmsg.log 2>&1 &
	KMSG=$!
fi

if [ "$KRDMA_NODE" = 1 ]; then
	if [ -n "${KRDMA_REPRO_NETEM:-}" ]; then
		modprobe -q sch_netem
		# shellcheck disable=SC2086 # netem's arguments are words
		tc qdisc replace dev "$IF" root netem $KRDMA_REPRO_NETEM &&
			result netem.installed ok || result netem.installed fail
	fi
	expect_ok listener.add krdmactl listener add name l port $PORT
	barrier listening
	for a in $ACKS; do
		echo "$a" >/sys/module/krdma/parameters/ack_timeout
		tcpd=
		if command -v tcpdump >/dev/null; then
			tcpdump -i "$IF" -s 96 -B 65536 -w "/tmp/ack$a.pcap" \
				udp port 4791 2>"/tmp/tcpdump$a.err" &
			tcpd=$!
			wait_for -t 30 grep -q listening "/tmp/tcpdump$a.err"
		fi
		barrier "set.$a"
		barrier "done.$a" 900
		log "server ack_timeout=$a: $(rxe_counters)"
		[ -n "$tcpd" ] || { log "no tcpdump: wire not checked"; continue; }
		kill "$tcpd"
		wait "$tcpd"
		cat "/tmp/tcpdump$a.err"
		cp "/tmp/ack$a.pcap" "$KRDMA_OUT/node1.ack$a.pcap"
		if python3 "$KRDMA_ROOT/tests/repro/roce-pcap.py" -c "/tmp/ack$a.pcap"; then
			result "wire.ack$a.psn_kept" ok
		else
			result "wire.ack$a.psn_kept" fail
		fi
	done
else
	barrier listening
	for a in $ACKS; do
		echo "$a" >/sys/module/krdma/parameters/ack_timeout
		barrier "set.$a"
		expect_ok "connect.ack$a" timeout 120 krdmactl session connect \
			addr "$KRDMA_PEER_IP" port $PORT name "s$a" qps 4 \
			sq_depth 512 timeout 60s
		json_check "write.ack$a" \
			"krdmactl -j test run session s$a op write mode bw size ${KRDMA_REPRO_SIZE:-64K} count ${KRDMA_REPRO_COUNT:-400} depth 64 qps 4 bidir" \
			"r['status'] == 0 and r['peer_iters'] == r['iters'] == ${KRDMA_REPRO_COUNT:-400}"
		log "client ack_timeout=$a: $(rxe_counters)"
		krdmactl session del name "s$a" 2>/dev/null
		wait_for -t 60 no_sessions
		barrier "done.$a"
	done
fi
if [ -n "${KRDMA_REPRO_DYNDBG:-}" ]; then
	echo 'file rxe_comp.c -p' >/sys/kernel/debug/dynamic_debug/control
	kill "$KMSG"
	gzip -c /tmp/kmsg.log >"$KRDMA_OUT/node$KRDMA_NODE.kmsg.gz"
fi
barrier end 300
