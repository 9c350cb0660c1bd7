#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# QEMU's vhost-scsi-pci on ktarget_vhost, set up with targetcli as LIO's
# users do, once ktarget_core is loaded: a ramdisk LUN 0 and a fileio LUN 1
# with T10-PI of type 1 under /vhost/$WWN/tpg1, QEMU's device with
# t10_pi=on (the nested guest's sd takes LUN 1 as an integrity disk).
# The nested guest (lib-qemu.sh) writes and reads both; then clearconfig
# takes it all away and the modules unload.
. vhost-qemu/lib-qemu.sh

main() {
	local out start_mark

	plan $((9 + VQ_CHECKS))
	kmsg_mark
	start_mark=$KT_KMSG_MARK
	if ! command -v targetcli > /dev/null; then
		skip "targetcli" "targetcli-fb not installed" $((9 + VQ_CHECKS))
		return
	fi
	check "build the nested guest's initramfs" vq_initramfs
	# as at boot (modules-load.d, the admin guide): ktarget's core, not
	# LIO's, owns configfs target when targetcli starts
	check "modprobe ktarget_core (LIO's modules are not loaded)" sh -c "
		modprobe ktarget_core && ! grep -qE '^(target_core_mod|vhost_scsi) ' /proc/modules"
	export HOME=/root
	mkdir -p /root /run/dbus /etc/rtslib-fb-target
	rm -f $FIMG
	kt_dbus_start
	out=$(targetcli 2>&1 <<-EOT
	/backstores/ramdisk create vq_rd 64M
	/backstores/fileio create vq_f0 $FIMG 64M write_back=false
	/backstores/fileio/vq_f0 set attribute pi_prot_type=1
	/vhost create $WWN
	/vhost/$WWN/tpg1/luns create /backstores/ramdisk/vq_rd
	/vhost/$WWN/tpg1/luns create /backstores/fileio/vq_f0
	exit
	EOT
	)
	printf '%s\n' "$out" > /ktout/vhost-qemu-targetcli.log
	check "targetcli: vhost target, ramdisk LUN 0, fileio LUN 1, a nexus" sh -c "
		! grep -qiE 'error|Traceback' /ktout/vhost-qemu-targetcli.log &&
		test -d $KT_CFS/vhost/$WWN/tpgt_1/lun/lun_1 &&
		grep -q '^naa\.' $KT_CFS/vhost/$WWN/tpgt_1/nexus"
	check "ktarget_vhost serves /dev/vhost-scsi" sh -c "
		grep -q '^ktarget_vhost ' /proc/modules && ! grep -q '^vhost_scsi ' /proc/modules"
	check "/dev/vhost-scsi" vhost_dev

	# T10-PI: LUN 1 has type 1, QEMU offers the guest T10_PI, and the
	# guest's sd driver sends and checks the tuples through the rings
	VQ_DEV_OPTS=,t10_pi=on VQ_INTEG1=T10-DIF-TYPE1-CRC vhost_qemu_run ktarget

	check "targetcli clearconfig: the vhost target is gone" sh -c "
		targetcli clearconfig confirm=True >> /ktout/vhost-qemu-targetcli.log 2>&1 &&
		test ! -e $KT_CFS/vhost/$WWN"
	kt_dbus_stop
	# rtslib looked into every fabric: target/iscsi was made on the way
	rmdir $KT_CFS/iscsi 2>/dev/null
	grep -q '^ktarget_iscsi ' /proc/modules && rmmod ktarget_iscsi
	check "no object left" kt_objects_zero
	rmdir $KT_CFS/vhost 2>/dev/null
	check "rmmod the fabric, the backstores and the core" sh -c "
		rmmod ktarget_vhost && rmmod ktarget_fileio ktarget_rd &&
		{ rmmod ktarget_iblock 2>/dev/null; true; } && rmmod ktarget_core"
	rm -f $FIMG
	KT_KMSG_MARK=$start_mark
	check "the kernel log shows no finding" kt_kmsg_clean
}

main "$@"
