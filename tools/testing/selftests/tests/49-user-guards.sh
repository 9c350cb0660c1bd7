#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The core's guards around a user (passthrough) LU, over iSCSI with
# tcmu-runner serving a user:qcow LU next to a fileio LU: an EXTENDED COPY
# sent to the fileio LU that names the user LU as its destination ends in
# COPY ABORTED (the core never reads or writes a passthrough LU's blocks
# itself); with the TPG's demo_mode_write_protect a WRITE to the user LU
# ends in DATA PROTECT and the image keeps its data, while READs still
# work; a READ longer than hw_max_sectors blocks is refused with INVALID
# FIELD IN CDB before any buffer is allocated for it; a control write
# that names a key fixed once enabled applies none of its keys;
# tmr_notification 1 is refused (CAP_TMR is not offered). About a
# minute.
. ./lib.sh

TPG=$KT_CFS/iscsi/$KT_IQN/tpgt_1
P=127.0.0.1:3260
IMGS=/tmp/kt-userg
FS=/run/kt-userg.ext4
RAW=$IMGS/raw.img
FILE=/tmp/kt-userg-fileio.img
UDEV=$KT_CFS/core/user_0/ug
FDEV=$KT_CFS/core/fileio_0/fg
CONF=/etc/modprobe.d/ktarget-lio-names.conf
LOG=/ktout/user-guards.log
RUNNER=

runner_on_bus() {
	dbus-send --system --print-reply --dest=org.freedesktop.DBus / \
		org.freedesktop.DBus.ListNames 2>/dev/null | grep -q TCMUService1
}

serial_of() {
	sed 's/^T10 VPD Unit Serial Number: //' $1/wwn/vpd_unit_serial
}

# naa_of_serial NAA ADD SERIAL: the NAA designator ktarget gives the LU of
# SERIAL whose device index is NAA's plus ADD
naa_of_serial() {
	python3 -c '
import sys
f, add, s = bytes.fromhex(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
h = 0xcbf29ce484222325
for c in s.encode():
    h = ((h ^ c) * 0x100000001b3) & (2**64 - 1)
h &= 0xfffffffff
dev = int.from_bytes(f[8:16], "big") + add
n = bytes([f[0], f[1], f[2], (f[3] & 0xf0) | h >> 32])
print((n + (h & 0xffffffff).to_bytes(4, "big") + dev.to_bytes(8, "big")).hex())
' "$@" 2>/dev/null
}

teardown() {
	iscsiadm -m node --logoutall=all >/dev/null 2>&1
	iscsiadm -m node -o delete >/dev/null 2>&1
	rm -f $TPG/lun/lun_1/d $TPG/lun/lun_2/d
	rmdir $TPG/lun/lun_1 $TPG/lun/lun_2 2>/dev/null
	rmdir $UDEV $FDEV $KT_CFS/core/user_0 $KT_CFS/core/fileio_0 2>/dev/null
	[ -n "$RUNNER" ] && kill $RUNNER 2>/dev/null && wait $RUNNER 2>/dev/null
	kt_iscsi_teardown
	umount $IMGS 2>/dev/null
	rm -f $FS $FILE $CONF /tmp/kt-userg-*
	kt_dbus_stop
}

main() {
	local out df gf gu du fnaa unaa start_mark

	for t in tcmu-runner qemu-img sg_xcopy sg_raw; do
		command -v $t >/dev/null || { skip_all "$t not installed"; return; }
	done
	plan 27
	kmsg_mark
	start_mark=$KT_KMSG_MARK
	export HOME=/root
	mkdir -p /root /run/dbus /etc/modprobe.d
	kt_dbus_start
	cp ../../../tools/ktarget-lio-names.modprobe.conf $CONF

	check "modprobe sg" modprobe sg
	check "target set up" kt_iscsi_setup
	check "fileio LU 1" kt_export_lun 1 fileio_0/fg \
		fd_dev_name=$FILE,fd_dev_size=67108864
	check "a 64 MiB raw image on ext4" sh -c "
		modprobe loop && mkdir -p $IMGS && truncate -s 128M $FS &&
		mkfs.ext4 -q -F $FS && mount -o loop $FS $IMGS &&
		qemu-img create -q -f raw $RAW 64M"
	mkdir -p /ktout/tcmu-runner
	tcmu-runner -l /ktout/tcmu-runner >> $LOG.runner 2>&1 &
	RUNNER=$!
	check "tcmu-runner starts" kt_wait_for 30 runner_on_bus
	check "user LU 2 over the image" sh -c "mkdir -p $UDEV &&
		echo dev_config=qcow/$RAW,dev_size=67108864 > $UDEV/control &&
		echo 1 > $UDEV/enable && mkdir $TPG/lun/lun_2 &&
		ln -s $UDEV $TPG/lun/lun_2/d"
	check "iscsid starts" kt_iscsid_start
	iscsiadm -m discovery -t st -p $P >/dev/null 2>&1
	check "login" iscsiadm -m node -T $KT_IQN -p $P --login
	df=$(kt_lun_disk 1)
	gf=$(sg_of "${df:-none}")
	du=$(kt_lun_disk 2)
	gu=$(sg_of "${du:-none}")
	check "sg nodes of the fileio and the user LU" test -c "$gf" -a -c "$gu"

	# EXTENDED COPY: fileio -> user LU, sent to the fileio LU. sg_xcopy
	# names the user LU by the daemon's NAA designator, which is not the
	# one ktarget gives it; a crafted list names it by ktarget's (NAA 6:
	# company id, FNV-1a of the serial, device index + 1, proto/spc.c)
	head -c 1048576 /dev/urandom > /tmp/kt-userg-pat
	dd if=/tmp/kt-userg-pat of=$du bs=1M oflag=direct status=none
	out=$(timeout 60 sg_xcopy if=${gf:-none} of=${gu:-none} bs=512 count=256 2>&1)
	printf '%s\n' "$out" > $LOG.sg_xcopy
	check "sg_xcopy fileio -> user LU fails" output_has "$out" "failed"
	fnaa=$(python3 ./xcopy.py naa ${df:-none} 2>/dev/null)
	check_eq "the fileio LU's NAA is ktarget's formula" \
		"$(naa_of_serial "$fnaa" 0 "$(serial_of $FDEV)")" "$fnaa"
	unaa=$(naa_of_serial "$fnaa" 1 "$(serial_of $UDEV)")
	out=$(timeout 60 python3 ./xcopy.py copy ${df:-none} ${df:-none} \
		naa:${unaa:-00} -- 0:1:256:0:0 2>&1)
	printf '%s\n' "$out" > $LOG.xcopy
	check "EXTENDED COPY naming the user LU: COPY ABORTED, unreachable copy target" \
		output_has "$out" "Copy Aborted" "Copy target device not reachable"
	check "the user LU's data is unchanged" cmp -n 1048576 /tmp/kt-userg-pat $RAW
	check "the kernel is alive: the user LU answers TEST UNIT READY" \
		sg_turs ${gu:-none}

	# write protection of the nexus (the TPG's demo mode)
	echo 1 > $TPG/attrib/demo_mode_write_protect
	head -c 512 /dev/urandom > /tmp/kt-userg-blk
	out=$(sg_raw -s 512 -i /tmp/kt-userg-blk ${gu:-none} \
		2a 00 00 00 00 00 00 00 01 00 2>&1)
	printf '%s\n' "$out" > $LOG.wp
	check "write-protected nexus: WRITE(10) to the user LU is DATA PROTECT" \
		output_has "$out" "Data Protect"
	check "the image keeps its data" cmp -n 1048576 /tmp/kt-userg-pat $RAW
	check "a READ(10) still works" sg_raw -r 512 ${gu:-none} \
		28 00 00 00 00 00 00 00 01 00
	echo 0 > $TPG/attrib/demo_mode_write_protect

	# transfer length beyond hw_max_sectors (128 blocks of 512 bytes)
	out=$(sg_raw -r 1048576 ${gu:-none} 28 00 00 00 00 00 00 08 00 00 2>&1)
	printf '%s\n' "$out" > $LOG.len
	check "a READ(10) of 2048 blocks (hw_max_sectors 128): INVALID FIELD IN CDB" \
		output_has "$out" "Illegal Request" "Invalid field in cdb"
	check "a READ(10) of 128 blocks works" sg_raw -r 65536 ${gu:-none} \
		28 00 00 00 00 00 00 00 80 00

	# a control write on the enabled device: a fixed key refuses it all
	check_fails "control dev_size=,hw_block_size= on the enabled device fails" \
		sh -c "echo dev_size=$((96 << 20)),hw_block_size=4096 > $UDEV/control"
	check "and applied nothing: the size is still 64 MiB" \
		grep -q "Size: 67108864 " $UDEV/info

	check_bad_write "attrib/tmr_notification 1 is refused (no CAP_TMR)" \
		$UDEV/attrib/tmr_notification 1 "task management notifications are not offered"
	check "attrib/tmr_notification 0 is taken" \
		write_attr $UDEV/attrib/tmr_notification 0

	# no CD/DVD over a passthrough device: its daemon answers its commands
	iscsiadm -m node --logoutall=all >/dev/null 2>&1
	rm -f $TPG/lun/lun_2/d
	check_bad_write "attrib/emulate_cdrom 1 on the unexported user device is refused" \
		$UDEV/attrib/emulate_cdrom 1 "passes commands through to its own device server"

	teardown
	check "no user device is left" sh -c "! test -e $UDEV"
	check "rmmod ktarget_iscsi, ktarget_user and the backstores" \
		rmmod ktarget_iscsi ktarget_user ktarget_fileio ktarget_rd
	KT_KMSG_MARK=$start_mark
	check "the kernel log shows no finding" kt_kmsg_clean
}

main "$@"
