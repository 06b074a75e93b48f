#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# chain.sh TEST.sh... - several guest tests in one boot, one after the
# other, each in a shell of its own as the harness would run it alone.
# A debug guest takes about 240 s to boot under TCG: CI's debug step
# boots once for all of its tests (scripts/ci-kernel.sh, "a+b+c").
# Both nodes end a test before either starts the next; each test's exit
# is a result of its own (chain.NAME), and the chain fails if any test
# did. The module's counters are reset before each test. The harness
# scans the kernel log of the whole boot, as for one.
. "$KRDMA_ROOT/tests/vm/lib.sh"
# peer-death.sh ends by powering node 2 off: no barrier after it can be
# met (node 1 waited out the 900 s of chain.peer-death_done). Alone only.
for t; do
	if [ "$(basename "$t" .sh)" = peer-death ]; then
		result chain.peer-death fail "peer-death powers node 2 off: run it alone, not in a chain"
		exit 1
	fi
done
rc=0
for t; do
	name=$(basename "$t" .sh)
	log "chain: $name"
	# The module-wide counters as a fresh load has them: a test that
	# reads them (multi-qp's no_errors) must not count the protocol
	# errors the tests before it caused (hostile-peer's, on purpose).
	krdmactl stats reset 2>/dev/null
	sh "$t"
	r=$?
	if [ $r -eq 0 ]; then
		result "chain.$name" ok
	else
		result "chain.$name" fail "rc=$r"
		rc=1
	fi
	barrier "chain.${name}_done" 900 || rc=1
done
exit $rc
