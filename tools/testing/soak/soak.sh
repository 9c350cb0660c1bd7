#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# soak.sh [SECONDS]: the soak, inside the guest (`make soak` boots it on the
# debug kernel). For SECONDS (default 1800) it runs, round after round:
# connections cut under fio verify (tests/52), teardown of every piece of
# the configuration under 8 sessions' I/O (tests/57, 2 rounds each), TMFs
# and unit attentions (tests/55), slow and failing backstores (tests/47) and
# the stateful PDU fuzzer (tests/95, 120 s). After each round it samples
# Slab and MemAvailable (after drop_caches) and the kt_iscsi_cmd_* slabs into
# /ktout/soak-samples.txt; two rounds at least. Prints every test's TAP,
# then two checks: the rounds all passed, and neither Slab nor MemAvailable
# moved by more than 32 MiB between the end of the first round and the end
# of the last.
here=$(cd "$(dirname "$0")/../selftests" && pwd)
secs=${1:-1800}
out=/ktout/soak-samples.txt
tests=(tests/52-conn-loss.sh tests/57-teardown-load.sh tests/55-tmf-ua.sh
       tests/47-faults.sh tests/95-pdu-fuzz.sh)

sample() {	# sample LABEL
	sync
	echo 3 > /proc/sys/vm/drop_caches
	printf '%s %s %s %s\n' "$SECONDS" \
		"$(awk '/^Slab:/ { s = $2 } /^MemAvailable:/ { a = $2 } END { print s, a }' /proc/meminfo)" \
		"$(awk '$1 ~ /^kt_iscsi_cmd_/ { n += $2 } END { print n + 0 }' /proc/slabinfo)" \
		"$1" >> $out
}

main() {
	local end=$((SECONDS + secs)) round=0 t fails=0 first last
	export KT_TEARDOWN_ROUNDS=2 KT_PDU_FUZZ_SECONDS=120
	echo "# seconds slab_kib memavailable_kib kt_iscsi_cmd label" > $out
	sample start
	# two rounds at least: growth is measured from the end of round 1
	while [ $SECONDS -lt $end ] || [ $round -lt 2 ]; do
		round=$((round + 1))
		echo "# soak round $round, at $SECONDS of $secs s"
		for t in "${tests[@]}"; do
			"$here/run.sh" "$here/$t" > /tmp/soak-test.log 2>&1 ||
				fails=$((fails + 1))
			grep -E '^(not ok|#   )' /tmp/soak-test.log | head -20
			echo "# $(tail -1 /tmp/soak-test.log) ($(basename "$t" .sh))"
		done
		sample "round $round"
	done
	plan 2
	check_eq "$round soak rounds, every test file passed" "$fails" 0
	first=$(awk '$NF == "1" && $(NF - 1) == "round"' $out)
	last=$(tail -1 $out)
	echo "# first round: $first"
	echo "# last round:  $last"
	moved=$(awk -v f="$first" -v l="$last" 'BEGIN {
		split(f, a); split(l, b)
		printf "Slab %+d KiB, MemAvailable %+d KiB", b[2] - a[2], b[3] - a[3]
		print (b[2] - a[2] <= 32768 && a[3] - b[3] <= 32768) ? "" : " (too much)" }')
	echo "# since round 1: $moved"
	check_eq "neither Slab nor MemAvailable moved by 32 MiB since round 1" \
		"${moved% (too much)}" "$moved"
	# what make soak reports
	[ "$fails" = 0 ] && [ "${moved% (too much)}" = "$moved" ]
}

cd "$here" || exit 1
. ./lib.sh
main "$@"
