#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# isolation.sh [--stacks "ktarget lio"] [--modes "all MODE..."] [--seconds S]
#
# What one hostile initiator costs three that behave (selftests/
# iscsi_isolation.py, as tests/44-isolation.sh runs it), mode by mode,
# first against ktarget, then against in-tree LIO, in one guest. The three
# good initiators do verified WRITE/READ of 64 KiB (and every tenth round
# an EXTENDED COPY, and on ktarget a POPULATE TOKEN / WRITE USING TOKEN)
# for S seconds (default 20) alone, then beside each hostile mode: all of
# them at once, then each alone (resets, copies, tokens, slow-readers,
# silent, isids). One row per mode: each good initiator's KiB/s, the
# slowest as a share of its rate alone (the goal: 0.5 or more), and the
# errors they saw. Runs inside the guest:
#
#   tools/testing/vm/run.sh --smp 1 --name isolation tools/testing/bench/isolation.sh
#
# The table is printed at the end and kept in .vm-out/NAME/results.txt; the
# initiators' output in .vm-out/NAME/raw/. Not a test: on LIO the target
# resets are LIO's to answer, and what they do to the good ones is the
# figure.
set -u
here=$(cd "$(dirname "$0")" && pwd)
sel=$here/../selftests
cd "$sel" || exit 1
. ./lib.sh

STACKS="ktarget lio"
MODES="all resets copies tokens slow-readers silent isids"
GOOD_SECONDS=20
while [ $# -gt 0 ]; do
	case $1 in
	--stacks) STACKS=$2; shift 2 ;;
	--modes) MODES=$2; shift 2 ;;
	--seconds) GOOD_SECONDS=$2; shift 2 ;;
	*) sed -n '3,22p' "$0" >&2; exit 2 ;;
	esac
done

out=/tmp/isolation
[ -d /ktout ] && [ -w /ktout ] && out=/ktout
raw=$out/raw
mkdir -p "$raw"
results=$out/results.txt
printf '%-8s %-13s %9s %9s %9s %9s %7s\n' stack mode good-0 good-1 good-2 \
	"min/solo" errors > "$results"

# good STACK TAG: the three good initiators for GOOD_SECONDS; prints
# "KIB0 KIB1 KIB2 ERRORS"
good() {
	local i pids=() f kib=() errs=0
	for i in 0 1 2; do
		f=$raw/$1-$2-good-$i.txt
		timeout $((GOOD_SECONDS + 120)) python3 ./iscsi_isolation.py good \
			127.0.0.1:3260 "$KT_IQN" $i "$GOOD_SECONDS" > "$f" 2>&1 &
		pids+=($!)
	done
	for i in 0 1 2; do
		wait "${pids[$i]}"
		f=$raw/$1-$2-good-$i.txt
		kib+=("$(grep -o '[0-9]* KiB/s' "$f" | awk '{ v = $1 } END { print v + 0 }')")
		# no summary line (a session that never logged in): an error
		if grep -q ' errors, ' "$f"; then
			errs=$((errs + $(grep -o ' [0-9]* errors' "$f" | awk '{ v = $1 } END { print v + 0 }')))
		else
			errs=$((errs + 1))
		fi
	done
	echo "${kib[0]} ${kib[1]} ${kib[2]} $errs"
}

row() {	# row STACK MODE SOLO KIB0 KIB1 KIB2 ERRORS
	awk -v s="$1" -v m="$2" -v solo="$3" -v a="$4" -v b="$5" -v c="$6" -v e="$7" '
		BEGIN { lo = a; if (b < lo) lo = b; if (c < lo) lo = c
			printf "%-8s %-13s %9d %9d %9d %9.2f %7d\n", s, m, a, b, c,
			       solo ? lo / solo : 0, e }' | tee -a "$results"
}

run_stack() {
	local stack=$1 mode solo r hp
	kt_stack_up "$stack" || return 1
	kt_iscsi_build || { echo "# $stack: target set-up failed"; return 1; }
	if [ "$stack" = lio ]; then
		# LIO gives the LU no NAA designator (the good initiators' copies
		# name it by one) until it has a unit serial, which targetcli
		# writes and LIO takes only while the LU is not exported
		rm "$KT_CFS/iscsi/$KT_IQN/tpgt_1/lun/lun_0/r0" &&
		cat /proc/sys/kernel/random/uuid > $KT_CFS/core/rd_mcp_0/r0/wwn/vpd_unit_serial &&
		ln -s $KT_CFS/core/rd_mcp_0/r0 "$KT_CFS/iscsi/$KT_IQN/tpgt_1/lun/lun_0/r0" ||
			{ echo "# lio: no unit serial"; return 1; }
		export KT_GOOD_TOKENS=0
	else
		unset KT_GOOD_TOKENS
	fi
	r=$(good "$stack" alone)
	# the rate alone: the slowest of the three
	solo=$(echo "$r" | awk '{ lo = $1; if ($2 < lo) lo = $2; if ($3 < lo) lo = $3; print lo }')
	row "$stack" alone "$solo" $r
	for mode in $MODES; do
		echo "# $stack: hostile $mode: $(date +%T)"
		KT_HOSTILE_MODES=$([ "$mode" = all ] || echo "$mode") \
			timeout $((GOOD_SECONDS + 200)) python3 ./iscsi_isolation.py hostile \
			127.0.0.1:3260 "$KT_IQN" $((GOOD_SECONDS + 15)) \
			> "$raw/$stack-$mode-hostile.txt" 2>&1 &
		hp=$!
		sleep 10
		r=$(good "$stack" "$mode")
		row "$stack" "$mode" "$solo" $r
		wait $hp
		sleep 5
	done
	kt_iscsi_teardown
	kt_stack_down "$stack"
}

kt_warm_memory
for stack in $STACKS; do
	run_stack "$stack"
done
echo
echo "isolation: three good initiators beside each hostile mode, $GOOD_SECONDS s each ($(nproc) CPUs):"
cat "$results"
exit 0
