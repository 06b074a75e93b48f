#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Kernel-to-kernel transfers between two guests: every op at 1 B, 4 KiB,
# 64 KiB and 1 MiB (and 4 MiB for the RDMA ops), validated; READ and
# atomics 8 deep; negotiated READ credits; clean errors for a wrong
# address, a closed port and a non-krdma client (rping).
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
PORT=7471
LIMIT=4		# READ/atomic credits the server accepts

if [ "$KRDMA_NODE" = 1 ]; then
	echo $LIMIT >/sys/module/krdma/parameters/rd_atom_limit
	expect_ok listener.add krdmactl listener add name main port $PORT
	barrier listening
	barrier connected 300
	# The server's side of the negotiation.
	json_check server.negotiated "krdmactl -j session show" \
		"any(s['role'] == 'server' and s['state'] == 'up' and s['responder_resources'] == $LIMIT and s['initiator_depth'] == $LIMIT for s in d)"
	barrier server_seen
	barrier client_done 1500
	# What the server refused and checked along the way.
	json_check server.rejected_rping "krdmactl -j stats show" "d['rejects_sent'] >= 1"
	json_check server.no_validation_errors "krdmactl -j stats show" "d['validation_errors'] == 0 and d['protocol_errors'] >= 1"
	barrier server_checked
	exit 0
fi

barrier listening

# Errors: each must fail with a message saying why.
expect_fail_msg connect.wrong_address "address resolution failed|timed out|unreachable" \
	krdmactl session connect addr 10.77.0.99 port $PORT timeout 3s
expect_fail_msg connect.closed_port "no listener on that port" \
	krdmactl session connect addr "$KRDMA_PEER_IP" port 7999 timeout 5s
expect_fail_msg connect.rping_refused "." \
	timeout 30 rping -c -a "$KRDMA_PEER_IP" -p $PORT -C 1 -S 64
json_check errors.no_session_left "krdmactl -j session show" "len(d) == 0"

expect_ok connect krdmactl session connect addr "$KRDMA_PEER_IP" port $PORT \
	name c1 max_msg 1M rq_depth 16
json_check client.negotiated "krdmactl -j session show name c1" \
	"d[0]['responder_resources'] == $LIMIT and d[0]['initiator_depth'] == $LIMIT and d[0]['state'] == 'up' and d[0]['peer_proto'] == 2"
barrier connected
barrier server_seen

# Iterations per test; KRDMA_SLOW (the debug kernel, ~25x slower): fewer.
if [ -n "${KRDMA_SLOW:-}" ]; then
	n_small=5 n_1m=2 n_4m=1 n_atomic=40
else
	n_small=30 n_1m=6 n_4m=3 n_atomic=400
fi
for size in 1 4096 65536 1M; do
	case $size in
	1M) count=$n_1m ;;
	*) count=$n_small ;;
	esac
	for op in ping send send_imm write write_imm read; do
		depth=4
		[ "$op" = read ] && depth=8
		run_test "$op.$size" c1 "$op" "$size" "$count" "$depth"
	done
done
for op in ping write read; do
	run_test "$op.4M" c1 "$op" 4M $n_4m 2
done
# Duration instead of count: runs about 2 s, every iteration checked.
json_check test.duration "krdmactl -j test run session c1 op write size 4096 duration 2s depth 4" \
	"d['status'] == 0 and d['iters'] > 0 and d['validated'] == d['iters'] and d['elapsed_ns'] >= 2e9"
run_test atomic_fadd.depth8 c1 atomic_fadd 8 $n_atomic 8
run_test atomic_cswap.depth8 c1 atomic_cswap 8 $n_atomic 8

# Counters read back: every kind of work request really went out.
json_check client.counters "krdmactl -j stats show" \
	"d['read_wrs'] > 0 and d['write_wrs'] > 0 and d['atomic_wrs'] >= 2 * $n_atomic and d['reg_mr_wrs'] > 0 and d['inv_wrs'] > 0 and d['validation_errors'] == 0 and d['wc_errors'] == 0"

# A test must be able to fail: one corrupted byte is caught.
echo 2 >/sys/module/krdma/parameters/fault	# corrupts what the driver checks next
expect_fail_msg validation.catches_corruption "mismatch|wrong" \
	krdmactl test run session c1 op read size 4096 count 5 depth 1
json_check validation.counted "krdmactl -j stats show" "d['validation_errors'] >= 1"

expect_ok session.del krdmactl session del name c1
wait_for -t 60 no_sessions &&
	result session.gone ok || result session.gone fail
barrier client_done
barrier server_checked
