#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`, inside the guest: load ktarget and show it working with the
# clients a storage admin uses. Grows with each layer of ktarget.

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

main() {
	local cfs=/sys/kernel/config/target

	step "Load ktarget's core (the guest runs Debian's $(uname -r))"
	run modprobe ktarget_core || return 1
	run lsmod | grep -E '^(Module|ktarget|configfs)'
	dmesg | grep ktarget_core | sed 's/^/  dmesg: /'

	step "The configfs tree ktarget owns: LIO's layout and names"
	run find $cfs -maxdepth 2
	run cat $cfs/version
	run cat $cfs/dbroot

	step "dbroot takes what an admin echoes, and refuses what is not a directory"
	mkdir -p /var/lib/ktarget-demo
	run sh -c "echo /var/lib/ktarget-demo > $cfs/dbroot"
	run cat $cfs/dbroot
	run sh -c "echo /no/such/dir > $cfs/dbroot"
	dmesg | tail -1 | sed 's/^/  dmesg: /'

	step "rtslib-fb (targetcli's library) opens ktarget's root as it opens LIO's"
	mkdir -p /etc/rtslib-fb-target
	run python3 -c 'import rtslib_fb; print("rtslib dbroot:", rtslib_fb.RTSRoot().dbroot)'
	run cat $cfs/dbroot

	step "Unload"
	run rmmod ktarget_core
	run ls $cfs 2>&1
	echo
	echo "Backstores, the iSCSI fabric and XCOPY arrive with the next issues; this demo grows with them."
}

main "$@"
