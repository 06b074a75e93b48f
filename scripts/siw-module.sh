#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# siw-module.sh KVER: builds siw.ko (Soft-iWARP) for kernel KVER and prints
# its path. Debian's kernels do not build siw (CONFIG_RDMA_SIW is not set
# in 6.1 or 6.12), but its sources are in linux-source-<series>: only
# drivers/infiniband/sw/siw is taken from the tarball (installed with apt
# if missing) and built against /lib/modules/KVER/build. The module is
# cached next to the guests' initramfs, /var/tmp/krdma-vm/KVER/, and built
# again when the sources, the headers or this script change.
#
# The series' own sources are needed: 6.1's siw does not build against
# 6.12's headers (the verbs' create_cq() changed its arguments).
set -eu

kver=${1:?usage: siw-module.sh KVER}
kdir=/lib/modules/$kver/build
[ -d "$kdir" ] || { echo "siw-module: no kernel build tree $kdir" >&2; exit 1; }

# 6.1.0-50-amd64 -> 6.1, 6.12.95+deb12-amd64 -> 6.12
series=$(echo "$kver" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
tarball=/usr/src/linux-source-$series.tar.xz
if [ ! -f "$tarball" ]; then
	echo "siw-module: installing linux-source-$series for $tarball" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "linux-source-$series" >&2 ||
		{ echo "siw-module: cannot install linux-source-$series" >&2; exit 1; }
fi

key=$(
	{
		echo "format 1 $kver"
		sha256sum <"$0"
		stat -L -c '%n %s %Y' "$tarball" "$kdir/Module.symvers" "$kdir/.config"
	} | sha256sum | cut -c1-16
)
cachedir=/var/tmp/krdma-vm/$kver
ko=$cachedir/siw-$key.ko
if [ -s "$ko" ]; then
	echo "$ko"
	exit 0
fi

echo "siw-module: building siw.ko for $kver from $tarball -> $ko" >&2
mkdir -p "$cachedir"
tmp=$(mktemp -d "$cachedir/siw-build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar -xJf "$tarball" -C "$tmp" --strip-components=4 \
	"linux-source-$series/drivers/infiniband/sw/siw"
[ -f "$tmp/siw/Makefile" ] || { echo "siw-module: no siw sources in $tarball" >&2; exit 1; }
make -s -C "$kdir" M="$tmp/siw" CONFIG_RDMA_SIW=m modules >&2
mv -f "$tmp/siw/siw.ko" "$ko"
echo "$ko"
