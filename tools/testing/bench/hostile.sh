#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hostile.sh [--stacks "ktarget lio"] [--modes "MODE..."]
#
# The hostile-initiator modes of selftests/iscsi_hostile.py, first against
# ktarget, then against in-tree LIO, in one guest. While each mode runs a
# second, well-behaved session reads 64 KiB at QD1 (hostile_io.py); each
# mode gives one row: its exit status, the guest's MemAvailable before the
# mode, at its lowest during it and a few seconds after it, and the second
# session's commands per second before, during and after the mode. Runs
# inside the guest:
#
#   tools/testing/vm/run.sh --name hostile tools/testing/bench/hostile.sh
#
# The table is printed at the end and kept, a row at a time (so that it
# survives a guest that goes down), in .vm-out/NAME/results.txt.
#
#   --stacks LIST   the stacks, in order (default "ktarget lio")
#   --modes LIST    the modes of every stack (default: each stack's own
#                   order, below)
#
# Not a test: what each mode prints is the figure (a mode's failure on LIO
# is LIO's answer, not ours). A mode that takes a stack down ends the run:
# LIO has panicked out of memory under a flood before, so its modes run the
# ones that hold little first and the floods that can grow its memory
# without bound (alloc-len, nop-flood) last.
set -u
here=$(cd "$(dirname "$0")" && pwd)
sel=$here/../selftests
cd "$sel" || exit 1
. ./lib.sh

STACKS="ktarget lio"
KTARGET_MODES="cmdsn-window immediate-flood max-transfer alloc-len nop-flood text-flood overflow-write"
LIO_MODES="max-transfer overflow-write cmdsn-window immediate-flood alloc-len text-flood nop-flood"
MODES=
while [ $# -gt 0 ]; do
	case $1 in
	--stacks) STACKS=$2; shift 2 ;;
	--modes) MODES=$2; shift 2 ;;
	*) sed -n '3,22p' "$0" >&2; exit 2 ;;
	esac
done

results=/tmp/hostile-results.txt
[ -d /ktout ] && [ -w /ktout ] && results=/ktout/results.txt
python3 "$here/hostile_io.py" header > "$results"

run_stack() {
	local stack=$1 modes mode rc out tpg=$KT_CFS/iscsi/$KT_IQN/tpgt_1
	modes=${MODES:-$KTARGET_MODES}
	[ "$stack" = lio ] && modes=${MODES:-$LIO_MODES}
	kt_stack_up "$stack" || return 1
	kt_iscsi_build || { echo "# $stack: target set-up failed"; return 1; }
	write_attr $tpg/param/MaxRecvDataSegmentLength 262144
	for mode in $modes; do
		echo "# $stack $mode: $(date +%T)"
		kmsg_mark
		out=$(python3 "$here/hostile_io.py" bench "$stack" "$mode" \
			127.0.0.1:3260 $KT_IQN 2>&1)
		rc=$?
		printf '%s\n' "$out" | grep -v "^$stack "
		printf '%s\n' "$out" | grep "^$stack $mode: "
		printf '%s\n' "$out" | grep "^$stack " | grep -v "^$stack $mode: " |
			tee -a "$results"
		[ "$rc" = 0 ] || echo "$stack $mode: hostile_io.py exit $rc, no row" |
			tee -a "$results"
		kmsg_since | grep -E 'Out of memory|page allocation failure|oom-kill' |
			sed "s/^/$stack $mode: kernel: /"
	done
	kt_iscsi_teardown
	kt_stack_down "$stack"
}

kt_warm_memory
for stack in $STACKS; do
	run_stack "$stack"
done
echo
echo "hostile initiators, a QD1 reader beside them ($(nproc) CPUs, $(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo) MiB):"
cat "$results"
exit 0
