#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms.sh [KVER]: the ktarget-dkms package on this machine, as an admin
# uses it. `make deb` builds it; dpkg installs it; DKMS builds every module
# against the headers of KVER (default: the kernel the tests boot, `make
# kver`); dpkg removes it, and nothing of it is left. Modules are built,
# never loaded: the host's kernel is not touched. Prints TAP.
#
# It installs a package on the host: run it where that is fine (CI, the
# test machines), not on a machine that has ktarget-dkms installed.

top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top" || exit 1
kver=${1:-$(make -s --no-print-directory kver)}
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
log=$top/.deb/dkms-test.log
n=0

tap() {		# tap 0|1 DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}

modules_expected() {
	echo ktarget_core ktarget_rd ktarget_fileio ktarget_iblock ktarget_iscsi
	grep -qs '^CONFIG_INFINIBAND_ADDR_TRANS=y' "/lib/modules/$kver/build/.config" &&
		echo ktarget_isert
	grep -qs '^CONFIG_DLM=[ym]' "/lib/modules/$kver/build/.config" &&
		echo ktarget_cluster
}

echo "# plan 1..6"
if dpkg-query -W -f '${Status}' ktarget-dkms 2>/dev/null | grep -q installed; then
	echo "# ktarget-dkms is installed on this machine already: not touching it"
	exit 1
fi
mkdir -p .deb
deb=$(tools/packaging/deb.sh 2>"$log.err")
tap $? "make deb: ${deb##*/}"
[ -f "$deb" ] || { sed 's/^/#   /' "$log.err"; exit 1; }

dpkg -i "$deb" > "$log" 2>&1
tap $? "dpkg -i: the source is in /usr/src/ktarget-$ver, DKMS knows it"
dkms status ktarget/"$ver" | sed 's/^/#   /'

dkms build ktarget/"$ver" -k "$kver" >> "$log" 2>&1
st=$?
tap $st "dkms build against $kver's headers"
[ $st = 0 ] || tail -30 "/var/lib/dkms/ktarget/$ver/build/make.log" 2>/dev/null | sed 's/^/#   /'

missing=
for m in $(modules_expected); do
	ls /var/lib/dkms/ktarget/"$ver"/"$kver"/*/module/"$m".ko* > /dev/null 2>&1 ||
		missing="$missing $m"
done
[ -z "$missing" ]
tap $? "DKMS built every module: $(modules_expected | tr '\n' ' ')${missing:+(missing:$missing)}"

dpkg -r ktarget-dkms >> "$log" 2>&1
tap $? "dpkg -r"

left=$(ls -d /usr/src/ktarget-"$ver" /var/lib/dkms/ktarget 2>/dev/null)
[ -z "$left" ] && ! dkms status ktarget 2>/dev/null | grep -q .
tap $? "nothing is left: no source, no DKMS tree${left:+ (left: $left)}"
