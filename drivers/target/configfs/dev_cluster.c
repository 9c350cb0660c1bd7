// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: core/HBA_N/NAME/cluster/, a device's cluster mode
 * (cluster.c says what each file means and does).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/module.h>

#include <ktarget/cluster.h>

#include "cluster.h"
#include "configfs.h"
#include "core.h"

static struct kt_dev *cluster_to_dev(struct config_item *item)
{
	return container_of(to_config_group(item), struct kt_dev, cluster_group);
}

static ssize_t kt_cluster_enable_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n",
			  !!cluster_to_dev(item)->state->cluster.lu);
}

static ssize_t kt_cluster_enable_store(struct config_item *item,
				       const char *page, size_t count)
{
	struct kt_dev *dev = cluster_to_dev(item);
	bool on;
	int ret;

	ret = kstrtobool(page, &on);
	if (ret) {
		pr_warn_ratelimited("%s: cluster/enable: 0 or 1\n",
				    kt_cluster_dev_name(dev));
		return ret;
	}
	ret = kt_cluster_enable(dev, on);
	return ret ? ret : count;
}

static ssize_t kt_cluster_lockspace_show(struct config_item *item,
					 char *page)
{
	struct kt_dev *dev = cluster_to_dev(item);
	char name[KT_CLUSTER_NAME_LEN + 1];

	kt_cluster_lockspace(dev, name);
	return sysfs_emit(page, "%s\n", name);
}

static ssize_t kt_cluster_lockspace_store(struct config_item *item,
					  const char *page, size_t count)
{
	struct kt_dev *dev = cluster_to_dev(item);
	size_t len = kt_cfs_value_len(page, count), i;
	int ret;

	if (len > KT_CLUSTER_NAME_LEN) {
		pr_warn_ratelimited("%s: cluster/lockspace: %zu bytes, at most %d\n",
				    kt_cluster_dev_name(dev), len,
				    KT_CLUSTER_NAME_LEN);
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		if (!isalnum(page[i]) && page[i] != '-' && page[i] != '_') {
			pr_warn_ratelimited("%s: cluster/lockspace: byte %zu: letters, digits, '-' and '_' only\n",
					    kt_cluster_dev_name(dev), i);
			return -EINVAL;
		}
	}
	ret = kt_cluster_set_lockspace(dev, page, len);
	return ret ? ret : count;
}

static ssize_t kt_cluster_node_id_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%u\n", kt_cluster_node_id(cluster_to_dev(item)));
}

static ssize_t kt_cluster_members_show(struct config_item *item, char *page)
{
	u32 ids[KT_CLUSTER_MAX_NODES];
	ssize_t len = 0;
	int n, i;

	n = kt_cluster_members(cluster_to_dev(item), ids, ARRAY_SIZE(ids));
	for (i = 0; i < n; i++)
		len += sysfs_emit_at(page, len, "%s%u", i ? " " : "", ids[i]);
	len += sysfs_emit_at(page, len, "\n");
	return len;
}

static ssize_t kt_cluster_alua_takeover_show(struct config_item *item,
					     char *page)
{
	struct kt_dev *dev = cluster_to_dev(item);

	return sysfs_emit(page, "%u\n",
			  READ_ONCE(dev->state->cluster.alua_takeover));
}

static ssize_t kt_cluster_alua_takeover_store(struct config_item *item,
					      const char *page, size_t count)
{
	struct kt_dev *dev = cluster_to_dev(item);
	u16 id;

	if (kstrtou16(page, 0, &id)) {
		pr_warn_ratelimited("%s: cluster/alua_takeover: a target port group id (0 to 65535; 0: none)\n",
				    kt_cluster_dev_name(dev));
		return -EINVAL;
	}
	WRITE_ONCE(dev->state->cluster.alua_takeover, id);
	return count;
}

CONFIGFS_ATTR(kt_cluster_, enable);
CONFIGFS_ATTR(kt_cluster_, lockspace);
CONFIGFS_ATTR_RO(kt_cluster_, node_id);
CONFIGFS_ATTR_RO(kt_cluster_, members);
CONFIGFS_ATTR(kt_cluster_, alua_takeover);

static struct configfs_attribute *kt_cluster_attrs[] = {
	&kt_cluster_attr_enable,
	&kt_cluster_attr_lockspace,
	&kt_cluster_attr_node_id,
	&kt_cluster_attr_members,
	&kt_cluster_attr_alua_takeover,
	NULL,
};

const struct config_item_type kt_dev_cluster_type = {
	.ct_attrs	= kt_cluster_attrs,
	.ct_owner	= THIS_MODULE,
};
