#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A hostile initiator: one logged-in session tries to make the target hold
more than it should. Each mode prints what it saw and exits 0 when the
target kept its bound, 1 if not.

  iscsi_hostile.py MODE HOST:PORT TARGET INITIATOR [ARG]

  cmdsn-window     WRITEs that never get their Data-Out, CmdSN running past
                   MaxCmdSN: at most the window's worth is taken in (one R2T
                   each), MaxCmdSN stays while they are outstanding, and
                   opens again as commands complete.
  immediate-flood  immediate WRITEs without Data-Out: at most 16 are taken
                   in, the rest are answered TASK SET FULL, and MaxCmdSN
                   stays where it was (the window is the other commands').
  max-transfer     READ and WRITE of one block more than the Block Limits
                   page's MAXIMUM TRANSFER LENGTH: ILLEGAL REQUEST, INVALID
                   FIELD IN CDB, and no R2T for the WRITE.
  alloc-len        behind an ORDERED WRITE that waits for its data, commands
                   with ALLOCATION LENGTHs of 128 MiB: MemAvailable must not
                   fall by more than 64 MiB while they wait.
  nop-flood        NOP-Outs with the largest ping data the target allows,
                   the socket never read: MemAvailable must not fall by more
                   than 64 MiB, and the target stops reading.
  text-flood       Text requests (SendTargets=All), the socket never read:
                   the same bound.
  text-keys        Text requests in full feature phase: unknown keys are
                   NotUnderstood, bad SendTargets values Reject, another
                   target's name answers nothing; SendTargets= still works.
  burst-order      a login offering FirstBurstLength above MaxBurstLength
                   never ends with the first larger than the second.
  overflow-write   WRITE (10) and WRITE AND VERIFY (10) whose Expected Data
                   Transfer Length is less than their blocks: with whole
                   blocks, exactly those are written (GOOD, overflow
                   residual); with part of a block, nothing is, and the
                   answer is INVALID FIELD IN COMMAND INFORMATION UNIT.
  login-flood      ARG is N: N connections from 127.0.0.3 that send nothing.
                   At most 64 of them reach login (ktarget's objects file),
                   the rest are closed at once; those in login are closed
                   when no login PDU came in 5 s; meanwhile an initiator
                   on 127.0.0.2 logs in and reads.
  isid-flood       ARG is N: one initiator name logs in N sessions, each under
                   its own ISID, and keeps them. From the 65th on the login
                   must be refused OUT OF RESOURCES (0302); another
                   initiator still logs in.
  xcopy-flood      ARG is SRC,N,K: N sessions each send K EXTENDED COPY
                   commands at once, LIST ID USAGE 11b (no list identifier,
                   nothing held), one block each from LUN SRC (a backstore
                   that takes seconds) to LUN 0. At most 16 copies of a
                   copy manager (TOTAL CONCURRENT COPIES) run at once, and
                   a nexus alone gets half of them; the rest are answered
                   BUSY.
  xcopy-share      ARG is SRC: one nexus sends 16 such copies at once; while
                   the ones it got run, a second initiator's copy to the
                   same copy manager must run too, not be answered BUSY.
  xcopy-ceiling    ARG is SRC: target/data_buffer_limit_mb is 1. A copy of
                   4 MiB from LUN SRC to LUN 0 runs (alone, its buffer may
                   pass the ceiling); a second session's WRITE of 512 KiB,
                   which fits under the ceiling beside the copy's
                   parameter list, must get TASK SET FULL meanwhile: the
                   copy's buffer counts.
  xcopy-swp        ARG is SRC: EXTENDED COPY (sent to LUN SRC) of a block
                   from LUN SRC to LUN 0,
                   then again with software write protect (MODE SELECT,
                   control page SWP) on LUN 0: the second must fail with
                   DATA PROTECT, WRITE PROTECTED, as a WRITE would.
  xcopy-once       ARG is SRC,STATUS,KEY: one such copy; its status and
                   sense key must be STATUS and KEY (hex).
  data-limit       ARG is MB, what target/data_buffer_limit_mb was set to:
                   two sessions send 2 x MB WRITEs of 1 MiB each, without
                   Data-Out. No more than MB of them (and one for the
                   counter's slack) get an R2T, the rest TASK SET FULL;
                   once the sessions have gone a new one writes again.
  data-share       ARG is MB, as for data-limit: one initiator sends 2 x MB
                   WRITEs of 1 MiB without Data-Out; another initiator's
                   WRITE of 1 MiB meanwhile must still get its R2T: one
                   initiator holds no more than it leaves free.
  dataout-timeout  ARG is SECONDS, the TPG's default_dataout_timeout: an
                   ORDERED WRITE that gets its R2T and never its data; a
                   second session's READ of the LU waits behind it (SAM-5
                   8.6: one task set) until the target gives up on the
                   Data-Out and closes the first connection, within
                   SECONDS and a few more; the READ then completes GOOD.
  header-digest    a session with HeaderDigest=CRC32C: a TEST UNIT READY
                   with a right digest is answered; one that carries an
                   AHS (bidirectional read length), its digest over BHS
                   and AHS (RFC 7143 11.2), is answered too, and the
                   connection goes on; one with a wrong digest closes it.
  reinstate-other  ARG is IQN@HOST:PORT, another target: a session there with
                   our InitiatorName and ISID survives our login here.
  lun-address      TEST UNIT READY to LUN fields that name no LU of a
                   single-level target (a second level, a bus other than
                   0): LOGICAL UNIT NOT SUPPORTED
                   (5/25/00), not LUN 0's answer; flat LUN 0 is LUN 0,
                   and a WRITE's R2T carries the command's LUN field.
"""
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from iscsi_raw import IMMEDIATE, OP_NOP_OUT, Conn, Session, \
    closed_within  # noqa: E402

OP_TEXT_REQ, OP_TEXT_RSP = 0x04, 0x24
TASK_SET_FULL = 0x28
IMMEDIATE_MAX = 16	# immediate commands a session may have taken in


def meminfo(key="MemAvailable"):
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) // 1024
    return 0


def write10(lba, blocks):
    return bytes([0x2A, 0]) + struct.pack(">IBH", lba, 0, blocks) + b"\0"


class Hostile(Session):
    def immediate_write(self, lun, lba, blocks, bs):
        """An immediate WRITE (10) announcing its data, sending none."""
        self.itt += 1
        bhs = struct.pack(">BBH4xBB6sIIII", IMMEDIATE | 0x01, 0xA1, 0, 0,
                          lun, b"\0" * 6, self.itt, blocks * bs, self.cmdsn,
                          self.exp_statsn)
        self.send(bhs + write10(lba, blocks).ljust(16, b"\0"))
        return self.itt


def login(addr, target, initiator, extra=()):
    c = Hostile(addr)
    c.login(target, initiator, extra=extra)
    return c


def login_window(addr, target, initiator):
    """A session that asks for every WRITE's data by R2T; its window:
    (session, ExpCmdSN, MaxCmdSN, slots)."""
    c = login(addr, target, initiator, ["InitialR2T=Yes"])
    c.tur(0)
    exp, maxsn = c.last_window
    return c, exp, maxsn, maxsn - exp + 1


def cmdsn_window(addr, target, initiator):
    c, exp, maxsn, window = login_window(addr, target, initiator)
    print("after login: ExpCmdSN %u MaxCmdSN %u, a window of %d" %
          (exp, maxsn, window))
    sent = window + 64
    itts = [c.command(0, write10(i * 8, 8), write_len=8 * 512)
            for i in range(sent)]
    c.pump_for(3)
    taken = [i for i in itts if i in c.r2t]
    print("%d WRITEs sent with CmdSN running on, %d taken in (R2T)" %
          (sent, len(taken)))
    ok = len(taken) <= window
    print("MaxCmdSN while they wait: %u (was %u)" % (c.last_window[1], maxsn))
    ok &= c.last_window[1] == maxsn
    # complete eight of them: the window opens by as much
    for itt in taken[:8]:
        c.data_out(0, itt, b"\xa5" * 4096)
    for itt in taken[:8]:
        st = c.wait(itt)[0]
        ok &= st == 0
    print("MaxCmdSN after 8 completed: %u" % c.last_window[1])
    ok &= c.last_window[1] == maxsn + 8
    # the commands beyond the window were dropped: CmdSN resumes there
    c.cmdsn = c.last_window[0]
    st = c.tur(0)[0]
    print("TEST UNIT READY at ExpCmdSN %u: status %#x" % (c.last_window[0], st))
    ok &= st == 0
    return ok


def immediate_flood(addr, target, initiator):
    c, _, maxsn, window = login_window(addr, target, initiator)
    sent = 3 * window
    itts = [c.immediate_write(0, i * 8, 8, 512) for i in range(sent)]
    c.pump_for(3)
    taken = sum(1 for i in itts if i in c.r2t)
    full = sum(1 for i in itts if c.rsp.get(i, (None,))[0] == TASK_SET_FULL)
    print("%d immediate WRITEs, a window of %d: %d taken in, %d TASK SET FULL, "
          "MaxCmdSN %u (was %u)" % (sent, window, taken, full,
                                     c.last_window[1], maxsn))
    # taken in only up to their own small limit, the window left whole
    return taken <= IMMEDIATE_MAX and taken + full == sent and \
        c.last_window[1] == maxsn


def block_limits(c, lun):
    cdb = [0x12, 0x01, 0xB0, 0, 64, 0]
    st, _, d = c.wait(c.command(lun, cdb, read_len=64))
    if st != 0 or len(d) < 12:
        raise RuntimeError("INQUIRY VPD B0h: status %#x" % st)
    return struct.unpack(">I", d[8:12])[0]


def max_transfer(addr, target, initiator):
    c = login(addr, target, initiator, ["InitialR2T=Yes"])
    c.tur(0)
    mtl = block_limits(c, 0)
    bs = c.read_capacity(0)[1]
    print("MAXIMUM TRANSFER LENGTH %u blocks of %u bytes" % (mtl, bs))
    ok = mtl > 0
    n = mtl + 1
    if n * bs > 0xFFFFFFFF:
        # LIO states 4294967288 blocks: one more is past what a 32-bit
        # Expected Data Transfer Length can ask for
        print("that is more than a command can transfer: no bound to test")
        return False
    for name, op, kw in (("READ (16)", 0x88, {"read_len": n * bs}),
                         ("WRITE (16)", 0x8A, {"write_len": n * bs})):
        cdb = bytes([op, 0]) + struct.pack(">QI", 0, n) + b"\0\0"
        itt = c.command(0, cdb, **kw)
        st, sense, _ = c.wait(itt, 5)
        r2t = itt in c.r2t
        print("%s of %u blocks: status %#x sense %x/%02x/%02x%s" %
              ((name, n, st) + sense + (", an R2T" if r2t else "",)))
        ok &= st == 2 and sense == (5, 0x24, 0) and not r2t
    return ok


def alloc_len(addr, target, initiator):
    c = login(addr, target, initiator, ["InitialR2T=Yes"])
    c.tur(0)
    big = 128 << 20
    before = meminfo()
    hold = c.command(0, write10(0, 8), write_len=4096, attr=2)
    c.pump_for(1)
    cdbs = (("REPORT LUNS", bytes([0xA0, 0, 0, 0, 0, 0]) +
             struct.pack(">I", big) + b"\0\0"),
            ("GET LBA STATUS", bytes([0x9E, 0x12]) + struct.pack(">Q", 0) +
             struct.pack(">I", big) + b"\0\0"),
            ("RECEIVE COPY RESULTS", bytes([0x84, 0x03]) + b"\0" * 8 +
             struct.pack(">I", big) + b"\0\0"),
            ("REPORT SUPPORTED OPERATION CODES",
             bytes([0xA3, 0x0C, 0, 0, 0, 0]) + struct.pack(">I", big) +
             b"\0\0"))
    itts = [(name, c.command(0, cdb, read_len=big)) for name, cdb in cdbs]
    c.pump_for(2)
    low = meminfo()
    print("MemAvailable %d MiB before, %d MiB with %d commands of %d MiB "
          "waiting" % (before, low, len(itts), big >> 20))
    ok = before - low < 64
    c.data_out(0, hold, b"\0" * 4096)
    st = c.wait(hold)[0]
    ok &= st == 0
    for name, itt in itts:
        st, sense, d = c.wait(itt)
        print("%s: status %#x, %d bytes" % (name, st, len(d)))
        ok &= st == 0 and 0 < len(d) < 65536
    return ok


def flood(c, opcode, data, what, seconds=8):
    """Immediate requests of @opcode with @data, as fast as the target
    takes them, its answers never read: memory must stay within 64 MiB."""
    before = meminfo()
    low = before
    c.sock.settimeout(0.5)
    sent = 0
    end = time.monotonic() + seconds
    stalled = 0
    while time.monotonic() < end:
        c.itt += 1
        bhs = struct.pack(">BBH4x8sIIII", IMMEDIATE | opcode, 0x80, 0,
                          b"\0" * 8, c.itt, 0xFFFFFFFF, c.cmdsn,
                          c.exp_statsn) + b"\0" * 16
        try:
            c.send(bhs, data)
            sent += 1
        except (socket.timeout, BlockingIOError):
            stalled += 1
            break
        if not sent % 64:
            low = min(low, meminfo())
    t = time.monotonic()
    while time.monotonic() < t + 2:
        low = min(low, meminfo())
        time.sleep(0.2)
    print("%d %s sent in %d s (%s), MemAvailable %d MiB before, "
          "%d MiB at its lowest" % (sent, what, seconds,
                                    "the target stopped reading" if stalled
                                    else "the target kept reading",
                                    before, low))
    return before - low < 64


def nop_flood(addr, target, initiator):
    c = login(addr, target, initiator)
    c.tur(0)
    size = int(os.environ.get("KT_PING_LEN", "262144"))
    return flood(c, OP_NOP_OUT, b"\x5a" * size,
                 "pings of %d KiB" % (size >> 10))


def text_flood(addr, target, initiator):
    c = login(addr, target, initiator)
    c.tur(0)
    return flood(c, OP_TEXT_REQ, b"SendTargets=All\0", "SendTargets=All")


def text(c, data, final=True):
    """One Text request in full feature phase; the response's keys."""
    c.itt += 1
    bhs = struct.pack(">BBH4x8sIIII", IMMEDIATE | OP_TEXT_REQ,
                      0x80 if final else 0, 0, b"\0" * 8, c.itt, 0xFFFFFFFF,
                      c.cmdsn, c.exp_statsn) + b"\0" * 16
    c.send(bhs, data.encode() + b"\0")
    while True:
        op, rsp, d = c.recv(10)
        if op == OP_TEXT_RSP:
            c.exp_statsn = struct.unpack(">I", rsp[24:28])[0] + 1
            return [k for k in d.decode(errors="replace").split("\0") if k]


def text_keys(addr, target, initiator, other):
    c = login(addr, target, initiator)
    ok = True
    cases = (("SendTargetsPlease=All", ["SendTargetsPlease=NotUnderstood"]),
             ("sENDtARGETS=aLL", ["sENDtARGETS=NotUnderstood"]),
             ("SendTargets=Alle", ["SendTargets=Reject"]),
             ("SendTargets=A", ["SendTargets=Reject"]),
             ("SendTargets=" + other, []))
    for req, want in cases:
        got = text(c, req)
        print("%s -> %s" % (req, got))
        ok &= got == want
    got = text(c, "SendTargets=")
    print("SendTargets= -> %s" % got)
    ok &= ("TargetName=" + target) in got
    return ok


def burst_order(addr, target, initiator):
    c = Conn(addr)
    keys = ["InitiatorName=" + initiator, "TargetName=" + target,
            "SessionType=Normal", "HeaderDigest=None", "DataDigest=None",
            "InitialR2T=No", "FirstBurstLength=65536",
            "MaxBurstLength=16384"]
    bhs = struct.pack(">BBBBB3s6sHIHHII", IMMEDIATE | 0x03, 0x87, 0, 0, 0,
                      b"\0\0\0", bytes.fromhex("80000000beef"), 0, 1, 1, 0,
                      1, 0) + b"\0" * 16
    c.send(bhs, ("\0".join(keys) + "\0").encode())
    op, rsp, d = c.recv(10)
    got = dict(k.split("=", 1) for k in d.decode().split("\0") if "=" in k)
    status = "%02x%02x" % (rsp[36], rsp[37])
    print("FirstBurstLength=65536 MaxBurstLength=16384 offered: status %s, "
          "answered FirstBurstLength=%s MaxBurstLength=%s" %
          (status, got.get("FirstBurstLength"), got.get("MaxBurstLength")))
    if status != "0000":
        return status[:2] == "02"
    fb = int(got.get("FirstBurstLength", "65536"))
    mb = int(got.get("MaxBurstLength", "16384"))
    return fb <= mb


def reinstate_other(addr, target, initiator, other):
    other, other_addr = other.split("@")
    b = Hostile(other_addr)
    b.login(other, initiator)
    print("session on %s: TEST UNIT READY %#x" % (other, b.tur(0)[0]))
    a = Hostile(addr)
    a.login(target, initiator)
    print("same InitiatorName and ISID on %s: logged in" % target)
    try:
        st = b.tur(0)[0]
    except (EOFError, ConnectionResetError, TimeoutError):
        print("the session on %s was torn down" % other)
        return False
    print("session on %s afterwards: TEST UNIT READY %#x" % (other, st))
    return st == 0


def overflow_write(addr, target, initiator):
    c = login(addr, target, initiator)
    c.tur(0)
    bs = c.read_capacity(0)[1]
    ok = True
    lba = 4000
    for name, op in (("WRITE (10)", 0x2A), ("WRITE AND VERIFY (10)", 0x2E)):
        for edtl in (bs // 2 - 56, bs + bs // 2, bs):
            zero = b"\0" * bs
            for i in (0, 1):
                c.wait(c.command(0, write10(lba + i, 1), zero))
            cdb = bytes([op, 0]) + struct.pack(">IBH", lba, 0, 2) + b"\0"
            data = bytes((i * 7 + edtl) & 0xFF or 1 for i in range(edtl))
            st, sense, _ = c.wait(c.command(0, cdb, data))
            got = b"".join(c.read_block(0, lba + i, bs)[2] for i in (0, 1))
            whole = edtl - edtl % bs
            if edtl % bs:
                want = (2, (5, 0x0E, 0x03), b"\0" * 2 * bs)
            else:
                want = (0, (0, 0, 0), data[:whole] + b"\0" * (2 * bs - whole))
            same = got == want[2]
            if got == b"\0" * 2 * bs:
                held = "nothing written"
            elif got == data[:whole] + b"\0" * (2 * bs - whole):
                held = "the %d whole blocks sent" % (whole // bs)
            else:
                held = "something else"
            print("%s of 2 blocks, %d bytes sent: status %#x sense %x/%02x/%02x, "
                  "the blocks hold %s" % ((name, edtl, st) + sense + (held,)))
            ok &= (st, sense) == want[:2] and same
            lba += 2
    return ok


def naa_of(c, lun):
    """The NAA designator of @lun's Device Identification page."""
    st, _, page = c.wait(c.command(lun, [0x12, 0x01, 0x83, 0x01, 0x00, 0],
                                   read_len=256))
    off, end = 4, 4 + struct.unpack(">H", page[2:4])[0]
    while st == 0 and off + 4 <= min(end, len(page)):
        _, kind, _, n = page[off:off + 4]
        if (kind & 0x30) == 0 and (kind & 0x0F) == 3:
            return page[off + 4:off + 4 + n]
        off += 4 + n
    raise RuntimeError("LUN %d: no NAA designator" % lun)


def xcopy_list(src_naa, dst_naa, lba):
    """LID1 parameter list, LIST ID USAGE 11b: one block src -> dst."""
    cscds = b""
    for naa in (src_naa, dst_naa):
        d = bytearray(32)
        d[0], d[4], d[5], d[7] = 0xE4, 0x01, 0x03, len(naa)
        d[8:8 + len(naa)] = naa
        d[28:32] = struct.pack(">I", 512)   # disk block length
        cscds += bytes(d)
    seg = struct.pack(">BBHHHHHQQ", 0x02, 0, 24, 0, 1, 0, 1, lba, lba)
    hdr = struct.pack(">BBHIII", 0, 0x18, len(cscds), 0, len(seg), 0)
    return hdr + cscds + seg


def xcopy_flood(addr, target, initiator, arg):
    src, nsess, per = (int(x) for x in arg.split(","))
    sessions = []
    for i in range(nsess):
        c = login(addr, target, "%s.%d" % (initiator, i))
        c.settle(0)
        c.settle(src)
        sessions.append(c)
    naa = (naa_of(sessions[0], src), naa_of(sessions[0], 0))
    print("LUN %d: NAA %s, LUN 0: NAA %s" % (src, naa[0].hex(), naa[1].hex()))
    t0 = time.monotonic()
    itts = []
    for c in sessions:
        for k in range(per):
            p = xcopy_list(naa[0], naa[1], 100 + k)
            cdb = bytes([0x83, 0]) + b"\0" * 8 + struct.pack(">I", len(p)) + \
                b"\0\0"
            itts.append((c, c.command(0, cdb, p)))
    good = busy = other = 0
    for c, itt in itts:
        st = c.wait(itt, 60)[0]
        good += st == 0
        busy += st == 0x08
        other += st not in (0, 0x08)
    print("%d sessions x %d EXTENDED COPY (LIST ID USAGE 11b) at once: "
          "%d GOOD, %d BUSY, %d other, in %.1f s" %
          (nsess, per, good, busy, other, time.monotonic() - t0))
    for c in sessions:
        c.sock.close()
    return other == 0 and good <= (8 if nsess == 1 else 16) and \
        good + busy == nsess * per


def logins_now():
    """The connections in login now: ktarget's objects file."""
    with open("/sys/kernel/debug/ktarget/objects") as f:
        for line in f:
            w = line.split()
            if len(w) >= 3 and w[1] == "logins":
                return int(w[2])
    raise RuntimeError("no logins line in the objects file")


def login_flood(addr, target, initiator, arg):
    host, port = addr.rsplit(":", 1)
    socks = []
    t0 = time.monotonic()
    for _ in range(int(arg)):
        s = socket.socket()
        s.bind(("127.0.0.3", 0))
        s.connect((host, int(port)))
        socks.append(s)
    time.sleep(1)
    held = logins_now()
    print("%d silent connections from 127.0.0.3: %d in login after 1 s" %
          (len(socks), held))
    c = Hostile(addr, "127.0.0.2")
    c.login(target, initiator)
    st = c.tur(0)[0]
    print("meanwhile a login from 127.0.0.2: TEST UNIT READY status %#x" % st)
    c.sock.close()
    time.sleep(max(0, t0 + 7 - time.monotonic()))
    closed = 0
    for s in socks:
        s.setblocking(False)
        try:
            closed += s.recv(1) == b""
        except BlockingIOError:
            pass
        except ConnectionError:
            closed += 1
        s.close()
    print("closed by the target within 7 s: %d of %d" % (closed, len(socks)))
    return held <= 64 and st == 0 and closed == len(socks)


def isid_flood(addr, target, initiator, arg):
    held, refused = [], []
    for i in range(int(arg)):
        c = Hostile(addr)
        c.isid = bytes([0x80, 0, 0, 0]) + struct.pack(">H", i + 1)
        try:
            c.login(target, initiator, settle=False)
            held.append(c)
        except RuntimeError as e:
            refused.append(str(e))
            c.sock.close()
    print("%s sessions under as many ISIDs: %d logged in, %d refused (%s)" %
          (arg, len(held), len(refused), ", ".join(sorted(set(refused)))))
    other = login(addr, target, initiator + ".other")
    st = other.tur(0)[0]
    print("another initiator meanwhile: TEST UNIT READY status %#x" % st)
    for c in held + [other]:
        c.sock.close()
    return len(held) == 64 and refused and \
        all(r.endswith("0302") for r in refused) and st in (0, 2)


def xcopy_cdb(param):
    return bytes([0x83, 0]) + b"\0" * 8 + struct.pack(">I", len(param)) + \
        b"\0\0"


def two_for_copies(addr, target, initiator, names, src):
    """Two sessions of initiators @names, LUN 0's and LUN @src's unit
    attentions taken; and the NAA designators of LUN @src and LUN 0."""
    cs = [login(addr, target, initiator + "." + n) for n in names]
    for c in cs:
        c.settle(0)
        c.settle(src)
    return cs + [(naa_of(cs[0], src), naa_of(cs[0], 0))]


def xcopy_share(addr, target, initiator, arg):
    hoarder, other, naa = two_for_copies(addr, target, initiator,
                                         ("hoarder", "other"), int(arg))
    itts = []
    for k in range(16):
        p = xcopy_list(naa[0], naa[1], 100 + k)
        itts.append(hoarder.command(0, xcopy_cdb(p), p))
    # a refused copy answers at once; a running one takes seconds
    hoarder.pump_for(0.5)
    busy = sum(1 for itt in itts
               if itt in hoarder.rsp and hoarder.rsp[itt][0] == 0x08)
    running = sum(1 for itt in itts if itt not in hoarder.rsp)
    print("one nexus sent 16 copies: %d BUSY, %d running" % (busy, running))
    p = xcopy_list(naa[0], naa[1], 300)
    st, sense, _ = other.wait(other.command(0, xcopy_cdb(p), p), 60)
    print("another initiator's copy meanwhile: status %#x sense %x/%02x/%02x"
          % ((st,) + sense))
    for itt in itts:
        hoarder.wait(itt, 60)
    for c in (hoarder, other):
        c.sock.close()
    return running > 0 and st == 0


def xcopy_ceiling(addr, target, initiator, arg):
    copier, writer, naa = two_for_copies(addr, target, initiator,
                                         ("copier", "writer"), int(arg))
    p = bytearray(xcopy_list(naa[0], naa[1], 0))
    # the segment's NUMBER OF BLOCKS: 8192 of 512 bytes
    p[16 + 64 + 10:16 + 64 + 12] = struct.pack(">H", 8192)
    copy = copier.command(0, xcopy_cdb(p), bytes(p))
    copier.pump_for(0.5)
    running = copy not in copier.rsp
    itt = writer.command(0, write10(16384, 1024), write_len=512 << 10)
    writer.pump_for(2)
    got = "R2T" if itt in writer.r2t else \
        "status %#x" % writer.rsp[itt][0] if itt in writer.rsp else "nothing"
    print("a WRITE of 512 KiB while a copy of 4 MiB %s: %s" %
          ("runs" if running else "has ended", got))
    st, sense, _ = copier.wait(copy, 60)
    print("the copy: status %#x sense %x/%02x/%02x" % ((st,) + sense))
    for c in (copier, writer):
        c.sock.close()
    return running and got == "status %#x" % TASK_SET_FULL and st == 0


def xcopy_one(c, src, lba=200):
    """One EXTENDED COPY of block @lba from LUN @src to LUN 0, sent to
    LUN @src: the checks of the destination are the copy's own."""
    p = xcopy_list(naa_of(c, src), naa_of(c, 0), lba)
    cdb = bytes([0x83, 0]) + b"\0" * 8 + struct.pack(">I", len(p)) + b"\0\0"
    st, sense, _ = c.wait(c.command(src, cdb, p), 60)
    print("EXTENDED COPY LUN %d -> LUN 0: status %#x sense %x/%02x/%02x" %
          ((src, st) + sense))
    return st, sense


def set_swp(c, on):
    """Software write protect of LUN 0 by MODE SELECT (10), control page."""
    st, _, page = c.wait(c.command(0, bytes([0x5A, 0, 0x0A, 0, 0, 0, 0, 0,
                                              255, 0]), read_len=255))
    if st != 0:
        raise RuntimeError("MODE SENSE (10): status %#x" % st)
    bdl = struct.unpack(">H", page[6:8])[0]
    ctl = bytearray(page[8 + bdl:8 + bdl + 12])
    ctl[0] &= 0x3F
    ctl[4] = (ctl[4] | 0x08) if on else (ctl[4] & ~0x08)
    param = b"\0" * 8 + bytes(ctl)
    st, sense, _ = c.wait(c.command(0, bytes([0x55, 0x10, 0, 0, 0, 0, 0]) +
                                    struct.pack(">H", len(param)) + b"\0",
                                    param))
    print("MODE SELECT (10) SWP=%d: status %#x" % (on, st))
    return st == 0


def xcopy_swp(addr, target, initiator, arg):
    c = login(addr, target, initiator)
    src = int(arg)
    c.settle(0)
    c.settle(src)
    ok = xcopy_one(c, src)[0] == 0
    ok &= set_swp(c, True)
    c.settle(0)
    st, sense = xcopy_one(c, src)
    ok &= st == 2 and sense[:2] == (7, 0x27)
    ok &= set_swp(c, False)
    return ok


def xcopy_once(addr, target, initiator, arg):
    src, want_st, want_key = (int(x, 16) for x in arg.split(","))
    c = login(addr, target, initiator)
    c.settle(0)
    c.settle(src)
    st, sense = xcopy_one(c, src)
    return st == want_st and sense[0] == want_key


def data_limit(addr, target, initiator, arg):
    limit, mib = int(arg), 1 << 20
    cs = [login_window(addr, target, "%s.%d" % (initiator, i))[0]
          for i in range(2)]
    itts = []
    for i in range(2 * limit):
        c = cs[i % 2]
        itts.append((c, c.command(0, write10(i * 2048, 2048), write_len=mib)))
    for c in cs:
        c.pump_for(2)
    r2t = sum(1 for c, itt in itts if itt in c.r2t)
    full = sum(1 for c, itt in itts
               if itt in c.rsp and c.rsp[itt][0] == TASK_SET_FULL)
    print("%d WRITEs of 1 MiB without Data-Out, the limit %d MiB: %d R2T, "
          "%d TASK SET FULL" % (len(itts), limit, r2t, full))
    ok = r2t <= limit + 1 and full > 0 and r2t + full == len(itts)
    for c in cs:
        c.sock.close()
    time.sleep(2)
    c = login(addr, target, initiator + ".after")
    st = c.wait(c.command(0, write10(0, 8), out=b"\x5a" * 4096))[0]
    print("after they have gone, a new session's WRITE: status %#x" % st)
    return ok and st == 0


def data_share(addr, target, initiator, arg):
    limit, mib = int(arg), 1 << 20
    hoarder = login_window(addr, target, initiator + ".hoarder")[0]
    other = login_window(addr, target, initiator + ".other")[0]
    itts = [hoarder.command(0, write10(i * 2048, 2048), write_len=mib)
            for i in range(2 * limit)]
    hoarder.pump_for(2)
    r2t = sum(1 for itt in itts if itt in hoarder.r2t)
    print("one initiator's %d WRITEs of 1 MiB without Data-Out, the limit "
          "%d MiB: %d R2T" % (len(itts), limit, r2t))
    itt = other.command(0, write10(48 * 2048, 2048), write_len=mib)
    other.pump_for(2)
    got = "R2T" if itt in other.r2t else \
        "status %#x sense %x/%02x/%02x" % ((other.rsp[itt][0],) +
                                          other.rsp[itt][1]) \
        if itt in other.rsp else "nothing"
    print("another initiator's WRITE of 1 MiB meanwhile: %s" % got)
    for c in (hoarder, other):
        c.sock.close()
    return r2t > 0 and got == "R2T"


def dataout_timeout(addr, target, initiator, arg):
    secs = int(arg)
    a = login(addr, target, initiator, ["InitialR2T=Yes"])
    b = login(addr, target, initiator + ".b")
    a.tur(0)
    b.tur(0)
    hold = a.command(0, write10(64, 8), write_len=4096, attr=2)
    while hold not in a.r2t:
        a.pump(10)
    t0 = time.monotonic()
    print("an ORDERED WRITE has its R2T; its data never comes")
    read = b.command(0, bytes([0x28, 0]) + struct.pack(">IBH", 0, 0, 8) +
                     b"\0", read_len=4096)
    try:
        st = b.wait(read, secs + 20)[0]
    except TimeoutError:
        print("the second session's READ: no answer in %d s" % (secs + 20))
        return False
    waited = time.monotonic() - t0
    print("the second session's READ: status %#x after %.0f s" % (st, waited))
    gone = closed_within(a, 5)
    print("the first connection %s" % ("closed" if gone else "still open"))
    return st == 0 and gone and waited < secs + 10


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def digest_login(addr, target, initiator):
    """A session whose PDUs carry header digests; None if refused."""
    c = Hostile(addr)
    keys = ["InitiatorName=" + initiator, "TargetName=" + target,
            "SessionType=Normal", "HeaderDigest=CRC32C", "DataDigest=None"]
    bhs = struct.pack(">BBBBB3s6sHIHHII", IMMEDIATE | 0x03, 0x87, 0, 0, 0,
                      b"\0\0\0", bytes.fromhex("80000000beef"), 0, c.itt,
                      1, 0, c.cmdsn, c.exp_statsn)
    c.send(bhs + b"\0" * 16, ("\0".join(keys) + "\0").encode())
    _, rsp, data = c.recv(10)
    print("login: status %02x%02x, %s" % (rsp[36], rsp[37],
          [k for k in data.split(b"\0") if k.startswith(b"HeaderDigest")]))
    if rsp[36] or b"HeaderDigest=CRC32C" not in data or not rsp[1] & 0x80:
        return None
    c.exp_statsn = struct.unpack(">I", rsp[24:28])[0] + 1
    return c


def digest_tur(c, ahs=b"", bad=False):
    """A TEST UNIT READY (an ORDERED one) with a header digest; its
    status, or the exception that ended the connection."""
    c.itt += 1
    bhs = bytearray(struct.pack(">BBH4xBB6sIIII", 0x01, 0x82, 0, 0, 0,
                                b"\0" * 6, c.itt, 0, c.cmdsn, c.exp_statsn)
                    + bytes(16))
    bhs[4] = len(ahs) // 4
    c.cmdsn += 1
    hdr = bytes(bhs) + ahs
    digest = crc32c(hdr) ^ (0x5A5A5A5A if bad else 0)
    c.sock.sendall(hdr + struct.pack("<I", digest))
    try:
        while True:
            bhs = c.recv_exact(48, time.monotonic() + 10)
            c.recv_exact(4 + bhs[4] * 4, time.monotonic() + 10)
            dlen = int.from_bytes(bhs[5:8], "big")
            if dlen:
                c.recv_exact(dlen + (-dlen) % 4, time.monotonic() + 10)
            if bhs[0] & 0x3F == 0x21:
                c.exp_statsn = struct.unpack(">I", bhs[24:28])[0] + 1
                return "status %#x" % bhs[3]
            if bhs[0] & 0x3F == 0x3F:
                return "reject %#x" % bhs[2]
    except (EOFError, ConnectionError, TimeoutError) as e:
        return type(e).__name__


def header_digest(addr, target, initiator):
    c = digest_login(addr, target, initiator)
    if not c:
        return False
    ok = True
    for _ in range(3):	# past the new nexus's unit attentions
        st = digest_tur(c)
    print("TEST UNIT READY, right digest: %s" % st)
    ok &= st == "status 0x0"
    # AHS type 2, bidirectional expected read-data length (RFC 7143 11.2.1.3)
    ahs = struct.pack(">HBBI", 5, 2, 0, 0)
    st = digest_tur(c, ahs)
    print("TEST UNIT READY with an AHS, digest over BHS and AHS: %s" % st)
    ok &= st.startswith("status") or st.startswith("reject")
    st = digest_tur(c)
    print("then on the same connection: %s" % st)
    ok &= st == "status 0x0"
    c.sock.close()
    c = digest_login(addr, target, initiator + ".bad")
    digest_tur(c)
    st = digest_tur(c, bad=True)
    print("TEST UNIT READY, wrong digest: %s" % st)
    ok &= st in ("EOFError", "ConnectionResetError")
    return ok


def lun_address(addr, target, initiator):
    s = login(addr, target, initiator)
    s.settle(0)
    cases = [
        ("flat space LUN 0", "4000000000000000", None),
        ("LUN 0, then a second level 1", "0000000100000000", (5, 0x25, 0)),
        ("LUN 0, bytes 6-7 set", "0000000000000001", (5, 0x25, 0)),
        ("bus 1, target 0", "0100000000000000", (5, 0x25, 0)),
    ]
    good = True
    for what, field, want in cases:
        st, sn, _ = s.wait(s.command(bytes.fromhex(field), [0] * 6))
        got = None if st == 0 else (st,) + tuple(sn)
        ok = got == (None if want is None else (2,) + want)
        print("%s (%s): %s%s" % (what, field, "GOOD" if got is None else
                                "status %#x sense %x/%02x/%02x" % got,
                                "" if ok else " (wrong)"))
        good = good and ok
    # RFC 7143 11.8: an R2T carries the LUN field of its command
    field = bytes.fromhex("4000000000000000")
    w = login(addr, target, initiator + ":r2t", ["InitialR2T=Yes"])
    bs = w.read_capacity(0)[1]
    itt = w.command(field, write10(0, 1), write_len=bs)
    end = time.monotonic() + 10
    while itt not in w.r2t and itt not in w.rsp and time.monotonic() < end:
        w.pump(1)
    lun = w.r2t_lun.get(itt, b"").hex() or "no R2T"
    if itt in w.r2t:
        w.data_out(0, itt, b"\0" * bs)
    st = w.wait(itt)[0]
    print("WRITE to flat space LUN 0: R2T with LUN %s, status %#x" % (lun, st))
    return good and st == 0 and lun == field.hex()


def main():
    mode, addr, target, initiator = sys.argv[1:5]
    arg = sys.argv[5] if len(sys.argv) > 5 else None
    modes = {
        "cmdsn-window": lambda: cmdsn_window(addr, target, initiator),
        "immediate-flood": lambda: immediate_flood(addr, target, initiator),
        "max-transfer": lambda: max_transfer(addr, target, initiator),
        "alloc-len": lambda: alloc_len(addr, target, initiator),
        "nop-flood": lambda: nop_flood(addr, target, initiator),
        "text-flood": lambda: text_flood(addr, target, initiator),
        "text-keys": lambda: text_keys(addr, target, initiator, arg),
        "burst-order": lambda: burst_order(addr, target, initiator),
        "overflow-write": lambda: overflow_write(addr, target, initiator),
        "login-flood": lambda: login_flood(addr, target, initiator, arg),
        "isid-flood": lambda: isid_flood(addr, target, initiator, arg),
        "xcopy-flood": lambda: xcopy_flood(addr, target, initiator, arg),
        "xcopy-share": lambda: xcopy_share(addr, target, initiator, arg),
        "xcopy-ceiling": lambda: xcopy_ceiling(addr, target, initiator,
                                               arg),
        "xcopy-swp": lambda: xcopy_swp(addr, target, initiator, arg),
        "xcopy-once": lambda: xcopy_once(addr, target, initiator, arg),
        "dataout-timeout": lambda: dataout_timeout(addr, target, initiator,
                                                   arg),
        "header-digest": lambda: header_digest(addr, target, initiator),
        "data-limit": lambda: data_limit(addr, target, initiator, arg),
        "data-share": lambda: data_share(addr, target, initiator, arg),
        "reinstate-other": lambda: reinstate_other(addr, target, initiator,
                                                   arg),
        "lun-address": lambda: lun_address(addr, target, initiator),
    }
    try:
        return 0 if modes[mode]() else 1
    except (TimeoutError, EOFError, ConnectionError, RuntimeError) as e:
        print("%s: %r" % (mode, e))
        return 1


if __name__ == "__main__":
    sys.exit(main())
