#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A lockspace whose recovery does not end: both nodes stop serving the
LU, and serve it again once the recovery ends.

  KT_LOCKSPACE=NAME lockspace_lost.py TARGET LUN ADDR1 ADDR2

Runs on node 1. It stops the DLM lockspace NAME on both nodes, as
dlm_controld does when a member goes (writing 0 to /sys/kernel/dlm/NAME/
control; node 2 does it when /ktshare/val.ls-stop appears), and starts no
recovery: the lockspace stays in recovery, as on a node cut off from a
quorum or waiting for a fence that does not come. After ktarget_cluster's
recovery_timeout (set to 2 s here) each node answers every command but
those an Unavailable port answers with NOT READY, LOGICAL UNIT NOT
ACCESSIBLE, TARGET PORT IN UNAVAILABLE STATE (2/04/0C). Then both start
the lockspace again (1 to control); the recovery ends and the LU is
served again, with the reservations it had.

First, while the lockspace is stopped and before recovery_timeout (12 s on
node 1 here), a RESERVE (6) on the clustered LU waits for the DLM; a LUN
RESET of LUN 1, a local LU of node 1, must not wait for it: the TMF is
answered while the RESERVE still waits (a reset took a global mutex that
the RESERVE held across its DLM request).

Prints its TAP plan and one line per check (tap.py).
"""
import os
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "selftests"))
from iscsi_raw import Session  # noqa: E402
from tap import Checks  # noqa: E402

CHECKS = Checks(7)
check = CHECKS.check
GOOD, CHECK_CONDITION = 0, 2
LOCAL_LUN, LUN_RESET = 1, 0x05
LOST = (2, 0x04, 0x0C)
SHARE = "/ktshare"
TIMEOUT = "/sys/module/ktarget_cluster/parameters/recovery_timeout"


def put(name, value):
    tmp = os.path.join(SHARE, "val.%s.tmp" % name)
    with open(tmp, "w") as f:
        f.write("%s\n" % value)
    os.rename(tmp, os.path.join(SHARE, "val." + name))


def get(name, limit):
    path = os.path.join(SHARE, "val." + name)
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if os.path.exists(path):
            return True
        time.sleep(0.2)
    return False


def control(ls, value):
    with open("/sys/kernel/dlm/%s/control" % ls, "w") as f:
        f.write("%d\n" % value)


def read_keys(s, lun):
    cdb = bytes([0x5E, 0, 0, 0, 0, 0, 0]) + struct.pack(">H", 4096) + b"\0"
    st, sense, d = s.wait(s.command(lun, cdb, read_len=4096))
    if st != GOOD:
        return (st, sense)
    gen, n = struct.unpack(">II", d[:8])
    return gen, sorted(struct.unpack(">%dQ" % (n // 8), d[8:8 + n]))


def read10(s, lun):
    cdb = bytes([0x28, 0]) + struct.pack(">IBH", 8, 0, 1) + b"\0"
    return s.wait(s.command(lun, cdb, read_len=512))[:2]


def inquiry(s, lun):
    return s.wait(s.command(lun, bytes([0x12, 0, 0, 0, 36, 0]),
                            read_len=36))[:2]


def until(fn, want, limit):
    """fn() until it returns @want or @limit seconds pass; its last answer."""
    end = time.monotonic() + limit
    while True:
        got = fn()
        if got == want or time.monotonic() > end:
            return got
        time.sleep(0.5)


def main():
    CHECKS.run(run, sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4])


def run(target, lun, addr1, addr2):
    ls = os.environ["KT_LOCKSPACE"]
    s1 = Session(addr1)
    s1.login(target, target + ":lost-1")
    s2 = Session(addr2)
    s2.login(target, target + ":lost-2")
    # the logins' unit attentions
    for s in (s1, s2):
        until(lambda s=s: s.tur(lun)[0], GOOD, 10)
    keys = read_keys(s1, lun)
    s3 = Session(addr1)
    s3.login(target, target + ":lost-3")
    s4 = Session(addr1)
    s4.login(target, target + ":lost-4")
    until(lambda: s3.tur(lun)[0], GOOD, 10)
    until(lambda: s4.tur(LOCAL_LUN)[0], GOOD, 10)
    try:
        with open(TIMEOUT, "w") as f:
            f.write("12\n")
    except OSError as e:
        print("# %s: %s" % (TIMEOUT, e))

    control(ls, 0)
    put("ls-stop", 1)
    stopped = get("ls-stopped", 60)
    print("# both lockspaces stopped%s" % ("" if stopped else
                                           " (node 2 did not answer)"))
    reserve = s3.command(lun, bytes([0x16, 0, 0, 0, 0, 0]))
    time.sleep(1)
    t0 = time.monotonic()
    tmf = s4.wait(s4.tmf(LUN_RESET, LOCAL_LUN), 150)
    took = time.monotonic() - t0
    s3.pump_for(0.2)
    waiting = reserve not in s3.rsp
    check("a LUN RESET of a local LU answers while a RESERVE on the "
          "clustered LU waits for its stopped lockspace",
          tmf == 0 and waiting, "TMF response %s after %.1f s, the RESERVE "
          "%s" % (tmf, took, "waits" if waiting else "answered first"))
    # the RESERVE ends when its DLM request times out: the other sessions
    # answer their NOP-Ins meanwhile
    end = time.monotonic() + 150
    while reserve not in s3.rsp and time.monotonic() < end:
        for s in (s1, s2, s3, s4):
            s.pump_for(0.3)
    st = s3.rsp.get(reserve, ("none",))[:2]
    print("# the RESERVE: %s, %.1f s after the reset" %
          (st, time.monotonic() - t0))
    for s in (s3, s4):
        s.sock.close()
    got = until(lambda: s1.tur(lun)[:2], (CHECK_CONDITION, LOST), 30)
    check("lockspace in recovery on both nodes: after recovery_timeout "
          "node 1 answers TEST UNIT READY with NOT READY 04/0C",
          got == (CHECK_CONDITION, LOST), "got %s" % (got,))
    got = (read10(s1, lun), s1.wait(s1.command(
        lun, bytes([0x5E, 0, 0, 0, 0, 0, 0, 0x10, 0, 0]), read_len=4096))[:2])
    check("... READ (10) and PERSISTENT RESERVE IN too",
          got == ((CHECK_CONDITION, LOST),) * 2, "got %s" % (got,))
    got = inquiry(s1, lun)
    check("... INQUIRY still answers", got[0] == GOOD, "got %s" % (got,))
    got = until(lambda: s2.tur(lun)[:2], (CHECK_CONDITION, LOST), 30)
    check("... and node 2 answers NOT READY 04/0C too",
          got == (CHECK_CONDITION, LOST), "got %s" % (got,))

    control(ls, 1)
    put("ls-start", 1)
    get("ls-started", 60)
    got = (until(lambda: s1.tur(lun)[0], GOOD, 60),
           until(lambda: s2.tur(lun)[0], GOOD, 60), read10(s1, lun)[0],
           read10(s2, lun)[0])
    check("the recovery ends: both nodes serve the LU again (TEST UNIT "
          "READY, READ)", got == (GOOD,) * 4, "got %s" % (got,))
    got = read_keys(s1, lun), read_keys(s2, lun)
    check("... with the registrations they had", got == (keys, keys),
          "before %s, after %s" % (keys, got))


if __name__ == "__main__":
    main()
