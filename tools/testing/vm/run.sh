#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [options] SCRIPT [ARGS...]
#
# Boots the guest kernel in QEMU (TCG) with the host root read-only over
# virtio-9p and a tmpfs overlay, installs the freshly built ktarget modules
# into the overlay, runs SCRIPT (a path inside the tree) as root, and brings
# back its output and the whole guest kernel log.
#
# Exit status: the script's own; 1 when the guest kernel log shows a finding
# (BUG, WARNING, Oops, ...), when rmmod of a ktarget module failed at the end,
# or when the guest crashed; 124 when the run timed out.
#
# Bounds: the whole run has --timeout; a guest test file announces itself
# and its own bound in DIR/progress (selftests/run.sh). When either is
# passed by more than a minute (KT_HANG_MARGIN seconds; the guest's own
# timeout has not ended the file), the run is stuck: DIR/stuck.txt names the file, and before QEMU is
# killed DIR/hang.txt gets what can still be had - the guest's own state
# dump (sysrq w, l, t, ktarget's objects) when it still runs, and from
# QEMU's monitor (DIR/monitor.sock) each vCPU's registers with its RIP and
# stack mapped to functions (hang-report.py), then an NMI that makes a
# guest still taking NMIs print a backtrace on the console.
#
# Options:
#   --name NAME       run folder name under .vm-out/ (default: script name)
#   --out DIR         run folder (default: .vm-out/NAME)
#   --kver KVER       guest kernel release (default: what `make kver` says)
#   --timeout SEC     whole-run timeout (default 1800)
#   --no-install      do not install the ktarget modules into the guest
#   --quiet           do not stream the script's output
#   --mem SIZE        guest memory (default 2G)
#   --disk FILE       a raw image as the guest's /dev/vda, written through
#                     (cache=directsync): what the guest wrote survives QEMU
#   --smp N           guest CPUs (default 2, or $KT_VM_SMP)
#   --shared-disk FILE  a raw image other guests attach at the same time
#                     (share-rw, no image locking, written through); the
#                     guest finds it by its serial, ktshared
#   --share DIR       a host folder the guest mounts read-write at /ktshare
#   --link L:R        a network interface (eth0) whose frames go as UDP from
#                     127.0.0.1:L to 127.0.0.1:R, the other end's L and R
#                     swapped: a private link between two guests
#   --mac MAC         eth0's address (default 52:54:00:4b:54:01)
#
# QEMU's pid is in DIR/qemu.pid. A caller that kills QEMU on purpose (a power
# cut) first creates DIR/power-cut; the run then ends with status 0 unless
# the console shows a finding.
# KT_PDU_FUZZ_*, KT_TMF_RACE_SECONDS, KT_FILE_TIMEOUT and KT_CLUSTER_* of the
# caller's environment reach the guest test. The guest is told the host's
# TSC frequency; KT_GUEST_TSC_KHZ=N tells it N kHz instead.
set -uo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
name= out= kver= timeout_s=1800 install=1 quiet=0 mem=2G disk=
smp=${KT_VM_SMP:-2} shared_disk= share= link= mac=52:54:00:4b:54:01

while [ $# -gt 0 ]; do
	case $1 in
	--name) name=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--kver) kver=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--no-install) install=0; shift ;;
	--quiet) quiet=1; shift ;;
	--mem) mem=$2; shift 2 ;;
	--disk) disk=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--shared-disk) shared_disk=$2; shift 2 ;;
	--share) share=$2; shift 2 ;;
	--link) link=$2; shift 2 ;;
	--mac) mac=$2; shift 2 ;;
	-*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { sed -n '3,37p' "$0" >&2; exit 2; }

script=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
[ -r "$script" ] || { echo "run.sh: no script $script" >&2; exit 2; }

# --kver alone means: build against that kernel's tree too
[ -n "$kver" ] && [ -z "${KDIR:-}" ] && KDIR=/lib/modules/$kver/build
[ -n "$kver" ] || kver=$(make -s -C "$top" --no-print-directory kver ${KDIR:+KDIR=$KDIR})
[ -n "$name" ] || name=$(basename "$script" .sh)
[ -n "$out" ] || out=$top/.vm-out/$name
out=$(realpath -m "$out")	# kbuild would resolve a relative INSTALL_MOD_PATH elsewhere

kernel=/boot/vmlinuz-$kver
[ -r "$kernel" ] || { echo "run.sh: no guest kernel $kernel (make deps)" >&2; exit 2; }

log() { echo "vm[$name]: $*" >&2; }

# Build products cached per kernel: the uncompressed vmlinux (PVH entry boots
# in about half the time of the bzImage) and the initramfs. One guest at a
# time makes them: guests started at once on one kernel (make test's lanes,
# a cluster's nodes) would write the same files.
cache=$top/.vm-cache/$kver
mkdir -p "$cache"
exec {cache_lock}>"$cache/.lock"
flock "$cache_lock"
boot=$kernel
if grep -q '^CONFIG_PVH=y' "/boot/config-$kver" 2>/dev/null &&
   { [ ! -s "$cache/vmlinux" ] || [ "$kernel" -nt "$cache/vmlinux" ]; }; then
	"$top/tools/testing/vm/extract-vmlinux.sh" "$kernel" "$cache/vmlinux.tmp" 2>/dev/null &&
		mv "$cache/vmlinux.tmp" "$cache/vmlinux"
fi
# only kernels with a PVH entry boot as an ELF vmlinux
grep -q '^CONFIG_PVH=y' "/boot/config-$kver" 2>/dev/null && [ -s "$cache/vmlinux" ] &&
	boot=$cache/vmlinux
initrd=$cache/initramfs.cpio.gz
if [ ! -s "$initrd" ] || [ "$top/tools/testing/vm/initramfs-init" -nt "$initrd" ] ||
   [ "$top/tools/testing/vm/mkinitramfs.sh" -nt "$initrd" ]; then
	"$top/tools/testing/vm/mkinitramfs.sh" "$kver" "$initrd" || exit 2
fi
exec {cache_lock}>&-

rm -rf "$out"
mkdir -p "$out"
# the guest kernel's symbols (nokaslr: the same every boot), for
# hang-report.py; the first run on a kernel makes them
[ -s "$cache/kallsyms" ] && cp "$cache/kallsyms" "$out/kallsyms"

if [ "$install" = 1 ]; then
	# unsigned: the guest does not enforce signatures. One build at a
	# time in a tree: guests started at once (make test's two lanes, a
	# cluster's nodes) would both run kbuild in it.
	if ! flock "$top/.vm-build.lock" \
		make -s -C "$top" --no-print-directory install ${KDIR:+KDIR=$KDIR} \
		INSTALL_MOD_PATH="$out/modroot" DEPMOD=true CONFIG_MODULE_SIG_ALL= \
		> "$out/install.log" 2>&1; then
		log "make install into the guest overlay failed:"
		tail -20 "$out/install.log" >&2
		exit 2
	fi
	# depmod here, against the host's copy of the guest kernel's modules:
	# over 9p in the guest it would read every module and take a minute.
	mods=$out/modroot/lib/modules/$kver
	ln -s "/lib/modules/$kver/kernel" "$mods/kernel"
	# the kernel's own modules built for the debug kernel
	# (debug-extra-modules.sh)
	[ -d "/lib/modules/$kver/extra" ] && ln -s "/lib/modules/$kver/extra" "$mods/extra"
	cp /lib/modules/"$kver"/modules.{order,builtin,builtin.modinfo} "$mods/" 2>/dev/null
	if ! depmod -b "$out/modroot" "$kver" >> "$out/install.log" 2>&1; then
		log "depmod for the guest failed:"
		tail -20 "$out/install.log" >&2
		exit 2
	fi
	rm -f "$mods/kernel" "$mods/extra"
fi

# the script's arguments, quoted twice: guest.env is sourced, then eval'd
args=
[ $# = 0 ] || args=$(printf %q "$(printf '%q ' "$@")")
cat > "$out/guest.env" <<EOF
KT_NAME='$name'
KT_KVER='$kver'
KT_CWD='$PWD'
KT_TOP='$top'
KT_SCRIPT='$script'
KT_SCRIPT_ARGS=$args
KT_SCRIPT_TIMEOUT=$((timeout_s - 30))
KT_GUEST_INIT='$top/tools/testing/vm/guest-init.sh'
EOF
# what a guest test takes from the host's environment: the fuzzers' lengths
# and seeds (KT_PDU_FUZZ_*, KT_USER_FUZZ_*), the TMF race's
# (KT_TMF_RACE_SECONDS), the time a test file gets (KT_FILE_TIMEOUT), the
# backstores libiscsi/compare.sh runs iscsi-test-cu on and a user LU's
# control tokens (KT_CU_*), a cluster node's place (KT_CLUSTER_*, from
# cluster.sh)
for v in $(compgen -e | grep -E '^(KT_PDU_FUZZ_|KT_USER_FUZZ_|KT_TMF_RACE_SECONDS$|KT_FILE_TIMEOUT$|KT_CU_|KT_CLUSTER_)'); do
	printf 'export %s=%q\n' "$v" "${!v}" >> "$out/guest.env"
done

# hang_dump WHY: what a stuck guest does, into hang.txt; then QEMU goes
hang_dump() {
	local qemu=$1 why=$2 beat age i
	echo "$why" > "$out/stuck.txt"
	log "STUCK: $why; dumping state before killing the guest"
	beat=$(cat "$out/heartbeat" 2>/dev/null)
	age=$(( $(date +%s) - $(stat -c %Y "$out/heartbeat" 2>/dev/null || echo 0) ))
	{
		echo "# $why"
		echo "# the guest's last heartbeat: ${age}s ago (uptime ${beat:-none})"
		# a guest clock off the host's makes the guest's own timeouts
		# fire early or never
		[ -n "$beat0" ] && [ -n "$beat" ] && awk -v b0="${beat0#* }" -v b="$beat" \
			-v h="$(( $(stat -c %Y "$out/heartbeat") - ${beat0%% *} ))" 'BEGIN { if (h > 0)
			printf "# the guest'"'"'s clock: %.0f s of uptime in %d s of the host'"'"'s (%.2f of its rate)\n",
				b - b0, h, (b - b0) / h }'
		if [ "$age" -lt 30 ]; then
			# the guest still runs: it dumps its own state
			touch "$out/dump-request"
			for i in $(seq 60); do
				[ -e "$out/dump-done" ] && break
				sleep 1
			done
			echo "# the guest's own dump: $([ -e "$out/dump-done" ] &&
				echo "in dmesg-hang.txt" || echo "none within 60 s")"
		fi
		timeout 120 python3 "$top/tools/testing/vm/hang-report.py" \
			"$out" "$kver" --nmi 2>&1
	} > "$out/hang.txt"
	# the NMI's panic backtrace reaches the console
	for i in $(seq 20); do
		kill -0 "$qemu" 2>/dev/null || break
		sleep 1
	done
	kill -9 "$qemu" 2>/dev/null
}

# qemu_cpu PID: the CPU seconds QEMU has used so far (user + system)
qemu_cpu() {
	local f
	read -ra f 2>/dev/null < "/proc/$1/stat" || return
	# fields 14 and 15, in clock ticks; the command name has no spaces
	echo $(((f[13] + f[14]) / $(getconf CLK_TCK)))
}

# cpu_note FILE WALL CPU: a line of cpu.txt, what one test file cost
cpu_note() {
	case $1 in
	''|-) ;;
	*) printf '%s %s %s\n' "$1" "$2" "$3" >> "$out/cpu.txt" ;;
	esac
}

# watch_guest QEMU_PID: returns when QEMU is gone; ends it when the run or
# the running test file is stuck (a minute past its bound). What each test
# file cost goes to cpu.txt: "FILE WALL-SECONDS QEMU-CPU-SECONDS", a
# lane's balance in make test is planned from it
watch_guest() {
	local qemu=$1 deadline=$(($(date +%s) + timeout_s)) now
	beat0=
	local seen= since=0 file bound cur cpu cpu_since=0 boot_cpu=
	: > "$out/cpu.txt"
	while kill -0 "$qemu" 2>/dev/null; do
		sleep 2
		now=$(date +%s)
		cpu=$(qemu_cpu "$qemu")
		cpu=${cpu:-${last_cpu:-0}}
		last_cpu=$cpu
		# the first heartbeat: the guest clock's rate is measured from it
		[ -z "$beat0" ] && [ -s "$out/heartbeat" ] &&
			beat0="$(stat -c %Y "$out/heartbeat") $(cat "$out/heartbeat")"
		cur=$(cat "$out/progress" 2>/dev/null)
		if [ "$cur" != "$seen" ]; then
			read -r file bound <<< "$seen"
			if [ -z "$boot_cpu" ]; then
				boot_cpu=$cpu
				cpu_note boot $((now - start)) "$boot_cpu"
			else
				cpu_note "$file" $((now - since)) $((cpu - cpu_since))
			fi
			seen=$cur
			since=$now
			cpu_since=$cpu
		fi
		read -r file bound <<< "$seen"
		if [ -n "$bound" ] && [ "$now" -gt $((since + bound + ${KT_HANG_MARGIN:-60})) ]; then
			hang_dump "$qemu" "$file: still running $((now - since))s after it started (bound ${bound}s)"
			return
		fi
		if [ "$now" -ge "$deadline" ]; then
			hang_dump "$qemu" "${file:+$file: }the run's ${timeout_s}s are up"
			return
		fi
	done
	read -r file bound <<< "$seen"
	cpu_note "$file" $(($(date +%s) - since)) $((${last_cpu:-0} - cpu_since))
}

start=$(date +%s)
log "booting $kver ($(basename "$boot")), running $(basename "$script")"

if [ "$quiet" = 0 ]; then
	: > "$out/output.log"
	tail -n +1 -F "$out/output.log" 2>/dev/null &
	tailpid=$!
fi

# The guest's TSC runs at the host's (TCG reads the host's). A guest that
# calibrates it against the emulated PIT while the host is busy can be off
# tenfold ("tsc: Using PIT calibration value", 225 MHz for 2300 on this
# host), and with tsc=reliable nothing corrects it: the guest's clock then
# runs ten times fast and every timeout in it fires early. So the guest is
# told the frequency the host's kernel found, when the host's log has it.
host_tsc_khz() {
	local mhz
	mhz=$(dmesg 2>/dev/null | sed -n \
		-e 's/.*tsc: Refined TSC clocksource calibration: \([0-9.]*\) MHz.*/\1/p' \
		-e 's/.*tsc: Detected \([0-9.]*\) MHz processor.*/\1/p' | tail -1)
	[ -n "$mhz" ] && awk -v m="$mhz" 'BEGIN { printf "tsc_early_khz=%d", m * 1000 }'
}
# KT_GUEST_TSC_KHZ=N tells the guest N instead (the harness's self-test
# plants a clock ten times slow with it)
if [ -n "${KT_GUEST_TSC_KHZ:-}" ]; then
	tsc_khz=tsc_early_khz=$KT_GUEST_TSC_KHZ
else
	tsc_khz=$(host_tsc_khz)
fi

drive=()
[ -n "$disk" ] &&
	drive=(-drive "file=$disk,format=raw,if=virtio,cache=directsync")
[ -n "$shared_disk" ] &&
	drive+=(-drive "file=$shared_disk,format=raw,if=none,id=shared,cache=directsync,file.locking=off"
		-device virtio-blk-pci,drive=shared,share-rw=on,serial=ktshared)
[ -n "$share" ] &&
	drive+=(-fsdev "local,id=ktshare,path=$share,security_model=none"
		-device virtio-9p-pci,fsdev=ktshare,mount_tag=ktshare)
if [ -n "$link" ]; then
	case $link in
	[0-9]*:[0-9]*) ;;
	*) echo "run.sh: --link wants LOCALPORT:REMOTEPORT, not $link" >&2; exit 2 ;;
	esac
	drive+=(-netdev "socket,id=link,udp=127.0.0.1:${link#*:},localaddr=127.0.0.1:${link%%:*}"
		-device "virtio-net-pci,netdev=link,mac=$mac")
fi
qemu-system-x86_64 \
	-accel tcg -cpu max,erms=off,fsrm=off -smp "$smp" -m "$mem" \
	-pidfile "$out/qemu.pid" "${drive[@]}" \
	-nodefaults -no-reboot -display none \
	-monitor "unix:$out/monitor.sock,server=on,wait=off" \
	-serial "file:$out/console.log" \
	-device virtio-rng-pci \
	-kernel "$boot" -initrd "$initrd" \
	-append "console=ttyS0 log_buf_len=16M loglevel=5 panic=-1 oops=panic rdinit=/init mitigations=off tsc=reliable $tsc_khz nokaslr" \
	-fsdev local,id=hostroot,path=/,readonly=on,security_model=none,multidevs=remap \
	-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
	-fsdev local,id=ktout,path="$out",security_model=none \
	-device virtio-9p-pci,fsdev=ktout,mount_tag=ktout \
	> "$out/qemu.log" 2>&1 &
qemu=$!
last_cpu=
watch_guest "$qemu"
wait "$qemu"
qemu_status=$?
[ -e "$out/stuck.txt" ] && qemu_status=124

[ "$quiet" = 0 ] && { sleep 0.3; kill "$tailpid" 2>/dev/null; wait "$tailpid" 2>/dev/null; }
[ -s "$cache/kallsyms" ] || [ ! -s "$out/heartbeat" ] || [ ! -s "$out/kallsyms" ] ||
	cp "$out/kallsyms" "$cache/kallsyms"
secs=$(($(date +%s) - start))

if [ -e "$out/power-cut" ]; then
	# no kernel log was saved: what the console shows is all there is
	log "power cut after ${secs}s (QEMU killed by the caller)"
	if ! "$top/tools/testing/vm/scan-log.sh" "$out/console.log" > "$out/findings.txt"; then
		log "kernel log findings before the cut:"
		cat "$out/findings.txt" >&2
		exit 1
	fi
	exit 0
fi
if [ "$qemu_status" = 124 ]; then
	log "STUCK: $(cat "$out/stuck.txt"); last console lines:"
	tail -20 "$out/console.log" >&2
	log "what the vCPUs run ($out/hang.txt):"
	grep -E '^vCPU|RIP|^    0x' "$out/hang.txt" | head -40 >&2
	exit 124
fi

"$top/tools/testing/vm/scan-log.sh" "$out/dmesg.txt" "$out/console.log" "$out/kmemleak.txt" \
	> "$out/findings.txt"
findings=$?

if [ ! -s "$out/status" ]; then
	log "guest did not finish (qemu exit $qemu_status); last console lines:"
	tail -30 "$out/console.log" >&2
	[ -s "$out/findings.txt" ] && cat "$out/findings.txt" >&2
	exit 1
fi

status=$(cat "$out/status")
if [ "$(cat "$out/rmmod.status" 2>/dev/null)" != 0 ]; then
	log "rmmod of a ktarget module failed after the test:"
	cat "$out/rmmod.log" >&2
	status=1
fi
if [ "$findings" != 0 ]; then
	log "kernel log findings:"
	cat "$out/findings.txt" >&2
	status=1
fi
log "finished in ${secs}s, ${last_cpu:-?} CPU-s, status $status (logs in $out)"
exit "$status"
