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

from iscsi_raw import Conn, IMMEDIATE, OP_SCSI_CMD, OP_SCSI_RSP, \
    OP_TMF_REQ, OP_TMF_RSP, is_ping

OP_DATA_IN = 0x25
TMF_ABORT_TASK, TMF_LUN_RESET = 0x01, 0x05
PATTERN = bytes([0xA5, 0x5A, 0xC3, 0x3C])
IN_PROGRESS = (2, 0x04, 0x1B)


class Session(Conn):
    """Commands in flight at once, their answers kept by ITT."""

    def __init__(self, addr):
        super().__init__(addr)
        self.rsp = {}		# ITT -> (status, (key, ASC, ASCQ), data)
        self.tmf_rsp = {}	# ITT -> response
        self.data = {}

    def command(self, lun, cdb, out=b"", read_len=0):
        self.itt += 1
        flags = 0x80 | 0x01 | (0x40 if read_len else 0) | (0x20 if out else 0)
        bhs = struct.pack(">BBH4xBB6sIIII", OP_SCSI_CMD, flags, 0, 0, lun,
                          b"\0" * 6, self.itt, read_len or len(out),
                          self.cmdsn, self.exp_statsn)
        self.cmdsn += 1
        self.send(bhs + bytes(cdb).ljust(16, b"\0"), out)
        return self.itt

    def tmf(self, function, lun, ref_itt=0xFFFFFFFF, ref_cmdsn=0):
        self.itt += 1
        bhs = struct.pack(">BBH4xBB6sIIIIII8x", IMMEDIATE | OP_TMF_REQ,
                          0x80 | function, 0, 0, lun, b"\0" * 6, self.itt,
                          ref_itt, self.cmdsn, self.exp_statsn, ref_cmdsn, 0)
        self.send(bhs)
        return self.itt

    def pump(self, timeout):
        op, bhs, data = self.recv(timeout)
        itt = struct.unpack(">I", bhs[16:20])[0]
        if is_ping(op, bhs):
            self.nop_out_answer(bhs)
        elif op == OP_DATA_IN:
            self.data[itt] = self.data.get(itt, b"") + data
            if bhs[1] & 0x01:
                self.exp_statsn = struct.unpack(">I", bhs[24:28])[0] + 1
                self.rsp[itt] = (bhs[3], (0, 0, 0), self.data.pop(itt))
        elif op == OP_SCSI_RSP:
            self.exp_statsn = struct.unpack(">I", bhs[24:28])[0] + 1
            s = data[2:]
            sense = (s[2] & 0x0F, s[12], s[13]) if len(s) >= 14 else (0, 0, 0)
            self.rsp[itt] = (bhs[3], sense, self.data.pop(itt, b""))
        elif op == OP_TMF_RSP:
            self.exp_statsn = struct.unpack(">I", bhs[24:28])[0] + 1
            self.tmf_rsp[itt] = bhs[2]

    def wait(self, itt, timeout=30):
        """The answer to @itt: (status, sense, data) or a TMF response."""
        end = time.monotonic() + timeout
        while itt not in self.rsp and itt not in self.tmf_rsp:
            self.pump(max(0.1, end - time.monotonic()))
        return self.rsp.pop(itt) if itt in self.rsp else self.tmf_rsp.pop(itt)

    def tur(self, lun):
        return self.wait(self.command(lun, [0] * 6))

    def read_capacity(self, lun):
        st, _, d = self.wait(self.command(lun, [0x9E, 0x10] + [0] * 8 +
                                          [0, 0, 0, 32, 0, 0], read_len=32))
        if st != 0:
            raise RuntimeError("READ CAPACITY (16): status %#x" % st)
        return struct.unpack(">QI", d[:12])

    def read_block(self, lun, lba, bs):
        cdb = bytes([0x88, 0]) + struct.pack(">QI", lba, 1) + b"\0\0"
        return self.wait(self.command(lun, cdb, read_len=bs))


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
