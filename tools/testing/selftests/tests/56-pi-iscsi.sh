#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# T10-PI over iSCSI (issue 45, part 2): iSCSI has no buffer for PI beside
# the data, so a READ with RDPROTECT or a WRITE with WRPROTECT moves each
# logical block followed by its 8-byte tuple, as SBC-4 lays out the Data-In
# and Data-Out buffers (ddpt's protect=RDP,WRP through open-iscsi's sg
# node reads and writes 520-byte units). On a fileio LU of type 1 a read
# returns the stored tuples and a write stores the initiator's, checked
# first: a bad guard or reference tag fails the command and writes
# nothing; a byte flipped in the data behind the target fails the read. A
# target whose TPG has attrib/t10_pi and fabric_prot_type 1 (LIO wants
# both) shows a LU without PI as type 1 to its sessions alone: a read's
# tuples are made by the target, a write's are checked and dropped, and
# the file holds the data only; the same LU through a TPG without them
# shows no PI and refuses RDPROTECT. A READ with RDPROTECT whose expected
# length has no room for the tuples is refused; one of no block is GOOD.
# targetcli sets t10_pi and fabric_prot_type, and saveconfig keeps them.
. ./lib.sh
. ./pi_lib.sh

DIR=/tmp/kt-pi-iscsi
F1=$KT_CFS/core/fileio_1/pif1
F2=$KT_CFS/core/fileio_1/pif2
IMG=$DIR/f1.img
PROT=$DIR/f1.img.protection
IMG2=$DIR/f2.img
TPG=$KT_CFS/iscsi/$KT_IQN/tpgt_1
IQN2=iqn.2026-11.org.ktarget:pi-fabric
TPG2=$KT_CFS/iscsi/$IQN2/tpgt_1
P=127.0.0.1:3260
P2=127.0.0.1:3261
LOG=/ktout/pi-iscsi.log

# cmd_out CMD...: CMD's output and status, logged
cmd_out() {
	echo "### $*" >> $LOG
	"$@" >> $LOG 2>&1
}

# setup: f1 (type 1) LUN 1 and f2 (no PI) LUN 2 of the test target; f2
# also LUN 0 of IQN2, whose TPG shows LUs without PI as type 1
setup() {
	mkdir -p $DIR $F1 $F2 &&
		echo "fd_dev_name=$IMG,fd_dev_size=$((16 << 20))" > $F1/control &&
		echo 1 > $F1/enable && echo 1 > $F1/attrib/pi_prot_type &&
		echo "fd_dev_name=$IMG2,fd_dev_size=$((16 << 20))" > $F2/control &&
		echo 1 > $F2/enable &&
		mkdir $TPG/lun/lun_1 $TPG/lun/lun_2 &&
		ln -s $F1 $TPG/lun/lun_1/f1 && ln -s $F2 $TPG/lun/lun_2/f2 &&
		mkdir -p $TPG2/lun/lun_0 $TPG2/np/$P2 &&
		ln -s $F2 $TPG2/lun/lun_0/f2 &&
		echo 0 > $TPG2/attrib/authentication &&
		echo 1 > $TPG2/attrib/generate_node_acls &&
		echo 0 > $TPG2/attrib/demo_mode_write_protect &&
		echo 1 > $TPG2/attrib/t10_pi &&
		echo 1 > $TPG2/attrib/fabric_prot_type && echo 1 > $TPG2/enable
}

login() {
	iscsiadm -m discovery -t st -p $P >/dev/null &&
		iscsiadm -m node -T $KT_IQN -p $P --login >/dev/null &&
		iscsiadm -m discovery -t st -p $P2 >/dev/null &&
		iscsiadm -m node -T $IQN2 -p $P2 --login >/dev/null
}

teardown() {
	iscsiadm -m node --logoutall=all >/dev/null 2>&1
	iscsiadm -m node -o delete >/dev/null 2>&1
	[ -e $TPG2/enable ] && echo 0 > $TPG2/enable
	rm -f $TPG/lun/lun_1/f1 $TPG/lun/lun_2/f2 $TPG2/lun/lun_0/f2
	rmdir $TPG/lun/lun_1 $TPG/lun/lun_2 $TPG2/lun/lun_0 $TPG2/np/$P2 \
		$TPG2 $KT_CFS/iscsi/$IQN2 $F1 $F2 $KT_CFS/core/fileio_1 2>/dev/null
	kt_iscsi_teardown
	rm -rf $DIR
	true
}

# rd_wire SG LBA N OUT: ddpt reads N blocks at LBA with RDPROTECT 001b
# (verbose: a failure's sense decoded)
rd_wire() {
	rm -f "$4"
	cmd_out ddpt if="$1" iflag=pt bs=512 skip="$2" count="$3" protect=1 \
		of="$4" verbose=1 && [ "$(stat -c %s "$4")" = $(($3 * 520)) ]
}

# wr_wire SG LBA N IN: ddpt writes N blocks at LBA with WRPROTECT 001b
wr_wire() {
	cmd_out ddpt if="$4" of="$1" oflag=pt bs=512 seek="$2" count="$3" \
		protect=0,1 verbose=1
}

# wr_refused SG LBA N IN PATTERN: that write fails, and ddpt says PATTERN
wr_refused() {
	! wr_wire "$1" "$2" "$3" "$4" && tail -30 $LOG | grep -qi "$5"
}

# rd_refused SG LBA N PATTERN: the read fails, and ddpt says PATTERN
rd_refused() {
	! rd_wire "$1" "$2" "$3" $DIR/bad.bin && tail -30 $LOG | grep -qi "$4"
}

# plain_write DISK LBA N: N random blocks written at LBA through the Linux
# initiator (its own PI, if any, made by the target), kept in $DIR/plain
plain_write() {
	head -c $(($3 * 512)) /dev/urandom > $DIR/plain &&
		dd if=$DIR/plain of="$1" bs=512 seek="$2" oflag=direct status=none
}

# img_has IMG LBA FILE: IMG holds FILE's bytes from block LBA
img_has() {
	dd if="$1" bs=512 skip="$2" count=$(($(stat -c %s "$3") / 512)) \
		status=none | cmp - "$3"
}

# raw_short_read SG PATTERN: READ (10) of one block with RDPROTECT 001b
# and room for its 512 bytes only is refused, and sg_raw says PATTERN
raw_short_read() {
	local out

	out=$(sg_raw -r 512 "$1" 28 20 00 00 00 00 00 00 01 00 2>&1)
	echo "$out" >> $LOG
	echo "$out" | grep -qi "$2"
}

# raw_zero SG: READ (10) with RDPROTECT and WRITE (10) with WRPROTECT of
# no block: GOOD, nothing moved
raw_zero() {
	cmd_out sg_raw "$1" 28 20 00 00 00 64 00 00 00 00 &&
		cmd_out sg_raw "$1" 2a 20 00 00 00 64 00 00 00 00
}

# prot_en DISK: sg_readcap --long's protection line
prot_en() {
	sg_readcap --long "$1" 2>&1 | grep -o 'prot_en=[01], p_type=[0-9]'
}

# weave_to DATA LBA APP OUT [SPOIL GUARD_XOR REF_XOR]: pi_tuple.py weave
weave_to() {
	python3 ./pi_tuple.py weave "$1" "$2" "$3" "${@:5}" > "$4"
}

# wire_is WIRE IMG PROT LBA: pi_tuple.py wire, logged
wire_is() {
	cmd_out python3 ./pi_tuple.py wire "$@"
}

# tuples_kept: blocks 200 and 207 of f1 keep the tuples sent (4B54h)
tuples_kept() {
	img_has $IMG 200 $DIR/d1 &&
		cmd_out python3 ./pi_tuple.py check $IMG $PROT 200 1 0x4b54 &&
		cmd_out python3 ./pi_tuple.py check $IMG $PROT 207 1 0x4b54
}

# read_back_same SG LBA WIRE: 8 blocks at LBA read with RDPROTECT are WIRE
read_back_same() {
	rd_wire "$1" "$2" 8 $DIR/back.bin && cmp $DIR/back.bin "$3"
}

# zeroes_at IMG LBA: 8 blocks of zeroes there
zeroes_at() {
	head -c 4096 /dev/zero > $DIR/z && img_has "$1" "$2" $DIR/z
}

# pi_lu_checks DISK SG: RDPROTECT and WRPROTECT on f1, a LU of type 1
pi_lu_checks() {
	local d1=$1 sg1=$2

	plain_write $d1 100 8
	check "ddpt protect=1 reads 8 blocks written by the Linux initiator: 8 x 520 bytes" \
		rd_wire $sg1 100 8 $DIR/r1.bin
	check "... each block followed by the tuple the LU stored for it" \
		wire_is $DIR/r1.bin $IMG $PROT 100
	head -c 4096 /dev/urandom > $DIR/d1
	weave_to $DIR/d1 200 0x4b54 $DIR/w1.bin
	check "ddpt protect=0,1 writes 8 blocks with the initiator's tuples (application tag 4B54h): GOOD" \
		wr_wire $sg1 200 8 $DIR/w1.bin
	check "... the data is in the file and the tuples as they were sent" tuples_kept
	check "... and read back with RDPROTECT as they were written" \
		read_back_same $sg1 200 $DIR/w1.bin
	weave_to $DIR/d1 300 0 $DIR/w2.bin 3 1 0
	check "a write whose block 3 has a bad guard: LOGICAL BLOCK GUARD CHECK FAILED" \
		wr_refused $sg1 300 8 $DIR/w2.bin 'guard check failed'
	check "... and nothing of it was written" zeroes_at $IMG 300
	weave_to $DIR/d1 300 0 $DIR/w3.bin 5 0 0x100
	check "a write whose block 5 has a bad reference tag: LOGICAL BLOCK REFERENCE TAG CHECK FAILED" \
		wr_refused $sg1 300 8 $DIR/w3.bin 'reference tag check failed'
	flip $IMG $((203 * 512 + 9))
	check "a byte flipped in block 203's data behind the target: the RDPROTECT read fails its guard" \
		rd_refused $sg1 200 8 'guard check failed'
	check "READ (10) with RDPROTECT and room for the data only: INVALID FIELD IN COMMAND INFORMATION UNIT" \
		raw_short_read $sg1 'invalid field in command information unit'
	check "READ (10) with RDPROTECT and WRITE (10) with WRPROTECT of no block: GOOD" \
		raw_zero $sg1
}

# fabric_checks DISK SG DISK3 SG3: f2, no PI, shown as type 1 through IQN2
# (DISK, SG) and without PI through the test target (DISK3, SG3)
fabric_checks() {
	local d2=$1 sg2=$2 d3=$3 sg3=$4

	check_eq "f2 (no PI): READ CAPACITY (16) through IQN2 (fabric_prot_type 1), then the test target" \
		"$(prot_en $d2) $(prot_en $d3)" "prot_en=1, p_type=0 prot_en=0, p_type=0"
	plain_write $d2 10 8
	check "ddpt protect=1 through IQN2: 8 x 520 bytes" rd_wire $sg2 10 8 $DIR/r3.bin
	check "... the blocks the Linux initiator wrote, with tuples the target made" \
		wire_is $DIR/r3.bin $IMG2 - 10
	head -c 4096 /dev/urandom > $DIR/d2
	weave_to $DIR/d2 20 0 $DIR/w4.bin
	check "ddpt protect=0,1 through IQN2 with good tuples: GOOD" \
		wr_wire $sg2 20 8 $DIR/w4.bin
	check "... the data in the file" img_has $IMG2 20 $DIR/d2
	weave_to $DIR/d2 40 0 $DIR/w5.bin 2 0 0x10
	check "... a bad reference tag in block 2: REFERENCE TAG CHECK FAILED" \
		wr_refused $sg2 40 8 $DIR/w5.bin 'reference tag check failed'
	check "... and nothing of it written" zeroes_at $IMG2 40
	check_eq "f2 keeps no PI: pi_prot_type 0, no protection file" \
		"$(cat $F2/attrib/pi_prot_type) $(ls $IMG2.protection 2>&1 | grep -c 'No such')" "0 1"
	check "f2 through the test target (no fabric_prot_type): RDPROTECT is an invalid field in the CDB" \
		raw_short_read $sg3 'invalid field in cdb'
	check "... and of no block through IQN2: GOOD" raw_zero $sg2
	check "the Linux initiator through IQN2: 1 MiB written and read back" write_verify $d2
}

# tcli_fabric: targetcli sets t10_pi and fabric_prot_type on an iSCSI TPG,
# and saveconfig / restoreconfig keep them (rtslib-fb saves every TPG
# attribute it reads)
tcli_fabric() {
	local iqn=iqn.2026-11.org.ktarget:pi-tcli out
	local t=$KT_CFS/iscsi/$iqn/tpgt_1

	export HOME=/root
	mkdir -p /root /run/dbus /etc/rtslib-fb-target
	kt_dbus_start
	targetcli >> $LOG 2>&1 <<-EOF
	/iscsi create $iqn
	/iscsi/$iqn/tpg1 set attribute t10_pi=1 fabric_prot_type=1
	EOF
	check_eq "targetcli: t10_pi and fabric_prot_type 1 on an iSCSI TPG" \
		"$(cat $t/attrib/t10_pi $t/attrib/fabric_prot_type 2>&1 | tr '\n' ' ')" "1 1 "
	check "targetcli: saveconfig" sh -c "targetcli saveconfig $DIR/tcli.json >> $LOG 2>&1"
	out=$(python3 -c "
import json
c = json.load(open('$DIR/tcli.json'))
for tg in c['targets']:
    if tg['wwn'] == '$iqn':
        a = tg['tpgs'][0]['attributes']
        print(a.get('t10_pi'), a.get('fabric_prot_type'))" 2>&1)
	check_eq "the saved configuration has both" "$out" "1 1"
	targetcli clearconfig confirm=True >> $LOG 2>&1
	targetcli restoreconfig $DIR/tcli.json >> $LOG 2>&1
	check_eq "targetcli restoreconfig: both 1 again" \
		"$(cat $t/attrib/t10_pi $t/attrib/fabric_prot_type 2>&1 | tr '\n' ' ')" "1 1 "
	targetcli clearconfig confirm=True >> $LOG 2>&1
	kt_dbus_stop
	# targetcli made target/iscsi again, which holds ktarget_iscsi
	rmdir $KT_CFS/iscsi 2>/dev/null
	true
}

main() {
	local d1 sg1 d2 sg2 d3 sg3

	if ! command -v iscsiadm >/dev/null || ! command -v ddpt >/dev/null; then
		skip_all "open-iscsi or ddpt not installed"
		return
	fi
	plan 32
	: > $LOG
	kmsg_mark
	local start=$KT_KMSG_MARK
	check "target set up" kt_iscsi_setup
	kt_iscsid_start >/dev/null 2>&1
	modprobe sg
	check "fileio f1 (type 1) and f2 (no PI) on the test target; f2 on IQN2 (fabric_prot_type 1)" \
		setup
	check "open-iscsi logs in to both" login
	d1=$(disk_of $KT_IQN 1)
	d3=$(disk_of $KT_IQN 2)
	d2=$(disk_of $IQN2 0)
	sg1=$(sg_of "$d1")
	sg2=$(sg_of "$d2")
	sg3=$(sg_of "$d3")
	check "their disks and sg nodes" test -b "$d1" -a -b "$d2" -a -b "$d3" \
		-a -c "$sg1" -a -c "$sg2" -a -c "$sg3"
	pi_lu_checks "$d1" "$sg1"
	fabric_checks "$d2" "$sg2" "$d3" "$sg3"
	teardown
	mkdir -p $DIR
	if command -v targetcli >/dev/null; then
		tcli_fabric
	else
		skip "targetcli" "not installed" 4
	fi
	rm -rf $DIR
	KT_KMSG_MARK=$start
	check "modules unload" sh -c "for m in ktarget_iscsi ktarget_fileio ktarget_rd \
		ktarget_core; do [ ! -e /sys/module/\$m ] || rmmod \$m || exit 1; done"
	check "the kernel log has no finding" kt_kmsg_clean
}

trap teardown EXIT
main
