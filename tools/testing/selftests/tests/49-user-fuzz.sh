#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The user backstore against a fuzzing daemon (tcmu_fake.py --fuzz,
# issue 44): for KT_USER_FUZZ_SECONDS (default 30) it answers the ring
# with garbage (wrong, duplicate and stale cmd_ids, random statuses,
# READ_LEN and sense, rewritten entry headers, iovecs and cdb_off outside
# the data area, cmd_tail moved anywhere, the mailbox scribbled over,
# reset_ring in the middle, its fd closed and opened again, the data area
# touched where no command is) while a bare iSCSI initiator keeps eight
# READs, WRITEs and TEST UNIT READYs in flight. Then every command has had
# its answer, a good daemon gets READs through with the right data, the
# LUN unlinks within cmd_time_out + 10 s, the modules unload and the
# kernel log is clean. The seed is printed (KT_USER_FUZZ_SEED replays
# it). About a minute by default; longer runs belong on the debug kernel
# (KASAN, kmemleak, lockdep).
. ./lib.sh

TPG=$KT_CFS/iscsi/$KT_IQN/tpgt_1
P=127.0.0.1:3260
UDEV=$KT_CFS/core/user_0/uz
LOG=/ktout/user-fuzz.log
SECS=${KT_USER_FUZZ_SECONDS:-30}
SEED=${KT_USER_FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}

teardown() {
	rm -f $TPG/lun/lun_1/d
	rmdir $TPG/lun/lun_1 2>/dev/null
	rmdir $UDEV $KT_CFS/core/user_0 2>/dev/null
	kt_iscsi_teardown
}

main() {
	local name start_mark

	command -v python3 >/dev/null || { skip_all "python3 not installed"; return; }
	plan 12
	echo "# seed $SEED, $SECS s (KT_USER_FUZZ_SEED=$SEED replays it)"
	kmsg_mark
	start_mark=$KT_KMSG_MARK

	check "target set up" kt_iscsi_setup
	check "modprobe ktarget_user" modprobe ktarget_user
	check "user LU 1, max_data_area_mb 4, cmd_time_out 3, no daemon" sh -c "
		mkdir -p $UDEV &&
		echo dev_config=fuzz/none,dev_size=67108864,max_data_area_mb=4 > $UDEV/control &&
		echo 1 > $UDEV/enable && echo 3 > $UDEV/attrib/cmd_time_out &&
		mkdir $TPG/lun/lun_1 && ln -s $UDEV $TPG/lun/lun_1/d"
	timeout $((SECS + 400)) python3 ./tcmu_fake.py --fuzz "$SECS" "$SEED" uz $P \
		$KT_IQN $KT_IQN.fuzz 1 $TPG/lun/lun_1 $UDEV > $LOG 2>&1
	grep '^#' $LOG
	for name in fuzz-daemon-ran fuzz-connection-kept fuzz-all-answered \
		fuzz-good-daemon-reads fuzz-unlink-in-bound; do
		if grep -qx "ok $name" $LOG; then
			ok "$name"
		else
			not_ok "$name" "seed $SEED: $(grep -E "^not ok $name|Error|Traceback" $LOG)" \
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
