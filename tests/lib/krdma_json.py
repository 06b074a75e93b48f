#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""JSON checks of the krdma guest tests: snapshots of what the guest kernel
holds (RDMA resources, send PSNs, slab caches, krdma's tests and events)
and their comparisons. The shell helpers of tests/lib/guest-common.sh call
it as

    python3 $KRDMA_ROOT/tests/lib/krdma_json.py COMMAND ARGS...

A check exits 0 when it holds, 1 when it does not (2: unusable input), so
it can be run by hand on a saved (or doctored) snapshot:

    krdma_json.py rdma-cmp before.json after.json same; echo $?

Commands that read `rdma -j resource show ...` or `ss -tinH` output take
it on stdin; those that snapshot the running kernel (rdma-snap, slab-snap)
read it themselves.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

RDMA_RES = ('qp', 'cq', 'mr', 'pd', 'cm_id')


def load(path):
    with open(path, encoding='utf-8') as f:
        return json.load(f)


# ---- RDMA resources ---------------------------------------------------------

def rdma_show(what=None):
    """`rdma -j resource show [WHAT]`, decoded (None if it fails)."""
    cmd = ['rdma', '-j', 'resource', 'show'] + ([what] if what else [])
    try:
        out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             check=False).stdout
        return json.loads(out) if out.strip() else None
    except (OSError, ValueError):
        return None


def rdma_summary(raw):
    """RAW: {"summary": <resource show>, "qp": <resource show qp>, ...}.
    The totals of the summary (all devices), the number of entries of each
    object list, by owner (a kernel object's "comm" is the module that
    created it, e.g. krdma or ib_core), and how many of them krdma owns."""
    tot = {}
    for e in raw['summary'] or []:
        for k, v in e.items():
            if k not in ('ifindex', 'ifname') and isinstance(v, int):
                tot[k] = tot.get(k, 0) + v
    out = {'totals': tot, 'lists': {}, 'owners': {}, 'krdma': {}}
    for r in RDMA_RES:
        lst = raw[r] or []
        own = {}
        for x in lst:
            c = str(x.get('comm', '?')).strip('[]')
            own[c] = own.get(c, 0) + 1
        out['lists'][r] = len(lst)
        out['owners'][r] = own
        # KBUILD_MODNAME of a module built from a subdirectory: "kmod/krdma".
        out['krdma'][r] = sum(v for c, v in own.items() if c.split('/')[-1] == 'krdma')
    return out


def rdma_snap():
    raw = {'summary': rdma_show()}
    for r in RDMA_RES:
        raw[r] = rdma_show(r)
    return rdma_summary(raw)


def rdma_cmp(before, after, mode):
    """same: everything as BEFORE; unloaded: krdma owns nothing and the
    totals are BEFORE's minus what krdma owned then; no_queues: krdma owns
    no QP or CQ, and no MR beyond BEFORE's (a device's own, held from its
    add: rxe's registration fence; listeners may still exist); no_more:
    nothing of any kind, krdma's or in all, beyond BEFORE's (what a run
    leaves behind grows a count; what an earlier test held may have gone)."""
    if mode == 'same':
        return after == before
    if mode == 'no_more':
        return all(after[part].get(k, 0) <= before[part].get(k, 0)
                   for part in ('krdma', 'totals') for k in after[part])
    if mode == 'unloaded':
        want = {k: v - before['krdma'].get(k, 0) for k, v in before['totals'].items()}
        return all(v == 0 for v in after['krdma'].values()) and after['totals'] == want
    if mode == 'no_queues':
        return (all(after['krdma'][k] == 0 for k in ('qp', 'cq')) and
                after['krdma']['mr'] <= before['krdma'].get('mr', 0))
    raise ValueError(f'rdma-cmp: unknown mode {mode!r}')


# iproute2 names the kernel's poll contexts by the enum's order before the
# kernel moved IB_POLL_DIRECT last (v5.5): it prints DIRECT for SOFTIRQ,
# SOFTIRQ for WORKQUEUE, WORKQUEUE for UNBOUND_WORKQUEUE.
IPROUTE2_POLL = ['DIRECT', 'SOFTIRQ', 'WORKQUEUE', 'UNBOUND_WORKQUEUE']
KERNEL_POLL = ['SOFTIRQ', 'WORKQUEUE', 'UNBOUND_WORKQUEUE', 'DIRECT']


def cqs_in(cqs, ctx):
    """How many CQs of `rdma resource show cq` poll in CTX, the kernel's
    enum ib_poll_context name (SOFTIRQ, WORKQUEUE, ...)."""
    return [KERNEL_POLL[IPROUTE2_POLL.index(c['poll-ctx'])] for c in cqs
            if c.get('poll-ctx') in IPROUTE2_POLL].count(ctx)


def rc_qps(qps):
    return sum(1 for q in qps if q.get('type') == 'RC')


def psn_snap(qps):
    """The send PSN of each RC QP of `rdma resource show qp`, by QP number."""
    return {str(q['lqpn']): q.get('sq-psn', 0) for q in qps if q.get('type') == 'RC'}


def tcp_kib_sent(lines):
    """iWARP's stand-in for PSNs: KiB sent by each TCP connection of
    `ss -tinH`, by its addresses."""
    out, key = {}, None
    for line in lines:
        f = line.split()
        if line[0] not in ' \t' and len(f) >= 5:
            key = f[3] + '-' + f[4]
        elif key and 'bytes_sent:' in line:
            out[key] = int(re.search(r'bytes_sent:(\d+)', line).group(1)) // 1024
    return out


def psn_moved(before, after, nqps, least, only=False):
    """(ok, deltas): at least NQPS QPs sent LEAST packets or more between the
    two snapshots (PSNs are 24 bits); with ONLY, no more than NQPS did."""
    d = sorted(((after[q] - before[q]) % (1 << 24) for q in after if q in before),
               reverse=True)
    ok = len(d) >= nqps and d[nqps - 1] >= least and (not only or len(d) == nqps or
                                                       d[nqps] < least)
    return ok, d


# ---- slab -------------------------------------------------------------------

def slab_snap():
    """Allocated objects of every slab cache and the Slab lines of
    /proc/meminfo. SLUB counts every object of a per-CPU slab as allocated
    (/proc/slabinfo's active_objs, the "objects" file): the count jumps by
    up to a slab's worth of objects (512 for kmalloc-8, 64 for kmalloc-64,
    21 for kmalloc-192) whenever a CPU takes a new slab, which made two idle
    snapshots differ by up to 347 objects. So each cache is shrunk (per-CPU
    slabs flushed to the node lists, whose free objects are counted) and
    its "objects" read at once, through files opened and read beforehand
    (no allocation in between), three times, keeping the smallest count.
    The caller drops reclaimable slab (dentries, inodes) first."""
    dirs = {}
    for d in glob.glob('/sys/kernel/slab/*'):  # merged caches are symlinks
        dirs.setdefault(os.path.realpath(d), []).append(os.path.basename(d))
    caches, other = {}, {}
    for real, names in sorted(dirs.items()):
        km = sorted(n for n in names if 'kmalloc-' in n)
        try:
            sh = os.open(real + '/shrink', os.O_WRONLY)
            ob = os.open(real + '/objects', os.O_RDONLY)
        except OSError:
            continue
        os.read(ob, 4096)  # the read buffer is allocated now, not later
        best = None
        for _ in range(3):
            os.write(sh, b'1')
            os.lseek(ob, 0, os.SEEK_SET)
            n = int(os.read(ob, 4096).split()[0])
            best = n if best is None else min(best, n)
        os.close(ob)
        os.close(sh)
        with open(real + '/object_size', encoding='ascii') as f:
            size = int(f.read())
        if km:
            caches['/'.join(km)] = [best, size]
        else:
            other[min(names, key=lambda n: (n.startswith(':'), n))] = [best, size]
    mem = {}
    with open('/proc/meminfo', encoding='ascii') as f:
        for line in f:
            k, v = line.split(':', 1)
            if k in ('Slab', 'SReclaimable', 'SUnreclaim'):
                mem[k] = int(v.split()[0])
    return {'caches': caches, 'other': other, 'meminfo': mem}


def slab_cmp(b, a, m, tol_objs, tol_kb):
    """The verdict and the numbers of BEFORE -> AFTER, with MID the snapshot
    taken halfway (or None); tests/guest/cycles.sh says why so."""
    bc, ac, bm, am = b['caches'], a['caches'], b['meminfo'], a['meminfo']
    km = sorted(set(ac) | set(bc))
    d = {n: ac.get(n, [0, 0])[0] - bc.get(n, [0, 0])[0] for n in km}
    size = {n: (ac.get(n) or bc.get(n))[1] for n in km}

    # The increase over the first half, per cache and of SUnreclaim.
    mc = m['caches'] if m else {}
    first = {n: mc[n][0] - bc.get(n, [0, 0])[0] for n in km if n in mc}
    sunr = am.get('SUnreclaim', 0) - bm.get('SUnreclaim', 0)
    sunr_first = m['meminfo'].get('SUnreclaim', 0) - bm.get('SUnreclaim', 0) if m else None

    def growth(total, first):
        """What grew in both halves (all of it without a midpoint)."""
        return total if first is None else 2 * min(first, total - first)

    g = {n: growth(d[n], first.get(n)) for n in km}
    worst = max(km, key=lambda n: (g[n], d[n])) if km else None
    res = {
        'worst_cache': worst, 'worst_delta_objs': d[worst] if worst else 0,
        'worst_growth_objs': g[worst] if worst else 0,
        'kmalloc_delta_bytes': sum(d[n] * size[n] for n in km),
        'sunreclaim_delta_kb': sunr,
        'sunreclaim_growth_kb': growth(sunr, sunr_first),
        'slab_delta_kb': am.get('Slab', 0) - bm.get('Slab', 0),
        'slab_base_kb': bm.get('Slab', 0),
        'changed': {n: d[n] for n in km if d[n]},
    }
    bo, ao = b.get('other', {}), a.get('other', {})
    od = {n: ao.get(n, [0, 0])[0] - bo.get(n, [0, 0])[0] for n in set(ao) | set(bo)}
    osz = {n: (ao.get(n) or bo.get(n))[1] for n in od}
    top = sorted((n for n in od if od[n]), key=lambda n: -abs(od[n] * osz[n]))[:5]
    res['other_top'] = {n: '%+d objs %+d B' % (od[n], od[n] * osz[n]) for n in top}
    if m:
        res['halves'] = {n: [first[n], d[n] - first[n]] for n in first if d[n] > 0}
    res['objs_ok'] = len(km) > 5 and res['worst_growth_objs'] <= tol_objs
    res['meminfo_ok'] = res['sunreclaim_growth_kb'] <= tol_kb
    return res


def slab_add(snap, cache, n):
    """SNAP with N objects more in CACHE: a leak, for proving slab-cmp fails."""
    snap['caches'][cache][0] += n
    return snap


# ---- krdma's tests and events -----------------------------------------------

def tests_running(tests, least):
    """At least LEAST tests of `krdmactl -j test show` run, each past
    iteration 0."""
    return len([t for t in tests if t['state'] == 'running' and t['iters'] > 0]) >= least


def events_summary(events, test_ids):
    """What `krdmactl -j monitor` saw: the sessions that came up, how many of
    them went down with a reason, and how many of TEST_IDS failed with one."""
    up = {e['session_id'] for e in events if e['event'] == 'session_up'}
    down = {e['session_id']: e.get('reason', '') for e in events
            if e['event'] == 'session_down'}
    done = {e['test_id']: e for e in events if e['event'] == 'test_done'}
    return {
        'up': len(up),
        'down_with_reason': len([s for s in up if down.get(s)]),
        'reasons': sorted(set(down.values())),
        'tests_failed_with_reason': len([t for t in test_ids if t in done and
                                         done[t]['status'] != 0 and done[t].get('reason')]),
        'test_reasons': sorted({done[t].get('reason', '') for t in test_ids if t in done}),
    }


# ---- rate limits -------------------------------------------------------------

# A lane's burst: about this long at its share of the rate (s), never
# longer than RATE_SPAN_MAX; a count test under the rate lasts about
# RATE_COUNT_S. A lane whose timer came late makes up one burst's span
# at most: under TCG on a loaded host (load 12 on two cores) timers came
# 60-150 ms late, and lanes with 50-85 ms bursts got 0.5x-0.8x of their
# rate. A burst is at most a chain (the count runs set it as one).
RATE_SPAN = 0.25
RATE_SPAN_MAX = 0.4
RATE_COUNT_S = 2.5
RATE_BURST_MAX = 32


def one_result(doc):
    """The one result of DOC, `krdmactl -j test run`'s document of one
    size (schema 3: {"schema_version", "results": [...], "env"}); None for
    anything else (a sweep's, one with no result, the older shapes)."""
    if (isinstance(doc, dict) and doc.get('schema_version', 0) >= 3 and
            isinstance(doc.get('results'), list) and len(doc['results']) == 1):
        return doc['results'][0]
    return None


def rate_plan(doc):
    """The rate limit to test with, from RES, a bw result of the same test
    run unlimited (its size, QPs and depth): a quarter of its bytes/s, so
    that a limiter that holds nothing is caught, whatever the kernel's
    speed (the debug kernel moves a tenth of Debian's). A lane's burst is
    about RATE_SPAN of its share: short against a test of 5 s, so its
    average is measurable in that time, and long enough to absorb a late
    timer; the rate is raised where a single message would be longer than
    RATE_SPAN_MAX. COUNT messages take about
    RATE_COUNT_S, the first bursts (free) a tenth of them at most."""
    res = one_result(doc)
    if res is None:
        raise ValueError('not the document of one test run')
    if res['status'] or not res['bytes'] or not res['elapsed_ns']:
        raise ValueError('the unlimited test moved nothing')
    # On iWARP 4 QPs are 3 lanes (the data channels): qp lists them.
    lanes, size = len(res.get('qp') or []) or res['qps'], res['size']
    unlimited = res['bytes'] * 1e9 / res['elapsed_ns']
    rate = int(max(unlimited / 4, lanes * size / RATE_SPAN_MAX))
    burst = max(1, min(RATE_BURST_MAX, res['depth'], int(rate * RATE_SPAN / (lanes * size))))
    count = max(10 * burst * lanes, int(rate * RATE_COUNT_S / size))
    return {'unlimited': int(unlimited), 'rate': rate, 'mbps': f'{rate / 1e6:.6f}',
            'burst': burst, 'count': count}


# ---- conformance -------------------------------------------------------------

def conform_table(doc, ncases, skip_ops, deviations=None, skip_cases=(),
                  intermittent=None):
    """`krdmactl -j conform`'s document DOC holds the table expected: NCASES
    cases, each `pass` but those of an op of SKIP_OPS (what the device
    lacks) and the cases of SKIP_CASES, each `skip`, and the device's known
    DEVIATIONS ({case: the
    completion statuses it gives instead, None for none}), each `fail`
    with one of those;
    the device's INTERMITTENT ones ({case: the statuses it gives}) `pass`
    or `fail` with one of those;
    a positive case that ran validated every one of its iterations, a
    negative one failed on the status the specification names; and the
    totals agree. (ok, what it found: a line per case that is not as
    expected, then the totals)."""
    deviations = dict(deviations or {})
    intermittent = intermittent or {}
    cases = doc['cases']
    bad = []
    for c in cases:
        # A negative case says what it expects: a rule broken, or a
        # retry count run out (the RNR case, which breaks no rule).
        negative = 'expect_wc_status' in c or 'expect' in c
        want = ('skip' if c['op'] in skip_ops or c['case'] in skip_cases else
                'fail' if c['case'] in deviations else 'pass')
        # A bug that shows when the timing lets it: either is as known.
        if (c['case'] in intermittent and c['result'] == 'fail' and
                c.get('wc_status') in intermittent[c['case']]):
            want = 'fail'
            deviations[c['case']] = {c.get('wc_status')}
        if c['result'] != want:
            bad.append(f"{c['case']}: {c['result']}, want {want}"
                       f"{': ' + c['reason'] if c.get('reason') else ''}")
        elif want == 'fail' and c.get('wc_status') not in deviations[c['case']]:
            known = ' or '.join('none' if s is None else str(s)
                                for s in sorted(deviations[c['case']],
                                                key=lambda s: -1 if s is None else s))
            bad.append(f"{c['case']}: fail with status {c.get('wc_status')}, "
                       f"the deviation known is {known}")
        elif want == 'pass' and negative and not (
                c['status'] != 0 and
                (c.get('wc_status') == c['expect_wc_status'] or
                 (c.get('refused_at_post') and 'wc_status' not in c)
                 if 'expect_wc_status' in c
                 else c.get('expect') == 'the connection terminated')):
            bad.append(f"{c['case']}: pass with status {c['status']}, "
                       f"completion {c.get('wc_status')}, "
                       f"want {c.get('expect_wc_status', c.get('expect'))}")
        elif want == 'pass' and not negative and not (
                c['status'] == 0 and c['validated'] == c['iters'] == c['count'] > 0):
            bad.append(f"{c['case']}: pass with status {c['status']}, "
                       f"{c['validated']} validated of {c['iters']} of {c['count']}")
    tally = {r: len([c for c in cases if c['result'] == r]) for r in ('pass', 'fail', 'skip')}
    if len(cases) != ncases:
        bad.append(f'{len(cases)} cases, want {ncases}')
    if (doc['passed'], doc['failed'], doc['skipped']) != (tally['pass'], tally['fail'],
                                                         tally['skip']):
        bad.append('the totals are not the table\'s')
    if doc.get('interrupted'):
        bad.append('interrupted')
    bad.append(f"{len(cases)} cases: {tally['pass']} passed, {tally['fail']} failed, "
               f"{tally['skip']} skipped")
    return len(bad) == 1, bad


# ---- command line -----------------------------------------------------------

def dump(obj, path=None):
    text = json.dumps(obj, sort_keys=True)
    if path:
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text + '\n')
    else:
        print(text)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n', 1)[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('rdma-snap', help='RDMA resources now, into OUT')
    p.add_argument('out')
    p = sub.add_parser('rdma-cmp', help='two rdma-snap files agree (MODE: same, '
                       'unloaded, no_queues, no_more)')
    p.add_argument('before')
    p.add_argument('after')
    p.add_argument('mode', choices=('same', 'unloaded', 'no_queues', 'no_more'))
    p = sub.add_parser('cqs-in', help='CQs polled in CTX (stdin: rdma -j resource show cq)')
    p.add_argument('ctx')
    sub.add_parser('rc-qps', help='RC QPs (stdin: rdma -j resource show qp)')
    sub.add_parser('psn-snap', help='send PSN by QP (stdin: rdma -j resource show qp)')
    sub.add_parser('tcp-snap', help='KiB sent by TCP connection (stdin: ss -tinH)')
    p = sub.add_parser('psn-moved', help='NQPS QPs sent LEAST packets each between '
                       'two psn-snap/tcp-snap files (ONLY: and no more QPs did)')
    p.add_argument('before')
    p.add_argument('after')
    p.add_argument('nqps', type=int)
    p.add_argument('least', type=int)
    p.add_argument('only', nargs='?', choices=('only',))
    p = sub.add_parser('slab-snap', help='slab caches now, into OUT')
    p.add_argument('out')
    p = sub.add_parser('slab-cmp', help='BEFORE -> AFTER [MID] of slab-snap files, as '
                       'JSON with objs_ok and meminfo_ok')
    p.add_argument('tol_objs', type=int)
    p.add_argument('tol_kb', type=int)
    p.add_argument('before')
    p.add_argument('after')
    p.add_argument('mid', nargs='?')
    p = sub.add_parser('slab-add', help='slab-snap IN with N objects more in CACHE, '
                       'into OUT')
    p.add_argument('inp')
    p.add_argument('cache')
    p.add_argument('n', type=int)
    p.add_argument('out')
    p = sub.add_parser('tests-running', help='at least N tests run past iteration 0 '
                       '(stdin: krdmactl -j test show)')
    p.add_argument('least', type=int)
    p = sub.add_parser('events', help='sessions and tests ending with a reason, in '
                       'a krdmactl -j monitor output')
    p.add_argument('monitor_out')
    p.add_argument('test_ids', nargs='*', type=lambda x: int(x or 0))
    p = sub.add_parser('rate-plan', help='"UNLIMITED RATE MBPS BURST COUNT" to hold the '
                       'bw test of the result IN to (rate_plan())')
    p.add_argument('inp')
    p = sub.add_parser('conform-table', help='the krdmactl -j conform document IN has '
                       'NCASES cases, each pass but those of SKIP_OPS, each skip')
    p.add_argument('inp')
    p.add_argument('ncases', type=int)
    p.add_argument('skip_ops', nargs='*')
    p.add_argument('--deviation', action='append', default=[],
                   metavar='CASE=WC_STATUS[,WC_STATUS...]',
                   help='a case the device is known to fail, and the statuses it gives '
                   '(none: it fails with no completion failed)')
    p.add_argument('--intermittent', action='append', default=[],
                   metavar='CASE=WC_STATUS[,WC_STATUS...]',
                   help='a case the device fails so in some runs, and passes in others')
    p.add_argument('--skip-case', action='append', default=[], metavar='CASE',
                   help='a case the device skips (beside those of SKIP_OPS)')
    args = ap.parse_args(argv)

    try:
        if args.cmd == 'rdma-snap':
            dump(rdma_snap(), args.out)
        elif args.cmd == 'rdma-cmp':
            return 0 if rdma_cmp(load(args.before), load(args.after), args.mode) else 1
        elif args.cmd == 'cqs-in':
            print(cqs_in(json.load(sys.stdin), args.ctx))
        elif args.cmd == 'rc-qps':
            print(rc_qps(json.load(sys.stdin)))
        elif args.cmd == 'psn-snap':
            print(json.dumps(psn_snap(json.load(sys.stdin))))
        elif args.cmd == 'tcp-snap':
            print(json.dumps(tcp_kib_sent(sys.stdin)))
        elif args.cmd == 'psn-moved':
            ok, d = psn_moved(load(args.before), load(args.after), args.nqps, args.least,
                              bool(args.only))
            print(d)
            return 0 if ok else 1
        elif args.cmd == 'slab-snap':
            dump(slab_snap(), args.out)
        elif args.cmd == 'slab-cmp':
            mid = load(args.mid) if args.mid else None
            dump(slab_cmp(load(args.before), load(args.after), mid, args.tol_objs,
                          args.tol_kb))
        elif args.cmd == 'slab-add':
            dump(slab_add(load(args.inp), args.cache, args.n), args.out)
        elif args.cmd == 'tests-running':
            return 0 if tests_running(json.load(sys.stdin), args.least) else 1
        elif args.cmd == 'events':
            with open(args.monitor_out, encoding='utf-8') as f:
                events = [json.loads(line) for line in f if line.strip()]
            dump(events_summary(events, args.test_ids))
        elif args.cmd == 'conform-table':
            # WC_STATUS 'none': the case fails without a failed completion.
            def statuses(pairs):
                return {d.split('=')[0]: {None if s == 'none' else int(s)
                                          for s in d.split('=')[1].split(',')}
                        for d in pairs}
            ok, lines = conform_table(load(args.inp), args.ncases, set(args.skip_ops),
                                      statuses(args.deviation), set(args.skip_case),
                                      statuses(args.intermittent))
            print('\n'.join(lines))
            return 0 if ok else 1
        elif args.cmd == 'rate-plan':
            r = rate_plan(load(args.inp))
            print(r['unlimited'], r['rate'], r['mbps'], r['burst'], r['count'])
    except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
        print(f'krdma_json {args.cmd}: {e!r}', file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())
