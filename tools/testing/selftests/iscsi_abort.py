#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Aborting a running EXTENDED COPY, from bare initiators. The copy moves
131070 blocks from the device SRC_NAA names to the one DST_NAA names (two
segments, sent to LUN 0); run it with small chunks so that it takes a while.

  iscsi_abort.py xcopy HOST:PORT TARGET SRC_NAA DST_NAA
      ABORT TASK for the copy at once: the target must answer FUNCTION
      COMPLETE, send no SCSI Response for the copy, and go on serving the
      session (TEST UNIT READY).
  iscsi_abort.py preempt HOST:PORT TARGET SRC_NAA DST_NAA
      two initiators register keys with LUN 0; the first starts the copy,
      the second sends PERSISTENT RESERVE OUT, PREEMPT AND ABORT with the
      first one's key. The PREEMPT AND ABORT must end GOOD, the copy with
      TASK ABORTED (TAS is on), and the first initiator's next command with
      UNIT ATTENTION, REGISTRATIONS PREEMPTED (2A/05). It CLEARs at the end.
  iscsi_abort.py close HOST:PORT TARGET SRC_NAA DST_NAA [CHUNKS_FILE]
      start the copy, drop the connection once CHUNKS_FILE (the source
      LU's statistics/xcopy/chunks) has moved, and log in again with
      the same initiator name and ISID (session reinstatement): the old
      session's copy must stop (I_T nexus loss aborts its tasks), so that
      the new login does not wait for it; prints the login's time.

Prints one line per finding; exits 0 when the target behaved, 1 if not.
"""
import struct
import sys
import time

from iscsi_raw import Conn, IMMEDIATE, OP_SCSI_RSP, is_ping
from xcopy import cscd, segment

OP_TMF_REQ, OP_TMF_RSP = 0x02, 0x22
ABORT_TASK = 0x01
PR_REGISTER, PR_CLEAR, PR_PREEMPT_AND_ABORT = 0x00, 0x03, 0x05
TASK_ABORTED = 0x40


def xcopy_param(src_naa, dst_naa):
    cscds = cscd(bytes.fromhex(src_naa)) + cscd(bytes.fromhex(dst_naa))
    segs = segment("0:1:65535:0:0") + segment("0:1:65535:65535:65535")
    return struct.pack(">BBHIII", 0, 3 << 3, len(cscds), 0, len(segs), 0) + \
        cscds + segs


def send_xcopy(c, src_naa, dst_naa):
    param = xcopy_param(src_naa, dst_naa)
    cdb = bytes([0x83, 0, 0, 0, 0, 0, 0, 0, 0, 0]) + \
        struct.pack(">I", len(param)) + b"\0\0"
    return c.scsi_out(0, cdb, param)


def pr_out(c, sa, key, sa_key, pr_type=0):
    param = struct.pack(">QQ8x", key, sa_key)
    cdb = bytes([0x5F, sa, pr_type, 0, 0]) + struct.pack(">I", len(param)) + b"\0"
    return c.scsi_out(0, cdb, param)


def abort_task(c, ref_itt, ref_cmdsn):
    c.itt += 1
    bhs = struct.pack(">BBH4x8sIIIIII8x", IMMEDIATE | OP_TMF_REQ,
                      0x80 | ABORT_TASK, 0, b"\0" * 8, c.itt, ref_itt,
                      c.cmdsn, c.exp_statsn, ref_cmdsn, 0)
    c.send(bhs)


def xcopy_abort(addr, target, src_naa, dst_naa):
    c = Conn(addr)
    c.login(target, "iqn.2026-11.org.ktarget:abort")
    itt = send_xcopy(c, src_naa, dst_naa)
    abort_task(c, itt, c.cmdsn - 1)

    tmf = copy_status = None
    try:
        while True:
            op, bhs, _ = c.recv(10 if tmf is None else 3)
            if is_ping(op, bhs):
                c.nop_out_answer(bhs)
            elif op == OP_TMF_RSP:
                tmf = bhs[2]
                c.exp_statsn = struct.unpack(">I", bhs[24:28])[0] + 1
            elif op == OP_SCSI_RSP and struct.unpack(">I", bhs[16:20])[0] == itt:
                copy_status = bhs[3]
                c.exp_statsn = struct.unpack(">I", bhs[24:28])[0] + 1
    except TimeoutError:
        pass
    print("ABORT TASK response: %s" % ("none" if tmf is None else tmf))
    print("SCSI Response of the aborted copy: %s" %
          ("none" if copy_status is None else "status %#x" % copy_status))
    st = c.scsi_no_data(0, [0] * 6)
    print("TEST UNIT READY after the abort: status %#x" % st)
    return 0 if tmf == 0 and copy_status is None and st == 0 else 1


def preempt_abort(addr, target, src_naa, dst_naa):
    victim, preempter = Conn(addr), Conn(addr)
    victim.login(target, "iqn.2026-11.org.ktarget:victim")
    preempter.login(target, "iqn.2026-11.org.ktarget:preempter")
    for c, key in ((victim, 0xB0B), (preempter, 0xA1A)):
        res = c.status_of(pr_out(c, PR_REGISTER, 0, key))
        print("REGISTER key %#x: %s" % (key, res and "status %#x" % res[0]))
        if not res or res[0] != 0:
            return 1

    copy = send_xcopy(victim, src_naa, dst_naa)
    res = preempter.status_of(pr_out(preempter, PR_PREEMPT_AND_ABORT, 0xA1A,
                                     0xB0B, 1), 30)
    print("PREEMPT AND ABORT: %s" % (res and "status %#x" % res[0]))
    fails = not res or res[0] != 0
    res = victim.status_of(copy, 30)
    print("the preempted initiator's copy: %s" % (res and "status %#x" % res[0]))
    fails |= not res or res[0] != TASK_ABORTED
    res = victim.scsi_no_data(0, [0] * 6)
    sense = victim.last_sense
    asc = "%x/%02x/%02x" % (sense[2] & 0x0F, sense[12], sense[13]) \
        if len(sense) >= 14 else "none"
    print("its next command: status %#x sense %s" % (res, asc))
    fails |= res != 0x02 or asc != "6/2a/05"
    # leave no registration behind
    res = preempter.status_of(pr_out(preempter, PR_CLEAR, 0xA1A, 0))
    print("CLEAR: %s" % (res and "status %#x" % res[0]))
    return 1 if fails else 0


def xcopy_close(addr, target, src_naa, dst_naa):
    ini = "iqn.2026-11.org.ktarget:closer"
    c = Conn(addr)
    c.login(target, ini)
    # the copy must be running when the connection drops: the caller
    # names the source LU's chunk counter (statistics/xcopy/chunks)
    counter = sys.argv[6] if len(sys.argv) > 6 else None
    before = int(open(counter).read()) if counter else 0
    send_xcopy(c, src_naa, dst_naa)
    end = time.monotonic() + 30
    while counter and int(open(counter).read()) == before:
        if time.monotonic() > end:
            print("the copy did not start")
            return 1
        time.sleep(0.01)
    c.sock.close()
    start = time.monotonic()
    d = Conn(addr)
    d.login(target, ini)
    print("the reinstating login took %.1f s" % (time.monotonic() - start))
    st = d.scsi_no_data(0, [0] * 6)
    print("TEST UNIT READY in the new session: status %#x" % st)
    return 0 if st == 0 else 1


def main():
    mode, addr, target, src_naa, dst_naa = sys.argv[1:6]
    if mode == "xcopy":
        return xcopy_abort(addr, target, src_naa, dst_naa)
    if mode == "preempt":
        return preempt_abort(addr, target, src_naa, dst_naa)
    if mode == "close":
        return xcopy_close(addr, target, src_naa, dst_naa)
    print("unknown mode " + mode)
    return 2


if __name__ == "__main__":
    sys.exit(main())
