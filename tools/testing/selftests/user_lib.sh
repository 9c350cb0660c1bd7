# SPDX-License-Identifier: GPL-2.0
#
# user_lib.sh: what the tests of the user backstore with Debian's
# tcmu-runner share (sourced after lib.sh; TPG, KT_CFS, LOG, CONF and RUNNER
# are the sourcing file's).

# the disk of LUN $1 on the loopback nexus of $TPG, within 20 s
user_disk() {
	kt_loop_disk "$TPG" "$1"
}

# user_env_up: what targetcli and tcmu-runner need in the guest: a HOME,
# D-Bus, and ktarget's modprobe.d file that gives LIO's module names
user_env_up() {
	export HOME=/root
	mkdir -p /root /run/dbus /etc/rtslib-fb-target /etc/modprobe.d
	kt_dbus_start
	cp ../../../tools/ktarget-lio-names.modprobe.conf "$CONF"
}

runner_on_bus() {
	dbus-send --system --print-reply --dest=org.freedesktop.DBus / \
		org.freedesktop.DBus.ListNames 2>/dev/null | grep -q TCMUService1
}

# tcmu-runner, in the background, on D-Bus within 30 s
runner_start() {
	mkdir -p /ktout/tcmu-runner
	tcmu-runner -l /ktout/tcmu-runner >> $LOG.runner 2>&1 &
	RUNNER=$!
	kt_wait_for 30 runner_on_bus
}

# the HBA of backstore $1, user_N: rtslib's restore may take another N
user_hba() {
	local d
	for d in $KT_CFS/core/user_*/$1; do
		[ -d "$d" ] && { dirname "$d"; return 0; }
	done
	echo $KT_CFS/core/user_none
}

runner_kill() {
	[ -n "$RUNNER" ] || return 0
	kill -9 $RUNNER 2>/dev/null
	wait $RUNNER 2>/dev/null
	RUNNER=
}

# the daemon holds the UIO device of backstore $1
runner_has() {
	local u
	u=$(grep -l "^tcm-user/[0-9]*/$1/" /sys/class/uio/uio*/name 2>/dev/null |
	    head -1 | cut -d/ -f5)
	[ -n "$u" ] && [ -n "$RUNNER" ] &&
		ls -l /proc/$RUNNER/fd/ 2>/dev/null | grep -q "/dev/$u\$"
}
