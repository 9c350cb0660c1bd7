#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# T10-PI tuples (SBC-4 4.22: CRC-16 T10-DIF guard, application tag,
# reference tag) for the guest tests of PI, in 512-byte blocks:
#
#   pi_tuple.py check IMG PROT LBA TYPE [APP [REF]]
#       the tuple of block LBA in PROT (a fileio .protection file) is the
#       one its data in IMG should have: the guard, application tag APP
#       (0), reference tag REF (the LBA for type 1, else 0)
#   pi_tuple.py block DATA APP REF [GUARD_XOR] > OUT
#       DATA's 512 bytes followed by their tuple (WRITE SAME with
#       WRPROTECT): application tag APP, reference tag REF, the guard
#       XORed with GUARD_XOR (0)

import sys


def crc(data):
    c = 0
    for b in data:
        c ^= b << 8
        for _ in range(8):
            c = ((c << 1) ^ 0x8bb7) & 0xffff if c & 0x8000 else (c << 1) & 0xffff
    return c


def tuple_of(data, app, ref, guard_xor=0):
    return ((crc(data) ^ guard_xor).to_bytes(2, 'big') +
            app.to_bytes(2, 'big') + (ref & 0xffffffff).to_bytes(4, 'big'))


def check(img, prot, lba, ptype, app=0, ref=None):
    with open(img, 'rb') as f:
        f.seek(lba * 512)
        data = f.read(512)
    with open(prot, 'rb') as f:
        f.seek(lba * 8)
        t = f.read(8)
    if ref is None:
        ref = lba if ptype == 1 else 0
    want = tuple_of(data, app, ref)
    print('block %d: PI %s, want %s' % (lba, t.hex(), want.hex()))
    return t == want


def main(argv):
    num = [int(a, 0) for a in argv[4:]]
    if len(argv) >= 6 and argv[1] == 'check':
        return 0 if check(argv[2], argv[3], *num) else 1
    if len(argv) >= 5 and argv[1] == 'block':
        with open(argv[2], 'rb') as f:
            data = f.read(512)
        num = [int(a, 0) for a in argv[3:]]
        sys.stdout.buffer.write(data + tuple_of(data, *num))
        return 0
    print(__doc__ or 'usage: see the head of pi_tuple.py', file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
