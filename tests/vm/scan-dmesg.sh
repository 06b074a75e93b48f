#!/bin/sh
# scan-dmesg.sh [-q] FILE... - look for kernel problem reports in dmesg logs.
#
# Prints every offending line as FILE:LINE: text, with context (3 lines
# before, 12 after), and exits 1 if any was found, 0 if none, 2 on a usage
# error or an unreadable file.  -q: print nothing, only the exit status.
#
# Offending: BUG: WARNING: Oops KASAN: kmemleak "unreferenced object"
# "RCU stall" "rcu_sched self-detected" "hung task" "blocked for more than"
# lockdep reports, "sleeping function called from invalid context",
# "general protection fault", "Call Trace:", "Kernel panic", "detected
# stall" (rcu_preempt/rcu_sched), "hard LOCKUP", UBSAN: and taint (lower case).
# Ignored: the expected out-of-tree/unsigned module taint messages, benign
# boot lines of a debug kernel, and lines matching the extended regular
# expression in $SCAN_DMESG_IGNORE (if set).
#
# A test that makes a WARN fire on purpose (the DMA ownership checker)
# brackets it in the kernel log, never clears the log:
#   echo "krdma-expect: warn-begin TEXT" >/dev/kmsg
#   ... echo "krdma-expect: warn-end" >/dev/kmsg
# In between, a WARNING whose line, or the WARN's message on the line just
# before it, holds TEXT is expected, and so is the rest of its report, to
# its "---[ end trace"; anything else there - another WARNING, a BUG,
# KASAN, lockdep - is reported as ever.

quiet=0
if [ "${1:-}" = -q ]; then
	quiet=1
	shift
fi
if [ $# -eq 0 ]; then
	echo "usage: $0 [-q] FILE..." >&2
	exit 2
fi

bad='BUG:|WARNING:|Oops|KASAN:|kmemleak|unreferenced object|RCU stall|rcu_sched self-detected|hung task|blocked for more than|possible circular locking|possible recursive locking|inconsistent lock state|sleeping function called from invalid context|general protection fault|Call Trace:|Kernel panic|detected stall|hard LOCKUP|UBSAN:|taint'
ignore='^krdma-guest\\[node[0-9]+\\]: |loading out-of-tree module taints kernel|module verification failed: signature and/or required key missing - tainting kernel|RCU lockdep checking is enabled|kmemleak: Kernel memory leak detector initialized|kmemleak: Automatic memory scanning thread'
if [ -n "${SCAN_DMESG_IGNORE:-}" ]; then
	ignore="$ignore|$SCAN_DMESG_IGNORE"
fi

status=0
for f in "$@"; do
	if [ ! -r "$f" ]; then
		echo "scan-dmesg: cannot read $f" >&2
		status=2
		continue
	fi
	awk -v bad="$bad" -v ign="$ignore" -v file="$f" -v quiet="$quiet" '
		{ line[NR] = $0 }
		/krdma-expect: warn-begin ./ {
			text = $0; sub(/.*krdma-expect: warn-begin /, "", text)
			next
		}
		/krdma-expect: warn-end/ { text = ""; expected = 0; next }
		expected { if ($0 ~ /---\[ end trace/) expected = 0; next }
		text != "" && /WARNING:/ && (index($0, text) || index(line[NR - 1], text)) {
			expected = 1; next
		}
		{ if ($0 ~ bad && $0 !~ ign) hit[NR] = 1 }
		END {
			n = 0; last = 0
			for (i = 1; i <= NR; i++) {
				if (!(i in hit)) continue
				n++
				if (quiet) continue
				from = i - 3; if (from <= last) from = last + 1; if (from < 1) from = 1
				if (from > last + 1 && last > 0) print "--"
				to = i + 12; if (to > NR) to = NR
				for (j = from; j <= to; j++) {
					if (j <= last) continue
					printf "%s:%d:%s %s\n", file, j, (j in hit) ? "!" : " ", line[j]
				}
				last = to
			}
			exit(n > 0)
		}' "$f"
	rc=$?
	[ "$rc" -eq 0 ] || [ "$status" -eq 2 ] || status=$rc
done
exit "$status"
