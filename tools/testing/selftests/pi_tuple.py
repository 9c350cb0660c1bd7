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
#   pi_tuple.py weave DATA LBA APP [SPOIL GUARD_XOR REF_XOR] > OUT
#       DATA's blocks each followed by its tuple, as RDPROTECT and
#       WRPROTECT move them over iSCSI: application tag APP, reference tag
#       LBA + its index; block SPOIL's guard and reference tag XORed with
#       GUARD_XOR and REF_XOR
#   pi_tuple.py wire WIRE IMG PROT LBA
#       WIRE (blocks each followed by a tuple, from LBA on) has IMG's data
#       and PROT's tuples; with PROT "-" the tuples a type 1 LU without PI
#       shows: the guard, application tag 0, the LBA

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


def weave(data, lba, app, spoil=-1, guard_xor=0, ref_xor=0):
    out = b''
    for i in range(len(data) // 512):
        blk = data[i * 512:(i + 1) * 512]
        bad = i == spoil
        out += blk + tuple_of(blk, app, (lba + i) ^ (ref_xor if bad else 0),
                              guard_xor if bad else 0)
    return out


def wire(wire_file, img, prot, lba):
    with open(wire_file, 'rb') as f:
        w = f.read()
    ok = len(w) > 0 and len(w) % 520 == 0
    for i in range(len(w) // 520):
        data, t = w[i * 520:i * 520 + 512], w[i * 520 + 512:(i + 1) * 520]
        with open(img, 'rb') as f:
            f.seek((lba + i) * 512)
            want_data = f.read(512)
        if prot == '-':
            want = tuple_of(data, 0, lba + i)
        else:
            with open(prot, 'rb') as f:
                f.seek((lba + i) * 8)
                want = f.read(8)
        if data != want_data or t != want:
            print('block %d: data %s, PI %s, want %s' %
                  (lba + i, 'same' if data == want_data else 'differs',
                   t.hex(), want.hex()))
            ok = False
    print('%d bytes, %d blocks with their PI' % (len(w), len(w) // 520))
    return ok


def main(argv):
    if len(argv) >= 6 and argv[1] == 'check':
        num = [int(a, 0) for a in argv[4:]]
        return 0 if check(argv[2], argv[3], *num) else 1
    if len(argv) >= 5 and argv[1] == 'block':
        with open(argv[2], 'rb') as f:
            data = f.read(512)
        num = [int(a, 0) for a in argv[3:]]
        sys.stdout.buffer.write(data + tuple_of(data, *num))
        return 0
    if len(argv) >= 5 and argv[1] == 'weave':
        with open(argv[2], 'rb') as f:
            data = f.read()
        num = [int(a, 0) for a in argv[3:]]
        sys.stdout.buffer.write(weave(data, *num))
        return 0
    if len(argv) == 6 and argv[1] == 'wire':
        return 0 if wire(argv[2], argv[3], argv[4], int(argv[5], 0)) else 1
    print(__doc__ or 'usage: see the head of pi_tuple.py', file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
