// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: devices and their configfs directory, core/HBA_N/NAME/,
 * with LIO's files: control, enable, info, udev_path, alias.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/ctype.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <ktarget/backend.h>

#include "alua/alua.h"
#include "cluster.h"
#include "copy/xcopy.h"
#include "core.h"
#include "pr/pr.h"
#include "scsi/cmdsets.h"

static DEFINE_IDA(kt_dev_ida);
static const struct config_item_type kt_dev_type;

/* LIO's defaults (target_core_base.h DA_*), so saved configurations match. */
static const struct kt_dev_attrib kt_dev_attrib_default = {
	.emulate_tas		= 1,
	.emulate_caw		= 1,
	.emulate_3pc		= 1,
	.emulate_pr		= 1,
	.enforce_pr_isids	= 1,
	.emulate_fua_write	= 1,
	.emulate_dpo		= 1,
	.emulate_fua_read	= 1,
	.block_size		= 512,
	.hw_block_size		= 512,
	.hw_max_sectors		= 8192,
	.optimal_sectors	= 8192,
	.hw_queue_depth		= 128,
	.queue_depth		= 128,
	.alua_support		= 1,
	.pgr_support		= 1,
	.rod_inactivity_timeout	= KT_ROD_TIMEOUT_DEFAULT,
	/*
	 * Unlike LIO, thin provisioning is on: every backstore makes unmapped
	 * blocks read as zeroes (LBPRZ), so UNMAP and WRITE SAME are safe.
	 */
	.emulate_tpu		= 1,
	.emulate_tpws		= 1,
	.unmap_zeroes_data	= 1,
	.max_unmap_lba_count	= 65536,
	.max_unmap_block_desc_count = 256,
	.unmap_granularity	= 1,
	.max_write_same_len	= 65535,
};

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
 * "key=value[,key=value...]", separators ',' or newlines, as LIO takes it.
 * The whole write is parsed before anything is applied.
 */
static ssize_t kt_dev_control_store(struct config_item *item,
				    const char *page, size_t count)
{
	struct kt_dev *dev = kt_dev_from_item(item);
	char *buf, *opts, *opt, *val;
	int ret = 0;

	buf = kmemdup_nul(page, kt_cfs_value_len(page, count), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;

	mutex_lock(&dev->cfg_lock);
	if (dev->enabled) {
		pr_warn_ratelimited("%s: control: device is enabled, parameters are fixed\n",
				    config_item_name(item));
		ret = -EBUSY;
		goto out;
	}
	opts = buf;
	while ((opt = strsep(&opts, ",\n")) != NULL) {
		opt = strim(opt);
		if (!*opt)
			continue;
		val = strchr(opt, '=');
		if (!val) {
			pr_warn_ratelimited("%s: control: '%s' is not key=value\n",
					    config_item_name(item), opt);
			ret = -EINVAL;
			break;
		}
		*val++ = '\0';
		ret = dev->ops->set_param(dev, opt, val);
		if (ret == -ENOKEY) {
			pr_warn_ratelimited("%s: control: unknown key '%s' for %s\n",
					    config_item_name(item), opt,
					    dev->ops->name);
			ret = -EINVAL;
		} else if (ret) {
			pr_warn_ratelimited("%s: control: bad value '%s' for %s\n",
					    config_item_name(item), val, opt);
		}
		if (ret)
			break;
	}
out:
	mutex_unlock(&dev->cfg_lock);
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

	mutex_lock(&dev->cfg_lock);
	if (dev->enabled) {
		pr_warn_ratelimited("%s: enable: device is already enabled\n",
				    config_item_name(item));
		ret = -EEXIST;
		goto out;
	}
	/* the backstore logs its own reason for a refusal */
	ret = dev->ops->enable(dev);
	if (!ret) {
		/*
		 * As LIO's target_configure_device(): the writable limits
		 * start from what the backstore reports, so a saved
		 * configuration (rtslib writes them all back) stays in range.
		 */
		dev->attrib.block_size = dev->attrib.hw_block_size;
		dev->attrib.queue_depth = dev->attrib.hw_queue_depth;
		dev->attrib.optimal_sectors = dev->attrib.hw_max_sectors;
		kt_lbp_thresh_enable(dev);
		dev->enabled = true;
		/* SPC-4 5.13.5: registrations kept with APTPL come back */
		mutex_lock(&dev->state->res.lock);
		kt_pr_aptpl_load(dev);
		mutex_unlock(&dev->state->res.lock);
	}
out:
	mutex_unlock(&dev->cfg_lock);
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

/*
 * Under cfg_lock: a LUN exposes the device, and its set-up (geometry,
 * cluster mode) is fixed until the last one goes.
 */
void kt_dev_export(struct kt_dev *dev)
{
	lockdep_assert_held(&dev->cfg_lock);
	atomic_inc(&dev->export_count);
}

void kt_dev_unexport(struct kt_dev *dev)
{
	lockdep_assert_held(&dev->cfg_lock);
	atomic_dec(&dev->export_count);
}

static void kt_dev_release(struct config_item *item)
{
	struct kt_dev *dev = kt_dev_from_item(item);
	u32 index = dev->index;

	if (dev->enabled && dev->ops->disable)
		dev->ops->disable(dev);
	kt_cluster_dev_release(dev);
	kt_res_dev_release(dev);
	kt_rod_dev_release(dev);
	kt_task_set_dev_exit(dev);
	kfree(dev->state);
	dev->ops->free_dev(dev);
	ida_free(&kt_dev_ida, index);
}

static struct configfs_item_operations kt_dev_item_ops = {
	.release	= kt_dev_release,
};

static const struct config_item_type kt_dev_type = {
	.ct_item_ops	= &kt_dev_item_ops,
	.ct_attrs	= kt_dev_attrs,
	.ct_owner	= THIS_MODULE,
};

static const struct config_item_type kt_dev_empty_type = {
	.ct_owner	= THIS_MODULE,
};

int kt_dev_init(struct kt_dev *dev, const struct kt_backend_ops *ops,
		const char *name)
{
	int index, ret;

	dev->state = kzalloc(sizeof(*dev->state), GFP_KERNEL);
	if (!dev->state)
		return -ENOMEM;
	dev->state->dev = dev;
	index = ida_alloc(&kt_dev_ida, GFP_KERNEL);
	if (index < 0) {
		ret = index;
		goto out_state;
	}
	ret = kt_task_set_dev_init(dev);
	if (ret)
		goto out_ida;

	dev->ops = ops;
	dev->index = index;
	mutex_init(&dev->cfg_lock);
	sema_init(&dev->state->caw_sem, 1);
	kt_ua_dev_init(dev);
	kt_lbp_thresh_dev_init(dev);
	kt_res_dev_init(dev);
	kt_sanitize_dev_init(dev);
	kt_cluster_dev_init(dev);
	dev->attrib = kt_dev_attrib_default;
	kt_dev_wwn_init(dev);

	config_group_init_type_name(&dev->group, name, &kt_dev_type);
	config_group_init_type_name(&dev->attrib_group, "attrib",
				    &kt_dev_attrib_type);
	configfs_add_default_group(&dev->attrib_group, &dev->group);
	config_group_init_type_name(&dev->wwn_group, "wwn", &kt_dev_wwn_type);
	configfs_add_default_group(&dev->wwn_group, &dev->group);
	config_group_init_type_name(&dev->pr_group, "pr", &kt_dev_pr_type);
	configfs_add_default_group(&dev->pr_group, &dev->group);
	config_group_init_type_name(&dev->alua_group, "alua",
				    &kt_dev_alua_type);
	configfs_add_default_group(&dev->alua_group, &dev->group);
	kt_alua_dev_init(dev);
	config_group_init_type_name(&dev->stat_group, "statistics",
				    &kt_dev_empty_type);
	configfs_add_default_group(&dev->stat_group, &dev->group);
	kt_xcopy_stat_init(dev);
	kt_rod_dev_init(dev);
	config_group_init_type_name(&dev->cluster_group, "cluster",
				    &kt_dev_cluster_type);
	configfs_add_default_group(&dev->cluster_group, &dev->group);
	return 0;

out_ida:
	ida_free(&kt_dev_ida, index);
out_state:
	kfree(dev->state);
	dev->state = NULL;
	return ret;
}
