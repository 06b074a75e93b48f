#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Network namespaces, on node 1 (node 2 has nothing to do).
#
# Devices: in the exclusive mode ("rdma system set netns exclusive") a new
# namespace sees none of the init namespace's RDMA devices, in a dump or
# by name, as with "rdma dev"; the init namespace still sees rxe0.
#
# Deletion: namespace kns, a veth kv0 (init) - kv1 (kns) with rxe on each
# end; in kns a listener bound to kv1's address and a client session to
# kv0's address. rxe on 6.1 carries no RoCE traffic in another
# namespace - its UDP sockets and route lookups are init_net's
# (rxe_net.c) - so the session stays connecting. kns is taken down as a
# container runtime does: its veth deleted (the rxe devices go with it;
# the session ends; the listener stays, without its CM id),
# then the namespace. It must then really be freed - its nsid in the init
# namespace goes - and krdma must say it freed the listener. Before the
# fix the listener held a counted reference to kns: the deleted
# namespace, and the listener in it, stayed until the module was
# unloaded. (A listener or session that still has a CM id keeps its
# namespace: the rdma_cm counts a reference per id.)
#
# Last, a wildcard listener in namespace kw, deleted: its CM id keeps kw
# until the unload, which must free both (the harness's rmmod; kmemleak on
# the debug kernel).
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
NS="ip netns exec kns"
NSID=42
LPORT=7700	# in kns
IPORT=7701	# nobody listens

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
	# The module-wide counters are the initial namespace's alone.
	expect_fail_msg stats.netns_hidden "initial network namespace" \
		ip netns exec kx krdmactl stats show
	expect_fail_msg stats.netns_no_reset "initial network namespace" \
		ip netns exec kx krdmactl stats reset
	json_check stats.init_sees "krdmactl -j stats show" "'sessions_opened' in d"
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

log "a namespace deleted with krdma objects in it"
# The debug kernel has no veth: scripts/ci-kernel.sh brings it.
grep -qw '^veth' /proc/modules || [ ! -f "$KRDMA_ROOT/kmod/extra/veth.ko" ] ||
	insmod "$KRDMA_ROOT/kmod/extra/veth.ko"
if ip netns add kns && ip netns set kns $NSID &&
	ip link add kv0 type veth peer name kv1 netns kns &&
	ip addr add 10.78.0.1/24 dev kv0 && ip link set kv0 up &&
	$NS ip link set lo up && $NS ip addr add 10.78.0.2/24 dev kv1 &&
	$NS ip link set kv1 up &&
	rdma link add krxe0 type rxe netdev kv0 &&
	$NS rdma link add krxe1 type rxe netdev kv1 &&
	wait_for -t 60 sh -c 'rdma link show krxe0/1 | grep -q ACTIVE &&
		rdma link show krxe1/1 | grep -q ACTIVE'; then
	result ns.setup ok
else
	result ns.setup fail
fi

json_check ns.listener "$NS krdmactl -j listener add name nsl addr 10.78.0.2 port $LPORT" \
	"d['listener_id'] > 0"
timeout 90 $NS krdmactl -j session connect addr 10.78.0.1 port $IPORT \
	name fromns timeout 60s >/tmp/netns.connect 2>&1 &
CONNECT=$!
ns_connecting() {
	$NS krdmactl -j session show | json_get \
		"[s['state'] for s in d if s['name'] == 'fromns'][0]" | grep -q connecting
}
if wait_for -t 30 ns_connecting; then
	result ns.client_session ok
else
	$NS krdmactl -j session show
	result ns.client_session fail
fi

# The veth first: both ends, and the rxe devices on them, go.
expect_ok ns.veth_del ip link del kv0
ns_no_sessions() {
	[ "$($NS krdmactl -j session show)" = "[]" ]
}
if wait_for -t 90 ns_no_sessions; then
	result ns.session_ended ok
else
	$NS krdmactl -j session show
	result ns.session_ended fail
fi
wait $CONNECT
log "connect from kns: $(cat /tmp/netns.connect)"
json_check ns.listener_without_device "$NS krdmactl -j listener show" \
	"[x.get('reason') for x in d if x['name'] == 'nsl'] == ['RDMA device removed']"
expect_ok ns.del ip netns del kns
# cleanup_net() takes the nsid away before the pernet exits run.
ns_freed() {
	! ip netns list-id | grep -qw "nsid $NSID"
}
if wait_for -t 60 ns_freed; then
	result ns.freed ok
else
	ip netns list-id
	result ns.freed fail
fi
listener_freed() {
	dmesg | grep -q "krdma: 1 listener(s) of a deleted network namespace freed"
}
if wait_for -t 60 listener_freed; then
	result ns.listener_freed ok
else
	result ns.listener_freed fail
fi
json_check init.nothing_left "krdmactl -j listener show" "d == []"

if ip netns add kw; then
	json_check kw.listener "ip netns exec kw krdmactl -j listener add name kwl port $LPORT" \
		"d['listener_id'] > 0"
	expect_ok kw.del ip netns del kw
else
	result kw.add fail
fi
exit 0
