#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# T10-PI over the loopback fabric (issue 45, part 2): the loopback's SCSI
# host offers DIF and DIX of types 1 and 3 with CRC guards, so the Linux
# sd driver takes a LU with PI as an integrity-capable disk
# (/sys/block/sdX/integrity), makes the tuples of every block it writes
# and sends them beside the data with WRPROTECT 001b, and reads them back
# with RDPROTECT 001b and checks them itself. The target checks a write's
# tuples before it stores them and a read's before it sends them: fio
# verifies through a fileio LU of type 1 and an rd LU of type 3; the
# stored tuples are the initiator's; a byte flipped in the data or in the
# protection file behind the target fails the next read of that block
# with the guard's or the reference tag's sense; with the block layer's
# integrity/write_generate and read_verify off, the target makes and drops
# the tuples itself (the host's WRITE_INSERT / READ_STRIP); an SG_IO READ
# with RDPROTECT but no PI buffer is refused as an invalid field. An iblock
# LU over a scsi_debug disk with DIF type 1 and DIX has the disk's type
# (hw_pi_prot_type) and passes the initiator's tuples through to it and
# back; a guard check failure the disk reports reaches the initiator.
# A TPG whose attrib/fabric_prot_type is 1 (then 3) shows a fileio LU
# without PI as one of that type to its nexus alone: the sd driver makes
# and checks the tuples, the target checks and drops a write's and makes a
# read's, and the file behind it has the data only.
. ./lib.sh
. ./pi_lib.sh

WWN=naa.5001405000000031
INIT=naa.5001405000000131
TPG=$KT_CFS/loopback/$WWN/tpgt_1
F1=$KT_CFS/core/fileio_1/pf1
R1=$KT_CFS/core/rd_mcp_1/pr1
IB=$KT_CFS/core/iblock_1/pib1
SDEBUG=/sys/bus/pseudo/drivers/scsi_debug
SDEBUG_OK=
DIR=/tmp/kt-pi-loop
IMG=$DIR/f1.img
PROT=$DIR/f1.img.protection
LOG=/ktout/pi-loop.log
# fabric_prot_type: TPG2 shows pf2 (no PI) with PI, TPG3 without
TPG2=$KT_CFS/loopback/$WWN/tpgt_2
TPG3=$KT_CFS/loopback/$WWN/tpgt_3
F2=$KT_CFS/core/fileio_1/pf2
IMG2=$DIR/f2.img

# fio_pi DISK NAME ARGS...: fio writes and verifies (crc32c) through DISK
fio_pi() {
	local disk=$1 name=$2
	shift 2
	timeout 300 fio --name="$name" --filename="$disk" --direct=1 \
		--allow_file_create=0 \
		--ioengine=libaio --iodepth=8 --verify=crc32c --do_verify=1 \
		--verify_fatal=1 "$@" >> $LOG 2>&1
}

# read_block DISK LBA: one 512-byte block read past the page cache
read_block() {
	timeout 120 dd if="$1" of=/dev/null bs=512 skip="$2" count=1 \
		iflag=direct status=none
}

# spoil_data DISK LBA: block LBA written through DISK, then one byte of
# its data flipped in the image behind the target; its read must fail
spoil_data() {
	dd if=/dev/urandom of="$1" bs=512 seek="$2" count=1 oflag=direct \
		status=none && flip $IMG $(($2 * 512 + 7)) && ! read_block "$1" "$2"
}

# spoil_ref DISK LBA: the same with the reference tag in the PI file
spoil_ref() {
	dd if=/dev/urandom of="$1" bs=512 seek="$2" count=1 oflag=direct \
		status=none && poke $PROT $(($2 * 8 + 4)) 0000beef &&
		! read_block "$1" "$2"
}

# kmsg_says PATTERN: the kernel log since the mark has PATTERN (grep -Ei)
kmsg_says() {
	sleep 1
	kmsg_since | grep -Eiq "$1"
}

# no_generate DISK SYSDIR: the block layer makes and checks no tuples; a
# 4k write at block 8000 and its read back still pass
no_generate() {
	echo 0 > "$2/integrity/write_generate" &&
		echo 0 > "$2/integrity/read_verify" &&
		head -c 4096 /dev/urandom > $DIR/blk &&
		dd if=$DIR/blk of="$1" bs=4096 seek=1000 oflag=direct status=none &&
		dd if="$1" bs=4096 skip=1000 count=1 iflag=direct status=none |
		cmp - $DIR/blk
}

# verify_refused DISK VRP: sg_verify --vrprotect=VRP is INVALID FIELD IN CDB
verify_refused() {
	local out

	out=$(sg_verify -v --vrprotect=$2 --lba=0 --count=8 "$1" 2>&1)
	echo "$out" >> $LOG
	echo "$out" | grep -qi 'invalid field in cdb'
}

# format_refused DISK ARGS...: sg_format --format --quick ARGS fails
# with INVALID FIELD IN CDB
format_refused() {
	local d=$1 out
	shift
	out=$(sg_format -v --format --quick --wait "$@" "$d" 2>&1)
	local rc=$?
	echo "$out" >> $LOG
	[ $rc != 0 ] && echo "$out" | grep -qi 'invalid field in cdb'
}

# raw_protect_read DISK: SG_IO READ (10) of block 0 with RDPROTECT 001b
raw_protect_read() {
	local out

	out=$(sg_raw -r 512 "$1" 28 20 00 00 00 00 00 00 01 00 2>&1)
	echo "$out" >> $LOG
	echo "$out" | grep -qi 'invalid field in cdb'
}

# overlap DISK NAME: two writers and a reader on the same 256 KiB, 10 s,
# direct: with the sd driver checking every tuple it reads, and the
# target every tuple it stores and returns, no read may fail; afterwards
# every block's data and PI agree (the whole range reads)
overlap() {
	timeout 300 fio --name="$2" --filename="$1" --direct=1 --ioengine=libaio \
		--allow_file_create=0 \
		--iodepth=8 --size=256k --bs=4k --time_based --runtime=10 \
		--numjobs=2 --rw=randwrite \
		--name="$2-r" --filename="$1" --direct=1 --ioengine=libaio \
		--iodepth=8 --size=256k --bs=4k --time_based --runtime=10 \
		--rw=randread >> $LOG 2>&1 &&
		dd if="$1" of=/dev/null bs=4k count=64 iflag=direct status=none
}

# sdebug_guard_fails DISK: scsi_debug answers every READ with ABORTED
# COMMAND, LOGICAL BLOCK GUARD CHECK FAILED; a read through DISK fails
sdebug_guard_fails() {
	echo 1 > $SDEBUG/every_nth && echo 32 > $SDEBUG/opts &&
		! read_block "$1" 300
	local rc=$?

	echo 0 > $SDEBUG/opts
	echo 0 > $SDEBUG/every_nth
	return $rc
}

# setup_iblock: pib1 over a scsi_debug disk with DIF type 1 and DIX
setup_iblock() {
	local sd

	modprobe scsi_debug dif=1 dix=1 dev_size_mb=32 &&
		sd=$(kt_sdebug_disk) && mkdir -p $IB &&
		echo "udev_path=$sd" > $IB/control && echo 1 > $IB/enable
}

setup() {
	mkdir -p $DIR $F1 $R1 &&
		echo "fd_dev_name=$IMG,fd_dev_size=$((32 << 20))" > $F1/control &&
		echo 1 > $F1/enable && echo 1 > $F1/attrib/pi_prot_type &&
		echo rd_pages=8192 > $R1/control &&
		echo 1 > $R1/enable && echo 3 > $R1/attrib/pi_prot_type &&
		mkdir -p $TPG/lun/lun_0 $TPG/lun/lun_1 &&
		ln -s $F1 $TPG/lun/lun_0/pf1 && ln -s $R1 $TPG/lun/lun_1/pr1 &&
		{ [ -z "$SDEBUG_OK" ] ||
		  { mkdir -p $TPG/lun/lun_2 && ln -s $IB $TPG/lun/lun_2/pib1; }; } &&
		echo $INIT > $TPG/nexus
}

teardown() {
	echo NULL > $TPG/nexus 2>/dev/null
	echo NULL > $TPG2/nexus 2>/dev/null
	echo NULL > $TPG3/nexus 2>/dev/null
	rm -f $TPG2/lun/lun_0/pf2 $TPG3/lun/lun_0/pf2
	rmdir $TPG2/lun/lun_0 $TPG3/lun/lun_0 $TPG2 $TPG3 $F2 2>/dev/null
	rm -f $TPG/lun/lun_0/pf1 $TPG/lun/lun_1/pr1 $TPG/lun/lun_2/pib1
	rmdir $TPG/lun/lun_0 $TPG/lun/lun_1 $TPG/lun/lun_2 $TPG \
		$KT_CFS/loopback/$WWN $F1 $R1 $IB $KT_CFS/core/fileio_1 \
		$KT_CFS/core/rd_mcp_1 $KT_CFS/core/iblock_1 2>/dev/null
	rmmod scsi_debug 2>/dev/null
	rmdir $KT_CFS/loopback 2>/dev/null
	rm -rf $DIR
	true
}

# iblock_setup_checks: pib1 over scsi_debug, and its pi_prot_type rules
iblock_setup_checks() {
	check "scsi_debug with DIF type 1 and DIX; iblock pib1 over its disk" setup_iblock
	check_eq "pib1: hw_pi_prot_type and pi_prot_type are the disk's" \
		"$(cat $IB/attrib/hw_pi_prot_type $IB/attrib/pi_prot_type 2>&1 | tr '\n' ' ')" "1 1 "
	check "pib1: pi_prot_type 0, then block_size 4096" sh -c "
		echo 0 > $IB/attrib/pi_prot_type && echo 4096 > $IB/attrib/block_size"
	check_bad_write "pib1: pi_prot_type 1 over 4096-byte LU blocks (the disk's are 512) is refused" \
		$IB/attrib/pi_prot_type 1 "pi_prot_type.*block size"
	check "pib1: block_size 512 and pi_prot_type 1 again" sh -c "
		echo 512 > $IB/attrib/block_size && echo 1 > $IB/attrib/pi_prot_type"
}

# iblock_io_checks DISK SYSDIR: PI through the iblock LU to scsi_debug and back
iblock_io_checks() {
	local d2=$1 b2=$2

	check_eq "LUN 2 (iblock): the block layer's integrity format" \
		"$(cat $b2/integrity/format 2>&1)" T10-DIF-TYPE1-CRC
	check "fio 4k random write + verify, type 1 (iblock over scsi_debug's DIF)" \
		fio_pi "$d2" r4ki --rw=randwrite --bs=4k --size=16m --number_ios=2048
	check "fio 1M sequential write + verify (iblock)" \
		fio_pi "$d2" s1mi --rw=write --bs=1m --size=8m
	check "sg_verify --vrprotect=1 through the iblock LU: GOOD" \
		sg_verify --vrprotect=1 --lba=0 --count=64 "$d2"
	check "sg_verify --vrprotect=3 (no checks) where the disk keeps the PI: invalid field in CDB" \
		verify_refused "$d2" 3
	kmsg_mark
	check "scsi_debug fails a READ's guard check: the read through the LU fails" \
		sdebug_guard_fails "$d2"
	check "... and the initiator hears LOGICAL BLOCK GUARD CHECK FAILED" \
		kmsg_says "$(basename $d2).*guard check failed"
	check "... then it reads again" read_block "$d2" 300
	kmsg_mark
	check "FORMAT UNIT with FMTPINFO 00b on the iblock LU (the disk keeps type 1): INVALID FIELD IN CDB" \
		format_refused "$d2" --fmtpinfo=0
	check "... the log says why; pi_prot_type still 1" sh -c "
		dmesg | sed -n '/$KT_KMSG_MARK/,\$p' | grep -q 'FORMAT UNIT with FMTPINFO 0 refused' &&
		[ \"\$(cat $IB/attrib/pi_prot_type)\" = 1 ]"
	check "FORMAT UNIT with FMTPINFO 10b (the disk's own type 1): GOOD, type 1 kept" \
		sh -c "sg_format --format --quick --fmtpinfo=2 --wait $d2 >> $LOG 2>&1 &&
		[ \"\$(cat $IB/attrib/pi_prot_type)\" = 1 ]"
}

# setup_fabric_prot: pf2, a fileio LU without PI, LUN 0 of TPG2 (its
# fabric_prot_type 1) and of TPG3 (0), a nexus each
setup_fabric_prot() {
	mkdir -p $F2 $TPG2/lun/lun_0 $TPG3/lun/lun_0 &&
		echo "fd_dev_name=$IMG2,fd_dev_size=$((32 << 20))" > $F2/control &&
		echo 1 > $F2/enable &&
		echo 1 > $TPG2/attrib/fabric_prot_type &&
		ln -s $F2 $TPG2/lun/lun_0/pf2 && ln -s $F2 $TPG3/lun/lun_0/pf2 &&
		echo $INIT > $TPG2/nexus && echo $INIT > $TPG3/nexus
}

# prot_en DISK: sg_readcap --long's protection line
prot_en() {
	sg_readcap --long "$1" 2>&1 | grep -o 'prot_en=[01], p_type=[0-9]'
}

# lands_plain DISK LBA: a random block written through DISK is in the
# image at LBA * 512, and reads back the same through the other nexus
lands_plain() {
	head -c 512 /dev/urandom > $DIR/blk2 &&
		dd if=$DIR/blk2 of="$1" bs=512 seek="$2" oflag=direct status=none &&
		dd if=$IMG2 bs=512 skip="$2" count=1 status=none | cmp - $DIR/blk2 &&
		dd if="$3" bs=512 skip="$2" count=1 iflag=direct status=none |
		cmp - $DIR/blk2
}

# renexus_type3: TPG2's nexus made again with fabric_prot_type 3
renexus_type3() {
	echo NULL > $TPG2/nexus && echo 3 > $TPG2/attrib/fabric_prot_type &&
		echo $INIT > $TPG2/nexus
}

# fabric_prot_checks: a LU without PI shown with PI by its TPG alone
fabric_prot_checks() {
	local d2 d3 b2 b3

	kmsg_mark
	check "pf2 (fileio, no PI): LUN 0 of TPG2 (fabric_prot_type 1) and of TPG3 (0)" \
		setup_fabric_prot
	check_eq "TPG2's fabric_prot_type reads 1, pf2's pi_prot_type 0" \
		"$(cat $TPG2/attrib/fabric_prot_type $F2/attrib/pi_prot_type 2>&1 | tr '\n' ' ')" "1 0 "
	d2=$(kt_loop_disk $TPG2 0)
	d3=$(kt_loop_disk $TPG3 0)
	check "the two LUNs are sd disks" test -b "$d2" -a -b "$d3"
	b2=/sys/block/${d2#/dev/}
	b3=/sys/block/${d3#/dev/}
	check_eq "TPG2's disk: integrity format T10-DIF-TYPE1-CRC" \
		"$(cat $b2/integrity/format 2>&1)" T10-DIF-TYPE1-CRC
	check_eq "TPG3's disk of the same LU: no integrity" \
		"$(cat $b3/integrity/format 2>&1)" none
	check_eq "READ CAPACITY (16) through TPG2, then TPG3" \
		"$(prot_en $d2) $(prot_en $d3)" "prot_en=1, p_type=0 prot_en=0, p_type=0"
	check "the sd driver enabled DIF type 1 on TPG2's disk" \
		kmsg_says "\[${d2#/dev/}\] Enabling (DIF Type 1 protection|DIX T10-DIF-TYPE1-CRC)"
	check "fio 4k random write + verify through TPG2 (the fabric's type 1)" \
		fio_pi "$d2" fp4k --rw=randwrite --bs=4k --size=16m --number_ios=2048
	check "fio 1M sequential write + verify through TPG2" \
		fio_pi "$d2" fp1m --rw=write --bs=1m --size=8m --offset=16m
	check "a block written through TPG2 is in the file as it was sent, and reads so through TPG3" \
		lands_plain "$d2" 777 "$d3"
	check "pf2 kept no PI: pi_prot_type 0, no $IMG2.protection" \
		sh -c "[ \"\$(cat $F2/attrib/pi_prot_type)\" = 0 ] && [ ! -e $IMG2.protection ]"
	check_fails "the target found no tuple that did not match" \
		kmsg_says "protection information.s (guard|reference tag)"
	check_bad_write "loopback fabric_prot_type 2 is refused" \
		$TPG2/attrib/fabric_prot_type 2 "fabric_prot_type.*want 0, 1 or 3"
	kmsg_mark
	check "TPG2's nexus made again with fabric_prot_type 3" renexus_type3
	d2=$(kt_loop_disk $TPG2 0)
	b2=/sys/block/${d2#/dev/}
	check_eq "TPG2's disk: integrity format T10-DIF-TYPE3-CRC" \
		"$(cat $b2/integrity/format 2>&1)" T10-DIF-TYPE3-CRC
	check "fio 4k random write + verify through TPG2 (type 3)" \
		fio_pi "$d2" fp4k3 --rw=randwrite --bs=4k --size=16m --number_ios=2048
	check "FORMAT UNIT to type 1 where the fabric shows type 3: INVALID FIELD IN CDB" \
		format_refused "$d2" --fmtpinfo=2
}

main() {
	local d0 d1 d2 b0 b1 b2

	plan 58
	: > $LOG
	kmsg_mark
	local start=$KT_KMSG_MARK
	check "modprobe ktarget_core, sd_mod and sg" \
		sh -c "modprobe ktarget_core && modprobe sd_mod && modprobe sg"
	# the debug kernel is built without scsi_debug
	if modinfo scsi_debug >/dev/null 2>&1; then
		SDEBUG_OK=1
		iblock_setup_checks
	else
		skip "iblock over a scsi_debug disk with DIF" "no scsi_debug for $(uname -r)" 5
	fi
	check "fileio pf1 with PI type 1, rd pr1 with type 3 and pib1: LUNs 0-2 of a loopback nexus" setup
	d0=$(kt_loop_disk $TPG 0)
	d1=$(kt_loop_disk $TPG 1)
	[ -z "$SDEBUG_OK" ] || d2=$(kt_loop_disk $TPG 2)
	check "the LUNs are sd disks" test -b "$d0" -a -b "$d1" -a -b "${d2:-$d0}"
	b0=/sys/block/${d0#/dev/}
	b1=/sys/block/${d1#/dev/}
	b2=/sys/block/${d2#/dev/}
	check_eq "LUN 0: the block layer's integrity format" \
		"$(cat $b0/integrity/format 2>&1)" T10-DIF-TYPE1-CRC
	check_eq "LUN 1: the block layer's integrity format" \
		"$(cat $b1/integrity/format 2>&1)" T10-DIF-TYPE3-CRC
	check_eq "LUN 0: the block layer makes and checks the tuples" \
		"$(cat $b0/integrity/write_generate $b0/integrity/read_verify 2>&1 | tr '\n' ' ')" "1 1 "
	check "the sd driver enabled DIF type 1 and DIX on it" \
		kmsg_says "\[${d0#/dev/}\] Enabling (DIF Type 1 protection|DIX T10-DIF-TYPE1-CRC)"

	check "fio 4k random write + verify, type 1 (fileio)" \
		fio_pi "$d0" r4k --rw=randwrite --bs=4k --size=16m --number_ios=2048
	check "fio 1M sequential write + verify, type 1 (fileio)" \
		fio_pi "$d0" s1m --rw=write --bs=1m --size=16m --offset=16m
	check "fio 4k random write + verify, type 3 (rd)" \
		fio_pi "$d1" r4k3 --rw=randwrite --bs=4k --size=16m --number_ios=2048
	kmsg_mark
	check "two writers and a reader on the same 256 KiB, type 1 (fileio): no read fails" \
		overlap "$d0" ovl1
	check "... the same, type 3 (rd)" overlap "$d1" ovl3
	check_fails "... and the target found no tuple that did not match" \
		kmsg_says "protection information.s (guard|reference tag)"
	if [ -n "$SDEBUG_OK" ]; then
		iblock_io_checks "$d2" "$b2"
	else
		skip "iblock over a scsi_debug disk with DIF" "no scsi_debug for $(uname -r)" 11
	fi
	check "the tuples stored for block 40000 are the sd driver's: guard, tag 0, LBA" \
		pi_ok 40000 1

	kmsg_mark
	check "a byte flipped in block 100's data behind the target: its read fails" \
		spoil_data "$d0" 100
	check "... LOGICAL BLOCK GUARD CHECK FAILED, from the target's check (RDPROTECT 001b)" \
		kmsg_says "guard check failed"
	check "... the target's log names LBA 100" \
		kmsg_says "LBA 100: its protection information.s guard"
	kmsg_mark
	check "block 200's reference tag changed in the protection file: its read fails" \
		spoil_ref "$d0" 200
	check "... LOGICAL BLOCK REFERENCE TAG CHECK FAILED" \
		kmsg_says "reference tag check failed"

	check "write_generate and read_verify off: a 4k write and read still pass" \
		no_generate "$d0" "$b0"
	check "... the target made the tuples of those blocks itself (8000)" pi_ok 8000 1
	check "... and of 8007" pi_ok 8007 1
	check "SG_IO READ (10) with RDPROTECT 001b and no PI buffer: invalid field in CDB" \
		raw_protect_read "$d0"
	fabric_prot_checks

	teardown
	KT_KMSG_MARK=$start
	check "modules unload" sh -c "for m in ktarget_loop ktarget_fileio ktarget_rd \
		ktarget_iblock ktarget_core; do [ ! -e /sys/module/\$m ] || rmmod \$m || exit 1; done"
	check "the kernel log has no finding" kt_kmsg_clean
}

trap teardown EXIT
main
