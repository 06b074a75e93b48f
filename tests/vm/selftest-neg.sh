#!/bin/sh
# selftest-neg.sh MODE - guest script that must make run.sh FAIL (used by
# harness-selftest.sh).  Every mode but noresult records one ok result, so
# that only the intended problem can fail the run.
#   warn      write a fake kernel WARNING to /dev/kmsg, exit 0
#   clear     clear the kernel log (dmesg -C), exit 0: the scan would be blind
#   exit1     exit 1
#   result    record a failed result, exit 0
#   noresult  record nothing, exit 0
#   hang      sleep forever (run with a short -t)
#   crash     panic with kernel.panic=0: the guest hangs, the host must kill it
#   barrier   node 1 waits at a barrier the others never reach (10 s)
#   die       node 2 panics (the guest ends, no exit code), node 1 hangs:
#             the host must stop node 1 soon, not at the time limit

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$KRDMA_ROOT/tests/vm/lib.sh"

mode=${1:?usage: selftest-neg.sh warn|clear|exit1|result|noresult|hang|crash|barrier|die}
[ "$mode" = noresult ] || result "neg.$mode.setup" ok
case $mode in
warn) echo "WARNING: CPU: 0 PID: 1 at fake" >/dev/kmsg ;;
clear) dmesg -C ;;
exit1) exit 1 ;;
result) result neg.result fail reason=on_purpose ;;
noresult) ;;
hang) while :; do sleep 1; done ;;
crash)
	echo 0 >/proc/sys/kernel/panic
	echo c >/proc/sysrq-trigger
	;;
barrier) [ "$KRDMA_NODE" -ne 1 ] || barrier never 10 ;;
die)
	if [ "$KRDMA_NODE" -eq 2 ]; then
		echo 1 >/proc/sys/kernel/panic
		echo c >/proc/sysrq-trigger
	fi
	while :; do sleep 1; done
	;;
*) echo "unknown mode $mode" >&2; exit 2 ;;
esac
exit 0
