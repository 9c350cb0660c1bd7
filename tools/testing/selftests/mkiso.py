#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# mkiso.py IMG FILE...: a plain ISO 9660 image (level 1, no extensions)
# holding FILEs in its root directory, for tests/54-cdrom.sh where xorriso
# is not installed. Names must be 8.3, lower case (Linux shows them so).
# Layout (ECMA-119): 16 empty system area blocks, the primary volume
# descriptor (16), the terminator (17), the L and M path tables (18, 19),
# the root directory (20), then each file from a block of its own.
import os
import struct
import sys

BLOCK = 2048


def both16(v):
    return struct.pack('<H', v) + struct.pack('>H', v)


def both32(v):
    return struct.pack('<I', v) + struct.pack('>I', v)


def dir_record(name, extent, size, is_dir):
    rec = bytearray()
    rec += b'\0'                        # length, set below
    rec += b'\0'                        # extended attribute record length
    rec += both32(extent) + both32(size)
    rec += bytes([126, 1, 1, 0, 0, 0, 0])   # recorded 2026-01-01, GMT
    rec += bytes([2 if is_dir else 0, 0, 0])
    rec += both16(1)                    # volume sequence number
    rec += bytes([len(name)]) + name
    if len(rec) % 2:
        rec += b'\0'
    rec[0] = len(rec)
    return bytes(rec)


def pad(data):
    return data + b'\0' * (-len(data) % BLOCK)


def main():
    img, files = sys.argv[1], sys.argv[2:]
    root_lba = 20
    next_lba = root_lba + 1
    entries = []
    for path in files:
        size = os.path.getsize(path)
        name = os.path.basename(path).upper().encode() + b';1'
        entries.append((name, next_lba, size, path))
        next_lba += max(1, (size + BLOCK - 1) // BLOCK)
    root = dir_record(b'\0', root_lba, BLOCK, True)
    root_dir = root + dir_record(b'\1', root_lba, BLOCK, True)
    for name, lba, size, _ in sorted(entries):
        root_dir += dir_record(name, lba, size, False)
    assert len(root_dir) <= BLOCK

    def path_table(pk):
        return bytes([1, 0]) + struct.pack(pk + 'I', root_lba) + \
            struct.pack(pk + 'H', 1) + b'\0\0'

    date = b'0' * 16 + b'\0'
    pvd = bytearray(BLOCK)
    pvd[0:8] = b'\x01CD001\x01\x00'
    pvd[8:40] = b' ' * 32
    pvd[40:72] = b'KTARGET_CD'.ljust(32)
    pvd[80:88] = both32(next_lba)
    pvd[120:124] = both16(1)
    pvd[124:128] = both16(1)
    pvd[128:132] = both16(BLOCK)
    pvd[132:140] = both32(len(path_table('<')))
    pvd[140:144] = struct.pack('<I', 18)
    pvd[148:152] = struct.pack('>I', 19)
    pvd[156:190] = root
    pvd[190:813] = b' ' * (813 - 190)
    pvd[813:881] = date * 4
    pvd[881] = 1
    term = bytearray(BLOCK)
    term[0:7] = b'\xffCD001\x01'

    with open(img, 'wb') as out:
        out.write(b'\0' * 16 * BLOCK)
        out.write(pvd)
        out.write(term)
        out.write(pad(path_table('<')))
        out.write(pad(path_table('>')))
        out.write(pad(root_dir))
        for _, lba, size, path in entries:
            assert out.tell() == lba * BLOCK
            with open(path, 'rb') as f:
                out.write(pad(f.read()) if size else b'\0' * BLOCK)


main()
