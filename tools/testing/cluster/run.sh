#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [--kver KVER] SCENARIO...: each scenario (tools/testing/cluster/
# tests/*.sh) on two fresh guests (tools/testing/vm/cluster.sh), both
# running it through the guest test runner. Prints both nodes' TAP, each
# line numbered and marked with its node, and a run of a node that
# finished badly (kernel-log findings, a module that would not unload, no
# status) as a "not ok" of its own, unless the scenario powered the node
# off (it leaves /ktout/poweroff); a node's second boot (cluster.sh,
# /ktout/restart) is marked node1-b2. Ends with "N passed, N failed, N
# skipped" and exits non-zero on any failure.
set -uo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
kver=()
[ "${1:-}" = --kver ] && { kver=(--kver "$2"); shift 2; }
[ $# -ge 1 ] || { sed -n '3,12p' "$0" >&2; exit 2; }

pass=0 fail=0 skipped=0 n=0
for t in "$@"; do
	t=$(cd "$(dirname "$t")" && pwd)/$(basename "$t")
	name=cluster-$(basename "$t" .sh)
	echo "# $(basename "$t" .sh): two nodes"
	"$top/tools/testing/vm/cluster.sh" "${kver[@]}" --name "$name" --timeout 1500 \
		"$top/tools/testing/selftests/run.sh" "$t"
	status=$?
	for out in "$top/.vm-out/$name-node"{1,2} "$top/.vm-out/$name-node"{1,2}-b*; do
		[ -d "$out" ] || continue
		node=${out##*-node}	# 1, or 1-b2 for node 1's second boot
		while IFS= read -r line; do
			case $line in
			"ok "*"# SKIP"*) n=$((n + 1)); skipped=$((skipped + 1))
				echo "ok $n - node$node:${line#ok [0-9]* -}" ;;
			"ok "*) n=$((n + 1)); pass=$((pass + 1))
				echo "ok $n - node$node:${line#ok [0-9]* -}" ;;
			"not ok "*) n=$((n + 1)); fail=$((fail + 1))
				echo "not ok $n - node$node:${line#not ok [0-9]* -}" ;;
			"#"*) echo "$line" ;;
			esac
		done < <(grep -E '^(ok|not ok|#)' "$out/output.log" 2>/dev/null |
			grep -vE '^# (plan|[0-9]+ passed)')
		if [ -e "$out/poweroff" ]; then
			# the scenario powered this node off: no end to check
			echo "# node$node: powered off by the scenario"
		elif [ -s "$out/findings.txt" ] || [ ! -s "$out/status" ] ||
		   [ "$(cat "$out/rmmod.status" 2>/dev/null)" != 0 ]; then
			n=$((n + 1)); fail=$((fail + 1))
			echo "not ok $n - node$node: the guest run ended clean (findings, unload, status)"
			head -40 "$out/findings.txt" 2>/dev/null | sed 's/^/#   /'
			sed 's/^/#   rmmod: /' "$out/rmmod.log" 2>/dev/null | tail -5
			tail -20 "$out/console.log" 2>/dev/null | sed 's/^/#   console: /'
		fi
	done
	[ "$status" = 0 ] || echo "# $(basename "$t" .sh): cluster.sh status $status"
done
echo "1..$n"
echo "$pass passed, $fail failed, $skipped skipped"
[ "$fail" = 0 ]
