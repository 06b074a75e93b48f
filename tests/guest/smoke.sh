#!/bin/sh
# Quick two-guest smoke test: listener, connect, one validated test per op.
. "$KRDMA_ROOT/tests/vm/lib.sh"
set -u
PORT=7471
if [ "$KRDMA_NODE" = 1 ]; then
	expect_ok listener.add krdmactl listener add port $PORT
	krdmactl dev show
	barrier listening
	barrier done 300
	krdmactl session show
	krdmactl -s session show
else
	barrier listening
	expect_ok connect krdmactl session connect addr "$KRDMA_PEER_IP" port $PORT name c1 
	krdmactl session show
	for op in ping send send_imm write write_imm read; do
		expect_ok "test.$op" krdmactl test run session c1 op $op size 4096 count 20 depth 4
	done
	for op in atomic_fadd atomic_cswap; do expect_ok "test.$op" krdmactl test run session c1 op $op count 50 depth 8; done
	krdmactl test show
	krdmactl stats show
	barrier done 300
fi
