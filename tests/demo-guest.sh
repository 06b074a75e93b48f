#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The main job, guest side: node 1 listens, node 2 connects and runs
# validated kernel-to-kernel transfers, then bandwidth (one way and both
# ways) and latency tests.
. "$KRDMA_ROOT/tests/vm/lib.sh"
set -u
PORT=7471
if [ "$KRDMA_NODE" = 1 ]; then
	expect_ok listener.add krdmactl listener add name demo port $PORT
	barrier listening
	barrier done 900
	echo "== node1 (server) after the transfers"
	krdmactl -s session show
	exit 0
fi

# shown NAME CMD...: runs CMD, prints what it printed, records NAME.
shown() {
	_name=$1
	shift
	if "$@"; then result "$_name" ok; else result "$_name" fail; fi
}

barrier listening
echo "== node2 (client): RDMA devices"
krdmactl dev show
expect_ok connect krdmactl session connect addr "$KRDMA_PEER_IP" port $PORT \
	name demo max_msg 1M rq_depth 16
krdmactl session show name demo
for t in "ping 65536 100 4" "send 65536 100 4" "write 1M 20 4" "read 1M 20 8" \
	 "atomic_fadd 8 1000 8"; do
	set -- $t
	echo "== test $1 size $2 count $3 depth $4"
	expect_ok "test.$1" krdmactl test run session demo op "$1" size "$2" count "$3" depth "$4"
	krdmactl test show | tail -n 1
done
echo "== bandwidth: write, 64 KiB messages, 64 in flight, for 5 s"
shown bw.write krdmactl test run session demo op write mode bw size 64K duration 5s
echo "== bandwidth both ways: read, 4 KiB messages"
shown bw.bidir krdmactl test run session demo op read mode bw size 4K count 2000 bidir
echo "== latency: 64 B sends, one at a time"
shown lat.send krdmactl test run session demo op send mode lat size 64 count 200
echo "== node2 counters"
krdmactl stats show
barrier done
