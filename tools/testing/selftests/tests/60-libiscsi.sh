#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# libiscsi's conformance suite (iscsi-test-cu --dataloss, every test)
# against an rd LUN, a fileio LUN (a file) and an iblock LUN (a brd
# ramdisk), each as LUN 0 of the same TPG with a second portal for the
# MultipathIO family. Each result is compared with
# tools/testing/libiscsi/known-failures.txt: a failure not listed there fails
# this test; a listed test that now passes is reported so the list shrinks.
# Per-test results land in the run folder (libiscsi-BACKSTORE.txt), the
# counts in the TAP output, and every skip must have its reason in
# tools/testing/libiscsi/skips.txt.
. ./lib.sh

KT_TPG=$KT_CFS/iscsi/$KT_IQN/tpgt_1

# run_cu BACKSTORE: the whole suite, checked against the known lists
run_cu() {
	local bs=$1 here known skips res out fails new fixed unexplained
	here=$(cd ../libiscsi && pwd)
	known=$here/known-failures.txt
	skips=$here/skips.txt
	res=/ktout/libiscsi-$bs.txt
	out=/ktout/libiscsi-$bs.log

	check "LUN 0 is a $bs device" kt_lun0_backstore $bs
	timeout 1200 iscsi-test-cu --dataloss --test=ALL \
		"iscsi://127.0.0.1:3260/$KT_IQN/0" \
		"iscsi://127.0.0.1:3261/$KT_IQN/0" > $out 2>&1
	python3 "$here/cu-parse.py" $out > $res
	echo "# iscsi-test-cu $bs: $(grep -c '^PASS' $res) passed," \
	     "$(grep -c '^FAIL' $res) failed, $(grep -c '^SKIP' $res) skipped"
	check "iscsi-test-cu ran every test on $bs" test "$(wc -l < $res)" -ge 200

	fails=$(awk '$1 == "FAIL" { print $2 }' $res | sort)
	new=$(comm -23 <(echo "$fails") <(grep -v '^#' "$known" | awk '{print $1}' | sort))
	fixed=$(comm -13 <(echo "$fails") <(grep -v '^#' "$known" | awk '{print $1}' | sort))
	if [ -z "$new" ]; then
		ok "$bs: no iscsi-test-cu failure beyond the known list"
	else
		not_ok "$bs: no iscsi-test-cu failure beyond the known list" $new
	fi
	[ -n "$fixed" ] && printf '# %s: now passing, drop from known-failures.txt: %s\n' $bs $fixed

	unexplained=$(comm -23 <(awk '$1 == "SKIP" { print $2 }' $res | sort) \
		<(grep -v '^#' "$skips" | awk '{print $1}' | sort))
	if [ -z "$unexplained" ]; then
		ok "$bs: every skipped test has its reason in skips.txt"
	else
		not_ok "$bs: every skipped test has its reason in skips.txt" $unexplained
	fi
	sanitize_cu $bs
	kt_lun0_drop $bs
}

# sanitize_cu BACKSTORE: the Sanitize family, which erases the LU and so
# runs only with --allow-sanitize, one test at a time. Sanitize.Reset is
# left out: it needs an OVERWRITE still running 3 s after it started, far
# longer than one of this 64 MiB LU takes (tests/55 covers what it checks
# on a larger LU). CryptoErase skips everywhere
# (no backstore encrypts its medium); BlockErase skips where the backstore
# cannot show deallocated blocks through GET LBA STATUS (rd, iblock).
# Readonly and Reservations check every service action offered and then
# report themselves skipped for the one that is not (CRYPTOGRAPHIC ERASE).
sanitize_cu() {
	local bs=$1 t before out=/ktout/libiscsi-sanitize-$bs.log
	local res=/ktout/libiscsi-sanitize-$bs.txt may_skip="CryptoErase Readonly Reservations"
	local tests="BlockErase BlockEraseReserved CryptoErase CryptoEraseReserved
		ExitFailureMode InvalidServiceAction Overwrite OverwriteReserved
		Readonly Reservations"

	[ $bs = fileio ] || may_skip="$may_skip BlockErase"
	before=$(dmesg | grep -c 'SANITIZE OVERWRITE done')
	: > $res
	for t in $tests; do
		timeout 300 iscsi-test-cu --dataloss --allow-sanitize \
			--test=ALL.Sanitize.$t \
			"iscsi://127.0.0.1:3260/$KT_IQN/0" > $out.$t 2>&1
		python3 "$(cd ../libiscsi && pwd)/cu-parse.py" $out.$t >> $res
	done
	echo "# iscsi-test-cu Sanitize on $bs: $(grep -c '^PASS' $res) passed," \
	     "$(grep -c '^FAIL' $res) failed, $(grep -c '^SKIP' $res) skipped"
	check "$bs: the Sanitize family ran" test "$(wc -l < $res)" -eq 10
	check "$bs: no Sanitize test fails" test -z "$(grep '^FAIL' $res)"
	check "$bs: Sanitize skips only $may_skip" test -z \
		"$(awk '$1 == "SKIP" { print $2 }' $res |
		   grep -vxF "$(printf 'Sanitize.%s\n' $may_skip)")"
	if [ $bs = fileio ]; then
		check "fileio: Sanitize.BlockErase passes" \
			grep -qx 'PASS Sanitize.BlockErase' $res
	fi
	check "$bs: the kernel log shows the OVERWRITEs completed" test \
		"$(dmesg | grep -c 'SANITIZE OVERWRITE done')" -gt "$before"
}

# readonly_cu: the ReadOnly family, which the main run skips, against LUN 0
# mapped write-protected through an ACL for libiscsi's initiator name
readonly_cu() {
	local ini=iqn.2007-10.com.github:sahlberg:libiscsi:iscsi-test
	local acl=$KT_TPG/acls/$ini out=/ktout/libiscsi-readonly.log
	local res=/ktout/libiscsi-readonly.txt

	check "a write-protected ACL LUN for $ini" sh -c "mkdir -p $acl/lun_0 &&
		ln -s $KT_TPG/lun/lun_0 $acl/lun_0/lun0 &&
		echo 1 > $acl/lun_0/write_protect"
	timeout 300 iscsi-test-cu --dataloss --test=ALL.ReadOnly \
		"iscsi://127.0.0.1:3260/$KT_IQN/0" > $out 2>&1
	python3 "$(cd ../libiscsi && pwd)/cu-parse.py" $out > $res
	echo "# iscsi-test-cu ReadOnly: $(grep -c '^PASS' $res) passed," \
	     "$(grep -c '^FAIL' $res) failed, $(grep -c '^SKIP' $res) skipped"
	check "ReadOnly.ReadOnlySBC passes on a write-protected LUN" \
		grep -qx 'PASS ReadOnly.ReadOnlySBC' $res
	check "the ReadOnly family has no failure or skip" \
		test -z "$(grep -v '^PASS' $res)"
	rm $acl/lun_0/lun0
	rmdir $acl/lun_0 $acl
}

main() {
	local bs n=6
	if ! command -v iscsi-test-cu >/dev/null; then
		skip_all "iscsi-test-cu: libiscsi-bin not installed"
		return
	fi
	# 6 of main and readonly_cu, 8 of run_cu per backstore (9 for fileio)
	for bs in ${KT_CU_BACKSTORES:-rd fileio iblock}; do
		n=$((n + 8))
		[ $bs = fileio ] && n=$((n + 1))
	done
	plan $n
	check "target set up" kt_iscsi_setup
	# a second portal of the same TPG: the MultipathIO family's second path
	check "a second portal" mkdir $KT_TPG/np/127.0.0.1:3261
	for bs in ${KT_CU_BACKSTORES:-rd fileio iblock}; do
		run_cu $bs
	done
	ln -sf $KT_CFS/core/rd_mcp_0/r0 $KT_TPG/lun/lun_0/r0
	readonly_cu
	rmdir $KT_TPG/np/127.0.0.1:3261
	kt_iscsi_teardown
	check "rmmod ktarget_iscsi" rmmod ktarget_iscsi
	rmmod ktarget_fileio ktarget_iblock 2>/dev/null
}

main "$@"
