// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_rd: a RAM backstore, configfs core/rd_mcp_N/NAME, configured as
 * LIO's rd_mcp is: control "rd_pages=N" (pages of PAGE_SIZE) and optionally
 * "rd_nullio=1" (no memory: reads return zeroes, writes are dropped).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <linux/scatterlist.h>

#include <ktarget/backend.h>
#include <ktarget/fabric.h>

#define KT_RD_BLOCK_SIZE	512

struct kt_rd_dev {
	struct kt_dev	dev;
	u64		want_pages;	/* rd_pages= */
	bool		nullio;		/* rd_nullio= */
	struct page	**pages;
	u64		nr_pages;
};

static struct kt_rd_dev *to_rd(struct kt_dev *dev)
{
	return container_of(dev, struct kt_rd_dev, dev);
}

static struct kt_dev *kt_rd_alloc_dev(const char *name)
{
	struct kt_rd_dev *rd = kzalloc(sizeof(*rd), GFP_KERNEL);

	return rd ? &rd->dev : NULL;
}

static void kt_rd_free_dev(struct kt_dev *dev)
{
	kfree(to_rd(dev));
}

static int kt_rd_set_param(struct kt_dev *dev, const char *key,
			   const char *value)
{
	struct kt_rd_dev *rd = to_rd(dev);

	if (!strcmp(key, "rd_pages")) {
		u64 pages;

		if (kstrtou64(value, 0, &pages) || !pages)
			return -EINVAL;
		rd->want_pages = pages;
		return 0;
	}
	if (!strcmp(key, "rd_nullio"))
		return kstrtobool(value, &rd->nullio);
	return -ENOKEY;
}

static void kt_rd_free_pages(struct kt_rd_dev *rd)
{
	u64 i;

	for (i = 0; i < rd->nr_pages; i++)
		__free_page(rd->pages[i]);
	kvfree(rd->pages);
	rd->pages = NULL;
	rd->nr_pages = 0;
}

static int kt_rd_enable(struct kt_dev *dev)
{
	struct kt_rd_dev *rd = to_rd(dev);
	u64 i;

	if (!rd->want_pages) {
		pr_warn_ratelimited("%s: set rd_pages= through control before enabling\n",
				    config_item_name(&dev->group.cg_item));
		return -EINVAL;
	}
	if (!rd->nullio && rd->want_pages > totalram_pages()) {
		pr_warn_ratelimited("%s: rd_pages=%llu is more than the machine's %lu pages\n",
				    config_item_name(&dev->group.cg_item),
				    rd->want_pages, totalram_pages());
		return -ENOMEM;
	}

	if (!rd->nullio) {
		rd->pages = kvcalloc(rd->want_pages, sizeof(*rd->pages),
				     GFP_KERNEL);
		if (!rd->pages)
			goto nomem;
		for (i = 0; i < rd->want_pages; i++) {
			rd->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO |
						  __GFP_NOWARN);
			if (!rd->pages[i]) {
				kt_rd_free_pages(rd);
				goto nomem;
			}
			rd->nr_pages++;
			cond_resched();
		}
	}

	dev->attrib.hw_block_size = KT_RD_BLOCK_SIZE;
	dev->attrib.hw_max_sectors = 8192;
	dev->attrib.hw_queue_depth = 128;
	dev->nr_blocks = rd->want_pages * (PAGE_SIZE / KT_RD_BLOCK_SIZE);
	return 0;

nomem:
	pr_warn_ratelimited("%s: cannot allocate %llu pages\n",
			    config_item_name(&dev->group.cg_item), rd->want_pages);
	return -ENOMEM;
}

static void kt_rd_disable(struct kt_dev *dev)
{
	kt_rd_free_pages(to_rd(dev));
}

/* Copy between the ramdisk's pages and the command's scatterlist. */
static void kt_rd_rw(struct kt_cmd *cmd, bool write, u64 pos, u32 len,
		     bool fua)
{
	struct kt_rd_dev *rd = to_rd(cmd->dev);
	struct sg_mapping_iter miter;
	u32 done = 0;

	sg_miter_start(&miter, cmd->sgl, cmd->sg_nents,
		       SG_MITER_ATOMIC | (write ? SG_MITER_FROM_SG : SG_MITER_TO_SG));
	while (done < len && sg_miter_next(&miter)) {
		size_t moff = 0;

		while (moff < miter.length && done < len) {
			u64 at = pos + done;
			size_t poff = offset_in_page(at);
			size_t n = min3(miter.length - moff, (size_t)(len - done),
					PAGE_SIZE - poff);
			u8 *buf = miter.addr + moff;

			if (rd->nullio) {
				if (!write)
					memset(buf, 0, n);
			} else {
				u8 *p = page_address(rd->pages[at >> PAGE_SHIFT]) + poff;

				if (write)
					memcpy(p, buf, n);
				else
					memcpy(buf, p, n);
			}
			moff += n;
			done += n;
		}
	}
	sg_miter_stop(&miter);
	kt_cmd_complete(cmd, done == len ? KT_SENSE_NONE : KT_SENSE_LU_COMM_FAILURE);
}

static sense_reason_t kt_rd_write_zeroes(struct kt_dev *dev, u64 pos, u64 len)
{
	struct kt_rd_dev *rd = to_rd(dev);

	while (len && !rd->nullio) {
		size_t poff = offset_in_page(pos);
		size_t n = min_t(u64, len, PAGE_SIZE - poff);

		memset(page_address(rd->pages[pos >> PAGE_SHIFT]) + poff, 0, n);
		pos += n;
		len -= n;
		if (!(pos & ((1 << 20) - 1)))
			cond_resched();
	}
	return KT_SENSE_NONE;
}

/* EXTENDED COPY between rd devices, or within one: page to page */
static s64 kt_rd_copy_range(struct kt_dev *dst, u64 dst_pos,
			    struct kt_dev *src, u64 src_pos, u64 len)
{
	struct kt_rd_dev *d = to_rd(dst), *s = to_rd(src);
	u64 done = 0;

	if (d->nullio || s->nullio)
		return -EOPNOTSUPP;
	while (done < len) {
		u64 sp = src_pos + done, dp = dst_pos + done;
		u64 n = min3(len - done, (u64)(PAGE_SIZE - offset_in_page(sp)),
			     (u64)(PAGE_SIZE - offset_in_page(dp)));

		memcpy(page_address(d->pages[dp >> PAGE_SHIFT]) +
		       offset_in_page(dp),
		       page_address(s->pages[sp >> PAGE_SHIFT]) +
		       offset_in_page(sp), n);
		done += n;
		if (!(done & ((1 << 20) - 1)))
			cond_resched();
	}
	return done;
}

/* rtslib reads "PAGES/PAGE_SIZE: N*SIZE" and "nullio: B" from here. */
static ssize_t kt_rd_show_info(struct kt_dev *dev, char *page, size_t size)
{
	struct kt_rd_dev *rd = to_rd(dev);

	return scnprintf(page, size,
			 "        TCM RamDisk ID: %u  RamDisk Makeup: rd_mcp\n"
			 "        PAGES/PAGE_SIZE: %llu*%lu  SG_table_count: %u  nullio: %d\n",
			 dev->index, rd->want_pages, PAGE_SIZE,
			 rd->pages ? 1 : 0, rd->nullio);
}

static const struct kt_backend_ops kt_rd_ops = {
	.name		= "rd_mcp",
	.owner		= THIS_MODULE,
	.alloc_dev	= kt_rd_alloc_dev,
	.free_dev	= kt_rd_free_dev,
	.set_param	= kt_rd_set_param,
	.enable		= kt_rd_enable,
	.disable	= kt_rd_disable,
	.show_info	= kt_rd_show_info,
	.rw		= kt_rd_rw,
	.write_zeroes	= kt_rd_write_zeroes,
	.copy_range	= kt_rd_copy_range,
};

static int __init kt_rd_init(void)
{
	return kt_backend_register(&kt_rd_ops);
}

static void __exit kt_rd_exit(void)
{
	kt_backend_unregister(&kt_rd_ops);
}

module_init(kt_rd_init);
module_exit(kt_rd_exit);

MODULE_DESCRIPTION("ktarget RAM backstore (rd_mcp)");
MODULE_LICENSE("GPL");
MODULE_ALIAS("ktarget-backend-rd_mcp");
