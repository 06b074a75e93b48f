#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Measurement, not part of any suite: the test bed's own floor and ceiling
# under two of issue 32's targets, in one pair of guests, one round after
# the other, KRDMA_REPRO_SECS (5) seconds each.
#
#   make check-vm GUEST_TESTS=../repro/wire-floor
#
# Latency ("krdma's p50 at most half of perftest's typical", send): the
# ICMP echo round trip between the guests over rxe's own netdev, answered
# by the peer's kernel in its softirq, is about the shortest trip a
# message can take on this wire - no verbs, no rxe, no user space on the
# answering side. Half of it is a floor under any one-way latency,
# krdma's and perftest's alike. Rounds: icmp (busybox ping -A: the next
# echo as soon as the reply is in; RTT/2 p50), pt.send (ib_send_lat
# typical), kr.send (krdma's send lat p50); result floor: the best
# ratio a tool could reach, perftest's typical over the ICMP one-way.
#
# Bandwidth ("several QPs at >= 0.9 x TCP"): what each carries in a
# packet. The guests' virtio NICs sit on a QEMU stream backend, which has
# no virtio-net header, so no TSO reaches the wire and GSO is off: TCP's
# segments are cut to the netdev's MTU in the guest, rxe's packets to
# its path MTU. Rounds: tcp (iperf3 as the bench runs it), tcp.mss
# (iperf3 -M: TCP's payload per packet set to rxe's path MTU),
# tcp.mss.nogro (the same, the receiver's GRO off), kr.write
# (krdma write 1 MiB bw over 4 QPs, depth 64 as the bench's; kr.write1
# over one), pt.write4 (ib_write_bw 1 MiB over 4 QPs: another RoCE
# sender). Each reports MB/s of payload (the tool's own figure), the
# sender's packets a second on the netdev over the command's whole
# window (its setup and, for perftest, -D's margins too), the payload
# per packet (perftest's: size x iterations over that window, a lower
# bound) and the mean frame on the netdev. KRDMA_MTU=9000 (the harness's
# jumbo frames) runs the same at rxe's MTU 4096.
#
# Node 1 waits through each round in one sleep, not in the harness's
# barrier. Results: round.NAME with its figures. Results of 2026-12-01:
# Documentation/performance.md, "The wire's floor and ceiling".
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
PORT=7496
PTPORT=18710
IPORT=5211
SECS=${KRDMA_REPRO_SECS:-5}
GID=$(gid_index) || GID=1
PT="-d rxe0 -x $GID -F"
DEV=$(cat /sys/class/infiniband/rxe0/parent 2>/dev/null) || DEV=
if [ -z "$DEV" ]; then
	for n in /sys/class/net/*; do
		[ "${n##*/}" = lo ] || { DEV=${n##*/}; break; }
	done
fi
ROUNDS=${KRDMA_REPRO_ROUNDS:-icmp pt.send kr.send tcp tcp.mss tcp.mss.nogro kr.write kr.write1 pt.write4}
PT_BW="-s 1048576 -q 4 -D $((SECS + 2)) -f 1 -Q 1 -N"

# stat NAME: a counter of the netdev's.
stat() {
	cat "/sys/class/net/$DEV/statistics/$1"
}

RXE_MTU=$(ibv_devinfo -d rxe0 2>/dev/null | awk '/active_mtu/ { print $2; exit }')
log "netdev $DEV mtu $(cat /sys/class/net/"$DEV"/mtu), rxe0 active_mtu $RXE_MTU"
log "crc32 (the ICRC's; refcnt > 1: in use): $(awk '/^name/ { n = $3 } /^driver/ { d = $3 }
	/^refcnt/ && n == "crc32" { printf "%s refcnt %s; ", d, $3 }' /proc/crypto)"
log "offloads: $(ethtool -k "$DEV" 2>/dev/null | grep -E '^(tcp-segmentation|generic-segmentation|generic-receive)-offload' | tr '\n' ' ')"
if [ "$KRDMA_NODE" = 1 ]; then
	expect_ok listener.add krdmactl listener add name l port $PORT
	barrier listening
	for r in $ROUNDS; do
		case $r in
		pt.send)
			# shellcheck disable=SC2086 # perftest's options are words
			timeout $((SECS * 8 + 60)) ib_send_lat $PT -p $PTPORT -s 64 \
				-n 4000 >/tmp/pts.log 2>&1 &
			;;
		pt.write4)
			# shellcheck disable=SC2086
			timeout $((SECS * 4 + 60)) ib_write_bw $PT $PT_BW -p $PTPORT \
				>/tmp/pts.log 2>&1 &
			;;
		tcp*)
			timeout $((SECS * 4 + 60)) iperf3 -s -1 -p $IPORT >/tmp/ips.log 2>&1 &
			;;
		esac
		# The receiver without GRO: every segment up the stack alone,
		# as every RoCE packet goes (rxe's UDP tunnel takes no GRO).
		[ "$r" = tcp.mss.nogro ] && ethtool -K "$DEV" gro off
		barrier "go.$r" 300
		sleep $((SECS + 8))
		[ "$r" = tcp.mss.nogro ] && ethtool -K "$DEV" gro on
		barrier "end.$r" 300
		wait
	done
else
	barrier listening
	expect_ok connect timeout 120 krdmactl session connect addr "$KRDMA_PEER_IP" \
		port $PORT name s timeout 60s max_msg 1M rq_depth 80 sq_depth 1024 qps 4
	for r in $ROUNDS; do
		barrier "go.$r" 300
		sleep 1
		p0=$(stat tx_packets)
		b0=$(stat tx_bytes)
		t0=$(date +%s%N)
		case $r in
		icmp)
			# -A: the next echo as soon as the reply is in, one at a
			# time, as a latency test's ping-pong (the guests have
			# busybox's ping).
			busybox ping -A -c 1000000 -w "$SECS" "$KRDMA_PEER_IP" >/tmp/ping.log 2>&1
			p50=$(awk -F'time=' '/time=/ { split($2, a, " "); print a[1] * 1000 / 2 }' \
				/tmp/ping.log | sort -n | awk '{ v[NR] = $1 } END { if (NR) print int(v[int((NR + 1) / 2)]) }')
			got=$(grep -c 'time=' /tmp/ping.log)
			ICMP=${p50:-0}
			result "round.$r" ok "oneway_p50_us=$ICMP replies=$got"
			;;
		pt.send)
			sleep 1
			# shellcheck disable=SC2086 # perftest's options are words
			timeout $((SECS * 8 + 60)) ib_send_lat $PT -p $PTPORT -s 64 \
				-n 4000 "$KRDMA_PEER_IP" >/tmp/ptc.log 2>&1
			PT_TYP=$(awk '/t_typical/ { getline; print $5; exit }' /tmp/ptc.log)
			# A number, or perftest did not finish (its output is logged).
			case $PT_TYP in
			[0-9]*) result "round.$r" ok "typical_us=$PT_TYP" ;;
			*)
				log "pt.send: $(tr -s ' \n' ' ' </tmp/ptc.log | cut -c1-600)"
				result "round.$r" fail "typical_us=${PT_TYP:-none}"
				PT_TYP=
				;;
			esac
			;;
		kr.send)
			krdmactl -j test run session s op send mode lat size 64 \
				duration "${SECS}s" >/tmp/krl.json 2>&1
			KR_P50=$(json_get "round(r['lat']['p50_ns'] / 1000)" </tmp/krl.json)
			result "round.$r" ok "p50_us=${KR_P50:-0}"
			;;
		tcp*)
			sleep 1
			p0=$(stat tx_packets)
			b0=$(stat tx_bytes)
			t0=$(date +%s%N)
			mss=
			[ "$r" = tcp ] || mss="-M ${RXE_MTU:-1024}"
			# shellcheck disable=SC2086 # -M and its value are words
			iperf3 -c "$KRDMA_PEER_IP" -p $IPORT -t "$SECS" $mss -J >/tmp/ipc.json 2>&1
			bytes=$(json_get "d['end']['sum_sent']['bytes']" </tmp/ipc.json)
			mbps=$(json_get "round(d['end']['sum_sent']['bits_per_second'] / 8e6, 1)" </tmp/ipc.json)
			;;
		pt.write4)
			sleep 1
			p0=$(stat tx_packets)
			b0=$(stat tx_bytes)
			t0=$(date +%s%N)
			# shellcheck disable=SC2086
			timeout $((SECS * 4 + 60)) ib_write_bw $PT $PT_BW -p $PTPORT \
				"$KRDMA_PEER_IP" >/tmp/ptw.log 2>&1
			# The line under the header: bytes, iterations, peak, average
			# (MB of 2^20), msg rate; what moved is the size times the
			# iterations, over -D's seconds and its margins too.
			mbps=$(awk '/BW average/ { getline; printf "%.1f", $4 * 1048576 / 1e6; exit }' /tmp/ptw.log)
			bytes=$(awk '/BW average/ { getline; printf "%.0f", $1 * $2; exit }' /tmp/ptw.log)
			;;
		kr.write | kr.write1)
			q=4
			[ "$r" = kr.write1 ] && q=1
			krdmactl -j test run session s op write mode bw size 1M \
				duration "${SECS}s" depth $((64 / q)) qps $q >/tmp/krw.json 2>&1
			bytes=$(json_get "r['bytes']" </tmp/krw.json)
			mbps=$(json_get "round(r['bytes'] / (r['elapsed_ns'] / 1e3), 1)" </tmp/krw.json)
			;;
		esac
		case $r in
		tcp* | kr.write* | pt.write*)
			t1=$(date +%s%N)
			p1=$(stat tx_packets)
			b1=$(stat tx_bytes)
			# Packets over the command's window (its setup and end
			# too), payload over the tool's own measured time.
			# No figure: the tool failed (perftest's 4 QPs end in
			# "Completion with error" now and then; its output is logged).
			st=ok
			case ${mbps:-0} in 0 | 0.0) st=fail ;; esac
			result "round.$r" $st "MBps=${mbps:-0} $(awk -v b="${bytes:-0}" \
				-v p=$((p1 - p0)) -v w=$((b1 - b0)) -v ns=$((t1 - t0)) 'BEGIN {
				printf "pkts_per_s=%.0f payload_per_pkt=%.0f frame_bytes=%.0f",
					p / (ns / 1e9), p ? b / p : 0, p ? w / p : 0 }')"
			log "$r: $(cat /tmp/ipc.json /tmp/krw.json /tmp/ptw.log 2>/dev/null | tr -s ' \n' ' ' | cut -c1-600)"
			rm -f /tmp/ipc.json /tmp/krw.json /tmp/ptw.log
			;;
		esac
		barrier "end.$r" 300
	done
	[ -n "${PT_TYP:-}" ] && [ "${ICMP:-0}" -gt 0 ] &&
		result "floor" ok "$(awk -v t="$PT_TYP" -v i="$ICMP" -v k="${KR_P50:-0}" 'BEGIN {
			printf "icmp_oneway/perftest_typical=%.2f best_possible_ratio=%.2f krdma_ratio=%.2f",
				i / t, t / i, k ? t / k : 0 }')"
	krdmactl session del name s
fi
barrier end 300
