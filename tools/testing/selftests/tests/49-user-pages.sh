#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The user backstore's data-area pages (issue 44, review finding 8), with
# the fake daemon (tcmu_fake.py --pages) serving three devices of at most
# 4 MiB each under global_max_data_area_mb 4: the pages of all devices
# together stay within the global bound (a device's command waits for room
# while another's hold it all, and gets it once they are answered); a
# device idle for the idle time gives its pages back and the daemon's
# mapping of them is gone; a command that fits only in part takes no
# page and waits without the reclaim spinning; the next command's data
# goes through fresh pages; action/reset_ring and a lower
# global_max_data_area_mb give idle pages back at once. About a minute.
. ./lib.sh

TPG=$KT_CFS/iscsi/$KT_IQN/tpgt_1
P=127.0.0.1:3260
HBA=$KT_CFS/core/user_0
LOG=/ktout/user-pages.log
PARAMS=/sys/module/ktarget_user/parameters
IDLE=10			# KT_USER_IDLE_FREE, seconds

teardown() {
	local n
	for n in 1 2 3; do
		rm -f $TPG/lun/lun_$n/d
		rmdir $TPG/lun/lun_$n 2>/dev/null
	done
	rmdir $HBA/pa $HBA/pb $HBA/pc $HBA 2>/dev/null
	kt_iscsi_teardown
}

main() {
	local name start_mark n d

	command -v python3 >/dev/null || { skip_all "python3 not installed"; return; }
	plan 26
	kmsg_mark
	start_mark=$KT_KMSG_MARK

	check "target set up" kt_iscsi_setup
	check "modprobe ktarget_user" modprobe ktarget_user
	check "global_max_data_area_mb 4" sh -c "echo 4 > $PARAMS/global_max_data_area_mb"
	n=1
	for d in pa pb pc; do
		check "user LU $n, max_data_area_mb 4, hw_max_sectors 1024" sh -c "
			mkdir -p $HBA/$d &&
			echo dev_config=fake/none,dev_size=268435456,max_data_area_mb=4,hw_max_sectors=1024 > $HBA/$d/control &&
			echo 1 > $HBA/$d/enable && mkdir $TPG/lun/lun_$n &&
			ln -s $HBA/$d $TPG/lun/lun_$n/d"
		n=$((n + 1))
	done
	timeout 300 python3 ./tcmu_fake.py --pages pa pb pc $P $KT_IQN \
		$KT_IQN.pages $HBA/pa $HBA/pb $HBA/pc $IDLE > $LOG 2>&1
	for name in global-bound-held global-count-within held-own-data \
		waiting-given-room waiting-own-data global-count-within-after \
		idle-pages-given-back idle-mappings-zapped \
		partial-room-waits-idle partial-room-then-own-data fresh-pages-own-data \
		fresh-pages-mapped reset-ring-gives-pages-back \
		reset-ring-then-own-data lower-limit-gives-pages-back \
		lower-limit-then-own-data; do
		if grep -qx "ok $name" $LOG; then
			ok "$name"
		else
			not_ok "$name" "$(grep -E "^not ok $name|Error|Traceback" $LOG)" \
				"$(tail -5 $LOG)"
		fi
	done
	echo 2048 > $PARAMS/global_max_data_area_mb

	teardown
	check "no user device is left" sh -c "! test -e $HBA/pa"
	check "rmmod ktarget_iscsi, ktarget_user and the backstores" \
		rmmod ktarget_iscsi ktarget_user ktarget_rd
	check "rmmod ktarget_core" rmmod ktarget_core
	KT_KMSG_MARK=$start_mark
	check "the kernel log shows no finding" kt_kmsg_clean
}

main "$@"
