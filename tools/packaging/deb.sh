#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb.sh: the body of `make deb`. Builds .deb/ktarget-dkms_VERSION_all.deb
# from the tree's files (tracked ones, and new ones git does not ignore):
# the module source under /usr/src/ktarget-VERSION, built by DKMS on the
# machine that installs it. The version is dkms.conf's, which `make check`
# holds equal to KT_VERSION.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
[ -n "$ver" ] || { echo "deb: no PACKAGE_VERSION in dkms.conf" >&2; exit 1; }
out=$top/.deb
stage=$out/ktarget-$ver

rm -rf "$out"
mkdir -p "$stage"
git ls-files -z --cached --others --exclude-standard -- \
	Kbuild Makefile dkms.conf include drivers |
	while IFS= read -r -d '' f; do
		[ -e "$f" ] && cp --parents -- "$f" "$stage/"
	done
cp -r tools/packaging/debian "$stage/"
mkdir -p "$stage/tools"
cp tools/ktarget.modules-load.conf tools/ktarget-lio-names.modprobe.conf "$stage/tools/"
cat > "$stage/debian/changelog" <<EOT
ktarget ($ver) unstable; urgency=medium

  * Built from $(git describe --always --dirty 2>/dev/null || echo "a tree without git").

 -- ktarget developers <ktarget@localhost>  $(date -R)
EOT
(cd "$stage" && dpkg-buildpackage -b -us -uc > "$out/build.log" 2>&1) || {
	tail -30 "$out/build.log" >&2
	exit 1
}
ls "$out"/ktarget-dkms_"$ver"_all.deb
