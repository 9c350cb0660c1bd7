#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest.sh STATE EPOCH LAST STACK: one boot of the power-cut test (run.sh).
#
# The disk (/dev/vda, written through by QEMU) holds an ext4 filesystem with
# three fileio files, two cached (fd_buffered_io=1: WCE=1) and one O_DSYNC
# (WCE=0), and an iblock range (WCE=0). The second cached file is written
# through libiscsi, the rest through open-iscsi. Every boot after the first checks
# them against the logs of the epochs before it (STATE/epoch-N/); a boot
# that is not the LAST then exports them through STACK (ktarget or lio) and
# open-iscsi, and writes to all three until the host pulls the plug.
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$HERE/../selftests" || exit 1
. ./lib.sh

STATE=$1 EPOCH=$2 LAST=$3 STACK=$4
IO="python3 $HERE/powercut_io.py"
FS=/run/pc
TPG=$KT_CFS/iscsi/$KT_IQN/tpgt_1
# LUN:name:WCE:backing store; LUN 4 is written through libiscsi
LUS="1:fileio-cached:1:$FS/cached.img 2:fileio-dsync:0:$FS/dsync.img 3:iblock:0:/dev/mapper/kt-pc-blk
4:fileio-cached-libiscsi:1:$FS/cached-li.img"

dm() { DM_DISABLE_UDEV=1 dmsetup --noudevsync "$@"; }

disk_up() {
	local i
	modprobe virtio_blk && modprobe ext4 || return 1
	for i in $(seq 1 50); do
		[ -b /dev/vda ] && break
		sleep 0.2
	done
	dm create kt-pc-fs --table "0 65536 linear /dev/vda 0" &&
		dm create kt-pc-blk --table "0 32768 linear /dev/vda 65536" || return 1
	if [ "$EPOCH" = 0 ]; then
		mkfs.ext4 -q -F /dev/mapper/kt-pc-fs &&
			dd if=/dev/zero of=/dev/mapper/kt-pc-blk bs=1M count=16 \
				oflag=direct status=none || return 1
	fi
	mkdir -p $FS && mount /dev/mapper/kt-pc-fs $FS
}

check_epochs() {
	local lu lun name wce store logs e status=0
	for lu in $LUS; do
		IFS=: read -r lun name wce store <<< "$lu"
		logs=()
		for ((e = 0; e < EPOCH; e++)); do
			logs+=("$STATE/epoch-$e/pc-$lun.log")
		done
		$IO check "$store" "$lun" "$wce" \
			"$STACK, after cut $EPOCH: $name (WCE=$wce)" "${logs[@]}" || status=1
	done
	return $status
}

export_lus() {
	local lu lun name wce store dev i
	if [ "$STACK" = lio ]; then
		modprobe target_core_mod && modprobe iscsi_target_mod || return 1
	else
		modprobe ktarget_core || return 1
	fi
	kt_iscsi_build || return 1
	for lu in $LUS; do
		IFS=: read -r lun name wce store <<< "$lu"
		case $name in
		fileio-cached*)
			dev=$KT_CFS/core/fileio_1/$name
			mkdir -p $dev && echo "fd_dev_name=$store,fd_dev_size=16777216,fd_buffered_io=1" > $dev/control ;;
		fileio-dsync)
			dev=$KT_CFS/core/fileio_1/dsync
			mkdir -p $dev && echo "fd_dev_name=$store,fd_dev_size=16777216" > $dev/control ;;
		iblock)
			dev=$KT_CFS/core/iblock_1/blk
			mkdir -p $dev && echo "udev_path=$store" > $dev/control ;;
		esac
		echo 1 > $dev/enable && mkdir $TPG/lun/lun_$lun &&
			ln -s $dev $TPG/lun/lun_$lun/d || return 1
		[ "$(cat $dev/attrib/emulate_write_cache)" = "$wce" ] ||
			{ echo "$name: emulate_write_cache is not $wce"; return 1; }
	done
}

# the writers; the host cuts the power once every one has had 64 answers
write_all() {
	local lu lun name wce store disk
	kt_iscsid_start || return 1
	iscsiadm -m discovery -t st -p 127.0.0.1:3260 >/dev/null 2>&1
	iscsiadm -m node -T $KT_IQN -p 127.0.0.1:3260 --login >/dev/null || return 1
	for lu in $LUS; do
		IFS=: read -r lun name wce store <<< "$lu"
		if [ "$lun" = 4 ]; then
			$IO write-libiscsi "$STATE/pc_libiscsi" \
				"iscsi://127.0.0.1/$KT_IQN/$lun" "$lun" "$EPOCH" "$wce" \
				/ktout/pc-$lun.log /ktout/pc-ready-$lun &
			continue
		fi
		disk=$(kt_lun_disk "$lun") || { echo "no disk for LUN $lun"; return 1; }
		$IO write "$disk" "$lun" "$EPOCH" "$wce" /ktout/pc-$lun.log \
			/ktout/pc-ready-$lun &
	done
	echo "# epoch $EPOCH: writing; waiting for the power cut"
	wait -n
	echo "not ok - $STACK, epoch $EPOCH: a writer stopped before the cut (status $?)"
	return 1
}

main() {
	local status=0
	disk_up || { echo "not ok - $STACK: the disk comes up"; return 1; }
	if [ "$EPOCH" -gt 0 ]; then
		check_epochs || status=1
	fi
	if [ "$EPOCH" = "$LAST" ]; then
		umount $FS
		dm remove kt-pc-fs
		dm remove kt-pc-blk
		return $status
	fi
	export_lus || { echo "not ok - $STACK: the LUs are exported"; return 1; }
	write_all
}

main "$@"
