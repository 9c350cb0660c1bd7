#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scan-log.sh LOG...
#
# Prints every kernel log line that shows a finding, from the test start
# marker on (boot-time noise is not ours), and exits 1 when there is one.
# A log without the marker (the guest died early) is scanned whole.

pattern='BUG:|WARNING:|Oops|general protection|refcount_t|list_add corruption|list_del corruption|Objects remaining|hung_task|blocked for more than|UBSAN:|unreferenced object|Kernel panic|invoked oom-killer'

found=0
for f in "$@"; do
	[ -r "$f" ] || continue
	if grep -q 'ktarget-test: start' "$f"; then
		from=$(grep -n 'ktarget-test: start' "$f" | head -1 | cut -d: -f1)
	else
		from=1
	fi
	hits=$(tail -n +"$from" "$f" | grep -E -- "$pattern")
	if [ -n "$hits" ]; then
		printf '%s\n' "$hits" | sed "s|^|$(basename "$f"): |"
		found=1
	fi
done
exit $found
