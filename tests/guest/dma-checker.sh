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
   [ "$(printf '%s' "$out" | json_get "d['status'] == 0 and d['iters'] == 200")" = True ]; then
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
barrier "done"
