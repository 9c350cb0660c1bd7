// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: a device's configfs directory, core/HBA_N/NAME/, with
 * LIO's files: control, enable, info, udev_path, alias. The device itself
 * (its SCSI state, enable, release) is dev_state.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/ctype.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <ktarget/backend.h>

#include "cluster.h"
#include "configfs.h"
#include "core.h"

static const struct config_item_type kt_dev_type;

static ssize_t kt_dev_info_show(struct config_item *item, char *page)
{
	struct kt_dev *dev = kt_dev_from_item(item);
	ssize_t len;

	len = scnprintf(page, PAGE_SIZE,
			"Status: %s  Max Queue Depth: %u  SectorSize: %u  HwMaxSectors: %u\n",
			dev->enabled ? "ACTIVATED" : "DEACTIVATED",
			dev->attrib.queue_depth, dev->attrib.block_size,
			dev->attrib.hw_max_sectors);
	if (dev->ops->show_info)
		len += dev->ops->show_info(dev, page + len, PAGE_SIZE - len);
	return len;
}

/*
 * One key=value of control: set_param() while the device is disabled,
 * set_live_param() (@apply or only checked) while it is enabled. What was
 * wrong is logged here or by the backend.
 */
static int kt_dev_control_one(struct kt_dev *dev, char *opt, bool apply)
{
	const char *name = config_item_name(&dev->group.cg_item);
	char *val = strchr(opt, '=');
	int ret;

	if (!val) {
		pr_warn_ratelimited("%s: control: '%s' is not key=value\n",
				    name, opt);
		return -EINVAL;
	}
	*val++ = '\0';
	if (dev->enabled && dev->attrib.emulate_cdrom) {
		/* a resize would rewrite the image under the disc */
		pr_warn_ratelimited("%s: control: '%s' refused: the device is a CD/DVD (attrib/emulate_cdrom) and its disc does not change\n",
				    name, opt);
		return -EBUSY;
	}
	if (dev->enabled)
		ret = dev->ops->set_live_param(dev, opt, val,
					       atomic_read(&dev->export_count),
					       apply);
	else
		ret = dev->ops->set_param(dev, opt, val);
	if (ret == -ENOKEY) {
		pr_warn_ratelimited("%s: control: unknown key '%s' for %s\n",
				    name, opt, dev->ops->name);
		ret = -EINVAL;
	} else if (ret && !dev->enabled) {
		/* set_live_param() has logged its refusals itself */
		pr_warn_ratelimited("%s: control: bad value '%s' for %s\n",
				    name, val, opt);
	}
	return ret;
}

/* Each key=value of @buf (taken apart) in turn, up to the first that fails */
static int kt_dev_control_pass(struct kt_dev *dev, char *buf, bool apply)
{
	char *opt;
	int ret;

	while ((opt = strsep(&buf, ",\n")) != NULL) {
		opt = strim(opt);
		if (!*opt)
			continue;
		ret = kt_dev_control_one(dev, opt, apply);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * "key=value[,key=value...]", separators ',' or newlines, as LIO takes it.
 * While the device is enabled only a backstore with set_live_param() takes
 * keys, those that resize it (rd_pages=, fd_dev_size=), and not in cluster
 * mode (the other nodes would not follow): every key is checked before
 * any is applied, and the new size reaches every I_T nexus as CAPACITY
 * DATA HAS CHANGED.
 */
static ssize_t kt_dev_control_store(struct config_item *item,
				    const char *page, size_t count)
{
	struct kt_dev *dev = kt_dev_from_item(item);
	char *buf, *check = NULL;
	int ret = 0;

	buf = kmemdup_nul(page, kt_cfs_value_len(page, count), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;

	mutex_lock(&dev->cfg_lock);
	if (dev->enabled && !dev->ops->set_live_param) {
		pr_warn_ratelimited("%s: control: device is enabled, parameters are fixed\n",
				    config_item_name(item));
		ret = -EBUSY;
		goto out;
	}
	if (dev->enabled && READ_ONCE(dev->state->cluster.lu)) {
		pr_warn_ratelimited("%s: control: cannot resize in cluster mode: the other nodes would not follow\n",
				    config_item_name(item));
		ret = -EBUSY;
		goto out;
	}
	if (dev->enabled) {
		check = kstrdup(buf, GFP_KERNEL);
		ret = check ? kt_dev_control_pass(dev, check, false) : -ENOMEM;
		if (ret)
			goto out;
	}
	ret = kt_dev_control_pass(dev, buf, true);
	if (dev->enabled)
		kt_dev_size_sync(dev, KT_UA_ALL, NULL);
out:
	mutex_unlock(&dev->cfg_lock);
	kfree(check);
	kfree(buf);
	return ret ? ret : count;
}

static ssize_t kt_dev_enable_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", kt_dev_from_item(item)->enabled);
}

static ssize_t kt_dev_enable_store(struct config_item *item,
				   const char *page, size_t count)
{
	struct kt_dev *dev = kt_dev_from_item(item);
	bool on;
	int ret;

	ret = kstrtobool(page, &on);
	if (ret || !on) {
		pr_warn_ratelimited("%s: enable: only 1 can be written\n",
				    config_item_name(item));
		return -EINVAL;
	}

	ret = kt_dev_enable(dev);
	return ret ? ret : count;
}

/* A printable string attribute of the device, fixed once it is enabled. */
static ssize_t kt_dev_store_string(struct kt_dev *dev, const char *what,
				   char *dst, size_t size,
				   const char *page, size_t count)
{
	size_t len = kt_cfs_value_len(page, count);
	size_t i;

	if (len >= size) {
		pr_warn_ratelimited("%s: %s: %zu bytes, at most %zu\n",
				    config_item_name(&dev->group.cg_item), what,
				    len, size - 1);
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		if (!isprint(page[i])) {
			pr_warn_ratelimited("%s: %s: byte %zu is not printable\n",
					    config_item_name(&dev->group.cg_item),
					    what, i);
			return -EINVAL;
		}
	}
	mutex_lock(&dev->cfg_lock);
	memcpy(dst, page, len);
	dst[len] = '\0';
	mutex_unlock(&dev->cfg_lock);
	return count;
}

static ssize_t kt_dev_udev_path_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%s\n", kt_dev_from_item(item)->udev_path);
}

static ssize_t kt_dev_udev_path_store(struct config_item *item,
				      const char *page, size_t count)
{
	struct kt_dev *dev = kt_dev_from_item(item);

	return kt_dev_store_string(dev, "udev_path", dev->udev_path,
				   sizeof(dev->udev_path), page, count);
}

static ssize_t kt_dev_alias_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%s\n", kt_dev_from_item(item)->alias);
}

static ssize_t kt_dev_alias_store(struct config_item *item,
				  const char *page, size_t count)
{
	struct kt_dev *dev = kt_dev_from_item(item);

	return kt_dev_store_string(dev, "alias", dev->alias,
				   sizeof(dev->alias), page, count);
}

CONFIGFS_ATTR_RO(kt_dev_, info);
CONFIGFS_ATTR_WO(kt_dev_, control);
CONFIGFS_ATTR(kt_dev_, enable);
CONFIGFS_ATTR(kt_dev_, udev_path);
CONFIGFS_ATTR(kt_dev_, alias);

static struct configfs_attribute *kt_dev_attrs[] = {
	&kt_dev_attr_info,
	&kt_dev_attr_control,
	&kt_dev_attr_enable,
	&kt_dev_attr_udev_path,
	&kt_dev_attr_alias,
	NULL,
};

/* The device a LUN's symlink points at, or NULL if @item is no device. */
struct kt_dev *kt_dev_from_link_target(struct config_item *item)
{
	return item->ci_type == &kt_dev_type ? kt_dev_from_item(item) : NULL;
}

static void kt_dev_item_release(struct config_item *item)
{
	struct kt_dev *dev = kt_dev_from_item(item);

	/* attrib/ and action/ are gone before their parent */
	kt_cfs_dev_types_free(dev);
	kt_dev_release(dev);
}

static struct configfs_item_operations kt_dev_item_ops = {
	.release	= kt_dev_item_release,
};

static const struct config_item_type kt_dev_type = {
	.ct_item_ops	= &kt_dev_item_ops,
	.ct_attrs	= kt_dev_attrs,
	.ct_owner	= THIS_MODULE,
};

static const struct config_item_type kt_dev_empty_type = {
	.ct_owner	= THIS_MODULE,
};

/*
 * core/HBA_N/NAME/ and its default groups, for a device kt_dev_init() has
 * made: attrib/ (with the backstore's files), wwn/, pr/, alua/ (with
 * default_tg_pt_gp), statistics/ (with xcopy/), cluster/, and action/ for
 * a backstore that has actions.
 */
int kt_cfs_dev_init(struct kt_dev *dev, const char *name)
{
	const struct config_item_type *attrib, *action;
	int ret;

	ret = kt_cfs_dev_types(dev, &attrib, &action);
	if (ret)
		return ret;
	config_group_init_type_name(&dev->group, name, &kt_dev_type);
	config_group_init_type_name(&dev->attrib_group, "attrib", attrib);
	configfs_add_default_group(&dev->attrib_group, &dev->group);
	if (action) {
		config_group_init_type_name(&dev->action_group, "action",
					    action);
		configfs_add_default_group(&dev->action_group, &dev->group);
	}
	config_group_init_type_name(&dev->wwn_group, "wwn", &kt_dev_wwn_type);
	configfs_add_default_group(&dev->wwn_group, &dev->group);
	config_group_init_type_name(&dev->pr_group, "pr", &kt_dev_pr_type);
	configfs_add_default_group(&dev->pr_group, &dev->group);
	config_group_init_type_name(&dev->alua_group, "alua",
				    &kt_dev_alua_type);
	configfs_add_default_group(&dev->alua_group, &dev->group);
	kt_cfs_alua_dev_init(dev);
	config_group_init_type_name(&dev->stat_group, "statistics",
				    &kt_dev_empty_type);
	configfs_add_default_group(&dev->stat_group, &dev->group);
	kt_xcopy_stat_init(dev);
	config_group_init_type_name(&dev->cluster_group, "cluster",
				    &kt_dev_cluster_type);
	configfs_add_default_group(&dev->cluster_group, &dev->group);
	return 0;
}
