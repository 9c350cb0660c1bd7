#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Online resize (issue 45, part 3), through the loopback fabric and the
# kernel's own sd driver. An rd LU grows by control "rd_pages=", a fileio
# LU by "fd_dev_size=", both while enabled and exported; an iblock LU over
# a loop device grows when the loop device does (losetup -c), with no
# admin step, and so does a fileio LU over a loop device. Each time: every
# I_T nexus hears CAPACITY DATA HAS CHANGED (2A/09) once, sg_readcap
# reads the new size, a rescan of the sd disk shows it, rtslib and
# targetcli read it, and fio verifies that the old range kept its data.
# A shrink of an exported rd or fileio LU is refused with a log line;
# once the LU is no LUN's, it shrinks. About 2 minutes (12 on the debug
# kernel).
. ./lib.sh

WWN=naa.5001405000000003
INIT=naa.5001405000000103
INIT2=naa.5001405000000104
TPG=$KT_CFS/loopback/$WWN/tpgt_1
TPG2=$KT_CFS/loopback/$WWN/tpgt_2
RD=$KT_CFS/core/rd_mcp_0/r0
FD=$KT_CFS/core/fileio_0/f0
IB=$KT_CFS/core/iblock_0/b0
FB=$KT_CFS/core/fileio_1/f1
FIMG=/tmp/kt-resize-f0.img
BIMG=/tmp/kt-resize-b0.img
FBIMG=/tmp/kt-resize-f1.img
LOG=/ktout/resize.log
MIB64=67108864
MIB96=100663296

# disk_at TPG LUN: the sd disk of LUN on TPG's nexus, within 20 s
disk_at() { kt_loop_disk "$1" "$2"; }

# old_range_write DISK NAME / old_range_verify DISK NAME: fio writes the
# first 16 MiB with crc32c headers, and later reads them back and checks
old_range_write() {
	fio_verify "$1" "$2" --rw=write --bs=64k --size=16m
}
old_range_verify() {
	fio_verify "$1" "$2.after" --rw=write --bs=64k --size=16m --verify_only
}

# ua_once DISK: its next command gets CAPACITY DATA HAS CHANGED, the one
# after it none
ua_once() {
	local out
	out=$(sg_turs "$1" 2>&1)
	echo "first TEST UNIT READY: $out"
	echo "$out" | grep -qi 'capacity data has changed' || return 1
	out=$(sg_turs "$1" 2>&1) || { echo "second: $out"; return 1; }
}

# sees_blocks DISK N: READ CAPACITY says N blocks of 512 bytes, and after
# a rescan so does the sd driver
sees_blocks() {
	local last=$(($2 - 1)) dev=${1#/dev/}
	sg_readcap "$1" | grep -q "Last LBA=$last " ||
		{ sg_readcap "$1"; return 1; }
	echo 1 > /sys/block/$dev/device/rescan
	kt_wait_for 10 test "$(cat /sys/block/$dev/size)" = "$2" ||
		{ echo "/sys/block/$dev/size: $(cat /sys/block/$dev/size)"; return 1; }
}

# rtslib_size NAME BYTES: rtslib-fb reads the storage object's new size
rtslib_size() {
	python3 -c "
import sys
from rtslib_fb import RTSRoot
for so in RTSRoot().storage_objects:
    if so.name == sys.argv[1]:
        print(so.size)
        sys.exit(0 if so.size == int(sys.argv[2]) else 1)
sys.exit(2)" "$1" "$2"
}

# targetcli_shows NAME SIZE: targetcli's ls has storage object NAME of SIZE
targetcli_shows() {
	local out
	export HOME=/root
	mkdir -p /root /etc/rtslib-fb-target
	kt_dbus_start
	out=$(targetcli ls /backstores 2>&1)
	kt_dbus_stop
	echo "$out"
	echo "$out" | grep -E "o- $1 " | grep -q "$2"
}

# write_errno FILE VALUE WORDS: the write fails, and the shell's message
# (strerror) has WORDS
write_errno() {
	local err

	err=$( (echo "$2" > "$1") 2>&1) && { echo "write of '$2' succeeded"; return 1; }
	echo "$err"
	echo "$err" | grep -qi "$3"
}

# rd_grow_under_fio DISK: fio writes 64k blocks (whole pages, which the
# ramdisk takes in trade) and verifies them while rd_pages= grows the LU
# under it, twice: kt_rd_grow() swaps the page table then
rd_grow_under_fio() {
	local pid st

	fio --output=$LOG.rdgrow --filename=$1 --direct=1 --ioengine=libaio \
		--allow_file_create=0 \
		--iodepth=16 --name=rdgrow --rw=randwrite --bs=64k --size=16m \
		--time_based --runtime=8 --verify=crc32c --verify_fatal=1 \
		--verify_backlog=64 &
	pid=$!
	sleep 2
	echo rd_pages=18432 > $RD/control || { kill $pid; return 1; }
	sleep 2
	echo rd_pages=20480 > $RD/control || { kill $pid; return 1; }
	wait $pid
	st=$?
	[ $st = 0 ] || { tail -20 $LOG.rdgrow; return 1; }
}

rd_resize() {
	local d0=$1 e0=$2

	check "rd: fio verifies across two grows of rd_pages=" rd_grow_under_fio "$d0"
	# the unit attentions of those grows, taken here
	for _ in 1 2 3; do sg_turs "$d0" >/dev/null 2>&1; sg_turs "$e0" >/dev/null 2>&1; done
	check "rd: 163840 blocks now (80 MiB)" sh -c "sg_readcap $d0 | grep -q 'Last LBA=163839 '"

	check "rd: fio writes the old range" old_range_write "$d0" rd
	check "rd: control rd_pages=24576 (96 MiB) while exported" \
		write_attr $RD/control rd_pages=24576
	check "rd: nexus 1 hears CAPACITY DATA HAS CHANGED once" ua_once "$d0"
	check "rd: nexus 2 hears it once too" ua_once "$e0"
	check "rd: READ CAPACITY and the sd disk say 196608 blocks" \
		sees_blocks "$d0" 196608
	check "rd: rtslib reads 96 MiB" rtslib_size r0 $MIB96
	check "rd: targetcli ls shows 96.0MiB" targetcli_shows r0 96.0MiB
	check "rd: the old range verifies" old_range_verify "$d0" rd
	check "rd: the new range reads and writes" sh -c "
		dd if=/dev/urandom of=/tmp/kt-resize-pat bs=1M count=1 status=none &&
		dd if=/tmp/kt-resize-pat of=$d0 bs=1M seek=95 oflag=direct status=none &&
		dd if=$d0 of=/tmp/kt-resize-back bs=1M skip=95 count=1 iflag=direct status=none &&
		cmp /tmp/kt-resize-pat /tmp/kt-resize-back"
	check_bad_write "rd: a shrink while exported is refused" \
		$RD/control rd_pages=8192 "r0: control: rd_pages=8192 would shrink"
	check "rd: that refusal is EBUSY" write_errno $RD/control rd_pages=8192 \
		"resource busy"
	check_eq "rd: still 96 MiB" "$(sg_readcap $d0 | grep -o 'Last LBA=[0-9]*')" \
		"Last LBA=196607"
}

fd_resize() {
	local d1=$1

	check "fileio: fio writes the old range" old_range_write "$d1" fd
	check "fileio: control fd_dev_size=$MIB96 while exported" \
		write_attr $FD/control fd_dev_size=$MIB96
	check_eq "fileio: the file grew" "$(stat -c %s $FIMG)" $MIB96
	check "fileio: the nexus hears CAPACITY DATA HAS CHANGED once" ua_once "$d1"
	check "fileio: READ CAPACITY and the sd disk say 196608 blocks" \
		sees_blocks "$d1" 196608
	check "fileio: rtslib reads 96 MiB" rtslib_size f0 $MIB96
	check "fileio: the old range verifies" old_range_verify "$d1" fd
	check_bad_write "fileio: a shrink while exported is refused" \
		$FD/control fd_dev_size=$MIB64 "f0: control: fd_dev_size=$MIB64 would shrink"
	check "fileio: that refusal is EBUSY" write_errno $FD/control \
		fd_dev_size=$MIB64 "resource busy"
	check "fileio: a pattern past 64 MiB, read back" sh -c "
		dd if=/dev/urandom of=/tmp/kt-resize-fpat bs=1M count=1 status=none &&
		dd if=/tmp/kt-resize-fpat of=$d1 bs=1M seek=80 oflag=direct status=none &&
		dd if=$d1 of=/tmp/kt-resize-back bs=1M skip=80 count=1 iflag=direct status=none &&
		cmp /tmp/kt-resize-fpat /tmp/kt-resize-back"
	check_bad_write "fileio: fd_dev_name cannot change while enabled" \
		$FD/control fd_dev_name=/tmp/other "f0: control: fd_dev_name cannot change while enabled"
}

ib_resize() {
	local d2=$1 loopdev=$2

	check "iblock: fio writes the old range" old_range_write "$d2" ib
	check "iblock: the loop device grows to 96 MiB (truncate, losetup -c)" \
		sh -c "truncate -s $MIB96 $BIMG && losetup -c $loopdev &&
		test \$(blockdev --getsize64 $loopdev) = $MIB96"
	check "iblock: the nexus hears CAPACITY DATA HAS CHANGED once, unasked" \
		ua_once "$d2"
	check "iblock: READ CAPACITY and the sd disk say 196608 blocks" \
		sees_blocks "$d2" 196608
	check "iblock: the old range verifies" old_range_verify "$d2" ib
}

# fd_bdev_resize DISK LOOPDEV: fileio over a block device follows it too
fd_bdev_resize() {
	local d3=$1 loopdev=$2

	check "fileio on $loopdev: the device grows to 96 MiB" \
		sh -c "truncate -s $MIB96 $FBIMG && losetup -c $loopdev"
	check "fileio on a block device: CAPACITY DATA HAS CHANGED once, unasked" \
		ua_once "$d3"
	check "fileio on a block device: READ CAPACITY and the sd disk say 196608 blocks" \
		sees_blocks "$d3" 196608
	check_bad_write "fileio on a block device: fd_dev_size= is refused" \
		$FB/control fd_dev_size=$MIB96 "f1: control: fd_dev_size: $loopdev is a block device"
	check "fileio on a block device: that refusal is EINVAL" write_errno \
		$FB/control fd_dev_size=$MIB96 "invalid argument"
}

main() {
	local d0 d1 d2 d3 e0 loopdev loopdev2

	plan 58
	: > $LOG
	kmsg_mark
	local start_mark=$KT_KMSG_MARK

	check "modprobe ktarget_core, sd_mod, sg and loop" sh -c \
		"modprobe ktarget_core && modprobe sd_mod && modprobe sg && modprobe loop"
	check "rd r0, fileio f0 and iblock b0 (over a loop device), 64 MiB each" sh -c "
		mkdir -p $RD $FD $IB &&
		echo rd_pages=16384 > $RD/control && echo 1 > $RD/enable &&
		echo fd_dev_name=$FIMG,fd_dev_size=$MIB64 > $FD/control && echo 1 > $FD/enable &&
		truncate -s $MIB64 $BIMG && losetup -f $BIMG"
	loopdev=$(losetup -j $BIMG | cut -d: -f1)
	check "iblock b0 over $loopdev" sh -c "
		echo udev_path=$loopdev > $IB/control && echo 1 > $IB/enable"
	truncate -s $MIB64 $FBIMG
	loopdev2=$(losetup -f --show $FBIMG)
	check "fileio f1 over $loopdev2" sh -c "mkdir -p $FB &&
		echo fd_dev_name=$loopdev2 > $FB/control && echo 1 > $FB/enable"
	check "loopback target: nexus 1 with LUNs 0-3, nexus 2 with r0 as LUN 1" sh -c "
		mkdir -p $TPG/lun/lun_0 $TPG/lun/lun_1 $TPG/lun/lun_2 $TPG/lun/lun_3 &&
		ln -s $RD $TPG/lun/lun_0/r0 && ln -s $FD $TPG/lun/lun_1/f0 &&
		ln -s $IB $TPG/lun/lun_2/b0 && ln -s $FB $TPG/lun/lun_3/f1 &&
		echo $INIT > $TPG/nexus &&
		mkdir -p $TPG2 && echo $INIT2 > $TPG2/nexus &&
		mkdir $TPG2/lun/lun_1 && ln -s $RD $TPG2/lun/lun_1/r0"
	d0=$(disk_at $TPG 0)
	d1=$(disk_at $TPG 1)
	d2=$(disk_at $TPG 2)
	d3=$(disk_at $TPG 3)
	e0=$(disk_at $TPG2 1)
	check "five sd disks" test -b "$d0" -a -b "$d1" -a -b "$d2" -a -b "$d3" -a -b "$e0"
	# the first command of each nexus hears POWER ON, RESET: taken here
	for d in $d0 $d1 $d2 $d3 $e0; do sg_turs $d >/dev/null 2>&1; done
	check "every disk reads 131072 blocks" sh -c "
		for d in $d0 $d1 $d2 $d3 $e0; do sg_turs \$d &&
			sg_readcap \$d | grep -q 'Last LBA=131071 ' || exit 1; done"

	rd_resize "$d0" "$e0"
	fd_resize "$d1"
	ib_resize "$d2" "$loopdev"
	fd_bdev_resize "$d3" "$loopdev2"

	check "unexport r0 and f0" sh -c "
		echo NULL > $TPG2/nexus && rm $TPG2/lun/lun_1/r0 &&
		rmdir $TPG2/lun/lun_1 $TPG2 &&
		rm $TPG/lun/lun_0/r0 $TPG/lun/lun_1/f0 &&
		rmdir $TPG/lun/lun_0 $TPG/lun/lun_1"
	check "no LUN links r0: rd_pages=8192 shrinks it" sh -c "
		echo rd_pages=8192 > $RD/control && grep -q 'PAGES/PAGE_SIZE: 8192\\*' $RD/info"
	check "no LUN links f0: fd_dev_size=$MIB64 shrinks it" sh -c "
		echo fd_dev_size=$MIB64 > $FD/control && grep -q 'Size: $MIB64 ' $FD/info"
	check "f0 grows back to 96 MiB: what was past 64 MiB reads as zeroes" sh -c "
		echo fd_dev_size=$MIB96 > $FD/control &&
		dd if=$FIMG of=/tmp/kt-resize-back bs=1M skip=80 count=1 status=none &&
		cmp -n 1048576 /tmp/kt-resize-back /dev/zero"
	check "f0 back to 64 MiB" write_attr $FD/control fd_dev_size=$MIB64
	check_bad_write "rd_pages=16384,rd_nullio=1: refused as a whole" \
		$RD/control rd_pages=16384,rd_nullio=1 \
		"r0: control: rd_nullio cannot change while enabled"
	check "r0 kept its 8192 pages" grep -q 'PAGES/PAGE_SIZE: 8192\*' $RD/info
	check "rtslib reads r0's 32 MiB" rtslib_size r0 33554432
	check "rtslib reads f0's 64 MiB" rtslib_size f0 $MIB64
	check_bad_write "rd_pages=0 is refused while enabled" $RD/control rd_pages=0 \
		"r0: control: bad value '0' for rd_pages"
	check_bad_write "rd_nullio cannot change while enabled" $RD/control rd_nullio=1 \
		"r0: control: rd_nullio cannot change while enabled"

	check "the target goes" sh -c "echo NULL > $TPG/nexus &&
		rm $TPG/lun/lun_2/b0 $TPG/lun/lun_3/f1 &&
		rmdir $TPG/lun/lun_2 $TPG/lun/lun_3 $TPG $KT_CFS/loopback/$WWN"
	check "no object left" kt_objects_zero
	check "the devices go" sh -c "rmdir $RD $FD $IB $FB &&
		rmdir $KT_CFS/core/rd_mcp_0 $KT_CFS/core/fileio_0 $KT_CFS/core/iblock_0 &&
		rmdir $KT_CFS/core/fileio_1 && losetup -d $loopdev $loopdev2"
	check "rmdir target/loopback, rmmod" sh -c "rmdir $KT_CFS/loopback &&
		rmmod ktarget_loop ktarget_fileio ktarget_iblock ktarget_rd ktarget_core"
	rm -f $FIMG $BIMG $FBIMG /tmp/kt-resize-pat /tmp/kt-resize-back /tmp/kt-resize-fpat
	KT_KMSG_MARK=$start_mark
	check "the kernel log shows no finding" kt_kmsg_clean
}

main "$@"
