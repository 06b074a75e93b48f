#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""One python for a whole guest test: evaluates the JSON checks of
tests/lib/guest-common.sh (json_check, json_get, krdma_json, ...). An
expression sees the JSON read as d and, where d is the document of a
`krdmactl -j test run` of one size, its one result as r (d['results'][0]:
r['status'], and d['env'] for where it ran).

Why: in a TCG guest that reads its programs over 9p, starting python3 and
importing json takes about a second (measured: 1.0 s, against 0.1 s for
any small binary), and a test makes one or two hundred checks. This
server starts once, when guest-common.sh is sourced, and answers each
check in milliseconds. The checks mean exactly what they meant as
`python3 -c` one-shots: the same expression over the same `d`, false on
any exception.

    pyeval.py DIR SHELLPID

makes the FIFOs DIR/ctl and DIR/rep, then DIR/ready, and serves until
SHELLPID (the test's shell) is gone. `pyeval.py --once MODE INPUT BODY`
answers one request the same way, for a shell without the server.

A request (see _pyeval in guest-common.sh): the client holds DIR/lock
(made with noclobber, its PID inside) and writes DIR/req:

    line 1: MODE   test (exit status only), print (print the value),
                   krdma_json or genl (run that script's main), genl_err
                   (genl.py -j's output shows the error wanted)
    line 2: INPUT  the file to read stdin / d from ("-": none); the client
                   writes what its own stdin had into a file first
    rest:   BODY   the python expression (test, print), the arguments,
                   each ended by a newline (krdma_json, genl), or the
                   errno name, message regex and attribute, one a line
                   (genl_err)

then writes "go" to DIR/ctl and reads DIR/rep (a FIFO): the exit status
on the first line, the number N of lines printed on the second, those N
lines, then what went to stderr (krdma_json's messages). It then writes
"done" to DIR/ctl, and this server removes DIR/lock: only the server
removes it, also when its holder was killed (drop_stale_lock()).
"""
import contextlib
import errno
import io
import json
import os
import re
import select
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import genl  # noqa: E402  (beside this file)
import krdma_json  # noqa: E402


def open_input(path):
    """PATH for reading; "-": nothing to read. (The client has put what
    its stdin had in a file: see _pyeval.)"""
    return open(path, encoding='utf-8') if path != '-' else io.StringIO('')


def run_program(main, src, args):
    """A script's main(ARGS) with stdin SRC, as if run on its own."""
    out, err = io.StringIO(), io.StringIO()
    stdin = open_input(src)
    saved = sys.stdin
    try:
        sys.stdin = stdin
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            st = main(args)
    except SystemExit as e:
        st = e.code if isinstance(e.code, int) else 1
    except Exception as e:  # one that cannot run has failed
        st = 2
        err.write('%s: %r\n' % (main.__module__, e))
    finally:
        sys.stdin = saved
        stdin.close()
    return (st or 0), out.getvalue(), err.getvalue()


def genl_error_is(text, want_errno, want_re, want_attr):
    """genl.py -j's error (its last line) is the one wanted: errno name
    WANT_ERRNO ("-": any), extended ACK message matching WANT_RE (empty: no
    check), offending attribute WANT_ATTR ("-": no check; "miss:NAME": the
    kernel reports NAME missing)."""
    d = json.loads(text.strip().splitlines()[-1])
    ok = want_errno in ('-', d['errname'])
    if want_re:
        ok = ok and d['msg'] and re.search(want_re, d['msg'])
    if want_attr.startswith('miss:'):
        ok = ok and d['miss_type'] == want_attr[5:]
    elif want_attr != '-':
        ok = ok and d['attr'] == want_attr
    return bool(ok)


def evaluate(mode, src, body):
    """Returns (status, stdout, stderr) as the one-shot python would have."""
    if mode in ('krdma_json', 'genl'):
        # BODY: the arguments, each ended by a newline.
        return run_program(krdma_json.main if mode == 'krdma_json' else genl.main,
                           src, body.split('\n')[:-1])
    if mode == 'genl_err':
        try:
            with open_input(src) as f:
                ok = genl_error_is(f.read(), *body.split('\n'))
        except Exception:
            ok = False
        return (0 if ok else 1), '', ''
    # test and print: any exception is a false check, as with 2>/dev/null.
    try:
        with open_input(src) as f:
            d = json.load(f)
        # d a global, as in the one-shot scripts: comprehensions see it;
        # r the one result of a `krdmactl -j test run` of one size (None,
        # so that r[...] is a false check, for anything else).
        val = eval('(' + body + '\n)', {'json': json, 'd': d,
                                         'r': krdma_json.one_result(d)})
    except Exception:
        return 1, '', ''
    if mode == 'print':
        return 0, '%s\n' % (val,), ''
    return (0 if val else 1), '', ''


def serve(d, shell):
    ctl = os.path.join(d, 'ctl')
    os.mkfifo(ctl)
    os.mkfifo(os.path.join(d, 'rep'))
    # Read and write: the FIFO never reports end-of-file between clients.
    fd = os.open(ctl, os.O_RDWR)
    with open(os.path.join(d, 'ready.new'), 'w', encoding='utf-8') as f:
        f.write('%d\n' % os.getpid())
    os.rename(os.path.join(d, 'ready.new'), os.path.join(d, 'ready'))
    buf = b''
    while True:
        ready, _, _ = select.select([fd], [], [], 1.0)
        if not ready:
            if not os.path.exists('/proc/%d' % shell):
                shutil.rmtree(d, ignore_errors=True)
                return 0
            drop_stale_lock(d)
            continue
        buf += os.read(fd, 4096)
        while b'\n' in buf:
            line, buf = buf.split(b'\n', 1)
            if line == b'go':
                answer(d)
            elif line == b'done':
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(os.path.join(d, 'lock'))


def reply(st, out, err):
    if out and not out.endswith('\n'):
        out += '\n'
    return '%d\n%d\n%s%s' % (st, out.count('\n'), out, err)


def drop_stale_lock(d):
    """A client killed while it held the lock (a test's background job)
    would leave every later one waiting. Only this server removes the
    lock, so no client can take it between the look and the unlink."""
    lock = os.path.join(d, 'lock')
    try:
        with open(lock, encoding='utf-8') as f:
            pid = f.read().strip()
        age = time.time() - os.stat(lock).st_mtime
    except OSError:
        return
    # Empty: made but its PID not written yet, or never (killed between).
    if (pid and not os.path.exists('/proc/' + pid)) or (not pid and age > 5):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(lock)


def answer(d):
    try:
        with open(os.path.join(d, 'req'), encoding='utf-8') as f:
            mode = f.readline().rstrip('\n')
            src = f.readline().rstrip('\n')
            body = f.read()
        text = reply(*evaluate(mode, src, body))
        # The client's input files, one per subshell PID: read once.
        if os.path.dirname(src) == d:
            with contextlib.suppress(OSError):
                os.unlink(src)
    except Exception as e:  # never die on a bad request: answer it
        text = reply(2, '', 'pyeval: %r\n' % (e,))
    # The client opens the reply FIFO right after its "go"; one that died
    # before doing so must not hang the server: wait for it 30 s at most.
    rep = os.path.join(d, 'rep')
    for _ in range(3000):
        try:
            fd = os.open(rep, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError as e:
            if e.errno != errno.ENXIO:
                raise
            time.sleep(0.01)
    else:
        return
    os.set_blocking(fd, True)
    # A client gone in the middle: nothing to do but go on.
    with contextlib.suppress(BrokenPipeError):
        with os.fdopen(fd, 'w', encoding='utf-8') as f:
            f.write(text)


def once(mode, src, body):
    st, out, err = evaluate(mode, src, body)
    sys.stdout.write(out)
    sys.stderr.write(err)
    return st


if __name__ == '__main__':
    if sys.argv[1] == '--once':
        sys.exit(once(*sys.argv[2:5]))
    sys.exit(serve(sys.argv[1], int(sys.argv[2])))
