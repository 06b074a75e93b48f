#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Prints the newest installed kernel of series $1 (e.g. 6.1, 6.12) that has
# both an image in /boot and a module build tree: the guests' kernel.
series=${1:-6.1}
for k in $(ls /boot/vmlinuz-* 2>/dev/null | sed 's|/boot/vmlinuz-||' | sort -V -r); do
	case $k in
	"$series".*) [ -d "/lib/modules/$k/build" ] && { echo "$k"; exit 0; } ;;
	esac
done
exit 1
