#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What dm-log-writes logged, read from a copy of its log device.

  log_writes.py LOG fua SECTOR          a write at SECTOR, with FUA
  log_writes.py LOG flush-after SECTOR  a write covering SECTOR, then a flush

The log: a super block (its sector size at byte 24), then per write an
entry (sector, nr_sectors, flags, data_len; little endian) in a block of
its own, followed by nr_sectors blocks of data (a discard has none).
dm-log-writes logs a plain write only when a flush comes after it, a FUA
write at once. Exits 0 when found, 1 when the write is there without what
was asked, 2 when it is not (yet) there.
"""
import struct
import sys

FLUSH, FUA, DISCARD = 0x1, 0x2, 0x4


def entries(log):
    bs = struct.unpack_from("<I", log, 24)[0] or 512
    off = bs
    while off + 32 <= len(log):
        sector, nr, flags, dlen = struct.unpack_from("<QQQQ", log, off)
        if not (sector or nr or flags or dlen):
            return
        yield sector, nr, flags
        off += bs * (1 + (0 if flags & DISCARD else nr))


def main():
    log, mode, want = open(sys.argv[1], "rb").read(), sys.argv[2], \
        int(sys.argv[3])
    seen, written = [], False
    for sector, nr, flags in entries(log):
        seen.append("%d+%d flags %#x" % (sector, nr, flags))
        covers = nr and sector <= want < sector + nr
        if mode == "fua" and covers:
            print("logged: " + seen[-1])
            return 0 if flags & FUA else 1
        written |= bool(covers)
        if mode == "flush-after" and written and flags & FLUSH:
            print("logged: " + ", ".join(seen[-4:]))
            return 0
    print("nothing for %s at %d; logged: %s" %
          (mode, want, ", ".join(seen[-8:]) or "none"))
    return 2


if __name__ == "__main__":
    sys.exit(main())
