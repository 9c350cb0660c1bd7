#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# libiscsi's conformance suite (iscsi-test-cu --dataloss, every test)
# against an rd LUN. Each result is compared with
# tools/testing/libiscsi/known-failures.txt: a failure not listed there fails
# this test; a listed test that now passes is reported so the list shrinks.
# Per-test results and the skip reasons land in the run folder
# (libiscsi-rd.txt) and the counts in the TAP output.
. ./lib.sh

main() {
	local here known res out fails new fixed
	here=$(cd ../libiscsi && pwd)
	known=$here/known-failures.txt
	res=/ktout/libiscsi-rd.txt
	out=/ktout/libiscsi-rd.log

	if ! command -v iscsi-test-cu >/dev/null; then
		skip "iscsi-test-cu" "libiscsi-bin not installed"
		return
	fi
	check "target set up" kt_iscsi_setup
	# a second portal of the same TPG: the MultipathIO family's second path
	check "a second portal" mkdir $KT_CFS/iscsi/$KT_IQN/tpgt_1/np/127.0.0.1:3261
	timeout 1200 iscsi-test-cu --dataloss --test=ALL \
		"iscsi://127.0.0.1:3260/$KT_IQN/0" \
		"iscsi://127.0.0.1:3261/$KT_IQN/0" > $out 2>&1
	python3 "$here/cu-parse.py" $out > $res
	echo "# iscsi-test-cu rd: $(grep -c '^PASS' $res) passed," \
	     "$(grep -c '^FAIL' $res) failed, $(grep -c '^SKIP' $res) skipped"
	check "iscsi-test-cu ran every test" test "$(wc -l < $res)" -ge 200

	fails=$(awk '$1 == "FAIL" { print $2 }' $res | sort)
	new=$(comm -23 <(echo "$fails") <(grep -v '^#' "$known" | awk '{print $1}' | sort))
	fixed=$(comm -13 <(echo "$fails") <(grep -v '^#' "$known" | awk '{print $1}' | sort))
	if [ -z "$new" ]; then
		ok "no iscsi-test-cu failure beyond the known list"
	else
		not_ok "no iscsi-test-cu failure beyond the known list" $new
	fi
	[ -n "$fixed" ] && printf '# now passing, drop from known-failures.txt: %s\n' $fixed

	rmdir $KT_CFS/iscsi/$KT_IQN/tpgt_1/np/127.0.0.1:3261
	kt_iscsi_teardown
	check "rmmod ktarget_iscsi" rmmod ktarget_iscsi
}

main "$@"
