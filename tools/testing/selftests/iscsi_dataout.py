#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Lost and corrupt Data-Out PDUs (RFC 7143 7.8, 7.9), sent by a bare
initiator that negotiates DataDigest=CRC32C:

  iscsi_dataout.py HOST:PORT TARGET INITIATOR LUN

1. WRITE(10) of two blocks at LBA 10 with good Data-Outs: GOOD.
2. The same with a DataSN gap (0, then 5): CHECK CONDITION, ABORTED
   COMMAND, PROTOCOL SERVICE CRC ERROR (B/47/05), connection kept.
3. One block whose Data-Out has a wrong data digest: a Reject (data
   digest error), then the same CHECK CONDITION.
4. READ(10) of LBA 10-11 returns what step 1 wrote, not what 2 and 3 sent.
5. TEST UNIT READY on the same connection: GOOD.

Prints one line per step; exits 0 when the target behaved, 1 if not.
"""
import struct
import sys
import time

from iscsi_raw import Conn, IMMEDIATE, OP_LOGIN, OP_LOGIN_RSP, OP_SCSI_CMD, \
    OP_SCSI_RSP, is_ping

OP_DATA_OUT, OP_DATA_IN, OP_R2T, OP_REJECT = 0x05, 0x25, 0x31, 0x3F
BLOCK = 512


def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


CRC_TABLE = _crc32c_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = CRC_TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


class DigestConn(Conn):
    """A connection whose PDUs carry a data digest once logged in."""

    def __init__(self, addr):
        super().__init__(addr)
        self.digest = False
        self.corrupt_next = False

    def send(self, bhs, data=b""):
        if not self.digest or not data:
            return super().send(bhs, data)
        bhs = bytearray(bhs)
        bhs[5:8] = len(data).to_bytes(3, "big")
        padded = data + b"\0" * ((-len(data)) % 4)
        crc = crc32c(padded) ^ (0xFFFFFFFF if self.corrupt_next else 0)
        self.corrupt_next = False
        self.sock.sendall(bytes(bhs) + padded + struct.pack("<I", crc))

    def recv(self, timeout):
        op, bhs, data = super().recv(timeout)
        if self.digest and data:
            crc = self.recv_exact(4, time.monotonic() + timeout)
            padded = data + b"\0" * ((-len(data)) % 4)
            if struct.unpack("<I", crc)[0] != crc32c(padded):
                raise RuntimeError("bad data digest from the target")
        return op, bhs, data

    def login_digest(self, target, initiator):
        keys = ["InitiatorName=" + initiator, "TargetName=" + target,
                "SessionType=Normal", "HeaderDigest=None",
                "DataDigest=CRC32C", "MaxRecvDataSegmentLength=65536",
                "ImmediateData=No", "InitialR2T=Yes"]
        data = ("\0".join(keys) + "\0").encode()
        bhs = struct.pack(">BBBBB3s6sHIHHII", IMMEDIATE | OP_LOGIN,
                          0x87, 0, 0, 0, b"\0\0\0",
                          bytes.fromhex("80000000beee"), 0, self.itt,
                          1, 0, self.cmdsn, self.exp_statsn)
        self.send(bhs + b"\0" * 16, data)
        op, rsp, text = self.recv(10)
        if op != OP_LOGIN_RSP or rsp[36] != 0:
            raise RuntimeError("login refused")
        if rsp[1] & 0x83 != 0x83:
            raise RuntimeError("login did not reach full feature phase")
        if b"DataDigest=CRC32C" not in text:
            raise RuntimeError("DataDigest=CRC32C not accepted")
        self.exp_statsn = struct.unpack(">I", rsp[24:28])[0] + 1
        self.digest = True

    def command(self, lun, cdb, flags, length):
        self.itt += 1
        bhs = struct.pack(">BBH4xBB6sIIII", OP_SCSI_CMD, 0x80 | flags | 1,
                          0, 0, lun, b"\0" * 6, self.itt, length,
                          self.cmdsn, self.exp_statsn)
        self.cmdsn += 1
        self.send(bhs + bytes(cdb).ljust(16, b"\0"))
        return self.itt

    def next_pdu(self):
        while True:
            op, bhs, data = self.recv(10)
            if is_ping(op, bhs):
                self.nop_out_answer(bhs)
                continue
            if op == OP_SCSI_RSP or (op == OP_DATA_IN and bhs[1] & 0x01):
                self.exp_statsn = struct.unpack(">I", bhs[24:28])[0] + 1
            return op, bhs, data

    def data_out(self, lun, itt, ttt, datasn, offset, data, final):
        bhs = struct.pack(">BBH4xBB6sIIIIIII4x", OP_DATA_OUT,
                          0x80 if final else 0, 0, 0, lun, b"\0" * 6, itt,
                          ttt, 0, self.exp_statsn, 0, datasn, offset)
        self.send(bhs, data)


def status_of(bhs, data):
    """(status, sense key, ASC, ASCQ) of a SCSI Response."""
    if len(data) >= 16:
        return bhs[3], data[4] & 0x0F, data[14], data[15]
    return bhs[3], 0, 0, 0


def write(c, lun, lba, payload, datasns, bad_digest=False):
    """WRITE(10) @payload at @lba, its Data-Outs numbered @datasns."""
    blocks = len(payload) // BLOCK
    cdb = [0x2A, 0] + list(lba.to_bytes(4, "big")) + [0, 0, blocks, 0]
    itt = c.command(lun, cdb, 0x20, len(payload))
    rejects = []
    while True:
        op, bhs, data = c.next_pdu()
        if op == OP_REJECT:
            rejects.append(bhs[2])
            continue
        if op == OP_SCSI_RSP:
            return status_of(bhs, data), rejects
        if op != OP_R2T:
            raise RuntimeError("unexpected opcode %#x" % op)
        ttt, off, want = struct.unpack(">I16xII", bhs[20:48])
        for n, pos in enumerate(range(off, off + want, BLOCK)):
            last = pos + BLOCK >= off + want
            c.corrupt_next = bad_digest
            c.data_out(lun, itt, ttt, datasns[n], pos,
                       payload[pos:pos + BLOCK], last)


def read(c, lun, lba, blocks):
    cdb = [0x28, 0] + list(lba.to_bytes(4, "big")) + [0, 0, blocks, 0]
    c.command(lun, cdb, 0x40, blocks * BLOCK)
    got = b""
    while True:
        op, bhs, data = c.next_pdu()
        if op == OP_DATA_IN:
            got += data
            if bhs[1] & 0x01:
                return bhs[3], got
        elif op == OP_SCSI_RSP:
            return bhs[3], got
        else:
            raise RuntimeError("unexpected opcode %#x" % op)


def main():
    addr, target, initiator, lun = sys.argv[1:5]
    lun = int(lun)
    c = DigestConn(addr)
    c.login_digest(target, initiator)
    c.settle(lun)
    good = bytes((i * 7) & 0xFF for i in range(2 * BLOCK))
    bad = b"\xee" * (2 * BLOCK)
    fails = 0

    st, _ = write(c, lun, 10, good, [0, 1])
    print("good write: status %#x" % st[0])
    fails += st[0] != 0

    st, _ = write(c, lun, 10, bad, [0, 5])
    print("DataSN gap: status %#x sense %x/%02x/%02x" % st)
    fails += st != (0x02, 0x0B, 0x47, 0x05)

    st, rej = write(c, lun, 11, bad[:BLOCK], [0], bad_digest=True)
    print("bad data digest: rejects %s, status %#x sense %x/%02x/%02x" %
          ((rej,) + st))
    fails += rej != [0x02] or st != (0x02, 0x0B, 0x47, 0x05)

    st, got = read(c, lun, 10, 2)
    print("read back: status %#x, %s" %
          (st, "the good data" if got == good else "NOT the good data"))
    fails += st != 0 or got != good

    c.command(lun, [0] * 6, 0, 0)
    op, bhs, _ = c.next_pdu()
    print("TEST UNIT READY after the errors: opcode %#x status %#x" %
          (op, bhs[3]))
    fails += op != OP_SCSI_RSP or bhs[3] != 0
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
