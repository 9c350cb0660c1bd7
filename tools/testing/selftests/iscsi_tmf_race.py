#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""TMFs against commands whose answer is on its way, from bare
initiators, for SECONDS:

  iscsi_tmf_race.py abort HOST:PORT TARGET INITIATOR LUN SECONDS
      Each round sends eight READ(10)s of eight blocks, each followed at
      once by an ABORT TASK that names it. Every TMF must be answered
      within 10 s, every READ that gets an answer end GOOD, and a TEST
      UNIT READY after the last round end GOOD.
  iscsi_tmf_race.py reset HOST:PORT TARGET INITIATOR LUN SECONDS
      INITIATOR keeps 32 READ(10)s in flight while a second initiator
      sends LUN RESET after LUN RESET: each reset walks every command of
      the LU, most of them completed with their Data-In on its way. Every
      LUN RESET must be answered within 10 s, every READ answered GOOD,
      TASK ABORTED or with the reset's unit attention (or not at all, if
      the reset aborted it silently), and both sessions serve a TEST UNIT
      READY at the end: how many it takes (one per unit attention pending
      first) is printed.

The READs are quick, so most TMFs meet a command that has completed: the
TMF then holds the last reference to it now and then (issue 39: on
536bb90 with two CPUs, its release under the session's cmd_lock spun that
CPU on the lock it held, and the next command of the session the other
one).

Prints one line per finding; exits 0 when the target behaved, 1 if not.
"""
import struct
import sys
import threading
import time

from iscsi_raw import Session

ABORT_TASK, LUN_RESET = 1, 5
TASK_ABORTED, CHECK_CONDITION = 0x40, 0x02
# what the test's rounds expect: NOP-In, SCSI Response, TMF Response, Data-In
EXPECTED = (0x20, 0x21, 0x22, 0x25)


class RaceSession(Session):
    """A session that keeps every PDU of another kind (a Reject, an
    Asynchronous Message) for the report."""

    def __init__(self, addr):
        super().__init__(addr)
        self.others = []

    def recv(self, timeout):
        op, bhs, data = super().recv(timeout)
        if op not in EXPECTED:
            self.others.append((op, bhs, data))
        return op, bhs, data


def stall_report(s, reads, tmfs):
    """What is missing when a round stalls, and what came instead."""
    print("  unanswered READ ITTs: %s" %
          [hex(i) for i in reads if i not in s.rsp])
    print("  unanswered ABORT TASK ITTs: %s" %
          [hex(i) for i in tmfs if i not in s.tmf_rsp])
    print("  next CmdSN %d, last (ExpCmdSN, MaxCmdSN) %s" %
          (s.cmdsn, s.last_window))
    for op, bhs, data in s.others[-5:]:
        what = "opcode %#x" % op
        if op == 0x3F:
            what = "Reject reason %#x of a PDU with opcode %#x, ITT %#x" % (
                bhs[2], data[0] & 0x3F if data else 0,
                struct.unpack(">I", data[16:20])[0] if len(data) >= 20 else 0)
        print("  received: %s" % what)
BATCH = 8
BLOCKS = 8


def read_cdb(lba):
    return bytes([0x28, 0]) + struct.pack(">IBHB", lba, 0, BLOCKS, 0)


def round_of(s, lun, lba, counts):
    """One batch; False when a TMF went unanswered."""
    tmfs, reads = [], []
    for i in range(BATCH):
        cmdsn = s.cmdsn
        reads.append(s.command(lun, read_cdb(lba + i * BLOCKS),
                               read_len=BLOCKS * 512))
        tmfs.append(s.tmf(ABORT_TASK, lun, reads[-1], cmdsn))
    end = time.monotonic() + 10
    while any(t not in s.tmf_rsp for t in tmfs):
        left = end - time.monotonic()
        try:
            if left <= 0:
                raise TimeoutError
            s.pump(left)
        except TimeoutError:
            stall_report(s, reads, tmfs)
            return False
    for t in tmfs:
        code = s.tmf_rsp.pop(t)
        counts[code] = counts.get(code, 0) + 1
    tally(s, counts)
    return True


def tally(s, counts):
    """Count the READs answered so far and let go of their data."""
    for itt in list(s.rsp):
        st = s.rsp.pop(itt)[0]
        counts["read"] = counts.get("read", 0) + 1
        if st != 0:
            counts["bad"] = counts.get("bad", 0) + 1
    s.order.clear()


def abort_main(addr, target, initiator, lun, seconds):
    s = RaceSession(addr)
    s.login(target, initiator)
    counts, rounds, lba = {}, 0, 0
    end = time.monotonic() + seconds
    ok = True
    while time.monotonic() < end:
        if not round_of(s, lun, lba, counts):
            print("round %d: an ABORT TASK got no answer within 10 s" % rounds)
            ok = False
            break
        rounds += 1
        lba = (lba + BATCH * BLOCKS) % 65536
    s.pump_for(0.5)
    tally(s, counts)
    tmf = {k: v for k, v in counts.items() if isinstance(k, int)}
    print("%d rounds, %d ABORT TASKs: %d FUNCTION COMPLETE, %d TASK DOES NOT "
          "EXIST, %d other; %d READs answered" %
          (rounds, sum(tmf.values()), tmf.get(0, 0), tmf.get(1, 0),
           sum(v for k, v in tmf.items() if k not in (0, 1)),
           counts.get("read", 0)))
    if counts.get("bad"):
        print("%d answered READs did not end GOOD" % counts["bad"])
        ok = False
    try:
        st = s.wait(s.command(lun, [0] * 6), timeout=10)[0]
    except (TimeoutError, OSError):
        st = None
    print("TEST UNIT READY after the rounds: %s" %
          ("no answer in 10 s" if st is None else "status %#x" % st))
    ok = ok and st == 0
    return 0 if ok else 1


def tur_good(s, lun):
    """TEST UNIT READY until GOOD, ten at most: "GOOD after N" (the unit
    attentions pending come first, one per command), or what the last
    one got."""
    for n in range(1, 11):
        try:
            st = s.wait(s.command(lun, [0] * 6), timeout=10)[0]
        except (TimeoutError, OSError):
            return "no answer in 10 s"
        if st == 0:
            return "GOOD after %d" % n
    return "status %#x ten times" % st


def resetter(addr, target, initiator, lun, end, result):
    """LUN RESET after LUN RESET until @end; result["resets"] and, when
    one goes unanswered, result["stuck"]."""
    try:
        r = RaceSession(addr)
        r.login(target, initiator + "-reset")
        while time.monotonic() < end:
            itt = r.tmf(LUN_RESET, lun)
            deadline = time.monotonic() + 10
            while itt not in r.tmf_rsp:
                r.pump(max(0.1, deadline - time.monotonic()))
                if itt not in r.tmf_rsp and time.monotonic() > deadline:
                    raise TimeoutError
            code = r.tmf_rsp.pop(itt)
            result["codes"][code] = result["codes"].get(code, 0) + 1
            r.rsp.clear()
            time.sleep(0.005)
        result["tur"] = tur_good(r, lun)
    except (TimeoutError, OSError) as e:
        result["stuck"] = "LUN RESET %d got no answer within 10 s (%s)" % (
            sum(result["codes"].values()) + 1, type(e).__name__)


def reset_main(addr, target, initiator, lun, seconds):
    s = RaceSession(addr)
    s.login(target, initiator)
    end = time.monotonic() + seconds
    result = {"codes": {}}
    t = threading.Thread(target=resetter,
                         args=(addr, target, initiator, lun, end, result))
    t.start()
    inflight, lba, kinds, quiet = set(), 0, {}, 0.0
    # after SECONDS, 30 s more at most for the answers still to come
    while time.monotonic() < end or (inflight and time.monotonic() < end + 30):
        while time.monotonic() < end and len(inflight) < 32:
            inflight.add(s.command(lun, read_cdb(lba), read_len=BLOCKS * 512))
            lba = (lba + BLOCKS) % 65536
        try:
            s.pump(1)
            quiet = 0.0
        except TimeoutError:
            # what a reset aborted without a word: let it go after 5 s
            quiet += 1
            if quiet >= 5:
                kinds["unanswered"] = kinds.get("unanswered", 0) + len(inflight)
                inflight.clear()
        for itt in [i for i in inflight if i in s.rsp]:
            inflight.discard(itt)
            st, sense, _ = s.rsp.pop(itt)
            kind = {0: "GOOD", TASK_ABORTED: "TASK ABORTED"}.get(st)
            if st == CHECK_CONDITION and sense[0] == 6:
                kind = "UNIT ATTENTION"
            kind = kind or "status %#x sense %s" % (st, sense)
            kinds[kind] = kinds.get(kind, 0) + 1
        s.rsp.clear()
        s.order.clear()
    if inflight:
        kinds["unanswered"] = kinds.get("unanswered", 0) + len(inflight)
    t.join(timeout=30)
    ok = True
    print("%d LUN RESETs answered %s; READs: %s" % (
        sum(result["codes"].values()), result["codes"],
        ", ".join("%d %s" % (v, k) for k, v in sorted(kinds.items()))))
    if "stuck" in result or t.is_alive():
        print(result.get("stuck", "the resetting session did not end"))
        ok = False
    odd = [k for k in kinds if k not in ("GOOD", "TASK ABORTED",
                                         "UNIT ATTENTION", "unanswered")]
    if odd:
        print("READs answered otherwise: %s" % odd)
        ok = False
    st = tur_good(s, lun)
    print("TEST UNIT READY after the resets: reading session %s, resetting "
          "session %s" % (st, result.get("tur")))
    return 0 if ok and st.startswith("GOOD") and \
        str(result.get("tur")).startswith("GOOD") else 1


def main():
    mode, addr, target, initiator = sys.argv[1:5]
    lun, seconds = int(sys.argv[5]), float(sys.argv[6])
    run = {"abort": abort_main, "reset": reset_main}[mode]
    return run(addr, target, initiator, lun, seconds)


if __name__ == "__main__":
    sys.exit(main())
