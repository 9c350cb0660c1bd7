#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The stateful PDU fuzzer (iscsi_fuzz.py) against an rd, a fileio and an
# iblock LUN (a null_blk whose I/O takes 20 ms, so that closes find
# commands in the backstore), MaxConnections=2. Afterwards every object
# count must return to 0, the configuration come down, every module
# unload and the kernel log stay clean. KT_PDU_FUZZ_SECONDS (default 60)
# and KT_PDU_FUZZ_SEED (default random, printed) choose the run.
. ./lib.sh

IQN=iqn.2026-11.org.ktarget:fuzz
PORT=3270
TPG=$KT_CFS/iscsi/$IQN/tpgt_1
FILE=$KT_CFS/core/fileio_1/f
BLK=$KT_CFS/core/iblock_1/nullb

setup() {
	kt_iscsi_setup $IQN $PORT || return 1
	mkdir -p $FILE && echo "fd_dev_name=/run/kt-fuzz.img,fd_dev_size=67108864" > $FILE/control &&
		echo 1 > $FILE/enable || return 1
	mkdir -p $BLK && echo udev_path=/dev/nullb0 > $BLK/control &&
		echo 1 > $BLK/enable || return 1
	mkdir $TPG/lun/lun_1 $TPG/lun/lun_2 || return 1
	ln -s $FILE $TPG/lun/lun_1/f && ln -s $BLK $TPG/lun/lun_2/nullb || return 1
	echo 2 > $TPG/param/MaxConnections &&
		echo 3 > $TPG/attrib/default_dataout_timeout
}

teardown() {
	echo 0 > $TPG/enable
	rm -f $TPG/lun/lun_1/f $TPG/lun/lun_2/nullb
	rmdir $TPG/lun/lun_1 $TPG/lun/lun_2
	kt_iscsi_teardown $IQN $PORT
	rmdir $FILE $KT_CFS/core/fileio_1 $BLK $KT_CFS/core/iblock_1 &&
		test ! -e $KT_CFS/iscsi && test ! -e $KT_CFS/core/rd_mcp_0
}

main() {
	local secs=${KT_PDU_FUZZ_SECONDS:-60} seed=${KT_PDU_FUZZ_SEED:-$RANDOM$RANDOM} out

	if ! modprobe null_blk nr_devices=1 gb=1 irqmode=2 completion_nsec=20000000 2>/dev/null; then
		skip_all "no null_blk module"
		return
	fi
	plan 6
	kmsg_mark
	check "a target with rd, fileio and iblock LUNs, MaxConnections=2" setup
	out=$(timeout $((secs + 300)) python3 ./iscsi_fuzz.py 127.0.0.1:$PORT $IQN \
		"$secs" "$seed" 0 1 2 2>&1)
	if [ $? = 0 ]; then
		ok "$secs s of stateful fuzzing (seed $seed): the target kept serving"
	else
		not_ok "$secs s of stateful fuzzing (seed $seed): the target kept serving"
	fi
	printf '%s\n' "$out" | sed 's/^/# /'
	check "every connection, session, command, TMF and LUN reference is gone" \
		kt_objects_zero 60
	if kt_within 180 teardown; then
		ok "the configuration comes down"
		check "every ktarget module unloads" \
			rmmod ktarget_iscsi ktarget_fileio ktarget_iblock ktarget_rd ktarget_core
	else
		not_ok "the configuration comes down"
		skip "every ktarget module unloads" "the teardown hangs"
	fi
	check "the kernel log has no finding" kt_kmsg_clean
	rm -f /run/kt-fuzz.img
	rmmod null_blk 2>/dev/null
}

main "$@"
