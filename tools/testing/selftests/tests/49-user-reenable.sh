#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The user backstore's device mapping across a disable (issue 44, review
# finding 3 of the data-area pages). A daemon that keeps its mmap() of a
# device after the device is removed gets SIGBUS on the next touch of it,
# not the memory the device had (the mailbox read from a child). With
# Debian's tcmu-runner: an enable it refuses after mapping the device (its
# image is not there) is followed by one that works, and tcmu-runner maps
# the device again through its new device node and serves it (a loopback
# LUN reads back what was written). A user device is disabled only as it
# goes or as such an enable fails (the core turns back no enable of a
# passthrough backstore after it enabled). A device node made on a tmpfs
# (a container's /dev) that is unmounted (lazily) while the device is
# mapped through it: the tmpfs stays until the device goes, so no inode of
# it is left busy when its superblock would go (a use-after-free at the
# removal). A max_data_area_mb of 16 TiB, more blocks than the kernel
# counts, is refused at enable. A daemon that unmapped the device (a
# restart) maps it again through another node of it. About a minute.
. ./lib.sh
. ./user_lib.sh

WWN=naa.5001405000000391
TPG=$KT_CFS/loopback/$WWN/tpgt_1
UHBA=$KT_CFS/core/user_0
IMGS=/tmp/kt-user-re
FS=/run/kt-user-re.ext4
RAW=$IMGS/raw.img
LOG=/ktout/user-reenable.log
CONF=/etc/modprobe.d/ktarget-lio-names.conf
RUNNER=

# map_then_removed DEV: maps the device's UIO device, has the shell
# remove the device, then touches the mailbox from a child: its fate
map_then_removed() {
	python3 - "$1" "$UHBA/$1" <<-'EOF'
	import mmap, os, signal, sys
	dev, ddir = sys.argv[1], sys.argv[2]
	uio = None
	for d in sorted(os.listdir("/sys/class/uio")):
	    with open("/sys/class/uio/%s/name" % d) as f:
	        if "/%s/" % dev in f.read():
	            uio = d
	with open("/sys/class/uio/%s/maps/map0/size" % uio) as f:
	    size = int(f.read(), 0)
	fd = os.open("/dev/" + uio, os.O_RDWR)
	mm = mmap.mmap(fd, size)
	print("mapped, mailbox version", mm[0])
	os.close(fd)
	os.rmdir(ddir)
	pid = os.fork()
	if pid == 0:
	    os._exit(100 + mm[0])
	_, st = os.waitpid(pid, 0)
	if os.WIFSIGNALED(st) and os.WTERMSIG(st) == signal.SIGBUS:
	    print("SIGBUS")
	else:
	    print("read it: status %#x" % st)
	EOF
}

# map_through_tmpfs DEV: maps DEV's UIO device through a node made on a
# tmpfs, unmounts the tmpfs lazily, drops the mapping and the node, then
# has the shell remove the device
map_through_tmpfs() {
	mkdir -p /tmp/kt-user-devfs &&
		mount -t tmpfs -o size=64k none /tmp/kt-user-devfs || return 1
	python3 - "$1" /tmp/kt-user-devfs <<-'EOF'
	import mmap, os, stat, subprocess, sys
	dev, devfs = sys.argv[1], sys.argv[2]
	uio = None
	for d in sorted(os.listdir("/sys/class/uio")):
	    with open("/sys/class/uio/%s/name" % d) as f:
	        if "/%s/" % dev in f.read():
	            uio = d
	with open("/sys/class/uio/%s/maps/map0/size" % uio) as f:
	    size = int(f.read(), 0)
	with open("/sys/class/uio/%s/dev" % uio) as f:
	    major, minor = (int(x) for x in f.read().split(":"))
	node = devfs + "/" + uio
	os.mknod(node, 0o600 | stat.S_IFCHR, os.makedev(major, minor))
	fd = os.open(node, os.O_RDWR)
	mm = mmap.mmap(fd, size)
	print("mapped through the tmpfs, mailbox version", mm[0])
	os.close(fd)
	os.unlink(node)
	subprocess.run(["umount", "-l", devfs], check=True)
	mm.close()
	print("unmapped")
	EOF
}

# remap_other_node DEV: maps DEV's UIO device through /dev, unmaps it and
# closes it, then maps it through another node of the same device
remap_other_node() {
	python3 - "$1" <<-'EOF'
	import mmap, os, stat, sys
	dev = sys.argv[1]
	uio = None
	for d in sorted(os.listdir("/sys/class/uio")):
	    with open("/sys/class/uio/%s/name" % d) as f:
	        if "/%s/" % dev in f.read():
	            uio = d
	with open("/sys/class/uio/%s/maps/map0/size" % uio) as f:
	    size = int(f.read(), 0)
	with open("/sys/class/uio/%s/dev" % uio) as f:
	    major, minor = (int(x) for x in f.read().split(":"))
	fd = os.open("/dev/" + uio, os.O_RDWR)
	mm = mmap.mmap(fd, size)
	print("mapped through /dev, mailbox version", mm[0])
	mm.close()
	os.close(fd)
	node = "/tmp/kt-user-node-" + uio
	os.mknod(node, 0o600 | stat.S_IFCHR, os.makedev(major, minor))
	fd = os.open(node, os.O_RDWR)
	try:
	    mm = mmap.mmap(fd, size)
	    print("mapped again through another node, mailbox version", mm[0])
	    mm.close()
	except OSError as e:
	    print("mmap through another node refused:", e)
	os.close(fd)
	os.unlink(node)
	EOF
}

loop_setup() {
	mkdir -p $TPG/lun/lun_0 && ln -s $UHBA/ur $TPG/lun/lun_0/u &&
		echo naa.5001405000000392 > $TPG/nexus
}

main() {
	local out d start_mark

	if ! command -v tcmu-runner >/dev/null || ! command -v python3 >/dev/null; then
		skip_all "tcmu-runner or python3 not installed"
		return
	fi
	plan 22
	kmsg_mark
	start_mark=$KT_KMSG_MARK

	# no daemon: a mapping kept past the device's removal
	check "modprobe ktarget_user" modprobe ktarget_user
	check "user device us, no daemon" sh -c "mkdir -p $UHBA/us &&
		echo dev_config=fake/none,dev_size=1048576,max_data_area_mb=1 > $UHBA/us/control &&
		echo 1 > $UHBA/us/enable"
	out=$(map_then_removed us 2>&1)
	printf '%s\n' "$out" > $LOG.sigbus
	check "a mapping kept past the device's removal: SIGBUS, not its memory" \
		output_has "$out" "mapped, mailbox version 2" SIGBUS
	check "the device went" test ! -e $UHBA/us

	# no daemon: the device node on a tmpfs unmounted while mapped
	check "user device ut, no daemon" sh -c "mkdir -p $UHBA/ut &&
		echo dev_config=fake/none,dev_size=1048576,max_data_area_mb=1 > $UHBA/ut/control &&
		echo 1 > $UHBA/ut/enable"
	out=$(map_through_tmpfs ut 2>&1)
	printf '%s\n' "$out" > $LOG.tmpfs
	sleep 1
	check "mapped through a node on a tmpfs, the tmpfs unmounted, unmapped" \
		output_has "$out" "mapped through the tmpfs, mailbox version 2" unmapped
	check "the device goes after, no inode of the tmpfs left busy" sh -c "
		rmdir $UHBA/ut && sleep 1 &&
		! dmesg | sed -n '/$KT_KMSG_MARK/,\$p' | grep 'Busy inodes'"

	# no daemon: a data area of 2^32 blocks of 4 KiB
	check "global_max_data_area_mb 16777216 (16 TiB)" sh -c \
		"echo 16777216 > /sys/module/ktarget_user/parameters/global_max_data_area_mb"
	check "user device uh, max_data_area_mb 16777216" sh -c "mkdir -p $UHBA/uh &&
		echo dev_config=fake/none,dev_size=1048576,max_data_area_mb=16777216 > $UHBA/uh/control"
	check_fails "its enable is refused (2^32 blocks)" sh -c "echo 1 > $UHBA/uh/enable"
	check "it goes, global_max_data_area_mb 2048 again" sh -c "rmdir $UHBA/uh &&
		echo 2048 > /sys/module/ktarget_user/parameters/global_max_data_area_mb"

	# no daemon: a restarted daemon maps through another node
	check "user device um, no daemon" sh -c "mkdir -p $UHBA/um &&
		echo dev_config=fake/none,dev_size=1048576,max_data_area_mb=1 > $UHBA/um/control &&
		echo 1 > $UHBA/um/enable"
	out=$(remap_other_node um 2>&1)
	printf '%s\n' "$out" > $LOG.remap
	check "unmapped, it maps again through another node of the device" \
		output_has "$out" "mapped through /dev, mailbox version 2" \
		"mapped again through another node, mailbox version 2"
	check "the device goes" rmdir $UHBA/um

	# tcmu-runner: an enable turned back, then one that works
	user_env_up
	check "modprobe sd_mod and sg, images on ext4" sh -c "
		modprobe sd_mod && modprobe sg && modprobe loop &&
		mkdir -p $IMGS && truncate -s 64M $FS && mkfs.ext4 -q -F $FS &&
		mount -o loop $FS $IMGS && truncate -s 16M $RAW"
	runner_start
	check "tcmu-runner starts" runner_on_bus
	check "user device ur over an image that is not there" sh -c "
		mkdir -p $UHBA/ur &&
		echo dev_config=qcow/$IMGS/none.img,dev_size=16777216 > $UHBA/ur/control"
	check "enable refused by tcmu-runner (it mapped the device first)" \
		sh -c "! (echo 1 > $UHBA/ur/enable) 2>/dev/null"
	check "the image made, dev_config set, enable again" sh -c "
		echo dev_config=qcow/$RAW > $UHBA/ur/control && echo 1 > $UHBA/ur/enable"
	check "tcmu-runner maps it again, through the new device node" \
		kt_wait_for 20 bash -c "$(declare -f runner_has); RUNNER=$RUNNER; runner_has ur"
	check "a loopback LUN over it reads back what was written" bash -c "
		$(declare -f loop_setup kt_loop_disk); KT_SLOW=${KT_SLOW:-1}
		TPG=$TPG UHBA=$UHBA loop_setup || exit 1
		d=\$(kt_loop_disk $TPG 0) || exit 1
		dd if=/dev/urandom of=/tmp/kt-re-pat bs=1M count=1 2>/dev/null &&
		dd if=/tmp/kt-re-pat of=\$d bs=1M oflag=direct 2>/dev/null &&
		cmp -n 1048576 /tmp/kt-re-pat \$d"

	rm -f $TPG/lun/lun_0/u
	rmdir $TPG/lun/lun_0 2>/dev/null
	rmdir $TPG $KT_CFS/loopback/$WWN 2>/dev/null
	rmdir $UHBA/ur 2>/dev/null
	runner_kill
	rmdir $UHBA $KT_CFS/loopback 2>/dev/null
	umount $IMGS
	rm -f $FS /tmp/kt-re-pat $CONF
	kt_dbus_stop
	rmmod ktarget_loop 2>/dev/null
	rmmod ktarget_user && rmmod ktarget_core
	KT_KMSG_MARK=$start_mark
	check "the kernel log shows no finding" kt_kmsg_clean
}

main "$@"
