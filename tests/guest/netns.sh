#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Network namespaces, on node 1 (node 2 has nothing to do).
#
# Devices: in the exclusive mode ("rdma system set netns exclusive") a new
# namespace sees none of the init namespace's RDMA devices, in a dump or
# by name, as with "rdma dev"; the init namespace still sees rxe0.
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u

if [ "$KRDMA_NODE" != 1 ]; then
	exit 0
fi

log "devices in the exclusive mode"
if rdma system set netns exclusive; then
	result dev.exclusive ok
	ip netns add kx
	json_check dev.dump_hides "ip netns exec kx krdmactl -j dev show" "d == []"
	expect_rc_msg dev.get_hides 1 "no such RDMA device" \
		ip netns exec kx krdmactl dev show rxe0
	json_check dev.init_sees "krdmactl -j dev show rxe0" "d[0]['dev'] == 'rxe0'"
	ip netns del kx
	# The mode changes only while no other namespace exists.
	if wait_for -t 60 rdma system set netns shared; then
		result dev.shared_again ok
	else
		result dev.shared_again fail
	fi
else
	result dev.exclusive fail
fi

exit 0
