#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# checkpatch.pl --strict over the module and the uapi header. Debian's
# kernel headers do not ship checkpatch.pl: it is taken from the kernel
# tree in $KSRC, or extracted once from linux-source-6.1 (make deps).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd -P)
cache=${KRDMA_CACHE:-/var/tmp/krdma-checkpatch}
if [ -n "${KSRC:-}" ]; then
	cp="$KSRC/scripts/checkpatch.pl"
else
	cp="$cache/linux-source-6.1/scripts/checkpatch.pl"
	if [ ! -x "$cp" ]; then
		tarball=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n 1)
		if [ -z "$tarball" ]; then
			echo "checkpatch: no kernel source; run 'make deps' (linux-source-6.1) or set KSRC=" >&2
			exit 1
		fi
		mkdir -p "$cache"
		tar -C "$cache" -xf "$tarball" linux-source-6.1/scripts/checkpatch.pl \
			linux-source-6.1/scripts/spelling.txt \
			linux-source-6.1/scripts/const_structs.checkpatch
	fi
fi
cd "$top"
files=$(ls kmod/*.c kmod/*.h include/*.h include/uapi/linux/krdma.h | grep -v '\.mod\.c$')
# shellcheck disable=SC2086 # the file list is split on purpose
out=$("$cp" --no-tree --strict --terse --show-types -f $files) || true
bad=$(printf '%s\n' "$out" | grep -v '^total: 0 errors, 0 warnings, 0 checks' || true)
if [ -n "$bad" ]; then
	printf '%s\n' "$bad"
	echo "checkpatch: FAIL"
	exit 1
fi
echo "checkpatch: clean ($(echo "$files" | wc -w) files)"
