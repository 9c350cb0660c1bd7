#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A planted test file (run-all.sh runs it alone, with a 30 s bound, in a
# guest told a TSC ten times the host's, KT_GUEST_TSC_KHZ): the guest's
# clock runs ten times slow, so that its own timeout would end this file
# only after five minutes of the host's and the sleep below after twenty.
# The host must end the run by this file's name within its bound plus
# KT_HANG_MARGIN of its own time, and say how fast the guest's clock ran.
echo "1..1"
sleep 120
echo "not ok 1 - the host let the guest sleep 120 s of its slow clock"
