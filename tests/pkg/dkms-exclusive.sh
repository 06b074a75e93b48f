#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# dkms.conf's BUILD_EXCLUSIVE_CONFIG: DKMS skips a kernel built without
# one of the options the module needs (exit 77, "BUILD_EXCLUSIVE
# directive which does not match"), instead of a build that fails; the
# kernel the tests build for has them all. DKMS works in trees of its own
# here (--dkmstree, --sourcetree), leaving the system's alone, against
# kernel source trees that are only a .config. Run by dkms.sh.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd -P)
kver=${KVER:-$(make -s -C "$top" kver)}
ver=$(cat "$top/VERSION")
command -v dkms >/dev/null || { echo "dkms-exclusive: not installed (make deps)"; exit 1; }
work=$(mktemp -d /tmp/krdma-dkms-x.XXXXXX)
trap 'rm -rf "$work"' EXIT
src=$work/src/krdma-$ver
mkdir -p "$src" "$work/tree"
git -C "$top" ls-files -z | (cd "$top" && xargs -0 tar -cf -) | tar -C "$src" -xf -
make -s -C "$src" dkms.conf
opts=$(sed -n 's/^BUILD_EXCLUSIVE_CONFIG="\(.*\)"$/\1/p' "$src/dkms.conf")
fail=0
ok() { echo "dkms-exclusive: ok: $*"; }
ko() { echo "dkms-exclusive: FAIL: $*"; fail=1; }

for o in CONFIG_NET CONFIG_INET CONFIG_INFINIBAND CONFIG_INFINIBAND_ADDR_TRANS; do
	case " $opts " in
	*" $o "*) ok "BUILD_EXCLUSIVE_CONFIG names $o" ;;
	*) ko "BUILD_EXCLUSIVE_CONFIG lacks $o (it has: $opts)" ;;
	esac
done
# The kernel the tests build for is not one DKMS would skip.
config=/lib/modules/$kver/build/.config
if [ -f "$config" ]; then
	for o in $opts; do
		grep -qE "^$o=[ym]" "$config" && ok "$kver has $o" || ko "$kver lacks $o"
	done
fi

dkms() { command dkms --dkmstree "$work/tree" --sourcetree "$work/src" "$@"; }
dkms add "krdma/$ver" >"$work/add.log" 2>&1 || { cat "$work/add.log"; ko "dkms add"; exit 1; }
# A kernel without each option in turn, 0.0.0-no-<option>.
for o in $opts; do
	k=0.0.0-no-$(echo "$o" | sed 's/^CONFIG_//' | tr 'A-Z_' 'a-z-')
	mkdir -p "$work/$k"
	for other in $opts; do
		[ "$other" = "$o" ] || echo "$other=y" >>"$work/$k/.config"
	done
	echo "# $o is not set" >>"$work/$k/.config"
	rc=0
	dkms build "krdma/$ver" -k "$k" --kernelsourcedir "$work/$k" \
		>"$work/build.log" 2>&1 || rc=$?
	if [ $rc -eq 77 ] && grep -q 'BUILD_EXCLUSIVE directive which does not match' "$work/build.log"; then
		ok "a kernel without $o is skipped (exit 77, said so)"
	else
		cat "$work/build.log"
		ko "a kernel without $o: exit $rc, not a skip"
	fi
done
[ $fail -eq 0 ] && echo "dkms-exclusive: PASS" || echo "dkms-exclusive: FAIL"
exit $fail
