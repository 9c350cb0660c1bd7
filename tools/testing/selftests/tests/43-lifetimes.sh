#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lifetimes (iscsi_lifetime.py): a task management response after the
# sessions that sent it and its victim are gone, and an abort from one
# connection of a session while another is receiving the aborted WRITE's
# data; EXTENDED COPY with LIST ID USAGE 11b in a flood, from the slow
# LUN; a TPG disabled while a command of its session is in a backstore
# (dm-delay) for 40 s. On the debug kernel KASAN reports a use after free in the
# kernel log, which fails the run; here the target must serve a new
# session, and the TPG wait for the command.
. ./lib.sh

KT_SLOW=$KT_CFS/core/iblock_1/slow
KT_SLOWER=$KT_CFS/core/iblock_1/slower
KT_TD_IQN=iqn.2026-11.org.ktarget:teardown

# A TPG disabled while its only session has a READ in a backstore that
# takes 40 s: disabling waits until the READ has come back, however long
# (it gave up after 30 s, and the session then outlived its TPG).
tpg_waits_for_its_commands() {
	local tpg=$KT_CFS/iscsi/$KT_TD_IQN/tpgt_1 pid t0 t inflight

	# dm-delay: a bio-based device, neither scanned for partitions nor
	# timed out by the block layer
	check "kt-slower: dm-delay over a ramdisk, 40 s per read" sh -c "
		modprobe brd rd_nr=1 rd_size=65536 && modprobe dm-delay &&
		DM_DISABLE_UDEV=1 dmsetup --noudevsync create kt-slower \
			--table '0 131072 delay /dev/ram0 0 40000 /dev/ram0 0 0'"
	check "a second target, its LUN 0 on kt-slower" sh -c "mkdir -p $KT_SLOWER &&
		echo udev_path=/dev/mapper/kt-slower > $KT_SLOWER/control &&
		echo 1 > $KT_SLOWER/enable && mkdir -p $tpg/lun/lun_0 &&
		ln -s $KT_SLOWER $tpg/lun/lun_0/slower &&
		mkdir $tpg/np/127.0.0.1:3262 &&
		echo 0 > $tpg/attrib/authentication &&
		echo 1 > $tpg/attrib/generate_node_acls && echo 1 > $tpg/enable"
	python3 ./iscsi_lifetime.py hold-read 127.0.0.1:3262 $KT_TD_IQN \
		iqn.2026-11.org.ktarget:life-hold 0 > /tmp/kt-hold.log 2>&1 &
	pid=$!
	for t in $(seq 1 100); do
		grep -q 'READ sent' /tmp/kt-hold.log && break
		sleep 0.2
	done
	sleep 1
	t0=$SECONDS
	echo 0 > $tpg/enable
	t=$((SECONDS - t0))
	# dm-delay's status: the reads and writes it holds back now
	inflight=$(DM_DISABLE_UDEV=1 dmsetup status kt-slower | awk '{ print $4, $5 }')
	wait $pid
	sed 's/^/# /' /tmp/kt-hold.log
	echo "# disabling the TPG took $t s; kt-slower held back then (reads, writes): $inflight"
	check_eq "disabling the TPG waited for the READ in the backstore" \
		"$inflight" "0 0"
	rm -f $tpg/lun/lun_0/slower
	rmdir $tpg/np/127.0.0.1:3262 $tpg/lun/lun_0 $tpg $KT_CFS/iscsi/$KT_TD_IQN
	check "the TPG and the second target go" test ! -e $KT_CFS/iscsi/$KT_TD_IQN
	rmdir $KT_SLOWER
	DM_DISABLE_UDEV=1 dmsetup --noudevsync remove kt-slower
	rmmod dm-delay brd 2>/dev/null
}

# A login that found its TPG, then waits before asking for full feature
# phase while the TPG is disabled and removed: it must not make a session
# on the TPG that is gone (it did, and the TPG was then freed under it).
KT_LATE_IQN=iqn.2026-11.org.ktarget:late
late_login_after_rmdir() {
	local tpg=$KT_CFS/iscsi/$KT_LATE_IQN/tpgt_1 pid go=/tmp/kt-late-go i

	rm -f $go
	check "a third target on port 3263" sh -c "mkdir -p $tpg/lun/lun_0 &&
		ln -s $KT_CFS/core/rd_mcp_0/r0 $tpg/lun/lun_0/r0 &&
		mkdir $tpg/np/127.0.0.1:3263 &&
		echo 0 > $tpg/attrib/authentication &&
		echo 1 > $tpg/attrib/generate_node_acls && echo 1 > $tpg/enable"
	python3 ./iscsi_lifetime.py late-login 127.0.0.1:3263 $KT_LATE_IQN \
		iqn.2026-11.org.ktarget:life-late $go > /tmp/kt-late.log 2>&1 &
	pid=$!
	for i in $(seq 1 100); do
		grep -q 'first login PDU answered' /tmp/kt-late.log && break
		sleep 0.2
	done
	check "while the login waits, its TPG is disabled and removed" \
		kt_within 60 sh -c "echo 0 > $tpg/enable &&
		rm $tpg/lun/lun_0/r0 && rmdir $tpg/lun/lun_0 $tpg/np/127.0.0.1:3263 &&
		rmdir $tpg $KT_CFS/iscsi/$KT_LATE_IQN"
	touch $go
	if wait $pid; then
		ok "the login's end: refused, no session on the removed TPG"
	else
		not_ok "the login's end: refused, no session on the removed TPG"
	fi
	sed 's/^/# /' /tmp/kt-late.log
	rm -f $go
	check "a new session of the first target still works" \
		python3 ./iscsi_raw.py power-on 127.0.0.1:3260 $KT_IQN \
			iqn.2026-11.org.ktarget:life-late-after 0
}

# EXTENDED COPY to LUN 0 while its target port group is in standby: the
# copy's WRITE faces the check a WRITE would (2/04/0B)
xcopy_alua() {
	local gp=$KT_CFS/core/rd_mcp_0/r0/alua/default_tg_pt_gp
	local d="EXTENDED COPY to a LUN in ALUA standby: NOT READY"

	if ! write_attr $gp/alua_access_state 2; then
		not_ok "$d" "cannot set $gp/alua_access_state to 2"
		return
	fi
	py_check "$d" iscsi_hostile.py xcopy-once 1,2,2
	write_attr $gp/alua_access_state 0
}

# session_gone INITIATOR: within 10 s no session of INITIATOR is listed
session_gone() {
	local i
	for i in $(seq 1 50); do
		grep -q "$1" $KT_CFS/iscsi/$KT_IQN/tpgt_1/dynamic_sessions || return 0
		sleep 0.2
	done
	echo "still listed: $(cat $KT_CFS/iscsi/$KT_IQN/tpgt_1/dynamic_sessions)"
	return 1
}

# py_check DESCRIPTION SCRIPT MODE LUN-OR-ARG: one mode of a bare-initiator
# script against the target, its output kept as diagnostics; ok on exit 0
py_check() {
	local d=$1 script=$2 mode=$3 out rc
	out=$(timeout 180 python3 "./$script" "$mode" 127.0.0.1:3260 $KT_IQN \
		"iqn.2026-11.org.ktarget:life-$mode" "$4" 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	if [ $rc = 0 ]; then
		ok "$d"
	else
		not_ok "$d" "$script $mode $4: exit $rc"
	fi
}

main() {
	local tpg=$KT_CFS/iscsi/$KT_IQN/tpgt_1 limit

	if ! modprobe null_blk nr_devices=1 gb=1 irqmode=2 completion_nsec=3000000000 2>/dev/null; then
		skip_all "no null_blk module"
		return
	fi
	plan 27
	check "an iSCSI target" kt_iscsi_setup
	check "LUN 1: iblock on a null_blk whose I/O takes 3 s" sh -c "mkdir -p $KT_SLOW &&
		echo udev_path=/dev/nullb0 > $KT_SLOW/control && echo 1 > $KT_SLOW/enable &&
		mkdir $tpg/lun/lun_1 && ln -s $KT_SLOW $tpg/lun/lun_1/slow"
	check "MaxConnections=2" write_attr $tpg/param/MaxConnections 2
	kmsg_mark

	py_check "a LUN RESET answers after its session and its victim's closed" \
		iscsi_lifetime.py tmf-after-close 1
	py_check "MC/S: an abort from connection 2 while connection 1 receives the data" \
		iscsi_lifetime.py mcs-abort 0
	py_check "task management in a discovery session is refused without harm" \
		iscsi_lifetime.py discovery-tmf 0
	py_check "a WRITE's immediate data cut off by a reset" \
		iscsi_lifetime.py cut-immediate 0
	check "and its session goes" session_gone iqn.2026-11.org.ktarget:life-cut-immediate
	py_check "a reinstating login waits for the old session's READ in the backstore" \
		iscsi_lifetime.py reinstate-wait 1
	py_check "24 copies of one nexus at once: 8 run, 16 BUSY" \
		iscsi_hostile.py xcopy-flood 1,1,24
	py_check "12 copies of each of two nexuses: 16 run in all" \
		iscsi_hostile.py xcopy-flood 1,2,12
	py_check "one nexus's copies leave a copy slot for another initiator" \
		iscsi_hostile.py xcopy-share 1
	limit=$(cat $KT_CFS/data_buffer_limit_mb)
	echo 1 > $KT_CFS/data_buffer_limit_mb
	py_check "a copy's buffer counts toward data_buffer_limit_mb" \
		iscsi_hostile.py xcopy-ceiling 1
	echo "$limit" > $KT_CFS/data_buffer_limit_mb
	py_check "EXTENDED COPY to a LUN with software write protect: DATA PROTECT" \
		iscsi_hostile.py xcopy-swp 1
	xcopy_alua
	late_login_after_rmdir
	tpg_waits_for_its_commands

	check "no connection, session, command or LUN reference is left" \
		kt_objects_zero 30
	rm -f $tpg/lun/lun_1/slow
	rmdir $tpg/lun/lun_1 $KT_SLOW $KT_CFS/core/iblock_1
	kt_iscsi_teardown
	check "target/iscsi is gone" test ! -e $KT_CFS/iscsi
	check "rmmod ktarget_iscsi ktarget_iblock ktarget_rd" \
		rmmod ktarget_iscsi ktarget_iblock ktarget_rd
	check "rmmod ktarget_core null_blk" rmmod ktarget_core null_blk
}

main "$@"
