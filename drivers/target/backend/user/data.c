// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_user: the data area, after the command ring in the daemon's
 * mapping. It is cut into blocks of data_pages_per_blk pages; a command
 * holds the blocks of its data until the daemon answers it (or the ring
 * is reset), whatever happened to its SCSI command meanwhile, since the
 * daemon may still be writing them. Pages are allocated when a block is
 * first used and kept until the device goes, at most max_data_area_mb of
 * them: the daemon's faults find them in @pages, never anything else.
 * They are allocated under udev->lock without waiting and without the
 * atomic reserves (GFP_NOWAIT): a command that gets none waits for room,
 * tried again each second (timeout.c).
 * Only data moves through here; the iovecs the kernel gives the daemon
 * are its own, computed from the blocks it holds, never read back.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/target_core_user.h>

#include "user.h"

int kt_user_data_init(struct kt_user_dev *udev)
{
	udev->blk_size = udev->pages_per_blk * PAGE_SIZE;
	udev->max_blocks = ((size_t)udev->data_area_mb << 20) / udev->blk_size;
	udev->free_blocks = udev->max_blocks;
	udev->bitmap = bitmap_zalloc(udev->max_blocks, GFP_KERNEL);
	if (!udev->bitmap)
		return -ENOMEM;
	return 0;
}

/* the device is gone and no mapping is left (or it was never enabled) */
void kt_user_data_exit(struct kt_user_dev *udev)
{
	struct page *page;
	unsigned long i;

	xa_for_each(&udev->pages, i, page)
		__free_page(page);
	xa_destroy(&udev->pages);
	bitmap_free(udev->bitmap);
	udev->bitmap = NULL;
}

/*
 * The page at data area page @idx, referenced, or NULL: from a fault.
 * Pages are only freed with the last mapping, so none goes meanwhile.
 */
struct page *kt_user_data_page(struct kt_user_dev *udev, unsigned long idx)
{
	struct page *page = xa_load(&udev->pages, idx);

	if (page)
		get_page(page);
	return page;
}

/* under udev->lock: block @blk's pages exist */
static int kt_user_block_pages(struct kt_user_dev *udev, u32 blk)
{
	unsigned long idx = (unsigned long)blk * udev->pages_per_blk;
	unsigned int i;

	for (i = 0; i < udev->pages_per_blk; i++, idx++) {
		struct page *page;

		if (xa_load(&udev->pages, idx))
			continue;
		page = alloc_page(GFP_NOWAIT | __GFP_NOWARN | __GFP_ZERO);
		if (!page)
			return -ENOMEM;
		if (xa_err(xa_store(&udev->pages, idx, page,
				    GFP_NOWAIT | __GFP_NOWARN))) {
			__free_page(page);
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * Under udev->lock: blocks for @ucmd's data, the lowest free ones (the
 * daemon touches fewer pages). -ENOSPC while there are not enough.
 */
int kt_user_data_alloc(struct kt_user_dev *udev, struct kt_user_cmd *ucmd)
{
	u32 nr = DIV_ROUND_UP(ucmd->data_len, udev->blk_size);
	unsigned long bit = 0;
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
	for (i = 0; i < nr; i++) {
		bit = find_next_zero_bit(udev->bitmap, udev->max_blocks, bit);
		if (WARN_ON_ONCE(bit >= udev->max_blocks) ||
		    kt_user_block_pages(udev, bit)) {
			kt_user_data_free(udev, ucmd);
			return -ENOSPC;
		}
		__set_bit(bit, udev->bitmap);
		ucmd->blocks[ucmd->nr_blocks++] = bit;
		udev->free_blocks--;
	}
	return 0;
}

/* under udev->lock */
void kt_user_data_free(struct kt_user_dev *udev, struct kt_user_cmd *ucmd)
{
	u32 i;

	for (i = 0; i < ucmd->nr_blocks; i++) {
		__clear_bit(ucmd->blocks[i], udev->bitmap);
		udev->free_blocks++;
	}
	ucmd->nr_blocks = 0;
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
 * udev->lock, from any context: @ucmd holds its blocks throughout, whose
 * pages stay; a page at a time is mapped atomically.
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
