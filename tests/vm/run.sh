#!/bin/bash
# run.sh - run a krdma guest test script in N QEMU (TCG) guests joined by one
# private virtual wire, each with rxe0 up.  See tests/vm/README.md.
#
# usage: tests/vm/run.sh [-n N] [-k VERSION | -K BZIMAGE] [-t SECONDS]
#                        [-o DIR] [-m MiB] [-c CPUS] SCRIPT [ARGS...]
#
# Last line of output: "vm: PASS (<n> results)" or "vm: FAIL: <reasons>".

set -u
export LC_ALL=C

prog=${0##*/}
here=$(cd "$(dirname "$0")" && pwd -P) || exit 2

usage() {
	cat <<USAGE
usage: $prog [options] SCRIPT [ARGS...]
  -n N        number of guests (default 2)
  -k VERSION  guest kernel version (default: the one kmod/krdma.ko was
              built for, else Debian 12's 6.1; env KERNEL= also accepted)
  -K BZIMAGE  boot this kernel image instead (modules optional; env KERNEL_IMAGE=)
  -t SECONDS  overall timeout of the run (default 600)
  -o DIR      output directory (default: fresh mktemp dir under /tmp)
  -m MiB      guest memory (default 1024)
  -c CPUS     vCPUs per guest (default 2)
env: KRDMA_WIRE (unix, tcp, dgram, mcast or vde: tests/vm/README.md "The wire"),
     KRDMA_RDMA (rxe, the default: soft-RoCE rxe0; siw: Soft-iWARP siw0),
     KRDMA_NETEM (tc-netem arguments applied on every guest's NIC),
     KRDMA_MTU (every guest's NIC MTU, e.g. 9000: rxe's MTU 4096),
     KRDMA_RPS=1 (receive packet steering over every vCPU of a guest),
     KRDMA_ROOT (repo root), KRDMA_NO_LOAD, KRDMA_MODPARAMS,
     KRDMA_BOOT_TIMEOUT (900 s) and KRDMA_BOOT_STALL (300 s of console
     silence): a guest not up by then hung booting, KRDMA_PVH=0 (boot
     the bzImage, not its ELF kernel by the PVH entry); any KRDMA_*
     variable is passed on to the guest scripts.
USAGE
}

fail_early() {
	echo "$prog: $*" >&2
	echo "vm: FAIL: $*"
	exit 1
}

progress() { echo "vm: $*" >&2; }

nodes=2 kver=${KERNEL:-} kimg=${KERNEL_IMAGE:-} tmo=600 out='' mem=1024 cpus=2
while getopts "n:k:K:t:o:m:c:h" opt; do
	case $opt in
	n) nodes=$OPTARG ;;
	k) kver=$OPTARG ;;
	K) kimg=$OPTARG ;;
	t) tmo=$OPTARG ;;
	o) out=$OPTARG ;;
	m) mem=$OPTARG ;;
	c) cpus=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -lt 1 ]; then
	usage >&2
	exit 2
fi
script=$1
shift

for v in "nodes:$nodes" "tmo:$tmo" "mem:$mem" "cpus:$cpus"; do
	case ${v#*:} in
	'' | *[!0-9]*) fail_early "bad numeric option value '${v#*:}'" ;;
	esac
done
if [ "$nodes" -lt 1 ] || [ "$nodes" -gt 9 ]; then
	fail_early "-n must be 1..9"
fi
[ "$tmo" -ge 30 ] || fail_early "-t must be at least 30 seconds"

KRDMA_ROOT=${KRDMA_ROOT:-$(cd "$here/../.." && pwd -P)}
KRDMA_ROOT=$(cd "$KRDMA_ROOT" && pwd -P) || fail_early "bad KRDMA_ROOT"
case $KRDMA_ROOT in
*[[:space:]]*) fail_early "KRDMA_ROOT must not contain white space: $KRDMA_ROOT" ;;
esac
guest_init=$here/guest-init.sh
case $guest_init in
*[[:space:]]*) fail_early "harness path must not contain white space: $guest_init" ;;
esac

[ -f "$script" ] || fail_early "no such script: $script"
script=$(readlink -f -- "$script")

for t in qemu-system-x86_64 timeout cpio gzip modprobe ss sha256sum; do
	command -v "$t" >/dev/null 2>&1 || fail_early "missing host tool: $t"
done
busybox=$(command -v busybox) || fail_early "missing busybox (busybox-static)"

# --- kernel selection -------------------------------------------------------

# Kernel version string of a bzImage (boot protocol: 16-bit pointer at 0x20e,
# relative to 0x200, to a NUL-terminated "version ..." string).
bzimage_version() {
	local off
	off=$(od -An -tu2 -j526 -N2 "$1" 2>/dev/null | tr -d ' ') || return 1
	[ -n "$off" ] && [ "$off" -gt 0 ] || return 1
	dd if="$1" bs=1 skip=$((off + 512)) count=128 2>/dev/null | tr '\0' '\n' | head -n1 | cut -d' ' -f1
}

kimg_given=$kimg
if [ -n "$kimg" ]; then
	[ -r "$kimg" ] || fail_early "cannot read kernel image $kimg"
	kimg=$(readlink -f -- "$kimg")
	[ -n "$kver" ] || kver=$(bzimage_version "$kimg") || kver=
	[ -n "$kver" ] || kver=unknown
else
	# Default: the kernel the built module is for, so the two always
	# match; without a module, Debian 12's kernel (scripts/guest-kver.sh).
	if [ -z "$kver" ] && [ -r "$KRDMA_ROOT/kmod/krdma.ko" ]; then
		kver=$(modinfo -F vermagic "$KRDMA_ROOT/kmod/krdma.ko" 2>/dev/null | cut -d' ' -f1)
	fi
	if [ -z "$kver" ]; then
		kver=$("$KRDMA_ROOT/scripts/guest-kver.sh" 6.1 amd64) ||
			fail_early "no /boot/vmlinuz-<v> with /lib/modules/<v>/build"
	fi
	kimg=/boot/vmlinuz-$kver
	[ -r "$kimg" ] || fail_early "cannot read $kimg"
	[ -d "/lib/modules/$kver" ] || fail_early "no /lib/modules/$kver"
fi
moddir=/lib/modules/$kver
# A module built for another kernel (a plain "make" builds for the
# running kernel) would only fail as vm.load in every guest.
if [ -z "${KRDMA_NO_LOAD:-}" ] && [ -r "$KRDMA_ROOT/kmod/krdma.ko" ] && [ -z "$kimg_given" ]; then
	built=$(modinfo -F vermagic "$KRDMA_ROOT/kmod/krdma.ko" 2>/dev/null | cut -d' ' -f1)
	[ -z "$built" ] || [ "$built" = "$kver" ] ||
		fail_early "kmod/krdma.ko is built for $built, the guests run $kver: 'make guest' (or make KVER=$kver)"
fi

# Multi-threaded TCG runs a guest's vCPUs in parallel; 6.12 guests under it
# (QEMU 7.2) were seen to take "Oops: int3" on a static-key site that had
# already been patched back to a NOP (sched_clock_tick at boot,
# __skb_get_hash_net under rxe traffic): a vCPU ran a stale translation of
# code another vCPU had just rewritten with text_poke_bp. Single-threaded
# TCG switches vCPUs only between translation blocks, so no vCPU can run
# code that another one is rewriting. 6.1 guests never showed it in
# hundreds of boots and keep the parallel vCPUs that their race tests
# want. KRDMA_TCG_THREAD=single|multi overrides.
tcg_thread=${KRDMA_TCG_THREAD:-}
if [ -z "$tcg_thread" ]; then
	tcg_thread=multi
	kmaj=${kver%%.*} kmin=${kver#*.} kmin=${kmin%%[!0-9]*}
	case $kmaj.$kmin in
	[0-9]*.[0-9]*)
		if [ "$kmaj" -gt 6 ] || { [ "$kmaj" -eq 6 ] && [ "$kmin" -ge 12 ]; }; then
			tcg_thread=single
		fi
		;;
	esac
fi
case $tcg_thread in
single | multi) ;;
*) fail_early "KRDMA_TCG_THREAD must be single or multi, not '$tcg_thread'" ;;
esac

# --- initramfs (cached) -----------------------------------------------------

initramfs_mods="virtio_pci virtio_net 9pnet_virtio 9p overlay"

# Module files (dependency order, no duplicates) needed for the initramfs.
initramfs_module_files() {
	[ -d "$moddir" ] || return 0
	local m kind path rest
	for m in $initramfs_mods; do
		modprobe -S "$kver" --show-depends "$m" 2>/dev/null |
			while read -r kind path rest; do
				[ "$kind" = insmod ] && echo "$path"
			done
	done | awk '!seen[$0]++'
}

build_initramfs() {
	local files key cachedir img tmp f dst
	files=$(initramfs_module_files)
	key=$(
		{
			echo "format 1 $kver"
			sha256sum "$here/initramfs-init.sh" "$busybox"
			for f in $files; do
				stat -L -c '%n %s %Y' "$f"
			done
		} | sha256sum | cut -c1-16
	)
	cachedir=/var/tmp/krdma-vm/$kver
	img=$cachedir/initramfs-$key.cpio.gz
	if [ -s "$img" ]; then
		echo "$img"
		return 0
	fi
	progress "building initramfs for $kver -> $img"
	mkdir -p "$cachedir" || return 1
	tmp=$(mktemp -d "$cachedir/build.XXXXXX") || return 1
	(
		set -e
		mkdir -p "$tmp/root/bin" "$tmp/root/dev" "$tmp/root/proc" "$tmp/root/sys"
		cp "$busybox" "$tmp/root/bin/busybox"
		ln -s busybox "$tmp/root/bin/sh"
		cp "$here/initramfs-init.sh" "$tmp/root/init"
		chmod 0755 "$tmp/root/init"
		mknod -m 600 "$tmp/root/dev/console" c 5 1 2>/dev/null || true
		: >"$tmp/root/modules.list"
		for f in $files; do
			# busybox insmod cannot read compressed modules: decompress.
			case $f in
			*.ko.xz) dst=${f%.xz} ;;
			*.ko.zst) dst=${f%.zst} ;;
			*.ko.gz) dst=${f%.gz} ;;
			*) dst=$f ;;
			esac
			mkdir -p "$tmp/root${dst%/*}"
			case $f in
			*.ko.xz) xz -dc "$f" >"$tmp/root$dst" ;;
			*.ko.zst) zstd -qdc "$f" >"$tmp/root$dst" ;;
			*.ko.gz) gzip -dc "$f" >"$tmp/root$dst" ;;
			*) cp "$f" "$tmp/root$dst" ;;
			esac
			echo "$dst" >>"$tmp/root/modules.list"
		done
		cd "$tmp/root"
		find . | cpio -o -H newc -R 0:0 --quiet | gzip -6 >"$tmp/img"
	) || {
		rm -rf "$tmp"
		return 1
	}
	mv -f "$tmp/img" "$img"
	rm -rf "$tmp"
	echo "$img"
}

initrd=$(build_initramfs) || fail_early "initramfs build failed"

# --- the kernel QEMU loads (cached) --------------------------------------------
# Under TCG a guest spends about 4 s unpacking an xz bzImage before the
# kernel's first line, in every guest of every test. Where the kernel has
# the PVH entry note (Debian's 6.1 and 6.12 have), QEMU boots the ELF
# inside the bzImage directly: pvh-kernel.py extracts it once per image.
# KRDMA_PVH=0 boots the bzImage itself.
pvh_image() {
	local key cachedir elf rc
	key=$(
		{
			echo "pvh 1 $kimg"
			stat -L -c '%s %Y' "$kimg"
			# Its content, not its path: every checkout shares the ELF.
			sha256sum <"$here/pvh-kernel.py"
		} | sha256sum | cut -c1-16
	)
	cachedir=/var/tmp/krdma-vm/$kver
	elf=$cachedir/vmlinux-$key
	# A kernel without PVH is remembered too: no new attempt per test.
	[ ! -e "$elf.none" ] || return 1
	if [ ! -s "$elf" ]; then
		mkdir -p "$cachedir" || return 1
		python3 "$here/pvh-kernel.py" "$kimg" "$elf.tmp.$$" 2>"$elf.err.$$"
		rc=$?
		if [ "$rc" -ne 0 ]; then
			progress "booting the bzImage: $(cat "$elf.err.$$")"
			rm -f "$elf.tmp.$$" "$elf.err.$$"
			[ "$rc" -ne 3 ] || : >"$elf.none"
			return 1
		fi
		rm -f "$elf.err.$$"
		mv -f "$elf.tmp.$$" "$elf" || return 1
	fi
	echo "$elf"
}
boot_kimg=$kimg
if [ "${KRDMA_PVH:-1}" != 0 ] && command -v python3 >/dev/null; then
	boot_kimg=$(pvh_image) || boot_kimg=$kimg
fi

# KRDMA_RDMA=siw: the guests get siw0 (Soft-iWARP) instead of rxe0. No
# Debian kernel builds siw; scripts/siw-module.sh builds it (cached).
rdma_kind=${KRDMA_RDMA:-rxe}
case $rdma_kind in
rxe) ;;
siw)
	[ -d "$moddir/build" ] || fail_early "KRDMA_RDMA=siw needs the build tree $moddir/build"
	KRDMA_SIW_KO=$("$KRDMA_ROOT/scripts/siw-module.sh" "$kver") ||
		fail_early "cannot build siw.ko for $kver"
	export KRDMA_SIW_KO
	;;
*) fail_early "KRDMA_RDMA=$rdma_kind: rxe or siw" ;;
esac

# --- output directory ---------------------------------------------------------

if [ -n "$out" ]; then
	mkdir -p "$out" || fail_early "cannot create $out"
	out=$(cd "$out" && pwd -P)
	# Never let stale files of an earlier run decide this one.
	rm -rf "$out/.vm" "$out/.barrier"
	rm -f "$out"/node[0-9]*.rc "$out"/node[0-9]*.results "$out"/node[0-9]*.log \
		"$out"/node[0-9]*.dmesg "$out"/node[0-9]*.console "$out"/node[0-9]*.qemu.log \
		"$out"/node[0-9]*.marked
else
	out=$(mktemp -d /tmp/krdma-vm.XXXXXX) || fail_early "mktemp failed"
fi
mkdir -p "$out/.vm" || fail_early "cannot write to $out"
progress "output directory: $out"

# --- guest environment ----------------------------------------------------------

shq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

start=$(date +%s)
deadline=$((start + tmo))
margin=$((tmo / 5))
[ "$margin" -le 60 ] || margin=60
[ "$margin" -ge 15 ] || margin=15

{
	echo "# generated by run.sh"
	while IFS= read -r v; do
		case $v in
		KRDMA_NODE | KRDMA_NODES | KRDMA_IP | KRDMA_PEER_IP | KRDMA_OUT | KRDMA_ROOT | KRDMA_DEADLINE | KRDMA_SCRIPT) ;;
		*) echo "export $v=$(shq "${!v}")" ;;
		esac
	done < <(compgen -e | grep '^KRDMA_[A-Za-z0-9_]*$')
	echo "export KRDMA_NODES=$nodes"
	echo "export KRDMA_ROOT=$(shq "$KRDMA_ROOT")"
	echo "export KRDMA_SCRIPT=$(shq "$script")"
	echo "export KRDMA_DEADLINE=$((deadline - margin))"
	echo "export HOME=/root"
} >"$out/.vm/env.sh"
{
	printf 'set --'
	for a in "$@"; do
		printf ' %s' "$(shq "$a")"
	done
	echo
} >"$out/.vm/args.sh"

# --- qemu -------------------------------------------------------------------------

qpath() { printf '%s' "${1//,/,,}"; }	# escape commas for qemu options

port_busy() {	# port_busy tcp|udp PORT
	local flag=-Hltn
	[ "$1" = udp ] && flag=-Hlun
	[ -n "$(ss "$flag" "sport = :$2" 2>/dev/null)" ]
}

pick_port() {
	local p i
	for i in $(seq 1 50); do
		p=$((20000 + RANDOM % 40000))
		port_busy "$1" "$p" || { echo "$p"; return 0; }
	done
	return 1
}

runid=$$.$RANDOM
declare -a wpids=()
timed_out=0
cleaned=0

qemu_pid_of() {	# pid from the pidfile, only if it still is our qemu
	local pid
	pid=$(cat "$out/.vm/node$1.pid" 2>/dev/null) || return 1
	[ -n "$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "krdma-$runid-node$1" || return 1
	echo "$pid"
}

kill_guests() {
	local i pid end
	for i in "${!wpids[@]}"; do
		kill -TERM "${wpids[$i]}" 2>/dev/null
		pid=$(qemu_pid_of "$i") && kill -TERM "$pid" 2>/dev/null
	done
	end=$(($(date +%s) + 5))
	for i in "${!wpids[@]}"; do
		while kill -0 "${wpids[$i]}" 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do
			sleep 0.2
		done
		pid=$(qemu_pid_of "$i") && kill -KILL "$pid" 2>/dev/null
		kill -KILL "${wpids[$i]}" 2>/dev/null
	done
}

# shellcheck disable=SC2317 # invoked via trap
cleanup() {
	[ "$cleaned" -eq 1 ] && return
	cleaned=1
	kill_guests
	[ -z "${wire_sock:-}" ] || rm -f "$wire_sock"
	if [ -n "${vde_dir:-}" ]; then
		[ ! -s "$vde_dir/pid" ] || kill "$(cat "$vde_dir/pid")" 2>/dev/null
		rm -rf "$vde_dir"
	fi
}
trap cleanup EXIT
trap 'progress "interrupted, killing guests"; cleanup; echo "vm: FAIL: interrupted"; exit 130' INT TERM HUP

# The wire (tests/vm/README.md "The wire"): for two guests a unix-socket
# stream by default. A TCP stream between the QEMU processes (the old
# default) delays by ~20 ms every exchange in which one side sends two
# packets in a row (Nagle on the host socket against a delayed ACK), and
# that delay, not krdma, was every latency the suite measured; a UDP wire
# drops under load as a switch does, and so does a vde_switch (vde2), a
# learning switch for N guests. KRDMA_WIRE=unix|tcp|dgram|mcast|vde.
wire=${KRDMA_WIRE:-}
if [ -z "$wire" ]; then
	wire=mcast
	[ "$nodes" -ne 2 ] || wire=unix
fi
case $wire in
unix | tcp | dgram)
	[ "$nodes" -eq 2 ] || fail_early "KRDMA_WIRE=$wire joins two guests, not $nodes (use mcast)"
	;;
mcast | vde) ;;
*) fail_early "KRDMA_WIRE=$wire: unix, tcp, dgram, mcast or vde" ;;
esac
case $wire in
unix)
	# Not under $out: a socket path has at most 107 bytes.
	wire_sock=$(mktemp -u /tmp/krdma-wire.XXXXXX)
	;;
tcp) port=$(pick_port tcp) || fail_early "no free TCP port" ;;
dgram)
	port=$(pick_port udp) || fail_early "no free UDP port"
	port2=$(pick_port udp) || fail_early "no free UDP port"
	[ "$port2" != "$port" ] || port2=$((port + 1))
	;;
mcast) port=$(pick_port udp) || fail_early "no free UDP port" ;;
vde)
	command -v vde_switch >/dev/null ||
		fail_early "KRDMA_WIRE=vde needs vde_switch (apt-get install vde2)"
	# Not under $out either: the switch's socket path is bounded too.
	vde_dir=$(mktemp -d /tmp/krdma-vde.XXXXXX)
	# A daemon, which outlives this script if it is killed before its
	# cleanup: it must not keep what we hold open, /work/vmslot's lock
	# among them (a leaked switch held a slot for good).
	(
		for f in "/proc/$BASHPID/fd"/*; do
			n=${f##*/}
			[ "$n" -le 2 ] || eval "exec $n>&-"
		done
		exec vde_switch -s "$vde_dir/ctl" -d -p "$vde_dir/pid"
	) || fail_early "vde_switch did not start"
	i=0
	while [ ! -S "$vde_dir/ctl/ctl" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -S "$vde_dir/ctl/ctl" ] || fail_early "vde_switch: no control socket"
	;;
esac
echo "export KRDMA_WIRE=$wire" >>"$out/.vm/env.sh"

# wire_ready: node 1's end of a connected wire is listening.
wire_ready() {
	case $wire in
	unix) [ -S "$wire_sock" ] ;;
	tcp) port_busy tcp "$port" ;;
	*) return 0 ;;
	esac
}

start_guest() {
	local i=$1 left netdev
	case $wire in
	unix)
		netdev="stream,id=n0,addr.type=unix,addr.path=$wire_sock"
		if [ "$i" -eq 1 ]; then
			netdev="$netdev,server=on"
		else
			netdev="$netdev,server=off"
		fi
		;;
	tcp)
		if [ "$i" -eq 1 ]; then
			netdev="socket,id=n0,listen=127.0.0.1:$port"
		else
			netdev="socket,id=n0,connect=127.0.0.1:$port"
		fi
		;;
	dgram)
		local lp=$port rp=$port2
		[ "$i" -eq 1 ] || { lp=$port2 rp=$port; }
		netdev="dgram,id=n0,local.type=inet,local.host=127.0.0.1,local.port=$lp"
		netdev="$netdev,remote.type=inet,remote.host=127.0.0.1,remote.port=$rp"
		;;
	mcast) netdev="socket,id=n0,mcast=230.0.0.1:$port,localaddr=127.0.0.1" ;;
	vde) netdev="vde,id=n0,sock=$vde_dir/ctl" ;;
	esac
	# The host loop below kills the guests at the deadline; this timeout(1)
	# is only a safety net in case run.sh itself dies, so it fires later.
	left=$((deadline - $(date +%s) + 20))
	[ "$left" -gt 0 ] || left=1
	# no_timer_check: under TCG on a loaded host the boot-time check that
	# the timer interrupt works can miss its window, and the guest then
	# hangs or panics ("IO-APIC + timer doesn't work!") before its init;
	# QEMU's timer is known to work, so the check is skipped.
	# la57=off: with 5-level paging, an interrupt that lands while
	# identify_cpu() has the LA57 capability cleared makes KASAN kernels
	# (6.1) report "wild-memory-access in do_raw_spin_lock" at ~0.005 s;
	# the guests need no 5-level paging, so the CPU does not offer it.
	# slab_nomerge: every kmalloc cache counts only kmalloc objects, so
	# cycles.sh's leak check does not see other caches' users.
	timeout -k 5 "$left" qemu-system-x86_64 \
		-name "krdma-$runid-node$i" \
		-accel "tcg,thread=$tcg_thread" -cpu max,la57=off -smp "$cpus" -m "$mem" \
		-nodefaults -no-user-config -display none -monitor none -no-reboot \
		-serial "file:$(qpath "$out/node$i.console")" \
		-pidfile "$out/.vm/node$i.pid" \
		-rtc base=utc,clock=host \
		-kernel "$boot_kimg" -initrd "$initrd" \
		-append "console=ttyS0 loglevel=5 log_buf_len=4M panic=1 no_timer_check slab_nomerge krdma_node=$i krdma_init=$guest_init" \
		-virtfs "local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap" \
		-virtfs "local,path=$(qpath "$out"),mount_tag=out,security_model=none,multidevs=remap" \
		-netdev "$netdev" \
		-device "virtio-net-pci,netdev=n0,mac=52:54:00:00:00:0$i" \
		</dev/null >"$out/node$i.qemu.log" 2>&1 &
	wpids[i]=$!
}

boot_how=bzImage
[ "$boot_kimg" = "$kimg" ] || boot_how="PVH, $boot_kimg"
progress "booting $nodes guest(s): kernel $kimg ($kver, $boot_how), TCG ($tcg_thread-threaded), ${cpus} vCPU/${mem} MiB each, $wire wire${KRDMA_NETEM:+ with netem $KRDMA_NETEM}, timeout ${tmo}s"
for i in $(seq 1 "$nodes"); do
	start_guest "$i"
	if [ "$i" -eq 1 ]; then
		# The connecting side needs the listener in place.
		end=$(($(date +%s) + 30))
		until wire_ready; do
			if ! kill -0 "${wpids[1]}" 2>/dev/null || [ "$(date +%s)" -ge "$end" ]; then
				progress "node1 qemu did not start listening on its $wire wire:"
				cat "$out/node1.qemu.log" >&2
				fail_early "qemu failed to start"
			fi
			sleep 0.1
		done
	fi
done

# A guest that has not reached its init by then hung while booting (seen:
# the debug kernel stuck calibrating its timers under TCG on a loaded
# host); the run is given up, as a bad boot (see the scan below).
# A console silent for KRDMA_BOOT_STALL seconds before the guest is up
# hung too (seen: the debug kernel's console ending at "tsc: Unable to
# calibrate against PIT" for good); a normal debug boot is silent for at
# most ~40 s (ACPI's AML loop timeouts of 30 s under TCG).
boot_tmo=${KRDMA_BOOT_TIMEOUT:-900}
boot_stall=${KRDMA_BOOT_STALL:-300}
boot_deadline=$(($(date +%s) + boot_tmo))
boot_hung=
died='' died_at=0 died_grace=${KRDMA_DIED_GRACE:-20}
declare -A seen=() con_size=() con_since=()
while :; do
	alive=0
	now=$(date +%s)
	for i in "${!wpids[@]}"; do
		kill -0 "${wpids[$i]}" 2>/dev/null && alive=$((alive + 1))
		st=$(cat "$out/.vm/node$i.state" 2>/dev/null) || st=
		if [ -n "$st" ] && [ "${seen[$i]:-}" != "$st" ]; then
			seen[$i]=$st
			progress "node$i: $st (+$((now - start))s)"
		fi
		[ -z "${seen[$i]:-}" ] || continue
		sz=$(stat -c %s "$out/node$i.console" 2>/dev/null) || sz=0
		if [ "${con_size[$i]:-}" != "$sz" ]; then
			con_size[$i]=$sz con_since[$i]=$now
		elif [ $((now - con_since[$i])) -ge "$boot_stall" ]; then
			progress "node$i: console silent for ${boot_stall}s while booting"
			boot_deadline=$now
		fi
	done
	[ "$alive" -gt 0 ] || break
	# A guest gone without an exit code crashed (vm_crash writes its
	# code before it powers off): its peers would only wait for it until
	# the deadline (seen: 1400 s after a panic at 30 s). They get a short
	# grace to write what they have, then the run stops.
	if [ -z "$died" ]; then
		for i in "${!wpids[@]}"; do
			if ! kill -0 "${wpids[$i]}" 2>/dev/null && [ ! -f "$out/node$i.rc" ]; then
				died=node$i died_at=$now
				progress "node$i: guest ended without an exit code (+$((now - start))s), stopping the others in ${died_grace}s"
				break
			fi
		done
	elif [ $((now - died_at)) -ge "$died_grace" ]; then
		kill_guests
		break
	fi
	if [ "$now" -ge "$boot_deadline" ] && [ -z "$boot_hung" ]; then
		for i in "${!wpids[@]}"; do
			[ -s "$out/.vm/node$i.state" ] || boot_hung="$boot_hung node$i"
		done
		if [ -n "$boot_hung" ]; then
			progress "${boot_hung# } did not boot, killing guests"
			kill_guests
			break
		fi
		boot_hung=" "
	fi
	if [ "$(date +%s)" -ge "$deadline" ]; then
		timed_out=1
		progress "timeout after ${tmo}s, killing guests"
		kill_guests
		break
	fi
	sleep 1
done
declare -A qrc=()
for i in "${!wpids[@]}"; do
	wait "${wpids[$i]}"
	qrc[$i]=$?
done
cleaned=1
elapsed=$(($(date +%s) - start))
progress "guests ended after ${elapsed}s"

# --- verdict ------------------------------------------------------------------------

reasons=()
nres=0
nfail=0
echo "=== results ($out)"
for i in $(seq 1 "$nodes"); do
	if [ -f "$out/node$i.results" ]; then
		while IFS= read -r l; do
			case $l in
			RESULT\ *)
				echo "$l"
				nres=$((nres + 1))
				case " $l " in *" ok=0 "*) nfail=$((nfail + 1)) ;; esac
				;;
			esac
		done <"$out/node$i.results"
	fi
done

for i in $(seq 1 "$nodes"); do
	[ "${qrc[$i]}" -ne 124 ] || timed_out=1
done
[ "$timed_out" -eq 0 ] || reasons+=("timeout after ${tmo}s")
[ -z "$died" ] || reasons+=("$died: guest ended without an exit code; the others were stopped ${died_grace}s later")
for n in $boot_hung; do
	reasons+=("$n: hung during boot, before krdma was loaded")
done
for i in $(seq 1 "$nodes"); do
	# QEMU 7.2's TCG was seen to segfault while a debug guest booted:
	# a crash of qemu itself (a fatal signal none of ours) before the
	# guest's init ran is a bad boot like a hang (the suite boots again).
	case ${qrc[$i]} in
	134 | 135 | 139)
		[ -s "$out/.vm/node$i.state" ] ||
			reasons+=("node$i: qemu crashed (exit ${qrc[$i]}) during boot, before krdma was loaded")
		;;
	esac
	if [ "${qrc[$i]}" -ne 0 ] && [ "$timed_out" -eq 0 ]; then
		reasons+=("node$i: qemu exit ${qrc[$i]}")
		echo "--- node$i qemu log:"
		tail -n 20 "$out/node$i.qemu.log"
	fi
	if [ ! -f "$out/node$i.rc" ]; then
		fatal=$(grep -a -m1 -o 'krdma-[a-z]*\(\[node[0-9]*\]\)\?: FATAL: .*' "$out/node$i.console" 2>/dev/null)
		reasons+=("node$i: no exit code (guest did not finish${fatal:+: $fatal}; see node$i.console)")
	else
		rc=$(cat "$out/node$i.rc")
		if [ "$rc" != 0 ]; then
			reasons+=("node$i: script exit $rc")
			echo "--- node$i.log (tail):"
			tail -n 30 "$out/node$i.log" 2>/dev/null
		fi
	fi
	log=$out/node$i.dmesg
	[ -s "$log" ] || log=$out/node$i.console
	if [ -f "$log" ]; then
		echo "--- scanning ${log##*/}"
		logname=${log##*/}
		# A report before krdma was loaded cannot be krdma's doing: the
		# boot went wrong (seen once: KASAN on an early interrupt, debug
		# kernel under TCG on a loaded host). It is said apart, and
		# tests/run-guest-suite.sh boots such a test again, once.
		# guest-init.sh writes its marker to the kernel log just before
		# insmod, so a report in krdma's own init counts as krdma's (or
		# "not loaded", under KRDMA_NO_LOAD); the console (all there is
		# of a guest killed at the deadline) is at loglevel 5 and has the
		# harness's vm.load result instead.
		load=$(grep -a -n -m1 -E 'krdma-harness: insmod krdma|krdma-guest: krdma not loaded|: RESULT node=[0-9]+ name=vm\.load ' "$log" | cut -d: -f1)
		# The guest wrote its marker (node<i>.marked: krdma loaded, or
		# not on purpose) and saved its dmesg at the end: a log without
		# the marker was cleared meanwhile, and nothing in it can be
		# trusted. (Before, only a loaded krdma was checked: under
		# KRDMA_NO_LOAD the harness selftest's cleared log passed.)
		if [ -f "$out/node$i.dmesg" ] && [ -f "$out/node$i.marked" ] &&
		   ! grep -a -q -E 'krdma-harness: insmod krdma|krdma-guest: krdma not loaded' "$out/node$i.dmesg"; then
			reasons+=("node$i: the kernel log was cleared after krdma was loaded (no test may clear it: the scan would be blind)")
			load=1
		fi
		# Never loaded (the guest died booting): all of it is the boot.
		[ -n "$load" ] || load=$(($(wc -l <"$log") + 1))
		if [ "$load" -gt 1 ]; then
			head -n $((load - 1)) "$log" >"$out/.node$i.boot"
			if ! "$here/scan-dmesg.sh" -q "$out/.node$i.boot"; then
				"$here/scan-dmesg.sh" "$out/.node$i.boot"
				reasons+=("node$i: kernel problem report during boot, before krdma was loaded")
			fi
			tail -n +"$load" "$log" >"$out/.node$i.run"
			log=$out/.node$i.run
		fi
		"$here/scan-dmesg.sh" "$log"
		case $? in
		0) ;;
		1) reasons+=("node$i: kernel problem report in $logname") ;;
		*) reasons+=("node$i: cannot scan ${log##*/}") ;;
		esac
	fi
done
if [ "$nfail" -gt 0 ]; then
	reasons+=("$nfail failed result(s)")
	echo "--- failed results (details in $out/node<i>.log):"
	cat "$out"/node[0-9]*.results 2>/dev/null | grep '^RESULT .* ok=0\( \|$\)'
fi
[ "$nres" -gt 0 ] || reasons+=("no RESULT at all")

echo "=== $nres result(s), $nfail failed, ${elapsed}s, output in $out"
if [ "${#reasons[@]}" -eq 0 ]; then
	echo "vm: PASS ($nres results)"
	exit 0
fi
msg=$(printf '%s; ' "${reasons[@]}")
# A bad boot proves nothing either way: tests/run-guest-suite.sh runs
# again a test whose guest failed before krdma was loaded (exit 75), but
# only when nothing else failed - no report after the load, and no
# failed result but the harness's and the barriers that waited for the
# guest that never came. Any other failure stands.
other=$(cat "$out"/node[0-9]*.results 2>/dev/null | grep '^RESULT .* ok=0\( \|$\)' |
	grep -v -E ' name=(barrier|vm)\.' | head -n 1)
case $msg in
*"before krdma was loaded"*)
	case $msg in
	*"kernel problem report in"* | *"kernel log was cleared"*) ;;
	*)
		if [ -z "$other" ]; then
			echo "vm: FAIL (boot): ${msg%; }"
			exit 75
		fi
		;;
	esac
	;;
esac
echo "vm: FAIL: ${msg%; }"
exit 1
