#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Module init unwinds from every fault point: node 1 unloads krdma and
# loads it with fail_init_nth=N (kmod/fault.c), N = 1, 2, ... until init
# says it got past its last fault point. Each load that fails must leave
# no module, no debugfs directory and no genetlink family behind; one
# that succeeds (a device whose setup failed is skipped, not fatal) is
# unloaded again. Then krdma is loaded as the harness had it and moves
# validated data with node 2. KASAN, lockdep and, after the run, kmemleak
# judge the unwinds. Only on a kernel with fault injection (debug).
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
PORT=7478
KO=$KRDMA_ROOT/kmod/krdma.ko
MAX=400		# fault points init may pass; a sweep that needs more fails

loaded() { grep -q '^krdma ' /proc/modules; }

# quiet FILE...: each fault attribute's verbose to 0 (the sweep's faults
# are expected; a stack dump each reads as a problem in the log scan).
quiet() {
	for _q; do
		[ -w "/sys/kernel/debug/$_q/verbose" ] && echo 0 >"/sys/kernel/debug/$_q/verbose"
	done
	return 0
}

if [ "$KRDMA_NODE" = 1 ]; then
	quiet failslab fail_page_alloc fail_usercopy
	expect_ok unload rmmod krdma
	n=1 failed=0 loaded_anyway=0 leftovers=0 done=0
	while [ $n -le $MAX ]; do
		mark=$(dmesg | wc -l)
		if insmod "$KO" fail_init_nth=$n ${KRDMA_MODPARAMS:-} 2>/tmp/init.err; then
			rmmod krdma || { result "init.n$n.rmmod" fail; break; }
			loaded_anyway=$((loaded_anyway + 1))
		else
			failed=$((failed + 1))
			if loaded || [ -e /sys/kernel/debug/krdma ] ||
			   genl ctrl list 2>/dev/null | grep -q 'Name: krdma'; then
				result "init.n$n.left_nothing" fail "$(cat /tmp/init.err)"
				leftovers=$((leftovers + 1))
				loaded && rmmod krdma
			fi
		fi
		if dmesg | tail -n +"$((mark + 1))" |
		   grep -q "krdma: fail_init_nth $n: past the last fault point"; then
			done=1
			break
		fi
		n=$((n + 1))
	done
	log "init faults: $((n - 1)) fault points, $failed loads failed, $loaded_anyway loaded anyway"
	# The last load passed every point: n - 1 of them, each failed once.
	if [ $done = 1 ] && [ $n -gt 1 ] && [ $failed -ge 1 ] && [ $leftovers = 0 ]; then
		result init.sweep ok "points=$((n - 1))" "failed=$failed"
	else
		result init.sweep fail "done=$done" "points=$((n - 1))" "failed=$failed" \
			"leftovers=$leftovers"
	fi
	loaded && rmmod krdma
	expect_ok reload insmod "$KO" ${KRDMA_MODPARAMS:-}
	expect_ok listener.add krdmactl listener add port $PORT
	barrier listening 3600
	barrier "done" 600
	exit 0
fi

barrier listening 3600
expect_ok connect krdmactl session connect addr "$KRDMA_PEER_IP" port $PORT name c1
run_test after_faults c1 write 65536 20 4
expect_ok c1.del krdmactl session del c1
barrier "done"
