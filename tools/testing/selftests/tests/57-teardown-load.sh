#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Teardown under load: while the kernel initiator reads and writes, the
# TPG is disabled, the portal deleted, the initiator's ACL removed, the LUN
# unlinked, and the whole configuration torn down before the module is
# unloaded. Each time the sessions end, nothing hangs, and the harness
# checks the kernel log and that every module unloads.
. ./lib.sh

P=127.0.0.1:3260
TPG=$KT_CFS/iscsi/$KT_IQN/tpgt_1
INI=iqn.2026-11.org.ktarget:guest

# start_io: log in and keep writing and reading the disk in the background
start_io() {
	local disk
	iscsiadm -m discovery -t st -p $P >/dev/null || return 1
	iscsiadm -m node -T $KT_IQN -p $P -o update \
		-n node.session.timeo.replacement_timeout -v 3 || return 1
	iscsiadm -m node -T $KT_IQN -p $P --login >/dev/null || return 1
	disk=$(kt_iscsi_disk) || return 1
	( while :; do
		dd if=/dev/urandom of="$disk" bs=64k count=64 oflag=direct conv=nocreat status=none || break
		dd if="$disk" of=/dev/null bs=64k count=64 iflag=direct status=none || break
	  done ) >/dev/null 2>&1 &
	IO_PID=$!
	sleep 2
	kill -0 $IO_PID
}

# stop_io: the I/O must end by itself within the replacement timeout
stop_io() {
	local i
	for i in $(seq 1 40); do
		kill -0 $IO_PID 2>/dev/null || break
		sleep 0.5
	done
	if kill -0 $IO_PID 2>/dev/null; then
		kill $IO_PID
		return 1
	fi
	iscsiadm -m node -T $KT_IQN -p $P --logout >/dev/null 2>&1
	iscsiadm -m node -o delete >/dev/null 2>&1
	return 0
}

# no_sessions: the target has closed every connection on the portal
no_sessions() {
	! awk '$2 ~ /:0CBC$/ && $4 == "01"' /proc/net/tcp | grep -q .
}

scenario() {	# scenario NAME ACTION UNDO
	check "$1: I/O running" start_io
	check "$1 while the I/O runs" sh -c "$2"
	check "$1: the initiator's I/O ends" stop_io
	check "$1: no connection left" no_sessions
	[ -n "$3" ] && check "$1: restored" sh -c "$3"
}

main() {
	command -v iscsiadm >/dev/null || { skip_all "teardown under load: no iscsiadm"; return; }
	plan 27
	check "target set up" kt_iscsi_setup
	check "iscsid starts" kt_iscsid_start

	scenario "TPG disable" "echo 0 > $TPG/enable" "echo 1 > $TPG/enable"
	scenario "portal delete" "rmdir $TPG/np/$P" "mkdir $TPG/np/$P"

	# an ACL of its own, with the LUN mapped, instead of demo mode
	check "ACL for the initiator" sh -c "echo 0 > $TPG/attrib/generate_node_acls &&
		mkdir -p $TPG/acls/$INI/lun_0 &&
		ln -s $TPG/lun/lun_0 $TPG/acls/$INI/lun_0/lun0"
	scenario "ACL removal" "rm $TPG/acls/$INI/lun_0/lun0 && rmdir $TPG/acls/$INI/lun_0 $TPG/acls/$INI" \
		"echo 1 > $TPG/attrib/generate_node_acls"

	scenario "LUN unlink" "rm $TPG/lun/lun_0/r0" "ln -s $KT_CFS/core/rd_mcp_0/r0 $TPG/lun/lun_0/r0"

	check "teardown under load: I/O running" start_io
	check "teardown under load: the whole configuration goes" kt_iscsi_teardown
	check "teardown under load: the initiator's I/O ends" stop_io
	check "rmmod ktarget_iscsi after it" rmmod ktarget_iscsi
}

main "$@"
