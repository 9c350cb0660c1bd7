/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_core internal: a registered fabric and its configfs item types.
 */
#ifndef KTARGET_CORE_FABRIC_H
#define KTARGET_CORE_FABRIC_H

#include <linux/configfs.h>
#include <linux/list.h>

#include <ktarget/fabric.h>

struct kt_fabric {
	struct list_head		node;
	const struct kt_fabric_ops	*ops;

	/*
	 * One set of item types per fabric, so that each level carries the
	 * fabric's own attributes; container_of() on an item's ci_type
	 * leads back here.
	 */
	struct config_item_type		root_type;
	struct config_item_type		wwn_type;
	struct config_item_type		wwn_param_type;	/* WWN/param */
	struct config_item_type		tpg_type;
	struct config_item_type		tpg_lun_type;	/* tpgt_N/lun */
	struct config_item_type		lun_type;	/* tpgt_N/lun/lun_N */
	struct config_item_type		tpg_acl_type;	/* tpgt_N/acls */
	struct config_item_type		acl_type;
	struct config_item_type		acl_attrib_type;
	struct config_item_type		acl_auth_type;
	struct config_item_type		mlun_type;	/* acls/X/lun_N */
	struct config_item_type		tpg_np_type;
	struct config_item_type		tpg_attrib_type;
	struct config_item_type		tpg_param_type;
	struct config_item_type		tpg_auth_type;
	struct configfs_attribute	**tpg_attrs;	/* core's + fabric's */
};

#endif /* KTARGET_CORE_FABRIC_H */
