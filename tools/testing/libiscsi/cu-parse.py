#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn iscsi-test-cu's verbose output into one line per test:
PASS|FAIL|SKIP Suite.Test [reason]. libiscsi reports a skip as a pass whose
output holds "[SKIPPED] reason"; CUnit's XML loses that, the text keeps it.
CUnit's status word decides pass or fail: a test that expects a command to
fail logs "[FAILED]" and still passes. A test whose status word never
comes (iscsi-test-cu crashed or was killed) fails. The count of failures
must match CUnit's run summary, or "FAIL cu-parse.SummaryMismatch" says so."""
import re
import sys

suite = None
cur = None
text = []
failed = 0
summary_failed = None
STATUS = re.compile(r"^\s*(passed|FAILED)")


def flush(status):
    """End the current test with CUnit's status word (None: it never
    came); text after that word is the next suite's set-up or this one's
    clean-up, not the test's."""
    global failed
    if cur is None:
        return
    body = "\n".join(text)
    if status is None:
        print("FAIL %s no result: iscsi-test-cu stopped in this test" % cur)
        failed += 1
    elif status == "FAILED":
        m = re.search(r"\[FAILED\]\s*(.*)", body)
        print("FAIL %s %s" % (cur, m.group(1).strip() if m else ""))
        failed += 1
    elif "[SKIPPED]" in body or "Skipping test" in body:
        m = re.search(r"\[SKIPPED\]\s*(.*)", body)
        print("SKIP %s %s" % (cur, m.group(1).strip() if m else ""))
    else:
        print("PASS %s" % cur)


def feed(segment):
    """Add output of the current test; True when its status word came."""
    m = STATUS.match(segment)
    if m:
        flush(m.group(1))
        return True
    text.append(segment)
    return False


for line in open(sys.argv[1], errors="replace"):
    line = line.rstrip("\n")
    m = re.match(r"^Suite: (\S+)", line)
    if m:
        flush(None)
        cur, text, suite = None, [], m.group(1)
        continue
    m = re.match(r"^\s+Test: (\S+) \.\.\.(.*)", line)
    if m:
        flush(None)
        cur, text = "%s.%s" % (suite, m.group(1)), []
        if feed(m.group(2)):
            cur = None
        continue
    if line.startswith("Run Summary"):
        flush(None)
        cur = None
        continue
    m = re.match(r"^\s+tests\s+\d+\s+\d+\s+\d+\s+(\d+)", line)
    if m:
        summary_failed = int(m.group(1))
        continue
    if cur is not None and feed(line):
        cur = None
flush(None)
if summary_failed is not None and summary_failed != failed:
    print("FAIL cu-parse.SummaryMismatch CUnit counts %d failed tests, "
          "the text %d" % (summary_failed, failed))
