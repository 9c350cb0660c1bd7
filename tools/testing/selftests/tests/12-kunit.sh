#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The core's KUnit suites (drivers/target/kunit): the unit attention ring,
# the task set's ordering, a command's claim, a TMF that meets a command on
# its way out. ktarget_kunit is built only for a kernel with KUnit (the
# debug kernel: make test-debug); elsewhere this file is one skip.
. ./lib.sh

KT_KUNIT_SUITES="ktarget_ua ktarget_task_set ktarget_cmd ktarget_tmr"

# kunit_passed SUITE: its results say every case passed
kunit_passed() {
	local r=/sys/kernel/debug/kunit/$1/results

	cat "$r" || return 1
	grep -qE '^[[:space:]]*ok [0-9]+ ' "$r" && ! grep -q 'not ok' "$r"
}

main() {
	local s

	if ! modinfo ktarget_kunit > /dev/null 2>&1; then
		plan 1
		skip "the core's KUnit suites" "this kernel has no KUnit (make test-debug runs them)"
		return
	fi
	plan 7
	check "modprobe ktarget_core" modprobe ktarget_core
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	# loaded already, its results would be an earlier run's
	rmmod ktarget_kunit 2> /dev/null
	check "modprobe ktarget_kunit: its suites run as it loads" modprobe ktarget_kunit
	for s in $KT_KUNIT_SUITES; do
		check "KUnit suite $s: every case passed" kunit_passed "$s"
		# what the cases say of themselves (how often a race was met)
		sed -n 's/^[[:space:]]*# \(kt_[a-z_]*: .*\)/# \1/p' \
			"/sys/kernel/debug/kunit/$s/results" 2> /dev/null
	done
	check "rmmod ktarget_kunit" rmmod ktarget_kunit
}

main "$@"
