#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Install every Debian package krdma needs to build and test, and the guest
# kernels: Debian 12's 6.1 and the 6.12 LTS from bookworm-backports (image
# and headers), and linux-source-6.12 for the kernel's YNL schemas
# (tests/spec/check-ynl-schema.py). Idempotent: only what is missing is
# installed.
#
#   scripts/install-deps.sh [SERIES...]     (default: 6.1 6.12)
#
# SERIES: 6.1, 6.12, or 6.1-rt (Debian 12's PREEMPT_RT flavour).
set -eu
here=$(cd "$(dirname "$0")" && pwd -P)
series=${*:-6.1 6.12}

PKGS="build-essential pkg-config kmod cpio busybox-static util-linux
qemu-system-x86 rdma-core ibverbs-utils rdmacm-utils perftest iproute2 iperf3
libnl-3-dev libnl-genl-3-dev libjson-c-dev librdmacm-dev libibverbs-dev
sparse python3 python3-yaml python3-docutils linux-source-6.1 dkms groff-base
debhelper dh-dkms lintian vde2 python3-matplotlib xz-utils zstd
python3-jsonschema"
# The kernel source whose Documentation/netlink/genetlink-legacy.yaml
# tests/spec/check-ynl-schema.py extracts (150 MB, about 10 s). Debian 12 has
# it in bookworm-security and in bookworm-backports (which the 6.12 series
# enables below): installed after the kernels, from whichever has it.
SCHEMA_PKGS="linux-source-6.12"

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
updated=""
apt_update() {
	[ -n "$updated" ] || $SUDO apt-get update -q
	updated=1
}

# install_missing PKG...: those not installed yet.
install_missing() {
	missing=""
	for p in "$@"; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
			missing="$missing $p"
		fi
	done
	[ -n "$missing" ] || return 0
	echo "deps: installing$missing"
	apt_update
	# shellcheck disable=SC2086 # word splitting of the package list is wanted
	$SUDO apt-get install -y -q $missing
}

# shellcheck disable=SC2086 # word splitting of the package list is wanted
install_missing $PKGS

for s in $series; do
	case $s in
	*-rt) ver=${s%-rt} flav=rt-amd64 ;;
	*) ver=$s flav=amd64 ;;
	esac
	if "$here/guest-kver.sh" "$ver" "$flav" >/dev/null; then
		echo "deps: kernel $s: $("$here/guest-kver.sh" "$ver" "$flav")"
		continue
	fi
	case $s in
	6.1-rt)
		apt_update
		$SUDO apt-get install -y -q linux-image-rt-amd64/bookworm \
			linux-headers-rt-amd64/bookworm
		;;
	6.1)
		apt_update
		$SUDO apt-get install -y -q --allow-downgrades \
			linux-image-amd64/bookworm linux-headers-amd64/bookworm
		;;
	6.12)
		list=/etc/apt/sources.list.d/krdma-backports.sources
		if ! grep -rqs bookworm-backports /etc/apt/sources.list /etc/apt/sources.list.d/; then
			printf '%s\n' "Types: deb" "URIs: http://deb.debian.org/debian" \
				"Suites: bookworm-backports" "Components: main" \
				"Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" |
				$SUDO tee "$list" >/dev/null
			updated=""
		fi
		apt_update
		$SUDO apt-get install -y -q -t bookworm-backports \
			linux-image-amd64 linux-headers-amd64
		;;
	*)
		echo "deps: unknown kernel series $s (6.1 or 6.12)" >&2
		exit 1
		;;
	esac
	"$here/guest-kver.sh" "$ver" "$flav" >/dev/null ||
		{ echo "deps: kernel $s not usable" >&2; exit 1; }
done
# shellcheck disable=SC2086 # word splitting of the package list is wanted
install_missing $SCHEMA_PKGS
echo "deps: all packages present"
