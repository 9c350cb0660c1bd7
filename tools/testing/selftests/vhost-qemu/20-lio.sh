#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The same nested guest on LIO's vhost_scsi, set up with echo: what
# ktarget's result and times are measured against, and the proof that
# this QEMU under TCG drives kernel vhost-scsi at all.
. vhost-qemu/lib-qemu.sh

TPG=$KT_CFS/vhost/$WWN/tpgt_1
RD=$KT_CFS/core/rd_mcp_0/r0
FD=$KT_CFS/core/fileio_0/f0

main() {
	local start_mark m

	plan $((7 + VQ_CHECKS))
	kmsg_mark
	start_mark=$KT_KMSG_MARK
	if ! modinfo vhost_scsi > /dev/null 2>&1; then
		skip "LIO's vhost_scsi" "not in this kernel" $((7 + VQ_CHECKS))
		return
	fi
	check "build the nested guest's initramfs" vq_initramfs
	rm -f $FIMG
	check "modprobe target_core_mod vhost_scsi (LIO)" sh -c "
		modprobe target_core_mod && modprobe vhost_scsi &&
		! grep -q '^ktarget_' /proc/modules"
	check "rd LUN 0 and fileio LUN 1, a nexus (echo)" sh -c "
		mkdir -p $RD $FD && echo rd_pages=16384 > $RD/control &&
		echo 1 > $RD/enable &&
		echo fd_dev_name=$FIMG,fd_dev_size=67108864 > $FD/control &&
		echo 1 > $FD/enable &&
		mkdir -p $TPG/lun/lun_0 $TPG/lun/lun_1 &&
		ln -s $RD $TPG/lun/lun_0/r0 && ln -s $FD $TPG/lun/lun_1/f0 &&
		echo naa.5001405000000143 > $TPG/nexus"
	check "/dev/vhost-scsi" vhost_dev

	vhost_qemu_run lio

	# LIO drops a nexus only when no LUN is linked (EBUSY)
	check "tear down (LUNs, nexus, TPG, devices)" sh -c "
		rm $TPG/lun/lun_0/r0 $TPG/lun/lun_1/f0 &&
		rmdir $TPG/lun/lun_0 $TPG/lun/lun_1 && echo NULL > $TPG/nexus &&
		rmdir $TPG $KT_CFS/vhost/$WWN &&
		rmdir $RD $FD $KT_CFS/core/rd_mcp_0 $KT_CFS/core/fileio_0"
	# target/vhost holds LIO's fabric module while it exists
	check "unload LIO" sh -c "
		rmdir $KT_CFS/vhost && rmmod vhost_scsi && for m in target_core_file target_core_iblock \
			target_core_pscsi target_core_user target_core_mod vhost vhost_iotlb; do
			! grep -q \"^\$m \" /proc/modules || rmmod \$m || exit 1; done"
	rm -f $FIMG
	KT_KMSG_MARK=$start_mark
	check "the kernel log shows no finding" kt_kmsg_clean
}

main "$@"
