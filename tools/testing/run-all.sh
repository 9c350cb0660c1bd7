#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The body of `make test`: build, unit tests, a short fuzz run, the guest test
# suite and the harness self-tests. Prints TAP as it goes and ends with
# "N passed, N failed, N skipped"; exits non-zero on any failure.
#
# The guest suite runs on the kernel built for (Debian 12's 6.1 by default)
# and, at the same time, a part of it (also_default_tests) on Debian 12's
# 6.12 when it is installed with its headers (make deps installs it; `make
# test-6.12` runs all of it there): modules are built for both, at once.
# KDIR=... or KVER=... select one kernel to build against and boot instead
# (e.g. the debug kernel in ../shared/kernel); KT_ALSO_KVER=RELEASE names the
# second kernel, "none" skips it; KT_GUEST_TESTS="tests/10-x.sh ..." narrows
# the guest suite. The cluster scenarios are `make cluster`'s.

main() {
	local top vm out pass=0 fail=0 skipped=0 start
	top=$(cd "$(dirname "$0")/../.." && pwd)
	cd "$top" || exit 1
	vm=$top/tools/testing/vm/run.sh
	out=$top/.vm-out
	mkdir -p "$out"
	start=$(date +%s)
	# every failure, with what explains it, repeated at the end: the end
	# of the log is what a CI page shows
	recap=$out/recap.txt
	: > "$recap"
	# make test KVER=...: that kernel alone
	[ -n "${KVER:-}" ] && [ -z "${KDIR:-}" ] && KDIR=/lib/modules/$KVER/build

	result() {	# result ok|fail|skip DESCRIPTION
		case $1 in
		ok) pass=$((pass + 1)); echo "ok - $2" ;;
		skip) skipped=$((skipped + 1)); echo "ok - $2 # SKIP" ;;
		*) fail=$((fail + 1)); echo "not ok - $2"
		   echo "not ok - $2" >> "$recap" ;;
		esac
	}

	# count_tap FILE: add the ok / not ok / SKIP lines of a TAP log
	count_tap() {
		local p f s
		p=$(grep -cE '^ok [0-9]+ ' "$1" | head -1)
		s=$(grep -cE '^ok [0-9]+ .*# SKIP' "$1" | head -1)
		f=$(grep -cE '^not ok [0-9]+ ' "$1" | head -1)
		pass=$((pass + p - s))
		skipped=$((skipped + s))
		fail=$((fail + f))
	}

	at() { echo "(at $(($(date +%s) - start))s)"; }

	# copy_tree FROM TO: the sources and what the host built under
	# tools/ (ddpt), without the build products of the kernel modules;
	# the per-kernel guest caches are shared
	copy_tree() {
		mkdir -p "$2"
		rsync -a --delete --exclude=/.git --exclude=/.vm-out --exclude=/.vm-build.lock \
			--exclude=/.vm-cache --exclude=/.deb \
			--exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
			--exclude='*.mod' --exclude='*.mod.c' --exclude='*.o.d' \
			--exclude=Module.symvers --exclude=modules.order "$1/" "$2/"
		mkdir -p "$1/.vm-cache"
		ln -sfn "$1/.vm-cache" "$2/.vm-cache"
	}

	# guest_suite NAME KVER [TREE]: the guest suite in .vm-out/NAME on
	# KVER ("" for the kernel built for); every result is prefixed with
	# KVER. With TREE (a copy built for KVER) it runs from there.
	guest_suite() {
		local name=$1 kver=$2 tree=${3:-$top} gstatus p=${2:+$2: }
		# shellcheck disable=SC2086
		"$tree/tools/testing/vm/run.sh" --name "$name" --out "$out/$name" \
			${kver:+--kver "$kver"} --quiet --timeout 3600 \
			"$tree/tools/testing/selftests/run.sh" $KT_GUEST_TESTS
		gstatus=$?
		grep -E '^(ok|not ok|#)' "$out/$name/output.log" 2>/dev/null
		count_tap "$out/$name/output.log" 2>/dev/null
		# its failed checks, with the first lines each printed
		grep -A6 '^not ok [0-9]' "$out/$name/output.log" 2>/dev/null |
			sed "s|^|#   $name: |" | head -60 >> "$recap"
		if [ -e "$out/$name/stuck.txt" ]; then
			# the host ended a stuck guest: which file, and what
			# its vCPUs ran
			sed 's/^/#   /' "$out/$name/hang.txt" | head -80
			tail -60 "$out/$name/console.log" 2>/dev/null | sed 's/^/#   console: /'
			result fail "${p}guest stuck: $(cat "$out/$name/stuck.txt")"
		elif [ -s "$out/$name/findings.txt" ] || [ "$(cat "$out/$name/rmmod.status" 2>/dev/null)" != 0 ]; then
			# what CI shows is all a reader gets: the findings, the
			# unload log and the console's last lines
			tail -40 "$out/$name/console.log" 2>/dev/null | sed 's/^/#   console: /'
			sed 's/^/#   rmmod: /' "$out/$name/rmmod.log" 2>/dev/null | tail -10
			head -60 "$out/$name/findings.txt" 2>/dev/null | sed 's/^/#   /'
			result fail "${p}guest run clean: no kernel-log findings, every ktarget module unloaded"
			{
				echo "#   rmmod status: $(cat "$out/$name/rmmod.status" 2>/dev/null)"
				grep -v ': ok$' "$out/$name/rmmod.log" 2>/dev/null | tail -10 | sed 's/^/#   rmmod: /'
				head -20 "$out/$name/findings.txt" 2>/dev/null | sed 's/^/#   /'
			} >> "$recap"
		elif [ "$gstatus" != 0 ] && ! grep -q '^not ok' "$out/$name/output.log"; then
			result fail "${p}guest run finished (status $gstatus)"
		else
			result ok "${p}guest run clean: no kernel-log findings, every ktarget module unloaded"
		fi
		echo "# guest suite${kver:+ on $kver}: $(grep -cE '^ok [0-9]+ ' "$out/$name/output.log" 2>/dev/null) ok lines, $(grep -cE '^not ok [0-9]+ ' "$out/$name/output.log" 2>/dev/null) not ok"
	}

	# Debian 12's 6.12 beside the kernel built for (make deps installs
	# it): built for and tested too, unless KDIR names a kernel (make
	# test-debug) or KT_ALSO_KVER says otherwise ("none": skip it)
	local also=${KT_ALSO_KVER:-}
	if [ -z "$also" ] && [ -z "${KDIR:-}" ]; then
		also=$(for b in /lib/modules/6.12.*+deb12-amd64/build/Makefile; do
			b=${b#/lib/modules/}; b=${b%%/*}
			[ -e "/boot/vmlinuz-$b" ] && echo "$b"
		done | sort -V | tail -1)
	fi
	[ "$also" = none ] && also=

	# the userspace unit tests
	phase_unit() {
		echo "# unit tests (ASan + UBSan) $(at)"
		make -s --no-print-directory unit > "$out/unit.log" 2>&1
		grep -E '^(ok|not ok|#)' "$out/unit.log"
		count_tap "$out/unit.log"
		grep -qE '^(ok|not ok) [0-9]+ ' "$out/unit.log" || { tail -30 "$out/unit.log"; result fail "unit tests built and ran"; }
	}

	# the DKMS package
	phase_dkms() {
		echo "# packaging: ktarget-dkms built, installed, built by DKMS, removed $(at)"
		tools/testing/packaging/dkms.sh > "$out/dkms.log" 2>&1
		grep -E '^(ok|not ok|#)' "$out/dkms.log"
		count_tap "$out/dkms.log"
		grep -qE '^(ok|not ok) [0-9]+ ' "$out/dkms.log" || { tail -20 "$out/dkms.log"; result fail "packaging test ran"; }
	}

	# the parsers' fuzzers, briefly
	phase_fuzz() {
		echo "# fuzz smoke (${KT_FUZZ_SECONDS:-10}s per parser) $(at)"
		if make -s --no-print-directory -C tools/testing/fuzz smoke \
			FUZZ_SECONDS="${KT_FUZZ_SECONDS:-10}" > "$out/fuzz.log" 2>&1; then
			grep '^ok' "$out/fuzz.log" | while read -r l; do echo "# $l"; done
			result ok "fuzz smoke run"
		else
			cat "$out/fuzz.log"
			result fail "fuzz smoke run"
		fi
	}

	# ddpt, for the ODX tests
	phase_ddpt() {
		echo "# ddpt for the ODX tests: Debian 12's 0.97-1 source with one fix $(at)"
		if tools/testing/ddpt/build.sh > "$out/ddpt.log" 2>&1; then
			result ok "ddpt built (tools/testing/ddpt/build.sh)"
		else
			sed 's/^/#   /' "$out/ddpt.log" | tail -20
			result fail "ddpt built (tools/testing/ddpt/build.sh)"
		fi
	}

	# the power cut test
	phase_powercut() {
		echo "# power cut (${KT_POWERCUT_CUTS:-3} cuts) $(at)"
		tools/testing/powercut/run.sh --cuts "${KT_POWERCUT_CUTS:-3}" \
			${KDIR:+--kver "$(make -s --no-print-directory kver KDIR="$KDIR")"} \
			> "$out/powercut.log" 2>&1
		grep -E '^#' "$out/powercut.log"
		while read -r l; do
			case $l in
			"ok - "*) result ok "${l#ok - }" ;;
			"not ok - "*) result fail "${l#not ok - }"
				grep -A8 -F -- "$l" "$out/powercut.log" | tail -n +2 | grep '^#' ;;
			esac
		done < "$out/powercut.log"
		grep -qE '^(ok|not ok) - ' "$out/powercut.log" ||
			result fail "power cut test ran"
	}

	# the harness self-tests: what a stuck, failing or dirty run looks like
	phase_harness() {
		echo "# harness self-tests $(at)"
		local h=tools/testing/selftests/harness s
		"$vm" --name self-clean --quiet "$h/clean.sh" 2>/dev/null
		s=$?
		[ "$s" = 0 ] && result ok "harness: a clean run passes" ||
			result fail "harness: a clean run passes (status $s)"

		"$vm" --name self-warning --quiet "$h/planted-warning.sh" 2>/dev/null
		s=$?
		if [ "$s" != 0 ] && grep -q planted "$out/self-warning/findings.txt"; then
			result ok "harness: a planted WARNING fails the run"
		else
			result fail "harness: a planted WARNING fails the run (status $s)"
		fi

		# planted_stuck DESCRIPTION FILE HANG-PATTERN [VAR=VALUE...]: the
		# planted FILE alone in a guest (with VAR=VALUE), a 30 s bound;
		# the host must end it by the file's name (15 s past the bound,
		# not a minute: a stuck guest costs a CPU) with HANG-PATTERN in
		# hang.txt
		planted_stuck() {
			local d=$1 f=$2 pat=$3 t0
			shift 3
			t0=$(date +%s)
			env KT_FILE_TIMEOUT=30 KT_HANG_MARGIN=15 "$@" \
				"$vm" --name "self-$f" --quiet --timeout 900 \
				tools/testing/selftests/run.sh "$top/$h/planted/$f.sh" \
				> "$out/self-$f.log" 2>&1
			s=$?
			t0=$(($(date +%s) - t0))
			if [ "$s" = 124 ] && grep -q "^$f: " "$out/self-$f/stuck.txt" &&
			   grep -q "$pat" "$out/self-$f/hang.txt"; then
				result ok "harness: $d (${t0}s)"
			else
				sed 's/^/#   /' "$out/self-$f.log" | tail -20
				head -5 "$out/self-$f/hang.txt" 2>/dev/null | sed 's/^/#   /'
				result fail "harness: $d (status $s)"
			fi
		}

		# a guest whose every CPU spins with interrupts off: its own
		# timeout cannot fire, the host's watch must
		local kdir khz
		kdir=${KDIR:-$(make -s --no-print-directory kdir)}
		if make -s -C "$kdir" M="$top/$h/spin" modules > "$out/spin-build.log" 2>&1; then
			planted_stuck "a guest spinning with interrupts off fails by the file's name, RIPs mapped" \
				spins-irqs-off 'RIP .* kt_planted_spin+'
		else
			sed 's/^/#   /' "$out/spin-build.log" | tail -10
			result fail "harness: the planted spinning module builds"
		fi

		# a guest whose clock runs ten times slow (a TSC calibrated
		# tenfold high on a busy host): its own timeouts would take ten
		# times as long, the host's watch must not
		khz=$(dmesg 2>/dev/null | sed -n 's/.*tsc: Detected \([0-9.]*\) MHz processor.*/\1/p' |
			tail -1 | awk '{ printf "%d", $1 * 10000 }')
		if [ -n "$khz" ]; then
			planted_stuck "a guest clock ten times slow: the file ends by its name in the host's time, the rate said" \
				clock-slow "the guest's clock: .* (0\.[01][0-9] of its rate)" \
				KT_GUEST_TSC_KHZ="$khz"
		else
			result skip "harness: a guest clock ten times slow (the host's log names no TSC frequency)"
		fi

		"$vm" --name self-status --quiet "$h/exit-status.sh" 2>/dev/null
		s=$?
		[ "$s" = 7 ] && result ok "harness: the script's exit status comes back" ||
			result fail "harness: the script's exit status comes back (got $s, want 7)"

		"$vm" --name self-rmmod --quiet "$h/rmmod-busy.sh" 2>/dev/null
		s=$?
		if [ "$s" != 0 ] && grep -q 'rmmod ktarget_core: failed' "$out/self-rmmod/rmmod.log"; then
			result ok "harness: a ktarget module that will not unload fails the run"
		else
			result fail "harness: a ktarget module that will not unload fails the run (status $s)"
		fi

		# the runner itself: a test file that dies must not pass (no guest
		# needed, the planted files touch no kernel)
		local f said d
		for f in dies-halfway exits-nonzero silent; do
			case $f in
			dies-halfway) d="ends short of its plan" ;;
			exits-nonzero) d="exits non-zero" ;;
			silent) d="prints nothing" ;;
			esac
			said=$(tools/testing/selftests/run.sh "$top/$h/planted/$f.sh" 2>&1)
			s=$?
			if [ "$s" != 0 ] && printf '%s\n' "$said" | grep -q "^not ok .* $f: the file"; then
				result ok "harness: a test file that $d fails the run"
			else
				result fail "harness: a test file that $d fails the run (status $s)"
				printf '%s\n' "$said" | sed 's/^/#   /'
			fi
		done
		tools/testing/selftests/run.sh "$top/$h/planted/complete.sh" >/dev/null 2>&1
		s=$?
		[ "$s" = 0 ] && result ok "harness: a test file that keeps its plan passes" ||
			result fail "harness: a test file that keeps its plan passes (status $s)"
	}

	# The files run on the second kernel by make test: one for each kernel
	# interface that differs between 6.1 and 6.12 (configfs, sockets,
	# block devices and their size, files and APTPL's idmapped mounts,
	# RDMA (iSER's file; SRP's sets up the same verbs), the SCSI midlayer
	# and the sr driver through the loopback fabric, user memory for
	# vhost, UIO and generic netlink for the user backstore, block-layer
	# atomic writes, which only 6.12 has; T10-PI through the block layer's
	# integrity, the midlayer's DIX list and iblock's integrity payloads,
	# and fileio's protection file, written and read with kernel_write() /
	# kernel_read(): 56-pi-loop). The others
	# exercise the core's own logic on the same calls; `make test-6.12`
	# runs every file there.
	also_default_tests() {
		echo 10-core-configfs 12-kunit 45-backstores-iscsi \
			49-user-guards 53-resize 54-cdrom 56-atomic 56-pi-loop 75-pr 90-iser \
			92-vhost
	}

	# The lanes' 6.1 files. The first lane takes every file no other
	# names. The third: the files in which QEMU mostly waits (timeouts,
	# slow backstores, reinstatement; 530 CPU-s over 1470 s in a run of
	# make test, from each guest's cpu.txt), and 56-lio-small, whose 60 s
	# of CPU the first lane has least room for (mt10: lane 3 ended 240 s
	# before lane 1). The second: after the 6.12 files, the 6.1 files
	# that make its CPU seconds about the first's.
	lane2_tests() {
		echo 56-pi-iscsi 60-libiscsi 80-xcopy 82-odx 92-vhost 95-pdu-fuzz
	}
	lane3_tests() {
		echo 41-portals 42-hostile 43-lifetimes 44-isolation 47-faults \
			49-user 49-user-fake 49-user-fuzz 49-user-zbc 52-conn-loss 55-tmf-ua \
			56-lio-small \
			57-teardown-load 58-keepalive 59-sessions
	}

	# report_lane N PID: lane N's report, when it has ended, and its counts
	report_lane() {
		local lp lf ls
		wait "$2"
		echo "# lane $1 $(at)"
		cat "$out/lane-$1.log"
		if read -r lp lf ls < "$out/lane-$1.log.counts" 2>/dev/null; then
			pass=$((pass + lp)) fail=$((fail + lf)) skipped=$((skipped + ls))
		else
			result fail "lane $1 ran to its end"
		fi
	}

	local kv61 also_top=$out/tree-$also bpid=
	kv61=$(make -s --no-print-directory kver ${KDIR:+KDIR=$KDIR})

	# The second kernel is built, and its suite runs, from its own copy
	# of the tree: kbuild writes its objects next to the sources, so one
	# tree holds one kernel's modules at a time. Both builds at once (two
	# CPUs, and kbuild of an external module runs one job).
	echo "# build"
	if [ -n "$also" ]; then
		copy_tree "$top" "$also_top"
		make -s --no-print-directory -C "$also_top" modules KVER="$also" \
			> "$out/build-$also.log" 2>&1 &
		bpid=$!
	elif [ -z "${KDIR:-}" ] && [ "${KT_ALSO_KVER:-}" != none ]; then
		echo "# no 6.12 kernel with headers installed: 6.1 only (make deps installs it)"
	fi
	if make -s --no-print-directory modules ${KDIR:+KDIR=$KDIR} > "$out/build.log" 2>&1; then
		result ok "modules build ($kv61)"
	else
		sed 's/^/#   /' "$out/build.log" | tail -40
		result fail "modules build"
	fi
	if [ -n "$bpid" ]; then
		if wait "$bpid"; then
			result ok "modules build ($also)"
		else
			sed 's/^/#   /' "$out/build-$also.log" | tail -40
			result fail "modules build ($also)"
		fi
	fi

	phase_ddpt
	[ -n "$also" ] && copy_tree "$top" "$also_top"	# ddpt, built under tools/

	# Three lanes of one guest each (KT_VM_SMP=1) and one of host work,
	# all starting as soon as the modules are built. The first runs most
	# of the 6.1 files; the second the 6.12 files (also_default_tests, or
	# KT_ALSO_TESTS), then the 6.1 files of lane2_tests; the third the
	# 6.1 files that mostly wait (lane3_tests); the host lane the unit
	# tests, packaging, fuzz smoke, power cut and harness self-tests (the
	# last two boot guests of their own, mostly waiting or short). The
	# others' reports follow the first's.
	local lane2=$out/lane-2.log lane3=$out/lane-3.log laneh=$out/lane-host.log
	local lpid2 lpid3 lpidh also_tests='' tests1='' tests2='' tests3='' t f
	export KT_VM_SMP=1
	if [ -n "${KT_GUEST_TESTS:-}" ]; then
		tests1=$KT_GUEST_TESTS
	else
		for f in "$top"/tools/testing/selftests/tests/*.sh; do
			t=$(basename "$f" .sh)
			case " $(lane3_tests) " in
			*" $t "*) tests3="$tests3 $f"; continue ;;
			esac
			case " $(lane2_tests) " in
			*" $t "*) tests2="$tests2 $f" ;;
			*) tests1="$tests1 $f" ;;
			esac
		done
	fi
	if [ -n "$also" ]; then
		if [ -n "${KT_GUEST_TESTS:-}" ]; then
			also_tests=$KT_GUEST_TESTS
		else
			for t in ${KT_ALSO_TESTS:-$(also_default_tests)}; do
				also_tests="$also_tests $also_top/tools/testing/selftests/tests/$t.sh"
			done
		fi
	fi
	# the host's own work (no guest) beside the guests: no lane's guest
	# waits behind it
	(
		pass=0 fail=0 skipped=0
		phase_unit
		phase_dkms
		phase_fuzz
		phase_powercut
		phase_harness
		echo "# this lane ended $(at)"
		echo "$pass $fail $skipped" > "$laneh.counts"
	) > "$laneh" 2>&1 &
	lpidh=$!
	(
		pass=0 fail=0 skipped=0
		if [ -n "$also_tests" ]; then
			echo "# guest test suite ($also: $(echo "$also_tests" | wc -w) files) $(at)"
			KT_GUEST_TESTS=$also_tests guest_suite "guest-$also" "$also" "$also_top"
		fi
		if [ -n "$tests2" ]; then
			echo "# guest test suite ($kv61: $(echo "$tests2" | wc -w) more files) $(at)"
			KT_GUEST_TESTS=$tests2 guest_suite guest-2 ""
		fi
		echo "# this lane ended $(at)"
		echo "$pass $fail $skipped" > "$lane2.counts"
	) > "$lane2" 2>&1 &
	lpid2=$!
	(
		pass=0 fail=0 skipped=0
		if [ -n "$tests3" ]; then
			echo "# guest test suite ($kv61, the files that mostly wait: $(echo "$tests3" | wc -w)) $(at)"
			KT_GUEST_TESTS=$tests3 guest_suite guest-waits ""
		fi
		echo "# this lane ended $(at)"
		echo "$pass $fail $skipped" > "$lane3.counts"
	) > "$lane3" 2>&1 &
	lpid3=$!
	echo "# guest test suite ($kv61: $(echo "$tests1" | wc -w) files) $(at)"
	KT_GUEST_TESTS=$tests1 guest_suite guest ""
	echo "# lane 1 ended $(at)"
	report_lane 2 "$lpid2"
	report_lane 3 "$lpid3"
	report_lane host "$lpidh"

	if [ -s "$recap" ]; then
		echo "# ---- every failure again (logs in $out) ----"
		cat "$recap"
	fi
	echo "# make test took $(($(date +%s) - start))s"
	echo "$pass passed, $fail failed, $skipped skipped"
	[ "$fail" = 0 ]
}

main "$@"
