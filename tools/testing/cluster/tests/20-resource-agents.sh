#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Pacemaker's resource agents, unchanged (Debian's resource-agents,
# implementation=lio-t), run by hand with their OCF environment on both
# nodes: ocf:heartbeat:iSCSITarget and ocf:heartbeat:iSCSILogicalUnit
# start, monitor and stop a ktarget target and LU on the shared disk.
# ktarget_core is loaded with cluster_default=1, so the LU the agent builds
# joins its lockspace when the agent links it to a LUN; node 1 then runs
# COMPARE AND WRITE from both nodes at once through the agents' targets.

here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/../selftests/lib.sh"
. "$here/lib.sh"

IQN=iqn.2026-12.org.ktarget:ra
SERIAL=ktcluster-ra-0001
RA=/usr/lib/ocf/resource.d/heartbeat

if [ "$KT_NODE" = 1 ]; then plan 10; else plan 9; fi

kt_node_up || { not_ok "node $KT_NODE: link and shared disk"; exit 0; }
if kt_cluster_up; then
	ok "node $KT_NODE: corosync and dlm_controld up"
else
	not_ok "node $KT_NODE: corosync and dlm_controld up"
fi

# what Pacemaker would give the agents
export OCF_ROOT=/usr/lib/ocf HA_RSCTMP=/run/resource-agents
export OCF_RESKEY_implementation=lio-t
export OCF_RESKEY_iqn=$IQN OCF_RESKEY_target_iqn=$IQN
export OCF_RESKEY_portals="$(kt_node_addr "$KT_NODE"):3260"
export OCF_RESKEY_lun=0 OCF_RESKEY_path=$KT_SHARED_DISK
export OCF_RESKEY_liot_bstype=block OCF_RESKEY_scsi_sn=$SERIAL
mkdir -p $HA_RSCTMP /run/dbus /etc/rtslib-fb-target
dbus-daemon --system --fork 2>/dev/null
modprobe ktarget_core cluster_default=1

# ra AGENT ACTION [INSTANCE]: the agent's exit status; its output logged
ra() {
	local rc
	OCF_RESOURCE_INSTANCE=${3:-$1} "$RA/$1" "$2" >> /ktout/ra.log 2>&1
	rc=$?
	echo "### $1 $2: exit $rc" >> /ktout/ra.log
	return $rc
}

# ra_check DESCRIPTION WANT AGENT ACTION: the agent's action exits WANT
ra_check() {
	local rc
	ra "$3" "$4" ralu
	rc=$?
	if [ "$rc" = "$2" ]; then
		ok "$1"
	else
		not_ok "$1" "$3 $4: exit $rc, want $2" "$(tail -15 /ktout/ra.log)"
	fi
}

ra_check "node $KT_NODE: iSCSITarget start" 0 iSCSITarget start
ra_check "node $KT_NODE: iSCSILogicalUnit start" 0 iSCSILogicalUnit start
ra_check "node $KT_NODE: iSCSILogicalUnit monitor says running" 0 iSCSILogicalUnit monitor
dev=$(ls -d $KT_CFS/core/iblock_*/ralu 2>/dev/null | head -1)
kt_barrier started
for ((i = 0; i < 60; i++)); do
	[ "$(cat "$dev/cluster/members" 2>/dev/null)" = "1 2" ] && break
	sleep 1
done
got="$(cat "$dev/cluster/node_id" 2>/dev/null) / $(cat "$dev/cluster/members" 2>/dev/null) / $(cat "$dev/cluster/lockspace" 2>/dev/null)"
check_eq "node $KT_NODE: the agent's LU joined its lockspace (cluster_default)" \
	"$got" "$KT_NODE / 1 2 / kt_$SERIAL"

if [ "$KT_NODE" = 1 ]; then
	kt_caw_race 20 "$IQN" \
		"COMPARE AND WRITE through both agents' targets: no increment lost"
fi
kt_barrier raced 900

ra_check "node $KT_NODE: iSCSILogicalUnit stop" 0 iSCSILogicalUnit stop
ra_check "node $KT_NODE: ... its monitor says stopped" 7 iSCSILogicalUnit monitor
ra_check "node $KT_NODE: iSCSITarget stop" 0 iSCSITarget stop
ra_check "node $KT_NODE: ... its monitor says stopped" 7 iSCSITarget monitor
kt_barrier stopped
# what the agents leave, as with LIO: the fabric's and the HBA's folders
rmdir $KT_CFS/iscsi $KT_CFS/core/iblock_* 2>/dev/null
kt_cluster_down
