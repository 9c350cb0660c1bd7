#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The iSCSI fabric end to end with libiscsi: configfs through echo,
# discovery, login, SCSI commands on an rd LUN, lost and corrupt Data-Out
# PDUs (the command fails, the session lives, no bad data lands), teardown
# and unload.
. ./lib.sh

main() {
	local url=iscsi://127.0.0.1:3260/$KT_IQN/0 out

	check "an iSCSI target builds through echo" kt_iscsi_setup
	check "ktarget_iscsi was loaded on demand" grep -q '^ktarget_iscsi ' /proc/modules

	out=$(timeout 30 iscsi-ls iscsi://127.0.0.1:3260 2>&1)
	if printf '%s' "$out" | grep -q "$KT_IQN"; then
		ok "discovery (SendTargets=All) lists the target"
	else
		not_ok "discovery (SendTargets=All) lists the target" "$out"
	fi

	out=$(timeout 30 iscsi-inq "$url" 2>&1)
	if printf '%s' "$out" | grep -qi "vendor.*KTARGET"; then
		ok "login and INQUIRY"
	else
		not_ok "login and INQUIRY" "$out"
	fi

	out=$(timeout 30 iscsi-readcapacity16 "$url" 2>&1)
	if printf "%s" "$out" | grep -q "Total size:67108864"; then
		ok "READ CAPACITY (16) reports 64 MiB of 512-byte blocks"
	else
		not_ok "READ CAPACITY (16) reports 64 MiB of 512-byte blocks" "$out"
	fi

	kmsg_mark
	out=$(timeout 60 python3 ./iscsi_dataout.py 127.0.0.1:3260 $KT_IQN \
		iqn.2026-11.org.ktarget:raw 0 2>&1)
	echo "$out" | sed 's/^/# /'
	check "a DataSN gap ends the command with PROTOCOL SERVICE CRC ERROR" \
		sh -c "echo '$out' | grep -q 'DataSN gap: status 0x2 sense b/47/05'"
	check "a data digest error: Reject, then the same sense" \
		sh -c "echo '$out' | grep -q 'bad data digest: rejects \[2\], status 0x2 sense b/47/05'"
	check "the failed writes left the good data in place" \
		sh -c "echo '$out' | grep -q 'read back: status 0x0, the good data'"
	check "the session lives on after the errors" \
		sh -c "echo '$out' | grep -q 'TEST UNIT READY after the errors: opcode 0x21 status 0x0'"
	out=$(kmsg_since)
	check "each error is logged" sh -c \
		"echo '$out' | grep -q 'Data-Out out of order' &&
		 echo '$out' | grep -q 'data digest error on opcode 0x5'"

	kt_iscsi_teardown
	check "target/iscsi is gone" test ! -e $KT_CFS/iscsi
	check "rmmod ktarget_iscsi" rmmod ktarget_iscsi
	check "rmmod ktarget_rd" rmmod ktarget_rd
	check "rmmod ktarget_core" rmmod ktarget_core
}

main "$@"
