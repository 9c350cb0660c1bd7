#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The include rules that keep the tree's layers apart (Documentation/design.md,
# "Layout"). Each rule names a set of files and the ktarget headers they may
# include, <ktarget/...> or "..." alike; system headers (<linux/...>,
# <rdma/...>, <net/...>) are not checked. Prints every include that breaks
# a rule and exits 1 if there is one.
#
# Usage: tools/check-layers.sh [TREE]   (default: the checkout this is in)
cd "${1:-$(dirname "$0")/..}" || exit 2

status=0

# rule NAME FILE-REGEX ALLOWED-REGEX [EXCEPT-REGEX FORBIDDEN-REGEX]: every
# ktarget include of the git-tracked files matching FILE-REGEX matches
# ALLOWED-REGEX; and, where given, none matches FORBIDDEN-REGEX, except in
# the files matching EXCEPT-REGEX.
rule() {
	local name=$1 files=$2 allowed=$3 except=${4:-^$} forbidden=${5:-^$}
	local f inc bad=0

	for f in $(git ls-files 'drivers/*.[ch]' 'include/*.h' | grep -E "$files"); do
		while IFS= read -r inc; do
			if grep -qE "^($allowed)\$" <<< "$inc" &&
			   { grep -qE "$except" <<< "$f" ||
			     ! grep -qE "^($forbidden)\$" <<< "$inc"; }; then
				continue
			fi
			echo "check-layers: $f: $inc: $name"
			bad=1
		done < <(sed -nE 's/^#include[[:space:]]+(<ktarget\/[^>]*>|"[^"]*").*/\1/p' "$f")
	done
	[ $bad = 0 ] || status=1
}

# The pure protocol code builds in userspace too: wire formats only.
rule "proto/ includes only <ktarget/proto/*.h>" \
	'^(drivers/target/proto/|include/ktarget/proto/)' \
	'<ktarget/proto/[a-z_]+\.h>'

# A backstore sees the backend interface, never a CDB or the core.
rule "a backstore includes only <ktarget/backend.h>" \
	'^drivers/target/backend/[^/]+$' \
	'<ktarget/(backend|compat|version)\.h>'
# A backstore of several files (a folder) has its own headers besides.
rule "the user backstore includes only <ktarget/backend.h> and its own headers" \
	'^drivers/target/backend/user/' \
	'<ktarget/(backend|compat|version)\.h>|"(user|entry)\.h"'

# The DLM module knows the core only through what the core asks of it.
rule "dlm/ includes only <ktarget/cluster.h> and its own header" \
	'^drivers/target/dlm/' \
	'<ktarget/cluster\.h>|"cluster_lu\.h"'

# iSCSI transports see ktarget_iscsi only through the transport interface.
rule "iscsi/tcp/ includes only the transport interface and its own header" \
	'^drivers/target/iscsi/tcp/' \
	'<ktarget/(iscsi_transport|proto/iscsi_pdu)\.h>|"tcp\.h"'
rule "isert includes only the transport interface and its own header" \
	'^drivers/infiniband/ulp/isert/' \
	'<ktarget/(iscsi_transport|cmd|version|proto/iscsi_pdu)\.h>|"isert\.h"'

# The interfaces between modules stand alone: no module's own header.
rule "include/ktarget/ includes only include/ktarget/" \
	'^include/ktarget/' \
	'<ktarget/[a-z_/]+\.h>'

# ktarget_core reaches no other module's private headers, and a folder of
# the core reaches another only through that folder's header.
core='<ktarget/[a-z_/]+\.h>|"(core|dev_state|lun|fabric|cluster)\.h"'
core+='|"(pr/)?pr\.h"|"(alua/)?(alua|alua_groups)\.h"'
core+='|"(copy/)?(xcopy|rod|rod_watch)\.h"'
core+='|"(scsi/)?cmdsets\.h"'
rule "the core reaches its folders only through their headers" \
	'^drivers/target/([a-z_]+\.[ch]|(scsi|pr|alua|copy|kunit)/[a-z_]+\.[ch])$' \
	"$core|\"configfs/configfs\.h\""
rule "configfs/ reaches the rest of the core only through its headers" \
	'^drivers/target/configfs/[a-z_]+\.[ch]$' \
	"$core|\"configfs\.h\""
# Nothing calls into configfs but module init and fabric registration
# (which builds the fabric's item types).
rule "only main.c and fabric.c include configfs/configfs.h" \
	'^drivers/target/([a-z_]+\.[ch]|(scsi|pr|alua|copy|kunit)/[a-z_]+\.[ch])$' \
	'.*' \
	'^drivers/target/(main|fabric)\.c$' '"configfs/configfs\.h"'

# Only the iSCSI fabric's own files include its headers; the fabric knows
# TCP only as a transport table (conn.h's kt_iscsi_tcp), never tcp/tcp.h.
rule "iscsi/ includes the core only through <ktarget/*.h>, and no tcp/ header" \
	'^drivers/target/iscsi/([a-z_]+|configfs/[a-z_]+)\.[ch]$' \
	'<ktarget/[a-z_/]+\.h>|"(conn|iscsi|login)\.h"'

# A fabric other than iSCSI is written against the fabric interface alone.
rule "loopback/ includes only the fabric interface and its own header" \
	'^drivers/target/loopback/' \
	'<ktarget/(fabric|cmd|objects|version|proto/lun)\.h>|"loop\.h"'
rule "vhost/ includes only the fabric interface, compat.h and its own header" \
	'^drivers/target/vhost/' \
	'<ktarget/(fabric|cmd|objects|version|compat|proto/lun)\.h>|"vhost\.h"'

exit $status
