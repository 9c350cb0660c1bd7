#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# xcopy.sh [--mib N] [--rounds N] [--pairs "rd fileio xfs iblock brd"]
#          [--stacks "ktarget lio"] [--depth N]: EXTENDED COPY (LID1) and token copy (ODX)
# throughput, ktarget against in-tree LIO (LID1 only: LIO has no ODX), in
# one guest:
#
#   tools/testing/vm/run.sh --name bench-xcopy --mem 3G tools/testing/bench/xcopy.sh
#
# For each stack and each backstore pair (rd -> rd, fileio -> fileio on
# tmpfs, fileio -> fileio on XFS, which shares extents, iblock -> iblock on
# zram, as the LIO XCOPY patch series measured, and on brd)
# it exports two devices of N MiB (256 by default) as LUN 0 and LUN 1 of one
# iSCSI target, fills the source through the kernel initiator, times the
# copy of the whole device (one EXTENDED COPY per 16 MiB segment, sent by
# tools/testing/selftests/xcopy.py through SG_IO) and checks it; on
# ktarget, then the same copy by token (POPULATE TOKEN, RRTI, WRITE USING
# TOKEN, RRTI: tools/testing/selftests/odx.py), checked too. Every copy
# goes to a destination written with zeroes just before. The guest's
# copy ceiling of the pair is dd between the two backing stores (O_DIRECT
# where they take it, 16 MiB blocks; rd: between two tmpfs files, memory
# to memory). Writes /ktout/xcopy-results.txt: pair, ktarget LID1 and ODX
# GB/s, LIO GB/s, the ratios, the ceiling and each figure's fraction of it,
# and for each stack's LID1 copy the guest's CPU seconds per GiB and how
# many CPUs were busy on average (the work per byte, whatever the depth). With
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
PAIRS="rd fileio xfs iblock brd"
STACKS="ktarget lio"
DEPTH=
XFS=/mnt/kt-xcopy-xfs
declare -A GBS CPU

log() { echo "bench-xcopy: $*" >&2; }

stack_up() {
	kt_stack_up "$1" || return 1
	# --depth: ktarget_core's xcopy_depth, for a comparison
	if [ "$1" = ktarget ] && [ -n "$DEPTH" ]; then
		echo "$DEPTH" > /sys/module/ktarget_core/parameters/xcopy_depth
	fi
}

stack_down() { kt_stack_down "$1"; }

# dev_up KIND HBA NAME N: a device of KIND, the Nth of its pair
dev_up() {
	local d=$KT_CFS/core/$2/$3 ctl
	case $1 in
	rd) ctl="rd_pages=$((MIB * 256))" ;;
	fileio) ctl="fd_dev_name=/dev/shm/kt-xcopy-$4.img,fd_dev_size=$((MIB * 1048576))" ;;
	xfs) ctl="fd_dev_name=$XFS/kt-xcopy-$4.img,fd_dev_size=$((MIB * 1048576))" ;;
	iblock) ctl="udev_path=/dev/zram$4" ;;
	brd) ctl="udev_path=/dev/ram$4" ;;
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
	iblock) echo "iblock/zram" ;;
	brd) echo "iblock/brd" ;;
	*) echo "$1" ;;
	esac
}

hba_of() {
	case $1 in
	rd) echo rd_mcp_0 ;;
	fileio) echo fileio_0 ;;
	xfs) echo fileio_1 ;;
	iblock) echo iblock_0 ;;
	brd) echo iblock_1 ;;
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
	if [ "$kind" = brd ]; then
		modprobe brd rd_nr=2 rd_size=$((MIB * 1024)) || return 1
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
	if [ "$kind" = brd ]; then
		rmmod brd 2>/dev/null
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
# names LIO's devices by a designator LIO refuses). Prints the nanoseconds
# it took and the CPU nanoseconds the guest spent busy meanwhile (all CPUs).
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
	out=${out##*cpu_ns=}
	echo "${out##*ns=} ${out%% *}"
}

# odx_all G0 G1: copy all of G0 onto G1 by token; prints nanoseconds
odx_all() {
	local out
	if ! out=$($PY "$here/../selftests/odx.py" copy "$1" 0 "$2" 0 $((MIB * 1048576))); then
		printf '%s\n' "$out" | tail -5 >&2
		return 1
	fi
	echo "${out##*ns=}"
}

# ceiling KIND: GB/s of dd between the pair's two backing stores
ceiling() {
	local a b flags="iflag=direct oflag=direct" t0 t1
	case $1 in
	rd) a=/dev/shm/kt-ceil-0; b=/dev/shm/kt-ceil-1; flags=
	    head -c $((MIB * 1048576)) /dev/zero > $a ;;
	fileio) a=/dev/shm/kt-xcopy-0.img; b=/dev/shm/kt-xcopy-1.img; flags= ;;
	xfs) a=$XFS/kt-xcopy-0.img; b=$XFS/kt-xcopy-1.img ;;
	iblock) a=/dev/zram0; b=/dev/zram1 ;;
	brd) a=/dev/ram0; b=/dev/ram1 ;;
	esac
	t0=$(date +%s%N)
	# shellcheck disable=SC2086
	dd if=$a of=$b bs=16M count=$((MIB / 16)) conv=notrunc,fsync $flags status=none || return 1
	t1=$(date +%s%N)
	rm -f /dev/shm/kt-ceil-0 /dev/shm/kt-ceil-1
	awk -v b=$((MIB * 1048576)) -v ns=$((t1 - t0)) 'BEGIN { printf "%.3f\n", b / ns }'
}

# gbs_of NS: GB/s of the pair's MIB in NS nanoseconds
gbs_of() {
	awk -v b=$((MIB * 1048576)) -v ns="$1" 'BEGIN { printf "%.3f\n", b / ns }'
}

# cpu_of CPU_NS NS: CPU seconds per GiB copied, and how many CPUs were busy
cpu_of() {
	awk -v m=$MIB -v c="$1" -v ns="$2" \
		'BEGIN { printf "%.2f/%.2f\n", c / 1e9 * 1024 / m, c / ns }'
}

# zero_fill G BS: every block of G written (with zeroes) before a copy
# lands on it, so that no copy pays for allocating its destination (tmpfs
# pages, zram slots, XFS extents) and every one meets the same state
zero_fill() {
	sg_dd if=/dev/zero of="$1" bs=$2 bpt=$((1048576 / $2)) \
		count=$((MIB * 1048576 / $2)) >/dev/null 2>&1
}

# copied G1 BS: the destination holds the source
copied() {
	[ "$SRC_SUM" = "$(sg_dd if="$1" of=- bs=$2 bpt=$((1048576 / $2)) \
		count=$((MIB * 1048576 / $2)) 2>/dev/null | md5sum)" ]
}

# measure STACK KIND: prints LID1 GB/s, ODX GB/s (ktarget), the ceiling
# (ktarget), or "fail" in place of a figure, and the CPU the LID1 copy took
# (cpu_of)
measure() {
	local stack=$1 kind=$2 g0 g1 ns cpu b bs=512 lid1 odx=- ceil=- lcpu=-
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
	lid1=fail
	zero_fill "$g1" $bs
	if ! read -r ns cpu <<< "$(xcopy_all "$g0" "$g1" $bs)" || [ -z "$cpu" ]; then
		log "$stack $kind: the copy failed"
	elif ! copied "$g1" $bs; then
		log "$stack $kind: the copy differs from its source"
	else
		lid1=$(gbs_of "$ns")
		lcpu=$(cpu_of "$cpu" "$ns")
	fi
	if [ $stack = ktarget ]; then
		odx=fail
		zero_fill "$g1" $bs
		if ! ns=$(odx_all "$g0" "$g1"); then
			log "$stack $kind: the token copy failed"
		elif ! copied "$g1" $bs; then
			log "$stack $kind: the token copy differs from its source"
		else
			odx=$(gbs_of "$ns")
		fi
		ceil=$(ceiling "$kind") || ceil=fail
	fi
	echo "$lid1 $odx $ceil $lcpu"
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

# run_stack STACK ROUND: every pair on STACK, each cell keeping its best;
# the CPU figure is the one of the best LID1 round
run_stack() {
	local stack=$1 kind lid1 odx ceil cpu
	stack_up $stack || { log "$stack: load failed"; return; }
	for kind in $PAIRS; do
		read -r lid1 odx ceil cpu <<< "$(measure $stack "$kind")"
		[ "$(best "${GBS[$stack-$kind]:-}" "$lid1")" = "${GBS[$stack-$kind]:-}" ] ||
			CPU[$stack-$kind]=$cpu
		GBS[$stack-$kind]=$(best "${GBS[$stack-$kind]:-}" "$lid1")
		log "round $2: $stack $kind -> $kind: LID1 $lid1 GB/s, CPU s/GiB / CPUs busy $cpu"
		if [ $stack = ktarget ]; then
			GBS[odx-$kind]=$(best "${GBS[odx-$kind]:-}" "$odx")
			GBS[ceil-$kind]=$(best "${GBS[ceil-$kind]:-}" "$ceil")
			log "round $2: $stack $kind -> $kind: ODX $odx GB/s, ceiling $ceil GB/s"
		fi
	done
	if [ $stack = ktarget ]; then
		grep -H . $KT_CFS/core/*/*/statistics/xcopy/* >&2 2>/dev/null
	fi
	stack_down $stack
}

# ratio A B [SUFFIX]: A / B to two places, "-" without both
ratio() {
	awk -v a="$1" -v b="$2" -v s="${3:-}" \
		'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f%s", a / b, s; else print "-" }'
}

main() {
	local round stack order kind a b o c status=0

	while [ $# -gt 0 ]; do
		case $1 in
		--mib) MIB=$2; shift 2 ;;
		--pairs) PAIRS=$2; shift 2 ;;
		--stacks) STACKS=$2; shift 2 ;;
		--rounds) ROUNDS=$2; shift 2 ;;
		--depth) DEPTH=$2; shift 2 ;;
		*) echo "usage: xcopy.sh [--mib N] [--rounds N] [--pairs LIST] [--stacks LIST] [--depth N]" >&2; return 2 ;;
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
		printf '# copies of %d MiB through iSCSI: EXTENDED COPY (LID1, one per 16 MiB segment) and token copy (ODX)\n' "$MIB"
		printf '%-28s %8s %8s %8s %7s %8s %8s %7s %7s %10s %10s\n' pair "kt LID1" "kt ODX" "LIO" \
			"LID1 x" "ODX/LID1" ceiling "LID1/c" "ODX/c" "kt CPU" "LIO CPU"
		for kind in $PAIRS; do
			a=${GBS[ktarget-$kind]:-fail}
			o=${GBS[odx-$kind]:-fail}
			b=${GBS[lio-$kind]:-fail}
			c=${GBS[ceil-$kind]:-fail}
			[ "$a" = fail ] || [ "$o" = fail ] || [ "$b" = fail ] && status=1
			printf '%-28s %8s %8s %8s %7s %8s %8s %7s %7s %10s %10s\n' \
				"$(label $kind) -> $(label $kind)" "$a" "$o" "$b" \
				"$(ratio "$a" "$b" x)" "$(ratio "$o" "$a")" "$c" \
				"$(ratio "$a" "$c")" "$(ratio "$o" "$c")" \
				"${CPU[ktarget-$kind]:--}" "${CPU[lio-$kind]:--}"
		done
		echo "# GB/s = 10^9 bytes per second, best of $ROUNDS round(s), TCG guest;" \
			"xcopy_depth ${DEPTH:-default (4)}"
		echo "# ceiling: dd between the pair's backing stores; /c: fraction of it"
		echo "# CPU: LID1 copy of the best round, guest CPU seconds per GiB /" \
			"CPUs busy on average (of $(nproc)); initiator and target alike"
	} | tee $RES
	return $status
}

main "$@"
