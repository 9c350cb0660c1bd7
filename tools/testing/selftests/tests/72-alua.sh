#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ALUA: target port groups in configfs (LIO's layout: alua/default_tg_pt_gp,
# mkdir alua/NAME, tg_pt_gp_id, the LUN's alua_tg_pt_gp), bad writes refused
# with one log line each; then through open-iscsi: INQUIRY shows TPGS,
# sg_rtpg shows the groups, sg_stpg puts the LUN's group in standby, media
# access gets NOT READY / standby while INQUIRY and RTPG still work, and
# back to active/optimized works; a configfs transition and an offline port
# are seen by the initiator. Last, targetcli saveconfig / clearconfig /
# restoreconfig bring back a non-default group and the LUN's membership.
. ./lib.sh

KT_TPG=$KT_CFS/iscsi/$KT_IQN/tpgt_1
DEV=$KT_CFS/core/rd_mcp_0/r0
LUN=$KT_TPG/lun/lun_0
GP=$DEV/alua/grp5
SAVE=/tmp/kt-alua.json
OUT=/ktout

# first line of the LUN's alua_tg_pt_gp, the group name after "TG Port Alias:"
lun_group() {
	head -n 1 "$1/alua_tg_pt_gp" | sed 's/^TG Port Alias: //'
}

# sense_until PATTERN CMD...: run CMD (verbose sg3-utils) up to three
# times until its output matches PATTERN; all output in $SENSE_OUT.
sense_until() {
	local pat=$1 i
	shift
	SENSE_OUT=
	for i in 1 2 3; do
		SENSE_OUT+=$("$@" 2>&1)$'\n'
		printf '%s' "$SENSE_OUT" | grep -qi -- "$pat" && return 0
		sleep 0.5
	done
	return 1
}

# check_sense DESCRIPTION PATTERN FILE CMD...: sense_until PATTERN CMD...,
# its output saved in $OUT/FILE
check_sense() {
	local d=$1 pat=$2 file=$3
	shift 3
	if sense_until "$pat" "$@"; then
		ok "$d"
	else
		not_ok "$d" "no '$pat' in the output of $*:" "$SENSE_OUT"
	fi
	printf '%s' "$SENSE_OUT" > $OUT/$file
}

# turs_good DISK: TEST UNIT READY succeeds within three tries (a unit
# attention may come first)
turs_good() {
	local i
	for i in 1 2 3; do
		sg_turs "$1" >/dev/null 2>&1 && return 0
		sleep 0.5
	done
	return 1
}

configfs_tests() {
	local d=$DEV/alua/default_tg_pt_gp

	check "alua/default_tg_pt_gp exists" test -d $d
	check_eq "default group id is 0" "$(cat $d/tg_pt_gp_id)" 0
	check_eq "default group is active/optimized (0)" \
		"$(cat $d/alua_access_state)" 0
	check_eq "default access type" "$(cat $d/alua_access_type)" \
		"Implicit and Explicit"
	check_eq "default access status" "$(cat $d/alua_access_status)" None
	check_eq "nonop_delay_msecs is LIO's 100" "$(cat $d/nonop_delay_msecs)" 100
	check_eq "LBA dependent is not supported" \
		"$(cat $d/alua_support_lba_dependent)" 0
	check_eq "the linked LUN is a member of the default group" \
		"$(cat $d/members)" "iscsi/$KT_IQN/tpgt_1/lun_0"
	check_eq "the LUN says default_tg_pt_gp" "$(lun_group $LUN)" \
		default_tg_pt_gp

	check "mkdir alua/grp5" mkdir $GP
	check_eq "a new group has no id yet" "$(cat $GP/tg_pt_gp_id)" ""
	check_bad_write "a state needs an id first" $GP/alua_access_state 2 \
		"write tg_pt_gp_id first"
	check_bad_write "the LUN cannot join a group without an id" \
		$LUN/alua_tg_pt_gp grp5 "has no group 'grp5'"
	check_bad_write "id 0 is the default group's" $GP/tg_pt_gp_id 0 \
		"tg_pt_gp_id: 0 is taken"
	check_bad_write "id 65536 is out of range" $GP/tg_pt_gp_id 65536 \
		"tg_pt_gp_id: want a number 0..65535"
	check "tg_pt_gp_id 5" write_attr $GP/tg_pt_gp_id 5
	check_eq "tg_pt_gp_id reads 5" "$(cat $GP/tg_pt_gp_id)" 5
	check_bad_write "offline is a port state, not a group state" \
		$GP/alua_access_state 14 "state 14 is not supported"
	check_bad_write "LBA dependent is refused" $GP/alua_access_state 4 \
		"state 4 is not supported"
	check_bad_write "access state 16 is refused" $GP/alua_access_state 16 \
		"alua_access_state: want a number 0..15"
	check_bad_write "access type 4 is refused" $GP/alua_access_type 4 \
		"alua_access_type: want a number 0..3"
	check_bad_write "nonop_delay_msecs above 10000 is refused" \
		$GP/nonop_delay_msecs 10001 "nonop_delay_msecs: want a number"
	check_bad_write "alua_support_standby takes 0 or 1" \
		$GP/alua_support_standby 2 "alua_support_standby: want a number 0..1"
	check_bad_write "a LUN cannot join a group its device lacks" \
		$LUN/alua_tg_pt_gp nosuch "has no group 'nosuch'"
	check_bad_write "alua_tg_pt_offline takes 0 or 1" \
		$LUN/alua_tg_pt_offline maybe "alua_tg_pt_offline: want 0 or 1"

	check "the LUN moves to grp5" write_attr $LUN/alua_tg_pt_gp grp5
	check_eq "the LUN says grp5" "$(lun_group $LUN)" grp5
	check "its second line is the group id" \
		grep -qx "TG Port Group ID: 5" $LUN/alua_tg_pt_gp
	check_eq "grp5 lists the LUN" "$(cat $GP/members)" \
		"iscsi/$KT_IQN/tpgt_1/lun_0"
	check_eq "the default group has no member left" "$(cat $d/members)" ""

	# a group removed with members: they go back to the default group
	check "mkdir alua/tmp9, id 9" sh -c \
		"mkdir $DEV/alua/tmp9 && echo 9 > $DEV/alua/tmp9/tg_pt_gp_id"
	check "the LUN moves to tmp9" write_attr $LUN/alua_tg_pt_gp tmp9
	check "rmdir alua/tmp9 with the LUN in it" rmdir $DEV/alua/tmp9
	check_eq "the LUN is back in default_tg_pt_gp" "$(lun_group $LUN)" \
		default_tg_pt_gp
	write_attr $LUN/alua_tg_pt_gp grp5
}

iscsi_tests() {
	local p=127.0.0.1:3260 disk out st i

	for t in iscsiadm sg_rtpg sg_stpg sg_inq sg_turs sg_raw; do
		# the 41 checks below and the 8 of two_nexus_tests
		command -v $t >/dev/null || { skip "ALUA over iSCSI" "$t missing" 49; return; }
	done
	check "iscsid starts" kt_iscsid_start
	check "login" iscsiadm -m discovery -t st -p $p -l
	disk=$(kt_iscsi_disk)
	check "a disk appears" test -b "$disk"
	sg_turs "$disk" >/dev/null 2>&1

	sg_inq "$disk" > $OUT/alua-inq.txt 2>&1
	check "INQUIRY shows TPGS=3 (implicit and explicit)" \
		grep -q "TPGS=3" $OUT/alua-inq.txt
	sg_inq -p 0x83 "$disk" > $OUT/alua-vpd83.txt 2>&1
	check "VPD 83h names target port group 0x5" \
		grep -qi "Target port group: 0x5" $OUT/alua-vpd83.txt

	sg_rtpg -d "$disk" > $OUT/alua-rtpg.txt 2>&1
	check "RTPG lists group 0x0 and group 0x5" sh -c \
		"grep -q 'target port group id : 0x0 ' $OUT/alua-rtpg.txt &&
		 grep -q 'target port group id : 0x5 ' $OUT/alua-rtpg.txt"
	check "RTPG: both active/optimized" test \
		"$(grep -c 'active/optimized' $OUT/alua-rtpg.txt)" = 2
	check "RTPG: relative target port 0x01 in group 5" sh -c \
		"sed -n '/group id : 0x5 /,\$p' $OUT/alua-rtpg.txt | grep -q '^ *0x01\$'"
	sg_rtpg -e -d "$disk" > $OUT/alua-rtpg-ext.txt 2>&1
	check "RTPG extended header format works" \
		grep -q "Implicit transition time: 0" $OUT/alua-rtpg-ext.txt

	check "sg_stpg --standby (the LUN's group)" sg_stpg --standby "$disk"
	check_eq "configfs: grp5 is in standby (2)" \
		"$(cat $GP/alua_access_state)" 2
	check_eq "configfs: altered by explicit STPG" \
		"$(cat $GP/alua_access_status)" "Altered by Explicit STPG"
	check_eq "default group stays active/optimized" \
		"$(cat $DEV/alua/default_tg_pt_gp/alua_access_state)" 0
	sg_rtpg -d "$disk" > $OUT/alua-rtpg-standby.txt 2>&1
	check "RTPG shows group 5 in standby" sh -c \
		"sed -n '/group id : 0x5 /,\$p' $OUT/alua-rtpg-standby.txt | grep -q '(standby)'"
	check_sense "TEST UNIT READY: NOT READY, standby (04/0B)" \
		"target port in standby state" alua-turs-standby.txt sg_turs -v "$disk"
	out=$(sg_raw -r 512 "$disk" 28 00 00 00 00 00 00 00 01 00 2>&1)
	st=$?
	printf '%s\n' "$out" > $OUT/alua-read-standby.txt
	check "READ (10) in standby fails" test $st != 0
	check "READ (10) in standby: NOT READY, standby" sh -c \
		"grep -qi 'not ready' $OUT/alua-read-standby.txt &&
		 grep -qi 'standby' $OUT/alua-read-standby.txt"
	check "INQUIRY still answers in standby" sg_inq "$disk"
	check "MODE SENSE still answers in standby" sg_raw -r 255 "$disk" 1a 00 3f 00 ff 00
	check "back to active/optimized with sg_stpg --optimized" \
		sg_stpg --optimized "$disk"
	check "TEST UNIT READY is good again" turs_good "$disk"
	check "READ (10) works again" sg_raw -r 512 "$disk" 28 00 00 00 00 00 00 00 01 00

	# implicit transition in configfs: the initiator hears 2A/06, or its
	# ALUA device handler does (and then reports the new state)
	check "configfs: grp5 to unavailable (3)" write_attr $GP/alua_access_state 3
	check_eq "configfs: altered by implicit ALUA" \
		"$(cat $GP/alua_access_status)" "Altered by Implicit ALUA"
	check_sense "TEST UNIT READY: NOT READY, unavailable (04/0C)" \
		"target port in unavailable state" alua-turs-unavailable.txt \
		sg_turs -v "$disk"
	if [ "$(cat /sys/block/${disk#/dev/}/device/dh_state 2>/dev/null)" = alua ]; then
		for i in $(seq 1 25); do
			[ "$(cat /sys/block/${disk#/dev/}/device/access_state)" = unavailable ] && break
			sleep 0.2
		done
		check_eq "scsi_dh_alua learnt the new state (access_state)" \
			"$(cat /sys/block/${disk#/dev/}/device/access_state)" unavailable
	else
		check "ASYMMETRIC ACCESS STATE CHANGED came first" \
			grep -qi "asymmetric access state changed" $OUT/alua-turs-unavailable.txt
	fi
	check "configfs: grp5 to transitioning (15)" write_attr $GP/alua_access_state 15
	check_sense "TEST UNIT READY: NOT READY, state transition (04/0A)" \
		"asymmetric access state transition" alua-turs-transitioning.txt \
		sg_turs -v "$disk"
	check "RTPG still answers while transitioning" sg_rtpg "$disk"
	check "configfs: grp5 back to active/optimized" write_attr $GP/alua_access_state 0
	turs_good "$disk"

	# a port put offline (secondary state) refuses media access
	check "alua_tg_pt_offline 1" write_attr $LUN/alua_tg_pt_offline 1
	check_sense "TEST UNIT READY: NOT READY, offline (04/12)" \
		"offline" alua-turs-offline.txt sg_turs -v "$disk"
	check "alua_tg_pt_offline 0" write_attr $LUN/alua_tg_pt_offline 0
	check "TEST UNIT READY is good again" turs_good "$disk"
	check "the LUN shows no secondary state" \
		grep -qx "TG Port Secondary Access State: None" $LUN/alua_tg_pt_gp

	# STPG of an unknown group: INVALID FIELD IN PARAMETER LIST
	out=$(sg_stpg --tp=77 --state=s -v "$disk" 2>&1)
	printf '%s\n' "$out" > $OUT/alua-stpg-bad.txt
	check "STPG of group 77 (none) is refused, invalid field in parameter list" \
		grep -qi 'invalid field in param' $OUT/alua-stpg-bad.txt

	# implicit-only group: INQUIRY says so, and STPG is not offered
	check "alua_access_type 1 (implicit only)" write_attr $GP/alua_access_type 1
	check "INQUIRY shows TPGS=1" sh -c "sg_inq $disk | grep -q 'TPGS=1'"
	# sg_stpg exits 0 even when the command fails: read what it says
	sg_stpg --standby "$disk" > $OUT/alua-stpg-implicit.txt 2>&1
	check "SET TARGET PORT GROUPS is refused: invalid opcode" \
		grep -qi "invalid opcode" $OUT/alua-stpg-implicit.txt
	check_eq "and changed nothing" "$(cat $GP/alua_access_state)" 0
	check "alua_access_type 3 again" write_attr $GP/alua_access_type 3

	two_nexus_tests "$disk"

	iscsiadm -m node -T $KT_IQN -p $p --logout >/dev/null 2>&1
	iscsiadm -m node -o delete >/dev/null 2>&1
	iscsiadm -m iface -I kt2 -o delete >/dev/null 2>&1
}

# SPC-4 5.15.2.3: STPG through one I_T nexus gives ASYMMETRIC ACCESS STATE
# CHANGED to the others, not to itself.
two_nexus_tests() {
	local disk=$1 disk2 p=127.0.0.1:3260

	iscsiadm -m iface -I kt2 -o new >/dev/null 2>&1
	iscsiadm -m iface -I kt2 -o update -n iface.initiatorname \
		-v iqn.2026-11.org.ktarget:guest2 >/dev/null
	check "second session logs in" sh -c \
		"iscsiadm -m discovery -t st -p $p -I kt2 >/dev/null && iscsiadm -m node -T $KT_IQN -p $p -I kt2 --login"
	disk2=$(kt_second_disk "$disk")
	check "a second disk appears" test -b "$disk2"
	turs_good "$disk2"
	turs_good "$disk"
	check "sg_stpg --standby through the first nexus" sg_stpg --standby "$disk"
	sg_turs -v "$disk2" > $OUT/alua-turs-nexus2.txt 2>&1
	check "the second nexus hears ASYMMETRIC ACCESS STATE CHANGED" \
		grep -qi "asymmetric access state changed" $OUT/alua-turs-nexus2.txt
	sg_turs -v "$disk" > $OUT/alua-turs-nexus1.txt 2>&1
	check "the first nexus gets no unit attention, only standby" sh -c \
		"! grep -qi 'unit attention' $OUT/alua-turs-nexus1.txt &&
		 grep -qi 'standby' $OUT/alua-turs-nexus1.txt"
	check "sg_stpg --optimized through the second nexus" \
		sg_stpg --optimized "$disk2"
	check_sense "now the first nexus hears of it" \
		"asymmetric access state changed" alua-turs-nexus1-ua.txt \
		sg_turs -v "$disk"
	check "and both are good" sh -c "sg_turs $disk && sg_turs $disk2"
	iscsiadm -m node -T $KT_IQN -p $p -I kt2 --logout >/dev/null 2>&1
}

# saveconfig / clearconfig / restoreconfig with grp5 (non-default, ANO,
# preferred, a non-default delay) and the LUN in it.
targetcli_tests() {
	if ! command -v targetcli >/dev/null; then
		skip "ALUA targetcli round trip" "targetcli-fb not installed" 15
		return
	fi
	export HOME=/root
	mkdir -p /root /run/dbus /etc/rtslib-fb-target
	pgrep -x dbus-daemon >/dev/null || dbus-daemon --system --fork
	write_attr $GP/alua_access_state 1
	write_attr $GP/preferred 1
	write_attr $GP/nonop_delay_msecs 250
	write_attr $GP/alua_access_type 2
	rm -f $SAVE
	check "targetcli saveconfig" targetcli saveconfig $SAVE
	cp $SAVE $OUT/alua-saveconfig.json 2>/dev/null
	check "the saved JSON has grp5 (id 5, ANO, preferred, explicit) and the LUN in it" python3 -c "
c = __import__('json').load(open('$SAVE'))
so, = [s for s in c['storage_objects'] if s['name'] == 'r0']
g = {a['name']: a for a in so['alua_tpgs']}
assert set(g) == {'default_tg_pt_gp', 'grp5'}, g.keys()
assert g['grp5']['tg_pt_gp_id'] == 5, g['grp5']
assert g['grp5']['alua_access_state'] == 1, g['grp5']
assert g['grp5']['preferred'] == 1, g['grp5']
assert g['grp5']['nonop_delay_msecs'] == 250, g['grp5']
assert g['grp5']['alua_access_type'] == 2, g['grp5']
lun, = c['targets'][0]['tpgs'][0]['luns']
assert lun['alua_tg_pt_gp_name'] == 'grp5', lun
"
	check "targetcli clearconfig" targetcli clearconfig confirm=True
	check "no device left" sh -c "! ls -d $KT_CFS/core/*/r0 2>/dev/null"
	check "targetcli restoreconfig" targetcli restoreconfig $SAVE
	local dev lun
	dev=$(ls -d $KT_CFS/core/rd_mcp_*/r0 2>/dev/null | head -n 1)
	lun=$KT_TPG/lun/lun_0
	check "grp5 is back" test -d "$dev/alua/grp5"
	check_eq "restored: tg_pt_gp_id" "$(cat $dev/alua/grp5/tg_pt_gp_id 2>&1)" 5
	check_eq "restored: alua_access_state" \
		"$(cat $dev/alua/grp5/alua_access_state 2>&1)" 1
	check_eq "restored: preferred" "$(cat $dev/alua/grp5/preferred 2>&1)" 1
	check_eq "restored: nonop_delay_msecs" \
		"$(cat $dev/alua/grp5/nonop_delay_msecs 2>&1)" 250
	check_eq "restored: alua_access_type" \
		"$(cat $dev/alua/grp5/alua_access_type 2>&1)" Explicit
	check_eq "restored: the LUN is in grp5" "$(lun_group $lun)" grp5
	check_eq "restored: grp5 lists the LUN" \
		"$(cat $dev/alua/grp5/members 2>&1)" "iscsi/$KT_IQN/tpgt_1/lun_0"
	check "targetcli clearconfig at the end" targetcli clearconfig confirm=True
	check "configfs holds no device" sh -c "! ls -d $KT_CFS/core/*/* 2>/dev/null"
}

main() {
	plan 100
	check "target set up" kt_iscsi_setup
	configfs_tests
	iscsi_tests
	targetcli_tests
	# whatever is left (targetcli missing, a failed step): tear it down
	[ -d $DEV/alua/grp5 ] && rmdir $DEV/alua/grp5 2>/dev/null
	kt_iscsi_teardown
	rmdir $KT_CFS/core/rd_mcp_* 2>/dev/null
	rmdir $KT_CFS/iscsi 2>/dev/null
	check "rmmod ktarget_iscsi" rmmod ktarget_iscsi
	return 0
}

main "$@"
