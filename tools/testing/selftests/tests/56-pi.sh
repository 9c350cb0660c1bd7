#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# T10-PI, DIF types 1 and 3, emulated on fileio and rd (issue 45, part 2,
# first slice). attrib/pi_prot_type 1 or 3 (2 refused, and any change while
# a LUN exports the device) gives the device 8 bytes of protection
# information per logical block: fileio in <file>.protection beside the
# data, as LIO keeps it, rd in pages of its own. INQUIRY says PROTECT=1,
# the Extended INQUIRY VPD page SPT and the checks, READ CAPACITY (16)
# PROT_EN=1 and P_TYPE. A WRITE with WRPROTECT 0 (what the Linux initiator
# sends over iSCSI/TCP, which carries no PI) makes the PI (CRC guard,
# application tag 0, reference tag the LBA's low 32 bits for type 1); a
# READ checks it: a flipped byte of the protection file or of the data is
# ABORTED COMMAND 10/01 with the LBA in INFORMATION, a wrong reference tag
# 10/03, and an application tag of FFFFh turns the checks off. iblock keeps
# pi_prot_type 0; targetcli sets the attribute on fileio and rd, and
# saveconfig / restoreconfig keep it.
. ./lib.sh
. ./pi_lib.sh

DIR=/tmp/kt-pi
F1=$KT_CFS/core/fileio_1/f1
R1=$KT_CFS/core/rd_mcp_1/r1
IB=$KT_CFS/core/iblock_1/ib1
IMG=$DIR/f1.img
PROT=$DIR/f1.img.protection
TPG=$KT_CFS/iscsi/$KT_IQN/tpgt_1
P=127.0.0.1:3260
LOG=/ktout/pi.log
SAVE=/tmp/kt-pi.json

# pi_tuple LBA: the 8 bytes of PI of block LBA of f1, in hex
pi_tuple() {
	od -An -tx1 -j $(($1 * 8)) -N 8 $PROT | tr -d ' \n'
}

# sense LUN read|write LBA N WANT: libiscsi's answer to READ / WRITE (16)
sense() {
	kt_libsense "$@" 2>&1 | tee -a $LOG
	return ${PIPESTATUS[0]}
}

# vrprotect SG VRP LBA N PATTERN... [-- sg_verify options]: sg_verify
# --vrprotect=VRP of N blocks at LBA; with PATTERN "" it must pass, else
# fail and say every PATTERN
vrprotect() {
	local sg=$1 vrp=$2 lba=$3 n=$4 out rc pats=()
	shift 4
	while [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; do
		pats+=("$1")
		shift
	done
	out=$(sg_verify -v --vrprotect=$vrp --lba=$lba --count=$n "$@" $sg 2>&1)
	rc=$?
	printf '### sg_verify --vrprotect=%s --lba=%s --count=%s %s\n%s\n' \
		$vrp $lba $n "$*" "$out" >> $LOG
	echo "$out"
	if [ -z "${pats[0]}" ]; then
		[ $rc -eq 0 ]
	else
		[ $rc -ne 0 ] && output_has "$out" "${pats[@]}"
	fi
}

# cmd_out CMD...: CMD's output, logged
cmd_out() {
	echo "### $*" >> $LOG
	"$@" 2>&1 | tee -a $LOG
}

setup_f1() {
	mkdir -p $DIR $F1 &&
		echo "fd_dev_name=$IMG,fd_dev_size=$((16 << 20))" > $F1/control &&
		echo 1 > $F1/enable
}

setup_iblock() {
	modprobe loop && truncate -s 8M $DIR/ib.img &&
		LOOPDEV=$(losetup -f --show $DIR/ib.img) &&
		mkdir -p $IB && echo "udev_path=$LOOPDEV" > $IB/control &&
		echo 1 > $IB/enable
}

login() {
	iscsiadm -m discovery -t st -p $P >/dev/null &&
		iscsiadm -m node -T $KT_IQN -p $P --login >/dev/null
}

logout() {
	iscsiadm -m node -T $KT_IQN -p $P --logout >/dev/null 2>&1
	iscsiadm -m node -o delete >/dev/null 2>&1
	return 0
}

# libiscsi_protect LUN WHAT: iscsi-test-cu's tests of RDPROTECT,
# WRPROTECT, VRPROTECT and ORPROTECT against LUN: none fails
libiscsi_protect() {
	local out=/ktout/pi-cu-$1.log res
	timeout 600 iscsi-test-cu --dataloss --test='SCSI.*.*Protect*' \
		"iscsi://127.0.0.1:3260/$KT_IQN/$1" > $out 2>&1
	res=$(python3 ../libiscsi/cu-parse.py $out)
	echo "$res" | sed "s/^/# $1: /"
	check "iscsi-test-cu *Protect* on $2: none fails ($(echo "$res" | grep -c .) run)" \
		sh -c "[ \$(echo '$res' | grep -c .) -ge 14 ] && ! echo '$res' | grep -q '^FAIL'"
}

# targetcli: fileio and rd backstores with pi_prot_type=1, saved, cleared
# and restored (4 checks)
tcli_part() {
	local out
	targetcli >> $LOG 2>&1 <<-EOF
	/backstores/fileio create name=tf file_or_dev=$DIR/tf.img size=8M
	/backstores/ramdisk create name=tr size=8M
	/backstores/fileio/tf set attribute pi_prot_type=1
	/backstores/ramdisk/tr set attribute pi_prot_type=1
	EOF
	check_eq "targetcli: pi_prot_type=1 on a fileio and an rd backstore" \
		"$(cat $KT_CFS/core/fileio_*/tf/attrib/pi_prot_type \
			$KT_CFS/core/rd_mcp_*/tr/attrib/pi_prot_type 2>&1 | tr '\n' ' ')" "1 1 "
	check "targetcli: saveconfig" sh -c "targetcli saveconfig $SAVE >> $LOG 2>&1"
	out=$(python3 -c "
import json, sys
c = json.load(open('$SAVE'))
print(' '.join('%s=%s' % (s['name'], s['attributes'].get('pi_prot_type'))
	       for s in c['storage_objects'] if s['name'] in ('tf', 'tr')))" 2>&1)
	check_eq "the saved configuration has pi_prot_type 1 for both" \
		"$(echo $out | tr ' ' '\n' | sort | tr '\n' ' ')" "tf=1 tr=1 "
	targetcli clearconfig confirm=True >> $LOG 2>&1
	targetcli restoreconfig $SAVE >> $LOG 2>&1
	check_eq "targetcli restoreconfig: pi_prot_type 1 again" \
		"$(cat $KT_CFS/core/fileio_*/tf/attrib/pi_prot_type \
			$KT_CFS/core/rd_mcp_*/tr/attrib/pi_prot_type 2>&1 | tr '\n' ' ')" "1 1 "
	targetcli clearconfig confirm=True >> $LOG 2>&1
}

main() {
	local out disk sg

	if ! command -v iscsiadm >/dev/null; then
		skip_all "open-iscsi: iscsiadm not installed"
		return
	fi
	plan 94
	check "target set up" kt_iscsi_setup
	check "the libiscsi sense tool builds" kt_libsense_build
	kt_iscsid_start >/dev/null 2>&1
	modprobe sg
	kt_dbus_start

	# ---- the attributes ----
	check "fileio f1 (16 MiB) enabled" setup_f1
	check_eq "f1: pi_prot_type, pi_prot_verify, hw_pi_prot_type, pi_prot_format read 0" \
		"$(cat $F1/attrib/pi_prot_type $F1/attrib/pi_prot_verify \
			$F1/attrib/hw_pi_prot_type $F1/attrib/pi_prot_format 2>&1 | tr '\n' ' ')" "0 0 0 0 "
	check_bad_write "f1: pi_prot_type=2 is refused, and the log says why" \
		$F1/attrib/pi_prot_type 2 "pi_prot_type.*[Tt]ype 2"
	check "f1: pi_prot_type=1" write_attr $F1/attrib/pi_prot_type 1
	check_eq "f1: pi_prot_type 1, pi_prot_verify 1 (as LIO sets it)" \
		"$(cat $F1/attrib/pi_prot_type $F1/attrib/pi_prot_verify 2>&1 | tr '\n' ' ')" "1 1 "
	check_bad_write "f1 keeps its own PI: cluster/enable is refused, and the log says why" \
		$F1/cluster/enable 1 "cluster/enable.*protection information"
	check_eq "f1: $PROT holds 8 bytes per block" \
		"$(stat -c %s $PROT 2>&1)" "$((32768 * 8))"
	check_eq "f1: a new protection file is formatted (FFh: no block checked)" \
		"$(pi_tuple 7)" "ffffffffffffffff"
	check "f1: pi_prot_format=1 formats" write_attr $F1/attrib/pi_prot_format 1
	check_eq "f1: pi_prot_format reads 0 (rtslib's saveconfig reads it)" \
		"$(cat $F1/attrib/pi_prot_format 2>&1)" "0"
	check_fails "f1: hw_pi_prot_type is read-only" write_attr $F1/attrib/hw_pi_prot_type 1

	# ---- exported ----
	check "f1 exported as LUN 1" sh -c "mkdir $TPG/lun/lun_1 && ln -s $F1 $TPG/lun/lun_1/f1"
	check_bad_write "f1 exported: pi_prot_type=0 is refused" \
		$F1/attrib/pi_prot_type 0 "pi_prot_type.*exported"
	check_bad_write "f1 exported: pi_prot_format=1 is refused" \
		$F1/attrib/pi_prot_format 1 "pi_prot_format.*exported"
	check "open-iscsi: login" login
	disk=$(kt_lun_disk 1)
	sg=$(sg_of "${disk:-/dev/none}")
	check "the sd disk of LUN 1 appears" test -b "${disk:-/dev/none}"
	out=$(cmd_out sg_readcap --long ${sg:-/dev/none})
	check "sg_readcap --long: prot_en=1, p_type=0, p_i_exponent=0" \
		output_has "$out" "prot_en=1, p_type=0, p_i_exponent=0"
	out=$(cmd_out sg_inq ${sg:-/dev/none})
	check "sg_inq: Protect=1" output_has "$out" "Protect=1"
	out=$(cmd_out sg_vpd -p ei ${sg:-/dev/none})
	check "sg_vpd -p ei: SPT=0 GRD_CHK=1 APP_CHK=0 REF_CHK=1" \
		output_has "$out" "SPT=0 GRD_CHK=1 APP_CHK=0 REF_CHK=1"
	check "sd: DIF type 1 disabled at the host (iscsi_tcp carries no PI)" \
		sh -c "dmesg | grep -q 'Disabling DIF Type 1 protection'"
	check "the Linux initiator writes 1 MiB and reads it back" write_verify ${disk:-/dev/none}
	check "the PI of block 2048 (the first written) is guard, app tag 0, ref tag 2048" \
		pi_ok 2048 1
	check "the PI of block 4095 (the last written) is right too" pi_ok 4095 1
	check "libiscsi: WRITE (16) of 8 blocks at 100, READ (16) of them: GOOD" \
		sh -c "$KT_LIBSENSE iscsi://127.0.0.1/$KT_IQN/1 write 100 8 0/00/00 >> $LOG &&
			$KT_LIBSENSE iscsi://127.0.0.1/$KT_IQN/1 read 100 8 0/00/00 >> $LOG"
	check "... and the PI of block 103 is right" pi_ok 103 1

	# ---- faults ----
	flip $PROT $((103 * 8))
	check "a flipped guard byte of block 103: READ is B/10/01, INFORMATION 103" \
		sense 1 read 100 8 b/10/01@103
	flip $PROT $((103 * 8))
	check "flipped back: the READ is GOOD" sense 1 read 100 8 0/00/00
	check "sg_verify --vrprotect=1 of blocks 100-107 (BYTCHK 00b): GOOD" \
		vrprotect ${sg:-/dev/none} 1 100 8 ""
	flip $IMG $((105 * 512 + 77))
	check "a flipped data byte of block 105: READ is B/10/01, INFORMATION 105" \
		sense 1 read 100 8 b/10/01@105
	check "... sg_verify --vrprotect=1 over it: guard check failed, INFORMATION 105" \
		vrprotect ${sg:-/dev/none} 1 100 8 "[Gg]uard check failed" "Info fld=0x69"
	check "... sg_verify --vrprotect=2 (the reference tag only): GOOD" \
		vrprotect ${sg:-/dev/none} 2 100 8 ""
	check "... sg_verify --vrprotect=3 (no checks): GOOD" \
		vrprotect ${sg:-/dev/none} 3 100 8 ""
	check "... sg_verify --vrprotect=6 (reserved): invalid field in CDB" \
		vrprotect ${sg:-/dev/none} 6 100 8 "[Ii]nvalid field in cdb"
	cp $DIR/data $DIR/v512 && truncate -s 4096 $DIR/v512
	check "... VERIFY with data (BYTCHK 01b) and VRPROTECT: invalid field in CDB" \
		vrprotect ${sg:-/dev/none} 1 100 8 "[Ii]nvalid field in cdb" --ndo=4096 --in=$DIR/v512
	flip $IMG $((105 * 512 + 77))
	poke $PROT $((106 * 8 + 4)) 000003e8
	check "a wrong reference tag (1000) at block 106: READ is B/10/03, INFORMATION 106" \
		sense 1 read 100 8 b/10/03@106
	poke $PROT $((106 * 8)) 0000ffff
	check "application tag FFFFh at block 106 (and a bad guard): no check, GOOD" \
		sense 1 read 106 1 0/00/00
	flip $PROT $((3000 * 8 + 1))
	kmsg_mark
	check_fails "the Linux initiator's READ of block 3000, its guard flipped, fails" \
		dd if=${disk:-/dev/none} of=/dev/null bs=512 skip=3000 count=1 iflag=direct status=none
	out=$(kmsg_since)
	check "... and sd logs the guard check failure" \
		output_has "$out" "[Gg]uard check failed"
	flip $PROT $((3000 * 8 + 1))
	head -c 512 /dev/urandom > $DIR/pattern
	out=$(cmd_out sg_write_same --lba=200 --num=8 --in=$DIR/pattern ${sg:-/dev/none})
	check "WRITE SAME over blocks 200-207: the PI is made for each" pi_ok 207 1
	python3 ./pi_tuple.py block $DIR/pattern 0x4b54 1000 > $DIR/wsp
	check "sg_write_same --wrprotect=1 of blocks 1000-1015, the tuple after the block: GOOD" \
		sh -c "sg_write_same --lba=1000 --num=16 --wrprotect=1 --in=$DIR/wsp \
			${sg:-/dev/none} >> $LOG 2>&1"
	check "... block 1000 keeps the initiator's tuple (application tag 4B54h)" \
		pi_ok 1000 1 0x4b54
	check "... block 1015 too, its reference tag 1015" pi_ok 1015 1 0x4b54 1015
	check "... and holds the block" sh -c "
		dd if=$IMG bs=512 skip=1015 count=1 status=none | cmp - $DIR/pattern"
	check "... READ (16) of them checks every tuple: GOOD" sense 1 read 1000 16 0/00/00
	python3 ./pi_tuple.py block $DIR/pattern 0 1100 0x0100 > $DIR/wsp-guard
	out=$(cmd_out sg_write_same -v --lba=1100 --num=4 --wrprotect=1 \
		--in=$DIR/wsp-guard ${sg:-/dev/none})
	check "... a tuple whose guard is not the block's, WRPROTECT 1: guard check failed, INFORMATION 1100" \
		output_has "$out" "[Gg]uard check failed" "Info fld=0x44c"
	check "... and nothing was written" sh -c "
		! dd if=$IMG bs=512 skip=1100 count=1 status=none | cmp -s - $DIR/pattern"
	out=$(cmd_out sg_write_same --lba=1100 --num=4 --wrprotect=3 \
		--in=$DIR/wsp-guard ${sg:-/dev/none})
	check_eq "... WRPROTECT 3 (no checks) stores that tuple as it came" \
		"$(dd if=$PROT bs=8 skip=1100 count=1 status=none | od -An -tx1)" \
		"$(tail -c 8 $DIR/wsp-guard | od -An -tx1)"
	check "... and a READ of block 1100 then fails its guard check" \
		sense 1 read 1100 1 b/10/01@1100
	python3 ./pi_tuple.py block $DIR/pattern 0x11 7 > $DIR/wsp-ref7
	out=$(cmd_out sg_write_same --lba=1400 --num=4 --wrprotect=3 \
		--in=$DIR/wsp-ref7 ${sg:-/dev/none})
	check "... WRPROTECT 3, reference tag 7 at LBA 1400: block 1403 stores 10 (the one sent, plus one a block)" \
		pi_ok 1403 1 0x11 10
	{ cat $DIR/pattern; printf '\377\377\377\377\377\377\377\377'; } > $DIR/wsp-ff
	out=$(cmd_out sg_write_same --lba=1500 --num=4 --wrprotect=3 \
		--in=$DIR/wsp-ff ${sg:-/dev/none})
	check_eq "... a tuple of FFh bytes only is stored as it is, for every block" \
		"$(od -v -An -tx1 -j $((1500 * 8)) -N 32 $PROT | tr -d ' \n' | tr -d f)" ""
	check "... and block 1503 holds the block sent" sh -c "
		dd if=$IMG bs=512 skip=1503 count=1 status=none | cmp - $DIR/pattern"
	python3 ./pi_tuple.py block $DIR/pattern 0 5 > $DIR/wsp-ref
	out=$(cmd_out sg_write_same -v --lba=1200 --num=4 --wrprotect=1 \
		--in=$DIR/wsp-ref ${sg:-/dev/none})
	check "... a reference tag not the LBA, WRPROTECT 1: reference tag check failed" \
		output_has "$out" "[Rr]eference tag check failed" "Info fld=0x4b0"
	check "... WRITE SAME with WRPROTECT and the block alone (512 bytes): invalid field in CDB" \
		sh -c "sg_write_same -v --lba=1300 --num=2 --wrprotect=1 --xferlen=512 \
			--in=$DIR/pattern ${sg:-/dev/none} 2>&1 | tee -a $LOG |
			grep -qi 'invalid field in cdb'"
	check "UNMAP of blocks 300-307 (emulate_tpu=1)" bash -o pipefail -c "
		echo 1 > $F1/attrib/emulate_tpu && sg_unmap --lba=300 --num=8 ${sg:-/dev/none} 2>&1 | tee -a $LOG"
	check_eq "... their PI is FFh" "$(od -v -An -tx1 -j 2400 -N 64 $PROT | tr -d ' \n' | tr -d f)" ""
	check "... and they read as zeroes, unchecked: GOOD" sense 1 read 300 8 0/00/00
	{ head -c 512 /dev/zero; head -c 512 /dev/urandom; } > $DIR/caw
	out=$(cmd_out sg_compare_and_write --in=$DIR/caw --lba=301 --num=1 ${sg:-/dev/none})
	check "COMPARE AND WRITE of block 301: the PI is made for the new data" pi_ok 301 1
	d0=$(kt_lun_disk 0)
	head -c 8192 /dev/urandom > $DIR/x16
	dd if=$DIR/x16 of=${d0:-/dev/none} bs=8192 seek=1 oflag=direct status=none
	check "EXTENDED COPY of 16 blocks from rd (LUN 0, no PI) to f1" \
		python3 ./xcopy.py copy $disk ${d0:-/dev/none} $disk -- 0:1:16:16:500
	check "... the PI of the first block copied is made" pi_ok 500 1
	check "... and of the last" pi_ok 515 1
	check "... and the data is there" sh -c "
		dd if=$IMG bs=512 skip=500 count=16 status=none | cmp - $DIR/x16"
	flip $PROT $((510 * 8))
	check_fails "EXTENDED COPY from f1, block 510's guard flipped, to rd: the copy fails" \
		python3 ./xcopy.py copy $disk $disk ${d0:-/dev/none} -- 0:1:16:500:64
	flip $PROT $((510 * 8))
	libiscsi_protect 1 "type 1 fileio"
	libiscsi_protect 0 "rd without PI"
	check "open-iscsi: logout" logout

	# ---- type 3 ----
	check "f1 unexported" sh -c "rm $TPG/lun/lun_1/f1 && rmdir $TPG/lun/lun_1"
	check "f1: pi_prot_type=3 once unexported" write_attr $F1/attrib/pi_prot_type 3
	check "f1 exported again" sh -c "mkdir $TPG/lun/lun_1 && ln -s $F1 $TPG/lun/lun_1/f1"
	check "type 3: block 2048's reference tag (2048) is not checked: GOOD" \
		sense 1 read 2048 1 0/00/00
	flip $PROT $((2049 * 8))
	check "type 3: a flipped guard byte of block 2049: B/10/01, INFORMATION 2049" \
		sense 1 read 2048 8 b/10/01@2049
	check "type 3: application tag FFFFh alone does not turn the checks off (block 106)" \
		sense 1 read 106 1 b/10/01@106
	poke $PROT $((106 * 8 + 4)) ffffffff
	check "type 3: with the reference tag FFFFFFFFh too it does: GOOD" \
		sense 1 read 106 1 0/00/00
	check "type 3: WRITE (16) of block 600 (its reference tag 0)" \
		sense 1 write 600 1 0/00/00
	check "f1: back to pi_prot_type=1 once unexported" sh -c "
		rm $TPG/lun/lun_1/f1 && echo 1 > $F1/attrib/pi_prot_type &&
		ln -s $F1 $TPG/lun/lun_1/f1"
	check "type 1 again: block 600, written under type 3, reads GOOD (no stale reference tag)" \
		sense 1 read 600 1 0/00/00
	check "f1: pi_prot_type=3 again" sh -c "
		rm $TPG/lun/lun_1/f1 && echo 3 > $F1/attrib/pi_prot_type &&
		ln -s $F1 $TPG/lun/lun_1/f1"
	check "rd r1 (8 MiB) with pi_prot_type=3, exported as LUN 2" sh -c "
		mkdir -p $R1 && echo rd_pages=2048 > $R1/control && echo 1 > $R1/enable &&
		echo 3 > $R1/attrib/pi_prot_type &&
		mkdir $TPG/lun/lun_2 && ln -s $R1 $TPG/lun/lun_2/r1"
	check "rd type 3: WRITE (16) and READ (16) of 16 blocks: GOOD" \
		sh -c "$KT_LIBSENSE iscsi://127.0.0.1/$KT_IQN/2 write 50 16 0/00/00 >> $LOG &&
			$KT_LIBSENSE iscsi://127.0.0.1/$KT_IQN/2 read 50 16 0/00/00 >> $LOG"
	check "open-iscsi: login again" login
	disk=$(kt_lun_disk 2)
	sg=$(sg_of "${disk:-/dev/none}")
	out=$(cmd_out sg_readcap --long ${sg:-/dev/none})
	check "rd type 3: sg_readcap --long: prot_en=1, p_type=2" \
		output_has "$out" "prot_en=1, p_type=2, p_i_exponent=0"
	out=$(cmd_out sg_vpd -p ei ${sg:-/dev/none})
	check "rd type 3: sg_vpd -p ei: SPT=4 GRD_CHK=1 APP_CHK=0 REF_CHK=0" \
		output_has "$out" "SPT=4 GRD_CHK=1 APP_CHK=0 REF_CHK=0"
	check "rd type 3: the Linux initiator writes 1 MiB and reads it back" \
		write_verify ${disk:-/dev/none}
	python3 ./pi_tuple.py block $DIR/pattern 7 0xdeadbeef > $DIR/wsp3
	sg=$(sg_of "$(kt_lun_disk 1)")
	check "type 3 (f1): sg_write_same --wrprotect=1 of blocks 700-703, reference tag DEADBEEFh: GOOD" \
		sh -c "sg_write_same --lba=700 --num=4 --wrprotect=1 --in=$DIR/wsp3 \
			${sg:-/dev/none} >> $LOG 2>&1"
	check "... block 703 keeps that reference tag, not one more per block" \
		pi_ok 703 3 7 0xdeadbeef
	logout

	# ---- iblock ----
	check "iblock ib1 over a loop device enabled" setup_iblock
	check_bad_write "iblock: pi_prot_type=1 is refused, and the log says why" \
		$IB/attrib/pi_prot_type 1 "pi_prot_type.*iblock"

	# ---- teardown of the echo part, then targetcli ----
	rm -f $TPG/lun/lun_1/f1 $TPG/lun/lun_2/r1
	rmdir $TPG/lun/lun_1 $TPG/lun/lun_2
	check "f1 and r1: pi_prot_type=0 once unexported" sh -c \
		"echo 0 > $F1/attrib/pi_prot_type && echo 0 > $R1/attrib/pi_prot_type"
	rmdir $F1 $R1 $IB $KT_CFS/core/fileio_1 $KT_CFS/core/rd_mcp_1 $KT_CFS/core/iblock_1
	[ -n "$LOOPDEV" ] && losetup -d $LOOPDEV
	kt_iscsi_teardown
	if command -v targetcli >/dev/null; then
		tcli_part
	else
		skip "targetcli" "not installed" 4
	fi
	# targetcli made target/iscsi again, which holds ktarget_iscsi
	rmdir $KT_CFS/iscsi 2>/dev/null
	check "modules unload" sh -c "for m in ktarget_iscsi ktarget_fileio ktarget_rd \
		ktarget_iblock ktarget_core; do [ ! -e /sys/module/\$m ] || rmmod \$m || exit 1; done"
	rm -rf $DIR
	kt_dbus_stop
}

main
