#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""spec-to-rst.py: render a YNL-style netlink spec as reStructuredText.

  scripts/spec-to-rst.py [SPEC] > Documentation/netlink-abi.rst
  scripts/spec-to-rst.py [SPEC] --check Documentation/netlink-abi.rst

SPEC: default Documentation/netlink/specs/krdma.yaml. Values and C names
follow YNL's rules (as scripts/spec-to-c.py); the output depends on
nothing but SPEC. --check FILE: exit 1 with a unified diff if FILE is not
what SPEC renders to. Exit 2: unusable input (unreadable, malformed).
"""

import argparse
import difflib
import os
import re
import sys
import textwrap

try:
    import yaml
except ImportError:  # pragma: no cover
    sys.exit('spec-to-rst: python3-yaml is needed (apt-get install python3-yaml)')

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
WIDTH = 78


def c_upper(name):
    return name.upper().replace('-', '_')


def lit(text):
    return f'``{text}``'


def link(text, target):
    """An anonymous reference: the same text may point at different targets."""
    return f'`{text} <{target}_>`__'


def escape(line, first=False):
    """Spec text taken literally by RST (first: a paragraph's first line)."""
    line = re.sub(r'([\\*`|])', r'\\\1', line)
    line = re.sub(r'_(?![^\W_])', r'\\_', line)        # word_ is a reference
    line = re.sub(r'::$', r':\\:', line)             # would start a literal block
    if first and re.match(r'(([-+#]|\d+[.)]|[a-zA-Z][.)]|\(\w+\)|\.\.|>>>)(\s|$)|:)', line):
        line = '\\' + line                            # would start a list or markup
    return line


def paragraphs(doc):
    """A doc string as RST paragraphs: its line breaks kept, indents dropped."""
    out = []
    for para in re.split(r'\n\s*\n', (doc or '').strip()):
        lines = [ln.strip() for ln in para.splitlines() if ln.strip()]
        if lines:
            out += [escape(ln, i == 0) for i, ln in enumerate(lines)] + ['']
    return out


def heading(title, char, over=False):
    bar = char * len(title)
    return ([bar] if over else []) + [title, bar, '']


def wrap(text, first='', rest=''):
    """Lines of at most WIDTH columns, broken at spaces only (NUL: a kept space)."""
    return [ln.replace('\0', ' ') for ln in textwrap.wrap(
        text, WIDTH, initial_indent=first, subsequent_indent=rest,
        break_long_words=False, break_on_hyphens=False)]


def pack(items, indent):
    """Items (never split) joined by commas, as the lines of a field body."""
    text = ', '.join(i.replace(' ', '\0') for i in items) or 'none'
    return [ln[indent:] for ln in wrap(text, ' ' * indent, ' ' * indent)]


class Renderer:
    def __init__(self, y):
        self.y, self.fam = y, y['name']
        self.defs = {d['name']: d for d in y.get('definitions') or []}
        self.sets = {s['name']: s for s in y.get('attribute-sets') or []}
        self.ops = (y.get('operations') or {}).get('list') or []
        self.mcgrps = (y.get('mcast-groups') or {}).get('list') or []
        self.out = []

    def emit(self, *lines):
        self.out.extend(lines)

    def field(self, name, value, indent=0):
        """A field list item; value is a string or a list of lines."""
        lines = value if isinstance(value, list) else [value]
        pad = ' ' * indent
        self.emit(f'{pad}:{name}: {lines[0]}', *[f'{pad}  {ln}' for ln in lines[1:]])

    def section(self, target, title, char, doc):
        self.emit(f'.. _{target}:', '', *heading(title, char), *paragraphs(doc))

    def attr_list(self, set_name, names, indent):
        return pack([link(n, f'{set_name}.{n}') for n in names], indent)

    def summary(self):
        y, fam = self.y, self.fam
        self.emit(*heading('Summary', '='), *paragraphs(y.get('doc')))
        name = c_upper(y.get('c-family-name', f'{fam}-family-name'))
        version = c_upper(y.get('c-version-name', f'{fam}-family-version'))
        self.field('protocol', y.get('protocol', 'genetlink'))
        self.field('family name', f'{lit(fam)} ({lit(name)})')
        self.field('family version', f'{y.get("version", 1)} ({lit(version)})')
        for key in ('uapi-header', 'kernel-policy'):
            if y.get(key):
                self.field(key.replace('-', ' ').replace('uapi', 'uAPI'), lit(y[key]))
        self.emit('')

    def operations(self):
        ops = self.y.get('operations') or {}
        pfx = ops.get('name-prefix', f'{self.fam}-cmd-')
        apfx = ops.get('async-prefix', pfx)
        self.emit(*heading('Operations', '='))
        val = 1
        for op in self.ops:
            val = op.get('value', val)
            name, set_name = op['name'], op.get('attribute-set')
            cname = c_upper((apfx if 'event' in op else pfx) + name)
            self.section(f'op-{name}', name, '-', op.get('doc'))
            self.field('value', f'{val} ({lit(cname)})')
            if set_name:
                self.field('attribute-set', link(set_name, 'set-' + set_name))
            if 'do' in op or 'dump' in op:
                admin = 'admin-perm' in (op.get('flags') or [])
                self.field('admin permission', 'yes (``CAP_NET_ADMIN``)' if admin else 'no')
            for mode in [m for m in ('do', 'dump') if m in op]:
                self.emit(f':{mode}:')
                for part in ('request', 'reply'):
                    names = ((op[mode] or {}).get(part) or {}).get('attributes') or []
                    self.field(part, self.attr_list(set_name, names, 4), indent=2)
            if 'event' in op:
                names = (op['event'] or {}).get('attributes') or []
                self.field('event', self.attr_list(set_name, names, 2))
            if op.get('mcgrp'):
                self.field('multicast group', link(op['mcgrp'], 'mcgrp-' + op['mcgrp']))
            self.emit('')
            val += 1

    def mcast_groups(self):
        self.emit(*heading('Multicast groups', '=') if self.mcgrps else [])
        for g in self.mcgrps:
            name = g['name']
            cname = c_upper(g.get('c-define-name', f'{self.fam}-mcgrp-{name}'))
            ops = [link(o['name'], 'op-' + o['name']) for o in self.ops if o.get('mcgrp') == name]
            self.section(f'mcgrp-{name}', name, '-', g.get('doc'))
            self.field('name', f'{lit(name)} ({lit(cname)})')
            self.field('notifications', pack(ops, 2))
            self.emit('')

    def definitions(self):
        self.emit(*heading('Definitions', '=') if self.defs else [])
        for d in self.defs.values():
            name, t = d['name'], d['type']
            self.section(f'def-{name}', name, '-', d.get('doc'))
            where = f', from {lit(d["header"])}' if d.get('header') else ''
            if t not in ('enum', 'flags'):   # consts; structs: the doc only
                pfx = d.get('name-prefix', '' if d.get('header') else f'{self.fam}-')
                self.field('type', t if t == 'const' else t + where)
                if t == 'const':
                    self.field('value', f'{d["value"]} ({lit(c_upper(pfx + name))}{where})')
                self.emit('')
                continue
            tag = d.get('enum-name', f'{self.fam}-{name}')
            ctype = f'{t} {c_upper(tag).lower()}' if tag else 'anonymous'
            self.field('type', f'{t} ({lit(ctype)}{where})')
            self.emit(':entries:')
            pfx = d.get('name-prefix', f'{self.fam}-{name}-')
            raw = None
            for e in d.get('entries') or []:
                e = {'name': e} if isinstance(e, str) else e
                raw = e.get('value', d.get('value-start', 0) if raw is None else raw + 1)
                shown = raw if t == 'enum' else f'{1 << raw:#x}'
                text = f'{lit(e["name"])} = {shown} ({lit(c_upper(pfx + e["name"]))})'
                if e.get('doc'):
                    text += ': ' + escape(' '.join(e['doc'].split()))
                self.emit(*wrap(text, '  - ', '    '))
            if d.get('render-max') and raw is not None:
                mx = (f'mask {lit(c_upper(pfx + "mask"))}' if t == 'flags' else
                      f'max {lit(c_upper(pfx + "max"))} = {raw}')
                self.field('render-max', mx)
            self.emit('')

    def attribute_sets(self):
        self.emit(*heading('Attribute sets', '='))
        for s in self.sets.values():
            name = s['name']
            pfx = s.get('name-prefix', f'{self.fam}-a-' if name == self.fam
                        else f'{self.fam}-a-{name}-')
            self.section(f'set-{name}', name, '-', s.get('doc'))
            if s.get('enum-name'):
                self.field('C enum', f'{lit("enum " + c_upper(s["enum-name"]).lower())}, '
                                 f'max {lit(c_upper(s.get("attr-max-name", pfx + "max")))}')
            self.emit('')
            val = 1
            for a in s['attributes']:
                val = a.get('value', val)
                self.attribute(name, a, val, pfx)
                val += 1

    def attribute(self, set_name, a, val, pfx):
        t = a.get('type', '')
        self.section(f'{set_name}.{a["name"]}', a['name'], '~', a.get('doc'))
        self.field('value', f'{val} ({lit(c_upper(pfx + a["name"]))})')
        self.field('type', t + {'unused': ' (reserved)', 'pad': ' (aligns 64-bit attributes)'}
                   .get(t, ''))
        if a.get('enum'):
            kind = 'flags of' if a.get('enum-as-flags') else 'values of'
            self.field('enum', f'{kind} {link(a["enum"], "def-" + a["enum"])}')
        if a.get('nested-attributes'):
            n = a['nested-attributes']
            self.field('nested attributes', link(n, 'set-' + n))
        if a.get('multi-attr'):
            self.field('multi-attr', 'yes (the attribute may repeat)')
        checks = []
        for k, v in (a.get('checks') or {}).items():
            if isinstance(v, str) and v in self.defs:
                v = f'{link(v, "def-" + v)} ({self.defs[v].get("value")})'
            checks.append(f'{k} {v}')
        if checks:
            self.field('checks', pack(checks, 2))
        for key in ('byte-order', 'display-hint'):
            if a.get(key):
                self.field(key.replace('-', ' '), a[key])
        self.emit('')

    def render(self):
        fam = self.fam
        self.emit('.. SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR '
                  'BSD-3-Clause)', '',
                  '.. DO NOT EDIT: generated by scripts/spec-to-rst.py from the spec,',
                  f'   Documentation/netlink/specs/{fam}.yaml. Edit the spec and regenerate:',
                  '   scripts/spec-to-rst.py > Documentation/netlink-abi.rst', '',
                  *heading(f'Family {lit(fam)} netlink specification', '=', over=True),
                  '.. contents:: :depth: 2', '')
        for part in (self.summary, self.operations, self.mcast_groups, self.definitions,
                     self.attribute_sets):
            part()
        while self.out and not self.out[-1]:
            self.out.pop()
        return '\n'.join(self.out) + '\n'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('spec', nargs='?', help='the YAML spec (default: %(default)s)',
                    default=os.path.join(TOP, 'Documentation/netlink/specs/krdma.yaml'))
    ap.add_argument('--check', metavar='FILE', help='compare FILE with the rendering')
    args = ap.parse_args()
    try:
        with open(args.spec, encoding='utf-8') as f:
            text = Renderer(yaml.safe_load(f)).render()
        if args.check:
            with open(args.check, encoding='utf-8') as f:
                have = f.read()
    except (OSError, yaml.YAMLError, KeyError, TypeError, AttributeError, ValueError) as e:
        bad = not isinstance(e, (OSError, yaml.YAMLError))
        what = f'{args.spec}: malformed spec: {type(e).__name__}: ' if bad else ''
        print(f'spec-to-rst: {what}{e}', file=sys.stderr)
        return 2
    if not args.check or have == text:
        sys.stdout.write('' if args.check else text)
        return 0
    sys.stdout.writelines(difflib.unified_diff(have.splitlines(True), text.splitlines(True),
                                               args.check, f'rendered from {args.spec}'))
    print(f'spec-to-rst: {args.check} is not what {args.spec} renders to; regenerate: '
          f'scripts/spec-to-rst.py > {args.check}', file=sys.stderr)
    return 1


if __name__ == '__main__':
    sys.exit(main())
