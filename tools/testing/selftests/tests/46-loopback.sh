#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The loopback fabric (ktarget_loop, LIO's tcm_loop): set up with echo, an
# rd LUN and a fileio LUN reach this kernel's SCSI midlayer as sd disks
# once an I_T nexus is written. sg3_utils sees them, fio verifies data
# through them (4k random and 1M sequential, crc32c), a READ of part of a
# block says what it did not fill, sg_xcopy copies from one to the other,
# a second TPG's nexus and the first hold persistent reservations against
# each other (sg_persist), blkdiscard unmaps. An iblock LU over brd
# verifies too. A LUN unlinked, the nexus removed and the whole target
# removed while fio runs end fio with errors, not a hang; the module
# unloads afterwards. A command held in a slow LU past its timeout is
# aborted by the midlayer's error handler (ABORT TASK); device and target
# resets are LUN RESETs. Then targetcli builds a loopback target with a
# LUN, as rtslib-fb writes it, saves, clears and restores it.
. ./lib.sh

WWN=naa.5001405000000001
INIT=naa.5001405000000101
TPG=$KT_CFS/loopback/$WWN/tpgt_1
RD=$KT_CFS/core/rd_mcp_0/r0
FD=$KT_CFS/core/fileio_0/f0
FIMG=/tmp/kt-loop-f0.img
LOG=/ktout/loopback.log

# loop_disk LUN: the sd disk of LUN on the nexus's host, within 20 s
loop_disk() { kt_loop_disk "$TPG" "$1"; }

# gone_disk_leaves_no_file: fio_load on a disk node that does not exist
# (a disk removed under it) must end with an error and create nothing: a
# regular file left in /dev (devtmpfs) takes the place of the next disk
# of that name, which then never appears as a block device
gone_disk_leaves_no_file() {
	local p=/dev/kt-gone-disk pid st=0

	rm -f $p
	fio_load $p gone
	pid=$!
	ends_failed_within 60 $pid || st=1
	if [ -e $p ]; then
		ls -l $p
		rm -f $p
		return 1
	fi
	return $st
}

# no_scsi_device H:C:T:L: it is gone, within 20 s
no_scsi_device() {
	kt_wait_for 20 test ! -e /sys/bus/scsi/devices/$1
}

# reset_under_fio DISK: a LUN RESET through sg while fio writes and
# verifies; the commands it ends are answered DID_ABORT and retried
reset_under_fio() {
	local sg pid st

	sg=$(sg_of "$1") || return 1
	fio_verify "$1" reset --rw=randwrite --bs=4k --size=16m --time_based \
		--runtime=8 --verify_backlog=64 &
	pid=$!
	sleep 3
	sg_reset -d "$sg"
	st=$?
	wait $pid || { cat $LOG.reset; return 1; }
	return $st
}

# The midlayer's error handler: LUN 2 is an iblock LU over dm-delay, which
# holds every I/O SLOW seconds. A READ sent with a timeout of 2 s through
# sg (no retries) times out, the handler's ABORT TASK ends it once its bio
# is back, and the command fails; the LU serves reads afterwards. sg_reset
# asks for a device reset (LUN RESET) and a target reset.
SLOW=8
error_handler() {
	local d2 sg
	local IB=$KT_CFS/core/iblock_0/b0

	check "LUN 2: iblock over dm-delay ($SLOW s)" sh -c "
		modprobe null_blk nr_devices=1 memory_backed=1 gb=1 bs=512 &&
		modprobe dm-delay && modprobe sg &&
		DM_DISABLE_UDEV=1 dmsetup --noudevsync create kt-loop-slow \
			--table '0 65536 delay /dev/nullb0 0 $((SLOW * 1000))' &&
		mkdir -p $IB && echo udev_path=/dev/mapper/kt-loop-slow > $IB/control &&
		echo 1 > $IB/enable && mkdir $TPG/lun/lun_2 && ln -s $IB $TPG/lun/lun_2/b0"
	d2=$(loop_disk 2)
	sg=$(sg_of "${d2:-none}")
	check "its disk and sg node appear" test -b "$d2" -a -c "$sg"
	check "a READ held past its 2 s timeout is aborted and fails" \
		kt_within 90 sh -c "! sg_raw -t 2 -r 4096 $sg 28 00 00 00 00 08 00 00 08 00"
	check "LUN 2 reads after the abort" \
		kt_within 90 dd if=$d2 of=/dev/null bs=4k count=1 skip=3 iflag=direct status=none
	check "sg_reset -d: device reset (LUN RESET)" kt_within 90 sg_reset -d $sg
	check "sg_reset -t: target reset" kt_within 90 sg_reset -t $sg
	check "unlink LUN 2, remove the delay" sh -c "rm $TPG/lun/lun_2/b0 &&
		rmdir $TPG/lun/lun_2 $IB $KT_CFS/core/iblock_0 &&
		DM_DISABLE_UDEV=1 dmsetup --noudevsync remove kt-loop-slow &&
		rmmod dm-delay null_blk"
}

# iblock_fio: LUN 3, an iblock LU over a brd RAM disk: fio verifies
# through it, then it goes
iblock_fio() {
	local d3
	local IB=$KT_CFS/core/iblock_1/b1

	check "LUN 3: iblock over a brd RAM disk" sh -c "
		modprobe brd rd_nr=1 rd_size=65536 &&
		mkdir -p $IB && echo udev_path=/dev/ram0 > $IB/control &&
		echo 1 > $IB/enable && mkdir $TPG/lun/lun_3 && ln -s $IB $TPG/lun/lun_3/b1"
	d3=$(loop_disk 3)
	check "fio: 4k random read/write, crc32c verified, 10 s (iblock)" \
		fio_verify "${d3:-none}" iblock --rw=randrw --bs=4k --size=32m \
			--time_based --runtime=10 --verify_backlog=256
	check "fio: 1280 KiB writes from buffers 64 bytes into a page, verified (iblock)" \
		fio_verify "${d3:-none}" unaligned --rw=write --bs=1280k \
			--size=32m --iomem_align=64 --iodepth=4
	check "unlink LUN 3, remove the RAM disk" sh -c "rm $TPG/lun/lun_3/b1 &&
		rmdir $TPG/lun/lun_3 $IB $KT_CFS/core/iblock_1 &&
		{ rmmod brd 2>/dev/null || true; }"
}

# iblock_4k: LUN 4, an iblock LU over a scsi_debug disk of 4096-byte
# blocks. Writes of 1280 KiB from buffers 512 bytes into a page come in
# more pieces than a bio holds, none of them whole blocks: each bio must
# still end on a block's end, or sd refuses the request.
iblock_4k() {
	local d4 sd
	local IB=$KT_CFS/core/iblock_2/b2

	if ! modinfo scsi_debug >/dev/null 2>&1; then
		skip "iblock over a disk of 4096-byte blocks" "no scsi_debug in this kernel" 3
		return
	fi
	modprobe scsi_debug sector_size=4096 dev_size_mb=64 && sd=$(kt_sdebug_disk)
	check "LUN 4: iblock over a scsi_debug disk of 4096-byte blocks" sh -c "
		test -b '$sd' && mkdir -p $IB && echo udev_path=$sd > $IB/control &&
		echo 1 > $IB/enable && mkdir $TPG/lun/lun_4 && ln -s $IB $TPG/lun/lun_4/b2"
	d4=$(loop_disk 4)
	check "fio: 1280 KiB writes from buffers 512 bytes into a page, verified (iblock, 4096-byte blocks)" \
		fio_verify "${d4:-none}" unaligned4k --rw=write --bs=1280k \
			--size=32m --iomem_align=512 --iodepth=4
	check "unlink LUN 4, remove the scsi_debug disk" sh -c "rm $TPG/lun/lun_4/b2 &&
		rmdir $TPG/lun/lun_4 $IB $KT_CFS/core/iblock_2 && rmmod scsi_debug"
}

targetcli_loopback() {
	local tw=naa.5001405000000002 out
	local ttpg=$KT_CFS/loopback/$tw/tpgt_1

	if ! command -v targetcli >/dev/null; then
		skip "targetcli" "targetcli-fb not installed" 10
		return
	fi
	export HOME=/root
	mkdir -p /root /run/dbus /etc/rtslib-fb-target
	kt_dbus_start
	out=$(targetcli 2>&1 <<-EOF
	/backstores/ramdisk create tr0 16M
	/backstores/fileio create tf0 /tmp/kt-loop-tf0.img 16M
	/loopback create $tw
	/loopback/$tw/luns create /backstores/ramdisk/tr0
	/loopback/$tw/luns create /backstores/fileio/tf0
	exit
	EOF
	)
	printf '%s\n' "$out" > $LOG.targetcli
	check "targetcli: loopback target, ramdisk and fileio LUNs, no error" \
		sh -c "! grep -qiE 'error|Traceback' $LOG.targetcli"
	check "targetcli: rtslib wrote a naa. nexus" grep -q '^naa\.' $ttpg/nexus
	check "targetcli: LUN 0 links tr0" sh -c "readlink -f \$(find $ttpg/lun/lun_0 -maxdepth 1 -type l) |
		grep -q '/tr0\$'"
	out=$(cat $ttpg/address 2>/dev/null)
	check "targetcli: its disk appears" kt_wait_for 20 sh -c \
		"ls /sys/bus/scsi/devices/$out:0/block/ 2>/dev/null | grep -q sd"
	check "targetcli: LUN 1, fileio tf0, a disk too" kt_wait_for 20 sh -c \
		"ls /sys/bus/scsi/devices/$out:1/block/ 2>/dev/null | grep -q sd"
	targetcli saveconfig /tmp/kt-loop.json >> $LOG.targetcli 2>&1
	targetcli clearconfig confirm=True >> $LOG.targetcli 2>&1
	check "targetcli: saveconfig, clearconfig: the loopback target is gone" sh -c "
		grep -q '\"fabric\": \"loopback\"' /tmp/kt-loop.json && test ! -e $ttpg"
	targetcli restoreconfig /tmp/kt-loop.json >> $LOG.targetcli 2>&1
	# rtslib's dump keeps no nexus: restoring makes a new one, with LIO too
	check "targetcli restoreconfig: a naa. nexus again" grep -q '^naa\.' $ttpg/nexus
	out=$(cat $ttpg/address 2>/dev/null)
	check "targetcli restoreconfig: LUN 0 links tr0" sh -c "readlink -f \$(find $ttpg/lun/lun_0 -maxdepth 1 -type l) |
		grep -q '/tr0\$'"
	check "targetcli restoreconfig: the disks of LUNs 0 and 1 appear" kt_wait_for 20 sh -c \
		"ls /sys/bus/scsi/devices/$out:0/block/ /sys/bus/scsi/devices/$out:1/block/ 2>/dev/null |
		grep -c sd | grep -qx 2"
	targetcli clearconfig confirm=True >> $LOG.targetcli 2>&1
	# rtslib looked into every fabric: target/iscsi was made on the way
	rmdir $KT_CFS/iscsi 2>/dev/null
	grep -q '^ktarget_iscsi ' /proc/modules && rmmod ktarget_iscsi
	check "targetcli clearconfig leaves no loopback target" \
		test ! -e $KT_CFS/loopback/$tw
	kt_dbus_stop
}

# partial_read DISK: READ (10) of two blocks into a 700-byte buffer. The
# first block is read and the residual says the rest was not (sg_raw keeps
# what came), not 700 bytes of which 188 were never written.
partial_read() {
	local sg out

	sg=$(sg_of "$1") || return 1
	head -c 1024 /dev/urandom > /tmp/kt-pat
	dd if=/tmp/kt-pat of="$1" bs=1024 count=1 oflag=direct status=none || return 1
	rm -f /tmp/kt-part
	out=$(sg_raw -r 700 -o /tmp/kt-part "$sg" 28 00 00 00 00 00 00 00 02 00 2>&1)
	echo "$out" | head -3
	echo "# got $(stat -c %s /tmp/kt-part 2>/dev/null) bytes"
	[ "$(stat -c %s /tmp/kt-part 2>/dev/null)" = 512 ] && cmp -n 512 /tmp/kt-part /tmp/kt-pat
}

# pr_sas_transport_ids D0 E0 INIT2: a loopback port is a SAS port, so its
# TransportIDs are SAS ones (SPC-4 7.6.4.7: the 8-byte SAS address), in
# READ FULL STATUS and in what PERSISTENT RESERVE OUT takes (SPEC_I_PT,
# REGISTER AND MOVE). Starts and ends with E0 holding key 0x2 and a
# Write Exclusive reservation.
pr_sas_transport_ids() {
	local d0=$1 e0=$2 init2=$3 sas2=${3#naa.} out rtpi

	out=$(sg_persist -n -i -s "$e0" 2>&1)
	echo "$out" | sed 's/^/# /' | head -12
	check "PR: READ FULL STATUS names the nexus by its SAS address" sh -c "
		echo '$out' | grep -qi 'SAS address: 0x$sas2'"
	# the second nexus lets go (its reservation goes with it); the first
	# registers itself and, by SPEC_I_PT, the second's port through the
	# first's target port
	check "PR: REGISTER with SPEC_I_PT and a SAS TransportID registers the other initiator port" sh -c "
		sg_persist -n --out --register --param-rk=0x2 --param-sark=0 $e0 >/dev/null 2>&1 &&
		sg_persist -n --out --register --param-sark=0x5 \
			--transport-id=sas,$sas2 $d0 >/dev/null 2>&1 &&
		sg_persist -n -i -s $d0 | grep -ci 'SAS address: 0x' | grep -qx 2 &&
		sg_persist -n -i -s $d0 | grep -qi 'SAS address: 0x$sas2' ||
		{ sg_persist -n -i -s $d0; false; }"
	rtpi=$(sg_vpd -p di "$e0" 2>/dev/null | sed -n 's/.*Relative target port: *0x\([0-9a-f]*\).*/\1/p' | head -1)
	echo "# the second nexus's relative target port: 0x$rtpi"
	check "PR: REGISTER AND MOVE to a SAS TransportID moves the reservation" sh -c "
		sg_persist -n --out --reserve --param-rk=0x5 --prout-type=1 $d0 >/dev/null &&
		sg_persist -n --out --register-move --param-rk=0x5 --param-sark=0x2 \
			--prout-type=1 --relative-target-port=0x$rtpi --transport-id=sas,$sas2 $d0 \
			>/dev/null 2>&1 &&
		sg_persist -n -i -r $e0 | grep -q 'Key=0x2' &&
		dd if=/dev/zero of=$e0 bs=512 count=1 oflag=direct status=none"
}

# two_nexuses: a second TPG with a nexus of its own reaches the rd LU too;
# persistent reservations between the two I_T nexuses (sg_persist)
two_nexuses() {
	local tpg2=$KT_CFS/loopback/$WWN/tpgt_2 init2=naa.5001405000000102
	local d0=$1 e0 a2

	# the nexus first, then LUN 1 of a TPG with no LUN 0: the midlayer
	# takes such a target for SCSI-2 unless the host says otherwise
	check "a second TPG and nexus ($init2), then the rd LU as its LUN 1" sh -c "
		mkdir -p $tpg2 && echo $init2 > $tpg2/nexus &&
		mkdir $tpg2/lun/lun_1 && ln -s $RD $tpg2/lun/lun_1/r0"
	a2=$(cat $tpg2/address 2>/dev/null)
	for i in $(seq 1 100); do
		e0=$(ls -d /sys/bus/scsi/devices/$a2:1/block/* 2>/dev/null | head -1)
		[ -n "$e0" ] && [ -b "/dev/${e0##*/}" ] && break
		sleep 0.2
	done
	e0=/dev/${e0##*/}
	check "its disk appears at H:0:2:1" sh -c "echo '$a2' | grep -qE '^[0-9]+:0:2$' && test -b $e0"
	check "PR: both nexuses register, the first reserves (Write Exclusive)" sh -c "
		sg_persist -n --out --register --param-sark=0x1 $d0 &&
		sg_persist -n --out --register --param-sark=0x2 $e0 &&
		sg_persist -n --out --reserve --param-rk=0x1 --prout-type=1 $d0 &&
		sg_persist -n -i -k $e0 | grep -q 0x2 &&
		sg_persist -n -i -r $e0 | grep -q 'Write Exclusive'"
	check "PR: the second nexus's write meets a reservation conflict" sh -c "
		! dd if=/dev/zero of=$e0 bs=512 count=1 oflag=direct status=none 2>/dev/null"
	check "PR: the second nexus preempts; the first hears REGISTRATIONS PREEMPTED" sh -c "
		sg_persist -n --out --preempt --param-rk=0x2 --param-sark=0x1 --prout-type=1 $e0 &&
		sg_turs $d0 2>&1 | grep -qi 'registrations preempted'"
	check "PR: the reservation is the second's; the first's write conflicts" sh -c "
		sg_persist -n -i -r $d0 | grep -q 'Key=0x2' &&
		! sg_persist -n -i -k $d0 | grep -q '0x1\$' &&
		! dd if=/dev/zero of=$d0 bs=512 count=1 oflag=direct status=none 2>/dev/null &&
		dd if=/dev/zero of=$e0 bs=512 count=1 oflag=direct status=none"
	pr_sas_transport_ids "$d0" "$e0" "$init2"
	check "PR: cleared; the second TPG goes with its nexus" sh -c "
		sg_persist -n --out --clear --param-rk=0x2 $e0 &&
		echo NULL > $tpg2/nexus && rm $tpg2/lun/lun_1/r0 &&
		rmdir $tpg2/lun/lun_1 $tpg2"
}

# xcopy_between DISK_A DISK_B: sg_xcopy copies 4 MiB from A to B
xcopy_between() {
	local ga gb

	ga=$(sg_of "$1") && gb=$(sg_of "$2") || return 1
	dd if=/dev/urandom of="$1" bs=1M count=4 oflag=direct status=none &&
	sg_xcopy if=$ga of=$gb bs=512 count=8192 bpt=8192 seek=16384 &&
	[ "$(dd if="$1" bs=1M count=4 iflag=direct status=none | md5sum)" = \
	  "$(dd if="$2" bs=1M skip=8 count=4 iflag=direct status=none | md5sum)" ]
}

main() {
	local d0 d1 addr pid

	plan 89
	: > $LOG
	kmsg_mark
	local start_mark=$KT_KMSG_MARK

	check "modprobe ktarget_core, sd_mod and sg (no udev loads them here)" \
		sh -c "modprobe ktarget_core && modprobe sd_mod && modprobe sg"
	check "fio on a disk that is gone ends with an error and leaves no file in /dev" \
		gone_disk_leaves_no_file
	check "rd device r0, 64 MiB, thin-provisioned" sh -c "mkdir -p $RD &&
		echo rd_pages=16384 > $RD/control && echo 1 > $RD/attrib/emulate_tpu &&
		echo 1 > $RD/enable"
	check "fileio device f0, 64 MiB, thin-provisioned" sh -c "mkdir -p $FD &&
		echo fd_dev_name=$FIMG,fd_dev_size=67108864 > $FD/control &&
		echo 1 > $FD/attrib/emulate_tpu && echo 1 > $FD/enable"

	check "mkdir target/loopback" mkdir $KT_CFS/loopback
	check "ktarget_loop was loaded on demand" grep -q '^ktarget_loop ' /proc/modules
	check "tcm_loop was not" sh -c "! grep -q '^tcm_loop ' /proc/modules"
	check "loopback/version" grep -q 'ktarget loopback' $KT_CFS/loopback/version
	check_bad_mkdir "a WWN that is not naa. is refused" \
		$KT_CFS/loopback/iqn.2026-11.org.ktarget:x "not a loopback target name"
	check_bad_mkdir "a naa. WWN of 12 digits is refused" \
		$KT_CFS/loopback/naa.500140500000 "16 (or 32) hex digits"
	check "TPG with an rd LUN 0 and a fileio LUN 1" sh -c "
		mkdir -p $TPG/lun/lun_0 $TPG/lun/lun_1 &&
		ln -s $RD $TPG/lun/lun_0/r0 && ln -s $FD $TPG/lun/lun_1/f0"
	check_eq "no nexus yet" "$(cat $TPG/nexus)" ""
	check_eq "transport_status online" "$(cat $TPG/transport_status)" online
	check_bad_write "a nexus name that is not naa. is refused" $TPG/nexus \
		iqn.2026-11.org.ktarget:i "not an initiator port name"
	check_bad_write "a nexus name with a bad digit is refused" $TPG/nexus \
		naa.50014050000001zz "only hex digits"
	check_bad_write "transport_status takes online or offline only" \
		$TPG/transport_status sleeping "want online or offline"
	check_bad_write "fabric_prot_type 2 is refused (type 2 needs 32-byte CDBs)" \
		$TPG/attrib/fabric_prot_type 2 "want 0, 1 or 3"

	check "write the nexus" write_attr $TPG/nexus $INIT
	check_eq "nexus reads back" "$(cat $TPG/nexus)" $INIT
	addr=$(cat $TPG/address)
	check "address is H:0:1" sh -c "echo '$addr' | grep -qE '^[0-9]+:0:1$'"
	check_eq "its SCSI host is ktarget_loop's" \
		"$(cat /sys/class/scsi_host/host${addr%%:*}/proc_name 2>&1)" ktarget_loop
	d0=$(loop_disk 0)
	d1=$(loop_disk 1)
	check "LUN 0 and LUN 1 are sd disks" test -b "$d0" -a -b "$d1"
	check_bad_write "a second nexus is refused" $TPG/nexus \
		naa.5001405000000102 "the nexus of $INIT exists"

	check "sg_inq: ktarget's disk, a SAS target port" sh -c "out=\$(sg_inq $d0) &&
		echo \"\$out\" | grep -q 'KTARGET' && sg_inq -i $d0 | grep -qiE 'serial attached|SAS'"
	check "sg_vpd: the LU's NAA designator, a target port designator, Block Limits" sh -c "out=\$(sg_vpd -p di $d0) &&
		echo \"\$out\" | grep -qi 'designator type: NAA' &&
		echo \"\$out\" | grep -qi 'target port' &&
		sg_vpd -p bl $d0 | grep -qi 'Maximum transfer length'"
	check "sg_readcap: 131072 blocks of 512 bytes" sh -c \
		"sg_readcap $d0 | grep -q 'Last LBA=131071'"
	check "sg_luns: LUNs 0 and 1" sh -c "out=\$(sg_luns $d0) &&
		echo \"\$out\" | grep -q '0000000000000000' &&
		echo \"\$out\" | grep -q '0001000000000000'"
	check "fio: 4k random read/write, crc32c verified, 10 s (rd)" \
		fio_verify "$d0" randrw --rw=randrw --bs=4k --size=32m --time_based \
			--runtime=10 --verify_backlog=256
	check "fio: 1M sequential write, crc32c verified (fileio)" \
		fio_verify "$d1" seq --rw=write --bs=1m --size=48m --time_based \
			--runtime=10
	check "a READ of part of a block returns the whole blocks, with their residual" \
		partial_read "$d0"
	check "sg_xcopy rd -> fileio, 4 MiB, read back equal" xcopy_between "$d0" "$d1"
	two_nexuses "$d0"
	check "blkdiscard of the rd disk" blkdiscard "$d0"
	check "blkdiscard of the fileio disk" blkdiscard "$d1"

	check "LUN RESET (sg_reset -d) under fio: fio's commands are retried, all verify" \
		reset_under_fio "$d0"
	check "offline: a read fails" sh -c "echo offline > $TPG/transport_status &&
		! timeout 120 dd if=$d0 of=/dev/null bs=4k count=1 iflag=direct status=none"
	check "online: it reads again" sh -c "echo online > $TPG/transport_status &&
		dd if=$d0 of=/dev/null bs=4k count=1 iflag=direct status=none"

	error_handler
	iblock_fio
	iblock_4k

	fio_load "$d1" unlink
	pid=$!
	sleep 3
	check "unlink LUN 1 while fio writes to it" \
		kt_within 60 rm $TPG/lun/lun_1/f0
	check "fio on LUN 1 ends with an error" ends_failed_within 60 $pid
	check "LUN 1's disk is gone" no_scsi_device $addr:1
	check "link LUN 1 again" ln -s $FD $TPG/lun/lun_1/f0
	check "its disk comes back" loop_disk 1

	fio_load "$d0" nexus
	pid=$!
	sleep 3
	check "remove the nexus while fio writes" kt_within 60 write_attr $TPG/nexus NULL
	check "fio on LUN 0 ends with an error" ends_failed_within 60 $pid
	check_eq "nexus reads empty" "$(cat $TPG/nexus)" ""
	check "the SCSI host is gone" kt_wait_for 20 test ! -e /sys/class/scsi_host/host${addr%%:*}
	check_bad_write "removing no nexus is refused" $TPG/nexus NULL "no I_T nexus to remove"
	check "a nexus again" write_attr $TPG/nexus $INIT
	d0=$(loop_disk 0)
	fio_load "${d0:-none}" rmdir
	pid=$!
	sleep 3
	check "the target goes while fio writes (LUNs unlinked, TPG and WWN removed)" \
		kt_within 60 sh -c "rm $TPG/lun/lun_0/r0 $TPG/lun/lun_1/f0 &&
		rmdir $TPG/lun/lun_0 $TPG/lun/lun_1 $TPG $KT_CFS/loopback/$WWN"
	check "fio on it ends with an error" ends_failed_within 60 $pid
	check "no object left (loop nexuses, commands, sessions)" kt_objects_zero
	check "rmdir the devices" sh -c "rmdir $RD $FD &&
		rmdir $KT_CFS/core/rd_mcp_0 $KT_CFS/core/fileio_0"

	# clearconfig removes every storage object: ours are gone by now
	targetcli_loopback

	rmdir $KT_CFS/core/rd_mcp_* $KT_CFS/core/fileio_* 2>/dev/null
	check "rmdir target/loopback" rmdir $KT_CFS/loopback
	check "rmmod ktarget_loop" rmmod ktarget_loop
	check "rmmod the backstores and the core" \
		rmmod ktarget_fileio ktarget_iblock ktarget_rd ktarget_core
	rm -f $FIMG /tmp/kt-loop-tf0.img
	KT_KMSG_MARK=$start_mark
	check "the kernel log shows no finding" kt_kmsg_clean
}

main "$@"
