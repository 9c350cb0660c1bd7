#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# targetcli-fb (the real client, through rtslib-fb) drives ktarget end to
# end: ramdisk, fileio and block backstores, an iSCSI target with three
# LUNs, a portal, an ACL with a mapped LUN and CHAP; saveconfig,
# clearconfig and restoreconfig must bring back the same tree, attributes,
# parameters and credentials; libiscsi then logs in to the restored target
# with CHAP, and a wrong password is refused.
#
# Under TCG one targetcli process costs 10-40 s (Python, then rtslib reads
# the whole tree), so the configuration is built by one targetcli reading
# its commands from stdin, and each step is then checked in configfs; save,
# clear, restore and ls are one targetcli command line each. Every call,
# its output and time land in the run folder (targetcli.log), with the
# saved configurations, both `targetcli ls` and both configfs snapshots.
. ./lib.sh

IQN=iqn.2026-11.org.ktarget:tcli
INIT=iqn.2026-11.org.ktarget:tcli-initiator
CHAP_USER=ktuser
CHAP_PASS=ktsecret12345
SAVE=/etc/rtslib-fb-target/saveconfig.json
FIMG=/tmp/kt-f0.img
TPG=$KT_CFS/iscsi/$IQN/tpgt_1
LOG=/ktout/targetcli.log

# tcli_run ARGS... < COMMANDS: targetcli, logged; stdout in $TCLI_OUT,
# stderr in $TCLI_ERR, the exit status returned.
tcli_run() {
	local rc t0=$SECONDS

	echo "### targetcli ${*:-(commands from stdin)}" >> $LOG
	TCLI_OUT=$(targetcli "$@" 2>/tmp/kt-tcli.err)
	rc=$?
	TCLI_ERR=$(cat /tmp/kt-tcli.err)
	printf '%s\n' "$TCLI_OUT" >> $LOG
	[ -n "$TCLI_ERR" ] && printf 'stderr: %s\n' "$TCLI_ERR" >> $LOG
	echo "### exit $rc after $((SECONDS - t0)) s" >> $LOG
	return $rc
}

# tcli DESCRIPTION ARGS...: one targetcli command line, ok when it exits 0
# and says nothing on stderr (where targetcli reports errors).
tcli() {
	local d=$1 rc
	shift
	tcli_run "$@" < /dev/null
	rc=$?
	if [ $rc = 0 ] && [ -z "$TCLI_ERR" ]; then
		ok "$d"
	else
		not_ok "$d" "targetcli $* (exit $rc):" "$TCLI_ERR"
	fi
}

# login_refused DESCRIPTION STATUS ISCSI-INQ-ARGS...: iscsi-inq fails and
# names the login status STATUS.
login_refused() {
	local d=$1 want=$2 out
	shift 2
	if out=$(timeout 60 iscsi-inq "$@" 2>&1); then
		not_ok "$d" "iscsi-inq $* logged in" "$out"
	elif printf '%s' "$out" | grep -q "$want"; then
		ok "$d"
	else
		not_ok "$d" "iscsi-inq failed, but not with '$want':" "$out"
	fi
}

# The directory the one symlink in configfs directory $1 points at.
link_of() {
	readlink -f "$(find "$1" -maxdepth 1 -type l | head -n 1)"
}

# linked_to DIR TARGET: the symlink in DIR points at TARGET (a glob is fine)
linked_to() {
	local l=$(link_of "$1")

	[ -n "$l" ] && [ "$l" = "$(readlink -f $2)" ]
}

# cfs_eq DESCRIPTION FILE WANT: the configfs file reads WANT
cfs_eq() {
	check_eq "$1" "$(cat "$2" 2>&1)" "$3"
}

# The checks that the configuration is in configfs as built; run before
# saving and after restoring.
check_tree() {
	local when=$1 acl=$TPG/acls/$INIT

	check "$when: ramdisk r0 is 64 MiB" \
		grep -q "PAGES/PAGE_SIZE: 16384\*4096" $KT_CFS/core/rd_mcp_*/r0/info
	cfs_eq "$when: r0 attrib/emulate_tpu" $KT_CFS/core/rd_mcp_*/r0/attrib/emulate_tpu 1
	cfs_eq "$when: f0 attrib/emulate_tpu" $KT_CFS/core/fileio_*/f0/attrib/emulate_tpu 0
	cfs_eq "$when: f0 attrib/block_size" $KT_CFS/core/fileio_*/f0/attrib/block_size 4096
	# targetcli sets emulate_model_alias: the product id is the name
	cfs_eq "$when: r0 wwn/product_id is r0 (emulate_model_alias)" \
		$KT_CFS/core/rd_mcp_*/r0/wwn/product_id r0
	check "$when: f0 is backed by $FIMG" grep -q "File: $FIMG" $KT_CFS/core/fileio_*/f0/info
	cfs_eq "$when: b0 udev_path" $KT_CFS/core/iblock_*/b0/udev_path /dev/ram0
	cfs_eq "$when: b0 enabled" $KT_CFS/core/iblock_*/b0/enable 1
	cfs_eq "$when: TPG enabled" $TPG/enable 1
	cfs_eq "$when: attrib/authentication" $TPG/attrib/authentication 1
	cfs_eq "$when: param/AuthMethod" $TPG/param/AuthMethod CHAP
	cfs_eq "$when: param/MaxRecvDataSegmentLength" \
		$TPG/param/MaxRecvDataSegmentLength 65536
	check "$when: LUN 0 links r0" linked_to $TPG/lun/lun_0 "$KT_CFS/core/rd_mcp_*/r0"
	check "$when: LUN 1 links f0" linked_to $TPG/lun/lun_1 "$KT_CFS/core/fileio_*/f0"
	check "$when: LUN 2 links b0" linked_to $TPG/lun/lun_2 "$KT_CFS/core/iblock_*/b0"
	check "$when: portal 127.0.0.1:3260, no 0.0.0.0:3260" sh -c "
		[ -d $TPG/np/127.0.0.1:3260 ] && [ ! -e $TPG/np/0.0.0.0:3260 ]"
	check_eq "$when: the ACL has one mapped LUN, lun_0" "$(cd $acl && echo lun_*)" lun_0
	check "$when: mapped LUN 0 links TPG LUN 0" linked_to $acl/lun_0 $TPG/lun/lun_0
	cfs_eq "$when: ACL auth/userid" $acl/auth/userid $CHAP_USER
	cfs_eq "$when: ACL auth/password" $acl/auth/password $CHAP_PASS
}

# No ktarget object left in configfs: no HBA, no target.
cfs_empty() {
	local left

	left=$(ls -d $KT_CFS/core/* 2>/dev/null
	       find $KT_CFS/iscsi -mindepth 1 -maxdepth 1 -type d \
		       ! -name discovery_auth 2>/dev/null)
	[ -z "$left" ] || { echo "left: $left"; return 1; }
}

# Every attribute and link under target/, one line each, with the HBA
# index (chosen afresh on restore) left out, and the files that show it or
# the device number (info, hba_info) skipped. A few processes, not one per
# file: under TCG a fork costs.
cfs_snapshot() {
	(cd $KT_CFS &&
	 grep -rs --exclude=control --exclude=info --exclude=hba_info '' .
	 find . -type l -printf '%p -> %l\n') |
		sed -E 's#(core/[a-z_]+)_[0-9]+/#\1_N/#g' | sort
}

# The configuration, as targetcli commands. targetcli makes the portal
# 0.0.0.0:3260 with the target; it goes in favour of 127.0.0.1:3260.
# emulate_tpu differs between r0 and f0: whatever the default, one of them
# is not at it, and both must come back.
build_commands() {
	cat <<-EOF
	set global auto_save_on_exit=false
	set global color_mode=false
	/backstores/ramdisk create r0 64M
	/backstores/fileio create f0 $FIMG 64M
	/backstores/block create b0 /dev/ram0
	/backstores/ramdisk/r0 set attribute emulate_tpu=1
	/backstores/fileio/f0 set attribute emulate_tpu=0 block_size=4096
	/iscsi create $IQN
	/iscsi/$IQN/tpg1/luns create /backstores/ramdisk/r0
	/iscsi/$IQN/tpg1/luns create /backstores/fileio/f0
	/iscsi/$IQN/tpg1/luns create /backstores/block/b0
	/iscsi/$IQN/tpg1/portals delete 0.0.0.0 3260
	/iscsi/$IQN/tpg1/portals create 127.0.0.1 3260
	/iscsi/$IQN/tpg1/acls create $INIT add_mapped_luns=false
	/iscsi/$IQN/tpg1/acls/$INIT create 0 0
	/iscsi/$IQN/tpg1/acls/$INIT set auth userid=$CHAP_USER password=$CHAP_PASS
	/iscsi/$IQN/tpg1 set attribute authentication=1
	/iscsi/$IQN/tpg1 set parameter MaxRecvDataSegmentLength=65536
	exit
	EOF
}

main() {
	local ls1 ls2 url vendor rc d

	if ! command -v targetcli >/dev/null; then
		skip_all "targetcli: targetcli-fb not installed"
		return
	fi
	plan 70
	export HOME=/root
	mkdir -p /root /run/dbus /etc/rtslib-fb-target
	: > $LOG
	rm -f $FIMG $SAVE
	check "system D-Bus starts (targetcli needs it)" dbus-daemon --system --fork
	check "modprobe ktarget_core (rtslib would load LIO's)" modprobe ktarget_core
	check "brd ramdisk /dev/ram0 for the block backstore" \
		modprobe brd rd_nr=1 rd_size=65536

	# not a pipe: tcli_run sets variables
	tcli_run < <(build_commands)
	rc=$?
	d="one targetcli ran the $(build_commands | grep -c /) configuration commands without an error"
	if [ $rc = 0 ] && [ -z "$TCLI_ERR" ]; then
		ok "$d"
	else
		not_ok "$d" "exit $rc, stderr:" "$TCLI_ERR"
	fi
	printf '%s\n' "$TCLI_OUT" > /tmp/kt-build.txt
	check "targetcli made its default portal 0.0.0.0:3260" grep -q \
		'Created default portal listening on all IPs (0.0.0.0), port 3260' /tmp/kt-build.txt
	check "and deleted it" grep -q 'Deleted network portal 0.0.0.0:3260' /tmp/kt-build.txt
	check_tree "built"

	cfs_snapshot > /ktout/configfs-before.txt
	tcli "targetcli ls" ls /
	ls1=$TCLI_OUT
	printf '%s\n' "$ls1" > /ktout/targetcli-ls-before.txt
	tcli "saveconfig" saveconfig
	check "saveconfig wrote $SAVE" test -s $SAVE
	cp $SAVE /tmp/kt-saved.json
	cp $SAVE /ktout/saveconfig-before.json
	check "the saved JSON has r0, f0, b0, the target, its LUNs, the ACL, CHAP, attributes" python3 -c "
c = __import__('json').load(open('/tmp/kt-saved.json'))
sos = sorted((s['plugin'], s['name']) for s in c['storage_objects'])
assert sos == [('block', 'b0'), ('fileio', 'f0'), ('ramdisk', 'r0')], sos
t, = c['targets']
assert t['wwn'] == '$IQN' and t['fabric'] == 'iscsi', t
tpg, = t['tpgs']
assert len(tpg['luns']) == 3, tpg['luns']
acl, = tpg['node_acls']
assert acl['node_wwn'] == '$INIT', acl
assert acl['chap_userid'] == '$CHAP_USER', acl
assert acl['chap_password'] == '$CHAP_PASS', acl
assert tpg['attributes']['authentication'] == 1, tpg['attributes']
assert tpg['parameters']['MaxRecvDataSegmentLength'] == '65536', tpg['parameters']
so = {s['name']: s for s in c['storage_objects']}
assert so['r0']['attributes']['emulate_tpu'] == 1, so['r0']
assert so['f0']['attributes']['emulate_tpu'] == 0, so['f0']
assert so['f0']['attributes']['block_size'] == 4096, so['f0']
"

	tcli "clearconfig confirm=True" clearconfig confirm=True
	check "configfs holds no backstore or target" cfs_empty

	tcli "restoreconfig $SAVE" restoreconfig $SAVE
	check_tree "restored"
	cfs_snapshot > /ktout/configfs-after.txt
	if cmp -s /ktout/configfs-before.txt /ktout/configfs-after.txt; then
		ok "every configfs attribute and link is as before (configfs-*.txt)"
	else
		not_ok "every configfs attribute and link is as before (configfs-*.txt)" \
			"$(diff /ktout/configfs-before.txt /ktout/configfs-after.txt | head -40)"
	fi
	tcli "targetcli ls after restore" ls /
	ls2=$TCLI_OUT
	printf '%s\n' "$ls2" > /ktout/targetcli-ls-after.txt
	if [ -n "$ls1" ] && [ "$ls1" = "$ls2" ]; then
		ok "targetcli ls shows the same tree as before"
	else
		not_ok "targetcli ls shows the same tree as before" \
			"$(diff <(echo "$ls1") <(echo "$ls2"))"
	fi
	tcli "saveconfig to a second file" saveconfig /tmp/kt-saved2.json
	cp /tmp/kt-saved2.json /ktout/saveconfig-after.json 2>/dev/null
	# rtslib lists objects in configfs order (newest first): sort them
	check "the configuration saved again is the same" python3 -c "
import json
def norm(f):
    c = json.load(open(f))
    c['storage_objects'].sort(key=lambda s: (s['plugin'], s['name']))
    for t in c['targets']:
        for tpg in t['tpgs']:
            tpg['luns'].sort(key=lambda l: l['index'])
            tpg['portals'].sort(key=lambda p: (p['ip_address'], p['port']))
            tpg['node_acls'].sort(key=lambda a: a['node_wwn'])
            for a in tpg['node_acls']:
                a['mapped_luns'].sort(key=lambda m: m['index'])
    return c
a, b = norm('/tmp/kt-saved.json'), norm('/tmp/kt-saved2.json')
assert a == b, json.dumps(a, indent=1, sort_keys=True) + ' != ' + json.dumps(b, indent=1, sort_keys=True)
"

	if command -v iscsi-inq >/dev/null; then
		# libiscsi: iscsi://[user[%password]@]host[:port]/target-iqn/lun
		url="iscsi://$CHAP_USER%$CHAP_PASS@127.0.0.1:3260/$IQN/0"
		vendor=$(cat $KT_CFS/core/rd_mcp_*/r0/wwn/vendor_id)
		d="iscsi-inq logs in with CHAP to the restored target, LUN 0 answers INQUIRY"
		if timeout 60 iscsi-inq -i $INIT "$url" > /ktout/iscsi-inq.txt 2>&1; then
			ok "$d"
		else
			not_ok "$d" "$(cat /ktout/iscsi-inq.txt)"
		fi
		check "INQUIRY: vendor '$vendor' (wwn/vendor_id), product r0 (the alias)" \
			sh -c "grep -q '^Vendor:$vendor *\$' /ktout/iscsi-inq.txt &&
			       grep -q '^Product:r0 *\$' /ktout/iscsi-inq.txt"
		# RFC 7143 11.13.5: 0201h authentication failure, 0202h
		# authorization failure; libiscsi prints the status
		login_refused "a wrong CHAP password is refused (0x0201)" \
			"Authentication failure" -i $INIT \
			"iscsi://$CHAP_USER%wrong-secret@127.0.0.1:3260/$IQN/0"
		login_refused "a login without CHAP is refused (0x0201)" \
			"Authentication failure" -i $INIT \
			"iscsi://127.0.0.1:3260/$IQN/0"
		login_refused "an initiator without an ACL is refused (0x0202)" \
			"Authorization failure" -i $INIT-other "$url"
	else
		skip "iscsi-inq" "libiscsi-bin not installed" 5
	fi

	check_bad_write "r0's model alias stays while a LUN exports it" \
		"$(echo $KT_CFS/core/rd_mcp_*/r0/attrib/emulate_model_alias)" 0 \
		"emulate_model_alias: the device is exported through a LUN"

	tcli "teardown: clearconfig confirm=True" clearconfig confirm=True
	check "configfs holds no backstore or target at the end" cfs_empty
	rm -f $FIMG
	check "rmdir target/iscsi" rmdir $KT_CFS/iscsi
	check "rmmod ktarget_iscsi" rmmod ktarget_iscsi
	check "rmmod ktarget_rd ktarget_fileio ktarget_iblock" \
		rmmod ktarget_rd ktarget_fileio ktarget_iblock
	check "rmmod ktarget_core" rmmod ktarget_core
	rmmod brd 2>/dev/null
	return 0
}

main "$@"
