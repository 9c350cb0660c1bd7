#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test, never in the suite: plans two checks and makes them,
# one of them skipped. The runner must pass it.
. ./lib.sh
plan 2
ok "the first check"
skip "the second check" "nothing to check it with"
