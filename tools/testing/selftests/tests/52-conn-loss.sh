#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Connections cut under load (issue 21): fio writes and verifies (crc32c,
# verify_backlog) through open-iscsi while the TCP connection is killed
# (ss -K), from the target's side and from the initiator's in turn, CUTS
# times. open-iscsi must recover each time, and every fio round must verify
# every block it wrote: nothing lost, nothing misplaced, nothing stale.
. ./lib.sh

CUTS=6
P=127.0.0.1:3260

# fio rounds of write-then-verify over the disk until /tmp/kt-cuts-done
fio_rounds() {
	local disk=$1 n=0
	while [ ! -e /tmp/kt-cuts-done ] || [ $n = 0 ]; do
		n=$((n + 1))
		fio --name=cut$n --filename="$disk" --direct=1 --ioengine=libaio \
			--allow_file_create=0 \
			--iodepth=16 --rw=randwrite --bs=4k --size=32M \
			--randseed=$n --verify=crc32c --verify_backlog=256 \
			--verify_fatal=1 --output=/tmp/kt-fio-$n.txt > /dev/null 2>&1 ||
			{ echo "fio round $n failed:"; grep -iE 'err|verify' /tmp/kt-fio-$n.txt | head -5; return 1; }
	done
	echo "$n fio rounds verified"
}

# CUTS cuts, 3 s apart, alternating the side
cut_connections() {
	local i side
	for ((i = 1; i <= CUTS; i++)); do
		sleep 3
		if ((i % 2)); then side="sport = :3260"; else side="dport = :3260"; fi
		ss -K state established "( $side )" > /dev/null
	done
	touch /tmp/kt-cuts-done
}

conn_errors() {
	kmsg_since | grep -c 'detected conn error'
}

main() {
	local disk rounds

	plan 9
	check "target set up" kt_iscsi_setup
	check "iscsid starts" kt_iscsid_start
	iscsiadm -m discovery -t st -p $P >/dev/null 2>&1
	iscsiadm -m node -T $KT_IQN -p $P -o update \
		-n node.session.timeo.replacement_timeout -v 120 >/dev/null 2>&1
	check "open-iscsi logs in" iscsiadm -m node -T $KT_IQN -p $P --login
	disk=$(kt_iscsi_disk)
	check "the disk appears" test -b "$disk"

	rm -f /tmp/kt-cuts-done
	kmsg_mark
	cut_connections &
	rounds=$(fio_rounds "$disk")
	local st=$?
	wait
	check_eq "every fio round verified every block while connections were cut" \
		"$st ($rounds)" "0 ($rounds)"
	check "the initiator saw the cuts" test "$(conn_errors)" -ge $((CUTS / 2))
	echo "# $(conn_errors) connection errors seen by the initiator, $rounds"
	# iscsid logs in again by itself, maybe after the last round ended
	check "the session is logged in again" kt_wait_for 60 sh -c \
		"iscsiadm -m session -P 1 | grep -q 'Session State: LOGGED_IN'"
	check "open-iscsi logs out" iscsiadm -m node -T $KT_IQN -p $P --logout
	iscsiadm -m node -o delete >/dev/null 2>&1
	check "every ktarget object is gone" kt_objects_zero
	kt_iscsi_teardown
	rmmod ktarget_iscsi ktarget_rd 2>/dev/null
}

main "$@"
