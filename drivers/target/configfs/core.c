// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: target/core/ and its HBA level, target/core/PREFIX_N/,
 * which LIO's tools expect above every device. PREFIX names a registered
 * backstore (backstore.c); mkdir loads its module on demand.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <ktarget/backend.h>

#include "configfs.h"
#include "core.h"

struct kt_hba {
	struct config_group		group;
	const struct kt_backend_ops	*ops;
	u32				index;
};

static struct kt_hba *to_kt_hba(struct config_item *item)
{
	return container_of(to_config_group(item), struct kt_hba, group);
}

static ssize_t kt_hba_hba_info_show(struct config_item *item, char *page)
{
	struct kt_hba *hba = to_kt_hba(item);

	return sysfs_emit(page, "HBA Index: %u plugin: %s version: %s\n",
			  hba->index, hba->ops->name, KT_VERSION);
}

/* LIO's pass-through mode switch; no ktarget backstore has one. */
static ssize_t kt_hba_hba_mode_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "0\n");
}

static ssize_t kt_hba_hba_mode_store(struct config_item *item,
				     const char *page, size_t count)
{
	u32 mode;

	if (kstrtou32(page, 0, &mode) || mode) {
		pr_warn_ratelimited("hba_mode: only 0 is supported\n");
		return -EINVAL;
	}
	return count;
}

CONFIGFS_ATTR_RO(kt_hba_, hba_info);
CONFIGFS_ATTR(kt_hba_, hba_mode);

static struct configfs_attribute *kt_hba_attrs[] = {
	&kt_hba_attr_hba_info,
	&kt_hba_attr_hba_mode,
	NULL,
};

static struct config_group *kt_hba_make_dev(struct config_group *group,
					    const char *name)
{
	struct kt_hba *hba = to_kt_hba(&group->cg_item);
	struct kt_dev *dev;
	int ret;

	dev = hba->ops->alloc_dev(name);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	dev->hba_index = hba->index;
	ret = kt_dev_init(dev, hba->ops);
	if (ret) {
		hba->ops->free_dev(dev);
		return ERR_PTR(ret);
	}
	ret = kt_cfs_dev_init(dev, name);
	if (ret) {
		kt_dev_release(dev);
		return ERR_PTR(ret);
	}
	return &dev->group;
}

static void kt_hba_release(struct config_item *item)
{
	struct kt_hba *hba = to_kt_hba(item);

	module_put(hba->ops->owner);
	kfree(hba);
}

static struct configfs_item_operations kt_hba_item_ops = {
	.release	= kt_hba_release,
};

static struct configfs_group_operations kt_hba_group_ops = {
	.make_group	= kt_hba_make_dev,
};

static const struct config_item_type kt_hba_type = {
	.ct_item_ops	= &kt_hba_item_ops,
	.ct_group_ops	= &kt_hba_group_ops,
	.ct_attrs	= kt_hba_attrs,
	.ct_owner	= THIS_MODULE,
};

/* mkdir target/core/PREFIX_N: PREFIX names a backstore, N is an index. */
static struct config_group *kt_core_make_hba(struct config_group *group,
					     const char *name)
{
	const struct kt_backend_ops *ops;
	char prefix[32];
	const char *sep;
	struct kt_hba *hba;
	u32 index;

	sep = strrchr(name, '_');
	if (!sep || sep == name || sep - name >= sizeof(prefix) ||
	    kstrtou32(sep + 1, 10, &index)) {
		pr_warn_ratelimited("core/%s: HBA names are PLUGIN_INDEX, e.g. fileio_0\n",
				    name);
		return ERR_PTR(-EINVAL);
	}
	memcpy(prefix, name, sep - name);
	prefix[sep - name] = '\0';

	ops = kt_backend_get(prefix);
	if (!ops) {
		pr_warn_ratelimited("core/%s: no backstore '%s' (known: rd_mcp, fileio, iblock)\n",
				    name, prefix);
		return ERR_PTR(-ENODEV);
	}

	hba = kzalloc(sizeof(*hba), GFP_KERNEL);
	if (!hba) {
		module_put(ops->owner);
		return ERR_PTR(-ENOMEM);
	}
	hba->ops = ops;
	hba->index = index;
	config_group_init_type_name(&hba->group, name, &kt_hba_type);
	return &hba->group;
}

static struct configfs_group_operations kt_core_group_ops = {
	.make_group	= kt_core_make_hba,
};

const struct config_item_type kt_core_type = {
	.ct_group_ops	= &kt_core_group_ops,
	.ct_owner	= THIS_MODULE,
};
