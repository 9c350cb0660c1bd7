#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The user backstore (ktarget_user, LIO's TCMU ABI) with Debian's
# tcmu-runner, unchanged: tcmu-runner loads it through LIO's module name
# (target_core_user, ktarget-lio-names.conf), targetcli makes user:qcow
# backstores over a raw image and a qcow2 image and exports them through
# the loopback fabric; sg_inq and sg_readcap answer, fio verifies data
# (4k random, 1M sequential, crc32c); saveconfig, clearconfig and
# restoreconfig keep them and their data. Two loopback nexuses to the raw
# LU at once, fio verifying 64 KiB random writes (one command each) through
# both, the submissions and answers of each interleaved with the other's
# (issue 44, review finding 7: data copied outside the ring's lock).
# Faults: tcmu-runner killed (-9)
# under fio ends fio's commands with errors within cmd_time_out; started
# again it takes the device back (block_dev, reset_ring) and the same LUN
# verifies data; with the daemon dead, a LUN under fio unlinks within
# cmd_time_out plus 10 s, and with cmd_time_out 0 within 10 s plus 10.
# A resize through control (tcmu-runner's path) reaches the initiator as
# CAPACITY DATA HAS CHANGED. About 3 minutes in
# the guest. kt_tcmu_hostile, a daemon that answers garbage (bad tails,
# entries, command ids, statuses, lengths, scribbles and SIGBUS), takes
# the device for 20 s under fio; tcmu-runner then takes it back and the
# LUN verifies data.
. ./lib.sh
. ./user_lib.sh

WWN=naa.5001405000000301
WWN2=naa.5001405000000302
TPG=$KT_CFS/loopback/$WWN/tpgt_1
UHBA=$KT_CFS/core/user_0
# on ext4 (over a loop device): the qcow handler allocates clusters with
# fallocate(FALLOC_FL_ZERO_RANGE), which the guest's overlay root and
# tmpfs refuse
IMGS=/tmp/kt-user
FS=/run/kt-user.ext4
RAW=$IMGS/raw.img
QC=$IMGS/disk.qcow2
LOG=/ktout/user.log
CONF=/etc/modprobe.d/ktarget-lio-names.conf
TMO=10			# cmd_time_out for the fault checks, seconds
RUNNER=

main() {
	local out d0 d1 d2 sg pid start_mark

	if ! command -v tcmu-runner >/dev/null || ! command -v targetcli >/dev/null ||
	   ! command -v qemu-img >/dev/null; then
		skip_all "tcmu-runner, targetcli or qemu-img not installed"
		return
	fi
	plan 50
	kmsg_mark
	start_mark=$KT_KMSG_MARK
	user_env_up

	check "modprobe sd_mod and sg (no udev loads them here)" \
		sh -c "modprobe sd_mod && modprobe sg"
	runner_start
	check "tcmu-runner starts and is on D-Bus" runner_on_bus
	check "it loaded ktarget_user by LIO's name target_core_user" \
		grep -q '^ktarget_user ' /proc/modules
	check "images: 64 MiB raw, 64 MiB qcow2" sh -c "
		modprobe loop && mkdir -p $IMGS && truncate -s 256M $FS &&
		mkfs.ext4 -q -F $FS && mount -o loop $FS $IMGS &&
		qemu-img create -q -f raw $RAW 64M &&
		qemu-img create -q -f qcow2 $QC 64M"

	out=$(targetcli 2>&1 <<-EOF
	/backstores/user:qcow create name=uraw size=64M cfgstring=$RAW
	/backstores/user:qcow create name=uqc size=64M cfgstring=$QC
	/loopback create $WWN
	/loopback/$WWN/luns create /backstores/user:qcow/uraw
	/loopback/$WWN/luns create /backstores/user:qcow/uqc
	exit
	EOF
	)
	printf '%s\n' "$out" > $LOG.targetcli
	check "targetcli: two user:qcow backstores on loopback, no error" \
		sh -c "! grep -qiE 'error|Traceback' $LOG.targetcli"
	check "info says LIO's fields" \
		grep -q "Config: qcow/$RAW Size: 67108864 MaxDataAreaMB: " $UHBA/uraw/info
	check "the UIO device is named as LIO names it" \
		grep -qx "tcm-user/0/uraw/qcow/$RAW" /sys/class/uio/uio*/name
	check "tcmu-runner opened both devices" \
		kt_wait_for 20 bash -c "$(declare -f runner_has); RUNNER=$RUNNER;
		runner_has uraw && runner_has uqc || { ls -l /proc/$RUNNER/fd/; false; }"
	d0=$(user_disk 0)
	d1=$(user_disk 1)
	check "the disks of LUNs 0 and 1 appear" test -b "$d0" -a -b "$d1"
	sg=$(sg_of "${d0:-none}")
	check "sg_inq answers (the daemon's INQUIRY)" sg_inq "${sg:-none}"
	out=$(sg_readcap "${sg:-none}" 2>&1)
	check "sg_readcap: 131072 blocks of 512 bytes" output_has "$out" \
		"Last LBA=131071" "Logical block length=512"
	check "fio 4k random write+verify on the raw image" \
		fio_verify "${d0:-none}" raw4k --rw=randwrite --bs=4k --size=16m
	check "fio 1M sequential write+verify on the raw image" \
		fio_verify "${d0:-none}" raw1m --rw=write --bs=1m --size=48m
	check "fio 4k random write+verify on the qcow2 image" \
		fio_verify "${d1:-none}" qc4k --rw=randwrite --bs=4k --size=16m
	check "fio 1M sequential write+verify on the qcow2 image" \
		fio_verify "${d1:-none}" qc1m --rw=write --bs=1m --size=48m
	# two nexuses, one LU: commands of both in the ring at once
	out=$(targetcli 2>&1 <<-EOF
	/loopback create $WWN2
	/loopback/$WWN2/luns create /backstores/user:qcow/uraw
	exit
	EOF
	)
	printf '%s\n' "$out" >> $LOG.targetcli
	d2=$(kt_loop_disk $KT_CFS/loopback/$WWN2/tpgt_1 0)
	check "a second loopback nexus to the raw LU" test -b "$d2"
	check "fio through both nexuses at once, 64k random writes verify" \
		fio --output=$LOG.twonexus --direct=1 --ioengine=libaio \
		--iodepth=32 --verify=crc32c --verify_fatal=1 --rw=randwrite \
		--bs=64k --size=24m --name=n1 --filename=${d0:-none} --offset=0 \
		--name=n2 --filename=${d2:-none} --offset=32m
	out=$(targetcli /loopback delete $WWN2 2>&1)
	printf '%s\n' "$out" >> $LOG.targetcli
	check "the second nexus goes" test ! -e $KT_CFS/loopback/$WWN2
	check "a pattern on both disks" sh -c "
		dd if=/dev/urandom of=/tmp/kt-user-pat bs=1M count=4 2>/dev/null &&
		dd if=/tmp/kt-user-pat of=$d0 bs=1M oflag=direct 2>/dev/null &&
		dd if=/tmp/kt-user-pat of=$d1 bs=1M oflag=direct 2>/dev/null"
	check "the raw image file holds it" cmp -n 4194304 /tmp/kt-user-pat $RAW

	targetcli saveconfig /tmp/kt-user.json >> $LOG.targetcli 2>&1
	targetcli clearconfig confirm=True >> $LOG.targetcli 2>&1
	check "saveconfig keeps user backstores; clearconfig removes them" sh -c "
		grep -q '\"plugin\": \"user\"' /tmp/kt-user.json &&
		grep -q 'qcow/$QC' /tmp/kt-user.json && test ! -e $UHBA/uraw &&
		test ! -e $TPG"
	targetcli restoreconfig /tmp/kt-user.json >> $LOG.targetcli 2>&1
	check "restoreconfig: both backstores back" \
		test -e $(user_hba uraw)/uraw -a -e $(user_hba uqc)/uqc
	UHBA=$(user_hba uraw)
	d0=$(user_disk 0)
	d1=$(user_disk 1)
	check "restoreconfig: the disks come back with the data" sh -c "
		cmp -n 4194304 /tmp/kt-user-pat $d0 && cmp -n 4194304 /tmp/kt-user-pat $d1"

	# faults: the daemon killed under fio
	echo $TMO > $UHBA/uraw/attrib/cmd_time_out
	check_eq "attrib/cmd_time_out takes $TMO" "$(cat $UHBA/uraw/attrib/cmd_time_out)" $TMO
	fio_load "${d0:-none}" killed
	pid=$!
	sleep 2
	runner_kill
	check "tcmu-runner killed: fio ends with an error within cmd_time_out + 20 s" \
		ends_failed_within $((TMO + 20)) $pid
	check "the kernel said which command timed out" sh -c \
		"dmesg | grep -q 'not answered within cmd_time_out $TMO s'"
	runner_start
	check "tcmu-runner again" runner_on_bus
	check "it takes the device back" \
		kt_wait_for 20 bash -c "$(declare -f runner_has); RUNNER=$RUNNER; runner_has uraw"
	check "action/block_dev reads unblocked" \
		kt_wait_for 10 grep -qx unblocked $UHBA/uraw/action/block_dev
	check "the same LUN verifies data again" \
		fio_verify "${d0:-none}" again --rw=randwrite --bs=4k --size=8m
	# online resize, tcmu-runner's path: control dev_size= (the daemon
	# resized the image); attrib/dev_size asks the daemon first
	check "control dev_size= while enabled grows the LU (image grown first)" sh -c "
		truncate -s $((96 << 20)) $RAW &&
		echo dev_size=$((96 << 20)) > $UHBA/uraw/control"
	check "info says the new size" grep -q "Size: $((96 << 20)) " $UHBA/uraw/info
	sg=$(sg_of "${d0:-none}")
	check "the initiator hears CAPACITY DATA HAS CHANGED" kt_wait_for 10 sh -c "
		sg_turs ${sg:-none} >/dev/null 2>&1; dmesg | grep -q 'Capacity data has changed'"
	check "attrib/dev_size asks the daemon: qcow cannot resize, refused" \
		sh -c "! (echo $((128 << 20)) > $UHBA/uraw/attrib/dev_size) 2>/dev/null &&
		grep -q 'Size: $((96 << 20)) ' $UHBA/uraw/info"
	# a hostile daemon (kt_tcmu_hostile.c) on the LUN fio uses, 20 s
	runner_kill
	echo 3 > $UHBA/uraw/attrib/cmd_time_out
	check "build kt_tcmu_hostile" gcc -Wall -O2 -o /run/kt_tcmu_hostile kt_tcmu_hostile.c
	fio --output=$LOG.hostile-fio --filename=${d0:-none} --direct=1 \
		--allow_file_create=0 \
		--ioengine=libaio --iodepth=16 --name=hostile --rw=randrw --bs=4k \
		--size=16m --time_based --runtime=22 --continue_on_error=all &
	pid=$!
	check "kt_tcmu_hostile answers garbage for 20 s" sh -c "
		/run/kt_tcmu_hostile uraw 20 > $LOG.hostile 2>&1 && grep -q '^kicks [1-9]' $LOG.hostile"
	check "fio under it ends" kt_wait_for 60 sh -c "! kill -0 $pid 2>/dev/null"
	wait $pid
	runner_start
	check "tcmu-runner takes the device back from the hostile daemon" \
		kt_wait_for 20 bash -c "$(declare -f runner_has); RUNNER=$RUNNER; runner_has uraw"
	echo $TMO > $UHBA/uraw/attrib/cmd_time_out
	check "the same LUN verifies data after it" \
		fio_verify "${d0:-none}" afterhostile --rw=randwrite --bs=4k --size=8m
	fio_load "${d0:-none}" unlink
	pid=$!
	sleep 2
	runner_kill
	check "daemon dead: the LUN under fio unlinks within cmd_time_out + 10 s" \
		kt_within $((TMO + 10)) sh -c "rm \$(find $TPG/lun/lun_0 -maxdepth 1 -type l) &&
		rmdir $TPG/lun/lun_0"
	check "fio on it ends with an error" ends_failed_within 30 $pid
	# cmd_time_out 0 (none): the commands in the ring of a LUN being
	# unlinked still end, 10 s after the unlink began
	echo 0 > $(user_hba uqc)/uqc/attrib/cmd_time_out
	fio_load "${d1:-none}" unlink0
	pid=$!
	sleep 2
	check "cmd_time_out 0, daemon dead: the LUN under fio unlinks within 10 s + 10" \
		kt_within 20 sh -c "rm \$(find $TPG/lun/lun_1 -maxdepth 1 -type l) &&
		rmdir $TPG/lun/lun_1"
	# what lets it go otherwise
	echo 2 > $(user_hba uqc)/uqc/action/reset_ring 2>/dev/null
	check "fio on that one ends with an error" ends_failed_within 30 $pid
	check "the kernel said they were ended as their LUN went" sh -c \
		"dmesg | grep -q 'aborted or its LUN unlinked, not answered within 10 s'"
	check_bad_write "action/reset_ring 3 is refused" \
		$UHBA/uraw/action/reset_ring 3 "reset_ring: 1 (retry) or 2 (fail)"
	check "action/reset_ring 1 with no daemon" write_attr $UHBA/uraw/action/reset_ring 1

	targetcli clearconfig confirm=True >> $LOG.targetcli 2>&1
	rmdir $KT_CFS/iscsi 2>/dev/null
	check "clearconfig leaves no user device" sh -c "! ls -d $KT_CFS/core/user_*/u* 2>/dev/null"
	check "no UIO device is left" sh -c "! grep -q tcm-user /sys/class/uio/uio*/name 2>/dev/null"
	rmdir $KT_CFS/core/user_* $KT_CFS/loopback 2>/dev/null
	# rtslib looked into every fabric: target/iscsi was made on the way
	grep -q '^ktarget_iscsi ' /proc/modules && rmmod ktarget_iscsi
	check "rmmod ktarget_loop ktarget_user and the core" sh -c "
		rmmod ktarget_loop && rmmod ktarget_user && rmmod ktarget_core"
	umount $IMGS
	rm -f $FS
	rm -f /tmp/kt-user-pat $CONF
	kt_dbus_stop
	KT_KMSG_MARK=$start_mark
	check "the kernel log shows no finding" kt_kmsg_clean
}

main "$@"
