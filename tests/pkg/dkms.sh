#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# DKMS can rebuild krdma for the installed guest kernel: add a clean copy
# of the tree, build, check the module, remove it again; and skips a
# kernel without the options it needs (dkms-exclusive.sh).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd -P)
kver=${KVER:-$(make -s -C "$top" kver)}
ver=$(cat "$top/VERSION")
src=/usr/src/krdma-$ver
command -v dkms >/dev/null || { echo "dkms: not installed (make deps)"; exit 1; }
# First what dkms.conf excludes, in DKMS trees of its own.
KVER=$kver "$top/tests/pkg/dkms-exclusive.sh"

cleanup() {
	dkms remove "krdma/$ver" --all >/dev/null 2>&1 || true
	rm -rf "$src"
}
trap cleanup EXIT
cleanup
mkdir -p "$src"
# Only what a release tarball would hold: tracked files, no build output.
git -C "$top" ls-files -z | (cd "$top" && xargs -0 tar -cf - ) | tar -C "$src" -xf -
make -s -C "$src" dkms.conf
grep -q "^PACKAGE_VERSION=\"$ver\"" "$src/dkms.conf" || { echo "dkms: FAIL: dkms.conf not of version $ver"; exit 1; }

dkms add "krdma/$ver"
dkms build "krdma/$ver" -k "$kver"
ko=$(find "/var/lib/dkms/krdma/$ver/$kver" -name 'krdma.ko*' | head -n 1)
if [ -z "$ko" ]; then
	echo "dkms: FAIL: no krdma.ko built for $kver"
	exit 1
fi
modinfo "$ko" | grep -q "^version: *$ver" || { echo "dkms: FAIL: wrong module version"; exit 1; }
echo "dkms: PASS: built $ko for $kver"
