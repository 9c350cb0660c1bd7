#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: the script succeeds but plants a kernel WARNING line;
# the harness must report failure.
echo "WARNING: CPU: 0 PID: 1 at planted by the harness self-test" > /dev/kmsg
exit 0
