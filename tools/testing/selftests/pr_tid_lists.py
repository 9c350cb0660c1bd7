#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# pr_tid_lists.py DIR: PERSISTENT RESERVE OUT parameter lists with
# TransportIDs, good and bad, for tests/56-lio-small.sh to send with sg_raw.
# Writes DIR/NAME.bin for each list and prints one line per list:
#   NAME SA LENGTH WANT
# SA the service action (0 REGISTER with SPEC_I_PT, 7 REGISTER AND MOVE),
# LENGTH the PARAMETER LIST LENGTH, WANT "good", "plle" (ILLEGAL REQUEST,
# PARAMETER LIST LENGTH ERROR 1A/00) or "field" (INVALID FIELD IN
# PARAMETER LIST 26/00), after SPC-4 6.16.3, 6.16.4 and 7.6.4.6.
import os
import struct
import sys

KEY = 0xabc
NAME = b'iqn.2026-12.org.example:kt-spec'


def tid(name, fmt=0, addl=None, nul=True, pad=None):
    """An iSCSI TransportID: NAME (NUL-ended unless not nul), padded to
    ADDITIONAL LENGTH addl (default: the least multiple of 4, at least 20);
    pad bytes of the list cut it short or pad it further."""
    body = name + (b'\0' if nul else b'')
    if addl is None:
        addl = max(20, (len(body) + 3) & ~3)
    body = body.ljust(addl, b'\0')[:max(addl, len(body))]
    t = bytes([0x40 * fmt | 0x05, 0]) + struct.pack('>H', addl) + body
    if pad is not None:
        t = t[:pad] if pad < len(t) else t.ljust(pad, b'\0')
    return t


def spec_i_pt(tids, tpdl=None):
    """REGISTER (key 0 to KEY) with SPEC_I_PT and the TransportIDs tids"""
    data = b''.join(tids)
    if tpdl is None:
        tpdl = len(data)
    return (struct.pack('>QQ', 0, KEY) + b'\0' * 4 + bytes([0x08, 0, 0, 0]) +
            struct.pack('>I', tpdl) + data)


def move(t, tpdl=None, extra=0):
    """REGISTER AND MOVE (KEY to KEY + 1) to RELATIVE TARGET PORT 1"""
    if tpdl is None:
        tpdl = len(t)
    return (struct.pack('>QQ', KEY, KEY + 1) + bytes([0, 0]) +
            struct.pack('>H', 1) + struct.pack('>I', tpdl) + t +
            b'\0' * extra)


LONG = b'iqn.2026-12.org.example:' + b'x' * 206       # 230 bytes
NAME224 = b'iqn.2026-12.org.example:' + b'y' * 199    # 223 + NUL

LISTS = [
    # SPEC_I_PT: refused before anything registers, the issuer included
    ('spec_truncated_tid', 0, spec_i_pt([tid(NAME)[:16]]), 'plle'),
    ('spec_addl_past_list', 0, spec_i_pt([tid(NAME, addl=40, pad=36)]), 'plle'),
    ('spec_name_without_nul', 0,
     spec_i_pt([tid(b'iqn.2026-12.org.exam', addl=20, nul=False)]), 'field'),
    ('spec_name_over_224', 0, spec_i_pt([tid(LONG)]), 'field'),
    ('spec_addl_not_x4', 0, spec_i_pt([tid(NAME, addl=34, pad=38)]), 'field'),
    ('spec_addl_under_20', 0, spec_i_pt([tid(b'iqn.a', addl=16)]), 'field'),
    ('spec_tpdl_short', 0, spec_i_pt([tid(NAME)], tpdl=len(tid(NAME)) - 4),
     'plle'),
    ('spec_tpdl_long', 0, spec_i_pt([tid(NAME)], tpdl=len(tid(NAME)) + 4),
     'plle'),
    ('spec_stray_bytes_after_tid', 0,
     spec_i_pt([tid(NAME), b'\x05\0']), 'plle'),
    ('spec_isid_without_isid', 0,
     spec_i_pt([tid(NAME + b',i,0x', fmt=1)]), 'field'),
    # a short name padded past the 224 bytes an iSCSI NAME field may have
    ('spec_addl_over_224', 0, spec_i_pt([tid(NAME, addl=228)]), 'field'),
    # a name of 223 bytes and its NUL, the most, padded with ISID to 244
    ('spec_name_224_isid', 0,
     spec_i_pt([tid(NAME224 + b',i,0x23d000000001', fmt=1)]), 'good'),
    # REGISTER AND MOVE, the issuer holding a Write Exclusive reservation
    ('move_tpdl_past_list', 7, move(tid(NAME), tpdl=len(tid(NAME)) + 4),
     'plle'),
    ('move_list_past_tpdl', 7, move(tid(NAME), extra=4), 'plle'),
    ('move_truncated_tid', 7, move(tid(NAME)[:16]), 'field'),
    ('move_name_without_nul', 7,
     move(tid(b'iqn.2026-12.org.exam', addl=20, nul=False)), 'field'),
    ('move_addl_over_224', 7, move(tid(NAME, addl=228)), 'field'),
    ('move_tid_shorter_than_tpdl', 7,
     move(tid(NAME) + b'\0' * 4), 'field'),
    ('move_good', 7, move(tid(NAME)), 'good'),
]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, sa, data, want in LISTS:
        with open(os.path.join(out, name + '.bin'), 'wb') as f:
            f.write(data)
        print(name, sa, len(data), want)


if __name__ == '__main__':
    main()
