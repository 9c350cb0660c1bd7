#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms.sh [KVER...]: the ktarget-dkms package on this machine, as an admin
# uses it. `make deb` builds it; dpkg installs it; DKMS builds every module
# against the headers of each KVER (default: the kernel the tests boot,
# `make kver`, and Debian 12's 6.12 when its headers are installed) and
# `dkms status` lists each; dpkg removes it, and nothing of it is left.
# Modules are built, never loaded: the host's kernel is not touched.
# Prints TAP.
#
# It installs a package on the host: run it where that is fine (CI, the
# test machines), not on a machine that has ktarget-dkms installed.

top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top" || exit 1
kvers=$*
if [ -z "$kvers" ]; then
	kvers=$(make -s --no-print-directory kver 2>/dev/null)
	for b in /lib/modules/6.12.*+deb12-amd64/build/Makefile; do
		[ -e "$b" ] || continue
		b=${b#/lib/modules/}
		kvers="$kvers ${b%%/*}"
	done
fi
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
log=$top/.deb/dkms-test.log
n=0

tap() {		# tap 0|1 DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}

modules_expected() {	# modules_expected KVER
	local kver=$1
	echo ktarget_core ktarget_rd ktarget_fileio ktarget_iblock ktarget_iscsi ktarget_loop ktarget_vhost
	grep -qs '^CONFIG_INFINIBAND_ADDR_TRANS=y' "/lib/modules/$kver/build/.config" &&
		echo ktarget_isert ktarget_srpt
	grep -qs '^CONFIG_UIO=[ym]' "/lib/modules/$kver/build/.config" &&
		echo ktarget_user
	grep -qs '^CONFIG_DLM=[ym]' "/lib/modules/$kver/build/.config" &&
		echo ktarget_cluster
}

echo "# plan 1..$((6 + 3 * $(echo $kvers | wc -w)))"
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
test -s /usr/share/ktarget/modprobe.d/ktarget-lio-names.conf &&
	test -s /usr/share/ktarget/modules-load.d/ktarget.conf
tap $? "dpkg -i: /usr/share/ktarget has the modprobe.d and modules-load.d files"

# DKMS builds at install for every kernel with headers (AUTOINSTALL);
# one it missed is built by hand, as an admin would
for kver in $kvers; do
	if dkms status ktarget/"$ver" -k "$kver" 2>/dev/null | grep -q ': installed'; then
		tap 0 "$kver: built and installed by dpkg -i"
	else
		dkms build ktarget/"$ver" -k "$kver" >> "$log" 2>&1
		st=$?
		tap $st "$kver: not built at install; dkms build against its headers"
		[ $st = 0 ] || tail -30 "/var/lib/dkms/ktarget/$ver/build/make.log" 2>/dev/null | sed 's/^/#   /'
	fi

	missing=
	for m in $(modules_expected "$kver"); do
		ls /var/lib/dkms/ktarget/"$ver"/"$kver"/*/module/"$m".ko* > /dev/null 2>&1 ||
			missing="$missing $m"
	done
	[ -z "$missing" ]
	tap $? "$kver: DKMS built every module: $(modules_expected "$kver" | tr '\n' ' ')${missing:+(missing:$missing)}"
	dkms status ktarget/"$ver" -k "$kver" 2>/dev/null | grep -q ': \(built\|installed\)'
	tap $? "$kver: dkms status lists it"
done
dkms status ktarget/"$ver" 2>/dev/null | sed 's/^/#   /'
missing=
for b in /lib/modules/*/build/Makefile; do
	b=${b#/lib/modules/}
	b=${b%%/*}
	dkms status ktarget/"$ver" -k "$b" 2>/dev/null | grep -q ': \(built\|installed\)' ||
		missing="$missing $b"
done
[ -z "$missing" ]
tap $? "dkms status: every kernel with headers has it${missing:+ (missing:$missing)}"

dpkg -r ktarget-dkms >> "$log" 2>&1
tap $? "dpkg -r"

left=$(ls -d /usr/src/ktarget-"$ver" /var/lib/dkms/ktarget /usr/share/ktarget 2>/dev/null)
[ -z "$left" ] && ! dkms status ktarget 2>/dev/null | grep -q .
tap $? "nothing is left: no source, no DKMS tree${left:+ (left: $left)}"
