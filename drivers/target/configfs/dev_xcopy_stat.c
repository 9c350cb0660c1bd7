// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: core/HBA_N/NAME/statistics/xcopy/, the EXTENDED COPY
 * counters of a device acting as copy manager. Read-only, one number each.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/module.h>

#include <ktarget/target.h>

#include "copy/xcopy.h"
#include "configfs.h"
#include "core.h"

/* The counter at byte @off of the device's struct kt_xcopy_stat */
static ssize_t kt_xcopy_stat_show(struct config_item *item, char *page,
				  size_t off)
{
	struct kt_dev_state *st = container_of(to_config_group(item),
					       struct kt_dev_state,
					       xcopy_stat_group);
	atomic64_t *v = (atomic64_t *)((u8 *)&st->xcopy_stat + off);

	return sysfs_emit(page, "%lld\n", (long long)atomic64_read(v));
}

#define KT_XCOPY_STAT(_name)						\
static ssize_t kt_xcopy_stat_##_name##_show(struct config_item *item,	\
					    char *page)			\
{									\
	return kt_xcopy_stat_show(item, page,				\
				  offsetof(struct kt_xcopy_stat, _name)); \
}									\
static struct configfs_attribute kt_xcopy_stat_attr_##_name = {	\
	.ca_name	= __stringify(_name),				\
	.ca_mode	= 0444,						\
	.ca_owner	= THIS_MODULE,					\
	.show		= kt_xcopy_stat_##_name##_show,			\
}

KT_XCOPY_STAT(operations);
KT_XCOPY_STAT(failures);
KT_XCOPY_STAT(segments);
KT_XCOPY_STAT(bytes);
KT_XCOPY_STAT(chunks);
KT_XCOPY_STAT(sgl_allocs);
KT_XCOPY_STAT(sgl_reuses);
KT_XCOPY_STAT(fast_copies);
KT_XCOPY_STAT(aborts);

static struct configfs_attribute *kt_xcopy_stat_attrs[] = {
	&kt_xcopy_stat_attr_operations,
	&kt_xcopy_stat_attr_failures,
	&kt_xcopy_stat_attr_segments,
	&kt_xcopy_stat_attr_bytes,
	&kt_xcopy_stat_attr_chunks,
	&kt_xcopy_stat_attr_sgl_allocs,
	&kt_xcopy_stat_attr_sgl_reuses,
	&kt_xcopy_stat_attr_fast_copies,
	&kt_xcopy_stat_attr_aborts,
	NULL,
};

static const struct config_item_type kt_xcopy_stat_type = {
	.ct_attrs	= kt_xcopy_stat_attrs,
	.ct_owner	= THIS_MODULE,
};

/* statistics/xcopy under the device's statistics group */
void kt_xcopy_stat_init(struct kt_dev *dev)
{
	config_group_init_type_name(&dev->state->xcopy_stat_group, "xcopy",
				    &kt_xcopy_stat_type);
	configfs_add_default_group(&dev->state->xcopy_stat_group, &dev->stat_group);
}
