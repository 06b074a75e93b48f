#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The checks of tests/lib/krdma_json.py hold on good snapshots and fail on
doctored ones, through its command line, as the guest tests call it (no
VM: the snapshots are written here). Part of make check-unit.

Usage: tests/lib/test_krdma_json.py      (ends with "N passed, M failed")
"""
import json
import os
import subprocess
import sys
import tempfile

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'krdma_json.py')
TMP = tempfile.mkdtemp(prefix='krdma-json-')
passed = failed = 0


def write(name, obj):
    path = os.path.join(TMP, name)
    with open(path, 'w', encoding='utf-8') as f:
        f.write(obj if isinstance(obj, str) else json.dumps(obj))
    return path


def run(args, stdin=None):
    p = subprocess.run([sys.executable, TOOL] + args, input=stdin, capture_output=True,
                       text=True, check=False)
    return p.returncode, p.stdout.strip()


def expect(name, args, rc, out=None, stdin=None):
    global passed, failed
    got_rc, got = run(args, stdin)
    if got_rc == rc and (out is None or got == out):
        passed += 1
        print(f'ok   {name}')
    else:
        failed += 1
        print(f'FAIL {name}: want rc {rc}{" and " + repr(out) if out is not None else ""}, '
              f'got rc {got_rc} and {got!r}')


def snap(krdma_qp, total_qp, krdma_mr=0):
    return {'totals': {'qp': total_qp, 'cq': 2}, 'lists': {'qp': total_qp},
            'owners': {}, 'krdma': {'qp': krdma_qp, 'cq': 0, 'mr': krdma_mr, 'pd': 0,
                                    'cm_id': 0}}


base = write('base', snap(2, 3))
expect('rdma-cmp same: equal', ['rdma-cmp', base, base, 'same'], 0)
expect('rdma-cmp same: a QP more fails', ['rdma-cmp', base, write('qp', snap(2, 4)), 'same'], 1)
expect('rdma-cmp unloaded: krdma\'s gone from the totals',
       ['rdma-cmp', base, write('unl', snap(0, 1)), 'unloaded'], 0)
expect('rdma-cmp unloaded: a krdma QP left fails',
       ['rdma-cmp', base, write('left', snap(1, 2)), 'unloaded'], 1)
expect('rdma-cmp unloaded: another QP gone too fails',
       ['rdma-cmp', base, write('more', snap(0, 0)), 'unloaded'], 1)
expect('rdma-cmp no_queues: a krdma QP fails',
       ['rdma-cmp', base, write('q', snap(1, 2)), 'no_queues'], 1)
expect('rdma-cmp no_more: equal', ['rdma-cmp', base, base, 'no_more'], 0)
expect('rdma-cmp no_more: an MR of krdma\'s gone', ['rdma-cmp', write('mr1', snap(2, 3, krdma_mr=1)),
                                                   base, 'no_more'], 0)
expect('rdma-cmp no_more: a QP more in all fails', ['rdma-cmp', base, write('qp5', snap(2, 5)),
                                                    'no_more'], 1)
expect('rdma-cmp no_more: a krdma QP more fails', ['rdma-cmp', base, write('kq', snap(3, 3)),
                                                   'no_more'], 1)
fenced = write('fenced', snap(2, 3, krdma_mr=1))
expect('rdma-cmp no_queues: the device\'s own MR, as before, passes',
       ['rdma-cmp', fenced, write('f1', snap(0, 1, krdma_mr=1)), 'no_queues'], 0)
expect('rdma-cmp no_queues: an MR more than before fails',
       ['rdma-cmp', fenced, write('f2', snap(0, 1, krdma_mr=2)), 'no_queues'], 1)
expect('rdma-cmp: unreadable snapshot is an error',
       ['rdma-cmp', base, write('bad', '{"totals":'), 'same'], 2)

cqs = json.dumps([{'poll-ctx': 'DIRECT'}, {'poll-ctx': 'SOFTIRQ'}, {'poll-ctx': 'DIRECT'}])
expect('cqs-in: iproute2\'s DIRECT is SOFTIRQ', ['cqs-in', 'SOFTIRQ'], 0, '2', cqs)
expect('cqs-in: iproute2\'s SOFTIRQ is WORKQUEUE', ['cqs-in', 'WORKQUEUE'], 0, '1', cqs)
qps = json.dumps([{'type': 'RC', 'lqpn': 17, 'sq-psn': 9}, {'type': 'UD', 'lqpn': 1}])
expect('rc-qps', ['rc-qps'], 0, '1', qps)
expect('psn-snap', ['psn-snap'], 0, '{"17": 9}', qps)

p1 = write('p1', {'1': 5, '2': 5, '3': 5, '4': (1 << 24) - 10})
p2 = write('p2', {'1': 105, '2': 105, '3': 105, '4': 90})
expect('psn-moved: 4 QPs, the PSN wrapping', ['psn-moved', p1, p2, '4', '100'], 0)
expect('psn-moved: 4 QPs of 101 fails', ['psn-moved', p1, p2, '4', '101'], 1)
p3 = write('p3', {'1': 105, '2': 105, '3': 105, '4': 5})
expect('psn-moved: 3 QPs only', ['psn-moved', p1, p3, '3', '100', 'only'], 0)
expect('psn-moved: a 4th QP moved fails "only"', ['psn-moved', p1, p2, '3', '100', 'only'], 1)

slab = {'caches': {f'kmalloc-{s}': [1000, s] for s in (8, 16, 32, 64, 128, 256)},
        'other': {}, 'meminfo': {'Slab': 100, 'SUnreclaim': 50}}
sb = write('slab', slab)
sm, sl = os.path.join(TMP, 'mid'), os.path.join(TMP, 'leak')
run(['slab-add', sb, 'kmalloc-64', '40', sm])
run(['slab-add', sm, 'kmalloc-64', '40', sl])  # as cycles.sh: on top of mid
rc, out = run(['slab-cmp', '64', '512', sb, sl, sm])
ok = rc == 0 and not json.loads(out)['objs_ok'] and json.loads(out)['worst_cache'] == 'kmalloc-64'
rc, out = run(['slab-cmp', '64', '512', sb, sl, sl])  # all of it in the first half
ok = ok and rc == 0 and json.loads(out)['objs_ok']
rc, out = run(['slab-cmp', '64', '512', sb, sb])
ok = ok and rc == 0 and json.loads(out)['objs_ok'] and json.loads(out)['meminfo_ok']
passed += ok
failed += not ok
print(f'{"ok  " if ok else "FAIL"} slab-cmp: a leak in both halves fails, a jump or nothing does not')

tests = json.dumps([{'state': 'running', 'iters': 3}, {'state': 'running', 'iters': 0},
                    {'state': 'done', 'iters': 9}])
expect('tests-running: one past iteration 0', ['tests-running', '1'], 0, None, tests)
expect('tests-running: two fails', ['tests-running', '2'], 1, None, tests)

mon = write('mon', '\n'.join(json.dumps(e) for e in (
    {'event': 'session_up', 'session_id': 1}, {'event': 'session_up', 'session_id': 2},
    {'event': 'session_down', 'session_id': 1, 'reason': 'peer gone'},
    {'event': 'session_down', 'session_id': 2},
    {'event': 'test_done', 'test_id': 5, 'status': -107, 'reason': 'session down'},
    {'event': 'test_done', 'test_id': 6, 'status': 0})) + '\n')
rc, out = run(['events', mon, '5', '6', ''])
d = json.loads(out) if rc == 0 else {}
ok = (d.get('up'), d.get('down_with_reason'), d.get('tests_failed_with_reason')) == (2, 1, 1)
passed += ok
failed += not ok
print(f'{"ok  " if ok else "FAIL"} events: a down without reason, a test that passed not counted'
      + ('' if ok else f': {rc} {out}'))



def bw(nbytes, ns, size, qps=1, status=0):
    return write('bw', {'schema_version': 3, 'env': {},
                        'results': [{'status': status, 'bytes': nbytes, 'elapsed_ns': ns,
                                     'size': size, 'qps': qps, 'depth': 64}]})


# The debug kernel's 0.6 MB/s: a quarter, bursts of 2 x 16K (218 ms).
expect('rate-plan: slow kernel, a quarter', ['rate-plan', bw(1638400, 2725945980, 16384)], 0,
       '601039 150259 0.150259 2 22')
# 10 MB/s: bursts of 32 x 16K (a chain at most), 210 ms of 2.5 MB/s.
expect('rate-plan: fast kernel, bursts of a chain', ['rate-plan', bw(20000000, 2000000000, 16384)],
       0, '10000000 2500000 2.500000 32 381')
# 4 lanes: each has a quarter of the rate, its bursts sized to it.
expect('rate-plan: four lanes share it', ['rate-plan', bw(10000000, 3000000000, 4096, 4)], 0,
       '3333333 833333 0.833333 12 508')
# Too slow for a quarter: a message a lane is 400 ms at most.
expect('rate-plan: floor', ['rate-plan', bw(100000, 3000000000, 4096, 4)], 0,
       '33333 40960 0.040960 1 40')
expect('rate-plan: a failed unlimited test has no plan',
       ['rate-plan', bw(0, 3000000000, 4096, 1, -110)], 2)
# Schema 2's bare record (or a sweep's document) is not one run's result.
expect('rate-plan: the older shape is refused',
       ['rate-plan', write('old', {'schema_version': 2, 'status': 0, 'bytes': 1, 'elapsed_ns': 1,
                                   'size': 1, 'qps': 1, 'depth': 1})], 2)



# ---- conform-table ----

def conform_doc(ops, skip=(), change=None):
    """krdmactl -j conform's document: two cases of each of OPS, those of
    SKIP skipped, the others passed; CHANGE(cases, doc) doctors it."""
    cases = []
    for op in ops:
        for size in ('1_byte', 'mtu'):
            if op in skip:
                cases.append({'case': f'{op}.{size}', 'op': op, 'result': 'skip',
                              'reason': 'the device has no atomics (atomic_cap none)'})
            else:
                cases.append({'case': f'{op}.{size}', 'op': op, 'size': 1, 'result': 'pass',
                              'test_id': 1, 'status': 0, 'validated': 8, 'iters': 8,
                              'count': 8})
    doc = {'schema_version': 1, 'cases': cases, 'interrupted': False,
           'passed': len([c for c in cases if c['result'] == 'pass']), 'failed': 0,
           'skipped': len([c for c in cases if c['result'] == 'skip'])}
    if change:
        change(cases, doc)
    return write('conform', doc)


def conform_fail(cases, doc):
    cases[1].update(result='fail', status=-5, validated=2, iters=3,
                    reason='status -5 (Input/output error): peer reports iteration 3')
    doc['passed'] -= 1
    doc['failed'] += 1


expect('conform-table: all pass', ['conform-table', conform_doc(['write', 'read']), '4'], 0,
       '4 cases: 4 passed, 0 failed, 0 skipped')
expect('conform-table: the skips expected',
       ['conform-table', conform_doc(['write', 'atomic_fadd'], {'atomic_fadd'}), '4',
        'atomic_fadd'], 0, '4 cases: 2 passed, 0 failed, 2 skipped')
expect('conform-table: a skip not expected',
       ['conform-table', conform_doc(['write', 'atomic_fadd'], {'atomic_fadd'}), '4'], 1)
expect('conform-table: a skip expected that passed',
       ['conform-table', conform_doc(['write', 'atomic_fadd']), '4', 'atomic_fadd'], 1)
def conform_skip_mtu(cases, doc):
    cases[1].update(result='skip', reason="the session's QPs take one SGE a READ")
    for k in ('size', 'test_id', 'status', 'validated', 'iters', 'count'):
        del cases[1][k]
    doc['passed'] -= 1
    doc['skipped'] += 1


expect('conform-table: a case skipped by name, expected',
       ['conform-table', conform_doc(['read'], change=conform_skip_mtu), '2',
        '--skip-case', 'read.mtu'], 0, '2 cases: 1 passed, 0 failed, 1 skipped')
expect('conform-table: a case skipped by name, not expected',
       ['conform-table', conform_doc(['read'], change=conform_skip_mtu), '2'], 1)
expect('conform-table: a case expected skipped that ran',
       ['conform-table', conform_doc(['read']), '2', '--skip-case', 'read.mtu'], 1)
def conform_fail_reset(cases, doc):
    cases[1].update(result='fail', status=-104, validated=0, iters=0,
                    reason='status -104 (Connection reset by peer): session closed')
    doc['passed'] -= 1
    doc['failed'] += 1


expect('conform-table: a deviation without a failed completion',
       ['conform-table', conform_doc(['write'], change=conform_fail_reset), '2',
        '--deviation', 'write.mtu=none'], 0, '2 cases: 1 passed, 1 failed, 0 skipped')
def conform_fail_wc(cases, doc):
    conform_fail(cases, doc)
    cases[1]['wc_status'] = 10


expect('conform-table: a deviation of no failed completion that had one',
       ['conform-table', conform_doc(['write'], change=conform_fail_wc), '2',
        '--deviation', 'write.mtu=none'], 1)
def conform_fail_wc9(cases, doc):
    conform_fail(cases, doc)
    cases[1]['wc_status'] = 9


expect('conform-table: an intermittent case that failed as known',
       ['conform-table', conform_doc(['write'], change=conform_fail_wc9), '2',
        '--intermittent', 'write.mtu=9'], 0, '2 cases: 1 passed, 1 failed, 0 skipped')
expect('conform-table: an intermittent case that passed',
       ['conform-table', conform_doc(['write']), '2', '--intermittent', 'write.mtu=9'], 0,
       '2 cases: 2 passed, 0 failed, 0 skipped')
expect('conform-table: an intermittent case that failed otherwise',
       ['conform-table', conform_doc(['write'], change=conform_fail_wc), '2',
        '--intermittent', 'write.mtu=9'], 1)
expect('conform-table: an intermittent case that failed as one of those known',
       ['conform-table', conform_doc(['write'], change=conform_fail_reset), '2',
        '--intermittent', 'write.mtu=9,12,none'], 0, '2 cases: 1 passed, 1 failed, 0 skipped')
expect('conform-table: an intermittent case that failed without a completion, not known so',
       ['conform-table', conform_doc(['write'], change=conform_fail_reset), '2',
        '--intermittent', 'write.mtu=9'], 1)
expect('conform-table: an intermittent case that passed short of validated',
       ['conform-table', conform_doc(['write'], change=lambda c, d: c[1].update(validated=7)),
        '2', '--intermittent', 'write.mtu=9'], 1)
expect('conform-table: a failure, with what came instead',
       ['conform-table', conform_doc(['write', 'read'], change=conform_fail), '4'], 1,
       'write.mtu: fail, want pass: status -5 (Input/output error): peer reports iteration 3\n'
       '4 cases: 3 passed, 1 failed, 0 skipped')
expect('conform-table: a pass short of validated',
       ['conform-table', conform_doc(['write'], change=lambda c, d: c[0].update(validated=7)),
        '2'], 1)
expect('conform-table: a case missing',
       ['conform-table', conform_doc(['write']), '3'], 1)
expect('conform-table: totals that are not the table\'s',
       ['conform-table', conform_doc(['write'], change=lambda c, d: d.update(passed=3)), '2'], 1)
expect('conform-table: interrupted',
       ['conform-table', conform_doc(['write'], change=lambda c, d: d.update(interrupted=True)),
        '2'], 1)
def conform_neg(wc, expect_wc=10, result='pass'):
    """A negative case appended: the device answered WC."""
    def change(cases, doc):
        cases.append({'case': 'write.out_of_bounds', 'op': 'write', 'size': 1,
                      'result': result, 'violate': 'out_of_bounds',
                      'expect_wc_status': expect_wc, 'wc_status': wc, 'test_id': 2,
                      'status': -5})
        doc['passed' if result == 'pass' else 'failed'] += 1
    return change


expect('conform-table: a negative case as specified',
       ['conform-table', conform_doc(['write'], change=conform_neg(10)), '3'], 0,
       '3 cases: 3 passed, 0 failed, 0 skipped')
expect('conform-table: a negative case passed on another status',
       ['conform-table', conform_doc(['write'], change=conform_neg(11)), '3'], 1)
def conform_neg_post(refused, wc=None):
    """The unaligned atomic appended: refused at post (REFUSED), or WC."""
    def change(cases, doc):
        c = {'case': 'atomic_fadd.unaligned', 'op': 'atomic_fadd', 'size': 16,
             'result': 'pass', 'violate': 'unaligned', 'expect_wc_status': 9,
             'test_id': 2, 'status': -22 if wc is None else -5}
        if refused:
            c['refused_at_post'] = True
        if wc is not None:
            c['wc_status'] = wc
        cases.append(c)
        doc['passed'] += 1
    return change


expect('conform-table: a negative case refused at post',
       ['conform-table', conform_doc(['write'], change=conform_neg_post(True)), '3'], 0)
expect('conform-table: a negative case with no failed completion, not refused at post',
       ['conform-table', conform_doc(['write'], change=conform_neg_post(False)), '3'], 1)
expect('conform-table: refused at post, yet a completion of another status',
       ['conform-table', conform_doc(['write'], change=conform_neg_post(True, 10)), '3'], 1)


def conform_neg_iwarp(cases, doc):
    cases.append({'case': 'write.out_of_bounds', 'op': 'write', 'size': 1, 'result': 'pass',
                  'violate': 'out_of_bounds', 'expect': 'the connection terminated',
                  'test_id': 2, 'status': -104})
    doc['passed'] += 1


expect('conform-table: a negative case on iWARP',
       ['conform-table', conform_doc(['write'], change=conform_neg_iwarp), '3'], 0,
       '3 cases: 3 passed, 0 failed, 0 skipped')
expect('conform-table: a known deviation',
       ['conform-table', conform_doc(['write'], change=conform_neg(11, result='fail')), '3',
        '--deviation', 'write.out_of_bounds=11'], 0, '3 cases: 2 passed, 1 failed, 0 skipped')
expect('conform-table: a known deviation, another status',
       ['conform-table', conform_doc(['write'], change=conform_neg(4, result='fail')), '3',
        '--deviation', 'write.out_of_bounds=11'], 1)
expect('conform-table: a known deviation of two statuses, one of them',
       ['conform-table', conform_doc(['write'], change=conform_neg(11, result='fail')), '3',
        '--deviation', 'write.out_of_bounds=none,11'], 0, '3 cases: 2 passed, 1 failed, 0 skipped')
expect('conform-table: a known deviation of two statuses, neither',
       ['conform-table', conform_doc(['write'], change=conform_neg(4, result='fail')), '3',
        '--deviation', 'write.out_of_bounds=none,11'], 1)
expect('conform-table: a deviation of none or a status, without a failed completion',
       ['conform-table', conform_doc(['write'], change=conform_fail_reset), '2',
        '--deviation', 'write.mtu=none,2'], 0, '2 cases: 1 passed, 1 failed, 0 skipped')
expect('conform-table: a known deviation fixed',
       ['conform-table', conform_doc(['write'], change=conform_neg(10)), '3',
        '--deviation', 'write.out_of_bounds=11'], 1)
expect('conform-table: not its document', ['conform-table', write('x', {'results': []}), '2'], 2)

subprocess.run(['rm', '-rf', TMP], check=False)
print(f'{passed} passed, {failed} failed')
sys.exit(1 if failed else 0)
