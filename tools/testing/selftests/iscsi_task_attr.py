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
6. A third session (ImmediateData=Yes) sends an ORDERED WRITE(10) whose
   immediate data has not all come: the command is not yet received, so
   another session's SIMPLE TEST UNIT READY does not wait for it; once the
   rest of the PDU is in, the WRITE ends GOOD.

Prints one line per finding; exits 0 when the target behaved, 1 if not.
"""
import struct
import sys

from iscsi_raw import OP_SCSI_CMD, Session

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


def partial_write(s, lun, lba, data, sent):
    """An ORDERED WRITE(10) of @data as immediate data, only its first
    @sent bytes sent; its ITT and the bytes still to send."""
    s.itt += 1
    bhs = bytearray(struct.pack(">BBH4x8sIIII", OP_SCSI_CMD,
                                0x80 | ORDERED | 0x20, 0,
                                bytes([0, lun]) + b"\0" * 6, s.itt,
                                len(data), s.cmdsn, s.exp_statsn))
    bhs[5:8] = len(data).to_bytes(3, "big")
    s.cmdsn += 1
    s.sock.sendall(bytes(bhs) + bytes(write_cdb(lba)).ljust(16, b"\0") +
                   data[:sent])
    return s.itt, data[sent:]


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

    # 6: a command whose PDU has not all come is not in the task set yet
    third = Session(addr)
    third.login(target, initiator + ".third")
    third.settle(lun)
    w, rest = partial_write(third, lun, LBA + 2, pattern, BLOCK // 2)
    third.pump_for(1)
    t = other.command(lun, TUR)
    other.pump_for(3)
    expect("SIMPLE TEST UNIT READY beside an ORDERED WRITE still arriving",
           answered(other, t), "status 0x0")
    third.sock.sendall(rest)
    try:
        res = third.wait(w, 10)[0]
    except TimeoutError:
        res = "none"
    expect("the ORDERED WRITE once its PDU is in", res, 0)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
