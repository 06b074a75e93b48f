#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every krdmactl command line the documentation shows works when pasted.

Extracts the krdmactl command lines of README.md, Documentation/usage.rst,
Documentation/troubleshooting.rst, Documentation/conformance.rst, the EXAMPLES (every .EX block) of
Documentation/krdmactl.8 and the examples ("$ krdmactl ...") of
"krdmactl [OBJECT] help"; splits each as sh would, failing on anything sh
would take for a redirection, a pipe, a glob or an expansion in the middle
of a word (expect bw>=500 is "expect bw" writing to a file "=500"), and
checks the words against Python's shlex (POSIX rules); and
runs what is left through "krdmactl --parse-only", krdmactl's own parser,
failing on every line it does not accept.

Usage: doc_commands.py --krdmactl PATH [ FILE... ]
  FILE: .md, .rst or .8 (default: the files above); "-" for none (help only)
Ends with "N passed, M failed"; exit 1 if anything failed.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
DOCS = ['README.md', 'Documentation/usage.rst',
        'Documentation/troubleshooting.rst', 'Documentation/conformance.rst',
        'Documentation/krdmactl.8']
# A command line: the tool's name, a prompt before it, sudo.
CMD_RE = re.compile(r'^(?:[$#] )?(?:sudo )?(krdmactl\s.*)$')


class ShellError(Exception):
    pass


def sh_words(line):
    """The words sh makes of line, up to a comment or the end of the
    command (|, ;, & at a word's start). A redirection at a word's start
    (">today.json") is the author's and is dropped with its target; a
    metacharacter inside a word is what a paste would mangle: ShellError."""
    words, cur, i, n = [], None, 0, len(line)
    redirect = False	# the next word is a redirection's target

    def end_word():
        nonlocal cur, redirect
        if cur is not None:
            if not redirect:
                words.append(cur)
            redirect = False
        cur = None

    while i < n:
        c = line[i]
        if c in ' \t':
            end_word()
        elif c == "'":
            j = line.find("'", i + 1)
            if j < 0:
                raise ShellError('unterminated \'')
            cur = (cur or '') + line[i + 1:j]
            i = j
        elif c == '"':
            j, s = i + 1, ''
            while j < n and line[j] != '"':
                if line[j] in '$`':
                    raise ShellError('"%s" inside double quotes: an expansion' % line[j])
                if line[j] == '\\' and j + 1 < n and line[j + 1] in '"\\$`':
                    j += 1
                s += line[j]
                j += 1
            if j >= n:
                raise ShellError('unterminated "')
            cur = (cur or '') + s
            i = j
        elif c == '\\':
            if i + 1 >= n:
                raise ShellError('a \\ at the end of the line')
            cur = (cur or '') + line[i + 1]
            i += 1
        elif c == '#' and cur is None:
            break
        elif c in '<>':
            # ">file", "2>file", ">>file", "2>&1": the author's redirection.
            if cur is not None and not cur.isdigit():
                raise ShellError("unquoted '%s' in '%s': the shell reads a redirection"
                                 % (c, cur + line[i:].split()[0]))
            cur = None
            while i + 1 < n and line[i + 1] in '<>&':
                i += 1
            redirect = True
        elif c in '|;&':
            if cur is not None:
                raise ShellError("unquoted '%s' in '%s': the shell ends the command there"
                                 % (c, cur + line[i:].split()[0]))
            break
        elif c in '*?[':
            raise ShellError("unquoted '%s' in '%s': the shell expands a pattern"
                             % (c, (cur or '') + line[i:].split()[0]))
        elif c in '$`()':
            raise ShellError("unquoted '%s' in '%s': the shell expands or groups"
                             % (c, (cur or '') + line[i:].split()[0]))
        else:
            cur = (cur or '') + c
        i += 1
    if redirect and cur is None:
        raise ShellError('a redirection without a target')
    end_word()
    return words


def shlex_words(line):
    """The same line through Python's shlex (POSIX rules, sh's operators
    as tokens), reduced as sh_words() reduces it: up to a comment or the
    end of the command, redirections and their targets dropped. A second
    opinion on the hand-written splitter, which alone knows what sh would
    do to a metacharacter inside a word."""
    lex = shlex.shlex(line, posix=True, punctuation_chars=True)
    lex.whitespace_split = True
    lex.commenters = ''	# sh: only at a word's start (shlex: anywhere)
    words = []
    # Token by token: what follows a comment is not read (an apostrophe
    # in "# one test's events" opens no quote).
    for t in lex:
        if t.startswith('#') or t[:1] in ('|', ';', '&', '('):
            break
        if t[:1] in ('<', '>'):
            # "2>file": sh takes the digits for the descriptor.
            if words and words[-1].isdigit() and \
                    re.search(r'(^|\s)%s%s' % (re.escape(words[-1]),
                                              re.escape(t)), line):
                words.pop()
            next(lex, None)	# its target
            continue
        words.append(t)
    return words


def selftest():
    """The splitter itself: what it must refuse, what it must keep."""
    bad = ['krdmactl test run expect bw>=500', 'krdmactl x expect p99<=2ms',
           'krdmactl compare *.json baseline b', 'krdmactl ping [fe80::1%eth0]:7471',
           'krdmactl x a|b', "krdmactl x 'open", 'krdmactl x $HOST',
           'krdmactl x >']
    good = {
        "krdmactl x expect 'bw>=500' expect \"p99<=2ms\"":
            ['krdmactl', 'x', 'expect', 'bw>=500', 'expect', 'p99<=2ms'],
        'krdmactl -j test run x >today.json': ['krdmactl', '-j', 'test', 'run', 'x'],
        'krdmactl -j x 2>/dev/null | jq .': ['krdmactl', '-j', 'x'],
        'krdmactl a "b c" # a comment': ['krdmactl', 'a', 'b c'],
        r'krdmactl ping \[fe80::1%eth0\]:7471': ['krdmactl', 'ping', '[fe80::1%eth0]:7471'],
    }
    fails = 0
    for line in bad:
        try:
            sh_words(line)
            print('FAIL selftest: accepted %r' % line)
            fails += 1
        except ShellError:
            pass
    for line, want in good.items():
        try:
            got = sh_words(line)
        except ShellError as e:
            got = str(e)
        if got != want:
            print('FAIL selftest: %r gave %r, want %r' % (line, got, want))
            fails += 1
        got = shlex_words(line)
        if got != want:
            print('FAIL selftest: shlex made %r of %r, want %r' % (got, line, want))
            fails += 1
    return fails


def join_continued(lines):
    """(number, line) with "\\" continuations joined."""
    out, acc, start = [], None, 0
    for no, line in enumerate(lines, 1):
        if acc is None:
            acc, start = '', no
        if line.endswith('\\'):
            acc += line[:-1] + ' '
            continue
        out.append((start, acc + line))
        acc = None
    if acc is not None:
        out.append((start, acc))
    return out


def man_text(s):
    """The few roff escapes of an example line, as the reader sees them."""
    for esc, ch in (('\\-', '-'), ('\\(aq', "'"), ('\\(dq', '"'),
                    ('\\e', '\\'), ('\\&', ''), ('\\~', ' ')):
        s = s.replace(esc, ch)
    return s


def from_man(text):
    cmds, inside = [], False
    lines = text.split('\n')
    for no, line in enumerate(lines, 1):
        if line.startswith('.EX'):
            inside = True
        elif line.startswith('.EE'):
            inside = False
        elif inside:
            m = CMD_RE.match(man_text(line))
            if m:
                cmds.append((no, m.group(1)))
    return cmds


def from_text(text, inline_re):
    """Code lines (indented or fenced) that start with krdmactl, and
    inline literals that do; an inline literal may span lines."""
    cmds, fenced = [], False
    for no, line in join_continued(text.split('\n')):
        if line.startswith('```'):
            fenced = not fenced
            continue
        if not fenced and not line[:1].isspace():
            continue
        m = CMD_RE.match(line.strip())
        if m:
            cmds.append((no, m.group(1)))
    for m in inline_re.finditer(text):
        no = text.count('\n', 0, m.start()) + 1
        cmds.append((no, ' '.join(m.group(1).split())))
    return cmds


def from_file(path):
    with open(path, encoding='utf-8') as f:
        text = f.read()
    if path.endswith('.8'):
        return from_man(text)
    if path.endswith('.rst'):
        return from_text(text, re.compile(r'``(krdmactl\s[^`]*)``'))
    return from_text(text, re.compile(r'(?<!`)`(krdmactl\s[^`]*)`(?!`)'))


def from_help(krdmactl):
    """The examples of every help text: lines with "$ krdmactl ..."."""
    top = subprocess.run([krdmactl, 'help'], capture_output=True, text=True).stdout
    objects = re.findall(r'^  ([a-z]+) {2,}', top, re.M)
    cmds = []
    for obj in [None] + objects:
        argv = [krdmactl] + ([obj] if obj else []) + ['help']
        out = subprocess.run(argv, capture_output=True, text=True).stdout
        for no, line in enumerate(out.split('\n'), 1):
            m = re.search(r'\$ (krdmactl\s.*)$', line)
            if m:
                cmds.append((no, m.group(1)))
    return cmds, objects


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--krdmactl', required=True)
    ap.add_argument('files', nargs='*')
    args = ap.parse_args()
    files = args.files or [os.path.join(TOP, d) for d in DOCS]
    files = [f for f in files if f != '-']

    failed = selftest()
    passed = 0
    sources = [(os.path.relpath(f, TOP), from_file(f)) for f in files]
    help_cmds, objects = from_help(args.krdmactl)
    if not objects:
        print('FAIL krdmactl help lists no objects')
        failed += 1
    sources.append(('krdmactl help', help_cmds))
    for where, cmds in sources:
        # The extraction itself must keep finding what it is there for.
        if not cmds:
            print('FAIL %s: no krdmactl command line found' % where)
            failed += 1
        for no, line in cmds:
            try:
                words = sh_words(line)
            except ShellError as e:
                print('FAIL %s:%d: %s\n     %s' % (where, no, line, e))
                failed += 1
                continue
            try:
                other = shlex_words(line)
            except ValueError as e:
                other = 'shlex: %s' % e
            if other != words:
                print('FAIL %s:%d: %s\n     split %r here, %r by shlex'
                      % (where, no, line, words, other))
                failed += 1
                continue
            r = subprocess.run([args.krdmactl, '--parse-only'] + words[1:],
                               capture_output=True, text=True)
            if r.returncode:
                why = (r.stderr.strip().split('\n') or [''])[0]
                print('FAIL %s:%d: %s\n     exit %d: %s'
                      % (where, no, line, r.returncode, why))
                failed += 1
            else:
                passed += 1
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
