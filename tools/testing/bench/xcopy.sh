#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# xcopy.sh [--mib N] [--rounds N] [--pairs "rd fileio xfs iblock"]
#          [--stacks "ktarget lio"]: EXTENDED COPY throughput, ktarget against in-tree LIO,
# in one guest:
#
#   tools/testing/vm/run.sh --name bench-xcopy --mem 3G tools/testing/bench/xcopy.sh
#
# For each stack and each backstore pair (rd -> rd, fileio -> fileio on
# tmpfs, fileio -> fileio on XFS, which shares extents, iblock -> iblock on
# zram, as the LIO XCOPY patch series measured)
# it exports two devices of N MiB (256 by default) as LUN 0 and LUN 1 of one
# iSCSI target, fills the source through the kernel initiator, times the
# copy of the whole device (one EXTENDED COPY per 16 MiB segment, sent by
# tools/testing/selftests/xcopy.py through SG_IO) and checks it. Writes
# /ktout/xcopy-results.txt: pair, ktarget GB/s, LIO GB/s, ratio. With
# --rounds N (2 by default) every cell is measured N times, the stacks in
# turn going first, and keeps its best figure; guest memory is touched once
# before the first round (kt_warm_memory). Exit status 1 when a cell failed.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../selftests/lib.sh
. "$here/../selftests/lib.sh"

MIB=256
ROUNDS=2
OUT=/ktout
RES=$OUT/xcopy-results.txt
SRC=/dev/shm/kt-xcopy-src
PORTAL=127.0.0.1:3260
PY=/usr/bin/python3
TPG=$KT_CFS/iscsi/$KT_IQN/tpgt_1
PAIRS="rd fileio xfs iblock"
STACKS="ktarget lio"
XFS=/mnt/kt-xcopy-xfs
declare -A GBS

log() { echo "bench-xcopy: $*" >&2; }

stack_up() {
	case $1 in
	ktarget) modprobe ktarget_core ;;
	lio)
		mkdir -p /var/target/pr /var/target/alua
		modprobe target_core_mod && modprobe iscsi_target_mod ;;
	esac
}

stack_down() {
	case $1 in
	ktarget)
		rmmod ktarget_iscsi ktarget_rd ktarget_fileio ktarget_iblock 2>/dev/null
		rmmod ktarget_core ;;
	lio)
		modprobe -r iscsi_target_mod
		for m in $(awk '$1 == "target_core_mod" { gsub(",", " ", $4); print $4 }' /proc/modules); do
			[ "$m" = - ] || modprobe -r "$m"
		done
		modprobe -r target_core_mod ;;
	esac
}

# dev_up KIND HBA NAME N: a device of KIND, the Nth of its pair
dev_up() {
	local d=$KT_CFS/core/$2/$3 ctl
	case $1 in
	rd) ctl="rd_pages=$((MIB * 256))" ;;
	fileio) ctl="fd_dev_name=/dev/shm/kt-xcopy-$4.img,fd_dev_size=$((MIB * 1048576))" ;;
	xfs) ctl="fd_dev_name=$XFS/kt-xcopy-$4.img,fd_dev_size=$((MIB * 1048576))" ;;
	iblock) ctl="udev_path=/dev/zram$4" ;;
	esac
	# LIO gives an NAA designator only to a device with a unit serial
	mkdir -p "$d" && echo "$ctl" > "$d/control" &&
		echo "ktxc-$2-$3-$RANDOM" > "$d/wwn/vpd_unit_serial" &&
		echo 1 > "$d/enable"
}

# label KIND: how the results name the pair's devices
label() {
	case $1 in
	fileio) echo "fileio/tmpfs" ;;
	xfs) echo "fileio/xfs" ;;
	*) echo "$1" ;;
	esac
}

hba_of() {
	case $1 in
	rd) echo rd_mcp_0 ;;
	fileio) echo fileio_0 ;;
	xfs) echo fileio_1 ;;
	iblock) echo iblock_0 ;;
	esac
}

pair_up() {
	local kind=$1 hba n
	hba=$(hba_of "$kind")
	if [ "$kind" = iblock ]; then
		modprobe zram num_devices=2 || return 1
		for n in 0 1; do
			echo $((MIB * 1048576)) > /sys/block/zram$n/disksize || return 1
		done
	fi
	if [ "$kind" = xfs ]; then
		command -v mkfs.xfs >/dev/null || { log "xfs: no mkfs.xfs (xfsprogs)"; return 1; }
		modprobe loop && modprobe xfs && mkdir -p $XFS &&
			truncate -s $((MIB * 2 + 320))M /dev/shm/kt-xcopy-xfs.img &&
			mkfs.xfs -q -f /dev/shm/kt-xcopy-xfs.img &&
			mount -o loop /dev/shm/kt-xcopy-xfs.img $XFS || return 1
	fi
	for n in 0 1; do
		dev_up "$kind" "$hba" x$n $n || return 1
		mkdir -p $TPG/lun/lun_$n || return 1
		ln -s $KT_CFS/core/$hba/x$n $TPG/lun/lun_$n/x$n || return 1
	done
	mkdir $TPG/np/$PORTAL &&
		echo 0 > $TPG/attrib/authentication &&
		echo 1 > $TPG/attrib/generate_node_acls &&
		echo 0 > $TPG/attrib/demo_mode_write_protect &&
		echo 1 > $TPG/enable
}

pair_down() {
	local kind=$1 hba n
	hba=$(hba_of "$kind")
	[ -e $TPG/enable ] && echo 0 > $TPG/enable
	rmdir $TPG/np/$PORTAL 2>/dev/null
	for n in 0 1; do
		rm -f $TPG/lun/lun_$n/x$n
		rmdir $TPG/lun/lun_$n 2>/dev/null
		rmdir $KT_CFS/core/$hba/x$n 2>/dev/null
		rm -f /dev/shm/kt-xcopy-$n.img
	done
	rmdir $KT_CFS/core/$hba $TPG $KT_CFS/iscsi/$KT_IQN $KT_CFS/iscsi 2>/dev/null
	if [ "$kind" = xfs ]; then
		rm -f $XFS/kt-xcopy-*.img
		umount $XFS 2>/dev/null
		rm -f /dev/shm/kt-xcopy-xfs.img
	fi
	if [ "$kind" = iblock ]; then
		rmmod zram 2>/dev/null
	fi
	return 0
}

# lun_sg N: the sg node of LUN N of the logged-in session
lun_sg() {
	local d g i
	for i in $(seq 1 50); do
		for d in /sys/class/iscsi_session/session*/device/target*/*:$1/scsi_generic/*; do
			[ -e "$d/dev" ] || continue
			g=/dev/${d##*/}
			[ -c "$g" ] || mknod "$g" c $(tr ':' ' ' < "$d/dev")
			echo "$g"
			return 0
		done
		sleep 0.2
	done
	return 1
}

# xcopy_all G0 G1 BS: copy all of G0 onto G1, one EXTENDED COPY (LID1) per
# 16 MiB segment, sent to G1 (tools/testing/selftests/xcopy.py: sg_xcopy
# names LIO's devices by a designator LIO refuses). Prints nanoseconds.
xcopy_all() {
	local blocks=$((16777216 / $3)) i segs=() out
	for i in $(seq 0 $((MIB / 16 - 1))); do
		segs+=("0:1:$blocks:$((i * blocks)):$((i * blocks))")
	done
	if ! out=$($PY "$here/../selftests/xcopy.py" copy --split "$2" "$1" "$2" -- "${segs[@]}"); then
		printf '%s\n' "$out" | tail -5 >&2
		dmesg | grep -i copy | tail -3 >&2
		return 1
	fi
	echo "${out##*ns=}"
}

# measure STACK KIND: prints GB/s, or "fail"
measure() {
	local stack=$1 kind=$2 g0 g1 ns b bs=512
	pair_up "$kind" || { log "$stack $kind: setup failed"; echo fail; return; }
	iscsiadm -m discovery -t st -p $PORTAL >/dev/null 2>&1
	if ! iscsiadm -m node -T $KT_IQN -p $PORTAL --login >/dev/null 2>&1 ||
	   ! g0=$(lun_sg 0) || ! g1=$(lun_sg 1); then
		log "$stack $kind: login failed"
		echo fail
		return
	fi
	# zram has 4096-byte blocks
	[ "$kind" = iblock ] && bs=4096
	sg_dd if=$SRC of="$g0" bs=$bs bpt=$((1048576 / bs)) >/dev/null 2>&1
	if ! ns=$(xcopy_all "$g0" "$g1" $bs); then
		log "$stack $kind: the copy failed"
		echo fail
	else
		b=$(sg_dd if="$g1" of=- bs=$bs bpt=$((1048576 / bs)) count=$((MIB * 1048576 / bs)) 2>/dev/null | md5sum)
		if [ "$SRC_SUM" != "$b" ]; then
			log "$stack $kind: the copy differs from its source"
			echo fail
		else
			awk -v b=$((MIB * 1048576)) -v ns=$ns 'BEGIN { printf "%.3f\n", b / ns }'
		fi
	fi
	iscsiadm -m node --logoutall=all >/dev/null 2>&1
	iscsiadm -m node -o delete >/dev/null 2>&1
	pair_down "$kind"
}

# best A B: the larger figure; "fail" only when both are
best() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "" || a == "fail") print (b == "" ? "fail" : b);
		else if (b == "fail" || b == "" || a + 0 >= b + 0) print a;
		else print b }'
}

# run_stack STACK ROUND: every pair on STACK, each cell keeping its best
run_stack() {
	local stack=$1 kind v
	stack_up $stack || { log "$stack: load failed"; return; }
	for kind in $PAIRS; do
		v=$(measure $stack "$kind")
		GBS[$stack-$kind]=$(best "${GBS[$stack-$kind]:-}" "$v")
		log "round $2: $stack $kind -> $kind: $v GB/s"
	done
	if [ $stack = ktarget ]; then
		grep -H . $KT_CFS/core/*/*/statistics/xcopy/* >&2 2>/dev/null
	fi
	stack_down $stack
}

main() {
	local round stack order kind a b status=0

	while [ $# -gt 0 ]; do
		case $1 in
		--mib) MIB=$2; shift 2 ;;
		--pairs) PAIRS=$2; shift 2 ;;
		--stacks) STACKS=$2; shift 2 ;;
		--rounds) ROUNDS=$2; shift 2 ;;
		*) echo "usage: xcopy.sh [--mib N] [--rounds N] [--pairs LIST] [--stacks LIST]" >&2; return 2 ;;
		esac
	done
	kt_iscsid_start || { log "iscsid"; return 1; }
	modprobe sg
	head -c $((MIB * 1048576)) /dev/urandom > $SRC
	SRC_SUM=$(md5sum < $SRC)
	kt_warm_memory
	order=$STACKS
	for round in $(seq 1 "$ROUNDS"); do
		for stack in $order; do
			run_stack $stack $round
		done
		# the next round starts with the stack that went last
		order=$(echo "$order" | awk '{ for (i = NF; i > 0; i--) printf "%s ", $i }')
	done
	rm -f $SRC

	{
		printf '# EXTENDED COPY of %d MiB through iSCSI (one EXTENDED COPY per 16 MiB segment)\n' "$MIB"
		printf '%-30s %10s %10s %8s\n' pair "ktarget" "LIO" ratio
		for kind in $PAIRS; do
			a=${GBS[ktarget-$kind]:-fail}
			b=${GBS[lio-$kind]:-fail}
			[ "$a" = fail ] || [ "$b" = fail ] && status=1
			printf '%-30s %10s %10s %8s\n' "$(label $kind) -> $(label $kind)" "$a" "$b" \
				"$(awk -v a="$a" -v b="$b" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2fx", a / b; else print "-" }')"
		done
		echo "# GB/s = 10^9 bytes per second, best of $ROUNDS round(s), TCG guest"
	} | tee $RES
	return $status
}

main "$@"
