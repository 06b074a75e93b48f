#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The Debian packages: built from a clean copy of the tree with
# dpkg-buildpackage -us -uc -b, lintian-clean, of the one version, with
# what each must hold. The .debs are left in $1 (default: a temporary
# directory, removed) for the guest test (tests/guest/packages.sh).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd -P)
ver=$(cat "$top/VERSION")
for t in dpkg-buildpackage dh_dkms lintian; do
	command -v $t >/dev/null || { echo "deb: FAIL: no $t (make deps)"; exit 1; }
done
work=$(mktemp -d /tmp/krdma-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/krdma"
git -C "$top" ls-files -z | (cd "$top" && xargs -0 tar -cf -) | tar -C "$work/krdma" -xf -
(cd "$work/krdma" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1 ||
	{ tail -n 30 "$work/build.log"; echo "deb: FAIL: dpkg-buildpackage"; exit 1; }

fail=0
check() {	# check WHAT COMMAND...: one line per check
	_what=$1
	shift
	if "$@" >/dev/null 2>&1; then echo "deb: ok: $_what"; else echo "deb: FAIL: $_what"; fail=1; fi
}
dkms_deb=$work/krdma-dkms_${ver}_all.deb
cli_deb=$(ls "$work"/krdmactl_"${ver}"_*.deb)
check "krdma-dkms_$ver built" test -f "$dkms_deb"
check "dkms.conf of $ver" sh -c "dpkg-deb --fsys-tarfile '$dkms_deb' | tar -xOf - ./usr/src/krdma-$ver/dkms.conf | grep -q '^PACKAGE_VERSION=\"$ver\"'"
check "module source" sh -c "dpkg -c '$dkms_deb' | grep -q ' ./usr/src/krdma-$ver/kmod/main.c$'"
check "krdma-dkms depends on dkms" sh -c "dpkg-deb -f '$dkms_deb' Depends | grep -q dkms"
check "krdmactl holds no module source" sh -c "! dpkg -c '$cli_deb' | grep -q ' ./usr/src'"
check "krdma-dkms holds no CLI" sh -c "! dpkg -c '$dkms_deb' | grep -q ' ./usr/sbin'"
check "krdmactl in /usr/sbin" sh -c "dpkg -c '$cli_deb' | grep -q ' ./usr/sbin/krdmactl$'"
check "man page" sh -c "dpkg -c '$cli_deb' | grep -q ' ./usr/share/man/man8/krdmactl.8.gz$'"
check "bash completion" sh -c "dpkg -c '$cli_deb' | grep -q ' ./usr/share/bash-completion/completions/krdmactl$'"
# What a user reads: every file the man page's SEE ALSO names under
# /usr/share/doc is in the package (compressed or not, as named), and
# performance.md's charts beside it, uncompressed, where its links look.
docs=$(sed -n '/^\.SH SEE ALSO/,$p' "$top/Documentation/krdmactl.8" |
	grep -oE '/usr/share/doc/krdma[^ ]*\.[a-z]+' | sort -u)
check "SEE ALSO names the installed docs" test "$(echo "$docs" | wc -w)" -ge 4
for doc in $docs; do
	check "$doc" sh -c "dpkg -c '$cli_deb' | grep -q ' .$doc\$'"
done
for img in $(sed -n 's|.*](images/\([^)]*\)).*|\1|p' "$top/Documentation/performance.md"); do
	check "performance.md's images/$img" sh -c "dpkg -c '$cli_deb' | grep -q ' ./usr/share/doc/krdmactl/images/$img\$'"
done
check "dkms.conf names the kernel options" sh -c "dpkg-deb --fsys-tarfile '$dkms_deb' | tar -xOf - ./usr/src/krdma-$ver/dkms.conf | grep -q '^BUILD_EXCLUSIVE_CONFIG=\"CONFIG_NET CONFIG_INET CONFIG_INFINIBAND CONFIG_INFINIBAND_ADDR_TRANS\"'"
check "krdmactl -V says $ver" sh -c "dpkg-deb -x '$cli_deb' '$work/x' && '$work/x/usr/sbin/krdmactl' -V | grep -q '^krdmactl $ver '"
lintian --pedantic --fail-on warning "$work"/krdma_"${ver}"_*.changes >"$work/lintian.log" 2>&1 &&
	echo "deb: ok: lintian --pedantic" ||
	{ cat "$work/lintian.log"; echo "deb: FAIL: lintian"; fail=1; }
if [ $# -gt 0 ]; then
	mkdir -p "$1"
	cp "$dkms_deb" "$cli_deb" "$1/"
fi
[ $fail -eq 0 ] && echo "deb: PASS" || echo "deb: FAIL"
exit $fail
