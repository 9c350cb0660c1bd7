#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the cluster scenarios: one node of two guests booted by
# tools/testing/vm/cluster.sh. A scenario file sources this after
# selftests/lib.sh, calls kt_node_up and kt_cluster_up, and keeps in step
# with the other node through kt_barrier.
#
# What each node gets:
#   KT_NODE, KT_NODES   this node's number (1, 2) and how many there are
#   KT_NODE_ADDR N      node N's address on the private link (10.77.0.N)
#   KT_SHARED_DISK      the disk both nodes see (the LU's backing store)

KT_NODE=${KT_CLUSTER_NODE:-1}
KT_NODES=${KT_CLUSTER_NODES:-1}
KT_CLUSTER_NAME=ktcluster
KT_SHARE=/ktshare
KT_CLUSTER_TOOLS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

kt_node_addr() { echo "10.77.0.$1"; }

# kt_shared_disk: the /dev name of the disk with serial ktshared
kt_shared_disk() {
	local s
	for s in /sys/block/vd*/serial; do
		[ "$(cat "$s" 2>/dev/null)" = ktshared ] || continue
		s=${s%/serial}
		echo "/dev/${s##*/}"
		return 0
	done
	return 1
}

# kt_node_up: this node's name and address on the link
kt_node_up() {
	hostname "ktnode$KT_NODE"
	modprobe virtio_net 2>/dev/null
	modprobe virtio_blk 2>/dev/null
	# IPv4 only: no address autoconfiguration lines in the kernel log
	sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
	ip link set eth0 up || return 1
	ip addr add "$(kt_node_addr "$KT_NODE")/24" dev eth0 || return 1
	KT_SHARED_DISK=$(kt_shared_disk) || { echo "# no shared disk"; return 1; }
}

# A node whose script ends, early or not, says so: the other node's
# barriers then fail at once instead of waiting out their time.
trap ': > "$KT_SHARE/ended.$KT_NODE"' EXIT

# kt_barrier NAME [SECONDS]: wait until every node has reached NAME
# (default 600 s: a guest under TCG boots and sets up at its own pace);
# fails when a node's script ended before reaching it
kt_barrier() {
	local name=$1 limit=${2:-600} n all i
	: > "$KT_SHARE/barrier.$name.$KT_NODE"
	for ((i = 0; i < limit * 5; i++)); do
		all=1
		for ((n = 1; n <= KT_NODES; n++)); do
			[ -e "$KT_SHARE/barrier.$name.$n" ] || all=0
		done
		[ "$all" = 1 ] && return 0
		if compgen -G "$KT_SHARE/ended.*" > /dev/null; then
			echo "# barrier $name: a node's script has ended"
			return 1
		fi
		sleep 0.2
	done
	echo "# barrier $name: the other node did not come within ${limit} s"
	return 1
}

# kt_put KEY VALUE / kt_get KEY [SECONDS]: hand a value to the other node
kt_put() { printf '%s\n' "$2" > "$KT_SHARE/val.$1.tmp" && mv "$KT_SHARE/val.$1.tmp" "$KT_SHARE/val.$1"; }
kt_get() {
	local i
	for ((i = 0; i < ${2:-600} * 5; i++)); do
		[ -e "$KT_SHARE/val.$1" ] && { cat "$KT_SHARE/val.$1"; return 0; }
		sleep 0.2
	done
	return 1
}

# kt_cluster_up: corosync (knet over the link, two_node quorum) and
# dlm_controld without fencing (the test has no fence device), then wait
# until both nodes are members and the DLM daemon is ready
kt_cluster_up() {
	local n i
	mkdir -p /etc/corosync /var/lib/corosync /var/log/corosync /var/log/cluster
	{
		echo "totem {"
		echo "	version: 2"
		echo "	cluster_name: $KT_CLUSTER_NAME"
		echo "	transport: knet"
		echo "	crypto_cipher: none"
		echo "	crypto_hash: none"
		# a TCG guest can stall for seconds; do not call that a failure
		echo "	token: 10000"
		echo "}"
		echo "nodelist {"
		for ((n = 1; n <= KT_NODES; n++)); do
			echo "	node {"
			echo "		ring0_addr: $(kt_node_addr $n)"
			echo "		name: ktnode$n"
			echo "		nodeid: $n"
			echo "	}"
		done
		echo "}"
		echo "quorum {"
		echo "	provider: corosync_votequorum"
		[ "$KT_NODES" = 2 ] && echo "	two_node: 1"
		echo "}"
		echo "logging {"
		echo "	to_logfile: yes"
		echo "	logfile: /ktout/corosync.log"
		echo "	to_syslog: no"
		echo "	to_stderr: no"
		echo "}"
	} > /etc/corosync/corosync.conf
	corosync || { echo "# corosync did not start"; return 1; }
	for ((i = 0; i < 600; i++)); do
		corosync-quorumtool -s 2>/dev/null | grep -q '^Quorate: *Yes' && break
		sleep 0.5
	done
	corosync-quorumtool -s 2>/dev/null | grep -q '^Quorate: *Yes' ||
		{ echo "# corosync: no quorum"; corosync-quorumtool -s 2>&1 | sed 's/^/#   /'; return 1; }

	modprobe dlm || return 1
	# the daemon waits for udev to put the DLM's devices under /dev/misc;
	# there is no udev, devtmpfs has them at the top
	mkdir -p /dev/misc
	for d in dlm-control dlm-monitor dlm_plock; do
		[ -e /dev/$d ] && ln -sf ../$d /dev/misc/$d
	done
	dlm_controld --daemon_debug 1 --enable_fencing 0 \
		--enable_quorum_lockspace 0 > /ktout/dlm_controld.out 2>&1 &
	for ((i = 0; i < 300; i++)); do
		pgrep -x dlm_controld > /dev/null &&
			dlm_tool status 2>/dev/null | grep -q "^cluster nodeid $KT_NODE " && break
		sleep 0.5
	done
	sleep 1
	pgrep -x dlm_controld > /dev/null &&
		dlm_tool status 2>/dev/null | grep -q "^cluster nodeid $KT_NODE " ||
		{ echo "# dlm_controld: not in the cluster"; dlm_tool status 2>&1 | sed 's/^/#   /'
		  tail -5 /ktout/dlm_controld.out | sed 's/^/#   /'; return 1; }
	# When a node's last lockspace goes, 6.1's DLM shuts its connections
	# down, and there the debug kernel reports two DLM bugs of its own
	# (dlm_midcomms_shutdown() allocates under a spinlock; close_connection()
	# flushes a work item under the socket mutex that work takes). A
	# lockspace of the test's own, kept to the end, leaves that path alone.
	# (libdlm then waits for udev to make /dev/misc/dlm_kt_test_keep)
	( for ((i = 0; i < 100; i++)); do
		[ -e /dev/dlm_kt_test_keep ] &&
			{ ln -sf ../dlm_kt_test_keep /dev/misc/dlm_kt_test_keep; break; }
		sleep 0.1
	  done ) &
	dlm_tool join kt_test_keep > /ktout/dlm_tool_join.out 2>&1
	wait $!
	dlm_tool ls 2>/dev/null | grep -q '^name *kt_test_keep' ||
		{ echo "# dlm_tool join kt_test_keep failed"; sed 's/^/#   /' /ktout/dlm_tool_join.out; return 1; }
}

# kt_caw_race SECONDS IQN DESCRIPTION: caw_race.py from this node through
# both nodes' portals (LUN 0); one check, ok when no increment was lost.
# Its output stays in $KT_CAW_RACE_OUT for the caller's further checks.
kt_caw_race() {
	local st
	KT_CAW_RACE_OUT=$(timeout $(($1 + 180)) python3 "$KT_CLUSTER_TOOLS/caw_race.py" \
		"$1" "$2" "$2-racer" 0 "$(kt_node_addr 1):3260" "$(kt_node_addr 2):3260" 2>&1)
	st=$?
	printf '%s\n' "$KT_CAW_RACE_OUT" | sed 's/^/# /'
	if [ "$st" = 0 ]; then
		ok "$3"
	else
		not_ok "$3" "$KT_CAW_RACE_OUT"
	fi
}

# kt_py_checks N DESCRIPTION SCRIPT IQN: a tap.py script from this node
# through both nodes' portals (LUN 0); its TAP lines, N of them, become
# this test's, "not ok" for each it did not reach.
kt_py_checks() {
	local want=$1 desc=$2 out n
	out=$(timeout 600 python3 "$KT_CLUSTER_TOOLS/$3" "$4" 0 \
		"$(kt_node_addr 1):3260" "$(kt_node_addr 2):3260" 2>&1)
	printf '%s\n' "$out" | grep -E '^(ok|not ok|#)'
	n=$(printf '%s\n' "$out" | grep -cE '^(ok|not ok) ')
	while [ "$n" -lt "$want" ]; do
		not_ok "$desc ($3 ended early)" "$(printf '%s\n' "$out" | tail -5)"
		n=$((n + 1))
	done
}

# persistent reservations and ALUA across the nodes: kt_pr_nodes IQN ...
PR_NODES_CHECKS=31
ALUA_NODES_CHECKS=4
kt_pr_nodes() {
	kt_py_checks $PR_NODES_CHECKS "persistent reservations across nodes" pr_nodes.py "$1"
}
kt_alua_nodes() {
	kt_py_checks $ALUA_NODES_CHECKS "ALUA across nodes" alua_nodes.py "$1"
}

# a clustered LU offers no token copy: kt_rod_nodes IQN on node 1
ROD_NODES_CHECKS=3
kt_rod_nodes() {
	kt_py_checks $ROD_NODES_CHECKS "no token copy on a clustered LU" rod_nodes.py "$1"
}

# a lockspace that stays in recovery: kt_lockspace_lost IQN LOCKSPACE on
# node 1, kt_lockspace_follow LOCKSPACE on node 2 (it stops and starts its
# side when lockspace_lost.py asks, and returns when node 1 says done)
LOCKSPACE_LOST_CHECKS=7
kt_lockspace_lost() {
	local tpg=$KT_CFS/iscsi/$1/tpgt_1 rd=$KT_CFS/core/rd_mcp_9/local

	# LUN 1 of node 1's TPG: a LU of its own, out of cluster mode
	mkdir -p $rd && echo rd_pages=256 > $rd/control && echo 1 > $rd/enable &&
		mkdir $tpg/lun/lun_1 && ln -s $rd $tpg/lun/lun_1/local
	KT_LOCKSPACE=$2 kt_py_checks $LOCKSPACE_LOST_CHECKS \
		"a lockspace that stays in recovery" lockspace_lost.py "$1"
	kt_put ls-done 1
	rm -f $tpg/lun/lun_1/local
	rmdir $tpg/lun/lun_1 $rd $KT_CFS/core/rd_mcp_9
}
kt_lockspace_follow() {
	local ctl=/sys/kernel/dlm/$1/control i
	local t=/sys/module/ktarget_cluster/parameters/recovery_timeout

	for ((i = 0; i < 3000; i++)); do
		[ -e $KT_SHARE/val.ls-stop ] || [ -e $KT_SHARE/val.ls-done ] && break
		sleep 0.5
	done
	[ -e $KT_SHARE/val.ls-stop ] || return 0
	[ -w $t ] && echo 2 > $t
	echo 0 > "$ctl"
	kt_put ls-stopped 1
	kt_get ls-start 300 > /dev/null
	echo 1 > "$ctl"
	kt_put ls-started 1
}

# kt_shared_dev SERIAL: the modules, and $DEV (iblock on the shared disk)
# with unit serial SERIAL (none if empty), enabled; 1 when any step fails.
# KT_CORE_PARAMS: ktarget_core's module parameters, an array
DEV=$KT_CFS/core/iblock_0/shared
kt_shared_dev() {
	modprobe ktarget_core "${KT_CORE_PARAMS[@]}" && modprobe ktarget_iblock &&
		modprobe ktarget_iscsi || return 1
	mkdir -p $DEV && echo "udev_path=$KT_SHARED_DISK" > $DEV/control &&
		echo 1 > $DEV/enable &&
		{ [ -z "$1" ] || echo "$1" > $DEV/wwn/vpd_unit_serial; }
}

# kt_export_lu TPG [GROUP]: $DEV as LUN 0 of TPG (its port in target port
# group GROUP, if given), on this node's portal, demo mode, enabled
kt_export_lu() {
	mkdir -p "$1/lun/lun_0" && ln -s $DEV "$1/lun/lun_0/shared" &&
		{ [ -z "${2:-}" ] || echo "$2" > "$1/lun/lun_0/alua_tg_pt_gp"; } &&
		mkdir -p "$1/np/$(kt_node_addr "$KT_NODE"):3260" &&
		echo 0 > "$1/attrib/authentication" &&
		echo 1 > "$1/attrib/generate_node_acls" &&
		echo 0 > "$1/attrib/demo_mode_write_protect" &&
		echo 1 > "$1/enable"
}

# kt_unexport_lu TPG: undo kt_export_lu, and the TPG with its target
kt_unexport_lu() {
	echo 0 > "$1/enable"
	rmdir "$1/np/$(kt_node_addr "$KT_NODE"):3260"
	rm "$1/lun/lun_0/shared"
	rmdir "$1/lun/lun_0" "$1" "$(dirname "$1")"
}

# kt_cu_nodes DESCRIPTION TESTS URL...: iscsi-test-cu's TESTS (--test=)
# against URL...; one check, ok when some ran and none failed. Its
# per-test lines stay in /ktout/cu-TESTS.txt.
kt_cu_nodes() {
	local desc=$1 tests=$2 res out
	shift 2
	res=/ktout/cu-${tests//\*/}.txt
	out=/ktout/cu-${tests//\*/}.log
	timeout 900 iscsi-test-cu --dataloss --test="$tests" "$@" > "$out" 2>&1
	python3 "$KT_CLUSTER_TOOLS/../libiscsi/cu-parse.py" "$out" > "$res"
	echo "# iscsi-test-cu $tests: $(grep -c '^PASS' "$res") passed," \
	     "$(grep -c '^FAIL' "$res") failed, $(grep -c '^SKIP' "$res") skipped"
	if grep -q '^PASS' "$res" && ! grep -q '^FAIL' "$res"; then
		ok "$desc"
	else
		not_ok "$desc" "$(grep -v '^PASS' "$res" | head -10)"
	fi
}

# kt_multipathd_start: udev (the guest has no init to start it; the
# initramfs way: a daemon, then a trigger) and multipathd with the ALUA
# settings a storage admin gives ALUA arrays: paths grouped by their
# access state (prio alua), the kernel's ALUA handler (scsi_dh_alua, which
# sends SET TARGET PORT GROUPS to activate a Standby group), failback
kt_multipathd_start() {
	local i
	/lib/systemd/systemd-udevd --daemon --resolve-names=never 2> /ktout/udevd.log ||
		return 1
	udevadm trigger --action=add && udevadm settle -t 60
	modprobe dm_multipath && modprobe scsi_dh_alua || return 1
	cat > /etc/multipath.conf <<-EOF
	defaults {
		user_friendly_names no
		find_multipaths no
		polling_interval 2
	}
	devices {
		device {
			vendor "KTARGET"
			product ".*"
			path_grouping_policy group_by_prio
			prio alua
			hardware_handler "1 alua"
			failback immediate
			no_path_retry queue
		}
	}
	EOF
	multipathd -d -s > /ktout/multipathd.log 2>&1 &
	for ((i = 0; i < 100; i++)); do
		multipathd show maps 2>/dev/null | grep -q . && return 0
		sleep 0.2
	done
	return 1
}

# kt_multipath_map: the name of the (only) multipath map, waiting for it
kt_multipath_map() {
	local i m
	for ((i = 0; i < 150; i++)); do
		m=$(multipathd show maps format "%n" 2>/dev/null | awk 'NR > 1 && $1 != "" { print $1; exit }')
		[ -n "$m" ] && [ -b "/dev/mapper/$m" ] && { echo "$m"; return 0; }
		sleep 0.2
	done
	return 1
}

# kt_path_state DEV: "PRIO DM_STATE CHECKER_STATE" of path DEV (sda) as
# multipathd sees it
kt_path_state() {
	multipathd show paths format "%d %p %t %T" 2>/dev/null |
		awk -v d="$1" '$1 == d { print $2, $3, $4 }'
}

# kt_wait_path_state DEV PATTERN [SECONDS]: until kt_path_state DEV matches
# the extended regular expression PATTERN; prints the last state
kt_wait_path_state() {
	local i st
	for ((i = 0; i < ${3:-60} * 2; i++)); do
		st=$(kt_path_state "$1")
		[[ $st =~ $2 ]] && break
		sleep 0.5
	done
	echo "$st"
	[[ $st =~ $2 ]]
}

# kt_multipathd_stop: the maps flushed, multipathd and udev stopped
kt_multipathd_stop() {
	pkill -x multipathd
	sleep 1
	multipath -F > /dev/null 2>&1
	udevadm control --exit 2>/dev/null
}

# kt_cluster_down: stop the DLM daemon and corosync (after every lockspace
# is gone)
kt_cluster_down() {
	pkill -x dlm_controld
	corosync-cfgtool -H --force 2>/dev/null || pkill -x corosync
	sleep 1
}
