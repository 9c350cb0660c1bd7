#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Connection liveness: NOP-In pings on a quiet full-feature connection,
# the connection closed when a ping goes unanswered, kept when answered,
# no pings with nopin_timeout=0; a connection that never logs in is closed
# after the login timeout; disabling the TPG asks the initiator to log out
# (Async Message) before it closes the connection.
. ./lib.sh

RAW=$(pwd)/iscsi_raw.py
INI=iqn.2026-11.org.ktarget:raw
ACL=$KT_CFS/iscsi/$KT_IQN/tpgt_1/acls/$INI

main() {
	local out pid st
	plan 12
	check "target set up" kt_iscsi_setup
	check "an ACL with short keepalive timeouts" sh -c "mkdir $ACL &&
		echo 3 > $ACL/attrib/nopin_timeout &&
		echo 3 > $ACL/attrib/nopin_response_timeout"

	kmsg_mark
	out=$(timeout 60 python3 "$RAW" keepalive-silent 127.0.0.1:3260 $KT_IQN $INI 10 2>&1)
	echo "$out" | sed 's/^/# /'
	check "a quiet connection is pinged, and closed when it does not answer" \
		test "$(echo "$out" | grep -c 'ping after\|closed')" = 2
	check "the close is logged once" sh -c \
		"[ \$(dmesg | sed -n '/$KT_KMSG_MARK/,\$p' | grep -c 'no answer to a NOP-In') = 1 ]"

	out=$(timeout 60 python3 "$RAW" keepalive-answer 127.0.0.1:3260 $KT_IQN $INI 12 2>&1)
	echo "$out" | sed 's/^/# /'
	check "a connection that answers its pings stays up" \
		sh -c "echo '$out' | grep -q 'pings answered'"

	echo 0 > $ACL/attrib/nopin_timeout
	out=$(timeout 60 python3 "$RAW" keepalive-silent 127.0.0.1:3260 $KT_IQN $INI 6 2>&1)
	echo "$out" | sed 's/^/# /'
	check "nopin_timeout=0: no pings" sh -c "echo '$out' | grep -q 'no ping within'"

	kmsg_mark
	check "a connection that never logs in is closed after the login timeout" \
		timeout 30 python3 -c "
import socket, time
s = socket.create_connection(('127.0.0.1', 3260))
s.settimeout(25)
t = time.monotonic()
assert s.recv(1) == b''
print('# closed after %.1f s' % (time.monotonic() - t))"
	check "the login timeout is logged" sh -c \
		"dmesg | sed -n '/$KT_KMSG_MARK/,\$p' | grep -q 'login timed out'"

	# an initiator that logs out when asked ends the wait; one that does
	# not is closed after the grace period, and the log says so
	python3 "$RAW" async-logout 127.0.0.1:3260 $KT_IQN $INI 60 > /tmp/kt-async 2>&1 &
	pid=$!
	kt_wait_for 60 grep -q 'logged in' /tmp/kt-async
	kmsg_mark
	echo 0 > $KT_CFS/iscsi/$KT_IQN/tpgt_1/enable
	wait $pid
	st=$?
	sed 's/^/# /' /tmp/kt-async
	check_eq "TPG disable: Async Message asks for a logout, the initiator logs out" $st 0
	check "the disable ended when the session logged out, not after the grace period" \
		sh -c "! dmesg | sed -n '/$KT_KMSG_MARK/,\$p' | grep -q 'did not log out within'"
	echo 1 > $KT_CFS/iscsi/$KT_IQN/tpgt_1/enable

	timeout 90 python3 "$RAW" keepalive-silent 127.0.0.1:3260 $KT_IQN $INI 60 > /tmp/kt-async 2>&1 &
	pid=$!
	kt_wait_for 60 grep -q 'logged in' /tmp/kt-async
	kmsg_mark
	echo 0 > $KT_CFS/iscsi/$KT_IQN/tpgt_1/enable
	wait $pid
	check "an initiator that ignores the Async Message is closed after the grace period" \
		sh -c "dmesg | sed -n '/$KT_KMSG_MARK/,\$p' | grep -q '1 session(s) did not log out within 2 s'"
	echo 1 > $KT_CFS/iscsi/$KT_IQN/tpgt_1/enable

	rmdir $ACL
	kt_iscsi_teardown
	check "rmmod ktarget_iscsi" rmmod ktarget_iscsi
}

main "$@"
