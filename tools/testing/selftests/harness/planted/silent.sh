#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test, never in the suite: prints nothing at all. The runner
# must fail it.
exit 0
