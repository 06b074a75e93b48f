#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# krdma's KUnit cases (kmod/kunit.c), built on a kernel with CONFIG_KUNIT
# (the debug kernel) and run as the module loads: both nodes read their
# KTAP report in the kernel log and fail on a case that failed, a case
# missing, or no report at all - a module built without them fails here
# rather than passing with nothing run.
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
CASES="krdma_kunit_op_table krdma_kunit_op_supported krdma_kunit_sges_part krdma_kunit_check_imm krdma_kunit_wire_regions krdma_kunit_test_moves krdma_kunit_peer_moves krdma_kunit_params_defaults krdma_kunit_params_check"
# The kernel log from the harness's load on, without timestamps: the
# whole KTAP report (debugfs kunit/krdma/results keeps 512 bytes a case
# on 6.1, and a failing case's own line was lost there).
K=/tmp/kunit.ktap
dmesg | sed -n '/krdma-harness: insmod krdma/,$p' | sed 's/^\[[^]]*\] //' >$K

if ! grep -Eq '^[[:space:]]*# Subtest: krdma$' $K; then
	result kunit.report fail "no_KUnit_report_of_krdma_in_the_kernel_log"
	exit 0
fi
sed -n '/# Subtest: krdma$/,/ok [0-9]* krdma$/p' $K
for c in $CASES; do
	if grep -Eq "^[[:space:]]*ok [0-9]+ (- )?$c\$" $K; then
		result "kunit.$c" ok
	else
		result "kunit.$c" fail "$(grep -E "not ok [0-9]+ $c|$c: EXPECTATION" $K | head -n 1 | tr ' ' '_')"
	fi
done
if grep -Eq '^[[:space:]]*# krdma: pass:[0-9]+ fail:0 ' $K &&
   ! grep -Eq '^[[:space:]]*not ok' $K; then
	result kunit.none_failed ok "$(grep -E '# krdma: pass:' $K | tr ' ' '_')"
else
	result kunit.none_failed fail "$(grep -E '# krdma: pass:' $K | tr ' ' '_')"
fi
