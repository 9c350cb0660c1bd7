/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_core: declarations shared between the files of the core module.
 */
#ifndef KTARGET_CORE_H
#define KTARGET_CORE_H

#define KT_VERSION		"0.1"
#define KT_DBROOT_DEFAULT	"/var/target"
#define KT_DBROOT_MAX		4096

int kt_configfs_init(void);
void kt_configfs_exit(void);

#endif /* KTARGET_CORE_H */
