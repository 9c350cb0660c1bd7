#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Token copy (ODX) through the Linux initiator's sg nodes, as Windows
sends it: POPULATE TOKEN on the source, RECEIVE ROD TOKEN INFORMATION for
the token, WRITE USING TOKEN on the destination, RRTI for its outcome.
(Debian 12's ddpt 0.97 cannot: see Documentation/xcopy.md.)

  odx.py copy SRC_SG SRC_LBA DST_SG DST_LBA BYTES [RTF]
      copy BYTES from SRC_LBA of SRC_SG to DST_LBA of DST_SG, one token per
      256 MiB; RTF: also write the (last) token to this file, as ddptctl's
      --rtf does. Prints "ns=N", the time the commands took. Exits 0 when
      every command and RRTI said GOOD and the transfer counts add up.
"""
import fcntl
import os
import struct
import sys
import time

from xcopy import SgIoHdr, SG_IO, SG_DXFER_TO_DEV
import ctypes

SG_DXFER_FROM_DEV = -3
TOKEN_BYTES = 256 << 20


def sgio(fd, cdb, out=None, read_len=0):
    """(status, sense bytes, data in) of @cdb through SG_IO on @fd"""
    cdbb = (ctypes.c_ubyte * len(cdb))(*cdb)
    n = len(out) if out is not None else read_len
    buf = ctypes.create_string_buffer(out if out is not None else b"", max(n, 1))
    sense = (ctypes.c_ubyte * 32)()
    h = SgIoHdr(interface_id=ord("S"),
                dxfer_direction=SG_DXFER_TO_DEV if out is not None else SG_DXFER_FROM_DEV,
                cmd_len=len(cdb), mx_sb_len=32, dxfer_len=n,
                dxferp=ctypes.addressof(buf), cmdp=ctypes.addressof(cdbb),
                sbp=ctypes.addressof(sense), timeout=600000)
    fcntl.ioctl(fd, SG_IO, h)
    if h.host_status or h.driver_status & ~0x08:
        raise RuntimeError("SG_IO: host %#x driver %#x" % (h.host_status, h.driver_status))
    return h.status, bytes(sense[:h.sb_len_wr]), buf.raw[:n - h.resid]


def block_size(fd):
    st, _, d = sgio(fd, [0x9E, 0x10] + [0] * 8 + [0, 0, 0, 32, 0, 0], read_len=32)
    if st:
        raise RuntimeError("READ CAPACITY (16): status %#x" % st)
    return struct.unpack(">I", d[8:12])[0]


def token_cmd(fd, sa, list_id, param, what):
    cdb = [0x83, sa, 0, 0, 0, 0] + list(struct.pack(">II", list_id, len(param))) + [0, 0]
    st, sense, _ = sgio(fd, cdb, out=param)
    if st:
        raise RuntimeError("%s: status %#x sense %s" % (what, st, sense.hex()))


def rrti(fd, list_id, want_sa):
    cdb = [0x84, 0x07] + list(struct.pack(">I4xI", list_id, 1024)) + [0, 0]
    st, sense, d = sgio(fd, cdb, read_len=1024)
    if st or len(d) < 36 or d[4] & 0x1F != want_sa or d[5] & 0x7F != 0x01:
        raise RuntimeError("RRTI: status %#x sense %s data %s" %
                           (st, sense.hex(), d[:40].hex()))
    count = struct.unpack(">Q", d[16:24])[0]
    at = 32 + d[13]
    tok = d[at + 6:at + 6 + 512] if struct.unpack(">I", d[at:at + 4])[0] > 2 else None
    return count, tok


def copy(src, slba, dst, dlba, nbytes, rtf=None):
    sfd, dfd = os.open(src, os.O_RDWR), os.open(dst, os.O_RDWR)
    sbs, dbs = block_size(sfd), block_size(dfd)
    done, tok = 0, None
    start = time.monotonic_ns()
    while done < nbytes:
        n = min(TOKEN_BYTES, nbytes - done)
        body = struct.pack(">BxIIxxH", 0, 0, 0, 16) + \
            struct.pack(">QI4x", slba + done // sbs, n // sbs)
        token_cmd(sfd, 0x10, 0x101, struct.pack(">H", len(body)) + body,
                  "POPULATE TOKEN")
        count, tok = rrti(sfd, 0x101, 0x10)
        if count != n // sbs or tok is None:
            raise RuntimeError("RRTI after POPULATE TOKEN: %d blocks" % count)
        body = struct.pack(">BxxxxxQ", 0x02, 0) + tok + b"\0" * 6 + \
            struct.pack(">H", 16) + struct.pack(">QI4x", dlba + done // dbs, n // dbs)
        token_cmd(dfd, 0x11, 0x102, struct.pack(">H", len(body)) + body,
                  "WRITE USING TOKEN")
        count, _ = rrti(dfd, 0x102, 0x11)
        if count != n // dbs:
            raise RuntimeError("RRTI after WRITE USING TOKEN: %d blocks" % count)
        done += n
    print("ns=%d" % (time.monotonic_ns() - start))
    if rtf:
        with open(rtf, "wb") as f:
            f.write(tok)
    return 0


def main():
    if len(sys.argv) < 7 or sys.argv[1] != "copy":
        print(__doc__)
        return 2
    try:
        return copy(sys.argv[2], int(sys.argv[3]), sys.argv[4],
                    int(sys.argv[5]), int(sys.argv[6]),
                    sys.argv[7] if len(sys.argv) > 7 else None)
    except RuntimeError as e:
        print(e)
        return 1


if __name__ == "__main__":
    sys.exit(main())
