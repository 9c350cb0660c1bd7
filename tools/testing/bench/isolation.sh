#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# isolation.sh [--stacks "ktarget lio"] [--modes "all MODE..."] [--seconds S]
#              [--remote]
#
# What one hostile initiator costs three that behave (selftests/
# iscsi_isolation.py, as tests/44-isolation.sh runs it), mode by mode,
# first against ktarget, then against in-tree LIO, in one guest. The three
# good initiators do verified WRITE/READ of 64 KiB (and every tenth round
# an EXTENDED COPY, and on ktarget a POPULATE TOKEN / WRITE USING TOKEN)
# for S seconds (default 20) alone, then beside each hostile mode: all of
# them at once, then each alone (resets, copies, tokens, slow-readers,
# silent, isids), and alone again at the end (alone-end: how far the rate
# alone drifted). One row per mode: each good initiator's KiB/s, the
# slowest as a share of its rate alone (the goal: 0.5 or more), the
# errors they saw; then how the target guest's vCPU was spent while the
# good ones ran (usr%: processes, the Python initiators; sys%: kernel,
# softirq included: the target and the TCP stack) and the share of a CPU
# the hostile client used over its run (hcpu%). Runs inside the guest:
#
#   tools/testing/vm/run.sh --smp 1 --name isolation tools/testing/bench/isolation.sh
#
# --remote: the hostile client runs in a second guest (node 2 of
# tools/testing/vm/cluster.sh; bench/isolation-remote.sh starts both),
# its silent connections from an address of their own (10.77.0.3); the
# target and the good ones stay in node 1 as above. All log in at the
# target's link address (10.77.0.1:3260, the good ones over node 1's
# loopback): one listening socket, as 127.0.0.1 is alone. The nodes take turns through /ktshare: node 1 asks for a mode,
# node 2 says when it started and when it ended.
#
# The table is printed at the end and kept in .vm-out/NAME/results.txt
# (node 1's); the initiators' output in .vm-out/NAME/raw/ (the hostile
# one's in node 2's, with --remote). Not a test: on LIO the target resets
# are LIO's to answer, and what they do to the good ones is the figure.
set -u
here=$(cd "$(dirname "$0")" && pwd)
sel=$here/../selftests
cd "$sel" || exit 1
. ./lib.sh

STACKS="ktarget lio"
MODES="all resets copies tokens slow-readers silent isids"
GOOD_SECONDS=20
REMOTE=0
PORTAL=127.0.0.1:3260	# where the good ones and the hostile one log in
while [ $# -gt 0 ]; do
	case $1 in
	--stacks) STACKS=$2; shift 2 ;;
	--modes) MODES=$2; shift 2 ;;
	--seconds) GOOD_SECONDS=$2; shift 2 ;;
	--remote) REMOTE=1; shift ;;
	*) sed -n '3,35p' "$0" >&2; exit 2 ;;
	esac
done

out=/tmp/isolation
[ -d /ktout ] && [ -w /ktout ] && out=/ktout
raw=$out/raw
mkdir -p "$raw"
results=$out/results.txt
printf '%-8s %-13s %9s %9s %9s %9s %7s %5s %5s %6s\n' stack mode good-0 good-1 good-2 \
	"min/solo" errors usr% sys% hcpu% > "$results"

if [ "$REMOTE" = 1 ]; then
	. "$here/../cluster/lib.sh"
	kt_node_up || { echo "# node $KT_NODE: no link"; exit 1; }
	SILENT_FROM=10.77.0.3
	[ "$KT_NODE" = 2 ] && { ip addr add $SILENT_FROM/24 dev eth0 || exit 1; }
	kt_barrier linked 600 || exit 1
	# the good ones too: one listening socket for all, as on 127.0.0.1
	PORTAL=$(kt_node_addr 1):3260
fi

# peer_get KEY SECONDS: kt_get, but it gives up at once when the other
# node's script has ended
peer_get() {
	local i
	for ((i = 0; i < $2 * 5; i++)); do
		[ -e "$KT_SHARE/val.$1" ] && { cat "$KT_SHARE/val.$1"; return 0; }
		compgen -G "$KT_SHARE/ended.*" > /dev/null && return 1
		sleep 0.2
	done
	return 1
}

# hostile ADDR STACK MODE SECONDS: the hostile client, its output in raw/
hostile() {
	KT_HOSTILE_MODES=$([ "$3" = all ] || echo "$3") \
		timeout $(($4 + 200)) python3 ./iscsi_isolation.py hostile \
		"$1" "$KT_IQN" $(($4 + 15)) > "$raw/$2-$3-hostile.txt" 2>&1
}

# hostile_cpu FILE: the share of a CPU (%) the hostile client used
hostile_cpu() {
	awk '/^hostile: cpu/ { printf "%.0f", ($10 > 0 ? 100 * ($3 + $6) / $10 : 0); n = 1 }
	     END { if (!n) print "-" }' "$@"
}

# node 2 of --remote: the hostile client, each mode when node 1 asks
hostile_server() {
	local k=1 req stack mode secs hp
	while req=$(peer_get hostile.$k 1800); do
		[ "$req" = end ] && return 0
		read -r stack mode secs <<< "$req"
		KT_SILENT_FROM=$SILENT_FROM hostile "$PORTAL" \
			"$stack" "$mode" "$secs" &
		hp=$!
		kt_put started.$k 1
		wait $hp
		kt_put done.$k "$(grep '^hostile: cpu' "$raw/$stack-$mode-hostile.txt")"
		k=$((k + 1))
	done
	echo "# node 2: no request $k from node 1"
	return 1
}
if [ "$REMOTE" = 1 ] && [ "$KT_NODE" = 2 ]; then
	hostile_server
	exit
fi

# good STACK TAG: the three good initiators for GOOD_SECONDS; prints
# "KIB0 KIB1 KIB2 ERRORS"
good() {
	local i pids=() f kib=() errs=0
	for i in 0 1 2; do
		f=$raw/$1-$2-good-$i.txt
		timeout $((GOOD_SECONDS + 120)) python3 ./iscsi_isolation.py good \
			"$PORTAL" "$KT_IQN" $i "$GOOD_SECONDS" > "$f" 2>&1 &
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

row() {	# row STACK MODE SOLO KIB0 KIB1 KIB2 ERRORS USR SYS HCPU
	awk -v s="$1" -v m="$2" -v solo="$3" -v a="$4" -v b="$5" -v c="$6" -v e="$7" \
	    -v u="$8" -v k="$9" -v h="${10}" '
		BEGIN { lo = a; if (b < lo) lo = b; if (c < lo) lo = c
			printf "%-8s %-13s %9d %9d %9d %9.2f %7d %5s %5s %6s\n", s, m, a, b, c,
			       solo ? lo / solo : 0, e, u, k, h }' | tee -a "$results"
}

# cpu_stat: this guest's CPU time so far, "USER SYSTEM ALL" in ticks (user
# with nice; system with irq and softirq; all with idle, iowait, steal)
cpu_stat() {
	awk '$1 == "cpu" { print $2 + $3, $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9; exit }' /proc/stat
}

# cpu_share BEFORE AFTER: "USR% SYS%" between two cpu_stat
cpu_share() {
	echo "$1 $2" | awk '{ t = $6 - $3; if (t <= 0) t = 1
		printf "%.0f %.0f", 100 * ($4 - $1) / t, 100 * ($5 - $2) / t }'
}

# good_measured STACK TAG: good, followed by "USR% SYS%" of the while
good_measured() {
	local c0 r
	c0=$(cpu_stat)
	r=$(good "$1" "$2")
	echo "$r $(cpu_share "$c0" "$(cpu_stat)")"
}

run_stack() {
	local stack=$1 mode solo r hp hcpu tpg=$KT_CFS/iscsi/$KT_IQN/tpgt_1
	kt_stack_up "$stack" || return 1
	kt_iscsi_build || { echo "# $stack: target set-up failed"; return 1; }
	# --remote: the portal on the link, where all of them log in
	if [ "$REMOTE" = 1 ]; then
		mkdir "$tpg/np/$PORTAL" ||
			{ echo "# $stack: no portal on the link"; return 1; }
	fi
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
	r=$(good_measured "$stack" alone)
	# the rate alone: the slowest of the three
	solo=$(echo "$r" | awk '{ lo = $1; if ($2 < lo) lo = $2; if ($3 < lo) lo = $3; print lo }')
	row "$stack" alone "$solo" $r -
	for mode in $MODES; do
		echo "# $stack: hostile $mode: $(date +%T)"
		if [ "$REMOTE" = 1 ]; then
			ask=$((ask + 1))
			kt_put hostile.$ask "$stack $mode $GOOD_SECONDS"
			peer_get started.$ask 120 > /dev/null ||
				{ echo "# node 2 did not start hostile $mode"; break; }
		else
			hostile "$PORTAL" "$stack" "$mode" "$GOOD_SECONDS" &
			hp=$!
		fi
		sleep 10
		r=$(good_measured "$stack" "$mode")
		if [ "$REMOTE" = 1 ]; then
			hcpu=$(peer_get done.$ask $((GOOD_SECONDS + 260)) | hostile_cpu)
		else
			wait $hp
			hcpu=$(hostile_cpu "$raw/$stack-$mode-hostile.txt")
		fi
		row "$stack" "$mode" "$solo" $r "$hcpu"
		sleep 5
	done
	# alone again: how far the rate alone drifted over the modes
	r=$(good_measured "$stack" alone-end)
	row "$stack" alone-end "$solo" $r -
	[ "$REMOTE" = 1 ] && rmdir "$tpg/np/$PORTAL"
	kt_iscsi_teardown
	kt_stack_down "$stack"
}

ask=0	# --remote: the hostile modes asked of node 2 so far
kt_warm_memory
for stack in $STACKS; do
	run_stack "$stack"
done
[ "$REMOTE" = 1 ] && kt_put hostile.$((ask + 1)) end
echo
echo "isolation: three good initiators beside each hostile mode, $GOOD_SECONDS s each ($(nproc) CPUs)," \
	"the hostile one $([ "$REMOTE" = 1 ] && echo "in a second guest" || echo "in the same guest"):"
cat "$results"
exit 0
