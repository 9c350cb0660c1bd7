#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test, never in the suite: every planned check passes, then
# the file exits 3. The runner must fail it.
. ./lib.sh
plan 1
ok "the only check"
exit 3
