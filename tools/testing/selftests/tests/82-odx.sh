#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Token copy (ODX: POPULATE TOKEN, WRITE USING TOKEN, RECEIVE ROD TOKEN
# INFORMATION) through iSCSI: copies between rd (512- and 4096-byte
# blocks), fileio and iblock LUNs of one TPG through the kernel initiator's
# sg nodes (odx.py; Debian 12's ddpt 0.97 misplaces the range descriptors
# of its ODX copies and zeroes nothing), each read back and compared;
# ddptctl decoding a token; VPD page 8Fh, REPORT SUPPORTED OPERATION CODES
# and emulate_3pc. Then the refusals ddpt cannot make, through the bare
# initiator (iscsi_rod.py): forged, altered, expired, revoked and deleted
# tokens, ranges, reservations, write protection, the per-LU token limit.
. ./lib.sh

WP_IQN=$KT_IQN-wp
MB=1048576
INI=iqn.2026-11.org.ktarget:rod

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
	check "brd ramdisk for iblock" modprobe brd rd_nr=1 rd_size=65536
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
	for l in lun_1/r1 lun_2/f0 lun_3/b0; do
		rm -f $tpg/lun/$l
		rmdir $tpg/lun/${l%/*} 2>/dev/null
	done
	rmdir $core/rd_mcp_1/r1 $core/rd_mcp_1 $core/rd_mcp_2/w0 $core/rd_mcp_2 \
	      $core/fileio_0/f0 $core/fileio_0 $core/iblock_0/b0 $core/iblock_0 2>/dev/null
	kt_iscsi_teardown
	rm -f /dev/shm/kt-odx.img
}

main() {
	local p=127.0.0.1:3260 core=$KT_CFS/core d0 d1 d2 d3 g0 g1 g2 g3 out c
	local limit=/sys/module/ktarget_core/parameters/rod_tokens_per_lu

	for t in ddpt ddptctl sg_vpd sg_opcodes python3; do
		command -v $t >/dev/null || { skip_all "odx: $t not installed"; return; }
	done
	plan 46
	setup
	# first, while LUN 3 has no token: 4 made, the fifth refused
	echo 4 > $limit
	check "POPULATE TOKEN beyond rod_tokens_per_lu: INSUFFICIENT RESOURCES" rod limit 3
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

	# --- token copies between every backstore (odx.py: PT, RRTI, WUT, RRTI) ---
	check "ODX rd -> fileio, 8 MiB" python3 ./odx.py copy $g0 0 $g2 0 $((8 * MB))
	check_copied "rd -> fileio: data read back" $d0 0 $d2 0 $((8 * MB))
	check "ODX fileio -> iblock, 8 MiB" python3 ./odx.py copy $g2 0 $g3 32768 $((8 * MB))
	check_copied "fileio -> iblock: data read back" $d2 0 $d3 $((16 * MB)) $((8 * MB))
	check "ODX iblock -> rd, 16 MiB" python3 ./odx.py copy $g3 0 $g0 65536 $((16 * MB))
	check_copied "iblock -> rd: data read back" $d3 0 $d0 $((32 * MB)) $((16 * MB))
	check "ODX within one LU (rd)" python3 ./odx.py copy $g0 4096 $g0 98304 $((4 * MB))
	check_copied "within one LU: data read back" $d0 $((2 * MB)) $d0 $((48 * MB)) $((4 * MB))
	check "ODX within one LU (iblock)" python3 ./odx.py copy $g3 0 $g3 65536 $((4 * MB))
	check_copied "iblock -> iblock: data read back" $d3 0 $d3 $((32 * MB)) $((4 * MB))

	# --- 4096-byte blocks: within a 4096 LU, and 4096 <-> 512 ---
	check "ODX rd 4096 -> rd 4096 (one LU)" python3 ./odx.py copy $g1 0 $g1 4096 $((4 * MB))
	check_copied "4096 -> 4096: data read back" $d1 0 $d1 $((16 * MB)) $((4 * MB))
	check "ODX 4096 -> 512 (rd -> fileio)" python3 ./odx.py copy $g1 0 $g2 8192 $((2 * MB))
	check_copied "4096 -> 512: data read back" $d1 0 $d2 $((4 * MB)) $((2 * MB))
	check "ODX 512 -> 4096 (rd -> rd), the token kept in a file" \
		python3 ./odx.py copy $g0 0 $g1 2048 $((2 * MB)) /tmp/kt-odx.rt
	check_copied "512 -> 4096: data read back" $d0 0 $d1 $((8 * MB)) $((2 * MB))
	out=$(ddptctl --info --rtf=/tmp/kt-odx.rt 2>&1)
	check "ddptctl --info decodes the token: type, creator, 2 MiB represented" \
		output_has "$out" "[Pp]oint in time" "change vulnerable" "2097152"

	# --- the counters of the copy manager count WRITE USING TOKEN ---
	c=$(cat $core/fileio_0/f0/statistics/xcopy/operations)
	check "ODX rd -> fileio once more" python3 ./odx.py copy $g0 0 $g2 0 $MB
	check "statistics/xcopy/operations counts it" \
		test "$(cat $core/fileio_0/f0/statistics/xcopy/operations)" -gt "$c"

	# --- emulate_3pc = 0 takes it away ---
	echo 0 > $core/rd_mcp_0/r0/attrib/emulate_3pc
	check_fails "emulate_3pc=0: POPULATE TOKEN refused" \
		ddptctl --pt=0,8 --rtf=/tmp/kt-odx-off.rt $g0
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
	check "a token used with DEL_TKN, then again: TOKEN DELETED" rod deleted
	check "ranges past the end, beyond the token: LBA OUT OF RANGE, UNDERRUN" rod range
	check "the zero token through the bare initiator" rod zero
	check "a destination another nexus reserved: RESERVATION CONFLICT" rod reserved
	check "a write-protected destination: DATA PROTECT" rod wp
	teardown
	check "rmmod ktarget_iscsi and the backstores" \
		rmmod ktarget_iscsi ktarget_fileio ktarget_iblock ktarget_rd
	# a token still in the table at unload is a WARNING (kt_rod_exit)
	check "rmmod ktarget_core: the LUs took their tokens with them" rmmod ktarget_core
	rmmod brd 2>/dev/null
}

main
