#!/bin/bash
# harness-selftest.sh [-s] - check that the VM harness catches failures.
#
# 1. scan-dmesg.sh on small fixtures (no VM; -s: only this part).
# 2. run.sh with tests/vm/selftest-neg.sh in every failure mode must exit
#    non-zero with "vm: FAIL: <expected reason>", and leave no qemu behind;
#    a SIGTERM to run.sh must kill its guests; the 1-guest selftest passes.
# Exits 0 if all checks pass.  Takes a few minutes under TCG.

set -u
here=$(cd "$(dirname "$0")" && pwd -P) || exit 2
scan=$here/scan-dmesg.sh
run=$here/run.sh
export KRDMA_NO_LOAD=1
tmp=$(mktemp -d /tmp/krdma-harness-selftest.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT
pass=0
failn=0

ok() { pass=$((pass + 1)); echo "ok   - $*"; }
notok() { failn=$((failn + 1)); echo "FAIL - $*"; }

# --- 1. dmesg scanner -------------------------------------------------------
scan_case() {	# scan_case WANT_RC DESC LINE...
	local want=$1 desc=$2 rc
	shift 2
	printf '%s\n' "[    1.000000] boot line" "$@" "[    9.000000] after" >"$tmp/d"
	"$scan" -q "$tmp/d"
	rc=$?
	if [ "$rc" -eq "$want" ]; then ok "scan: $desc"; else notok "scan: $desc (rc $rc, want $want)"; fi
}
scan_case 0 "clean log"
scan_case 0 "out-of-tree taint ignored" \
	"[    5.1] krdma: loading out-of-tree module taints kernel." \
	"[    5.2] krdma: module verification failed: signature and/or required key missing - tainting kernel"
scan_case 0 "debug-kernel boot lines ignored" \
	"[    0.1] RCU lockdep checking is enabled." \
	"[    0.2] kmemleak: Kernel memory leak detector initialized (mem pool available: 15777)" \
	"[    0.3] kmemleak: Automatic memory scanning thread started"
scan_case 0 "the harness's own console lines ignored" \
	"krdma-guest[node1]: kmemleak scan" \
	"krdma-guest[node2]: RESULT node=2 name=vm.kmemleak ok=1"
scan_case 1 "a kernel line after the harness's" \
	"krdma-guest[node1]: kmemleak scan" \
	"[   50.0] kmemleak: 1 new suspected memory leaks (see /sys/kernel/debug/kmemleak)"
scan_case 0 "Tainted: O alone" "[    7.0] CPU: 1 PID: 7 Comm: x Tainted: G           O       6.1.0 #1"
for l in "WARNING: CPU: 0 PID: 1 at fake" "BUG: kernel NULL pointer dereference, address: 0000000000000008" \
	"Oops: 0000 [#1] PREEMPT SMP NOPTI" "BUG: KASAN: use-after-free in krdma_foo+0x1/0x2" \
	"kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)" \
	"unreferenced object 0xffff888003a1b000 (size 64):" \
	"rcu: INFO: rcu_preempt self-detected stall on CPU" "rcu: INFO: rcu_sched detected stalls on CPUs/tasks:" \
	"INFO: task rmmod:123 blocked for more than 120 seconds." \
	"WARNING: possible circular locking dependency detected" \
	"BUG: sleeping function called from invalid context at kernel/locking/mutex.c:580" \
	"general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1]" \
	"Call Trace:" "Kernel panic - not syncing: sysrq triggered crash" \
	"watchdog: BUG: soft lockup - CPU#0 stuck for 27s! [kworker/0:1:42]" \
	"Disabling lock debugging due to kernel taint"; do
	scan_case 1 "detects: $l" "[    6.0] $l"
done
# A WARN fired on purpose, bracketed (dma-checker.sh): that one only.
warn_msg="krdma: cpu access of buffer slot[1] owned by device, expected cpu"
warn_fn="WARNING: CPU: 0 PID: 5 at kmod/mem.c:90 krdma_buf_walk+0x1/0x2 [krdma]"
scan_case 0 "expected WARN in its window, with its report" \
	"[    6.0] krdma-expect: warn-begin owned by device, expected cpu" \
	"[    6.05] $warn_msg" "[    6.1] $warn_fn" \
	"[    6.2] Call Trace:" "[    6.3]  <TASK>" "[    6.4] ---[ end trace 0000000000000000 ]---" \
	"[    6.5] krdma-expect: warn-end"
scan_case 1 "another WARN in the window" \
	"[    6.0] krdma-expect: warn-begin owned by device, expected cpu" \
	"[    6.05] krdma: something else" \
	"[    6.1] WARNING: CPU: 0 PID: 5 at x.c:1 other_fn+0x1/0x2" "[    6.5] krdma-expect: warn-end"
scan_case 1 "KASAN in the window" \
	"[    6.0] krdma-expect: warn-begin owned by device, expected cpu" \
	"[    6.1] BUG: KASAN: use-after-free in krdma_foo+0x1/0x2" "[    6.5] krdma-expect: warn-end"
scan_case 1 "the WARN after the window" \
	"[    6.0] krdma-expect: warn-begin owned by device, expected cpu" \
	"[    6.5] krdma-expect: warn-end" "[    6.55] $warn_msg" "[    6.6] $warn_fn"
scan_case 1 "a report left open at the window's end" \
	"[    6.0] krdma-expect: warn-begin owned by device, expected cpu" \
	"[    6.05] $warn_msg" "[    6.1] $warn_fn" \
	"[    6.5] krdma-expect: warn-end" "[    6.6] Call Trace:"
printf '%s\n' "[ 1.0] x" "[ 2.0] WARNING: CPU: 0 PID: 1 at fake" >"$tmp/d"
out=$("$scan" "$tmp/d")
case $out in
*"$tmp/d:2:! [ 2.0] WARNING: CPU: 0 PID: 1 at fake"*) ok "scan: prints FILE:LINE and context" ;;
*) notok "scan: output format: $out" ;;
esac
"$scan" "$tmp/nonexistent" 2>/dev/null
if [ $? -eq 2 ]; then ok "scan: unreadable file -> 2"; else notok "scan: unreadable file"; fi
if SCAN_DMESG_IGNORE='at fake$' "$scan" -q "$tmp/d"; then ok "scan: SCAN_DMESG_IGNORE"; else notok "scan: SCAN_DMESG_IGNORE"; fi

# --- 1b. the suite's KTAP, read by prove, with a fake runner ------------------
cat >"$tmp/runner" <<'EOF2'
#!/bin/sh
for a; do t=$a; done
echo "RESULT node=1 name=vm.load ok=1 params=x"
case $t in
*bad*) echo "RESULT node=2 name=step ok=0 reason=r"; echo "vm: FAIL: 1 failed result(s)"; exit 1 ;;
esac
echo "RESULT node=2 name=step ok=1"
echo "vm: PASS (2 results)"
EOF2
chmod +x "$tmp/runner"
KRDMA_SUITE_RUNNER=$tmp/runner KRDMA_SUITE_OUT=$tmp/suite \
	"$here/../run-guest-suite.sh" good.sh bad.sh >"$tmp/suite.tap" 2>&1
suite_rc=$?
if command -v prove >/dev/null; then
	prove --exec cat "$tmp/suite.tap" >"$tmp/prove.out" 2>&1
	if [ "$suite_rc" -ne 0 ] && grep -q 'Tests: 2 Failed: 1)' "$tmp/prove.out" &&
	   grep -q 'Failed test:  2$' "$tmp/prove.out" &&
	   grep -qx '    not ok 2 node2.step # reason=r' "$tmp/suite.tap"; then
		ok "suite: KTAP that prove reads (a test and its guests' results)"
	else
		notok "suite: KTAP (rc $suite_rc):"
		sed 's/^/#   /' "$tmp/suite.tap" "$tmp/prove.out"
	fi
fi

# A bad boot alone (run.sh exits 75) is run again, once, and said; a
# failure that also names a bad boot is not.
cat >"$tmp/runner-b" <<'EOF2'
#!/bin/sh
for a; do t=$a; done
o=$4
n=$(cat "$o.count" 2>/dev/null || echo 0)
echo $((n + 1)) >"$o.count"
echo "RESULT node=1 name=step ok=1"
case $t in
*boot*)
	[ "$n" -gt 0 ] && { echo "vm: PASS (1 results)"; exit 0; }
	echo "vm: FAIL (boot): node2: hung during boot, before krdma was loaded"; exit 75 ;;
esac
echo "vm: FAIL: node2: hung during boot, before krdma was loaded; 1 failed result(s)"
exit 1
EOF2
chmod +x "$tmp/runner-b"
KRDMA_SUITE_RUNNER=$tmp/runner-b KRDMA_SUITE_OUT=$tmp/suite-b \
	"$here/../run-guest-suite.sh" boot.sh real.sh >"$tmp/suite-b.tap" 2>&1
if grep -qx '# retried: boot: node2: hung during boot, before krdma was loaded' "$tmp/suite-b.tap" &&
   grep -qx 'ok 1 boot' "$tmp/suite-b.tap" && grep -qx 'not ok 2 real' "$tmp/suite-b.tap" &&
   [ "$(cat "$tmp/suite-b/real.count")" = 1 ] &&
   grep -q '1 passed, 1 failed, 1 retried after a bad boot' "$tmp/suite-b.tap"; then
	ok "suite: a bad boot alone is retried once and said; a real failure is not retried"
else
	notok "suite: retries:"
	sed 's/^/#   /' "$tmp/suite-b.tap"
fi

# A deadline: the test that fits gets only what is left; one that does not
# is failed as not run, not started.
cat >"$tmp/runner-t" <<'EOF2'
#!/bin/sh
echo "RESULT node=1 name=tmo ok=1 t=$2"
echo "vm: PASS (1 results)"
EOF2
chmod +x "$tmp/runner-t"
KRDMA_SUITE_RUNNER=$tmp/runner-t KRDMA_SUITE_OUT=$tmp/suite-dl KRDMA_SUITE_TIMEOUT=1500 \
	KRDMA_SUITE_DEADLINE=$(($(date +%s) + 600)) \
	"$here/../run-guest-suite.sh" a.sh >"$tmp/suite-dl.tap" 2>&1
dl_rc=$?
t=$(sed -n 's/^    ok 1 node1.tmo # t=//p' "$tmp/suite-dl.tap")
KRDMA_SUITE_RUNNER=$tmp/runner-t KRDMA_SUITE_OUT=$tmp/suite-dl2 \
	KRDMA_SUITE_DEADLINE=$(($(date +%s) + 60)) \
	"$here/../run-guest-suite.sh" a.sh b.sh >"$tmp/suite-dl2.tap" 2>&1
dl2_rc=$?
if [ "$dl_rc" -eq 0 ] && [ -n "$t" ] && [ "$t" -le 600 ] && [ "$t" -ge 590 ] &&
   [ "$dl2_rc" -ne 0 ] && grep -q '^not ok 2 b # not run: out of time' "$tmp/suite-dl2.tap" &&
   ! grep -q 'node1.tmo' "$tmp/suite-dl2.tap"; then
	ok "suite: KRDMA_SUITE_DEADLINE cuts the timeout ($t s), fails what cannot start"
else
	notok "suite: deadline (rc $dl_rc/$dl2_rc, t=$t):"
	sed 's/^/#   /' "$tmp/suite-dl.tap" "$tmp/suite-dl2.tap"
fi

# pvh-kernel.py on made-up bzImages: a gzip payload whose ELF has Xen's
# PHYS32_ENTRY note (comes out whole), one without it, and a file that is
# no bzImage (both refused, so run.sh boots the image itself).
python3 - "$tmp" <<'EOF'
import gzip, struct, sys
def elf(note):
    desc = struct.pack('<I', 0x1000000)
    n = struct.pack('<III', 4, len(desc), 18 if note else 5) + b'Xen\0' + desc
    hdr = b'\x7fELF\x02\x01\x01' + bytes(9) + struct.pack(
        '<HHIQQQIHHHHHH', 2, 62, 1, 0, 64, 0, 0, 64, 56, 1, 0, 0, 0)
    ph = struct.pack('<IIQQQQQQ', 4, 4, 120, 0, 0, len(n), len(n), 4)
    return hdr + ph + n
def bzimage(payload):
    img = bytearray(1024)
    img[0x1f1] = 1
    img[0x202:0x206] = b'HdrS'
    struct.pack_into('<H', img, 0x206, 0x20f)
    struct.pack_into('<II', img, 0x248, 0, len(payload))
    return bytes(img) + payload
for name, data in (('pvh', elf(True)), ('nopvh', elf(False))):
    open('%s/bz-%s' % (sys.argv[1], name), 'wb').write(bzimage(gzip.compress(data)))
    open('%s/elf-%s' % (sys.argv[1], name), 'wb').write(data)
EOF
pvh=$here/pvh-kernel.py
if "$pvh" "$tmp/bz-pvh" "$tmp/out-pvh" && cmp -s "$tmp/out-pvh" "$tmp/elf-pvh"; then
	ok "pvh-kernel: the ELF of a bzImage with the PVH note"
else
	notok "pvh-kernel: a bzImage with the PVH note"
fi
"$pvh" "$tmp/bz-nopvh" "$tmp/out-nopvh" 2>"$tmp/pvh.err"
rc_nopvh=$?
"$pvh" "$scan" "$tmp/out-none" 2>>"$tmp/pvh.err"
rc_none=$?
# 3: the kernel has no PVH entry (run.sh remembers it), 1: not unpacked.
if [ "$rc_nopvh" -eq 3 ] && [ "$rc_none" -eq 1 ] && [ ! -e "$tmp/out-nopvh" ] &&
   grep -q 'no PVH entry' "$tmp/pvh.err" && grep -q 'not a bzImage' "$tmp/pvh.err"; then
	ok "pvh-kernel: refuses a kernel without the note (3), and what is no bzImage (1)"
else
	notok "pvh-kernel: refusals ($(cat "$tmp/pvh.err"))"
fi

if [ "${1:-}" = -s ]; then
	echo "# $pass passed, $failn failed"
	[ "$failn" -eq 0 ]
	exit
fi

# --- 2. whole-harness runs -----------------------------------------------------
no_leftover() {	# no qemu of that run may remain
	local f pid
	for f in "$1"/.vm/node*.pid; do
		[ -f "$f" ] || continue
		pid=$(cat "$f")
		if [ -n "$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q qemu; then
			return 1
		fi
	done
	return 0
}

# vm_case DESC WANT(PASS|FAIL) REASON-SUBSTRING RUN-ARGS...
vm_case() {
	local desc=$1 want=$2 sub=$3 o rc last
	shift 3
	o=$tmp/run.$BASHPID
	echo "# run.sh $*" >&2
	"$run" -o "$o" "$@" >"$o.out" 2>"$o.err"
	rc=$?
	last=$(tail -n 1 "$o.out")
	if ! no_leftover "$o"; then
		notok "$desc: qemu left running"
	elif [ "$want" = PASS ] && [ "$rc" -eq 0 ] && [ "$last" = "${last#vm: PASS}" ]; then
		notok "$desc: rc 0 but last line '$last'"
	elif [ "$want" = PASS ] && [ "$rc" -eq 0 ]; then
		ok "$desc: $last"
	elif [ "$want" = FAIL ] && [ "$rc" -ne 0 ] && [ "$rc" -ne 75 ] && [[ $last == "vm: FAIL:"*"$sub"* ]]; then
		ok "$desc: $last"
	elif [ "$want" = BOOT ] && [ "$rc" -eq 75 ] && [[ $last == "vm: FAIL (boot):"*"$sub"* ]]; then
		ok "$desc: $last"
	else
		notok "$desc: rc $rc, last line '$last' (want $want '$sub')"
		tail -n 40 "$o.out" "$o.err" | sed 's/^/#   /'
	fi
}

neg=$here/selftest-neg.sh
# The one-guest cases two at a time: a guest of one node costs half of
# the host's two CPUs, as each node of a two-guest test does (the cases
# took about 4 minutes one after the other). vm_bg starts one in the
# background once fewer than two run; vm_join counts their verdicts.
bg_n=0
vm_bg() {
	while [ "$(jobs -pr | wc -l)" -ge 2 ]; do wait -n; done
	bg_n=$((bg_n + 1))
	(vm_case "$@") >"$tmp/case.$bg_n" 2>&1 &
}
vm_join() {
	local f
	wait
	for f in "$tmp"/case.*; do
		[ -f "$f" ] || continue
		cat "$f"
		# Each case says ok or FAIL once; a case that said neither
		# (its subshell died) must not pass by being left out.
		if [ "$(grep -c -e '^ok   - ' -e '^FAIL - ' "$f")" -ne 1 ]; then
			notok "case ${f##*.}: no single verdict"
		fi
		pass=$((pass + $(grep -c '^ok   - ' "$f")))
		failn=$((failn + $(grep -c '^FAIL - ' "$f")))
		rm -f "$f"
	done
}
vm_bg "1-guest selftest (rxe loopback)" PASS "" -n 1 -t 300 "$here/selftest.sh"
vm_bg "fake WARNING in dmesg" FAIL "kernel problem report in node1.dmesg" -n 1 -t 300 "$neg" warn
vm_bg "script exits 1" FAIL "node1: script exit 1" -n 1 -t 300 "$neg" exit1
vm_bg "failed result" FAIL "1 failed result(s)" -n 1 -t 300 "$neg" result
vm_bg "no result" FAIL "no RESULT at all" -n 1 -t 300 "$neg" noresult
vm_bg "script hangs (guest-side limit)" FAIL "node1: script exit 124" -n 1 -t 60 "$neg" hang
vm_bg "kernel hangs after panic (host timeout)" FAIL "timeout after 45s" -n 1 -t 45 "$neg" crash
vm_bg "kernel log cleared by the test" FAIL "node1: the kernel log was cleared" -n 1 -t 300 "$neg" clear
KRDMA_BOOT_STALL=1 vm_bg "console silent while booting" BOOT "node1: hung during boot, before krdma was loaded" -n 1 -t 300 "$here/selftest.sh"
vm_join
vm_case "barrier timeout" FAIL "1 failed result(s)" -n 2 -t 300 "$neg" barrier

# A guest that dies (a panic, no exit code) must not leave its peer
# waiting until the time limit.
t0=$SECONDS
vm_case "a guest dies, its peer is stopped" FAIL "node2: guest ended without an exit code" -n 2 -t 900 "$neg" die
if [ $((SECONDS - t0)) -lt 600 ]; then
	ok "a guest dies: the run ended after $((SECONDS - t0))s of a 900s limit"
else
	notok "a guest dies: the run took $((SECONDS - t0))s, the peer was not stopped"
fi

# SIGTERM to run.sh must take its guests down.
o=$tmp/run.term
"$run" -o "$o" -n 1 -t 300 "$neg" hang >"$o.out" 2>"$o.err" &
rpid=$!
end=$((SECONDS + 120))
until grep -q running "$o/.vm/node1.state" 2>/dev/null || [ "$SECONDS" -ge "$end" ]; do sleep 1; done
kill -TERM "$rpid"
wait "$rpid"
rc=$?
end=$((SECONDS + 20))
until no_leftover "$o" || [ "$SECONDS" -ge "$end" ]; do sleep 1; done
if [ "$rc" -ne 0 ] && no_leftover "$o" && grep -q '^vm: FAIL: interrupted' "$o.out"; then
	ok "SIGTERM kills the guests"
else
	notok "SIGTERM: rc $rc, leftover? $(no_leftover "$o" && echo no || echo yes)"
fi

# qemu itself crashing while its guest boots is a bad boot (the suite
# boots such a test again), not a test failure.
o=$tmp/run.segv
"$run" -o "$o" -n 1 -t 300 "$neg" hang >"$o.out" 2>"$o.err" &
rpid=$!
end=$((SECONDS + 60))
until [ -s "$o/.vm/node1.pid" ] || [ "$SECONDS" -ge "$end" ]; do sleep 0.2; done
kill -SEGV "$(cat "$o/.vm/node1.pid" 2>/dev/null)"
wait "$rpid"
rc=$?
last=$(tail -n 1 "$o.out")
if [ "$rc" -eq 75 ] && [[ $last == "vm: FAIL (boot):"*"qemu crashed (exit 139) during boot, before krdma was loaded"* ]]; then
	ok "qemu crash during boot: $last"
else
	notok "qemu crash during boot: rc $rc, last line '$last'"
fi

echo "# $pass passed, $failn failed"
[ "$failn" -eq 0 ]
