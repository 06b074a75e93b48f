#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# run-hosts.sh - the performance comparison between two hosts of one's
# own, over ssh: tests/bench/bench-host.sh's server side on SERVER, its
# client side on CLIENT, the records copied back here, the table (and the
# charts) made here. Documentation/performance.md, "On two hosts of your
# own"; what it runs on each host can be typed there by hand as well.
#
# usage: tests/bench/run-hosts.sh [-C DIR] [-a ADDR] [-I DEV] [-J DEV]
#                                [-S] [-o DIR] [-s SECONDS] [-d DEPTH]
#                                [-q QPS] [-P OPTIONS] [-O STEPS] [-u N]
#                                [-c PORT] [-k PORT] SERVER CLIENT
#
#   SERVER, CLIENT  ssh destinations ([user@]host) of the two hosts: each
#               has this tree at DIR, krdmactl built or installed, the
#               krdma module loaded, perftest, iperf3 and python3
#   -C DIR      the tree's path on both hosts (default: this one's)
#   -a ADDR     the server's address on the RDMA network, which the client
#               measures against (default: SERVER's host name)
#   -I DEV      the server's RDMA device, -J DEV the client's (default:
#               each host's first)
#   -S          run both sides with sudo -n (they need root, unless the
#               ssh users are root)
#   -o DIR      where the records, logs and table come (default: a new
#               /tmp/krdma-bench.XXXXXX here)
#   -s -d -q -P -O -u -c -k   as tests/bench/bench-host.sh's (-c and -k to
#               both sides, the others to the client, which gives the
#               server what it needs)
#
# Exit status: the client side's (0 if every measurement produced a
# number), 2 on a bad command line.
set -u

here=$(cd "$(dirname "$0")" && pwd -P) || exit 2
root=$(cd "$here/../.." && pwd -P) || exit 2

usage() { sed -n 's/^# \{0,1\}//; 10,32p' "$0"; }

# q WORD: WORD quoted for the remote shell.
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

rdir=$root addr='' sdev='' cdev='' sudo='' out='' both='' cli=''
while getopts "C:a:I:J:So:s:d:q:P:O:u:c:k:h" opt; do
	case $opt in
	C) rdir=$OPTARG ;;
	a) addr=$OPTARG ;;
	I) sdev=$OPTARG ;;
	J) cdev=$OPTARG ;;
	S) sudo='sudo -n ' ;;
	o) out=$OPTARG ;;
	s | d | q | P | O | u) cli="$cli -$opt $(q "$OPTARG")" ;;
	c | k) both="$both -$opt $(q "$OPTARG")" ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || { usage >&2; exit 2; }
server=$1 client=$2
[ -n "$addr" ] || { addr=${server#*@}; addr=${addr%:*}; }
if [ -n "$out" ]; then
	mkdir -p "$out" || exit 1
else
	out=$(mktemp -d /tmp/krdma-bench.XXXXXX) || exit 1
fi
tag=krdma-bench-host.$$
ssh_() { ssh -o BatchMode=yes "$@"; }

echo "bench: server $server ($addr${sdev:+, $sdev}), client $client${cdev:+ ($cdev)}, output in $out" >&2
ssh_ "$server" "cd $(q "$rdir") && exec ${sudo}tests/bench/bench-host.sh server$both${sdev:+ -I $(q "$sdev")} -o /tmp/$tag" \
	>"$out/server.out" 2>&1 &
spid=$!
# shellcheck disable=SC2086 # the options, quoted for the remote shell
ssh_ "$client" "cd $(q "$rdir") && ${sudo}tests/bench/bench-host.sh client$both$cli${cdev:+ -I $(q "$cdev")} -o /tmp/$tag $(q "$addr"); echo \"bench-host.sh: exit \$?\"" 2>&1 |
	tee "$out/client.out"
# The client side's status, its last line (ssh's own is lost in the pipe).
crc=$(sed -n 's/^bench-host.sh: exit \([0-9]*\)$/\1/p' "$out/client.out" | tail -n 1)
scp -q -r "$client:/tmp/$tag/." "$out/" || echo "bench: could not copy the records from $client:/tmp/$tag" >&2
ssh_ "$client" "${sudo}rm -rf /tmp/$tag" >/dev/null 2>&1
wait "$spid"
src=$?
mkdir -p "$out/server"
scp -q -r "$server:/tmp/$tag/." "$out/server/" 2>/dev/null
ssh_ "$server" "${sudo}rm -rf /tmp/$tag" >/dev/null 2>&1
[ "$src" -eq 0 ] || echo "bench: the server side exited $src (see $out/server.out)" >&2
# The table again here, and the charts: as run.sh -r.
[ -r "$out/bench-raw.jsonl" ] && "$here/run.sh" -r "$out" >/dev/null
echo "bench: $out/table.md" >&2
[ -r "$out/bench-raw.jsonl" ] || { echo "bench: no records came back" >&2; exit 1; }
exit "${crc:-1}"
