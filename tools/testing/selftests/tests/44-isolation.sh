#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Isolation between initiators (iscsi_isolation.py): three initiators that
# behave (WRITE and READ back, EXTENDED COPY, POPULATE TOKEN and WRITE USING
# TOKEN, all compared) alone, then beside a hostile one (TARGET WARM and
# COLD RESET, copy slots and ROD tokens hoarded, Data-In never read, 1000
# connections that send nothing, 50 sessions under as many ISIDs). The good
# ones must see no error either time. Their rates alone and beside the
# hostile one are printed: a figure for the notes, not a check.
. ./lib.sh

# run_good SECONDS: three good initiators at once; 1 if one saw an error
run_good() {
	local i pids=() rc=0

	for i in 0 1 2; do
		python3 ./iscsi_isolation.py good 127.0.0.1:3260 $KT_IQN $i "$1" \
			> /tmp/kt-good-$i.log 2>&1 &
		pids+=($!)
	done
	for i in 0 1 2; do
		wait "${pids[$i]}" || rc=1
	done
	cat /tmp/kt-good-0.log /tmp/kt-good-1.log /tmp/kt-good-2.log
	return $rc
}

main() {
	local out rc hp

	plan 6
	check "an iSCSI target" kt_iscsi_setup
	out=$(run_good 20)
	rc=$?
	echo "$out" | sed 's/^/# alone: /'
	check_eq "three initiators doing verified I/O alone: no error" "$rc" 0
	timeout 300 python3 ./iscsi_isolation.py hostile 127.0.0.1:3260 $KT_IQN 45 \
		> /tmp/kt-hostile.log 2>&1 &
	hp=$!
	# the hostile one at full strength first
	sleep 10
	out=$(run_good 20)
	rc=$?
	echo "$out" | sed 's/^/# beside the hostile one: /'
	check_eq "... and beside a hostile initiator: no error" "$rc" 0
	wait $hp
	sed 's/^/# /' /tmp/kt-hostile.log
	check "the hostile initiator's target resets were refused (AUTHORIZATION FAILED)" \
		grep -q "target resets answered \[6\]" /tmp/kt-hostile.log
	check "no connection, session, command or LUN reference is left" \
		kt_objects_zero 120
	kt_iscsi_teardown
	check "rmmod ktarget_iscsi ktarget_rd ktarget_core" \
		rmmod ktarget_iscsi ktarget_rd ktarget_core
}

main "$@"
