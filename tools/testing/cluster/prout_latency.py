#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""PERSISTENT RESERVE OUT latency: N REGISTER AND IGNORE EXISTING KEY.

  prout_latency.py TARGET LUN ADDR N

One session; each command changes the key, so each is a change the
target must make (and in cluster mode publish). Prints the mean and the
median in milliseconds; exits 1 when a command fails.
"""
import os
import statistics
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "selftests"))
from iscsi_raw import Session  # noqa: E402


def main():
    target, lun, addr, n = sys.argv[1], int(sys.argv[2]), sys.argv[3], \
        int(sys.argv[4])
    s = Session(addr)
    s.login(target, target + ":latency")
    times = []
    for i in range(n + 1):
        param = struct.pack(">QQ4xB3x", 0, 0x1000 + (i % 2), 0)
        cdb = bytes([0x5F, 6, 0, 0, 0, 0, 0, 0, len(param), 0])
        t = time.monotonic()
        st, sense, _ = s.wait(s.command(lun, cdb, out=param))
        if st != 0:
            print("REGISTER AND IGNORE EXISTING KEY: status %#x %s" %
                  (st, sense))
            sys.exit(1)
        times.append(time.monotonic() - t)
    # the first may load the state: not a steady figure
    times = times[1:]
    param = struct.pack(">QQ4xB3x", 0, 0, 0)
    s.wait(s.command(lun, bytes([0x5F, 6, 0, 0, 0, 0, 0, 0, 24, 0]),
                     out=param))
    print("mean %.3f median %.3f" % (1000 * statistics.mean(times),
                                     1000 * statistics.median(times)))


if __name__ == "__main__":
    main()
