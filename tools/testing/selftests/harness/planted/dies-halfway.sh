#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test, never in the suite: plans three checks, makes one and
# leaves with status 0. The runner must fail it.
. ./lib.sh
plan 3
ok "the first check"
exit 0
