#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Objects that outlive the connection or session that made them, with the
bare initiator of iscsi_raw.py. What a wrong lifetime does shows on the
debug kernel (KASAN) in the guest's kernel log; here each mode checks that
the target still serves afterwards.

  iscsi_lifetime.py MODE HOST:PORT TARGET INITIATOR LUN

  tmf-after-close  nexus Y reads from LUN (a slow backstore: its command
                   stays in flight for seconds); nexus X sends LOGICAL UNIT
                   RESET to LUN and closes at once, then Y closes: the
                   reset's response comes after both sessions are gone.
  mcs-abort        a session of two connections (MaxConnections=2): a WRITE
                   on connection A gets its R2T, A sends half of a Data-Out
                   PDU, connection B aborts the WRITE (ABORT TASK), then A
                   sends the rest of the PDU into the aborted command.
  discovery-tmf    a discovery session sends ABORT TASK and TARGET WARM
                   RESET: they have no task set to act on, and must be
                   refused without harm.
  cut-immediate    a WRITE whose immediate data is cut off half-way by the
                   connection closing (RST): its session must go.
  hold-read        log in, send a READ to LUN (a backstore that takes its
                   time) and keep the connection until the target closes
                   it: the caller disables the TPG meanwhile.
  reinstate-wait   a session sends a READ to LUN (a backstore that takes
                   3 s); while it is in the backstore the same initiator
                   and ISID log in again (session reinstatement, RFC 7143
                   6.3.5): the new login is answered only once the old
                   session's READ has left the backstore, so that nothing
                   of the old session runs after the new one's commands.
  late-login       send a first Login Request that does not move to full
                   feature phase (T=0), print "first login PDU answered",
                   wait until the file LUN names exists (the caller has
                   disabled and removed the TPG meanwhile), then ask for
                   full feature phase: the login must be refused or the
                   connection closed, never a session on a TPG that is gone.
"""
import os
import socket
import struct
import sys
import time

from iscsi_raw import IMMEDIATE, OP_DATA_OUT, OP_LOGIN, OP_LOGIN_RSP, Conn, \
    Session, closed_within

TMF_ABORT_TASK, TMF_LUN_RESET = 0x01, 0x05


def fresh_tur(addr, target, initiator, lun):
    """A new session's TEST UNIT READY to @lun, past its unit attentions."""
    z = Session(addr)
    z.login(target, initiator + ".after")
    st = z.settle(lun)
    z.sock.close()
    return st


def serves_afterwards(addr, target, initiator, lun):
    """True when a new session still gets GOOD from @lun."""
    st = fresh_tur(addr, target, initiator, lun)
    print("a new session afterwards: TEST UNIT READY status %#x" % st)
    return st == 0


def read10(lba, blocks):
    return bytes([0x28, 0]) + struct.pack(">IBH", lba, 0, blocks) + b"\0"


def tmf_after_close(addr, target, initiator, lun):
    y = Session(addr)
    y.login(target, initiator + ".y")
    y.settle(lun)
    y.command(lun, read10(0, 1), read_len=512)
    x = Session(addr)
    x.login(target, initiator + ".x")
    x.settle(lun)
    x.tmf(TMF_LUN_RESET, lun)
    x.sock.close()
    print("LOGICAL UNIT RESET sent behind a slow READ, its connection closed")
    time.sleep(0.5)
    y.sock.close()
    print("the reading session closed too")
    time.sleep(6)
    return serves_afterwards(addr, target, initiator, lun)


def data_out_head(lun, itt, ttt, offset, length, exp_statsn):
    bhs = bytearray(struct.pack(">BBH4xBB6sIIIIIII4x", OP_DATA_OUT, 0x80, 0,
                                0, lun, b"\0" * 6, itt, ttt, 0, exp_statsn,
                                0, 0, offset))
    bhs[5:8] = length.to_bytes(3, "big")
    return bytes(bhs)


def mcs_abort(addr, target, initiator, lun):
    a = Session(addr)
    a.login(target, initiator, extra=["MaxConnections=2", "InitialR2T=Yes",
                                      "ImmediateData=No"])
    a.settle(lun)
    b = Session(addr)
    b.cmdsn = a.cmdsn
    b.login(target, initiator, a.tsih, 2)
    n = 16
    write = bytes([0x2A, 0]) + struct.pack(">IBH", 0, 0, n) + b"\0"
    itt = a.command(lun, write, write_len=n * 512)
    cmdsn = a.cmdsn - 1
    end = time.monotonic() + 10
    while itt not in a.r2t and time.monotonic() < end:
        a.pump(1)
    if itt not in a.r2t:
        print("no R2T for the WRITE")
        return False
    ttt, offset, length = a.r2t.pop(itt)
    head = data_out_head(lun, itt, ttt, offset, length, a.exp_statsn)
    a.sock.sendall(head + b"\xa5" * (length // 2))
    print("half of a Data-Out PDU of %d bytes sent on connection 1" % length)
    time.sleep(0.5)
    b.cmdsn = a.cmdsn
    tmf = b.tmf(TMF_ABORT_TASK, lun, ref_itt=itt, ref_cmdsn=cmdsn)
    try:
        rsp = b.wait(tmf, 10)
        print("ABORT TASK on connection 2: response %d" % rsp)
    except TimeoutError:
        print("ABORT TASK on connection 2: no response")
    time.sleep(0.5)
    try:
        a.sock.sendall(b"\x5a" * (length - length // 2))
        print("the rest of the Data-Out PDU sent on connection 1")
        a.pump_for(1)
    except (OSError, EOFError, TimeoutError):
        print("connection 1 was closed")
    a.sock.close()
    b.sock.close()
    time.sleep(1)
    return serves_afterwards(addr, target, initiator, lun)


def hold_read(addr, target, initiator, lun):
    c = Session(addr)
    c.login(target, initiator)
    c.settle(lun)
    c.command(lun, read10(0, 1), read_len=512)
    print("READ sent", flush=True)
    try:
        c.pump_for(120)
    except (EOFError, ConnectionError):
        print("the target closed the connection")
        return True
    return False


def discovery_tmf(addr, target, initiator, lun):
    c = Session(addr)
    keys = ["InitiatorName=" + initiator, "SessionType=Discovery",
            "HeaderDigest=None", "DataDigest=None"]
    bhs = struct.pack(">BBBBB3s6sHIHHII", 0x40 | 0x03, 0x87, 0, 0, 0,
                      b"\0\0\0", bytes.fromhex("80000000beef"), 0, 1, 1, 0,
                      1, 0) + b"\0" * 16
    c.send(bhs, ("\0".join(keys) + "\0").encode())
    op, rsp, _ = c.recv(10)
    if op != 0x23 or rsp[36] != 0:
        print("discovery login: opcode %#x status %02x%02x" %
              (op, rsp[36], rsp[37]))
        return False
    c.exp_statsn = struct.unpack(">I", rsp[24:28])[0] + 1
    c.cmdsn = 1
    for name, fn in (("ABORT TASK", TMF_ABORT_TASK),
                     ("TARGET WARM RESET", 0x06)):
        c.tmf(fn, 0, ref_itt=0x1234)
        try:
            op, rsp, _ = c.recv(10)
            print("%s in a discovery session: opcode %#x, response %d" %
                  (name, op, rsp[2]))
        except (EOFError, ConnectionError):
            print("%s in a discovery session: connection closed" % name)
            break
    c.sock.close()
    return serves_afterwards(addr, target, initiator, lun)


def cut_immediate(addr, target, initiator, lun):
    c = Session(addr)
    c.login(target, initiator)
    c.settle(lun)
    c.itt += 1
    write = bytes([0x2A, 0]) + struct.pack(">IBH", 0, 0, 8) + b"\0"
    bhs = bytearray(struct.pack(">BBH4xBB6sIIII", 0x01, 0xA1, 0, 0, lun,
                                b"\0" * 6, c.itt, 4096, c.cmdsn,
                                c.exp_statsn) + write.ljust(16, b"\0"))
    bhs[5:8] = (4096).to_bytes(3, "big")
    c.sock.sendall(bytes(bhs) + b"\xa5" * 100)
    time.sleep(0.5)
    listed = open("/sys/kernel/config/target/iscsi/%s/tpgt_1/dynamic_sessions"
                  % target).read()
    print("the session is listed in dynamic_sessions: %s" %
          ("yes" if initiator in listed else "no"))
    if initiator not in listed:
        return False
    # RST: the rest of the data never comes
    c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                      struct.pack("ii", 1, 0))
    c.sock.close()
    print("a WRITE announced 4096 bytes of immediate data, 100 sent, then RST")
    return True


def reinstate_wait(addr, target, initiator, lun):
    old = Session(addr)
    old.login(target, initiator)
    old.settle(lun)
    old.command(lun, read10(0, 8), read_len=4096)
    t0 = time.monotonic()
    time.sleep(0.3)
    new = Session(addr)
    new.login(target, initiator, settle=False)
    took = time.monotonic() - t0
    print("a READ of the old session in a 3 s backstore; the reinstating "
          "login answered %.1f s after it" % took)
    st = new.settle(lun)
    print("the new session: TEST UNIT READY status %#x" % st)
    gone = closed_within(old, 5)
    print("the old session's connection %s" % ("closed" if gone else "open"))
    return took > 2.0 and st == 0 and gone


def login_pdu(c, transit, data):
    # CSG=1 (operational), NSG=3 (full feature); T as asked
    flags = (0x80 if transit else 0) | 0x07
    bhs = struct.pack(">BBBBB3s6sHIHHII", IMMEDIATE | OP_LOGIN, flags, 0, 0, 0,
                      b"\0\0\0", bytes.fromhex("80000000beef"), 0, c.itt, 1,
                      0, c.cmdsn, c.exp_statsn)
    c.send(bhs + b"\0" * 16, data)
    op, rsp, _ = c.recv(30)
    if op != OP_LOGIN_RSP:
        raise RuntimeError("login: opcode %#x" % op)
    c.exp_statsn = struct.unpack(">I", rsp[24:28])[0] + 1
    return rsp


def late_login(addr, target, initiator, go_file):
    c = Conn(addr)
    keys = ["InitiatorName=" + initiator, "TargetName=" + target,
            "SessionType=Normal", "HeaderDigest=None", "DataDigest=None"]
    rsp = login_pdu(c, False, ("\0".join(keys) + "\0").encode())
    print("first login PDU answered: status %02x%02x, T=%d" %
          (rsp[36], rsp[37], rsp[1] >> 7), flush=True)
    if rsp[36]:
        return False
    while not os.path.exists(go_file):
        time.sleep(0.2)
    try:
        rsp = login_pdu(c, True, b"")
    except (EOFError, ConnectionError, TimeoutError) as e:
        print("final login PDU: the connection closed (%s)" % type(e).__name__)
        return True
    st = "%02x%02x" % (rsp[36], rsp[37])
    if st == "0000":
        print("final login PDU: logged in, status 0000, to a TPG that is gone")
        return False
    print("final login PDU: refused, status %s" % st)
    return True


def main():
    mode, addr, target, initiator, lun = sys.argv[1:6]
    if mode == "late-login":
        try:
            return 0 if late_login(addr, target, initiator, lun) else 1
        except (TimeoutError, EOFError, ConnectionError, RuntimeError) as e:
            print("%s: %r" % (mode, e))
            return 1
    modes = {"tmf-after-close": tmf_after_close, "mcs-abort": mcs_abort,
             "hold-read": hold_read, "discovery-tmf": discovery_tmf,
             "cut-immediate": cut_immediate,
             "reinstate-wait": reinstate_wait}
    try:
        return 0 if modes[mode](addr, target, initiator, int(lun)) else 1
    except (TimeoutError, EOFError, ConnectionError, RuntimeError) as e:
        print("%s: %r" % (mode, e))
        return 1


if __name__ == "__main__":
    sys.exit(main())
