#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# CD-ROM LUNs (issue 45, part 3): a fileio LU over an ISO 9660 image with
# attrib/emulate_cdrom=1 answers as a read-only CD/DVD drive (MMC). Through
# the loopback fabric the kernel's own sr and cdrom drivers take it: a
# /dev/srN appears, sg3_utils sees a CD/DVD device with its profiles and
# 2048-byte blocks, udev's cdrom_id finds the disc and its one data
# track, blkid finds iso9660, and the image mounts read-only with its
# files intact. A WRITE (10) is refused as to write-protected media, and
# so is an EXTENDED COPY into the disc that an rd LU beside it runs; a
# command MMC lacks is an invalid operation code. In ALUA Standby GET
# CONFIGURATION and READ TOC answer, READ (10) does not. The attribute is
# refused while a LUN exports the device or a PR registration is kept on
# it, and a block size other than 2048 while it is on; targetcli sets it and saveconfig/restoreconfig keep it. The
# image comes from xorriso, or from mkiso.py where xorriso is missing.
. ./lib.sh

WWN=naa.5001405000000005
INIT=naa.5001405000000105
TPG=$KT_CFS/loopback/$WWN/tpgt_1
FD=$KT_CFS/core/fileio_0/cd0
RD=$KT_CFS/core/rd_mcp_0/r0
SRC=/tmp/kt-cd-src
IMG=/tmp/kt-cd.iso
MNT=/tmp/kt-cd-mnt
LOG=/ktout/cdrom.log

# cd_node: the sr node of LUN 0 on the nexus's host, within 20 s
cd_node() {
	local a d i
	for i in $(seq 1 100); do
		a=$(cat $TPG/address 2>/dev/null)
		for d in /sys/bus/scsi/devices/$a:0/block/*; do
			[ -n "$a" ] && [ -e "$d" ] && [ -b "/dev/${d##*/}" ] &&
				{ echo "/dev/${d##*/}"; return 0; }
		done
		sleep 0.2
	done
	return 1
}

# cd_over_4k_blocks: emulate_cdrom set before enable on an iblock over a
# null_blk of 4096-byte blocks: enable refuses (a CD's blocks are 2048).
# Since 6.0 null_blk names a configfs device's disk after its directory.
cd_over_4k_blocks() {
	local nb=/sys/kernel/config/nullb/ktcd4k ib=$KT_CFS/core/iblock_54/cd4k
	local loaded=
	grep -q '^null_blk ' /proc/modules && loaded=1
	check "a null_blk of 4096-byte blocks, an iblock device over it" sh -c "
		modprobe null_blk nr_devices=0 && mkdir $nb &&
		echo 4096 > $nb/blocksize && echo 64 > $nb/size && echo 1 > $nb/power &&
		b=/dev/ktcd4k && { test -b \$b || b=/dev/nullb\$(cat $nb/index); } &&
		mkdir -p $ib && echo udev_path=\$b > $ib/control &&
		echo 1 > $ib/attrib/emulate_cdrom"
	check_bad_write "enable refuses a CD/DVD over 4096-byte blocks" \
		$ib/enable 1 "larger than a CD's 2048"
	rmdir $ib $KT_CFS/core/iblock_54 2>/dev/null
	echo 0 > $nb/power 2>/dev/null
	rmdir $nb 2>/dev/null
	# loaded here with no device of its own: the files after this one
	# load it with theirs (nr_devices=1)
	[ -n "$loaded" ] || rmmod null_blk 2>/dev/null
}

# make_image: two files (one not a whole number of blocks long) in an
# ISO 9660 image
make_image() {
	rm -rf $SRC && mkdir -p $SRC || return 1
	echo "ktarget CD-ROM LUN" > $SRC/readme.txt
	head -c 1048699 /dev/urandom > $SRC/data.bin
	if command -v xorriso >/dev/null; then
		echo "# image by xorriso"
		xorriso -as mkisofs -V KTARGET_CD -o $IMG $SRC >> $LOG 2>&1
	else
		echo "# xorriso is not installed: image by mkiso.py"
		python3 ./mkiso.py $IMG $SRC/readme.txt $SRC/data.bin
	fi && cp $IMG $IMG.orig
}

# sense_of SG CDB...: the sense sg_raw prints for CDB (no data)
sense_of() {
	local sg=$1
	shift
	sg_raw "$sg" "$@" 2>&1 | tee -a $LOG
}

# toc SR CDB...: the bytes READ TOC returns, in hex on one line
toc() {
	local sr=$1
	shift
	sg_raw -r 64 -o /tmp/kt-cd-toc "$sr" "$@" >> $LOG 2>&1 &&
		od -An -tx1 -v /tmp/kt-cd-toc | tr -s ' \n' ' ' | sed 's/^ //; s/ $//'
}

# xcopy_into_cd SG: an rd LU of 2048-byte blocks as LUN 1 is the copy
# manager of an EXTENDED COPY whose destination is the disc: the copy's
# WRITE meets the disc's write protection as a WRITE (10) of the nexus
# does, and the image file keeps its bytes
xcopy_into_cd() {
	local a d1 sg1 i out

	check "LUN 1: an rd LU of 2048-byte blocks, beside the disc" sh -c "
		mkdir -p $RD && echo rd_pages=1024 > $RD/control && echo 1 > $RD/enable &&
		echo 2048 > $RD/attrib/block_size && mkdir $TPG/lun/lun_1 &&
		ln -s $RD $TPG/lun/lun_1/r0"
	a=$(cat $TPG/address 2>/dev/null)
	for i in $(seq 1 100); do
		d1=$(ls -d /sys/bus/scsi/devices/$a:1/block/* 2>/dev/null | head -1)
		[ -n "$d1" ] && [ -b "/dev/${d1##*/}" ] && break
		sleep 0.2
	done
	check "its sd disk appears" test -b "/dev/${d1##*/}"
	sg1=$(sg_of "/dev/${d1##*/}")
	dd if=/dev/urandom of=/dev/${d1##*/} bs=2048 count=8 oflag=direct status=none
	# (sg_xcopy will not: it asks the disc for its copy parameters too)
	out=$(python3 ./xcopy.py copy ${sg1:-/dev/none} ${sg1:-/dev/none} $1 -- 0:1:4:0:16 2>&1)
	echo "$out" >> $LOG
	check "EXTENDED COPY into the disc: DATA PROTECT, the image unchanged" \
		xcopy_refused "$out"
}

# xcopy_refused OUTPUT: sg_xcopy failed with DATA PROTECT, the image file
# is as it was made
xcopy_refused() {
	printf '%s\n' "$1"
	printf '%s\n' "$1" | grep -qi 'data protect' && cmp $IMG $IMG.orig
}

# vpd_pages SR: the supported VPD pages name device identification and no
# page of a block device
vpd_pages() {
	local out

	out=$(sg_vpd -p sv "$1" 2>&1)
	echo "$out" | tee -a $LOG
	echo "$out" | grep -qi 'device identification' &&
		! echo "$out" | grep -qiE 'block limits|block device characteristics'
}

# cd_in_standby SG: the CD's target port group in Standby: GET CONFIGURATION
# and READ TOC, decoded against the CD's table, still answer, READ (10)
# is NOT READY, standby; then back to Active/Optimized
cd_in_standby() {
	local gp=$FD/alua/default_tg_pt_gp out

	check "configfs: the CD's target port group to standby (2)" \
		write_attr $gp/alua_access_state 2
	# the unit attention of the change
	sg_turs "$1" >> $LOG 2>&1
	sg_turs "$1" >> $LOG 2>&1
	check "GET CONFIGURATION answers in standby" \
		sg_raw -r 8 "$1" 46 00 00 00 00 00 00 00 08 00
	check "READ TOC answers in standby" \
		sg_raw -r 12 "$1" 43 00 00 00 00 00 00 00 0c 00
	out=$(sense_of "$1" 28 00 00 00 00 00 00 00 01 00)
	check "READ (10) in standby: NOT READY, standby" \
		output_has "$out" "Not Ready" "standby"
	check "back to active/optimized (0)" write_attr $gp/alua_access_state 0
	sg_turs "$1" >> $LOG 2>&1
}

# cd_refused_over_registration: cd0, a disk again, gets a PR registration
# through a LUN that then goes: emulate_cdrom=1 is refused (a CD/DVD has no
# PR commands to remove it with)
cd_refused_over_registration() {
	local a d i

	check "LUN 0 over cd0 as a disk, a nexus" sh -c "mkdir -p $TPG/lun/lun_0 &&
		ln -s $FD $TPG/lun/lun_0/cd0 && echo $INIT > $TPG/nexus"
	a=$(cat $TPG/address 2>/dev/null)
	for i in $(seq 1 100); do
		d=$(ls -d /sys/bus/scsi/devices/$a:0/block/* 2>/dev/null | head -1)
		[ -n "$d" ] && [ -b "/dev/${d##*/}" ] && break
		sleep 0.2
	done
	check "sg_persist: register key 0x54 through it" \
		sg_persist -n --out --register --param-sark=0x54 "/dev/${d##*/}"
	check "the nexus and the LUN go" sh -c "echo NULL > $TPG/nexus &&
		rm $TPG/lun/lun_0/cd0 && rmdir $TPG/lun/lun_0 $TPG $KT_CFS/loopback/$WWN"
	check_bad_write "emulate_cdrom=1 is refused while the registration is kept" \
		$FD/attrib/emulate_cdrom 1 "persistent reservation registrations"
}

# cd_image_not_grown: a disc's image is only read, so enable refuses an
# fd_dev_size past its end (on a writable mount truncate would grow it)
cd_image_not_grown() {
	local fd=$KT_CFS/core/fileio_54/cd1 img=/tmp/kt-cd-short.iso size

	cp $IMG $img
	size=$(stat -c %s $img)
	check "cd1 over a copy of the image, fd_dev_size twice its size, emulate_cdrom=1 before enable" \
		sh -c "mkdir -p $fd && echo fd_dev_name=$img,fd_dev_size=$((size * 2)) > $fd/control &&
			echo 1 > $fd/attrib/emulate_cdrom"
	check_bad_write "enable refuses to grow the disc's image" $fd/enable 1 \
		"a disc's image is only read"
	check_eq "the image keeps its size" "$(stat -c %s $img)" "$size"
	rmdir $fd $KT_CFS/core/fileio_54 2>/dev/null
	rm -f $img
}

targetcli_cdrom() {
	local out so

	if ! command -v targetcli >/dev/null; then
		skip "targetcli" "targetcli-fb not installed" 4
		return
	fi
	export HOME=/root
	mkdir -p /root /run/dbus /etc/rtslib-fb-target
	kt_dbus_start
	# one process (each costs 10-40 s under TCG)
	out=$(targetcli 2>&1 <<-EOF
	/backstores/fileio create tcd $IMG
	/backstores/fileio/tcd set attribute emulate_cdrom=1
	saveconfig /tmp/kt-cd.json
	clearconfig confirm=True
	restoreconfig /tmp/kt-cd.json
	exit
	EOF
	)
	printf '%s\n' "$out" > $LOG.targetcli
	check "targetcli: fileio backstore, set attribute emulate_cdrom=1, no error" \
		sh -c "! grep -qiE 'error|Traceback|Unknown' $LOG.targetcli"
	# restoreconfig picks the HBA number
	so=$(ls -d $KT_CFS/core/fileio_*/tcd 2>/dev/null | head -1)
	check "targetcli saveconfig wrote emulate_cdrom: 1" \
		grep -q '"emulate_cdrom": 1' /tmp/kt-cd.json
	check_eq "targetcli restoreconfig: emulate_cdrom is 1 again" \
		"$(cat $so/attrib/emulate_cdrom 2>&1)" 1
	check_eq "... and block_size 2048" "$(cat $so/attrib/block_size 2>&1)" 2048
	targetcli clearconfig confirm=True >> $LOG.targetcli 2>&1
	rmdir $KT_CFS/iscsi 2>/dev/null
	grep -q '^ktarget_iscsi ' /proc/modules && rmmod ktarget_iscsi
	kt_dbus_stop
}

main() {
	local sr sg size last out

	plan 52
	: > $LOG
	kmsg_mark
	local start_mark=$KT_KMSG_MARK

	check "modprobe ktarget_core, sr_mod, sd_mod and sg (no udev loads them here)" \
		sh -c "modprobe ktarget_core && modprobe sr_mod && modprobe sd_mod && modprobe sg"
	check "an ISO 9660 image of two files" make_image
	size=$(stat -c %s $IMG)
	last=$((size / 2048 - 1))
	check "fileio device cd0 over the image" sh -c "mkdir -p $FD &&
		echo fd_dev_name=$IMG,fd_dev_size=$size > $FD/control && echo 1 > $FD/enable"
	check_eq "attrib/emulate_cdrom is 0 by default" "$(cat $FD/attrib/emulate_cdrom 2>&1)" 0
	check "attrib/emulate_cdrom=1" write_attr $FD/attrib/emulate_cdrom 1
	check_eq "block_size follows: 2048" "$(cat $FD/attrib/block_size 2>&1)" 2048
	check_bad_write "block_size 512 is refused on a CD/DVD device" \
		$FD/attrib/block_size 512 "has 2048-byte blocks"

	check "loopback target, LUN 0 over cd0, a nexus" sh -c "mkdir -p $TPG/lun/lun_0 &&
		ln -s $FD $TPG/lun/lun_0/cd0 && echo $INIT > $TPG/nexus"
	sr=$(cd_node)
	check "/dev/srN appears for LUN 0" sh -c "echo '$sr' | grep -q '^/dev/sr[0-9]' && test -b '$sr'"
	sr=${sr:-/dev/none}
	check_eq "the sr driver took it" \
		"$(basename "$(readlink /sys/bus/scsi/devices/$(cat $TPG/address):0/driver)")" sr
	sg=$(sg_of "$sr")
	sg=${sg:-/dev/none}
	check_bad_write "emulate_cdrom cannot change while a LUN exports it" \
		$FD/attrib/emulate_cdrom 0 "exported through a LUN"
	check_bad_write "control: fd_dev_size cannot grow the disc's image" \
		$FD/control "fd_dev_size=$((size * 2))" "its disc does not change"

	out=$(sg_inq "$sr" 2>&1)
	echo "$out" >> $LOG
	check "sg_inq: a CD/DVD device (PDT=5), removable" \
		output_has "$out" "PDT=5" "RMB=1"
	check "sg_vpd: device identification, no block device pages" vpd_pages "$sr"
	out=$(sg_get_config "$sr" 2>&1)
	echo "$out" >> $LOG
	check "sg_get_config: CD-ROM current, DVD-ROM listed, core/morphing/removable/random readable" \
		output_has "$out" "Current profile: CD-ROM" "profile: DVD-ROM , currentP=0" \
			"profile: CD-ROM , currentP=1" "Core feature" "Morphing feature" \
			"Removable media feature" "Random readable feature" \
			"Logical block size=0x800"
	out=$(sg_readcap "$sr" 2>&1)
	echo "$out" >> $LOG
	check "sg_readcap: $((last + 1)) blocks of 2048 bytes" \
		output_has "$out" "Last LBA=$last " "Logical block length=2048"
	check_eq "READ TOC (LBA): track 1 at 0, lead-out at $((last + 1))" \
		"$(toc "$sr" 43 00 00 00 00 00 00 00 40 00 | cut -d' ' -f1-20)" \
		"$(printf '00 12 01 01 00 14 01 00 00 00 00 00 00 14 aa 00 %02x %02x %02x %02x' \
			$(((last + 1) >> 24 & 255)) $(((last + 1) >> 16 & 255)) \
			$(((last + 1) >> 8 & 255)) $(((last + 1) & 255)))"
	check_eq "READ TOC (MSF, session format in the CONTROL byte, as sr sends it): 00:02:00" \
		"$(toc "$sr" 43 02 00 00 00 00 00 00 0c 40)" \
		"00 0a 01 01 00 14 01 00 00 00 02 00"
	out=$(/lib/udev/cdrom_id "$sr" 2>&1)
	echo "$out" >> $LOG
	# (no ID_CDROM_MEDIA_STATE: cdrom_id trusts no disc status of a CD-ROM)
	check "cdrom_id: ID_CDROM=1, a CD in it, one session with one data track" \
		output_has "$out" "^ID_CDROM=1" "^ID_CDROM_MEDIA=1" "^ID_CDROM_MEDIA_CD=1" \
			"^ID_CDROM_MEDIA_SESSION_COUNT=1" "^ID_CDROM_MEDIA_TRACK_COUNT_DATA=1"
	out=$(blkid -p "$sr" 2>&1)
	echo "$out" >> $LOG
	check "blkid: iso9660" output_has "$out" 'TYPE="iso9660"'
	check "mount -o ro: the files match byte for byte" sh -c "mkdir -p $MNT &&
		mount -o ro -t iso9660 $sr $MNT && cmp $MNT/readme.txt $SRC/readme.txt &&
		cmp $MNT/data.bin $SRC/data.bin"
	umount $MNT 2>/dev/null
	out=$(dd if=/dev/zero bs=2048 count=1 status=none | sg_raw -s 2048 "$sg" \
		2a 00 00 00 00 10 00 00 01 00 2>&1)
	echo "$out" >> $LOG
	check "WRITE (10): DATA PROTECT, WRITE PROTECTED" \
		output_has "$out" "Data Protect" "Write protected"
	out=$(sense_of "$sg" 88 00 00 00 00 00 00 00 00 00 00 00 00 01 00 00)
	check "READ (16), which MMC lacks: INVALID COMMAND OPERATION CODE" \
		output_has "$out" "Illegal Request" "Invalid command operation code"
	out=$(sense_of "$sg" 4a 00 00 00 10 00 00 00 08 00)
	check "GET EVENT STATUS NOTIFICATION without POLLED: INVALID FIELD IN CDB" \
		output_has "$out" "Illegal Request" "Invalid field in cdb"
	cd_in_standby "$sg"
	check "the image is unchanged, and reads back through sr" sh -c "cmp $IMG $IMG.orig &&
		dd if=$sr bs=2048 count=18 iflag=direct status=none | cmp -n 36864 - $IMG"

	xcopy_into_cd "$sg"

	check "the nexus and the LUNs go" sh -c "echo NULL > $TPG/nexus &&
		rm $TPG/lun/lun_0/cd0 $TPG/lun/lun_1/r0 &&
		rmdir $TPG/lun/lun_0 $TPG/lun/lun_1 $TPG $KT_CFS/loopback/$WWN &&
		rmdir $RD $KT_CFS/core/rd_mcp_0"
	check "emulate_cdrom=0 once no LUN exports it; block_size 512 again" sh -c "
		echo 0 > $FD/attrib/emulate_cdrom && test \$(cat $FD/attrib/block_size) = 512"
	check "no object left" kt_objects_zero
	cd_refused_over_registration
	check "rmdir the device" sh -c "rmdir $FD $KT_CFS/core/fileio_0"

	cd_over_4k_blocks
	cd_image_not_grown

	targetcli_cdrom

	rmdir $KT_CFS/core/fileio_* 2>/dev/null
	rmdir $KT_CFS/loopback 2>/dev/null
	rmmod ktarget_loop 2>/dev/null
	check "rmmod the backstores and the core" sh -c "
		for m in ktarget_fileio ktarget_iblock ktarget_rd; do
			! grep -q \"^\$m \" /proc/modules || rmmod \$m || exit 1
		done; rmmod ktarget_core"
	KT_KMSG_MARK=$start_mark
	check "the kernel log shows no finding" kt_kmsg_clean
}

main "$@"
