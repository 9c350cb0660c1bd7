#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages ktarget needs to build, test and demo.
# Idempotent and quiet when everything is present.
set -e

PKGS="make gcc g++ patch kmod cpio xz-utils zstd busybox-static
qemu-system-x86 linux-image-amd64 linux-headers-amd64
libiscsi-bin targetcli-fb python3-rtslib-fb open-iscsi fio sg3-utils ddpt
dbus e2fsprogs xfsprogs iproute2 rdma-core ibverbs-providers ibverbs-utils rdmacm-utils
clang libclang-rt-dev sparse libiscsi-dev linux-libc-dev
dkms dh-dkms debhelper dpkg-dev
corosync dlm-controld resource-agents multipath-tools"

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q '^install ok installed$' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "deps: installing$missing"
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
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
