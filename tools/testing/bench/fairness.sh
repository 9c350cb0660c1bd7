#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fairness.sh [--stacks "ktarget lio"] [--sessions N] [--seconds S]
#
# Fairness among equals: N sessions (default 64), each its own initiator
# name, each one libiscsi iscsi-perf doing 4 KiB random READs at QD1 on one
# rd LU for S seconds (default 30), first against ktarget, then against
# in-tree LIO, in one guest. Per stack one row: the sessions' IOPS, the
# slowest, the mean, the fastest, and slowest/mean (the goal: 0.8 or more).
# Runs inside the guest:
#
#   tools/testing/vm/run.sh --smp 1 --name fairness tools/testing/bench/fairness.sh
#
# The table is printed at the end and kept in .vm-out/NAME/results.txt;
# each session's iscsi-perf output in .vm-out/NAME/raw/.
set -u
here=$(cd "$(dirname "$0")" && pwd)
sel=$here/../selftests
cd "$sel" || exit 1
. ./lib.sh

STACKS="ktarget lio"
SESSIONS=64
SECONDS_EACH=30
while [ $# -gt 0 ]; do
	case $1 in
	--stacks) STACKS=$2; shift 2 ;;
	--sessions) SESSIONS=$2; shift 2 ;;
	--seconds) SECONDS_EACH=$2; shift 2 ;;
	*) sed -n '3,16p' "$0" >&2; exit 2 ;;
	esac
done

out=/tmp/fairness
[ -d /ktout ] && [ -w /ktout ] && out=/ktout
raw=$out/raw
mkdir -p "$raw"
results=$out/results.txt
printf '%-8s %8s %10s %10s %10s %10s %8s\n' stack sessions slowest mean \
	fastest "sum IOPS" min/mean > "$results"

# iops FILE: the last "iops average N" of an iscsi-perf -l log (0: none),
# the average since its start
iops() {
	tr '\r' '\n' < "$1" | grep -o 'iops average [0-9]*' | tail -n 1 |
		awk '{ v = $3 } END { print v + 0 }'
}

run_stack() {
	local stack=$1 i pids=() f vals
	kt_stack_up "$stack" || return 1
	kt_iscsi_build || { echo "# $stack: target set-up failed"; return 1; }
	echo "# $stack: $SESSIONS sessions for $SECONDS_EACH s: $(date +%T)"
	for ((i = 0; i < SESSIONS; i++)); do
		f=$raw/$stack-$i.txt
		timeout -s INT "$SECONDS_EACH" iscsi-perf -l -r -m 1 -b 8 \
			-i "iqn.2026-12.org.ktarget:fair-$i" \
			"iscsi://127.0.0.1:3260/$KT_IQN/0" > "$f" 2>&1 &
		pids+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i"
	done
	vals=$(for ((i = 0; i < SESSIONS; i++)); do iops "$raw/$stack-$i.txt"; done)
	printf '%s\n' "$vals" | awk -v s="$stack" '
		{ v[NR] = $1; sum += $1; if (NR == 1 || $1 < lo) lo = $1
		  if ($1 > hi) hi = $1 }
		END { m = sum / NR
		      printf "%-8s %8d %10.1f %10.1f %10.1f %10.1f %8.2f\n",
			     s, NR, lo, m, hi, sum, m ? lo / m : 0 }' | tee -a "$results"
	sleep 5
	kt_iscsi_teardown
	kt_stack_down "$stack"
}

kt_warm_memory
for stack in $STACKS; do
	run_stack "$stack"
done
echo
echo "fairness: $SESSIONS sessions, 4 KiB random READ at QD1 each, $SECONDS_EACH s ($(nproc) CPUs):"
cat "$results"
exit 0
