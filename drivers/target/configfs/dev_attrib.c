// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: core/HBA_N/NAME/attrib/, the device attributes with LIO's
 * names, ranges checked on every write.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <ktarget/backend.h>
#include <ktarget/proto/mmc.h>
#include <ktarget/proto/pi.h>
#include <ktarget/proto/rod.h>
#include <ktarget/target.h>

#include "configfs.h"
#include "core.h"
#include "dev_state.h"
#include "pr/pr.h"

static struct kt_dev *attrib_to_dev(struct config_item *item)
{
	return container_of(to_config_group(item), struct kt_dev, attrib_group);
}

/* 0: store @val; 1: take the write but store nothing; -errno: refuse it */
typedef int (*kt_attrib_check_t)(struct kt_dev *dev, u32 val);

static ssize_t kt_attrib_store(struct config_item *item, const char *name,
			       size_t offset, u32 min, u32 max,
			       kt_attrib_check_t check,
			       const char *page, size_t count)
{
	struct kt_dev *dev = attrib_to_dev(item);
	const char *devname = config_item_name(&dev->group.cg_item);
	u32 val;
	int ret;

	ret = kt_cfs_u32(page, count, min, max, &val);
	if (ret == -ERANGE) {
		pr_warn_ratelimited("%s: attrib/%s: %u is out of range %u..%u\n",
				    devname, name, val, min, max);
		return -EINVAL;
	}
	if (ret) {
		pr_warn_ratelimited("%s: attrib/%s: '%.*s' is not a number\n",
				    devname, name,
				    (int)min_t(size_t, kt_cfs_value_len(page, count), 32),
				    page);
		return -EINVAL;
	}

	mutex_lock(&dev->cfg_lock);
	ret = check ? check(dev, val) : 0;
	if (!ret)
		*(u32 *)((u8 *)&dev->attrib + offset) = val;
	mutex_unlock(&dev->cfg_lock);
	/* a check's 1: the write is taken, the value not kept */
	return ret < 0 ? ret : count;
}

static ssize_t kt_attrib_show(struct config_item *item, char *page,
			      size_t offset)
{
	return sysfs_emit(page, "%u\n",
			  *(u32 *)((u8 *)&attrib_to_dev(item)->attrib + offset));
}

/* attrib/NAME: a u32 of struct kt_dev_attrib in @_min.._max, @_check'ed */
#define KT_ATTRIB_RW(_name, _min, _max, _check)				\
static const size_t _name##_off = offsetof(struct kt_dev_attrib, _name); \
static ssize_t _name##_show(struct config_item *item, char *page)	\
{									\
	return kt_attrib_show(item, page, _name##_off);			\
}									\
static ssize_t _name##_store(struct config_item *item,			\
			     const char *page, size_t count)		\
{									\
	return kt_attrib_store(item, #_name, _name##_off, _min, _max,	\
			       _check, page, count);			\
}									\
static struct configfs_attribute attr_##_name = {			\
	.ca_name	= __stringify(_name),				\
	.ca_mode	= 0644,						\
	.ca_owner	= THIS_MODULE,					\
	.show		= _name##_show,					\
	.store		= _name##_store,				\
}

#define KT_ATTRIB_BOOL(_name)	KT_ATTRIB_RW(_name, 0, 1, NULL)

/* attrib/NAME, read only */
#define KT_ATTRIB_RO(_name)						\
static ssize_t _name##_show(struct config_item *item, char *page)	\
{									\
	return kt_attrib_show(item, page,				\
			      offsetof(struct kt_dev_attrib, _name));	\
}									\
static struct configfs_attribute attr_##_name = {			\
	.ca_name	= __stringify(_name),				\
	.ca_mode	= 0444,						\
	.ca_owner	= THIS_MODULE,					\
	.show		= _name##_show,					\
}

/* SBC-3 6.5.2: the logical block length; the backstore must be able to serve it. */
static int kt_check_block_size(struct kt_dev *dev, u32 val)
{
	if (atomic_read(&dev->export_count) && val != dev->attrib.block_size) {
		pr_warn_ratelimited("%s: attrib/block_size: the device is exported through a LUN\n",
				    config_item_name(&dev->group.cg_item));
		return -EBUSY;
	}
	if (dev->attrib.pi_prot_type && val != dev->attrib.block_size) {
		pr_warn_ratelimited("%s: attrib/block_size: the device keeps protection information per block (pi_prot_type %u): set pi_prot_type to 0 first\n",
				    config_item_name(&dev->group.cg_item),
				    dev->attrib.pi_prot_type);
		return -EBUSY;
	}
	if (!is_power_of_2(val)) {
		pr_warn_ratelimited("%s: attrib/block_size: %u is not a power of 2\n",
				    config_item_name(&dev->group.cg_item), val);
		return -EINVAL;
	}
	if (dev->attrib.emulate_cdrom && val != KT_MMC_BLOCK_SIZE) {
		pr_warn_ratelimited("%s: attrib/block_size: a CD/DVD device (emulate_cdrom) has %u-byte blocks\n",
				    config_item_name(&dev->group.cg_item),
				    KT_MMC_BLOCK_SIZE);
		return -EINVAL;
	}
	return 0;
}

/*
 * ktarget's: 1 makes the device a read-only CD/DVD drive with its disc
 * loaded (MMC, peripheral device type 05h, 2048-byte blocks), 0 a disk
 * again. Not while a LUN exports it: an initiator would find another
 * kind of device under the same LUN (as block_size). It may change while
 * the device is enabled, since rtslib's restoreconfig writes the
 * attributes back after it enabled the device.
 */
/*
 * Why a disk's state keeps @dev from becoming a CD/DVD, or NULL: a CD/DVD
 * has no PR commands to release or clear a reservation or registration
 * with, nor SANITIZE to leave failure mode, and cluster mode shares a
 * disk's state with other nodes. A passthrough backstore's device server
 * is elsewhere (the user backstore's daemon): the core's MMC emulation
 * would answer for a device that does not know it is one.
 */
static const char *kt_cdrom_busy(struct kt_dev *dev)
{
	struct kt_dev_state *st = dev->state;
	struct kt_res *res = &st->res;
	const char *why = NULL;

	if (dev->ops->exec_cdb)
		return "its backstore passes commands through to its own device server";
	if (dev->attrib.pi_prot_type)
		return "it keeps protection information (pi_prot_type)";
	if (READ_ONCE(st->cluster.lu))
		return "the device is in cluster mode";
	switch (atomic_read(&st->sanitize.state)) {
	case KT_SANITIZE_RUNNING:
		return "a SANITIZE is running on it";
	case KT_SANITIZE_FAILED:
		return "a SANITIZE left it in failure mode";
	case KT_SANITIZE_FORMATTING:
		return "a FORMAT UNIT is running on it";
	case KT_SANITIZE_FORMAT_FAILED:
		return "a FORMAT UNIT failed on it: format it again";
	}
	mutex_lock(&res->lock);
	if (res->nr_regs || res->type != KT_PR_TYPE_NONE)
		why = "it has persistent reservation registrations";
	else if (kt_reserve_held(res))
		why = "an SPC-2 RESERVE holds it";
	mutex_unlock(&res->lock);
	return why;
}

static int kt_set_emulate_cdrom(struct kt_dev *dev, u32 val)
{
	const char *name = config_item_name(&dev->group.cg_item);
	const char *why;

	if (val == dev->attrib.emulate_cdrom)
		return 0;
	if (atomic_read(&dev->export_count)) {
		pr_warn_ratelimited("%s: attrib/emulate_cdrom: the device is exported through a LUN\n",
				    name);
		return -EBUSY;
	}
	why = val ? kt_cdrom_busy(dev) : NULL;
	if (why) {
		pr_warn_ratelimited("%s: attrib/emulate_cdrom: %s\n", name, why);
		return -EBUSY;
	}
	if (val && dev->attrib.hw_block_size > KT_MMC_BLOCK_SIZE) {
		pr_warn_ratelimited("%s: attrib/emulate_cdrom: its %u-byte blocks are larger than a CD's %u\n",
				    name, dev->attrib.hw_block_size,
				    KT_MMC_BLOCK_SIZE);
		return -EINVAL;
	}
	dev->attrib.block_size = val ? KT_MMC_BLOCK_SIZE :
				       dev->attrib.hw_block_size;
	return 0;
}

static int kt_check_optimal_sectors(struct kt_dev *dev, u32 val)
{
	if (val > dev->attrib.hw_max_sectors) {
		pr_warn_ratelimited("%s: attrib/optimal_sectors: %u is above hw_max_sectors %u\n",
				    config_item_name(&dev->group.cg_item), val,
				    dev->attrib.hw_max_sectors);
		return -EINVAL;
	}
	return 0;
}

static int kt_check_queue_depth(struct kt_dev *dev, u32 val)
{
	if (val > dev->attrib.hw_queue_depth) {
		pr_warn_ratelimited("%s: attrib/queue_depth: %u is above hw_queue_depth %u\n",
				    config_item_name(&dev->group.cg_item), val,
				    dev->attrib.hw_queue_depth);
		return -EINVAL;
	}
	return 0;
}

/*
 * LIO: 1 makes the INQUIRY product id (wwn/product_id) the device's
 * configfs name, cut to 15 bytes as LIO does; 0 gives back the backstore's
 * own (as kt_dev_wwn_init()). targetcli sets it on every backstore it makes.
 */
static int kt_set_model_alias(struct kt_dev *dev, u32 val)
{
	char *pid = dev->wwn.product_id;
	size_t i;

	if (atomic_read(&dev->export_count)) {
		if (val == dev->attrib.emulate_model_alias)
			return 0;
		pr_warn_ratelimited("%s: attrib/emulate_model_alias: the device is exported through a LUN\n",
				    config_item_name(&dev->group.cg_item));
		return -EBUSY;
	}
	if (val) {
		strscpy(pid, config_item_name(&dev->group.cg_item),
			min_t(size_t, sizeof(dev->wwn.product_id), 16));
		return 0;
	}
	strscpy(pid, dev->ops->name, sizeof(dev->wwn.product_id));
	for (i = 0; pid[i]; i++)
		pid[i] = toupper(pid[i]);
	return 0;
}

/*
 * T10-PI (drivers/target/pi.c), with LIO's rules: pi_prot_type 0, 1 or 3
 * on an enabled device that no LUN exports, where the backstore emulates
 * PI (fileio, rd), or 0 and the type of the device below (iblock over a
 * device with integrity, hw_pi_prot_type, which enabling sets); a change
 * from 0 makes the backstore's room for it, one to 0 lets it go, and
 * pi_prot_verify follows (1 with PI). Emulated PI and cluster mode exclude
 * each other. Type 2 needs the 32-byte CDBs, which ktarget does not
 * decode.
 */
static int kt_pi_change_ok(struct kt_dev *dev, const char *attr)
{
	const char *name = config_item_name(&dev->group.cg_item);

	if (!dev->enabled) {
		pr_warn_ratelimited("%s: attrib/%s: enable the device first\n",
				    name, attr);
		return -ENODEV;
	}
	if (atomic_read(&dev->export_count)) {
		pr_warn_ratelimited("%s: attrib/%s: the device is exported through a LUN\n",
				    name, attr);
		return -EBUSY;
	}
	return 0;
}

static int kt_set_pi_prot_type(struct kt_dev *dev, u32 val)
{
	const char *name = config_item_name(&dev->group.cg_item);
	u32 old = dev->attrib.pi_prot_type;
	int ret;

	if (val == 2) {
		pr_warn_ratelimited("%s: attrib/pi_prot_type: type 2 protection (32-byte CDBs) is not supported: 0, 1 or 3\n",
				    name);
		return -EINVAL;
	}
	if (val == old)
		return 0;
	/*
	 * iblock: the PI of the device below, or none shown (LIO's rule);
	 * its tuples are one per device block, so one per LU block only
	 */
	if (!dev->ops->init_prot && dev->attrib.hw_pi_prot_type &&
	    (!val || (val == dev->attrib.hw_pi_prot_type &&
		      dev->attrib.block_size == dev->attrib.hw_block_size &&
		      !dev->attrib.emulate_cdrom))) {
		ret = kt_pi_change_ok(dev, "pi_prot_type");
		if (!ret)
			dev->attrib.pi_prot_verify = !!val;
		return ret;
	}
	if (!dev->ops->init_prot) {
		pr_warn_ratelimited("%s: attrib/pi_prot_type: the %s backstore keeps no protection information: 0 or its device's type (hw_pi_prot_type %u) only, with the device's block size, not on a CD/DVD LU\n",
				    name, dev->ops->name,
				    dev->attrib.hw_pi_prot_type);
		return -EINVAL;
	}
	if (dev->attrib.emulate_cdrom) {
		pr_warn_ratelimited("%s: attrib/pi_prot_type: a CD/DVD device (emulate_cdrom) has no protection information\n",
				    name);
		return -EINVAL;
	}
	if (val && (READ_ONCE(dev->state->cluster.lu) ||
		    dev->state->cluster.join_on_export)) {
		pr_warn_ratelimited("%s: attrib/pi_prot_type: the device is in cluster mode, where PI kept beside the data would go stale\n",
				    name);
		return -EINVAL;
	}
	ret = kt_pi_change_ok(dev, "pi_prot_type");
	if (ret)
		return ret;
	if (!old) {
		ret = dev->ops->init_prot(dev);
		if (ret)
			return ret;
	} else if (!val) {
		dev->ops->free_prot(dev);
	} else if (val == KT_PI_TYPE1) {
		/*
		 * From type 3, whose reference tags are the application
		 * client's (0 when the LU made them), not type 1's LBAs:
		 * every block unchecked until written again
		 */
		ret = dev->ops->format_prot(dev);
		if (ret)
			return ret;
		pr_info("%s: attrib/pi_prot_type: type 3 to 1: protection information formatted\n",
			name);
	}
	dev->attrib.pi_prot_verify = !!val;
	return 0;
}

/* 1 formats: every block's PI FFh, none checked until written; reads 0 */
static int kt_pi_prot_format(struct kt_dev *dev, u32 val)
{
	const char *name = config_item_name(&dev->group.cg_item);
	int ret;

	if (!val)
		return 0;
	if (!dev->ops->format_prot || !dev->attrib.pi_prot_type) {
		pr_warn_ratelimited("%s: attrib/pi_prot_format: the device keeps no protection information (pi_prot_type 0)\n",
				    name);
		return -EINVAL;
	}
	ret = kt_pi_change_ok(dev, "pi_prot_format");
	if (ret)
		return ret;
	ret = dev->ops->format_prot(dev);
	if (ret)
		return ret;
	pr_info("%s: protection information formatted\n", name);
	/* the attribute itself stays 0, as LIO's reads */
	return 1;
}

/*
 * 1 without PI is ignored, as LIO does (rtslib restores the attributes in
 * any order). Reads are checked whatever it says (pi.c).
 */
static int kt_set_pi_prot_verify(struct kt_dev *dev, u32 val)
{
	if (val && !dev->attrib.pi_prot_type)
		return 1;
	return 0;
}

KT_ATTRIB_RW(emulate_model_alias, 0, 1, kt_set_model_alias);
KT_ATTRIB_BOOL(emulate_dpo);
KT_ATTRIB_BOOL(emulate_fua_write);
KT_ATTRIB_BOOL(emulate_fua_read);
KT_ATTRIB_BOOL(emulate_write_cache);
KT_ATTRIB_RW(emulate_ua_intlck_ctrl, 0, 2, NULL);	/* SPC-4 7.5.7 UA_INTLCK_CTRL */
KT_ATTRIB_BOOL(emulate_tas);
KT_ATTRIB_BOOL(emulate_tpu);
KT_ATTRIB_BOOL(emulate_tpws);
KT_ATTRIB_BOOL(emulate_caw);
KT_ATTRIB_BOOL(emulate_3pc);
KT_ATTRIB_BOOL(emulate_pr);
KT_ATTRIB_RW(pi_prot_type, 0, 3, kt_set_pi_prot_type);
KT_ATTRIB_RO(hw_pi_prot_type);
KT_ATTRIB_RW(pi_prot_format, 0, 1, kt_pi_prot_format);
KT_ATTRIB_RW(pi_prot_verify, 0, 1, kt_set_pi_prot_verify);
KT_ATTRIB_BOOL(enforce_pr_isids);
KT_ATTRIB_BOOL(is_nonrot);
KT_ATTRIB_RW(emulate_rest_reord, 0, 0, NULL);	/* unrestricted reordering: no */
KT_ATTRIB_BOOL(force_pr_aptpl);
KT_ATTRIB_RO(hw_block_size);
KT_ATTRIB_RW(block_size, 512, 4096, kt_check_block_size);
KT_ATTRIB_RO(hw_max_sectors);
KT_ATTRIB_RW(optimal_sectors, 1, U32_MAX, kt_check_optimal_sectors);
KT_ATTRIB_RO(hw_queue_depth);
KT_ATTRIB_RW(queue_depth, 1, U32_MAX, kt_check_queue_depth);
KT_ATTRIB_RW(max_unmap_lba_count, 0, U32_MAX, NULL);
KT_ATTRIB_RW(max_unmap_block_desc_count, 0, U32_MAX, NULL);
KT_ATTRIB_RW(unmap_granularity, 0, U32_MAX, NULL);
KT_ATTRIB_RW(unmap_granularity_alignment, 0, U32_MAX, NULL);
KT_ATTRIB_BOOL(unmap_zeroes_data);
KT_ATTRIB_RW(max_write_same_len, 0, U32_MAX, NULL);
KT_ATTRIB_BOOL(alua_support);
KT_ATTRIB_BOOL(pgr_support);
KT_ATTRIB_RW(rod_inactivity_timeout, 1, KT_ROD_TIMEOUT_MAX, NULL);
/* 0 the fabric's way, 1 direct, 2 queued (cmd_hop.c); any time, per command */
KT_ATTRIB_RW(submit_type, KT_HOP_DEFAULT, KT_HOP_QUEUED, NULL);
KT_ATTRIB_RW(complete_type, KT_HOP_DEFAULT, KT_HOP_QUEUED, NULL);
KT_ATTRIB_RW(emulate_cdrom, 0, 1, kt_set_emulate_cdrom);
/* LIO 6.19: what the backstore found at enable (WRITE ATOMIC) */
KT_ATTRIB_RO(atomic_max_len);
KT_ATTRIB_RO(atomic_alignment);
KT_ATTRIB_RO(atomic_granularity);
KT_ATTRIB_RO(atomic_max_with_boundary);
KT_ATTRIB_RO(atomic_max_boundary);

static struct configfs_attribute *kt_dev_attrib_attrs[] = {
	&attr_emulate_model_alias,
	&attr_emulate_dpo,
	&attr_emulate_fua_write,
	&attr_emulate_fua_read,
	&attr_emulate_write_cache,
	&attr_emulate_ua_intlck_ctrl,
	&attr_emulate_tas,
	&attr_emulate_tpu,
	&attr_emulate_tpws,
	&attr_emulate_caw,
	&attr_emulate_3pc,
	&attr_emulate_pr,
	&attr_pi_prot_type,
	&attr_hw_pi_prot_type,
	&attr_pi_prot_format,
	&attr_pi_prot_verify,
	&attr_enforce_pr_isids,
	&attr_is_nonrot,
	&attr_emulate_rest_reord,
	&attr_force_pr_aptpl,
	&attr_hw_block_size,
	&attr_block_size,
	&attr_hw_max_sectors,
	&attr_optimal_sectors,
	&attr_hw_queue_depth,
	&attr_queue_depth,
	&attr_max_unmap_lba_count,
	&attr_max_unmap_block_desc_count,
	&attr_unmap_granularity,
	&attr_unmap_granularity_alignment,
	&attr_unmap_zeroes_data,
	&attr_max_write_same_len,
	&attr_alua_support,
	&attr_pgr_support,
	&attr_rod_inactivity_timeout,
	&attr_submit_type,
	&attr_complete_type,
	&attr_emulate_cdrom,
	&attr_atomic_max_len,
	&attr_atomic_alignment,
	&attr_atomic_granularity,
	&attr_atomic_max_with_boundary,
	&attr_atomic_max_boundary,
	NULL,
};

const struct config_item_type kt_dev_attrib_type = {
	.ct_attrs	= kt_dev_attrib_attrs,
	.ct_owner	= THIS_MODULE,
};

/* A device's attrib/ with its backstore's files, and its action/ */
struct kt_dev_cfs_types {
	struct config_item_type		attrib;
	struct config_item_type		action;
	struct configfs_attribute	*attrs[];
};

static unsigned int kt_attrs_count(struct configfs_attribute **attrs)
{
	unsigned int n = 0;

	while (attrs && attrs[n])
		n++;
	return n;
}

/*
 * The types of @dev's attrib/ and action/ where its backstore adds files
 * (backend.h, attrib_attrs and action_attrs): the core's attributes, then
 * the backstore's. NULL pointers in *@attrib / *@action: the core's own
 * type, no action/. Freed by kt_cfs_dev_types_free().
 */
int kt_cfs_dev_types(struct kt_dev *dev, const struct config_item_type **attrib,
		     const struct config_item_type **action)
{
	const struct kt_backend_ops *ops = dev->ops;
	unsigned int core = ARRAY_SIZE(kt_dev_attrib_attrs) - 1;
	unsigned int extra = kt_attrs_count(ops->attrib_attrs);
	struct kt_dev_cfs_types *t;

	*attrib = &kt_dev_attrib_type;
	*action = NULL;
	if (!extra && !ops->action_attrs)
		return 0;
	t = kzalloc(struct_size(t, attrs, core + extra + 1), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	memcpy(t->attrs, kt_dev_attrib_attrs, core * sizeof(t->attrs[0]));
	if (extra)
		memcpy(t->attrs + core, ops->attrib_attrs,
		       extra * sizeof(t->attrs[0]));
	t->attrib.ct_attrs = t->attrs;
	t->attrib.ct_owner = THIS_MODULE;
	t->action.ct_attrs = ops->action_attrs;
	t->action.ct_owner = THIS_MODULE;
	dev->cfs_types = t;
	*attrib = &t->attrib;
	if (ops->action_attrs)
		*action = &t->action;
	return 0;
}

void kt_cfs_dev_types_free(struct kt_dev *dev)
{
	kfree(dev->cfs_types);
	dev->cfs_types = NULL;
}
