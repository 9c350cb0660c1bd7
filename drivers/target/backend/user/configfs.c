// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_user: a user device's own files, LIO's names. attrib/:
 * cmd_time_out, qfull_time_out (seconds, live), max_data_area_mb,
 * data_pages_per_blk, cmd_ring_size_mb (read-only: set through control),
 * dev_config (before enable, or unchanged), dev_size (a resize once enabled, told to
 * the daemon first), nl_reply_supported, tmr_notification (0 only: no task
 * management entry is sent, the mailbox does not offer CAP_TMR). action/:
 * block_dev, reset_ring, free_kept_buf (no buffer is ever kept: the
 * mailbox does not offer CAP_KEEP_BUF).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/kernel.h>

#include "user.h"

static struct kt_user_dev *attrib_udev(struct config_item *item)
{
	return to_udev(kt_dev_from_attrib_item(item));
}

static struct kt_user_dev *action_udev(struct config_item *item)
{
	return to_udev(kt_dev_from_action_item(item));
}

static ssize_t cmd_time_out_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%u\n", attrib_udev(item)->cmd_time_out);
}

static ssize_t cmd_time_out_store(struct config_item *item, const char *page,
				  size_t count)
{
	struct kt_user_dev *udev = attrib_udev(item);
	u32 val;

	if (kt_cfs_u32(page, count, 0, 24 * 3600, &val)) {
		pr_warn_ratelimited("%s: attrib/cmd_time_out: seconds 0..86400\n",
				    kt_user_name(udev));
		return -EINVAL;
	}
	WRITE_ONCE(udev->cmd_time_out, val);
	return count;
}

static ssize_t qfull_time_out_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", attrib_udev(item)->qfull_time_out);
}

static ssize_t qfull_time_out_store(struct config_item *item,
				    const char *page, size_t count)
{
	struct kt_user_dev *udev = attrib_udev(item);
	int val;

	if (kstrtoint(page, 0, &val) || val < -1 || val > 24 * 3600) {
		pr_warn_ratelimited("%s: attrib/qfull_time_out: seconds -1..86400\n",
				    kt_user_name(udev));
		return -EINVAL;
	}
	WRITE_ONCE(udev->qfull_time_out, val);
	return count;
}

static ssize_t max_data_area_mb_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%u\n", attrib_udev(item)->data_area_mb);
}

static ssize_t data_pages_per_blk_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%u\n", attrib_udev(item)->pages_per_blk);
}

static ssize_t cmd_ring_size_mb_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%u\n", attrib_udev(item)->ring_mb);
}

static ssize_t dev_config_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%s\n", attrib_udev(item)->config);
}

static ssize_t dev_config_store(struct config_item *item, const char *page,
				size_t count)
{
	struct kt_user_dev *udev = attrib_udev(item);
	size_t len = kt_cfs_value_len(page, count);
	int ret = count;

	mutex_lock(&udev->dev.cfg_lock);
	if (udev->dev.enabled && strlen(udev->config) == len &&
	    !memcmp(udev->config, page, len)) {
		/* rtslib's restore writes it back as it was */
	} else if (udev->dev.enabled) {
		pr_warn_ratelimited("%s: attrib/dev_config: fixed once enabled\n",
				    kt_user_name(udev));
		ret = -EBUSY;
	} else if (!len || len >= KT_USER_CONFIG_LEN || memchr(page, 0, len)) {
		pr_warn_ratelimited("%s: attrib/dev_config: 1..%d bytes\n",
				    kt_user_name(udev), KT_USER_CONFIG_LEN - 1);
		ret = -EINVAL;
	} else {
		memcpy(udev->config, page, len);
		udev->config[len] = '\0';
	}
	mutex_unlock(&udev->dev.cfg_lock);
	return ret;
}

static ssize_t dev_size_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%llu\n", attrib_udev(item)->dev_size);
}

static ssize_t dev_size_store(struct config_item *item, const char *page,
			      size_t count)
{
	struct kt_user_dev *udev = attrib_udev(item);
	int ret;

	mutex_lock(&udev->dev.cfg_lock);
	ret = kt_user_set_size(udev, page, true);
	mutex_unlock(&udev->dev.cfg_lock);
	return ret ? ret : count;
}

static ssize_t nl_reply_supported_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", attrib_udev(item)->nl_reply_supported);
}

static ssize_t nl_reply_supported_store(struct config_item *item,
					const char *page, size_t count)
{
	struct kt_user_dev *udev = attrib_udev(item);
	int val;

	if (kstrtoint(page, 0, &val))
		return -EINVAL;
	WRITE_ONCE(udev->nl_reply_supported, val);
	return count;
}

static ssize_t tmr_notification_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", attrib_udev(item)->tmr_notification);
}

static ssize_t tmr_notification_store(struct config_item *item,
				      const char *page, size_t count)
{
	bool val;

	if (kstrtobool(page, &val))
		return -EINVAL;
	/* taken and then ignored, it would promise what is never sent */
	if (val) {
		pr_warn_ratelimited("%s: tmr_notification: task management notifications are not offered (no CAP_TMR)\n",
				    kt_user_name(attrib_udev(item)));
		return -EINVAL;
	}
	attrib_udev(item)->tmr_notification = val;
	return count;
}

CONFIGFS_ATTR(, cmd_time_out);
CONFIGFS_ATTR(, qfull_time_out);
CONFIGFS_ATTR_RO(, max_data_area_mb);
CONFIGFS_ATTR_RO(, data_pages_per_blk);
CONFIGFS_ATTR_RO(, cmd_ring_size_mb);
CONFIGFS_ATTR(, dev_config);
CONFIGFS_ATTR(, dev_size);
CONFIGFS_ATTR(, nl_reply_supported);
CONFIGFS_ATTR(, tmr_notification);

struct configfs_attribute *kt_user_attrib_attrs[] = {
	&attr_cmd_time_out,
	&attr_qfull_time_out,
	&attr_max_data_area_mb,
	&attr_data_pages_per_blk,
	&attr_cmd_ring_size_mb,
	&attr_dev_config,
	&attr_dev_size,
	&attr_nl_reply_supported,
	&attr_tmr_notification,
	NULL,
};

static ssize_t block_dev_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%s\n",
			  test_bit(KT_USER_BLOCKED, &action_udev(item)->flags) ?
			  "blocked" : "unblocked");
}

static ssize_t block_dev_store(struct config_item *item, const char *page,
			       size_t count)
{
	struct kt_user_dev *udev = action_udev(item);
	u32 val;

	if (!udev->dev.enabled || kt_cfs_u32(page, count, 0, 1, &val)) {
		pr_warn_ratelimited("%s: action/block_dev: 0 or 1, on an enabled device\n",
				    kt_user_name(udev));
		return -EINVAL;
	}
	kt_user_block(udev, val);
	return count;
}

static ssize_t reset_ring_store(struct config_item *item, const char *page,
				size_t count)
{
	struct kt_user_dev *udev = action_udev(item);
	u32 val;

	if (!udev->dev.enabled || kt_cfs_u32(page, count, 1, 2, &val)) {
		pr_warn_ratelimited("%s: action/reset_ring: 1 (retry) or 2 (fail), on an enabled device\n",
				    kt_user_name(udev));
		return -EINVAL;
	}
	kt_user_reset_ring(udev, val == 2);
	return count;
}

static ssize_t free_kept_buf_store(struct config_item *item, const char *page,
				   size_t count)
{
	pr_warn_ratelimited("%s: action/free_kept_buf: no buffer is kept (no KEEP_BUF)\n",
			    kt_user_name(action_udev(item)));
	return -EINVAL;
}

CONFIGFS_ATTR(, block_dev);
CONFIGFS_ATTR_WO(, reset_ring);
CONFIGFS_ATTR_WO(, free_kept_buf);

struct configfs_attribute *kt_user_action_attrs[] = {
	&attr_block_dev,
	&attr_reset_ring,
	&attr_free_kept_buf,
	NULL,
};
