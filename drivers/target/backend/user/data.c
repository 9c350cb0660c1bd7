// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_user: the data area, after the command ring in the daemon's
 * mapping. It is cut into blocks of data_pages_per_blk pages; a command
 * holds the blocks of its data until the daemon answers it (or the ring
 * is reset), whatever happened to its SCSI command meanwhile, since the
 * daemon may still be writing them. Only data moves through here; the
 * iovecs the kernel gives the daemon are its own, computed from the
 * blocks it holds, never read back.
 *
 * Pages. A block gets its pages when first used, under udev->lock without
 * waiting (GFP_NOWAIT), and the daemon's faults find them in @pages, never
 * anything else. All devices together hold at most global_max_data_area_mb
 * of them (kt_user_pages, the module's data_area_pages). The pages a
 * command's blocks lack are charged all at once: one that would pass the
 * bound takes none, and it, or one that gets no page, waits for room as
 * it does for a full ring (timeout.c tries it again each second, the
 * reclaim work as soon as it gave pages back). A page whose block is
 * free is idle, and goes back to the system (kt_user_data_reclaim()):
 *   - of every device, when a command found the bound reached, or the
 *     total is over it (global_max_data_area_mb lowered);
 *   - of a device that had no block in use for KT_USER_IDLE_FREE seconds;
 *   - at action/reset_ring, and when the device is disabled (all of
 *     them, and the daemon's whole mapping zapped: kt_user_data_exit()).
 * A page in use never goes: a command's blocks keep theirs from the
 * allocation until the blocks are freed, so copies (ring.c, outside
 * udev->lock) find the pages there. Giving a free block's pages back,
 * in this order:
 *   1. under udev->lock, the block is set in the bitmap again (reserved:
 *      no command gets it) and its pages go out of @pages, so no fault
 *      finds them any more;
 *   2. each page's lock taken and dropped, so a fault that found it
 *      before has its PTE in place (kt_user_vma_fault() returns it locked
 *      once it saw it still in @pages);
 *   3. the daemon's PTEs over the range zapped, and the pages put: the
 *      last reference goes with the last PTE;
 *   4. under udev->lock, the block cleared in the bitmap.
 * So a block is handed to a command only once no PTE of the daemon's
 * points at the page it had: its next touch faults in the fresh page the
 * block gets, and it never sees or alters another command's data through
 * a stale mapping, nor a page freed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/highmem.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/target_core_user.h>
#include <linux/workqueue.h>

#include "user.h"

#define KT_USER_GLOBAL_MB_DEF	2048	/* LIO's */
#define KT_USER_RECLAIM_BATCH	32	/* pages per zap */

static int kt_user_global_mb = KT_USER_GLOBAL_MB_DEF;
static atomic_long_t kt_user_pages = ATOMIC_LONG_INIT(0);
/* a command found no room within the bound: reclaim as blocks free */
static atomic_t kt_user_starved = ATOMIC_INIT(0);

/* the enabled devices, for the reclaim work */
static LIST_HEAD(kt_user_devs);
static DEFINE_MUTEX(kt_user_devs_lock);

static void kt_user_reclaim_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(kt_user_reclaim_work, kt_user_reclaim_fn);

u32 kt_user_global_max_mb(void)
{
	return READ_ONCE(kt_user_global_mb);
}

static unsigned long kt_user_max_pages(void)
{
	return (unsigned long)kt_user_global_max_mb() << (20 - PAGE_SHIFT);
}

static void kt_user_reclaim_now(void)
{
	mod_delayed_work(system_wq, &kt_user_reclaim_work, 0);
}

/*
 * LIO's module parameter, with LIO's meaning: the pages of all devices'
 * data areas together. A device's max_data_area_mb may not be larger.
 */
static int kt_user_global_mb_set(const char *val, const struct kernel_param *kp)
{
	int mb;

	if (kstrtoint(val, 0, &mb) || mb < 1 || mb > (INT_MAX >> 1)) {
		pr_warn_ratelimited("global_max_data_area_mb: MiB, 1 or more\n");
		return -EINVAL;
	}
	WRITE_ONCE(kt_user_global_mb, mb);
	if (atomic_long_read(&kt_user_pages) > kt_user_max_pages())
		kt_user_reclaim_now();
	return 0;
}

static const struct kernel_param_ops kt_user_global_mb_ops = {
	.set	= kt_user_global_mb_set,
	.get	= param_get_int,
};
module_param_cb(global_max_data_area_mb, &kt_user_global_mb_ops,
		&kt_user_global_mb, 0644);
MODULE_PARM_DESC(global_max_data_area_mb,
		 "the pages all devices' data areas hold together, at most (MiB)");

static int kt_user_pages_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&kt_user_pages));
}

static const struct kernel_param_ops kt_user_pages_ops = {
	.get	= kt_user_pages_get,
};
module_param_cb(data_area_pages, &kt_user_pages_ops, NULL, 0444);
MODULE_PARM_DESC(data_area_pages,
		 "the pages all devices' data areas hold now (read-only)");

int kt_user_data_init(struct kt_user_dev *udev)
{
	udev->blk_size = udev->pages_per_blk * PAGE_SIZE;
	/* at most U32_MAX: kt_user_enable() refused more */
	udev->max_blocks = div_u64((u64)udev->data_area_mb << 20,
				   udev->blk_size);
	udev->free_blocks = udev->max_blocks;
	/* a large one may be more than kmalloc() gives: ENOMEM, no warning */
	udev->bitmap = bitmap_zalloc(udev->max_blocks,
				     GFP_KERNEL | __GFP_NOWARN);
	if (!udev->bitmap)
		return -ENOMEM;
	mutex_lock(&kt_user_devs_lock);
	list_add_tail(&udev->devs, &kt_user_devs);
	mutex_unlock(&kt_user_devs_lock);
	return 0;
}

static void kt_user_data_unlist(struct kt_user_dev *udev)
{
	mutex_lock(&kt_user_devs_lock);
	list_del_init(&udev->devs);
	mutex_unlock(&kt_user_devs_lock);
}

/*
 * The device is disabled, or its enable failed, or it goes: no block is
 * in use, every page goes back. If a daemon mapped the device (@mapping,
 * the caller's now: no fault finds a page any more), what it mapped is
 * zapped first, after any fault that found a page has its PTE in place
 * (the opening comment); a page a daemon still holds otherwise stays its
 * own, by its PTE's reference, until it drops it.
 */
void kt_user_data_exit(struct kt_user_dev *udev, struct address_space *mapping)
{
	unsigned long i, flags;
	unsigned long *bitmap;
	struct page *page;

	kt_user_data_unlist(udev);
	if (mapping) {
		xa_for_each(&udev->pages, i, page) {
			lock_page(page);
			unlock_page(page);
		}
		unmap_mapping_range(mapping, 0, 0, 1);
	}
	xa_for_each(&udev->pages, i, page)
		put_page(page);
	xa_destroy(&udev->pages);
	spin_lock_irqsave(&udev->lock, flags);
	atomic_long_sub(udev->nr_pages, &kt_user_pages);
	udev->nr_pages = 0;
	bitmap = udev->bitmap;
	udev->bitmap = NULL;
	spin_unlock_irqrestore(&udev->lock, flags);
	bitmap_free(bitmap);
}

void kt_user_data_mod_exit(void)
{
	cancel_delayed_work_sync(&kt_user_reclaim_work);
}

/* The page at data area page @idx, referenced, or NULL: from a fault. */
struct page *kt_user_data_page(struct kt_user_dev *udev, unsigned long idx)
{
	struct page *page = xa_load(&udev->pages, idx);

	if (page)
		get_page(page);
	return page;
}

/*
 * @n more pages within the global bound, all of them or none: a command
 * that does not fit as a whole takes nothing, and waits. The reclaim work
 * is asked for room, unless this is the reclaim work itself (trying the
 * waiting commands after it gave pages back): it then ends, the waiting
 * command's next try (timeout.c, each second) asking again.
 */
static bool kt_user_pages_charge(unsigned long n)
{
	if (atomic_long_add_return(n, &kt_user_pages) <= kt_user_max_pages())
		return true;
	atomic_long_sub(n, &kt_user_pages);
	atomic_set(&kt_user_starved, 1);
	if (current_work() != &kt_user_reclaim_work.work)
		kt_user_reclaim_now();
	return false;
}

/* under udev->lock: how many pages block @blk lacks */
static u32 kt_user_block_lacks(struct kt_user_dev *udev, u32 blk)
{
	unsigned long idx = (unsigned long)blk * udev->pages_per_blk;
	u32 i, n = 0;

	for (i = 0; i < udev->pages_per_blk; i++)
		if (!xa_load(&udev->pages, idx + i))
			n++;
	return n;
}

/*
 * Under udev->lock: block @blk's pages exist, those it lacked taken from
 * the @charged ones (each one made takes one), or -ENOMEM.
 */
static int kt_user_block_pages(struct kt_user_dev *udev, u32 blk,
			       unsigned long *charged)
{
	unsigned long idx = (unsigned long)blk * udev->pages_per_blk;
	unsigned int i;

	for (i = 0; i < udev->pages_per_blk; i++, idx++) {
		struct page *page;

		if (xa_load(&udev->pages, idx))
			continue;
		if (WARN_ON_ONCE(!*charged))
			return -ENOMEM;
		page = alloc_page(GFP_NOWAIT | __GFP_NOWARN | __GFP_ZERO);
		if (!page)
			return -ENOMEM;
		if (xa_err(xa_store(&udev->pages, idx, page,
				    GFP_NOWAIT | __GFP_NOWARN))) {
			__free_page(page);
			return -ENOMEM;
		}
		udev->nr_pages++;
		(*charged)--;
	}
	return 0;
}

/*
 * Under udev->lock: blocks for @ucmd's data, the lowest free ones (the
 * daemon touches fewer pages), and the pages they lack charged against
 * the global bound at once. -ENOSPC while there are not enough.
 */
int kt_user_data_alloc(struct kt_user_dev *udev, struct kt_user_cmd *ucmd)
{
	u32 nr = DIV_ROUND_UP(ucmd->data_len, udev->blk_size);
	unsigned long bit = 0, charged = 0;
	u32 i;

	ucmd->nr_blocks = 0;
	if (!nr)
		return 0;
	if (nr > udev->free_blocks)
		return -ENOSPC;
	if (!ucmd->blocks) {
		ucmd->blocks = kmalloc_array(nr, sizeof(u32),
					     GFP_NOWAIT | __GFP_NOWARN);
		if (!ucmd->blocks)
			return -ENOSPC;
	}
	for (i = 0; i < nr; i++, bit++) {
		bit = find_next_zero_bit(udev->bitmap, udev->max_blocks, bit);
		if (WARN_ON_ONCE(bit >= udev->max_blocks))
			return -ENOSPC;
		ucmd->blocks[i] = bit;
		charged += kt_user_block_lacks(udev, bit);
	}
	if (charged && !kt_user_pages_charge(charged))
		return -ENOSPC;
	for (i = 0; i < nr; i++) {
		if (kt_user_block_pages(udev, ucmd->blocks[i], &charged)) {
			/* the pages made stay, idle; the rest uncharged */
			atomic_long_sub(charged, &kt_user_pages);
			kt_user_data_free(udev, ucmd);
			return -ENOSPC;
		}
		__set_bit(ucmd->blocks[i], udev->bitmap);
		ucmd->nr_blocks++;
		udev->free_blocks--;
	}
	return 0;
}

/*
 * Under udev->lock: a device left with no block in use (and pages) gives
 * them back after KT_USER_IDLE_FREE.
 */
static void kt_user_data_idle(struct kt_user_dev *udev)
{
	if (udev->free_blocks == udev->max_blocks && udev->nr_pages) {
		udev->idle_since = jiffies;
		queue_delayed_work(system_wq, &kt_user_reclaim_work,
				   KT_USER_IDLE_FREE * HZ);
	}
}

/*
 * Under udev->lock: @ucmd's blocks are free again. A device left with no
 * block in use gives its pages back after KT_USER_IDLE_FREE, and all
 * devices give idle ones back now if a command waits for room within the
 * global bound or the total is over it, unless this is the reclaim work
 * itself, trying the waiting commands (as kt_user_pages_charge()).
 */
void kt_user_data_free(struct kt_user_dev *udev, struct kt_user_cmd *ucmd)
{
	u32 i;

	if (!ucmd->nr_blocks)
		return;
	for (i = 0; i < ucmd->nr_blocks; i++) {
		__clear_bit(ucmd->blocks[i], udev->bitmap);
		udev->free_blocks++;
	}
	ucmd->nr_blocks = 0;
	/* not from the reclaim work trying the waiting: it would loop */
	if (current_work() != &kt_user_reclaim_work.work &&
	    (atomic_read(&kt_user_starved) ||
	     atomic_long_read(&kt_user_pages) > kt_user_max_pages()))
		kt_user_reclaim_now();
	else
		kt_user_data_idle(udev);
}

/*
 * Give @udev's idle pages back (the opening comment says how), in
 * batches of whole blocks; process context. Returns how many went.
 */
unsigned long kt_user_data_reclaim(struct kt_user_dev *udev)
{
	u32 ppb = udev->pages_per_blk;
	unsigned int cap = max_t(u32, KT_USER_RECLAIM_BATCH, ppb);
	unsigned long i, first = 0, last = 0, from = 0, total = 0;
	struct address_space *mapping;
	unsigned int n, nb, k;
	unsigned long flags;
	struct page **batch;
	struct page *page;
	bool full;
	u32 *blks;

	batch = kmalloc_array(cap, sizeof(*batch), GFP_KERNEL);
	blks = kmalloc_array(cap, sizeof(*blks), GFP_KERNEL);
	if (!batch || !blks)
		goto out;
	do {
		n = 0;
		nb = 0;
		full = false;
		/* @mapping stays the daemon's node's until the zap is done */
		mutex_lock(&udev->map_lock);
		spin_lock_irqsave(&udev->lock, flags);
		if (udev->bitmap) {
			xa_for_each_start(&udev->pages, i, page, from) {
				u32 blk = i / ppb;

				if (!nb || blk != blks[nb - 1]) {
					if (n + ppb > cap) {
						full = true;
						break;
					}
					if (test_bit(blk, udev->bitmap))
						continue;
					/* no command gets it until zapped */
					__set_bit(blk, udev->bitmap);
					udev->free_blocks--;
					blks[nb++] = blk;
				}
				xa_erase(&udev->pages, i);
				if (!n)
					first = i;
				last = i;
				batch[n++] = page;
			}
		}
		udev->nr_pages -= n;
		atomic_long_sub(n, &kt_user_pages);
		mapping = udev->mapping;
		spin_unlock_irqrestore(&udev->lock, flags);
		if (!n) {
			mutex_unlock(&udev->map_lock);
			break;
		}
		from = last + 1;
		/* a fault that found one before has its PTE in place now */
		for (k = 0; k < n; k++) {
			lock_page(batch[k]);
			unlock_page(batch[k]);
		}
		/* pages in use in the range only fault in again */
		if (mapping)
			unmap_mapping_range(mapping,
					    (loff_t)udev->data_off +
					    ((loff_t)first << PAGE_SHIFT),
					    (loff_t)(last - first + 1) << PAGE_SHIFT,
					    1);
		mutex_unlock(&udev->map_lock);
		for (k = 0; k < n; k++)
			put_page(batch[k]);
		/* zapped and gone: the blocks may be used again */
		spin_lock_irqsave(&udev->lock, flags);
		if (udev->bitmap) {
			for (k = 0; k < nb; k++)
				__clear_bit(blks[k], udev->bitmap);
			udev->free_blocks += nb;
			kt_user_data_idle(udev);
		}
		spin_unlock_irqrestore(&udev->lock, flags);
		total += n;
	} while (full);
out:
	kfree(blks);
	kfree(batch);
	return total;
}

/*
 * The reclaim work: idle pages of every device back when a command found
 * the global bound reached or the total is over it, else those of the
 * devices idle for KT_USER_IDLE_FREE; then, if any went, the waiting
 * commands are tried again. Runs again for the next idle device, never
 * because it found nothing to give back: a command that still does not
 * fit waits for its next try (kt_user_pages_charge()).
 */
static void kt_user_reclaim_fn(struct work_struct *work)
{
	unsigned long now = jiffies, next = 0, since, flags;
	bool press, idle, rearm = false, freed = false;
	struct kt_user_dev *udev;

	press = atomic_xchg(&kt_user_starved, 0) ||
		atomic_long_read(&kt_user_pages) > kt_user_max_pages();
	mutex_lock(&kt_user_devs_lock);
	list_for_each_entry(udev, &kt_user_devs, devs) {
		spin_lock_irqsave(&udev->lock, flags);
		idle = udev->free_blocks == udev->max_blocks && udev->nr_pages;
		since = udev->idle_since + KT_USER_IDLE_FREE * HZ;
		spin_unlock_irqrestore(&udev->lock, flags);
		if (press || (idle && time_after_eq(now, since))) {
			if (kt_user_data_reclaim(udev))
				freed = true;
		} else if (idle && (!rearm || time_before(since, next))) {
			next = since;
			rearm = true;
		}
	}
	if (freed)
		list_for_each_entry(udev, &kt_user_devs, devs)
			kt_user_run_waiting(udev);
	mutex_unlock(&kt_user_devs_lock);
	if (rearm)
		queue_delayed_work(system_wq, &kt_user_reclaim_work,
				   time_after(next, now) ? next - now : 0);
}

/*
 * The iovecs of @ucmd's data (offsets in the mapping), adjacent blocks
 * merged; into @iov when not NULL, which is in the ring: each is written
 * once, whole, and never read back. Returns how many.
 */
unsigned int kt_user_data_iovs(struct kt_user_dev *udev,
			       struct kt_user_cmd *ucmd, struct iovec *iov)
{
	u32 left = ucmd->data_len;
	size_t base = 0, run = 0;
	unsigned int n = 0;
	u32 i;

	for (i = 0; i < ucmd->nr_blocks; i++) {
		u32 len = min(left, udev->blk_size);
		size_t off = udev->data_off +
			     (size_t)ucmd->blocks[i] * udev->blk_size;

		if (i && ucmd->blocks[i] == ucmd->blocks[i - 1] + 1) {
			run += len;
		} else {
			if (i && iov) {
				iov[n - 1].iov_base = (void __user *)base;
				iov[n - 1].iov_len = run;
			}
			base = off;
			run = len;
			n++;
		}
		left -= len;
	}
	if (n && iov) {
		iov[n - 1].iov_base = (void __user *)base;
		iov[n - 1].iov_len = run;
	}
	return n;
}

/*
 * Copy @len bytes between @cmd's buffer and @ucmd's blocks: into the data
 * area (@to_area, a write's data) or out of it (a read's). Without
 * udev->lock, from any context: @ucmd holds its blocks throughout, so
 * their pages stay (the opening comment); a page at a time is mapped
 * atomically.
 */
void kt_user_data_copy(struct kt_user_dev *udev, struct kt_user_cmd *ucmd,
		       struct kt_cmd *cmd, u32 len, bool to_area)
{
	struct sg_mapping_iter miter;
	u32 done = 0;

	sg_miter_start(&miter, cmd->sgl, cmd->sg_nents,
		       SG_MITER_ATOMIC |
		       (to_area ? SG_MITER_FROM_SG : SG_MITER_TO_SG));
	while (done < len && sg_miter_next(&miter)) {
		size_t sg_done = 0;

		while (sg_done < miter.length && done < len) {
			u32 blk = ucmd->blocks[done / udev->blk_size];
			u32 in_blk = done % udev->blk_size;
			unsigned long idx = (unsigned long)blk * udev->pages_per_blk +
					    in_blk / PAGE_SIZE;
			u32 in_page = in_blk % PAGE_SIZE;
			size_t n = min3((size_t)(PAGE_SIZE - in_page),
					miter.length - sg_done,
					(size_t)(len - done));
			struct page *page = xa_load(&udev->pages, idx);
			u8 *p;

			if (WARN_ON_ONCE(!page))
				goto out;
			p = kmap_local_page(page);
			if (to_area)
				memcpy(p + in_page, miter.addr + sg_done, n);
			else
				memcpy(miter.addr + sg_done, p + in_page, n);
			kunmap_local(p);
			sg_done += n;
			done += n;
		}
	}
out:
	sg_miter_stop(&miter);
}
