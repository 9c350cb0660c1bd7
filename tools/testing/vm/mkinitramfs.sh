#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh [--init FILE] [--modules "NAME..."] KVER OUT.cpio.gz
#
# A tiny busybox initramfs that loads the modules needed to mount the host's
# root over virtio-9p (read-only, with a tmpfs overlay on top) and then
# switch_roots into it. Modules built into KVER are skipped.
#
# --init and --modules make another one: FILE as its /init, which loads
# /lib/modules/$(cat /modules.order) in that order, the modules NAMEs and
# what they depend on (the nested guest of selftests/vhost-qemu).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
init=$here/initramfs-init
want="virtio_pci 9pnet_virtio 9p overlay"
while [ $# -gt 0 ]; do
	case $1 in
	--init) init=$2; shift 2 ;;
	--modules) want=$2; shift 2 ;;
	*) break ;;
	esac
done
kver=$1
out=$2
moddir=/lib/modules/$kver

[ -x /bin/busybox ] || { echo "mkinitramfs: /bin/busybox missing (apt-get install busybox-static)" >&2; exit 1; }
[ -d "$moddir" ] || { echo "mkinitramfs: $moddir missing" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp"/{bin,dev,proc,sys,lower,rw,newroot,ktout,lib/modules}
cp /bin/busybox "$tmp/bin/busybox"

# Resolve each wanted module and its dependencies, deepest first, from modules.dep.
declare -A seen
order=()
add_module() {
	local rel=$1 dep
	[ -n "${seen[$rel]:-}" ] && return
	seen[$rel]=1
	for dep in $(awk -v m="$rel:" '$1 == m { $1 = ""; print }' "$moddir/modules.dep"); do
		add_module "$dep"
	done
	order+=("$rel")
}

for name in $want; do
	# 6.12's modules are compressed: NAME.ko.xz
	rel=$(awk -F: -v n="/$name.ko" '{ m = $1; sub(/\.(xz|zst)$/, "", m) }
		index(m, n) && substr(m, length(m) - length(n) + 1) == n { print $1; exit }' \
		"$moddir/modules.dep")
	if [ -z "$rel" ]; then
		# built in: nothing to load
		grep -q "/$name.ko\$" "$moddir/modules.builtin" 2>/dev/null && continue
		echo "mkinitramfs: module $name is neither a module nor built into $kver" >&2
		exit 1
	fi
	add_module "$rel"
done

: > "$tmp/modules.order"
for rel in "${order[@]}"; do
	base=$(basename "$rel")
	case "$rel" in
	*.ko.xz) xz -dc "$moddir/$rel" > "$tmp/lib/modules/${base%.xz}"; base=${base%.xz} ;;
	*.ko.zst) zstd -qdc "$moddir/$rel" > "$tmp/lib/modules/${base%.zst}"; base=${base%.zst} ;;
	*) cp "$moddir/$rel" "$tmp/lib/modules/$base" ;;
	esac
	echo "$base" >> "$tmp/modules.order"
done

install -m 0755 "$init" "$tmp/init"

(cd "$tmp" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
