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

  tcmu_fake.py --fuzz SECONDS SEED DEV HOST:PORT TARGET INITIATOR LUN
               TPG_LUN_DIR DEV_DIR

The fuzzing daemon (issue 44): for SECONDS, seeded by SEED (printed
first, "# seed N", so that a failure can be replayed), it answers the
commands of the ring with garbage while the initiator keeps up to eight
READs, WRITEs and TEST UNIT READYs in flight: answers with the wrong, a
duplicate or a stale cmd_id, random statuses, flags, READ_LEN and sense;
entries whose header is rewritten with a random op and length; iovecs
and cdb_off pointed outside the data area or at each other; cmd_tail
moved backwards, forwards, past the ring and off its alignment; the
mailbox's fields scribbled over; action/reset_ring (DEV_DIR's) written
in the middle; its UIO fd closed and opened again; kicks of the wrong
size. It writes the data area through /proc/self/mem, so that a page the
kernel refuses (SIGBUS) is an error it counts, not its end. Then, with
the ring reset, every command must have had its answer, a good daemon
must serve READs with the right data, and the LUN must unlink within
cmd_time_out + 10 s. Checks: fuzz-connection-kept, fuzz-all-answered,
fuzz-good-daemon-reads, fuzz-unlink-in-bound.

  tcmu_fake.py --pages DEV_A DEV_B DEV_C HOST:PORT TARGET INITIATOR
               DIR_A DIR_B DIR_C IDLE_SECONDS

The data areas' pages (issue 44): three devices, LUNs 1 to 3, each with
max_data_area_mb 4 and hw_max_sectors 1024, global_max_data_area_mb 4.
While A's daemon holds 4 MiB of READs, B's READs wait for room, and get
it once A's are answered (global-bound-held, global-count-within,
held-own-data, waiting-given-room, waiting-own-data,
global-count-within-after); IDLE_SECONDS after the last command every
page is given back and gone from the daemons' mappings
(idle-pages-given-back, idle-mappings-zapped), and the next READ's data
comes through fresh pages (fresh-pages-own-data, fresh-pages-mapped);
before that, with 960 of the 1024 pages held by A, B's READ of 128 pages
takes none and waits with the CPU mostly idle, then gets room and its
data (partial-room-waits-idle, partial-room-then-own-data);
action/reset_ring (reset-ring-gives-pages-back, reset-ring-then-own-data)
and a lower global_max_data_area_mb (lower-limit-gives-pages-back,
lower-limit-then-own-data) give idle pages back at once.
"""
import ctypes
import mmap
import os
import random
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

    def resync(self):
        """After action/reset_ring: the ring starts empty."""
        with self.lock:
            self.pos = self.tail = 0
            self.held = []

    def mapped(self):
        """How many pages of the data area this process has mapped now
        (present in its page tables, /proc/self/pagemap)."""
        if not hasattr(self, "addr"):
            self.view = (ctypes.c_char * len(self.mm)).from_buffer(self.mm)
            self.addr = ctypes.addressof(self.view)
        start = (self.addr + self.off + self.size) // mmap.PAGESIZE
        end = (self.addr + len(self.mm)) // mmap.PAGESIZE
        with open("/proc/self/pagemap", "rb") as f:
            f.seek(start * 8)
            raw = f.read((end - start) * 8)
        return sum(1 for (e,) in struct.iter_unpack("<Q", raw) if e >> 63)

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
        self.take(*self.recv(timeout))

    def take(self, op, bhs, data):
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


class FuzzDaemon(threading.Thread):
    """A hostile daemon on the ring of @dev, its choices drawn from @rng.
    Its own record of the ring (the entries it was given, where its tail
    is) never trusts what it scribbled."""

    # action: weight
    ACTIONS = dict(good=50, junk=10, wrong_id=5, dup=5, stale=5, stall=2,
                   entry=2, iov=5, tail=3, mailbox=3, reset=2, reopen=1,
                   kick=3, data=3)

    def __init__(self, dev, dev_dir, rng):
        super().__init__(daemon=True)
        self.dev, self.dev_dir, self.rng = dev, dev_dir, rng
        self.stop = False
        self.error = None
        self.count = {a: 0 for a in self.ACTIONS}
        self.count.update(efault=0, reset_failed=0, kick_refused=0)
        self.done_ids = []	# cmd_ids answered, for stale answers
        self.fd = None
        self.memfd = os.open("/proc/self/mem", os.O_RDWR)
        self.open()

    def open(self):
        uio = find_uio(self.dev)
        with open("/sys/class/uio/%s/maps/map0/size" % uio) as f:
            self.map_size = int(f.read(), 0)
        self.fd = os.open("/dev/" + uio, os.O_RDWR)
        self.mm = mmap.mmap(self.fd, self.map_size)
        c = ctypes.c_char.from_buffer(self.mm)
        self.addr = ctypes.addressof(c)
        del c
        if not hasattr(self, "size"):
            # the ring as the kernel made it; the mailbox may be
            # scribbled over by the time the fd is opened again
            self.off, self.size = struct.unpack_from("<II", self.mm, 4)
        self.resync()

    def close(self):
        self.mm.close()
        os.close(self.fd)
        self.fd = None

    def resync(self):
        """Start again from the kernel's view: what is past its tail is
        what was not answered."""
        self.tail = struct.unpack_from("<I", self.mm, 64)[0] % self.size
        self.tail &= ~7
        self.pos = self.tail
        self.ents = []		# (pos, len, op, cmd_id, cdb, iovs) past tail

    def u32(self, at):
        return struct.unpack_from("<I", self.mm, at)[0]

    def mem_write(self, at, data):
        """@data at offset @at of the map, or a counted refusal."""
        try:
            os.pwrite(self.memfd, data, self.addr + at)
        except OSError:
            self.count["efault"] += 1

    def scan(self):
        head = self.u32(12)
        if head >= self.size or head % 8:
            return		# scribbled by us: wait for the kernel's next
        n = 0
        while self.pos != head and n < 1024:
            n += 1
            at = self.off + self.pos
            len_op = self.u32(at)
            length = len_op & ~7
            if length == 0 or length > self.size - self.pos or length % 8:
                # not an entry the kernel wrote (one of ours): start over
                self.resync()
                return
            cmd_id = struct.unpack_from("<H", self.mm, at + 4)[0]
            cdb, iovs = b"", []
            if len_op & 7 == OP_CMD:
                iov_cnt = min(self.u32(at + 8), 256)
                cdb_off = struct.unpack_from("<Q", self.mm, at + 24)[0]
                iovs = [struct.unpack_from("<QQ", self.mm, at + 48 + 16 * i)
                        for i in range(iov_cnt)
                        if at + 48 + 16 * i + 16 <= self.off + self.size]
                if cdb_off < self.off + self.size:
                    cdb = bytes(self.mm[cdb_off:cdb_off + 16])
            self.ents.append((self.pos, length, len_op & 7, cmd_id, cdb, iovs))
            self.pos = (self.pos + length) % self.size

    def set_tail(self, tail):
        struct.pack_into("<I", self.mm, 64, tail)

    def answer(self, ent, cmd_id=None, status=GOOD, uflags=0, read_len=0,
               sense=b""):
        """Complete the entry @ent at our tail (the entries before it,
        pads or ones we drop, are passed over) with these fields."""
        pos, length, op, cid, cdb, iovs = ent
        at = self.off + pos
        if op == OP_CMD and len(cdb) == 16 and cdb[0] == 0x28 and \
                status == GOOD:
            lba, blocks = struct.unpack(">IxH", cdb[2:9])
            data = pattern(lba, blocks)
            for base, ln in iovs:
                if base < self.map_size:
                    self.mem_write(base, data[:min(ln, self.map_size - base)])
                data = data[ln:]
        struct.pack_into("<HBB", self.mm, at + 4,
                         cid if cmd_id is None else cmd_id, 0, uflags)
        struct.pack_into("<BBHI", self.mm, at + 8, status, 0, 0, read_len)
        self.mm[at + 16:at + 16 + 96] = sense.ljust(96, b"\0")[:96]
        self.done_ids = (self.done_ids + [cid])[-64:]

    def advance(self, upto):
        """Our tail past the first @upto entries, and the kernel told."""
        for _ in range(upto):
            pos, length = self.ents.pop(0)[:2]
            self.tail = (pos + length) % self.size
        self.set_tail(self.tail)

    def step(self):
        r = self.rng
        self.scan()
        # the first entry that is a command, past any pads before it
        k = next((i for i, e in enumerate(self.ents) if e[2] == OP_CMD), None)
        action = r.choices(list(self.ACTIONS), list(self.ACTIONS.values()))[0]
        if k is None and action in ("good", "junk", "wrong_id", "dup",
                                    "stale", "entry", "iov"):
            return False
        self.count[action] += 1
        ent = self.ents[k] if k is not None else None
        if action == "good":
            self.answer(ent)
            self.advance(k + 1)
        elif action == "junk":
            self.answer(ent, status=r.randrange(256), uflags=r.randrange(256),
                        read_len=r.choice([0, 1, 511, 512, 4096, 65536,
                                           0x7fffffff, 0xffffffff,
                                           r.randrange(1 << 32)]),
                        sense=r.randbytes(r.choice([0, 8, 18, 96])))
            self.advance(k + 1)
        elif action == "wrong_id":
            self.answer(ent, cmd_id=r.randrange(1 << 16))
            self.advance(k + 1)
        elif action == "stale":
            self.answer(ent, cmd_id=r.choice(self.done_ids or [0]))
            self.advance(k + 1)
        elif action == "dup":
            # the answer, and the same cmd_id again in the next entry
            self.answer(ent)
            nxt = next((e for e in self.ents[k + 1:] if e[2] == OP_CMD), None)
            if nxt:
                self.answer(nxt, cmd_id=ent[3])
                self.advance(self.ents.index(nxt) + 1)
            else:
                self.advance(k + 1)
        elif action == "stall":
            # nothing answered for up to 4 s: commands reach their
            # cmd_time_out, and their answers come late
            time.sleep(r.random() * 4)
        elif action == "data":
            # the data area where no command may be: a page never used is
            # refused (counted as efault)
            at = self.off + self.size + r.randrange(self.map_size -
                                                    self.off - self.size)
            self.mem_write(at, r.randbytes(r.choice([1, 64, 4096])))
        elif action == "entry":
            pos = ent[0]
            struct.pack_into("<I", self.mm, self.off + pos,
                             r.choice([0, 8, 3, 5, self.size, 1 << 31,
                                       r.randrange(1 << 32)]) & ~7 |
                             r.randrange(8))
            self.advance(k + 1)
        elif action == "iov":
            pos = ent[0]
            at = self.off + pos
            for i in range(min(len(ent[5]), 4)):
                struct.pack_into("<QQ", self.mm, at + 48 + 16 * i,
                                 r.choice([0, self.off, self.map_size - 8,
                                           self.map_size, 1 << 40,
                                           r.randrange(1 << 64)]),
                                 r.choice([0, 512, 1 << 20, 1 << 63,
                                           r.randrange(1 << 64)]))
            if r.random() < 0.3:
                struct.pack_into("<I", self.mm, at + 8, r.randrange(1 << 32))
            if r.random() < 0.3:
                struct.pack_into("<Q", self.mm, at + 24, r.randrange(1 << 64))
            self.answer(ent)
            self.advance(k + 1)
        elif action == "tail":
            self.set_tail(r.choice([
                (self.tail - 8 * r.randrange(1, 64)) % self.size,
                (self.tail + 8 * r.randrange(1, 64)) % self.size,
                self.tail + 1 + r.randrange(7), self.size, self.size + 8,
                r.randrange(1 << 32)]))
            self.kick()
            if r.random() < 0.5:
                self.set_tail(self.tail)
        elif action == "mailbox":
            field = r.choice([0, 2, 4, 8, 12])
            width = 2 if field < 4 else 4
            self.mm[field:field + width] = r.randbytes(width)
        elif action == "reset":
            self.reset_ring(r.choice([1, 2]))
        elif action == "reopen":
            self.close()
            time.sleep(r.random() / 2)
            self.open()
        elif action == "kick":
            try:
                os.write(self.fd, r.randbytes(r.choice([1, 3, 4, 8])))
            except OSError:
                self.count["kick_refused"] += 1
        return True

    def reset_ring(self, how=1):
        try:
            with open(os.path.join(self.dev_dir, "action/reset_ring"), "w") as f:
                f.write("%d" % how)
        except OSError:
            self.count["reset_failed"] += 1
        self.resync()

    def kick(self):
        try:
            os.write(self.fd, struct.pack("<i", 1))
        except OSError:
            self.count["kick_refused"] += 1

    def run(self):
        try:
            p = select.poll()
            p.register(self.fd, select.POLLIN)
            last_reset = time.monotonic()
            while not self.stop:
                got = p.poll(self.rng.choice([1, 5, 20]))
                if got and got[0][1] & select.POLLIN:
                    os.read(self.fd, 4)
                fd = self.fd
                if self.step():
                    self.kick()
                if self.fd != fd:
                    p = select.poll()
                    p.register(self.fd, select.POLLIN)
                # a broken ring (a bad entry) serves nothing until reset
                if time.monotonic() - last_reset > 3:
                    self.reset_ring(1)
                    last_reset = time.monotonic()
        except Exception as e:		# a failure to report, not to hide
            self.error = "%s: %s" % (type(e).__name__, e)


class FuzzInitiator(Initiator):
    """Initiator with R2Ts answered at once from the data of its WRITEs."""

    def __init__(self, addr):
        super().__init__(addr)
        self.wdata = {}

    def pump_ready(self, seconds):
        """A whole PDU if one starts within @seconds: a time-out in the
        middle of one would lose the stream's framing."""
        p = select.poll()
        p.register(self.sock, select.POLLIN)
        if p.poll(seconds * 1000):
            self.pump(30)

    def take(self, op, bhs, data):
        if op != raw.OP_R2T:
            super().take(op, bhs, data)
            return
        itt, ttt = struct.unpack(">II", bhs[16:24])
        offset, length = struct.unpack(">II", bhs[40:48])
        buf = self.wdata.get(itt, b"")[offset:offset + length]
        for n, at in enumerate(range(0, len(buf), 8192)):
            chunk = buf[at:at + 8192]
            final = 0x80 if at + 8192 >= len(buf) else 0
            hdr = struct.pack(">BBH", raw.OP_DATA_OUT, final, 0) + \
                struct.pack(">I", len(chunk)) + bhs[8:16] + \
                struct.pack(">IIIIIII4x", itt, ttt, 0, self.exp_statsn, 0,
                            n, offset + at)
            self.send(hdr, chunk)


def fuzz(seconds, seed, dev, addr, target, initiator, lun, lun_dir, dev_dir):
    print("# seed %d" % seed, flush=True)
    rng = random.Random(seed + 1)	# the initiator's; the daemon's: seed
    with open(os.path.join(dev_dir, "attrib/cmd_time_out")) as f:
        cmd_time_out = int(f.read())
    d = FuzzDaemon(dev, dev_dir, random.Random(seed))
    d.start()
    s = FuzzInitiator(addr)
    s.login(target, initiator, settle=False)
    sent = {}			# ITT -> when
    kinds = {"read": 0, "write": 0, "tur": 0}
    statuses = {}
    lost = 0
    kept = True
    end = time.monotonic() + seconds
    wait_for = 60 + cmd_time_out	# the longest an answer may take
    while time.monotonic() < end and kept:
        while len(sent) < 8:
            kind = rng.choice(["read", "read", "write", "tur"])
            kinds[kind] += 1
            lba = rng.randrange(0, 100000)
            if kind == "read":
                blocks = rng.choice([1, 8, 64, 128])
                itt = s.read10(lun, lba, blocks)
            elif kind == "write":
                blocks = rng.choice([1, 8, 64])
                itt = s.itt + 1
                s.wdata[itt] = pattern(lba, blocks)
                cdb = bytes([0x2A, 0]) + struct.pack(">IxH", lba, blocks) + b"\0"
                s.command(lun, cdb, write_len=blocks * 512)
            else:
                itt = s.command(lun, [0] * 6)
            sent[itt] = time.monotonic()
        try:
            s.pump_ready(0.2)
        except (OSError, RuntimeError, EOFError) as e:
            kept = False
            check("fuzz-connection-kept", False, "%s after %d commands" %
                  (e, sum(kinds.values())))
        for itt in [i for i in sent if i in s.rsp]:
            st = s.rsp.pop(itt)["status"]
            statuses[st] = statuses.get(st, 0) + 1
            del sent[itt]
            s.wdata.pop(itt, None)
        now = time.monotonic()
        for itt in [i for i in sent if now - sent[i] > wait_for]:
            lost += 1
            del sent[itt]
        if d.error:
            break
    d.stop = True
    d.join(10)
    check("fuzz-daemon-ran", d.error is None and not d.is_alive(),
          d.error or "the daemon did not stop")
    print("# daemon: %s" % " ".join("%s=%d" % kv for kv in d.count.items()),
          flush=True)
    print("# initiator: %s; statuses %s" % (kinds, statuses), flush=True)
    # what the daemon left in the ring: reset; everything is answered
    d.reset_ring(1)
    d.close()
    if kept:
        check("fuzz-connection-kept", True)
        end = time.monotonic() + wait_for
        while sent and time.monotonic() < end:
            try:
                s.pump_ready(0.5)
            except (OSError, RuntimeError, EOFError) as e:
                check("fuzz-connection-kept-after", False, str(e))
                break
            for itt in [i for i in sent if i in s.rsp]:
                del sent[itt]
    check("fuzz-all-answered", kept and not sent and not lost,
          "%d lost during the run, %d unanswered %d s after the reset" %
          (lost, len(sent), wait_for))
    # a good daemon on a fresh fd is served as if nothing had happened
    good = Daemon(dev)
    good.start()
    bad = []
    if kept:
        settle(s, lun)
        for i in range(16):
            lba = rng.randrange(0, 100000)
            r = s.get(s.read10(lun, lba, 16), 30) or NONE
            if r["status"] != GOOD or r["data"] != pattern(lba, 16):
                bad.append("LBA %d: status %#x, %d bytes" %
                           (lba, r["status"], len(r["data"])))
    check("fuzz-good-daemon-reads", kept and not bad, "; ".join(bad[:3]))
    start = time.monotonic()
    for e in os.listdir(lun_dir):
        if os.path.islink(os.path.join(lun_dir, e)):
            os.unlink(os.path.join(lun_dir, e))
    os.rmdir(lun_dir)
    took = time.monotonic() - start
    check("fuzz-unlink-in-bound", took < cmd_time_out + 10,
          "%.1f s, cmd_time_out %d" % (took, cmd_time_out))
    good.stop = True
    good.join(2)
    return 1 if FAILED else 0


PARAMS = "/sys/module/ktarget_user/parameters/"


def read_int(path, pattern=None):
    """The number in file @path (after "@pattern: " in it), or None."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return None
    if pattern:
        at = text.find(pattern + ": ")
        if at < 0:
            return None
        text = text[at + len(pattern) + 2:].split()[0]
    try:
        return int(text)
    except ValueError:
        return None


def cpu_times():
    """/proc/stat's first line: (all jiffies, idle and iowait ones)"""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return sum(v), v[3] + v[4]


def cpu_busy(before, after):
    total = after[0] - before[0]
    return 1 - (after[1] - before[1]) / total if total else 1


def pages(devs, addr, target, initiator, dev_dirs, idle):
    """Issue 44, finding 8: the data areas' pages, LUNs 1, 2 and 3 over
    devices @devs (max_data_area_mb 4, hw_max_sectors 1024) with
    global_max_data_area_mb 4: 1024 pages of 4 KiB for all of them."""
    ds = [Daemon(d) for d in devs]
    for d in ds:
        d.start()
    a, b, c = ds
    s = Initiator(addr)
    s.login(target, initiator)
    for lun in (1, 2, 3):
        settle(s, lun)

    def total():
        return read_int(PARAMS + "data_area_pages")

    def dev_pages(i):
        return read_int(os.path.join(dev_dirs[i], "info"), "DataAreaPages")

    def reads(lun, base, n):
        """n READs of 512 KiB from LBA @base on: their ITTs and LBAs"""
        return [(s.read10(lun, base + 1024 * i, 1024), base + 1024 * i)
                for i in range(n)]

    def wrong(cmds, timeout=30):
        """how many of @cmds ended without GOOD and their own data"""
        bad = 0
        for itt, lba in cmds:
            r = s.get(itt, timeout) or NONE
            if r["status"] != GOOD or r["data"] != pattern(lba, 1024):
                bad += 1
        return bad

    # the whole global bound held by device A's commands: device B's wait
    a.hold = b.hold = True
    held = reads(1, 0, 8)
    wait_until(lambda: len(a.held) == 8, 10)
    waiting = reads(2, 100000, 2)
    s.pump_for(3)
    check("global-bound-held", len(a.held) == 8 and not b.held,
          "the daemon of A holds %d commands of 512 KiB (4 MiB, all of "
          "global_max_data_area_mb), the daemon of B was given %d more" %
          (len(a.held), len(b.held)))
    t = total()
    check("global-count-within", t is not None and t <= 1024,
          "data_area_pages %s, global_max_data_area_mb 4 is 1024" % t)
    a.hold = False
    a.release(order=list)
    bad = wrong(held)
    check("held-own-data", not bad, "%d of 8 wrong or missing" % bad)
    check("waiting-given-room", wait_until(lambda: len(b.held) == 2, 15),
          "the daemon of B was given %d of 2" % len(b.held))
    b.hold = False
    b.release(order=list)
    bad = wrong(waiting)
    check("waiting-own-data", not bad, "%d of 2 wrong or missing" % bad)
    t = total()
    check("global-count-within-after", t is not None and t <= 1024,
          "data_area_pages %s" % t)

    # idle: every page given back, the daemon's mappings of them gone
    start = time.monotonic()
    end = start + idle + 10
    while time.monotonic() < end and \
            (total() != 0 or a.mapped() or b.mapped()):
        s.pump_for(0.5)
    check("idle-pages-given-back", total() == 0,
          "data_area_pages %s %.0f s after the last command (A %s, B %s)" %
          (total(), time.monotonic() - start, dev_pages(0), dev_pages(1)))
    check("idle-mappings-zapped", a.mapped() == 0 and b.mapped() == 0,
          "the daemons still map %d and %d pages of their data areas" %
          (a.mapped(), b.mapped()))
    # room for part of a command: it takes none and waits, without the
    # reclaim work spinning (giving back and taking again the pages it
    # got, each time it is tried): 960 of the 1024 pages held by A, a
    # READ of B needing 128
    a.hold = b.hold = True
    held = reads(1, 60000, 7) + [(s.read10(1, 70000, 512), 70000)]
    wait_until(lambda: len(a.held) == 8, 10)
    waiting = reads(2, 80000, 1)
    s.pump_for(1)
    before = cpu_times()
    s.pump_for(4)
    busy = cpu_busy(before, cpu_times())
    check("partial-room-waits-idle", len(a.held) == 8 and not b.held and
          busy < 0.6, "the daemon of A holds %d, of B %d; the CPU was "
          "busy %.0f%% of 4 s while B's READ waited" %
          (len(a.held), len(b.held), 100 * busy))
    a.release(order=list)
    bad = 0
    for itt, lba in held:
        r = s.get(itt, 30) or NONE
        blocks = 512 if lba == 70000 else 1024
        if r["status"] != GOOD or r["data"] != pattern(lba, blocks):
            bad += 1
    b.release(order=list)
    bad += wrong(waiting)
    check("partial-room-then-own-data", not bad,
          "%d of 9 wrong or missing" % bad)
    a.hold = b.hold = False
    a.release(order=list)
    b.release(order=list)

    # a page touched again is a fresh one, the data the daemon's
    bad = wrong(reads(1, 5000, 2))
    check("fresh-pages-own-data", not bad, "%d of 2 wrong or missing" % bad)
    check("fresh-pages-mapped", a.mapped() > 0, "none mapped")

    # action/reset_ring gives them back at once
    bad = wrong(reads(3, 9000, 2))
    before = dev_pages(2)
    with open(os.path.join(dev_dirs[2], "action/reset_ring"), "w") as f:
        f.write("1")
    c.resync()
    check("reset-ring-gives-pages-back", before and dev_pages(2) == 0 and
          c.mapped() == 0 and not bad,
          "DataAreaPages %s before, %s after; %d mapped; %d reads wrong" %
          (before, dev_pages(2), c.mapped(), bad))
    bad = wrong(reads(3, 9500, 1))
    check("reset-ring-then-own-data", not bad, "the read after it: wrong")

    # a lower global_max_data_area_mb gives idle pages back at once (some
    # may have gone already, idle for KT_USER_IDLE_FREE on a slow guest)
    bad = wrong(reads(1, 20000, 4) + reads(2, 30000, 2))
    before = total()
    with open(PARAMS + "global_max_data_area_mb", "w") as f:
        f.write("1")
    ok = wait_until(lambda: (total() or 0) <= 256, 3)
    check("lower-limit-gives-pages-back", before and before > 256 and ok
          and not bad, "data_area_pages %s before, %s after "
          "global_max_data_area_mb 1; %d reads wrong" % (before, total(), bad))
    bad = wrong(reads(2, 40000, 1))
    check("lower-limit-then-own-data", not bad and (total() or 0) <= 256,
          "the read after it: %d wrong, data_area_pages %s" % (bad, total()))
    with open(PARAMS + "global_max_data_area_mb", "w") as f:
        f.write("4")
    for d in ds:
        d.stop = True
        d.join(2)
    return 1 if FAILED else 0


def main():
    if sys.argv[1] == "--pages":
        a = sys.argv[2:]
        return pages(a[0:3], a[3], a[4], a[5], a[6:9], int(a[9]))
    if sys.argv[1] == "--fuzz":
        a = sys.argv[2:]
        return fuzz(float(a[0]), int(a[1]), a[2], a[3], a[4], a[5],
                    int(a[6]), a[7], a[8])
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
