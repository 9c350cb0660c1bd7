#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages ktarget needs to build, test and demo.
# Idempotent and quiet when everything is present. linux-source-6.1: the
# debug kernel's missing modules are built from it (tools/testing/vm/
# debug-extra-modules.sh).
set -e

PKGS="make gcc g++ patch kmod cpio xz-utils zstd busybox-static rsync
qemu-system-x86 linux-image-amd64 linux-headers-amd64
libiscsi-bin targetcli-fb python3-rtslib-fb open-iscsi fio sg3-utils ddpt
dbus e2fsprogs xfsprogs iproute2 rdma-core ibverbs-providers ibverbs-utils rdmacm-utils
clang libclang-rt-dev sparse libiscsi-dev linux-libc-dev
dkms dh-dkms debhelper dpkg-dev
corosync dlm-controld resource-agents multipath-tools fence-agents
tcmu-runner qemu-utils xorriso linux-source-6.1"

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q '^install ok installed$' || missing="$missing $p"
done

# Debian 12 also packages 6.12, the kernel series of Debian 13 and RHEL 10:
# make test builds for it and boots it too. Any 6.12.N+deb12-amd64 image
# installed with its headers will do; else the newest the archive has.
need612=1
for b in /lib/modules/6.12.*+deb12-amd64/build/Makefile; do
	r=${b#/lib/modules/}
	r=${r%%/*}
	[ -e "/boot/vmlinuz-$r" ] && need612=
done
[ -z "$missing" ] && [ -z "$need612" ] && exit 0

[ -n "$missing" ] && echo "deps: installing$missing"
if [ "$(id -u)" != 0 ]; then
	echo "deps: need root to install packages (sudo make deps)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# corosync and dlm-controld are for the test guests: the host must not start
# them (nor iscsid, multipathd, ...), so no service starts while installing
rcd=
if [ ! -e /usr/sbin/policy-rc.d ]; then
	rcd=/usr/sbin/policy-rc.d
	printf '#!/bin/sh\nexit 101\n' > $rcd && chmod 755 $rcd
	trap 'rm -f $rcd' EXIT
fi
apt-get update -q >/dev/null
if [ -n "$need612" ]; then
	r=$(apt-cache pkgnames linux-image-6.12. |
		sed -n 's/^linux-image-\(6\.12\.[0-9]*+deb12-amd64\)$/\1/p' | sort -V | tail -1)
	if [ -n "$r" ]; then
		echo "deps: installing the 6.12 kernel $r"
		missing="$missing linux-image-$r linux-headers-$r"
	else
		echo "deps: no 6.12 kernel in the archive: make test runs on 6.1 only" >&2
	fi
fi
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
