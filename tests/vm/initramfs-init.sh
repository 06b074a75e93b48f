#!/bin/sh
# /init of the krdma test initramfs (runs under busybox as PID 1).
#
# Loads the modules listed in /modules.list (in dependency order, built by
# run.sh from `modprobe --show-depends`), mounts the host's / read-only over
# 9p (mount_tag=host), puts a tmpfs overlay on top and switch_roots into it,
# then runs the guest wrapper named by krdma_init= on the kernel command line.
# Anything failing here powers the guest off; the host then reports the node
# as failed (no .rc file) and keeps the serial console log.

/bin/busybox --install -s /bin 2>/dev/null
export PATH=/bin

say() { echo "krdma-initramfs: $*" >/dev/console; }
die() {
	say "FATAL: $*"
	sync
	poweroff -f
	echo o >/proc/sysrq-trigger
	sleep 5
	exit 1
}

mkdir -p /proc /sys /dev /host /rw /newroot
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null

# Modules may be absent (a kernel with everything built in): failures are
# harmless here, a missing feature shows up as a failed mount below.
if [ -f /modules.list ]; then
	while read -r ko; do
		[ -n "$ko" ] || continue
		insmod "$ko" 2>/dev/null
	done </modules.list
fi

init=
node=
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case $arg in
	krdma_init=*) init=${arg#krdma_init=} ;;
	krdma_node=*) node=${arg#krdma_node=} ;;
	esac
done
[ -n "$init" ] || die "no krdma_init= on the kernel command line"

# The virtio devices normally appear synchronously when virtio_pci loads;
# retry a little (bounded) in case probing is deferred.
i=0
until mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose host /host 2>/dev/null; do
	i=$((i + 1))
	[ "$i" -lt 40 ] || die "cannot mount the host root over 9p (mount_tag=host)"
	sleep 0.25
done
mount -t tmpfs -o mode=0755 tmpfs /rw || die "tmpfs"
mkdir -p /rw/u /rw/w
mount -t overlay -o lowerdir=/host,upperdir=/rw/u,workdir=/rw/w overlay /newroot ||
	die "cannot mount the overlay root"
for d in proc sys dev; do
	mount --move "/$d" "/newroot/$d" || die "cannot move /$d"
done
[ -f "/newroot$init" ] || die "guest wrapper $init not found in the host root"
say "node $node: switching root, running $init"
# shellcheck disable=SC2093 # only reached if exec fails
exec switch_root /newroot /bin/sh "$init"
die "switch_root failed"
