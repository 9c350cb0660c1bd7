#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: a clean run loads and unloads ktarget_core; must pass.
modprobe ktarget_core && test -d /sys/kernel/config/target/core
