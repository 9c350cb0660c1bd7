#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Persistent reservations of one LU served by two nodes.

  pr_nodes.py TARGET LUN ADDR1 ADDR2

Sessions of initiators A and C go to node 1 (ADDR1), B's to node 2
(ADDR2); A also logs in to node 2 for ALL_TG_PT. Every change is made on
one node and looked at, or enforced, on the other: keys and the
reservation, each reservation type's conflicts for a registrant and a
stranger, the unit attentions of CLEAR and PREEMPT, a PREEMPT AND ABORT
on node 2 that ends a command waiting for data on node 1, and an SPC-2
RESERVE (6) on node 2, which ends with RELEASE and with its session.

Prints its TAP plan and one line per check (tap.py); a check that
cannot run prints "not ok" too.
"""
import os
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "selftests"))
from iscsi_raw import Session  # noqa: E402
from tap import Checks  # noqa: E402

CHECKS = Checks(31)
check = CHECKS.check
GOOD, CHECK_CONDITION, RES_CONFLICT, TASK_ABORTED = 0, 2, 0x18, 0x40
KEY_A, KEY_B = 0xA0A0, 0xB0B0



def pr_out(s, lun, sa, key=0, sa_key=0, rtype=0, flags=0):
    param = struct.pack(">QQ4xB3x", key, sa_key, flags)
    cdb = bytes([0x5F, sa, rtype, 0, 0, 0, 0, 0, len(param), 0])
    return s.wait(s.command(lun, cdb, out=param))


def pr_in(s, lun, sa, alloc=4096):
    cdb = bytes([0x5E, sa, 0, 0, 0, 0, 0]) + struct.pack(">H", alloc) + b"\0"
    return s.wait(s.command(lun, cdb, read_len=alloc))


def read_keys(s, lun):
    st, sense, d = pr_in(s, lun, 0)
    if st != GOOD:
        return None, "status %#x sense %s" % (st, sense)
    gen, n = struct.unpack(">II", d[:8])
    return (gen, sorted(struct.unpack(">%dQ" % (n // 8), d[8:8 + n]))), ""


def read_resv(s, lun):
    """(key, type) of the reservation, None when there is none."""
    st, sense, d = pr_in(s, lun, 1)
    if st != GOOD:
        return "status %#x sense %s" % (st, sense)
    if struct.unpack(">I", d[4:8])[0] < 16:
        return None
    return struct.unpack(">Q", d[8:16])[0], d[21] & 0x0F


def write10(s, lun, bs):
    cdb = bytes([0x2A, 0]) + struct.pack(">IBH", 8, 0, 1) + b"\0"
    return s.wait(s.command(lun, cdb, out=b"\x5a" * bs))[:2]


def read10(s, lun, bs):
    cdb = bytes([0x28, 0]) + struct.pack(">IBH", 8, 0, 1) + b"\0"
    return s.wait(s.command(lun, cdb, read_len=bs))[:2]


last_tur = []


def take_ua(s, lun):
    """The sense of the unit attention TEST UNIT READY reports, if any."""
    st, sense, _ = s.tur(lun)
    last_tur[:] = [st, sense]
    return sense if st == CHECK_CONDITION and sense[0] == 6 else None


# SPC-4 table 52, for a command from a nexus that does not hold it:
# (registered may read, registered may write, stranger may read, may write)
TYPES = {
    1: ("Write Exclusive", (True, False, True, False)),
    3: ("Exclusive Access", (False, False, False, False)),
    5: ("Write Exclusive - Registrants Only", (True, True, True, False)),
    6: ("Exclusive Access - Registrants Only", (True, True, False, False)),
    7: ("Write Exclusive - All Registrants", (True, True, True, False)),
    8: ("Exclusive Access - All Registrants", (True, True, False, False)),
}


def main():
    CHECKS.run(run, sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4])


def run(target, lun, addr1, addr2):
    a1 = Session(addr1)
    a1.login(target, target + ":initiator-a")
    c1 = Session(addr1)
    c1.login(target, target + ":initiator-c")
    b2 = Session(addr2)
    b2.login(target, target + ":initiator-b")
    bs = a1.read_capacity(lun)[1]

    # a fresh state: whatever an earlier run left is cleared
    pr_out(b2, lun, 6, sa_key=KEY_B)		# REGISTER AND IGNORE
    pr_out(b2, lun, 3, key=KEY_B)		# CLEAR
    for s in (a1, b2, c1):
        while take_ua(s, lun):
            pass

    st, sense, _ = pr_out(a1, lun, 0, sa_key=KEY_A)
    check("REGISTER on node 1", st == GOOD, "status %#x %s" % (st, sense))
    keys, err = read_keys(b2, lun)
    check("... node 2 reads key A", keys and keys[1] == [KEY_A],
          "%s %s" % (keys, err))
    st, sense, _ = pr_out(b2, lun, 0, sa_key=KEY_B)
    check("REGISTER on node 2", st == GOOD, "status %#x %s" % (st, sense))
    k1, err1 = read_keys(a1, lun)
    k2, err2 = read_keys(b2, lun)
    check("... both nodes read keys A and B with one PRgeneration",
          k1 and k1 == k2 and k1[1] == sorted([KEY_A, KEY_B]),
          "node 1 %s %s, node 2 %s %s" % (k1, err1, k2, err2))

    for rtype, (name, (reg_r, reg_w, str_r, str_w)) in TYPES.items():
        st, sense, _ = pr_out(b2, lun, 1, key=KEY_B, rtype=rtype)
        seen = read_resv(a1, lun)
        want = (0 if rtype in (7, 8) else KEY_B, rtype)
        got = (read10(a1, lun, bs)[0], write10(a1, lun, bs)[0],
               read10(c1, lun, bs)[0], write10(c1, lun, bs)[0])
        want_st = tuple(GOOD if x else RES_CONFLICT
                        for x in (reg_r, reg_w, str_r, str_w))
        check("%s reserved on node 2: node 1 sees it and refuses what it "
              "must (registrant read/write, stranger read/write)" % name,
              st == GOOD and seen == want and got == want_st,
              "RESERVE %#x %s; node 1 reads %s (want %s); statuses %s "
              "(want %s)" % (st, sense, seen, want, got, want_st))
        st, sense, _ = pr_out(b2, lun, 2, key=KEY_B, rtype=rtype)
        # the first command after it takes the unit attention
        ua = take_ua(a1, lun)
        ok = st == GOOD and read_resv(a1, lun) is None
        if rtype in (5, 6, 7, 8):
            # SPC-4 5.13.11.2.2: registrants hear of the release
            check("... RELEASE on node 2 ends it on node 1, whose "
                  "registrant gets 2A/04", ok and ua == (6, 0x2A, 4),
                  "RELEASE %#x %s, UA %s" % (st, sense, ua))
        else:
            check("... RELEASE on node 2 ends it on node 1, with no unit "
                  "attention", ok and ua is None,
                  "RELEASE %#x %s, UA %s" % (st, sense, ua))

    # CLEAR on node 2: the registrant on node 1 hears 2A/03
    pr_out(a1, lun, 1, key=KEY_A, rtype=1)
    st, sense, _ = pr_out(b2, lun, 3, key=KEY_B)
    ua = take_ua(a1, lun)
    keys, err = read_keys(a1, lun)
    check("CLEAR on node 2: node 1 has no keys, A gets 2A/03",
          st == GOOD and ua == (6, 0x2A, 3) and keys and not keys[1],
          "CLEAR %#x %s, UA %s, keys %s %s" % (st, sense, ua, keys, err))

    # ALL_TG_PT: A registered through node 1 holds on node 2's port too
    st, sense, _ = pr_out(a1, lun, 0, sa_key=KEY_A, flags=0x04)
    a2 = Session(addr2)
    a2.login(target, target + ":initiator-a")
    st2, sense2, _ = pr_out(a2, lun, 1, key=KEY_A, rtype=1)
    check("ALL_TG_PT REGISTER on node 1: A reserves through node 2",
          st == GOOD and st2 == GOOD and read_resv(b2, lun) == (KEY_A, 1),
          "REGISTER %#x %s, RESERVE %#x %s" % (st, sense, st2, sense2))
    st, sense, _ = write10(b2, lun, bs) + (None,)
    check("... B on node 2 (unregistered) may not write", st == RES_CONFLICT,
          "WRITE %#x %s" % (st, sense))
    pr_out(a2, lun, 2, key=KEY_A, rtype=1)
    pr_out(a1, lun, 0, key=KEY_A)		# unregister

    # PREEMPT AND ABORT on node 2 ends A's command waiting on node 1
    pr_out(a1, lun, 0, sa_key=KEY_A)
    pr_out(b2, lun, 0, sa_key=KEY_B)
    st, sense, _ = pr_out(a1, lun, 1, key=KEY_A, rtype=3)
    check("A holds Exclusive Access through node 1", st == GOOD and
          read_resv(b2, lun) == (KEY_A, 3), "RESERVE %#x %s" % (st, sense))
    cdb = bytes([0x2A, 0]) + struct.pack(">IBH", 8, 0, 1) + b"\0"
    itt = a1.command(lun, cdb, write_len=bs)
    while itt not in a1.r2t:
        a1.pump(10)
    st, sense, _ = pr_out(b2, lun, 5, key=KEY_B, sa_key=KEY_A, rtype=3)
    check("PREEMPT AND ABORT on node 2", st == GOOD,
          "status %#x %s" % (st, sense))
    # node 1 loads the change at once, in the background: a command of A
    # that reached it before then would be aborted too (Documentation/
    # cluster.md); A's next one, after that, hears of it
    time.sleep(0.7)
    ua = take_ua(a1, lun)
    check("... A on node 1 gets 2A/05 REGISTRATIONS PREEMPTED",
          ua == (6, 0x2A, 5), "UA %s (TEST UNIT READY: %s)" % (ua, last_tur))
    time.sleep(0.3)
    # the initiator answers its R2T, as it would; the command is gone
    a1.data_out(0, itt, b"\x5a" * bs)
    st_w, sense_w, _ = a1.wait(itt, timeout=30)
    check("... A's WRITE, waiting for data on node 1, ends TASK ABORTED",
          st_w == TASK_ABORTED, "status %#x %s" % (st_w, sense_w))
    keys, err = read_keys(a1, lun)
    check("... node 1 reads B's key alone, B holding Exclusive Access",
          keys and keys[1] == [KEY_B] and read_resv(a1, lun) == (KEY_B, 3),
          "keys %s %s" % (keys, err))
    st, sense = write10(a1, lun, bs)
    check("... A's WRITE on node 1 now conflicts", st == RES_CONFLICT,
          "WRITE %#x %s" % (st, sense))
    st, sense = write10(b2, lun, bs)
    check("... B's WRITE on node 2 passes", st == GOOD,
          "WRITE %#x %s" % (st, sense))
    st, sense, _ = pr_out(b2, lun, 3, key=KEY_B)
    keys, err = read_keys(a1, lun)
    check("CLEAR on node 2 leaves nothing on node 1",
          st == GOOD and keys and not keys[1] and read_resv(a1, lun) is None,
          "CLEAR %#x %s, keys %s %s" % (st, sense, keys, err))

    # SPC-2 RESERVE (6) / RELEASE (6) on node 2
    reserve6, release6 = bytes([0x16, 0, 0, 0, 0, 0]), bytes([0x17] + [0] * 5)
    st, sense, _ = b2.wait(b2.command(lun, reserve6))
    got = (write10(a1, lun, bs)[0], a1.wait(a1.command(lun, reserve6))[0],
           write10(b2, lun, bs)[0])
    check("RESERVE (6) on node 2: node 1's WRITE and RESERVE conflict, "
          "node 2's WRITE passes",
          st == GOOD and got == (RES_CONFLICT, RES_CONFLICT, GOOD),
          "RESERVE %#x %s, statuses %s" % (st, sense, got))
    st = pr_in(a1, lun, 0)[0]
    check("... PERSISTENT RESERVE IN on node 1 conflicts too",
          st == RES_CONFLICT, "status %#x" % st)
    st, sense, _ = b2.wait(b2.command(lun, release6))
    st_w = write10(a1, lun, bs)[0]
    check("RELEASE (6) on node 2: node 1 writes again",
          st == GOOD and st_w == GOOD, "RELEASE %#x %s, WRITE %#x" %
          (st, sense, st_w))
    st, sense, _ = b2.wait(b2.command(lun, reserve6))
    b2.sock.close()		# the session ends with its connection
    end = time.monotonic() + 30
    while True:
        st_w = write10(a1, lun, bs)[0]
        if st_w != RES_CONFLICT or time.monotonic() > end:
            break
        time.sleep(0.5)
    check("a RESERVE (6) on node 2 ends with its session: node 1 writes "
          "again", st == GOOD and st_w == GOOD, "RESERVE %#x %s, WRITE %#x"
          % (st, sense, st_w))


if __name__ == "__main__":
    main()
