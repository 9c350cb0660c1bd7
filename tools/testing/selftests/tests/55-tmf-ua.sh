#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Task management and unit attentions through the Linux kernel initiator:
# LUN and target resets (sg_reset) while reads and writes run, the unit
# attention each reset leaves, and the data still right afterwards; a MODE
# SELECT on one session gives MODE PARAMETERS CHANGED on another; mapping a
# LUN gives REPORTED LUNS DATA HAS CHANGED; growing the block device under
# an iblock LUN changes the capacity both nexuses read and gives CAPACITY
# DATA HAS CHANGED on each, once. SANITIZE goes on through task management.
# ABORT TASKs and LUN RESETs that meet quick READs are all answered
# (iscsi_tmf_race.py).
. ./lib.sh

KT_TPG=$KT_CFS/iscsi/$KT_IQN/tpgt_1
GROW_LOOP=		# the loop device capacity_change grows

# sense_of CMD...: the "Sense Key / ASC" lines sg3-utils prints for CMD
sense_of() {
	"$@" 2>&1 | grep -iE 'unit attention|sense key|asc' | head -3
}

io_under_reset() {
	local disk=$1 kind=$2 flag=$3 pid st
	dd if=/dev/urandom of=/tmp/kt-pat bs=1M count=16 status=none
	# writes and reads, direct, long enough to be caught by the reset
	( for i in 1 2 3; do
		dd if=/tmp/kt-pat of="$disk" bs=64k oflag=direct conv=nocreat status=none || exit 1
		dd if="$disk" of=/dev/null bs=64k count=256 iflag=direct status=none || exit 1
	  done ) &
	pid=$!
	sleep 1
	kmsg_mark
	check "$kind reset during I/O" sg_reset "$flag" "$disk"
	wait $pid
	st=$?
	check_eq "I/O across the $kind reset succeeds" 0 "$st"
	check "data intact after the $kind reset" sh -c \
		"cmp -n 16777216 /tmp/kt-pat $disk"
}

# lun_of DISK LUN: the disk of LUN LUN in DISK's session
lun_of() {
	local s d
	s=$(readlink -f "/sys/block/${1#/dev/}" | grep -o 'session[0-9]*' | head -1)
	for _ in $(seq 1 50); do
		for d in /sys/class/iscsi_session/"$s"/device/target*/*:"$2"/block/*; do
			[ -e "$d" ] && { echo "/dev/${d##*/}"; return 0; }
		done
		sleep 0.2
	done
	return 1
}

# capacity_ua_heard DISK: within 10 s, DISK's nexus hears CAPACITY DATA HAS
# CHANGED, whether our TEST UNIT READY gets it or a command of the sd
# driver or udev did first (the initiator logs "Capacity data has changed"
# for any command that meets it; kmsg_mark is set before the grow)
capacity_ua_heard() {
	local hctl out end=$((SECONDS + 10))

	hctl=$(basename "$(readlink -f "/sys/block/${1#/dev/}/device")")
	while :; do
		out=$(sg_turs -v "$1" 2>&1)
		echo "$out" | grep -q '[Cc]apacity data has changed' && return 0
		kmsg_since | grep -q "$hctl: Capacity data has changed" && return 0
		[ $SECONDS -ge $end ] && { echo "$out"; return 1; }
		sleep 0.5
	done
}

# capacity_change DISK DISK2: an iblock LUN on a loop device, grown
capacity_change() {
	local disk=$1 disk2=$2 img=/dev/shm/kt-grow.img dev=$KT_CFS/core/iblock_0/g0
	local g1 g2 out

	modprobe loop
	truncate -s 32M $img
	GROW_LOOP=$(losetup -f --show $img)
	check "iblock LUN 2 on a 32 MiB loop device" sh -c "mkdir -p $dev &&
		echo udev_path=$GROW_LOOP > $dev/control && echo 1 > $dev/enable &&
		mkdir $KT_TPG/lun/lun_2 && ln -s $dev $KT_TPG/lun/lun_2/g0"
	iscsiadm -m session -R >/dev/null 2>&1
	g1=$(lun_of "$disk" 2)
	g2=$(lun_of "$disk2" 2)
	check "LUN 2 appears in both sessions" test -b "$g1" -a -b "$g2"
	for _ in 1 2 3; do sg_turs "$g1" >/dev/null 2>&1; sg_turs "$g2" >/dev/null 2>&1; done
	check "READ CAPACITY: 65536 blocks" sh -c \
		"sg_readcap $g1 | grep -q 'Number of logical blocks=65536\b'"
	truncate -s 48M $img
	kmsg_mark
	check "the loop device grows to 48 MiB" losetup -c "$GROW_LOOP"
	# the device server notices as the next command arrives, whichever
	# nexus sends it: every nexus hears of it (SBC-3 4.6)
	check "CAPACITY DATA HAS CHANGED on the first nexus" capacity_ua_heard "$g1"
	check "READ CAPACITY on the first nexus: 98304 blocks" sh -c \
		"sg_readcap $g1 | grep -q 'Number of logical blocks=98304\b'"
	check "CAPACITY DATA HAS CHANGED on the second nexus" capacity_ua_heard "$g2"
	check "then TEST UNIT READY is good there" sg_turs "$g2"
	check "the initiator rescans and sees 48 MiB" sh -c \
		"echo 1 > /sys/block/${g1#/dev/}/device/rescan &&
		 test \$(blockdev --getsize64 $g1) = 50331648"
	head -c 65536 /dev/urandom > /tmp/kt-grow-pat
	check "a write to the grown part reads back" sh -c "
		dd if=/tmp/kt-grow-pat of=$g1 bs=64k seek=700 oflag=direct conv=nocreat status=none &&
		cmp -n 65536 /tmp/kt-grow-pat $img 0 45875200"
}

# SANITIZE goes on through ABORT TASK and LOGICAL UNIT RESET (SBC-4 4.11):
# iblock LUN 3 on a 32 GiB null_blk takes seconds to overwrite. Then IMMED
# on rd LUN 0, whose blocks are read back.
sanitize_tmf() {
	local p=$1 dev=$KT_CFS/core/iblock_1/n0 ini=iqn.2026-11.org.ktarget:sanitize
	local out

	if [ -e /sys/module/null_blk ]; then
		# another test's null_blk: nullb0 would not be this 32 GiB disk
		not_ok "SANITIZE under task management" "null_blk is already loaded"
		skip "SANITIZE under task management" "null_blk is already loaded" 9
		return
	fi
	if ! modprobe null_blk nr_devices=1 gb=32 2>/dev/null; then
		# the 10 checks below
		skip "SANITIZE under task management" "no null_blk module" 10
		return
	fi
	check "iblock LUN 3 on a 32 GiB null_blk" sh -c "mkdir -p $dev &&
		echo udev_path=/dev/nullb0 > $dev/control && echo 1 > $dev/enable &&
		mkdir $KT_TPG/lun/lun_3 && ln -s $dev $KT_TPG/lun/lun_3/n0"
	kmsg_mark
	out=$(timeout 700 python3 ./iscsi_sanitize.py tmf $p $KT_IQN $ini 3 2>&1)
	echo "$out" | sed 's/^/# /'
	check "SANITIZE IN PROGRESS while the overwrite runs" \
		output_has "$out" 'while it runs: status 0x2 sense 2/04/1b'
	check "an EXTENDED COPY reading the LU meanwhile: SANITIZE IN PROGRESS" \
		output_has "$out" 'from the sanitizing LU: status 0x2 sense 2/04/1b'
	check "ABORT TASK: FUNCTION COMPLETE, and the SANITIZE has no response" \
		output_has "$out" 'ABORT TASK of the SANITIZE: response 0' \
			'Response of the aborted SANITIZE: none'
	check "the operation goes on after the abort" \
		output_has "$out" 'after the abort: status 0x2 sense 2/04/1b'
	check "LOGICAL UNIT RESET: FUNCTION COMPLETE, its unit attention, and the operation goes on" \
		output_has "$out" 'LOGICAL UNIT RESET: response 0' \
			'after the reset, first: status 0x2 sense 6/29/03' \
			'after the reset, then: status 0x2 sense 2/04/1b'
	check "the sanitize ends, then TEST UNIT READY is GOOD" \
		output_has "$out" 'ended, TEST UNIT READY GOOD'
	check "the log: the command aborted, the overwrite done" \
		output_has "$(kmsg_since)" 'SANITIZE command aborted; the sanitize goes on' \
			'SANITIZE OVERWRITE done'

	out=$(timeout 300 python3 ./iscsi_sanitize.py immed $p $KT_IQN $ini 0 2>&1)
	echo "$out" | sed 's/^/# /'
	check "SANITIZE with IMMED: GOOD at once" \
		output_has "$out" 'SANITIZE with IMMED: status 0x0'
	check "IMMED: the overwrite ends; the first and last blocks hold the pattern" \
		output_has "$out" 'sanitize ended: True' 'LBA 0 holds' \
			'LBA 131071 holds'

	rm -f $KT_TPG/lun/lun_3/n0
	rmdir $KT_TPG/lun/lun_3 $dev $KT_CFS/core/iblock_1
	rmmod null_blk
}

# tmf_race HOST:PORT: ABORT TASKs, and another initiator's LUN RESETs,
# that meet READs whose answers are on their way (issue 39's silent guest
# needed two CPUs: KT_TMF_RACE_SECONDS makes a longer run for such a guest)
tmf_race() {
	local out mode secs=${KT_TMF_RACE_SECONDS:-8}

	for mode in abort reset; do
		out=$(timeout $((secs + 90)) python3 ./iscsi_tmf_race.py $mode \
			"$1" $KT_IQN iqn.2026-11.org.ktarget:race 0 $secs 2>&1)
		echo "$out" | sed 's/^/# /'
		case $mode in
		abort) check "ABORT TASK racing READ answers: every TMF answered, the session serves on" \
			output_has "$out" 'TEST UNIT READY after the rounds: status 0x0' ;;
		reset) check "LUN RESET racing another nexus's READs: every reset answered, both serve on" \
			output_has "$out" 'TEST UNIT READY after the resets: reading session GOOD' \
				'resetting session GOOD'
			# resets in a row are told once, as LIO queues no second
			# unit attention with the ASC/ASCQ of a pending one
			check "after hundreds of LUN RESETs, one unit attention: GOOD at the second TEST UNIT READY" \
				output_has "$out" 'reading session GOOD after [12],' \
					'resetting session GOOD after [12]$' ;;
		esac
	done
}

main() {
	local p=127.0.0.1:3260 disk disk2 out

	for t in iscsiadm sg_reset sg_turs sg_wr_mode; do
		command -v $t >/dev/null || { skip_all "TMF tests: $t missing"; return; }
	done
	plan 46
	check "target set up" kt_iscsi_setup
	check "iscsid starts" kt_iscsid_start
	check "login" iscsiadm -m discovery -t st -p $p -l
	disk=$(kt_iscsi_disk)
	check "a disk appears" test -b "$disk"

	io_under_reset "$disk" "LUN" -d
	# since the reset: a login has its own power-on unit attention
	out=$(kmsg_since)
	check "the initiator saw the reset's unit attention" sh -c \
		'echo "$1" | grep -qiE "power-on or device reset occurred|bus device reset"' \
		_ "$out"
	# demo mode: the initiator may not reset the whole target; the Linux
	# initiator then recovers by logging in again, and the I/O goes on
	io_under_reset "$disk" "target" -t
	check "the target reset was refused: a demo-mode session has no ACL" sh -c \
		"dmesg | sed -n '/$KT_KMSG_MARK/,\$p' | grep -q 'TARGET WARM RESET refused'"

	# a second nexus (another initiator name): a MODE SELECT that turns
	# WCE on through the first gives 2A/01 once on the second
	iscsiadm -m iface -I ktua -o new >/dev/null 2>&1
	iscsiadm -m iface -I ktua -o update -n iface.initiatorname \
		-v iqn.2026-11.org.ktarget:guest2 >/dev/null
	check "second session logs in" sh -c \
		"iscsiadm -m discovery -t st -p $p -I ktua >/dev/null && iscsiadm -m node -T $KT_IQN -p $p -I ktua --login"
	disk2=$(kt_second_disk "$disk")
	check "a second disk appears" test -b "$disk2"
	sg_turs "$disk2" >/dev/null 2>&1
	check "WCE set with MODE SELECT on the first nexus" \
		sg_wr_mode -p 8 -c 0,0,4 -m 0,0,4 "$disk"
	out=$(sg_turs -v "$disk2" 2>&1)
	check "MODE PARAMETERS CHANGED on the second nexus" sh -c \
		"echo '$out' | grep -qi 'mode parameters changed'"
	check "then TEST UNIT READY is good there" sg_turs "$disk2"
	out=$(sg_turs -v "$disk" 2>&1)
	check "and no unit attention on the nexus that changed it" sh -c \
		"! echo '$out' | grep -qi 'unit attention'"
	sg_wr_mode -p 8 -c 0,0,0 -m 0,0,4 "$disk" >/dev/null 2>&1

	# a new LUN: the next command the initiator sends hears of it
	mkdir -p $KT_CFS/core/rd_mcp_0/r1
	echo rd_pages=256 > $KT_CFS/core/rd_mcp_0/r1/control
	echo 1 > $KT_CFS/core/rd_mcp_0/r1/enable
	mkdir $KT_TPG/lun/lun_1
	ln -s $KT_CFS/core/rd_mcp_0/r1 $KT_TPG/lun/lun_1/r1
	out=$(sg_turs -v "$disk" 2>&1)
	check "REPORTED LUNS DATA HAS CHANGED after a LUN is added" sh -c \
		"echo '$out' | grep -qi 'reported luns data has changed'"
	check "TEST UNIT READY is good once the UA is reported" sg_turs "$disk"
	out=$(sg_turs -v "$disk2" 2>&1)
	check "the other session hears of the new LUN too" sh -c \
		"echo '$out' | grep -qi 'reported luns data has changed'"

	capacity_change "$disk" "$disk2"

	iscsiadm -m node -T $KT_IQN -p $p --logout >/dev/null 2>&1
	iscsiadm -m node -o delete >/dev/null 2>&1
	iscsiadm -m iface -I ktua -o delete >/dev/null 2>&1
	tmf_race $p
	sanitize_tmf $p
	rm -f $KT_TPG/lun/lun_1/r1 $KT_TPG/lun/lun_2/g0
	rmdir $KT_TPG/lun/lun_1 $KT_TPG/lun/lun_2 $KT_CFS/core/rd_mcp_0/r1
	rmdir $KT_CFS/core/iblock_0/g0 $KT_CFS/core/iblock_0
	[ -n "$GROW_LOOP" ] && losetup -d "$GROW_LOOP"
	rm -f /dev/shm/kt-grow.img
	kt_iscsi_teardown
	check "rmmod ktarget_iscsi" rmmod ktarget_iscsi
	check "rmmod ktarget_iblock" rmmod ktarget_iblock
}

main "$@"
