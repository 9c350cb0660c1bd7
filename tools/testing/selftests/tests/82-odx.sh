#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Token copy (ODX: POPULATE TOKEN, WRITE USING TOKEN, RECEIVE ROD TOKEN
# INFORMATION) through iSCSI: ddpt --odx copies between rd (512- and
# 4096-byte blocks), fileio and iblock LUNs of one TPG through the kernel
# initiator's sg nodes (same LU, other LUs, 512 <-> 4096, two ranges into
# one, IMMED, a token file written out later, the zero token), each read
# back and compared; one copy by odx.py, the commands as Windows sends
# them; ddptctl decoding a token; VPD page 8Fh, REPORT SUPPORTED OPERATION
# CODES and emulate_3pc. ddpt is Debian 12's 0.97 with one fix
# (tools/testing/ddpt: the packaged one puts its range descriptors a byte
# early). Then the refusals ddpt cannot make, through the bare initiator
# (iscsi_rod.py): forged, altered, expired, revoked (by a WRITE, by an
# UNMAP) and deleted tokens,
# ranges, reservations, write protection, the per-LU token limit, a WRITE
# under way (on dm-delay) when POPULATE TOKEN comes.
. ./lib.sh

WP_IQN=$KT_IQN-wp
MB=1048576
INI=iqn.2026-11.org.ktarget:rod
# Debian 12's ddpt 0.97 with odx-range-descriptors.patch (run-all.sh builds it)
DDPT=${KT_DDPT:-../ddpt/build/bin/ddpt}
DDPTCTL=${KT_DDPTCTL:-../ddpt/build/bin/ddptctl}

# md5 of BYTES bytes of $1 from byte OFFSET
sum_at() {
	dd if="$1" bs=4096 skip=$(($2 / 4096)) count=$(($3 / 4096)) iflag=direct status=none | md5sum
}

# check_copied DESCRIPTION SRC SRC_BYTE DST DST_BYTE BYTES
check_copied() {
	check_eq "$1" "$(sum_at "$4" "$5" "$6")" "$(sum_at "$2" "$3" "$6")"
}

# fill DEV MIB_OFFSET MIB_COUNT: random data
fill() {
	head -c $(($3 * MB)) /dev/urandom | dd of="$1" bs=1M seek="$2" oflag=direct status=none
}

# rod CASE: one case of iscsi_rod.py, LUN 0 (rd) to LUN 2 (fileio)
rod() {
	timeout 120 python3 ./iscsi_rod.py "$1" 127.0.0.1:3260 $KT_IQN $INI "${2:-0}" 2 \
		127.0.0.1:3262 $WP_IQN
}

setup() {
	local tpg=$KT_CFS/iscsi/$KT_IQN/tpgt_1 wtpg=$KT_CFS/iscsi/$WP_IQN/tpgt_1
	local core=$KT_CFS/core

	check "target set up" kt_iscsi_setup
	check "brd ramdisks for iblock" modprobe brd rd_nr=2 rd_size=65536
	check "LUNs 1-3: rd with 4096-byte blocks, fileio on tmpfs, iblock on brd" sh -c "
		mkdir -p $core/rd_mcp_1/r1 && echo rd_pages=8192 > $core/rd_mcp_1/r1/control &&
		echo 1 > $core/rd_mcp_1/r1/enable &&
		echo 4096 > $core/rd_mcp_1/r1/attrib/block_size &&
		mkdir -p $core/fileio_0/f0 &&
		echo fd_dev_name=/dev/shm/kt-odx.img,fd_dev_size=67108864 > $core/fileio_0/f0/control &&
		echo 1 > $core/fileio_0/f0/enable &&
		mkdir -p $core/iblock_0/b0 && echo udev_path=/dev/ram0 > $core/iblock_0/b0/control &&
		echo 1 > $core/iblock_0/b0/enable &&
		mkdir $tpg/lun/lun_1 $tpg/lun/lun_2 $tpg/lun/lun_3 &&
		ln -s $core/rd_mcp_1/r1 $tpg/lun/lun_1/r1 &&
		ln -s $core/fileio_0/f0 $tpg/lun/lun_2/f0 &&
		ln -s $core/iblock_0/b0 $tpg/lun/lun_3/b0"
	check "LUN 4: iblock on dm-delay over brd, writes take 3 s" sh -c "
		modprobe dm-delay &&
		DM_DISABLE_UDEV=1 dmsetup --noudevsync create kt-odx-slow --table '0 131072 delay /dev/ram1 0 0 /dev/ram1 0 3000' &&
		mkdir -p $core/iblock_1/slow &&
		echo udev_path=/dev/mapper/kt-odx-slow > $core/iblock_1/slow/control &&
		echo 1 > $core/iblock_1/slow/enable &&
		mkdir $tpg/lun/lun_4 && ln -s $core/iblock_1/slow $tpg/lun/lun_4/slow"
	check "a second target, write-protected, on 127.0.0.1:3262" sh -c "
		mkdir -p $core/rd_mcp_2/w0 && echo rd_pages=4096 > $core/rd_mcp_2/w0/control &&
		echo 1 > $core/rd_mcp_2/w0/enable &&
		mkdir -p $wtpg/lun/lun_0 && ln -s $core/rd_mcp_2/w0 $wtpg/lun/lun_0/w0 &&
		mkdir $wtpg/np/127.0.0.1:3262 &&
		echo 0 > $wtpg/attrib/authentication &&
		echo 1 > $wtpg/attrib/generate_node_acls &&
		echo 1 > $wtpg/attrib/demo_mode_write_protect &&
		echo 1 > $wtpg/enable"
}

teardown() {
	local tpg=$KT_CFS/iscsi/$KT_IQN/tpgt_1 wtpg=$KT_CFS/iscsi/$WP_IQN/tpgt_1
	local core=$KT_CFS/core l

	iscsiadm -m node --logoutall=all >/dev/null 2>&1
	iscsiadm -m node -o delete >/dev/null 2>&1
	[ -e $wtpg/enable ] && echo 0 > $wtpg/enable
	rmdir $wtpg/np/127.0.0.1:3262 2>/dev/null
	rm -f $wtpg/lun/lun_0/w0
	rmdir $wtpg/lun/lun_0 $wtpg $KT_CFS/iscsi/$WP_IQN 2>/dev/null
	for l in lun_1/r1 lun_2/f0 lun_3/b0 lun_4/slow; do
		rm -f $tpg/lun/$l
		rmdir $tpg/lun/${l%/*} 2>/dev/null
	done
	rmdir $core/rd_mcp_1/r1 $core/rd_mcp_1 $core/rd_mcp_2/w0 $core/rd_mcp_2 \
	      $core/fileio_0/f0 $core/fileio_0 $core/iblock_0/b0 $core/iblock_0 \
	      $core/iblock_1/slow $core/iblock_1 2>/dev/null
	DM_DISABLE_UDEV=1 dmsetup --noudevsync remove kt-odx-slow 2>/dev/null
	kt_iscsi_teardown
	rm -f /dev/shm/kt-odx.img
}

main() {
	local p=127.0.0.1:3260 core=$KT_CFS/core d0 d1 d2 d3 g0 g1 g2 g3 out c
	local limit=/sys/module/ktarget_core/parameters/rod_tokens_per_lu

	for t in sg_vpd sg_opcodes python3; do
		command -v $t >/dev/null || { skip_all "odx: $t not installed"; return; }
	done
	plan 62
	check "ddpt with the ODX fix (tools/testing/ddpt/build.sh)" test -x $DDPT -a -x $DDPTCTL
	setup
	# first, while LUN 3 has no token: a table of 4, one nexus fills it
	echo 4 > $limit
	check "rod_tokens_per_lu full of one nexus's tokens: another nexus still gets one, the hoarder loses its oldest" rod limit 3
	echo 128 > $limit

	check "iscsid starts" kt_iscsid_start
	check "sg driver" modprobe sg
	iscsiadm -m discovery -t st -p $p >/dev/null 2>&1
	check "login" iscsiadm -m node -T $KT_IQN -p $p --login
	d0=$(disk_of $KT_IQN 0)
	d1=$(disk_of $KT_IQN 1)
	d2=$(disk_of $KT_IQN 2)
	d3=$(disk_of $KT_IQN 3)
	if ! test -b "$d0" -a -b "$d1" -a -b "$d2" -a -b "$d3"; then
		not_ok "four disks appear" "$d0 $d1 $d2 $d3"
		teardown
		return
	fi
	ok "four disks appear"
	g0=$(sg_of $d0)
	g1=$(sg_of $d1)
	g2=$(sg_of $d2)
	g3=$(sg_of $d3)
	check "sg nodes of LUNs 0-3" test -c "$g0" -a -c "$g1" -a -c "$g2" -a -c "$g3"
	fill $d0 0 16
	fill $d1 0 8
	fill $d3 0 16

	# --- what an initiator sees before it copies ---
	out=$(sg_vpd -p 0x8f $g0 2>&1)
	check "VPD 8Fh: Block Device ROD Token Limits, 32 range descriptors" \
		output_has "$out" "ROD Token Limits" "[Mm]aximum range descriptors: 32"
	check_eq "VPD 8Fh: default inactivity timeout is attrib/rod_inactivity_timeout" \
		"$(printf '%s\n' "$out" | sed -n 's/.*[Dd]efault inactivity timeout: *\([0-9]*\).*/\1/p')" \
		"$(cat $core/rd_mcp_0/r0/attrib/rod_inactivity_timeout)"
	out=$(sg_opcodes $g0 2>&1)
	check "REPORT SUPPORTED OPERATION CODES lists POPULATE TOKEN, WRITE USING TOKEN, RRTI" \
		output_has "$out" "83 *10" "83 *11" "84 *7"

	# --- token copies between every backstore: ddpt --odx (PT, RRTI, WUT,
	# RRTI per piece); its ranges as LBA,COUNT lists, the form whose
	# descriptors ddpt 0.97 builds (a bare skip=N has no count there) ---
	check "ddpt ODX rd -> fileio, 8 MiB" \
		$DDPT --odx if=$g0 skip=0,16384 of=$g2 seek=0,16384 bs=512
	check_copied "rd -> fileio: data read back" $d0 0 $d2 0 $((8 * MB))
	check "ddpt ODX fileio -> iblock, 8 MiB" \
		$DDPT --odx if=$g2 skip=0,16384 of=$g3 seek=32768,16384 bs=512
	check_copied "fileio -> iblock: data read back" $d2 0 $d3 $((16 * MB)) $((8 * MB))
	check "ddpt ODX iblock -> rd, 16 MiB" \
		$DDPT --odx if=$g3 skip=0,32768 of=$g0 seek=65536,32768 bs=512
	check_copied "iblock -> rd: data read back" $d3 0 $d0 $((32 * MB)) $((16 * MB))
	check "ddpt ODX within one LU (rd)" \
		$DDPT --odx if=$g0 skip=4096,8192 of=$g0 seek=98304,8192 bs=512
	check_copied "within one LU: data read back" $d0 $((2 * MB)) $d0 $((48 * MB)) $((4 * MB))
	check "ddpt ODX within one LU (iblock)" \
		$DDPT --odx if=$g3 skip=0,8192 of=$g3 seek=65536,8192 bs=512
	check_copied "iblock -> iblock: data read back" $d3 0 $d3 $((32 * MB)) $((4 * MB))
	check "ddpt ODX two source ranges into one destination range (rd -> fileio)" \
		$DDPT --odx if=$g0 skip=2048,4096,10240,4096 of=$g2 seek=20480,8192 bs=512
	check_copied "first range read back" $d0 $((1 * MB)) $d2 $((10 * MB)) $((2 * MB))
	check_copied "second range read back" $d0 $((5 * MB)) $d2 $((12 * MB)) $((2 * MB))
	check "ddpt ODX with IMMED (RRTI polls), fileio -> rd" \
		$DDPT --odx if=$g2 skip=0,8192 of=$g0 seek=114688,8192 bs=512 iflag=immed oflag=immed
	check_copied "IMMED copy: data read back" $d2 0 $d0 $((56 * MB)) $((4 * MB))

	# --- 4096-byte blocks: within a 4096 LU, and 4096 <-> 512 ---
	check "ddpt ODX rd 4096 -> rd 4096 (one LU)" \
		$DDPT --odx if=$g1 skip=0,1024 of=$g1 seek=4096,1024 bs=4096
	check_copied "4096 -> 4096: data read back" $d1 0 $d1 $((16 * MB)) $((4 * MB))
	check "ddpt ODX 4096 -> 512 (rd -> fileio)" \
		$DDPT --odx if=$g1 skip=0,512 ibs=4096 of=$g2 seek=8192,4096 obs=512
	check_copied "4096 -> 512: data read back" $d1 0 $d2 $((4 * MB)) $((2 * MB))
	check "ddpt ODX 512 -> 4096 (rd -> rd)" \
		$DDPT --odx if=$g0 skip=0,4096 ibs=512 of=$g1 seek=2048,512 obs=4096
	check_copied "512 -> 4096: data read back" $d0 0 $d1 $((8 * MB)) $((2 * MB))

	# --- ddpt's network copy: tokens into a file, written out later ---
	check "ddpt reads into a ROD token file (POPULATE TOKEN only)" \
		$DDPT if=$g3 skip=0,4096 bs=512 rtf=/tmp/kt-odx.rt
	check "ddpt writes from the token file (WRITE USING TOKEN only)" \
		$DDPT rtf=/tmp/kt-odx.rt of=$g2 seek=40960,4096 bs=512
	check_copied "token file copy: data read back" $d3 0 $d2 $((20 * MB)) $((2 * MB))
	out=$($DDPTCTL --info --rtf=/tmp/kt-odx.rt 2>&1)
	check "ddptctl --info decodes the token: type, creator, 2 MiB represented" \
		output_has "$out" "[Pp]oint in time" "change vulnerable" "2097152"

	# --- the block device zero ROD token ---
	check "ddpt ODX writes zeroes (rtype=zero: the zero token)" \
		$DDPT if=/dev/null rtype=zero bs=512 of=$g2 seek=2048,2048
	check_eq "zeroed range reads back as zeroes" "$(sum_at $d2 $MB $MB)" \
		"$(head -c $MB /dev/zero | md5sum)"

	# --- odx.py: the four commands as Windows sends them ---
	check "odx.py rd -> fileio, 4 MiB" python3 ./odx.py copy $g0 0 $g2 $((48 * 2048)) $((4 * MB))
	check_copied "odx.py copy: data read back" $d0 0 $d2 $((48 * MB)) $((4 * MB))

	# --- the counters of the copy manager count WRITE USING TOKEN ---
	c=$(cat $core/fileio_0/f0/statistics/xcopy/operations)
	check "ODX rd -> fileio once more" python3 ./odx.py copy $g0 0 $g2 0 $MB
	check "statistics/xcopy/operations counts it" \
		test "$(cat $core/fileio_0/f0/statistics/xcopy/operations)" -gt "$c"

	# --- emulate_3pc = 0 takes it away ---
	echo 0 > $core/rd_mcp_0/r0/attrib/emulate_3pc
	check_fails "emulate_3pc=0: POPULATE TOKEN refused" \
		$DDPTCTL --pt=0,8 --rtf=/tmp/kt-odx-off.rt $g0
	out=$(sg_opcodes $g0 2>&1)
	check_fails "emulate_3pc=0: not listed by RSOC" output_has "$out" "83 *10"
	echo 1 > $core/rd_mcp_0/r0/attrib/emulate_3pc

	iscsiadm -m node --logoutall=all >/dev/null 2>&1

	# --- what ddpt cannot send: the bare initiator ---
	check "token used from a second nexus, split ranges, OFFSET INTO ROD" rod copy
	check "a forged token: TOKEN UNKNOWN" rod forged
	check "an altered token: TOKEN CORRUPT; the genuine one works" rod altered
	check "a token past its inactivity timeout: TOKEN EXPIRED" rod expired
	check "a token whose source was written: TOKEN REVOKED" rod revoked
	check "UNMAP beside a token, a refused WRITE SAME leave it; UNMAP of its blocks: TOKEN REVOKED" \
		rod unmap
	check "a token used with DEL_TKN, then again: TOKEN DELETED" rod deleted
	check "ranges past the end, beyond the token: LBA OUT OF RANGE, UNDERRUN" rod range
	check "the zero token through the bare initiator" rod zero
	check "a destination another nexus reserved: RESERVATION CONFLICT" rod reserved
	check "a write-protected destination: DATA PROTECT" rod wp
	check "a WRITE under way at POPULATE TOKEN: the token holds what it left" \
		rod inflight 4
	teardown
	check "rmmod ktarget_iscsi and the backstores" \
		rmmod ktarget_iscsi ktarget_fileio ktarget_iblock ktarget_rd
	# a token still in the table at unload is a WARNING (kt_rod_exit)
	check "rmmod ktarget_core: the LUs took their tokens with them" rmmod ktarget_core
	rmmod brd 2>/dev/null
}

main
