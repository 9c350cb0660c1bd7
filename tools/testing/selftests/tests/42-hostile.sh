#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A hostile initiator (iscsi_hostile.py) against one rd LUN: the CmdSN
# window, immediate commands, MAXIMUM TRANSFER LENGTH, allocation lengths,
# NOP-Out floods on an unread socket, Text keys, burst lengths and session
# reinstatement across targets. Each check states the bound it holds.
. ./lib.sh

KT_OTHER_IQN=iqn.2026-11.org.ktarget:other

# a second target with its own rd LUN on the same portal address
other_build() {
	local tpg=$KT_CFS/iscsi/$KT_OTHER_IQN/tpgt_1
	mkdir -p $KT_CFS/core/rd_mcp_0/r1 &&
	echo rd_pages=1024 > $KT_CFS/core/rd_mcp_0/r1/control &&
	echo 1 > $KT_CFS/core/rd_mcp_0/r1/enable &&
	mkdir -p $tpg/lun/lun_0 &&
	ln -s $KT_CFS/core/rd_mcp_0/r1 $tpg/lun/lun_0/r1 &&
	mkdir $tpg/np/127.0.0.1:3261 &&
	echo 0 > $tpg/attrib/authentication &&
	echo 1 > $tpg/attrib/generate_node_acls &&
	echo 0 > $tpg/attrib/demo_mode_write_protect &&
	echo 1 > $tpg/enable
}

other_teardown() {
	local tpg=$KT_CFS/iscsi/$KT_OTHER_IQN/tpgt_1
	[ -e $tpg/enable ] && echo 0 > $tpg/enable
	rmdir $tpg/np/127.0.0.1:3261 2>/dev/null
	rm -f $tpg/lun/lun_0/r1
	rmdir $tpg/lun/lun_0 $tpg $KT_CFS/iscsi/$KT_OTHER_IQN 2>/dev/null
	rmdir $KT_CFS/core/rd_mcp_0/r1 2>/dev/null
	return 0
}

# hostile MODE DESCRIPTION PATTERN... [-- ARG]: run one mode, ok when it
# exits 0 and its output matches every PATTERN
hostile() {
	local mode=$1 d=$2 out rc arg=
	shift 2
	if [ "${*: -2:1}" = "--" ]; then
		arg=${*: -1}
		set -- "${@:1:$(($# - 2))}"
	fi
	out=$(timeout 120 python3 ./iscsi_hostile.py "$mode" 127.0.0.1:3260 \
		$KT_IQN iqn.2026-11.org.ktarget:hostile-$mode $arg 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	if [ $rc = 0 ] && output_has "$out" "$@"; then
		ok "$d"
	else
		not_ok "$d" "iscsi_hostile.py $mode: exit $rc"
	fi
}

# The ceiling on what all sessions' commands hold in data buffers
data_limit() {
	local f=$KT_CFS/data_buffer_limit_mb was

	was=$(cat $f 2>/dev/null)
	check_bad_write "data_buffer_limit_mb: not a number" $f lots 'not a number of MiB'
	check_bad_write "data_buffer_limit_mb: more than the RAM" $f 100000000 'more than the'
	check "data_buffer_limit_mb set to 8" write_attr $f 8
	kmsg_mark
	hostile data-limit "WRITEs of two sessions past the ceiling: TASK SET FULL" \
		'TASK SET FULL' -- 8
	check "the kernel log says which ceiling was reached" \
		eval 'kmsg_since | grep -q "at data_buffer_limit_mb=8"'
	hostile data-share "one initiator's WRITEs leave another room under the ceiling" \
		'meanwhile: R2T' -- 8
	check "data_buffer_limit_mb back to $was" write_attr $f "$was"
}

main() {
	local tpg=$KT_CFS/iscsi/$KT_IQN/tpgt_1

	plan 31
	check "an iSCSI target and a second one on another port" \
		eval 'kt_iscsi_setup && other_build'
	kmsg_mark

	hostile cmdsn-window "MaxCmdSN advances as commands complete: no more than the window is taken in" \
		'MaxCmdSN after 8 completed'
	hostile immediate-flood "immediate commands are bounded apart from the window: the rest get TASK SET FULL" \
		'TASK SET FULL'
	hostile max-transfer "a transfer above MAXIMUM TRANSFER LENGTH: INVALID FIELD IN CDB, no buffer" \
		'WRITE (16) of .*: status 0x2 sense 5/24/00$'
	hostile alloc-len "a huge ALLOCATION LENGTH holds only what the answer needs" \
		'REPORT LUNS: status 0x0'
	check "MaxRecvDataSegmentLength 262144 for the ping flood" \
		write_attr $tpg/param/MaxRecvDataSegmentLength 262144
	hostile nop-flood "NOP-Out ping data on an unread socket: memory stays bounded" \
		'MemAvailable'
	hostile text-flood "Text requests on an unread socket: memory stays bounded" \
		'SendTargets=All sent'
	hostile text-keys "Text: NotUnderstood, Reject, and only our own target" \
		'SendTargets= ->' -- $KT_OTHER_IQN
	hostile overflow-write "an overflow WRITE writes exactly what it acknowledges, or nothing" \
		'WRITE AND VERIFY (10) of 2 blocks, 512 bytes sent: status 0x0'
	hostile burst-order "FirstBurstLength never ends above MaxBurstLength" \
		'offered'
	check "default_dataout_timeout 3 s (LIO's dataout_timeout)" \
		write_attr $tpg/attrib/default_dataout_timeout 3
	hostile dataout-timeout "an ORDERED WRITE without its data holds the LU only until the Data-Out timeout" \
		'READ: status 0x0' -- 3
	check "the kernel log names the connection's end" \
		eval 'kmsg_since | grep -q "no Data-Out for ITT .* in 3 s"'
	write_attr $tpg/attrib/default_dataout_timeout 600
	hostile header-digest "header digests cover the AHS; a wrong one closes the connection" \
		'wrong digest: EOFError\|wrong digest: ConnectionResetError'
	hostile reinstate-other "a login here leaves a session on another target alone" \
		'afterwards: TEST UNIT READY 0x0' -- $KT_OTHER_IQN@127.0.0.1:3261
	hostile login-flood "200 silent connections from one address: 64 in login at most, for 5 s; another address logs in" \
		'a login from 127.0.0.2: TEST UNIT READY status 0x0' -- 200
	hostile isid-flood "one initiator's sessions under many ISIDs: 64 at most, the rest OUT OF RESOURCES" \
		'another initiator meanwhile: TEST UNIT READY' -- 70
	hostile lun-address "LUN fields that name no LU here reach none (5/25/00); an R2T echoes the field" \
		'flat space LUN 0 (4000000000000000): GOOD'

	check "the kernel log names no OOM or allocation failure" \
		eval '! kmsg_since | grep -E "Out of memory|page allocation failure|invoked oom-killer"'
	data_limit
	check "no connection, session, command or LUN reference is left" \
		kt_objects_zero 30

	other_teardown
	kt_iscsi_teardown
	check "target/iscsi is gone" test ! -e $KT_CFS/iscsi
	check "rmmod ktarget_iscsi" rmmod ktarget_iscsi
	check "rmmod ktarget_rd and ktarget_core" rmmod ktarget_rd ktarget_core
}

main "$@"
