#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Parsers and the results table of the ktarget / LIO benchmark (guest side).

  report.py perf FILE BYTES IOPS|MiB/s   iscsi-perf output (BYTES per command)
  report.py fio FILE r|w IOPS|MiB/s      fio --output-format=json, read or write side
  Both print the figure, or exit 1 when the run is unusable (error, abort, no I/O).
  report.py table TSV         the results table; TSV lines: stack test unit value
                              (a cell measured in several rounds shows its best)
"""
import json
import re
import sys


def fmt(v):
    if v >= 100:
        return "%.0f" % v
    if v >= 10:
        return "%.1f" % v
    return "%.2f" % v


def perf(path, nbytes, unit):
    text = open(path, errors="replace").read().replace("\r", "\n")
    avgs = re.findall(r"iops average (\d+)", text)
    # "finished." only when the run ended on its own or on one SIGINT, with
    # no command error and the commands in flight done; "ABORTED!" otherwise.
    if not avgs or "finished." not in text:
        return None
    size = re.search(r"transfer size of \d+ blocks \((\d+) byte\)", text)
    if not size or int(size.group(1)) != nbytes:
        print("report.py: %s: transfer size is not %d bytes" % (path, nbytes),
              file=sys.stderr)
        return None
    # an integer: 0 means less than one command per second
    iops = int(avgs[-1])
    if unit == "MiB/s":
        return iops * nbytes / 1048576.0
    return float(iops)


def fio(path, side, unit):
    text = open(path, errors="replace").read()
    start = text.find("{")
    if start < 0:
        return None
    data = json.loads(text[start:])
    job = data["jobs"][0]
    if job.get("error", 0):
        return None
    io = job["read" if side == "r" else "write"]
    if io.get("total_ios", 0) <= 0:
        return None
    if unit == "MiB/s":
        return io["bw_bytes"] / 1048576.0
    return float(io["iops"])


def best(values):
    nums = []
    for v in values:
        try:
            nums.append(float(v))
        except ValueError:
            pass
    return str(max(nums)) if nums else "fail"


def table(path):
    order, res, units = [], {}, {}
    meta = []
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if f[0] == "#":
            if f[1] not in meta:
                meta.append(f[1])
            continue
        if len(f) != 4:
            continue
        stack, test, unit, value = f
        if test not in units:
            order.append(test)
            units[test] = unit
        res.setdefault((stack, test), []).append(value)
    rows = [("test", "unit", "ktarget", "LIO", "ktarget/LIO")]
    for t in order:
        k = best(res.get(("ktarget", t), []))
        l = best(res.get(("lio", t), []))
        try:
            kv, lv = float(k), float(l)
            ratio = "%.2f" % (kv / lv) if lv > 0 else "-"
            k, l = fmt(kv), fmt(lv)
        except ValueError:
            ratio = "-"
        rows.append((t, units[t], k, l, ratio))
    w = [max(len(r[i]) for r in rows) for i in range(5)]
    out = []
    for m in meta:
        out.append("# " + m)
    for i, r in enumerate(rows):
        out.append("  ".join([r[0].ljust(w[0]), r[1].ljust(w[1])] +
                             [r[j].rjust(w[j]) for j in (2, 3, 4)]).rstrip())
        if i == 0:
            out.append("  ".join("-" * x for x in w))
    print("\n".join(out))


def main():
    try:
        if sys.argv[1] == "perf":
            v = perf(sys.argv[2], int(sys.argv[3]), sys.argv[4])
        elif sys.argv[1] == "fio":
            v = fio(sys.argv[2], sys.argv[3], sys.argv[4])
        elif sys.argv[1] == "table":
            table(sys.argv[2])
            return 0
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except (OSError, ValueError, KeyError, IndexError) as e:
        print("report.py: %s" % e, file=sys.stderr)
        return 1
    if v is None:
        return 1
    print("%.2f" % v)
    return 0


if __name__ == "__main__":
    sys.exit(main())
