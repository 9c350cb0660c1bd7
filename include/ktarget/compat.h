/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where ktarget meets the differences between the kernels it
 * builds against: Debian 12's 6.1 (and the 6.1 debug kernel) and its 6.12.
 * The tree is written against the newer API; each shim here gives an older
 * kernel that API, or wraps what no common spelling covers in a small
 * helper, and names the kernel version and upstream commit of the change.
 * Shims are sorted by area. Kernels between 6.1 and 6.12 are not built.
 *
 * No LINUX_VERSION_CODE test belongs anywhere else (make check looks).
 * Where a version number would lie, because stable or distribution
 * kernels backport a change, or where no C spelling covers it, the
 * top-level Kbuild tests the headers built against instead:
 *
 *	include/ktarget/compat/	on the include path where the kernel has
 *				no <linux/unaligned.h> (6.12 moved it from
 *				<asm/unaligned.h>: 5f60d5f6bbc1)
 */
#ifndef KTARGET_COMPAT_H
#define KTARGET_COMPAT_H

#include <linux/blk-integrity.h>
#include <linux/blkdev.h>
#include <linux/eventfd.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mount.h>
#include <linux/version.h>

/* Block layer */

/*
 * A block device a backend opens for itself: exclusively with @holder (the
 * backend's device), shared with every other opener when @holder is NULL
 * (iblock's exclusive=0). kt_bdev_open() returns the block device or an
 * ERR_PTR(), kt_bdev_close() closes what was opened, or nothing.
 *
 * 6.9 opens a block device as a file: bdev_file_open_by_path(), file_bdev()
 * (f3a608827d1f, "bdev: open block devices as files") and bdev_fput(),
 * which gives up the exclusive claim at once, not when the file is freed
 * (22650a99821d, "fs,block: yield devices early"). 6.1 has
 * blkdev_get_by_path() and blkdev_put() with FMODE_EXCL, which 6.5 changed
 * (05bdb9965305, "block: replace fmode_t with a block-specific type for
 * block open flags").
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
struct kt_bdev {
	struct file		*file;
};

static inline struct block_device *kt_bdev_open(struct kt_bdev *h,
						const char *path, bool write,
						void *holder)
{
	blk_mode_t mode = BLK_OPEN_READ | (write ? BLK_OPEN_WRITE : 0);
	struct file *file;

	file = bdev_file_open_by_path(path, mode, holder, NULL);
	if (IS_ERR(file))
		return ERR_CAST(file);
	h->file = file;
	return file_bdev(file);
}

static inline void kt_bdev_close(struct kt_bdev *h)
{
	if (h->file)
		bdev_fput(h->file);
	h->file = NULL;
}
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#error "ktarget: block device open for kernels 6.5 to 6.8 is not written"
#else
struct kt_bdev {
	struct block_device	*bdev;
	fmode_t			mode;
};

static inline struct block_device *kt_bdev_open(struct kt_bdev *h,
						const char *path, bool write,
						void *holder)
{
	fmode_t mode = FMODE_READ | (holder ? FMODE_EXCL : 0) |
		       (write ? FMODE_WRITE : 0);
	struct block_device *bdev;

	bdev = blkdev_get_by_path(path, mode, holder);
	if (IS_ERR(bdev))
		return bdev;
	h->bdev = bdev;
	h->mode = mode;
	return bdev;
}

static inline void kt_bdev_close(struct kt_bdev *h)
{
	if (h->bdev)
		blkdev_put(h->bdev, h->mode);
	h->bdev = NULL;
}
#endif

/*
 * Atomic writes: what @bdev writes whole with REQ_ATOMIC, in bytes: the
 * smallest and largest unit (powers of two) and the boundary no atomic
 * write may cross (0: none); all 0 where it has none. A bio with
 * REQ_ATOMIC must be one of min..max bytes, a multiple of min (6.11,
 * 9da3d1e912f3, "block: Add core atomic write support"; REQ_ATOMIC is
 * that commit's too). 6.1 has neither: KT_REQ_ATOMIC is 0 there, and
 * nothing asks for it, since every limit reads 0.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define KT_REQ_ATOMIC	REQ_ATOMIC

static inline void kt_bdev_atomic_limits(struct block_device *bdev,
					 u32 *unit_min, u32 *unit_max,
					 u32 *boundary)
{
	struct request_queue *q = bdev_get_queue(bdev);

	*unit_min = 0;
	*unit_max = 0;
	*boundary = 0;
	if (!bdev_can_atomic_write(bdev))
		return;
	*unit_min = queue_atomic_write_unit_min_bytes(q);
	*unit_max = queue_atomic_write_unit_max_bytes(q);
	*boundary = queue_atomic_write_boundary_bytes(q);
}
#else
#define KT_REQ_ATOMIC	((__force blk_opf_t)0)

static inline void kt_bdev_atomic_limits(struct block_device *bdev,
					 u32 *unit_min, u32 *unit_max,
					 u32 *boundary)
{
	*unit_min = 0;
	*unit_max = 0;
	*boundary = 0;
}
#endif

/*
 * The T10-PI type (1 or 3) of @bdev's integrity, where the block layer
 * keeps 8-byte tuples with CRC guards at the start of each interval of one
 * logical block, as the SCSI and NVMe drivers register them; else 0. The
 * integrity profile of 6.1, which names the type, became a checksum type
 * and flags (BLK_INTEGRITY_REF_TAG for type 1) with the integrity limits'
 * move into queue_limits (6.11).
 */
static inline u8 kt_bdev_pi_type(struct block_device *bdev)
{
	struct blk_integrity *bi = bdev_get_integrity(bdev);

	if (!bi || bi->tuple_size != 8 ||
	    (1U << bi->interval_exp) != bdev_logical_block_size(bdev))
		return 0;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
	if (bi->csum_type != BLK_INTEGRITY_CSUM_CRC || bi->pi_offset)
		return 0;
	return (bi->flags & BLK_INTEGRITY_REF_TAG) ? 1 : 3;
#else
	if (!bi->profile || !bi->profile->name)
		return 0;
	if (!strcmp(bi->profile->name, "T10-DIF-TYPE1-CRC"))
		return 1;
	if (!strcmp(bi->profile->name, "T10-DIF-TYPE3-CRC"))
		return 3;
	return 0;
#endif
}

/* Eventfds */

/*
 * Signal @ctx once. 6.8 dropped eventfd_signal()'s count, which every
 * caller passed as 1 (3652117f8548, "eventfd: simplify eventfd_signal()").
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
static inline void kt_eventfd_signal(struct eventfd_ctx *ctx)
{
	eventfd_signal(ctx);
}
#else
static inline void kt_eventfd_signal(struct eventfd_ctx *ctx)
{
	eventfd_signal(ctx, 1);
}
#endif

/* Files */

/*
 * 6.3 passes the vfs_*() helpers a mount's idmap, mnt_idmap(), where 6.1
 * passes its user namespace, mnt_user_ns() (abf08576afe3, "fs: port
 * vfs_*() helpers to struct mnt_idmap").
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
static inline struct user_namespace *mnt_idmap(const struct vfsmount *mnt)
{
	return mnt_user_ns(mnt);
}
#endif

/* Memory */

/*
 * 6.3 made vma->vm_flags read-only outside mm/ and added vm_flags_set()
 * to change them (bc292ab00f6c, "mm: introduce vma->vm_flags wrapper
 * functions"); 6.1.y has no backport.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}
#endif

/* Timers */

/*
 * 6.2 renamed del_timer() and del_timer_sync() to timer_delete() and
 * timer_delete_sync() and added timer_shutdown_sync() (9b13df3fb64e,
 * bb663f0f3c39, f571faf6e443); 6.1.y stable has all three, so no shim.
 */

#endif /* KTARGET_COMPAT_H */
