#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Installing krdma as a user would, in the guests' overlay (make
# check-pkg-vm, which builds the packages into dist/ first):
#   node 1: make install (what the host built for this kernel), depmod,
#           modprobe krdma, then make uninstall;
#   node 2: dpkg -i krdma-dkms and krdmactl (DKMS builds the module here,
#           with the compiler and kernel headers the guest sees from the
#           host), modprobe krdma, then apt-get purge.
# Between the two, validated transfers with the installed krdmactl of
# each. Afterwards nothing of krdma may be left: files, modules.dep
# entries, DKMS state, dpkg's records.
. "$KRDMA_ROOT/tests/vm/lib.sh"
. "$KRDMA_ROOT/tests/lib/guest-common.sh"
set -u
PORT=7471
KV=$(uname -r)
VER=$(cat "$KRDMA_ROOT/VERSION")
T=$(mktemp -d)

# krdma's files where an install puts them. Only those directories: a
# find over all of /usr/src or /etc takes minutes on 9p under TCG.
krdma_files() {
	{
		find "/lib/modules/$KV/updates" /var/lib/dkms/krdma /etc/modprobe.d \
			/etc/modules-load.d -name '*krdma*' 2>/dev/null
		find /usr/src /usr/share/doc /var/lib/dkms -maxdepth 1 -name '*krdma*' 2>/dev/null
		ls -d /usr/sbin/krdmactl /usr/local/sbin/krdmactl \
			/usr/share/man/man8/krdmactl.8* /usr/local/share/man/man8/krdmactl.8* \
			/usr/share/bash-completion/completions/krdmactl \
			/usr/local/share/bash-completion/completions/krdmactl \
			/var/lib/dpkg/info/krdma* 2>/dev/null
	} | sort
}

# check NAME CMD...: CMD must succeed.
check() {
	_n=$1
	shift
	if "$@" >"$T/check.out" 2>&1; then
		result "$_n" ok
	else
		echo "--- $_n: failed: $*"
		cat "$T/check.out"
		result "$_n" fail
	fi
}

# The harness loaded kmod/krdma.ko: start from a machine without krdma.
expect_ok unload.harness_module rmmod krdma
krdma_files >"$T/before"

if [ "$KRDMA_NODE" = 1 ]; then
	CLI=/usr/local/sbin/krdmactl
	log "make install"
	expect_ok make.install make -s -C "$KRDMA_ROOT" install KVER="$KV"
	check make.module_in_updates test -f "/lib/modules/$KV/updates/krdma.ko"
	check make.cli_installed test -x $CLI
	check make.man_page test -f /usr/local/share/man/man8/krdmactl.8
	check make.completion test -f /usr/local/share/bash-completion/completions/krdmactl
else
	CLI=/usr/sbin/krdmactl
	# DKMS builds for every kernel with a build tree: here that would be
	# the host's others too, each compile minutes under TCG. This guest
	# hides them (in its overlay only) and DKMS builds for its own.
	for b in /lib/modules/*/build; do
		[ "$b" = "/lib/modules/$KV/build" ] || rm -f "$b"
	done
	log "dpkg -i: DKMS builds krdma for $KV"
	expect_ok dpkg.install env DEBIAN_FRONTEND=noninteractive dpkg -i \
		"$KRDMA_ROOT/dist/krdma-dkms_${VER}_all.deb" "$KRDMA_ROOT"/dist/krdmactl_"${VER}"_*.deb
	check dkms.installed sh -c "dkms status krdma/$VER -k $KV | grep -q ': installed'"
	check dpkg.cli_installed test -x $CLI
	check dpkg.man_page test -f /usr/share/man/man8/krdmactl.8.gz
	check dpkg.completion test -f /usr/share/bash-completion/completions/krdmactl
fi

# No module yet: the tool still says its version, then why nothing more.
expect_rc_msg cli.version_without_module 1 "^krdmactl $VER \(abi [0-9]+\)" $CLI version
expect_ok modprobe modprobe krdma
check module.version sh -c "[ \"\$(cat /sys/module/krdma/version)\" = $VER ]"
check module.from_updates sh -c "modinfo -n krdma | grep -q '^/lib/modules/$KV/updates/'"
expect_rc_msg cli.version 0 "^krdmactl $VER \(abi [0-9]+\), module $VER, abi [0-9]+$" $CLI version

if [ "$KRDMA_NODE" = 1 ]; then
	expect_ok listener.add $CLI listener add name pkg port $PORT
	barrier listening 3000
	barrier transferred 600
	expect_ok listener.del $CLI listener del name pkg
else
	barrier listening 3000
	expect_ok connect $CLI session connect addr "$KRDMA_PEER_IP" port $PORT name c1
	for op in write read send; do
		json_check "transfer.$op" "$CLI -j test run session c1 op $op size 64K count 50 depth 4" \
			"r['status'] == 0 and r['iters'] == 50 and r['validated'] == 50"
	done
	json_check transfer.bw "$CLI -j test run session c1 op write mode bw size 1M count 64" \
		"r['status'] == 0 and r['iters'] == 64"
	expect_ok session.del $CLI session del name c1
	barrier transferred 600
fi
wait_for -t 60 sh -c "[ \"\$($CLI -j session show)\" = '[]' ]" || result sessions_gone fail
expect_ok rmmod rmmod krdma

if [ "$KRDMA_NODE" = 1 ]; then
	expect_ok make.uninstall make -s -C "$KRDMA_ROOT" uninstall KVER="$KV"
else
	expect_ok apt.purge env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q krdmactl krdma-dkms
	# Purged: known to dpkg at most as not installed ("pn"), no conffiles.
	check dpkg.purged sh -c "! dpkg-query -W -f='\${db:Status-Abbrev}\n' 'krdma*' 2>/dev/null | cut -c2 | grep -qv n"
fi
krdma_files >"$T/after"
if diff "$T/before" "$T/after" >"$T/left"; then
	result nothing_left ok
else
	cat "$T/left"
	result nothing_left fail
fi
check modules_dep_clean sh -c "! grep -q krdma /lib/modules/$KV/modules.dep"
check modprobe_finds_none sh -c "! modprobe -n krdma"
