#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The power-cut workload and its check.

  powercut_io.py write DEV LUN EPOCH WCE LOG READY
      Write numbered 512-byte records to random blocks of DEV (the Linux
      initiator's disk of LUN), one at a time, as WRITE (10) through SG_IO
      (a write(2) with O_DSYNC would add a SYNCHRONIZE CACHE of its own),
      until killed. LOG (on the host) gets "W epoch seq lba kind" before
      each write and "A epoch seq" once it is acknowledged. With WCE=1 (the
      LU reports a volatile write cache) every third write is FUA (kind F)
      and every 64th is followed by a SYNCHRONIZE CACHE (10), logged
      "S epoch seq" when it completed. READY is created after 64
      acknowledgements.
  powercut_io.py write-libiscsi HELPER URL LUN EPOCH WCE LOG READY
      The same writes through libiscsi instead of the Linux initiator:
      HELPER is pc_libiscsi (built by run.sh), which logs in to URL itself
      and answers each WRITE (10) and SYNCHRONIZE CACHE (10) once the
      target has.
  powercut_io.py check STORE LUN WCE NAME LOG...
      After the cut: read STORE (the backing file or device of the LU) and
      hold each block against the logs of every epoch so far. A block
      whose last durable write (acknowledged with WCE=0, acknowledged FUA,
      or acknowledged before a completed SYNCHRONIZE CACHE) is W must hold
      W or a later write to it; a block never durably written holds zeroes
      or a write issued to it; nothing else (a torn record, another
      block's record, data never written) is allowed. Prints one TAP line.
"""
import ctypes
import fcntl
import hashlib
import os
import random
import struct
import subprocess
import sys

REC = 512
NBLK = 2048
MAGIC = b"KTPWRCUT"


def record(lun, epoch, seq, lba):
    head = struct.pack(">8sIIQQ", MAGIC, lun, epoch, seq, lba)
    return head + hashlib.sha256(head).digest() * 15


SG_IO = 0x2285
SG_DXFER_NONE, SG_DXFER_TO_DEV = -1, -2


class SgIoHdr(ctypes.Structure):
    _fields_ = [("interface_id", ctypes.c_int),
                ("dxfer_direction", ctypes.c_int),
                ("cmd_len", ctypes.c_ubyte), ("mx_sb_len", ctypes.c_ubyte),
                ("iovec_count", ctypes.c_ushort),
                ("dxfer_len", ctypes.c_uint), ("dxferp", ctypes.c_void_p),
                ("cmdp", ctypes.c_void_p), ("sbp", ctypes.c_void_p),
                ("timeout", ctypes.c_uint), ("flags", ctypes.c_uint),
                ("pack_id", ctypes.c_int), ("usr_ptr", ctypes.c_void_p),
                ("status", ctypes.c_ubyte), ("masked_status", ctypes.c_ubyte),
                ("msg_status", ctypes.c_ubyte), ("sb_len_wr", ctypes.c_ubyte),
                ("host_status", ctypes.c_ushort),
                ("driver_status", ctypes.c_ushort), ("resid", ctypes.c_int),
                ("duration", ctypes.c_uint), ("info", ctypes.c_uint)]


def scsi(fd, cdb, data=b""):
    """Send @cdb with @data out through SG_IO; fail unless GOOD."""
    cdbuf = ctypes.create_string_buffer(bytes(cdb), len(cdb))
    dbuf = ctypes.create_string_buffer(data, max(len(data), 1))
    sense = ctypes.create_string_buffer(32)
    h = SgIoHdr(interface_id=ord("S"),
                dxfer_direction=SG_DXFER_TO_DEV if data else SG_DXFER_NONE,
                cmd_len=len(cdb), mx_sb_len=32, dxfer_len=len(data),
                dxferp=ctypes.addressof(dbuf), cmdp=ctypes.addressof(cdbuf),
                sbp=ctypes.addressof(sense), timeout=60000)
    fcntl.ioctl(fd, SG_IO, h)
    if h.status or h.host_status or h.driver_status:
        raise RuntimeError("%02x: status %#x host %#x driver %#x" %
                           (cdb[0], h.status, h.host_status, h.driver_status))


class SgDisk:
    """WRITE (10) and SYNCHRONIZE CACHE (10) through SG_IO on a disk."""

    def __init__(self, dev):
        self.fd = os.open(dev, os.O_RDWR)

    def write(self, lba, fua, rec):
        scsi(self.fd, struct.pack(">BBIBHB", 0x2A, 0x08 if fua else 0, lba,
                                  0, 1, 0), rec)

    def sync(self):
        scsi(self.fd, [0x35] + [0] * 9)


class Libiscsi:
    """The same two commands through pc_libiscsi, libiscsi's own session."""

    def __init__(self, helper, url):
        self.p = subprocess.Popen([helper, url], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE)

    def _answer(self, what):
        self.p.stdin.flush()
        if self.p.stdout.readline() != b"ok\n":
            raise RuntimeError("%s through libiscsi failed (exit %s)" %
                               (what, self.p.poll()))

    def write(self, lba, fua, rec):
        self.p.stdin.write(b"W %d %s\n" % (lba, b"F" if fua else b"P") + rec)
        self._answer("WRITE (10)")

    def sync(self):
        self.p.stdin.write(b"S\n")
        self._answer("SYNCHRONIZE CACHE (10)")


def write(disk, lun, epoch, wce, log, ready):
    out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    rng = random.Random(epoch * 1000 + lun)
    seq = 0
    while True:
        seq += 1
        lba = rng.randrange(NBLK)
        fua = wce and seq % 3 == 0
        os.write(out, b"W %d %d %d %s\n" %
                 (epoch, seq, lba, b"F" if fua else b"P"))
        disk.write(lba, fua, record(lun, epoch, seq, lba))
        os.write(out, b"A %d %d\n" % (epoch, seq))
        if wce and seq % 64 == 0:
            disk.sync()
            os.write(out, b"S %d %d\n" % (epoch, seq))
        if seq == 64:
            open(ready, "w").close()


def parse(logs, wce):
    """Per block: its writes in order, as (epoch, seq, durable)."""
    blocks = {}
    for log in logs:
        writes, acked, synced = [], set(), 0
        with open(log) as f:
            for line in f:
                p = line.split()
                if len(p) < 3 or not line.endswith("\n"):
                    continue
                if p[0] == "W" and len(p) == 5:
                    writes.append((int(p[1]), int(p[2]), int(p[3]), p[4]))
                elif p[0] == "A":
                    acked.add(int(p[2]))
                elif p[0] == "S":
                    synced = max(synced, int(p[2]))
        for epoch, seq, lba, kind in writes:
            durable = seq in acked and (not wce or kind == "F" or
                                        seq <= synced)
            blocks.setdefault(lba, []).append((epoch, seq, durable))
    return blocks


def check(store, lun, wce, name, logs):
    blocks = parse(logs, wce)
    with open(store, "rb") as f:
        data = f.read(NBLK * REC)
    data = data.ljust(NBLK * REC, b"\0")
    zero = b"\0" * REC
    bad, durable = [], 0
    for lba in range(NBLK):
        got = data[lba * REC:(lba + 1) * REC]
        writes = blocks.get(lba, [])
        last = max((i for i, w in enumerate(writes) if w[2]), default=None)
        durable += sum(1 for w in writes if w[2])
        allowed = writes[last:] if last is not None else writes
        if any(got == record(lun, e, s, lba) for e, s, _ in allowed):
            continue
        if last is None and got == zero:
            continue
        if got == zero:
            what = "zeroes"
        elif got[:8] == MAGIC:
            _, l, e, s, b = struct.unpack(">8sIIQQ", got[:32])
            what = "the record of LUN %d epoch %d seq %d for block %d" % (
                l, e, s, b)
        else:
            what = "data never written"
        want = "epoch %d seq %d or later" % writes[last][:2] if \
            last is not None else "zeroes or a write issued to it"
        bad.append("block %d holds %s; want %s" % (lba, what, want))
    nwrites = sum(len(v) for v in blocks.values())
    if bad:
        print("not ok - %s: %d of %d blocks wrong (%d writes, %d durable)" %
              (name, len(bad), NBLK, nwrites, durable))
        for b in bad[:8]:
            print("#   " + b)
        return 1
    print("ok - %s: %d blocks as acknowledged (%d writes, %d durable)" %
          (name, NBLK, nwrites, durable))
    return 0


def main():
    if sys.argv[1] == "write":
        dev, lun, epoch, wce, log, ready = sys.argv[2:8]
        write(SgDisk(dev), int(lun), int(epoch), wce == "1", log, ready)
        return 0
    if sys.argv[1] == "write-libiscsi":
        helper, url, lun, epoch, wce, log, ready = sys.argv[2:9]
        write(Libiscsi(helper, url), int(lun), int(epoch), wce == "1", log,
              ready)
        return 0
    if sys.argv[1] == "check":
        store, lun, wce, name = sys.argv[2:6]
        return check(store, int(lun), wce == "1", name, sys.argv[6:])
    return 2


if __name__ == "__main__":
    sys.exit(main())
