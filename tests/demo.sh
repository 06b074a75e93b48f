#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The main job: two guests, krdma loaded in both, a listener on one, a
# session from the other, validated transfers of every kind; prints what
# each guest's kernel did.
set -u
root=$(cd "$(dirname "$0")/.." && pwd -P)
out=${1:-$(mktemp -d /tmp/krdma-demo.XXXXXX)}
"$root/tests/vm/run.sh" -t 900 -o "$out" "$root/tests/demo-guest.sh" >"$out.run.log" 2>&1
rc=$?
for n in 2 1; do
	echo "######## node$n"
	grep -v '^RESULT' "$out/node$n.log"
done
tail -n 3 "$out.run.log"
exit $rc
