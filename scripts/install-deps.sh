#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Install every Debian package krdma needs to build and test. Idempotent:
# only missing packages are installed, and apt is not touched when none is.
set -eu

PKGS="build-essential pkg-config kmod cpio busybox-static
qemu-system-x86 linux-image-amd64 linux-headers-amd64
rdma-core ibverbs-utils rdmacm-utils perftest iproute2 iperf3
libnl-3-dev libnl-genl-3-dev libjson-c-dev
sparse python3 python3-yaml linux-source-6.1 dkms"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	echo "deps: all packages present"
	exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "deps: installing$missing"
$SUDO apt-get update -q
# shellcheck disable=SC2086 # word splitting of the package list is wanted
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $missing
