/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_core: declarations shared between the files of the core module.
 */
#ifndef KTARGET_CORE_H
#define KTARGET_CORE_H

#include <linux/configfs.h>

struct kt_dev;
struct kt_backend_ops;

#define KT_VERSION		"0.1"
#define KT_DBROOT_DEFAULT	"/var/target"
#define KT_DBROOT_MAX		4096

/* configfs.c */
int kt_configfs_init(void);
void kt_configfs_exit(void);

/* hba.c */
extern const struct config_item_type kt_core_type;

/* dev.c */
int kt_dev_init(struct kt_dev *dev, const struct kt_backend_ops *ops,
		const char *name);
size_t kt_strip_value(const char *page, size_t count);

/* dev_attrib.c, dev_wwn.c */
extern const struct config_item_type kt_dev_attrib_type;
extern const struct config_item_type kt_dev_wwn_type;
void kt_dev_wwn_init(struct kt_dev *dev);

#endif /* KTARGET_CORE_H */
