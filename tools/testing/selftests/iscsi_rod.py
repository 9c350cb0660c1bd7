#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Token copy (ODX) through the bare initiator of iscsi_raw.py: what ddpt
cannot send. Two I_T nexuses, INITIATOR and INITIATOR.other, of TARGET.

  iscsi_rod.py CASE HOST:PORT TARGET INITIATOR SRC DST [WP_PORTAL WP_TARGET]

SRC and DST are LUNs with 512-byte blocks. CASE is one of:
  copy      POPULATE TOKEN on one nexus, RECEIVE ROD TOKEN INFORMATION, WRITE
            USING TOKEN on the other: GOOD, the data arrives, RRTI counts it
  forged    a token never made (random identifier): TOKEN UNKNOWN
  altered   a real token with one random byte changed: TOKEN CORRUPT; the
            token as it was still works
  expired   a token made with INACTIVITY TIMEOUT 1, used after 3 s: EXPIRED
  revoked   a write to one block of the source: TOKEN REVOKED; a write
            next to the ranges does not revoke
  unmap     UNMAP of blocks beside the token's, and a WRITE SAME of 0 blocks
            (refused: WSNZ), leave it working; UNMAP of one of its blocks:
            TOKEN REVOKED
  deleted   WRITE USING TOKEN with DEL_TKN, then again: TOKEN DELETED
  range     a range past the end, for either command: LBA OUT OF RANGE;
            more than the token holds: COPY TARGET DEVICE DATA UNDERRUN;
            OFFSET INTO ROD past it: INVALID FIELD IN PARAMETER LIST
  zero      the block device zero token writes zeroes
  reserved  the destination reserved (WRITE EXCLUSIVE) by the other nexus:
            RESERVATION CONFLICT, nothing written
  wp        WRITE USING TOKEN on the write-protected LUN 0 of WP_TARGET (at
            WP_PORTAL), a token of TARGET: DATA PROTECT
  limit     one nexus fills rod_tokens_per_lu (the caller set it to 4);
            another nexus's POPULATE TOKEN still works, at the cost of the
            hoarder's oldest token, and so does the hoarder's next one, at
            the cost of its own oldest
  inflight  SRC's writes take seconds (dm-delay): a WRITE is under way when
            POPULATE TOKEN of its blocks comes from the other nexus; the
            token then copies what a READ right after POPULATE TOKEN saw
            (or is revoked), not what the WRITE left later

Prints one line per finding; exits 0 when the target behaved, 1 if not.
"""
import os
import struct
import sys
import time

from iscsi_raw import Session

BS = 512
GOOD, CHECK, CONFLICT = 0x00, 0x02, 0x18
ILLEGAL, DATA_PROTECT = 0x05, 0x07
UNKNOWN, CORRUPT, REVOKED = (0x23, 0x04), (0x23, 0x05), (0x23, 0x06)
EXPIRED, DELETED = (0x23, 0x07), (0x23, 0x09)
LBA_RANGE, UNDERRUN = (0x21, 0x00), (0x0D, 0x04)
INVALID_PARAM, INSUFFICIENT = (0x26, 0x00), (0x55, 0x03)
INVALID_CDB = (0x24, 0x00)
ZERO_TOKEN = struct.pack(">I2xH", 0xFFFF0001, 0x1F8) + b"\0" * 504

found = []


def bad(what):
    found.append(what)
    print("not ok: " + what)


def ranges(rs):
    return b"".join(struct.pack(">QI4x", lba, n) for lba, n in rs)


def pt_cdb(list_id, plen):
    return bytes([0x83, 0x10, 0, 0, 0, 0]) + struct.pack(">II", list_id, plen) + b"\0\0"


def wut_cdb(list_id, plen):
    return bytes([0x83, 0x11, 0, 0, 0, 0]) + struct.pack(">II", list_id, plen) + b"\0\0"


def populate(c, lun, rs, list_id=1, timeout=0):
    """POPULATE TOKEN of ranges @rs: (status, sense)"""
    body = struct.pack(">BxIIxxH", 0, timeout, 0, 16 * len(rs)) + ranges(rs)
    param = struct.pack(">H", len(body)) + body
    st, sense, _ = c.wait(c.command(lun, pt_cdb(list_id, len(param)), out=param))
    return st, sense


def rrti(c, lun, list_id=1):
    """RECEIVE ROD TOKEN INFORMATION: (status, parameter data)"""
    cdb = bytes([0x84, 0x07]) + struct.pack(">I4xI", list_id, 1024) + b"\0\0"
    st, _, data = c.wait(c.command(lun, cdb, read_len=1024))
    return st, data


def token_of(c, lun, list_id=1):
    st, d = rrti(c, lun, list_id)
    if st != GOOD or len(d) < 32:
        bad("RRTI after POPULATE TOKEN: status %#x, %d bytes" % (st, len(d)))
        return None
    at = 32 + d[13]
    if struct.unpack(">I", d[at:at + 4])[0] != 514:
        bad("RRTI carries no token: %r" % d[:48].hex())
        return None
    return d[at + 6:at + 6 + 512]


def make_token(c, lun, rs, list_id=1, timeout=0):
    st, sense = populate(c, lun, rs, list_id, timeout)
    if st != GOOD:
        bad("POPULATE TOKEN: status %#x sense %x/%02x/%02x" % ((st,) + sense))
        return None
    return token_of(c, lun, list_id)


def write_using(c, lun, token, rs, list_id=2, offset=0, flags=0):
    """WRITE USING TOKEN: (status, sense)"""
    body = struct.pack(">BxxxxxQ", flags, offset) + token + b"\0" * 6 + \
        struct.pack(">H", 16 * len(rs)) + ranges(rs)
    param = struct.pack(">H", len(body)) + body
    st, sense, _ = c.wait(c.command(lun, wut_cdb(list_id, len(param)), out=param),
                          timeout=60)
    return st, sense


def read(c, lun, lba, n):
    cdb = bytes([0x88, 0]) + struct.pack(">QI", lba, n) + b"\0\0"
    st, _, data = c.wait(c.command(lun, cdb, read_len=n * BS))
    return data if st == GOOD else None


def write(c, lun, lba, data):
    cdb = bytes([0x8A, 0]) + struct.pack(">QI", lba, len(data) // BS) + b"\0\0"
    st, sense, _ = c.wait(c.command(lun, cdb, out=data))
    return st


def unmap(c, lun, rs):
    """UNMAP of the ranges @rs: (status, sense)"""
    descs = ranges(rs)
    param = struct.pack(">HH4x", 6 + len(descs), len(descs)) + descs
    cdb = bytes([0x42, 0, 0, 0, 0, 0, 0]) + struct.pack(">H", len(param)) + b"\0"
    st, sense, _ = c.wait(c.command(lun, cdb, out=param))
    return st, sense


def write_same_none(c, lun, lba):
    """WRITE SAME (16) of 0 blocks at @lba, one block of data: (status, sense)"""
    cdb = bytes([0x93, 0]) + struct.pack(">QI", lba, 0) + b"\0\0"
    st, sense, _ = c.wait(c.command(lun, cdb, out=b"\0" * BS))
    return st, sense


def expect(what, got, status, asc=None, key=ILLEGAL):
    st, sense = got
    if st != status or (asc and (sense[0], sense[1:]) != (key, asc)):
        bad("%s: status %#x sense %x/%02x/%02x" % ((what, st) + sense))


def fill(c, lun, lba, n):
    data = os.urandom(n * BS)
    if write(c, lun, lba, data) != GOOD:
        bad("WRITE of the source")
    return data


def case_copy(a, b, src, dst):
    data = fill(a, src, 1000, 16) + fill(a, src, 3000, 8)
    tok = make_token(a, src, [(1000, 16), (3000, 8)])
    if tok is None:
        return
    # the other nexus, two destination ranges split across the source ones
    expect("WRITE USING TOKEN from another nexus",
           write_using(b, dst, tok, [(5000, 4), (6000, 20)]), GOOD)
    if read(b, dst, 5000, 4) + read(b, dst, 6000, 20) != data:
        bad("the destination does not hold the source's data")
    st, d = rrti(b, dst, 2)
    if st != GOOD or d[4] & 0x1F != 0x11 or d[5] & 0x7F != 0x01 or \
       d[15] != 0xF1 or struct.unpack(">Q", d[16:24])[0] != 24:
        bad("RRTI of the WRITE USING TOKEN: %r" % d[:32].hex())
    # OFFSET INTO ROD: the last 8 blocks of the token's data
    expect("WRITE USING TOKEN with OFFSET INTO ROD",
           write_using(b, dst, tok, [(7000, 8)], offset=16), GOOD)
    if read(b, dst, 7000, 8) != data[16 * BS:]:
        bad("OFFSET INTO ROD copied the wrong blocks")


def case_forged(a, b, src, dst):
    tok = bytearray(os.urandom(512))
    tok[0:8] = struct.pack(">I2xH", 0x00800001, 0x1F8)
    expect("a forged token", write_using(b, dst, bytes(tok), [(0, 8)]),
           CHECK, UNKNOWN)


def case_altered(a, b, src, dst):
    tok = make_token(a, src, [(0, 8)])
    if tok is None:
        return
    alt = bytearray(tok)
    alt[300] ^= 0x01
    expect("an altered token", write_using(b, dst, bytes(alt), [(0, 8)]),
           CHECK, CORRUPT)
    alt = bytearray(tok)
    alt[60] ^= 0x80			# NUMBER OF BYTES REPRESENTED
    expect("a token claiming more bytes",
           write_using(b, dst, bytes(alt), [(0, 8)]), CHECK, CORRUPT)
    expect("the token as it was", write_using(b, dst, tok, [(0, 8)]), GOOD)


def case_expired(a, b, src, dst):
    tok = make_token(a, src, [(0, 8)], timeout=1)
    if tok is None:
        return
    time.sleep(3)
    expect("an expired token", write_using(b, dst, tok, [(0, 8)]),
           CHECK, EXPIRED)


def case_revoked(a, b, src, dst):
    tok = make_token(a, src, [(100, 8)])
    if tok is None:
        return
    write(a, src, 108, os.urandom(BS))		# next to it: no change
    expect("a token whose neighbour was written",
           write_using(b, dst, tok, [(0, 8)]), GOOD)
    write(b, src, 104, os.urandom(BS))		# inside it, from any nexus
    expect("a token whose source was written",
           write_using(b, dst, tok, [(0, 8)]), CHECK, REVOKED)


def case_unmap(a, b, src, dst):
    data = fill(a, src, 200, 8)
    tok = make_token(a, src, [(200, 8)])
    if tok is None:
        return
    expect("UNMAP of blocks beside the token's",
           unmap(a, src, [(100, 4), (208, 8)]), GOOD)
    expect("a token whose neighbours were unmapped",
           write_using(b, dst, tok, [(0, 8)]), GOOD)
    if read(b, dst, 0, 8) != data:
        bad("the token copied other data than its source held")
    expect("WRITE SAME of 0 blocks (WSNZ)", write_same_none(b, src, 100),
           CHECK, INVALID_CDB)
    expect("a token after a WRITE SAME that was refused",
           write_using(b, dst, tok, [(0, 8)]), GOOD)
    expect("UNMAP of one of the token's blocks",
           unmap(b, src, [(300, 1), (207, 1)]), GOOD)
    expect("a token whose source was unmapped",
           write_using(b, dst, tok, [(0, 8)]), CHECK, REVOKED)


def case_deleted(a, b, src, dst):
    tok = make_token(a, src, [(0, 8)])
    if tok is None:
        return
    expect("WRITE USING TOKEN with DEL_TKN",
           write_using(b, dst, tok, [(0, 8)], flags=0x02), GOOD)
    expect("a deleted token", write_using(b, dst, tok, [(0, 8)]),
           CHECK, DELETED)


def case_range(a, b, src, dst):
    last = a.read_capacity(src)[0]
    expect("POPULATE TOKEN past the end",
           populate(a, src, [(last - 3, 8)]), CHECK, LBA_RANGE)
    tok = make_token(a, src, [(0, 8)])
    if tok is None:
        return
    last = b.read_capacity(dst)[0]
    expect("WRITE USING TOKEN past the end",
           write_using(b, dst, tok, [(last - 3, 8)]), CHECK, LBA_RANGE)
    expect("more than the token holds",
           write_using(b, dst, tok, [(0, 9)]), CHECK, UNDERRUN)
    expect("OFFSET INTO ROD past the token",
           write_using(b, dst, tok, [(0, 1)], offset=8), CHECK, INVALID_PARAM)


def case_zero(a, b, src, dst):
    fill(b, dst, 400, 8)
    expect("the zero token", write_using(b, dst, ZERO_TOKEN, [(400, 8)]), GOOD)
    if read(b, dst, 400, 8) != b"\0" * 8 * BS:
        bad("the zero token left data")


def case_reserved(a, b, src, dst):
    key = struct.pack(">QQ", 0, 0xABC) + b"\0" * 8
    pro = bytes([0x5F, 0x00, 0, 0, 0, 0, 0, 0, 24, 0])
    old = read(b, dst, 800, 8)
    a.wait(a.command(dst, pro, out=key))			# REGISTER
    res = bytes([0x5F, 0x01, 0x01, 0, 0, 0, 0, 0, 24, 0])	# WRITE EXCLUSIVE
    a.wait(a.command(dst, res, out=struct.pack(">Q", 0xABC) + b"\0" * 16))
    tok = make_token(a, src, [(0, 8)])
    if tok is not None:
        expect("WRITE USING TOKEN to a LU another nexus reserved",
               write_using(b, dst, tok, [(800, 8)]), CONFLICT)
        if read(b, dst, 800, 8) != old:
            bad("the reserved destination was written")
    clear = bytes([0x5F, 0x03, 0, 0, 0, 0, 0, 0, 24, 0])
    a.wait(a.command(dst, clear, out=struct.pack(">Q", 0xABC) + b"\0" * 16))


def case_wp(a, b, src, dst, portal, target, initiator):
    tok = make_token(a, src, [(0, 8)])
    if tok is None:
        return
    c = Session(portal)
    c.login(target, initiator + ".wp")
    expect("WRITE USING TOKEN to a write-protected LUN",
           write_using(c, 0, tok, [(0, 8)]), CHECK, (0x27, 0x00), DATA_PROTECT)


def case_limit(a, b, src, dst):
    """rod_tokens_per_lu is 4: @a fills the table, @b still gets a token."""
    toks = [make_token(a, src, [(i * 8, 8)], list_id=10 + i) for i in range(4)]
    if None in toks:
        return
    expect("another nexus's POPULATE TOKEN, the table full of one nexus's",
           populate(b, src, [(64, 8)], list_id=30), GOOD)
    expect("the hoarder's oldest token, evicted for it",
           write_using(a, dst, toks[0], [(0, 8)]), CHECK, UNKNOWN)
    expect("the hoarder's newest token", write_using(a, dst, toks[3], [(0, 8)]),
           GOOD)
    # @a holds 3 of 4, more than half: its next one costs its own oldest
    expect("the hoarder's next POPULATE TOKEN", populate(a, src, [(72, 8)],
                                                         list_id=20), GOOD)
    expect("... which evicted its own oldest",
           write_using(a, dst, toks[1], [(0, 8)]), CHECK, UNKNOWN)
    tok = token_of(b, src, 30)
    if tok is not None:
        expect("the other nexus's token, kept", write_using(b, dst, tok, [(0, 8)]),
               GOOD)


def case_inflight(a, b, src, dst):
    new = os.urandom(8 * BS)
    cdb = bytes([0x8A, 0]) + struct.pack(">QI", 200, 8) + b"\0\0"
    w = a.command(src, cdb, out=new)
    time.sleep(1.0)				# the WRITE is in the backstore
    st, sense = populate(b, src, [(200, 8)])
    held = read(b, src, 200, 8)		# the blocks as POPULATE TOKEN ended
    if a.wait(w, timeout=60)[0] != GOOD:
        bad("the slow WRITE failed")
    if st != GOOD:
        bad("POPULATE TOKEN: status %#x sense %x/%02x/%02x" % ((st,) + sense))
        return
    tok = token_of(b, src)
    if tok is None:
        return
    st, sense = write_using(b, dst, tok, [(0, 8)])
    if st == CHECK and (sense[0], sense[1:]) == (ILLEGAL, REVOKED):
        return					# the write may have changed it
    expect("WRITE USING TOKEN", (st, sense), GOOD)
    if held is None or read(b, dst, 0, 8) != held:
        bad("the token copied other data than its source held when "
            "POPULATE TOKEN completed (the WRITE under way landed after it)")


CASES = {
    "copy": case_copy, "forged": case_forged, "altered": case_altered,
    "expired": case_expired, "revoked": case_revoked, "unmap": case_unmap,
    "deleted": case_deleted,
    "range": case_range, "zero": case_zero, "reserved": case_reserved,
    "limit": case_limit, "inflight": case_inflight,
}


def main():
    case, addr, target, initiator, src, dst = sys.argv[1:7]
    src, dst = int(src), int(dst)
    a, b = Session(addr), Session(addr)
    a.login(target, initiator)
    b.login(target, initiator + ".other")
    for c in (a, b):
        c.settle(src)
        c.settle(dst)
    if case == "wp":
        case_wp(a, b, src, dst, sys.argv[7], sys.argv[8], initiator)
    elif case in CASES:
        CASES[case](a, b, src, dst)
    else:
        print("unknown case " + case)
        return 2
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
