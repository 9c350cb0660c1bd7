#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the guest tests: TAP output and kernel-log checks.
# A test file sources this, states its plan, calls the helpers, and never
# exits early on a failed check; the runner (run.sh) numbers the results
# and fails a file that exits non-zero or ends short of its plan.

KT_CFS=/sys/kernel/config/target

# plan N: this file makes N checks (a TAP plan), printed before the first
plan() { echo "1..$1"; }
# skip_all REASON: instead of plan, when nothing of the file can run
skip_all() { echo "1..0 # SKIP $1"; }

# ok DESCRIPTION / not_ok DESCRIPTION [DIAG...]
# skip DESCRIPTION REASON [N]: N (default 1) planned checks that cannot run
ok() { echo "ok - $1"; }
not_ok() {
	local d=$1
	shift
	echo "not ok - $d"
	# every line of a diagnostic: a command's output may hold TAP lines
	[ $# -gt 0 ] && printf '%s\n' "$@" | sed 's/^/#   /'
	return 0
}
skip() {
	local i
	for ((i = 0; i < ${3:-1}; i++)); do
		echo "ok - $1 # SKIP $2"
	done
}

# check DESCRIPTION CMD...: ok when CMD succeeds
check() {
	local d=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$d"
	else
		not_ok "$d" "command failed: $*" "$out"
	fi
}

# output_has TEXT PATTERN...: every grep PATTERN matches a line of TEXT
output_has() {
	local text=$1 p
	shift
	for p in "$@"; do
		printf '%s\n' "$text" | grep -q -- "$p" || return 1
	done
}

# check_fails DESCRIPTION CMD...: ok when CMD fails
check_fails() {
	local d=$1 out
	shift
	if out=$("$@" 2>&1); then
		not_ok "$d" "command succeeded but should have failed: $*" "$out"
	else
		ok "$d"
	fi
}

# check_eq DESCRIPTION GOT WANT
check_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1" "got:  '$2'" "want: '$3'"
	fi
}

# kmsg_mark: remember where the kernel log is now; kmsg_since prints what
# came after the last mark.
kmsg_mark() {
	KT_KMSG_MARK="ktarget-test: mark $RANDOM$RANDOM"
	echo "$KT_KMSG_MARK" > /dev/kmsg
}
kmsg_since() {
	# a log that wrapped past the mark is shown whole (and says so)
	if dmesg | grep -q "$KT_KMSG_MARK"; then
		dmesg | sed -n "/$KT_KMSG_MARK/,\$p" | tail -n +2
	else
		echo "ktarget-test: the kernel log wrapped past the mark"
		dmesg
	fi
}

# write_attr FILE VALUE: write like `echo VALUE > FILE`, status is the write's
write_attr() {
	( echo "$2" > "$1" ) 2>/dev/null
}

# check_one_log DESCRIPTION PATTERN: since kmsg_mark the kernel log gained
# exactly one line, matching PATTERN.
check_one_log() {
	local log n

	# a loaded host's timer note is none of the test's (pi-3: one such
	# line between a refused write and its own made two)
	log=$(kmsg_since | grep -v 'hrtimer: interrupt took')
	n=$(printf '%s' "$log" | grep -c .)
	if [ "$n" = 1 ] && printf '%s' "$log" | grep -q -- "$2"; then
		ok "$1"
	else
		not_ok "$1" "wanted one log line matching '$2', got $n:" "$log"
	fi
}

# check_bad_write DESCRIPTION FILE VALUE PATTERN: the write fails and the
# kernel log gains exactly one line, matching PATTERN.
check_bad_write() {
	local d=$1 file=$2 value=$3 pattern=$4

	kmsg_mark
	if write_attr "$file" "$value"; then
		not_ok "$d" "write of '$value' to $file succeeded"
		return
	fi
	check_one_log "$d" "$pattern"
}

# check_bad_mkdir DESCRIPTION DIR PATTERN: mkdir fails and the kernel log
# gains exactly one line, matching PATTERN.
check_bad_mkdir() {
	kmsg_mark
	if mkdir "$2" 2>/dev/null; then
		not_ok "$1" "mkdir $2 succeeded"
		rmdir "$2"
		return
	fi
	check_one_log "$1" "$3"
}

# iSCSI target over echo, LIO-style: an rd LUN (64 MiB) behind IQN on
# 127.0.0.1:PORT, demo mode (any initiator, no CHAP), writable.
KT_IQN=iqn.2026-11.org.ktarget:test
kt_iscsi_setup() {
	modprobe ktarget_core || return 1
	kt_iscsi_build "$@"
}

# kt_iscsi_build [IQN [PORT]]: the configfs part of kt_iscsi_setup, for
# whichever target owns configfs (ktarget or LIO)
kt_iscsi_build() {
	local iqn=${1:-$KT_IQN} port=${2:-3260} tpg
	tpg=$KT_CFS/iscsi/$iqn/tpgt_1
	mkdir -p $KT_CFS/core/rd_mcp_0/r0 || return 1
	echo rd_pages=16384 > $KT_CFS/core/rd_mcp_0/r0/control || return 1
	echo 1 > $KT_CFS/core/rd_mcp_0/r0/enable || return 1
	mkdir -p $tpg/lun/lun_0 || return 1
	ln -s $KT_CFS/core/rd_mcp_0/r0 $tpg/lun/lun_0/r0 || return 1
	mkdir $tpg/np/127.0.0.1:$port || return 1
	echo 0 > $tpg/attrib/authentication || return 1
	echo 1 > $tpg/attrib/generate_node_acls || return 1
	echo 0 > $tpg/attrib/demo_mode_write_protect || return 1
	# ktarget's Data-Out timeout (3 s) would end the tests that hold a
	# WRITE's data on purpose; the tests of the timeout set it back
	if [ -e $tpg/attrib/default_dataout_timeout ]; then
		echo 600 > $tpg/attrib/default_dataout_timeout || return 1
	fi
	echo 1 > $tpg/enable
}

# kt_export_lun N HBA/NAME CONTROL: the backstore core/HBA/NAME, made with
# "key=value" CONTROL and enabled, as LUN N of the test target's TPG;
# kt_unexport_lun N HBA/NAME undoes it
kt_export_lun() {
	local tpg=$KT_CFS/iscsi/$KT_IQN/tpgt_1 dev=$KT_CFS/core/$2
	mkdir -p $dev && echo "$3" > $dev/control && echo 1 > $dev/enable &&
		mkdir $tpg/lun/lun_$1 && ln -s $dev $tpg/lun/lun_$1/d
}

kt_unexport_lun() {
	local tpg=$KT_CFS/iscsi/$KT_IQN/tpgt_1
	rm -f $tpg/lun/lun_$1/d
	rmdir $tpg/lun/lun_$1 $KT_CFS/core/$2
}

# kt_stack_setup / kt_stack_unload: the target of tests/47 and 48, ktarget
# or, with KT_STACK=lio (selftests/lio-faults.sh), Linux's own LIO with the
# same configfs layout, for comparison
kt_stack_setup() {
	if [ "${KT_STACK:-ktarget}" = lio ]; then
		modprobe target_core_mod && modprobe iscsi_target_mod && kt_iscsi_build
	else
		kt_iscsi_setup
	fi
}

kt_stack_unload() {
	if [ "${KT_STACK:-ktarget}" = lio ]; then
		modprobe -r iscsi_target_mod target_core_file target_core_iblock \
			target_core_pscsi target_core_user target_core_mod
	else
		rmmod ktarget_iscsi ktarget_fileio ktarget_iblock ktarget_rd
	fi
}

# kt_check_report_luns N: LUNs 1 to N-1 join LUN 0 of kt_iscsi_setup's
# TPG (the same rd device behind each); REPORT LUNS with an allocation
# length of 1 MiB must list all N and state their number; then they go.
# Three checks.
kt_check_report_luns() {
	local n=$1 out

	check "$n LUNs on the TPG" python3 -c "
import os, sys
t = sys.argv[1] + '/iscsi/' + sys.argv[2] + '/tpgt_1/lun/lun_%d'
for n in range(1, int(sys.argv[3])):
    os.mkdir(t % n)
    os.symlink(sys.argv[1] + '/core/rd_mcp_0/r0', t % n + '/r0')
" $KT_CFS $KT_IQN $n
	out=$(timeout 120 python3 ./iscsi_raw.py report-luns 127.0.0.1:3260 $KT_IQN \
		iqn.2026-11.org.ktarget:raw 0 2>&1)
	echo "$out" | sed 's/^/# /'
	check "REPORT LUNS lists all $n LUNs" output_has "$out" \
		"REPORT LUNS: $n LUNs listed, $n stated, highest $((n - 1))"
	check "... and LUNs 1 to $((n - 1)) go" sh -c \
		"cd $KT_CFS/iscsi/$KT_IQN/tpgt_1/lun && rm lun_[1-9]*/r0 && rmdir lun_[1-9]*"
}

# Undo kt_iscsi_setup, tolerant of a half-built configuration.
kt_iscsi_teardown() {
	local iqn=${1:-$KT_IQN} port=${2:-3260} tpg
	tpg=$KT_CFS/iscsi/$iqn/tpgt_1
	[ -e $tpg/enable ] && echo 0 > $tpg/enable
	rmdir $tpg/np/127.0.0.1:$port 2>/dev/null
	rm -f $tpg/lun/lun_0/r0
	rmdir $tpg/lun/lun_0 $tpg $KT_CFS/iscsi/$iqn 2>/dev/null
	rmdir $KT_CFS/core/rd_mcp_0/r0 $KT_CFS/core/rd_mcp_0 2>/dev/null
	rmdir $KT_CFS/iscsi 2>/dev/null
	return 0
}

# open-iscsi in the guest: iscsid running, the kernel initiator loaded.
kt_iscsid_start() {
	modprobe iscsi_tcp && modprobe sd_mod || return 1
	mkdir -p /etc/iscsi /run/lock/iscsi /var/lib/iscsi
	echo "InitiatorName=iqn.2026-11.org.ktarget:guest" > /etc/iscsi/initiatorname.iscsi
	pgrep -x iscsid >/dev/null || iscsid || return 1
	sleep 1
}

# The block device of the (only) logged-in iSCSI session, e.g. /dev/sda.
kt_iscsi_disk() {
	local d i
	for i in $(seq 1 50); do
		for d in /sys/class/iscsi_session/session*/device/target*/*/block/*; do
			[ -e "$d" ] && [ -b "/dev/$(basename "$d")" ] &&
				{ echo "/dev/$(basename "$d")"; return 0; }
		done
		sleep 0.2
	done
	return 1
}

# kt_lun_disk N: the block device of LUN N of the logged-in session(s),
# waiting up to 20 s for it to appear
kt_lun_disk() {
	local d i
	for i in $(seq 1 100); do
		for d in /sys/class/iscsi_session/session*/device/target*/*:$1/block/*; do
			[ -e "$d" ] && [ -b "/dev/$(basename "$d")" ] &&
				{ echo "/dev/$(basename "$d")"; return 0; }
		done
		sleep 0.2
	done
	return 1
}

# kt_initiator_sees LUN read|write PATTERN: a direct read (or write) of the
# Linux initiator's disk of LUN puts PATTERN in the kernel log
kt_initiator_sees() {
	local lun=$1 what=$2 want=$3 disk
	disk=$(kt_lun_disk "$lun") || { echo "no disk for LUN $lun"; return 1; }
	kmsg_mark
	case $what in
	read) dd if="$disk" of=/dev/null bs=4k skip=127 count=4 iflag=direct 2>&1 ;;
	write) dd if=/dev/zero of="$disk" bs=4k seek=12 count=1 oflag=direct 2>&1 ;;
	esac
	kmsg_since | grep -i -- "$want"
}

# kt_session_disk ATTR VALUE [LUN]: the block device of LUN (without one:
# of any LUN) of the iSCSI session whose ATTR (targetname, initiatorname)
# is VALUE, within 20 s
kt_session_disk() {
	local s d i
	for i in $(seq 1 100); do
		for s in /sys/class/iscsi_session/session*; do
			[ "$(cat $s/$1 2>/dev/null)" = "$2" ] || continue
			for d in $s/device/target*/*${3:+:$3}/block/*; do
				[ -e "$d" ] && { echo "/dev/$(basename "$d")"; return 0; }
			done
		done
		sleep 0.2
	done
	return 1
}

# disk_of TARGET LUN: the block device of LUN of the session logged in
# to TARGET
disk_of() {
	kt_session_disk targetname "$1" "$2"
}

# sg_of DISK: its sg node (sg_xcopy and ddpt want those), made if udev
# did not
sg_of() {
	local g
	for g in /sys/block/${1#/dev/}/device/scsi_generic/*; do
		[ -e "$g/dev" ] || continue
		[ -c /dev/${g##*/} ] || mknod /dev/${g##*/} c $(tr ':' ' ' < $g/dev)
		echo /dev/${g##*/}
		return 0
	done
	return 1
}

# kt_libsense_build, then kt_libsense LUN read|write LBA BLOCKS WANT: the
# sense of one READ or WRITE (16) as libiscsi sees it (kt_sense_libiscsi.c)
KT_LIBSENSE=/run/kt_sense_libiscsi
kt_libsense_build() {
	gcc -Wall -O2 -o $KT_LIBSENSE kt_sense_libiscsi.c -liscsi
}
kt_libsense() {
	local lun=$1
	shift
	$KT_LIBSENSE iscsi://127.0.0.1/$KT_IQN/$lun "$@"
}

# kt_second_disk DISK: the LUN 0 block device of the iSCSI session
# whose disk is not DISK (a second session to the same target)
kt_second_disk() {
	local d i
	for i in $(seq 1 50); do
		for d in /sys/class/iscsi_session/session*/device/target*/*:0/block/*; do
			[ -e "$d" ] && [ -b "/dev/$(basename "$d")" ] &&
				[ "/dev/$(basename "$d")" != "$1" ] &&
				{ echo "/dev/$(basename "$d")"; return 0; }
		done
		sleep 0.2
	done
	return 1
}

# kt_lun0_backstore NAME: point LUN 0 of kt_iscsi_setup's TPG at an rd
# (its own r0), a fileio (64 MiB file) or an iblock (brd ramdisk) device.
# Works on LIO as well.
kt_lun0_backstore() {
	local KT_TPG=$KT_CFS/iscsi/$KT_IQN/tpgt_1
	local dev l
	case $1 in
	rd)
		dev=$KT_CFS/core/rd_mcp_0/r0 ;;
	fileio)
		dev=$KT_CFS/core/fileio_0/f0
		mkdir -p $dev &&
		echo fd_dev_name=/tmp/kt-cu.img,fd_dev_size=67108864 > $dev/control &&
		echo 1 > $dev/enable || return 1 ;;
	iblock)
		dev=$KT_CFS/core/iblock_0/b0
		modprobe brd rd_nr=1 rd_size=65536 &&
		mkdir -p $dev && echo udev_path=/dev/ram0 > $dev/control &&
		echo 1 > $dev/enable || return 1 ;;
	user)	# tcmu-runner's qcow handler over a raw image; the daemon runs
		dev=$KT_CFS/core/user_0/u0
		truncate -s 64M /tmp/kt-cu-user.raw && mkdir -p $dev &&
		echo dev_config=qcow//tmp/kt-cu-user.raw,dev_size=67108864${KT_CU_USER_CONTROL:+,$KT_CU_USER_CONTROL} > $dev/control &&
		echo 1 > $dev/enable || return 1 ;;
	esac
	for l in $KT_TPG/lun/lun_0/*; do
		[ -L "$l" ] && rm "$l"
	done
	ln -s $dev $KT_TPG/lun/lun_0/$1
}

# kt_lun0_drop NAME: undo kt_lun0_backstore NAME
kt_lun0_drop() {
	local KT_TPG=$KT_CFS/iscsi/$KT_IQN/tpgt_1
	rm -f $KT_TPG/lun/lun_0/$1
	case $1 in
	fileio) rmdir $KT_CFS/core/fileio_0/f0 $KT_CFS/core/fileio_0
		rm -f /tmp/kt-cu.img ;;
	iblock) rmdir $KT_CFS/core/iblock_0/b0 $KT_CFS/core/iblock_0
		rmmod brd ;;
	user)	rmdir $KT_CFS/core/user_0/u0 $KT_CFS/core/user_0
		rm -f /tmp/kt-cu-user.raw ;;
	esac
}

# iSER over soft-RoCE: an rxe device on a dummy netdev with address
# KT_RDMA_ADDR; the initiator and the target both use it, rxe loops back.
KT_RDMA_ADDR=10.77.0.1
kt_rxe_up() {
	modprobe rdma_rxe || return 1
	ip link show kt-rdma >/dev/null 2>&1 || {
		ip link add kt-rdma type dummy &&
		ip addr add $KT_RDMA_ADDR/24 dev kt-rdma || return 1
	}
	ip link set kt-rdma up || return 1
	rdma link show kt_rxe0/1 >/dev/null 2>&1 ||
		rdma link add kt_rxe0 type rxe netdev kt-rdma
}

kt_rxe_down() {
	rdma link delete kt_rxe0 2>/dev/null
	ip link delete kt-rdma 2>/dev/null
	rmmod rdma_rxe 2>/dev/null
	return 0
}

# kt_warm_memory: write to most of the guest's free memory once. QEMU backs
# guest RAM lazily; a page the guest touches for the first time costs a host
# page fault, and the first stack a benchmark measures would pay for all of
# them. Run before measuring, so that every stack finds RAM already backed.
kt_warm_memory() {
	local d=/run/kt-warm mb
	mb=$(awk '/MemAvailable/ { print int($2 / 1024) - 256 }' /proc/meminfo)
	[ "$mb" -gt 0 ] || return 0
	mkdir -p $d && mount -t tmpfs -o size=${mb}m kt-warm $d || return 0
	dd if=/dev/zero of=$d/fill bs=1M count="$mb" 2>/dev/null
	umount $d
	rmdir $d
}

# kt_stack_up STACK, kt_stack_down STACK: load and unload the modules of
# ktarget or of in-tree LIO (STACK lio), for the benchmarks that run both
kt_stack_up() {
	case $1 in
	ktarget) modprobe ktarget_core ;;
	lio) mkdir -p /var/target/pr /var/target/alua
		modprobe target_core_mod && modprobe iscsi_target_mod ;;
	*) echo "# no stack $1"; return 1 ;;
	esac
}
kt_stack_down() {
	local m

	case $1 in
	ktarget)
		rmmod ktarget_iscsi ktarget_rd ktarget_fileio ktarget_iblock 2>/dev/null
		rmmod ktarget_core ;;
	lio)
		modprobe -r iscsi_target_mod
		for m in $(awk '$1 == "target_core_mod" { gsub(",", " ", $4); print $4 }' /proc/modules); do
			[ "$m" = - ] || modprobe -r "$m"
		done
		modprobe -r target_core_mod ;;
	esac
}

# kt_objects_zero [SECONDS]: every count in the ktarget objects file
# (connections, sessions, commands, TMFs, logins, LUN references) is 0,
# within SECONDS (default 30); prints the counts that are not.
KT_OBJECTS=/sys/kernel/debug/ktarget/objects
kt_objects_zero() {
	local end=$((SECONDS + ${1:-30})) left
	[ -r $KT_OBJECTS ] || { echo "no $KT_OBJECTS"; return 1; }
	while :; do
		left=$(awk '$3 != 0' $KT_OBJECTS)
		[ -z "$left" ] && return 0
		[ $SECONDS -ge $end ] && break
		sleep 1
	done
	echo "still live after ${1:-30} s:"
	printf '%s\n' "$left"
	return 1
}

# kt_wait_for SECONDS CMD...: CMD again every half second until it succeeds,
# for at most SECONDS; its status. For a check of what happens after the
# action that causes it (a work item, a daemon, the other node): sampled
# once, such a check races what it checks.
# On the debug kernel (KASAN, lockdep, kmemleak), which runs 4-5x slower
# under TCG, the wait is KT_SLOW (4) times as long: a daemon's start, a
# device's coming and going take that much longer there. Bounds that a test
# checks (kt_within, a time measured) are not stretched.
case $(uname -r) in
*-ktdebug) : "${KT_SLOW:=4}" ;;
*) : "${KT_SLOW:=1}" ;;
esac
kt_wait_for() {
	local end=$((SECONDS + $1 * KT_SLOW))
	shift
	until "$@"; do
		[ $SECONDS -ge $end ] && return 1
		sleep 0.5
	done
}

# kt_within SECONDS CMD...: run CMD, which may block in the kernel, and
# fail if it has not ended within SECONDS (it is left running then). CMD's
# output goes through a file: a CMD left running must not hold the pipe of
# a caller's $(...) open, which would make the caller wait for it.
kt_within() {
	local secs=$1 pid i out st
	shift
	out=$(mktemp /tmp/kt-within.XXXXXX)
	"$@" > "$out" 2>&1 &
	pid=$!
	for ((i = 0; i < secs * 5; i++)); do
		if ! kill -0 $pid 2>/dev/null; then
			wait $pid
			st=$?
			cat "$out"
			rm -f "$out"
			return $st
		fi
		sleep 0.2
	done
	cat "$out"
	echo "still running after $secs s: $*"
	return 1
}

# kt_kmsg_clean: the kernel log since kmsg_mark shows no finding (the
# patterns of tools/testing/vm/scan-log.sh)
kt_kmsg_clean() {
	local hits
	# less the kernel iSCSI initiator's warning at a logout that
	# scan-log.sh skips too (the line before it names the flush)
	hits=$(kmsg_since | awk '
		/WARNING: .* check_flush_dependency/ && prev ~ /__iscsi_unbind_session \[scsi_transport_iscsi\] is flushing !WQ_MEM_RECLAIM pm:pm_runtime_work/ { prev = $0; next }
		{ print; prev = $0 }' |
		grep -E 'BUG:|WARNING:|Oops|general protection|refcount_t|list_(add|del) corruption|hung_task|blocked for more than|UBSAN:|still live at unload|log wrapped past')
	[ -z "$hits" ] && return 0
	printf '%s\n' "$hits"
	return 1
}

# Through a test's disks (its LOG names the logs: $LOG.NAME):
# fio_verify DISK NAME ARGS...: fio writes and verifies (crc32c) on DISK
fio_verify() {
	local disk=$1 name=$2
	shift 2
	fio --output=$LOG.$name --filename=$disk --allow_file_create=0 \
		--direct=1 --ioengine=libaio \
		--iodepth=16 --name=$name --verify=crc32c --verify_fatal=1 "$@"
}

# fio_load DISK NAME: 60 s of 4k random writes that verify, in the
# background ($!), for what is taken away under it
fio_load() {
	fio --output=$LOG.$2 --filename=$1 --allow_file_create=0 \
		--direct=1 --ioengine=libaio \
		--iodepth=16 --name=$2 --rw=randwrite --bs=4k --size=16m \
		--time_based --runtime=60 --verify=crc32c --verify_backlog=64 &
}

# ends_failed_within SECONDS PID: PID ends within SECONDS, with a status
# other than 0
ends_failed_within() {
	local i
	for ((i = 0; i < $1 * 5; i++)); do
		if ! kill -0 $2 2>/dev/null; then
			wait $2 && { echo "fio exited 0"; return 1; }
			return 0
		fi
		sleep 0.2
	done
	echo "fio still runs after $1 s"
	kill -9 $2
	return 1
}

# kt_dbus_start, kt_dbus_stop: the system D-Bus targetcli needs, started
# only if none runs and stopped again (70-targetcli checks it can start one)
KT_DBUS_PID=
kt_dbus_start() {
	mkdir -p /run/dbus
	if ! pgrep -x dbus-daemon >/dev/null &&
	   dbus-daemon --system --fork 2>/dev/null; then
		KT_DBUS_PID=$(cat /run/dbus/pid 2>/dev/null)
	fi
}
kt_dbus_stop() {
	[ -n "$KT_DBUS_PID" ] || return 0
	kill "$KT_DBUS_PID" 2>/dev/null
	kt_wait_for 10 sh -c "! kill -0 $KT_DBUS_PID 2>/dev/null"
	rm -f /run/dbus/pid
	KT_DBUS_PID=
}

# kt_sdebug_disk: the sd disk of the (one) scsi_debug device, within 20 s
kt_sdebug_disk() {
	local d i

	for i in $(seq 1 100); do
		for d in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do
			[ -e "$d" ] && [ -b "/dev/${d##*/}" ] &&
				{ echo "/dev/${d##*/}"; return 0; }
		done
		sleep 0.2
	done
	return 1
}

# kt_loop_disk TPG LUN: the sd disk of LUN on the host of the loopback
# nexus of TPG (its configfs directory), within 20 s (KT_SLOW times that)
kt_loop_disk() {
	local a d i
	for i in $(seq 1 $((100 * KT_SLOW))); do
		a=$(cat "$1/address" 2>/dev/null)
		for d in /sys/bus/scsi/devices/$a:$2/block/*; do
			[ -n "$a" ] && [ -e "$d" ] && [ -b "/dev/${d##*/}" ] &&
				{ echo "/dev/${d##*/}"; return 0; }
		done
		sleep 0.2
	done
	for d in /sys/bus/scsi/devices/$a:$2/block/*; do
		[ -e "/dev/${d##*/}" ] && ! [ -b "/dev/${d##*/}" ] &&
			echo "/dev/${d##*/} is there but is no block device"
	done
	return 1
}
