#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: the script's exit status must come back to the host.
exit 7
