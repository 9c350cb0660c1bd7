#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# FORMAT UNIT with FMTPINFO (SBC-4 5.3; issue 45, part 2): sg_format
# --fmtpinfo changes a LU's T10-PI type from the initiator, as a storage
# admin does with a disk. FMTPINFO 10b is type 1, 11b with PROTECTION
# FIELD USAGE 001b type 3, 00b no PI; type 2 (11b/000b) is refused, and so
# is any PI on a backstore that keeps none (iblock), where FMTPINFO 00b
# is a plain format. sg_format sets IMMED and polls with TEST UNIT READY
# (the format runs after GOOD); --wait formats without IMMED. Afterwards
# attrib/pi_prot_type says the new type (targetcli's saveconfig keeps
# it), READ CAPACITY (16) and INQUIRY follow, every block's PI reads FFh
# (no check) until written, the data stays, and the other I_T nexus hears
# of it as a unit attention. While a format runs (an 8 GiB fileio LU has
# 128 MiB of PI to write), TEST UNIT READY and REQUEST SENSE say FORMAT IN
# PROGRESS. The same on rd.
. ./lib.sh
. ./pi_lib.sh

DIR=/tmp/kt-pifmt
F1=$KT_CFS/core/fileio_1/f1
R1=$KT_CFS/core/rd_mcp_1/r1
IB=$KT_CFS/core/iblock_1/ib1
IMG=$DIR/f1.img
PROT=$DIR/f1.img.protection
TPG=$KT_CFS/iscsi/$KT_IQN/tpgt_1
P=127.0.0.1:3260
INI1=iqn.2026-11.org.ktarget:guest
INI2=iqn.2026-11.org.ktarget:guest2
LOG=/ktout/pi-format.log

# cmd_out CMD...: CMD's output (stdout and stderr), logged
cmd_out() {
	echo "### $*" >> $LOG
	"$@" 2>&1 | tee -a $LOG
}

# logged CMD...: CMD's status, its output logged
logged() {
	echo "### $*" >> $LOG
	"$@" >> $LOG 2>&1
}

# fmt SG ARGS...: sg_format --format --quick ARGS SG, logged
fmt() {
	local sg=$1
	shift
	logged sg_format --format --quick "$@" "$sg"
}

# wait_ready SG: TEST UNIT READY is GOOD within 60 s (a format with
# --early goes on after sg_format has returned)
wait_ready() {
	local i
	for i in $(seq 1 120); do
		sg_turs "$1" >/dev/null 2>&1 && return 0
		sleep 0.5
	done
	return 1
}

# early_fmt SG ARGS...: fmt with --early, then wait_ready
early_fmt() {
	local sg=$1
	shift
	fmt $sg --early "$@" && wait_ready $sg
}

# ready_as SG PROT: TEST UNIT READY is GOOD within 60 s, then
# readcap SG says PROT
ready_as() {
	wait_ready "$1" && [ "$(readcap "$1")" = "$2" ]
}

# readcap SG: sg_readcap --long's protection line
readcap() {
	cmd_out sg_readcap --long "$1" | grep -o 'prot_en=[0-9], p_type=[0-9]'
}

# pi_tuple LBA: the 8 bytes of PI of block LBA of f1, in hex
pi_tuple() {
	od -An -tx1 -j $(($1 * 8)) -N 8 $PROT | tr -d ' \n'
}

# lun_sg INITIATOR LUN: the sg node of LUN of the session of INITIATOR
lun_sg() {
	local s d i
	for i in $(seq 1 100); do
		for s in /sys/class/iscsi_session/session*; do
			[ "$(cat $s/initiatorname 2>/dev/null)" = "$1" ] || continue
			for d in $s/device/target*/*:$2/block/*; do
				[ -e "$d" ] && sg_of "/dev/$(basename "$d")" && return 0
			done
		done
		sleep 0.2
	done
	return 1
}

# lun_disk INITIATOR LUN: the block device of LUN of that session
lun_disk() {
	kt_session_disk initiatorname "$1" "$2"
}

# uas SG: what up to four TEST UNIT READYs on SG report, one line each
uas() {
	local i
	for i in 1 2 3 4; do
		sg_turs -v "$1" 2>&1 | tee -a $LOG | grep -i 'changed\|attention'
	done
}

setup() {
	mkdir -p $DIR && modprobe loop && truncate -s 8M $DIR/ib.img &&
		LOOPDEV=$(losetup -f --show $DIR/ib.img) &&
		kt_export_lun 1 fileio_1/f1 "fd_dev_name=$IMG,fd_dev_size=$((16 << 20))" &&
		kt_export_lun 2 rd_mcp_1/r1 rd_pages=2048 &&
		kt_export_lun 3 iblock_1/ib1 "udev_path=$LOOPDEV" &&
		kt_export_lun 4 fileio_2/f2 "fd_dev_name=$DIR/f2.img,fd_dev_size=$((8 << 30))" &&
		mkdir -p $DIR/small && mount -t tmpfs -o size=4m kt-small $DIR/small &&
		kt_export_lun 5 fileio_3/f3 "fd_dev_name=$DIR/small/f3.img,fd_dev_size=$((1 << 30))"
}

# copy_while_formatting SRC DST: two loops of sg_xcopy copy 8 MiB from
# SRC to DST (the EXTENDED COPY goes to DST: SRC's task set does not see
# it) over and over while SRC is formatted to type 1 and back to none
# (--early, polled), 30 times; the copies may fail, the formats must not
copy_while_formatting() {
	local i rc=0 p1 p2
	touch $DIR/copying
	(while [ -e $DIR/copying ]; do
		sg_xcopy if=$1 of=$2 bs=512 count=16384 bpt=2048 >> $LOG 2>&1
	done) &
	p1=$!
	(while [ -e $DIR/copying ]; do
		sg_xcopy if=$1 of=$2 bs=512 count=16384 bpt=2048 >> $LOG 2>&1
	done) &
	p2=$!
	sleep 1
	for i in $(seq 1 30); do
		early_fmt $1 --fmtpinfo=2 && early_fmt $1 --fmtpinfo=0 || rc=1
	done
	rm -f $DIR/copying
	wait $p1 $p2
	return $rc
}

# ready_says SG PATTERN: within 60 s, TEST UNIT READY on SG fails with
# sense that says PATTERN (a unit attention on the way is passed)
ready_says() {
	local i out
	for i in $(seq 1 120); do
		out=$(sg_turs -v "$1" 2>&1)
		echo "$out" >> $LOG
		echo "$out" | grep -qi "$2" && return 0
		sleep 0.5
	done
	return 1
}

login() {
	iscsiadm -m iface -I ktfmt -o new >/dev/null 2>&1
	iscsiadm -m iface -I ktfmt -o update -n iface.initiatorname \
		-v $INI2 >/dev/null &&
	iscsiadm -m discovery -t st -p $P -I default -I ktfmt >/dev/null &&
		iscsiadm -m node -T $KT_IQN -p $P --login >/dev/null
}

logout() {
	iscsiadm -m node -T $KT_IQN -p $P --logout >/dev/null 2>&1
	iscsiadm -m node -o delete >/dev/null 2>&1
	iscsiadm -m iface -I ktfmt -o delete >/dev/null 2>&1
	return 0
}

# still_there DISK: what write_verify wrote reads back the same
still_there() {
	dd if=$1 bs=64k skip=16 count=16 iflag=direct status=none | cmp - $DIR/data
}

# refused DESC SG PATTERN ARGS...: sg_format ARGS fails with ILLEGAL
# REQUEST and the kernel log says why (PATTERN)
refused() {
	local d=$1 sg=$2 pat=$3 out
	shift 3
	kmsg_mark
	echo "### sg_format --format --quick $* $sg" >> $LOG
	if out=$(sg_format --format --quick "$@" "$sg" 2>&1); then
		echo "$out" >> $LOG
		not_ok "$d" "sg_format $* succeeded"
		return
	fi
	echo "$out" >> $LOG
	if ! echo "$out" | grep -qi 'illegal request\|invalid field'; then
		not_ok "$d" "sg_format $* did not fail with ILLEGAL REQUEST" "$out"
		return
	fi
	check "$d" sh -c "dmesg | sed -n '/$KT_KMSG_MARK/,\$p' | grep -q -- '$pat'"
}

main() {
	local out sg1 sg2 disk rsg rdisk isg fsg f3sg

	if ! command -v iscsiadm >/dev/null || ! command -v sg_format >/dev/null; then
		skip_all "open-iscsi or sg3-utils not installed"
		return
	fi
	plan 50
	: > $LOG
	check "target set up" kt_iscsi_setup
	kt_iscsid_start >/dev/null 2>&1
	modprobe sg
	check "fileio f1 (16 MiB), rd r1 (8 MiB), iblock ib1 (8 MiB), fileio f2 (8 GiB, sparse), fileio f3 (1 GiB on a 4 MiB tmpfs) as LUNs 1-5" setup
	check "two sessions log in (two initiator names)" login
	sg1=$(lun_sg $INI1 1)
	sg2=$(lun_sg $INI2 1)
	disk=$(lun_disk $INI1 1)
	check "LUN 1 appears on both sessions" sh -c "[ -c '$sg1' ] && [ -c '$sg2' ] && [ -b '$disk' ]"
	sg1=${sg1:-/dev/none}
	sg2=${sg2:-/dev/none}
	disk=${disk:-/dev/none}
	sg_turs $sg2 >/dev/null 2>&1
	out=$(cmd_out sg_opcodes $sg1)
	check "REPORT SUPPORTED OPERATION CODES lists FORMAT UNIT" \
		output_has "$out" "^ *04 .*[Ff]ormat [Uu]nit"
	check "the Linux initiator writes 1 MiB to f1 (no PI yet)" write_verify $disk

	# ---- fileio: type 1, IMMED, polled ----
	check "sg_format --fmtpinfo=2 (IMMED, polled with TEST UNIT READY): done" \
		fmt $sg1 --fmtpinfo=2
	check_eq "sg_readcap --long: prot_en=1, p_type=0 (type 1)" \
		"$(readcap $sg1)" "prot_en=1, p_type=0"
	check_eq "attrib/pi_prot_type 1, pi_prot_verify 1" \
		"$(cat $F1/attrib/pi_prot_type $F1/attrib/pi_prot_verify 2>&1 | tr '\n' ' ')" "1 1 "
	check_eq "$PROT holds 8 bytes per block" "$(stat -c %s $PROT 2>&1)" "$((32768 * 8))"
	check_eq "every block's PI is FFh (block 2048 was written before)" \
		"$(pi_tuple 2048)" "ffffffffffffffff"
	check "the data stays" still_there $disk
	out=$(cmd_out sg_inq $sg1)
	check "sg_inq: Protect=1" output_has "$out" "Protect=1"
	out=$(uas $sg2)
	check "the other session: CAPACITY DATA HAS CHANGED" \
		output_has "$out" "[Cc]apacity data has changed"
	check "the other session: INQUIRY DATA HAS CHANGED" \
		output_has "$out" "[Ii]nquiry data has changed"
	out=$(sg_turs -v $sg1 2>&1)
	check "the session that formatted has no unit attention" \
		sh -c "! echo '$out' | grep -qi 'unit attention'"
	check "the Linux initiator writes 1 MiB and reads it back" write_verify $disk
	check "the PI of block 2048 (written) is guard, app tag 0, ref tag 2048" pi_ok 2048 1

	# ---- fileio: type 3, --early and polled here ----
	check "sg_format --fmtpinfo=3 --pfu=1 --early, then TEST UNIT READY GOOD" \
		early_fmt $sg1 --fmtpinfo=3 --pfu=1
	check_eq "sg_readcap --long: prot_en=1, p_type=2 (type 3)" \
		"$(readcap $sg1)" "prot_en=1, p_type=2"
	check_eq "attrib/pi_prot_type 3" "$(cat $F1/attrib/pi_prot_type 2>&1)" "3"
	check_eq "block 2048's PI is FFh again" "$(pi_tuple 2048)" "ffffffffffffffff"
	uas $sg2 > /dev/null
	check "type 3: the Linux initiator writes 1 MiB and reads it back" write_verify $disk

	# ---- refused ----
	refused "type 2 (FMTPINFO 11b, PFU 000b) is refused, and the log says why" \
		$sg1 "[Tt]ype 2" --fmtpinfo=3
	refused "FMTPINFO 01b is refused" $sg1 "FMTPINFO" --fmtpinfo=1
	check_eq "... pi_prot_type still 3" "$(cat $F1/attrib/pi_prot_type 2>&1)" "3"

	# ---- fileio: no PI, without IMMED ----
	check "sg_format --fmtpinfo=0 --wait (no IMMED): done" fmt $sg1 --fmtpinfo=0 --wait
	check_eq "sg_readcap --long: prot_en=0" "$(readcap $sg1)" "prot_en=0, p_type=0"
	check_eq "attrib/pi_prot_type 0, pi_prot_verify 0" \
		"$(cat $F1/attrib/pi_prot_type $F1/attrib/pi_prot_verify 2>&1 | tr '\n' ' ')" "0 0 "
	check "no PI: the data stays" still_there $disk

	# ---- rd ----
	rsg=$(lun_sg $INI1 2)
	rdisk=$(lun_disk $INI1 2)
	check "sg_format --fmtpinfo=2 on rd: done" fmt ${rsg:-/dev/none} --fmtpinfo=2
	check_eq "rd: prot_en=1, p_type=0; pi_prot_type 1" \
		"$(readcap ${rsg:-/dev/none}) $(cat $R1/attrib/pi_prot_type 2>&1)" "prot_en=1, p_type=0 1"
	check "rd type 1: the Linux initiator writes 1 MiB and reads it back" \
		write_verify ${rdisk:-/dev/none}
	check "sg_format --fmtpinfo=3 --pfu=1 --wait on rd: done" \
		fmt ${rsg:-/dev/none} --fmtpinfo=3 --pfu=1 --wait
	check_eq "rd: prot_en=1, p_type=2; pi_prot_type 3" \
		"$(readcap ${rsg:-/dev/none}) $(cat $R1/attrib/pi_prot_type 2>&1)" "prot_en=1, p_type=2 3"
	check "rd type 3: the data stays" still_there ${rdisk:-/dev/none}

	# ---- while it runs: f2 has 128 MiB of PI to write ----
	fsg=$(lun_sg $INI1 4)
	fsg=${fsg:-/dev/none}
	out=$( (sg_format --format --quick --early --fmtpinfo=2 $fsg &&
		sg_turs -v $fsg; sg_requests $fsg) 2>&1)
	echo "$out" >> $LOG
	check "IMMED: right after GOOD, TEST UNIT READY and REQUEST SENSE say FORMAT IN PROGRESS" \
		test "$(echo "$out" | grep -ci 'format in progress')" -ge 2
	check "... then the LU is ready, with type 1" ready_as $fsg "prot_en=1, p_type=0"

	# ---- a LUN reset stops a long format: MEDIUM FORMAT CORRUPTED ----
	out=$( (sg_format --format --quick --early --fmtpinfo=3 --pfu=1 $fsg &&
		sg_reset -d $fsg) 2>&1)
	echo "$out" >> $LOG
	check "LUN reset while f2 formats to type 3: TEST UNIT READY says MEDIUM FORMAT CORRUPTED" \
		ready_says $fsg "medium format corrupted"
	check "... REQUEST SENSE says so too" \
		sh -c "sg_requests $fsg 2>&1 | tee -a $LOG | grep -qi 'medium format corrupted'"
	check "... a new format makes it ready, type 1" \
		sh -c "sg_format --format --quick --fmtpinfo=2 $fsg >> $LOG 2>&1 &&
		[ \"\$(sg_readcap --long $fsg | grep -o 'prot_en=[0-9], p_type=[0-9]')\" = 'prot_en=1, p_type=0' ]"

	# ---- an IMMED format that fails: f3's PI (16 MiB) has no room ----
	f3sg=$(lun_sg $INI1 5)
	f3sg=${f3sg:-/dev/none}
	out=$(sg_format --format --quick --early --fmtpinfo=2 $f3sg 2>&1)
	echo "$out" >> $LOG
	check "IMMED format of f3 to type 1 with no room for its PI: TEST UNIT READY says FORMAT COMMAND FAILED" \
		ready_says $f3sg "format command failed"
	check "... REQUEST SENSE says so too" \
		sh -c "sg_requests $f3sg 2>&1 | tee -a $LOG | grep -qi 'format command failed'"
	check "... a format to no PI makes it ready" \
		sh -c "sg_format --format --quick --fmtpinfo=0 --wait $f3sg >> $LOG 2>&1 && sg_turs $f3sg"

	# ---- EXTENDED COPY out of f1 while f1 is formatted ----
	kmsg_mark
	check "sg_xcopy f1 -> r1 over and over while f1 is formatted 1 -> 0, 30 times: the formats work" \
		copy_while_formatting $sg1 ${rsg:-/dev/none}
	check "... and the kernel log has no finding" kt_kmsg_clean

	# ---- iblock ----
	isg=$(lun_sg $INI1 3)
	refused "iblock: --fmtpinfo=2 is refused, and the log says why" \
		${isg:-/dev/none} "iblock" --fmtpinfo=2
	check "iblock: --fmtpinfo=0 (a plain format) is GOOD" fmt ${isg:-/dev/none} --fmtpinfo=0 --wait

	check "open-iscsi: logout" logout
	kt_unexport_lun 1 fileio_1/f1
	kt_unexport_lun 2 rd_mcp_1/r1
	kt_unexport_lun 3 iblock_1/ib1
	kt_unexport_lun 4 fileio_2/f2
	kt_unexport_lun 5 fileio_3/f3
	rmdir $KT_CFS/core/fileio_1 $KT_CFS/core/rd_mcp_1 $KT_CFS/core/iblock_1 \
		$KT_CFS/core/fileio_2 $KT_CFS/core/fileio_3
	umount $DIR/small 2>/dev/null
	[ -n "$LOOPDEV" ] && losetup -d $LOOPDEV
	kt_iscsi_teardown
	check "modules unload" sh -c "for m in ktarget_iscsi ktarget_fileio ktarget_rd \
		ktarget_iblock ktarget_core; do [ ! -e /sys/module/\$m ] || rmmod \$m || exit 1; done"
	rm -rf $DIR
}

main
