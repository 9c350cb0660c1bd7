#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fairness.sh [--stacks "ktarget lio"] [--sessions N] [--seconds S]
#             [--client kernel|libiscsi]
#
# Fairness among equals: N sessions (default 64), each its own initiator
# name, each doing 4 KiB random READs at QD1 on one rd LU for S seconds
# (default 30), first against ktarget, then against in-tree LIO, in one
# guest. Per stack one row: the sessions' IOPS, the slowest, the mean, the
# fastest, and slowest/mean (the goal: 0.8 or more).
#
# --client kernel (the default): open-iscsi logs every session in first
# (an iface per initiator name), then one fio process runs a job per disk,
# all jobs at once, 5 s of ramp then S s measured: what differs between
# the sessions is the target's doing. --client libiscsi: one iscsi-perf
# process per session, each started in turn (the first measurement: its
# start-up and the 64 processes on the vCPU weigh on the figures).
#
# Runs inside the guest:
#
#   tools/testing/vm/run.sh --smp 1 --name fairness tools/testing/bench/fairness.sh
#
# The table is printed at the end and kept in .vm-out/NAME/results.txt;
# each session's output (or fio's JSON) in .vm-out/NAME/raw/.
set -u
here=$(cd "$(dirname "$0")" && pwd)
sel=$here/../selftests
cd "$sel" || exit 1
. ./lib.sh

STACKS="ktarget lio"
SESSIONS=64
SECONDS_EACH=30
CLIENT=kernel
while [ $# -gt 0 ]; do
	case $1 in
	--stacks) STACKS=$2; shift 2 ;;
	--sessions) SESSIONS=$2; shift 2 ;;
	--seconds) SECONDS_EACH=$2; shift 2 ;;
	--client) CLIENT=$2; shift 2 ;;
	*) sed -n '3,25p' "$0" >&2; exit 2 ;;
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

# row STACK: the table's row of the IOPS figures on stdin, one a line
row() {
	awk -v s="$1" '
		{ v[NR] = $1; sum += $1; if (NR == 1 || $1 < lo) lo = $1
		  if ($1 > hi) hi = $1 }
		END { m = sum / NR
		      printf "%-8s %8d %10.1f %10.1f %10.1f %10.1f %8.2f\n",
			     s, NR, lo, m, hi, sum, m ? lo / m : 0 }' | tee -a "$results"
}

libiscsi_sessions() {
	local stack=$1 i pids=() f
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
	for ((i = 0; i < SESSIONS; i++)); do iops "$raw/$stack-$i.txt"; done | row "$stack"
}

# the kernel initiator: an iface (initiator name) per session, all logged
# in before fio starts one job per disk
kernel_sessions() {
	local stack=$1 i s d disks=() n
	for ((i = 0; i < SESSIONS; i++)); do
		iscsiadm -m iface -I fair$i -o new >/dev/null &&
		iscsiadm -m iface -I fair$i -o update -n iface.initiatorname \
			-v "iqn.2026-12.org.ktarget:fair-$i" >/dev/null ||
			{ echo "# $stack: iface $i failed"; return 1; }
	done
	timeout 120 iscsiadm -m discovery -t st -p 127.0.0.1:3260 \
		$(for ((i = 0; i < SESSIONS; i++)); do echo "-I fair$i"; done) >/dev/null
	for ((i = 0; i < SESSIONS; i++)); do
		timeout 120 iscsiadm -m node -T "$KT_IQN" -p 127.0.0.1:3260 -I fair$i \
			--login >/dev/null 2>&1 &
		# a few at a time: a burst of 64 logins is not what is measured
		(( i % 8 == 7 )) && wait
	done
	wait
	for ((n = 0; n < 300; n++)); do
		disks=()
		for s in /sys/class/iscsi_session/session*; do
			for d in "$s"/device/target*/*:0/block/*; do
				[ -b "/dev/${d##*/}" ] && disks+=("/dev/${d##*/}")
			done
		done
		[ ${#disks[@]} -ge "$SESSIONS" ] && break
		sleep 0.2
	done
	echo "# $stack: ${#disks[@]} sessions with a disk: $(date +%T)"
	if [ ${#disks[@]} -lt "$SESSIONS" ]; then
		echo "# $stack: fewer disks than sessions, no figures"
	else
		timeout $((SECONDS_EACH + 120)) fio --output-format=json \
			--output="$raw/$stack-fio.json" --thread --ioengine=psync \
			--direct=1 --rw=randread --bs=4k --time_based \
			--ramp_time=5 --runtime="$SECONDS_EACH" \
			$(for d in "${disks[@]}"; do echo "--name=${d##*/} --filename=$d"; done) \
			> /dev/null 2>&1
		python3 -c '
import json, sys
for j in json.load(open(sys.argv[1]))["jobs"]:
    print(j["read"]["iops"])' "$raw/$stack-fio.json" | row "$stack"
	fi
	timeout 120 iscsiadm -m node -u >/dev/null 2>&1
	timeout 60 iscsiadm -m node -o delete >/dev/null 2>&1
	for ((i = 0; i < SESSIONS; i++)); do
		iscsiadm -m iface -I fair$i -o delete >/dev/null 2>&1
	done
}

run_stack() {
	local stack=$1
	kt_stack_up "$stack" || return 1
	kt_iscsi_build || { echo "# $stack: target set-up failed"; return 1; }
	echo "# $stack: $SESSIONS sessions ($CLIENT) for $SECONDS_EACH s: $(date +%T)"
	case $CLIENT in
	kernel) kernel_sessions "$stack" ;;
	*) libiscsi_sessions "$stack" ;;
	esac
	sleep 5
	kt_iscsi_teardown
	kt_stack_down "$stack"
}

[ "$CLIENT" = kernel ] && { kt_iscsid_start || exit 1; }
kt_warm_memory
for stack in $STACKS; do
	run_stack "$stack"
done
echo
echo "fairness: $SESSIONS sessions ($CLIENT initiator), 4 KiB random READ at QD1 each, $SECONDS_EACH s ($(nproc) CPUs):"
cat "$results"
exit 0
