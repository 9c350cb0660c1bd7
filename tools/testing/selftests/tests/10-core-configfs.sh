#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ktarget_core loads, owns configfs "target" with LIO's root attributes,
# validates dbroot writes, works with rtslib-fb, and unloads cleanly.
. ./lib.sh

main() {
	local db

	plan 22
	check "modprobe ktarget_core" modprobe ktarget_core
	check "target/version exists" test -r $KT_CFS/version
	check "target/dbroot exists" test -w $KT_CFS/dbroot
	check "target/core is a directory" test -d $KT_CFS/core
	check "version names ktarget" grep -q '^ktarget ' $KT_CFS/version
	check_eq "dbroot defaults to /var/target" "$(cat $KT_CFS/dbroot)" /var/target

	mkdir -p /var/target
	db=$(mktemp -d /tmp/ktdb.XXXXXX)
	write_attr $KT_CFS/dbroot "$db"
	check_eq "dbroot round-trips a path written with echo" "$(cat $KT_CFS/dbroot)" "$db"
	printf '%s' /var/target > $KT_CFS/dbroot
	check_eq "dbroot round-trips a path written without newline" "$(cat $KT_CFS/dbroot)" /var/target

	check_bad_write "dbroot refuses a relative path" $KT_CFS/dbroot "var/target" "not an absolute path"
	check_bad_write "dbroot refuses an empty value" $KT_CFS/dbroot "" "not an absolute path"
	check_bad_write "dbroot refuses a missing directory" $KT_CFS/dbroot "/nonexistent/kt" "is not a directory"
	check_bad_write "dbroot refuses a regular file" $KT_CFS/dbroot "/etc/hostname" "is not a directory"
	check_bad_write "dbroot refuses a path with a 4000-byte name" $KT_CFS/dbroot \
		"/$(head -c 4000 /dev/zero | tr '\0' a)" "is not a directory (-ENAMETOOLONG)"
	check_eq "dbroot unchanged after bad writes" "$(cat $KT_CFS/dbroot)" /var/target

	check_fails "version is read-only" write_attr $KT_CFS/version x
	check_fails "core/ refuses an HBA of an unknown backstore" mkdir $KT_CFS/core/bogus_0

	# rtslib-fb (targetcli's library) moves dbroot to its preferred place
	mkdir -p /etc/rtslib-fb-target
	check "rtslib-fb opens the ktarget root" \
		python3 -c 'import rtslib_fb; r = rtslib_fb.RTSRoot(); assert r.dbroot == "/etc/rtslib-fb-target", r.dbroot'
	check_eq "dbroot was set by rtslib-fb" "$(cat $KT_CFS/dbroot)" /etc/rtslib-fb-target

	check "rmmod ktarget_core" rmmod ktarget_core
	check_fails "configfs target is gone after rmmod" test -e $KT_CFS
	check "ktarget_core loads again" modprobe ktarget_core
	check "and unloads again" rmmod ktarget_core
	rm -rf "$db"
}

main "$@"
