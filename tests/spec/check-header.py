#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""
check-header.py: Documentation/netlink/specs/krdma.yaml is the source of
truth of the krdma Generic Netlink ABI; this checks that the C code agrees.

1. include/uapi/linux/krdma.h (--header) must hold exactly the items that
   YNL's C generator would render from the spec, with the same values:
   the family name/version and multicast group defines, every const, every
   enum (type name, entries, render-max __X_MAX/X_MAX), every attribute set
   (type name, attributes, __X_MAX/X_MAX) and the command enum. An item in
   one and not in the other is an error, and so is a different value or a
   different enum type. Type comments on attributes ("u32", "nest,
   krdma_port_attr, multi", "u8, enum krdma_op", "binary, 4 bytes") must
   match the spec's types.
2. kmod/netlink.c and the kmod/netlink-gen.c that scripts/spec-to-c.py
   generates from the spec (--netlink; tests/spec/check-generated.sh
   checks that it is what the generator writes today): every operation of the spec with a do or
   dump is in the genl_ops table with the same handlers and with
   GENL_ADMIN_PERM iff the spec says admin-perm; reserved ids and events are
   not; each op's policy holds exactly the attributes of its do/dump
   requests, with the spec's type, range and length checks (resolving the
   header's constants, kmod's internal ones and range structs); nested
   policies match their attribute sets; the family's name, version, maxattr
   and multicast groups match.
3. Best effort: kmod/*.c (--kmod-dir) put and get attributes with the
   spec's types (nla_put_u32(skb, KRDMA_A_X, ...) needs X to be u32, u64
   puts pad with the pad attribute of the same set), and the CLI's reply
   policies (--cli-attrs, tools/attrs.c) use the spec's types.

Naming follows YNL: C name = upper(name-prefix + name) with '-' -> '_'.
Prints one line per disagreement and exits 1, or prints
"spec: OK (N items checked)" and exits 0. Exit 2: unusable input.
"""

import argparse
import collections
import glob
import os
import re
import sys

try:
    import yaml
except ImportError:  # pragma: no cover
    sys.stderr.write("check-header: python3-yaml is needed (apt-get install python3-yaml)\n")
    sys.exit(2)

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))

SCALARS = ('u8', 'u16', 'u32', 'u64', 's8', 's16', 's32', 's64')
TYPE_WORDS = SCALARS + ('string', 'binary', 'nest', 'flag', 'uint', 'sint')
# Sizes that policies are written with.
SIZEOF = {
    'struct in_addr': 4, 'struct in6_addr': 16, '__be32': 4, '__be16': 2,
    'u8': 1, 'u16': 2, 'u32': 4, 'u64': 8, 's32': 4, 's64': 8,
    '__u8': 1, '__u16': 2, '__u32': 4, '__u64': 8,
}
LIMITS = {f'{s}{b}-{m}': v for s, b, m, v in (
    [('u', b, 'min', 0) for b in (8, 16, 32, 64)] +
    [('u', b, 'max', (1 << b) - 1) for b in (8, 16, 32, 64)] +
    [('s', b, 'min', -(1 << (b - 1))) for b in (8, 16, 32, 64)] +
    [('s', b, 'max', (1 << (b - 1)) - 1) for b in (8, 16, 32, 64)])}


def c_upper(name):
    return name.upper().replace('-', '_')


def c_lower(name):
    return name.lower().replace('-', '_')


class Fail(Exception):
    """Unusable input (exit 2)."""


class Report:
    def __init__(self):
        self.errors = []
        self.checked = 0

    def check(self, cond, msg):
        self.checked += 1
        if not cond:
            self.errors.append(msg)
        return cond

    def error(self, msg):
        self.checked += 1
        self.errors.append(msg)


# --------------------------------------------------------------------------
# C helpers


def strip_comments(text):
    """Comments become spaces (newlines kept), so offsets stay valid."""
    def blank(m):
        return re.sub(r'[^\n]', ' ', m.group(0))
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\])*"',
                  lambda m: m.group(0) if m.group(0).startswith('"') else blank(m),
                  text, flags=re.S)


def parse_defines(text):
    """Object-like #defines: name -> body (comments stripped, joined)."""
    text = strip_comments(text).replace('\\\n', ' ')
    out = collections.OrderedDict()
    for m in re.finditer(r'^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(\()?([^\n]*)$',
                         text, re.M):
        if m.group(2):
            continue  # function-like
        out[m.group(1)] = m.group(3).strip()
    return out


def matching(text, pos, open_ch='{', close_ch='}'):
    """Index just past the bracket closing the one at text[pos]."""
    depth = 0
    i = pos
    while i < len(text):
        c = text[i]
        if c == '"':
            i = text.index('"', i + 1)
            while text[i - 1] == '\\':
                i = text.index('"', i + 1)
        elif c == open_ch:
            depth += 1
        elif c == close_ch:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise Fail(f"unbalanced '{open_ch}' at offset {pos}")


def split_top(text, sep=','):
    """Split on sep outside (), {}, []."""
    parts, depth, cur = [], 0, []
    for c in text:
        if c in '({[':
            depth += 1
        elif c in ')}]':
            depth -= 1
        if c == sep and depth == 0:
            parts.append(''.join(cur))
            cur = []
        else:
            cur.append(c)
    if ''.join(cur).strip():
        parts.append(''.join(cur))
    return [p.strip() for p in parts if p.strip()]


class Evaluator:
    """Integer/string C constant expressions over a table of names."""

    def __init__(self):
        self.exprs = {}
        self.values = {}
        self.busy = set()

    def add(self, name, expr):
        self.exprs[name] = expr
        self.values.pop(name, None)

    def set(self, name, value):
        self.values[name] = value

    def has(self, name):
        return name in self.values or name in self.exprs

    def value(self, name):
        if name in self.values:
            return self.values[name]
        if name not in self.exprs:
            raise KeyError(name)
        if name in self.busy:
            raise ValueError(f'{name} is defined in terms of itself')
        self.busy.add(name)
        try:
            v = self.eval(self.exprs[name])
        finally:
            self.busy.discard(name)
        self.values[name] = v
        return v

    def eval(self, expr):
        expr = expr.strip()
        m = re.fullmatch(r'"((?:\\.|[^"\\])*)"', expr)
        if m:
            return m.group(1)
        if re.fullmatch(r'[A-Za-z_]\w*', expr):
            return self.value(expr)
        expr = re.sub(r'sizeof\s*\(\s*([^)]*?)\s*\)',
                      lambda mm: str(SIZEOF[re.sub(r'\s+', ' ', mm.group(1))]), expr)
        out = []
        for tok in re.findall(r'0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|[A-Za-z_]\w*|<<|>>|\S', expr):
            if re.match(r'\d|0[xX]', tok):
                out.append(str(int(tok.rstrip('uUlL'), 0)))
            elif re.match(r'[A-Za-z_]', tok):
                v = self.value(tok)
                if not isinstance(v, int):
                    raise ValueError(f'{tok} is not a number')
                out.append(f'({v})')
            elif tok in ('+', '-', '*', '%', '(', ')', '<<', '>>', '|', '&', '~', '^'):
                out.append(tok)
            elif tok == '/':
                out.append('//')
            else:
                raise ValueError(f'cannot evaluate {expr!r}')
        return int(eval(' '.join(out), {'__builtins__': {}}, {}))  # pylint: disable=eval-used

    def try_eval(self, expr):
        try:
            return self.eval(expr), None
        except (KeyError, ValueError, SyntaxError) as e:
            return None, f'{e}'


def parse_enums(raw):
    """enum [tag] { A, B = 3, ... } -> list of (tag, [(name, expr, comment)])."""
    text = strip_comments(raw)
    enums = []
    for m in re.finditer(r'\benum\s+(\w+)?\s*\{', text):
        start = m.end() - 1
        end = matching(text, start)
        body_nc = text[start + 1:end - 1]
        body_raw = raw[start + 1:end - 1]
        members = []
        off = 0
        for part in body_nc.split(','):
            seg_start = off
            off += len(part) + 1
            item = part.strip()
            if not item:
                continue
            mm = re.fullmatch(r'([A-Za-z_]\w*)\s*(?:=\s*(.+))?', item, re.S)
            if not mm:
                raise Fail(f'cannot parse enum member {item!r}')
            # The comment after this member on its line (or the line's rest).
            name_pos = seg_start + part.index(mm.group(1))
            line_end = body_raw.find('\n', name_pos)
            line = body_raw[name_pos:line_end if line_end >= 0 else len(body_raw)]
            cm = re.search(r'/\*(.*?)\*/', line)
            members.append((mm.group(1), mm.group(2), cm.group(1).strip() if cm else ''))
        enums.append((m.group(1), members))
    return enums


class Header:
    """Items of a uAPI header: defines and enum members, with values."""

    def __init__(self, path):
        with open(path, encoding='utf-8') as f:
            raw = f.read()
        self.path = path
        self.items = collections.OrderedDict()   # name -> dict
        self.enum_tags = []
        self.ev = Evaluator()
        for name, body in parse_defines(raw).items():
            if body == '':
                continue  # include guard
            self.items[name] = {'kind': 'define', 'enum': None, 'expr': body, 'comment': ''}
            self.ev.add(name, body)
        for tag, members in parse_enums(raw):
            self.enum_tags.append(tag)
            prev = None
            for name, expr, comment in members:
                if expr is None:
                    expr = '0' if prev is None else f'{prev} + 1'
                self.items[name] = {'kind': 'enum', 'enum': tag, 'expr': expr, 'comment': comment}
                self.ev.add(name, expr)
                prev = name

    def value(self, name):
        return self.ev.value(name)


# --------------------------------------------------------------------------
# The spec, rendered into the C items YNL would generate


class Item:
    def __init__(self, name, value, enum=None, flex=False, what='', attr=None):
        self.name = name
        self.value = value
        self.enum = enum      # enum tag it belongs to (None: define or anonymous)
        self.flex = flex      # count/max: may be a define or an enum member
        self.what = what      # where in the spec, for messages
        self.attr = attr      # (set, attr yaml) for attributes


class Spec:
    def __init__(self, path):
        with open(path, encoding='utf-8') as f:
            self.y = yaml.safe_load(f)
        y = self.y
        for key in ('name', 'attribute-sets', 'operations'):
            if key not in y:
                raise Fail(f'{path}: no {key!r}')
        self.path = path
        self.validate()
        self.fam = y['name']
        self.proto = y.get('protocol', 'genetlink')
        self.defs = collections.OrderedDict((d['name'], d) for d in y.get('definitions', []))
        self.sets = collections.OrderedDict((s['name'], s) for s in y['attribute-sets'])
        self.ops = y['operations']
        self.items = []
        self.tags = []             # enum type names the header must have
        self.attr_cname = {}       # (set, attr) -> C name
        self.cname_attr = {}       # C name -> (set, attr yaml)
        self.set_prefix = {}
        self.op_cname = collections.OrderedDict()  # op name -> C name
        self.op_value = {}
        self.mcgrps = [g['name'] for g in y.get('mcast-groups', {}).get('list', [])]
        self.render()

    def validate(self):
        """Enough structure for rendering; the full schema is YNL's job."""
        y = self.y

        def need(cond, what):
            if not cond:
                raise Fail(f'{self.path}: malformed spec: {what}')

        need(isinstance(y, dict), 'not a mapping')
        for d in y.get('definitions', []) or []:
            need(isinstance(d, dict) and 'name' in d and 'type' in d,
                 f'definition without name or type: {d!r}')
            if d['type'] in ('enum', 'flags'):
                need(isinstance(d.get('entries'), list), f'enum {d["name"]} has no entries')
            if d['type'] == 'const':
                need('value' in d, f'const {d["name"]} has no value')
        need(isinstance(y['attribute-sets'], list), 'attribute-sets is not a list')
        for s in y['attribute-sets']:
            need(isinstance(s, dict) and 'name' in s and isinstance(s.get('attributes'), list),
                 f'attribute set without name or attributes: {s!r}')
            for a in s['attributes']:
                need(isinstance(a, dict) and 'name' in a and ('type' in a or s.get('subset-of')),
                     f'attribute without name or type in set {s["name"]}: {a!r}')
        ops = y['operations']
        need(isinstance(ops, dict) and isinstance(ops.get('list'), list),
             'operations has no list')
        for op in ops['list']:
            need(isinstance(op, dict) and 'name' in op, f'operation without a name: {op!r}')
            for mode in ('do', 'dump'):
                need(op.get(mode) is None or isinstance(op[mode], dict),
                     f'operation {op["name"]}: {mode} is not a mapping')
        for g in (y.get('mcast-groups') or {}).get('list', []) or []:
            need(isinstance(g, dict) and 'name' in g, f'mcast group without a name: {g!r}')

    def enum_values(self, d):
        """[(entry name, value)] of an enum or flags definition (as nlspec)."""
        out = []
        raw = None
        for e in d.get('entries', []):
            if isinstance(e, str):
                e = {'name': e}
            if 'value' in e:
                raw = e['value']
            elif raw is None:
                raw = d.get('value-start', 0)
            else:
                raw += 1
            out.append((e['name'], raw if d['type'] == 'enum' else 1 << raw))
        return out

    def const_value(self, name):
        d = self.defs.get(name)
        if d is None or d['type'] != 'const':
            return None
        return d['value']

    def limit(self, value):
        """A checks value (int, const name or u32-max style) as a number."""
        if value is None or isinstance(value, int):
            return value
        if value in self.defs:
            v = self.const_value(value)
            if isinstance(v, int):
                return v
            raise Fail(f'{self.path}: check value {value!r} is not an integer const')
        if value in LIMITS:
            return LIMITS[value]
        raise Fail(f'{self.path}: unknown check value {value!r}')

    def add(self, *a, **kw):
        self.items.append(Item(*a, **kw))

    def render(self):
        y, fam = self.y, self.fam
        self.add(c_upper(y.get('c-family-name', f'{fam}-family-name')), fam,
                 what='family name')
        self.add(c_upper(y.get('c-version-name', f'{fam}-family-version')),
                 y.get('version', 1), what='family version')
        for g in y.get('mcast-groups', {}).get('list', []):
            self.add(c_upper(g.get('c-define-name', f'{fam}-mcgrp-{g["name"]}')),
                     g['name'], what=f'mcast group {g["name"]}')

        for d in self.defs.values():
            if d.get('header'):
                continue  # defined elsewhere, not rendered
            if d['type'] == 'const':
                self.add(c_upper(d.get('name-prefix', f'{fam}-') + d['name']), d['value'],
                         what=f'const {d["name"]}')
            elif d['type'] in ('enum', 'flags'):
                tag = d.get('enum-name', f'{fam}-{d["name"]}')
                tag = c_lower(tag) if tag else None
                if tag:
                    self.tags.append(tag)
                pfx = d.get('name-prefix', f'{fam}-{d["name"]}-')
                vals = self.enum_values(d)
                for ename, v in vals:
                    self.add(c_upper(pfx + ename), v, enum=tag,
                             what=f'enum {d["name"]} entry {ename}')
                if d.get('render-max'):
                    if d['type'] == 'flags':
                        mask = 0
                        for _, v in vals:
                            mask |= v
                        self.add(c_upper(pfx + 'mask'), mask, enum=tag, flex=True,
                                 what=f'flags {d["name"]} mask')
                    else:
                        last = vals[-1][1] if vals else 0
                        cnt = d.get('enum-cnt-name', f'__{pfx}max')
                        self.add(c_upper(cnt), last + 1, enum=tag, flex=True,
                                 what=f'enum {d["name"]} count')
                        self.add(c_upper(pfx + 'max'), last, enum=tag, flex=True,
                                 what=f'enum {d["name"]} max')
            # struct definitions have no uAPI items of their own here

        for s in self.sets.values():
            if s.get('subset-of') or s.get('header'):
                continue
            if 'name-prefix' in s:
                pfx = s['name-prefix']
            elif s['name'] == fam:
                pfx = f'{fam}-a-'
            else:
                pfx = f'{fam}-a-{s["name"]}-'
            self.set_prefix[s['name']] = pfx
            tag = s.get('enum-name')
            tag = c_lower(tag) if tag else None
            if tag:
                self.tags.append(tag)
            val = 1
            last = 0
            for a in s['attributes']:
                if 'value' in a:
                    val = a['value']
                cname = c_upper(pfx + a['name'])
                self.attr_cname[(s['name'], a['name'])] = cname
                self.cname_attr[cname] = (s['name'], a)
                self.add(cname, val, enum=tag, what=f'attribute {s["name"]}.{a["name"]}',
                         attr=(s['name'], a))
                last = val
                val += 1
            self.add(c_upper(s.get('attr-cnt-name', f'__{pfx}max')), last + 1, enum=tag,
                     flex=True, what=f'attribute set {s["name"]} count')
            self.add(c_upper(s.get('attr-max-name', f'{pfx}max')), last, enum=tag,
                     flex=True, what=f'attribute set {s["name"]} max')

        ops = self.ops
        if ops.get('enum-model', 'unified') != 'unified':
            raise Fail(f'{self.path}: only the unified enum-model is supported')
        pfx = ops.get('name-prefix', f'{fam}-cmd-')
        apfx = ops.get('async-prefix')
        tag = ops.get('enum-name')
        tag = c_lower(tag) if tag else None
        atag = ops.get('async-enum')
        atag = c_lower(atag) if atag else None
        for t in (tag, atag if apfx else None):
            if t:
                self.tags.append(t)
        val = 1
        last = alast = 0
        for op in ops['list']:
            if 'value' in op:
                val = op['value']
            is_async = 'event' in op or 'notify' in op
            if apfx and is_async:
                cname = c_upper(apfx + op['name'])
                self.add(cname, val, enum=atag, what=f'operation {op["name"]}')
                alast = val
            else:
                cname = c_upper(pfx + op['name'])
                self.add(cname, val, enum=tag, what=f'operation {op["name"]}')
                last = val
            self.op_cname[op['name']] = cname
            self.op_value[op['name']] = val
            val += 1
        self.add(c_upper(self.y.get('cmd-cnt-name', f'__{pfx}max')), last + 1, enum=tag,
                 flex=True, what='operations count')
        self.add(c_upper(self.y.get('cmd-max-name', f'{pfx}max')), last, enum=tag,
                 flex=True, what='operations max')
        if apfx:
            self.add(c_upper(f'__{apfx}max'), alast + 1, enum=atag, flex=True,
                     what='notifications count')
            self.add(c_upper(f'{apfx}max'), alast, enum=atag, flex=True,
                     what='notifications max')

    def set_tag(self, set_name):
        t = self.sets[set_name].get('enum-name')
        return c_lower(t) if t else None

    def def_tag(self, def_name):
        d = self.defs[def_name]
        t = d.get('enum-name', f'{self.fam}-{d["name"]}')
        return c_lower(t) if t else None

    def expected_policy(self, set_name, a):
        """The kernel policy YNL would generate for one attribute."""
        t = a['type']
        checks = dict(a.get('checks', {}))
        if t in SCALARS or t in ('uint', 'sint'):
            if 'enum' in a and not a.get('enum-as-flags'):
                d = self.defs[a['enum']]
                vals = sorted(v for _, v in self.enum_values(d))
                if d['type'] == 'enum' and vals and vals == list(range(vals[0], vals[-1] + 1)):
                    if 'min' not in checks and (vals[0] != 0 or t[0] == 's'):
                        checks['min'] = vals[0]
                    if 'max' not in checks:
                        checks['max'] = vals[-1]
            nla = 'NLA_' + t.upper()
            if a.get('byte-order') == 'big-endian' and t in ('u16', 'u32'):
                nla = 'NLA_BE' + t[1:]
            return {'type': nla, 'min': self.limit(checks.get('min')),
                    'max': self.limit(checks.get('max'))}
        if t == 'string':
            if 'exact-len' in checks:
                return {'type': 'EXACT_LEN', 'len': self.limit(checks['exact-len'])}
            return {'type': 'NLA_STRING' if checks.get('unterminated-ok') else 'NLA_NUL_STRING',
                    'len': self.limit(checks.get('max-len'))}
        if t == 'binary':
            if 'exact-len' in checks:
                return {'type': 'EXACT_LEN', 'len': self.limit(checks['exact-len'])}
            return {'type': 'NLA_BINARY', 'len': self.limit(checks.get('max-len')),
                    'min_len': self.limit(checks.get('min-len'))}
        if t == 'nest':
            return {'type': 'NLA_NESTED', 'nested': a.get('nested-attributes')}
        if t == 'flag':
            return {'type': 'NLA_FLAG'}
        return {'type': 'NLA_' + t.upper()}


# --------------------------------------------------------------------------
# 1. header <-> spec


HEADER_TYPE_RE = re.compile(r'^\s*(' + '|'.join(TYPE_WORDS) + r')\b(.*)$', re.S)


def check_header(spec, hdr, rep):
    h = hdr.items
    expected = collections.OrderedDict((i.name, i) for i in spec.items)
    for it in spec.items:
        where = f'{it.what}'
        if it.name not in h:
            rep.error(f'header: no {it.name} (spec {where} = {it.value!r})')
            continue
        try:
            hv = hdr.value(it.name)
        except (KeyError, ValueError, SyntaxError) as e:
            rep.error(f'header: cannot evaluate {it.name} ({e})')
            continue
        rep.check(hv == it.value,
                  f'header: {it.name} = {hv!r}, spec {where} = {it.value!r}')
        hi = h[it.name]
        if it.enum is not None and not it.flex:
            rep.check(hi['kind'] == 'enum' and hi['enum'] == it.enum,
                      f'header: {it.name} is in '
                      f'{"enum " + str(hi["enum"]) if hi["kind"] == "enum" else "a #define"}'
                      f', spec puts it in enum {it.enum}')
        elif it.enum is not None and it.flex and hi['kind'] == 'enum':
            rep.check(hi['enum'] == it.enum,
                      f'header: {it.name} is in enum {hi["enum"]}, spec puts it in enum {it.enum}')
        if it.attr:
            check_type_comment(spec, it, hi['comment'], rep)
    for name, hi in h.items():
        if name not in expected:
            try:
                v = hdr.value(name)
            except (KeyError, ValueError, SyntaxError):
                v = hi['expr']
            rep.error(f'header: {name} = {v!r} is not in the spec')
    for tag in spec.tags:
        rep.check(tag in hdr.enum_tags, f'header: no enum {tag} (spec names it)')
    for tag in hdr.enum_tags:
        if tag is not None:
            rep.check(tag in spec.tags, f'header: enum {tag} is not named in the spec')


def check_type_comment(spec, it, comment, rep):
    """"/* u8, enum krdma_op */" after an attribute must match its spec type."""
    set_name, a = it.attr
    m = HEADER_TYPE_RE.match(comment or '')
    if not m:
        return
    ctype, rest = m.group(1), m.group(2)
    stype = a['type']
    if not rep.check(ctype == stype,
                     f'header: {it.name} is commented "{ctype}", spec {set_name}.{a["name"]} '
                     f'is {stype}'):
        return
    em = re.search(r'\benum\s+(\w+)', rest)
    if em:
        want = spec.def_tag(a['enum']) if a.get('enum') in spec.defs else None
        rep.check(want == em.group(1),
                  f'header: {it.name} is commented "enum {em.group(1)}", spec '
                  f'{set_name}.{a["name"]} has enum {a.get("enum")} ({want})')
    if stype == 'nest':
        nm = re.search(r'\b(\w+_attr)\b', rest)
        if nm:
            nested = a.get('nested-attributes')
            want = spec.set_tag(nested) if nested in spec.sets else None
            rep.check(want == nm.group(1),
                      f'header: {it.name} is commented "nest, {nm.group(1)}", spec '
                      f'{set_name}.{a["name"]} nests {nested} ({want})')
        rep.check(bool(re.search(r'\bmulti\b', rest)) == bool(a.get('multi-attr')),
                  f'header: {it.name}: "multi" in the comment and multi-attr in the spec differ')
    if stype == 'binary':
        lm = re.search(r'\b(\d+)\s*bytes?\b', rest)
        if lm:
            want = a.get('checks', {}).get('exact-len')
            rep.check(spec.limit(want) == int(lm.group(1)),
                      f'header: {it.name} is commented "{lm.group(1)} bytes", spec '
                      f'{set_name}.{a["name"]} exact-len is {want}')


# --------------------------------------------------------------------------
# 2. netlink.c <-> spec


class Kernel:
    def __init__(self, netlink_paths, kmod_dir, hdr, spec):
        # The family's C files: the hand-written one and the one
        # scripts/spec-to-c.py generates (policies, ops, groups), read as one.
        self.raw = ''
        for path in netlink_paths:
            with open(path, encoding='utf-8') as f:
                self.raw += f.read() + '\n'
        netlink_path = self.path = netlink_paths[0]
        self.text = strip_comments(self.raw)
        self.ev = Evaluator()
        # Resolution order: header, spec consts defined elsewhere, kmod headers, netlink.c.
        for name, it in hdr.items.items():
            self.ev.add(name, it['expr'])
        for d in spec.defs.values():
            if d.get('header') and d['type'] == 'const':
                self.ev.set(c_upper(d['name']), d['value'])
        self.macros = {}
        srcs = sorted(glob.glob(os.path.join(kmod_dir, '*.h'))) if kmod_dir else []
        for path in srcs + list(netlink_paths):
            with open(path, encoding='utf-8') as f:
                for name, body in parse_defines(f.read()).items():
                    if name.startswith('_') and name.endswith('_H'):
                        continue
                    self.macros[name] = body
                    if not self.ev.has(name):
                        self.ev.add(name, body)
        self.ranges = {}
        for m in re.finditer(r'struct\s+netlink_range_validation(?:_signed)?\s+(\w+)\s*=\s*\{',
                             self.text):
            body = self.text[m.end() - 1:matching(self.text, m.end() - 1)][1:-1]
            fields = dict(self.field(p) for p in split_top(body))
            self.ranges[m.group(1)] = (fields.get('min'), fields.get('max'))
        self.policies = {}
        for m in re.finditer(r'struct\s+nla_policy\s+(\w+)\s*\[([^\]]*)\]\s*=\s*\{', self.text):
            body = self.text[m.end() - 1:matching(self.text, m.end() - 1)][1:-1]
            entries = collections.OrderedDict()
            for p in split_top(body):
                pm = re.fullmatch(r'\[\s*([^\]]+?)\s*\]\s*=\s*(.+)', p, re.S)
                if not pm:
                    raise Fail(f'{self.path}: cannot parse policy entry {p!r}')
                entries[pm.group(1)] = pm.group(2).strip()
            self.policies[m.group(1)] = {'bound': m.group(2).strip(), 'entries': entries}
        self.ops = collections.OrderedDict()
        for m in re.finditer(r'struct\s+genl_(small_|split_)?ops\s+(\w+)\s*\[[^\]]*\]\s*=\s*\{',
                             self.text):
            body = self.text[m.end() - 1:matching(self.text, m.end() - 1)][1:-1]
            for p in split_top(body):
                p = p.strip()
                if not p.startswith('{'):
                    continue
                fields = dict(self.field(f) for f in split_top(p[1:-1]))
                cmd = fields.get('cmd')
                if cmd:
                    self.ops.setdefault(cmd, []).append(fields)
        self.family = {}
        fm = re.search(r'struct\s+genl_family\s+\w+[^;={]*=\s*\{', self.text)
        if fm:
            body = self.text[fm.end() - 1:matching(self.text, fm.end() - 1)][1:-1]
            self.family = dict(self.field(p) for p in split_top(body))
        self.mcgrps = []
        gm = re.search(r'struct\s+genl_multicast_group\s+(\w+)\s*\[[^\]]*\]\s*=\s*\{', self.text)
        if gm:
            self.mcgrps_name = gm.group(1)
            body = self.text[gm.end() - 1:matching(self.text, gm.end() - 1)][1:-1]
            for p in split_top(body):
                inner = re.search(r'\{(.*)\}', p, re.S)
                fields = dict(self.field(f) for f in split_top(inner.group(1))) if inner else {}
                self.mcgrps.append(fields.get('name'))

    @staticmethod
    def field(p):
        m = re.fullmatch(r'\.\s*(\w+)\s*=\s*(.+)', p.strip(), re.S)
        if not m:
            return (p.strip(), None)
        return (m.group(1), re.sub(r'\s+', ' ', m.group(2).strip()))

    def num(self, expr, where, rep):
        if expr is None:
            return None
        v, err = self.ev.try_eval(expr)
        if err:
            rep.error(f'netlink.c: {where}: cannot evaluate {expr!r} ({err})')
        return v

    def entry(self, value, where, rep, depth=0):
        """A policy entry as {'type', 'min', 'max', 'len', 'min_len', 'nested'}."""
        value = re.sub(r'\s+', ' ', value.strip())
        if re.fullmatch(r'[A-Za-z_]\w*', value) and value in self.macros and depth < 4:
            return self.entry(self.macros[value], where, rep, depth + 1)
        m = re.fullmatch(r'(NLA_POLICY_\w+)\s*\((.*)\)', value)
        if m:
            macro, args = m.group(1), split_top(m.group(2))
            if macro in ('NLA_POLICY_RANGE', 'NLA_POLICY_RANGE_SIGNED') and len(args) == 3:
                return {'type': args[0], 'min': self.num(args[1], where, rep),
                        'max': self.num(args[2], where, rep)}
            if macro in ('NLA_POLICY_FULL_RANGE', 'NLA_POLICY_FULL_RANGE_SIGNED') and len(args) == 2:
                rng = args[1].lstrip('&').strip()
                if rng not in self.ranges:
                    rep.error(f'netlink.c: {where}: no range struct {rng}')
                    return {'type': args[0]}
                lo, hi = self.ranges[rng]
                return {'type': args[0], 'min': self.num(lo, where, rep),
                        'max': self.num(hi, where, rep)}
            if macro == 'NLA_POLICY_MIN' and len(args) == 2:
                return {'type': args[0], 'min': self.num(args[1], where, rep)}
            if macro == 'NLA_POLICY_MAX' and len(args) == 2:
                return {'type': args[0], 'max': self.num(args[1], where, rep)}
            if macro == 'NLA_POLICY_EXACT_LEN':
                return {'type': 'EXACT_LEN', 'len': self.num(args[0], where, rep)}
            if macro == 'NLA_POLICY_MIN_LEN':
                return {'type': 'NLA_BINARY', 'min_len': self.num(args[0], where, rep)}
            if macro == 'NLA_POLICY_MAX_LEN':
                return {'type': 'NLA_BINARY', 'len': self.num(args[0], where, rep)}
            if macro in ('NLA_POLICY_NESTED', 'NLA_POLICY_NESTED_ARRAY'):
                return {'type': 'NLA_NESTED', 'nested': args[-1].strip()}
            rep.error(f'netlink.c: {where}: unsupported policy macro {macro}')
            return {'type': macro}
        m = re.fullmatch(r'\{(.*)\}', value)
        if m:
            fields = dict(self.field(f) for f in split_top(m.group(1)))
            out = {'type': fields.get('type')}
            if 'len' in fields:
                out['len'] = self.num(fields['len'], where, rep)
            if out['type'] == 'NLA_NESTED' and 'nested_policy' in fields:
                out['nested'] = fields['nested_policy']
            if out['type'] == 'NLA_EXACT_LEN':
                out['type'] = 'EXACT_LEN'
            return out
        rep.error(f'netlink.c: {where}: cannot parse policy entry {value!r}')
        return {'type': None}


def norm(p):
    return {k: v for k, v in p.items() if v is not None and k != 'nested'}


def compare_entry(kern, spec, set_name, a, got, where, rep, seen_nested):
    want = spec.expected_policy(set_name, a)
    g = norm(got)
    w = norm(want)
    # A string policy without .len is unbounded; so is a spec without max-len.
    rep.check(g == w, f'netlink.c: {where}: policy {fmt_pol(g)}, spec '
              f'{set_name}.{a["name"]} wants {fmt_pol(w)}')
    if want['type'] == 'NLA_NESTED' and got.get('type') == 'NLA_NESTED':
        nested_set = want.get('nested')
        pol = got.get('nested')
        if not pol:
            rep.error(f'netlink.c: {where}: nest of {nested_set} in the spec, but the kernel '
                      f'does not validate its contents (no NLA_POLICY_NESTED)')
        elif (pol, nested_set) not in seen_nested:
            seen_nested.add((pol, nested_set))
            check_policy_vs_set(kern, spec, pol, nested_set, rep, seen_nested)


def fmt_pol(p):
    return '{' + ', '.join(f'{k}={v}' for k, v in sorted(p.items())) + '}'


def check_policy_vs_set(kern, spec, pol, set_name, rep, seen_nested):
    """A nested policy must cover its set's attributes with the spec's checks."""
    if not rep.check(pol in kern.policies, f'netlink.c: no policy array {pol}'):
        return
    entries = kern.policies[pol]['entries']
    names = set()
    for idx, val in entries.items():
        if not rep.check(idx in spec.cname_attr, f'netlink.c: {pol}[{idx}]: not an attribute '
                         f'of the spec'):
            continue
        s, a = spec.cname_attr[idx]
        names.add(a['name'])
        rep.check(s == set_name, f'netlink.c: {pol}[{idx}]: attribute of set {s}, '
                  f'but {pol} validates set {set_name}')
        compare_entry(kern, spec, s, a, kern.entry(val, f'{pol}[{idx}]', rep), f'{pol}[{idx}]',
                      rep, seen_nested)
    for a in spec.sets[set_name]['attributes']:
        if a['type'] in ('unused', 'pad'):
            continue
        rep.check(a['name'] in names, f'netlink.c: {pol} has no entry for '
                  f'{spec.attr_cname[(set_name, a["name"])]} of set {set_name}')


def check_netlink(spec, kern, hdr, rep):
    seen_nested = set()
    spec_cmds = set()
    for op in spec.ops['list']:
        cname = spec.op_cname[op['name']]
        spec_cmds.add(cname)
        is_call = 'do' in op or 'dump' in op
        is_async = 'event' in op or 'notify' in op
        entries = kern.ops.get(cname, [])
        if not is_call:
            what = 'an event' if is_async else 'a reserved id'
            rep.check(not entries, f'netlink.c: {cname} is in the ops table, spec says it is {what}')
            if is_async:
                uses = len(re.findall(r'\b' + cname + r'\b', kern.text))
                rep.check(uses > 0, f'netlink.c: {cname} (spec event {op["name"]}) is never sent')
                grp = op.get('mcgrp')
                rep.check(grp in spec.mcgrps, f'spec: event {op["name"]} names mcast group '
                          f'{grp!r}, which is not in mcast-groups')
            continue
        if not rep.check(len(entries) == 1, f'netlink.c: {cname} (spec op {op["name"]}) is '
                         f'{"missing from" if not entries else "repeated in"} the ops table'):
            continue
        e = entries[0]
        flags = set(re.findall(r'GENL_\w+', e.get('flags') or ''))
        spec_flags = set(op.get('flags', []))
        rep.check(('GENL_ADMIN_PERM' in flags) == ('admin-perm' in spec_flags),
                  f'netlink.c: {cname}: GENL_ADMIN_PERM {"set" if "GENL_ADMIN_PERM" in flags else "not set"}'
                  f', spec {"has" if "admin-perm" in spec_flags else "has no"} admin-perm')
        rep.check(('GENL_UNS_ADMIN_PERM' in flags) == ('uns-admin-perm' in spec_flags),
                  f'netlink.c: {cname}: GENL_UNS_ADMIN_PERM and spec uns-admin-perm differ')
        rep.check(bool(e.get('doit')) == ('do' in op),
                  f'netlink.c: {cname}: {"has" if e.get("doit") else "no"} .doit, spec '
                  f'{"has" if "do" in op else "has no"} do')
        rep.check(bool(e.get('dumpit')) == ('dump' in op),
                  f'netlink.c: {cname}: {"has" if e.get("dumpit") else "no"} .dumpit, spec '
                  f'{"has" if "dump" in op else "has no"} dump')
        set_name = op.get('attribute-set')
        want = []
        for mode in ('do', 'dump'):
            for name in ((op.get(mode) or {}).get('request') or {}).get('attributes', []) or []:
                if name not in want:
                    want.append(name)
        pol = e.get('policy')
        if not want:
            rep.check(not pol, f'netlink.c: {cname} has policy {pol}, spec op {op["name"]} takes '
                      f'no attributes')
            continue
        if not rep.check(bool(pol), f'netlink.c: {cname} has no policy, spec op {op["name"]} '
                         f'takes {", ".join(want)}'):
            continue
        if not rep.check(pol in kern.policies, f'netlink.c: {cname}: no policy array {pol}'):
            continue
        entries_ = kern.policies[pol]['entries']
        for name in want:
            if not rep.check((set_name, name) in spec.attr_cname,
                             f'spec: op {op["name"]} requests {name}, not in set {set_name}'):
                continue
            idx = spec.attr_cname[(set_name, name)]
            if not rep.check(idx in entries_, f'netlink.c: {pol} (op {cname}) has no entry for '
                             f'{idx}; spec op {op["name"]} requests it'):
                continue
            a = spec.cname_attr[idx][1]
            where = f'{pol}[{idx}]'
            compare_entry(kern, spec, set_name, a, kern.entry(entries_[idx], where, rep), where,
                          rep, seen_nested)
        for idx in entries_:
            s_a = spec.cname_attr.get(idx)
            rep.check(s_a is not None and s_a[0] == set_name and s_a[1]['name'] in want,
                      f'netlink.c: {pol} (op {cname}) accepts {idx}, not in the request of spec '
                      f'op {op["name"]}')
    for cname in kern.ops:
        rep.check(cname in spec_cmds, f'netlink.c: ops table has {cname}, not in the spec')

    fam = kern.family
    if not rep.check(bool(fam), 'netlink.c: no struct genl_family'):
        return
    for key, want in (('name', spec.fam), ('version', spec.y.get('version', 1))):
        if key in fam:
            v, err = kern.ev.try_eval(fam[key])
            rep.check(v == want, f'netlink.c: family .{key} = {fam[key]} ({v if not err else err})'
                      f', spec {want!r}')
        else:
            rep.check(key == 'version' and want == 1, f'netlink.c: family has no .{key}')
    if 'maxattr' in fam:
        main = next((op.get('attribute-set') for op in spec.ops['list']
                     if op.get('attribute-set')), None)
        if main:
            v, err = kern.ev.try_eval(fam['maxattr'])
            last = max(it.value for it in spec.items if it.attr and it.attr[0] == main)
            rep.check(v == last, f'netlink.c: family .maxattr = {fam["maxattr"]} ({v if not err else err})'
                      f', spec set {main} ends at {last}')
    got = []
    for g in kern.mcgrps:
        v, err = kern.ev.try_eval(g) if g else (None, 'no name')
        got.append(v if not err else g)
    rep.check(got == spec.mcgrps, f'netlink.c: multicast groups {got}, spec {spec.mcgrps}')


# --------------------------------------------------------------------------
# 3. best effort: puts/gets in kmod/*.c, the CLI's reply policies


PUT_TYPES = {
    'u8': ('u8',), 'u16': ('u16',), 'u32': ('u32',), 'u64_64bit': ('u64',), 'u64': ('u64',),
    's8': ('s8',), 's16': ('s16',), 's32': ('s32',), 's64': ('s64',),
    'string': ('string',), 'flag': ('flag',), 'uint': ('uint',), 'sint': ('sint',),
    'in_addr': ('binary', 4), 'in6_addr': ('binary', 16), 'be16': ('u16',), 'be32': ('u32',),
}


def call_args(text, pos):
    """Arguments of the call whose '(' is at text[pos]."""
    end = matching(text, pos, '(', ')')
    return split_top(text[pos + 1:end - 1])


def check_kmod(spec, kmod_dir, rep):
    for path in sorted(glob.glob(os.path.join(kmod_dir, '*.c'))):
        base = os.path.basename(path)
        with open(path, encoding='utf-8') as f:
            text = strip_comments(f.read())
        for m in re.finditer(r'\bnla_(put|get)_(\w+?)\s*\(', text):
            kind, t = m.group(1), m.group(2)
            if t not in PUT_TYPES:
                continue
            args = call_args(text, m.end() - 1)
            if kind == 'put':
                if len(args) < 2:
                    continue
                attr = args[1]
            else:
                am = re.fullmatch(r'.*\[\s*([A-Z][A-Z0-9_]*)\s*\]', args[0] if args else '', re.S)
                if not am:
                    continue
                attr = am.group(1)
            if attr not in spec.cname_attr:
                continue  # a variable, or another family's attribute
            s, a = spec.cname_attr[attr]
            want = PUT_TYPES[t]
            got = a['type']
            ok = got == want[0]
            if ok and len(want) > 1:
                ok = spec.limit(a.get('checks', {}).get('exact-len')) == want[1]
            rep.check(ok, f'{base}: nla_{kind}_{t}(..{attr}..) but spec {s}.{a["name"]} is '
                      f'{got}{" exact-len " + str(a.get("checks", {}).get("exact-len")) if got == "binary" else ""}')
            if kind == 'put' and t == 'u64_64bit' and len(args) >= 4:
                pads = [spec.attr_cname[(s, x['name'])] for x in spec.sets[s]['attributes']
                        if x['type'] == 'pad']
                rep.check(args[3] in pads, f'{base}: nla_put_u64_64bit(..{attr}..) pads with '
                          f'{args[3]}, spec set {s} pads with {pads or "nothing"}')
        for m in re.finditer(r'\bnla_nest_start(?:_noflag)?\s*\(', text):
            args = call_args(text, m.end() - 1)
            if len(args) >= 2 and args[1] in spec.cname_attr:
                s, a = spec.cname_attr[args[1]]
                rep.check(a['type'] == 'nest', f'{base}: nla_nest_start(..{args[1]}..) but spec '
                          f'{s}.{a["name"]} is {a["type"]}')


def check_cli(spec, path, rep):
    """tools/attrs.c reply policies: POL(NLA_U32), POL_STR(n), POL_BIN(n), {...}."""
    base = os.path.relpath(path, TOP) if path.startswith(TOP) else path
    with open(path, encoding='utf-8') as f:
        text = strip_comments(f.read())
    bound_set = {}
    for s in spec.sets:
        if s in spec.set_prefix:
            bound_set[c_upper(spec.sets[s].get('attr-max-name', spec.set_prefix[s] + 'max'))] = s
    for m in re.finditer(r'struct\s+nla_policy\s+(\w+)\s*\[\s*(\w+)\s*\+\s*1\s*\]\s*=\s*\{', text):
        pol, bound = m.group(1), m.group(2)
        set_name = bound_set.get(bound)
        if set_name is None:
            continue
        body = text[m.end() - 1:matching(text, m.end() - 1)][1:-1]
        seen = set()
        for p in split_top(body):
            pm = re.fullmatch(r'\[\s*(\w+)\s*\]\s*=\s*(.+)', p, re.S)
            if not pm:
                continue
            idx, val = pm.group(1), re.sub(r'\s+', ' ', pm.group(2))
            if not rep.check(idx in spec.cname_attr, f'{base}: {pol}[{idx}] is not in the spec'):
                continue
            s, a = spec.cname_attr[idx]
            seen.add(a['name'])
            rep.check(s == set_name, f'{base}: {pol}[{idx}] is an attribute of set {s}, '
                      f'policy is for {set_name}')
            tm = re.search(r'NLA_(\w+)', val)
            if val.startswith('POL_STR'):
                got = 'string'
            elif val.startswith('POL_BIN'):
                got = 'binary'
            elif tm:
                got = {'STRING': 'string', 'NUL_STRING': 'string', 'NESTED': 'nest',
                       'UNSPEC': 'binary', 'BINARY': 'binary', 'FLAG': 'flag'}.get(
                           tm.group(1), tm.group(1).lower())
            else:
                rep.error(f'{base}: {pol}[{idx}]: cannot parse {val!r}')
                continue
            rep.check(got == a['type'], f'{base}: {pol}[{idx}] expects {got}, spec '
                      f'{s}.{a["name"]} is {a["type"]}')
            bm = re.fullmatch(r'POL_BIN\((\w+)\)', val)
            if bm and a['type'] == 'binary':
                rep.check(str(spec.limit(a.get('checks', {}).get('exact-len'))) == bm.group(1),
                          f'{base}: {pol}[{idx}] length {bm.group(1)}, spec {s}.{a["name"]} '
                          f'exact-len {a.get("checks", {}).get("exact-len")}')
        for a in spec.sets[set_name]['attributes']:
            if a['type'] in ('unused', 'pad'):
                continue
            rep.check(a['name'] in seen, f'{base}: {pol} has no entry for '
                      f'{spec.attr_cname[(set_name, a["name"])]}')


# --------------------------------------------------------------------------


def check_spec_self(spec, rep):
    """References inside the spec."""
    for s in spec.sets.values():
        pads = [a for a in s['attributes'] if a['type'] == 'pad']
        rep.check(len(pads) <= 1, f'spec: set {s["name"]} has more than one pad attribute')
        seen = set()
        for a in s['attributes']:
            rep.check(a['name'] not in seen, f'spec: set {s["name"]} repeats {a["name"]}')
            seen.add(a['name'])
            if a['type'] == 'nest':
                rep.check(a.get('nested-attributes') in spec.sets,
                          f'spec: {s["name"]}.{a["name"]} nests unknown set '
                          f'{a.get("nested-attributes")!r}')
            if 'enum' in a:
                rep.check(a['enum'] in spec.defs, f'spec: {s["name"]}.{a["name"]} uses unknown '
                          f'enum {a["enum"]!r}')
            if a['type'] == 'u64':
                rep.check(bool(pads), f'spec: {s["name"]}.{a["name"]} is u64 but set '
                          f'{s["name"]} has no pad attribute')
    names = set()
    values = {}
    for op in spec.ops['list']:
        rep.check(op['name'] not in names, f'spec: operation {op["name"]} repeated')
        names.add(op['name'])
        v = spec.op_value[op['name']]
        rep.check(v not in values, f'spec: operations {values.get(v)} and {op["name"]} '
                  f'share value {v}')
        values[v] = op['name']
        set_name = op.get('attribute-set')
        lists = []
        for mode in ('do', 'dump'):
            for part in ('request', 'reply'):
                lists.append(((op.get(mode) or {}).get(part) or {}).get('attributes', []) or [])
        lists.append((op.get('event') or {}).get('attributes', []) or [])
        for names_ in lists:
            for n in names_:
                rep.check(set_name in spec.sets and n in [a['name'] for a in spec.sets[set_name]['attributes']],
                          f'spec: op {op["name"]} lists {n}, not an attribute of set {set_name}')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--spec', default=os.path.join(TOP, 'Documentation/netlink/specs/krdma.yaml'))
    ap.add_argument('--header', default=os.path.join(TOP, 'include/uapi/linux/krdma.h'))
    ap.add_argument('--netlink', default=','.join(os.path.join(TOP, f) for f in
                                                  ('kmod/netlink.c', 'kmod/netlink-gen.c')),
                    help="the family's C files, comma-separated ('' to skip)")
    ap.add_argument('--kmod-dir', default=os.path.join(TOP, 'kmod'),
                    help="module sources: internal constants (*.h), attribute puts (*.c); "
                    "'' to skip")
    ap.add_argument('--cli-attrs', default=os.path.join(TOP, 'tools/attrs.c'),
                    help="the CLI's reply policies ('' to skip)")
    ap.add_argument('-v', '--verbose', action='store_true', help='list the spec items')
    args = ap.parse_args()

    rep = Report()
    try:
        spec = Spec(args.spec)
        hdr = Header(args.header)
        if args.verbose:
            for it in spec.items:
                print(f'{it.name} = {it.value!r}' + (f'  (enum {it.enum})' if it.enum else ''))
        check_spec_self(spec, rep)
        check_header(spec, hdr, rep)
        if args.netlink:
            kern = Kernel(args.netlink.split(','), args.kmod_dir, hdr, spec)
            check_netlink(spec, kern, hdr, rep)
        if args.kmod_dir:
            check_kmod(spec, args.kmod_dir, rep)
        if args.cli_attrs and os.path.exists(args.cli_attrs):
            check_cli(spec, args.cli_attrs, rep)
        elif args.cli_attrs and args.cli_attrs != ap.get_default('cli_attrs'):
            raise Fail(f'{args.cli_attrs}: not found')
    except (Fail, OSError, yaml.YAMLError) as e:
        print(f'spec: error: {e}', file=sys.stderr)
        return 2
    for e in rep.errors:
        print(e)
    if rep.errors:
        n = len(rep.errors)
        print(f'spec: FAILED ({n} disagreement{"s" if n != 1 else ""} in {rep.checked} items checked)')
        return 1
    print(f'spec: OK ({rep.checked} items checked)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
