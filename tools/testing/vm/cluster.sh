#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cluster.sh [options] SCRIPT [ARGS...]
#
# Boots two guests at once (run.sh, 1 vCPU and 1 GiB each) that share:
#   - a raw disk image, attached to both (serial ktshared): the LU's store;
#   - a private link, eth0 in each, made of QEMU UDP sockets on 127.0.0.1
#     only (the guests' addresses live only inside that link);
#   - a host folder mounted at /ktshare, for the scenario's barriers.
# Each guest runs SCRIPT with KT_CLUSTER_NODE (1 or 2) and KT_CLUSTER_NODES
# in its environment. Their output is in .vm-out/NAME-node1 and -node2.
#
# A node whose run leaves /ktout/restart (it powers itself off, say) boots
# again with KT_CLUSTER_BOOT=2 (3, ...) and the same script; that run's
# output is in NAME-nodeN-b2 (-b3, ...).
#
# Exit status: 0 when both guests' runs passed (run.sh's status; of a node
# that restarted, its last run's), else the first non-zero one.
#
# Options:
#   --name NAME       run folder prefix (default: cluster)
#   --kver KVER       guest kernel release (default: what `make kver` says)
#   --timeout SEC     whole-run timeout of each guest (default 1800)
#   --disk-size SIZE  size of the shared image (default 256M)
set -uo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
name=cluster kver=() timeout_s=1800 disk_size=256M nodes=2

while [ $# -gt 0 ]; do
	case $1 in
	--name) name=$2; shift 2 ;;
	--kver) kver=(--kver "$2"); shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--disk-size) disk_size=$2; shift 2 ;;
	-*) echo "cluster.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { sed -n '3,25p' "$0" >&2; exit 2; }

base=$top/.vm-out/$name
rm -rf "$base"
mkdir -p "$base/share"
truncate -s 0 "$base/shared.img"
truncate -s "$disk_size" "$base/shared.img"

# two UDP ports per run, from the pid: runs side by side do not meet
port=$((20000 + ($$ % 10000) * 2))

# node N's runs, one after the other while a run asks for a restart
node_runs() {
	local n=$1 link=$2 boot=1 out run=$name-node$1 status

	shift 2
	while :; do
		out=$top/.vm-out/$run
		rm -rf "$out"
		KT_CLUSTER_NODE=$n KT_CLUSTER_NODES=$nodes KT_CLUSTER_BOOT=$boot \
			"$top/tools/testing/vm/run.sh" "${kver[@]}" --name "$run" \
			--quiet --timeout "$timeout_s" --smp 1 --mem 1G \
			--shared-disk "$base/shared.img" --share "$base/share" \
			--link "$link" --mac "52:54:00:4b:54:0$n" "$@"
		status=$?
		[ -e "$out/restart" ] || return "$status"
		boot=$((boot + 1))
		run=$name-node$n-b$boot
	done
}

pids=()
for n in $(seq 1 $nodes); do
	if [ "$n" = 1 ]; then
		link=$port:$((port + 1))
	else
		link=$((port + 1)):$port
	fi
	out=$top/.vm-out/$name-node$n
	rm -rf "$out" "$out"-b*
	node_runs "$n" "$link" "$@" &
	pids+=($!)
	# one `make install` at a time in the tree: wait for this one's
	while kill -0 "${pids[-1]}" 2>/dev/null && [ ! -e "$out/guest.env" ]; do
		sleep 0.5
	done
done

status=0
for pid in "${pids[@]}"; do
	wait "$pid"
	s=$?
	[ "$status" = 0 ] && status=$s
done
exit "$status"
