#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What LIO gained after 6.1 (issue 45, part 1), through the loopback fabric
# (local sd disks for sg3_utils) and open-iscsi:
#
# - iblock's exclusive= (LIO 6.17): exclusive=0 opens the block device
#   with no holder, so a second exclusive=0 LU and a read-only mount of it
#   are not refused; exclusive=1 (the default) claims it, and a mount is
#   refused; info says "exclusive: N"; control is fixed while enabled.
# - FUA with the write cache off: a WRITE with FUA to a LU with WCE=0
#   succeeds even where DPOFUA is 0 (UEFI firmware sends it); with WCE=1
#   and DPOFUA=0 it stays an invalid field, as in LIO.
# - REPORT IDENTIFYING INFORMATION (A3h/05h) with wwn/pd_text_id_info:
#   sg_ident reads the text back, sg_opcodes lists the command, the
#   attribute is fixed while the LU is exported and bounded in length.
# - attrib/submit_type and complete_type (0 the fabric's default, 1
#   direct, 2 through a core workqueue) and each fabric WWN's read-only
#   param/default_submit_type, direct_submit_supported,
#   default_complete_type, direct_complete_supported: bad values refused,
#   the workqueue hop seen (or not) in the workqueue tracepoint, and fio
#   verifies in each mode over loopback and over open-iscsi.
# - A PREEMPT that only removes registrations ignores TYPE and SCOPE
#   (SPC-4 5.13.11.4.3, LIO's fix); one that takes the reservation checks
#   them (sg_persist between two loopback nexuses).
. ./lib.sh

WWN=naa.5001405000000051
INIT=naa.5001405000000151
TPG=$KT_CFS/loopback/$WWN/tpgt_1
RD=$KT_CFS/core/rd_mcp_0/r0
IB=$KT_CFS/core/iblock_0
LOG=/ktout/lio-parity.log
TR=/sys/kernel/tracing

# loop_disk LUN: the sd disk of LUN on the nexus's host, within 20 s
loop_disk() { kt_loop_disk "$TPG" "$1"; }

# fails_with PATTERN CMD...: CMD fails and its output (sg3_utils' sense
# decoding) names PATTERN
fails_with() {
	local p=$1 out
	shift
	out=$("$@" 2>&1) && return 1
	printf '%s\n' "$out" | grep -qi -- "$p" && return 0
	printf '%s\n' "$out" | sed 's/^/# /' >&2
	return 1
}

# write_errno FILE VALUE TEXT: the write fails with the error whose
# strerror is TEXT
write_errno() {
	local out
	out=$( (echo "$2" > "$1") 2>&1) && return 1
	output_has "$out" "$3"
}

# tur_good DISK: TEST UNIT READY until GOOD, each pending unit attention
# taken by one, at most 10 tries
tur_good() {
	local i
	for i in $(seq 1 10); do
		sg_turs "$1" >/dev/null 2>&1 && return 0
	done
	return 1
}

# ---- iblock exclusive= ----
iblock_exclusive() {
	check "brd RAM disk with an ext4 file system" sh -c "
		modprobe brd rd_nr=1 rd_size=65536 && mkfs.ext4 -q -F /dev/ram0"
	check "b0: control udev_path=/dev/ram0,exclusive=0" sh -c "mkdir -p $IB/b0 &&
		echo udev_path=/dev/ram0,exclusive=0 > $IB/b0/control"
	check "b0 enables" write_attr $IB/b0/enable 1
	check "b0's info says exclusive: 0" grep -q 'exclusive: 0' $IB/b0/info
	check "b1: a second exclusive=0 LU on the same device enables" sh -c "
		mkdir -p $IB/b1 && echo udev_path=/dev/ram0,exclusive=0 > $IB/b1/control &&
		echo 1 > $IB/b1/enable"
	check "a read-only mount of the shared device is not refused" sh -c "
		mkdir -p /mnt/kt-ex && mount -o ro /dev/ram0 /mnt/kt-ex && umount /mnt/kt-ex"
	check_bad_write "exclusive cannot change while enabled" $IB/b0/control \
		exclusive=1 "device is enabled, parameters are fixed"
	check "b0 and b1 go" rmdir $IB/b0 $IB/b1
	check "b2: exclusive=1 (the default) enables" sh -c "mkdir -p $IB/b2 &&
		echo udev_path=/dev/ram0 > $IB/b2/control && echo 1 > $IB/b2/enable"
	check "b2's info says exclusive: 1" grep -q 'exclusive: 1' $IB/b2/info
	check_fails "a mount of the claimed device is refused" \
		mount -o ro /dev/ram0 /mnt/kt-ex
	check "b3: a second exclusive=1 LU on it does not enable" sh -c "
		mkdir -p $IB/b3 && echo udev_path=/dev/ram0 > $IB/b3/control &&
		! echo 1 > $IB/b3/enable"
	check_bad_write "exclusive=2 is refused" $IB/b3/control exclusive=2 \
		"bad value '2' for exclusive"
	check "b2 and b3 go, then the RAM disk" sh -c "rmdir $IB/b2 $IB/b3 $IB &&
		{ rmmod brd 2>/dev/null || true; }"
}

# ---- FUA with the write cache off ----
# fua_write SG OPCODE: one block of /tmp/kt-blk written at LBA 8 with FUA
fua_write() {
	case $2 in
	10) sg_raw -s 512 -i /tmp/kt-blk $1 2a 08 00 00 00 08 00 00 01 00 ;;
	16) sg_raw -s 512 -i /tmp/kt-blk $1 8a 08 00 00 00 00 00 00 00 08 \
		00 00 00 01 00 00 ;;
	esac
}

fua_without_wce() {
	local d0=$1 sg

	sg=$(sg_of "$d0")
	head -c 512 /dev/urandom > /tmp/kt-blk
	echo 0 > $RD/attrib/emulate_write_cache
	echo 0 > $RD/attrib/emulate_fua_write
	check "WCE=0, DPOFUA=0: WRITE (10) with FUA succeeds" fua_write "$sg" 10
	check "WCE=0, DPOFUA=0: WRITE (16) with FUA succeeds" fua_write "$sg" 16
	check "... and the block reads back" bash -c "
		cmp <(dd if=$d0 bs=512 skip=8 count=1 iflag=direct status=none) /tmp/kt-blk"
	echo 1 > $RD/attrib/emulate_write_cache
	check "WCE=1, DPOFUA=0: WRITE (10) with FUA is INVALID FIELD IN CDB, as in LIO" \
		fails_with "invalid field in cdb" fua_write "$sg" 10
	echo 1 > $RD/attrib/emulate_fua_write
	check "WCE=1, DPOFUA=1: WRITE (10) with FUA succeeds" fua_write "$sg" 10
	echo 0 > $RD/attrib/emulate_write_cache
	check "WCE=0, DPOFUA=1: WRITE (10) with FUA succeeds" fua_write "$sg" 10
}

# ---- REPORT IDENTIFYING INFORMATION ----
# pd_text_before_export: set while the LU is not exported yet
pd_text_before_export() {
	check "wwn/pd_text_id_info exists and reads empty" \
		test -e $RD/wwn/pd_text_id_info -a -z "$(cat $RD/wwn/pd_text_id_info 2>/dev/null)"
	check "pd_text_id_info takes a text" \
		write_attr $RD/wwn/pd_text_id_info "rack 7 shelf 2 ktarget lab"
	check_eq "and reads it back" "$(cat $RD/wwn/pd_text_id_info 2>&1)" \
		"rack 7 shelf 2 ktarget lab"
	check_bad_write "256 bytes are refused" $RD/wwn/pd_text_id_info \
		"$(printf 'x%.0s' $(seq 1 256))" "pd_text_id_info: 256 bytes"
	check "... with EOVERFLOW, as LIO" write_errno $RD/wwn/pd_text_id_info \
		"$(printf 'x%.0s' $(seq 1 256))" "Value too large"
	check "255 bytes, the most, are taken and read back" sh -c "
		echo $(printf 'y%.0s' $(seq 1 255)) > $RD/wwn/pd_text_id_info &&
		test \"\$(cat $RD/wwn/pd_text_id_info)\" = $(printf 'y%.0s' $(seq 1 255))"
	check "leading and trailing blanks are stripped, as LIO's strstrip()" \
		write_attr $RD/wwn/pd_text_id_info "  rack 7 shelf 2 ktarget lab	 "
	check_eq "... and it reads back without them" \
		"$(cat $RD/wwn/pd_text_id_info 2>&1)" "rack 7 shelf 2 ktarget lab"
}

report_identifying_info() {
	local d0=$1 sg out

	sg=$(sg_of "$d0")
	out=$(sg_ident -i 2 -A "$d0" 2>&1)
	echo "$out" | sed 's/^/# /'
	check "sg_ident -i 2: the peripheral device text identifying information" \
		output_has "$out" "rack 7 shelf 2 ktarget lab"
	check "sg_ident -i 0: empty identifying information, no error" sg_ident "$d0"
	check_fails "sg_ident -i 3: an information type not offered is refused" \
		sg_ident -i 3 "$d0"
	out=$(sg_opcodes -o 0xa3 -s 5 "$sg" 2>&1)
	echo "$out" | sed 's/^/# /'
	check "sg_opcodes lists REPORT IDENTIFYING INFORMATION (a3h/05h)" \
		output_has "$out" "Command is supported" "Usage data: a3 05 00 00 00 00 ff ff ff ff fe 00"
	check_bad_write "pd_text_id_info is fixed while the LU is exported" \
		$RD/wwn/pd_text_id_info "other" "exported"
	check "... with EINVAL, as LIO" write_errno $RD/wwn/pd_text_id_info \
		other "Invalid argument"
}

# ---- PREEMPT that only removes registrations ignores TYPE and SCOPE ----
# A second TPG's nexus reaches the rd LU as its LUN 1: two I_T nexuses
pr_preempt_type() {
	local d0=$1 tpg2=$KT_CFS/loopback/$WWN/tpgt_2 a d d1= i

	check "a second TPG and nexus, the rd LU as its LUN 1" sh -c "
		mkdir -p $tpg2 && echo naa.5001405000000251 > $tpg2/nexus &&
		mkdir $tpg2/lun/lun_1 && ln -s $RD $tpg2/lun/lun_1/r0"
	for i in $(seq 1 100); do
		a=$(cat $tpg2/address 2>/dev/null)
		for d in /sys/bus/scsi/devices/$a:1/block/*; do
			[ -n "$a" ] && [ -b "/dev/${d##*/}" ] && d1=/dev/${d##*/}
		done
		[ -n "$d1" ] && break
		sleep 0.2
	done
	check "both nexuses register (keys a and b)" sh -c "
		sg_persist -n --out --register --param-sark=0xa $d0 &&
		sg_persist -n --out --register --param-sark=0xb ${d1:-none}"
	check "PREEMPT of key b with no reservation and TYPE 0: b's registration goes" \
		sg_persist -n --out --preempt --param-rk=0xa --param-sark=0xb \
			--prout-type=0 $d0
	check "only key a is left" sh -c "out=\$(sg_persist -n --in --read-keys $d0) &&
		echo \"\$out\" | grep -q 0xa && ! echo \"\$out\" | grep -q 0xb"
	check "b's nexus takes its unit attention (REGISTRATIONS PREEMPTED)" \
		tur_good ${d1:-none}
	check "b registers again and reserves (Write Exclusive)" sh -c "
		sg_persist -n --out --register --param-sark=0xb ${d1:-none} &&
		sg_persist -n --out --reserve --param-rk=0xb --prout-type=1 ${d1:-none}"
	check "PREEMPT of the holder with TYPE 0: INVALID FIELD IN CDB (it reserves)" \
		fails_with "invalid field in cdb" sg_persist -v -n --out --preempt \
			--param-rk=0xa --param-sark=0xb --prout-type=0 $d0
	check "PREEMPT with SARK 0 and TYPE 0: INVALID FIELD IN CDB before the SARK" \
		fails_with "invalid field in cdb" sg_persist -v -n --out --preempt \
			--param-rk=0xa --param-sark=0 --prout-type=0 $d0
	check "PREEMPT of the holder with TYPE 1 moves the reservation" sh -c "
		sg_persist -n --out --preempt --param-rk=0xa --param-sark=0xb \
			--prout-type=1 $d0 &&
		sg_persist -n --in --read-reservation $d0 | grep -q 0xa"
	check "cleared; the second TPG goes with its nexus" sh -c "
		sg_persist -n --out --clear --param-rk=0xa $d0 &&
		echo NULL > $tpg2/nexus && rm $tpg2/lun/lun_1/r0 &&
		rmdir $tpg2/lun/lun_1 $tpg2"
}

# ---- submit_type and complete_type ----
param_files() {
	local w=$1 f
	for f in default_submit_type direct_submit_supported \
		 default_complete_type direct_complete_supported; do
		printf '%s=%s ' $f "$(cat $w/param/$f 2>/dev/null)"
	done
}

# hops FUNCTION CMD...: how many work items of FUNCTION were queued
# while CMD ran (the workqueue_queue_work tracepoint)
hops() {
	local fn=$1 n
	shift
	echo 0 > $TR/tracing_on
	echo > $TR/trace
	echo 1 > $TR/events/workqueue/workqueue_queue_work/enable
	echo 1 > $TR/tracing_on
	"$@" >/dev/null 2>&1
	echo 0 > $TR/tracing_on
	n=$(grep -c "function=$fn " $TR/trace)
	echo 0 > $TR/events/workqueue/workqueue_queue_work/enable
	echo "$n"
}

read_some() {
	dd if=$1 of=/dev/null bs=4k count=64 iflag=direct status=none
}

submit_types() {
	local d0=$1 s c n mounted=

	check_eq "attrib/submit_type reads 0 (the fabric's default)" \
		"$(cat $RD/attrib/submit_type 2>&1)" 0
	check_eq "attrib/complete_type reads 0" "$(cat $RD/attrib/complete_type 2>&1)" 0
	check_bad_write "submit_type 3 is refused" $RD/attrib/submit_type 3 \
		"attrib/submit_type: 3 is out of range 0..2"
	check_bad_write "complete_type 3 is refused" $RD/attrib/complete_type 3 \
		"attrib/complete_type: 3 is out of range 0..2"
	check_eq "loopback WWN param/: direct submission and completion by default" \
		"$(param_files $KT_CFS/loopback/$WWN)" \
		"default_submit_type=1 direct_submit_supported=1 default_complete_type=1 direct_complete_supported=1 "
	check_fails "param/default_submit_type is read-only" \
		write_attr $KT_CFS/loopback/$WWN/param/default_submit_type 2

	if [ ! -e $TR/events/workqueue ] &&
	   mount -t tracefs nodev $TR 2>/dev/null; then
		mounted=1
	fi
	if [ -e $TR/events/workqueue/workqueue_queue_work ]; then
		echo 2 > $RD/attrib/submit_type
		n=$(hops kt_cmd_submit_work read_some "$d0")
		check "submit_type 2: every command takes the core's workqueue hop ($n)" \
			test "$n" -ge 64
		echo 1 > $RD/attrib/submit_type
		n=$(hops kt_cmd_submit_work read_some "$d0")
		check_eq "submit_type 1: none does" "$n" 0
		echo 2 > $RD/attrib/complete_type
		n=$(hops kt_cmd_complete_work read_some "$d0")
		check "complete_type 2: every completion takes the hop ($n)" \
			test "$n" -ge 64
		echo 0 > $RD/attrib/complete_type
		n=$(hops kt_cmd_complete_work read_some "$d0")
		check_eq "complete_type 0 (the fabric's direct): none does" "$n" 0
	else
		skip "the workqueue hops" "no workqueue tracepoint" 4
	fi
	[ -z "$mounted" ] || umount $TR
	for s in 0 1 2; do
		c=$(( (s + 2) % 3 ))
		echo $s > $RD/attrib/submit_type
		echo $c > $RD/attrib/complete_type
		check "loopback, submit_type $s complete_type $c: fio verifies (4 s)" \
			fio_verify "$d0" st$s --rw=randrw --bs=4k --size=16m \
				--time_based --runtime=4 --verify_backlog=128
	done
	echo 0 > $RD/attrib/submit_type
	echo 0 > $RD/attrib/complete_type
}

# submit_types_iscsi: the same LU behind an iSCSI target, fio through
# open-iscsi in each submission mode
submit_types_iscsi() {
	local tpg=$KT_CFS/iscsi/$KT_IQN/tpgt_1 p=127.0.0.1:3260 d s

	check "iSCSI target with the rd LU" sh -c "modprobe ktarget_iscsi &&
		mkdir -p $tpg/lun/lun_0 && ln -s $RD $tpg/lun/lun_0/r0 &&
		mkdir $tpg/np/$p && echo 0 > $tpg/attrib/authentication &&
		echo 1 > $tpg/attrib/generate_node_acls &&
		echo 0 > $tpg/attrib/demo_mode_write_protect && echo 1 > $tpg/enable"
	check_eq "iSCSI WWN param/: direct submission and completion by default" \
		"$(param_files $KT_CFS/iscsi/$KT_IQN)" \
		"default_submit_type=1 direct_submit_supported=1 default_complete_type=1 direct_complete_supported=1 "
	check "iscsid starts" kt_iscsid_start
	iscsiadm -m discovery -t st -p $p >/dev/null 2>&1
	check "login" iscsiadm -m node -T $KT_IQN -p $p --login
	d=$(kt_lun_disk 0)
	for s in 1 2; do
		echo $s > $RD/attrib/submit_type
		echo $s > $RD/attrib/complete_type
		check "open-iscsi, submit_type $s complete_type $s: fio verifies (4 s)" \
			fio_verify "${d:-none}" is$s --rw=randrw --bs=4k --size=16m \
				--time_based --runtime=4 --verify_backlog=128
	done
	echo 0 > $RD/attrib/submit_type
	echo 0 > $RD/attrib/complete_type
	iscsiadm -m node -T $KT_IQN -p $p --logout >/dev/null 2>&1
	iscsiadm -m node -o delete >/dev/null 2>&1
	check "the iSCSI target goes" sh -c "echo 0 > $tpg/enable &&
		rmdir $tpg/np/$p && rm $tpg/lun/lun_0/r0 && rmdir $tpg/lun/lun_0 $tpg &&
		rmdir $KT_CFS/iscsi/$KT_IQN $KT_CFS/iscsi"
}

main() {
	local start_mark d0

	plan 73
	kmsg_mark
	start_mark=$KT_KMSG_MARK
	check "modprobe ktarget_core, sd_mod and sg (no udev loads them here)" \
		sh -c "modprobe ktarget_core && modprobe sd_mod && modprobe sg"
	iblock_exclusive

	check "rd LU" sh -c "mkdir -p $RD && echo rd_pages=16384 > $RD/control &&
		echo 1 > $RD/enable"
	pd_text_before_export
	check "loopback TPG with the rd LU as LUN 0, and a nexus" sh -c "
		mkdir -p $TPG/lun/lun_0 && ln -s $RD $TPG/lun/lun_0/r0 &&
		echo $INIT > $TPG/nexus"
	d0=$(loop_disk 0)
	check "LUN 0 is an sd disk" test -b "$d0"
	fua_without_wce "$d0"
	report_identifying_info "$d0"
	pr_preempt_type "$d0"
	submit_types "$d0"
	submit_types_iscsi

	check "the loopback target goes" sh -c "echo NULL > $TPG/nexus &&
		rm $TPG/lun/lun_0/r0 && rmdir $TPG/lun/lun_0 $TPG $KT_CFS/loopback/$WWN &&
		rmdir $KT_CFS/loopback"
	check "no object left" kt_objects_zero
	check "rmdir the rd LU" rmdir $RD $KT_CFS/core/rd_mcp_0
	check "rmmod the modules" sh -c "rmmod ktarget_loop ktarget_iscsi 2>/dev/null;
		rmmod ktarget_iblock ktarget_rd ktarget_core 2>/dev/null;
		! grep -q '^ktarget' /proc/modules"
	KT_KMSG_MARK=$start_mark
	check "the kernel log shows no finding" kt_kmsg_clean
}

main "$@"
