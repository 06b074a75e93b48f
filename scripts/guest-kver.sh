#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Prints the newest installed kernel of series $1 (6.1, 6.12) and Debian
# flavour $2 (amd64, rt-amd64, cloud-amd64) that has an image in /boot and
# a module build tree: the guests' kernel.
series=${1:-6.1}
flavour=${2:-amd64}
re="^$(echo "$series" | sed 's/\./\\./g')\.[0-9]+(-[0-9]+)?(\+deb[0-9]+)?-$flavour\$"
for k in $(ls /boot/vmlinuz-* 2>/dev/null | sed 's|/boot/vmlinuz-||' | grep -E "$re" | sort -V -r); do
	[ -d "/lib/modules/$k/build" ] && { echo "$k"; exit 0; }
done
exit 1
