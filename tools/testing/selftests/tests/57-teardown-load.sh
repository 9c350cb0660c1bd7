#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Teardown under load: while 8 sessions of the kernel initiator (open-iscsi,
# one node, `--op new`) read and write, each piece of the configuration goes
# in turn: the LUN's link to its device, the ACL's mapped LUN, the ACL, the
# portal (its sessions go on, as on LIO: a portal only takes new
# connections), the whole TPG, the backstore device; then it comes back. ROUNDS
# times (KT_TEARDOWN_ROUNDS, default 1; make soak runs more). Each removal
# must end within 30 s, the initiator's I/O must end by itself within 20 s
# (its replacement timeout is 3 s), no connection may be left where the
# removal ends them, and at the end nothing stays allocated: every ktarget
# object count 0, the memory the guest had before (MemAvailable after
# drop_caches, within 32 MiB). Then the modules unload (the harness checks).
. ./lib.sh

SESSIONS=8
ROUNDS=${KT_TEARDOWN_ROUNDS:-1}
BOUND=30
P=127.0.0.1:3260
TPG=$KT_CFS/iscsi/$KT_IQN/tpgt_1
RD=$KT_CFS/core/rd_mcp_0/r0
INI=iqn.2026-11.org.ktarget:guest
IO_PIDS=()

disks() {
	local d
	for d in /sys/class/iscsi_session/session*/device/target*/*:0:0:0/block/*; do
		[ -e "$d" ] && [ -b "/dev/$(basename "$d")" ] && echo "/dev/$(basename "$d")"
	done
}

# start_io: SESSIONS sessions, each writing and reading its disk
start_io() {
	local sid i disk
	iscsiadm -m discovery -t st -p $P >/dev/null || return 1
	iscsiadm -m node -T $KT_IQN -p $P -o update \
		-n node.session.timeo.replacement_timeout -v 3 || return 1
	iscsiadm -m node -T $KT_IQN -p $P --login >/dev/null || return 1
	sid=$(iscsiadm -m session | sed -n 's/^tcp: \[\([0-9]*\)\].*/\1/p' | head -1)
	for ((i = 1; i < SESSIONS; i++)); do
		iscsiadm -m session -r "$sid" --op new >/dev/null || return 1
	done
	for ((i = 0; i < 100; i++)); do
		[ "$(disks | wc -l)" -ge $SESSIONS ] && break
		sleep 0.2
	done
	[ "$(disks | wc -l)" -ge $SESSIONS ] ||
		{ echo "$(disks | wc -l) of $SESSIONS disks"; return 1; }
	IO_PIDS=()
	for disk in $(disks); do
		( while :; do
			dd if=/dev/urandom of="$disk" bs=64k count=32 oflag=direct conv=nocreat status=none || break
			dd if="$disk" of=/dev/null bs=64k count=32 iflag=direct status=none || break
		  done ) >/dev/null 2>&1 &
		IO_PIDS+=($!)
	done
	sleep 2
	kill -0 "${IO_PIDS[@]}"
}

# stop_io: the I/O of every session ends by itself within 20 s
stop_io() {
	local i left=0 p
	for ((i = 0; i < 40; i++)); do
		left=0
		for p in "${IO_PIDS[@]}"; do
			kill -0 "$p" 2>/dev/null && left=$((left + 1))
		done
		[ $left = 0 ] && break
		sleep 0.5
	done
	[ $left = 0 ] || { echo "$left of ${#IO_PIDS[@]} still doing I/O"; kill "${IO_PIDS[@]}" 2>/dev/null; }
	[ $left = 0 ]
}

# io_goes_on: every session's I/O is still running 3 s on; then it stops
io_goes_on() {
	local p dead=0
	sleep 3
	for p in "${IO_PIDS[@]}"; do
		kill -0 "$p" 2>/dev/null || dead=$((dead + 1))
	done
	kill "${IO_PIDS[@]}" 2>/dev/null
	wait "${IO_PIDS[@]}" 2>/dev/null
	[ $dead = 0 ] || { echo "$dead of ${#IO_PIDS[@]} stopped"; return 1; }
}

logout_all() {
	iscsiadm -m node -T $KT_IQN -p $P --logout >/dev/null 2>&1
	iscsiadm -m node -o delete >/dev/null 2>&1
}

# no_connections: the target has closed every connection on the portal,
# within 10 s (looked at before the initiator logs out)
no_connections() {
	local i
	for ((i = 0; i < 50; i++)); do
		awk '$2 ~ /:0CBC$/ && $4 == "01"' /proc/net/tcp | grep -q . || return 0
		sleep 0.2
	done
	echo "connections still open:"
	awk '$2 ~ /:0CBC$/ && $4 == "01"' /proc/net/tcp
	return 1
}

# check_here DESCRIPTION CMD...: as check, with CMD run in this shell, not
# in a subshell: start_io's IO_PIDS must reach stop_io
check_here() {
	local d=$1
	shift
	if "$@" > /tmp/kt-check.out 2>&1; then
		ok "$d"
	else
		not_ok "$d" "command failed: $*" "$(cat /tmp/kt-check.out)"
	fi
}

acl_mode() {
	echo 0 > $TPG/attrib/generate_node_acls &&
		mkdir -p $TPG/acls/$INI/lun_0 &&
		ln -s $TPG/lun/lun_0 $TPG/acls/$INI/lun_0/lun0
}

acl_drop() {
	rm -f $TPG/acls/$INI/lun_0/lun0
	rmdir $TPG/acls/$INI/lun_0 $TPG/acls/$INI 2>/dev/null
	echo 1 > $TPG/attrib/generate_node_acls
}

tpg_remove() {
	echo 0 > $TPG/enable && rm $TPG/lun/lun_0/r0 && rmdir $TPG/lun/lun_0 &&
		rmdir $TPG/np/$P && rmdir $TPG
}

tpg_restore() {
	mkdir -p $TPG/lun/lun_0 && ln -s $RD $TPG/lun/lun_0/r0 &&
		mkdir $TPG/np/$P && echo 0 > $TPG/attrib/authentication &&
		echo 1 > $TPG/attrib/generate_node_acls &&
		echo 0 > $TPG/attrib/demo_mode_write_protect &&
		echo 600 > $TPG/attrib/default_dataout_timeout &&
		echo 1 > $TPG/enable
}

rd_remove() {
	rm $TPG/lun/lun_0/r0 && rmdir $RD
}

rd_restore() {
	mkdir $RD && echo rd_pages=16384 > $RD/control && echo 1 > $RD/enable &&
		ln -s $RD $TPG/lun/lun_0/r0
}

# scenario NAME SETUP ACTION UNDO EFFECT: the action under load, bounded.
# EFFECT: "keeps" (the sessions stay, their I/O fails and ends), "closes"
# (the target closes every connection, the I/O ends), "goes-on" (the
# sessions and their I/O go on: a portal only takes new connections).
scenario() {
	local name=$1 setup=$2 action=$3 undo=$4 effect=$5 t0
	[ -n "$setup" ] && check "$name: set up" $setup
	check_here "$name: $SESSIONS sessions doing I/O" start_io
	t0=$SECONDS
	check "$name under load, within $BOUND s" kt_within $BOUND $action
	echo "# $name took $((SECONDS - t0)) s"
	if [ "$effect" = goes-on ]; then
		check_here "$name: the sessions' I/O goes on" io_goes_on
	else
		check_here "$name: the initiator's I/O ends" stop_io
	fi
	[ "$effect" = closes ] && check "$name: no connection left" no_connections
	logout_all
	check "$name: undone" $undo
}

lun_unlink() { rm $TPG/lun/lun_0/r0; }
lun_link() { ln -s $RD $TPG/lun/lun_0/r0; }
mapped_unlink() { rm $TPG/acls/$INI/lun_0/lun0; }
acl_remove() { rm -f $TPG/acls/$INI/lun_0/lun0 && rmdir $TPG/acls/$INI/lun_0 $TPG/acls/$INI; }
np_remove() { rmdir $TPG/np/$P; }
np_restore() { mkdir $TPG/np/$P; }
none() { :; }

mem_available_mb() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	awk '/MemAvailable/ { print int($2 / 1024) }' /proc/meminfo
}

main() {
	local r mem0 mem1

	command -v iscsiadm >/dev/null || { skip_all "teardown under load: no iscsiadm"; return; }
	plan $((2 + ROUNDS * 28 + 5))
	mem0=$(mem_available_mb)
	check "target set up" kt_iscsi_setup
	check "iscsid starts" kt_iscsid_start

	for ((r = 1; r <= ROUNDS; r++)); do
		echo "# round $r of $ROUNDS"
		scenario "LUN unlink" "" lun_unlink lun_link keeps
		scenario "mapped LUN removal" acl_mode mapped_unlink acl_drop keeps
		scenario "ACL removal" acl_mode acl_remove acl_drop closes
		scenario "portal removal" "" np_remove np_restore goes-on
		scenario "TPG removal" "" tpg_remove tpg_restore closes
		scenario "backstore removal" "" rd_remove rd_restore keeps
	done

	check_here "teardown under load: $SESSIONS sessions doing I/O" start_io
	check "teardown under load: the whole configuration goes" kt_within $BOUND kt_iscsi_teardown
	check_here "teardown under load: the initiator's I/O ends" stop_io
	logout_all
	check "every ktarget object is gone" kt_objects_zero
	rmmod ktarget_iscsi ktarget_rd 2>/dev/null
	mem1=$(mem_available_mb)
	echo "# MemAvailable: $mem0 MiB before, $mem1 MiB after"
	check "the memory is back (within 32 MiB)" test $((mem0 - mem1)) -le 32
}

main "$@"
