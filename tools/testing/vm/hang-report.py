#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What a guest that no longer answers is doing, asked of QEMU.

  hang-report.py OUT KVER [--nmi]

OUT is the run folder of tools/testing/vm/run.sh: its QEMU has a human
monitor on OUT/monitor.sock, and the guest wrote its kernel's text
symbols to OUT/kallsyms and the load address of each module's .text to
OUT/modules.txt (guest-init.sh). For every vCPU this prints its
registers, whether it runs with interrupts off, and its RIP and the
kernel addresses found on its stack, each mapped to function+offset
through those and the modules' own symbol tables (the tree's .ko files,
then the kernel's). The stack scan is not an unwinder: stale return
addresses show up too, but the innermost frames come first.

Samples every vCPU three times, a second apart: a RIP that stays in one
function with IF=0 is a CPU spinning with interrupts off.

--nmi then injects an NMI into every vCPU: guest-init.sh set
kernel.unknown_nmi_panic, so a guest whose CPUs still take NMIs panics
and prints a real backtrace on the console.
"""
import bisect
import os
import re
import socket
import subprocess
import sys
import time

ESC = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class Monitor:
    """QEMU's human monitor over a unix socket."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(20)
        self.sock.connect(path)
        self.read_prompt()

    def read_prompt(self):
        buf = b""
        while not buf.endswith(b"(qemu) "):
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("monitor closed")
            buf += chunk
        return ESC.sub("", buf[:-len(b"(qemu) ")].decode(errors="replace"))

    def cmd(self, line):
        self.sock.sendall(line.encode() + b"\n")
        out = self.read_prompt()
        # the monitor echoes the command line first
        lines = out.replace("\r", "").split("\n")
        while lines and line.strip() in lines[0]:
            lines.pop(0)
        return "\n".join(lines)


class Symbols:
    """Kernel and module text symbols, address -> function+offset."""

    def __init__(self, kver, out, top):
        self.addrs, self.names = [], []
        self.ranges = []	# (start, end, module)
        self.text = (0, 0)	# the kernel's _stext, _etext
        syms = []
        # the guest's own kallsyms (nokaslr: the same on every boot);
        # Debian's System.map is a placeholder
        for path in (os.path.join(out, "kallsyms"), "/boot/System.map-%s" % kver):
            syms = self.kernel_syms(path)
            if syms:
                break
        for name, text, base, size in self.modules(os.path.join(out, "modules.txt")):
            self.ranges.append((base, base + size, name))
            ko = self.find_ko(name, kver, (os.path.join(out, "modroot"), top))
            if ko:
                syms += self.module_syms(ko, text, name)
        syms.sort()
        for a, n in syms:
            self.addrs.append(a)
            self.names.append(n)

    def kernel_syms(self, path):
        syms, start, end = [], 0, 0
        try:
            with open(path) as f:
                for line in f:
                    p = line.split()
                    if len(p) != 3 or p[2].startswith("["):
                        continue
                    a = int(p[0], 16)
                    if p[2] == "_stext":
                        start = a
                    elif p[2] == "_etext":
                        end = a
                    if p[1] in "tTwW":
                        syms.append((a, p[2]))
        except (OSError, ValueError):
            return []
        if not syms:
            return []
        # kallsyms may leave the markers out: the text symbols' span then
        self.text = (start or min(syms)[0], end or max(syms)[0] + 0x1000)
        return syms

    @staticmethod
    def modules(path):
        try:
            with open(path) as f:
                for line in f:
                    p = line.split()
                    if len(p) == 4:
                        yield p[0], int(p[1], 16), int(p[2], 16), int(p[3])
        except (OSError, ValueError):
            return

    @staticmethod
    def find_ko(name, kver, roots):
        for top in roots:
            for root, dirs, files in os.walk(top):
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                if name + ".ko" in files:
                    return os.path.join(root, name + ".ko")
        r = subprocess.run(["modinfo", "-k", kver, "-n", name],
                           capture_output=True, text=True)
        path = r.stdout.strip()
        return path if r.returncode == 0 and path.endswith(".ko") else None

    @staticmethod
    def module_syms(ko, text, mod):
        r = subprocess.run(["nm", "-f", "sysv", "--defined-only", ko],
                           capture_output=True, text=True)
        out = []
        for line in r.stdout.splitlines():
            p = [x.strip() for x in line.split("|")]
            if len(p) >= 7 and p[6] == ".text" and p[2] in "tT":
                out.append((text + int(p[1], 16), "%s [%s]" % (p[0], mod)))
        return out

    def name(self, addr):
        """function+offset [module], "[module]+?" inside a module whose
        symbols are unknown, None outside any text we know"""
        inmod = next((m for s, e, m in self.ranges if s <= addr < e), None)
        if not inmod and not self.text[0] <= addr < self.text[1]:
            return None
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0 or (inmod and not self.names[i].endswith(" [%s]" % inmod)):
            return "[%s]+?" % inmod if inmod else None
        name, _, mod = self.names[i].partition(" ")
        return "%s+%#x%s" % (name, addr - self.addrs[i], " " + mod if mod else "")


def parse_registers(text):
    """{cpu: {reg: value}} from `info registers -a`."""
    cpus, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"CPU#(\d+)", line)
        if m:
            cur = cpus.setdefault(int(m.group(1)), {})
            continue
        if cur is None:
            continue
        for k, v in re.findall(r"([A-Z0-9]+) ?=([0-9a-fA-F]+)", line):
            cur.setdefault(k, int(v, 16))
    return cpus


def stack_words(mon, cpu, rsp):
    """The words from @rsp to the top of its 16 KiB kernel stack (past
    it lies a guard page: the monitor would read nothing at all)."""
    count = min(512, (((rsp | 0x3FFF) + 1) - rsp) // 8)
    mon.cmd("cpu %d" % cpu)
    out = mon.cmd("x/%dgx %#x" % (count, rsp))
    words = []
    for line in out.splitlines():
        m = re.match(r"\s*[0-9a-f]+:((\s+0x[0-9a-f]+)+)\s*$", line)
        if m:
            words += [int(w, 16) for w in m.group(1).split()]
    if not words:
        raise ValueError(out.strip()[:80])
    return words


def main():
    out, kver = sys.argv[1], sys.argv[2]
    nmi = "--nmi" in sys.argv[3:]
    top = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))))
    try:
        mon = Monitor(os.path.join(out, "monitor.sock"))
    except (OSError, EOFError) as e:
        print("no QEMU monitor: %s" % e)
        return 1
    syms = Symbols(kver, out, top)
    print("symbols: %d (kernel %s, %d modules)" %
          (len(syms.addrs), kver, len(syms.ranges)))
    samples = []
    for n in range(3):
        samples.append(parse_registers(mon.cmd("info registers -a")))
        if n < 2:
            time.sleep(1)
    for cpu in sorted(samples[-1]):
        regs = samples[-1][cpu]
        rips = [s.get(cpu, {}).get("RIP", 0) for s in samples]
        irq = "on" if regs.get("RFL", 0) & 0x200 else "OFF"
        print("vCPU %d: interrupts %s, CPL %d, HLT %d" %
              (cpu, irq, regs.get("CPL", -1), regs.get("HLT", 0)))
        for r in rips:
            print("  RIP %#018x %s" % (r, syms.name(r) or "?"))
        print("  RSP %#018x RBP %#018x RAX %#x RDI %#x" %
              (regs.get("RSP", 0), regs.get("RBP", 0), regs.get("RAX", 0),
               regs.get("RDI", 0)))
        if regs.get("CPL", 3) != 0:
            continue
        try:
            words = stack_words(mon, cpu, regs.get("RSP", 0))
        except (OSError, EOFError, ValueError) as e:
            print("  stack: unreadable (%s)" % e)
            continue
        print("  kernel text addresses on the stack, innermost first:")
        shown = 0
        for w in words:
            name = syms.name(w) if w >= 0xffffffff80000000 else None
            if name and "+?" not in name:
                print("    %#018x %s" % (w, name))
                shown += 1
                if shown >= 32:
                    break
    if nmi:
        print("injecting an NMI into every vCPU")
        mon.cmd("nmi")
    return 0


if __name__ == "__main__":
    sys.exit(main())
