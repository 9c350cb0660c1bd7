/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one version of ktarget: every module's MODULE_VERSION, the core's
 * INQUIRY PRODUCT REVISION LEVEL and version file, iSCSI's lio_version.
 * dkms.conf's PACKAGE_VERSION must match it (make check compares them).
 */
#ifndef KTARGET_VERSION_H
#define KTARGET_VERSION_H

#define KT_VERSION	"0.1"

#endif /* KTARGET_VERSION_H */
