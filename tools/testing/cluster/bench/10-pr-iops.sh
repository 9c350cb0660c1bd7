#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Cluster mode's cost, measured on node 1 with node 2 in the lockspace:
# 4k random READ IOPS (libiscsi's iscsi-perf, queue depth 8) and the
# latency of a PERSISTENT RESERVE OUT that changes the state
# (prout_latency.py), on the same LU with cluster mode on and off, in
# rounds that alternate the order. Prints each round and the best of each
# mode as "# figure" lines; a check fails only when a measurement could
# not be taken. Not part of make test: make cluster-bench.

here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/../selftests/lib.sh"
. "$here/lib.sh"

IQN=iqn.2026-12.org.ktarget:bench
ROUNDS=${KT_CLUSTER_BENCH_ROUNDS:-3}
SECS=${KT_CLUSTER_BENCH_SECONDS:-10}
REPORT=$here/../bench/report.py
tpg=$KT_CFS/iscsi/$IQN/tpgt_$KT_NODE

if [ "$KT_NODE" = 1 ]; then plan $((2 + ROUNDS * 2)); else plan 2; fi

kt_node_up || { not_ok "node $KT_NODE: link and shared disk"; exit 0; }
kt_shared_dev ktcluster-bench-0001 || { not_ok "modules and device"; exit 0; }
kt_cluster_up
check "node $KT_NODE: cluster/enable joins" sh -c "echo 1 > $DEV/cluster/enable"
kt_barrier joined

# measure MODE ROUND: one round of both figures with cluster mode MODE
measure() {
	local mode=$1 r=$2 f=/ktout/perf-$1-$2.txt iops lat
	[ "$(cat $DEV/cluster/enable)" = "$mode" ] || echo "$mode" > $DEV/cluster/enable
	kt_export_lu $tpg
	timeout -s INT "$SECS" iscsi-perf -l -m 8 -b 8 -r \
		"iscsi://$(kt_node_addr 1):3260/$IQN/0" > "$f" 2>&1
	iops=$(python3 "$REPORT" perf "$f" 4096 IOPS 2>/dev/null)
	lat=$(python3 "$KT_CLUSTER_TOOLS/prout_latency.py" "$IQN" 0 \
		"$(kt_node_addr 1):3260" 200 2>&1)
	kt_unexport_lu $tpg
	echo "# round $r, cluster mode $mode: 4k randread QD8 $iops IOPS; PR OUT ms $lat"
	if [ -n "$iops" ] && [[ $lat == mean* ]]; then
		ok "round $r, cluster mode $mode: measured"
		echo "$iops ${lat#mean }" >> /ktout/figures-$mode.txt
	else
		not_ok "round $r, cluster mode $mode: measured" "$(tail -3 "$f")"
	fi
}

if [ "$KT_NODE" = 1 ]; then
	for ((r = 1; r <= ROUNDS; r++)); do
		if ((r % 2)); then measure 1 $r; measure 0 $r; else measure 0 $r; measure 1 $r; fi
	done
	# best of the rounds: most IOPS, least PR OUT mean
	for m in 1 0; do
		best_iops=$(awk '{print $1}' /ktout/figures-$m.txt | sort -g | tail -1)
		best_lat=$(awk '{print $2}' /ktout/figures-$m.txt | sort -g | head -1)
		echo "# figure: cluster mode $m: best 4k randread QD8 $best_iops IOPS, best mean PR OUT $best_lat ms"
		eval "iops_$m=$best_iops lat_$m=$best_lat"
	done
	echo "# figure: IOPS clustered / local = $(awk "BEGIN { printf \"%.3f\", $iops_1 / $iops_0 }")," \
	     "PR OUT latency clustered / local = $(awk "BEGIN { printf \"%.2f\", $lat_1 / $lat_0 }")"
fi
kt_barrier measured $((ROUNDS * (SECS + 120) * 2 + 300))
[ "$(cat $DEV/cluster/enable)" = 0 ] || echo 0 > $DEV/cluster/enable
check "node $KT_NODE: cluster/enable 0 leaves" sh -c "[ \$(cat $DEV/cluster/node_id) = 0 ]"
kt_barrier left
rmdir $KT_CFS/iscsi 2>/dev/null
rmdir $DEV $KT_CFS/core/iblock_0
kt_cluster_down
