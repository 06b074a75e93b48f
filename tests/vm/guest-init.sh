#!/bin/sh
# guest-init.sh - guest-side wrapper of the krdma VM harness.
#
# Runs as PID 1 after the initramfs switch_root into the overlay of the
# host's /.  Mounts the pseudo filesystems and the shared output directory
# (9p mount_tag=out at /krdma-out), brings up eth0 (first non-lo interface)
# with 10.77.0.<node>/24 and rxe0 (or siw0) on it, loads $KRDMA_ROOT/kmod/krdma.ko (if
# present and KRDMA_NO_LOAD is unset), runs the test script, unloads krdma,
# saves dmesg and the script's exit code into the shared directory and
# powers off.  Never returns: if anything here breaks, the guest still
# powers off (or PID 1 exits -> panic -> reboot -> qemu -no-reboot exits).

PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
umask 022

KRDMA_OUT=/krdma-out
NODE=
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case $arg in
	krdma_node=*) NODE=${arg#krdma_node=} ;;
	esac
done

say() { echo "krdma-guest[node$NODE]: $*" >/dev/console; }

halt_now() {
	sync
	busybox poweroff -f
	echo o >/proc/sysrq-trigger
	sleep 10
	exit 1
}

state() {
	echo "$*" >"$KRDMA_OUT/.vm/node$NODE.state" 2>/dev/null
	say "$*"
}

# Under TCG an exec costs 0.1-0.5 s, most of it loading the program and
# its libraries over 9p (the mounts alone took 5 s with mount and grep):
# this wrapper uses shell builtins where they do, and static busybox
# where a program is needed.
is_mounted() {
	while read -r _dev _mnt _rest; do
		[ "$_mnt" != "$1" ] || return 0
	done </proc/mounts
	return 1
}

# UPTIME: whole seconds since boot, without a process (for the waits).
uptime_now() {
	read -r UPTIME _rest </proc/uptime
	UPTIME=${UPTIME%.*}
}

# until_up SECONDS CMD...: run CMD every 0.2 s until it succeeds (0), or
# until SECONDS have passed (1).
until_up() {
	uptime_now
	_until_end=$((UPTIME + $1))
	shift
	until "$@"; do
		uptime_now
		[ "$UPTIME" -lt "$_until_end" ] || return 1
		busybox sleep 0.2
	done
	return 0
}

# Record a harness result (same format as lib.sh's result()).
vm_result() {
	_name=$1
	_ok=$2
	shift 2
	_line="RESULT node=$NODE name=$_name ok=$_ok"
	for _kv in "$@"; do
		_line="$_line $(printf '%s' "$_kv" | tr -s ' \t\n\r' '____')"
	done
	echo "$_line" >>"$KRDMA_OUT/node$NODE.results"
	say "$_line"
}

now() { date +%s; }

bounded_done() { ! kill -0 "$1" 2>/dev/null; }

# Run "$@" in the background and wait at most $1 seconds for it (a module
# exit stuck in the kernel must not hang the guest forever).
# Sets BOUNDED_RC (124 on timeout).
bounded() {
	_limit=$1
	shift
	"$@" &
	_pid=$!
	if ! until_up "$_limit" bounded_done "$_pid"; then
		kill -9 "$_pid" 2>/dev/null
		BOUNDED_RC=124
		return 124
	fi
	wait "$_pid"
	BOUNDED_RC=$?
	return "$BOUNDED_RC"
}

setup_mounts() {
	is_mounted /proc || busybox mount -t proc proc /proc
	is_mounted /sys || busybox mount -t sysfs sysfs /sys
	is_mounted /dev || busybox mount -t devtmpfs devtmpfs /dev
	# What udev links on a real host: bash's <(...) needs /dev/fd (dkms).
	[ -e /dev/fd ] || busybox ln -s /proc/self/fd /dev/fd
	busybox mkdir -p /dev/pts /dev/shm
	is_mounted /dev/pts || busybox mount -t devpts -o gid=5,mode=620 devpts /dev/pts
	is_mounted /dev/shm || busybox mount -t tmpfs -o mode=1777 tmpfs /dev/shm
	is_mounted /run || busybox mount -t tmpfs -o mode=0755 tmpfs /run
	is_mounted /sys/kernel/debug || busybox mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	is_mounted /sys/kernel/config || busybox mount -t configfs configfs /sys/kernel/config 2>/dev/null
	# /tmp stays the overlay's /tmp: writable and private to this guest
	# (writes land in the tmpfs upper layer), while scripts that live under
	# the host's /tmp remain visible.
	busybox mkdir -p "$KRDMA_OUT"
	busybox mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=none out "$KRDMA_OUT"
}

# IFACE: the first network interface that is not lo.
find_iface() {
	for _p in /sys/class/net/*; do
		_n=${_p##*/}
		[ "$_n" = lo ] || [ ! -e "$_p" ] || { IFACE=$_n; return 0; }
	done
	return 1
}

# file_is FILE TEXT: FILE's first line is TEXT.
file_is() {
	_line=
	read -r _line 2>/dev/null <"$1"
	[ "$_line" = "$2" ]
}

setup_net() {
	busybox ip link set lo up
	IFACE=
	until_up 30 find_iface || return 1
	# KRDMA_MTU: the NIC's MTU (e.g. 9000, the jumbo frames of RoCE
	# deployments, under which rxe's active MTU is 4096), before rxe0
	# exists: rxe takes its path MTU from the netdev's.
	[ -z "${KRDMA_MTU:-}" ] || busybox ip link set "$IFACE" mtu "$KRDMA_MTU" || return 1
	busybox ip link set "$IFACE" up || return 1
	busybox ip addr add "$KRDMA_IP/24" dev "$IFACE" || return 1
	until_up 30 file_is "/sys/class/net/$IFACE/carrier" 1
}

ping_peer() {
	busybox ping -c 1 -W 1 "10.77.0.$1" >/dev/null 2>&1
}

# The wire must carry traffic before a test runs: an early connect could
# otherwise spend its whole timeout on ARP while the peer's end comes up.
# Waits (bounded) until every other node answers a ping.
wait_peers() {
	# Guests boot at different speeds; the debug kernel (KRDMA_SLOW)
	# takes minutes, more on a loaded host. One deadline for all peers.
	_wait=90
	[ -z "${KRDMA_SLOW:-}" ] || _wait=600
	uptime_now
	_end=$((UPTIME + _wait))
	_i=1
	while [ "$_i" -le "$KRDMA_NODES" ]; do
		uptime_now
		[ "$_i" -eq "$NODE" ] || until_up $((_end - UPTIME)) ping_peer "$_i" ||
			return 1
		_i=$((_i + 1))
	done
	return 0
}

# KRDMA_NETEM impairs the wire on purpose (tc-netem(8) arguments, e.g.
# "loss 1% reorder 2% delay 1ms"), on every guest's NIC. Installed before
# rxe0 exists: a root qdisc grafted under RDMA traffic makes rxe's sends
# fail for a moment, which 6.12's rxe takes for a QP error (peer-death.sh).
# A kernel without netem built in or as a module may have it as
# kmod/extra/sch_netem.ko (scripts/ci-kernel.sh).
setup_netem() {
	[ -n "${KRDMA_NETEM:-}" ] || return 0
	modprobe -q sch_netem 2>/dev/null ||
		{ [ ! -f "$KRDMA_ROOT/kmod/extra/sch_netem.ko" ] ||
			insmod "$KRDMA_ROOT/kmod/extra/sch_netem.ko"; }
	# shellcheck disable=SC2086 # netem's arguments are words on purpose
	tc qdisc replace dev "$IFACE" root netem $KRDMA_NETEM
}

# KRDMA_RPS=1 spreads the NIC's receive work over every vCPU (receive
# packet steering, by flow hash: rxe's RoCEv2 UDP source port differs
# from QP to QP), as a real host's RSS spreads its queues' interrupts;
# without it a single-queue virtio NIC's packets, rxe's responder and
# completer work with them, run on the vCPU that takes its interrupt.
setup_rps() {
	[ "${KRDMA_RPS:-0}" = 1 ] || return 0
	_mask=$(printf '%x' $(((1 << $(nproc)) - 1)))
	for _q in /sys/class/net/"$IFACE"/queues/rx-*; do
		echo "$_mask" >"$_q/rps_cpus" || return 1
	done
}

# The RDMA device of the run: rxe0 (soft-RoCE), or with KRDMA_RDMA=siw
# siw0 (Soft-iWARP, over the guest's TCP), whose module run.sh built
# ($KRDMA_SIW_KO: no Debian kernel has siw). Tests find its name in
# $KRDMA_RDMA_DEV.
setup_rdma() {
	if [ "$KRDMA_RDMA" = siw ]; then
		# insmod does not resolve dependencies (ib_core, libcrc32c).
		for _d in $(modinfo -F depends "$KRDMA_SIW_KO" 2>/dev/null | tr ',' ' '); do
			modprobe "$_d" 2>/dev/null
		done
		insmod "$KRDMA_SIW_KO" || return 1
		_mods=
	else
		_mods=rdma_rxe
	fi
	# No udev in the guest: load what userspace verbs and rdma_cm need,
	# in one modprobe. Built in on some kernels: failures are harmless.
	# shellcheck disable=SC2086 # a word per module
	modprobe -a -q $_mods ib_uverbs rdma_ucm ib_umad 2>/dev/null
	rdma link add "$KRDMA_RDMA_DEV" type "$KRDMA_RDMA" netdev "$IFACE" || return 1
	until_up 60 file_is "/sys/class/infiniband/$KRDMA_RDMA_DEV/ports/1/state" "4: ACTIVE"
}

# Not loading krdma (on purpose) ends the boot as the module's "loaded"
# line does: run.sh counts a kernel report before either as a bad boot.
skip_load() {
	say "$1: not loading krdma"
	echo "krdma-guest: krdma not loaded ($1)" >/dev/kmsg
	: >"$KRDMA_OUT/node$NODE.marked"
}

load_krdma() {
	_ko="$KRDMA_ROOT/kmod/krdma.ko"
	[ -f "$_ko" ] || { skip_load "no $_ko"; return 0; }
	[ -z "${KRDMA_NO_LOAD:-}" ] || { skip_load "KRDMA_NO_LOAD set"; return 0; }
	# insmod does not resolve dependencies: load them first.
	_deps=$(modinfo -F depends "$_ko" 2>/dev/null)
	# shellcheck disable=SC2086 # a word per module
	[ -z "$_deps" ] || (IFS=,; modprobe -a -q $_deps 2>/dev/null)
	# Where the run begins (tests/vm/run.sh): what the kernel reports
	# from here on counts as krdma's, module init included.
	echo "krdma-harness: insmod krdma" >/dev/kmsg
	# For run.sh: the marker was written, so a saved log without it was
	# cleared.
	: >"$KRDMA_OUT/node$NODE.marked"
	# KRDMA_MODPARAMS is split into words on purpose (a=1 b=2).
	# shellcheck disable=SC2086
	if insmod "$_ko" ${KRDMA_MODPARAMS:-} >/tmp/insmod.out 2>&1; then
		vm_result vm.load 1 "params=${KRDMA_MODPARAMS:-}"
		return 0
	fi
	_rc=$?
	cat /tmp/insmod.out >/dev/console
	vm_result vm.load 0 "rc=$_rc" "err=$(head -c 200 /tmp/insmod.out)"
	return 1
}

unload_krdma() {
	[ -d /sys/module/krdma ] || return 0
	state "unloading krdma"
	bounded 90 rmmod krdma >/tmp/rmmod.out 2>&1
	if [ "$BOUNDED_RC" -eq 0 ]; then
		vm_result vm.unload 1
	elif [ "$BOUNDED_RC" -eq 124 ]; then
		vm_result vm.unload 0 "err=rmmod_hung_90s"
	else
		cat /tmp/rmmod.out >/dev/console
		vm_result vm.unload 0 "rc=$BOUNDED_RC" "err=$(head -c 200 /tmp/rmmod.out)"
	fi
}

# kmemleak CMD: write CMD to the kmemleak control file, if the kernel has
# one (the debug kernel; Debian's kernels do not).
kmemleak() {
	[ -w /sys/kernel/debug/kmemleak ] && echo "$1" >/sys/kernel/debug/kmemleak
}

# What the run leaked, after the module is gone. kmemleak only reports
# objects older than 5 s (MSECS_MIN_AGE) found unreferenced by a scan.
scan_kmemleak() {
	[ -w /sys/kernel/debug/kmemleak ] || return 0
	state "kmemleak scan"
	sleep 6
	kmemleak scan
	kmemleak scan
	cat /sys/kernel/debug/kmemleak >"$KRDMA_OUT/node$NODE.kmemleak" 2>&1
	_n=$(grep -c 'unreferenced object' "$KRDMA_OUT/node$NODE.kmemleak")
	if [ "$_n" -eq 0 ]; then
		vm_result vm.kmemleak 1
	else
		head -n 60 "$KRDMA_OUT/node$NODE.kmemleak" >/dev/console
		vm_result vm.kmemleak 0 "objects=$_n" "see=node$NODE.kmemleak"
	fi
}

# shellcheck disable=SC2120 # arguments come from args.sh
run_script() {
	# shellcheck disable=SC1091
	. "$KRDMA_OUT/.vm/args.sh"
	_left=$((KRDMA_DEADLINE - $(now)))
	[ "$_left" -ge 10 ] || _left=10
	state "running $KRDMA_SCRIPT (guest time limit ${_left}s)"
	cd "$KRDMA_ROOT" || return 125
	# timeout(1) runs the script in its own process group and kills the
	# whole group (servers started in the background too) at the limit.
	if [ -x "$KRDMA_SCRIPT" ]; then
		timeout -k 10 "$_left" "$KRDMA_SCRIPT" "$@" </dev/null >"$KRDMA_OUT/node$NODE.log" 2>&1
	else
		timeout -k 10 "$_left" /bin/sh "$KRDMA_SCRIPT" "$@" </dev/null >"$KRDMA_OUT/node$NODE.log" 2>&1
	fi
	_rc=$?
	[ "$_rc" -ne 124 ] || echo "guest-init: script killed after ${_left}s (KRDMA_DEADLINE)" >>"$KRDMA_OUT/node$NODE.log"
	return "$_rc"
}

main() {
	setup_mounts
	if ! is_mounted "$KRDMA_OUT" || [ ! -f "$KRDMA_OUT/.vm/env.sh" ]; then
		say "FATAL: shared output directory not available"
		halt_now
	fi
	# shellcheck disable=SC1091
	. "$KRDMA_OUT/.vm/env.sh"
	KRDMA_NODE=$NODE
	KRDMA_IP="10.77.0.$NODE"
	KRDMA_PEER_IP=
	if [ "$KRDMA_NODES" -eq 2 ]; then
		KRDMA_PEER_IP="10.77.0.$((3 - NODE))"
	fi
	PATH="$KRDMA_ROOT/tools:$PATH"
	KRDMA_RDMA=${KRDMA_RDMA:-rxe}
	KRDMA_RDMA_DEV=${KRDMA_RDMA}0
	export KRDMA_NODE KRDMA_NODES KRDMA_IP KRDMA_PEER_IP KRDMA_ROOT KRDMA_OUT KRDMA_DEADLINE PATH
	export KRDMA_RDMA KRDMA_RDMA_DEV
	[ -n "$KRDMA_PEER_IP" ] || unset KRDMA_PEER_IP
	hostname "node$NODE" 2>/dev/null

	state "up"
	rc=125
	if ! setup_net; then
		vm_result vm.net 0 "iface=${IFACE:-none}" ${KRDMA_MTU:+"mtu=$KRDMA_MTU"}
	elif ! wait_peers; then
		vm_result vm.net 0 "iface=$IFACE" "peers=unreachable"
	elif ! setup_netem; then
		vm_result vm.netem 0 "iface=$IFACE" "netem=$KRDMA_NETEM"
	elif ! setup_rps; then
		vm_result vm.rps 0 "iface=$IFACE"
	elif ! setup_rdma; then
		vm_result "vm.$KRDMA_RDMA" 0 "iface=$IFACE"
		rdma link show >/dev/console 2>&1
	else
		state "$KRDMA_RDMA_DEV ACTIVE on $IFACE ($KRDMA_IP)"
		kmemleak clear
		if load_krdma; then
			# shellcheck disable=SC2119
			run_script
			rc=$?
		fi
		unload_krdma
		scan_kmemleak
	fi
	state "done rc=$rc"
	dmesg >"$KRDMA_OUT/node$NODE.dmesg" 2>&1
	echo "$rc" >"$KRDMA_OUT/node$NODE.rc"
	halt_now
}

main
# shellcheck disable=SC2317 # not reached unless main returns
halt_now
