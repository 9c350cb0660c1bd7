#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 in the test guest, after switch_root onto the overlay of the host root.
# Sets up a minimal system, installs the freshly built ktarget modules, runs
# the test script, unloads every ktarget module, saves dmesg and powers off.
# Everything it reports goes to /ktout (a 9p share of the host's run folder).
#
# Bash reads scripts lazily, so the work is wrapped in a function.

main() {
	local out=/ktout status rmmod_status=0

	export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	export HOME=/root TERM=dumb LANG=C.UTF-8
	# shellcheck disable=SC1091
	. $out/guest.env

	mount -t tmpfs -o mode=0755 tmpfs /run
	# /tmp stays the overlay's: the tree under test may live in the host's /tmp
	mkdir -p /dev/pts /dev/shm /run/lock
	mount -t devpts -o gid=5,mode=620 devpts /dev/pts
	mount -t tmpfs tmpfs /dev/shm
	ln -sf /proc/self/fd /dev/fd
	ln -sf /proc/self/fd/0 /dev/stdin
	ln -sf /proc/self/fd/1 /dev/stdout
	ln -sf /proc/self/fd/2 /dev/stderr
	modprobe configfs 2>/dev/null
	mount -t configfs configfs /sys/kernel/config
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	hostname ktguest
	ip link set lo up
	# a folder shared with the other guests of a cluster run (run.sh --share)
	mkdir /ktshare
	mount -t 9p -o trans=virtio,version=9p2000.L,cache=none ktshare /ktshare 2>/dev/null ||
		rmdir /ktshare

	# Report hung tasks well within the run's timeout. An NMI from the
	# host (run.sh, when the guest is stuck) panics with a backtrace of
	# every CPU that still takes one.
	echo 60 > /proc/sys/kernel/hung_task_timeout_secs 2>/dev/null
	echo 1 > /proc/sys/kernel/unknown_nmi_panic 2>/dev/null
	echo 64 > /proc/sys/kernel/panic_print 2>/dev/null

	# The freshly built modules, installed into the overlay.
	if [ -d "$out/modroot/lib/modules/$KT_KVER" ]; then
		# modules.* were made by depmod on the host (run.sh)
		cp -a "$out/modroot/lib/modules/$KT_KVER/." "/lib/modules/$KT_KVER/"
	fi

	# kmemleak (debug kernel): forget what boot left, report what we leak
	if [ -w /sys/kernel/debug/kmemleak ]; then
		echo scan > /sys/kernel/debug/kmemleak
		echo clear > /sys/kernel/debug/kmemleak
	fi

	echo "<4>ktarget-test: start $KT_NAME" > /dev/kmsg
	kt_heartbeat &
	heartbeat=$!
	cd "$KT_CWD" || cd /
	# the script's arguments, quoted by run.sh (printf %q)
	eval "set -- $KT_SCRIPT_ARGS"
	# where a test runner says which file runs and its bound (run.sh)
	export KT_PROGRESS=$out/progress
	timeout --foreground -k 10 "$KT_SCRIPT_TIMEOUT" \
		bash "$KT_SCRIPT" "$@" > $out/output.log 2>&1 < /dev/null
	status=$?
	cd /
	kill "$heartbeat" 2>/dev/null
	wait "$heartbeat" 2>/dev/null

	# Every ktarget module must unload after a test; holders first.
	kt_rmmod_all > $out/rmmod.log 2>&1 || rmmod_status=1

	if [ -w /sys/kernel/debug/kmemleak ]; then
		sleep 6	# kmemleak reports objects older than 5 s
		echo scan > /sys/kernel/debug/kmemleak
		echo scan > /sys/kernel/debug/kmemleak
		cat /sys/kernel/debug/kmemleak > $out/kmemleak.txt
	fi

	echo "<4>ktarget-test: end $KT_NAME" > /dev/kmsg
	dmesg > $out/dmesg.txt
	echo "$rmmod_status" > $out/rmmod.status
	echo "$status" > $out/status
	sync
	# Wait for the power-off with bash builtins only: the power-off takes the
	# 9p root away, and an exec that fails there (status 126) ends PID 1
	# with a panic before the guest is off.
	mkfifo /run/kt-halt
	exec 9<> /run/kt-halt
	echo o > /proc/sysrq-trigger
	while :; do
		read -r -t 30 -u 9 _
	done
}

# Every second: the uptime into /ktout/heartbeat (the host tells a guest
# that still runs from one that stopped), each module's .text address when
# the set of modules changed (the host maps a stuck vCPU's RIP through them
# and the kernel's symbols), and the guest's own state dump when the host
# asks for it. Bash builtins only: with one CPU stuck, a fork may wait for
# it forever (its TLB shootdown), and the module that hangs the guest may
# have loaded a second before.
kt_heartbeat() {
	local out=/ktout mods= cur m size base text line lines
	# the kernel's text symbols, once per kernel (run.sh keeps a copy)
	[ -s $out/kallsyms ] ||
		awk '$2 ~ /^[tTwW]$/ && NF == 3' /proc/kallsyms > $out/kallsyms
	mkfifo /run/kt-heartbeat
	exec 8<> /run/kt-heartbeat
	while :; do
		read -r cur _ < /proc/uptime
		echo "$cur" > $out/heartbeat
		mapfile -t lines < /proc/modules
		cur="${lines[*]}"
		if [ "$cur" != "$mods" ]; then
			mods=$cur
			for line in "${lines[@]}"; do
				read -r m size _ _ _ base _ <<< "$line"
				text=0
				read -r text < /sys/module/"$m"/sections/.text 2>/dev/null
				echo "$m $text $base $size"
			done > $out/modules.txt
		fi
		if [ -e $out/dump-request ] && [ ! -e $out/dump-done ]; then
			kt_state_dump
			: > $out/dump-done
		fi
		read -r -t 1 -u 8 line
	done
}

# What a stuck test leaves for its reader: blocked tasks, every CPU's
# stack, every task and the workqueues (sysrq w, l, t), ktarget's objects.
kt_state_dump() {
	local t
	for t in w l t; do
		echo "$t" > /proc/sysrq-trigger
	done
	{
		echo "# ktarget objects"
		timeout 10 cat /sys/kernel/debug/ktarget/objects 2>&1
		echo "# ktarget commands in flight"
		timeout 10 cat /sys/kernel/debug/ktarget/commands 2>&1
		echo "# kernel log"
		dmesg
	} > /ktout/dmesg-hang.txt 2>&1
}

kt_loaded() {
	awk '$1 ~ /^ktarget_/ { print $1 }' /proc/modules
}

kt_rmmod_all() {
	local mods m progress

	mods=$(kt_loaded)
	while [ -n "$mods" ]; do
		progress=0
		for m in $mods; do
			# unload only modules nothing else uses yet
			if [ "$(awk -v m="$m" '$1 == m { print $3 }' /proc/modules)" = 0 ] &&
			   rmmod "$m"; then
				echo "rmmod $m: ok"
				progress=1
			fi
		done
		mods=$(kt_loaded)
		if [ "$progress" = 0 ] && [ -n "$mods" ]; then
			for m in $mods; do
				echo "rmmod $m: failed"
				rmmod "$m"
				grep "^$m " /proc/modules
			done
			return 1
		fi
	done
	return 0
}

main "$@"
