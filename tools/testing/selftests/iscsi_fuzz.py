#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A stateful iSCSI fuzzer: it logs in properly, then sends sequences of
valid and mutated full-feature PDUs over several sessions at once, some
with two connections (MC/S), reinstates sessions by logging in again with
the same initiator name and ISID, and closes connections at random
points: cleanly, with a reset, half-way through a PDU or a Data-Out
sequence, with commands queued behind a CmdSN gap, with TMFs
outstanding, after a Logout.

  iscsi_fuzz.py HOST:PORT TARGET SECONDS SEED LUN...

Every 10 s, and once at the end, a separate well-behaved session logs in
and reads one block of every LUN: the target must keep serving. Prints
what it sent and how the connections ended; exits 0 when every health
check passed, 1 if not. What the target leaks or corrupts meanwhile is
for the caller to find (object counts, module unload, kernel log).
"""
import os
import random
import select
import socket
import struct
import sys
import time

from iscsi_raw import Conn, Session

OP_NOP_OUT, OP_SCSI_CMD, OP_TMF, OP_LOGIN, OP_TEXT = 0x00, 0x01, 0x02, 0x03, 0x04
OP_DATA_OUT, OP_LOGOUT, OP_SNACK = 0x05, 0x06, 0x10
OP_R2T, OP_REJECT, OP_LOGOUT_RSP = 0x31, 0x3F, 0x26
IMMEDIATE = 0x40
HEALTH_INITIATOR = "iqn.2026-11.org.ktarget:fuzz-health"
BS = 512		# the fuzzer's guess; WRITEs may be wrong on purpose


class FuzzSess:
    """What a fuzzed session shares among its connections."""

    def __init__(self, name):
        self.name = name
        self.tsih = 0
        self.cmdsn = 1
        self.itt = 0x1000
        self.conns = []
        self.sent = []		# (ITT, CmdSN, LUN) of recent tasks, for TMFs

    def next_itt(self):
        self.itt = (self.itt + 1) & 0xFFFFFFFF
        if self.itt == 0xFFFFFFFF:
            self.itt = 1
        return self.itt


class FuzzConn:
    def __init__(self, fs, c, cid):
        self.fs = fs
        self.sock = c.sock
        self.exp_statsn = c.exp_statsn
        self.cid = cid
        self.buf = b""
        self.r2t = {}		# ITT -> (TTT, offset, length, LUN)
        self.sock.setblocking(False)

    def send(self, data):
        """Send what the socket takes within 1 s: the target may stop
        reading (back-pressure), and then the rest is dropped."""
        end = time.monotonic() + 1
        while data:
            try:
                n = self.sock.send(data)
                data = data[n:]
            except BlockingIOError:
                if time.monotonic() > end:
                    return False
                select.select([], [self.sock], [], 0.05)
        return True

    def drain(self, rng):
        """Take in what the target sent; note R2Ts and StatSN."""
        while True:
            try:
                chunk = self.sock.recv(65536)
            except BlockingIOError:
                break
            if not chunk:
                raise EOFError
            self.buf += chunk
            if len(self.buf) > (1 << 20):
                break
        while len(self.buf) >= 48:
            bhs = self.buf[:48]
            dlen = int.from_bytes(bhs[5:8], "big")
            total = 48 + bhs[4] * 4 + dlen + (-dlen) % 4
            if len(self.buf) < total:
                break
            self.buf = self.buf[total:]
            op = bhs[0] & 0x3F
            statsn = struct.unpack(">I", bhs[24:28])[0]
            if op in (0x21, 0x22, 0x24, 0x26, 0x3F) or \
                    (op == 0x25 and bhs[1] & 0x01):
                self.exp_statsn = (statsn + 1) & 0xFFFFFFFF
            if op == OP_R2T:
                itt, ttt = struct.unpack(">II", bhs[16:24])
                off, length = struct.unpack(">II", bhs[40:48])
                self.r2t[itt] = (ttt, off, length, bhs[8:16])
            elif op == 0x20 and bhs[20:24] != b"\xff\xff\xff\xff" and \
                    rng.random() < 0.7:
                self.nop_answer(bhs)

    def nop_answer(self, nop_in):
        bhs = bytes([IMMEDIATE | OP_NOP_OUT, 0x80]) + b"\0" * 6 + \
            nop_in[8:16] + b"\xff" * 4 + nop_in[20:24] + \
            struct.pack(">II", self.fs.cmdsn, self.exp_statsn) + b"\0" * 16
        self.send(bhs)


def pdu(bhs, data=b"", ahs=b""):
    bhs = bytearray(bhs.ljust(48, b"\0"))
    bhs[4] = len(ahs) // 4
    bhs[5:8] = len(data).to_bytes(3, "big")
    return bytes(bhs) + ahs + data + b"\0" * ((-len(data)) % 4)


def lun_field(lun):
    return struct.pack(">HHI", lun & 0x3FFF, 0, 0)


class Fuzzer:
    def __init__(self, addr, target, luns, seed):
        self.addr = addr
        self.target = target
        self.luns = luns
        self.rng = random.Random(seed)
        self.sessions = []
        self.stats = {}
        self.failures = []

    def count(self, what):
        self.stats[what] = self.stats.get(what, 0) + 1

    # ---- sessions and connections ----

    def login(self, fs, cid):
        try:
            c = Conn(self.addr)
        except OSError:
            self.count("connect refused")
            return None
        c.cmdsn = fs.cmdsn
        c.itt = fs.next_itt()
        extra = ["MaxConnections=2",
                 "InitialR2T=" + self.rng.choice(["Yes", "No"]),
                 "ImmediateData=" + self.rng.choice(["Yes", "No"])]
        try:
            c.login(self.target, fs.name, tsih=fs.tsih, cid=cid,
                    extra=extra, settle=False)
        except (RuntimeError, OSError, EOFError, TimeoutError):
            c.sock.close()
            self.count("login refused or failed")
            return None
        if not fs.tsih:
            fs.tsih = c.tsih
        self.count("logins")
        fc = FuzzConn(fs, c, cid)
        fs.conns.append(fc)
        return fc

    def new_session(self):
        # few names, one ISID: a new login often reinstates a live session
        name = "iqn.2026-11.org.ktarget:fuzz-%d" % self.rng.randrange(4)
        fs = FuzzSess(name)
        if self.login(fs, 1):
            self.sessions.append(fs)

    def add_connection(self):
        fs = self.rng.choice(self.sessions)
        if len(fs.conns) < 3:
            self.login(fs, self.rng.randrange(1, 4))
            self.count("MC/S connection attempts")

    def close(self, fc, how):
        fs = fc.fs
        try:
            if how == "reset":
                fc.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                   struct.pack("ii", 1, 0))
            elif how == "mid-pdu":
                hdr = self.scsi_pdu(fc, self.rng.choice(self.luns))
                fc.send(hdr[:self.rng.randrange(1, len(hdr))])
            elif how == "mid-data-out" and fc.r2t:
                itt = next(iter(fc.r2t))
                ttt, off, length, lun = fc.r2t.pop(itt)
                bhs = struct.pack(">BBH4x8sIIIIIII4x", OP_DATA_OUT, 0x80, 0,
                                  lun, itt, ttt, 0, fc.exp_statsn, 0, 0, off)
                whole = pdu(bhs, b"\xa5" * min(length, 8192))
                fc.send(whole[:self.rng.randrange(48, len(whole))])
            elif how == "cmdsn-gap":
                fs.cmdsn += self.rng.randrange(1, 6)
                for _ in range(self.rng.randrange(1, 8)):
                    fc.send(self.scsi_pdu(fc, self.rng.choice(self.luns)))
            elif how == "tmf-outstanding":
                fc.send(self.scsi_pdu(fc, self.rng.choice(self.luns)))
                fc.send(self.tmf_pdu(fc))
            elif how == "after-logout":
                fc.send(self.logout_pdu(fc))
                select.select([fc.sock], [], [], 0.05)
        except OSError:
            pass
        try:
            fc.sock.close()
        except OSError:
            pass
        self.count("close: " + how)
        fs.conns.remove(fc)
        if not fs.conns:
            self.sessions.remove(fs)

    # ---- PDUs, valid and otherwise ----

    def scsi_pdu(self, fc, lun):
        fs, rng = fc.fs, self.rng
        kind = rng.choice(["tur", "inquiry", "read", "read", "write",
                           "write-r2t", "capacity", "report-luns", "sync",
                           "random"])
        lba = rng.randrange(0, 2048)
        n = rng.randrange(1, 17)
        data, flags, edtl = b"", 0x80 | rng.choice([0, 1, 2, 3]), 0
        if kind == "tur":
            cdb = bytes(6)
        elif kind == "inquiry":
            edtl = rng.choice([0, 36, 255, 4096])
            cdb = bytes([0x12, 0, 0, edtl >> 8 & 0xFF, edtl & 0xFF, 0])
            flags |= 0x40
        elif kind == "read":
            edtl = n * BS
            cdb = struct.pack(">BBIBHB", 0x28, 0, lba, 0, n, 0)
            flags |= 0x40
        elif kind in ("write", "write-r2t"):
            edtl = n * BS
            cdb = struct.pack(">BBIBHB", 0x2A, 0, lba, 0, n, 0)
            flags |= 0x20
            if kind == "write":
                data = bytes([rng.randrange(256)]) * min(edtl, 8192)
        elif kind == "capacity":
            edtl = 32
            cdb = bytes([0x9E, 0x10] + [0] * 8 + [0, 0, 0, 32, 0, 0])
            flags |= 0x40
        elif kind == "report-luns":
            edtl = rng.choice([16, 64, 0x10000])
            cdb = bytes([0xA0, 0, 0, 0, 0, 0]) + struct.pack(">I", edtl) + b"\0\0"
            flags |= 0x40
        elif kind == "sync":
            cdb = bytes([0x35] + [0] * 9)
        else:
            cdb = bytes(rng.randrange(256) for _ in range(16))
            edtl = rng.choice([0, 512, 4096, 1 << 20])
            flags |= rng.choice([0x00, 0x20, 0x40, 0x60])
        if rng.random() < 0.1:
            edtl = rng.randrange(0, 1 << 24)
        itt = fs.next_itt()
        op = OP_SCSI_CMD | (IMMEDIATE if rng.random() < 0.1 else 0)
        bhs = struct.pack(">BBH4x8sIIII", op, flags, 0, lun_field(lun), itt,
                          edtl, fs.cmdsn, fc.exp_statsn)
        bhs += bytes(cdb).ljust(16, b"\0")
        fs.sent = (fs.sent + [(itt, fs.cmdsn, lun)])[-16:]
        if not op & IMMEDIATE:
            fs.cmdsn = (fs.cmdsn + 1) & 0xFFFFFFFF
        return pdu(bhs, data)

    def data_out_pdu(self, fc):
        rng = self.rng
        if fc.r2t and rng.random() < 0.8:
            itt = rng.choice(list(fc.r2t))
            ttt, off, length, lun = fc.r2t.pop(itt)
        else:
            itt, ttt = rng.randrange(1 << 32), rng.randrange(1 << 32)
            off, length, lun = rng.randrange(1 << 20), 4096, bytes(8)
        if rng.random() < 0.2:
            off = rng.randrange(1 << 24)
        if rng.random() < 0.2:
            length = rng.randrange(1, 65536)
        final = 0x80 if rng.random() < 0.9 else 0
        bhs = struct.pack(">BBH4x8sIIIIIII4x", OP_DATA_OUT, final, 0, lun,
                          itt, ttt, 0, fc.exp_statsn, 0, 0, off)
        return pdu(bhs, b"\x5a" * min(length, 65536))

    def tmf_pdu(self, fc):
        fs, rng = fc.fs, self.rng
        # 7 is TARGET COLD RESET: it ends every session, rarely then
        function = rng.choice([1, 1, 1, 2, 4, 5, 6, 8, 3, 9, 0,
                               7 if rng.random() < 0.05 else 1])
        ref_itt, ref_cmdsn, lun = 0xFFFFFFFF, fs.cmdsn, rng.choice(self.luns)
        if fs.sent and rng.random() < 0.8:
            ref_itt, ref_cmdsn, lun = rng.choice(fs.sent)
        bhs = struct.pack(">BBH4x8sIIIIII8x", IMMEDIATE | OP_TMF,
                          0x80 | function, 0, lun_field(lun), fs.next_itt(),
                          ref_itt, fs.cmdsn, fc.exp_statsn, ref_cmdsn, 0)
        return pdu(bhs)

    def text_pdu(self, fc):
        rng = self.rng
        data = rng.choice([b"SendTargets=All\0", b"SendTargets=\0",
                           b"SendTargetsPlease=All\0", b"X-foo=bar\0",
                           b"MaxRecvDataSegmentLength=512\0",
                           bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))])
        flags = rng.choice([0x80, 0x40, 0x00, 0xC0])
        ttt = 0xFFFFFFFF if rng.random() < 0.8 else rng.randrange(1 << 32)
        bhs = struct.pack(">BBH4x8sIIII", IMMEDIATE | OP_TEXT, flags, 0,
                          bytes(8), fc.fs.next_itt(), ttt, fc.fs.cmdsn,
                          fc.exp_statsn)
        return pdu(bhs, data)

    def nop_pdu(self, fc):
        rng = self.rng
        itt = fc.fs.next_itt() if rng.random() < 0.8 else 0xFFFFFFFF
        ttt = 0xFFFFFFFF if rng.random() < 0.9 else rng.randrange(1 << 32)
        bhs = struct.pack(">BBH4x8sIIII", IMMEDIATE | OP_NOP_OUT, 0x80, 0,
                          bytes(8), itt, ttt, fc.fs.cmdsn, fc.exp_statsn)
        return pdu(bhs, b"\x11" * rng.choice([0, 4, 100, 4096, 65536]))

    def logout_pdu(self, fc):
        rng = self.rng
        reason = rng.choice([0, 1, 1, 2, 3])
        cid = rng.choice([fc.cid, 1, 2, 3])
        bhs = struct.pack(">BBH4x8sIHHII", IMMEDIATE | OP_LOGOUT,
                          0x80 | reason, 0, bytes(8), fc.fs.next_itt(), cid, 0,
                          fc.fs.cmdsn, fc.exp_statsn)
        return pdu(bhs)

    def snack_pdu(self, fc):
        rng = self.rng
        bhs = struct.pack(">BBH4x8sIIIIII8x", OP_SNACK, 0x80 | rng.randrange(4),
                          0, bytes(8), rng.choice([0xFFFFFFFF, fc.fs.itt]),
                          0xFFFFFFFF, 0, fc.exp_statsn, rng.randrange(8),
                          rng.randrange(8))
        return pdu(bhs)

    def mutate(self, data):
        """Flip bytes of the header, lie about the lengths, add AHS."""
        rng = self.rng
        b = bytearray(data)
        for _ in range(rng.randrange(1, 5)):
            b[rng.randrange(1, 48)] = rng.randrange(256)
        if rng.random() < 0.3:
            b[0] = (b[0] & 0xC0) | rng.randrange(64)
        if rng.random() < 0.2:
            b[4] = rng.choice([0, 1, 4, 255])
        if rng.random() < 0.2:
            b[5:8] = rng.randrange(1 << 24).to_bytes(3, "big")
        return bytes(b)

    def step(self):
        rng = self.rng
        r = rng.random()
        if not self.sessions or (r < 0.05 and len(self.sessions) < 4):
            self.new_session()
            return
        if r < 0.08:
            self.add_connection()
            return
        fs = rng.choice(self.sessions)
        fc = rng.choice(fs.conns)
        if r < 0.13:
            self.close(fc, rng.choice(["clean", "reset", "mid-pdu",
                                       "mid-data-out", "cmdsn-gap",
                                       "tmf-outstanding", "after-logout"]))
            return
        kind = rng.choice(["scsi"] * 6 + ["data-out"] * 3 + ["tmf", "text",
                          "nop", "logout", "snack", "junk"])
        if kind == "scsi":
            data = self.scsi_pdu(fc, rng.choice(self.luns + [rng.randrange(64)]))
        elif kind == "data-out":
            data = self.data_out_pdu(fc)
        elif kind == "tmf":
            data = self.tmf_pdu(fc)
        elif kind == "text":
            data = self.text_pdu(fc)
        elif kind == "nop":
            data = self.nop_pdu(fc)
        elif kind == "logout":
            data = self.logout_pdu(fc)
        elif kind == "snack":
            data = self.snack_pdu(fc)
        else:
            data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
        if kind != "junk" and rng.random() < 0.15:
            data = self.mutate(data)
            kind += " (mutated)"
        self.count("sent: " + kind)
        try:
            if not fc.send(data):
                self.count("target stopped reading")
            fc.drain(rng)
        except (OSError, EOFError):
            self.closed_by_target(fc)

    def closed_by_target(self, fc):
        self.count("closed by the target")
        try:
            fc.sock.close()
        except OSError:
            pass
        fc.fs.conns.remove(fc)
        if not fc.fs.conns:
            self.sessions.remove(fc.fs)

    def drain_all(self):
        for fs in list(self.sessions):
            for fc in list(fs.conns):
                try:
                    fc.drain(self.rng)
                except (OSError, EOFError):
                    self.closed_by_target(fc)

    def close_all(self):
        for fs in list(self.sessions):
            for fc in list(fs.conns):
                self.close(fc, "clean")

    # ---- the target must keep serving ----

    def health(self):
        for attempt in range(3):
            try:
                s = None
                s = Session(self.addr)
                s.login(self.target, HEALTH_INITIATOR, settle=False)
                bad = []
                for lun in self.luns:
                    st = s.settle(lun)
                    if st == 0:
                        st, _, _ = s.read_block(lun, 0, BS)
                    if st != 0:
                        bad.append("LUN %d status %#x" % (lun, st))
                if not bad:
                    self.count("health checks passed")
                    return True
                why = ", ".join(bad)
            except (RuntimeError, OSError, EOFError, TimeoutError) as e:
                why = "%s: %s" % (type(e).__name__, e)
            finally:
                if s:
                    s.sock.close()
            # what waits, while it still waits
            print("health check attempt %d failed: %s" % (attempt + 1, why),
                  flush=True)
            if attempt == 0:
                snapshot()
            # a reset from a fuzzed session may have caught it
            time.sleep(1 + attempt)
        self.failures.append(why)
        print("health check failed: %s" % why, flush=True)
        snapshot()
        return False


def snapshot():
    """What the target holds when a health check fails: its object counts,
    its commands in flight, the stack of every task inside ktarget, and the
    blocked tasks' stacks in the kernel log (sysrq w)."""
    try:
        for name in ("objects", "commands"):
            with open("/sys/kernel/debug/ktarget/" + name) as f:
                for line in f:
                    print("  %s: %s" % (name, line.rstrip()))
    except OSError as e:
        print("  no snapshot: %s" % e, flush=True)
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stack" % pid) as f:
                stack = f.read()
            with open("/proc/%s/comm" % pid) as f:
                comm = f.read().strip()
            with open("/proc/%s/wchan" % pid) as f:
                wchan = f.read().strip()
        except OSError:
            continue
        if "kt_" in stack or "kt_" in wchan:
            print("  task %s %s:" % (pid, comm))
            for line in stack.splitlines():
                print("    " + line)
    try:
        with open("/proc/sysrq-trigger", "w") as f:
            f.write("w")
        print("  blocked tasks: see the kernel log (sysrq w)", flush=True)
    except OSError as e:
        print("  no sysrq: %s" % e, flush=True)


def main():
    addr, target, seconds, seed = sys.argv[1:5]
    luns = [int(x) for x in sys.argv[5:]] or [0]
    f = Fuzzer(addr, target, luns, int(seed))
    print("seed %s, %s s, LUNs %s" % (seed, seconds, luns), flush=True)
    end = time.monotonic() + float(seconds)
    next_health = time.monotonic() + 10
    steps = 0
    while time.monotonic() < end:
        f.step()
        steps += 1
        if steps % 16 == 0:
            f.drain_all()
        if time.monotonic() > next_health:
            f.health()
            next_health = time.monotonic() + 10
    f.close_all()
    healthy = f.health()
    print("%d steps" % steps)
    for k in sorted(f.stats):
        print("  %-32s %d" % (k, f.stats[k]))
    if f.failures:
        print("%d health checks failed" % len(f.failures))
    return 0 if healthy and not f.failures else 1


if __name__ == "__main__":
    sys.exit(main())
