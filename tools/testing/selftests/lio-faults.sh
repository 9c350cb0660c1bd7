#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/47 and 48 (slow, bad, full and cached backstores) on Linux's own target
# (LIO) in the guest, for the comparison in the notes; not in make test:
#   tools/testing/vm/run.sh --name lio-faults tools/testing/selftests/lio-faults.sh
cd "$(dirname "$0")" || exit 1
KT_STACK=lio exec ./run.sh tests/47-faults.sh tests/48-media-faults.sh
