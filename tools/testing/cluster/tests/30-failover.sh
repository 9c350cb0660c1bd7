#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Failover: node 2 is also the initiator. It logs in to the LU through
# both nodes' portals; multipathd (udev started by hand: the guest has no
# init) builds the map with the ALUA settings of a storage admin: paths
# grouped by access state (prio alua) and the kernel's ALUA handler. Node
# 1's group is Active/Optimized, node 2's Active/Non-optimized, so I/O
# goes through node 1. Node 2 registers both paths and reserves the LU
# (Write Exclusive - Registrants Only) through node 1's, then writes with
# fio (verify=crc32c) through the map. Meanwhile node 1 powers off at once
# (sysrq o). I/O goes on through node 2, fio verifies every block it
# wrote, node 2's cluster sees node 1 gone and its persistent reservation
# is still there; node 1's target port group is reported Unavailable and
# node 2's, named by cluster/alua_takeover, Active/Optimized, which
# multipathd sees as prio 50. The longest time without an I/O completing
# is reported as the failover gap.
#
# Then node 1 boots again (its second run, KT_CLUSTER_BOOT=2), rejoins the
# cluster and exports the LU, its group configured Standby this time. It
# loads the cluster's state before its first command: through node 1, the
# initiator sees the reservation and its registrations, and node 1's group
# Standby while node 2's keeps the state it took over. Explicit ALUA: when
# multipathd switches to node 1's path group, the kernel's ALUA handler
# sends SET TARGET PORT GROUPS through node 1, which node 2 reports too;
# fio then writes and verifies through both paths.
#
# Node 1 leaves marks (/ktout/poweroff, /ktout/restart) so that
# tools/testing/cluster/run.sh does not count its missing end as a failure
# and tools/testing/vm/cluster.sh boots it again. Not in make test.

here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/../selftests/lib.sh"
. "$here/lib.sh"

IQN=iqn.2026-12.org.ktarget:failover
KEY=0xfa11
LOOPS=${KT_FAILOVER_LOOPS:-10}
tpg=$KT_CFS/iscsi/$IQN/tpgt_$KT_NODE

BOOT=${KT_CLUSTER_BOOT:-1}
if [ "$KT_NODE" = 1 ]; then plan 2; else plan 22; fi

kt_node_up || { not_ok "node $KT_NODE: link and shared disk"; exit 0; }
# node 1's second boot: not before node 2 has seen it gone
[ "$BOOT" = 1 ] || kt_get node1-gone-checked 900 > /dev/null
kt_shared_dev ktcluster-failover-01 || { not_ok "modules and device"; exit 0; }
kt_cluster_up
check "node $KT_NODE: cluster/enable joins" sh -c "echo 1 > $DEV/cluster/enable"
[ "$BOOT" = 1 ] && kt_barrier joined
# each node's port in a group of its own; node 2's takes over. Node 1
# comes back in Standby: the host decides when to use it again.
gp=$DEV/alua/node$KT_NODE
state=$((KT_NODE - 1))
[ "$BOOT" = 1 ] || state=2
mkdir $gp && echo "$KT_NODE" > $gp/tg_pt_gp_id &&
	echo $state > $gp/alua_access_state &&
	echo 2 > $DEV/cluster/alua_takeover &&
	kt_export_lu $tpg "node$KT_NODE"
st=$?
check_eq "node $KT_NODE: the LU is exported on $(kt_node_addr "$KT_NODE"):3260" "$st" 0

if [ "$BOOT" != 1 ]; then
	# node 1 is back: serve until node 2 has looked, then leave cleanly
	kt_put node1-back 1
	kt_get rejoin-checked 900 > /dev/null
	kt_unexport_lu $tpg
	rmdir $KT_CFS/iscsi
	echo 0 > $DEV/cluster/enable
	rmdir $gp $DEV $KT_CFS/core/iblock_0
	kt_cluster_down
	exit 0
fi
kt_barrier exported

if [ "$KT_NODE" = 1 ]; then
	# power off once node 2's writes are under way
	kt_get fio-started 300 > /dev/null
	sleep 10
	echo "# node 1: powering off now (sysrq o), to boot again"
	: > /ktout/poweroff
	: > /ktout/restart
	sync
	echo 1 > /proc/sys/kernel/sysrq
	echo o > /proc/sysrq-trigger
	sleep 60
	exit 0
fi

# --- node 2: the initiator -------------------------------------------------
kt_iscsid_start
for n in 1 2; do
	p=$(kt_node_addr $n):3260
	iscsiadm -m discovery -t st -p "$p" > /dev/null 2>&1
	iscsiadm -m node -T $IQN -p "$p" -o update \
		-n node.session.timeo.replacement_timeout -v 5 > /dev/null
	iscsiadm -m node -T $IQN -p "$p" -o update \
		-n 'node.conn[0].timeo.noop_out_interval' -v 2 > /dev/null
	iscsiadm -m node -T $IQN -p "$p" -o update \
		-n 'node.conn[0].timeo.noop_out_timeout' -v 2 > /dev/null
	iscsiadm -m node -T $IQN -p "$p" --login > /dev/null 2>&1
done
# the disk of each portal's session
path_disk() {
	local s d i
	for i in $(seq 1 50); do
		for s in /sys/class/iscsi_session/session*; do
			grep -q "^$1\$" "$s/device/connection"*/iscsi_connection/*/persistent_address 2>/dev/null || continue
			for d in "$s"/device/target*/*/block/*; do
				[ -b "/dev/$(basename "$d")" ] && { echo "/dev/$(basename "$d")"; return 0; }
			done
		done
		sleep 0.2
	done
	return 1
}
d1=$(path_disk "$(kt_node_addr 1)")
d2=$(path_disk "$(kt_node_addr 2)")
if [ -b "$d1" ] && [ -b "$d2" ] && [ "$d1" != "$d2" ]; then
	ok "node 2 logs in through both portals ($d1 via node 1, $d2 via node 2)"
else
	not_ok "node 2 logs in through both portals" "node 1 path '$d1', node 2 path '$d2'"
fi

p1=${d1#/dev/} p2=${d2#/dev/}
kt_multipathd_start
map=$(kt_multipath_map)
st1=$(kt_wait_path_state $p1 '^50 active ready' 30)
st2=$(kt_wait_path_state $p2 '^10 ' 30)
if [ -n "$map" ] && [[ $st1 =~ ^50\ active\ ready ]] && [[ $st2 =~ ^10\  ]]; then
	ok "multipathd (prio alua) groups the paths by access state: node 1's prio 50 (Active/Optimized) in use, node 2's prio 10"
else
	not_ok "multipathd (prio alua) groups the paths by access state: node 1's prio 50 (Active/Optimized) in use, node 2's prio 10" \
		"map '$map'; $p1: $st1; $p2: $st2; $(multipath -ll 2>&1 | head -12)"
fi
mp=/dev/mapper/$map

check "both paths registered, reserved (type 5) through node 1" sh -c "
	sg_persist -n --out --register --param-sark=$KEY $d1 &&
	sg_persist -n --out --register --param-sark=$KEY $d2 &&
	sg_persist -n --out --reserve --param-rk=$KEY --prout-type=5 $d1 &&
	sg_persist -n -i -r $d2 | grep -q 'type: Write Exclusive, registrants only'"

# Each round writes every block of 16 MiB once, then reads and verifies
# it. Rounds go on until $LOOPS or, after the second (node 1 powers off
# 13 s into the first), until FIO_SECONDS have passed: on a slow host the
# rounds are fewer, and the file keeps its budget.
FIO_SECONDS=${KT_FAILOVER_FIO_SECONDS:-300}
fio_rounds() {
	local i=0 end=$((SECONDS + FIO_SECONDS))

	while [ $i -lt "$LOOPS" ]; do
		i=$((i + 1))
		fio --name=failover --filename=$mp --direct=1 --ioengine=libaio \
			--allow_file_create=0 \
			--rw=randwrite --bs=4k --iodepth=4 --size=16M \
			--verify=crc32c --verify_fatal=1 \
			--write_iops_log=/ktout/failover-$i --log_avg_msec=100 \
			--output=/ktout/fio-failover-$i.txt \
			> /ktout/fio-failover-$i.log 2>&1 || return 1
		echo $i > /ktout/fio-rounds
		[ $i -ge 2 ] && [ $SECONDS -ge $end ] && break
	done
	return 0
}
rm -f /ktout/fio-failover-* /ktout/failover-*
fio_rounds &
fio_pid=$!
sleep 3
kt_put fio-started 1
wait $fio_pid
st=$?
rounds=$(cat /ktout/fio-rounds 2>/dev/null)
if [ "$st" = 0 ] && ! grep -qi "verify.*bad\|error" /ktout/fio-failover-*.txt; then
	ok "fio wrote through the failover and verified every block ($rounds rounds)"
else
	not_ok "fio wrote through the failover and verified every block" \
		"$(tail -15 /ktout/fio-failover-*.txt /ktout/fio-failover-*.log 2>/dev/null)"
fi
grep -hE 'write: IOPS|verify' /ktout/fio-failover-*.txt | sed 's/^/# /'

# the longest time with no I/O completing (fio logs every 100 ms with some),
# within each round's log (the pause between two rounds is not a gap)
gap=$(awk -F, 'FNR == 1 { last = "" }
	$2 > 0 { t = $1 + 0; if (last != "" && t - last > max) max = t - last; last = t }
	END { print max + 0 }' /ktout/failover-*_iops*.log 2>/dev/null)
if [ -n "$gap" ] && [ "$gap" -gt 0 ]; then
	echo "# figure: failover gap (longest time without a completed I/O): $gap ms"
	ok "failover gap measured"
else
	not_ok "failover gap measured" "$(head -5 /ktout/failover-*_iops*.log 2>&1)"
fi

got=""
for ((i = 0; i < 60; i++)); do
	got=$(cat $DEV/cluster/members)
	[ "$got" = 2 ] && break
	sleep 1
done
check_eq "node 2's cluster sees node 1 gone (members)" "$got" 2
out=$(sg_persist -n -i -r "$d2" 2>&1)
if echo "$out" | grep -q "type: Write Exclusive, registrants only" &&
   echo "$out" | grep -qi "$KEY"; then
	ok "the reservation still holds on node 2"
else
	not_ok "the reservation still holds on node 2" "$out"
fi

# ALUA: node 1's group Unavailable, node 2's (cluster/alua_takeover) optimized.
# The takeover is a work item of node 2's after the membership change: its
# path at prio 50 says it has run.
st2=$(kt_wait_path_state $p2 '^50 active ready' 60)
out=$(sg_rtpg -d "$d2" 2>&1)
if printf '%s\n' "$out" | awk '/target port group id : 0x1 /{g=1} /target port group id : 0x2 /{g=2}
	/asymmetric access state/ { st[g] = $0 }
	END { exit !(st[1] ~ /0x03/ && st[2] ~ /0x00/) }'; then
	ok "REPORT TARGET PORT GROUPS on node 2: node 1's group Unavailable, node 2's Active/Optimized"
else
	not_ok "REPORT TARGET PORT GROUPS on node 2: node 1's group Unavailable, node 2's Active/Optimized" "$out"
fi
st1=$(kt_wait_path_state $p1 'failed' 30)
if [[ $st2 =~ ^50\ active\ ready ]] && [[ $st1 =~ failed ]]; then
	ok "multipathd: node 1's path failed, node 2's now prio 50 (Active/Optimized)"
else
	not_ok "multipathd: node 1's path failed, node 2's now prio 50 (Active/Optimized)" \
		"$p1: $st1; $p2: $st2"
fi

# --- node 1 boots again --------------------------------------------------
kt_put node1-gone-checked 1
if kt_get node1-back 900 > /dev/null; then
	ok "node 1 booted again and exports the LU"
else
	not_ok "node 1 booted again and exports the LU" "no word from node 1's second run"
fi
got=""
for ((i = 0; i < 120; i++)); do
	got=$(cat $DEV/cluster/members)
	[ "$got" = "1 2" ] && break
	sleep 1
done
check_eq "node 2's cluster has node 1 again (members)" "$got" "1 2"

# open-iscsi logs in again by itself; the first commands hear unit attentions
out=""
for ((i = 0; i < 120; i++)); do
	out=$(sg_persist -n -i -r "$d1" 2>&1) &&
		echo "$out" | grep -q "type: Write Exclusive, registrants only" && break
	sleep 1
done
if echo "$out" | grep -q "type: Write Exclusive, registrants only" &&
   echo "$out" | grep -qi "$KEY"; then
	ok "through node 1 again: the reservation node 1 had before it died"
else
	not_ok "through node 1 again: the reservation node 1 had before it died" "$out"
fi
out=$(sg_persist -n -i -k "$d1" 2>&1)
if [ "$(echo "$out" | grep -ci "$KEY")" = 2 ]; then
	ok "... and both paths' registrations"
else
	not_ok "... and both paths' registrations" "$out"
fi

# ALUA: node 1's group in the state node 1 gives it (or already made
# Active/Optimized by the initiator's ALUA handler, status 01h: dm-multipath
# may activate the returning path's group at once), node 2's kept
out=$(sg_rtpg -d "$d1" 2>&1)
if printf '%s\n' "$out" | awk '/target port group id : 0x1 /{g=1} /target port group id : 0x2 /{g=2}
	/asymmetric access state/ { st[g] = $0 } /status code/ { sc[g] = $0 }
	END { exit !((st[1] ~ /0x02/ || (st[1] ~ /0x00/ && sc[1] ~ /0x01/)) && st[2] ~ /0x00/) }'; then
	ok "REPORT TARGET PORT GROUPS through node 1: its group Standby as configured (or activated by SET TARGET PORT GROUPS), node 2's Active/Optimized"
else
	not_ok "REPORT TARGET PORT GROUPS through node 1: its group Standby as configured (or activated by SET TARGET PORT GROUPS), node 2's Active/Optimized" "$out"
fi
# The path is back when dm-multipath uses it again: "ready", or "ghost"
# while its group is still Standby (nothing has activated it yet: the
# next check does, by switching to its group)
st1=$(kt_wait_path_state $p1 '^[0-9]+ active (ready|ghost)' 60)
if [[ $st1 =~ ^[0-9]+\ active\ (ready|ghost) ]]; then
	ok "multipathd takes node 1's path back ($st1)"
else
	not_ok "multipathd takes node 1's path back" "$p1: $st1; $(multipath -ll 2>&1 | head -12)"
fi

# explicit ALUA: activating node 1's path group (dm-multipath may already
# have, its group being the map's first) makes the kernel's ALUA handler
# send SET TARGET PORT GROUPS (Standby to Active/Optimized) through node 1.
# Nothing else here sends one: status 01h in REPORT TARGET PORT GROUPS
# ("altered by SET TARGET PORT GROUPS") says the handler did.
if sg_rtpg -d "$d2" 2>&1 | grep -A1 'group id : 0x1 ' | grep -q 'state : 0x02'; then
	multipathd switchgroup map "$map" group 2 > /ktout/switchgroup.txt 2>&1
	dd if="$mp" of=/dev/null bs=4k count=1 iflag=direct 2> /dev/null
fi
out=""
for ((i = 0; i < 60; i++)); do
	out=$(sg_rtpg -d "$d2" 2>&1)
	printf '%s\n' "$out" | awk '/target port group id : 0x1 /{g=1} /target port group id : 0x2 /{g=2}
		/asymmetric access state/ { st[g] = $0 } /status code/ { sc[g] = $0 }
		END { exit !(st[1] ~ /0x00/ && sc[1] ~ /0x01/) }' && break
	sleep 1
done
if printf '%s\n' "$out" | awk '/target port group id : 0x1 /{g=1} /target port group id : 0x2 /{g=2}
	/asymmetric access state/ { st[g] = $0 } /status code/ { sc[g] = $0 }
	END { exit !(st[1] ~ /0x00/ && sc[1] ~ /0x01/) }'; then
	ok "multipathd switches to node 1's group: scsi_dh_alua's SET TARGET PORT GROUPS makes it Active/Optimized, seen on node 2"
else
	not_ok "multipathd switches to node 1's group: scsi_dh_alua's SET TARGET PORT GROUPS makes it Active/Optimized, seen on node 2" \
		"$(cat /ktout/switchgroup.txt) $out"
fi
st1=$(kt_wait_path_state $p1 '^50 active ready' 60)
st2=$(kt_wait_path_state $p2 '^50 active ready' 30)
if [[ $st1 =~ ^50\ active\ ready ]] && [[ $st2 =~ ^50\ active\ ready ]]; then
	ok "multipathd: both paths prio 50, in use"
else
	not_ok "multipathd: both paths prio 50, in use" "$p1: $st1; $p2: $st2; $(multipath -ll 2>&1 | head -12)"
fi

# both paths in use again: a registrant writes through node 1's too
fio --name=rejoin --filename=$mp --direct=1 --ioengine=libaio \
	--allow_file_create=0 \
	--rw=randwrite --bs=4k --iodepth=4 --size=16M --verify=crc32c \
	--verify_fatal=1 --output=/ktout/fio-rejoin.txt > /ktout/fio-rejoin.log 2>&1
st=$?
paths=$(dmsetup status "$map" 2>&1)
if [ "$st" = 0 ] && ! grep -qi "verify.*bad\|error" /ktout/fio-rejoin.txt &&
   [ "$(echo "$paths" | grep -Eo '[0-9]+:[0-9]+ A' | wc -l)" = 2 ]; then
	ok "fio writes and verifies through both paths again"
else
	not_ok "fio writes and verifies through both paths again" \
		"$paths $(tail -10 /ktout/fio-rejoin.txt /ktout/fio-rejoin.log 2>/dev/null)"
fi
dd if=/dev/zero of="$d1" bs=4k count=1 seek=8192 oflag=direct 2> /ktout/dd-d1.txt
check_eq "a WRITE through node 1's path alone passes (a registrant, type 5)" "$?" 0

kt_multipathd_stop
iscsiadm -m node -T $IQN --logout > /dev/null 2>&1
kt_put rejoin-checked 1
pkill -x iscsid
kt_unexport_lu $tpg
rmdir $KT_CFS/iscsi
check "node 2: cluster/enable 0 leaves the lockspace" \
	sh -c "echo 0 > $DEV/cluster/enable && [ \$(cat $DEV/cluster/node_id) = 0 ]"
rmdir $gp $DEV $KT_CFS/core/iblock_0
kt_cluster_down
