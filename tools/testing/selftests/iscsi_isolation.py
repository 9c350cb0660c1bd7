#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Initiators that behave, beside one that does not, on LUN 0 (a 64 MiB rd
LU of 512-byte blocks).

  iscsi_isolation.py good HOST:PORT TARGET INDEX SECONDS
      initiator ...:good-INDEX, in 8 MiB of its own at INDEX * 8 MiB: for
      SECONDS, WRITE (16) 64 KiB of a pattern, READ it back and compare;
      every tenth round also an EXTENDED COPY and a POPULATE TOKEN + WRITE
      USING TOKEN inside its area, read back and compared too. Prints
      "good INDEX: N rounds, E errors, K KiB/s" and each error; exits 1 on
      any error (a status other than GOOD, a miscompare, a lost connection).
  iscsi_isolation.py hostile HOST:PORT TARGET SECONDS
      initiator ...:hostile, for SECONDS, at once: TARGET WARM and COLD
      RESET every second; 16 EXTENDED COPY commands of 8 MiB kept in flight;
      POPULATE TOKEN with a 600 s inactivity timeout, 200 of them; four
      sessions that send READs of 1 MiB and never read their socket; 1000
      connections from 127.0.0.3 that send nothing; 50 sessions under as
      many ISIDs. It stays in 32-64 MiB of the LU. Prints what it got,
      and the CPU time it used. KT_HOSTILE_MODES="copies tokens" runs those
      alone (resets, copies, tokens, slow-readers, silent, isids). The
      silent connections come from KT_SILENT_FROM (default 127.0.0.3: an
      address of their own, beside a target on 127.0.0.1).

Run both kinds at once (tests/44-isolation.sh): the good ones must see no
error; their rate alone and beside the hostile one is reported.
"""
import os
import resource
import socket
import struct
import sys
import threading
import time

from iscsi_raw import Session

BS = 512
GOOD, BUSY = 0x00, 0x08
MIB = 1 << 20


def write16(lba, blocks):
    return bytes([0x8A, 0]) + struct.pack(">QI", lba, blocks) + b"\0\0"


def read16(lba, blocks):
    return bytes([0x88, 0]) + struct.pack(">QI", lba, blocks) + b"\0\0"


def naa_of(c, lun):
    st, _, page = c.wait(c.command(lun, [0x12, 0x01, 0x83, 0x01, 0x00, 0],
                                   read_len=256))
    off, end = 4, 4 + struct.unpack(">H", page[2:4])[0]
    while st == GOOD and off + 4 <= min(end, len(page)):
        _, kind, _, n = page[off:off + 4]
        if (kind & 0x30) == 0 and (kind & 0x0F) == 3:
            return page[off + 4:off + 4 + n]
        off += 4 + n
    raise RuntimeError("no NAA designator")


def xcopy_param(naa, src, dst, blocks):
    """LID1, LIST ID USAGE 11b: @blocks from LBA @src to LBA @dst of @naa."""
    d = bytearray(32)
    d[0], d[4], d[5], d[7] = 0xE4, 0x01, 0x03, len(naa)
    d[8:8 + len(naa)] = naa
    d[28:32] = struct.pack(">I", BS)
    seg = struct.pack(">BBHHHHHQQ", 0x02, 0, 24, 0, 0, 0, blocks, src, dst)
    return struct.pack(">BBHIII", 0, 0x18, 32, 0, len(seg), 0) + bytes(d) + seg


def xcopy_cdb(param):
    return bytes([0x83, 0]) + b"\0" * 8 + struct.pack(">I", len(param)) + \
        b"\0\0"


def populate_param(lba, blocks, timeout):
    body = struct.pack(">BxIIxxH", 0, timeout, 0, 16) + \
        struct.pack(">QI4x", lba, blocks)
    return struct.pack(">H", len(body)) + body


def pt_cdb(list_id, plen):
    return bytes([0x83, 0x10, 0, 0, 0, 0]) + \
        struct.pack(">II", list_id, plen) + b"\0\0"


def login(addr, target, name, isid=None):
    c = Session(addr)
    if isid:
        c.isid = isid
    c.login(target, name)
    return c


class Good:
    def __init__(self, addr, target, index):
        self.c = login(addr, target, target + ":good-%d" % index)
        self.base = index * 8 * MIB // BS
        self.errors = []
        self.naa = naa_of(self.c, 0)

    def expect(self, what, st):
        if st[0] != GOOD:
            self.errors.append("%s: status %#x sense %x/%02x/%02x" %
                               ((what, st[0]) + st[1]))
        return st[0] == GOOD

    def check(self, what, lba, data):
        st = self.c.wait(self.c.command(0, read16(lba, len(data) // BS),
                                        read_len=len(data)), 60)
        if self.expect("READ after " + what, st) and st[2] != data:
            self.errors.append("%s: read back differs" % what)

    def round(self, n):
        c, blocks = self.c, 64 * 1024 // BS
        lba = self.base + (n % 64) * blocks
        data = (struct.pack(">QQ", n, lba) * (64 * 1024 // 16))
        if not self.expect("WRITE", c.wait(c.command(0, write16(lba, blocks),
                                                     out=data), 60)):
            return
        self.check("WRITE", lba, data)
        if n % 10:
            return
        # a copy of that chunk to the area's last 64 KiB
        dst = self.base + 8 * MIB // BS - blocks
        p = xcopy_param(self.naa, lba, dst, blocks)
        if self.expect("EXTENDED COPY",
                       c.wait(c.command(0, xcopy_cdb(p), p), 60)):
            self.check("EXTENDED COPY", dst, data)
        # a token of it, written to the second last 64 KiB (not on a
        # target without tokens: KT_GOOD_TOKENS=0)
        if os.environ.get("KT_GOOD_TOKENS") == "0":
            return
        p = populate_param(lba, blocks, 10)
        if not self.expect("POPULATE TOKEN",
                           c.wait(c.command(0, pt_cdb(1, len(p)), p), 60)):
            return
        cdb = bytes([0x84, 0x07]) + struct.pack(">I4xI", 1, 1024) + b"\0\0"
        st = c.wait(c.command(0, cdb, read_len=1024), 60)
        if not self.expect("RECEIVE ROD TOKEN INFORMATION", st):
            return
        d = st[2]
        at = 32 + d[13]
        token = d[at + 6:at + 6 + 512]
        dst -= blocks
        body = struct.pack(">BxxxxxQ", 0, 0) + token + b"\0" * 6 + \
            struct.pack(">H", 16) + struct.pack(">QI4x", dst, blocks)
        p = struct.pack(">H", len(body)) + body
        cdb = bytes([0x83, 0x11, 0, 0, 0, 0]) + struct.pack(">II", 2, len(p)) + \
            b"\0\0"
        if self.expect("WRITE USING TOKEN", c.wait(c.command(0, cdb, p), 60)):
            self.check("WRITE USING TOKEN", dst, data)


def good(addr, target, index, seconds):
    g = Good(addr, target, int(index))
    end = time.monotonic() + float(seconds)
    n = 0
    t0 = time.monotonic()
    try:
        while time.monotonic() < end:
            g.round(n)
            n += 1
    except (TimeoutError, EOFError, ConnectionError, RuntimeError) as e:
        g.errors.append("the session: %r" % e)
    took = time.monotonic() - t0
    print("good %s: %d rounds, %d errors, %.0f KiB/s" %
          (index, n, len(g.errors), n * 128 / took))
    for e in g.errors[:10]:
        print("good %s: %s" % (index, e))
    return 0 if not g.errors else 1


def resets(addr, target, end, got):
    c = login(addr, target, target + ":hostile", os.urandom(6))
    while time.monotonic() < end:
        for fn in (0x06, 0x07):		# TARGET WARM / COLD RESET
            got["resets"].append(c.wait(c.tmf(fn, 0), 30))
        c.pump_for(1)


def copies(addr, target, end, got):
    c = login(addr, target, target + ":hostile", os.urandom(6))
    naa = naa_of(c, 0)
    p = xcopy_param(naa, 32 * MIB // BS, 48 * MIB // BS, 8 * MIB // BS)
    pending = set()
    while time.monotonic() < end:
        while len(pending) < 16:
            pending.add(c.command(0, xcopy_cdb(p), p))
        c.pump(30)
        for itt in [i for i in pending if i in c.rsp]:
            pending.discard(itt)
            st = c.rsp.pop(itt)[0]
            got["copies"][st] = got["copies"].get(st, 0) + 1
    c.sock.close()


def tokens(addr, target, end, got):
    c = login(addr, target, target + ":hostile", os.urandom(6))
    for i in range(200):
        if time.monotonic() > end:
            break
        p = populate_param(32 * MIB // BS + i, 1, 600)
        st = c.wait(c.command(0, pt_cdb(100 + i, len(p)), p), 30)[0]
        got["tokens"][st] = got["tokens"].get(st, 0) + 1
    c.hold(max(0, end - time.monotonic()))


def slow_readers(addr, target, end, got):
    held = []
    for _ in range(4):
        c = login(addr, target, target + ":hostile", os.urandom(6))
        c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        for k in range(8):
            c.command(0, read16(32 * MIB // BS + k * 2048, 2048),
                      read_len=MIB)
        held.append(c)
    got["slow readers"] = len(held)
    time.sleep(max(0, end - time.monotonic()))
    for c in held:
        c.sock.close()


def silent(addr, target, end, got):
    host, port = addr.rsplit(":", 1)
    socks = []
    for _ in range(1000):
        s = socket.socket()
        s.bind((os.environ.get("KT_SILENT_FROM", "127.0.0.3"), 0))
        try:
            s.connect((host, int(port)))
        except OSError:
            s.close()
            continue
        socks.append(s)
        # so far: a target whose backlog is full leaves connect() waiting
        got["silent connections"] = len(socks)
    time.sleep(max(0, end - time.monotonic()))
    for s in socks:
        s.close()


def isids(addr, target, end, got):
    held = []
    for _ in range(50):
        try:
            held.append(login(addr, target, target + ":hostile",
                              os.urandom(6)))
        except (RuntimeError, OSError, TimeoutError, EOFError) as e:
            got["isid logins refused"] = repr(e)
            break
    got["isid sessions"] = len(held)
    for c in held:
        c.hold(max(0, end - time.monotonic()) / len(held))
    for c in held:
        c.sock.close()


def hostile(addr, target, seconds):
    # 1000 silent connections and 60 sessions: more than 1024 descriptors
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 4096 if hard == resource.RLIM_INFINITY else min(4096, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    start = time.monotonic()
    end = start + float(seconds)
    got = {"resets": [], "copies": {}, "tokens": {}}
    modes = (resets, copies, tokens, slow_readers, silent, isids)
    # KT_HOSTILE_MODES="copies tokens": those alone (what costs the others most)
    only = os.environ.get("KT_HOSTILE_MODES", "").replace("-", "_").split()
    if only:
        modes = [fn for fn in modes if fn.__name__ in only]
    threads = [threading.Thread(target=fn, args=(addr, target, end, got),
                                daemon=True)
               for fn in modes]
    for t in threads:
        t.start()
    for t in threads:
        t.join(float(seconds) + 120)
    print("hostile: target resets answered %s" %
          sorted(set(r for r in got["resets"])))
    for k in sorted(got):
        if k != "resets":
            print("hostile: %s: %s" % (k, got[k]))
    # what this client cost its CPU (bench/isolation.sh reports it)
    ru = resource.getrusage(resource.RUSAGE_SELF)
    print("hostile: cpu %.2f s user, %.2f s system, over %.2f s" %
          (ru.ru_utime, ru.ru_stime, time.monotonic() - start))
    return 0


def main():
    mode, addr, target = sys.argv[1:4]
    if mode == "good":
        return good(addr, target, sys.argv[4], sys.argv[5])
    if mode == "hostile":
        return hostile(addr, target, sys.argv[4])
    print("unknown mode " + mode)
    return 2


if __name__ == "__main__":
    sys.exit(main())
