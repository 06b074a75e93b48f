#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The DMA ownership checker (debug_dma=1) must fire, naming the buffer, when
# a sync for the CPU is skipped - rxe's virtual DMA would never show it.
# And what rxe cannot show either: a receive syncs only the bytes it got
# (debugfs dma_cpu_sync_bytes), and the lat-write poller never syncs a
# byte the device owns back for the device (the checker WARNs, the
# harness's dmesg scan fails the test).
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
PORT=7472

SYNCED=/sys/kernel/debug/krdma/dma_cpu_sync_bytes
SHADOW=/sys/module/krdma/parameters/shadow_dma

if [ "$KRDMA_NODE" = 1 ]; then
	expect_ok listener.add krdmactl listener add port $PORT
	barrier listening
	# Small SENDs into 64 KiB receive buffers: each receive may sync what
	# it got, each control send its 4 KiB buffer, and the rest (the
	# test's slots, sends that straddle the snapshots: up to 90 KiB seen)
	# half a page a receive; syncing whole receive buffers, 64 KiB a
	# receive, was 15 times the limit.
	barrier small_sends 600
	s0=$(cat $SYNCED)
	krdmactl -j stats show >/tmp/stats0.json
	barrier small_sends_go
	barrier small_sends_done 600
	s1=$(cat $SYNCED)
	krdmactl -j stats show >/tmp/stats1.json
	limit=$(python3 -c "
import json
a, b = (json.load(open(f)) for f in ('/tmp/stats0.json', '/tmp/stats1.json'))
d = {k: b[k] - a[k] for k in ('bytes_rx', 'recv_wrs', 'send_wrs')}
print(d['bytes_rx'] + 4096 * d['send_wrs'] + 2048 * d['recv_wrs'])")
	synced=$((s1 - s0))
	if [ -n "$limit" ] && [ "$synced" -gt 0 ] && [ "$synced" -le "$limit" ]; then
		result dma.recv_syncs_byte_len ok "synced=$synced" "limit=$limit"
	else
		result dma.recv_syncs_byte_len fail "synced=$synced" "limit=$limit"
	fi
	# The session the client connects next works on shadows here too.
	barrier shadow 1200
	echo Y >$SHADOW
	barrier shadow.set
	barrier shadow.done 1200
	echo N >$SHADOW
	barrier "done" 600
	exit 0
fi

barrier listening
expect_ok connect krdmactl session connect addr "$KRDMA_PEER_IP" port $PORT name c1
run_test before c1 send 4096 10 2

barrier small_sends
barrier small_sends_go
run_test small_sends c1 send 64 200 4
barrier small_sends_done

# The poller: debug_dma checks every peek against the owner.
if out=$(krdmactl -j test run session c1 op write mode lat size 4096 count 200 2>&1) &&
   [ "$(printf '%s' "$out" | json_get "r['status'] == 0 and r['iters'] == 200")" = True ]; then
	result test.lat_write_poll ok
else
	printf '%s\n' "$out"
	result test.lat_write_poll fail
fi

# Nothing else may be wrong before the fault. The log is never cleared
# (the harness scans all of it): the fault's window is bracketed for the
# scan, which expects there only the checker's WARNs
# (tests/vm/scan-dmesg.sh), and read here from the line it starts at.
dmesg >/tmp/before.dmesg
if "$KRDMA_ROOT/tests/vm/scan-dmesg.sh" /tmp/before.dmesg; then
	result dmesg.clean_before_fault ok
else
	result dmesg.clean_before_fault fail
fi
echo "krdma-expect: warn-begin owned by device, expected cpu" >/dev/kmsg

[ "$(cat /sys/module/krdma/parameters/debug_dma)" = Y ] &&
	result checker.enabled ok || result checker.enabled fail
echo 1 >/sys/module/krdma/parameters/fault	# skip the next sync for the CPU
# Every buffer pool cycles (64 control buffers, 32 receives, 2 slots),
# so whichever buffer missed its sync is touched again by the CPU.
krdmactl test run session c1 op write size 4096 count 150 depth 2 || true
echo "krdma-expect: warn-end" >/dev/kmsg
dmesg | sed -n '/krdma-expect: warn-begin/,/krdma-expect: warn-end/p' >/tmp/fault.dmesg
if grep -Eq 'krdma: .* of buffer [a-z_]+\[[0-9]+\] owned by device, expected cpu' /tmp/fault.dmesg; then
	result checker.fires ok
	grep -E 'krdma: .* of buffer' /tmp/fault.dmesg | head -3
else
	result checker.fires fail
	cat /tmp/fault.dmesg
fi
# Every WARNING in that window is one of the checker's.
nwarn=$(grep -c 'WARNING:' /tmp/fault.dmesg)
nmine=$(grep -c 'krdma: .* of buffer .* owned by' /tmp/fault.dmesg)
[ "$nwarn" -ge 1 ] && [ "$nwarn" -eq "$nmine" ] &&
	result checker.only_expected_warnings ok "warnings=$nwarn" ||
	result checker.only_expected_warnings fail "warnings=$nwarn" "checker=$nmine"

# The session heals: the next test passes without any report (the harness
# scans the log from here on).
run_test after c1 send 4096 10 2
run_test after_read c1 read 65536 10 4

# A DMA mapping limit (swiotlb's 256 KiB; rxe has none, the knob stands in
# for one) shrinks the chunks a buffer is mapped in, for devices added
# from then on: rxe0 again, and 1 MiB transfers in 256 KiB pieces against
# a peer that maps them whole.
IF=$(rdma_netdev rxe0)
echo 262144 >/sys/kernel/debug/krdma/sim_dma_max_mapping
expect_ok chunks.link_delete rdma link delete rxe0
expect_ok chunks.link_add rdma link add rxe0 type rxe netdev "$IF"
echo 0 >/sys/kernel/debug/krdma/sim_dma_max_mapping
wait_for -t 60 sh -c 'rdma link show rxe0/1 | grep -q ACTIVE' &&
	result chunks.link_active ok || result chunks.link_active fail
dmesg | grep -q 'krdma: rxe0: DMA mappings of at most 262144 bytes: buffers mapped in 256 KiB chunks' &&
	result chunks.limited ok || result chunks.limited fail
expect_ok chunks.connect krdmactl session connect addr "$KRDMA_PEER_IP" port $PORT name c2
run_test chunked_write c2 write 1048576 8 2
run_test chunked_read c2 read 1048576 8 2
run_test chunked_ping c2 ping 1048576 8 2
# 4 MiB and its header span 17 of those chunks, one more than a WR takes
# SGEs (KRDMA_MAX_SGE 16): a message to the peer's region goes as more
# than one WR (kmod/check.c, krdma_post_rdma(); perf-wr.c for bw), where
# it used to be refused ("size needs more SGEs than the device has").
w0=$(krdmactl -j stats show | json_get "d['write_wrs']")
run_test chunked_write_split c2 write 4M 2 1
w1=$(krdmactl -j stats show | json_get "d['write_wrs']")
[ $((w1 - w0)) -ge 4 ] && result chunked_write_split.wrs ok "write_wrs=$((w1 - w0))" ||
	result chunked_write_split.wrs fail "write_wrs=$((w1 - w0)) for 2 messages"
run_test chunked_read_split c2 read 4M 2 1
# A ping's slots are ours, an MR a chunk: 17 are more than a slot may
# list (the peer refused them with a bare EPROTO).
expect_fail_msg chunked_ping_refused "size spans more memory regions than a ping slot may have" \
	krdmactl test run session c2 op ping size 4M count 2 depth 1
run_test chunked_ping_3m c2 ping 3M 2 1
# bw has no header: 8 MiB is 32 chunks, two WRs a message each way.
r0=$(krdmactl -j stats show | json_get "d['read_wrs']")
json_check chunked_bw_read_split \
	"krdmactl -j test run session c2 op read mode bw size 8M count 4 depth 2" \
	"r['status'] == 0 and r['iters'] == 4 and r['validated'] >= 1"
r1=$(krdmactl -j stats show | json_get "d['read_wrs']")
[ $((r1 - r0)) -ge 8 ] && result chunked_bw_read_split.wrs ok "read_wrs=$((r1 - r0))" ||
	result chunked_bw_read_split.wrs fail "read_wrs=$((r1 - r0)) for 4 messages"
json_check chunked_bw_write_split \
	"krdmactl -j test run session c2 op write mode bw size 8M count 4 depth 2" \
	"r['status'] == 0 and r['iters'] == 4 and r['validated'] >= 1"

# rxe's DMA is virtual: a sync left out changes no byte the CPU reads, and
# only the checker's WARN shows it. Fault bit 8 hands a check-mode READ's
# slot to the CPU without its sync: the data passes all the same.
echo 0 >/sys/module/krdma/parameters/debug_dma
echo 8 >/sys/module/krdma/parameters/fault
run_test shadow.virtual_dma_hides c2 read 4096 5 1
# shadow_dma: the device works on a copy of every buffer and each sync is
# a copy (a bounce buffer, as on SEV/TDX guests): every op and mode
# passes over a session made so on both nodes...
barrier shadow
echo Y >$SHADOW
barrier shadow.set
echo 1 >/sys/module/krdma/parameters/debug_dma
expect_ok shadow.connect krdmactl session connect addr "$KRDMA_PEER_IP" port $PORT name c3
for op in send send_imm write write_imm read ping atomic_fadd atomic_cswap; do
	case $op in atomic_*) size=8 ;; *) size=65536 ;; esac
	run_test "shadow.$op" c3 $op $size 20 4
done
for op in write read send; do
	json_check "shadow.bw.$op" \
		"krdmactl -j test run session c3 op $op mode bw size 16K count 400 depth 16" \
		"r['status'] == 0 and r['iters'] == 400 and r['validated'] >= 1"
done
for op in write send write_imm; do
	json_check "shadow.lat.$op" \
		"krdmactl -j test run session c3 op $op mode lat size 4K count 50" \
		"r['status'] == 0 and r['iters'] == 50 and r['validated'] >= 1"
done
# ... and the same sync left out is stale data there, which the check
# catches (exit 3: data failed validation).
echo 0 >/sys/module/krdma/parameters/debug_dma
e0=$(krdmactl -j stats show | json_get "d['validation_errors']")
echo 8 >/sys/module/krdma/parameters/fault
expect_rc_msg shadow.missing_sync_caught 3 "mismatch|wrong|differs" \
	krdmactl test run session c3 op read size 4096 count 5 depth 1
e1=$(krdmactl -j stats show | json_get "d['validation_errors']")
[ $((e1 - e0)) -ge 1 ] && result shadow.missing_sync_counted ok ||
	result shadow.missing_sync_counted fail "validation_errors=$e0..$e1"
echo 0 >/sys/module/krdma/parameters/fault
echo 1 >/sys/module/krdma/parameters/debug_dma
run_test shadow.after c3 read 4096 5 1
expect_ok shadow.del krdmactl session del name c3
echo N >$SHADOW
barrier shadow.done
barrier "done"
