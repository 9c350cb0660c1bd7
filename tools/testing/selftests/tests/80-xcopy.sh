#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# EXTENDED COPY through iSCSI: rd (512- and 4096-byte blocks), fileio (on XFS) and
# iblock LUNs of one TPG, driven by the kernel initiator with sg_xcopy and
# hand-built parameter lists (xcopy.py). Every copy is checked byte for byte
# by reading back; copies that must fail are checked to leave the
# destination untouched. Then the statistics/xcopy counters, RECEIVE COPY
# RESULTS, and libiscsi's ExtendedCopy and ReceiveCopyResults families.
. ./lib.sh

HIDDEN_IQN=$KT_IQN-hidden
STAT=statistics/xcopy
MB=1048576

# md5 of COUNT MiB of $1 from MiB SKIP
sum_of() {
	dd if="$1" bs=1M skip="$2" count="$3" iflag=direct status=none | md5sum | cut -d' ' -f1
}

# check_copied DESCRIPTION SRC SRC_BYTE DST DST_BYTE BYTES: equal ranges
check_copied() {
	local a b
	a=$(dd if="$2" bs=4096 skip=$(($3 / 4096)) count=$(($6 / 4096)) iflag=direct status=none | md5sum)
	b=$(dd if="$4" bs=4096 skip=$(($5 / 4096)) count=$(($6 / 4096)) iflag=direct status=none | md5sum)
	check_eq "$1" "$b" "$a"
}

# xstat DEV NAME: a counter of the device's statistics/xcopy
xstat() { cat "$1/$STAT/$2"; }

# copy_counts DEV: the counters a passthrough copy moves, in the order
# operations chunks sgl_allocs sgl_reuses bytes
copy_counts() {
	local c
	for c in operations chunks sgl_allocs sgl_reuses bytes; do
		printf '%s ' "$(xstat "$1" $c)"
	done
}

# copy_delta BEFORE AFTER (copy_counts outputs): operations, chunks,
# scatterlists (allocated + reused), scatterlists reused, bytes
copy_delta() {
	echo "$1 $2" | awk '{ print $6 - $1, $7 - $2, $8 - $3 + $9 - $4, $9 - $4, $10 - $5 }'
}

# fill DEV MIB_OFFSET MIB_COUNT: random data
fill() {
	head -c $(($3 * MB)) /dev/urandom | dd of="$1" bs=1M seek="$2" oflag=direct status=none
}

setup() {
	local tpg=$KT_CFS/iscsi/$KT_IQN/tpgt_1 htpg=$KT_CFS/iscsi/$HIDDEN_IQN/tpgt_1
	local core=$KT_CFS/core

	check "target set up" kt_iscsi_setup
	check "brd ramdisk for iblock" modprobe brd rd_nr=1 rd_size=65536
	# XFS shares extents: fileio's copy_range reflinks there
	check "an XFS filesystem for the fileio device" sh -c "modprobe loop && modprobe xfs &&
		mkdir -p $XFS &&
		truncate -s 512M /dev/shm/kt-xcopy-xfs.img &&
		mkfs.xfs -q -f /dev/shm/kt-xcopy-xfs.img &&
		mount -o loop /dev/shm/kt-xcopy-xfs.img $XFS"
	check "rd device with 4096-byte blocks" sh -c "mkdir -p $core/rd_mcp_1/r1 &&
		echo rd_pages=8192 > $core/rd_mcp_1/r1/control &&
		echo 1 > $core/rd_mcp_1/r1/enable &&
		echo 4096 > $core/rd_mcp_1/r1/attrib/block_size"
	check "fileio device on tmpfs" sh -c "mkdir -p $core/fileio_0/f0 &&
		echo fd_dev_name=$FILE,fd_dev_size=67108864 > $core/fileio_0/f0/control &&
		echo 1 > $core/fileio_0/f0/enable"
	check "iblock device on brd" sh -c "mkdir -p $core/iblock_0/b0 &&
		echo udev_path=/dev/ram0 > $core/iblock_0/b0/control &&
		echo 1 > $core/iblock_0/b0/enable"
	check "LUNs 1-3: rd 4096, fileio, iblock" sh -c "
		mkdir $tpg/lun/lun_1 $tpg/lun/lun_2 $tpg/lun/lun_3 &&
		ln -s $core/rd_mcp_1/r1 $tpg/lun/lun_1/r1 &&
		ln -s $core/fileio_0/f0 $tpg/lun/lun_2/f0 &&
		ln -s $core/iblock_0/b0 $tpg/lun/lun_3/b0"
	check "statistics/xcopy counters exist and start at zero" sh -c "
		test \$(cat $core/rd_mcp_0/r0/$STAT/operations) = 0 &&
		test \$(cat $core/rd_mcp_0/r0/$STAT/sgl_allocs) = 0"
	# a second target the test initiator logs in to apart: its device
	# must be unreachable from the first target's session
	check "a second, write-protected target with its own rd device" sh -c "
		mkdir -p $core/rd_mcp_2/h0 &&
		echo rd_pages=4096 > $core/rd_mcp_2/h0/control &&
		echo 1 > $core/rd_mcp_2/h0/enable &&
		mkdir -p $htpg/lun/lun_0 &&
		ln -s $core/rd_mcp_2/h0 $htpg/lun/lun_0/h0 &&
		mkdir $htpg/np/127.0.0.1:3262 &&
		echo 0 > $htpg/attrib/authentication &&
		echo 1 > $htpg/attrib/generate_node_acls &&
		echo 1 > $htpg/attrib/demo_mode_write_protect &&
		echo 1 > $htpg/enable"
}

teardown() {
	local tpg=$KT_CFS/iscsi/$KT_IQN/tpgt_1 htpg=$KT_CFS/iscsi/$HIDDEN_IQN/tpgt_1
	local core=$KT_CFS/core l

	iscsiadm -m node --logoutall=all >/dev/null 2>&1
	iscsiadm -m node -o delete >/dev/null 2>&1
	[ -e $htpg/enable ] && echo 0 > $htpg/enable
	rmdir $htpg/np/127.0.0.1:3262 2>/dev/null
	rm -f $htpg/lun/lun_0/h0
	rmdir $htpg/lun/lun_0 $htpg $KT_CFS/iscsi/$HIDDEN_IQN 2>/dev/null
	for l in lun_1/r1 lun_2/f0 lun_3/b0; do
		rm -f $tpg/lun/$l
		rmdir $tpg/lun/${l%/*} 2>/dev/null
	done
	rmdir $core/rd_mcp_1/r1 $core/rd_mcp_1 $core/rd_mcp_2/h0 $core/rd_mcp_2 \
	      $core/fileio_0/f0 $core/fileio_0 $core/iblock_0/b0 $core/iblock_0 2>/dev/null
	kt_iscsi_teardown
	rm -f $FILE
	umount $XFS 2>/dev/null
	rm -f /dev/shm/kt-xcopy-xfs.img
}

main() {
	local p=127.0.0.1:3260 core=$KT_CFS/core d0 d1 d2 d3 dh out
	local r0 r1 f0 b0 before naa_h sum pids i res g0 g2 g3 pid c0 f0c a0 u0 depth
	XFS=/mnt/kt-xcopy-xfs
	FILE=$XFS/kt-xcopy.img
	r0=$core/rd_mcp_0/r0
	f0=$core/fileio_0/f0
	b0=$core/iblock_0/b0

	for t in sg_xcopy sg_raw sg_vpd sg_copy_results python3 mkfs.xfs; do
		command -v $t >/dev/null || { skip_all "xcopy: $t not installed"; return; }
	done
	plan 81
	setup
	check "iscsid starts" kt_iscsid_start
	# sg_xcopy addresses the disks through their sg nodes
	check "sg driver" modprobe sg
	iscsiadm -m discovery -t st -p $p >/dev/null 2>&1
	iscsiadm -m discovery -t st -p 127.0.0.1:3262 >/dev/null 2>&1
	check "login to both targets" sh -c "
		iscsiadm -m node -T $KT_IQN -p $p --login >/dev/null &&
		iscsiadm -m node -T $HIDDEN_IQN -p 127.0.0.1:3262 --login >/dev/null"
	d0=$(disk_of $KT_IQN 0)
	d1=$(disk_of $KT_IQN 1)
	d2=$(disk_of $KT_IQN 2)
	d3=$(disk_of $KT_IQN 3)
	dh=$(disk_of $HIDDEN_IQN 0)
	if ! test -b "$d0" -a -b "$d1" -a -b "$d2" -a -b "$d3" -a -b "$dh"; then
		not_ok "five disks appear" "$d0 $d1 $d2 $d3 $dh"
		teardown
		return
	fi
	ok "five disks appear"
	check_eq "LUN 1 has 4096-byte blocks" "$(blockdev --getss $d1)" 4096
	g0=$(sg_of $d0)
	g2=$(sg_of $d2)
	g3=$(sg_of $d3)
	check "sg nodes of LUNs 0, 2, 3" test -c "$g0" -a -c "$g2" -a -c "$g3"
	fill $d0 0 16
	fill $d1 0 4
	fill $d2 0 4
	fill $d3 16 8

	# --- sg_xcopy between LUNs of every backstore, 512-byte blocks ---
	check "sg_xcopy rd -> fileio, 4 MiB" \
		sg_xcopy if=$g0 of=$g2 bs=512 skip=2048 seek=16384 count=8192 bpt=8192
	check_copied "rd -> fileio: data read back" $d0 $((1 * MB)) $d2 $((8 * MB)) $((4 * MB))
	check "sg_xcopy fileio -> iblock, 4 MiB in 1 MiB commands" \
		sg_xcopy if=$g2 of=$g3 bs=512 skip=16384 seek=40960 count=8192 bpt=2048
	check_copied "fileio -> iblock: data read back" $d2 $((8 * MB)) $d3 $((20 * MB)) $((4 * MB))
	check "sg_xcopy iblock -> rd, 8 MiB" \
		sg_xcopy if=$g3 of=$g0 bs=512 skip=32768 seek=32768 count=16384 bpt=16384
	check_copied "iblock -> rd: data read back" $d3 $((16 * MB)) $d0 $((16 * MB)) $((8 * MB))
	check "sg_xcopy within one fileio LUN" \
		sg_xcopy if=$g2 of=$g2 bs=512 skip=0 seek=65536 count=4096 bpt=4096
	check_copied "within one LUN: data read back" $d2 0 $d2 $((32 * MB)) $((2 * MB))
	check "fileio -> fileio on XFS went through the backstore's copy_range (reflink)" \
		test "$(xstat $f0 fast_copies)" -ge 1
	check "sg_xcopy sent to the source (on_src)" \
		sg_xcopy if=$g0 of=$g3 bs=512 skip=0 seek=0 count=2048 bpt=2048 --on_src
	check_copied "on_src: data read back" $d0 0 $d3 0 $MB

	# --- overlapping ranges in one LUN: the result is the source as it was ---
	echo 64 > /sys/module/ktarget_core/parameters/xcopy_max_chunk_kb
	dd if=$d0 of=/tmp/kt-src bs=1M count=4 iflag=direct status=none
	check "overlapping copy forward (dst = src + 100 blocks)" \
		python3 ./xcopy.py copy $d0 $d0 -- 0:0:6000:0:100
	dd if=$d0 of=/tmp/kt-dst bs=1M count=4 iflag=direct status=none
	check_eq "forward overlap: destination holds the old source" \
		"$(dd if=/tmp/kt-dst bs=512 skip=100 count=6000 status=none | md5sum)" \
		"$(dd if=/tmp/kt-src bs=512 count=6000 status=none | md5sum)"
	dd if=$d0 of=/tmp/kt-src bs=1M count=4 iflag=direct status=none
	check "overlapping copy backward (dst = src - 7 blocks)" \
		python3 ./xcopy.py copy $d0 $d0 -- 0:0:6000:7:0
	dd if=$d0 of=/tmp/kt-dst bs=1M count=4 iflag=direct status=none
	check_eq "backward overlap: destination holds the old source" \
		"$(dd if=/tmp/kt-dst bs=512 count=6000 status=none | md5sum)" \
		"$(dd if=/tmp/kt-src bs=512 skip=7 count=6000 status=none | md5sum)"

	echo 16384 > /sys/module/ktarget_core/parameters/xcopy_max_chunk_kb

	# --- 512 <-> 4096-byte blocks ---
	check "512 -> 4096: 8192 source blocks to LBA 256 of LUN 1" \
		python3 ./xcopy.py copy $d1 $d0 $d1 -- 0:1:8192:4096:256
	check_copied "512 -> 4096: data read back" $d0 $((2 * MB)) $d1 $((1 * MB)) $((4 * MB))
	check "rd -> rd went through the backstore's copy_range" \
		test "$(xstat $core/rd_mcp_1/r1 fast_copies)" -ge 1
	check "4096 -> 512: 4096 destination blocks (DC) to LBA 65536 of LUN 2" \
		python3 ./xcopy.py copy $d2 $d1 $d2 -- 0:1:4096:0:65536:dc
	check_copied "4096 -> 512: data read back" $d1 0 $d2 $((32 * MB)) $((2 * MB))

	# --- rd -> rd in chunks: copy_range, several chunks in flight, no buffer ---
	r1=$core/rd_mcp_1/r1
	before="$(xstat $r1 chunks) $(xstat $r1 fast_copies) $(xstat $r1 sgl_allocs) $(xstat $r1 sgl_reuses)"
	depth=$(cat /sys/module/ktarget_core/parameters/xcopy_depth)
	echo 4 > /sys/module/ktarget_core/parameters/xcopy_depth
	echo 1024 > /sys/module/ktarget_core/parameters/xcopy_max_chunk_kb
	check "rd -> rd, 8 MiB in chunks of at most 1 MiB, xcopy_depth 4" \
		python3 ./xcopy.py copy $d1 $d0 $d1 -- 0:1:16384:8192:2048
	echo 16384 > /sys/module/ktarget_core/parameters/xcopy_max_chunk_kb
	echo "$depth" > /sys/module/ktarget_core/parameters/xcopy_depth
	check_copied "rd -> rd in chunks: data read back" $d0 $((4 * MB)) $d1 $((8 * MB)) $((8 * MB))
	read -r c0 f0c a0 u0 <<< "$before"
	check "rd -> rd in chunks: one copy_range segment, chunks counted, no buffer taken" \
		test "$(xstat $r1 fast_copies)" = $((f0c + 1)) -a \
		"$(xstat $r1 chunks)" -ge $((c0 + 7)) -a \
		"$(xstat $r1 sgl_allocs)" = "$a0" -a "$(xstat $r1 sgl_reuses)" = "$u0"
	out=$(python3 ./xcopy.py copy $d1 $d0 $d1 -- 0:1:7:0:0 2>&1)
	if printf '%s' "$out" | grep -qi "copy aborted"; then
		ok "7 blocks of 512 bytes into 4096-byte blocks: COPY ABORTED"
	else
		not_ok "7 blocks of 512 bytes into 4096-byte blocks: COPY ABORTED" "$out"
	fi

	# --- several segments in one command, across backstores ---
	check "one command, four segments: rd, fileio, iblock, rd 4096" \
		python3 ./xcopy.py copy $d0 $d0 $d2 $d3 $d1 -- \
			0:1:2048:0:80000 1:2:2048:80000:100000 2:3:2048:100000:6144 \
			ffff:1:1024:304:90000
	check_copied "segment 1 rd -> fileio" $d0 0 $d2 $((80000 * 512)) $MB
	check_copied "segment 2 fileio -> iblock" $d2 $((80000 * 512)) $d3 $((100000 * 512)) $MB
	check_copied "segment 3 iblock -> rd 4096" $d3 $((100000 * 512)) $d1 $((6144 * 4096)) $MB
	check_copied "segment 4 (FFFFh source) rd -> fileio" $d0 $((304 * 512)) $d2 $((90000 * 512)) $((512 * 1024))

	# --- concurrent copies (LIST IDENTIFIERs of running copies differ) ---
	pids=
	for i in 0 1 2 3; do
		sg_xcopy if=$g0 of=$g2 bs=512 skip=$((i * 8192)) seek=$((98304 + i * 8192)) \
			count=8192 bpt=8192 list_id=$((20 + i)) >/dev/null 2>&1 &
		pids="$pids $!"
	done
	out=0
	for i in $pids; do wait $i || out=1; done
	check_eq "four concurrent sg_xcopy commands succeed" $out 0
	check_copied "concurrent copies: data read back" $d0 0 $d2 $((48 * MB)) $((16 * MB))

	# --- a device the session has no LUN for ---
	naa_h=$(python3 ./xcopy.py naa $dh)
	sum=$(sum_of $dh 0 8)
	out=$(python3 ./xcopy.py copy $d0 $d0 naa:$naa_h -- 0:1:2048:0:0 2>&1)
	if printf '%s' "$out" | grep -qi "copy aborted" &&
	   printf '%s' "$out" | grep -qi "copy target device not reachable"; then
		ok "a device of another target: COPY TARGET DEVICE NOT REACHABLE"
	else
		not_ok "a device of another target: COPY TARGET DEVICE NOT REACHABLE" "$out"
	fi
	check_eq "... and it is untouched" "$(sum_of $dh 0 8)" "$sum"
	out=$(python3 ./xcopy.py copy --ro $dh $dh $dh -- 0:1:16:0:4096 2>&1)
	if printf '%s' "$out" | grep -qi "data protect"; then
		ok "a write-protected destination: DATA PROTECT"
	else
		not_ok "a write-protected destination: DATA PROTECT" "$out"
	fi
	check_eq "... and it is untouched" "$(sum_of $dh 0 8)" "$sum"

	# --- counters: 64 chunks, one scatterlist ---
	check "xcopy_max_chunk_kb=64" sh -c "echo 64 > /sys/module/ktarget_core/parameters/xcopy_max_chunk_kb"
	# a scatterlist is allocated, or taken over from an earlier copy
	before=$(copy_counts $f0)
	check "sg_xcopy of 4 MiB in 64 KiB chunks, sent to the destination" \
		sg_xcopy if=$g0 of=$g2 bs=512 skip=0 seek=0 count=8192 bpt=8192 --on_dst
	set -- $(copy_delta "$before" "$(copy_counts $f0)")
	check_eq "one operation, 64 chunks, 1 scatterlist, 4 MiB" "$1 $2 $3 $5" "1 64 1 4194304"
	# a copy's buffer is kept a while: of two copies sent back to back
	# (one sg_xcopy, two EXTENDED COPY commands of 4 MiB), the second
	# takes over the first one's scatterlist
	before=$(copy_counts $f0)
	check "sg_xcopy of 8 MiB as two commands, back to back" \
		sg_xcopy if=$g0 of=$g2 bs=512 skip=0 seek=0 count=16384 bpt=8192 --on_dst
	set -- $(copy_delta "$before" "$(copy_counts $f0)")
	check_eq "two operations, 128 chunks, 2 scatterlists, at least one reused" \
		"$1 $2 $3 $(($4 >= 1))" "2 128 2 1"
	echo 16384 > /sys/module/ktarget_core/parameters/xcopy_max_chunk_kb
	check_copied "64-chunk copies: data read back" $d0 0 $d2 0 $((8 * MB))
	echo "# $f0/$STAT: $(for c in operations failures segments bytes chunks sgl_allocs sgl_reuses fast_copies aborts; do printf '%s=%s ' $c $(xstat $f0 $c); done)"
	check "failures are counted" test "$(xstat $r0 failures)" -ge 1 -a \
		"$(xstat $core/rd_mcp_1/r1 failures)" -ge 1

	# --- ABORT TASK, PREEMPT AND ABORT: a running copy of 64 MiB in 64 KiB chunks ---
	echo 64 > /sys/module/ktarget_core/parameters/xcopy_max_chunk_kb
	naa0=$(python3 ./xcopy.py naa $d0)
	naa2=$(python3 ./xcopy.py naa $d2)
	before="$(xstat $r0 aborts) $(xstat $r0 chunks)"
	out=$(timeout 60 python3 ./iscsi_abort.py xcopy $p $KT_IQN $naa0 $naa2 2>&1)
	echo "$out" | sed 's/^/# /'
	check "ABORT TASK of a running EXTENDED COPY: FUNCTION COMPLETE, no response for the copy" \
		output_has "$out" 'ABORT TASK response: 0' \
			'aborted copy: none'
	check "the session goes on after the abort" \
		output_has "$out" 'after the abort: status 0x0'
	set -- $before
	check "the copy stopped between chunks, before its end (aborts +1, < 1024 chunks)" \
		test $(($(xstat $r0 aborts) - $1)) = 1 -a $(($(xstat $r0 chunks) - $2)) -lt 1024
	before=$(xstat $r0 aborts)
	out=$(timeout 90 python3 ./iscsi_abort.py preempt $p $KT_IQN $naa0 $naa2 2>&1)
	echo "$out" | sed 's/^/# /'
	echo 16384 > /sys/module/ktarget_core/parameters/xcopy_max_chunk_kb
	check "PREEMPT AND ABORT ends GOOD" \
		output_has "$out" 'PREEMPT AND ABORT: status 0x0'
	check "... the preempted initiator's running copy ends TASK ABORTED (TAS=1)" \
		output_has "$out" 'initiator.s copy: status 0x40'
	check "... and its next command gets REGISTRATIONS PREEMPTED (6/2A/05)" \
		output_has "$out" 'its next command: status 0x2 sense 6/2a/05'
	check "... the copy stopped between chunks" test $(($(xstat $r0 aborts) - before)) = 1

	# the connection of a running copy drops: SAM-5 I_T nexus loss aborts
	# the session's tasks, and the reinstating login does not wait for them
	before="$(xstat $r0 aborts) $(xstat $r0 chunks)"
	echo 64 > /sys/module/ktarget_core/parameters/xcopy_max_chunk_kb
	out=$(timeout 120 python3 ./iscsi_abort.py close $p $KT_IQN $naa0 $naa2 \
		$r0/$STAT/chunks 2>&1)
	echo "$out" | sed 's/^/# /'
	kt_wait_for 60 test "$(xstat $r0 aborts)" -gt "${before%% *}"
	echo 16384 > /sys/module/ktarget_core/parameters/xcopy_max_chunk_kb
	check "a dropped connection's copy: the reinstated session serves commands" \
		output_has "$out" 'TEST UNIT READY in the new session: status 0x0'
	set -- $before
	check "... the copy was aborted between chunks, before its end (aborts +1, < 1024 chunks)" \
		test $(($(xstat $r0 aborts) - $1)) = 1 -a $(($(xstat $r0 chunks) - $2)) -lt 1024

	# --- reservations hold for the copy's own reads and writes ---
	sum=$(sum_of $d2 0 1)
	python3 ./iscsi_raw.py reserve6 $p $KT_IQN iqn.2026-11.org.ktarget:holder 10 2 \
		> /tmp/kt-res6 2>&1 &
	pid=$!
	kt_wait_for 60 grep -q 'RESERVE' /tmp/kt-res6
	check "another initiator holds LUN 2 with RESERVE(6)" grep -q 'status 0x0$' /tmp/kt-res6
	check_fails "a copy onto the reserved LUN fails" \
		sg_xcopy if=$g0 of=$g2 bs=512 count=2048 seek=0 skip=4096
	# the holder's session ends, and its reservation with it
	wait $pid
	check_eq "... and left it untouched" "$(sum_of $d2 0 1)" "$sum"

	# --- RECEIVE COPY RESULTS ---
	check "sg_copy_results: operating parameters" \
		sh -c "sg_copy_results --params $d0 | grep -i 'segment descriptor count' | grep -q 64"
	check "EXTENDED COPY with LIST ID 7, results held" \
		python3 ./xcopy.py copy --list-id 7 --usage 0 $d0 $d0 -- 0:0:8:0:8
	check "sg_copy_results: copy status of list id 7" \
		sh -c "sg_copy_results --status --list_id=7 $d0 | grep -qi 'without error'"
	check_fails "the status was read once" sg_copy_results --status --list_id=7 $d0
	python3 ./xcopy.py copy --list-id 9 --usage 0 $d0 $d0 $d1 -- 0:1:7:0:0 >/dev/null 2>&1
	check "sg_copy_results: failure details of list id 9" \
		sg_copy_results --failed --list_id=9 $d0
	check_fails "the failure details were read once" \
		sg_copy_results --failed --list_id=9 $d0
	check_fails "copy status of an unknown list id fails" \
		sg_copy_results --status --list_id=200 $d0

	check "logout" iscsiadm -m node --logoutall=all
	iscsiadm -m node -o delete >/dev/null 2>&1

	# --- libiscsi, on the rd LUN ---
	if command -v iscsi-test-cu >/dev/null; then
		for t in ExtendedCopy ReceiveCopyResults; do
			out=$(iscsi-test-cu --dataloss --test=SCSI.$t \
				"iscsi://127.0.0.1:3260/$KT_IQN/0" 2>&1)
			echo "$out" > /ktout/libiscsi-$t.log 2>/dev/null
			# CUnit: "tests TOTAL RAN PASSED FAILED INACTIVE"
			res=$(printf '%s\n' "$out" | awk '$1 == "tests" { print $3, $4, $5 }')
			echo "# iscsi-test-cu $t: ran, passed, failed: $res"
			set -- $res
			if [ "${1:-0}" -gt 0 ] && [ "${3:-1}" = 0 ]; then
				ok "iscsi-test-cu --test=$t: no failures"
			else
				not_ok "iscsi-test-cu --test=$t: no failures" \
					"$(printf '%s\n' "$out" | grep -E 'FAIL|Tests|tests' | head -20)"
			fi
		done
	else
		# one check per family above
		skip "iscsi-test-cu" "libiscsi-bin not installed" 2
	fi

	rm -f /tmp/kt-src /tmp/kt-dst
	teardown
	check "rmmod ktarget_iscsi" rmmod ktarget_iscsi
	check "rmmod the backstores" rmmod ktarget_fileio ktarget_iblock ktarget_rd
	rmmod brd 2>/dev/null
}

main "$@"
