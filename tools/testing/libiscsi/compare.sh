#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# iscsi-test-cu against ktarget and against the kernel's own LIO in the same
# guest, on rd, fileio and iblock LUNs (KT_CU_BACKSTORES narrows it), each
# the same configfs target with a second portal for MultipathIO. Prints a
# table of passed / failed / skipped per stack and backstore; per-test
# results land in /ktout/cmp-STACK-BACKSTORE.txt.
#
# KT_CU_BACKSTORES=user: a user LUN (tcmu-runner's qcow handler over a raw
# image), ktarget_user against LIO's target_core_user, the same Debian
# tcmu-runner started for each (ktarget's through ktarget-lio-names.conf);
# KT_CU_USER_CONTROL adds control tokens (hw_max_sectors=1024).
#
# With --iser, the tests of iser-tests.txt run over iser:// (soft-RoCE) on
# an rd LUN instead: ktarget_isert against LIO's ib_isert.
#
#   tools/testing/vm/run.sh --name cmp --timeout 3600 tools/testing/libiscsi/compare.sh [--iser]
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../selftests" || exit 1
# shellcheck source=../selftests/lib.sh
. ./lib.sh

RUNNER=
NAMES=/etc/modprobe.d/ktarget-lio-names.conf

# runner_up STACK: tcmu-runner on D-Bus, its target_core_user the STACK's
runner_up() {
	case " ${KT_CU_BACKSTORES:-} " in *" user "*) ;; *) return 0 ;; esac
	export HOME=/root
	mkdir -p /root /run/dbus /etc/modprobe.d
	kt_dbus_start
	if [ "$1" = ktarget ]; then
		cp ../../../tools/ktarget-lio-names.modprobe.conf $NAMES
	else
		rm -f $NAMES
	fi
	tcmu-runner -l /ktout/tcmu-runner-$1 >> /ktout/tcmu-runner-$1.log 2>&1 &
	RUNNER=$!
	kt_wait_for 60 sh -c "dbus-send --system --print-reply --dest=org.freedesktop.DBus / \
		org.freedesktop.DBus.ListNames 2>/dev/null | grep -q TCMUService1"
}

runner_down() {
	[ -n "$RUNNER" ] || return 0
	kill $RUNNER 2>/dev/null
	wait $RUNNER 2>/dev/null
	RUNNER=
	rm -f $NAMES
	rmmod ktarget_user 2>/dev/null
	modprobe -r target_core_user 2>/dev/null
	kt_dbus_stop
}

stack_load() {
	case $1 in
	ktarget) modprobe ktarget_core ;;
	lio)	# LIO keeps PR and ALUA metadata there and needs it to exist
		mkdir -p /var/target/pr /var/target/alua
		modprobe target_core_mod && modprobe iscsi_target_mod ;;
	esac && runner_up $1
}

stack_unload() {
	runner_down
	case $1 in
	ktarget) rmmod ktarget_isert 2>/dev/null ;;
	lio) modprobe -r ib_isert 2>/dev/null ;;
	esac
	kt_stack_down "$1" 2>/dev/null
}

# iser_run STACK: iser-tests.txt over iser:// on the rd LUN
iser_run() {
	local np=$KT_CFS/iscsi/$KT_IQN/tpgt_1/np/$KT_RDMA_ADDR:3260 t
	local res=/ktout/cmp-$1-iser.txt
	mkdir $np && echo 1 > $np/iser || { echo "$1 iser: no iSER portal" >> /ktout/compare.txt; return; }
	: > $res
	for t in $(grep -v '^#' "$here/iser-tests.txt"); do
		timeout 120 iscsi-test-cu --test=$t "iser://$KT_RDMA_ADDR:3260/$KT_IQN/0" \
			> /ktout/cmp-$1-iser-$t.log 2>&1
		python3 "$here/cu-parse.py" /ktout/cmp-$1-iser-$t.log >> $res
	done
	printf '%-8s %-7s %6s %6s %6s\n' $1 iser "$(grep -c '^PASS' $res)" \
		"$(grep -c '^FAIL' $res)" "$(grep -c '^SKIP' $res)" >> /ktout/compare.txt
	echo 0 > $np/iser
	rmdir $np
}

main() {
	local stack bs res tpg=$KT_CFS/iscsi/$KT_IQN/tpgt_1 iser=0
	[ "$1" = --iser ] && iser=1 && kt_rxe_up
	printf '%-8s %-7s %6s %6s %6s\n' stack LUN passed failed skipped > /ktout/compare.txt
	for stack in ktarget lio; do
		stack_load $stack && kt_iscsi_build && mkdir $tpg/np/127.0.0.1:3261 || {
			echo "$stack: set-up failed" >> /ktout/compare.txt; continue; }
		if [ $iser = 1 ]; then
			iser_run $stack
		fi
		for bs in ${KT_CU_BACKSTORES:-rd fileio iblock}; do
			[ $iser = 1 ] && break
			kt_lun0_backstore $bs || { echo "$stack $bs: no LUN" >> /ktout/compare.txt; continue; }
			res=/ktout/cmp-$stack-$bs.txt
			timeout 1200 iscsi-test-cu --dataloss --test=ALL \
				"iscsi://127.0.0.1:3260/$KT_IQN/0" \
				"iscsi://127.0.0.1:3261/$KT_IQN/0" > /ktout/cmp-$stack-$bs.log 2>&1
			python3 "$here/cu-parse.py" /ktout/cmp-$stack-$bs.log > $res
			printf '%-8s %-7s %6s %6s %6s\n' $stack $bs "$(grep -c '^PASS' $res)" \
				"$(grep -c '^FAIL' $res)" "$(grep -c '^SKIP' $res)" >> /ktout/compare.txt
			kt_lun0_drop $bs
		done
		ln -sf $KT_CFS/core/rd_mcp_0/r0 $tpg/lun/lun_0/r0
		rmdir $tpg/np/127.0.0.1:3261
		kt_iscsi_teardown
		stack_unload $stack
	done
	cat /ktout/compare.txt
}

main "$@"
