#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Multiple connections per session (MC/S), with the bare initiator of
iscsi_raw.py. The TPG must allow MaxConnections=2.

  iscsi_mcs.py HOST:PORT TARGET INITIATOR LUN [ACL_DIR]
      log in with MaxConnections=2, add a second connection (same ISID and
      TSIH, CID 2); a third is refused with TOO MANY CONNECTIONS. Two TEST
      UNIT READYs of the new nexus, the later CmdSN sent first on
      connection 2: it must wait for the earlier one from connection 1,
      which so reaches the LU first and takes the nexus's POWER ON unit
      attention (taken when a command reaches the LU, unlike the order in
      which SIMPLE commands then run). Logout of connection 2 sent on
      connection 1 closes it and connection 1 goes on. Then a second connection
      that simply drops ends the whole session (ERL 0). With ACL_DIR (the
      configfs ACL INITIATOR logs in under), what rtslib-fb, and so
      `targetcli sessions`, reads of the session while both connections
      are up.

Prints one line per finding; exits 0 when the target behaved, 1 if not.
"""
import struct
import subprocess
import sys
import time

from iscsi_raw import IMMEDIATE, OP_LOGOUT, OP_LOGOUT_RSP, Session, \
    closed_within, login_status


def logout_cid(c, cid):
    """Logout "close the connection" @cid, sent on @c; its response."""
    c.itt += 1
    bhs = struct.pack(">BBH4x8sIHHII", IMMEDIATE | OP_LOGOUT, 0x81, 0,
                      b"\0" * 8, c.itt, cid, 0, c.cmdsn, c.exp_statsn)
    c.send(bhs + b"\0" * 16)
    end = time.monotonic() + 10
    while True:
        op, rsp, _ = c.recv(max(0.1, end - time.monotonic()))
        if op == OP_LOGOUT_RSP:
            c.exp_statsn = struct.unpack(">I", rsp[24:28])[0] + 1
            return rsp[2]


# rtslib-fb's own parser of an ACL's info file (Debian's python3 has it)
RTSLIB = """
import sys
from rtslib_fb.target import NodeACL
class Acl:
    path = sys.argv[1]
s = NodeACL._get_session(Acl())
print("rtslib sees: %s" % ("no session" if s is None else
      "session %d %s %s, connections %s" % (s["id"], s["type"], s["state"],
      " ".join("%d:%s:%s:%s" % (c["cid"], c["cstate"], c["address"],
                                c["transport"]) for c in s["connections"]))))
"""


def rtslib_session(acl_dir):
    r = subprocess.run(["/usr/bin/python3", "-c", RTSLIB, acl_dir],
                       capture_output=True, text=True, timeout=120)
    print((r.stdout + r.stderr).strip())


def join(addr, target, initiator, a, cid):
    b = Session(addr)
    b.cmdsn = a.cmdsn
    b.login(target, initiator, a.tsih, cid)
    return b


def main():
    addr, target, initiator, lun = sys.argv[1:5]
    lun = int(lun)
    ok = True

    a = Session(addr)
    a.login(target, initiator, extra=["MaxConnections=2"], settle=False)
    b = join(addr, target, initiator, a, 2)
    print("second connection: logged in, TSIH %#x (session %#x)" %
          (b.tsih, a.tsih))
    ok &= b.tsih == a.tsih
    st = login_status(addr, target, initiator, a.tsih, 3, a.cmdsn)
    print("third connection: login status %s" % st)
    ok &= st == "0206"
    if len(sys.argv) > 5:
        rtslib_session(sys.argv[5])

    n = a.cmdsn
    b.cmdsn = n + 1
    itt_b = b.command(lun, [0] * 6)
    try:
        b.pump(0.5)
        early = b.rsp.get(itt_b)
    except TimeoutError:
        early = None
    print("the later CmdSN alone, on connection 2: %s" %
          ("answered early" if early else "waits"))
    ok &= early is None
    a.cmdsn = n
    st_a, sense_a, _ = a.wait(a.command(lun, [0] * 6))
    st_b, sense_b, _ = b.wait(itt_b)
    print("the earlier CmdSN, on connection 1: status %#x sense %x/%02x/%02x" %
          ((st_a,) + sense_a))
    print("the later CmdSN, on connection 2: status %#x sense %x/%02x/%02x" %
          ((st_b,) + sense_b))
    ok &= (st_a, sense_a) == (2, (6, 0x29, 0)) and st_b == 0
    a.cmdsn = n + 2

    r = logout_cid(a, 2)
    gone = closed_within(b, 10)
    print("logout of connection 2 on connection 1: response %d, connection 2 %s" %
          (r, "closed" if gone else "still open"))
    ok &= r == 0 and gone
    st = a.tur(lun)[0]
    print("connection 1 after that: TEST UNIT READY status %#x" % st)
    ok &= st == 0

    b = join(addr, target, initiator, a, 2)
    print("connection 2 again: logged in")
    b.sock.close()
    gone = closed_within(a, 10)
    print("connection 2 dropped: connection 1 %s" %
          ("closed, the session ended (ERL 0)" if gone else "still open"))
    ok &= gone
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
