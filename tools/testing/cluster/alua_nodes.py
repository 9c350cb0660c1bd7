#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ALUA across two nodes: each node's LUN is a port of a group of its own
(group 1 on node 1, Active/Optimized; group 2 on node 2, Active/Non-
optimized).

  alua_nodes.py TARGET LUN ADDR1 ADDR2

REPORT TARGET PORT GROUPS on node 1 lists both nodes' groups; SET TARGET
PORT GROUPS on node 2 swaps the states; node 1's nexus hears 2A/06 and
its REPORT TARGET PORT GROUPS shows the new states.

Prints its TAP plan and one line per check (tap.py).
"""
import os
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "selftests"))
from iscsi_raw import Session  # noqa: E402
from tap import Checks  # noqa: E402

CHECKS = Checks(4)
check = CHECKS.check
AO, ANO = 0, 1



def rtpg(s, lun):
    """{group id: (state, [relative target port ids])}, or a string."""
    cdb = bytes([0xA3, 0x0A, 0, 0, 0, 0]) + struct.pack(">I", 1024) + \
        b"\0\0"
    st, sense, d = s.wait(s.command(lun, cdb, read_len=1024))
    if st != 0:
        return "status %#x sense %s" % (st, sense)
    end = 4 + struct.unpack(">I", d[:4])[0]
    out, off = {}, 4
    while off + 8 <= min(end, len(d)):
        state, gid, n = d[off] & 0x0F, struct.unpack(">H", d[off + 2:off + 4])[0], d[off + 7]
        ports = [struct.unpack(">H", d[off + 8 + 4 * i + 2:off + 8 + 4 * i + 4])[0]
                 for i in range(n)]
        out[gid] = (state, ports)
        off += 8 + 4 * n
    return out


def stpg(s, lun, states):
    param = b"\0" * 4 + b"".join(struct.pack(">BBH", st, 0, gid)
                                 for gid, st in states)
    cdb = bytes([0xA4, 0x0A, 0, 0, 0, 0]) + struct.pack(">I", len(param)) + \
        b"\0\0"
    return s.wait(s.command(lun, cdb, out=param))[:2]


def main():
    CHECKS.run(run, sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4])


def run(target, lun, addr1, addr2):
    s1 = Session(addr1)
    s1.login(target, target + ":alua-1")
    s2 = Session(addr2)
    s2.login(target, target + ":alua-2")
    # each node publishes its groups a moment after its LUN joined them
    end = time.monotonic() + 20
    while True:
        got = rtpg(s1, lun)
        if isinstance(got, dict) and got.get(1) == (AO, [1]) and \
                got.get(2) == (ANO, [2]):
            break
        if time.monotonic() > end:
            break
        time.sleep(0.5)
    check("REPORT TARGET PORT GROUPS on node 1: group 1 Active/Optimized "
          "(port 1), node 2's group 2 Active/Non-optimized (port 2)",
          isinstance(got, dict) and got.get(1) == (AO, [1]) and
          got.get(2) == (ANO, [2]), "got %s" % (got,))
    st, sense = stpg(s2, lun, [(1, ANO), (2, AO)])
    check("SET TARGET PORT GROUPS on node 2: group 1 non-optimized, "
          "group 2 optimized", st == 0, "status %#x %s" % (st, sense))
    st, sense, _ = s1.tur(lun)
    check("... node 1's nexus hears 2A/06", st == 2 and sense == (6, 0x2A, 6),
          "TEST UNIT READY status %#x %s" % (st, sense))
    got = rtpg(s1, lun)
    check("... REPORT TARGET PORT GROUPS on node 1 shows both new states",
          isinstance(got, dict) and got.get(1, (None,))[0] == ANO and
          got.get(2, (None,))[0] == AO, "got %s" % (got,))


if __name__ == "__main__":
    main()
