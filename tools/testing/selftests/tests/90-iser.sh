#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# iSER (ktarget_isert) over soft-RoCE: a portal with iser=1 listens through
# rdma_cm; libiscsi's iser:// client and the kernel iSER initiator log in
# and move data with RDMA, and a raw connect request asks for too much;
# under I/O the RDMA device is deleted, the TPG
# is disabled and the netdev goes down, and each time the session ends
# cleanly and a new one works; the module unloads once the portal lets it go.
. ./lib.sh

A=$KT_RDMA_ADDR
TPG=$KT_CFS/iscsi/$KT_IQN/tpgt_1
NP=$TPG/np/$A:3260
URL=iser://$A:3260/$KT_IQN/0

iser_setup() {
	check "soft-RoCE device on a dummy netdev" kt_rxe_up
	check "target set up" kt_iscsi_setup
	check "portal on the RDMA address" mkdir $NP
	check_bad_write "iser=2 is refused with one log line" $NP/iser 2 "iser.*0 or 1"
	kmsg_mark
	check "iser=1" write_attr $NP/iser 1
	check_eq "iser reads back 1" "$(cat $NP/iser)" 1
	check "ktarget_isert loaded on demand" grep -q '^ktarget_isert ' /proc/modules
	check "the kernel log says it listens" sh -c "dmesg | grep -q 'listening for iSER on $A:3260'"
	check "iser=1 again is accepted" write_attr $NP/iser 1
	check_fails "rmmod ktarget_isert while a portal uses it" rmmod ktarget_isert
}

# Raw connect requests (kt_rdma_cm_req.c, past librdmacm's checks): the
# target answers each within what the initiator offered and the device
# has. IB CM: the target may have at most the initiator's responder
# resources in flight as RDMA READs (its initiator depth), and serves what
# the initiator will have in flight, up to the device's max_qp_rd_atom (its
# responder resources). A request
# for 255 each way is what a hostile or broken initiator sends.
depths_ok() {
	local ini=$1 res=$2 out dev_res dev_ini got_ini got_res want_ini
	command -v ibv_devinfo >/dev/null || { echo "no ibv_devinfo"; return 1; }
	dev_res=$(ibv_devinfo -v -d kt_rxe0 | awk '$1 == "max_qp_rd_atom:" { print $2 }')
	dev_ini=$(ibv_devinfo -v -d kt_rxe0 | awk '$1 == "max_qp_init_rd_atom:" { print $2 }')
	out=$(/run/kt_rdma_cm_req $A 3260 "$ini" "$res" 2>&1)
	echo "$out (device: max_qp_rd_atom $dev_res, max_qp_init_rd_atom $dev_ini)"
	read -r got_ini got_res < <(echo "$out" | sed -n \
		's/^target: initiator depth \([0-9]*\), responder resources \([0-9]*\)$/\1 \2/p')
	[ -n "$got_res" ] || return 1
	want_ini=$((res < dev_ini ? res : dev_ini))
	[ "$got_ini" -eq "$want_ini" ] &&
		[ "$got_res" -eq $((ini < dev_res ? ini : dev_res)) ]
}

deep_connect() {
	check "rdma_ucm loads, the RDMA CM request tool builds" sh -c \
		"modprobe rdma_ucm && gcc -Wall -O2 -o /run/kt_rdma_cm_req kt_rdma_cm_req.c"
	kmsg_mark
	check "connect request as ib_iser sends it (1 read, serves the device's): depths kept" \
		depths_ok 1 128
	check "connect request that serves 4 RDMA reads: the target issues at most 4" \
		depths_ok 16 4
	check "connect request for 255 RDMA reads each way: clamped to the device" \
		depths_ok 255 255
	check "then a login over iser:// works" \
		sh -c "iscsi-inq $URL | grep -q KTARGET"
	# the half-made connections are closed by their login timeout
	sleep 16
	check "no finding in the kernel log" kt_kmsg_clean
}

# The iscsi-test-cu tests libiscsi 1.19's iSER client can run, and the
# failures that are its own: see tools/testing/libiscsi/iser-*.txt.
libiscsi_checks() {
	local t try res=/ktout/iser-cu.txt here fails unexpected
	here=$(cd ../libiscsi && pwd)
	check "iscsi-inq over iser://" sh -c "iscsi-inq $URL | grep -q KTARGET"
	check "iscsi-readcapacity16 over iser://" sh -c \
		"iscsi-readcapacity16 $URL | grep -q 'Total size:67108864'"
	: > $res
	for t in $(grep -v '^#' "$here/iser-tests.txt"); do
		# libiscsi's iSER client sometimes dies before its first test
		# (munmap_chunk(): invalid pointer, in the client): on 6.12 two
		# families once died three times in a row
		for try in 1 2 3 4 5 6; do
			timeout 120 iscsi-test-cu --test=$t $URL > /ktout/iser-cu-$t.log 2>&1
			grep -q 'Run Summary' /ktout/iser-cu-$t.log && break
		done
		python3 "$here/cu-parse.py" /ktout/iser-cu-$t.log >> $res
	done
	echo "# iscsi-test-cu over iser://: $(grep -c '^PASS' $res) passed," \
	     "$(grep -c '^FAIL' $res) failed, $(grep -c '^SKIP' $res) skipped"
	check "iscsi-test-cu over iser:// ran the data-in families" \
		test "$(grep -c '^PASS' $res)" -ge 20
	fails=$(awk '$1 == "FAIL" { print $2 }' $res | sort)
	unexpected=$(comm -23 <(echo "$fails") \
		<(grep -v '^#' "$here/iser-known-failures.txt" | awk '{print $1}' | sort))
	if [ -z "$unexpected" ]; then
		ok "over iser:// no failure beyond libiscsi's own (iser-known-failures.txt)"
	else
		not_ok "over iser:// no failure beyond libiscsi's own (iser-known-failures.txt)" $unexpected
	fi
}

# the kernel initiator: files written, logout, login, checksums verified
kernel_initiator() {
	local disk mnt=/mnt/kt-iser
	check "ib_iser loads" modprobe ib_iser
	check "iscsid starts" kt_iscsid_start
	check "discovery over iSER finds the target" sh -c \
		"iscsiadm -m discovery -t st -p $A -I iser | grep -q '$A:3260,1 $KT_IQN'"
	check "login over iSER" iscsiadm -m node -T $KT_IQN -p $A:3260 -I iser --login
	check "the session runs over iser" sh -c \
		"iscsiadm -m session -P 1 | grep -q 'Iface Transport: iser'"
	disk=$(kt_iscsi_disk)
	check "a disk appears" test -b "$disk"
	check "mkfs.ext4" mkfs.ext4 -q -F "$disk"
	mkdir -p $mnt
	check "mount" mount "$disk" $mnt
	check "write files" sh -c "for i in 1 2 3 4; do head -c 3000000 /dev/urandom > $mnt/f\$i; done; sync"
	(cd $mnt && sha256sum f1 f2 f3 f4 > /tmp/kt-iser-sums)
	check "umount" umount $mnt
	check "logout" iscsiadm -m node -T $KT_IQN -p $A:3260 -I iser --logout
	check "login again" iscsiadm -m node -T $KT_IQN -p $A:3260 -I iser --login
	disk=$(kt_iscsi_disk)
	check "mount again" mount "$disk" $mnt
	check "checksums match after logout and login" sh -c \
		"cd $mnt && sha256sum -c --quiet /tmp/kt-iser-sums"
	umount $mnt 2>/dev/null
}

# io_start: reads and writes on the iSER disk in the background (IO_PID)
io_start() {
	local disk
	disk=$(kt_iscsi_disk) || return 1
	( while :; do
		dd if=/dev/urandom of="$disk" bs=256k count=16 oflag=direct conv=nocreat status=none || break
		dd if="$disk" of=/dev/null bs=256k count=16 iflag=direct status=none || break
	  done ) >/dev/null 2>&1 &
	IO_PID=$!
	sleep 2
	kill -0 $IO_PID
}

# logged_in SECONDS: the iSER session is (again) logged in within SECONDS
logged_in() {
	local i
	for i in $(seq 1 $(($1 * 2))); do
		iscsiadm -m session -P 3 2>/dev/null | grep -q 'iSCSI Session State: LOGGED_IN' &&
			return 0
		sleep 0.5
	done
	return 1
}

# io_ends SECONDS: the background I/O ended by itself within SECONDS
io_ends() {
	local i
	for i in $(seq 1 $(($1 * 2))); do
		kill -0 $IO_PID 2>/dev/null || return 0
		sleep 0.5
	done
	kill $IO_PID 2>/dev/null
	return 1
}

# relogin: whatever became of the session, a new login works and has a disk
relogin() {
	iscsiadm -m node -T $KT_IQN -p $A:3260 -I iser --logout >/dev/null 2>&1
	iscsiadm -m node -T $KT_IQN -p $A:3260 -I iser --login >/dev/null &&
		kt_iscsi_disk >/dev/null
}

# rdma_cm_works: an rping client reaches a fresh rping server on the same
# address within about 10 s (RDMA CM and rxe alone, no ktarget code). The
# client is tried again until the server listens, not after a fixed sleep.
rdma_cm_works() {
	local srv st=1 i
	command -v rping >/dev/null || { echo "no rping"; return 2; }
	rping -s -a $A -p 7472 -C 1 >/dev/null 2>&1 &
	srv=$!
	for i in 1 2 3 4 5; do
		timeout -k 5 10 rping -c -a $A -p 7472 -C 1 >/dev/null 2>&1
		st=$?
		# a refused connect comes back at once (the server is not up
		# yet): try again; a timed-out one would not do better
		[ $st = 0 ] || [ $st = 124 ] || [ $st = 137 ] && break
		sleep 0.5
	done
	kill -9 $srv 2>/dev/null
	wait $srv 2>/dev/null
	return $st
}

# After the netdev bounce with a connection open, this guest's rxe takes no
# RDMA CM connection at all: rping between two fresh endpoints fails too,
# while the target's listener is still in LISTEN (rdma resource show
# cm_id), and listening anew does not help. Where RDMA CM works again, a new
# login must work as well; where it does not, no login is tried (the
# initiator's cm_id would hang in CONNECT, and ib_iser's release work with
# it). Deleting and adding the rxe link brings both back.
after_bounce() {
	if rdma_cm_works; then
		check "after the bounce RDMA CM works (rping), and so does a login" relogin
	else
		skip "after the bounce: a login works" \
			"rxe takes no RDMA CM connection after the bounce, rping fails as well"
	fi
}

link_recreated() {
	local i
	kmsg_mark
	rdma link delete kt_rxe0 && rdma link add kt_rxe0 type rxe netdev kt-rdma || return 1
	for i in $(seq 1 60); do
		kmsg_since | grep -q 'listening for iSER again' && return 0
		sleep 0.5
	done
	return 1
}

# The TPG is disabled under I/O and enabled again: a new login works. Then
# the netdev under the RDMA device goes down under I/O and comes back up,
# and the session it left is ended by disabling the TPG.
tpg_off_link_down() {
	check "I/O runs over iSER" io_start
	check "TPG disabled under I/O" write_attr $TPG/enable 0
	check "the initiator's I/O ends" io_ends 30
	check "TPG enabled again" write_attr $TPG/enable 1
	check "a new login works after the TPG came back" relogin
	check "I/O runs over iSER again" io_start
	check "ip link set down under I/O" ip link set kt-rdma down
	sleep 3
	check "ip link set up" ip link set kt-rdma up
	kill $IO_PID 2>/dev/null
	wait $IO_PID 2>/dev/null
	iscsiadm -m node -T $KT_IQN -p $A:3260 -I iser --logout >/dev/null 2>&1
	check "TPG disabled and enabled: the bounced session ends" sh -c \
		"echo 0 > $TPG/enable && echo 1 > $TPG/enable"
	after_bounce
	check "rdma link deleted and added: the portal listens again" link_recreated
	if rdma_cm_works; then
		ok "then rping works"
		check "and a new login works" relogin
	else
		not_ok "then rping works" "rping failed after rdma link add"
		skip "and a new login works" "rping failed after the link came back"
	fi
	iscsiadm -m node -T $KT_IQN -p $A:3260 -I iser --logout >/dev/null 2>&1
}

# the RDMA device goes away under I/O, then comes back
link_loss() {
	local pid i
	iscsiadm -m node -T $KT_IQN -p $A:3260 -I iser -o update \
		-n node.session.timeo.replacement_timeout -v 10 >/dev/null
	check "I/O runs before the link goes" io_start
	pid=$IO_PID
	check "rdma link delete under I/O" rdma link delete kt_rxe0
	sleep 3
	check "the link comes back" rdma link add kt_rxe0 type rxe netdev kt-rdma
	for i in $(seq 1 60); do
		dmesg | grep -q 'listening for iSER again' && break
		sleep 0.5
	done
	check "the portal listens again" sh -c "dmesg | grep -q 'listening for iSER again'"
	# the initiator reconnects by itself
	check "the session is logged in again within 30 s" logged_in 30
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
	check "I/O works after the link came back" \
		dd if="$(kt_iscsi_disk)" of=/dev/null bs=1M count=4 iflag=direct status=none
	tpg_off_link_down
}

teardown() {
	iscsiadm -m node -o delete >/dev/null 2>&1
	# the session whose initiator lost its port would wait for the
	# keepalive (45 s): disabling the TPG ends it now
	check "TPG disabled" write_attr $TPG/enable 0
	check "iser=0" write_attr $NP/iser 0
	check "rmmod ktarget_isert once no portal uses it" rmmod ktarget_isert
	check "the portal goes" rmdir $NP
	kt_iscsi_teardown
	check "rmmod ktarget_iscsi" rmmod ktarget_iscsi
	kt_rxe_down
}

main() {
	if ! modinfo rdma_rxe >/dev/null 2>&1 || ! command -v rdma >/dev/null; then
		skip_all "iSER: no rdma_rxe module or rdma tool"
		return
	fi
	plan 58
	iser_setup
	deep_connect
	libiscsi_checks
	kernel_initiator
	link_loss
	teardown
}

main "$@"
