#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scan-log.sh LOG...
#
# Prints every kernel log line that shows a finding, from the test start
# marker on (boot-time noise is not ours), and exits 1 when there is one.
# A log without the marker (the guest died early) is scanned whole.

pattern='BUG:|WARNING:|Oops|general protection|refcount_t|list_add corruption|list_del corruption|Objects remaining|hung_task|blocked for more than|UBSAN:|unreferenced object|Kernel panic|invoked oom-killer'

# Known false positives of the guest kernel itself, each matched exactly:
# - 6.1's dlm copies a request received during lockspace recovery into a
#   struct whose last member is the message header, from an allocation
#   sized for the whole message; FORTIFY_SOURCE's field-spanning check
#   warns once per boot (fs/dlm/requestqueue.c, dlm_add_requestqueue()).
#   The cluster tests meet it whenever a node locks while the other joins.
# - 6.1's dlm closes a connection (close_connection(), when dlm_controld
#   drops a node at its exit) holding con->sock_mutex while it flushes the
#   connection's send work, which takes that mutex: lockdep reports the
#   cycle once both paths have run. Only a report naming exactly those two
#   dlm locks, with close_connection holding one, is skipped.
# - The kernel's own iSCSI initiator (scsi_transport_iscsi) removes a
#   session's SCSI target from its WQ_MEM_RECLAIM control work, and the
#   removal flushes the target's runtime-PM work, on a workqueue without
#   WQ_MEM_RECLAIM: check_flush_dependency() warns whenever that work is
#   pending at a logout (seen on 6.1 in make test at 8bb56b3). Only the
#   warning whose line before names exactly that flush is skipped.
known='WARNING: CPU: [0-9]+ PID: [0-9]+ at fs/dlm/requestqueue\.c:[0-9]+ dlm_add_requestqueue\+'

# Drop the lockdep report line of that dlm cycle (its next lines name it),
# and the initiator's check_flush_dependency() warning (its line before).
skip_dlm_close_cycle() {
	awk '
	{ line[NR] = $0 }
	END {
		for (i = 1; i <= NR; i++) {
			if (i > 1 && line[i] ~ /WARNING: CPU: [0-9]+ PID: [0-9]+ at kernel\/workqueue\.c:[0-9]+ check_flush_dependency/ &&
			    line[i - 1] ~ /workqueue: WQ_MEM_RECLAIM iscsi_ctrl_[0-9]+:[0-9]+:__iscsi_unbind_session \[scsi_transport_iscsi\] is flushing !WQ_MEM_RECLAIM pm:pm_runtime_work/)
				continue
			if (line[i] ~ /WARNING: possible circular locking dependency detected/) {
				ctx = ""
				for (j = i + 1; j <= i + 10 && j <= NR; j++)
					ctx = ctx "\n" line[j]
				if (ctx ~ /\(work_completion\)\(&con->swork\)/ &&
				    ctx ~ /\(&con->sock_mutex\)[^\n]*close_connection/)
					continue
			}
			print line[i]
		}
	}'
}

found=0
for f in "$@"; do
	[ -r "$f" ] || continue
	if grep -q 'ktarget-test: start' "$f"; then
		from=$(grep -n 'ktarget-test: start' "$f" | head -1 | cut -d: -f1)
	else
		from=1
	fi
	hits=$(tail -n +"$from" "$f" | skip_dlm_close_cycle | grep -E -- "$pattern" |
		grep -vE -- "$known")
	if [ -n "$hits" ]; then
		printf '%s\n' "$hits" | sed "s|^|$(basename "$f"): |"
		found=1
	fi
done
exit $found
