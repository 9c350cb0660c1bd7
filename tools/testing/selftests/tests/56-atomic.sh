#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# WRITE ATOMIC (16) (issue 45, part 1; LIO 6.19). Where the kernel has
# block-layer atomic writes (6.11 on, so 6.12 here), an iblock LU over a
# device that advertises them (scsi_debug atomic_wr=1) reports the device's
# queue limits in attrib/atomic_* and in the Block Limits VPD page (B0h,
# bytes 44-63), lists 9Ch in REPORT SUPPORTED OPERATION CODES, and writes
# a WRITE ATOMIC (16) as one REQ_ATOMIC bio: the data reads back through
# the LU and on the device below; a transfer longer than the maximum, one
# at a misaligned LBA, of a length off the granularity, or with an ATOMIC
# BOUNDARY is INVALID FIELD IN CDB. The Linux initiator (sd, through the
# loopback fabric) sees atomic write limits and an RWF_ATOMIC write through
# it lands; libiscsi's WriteAtomic16 tests pass where Debian's has them.
# Everywhere else (rd, fileio; iblock over a device without atomic writes;
# the 6.1 kernels) the attributes read 0, VPD B0h says 0 and the opcode is
# INVALID COMMAND OPERATION CODE, as LIO answers.
. ./lib.sh

WWN=naa.5001405000000056
INIT=naa.5001405000000156
TPG=$KT_CFS/loopback/$WWN/tpgt_1
RD=$KT_CFS/core/rd_mcp_1/r1
FD=$KT_CFS/core/fileio_0/f0
IB=$KT_CFS/core/iblock_0/ib0
LOG=/ktout/atomic.log
ATTRS="atomic_max_len atomic_alignment atomic_granularity atomic_max_with_boundary atomic_max_boundary"
# the checks atomic_lu makes (its skips included)
N_ATOMIC=14

# attrs DEV: the five atomic attributes of DEV on one line
attrs() {
	local a out=
	for a in $ATTRS; do
		out="$out $(cat $1/attrib/$a 2>&1)"
	done
	echo ${out# }
}

# be64 N / be16 N: N as 8 or 2 bytes of hex, big-endian, for sg_raw
be64() { printf '%016x' "$1" | sed 's/../& /g; s/ $//'; }
be16() { printf '%04x' "$1" | sed 's/../& /g; s/ $//'; }

# watomic SG LBA BOUNDARY BLOCKS FILE: a WRITE ATOMIC (16) of FILE's
# first BLOCKS blocks; sg_raw's output
watomic() {
	local bs=${BS:-512}
	sg_raw -s $(($4 * bs)) -i "$5" "$1" 9c 00 $(be64 $2) $(be16 $3) \
		$(be16 $4) 00 00 2>&1 | tee -a $LOG
	return ${PIPESTATUS[0]}
}

# rsoc_lacks_9c OUT: sg_opcodes' OUT lists WRITE (16) but no 9Ch
rsoc_lacks_9c() {
	printf '%s\n' "$1" | grep -q 'Write(16)' && ! printf '%s\n' "$1" | grep -qi '^ *9c '
}

# vpd_bl DISK: sg_vpd's Block Limits page
vpd_bl() { sg_vpd -p bl "$1" 2>&1 | tee -a $LOG; }

# loop_lun N DEV: LUN N of the loopback TPG over DEV; prints its sd disk
loop_lun() {
	mkdir -p $TPG/lun/lun_$1 && ln -s $2 $TPG/lun/lun_$1/d &&
		{ [ -n "$(cat $TPG/nexus 2>/dev/null)" ] || echo $INIT > $TPG/nexus; } &&
		kt_loop_disk $TPG $1
}

# no_atomic_lu NAME SG DISK: what a LU without atomic writes answers
no_atomic_lu() {
	local out
	out=$(vpd_bl "$3")
	check "$1: Block Limits VPD, MAXIMUM ATOMIC TRANSFER LENGTH 0" \
		output_has "$out" "Maximum atomic transfer length: 0"
	out=$(watomic "$2" 0 0 1 /dev/zero)
	check "$1: WRITE ATOMIC (16) is INVALID COMMAND OPERATION CODE" \
		output_has "$out" "Illegal Request" "Invalid command operation code"
	out=$(sg_opcodes "$2" 2>&1)
	echo "$out" >> $LOG
	check "$1: REPORT SUPPORTED OPERATION CODES lists no 9Ch" \
		rsoc_lacks_9c "$out"
}

# atomic_lu SDEV: ib0 over the scsi_debug disk SDEV, which advertises
# atomic writes (N_ATOMIC checks)
atomic_lu() {
	local sdev=$1 q=/sys/block/${1#/dev/}/queue umin umax bs disk sg out
	local max gran align lba n

	bs=$(cat $q/logical_block_size)
	umin=$(cat $q/atomic_write_unit_min_bytes)
	umax=$(cat $q/atomic_write_unit_max_bytes)
	echo "# $sdev: logical blocks of $bs bytes, atomic unit $umin..$umax bytes," \
		"max $(cat $q/atomic_write_max_bytes), boundary $(cat $q/atomic_write_boundary_bytes)"
	max=$((umax / bs))
	gran=$((umin / bs))
	align=$gran
	check_eq "ib0: atomic_max_len, _alignment, _granularity, _max_with_boundary, _max_boundary from the queue limits" \
		"$(attrs $IB)" "$max $align $gran 0 0"
	check_fails "ib0: attrib/atomic_max_len is read-only" write_attr $IB/attrib/atomic_max_len 1
	disk=$(loop_lun 1 $IB)
	check "LUN 1 over ib0: its sd disk appears" test -b "$disk"
	sg=$(sg_of "${disk:-/dev/none}")
	sg=${sg:-/dev/none}
	disk=${disk:-/dev/none}
	out=$(vpd_bl "$disk")
	check "ib0: Block Limits VPD, the atomic fields (bytes 44-63)" \
		output_has "$out" "Maximum atomic transfer length: $max blocks" \
			"Atomic alignment: $align\\b" "Atomic transfer length granularity: $gran\\b" \
			"Maximum atomic transfer length with atomic boundary: 0 blocks" \
			"Maximum atomic boundary size: 0 blocks"
	out=$(sg_opcodes "$sg" 2>&1)
	echo "$out" >> $LOG
	check "ib0: REPORT SUPPORTED OPERATION CODES lists 9Ch" \
		output_has "$out" "^ *9c "
	check "the Linux initiator (sd) sees atomic writes on LUN 1" \
		sh -c "test \$(cat /sys/block/${disk#/dev/}/queue/atomic_write_unit_max_bytes) -gt 0"

	head -c $((max * bs)) /dev/urandom > /tmp/kt-atomic.data
	lba=$((align * 4))
	check "WRITE ATOMIC (16) of $max blocks at LBA $lba: GOOD" \
		env BS=$bs bash -c "$(declare -f be64 be16 watomic); LOG=$LOG watomic $sg $lba 0 $max /tmp/kt-atomic.data"
	check "the data reads back through the LU and on the scsi_debug disk" sh -c "
		dd if=$disk bs=$bs skip=$lba count=$max iflag=direct status=none | cmp - /tmp/kt-atomic.data &&
		dd if=$sdev bs=$bs skip=$lba count=$max iflag=direct status=none | cmp - /tmp/kt-atomic.data"
	# the same from 512-byte pieces, one per page: a scatterlist of more
	# entries than one bio holds, which do not meet at page edges
	head -c $((max * bs)) /dev/urandom > /tmp/kt-atomic.pieces
	out=$(python3 ./sgio_pieces.py $disk /tmp/kt-atomic.pieces 512 \
		9c 00 $(be64 $lba) 00 00 $(be16 $max) 00 00 2>&1)
	echo "$out" >> $LOG
	check "WRITE ATOMIC (16) of $max blocks in 512-byte pieces (SG_IO iovec): GOOD, the data on the disk" \
		sh -c "printf '%s\n' '$out' | grep -q 'status 0x0 host 0x0 driver 0x0' &&
			dd if=$sdev bs=$bs skip=$lba count=$max iflag=direct status=none |
			cmp - /tmp/kt-atomic.pieces"
	head -c $(((max + gran) * bs)) /dev/urandom > /tmp/kt-atomic.long
	out=$(BS=$bs watomic $sg 0 0 $((max + gran)) /tmp/kt-atomic.long)
	check "WRITE ATOMIC (16) of $((max + gran)) blocks, above the maximum: INVALID FIELD IN CDB" \
		output_has "$out" "Illegal Request" "Invalid field in cdb"
	if [ "$align" -gt 1 ]; then
		out=$(BS=$bs watomic $sg 1 0 $gran /tmp/kt-atomic.data)
		check "WRITE ATOMIC (16) at LBA 1, off the alignment of $align: INVALID FIELD IN CDB" \
			output_has "$out" "Illegal Request" "Invalid field in cdb"
		out=$(BS=$bs watomic $sg 0 0 $((gran + 1)) /tmp/kt-atomic.data)
		check "WRITE ATOMIC (16) of $((gran + 1)) blocks, off the granularity: INVALID FIELD IN CDB" \
			output_has "$out" "Illegal Request" "Invalid field in cdb"
	else
		skip "misaligned and off-granularity WRITE ATOMIC (16)" "alignment and granularity are 1" 2
	fi
	out=$(BS=$bs watomic $sg 0 $gran $gran /tmp/kt-atomic.data)
	check "WRITE ATOMIC (16) with an ATOMIC BOUNDARY (none offered): INVALID FIELD IN CDB" \
		output_has "$out" "Illegal Request" "Invalid field in cdb"
	n=$(python3 - "$disk" "$umin" "$umax" <<-'EOF' 2>&1
	import mmap, os, sys
	dev, umin, umax = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
	fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
	buf = mmap.mmap(-1, umin)
	data = os.urandom(umin)
	buf.write(data)
	off = 16 * umax
	# RWF_ATOMIC (6.11): one write, all or nothing
	os.pwritev(fd, [buf], off, 0x40)
	back = mmap.mmap(-1, umin)
	os.preadv(fd, [back], off)
	print("same" if back[:] == data else "differs")
	EOF
	)
	echo "# RWF_ATOMIC through sd: $n" | tee -a $LOG
	check_eq "an RWF_ATOMIC write of $umin bytes through the initiator's sd lands" "$n" same
}

# libiscsi_atomic: iscsi-test-cu's WriteAtomic16 family on an iSCSI LUN over
# ib0, where Debian's libiscsi has it
libiscsi_atomic() {
	local out=/ktout/libiscsi-atomic.log res
	if ! iscsi-test-cu -l 2>/dev/null | grep -q 'SCSI.WriteAtomic16.Simple'; then
		skip "libiscsi WriteAtomic16" "this iscsi-test-cu has no WriteAtomic16 tests" 2
		return
	fi
	if modprobe ktarget_iscsi && kt_iscsi_build &&
	   mkdir $KT_CFS/iscsi/$KT_IQN/tpgt_1/lun/lun_1 &&
	   ln -s $IB $KT_CFS/iscsi/$KT_IQN/tpgt_1/lun/lun_1/ib0; then
		ok "an iSCSI target, LUN 1 over ib0"
	else
		not_ok "an iSCSI target, LUN 1 over ib0"
	fi
	timeout 600 iscsi-test-cu --dataloss --test=SCSI.WriteAtomic16 \
		"iscsi://127.0.0.1:3260/$KT_IQN/1" > $out 2>&1
	res=$(python3 ../libiscsi/cu-parse.py $out)
	echo "$res" | sed 's/^/# /'
	check "iscsi-test-cu SCSI.WriteAtomic16: every test passed" \
		sh -c "echo '$res' | grep -q '^PASS' && ! echo '$res' | grep -qE '^(FAIL|SKIP)'"
	rm -f $KT_CFS/iscsi/$KT_IQN/tpgt_1/lun/lun_1/ib0 $KT_CFS/iscsi/$KT_IQN/tpgt_1/lun/lun_0/r0
	rmdir $KT_CFS/iscsi/$KT_IQN/tpgt_1/lun/lun_1 $KT_CFS/iscsi/$KT_IQN/tpgt_1/lun/lun_0 \
		$KT_CFS/iscsi/$KT_IQN/tpgt_1/np/* $KT_CFS/iscsi/$KT_IQN/tpgt_1 \
		$KT_CFS/iscsi/$KT_IQN $KT_CFS/iscsi 2>/dev/null
	rmdir $KT_CFS/core/rd_mcp_0/r0 $KT_CFS/core/rd_mcp_0 2>/dev/null
	rmmod ktarget_iscsi 2>/dev/null
}

# targetcli_atomic: targetcli reads the attributes of ib0 back, and its
# saveconfig keeps none of them (read-only: nothing to restore)
targetcli_atomic() {
	local out
	if ! command -v targetcli >/dev/null; then
		skip "targetcli" "targetcli-fb not installed" 2
		return
	fi
	export HOME=/root
	mkdir -p /root /run/dbus /etc/rtslib-fb-target
	kt_dbus_start
	out=$(targetcli 2>&1 <<-EOF
	/backstores/block/ib0 get attribute atomic_max_len atomic_alignment atomic_granularity
	saveconfig /tmp/kt-atomic.json
	exit
	EOF
	)
	printf '%s\n' "$out" | tee -a $LOG | sed 's/^/# /'
	check "targetcli: get attribute atomic_max_len, _alignment, _granularity of ib0" \
		output_has "$out" "atomic_max_len=$1" "atomic_alignment=$2" "atomic_granularity=$3"
	check "targetcli saveconfig: no error, no read-only atomic_* saved" sh -c "
		! printf '%s' \"\$1\" | grep -qiE 'error|Traceback' &&
		grep -q '\"ib0\"' /tmp/kt-atomic.json && ! grep -q atomic_ /tmp/kt-atomic.json" \
		- "$out"
	rm -f /tmp/kt-atomic.json
	rmdir $KT_CFS/iscsi 2>/dev/null
	grep -q '^ktarget_iscsi ' /proc/modules && rmmod ktarget_iscsi
	kt_dbus_stop
}

main() {
	local disk sg sdev atomic= sd_atomic out i

	plan $((14 + N_ATOMIC + 4))
	: > $LOG
	kmsg_mark
	local start_mark=$KT_KMSG_MARK

	check "modprobe ktarget_core, sd_mod and sg" \
		sh -c "modprobe ktarget_core && modprobe sd_mod && modprobe sg"
	check "an rd device r0 and a fileio device f0" sh -c "
		mkdir -p $RD $FD && echo rd_pages=1024 > $RD/control && echo 1 > $RD/enable &&
		echo fd_dev_name=/tmp/kt-atomic.img,fd_dev_size=4194304 > $FD/control &&
		echo 1 > $FD/enable"
	check_eq "rd and fileio: the five atomic attributes read 0" \
		"$(attrs $RD) / $(attrs $FD)" "0 0 0 0 0 / 0 0 0 0 0"
	disk=$(loop_lun 0 $RD)
	check "loopback LUN 0 over r0: its sd disk appears" test -b "$disk"
	sg=$(sg_of "${disk:-/dev/none}")
	no_atomic_lu rd "${sg:-/dev/none}" "${disk:-/dev/none}"

	# scsi_debug has atomic_wr on kernels with block-layer atomic writes
	sd_atomic=
	modinfo -p scsi_debug 2>/dev/null | grep -q '^atomic_wr:' && sd_atomic="atomic_wr=1"
	check "modprobe scsi_debug ${sd_atomic:-(no atomic_wr on $(uname -r))}" \
		modprobe scsi_debug dev_size_mb=16 $sd_atomic
	for i in $(seq 1 100); do
		sdev=$(ls -d /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/* 2>/dev/null | head -1)
		[ -n "$sdev" ] && [ -b "/dev/${sdev##*/}" ] && break
		sleep 0.2
	done
	sdev=/dev/${sdev##*/}
	q=/sys/block/${sdev#/dev/}/queue
	[ -n "$sd_atomic" ] && [ "$(cat $q/atomic_write_unit_max_bytes 2>/dev/null || echo 0)" -gt 0 ] &&
		atomic=1
	check "iblock device ib0 over the scsi_debug disk $sdev" sh -c "
		mkdir -p $IB && echo udev_path=$sdev > $IB/control && echo 1 > $IB/enable"

	if [ -n "$atomic" ]; then
		atomic_lu $sdev
	else
		echo "# $(uname -r): no block-layer atomic writes on $sdev"
		check_eq "ib0 (no atomic writes below): the five atomic attributes read 0" \
			"$(attrs $IB)" "0 0 0 0 0"
		disk=$(loop_lun 1 $IB)
		check "LUN 1 over ib0: its sd disk appears" test -b "$disk"
		sg=$(sg_of "${disk:-/dev/none}")
		no_atomic_lu ib0 "${sg:-/dev/none}" "${disk:-/dev/none}"
		skip "atomic writes on ib0" "no block-layer atomic writes" $((N_ATOMIC - 5))
	fi

	check "the nexus and the LUNs go" sh -c "echo NULL > $TPG/nexus &&
		rm $TPG/lun/lun_0/d $TPG/lun/lun_1/d &&
		rmdir $TPG/lun/lun_0 $TPG/lun/lun_1 $TPG $KT_CFS/loopback/$WWN $KT_CFS/loopback"

	if [ -n "$atomic" ]; then
		libiscsi_atomic
		targetcli_atomic $(attrs $IB | cut -d' ' -f1-3)
	else
		skip "libiscsi WriteAtomic16" "no block-layer atomic writes" 2
		skip "targetcli and the atomic attributes" "no block-layer atomic writes" 2
	fi

	check "rmdir the devices" sh -c "rmdir $IB $KT_CFS/core/iblock_0 $RD $KT_CFS/core/rd_mcp_1 \
		$FD $KT_CFS/core/fileio_0"
	rm -f /tmp/kt-atomic.img /tmp/kt-atomic.data /tmp/kt-atomic.long
	check "no object left" kt_objects_zero
	check "rmmod scsi_debug, the loopback fabric, the backstores and the core" sh -c "
		rmmod scsi_debug && rmmod ktarget_loop &&
		for m in ktarget_fileio ktarget_iblock ktarget_rd; do
			! grep -q \"^\$m \" /proc/modules || rmmod \$m || exit 1
		done; rmmod ktarget_core"
	KT_KMSG_MARK=$start_mark
	check "the kernel log shows no finding" kt_kmsg_clean
}

main "$@"
