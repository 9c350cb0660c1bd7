#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-extra-modules.sh [KVER]: the kernel modules the guest tests need
# that the debug kernel (6.1.192-ktdebug, ../shared/kernel) was configured
# without, built out of tree from Debian's linux-source-6.1 (the source the
# debug kernel was built from: the versions are compared) against
# /lib/modules/KVER/build, installed under /lib/modules/KVER/extra/ktdebug
# with depmod for KVER only:
#
#   uio.ko                  the user backstore's UIO device (CONFIG_UIO)
#   scsi_transport_srp.ko,  the SRP initiator of tests/91-srpt.sh
#   ib_srp.ko               (CONFIG_SCSI_SRP_ATTRS, CONFIG_INFINIBAND_SRP)
#   vhost.ko, vhost_iotlb.ko the kernel's vhost core (CONFIG_VHOST)
#   vhost_scsi.ko, ib_srpt.ko, target_core_user.ko
#                           LIO's modules of the same names, so that the
#                           debug kernel has on disk what Debian's has: the
#                           tests that ktarget answers to LIO's names with
#                           LIO's modules present (tests/21, 49, 91, 92)
#
# These are the kernel's own modules for its own kernel: nothing of them is
# kept in this tree, only this script. The Makefile's debug-kernel target
# runs it; a rerun with the same source and debug packages does nothing
# (the versions are kept in extra/ktdebug/built-from). The running kernel
# is never touched, and nothing is loaded. The top-level Makefile builds
# ktarget_user for KVER when extra/ktdebug/Module.symvers has uio's symbols.
#
# Environment: KT_LINUX_SOURCE (the tarball, default
# /usr/src/linux-source-6.1.tar.xz), KT_DEBUG_EXTRA_WORK (where the source
# is unpacked and built, default /var/cache/ktarget/debug-extra/KVER).
set -eu

kver=${1:-6.1.192-ktdebug}
tarball=${KT_LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
build=/lib/modules/$kver/build
dest=/lib/modules/$kver/extra/ktdebug
work=${KT_DEBUG_EXTRA_WORK:-/var/cache/ktarget/debug-extra/$kver}

# the modules, and the source paths they are built from
mods="uio vhost_iotlb vhost vhost_scsi scsi_transport_srp ib_srp ib_srpt target_core_user"
paths="Makefile drivers/uio/uio.c drivers/vhost drivers/scsi/scsi_transport_srp.c
	drivers/scsi/scsi_priv.h drivers/infiniband/ulp/srp drivers/infiniband/ulp/srpt
	drivers/target/target_core_user.c"

say() { echo "debug-extra-modules: $*"; }
die() { echo "debug-extra-modules: $*" >&2; exit 1; }

[ "$kver" != "$(uname -r)" ] ||
	die "$kver is the running kernel: this script builds only for a guest kernel"
[ -f "$build/Makefile" ] || die "no build tree $build (install linux-headers-$kver)"
[ -r "$tarball" ] || die "no kernel source $tarball (install linux-source-6.1)"

# kernel_version DIR: VERSION.PATCHLEVEL.SUBLEVEL of a tree's Makefile
kernel_version() {
	awk -F' *= *' '$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
		$1 == "SUBLEVEL" { s = $2 } END { print v "." p "." s }' "$1/Makefile"
}

pkgver() { dpkg-query -W -f '${Version}' "$1" 2>/dev/null || echo unknown; }

# what the modules are built from: a change to any of it rebuilds them
stat_tar=$(stat -c '%s %Y' "$tarball")
key="source=$(pkgver linux-source-6.1) ($stat_tar) headers=$(pkgver linux-headers-$kver)"
key="$key build=$(md5sum < "$build/Module.symvers" | cut -c1-16) modules=$mods"

uptodate=1
[ "$(cat "$dest/built-from" 2>/dev/null)" = "$key" ] || uptodate=0
for m in $mods; do
	[ -f "$dest/$m.ko" ] || uptodate=0
done
if [ $uptodate = 1 ]; then
	say "up to date in $dest"
	exit 0
fi

rm -rf "$work"
mkdir -p "$work"
say "unpacking $(echo $paths | wc -w) paths of $tarball"
# shellcheck disable=SC2046 # the paths are words
tar -xJf "$tarball" -C "$work" --strip-components=1 \
	$(for p in $paths; do echo "linux-source-6.1/$p"; done)

src_v=$(kernel_version "$work")
build_v=$(kernel_version "$build")
[ "$src_v" = "$build_v" ] ||
	die "$tarball is Linux $src_v, the build tree $build is $build_v"

# One kbuild run over every folder, so that vhost_scsi finds vhost's
# symbols and ib_srp scsi_transport_srp's. A Kbuild file of ours in each
# folder takes the place of its Makefile, whose obj-$(CONFIG_...) lines
# would build nothing: these symbols are unset in the debug kernel. No
# source file tests them (#ifdef or IS_ENABLED), and of the headers it
# includes only <linux/vringh.h> does (CONFIG_VHOST_IOTLB), which none of
# these files include.
cat > "$work/Kbuild" <<-'EOF'
	obj-m += drivers/uio/ drivers/vhost/ drivers/scsi/ drivers/target/
	obj-m += drivers/infiniband/ulp/srp/ drivers/infiniband/ulp/srpt/
EOF
echo 'obj-m += uio.o' > "$work/drivers/uio/Kbuild"
cat > "$work/drivers/vhost/Kbuild" <<-'EOF'
	obj-m += vhost.o vhost_iotlb.o vhost_scsi.o
	vhost_iotlb-y := iotlb.o
	vhost_scsi-y := scsi.o
EOF
echo 'obj-m += scsi_transport_srp.o' > "$work/drivers/scsi/Kbuild"
echo 'obj-m += ib_srp.o' > "$work/drivers/infiniband/ulp/srp/Kbuild"
echo 'obj-m += ib_srpt.o' > "$work/drivers/infiniband/ulp/srpt/Kbuild"
echo 'obj-m += target_core_user.o' > "$work/drivers/target/Kbuild"

say "building $mods against $build"
make -s -C "$build" M="$work" -j"$(nproc)" modules

# each module is for kver: its vermagic is the debug kernel's
want=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$build/include/generated/utsrelease.h")
[ "$want" = "$kver" ] || die "$build is for $want, not $kver"
for m in $mods; do
	ko=$(find "$work" -name "$m.ko")
	[ -n "$ko" ] || die "$m.ko was not built"
	magic=$(modinfo -F vermagic "$ko")
	[ "${magic%% *}" = "$kver" ] || die "$m.ko has vermagic '$magic', not $kver"
done

rm -rf "$dest"
mkdir -p "$dest"
for m in $mods; do
	install -m 0644 "$(find "$work" -name "$m.ko")" "$dest/"
done
# for the top-level Makefile: ktarget_user links against uio's symbols
cp "$work/Module.symvers" "$dest/Module.symvers"
depmod -a "$kver"
echo "$key" > "$dest/built-from"
say "installed $mods in $dest"
