#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Render the krdma netlink spec into C.

    scripts/spec-to-c.py --uapi > include/uapi/linux/krdma.h
    scripts/spec-to-c.py --source > kmod/netlink-gen.c
    scripts/spec-to-c.py --header > kmod/netlink-gen.h
    scripts/spec-to-c.py --user-source > tools/nl-gen.c
    scripts/spec-to-c.py --user-header > tools/nl-gen.h
    scripts/spec-to-c.py --params > include/krdma_params.h

--uapi: the uAPI header shared by the module and krdmactl, in the style of
the kernel's ynl-gen-c --mode uapi: the family's name and version, every
const as a #define, every enum and attribute set as an enum with its
__<PREFIX>MAX count and <PREFIX>MAX (a #define, as max-by-define asks, or
inside the enum for render-max enums, as YNL does), the command enum and
the multicast group names, each with its doc as a comment (kernel-doc for
the enums). Definitions with a header: are the RDMA core's, not rendered.

--source/--header, the kernel side:
From Documentation/netlink/specs/krdma.yaml: one strict policy per
operation (its do and dump requests: 6.1 has no split ops, so one policy
serves both), the policies of the nested sets those requests use, the
genl_ops table with the permission flags, the multicast groups, and the
handlers' prototypes, named as the kernel's ynl-gen-c names them
(krdma_nl_<op>_doit/_dumpit). Only the C that 6.1 builds: genl_ops, not
genl_split_ops, and range structures that are not const (6.1's struct
nla_policy points to a non-const one).

--user-source/--user-header, krdmactl's side (as ynl-gen-c --mode user
makes the C library of a family, but for libnl-3, whose struct nla_policy
checks types and lengths only): the reply policy of every attribute set,
named krdma_<set>_policy (the main set's krdma_policy), with the type of
each attribute, a string's max-len plus its NUL as its maxlen, a binary's
lengths, and the length of the signed types (libnl's table of minimal
lengths stops at the unsigned ones); and for every operation's reply and
every event, the list of its attributes in the spec's order,
krdma_<op>_rsp_attrs[] and krdma_<op>_attrs[] (what the CLI prints, in
that order); and the names of every enum's values and of every nested
set's attributes, krdma_<enum>_strmap[] and krdma_<set>_attr_strmap[] (as
ynl-gen-c's strmaps, but spelled with '_' for '-': the CLI's words and
JSON keys), and krdma_attr_enums[], the strmap of each attribute that
takes an enum. Value checks (min, max) are the kernel's: libnl has none.

--params, for both: what a request leaves out and what it may ask, read
from the last lines of each request attribute's doc (the YNL schema has
no key for them; the spec's opening comment says why and how):
"default: V[; MODE: V]..." its default (per test mode where MODE says),
"modes: MODE[, MODE]..." the test modes that take it; and the bounds of
its checks (or of its enum). One #define each, named after the
attribute's enum: KRDMA_A_TEST_DEPTH_DEFAULT, _DEFAULT_BW, _MIN, _MAX,
_MODES (1 << mode for each mode that takes it). --source adds the table
of test-start's attributes that some modes refuse (krdma_test_mode_attrs:
type, modes, default, and the refusal naming attribute and modes) that
one loop of the module checks a request with.

`make check-spec` regenerates all these files (and the spec's RST, see
scripts/spec-to-rst.py) and fails on any difference, so the header, the
module and the CLI say exactly what the spec says; `make regen` rewrites
them.
"""
import argparse
import os
import re
import sys

import yaml

SPEC = 'Documentation/netlink/specs/krdma.yaml'
# The enum of the "modes:" lines, and the op whose request they restrict.
MODE_ENUM = 'test-mode'
MODE_OP = 'test-start'
GENERATOR = 'scripts/spec-to-c.py'

SCALARS = {'u8': 'NLA_U8', 'u16': 'NLA_U16', 'u32': 'NLA_U32', 'u64': 'NLA_U64',
           's8': 'NLA_S8', 's16': 'NLA_S16', 's32': 'NLA_S32', 's64': 'NLA_S64',
           'flag': 'NLA_FLAG'}
# NLA_POLICY_RANGE/MIN/MAX keep their bounds in struct nla_policy's s16
# fields; anything wider takes a struct netlink_range_validation.
S16_MIN, S16_MAX = -(1 << 15), (1 << 15) - 1


def c_upper(name):
    return name.upper().replace('-', '_')


def c_lower(name):
    return name.lower().replace('-', '_')


class Spec:
    def __init__(self, path):
        with open(path, encoding='utf-8') as f:
            self.y = yaml.safe_load(f)
        y = self.y
        self.family = y['name']
        self.consts = {}
        self.enums = {}
        for d in y.get('definitions', []):
            if d['type'] == 'const':
                self.consts[d['name']] = d['value']
            elif d['type'] in ('enum', 'flags'):
                self.enums[d['name']] = d
        self.sets = {s['name']: s for s in y['attribute-sets']}
        self.ops = [op for op in y['operations']['list'] if op['name'] != 'unspec']
        self.cmd_prefix = y['operations'].get('name-prefix', self.family + '-cmd-')
        self.mcgrps = [g['name'] for g in y.get('mcast-groups', {}).get('list', [])]

    def const_c(self, v):
        """A check's bound: its C expression and its value."""
        if isinstance(v, int):
            return str(v), v
        if v not in self.consts:
            sys.exit(f'spec-to-c: unknown constant {v!r}')
        return c_upper(self.family + '-' + v), self.consts[v]

    def bounds(self, a):
        """A scalar attribute's (lo, hi), each (C expression, value) or
        None: its checks' min and max, else its enum's first and last."""
        checks = a.get('checks', {})
        lo = self.const_c(checks['min']) if 'min' in checks else None
        hi = self.const_c(checks['max']) if 'max' in checks else None
        if lo is None and hi is None and 'enum' in a:
            start, maxname = self.enum_bounds(a['enum'])
            count = len(self.enums[a['enum']].get('entries', []))
            lo, hi = (str(start), start), (maxname, start + count - 1)
        return lo, hi

    def attr(self, set_name, name):
        for a in self.sets[set_name]['attributes']:
            if a['name'] == name:
                return a
        sys.exit(f'spec-to-c: set {set_name} has no attribute {name}')

    def attr_c(self, set_name, name):
        s = self.sets[set_name]
        return c_upper(s.get('name-prefix', self.family + '-a-') + name)

    def enum_bounds(self, name):
        e = self.enums[name]
        prefix = e.get('name-prefix', self.family + '-' + name + '-')
        start = e.get('value-start', 0)
        return start, c_upper(prefix + 'max')

    def op_request(self, op):
        """Attributes of the op's do and dump requests, in spec order."""
        names = []
        for kind in ('do', 'dump'):
            req = op.get(kind, {}).get('request') or {}
            for a in req.get('attributes', []):
                if a not in names:
                    names.append(a)
        return names


def range_name(spec, set_name, a):
    s = spec.sets[set_name]
    return c_lower(s.get('name-prefix', spec.family + '-a-') + a['name']) + '_range'


def policy_entry(spec, set_name, a, ranges):
    """The C initialiser of one attribute's policy."""
    t = a['type']
    checks = a.get('checks', {})
    if t in ('nest',):
        return f'NLA_POLICY_NESTED({c_lower(spec.family + "-" + a["nested-attributes"])}_nl_policy)'
    if t == 'string':
        if 'max-len' in checks:
            return f'{{ .type = NLA_NUL_STRING, .len = {checks["max-len"]}, }}'
        return '{ .type = NLA_NUL_STRING, }'
    if t == 'binary':
        if 'exact-len' in checks:
            return f'NLA_POLICY_EXACT_LEN({checks["exact-len"]})'
        if 'max-len' in checks:
            return f'{{ .type = NLA_BINARY, .len = {checks["max-len"]}, }}'
        return '{ .type = NLA_BINARY, }'
    if t not in SCALARS:
        sys.exit(f'spec-to-c: {set_name}.{a["name"]}: type {t} has no policy here')
    nla = SCALARS[t]
    lo, hi = spec.bounds(a)
    if lo is None and hi is None:
        return f'{{ .type = {nla}, }}'
    wide = any(b is not None and not S16_MIN <= b[1] <= S16_MAX for b in (lo, hi))
    if wide:
        rn = range_name(spec, set_name, a)
        body = []
        if lo is not None:
            body.append(f'\t.min = {lo[0]},')
        if hi is not None:
            body.append(f'\t.max = {hi[0]},')
        ranges.append((rn, body))
        return f'NLA_POLICY_FULL_RANGE({nla}, &{rn})'
    if lo is not None and hi is not None:
        return f'NLA_POLICY_RANGE({nla}, {lo[0]}, {hi[0]})'
    if lo is not None:
        return f'NLA_POLICY_MIN({nla}, {lo[0]})'
    return f'NLA_POLICY_MAX({nla}, {hi[0]})'


def policy_lines(spec, set_name, pname, attrs, ranges, static):
    """One policy array over ATTRS (names) of SET_NAME."""
    entries = [(spec.attr_c(set_name, n), spec.attr(set_name, n)) for n in attrs]
    entries = [(c, a) for c, a in entries if a['type'] not in ('unused', 'pad')]
    last = max(entries, key=lambda e: attr_value(spec, set_name, e[1]['name']))[0]
    out = [f'{"static " if static else ""}const struct nla_policy {pname}[{last} + 1] = {{']
    for c, a in sorted(entries, key=lambda e: attr_value(spec, set_name, e[1]['name'])):
        entry = policy_entry(spec, set_name, a, ranges)
        line = f'\t[{c}] = {entry},'
        if len(line.expandtabs(8)) > 100:
            line = f'\t[{c}] =\n\t\t{entry},'
        out.append(line)
    out.append('};')
    return out, last


def attr_value(spec, set_name, name):
    """YNL's numbering: from 1, or the last explicit value, plus one."""
    val = 0
    for a in spec.sets[set_name]['attributes']:
        val = a.get('value', val + 1)
        if a['name'] == name:
            return val
    sys.exit(f'spec-to-c: no attribute {name} in {set_name}')


def nested_sets(spec, set_name, attrs, found):
    for n in attrs:
        a = spec.attr(set_name, n)
        if a['type'] == 'nest':
            sub = a['nested-attributes']
            if sub not in found:
                found.append(sub)
                nested_sets(spec, sub, [x['name'] for x in spec.sets[sub]['attributes']], found)
    return found


def handler(spec, op, kind):
    return f'{c_lower(spec.family)}_nl_{c_lower(op["name"])}_{kind}it'


def banner():
    return ['/* Do not edit directly, auto-generated from: */',
            f'/*\t{SPEC} */',
            f'/* by {GENERATOR}; make check-spec checks that it is current. */']


def ops_with_handlers(spec):
    return [op for op in spec.ops if 'do' in op or 'dump' in op]


def render_source(spec):
    fam = c_lower(spec.family)
    out = ['// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause'] + banner() + [
        '', '#include <net/netlink.h>', '#include <net/genetlink.h>', '',
        '#include <uapi/linux/krdma.h>', '', '#include "krdma_params.h"',
        '#include "netlink-gen.h"', '']
    ranges = []
    body = []
    requests = {}
    nests = []
    for op in ops_with_handlers(spec):
        attrs = spec.op_request(op)
        requests[op['name']] = attrs
        nested_sets(spec, op['attribute-set'], attrs, nests)
    if nests:
        body.append('/* Common nested types */')
    for n in nests:
        names = [a['name'] for a in spec.sets[n]['attributes']]
        lines, _ = policy_lines(spec, n, f'{fam}_{c_lower(n)}_nl_policy', names, ranges, False)
        body += lines + ['']
    maxattr = {}
    for op in ops_with_handlers(spec):
        attrs = requests[op['name']]
        if not attrs:
            continue
        cmd = c_upper(spec.cmd_prefix + op['name'])
        kinds = ' and '.join(k for k in ('do', 'dump') if k in op)
        body.append(f'/* {cmd} - {kinds} */')
        lines, last = policy_lines(spec, op['attribute-set'], f'{fam}_{c_lower(op["name"])}_nl_policy',
                                   attrs, ranges, True)
        maxattr[op['name']] = last
        body += lines + ['']
    for rn, rbody in ranges:
        out += [f'static struct netlink_range_validation {rn} = {{'] + rbody + ['};', '']
    out += body
    ops = ops_with_handlers(spec)
    out.append(f'/* Ops table for {spec.family} */')
    out.append(f'const struct genl_ops {fam}_nl_ops[{len(ops)}] = {{')
    for op in ops:
        out.append('\t{')
        out.append(f'\t\t.cmd\t\t= {c_upper(spec.cmd_prefix + op["name"])},')
        if 'do' in op:
            out.append(f'\t\t.doit\t\t= {handler(spec, op, "do")},')
        if 'dump' in op:
            out.append(f'\t\t.dumpit\t\t= {handler(spec, op, "dump")},')
        if op['name'] in maxattr:
            out.append(f'\t\t.policy\t\t= {fam}_{c_lower(op["name"])}_nl_policy,')
            out.append(f'\t\t.maxattr\t= {maxattr[op["name"]]},')
        flags = []
        for f in op.get('flags', []):
            flags.append({'admin-perm': 'GENL_ADMIN_PERM',
                          'uns-admin-perm': 'GENL_UNS_ADMIN_PERM'}[f])
        if flags:
            out.append(f'\t\t.flags\t\t= {" | ".join(flags)},')
        out.append('\t},')
    out.append('};')
    if spec.mcgrps:
        out += ['', f'const struct genl_multicast_group {fam}_nl_mcgrps[{len(spec.mcgrps)}] = {{']
        for g in spec.mcgrps:
            out.append(f'\t[{c_upper(spec.family + "-nlgrp-" + g)}] = '
                       f'{{ .name = {c_upper(spec.family + "-mcgrp-" + g)}, }},')
        out.append('};')
    if mode_params(spec):
        out += [''] + render_mode_table(spec)
    return '\n'.join(out) + '\n'


def doc_lines(doc, indent=True):
    """DOC as comment lines (' * ...') of at most 80 columns, as YNL wraps."""
    out = []
    line = ' *'
    for word in (doc or '').split():
        if len(line) + len(word) >= 79:
            out.append(line)
            line = ' *' + ('  ' if indent else '')
        line += ' ' + word
    out.append(line)
    return out


def defines(pairs, raw=False):
    """#define lines, values aligned with tabs past the longest name; a
    string value quoted unless RAW (a C expression)."""
    longest = (max(len(n) for n, _ in pairs) + 8) // 8 * 8
    out = []
    for n, v in pairs:
        v = f'"{v}"' if isinstance(v, str) and not raw else str(v)
        out.append(f'#define {n}' + '\t' * ((longest - len(n) + 7) // 8) + v)
    return out


def attr_doc(spec, a):
    """An attribute's kernel-doc: its type, then the spec's doc."""
    t = a['type']
    if t == 'unused':
        return 'reserved'
    if t == 'pad':
        return 'padding that aligns the u64 attributes'
    kind = t
    if t == 'nest':
        sub = spec.sets[a['nested-attributes']]
        kind += ', enum ' + c_lower(sub.get('enum-name', spec.family + '-' + sub['name']))
    elif 'enum' in a:
        e = spec.enums[a['enum']]
        kind += ', enum ' + c_lower(e.get('enum-name', spec.family + '-' + e['name']))
    if a.get('multi-attr'):
        kind += ', multi'
    return f'({kind}) {a.get("doc", "")}'.strip()


def kdoc(tag, doc, entries):
    """A kernel-doc comment for enum TAG; ENTRIES are (C name, doc)."""
    out = ['/**'] + doc_lines(f'enum {tag}' + (f' - {doc}' if doc else ''))
    for name, edoc in entries:
        out += doc_lines(f'@{name}: {edoc}')
    return out + [' */']


def render_uapi(spec):
    y = spec.y
    fam = spec.family
    guard = '_UAPI_' + c_upper(y.get('uapi-header', f'linux/{fam}.h').replace('/', '_')
                               .replace('.', '_'))
    maxdef = y.get('max-by-define', False)
    out = ['/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */',
           '/* Do not edit directly, auto-generated from: */', f'/*\t{SPEC} */',
           f'/* by {GENERATOR} --uapi; make check-spec checks that it is current. */',
           '', f'#ifndef {guard}', f'#define {guard}', '']
    out += defines([(c_upper(y.get('c-family-name', f'{fam}-family-name')), fam),
                    (c_upper(y.get('c-version-name', f'{fam}-family-version')),
                     y.get('version', 1))])
    out.append('')
    for d in y.get('definitions', []):
        if d.get('header'):
            continue
        tag = c_lower(d.get('enum-name', f'{fam}-{d["name"]}'))
        if d['type'] == 'const':
            doc = ' '.join(d.get('doc', '').split())
            if doc and len(f'/* {doc} */') <= 80:
                out.append(f'/* {doc} */')
            elif doc:
                out += ['/*'] + doc_lines(doc, indent=False) + [' */']
            out += defines([(c_upper(d.get('c-define-name', f'{fam}-{d["name"]}')),
                             d['value'])]) + ['']
            continue
        if d['type'] != 'enum':
            sys.exit(f'spec-to-c: definition {d["name"]}: type {d["type"]} not rendered')
        pfx = d.get('name-prefix', f'{fam}-{d["name"]}-')
        entries = [e if isinstance(e, dict) else {'name': e} for e in d['entries']]
        out += kdoc(tag, d.get('doc', '').strip(),
                    [(c_upper(pfx + e['name']), e.get('doc', '').strip()) for e in entries])
        out.append(f'enum {tag} {{')
        val = 0
        for i, e in enumerate(entries):
            v = e.get('value', d.get('value-start', 0) if i == 0 else val)
            out.append(f'\t{c_upper(pfx + e["name"])}' + (f' = {v},' if v != val else ','))
            val = v + 1
        if d.get('render-max'):
            cnt = c_upper(d.get('enum-cnt-name', f'__{pfx}max'))
            out += ['', '\t/* private: */', f'\t{cnt},',
                    f'\t{c_upper(pfx + "max")} = ({cnt} - 1)']
        out += ['};', '']
    for s in y['attribute-sets']:
        if s.get('subset-of'):
            continue
        pfx = s.get('name-prefix', f'{fam}-a-')
        tag = c_lower(s.get('enum-name', f'{fam}-{s["name"]}-attrs'))
        out += kdoc(tag, s.get('doc', '').strip(),
                    [(c_upper(pfx + a['name']), attr_doc(spec, a)) for a in s['attributes']])
        out += [f'enum {tag} {{']
        val = 0
        for a in s['attributes']:
            v = attr_value(spec, s['name'], a['name'])
            out.append(f'\t{c_upper(pfx + a["name"])}' + (f' = {v},' if v != val else ','))
            val = v + 1
        out += enum_end(c_upper(f'__{pfx}max'), c_upper(f'{pfx}max'), maxdef)
    ops = y['operations']
    pfx = ops.get('name-prefix', f'{fam}-cmd-')
    tag = c_lower(ops.get('enum-name', f'{fam}-cmd'))
    out += kdoc(tag, 'Commands of the family; their doc is the spec\'s.',
                [(c_upper(pfx + op['name']), op_doc(op)) for op in ops['list']])
    out.append(f'enum {tag} {{')
    val = 0
    for op in ops['list']:
        v = op.get('value', val if val else 1)
        out.append(f'\t{c_upper(pfx + op["name"])}' + (f' = {v},' if v != val else ','))
        val = v + 1
    out += enum_end(c_upper(f'__{pfx}max'), c_upper(f'{pfx}max'), maxdef)
    if spec.mcgrps:
        out += defines([(c_upper(f'{fam}-mcgrp-{g}'), g) for g in spec.mcgrps]) + ['']
    out.append(f'#endif /* {guard} */')
    return '\n'.join(out) + '\n'


def op_doc(op):
    """An operation's kernel-doc: what it takes (do, dump, event) and its
    permission, then the spec's doc."""
    kinds = [k for k in ('do', 'dump', 'event') if k in op] + op.get('flags', [])
    doc = op.get('doc', '').strip()
    return f'({", ".join(kinds)}) {doc}' if kinds else doc


def enum_end(cnt, mx, maxdef):
    """The close of an attribute or command enum: count and max."""
    if maxdef:
        return ['', f'\t{cnt},', '};', '', f'#define {mx} ({cnt} - 1)', '']
    return ['', f'\t{cnt},', f'\t{mx} = ({cnt} - 1)', '};', '']


def render_header(spec):
    fam = c_lower(spec.family)
    guard = '_' + c_upper(spec.family) + '_NETLINK_GEN_H'
    out = ['/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */'] + banner() + [
        '', f'#ifndef {guard}', f'#define {guard}', '',
        '#include <net/netlink.h>', '#include <net/genetlink.h>', '',
        '#include <uapi/linux/krdma.h>', '']
    nests = []
    for op in ops_with_handlers(spec):
        nested_sets(spec, op['attribute-set'], spec.op_request(op), nests)
    if nests:
        out.append('/* Common nested types */')
    for n in nests:
        entries = [a for a in spec.sets[n]['attributes'] if a['type'] not in ('unused', 'pad')]
        last = max(entries, key=lambda a: attr_value(spec, n, a['name']))
        out.append(f'extern const struct nla_policy {fam}_{c_lower(n)}_nl_policy'
                   f'[{spec.attr_c(n, last["name"])} + 1];')
    ops = ops_with_handlers(spec)
    out += ['', f'/* Ops table for {spec.family} */',
            f'extern const struct genl_ops {fam}_nl_ops[{len(ops)}];', '']
    for op in ops:
        if 'do' in op:
            out.append(f'int {handler(spec, op, "do")}(struct sk_buff *skb, struct genl_info *info);')
        if 'dump' in op:
            out.append(f'int {handler(spec, op, "dump")}(struct sk_buff *skb, '
                       'struct netlink_callback *cb);')
    if spec.mcgrps:
        out += ['', 'enum {']
        for g in spec.mcgrps:
            out.append(f'\t{c_upper(spec.family + "-nlgrp-" + g)},')
        out += ['};', '',
                f'extern const struct genl_multicast_group {fam}_nl_mcgrps[{len(spec.mcgrps)}];']
    if mode_params(spec):
        out += render_mode_decl(spec)
    out += ['', f'#endif /* {guard} */']
    return '\n'.join(out) + '\n'


# ---- defaults, bounds, modes (--params; --source's table) ----------------

DOC_KEY = re.compile(r'^\s*(default|modes)\s*:\s*(.*?)\s*$', re.I)


def doc_keys(a, where):
    """The "default:" and "modes:" lines of attribute A's doc, as written."""
    keys = {}
    for line in (a.get('doc') or '').splitlines():
        m = DOC_KEY.match(line)
        if not m:
            continue
        key = m.group(1)
        if key != key.lower() or key in keys or not m.group(2):
            sys.exit(f'spec-to-c: {where}: a "{key}:" line must be lower case, once, with a value')
        keys[key] = m.group(2)
    return keys


def mode_entries(spec):
    """{mode name: its C name and value} of the test-mode enum."""
    e = spec.enums[MODE_ENUM]
    pfx = e.get('name-prefix', f'{spec.family}-{MODE_ENUM}-')
    out = {}
    val = e.get('value-start', 0)
    for ent in e['entries']:
        name = ent if isinstance(ent, str) else ent['name']
        out[name] = (c_upper(pfx + name), val)
        val += 1
    return out


def param_value(spec, a, v, where):
    """A default's C expression and value: a number, a const, an enum entry."""
    if re.fullmatch(r'[0-9]+', v):
        return v, int(v)
    if v in spec.consts:
        return spec.const_c(v)
    if 'enum' in a:
        e = spec.enums[a['enum']]
        pfx = e.get('name-prefix', f'{spec.family}-{a["enum"]}-')
        val = e.get('value-start', 0)
        for ent in e['entries']:
            if (ent if isinstance(ent, str) else ent['name']) == v:
                return c_upper(pfx + v), val
            val += 1
    sys.exit(f'spec-to-c: {where}: default {v!r} is no number, const or entry of its enum')


class Param:
    """What the spec says of one request attribute of the main set."""

    def __init__(self, spec, a):
        self.a = a
        self.name = a['name']
        self.c = spec.attr_c(spec.family, a['name'])
        where = f'{spec.family}.{self.name}'
        keys = doc_keys(a, where)
        modes = mode_entries(spec)
        self.defaults = []      # (suffix, C expression, value)
        if 'default' in keys:
            for i, part in enumerate(keys['default'].split(';')):
                part = part.strip()
                mode = None
                if i:
                    mode, _, part = (x.strip() for x in part.partition(':'))
                    if mode not in modes:
                        sys.exit(f'spec-to-c: {where}: default for {mode!r}, no {MODE_ENUM}')
                expr, val = param_value(spec, a, part, where)
                self.defaults.append(('_' + c_upper(mode) if mode else '', expr, val))
        self.modes = None
        if 'modes' in keys:
            names = [m.strip() for m in keys['modes'].split(',')]
            for m in names:
                if m not in modes:
                    sys.exit(f'spec-to-c: {where}: modes: {m!r} is no {MODE_ENUM}')
            self.modes = [(m, modes[m][0]) for m in modes if m in names]
        self.lo, self.hi = spec.bounds(a) if a['type'] in SCALARS else (None, None)

    def defines(self):
        out = [(f'{self.c}_DEFAULT{sfx}', expr) for sfx, expr, _ in self.defaults]
        if self.lo is not None:
            out.append((f'{self.c}_MIN', self.lo[0]))
        if self.hi is not None:
            out.append((f'{self.c}_MAX', self.hi[0]))
        if self.modes:
            out.append((f'{self.c}_MODES',
                        '(' + ' | '.join(f'(1U << {c})' for _, c in self.modes) + ')'))
        return out

    def refusal(self):
        """The extack of a mode that does not take it: the attribute, the modes."""
        short = self.name[len('test-'):] if self.name.startswith('test-') else self.name
        names = [m for m, _ in self.modes]
        said = names[0] if len(names) == 1 else ', '.join(names[:-1]) + ' and ' + names[-1]
        return f'{short} is for the {said} mode' + ('s' if len(names) > 1 else '')


def params(spec):
    """Param of each attribute of the main set in a request, in spec order."""
    used = set()
    for op in ops_with_handlers(spec):
        if op['attribute-set'] == spec.family:
            used.update(spec.op_request(op))
    out = []
    for a in spec.sets[spec.family]['attributes']:
        p = Param(spec, a) if a['name'] in used else None
        if p is None:
            if doc_keys(a, f'{spec.family}.{a["name"]}'):
                sys.exit(f'spec-to-c: {spec.family}.{a["name"]}: default or modes, in no request')
            continue
        if p.defines():
            out.append(p)
    names = {a['name'] for a in spec.sets[spec.family]['attributes']}
    taken = {spec.attr_c(spec.family, n) for n in names}
    for p in out:
        for n, _ in p.defines():
            if n in taken:
                sys.exit(f'spec-to-c: {n} would name an attribute too')
        if p.modes and p.name not in spec.op_request(
                next(op for op in spec.ops if op['name'] == MODE_OP)):
            sys.exit(f'spec-to-c: {spec.family}.{p.name}: modes: but not in {MODE_OP}')
    return out


def mode_params(spec):
    return [p for p in params(spec) if p.modes]


def render_params(spec):
    guard = '_' + c_upper(spec.family) + '_PARAMS_H'
    out = ['/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */',
           '/* Do not edit directly, auto-generated from: */', f'/*\t{SPEC} */',
           f'/* by {GENERATOR} --params; make check-spec checks that it is current. */',
           '/*',
           ' * What a request may leave out and what it may ask, for the module, which',
           ' * applies it, and krdmactl, which says it: each attribute\'s default (the',
           ' * spec\'s "default:"; _DEFAULT_<MODE> where a test mode has its own), the',
           ' * bounds of its checks or of its enum, and for test-start the test modes',
           ' * that take it (the spec\'s "modes:", 1 << mode each). Include the uAPI',
           ' * header first.',
           ' */',
           '', f'#ifndef {guard}', f'#define {guard}', '']
    for p in params(spec):
        out.append(f'/* {p.name} */')
        out += defines(p.defines(), raw=True) + ['']
    out.append(f'#endif /* {guard} */')
    return '\n'.join(out) + '\n'


def render_mode_table(spec):
    """--source's table of the attributes some test modes refuse."""
    mps = mode_params(spec)
    fam = c_lower(spec.family)
    out = [f'/* {MODE_OP}: the attributes that only some test modes take */',
           f'const struct {fam}_mode_attr {fam}_test_mode_attrs[{len(mps)}] = {{']
    for p in mps:
        out += ['\t{', f'\t\t.attr\t\t= {p.c},', f'\t\t.type\t\t= {SCALARS[p.a["type"]]},',
                f'\t\t.modes\t\t= {p.c}_MODES,']
        base = [d for d in p.defaults if not d[0]]
        if base:
            out += ['\t\t.has_default\t= true,', f'\t\t.dflt\t\t= {p.c}_DEFAULT,']
        out += [f'\t\t.refusal\t= "{p.refusal()}",', '\t},']
    out.append('};')
    return out


def render_mode_decl(spec):
    fam = c_lower(spec.family)
    return ['', '/*',
            f' * An attribute of {MODE_OP} that only some test modes take: a request',
            ' * of another mode that gives it is refused, with @refusal, unless it',
            ' * gives its default (a value that asks the mode for nothing).',
            ' */',
            f'struct {fam}_mode_attr {{',
            '\tu16\t\tattr;',
            '\tu8\t\ttype;\t\t/* NLA_U8, NLA_U32 or NLA_U64 */',
            '\tu32\t\tmodes;\t\t/* 1 << mode of each mode that takes it */',
            '\tbool\t\thas_default;',
            '\tu64\t\tdflt;',
            '\tconst char\t*refusal;',
            '};', '',
            f'extern const struct {fam}_mode_attr {fam}_test_mode_attrs[{len(mode_params(spec))}];']


# ---- krdmactl (libnl-3) ----------------------------------------------------

LIBNL_TYPES = {'u8': 'NLA_U8', 'u16': 'NLA_U16', 'u32': 'NLA_U32', 'u64': 'NLA_U64',
               's8': 'NLA_S8', 's16': 'NLA_S16', 's32': 'NLA_S32', 's64': 'NLA_S64',
               'flag': 'NLA_FLAG', 'nest': 'NLA_NESTED'}
SIGNED_LEN = {'s8': 1, 's16': 2, 's32': 4, 's64': 8}


def user_policy_name(spec, set_name):
    fam = c_lower(spec.family)
    return f'{fam}_policy' if set_name == spec.family else f'{fam}_{c_lower(set_name)}_policy'


def user_max(spec, set_name):
    s = spec.sets[set_name]
    return c_upper(s.get('attr-max-name', s.get('name-prefix', spec.family + '-a-') + 'max'))


def user_policy_entry(spec, set_name, a):
    """libnl's check of one attribute of a reply: its type, its lengths."""
    t = a['type']
    checks = a.get('checks', {})
    if t == 'string':
        if 'max-len' in checks:
            return f'{{ .type = NLA_STRING, .maxlen = {spec.const_c(checks["max-len"])[0]} + 1 }}'
        return '{ .type = NLA_STRING }'
    if t == 'binary':
        lo = checks.get('exact-len', checks.get('min-len'))
        hi = checks.get('exact-len', checks.get('max-len'))
        body = ['.type = NLA_UNSPEC']
        if lo is not None:
            body.append(f'.minlen = {spec.const_c(lo)[0]}')
        if hi is not None:
            body.append(f'.maxlen = {spec.const_c(hi)[0]}')
        return '{ ' + ', '.join(body) + ' }'
    if t not in LIBNL_TYPES:
        sys.exit(f'spec-to-c: {set_name}.{a["name"]}: type {t} has no libnl policy here')
    if t in SIGNED_LEN:
        return f'{{ .type = {LIBNL_TYPES[t]}, .minlen = {SIGNED_LEN[t]} }}'
    return f'{{ .type = {LIBNL_TYPES[t]} }}'


def user_lists(spec):
    """(C name, comment, set, attribute names) of every reply and event."""
    out = []
    fam = c_lower(spec.family)
    for op in spec.ops:
        cmd = c_upper(spec.cmd_prefix + op['name'])
        do = ((op.get('do') or {}).get('reply') or {}).get('attributes')
        dump = ((op.get('dump') or {}).get('reply') or {}).get('attributes')
        if do is not None and dump is not None and do != dump:
            sys.exit(f'spec-to-c: op {op["name"]}: do and dump replies differ')
        rsp = do if do is not None else dump
        if rsp:
            kinds = ' and '.join(k for k in ('do', 'dump') if (op.get(k) or {}).get('reply'))
            out.append((f'{fam}_{c_lower(op["name"])}_rsp_attrs', f'{cmd} - {kinds} reply',
                        op['attribute-set'], rsp))
        ev = (op.get('event') or {}).get('attributes')
        if ev:
            out.append((f'{fam}_{c_lower(op["name"])}_attrs', f'{cmd} - event',
                        op['attribute-set'], ev))
    return out


def enum_values(d):
    """(value, entry) of enum definition D, numbered as the uAPI header does."""
    entries = [e if isinstance(e, dict) else {'name': e} for e in d['entries']]
    out, val = [], d.get('value-start', 0)
    for e in entries:
        val = e.get('value', val)
        out.append((val, e))
        val += 1
    return out


def user_strmaps(spec):
    """(C name, comment, [(index, name)], size) of every name table: an
    enum's entries (numbers where the header is not ours, as the RDMA
    core's), and the attributes of each set but the family's own (whose
    labels and keys are krdmactl's: tools/attrs.c). The names as the
    spec writes them, '-' as '_' (what JSON keys and command-line words
    take); NULL where no name is."""
    out = []
    fam = c_lower(spec.family)
    for d in spec.y.get('definitions', []):
        if d['type'] != 'enum':
            continue
        pfx = d.get('name-prefix', f'{spec.family}-{d["name"]}-')
        vals = enum_values(d)
        tag = c_lower(d.get('enum-name', f'{spec.family}-{d["name"]}'))
        names = [(str(v) if d.get('header') else c_upper(pfx + e['name']), c_lower(e['name']))
                 for v, e in vals]
        out.append((f'{fam}_{c_lower(d["name"])}', f'enum {tag}', names,
                    max(v for v, _ in vals) + 1))
    for st in spec.y['attribute-sets']:
        n = st['name']
        if st.get('subset-of') or n == spec.family:
            continue
        attrs = [a for a in st['attributes'] if a['type'] not in ('unused', 'pad')]
        names = [(spec.attr_c(n, a['name']), c_lower(a['name']))
                 for a in sorted(attrs, key=lambda a: attr_value(spec, n, a['name']))]
        tag = c_lower(st.get('enum-name', f'{spec.family}-{n}'))
        out.append((f'{fam}_{c_lower(n)}_attr', f'{n}: {tag}', names,
                    max(attr_value(spec, n, a['name']) for a in attrs) + 1))
    return out


def render_user_source(spec):
    out = ['// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause'] + banner() + [
        '', '#include <netlink/attr.h>', '', '#include <linux/krdma.h>', '',
        '#include "nl-gen.h"', '']
    for s in spec.y['attribute-sets']:
        if s.get('subset-of'):
            continue
        n = s['name']
        out.append(f'/* {n}: {c_lower(s.get("enum-name", spec.family + "-" + n))} */')
        out.append(f'struct nla_policy {user_policy_name(spec, n)}[{user_max(spec, n)} + 1] = {{')
        for a in sorted((a for a in s['attributes'] if a['type'] not in ('unused', 'pad')),
                        key=lambda a: attr_value(spec, n, a['name'])):
            out.append(f'\t[{spec.attr_c(n, a["name"])}] = {user_policy_entry(spec, n, a)},')
        out += ['};', '']
    for cname, comment, set_name, names in user_lists(spec):
        out.append(f'/* {comment} */')
        out.append(f'const int {cname}[{len(names)}] = {{')
        out += [f'\t{spec.attr_c(set_name, x)},' for x in names if spec.attr(set_name, x)]
        out += ['};', '']
    for cname, comment, names, size in user_strmaps(spec):
        out.append(f'/* {comment} */')
        out.append(f'const char *const {cname}_strmap[{size}] = {{')
        out += [f'\t[{i}] = "{x}",' for i, x in names]
        out += ['};', '']
    fam = c_lower(spec.family)
    out.append(f'/* {spec.family}: the attributes that take an enum, its names */')
    out.append(f'const struct {fam}_strmap {fam}_attr_enums[{user_max(spec, spec.family)} + 1] = {{')
    sizes = {cname: size for cname, _, _, size in user_strmaps(spec)}
    for a in spec.sets[spec.family]['attributes']:
        if 'enum' in a:
            m = f'{fam}_{c_lower(a["enum"])}'
            out.append(f'\t[{spec.attr_c(spec.family, a["name"])}] = {{ {m}_strmap, {sizes[m]} }},')
    out += ['};', '']
    return '\n'.join(out[:-1]) + '\n'


def render_user_header(spec):
    guard = '_' + c_upper(spec.family) + '_NL_GEN_H'
    out = ['/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */'] + banner() + [
        '', f'#ifndef {guard}', f'#define {guard}', '',
        '#include <netlink/attr.h>', '', '#include <linux/krdma.h>', '',
        '/* Reply policies: types and lengths (libnl checks no values). */']
    for s in spec.y['attribute-sets']:
        if s.get('subset-of'):
            continue
        out.append(f'extern struct nla_policy {user_policy_name(spec, s["name"])}'
                   f'[{user_max(spec, s["name"])} + 1];')
    out += ['', '/* The attributes of each reply and event, in the spec\'s order. */']
    for cname, _, _, names in user_lists(spec):
        out.append(f'extern const int {cname}[{len(names)}];')
    out += ['', '/*',
            ' * The names of each enum\'s values and each nested set\'s attributes, as',
            ' * the spec writes them but with \'_\' for \'-\' (NULL where none is).',
            ' */']
    for cname, _, _, size in user_strmaps(spec):
        out.append(f'extern const char *const {cname}_strmap[{size}];')
    fam = c_lower(spec.family)
    out += ['', '/* A name table and its size. */', f'struct {fam}_strmap {{',
            '\tconst char *const *names;', '\tunsigned int n;', '};',
            f'/* Of each attribute of the {spec.family} set that takes an enum, its names. */',
            f'extern const struct {fam}_strmap {fam}_attr_enums[{user_max(spec, spec.family)} + 1];']
    out += ['', f'#endif /* {guard} */']
    return '\n'.join(out) + '\n'


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument('--uapi', action='store_true', help='include/uapi/linux/krdma.h')
    g.add_argument('--source', action='store_true', help='kmod/netlink-gen.c')
    g.add_argument('--header', action='store_true', help='kmod/netlink-gen.h')
    g.add_argument('--user-source', action='store_true', help='tools/nl-gen.c')
    g.add_argument('--user-header', action='store_true', help='tools/nl-gen.h')
    g.add_argument('--params', action='store_true', help='include/krdma_params.h')
    ap.add_argument('--spec', default=None, help=f'the spec (default: {SPEC})')
    args = ap.parse_args()
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    spec = Spec(args.spec or os.path.join(top, SPEC))
    if args.uapi:
        sys.stdout.write(render_uapi(spec))
    elif args.params:
        sys.stdout.write(render_params(spec))
    elif args.user_source or args.user_header:
        sys.stdout.write(render_user_source(spec) if args.user_source else render_user_header(spec))
    else:
        sys.stdout.write(render_source(spec) if args.source else render_header(spec))


if __name__ == '__main__':
    main()
