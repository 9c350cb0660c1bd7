#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""COMPARE AND WRITE from two nodes at once: a counter in one block.

  caw_race.py SECONDS TARGET INITIATOR LUN ADDR...

One thread per ADDR (a node's portal), each with a session of its own.
Each reads block 0, takes its first eight bytes as a counter and sends
COMPARE AND WRITE (16) of that block: the block as read, then the block
with the counter one higher. GOOD is an increment; MISCOMPARE means
another node's went first, and the thread reads again.

When every COMPARE AND WRITE is atomic across the nodes, the counter
ends equal to the sum of the GOOD answers. When the read, compare and
write of two nodes interleave, both see the same old value, both get
GOOD, and one increment is lost: the counter ends lower.

Prints one line per thread and a summary; exits 0 when the counter
matches, every thread had a GOOD, and no answer was an error.
"""
import os
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "selftests"))
from iscsi_raw import Session  # noqa: E402

MISCOMPARE = 0x0E


def caw_cdb(lba):
    return bytes([0x89, 0]) + struct.pack(">Q", lba) + b"\0\0\0" + \
        bytes([1, 0, 0])


def worker(addr, target, initiator, lun, end, out):
    s = Session(addr)
    s.login(target, initiator)
    bs = s.read_capacity(lun)[1]
    good = miscompare = 0
    errors = []
    while time.monotonic() < end:
        st, sense, data = s.read_block(lun, 0, bs)
        if st != 0:
            errors.append("READ: status %#x sense %s" % (st, sense))
            break
        old = data[:bs]
        n = struct.unpack(">Q", old[:8])[0]
        new = struct.pack(">Q", n + 1) + old[8:]
        st, sense, _ = s.wait(s.command(lun, caw_cdb(0), out=old + new))
        if st == 0:
            good += 1
        elif st == 2 and sense[0] == MISCOMPARE:
            miscompare += 1
        else:
            errors.append("COMPARE AND WRITE: status %#x sense %s" %
                          (st, sense))
            break
    out[addr] = (good, miscompare, errors, s)


def main():
    seconds, target, initiator = float(sys.argv[1]), sys.argv[2], sys.argv[3]
    lun, addrs = int(sys.argv[4]), sys.argv[5:]
    end = time.monotonic() + seconds
    out = {}
    threads = [threading.Thread(target=worker,
                                args=(a, target, "%s.%d" % (initiator, i),
                                      lun, end, out))
               for i, a in enumerate(addrs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ok = len(out) == len(addrs)
    total = 0
    for a in addrs:
        if a not in out:
            print("%s: the thread died" % a)
            continue
        good, mis, errors, s = out[a]
        total += good
        print("%s: %d GOOD, %d MISCOMPARE" % (a, good, mis))
        for e in errors:
            print("%s: %s" % (a, e))
        ok = ok and good > 0 and not errors
    s = out[addrs[0]][3] if addrs[0] in out else Session(addrs[0])
    bs = s.read_capacity(lun)[1]
    st, _, data = s.read_block(lun, 0, bs)
    final = struct.unpack(">Q", data[:8])[0] if st == 0 else -1
    print("counter %d, GOOD answers %d, lost increments %d" %
          (final, total, total - final))
    sys.exit(0 if ok and final == total else 1)


if __name__ == "__main__":
    main()
