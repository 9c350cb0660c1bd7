#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn iscsi-test-cu's verbose output into one line per test:
PASS|FAIL|SKIP Suite.Test [reason]. libiscsi reports a skip as a pass whose
output holds "[SKIPPED] reason"; CUnit's XML loses that, the text keeps it."""
import re
import sys

suite = None
cur = None
text = []


def flush():
    if cur is None:
        return
    body = "\n".join(text)
    if "FAILED" in body:
        m = re.search(r"\[FAILED\]\s*(.*)", body)
        print("FAIL %s %s" % (cur, m.group(1).strip() if m else ""))
    elif "[SKIPPED]" in body or "Skipping test" in body:
        m = re.search(r"\[SKIPPED\]\s*(.*)", body)
        print("SKIP %s %s" % (cur, m.group(1).strip() if m else ""))
    else:
        print("PASS %s" % cur)


for line in open(sys.argv[1], errors="replace"):
    line = line.rstrip("\n")
    m = re.match(r"^Suite: (\S+)", line)
    if m:
        flush()
        cur, text, suite = None, [], m.group(1)
        continue
    m = re.match(r"^\s+Test: (\S+) \.\.\.(.*)", line)
    if m:
        flush()
        cur, text = "%s.%s" % (suite, m.group(1)), [m.group(2)]
        continue
    if line.startswith("Run Summary"):
        flush()
        cur = None
        continue
    if cur is not None:
        text.append(line)
flush()
