#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The user backstore with a fake daemon (tcmu_fake.py: a TCMU daemon and
# a bare iSCSI initiator in one process), for the answers tcmu-runner
# does not give on demand and for the commands that wait for room.
#
# CHECK CONDITION with READ_LEN (TCMU_UFLAG_READ_LEN): the initiator gets
# the daemon's sense as given (32 bytes of descriptor sense), the READ_LEN
# bytes of data-in and no more, and the residual of what was not sent,
# as LIO does (SCF_TREAT_READ_AS_NORMAL), all of it when READ_LEN covers the
# whole transfer; without READ_LEN no data and no residual. GOOD with READ_LEN: the shorter data and its residual.
#
# The data area full (max_data_area_mb 1, sixteen 64 KiB READs the daemon
# holds), a seventeenth waits: ABORT TASK on it is answered at once, it
# never reaches the daemon, and the held ones and a later one each get
# their own data when the daemon answers; a LUN RESET with one waiting is
# done as soon as the daemon answers the held ones, the waiting one never
# reaches the daemon; a LUN unlinked with one waiting ends it at once
# (LOGICAL UNIT NOT SUPPORTED) and completes once the daemon answers.
# About half a minute.
. ./lib.sh

TPG=$KT_CFS/iscsi/$KT_IQN/tpgt_1
P=127.0.0.1:3260
UDEV=$KT_CFS/core/user_0/uf
LOG=/ktout/user-fake.log

teardown() {
	rm -f $TPG/lun/lun_1/d
	rmdir $TPG/lun/lun_1 2>/dev/null
	rmdir $UDEV $KT_CFS/core/user_0 2>/dev/null
	kt_iscsi_teardown
}

main() {
	local name start_mark

	command -v python3 >/dev/null || { skip_all "python3 not installed"; return; }
	plan 26
	kmsg_mark
	start_mark=$KT_KMSG_MARK

	check "target set up" kt_iscsi_setup
	check "modprobe ktarget_user" modprobe ktarget_user
	check "user LU 1, max_data_area_mb 1, no daemon" sh -c "mkdir -p $UDEV &&
		echo dev_config=fake/none,dev_size=67108864,max_data_area_mb=1 > $UDEV/control &&
		echo 1 > $UDEV/enable && mkdir $TPG/lun/lun_1 &&
		ln -s $UDEV $TPG/lun/lun_1/d"
	timeout 120 python3 ./tcmu_fake.py uf $P $KT_IQN $KT_IQN.fake 1 \
		$TPG/lun/lun_1 > $LOG 2>&1
	for name in cc-readlen-status cc-readlen-sense cc-readlen-data \
		cc-readlen-residual cc-readlen-whole cc-plain good-readlen \
		abort-ring-full abort-queued-at-once abort-others-answered \
		abort-later-own-data abort-queued-never-answered \
		reset-done-after-daemon reset-no-response-for-aborted \
		reset-queued-never-reached-daemon reset-later-own-data \
		unlink-queued-at-once unlink-done-after-daemon \
		unlink-queued-never-reached-daemon; do
		if grep -qx "ok $name" $LOG; then
			ok "$name"
		else
			not_ok "$name" "$(grep -E "^not ok $name|Error|Traceback" $LOG)" \
				"$(tail -5 $LOG)"
		fi
	done

	teardown
	check "no user device is left" sh -c "! test -e $UDEV"
	check "rmmod ktarget_iscsi, ktarget_user and the backstores" \
		rmmod ktarget_iscsi ktarget_user ktarget_rd
	check "rmmod ktarget_core" rmmod ktarget_core
	KT_KMSG_MARK=$start_mark
	check "the kernel log shows no finding" kt_kmsg_clean
}

main "$@"
