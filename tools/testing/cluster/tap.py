# SPDX-License-Identifier: GPL-2.0
"""TAP checks of the two-node scripts (pr_nodes.py, alua_nodes.py)."""
import sys


class Checks:
    """Prints "ok - ..." or "not ok - ..." per check, @planned of them
    whatever happens: an exception, or checks never reached, are "not ok"
    lines too."""

    def __init__(self, planned):
        self.planned = planned
        self.done = 0

    def check(self, desc, cond, detail=""):
        self.done += 1
        print("%s - %s" % ("ok" if cond else "not ok", desc))
        if not cond and detail:
            print("#   %s" % detail)

    def run(self, fn, *args):
        print("1..%d" % self.planned)
        try:
            fn(*args)
        except Exception as e:  # noqa: BLE001 - every failure is a check
            self.check("the scenario ran to its end", False, repr(e))
        while self.done < self.planned:
            self.check("(not reached)", False)
        sys.exit(0)
