#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A bare iSCSI initiator for protocol tests the real initiators cannot
make: it logs in without authentication (RFC 7143 operational stage only)
and then sends and reads raw PDUs.

  iscsi_raw.py keepalive-silent HOST:PORT TARGET INITIATOR WAIT
      log in, expect a NOP-In ping within WAIT seconds, never answer it,
      and expect the target to close the connection within WAIT more.
  iscsi_raw.py keepalive-answer HOST:PORT TARGET INITIATOR SECONDS
      log in, answer every ping for SECONDS; the connection must stay up
      and at least two pings must have come.
  iscsi_raw.py reserve6 HOST:PORT TARGET INITIATOR SECONDS LUN
      log in, RESERVE(6) LUN, print the status, hold the session (and so
      the reservation) for SECONDS, then drop the connection.
  iscsi_raw.py async-logout HOST:PORT TARGET INITIATOR SECONDS
      log in and wait SECONDS for an Async Message asking for a logout
      (the caller disables the TPG meanwhile); answer it with a Logout
      Request and expect the Logout Response, then the connection closed.
  iscsi_raw.py reinstate HOST:PORT TARGET INITIATOR 0
      log in, then log in again on a second connection with the session's
      TSIH and the same CID (connection reinstatement, RFC 7143 6.3.4):
      the first connection must close and the second serve commands; a
      leading-only key it offers (MaxBurstLength) is answered Irrelevant
      (RFC 7143 13: the session's value stands). A second CID (no MC/S:
      MaxConnections=1) and an unknown TSIH must be refused with their
      login status.
  iscsi_raw.py reset-other HOST:PORT TARGET INITIATOR 0
      log in as INITIATOR and INITIATOR.victim; INITIATOR's TARGET WARM
      RESET and TARGET COLD RESET must be refused (AUTHORIZATION FAILED,
      6), the victim's TEST UNIT READY after each GOOD, its connection up.
  iscsi_raw.py cold-reset HOST:PORT TARGET INITIATOR 0
      log in twice (INITIATOR and INITIATOR.other), send TARGET COLD RESET
      on the first: it must answer FUNCTION COMPLETE, then both
      connections must close (RFC 7143 11.5.1), and a new login must work.
  iscsi_raw.py write-same-len HOST:PORT TARGET INITIATOR LUN
      WRITE SAME (10) of 8 blocks with half a block, two blocks and one
      block of data-out: INVALID FIELD IN CDB twice, then GOOD.
  iscsi_raw.py power-on HOST:PORT TARGET INITIATOR LUN
      log in as a new I_T nexus and send TEST UNIT READY to LUN twice: the
      first must get UNIT ATTENTION, POWER ON OR RESET (29/00), the second
      GOOD. (Every other mode takes LUN 0's unit attentions after its
      login, as libiscsi and the Linux initiator do.)
  iscsi_raw.py text-invalid HOST:PORT TARGET INITIATOR 0
      in full feature phase, what libiscsi's iSCSISendTargets.Invalid
      sends: immediate Text Requests (F bit, TTT 0xffffffff, the data's
      NUL included) with SendTargetsPlease=All, SendTargets=Alle,
      SendTargets=A, then SendTargets=All. Each must get a Text Response
      with its ITT within 10 s (RFC 7143 6.2: NotUnderstood, Reject), and
      the last must list TARGET.
  iscsi_raw.py sendtargets-long HOST:PORT PREFIX INITIATOR COUNT
      a Discovery session declaring MaxRecvDataSegmentLength=4096 asks
      for SendTargets=All and follows the Text Responses that continue
      (C bit, TTT; RFC 7143 11.10, 11.11): none may carry more than 4096
      bytes, and the whole answer must name COUNT targets starting with
      PREFIX, with nothing but TargetName and TargetAddress keys. Keys
      sent where only an empty follow-on may come (6.2), and a TTT that
      continues nothing, must each get a Reject.
  iscsi_raw.py text-sequences HOST:PORT TARGET INITIATOR 0
      Text Requests that continue: SendTargets=All split across two PDUs,
      the first with the C bit, must be answered empty (F=0, a TTT) and
      then in full; a request without the F bit must be answered without
      it (RFC 7143 11.11.1) and a TTT, and the empty follow-on with that
      TTT and the F bit gets F=1; then a plain request still works.
  iscsi_raw.py login-auth-none HOST:PORT TARGET INITIATOR 0
      INITIATOR's ACL requires CHAP: a security-stage Login Request that
      offers AuthMethod=None alone (T=1, NSG=1) must end the login with
      AUTHENTICATION FAILURE (0201, RFC 7143 11.13.5) and the connection
      closed, not be answered T=0 (AuthMethod=Reject) request after
      request. Up to three requests are sent.
  iscsi_raw.py login-auth-missing HOST:PORT TARGET INITIATOR 0
      the same with no AuthMethod key at all: a T=1 that would leave the
      security stage unauthenticated ends the login with 0201 too.
  iscsi_raw.py login-changes HOST:PORT TARGET INITIATOR 0
      a login whose second Login Request (after a first one answered
      T=0) changes its ISID, CSG, TSIH, CID or CmdSN: each must be refused
      with INITIATOR ERROR (0200), in a response carrying the ITT of the
      refused request (RFC 7143 11.12), and the connection closed. A
      connection joining a session may send a later CmdSN (11.12.8): that
      login must succeed.

Prints one line per finding; exits 0 when the target behaved, 1 if not.
"""
import select
import socket
import struct
import sys
import time

OP_NOP_OUT, OP_SCSI_CMD, OP_LOGIN, OP_LOGOUT = 0x00, 0x01, 0x03, 0x06
OP_NOP_IN, OP_SCSI_RSP, OP_LOGIN_RSP = 0x20, 0x21, 0x23
OP_LOGOUT_RSP, OP_ASYNC = 0x26, 0x32
OP_TMF_REQ, OP_TMF_RSP = 0x02, 0x22
OP_DATA_IN, OP_DATA_OUT, OP_R2T = 0x25, 0x05, 0x31
OP_TEXT_REQ, OP_TEXT_RSP = 0x04, 0x24
TMF_TARGET_WARM_RESET, TMF_TARGET_COLD_RESET = 0x06, 0x07
IMMEDIATE = 0x40


class Conn:
    def __init__(self, addr, source=None):
        host, port = addr.rsplit(":", 1)
        self.sock = socket.create_connection(
            (host, int(port)), timeout=30,
            source_address=(source, 0) if source else None)
        self.cmdsn = 1
        self.exp_statsn = 0
        self.itt = 1
        self.isid = bytes.fromhex("80000000beef")

    def send(self, bhs, data=b""):
        bhs = bytearray(bhs)
        bhs[5:8] = len(data).to_bytes(3, "big")
        pad = (-len(data)) % 4
        self.sock.sendall(bytes(bhs) + data + b"\0" * pad)

    def recv_exact(self, n, deadline):
        buf = b""
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            # poll, not select: a process with many sockets has
            # descriptors past FD_SETSIZE
            p = select.poll()
            p.register(self.sock, select.POLLIN)
            if not p.poll(left * 1000):
                raise TimeoutError
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise EOFError
            buf += chunk
        return buf

    def recv(self, timeout):
        """One PDU as (opcode, bhs, data); TimeoutError or EOFError."""
        deadline = time.monotonic() + timeout
        bhs = self.recv_exact(48, deadline)
        dlen = int.from_bytes(bhs[5:8], "big")
        ahs = bhs[4] * 4
        rest = self.recv_exact(ahs + dlen + (-dlen) % 4, deadline) if ahs + dlen else b""
        return bhs[0] & 0x3F, bhs, rest[ahs:ahs + dlen]

    def login(self, target, initiator, tsih=0, cid=1, extra=(), settle=True,
              mrdsl=65536):
        """Log in to full feature phase; with no @target, a Discovery
        session. A new normal session then takes LUN 0's unit attentions
        (@settle), as initiators do after a login.
        A target that answers without the T bit and offers keys of its own
        (LIO offers every operational key it was not offered, and will not
        move on until each is answered) gets its own values back."""
        keys = ["InitiatorName=" + initiator] + (
            ["TargetName=" + target, "SessionType=Normal"] if target else
            ["SessionType=Discovery"]) + [
                "HeaderDigest=None", "DataDigest=None",
                "MaxRecvDataSegmentLength=%d" % mrdsl] + list(extra)
        offered = {k.split("=", 1)[0] for k in keys}
        data = ("\0".join(keys) + "\0").encode()
        for _ in range(4):
            # T=1, CSG=1 (operational), NSG=3 (full feature)
            bhs = struct.pack(">BBBBB3s6sHIHHII", IMMEDIATE | OP_LOGIN,
                              0x87, 0, 0, 0, b"\0\0\0",
                              self.isid, tsih, self.itt,
                              cid, 0, self.cmdsn, self.exp_statsn)
            self.send(bhs + b"\0" * 16, data)
            op, rsp, got = self.recv(10)
            if op != OP_LOGIN_RSP:
                raise RuntimeError("login: opcode %#x" % op)
            if rsp[36] != 0:
                raise RuntimeError("login refused: %02x%02x" % (rsp[36], rsp[37]))
            self.exp_statsn = struct.unpack(">I", rsp[24:28])[0] + 1
            self.tsih = struct.unpack(">H", rsp[14:16])[0]
            self.login_keys = got
            if rsp[1] & 0x80 and rsp[1] & 0x03 == 3:
                if settle and target and not tsih:
                    self.settle(0)
                return
            data = answer_offers(got, offered)
            offered |= {k.split("=", 1)[0] for k in
                        data.decode().split("\0") if k}
        raise RuntimeError("login did not reach full feature phase")

    def scsi_no_data(self, lun, cdb):
        """A command without data; returns its SCSI status."""
        self.itt += 1
        bhs = struct.pack(">BBH4xBB6sIIII", OP_SCSI_CMD, 0x81, 0, 0, lun,
                          b"\0" * 6, self.itt, 0, self.cmdsn,
                          self.exp_statsn) + bytes(cdb).ljust(16, b"\0")
        self.cmdsn += 1
        self.send(bhs)
        while True:
            op, rsp, data = self.recv(10)
            if op == OP_SCSI_RSP:
                self.exp_statsn = struct.unpack(">I", rsp[24:28])[0] + 1
                self.last_sense = data[2:]
                return rsp[3]
            if is_ping(op, rsp):
                self.nop_out_answer(rsp)

    def sense_of_last(self):
        """(sense key, ASC, ASCQ) of the last scsi_no_data() response."""
        s = self.last_sense
        if len(s) < 14:
            return 0, 0, 0
        return s[2] & 0x0F, s[12], s[13]

    def settle(self, lun):
        """TEST UNIT READY until no unit attention is left; its status."""
        for _ in range(8):
            st = self.scsi_no_data(lun, [0] * 6)
            if st != 2 or self.sense_of_last()[0] != 6:
                break
        return st

    def scsi_out(self, lun, cdb, data):
        """Send a command whose data goes as immediate data; its ITT."""
        self.itt += 1
        bhs = struct.pack(">BBH4xBB6sIIII", OP_SCSI_CMD, 0xA1, 0, 0, lun,
                          b"\0" * 6, self.itt, len(data), self.cmdsn,
                          self.exp_statsn) + bytes(cdb).ljust(16, b"\0")
        self.cmdsn += 1
        self.send(bhs, data)
        return self.itt

    def status_of(self, itt, timeout=10):
        """(SCSI status, sense data) of command @itt; None on timeout."""
        end = time.monotonic() + timeout
        while True:
            try:
                op, rsp, data = self.recv(max(0.1, end - time.monotonic()))
            except TimeoutError:
                return None
            if is_ping(op, rsp):
                self.nop_out_answer(rsp)
            elif op == OP_SCSI_RSP:
                self.exp_statsn = struct.unpack(">I", rsp[24:28])[0] + 1
                if struct.unpack(">I", rsp[16:20])[0] == itt:
                    return rsp[3], data[2:]

    def hold(self, seconds):
        """Keep the session up, answering pings, for @seconds."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                op, bhs, _ = self.recv(end - time.monotonic())
            except TimeoutError:
                return
            if is_ping(op, bhs):
                self.nop_out_answer(bhs)

    def nop_out_answer(self, nop_in):
        lun, ttt = nop_in[8:16], nop_in[20:24]
        bhs = (bytes([IMMEDIATE | OP_NOP_OUT, 0x80, 0, 0, 0, 0, 0, 0]) + lun +
               b"\xff\xff\xff\xff" + ttt +
               struct.pack(">II", self.cmdsn, self.exp_statsn) + b"\0" * 16)
        self.send(bhs)


class Session(Conn):
    """Commands in flight at once, their answers kept by ITT."""

    def __init__(self, addr, source=None):
        super().__init__(addr, source)
        self.rsp = {}		# ITT -> (status, (key, ASC, ASCQ), data)
        self.tmf_rsp = {}	# ITT -> response
        self.data = {}
        self.r2t = {}		# ITT -> (TTT, offset, length)
        self.r2t_lun = {}	# ITT -> the LUN field of its last R2T
        self.order = []		# ITTs in the order their answers came
        self.last_window = None	# (ExpCmdSN, MaxCmdSN) last seen
        self.last_sense_data = b""	# the sense data of the last response

    def command(self, lun, cdb, out=b"", read_len=0, attr=1, write_len=0):
        """Send a command; @out goes as immediate data, or @write_len
        bytes are announced for Data-Out PDUs (data_out()). @attr: the
        task attribute (0 untagged, 1 SIMPLE, 2 ORDERED, 3 HEAD OF QUEUE)."""
        self.itt += 1
        flags = 0x80 | attr | (0x40 if read_len else 0) | \
            (0x20 if out or write_len else 0)
        # @lun: a LUN below 256, or the eight bytes of a LUN field
        raw = bytes(lun) if isinstance(lun, (bytes, bytearray)) else \
            bytes([0, lun]) + b"\0" * 6
        bhs = struct.pack(">BBH4x8sIIII", OP_SCSI_CMD, flags, 0, raw,
                          self.itt, read_len or write_len or len(out),
                          self.cmdsn, self.exp_statsn)
        self.cmdsn += 1
        self.send(bhs + bytes(cdb).ljust(16, b"\0"), out)
        return self.itt

    def data_out(self, lun, itt, data):
        """Answer the R2T of @itt (pump() has seen it) with @data at once."""
        ttt, offset, _ = self.r2t.pop(itt)
        bhs = struct.pack(">BBH4xBB6sIIIIIII4x", OP_DATA_OUT, 0x80, 0, 0,
                          lun, b"\0" * 6, itt, ttt, 0, self.exp_statsn, 0, 0,
                          offset)
        self.send(bhs, data)

    def tmf(self, function, lun, ref_itt=0xFFFFFFFF, ref_cmdsn=0):
        self.itt += 1
        bhs = struct.pack(">BBH4xBB6sIIIIII8x", IMMEDIATE | OP_TMF_REQ,
                          0x80 | function, 0, 0, lun, b"\0" * 6, self.itt,
                          ref_itt, self.cmdsn, self.exp_statsn, ref_cmdsn, 0)
        self.send(bhs)
        return self.itt

    def pump(self, timeout):
        op, bhs, data = self.recv(timeout)
        itt = struct.unpack(">I", bhs[16:20])[0]
        self.last_window = struct.unpack(">II", bhs[28:36])
        if is_ping(op, bhs):
            self.nop_out_answer(bhs)
        elif op == OP_DATA_IN:
            self.data[itt] = self.data.get(itt, b"") + data
            if bhs[1] & 0x01:
                self.exp_statsn = struct.unpack(">I", bhs[24:28])[0] + 1
                self.rsp[itt] = (bhs[3], (0, 0, 0), self.data.pop(itt))
                self.order.append(itt)
        elif op == OP_SCSI_RSP:
            self.exp_statsn = struct.unpack(">I", bhs[24:28])[0] + 1
            s = data[2:]
            self.last_sense_data = s
            sense = (s[2] & 0x0F, s[12], s[13]) if len(s) >= 14 else (0, 0, 0)
            self.rsp[itt] = (bhs[3], sense, self.data.pop(itt, b""))
            self.order.append(itt)
        elif op == OP_TMF_RSP:
            self.exp_statsn = struct.unpack(">I", bhs[24:28])[0] + 1
            self.tmf_rsp[itt] = bhs[2]
        elif op == OP_R2T:
            self.r2t[itt] = struct.unpack(">I16xII", bhs[20:48])
            self.r2t_lun[itt] = bhs[8:16]

    def pump_for(self, seconds):
        """Take in what comes for @seconds."""
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return
            try:
                self.pump(left)
            except TimeoutError:
                return

    def wait(self, itt, timeout=30):
        """The answer to @itt: (status, sense, data) or a TMF response."""
        end = time.monotonic() + timeout
        while itt not in self.rsp and itt not in self.tmf_rsp:
            self.pump(max(0.1, end - time.monotonic()))
        return self.rsp.pop(itt) if itt in self.rsp else self.tmf_rsp.pop(itt)

    def tur(self, lun):
        return self.wait(self.command(lun, [0] * 6))

    def read_capacity(self, lun):
        st, _, d = self.wait(self.command(lun, [0x9E, 0x10] + [0] * 8 +
                                          [0, 0, 0, 32, 0, 0], read_len=32))
        if st != 0:
            raise RuntimeError("READ CAPACITY (16): status %#x" % st)
        return struct.unpack(">QI", d[:12])

    def read_block(self, lun, lba, bs):
        cdb = bytes([0x88, 0]) + struct.pack(">QI", lba, 1) + b"\0\0"
        return self.wait(self.command(lun, cdb, read_len=bs))


# keys a target declares (RFC 7143 13): they take no answer
DECLARATIVE = {"TargetAlias", "TargetPortalGroupTag", "TargetAddress",
               "MaxRecvDataSegmentLength"}


def answer_offers(data, offered):
    """The answers to the keys a login response @data offers that are not
    in @offered (answers to ours) nor declarative: each with the target's
    own value, which every negotiation type accepts (a value of the
    offered list, the same number, the same boolean)."""
    answers = []
    for kv in data.decode(errors="replace").split("\0"):
        key, eq, value = kv.partition("=")
        if eq and key not in offered and key not in DECLARATIVE:
            answers.append(key + "=" + value.split(",")[0])
    return ("\0".join(answers) + "\0").encode() if answers else b""


def logout(c):
    c.itt += 1
    bhs = struct.pack(">BBH4x8sIHHII", IMMEDIATE | OP_LOGOUT, 0x80, 0, b"\0" * 8,
                      c.itt, 1, 0, c.cmdsn, c.exp_statsn)
    c.send(bhs + b"\0" * 16)


def async_logout(c, seconds):
    end = time.monotonic() + seconds
    while True:
        op, bhs, _ = c.recv(max(0.1, end - time.monotonic()))
        if op == OP_ASYNC:
            break
        if is_ping(op, bhs):
            c.nop_out_answer(bhs)
    event, wait = bhs[36], struct.unpack(">H", bhs[42:44])[0]
    c.exp_statsn = struct.unpack(">I", bhs[24:28])[0] + 1
    print("async event %d, logout within %d s" % (event, wait))
    if event != 1:
        return 1
    logout(c)
    op, bhs, _ = c.recv(10)
    if op != OP_LOGOUT_RSP or bhs[2] != 0:
        print("logout answered with opcode %#x response %d" % (op, bhs[2]))
        return 1
    print("logged out")
    try:
        c.recv(10)
    except EOFError:
        print("connection closed")
        return 0
    print("connection still open after the logout")
    return 1


def login_status(addr, target, initiator, tsih, cid, cmdsn, extra=()):
    """The status of a login on a new connection, as 4 hex digits."""
    c = Conn(addr)
    c.cmdsn = cmdsn
    try:
        c.login(target, initiator, tsih, cid, extra)
    except RuntimeError as e:
        return str(e).rsplit(" ", 1)[-1]
    finally:
        c.sock.close()
    return "0000"


def reinstate(c, addr, target, initiator):
    st = c.scsi_no_data(0, [0] * 6)
    print("first connection: TSIH %#x, TEST UNIT READY status %#x" % (c.tsih, st))
    fails = st != 0
    c2 = Conn(addr)
    c2.cmdsn = c.cmdsn
    c2.login(target, initiator, c.tsih, 1, ["MaxBurstLength=4096"])
    print("same TSIH and CID on a second connection: logged in, TSIH %#x" % c2.tsih)
    fails |= c2.tsih != c.tsih
    # RFC 7143 13: a leading-only key has no bearing on another connection
    answered = [k for k in c2.login_keys.split(b"\0") if k.startswith(b"MaxBurst")]
    print("its MaxBurstLength=4096 answered: %s" % answered)
    fails |= answered != [b"MaxBurstLength=Irrelevant"]
    try:
        c.recv(10)
        print("the replaced connection is still open")
        fails = True
    except (EOFError, ConnectionResetError):
        print("the replaced connection was closed")
    except TimeoutError:
        print("the replaced connection is still open")
        fails = True
    st = c2.scsi_no_data(0, [0] * 6)
    print("reinstated connection: TEST UNIT READY status %#x" % st)
    fails |= st != 0
    st = login_status(addr, target, initiator, c.tsih, 2, c2.cmdsn)
    print("a second CID: login status %s" % st)
    fails |= st != "0206"
    st = login_status(addr, target, initiator, c.tsih ^ 0x5a5a, 1, c2.cmdsn)
    print("an unknown TSIH: login status %s" % st)
    fails |= st != "020a"
    return 1 if fails else 0


def is_ping(op, bhs):
    return op == OP_NOP_IN and bhs[20:24] != b"\xff\xff\xff\xff"


def keepalive_silent(c, wait):
    start = time.monotonic()
    while True:
        op, bhs, _ = c.recv(max(0.1, start + wait - time.monotonic()))
        if is_ping(op, bhs):
            break
    print("ping after %.1f s" % (time.monotonic() - start))
    start = time.monotonic()
    try:
        while True:
            c.recv(max(0.1, start + wait - time.monotonic()))
    except EOFError:
        print("closed %.1f s after the unanswered ping" % (time.monotonic() - start))
        return 0
    except (TimeoutError, ConnectionResetError):
        print("connection still open %d s after the unanswered ping" % wait)
        return 1


def keepalive_answer(c, seconds):
    end = time.monotonic() + seconds
    pings = 0
    try:
        while time.monotonic() < end:
            try:
                op, bhs, _ = c.recv(end - time.monotonic())
            except TimeoutError:
                break
            if is_ping(op, bhs):
                pings += 1
                c.nop_out_answer(bhs)
    except (EOFError, ConnectionResetError):
        print("connection closed although every ping was answered")
        return 1
    print("%d pings answered, connection up after %d s" % (pings, seconds))
    return 0 if pings >= 2 else 1


def closed_within(c, seconds):
    """True if the target closes @c within @seconds (pings are ignored)."""
    deadline = time.monotonic() + seconds
    try:
        while True:
            c.recv(max(0.1, deadline - time.monotonic()))
    except (EOFError, ConnectionResetError):
        return True
    except TimeoutError:
        return False


def tmf_on(c, function):
    """Send TMF @function (LUN 0) on @c: the opcode of the answer, and its
    response code."""
    c.itt += 1
    bhs = struct.pack(">BBH4x8sIIIIII8x", IMMEDIATE | OP_TMF_REQ,
                      0x80 | function, 0, b"\0" * 8, c.itt,
                      0xFFFFFFFF, c.cmdsn, c.exp_statsn, 0, 0)
    c.send(bhs)
    op, rsp, _ = c.recv(30)
    while is_ping(op, rsp):
        c.nop_out_answer(rsp)
        op, rsp, _ = c.recv(30)
    return op, rsp[2]


def cold_reset(addr, target, initiator):
    a, b = Conn(addr), Conn(addr)
    a.login(target, initiator)
    b.login(target, initiator + ".other")
    op, response = tmf_on(a, TMF_TARGET_COLD_RESET)
    print("cold reset: opcode %#x response %d" % (op, response), flush=True)
    ok = op == OP_TMF_RSP and response == 0
    for name, c in (("issuing", a), ("other", b)):
        gone = closed_within(c, 10)
        print("%s connection %s" % (name, "closed" if gone else "still open"))
        ok = ok and gone
    c = Conn(addr)
    c.login(target, initiator)
    # the reset's unit attention (29/xx) may come first
    st = c.scsi_no_data(0, [0] * 6)
    if st != 0:
        st = c.scsi_no_data(0, [0] * 6)
    print("after the reset: TEST UNIT READY status %#x" % st)
    return 0 if ok and st == 0 else 1


def reset_other(addr, target, initiator):
    """TARGET WARM RESET and TARGET COLD RESET from an initiator the ACLs
    do not allow them: refused, and another initiator sees nothing."""
    a, b = Conn(addr), Conn(addr)
    a.login(target, initiator)
    b.login(target, initiator + ".victim")
    b.settle(0)
    ok = True
    for name, function in (("warm", TMF_TARGET_WARM_RESET),
                           ("cold", TMF_TARGET_COLD_RESET)):
        op, r = tmf_on(a, function)
        if op != OP_TMF_RSP:
            r = None
        print("%s reset from another initiator: response %s" % (name, r),
              flush=True)
        st = b.scsi_no_data(0, [0] * 6)
        print("the other initiator after the %s reset: TEST UNIT READY "
              "status %#x sense %x/%02x/%02x" % ((name, st) + b.sense_of_last()),
              flush=True)
        ok = ok and r == 6 and st == 0
    gone = closed_within(b, 3)
    print("the other initiator's connection %s" %
          ("closed" if gone else "still open"))
    return 0 if ok and not gone else 1


def power_on(addr, target, initiator, lun):
    """A new nexus hears POWER ON first from each LU, then nothing."""
    c = Conn(addr)
    c.login(target, initiator, settle=False)
    st = c.scsi_no_data(lun, [0] * 6)
    print("LUN %d, first TEST UNIT READY: status %#x sense %x/%02x/%02x" %
          ((lun, st) + c.sense_of_last()))
    ok = st == 2 and c.sense_of_last() == (6, 0x29, 0)
    st = c.scsi_no_data(lun, [0] * 6)
    print("LUN %d, second TEST UNIT READY: status %#x" % (lun, st))
    return 0 if ok and st == 0 else 1


def write_same_len(addr, target, initiator, lun):
    """WRITE SAME (10) takes one logical block of data-out, no other."""
    c = Session(addr)
    c.login(target, initiator)
    bs = c.read_capacity(lun)[1]
    cdb = bytes([0x41, 0]) + struct.pack(">IBH", 200, 0, 8) + b"\0"
    ok = True
    for n in (bs // 2, 2 * bs, bs):
        st, sense, _ = c.wait(c.command(lun, cdb, b"\x5a" * n))
        print("WRITE SAME (10) with %d bytes: status %#x sense %x/%02x/%02x" %
              ((n, st) + sense))
        ok &= (st, sense) == ((0, (0, 0, 0)) if n == bs else (2, (5, 0x24, 0)))
    return 0 if ok else 1


def text_request(c, text):
    """One immediate Text Request as libiscsi sends it (F bit, TTT
    0xffffffff, the CmdSN of the next command, the terminating NUL in the
    data); the Text Response's data, or what came instead."""
    c.itt += 1
    bhs = struct.pack(">BBH4x8sIIII16x", IMMEDIATE | OP_TEXT_REQ, 0x80, 0,
                      b"\0" * 8, c.itt, 0xFFFFFFFF, c.cmdsn, c.exp_statsn)
    c.send(bhs, text.encode() + b"\0")
    while True:
        try:
            op, rsp, data = c.recv(10)
        except TimeoutError:
            return "no answer within 10 s"
        if is_ping(op, rsp):
            c.nop_out_answer(rsp)
            continue
        itt = struct.unpack(">I", rsp[16:20])[0]
        if op != OP_TEXT_RSP:
            return "opcode %#x (ITT %#x) instead of a Text Response" % (op, itt)
        c.exp_statsn = struct.unpack(">I", rsp[24:28])[0] + 1
        if itt != c.itt:
            return "a Text Response with ITT %#x, not %#x" % (itt, c.itt)
        if not rsp[1] & 0x80:
            return "a Text Response without the F bit"
        return " ".join(k for k in data.decode(errors="replace").split("\0") if k)


def text_pdu(c, flags, data, ttt=0xFFFFFFFF):
    """One immediate Text Request with @flags (F 0x80, C 0x40) and @data
    under the current ITT; the answer as (flags, TTT, keys as one string),
    or a string saying what came instead."""
    bhs = struct.pack(">BBH4x8sIIII16x", IMMEDIATE | OP_TEXT_REQ, flags, 0,
                      b"\0" * 8, c.itt, ttt, c.cmdsn, c.exp_statsn)
    c.send(bhs, data)
    while True:
        try:
            op, rsp, got = c.recv(10)
        except (TimeoutError, EOFError) as e:
            return type(e).__name__
        if is_ping(op, rsp):
            c.nop_out_answer(rsp)
            continue
        if op != OP_TEXT_RSP:
            return "opcode %#x, reason %#x" % (op, rsp[2])
        c.exp_statsn = struct.unpack(">I", rsp[24:28])[0] + 1
        keys = " ".join(k for k in got.decode(errors="replace").split("\0") if k)
        return rsp[1] & 0xC0, struct.unpack(">I", rsp[20:24])[0], keys


def text_sequences(addr, target, initiator):
    """Text Requests that continue (RFC 7143 11.10, 11.11): a key split
    across two PDUs with the C bit, and a request without the F bit."""
    c = Conn(addr)
    c.login(target, initiator)
    ok = True
    # C=1: the first part is answered empty, F=0, with a TTT
    c.itt += 1
    got = text_pdu(c, 0x40, b"SendTarg")
    print("C=1 \"SendTarg\": %s" % (got,), flush=True)
    if not isinstance(got, tuple) or got[0] or got[1] == 0xFFFFFFFF or got[2]:
        ok = False
    else:
        got = text_pdu(c, 0x80, b"ets=All\0", got[1])
        print("F=1 \"ets=All\" with that TTT: %s" % (got,), flush=True)
        ok &= (isinstance(got, tuple) and got[0] == 0x80 and
               got[1] == 0xFFFFFFFF and got[2].startswith("TargetName=" + target))
    # F=0: the answer comes with F=0 and a TTT; the follow-on ends it
    c.itt += 1
    got = text_pdu(c, 0x00, b"SendTargets=All\0")
    print("F=0 SendTargets=All: %s" % (got,), flush=True)
    if not isinstance(got, tuple) or got[0] or got[1] == 0xFFFFFFFF or \
       not got[2].startswith("TargetName=" + target):
        ok = False
    else:
        got = text_pdu(c, 0x80, b"", got[1])
        print("F=1, empty, with that TTT: %s" % (got,), flush=True)
        ok &= isinstance(got, tuple) and got[0] == 0x80 and not got[2]
    # and the session still answers a plain request
    c.itt += 1
    got = text_pdu(c, 0x80, b"SendTargets=All\0")
    print("then SendTargets=All: %s" % (got,), flush=True)
    ok &= isinstance(got, tuple) and got[2].startswith("TargetName=" + target)
    return 0 if ok else 1


def text_invalid(addr, target, initiator):
    c = Conn(addr)
    c.login(target, initiator)
    ok = True
    for text, want in (("SendTargetsPlease=All", "SendTargetsPlease=NotUnderstood"),
                       ("SendTargets=Alle", "SendTargets=Reject"),
                       ("SendTargets=A", "SendTargets=Reject"),
                       ("SendTargets=All", "TargetName=" + target)):
        got = text_request(c, text)
        print("%s: %s" % (text, got), flush=True)
        ok &= got.split(" ")[0] == want
    return 0 if ok else 1


def sendtargets_long(addr, prefix, initiator, count):
    """A Discovery session that takes 4096 bytes per PDU asks for
    SendTargets=All, and follows each Text Response that continues (C bit,
    a TTT) with an empty Text Request of the same ITT and TTT."""
    c = Conn(addr)
    c.login(None, initiator, mrdsl=4096)
    c.itt += 1
    ttt, data, text, pdus, ok = 0xFFFFFFFF, b"SendTargets=All\0", b"", 0, True
    while pdus < 1000:
        bhs = struct.pack(">BBH4x8sIIII16x", IMMEDIATE | OP_TEXT_REQ, 0x80, 0,
                          b"\0" * 8, c.itt, ttt, c.cmdsn, c.exp_statsn)
        c.send(bhs, data)
        data = b""
        try:
            op, rsp, got = c.recv(10)
        except (TimeoutError, EOFError) as e:
            print("Text Response %d: %s" % (pdus + 1, type(e).__name__))
            return 1
        pdus += 1
        if op != OP_TEXT_RSP:
            print("Text Response %d: opcode %#x" % (pdus, op))
            return 1
        c.exp_statsn = struct.unpack(">I", rsp[24:28])[0] + 1
        itt, ttt = struct.unpack(">II", rsp[16:24])
        if itt != c.itt:
            print("Text Response %d: ITT %#x, not %#x" % (pdus, itt, c.itt))
            ok = False
        if len(got) > 4096:
            print("Text Response %d: %d bytes, more than the 4096 declared" %
                  (pdus, len(got)))
            ok = False
        text += got
        if rsp[1] & 0x80:
            if rsp[1] & 0x40 or ttt != 0xFFFFFFFF:
                print("Text Response %d: final, but C bit or TTT %#x" %
                      (pdus, ttt))
                ok = False
            break
        if not rsp[1] & 0x40 or ttt == 0xFFFFFFFF:
            print("Text Response %d: not final, flags %#x, TTT %#x" %
                  (pdus, rsp[1], ttt))
            return 1
    keys = [k for k in text.decode(errors="replace").split("\0") if k]
    names = [k[11:] for k in keys if k.startswith("TargetName=")]
    odd = [k for k in keys if not k.startswith(("TargetName=", "TargetAddress="))]
    mine = len([n for n in names if n.startswith(prefix)])
    print("SendTargets=All: %d Text Responses, %d bytes, %d targets, "
          "%d of %d named %s*, %d other keys" %
          (pdus, len(text), len(names), mine, count, prefix, len(odd)),
          flush=True)
    # text where only an empty request may come (RFC 7143 6.2): Reject,
    # Protocol Error (0x04)
    c.itt += 1
    got = text_pdu(c, 0x80, b"SendTargets=All\0")
    if isinstance(got, tuple) and got[0] == 0x40:
        got = text_pdu(c, 0x80, b"SendTargets=All\0", got[1])
    print("keys in the follow-on of a continued answer: %s" %
          ("Reject, reason %s" % got.split()[-1] if isinstance(got, str) and
           got.startswith("opcode 0x3f") else got,), flush=True)
    ok &= got == "opcode 0x3f, reason 0x4"
    # a TTT that continues nothing: Reject, Invalid PDU field (0x09)
    c.itt += 1
    c.send(struct.pack(">BBH4x8sIIII16x", IMMEDIATE | OP_TEXT_REQ, 0x80, 0,
                       b"\0" * 8, c.itt, 0x1234, c.cmdsn, c.exp_statsn))
    try:
        op, rsp, _ = c.recv(10)
    except (TimeoutError, EOFError) as e:
        op, rsp = type(e).__name__, b"\0" * 48
    print("a Text Request with TTT 0x1234: %s, reason %#x" %
          ("Reject" if op == 0x3F else op, rsp[2]), flush=True)
    ok &= op == 0x3F and rsp[2] == 0x09
    return 0 if ok and mine == count and not odd else 1


def login_request(c, flags, keys, itt, isid=None, tsih=0, cid=1, cmdsn=None):
    """One Login Request on @c: @flags as on the wire (T, C, CSG, NSG)."""
    data = ("\0".join(keys) + "\0").encode() if keys else b""
    bhs = struct.pack(">BBBBB3s6sHIHHII", IMMEDIATE | OP_LOGIN, flags, 0, 0,
                      0, b"\0\0\0", isid or c.isid, tsih, itt, cid, 0,
                      c.cmdsn if cmdsn is None else cmdsn, c.exp_statsn)
    c.send(bhs + b"\0" * 16, data)


def login_response(c, timeout=10):
    """The next Login Response on @c: (status as 4 hex digits, T bit, ITT,
    its keys as one string, TSIH); None if the connection closed or
    nothing came within @timeout."""
    try:
        op, rsp, data = c.recv(timeout)
    except (TimeoutError, EOFError, ConnectionResetError):
        return None
    if op != OP_LOGIN_RSP:
        return "opcode %#x" % op, 0, 0, "", 0
    c.exp_statsn = struct.unpack(">I", rsp[24:28])[0] + 1
    text = " ".join(k for k in data.decode(errors="replace").split("\0") if k)
    return ("%02x%02x" % (rsp[36], rsp[37]), rsp[1] >> 7,
            struct.unpack(">I", rsp[16:20])[0], text,
            struct.unpack(">H", rsp[14:16])[0])


def login_auth_none(addr, target, initiator, offer="AuthMethod=None"):
    """AuthMethod=None alone (or, with no @offer, no AuthMethod at all),
    where the initiator's ACL requires CHAP."""
    c = Conn(addr)
    keys = ["InitiatorName=" + initiator, "TargetName=" + target,
            "SessionType=Normal"] + ([offer] if offer else [])
    got = None
    for n in range(1, 4):
        # T=1, CSG=0 (security), NSG=1; later requests carry no keys
        login_request(c, 0x81, keys if n == 1 else [], 0x10)
        got = login_response(c)
        if got is None:
            print("request %d: no answer, the connection closed" % n)
            return 1
        print("request %d: login status %s, T=%d, keys: %s" %
              (n, got[0], got[1], got[3] or "none"), flush=True)
        if got[0] != "0000" or got[1]:
            break
    gone = closed_within(c, 10)
    print("%s where CHAP is required: login status %s at "
          "request %d, the connection %s" %
          (offer or "No AuthMethod", got[0], n,
           "closed" if gone else "still open"))
    c.sock.close()
    return 0 if got[0] == "0201" and gone else 1


def login_change(addr, target, initiator, what, tsih=0, cmdsn=None):
    """A login on a new connection whose first request (CSG=1, T=0) is
    answered T=0, and whose second (ITT 0x200 where @what changes the
    ITT too, else the first's 0x100) changes @what: ISID, CSG, TSIH, CID,
    CmdSN; "later CmdSN" is one more than the first's, as on a connection
    joining session @tsih. Returns (status, its ITT, connection closed)."""
    c = Conn(addr)
    first = cmdsn if cmdsn is not None else c.cmdsn
    keys = ["InitiatorName=" + initiator, "TargetName=" + target,
            "SessionType=Normal", "HeaderDigest=None", "DataDigest=None"]
    login_request(c, 0x04, keys, 0x100, tsih=tsih, cmdsn=first)
    got = login_response(c)
    if got is None or got[0] != "0000" or got[1]:
        c.sock.close()
        return "first request answered %s" % (got,), 0, False
    flags, itt, isid, cid, sn = 0x87, 0x100, None, 1, first
    if what == "ISID":
        isid, itt = bytes.fromhex("80000000cafe"), 0x200
    elif what == "CSG":
        flags, itt = 0x00, 0x200
    elif what == "TSIH":
        tsih = 0x1234
    elif what == "CID":
        cid = 2
    elif what == "CmdSN":
        sn = first + 5
    elif what == "later CmdSN":
        sn = first + 1
    login_request(c, flags, [], itt, isid=isid, tsih=tsih, cid=cid, cmdsn=sn)
    got = login_response(c)
    if got is None:
        c.sock.close()
        return "none, the connection closed", 0, True
    gone = got[0] != "0000" and closed_within(c, 10)
    c.sock.close()
    return got[0], got[2], gone


def login_changes(addr, target, initiator):
    ok = True
    for what in ("ISID", "CSG", "TSIH", "CID", "CmdSN"):
        st, itt, gone = login_change(addr, target, initiator, what)
        want = 0x200 if what in ("ISID", "CSG") else 0x100
        print("changed %s%s: login status %s, ITT %#x (the refused "
              "request's: %#x), connection %s" %
              (what, " and ITT" if want == 0x200 else "", st, itt, want,
               "closed" if gone else "not closed"), flush=True)
        ok &= st == "0200" and itt == want and gone
    # RFC 7143 11.12.8: another connection's commands may move CmdSN on
    # meanwhile; the session's connection (same CID) is reinstated
    c = Conn(addr)
    c.login(target, initiator)
    st, _, _ = login_change(addr, target, initiator, "later CmdSN",
                            tsih=c.tsih, cmdsn=c.cmdsn)
    print("joining connection, later CmdSN: login status %s" % st)
    ok &= st == "0000"
    c.sock.close()
    return 0 if ok else 1


def report_luns(addr, target, initiator):
    """REPORT LUNS with an allocation length of 1 MiB: how many LUNs it
    lists, and the list length it states."""
    c = Session(addr)
    c.login(target, initiator)
    alloc = 1 << 20
    st, sense, d = c.wait(c.command(0, bytes([0xA0, 0, 0, 0, 0, 0]) +
                                    struct.pack(">I", alloc) + b"\0\0",
                                    read_len=alloc))
    if st != 0:
        print("REPORT LUNS: status %#x sense %x/%02x/%02x" % ((st,) + sense))
        return 1
    stated = struct.unpack(">I", d[:4])[0] // 8
    luns = [struct.unpack(">H", d[i:i + 2])[0] & 0x3FFF
            for i in range(8, len(d) - 7, 8)]
    print("REPORT LUNS: %d LUNs listed, %d stated, highest %d" %
          (len(luns), stated, max(luns) if luns else -1), flush=True)
    return 0


def main():
    mode, addr, target, initiator, secs = sys.argv[1:6]
    if mode == "login-auth-none":
        return login_auth_none(addr, target, initiator)
    if mode == "login-auth-missing":
        return login_auth_none(addr, target, initiator, None)
    if mode == "login-changes":
        return login_changes(addr, target, initiator)
    if mode == "report-luns":
        return report_luns(addr, target, initiator)
    if mode == "sendtargets-long":
        return sendtargets_long(addr, target, initiator, int(secs))
    if mode == "text-invalid":
        return text_invalid(addr, target, initiator)
    if mode == "text-sequences":
        return text_sequences(addr, target, initiator)
    if mode == "write-same-len":
        return write_same_len(addr, target, initiator, int(secs))
    if mode == "reset-other":
        return reset_other(addr, target, initiator)
    if mode == "cold-reset":
        return cold_reset(addr, target, initiator)
    if mode == "power-on":
        return power_on(addr, target, initiator, int(secs))
    c = Conn(addr)
    c.login(target, initiator)
    # for a caller that must act once the session is up
    print("logged in", flush=True)
    try:
        if mode == "keepalive-silent":
            return keepalive_silent(c, int(secs))
        if mode == "keepalive-answer":
            return keepalive_answer(c, int(secs))
        if mode == "async-logout":
            return async_logout(c, int(secs))
        if mode == "reinstate":
            return reinstate(c, addr, target, initiator)
        if mode == "reserve6":
            c.settle(int(sys.argv[6]))
            st = c.scsi_no_data(int(sys.argv[6]), [0x16, 0, 0, 0, 0, 0])
            print("RESERVE(6) status %#x" % st, flush=True)
            c.hold(int(secs))
            return 0 if st == 0 else 1
    except TimeoutError:
        print("no ping within %s s" % secs)
        return 1
    print("unknown mode " + mode)
    return 2


if __name__ == "__main__":
    sys.exit(main())
