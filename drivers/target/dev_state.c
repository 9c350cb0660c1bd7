// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: a device's life apart from configfs. kt_dev_init() makes
 * the LU's SCSI state (kt_dev->state: unit attentions, reservations, ALUA,
 * SANITIZE, the task set, the soft threshold, cluster mode, ROD tokens)
 * with LIO's default attributes and identification; kt_dev_enable() opens
 * the backstore; kt_dev_release() undoes both. configfs/dev.c gives the
 * device its directory, core/HBA_N/NAME/, and calls these.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/ctype.h>
#include <linux/idr.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <ktarget/backend.h>
#include <ktarget/proto/mmc.h>

#include "alua/alua.h"
#include "cluster.h"
#include "copy/xcopy.h"
#include "core.h"
#include "pr/pr.h"
#include "scsi/cmdsets.h"

#define KT_DEFAULT_VENDOR	"KTARGET"
#define KT_DEFAULT_COMPANY_ID	0x001405	/* LIO's OUI: initiators know it */

static DEFINE_IDA(kt_dev_ida);

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

/* The identification INQUIRY reports until wwn/ is written. */
static void kt_dev_wwn_init(struct kt_dev *dev)
{
	struct kt_dev_wwn *wwn = &dev->wwn;
	size_t i;

	strscpy(wwn->vendor_id, KT_DEFAULT_VENDOR, sizeof(wwn->vendor_id));
	strscpy(wwn->product_id, dev->ops->name, sizeof(wwn->product_id));
	for (i = 0; wwn->product_id[i]; i++)
		wwn->product_id[i] = toupper(wwn->product_id[i]);
	strscpy(wwn->revision, KT_VERSION, sizeof(wwn->revision));
	wwn->company_id = KT_DEFAULT_COMPANY_ID;
}

/* A device @ops->alloc_dev() made gets its SCSI state. */
int kt_dev_init(struct kt_dev *dev, const struct kt_backend_ops *ops)
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
	ret = kt_be_io_dev_init(dev);
	if (ret)
		goto out_task_set;

	dev->ops = ops;
	dev->index = index;
	mutex_init(&dev->cfg_lock);
	sema_init(&dev->state->caw_sem, 1);
	kt_pi_dev_init(dev);
	kt_ua_dev_init(dev);
	kt_lbp_thresh_dev_init(dev);
	kt_res_dev_init(dev);
	kt_sanitize_dev_init(dev);
	kt_cluster_dev_init(dev);
	dev->attrib = kt_dev_attrib_default;
	kt_dev_wwn_init(dev);
	kt_alua_dev_init(dev);
	kt_rod_dev_init(dev);
	return 0;

out_task_set:
	kt_task_set_dev_exit(dev);
out_ida:
	ida_free(&kt_dev_ida, index);
out_state:
	kfree(dev->state);
	dev->state = NULL;
	return ret;
}

/* enable: the backstore opens its medium; parameters are fixed from now. */
int kt_dev_enable(struct kt_dev *dev)
{
	int ret;

	mutex_lock(&dev->cfg_lock);
	if (dev->enabled) {
		pr_warn_ratelimited("%s: enable: device is already enabled\n",
				    config_item_name(&dev->group.cg_item));
		ret = -EEXIST;
		goto out;
	}
	/* the backstore logs its own reason for a refusal */
	ret = dev->ops->enable(dev);
	if (!ret && dev->attrib.emulate_cdrom &&
	    dev->attrib.hw_block_size > KT_MMC_BLOCK_SIZE) {
		/* set before enable, against the default block size */
		pr_warn_ratelimited("%s: enable: attrib/emulate_cdrom is set and the storage's %u-byte blocks are larger than a CD's %u\n",
				    config_item_name(&dev->group.cg_item),
				    dev->attrib.hw_block_size, KT_MMC_BLOCK_SIZE);
		if (dev->ops->disable)
			dev->ops->disable(dev);
		ret = -EINVAL;
	}
	if (!ret) {
		/*
		 * As LIO's target_configure_device(): the writable limits
		 * start from what the backstore reports, so a saved
		 * configuration (rtslib writes them all back) stays in range.
		 */
		dev->attrib.block_size = dev->attrib.emulate_cdrom ?
					 KT_MMC_BLOCK_SIZE :
					 dev->attrib.hw_block_size;
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
	return ret;
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

/*
 * SBC-3 4.6: the storage under @dev changed size (control's rd_pages= or
 * fd_dev_size=, a block device grown with lvextend or losetup -c). The
 * capacity reported follows it from now on, and the I_T nexuses @scope
 * and @sess name hear CAPACITY DATA HAS CHANGED once; where two callers
 * see the change at once, one raises it. A call and a compare when
 * nothing changed, so each command asks (kt_cmd_lu_gates()): no block
 * layer notification of a resize reaches a bdev's holder on 6.1 or 6.12.
 * Whether it changed.
 */
bool kt_dev_size_sync(struct kt_dev *dev, enum kt_ua_scope scope,
		      const struct kt_session *sess)
{
	u64 old = READ_ONCE(dev->nr_blocks), now;

	if (!dev->ops->size)
		return false;
	now = div_u64(dev->ops->size(dev), dev->attrib.hw_block_size);
	if (now == old || cmpxchg64(&dev->nr_blocks, old, now) != old)
		return false;
	/* once per change: not rate-limited */
	pr_info("%s: capacity changed from %llu to %llu blocks of %u bytes\n",
		config_item_name(&dev->group.cg_item), old, now,
		dev->attrib.hw_block_size);
	kt_ua_raise(dev, KT_ASC_CAPACITY_CHANGED, scope, sess);
	return true;
}

/* The device's directory is gone and nothing refers to it: free it. */
void kt_dev_release(struct kt_dev *dev)
{
	u32 index = dev->index;

	if (dev->enabled && dev->ops->disable)
		dev->ops->disable(dev);
	kt_cluster_dev_release(dev);
	kt_res_dev_release(dev);
	kt_rod_dev_release(dev);
	/* after its rcu_barrier(): no RCU callback of the gate is left */
	kt_task_set_dev_exit(dev);
	kt_be_io_dev_exit(dev);
	kfree(dev->state);
	dev->ops->free_dev(dev);
	ida_free(&kt_dev_ida, index);
}
