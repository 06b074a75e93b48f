#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Builds krdma (W=1, warnings fail) for another guest kernel in a copy of
# the tree, and runs guest tests on it:
#
#   scripts/ci-kernel.sh SERIES FLAVOUR [TEST...]
#   scripts/ci-kernel.sh 6.12 amd64 transfer        (default TEST: all)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd -P)
series=$1 flavour=$2
shift 2
kver=$("$top/scripts/guest-kver.sh" "$series" "$flavour") ||
	{ echo "ci-kernel: no $series $flavour kernel (scripts/install-deps.sh)" >&2; exit 1; }
work=${KRDMA_CI_WORK:-/var/tmp/krdma-ci}/$kver
rm -rf "$work"
mkdir -p "$work"
git -C "$top" ls-files -z | (cd "$top" && xargs -0 tar -cf -) | tar -C "$work" -xf -
echo "ci-kernel: building for $kver in $work"
make -C "$work" W=1 KVER="$kver" >"$work.build.log" 2>&1 ||
	{ tail -n 30 "$work.build.log"; exit 1; }
tests=""
for t in "$@"; do
	tests="$tests $work/tests/guest/$t.sh"
done
# shellcheck disable=SC2086 # the test list is split on purpose
KRDMA_ROOT=$work KERNEL=$kver "$work/tests/run-guest-suite.sh" $tests
