#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Small LIO-parity and CD/DVD gaps (issue 45), through the loopback fabric
# with sg3_utils:
#
# - REPORT IDENTIFYING INFORMATION with INFORMATION TYPE 7Fh returns the
#   identifying information supported parameter data (SPC-4 6.32.3): one
#   4-byte descriptor per type offered with its maximum length.
# - REPORT SUPPORTED OPERATION CODES shows FUA as usable in the CDB usage
#   data of the reads and writes wherever a CDB with FUA is taken (the
#   write cache off), and not where it is refused.
# - PERSISTENT RESERVE OUT TransportIDs (SPEC_I_PT and REGISTER AND MOVE):
#   truncated ones, an ADDITIONAL LENGTH past the list, an iSCSI name
#   without NUL, over 224 bytes or not a multiple of 4, and a TRANSPORTID
#   PARAMETER DATA LENGTH that disagrees are each ILLEGAL REQUEST with
#   PARAMETER LIST LENGTH ERROR or INVALID FIELD IN PARAMETER LIST; the
#   lists come from pr_tid_lists.py, sent with sg_raw.
# - CD/DVD LUs: READ TOC's lead-out and READ TRACK INFORMATION's track size
#   of an image of 8 TiB (a sparse file) saturate at FFFFFFFFh instead of
#   wrapping to 0; an image on a read-only bind mount is served (fileio
#   opens it read-only), whether emulate_cdrom is set before enable or
#   after it as rtslib's restoreconfig does; as a disk, such a file is
#   write-protected.
. ./lib.sh

WWN=naa.5001405000000056
INIT=naa.5001405000000156
TPG=$KT_CFS/loopback/$WWN/tpgt_1
RD=$KT_CFS/core/rd_mcp_0/r0
FDH=$KT_CFS/core/fileio_56
LOG=/ktout/lio-small.log
PRL=/tmp/kt-prl
BIG=/tmp/kt-big
RO=/tmp/kt-ro
KEY=0xabc

# lun_node LUN: the sd or sr disk of LUN on the nexus's host, within 20 s
lun_node() { kt_loop_disk "$TPG" "$1"; }

# raw_hex SG LEN CDB...: the data in of CDB, in hex on one line
raw_hex() {
	local sg=$1 len=$2
	shift 2
	rm -f /tmp/kt-raw
	sg_raw -r "$len" -o /tmp/kt-raw "$sg" "$@" >> $LOG 2>&1 &&
		od -An -tx1 -v /tmp/kt-raw | tr -s ' \n' ' ' | sed 's/^ //; s/ $//'
}

# sense_is WANT CMD...: CMD fails with the additional sense WANT (sg3_utils'
# words), or succeeds when WANT is "good"
sense_is() {
	local want=$1 out st
	shift
	out=$("$@" 2>&1)
	st=$?
	printf '%s\n' "$out" >> $LOG
	if [ "$want" = good ]; then
		[ $st = 0 ] && return 0
	else
		[ $st != 0 ] && printf '%s\n' "$out" | grep -qi "illegal request" &&
			printf '%s\n' "$out" | grep -qi -- "$want" && return 0
	fi
	printf '%s\n' "$out"
	return 1
}

# write_protected CMD...: CMD fails with DATA PROTECT, WRITE PROTECTED
write_protected() {
	local out
	out=$("$@" 2>&1) && { printf '%s\n' "$out"; return 1; }
	printf '%s\n' "$out" | tee -a $LOG | grep -qi 'data protect' &&
		printf '%s\n' "$out" | grep -qi 'write protected'
}

# ---- REPORT IDENTIFYING INFORMATION, INFORMATION TYPE 7Fh ----
rii_supported() {
	local sg=$1 out

	# sg_ident prints each descriptor's byte 0 as it is (type 2 is 04h:
	# the type sits in bits 7..1, as in the CDB) and the first one's length
	out=$(sg_ident -i 127 "$2" 2>&1)
	echo "$out" | sed 's/^/# /'
	check "sg_ident -i 127 succeeds and lists two types" \
		output_has "$out" "Information type: 0," "Information type: 4,"
	check "... and no other" test "$(echo "$out" | grep -c 'Information type')" = 2
	check_eq "the parameter data: length 8, type 0 (at most 0 bytes), 2 (256)" \
		"$(raw_hex "$sg" 64 a3 05 00 00 00 00 00 00 00 40 fe 00)" \
		"00 00 00 08 00 00 00 00 04 00 01 00"
	check_eq "an ALLOCATION LENGTH of 6 cuts it short" \
		"$(raw_hex "$sg" 64 a3 05 00 00 00 00 00 00 00 06 fe 00)" \
		"00 00 00 08 00 00"
}

# ---- RSOC: FUA in the CDB usage data ----
# usage SG OPCODE: the usage data sg_opcodes prints for OPCODE
usage() {
	sg_opcodes -o "$2" "$1" 2>&1 | tee -a $LOG | sed -n 's/.*Usage data: *//p' | sed 's/ *$//'
}

rsoc_fua() {
	local sg=$1

	head -c 512 /dev/urandom > /tmp/kt-blk
	echo 0 > $RD/attrib/emulate_write_cache
	echo 0 > $RD/attrib/emulate_fua_write
	check_eq "WCE=0, DPOFUA=0: WRITE (10)'s usage shows FUA (and FUA_NV), not DPO" \
		"$(usage "$sg" 0x2a)" "2a 0a ff ff ff ff 1f ff ff 00"
	check_eq "... WRITE (12)'s" "$(usage "$sg" 0xaa)" \
		"aa 0a ff ff ff ff ff ff ff ff 1f 00"
	check_eq "... WRITE (16)'s" "$(usage "$sg" 0x8a)" \
		"8a 0a ff ff ff ff ff ff ff ff ff ff ff ff 1f 00"
	check_eq "... READ (10)'s (FUA and RARC, FUA_NV)" "$(usage "$sg" 0x28)" \
		"28 0e ff ff ff ff 1f ff ff 00"
	check_eq "... WRITE AND VERIFY (10)'s: no FUA bit to show" \
		"$(usage "$sg" 0x2e)" "2e 06 ff ff ff ff 1f ff ff 00"
	check "... and a WRITE (10) with FUA is taken" \
		sg_raw -s 512 -i /tmp/kt-blk "$sg" 2a 08 00 00 00 08 00 00 01 00
	check "... a WRITE (10) with DPO, not shown, is refused" \
		sense_is "invalid field in cdb" \
		sg_raw -s 512 -i /tmp/kt-blk "$sg" 2a 10 00 00 00 08 00 00 01 00
	echo 1 > $RD/attrib/emulate_write_cache
	check_eq "WCE=1, DPOFUA=0: WRITE (10)'s usage has no FUA (it is refused)" \
		"$(usage "$sg" 0x2a)" "2a 02 ff ff ff ff 1f ff ff 00"
	echo 1 > $RD/attrib/emulate_fua_write
	check_eq "WCE=1, DPOFUA=1: WRITE (10)'s usage has DPO and FUA" \
		"$(usage "$sg" 0x2a)" "2a 1a ff ff ff ff 1f ff ff 00"
	echo 0 > $RD/attrib/emulate_write_cache
}

# ---- PERSISTENT RESERVE OUT TransportID bounds ----
# pr_reset SG [RESERVE]: no registration and no reservation; with RESERVE,
# the issuer registered with KEY and holding Write Exclusive
pr_reset() {
	{
		sg_persist -n --out --register-ignore --param-sark=$KEY "$1"
		sg_persist -n --out --clear --param-rk=$KEY "$1"
		[ -z "$2" ] || {
			sg_persist -n --out --register-ignore --param-sark=$KEY "$1" &&
				sg_persist -n --out --reserve --param-rk=$KEY --prout-type=1 "$1"
		}
	} >> $LOG 2>&1
}

pr_tid_bounds() {
	local sg=$1 name sa len want hex w out

	python3 ./pr_tid_lists.py $PRL > /tmp/kt-prl.txt 2>>$LOG
	check "pr_tid_lists.py wrote the parameter lists" test -s /tmp/kt-prl.txt
	while read -r name sa len want; do
		hex=$(printf '%08x' "$len" | sed 's/../& /g')
		case $want in
		plle) w="parameter list length error" ;;
		field) w="invalid field in parameter list" ;;
		*) w=good ;;
		esac
		if [ "$sa" = 0 ]; then
			pr_reset "$sg"
			# shellcheck disable=SC2086
			check "SPEC_I_PT REGISTER, $name: $want" sense_is "$w" \
				sg_raw -s "$len" -i $PRL/$name.bin "$sg" 5f 00 00 00 00 $hex 00
		else
			pr_reset "$sg" reserve
			# shellcheck disable=SC2086
			check "REGISTER AND MOVE, $name: $want" sense_is "$w" \
				sg_raw -s "$len" -i $PRL/$name.bin "$sg" 5f 07 01 00 00 $hex 00
		fi
	done < /tmp/kt-prl.txt
	out=$(sg_persist -n -k "$sg" 2>&1)
	echo "$out" | sed 's/^/# /'
	check "after the good move: the issuer and the new holder registered" \
		output_has "$out" "2 registered reservation keys" "0xabc" "0xabd"
	pr_reset "$sg"
}

# ---- CD/DVD: an image of 8 TiB ----
cd_8tib() {
	local cd d sg

	check "an 8 TiB sparse image on a tmpfs, a fileio CD over it, LUN 1" sh -c "
		mkdir -p $BIG && mount -t tmpfs -o size=16m kt-big $BIG &&
		truncate -s 8T $BIG/cd.iso && mkdir -p $FDH/big &&
		echo fd_dev_name=$BIG/cd.iso > $FDH/big/control &&
		echo 1 > $FDH/big/attrib/emulate_cdrom && echo 1 > $FDH/big/enable &&
		mkdir $TPG/lun/lun_1 && ln -s $FDH/big $TPG/lun/lun_1/big"
	d=$(lun_node 1)
	sg=$(sg_of "$d")
	check "its sr device and sg node" test -c "$sg"
	# 2^32 blocks of 2048 bytes: the lead-out's LBA does not fit 32 bits
	check_eq "READ TOC (format 0, track AAh): the lead-out's LBA is FFFFFFFFh, not 0" \
		"$(raw_hex "$sg" 12 43 00 00 00 00 00 aa 00 0c 00)" \
		"00 0a 01 01 00 14 aa 00 ff ff ff ff"
	check_eq "READ TRACK INFORMATION: TRACK SIZE FFFFFFFFh" \
		"$(raw_hex "$sg" 36 52 01 00 00 00 01 00 00 24 00 | cut -d' ' -f25-28)" \
		"ff ff ff ff"
	check_eq "READ TOC in MSF: the lead-out at the last MSF, 255:59:74" \
		"$(raw_hex "$sg" 12 43 02 00 00 00 00 aa 00 0c 00)" \
		"00 0a 01 01 00 14 aa 00 00 ff 3b 4a"
	check "LUN 1 and the 8 TiB CD go" sh -c "rm $TPG/lun/lun_1/big &&
		rmdir $TPG/lun/lun_1 $FDH/big && umount $BIG"
}

# ---- CD/DVD and disks on a read-only file ----
cd_read_only() {
	local d sg out

	check "an image on a read-only bind mount" sh -c "
		mkdir -p $RO.src $RO && mount -t tmpfs -o size=8m kt-ro $RO.src &&
		head -c 1048576 /dev/urandom > $RO.src/cd.iso &&
		mount --bind $RO.src $RO && mount -o remount,bind,ro $RO &&
		! sh -c 'echo x >> $RO/cd.iso' 2>/dev/null"
	mkdir -p $FDH/ro1
	echo fd_dev_name=$RO/cd.iso > $FDH/ro1/control
	echo 1 > $FDH/ro1/attrib/emulate_cdrom
	check "emulate_cdrom=1, then enable: the image is opened read-only" \
		write_attr $FDH/ro1/enable 1
	check "LUN 1 over it" sh -c "mkdir $TPG/lun/lun_1 &&
		ln -s $FDH/ro1 $TPG/lun/lun_1/ro1"
	d=$(lun_node 1)
	sg=$(sg_of "$d")
	check "READ (10) of its first blocks returns the image's" bash -c "
		sg_raw -r 4096 -o /tmp/kt-ro-read $sg 28 00 00 00 00 00 00 00 02 00 &&
		cmp /tmp/kt-ro-read <(head -c 4096 $RO.src/cd.iso)"
	check "its LUN goes" sh -c "rm $TPG/lun/lun_1/ro1 && rmdir $TPG/lun/lun_1"

	# rtslib's order: enable, then the attributes
	mkdir -p $FDH/ro2
	echo fd_dev_name=$RO/cd.iso > $FDH/ro2/control
	check "enable first, as rtslib's restoreconfig: the file is opened read-only" \
		write_attr $FDH/ro2/enable 1
	check "then emulate_cdrom=1, and LUN 1 over it" sh -c "
		echo 1 > $FDH/ro2/attrib/emulate_cdrom && mkdir $TPG/lun/lun_1 &&
		ln -s $FDH/ro2 $TPG/lun/lun_1/ro2"
	d=$(lun_node 1)
	sg=$(sg_of "$d")
	check "READ (10) through it" sg_raw -r 2048 "$sg" 28 00 00 00 00 00 00 00 01 00
	check "its LUN goes, emulate_cdrom=0: a disk again" sh -c "
		rm $TPG/lun/lun_1/ro2 && rmdir $TPG/lun/lun_1 &&
		echo 0 > $FDH/ro2/attrib/emulate_cdrom && mkdir $TPG/lun/lun_1 &&
		ln -s $FDH/ro2 $TPG/lun/lun_1/ro2"
	d=$(lun_node 1)
	sg=$(sg_of "$d")
	check "the disk on the read-only file: WRITE (10) is DATA PROTECT, write protected" \
		write_protected sg_raw -s 512 -i /tmp/kt-blk "$sg" 2a 00 00 00 00 00 00 00 01 00
	out=$(sg_modes -p 0x3f "$sg" 2>&1)
	check "MODE SENSE says WP" output_has "$out" "WP=1"
	check "LUN 1 and the read-only devices go" sh -c "rm $TPG/lun/lun_1/ro2 &&
		rmdir $TPG/lun/lun_1 $FDH/ro1 $FDH/ro2 $FDH && umount $RO && umount $RO.src"
	# the writable case stays read-write (tests/54-cdrom.sh, 53-resize.sh)
}

main() {
	local start_mark d0 sg0

	plan 60
	kmsg_mark
	start_mark=$KT_KMSG_MARK
	: > $LOG
	check "modprobe ktarget_core, sd_mod, sr_mod and sg (no udev loads them here)" \
		sh -c "modprobe ktarget_core && modprobe sd_mod && modprobe sr_mod && modprobe sg"
	check "rd LU, a loopback TPG with it as LUN 0, a nexus" sh -c "
		mkdir -p $RD && echo rd_pages=16384 > $RD/control && echo 1 > $RD/enable &&
		mkdir -p $TPG/lun/lun_0 && ln -s $RD $TPG/lun/lun_0/r0 &&
		echo $INIT > $TPG/nexus"
	d0=$(lun_node 0)
	sg0=$(sg_of "$d0")
	check "LUN 0 is an sd disk with an sg node" test -c "$sg0"
	# the unit attentions of the new nexus
	sg_turs "$sg0" >/dev/null 2>&1
	sg_turs "$sg0" >/dev/null 2>&1

	rii_supported "$sg0" "$d0"
	rsoc_fua "$sg0"
	pr_tid_bounds "$sg0"
	cd_8tib
	cd_read_only

	check "the loopback target goes" sh -c "echo NULL > $TPG/nexus &&
		rm $TPG/lun/lun_0/r0 && rmdir $TPG/lun/lun_0 $TPG $KT_CFS/loopback/$WWN &&
		rmdir $KT_CFS/loopback"
	check "no object left" kt_objects_zero
	check "rmdir the rd LU" rmdir $RD $KT_CFS/core/rd_mcp_0
	check "rmmod the modules" sh -c "rmmod ktarget_loop 2>/dev/null;
		rmmod ktarget_fileio ktarget_rd ktarget_core 2>/dev/null;
		! grep -q '^ktarget' /proc/modules"
	KT_KMSG_MARK=$start_mark
	check "the kernel log shows no finding" kt_kmsg_clean
}

main "$@"
