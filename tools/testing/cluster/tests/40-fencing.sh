#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fencing through the target, as Pacemaker does it with fence_scsi
# (Debian's fence-agents): each node is also a host that reaches the LU
# through its own node's portal, and `fence_scsi -o on` registers its key
# (node 1 first, which then holds the reservation, Write Exclusive -
# Registrants Only). Host 2 writes with fio, 16 writes in flight, through
# node 2, whose copy of the LU sits on a dm-delay device that holds every
# write KT_FENCE_DELAY_MS (default 12000: longer than fence_scsi takes
# after its PREEMPT AND ABORT) before it reaches the shared disk.
# Host 1 then fences host 2: `fence_scsi -o off -k 2`, a PREEMPT AND ABORT
# through node 1. A fence agent trusts that once its PREEMPT AND ABORT has
# returned no write of the fenced host lands, so fence_scsi runs
# sg_persist through a wrapper that reads the region host 2 writes as soon
# as the PREEMPT AND ABORT has returned; host 1 reads it again after
# twice the delay: the two must be the same. Host 2's next write is refused, and `fence_scsi -o status`
# says key 2 is off. Before a PREEMPT AND ABORT waited for the other
# nodes, node 1 answered it at once and host 2's delayed writes landed
# after the fence.

here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/../selftests/lib.sh"
. "$here/lib.sh"

IQN=iqn.2026-12.org.ktarget:fencing
SERIAL=ktcluster-fence-01
DELAY_MS=${KT_FENCE_DELAY_MS:-12000}
REGION_MB=8
tpg=$KT_CFS/iscsi/$IQN/tpgt_$KT_NODE

if [ "$KT_NODE" = 1 ]; then plan 8; else plan 5; fi

kt_node_up || { not_ok "node $KT_NODE: link and shared disk"; exit 0; }
if [ "$KT_NODE" = 2 ]; then
	# node 2's writes reach the shared disk DELAY_MS late; reads do not wait
	size=$(blockdev --getsz "$KT_SHARED_DISK")
	modprobe dm_delay &&
		DM_DISABLE_UDEV=1 dmsetup --noudevsync create ktdelay --table \
			"0 $size delay $KT_SHARED_DISK 0 0 $KT_SHARED_DISK 0 $DELAY_MS" ||
		{ not_ok "node 2: dm-delay over the shared disk"; exit 0; }
	KT_SHARED_DISK=/dev/mapper/ktdelay
fi
kt_shared_dev $SERIAL || { not_ok "modules and device"; exit 0; }
kt_cluster_up
check "node $KT_NODE: cluster/enable joins" sh -c "echo 1 > $DEV/cluster/enable"
kt_barrier joined
kt_export_lu $tpg
check_eq "node $KT_NODE: the LU is exported on $(kt_node_addr "$KT_NODE"):3260" $? 0
kt_barrier exported

# this node's host, through this node's portal
modprobe iscsi_tcp && modprobe sd_mod
mkdir -p /etc/iscsi /run/lock/iscsi /var/lib/iscsi /var/run/cluster
echo "InitiatorName=iqn.2026-12.org.ktarget:host$KT_NODE" > /etc/iscsi/initiatorname.iscsi
iscsid
sleep 1
p=$(kt_node_addr "$KT_NODE"):3260
iscsiadm -m discovery -t st -p "$p" > /dev/null 2>&1
iscsiadm -m node -T $IQN -p "$p" --login > /dev/null 2>&1
d=$(kt_iscsi_disk)
check_eq "host $KT_NODE: logged in through node $KT_NODE" "$([ -b "$d" ] && echo yes)" yes

# node 1 first: it makes the reservation, node 2 only registers
[ "$KT_NODE" = 2 ] && kt_get host1-on 600 > /dev/null
check "host $KT_NODE: fence_scsi -o on -k $KT_NODE registers its key" \
	fence_scsi -o on -k "$KT_NODE" -d "$d"
[ "$KT_NODE" = 1 ] && kt_put host1-on 1
kt_barrier registered

if [ "$KT_NODE" = 2 ]; then
	fio --name=fenced --filename="$d" --direct=1 --ioengine=libaio \
		--allow_file_create=0 \
		--iodepth=16 --rw=randwrite --bs=4k --size=${REGION_MB}M \
		--time_based --runtime=600 --continue_on_error=all \
		--output=/ktout/fio-fenced.txt > /dev/null 2>&1 &
	fio_pid=$!
	kt_put writing 1
	kt_get fenced 900 > /dev/null
	check_fails "host 2: a write after the fence is refused" \
		dd if=/dev/urandom of="$d" bs=4k count=1 seek=7 oflag=direct status=none
	kill $fio_pid 2> /dev/null
	wait $fio_pid 2> /dev/null
	echo "# host 2's fio: $(grep -E 'write: IOPS|err=' /ktout/fio-fenced.txt | tr -s ' ' | head -2 | tr '\n' ' ')"
else
	kt_get writing 600 > /dev/null
	# let writes through node 2 pile up in its delay
	sleep $((DELAY_MS / 1000 + 3))
	# fence_scsi's sg_persist: each call timed, the region read the
	# moment its PREEMPT AND ABORT (-A) has returned
	cat > /tmp/sg_persist-read <<-EOF
	#!/bin/sh
	t0=\$(date +%s%N)
	/usr/bin/sg_persist "\$@"
	st=\$?
	t1=\$(date +%s%N)
	case " \$* " in *" -A "*)
		dd if=$d bs=1M count=$REGION_MB iflag=direct status=none |
			sha256sum > /ktout/after-preempt.sum ;;
	esac
	echo "\$(((t1 - t0) / 1000000)) ms, status \$st: sg_persist \$*" >> /ktout/sg_persist-calls.txt
	exit \$st
	EOF
	chmod +x /tmp/sg_persist-read
	t0=$(date +%s%N)
	fence_scsi -o off -k 2 -d "$d" --sg_persist-path=/tmp/sg_persist-read \
		> /ktout/fence-off.txt 2>&1
	st=$?
	t1=$(date +%s%N)
	kt_put fenced 1
	sed 's/^/# /' /ktout/sg_persist-calls.txt
	check_eq "host 1: fence_scsi -o off -k 2 (PREEMPT AND ABORT through node 1) succeeds, in $(((t1 - t0) / 1000000)) ms" \
		"$st" 0
	sleep $((2 * DELAY_MS / 1000 + 2))
	after=$(dd if="$d" bs=1M count=$REGION_MB iflag=direct status=none | sha256sum)
	check_eq "no write of host 2 landed after the PREEMPT AND ABORT returned (the region read then and about $((2 * DELAY_MS / 1000 + 2)) s later)" \
		"$after" "$(cat /ktout/after-preempt.sum 2>/dev/null)"
	fence_scsi -o status -k 2 -d "$d" > /dev/null 2>&1
	check_eq "host 1: fence_scsi -o status -k 2 says off (exit status 2)" $? 2
	keys=$(sg_persist -n -i -k "$d" 2>&1 | awk '/^ +0x/ { printf "%s ", $1 }')
	check_eq "registered keys after the fence" "$keys" "0x1 "
fi
kt_barrier checked 900

# the disk goes first, from here: a logout that removes it from the
# iSCSI control work can meet the runtime PM work its removal queued on
# the target above it, and 6.1 then warns (check_flush_dependency)
echo 1 > "/sys/block/${d#/dev/}/device/delete"
sleep 2
iscsiadm -m node -u > /dev/null 2>&1
pkill -x iscsid
kt_barrier logged-out
kt_unexport_lu $tpg
rmdir $KT_CFS/iscsi
echo 0 > $DEV/cluster/enable
rmdir $DEV $KT_CFS/core/iblock_0
[ "$KT_NODE" = 2 ] && DM_DISABLE_UDEV=1 dmsetup --noudevsync remove ktdelay
kt_cluster_down
