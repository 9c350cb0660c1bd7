#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""SANITIZE against task management, and with IMMED, through the bare
initiator of iscsi_raw.py.

  iscsi_sanitize.py tmf HOST:PORT TARGET INITIATOR LUN
      start a SANITIZE OVERWRITE of LUN (a LU that takes seconds to
      overwrite), then ABORT TASK it and reset the LU. Both must answer
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


def tmf(c, lun):
    ok = True
    param = sanitize_param()
    itt = c.command(lun, sanitize_cdb(False, len(param)), param)
    cmdsn = c.cmdsn - 1
    time.sleep(0.3)
    st, sense, _ = c.tur(lun)
    print("TEST UNIT READY while it runs: " + fmt(st, sense))
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
