#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The SRP target fabric (ktarget_srpt, LIO's ib_srpt) over soft-RoCE: the
# kernel's ib_srp logs in through rdma_cm (add_target with dest=) to a TPG
# named by the rxe port's GID, as rtslib names it, and gets an rd and a
# fileio disk. sg3_utils sees them, fio verifies data (4k random and 1M
# sequential, crc32c), files on ext4 survive a logout and a login, a LUN
# RESET (sg_reset) under fio leaves every write verified, and a second
# login (another initiator_ext) gives a second path that dm-multipath
# uses while the first is cut. Logins that are wrong (unknown target
# port, no ACL, an IU length above srp_max_req_size) are rejected with the
# reason logged. A LUN, an ACL and the TPG removed under fio end fio with
# errors, not a hang; no object is left and the module unloads.
. ./lib.sh

PORT=5555
RD=$KT_CFS/core/rd_mcp_0/r0
FD=$KT_CFS/core/fileio_0/f0
FIMG=/tmp/kt-srpt-f0.img
LOG=/ktout/srpt.log
SRP=/sys/class/infiniband_srp/srp-kt_rxe0-1

# the rxe port's GID 0 and node GUID, in the forms rtslib and ib_srp use
gid_hex() { tr -d ':\n' < /sys/class/infiniband/kt_rxe0/ports/1/gids/0; }
guid_hex() { tr -d ':\n' < /sys/class/infiniband/kt_rxe0/node_guid; }

# login EXT [EXTRA]: ib_srp logs in with initiator_ext EXT
login() {
	local g
	g=$(guid_hex)
	echo "id_ext=$g,ioc_guid=$g,dest=$KT_RDMA_ADDR:$PORT,initiator_ext=$1${2:+,$2}" \
		> $SRP/add_target
}

# srp_hosts: the SCSI hosts of ib_srp
srp_hosts() {
	local h
	for h in /sys/class/scsi_host/host*; do
		[ "$(cat $h/proc_name 2>/dev/null)" = ib_srp ] && echo "${h##*/host}"
	done
}

# srp_disk LUN [HOST]: the sd disk of LUN (of the newest ib_srp host), 20 s
srp_disk() {
	local h d i
	for i in $(seq 1 100); do
		h=${2:-$(srp_hosts | sort -n | tail -1)}
		for d in /sys/class/scsi_host/host$h/device/target*/$h:*:$1/block/*; do
			[ -n "$h" ] && [ -e "$d" ] && [ -b "/dev/${d##*/}" ] &&
				{ echo "/dev/${d##*/}"; return 0; }
		done
		sleep 0.2
	done
	return 1
}

# logout_all: every ib_srp remote port deleted, its hosts gone
logout_all() {
	local p
	for p in /sys/class/srp_remote_ports/port-*; do
		[ -e "$p/delete" ] && echo 1 > "$p/delete"
	done
	kt_wait_for 30 test -z "$(srp_hosts)"
}

# log_has PATTERN: the kernel log since kmsg_mark has it
log_has() { kmsg_since | grep -q -- "$1"; }

# refused WHY ARGS: a login with ARGS fails and the target logs WHY
refused() {
	local why=$1
	shift
	kmsg_mark
	login "$@" 2>/dev/null && { echo "add_target succeeded"; return 1; }
	kt_wait_for 10 log_has "$why"
}

setup() {
	local tpg acl
	check "soft-RoCE device on a dummy netdev" kt_rxe_up
	check "modprobe ktarget_core, sd_mod, sg, ib_srp" sh -c \
		"modprobe ktarget_core && modprobe sd_mod && modprobe sg && modprobe ib_srp"
	check "rd device r0 and fileio device f0, 64 MiB each" sh -c "
		mkdir -p $RD $FD && echo rd_pages=16384 > $RD/control && echo 1 > $RD/enable &&
		echo fd_dev_name=$FIMG,fd_dev_size=67108864 > $FD/control && echo 1 > $FD/enable"
	check "mkdir target/srpt" mkdir $KT_CFS/srpt
	check "ktarget_srpt was loaded on demand" grep -q '^ktarget_srpt ' /proc/modules
	check "ib_srpt was not" sh -c "! grep -q '^ib_srpt ' /proc/modules"
	check_bad_mkdir "a port name that is no GUID or GID is refused" \
		$KT_CFS/srpt/iqn.2026-11.org.ktarget:x "not a port GUID or GID"
	WWN=0x$(gid_hex)
	TPG=$KT_CFS/srpt/$WWN/tpgt_1
	INIT0=0x0000000000000000${WWN: -16}
	INIT1=0x0000000000000001${WWN: -16}
	check "TPG of the rxe port's GID ($WWN), rd LUN 0, fileio LUN 1" sh -c "
		mkdir -p $TPG/lun/lun_0 $TPG/lun/lun_1 &&
		ln -s $RD $TPG/lun/lun_0/r0 && ln -s $FD $TPG/lun/lun_1/f0"
	check_eq "attrib/srp_max_req_size is 8276" "$(cat $TPG/attrib/srp_max_req_size)" 8276
	check_bad_write "use_srq 1 is refused" $TPG/attrib/use_srq 1 "want 0"
	for acl in $INIT0 $INIT1; do
		mkdir -p $TPG/acls/$acl/lun_0 $TPG/acls/$acl/lun_1 &&
		ln -s $TPG/lun/lun_0 $TPG/acls/$acl/lun_0/l0 &&
		ln -s $TPG/lun/lun_1 $TPG/acls/$acl/lun_1/l1
	done
	check "ACLs of initiator_ext 0 and 1, LUNs 0 and 1 mapped" \
		test -L $TPG/acls/$INIT1/lun_1/l1
	check "enable the TPG, listen on port $PORT" sh -c "
		echo 1 > $TPG/enable && echo $PORT > $KT_CFS/srpt/discovery_auth/rdma_cm_port"
	check_eq "rdma_cm_port reads back" "$(cat $KT_CFS/srpt/discovery_auth/rdma_cm_port)" $PORT
	check "ib_srp's port for kt_rxe0" test -e $SRP/add_target
}

bad_logins() {
	local g
	g=$(guid_hex)
	kmsg_mark
	echo "id_ext=1234,ioc_guid=$g,dest=$KT_RDMA_ADDR:$PORT" > $SRP/add_target 2>/dev/null
	check "a login to another id_ext is rejected" kt_wait_for 10 log_has 'refused (0x10003)'
	check "a login without an ACL is rejected" refused "has an ACL" 5
	echo 996 > $TPG/attrib/srp_max_req_size
	check "an IU length above srp_max_req_size is rejected" \
		refused 'refused (0x10002)' 0
	echo 8276 > $TPG/attrib/srp_max_req_size
	check_eq "no SRP host after the rejected logins" "$(srp_hosts)" ""
}

basic_io() {
	local d0 d1
	check "login (initiator_ext 0)" login 0
	d0=$(srp_disk 0)
	d1=$(srp_disk 1)
	check "LUN 0 and LUN 1 are sd disks" test -b "$d0" -a -b "$d1"
	check "the target logs the login" sh -c "dmesg | grep -q '$INIT0 logged in'"
	check "sg_inq: ktarget's disk" sh -c "sg_inq $d0 | grep -q KTARGET"
	check "sg_inq: the target port speaks SRP" sh -c \
		"sg_vpd -p di $d0 | grep -qi 'SCSI RDMA\|SRP'"
	check "sg_readcap: 131072 blocks of 512 bytes" sh -c \
		"sg_readcap $d0 | grep -q 'Last LBA=131071'"
	check "fio: 4k random read/write, crc32c verified, 10 s (rd)" \
		fio_verify "$d0" randrw --rw=randrw --bs=4k --size=32m --time_based \
			--runtime=10 --verify_backlog=256
	check "fio: 1M sequential write, crc32c verified (fileio)" \
		fio_verify "$d1" seq --rw=write --bs=1m --size=48m
	check "fio: 1M sequential write, crc32c verified (rd)" \
		fio_verify "$d0" seqrd --rw=write --bs=1m --size=48m
}

ext4_relogin() {
	local d mnt=/mnt/kt-srpt
	d=$(srp_disk 1)
	mkdir -p $mnt
	check "mkfs.ext4 on the fileio disk, mount, write files" sh -c "
		mkfs.ext4 -q -F $d && mount $d $mnt &&
		for i in 1 2 3 4; do head -c 3000000 /dev/urandom > $mnt/f\$i; done &&
		(cd $mnt && sha256sum f1 f2 f3 f4 > /tmp/kt-srpt-sums) && umount $mnt"
	check "logout: the SRP host goes" logout_all
	check "the target closes the channel" kt_wait_for 20 sh -c \
		"dmesg | grep -q '$INIT0: channel closed'"
	check "login again" login 0
	d=$(srp_disk 1)
	check "mount again: the files are intact" sh -c "mount $d $mnt &&
		cd $mnt && sha256sum -c --quiet /tmp/kt-srpt-sums"
	umount $mnt 2>/dev/null
}

reset_under_fio() {
	local d sg pid st
	d=$(srp_disk 0)
	sg=$(sg_of "$d") || return 1
	echo 10 > /sys/block/${d#/dev/}/device/timeout
	fio_verify "$d" reset --rw=randwrite --bs=4k --size=16m --time_based \
		--runtime=8 --verify_backlog=64 &
	pid=$!
	sleep 3
	sg_reset -d "$sg"
	st=$?
	wait $pid || { cat $LOG.reset; return 1; }
	return $st
}

# With srp_sq_size at its minimum (16 send queue entries) most answers
# wait for room on the channel's send queue list: 256k reads and writes at
# queue depth 32 keep it full, a LUN RESET answered meanwhile goes behind
# the data of the commands that completed before it, and fio verifies.
small_sq_reset() {
	local d sg pid st
	logout_all
	echo 16 > $TPG/attrib/srp_sq_size
	kmsg_mark
	login 0 || return 1
	d=$(srp_disk 0) || return 1
	sg=$(sg_of "$d") || return 1
	echo 10 > /sys/block/${d#/dev/}/device/timeout
	fio_verify "$d" smallsq --rw=randrw --bs=256k --size=32m --iodepth=32 \
		--time_based --runtime=8 --verify_backlog=16 &
	pid=$!
	sleep 3
	sg_reset -d "$sg"
	st=$?
	kt_within 60 sh -c "while kill -0 $pid 2>/dev/null; do sleep 0.5; done" ||
		{ echo "fio still runs after 60 s"; kill -9 $pid; return 1; }
	wait $pid || { tail -5 $LOG.smallsq; return 1; }
	! log_has "closing the channel" || { kmsg_since | grep srpt; return 1; }
	return $st
}

# A LUN RESET from one channel aborts what another channel has in the LU;
# with TAS off (emulate_tas 0) those commands get no answer (SAM-5 7.2),
# and their credits must reach the initiator anyway, by SRP_CRED_REQ when
# the channel has no answer to send (SRP r16a 6.10): ib_srp's req_lim of
# the second login (16 writes at once to LU 2, an iblock device
# whose writes dm-delay holds 4 s) is back where it was within 5 s of the
# reset. Its aborted commands end when ib_srp's SCSI timeout (30 s) aborts
# them.
foreign_reset_credits() {
	local ha hb da db sg pid lim0 lim acl i p st=0
	local slow=$KT_CFS/core/iblock_0/slow
	local dm="dmsetup --noudevsync"
	export DM_DISABLE_UDEV=1
	modprobe null_blk nr_devices=1 gb=1 bs=512 && modprobe dm-delay &&
		$dm create kt-srpt-slow --table "0 262144 delay /dev/nullb0 0 0 /dev/nullb0 0 4000" &&
		mkdir -p $slow && echo udev_path=/dev/mapper/kt-srpt-slow > $slow/control &&
		echo 1 > $slow/enable && echo 0 > $slow/attrib/emulate_tas &&
		mkdir -p $TPG/lun/lun_2 && ln -s $slow $TPG/lun/lun_2/slow || return 1
	for acl in $INIT0 $INIT1; do
		mkdir -p $TPG/acls/$acl/lun_2 &&
			ln -s $TPG/lun/lun_2 $TPG/acls/$acl/lun_2/l2 || return 1
	done
	ha=$(srp_hosts)
	kmsg_mark
	echo "- - -" > /sys/class/scsi_host/host$ha/scan
	da=$(srp_disk 2 $ha) && sg=$(sg_of "$da") && login 1 || return 1
	hb=$(srp_hosts | grep -vx "$ha")
	db=$(srp_disk 2 $hb) || return 1
	kt_wait_for 20 log_has "\[${db#/dev/}\] Attached SCSI disk" || return 1
	echo 30 > /sys/block/${db#/dev/}/device/timeout
	sleep 1
	lim0=$(cat /sys/class/scsi_host/host$hb/req_lim)
	# 16 writes, all at once, and no more: nothing else to answer. All
	# 16 sent, and a second to be in the target (the one CPU may
	# otherwise run the first login's TMF before it reads them); ib_srp
	# waits 5 s for the TMF's answer, sent once they end. On a starved
	# guest fio may not have them out before the 4 s delay answers them:
	# then again, up to three times
	for ((i = 0; i < 3; i++)); do
		fio --output=$LOG.credits --filename=$db --direct=1 --ioengine=libaio \
			--allow_file_create=0 \
			--iodepth=16 --name=credits --rw=randwrite --bs=4k --size=64k &
		pid=$!
		if kt_wait_for 10 sh -c "[ \$(cat /sys/class/scsi_host/host$hb/req_lim) = $((lim0 - 16)) ]"; then
			sleep 1
			lim=$(cat /sys/class/scsi_host/host$hb/req_lim)
			[ "$lim" = $((lim0 - 16)) ] && break
			echo "attempt $((i + 1)): the delay answered the 16 writes within a second"
		else
			echo "attempt $((i + 1)): the 16 writes were not all out at once"
		fi
		wait $pid
		kt_wait_for 10 sh -c "[ \$(cat /sys/class/scsi_host/host$hb/req_lim) = $lim0 ]"
	done
	# too slow a guest (a debug kernel beside other guests) never has
	# them out together before the delay answers them: nothing to test
	[ $i -lt 3 ] || { st=2; pid=; }
	lim=$(cat /sys/class/scsi_host/host$hb/req_lim)
	echo "req_lim of the second login: $lim0 idle, $lim under fio"
	if [ -n "$pid" ]; then
		sg_reset -d "$sg" || st=1
		for ((i = 0; i < 25; i++)); do
			lim=$(cat /sys/class/scsi_host/host$hb/req_lim)
			[ "$lim" = "$lim0" ] && break
			sleep 0.2
		done
		echo "req_lim 5 s after the LUN RESET: $lim"
		[ "$lim" = "$lim0" ] || st=1
		# ... and the writes were aborted, unanswered: fio still waits
		kill -0 $pid 2>/dev/null || { echo "the writes were answered"; st=1; }
		kill $pid
		wait $pid
	fi
	for p in /sys/class/srp_remote_ports/port-$hb:*; do echo 1 > $p/delete; done
	kt_wait_for 30 sh -c "! ls -d /sys/class/scsi_host/host$hb >/dev/null 2>&1"
	echo 1 > /sys/block/${da#/dev/}/device/delete
	for acl in $INIT0 $INIT1; do
		rm $TPG/acls/$acl/lun_2/l2 && rmdir $TPG/acls/$acl/lun_2
	done
	rm $TPG/lun/lun_2/slow && rmdir $TPG/lun/lun_2 $slow $KT_CFS/core/iblock_0 &&
		rmmod ktarget_iblock && $dm remove kt-srpt-slow &&
		rmmod dm-delay null_blk || st=1
	return $st
}

# srp_req OPCODE BUF_FMT IT_IU_LEN [INITIATOR_EXT]: an SRP_LOGIN_REQ in the
# rdma_cm layout (struct srp_login_req_rdma), as hex
srp_req() {
	local g
	g=$(guid_hex)
	printf '0102030405060708%04x00%02x%08x%016x%s%s%s0000000000000000' \
		"$2" "$1" "$3" "${4:-0}" "${WWN: -16}" "$g" "$g"
}

# raw_login HEX: a connect request with HEX as its private data; its answer
raw_login() {
	/run/kt_rdma_cm_req $KT_RDMA_ADDR $PORT 1 1 "$1" | sed -n 's/.*answer: //p'
}

# raw_refused WHY HEX: the target rejects the connect request and logs WHY
raw_refused() {
	local out
	kmsg_mark
	out=$(raw_login "$2")
	[ "$out" = rejected ] || { echo "answer: $out"; return 1; }
	kt_wait_for 10 log_has "$1"
}

# Connect requests past ib_srp's own checks (kt_rdma_cm_req.c)
hostile_logins() {
	check "rdma_ucm loads, the RDMA CM request tool builds" sh -c \
		"modprobe rdma_ucm && gcc -Wall -O2 -o /run/kt_rdma_cm_req kt_rdma_cm_req.c"
	# the IB CM pads private data with zeros: this is a login of zeros
	check "4 bytes of private data (an iSER header): rejected" \
		raw_refused 'refused (0x10004)' c0000000
	check "another opcode: rejected" \
		raw_refused 'refused (0x10000): not an SRP_LOGIN_REQ' "$(srp_req 0x55 6 8276)"
	check "neither direct nor indirect descriptors: rejected (0x10004)" \
		raw_refused 'refused (0x10004)' "$(srp_req 0 0 8276)"
	check "an IU length of 4 GiB - 1: rejected (0x10002)" \
		raw_refused 'refused (0x10002)' "$(srp_req 0 6 4294967295)"
	check "an IU length of 16: rejected" \
		raw_refused 'refused (0x10000): requested IU length below' "$(srp_req 0 6 16)"
	kmsg_mark
	check_eq "a good login the initiator then abandons is accepted" \
		"$(raw_login "$(srp_req 0 6 8276)")" "connect response"
	check "... and its channel closes" kt_wait_for 90 log_has "$INIT0: channel closed"
}

majmin() { cat /sys/block/${1#/dev/}/dev; }

# Two logins are two paths to LUN 0: dm-multipath over them keeps fio
# verifying while the second is cut (its remote port deleted)
multipath_cut() {
	local ha hb a b sz pid p
	ha=$(srp_hosts)
	check "second login (initiator_ext 1): a second SCSI host" login 1
	hb=$(srp_hosts | grep -vx "$ha")
	a=$(srp_disk 0 $ha)
	b=$(srp_disk 0 $hb)
	sz=$(blockdev --getsz "$a")
	check "dm-multipath over both paths to LUN 0" sh -c "
		modprobe dm-multipath && modprobe dm-round-robin &&
		DM_DISABLE_UDEV=1 dmsetup --noudevsync create kt-srpt-mp --table \
		'0 $sz multipath 0 0 1 1 round-robin 0 2 1 $(majmin $a) 1000 $(majmin $b) 1000'"
	fio_verify /dev/mapper/kt-srpt-mp mp --rw=randrw --bs=4k --size=16m \
		--time_based --runtime=15 --verify_backlog=64 &
	pid=$!
	sleep 5
	for p in /sys/class/srp_remote_ports/port-$hb:*; do echo 1 > $p/delete; done
	wait $pid
	check "fio over multipath verifies with the second path cut" test $? = 0
	check "dm marks that path failed" sh -c "dmsetup status kt-srpt-mp | grep -q ' F '"
	DM_DISABLE_UDEV=1 dmsetup --noudevsync remove kt-srpt-mp
	check "the cut path's channel is closed" kt_wait_for 30 sh -c \
		"dmesg | grep -q '$INIT1: channel closed'"
}

lun_rmdir_under_fio() {
	local d1 pid
	d1=$(srp_disk 1)
	fio_load "$d1" unlink
	pid=$!
	sleep 3
	check "unlink and rmdir LUN 1 while fio writes to it" \
		kt_within 60 sh -c "rm $TPG/acls/$INIT0/lun_1/l1 $TPG/acls/$INIT1/lun_1/l1 &&
		rmdir $TPG/acls/$INIT0/lun_1 $TPG/acls/$INIT1/lun_1 &&
		rm $TPG/lun/lun_1/f0 && rmdir $TPG/lun/lun_1"
	check "fio on LUN 1 ends with an error" ends_failed_within 60 $pid
}

acl_rmdir_under_fio() {
	local d0 pid
	d0=$(srp_disk 0)
	kmsg_mark
	fio_load "$d0" acl
	pid=$!
	sleep 3
	check "rmdir the ACL while fio writes" kt_within 60 sh -c "
		rm $TPG/acls/$INIT0/lun_0/l0 && rmdir $TPG/acls/$INIT0/lun_0 $TPG/acls/$INIT0"
	check "its channel closes" kt_wait_for 30 log_has "$INIT0: channel closed"
	check "fio on it ends with an error" ends_failed_within 90 $pid
	logout_all
}

tpg_rmdir_under_fio() {
	local d0 pid
	check "login with initiator_ext 1" login 1
	d0=$(srp_disk 0)
	fio_load "${d0:-none}" tpg
	pid=$!
	sleep 3
	check "the target goes while fio writes (LUN, ACL, TPG, port removed)" \
		kt_within 60 sh -c "rm $TPG/acls/$INIT1/lun_0/l0 &&
		rmdir $TPG/acls/$INIT1/lun_0 $TPG/acls/$INIT1 &&
		rm $TPG/lun/lun_0/r0 && rmdir $TPG/lun/lun_0 $TPG $KT_CFS/srpt/$WWN"
	check "fio on it ends with an error" ends_failed_within 90 $pid
	logout_all
}

login_disk() { login 0 && srp_disk 0 >/dev/null; }

# targetcli builds an srpt target as rtslib-fb writes it (ib. names, the
# port's GID), ib_srp logs in; saved, cleared, restored, it logs in again
targetcli_srpt() {
	local tw=ib.${WWN#0x} ini=ib.${INIT0#0x} out
	local ttpg=$KT_CFS/srpt/$WWN/tpgt_1 tlog=$LOG.targetcli

	if ! command -v targetcli >/dev/null; then
		skip "targetcli" "targetcli-fb not installed" 6
		return
	fi
	export HOME=/root
	mkdir -p /root /run/dbus /etc/rtslib-fb-target
	kt_dbus_start
	targetcli > $tlog 2>&1 <<-EOF
	/backstores/ramdisk create tr0 16M
	/srpt create $tw
	/srpt/$tw/luns create /backstores/ramdisk/tr0
	/srpt/$tw/acls create $ini
	exit
	EOF
	check "targetcli: srpt target, ramdisk LUN, ACL, no error" \
		sh -c "! grep -qiE 'error|Traceback' $tlog"
	check "targetcli: rtslib made $WWN/tpgt_1 with the ACL ${INIT0}" \
		test -d $ttpg/acls/$INIT0
	echo 1 > $ttpg/enable 2>/dev/null
	check "targetcli: ib_srp logs in and gets the disk" login_disk
	logout_all
	targetcli saveconfig /tmp/kt-srpt.json >> $tlog 2>&1
	targetcli clearconfig confirm=True >> $tlog 2>&1
	check "targetcli: saveconfig, clearconfig: the srpt target is gone" sh -c "
		grep -q '\"fabric\": \"srpt\"' /tmp/kt-srpt.json && test ! -e $ttpg"
	targetcli restoreconfig /tmp/kt-srpt.json >> $tlog 2>&1
	check "targetcli restoreconfig: ib_srp logs in again and gets the disk" login_disk
	logout_all
	targetcli clearconfig confirm=True >> $tlog 2>&1
	check "targetcli clearconfig leaves no srpt target" \
		kt_wait_for 30 test ! -e $KT_CFS/srpt/$WWN
	# rtslib looked into every fabric: those it made on the way go
	rmdir $KT_CFS/iscsi $KT_CFS/loopback 2>/dev/null
	rmmod ktarget_iscsi ktarget_loop 2>/dev/null
	kt_dbus_stop
}

main() {
	if ! modinfo rdma_rxe >/dev/null 2>&1 || ! modinfo ib_srp >/dev/null 2>&1; then
		skip_all "SRP: no rdma_rxe or ib_srp module"
		return
	fi
	plan 70
	: > $LOG
	kmsg_mark
	local start_mark=$KT_KMSG_MARK

	setup
	bad_logins
	hostile_logins
	basic_io
	ext4_relogin
	check "LUN RESET (sg_reset -d) under fio: every write verifies" reset_under_fio
	check "srp_sq_size 16: 256k I/O at depth 32 and a LUN RESET, fio verifies" \
		small_sq_reset
	echo 4096 > $TPG/attrib/srp_sq_size
	logout_all
	check "login again with srp_sq_size 4096" login 0
	credits_out=$(foreign_reset_credits 2>&1)
	case $? in
	0) ok "a LUN RESET with TAS off: the other login's credits come back" ;;
	2) skip "a LUN RESET with TAS off: the other login's credits come back" \
		"the guest never had 16 writes out at once (too slow)" ;;
	*) not_ok "a LUN RESET with TAS off: the other login's credits come back" \
		"command failed: foreign_reset_credits" "$credits_out" ;;
	esac
	multipath_cut
	lun_rmdir_under_fio
	acl_rmdir_under_fio
	tpg_rmdir_under_fio

	check "no object left (channels, commands, TMFs, sessions)" kt_objects_zero
	check "rmdir the devices" sh -c "rmdir $RD $FD &&
		rmdir $KT_CFS/core/rd_mcp_0 $KT_CFS/core/fileio_0"
	targetcli_srpt
	check "no object left after targetcli" kt_objects_zero
	rmdir $KT_CFS/core/rd_mcp_* 2>/dev/null
	check "rmdir target/srpt" rmdir $KT_CFS/srpt
	check "rmmod ktarget_srpt" rmmod ktarget_srpt
	check "rmmod the backstores and the core" \
		rmmod ktarget_fileio ktarget_rd ktarget_core
	rmmod ib_srp 2>/dev/null
	kt_rxe_down
	rm -f $FIMG
	KT_KMSG_MARK=$start_mark
	check "the kernel log shows no finding" kt_kmsg_clean
}

main "$@"
