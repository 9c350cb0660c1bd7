#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The iSCSI fabric end to end with libiscsi: configfs through echo,
# discovery, login, SCSI commands on an rd LUN, lost and corrupt Data-Out
# PDUs (the command fails, the session lives, no bad data lands),
# connection reinstatement, Login Requests that change the login's ISID,
# CSG, TSIH, CID or CmdSN, CHAP required of an initiator that offers none,
# several connections per session (MC/S), teardown and unload.
. ./lib.sh

main() {
	local url=iscsi://127.0.0.1:3260/$KT_IQN/0 out rc
	local param=$KT_CFS/iscsi/$KT_IQN/tpgt_1/param/MaxConnections
	local acl=$KT_CFS/iscsi/$KT_IQN/tpgt_1/acls/iqn.2026-11.org.ktarget:mcs
	local rst=$KT_CFS/iscsi/$KT_IQN/tpgt_1/acls/iqn.2026-11.org.ktarget:raw
	local chap=$KT_CFS/iscsi/$KT_IQN/tpgt_1/acls/iqn.2026-11.org.ktarget:chap

	plan 55
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

	out=$(timeout 60 python3 ./iscsi_raw.py power-on 127.0.0.1:3260 $KT_IQN \
		iqn.2026-11.org.ktarget:raw 0 2>&1)
	echo "$out" | sed 's/^/# /'
	check "a new nexus: UNIT ATTENTION, POWER ON OR RESET (29/00) first" \
		output_has "$out" 'first TEST UNIT READY: status 0x2 sense 6/29/00' \
			'second TEST UNIT READY: status 0x0'

	out=$(timeout 90 python3 ./iscsi_raw.py text-invalid 127.0.0.1:3260 $KT_IQN \
		iqn.2026-11.org.ktarget:raw 0 2>&1)
	echo "$out" | sed 's/^/# /'
	check "Text Requests with a bad key or value get NotUnderstood / Reject; SendTargets=All still lists" \
		output_has "$out" 'SendTargetsPlease=All: SendTargetsPlease=NotUnderstood' \
			'SendTargets=Alle: SendTargets=Reject' 'SendTargets=A: SendTargets=Reject' \
			"SendTargets=All: TargetName=$KT_IQN"

	out=$(timeout 90 python3 ./iscsi_raw.py text-sequences 127.0.0.1:3260 $KT_IQN \
		iqn.2026-11.org.ktarget:raw 0 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	check "Text Requests that continue (C bit, no F bit) are answered as RFC 7143 11.11 says" \
		test "$rc" -eq 0
	out=$(timeout 60 python3 ./iscsi_raw.py write-same-len 127.0.0.1:3260 $KT_IQN \
		iqn.2026-11.org.ktarget:raw 0 2>&1)
	echo "$out" | sed 's/^/# /'
	check "WRITE SAME with other than one block of data-out: INVALID FIELD IN CDB" \
		output_has "$out" 'with 256 bytes: status 0x2 sense 5/24/00' \
			'with 1024 bytes: status 0x2 sense 5/24/00' \
			'with 512 bytes: status 0x0'

	# more LUNs than one REPORT LUNS answer used to hold (1024): the
	# same device behind LUNs 0 to 1099 of the demo-mode TPG (past 64 KiB
	# of answer is scale/10-report-luns.sh's, make test-scale)
	kt_check_report_luns 1100

	out=$(timeout 120 python3 ./iscsi_task_attr.py 127.0.0.1:3260 $KT_IQN \
		iqn.2026-11.org.ktarget:raw 0 2>&1)
	echo "$out" | sed 's/^/# /'
	check "a SIMPLE command runs beside an earlier one" \
		output_has "$out" 'SIMPLE TEST UNIT READY beside the held WRITE: status 0x0'
	check "ORDERED waits for all before it, across I_T nexuses; HEAD OF QUEUE does not" \
		output_has "$out" 'ORDERED TEST UNIT READY behind the held WRITE: waits' \
			'SIMPLE TEST UNIT READY behind the ORDERED one: waits' \
			'HEAD OF QUEUE TEST UNIT READY: status 0x0' \
			'ORDERED TEST UNIT READY from another session: waits'
	check "ORDERED: answers in task set order once the data is in" \
		output_has "$out" 'answers after the data: WRITE ORDERED SIMPLE' \
			'their status: \[0, 0, 0\]' "the other session's ORDERED one: 0"
	check "commands held behind an ORDERED one can be aborted" \
		output_has "$out" 'ABORT TASK of the held SIMPLE command: 0' \
			'ABORT TASK of the held ORDERED command: 0' \
			'SIMPLE TEST UNIT READY once they are aborted: status 0x0' \
			'the second WRITE: 0' 'answers for the aborted commands: \[\]'
	check "the data written while commands waited is there" \
		output_has "$out" "READ(10) of the first WRITE's block: status 0x0, the pattern"
	check "an ORDERED command whose PDU is still arriving holds no other initiator back" \
		output_has "$out" 'SIMPLE TEST UNIT READY beside an ORDERED WRITE still arriving: status 0x0' \
			'the ORDERED WRITE once its PDU is in: 0'

	kmsg_mark
	out=$(timeout 60 python3 ./iscsi_dataout.py 127.0.0.1:3260 $KT_IQN \
		iqn.2026-11.org.ktarget:raw 0 2>&1)
	echo "$out" | sed 's/^/# /'
	check "a DataSN gap ends the command with PROTOCOL SERVICE CRC ERROR" \
		output_has "$out" 'DataSN gap: status 0x2 sense b/47/05'
	check "a data digest error: Reject, then the same sense" \
		output_has "$out" 'bad data digest: rejects \[2\], status 0x2 sense b/47/05'
	check "the failed writes left the good data in place" \
		output_has "$out" 'read back: status 0x0, the good data'
	check "the session lives on after the errors" \
		output_has "$out" 'TEST UNIT READY after the errors: opcode 0x21 status 0x0'
	out=$(kmsg_since)
	check "each error is logged" output_has "$out" 'Data-Out out of order' \
		'data digest error on opcode 0x5'

	out=$(timeout 90 python3 ./iscsi_raw.py reinstate 127.0.0.1:3260 $KT_IQN \
		iqn.2026-11.org.ktarget:raw 0 2>&1)
	echo "$out" | sed 's/^/# /'
	check "connection reinstatement: same TSIH and CID replace the connection" \
		output_has "$out" 'replaced connection was closed' \
			'reinstated connection: TEST UNIT READY status 0x0'
	check "a reinstatement's leading-only key (MaxBurstLength) is Irrelevant" \
		output_has "$out" "MaxBurstLength=4096 answered: \\[b'MaxBurstLength=Irrelevant'\\]"
	check "a second connection (MaxConnections=1): TOO MANY CONNECTIONS (0206)" \
		output_has "$out" 'a second CID: login status 0206'
	check "an unknown TSIH: SESSION DOES NOT EXIST (020a)" \
		output_has "$out" 'an unknown TSIH: login status 020a'

	# RFC 7143 11.12: every Login Request of a login carries the first
	# one's ISID, TSIH, CID and CmdSN (a later one on another connection
	# of a session), and each answer the ITT of the request it answers
	out=$(timeout 120 python3 ./iscsi_raw.py login-changes 127.0.0.1:3260 $KT_IQN \
		iqn.2026-11.org.ktarget:raw 0 2>&1)
	echo "$out" | sed 's/^/# /'
	check "a Login Request that changes ISID or CSG: 0200, with its own ITT" \
		output_has "$out" 'changed ISID and ITT: login status 0200, ITT 0x200 .*, connection closed' \
			'changed CSG and ITT: login status 0200, ITT 0x200 .*, connection closed'
	check "a Login Request that changes TSIH, CID or CmdSN: INITIATOR ERROR (0200)" \
		output_has "$out" 'changed TSIH: login status 0200, ITT 0x100 .*, connection closed' \
			'changed CID: login status 0200, ITT 0x100 .*, connection closed' \
			'changed CmdSN: login status 0200, ITT 0x100 .*, connection closed'
	check "a connection joining a session may send a later CmdSN" \
		output_has "$out" 'joining connection, later CmdSN: login status 0000'

	# RFC 7143 11.13.5: no authentication method in common ends the login
	check "an ACL that requires CHAP (attrib/authentication=1)" sh -c \
		"mkdir -p $chap && echo 1 > $chap/attrib/authentication &&
		 echo ktuser > $chap/auth/userid && echo ktsecret12345 > $chap/auth/password"
	out=$(timeout 90 python3 ./iscsi_raw.py login-auth-none 127.0.0.1:3260 $KT_IQN \
		iqn.2026-11.org.ktarget:chap 0 2>&1)
	echo "$out" | sed 's/^/# /'
	check "CHAP required, AuthMethod=None offered: AUTHENTICATION FAILURE (0201) at once" \
		output_has "$out" 'CHAP is required: login status 0201 at request 1, the connection closed'
	out=$(timeout 90 python3 ./iscsi_raw.py login-auth-missing 127.0.0.1:3260 $KT_IQN \
		iqn.2026-11.org.ktarget:chap 0 2>&1)
	echo "$out" | sed 's/^/# /'
	check "CHAP required, no AuthMethod offered, T=1: AUTHENTICATION FAILURE (0201) at once" \
		output_has "$out" 'No AuthMethod where CHAP is required: login status 0201 at request 1, the connection closed'
	rmdir $chap

	# target resets: refused unless the initiator's ACL allows them
	kmsg_mark
	out=$(timeout 120 python3 ./iscsi_raw.py reset-other 127.0.0.1:3260 $KT_IQN \
		iqn.2026-11.org.ktarget:raw 0 2>&1)
	echo "$out" | sed 's/^/# /'
	check "TARGET WARM RESET without the ACL's tmr_warm_reset: AUTHORIZATION FAILED (6)" \
		output_has "$out" 'warm reset from another initiator: response 6'
	check "... and another initiator sees no reset (no unit attention)" \
		output_has "$out" 'after the warm reset: TEST UNIT READY status 0x0'
	check "TARGET COLD RESET without the ACL's tmr_cold_reset: AUTHORIZATION FAILED (6)" \
		output_has "$out" 'cold reset from another initiator: response 6'
	check "... and another initiator keeps its connection" \
		output_has "$out" 'after the cold reset: TEST UNIT READY status 0x0' \
			"the other initiator's connection still open"
	check "the refusals are logged with the attribute to set" sh -c \
		"dmesg | sed -n '/$KT_KMSG_MARK/,\$p' | grep -q 'TARGET COLD RESET refused.*tmr_cold_reset'"

	check "an ACL whose initiator may reset the target (attrib/tmr_cold_reset=1)" sh -c \
		"mkdir -p $rst/lun_0 && ln -s $KT_CFS/iscsi/$KT_IQN/tpgt_1/lun/lun_0 $rst/lun_0/m0 &&
		 echo 1 > $rst/attrib/tmr_cold_reset"
	kmsg_mark
	out=$(timeout 120 python3 ./iscsi_raw.py cold-reset 127.0.0.1:3260 $KT_IQN \
		iqn.2026-11.org.ktarget:raw 0 2>&1)
	echo "$out" | sed 's/^/# /'
	check "TARGET COLD RESET: FUNCTION COMPLETE, then every session closed" \
		output_has "$out" 'cold reset: opcode 0x22 response 0' \
			'issuing connection closed' 'other connection closed'
	check "a login after the cold reset serves commands" \
		output_has "$out" 'after the reset: TEST UNIT READY status 0x0'
	check "the cold reset is logged" output_has "$(kmsg_since)" \
		'TARGET COLD RESET: closing every session of the TPG'
	rm -f $rst/lun_0/m0 && rmdir $rst/lun_0 $rst

	# MC/S once the TPG allows two connections per session, under an ACL
	# whose info rtslib (targetcli sessions) reads
	check "MaxConnections=2 on the TPG" write_attr $param 2
	check "an ACL for the MC/S initiator, LUN 0 mapped" sh -c \
		"mkdir -p $acl/lun_0 && ln -s $KT_CFS/iscsi/$KT_IQN/tpgt_1/lun/lun_0 $acl/lun_0/m0"
	kmsg_mark
	out=$(timeout 240 python3 ./iscsi_mcs.py 127.0.0.1:3260 $KT_IQN \
		iqn.2026-11.org.ktarget:mcs 0 $acl 2>&1)
	echo "$out" | sed 's/^/# /'
	write_attr $param 1
	check "rtslib reads the session and both connections from the ACL's info" \
		output_has "$out" 'rtslib sees: session [0-9]* Normal LOGGED_IN, connections 1:LOGGED_IN:127.0.0.1:TCP 2:LOGGED_IN:127.0.0.1:TCP'
	# the session ends in the target's work after the client saw the close
	check "and no session once it has ended" \
		kt_wait_for 20 grep -q '^No active iSCSI Session' $acl/info
	rm -f $acl/lun_0/m0
	rmdir $acl/lun_0 $acl
	check "MC/S: a second connection joins the session, a third is refused (0206)" \
		output_has "$out" 'second connection: logged in' \
			'third connection: login status 0206'
	check "MC/S: a command waits for the CmdSN before it, from the other connection" \
		output_has "$out" 'later CmdSN alone, on connection 2: waits' \
			'earlier CmdSN, on connection 1: status 0x2 sense 6/29/00' \
			'later CmdSN, on connection 2: status 0x0'
	check "MC/S: logout of connection 2 sent on connection 1; connection 1 goes on" \
		output_has "$out" 'response 0, connection 2 closed' \
			'connection 1 after that: TEST UNIT READY status 0x0'
	check "MC/S: a dropped connection ends the session at ERL 0" \
		output_has "$out" 'connection 1 closed, the session ended'
	check "MC/S: the join and the session failure are logged" \
		output_has "$(kmsg_since)" 'connection 2 joins session' \
			'failed: closing the session (ERL 0)'

	kt_iscsi_teardown
	check "target/iscsi is gone" test ! -e $KT_CFS/iscsi
	check "rmmod ktarget_iscsi" rmmod ktarget_iscsi
	check "rmmod ktarget_rd" rmmod ktarget_rd
	check "rmmod ktarget_core" rmmod ktarget_core
}

main "$@"
