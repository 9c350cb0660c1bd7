// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: FABRIC/WWN/param/, read-only, as LIO has it (6.10 and
 * 7.1): how the fabric's commands go on where a LU's attrib/submit_type or
 * complete_type is 0 (1 direct, 2 queued: cmd_hop.c), and whether its
 * context can take the direct way at all.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/module.h>

#include <ktarget/fabric.h>

#include "configfs.h"

static const struct kt_fabric_ops *param_to_ops(struct config_item *item)
{
	return container_of(to_config_group(item), struct kt_wwn,
			    param_group)->ops;
}

static ssize_t kt_wwn_param_default_submit_type_show(struct config_item *item,
						     char *page)
{
	return sysfs_emit(page, "%u\n",
			  kt_fabric_hop_default(param_to_ops(item)->default_submit_type));
}

static ssize_t kt_wwn_param_direct_submit_supported_show(struct config_item *item,
							 char *page)
{
	return sysfs_emit(page, "%d\n", !param_to_ops(item)->no_direct_submit);
}

static ssize_t kt_wwn_param_default_complete_type_show(struct config_item *item,
						       char *page)
{
	return sysfs_emit(page, "%u\n",
			  kt_fabric_hop_default(param_to_ops(item)->default_complete_type));
}

static ssize_t kt_wwn_param_direct_complete_supported_show(struct config_item *item,
							   char *page)
{
	return sysfs_emit(page, "%d\n", !param_to_ops(item)->no_direct_complete);
}

CONFIGFS_ATTR_RO(kt_wwn_param_, default_submit_type);
CONFIGFS_ATTR_RO(kt_wwn_param_, direct_submit_supported);
CONFIGFS_ATTR_RO(kt_wwn_param_, default_complete_type);
CONFIGFS_ATTR_RO(kt_wwn_param_, direct_complete_supported);

struct configfs_attribute *kt_wwn_param_attrs[] = {
	&kt_wwn_param_attr_default_submit_type,
	&kt_wwn_param_attr_direct_submit_supported,
	&kt_wwn_param_attr_default_complete_type,
	&kt_wwn_param_attr_direct_complete_supported,
	NULL,
};
