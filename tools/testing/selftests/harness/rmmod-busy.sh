#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: a process keeps a ktarget_core attribute open, so the
# rmmod at the end of the run fails; the harness must report failure.
modprobe ktarget_core || exit 1
setsid sleep 600 < /sys/kernel/config/target/version > /dev/null 2>&1 &
sleep 0.5
exit 0
