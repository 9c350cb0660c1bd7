#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Task attributes (SAM-5 8.6) in the LU's task set, from bare initiators
that negotiate ImmediateData=No: a WRITE waits for its Data-Out until the
test sends it, and so stays in the task set as long as the test likes.

  iscsi_task_attr.py HOST:PORT TARGET INITIATOR LUN

1. WRITE(10) of one block, its data held back; a SIMPLE TEST UNIT READY
   sent after it completes at once.
2. An ORDERED TEST UNIT READY waits for the WRITE; a SIMPLE one after it
   waits for the ORDERED one; a HEAD OF QUEUE one completes at once.
   An ORDERED one from a second session (another I_T nexus, same LU)
   waits too.
3. The WRITE's data goes: the answers come WRITE, ORDERED, SIMPLE.
4. Another held WRITE, then ORDERED and SIMPLE behind it: ABORT TASK of
   each is answered FUNCTION COMPLETE at once and neither gets an answer;
   a SIMPLE command after them no longer waits; the WRITE ends GOOD.
5. READ(10) returns the block the first WRITE wrote.

Prints one line per finding; exits 0 when the target behaved, 1 if not.
"""
import struct
import sys

from iscsi_raw import Session

SIMPLE, ORDERED, HEAD_OF_QUEUE = 1, 2, 3
ABORT_TASK = 1
BLOCK = 512
LBA = 100
TUR = [0] * 6
KEYS = ("ImmediateData=No", "InitialR2T=Yes")


def write_cdb(lba):
    return [0x2A, 0] + list(lba.to_bytes(4, "big")) + [0, 0, 1, 0]


def held_write(s, lun, lba):
    """A WRITE(10) of one block whose R2T has come; its ITT."""
    itt = s.command(lun, write_cdb(lba), write_len=BLOCK)
    while itt not in s.r2t:
        s.pump(10)
    return itt


def answered(s, itt):
    return "status %#x" % s.rsp[itt][0] if itt in s.rsp else "waits"


def main():
    addr, target, initiator, lun = sys.argv[1:5]
    lun = int(lun)
    s = Session(addr)
    s.login(target, initiator, extra=KEYS)
    other = Session(addr)
    other.login(target, initiator + ".other", extra=KEYS)
    s.settle(lun)
    other.settle(lun)
    ok = True

    def expect(what, got, want):
        nonlocal ok
        print("%s: %s" % (what, got))
        ok &= got == want

    # 1: a SIMPLE command does not wait for the held WRITE
    w = held_write(s, lun, LBA)
    t = s.command(lun, TUR)
    s.pump_for(3)
    expect("SIMPLE TEST UNIT READY beside the held WRITE", answered(s, t),
           "status 0x0")

    # 2: ORDERED waits, SIMPLE after it waits, HEAD OF QUEUE does not
    o = s.command(lun, TUR, attr=ORDERED)
    after = s.command(lun, TUR)
    h = s.command(lun, TUR, attr=HEAD_OF_QUEUE)
    o2 = other.command(lun, TUR, attr=ORDERED)
    s.pump_for(3)
    other.pump_for(0.5)
    expect("ORDERED TEST UNIT READY behind the held WRITE", answered(s, o),
           "waits")
    expect("SIMPLE TEST UNIT READY behind the ORDERED one",
           answered(s, after), "waits")
    expect("HEAD OF QUEUE TEST UNIT READY", answered(s, h), "status 0x0")
    expect("ORDERED TEST UNIT READY from another session",
           answered(other, o2), "waits")

    # 3: the WRITE's data releases them, in order
    pattern = bytes(range(256)) * (BLOCK // 256)
    del s.order[:]
    s.data_out(lun, w, pattern)
    status = [s.wait(itt, 10)[0] for itt in (w, o, after)]
    names = {w: "WRITE", o: "ORDERED", after: "SIMPLE"}
    expect("answers after the data", " ".join(names[i] for i in s.order),
           "WRITE ORDERED SIMPLE")
    expect("their status", status, [0, 0, 0])
    expect("the other session's ORDERED one", other.wait(o2, 10)[0], 0)

    # 4: held commands can be aborted
    w = held_write(s, lun, LBA + 1)
    o = s.command(lun, TUR, attr=ORDERED)
    after = s.command(lun, TUR)
    cmdsn = {after: s.cmdsn - 1, o: s.cmdsn - 2}
    s.pump_for(1)
    for itt, name in ((after, "SIMPLE"), (o, "ORDERED")):
        tmf = s.tmf(ABORT_TASK, lun, itt, cmdsn[itt])
        try:
            res = s.wait(tmf, 5)
        except TimeoutError:
            res = "none"
        expect("ABORT TASK of the held %s command" % name, res, 0)
    t = s.command(lun, TUR)
    s.pump_for(3)
    expect("SIMPLE TEST UNIT READY once they are aborted", answered(s, t),
           "status 0x0")
    s.data_out(lun, w, bytes(BLOCK))
    expect("the second WRITE", s.wait(w, 10)[0], 0)
    s.pump_for(2)
    expect("answers for the aborted commands",
           [i for i in (o, after) if i in s.rsp], [])

    # 5: what the first WRITE wrote is there
    cdb = bytes([0x28, 0]) + struct.pack(">IBH", LBA, 0, 1) + b"\0"
    st, _, data = s.wait(s.command(lun, cdb, read_len=BLOCK))
    expect("READ(10) of the first WRITE's block",
           "status %#x, %s" % (st, "the pattern" if data == pattern
                               else "other data"),
           "status 0x0, the pattern")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
