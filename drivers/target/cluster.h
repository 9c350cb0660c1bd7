/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_core: a device's cluster mode (cluster.c); the module behind it
 * is ktarget_cluster (include/ktarget/cluster.h).
 */
#ifndef KTARGET_CORE_CLUSTER_H
#define KTARGET_CORE_CLUSTER_H

#include <ktarget/cluster.h>

struct kt_cmd;
struct kt_dev;

struct kt_cluster {
	/* set and cleared under the device's cfg_lock and caw_sem */
	const struct kt_cluster_ops	*ops;
	struct kt_cluster_lu		*lu;		/* NULL: cluster mode off */
	struct kt_cluster_lu		*rmw_held;	/* caw_sem's holder locked it */
	bool				join_on_export;	/* cluster_default */
	u16				alua_takeover;	/* a group id, 0: none */
	char				lockspace[KT_CLUSTER_NAME_LEN + 1];
};

int kt_cluster_init(void);
void kt_cluster_exit(void);
bool kt_cluster_defer(struct kt_cmd *cmd);
int kt_cluster_rmw_lock(struct kt_dev *dev);
void kt_cluster_rmw_unlock(struct kt_dev *dev);
void kt_cluster_dev_init(struct kt_dev *dev);
int kt_cluster_dev_export(struct kt_dev *dev);
void kt_cluster_dev_release(struct kt_dev *dev);
/* what configfs/dev_cluster.c shows and sets */
int kt_cluster_enable(struct kt_dev *dev, bool on);
void kt_cluster_lockspace(struct kt_dev *dev, char *name);
int kt_cluster_set_lockspace(struct kt_dev *dev, const char *name, size_t len);
u32 kt_cluster_node_id(struct kt_dev *dev);
int kt_cluster_members(struct kt_dev *dev, u32 *ids, int max);

#endif /* KTARGET_CORE_CLUSTER_H */
