#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Linux kernel initiator (open-iscsi) on a ktarget LUN: discovery,
# login, mkfs.ext4, files written and checksummed, logout, login again,
# checksums verified.
. ./lib.sh

# The raw disk (64 MiB), the filesystem done with. The first half holds
# one pattern, which writes of every size and alignment keep writing again
# while reads check it; the second half takes other data. An rd write of
# whole pages trades them for the medium's, and the old pages go on to other
# commands: a read copying from one reused meanwhile would see other data.
rewrite_while_read() {
	local disk=$1 pat=--verify_pattern=0x6b74a55a
	local io="--filename=$disk --allow_file_create=0 --direct=1
		--ioengine=libaio --iodepth=8"

	check "fio: the pattern over the first 32 MiB" \
		fio --output=/dev/null $io --name=fill --rw=write --bs=1m \
			--size=32m --verify=pattern $pat --do_verify=0
	check "fio: reads see only the pattern while it is written again" \
		fio --output=/dev/null $io --time_based --runtime=6 \
			--name=pages --rw=randwrite --bsrange=4k-256k \
			--blockalign=4k --size=32m --verify=pattern $pat --do_verify=0 \
			--name=blocks --rw=randwrite --bsrange=512-64k \
			--blockalign=512 --size=32m --verify=pattern $pat --do_verify=0 \
			--name=other --rw=randwrite --bsrange=4k-256k \
			--offset=32m --size=32m --refill_buffers \
			--name=check --rw=randread --bsrange=512-256k \
			--blockalign=512 --size=32m --verify=pattern $pat
	check "fio: the first 32 MiB still hold the pattern" \
		fio --output=/dev/null $io --name=after --rw=read --bs=1m \
			--size=32m --verify=pattern $pat
}

main() {
	local p=127.0.0.1:3260 disk mnt=/mnt/kt

	if ! command -v iscsiadm >/dev/null; then
		skip_all "open-iscsi: iscsiadm not installed"
		return
	fi
	plan 18
	check "target set up" kt_iscsi_setup
	check "iscsid starts" kt_iscsid_start
	check "discovery finds the target" sh -c \
		"iscsiadm -m discovery -t st -p $p | grep -q $KT_IQN"
	check "login" iscsiadm -m node -T $KT_IQN -p $p --login
	disk=$(kt_iscsi_disk)
	check "a disk appears" test -b "$disk"
	# as LIO: param/MaxXmitDataSegmentLength is what the target receives
	check "Data-Out PDUs up to 256 KiB (MaxXmitDataSegmentLength 262144)" sh -c \
		"iscsiadm -m session -P 3 | grep -q 'MaxXmitDataSegmentLength: 262144'"
	check "mkfs.ext4" mkfs.ext4 -q -F "$disk"
	mkdir -p $mnt
	check "mount" mount "$disk" $mnt
	check "write files" sh -c "for i in 1 2 3 4; do head -c 3000000 /dev/urandom > $mnt/f\$i; done; sync"
	(cd $mnt && sha256sum f1 f2 f3 f4 > /tmp/kt-sums)
	check "umount" umount $mnt
	check "logout" iscsiadm -m node -T $KT_IQN -p $p --logout
	check "login again" iscsiadm -m node -T $KT_IQN -p $p --login
	disk=$(kt_iscsi_disk)
	check "mount again" mount "$disk" $mnt
	check "checksums match after logout and login" sh -c "cd $mnt && sha256sum -c --quiet /tmp/kt-sums"
	umount $mnt 2>/dev/null
	rewrite_while_read "$disk"
	iscsiadm -m node -T $KT_IQN -p $p --logout >/dev/null 2>&1
	iscsiadm -m node -o delete >/dev/null 2>&1
	kt_iscsi_teardown
	check "rmmod ktarget_iscsi" rmmod ktarget_iscsi
}

main "$@"
