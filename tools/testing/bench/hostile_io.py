#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The well-behaved neighbour of a hostile initiator, for hostile.sh: one
mode of selftests/iscsi_hostile.py runs while a second session keeps
reading, and one table row says what the target's memory and that
session's I/O rate did.

  hostile_io.py io HOST:PORT TARGET INITIATOR
      log in and READ (10) 64 KiB at a time, one command in flight (QD1),
      over the whole of LUN 0, until killed. Prints "ready" once logged
      in, then every 0.2 s "MONOTONIC DONE ERRORS": the clock, the
      commands completed and the errors so far (an error: a command not
      answered within 30 s or a lost connection, after which it logs in
      again).
  hostile_io.py bench STACK MODE HOST:PORT TARGET
      start "io" in a process of its own, take BEFORE s of its rate, run
      MODE of iscsi_hostile.py (its own output is printed, each line
      prefixed "STACK MODE: "), then AFTER s more; print one row of
      ROW_FORMAT (HEADER names the columns): the mode's exit status,
      MemAvailable before, at its lowest while the mode ran and at the
      end, the second session's commands per second before, during and
      after the mode, the longest time it completed nothing from the
      mode's start on, and its errors. Environment: KT_IO_BEFORE,
      KT_IO_AFTER (seconds, default 5), KT_MODE_TIMEOUT (default 120).
  hostile_io.py header
      print HEADER.

Exits 0 unless it could not measure at all (no "ready" from the I/O
session); a mode that fails is a figure of the row, not an error.
"""
import os
import signal
import struct
import subprocess
import sys
import threading
import time

here = os.path.dirname(os.path.abspath(__file__))
sel = os.path.join(here, "..", "selftests")
sys.path.insert(0, sel)
from iscsi_hostile import meminfo  # noqa: E402
from iscsi_raw import Session  # noqa: E402

IO_LEN = 64 << 10
REPORT_EVERY = 0.2
CMD_TIMEOUT = 30
HEADER = ("%-8s %-16s %4s | %6s %6s %6s | %7s %7s %7s | %6s %4s" %
          ("stack", "mode", "exit", "MemAv", "lowest", "end",
           "IOPS<", "IOPS=", "IOPS>", "stall", "errs") + "\n" +
          "%-8s %-16s %4s | %20s | %23s | %6s %4s" %
          ("", "", "", "MiB", "before, during, after", "s", ""))
ROW_FORMAT = ("%-8s %-16s %4s | %6d %6d %6d | %7.1f %7.1f %7.1f | "
              "%6.1f %4d")


def read10(lba, blocks):
    return bytes([0x28, 0]) + struct.pack(">IBH", lba, 0, blocks) + b"\0"


def io_session(addr, target, initiator):
    s = Session(addr)
    s.login(target, initiator)
    last_lba, bs = s.read_capacity(0)
    return s, last_lba + 1, bs


def io(addr, target, initiator):
    """The QD1 reader: runs until killed."""
    count = {"done": 0, "errors": 0}

    def report():
        while True:
            print("%.3f %d %d" % (time.monotonic(), count["done"],
                                  count["errors"]), flush=True)
            time.sleep(REPORT_EVERY)

    s, blocks, bs = io_session(addr, target, initiator)
    print("ready", flush=True)
    threading.Thread(target=report, daemon=True).start()
    per = IO_LEN // bs
    lba = 0
    while True:
        try:
            if s is None:
                s, blocks, bs = io_session(addr, target, initiator)
            st = s.wait(s.command(0, read10(lba, per), read_len=IO_LEN),
                        CMD_TIMEOUT)[0]
            if st == 0:
                count["done"] += 1
            else:
                count["errors"] += 1
            lba = (lba + per) % (blocks - per)
        except (TimeoutError, EOFError, OSError, RuntimeError):
            count["errors"] += 1
            if s is not None:
                s.sock.close()
            s = None
            time.sleep(1)


def done_at(samples, t):
    """Commands completed by @t, interpolated between the samples."""
    prev = samples[0]
    if t <= prev[0]:
        return prev[1]
    for cur in samples[1:]:
        if cur[0] >= t:
            span = cur[0] - prev[0]
            return prev[1] + (cur[1] - prev[1]) * (t - prev[0]) / span \
                if span > 0 else cur[1]
        prev = cur
    return prev[1]


def rate(samples, t0, t1):
    return (done_at(samples, t1) - done_at(samples, t0)) / (t1 - t0) \
        if t1 > t0 else 0.0


def longest_stall(samples, t0, t1):
    """The longest time within [t0, t1] the count did not move."""
    last_t, last_n, worst = t0, None, 0.0
    for t, n, _ in samples:
        if t < t0 or t > t1:
            continue
        if n != last_n:
            last_t, last_n = t, n
        worst = max(worst, t - last_t)
    return worst


def bench(stack, mode, addr, target):
    before_s = float(os.environ.get("KT_IO_BEFORE", "5"))
    after_s = float(os.environ.get("KT_IO_AFTER", "5"))
    mode_timeout = float(os.environ.get("KT_MODE_TIMEOUT", "120"))
    prefix = "%s %s: " % (stack, mode)
    child = subprocess.Popen([sys.executable, os.path.abspath(__file__), "io",
                              addr, target,
                              "iqn.2026-11.org.ktarget:bench-io-" + mode],
                             stdout=subprocess.PIPE, text=True)
    samples = []
    if child.stdout.readline().strip() != "ready":
        print(prefix + "the I/O session did not log in")
        child.wait()
        return 1

    def take():
        for line in child.stdout:
            t, n, e = line.split()
            samples.append((float(t), int(n), int(e)))

    reader = threading.Thread(target=take, daemon=True)
    reader.start()
    time.sleep(1 + before_s)	# a second to settle, then the baseline

    mem_before = low = meminfo()
    t0 = time.monotonic()
    hostile = subprocess.Popen([sys.executable,
                                os.path.join(sel, "iscsi_hostile.py"), mode,
                                addr, target,
                                "iqn.2026-11.org.ktarget:cmp-" + mode],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    out = []
    printer = threading.Thread(target=lambda: out.extend(hostile.stdout),
                               daemon=True)
    printer.start()
    killed = False
    while hostile.poll() is None:
        low = min(low, meminfo())
        if not killed and time.monotonic() > t0 + mode_timeout:
            hostile.kill()
            killed = True
        time.sleep(0.2)
    t1 = time.monotonic()
    rc = hostile.returncode
    low = min(low, meminfo())
    time.sleep(after_s + 2 * REPORT_EVERY)
    mem_end = meminfo()
    child.send_signal(signal.SIGTERM)
    child.wait()
    reader.join(2)
    printer.join(2)
    for line in out:
        print(prefix + line.rstrip("\n"))
    if killed:
        print(prefix + "killed after %d s" % mode_timeout)
    errors = samples[-1][2] if samples else 0
    print(prefix + "ran %.1f s" % (t1 - t0))
    print(ROW_FORMAT % (stack, mode, rc, mem_before, low, mem_end,
                        rate(samples, t0 - before_s, t0),
                        rate(samples, t0, t1),
                        rate(samples, t1, t1 + after_s),
                        longest_stall(samples, t0, t1 + after_s), errors),
          flush=True)
    return 0


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what == "io" and len(sys.argv) == 5:
        io(*sys.argv[2:5])
        return 0
    if what == "bench" and len(sys.argv) == 6:
        return bench(*sys.argv[2:6])
    if what == "header":
        print(HEADER)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
