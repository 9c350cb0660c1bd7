#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the guest tests: TAP output and kernel-log checks.
# A test file sources this, calls the helpers, and never exits early on a
# failed check; the runner (run.sh) numbers the results.

KT_CFS=/sys/kernel/config/target

# ok DESCRIPTION / not_ok DESCRIPTION [DIAG...] / skip DESCRIPTION REASON
ok() { echo "ok - $1"; }
not_ok() {
	local d=$1
	shift
	echo "not ok - $d"
	[ $# -gt 0 ] && printf '#   %s\n' "$@"
	return 0
}
skip() { echo "ok - $1 # SKIP $2"; }

# check DESCRIPTION CMD...: ok when CMD succeeds
check() {
	local d=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$d"
	else
		not_ok "$d" "command failed: $*" "$out"
	fi
}

# check_fails DESCRIPTION CMD...: ok when CMD fails
check_fails() {
	local d=$1 out
	shift
	if out=$("$@" 2>&1); then
		not_ok "$d" "command succeeded but should have failed: $*" "$out"
	else
		ok "$d"
	fi
}

# check_eq DESCRIPTION GOT WANT
check_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1" "got:  '$2'" "want: '$3'"
	fi
}

# kmsg_mark: remember where the kernel log is now; kmsg_since prints what
# came after the last mark.
kmsg_mark() {
	KT_KMSG_MARK="ktarget-test: mark $RANDOM$RANDOM"
	echo "$KT_KMSG_MARK" > /dev/kmsg
}
kmsg_since() {
	dmesg | sed -n "/$KT_KMSG_MARK/,\$p" | tail -n +2
}

# write_attr FILE VALUE: write like `echo VALUE > FILE`, status is the write's
write_attr() {
	( echo "$2" > "$1" ) 2>/dev/null
}

# check_bad_write DESCRIPTION FILE VALUE PATTERN: the write fails and the
# kernel log gains exactly one line, matching PATTERN.
check_bad_write() {
	local d=$1 file=$2 value=$3 pattern=$4 log n
	kmsg_mark
	if write_attr "$file" "$value"; then
		not_ok "$d" "write of '$value' to $file succeeded"
		return
	fi
	log=$(kmsg_since)
	n=$(printf '%s' "$log" | grep -c .)
	if [ "$n" = 1 ] && printf '%s' "$log" | grep -q -- "$pattern"; then
		ok "$d"
	else
		not_ok "$d" "wanted one log line matching '$pattern', got $n:" "$log"
	fi
}
