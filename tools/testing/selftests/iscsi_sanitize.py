#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""SANITIZE against task management, and with IMMED, through the bare
initiator of iscsi_raw.py.

  iscsi_sanitize.py tmf HOST:PORT TARGET INITIATOR LUN
      start a SANITIZE OVERWRITE of LUN (a LU that takes seconds to
      overwrite); an EXTENDED COPY to LUN 0 that reads LUN meanwhile gets
      SANITIZE IN PROGRESS; then ABORT TASK it and reset the LU. Both must answer
      FUNCTION COMPLETE and the SANITIZE gets no response, but the
      operation goes on (SBC-4 4.11): TEST UNIT READY reports SANITIZE IN
      PROGRESS before and after, until it ends with GOOD.
  iscsi_sanitize.py immed HOST:PORT TARGET INITIATOR LUN
      SANITIZE OVERWRITE with IMMED: GOOD at once, then SANITIZE IN
      PROGRESS or GOOD until it has ended; the first and the last logical
      block then hold the pattern.

Prints one line per finding; exits 0 when the target behaved, 1 if not.
"""
import struct
import sys
import time

from iscsi_raw import Session
from xcopy import cscd, segment

TMF_ABORT_TASK, TMF_LUN_RESET = 0x01, 0x05
PATTERN = bytes([0xA5, 0x5A, 0xC3, 0x3C])
IN_PROGRESS = (2, 0x04, 0x1B)


def sanitize_cdb(immed, plen):
    return bytes([0x48, 0x01 | (0x80 if immed else 0), 0, 0, 0, 0, 0,
                  plen >> 8, plen & 0xFF, 0])


def sanitize_param():
    return bytes([0x01, 0, 0, len(PATTERN)]) + PATTERN


def fmt(st, sense):
    return "status %#x sense %x/%02x/%02x" % ((st,) + sense)


def until_done(c, lun, limit):
    """TEST UNIT READY until GOOD; True if only SANITIZE IN PROGRESS came."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        st, sense, _ = c.tur(lun)
        if st == 0:
            return True
        if (st, sense) != (2, IN_PROGRESS):
            print("while it ran: " + fmt(st, sense))
            return False
        time.sleep(0.5)
    print("still running after %d s" % limit)
    return False


def naa(c, lun):
    """The NAA designator of @lun's Device Identification VPD page."""
    st, _, page = c.wait(c.command(lun, [0x12, 0x01, 0x83, 0x04, 0x00, 0],
                                   read_len=1024))
    off, end = 4, 4 + struct.unpack(">H", page[2:4])[0] if st == 0 else 0
    while off + 4 <= min(end, len(page)):
        kind, n = page[off + 1], page[off + 3]
        if (kind & 0x30) == 0 and (kind & 0x0F) == 3:
            return page[off + 4:off + 4 + n]
        off += 4 + n
    raise RuntimeError("LUN %d: no NAA designator (status %#x)" % (lun, st))


def xcopy_from(c, lun, src_naa):
    """EXTENDED COPY sent to @lun: one block of the LU @src_naa to @lun."""
    desc = cscd(src_naa)
    seg = segment("0:ffff:1:0:0")
    param = struct.pack(">BBHIII", 0, 3 << 3, len(desc), 0, len(seg), 0) + \
        desc + seg
    cdb = bytes([0x83, 0] + [0] * 8) + struct.pack(">I", len(param)) + b"\0\0"
    return c.wait(c.command(lun, cdb, param))


def tmf(c, lun):
    ok = True
    src_naa = naa(c, lun)
    c.settle(0)		# the copy goes to LUN 0: its POWER ON first
    param = sanitize_param()
    itt = c.command(lun, sanitize_cdb(False, len(param)), param)
    cmdsn = c.cmdsn - 1
    time.sleep(0.3)
    st, sense, _ = c.tur(lun)
    print("TEST UNIT READY while it runs: " + fmt(st, sense))
    ok &= (st, sense) == (2, IN_PROGRESS)
    # the copy's own READ of the LU faces the SANITIZE as the nexus's would
    st, sense, _ = xcopy_from(c, 0, src_naa)
    print("EXTENDED COPY to LUN 0 from the sanitizing LU: " + fmt(st, sense))
    ok &= (st, sense) == (2, IN_PROGRESS)

    r = c.wait(c.tmf(TMF_ABORT_TASK, lun, itt, cmdsn))
    print("ABORT TASK of the SANITIZE: response %d" % r)
    ok &= r == 0
    st, sense, _ = c.tur(lun)
    print("after the abort: " + fmt(st, sense))
    ok &= (st, sense) == (2, IN_PROGRESS)

    r = c.wait(c.tmf(TMF_LUN_RESET, lun))
    print("LOGICAL UNIT RESET: response %d" % r)
    ok &= r == 0
    st, sense, _ = c.tur(lun)
    print("after the reset, first: " + fmt(st, sense))
    ok &= (st, sense[0]) == (2, 6)
    st, sense, _ = c.tur(lun)
    print("after the reset, then: " + fmt(st, sense))
    ok &= (st, sense) == (2, IN_PROGRESS)

    t0 = time.monotonic()
    done = until_done(c, lun, 600)
    print("the sanitize %s after %.0f s more" %
          ("ended, TEST UNIT READY GOOD" if done else "did not end well",
           time.monotonic() - t0))
    ok &= done
    rsp = c.rsp.get(itt)
    print("SCSI Response of the aborted SANITIZE: %s" %
          ("none" if rsp is None else fmt(rsp[0], rsp[1])))
    return ok and rsp is None


def immed(c, lun):
    last, bs = c.read_capacity(lun)
    param = sanitize_param()
    t0 = time.monotonic()
    st, sense, _ = c.wait(c.command(lun, sanitize_cdb(True, len(param)),
                                    param))
    print("SANITIZE with IMMED: %s after %.1f s" %
          (fmt(st, sense), time.monotonic() - t0))
    ok = st == 0 and until_done(c, lun, 600)
    print("the sanitize ended: %s" % ok)
    want = PATTERN * (bs // len(PATTERN))
    for lba in (0, last):
        st, _, d = c.read_block(lun, lba, bs)
        good = st == 0 and d == want
        print("LBA %d %s the pattern" % (lba, "holds" if good else "does NOT hold"))
        ok &= good
    return ok


def main():
    mode, addr, target, initiator, lun = sys.argv[1:6]
    lun = int(lun)
    c = Session(addr)
    c.login(target, initiator, settle=False)
    c.settle(lun)
    if mode == "tmf":
        return 0 if tmf(c, lun) else 1
    if mode == "immed":
        return 0 if immed(c, lun) else 1
    print("unknown mode " + mode)
    return 2


if __name__ == "__main__":
    sys.exit(main())
