#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: checkpatch over every source file and sparse over the build.
# checkpatch.pl comes from Debian's linux-source-6.1 tarball, unpacked once.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
cache=$top/.vm-cache/checkpatch

if [ ! -x "$cache/scripts/checkpatch.pl" ]; then
	tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
	if [ -z "$tarball" ]; then
		echo "check: installing linux-source-6.1 for checkpatch.pl"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q linux-source-6.1 >/dev/null || exit 1
		tarball=$(ls /usr/src/linux-source-*.tar.xz | sort -V | tail -n 1)
	fi
	dir=$(basename "$tarball" .tar.xz)
	mkdir -p "$cache"
	tar -xJf "$tarball" -C "$cache" --strip-components=1 \
		"$dir/scripts/checkpatch.pl" "$dir/scripts/spelling.txt" \
		"$dir/scripts/const_structs.checkpatch" || exit 1
fi

status=0
ignore=FILE_PATH_CHANGES,SPDX_LICENSE_TAG,CONST_STRUCT
# Their configfs attribute macros take a struct member's name, used in a
# show and a store: a name has no side effects and cannot be parenthesized.
member_macros='drivers/target/configfs/dev_alua.c drivers/target/configfs/dev_wwn.c'
# The SCSI midlayer's struct Scsi_Host is CamelCase; --no-tree cannot know
# it is the kernel's own name.
scsi_hosts='drivers/target/loopback/scsi.c'
# compat.h is where the kernel version is tested, and only there.
compat=include/ktarget/compat.h
files=$(git ls-files 'drivers/*.[ch]' 'include/*.h' |
	grep -vxF -e "${member_macros// /$'\n'}" -e "$compat" -e "$scsi_hosts")
# shellcheck disable=SC2086
"$cache/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	--ignore $ignore -f $files || status=1
# shellcheck disable=SC2086
"$cache/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	--ignore $ignore,MACRO_ARG_REUSE,MACRO_ARG_PRECEDENCE \
	-f $member_macros || status=1
"$cache/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	--ignore $ignore,CAMELCASE -f $scsi_hosts || status=1
"$cache/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	--ignore $ignore,LINUX_VERSION_CODE,CONSTANT_COMPARISON -f $compat || status=1

echo "check: one version"
have=$(sed -n 's/^#define KT_VERSION[[:space:]]*"\(.*\)"$/\1/p' include/ktarget/version.h)
pkg=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
if [ -z "$have" ] || [ "$have" != "$pkg" ]; then
	echo "include/ktarget/version.h says '$have', dkms.conf '$pkg'"
	status=1
fi

echo "check: kernel versions only in compat.h"
# Every kernel API difference is answered in include/ktarget/compat.h
# (or by a header test in Kbuild), never by a version test in the code.
if git grep -n --untracked -e LINUX_VERSION_CODE -e 'KERNEL_VERSION(' -- \
	'drivers/*.[ch]' 'include/*.[ch]' ':!include/ktarget/compat.h'; then
	echo "version tests belong in include/ktarget/compat.h"
	status=1
fi

echo "check: include rules between layers"
tools/check-layers.sh || status=1

echo "check: sparse"
make -s --no-print-directory modules C=2 CHECK="sparse -Wbitwise -Wcontext" 2>&1 |
	grep -E 'warning|error' && status=1
exit $status
