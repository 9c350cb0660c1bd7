// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_user: the user backstore (user.h), configfs core/user_N/NAME,
 * configured as LIO's target_core_user is: control "dev_config=HANDLER/CFG",
 * "dev_size=BYTES", and optionally hw_block_size, hw_max_sectors,
 * nl_reply_supported, max_data_area_mb, data_pages_per_blk and
 * cmd_ring_size_mb. Enable sets up the ring, registers the UIO device and
 * announces it over netlink; disable (the device's release) takes them
 * down in the other order. The module refuses to load while LIO's
 * target_core_user holds the TCM-USER family.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pagemap.h>
#include <linux/path.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <ktarget/version.h>

#include "user.h"

/*
 * LIO's module parameters, by name, under this module's name: tcmu-runner
 * writes /sys/module/target_core_user/parameters/, which does not exist
 * here (the module is ktarget_user, loaded through an alias), so its
 * writes fail and it goes on without them. global_max_data_area_mb and
 * data_area_pages are data.c's.
 */

static int kt_user_block_nl_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	WRITE_ONCE(kt_user_nl_blocked, on);
	return 0;
}

static int kt_user_block_nl_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(kt_user_nl_blocked));
}

static const struct kernel_param_ops kt_user_block_nl_ops = {
	.set	= kt_user_block_nl_set,
	.get	= kt_user_block_nl_get,
};
module_param_cb(block_netlink, &kt_user_block_nl_ops, NULL, 0644);
MODULE_PARM_DESC(block_netlink, "refuse new netlink events (1)");

static int kt_user_reset_nl_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	if (on)
		kt_user_nl_reset();
	return 0;
}

static const struct kernel_param_ops kt_user_reset_nl_ops = {
	.set	= kt_user_reset_nl_set,
};
module_param_cb(reset_netlink, &kt_user_reset_nl_ops, NULL, 0200);
MODULE_PARM_DESC(reset_netlink, "end every wait for a netlink answer (1)");

static struct kt_dev *kt_user_alloc_dev(const char *name)
{
	struct kt_user_dev *udev = kzalloc(sizeof(*udev), GFP_KERNEL);

	if (!udev)
		return NULL;
	kref_init(&udev->kref);
	spin_lock_init(&udev->lock);
	mutex_init(&udev->map_lock);
	udev->data_area_mb = KT_USER_DATA_MB_DEF;
	udev->pages_per_blk = 1;
	udev->ring_mb = KT_USER_RING_MB_MAX;
	udev->cmd_time_out = KT_USER_TIME_OUT_DEF;
	udev->qfull_time_out = -1;
	xa_init_flags(&udev->cmds, XA_FLAGS_ALLOC1);
	xa_init(&udev->pages);
	INIT_LIST_HEAD(&udev->devs);
	INIT_LIST_HEAD(&udev->qfull);
	INIT_LIST_HEAD(&udev->pending);
	INIT_LIST_HEAD(&udev->inflight);
	init_waitqueue_head(&udev->fill_wq);
	kt_user_timer_init(udev);
	kt_user_kick_init(udev);
	return &udev->dev;
}

static void kt_user_dev_release(struct kref *kref)
{
	struct kt_user_dev *udev = container_of(kref, struct kt_user_dev, kref);

	kt_user_data_exit(udev, NULL);
	if (udev->mapping)
		path_put(&udev->map_path);
	vfree(udev->mb);
	mutex_destroy(&udev->map_lock);
	kfree(udev);
}

void kt_user_dev_put(struct kt_user_dev *udev)
{
	kref_put(&udev->kref, kt_user_dev_release);
}

static void kt_user_free_dev(struct kt_dev *dev)
{
	kt_user_dev_put(to_udev(dev));
}

static int kt_user_u32(const char *value, u32 min, u32 max, u32 *out)
{
	u32 v;

	if (kstrtou32(value, 0, &v) || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * A resize. Through control it comes from the daemon, which resized the
 * image itself (tcmu-runner's path); through attrib/dev_size (@tell) the
 * daemon is asked first (RECONFIG_DEVICE), as LIO does. Under cfg_lock.
 */
int kt_user_set_size(struct kt_user_dev *udev, const char *value, bool tell)
{
	u64 size;
	int ret;

	if (kstrtou64(value, 0, &size) || !size)
		return -EINVAL;
	if (tell && udev->dev.enabled && size != udev->dev_size) {
		ret = kt_user_nl_reconfig_size(udev, size);
		if (ret && ret != -ESRCH)
			return ret;
	}
	/*
	 * SBC-3 4.6: the core reads it back through size() and every I_T
	 * nexus hears CAPACITY DATA HAS CHANGED: after control at once,
	 * after attrib/dev_size as the next command arrives.
	 */
	WRITE_ONCE(udev->dev_size, size);
	return 0;
}

static int kt_user_set_param(struct kt_dev *dev, const char *key,
			     const char *value)
{
	struct kt_user_dev *udev = to_udev(dev);
	int v;

	if (!strcmp(key, "dev_config")) {
		if (!*value || strlen(value) >= KT_USER_CONFIG_LEN)
			return -EINVAL;
		strscpy(udev->config, value, sizeof(udev->config));
		return 0;
	}
	if (!strcmp(key, "dev_size"))
		return kt_user_set_size(udev, value, false);
	if (!strcmp(key, "hw_block_size"))
		return kt_user_u32(value, 512, 65536, &udev->hw_block_size);
	if (!strcmp(key, "hw_max_sectors"))
		return kt_user_u32(value, 1, 65536, &udev->hw_max_sectors);
	if (!strcmp(key, "nl_reply_supported")) {
		if (kstrtoint(value, 0, &v))
			return -EINVAL;
		udev->nl_reply_supported = v;
		return 0;
	}
	if (!strcmp(key, "max_data_area_mb"))
		return kt_user_u32(value, 1, kt_user_global_max_mb(),
				   &udev->data_area_mb);
	if (!strcmp(key, "data_pages_per_blk"))
		return kt_user_u32(value, 1, 256, &udev->pages_per_blk);
	if (!strcmp(key, "cmd_ring_size_mb"))
		return kt_user_u32(value, 1, KT_USER_RING_MB_MAX,
				   &udev->ring_mb);
	return -ENOKEY;
}

/*
 * control while enabled: only dev_size=, the daemon's word that it resized
 * the image. The core checks every key first (!@apply), then applies them
 * and compares size() with the capacity it reports.
 */
static int kt_user_set_live_param(struct kt_dev *dev, const char *key,
				  const char *value, bool exported, bool apply)
{
	struct kt_user_dev *udev = to_udev(dev);
	u64 size;

	if (strcmp(key, "dev_size")) {
		pr_warn_ratelimited("%s: control: device is enabled, parameters are fixed (%s)\n",
				    kt_user_name(udev), key);
		return -EBUSY;
	}
	if (kstrtou64(value, 0, &size) || !size) {
		pr_warn_ratelimited("%s: control: bad value '%s' for dev_size\n",
				    kt_user_name(udev), value);
		return -EINVAL;
	}
	return apply ? kt_user_set_size(udev, value, false) : 0;
}

/* The size the daemon last gave, for the core's kt_dev_size_sync() */
static u64 kt_user_size(struct kt_dev *dev)
{
	return READ_ONCE(to_udev(dev)->dev_size);
}

/*
 * A failed enable, or a disable: the daemon may have the device mapped.
 * Its faults find nothing from here on (map_size 0 and no mapping, under
 * the lock: SIGBUS), what it mapped is zapped before the pages go, and
 * its device node (its path: the mount it is on too) is let go with the
 * UIO device, so the next enable is mapped through the next one. A page
 * it still holds stays its own until it drops it; the kernel never uses
 * it again.
 */
static void kt_user_take_down(struct kt_user_dev *udev)
{
	struct address_space *mapping;
	struct path path = {};
	unsigned long flags;
	size_t off;
	void *mb;

	mutex_lock(&udev->map_lock);
	spin_lock_irqsave(&udev->lock, flags);
	udev->up = false;
	udev->map_size = 0;
	mb = udev->mb;
	udev->mb = NULL;
	mapping = udev->mapping;
	udev->mapping = NULL;
	if (mapping)
		swap(path, udev->map_path);
	/* a VMA of this enable faults SIGBUS from now, whatever its node */
	udev->map_gen++;
	udev->map_vmas = 0;
	spin_unlock_irqrestore(&udev->lock, flags);
	mutex_unlock(&udev->map_lock);
	/* a fault that found a ring page has its PTE in place: zapped next */
	if (mapping && mb)
		for (off = 0; off < udev->mb_size; off += PAGE_SIZE) {
			struct page *page = vmalloc_to_page(mb + off);

			lock_page(page);
			unlock_page(page);
		}
	kt_user_data_exit(udev, mapping);
	/* the node last: @mapping is its inode's */
	if (mapping)
		path_put(&path);
	vfree(mb);
}

static int kt_user_enable(struct kt_dev *dev)
{
	struct kt_user_dev *udev = to_udev(dev);
	unsigned long flags;
	int ret;

	if (!udev->dev_size) {
		pr_warn_ratelimited("%s: set dev_size= through control before enabling\n",
				    kt_user_name(udev));
		return -EINVAL;
	}
	if ((size_t)udev->pages_per_blk * PAGE_SIZE >
	    (size_t)udev->data_area_mb << 20) {
		pr_warn_ratelimited("%s: data_pages_per_blk %u is more than max_data_area_mb %u\n",
				    kt_user_name(udev), udev->pages_per_blk,
				    udev->data_area_mb);
		return -EINVAL;
	}
	/* the kernel counts blocks in a u32 (16 TiB of 4 KiB ones) */
	if (div_u64((u64)udev->data_area_mb << 20,
		    udev->pages_per_blk * PAGE_SIZE) > U32_MAX) {
		pr_warn_ratelimited("%s: max_data_area_mb %u makes more than %u blocks of data_pages_per_blk %u\n",
				    kt_user_name(udev), udev->data_area_mb,
				    U32_MAX, udev->pages_per_blk);
		return -EINVAL;
	}
	/* LIO's defaults */
	dev->attrib.hw_block_size = udev->hw_block_size ?: 512;
	dev->attrib.hw_max_sectors = udev->hw_max_sectors ?: 128;
	dev->attrib.hw_queue_depth = 128;
	dev->nr_blocks = div_u64(udev->dev_size, dev->attrib.hw_block_size);

	udev->mb_size = (size_t)udev->ring_mb << 20;
	udev->mb = vzalloc(udev->mb_size);
	if (!udev->mb)
		return -ENOMEM;
	udev->cmdr = udev->mb + KT_USER_CMDR_OFF;
	udev->ring.size = rounddown(udev->mb_size - KT_USER_CMDR_OFF,
				    KT_USER_ALIGN);
	udev->ring.head = 0;
	udev->ring.last = 0;
	udev->ring.shown = 0;
	udev->data_off = udev->mb_size;
	udev->map_size = udev->data_off + ((size_t)udev->data_area_mb << 20);
	ret = kt_user_data_init(udev);
	if (ret)
		goto out_mb;

	kt_user_mb_describe(udev);
	/* a disable before this enable shut it down */
	kt_user_timer_init(udev);

	spin_lock_irqsave(&udev->lock, flags);
	udev->up = true;
	spin_unlock_irqrestore(&udev->lock, flags);
	ret = kt_user_uio_register(udev);
	if (ret)
		goto out_down;
	if (udev->nl_reply_supported >= 0)
		udev->nl_reply_supported = kt_user_nl_reply_supported();
	ret = kt_user_nl_added(udev);
	if (ret) {
		pr_warn_ratelimited("%s: the daemon refused the device: %d\n",
				    kt_user_name(udev), ret);
		goto out_uio;
	}
	return 0;

out_uio:
	kt_user_uio_unregister(udev);
out_down:
	kt_user_take_down(udev);
	return ret < 0 ? ret : -EIO;
out_mb:
	vfree(udev->mb);
	udev->mb = NULL;
	return ret;
}

/*
 * The device's release, or an enable the core turned back: no LUN is
 * left, so no command but expired ones (whose SCSI commands ended) is in
 * the ring. Should one be (a bug), it ends; one whose data is being
 * copied in is left to its filler (orphan, as reset_ring does), and the
 * pages go only once every filler is done. A mapping the daemon keeps
 * holds the device structure, not its memory: the ring and the pages go
 * now (kt_user_take_down()), and an enable after this one is mapped
 * afresh.
 */
static void kt_user_disable(struct kt_dev *dev)
{
	struct kt_user_dev *udev = to_udev(dev);
	struct kt_user_cmd *ucmd;
	unsigned long flags, i;
	LIST_HEAD(done);

	kt_user_nl_removed(udev);
	kt_user_uio_unregister(udev);
	spin_lock_irqsave(&udev->lock, flags);
	udev->up = false;
	kt_user_run_qfull(udev, &done, NULL, true);
	xa_for_each(&udev->cmds, i, ucmd) {
		xa_erase(&udev->cmds, i);
		if (ucmd->state == KT_UCMD_EXPIRED) {
			kt_user_data_free(udev, ucmd);
			kt_user_cmd_free(ucmd);
			continue;
		}
		/* none should be left: end it all the same */
		WARN_ON_ONCE(1);
		list_del_init(&ucmd->node);
		ucmd->reason = KT_SENSE_LU_COMM_FAILURE;
		if (ucmd->state == KT_UCMD_PENDING && !ucmd->filled) {
			/* its filler copies into its blocks: it ends it */
			ucmd->orphan = true;
			continue;
		}
		kt_user_data_free(udev, ucmd);
		list_add_tail(&ucmd->node, &done);
	}
	spin_unlock_irqrestore(&udev->lock, flags);
	kt_user_finish(&done);
	/* no filler touches the blocks or pages that go next */
	wait_event(udev->fill_wq, !READ_ONCE(udev->filling));
	timer_shutdown_sync(&udev->timer);
	kt_user_take_down(udev);
}

static ssize_t kt_user_show_info(struct kt_dev *dev, char *page, size_t size)
{
	struct kt_user_dev *udev = to_udev(dev);

	return scnprintf(page, size,
			 "Config: %s Size: %llu MaxDataAreaMB: %u DataPagesPerBlk: %u CmdRingSizeMB: %u DataAreaPages: %u\n",
			 udev->config[0] ? udev->config : "NULL",
			 udev->dev_size, udev->data_area_mb,
			 udev->pages_per_blk, udev->ring_mb,
			 READ_ONCE(udev->nr_pages));
}

static const struct kt_backend_ops kt_user_ops = {
	.name		= "user",
	.owner		= THIS_MODULE,
	.alloc_dev	= kt_user_alloc_dev,
	.free_dev	= kt_user_free_dev,
	.set_param	= kt_user_set_param,
	.set_live_param	= kt_user_set_live_param,
	.enable		= kt_user_enable,
	.disable	= kt_user_disable,
	.size		= kt_user_size,
	.show_info	= kt_user_show_info,
	.exec_cdb	= kt_user_exec_cdb,
	.abort		= kt_user_abort,
	.lun_unlinking	= kt_user_lun_unlinking,
	.attrib_attrs	= kt_user_attrib_attrs,
	.action_attrs	= kt_user_action_attrs,
};

static int __init kt_user_init(void)
{
	int ret;

	ret = kt_user_ring_mod_init();
	if (ret)
		return ret;
	ret = kt_user_nl_init();
	if (ret)
		goto out_ring;
	ret = kt_user_uio_init();
	if (ret)
		goto out_nl;
	ret = kt_backend_register(&kt_user_ops);
	if (ret)
		goto out_uio;
	return 0;

out_uio:
	kt_user_uio_exit();
out_nl:
	kt_user_nl_exit();
out_ring:
	kt_user_ring_mod_exit();
	return ret;
}

static void __exit kt_user_exit(void)
{
	kt_backend_unregister(&kt_user_ops);
	kt_user_data_mod_exit();
	kt_user_uio_exit();
	kt_user_nl_exit();
	kt_user_ring_mod_exit();
}

module_init(kt_user_init);
module_exit(kt_user_exit);

MODULE_DESCRIPTION("ktarget user backstore (LIO's TCMU ABI, for tcmu-runner)");
MODULE_LICENSE("GPL");
MODULE_VERSION(KT_VERSION);
MODULE_ALIAS("ktarget-backend-user");
