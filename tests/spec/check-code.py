#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""
check-code.py: Documentation/netlink/specs/krdma.yaml is the source of
truth of the krdma Generic Netlink ABI. The files generated from it (the
uAPI header, kmod/netlink-gen.[ch], Documentation/netlink-abi.rst) are
checked by regenerating them (scripts/spec-regen.sh --check); this checks
the hand-written code that uses them, and the spec's own references:

1. The spec: nests and enums it names exist, u64 attributes have a pad in
   their set, operations and attributes are not repeated, the attributes
   an operation lists are in its set.
2. kmod/netlink.c registers the family with the generated names (family
   name and version defines, the main set's max, the generated ops table
   and multicast groups), and sends every event operation of the spec.
3. Best effort: kmod/*.c (--kmod-dir) put and get attributes with the
   spec's types (nla_put_u32(skb, KRDMA_A_X, ...) needs X to be u32, u64
   puts pad with the pad attribute of the same set), and the CLI's reply
   policies (--cli-attrs, tools/nl-gen.c: generated, so this checks
   the generator's libnl rendering) use the spec's types and lengths.
4. tests/lib/genl.py, the guest tests' netlink client, reads the spec
   itself: the numbers it makes of it (commands, attributes, enums, their
   maxima, constants) must be the uAPI header's (--header), which the
   module and krdmactl are built with, and its types and nests the
   spec's.

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

# --------------------------------------------------------------------------
# 2. netlink.c registers what was generated


def field(p):
    m = re.fullmatch(r'\.\s*(\w+)\s*=\s*(.+)', p.strip(), re.S)
    if not m:
        return (p.strip(), None)
    return (m.group(1), re.sub(r'\s+', ' ', m.group(2).strip()))


def check_netlink(spec, paths, rep):
    text = ''
    for path in paths:
        with open(path, encoding='utf-8') as f:
            text += strip_comments(f.read()) + '\n'
    base = os.path.basename(paths[0])
    fm = re.search(r'struct\s+genl_family\s+\w+[^;={]*=\s*\{', text)
    if not rep.check(bool(fm), f'{base}: no struct genl_family'):
        return
    body = text[fm.end() - 1:matching(text, fm.end() - 1)][1:-1]
    fam = dict(field(p) for p in split_top(body))
    y = spec.y
    main_set = next((op.get('attribute-set') for op in spec.ops['list']
                     if op.get('attribute-set')), None)
    want = {
        'name': c_upper(y.get('c-family-name', f'{spec.fam}-family-name')),
        'version': c_upper(y.get('c-version-name', f'{spec.fam}-family-version')),
        'maxattr': c_upper(spec.sets[main_set].get('attr-max-name',
                                                   spec.set_prefix[main_set] + 'max')),
        'ops': f'{c_lower(spec.fam)}_nl_ops',
    }
    if spec.mcgrps:
        want['mcgrps'] = f'{c_lower(spec.fam)}_nl_mcgrps'
    for key, w in want.items():
        rep.check(fam.get(key) == w, f'{base}: family .{key} = {fam.get(key)}, the generated '
                  f'code names it {w}')
    for op in spec.ops['list']:
        if 'event' in op or 'notify' in op:
            cname = spec.op_cname[op['name']]
            rep.check(re.search(r'\b' + cname + r'\b', text) is not None,
                      f'{base}: {cname} (spec event {op["name"]}) is never sent')
            rep.check(op.get('mcgrp') in spec.mcgrps, f'spec: event {op["name"]} names mcast '
                      f'group {op.get("mcgrp")!r}, which is not in mcast-groups')


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
    """The CLI's libnl reply policies: { .type = NLA_U32 }, strings'
    .maxlen (max-len + 1: libnl counts the NUL), binaries' lengths; also
    the hand-written forms POL(NLA_U32), POL_STR(n), POL_BIN(n)."""
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
            checks = a.get('checks', {})
            bm = re.fullmatch(r'POL_BIN\((\w+)\)', val)
            if bm and a['type'] == 'binary':
                rep.check(str(spec.limit(checks.get('exact-len'))) == bm.group(1),
                          f'{base}: {pol}[{idx}] length {bm.group(1)}, spec {s}.{a["name"]} '
                          f'exact-len {checks.get("exact-len")}')
            lens = {k: int(eval(v, {'__builtins__': {}}))  # pylint: disable=eval-used
                    for k, v in re.findall(r'\.(minlen|maxlen)\s*=\s*([\d\s+]+)', val)}
            if a['type'] == 'string' and not val.startswith('POL_STR'):
                want = spec.limit(checks['max-len']) + 1 if 'max-len' in checks else None
                rep.check(lens.get('maxlen') == want, f'{base}: {pol}[{idx}] maxlen '
                          f'{lens.get("maxlen")}, spec {s}.{a["name"]} max-len '
                          f'{checks.get("max-len")} (+ 1, the NUL)')
            if a['type'] == 'binary' and not bm:
                lo = checks.get('exact-len', checks.get('min-len'))
                hi = checks.get('exact-len', checks.get('max-len'))
                rep.check(lens.get('minlen') == (None if lo is None else spec.limit(lo)) and
                          lens.get('maxlen') == (None if hi is None else spec.limit(hi)),
                          f'{base}: {pol}[{idx}] lengths {lens}, spec {s}.{a["name"]} {checks}')
        for a in spec.sets[set_name]['attributes']:
            if a['type'] in ('unused', 'pad'):
                continue
            rep.check(a['name'] in seen, f'{base}: {pol} has no entry for '
                      f'{spec.attr_cname[(set_name, a["name"])]}')


# --------------------------------------------------------------------------
# 4. the guest tests' netlink client reads the header as the spec says


def header_numbers(path):
    """The uAPI header's numbers: {define: value} and {enum tag: {member:
    value}}, as a C compiler reads them (the header is generated; this
    reads what spec-to-c.py writes)."""
    with open(path, encoding='utf-8') as f:
        text = strip_comments(f.read())
    defines, enums = {}, {}
    for m in re.finditer(r'^#define\s+(\w+)\s+(.+?)\s*$', text, re.M):
        defines[m.group(1)] = m.group(2).strip()
    for m in re.finditer(r'enum\s+(\w+)\s*\{(.*?)\};', text, re.S):
        vals, nxt = {}, 0
        for item in split_top(m.group(2)):
            im = re.fullmatch(r'\s*(\w+)\s*(?:=\s*(.+?))?\s*', item, re.S)
            if not im:
                continue
            if im.group(2) is not None:
                mm = re.fullmatch(r'\((\w+)\s*-\s*1\)', im.group(2))
                if mm:  # YNL's X_MAX = (__X_MAX - 1): a limit, not a member
                    defines[im.group(1)] = str(vals[mm.group(1)] - 1)
                    continue
                nxt = int(im.group(2), 0)
            vals[im.group(1)] = nxt
            nxt += 1
        enums[m.group(1)] = vals
    for k, v in list(defines.items()):
        mm = re.fullmatch(r'\((\w+)\s*-\s*1\)', v)
        if mm:
            for vals in enums.values():
                if mm.group(1) in vals:
                    defines[k] = str(vals[mm.group(1)] - 1)
    out = {}
    for k, v in defines.items():
        out[k] = v.strip('"') if v.startswith('"') else int(v, 0) if re.fullmatch(r'\d+', v) else v
    return out, enums


def check_genl(spec, header, rep):
    sys.path.insert(0, os.path.join(TOP, 'tests', 'lib'))
    import genl  # pylint: disable=import-outside-toplevel
    try:
        g = genl.Spec(spec.path)
        defines, enums = header_numbers(header)
    except Exception as e:  # pylint: disable=broad-except
        rep.error(f'genl.py cannot read {spec.path} or {header}: {e!r}')
        return
    # The numbers: every enum and define of the header, as genl.py has them.
    for tag, vals in enums.items():
        if not rep.check(tag in g.enums, f'genl.py: no enum {tag} (the header has it)'):
            continue
        got = {k: v for k, v in g.enums[tag].values.items()}
        for k, v in vals.items():
            rep.check(got.get(k) == v, f'genl.py: reads {k} as {got.get(k)}, the header has {v}')
        for k in set(got) - set(vals):
            rep.error(f'genl.py: reads {k} in enum {tag}, the header has no such member')
    for k, v in defines.items():
        if k.startswith('_UAPI_'):
            continue
        rep.check(g.defines.get(k) == v, f'genl.py: reads #define {k} as {g.defines.get(k)!r}, '
                  f'the header has {v!r}')
    # The types: the spec's, with the enum of each nest.
    for s in spec.sets.values():
        tag = c_lower(s.get('enum-name', ''))
        en = g.enums.get(tag)
        if en is None:
            continue
        for a in s['attributes']:
            if a['type'] in ('unused', 'pad'):
                continue
            cname = spec.attr_cname[(s['name'], a['name'])]
            typ, arg = en.type_of(cname)
            rep.check(typ == a['type'], f'genl.py: reads {cname} as {typ}, spec '
                      f'{s["name"]}.{a["name"]} is {a["type"]}')
            if a['type'] == 'nest' and a.get('nested-attributes') in spec.sets:
                sub = c_lower(spec.sets[a['nested-attributes']].get('enum-name', ''))
                rep.check(arg == sub, f'genl.py: reads {cname} as a nest of {arg}, spec '
                          f'nests {sub}')
    # tests/guest/netlink-raw.sh takes the ops to dump from the same reading.
    for op in spec.ops['list']:
        cname = spec.op_cname[op['name']]
        got = 'dump' in g.cmds.comments.get(cname, '')
        rep.check(got == ('dump' in op), f'genl.py: reads {cname} as '
                  f'{"" if got else "not "}dumpable, spec op {op["name"]} '
                  f'{"has" if "dump" in op else "has no"} dump')


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
    ap.add_argument('--netlink', default=os.path.join(TOP, 'kmod/netlink.c'),
                    help="the file that registers the family ('' to skip)")
    ap.add_argument('--kmod-dir', default=os.path.join(TOP, 'kmod'),
                    help="module sources whose attribute puts are checked ('' to skip)")
    ap.add_argument('--cli-attrs', default=os.path.join(TOP, 'tools/nl-gen.c'),
                    help="the CLI's reply policies ('' to skip)")
    ap.add_argument('--header', default=os.path.join(TOP, 'include/uapi/linux/krdma.h'),
                    help="the uAPI header genl.py's reading of the spec must agree with "
                         "('' to skip)")
    args = ap.parse_args()

    rep = Report()
    try:
        spec = Spec(args.spec)
        check_spec_self(spec, rep)
        if args.netlink:
            check_netlink(spec, args.netlink.split(','), rep)
        if args.kmod_dir:
            check_kmod(spec, args.kmod_dir, rep)
        if args.cli_attrs and os.path.exists(args.cli_attrs):
            check_cli(spec, args.cli_attrs, rep)
        elif args.cli_attrs and args.cli_attrs != ap.get_default('cli_attrs'):
            raise Fail(f'{args.cli_attrs}: not found')
        if args.header:
            check_genl(spec, args.header, rep)
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
