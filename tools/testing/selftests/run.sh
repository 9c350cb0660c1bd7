#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [TEST...]: runs the guest tests (tests/*.sh by default), each in its
# own bash, numbers their TAP lines and ends with "N passed, N failed, N skipped".
# Runs inside the guest (tools/testing/vm/run.sh boots it).

main() {
	local here t tests pass=0 fail=0 skipped=0 n=0 line
	here=$(cd "$(dirname "$0")" && pwd)

	if [ $# -gt 0 ]; then
		tests=("$@")
	else
		tests=("$here"/tests/*.sh)
	fi

	for t in "${tests[@]}"; do
		echo "# $(basename "$t" .sh)"
		while IFS= read -r line; do
			case $line in
			"ok "*"# SKIP"*)
				n=$((n + 1)); skipped=$((skipped + 1))
				echo "ok $n ${line#ok }" ;;
			"ok "*)
				n=$((n + 1)); pass=$((pass + 1))
				echo "ok $n ${line#ok }" ;;
			"not ok "*)
				n=$((n + 1)); fail=$((fail + 1))
				echo "not ok $n ${line#not ok }" ;;
			*)
				echo "$line" ;;
			esac
		done < <(cd "$here" && bash "$t" 2>&1; echo "# exit $?")
	done
	echo "1..$n"
	echo "guest: $pass passed, $fail failed, $skipped skipped"
	[ "$fail" = 0 ]
}

main "$@"
