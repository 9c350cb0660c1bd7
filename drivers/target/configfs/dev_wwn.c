// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: core/HBA_N/NAME/wwn/, the identification INQUIRY reports
 * (SPC-4 6.6.2 standard data, 7.8.15 unit serial number).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <ktarget/backend.h>

#include "configfs.h"
#include "core.h"

static struct kt_dev *wwn_to_dev(struct config_item *item)
{
	return container_of(to_config_group(item), struct kt_dev, wwn_group);
}

/* SPC-4 4.4.1: INQUIRY identification strings are printable ASCII. */
static ssize_t kt_wwn_store_ascii(struct config_item *item, const char *what,
				  char *dst, size_t size,
				  const char *page, size_t count)
{
	struct kt_dev *dev = wwn_to_dev(item);
	const char *name = config_item_name(&dev->group.cg_item);
	size_t len = kt_cfs_value_len(page, count);
	size_t i;

	if (!len || len >= size) {
		pr_warn_ratelimited("%s: wwn/%s: %zu bytes, want 1..%zu\n",
				    name, what, len, size - 1);
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		if (page[i] < 0x20 || page[i] > 0x7e) {
			pr_warn_ratelimited("%s: wwn/%s: byte %zu is not printable ASCII\n",
					    name, what, i);
			return -EINVAL;
		}
	}
	mutex_lock(&dev->cfg_lock);
	memcpy(dst, page, len);
	dst[len] = '\0';
	mutex_unlock(&dev->cfg_lock);
	return count;
}

#define KT_WWN_STRING(_name, _field)					\
static ssize_t kt_wwn_##_name##_show(struct config_item *item, char *page) \
{									\
	return sysfs_emit(page, "%s\n", wwn_to_dev(item)->wwn._field);	\
}									\
static ssize_t kt_wwn_##_name##_store(struct config_item *item,	\
				      const char *page, size_t count)	\
{									\
	struct kt_dev *dev = wwn_to_dev(item);				\
									\
	return kt_wwn_store_ascii(item, #_name, dev->wwn._field,	\
				  sizeof(dev->wwn._field), page, count); \
}									\
CONFIGFS_ATTR(kt_wwn_, _name)

KT_WWN_STRING(vendor_id, vendor_id);
KT_WWN_STRING(product_id, product_id);
KT_WWN_STRING(revision, revision);

/* rtslib parses the part after the colon. */
static ssize_t kt_wwn_vpd_unit_serial_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "T10 VPD Unit Serial Number: %s\n",
			  wwn_to_dev(item)->wwn.unit_serial);
}

static ssize_t kt_wwn_vpd_unit_serial_store(struct config_item *item,
					    const char *page, size_t count)
{
	struct kt_dev *dev = wwn_to_dev(item);

	return kt_wwn_store_ascii(item, "vpd_unit_serial", dev->wwn.unit_serial,
				  sizeof(dev->wwn.unit_serial), page, count);
}

static ssize_t kt_wwn_company_id_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%#08x\n", wwn_to_dev(item)->wwn.company_id);
}

static ssize_t kt_wwn_company_id_store(struct config_item *item,
				       const char *page, size_t count)
{
	struct kt_dev *dev = wwn_to_dev(item);
	u32 val;

	/* SPC-4 7.8.6.5.1: an IEEE company id is 24 bits */
	if (kstrtou32(page, 0, &val) || val > 0xffffff) {
		pr_warn_ratelimited("%s: wwn/company_id: want a 24-bit number\n",
				    config_item_name(&dev->group.cg_item));
		return -EINVAL;
	}
	mutex_lock(&dev->cfg_lock);
	dev->wwn.company_id = val;
	mutex_unlock(&dev->cfg_lock);
	return count;
}

/*
 * SPC-4 6.32: the peripheral device text identifying information, LIO's
 * (6.19) file and errors: any text of up to 255 bytes once leading and
 * trailing white space is stripped (-EOVERFLOW beyond), empty for none;
 * fixed while the device is exported (-EINVAL), as LIO has it, so that no
 * initiator sees it change under it.
 */
static ssize_t kt_wwn_pd_text_id_info_show(struct config_item *item,
					   char *page)
{
	return sysfs_emit(page, "%s\n", wwn_to_dev(item)->wwn.pd_text_id_info);
}

static ssize_t kt_wwn_pd_text_id_info_store(struct config_item *item,
					    const char *page, size_t count)
{
	struct kt_dev *dev = wwn_to_dev(item);
	const char *name = config_item_name(&dev->group.cg_item);
	char *buf, *text;
	size_t len;
	int ret = 0;

	buf = kmemdup_nul(page, count, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	text = strstrip(buf);
	len = strlen(text);
	if (len >= sizeof(dev->wwn.pd_text_id_info)) {
		pr_warn_ratelimited("%s: wwn/pd_text_id_info: %zu bytes, want text of at most %zu\n",
				    name, len, sizeof(dev->wwn.pd_text_id_info) - 1);
		ret = -EOVERFLOW;
		goto out;
	}
	mutex_lock(&dev->cfg_lock);
	if (atomic_read(&dev->export_count)) {
		pr_warn_ratelimited("%s: wwn/pd_text_id_info: the device is exported through a LUN\n",
				    name);
		ret = -EINVAL;
	} else {
		strscpy(dev->wwn.pd_text_id_info, text,
			sizeof(dev->wwn.pd_text_id_info));
	}
	mutex_unlock(&dev->cfg_lock);
out:
	kfree(buf);
	return ret ? ret : count;
}

CONFIGFS_ATTR(kt_wwn_, vpd_unit_serial);
CONFIGFS_ATTR(kt_wwn_, company_id);
CONFIGFS_ATTR(kt_wwn_, pd_text_id_info);

static struct configfs_attribute *kt_dev_wwn_attrs[] = {
	&kt_wwn_attr_vendor_id,
	&kt_wwn_attr_product_id,
	&kt_wwn_attr_revision,
	&kt_wwn_attr_company_id,
	&kt_wwn_attr_vpd_unit_serial,
	&kt_wwn_attr_pd_text_id_info,
	NULL,
};

const struct config_item_type kt_dev_wwn_type = {
	.ct_attrs	= kt_dev_wwn_attrs,
	.ct_owner	= THIS_MODULE,
};
