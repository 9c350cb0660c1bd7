#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# extract-vmlinux.sh BZIMAGE OUT
#
# Finds the compressed kernel inside a bzImage and writes the ELF vmlinux,
# which QEMU boots through its PVH entry point faster than the bzImage.
set -uo pipefail

img=$1
out=$2

try() {
	local magic=$1 off
	shift
	for off in $(LC_ALL=C grep -aboP "$magic" "$img" 2>/dev/null | cut -d: -f1); do
		tail -c +"$((off + 1))" "$img" | "$@" > "$out" 2>/dev/null
		if [ "$(head -c 4 "$out" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ]; then
			return 0
		fi
	done
	return 1
}

try '\xfd7zXZ\x00' xz -dcq ||
	try '\x28\xb5\x2f\xfd' zstd -dcq ||
	try '\x1f\x8b\x08' gzip -dcq || {
		rm -f "$out"
		exit 1
	}
