#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# krdmactl conform (issue 33): over a session of the defaults every
# positive case passes on rxe, each of its 8 iterations validated, none
# skipped (rxe has atomics, immediate data, READ credits); on iWARP
# (KRDMA_RDMA=siw) the atomics and the immediate-data ops are skipped,
# and only they. The negative cases, each over a session of its own that
# the case breaks, fail on the completion status the IBTA specification
# names - but rxe's known deviation (DEVIATIONS), which fails as it
# always has; each node counts one failed completion a case at most, and
# each case's session is gone from both nodes, while the sessions the
# cases ran from stay up. A case runs alone by its name, at the port's
# MTU + 1; a session whose max_msg is below the MTU skips the positive
# cases larger than it, and runs the others; a case that is not one is
# a usage error.
# The run leaves nothing behind on either node: after it, with the
# sessions still up, no count of each node's RDMA resources (rdma
# resource: QPs, CQs, PDs, MRs, CM ids; krdma's and in all) is above
# what it was after a first case on each session (the responder's base
# taken once krdma holds no MR of a test: see krdma_mrs_idle()). Not
# "the same": a count may fall (what a first case held may have gone);
# a leak makes one grow.
# Expected guest time: 2 x 52 check-mode tests of 8 tiny iterations (but
# 2 x 2 of 512 atomics, one at each word of a page, 256 WRITEs of 64 KiB
# for the ACK timeout case and 16 SENDs for each RNR case) and 3 more,
# 50 sessions made and broken, 75-95 s under TCG.
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
PORT=7471
NCASES=68	# 5 ops x 7 sizes, 2 atomics, 2 variants and 2 at every offset, 5 at max_sge, a read-back, a SEND_WITH_INV, 3 of 0 bytes, a READ of 0 bytes behind one of data, WRITEs at the shortest ACK timeout, an RNR retried and one with a REG_MR behind each SEND; 13 negative
NNEG=13
SKIP_OPS=
# Cases skipped by name, for what the device's QPs lack beyond an op.
SKIP_CASES="write.ack_timeout_min"	# by name only
# The device's known deviations, CASE=the completion status it gives
# (Documentation/conformance.rst): rxe answers a SEND longer than the
# receive with a remote operation error (11), not a remote invalid
# request (9): its copy_data() says -EINVAL, not -ENOSPC.
# rxe runs a REG_MR again when it sends again the SEND before it
# (rxe.reg_mr_twice: req_retry(), req_next_wqe()) and fails it, the
# region valid already; its requester then sends nothing more while the
# SEND, NAKed again, is still at the head of the queue: the QP completes
# nothing until the responder's stall timer (stall_ms) closes the
# session (none). Were the SEND sent again after the peer's receives are
# back, the REG_MR's local QP operation error (2) would come first.
DEVIATIONS="send.longer_than_receive=11 send.reg_mr_behind_retried=none,2"
# The device's known bugs that show in some runs, CASE=the statuses then:
# rxe's requester, sending again a message whose first sending is still
# being answered, loses its place (rxe.ack_timeout_requester_lost) and
# the responder NAKs the shifted stream: a remote invalid request (9) -
# or, as on 6.12 (2026-12-01), the responder's QP fails first ("queue
# pair failed: receive flushed" there) and its session's end reaches us
# before our WR's completion (none: "disconnected by peer").
# 2 of 3 runs of 256 WRITEs of 64 KiB at ack_timeout 8 here, 2026-12-01,
# as the case runs them. The table skips the case (it runs by name only,
# below); not at all on the debug kernel (KASAN: kmemleak's file is
# there), which moves well under 1 MB/s: every WRITE was sent again and
# again, the client stalled for seconds, and every session's keepalive
# probe (c1's and c2's too) met its empty receive queue for longer than
# its RNR retry count (2026-12-01) - a storm of the test bed's making.
INTERMITTENT="write.ack_timeout_min=9,none"
ACK_RUNS=1
[ -e /sys/kernel/debug/kmemleak ] && ACK_RUNS=0
# What the responder's session ends on for that SEND: its receive's
# local length error by the specification, rxe's local QP operation
# error (the same -EINVAL, a "malformed WQE" to rxe_resp.c); siw gives
# the local length error, or first raises a fatal QP event (seen in 1
# of 2 runs).
LONG_SEND_RX="('receive completion failed: local QP operation error',)"
# Each negative case fails one completion of ours (wc_errors), but those
# the device refuses at post: rxe the unaligned atomic
# (validate_send_wr()), a WR that never reaches the wire.
NEG_WC=1
NEG_POST_REFUSED=1
WC_EXACT=True
# iWARP: no atomics (3 negative cases of them skipped) and no immediates;
# its invalidated keys are refused with a TERMINATE like the others;
# a remote error is the peer's TERMINATE, which closes the stream (RFC
# 5040): our WRs flush, but one still in flight then, which siw fails
# with a local QP operation error: at most one a case (conformance.rst,
# "On iWARP").
# siw's READ takes one SGE (max_sge_rd 1): read.max_sge has nothing to split.
# siw refuses a fenced READ: not at ib_post_send() but when its send
# queue reaches it (siw_activate_tx_from_sq(): "cannot fence read"), and
# drops the connection (conformance.rst, "Results"): no completion fails.
# siw refuses a READ of no SGE at post (siw_post_send(): a READ takes
# exactly one SGE, even of 0 bytes): read.0_bytes fails, not run.
# iWARP has no receiver-not-ready NAK (a SEND into an empty receive
# queue ends the connection): the two RNR cases are skipped.
# siw answers a READ of 0 bytes that waited in its inbound queue with
# the length of the response before it (siw_activate_tx()): our READ's
# local length error (1), read.0_bytes_behind_data in both tables.
iwarp && SKIP_OPS="atomic_fadd atomic_cswap send_imm write_imm" NNEG=9 \
	SKIP_CASES="read.max_sge write.ack_timeout_min send.rnr_retried send.reg_mr_behind_retried send.rnr_retry_exceeded" \
	ACK_RUNS=0 \
	DEVIATIONS="read.fenced_after_write=none read.0_bytes=none read.0_bytes_behind_data=1" NEG_POST_REFUSED=0 WC_EXACT=False \
	LONG_SEND_RX="('receive completion failed: local length error', ': QP fatal error')"
OUT=/tmp/conform.json

# nothing_left NAME: no RDMA resource count of this node above what it
# was at rdma_snap /tmp/conform.rdma.base.
nothing_left() {
	if rdma_snap /tmp/conform.rdma.after &&
	   rdma_cmp /tmp/conform.rdma.base /tmp/conform.rdma.after no_more; then
		result "$1" ok "$(cat /tmp/conform.rdma.after)"
	else
		rdma_show before /tmp/conform.rdma.base
		rdma_show after /tmp/conform.rdma.after
		result "$1" fail
	fi
}

# tables_count COND: the cases of both tables (c1's and c2's) for which
# the python condition COND over c holds.
tables_count() {
	echo $(($(json_get "len([c for c in d['cases'] if $1])" <$OUT) +
		$(json_get "len([c for c in d['cases'] if $1])" </tmp/conform.c2.json)))
}

# deviations: DEVIATIONS as conform-table's options.
deviations() {
	for d in $DEVIATIONS; do
		printf -- '--deviation %s ' "$d"
	done
	for c in $SKIP_CASES; do
		printf -- '--skip-case %s ' "$c"
	done
}

# The negative cases the client ran: each of its two tables' (c2's
# max_msg does not bound them: their sessions are their own).
NEG_RUN=$((2 * NNEG))
# The positive cases over a session of their own: read.fenced_after_write
# in c1's table (c2's max_msg skips it), the three of 0 bytes, the READ of
# 0 bytes behind one of data, the two RNR retried and the five at the
# device's most SGEs in both tables (on iWARP two of 0 bytes, the one
# behind data and two of the most SGEs: no write_imm, no send_imm, no
# RNR, and siw's READ takes one SGE); and write.ack_timeout_min run by
# name (ACK_RUNS).
OWN_RUN=$((23 + ACK_RUNS))
iwarp && OWN_RUN=11
# The positive cases that may end on the responder's stall timer, and a
# failed completion of its: send.reg_mr_behind_retried's two runs (rxe's
# bug wedges the requester's QP). The responder's stall_ms is 10 s during
# the tables (30 s by default), which no other case comes near - but on
# the debug kernel (KASAN), where everything is 25 times slower.
REG_RUNS=2
iwarp && REG_RUNS=0
STALL_MS=$(cat /sys/module/krdma/parameters/stall_ms)
CASE_STALL_MS=10000
[ -e /sys/kernel/debug/kmemleak ] && CASE_STALL_MS=$STALL_MS

# krdma_mrs_idle: krdma holds no MR but the device's own (rxe's
# registration fence, kmod/mem.c; none on siw). Once, the responder's
# base held one more than the end of the run (2 against 1, 2026-11-30):
# most likely the first case's target, whose MR goes in the CQ callback
# just after its TEST_RESULT is posted (krdma_peer_release()) - a vCPU
# stalled between the two, while the client went on. The MRs are logged.
IDLE_MRS=1
iwarp && IDLE_MRS=0
krdma_mrs_idle() {
	rdma_snap /tmp/conform.rdma.idle &&
		[ "$(json_get "d['krdma'].get('mr', 0)" </tmp/conform.rdma.idle)" -le $IDLE_MRS ]
}

# rnr_counter NAME: one of the device's hardware counters (rxe's names:
# rcvd_rnr_err, send_rnr_err, retry_rnr_exceeded_err), 0 if it has none.
rnr_counter() {
	rdma -j statistic show link "$KRDMA_RDMA_DEV/1" | json_get "d[0].get('$1', 0)"
}

if [ "$KRDMA_NODE" = 1 ]; then
	expect_ok listener.add krdmactl listener add name main port $PORT
	barrier listening
	barrier warmed 600
	wait_for -t 60 krdma_mrs_idle && result server.mrs_idle ok ||
		result server.mrs_idle fail "$(cat /tmp/conform.rdma.idle)"
	rdma_snap /tmp/conform.rdma.base
	# Which MRs: the responder's count fell over the run once (above).
	log "server MRs after the first cases: $(rdma resource show mr 2>&1 | tr '\n' ';')"
	RNR_SENT=$(rnr_counter send_rnr_err)
	monitor_start /tmp/conform.mon
	echo "$CASE_STALL_MS" >/sys/module/krdma/parameters/stall_ms
	barrier watching
	barrier conformed 900
	echo "$STALL_MS" >/sys/module/krdma/parameters/stall_ms
	monitor_stop
	nothing_left server.rdma_same
	log "server MRs after the run: $(rdma resource show mr 2>&1 | tr '\n' ';')"
	# rxe NAKed the RNR cases' SENDs receiver-not-ready (4 cases run).
	if ! iwarp; then
		n=$(($(rnr_counter send_rnr_err) - RNR_SENT))
		[ "$n" -ge 4 ] && result server.rnr_naks_sent ok "$n" ||
			result server.rnr_naks_sent fail "$n"
	fi
	# Each negative case's session, accepted here, went down - and only
	# they did (c1 and c2 are still up). Each came up first but where the
	# case's first packet broke its QP before the CM's ESTABLISHED reached
	# us (the long SEND, once in 2026-11-30's runs): that one is announced
	# down only, never up.
	# (monitor's lines of JSON as one array)
	sed '1s/^/[/; $!s/$/,/; $s/$/]/' /tmp/conform.mon >/tmp/conform.events
	json_check server.case_sessions_down "cat /tmp/conform.events" \
		"len({e['session_id'] for e in d if e['event'] == 'session_down'}) == len([e for e in d if e['event'] == 'session_down']) == $NEG_RUN + $OWN_RUN and {e['session_id'] for e in d if e['event'] == 'session_up'} <= {e['session_id'] for e in d if e['event'] == 'session_down'}"
	# The long SENDs' receives (a negative case of each table)
	# failed as the device does: two sessions ended on that reason.
	json_check server.long_send_receive "cat /tmp/conform.events" \
		"len([e for e in d if e['event'] == 'session_down' and any(r in e['reason'] for r in $LONG_SEND_RX)]) == 2"
	log "server: the case sessions' reasons: $(grep session_down /tmp/conform.mon)"
	json_check server.sessions_left "krdmactl -j session show" \
		"len(d) == 2 and all(s['state'] == 'up' for s in d)"
	# Until here the client keeps its sessions up.
	barrier checked
	barrier "done" 600
	# A failed completion counts once a session at most: the responder's
	# QP went to the error state with the case (a flush, or the status
	# its receive got).
	json_check server.no_data_errors "krdmactl -j stats show" \
		"d['validation_errors'] == 0 and d['protocol_errors'] == 0 and d['wc_errors'] <= $NEG_RUN + $ACK_RUNS + $REG_RUNS and d['responder_timeouts'] <= $REG_RUNS + $ACK_RUNS"
	exit 0
fi

barrier listening
expect_ok connect krdmactl session connect addr "$KRDMA_PEER_IP" port $PORT name c1
expect_ok connect.small krdmactl session connect addr "$KRDMA_PEER_IP" port $PORT name c2 max_msg 1000

# A first case on each session, then what the node holds.
expect_ok warm.c1 krdmactl conform session c1 case write.1_byte
expect_ok warm.c2 krdmactl conform session c2 case write.1_byte
rdma_snap /tmp/conform.rdma.base
RNR_RCVD=$(rnr_counter rcvd_rnr_err)
RNR_EXCEEDED=$(rnr_counter retry_rnr_exceeded_err)
barrier warmed
# The server's monitor is on: it sees each case's session come and go.
barrier watching

# The table, without asking the module: NCASES names, each unique.
json_check conform.list "krdmactl -j conform session c1 case list" \
	"len(d) == $NCASES and len({c['case'] for c in d}) == $NCASES"

# The whole table over c1, while c2 carries other traffic: a bw test
# whose sampled messages are checked, which the cases (their sessions
# broken, their regions refused) must not disturb.
krdmactl -j test run session c2 op write mode bw size 1000 duration 20s depth 8 \
	>/tmp/conform.traffic 2>&1 &
TRAFFIC=$!
krdmactl -j conform session c1 >$OUT 2>/tmp/conform.err
rc=$?
wait $TRAFFIC
json_check traffic.undisturbed "cat /tmp/conform.traffic" \
	"r['status'] == 0 and r['iters'] > 0 and r['validated'] >= 1 and r['bytes'] == r['iters'] * 1000"
# 6: a case failed (a known deviation); 0 on a device without one.
want_rc=0
[ -n "$DEVIATIONS" ] && want_rc=6
if [ $rc -eq $want_rc ]; then
	result conform.rc ok "rc=$rc"
else
	echo "--- krdmactl conform session c1: rc=$rc"
	cat /tmp/conform.err
	result conform.rc fail "rc=$rc"
fi
log "conform session c1: $(cat $OUT)"
# shellcheck disable=SC2086,SC2046 # SKIP_OPS: one word per op
if krdma_json conform-table $OUT $NCASES $SKIP_OPS $(deviations); then
	result conform.table ok "cases=$NCASES"
else
	result conform.table fail
fi
# A RESULT per case, so that a kernel that breaks one names it.
for name in $(krdmactl -j conform session c1 case list | json_get "' '.join(c['case'] for c in d)"); do
	op=${name%%.*}
	want=pass
	case " $DEVIATIONS " in *" $name="*) want=fail ;; esac
	case " $SKIP_OPS " in *" $op "*) want=skip ;; esac
	case " $SKIP_CASES " in *" $name "*) want=skip ;; esac
	got=$(json_get "[c['result'] for c in d['cases'] if c['case'] == '$name'][0]" <$OUT)
	if [ "$got" = "$want" ]; then
		result "conform.case.$name" ok
	else
		why=$(json_get "[c.get('reason', '') for c in d['cases'] if c['case'] == '$name'][0]" <$OUT)
		echo "--- conform case $name: $got, want $want: $why"
		result "conform.case.$name" fail "got=$got"
	fi
done
# The MTU is the port's, as dev show has it (rxe under a 1500-byte
# netdev: 1024).
MTU=$(krdmactl -j dev show "$KRDMA_RDMA_DEV" | json_get "[p['mtu'] for p in d if p.get('state') == 'ACTIVE'][0]")
json_check conform.mtu "cat $OUT" "d['mtu'] == ${MTU:-0} > 0 and d['max_msg'] == 65536"

# The max_sge cases used every SGE the device takes in a send WR, up to
# krdma's 32 (rxe: 32, siw: 6), over sessions that asked for them - not
# the 16 a session takes by default.
DEVSGE=$(krdmactl -j dev show "$KRDMA_RDMA_DEV" | json_get "d[0]['max_sge']")
json_check conform.max_sge_device "cat $OUT" \
	"len([c for c in d['cases'] if 'sges' in c]) >= 2 and all(c['sges'] == min(${DEVSGE:-0}, 32) for c in d['cases'] if 'sges' in c and c['op'] != 'read')"

# One case alone, by its name.
json_check conform.one_case "krdmactl -j conform session c1 case write.mtu_plus_1" \
	"len(d['cases']) == 1 and d['cases'][0]['case'] == 'write.mtu_plus_1' and d['cases'][0]['size'] == ${MTU:-0} + 1 and d['cases'][0]['result'] == 'pass' and d['cases'][0]['validated'] == 8 and d['passed'] == 1"

# max_msg 1000, below the MTU: the MTU's and the pages' cases skipped (the
# read-back's 2*PAGE+7 too, the SEND_WITH_INV's MTU+1, the ACK timeout's
# of one packet), the 1-byte, max_msg and atomic ones run.
# (stderr apart: a case the device refused at post says so there, siw's
# read.0_bytes.)
krdmactl -j conform session c2 >/tmp/conform.c2.json 2>/tmp/conform.c2.err
json_check conform.small_max_msg "cat /tmp/conform.c2.json" \
	"d['max_msg'] == 1000 and d['failed'] == len([c for c in d['cases'] if c['case'] in [x.split('=')[0] for x in '$DEVIATIONS'.split()] and c['result'] != 'skip']) and all((c['result'] == 'skip') == (c['op'] in '$SKIP_OPS'.split() or c['case'] in '$SKIP_CASES'.split() or ('violate' not in c and (c.get('read_back') or c.get('send_invalidate') or 'ack_timeout' in c or c['case'].split('.')[1] in ('mtu_minus_1', 'mtu', 'mtu_plus_1', 'page_plus_1', 'two_pages_plus_7')))) for c in d['cases']) and all(c['size'] == 1000 for c in d['cases'] if c['case'].endswith('.max_msg') and c['result'] == 'pass')"

# Not a case: the command line's error, nothing run.
expect_rc_msg conform.unknown_case 2 "unknown case 'nope'" krdmactl conform session c1 case nope

# The RNR cases met receiver-not-ready NAKs, each of its 2 runs at least
# one, and the retry count of the negative one's (0) ran out, twice -
# the positive one's never (7: for ever).
if ! iwarp; then
	n=$(($(rnr_counter rcvd_rnr_err) - RNR_RCVD))
	x=$(($(rnr_counter retry_rnr_exceeded_err) - RNR_EXCEEDED))
	[ "$n" -ge 4 ] && [ "$x" -eq 2 ] && result client.rnr_naks ok "naks=$n exceeded=$x" ||
		result client.rnr_naks fail "naks=$n exceeded=$x"
fi

# rxe.reg_mr_twice on the kernel's word: 6.1's rxe_reg_fast_mr() warns
# "not free" (6.12's says it at debug level only), once for each run of
# send.reg_mr_behind_retried that failed - and for nothing else, as
# krdma fences its own registrations (lossy-wire.sh's reg_mr_once).
REG_FAILED_RUNS=$(tables_count "c['case'] == 'send.reg_mr_behind_retried' and c['result'] == 'fail'")
if ! iwarp; then
	got=$(dmesg | grep -c 'rxe_reg_fast_mr: .* not free')
	case $(uname -r) in
	6.1.*) [ "$got" -eq "$REG_FAILED_RUNS" ] ;;
	*) [ "$got" -eq 0 ] || [ "$got" -eq "$REG_FAILED_RUNS" ] ;;
	esac && result client.reg_mr_twice_warned ok "runs_failed=$REG_FAILED_RUNS warned=$got" ||
		result client.reg_mr_twice_warned fail "runs_failed=$REG_FAILED_RUNS warned=$got"
fi

# The ACK timeout case, by name: passed, or failed as rxe's bug ends it
# (INTERMITTENT), and nothing else - c1 and c2 still up after it (below).
ACK_WC=0
if [ "$ACK_RUNS" = 1 ]; then
	krdmactl -j conform session c1 case write.ack_timeout_min \
		>/tmp/conform.ack.json 2>/tmp/conform.ack.err
	log "write.ack_timeout_min: $(cat /tmp/conform.ack.json)"
	if krdma_json conform-table /tmp/conform.ack.json 1 --intermittent "$INTERMITTENT"; then
		result conform.ack_timeout_min ok \
			"$(json_get "d['cases'][0]['result'] + ' ' + d['cases'][0].get('reason', '')" </tmp/conform.ack.json)"
	else
		result conform.ack_timeout_min fail
	fi
	# Its failed completion, if the requester's NAK came first.
	ACK_WC=$(json_get "len([c for c in d['cases'] if c['result'] == 'fail' and 'wc_status' in c])" </tmp/conform.ack.json)
fi

# Nothing left behind by the cases, the sessions still up: the cases'
# own sessions are gone.
nothing_left client.rdma_same
json_check client.sessions_left "krdmactl -j session show" \
	"sorted(s['name'] for s in d) == ['c1', 'c2'] and all(s['state'] == 'up' for s in d)"
barrier conformed
barrier checked

# One failed completion a negative case: the one the case made fail
# (none on iWARP); one if the ACK timeout case failed on one; one a
# positive case a known deviation failed on a completion (rxe's REG_MR
# run twice, siw's READ of 0 bytes), in either table; and where rxe's
# REG_MR run twice fails the QP (6.12; 6.1 wedges it, and the peer's
# stall timer ends it) the flush of the SEND before it, which nobody
# asked for, once for each run the case failed. On iWARP an upper bound.
DEV_WC=$(tables_count "'violate' not in c and c['result'] == 'fail' and 'wc_status' in c")
WC_BASE=$(((NEG_RUN - 2 * NEG_POST_REFUSED) * NEG_WC + ${ACK_WC:-0} + DEV_WC))
json_check client.no_data_errors "krdmactl -j stats show" \
	"d['validation_errors'] == 0 and d['protocol_errors'] == 0 and (not $WC_EXACT or d['wc_errors'] >= $WC_BASE) and d['wc_errors'] <= $WC_BASE + $REG_FAILED_RUNS and d['responder_timeouts'] == 0"
expect_ok session.del krdmactl session del name c1
expect_ok session.del.small krdmactl session del name c2
barrier "done" 600
