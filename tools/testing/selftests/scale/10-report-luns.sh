#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# REPORT LUNS past 64 KiB of answer: 8300 LUNs (one rd device behind each)
# on the demo-mode TPG, asked for with an allocation length of 1 MiB; the
# answer must list them all and state their number. Under TCG making and
# removing the LUNs takes one to several minutes (two RCU grace periods
# per unlink), which is why make test leaves this to make test-scale.
. ./lib.sh

main() {
	plan 6
	kmsg_mark
	check "an iSCSI target builds through echo" kt_iscsi_setup
	kt_check_report_luns 8300
	kt_iscsi_teardown
	check "the kernel log is clean" kt_kmsg_clean
	check "the modules unload" rmmod ktarget_iscsi ktarget_rd ktarget_core
}

main
