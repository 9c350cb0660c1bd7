#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# isolation-remote.sh [--name NAME] [--timeout SEC] [isolation.sh options]
#
# isolation.sh with the hostile initiator in a second guest: two 1-vCPU
# guests on a private link (tools/testing/vm/cluster.sh), node 1 the
# target and the three good initiators as in the one-guest run, node 2
# only the hostile client, against node 1's portal on the link. What the
# good ones lose then is the target's doing, not the hostile client's
# Python on their vCPU. Runs on the host:
#
#   tools/testing/bench/isolation-remote.sh --seconds 20
#
# Prints the host's load before and after, and node 1's table; the runs
# are in .vm-out/NAME-node1 (results.txt, raw/) and NAME-node2 (raw/, the
# hostile client's output).
set -uo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
name=isolation-remote timeout_s=3600
while [ $# -gt 0 ]; do
	case $1 in
	--name) name=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	*) break ;;
	esac
done

echo "# host before: $(uptime)"
"$top/tools/testing/vm/cluster.sh" --name "$name" --timeout "$timeout_s" \
	"$top/tools/testing/bench/isolation.sh" --remote "$@"
status=$?
echo "# host after: $(uptime)"
for n in 1 2; do
	out=$top/.vm-out/$name-node$n
	[ "$(cat "$out/status" 2>/dev/null)" = 0 ] ||
		{ echo "# node $n: status $(cat "$out/status" 2>/dev/null || echo none)"
		  tail -5 "$out/output.log" 2>/dev/null | sed 's/^/#   /'; }
done
sed -n '/^isolation: /,$p' "$top/.vm-out/$name-node1/output.log" 2>/dev/null
exit "$status"
