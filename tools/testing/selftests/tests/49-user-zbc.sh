#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian's tcmu-runner's other file handlers on the user backstore,
# unchanged (issue 44): targetcli makes a user:zbc backstore (an emulated
# host-managed zoned disk in a file: 16 zones of 4 MiB, 2 conventional)
# and a user:fbo backstore (an emulated optical drive over an ISO 9660
# image) and exports them through the loopback fabric. The Linux sd
# driver takes the zoned disk as host-managed: blkzone reports its zones,
# a write at a sequential zone's write pointer moves it and reads back,
# a write elsewhere in that zone fails, a zone reset rewinds it. The sr
# driver takes the optical drive and the image mounts with its files.
# saveconfig and restoreconfig keep both.
. ./lib.sh
. ./user_lib.sh

WWN=naa.5001405000000302
TPG=$KT_CFS/loopback/$WWN/tpgt_1
ZBC=/run/kt-zbc.raw
SRC=/run/kt-fbo-src
ISO=/run/kt-fbo.iso
MNT=/run/kt-fbo-mnt
LOG=/ktout/user-zbc.log
CONF=/etc/modprobe.d/ktarget-lio-names.conf
RUNNER=
ZONE=8192		# sectors in a zone of 4 MiB

# zone_wp DISK N: the write pointer of zone N, in sectors from the start
zone_wp() {
	blkzone report -o $(($2 * ZONE)) -c 1 "$1" 2>>$LOG |
		sed -n 's/.*wptr 0x\([0-9a-f]*\).*/\1/p' | head -1 |
		{ read -r w; [ -n "$w" ] && echo $(($2 * ZONE + 16#$w)); }
}

# make_iso: an ISO 9660 image of two files
make_iso() {
	rm -rf $SRC && mkdir -p $SRC || return 1
	echo "ktarget user:fbo" > $SRC/readme.txt
	head -c 300000 /dev/urandom > $SRC/data.bin
	if command -v xorriso >/dev/null; then
		xorriso -as mkisofs -V KT_FBO -o $ISO $SRC >> $LOG 2>&1
	else
		python3 ./mkiso.py $ISO $SRC/readme.txt $SRC/data.bin
	fi
}

zoned_disk() {
	local d=$1 wp

	check_eq "the sd driver takes LUN 0 as host-managed" \
		"$(cat /sys/block/${d#/dev/}/queue/zoned 2>&1)" host-managed
	check_eq "blkzone report: 16 zones" \
		"$(blkzone report "$d" 2>>$LOG | grep -c 'start: ')" 16
	check_eq "zone 2 (the first sequential one) is empty: write pointer at its start" \
		"$(zone_wp "$d" 2)" $((2 * ZONE))
	head -c 1048576 /dev/urandom > /run/kt-zbc.pat
	check "a 1 MiB write at zone 2's write pointer" \
		dd if=/run/kt-zbc.pat of="$d" bs=1M seek=8 oflag=direct status=none
	check_eq "the write pointer moved by 2048 sectors" \
		"$(zone_wp "$d" 2)" $((2 * ZONE + 2048))
	check "the data reads back" sh -c "
		dd if=$d bs=1M skip=8 count=1 iflag=direct status=none | cmp - /run/kt-zbc.pat"
	check_fails "a write past the write pointer of zone 2 fails" \
		dd if=/run/kt-zbc.pat of="$d" bs=1M seek=10 count=1 oflag=direct status=none
	check "blkzone reset of zone 2" \
		blkzone reset -o $((2 * ZONE)) -c 1 "$d"
	check_eq "its write pointer is back at its start" \
		"$(zone_wp "$d" 2)" $((2 * ZONE))
	check "a write anywhere in conventional zone 0 works and reads back" sh -c "
		dd if=/run/kt-zbc.pat of=$d bs=4096 seek=100 count=16 oflag=direct status=none &&
		dd if=$d bs=4096 skip=100 count=16 iflag=direct status=none |
			cmp - /run/kt-zbc.pat -n 65536"
}

optical_drive() {
	local sr=$1

	check "the sr driver takes LUN 1: $sr" sh -c "echo '$sr' | grep -q '^/dev/sr'"
	check "the image mounts read-only with its files" sh -c "mkdir -p $MNT &&
		mount -o ro -t iso9660 $sr $MNT && cmp $MNT/readme.txt $SRC/readme.txt &&
		cmp $MNT/data.bin $SRC/data.bin"
	umount $MNT 2>/dev/null
}

main() {
	local out d0 d1 start_mark

	if ! command -v tcmu-runner >/dev/null || ! command -v targetcli >/dev/null ||
	   ! command -v blkzone >/dev/null; then
		skip_all "tcmu-runner, targetcli or blkzone not installed"
		return
	fi
	if [ ! -e /usr/lib/x86_64-linux-gnu/tcmu-runner/handler_file_zbc.so ]; then
		skip_all "tcmu-runner has no file_zbc handler"
		return
	fi
	plan 25
	: > $LOG
	kmsg_mark
	start_mark=$KT_KMSG_MARK
	user_env_up

	check "modprobe sd_mod, sr_mod and sg (no udev loads them here)" \
		sh -c "modprobe sd_mod && modprobe sr_mod && modprobe sg"
	runner_start
	check "tcmu-runner starts and is on D-Bus" runner_on_bus
	check "an ISO 9660 image" make_iso
	rm -f $ZBC
	out=$(targetcli 2>&1 <<-EOF
	/backstores/user:zbc create name=uz size=64M cfgstring=model-HM/zsize-4/conv-2@$ZBC
	/backstores/user:fbo create name=uo size=$(stat -c %s $ISO) cfgstring=$ISO
	/loopback create $WWN
	/loopback/$WWN/luns create /backstores/user:zbc/uz
	/loopback/$WWN/luns create /backstores/user:fbo/uo
	exit
	EOF
	)
	printf '%s\n' "$out" > $LOG.targetcli
	check "targetcli: user:zbc and user:fbo backstores on loopback, no error" \
		sh -c "! grep -qiE 'error|Traceback' $LOG.targetcli"
	check "tcmu-runner opened both devices" \
		kt_wait_for 20 bash -c "$(declare -f runner_has); RUNNER=$RUNNER;
		runner_has uz && runner_has uo || { ls -l /proc/$RUNNER/fd/; false; }"
	d0=$(user_disk 0)
	d1=$(user_disk 1)
	check "the disk of LUN 0 and the drive of LUN 1 appear" test -b "$d0" -a -b "$d1"
	out=$(sg_inq "${d0:-/dev/none}" 2>&1)
	echo "$out" >> $LOG
	check "sg_inq: the daemon's answer, a host-managed zoned device (PDT 0x14)" \
		output_has "$out" "PDT=20"
	zoned_disk "${d0:-/dev/none}"
	optical_drive "${d1:-/dev/none}"

	targetcli saveconfig /tmp/kt-user-zbc.json >> $LOG.targetcli 2>&1
	targetcli clearconfig confirm=True >> $LOG.targetcli 2>&1
	check "saveconfig keeps both; clearconfig removes them" sh -c "
		grep -q 'zbc/model-HM/zsize-4/conv-2@$ZBC' /tmp/kt-user-zbc.json &&
		grep -q 'fbo/$ISO' /tmp/kt-user-zbc.json && test ! -e $TPG"
	targetcli restoreconfig /tmp/kt-user-zbc.json >> $LOG.targetcli 2>&1
	d0=$(user_disk 0)
	d1=$(user_disk 1)
	check "restoreconfig: the zoned disk and the drive come back" \
		test -b "$d0" -a -b "$d1"
	check "the zoned disk kept its conventional zone's data" sh -c "
		dd if=$d0 bs=4096 skip=100 count=16 iflag=direct status=none |
			cmp - /run/kt-zbc.pat -n 65536"

	targetcli clearconfig confirm=True >> $LOG.targetcli 2>&1
	runner_kill
	rmdir $KT_CFS/iscsi 2>/dev/null
	check "no UIO device is left" sh -c "! grep -q tcm-user /sys/class/uio/uio*/name 2>/dev/null"
	rmdir $KT_CFS/core/user_* $KT_CFS/loopback 2>/dev/null
	grep -q '^ktarget_iscsi ' /proc/modules && rmmod ktarget_iscsi
	check "rmmod ktarget_loop ktarget_user and the core" sh -c "
		rmmod ktarget_loop && rmmod ktarget_user && rmmod ktarget_core"
	rm -rf $ZBC $ISO $SRC /run/kt-zbc.pat $CONF
	kt_dbus_stop
	KT_KMSG_MARK=$start_mark
	check "the kernel log shows no finding" kt_kmsg_clean
}

main "$@"
