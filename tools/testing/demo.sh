#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`, inside the guest: load ktarget, build an iSCSI target with a
# ramdisk and a fileio LUN through configfs (plain mkdir/echo, as an admin
# or targetcli would), use it with libiscsi and the Linux initiator, and
# copy one LUN onto the other with EXTENDED COPY inside the target.

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

# sg_node DISK: its SCSI generic node (sg_xcopy addresses those)
sg_node() {
	local g
	for g in /sys/block/${1#/dev/}/device/scsi_generic/*; do
		[ -c /dev/${g##*/} ] || mknod /dev/${g##*/} c $(tr ':' ' ' < $g/dev)
		echo /dev/${g##*/}
	done
}

main() {
	local cfs=/sys/kernel/config/target iqn=iqn.2026-11.org.ktarget:demo
	local tpg=$cfs/iscsi/$iqn/tpgt_1 disk disk0 d sg0 sg1 st

	step "Load ktarget's core (the guest runs Debian's $(uname -r))"
	run modprobe ktarget_core || return 1
	run cat $cfs/version

	step "Two backstores: 64 MiB of RAM and a 64 MiB file (modules load on demand)"
	run mkdir -p $cfs/core/rd_mcp_0/ram0 $cfs/core/fileio_0/file0
	run sh -c "echo rd_pages=16384 > $cfs/core/rd_mcp_0/ram0/control"
	run sh -c "echo 1 > $cfs/core/rd_mcp_0/ram0/enable"
	run sh -c "echo fd_dev_name=/tmp/demo.img,fd_dev_size=67108864 > $cfs/core/fileio_0/file0/control"
	run sh -c "echo 1 > $cfs/core/fileio_0/file0/enable"
	run cat $cfs/core/fileio_0/file0/info

	step "An iSCSI target with both as LUNs, on 127.0.0.1:3260"
	run mkdir -p $tpg/lun/lun_0 $tpg/lun/lun_1
	run ln -s $cfs/core/rd_mcp_0/ram0 $tpg/lun/lun_0/ram0
	run ln -s $cfs/core/fileio_0/file0 $tpg/lun/lun_1/file0
	run mkdir $tpg/np/127.0.0.1:3260
	run sh -c "echo 0 > $tpg/attrib/authentication; echo 1 > $tpg/attrib/generate_node_acls"
	run sh -c "echo 0 > $tpg/attrib/demo_mode_write_protect; echo 1 > $tpg/enable"
	run lsmod | grep -E '^ktarget'
	run find $cfs/iscsi -maxdepth 5 -path '*lun_*' -type l

	step "libiscsi: discovery, INQUIRY, READ CAPACITY"
	run iscsi-ls -s iscsi://127.0.0.1:3260
	run iscsi-inq iscsi://127.0.0.1:3260/$iqn/0
	run iscsi-readcapacity16 iscsi://127.0.0.1:3260/$iqn/1

	step "The Linux initiator: login, mkfs.ext4, a file and its checksum"
	modprobe iscsi_tcp; modprobe sd_mod
	mkdir -p /etc/iscsi /run/lock/iscsi /var/lib/iscsi
	echo "InitiatorName=iqn.2026-11.org.ktarget:demo-guest" > /etc/iscsi/initiatorname.iscsi
	iscsid
	sleep 1
	run iscsiadm -m discovery -t st -p 127.0.0.1:3260
	run iscsiadm -m node -T $iqn -p 127.0.0.1:3260 --login
	sleep 2
	for d in /sys/class/iscsi_session/session*/device/target*/*:1/block/*; do
		disk=/dev/$(basename "$d")
	done
	run lsblk -o NAME,SIZE,VENDOR,MODEL "$disk"
	run mkfs.ext4 -q -F "$disk"
	mkdir -p /mnt/demo
	run mount "$disk" /mnt/demo
	run sh -c "head -c 8000000 /dev/urandom > /mnt/demo/data && sha256sum /mnt/demo/data"
	run umount /mnt/demo

	step "EXTENDED COPY: LUN 1 (that ext4) onto LUN 0, copied inside the target"
	for d in /sys/class/iscsi_session/session*/device/target*/*:0/block/*; do
		disk0=/dev/$(basename "$d")
	done
	modprobe sg
	sg1=$(sg_node "$disk") sg0=$(sg_node "$disk0")
	# sg_xcopy sends EXTENDED COPY to the destination: its counters move
	st=$cfs/core/rd_mcp_0/ram0/statistics/xcopy
	run grep -H . $st/operations $st/bytes $st/chunks $st/sgl_allocs $st/sgl_reuses $st/fast_copies
	run sg_xcopy if="$sg1" of="$sg0" bs=512 bpt=32768 time=1
	run grep -H . $st/operations $st/bytes $st/chunks $st/sgl_allocs $st/sgl_reuses $st/fast_copies
	blockdev --flushbufs "$disk0"
	run mount -o ro "$disk0" /mnt/demo
	run sha256sum /mnt/demo/data
	run umount /mnt/demo
	run iscsiadm -m node -T $iqn -p 127.0.0.1:3260 --logout
	run sh -c "dmesg | grep -E 'ktarget|sd [0-9]' | tail -8"

	step "Tear down in reverse order and unload"
	iscsiadm -m node -o delete
	echo 0 > $tpg/enable
	rmdir $tpg/np/127.0.0.1:3260
	rm $tpg/lun/lun_0/ram0 $tpg/lun/lun_1/file0
	rmdir $tpg/lun/lun_0 $tpg/lun/lun_1 $tpg $cfs/iscsi/$iqn $cfs/iscsi
	rmdir $cfs/core/rd_mcp_0/ram0 $cfs/core/fileio_0/file0
	rmdir $cfs/core/rd_mcp_0 $cfs/core/fileio_0
	run rmmod ktarget_iscsi ktarget_rd ktarget_fileio ktarget_core
	echo
	echo "The same portal takes iSER logins once 'echo 1 > np/ADDR:PORT/iser' (Documentation/iser.md)."
}

main "$@"
