#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest.sh [--runtime SEC] [--pages N] [--rounds N] [--only REGEX] [--profile]
#          [--lio-submit-type N]
#
# The ktarget / LIO side-by-side benchmark, guest side: tools/testing/bench/run.sh
# boots the guest and runs this. For each target stack in turn (ktarget, then
# the kernel's own LIO), it builds the same iSCSI target through configfs (an
# rd LUN of N pages, 1 GiB by default, behind one IQN on 127.0.0.1:3260, demo
# mode), measures it with libiscsi's iscsi-perf and with fio through the
# kernel initiator (open-iscsi), then does both again over iSER (a second
# portal with iser=1 on a soft-RoCE device: ktarget_isert against LIO's
# ib_isert), fio through the kernel's SRP initiator over the same soft-RoCE
# device (ktarget_srpt against ib_srpt), fio on the disk of a loopback target with the same rd LU
# (ktarget_loop against tcm_loop) and on the disk of a loopback target whose
# LU is a user backstore served by Debian's tcmu-runner (user:qcow over a
# raw image in RAM; ktarget_user against target_core_user, the same daemon),
# tears it down and unloads it. Only one stack can own configfs "target" at
# a time.
#
# Writes /ktout/results.txt (the table: test, unit, ktarget, LIO, ratio) and
# every raw output under /ktout/raw/. A test that fails, or a stack that does
# not come up, gives "fail" in its cells; the run goes on. Every step has a
# time limit. With --rounds N, the pair (ktarget, LIO) runs N times, ktarget
# first in odd rounds and LIO first in even ones, and the table keeps each
# cell's best figure (the round least disturbed by whatever else the host
# runs). Guest memory is touched once before the first round, so that
# neither stack pays for QEMU's first touch of guest RAM. Exit status 1 when any cell is "fail".
# --lio-submit-type N writes N to LIO's attrib/submit_type of the rd LU
# (6.10 and later: 0 the fabric's default, 1 direct submission from the
# receive context, 2 queued to a work item); a kernel without it fails LIO.
# --kt-submit-type N and --kt-complete-type N write N to ktarget's
# attrib/submit_type and complete_type of the rd LU and the user LU (the
# same values).

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../selftests/lib.sh
. "$here/../selftests/lib.sh"

OUT=/ktout
RAW=$OUT/raw
TSV=$RAW/results.tsv
RUNTIME=10		# seconds per measurement
ROUNDS=1		# the pair ktarget, LIO, this many times
ROUND=1
PAGES=262144		# 1 GiB of 4 KiB pages
FALLBACK_PAGES=131072	# 512 MiB, when the guest cannot spare 1 GiB
PORTAL=127.0.0.1:3260
PY=/usr/bin/python3
ONLY=			# --only: run the tests whose name matches (grep -E)
PROFILE=0		# --profile: perf profile of each fio test
LIO_SUBMIT_TYPE=	# --lio-submit-type: LIO's attrib/submit_type
KT_SUBMIT_TYPE=		# --kt-submit-type: ktarget's attrib/submit_type
KT_COMPLETE_TYPE=	# --kt-complete-type: ktarget's attrib/complete_type
URL_BASE=iscsi://$PORTAL
REPORT=$here/report.py

# The tests, in table order: NAME TOOL RW BYTES QD UNIT
TESTS=(
	"perf 4k randread QD1    perf randread   4096 1  IOPS"
	"perf 4k randread QD32   perf randread   4096 32 IOPS"
	"perf 1M seqread QD8     perf read    1048576 8  MiB/s"
	"fio 4k randread QD1     fio  randread   4096 1  IOPS"
	"fio 4k randread QD32    fio  randread   4096 32 IOPS"
	"fio 4k randwrite QD32   fio  randwrite  4096 32 IOPS"
	"fio 1M seqread QD8      fio  read    1048576 8  MiB/s"
	"fio 1M seqwrite QD8     fio  write   1048576 8  MiB/s"
)
# iSER over soft-RoCE (rdma_rxe): ktarget_isert against LIO's ib_isert.
# libiscsi's iSER client stays at or below 128 KiB (it crashes on 1 MiB).
ISER_TESTS=(
	"iser-perf 4k randread QD1    perf randread   4096 1  IOPS"
	"iser-perf 4k randread QD32   perf randread   4096 32 IOPS"
	"iser-perf 128k seqread QD8   perf read     131072 8  MiB/s"
	"iser-fio 4k randread QD1     fio  randread   4096 1  IOPS"
	"iser-fio 4k randread QD32    fio  randread   4096 32 IOPS"
	"iser-fio 4k randwrite QD32   fio  randwrite  4096 32 IOPS"
	"iser-fio 1M seqread QD8      fio  read    1048576 8  MiB/s"
	"iser-fio 1M seqwrite QD8     fio  write   1048576 8  MiB/s"
)
ISER_PORTAL=$KT_RDMA_ADDR:3260
# The loopback fabric (ktarget_loop against LIO's tcm_loop): the same rd LU
# as the iSCSI rows, a local SCSI host's sd disk, no network.
LOOP_TESTS=(
	"loop-fio 4k randread QD1     fio  randread   4096 1  IOPS"
	"loop-fio 4k randread QD32    fio  randread   4096 32 IOPS"
	"loop-fio 4k randwrite QD32   fio  randwrite  4096 32 IOPS"
	"loop-fio 1M seqread QD8      fio  read    1048576 8  MiB/s"
	"loop-fio 1M seqwrite QD8     fio  write   1048576 8  MiB/s"
)
# A user backstore served by Debian's tcmu-runner (user:qcow over a raw
# image in the guest's RAM, /dev/shm), through the loopback fabric:
# ktarget_user against LIO's target_core_user, the same daemon.
USER_TESTS=(
	"user-fio 4k randread QD1     fio  randread   4096 1  IOPS"
	"user-fio 4k randread QD32    fio  randread   4096 32 IOPS"
	"user-fio 4k randwrite QD1    fio  randwrite  4096 1  IOPS"
	"user-fio 4k randwrite QD32   fio  randwrite  4096 32 IOPS"
	"user-fio 1M seqread QD8      fio  read    1048576 8  MiB/s"
	"user-fio 1M seqwrite QD8     fio  write   1048576 8  MiB/s"
)
# SRP over the same soft-RoCE device (ktarget_srpt against LIO's ib_srpt):
# the kernel's ib_srp logs in through rdma_cm to a TPG named by the rxe
# port's GID, the rd LU its LUN 0.
SRP_TESTS=(
	"srp-fio 4k randread QD1      fio  randread   4096 1  IOPS"
	"srp-fio 4k randread QD32     fio  randread   4096 32 IOPS"
	"srp-fio 4k randwrite QD32    fio  randwrite  4096 32 IOPS"
	"srp-fio 1M seqread QD8       fio  read    1048576 8  MiB/s"
	"srp-fio 1M seqwrite QD8      fio  write   1048576 8  MiB/s"
)
SRP_PORT=5555
SRP_HOST=/sys/class/infiniband_srp/srp-kt_rxe0-1
LOOP_WWN=naa.5001405000000b01	# the loopback target
LOOP_INIT=naa.5001405000000b02	# its nexus's initiator port
LOOP_TPG=$KT_CFS/loopback/$LOOP_WWN/tpgt_1
USER_IMG=/dev/shm/kt-bench-user.img
USER_MIB=256
RUNNER_PID=
ROWS=TESTS		# the array each_test walks: TESTS, ISER_TESTS, ...

log() { echo "bench: $*" >&2; }

# nap SEC: sleep without forking (polling loops run while measuring): a
# read that times out on an idle FIFO; sleep(1) when that FIFO is missing
nap() { read -r -t "$1" -u 9 2>/dev/null || [ $? -gt 128 ] || sleep "$1"; }

# run_for SEC SIG GRACE CMD...: run CMD (a program or a function); SEC
# seconds in, send it SIG; GRACE seconds later, KILL. A process that even KILL
# does not end (stuck in the kernel) is abandoned 60 s later, so that the run
# goes on. Status: CMD's; 124 when it had to be killed; 125 when abandoned.
run_for() {
	local secs=$1 sig=$2 grace=$3 pid t=0 rc killed=0
	shift 3
	"$@" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		case $((t - secs * 2)) in
		0)
			[ "$sig" = INT ] || log "TIMEOUT after ${secs}s: $*"
			pkill -"$sig" -P "$pid"
			kill -"$sig" "$pid" 2>/dev/null ;;
		$((grace * 2)))
			log "KILL after $((secs + grace))s: $*"
			pkill -KILL -P "$pid"
			kill -KILL "$pid" 2>/dev/null
			killed=1 ;;
		$((grace * 2 + 120)))
			log "ABANDONED (KILL does not end it: stuck in the kernel?): $*"
			return 125 ;;
		esac
		nap 0.5
		t=$((t + 1))
	done
	wait "$pid"
	rc=$?
	[ "$killed" = 1 ] && return 124
	return "$rc"
}

# bounded SEC CMD...: CMD with a time limit of SEC seconds (then TERM, KILL)
bounded() {
	local secs=$1
	shift
	run_for "$secs" TERM 10 "$@"
}

# record STACK TEST UNIT VALUE
record() {
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >> "$TSV"
	if [ "$4" = fail ]; then
		log "$1: $2: fail"
	else
		log "$1: $2: $4 $3"
	fi
}

# --- target stacks --------------------------------------------------------

# rd_up PAGES: core/rd_mcp_0/r0 with PAGES pages, enabled
rd_up() {
	mkdir -p $KT_CFS/core/rd_mcp_0/r0 || return 1
	echo "rd_pages=$1" > $KT_CFS/core/rd_mcp_0/r0/control || return 1
	echo 1 > $KT_CFS/core/rd_mcp_0/r0/enable
}

# fabric_up: the rest of kt_iscsi_setup (lib.sh), for either stack
fabric_up() {
	local tpg=$KT_CFS/iscsi/$KT_IQN/tpgt_1
	mkdir -p $tpg/lun/lun_0 || return 1
	ln -s $KT_CFS/core/rd_mcp_0/r0 $tpg/lun/lun_0/r0 || return 1
	mkdir $tpg/np/$PORTAL || return 1
	echo 0 > $tpg/attrib/authentication || return 1
	echo 1 > $tpg/attrib/generate_node_acls || return 1
	echo 0 > $tpg/attrib/demo_mode_write_protect || return 1
	echo 1 > $tpg/enable
}

# stack_up STACK: load STACK, check that it owns configfs target, build the target
stack_up() {
	local stack=$1 banner
	case $stack in
	ktarget)
		bounded 60 modprobe ktarget_core || return 1
		banner='^ktarget Core' ;;
	lio)
		# LIO keeps PR and ALUA metadata there
		mkdir -p /var/target/pr /var/target/alua
		bounded 60 modprobe target_core_mod || return 1
		bounded 60 modprobe iscsi_target_mod || return 1
		banner='^Target Engine Core' ;;
	esac
	if ! grep -q "$banner" $KT_CFS/version; then
		log "$stack: configfs target belongs to: $(head -1 $KT_CFS/version 2>&1)"
		return 1
	fi
	if ! bounded 300 rd_up "$PAGES"; then
		log "$stack: rd LUN of $PAGES pages failed; retrying with $FALLBACK_PAGES"
		bounded 60 rmdir $KT_CFS/core/rd_mcp_0/r0
		[ "$PAGES" = "$FALLBACK_PAGES" ] && return 1
		PAGES=$FALLBACK_PAGES
		bounded 300 rd_up "$PAGES" || return 1
	fi
	if [ "$stack" = lio ] && [ -n "$LIO_SUBMIT_TYPE" ]; then
		if ! echo "$LIO_SUBMIT_TYPE" > $KT_CFS/core/rd_mcp_0/r0/attrib/submit_type; then
			log "lio: attrib/submit_type=$LIO_SUBMIT_TYPE refused (before 6.10 LIO has none)"
			return 1
		fi
		log "lio: attrib/submit_type=$(cat $KT_CFS/core/rd_mcp_0/r0/attrib/submit_type)"
	fi
	[ "$stack" = ktarget ] && { kt_hop_attrs $KT_CFS/core/rd_mcp_0/r0 || return 1; }
	bounded 120 fabric_up || return 1
	case $stack in
	ktarget) grep -q '^ktarget_iscsi ' /proc/modules ;;
	lio) grep -q '^iscsi_target_mod ' /proc/modules ;;
	esac
}

# stack_down STACK: configfs teardown in reverse, then unload
stack_down() {
	local stack=$1
	bounded 120 kt_iscsi_teardown "$KT_IQN" "${PORTAL##*:}"
	case $stack in
	ktarget)
		bounded 60 rmmod ktarget_iscsi
		bounded 60 rmmod ktarget_rd
		bounded 60 rmmod ktarget_core ;;
	lio)
		# target_core_mod loads every LIO backstore on first use
		bounded 60 modprobe -r iscsi_target_mod
		for m in $(awk '$1 == "target_core_mod" { gsub(",", " ", $4); print $4 }' /proc/modules); do
			[ "$m" = - ] || bounded 60 modprobe -r "$m"
		done
		bounded 60 modprobe -r target_core_mod ;;
	esac
	if [ -e $KT_CFS ]; then
		log "$stack: still loaded after teardown:"
		grep -E '^(ktarget_|target_core|iscsi_target)' /proc/modules
		return 1
	fi
}

# --- measurements -----------------------------------------------------------

# perf_test STACK NAME RW BYTES QD UNIT: libiscsi's iscsi-perf (READ16 only)
perf_test() {
	local stack=$1 name=$2 rw=$3 bytes=$4 qd=$5 unit=$6 f v rnd=()
	f=$RAW/r$ROUND-$stack-${name// /-}.txt
	[ "$rw" = randread ] && rnd=(-r)
	# -l: one progress line per second, each with the average since the
	# start. Stopped by SIGINT after RUNTIME s (its own -t never stops when
	# a second passes without a completion), it lets the commands in flight
	# finish and prints "finished."; the last average is the result.
	run_for "$RUNTIME" INT 60 iscsi-perf -l -m "$qd" -b $((bytes / 512)) "${rnd[@]}" \
		"$URL_BASE/$KT_IQN/0" > "$f" 2>&1
	echo "# exit $?" >> "$f"
	v=$($PY "$REPORT" perf "$f" "$bytes" "$unit") || v=fail
	record "$stack" "$name" "$unit" "$v"
}

# fio_test STACK NAME RW BYTES QD UNIT DISK: fio through the kernel initiator
fio_test() {
	local stack=$1 name=$2 rw=$3 bytes=$4 qd=$5 unit=$6 disk=$7 f v side=r
	f=$RAW/r$ROUND-$stack-${name// /-}
	case $rw in *write) side=w ;; esac
	if [ -b "$disk" ]; then
		counters > "$f.counters"
		bounded $((RUNTIME + 90)) PROFILED fio --name="${name// /-}" --filename="$disk" \
			--direct=1 --ioengine=libaio --rw="$rw" --bs="$bytes" \
			--iodepth="$qd" --numjobs=1 --time_based --runtime="$RUNTIME" \
			--ramp_time=2 --norandommap --randrepeat=0 \
			--output-format=json --output="$f.json" > "$f.log" 2>&1
		echo "# exit $?" >> "$f.log"
		counters >> "$f.counters"
		profile_end "$f"
		v=$($PY "$REPORT" fio "$f.json" "$side" "$unit" 2>>"$f.log") || v=fail
		counters_report "$f.counters" "$v" > "$f.counters.txt"
		rm -f "$f.counters"
	else
		v=fail
	fi
	record "$stack" "$name" "$unit" "$v"
}

# counters: one line of what the guest's CPUs did so far: context switches,
# rescheduling and function-call IPIs, timer interrupts, idle and all ticks
counters() {
	awk '$1 == "ctxt" { c = $2 }
	     $1 == "cpu" { for (i = 2; i <= NF; i++) t += $i; idle = $5 + $6 }
	     END { printf "%d %d %d ", c, idle, t }' /proc/stat
	awk '$1 ~ /^(RES|CAL|LOC):$/ { s = 0
		for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i
		v[$1] = s }
	     END { printf "%d %d %d\n", v["RES:"], v["CAL:"], v["LOC:"] }' /proc/interrupts
}

# counters_report FILE VALUE: the two lines of FILE as rates per second and,
# for an IOPS figure VALUE, per I/O: where a stack makes the guest's CPUs
# switch and wake each other (under TCG, a wakeup costs far more than on
# hardware)
counters_report() {
	awk -v iops="$2" 'NR == 1 { for (i = 1; i <= 6; i++) a[i] = $i }
	     NR == 2 { for (i = 1; i <= 6; i++) d[i] = $i - a[i] }
	     END {
		secs = d[3] / 100 / '"$(nproc)"'
		if (secs <= 0) exit 1
		printf "seconds %.1f, guest CPUs idle %.0f%%\n", secs, 100 * d[2] / d[3]
		split("ctxt RES CAL LOC", n)
		for (i = 1; i <= 4; i++) {
			j = i == 1 ? 1 : i + 2
			printf "%-5s %10.0f/s", n[i], d[j] / secs
			if (iops + 0 > 0)
				printf " %8.2f per I/O", d[j] / secs / iops
			printf "\n"
		}
	     }' "$1"
}

# picked NAME: is test NAME to run (--only)?
picked() {
	[ -z "$ONLY" ] || grep -qE -- "$ONLY" <<< "$1"
}

# any_picked LIST: is a test of the array named LIST to run?
any_picked() {
	local -n l=$1
	local t
	for t in "${l[@]}"; do
		read -ra w <<< "$t"
		picked "${w[*]:0:4}" && return 0
	done
	return 1
}

# PROFILED CMD...: CMD, under perf sampling every CPU while it runs when
# --profile asked for it (the sampling covers the test itself, not a
# fixed window beside it: fio's start-up under TCG takes seconds);
# profile_end PREFIX: PREFIX.profile.txt gets where the time went, by task
# and by function, and the call chains of the hottest functions
PROFILED() {
	if [ "$PROFILE" = 1 ]; then
		perf record -a -g -F 499 -o /tmp/kt-bench.perf -- "$@"
	else
		"$@"
	fi
}

profile_end() {
	[ "$PROFILE" = 1 ] || return 0
	{
		perf report -i /tmp/kt-bench.perf --stdio -n --sort comm -g none
		perf report -i /tmp/kt-bench.perf --stdio -n --no-children \
			--sort comm,sym -g none | head -120
		# who called the hottest symbols (1.5 % of the samples or more)
		perf report -i /tmp/kt-bench.perf --stdio --no-children \
			--sort comm,sym --percent-limit 1.5 -g caller,0.5,callee | head -400
	} > "$1.profile.txt" 2>/dev/null
	rm -f /tmp/kt-bench.perf
}

# each_test TOOL FUNC ARGS...: FUNC STACK... for every test of TOOL in the
# array named by ROWS
each_test() {
	local tool=$1 fn=$2 stack=$3 t w
	shift 3
	local -n list=$ROWS
	for t in "${list[@]}"; do
		read -ra w <<< "$t"
		[ "${w[4]}" = "$tool" ] || continue
		picked "${w[*]:0:4}" || continue
		"$fn" "$stack" "${w[*]:0:4}" "${w[5]}" "${w[6]}" "${w[7]}" "${w[8]}" "$@"
	done
}

fail_test() {	# fail_test STACK NAME RW BYTES QD UNIT
	record "$1" "$2" "$6" fail
}

# ini_login [PORTAL IFACE]: discovery and login with open-iscsi; prints the disk
ini_login() {
	local d p=${1:-$PORTAL} iface=${2:-default}
	bounded 60 iscsiadm -m discovery -t st -p "$p" -I "$iface" | grep -q "$KT_IQN" || return 1
	bounded 60 iscsiadm -m node -T $KT_IQN -p "$p" -I "$iface" --login >&2 || return 1
	for _ in $(seq 1 120); do
		for d in /sys/class/iscsi_session/session*/device/target*/*/block/*; do
			if [ -e "$d" ]; then
				# measure the target, not the I/O scheduler
				echo none > "$d/queue/scheduler" 2>/dev/null
				echo "/dev/$(basename "$d")"
				return 0
			fi
		done
		nap 0.5
	done
	return 1
}

ini_logout() {
	local p=${1:-$PORTAL}
	bounded 60 iscsiadm -m node -T $KT_IQN -p "$p" --logout
	bounded 30 iscsiadm -m node -o delete
	bounded 30 iscsiadm -m discoverydb -t st -p "$p" -o delete
	return 0
}

# iser_np STACK 1|0: the iSER portal on the rxe address, made or removed
iser_np() {
	local np=$KT_CFS/iscsi/$KT_IQN/tpgt_1/np/$ISER_PORTAL
	if [ "$2" = 1 ]; then
		mkdir "$np" && echo 1 > "$np/iser"
	else
		[ -e "$np/iser" ] && echo 0 > "$np/iser"
		rmdir "$np" 2>/dev/null
		case $1 in
		ktarget) rmmod ktarget_isert 2>/dev/null ;;
		lio) modprobe -r ib_isert 2>/dev/null ;;
		esac
		return 0
	fi
}

# run_iser STACK: the iSER rows for a stack that is up
run_iser() {
	local stack=$1 disk
	if [ "$RXE_OK" != 1 ] || ! bounded 60 iser_np "$stack" 1; then
		log "$stack: no iSER portal"
		each_test perf fail_test "$stack"
		each_test fio fail_test "$stack"
		iser_np "$stack" 0
		return
	fi
	URL_BASE=iser://$ISER_PORTAL
	each_test perf perf_test "$stack"
	if [ "$INI_OK" = 1 ] && bounded 60 modprobe ib_iser &&
	   disk=$(ini_login "$ISER_PORTAL" iser); then
		log "$stack: kernel iSER initiator disk $disk"
	else
		log "$stack: open-iscsi login over iSER failed"
		disk=
	fi
	each_test fio fio_test "$stack" "$disk"
	ini_logout "$ISER_PORTAL"
	URL_BASE=iscsi://$PORTAL
	bounded 60 iser_np "$stack" 0
}

# stack_mod STACK load|unload KTARGET_MODULE LIO_MODULE: the stack's module
# of a fabric or backstore loaded, or unloaded (its users gone first)
stack_mod() {
	local m=$3
	[ "$1" = lio ] && m=$4
	case $2 in
	load) bounded 60 modprobe "$m" ;;
	unload) bounded 60 modprobe -r "$m" ;;
	esac
}

# loop_up STACK LU: a loopback target whose LUN 0 is the LU (its configfs
# directory), and its nexus; prints the sd disk the guest makes of it
loop_up() {
	local disk
	stack_mod "$1" load ktarget_loop tcm_loop || return 1
	# the nexus first: LIO adds the SCSI device when the LUN is linked,
	# and a LUN linked before there is a nexus is not scanned again
	mkdir -p "$LOOP_TPG" && echo "$LOOP_INIT" > "$LOOP_TPG/nexus" &&
		mkdir "$LOOP_TPG/lun/lun_0" &&
		ln -s "$2" "$LOOP_TPG/lun/lun_0/${2##*/}" || return 1
	disk=$(kt_loop_disk "$LOOP_TPG" 0) || return 1
	echo none > "/sys/block/${disk#/dev/}/queue/scheduler" 2>/dev/null
	echo "$disk"
}

# loop_down STACK: the loopback target goes, and its module
loop_down() {
	local l
	[ -d "$LOOP_TPG" ] || return 0
	echo NULL > "$LOOP_TPG/nexus" 2>/dev/null
	for l in "$LOOP_TPG"/lun/lun_0/*; do
		[ -L "$l" ] && rm "$l"
	done
	# the fabric's own directory holds its module, as LIO's does
	rmdir "$LOOP_TPG/lun/lun_0" "$LOOP_TPG" "${LOOP_TPG%/*}" "$KT_CFS/loopback" 2>/dev/null
	stack_mod "$1" unload ktarget_loop tcm_loop
	return 0
}

# run_loop STACK: the loopback rows, on the rd LU
run_loop() {
	local stack=$1 disk
	if disk=$(bounded 60 loop_up "$stack" "$KT_CFS/core/rd_mcp_0/r0"); then
		log "$stack: loopback disk $disk"
	else
		log "$stack: loopback target failed"
		disk=
	fi
	each_test fio fio_test "$stack" "$disk"
	bounded 120 loop_down "$stack"
}

# kt_hop_attrs DEV: --kt-submit-type and --kt-complete-type into ktarget's
# LU DEV (a configfs device directory), when given
kt_hop_attrs() {
	[ -n "$KT_SUBMIT_TYPE$KT_COMPLETE_TYPE" ] || return 0
	if ! echo "${KT_SUBMIT_TYPE:-0}" > "$1/attrib/submit_type" ||
	   ! echo "${KT_COMPLETE_TYPE:-0}" > "$1/attrib/complete_type"; then
		log "ktarget: attrib/submit_type or complete_type of $1 refused"
		return 1
	fi
	log "ktarget: $1: attrib/submit_type=$(cat "$1/attrib/submit_type") complete_type=$(cat "$1/attrib/complete_type")"
}

runner_on_bus() {
	dbus-send --system --print-reply --dest=org.freedesktop.DBus / \
		org.freedesktop.DBus.ListNames 2>/dev/null | grep -q TCMUService1
}

# user_up STACK: the user backstore module by LIO's name (ktarget's through
# ktarget's modprobe.d aliases), tcmu-runner, and a user:qcow LU over a raw
# image of USER_MIB MiB, USER_LU (its configfs directory). Not in a
# subshell: RUNNER_PID and lib.sh's D-Bus pid must outlive it.
USER_LU=$KT_CFS/core/user_0/ub
user_up() {
	local conf=/etc/modprobe.d/ktarget-lio-names.conf dev=$USER_LU
	mkdir -p /etc/modprobe.d /run/dbus
	case $1 in
	ktarget) cp "$here/../../ktarget-lio-names.modprobe.conf" $conf ;;
	lio) rm -f $conf ;;
	esac
	bounded 60 modprobe target_core_user || return 1
	kt_dbus_start
	command -v tcmu-runner > /dev/null || return 1
	tcmu-runner -l "$RAW/tcmu-runner-$1" > "$RAW/r$ROUND-$1-tcmu-runner.log" 2>&1 &
	RUNNER_PID=$!
	kt_wait_for 30 runner_on_bus || return 1
	rm -f $USER_IMG
	truncate -s ${USER_MIB}M $USER_IMG || return 1
	# as rtslib makes a user:qcow backstore
	mkdir -p $dev &&
		echo "dev_config=qcow/$USER_IMG,dev_size=$((USER_MIB << 20))" > $dev/control &&
		echo 1 > $dev/enable || return 1
	[ "$1" = ktarget ] && { kt_hop_attrs $dev || return 1; }
	return 0
}

# user_down STACK: the user LU, tcmu-runner and the module go
user_down() {
	local hba=${USER_LU%/*}
	[ -d $USER_LU ] && bounded 60 rmdir $USER_LU
	[ -d $hba ] && rmdir $hba
	if [ -n "$RUNNER_PID" ]; then
		kill "$RUNNER_PID" 2>/dev/null
		kt_wait_for 20 sh -c "! kill -0 $RUNNER_PID 2>/dev/null" || kill -9 "$RUNNER_PID"
		wait "$RUNNER_PID" 2>/dev/null
		RUNNER_PID=
	fi
	kt_dbus_stop
	rm -f $USER_IMG /etc/modprobe.d/ktarget-lio-names.conf
	stack_mod "$1" unload ktarget_user target_core_user
	return 0
}

# run_user STACK: the user backstore rows, through loopback
run_user() {
	local stack=$1 disk=
	if ! user_up "$stack"; then
		log "$stack: user backstore with tcmu-runner failed"
	elif ! disk=$(bounded 60 loop_up "$stack" "$USER_LU"); then
		log "$stack: loopback target of the user LU failed"
		disk=
	else
		log "$stack: user:qcow LU (tcmu-runner) on loopback disk $disk"
	fi
	each_test fio fio_test "$stack" "$disk"
	bounded 120 loop_down "$stack"
	user_down "$stack"
}

# srp_names: SRP_WWN (the rxe port's GID, as rtslib names the port),
# SRP_INIT (the initiator port of ib_srp's login with initiator_ext 0) and
# SRP_GUID (the node GUID, ib_srp's id_ext and ioc_guid)
srp_names() {
	local gid
	gid=$(tr -d ':\n' < /sys/class/infiniband/kt_rxe0/ports/1/gids/0) || return 1
	SRP_GUID=$(tr -d ':\n' < /sys/class/infiniband/kt_rxe0/node_guid) || return 1
	SRP_WWN=0x$gid
	SRP_INIT=0x0000000000000000${gid: -16}
}

# srp_disk: the sd disk of LUN 0 of ib_srp's newest SCSI host, within 30 s
srp_disk() {
	local h d
	for _ in $(seq 1 60); do
		for h in /sys/class/scsi_host/host*; do
			[ "$(cat "$h/proc_name" 2>/dev/null)" = ib_srp ] || continue
			for d in "$h"/device/target*/*:0/block/*; do
				[ -b "/dev/${d##*/}" ] && { echo "/dev/${d##*/}"; return 0; }
			done
		done
		nap 0.5
	done
	return 1
}

# srp_up STACK: the stack's SRP target on the rxe port (srp_names first),
# rd LU as LUN 0, an ACL for ib_srp's login; ib_srp logs in; prints the disk
srp_up() {
	local tpg disk
	stack_mod "$1" load ktarget_srpt ib_srpt || return 1
	bounded 60 modprobe ib_srp || return 1
	tpg=$KT_CFS/srpt/$SRP_WWN/tpgt_1
	mkdir -p "$tpg/lun/lun_0" "$tpg/acls/$SRP_INIT/lun_0" &&
		ln -s "$KT_CFS/core/rd_mcp_0/r0" "$tpg/lun/lun_0/r0" &&
		ln -s "$tpg/lun/lun_0" "$tpg/acls/$SRP_INIT/lun_0/l0" &&
		echo 1 > "$tpg/enable" &&
		echo $SRP_PORT > "$KT_CFS/srpt/discovery_auth/rdma_cm_port" || return 1
	echo "id_ext=$SRP_GUID,ioc_guid=$SRP_GUID,dest=$KT_RDMA_ADDR:$SRP_PORT,initiator_ext=0" \
		> $SRP_HOST/add_target || return 1
	disk=$(srp_disk) || return 1
	echo none > "/sys/block/${disk#/dev/}/queue/scheduler" 2>/dev/null
	echo "$disk"
}

# srp_down STACK: ib_srp logs out, the target goes, and the stack's module
srp_down() {
	local p tpg=$KT_CFS/srpt/$SRP_WWN/tpgt_1
	for p in /sys/class/srp_remote_ports/port-*; do
		[ -e "$p/delete" ] && echo 1 > "$p/delete"
	done
	# the logout ends when ib_srp's hosts are gone; the target's session
	# may take a moment longer, and holds the TPG until it has
	kt_wait_for 30 sh -c '! grep -qx ib_srp /sys/class/scsi_host/host*/proc_name 2>/dev/null'
	bounded 60 modprobe -r ib_srp
	if [ -n "${SRP_WWN:-}" ] && [ -d "$tpg" ]; then
		rm -f "$tpg/acls/$SRP_INIT/lun_0/l0" "$tpg/lun/lun_0/r0"
		rmdir "$tpg/acls/$SRP_INIT/lun_0" "$tpg/lun/lun_0" 2>/dev/null
		kt_wait_for 30 rmdir "$tpg/acls/$SRP_INIT" 2>/dev/null
		rmdir "$tpg" "${tpg%/*}" || log "$1: the SRP target did not go"
	fi
	rmdir "$KT_CFS/srpt"
	stack_mod "$1" unload ktarget_srpt ib_srpt
	return 0
}

# run_srp STACK: the SRP rows, on the rd LU
run_srp() {
	local stack=$1 disk=
	# the names here: srp_up runs in a subshell, srp_down needs them
	if [ "$RXE_OK" != 1 ] || ! srp_names; then
		log "$stack: no soft-RoCE device: no SRP"
	elif disk=$(bounded 90 srp_up "$stack"); then
		log "$stack: SRP disk $disk"
	else
		log "$stack: SRP target or ib_srp login failed"
		disk=
	fi
	each_test fio fio_test "$stack" "$disk"
	bounded 120 srp_down "$stack"
}

# run_stack STACK: everything for one stack; "fail" cells for what did not work
run_stack() {
	local stack=$1 disk size n pfx=$RAW/r$ROUND-$1
	log "===== $stack (round $ROUND of $ROUNDS) ====="
	sync
	echo 3 > /proc/sys/vm/drop_caches
	grep -E '^(MemTotal|MemFree|MemAvailable)' /proc/meminfo > "$pfx-meminfo-before.txt"
	kmsg_mark

	if ! stack_up "$stack"; then
		log "$stack: target setup failed"
		for ROWS in TESTS ISER_TESTS SRP_TESTS LOOP_TESTS USER_TESTS; do
			each_test perf fail_test "$stack"
			each_test fio fail_test "$stack"
		done
		ROWS=TESTS
	else
		printf '#\t%s: rd LUN %d MiB (rd_pages=%d)\n' "$stack" $((PAGES / 256)) "$PAGES" >> "$TSV"
		grep -E '^(MemTotal|MemFree|MemAvailable)' /proc/meminfo > "$pfx-meminfo-up.txt"
		each_test perf perf_test "$stack"

		if ! any_picked TESTS; then
			disk=
		elif [ "$INI_OK" = 1 ] && disk=$(ini_login); then
			size=$(blockdev --getsize64 "$disk" 2>/dev/null)
			log "$stack: kernel initiator disk $disk, $size bytes"
			bounded 30 iscsiadm -m session -P 3 > "$pfx-session.txt" 2>&1
		else
			log "$stack: open-iscsi login failed"
			disk=
		fi
		each_test fio fio_test "$stack" "$disk"
		ini_logout
		ROWS=ISER_TESTS
		any_picked ISER_TESTS && run_iser "$stack"
		ROWS=SRP_TESTS
		any_picked SRP_TESTS && run_srp "$stack"
		ROWS=LOOP_TESTS
		any_picked LOOP_TESTS && run_loop "$stack"
		ROWS=USER_TESTS
		any_picked USER_TESTS && run_user "$stack"
		ROWS=TESTS
	fi

	stack_down "$stack" || log "$stack: teardown failed"
	kmsg_since > "$pfx-dmesg.txt"
	n=$(grep -c 'detected conn error' "$pfx-dmesg.txt")
	[ "$n" = 0 ] || log "$stack: the kernel initiator dropped the connection $n times:" \
		"$(grep -m1 -B1 'detected conn error' "$pfx-dmesg.txt")"
	if grep -qE 'BUG:|WARNING:|Oops|refcount_t|corruption|hung_task|blocked for more' \
		"$pfx-dmesg.txt"; then
		log "$stack: kernel log findings:"
		grep -E -A3 'BUG:|WARNING:|Oops|refcount_t|corruption|hung_task|blocked for more' \
			"$pfx-dmesg.txt" | head -40
	fi
}

main() {
	while [ $# -gt 0 ]; do
		case $1 in
		--runtime) RUNTIME=$2; shift 2 ;;
		--pages) PAGES=$2; shift 2 ;;
		--rounds) ROUNDS=$2; shift 2 ;;
		--only) ONLY=$2; shift 2 ;;
		--profile) PROFILE=1; shift ;;
		--lio-submit-type) LIO_SUBMIT_TYPE=$2; shift 2 ;;
		--kt-submit-type) KT_SUBMIT_TYPE=$2; shift 2 ;;
		--kt-complete-type) KT_COMPLETE_TYPE=$2; shift 2 ;;
		*) log "unknown option $1"; return 2 ;;
		esac
	done

	mkdir -p "$RAW"
	: > "$TSV"
	mkfifo /tmp/bench-nap && exec 9<> /tmp/bench-nap

	printf '#\t%s\n' "guest $(uname -r), $(nproc) vCPUs (TCG), $(awk '/MemTotal/ { printf "%d MiB", $2 / 1024 }' /proc/meminfo) RAM; $RUNTIME s per test, best of $ROUNDS round(s); iSCSI on $PORTAL${LIO_SUBMIT_TYPE:+; LIO attrib/submit_type=$LIO_SUBMIT_TYPE}${KT_SUBMIT_TYPE:+; ktarget attrib/submit_type=$KT_SUBMIT_TYPE}${KT_COMPLETE_TYPE:+; ktarget attrib/complete_type=$KT_COMPLETE_TYPE}" >> "$TSV"

	RXE_OK=0
	if bounded 60 kt_rxe_up; then
		RXE_OK=1
	else
		log "no soft-RoCE device: iSER rows will fail"
	fi

	INI_OK=0
	if command -v iscsiadm > /dev/null && bounded 60 kt_iscsid_start; then
		INI_OK=1
	else
		log "open-iscsi unavailable: fio tests will fail"
	fi

	kt_warm_memory
	# odd rounds measure ktarget first, even rounds LIO first
	for ROUND in $(seq 1 "$ROUNDS"); do
		if [ $((ROUND % 2)) = 1 ]; then
			run_stack ktarget
			run_stack lio
		else
			run_stack lio
			run_stack ktarget
		fi
	done

	if [ "$INI_OK" = 1 ] && [ -s /run/iscsid.pid ]; then
		kill "$(cat /run/iscsid.pid)" 2>/dev/null
	fi
	$PY "$REPORT" table "$TSV" > "$OUT/results.txt"
	log "table in results.txt"
	! grep -v '^#' "$OUT/results.txt" | grep -qw fail
}

main "$@"
