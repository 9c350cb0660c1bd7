#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fuzz-loop.sh MINUTES [TEST...]: the guest suite's files TEST... first (the
# state they leave behind is part of the run), then tests/95-pdu-fuzz.sh
# again and again, each round with a new seed, until MINUTES are up.
# Runs inside the guest (make fuzz-loop boots it); prints each round's TAP
# and seed, and ends with run.sh's "N passed, N failed, N skipped" line
# over every round.
main() {
	local here minutes=$1 end round=0 seed fail=0 pass=0 out
	here=$(cd "$(dirname "$0")" && pwd)
	shift
	if [ $# -gt 0 ]; then
		out=$("$here/run.sh" "$@")
		printf '%s\n' "$out" | grep -v '^guest: '
		printf '%s\n' "$out" | grep -q '^not ok' && fail=$((fail + 1))
	fi
	end=$((SECONDS + minutes * 60))
	while [ $SECONDS -lt "$end" ]; do
		round=$((round + 1))
		seed=$RANDOM$RANDOM
		echo "# round $round, seed $seed, at ${SECONDS} s"
		out=$(KT_PDU_FUZZ_SEED=$seed "$here/run.sh" "$here/tests/95-pdu-fuzz.sh")
		printf '%s\n' "$out" | grep -v '^guest: '
		if printf '%s\n' "$out" | grep -q '^not ok'; then
			fail=$((fail + 1))
			echo "# round $round (seed $seed) failed"
		else
			pass=$((pass + 1))
		fi
	done
	echo "# $round rounds in ${SECONDS} s"
	echo "fuzz-loop: $pass passed, $fail failed, 0 skipped"
	[ "$fail" = 0 ]
}

main "$@"
