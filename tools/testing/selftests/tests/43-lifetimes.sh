#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lifetimes (iscsi_lifetime.py): a task management response after the
# sessions that sent it and its victim are gone, and an abort from one
# connection of a session while another is receiving the aborted WRITE's
# data. On the debug kernel KASAN reports a use after free in the kernel
# log, which fails the run; here the target must serve a new session.
. ./lib.sh

KT_SLOW=$KT_CFS/core/iblock_1/slow

lifetime() {	# lifetime MODE LUN DESCRIPTION
	local out rc
	out=$(timeout 120 python3 ./iscsi_lifetime.py "$1" 127.0.0.1:3260 $KT_IQN \
		iqn.2026-11.org.ktarget:life-$1 "$2" 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	if [ $rc = 0 ]; then
		ok "$3"
	else
		not_ok "$3" "iscsi_lifetime.py $1: exit $rc"
	fi
}

main() {
	local tpg=$KT_CFS/iscsi/$KT_IQN/tpgt_1

	if ! modprobe null_blk nr_devices=1 gb=1 irqmode=2 completion_nsec=3000000000 2>/dev/null; then
		skip_all "no null_blk module"
		return
	fi
	plan 8
	check "an iSCSI target" kt_iscsi_setup
	check "LUN 1: iblock on a null_blk whose I/O takes 3 s" sh -c "mkdir -p $KT_SLOW &&
		echo udev_path=/dev/nullb0 > $KT_SLOW/control && echo 1 > $KT_SLOW/enable &&
		mkdir $tpg/lun/lun_1 && ln -s $KT_SLOW $tpg/lun/lun_1/slow"
	check "MaxConnections=2" write_attr $tpg/param/MaxConnections 2
	kmsg_mark

	lifetime tmf-after-close 1 "a LUN RESET answers after its session and its victim's closed"
	lifetime mcs-abort 0 "MC/S: an abort from connection 2 while connection 1 receives the data"

	rm -f $tpg/lun/lun_1/slow
	rmdir $tpg/lun/lun_1 $KT_SLOW $KT_CFS/core/iblock_1
	kt_iscsi_teardown
	check "target/iscsi is gone" test ! -e $KT_CFS/iscsi
	check "rmmod ktarget_iscsi ktarget_iblock ktarget_rd" \
		rmmod ktarget_iscsi ktarget_iblock ktarget_rd
	check "rmmod ktarget_core null_blk" rmmod ktarget_core null_blk
}

main "$@"
