#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Backstores that are slow or fail (issue 21):
# - a flush or a zeroing on a slow device (dm-delay, 3 s per write) runs
#   beside the connection, not in its receive work: a TEST UNIT READY sent
#   after it on the same connection is answered first;
# - a slow WRITE of a session whose connection went never lands after the
#   WRITE of the session that replaced it (same initiator name and ISID),
#   nor after ABORT TASK or LOGICAL UNIT RESET answered for it;
# - a device with a bad range (a dm "error" segment) answers MEDIUM ERROR:
#   3/11/00 for READ (fileio, which sees where its read stopped, sets
#   INFORMATION to the first bad block), 3/0C/00 for WRITE, also when only
#   an O_DSYNC write's sync fails (dm-flakey failing writes); a full
#   filesystem answers SPACE ALLOCATION FAILED WRITE PROTECT (7/27/07); each
#   reaches the Linux initiator's log and libiscsi (kt_sense_libiscsi.c),
#   and service resumes once the device or the filesystem is repaired;
# - an LU that reports no write cache (WCE=0) over storage that has one
#   writes through it (iblock: FUA, and a flush after zeroing, seen by
#   dm-log-writes; fileio: RWF_DSYNC, and a sync after zeroing); iblock
#   over a device with a volatile cache reports WCE=1.
. ./lib.sh

SLOW_SECS=3
FAULTS="python3 ./iscsi_faults.py"
P=127.0.0.1:3260
INI=iqn.2026-11.org.ktarget:faults
SPACE=/run/kt-full

dm() { DM_DISABLE_UDEV=1 dmsetup --noudevsync "$@"; }

# The devices: nullb0 (memory-backed, 1 GiB) split into kt-slow-f and
# kt-slow-i (dm-delay: writes and flushes held SLOW_SECS; the fileio writes
# through, O_DSYNC), kt-bad-i and kt-bad-f (64 blocks of "error" at block
# 1024 of 2048). A full tmpfs for a fileio file.
setup() {
	local ms=$((SLOW_SECS * 1000)) s
	# null_blk with a volatile write cache, so that flushes reach dm-delay
	# (the block layer completes them at once on a device without one)
	modprobe null_blk nr_devices=1 memory_backed=1 gb=1 cache_size=64 bs=512 &&
		modprobe dm-delay || return 1
	for s in f:0 i:65536; do
		dm create kt-slow-${s%%:*} --table \
			"0 32768 delay /dev/nullb0 ${s#*:} 0 /dev/nullb0 ${s#*:} $ms" || return 1
	done
	for s in i:131072 f:133120; do
		printf '%s\n' "0 1024 linear /dev/nullb0 ${s#*:}" "1024 64 error" \
			"1088 960 linear /dev/nullb0 $((${s#*:} + 1088))" |
			dm create kt-bad-${s%%:*} || return 1
	done
	dm create kt-wc-f --table "0 4096 linear /dev/nullb0 210000" || return 1
	# dm-flakey, always down, failing writes only: reads of what is there
	# work, every write fails
	modprobe dm-flakey &&
		dm create kt-flaky --table "0 4096 flakey /dev/nullb0 240000 0 60 1 error_writes" ||
		return 1
	# iblock over dm-log-writes, which records each write and its flags
	# (FUA, flush) on a log device: kt-wc-log, zeroed first
	modprobe dm-log-writes || return 1
	dm create kt-wc-log --table "0 8192 linear /dev/nullb0 220000" &&
		dd if=/dev/zero of=/dev/mapper/kt-wc-log bs=1M count=4 oflag=direct status=none &&
		dm create kt-wc-data --table "0 4096 linear /dev/nullb0 230000" &&
		dm create kt-wc-i --table "0 4096 log-writes /dev/mapper/kt-wc-data /dev/mapper/kt-wc-log" ||
		return 1
	mkdir -p $SPACE && mount -t tmpfs -o size=8m kt-full $SPACE || return 1
	kt_export_lun 1 fileio_1/slow fd_dev_name=/dev/mapper/kt-slow-f &&
		kt_export_lun 2 iblock_1/slow udev_path=/dev/mapper/kt-slow-i &&
		kt_export_lun 3 iblock_1/bad udev_path=/dev/mapper/kt-bad-i &&
		kt_export_lun 4 fileio_1/bad fd_dev_name=/dev/mapper/kt-bad-f &&
		kt_export_lun 5 fileio_1/full fd_dev_name=$SPACE/lu.img,fd_dev_size=16777216 &&
		kt_export_lun 6 iblock_1/wc udev_path=/dev/mapper/kt-wc-i &&
		kt_export_lun 7 fileio_1/wc fd_dev_name=/dev/mapper/kt-wc-f,fd_buffered_io=1 &&
		kt_export_lun 8 fileio_1/flaky fd_dev_name=/dev/mapper/kt-flaky &&
		kt_export_lun 9 iblock_1/flaky udev_path=/dev/mapper/kt-flaky
}

# logged MODE SECTOR: dm-log-writes logged it (log_writes.py MODE: fua,
# flush-after). Its kthread writes entries after the writes complete:
# looked at for 5 s.
logged() {
	local i st
	for ((i = 0; i < 25; i++)); do
		dd if=/dev/mapper/kt-wc-log of=/tmp/kt-wc-log bs=1M count=4 \
			iflag=direct status=none || return 1
		python3 ./log_writes.py /tmp/kt-wc-log "$1" "$2"
		st=$?
		[ $st = 2 ] || return $st
		sleep 0.2
	done
	return 1
}

iblock_write_is_fua() {
	sense 6 write 100 8 0/00/00 && logged fua 100
}

iblock_zeroes_are_flushed() {
	sense 6 write-same 200 8 0/00/00 && logged flush-after 200
}

# fileio cached, WCE=0: WRITE SAME of zeroes over a pattern is on nullb0
fileio_zeroes_on_disk() {
	sense 7 write 300 8 0/00/00 && sense 7 write-same 300 8 0/00/00 || return 1
	head -c 4096 /dev/zero > /tmp/kt-wc-want
	dd if=/dev/nullb0 of=/tmp/kt-wc-got bs=512 skip=$((210000 + 300)) count=8 \
		iflag=direct status=none &&
		cmp /tmp/kt-wc-got /tmp/kt-wc-want
}

# on_disk_after_write SECTOR LUN: a WRITE of 8 blocks at 100 to LUN is on
# nullb0 at SECTOR + 100 as soon as it is answered (read O_DIRECT from
# nullb0 itself: a read of the dm device LUN's fileio has open would write
# its dirty pages back first)
on_disk_after_write() {
	sense "$2" write 100 8 0/00/00 || return 1
	head -c 4096 /dev/zero | tr '\0' '<' > /tmp/kt-wc-want
	dd if=/dev/nullb0 of=/tmp/kt-wc-got bs=512 skip=$(($1 + 100)) count=8 \
		iflag=direct status=none &&
		cmp /tmp/kt-wc-got /tmp/kt-wc-want
}

teardown() {
	kt_unexport_lun 1 fileio_1/slow
	kt_unexport_lun 2 iblock_1/slow
	kt_unexport_lun 3 iblock_1/bad
	kt_unexport_lun 4 fileio_1/bad
	kt_unexport_lun 5 fileio_1/full
	kt_unexport_lun 6 iblock_1/wc
	kt_unexport_lun 7 fileio_1/wc
	kt_unexport_lun 8 fileio_1/flaky
	kt_unexport_lun 9 iblock_1/flaky
	rmdir $KT_CFS/core/fileio_1 $KT_CFS/core/iblock_1
	umount $SPACE
	dm remove kt-slow-f
	dm remove kt-slow-i
	dm remove kt-bad-i
	dm remove kt-bad-f
	dm remove kt-wc-f
	dm remove kt-flaky
	dm remove kt-wc-i
	dm remove kt-wc-data
	dm remove kt-wc-log
	rmmod dm-delay dm-log-writes dm-flakey null_blk 2>/dev/null
	return 0
}

# the bad range of kt-bad-$1 repaired: linear all through
repair() {
	local base
	base=$(dm table kt-bad-$1 | awk 'NR == 1 { print $5 }')
	dm load kt-bad-$1 --table "0 2048 linear /dev/nullb0 $base" &&
		dm resume kt-bad-$1
}

repair_both() { repair i && repair f; }

objects_gone() {
	[ "${KT_STACK:-ktarget}" = lio ] || kt_objects_zero
}

sense() { $FAULTS sense $P $KT_IQN $INI "$@"; }

main() {
	local k

	plan 41
	check "target set up" kt_stack_setup
	check "slow, bad, full, cached and flaky devices exported as LUNs 1-9" setup

	for k in sync write-same unmap; do
		check "fileio: $k on a slow device leaves the connection free" \
			$FAULTS not-inline $P $KT_IQN $INI 1 $k
		check "iblock: $k on a slow device leaves the connection free" \
			$FAULTS not-inline $P $KT_IQN $INI 2 $k
	done
	check_eq "iblock over a device with a volatile cache reports it (WCE=1)" \
		"$(cat $KT_CFS/core/iblock_1/slow/attrib/emulate_write_cache)" 1
	write_attr $KT_CFS/core/iblock_1/wc/attrib/emulate_write_cache 0
	check "iblock with WCE=0 over a cached device: a WRITE goes FUA" \
		iblock_write_is_fua
	check "iblock with WCE=0 over a cached device: WRITE SAME of zeroes is flushed" \
		iblock_zeroes_are_flushed
	write_attr $KT_CFS/core/fileio_1/wc/attrib/emulate_write_cache 0
	check "fileio cached with WCE=0: a write is on the device when answered" \
		on_disk_after_write 210000 7
	check "fileio cached with WCE=0: WRITE SAME of zeroes is on the device" \
		fileio_zeroes_on_disk
	for k in abort-task lun-reset; do
		check "$k of a WRITE in a slow backstore: answered once it is gone" \
			$FAULTS tmf-slow $P $KT_IQN $INI 2 $k
	done
	check "a slow WRITE of a replaced session does not land after the new one's" \
		$FAULTS stale-write $P $KT_IQN $INI 2

	check "iblock: READ across a bad range: 3/11/00" sense 3 read 1000 100 3/11/00
	check "iblock: WRITE across a bad range: 3/0C/00" sense 3 write 1020 8 3/0c/00
	check "fileio: READ across a bad range: 3/11/00, INFORMATION 1024" \
		sense 4 read 1000 100 3/11/00@1024
	check "fileio: WRITE across a bad range: 3/0C/00" sense 4 write 1020 8 3/0c/00
	check "fileio: a write whose O_DSYNC sync fails: 3/0C/00, INFORMATION 100" \
		sense 8 write 100 8 3/0c/00@100
	check "iblock over dm-flakey failing writes: 3/0C/00" sense 9 write 100 8 3/0c/00
	check "iblock over dm-flakey: reads still work" sense 9 read 100 8 0/00/00
	check "fill the filesystem under the fileio file" sh -c \
		"! dd if=/dev/zero of=$SPACE/fill bs=64k status=none 2>/dev/null"
	check "fileio: WRITE to a full filesystem: 7/27/07" sense 5 write 100 8 7/27/07
	check "the libiscsi sense tool builds" kt_libsense_build
	check "libiscsi: fileio over a bad range: READ 3/11/00, INFORMATION 1024; WRITE 3/0C/00" \
		sh -c "$KT_LIBSENSE iscsi://$P/$KT_IQN/4 read 1000 100 3/11/00@1024 &&
		$KT_LIBSENSE iscsi://$P/$KT_IQN/4 write 1020 8 3/0c/00"
	check "libiscsi: O_DSYNC sync fails: 3/0C/00, INFORMATION 100; dm-flakey: 3/0C/00" \
		sh -c "$KT_LIBSENSE iscsi://$P/$KT_IQN/8 write 100 8 3/0c/00@100 &&
		$KT_LIBSENSE iscsi://$P/$KT_IQN/9 write 100 8 3/0c/00"
	check "libiscsi: full filesystem: WRITE 7/27/07" kt_libsense 5 write 100 8 7/27/07

	check "iscsid starts" kt_iscsid_start
	iscsiadm -m discovery -t st -p $P >/dev/null 2>&1
	check "open-iscsi logs in" iscsiadm -m node -T $KT_IQN -p $P --login
	check "the Linux initiator logs the medium error of LUN 3" \
		kt_initiator_sees 3 read "Unrecovered read error"
	check "the Linux initiator logs the full filesystem of LUN 5" \
		kt_initiator_sees 5 write "space allocation failed"
	check "open-iscsi logs out" iscsiadm -m node -T $KT_IQN -p $P --logout
	iscsiadm -m node -o delete >/dev/null 2>&1

	check "repair the bad ranges" repair_both
	check "iblock: the repaired range reads" sense 3 read 1000 100 0/00/00
	check "fileio: the repaired range reads" sense 4 read 1000 100 0/00/00
	rm -f $SPACE/fill
	check "fileio: the freed filesystem takes the write" sense 5 write 100 8 0/00/00

	check "every target object is gone" objects_gone
	check "devices removed" teardown
	kt_iscsi_teardown
	check "rmmod the target's modules" kt_stack_unload
}

main "$@"
