#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two nodes serve one LU (iblock on the disk both guests share) in cluster
# mode: cluster/enable refuses without a lockspace name and without
# dlm_controld, joins the lockspace once corosync and dlm_controld run;
# COMPARE AND WRITE from both nodes at once never loses an update
# (caw_race.py), the persistent reservations are one state for both
# nodes (pr_nodes.py), and each node's target port group is reported and
# set through the other (alua_nodes.py), and a lockspace whose recovery
# does not end stops the LU on both nodes until it does (lockspace_lost.py).
# Node 1 drives the initiators;
# node 2 serves. Each node's TPG has its own tag (tpgt_1, tpgt_2): its
# relative target port.
#
# KT_CLUSTER_CAW_OFF=1 leaves cluster mode off on both nodes: the race
# then loses increments and each node has reservations of its own, which
# shows the checks can fail.

here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/../selftests/lib.sh"
. "$here/lib.sh"

IQN=iqn.2026-12.org.ktarget:cluster
SERIAL=ktcluster-lu-0001
SECONDS_RACE=${KT_CLUSTER_RACE_SECONDS:-20}

if [ "$KT_NODE" = 1 ]; then
	plan $((16 + PR_NODES_CHECKS + ALUA_NODES_CHECKS + LOCKSPACE_LOST_CHECKS + ROD_NODES_CHECKS))
else
	plan 5
fi

kt_node_up || { not_ok "node $KT_NODE: link and shared disk"; exit 0; }

KT_CORE_PARAMS=(dyndbg='file pr_cluster.c +p')
# no unit serial yet: cluster/enable must refuse for want of a name
kt_shared_dev "" || { not_ok "modules and device"; exit 0; }

if [ "$KT_NODE" = 1 ]; then
	check_bad_write "cluster/enable refused without a lockspace name" \
		$DEV/cluster/enable 1 \
		'no lockspace name: set cluster/lockspace or wwn/vpd_unit_serial'
	check_bad_write "cluster/lockspace refuses a '/'" \
		$DEV/cluster/lockspace a/b "letters, digits, '-' and '_' only"
fi
if [ "$KT_NODE" = 1 ]; then
	# cut to a lockspace name, two such serials could share one
	echo "ktcluster-$(printf '%060d' 0)" > $DEV/wwn/vpd_unit_serial
	check_bad_write "cluster/enable refused with a unit serial too long for a lockspace name" \
		$DEV/cluster/enable 1 'the unit serial is too long for a lockspace name'
fi
echo "$SERIAL" > $DEV/wwn/vpd_unit_serial
if [ "$KT_NODE" = 1 ]; then
	kmsg_mark
	check_fails "cluster/enable refused while dlm_controld is not running" \
		sh -c "echo 1 > $DEV/cluster/enable"
	out=$(kmsg_since)
	if output_has "$out" 'dlm_controld is not running'; then
		ok "... and the log says so"
	else
		not_ok "... and the log says so" "$out"
	fi
fi

if kt_cluster_up; then
	ok "node $KT_NODE: corosync quorate with 2 nodes, dlm_controld in the cluster"
else
	not_ok "node $KT_NODE: corosync quorate with 2 nodes, dlm_controld in the cluster"
fi
kt_barrier cluster-up

if [ "${KT_CLUSTER_CAW_OFF:-0}" = 1 ]; then
	ok "node $KT_NODE: cluster mode left off (KT_CLUSTER_CAW_OFF)"
else
	check "node $KT_NODE: cluster/enable joins lockspace kt_$SERIAL" \
		sh -c "echo 1 > $DEV/cluster/enable"
fi
kt_barrier joined
if [ "${KT_CLUSTER_CAW_OFF:-0}" = 1 ]; then
	ok "node $KT_NODE: (cluster mode off: no node id to check)"
else
	# the DLM tells this node of the other's join when its own recovery ends
	for ((i = 0; i < 60; i++)); do
		[ "$(cat $DEV/cluster/members)" = "1 2" ] && break
		sleep 1
	done
	got="$(cat $DEV/cluster/node_id) / $(cat $DEV/cluster/members) / $(cat $DEV/cluster/lockspace)"
	check_eq "node $KT_NODE: node_id / members / lockspace" \
		"$got" "$KT_NODE / 1 2 / kt_$SERIAL"
fi

if [ "$KT_NODE" = 1 ] && [ "${KT_CLUSTER_CAW_OFF:-0}" != 1 ]; then
	check_fails "cluster/lockspace refused while cluster mode is on" \
		sh -c "echo other > $DEV/cluster/lockspace"
elif [ "$KT_NODE" = 1 ]; then
	ok "cluster/lockspace (cluster mode off: not checked)"
fi

# the LU on this node's portal; both nodes give it the same identity.
# Its port is in a group of this node's: node 1's optimized, node 2's not.
tpg=$KT_CFS/iscsi/$IQN/tpgt_$KT_NODE
gp=$DEV/alua/node$KT_NODE
mkdir $gp && echo "$KT_NODE" > $gp/tg_pt_gp_id &&
	echo $((KT_NODE - 1)) > $gp/alua_access_state &&
	kt_export_lu $tpg "node$KT_NODE"
st=$?
check_eq "node $KT_NODE: the LU is exported on $(kt_node_addr "$KT_NODE"):3260" "$st" 0
if [ "$KT_NODE" = 1 ]; then
	cur=$(cat $DEV/cluster/enable)
	check_fails "cluster/enable cannot change ($cur to $((1 - cur))) while a LUN exports the device" \
		sh -c "echo $((1 - cur)) > $DEV/cluster/enable"
fi
kt_barrier exported

if [ "$KT_NODE" = 1 ]; then
	kt_caw_race "$SECONDS_RACE" "$IQN" \
		"COMPARE AND WRITE from both nodes at once: no increment lost"
	out=$KT_CAW_RACE_OUT
	# a race without contention would prove nothing
	if echo "$out" | grep -E '^10\.77\.0\.[12]:3260: [0-9]+ GOOD, [1-9][0-9]* MISCOMPARE' |
	   wc -l | grep -qx 2; then
		ok "... and both nodes met the other's writes (MISCOMPARE on each)"
	else
		not_ok "... and both nodes met the other's writes (MISCOMPARE on each)" "$out"
	fi
	kt_pr_nodes "$IQN"
	# ODX: this node's tokens would not see writes through node 2
	if [ "${KT_CLUSTER_CAW_OFF:-0}" = 1 ]; then
		for ((i = 0; i < ROD_NODES_CHECKS; i++)); do
			ok "no token copy on a clustered LU (cluster mode off: not checked)"
		done
	else
		kt_rod_nodes "$IQN"
	fi
	# libiscsi: one LU through both nodes, and its PR family on node 2
	kt_cu_nodes "libiscsi MultipathIO: one LU through the two nodes' portals" \
		SCSI.MultipathIO "iscsi://$(kt_node_addr 1):3260/$IQN/0" \
		"iscsi://$(kt_node_addr 2):3260/$IQN/0"
	kt_cu_nodes "libiscsi PERSISTENT RESERVE IN/OUT families on node 2 in cluster mode" \
		'SCSI.Pr*' "iscsi://$(kt_node_addr 2):3260/$IQN/0"
	# each node's target port group, seen and set from the other
	kt_alua_nodes "$IQN"
	# both nodes' lockspace stuck in recovery: the LU stops, then serves again
	kt_lockspace_lost "$IQN" "kt_$SERIAL"
else
	kt_lockspace_follow "kt_$SERIAL"
fi
kt_barrier raced $((SECONDS_RACE + 1500))

kt_unexport_lu $tpg
rmdir $KT_CFS/iscsi
if [ "${KT_CLUSTER_CAW_OFF:-0}" != 1 ]; then
	check "node $KT_NODE: cluster/enable 0 leaves the lockspace" \
		sh -c "echo 0 > $DEV/cluster/enable && [ \$(cat $DEV/cluster/node_id) = 0 ]"
else
	ok "node $KT_NODE: (cluster mode off: nothing to leave)"
fi
kt_barrier left
rmdir $gp $DEV $KT_CFS/core/iblock_0
kt_cluster_down
