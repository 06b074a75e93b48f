#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""
check-ynl-schema.py: Documentation/netlink/specs/krdma.yaml is valid
against the kernel's YNL schema of its protocol (genetlink-legacy), the
JSON schema the kernel's own YNL tools (tools/net/ynl: cli.py, ynl-gen-c)
check a spec with before they load it: so the kernel's ynl CLI can drive
krdma (--spec krdma.yaml --do version-get).

The schema is the kernel's Documentation/netlink/<protocol>.yaml, looked
up in this order:
    --schema-dir D, $KRDMA_YNL_SCHEMA_DIR       (D/<protocol>.yaml)
    $KSRC/Documentation/netlink/<protocol>.yaml
    /usr/src/linux*/Documentation/netlink/<protocol>.yaml   (an unpacked tree)
    /usr/src/linux-source-<v>.tar.xz, newest first: Debian's linux-source
        packages (make deps installs linux-source-6.12; 6.1's predates the
        schemas). Only that file is extracted (tar has to read the whole
        archive: about half a minute), into a cache keyed by the tarball's
        name, size and time: $KRDMA_YNL_CACHE, or /var/tmp/krdma-ynl-schema.
Without a schema or python3-jsonschema the check is skipped, and says so
(under CI, CI=true, that fails: make deps installs both).

Also proves the check can fail: copies of the spec with a key the schema
does not know, an operation without its doc, and a check bound that is
no name nor number must be rejected.

Usage: tests/spec/check-ynl-schema.py [--spec S] [--schema-dir D]
Ends with "N passed, M failed" (a skip is "0 passed, 0 failed").
"""

import argparse
import copy
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
SPEC = os.path.join(TOP, 'Documentation', 'netlink', 'specs', 'krdma.yaml')


CACHE = os.environ.get('KRDMA_YNL_CACHE', '/var/tmp/krdma-ynl-schema')


def version_key(path):
    return [int(x) for x in re.findall(r'\d+', os.path.basename(path))]


def from_tarball(tarball, protocol):
    """<protocol>.yaml of a linux-source tarball, extracted once into the
    cache (None if the tarball has none: the cache remembers that too)."""
    st = os.stat(tarball)
    top = os.path.basename(tarball)[:-len('.tar.xz')]
    cache = os.path.join(CACHE, f'{top}-{st.st_size}-{st.st_mtime_ns}')
    member = f'{top}/Documentation/netlink/{protocol}.yaml'
    path = os.path.join(cache, member)
    none = os.path.join(cache, f'no-{protocol}')
    if os.path.exists(path):
        return path
    if os.path.exists(none):
        return None
    os.makedirs(cache, exist_ok=True)
    # Into a directory of its own, then renamed into place: a concurrent
    # run sees the whole file or none.
    tmp = tempfile.mkdtemp(dir=cache)
    try:
        r = subprocess.run(['tar', '-xJf', tarball, '-C', tmp, member],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           check=False)
        got = os.path.join(tmp, member)
        if r.returncode or not os.path.exists(got):
            if b'Not found in archive' in r.stderr:
                open(none, 'w', encoding='utf-8').close()
            else:
                print(f'warning: tar -xJf {tarball} {member}: '
                      f'{r.stderr.decode(errors="replace").strip()}', file=sys.stderr)
            return None
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.replace(got, path)
        return path
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def find_schema(protocol, schema_dir):
    dirs = []
    if schema_dir:
        dirs.append(schema_dir)
    if os.environ.get('KRDMA_YNL_SCHEMA_DIR'):
        dirs.append(os.environ['KRDMA_YNL_SCHEMA_DIR'])
    if os.environ.get('KSRC'):
        dirs.append(os.path.join(os.environ['KSRC'], 'Documentation', 'netlink'))
    dirs += sorted(glob.glob('/usr/src/linux*/Documentation/netlink'),
                   key=version_key, reverse=True)
    for d in dirs:
        p = os.path.join(d, protocol + '.yaml')
        if os.path.exists(p):
            return p
    for tarball in sorted(glob.glob('/usr/src/linux-source-*.tar.xz'),
                          key=version_key, reverse=True):
        p = from_tarball(tarball, protocol)
        if p:
            return p
    return None


def errors(validator, doc):
    return [f'{"/".join(str(x) for x in e.absolute_path) or "(top)"}: {e.message}'
            for e in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))]


def skip(why):
    """Skipped, saying why; a failure under CI, whose make deps installs
    python3-jsonschema and linux-source-6.12."""
    if os.environ.get('CI') == 'true':
        print(f'FAIL the spec against the YNL schema: {why}; CI installs both (make deps)')
        print('0 passed, 1 failed')
        return 1
    print(f'skip the spec against the YNL schema: {why}')
    print('0 passed, 0 failed')
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--spec', default=SPEC)
    ap.add_argument('--schema-dir', default=None)
    args = ap.parse_args()

    with open(args.spec, encoding='utf-8') as f:
        spec = yaml.safe_load(f)
    protocol = spec.get('protocol', 'genetlink')
    try:
        import jsonschema  # pylint: disable=import-outside-toplevel
    except ImportError:
        return skip('no python3-jsonschema (apt-get install python3-jsonschema)')
    path = find_schema(protocol, args.schema_dir)
    if path is None:
        return skip(f'no {protocol}.yaml (the kernel\'s Documentation/netlink/{protocol}.yaml: '
                    'apt-get install linux-source-6.12, or set KRDMA_YNL_SCHEMA_DIR or KSRC)')
    with open(path, encoding='utf-8') as f:
        schema = yaml.safe_load(f)
    validator = jsonschema.Draft7Validator(schema)
    where = os.path.relpath(path, TOP) if path.startswith(TOP) else path
    passed = failed = 0

    errs = errors(validator, spec)
    if errs:
        failed += 1
        print(f'FAIL {os.path.relpath(args.spec, TOP)} is not valid against {where}:')
        for e in errs[:30]:
            print(f'     {e}')
    else:
        passed += 1
        print(f'ok   {os.path.relpath(args.spec, TOP)} is valid against {where}')

    # The check can fail: each broken copy must be rejected, on its path.
    def broken(name, edit, want):
        nonlocal passed, failed
        doc = copy.deepcopy(spec)
        edit(doc)
        errs = errors(validator, doc)
        if any(e.startswith(want) for e in errs):
            passed += 1
            print(f'ok   rejects {name}')
        else:
            failed += 1
            print(f'FAIL accepts {name}: {errs[:5]}')

    def unknown_key(doc):
        doc['attribute-sets'][0]['attributes'][2]['max-len'] = 8
    def op_without_doc(doc):
        del doc['operations']['list'][1]['doc']
    def bad_bound(doc):
        for a in doc['attribute-sets'][0]['attributes']:
            if 'max' in a.get('checks', {}):
                a['checks']['max'] = 'depth max + 1'
                return
    broken('an attribute key the schema does not know (max-len outside checks)',
           unknown_key, 'attribute-sets/0/attributes/2')
    broken('an operation without its doc', op_without_doc, 'operations/list/1')
    broken('a check bound that is no constant name nor number', bad_bound,
           'attribute-sets/0/attributes/')
    print(f'{passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
