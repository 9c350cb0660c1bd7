#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [--runtime SEC] [--pages N] [--rounds N] [--only REGEX] [--profile]
#        [--lio-submit-type N] [--kt-submit-type N] [--kt-complete-type N]
#        [--kver RELEASE]
#
# ktarget against in-tree LIO, side by side in one QEMU guest: builds the
# modules, boots one guest (tools/testing/vm/run.sh --name bench) and runs
# guest.sh in it: iscsi-perf (libiscsi) and fio through open-iscsi on a 1 GiB
# rd LUN, over TCP and over iSER (soft-RoCE), first on ktarget, then on LIO. Prints the table (test, unit, ktarget,
# LIO, ktarget/LIO) at the end; it is kept in .vm-out/bench/results.txt, raw
# outputs in .vm-out/bench/raw/. See Documentation/benchmarks.md.
#
#   --runtime SEC   seconds per measurement (default 10)
#   --pages N       rd LUN size in 4 KiB pages (default 262144, 1 GiB)
#   --rounds N      measure both stacks N times, each round starting with the
#                   other one; keep each cell's best (default 1)
#   --only REGEX    only the tests whose name matches (grep -E), e.g. 'fio 4k.*QD32'
#   --profile       perf profile of every fio test (raw/*.profile.txt); it
#                   costs the stacks some speed
#   --lio-submit-type N  LIO's attrib/submit_type (6.10+): 0 the fabric's
#                   default, 1 direct from the receive context, 2 queued
#   --kt-submit-type N, --kt-complete-type N  ktarget's attrib/submit_type
#                   and complete_type of the rd LU and the user LU
#   --kver RELEASE  the guest kernel, built for (default: make kver); the
#                   results go to .vm-out/bench-RELEASE/ then
#
# Exit status: the guest run's (1 when a cell is "fail" or the kernel log
# shows a finding, 124 on timeout).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
cd "$top" || exit 2

args=()
kver=
while [ $# -gt 0 ]; do
	case $1 in
	--runtime|--pages|--rounds|--lio-submit-type|--kt-submit-type|--kt-complete-type)
		[[ ${2:-} =~ ^[0-9]+$ ]] || { echo "run.sh: $1 needs a number" >&2; exit 2; }
		args+=("$1" "$2"); shift 2 ;;
	--only)
		[ -n "${2:-}" ] || { echo "run.sh: --only needs a pattern" >&2; exit 2; }
		args+=("$1" "$2"); shift 2 ;;
	--profile) args+=("$1"); shift ;;
	--kver)
		[ -n "${2:-}" ] || { echo "run.sh: --kver needs a release" >&2; exit 2; }
		kver=$2; shift 2 ;;
	*) sed -n '3,28p' "$here/run.sh" >&2; exit 2 ;;
	esac
done

make -s --no-print-directory ${kver:+KVER=$kver} || { echo "bench: build failed" >&2; exit 2; }
name=bench${kver:+-$kver}

# Other guests on this machine slow whichever stack runs next to them:
# keep a note of how busy the host was.
load() { printf '%s, %s QEMU' "$(cut -d' ' -f1 /proc/loadavg)" "$(pgrep -c -x qemu-system-x86)"; }
load_before=$(load)
tools/testing/vm/run.sh --name "$name" ${kver:+--kver "$kver"} --timeout 2400 \
	tools/testing/bench/guest.sh "${args[@]}"
status=$?

results=$top/.vm-out/$name/results.txt
echo
if [ -s "$results" ]; then
	echo "# host ($(nproc) CPUs): load average, QEMU processes: $load_before before, $(load) after" \
		>> "$results"
	echo "ktarget vs LIO ($results):"
	cat "$results"
else
	echo "bench: no results table (see $top/.vm-out/$name/output.log)" >&2
fi
exit "$status"
