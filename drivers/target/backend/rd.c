// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_rd: a RAM backstore, configfs core/rd_mcp_N/NAME, configured as
 * LIO's rd_mcp is: control "rd_pages=N" (pages of PAGE_SIZE) and optionally
 * "rd_nullio=1" (no memory: reads return zeroes, writes are dropped).
 * rd_pages= written again while enabled resizes it: it grows at any time,
 * and shrinks only while no LUN links it.
 * With T10-PI on (attrib/pi_prot_type), the protection information of each
 * logical block is kept in pages of its own, 8 bytes a block, as LIO's
 * rd_mcp keeps it; the ramdisk's size is fixed then.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <linux/scatterlist.h>

#include <ktarget/backend.h>
#include <ktarget/version.h>

#define KT_RD_BLOCK_SIZE	512
#define KT_RD_LOCKS		64	/* a power of two */

struct kt_rd_dev {
	struct kt_dev	dev;
	u64		want_pages;	/* rd_pages= */
	bool		nullio;		/* rd_nullio= */
	/* replaced as it grows: kt_rd_addr(), kt_rd_grow() */
	struct page	**pages;
	u64		nr_pages;
	/*
	 * A write of whole pages trades the command's pages for the
	 * medium's (kt_rd_take_pages()), and the old ones go back to the
	 * core, which hands them to other commands: a page must not be
	 * traded while it is copied from or into. A lock per page would cost
	 * 8 bytes a page; page N takes lock N % KT_RD_LOCKS.
	 */
	rwlock_t	locks[KT_RD_LOCKS];
	atomic_t	copies;		/* copy_range()s under way: no trades */
	/* T10-PI: KT_PI_TUPLE_LEN bytes per logical block; no trades */
	struct page	**prot;
	u64		nr_prot;
};

static struct kt_rd_dev *to_rd(struct kt_dev *dev)
{
	return container_of(dev, struct kt_rd_dev, dev);
}

static struct kt_dev *kt_rd_alloc_dev(const char *name)
{
	struct kt_rd_dev *rd = kzalloc(sizeof(*rd), GFP_KERNEL);
	unsigned int i;

	if (!rd)
		return NULL;
	for (i = 0; i < KT_RD_LOCKS; i++)
		rwlock_init(&rd->locks[i]);
	return &rd->dev;
}

static rwlock_t *kt_rd_lock(struct kt_rd_dev *rd, u64 pos)
{
	return &rd->locks[(pos >> PAGE_SHIFT) & (KT_RD_LOCKS - 1)];
}

/*
 * The medium at byte @pos: under the read side of kt_rd_lock(@pos), or
 * with trades stopped.
 */
static u8 *kt_rd_addr(struct kt_rd_dev *rd, u64 pos)
{
	struct page *page;

	/* the table may be replaced by a longer one (kt_rd_grow()) */
	rcu_read_lock();
	page = READ_ONCE(rd->pages)[pos >> PAGE_SHIFT];
	rcu_read_unlock();
	return page_address(page) + offset_in_page(pos);
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

/* the first @n pages of @pages, and the array */
static void kt_rd_page_array_free(struct page **pages, u64 n)
{
	u64 i;

	for (i = 0; i < n; i++)
		__free_page(pages[i]);
	kvfree(pages);
}

/* an array of @n pages allocated with @gfp, or NULL with none left held */
static struct page **kt_rd_page_array_alloc(u64 n, gfp_t gfp)
{
	struct page **pages = kvcalloc(n, sizeof(*pages), GFP_KERNEL);
	u64 i;

	if (!pages)
		return NULL;
	for (i = 0; i < n; i++) {
		pages[i] = alloc_page(gfp | __GFP_NOWARN);
		if (!pages[i]) {
			kt_rd_page_array_free(pages, i);
			return NULL;
		}
		cond_resched();
	}
	return pages;
}

static void kt_rd_free_pages(struct kt_rd_dev *rd)
{
	kt_rd_page_array_free(rd->pages, rd->nr_pages);
	rd->pages = NULL;
	rd->nr_pages = 0;
}

static int kt_rd_enable(struct kt_dev *dev)
{
	struct kt_rd_dev *rd = to_rd(dev);

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
		rd->pages = kt_rd_page_array_alloc(rd->want_pages,
						   GFP_KERNEL | __GFP_ZERO);
		if (!rd->pages)
			goto nomem;
		rd->nr_pages = rd->want_pages;
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

/* ---- T10-PI: the protection information pages ---- */

static void kt_rd_free_prot(struct kt_dev *dev)
{
	struct kt_rd_dev *rd = to_rd(dev);

	kt_rd_page_array_free(rd->prot, rd->nr_prot);
	rd->prot = NULL;
	rd->nr_prot = 0;
}

static int kt_rd_format_prot(struct kt_dev *dev)
{
	struct kt_rd_dev *rd = to_rd(dev);
	u64 i;

	for (i = 0; i < rd->nr_prot; i++) {
		memset(page_address(rd->prot[i]), 0xff, PAGE_SIZE);
		cond_resched();
	}
	return 0;
}

/* One page of PI for each PAGE_SIZE / 8 logical blocks, all FFh */
static int kt_rd_init_prot(struct kt_dev *dev)
{
	struct kt_rd_dev *rd = to_rd(dev);
	u64 blocks = div_u64(dev->nr_blocks * dev->attrib.hw_block_size,
			     dev->attrib.block_size);
	u64 n = DIV_ROUND_UP(blocks * KT_PI_TUPLE_LEN, PAGE_SIZE);

	if (rd->nullio) {
		pr_warn_ratelimited("%s: attrib/pi_prot_type: a nullio ramdisk keeps no protection information\n",
				    config_item_name(&dev->group.cg_item));
		return -EINVAL;
	}
	rd->prot = kt_rd_page_array_alloc(n, GFP_KERNEL);
	if (!rd->prot) {
		pr_warn_ratelimited("%s: cannot allocate %llu pages of protection information\n",
				    config_item_name(&dev->group.cg_item), n);
		return -ENOMEM;
	}
	rd->nr_prot = n;
	return kt_rd_format_prot(dev);
}

/*
 * The PI of the whole blocks of [@pos, @pos + @len): made from cmd->sgl
 * (@write), or checked against it. A tuple never straddles two pages.
 */
static sense_reason_t kt_rd_prot_rw(struct kt_rd_dev *rd, struct kt_cmd *cmd,
				    bool write, u64 pos, u32 len)
{
	u32 bs = rd->dev.attrib.block_size, nr = len / bs, done = 0, n;
	u64 lba = div_u64(pos, bs), at;
	sense_reason_t reason;
	u8 *pi;

	while (done < nr) {
		at = (lba + done) * KT_PI_TUPLE_LEN;
		if (WARN_ON_ONCE((at >> PAGE_SHIFT) >= rd->nr_prot))
			return KT_SENSE_LU_COMM_FAILURE;
		n = min_t(u32, nr - done,
			  (PAGE_SIZE - offset_in_page(at)) / KT_PI_TUPLE_LEN);
		pi = page_address(rd->prot[at >> PAGE_SHIFT]) + offset_in_page(at);
		if (write) {
			kt_pi_generate(cmd, done * bs, lba + done, n, pi);
		} else {
			reason = kt_pi_verify(cmd, done * bs, lba + done, n, pi);
			if (reason)
				return reason;
		}
		done += n;
	}
	return KT_SENSE_NONE;
}

/* Blocks zeroed (UNMAP, WRITE SAME of zeroes): PI FFh, as SBC-4 4.7.4.5 */
static void kt_rd_prot_unmap(struct kt_rd_dev *rd, u64 pos, u64 len)
{
	u32 bs = rd->dev.attrib.block_size;
	u64 at = div_u64(pos, bs) * KT_PI_TUPLE_LEN;
	u64 end = div_u64(pos + len, bs) * KT_PI_TUPLE_LEN;

	while (at < end && (at >> PAGE_SHIFT) < rd->nr_prot) {
		size_t n = min_t(u64, end - at, PAGE_SIZE - offset_in_page(at));

		memset(page_address(rd->prot[at >> PAGE_SHIFT]) +
		       offset_in_page(at), 0xff, n);
		at += n;
	}
}

static void kt_rd_disable(struct kt_dev *dev)
{
	kt_rd_free_prot(dev);
	kt_rd_free_pages(to_rd(dev));
}

/*
 * No trade on @rd until kt_rd_trades_resume(): a copy between two of its
 * pages would need two of its locks, and two readers of one lock each
 * waiting for the other's can deadlock behind a writer. A trade under way
 * ends first.
 */
static void kt_rd_locks_cycle(struct kt_rd_dev *rd)
{
	unsigned long flags;
	unsigned int i;

	for (i = 0; i < KT_RD_LOCKS; i++) {
		write_lock_irqsave(&rd->locks[i], flags);
		write_unlock_irqrestore(&rd->locks[i], flags);
	}
}

static void kt_rd_trades_stop(struct kt_rd_dev *rd)
{
	/* each unlock orders the count before a trade that locks after */
	atomic_inc(&rd->copies);
	kt_rd_locks_cycle(rd);
}

static void kt_rd_trades_resume(struct kt_rd_dev *rd)
{
	atomic_dec(&rd->copies);
}

/*
 * A write of whole pages at a page-aligned @pos, when the core lets the
 * backstore keep the command's pages (cmd->be_take_pages): each becomes
 * the medium's, and the command's buffer gets the medium's old page in its
 * place. Nothing is copied, where a 1 MiB write cost a 1 MiB memcpy.
 * Returns the bytes so stored, from the start of cmd->sgl.
 */
static u32 kt_rd_take_pages(struct kt_rd_dev *rd, struct kt_cmd *cmd, u64 pos,
			    u32 len)
{
	struct scatterlist *sg;
	unsigned long flags;
	unsigned int i;
	u32 done = 0;

	if (!cmd->be_take_pages || offset_in_page(pos))
		return 0;
	for_each_sg(cmd->sgl, sg, cmd->sg_nents, i) {
		rwlock_t *lock = kt_rd_lock(rd, pos + done);
		struct page **slot;
		struct page *old;

		if (sg->offset || sg->length != PAGE_SIZE ||
		    len - done < PAGE_SIZE)
			break;
		write_lock_irqsave(lock, flags);
		if (atomic_read(&rd->copies)) {
			write_unlock_irqrestore(lock, flags);
			break;
		}
		/* the table of now: a grow takes every lock once it is in place */
		slot = &READ_ONCE(rd->pages)[(pos + done) >> PAGE_SHIFT];
		old = *slot;
		*slot = sg_page(sg);
		write_unlock_irqrestore(lock, flags);
		sg_set_page(sg, old, PAGE_SIZE, 0);
		done += PAGE_SIZE;
	}
	return done;
}

/* Copy between the ramdisk's pages and the command's scatterlist. */
static void kt_rd_rw(struct kt_cmd *cmd, bool write, u64 pos, u32 len,
		     bool fua)
{
	struct kt_rd_dev *rd = to_rd(cmd->dev);
	struct sg_mapping_iter miter;
	sense_reason_t reason;
	bool pi = rd->prot && kt_pi_type(cmd->dev);
	u32 done = 0;

	/* the data and its PI as one, against other writes and reads */
	if (pi)
		kt_pi_range_lock(cmd->dev, pos, len, write);
	/* the PI of the data before the data may trade its pages away */
	if (write && pi) {
		reason = kt_rd_prot_rw(rd, cmd, true, pos, len);
		if (reason) {
			kt_pi_range_unlock(cmd->dev, pos, len, write);
			kt_be_done(cmd, reason);
			return;
		}
	}
	if (write && !rd->nullio)
		done = kt_rd_take_pages(rd, cmd, pos, len);
	sg_miter_start(&miter, cmd->sgl, cmd->sg_nents,
		       SG_MITER_ATOMIC | (write ? SG_MITER_FROM_SG : SG_MITER_TO_SG));
	if (done)
		sg_miter_skip(&miter, done);
	while (done < len && sg_miter_next(&miter)) {
		size_t moff = 0;

		while (moff < miter.length && done < len) {
			u64 at = pos + done;
			size_t n = min3(miter.length - moff, (size_t)(len - done),
					PAGE_SIZE - offset_in_page(at));
			u8 *buf = miter.addr + moff;

			if (rd->nullio) {
				if (!write)
					memset(buf, 0, n);
			} else {
				read_lock(kt_rd_lock(rd, at));
				if (write)
					memcpy(kt_rd_addr(rd, at), buf, n);
				else
					memcpy(buf, kt_rd_addr(rd, at), n);
				read_unlock(kt_rd_lock(rd, at));
			}
			moff += n;
			done += n;
		}
	}
	sg_miter_stop(&miter);
	if (done != len)
		reason = KT_SENSE_LU_COMM_FAILURE;
	else if (!write && pi)
		reason = kt_rd_prot_rw(rd, cmd, false, pos, len);
	else
		reason = KT_SENSE_NONE;
	if (pi)
		kt_pi_range_unlock(cmd->dev, pos, len, write);
	kt_be_done(cmd, reason);
}

static sense_reason_t kt_rd_write_zeroes(struct kt_dev *dev, u64 pos, u64 len)
{
	struct kt_rd_dev *rd = to_rd(dev);
	bool pi = rd->prot && kt_pi_type(dev);
	u64 from = pos, all = len;

	if (pi) {
		kt_pi_range_lock(dev, from, all, true);
		kt_rd_prot_unmap(rd, pos, len);
	}
	while (len && !rd->nullio) {
		size_t poff = offset_in_page(pos);
		size_t n = min_t(u64, len, PAGE_SIZE - poff);

		read_lock(kt_rd_lock(rd, pos));
		memset(kt_rd_addr(rd, pos), 0, n);
		read_unlock(kt_rd_lock(rd, pos));
		pos += n;
		len -= n;
		if (!(pos & ((1 << 20) - 1)))
			cond_resched();
	}
	if (pi)
		kt_pi_range_unlock(dev, from, all, true);
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
	kt_rd_trades_stop(s);
	if (d != s)
		kt_rd_trades_stop(d);
	while (done < len) {
		u64 sp = src_pos + done, dp = dst_pos + done;
		u64 n = min3(len - done, (u64)(PAGE_SIZE - offset_in_page(sp)),
			     (u64)(PAGE_SIZE - offset_in_page(dp)));

		memcpy(kt_rd_addr(d, dp), kt_rd_addr(s, sp), n);
		done += n;
		if (!(done & ((1 << 20) - 1)))
			cond_resched();
	}
	if (d != s)
		kt_rd_trades_resume(d);
	kt_rd_trades_resume(s);
	return done;
}

/*
 * rd_pages= while enabled, above the pages there are: the new ones, zeroed,
 * go in a new, longer table with the old one's entries, copied with trades
 * stopped. Every lock is taken once after the new table is in place, so a
 * trade that comes after it writes there; a reader that picked up the old
 * table has let go of it after an RCU grace period. The core reads the
 * new size (kt_rd_size()) afterwards.
 */
static int kt_rd_grow(struct kt_rd_dev *rd, u64 want)
{
	struct page **old = rd->pages, **table;
	u64 have = rd->nr_pages, i;

	table = kvcalloc(want, sizeof(*table), GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	for (i = have; i < want; i++) {
		/* fail rather than call the OOM killer; a signal stops it */
		table[i] = alloc_page(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN |
				      __GFP_RETRY_MAYFAIL);
		if (!table[i] || fatal_signal_pending(current))
			goto nomem;
		cond_resched();
	}
	kt_rd_trades_stop(rd);
	memcpy(table, old, have * sizeof(*table));
	/* the entries before the table: pairs with kt_rd_addr()'s READ_ONCE */
	smp_store_release(&rd->pages, table);
	kt_rd_locks_cycle(rd);
	WRITE_ONCE(rd->nr_pages, want);
	kt_rd_trades_resume(rd);
	synchronize_rcu();
	kvfree(old);
	return 0;

nomem:
	if (table[i])
		__free_page(table[i]);
	while (i-- > have)
		__free_page(table[i]);
	kvfree(table);
	return -ENOMEM;
}

/* rd_pages= below the pages there are, while no LUN links the ramdisk */
static void kt_rd_shrink(struct kt_rd_dev *rd, u64 want)
{
	u64 have = rd->nr_pages, i;

	kt_rd_trades_stop(rd);
	WRITE_ONCE(rd->nr_pages, want);
	for (i = want; i < have; i++)
		__free_page(rd->pages[i]);
	kt_rd_trades_resume(rd);
}

/*
 * Only rd_pages= changes while enabled: it resizes the ramdisk, growing at
 * any time into the memory available now, shrinking while no LUN links
 * it. Checked only unless @apply.
 */
static int kt_rd_set_live_param(struct kt_dev *dev, const char *key,
				const char *value, bool exported, bool apply)
{
	struct kt_rd_dev *rd = to_rd(dev);
	const char *name = config_item_name(&dev->group.cg_item);
	u64 pages;

	if (strcmp(key, "rd_pages")) {
		if (strcmp(key, "rd_nullio"))
			return -ENOKEY;
		pr_warn_ratelimited("%s: control: %s cannot change while enabled\n",
				    name, key);
		return -EBUSY;
	}
	if (kstrtou64(value, 0, &pages) || !pages) {
		pr_warn_ratelimited("%s: control: bad value '%s' for %s\n",
				    name, value, key);
		return -EINVAL;
	}
	if (dev->attrib.pi_prot_type && pages != rd->want_pages) {
		pr_warn_ratelimited("%s: control: rd_pages cannot change while the device keeps protection information (pi_prot_type)\n",
				    name);
		return -EBUSY;
	}
	if (pages < rd->want_pages && exported) {
		pr_warn_ratelimited("%s: control: rd_pages=%llu would shrink the LU from %llu pages while a LUN links it\n",
				    name, pages, rd->want_pages);
		return -EBUSY;
	}
	if (!rd->nullio && pages > rd->nr_pages &&
	    pages - rd->nr_pages > si_mem_available()) {
		pr_warn_ratelimited("%s: control: rd_pages=%llu needs %llu more pages, %ld are available\n",
				    name, pages, pages - rd->nr_pages,
				    si_mem_available());
		return -ENOMEM;
	}
	if (!apply)
		return 0;
	if (!rd->nullio && pages > rd->nr_pages && kt_rd_grow(rd, pages)) {
		pr_warn_ratelimited("%s: control: cannot allocate %llu more pages\n",
				    name, pages - rd->nr_pages);
		return -ENOMEM;
	}
	if (!rd->nullio && pages < rd->nr_pages)
		kt_rd_shrink(rd, pages);
	WRITE_ONCE(rd->want_pages, pages);
	return 0;
}

/* The ramdisk's size in bytes, for the core's kt_dev_size_sync() */
static u64 kt_rd_size(struct kt_dev *dev)
{
	struct kt_rd_dev *rd = to_rd(dev);

	return (rd->nullio ? READ_ONCE(rd->want_pages) :
			     READ_ONCE(rd->nr_pages)) << PAGE_SHIFT;
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
	.set_live_param	= kt_rd_set_live_param,
	.enable		= kt_rd_enable,
	.disable	= kt_rd_disable,
	.size		= kt_rd_size,
	.show_info	= kt_rd_show_info,
	.rw		= kt_rd_rw,
	.write_zeroes	= kt_rd_write_zeroes,
	.copy_range	= kt_rd_copy_range,
	.copy_moves_data = true,
	.init_prot	= kt_rd_init_prot,
	.free_prot	= kt_rd_free_prot,
	.format_prot	= kt_rd_format_prot,
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
MODULE_VERSION(KT_VERSION);
MODULE_LICENSE("GPL");
MODULE_ALIAS("ktarget-backend-rd_mcp");
