#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# EXTENDED COPY (LID1) parameter lists built by hand for the guest tests,
# sent with sg_raw: several segments in one command, different block sizes,
# designators of devices the initiator cannot reach.
#
#   xcopy.py naa DEV
#       the NAA designator (hex) of DEV's Device Identification VPD page
#   xcopy.py copy [--ro] [--split] [--list-id N] [--usage U] DEV CSCD... -- SEG...
#       send EXTENDED COPY to DEV. CSCD: a block device (its NAA designator
#       is read) or naa:HEX. SEG: SRC:DST:BLOCKS:SRC_LBA:DST_LBA[:dc], SRC
#       and DST index the CSCD list (ffff: DEV itself). Prints sg_raw's
#       output; the exit status is sg_raw's. --split: one command per
#       segment, sent from this process with the SG_IO ioctl (no program
#       started per command), and "cpu_ns=C ns=N" at the end: the CPU time
#       all CPUs of the machine spent busy meanwhile, and the time they took.
import ctypes
import fcntl
import os
import struct
import subprocess
import sys
import tempfile
import time


def naa_of(dev):
    # INQUIRY, EVPD, page 83h, 1 KiB
    with tempfile.NamedTemporaryFile() as f:
        subprocess.run(["sg_raw", "-R", "-r", "1024", "-o", f.name, dev,
                        "12", "01", "83", "04", "00", "00"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        page = open(f.name, "rb").read()
    off, end = 4, 4 + struct.unpack(">H", page[2:4])[0]
    while off + 4 <= min(end, len(page)):
        code_set, kind, _, n = page[off:off + 4]
        # association 0 (the logical unit), designator type 3 (NAA)
        if (kind & 0x30) == 0 and (kind & 0x0f) == 3:
            return page[off + 4:off + 4 + n]
        off += 4 + n
    raise SystemExit(f"{dev}: no NAA designator in VPD page 83h")


def cscd(naa):
    d = bytearray(32)
    d[0] = 0xE4                      # identification descriptor
    d[4] = 0x01                      # code set: binary
    d[5] = 0x03                      # association 0, designator type NAA
    d[7] = len(naa)
    d[8:8 + len(naa)] = naa
    return bytes(d)


def segment(spec):
    f = spec.split(":")
    src, dst = int(f[0], 16), int(f[1], 16)
    blocks, slba, dlba = int(f[2]), int(f[3]), int(f[4])
    dc = 0x02 if len(f) > 5 and f[5] == "dc" else 0
    return struct.pack(">BBHHHHHQQ", 0x02, dc, 24, src, dst, 0, blocks,
                       slba, dlba)


def send(dev, ro, param):
    with tempfile.NamedTemporaryFile(delete=False) as f:
        f.write(param)
    cdb = [0x83, 0, 0, 0, 0, 0, 0, 0, 0, 0] + list(struct.pack(">I", len(param))) + [0, 0]
    cmd = ["sg_raw"] + (["-R"] if ro else []) + ["-s", str(len(param)), "-i", f.name, dev] + \
        ["%02x" % b for b in cdb]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    os.unlink(f.name)
    sys.stdout.write(r.stdout.decode(errors="replace"))
    return r.returncode


class SgIoHdr(ctypes.Structure):
    # struct sg_io_hdr, <scsi/sg.h>
    _fields_ = [("interface_id", ctypes.c_int), ("dxfer_direction", ctypes.c_int),
                ("cmd_len", ctypes.c_ubyte), ("mx_sb_len", ctypes.c_ubyte),
                ("iovec_count", ctypes.c_ushort), ("dxfer_len", ctypes.c_uint),
                ("dxferp", ctypes.c_void_p), ("cmdp", ctypes.c_void_p),
                ("sbp", ctypes.c_void_p), ("timeout", ctypes.c_uint),
                ("flags", ctypes.c_uint), ("pack_id", ctypes.c_int),
                ("usr_ptr", ctypes.c_void_p), ("status", ctypes.c_ubyte),
                ("masked_status", ctypes.c_ubyte), ("msg_status", ctypes.c_ubyte),
                ("sb_len_wr", ctypes.c_ubyte), ("host_status", ctypes.c_ushort),
                ("driver_status", ctypes.c_ushort), ("resid", ctypes.c_int),
                ("duration", ctypes.c_uint), ("info", ctypes.c_uint)]


SG_IO = 0x2285
SG_DXFER_TO_DEV = -2


def cpu_busy_ns():
    # /proc/stat: user nice system idle iowait irq softirq steal, in ticks
    f = [int(v) for v in open("/proc/stat").readline().split()[1:9]]
    busy = f[0] + f[1] + f[2] + f[5] + f[6] + f[7]
    return busy * 1000000000 // os.sysconf("SC_CLK_TCK")


def send_sgio(fd, param):
    """EXTENDED COPY with @param through SG_IO on @fd; 0 when GOOD."""
    cdb = (ctypes.c_ubyte * 16)(0x83, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                *struct.pack(">I", len(param)), 0, 0)
    buf = ctypes.create_string_buffer(param, len(param))
    sense = (ctypes.c_ubyte * 32)()
    h = SgIoHdr(interface_id=ord("S"), dxfer_direction=SG_DXFER_TO_DEV,
                cmd_len=16, mx_sb_len=32, dxfer_len=len(param),
                dxferp=ctypes.addressof(buf), cmdp=ctypes.addressof(cdb),
                sbp=ctypes.addressof(sense), timeout=600000)
    fcntl.ioctl(fd, SG_IO, h)
    if h.status or h.host_status or h.driver_status:
        print("EXTENDED COPY: status %#x host %#x driver %#x sense %s" %
              (h.status, h.host_status, h.driver_status,
               bytes(sense[:h.sb_len_wr]).hex()))
        return 1
    return 0


def copy(args):
    ro, split, list_id, usage = False, False, 0, 3
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--ro":
            ro = True
        elif opt == "--split":
            split = True
        elif opt == "--list-id":
            list_id = int(args.pop(0))
        elif opt == "--usage":
            usage = int(args.pop(0))
    dev = args.pop(0)
    sep = args.index("--")
    targets, segs = args[:sep], args[sep + 1:]
    cscds = b"".join(cscd(bytes.fromhex(t[4:]) if t.startswith("naa:")
                          else naa_of(t)) for t in targets)
    lists = [[s] for s in segs] if split else [segs]
    params = []
    for part in lists:
        seglist = b"".join(segment(s) for s in part)
        hdr = struct.pack(">BBHIII", list_id, usage << 3, len(cscds), 0,
                          len(seglist), 0)
        params.append(hdr + cscds + seglist)
    if not split:
        return send(dev, ro, params[0])
    fd = os.open(dev, os.O_RDONLY if ro else os.O_RDWR)
    c0 = cpu_busy_ns()
    t0 = time.monotonic_ns()
    for param in params:
        rc = send_sgio(fd, param)
        if rc:
            os.close(fd)
            return rc
    ns = time.monotonic_ns() - t0
    print("cpu_ns=%d ns=%d" % (cpu_busy_ns() - c0, ns))
    os.close(fd)
    return 0


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "naa":
        print(naa_of(sys.argv[2]).hex())
        return 0
    if len(sys.argv) >= 3 and sys.argv[1] == "copy":
        return copy(sys.argv[2:])
    sys.stderr.write(__doc__ if __doc__ else "usage: see the header\n")
    return 2


if __name__ == "__main__":
    sys.exit(main())
