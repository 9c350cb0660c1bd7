#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A planted test file (run-all.sh runs it alone, with a 30 s bound): it
# loads kt_planted_spin, which soon stops every CPU with interrupts off, so
# the guest's own timeout never fires. The host must end the run by this
# file's name within its bound plus KT_HANG_MARGIN (15 s there; a minute by
# default), with the vCPUs' RIPs mapped to kt_planted_spin.
echo "1..1"
insmod "$(dirname "$0")/../spin/kt_planted_spin.ko" delay_ms=20000 || exit 1
# the host needs the module's address (guest-init.sh's heartbeat)
for i in $(seq 15); do
	grep -q '^kt_planted_spin ' /ktout/modules.txt 2>/dev/null && break
	sleep 1
done
sleep 600
echo "not ok 1 - the guest still runs after 600 s"
