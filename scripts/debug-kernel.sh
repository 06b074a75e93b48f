#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Makes sure a debug guest kernel (KASAN, lockdep, kmemleak, failslab; the
# RDMA stack and rxe built in) and its module build tree exist, and prints
# where:  BZIMAGE=<path> KDIR=<path> EXTRA_MODULES=<dir or empty>
#
#   scripts/debug-kernel.sh
#
# DEBUG_KERNEL=<dir>: use <dir>/bzImage and <dir>/kbuild-tree.tgz as they
# are (a prebuilt cache, may be read-only). Otherwise the kernel is built
# once from Debian's linux-source-6.1 with scripts/debug-kernel.config
# under $KRDMA_DEBUG_WORK (default /var/tmp/krdma-debug): 20-40 min on 2
# cores, ~6 GiB of disk.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd -P)
work=${KRDMA_DEBUG_WORK:-/var/tmp/krdma-debug}
mkdir -p "$work"

if [ -n "${DEBUG_KERNEL:-}" ]; then
	src=$(cd "$DEBUG_KERNEL" && pwd -P)
	[ -f "$src/bzImage" ] && [ -f "$src/kbuild-tree.tgz" ] || {
		echo "debug-kernel: $src has no bzImage and kbuild-tree.tgz" >&2
		exit 1
	}
else
	src=$work/kernel
	if [ ! -f "$src/bzImage" ] || [ ! -f "$src/kbuild-tree.tgz" ] ||
	   [ "$top/scripts/debug-kernel.config" -nt "$src/bzImage" ]; then
		echo "debug-kernel: building the debug kernel in $work (20-40 min)" >&2
		apt-get install -y -q linux-source-6.1 bc flex bison libelf-dev \
			libssl-dev dwarves >/dev/null
		mkdir -p "$src"
		cd "$work"
		[ -d linux-source-6.1 ] || tar -xJf /usr/src/linux-source-6.1.tar.xz
		cd linux-source-6.1
		make -s x86_64_defconfig
		make -s kvm_guest.config
		./scripts/kconfig/merge_config.sh -m .config \
			"$top/scripts/debug-kernel.config" >/dev/null
		make -s olddefconfig
		make -s -j"$(nproc)" bzImage modules
		# What an out-of-tree module build needs (make -C <tree> M=<dir>).
		{ find . \( -name 'Makefile*' -o -name 'Kconfig*' -o -name 'Kbuild*' \) \
			-not -path './Documentation/*'
		  find arch/x86/include include scripts -type f
		  echo .config; echo Module.symvers; echo tools/objtool/objtool
		  find arch/x86 -name '*.lds'; } | sort -u |
			tar czf "$src/kbuild-tree.tgz" -T -
		cp .config "$src/config"
		cp arch/x86/boot/bzImage "$src/bzImage"
	fi
fi

# The build tree, extracted again whenever the archive changes.
tree=$work/tree
stamp=$(cksum <"$src/kbuild-tree.tgz")
if [ "$(cat "$tree.stamp" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$tree"
	mkdir -p "$tree"
	tar -xzf "$src/kbuild-tree.tgz" -C "$tree"
	echo "$stamp" >"$tree.stamp"
fi
# peer-death silences its peer with the netem qdisc. A kernel built from
# an older scripts/debug-kernel.config (the prebuilt one in ../shared is)
# lacks it: build it as a module from the same Debian source against the
# tree (the kernel has CONFIG_NET_SCHED; every symbol netem uses is
# exported, Debian's own kernels have it as a module), so the prebuilt
# kernel runs the whole suite without a 40-min rebuild.
extra=""
if ! grep -Eq '^CONFIG_NET_SCH_NETEM=[ym]' "$tree/.config"; then
	extra=$tree/extra
	if [ ! -f "$extra/sch_netem.ko" ]; then
		echo "debug-kernel: building sch_netem.ko against $tree" >&2
		[ -f /usr/src/linux-source-6.1.tar.xz ] ||
			apt-get install -y -q linux-source-6.1 >/dev/null
		rm -rf "$extra"
		mkdir -p "$extra"
		tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$extra" \
			--strip-components=3 linux-source-6.1/net/sched/sch_netem.c
		echo 'obj-m := sch_netem.o' >"$extra/Kbuild"
		make -s -C "$tree" M="$extra" modules >"$extra/build.log" 2>&1 || {
			cat "$extra/build.log" >&2
			exit 1
		}
	fi
fi
# netns.sh puts rxe on a veth pair; the prebuilt kernel has no veth
# either: built the same way (it exports all veth needs).
if ! grep -Eq '^CONFIG_VETH=[ym]' "$tree/.config"; then
	extra=$tree/extra
	if [ ! -f "$extra/veth.ko" ]; then
		echo "debug-kernel: building veth.ko against $tree" >&2
		[ -f /usr/src/linux-source-6.1.tar.xz ] ||
			apt-get install -y -q linux-source-6.1 >/dev/null
		mkdir -p "$extra/veth"
		tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$extra/veth" \
			--strip-components=3 linux-source-6.1/drivers/net/veth.c
		echo 'obj-m := veth.o' >"$extra/veth/Kbuild"
		make -s -C "$tree" M="$extra/veth" modules >"$extra/veth/build.log" 2>&1 || {
			cat "$extra/veth/build.log" >&2
			exit 1
		}
		cp "$extra/veth/veth.ko" "$extra/"
	fi
fi
echo "BZIMAGE=$src/bzImage KDIR=$tree EXTRA_MODULES=$extra"
