#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What the target does when its backstore is slow or fails, with the bare
initiator of iscsi_raw.py.

  iscsi_faults.py not-inline HOST:PORT TARGET INITIATOR LUN KIND
      LUN's backstore takes seconds per write. Send KIND to LUN, then a
      TEST UNIT READY to LUN 0 on the same connection: the TEST UNIT READY
      must be answered first, since a slow flush or zeroing belongs to the
      backstore, not to the connection's receive work. KIND: sync
      (a WRITE, then SYNCHRONIZE CACHE), write-same (WRITE SAME (16),
      NDOB: zeroes), unmap (UNMAP of 8 blocks).
  iscsi_faults.py sense HOST:PORT TARGET INITIATOR LUN OP LBA BLOCKS WANT
      READ (16), WRITE (16) or WRITE SAME (16) of zeroes (NDOB) (OP: read,
      write, write-same) of BLOCKS blocks at LBA;
      WANT is the answer expected, KEY/ASC/ASCQ in hex ("3/11/00"),
      optionally "@N": the sense's INFORMATION must hold LBA N.
  iscsi_faults.py stale-write HOST:PORT TARGET INITIATOR LUN
      LUN's backstore takes seconds per write. WRITE A to block 8, close
      the connection half a second later (A still in the backstore), log
      in again with the same initiator name and ISID, WRITE B to block 8,
      then read it at once and again after A's delay has passed: both
      reads must return B. A WRITE of the old session that lands after
      the new session's WRITE is lost data (RFC 7143 6.3.5, SAM-5 5.6).

  iscsi_faults.py tmf-slow HOST:PORT TARGET INITIATOR LUN TMF
      LUN's backstore takes seconds per write. WRITE a block, then TMF
      (abort-task: ABORT TASK for it; lun-reset: LOGICAL UNIT RESET) while
      it is in the backstore. The WRITE must not be answered after the
      TMF's FUNCTION COMPLETE, nor twice; once the TMF is answered the
      block must not change any more (read at once and after the delay).
  iscsi_faults.py soft-threshold HOST:PORT TARGET INITIATOR LUN PATH
      LUN is a thin provisioned fileio file on the filesystem of PATH.
      Sessions A and B log in; A sets the soft threshold of the Logical
      Block Provisioning mode page (1Ch/02h) two threshold sets below what
      the filesystem has free, and writes new blocks, 8 KiB at a time: a
      write must get THIN PROVISIONING SOFT THRESHOLD REACHED (6/38/07)
      after about two sets, B's next command too (SITUA 0), and once only.
      Then UNMAP and write again: free space back to the count and used
      again repeats nothing; back over the count by a set, it re-arms.

Prints one line per finding; exits 0 when the target behaved, 1 if not.
"""
import os
import struct
import sys
import time

from iscsi_raw import Session

TUR = [0] * 6


def cdb16(op, lba, blocks, byte1=0):
    return bytes([op, byte1]) + struct.pack(">QI", lba, blocks) + b"\0\0"


def slow_command(s, lun, kind, bs):
    """Send @kind to @lun; its ITT."""
    if kind == "sync":
        st = s.wait(s.command(lun, cdb16(0x8A, 0, 1), b"\xa5" * bs))[0]
        if st != 0:
            raise RuntimeError("WRITE before the flush: status %#x" % st)
        return s.command(lun, [0x35] + [0] * 9)
    if kind == "write-same":
        return s.command(lun, cdb16(0x93, 0, 8, 0x01))
    if kind == "unmap":
        param = struct.pack(">HH4xQI4x", 22, 16, 0, 8)
        return s.command(lun, [0x42] + [0] * 6 + [0, len(param), 0], param)
    raise ValueError(kind)


def not_inline(addr, target, initiator, lun, kind):
    s = Session(addr)
    s.login(target, initiator)
    s.settle(lun)
    bs = s.read_capacity(lun)[1]
    slow = slow_command(s, lun, kind, bs)
    t0 = time.monotonic()
    tur = s.command(0, TUR)
    done = {}
    while len(done) < 2:
        s.pump(60)
        for itt in (slow, tur):
            if itt in s.rsp and itt not in done:
                done[itt] = (s.rsp[itt][0], time.monotonic() - t0)
    print("%s to LUN %d: status %#x after %.1f s; TEST UNIT READY to LUN 0: "
          "status %#x after %.1f s" % ((kind, lun) + done[slow] + done[tur]))
    if done[slow][1] < 1:
        print("the %s was not slow: the device shows nothing" % kind)
        return 1
    if s.order.index(tur) > s.order.index(slow):
        print("the TEST UNIT READY waited for the %s" % kind)
        return 1
    return 0 if done[slow][0] == 0 and done[tur][0] == 0 else 1


def sense(addr, target, initiator, lun, op, lba, blocks, want):
    s = Session(addr)
    s.login(target, initiator)
    s.settle(lun)
    bs = s.read_capacity(lun)[1]
    if op == "read":
        itt = s.command(lun, cdb16(0x88, lba, blocks), read_len=blocks * bs)
    elif op == "write-same":
        itt = s.command(lun, cdb16(0x93, lba, blocks, 0x01))
    else:
        itt = s.command(lun, cdb16(0x8A, lba, blocks), b"\x3c" * (blocks * bs))
    st = s.wait(itt, 60)[0]
    raw = s.last_sense_data
    got = "%x/%02x/%02x" % ((raw[2] & 0xF, raw[12], raw[13]) if len(raw) >= 14
                            else (0, 0, 0))
    if len(raw) >= 7 and raw[0] & 0x80:
        got += "@%d" % struct.unpack(">I", raw[3:7])[0]
    print("%s (16) of %d blocks at %d: status %#x, sense %s (want %s)" %
          (op.upper(), blocks, lba, st, got, want))
    want_key = want.split("@")[0]
    if want_key == "0/00/00":
        return 0 if st == 0 else 1
    if st != 2:
        return 1
    return 0 if (got == want if "@" in want else
                 got.split("@")[0] == want_key) else 1


def stale_write(addr, target, initiator, lun):
    s = Session(addr)
    s.login(target, initiator)
    s.settle(lun)
    bs = s.read_capacity(lun)[1]
    a, b = b"A" * bs, b"B" * bs
    s.command(lun, cdb16(0x8A, 8, 1), a)
    time.sleep(0.5)
    s.sock.close()
    t0 = time.monotonic()
    n = Session(addr)
    n.login(target, initiator)
    n.settle(lun)
    print("new session logged in %.1f s after the close" %
          (time.monotonic() - t0))
    st = n.wait(n.command(lun, cdb16(0x8A, 8, 1), b), 60)[0]
    ok = st == 0
    for when in ("at once", "after the old WRITE's delay"):
        if when != "at once":
            time.sleep(6)
        st, _, data = n.read_block(lun, 8, bs)
        what = {a: "A (the old session's)", b: "B"}.get(data, "neither")
        print("read %s: status %#x, block holds %s" % (when, st, what))
        ok &= st == 0 and data == b
    return 0 if ok else 1


TMF_CODES = {"abort-task": 0x01, "lun-reset": 0x05}


def tmf_slow(addr, target, initiator, lun, which):
    s = Session(addr)
    s.login(target, initiator)
    s.settle(lun)
    bs = s.read_capacity(lun)[1]
    before = s.read_block(lun, 16, bs)[2]
    data = bytes([before[0] ^ 0xFF]) * bs
    write = s.command(lun, cdb16(0x8A, 16, 1), data)
    time.sleep(0.3)
    t0 = time.monotonic()
    tmf = s.tmf(TMF_CODES[which], lun, write if which == "abort-task"
                else 0xFFFFFFFF, s.cmdsn - 1)
    while tmf not in s.tmf_rsp:
        s.pump(60)
    rsp = s.tmf_rsp.pop(tmf)
    took = time.monotonic() - t0
    answered_before = s.order.count(write)
    # a LUN reset leaves a unit attention for this nexus too
    for _ in range(4):
        if s.wait(s.command(lun, TUR))[1][0] != 6:
            break
    first = s.read_block(lun, 16, bs)[2]
    time.sleep(6)
    later = s.read_block(lun, 16, bs)[2]
    s.pump_for(0.5)
    write_rsp = s.rsp.pop(write, None)
    late = s.order.count(write) - answered_before
    name = {before: "old data", data: "the WRITE's data"}
    print("%s: response %d after %.1f s; the WRITE's answer: %s; block %s "
          "then %s" % (which, rsp, took,
                       "status %#x" % write_rsp[0] if write_rsp else "none",
                       name.get(first, "other"), name.get(later, "other")))
    ok = rsp == 0 and first == later and first in name
    if late or s.order.count(write) > 1:
        print("the WRITE was answered after the TMF, or twice")
        ok = False
    return 0 if ok else 1


def soft_threshold(addr, target, initiator, lun, path):
    a, b = Session(addr), Session(addr)
    a.login(target, initiator)
    b.login(target, initiator + ":b")
    a.settle(lun)
    b.settle(lun)
    bs = a.read_capacity(lun)[1]
    st, _, vpd = a.wait(a.command(lun, [0x12, 0x01, 0xB2, 0, 64, 0],
                                  read_len=64))
    exp = vpd[4] if st == 0 and len(vpd) > 4 else 0
    msense = [0x5A, 0x08, 0x1C, 0x02, 0, 0, 0, 0, 64, 0]
    st, sn, page = a.wait(a.command(lun, msense, read_len=64))
    print("THRESHOLD EXPONENT %d; MODE SENSE 1Ch/02h: status %#x, %d bytes"
          % (exp, st, len(page)))
    if not exp or st != 0 or len(page) < 32 or page[8] != 0x5C:
        print("no soft threshold offered")
        return 1
    set_bytes = bs << exp
    fs = os.statvfs(path)
    free_sets = fs.f_bavail * fs.f_frsize // set_bytes
    count = free_sets - 2
    lst = bytearray(8) + bytearray(page[8:32])
    lst[8 + 4] = 0x00				# SITUA 0: every nexus
    lst[8 + 16] |= 0x80				# ENABLED
    struct.pack_into(">I", lst, 8 + 20, count)
    st = a.wait(a.command(lun, [0x55, 0x10, 0, 0, 0, 0, 0, 0, len(lst), 0],
                          bytes(lst)))[0]
    print("free: %d sets of %d KiB; MODE SELECT, count %d: status %#x"
          % (free_sets, set_bytes >> 10, count, st))
    if st != 0:
        return 1
    st, sn, _ = b.tur(lun)
    print("B after the MODE SELECT: status %#x sense %x/%02x/%02x" % ((st,) + sn))
    if (st, sn) != (2, (6, 0x2A, 0x01)):
        return 1
    chunk, lba, written, got = 8192, 0, 0, None
    while written < 6 * set_bytes:
        st, sn, _ = a.wait(a.command(lun, cdb16(0x8A, lba, chunk // bs),
                                     b"\x5a" * chunk))
        if st != 0:
            got = (st,) + sn
            break
        lba += chunk // bs
        written += chunk
    print("A wrote %d KiB of new blocks, then: %s" % (
        written >> 10, "status %#x sense %x/%02x/%02x" % got if got else "none"))
    if got != (2, 6, 0x38, 0x07):
        return 1
    if not set_bytes <= written <= 4 * set_bytes:
        print("the threshold was reached at the wrong point")
        return 1
    st, sn, _ = b.tur(lun)
    print("B: status %#x sense %x/%02x/%02x" % ((st,) + sn))
    if (st, sn) != (2, (6, 0x38, 0x07)):
        return 1
    st2 = b.tur(lun)[0]
    st3 = a.wait(a.command(lun, cdb16(0x8A, lba, chunk // bs),
                           b"\x5a" * chunk))[0]
    print("then B: status %#x, A's next write: status %#x (once only)"
          % (st2, st3))
    if st2 != 0 or st3 != 0:
        return 1
    lba += chunk // bs
    return soft_threshold_rearm(a, lun, bs, chunk, set_bytes, count, path,
                                lba)


def unmap(s, lun, lba, blocks):
    param = struct.pack(">HH4x", 22, 16) + struct.pack(">QI4x", lba, blocks)
    return s.wait(s.command(lun, [0x42] + [0] * 6 + [0, len(param), 0],
                            param))[0]


def rewrite(s, lun, bs, chunk, nbytes):
    """Write blocks 0 .. @nbytes again; the first sense met, or None."""
    for lba in range(0, nbytes // bs, chunk // bs):
        st, sn, _ = s.wait(s.command(lun, cdb16(0x8A, lba, chunk // bs),
                                     b"\xa5" * chunk))
        if st != 0:
            return (st,) + sn
    return None


def soft_threshold_rearm(a, lun, bs, chunk, set_bytes, count, path, end):
    """
    After the threshold was reached: free space that comes back only to
    the count and is used again must not repeat the unit attention (the
    threshold re-arms one set above it); free space back above that must
    re-arm it, and using it again reaches it once more.
    """
    limit = count * set_bytes
    fs = os.statvfs(path)
    avail = fs.f_bavail * fs.f_frsize
    back = -(-(limit - avail + set_bytes // 2) // chunk) * chunk
    if not 0 < back < end * bs:
        print("cannot free %d bytes of %d written" % (back, end * bs))
        return 1
    st = unmap(a, lun, 0, back // bs)
    fs = os.statvfs(path)
    print("UNMAP of %d KiB: status %#x, %d KiB free, the threshold at %d KiB"
          % (back >> 10, st, fs.f_bavail * fs.f_frsize >> 10, limit >> 10))
    got = rewrite(a, lun, bs, chunk, back)
    print("written again: %s" % ("status %#x sense %x/%02x/%02x" % got
                                 if got else "no unit attention"))
    if st != 0 or got:
        return 1
    back = 2 * set_bytes
    if back > end * bs:
        print("cannot free %d bytes of %d written" % (back, end * bs))
        return 1
    st = unmap(a, lun, 0, back // bs)
    fs = os.statvfs(path)
    print("UNMAP of %d KiB: status %#x, %d KiB free"
          % (back >> 10, st, fs.f_bavail * fs.f_frsize >> 10))
    got = rewrite(a, lun, bs, chunk, back)
    # the crossing is near the end of those: new blocks past the written
    # ones give it a set of slack
    lba = end
    while not got and lba < end + set_bytes // bs:
        st2, sn, _ = a.wait(a.command(lun, cdb16(0x8A, lba, chunk // bs),
                                      b"\xa5" * chunk))
        got = (st2,) + sn if st2 != 0 else None
        lba += chunk // bs
    print("written again, and %d KiB of new blocks: %s"
          % ((lba - end) * bs >> 10, "status %#x sense %x/%02x/%02x" % got
             if got else "no unit attention"))
    if st != 0 or got != (2, 6, 0x38, 0x07):
        return 1
    st = a.wait(a.command(lun, cdb16(0x8A, lba, chunk // bs),
                          b"\xa5" * chunk))[0]
    print("then A's next write: status %#x (once only)" % st)
    return 0 if st == 0 else 1


def main():
    mode, addr, target, initiator, lun = sys.argv[1:6]
    lun = int(lun)
    if mode == "not-inline":
        return not_inline(addr, target, initiator, lun, sys.argv[6])
    if mode == "sense":
        op, lba, blocks, want = sys.argv[6:10]
        return sense(addr, target, initiator, lun, op, int(lba), int(blocks),
                     want)
    if mode == "tmf-slow":
        return tmf_slow(addr, target, initiator, lun, sys.argv[6])
    if mode == "soft-threshold":
        return soft_threshold(addr, target, initiator, lun, sys.argv[6])
    if mode == "stale-write":
        return stale_write(addr, target, initiator, lun)
    print("unknown mode " + mode)
    return 2


if __name__ == "__main__":
    sys.exit(main())
