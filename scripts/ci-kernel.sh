#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Builds krdma (W=1, warnings fail) for another guest kernel in a copy of
# the tree, and runs guest tests on it:
#
#   scripts/ci-kernel.sh SERIES FLAVOUR [TEST...]
#   scripts/ci-kernel.sh 6.12 amd64 transfer        (default TEST: all)
#   scripts/ci-kernel.sh debug - [TEST...]
#
# A TEST of names joined by + (alloc-faults+multi-qp) runs them one after
# the other in one boot of the guests (tests/vm/chain.sh): a debug
# guest's boot alone takes about 240 s.
#
# "debug" is the KASAN + lockdep + kmemleak kernel of scripts/debug-kernel.sh
# (DEBUG_KERNEL=<dir> uses a prebuilt one); tests then run with KRDMA_SLOW=1
# (smaller counts) and a longer time limit.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd -P)
series=$1 flavour=$2
shift 2
if [ "$series" = debug ]; then
	eval "$("$top/scripts/debug-kernel.sh")"
	kver=debug
	build="KDIR=$KDIR"
	export KERNEL_IMAGE="$BZIMAGE" KRDMA_SLOW=1
	# A dead peer is found within 10 s on a real host (peer_timeout_ms
	# 9000); the debug kernel is about 25 times slower, and a READ-heavy
	# test over 4 QPs (multi-qp.sh, bw.read.qps4) left an alive peer
	# silent for 10.6 s: the server closed the session. peer-death.sh's
	# bound reads the parameter.
	# Its ACKs come late for the same reason: with ack_timeout 18
	# (1.07 s) multi-qp.sh's bw.write.bidir (4 QPs, 64 KiB, both ways)
	# met two spurious retransmission timeouts in a row and rxe's
	# requester lost its place ("remote invalid request", a thousand
	# duplicate requests counted; design.rst, "Dead peers"): 22 (17 s)
	# there, as 18 is for the 25 times faster Debian kernel. No wire
	# here loses a packet, so the longer wait costs nothing.
	# A test's stall timer (stall_ms, 30 s) must then outlast two
	# retransmission timeouts in a row, 34.4 s: multi-qp.sh's
	# big.bw.send.qps4 (1 MiB SENDs over 4 QPs) ended there "no progress
	# for 30000 ms" after 4 messages, its CPUs 73% idle (waiting on a
	# timer, not working), the responder's device counting duplicate
	# requests (7: the requester retransmitted). 60 s holds three.
	KRDMA_MODPARAMS="${KRDMA_MODPARAMS:+$KRDMA_MODPARAMS }peer_timeout_ms=30000 ack_timeout=22 stall_ms=60000"
	export KRDMA_MODPARAMS
	export KRDMA_SUITE_TIMEOUT="${KRDMA_SUITE_TIMEOUT:-2400}"
else
	kver=$("$top/scripts/guest-kver.sh" "$series" "$flavour") ||
		{ echo "ci-kernel: no $series $flavour kernel (scripts/install-deps.sh)" >&2; exit 1; }
	build="KVER=$kver"
	export KERNEL="$kver"
fi
work=${KRDMA_CI_WORK:-/var/tmp/krdma-ci}/$kver
rm -rf "$work"
mkdir -p "$work"
git -C "$top" ls-files -z | (cd "$top" && xargs -0 tar -cf -) | tar -C "$work" -xf -
echo "ci-kernel: building for $kver in $work"
make -C "$work" W=1 "$build" all hostile >"$work.build.log" 2>&1 ||
	{ tail -n 30 "$work.build.log"; exit 1; }
# Modules the kernel lacks and a test loads itself (netem, for peer-death,
# on a debug kernel built without it): kmod/extra/ in the guest's view.
if [ -n "${EXTRA_MODULES:-}" ]; then
	mkdir -p "$work/kmod/extra"
	cp "$EXTRA_MODULES"/*.ko "$work/kmod/extra/"
fi
# Tests by name, from tests/guest/ or (debug kernel only) tests/guest-debug/.
if [ $# -eq 0 ] && [ "$series" = debug ]; then
	set -- $(cd "$work/tests" && ls guest/*.sh guest-debug/*.sh | sed 's|.*/||; s|\.sh$||')
fi
# test_path NAME: the guest test of that name.
test_path() {
	if [ -f "$work/tests/guest/$1.sh" ]; then
		echo "$work/tests/guest/$1.sh"
	else
		echo "$work/tests/guest-debug/$1.sh"
	fi
}
tests=""
for t in "$@"; do
	case $t in
	*+*)
		# One boot for several: a script that chains them, named after them.
		mkdir -p "$work/tests/chain"
		chain=$work/tests/chain/$t.sh
		printf '#!/bin/sh\nexec sh "$KRDMA_ROOT/tests/vm/chain.sh"' >"$chain"
		for c in $(echo "$t" | tr + ' '); do
			[ -f "$(test_path "$c")" ] || { echo "ci-kernel: no guest test $c" >&2; exit 1; }
			printf ' %s' "$(test_path "$c")" >>"$chain"
		done
		echo >>"$chain"
		tests="$tests $chain"
		;;
	*) tests="$tests $(test_path "$t")" ;;
	esac
done
# shellcheck disable=SC2086 # the test list is split on purpose
KRDMA_ROOT=$work "$work/tests/run-guest-suite.sh" $tests
