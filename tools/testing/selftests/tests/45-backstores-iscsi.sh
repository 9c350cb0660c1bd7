#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fileio (a file) and iblock (a brd ramdisk) LUNs next to an rd LUN, driven
# through the kernel initiator: a known pattern written through the target
# is found on the backing file and device after the session ends.
. ./lib.sh

main() {
	local tpg=$KT_CFS/iscsi/$KT_IQN/tpgt_1 p=127.0.0.1:3260 file=/tmp/kt-fileio.img
	local fdev=$KT_CFS/core/fileio_0/f0 idev=$KT_CFS/core/iblock_0/b0 d1 d2

	plan 22
	check "target set up" kt_iscsi_setup
	check "brd ramdisk for iblock" modprobe brd rd_nr=1 rd_size=65536

	check "fileio device" sh -c "mkdir -p $fdev &&
		echo fd_dev_name=$file,fd_dev_size=67108864 > $fdev/control &&
		echo 1 > $fdev/enable"
	check "ktarget_fileio was loaded on demand" grep -q '^ktarget_fileio ' /proc/modules
	check_eq "fileio created its 64 MiB file" "$(stat -c %s $file 2>/dev/null)" 67108864
	check "info shows the file" grep -q "File: $file" $fdev/info
	check "iblock device" sh -c "mkdir -p $idev &&
		echo udev_path=/dev/ram0 > $idev/control && echo 1 > $idev/enable"
	check "ktarget_iblock was loaded on demand" grep -q '^ktarget_iblock ' /proc/modules
	check_bad_write "fileio refuses enable without fd_dev_name" \
		"$(mkdir -p $KT_CFS/core/fileio_0/bad && echo $KT_CFS/core/fileio_0/bad/enable)" 1 "set fd_dev_name="
	rmdir $KT_CFS/core/fileio_0/bad

	check "export fileio as LUN 1 and iblock as LUN 2" sh -c "
		mkdir $tpg/lun/lun_1 $tpg/lun/lun_2 &&
		ln -s $fdev $tpg/lun/lun_1/f0 && ln -s $idev $tpg/lun/lun_2/b0"

	check "iscsid starts" kt_iscsid_start
	iscsiadm -m discovery -t st -p $p >/dev/null 2>&1
	check "login" iscsiadm -m node -T $KT_IQN -p $p --login
	d1=$(kt_lun_disk 1)
	d2=$(kt_lun_disk 2)
	check "LUN 1 and LUN 2 appear as disks" test -b "$d1" -a -b "$d2"
	head -c 4194304 /dev/urandom > /tmp/kt-pat
	check "the disks read from LBA 0 (partition scan)" sh -c "
		dd if=$d1 of=/dev/null bs=1M count=1 iflag=direct status=none &&
		dd if=$d2 of=/dev/null bs=1M count=1 iflag=direct status=none"
	check "write a 4 MiB pattern at 1 MiB to both" sh -c "
		dd if=/tmp/kt-pat of=$d1 bs=1M seek=1 oflag=direct conv=nocreat,notrunc status=none &&
		dd if=/tmp/kt-pat of=$d2 bs=1M seek=1 oflag=direct conv=nocreat,notrunc status=none"
	check "read it back through the target" bash -c "
		cmp <(dd if=$d1 bs=1M skip=1 count=4 iflag=direct status=none) /tmp/kt-pat &&
		cmp <(dd if=$d2 bs=1M skip=1 count=4 iflag=direct status=none) /tmp/kt-pat"
	check "logout" iscsiadm -m node -T $KT_IQN -p $p --logout
	iscsiadm -m node -o delete >/dev/null 2>&1

	check "the pattern is in the backing file" bash -c \
		"cmp <(dd if=$file bs=1M skip=1 count=4 status=none) /tmp/kt-pat"

	rm -f $tpg/lun/lun_1/f0 $tpg/lun/lun_2/b0
	rmdir $tpg/lun/lun_1 $tpg/lun/lun_2
	check "rmdir the fileio and iblock devices" sh -c "rmdir $fdev $idev &&
		rmdir $KT_CFS/core/fileio_0 $KT_CFS/core/iblock_0"
	check "the pattern is on the block device" bash -c \
		"cmp <(dd if=/dev/ram0 bs=1M skip=1 count=4 status=none) /tmp/kt-pat"
	kt_iscsi_teardown
	check "rmmod ktarget_iscsi" rmmod ktarget_iscsi
	check "rmmod the backstores" rmmod ktarget_fileio ktarget_iblock ktarget_rd
	rmmod brd 2>/dev/null
	rm -f $file
}

main "$@"
