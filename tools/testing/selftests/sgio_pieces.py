#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# sgio_pieces.py DISK FILE PIECE CDB-HEX...: sends CDB to the block device
# DISK through SG_IO with FILE's bytes as its data-out buffer, given as an
# iovec of PIECE-byte pieces, each at the start of a page of its own. The
# block layer maps such a buffer as it is (no copy), so the fabric below
# sees one scatterlist entry per piece: what a loopback or vhost initiator
# may hand the target, and what a page-sized buffer never shows.
# Prints the status and the sense; exits 0 when GOOD.

import ctypes
import fcntl
import mmap
import os
import sys

from xcopy import SG_DXFER_TO_DEV, SG_IO, SgIoHdr


class SgIovec(ctypes.Structure):
    _fields_ = [("iov_base", ctypes.c_void_p), ("iov_len", ctypes.c_size_t)]


def main():
    disk, path, piece = sys.argv[1], sys.argv[2], int(sys.argv[3])
    cdb_bytes = bytes(int(b, 16) for b in sys.argv[4:])
    data = open(path, "rb").read()
    pages = (len(data) + piece - 1) // piece
    area = mmap.mmap(-1, pages * mmap.PAGESIZE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(area))
    iov = (SgIovec * pages)()
    for i in range(pages):
        chunk = data[i * piece:(i + 1) * piece]
        area[i * mmap.PAGESIZE:i * mmap.PAGESIZE + len(chunk)] = chunk
        iov[i].iov_base = base + i * mmap.PAGESIZE
        iov[i].iov_len = len(chunk)
    cdb = (ctypes.c_ubyte * len(cdb_bytes))(*cdb_bytes)
    sense = (ctypes.c_ubyte * 96)()
    h = SgIoHdr(interface_id=ord("S"), dxfer_direction=SG_DXFER_TO_DEV,
                cmd_len=len(cdb_bytes), mx_sb_len=96, iovec_count=pages,
                dxfer_len=len(data), dxferp=ctypes.addressof(iov),
                cmdp=ctypes.addressof(cdb), sbp=ctypes.addressof(sense),
                timeout=120000)
    fd = os.open(disk, os.O_RDWR)
    try:
        fcntl.ioctl(fd, SG_IO, h)
    except OSError as e:
        print("SG_IO: %s" % e)
        return 2
    finally:
        os.close(fd)
    print("%d pieces of %d bytes: status %#x host %#x driver %#x sense %s" %
          (pages, piece, h.status, h.host_status, h.driver_status,
           bytes(sense[:h.sb_len_wr]).hex() or "none"))
    return 0 if not (h.status or h.host_status or h.driver_status) else 1


if __name__ == "__main__":
    sys.exit(main())
