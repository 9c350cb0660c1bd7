#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# With LIO's target_core_mod holding configfs "target", ktarget_core refuses
# to load and says which module to unload; once LIO is gone it loads.
. ./lib.sh

main() {
	if ! modprobe target_core_mod 2>/dev/null; then
		skip_all "ktarget_core refuses to load next to LIO: target_core_mod not available"
		return
	fi
	plan 8
	check "LIO owns configfs target" grep -q 'Target Engine Core' $KT_CFS/version

	kmsg_mark
	check_fails "modprobe ktarget_core fails while LIO is loaded" modprobe ktarget_core
	if kmsg_since | grep -q "already registered.*target_core_mod.*modprobe -r target_core_mod"; then
		ok "the refusal names target_core_mod and how to unload it"
	else
		not_ok "the refusal names target_core_mod and how to unload it" "$(kmsg_since)"
	fi
	check "LIO still works: its root is intact" grep -q 'Target Engine Core' $KT_CFS/version

	check "modprobe -r target_core_mod" modprobe -r target_core_mod
	check "ktarget_core loads once LIO is gone" modprobe ktarget_core
	check "ktarget owns configfs target" grep -q '^ktarget ' $KT_CFS/version
	check "rmmod ktarget_core" rmmod ktarget_core
}

main "$@"
