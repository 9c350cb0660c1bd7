#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [TEST...]: runs the guest tests (tests/*.sh by default), each in its
# own bash, numbers their TAP lines and ends with "N passed, N failed, N skipped".
# Runs inside the guest (tools/testing/vm/run.sh boots it).
#
# A test file states its plan ("1..N", lib.sh's plan) before its results,
# or "1..0 # SKIP reason" (skip_all) when none of it can run.
# A file that exits non-zero, states no plan, makes no check, or ends with
# another number of results than it planned gets a "not ok" of its own:
# a test that dies half-way cannot pass.

# A file gets KT_FILE_TIMEOUT seconds (1200, plus the fuzzers'
# KT_PDU_FUZZ_SECONDS and KT_USER_FUZZ_SECONDS and the TMF race's
# KT_TMF_RACE_SECONDS): one that hangs fails alone, with the kernel's
# stacks of every blocked task (sysrq w) in the log, and leaves the rest of
# the suite its time.
: "${KT_FILE_TIMEOUT:=$((1200 + ${KT_PDU_FUZZ_SECONDS:-0} + ${KT_USER_FUZZ_SECONDS:-0} + ${KT_TMF_RACE_SECONDS:-0}))}"

mem_available() {
	awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo
}

# run_file TEST: its output, then "# run.sh exit STATUS"
# (124: it ran out of time). A SIGKILL (137) before the timeout is the OOM
# killer's or the test's own, not a timeout.
run_file() {
	local st start=$SECONDS
	# the host's watch (vm/run.sh): this file, and how long it may take
	[ -n "${KT_PROGRESS:-}" ] &&
		echo "$(basename "$1" .sh) $KT_FILE_TIMEOUT" > "$KT_PROGRESS"
	timeout -k 10 "$KT_FILE_TIMEOUT" bash "$1" 2>&1
	st=$?
	[ -n "${KT_PROGRESS:-}" ] && echo "-" > "$KT_PROGRESS"
	if [ $st = 124 ] ||
	   { [ $st = 137 ] && [ $((SECONDS - start)) -ge "$KT_FILE_TIMEOUT" ]; }; then
		st=124
		echo w > /proc/sysrq-trigger 2>/dev/null
		echo "# $(basename "$1" .sh) ran out of time; iscsiadm -m session: $(timeout 10 iscsiadm -m session 2>&1 | head -9 | tr "\n" " ")"
	fi
	echo "# run.sh exit $st"
}

main() {
	local here t tests pass=0 fail=0 skipped=0 n=0 line
	local planned ran status why
	here=$(cd "$(dirname "$0")" && pwd)

	if [ $# -gt 0 ]; then
		tests=("$@")
	else
		tests=("$here"/tests/*.sh)
	fi

	for t in "${tests[@]}"; do
		echo "# $(basename "$t" .sh) (at ${SECONDS} s, MemAvailable $(mem_available) MiB)"
		planned= ran=0 status=
		while IFS= read -r line; do
			case $line in
			"ok "*"# SKIP"*)
				n=$((n + 1)); ran=$((ran + 1)); skipped=$((skipped + 1))
				echo "ok $n ${line#ok }" ;;
			"ok "*)
				n=$((n + 1)); ran=$((ran + 1)); pass=$((pass + 1))
				echo "ok $n ${line#ok }" ;;
			"not ok "*)
				n=$((n + 1)); ran=$((ran + 1)); fail=$((fail + 1))
				echo "not ok $n ${line#not ok }" ;;
			"# run.sh exit "*)
				# a blocked child of the test may still hold
				# the pipe open: stop reading here
				status=${line#\# run.sh exit }
				break ;;
			"1..0 # SKIP"*)
				[ -n "$planned" ] || planned=0
				n=$((n + 1)); skipped=$((skipped + 1))
				echo "ok $n - $(basename "$t" .sh) # SKIP ${line#1..0 # SKIP }" ;;
			1..*)
				[ -n "$planned" ] || planned=${line#1..}
				echo "# plan $line" ;;
			*)
				echo "$line" ;;
			esac
		done < <(cd "$here" && run_file "$t")
		why=
		if [ "$status" = 124 ]; then
			why="ran out of its ${KT_FILE_TIMEOUT} s (blocked tasks are in the kernel log)"
		elif [ "$status" != 0 ]; then
			why="exited with status ${status:-unknown}"
		elif [ -z "$planned" ]; then
			why="stated no plan"
		elif [ "$planned" = 0 ] && [ "$ran" = 0 ]; then
			:	# skipped whole (skip_all)
		elif [ "$ran" = 0 ]; then
			why="made no check"
		elif [ "$ran" != "$planned" ]; then
			why="planned $planned checks, made $ran"
		fi
		if [ -n "$why" ]; then
			n=$((n + 1)); fail=$((fail + 1))
			echo "not ok $n - $(basename "$t" .sh): the file $why"
		fi
	done
	echo "1..$n"
	echo "guest: $pass passed, $fail failed, $skipped skipped"
	[ "$fail" = 0 ]
}

main "$@"
