#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hostile.sh: the hostile-initiator modes of selftests/iscsi_hostile.py,
# first against ktarget, then against in-tree LIO, in one guest, with the
# guest's MemAvailable before each mode and at its lowest during it. Runs
# inside the guest:
#
#   tools/testing/vm/run.sh --name hostile tools/testing/bench/hostile.sh
#
# Not a test: what each mode prints is the figure (a mode's failure on LIO
# is LIO's answer, not ours). A mode that takes a stack down ends the run.
# Known gap: iscsi_raw.py's login (straight to the operational stage, then
# full feature phase) does not get LIO past its login in 4 exchanges, so
# LIO's rows say "login did not reach full feature phase" for now.
set -u
here=$(cd "$(dirname "$0")" && pwd)
sel=$here/../selftests
cd "$sel" || exit 1
. ./lib.sh

MODES="cmdsn-window immediate-flood max-transfer alloc-len nop-flood overflow-write"

# lowest MemAvailable (MiB) while PID runs
watch_mem() {
	local pid=$1 low=999999 m
	while kill -0 "$pid" 2>/dev/null; do
		m=$(awk '/MemAvailable/ { print int($2 / 1024) }' /proc/meminfo)
		[ "$m" -lt "$low" ] && low=$m
		sleep 0.2
	done
	echo "$low"
}

run_stack() {
	local stack=$1 mode before low rc tpg=$KT_CFS/iscsi/$KT_IQN/tpgt_1
	case $stack in
	ktarget) modprobe ktarget_core || return 1 ;;
	lio) mkdir -p /var/target/pr /var/target/alua
		modprobe target_core_mod && modprobe iscsi_target_mod || return 1 ;;
	esac
	kt_iscsi_build || { echo "# $stack: target set-up failed"; return 1; }
	write_attr $tpg/param/MaxRecvDataSegmentLength 262144
	for mode in $MODES; do
		before=$(awk '/MemAvailable/ { print int($2 / 1024) }' /proc/meminfo)
		timeout 120 python3 ./iscsi_hostile.py "$mode" 127.0.0.1:3260 $KT_IQN \
			"iqn.2026-11.org.ktarget:cmp-$mode" > /tmp/hostile.out 2>&1 &
		low=$(watch_mem $!)
		wait $!
		rc=$?
		sed "s/^/$stack $mode: /" /tmp/hostile.out
		echo "$stack $mode: exit $rc, MemAvailable $before MiB before, $low MiB at its lowest"
	done
	kt_iscsi_teardown
	case $stack in
	ktarget) rmmod ktarget_iscsi ktarget_rd ktarget_core ;;
	lio) modprobe -r iscsi_target_mod
		for m in $(awk '$1 == "target_core_mod" { gsub(",", " ", $4); print $4 }' /proc/modules); do
			[ "$m" = - ] || modprobe -r "$m"
		done
		modprobe -r target_core_mod ;;
	esac
}

kt_warm_memory
run_stack ktarget
run_stack lio
dmesg | grep -E 'Out of memory|page allocation failure|oom-killer' | sed 's/^/kernel: /'
exit 0
