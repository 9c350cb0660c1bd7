#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [--cuts N] [--stack ktarget|lio] [--seed S] [--kver KVER]
#
# The power-cut test: a guest writes numbered records through open-iscsi to
# three LUs (fileio cached, fileio O_DSYNC, iblock) and through libiscsi to
# a fourth (fileio cached), all kept on a disk image that QEMU writes
# through, and logs each acknowledgement to the host; the host kills QEMU at
# a random moment (a power cut), and the next boot checks that every block
# holds what its acknowledgements promise (guest.sh, powercut_io.py). N cuts
# (default 3) take N + 1 boots. Prints TAP, one line per LU and cut, and
# ends with "N passed, N failed".
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
cuts=3 stack=ktarget seed=$RANDOM kver=()

while [ $# -gt 0 ]; do
	case $1 in
	--cuts) cuts=$2; shift 2 ;;
	--stack) stack=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--kver) kver=(--kver "$2"); shift 2 ;;
	*) sed -n '3,13p' "$0" >&2; exit 2 ;;
	esac
done

state=$top/.vm-out/powercut-$stack
rm -rf "$state"
mkdir -p "$state"
truncate -s 64M "$state/disk.img"
# libiscsi's writer, run by the guest from the host's filesystem
if ! gcc -Wall -O2 -o "$state/pc_libiscsi" "$here/pc_libiscsi.c" -liscsi \
	2> "$state/build.log"; then
	echo "not ok - $stack: pc_libiscsi builds"
	sed 's/^/#   /' "$state/build.log"
	exit 1
fi
RANDOM=$seed
echo "# power cut: $stack, $cuts cuts, seed $seed"

pass=0 fail=0
for ((epoch = 0; epoch <= cuts; epoch++)); do
	out=$top/.vm-out/powercut-$stack-$epoch
	rm -rf "$out"	# no ready file or pid of an earlier run
	"$top/tools/testing/vm/run.sh" --name "powercut-$stack-$epoch" --quiet \
		--timeout 600 --disk "$state/disk.img" "${kver[@]}" \
		"$here/guest.sh" "$state" "$epoch" "$cuts" "$stack" \
		2> "$state/vm-$epoch.log" &
	vm=$!
	if [ "$epoch" -lt "$cuts" ]; then
		# the writers are running: cut within the next 0-3.5 s
		for ((i = 0; i < 3000; i++)); do
			[ -e "$out/pc-ready-1" ] && [ -e "$out/pc-ready-2" ] &&
				[ -e "$out/pc-ready-3" ] && [ -e "$out/pc-ready-4" ] &&
				[ -s "$out/qemu.pid" ] && break
			kill -0 $vm 2>/dev/null || break
			sleep 0.2
		done
		sleep "$((RANDOM % 8 / 2)).$((RANDOM % 2 * 5))"
		# only a guest still running has its power cut
		if kill -0 $vm 2>/dev/null; then
			touch "$out/power-cut"
			kill -9 "$(cat "$out/qemu.pid")" 2>/dev/null
		fi
	fi
	wait $vm
	status=$?
	grep -E '^(ok|not ok|#)' "$out/output.log" 2>/dev/null
	pass=$((pass + $(grep -c '^ok' "$out/output.log" 2>/dev/null)))
	fail=$((fail + $(grep -c '^not ok' "$out/output.log" 2>/dev/null)))
	if [ "$epoch" -lt "$cuts" ]; then
		mkdir -p "$state/epoch-$epoch"
		cp "$out"/pc-*.log "$state/epoch-$epoch/" 2>/dev/null
		n=$(cat "$state/epoch-$epoch"/pc-*.log 2>/dev/null | grep -c '^A')
		short=
		for l in 1 2 3 4; do
			[ "$(grep -c '^A' "$state/epoch-$epoch/pc-$l.log" 2>/dev/null)" -ge 64 ] ||
				short+=" $l"
		done
		if [ ! -e "$out/power-cut" ] || [ "$status" != 0 ] || [ -n "$short" ]; then
			echo "not ok - $stack, cut $((epoch + 1)): the guest ran until the cut (status $status, LUs with fewer than 64 answers:${short:- none})"
			sed 's/^/#   /' "$state/vm-$epoch.log"
			tail -5 "$out/output.log" 2>/dev/null | sed 's/^/#   /'
			fail=$((fail + 1))
		else
			echo "# cut $((epoch + 1)): after $n acknowledged writes"
		fi
	elif [ "$status" != 0 ]; then
		echo "not ok - $stack: the last boot ended with status $status"
		sed 's/^/#   /' "$state/vm-$epoch.log"
		fail=$((fail + 1))
	fi
done
echo "# power cut: $pass passed, $fail failed"
[ "$fail" = 0 ]
