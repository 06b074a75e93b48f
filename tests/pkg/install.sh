#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# A staged install, as packagers do it: make install DESTDIR= PREFIX=
# puts exactly the module (under updates/), the CLI, its man page and its
# completion there, runs no depmod, and make uninstall takes them all away
# again. Needs a built tree (make guest).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd -P)
kver=${KVER:-$(make -s -C "$top" kver)}
stage=$(mktemp -d /tmp/krdma-stage.XXXXXX)
trap 'rm -rf "$stage"' EXIT
fail=0
make -s -C "$top" install DESTDIR="$stage" PREFIX=/usr KVER="$kver" >"$stage.log" 2>&1 ||
	{ cat "$stage.log"; echo "install: FAIL: make install DESTDIR=$stage"; exit 1; }
want="/lib/modules/$kver/updates/krdma.ko
/usr/sbin/krdmactl
/usr/share/bash-completion/completions/krdmactl
/usr/share/man/man8/krdmactl.8"
got=$(cd "$stage" && find . -type f | sed 's|^\.||' | sort)
if [ "$got" = "$(echo "$want" | sort)" ]; then
	echo "install: ok: staged files"
else
	printf 'install: FAIL: staged files:\n%s\nwanted:\n%s\n' "$got" "$want"
	fail=1
fi
grep -q "run 'depmod $kver' on the target" "$stage.log" && echo "install: ok: no depmod, said so" ||
	{ cat "$stage.log"; echo "install: FAIL: no depmod note"; fail=1; }
make -s -C "$top" uninstall DESTDIR="$stage" PREFIX=/usr KVER="$kver" >"$stage.log" 2>&1 ||
	{ cat "$stage.log"; echo "install: FAIL: make uninstall"; fail=1; }
left=$(cd "$stage" && find . -type f)
[ -z "$left" ] && echo "install: ok: uninstall left nothing" ||
	{ echo "install: FAIL: left behind: $left"; fail=1; }
rm -f "$stage.log"
[ $fail -eq 0 ] && echo "install: PASS" || echo "install: FAIL"
exit $fail
