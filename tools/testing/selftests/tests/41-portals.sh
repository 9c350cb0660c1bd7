#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Network portals and their TCP listeners: IPv4 and IPv6, one listener
# for the TPGs with a portal on the same address, a portal whose network
# portal goes while a connection still holds it (the listener stops when
# that connection goes), the errors of an address that cannot be listened
# on, and connections dialled while the portal comes and goes. Each ends
# with no listener left behind and nothing live.
. ./lib.sh

KT_TPG=$KT_CFS/iscsi/$KT_IQN/tpgt_1
KT_TPG2=$KT_CFS/iscsi/$KT_IQN/tpgt_2

# listening PORT: a socket listens on TCP port PORT (IPv4 or IPv6)
listening() {
	local hex
	hex=$(printf '%04X' "$1")
	awk -v p=":$hex" '$2 ~ p"$" && $4 == "0A" { f = 1 } END { exit !f }' \
		/proc/net/tcp /proc/net/tcp6
}

# listeners PORT: how many sockets listen on TCP port PORT
listeners() {
	local hex
	hex=$(printf '%04X' "$1")
	awk -v p=":$hex" '$2 ~ p"$" && $4 == "0A" { n++ } END { print n + 0 }' \
		/proc/net/tcp /proc/net/tcp6
}

not_listening() { ! listening "$1"; }

# accepted: the target holds a connection
accepted() {
	awk '$2 == "connections" && $3 > 0 { f = 1 } END { exit !f }' $KT_OBJECTS
}

# held_accepted: hold's connection is made (python3 may take a while to
# start on a loaded host), then the target counts it
held_accepted() {
	kt_wait_for 60 grep -q connected /tmp/kt-hold41.log &&
		kt_wait_for 10 accepted
}

# inq URL: INQUIRY through libiscsi names ktarget
inq() {
	timeout 30 iscsi-inq "$1" 2>&1 | grep -qi "vendor.*KTARGET"
}

# hold ADDR PORT SECONDS: a TCP connection that sends nothing, in the
# background ($! is its pid); "connected" in /tmp/kt-hold41.log once in
hold() {
	rm -f /tmp/kt-hold41.log
	python3 -c '
import socket, sys, time
s = socket.create_connection((sys.argv[1], int(sys.argv[2])))
print("connected", flush=True)
time.sleep(float(sys.argv[3]))
' "$1" "$2" "$3" > /tmp/kt-hold41.log 2>&1 &
}

# churn PORT SECONDS: dial 127.0.0.1:PORT and hang up, again and again;
# prints how many dials connected
churn() {
	python3 -c '
import socket, sys, time
end, n = time.time() + float(sys.argv[2]), 0
while time.time() < end:
    try:
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)
        n += 1
        s.close()
    except OSError:
        time.sleep(0.01)
print(n)
' "$1" "$2"
}

ipv6() {
	local tpg=$KT_TPG

	if ! grep -q '^00000000000000000000000000000001 ' /proc/net/if_inet6; then
		skip "an IPv6 portal" "no ::1 in the guest" 4
		return
	fi
	check "mkdir np/[::1]:3262, an IPv6 portal" mkdir "$tpg/np/[::1]:3262"
	check "its socket listens on port 3262" listening 3262
	check "login and INQUIRY over IPv6" \
		inq "iscsi://[::1]:3262/$KT_IQN/0"
	rmdir "$tpg/np/[::1]:3262"
	check "rmdir of the IPv6 portal stops its listener" \
		kt_wait_for 10 not_listening 3262
}

# Two TPGs with a portal on 127.0.0.1:3260 share one listener, which
# stays until the last of them goes.
shared() {
	check "a second TPG with a portal on the same address" sh -c "
		mkdir -p $KT_TPG2/lun/lun_0 &&
		ln -s $KT_CFS/core/rd_mcp_0/r0 $KT_TPG2/lun/lun_0/r0 &&
		mkdir $KT_TPG2/np/127.0.0.1:3260 &&
		echo 0 > $KT_TPG2/attrib/authentication &&
		echo 1 > $KT_TPG2/attrib/generate_node_acls && echo 1 > $KT_TPG2/enable"
	check_eq "one socket listens on 3260 for both" "$(listeners 3260)" 1
	echo 0 > $KT_TPG2/enable
	rmdir $KT_TPG2/np/127.0.0.1:3260
	rm -f $KT_TPG2/lun/lun_0/r0
	rmdir $KT_TPG2/lun/lun_0 $KT_TPG2
	check_eq "the first TPG's portal still listens" "$(listeners 3260)" 1
	check "and logs in" inq "iscsi://127.0.0.1:3260/$KT_IQN/0"
}

# rmdir of a network portal while a connection in login holds its portal:
# the listener goes when the connection does (its first-PDU timeout), in
# the connection's free work; the same address can then be used again.
held() {
	local pid

	mkdir $KT_TPG/np/127.0.0.1:3263
	hold 127.0.0.1 3263 20
	pid=$!
	check "a connection that sends nothing is accepted" held_accepted
	rmdir $KT_TPG/np/127.0.0.1:3263
	check "its listener stops once the connection is gone" \
		kt_wait_for 30 not_listening 3263
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
	check "the address can be a portal again, and logs in" sh -c "
		mkdir $KT_TPG/np/127.0.0.1:3263 &&
		timeout 30 iscsi-inq iscsi://127.0.0.1:3263/$KT_IQN/0 | grep -qi 'vendor.*KTARGET'"
	rmdir $KT_TPG/np/127.0.0.1:3263
}

# An address that is not the guest's, and one another socket holds: the
# mkdir fails, and the log says why (the listener's line, then np/'s).
cannot_listen() {
	local log

	kmsg_mark
	check_fails "mkdir np/192.0.2.1:3260 (not an address of this host) fails" \
		mkdir $KT_TPG/np/192.0.2.1:3260
	log=$(kmsg_since)
	if output_has "$log" "ktarget_iscsi: cannot listen on 192.0.2.1:3260: -EADDRNOTAVAIL" \
	   "tpgt_1/np/192.0.2.1:3260: cannot listen on 192.0.2.1:3260: -EADDRNOTAVAIL"; then
		ok "the log says it cannot listen there, and why"
	else
		not_ok "the log says it cannot listen there, and why" "$log"
	fi
	python3 -c '
import socket, time
s = socket.socket()
s.bind(("127.0.0.1", 3264))
s.listen()
time.sleep(15)
' &
	local pid=$!
	kt_wait_for 10 listening 3264
	kmsg_mark
	check_fails "mkdir np/127.0.0.1:3264, where another socket listens, fails" \
		mkdir $KT_TPG/np/127.0.0.1:3264
	log=$(kmsg_since)
	if output_has "$log" "cannot listen on 127.0.0.1:3264: -EADDRINUSE"; then
		ok "the log says the address is in use"
	else
		not_ok "the log says the address is in use" "$log"
	fi
	kill $pid
	wait $pid 2>/dev/null
	check "no directory is left of either" \
		test ! -e $KT_TPG/np/192.0.2.1:3260 -a ! -e $KT_TPG/np/127.0.0.1:3264
}

# Connections dialled and hung up while the network portal is made and
# removed: some are accepted as the portal goes.
comes_and_goes() {
	local pid i n

	churn 3265 25 > /tmp/kt-churn41.log &
	pid=$!
	for i in $(seq 1 40); do
		mkdir $KT_TPG/np/127.0.0.1:3265 || break
		sleep 0.$((RANDOM % 3))
		rmdir $KT_TPG/np/127.0.0.1:3265 || break
	done
	check_eq "40 rounds of mkdir and rmdir of np/127.0.0.1:3265" "$i" 40
	wait $pid
	n=$(cat /tmp/kt-churn41.log)
	echo "# $n dials connected"
	check "some dials connected" test "${n:-0}" -gt 0
	check "no listener is left on 3265" kt_wait_for 30 not_listening 3265
}

# Discovery of more targets than one Text Response holds: 150 targets
# with long names (about 18 KiB of SendTargets text) on 127.0.0.1:3260.
# The raw initiator takes 4096 bytes per PDU and open-iscsi is set to
# 4096 too: each must follow the continued Text Responses and list all.
KT_MANY=iqn.2026-11.org.ktarget:many-targets-to-list-in-more-than-one-text-response
many_targets() {
	local i n out

	for i in $(seq 100 249); do
		mkdir -p $KT_CFS/iscsi/$KT_MANY-$i/tpgt_1/np/127.0.0.1:3260 &&
			echo 1 > $KT_CFS/iscsi/$KT_MANY-$i/tpgt_1/enable || break
	done
	check_eq "150 more targets with a portal on 127.0.0.1:3260" "$i" 249
	out=$(timeout 120 python3 ./iscsi_raw.py sendtargets-long 127.0.0.1:3260 \
		$KT_MANY- iqn.2026-11.org.ktarget:many 150 2>&1)
	echo "$out" | sed 's/^/# /'
	check "SendTargets=All at 4096 bytes a PDU lists all 150 (raw initiator)" \
		output_has "$out" ", 150 of 150 named"
	check "keys in the follow-on of a continued answer: Reject, Protocol Error" \
		output_has "$out" "continued answer: Reject, reason 0x4"
	check "a Text Request whose TTT continues nothing: Reject, Invalid PDU field" \
		output_has "$out" "TTT 0x1234: Reject, reason 0x9"
	if kt_iscsid_start; then
		iscsiadm -m discoverydb -t st -p 127.0.0.1:3260 -o new > /dev/null &&
		iscsiadm -m discoverydb -t st -p 127.0.0.1:3260 -o update \
			-n discovery.sendtargets.iscsi.MaxRecvDataSegmentLength -v 4096 &&
		out=$(timeout 120 iscsiadm -m discoverydb -t st -p 127.0.0.1:3260 \
			--discover 2>&1)
		n=$(echo "$out" | grep -c -- "$KT_MANY-")
		echo "$out" | grep -v -- "$KT_MANY-" | head -5 | sed 's/^/# /'
		echo "# iscsiadm listed $n of them"
		check_eq "open-iscsi discovery at 4096 bytes a PDU lists all 150" "$n" 150
		iscsiadm -m discoverydb -t st -p 127.0.0.1:3260 -o delete > /dev/null 2>&1
		iscsiadm -m node -o delete > /dev/null 2>&1
	else
		not_ok "open-iscsi discovery at 4096 bytes a PDU lists all 150" "no iscsid"
	fi
	for i in $(seq 100 249); do
		echo 0 > $KT_CFS/iscsi/$KT_MANY-$i/tpgt_1/enable
		rmdir $KT_CFS/iscsi/$KT_MANY-$i/tpgt_1/np/127.0.0.1:3260 \
			$KT_CFS/iscsi/$KT_MANY-$i/tpgt_1 $KT_CFS/iscsi/$KT_MANY-$i
	done
}

main() {
	plan 31
	kmsg_mark
	check "an iSCSI target builds through echo" kt_iscsi_setup
	check "127.0.0.1:3260 listens" listening 3260
	ipv6
	shared
	held
	cannot_listen
	comes_and_goes
	many_targets
	check "no connection or session is left" kt_objects_zero 30
	kt_iscsi_teardown
	check "no listener is left on 3260" kt_wait_for 10 not_listening 3260
	check "the kernel log is clean" kt_kmsg_clean
	check "ktarget_iscsi unloads" rmmod ktarget_iscsi
	check "ktarget_rd and ktarget_core unload" rmmod ktarget_rd ktarget_core
}

main
