#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Media that fail the way real ones do (issue 21), each followed by its
# repair, after which service must resume:
# - null_blk with bad blocks (its configfs "badblocks" list) under iblock:
#   READ and WRITE across them answer 3/11/00 and 3/0C/00, and work once
#   the list is cleared;
# - a fileio file on ext4 whose blocks go bad under it (a dm "error"
#   segment over the file's own extent, found with filefrag): READ answers
#   3/11/00 with INFORMATION at the first bad block, WRITE 3/0C/00;
# - a thin pool (dm-thin, error_if_no_space) that runs out of data space
#   under iblock: a WRITE to an unprovisioned block answers SPACE
#   ALLOCATION FAILED WRITE PROTECT (7/27/07), and the write goes through
#   once the pool has grown;
# - dm-dust (the debug kernel has it): a READ from a bad sector (dm-dust
#   looks at a bio's first sector only) answers 3/11/00 until the sector is
#   written, as a disk remaps a sector on write;
# - a sparse fileio file on a small tmpfs, thin provisioned: an initiator
#   enables the soft threshold (mode page 1Ch/02h) near the free space
#   left; the write that crosses it is followed by THIN PROVISIONING SOFT
#   THRESHOLD REACHED (6/38/07) on every nexus, the Linux initiator's too.
. ./lib.sh

TPG=$KT_CFS/iscsi/$KT_IQN/tpgt_1
FAULTS="python3 ./iscsi_faults.py"
P=127.0.0.1:3260
INI=iqn.2026-11.org.ktarget:media
NULLB=/sys/kernel/config/nullb/nullb1
MNT=/run/kt-media
TP=/run/kt-tp
# scratch space on nullb0 (sectors): the filesystem, the thin pool's
# metadata and data, the dust device
FS_BASE=0 FS_LEN=131072
META_BASE=140000 META_LEN=8192
DATA_BASE=150000 DATA_LEN=16384 DATA_GROWN=65536
DUST_BASE=220000

dm() { DM_DISABLE_UDEV=1 dmsetup --noudevsync "$@"; }

sense() { $FAULTS sense $P $KT_IQN $INI "$@"; }

# the same answers through libiscsi, a second initiator implementation

# nullb0: 1 GiB of memory (module parameters); nullb1: 2 MiB with a
# bad-block list, made in null_blk's configfs (the disk takes the name of
# its directory there, or of its index: nullb1 either way)
nullb_setup() {
	# a null_blk left loaded by another test has other devices
	[ ! -e /sys/module/null_blk ] || { echo "null_blk already loaded"; return 1; }
	modprobe null_blk nr_devices=1 memory_backed=1 gb=1 bs=512 || return 1
	mkdir $NULLB && echo 2 > $NULLB/size && echo 1 > $NULLB/memory_backed &&
		echo 512 > $NULLB/blocksize && echo 1 > $NULLB/power &&
		[ -b /dev/nullb1 ]
}

# the file's first sector on the filesystem's device
file_sector() {
	filefrag -b512 -v "$1" | awk '$1 == "0:" { sub(/\.\..*/, "", $4); print $4; exit }'
}

# ext4 on kt-fs (linear on nullb0), an 8 MiB file on it written out
fs_setup() {
	dm create kt-fs --table "0 $FS_LEN linear /dev/nullb0 $FS_BASE" &&
		mkfs.ext4 -q -F /dev/mapper/kt-fs && mkdir -p $MNT &&
		mount /dev/mapper/kt-fs $MNT &&
		dd if=/dev/zero of=$MNT/lu.img bs=1M count=8 conv=fsync status=none
}

# FS_BAD: 64 sectors of "error" over the file's blocks 1024-1087
fs_break() {
	local s
	s=$(file_sector $MNT/lu.img)
	[ -n "$s" ] || { echo "no extent of lu.img"; return 1; }
	s=$((s + 1024))
	printf '%s\n' "0 $s linear /dev/nullb0 $FS_BASE" "$s 64 error" \
		"$((s + 64)) $((FS_LEN - s - 64)) linear /dev/nullb0 $((FS_BASE + s + 64))" |
		dm load kt-fs && dm resume kt-fs &&
		echo 3 > /proc/sys/vm/drop_caches
}

fs_repair() {
	dm load kt-fs --table "0 $FS_LEN linear /dev/nullb0 $FS_BASE" &&
		dm resume kt-fs
}

# kt-thin: 32 MiB of thin volume on a 8 MiB pool that errors when full
thin_lun() {
	dm create kt-meta --table "0 $META_LEN linear /dev/nullb0 $META_BASE" &&
		dd if=/dev/zero of=/dev/mapper/kt-meta bs=4k count=1 oflag=direct status=none &&
		dm create kt-data --table "0 $DATA_LEN linear /dev/nullb0 $DATA_BASE" &&
		dm create kt-pool --table \
			"0 $DATA_LEN thin-pool /dev/mapper/kt-meta /dev/mapper/kt-data 128 0 1 error_if_no_space" &&
		dm message kt-pool 0 "create_thin 0" &&
		dm create kt-thin --table "0 65536 thin /dev/mapper/kt-pool 0" &&
		kt_export_lun 3 iblock_2/thin udev_path=/dev/mapper/kt-thin
}

# write the pool full through the thin volume itself
thin_fill() {
	! dd if=/dev/zero of=/dev/mapper/kt-thin bs=1M count=16 oflag=direct \
		status=none 2>/dev/null &&
		dm status kt-pool | grep -q out_of_data_space
}

thin_grow() {
	dm load kt-data --table "0 $DATA_GROWN linear /dev/nullb0 $DATA_BASE" &&
		dm resume kt-data &&
		dm load kt-pool --table \
			"0 $DATA_GROWN thin-pool /dev/mapper/kt-meta /dev/mapper/kt-data 128 0 1 error_if_no_space" &&
		dm resume kt-pool
}

# kt-dust: sector 1030 bad until written. dm-dust numbers its bad blocks
# on the device below it, offset included: it sits on a linear device of
# its own, at offset 0.
dust_lun() {
	dm create kt-dust-base --table "0 4096 linear /dev/nullb0 $DUST_BASE" &&
		dm create kt-dust --table "0 4096 dust /dev/mapper/kt-dust-base 0 512" &&
		dm message kt-dust 0 addbadblock 1030 &&
		dm message kt-dust 0 enable &&
		kt_export_lun 4 iblock_2/dust udev_path=/dev/mapper/kt-dust
}

# LUN 5: a 64 MiB sparse file on a 16 MiB tmpfs, UNMAP on (thin)
tp_setup() {
	local dev=$KT_CFS/core/fileio_2/sparse
	mkdir -p $TP && mount -t tmpfs -o size=16m kt-tp $TP &&
		mkdir -p $dev &&
		echo fd_dev_name=$TP/lu.img,fd_dev_size=67108864 > $dev/control &&
		echo 1 > $dev/enable && echo 1 > $dev/attrib/emulate_tpu &&
		mkdir $TPG/lun/lun_5 && ln -s $dev $TPG/lun/lun_5/d
}

setup() {
	nullb_setup && fs_setup && tp_setup || return 1
	kt_export_lun 1 iblock_2/bb udev_path=/dev/nullb1 &&
		kt_export_lun 2 fileio_2/onfs fd_dev_name=$MNT/lu.img,fd_dev_size=8388608
}

tp_login() {
	kt_iscsid_start && iscsiadm -m discovery -t st -p $P >/dev/null &&
		iscsiadm -m node -T $KT_IQN -p $P --login >/dev/null &&
		kt_lun_disk 5
}

# the soft threshold from the bare initiator, with open-iscsi logged in
# beside it; then the Linux initiator's next command to LUN 5 hears of it
soft_threshold() {
	check "soft threshold: open-iscsi logs in" tp_login
	check "fileio, sparse on tmpfs: the write that crosses the soft threshold, then 6/38/07 on every nexus, once" \
		$FAULTS soft-threshold $P $KT_IQN $INI 5 $TP
	check "the Linux initiator logs the soft threshold of LUN 5" \
		kt_initiator_sees 5 read "thin provisioning soft threshold"
	iscsiadm -m node -T $KT_IQN -p $P --logout >/dev/null 2>&1
	iscsiadm -m node -o delete >/dev/null 2>&1
}

# teardown: every LUN, device, dm table and null_blk gone, whatever step
# of the setup was reached; fails when something is left behind
teardown() {
	local d left
	kt_unexport_lun 1 iblock_2/bb
	kt_unexport_lun 2 fileio_2/onfs
	kt_unexport_lun 3 iblock_2/thin 2>/dev/null
	kt_unexport_lun 4 iblock_2/dust 2>/dev/null
	kt_unexport_lun 5 fileio_2/sparse 2>/dev/null
	mountpoint -q $TP && umount $TP
	rmdir $KT_CFS/core/iblock_2/thin $KT_CFS/core/iblock_2/dust 2>/dev/null
	rmdir $KT_CFS/core/iblock_2 $KT_CFS/core/fileio_2
	mountpoint -q $MNT && umount $MNT
	for d in kt-fs kt-thin kt-pool kt-data kt-meta kt-dust kt-dust-base; do
		dmsetup info $d >/dev/null 2>&1 && dm remove $d
	done
	if [ -d $NULLB ]; then
		echo 0 > $NULLB/power
		rmdir $NULLB
	fi
	rmmod dm-thin-pool dm-dust 2>/dev/null
	rmmod null_blk
	left=$(dmsetup ls 2>/dev/null | grep '^kt-')
	[ -z "$left" ] || { echo "dm devices left: $left"; return 1; }
	[ ! -e /sys/module/null_blk ] || { echo "null_blk still loaded"; return 1; }
	[ ! -e $KT_CFS/core/iblock_2 ] && [ ! -e $KT_CFS/core/fileio_2 ] ||
		{ echo "backstore directories left"; return 1; }
}

main() {
	plan 30
	check "target set up" kt_stack_setup
	check "the libiscsi sense tool builds" kt_libsense_build
	check "bad-block and filesystem devices exported as LUNs 1-2" setup

	check "null_blk: mark sectors 2048-2111 bad" \
		sh -c "echo +2048-2111 > $NULLB/badblocks"
	check "iblock over bad blocks: READ 3/11/00" sense 1 read 2000 100 3/11/00
	check "iblock over bad blocks: WRITE 3/0C/00" sense 1 write 2100 8 3/0c/00
	check "libiscsi: iblock over bad blocks: READ 3/11/00, WRITE 3/0C/00" sh -c \
		"$KT_LIBSENSE iscsi://127.0.0.1/$KT_IQN/1 read 2000 100 3/11/00 &&
		$KT_LIBSENSE iscsi://127.0.0.1/$KT_IQN/1 write 2100 8 3/0c/00"
	check "null_blk: clear the bad blocks" sh -c "echo -2048-2111 > $NULLB/badblocks"
	check "iblock: the cleared range reads" sense 1 read 2000 100 0/00/00

	check "ext4: the file's blocks 1024-1087 go bad" fs_break
	check "fileio on ext4: READ 3/11/00, INFORMATION 1024" \
		sense 2 read 1000 100 3/11/00@1024
	check "fileio on ext4: WRITE 3/0C/00" sense 2 write 1020 8 3/0c/00
	check "libiscsi: fileio on ext4: READ 3/11/00, INFORMATION 1024" \
		kt_libsense 2 read 1000 100 3/11/00@1024
	check "ext4: the device repaired" fs_repair
	check "fileio on ext4: the repaired range reads" sense 2 read 1000 100 0/00/00

	if modprobe dm-thin-pool 2>/dev/null; then
		check "a thin pool of 8 MiB under 32 MiB, exported as LUN 3" thin_lun
		check "the thin pool fills up" thin_fill
		check "thin pool out of space: WRITE 7/27/07" sense 3 write 40000 8 7/27/07
		check "libiscsi: thin pool out of space: WRITE 7/27/07" \
			kt_libsense 3 write 40008 8 7/27/07
		check "the thin pool grows" thin_grow
		check "thin pool grown: the WRITE goes through" sense 3 write 40000 8 0/00/00
	else
		skip "dm-thin" "no dm-thin-pool in this kernel" 6
	fi

	if modprobe dm-dust 2>/dev/null; then
		check "dm-dust: sector 1030 bad, exported as LUN 4" dust_lun
		check "iblock over dm-dust: READ from the bad sector 3/11/00" \
			sense 4 read 1030 8 3/11/00
		check "iblock over dm-dust: WRITE over it works" sense 4 write 1030 1 0/00/00
		check "iblock over dm-dust: the written sector reads" \
			sense 4 read 1030 8 0/00/00
	else
		skip "dm-dust" "no dm-dust in this kernel" 4
	fi
	soft_threshold

	check "devices removed" teardown
	kt_iscsi_teardown
	check "rmmod the target's modules" kt_stack_unload
}

main "$@"
