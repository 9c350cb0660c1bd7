#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian 12's ddpt (0.97-1) with odx-range-descriptors.patch, for the ODX
# tests: the packaged ddpt writes the range descriptors of POPULATE TOKEN and
# WRITE USING TOKEN one byte early, so no conforming target can serve its
# ODX copies (see the patch). Fetches the Debian source package with a
# deb-src list and apt state of its own (the machine's apt set-up is not
# touched), applies the patch and builds ddpt and ddptctl into build/bin.
# Does nothing when build/ already holds this patch's build.
#
#   tools/testing/ddpt/build.sh    # then build/bin/ddpt, build/bin/ddptctl
set -euo pipefail

VERSION=0.97-1
here=$(cd "$(dirname "$0")" && pwd)
out=$here/build
patch=$here/odx-range-descriptors.patch
stamp="ddpt $VERSION $(sha256sum < "$patch" | cut -c1-16)"

if [ -x "$out/bin/ddpt" ] && [ -x "$out/bin/ddptctl" ] &&
   [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi

# the Debian mirror the machine already uses
mirror=$(sed -n 's|^URIs: *\([^ ]*/debian\)/*$|\1|p' \
	/etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/src"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm main" \
	> "$work/sources.list"
apt_opts=(-q -o "Dir::Etc::SourceList=$work/sources.list"
	-o Dir::Etc::SourceParts=/nonexistent
	-o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
	-o APT::Sandbox::User=root)
apt-get "${apt_opts[@]}" update >/dev/null
(cd "$work/src" && apt-get "${apt_opts[@]}" source "ddpt=$VERSION" >/dev/null 2>&1)
src=$(find "$work/src" -maxdepth 1 -type d -name 'ddpt-*' | head -1)
[ -n "$src" ] || { echo "ddpt: no source unpacked" >&2; exit 1; }

patch -d "$src" -p1 --quiet < "$patch"
(cd "$src" && ./configure --quiet >/dev/null && make -s -j"$(nproc)" >/dev/null 2>&1)

rm -rf "$out"
mkdir -p "$out/bin"
cp "$src/src/ddpt" "$src/src/ddptctl" "$out/bin/"
echo "$stamp" > "$out/stamp"
