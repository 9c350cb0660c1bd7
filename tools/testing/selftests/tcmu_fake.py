#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A small fake TCMU daemon and a bare iSCSI initiator in one process, for
answers tcmu-runner does not give on demand.

  tcmu_fake.py DEV HOST:PORT TARGET INITIATOR LUN TPG_LUN_DIR

DEV is the user backstore device's name (its UIO device is found by
"tcm-user/N/DEV/"), LUN the LUN it is exported as, TPG_LUN_DIR its
lun_N directory (the last phase unlinks it). The device must have
max_data_area_mb=1 (256 blocks of 4 KiB: sixteen 64 KiB READs fill it).

The daemon answers READ(10) with 512-byte blocks that each hold their
LBA (8 bytes, big-endian, repeated), TEST UNIT READY with GOOD and any
other command with TCMU_UFLAG_UNKNOWN_OP; except that
  LBA 8:  CHECK CONDITION, READ_LEN 512 and a 32-byte descriptor sense
          (MEDIUM ERROR, INFORMATION 9, COMMAND-SPECIFIC INFORMATION);
          bytes past the first 512 are 0xEE, not valid data
  LBA 16: CHECK CONDITION, no READ_LEN, a fixed sense (MEDIUM ERROR)
  LBA 24: GOOD with READ_LEN 1024
While it holds, it answers nothing and keeps what it saw.

Prints one line per check, "ok NAME" or "not ok NAME: why"; the caller
greps them. Exits 0 when every check passed.
"""
import mmap
import os
import select
import struct
import sys
import threading
import time

import iscsi_raw as raw

OP_PAD, OP_CMD = 0, 1
UFLAG_UNKNOWN_OP, UFLAG_READ_LEN = 0x1, 0x2
GOOD, CHECK_CONDITION = 0x00, 0x02

SENSE_DESC = bytes([0x72, 0x03, 0x11, 0x00, 0, 0, 0, 24,
                    0x00, 0x0A, 0x80, 0x00]) + struct.pack(">Q", 9) + \
    bytes([0x01, 0x0A, 0x00, 0x00]) + bytes.fromhex("1122334455667788")
SENSE_FIXED = bytes([0x70, 0, 0x03, 0, 0, 0, 0, 10, 0, 0, 0, 0,
                     0x11, 0x00, 0, 0, 0, 0])


def pattern(lba, blocks):
    return b"".join(struct.pack(">Q", lba + i) * 64 for i in range(blocks))


def find_uio(dev):
    for d in sorted(os.listdir("/sys/class/uio")):
        with open("/sys/class/uio/%s/name" % d) as f:
            name = f.read().strip()
        if name.startswith("tcm-user/") and "/%s/" % dev in name[9:]:
            return d
    raise RuntimeError("no UIO device for " + dev)


class Daemon(threading.Thread):
    def __init__(self, dev):
        super().__init__(daemon=True)
        uio = find_uio(dev)
        with open("/sys/class/uio/%s/maps/map0/size" % uio) as f:
            size = int(f.read(), 0)
        self.fd = os.open("/dev/" + uio, os.O_RDWR)
        self.mm = mmap.mmap(self.fd, size)
        self.off, self.size = struct.unpack_from("<II", self.mm, 4)
        self.pos = self.tail = struct.unpack_from("<I", self.mm, 64)[0]
        self.lock = threading.Lock()
        self.hold = False
        self.held = []		# (cmd_id, cdb, iovs) not answered
        self.seen = []		# the LBAs of the READs it was given
        self.stop = False

    def u32(self, at):
        return struct.unpack_from("<I", self.mm, at)[0]

    def put_data(self, iovs, data):
        for base, length in iovs:
            chunk = data[:length]
            self.mm[base:base + len(chunk)] = chunk
            data = data[length:]

    def complete(self, cmd_id, status, uflags=0, read_len=0, sense=b""):
        """An answer at the tail, as tcmu-runner writes it (OOOC)."""
        while True:
            len_op = self.u32(self.off + self.tail)
            if len_op & 7 != OP_PAD:
                break
            self.tail = (self.tail + (len_op & ~7)) % self.size
        at = self.off + self.tail
        struct.pack_into("<HBB", self.mm, at + 4, cmd_id, 0, uflags)
        struct.pack_into("<BBHI", self.mm, at + 8, status, 0, 0, read_len)
        self.mm[at + 16:at + 16 + 96] = sense.ljust(96, b"\0")
        self.tail = (self.tail + (len_op & ~7)) % self.size
        struct.pack_into("<I", self.mm, 64, self.tail)

    def answer(self, cmd_id, cdb, iovs):
        op = cdb[0]
        if op == 0x00:
            self.complete(cmd_id, GOOD)
        elif op == 0x28:
            lba, blocks = struct.unpack(">IxH", cdb[2:9])
            data = pattern(lba, blocks)
            if lba == 8:
                self.put_data(iovs, data[:512] + b"\xee" * (len(data) - 512))
                self.complete(cmd_id, CHECK_CONDITION, UFLAG_READ_LEN, 512,
                              SENSE_DESC)
            elif lba == 16:
                self.put_data(iovs, b"\xee" * len(data))
                self.complete(cmd_id, CHECK_CONDITION, sense=SENSE_FIXED)
            elif lba == 24:
                self.put_data(iovs, data)
                self.complete(cmd_id, GOOD, UFLAG_READ_LEN, 1024)
            elif lba == 32:
                self.put_data(iovs, data)
                self.complete(cmd_id, CHECK_CONDITION, UFLAG_READ_LEN,
                              2 * len(data), SENSE_FIXED)
            else:
                self.put_data(iovs, data)
                self.complete(cmd_id, GOOD)
        else:
            self.complete(cmd_id, GOOD, UFLAG_UNKNOWN_OP)

    def kick(self):
        os.write(self.fd, struct.pack("<i", 1))

    def scan(self):
        answered = False
        with self.lock:
            head = self.u32(12)
            while self.pos != head:
                at = self.off + self.pos
                len_op = self.u32(at)
                if len_op & 7 == OP_CMD:
                    cmd_id = struct.unpack_from("<H", self.mm, at + 4)[0]
                    iov_cnt = self.u32(at + 8)
                    cdb_off = struct.unpack_from("<Q", self.mm, at + 24)[0]
                    iovs = [struct.unpack_from("<QQ", self.mm, at + 48 + 16 * i)
                            for i in range(iov_cnt)]
                    cdb = bytes(self.mm[cdb_off:cdb_off + 16])
                    if not cdb:
                        raise RuntimeError("entry at %d: cdb_off %#x" %
                                           (self.pos, cdb_off))
                    if cdb[0] == 0x28:
                        self.seen.append(struct.unpack(">I", cdb[2:6])[0])
                    if self.hold:
                        self.held.append((cmd_id, cdb, iovs))
                    else:
                        self.answer(cmd_id, cdb, iovs)
                        answered = True
                self.pos = (self.pos + (len_op & ~7)) % self.size
        if answered:
            self.kick()

    def release(self, order=reversed):
        """Stop holding: answer what was held, in @order."""
        with self.lock:
            self.hold = False
            for cmd_id, cdb, iovs in order(self.held):
                self.answer(cmd_id, cdb, iovs)
            self.held = []
        self.kick()

    def run(self):
        p = select.poll()
        p.register(self.fd, select.POLLIN)
        while not self.stop:
            if p.poll(100):
                os.read(self.fd, 4)
            self.scan()


class Initiator(raw.Session):
    """raw.Session, keeping each response whole: status, sense bytes,
    the Data-In received, the response's flags and residual count."""

    def pump(self, timeout):
        op, bhs, data = self.recv(timeout)
        itt = struct.unpack(">I", bhs[16:20])[0]
        if raw.is_ping(op, bhs):
            self.nop_out_answer(bhs)
        elif op == raw.OP_DATA_IN:
            self.data[itt] = self.data.get(itt, b"") + data
            if bhs[1] & 0x01:
                self.exp_statsn = struct.unpack(">I", bhs[24:28])[0] + 1
                self.rsp[itt] = dict(status=bhs[3], sense=b"",
                                     data=self.data.pop(itt),
                                     flags=bhs[1] & 0x06,
                                     residual=struct.unpack(">I", bhs[44:48])[0],
                                     at=time.monotonic())
        elif op == raw.OP_SCSI_RSP:
            self.exp_statsn = struct.unpack(">I", bhs[24:28])[0] + 1
            self.rsp[itt] = dict(status=bhs[3], sense=data[2:],
                                 data=self.data.pop(itt, b""),
                                 flags=bhs[1] & 0x06,
                                 residual=struct.unpack(">I", bhs[44:48])[0],
                                 at=time.monotonic())
        elif op == raw.OP_TMF_RSP:
            self.exp_statsn = struct.unpack(">I", bhs[24:28])[0] + 1
            self.tmf_rsp[itt] = (bhs[2], time.monotonic())

    def get(self, itt, timeout):
        """The response to @itt (kept), or None after @timeout s."""
        end = time.monotonic() + timeout
        while itt not in self.rsp and itt not in self.tmf_rsp:
            left = end - time.monotonic()
            if left <= 0:
                return None
            try:
                self.pump(left)
            except TimeoutError:
                return None
        return self.rsp.get(itt) or self.tmf_rsp.get(itt)

    def read10(self, lun, lba, blocks):
        cdb = bytes([0x28, 0]) + struct.pack(">IxH", lba, blocks) + b"\0"
        return self.command(lun, cdb, read_len=blocks * 512)


FAILED = []
NONE = dict(status=-1, sense=b"", data=b"", flags=0, residual=0, at=0)


def check(name, ok, why=""):
    if ok:
        print("ok " + name, flush=True)
    else:
        FAILED.append(name)
        print("not ok %s: %s" % (name, why), flush=True)


def wait_until(cond, seconds):
    end = time.monotonic() + seconds
    while not cond() and time.monotonic() < end:
        time.sleep(0.05)
    return cond()


def settle(s, lun):
    for _ in range(8):
        r = s.wait(s.command(lun, [0] * 6))
        if r["status"] != CHECK_CONDITION or r["sense"][2:3] != b"\x06":
            return r["status"]
    return None


def check_answers(s, lun):
    """Item 10a: CHECK CONDITION with and without READ_LEN."""
    r = s.get(s.read10(lun, 8, 8), 10) or NONE
    check("cc-readlen-status", r["status"] == CHECK_CONDITION,
          "status %#x" % r["status"])
    check("cc-readlen-sense", r["sense"] == SENSE_DESC,
          "sense %s, the daemon gave %s" % (r["sense"].hex(), SENSE_DESC.hex()))
    check("cc-readlen-data", r["data"] == pattern(8, 1),
          "%d bytes of data-in, %s" % (len(r["data"]), r["data"][:16].hex()))
    check("cc-readlen-residual", r["flags"] == 0x02 and r["residual"] == 3584,
          "flags %#x residual %d" % (r["flags"], r["residual"]))
    r = s.get(s.read10(lun, 16, 8), 10) or NONE
    check("cc-plain", r["status"] == CHECK_CONDITION and
          r["sense"] == SENSE_FIXED and not r["data"] and not r["flags"],
          "status %#x sense %s, %d bytes of data, flags %#x residual %d" %
          (r["status"], r["sense"].hex(), len(r["data"]), r["flags"],
           r["residual"]))
    # READ_LEN at or past the transfer: every byte is valid (LIO:
    # min(READ_LEN, the transfer)), all of it goes before the status
    r = s.get(s.read10(lun, 32, 8), 10) or NONE
    check("cc-readlen-whole", r["status"] == CHECK_CONDITION and
          r["sense"] == SENSE_FIXED and r["data"] == pattern(32, 8) and
          not r["flags"],
          "status %#x, %d bytes of data, flags %#x residual %d" %
          (r["status"], len(r["data"]), r["flags"], r["residual"]))
    r = s.get(s.read10(lun, 24, 8), 10) or NONE
    check("good-readlen", r["status"] == GOOD and
          r["data"] == pattern(24, 2) and r["flags"] == 0x02 and
          r["residual"] == 3072,
          "status %#x, %d bytes, flags %#x residual %d" %
          (r["status"], len(r["data"]), r["flags"], r["residual"]))


def fill(s, d, lun, base):
    """Sixteen 64 KiB READs the daemon holds fill the data area; a
    seventeenth waits for room. Returns their ITTs, the last one first."""
    d.hold = True
    itts = [s.read10(lun, base + 128 * i, 128) for i in range(16)]
    wait_until(lambda: len(d.held) == 16, 10)
    queued = s.read10(lun, base + 5000, 128)
    s.pump_for(1)
    return queued, itts


def check_abort_task(s, d, lun):
    queued, itts = fill(s, d, lun, 1000)
    check("abort-ring-full", len(d.held) == 16 and 6000 not in d.seen,
          "the daemon holds %d, saw %s" % (len(d.held), d.seen[-20:]))
    start = time.monotonic()
    tmf = s.tmf(1, lun, ref_itt=queued, ref_cmdsn=s.cmdsn - 1)
    got = s.get(tmf, 5)
    check("abort-queued-at-once", got is not None and got[0] == 0 and
          got[1] - start < 3,
          "TMF response %s after %.1f s" %
          (got and got[0], (got[1] if got else time.monotonic()) - start))
    # one more waits behind the held ones; the daemon answers them now
    later = s.read10(lun, 7000, 8)
    s.pump_for(0.5)
    d.release()
    for itt in itts + [later]:
        s.get(itt, 10)
    bad = [i for n, i in enumerate(itts)
           if s.rsp.get(i, {}).get("data") != pattern(1000 + 128 * n, 128)]
    check("abort-others-answered", not bad, "%d of 16 wrong or missing" % len(bad))
    r = s.rsp.get(later, {})
    check("abort-later-own-data", r.get("data") == pattern(7000, 8),
          "status %s, %d bytes" % (r.get("status"), len(r.get("data", b""))))
    s.pump_for(0.5)
    check("abort-queued-never-answered",
          queued not in s.rsp and 6000 not in d.seen,
          "a response %s; the daemon saw 6000: %s" %
          (s.rsp.get(queued), 6000 in d.seen))


def check_lun_reset(s, d, lun):
    queued, itts = fill(s, d, lun, 20000)
    start = time.monotonic()
    tmf = s.tmf(5, lun)
    # the daemon finishes what it has a second later, as tcmu-runner
    # would; the queued one must not hold the reset meanwhile
    time.sleep(1)
    d.release()
    got = s.get(tmf, 20)
    check("reset-done-after-daemon", got is not None and got[0] == 0 and
          got[1] - start < 4,
          "TMF response %s after %.1f s" %
          (got and got[0], (got[1] if got else time.monotonic()) - start))
    s.pump_for(1)
    answered = [i for i in itts + [queued] if i in s.rsp]
    check("reset-no-response-for-aborted", not answered,
          "%d aborted commands answered" % len(answered))
    check("reset-queued-never-reached-daemon", 25000 not in d.seen,
          "the daemon was given LBA 25000")
    settle(s, lun)
    r = s.get(s.read10(lun, 7100, 8), 10) or NONE
    check("reset-later-own-data", r["status"] == GOOD and
          r["data"] == pattern(7100, 8),
          "status %#x, %d bytes" % (r["status"], len(r["data"])))


def check_unlink(s, d, lun, lun_dir):
    queued, itts = fill(s, d, lun, 40000)
    start = time.monotonic()
    links = [os.path.join(lun_dir, e) for e in os.listdir(lun_dir)
             if os.path.islink(os.path.join(lun_dir, e))]

    def unlink():
        for link in links:
            os.unlink(link)
        os.rmdir(lun_dir)
    t = threading.Thread(target=unlink)
    t.start()
    r = s.get(queued, 3)
    check("unlink-queued-at-once", r is not None and
          r["status"] == CHECK_CONDITION and r["sense"][2:3] == b"\x05" and
          r["sense"][12:13] == b"\x25" and r["at"] - start < 3,
          "response %s" % str(r and (r["status"], r["sense"].hex(),
                                      r["at"] - start)))
    d.release()
    t.join(30)
    check("unlink-done-after-daemon", not t.is_alive() and
          time.monotonic() - start < 8, "after %.1f s" % (time.monotonic() - start))
    check("unlink-queued-never-reached-daemon", 45000 not in d.seen,
          "the daemon was given LBA 45000")


def main():
    dev, addr, target, initiator, lun, lun_dir = sys.argv[1:7]
    lun = int(lun)
    d = Daemon(dev)
    d.start()
    s = Initiator(addr)
    s.login(target, initiator)
    settle(s, lun)
    check_answers(s, lun)
    check_abort_task(s, d, lun)
    check_lun_reset(s, d, lun)
    check_unlink(s, d, lun, lun_dir)
    d.stop = True
    d.join(2)
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
