#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A real QEMU on a vhost-scsi target, for the files of this folder (make
# test-vhost-qemu; not in make test: a guest inside the TCG guest boots in
# minutes). The target is ktarget_vhost or LIO's vhost_scsi, WWN $WWN with
# TPG 1: LUN 0 an rd LU, LUN 1 a fileio LU over $FIMG. QEMU (-accel tcg,
# the host's own qemu-system-x86_64 over 9p) boots this kernel with
# nested-init as its /init and one device, vhost-scsi-pci,wwpn=$WWN; the
# nested guest writes a pattern to both LUNs and reads it back, reads what
# was written into the fileio file before, says which PI format LUN 1 has
# in its block layer, times 8 MiB of O_DIRECT I/O and powers off. QEMU's vhost ioctls are traced (strace) into the run folder,
# with its console and its own messages.
. ./lib.sh

WWN=naa.5001405000000043
FIMG=/tmp/kt-vhost-qemu-f0.img
WORK=/tmp/kt-vhost-qemu
# how long the nested guest may take, QEMU's start to its power-off: the
# file's own time (run.sh's KT_FILE_TIMEOUT) less five minutes for the
# rest. TCG in TCG: about 15 minutes on a 2-CPU host (the admin guide).
QEMU_SECONDS=$((${KT_FILE_TIMEOUT:-1200} - 300))
# checks of vhost_qemu_run
VQ_CHECKS=9
# what the caller may set: more options of QEMU's device (",t10_pi=on")
# and the nested guest's integrity format of LUN 1 it must then find
VQ_DEV_OPTS=${VQ_DEV_OPTS:-}
VQ_INTEG1=${VQ_INTEG1:-none}

# vhost_dev: /dev/vhost-scsi, made if no devtmpfs made it
vhost_dev() {
	local d=/sys/class/misc/vhost-scsi/dev
	[ -c /dev/vhost-scsi ] && return 0
	[ -r $d ] || return 1
	mknod /dev/vhost-scsi c $(tr ':' ' ' < $d)
}

# vq_initramfs: $WORK/initrd, nested-init with virtio_scsi and sd and
# their dependencies (those built in are skipped), $WORK/pattern, and
# sg_reset with the libraries it needs (ldd), when it is installed
vq_initramfs() {
	local top=../../.. f

	rm -rf $WORK && mkdir -p $WORK/root &&
	head -c 1048576 /dev/urandom > $WORK/pattern &&
	cp $WORK/pattern $WORK/root/pattern &&
	$top/tools/testing/vm/mkinitramfs.sh --init vhost-qemu/nested-init \
		--modules "virtio_pci virtio_scsi sd_mod" "$(uname -r)" \
		$WORK/initrd || return 1
	if command -v sg_reset > /dev/null; then
		for f in $(command -v sg_reset) $(ldd "$(command -v sg_reset)" |
			   grep -o '/[^ ]*'); do
			mkdir -p "$WORK/root${f%/*}" && cp -L "$f" "$WORK/root$f" || return 1
		done
	fi
	# a second archive, appended: the kernel unpacks both
	(cd $WORK/root && find . | cpio -o -H newc --quiet | gzip -1 >> ../initrd)
}

# vq_kernel: the kernel the nested guest boots, this one; the vmlinux the
# outer guest booted from (PVH, a faster boot) when vm/run.sh made it
vq_kernel() {
	local v

	v=../../../.vm-cache/$(uname -r)/vmlinux
	if [ -s "$v" ]; then
		echo "$v"
	else
		echo "/boot/vmlinuz-$(uname -r)"
	fi
}

# vhost_qemu_run STACK: the nested guest on target $WWN; STACK (ktarget,
# lio) names its logs. VQ_CHECKS checks; the times go to VQ_TIMES.
vhost_qemu_run() {
	local stack=$1 log=/ktout/vhost-qemu-$1 pre res st start secs tsc hz
	local line want

	head -c 1048576 /dev/urandom > $WORK/pre
	dd if=$WORK/pre of=$FIMG bs=1M count=1 conv=notrunc,fsync 2>/dev/null
	# acpi=off: the AML interpreter is slow in TCG in TCG (_PRT timed out
	# there, AE_AML_LOOP_TIMEOUT); the MP table routes the interrupts.
	# The nested guest's clock: this guest's TSC frequency, as told (TCG
	# reads the host's TSC at every level), and the delay loop from it
	tsc=$(tr ' ' '\n' < /proc/cmdline | grep '^tsc_early_khz=')
	hz=$(sed -n 's/^CONFIG_HZ=//p' "/boot/config-$(uname -r)" 2>/dev/null)
	[ -n "$tsc" ] && [ -n "$hz" ] &&
		tsc="$tsc tsc=reliable lpj=$((${tsc#*=} * 1000 / hz))"
	start=$SECONDS
	timeout -k 10 "$QEMU_SECONDS" strace -f --seccomp-bpf -e trace=ioctl \
		-o $log-strace.txt \
		qemu-system-x86_64 -accel tcg -machine pc -m 256 -smp 1 \
		-nodefaults -no-reboot -display none \
		-serial file:$log-console.txt \
		-kernel "$(vq_kernel)" -initrd $WORK/initrd \
		-append "console=ttyS0 quiet panic=-1 rdinit=/init nowatchdog mitigations=off nokaslr acpi=off $tsc" \
		-device vhost-scsi-pci,wwpn=$WWN$VQ_DEV_OPTS > $log-qemu.txt 2>&1
	st=$?
	secs=$((SECONDS - start))
	grep -a 'VHOST\|ioctl(.*0xaf' $log-strace.txt > $log-ioctls.txt 2>/dev/null
	check_eq "$stack: QEMU ran the nested guest to its power-off (${secs}s)" "$st" 0
	res=$(grep -a '^KTVQ RESULT' $log-console.txt 2>/dev/null | tail -1)
	line=${res#KTVQ RESULT }
	if [ "${line%% *}" = ok ]; then
		ok "$stack: the nested guest found LUN 0 and 1, wrote and read them"
	else
		not_ok "$stack: the nested guest found LUN 0 and 1, wrote and read them" \
			"result: ${res:-none}" "QEMU: $(tail -5 $log-qemu.txt)" \
			"console: $(tail -15 $log-console.txt 2>/dev/null)"
	fi
	want=$(md5sum < $WORK/pattern)
	check_eq "$stack: what it read back is what it wrote" \
		"$(vq_field pattern "$line")" "${want%% *}"
	pre=$(md5sum < $WORK/pre)
	check_eq "$stack: it read what was in the fileio file before" \
		"$(vq_field pre "$line")" "${pre%% *}"
	check_eq "$stack: the nested guest's block layer PI on LUN 1 (QEMU's vhost-scsi-pci$VQ_DEV_OPTS)" \
		"$(vq_field integ1 "$line")" "$VQ_INTEG1"
	check "$stack: the fileio file holds what it wrote (at 1 MiB)" \
		cmp -n 1048576 -i 1048576:0 $FIMG $WORK/pattern
	if command -v sg_reset > /dev/null; then
		check_eq "$stack: sg_reset -d in the nested guest (LUN RESET), LUN 0 reads back" \
			"$(vq_field tmf "$line")" ok
	else
		skip "$stack: sg_reset -d in the nested guest" "no sg3-utils"
	fi
	# the SCSI midlayer's and sd's complaints (quiet keeps the rest out)
	check "$stack: no I/O error in the nested guest's log" sh -c "
		! grep -aE 'I/O error|critical (target|medium) error|(sd|scsi) .*(abort|timing out|FAILED)' \
		$log-console.txt"
	check "$stack: QEMU said nothing of vhost" sh -c "! grep -ai vhost $log-qemu.txt"
	VQ_TIMES="$stack: QEMU ran ${secs}s (nested uptime $(vq_field up_ms "$line") ms); 8 MiB O_DIRECT dd: write $(vq_field write_ms "$line") ms, read $(vq_field read_ms "$line") ms"
	echo "# $VQ_TIMES"
}

# vq_field KEY LINE: KEY's value in the nested guest's result line
vq_field() {
	printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}
