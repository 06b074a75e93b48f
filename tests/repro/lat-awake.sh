#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Measurement, not part of any suite: how much of krdma's one-way latency
# on TCG guests is the waking of a halted vCPU (issue 32: "latency p50 at
# least 2 x perftest's typical" for send and write_imm; krdma 0.67-0.71 x
# on 2026-11-30). perftest spins on its CQ, so its guests' vCPUs never
# halt; krdma answers from its completion handler and its vCPUs idle in
# HLT between messages, and under TCG a halted vCPU thread is woken by the
# host when the packet arrives.
#
#   make check-vm GUEST_TESTS=../repro/lat-awake
#
# Rounds, one after the other in the same guests, KRDMA_REPRO_SECS (5)
# seconds each: krdma's send and write_imm lat at 64 B plain; the same
# with both guests holding a CPU latency QoS request of 0 us open
# (/dev/cpu_dma_latency, the interface to cpu_latency_qos_add_request():
# a cpuidle governor then keeps the CPUs in their polling state, where
# a cpuidle driver has one); the same with a spinner of SCHED_IDLE (chrt
# -i 0) on every vCPU of both guests - it takes a vCPU only when nothing
# else wants it, so the vCPU never halts, and every softirq, kworker and
# test thread preempts it at once; perftest's ib_send_lat (which spins
# on its own). Each guest's cpuidle driver and states are logged.
# KRDMA_REPRO_ROUNDS picks rounds (*.awake1: a spinner on vCPU 0 only).
# Results of 2026-12-01 (Documentation/performance.md, "Keeping the
# vCPUs awake"): awake vCPUs made krdma slower (2.1 x, 5.7 x), and the
# guests have no cpuidle driver, so the QoS rounds change nothing. Node 1 waits through
# each round in one sleep, not in the harness's barrier. Results:
# round.NAME with p50_us= (perftest: typical_us=), and the ratio
# perftest typical / krdma p50 of each krdma round.
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
PORT=7495
PTPORT=18700
SECS=${KRDMA_REPRO_SECS:-5}
GID=$(gid_index) || GID=1
PT="-d rxe0 -x $GID -F"

# qos_start: a CPU latency request of 0 us, held open until qos_stop.
qos_start() {
	python3 -c 'import os, struct, time
f = os.open("/dev/cpu_dma_latency", os.O_WRONLY)
os.write(f, struct.pack("i", 0))
time.sleep(3600)' &
	echo $! >/tmp/qos
}
qos_stop() {
	[ -f /tmp/qos ] || return 0
	kill "$(cat /tmp/qos)" 2>/dev/null
	wait "$(cat /tmp/qos)" 2>/dev/null
	rm -f /tmp/qos
}

# spin_start N: a SCHED_IDLE spinner on each of the first N vCPUs (all:
# every vCPU); spin_stop ends them.
spin_start() {
	n=$1
	[ "$n" = all ] && n=$(nproc)
	c=0
	while [ $c -lt "$n" ]; do
		taskset -c $c chrt -i 0 sh -c 'while :; do :; done' &
		echo $! >>/tmp/spinners
		c=$((c + 1))
	done
}
spin_stop() {
	[ -f /tmp/spinners ] || return 0
	# shellcheck disable=SC2046 # a PID a word
	kill $(cat /tmp/spinners) 2>/dev/null
	# shellcheck disable=SC2046
	wait $(cat /tmp/spinners) 2>/dev/null
	rm -f /tmp/spinners
}

ROUNDS=${KRDMA_REPRO_ROUNDS:-kr.send kr.write_imm kr.send.awake1 kr.write_imm.awake1 kr.send.awake kr.write_imm.awake pt.send kr.send.again}
log "cpuidle: $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>&1) $(cat /sys/devices/system/cpu/cpu0/cpuidle/state*/name 2>/dev/null | tr '\n' ' ')"
if [ "$KRDMA_NODE" = 1 ]; then
	expect_ok listener.add krdmactl listener add name l port $PORT
	barrier listening
	for r in $ROUNDS; do
		case $r in pt.*)
			timeout $((SECS * 8 + 60)) ib_send_lat $PT -p $PTPORT -s 64 \
				-n 4000 >/tmp/pts.log 2>&1 &
			;;
		esac
		case $r in
		*.awake) spin_start all ;;
		*.awake1) spin_start 1 ;;
		*.qos) qos_start ;;
		esac
		barrier "go.$r" 300
		# The round runs SECS; its setup and end a few more.
		sleep $((SECS + 6))
		spin_stop
		qos_stop
		barrier "end.$r" 300
		wait
	done
else
	barrier listening
	expect_ok connect timeout 120 krdmactl session connect addr "$KRDMA_PEER_IP" \
		port $PORT name s timeout 60s
	for r in $ROUNDS; do
		case $r in
		*.awake) spin_start all ;;
		*.awake1) spin_start 1 ;;
		*.qos) qos_start ;;
		esac
		barrier "go.$r" 300
		case $r in
		pt.*)
			sleep 1
			# shellcheck disable=SC2086 # perftest's options are words
			timeout $((SECS * 8 + 60)) ib_send_lat $PT -p $PTPORT -s 64 \
				-n 4000 "$KRDMA_PEER_IP" >/tmp/ptc.log 2>&1
			# The line under the header: bytes, iterations, t_min, t_max,
			# t_typical, ...
			PT_TYP=$(awk '/t_typical/ { getline; print $5; exit }' /tmp/ptc.log)
			cp /tmp/ptc.log "$KRDMA_OUT/ptc.log" 2>/dev/null
			result "round.$r" ok "typical_us=${PT_TYP:-0}"
			;;
		*)
			op=${r#kr.}
			op=${op%.awake}
			op=${op%.awake1}
			op=${op%.qos}
			op=${op%.again}
			krdmactl -j test run session s op "$op" mode lat size 64 \
				duration "${SECS}s" >"/tmp/$r.json" 2>&1
			p50=$(json_get "round(r['lat']['p50_ns'] / 1000)" <"/tmp/$r.json")
			eval "P50_$(echo "$r" | tr . _)=\${p50:-0}"
			result "round.$r" ok "p50_us=${p50:-0}"
			log "$r: $(cat "/tmp/$r.json")"
			;;
		esac
		spin_stop
		qos_stop
		barrier "end.$r" 300
	done
	for r in $ROUNDS; do
		case $r in pt.*) continue ;; esac
		eval "p=\$P50_$(echo "$r" | tr . _)"
		[ "${p:-0}" -gt 0 ] && [ -n "${PT_TYP:-}" ] &&
			result "ratio.$r" ok "$(awk -v t="$PT_TYP" -v p="$p" 'BEGIN { printf "%.2f", t / p }')"
	done
	krdmactl session del name s
fi
barrier end 300
