#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A clustered LU offers EXTENDED COPY but no token copy (ODX): a write
through the other node could not revoke this node's ROD tokens.

  rod_nodes.py TARGET LUN ADDR1 ADDR2

Runs on node 1, through node 1's portal: POPULATE TOKEN and RECEIVE ROD
TOKEN INFORMATION are refused as ILLEGAL REQUEST; the Third-party Copy VPD
page (8Fh) keeps its EXTENDED COPY descriptors and has no Block Device ROD
Token Limits (0000h) or ROD types (0108h) descriptor.

Prints its TAP plan and one line per check (tap.py).
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "selftests"))
from iscsi_raw import Session, logout  # noqa: E402
from tap import Checks  # noqa: E402

CHECKS = Checks(3)
check = CHECKS.check
CHECK, ILLEGAL = 0x02, 0x05


def populate(s, lun):
    body = struct.pack(">BxIIxxH", 0, 0, 0, 16) + struct.pack(">QI4x", 0, 8)
    param = struct.pack(">H", len(body)) + body
    cdb = bytes([0x83, 0x10, 0, 0, 0, 0]) + struct.pack(">II", 1, len(param)) + b"\0\0"
    st, sense, _ = s.wait(s.command(lun, cdb, out=param))
    return st, sense


def rrti(s, lun):
    cdb = bytes([0x84, 0x07]) + struct.pack(">I4xI", 1, 1024) + b"\0\0"
    st, sense, _ = s.wait(s.command(lun, cdb, read_len=1024))
    return st, sense


def vpd_tpc_types(s, lun):
    """The descriptor types of VPD page 8Fh, or None"""
    st, _, d = s.wait(s.command(lun, [0x12, 1, 0x8F, 0x10, 0, 0], read_len=4096))
    if st != 0 or len(d) < 4 or d[1] != 0x8F:
        return None
    end = min(len(d), 4 + struct.unpack(">H", d[2:4])[0])
    types, at = [], 4
    while at + 4 <= end:
        t, n = struct.unpack(">HH", d[at:at + 4])
        types.append(t)
        at += 4 + n
    return types


def run(target, lun, addr1, addr2):
    s = Session(addr1)
    s.login(target, target + ":rod-1")
    s.settle(lun)
    st, sense = populate(s, lun)
    check("POPULATE TOKEN on the clustered LU: ILLEGAL REQUEST, no token",
          st == CHECK and sense[0] == ILLEGAL,
          "status %#x sense %x/%02x/%02x" % ((st,) + sense))
    st, sense = rrti(s, lun)
    check("RECEIVE ROD TOKEN INFORMATION on the clustered LU: ILLEGAL REQUEST",
          st == CHECK and sense[0] == ILLEGAL,
          "status %#x sense %x/%02x/%02x" % ((st,) + sense))
    types = vpd_tpc_types(s, lun)
    check("VPD 8Fh: EXTENDED COPY descriptors (0001h), no ROD ones (0000h, 0108h)",
          types is not None and 0x0001 in types and 0x0000 not in types and
          0x0108 not in types, "descriptor types %s" % (types,))
    logout(s)


def main():
    CHECKS.run(run, sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4])


if __name__ == "__main__":
    main()
