#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The vhost-scsi fabric (ktarget_vhost, LIO's vhost_scsi): set up with
# echo, an rd LUN and a fileio LUN are served through /dev/vhost-scsi to
# kt_vhost_client.c, a small VMM and virtio-scsi guest in one process: it
# sets the memory table, the rings and eventfds and the endpoint, runs
# INQUIRY, READ CAPACITY, WRITE and READ (data verified, split, indirect
# and shared buffers), REPORT LUNS, TMFs and AN queries on the control
# queue, is answered BAD_TARGET and FAILURE for bad addresses and headers,
# and breaks three queues with hostile chains (a loop, a buffer outside its
# memory, nested indirect tables) without harm to the others. With
# VIRTIO_SCSI_F_T10_PI negotiated, it reads and writes through the longer
# header, is refused PI lengths its buffers or 1 MiB do not allow, and
# gets the tuples a fabric_prot_type of 1 makes. A READ held
# by a slow LU is aborted, and CLEAR_ENDPOINT waits for another. A LUN
# unlinked under the endpoint reaches it as a hotplug event; the nexus
# cannot go while the endpoint holds the TPG, the TPG itself can; the
# module unloads. Then targetcli builds a vhost target as rtslib-fb writes
# it and the client runs against that.
. ./lib.sh

WWN=naa.5001405000000011
INIT=naa.5001405000000111
TPG=$KT_CFS/vhost/$WWN/tpgt_1
RD=$KT_CFS/core/rd_mcp_0/r0
FD=$KT_CFS/core/fileio_0/f0
FIMG=/tmp/kt-vhost-f0.img
CLIENT=/run/kt_vhost_client
READY=/tmp/kt-vhost-ready
# checks kt_vhost_client makes (KT_CHECKS), one more with -e or -H
NCLIENT=33
# checks kt_vhost_client -p 0 and -p 1 make (T10_PI)
NPI0=24
NPI1=27
LAST_LBA=131071

# client ARGS...: its TAP lines go to the runner; a client that hangs is
# killed, and its missing lines fail the file
client() {
	timeout -k 5 300 $CLIENT "$@"
}

# vhost_dev: /dev/vhost-scsi, made if no devtmpfs made it
vhost_dev() {
	local d=/sys/class/misc/vhost-scsi/dev
	[ -c /dev/vhost-scsi ] && return 0
	[ -r $d ] || return 1
	mknod /dev/vhost-scsi c $(tr ':' ' ' < $d)
}

targetcli_vhost() {
	local out tw

	if ! command -v targetcli >/dev/null; then
		skip "targetcli" "targetcli-fb not installed" $((NCLIENT + 4))
		return
	fi
	export HOME=/root
	mkdir -p /root /run/dbus /etc/rtslib-fb-target
	kt_dbus_start
	out=$(targetcli 2>&1 <<-EOF
	/backstores/ramdisk create tr0 16M
	/vhost create naa.5001405000000022
	/vhost/naa.5001405000000022/tpg1/luns create /backstores/ramdisk/tr0
	exit
	EOF
	)
	printf '%s\n' "$out" > /ktout/vhost-targetcli.log
	tw=naa.5001405000000022
	check "targetcli: vhost target, TPG 1, ramdisk LUN 0, no error" sh -c "
		! grep -qiE 'error|Traceback' /ktout/vhost-targetcli.log &&
		test -d $KT_CFS/vhost/$tw/tpgt_1/lun/lun_0"
	check "targetcli: rtslib wrote a naa. nexus" \
		grep -q '^naa\.' $KT_CFS/vhost/$tw/tpgt_1/nexus
	client $tw 1 0 32767
	check "targetcli clearconfig: the vhost target is gone" sh -c "
		targetcli clearconfig confirm=True >> /ktout/vhost-targetcli.log 2>&1 &&
		test ! -e $KT_CFS/vhost/$tw"
	# rtslib looked into every fabric: target/iscsi was made on the way
	rmdir $KT_CFS/iscsi 2>/dev/null
	grep -q '^ktarget_iscsi ' /proc/modules && rmmod ktarget_iscsi
	check "no object left after targetcli" kt_objects_zero
	kt_dbus_stop
}

# pi_luns: the client with VIRTIO_SCSI_F_T10_PI on LUN 0 (rd, which keeps
# no PI) through the nexus of fabric_prot_type 0 (RDPROTECT refused, the
# PI room of a READ left alone, hostile PI lengths), then through a nexus
# made again with fabric_prot_type 1 (PROT_EN, the tuples the core makes
# and checks), then the nexus of 0 again: fabric_prot_type is read when a
# nexus is made. Three checks and the client's.
pi_luns() {
	echo "# T10_PI on LUN 0 (rd, no PI), a nexus of fabric_prot_type 0"
	client -p 0 $WWN 1 0 $LAST_LBA
	check "fabric_prot_type 1, the nexus made again" sh -c "
		echo 1 > $TPG/attrib/fabric_prot_type &&
		echo NULL > $TPG/nexus && echo $INIT > $TPG/nexus &&
		test \"\$(cat $TPG/attrib/fabric_prot_type)\" = 1"
	echo "# T10_PI on LUN 0 (rd, no PI), a nexus of fabric_prot_type 1"
	client -p 1 $WWN 1 0 $LAST_LBA
	check "fabric_prot_type 0, the nexus made again" sh -c "
		echo 0 > $TPG/attrib/fabric_prot_type &&
		echo NULL > $TPG/nexus && echo $INIT > $TPG/nexus"
	check_eq "nexus reads back" "$(cat $TPG/nexus)" $INIT
}

# slow_lun: LUN 2 is an iblock LU over dm-delay, which holds each I/O
# SLOW seconds: a READ in flight is aborted (ABORT TASK), and
# CLEAR_ENDPOINT waits for one. Twenty checks.
SLOW=4
slow_lun() {
	local IB=$KT_CFS/core/iblock_0/b0

	check "LUN 2: iblock over dm-delay ($SLOW s)" sh -c "
		modprobe null_blk nr_devices=1 memory_backed=1 gb=1 bs=512 &&
		modprobe dm-delay &&
		DM_DISABLE_UDEV=1 dmsetup --noudevsync create kt-vhost-slow \
			--table '0 65536 delay /dev/nullb0 0 $((SLOW * 1000))' &&
		mkdir -p $IB && echo udev_path=/dev/mapper/kt-vhost-slow > $IB/control &&
		echo 1 > $IB/enable && mkdir $TPG/lun/lun_2 && ln -s $IB $TPG/lun/lun_2/b0"
	echo "# the client on LUN 2 (slow): ABORT TASK, CLEAR_ENDPOINT in flight"
	KT_VHOST_NEXUS=$TPG/nexus client -A $WWN 1 2 65535
	check "unlink LUN 2, remove the delay" sh -c "rm $TPG/lun/lun_2/b0 &&
		rmdir $TPG/lun/lun_2 $IB $KT_CFS/core/iblock_0 &&
		DM_DISABLE_UDEV=1 dmsetup --noudevsync remove kt-vhost-slow &&
		rmmod dm-delay null_blk"
}

main() {
	local pid st

	plan $((56 + 5 * NCLIENT + 2 + 3 + NPI0 + NPI1))
	kmsg_mark
	local start_mark=$KT_KMSG_MARK

	check "modprobe ktarget_core" modprobe ktarget_core
	check "rd device r0, 64 MiB" sh -c "mkdir -p $RD &&
		echo rd_pages=16384 > $RD/control && echo 1 > $RD/enable"
	check "fileio device f0, 64 MiB" sh -c "mkdir -p $FD &&
		echo fd_dev_name=$FIMG,fd_dev_size=67108864 > $FD/control &&
		echo 1 > $FD/enable"

	check "mkdir target/vhost" mkdir $KT_CFS/vhost
	check "ktarget_vhost was loaded on demand" grep -q '^ktarget_vhost ' /proc/modules
	check "vhost_scsi (LIO) was not" sh -c "! grep -q '^vhost_scsi ' /proc/modules"
	check "vhost/version" grep -q 'ktarget vhost' $KT_CFS/vhost/version
	check "/dev/vhost-scsi is ktarget's misc device" vhost_dev
	check_bad_mkdir "a WWN that is not naa., fc. or iqn. is refused" \
		$KT_CFS/vhost/eui.0011223344556677 "not a vhost target name"
	check "TPG with an rd LUN 0 and a fileio LUN 1" sh -c "
		mkdir -p $TPG/lun/lun_0 $TPG/lun/lun_1 &&
		ln -s $RD $TPG/lun/lun_0/r0 && ln -s $FD $TPG/lun/lun_1/f0"
	check_bad_mkdir "tpgt_256 is refused (one byte of target)" \
		$KT_CFS/vhost/$WWN/tpgt_256 "targets 1 to 255"
	check_eq "no nexus yet" "$(cat $TPG/nexus)" ""
	check_bad_write "an iqn. nexus on a naa. target is refused" $TPG/nexus \
		iqn.2026-11.org.ktarget:i "not of the target's type"
	check_bad_write "fabric_prot_type 2 is refused (type 2 needs 32-byte CDBs)" \
		$TPG/attrib/fabric_prot_type 2 "want 0, 1 or 3"
	check "write the nexus" write_attr $TPG/nexus $INIT
	check_eq "nexus reads back" "$(cat $TPG/nexus)" $INIT
	check "build kt_vhost_client" gcc -Wall -O2 -o $CLIENT kt_vhost_client.c

	echo "# the client on LUN 0 (rd)"
	client $WWN 1 0 $LAST_LBA
	echo "# the client on LUN 1 (fileio)"
	client $WWN 1 1 $LAST_LBA

	pi_luns

	slow_lun

	echo "# LUN 1 unlinked while the client holds the endpoint"
	rm -f $READY
	client -e -H $READY $WWN 1 1 $LAST_LBA &
	pid=$!
	check "the client is ready" kt_wait_for 240 test -e $READY
	check_bad_write "the nexus cannot go while an endpoint uses it" \
		$TPG/nexus NULL "clear the endpoint first"
	check "unlink LUN 1 under the endpoint" kt_within 60 rm $TPG/lun/lun_1/f0
	# the client's own timeout bounds the wait
	wait $pid
	check_eq "the client saw the event and ended well" "$?" 0

	echo "# the TPG removed while the client holds the endpoint"
	rm -f $READY
	client -H $READY $WWN 1 0 $LAST_LBA &
	pid=$!
	check "the client is ready" kt_wait_for 240 test -e $READY
	check "the TPG goes (LUNs, then the TPG) under the endpoint" \
		kt_within 60 sh -c "rm $TPG/lun/lun_0/r0 &&
		rmdir $TPG/lun/lun_0 $TPG/lun/lun_1 $TPG"
	rm -f $READY
	wait $pid
	check_eq "the client ended well" "$?" 0
	check "no object left (vhost devices, nexuses, commands, TMFs)" kt_objects_zero
	check "rmdir the WWN and the devices" sh -c "rmdir $KT_CFS/vhost/$WWN &&
		rmdir $RD $FD $KT_CFS/core/rd_mcp_0 $KT_CFS/core/fileio_0"

	# a client of a TPG with no nexus: SET_ENDPOINT finds nothing
	check "SET_ENDPOINT without a nexus fails" sh -c "
		mkdir -p $TPG && ! timeout 60 $CLIENT $WWN 1 0 0 > /dev/null &&
		rmdir $TPG $KT_CFS/vhost/$WWN"

	targetcli_vhost

	rmdir $KT_CFS/core/rd_mcp_* $KT_CFS/core/fileio_* 2>/dev/null
	check "rmdir target/vhost" rmdir $KT_CFS/vhost
	check "rmmod ktarget_vhost" rmmod ktarget_vhost
	check "/dev/vhost-scsi is gone" sh -c "! test -e /sys/class/misc/vhost-scsi"
	check "rmmod the backstores and the core" sh -c "
		rmmod ktarget_fileio ktarget_rd && { rmmod ktarget_iblock 2>/dev/null; true; } &&
		rmmod ktarget_core"
	rm -f $FIMG $CLIENT $READY
	KT_KMSG_MARK=$start_mark
	check "the kernel log shows no finding" kt_kmsg_clean
}

main "$@"
