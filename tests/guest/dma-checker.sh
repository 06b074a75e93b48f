#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The DMA ownership checker (debug_dma=1) must fire, naming the buffer, when
# a sync for the CPU is skipped - rxe's virtual DMA would never show it.
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
PORT=7472

if [ "$KRDMA_NODE" = 1 ]; then
	expect_ok listener.add krdmactl listener add port $PORT
	barrier listening
	barrier done 600
	exit 0
fi

barrier listening
expect_ok connect krdmactl session connect addr "$KRDMA_PEER_IP" port $PORT name c1
run_test before c1 send 4096 10 2

# Nothing else may be wrong before the fault: scan, then start clean.
dmesg >/tmp/before.dmesg
if "$KRDMA_ROOT/tests/vm/scan-dmesg.sh" /tmp/before.dmesg; then
	result dmesg.clean_before_fault ok
else
	result dmesg.clean_before_fault fail
fi
dmesg -C

[ "$(cat /sys/module/krdma/parameters/debug_dma)" = Y ] &&
	result checker.enabled ok || result checker.enabled fail
echo 1 >/sys/module/krdma/parameters/fault	# skip the next sync for the CPU
# Every buffer pool cycles (64 control buffers, 32 receives, 2 slots),
# so whichever buffer missed its sync is touched again by the CPU.
krdmactl test run session c1 op write size 4096 count 150 depth 2 || true
dmesg >/tmp/fault.dmesg
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
dmesg -C

# The session heals: the next test passes without any report (the harness
# scans the log from here on).
run_test after c1 send 4096 10 2
run_test after_read c1 read 65536 10 4
barrier done
