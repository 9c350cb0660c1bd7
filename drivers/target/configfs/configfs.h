/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_core: the configfs tree, /sys/kernel/config/target, with LIO's
 * names and layout, one file per kind of directory: root.c (target/ and
 * target/NAME/), fabric.c (a fabric's WWN/tpgt_N/... tree), core.c
 * (target/core/ and its HBAs), dev.c (core/HBA_N/NAME/) and its groups
 * dev_attrib.c, dev_wwn.c, dev_pr.c, dev_alua.c, dev_xcopy_stat.c and
 * dev_cluster.c.
 *
 * It calls the engine (core.h) and the feature folders; only main.c
 * (kt_configfs_init()) and fabric.c (a fabric's item types, built as it
 * registers) call into it.
 */
#ifndef KTARGET_CORE_CONFIGFS_H
#define KTARGET_CORE_CONFIGFS_H

#include <linux/configfs.h>

struct kt_dev;
struct kt_fabric;

/* root.c */
int kt_configfs_init(void);
void kt_configfs_exit(void);
extern struct configfs_item_operations kt_fabric_root_item_ops;
struct kt_fabric *kt_fabric_of_root(struct config_item *item);

/* fabric.c */
int kt_fabric_init_types(struct kt_fabric *f);
void kt_fabric_free_types(struct kt_fabric *f);

/* core.c */
extern const struct config_item_type kt_core_type;

/* dev.c */
int kt_cfs_dev_init(struct kt_dev *dev, const char *name);
struct kt_dev *kt_dev_from_link_target(struct config_item *item);

/* the device's groups */
extern const struct config_item_type kt_dev_attrib_type;
int kt_cfs_dev_types(struct kt_dev *dev, const struct config_item_type **attrib,
		     const struct config_item_type **action);
void kt_cfs_dev_types_free(struct kt_dev *dev);
extern const struct config_item_type kt_dev_wwn_type;
extern const struct config_item_type kt_dev_pr_type;
extern const struct config_item_type kt_dev_alua_type;
extern const struct config_item_type kt_dev_cluster_type;
void kt_cfs_alua_dev_init(struct kt_dev *dev);
extern struct configfs_attribute *kt_alua_lun_attrs[];
/* WWN/param/ (wwn_param.c) */
extern struct configfs_attribute *kt_wwn_param_attrs[];
void kt_xcopy_stat_init(struct kt_dev *dev);

#endif /* KTARGET_CORE_CONFIGFS_H */
