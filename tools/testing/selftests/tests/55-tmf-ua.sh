#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Task management and unit attentions through the Linux kernel initiator:
# LUN and target resets (sg_reset) while reads and writes run, the unit
# attention each reset leaves, and the data still right afterwards; a MODE
# SELECT on one session gives MODE PARAMETERS CHANGED on another; mapping a
# LUN gives REPORTED LUNS DATA HAS CHANGED.
. ./lib.sh

KT_TPG=$KT_CFS/iscsi/$KT_IQN/tpgt_1

# sense_of CMD...: the "Sense Key / ASC" lines sg3-utils prints for CMD
sense_of() {
	"$@" 2>&1 | grep -iE 'unit attention|sense key|asc' | head -3
}

io_under_reset() {
	local disk=$1 kind=$2 flag=$3 pid st
	dd if=/dev/urandom of=/tmp/kt-pat bs=1M count=16 status=none
	# writes and reads, direct, long enough to be caught by the reset
	( for i in 1 2 3; do
		dd if=/tmp/kt-pat of="$disk" bs=64k oflag=direct conv=nocreat status=none || exit 1
		dd if="$disk" of=/dev/null bs=64k count=256 iflag=direct status=none || exit 1
	  done ) &
	pid=$!
	sleep 1
	kmsg_mark
	check "$kind reset during I/O" sg_reset "$flag" "$disk"
	wait $pid
	st=$?
	check_eq "I/O across the $kind reset succeeds" 0 "$st"
	check "data intact after the $kind reset" sh -c \
		"cmp -n 16777216 /tmp/kt-pat $disk"
}

main() {
	local p=127.0.0.1:3260 disk disk2 out

	for t in iscsiadm sg_reset sg_turs sg_wr_mode; do
		command -v $t >/dev/null || { skip "TMF tests" "$t missing"; return; }
	done
	check "target set up" kt_iscsi_setup
	check "iscsid starts" kt_iscsid_start
	check "login" iscsiadm -m discovery -t st -p $p -l
	disk=$(kt_iscsi_disk)
	check "a disk appears" test -b "$disk"

	io_under_reset "$disk" "LUN" -d
	check "the initiator saw the reset's unit attention" sh -c \
		"dmesg | grep -qiE 'power-on or device reset occurred|Bus device reset'"
	io_under_reset "$disk" "target" -t

	# a second nexus (another initiator name): a MODE SELECT that turns
	# WCE on through the first gives 2A/01 once on the second
	iscsiadm -m iface -I ktua -o new >/dev/null 2>&1
	iscsiadm -m iface -I ktua -o update -n iface.initiatorname \
		-v iqn.2026-11.org.ktarget:guest2 >/dev/null
	check "second session logs in" sh -c \
		"iscsiadm -m discovery -t st -p $p -I ktua >/dev/null && iscsiadm -m node -T $KT_IQN -p $p -I ktua --login"
	disk2=$(kt_second_disk "$disk")
	check "a second disk appears" test -b "$disk2"
	sg_turs "$disk2" >/dev/null 2>&1
	check "WCE set with MODE SELECT on the first nexus" \
		sg_wr_mode -p 8 -c 0,0,4 -m 0,0,4 "$disk"
	out=$(sg_turs -v "$disk2" 2>&1)
	check "MODE PARAMETERS CHANGED on the second nexus" sh -c \
		"echo '$out' | grep -qi 'mode parameters changed'"
	check "then TEST UNIT READY is good there" sg_turs "$disk2"
	out=$(sg_turs -v "$disk" 2>&1)
	check "and no unit attention on the nexus that changed it" sh -c \
		"! echo '$out' | grep -qi 'unit attention'"
	sg_wr_mode -p 8 -c 0,0,0 -m 0,0,4 "$disk" >/dev/null 2>&1

	# a new LUN: the next command the initiator sends hears of it
	mkdir -p $KT_CFS/core/rd_mcp_0/r1
	echo rd_pages=256 > $KT_CFS/core/rd_mcp_0/r1/control
	echo 1 > $KT_CFS/core/rd_mcp_0/r1/enable
	mkdir $KT_TPG/lun/lun_1
	ln -s $KT_CFS/core/rd_mcp_0/r1 $KT_TPG/lun/lun_1/r1
	out=$(sg_turs -v "$disk" 2>&1)
	check "REPORTED LUNS DATA HAS CHANGED after a LUN is added" sh -c \
		"echo '$out' | grep -qi 'reported luns data has changed'"
	check "TEST UNIT READY is good once the UA is reported" sg_turs "$disk"
	out=$(sg_turs -v "$disk2" 2>&1)
	check "the other session hears of the new LUN too" sh -c \
		"echo '$out' | grep -qi 'reported luns data has changed'"

	iscsiadm -m node -T $KT_IQN -p $p --logout >/dev/null 2>&1
	iscsiadm -m node -o delete >/dev/null 2>&1
	iscsiadm -m iface -I ktua -o delete >/dev/null 2>&1
	rm -f $KT_TPG/lun/lun_1/r1
	rmdir $KT_TPG/lun/lun_1 $KT_CFS/core/rd_mcp_0/r1
	kt_iscsi_teardown
	check "rmmod ktarget_iscsi" rmmod ktarget_iscsi
}

main "$@"
