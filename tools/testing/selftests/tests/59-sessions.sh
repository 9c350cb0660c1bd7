#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Eight sessions at once: eight initiator names (open-iscsi ifaces), each
# with an ACL mapping its own rd LUN as LUN 0. All eight write a pattern of
# their own at the same time, read it back and compare. With
# cpus_allowed_list set to one CPU, every connection's receive and transmit
# work must run there (the workqueue_execute_start trace event says where).
. ./lib.sh

P=127.0.0.1:3260
TPG=$KT_CFS/iscsi/$KT_IQN/tpgt_1
N=8

# disk_of NAME: the disk of the session logged in with initiator NAME,
# once the SCSI scan (asynchronous to the login) has attached it
disk_of() {
	local d i
	for i in $(seq 1 50); do
		d=$(iscsiadm -m session -P3 2>/dev/null | awk -v n="$1" '
			/Iface Initiatorname:/ { cur = $3 }
			/Attached scsi disk/ && cur == n { print "/dev/" $4; exit }')
		[ -b "$d" ] && { echo "$d"; return 0; }
		sleep 0.2
	done
	return 1
}

setup() {
	local i ini
	for i in $(seq 0 $((N - 1))); do
		ini=iqn.2026-11.org.ktarget:s$i
		mkdir -p $KT_CFS/core/rd_mcp_0/s$i &&
		echo rd_pages=2048 > $KT_CFS/core/rd_mcp_0/s$i/control &&
		echo 1 > $KT_CFS/core/rd_mcp_0/s$i/enable &&
		mkdir $TPG/lun/lun_$((i + 1)) &&
		ln -s $KT_CFS/core/rd_mcp_0/s$i $TPG/lun/lun_$((i + 1))/s$i &&
		mkdir -p $TPG/acls/$ini/lun_0 &&
		ln -s $TPG/lun/lun_$((i + 1)) $TPG/acls/$ini/lun_0/l || return 1
		iscsiadm -m iface -I s$i -o new >/dev/null &&
		iscsiadm -m iface -I s$i -o update -n iface.initiatorname -v $ini >/dev/null ||
			return 1
	done
	echo 0 > $TPG/attrib/generate_node_acls
	# one discovery for all ifaces: another would replace the records
	# iscsiadm made for the portal
	iscsiadm -m discovery -t st -p $P $(for i in $(seq 0 $((N - 1))); do
		echo "-I s$i"; done) >/dev/null
}

login_all() {
	local i
	for i in $(seq 0 $((N - 1))); do
		iscsiadm -m node -T $KT_IQN -p $P -I s$i --login >/dev/null &
	done
	wait
	for i in $(seq 1 50); do
		[ "$(iscsiadm -m session 2>/dev/null | grep -c .)" = $N ] && return 0
		sleep 0.2
	done
	return 1
}

TRACE=/sys/kernel/tracing
EV=$TRACE/events/workqueue/workqueue_execute_start

trace_on() {
	[ -d $TRACE/events ] || mount -t tracefs nodev $TRACE 2>/dev/null
	[ -e $EV/enable ] || return 1
	echo > $TRACE/trace && echo 1 > $TRACE/tracing_on && echo 1 > $EV/enable
}

# work_cpus: the CPUs the connections' receive and transmit work ran on.
# Recording stops with tracing_on; the event stays enabled: disabling it
# patches kernel text, and under TCG a vCPU caught on the int3 of that
# patch once spun there until the run timed out (soft lockup in
# text_poke_bp_batch).
work_cpus() {
	echo 0 > $TRACE/tracing_on
	grep -E 'function kt_iscsi_(rx|tx)_work' $TRACE/trace |
		sed -E 's/.*\[0*([0-9]+)\].*/\1/' | sort -u | tr '\n' ' '
	echo > $TRACE/trace
}

# io NAME SEED: write 4 MiB of a pattern of its own, read back, compare
io() {
	local d=$1 f=/tmp/kt-s$2
	head -c 4194304 /dev/urandom > $f &&
	dd if=$f of=$d bs=256k oflag=direct conv=nocreat status=none &&
	dd if=$d of=$f.back bs=256k count=16 iflag=direct status=none &&
	cmp $f $f.back
}

main() {
	local i pids="" disks="" st=0 d cpu
	command -v iscsiadm >/dev/null || { skip_all "$N sessions: no iscsiadm"; return; }
	plan 11
	check "target set up" kt_iscsi_setup
	check "iscsid starts" kt_iscsid_start
	check "$N LUNs, $N ACLs, $N ifaces" setup
	cpu=$(($(nproc) - 1))
	check "cpus_allowed_list = $cpu" sh -c "echo $cpu > $KT_CFS/iscsi/cpus_allowed_list"
	check "tracing workqueue_execute_start" trace_on
	check "$N sessions log in at once" login_all
	check_eq "$N connections on the portal" \
		"$(awk '$2 ~ /:0CBC$/ && $4 == "01"' /proc/net/tcp | wc -l)" $N
	for i in $(seq 0 $((N - 1))); do
		d=$(disk_of iqn.2026-11.org.ktarget:s$i)
		[ -b "$d" ] || { not_ok "session $i has a disk"; continue; }
		disks="$disks $d"
		io "$d" $i &
		pids="$pids $!"
	done
	for i in $pids; do
		wait $i || st=1
	done
	check_eq "$N distinct disks" "$(echo $disks | tr ' ' '\n' | sort -u | wc -l)" $N
	check_eq "every session's data reads back intact" $st 0
	check_eq "the connections' work ran on CPU $cpu only" "$(work_cpus)" "$cpu "
	echo 0-$cpu > $KT_CFS/iscsi/cpus_allowed_list

	iscsiadm -m node --logoutall=all >/dev/null 2>&1
	iscsiadm -m node -o delete >/dev/null 2>&1
	for i in $(seq 0 $((N - 1))); do
		iscsiadm -m iface -I s$i -o delete >/dev/null 2>&1
		rm -f $TPG/acls/iqn.2026-11.org.ktarget:s$i/lun_0/l
		rmdir $TPG/acls/iqn.2026-11.org.ktarget:s$i/lun_0 $TPG/acls/iqn.2026-11.org.ktarget:s$i
		rm -f $TPG/lun/lun_$((i + 1))/s$i
		rmdir $TPG/lun/lun_$((i + 1)) $KT_CFS/core/rd_mcp_0/s$i
	done
	kt_iscsi_teardown
	check "rmmod ktarget_iscsi" rmmod ktarget_iscsi
}

main "$@"
