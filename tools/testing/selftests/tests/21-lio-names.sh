#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# With tools/ktarget-lio-names.modprobe.conf in /etc/modprobe.d, modprobe of
# LIO's module names (what rtslib's fallback, target.service and test
# suites call) loads ktarget's modules, with the parameters given, and
# never LIO's, though LIO's are on disk; modprobe -r unloads them.
. ./lib.sh

CONF=/etc/modprobe.d/ktarget-lio-names.conf

loaded() { grep -q "^$1 " /proc/modules; }

# name_loads LIONAME KTMODULE [PARAM...]: modprobe LIONAME [PARAM...] loads
# KTMODULE, and no module of LIO's
name_loads() {
	modprobe "$1" "${@:3}" || return 1
	loaded "$2" || { echo "$2 not loaded"; return 1; }
	! loaded target_core_mod || { echo "LIO's target_core_mod loaded"; return 1; }
}

main() {
	local n=8 m

	modinfo ktarget_srpt >/dev/null 2>&1 && n=$((n + 2))
	modinfo ktarget_vhost >/dev/null 2>&1 && n=$((n + 1))
	plan $n
	check "the configuration is installed" \
		cp ../../../tools/ktarget-lio-names.modprobe.conf $CONF
	check "modprobe target_core_mod loads ktarget_core" \
		name_loads target_core_mod ktarget_core
	check "ktarget owns configfs target" grep -q '^ktarget ' $KT_CFS/version
	check "modprobe iscsi_target_mod loads ktarget_iscsi" \
		name_loads iscsi_target_mod ktarget_iscsi
	check "modprobe tcm_loop loads ktarget_loop" name_loads tcm_loop ktarget_loop
	if modinfo ktarget_srpt >/dev/null 2>&1; then
		check "modprobe ib_srpt rdma_cm_port=5557 loads ktarget_srpt with it" \
			name_loads ib_srpt ktarget_srpt rdma_cm_port=5557
		check_eq "ktarget_srpt's rdma_cm_port is the one given" \
			"$(cat /sys/module/ktarget_srpt/parameters/rdma_cm_port 2>&1)" 5557
	fi
	if modinfo ktarget_vhost >/dev/null 2>&1; then
		check "modprobe vhost_scsi loads ktarget_vhost" \
			name_loads vhost_scsi ktarget_vhost
	fi
	check "modprobe -r tcm_loop iscsi_target_mod unloads ktarget's" \
		modprobe -r tcm_loop iscsi_target_mod
	for m in ktarget_srpt ktarget_vhost; do
		! loaded $m || rmmod $m
	done
	check "modprobe -r target_core_mod unloads ktarget_core" \
		modprobe -r target_core_mod
	check "ktarget_core is gone" sh -c '! grep -q "^ktarget_core " /proc/modules'
	rm -f $CONF
}

main "$@"
