// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_fileio: a file, or a block device opened as a file, configured as
 * LIO's fileio: control "fd_dev_name=PATH,fd_dev_size=BYTES,fd_buffered_io=B".
 * fd_dev_size= written again while enabled resizes a file's LU: it grows
 * at any time (the file with it, sparse; what lay past the old size is
 * cut off first, so the new range reads zeroes), and shrinks only while
 * no LUN links it. A block device's LU follows the device's size by
 * itself (kt_fd_size()).
 *
 * Without fd_buffered_io the file is opened O_DSYNC (write-through); with
 * it, writes are cached and FUA / SYNCHRONIZE CACHE make them stable.
 *
 * With T10-PI on (attrib/pi_prot_type), the protection information of each
 * logical block is kept in PATH.protection, 8 bytes a block at 8 * LBA, as
 * LIO's fileio keeps it: a LU moved from LIO finds its PI where it was.
 * Blocks the file did not cover yet get FFh (the escape: not checked), and
 * the LU's size is fixed while PI is on (the PI part is above kt_fd_io()).
 *
 * Every read and write runs from a work item on an unbound workqueue, so a
 * command waiting for the disk holds up neither the fabric's receive side
 * nor the other commands; the data moves in batches of pages through one
 * vfs_iter_read() / vfs_iter_write() each, with nothing allocated.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/falloc.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/statfs.h>
#include <linux/string.h>
#include <linux/uio.h>
#include <linux/workqueue.h>

#include <ktarget/backend.h>
#include <ktarget/version.h>

#define KT_FD_BATCH	16	/* pages per vfs_iter_* call */

static struct workqueue_struct *kt_fd_wq;

struct kt_fd_dev {
	struct kt_dev	dev;
	char		path[KT_PATH_LEN];
	u64		size;		/* fd_dev_size=, bytes */
	bool		buffered;	/* fd_buffered_io= */
	bool		async;		/* fd_async_io=, accepted */
	struct file	*file;
	struct file	*prot_file;	/* PATH.protection, with PI on */
};

static struct kt_fd_dev *to_fd(struct kt_dev *dev)
{
	return container_of(dev, struct kt_fd_dev, dev);
}

static struct kt_dev *kt_fd_alloc_dev(const char *name)
{
	struct kt_fd_dev *fd = kzalloc(sizeof(*fd), GFP_KERNEL);

	return fd ? &fd->dev : NULL;
}

static void kt_fd_free_dev(struct kt_dev *dev)
{
	kfree(to_fd(dev));
}

/* control's keys: kt_fd_set_param() and kt_fd_set_live_param() */
enum { KT_FD_NAME, KT_FD_SIZE, KT_FD_BUFFERED, KT_FD_ASYNC };
static const char * const kt_fd_keys[] = {
	[KT_FD_NAME]		= "fd_dev_name",
	[KT_FD_SIZE]		= "fd_dev_size",
	[KT_FD_BUFFERED]	= "fd_buffered_io",
	[KT_FD_ASYNC]		= "fd_async_io",
};

static int kt_fd_set_param(struct kt_dev *dev, const char *key,
			   const char *value)
{
	struct kt_fd_dev *fd = to_fd(dev);

	switch (match_string(kt_fd_keys, ARRAY_SIZE(kt_fd_keys), key)) {
	case KT_FD_NAME:
		if (value[0] != '/' || strlen(value) >= sizeof(fd->path))
			return -EINVAL;
		strscpy(fd->path, value, sizeof(fd->path));
		strscpy(dev->udev_path, value, sizeof(dev->udev_path));
		return 0;
	case KT_FD_SIZE:
		return kstrtou64(value, 0, &fd->size);
	case KT_FD_BUFFERED:
		return kstrtobool(value, &fd->buffered);
	case KT_FD_ASYNC:
		return kstrtobool(value, &fd->async);
	}
	return -ENOKEY;
}

/*
 * Only fd_dev_size= of a file changes while enabled: it resizes the LU.
 * Checked only unless @apply.
 */
static int kt_fd_set_live_param(struct kt_dev *dev, const char *key,
				const char *value, bool exported, bool apply)
{
	struct kt_fd_dev *fd = to_fd(dev);
	const char *name = config_item_name(&dev->group.cg_item);
	struct inode *inode = file_inode(fd->file);
	u64 size, old = fd->size;
	int ret;

	if (strcmp(key, kt_fd_keys[KT_FD_SIZE])) {
		/* the other keys are fixed while enabled */
		if (match_string(kt_fd_keys, ARRAY_SIZE(kt_fd_keys), key) < 0)
			return -ENOKEY;
		pr_warn_ratelimited("%s: control: %s cannot change while enabled\n",
				    name, key);
		return -EBUSY;
	}
	ret = kstrtou64(value, 0, &size);
	if (ret || size < dev->attrib.hw_block_size) {
		pr_warn_ratelimited("%s: control: bad value '%s' for %s\n",
				    name, value, key);
		return -EINVAL;
	}
	if (S_ISBLK(inode->i_mode)) {
		pr_warn_ratelimited("%s: control: fd_dev_size: %s is a block device, whose size the LU follows\n",
				    name, fd->path);
		return -EINVAL;
	}
	if (dev->attrib.pi_prot_type && size != old) {
		pr_warn_ratelimited("%s: control: fd_dev_size cannot change while the device keeps protection information (pi_prot_type)\n",
				    name);
		return -EBUSY;
	}
	if (size < old && exported) {
		pr_warn_ratelimited("%s: control: fd_dev_size=%llu would shrink the LU from %llu bytes while a LUN links it\n",
				    name, size, old);
		return -EBUSY;
	}
	if (size > i_size_read(inode) && !(fd->file->f_mode & FMODE_WRITE)) {
		pr_warn_ratelimited("%s: control: fd_dev_size=%llu is past the end of %s, which is only read\n",
				    name, size, fd->path);
		return -EINVAL;
	}
	if (!apply)
		return 0;
	/* a file opened read-only is never truncated, either way */
	if (!(fd->file->f_mode & FMODE_WRITE)) {
		WRITE_ONCE(fd->size, size);
		return 0;
	}
	/* no block past the old end may come back with what it held */
	if (size > old && i_size_read(inode) > old)
		ret = vfs_truncate(&fd->file->f_path, old);
	if (!ret && i_size_read(inode) < size)
		ret = vfs_truncate(&fd->file->f_path, size);
	if (ret) {
		pr_warn_ratelimited("%s: control: cannot size %s to %llu: %pe\n",
				    name, fd->path, size, ERR_PTR(ret));
		return ret;
	}
	/* the core reads it next (kt_fd_size()) */
	WRITE_ONCE(fd->size, size);
	return 0;
}

/*
 * The medium, read-write (created if missing) unless the LU is a CD/DVD,
 * whose image is only read. A file that cannot be opened for writing (a
 * read-only mount, an immutable file, no write permission) is opened
 * read-only then: an ISO image on a read-only mount is served as a disc,
 * and a disk over such a file is write-protected (dev->read_only).
 */
static struct file *kt_fd_open(struct kt_dev *dev, int flags)
{
	struct kt_fd_dev *fd = to_fd(dev);
	struct file *file;

	if (dev->attrib.emulate_cdrom)
		return filp_open(fd->path, flags | O_RDONLY, 0);
	file = filp_open(fd->path, flags | O_RDWR | O_CREAT, 0600);
	if (!IS_ERR(file) || (PTR_ERR(file) != -EROFS &&
			      PTR_ERR(file) != -EACCES &&
			      PTR_ERR(file) != -EPERM))
		return file;
	file = filp_open(fd->path, flags | O_RDONLY, 0);
	if (!IS_ERR(file))
		pr_info("%s: %s cannot be written: opened read-only, the LU is write-protected\n",
			config_item_name(&dev->group.cg_item), fd->path);
	return file;
}

static int kt_fd_enable(struct kt_dev *dev)
{
	struct kt_fd_dev *fd = to_fd(dev);
	const char *name = config_item_name(&dev->group.cg_item);
	struct inode *inode;
	struct file *file;
	int flags = O_LARGEFILE;
	u64 size;

	if (!fd->path[0]) {
		pr_warn_ratelimited("%s: set fd_dev_name= through control before enabling\n",
				    name);
		return -EINVAL;
	}
	if (!fd->buffered)
		flags |= O_DSYNC;
	file = kt_fd_open(dev, flags);
	if (IS_ERR(file)) {
		pr_warn_ratelimited("%s: cannot open %s: %pe\n", name, fd->path,
				    file);
		return PTR_ERR(file);
	}
	inode = file_inode(file);
	if (S_ISBLK(inode->i_mode)) {
		struct block_device *bdev = I_BDEV(file->f_mapping->host);

		size = bdev_nr_bytes(bdev);
		dev->attrib.hw_block_size = bdev_logical_block_size(bdev);
	} else if (S_ISREG(inode->i_mode)) {
		size = fd->size ? fd->size : i_size_read(inode);
		dev->attrib.hw_block_size = 512;
		/*
		 * A new or shorter file grows (sparse) to fd_dev_size; one
		 * opened read-only (a disc's image) is never written to.
		 */
		if (i_size_read(inode) < size && !(file->f_mode & FMODE_WRITE)) {
			pr_warn_ratelimited("%s: fd_dev_size=%llu is past the end of %s (%lld bytes), and a %s is only read\n",
					    name, size, fd->path, i_size_read(inode),
					    dev->attrib.emulate_cdrom ?
					    "disc's image" : "read-only file");
			fput(file);
			return -EINVAL;
		}
		if (i_size_read(inode) < size) {
			int ret = vfs_truncate(&file->f_path, size);

			if (ret) {
				pr_warn_ratelimited("%s: cannot size %s to %llu: %pe\n",
						    name, fd->path, size, ERR_PTR(ret));
				fput(file);
				return ret;
			}
		}
	} else {
		pr_warn_ratelimited("%s: %s is neither a file nor a block device\n",
				    name, fd->path);
		fput(file);
		return -EINVAL;
	}
	if (size < dev->attrib.hw_block_size) {
		pr_warn_ratelimited("%s: %s: size %llu is smaller than a block; set fd_dev_size=\n",
				    name, fd->path, size);
		fput(file);
		return -EINVAL;
	}
	fd->size = size;
	fd->file = file;
	dev->read_only = !(file->f_mode & FMODE_WRITE);
	dev->nr_blocks = div_u64(size, dev->attrib.hw_block_size);
	dev->attrib.block_size = dev->attrib.hw_block_size;
	dev->attrib.hw_max_sectors = 8192;
	dev->attrib.hw_queue_depth = 128;
	/* write-back only when the page cache is in the way (LIO's rule) */
	if (fd->buffered)
		dev->attrib.emulate_write_cache = 1;
	return 0;
}

static void kt_fd_free_prot(struct kt_dev *dev);

static void kt_fd_disable(struct kt_dev *dev)
{
	struct kt_fd_dev *fd = to_fd(dev);

	kt_fd_free_prot(dev);
	if (fd->file)
		fput(fd->file);
	fd->file = NULL;
	dev->read_only = false;
}

/*
 * A cached file writes through (RWF_DSYNC, or a sync after zeroing and
 * copying) while the LU reports no write cache: WCE=0 promises that a
 * completed write is on stable storage.
 */
static bool kt_fd_writes_through(struct kt_fd_dev *fd)
{
	return fd->buffered && !READ_ONCE(fd->dev.attrib.emulate_write_cache);
}

/*
 * Move up to KT_FD_BATCH entries of @sg. A read or write that stops short
 * goes on from where it stopped, so that the error, when there is one, is
 * what ends it and *@off is where it failed (the first byte not moved).
 * Returns the bytes moved, or -errno.
 */
static ssize_t kt_fd_batch(struct kt_fd_dev *fd, struct scatterlist **sg,
			   bool write, loff_t *off, u32 left, bool dsync)
{
	struct bio_vec bv[KT_FD_BATCH];
	struct iov_iter iter;
	unsigned int nr = 0;
	size_t bytes = 0, short_by;
	ssize_t ret;

	for (; *sg && nr < KT_FD_BATCH && bytes < left; *sg = sg_next(*sg)) {
		u32 n = min_t(u32, (*sg)->length, left - bytes);

		bv[nr].bv_page = sg_page(*sg);
		bv[nr].bv_offset = (*sg)->offset;
		bv[nr].bv_len = n;
		bytes += n;
		nr++;
	}
	iov_iter_bvec(&iter, write ? WRITE : READ, bv, nr, bytes);
	while (iov_iter_count(&iter)) {
		/*
		 * a write-through write can fail in its sync after moving
		 * the data and *off: the failure is placed where it began
		 */
		loff_t start = *off;

		if (write)
			ret = vfs_iter_write(fd->file, &iter, off,
					     dsync ? RWF_DSYNC : 0);
		else
			ret = vfs_iter_read(fd->file, &iter, off, 0);
		if (ret < 0) {
			*off = start;
			return ret;
		}
		if (!ret)
			break;
	}
	short_by = iov_iter_count(&iter);
	if (short_by && write)
		return -EIO;
	/* reads past the end of a file that shrank see zeroes */
	iov_iter_zero(short_by, &iter);
	*off += short_by;
	return bytes;
}

/* A block device may be resized under us; a file keeps fd_dev_size. */
static u64 kt_fd_size(struct kt_dev *dev)
{
	struct kt_fd_dev *fd = to_fd(dev);
	struct inode *inode = fd->file->f_mapping->host;

	return S_ISBLK(inode->i_mode) ? bdev_nr_bytes(I_BDEV(inode)) :
					READ_ONCE(fd->size);
}

/*
 * A failed read or write: the initiator learns where (INFORMATION), and a
 * filesystem that is full says so as thin provisioning does (SBC-3 4.7.3.6).
 */
static void kt_fd_fail(struct kt_cmd *cmd, bool write, loff_t off, int err)
{
	struct kt_fd_dev *fd = to_fd(cmd->dev);

	pr_warn_ratelimited("%s: %s at %llu failed: %pe\n", fd->path,
			    write ? "write" : "read", off, ERR_PTR(err));
	/* a block device says ENOSPC past its end: that is no full disk */
	if ((err == -ENOSPC || err == -EDQUOT) &&
	    S_ISREG(file_inode(fd->file)->i_mode)) {
		kt_be_done(cmd, KT_SENSE_SPACE_ALLOC_FAILED);
		return;
	}
	cmd->sense_info = div_u64(off, cmd->dev->attrib.block_size);
	cmd->sense_info_valid = true;
	/* a block device shrunk under the command: no medium error */
	if (off >= kt_fd_size(cmd->dev)) {
		kt_be_done(cmd, KT_SENSE_LBA_OUT_OF_RANGE);
		return;
	}
	kt_be_done(cmd, write ? KT_SENSE_WRITE_ERROR :
				     KT_SENSE_MEDIUM_ERROR);
}

/* ---- T10-PI: PATH.protection ---- */

/*
 * FFh over [@from, @to) of the protection file: blocks no check covers.
 * For a FORMAT UNIT (@format), -EINTR once the core says stop (a LUN
 * reset, an abort, the LUN removed): 128 MiB for an 8 GiB LU take a while.
 */
static int kt_fd_prot_fill(struct kt_fd_dev *fd, loff_t from, loff_t to,
			   bool format)
{
	u8 *buf = (u8 *)__get_free_page(GFP_KERNEL);
	loff_t off = from;
	ssize_t ret = 0;

	if (!buf)
		return -ENOMEM;
	memset(buf, 0xff, PAGE_SIZE);
	while (off < to) {
		size_t n = min_t(loff_t, to - off, PAGE_SIZE);

		ret = kernel_write(fd->prot_file, buf, n, &off);
		if (ret != n) {
			ret = ret < 0 ? ret : -EIO;
			break;
		}
		ret = 0;
		if (format && kt_format_stopping(&fd->dev)) {
			ret = -EINTR;
			break;
		}
		cond_resched();
	}
	free_page((unsigned long)buf);
	return ret;
}

/* The protection file's length for the LU's logical blocks */
static loff_t kt_fd_prot_len(struct kt_dev *dev)
{
	return div_u64(dev->nr_blocks * dev->attrib.hw_block_size,
		       dev->attrib.block_size) * KT_PI_TUPLE_LEN;
}

static int kt_fd_init_prot(struct kt_dev *dev)
{
	struct kt_fd_dev *fd = to_fd(dev);
	const char *name = config_item_name(&dev->group.cg_item);
	int flags = O_RDWR | O_CREAT | O_LARGEFILE;
	loff_t have, want = kt_fd_prot_len(dev);
	struct file *file;
	char *path;
	int ret;

	if (dev->read_only) {
		pr_warn_ratelimited("%s: attrib/pi_prot_type: %s is read-only\n",
				    name, fd->path);
		return -EROFS;
	}
	path = kasprintf(GFP_KERNEL, "%s.protection", fd->path);
	if (!path)
		return -ENOMEM;
	if (!fd->buffered)
		flags |= O_DSYNC;
	file = filp_open(path, flags, 0600);
	if (IS_ERR(file)) {
		pr_warn_ratelimited("%s: cannot open %s: %pe\n", name, path, file);
		kfree(path);
		return PTR_ERR(file);
	}
	fd->prot_file = file;
	have = i_size_read(file_inode(file));
	ret = have < want ? kt_fd_prot_fill(fd, have, want, true) : 0;
	if (ret) {
		pr_warn_ratelimited("%s: cannot write %s: %pe\n", name, path,
				    ERR_PTR(ret));
		fput(file);
		fd->prot_file = NULL;
	}
	kfree(path);
	return ret;
}

static void kt_fd_free_prot(struct kt_dev *dev)
{
	struct kt_fd_dev *fd = to_fd(dev);

	if (fd->prot_file)
		fput(fd->prot_file);
	fd->prot_file = NULL;
}

static int kt_fd_format_prot(struct kt_dev *dev)
{
	struct kt_fd_dev *fd = to_fd(dev);
	int ret;

	ret = kt_fd_prot_fill(fd, 0, kt_fd_prot_len(dev), true);
	if (!ret)
		ret = vfs_fsync(fd->prot_file, 1);
	if (ret)
		pr_warn_ratelimited("%s: cannot format %s.protection: %pe\n",
				    config_item_name(&dev->group.cg_item),
				    fd->path, ERR_PTR(ret));
	return ret;
}

/*
 * The PI of the whole blocks of [@pos, @pos + @len), a page of tuples at a
 * time: made from cmd->sgl and written (@write, after the data), or read
 * and checked against cmd->sgl. What lies past the protection file's end
 * reads FFh.
 */
static sense_reason_t kt_fd_prot_rw(struct kt_cmd *cmd, bool write, u64 pos,
				    u32 len, bool dsync)
{
	struct kt_fd_dev *fd = to_fd(cmd->dev);
	u32 bs = cmd->dev->attrib.block_size, nr = len / bs, done = 0, n;
	sense_reason_t reason = KT_SENSE_NONE;
	u64 lba = div_u64(pos, bs);
	loff_t off, start;
	ssize_t ret;
	u8 *buf;

	buf = (u8 *)__get_free_page(GFP_KERNEL);
	if (!buf)
		return KT_SENSE_OUT_OF_RESOURCES;
	for (; done < nr && !reason; done += n) {
		n = min_t(u32, nr - done, PAGE_SIZE / KT_PI_TUPLE_LEN);
		start = (lba + done) * KT_PI_TUPLE_LEN;
		off = start;
		if (write) {
			kt_pi_generate(cmd, done * bs, lba + done, n, buf);
			ret = kernel_write(fd->prot_file, buf,
					   n * KT_PI_TUPLE_LEN, &off);
			if (ret == n * KT_PI_TUPLE_LEN && dsync && fd->buffered)
				ret = vfs_fsync_range(fd->prot_file, start,
						      off - 1, 1) ?: ret;
			if (ret != n * KT_PI_TUPLE_LEN)
				reason = KT_SENSE_WRITE_ERROR;
		} else {
			memset(buf, 0xff, n * KT_PI_TUPLE_LEN);
			ret = kernel_read(fd->prot_file, buf,
					  n * KT_PI_TUPLE_LEN, &off);
			reason = ret < 0 ? KT_SENSE_MEDIUM_ERROR :
			       kt_pi_verify(cmd, done * bs, lba + done, n, buf);
		}
		if (reason == KT_SENSE_WRITE_ERROR ||
		    reason == KT_SENSE_MEDIUM_ERROR) {
			pr_warn_ratelimited("%s.protection: %s at %lld failed: %pe\n",
					    fd->path, write ? "write" : "read",
					    start, ERR_PTR(ret < 0 ? ret : -EIO));
			cmd->sense_info = lba + done;
			cmd->sense_info_valid = true;
		}
	}
	free_page((unsigned long)buf);
	return reason;
}

static void kt_fd_io(struct kt_cmd *cmd)
{
	struct kt_fd_dev *fd = to_fd(cmd->dev);
	bool write = cmd->be.wq.write;
	bool pi = fd->prot_file && kt_pi_type(cmd->dev);
	struct scatterlist *sg = cmd->sgl;
	loff_t pos = cmd->be.wq.pos, off = pos;
	u32 len = cmd->be.wq.len, done = 0;
	sense_reason_t reason = KT_SENSE_NONE;
	ssize_t ret = -EIO;

	/* an O_DSYNC file writes through by itself */
	bool dsync = (fd->buffered && cmd->be.wq.fua) || kt_fd_writes_through(fd);

	/* the data and its PI as one, against other writes and reads */
	if (pi)
		kt_pi_range_lock(cmd->dev, pos, len, write);
	while (done < len && sg) {
		ret = kt_fd_batch(fd, &sg, write, &off, len - done, dsync);
		if (ret < 0)
			break;
		done += ret;
	}
	if (done == len && pi)
		reason = kt_fd_prot_rw(cmd, write, pos, len, dsync);
	if (pi)
		kt_pi_range_unlock(cmd->dev, pos, len, write);
	if (done != len) {
		kt_fd_fail(cmd, write, off, ret < 0 ? ret : -EIO);
		return;
	}
	if (write)
		kt_lbp_written(cmd, len);
	kt_be_done(cmd, reason);
}

/*
 * The file's page cache is filled with no reclaim that waits for I/O, and
 * its dirty pages are throttled against the file's own device only, as
 * the kernel's loop driver does: the initiator may be this kernel itself
 * (the loopback fabric), with a filesystem whose reclaim and writeback
 * wait for I/O queued behind this very work.
 */
static void kt_fd_work(struct work_struct *work)
{
	unsigned int noio = memalloc_noio_save();
	unsigned int local = current->flags & PF_LOCAL_THROTTLE;

	current->flags |= PF_LOCAL_THROTTLE;
	kt_fd_io(container_of(work, struct kt_cmd, be.wq.work));
	current->flags = (current->flags & ~PF_LOCAL_THROTTLE) | local;
	memalloc_noio_restore(noio);
}

static void kt_fd_rw(struct kt_cmd *cmd, bool write, u64 pos, u32 len,
		     bool fua)
{
	cmd->be.wq.write = write;
	cmd->be.wq.pos = pos;
	cmd->be.wq.len = len;
	cmd->be.wq.fua = fua;
	INIT_WORK(&cmd->be.wq.work, kt_fd_work);
	queue_work(kt_fd_wq, &cmd->be.wq.work);
}

/* SYNCHRONIZE CACHE: a flush waits for the disk, on the workqueue too */
static void kt_fd_flush_work(struct work_struct *work)
{
	struct kt_cmd *cmd = container_of(work, struct kt_cmd, be.wq.work);
	struct kt_fd_dev *fd = to_fd(cmd->dev);
	unsigned int noio = memalloc_noio_save();	/* as kt_fd_work() */
	int ret = vfs_fsync(fd->file, 1);

	/* the blocks' PI is as much the medium as their data */
	if (!ret && fd->prot_file)
		ret = vfs_fsync(fd->prot_file, 1);
	memalloc_noio_restore(noio);
	kt_be_done(cmd, ret ? KT_SENSE_WRITE_ERROR : KT_SENSE_NONE);
}

static void kt_fd_flush(struct kt_cmd *cmd)
{
	INIT_WORK(&cmd->be.wq.work, kt_fd_flush_work);
	queue_work(kt_fd_wq, &cmd->be.wq.work);
}

/*
 * The room a sparse file has for its holes to be filled: what its
 * filesystem has free for unprivileged users. A block device has none to
 * tell of.
 */
static int kt_fd_lbp_available(struct kt_dev *dev, u64 *bytes)
{
	struct kt_fd_dev *fd = to_fd(dev);
	struct kstatfs st;
	int ret;

	if (!fd->file || !S_ISREG(file_inode(fd->file)->i_mode))
		return -EOPNOTSUPP;
	ret = vfs_statfs(&fd->file->f_path, &st);
	if (ret)
		return ret;
	*bytes = (u64)st.f_bavail * st.f_bsize;
	return 0;
}

/*
 * UNMAP, WRITE SAME of zeroes: punch a hole, or write zeroes; with @pi the
 * blocks' tuples become FFh (SBC-4 4.7.4.5: an unmapped block's PI).
 */
static sense_reason_t kt_fd_zero(struct kt_fd_dev *fd, u64 pos, u64 len,
				 bool pi)
{
	loff_t off = pos, last = pos + len - 1;
	int ret;

	ret = vfs_fallocate(fd->file, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			    pos, len);
	while (ret == -EOPNOTSUPP && len) {
		size_t n = min_t(u64, len, PAGE_SIZE);
		ssize_t w = kernel_write(fd->file, page_address(ZERO_PAGE(0)), n,
					 &off);

		if (w != n) {
			ret = -EIO;
			break;
		}
		len -= n;
		if (!len)
			ret = 0;
	}
	if (!ret && kt_fd_writes_through(fd))
		ret = vfs_fsync_range(fd->file, pos, last, 1);
	if (!ret && pi) {
		u32 bs = fd->dev.attrib.block_size;

		loff_t from = div_u64(pos, bs) * KT_PI_TUPLE_LEN;
		loff_t to = div_u64(last + 1, bs) * KT_PI_TUPLE_LEN;

		ret = kt_fd_prot_fill(fd, from, to, false);
		if (!ret && to > from && kt_fd_writes_through(fd))
			ret = vfs_fsync_range(fd->prot_file, from, to - 1, 1);
	}
	return ret ? KT_SENSE_WRITE_ERROR : KT_SENSE_NONE;
}

/* UNMAP, WRITE SAME of zeroes */
static sense_reason_t kt_fd_write_zeroes(struct kt_dev *dev, u64 pos, u64 len)
{
	struct kt_fd_dev *fd = to_fd(dev);
	bool pi = fd->prot_file && kt_pi_type(dev);
	sense_reason_t reason;

	if (!pi)
		return kt_fd_zero(fd, pos, len, false);
	kt_pi_range_lock(dev, pos, len, true);
	reason = kt_fd_zero(fd, pos, len, true);
	kt_pi_range_unlock(dev, pos, len, true);
	return reason;
}

/* rtslib reads "File:", "Size:" (the size now) and "Async:" from here. */
static ssize_t kt_fd_show_info(struct kt_dev *dev, char *page, size_t size)
{
	struct kt_fd_dev *fd = to_fd(dev);

	return scnprintf(page, size,
			 "        TCM FILEIO ID: %u        File: %s  Size: %llu  Mode: %s Async: %d\n",
			 dev->index, fd->path,
			 dev->enabled ? kt_fd_size(dev) : fd->size,
			 fd->buffered ? "Buffered-WCE" : "O_DSYNC", fd->async);
}

/*
 * Can the filesystem copy between these files itself: share extents
 * (reflink) or run its own copy? Otherwise vfs_copy_file_range() falls
 * back to splicing through a pipe, slower than the engine's READ / WRITE
 * loop that overlaps the two.
 */
static bool kt_fd_fs_copies(struct file *in, struct file *out)
{
	const struct file_operations *fop = out->f_op;

	if (fop->copy_file_range)
		return true;
	return fop->remap_file_range &&
	       file_inode(in)->i_sb == file_inode(out)->i_sb;
}

/*
 * EXTENDED COPY between fileio devices when their filesystem copies by
 * itself. A destination that reports no write cache (WCE=0) is synced, as
 * its writes would be.
 */
static s64 kt_fd_copy_range(struct kt_dev *dst, u64 dst_pos,
			    struct kt_dev *src, u64 src_pos, u64 len)
{
	struct kt_fd_dev *d = to_fd(dst), *s = to_fd(src);
	loff_t in = src_pos, out = dst_pos;
	ssize_t ret = 0;
	u64 done = 0;

	if (!kt_fd_fs_copies(s->file, d->file))
		return -EOPNOTSUPP;
	while (done < len) {
		ret = vfs_copy_file_range(s->file, in, d->file, out,
					  min_t(u64, len - done, SZ_1G), 0);
		if (ret <= 0)
			break;
		in += ret;
		out += ret;
		done += ret;
	}
	if (done && (!d->buffered || kt_fd_writes_through(d)) &&
	    vfs_fsync_range(d->file, dst_pos, dst_pos + done - 1, 1))
		return -EIO;
	return done ? done : ret;
}

/*
 * GET LBA STATUS: data or hole at @pos, as SEEK_DATA and SEEK_HOLE say.
 * A block device, or a filesystem without holes, is all data.
 */
static int kt_fd_lba_status(struct kt_dev *dev, u64 pos, u64 len, u64 *nr,
			    bool *mapped)
{
	struct file *f = to_fd(dev)->file;
	loff_t data, hole;

	data = vfs_llseek(f, pos, SEEK_DATA);
	if (data == -ENXIO || (data >= 0 && data > pos)) {
		/* a hole up to the next data, or to the end of the file */
		*mapped = false;
		*nr = data < 0 ? len : min_t(u64, data - pos, len);
		return 0;
	}
	if (data < 0)
		return data;
	hole = vfs_llseek(f, pos, SEEK_HOLE);
	if (hole < 0)
		return hole;
	*mapped = true;
	*nr = hole > pos ? min_t(u64, hole - pos, len) : len;
	return 0;
}

static const struct kt_backend_ops kt_fd_ops = {
	.name		= "fileio",
	.owner		= THIS_MODULE,
	.alloc_dev	= kt_fd_alloc_dev,
	.free_dev	= kt_fd_free_dev,
	.set_param	= kt_fd_set_param,
	.set_live_param	= kt_fd_set_live_param,
	.enable		= kt_fd_enable,
	.disable	= kt_fd_disable,
	.size		= kt_fd_size,
	.show_info	= kt_fd_show_info,
	.rw		= kt_fd_rw,
	.flush		= kt_fd_flush,
	.write_zeroes	= kt_fd_write_zeroes,
	.lba_status	= kt_fd_lba_status,
	.copy_range	= kt_fd_copy_range,
	.lbp_available	= kt_fd_lbp_available,
	.init_prot	= kt_fd_init_prot,
	.free_prot	= kt_fd_free_prot,
	.format_prot	= kt_fd_format_prot,
};

static int __init kt_fd_init(void)
{
	int ret;

	kt_fd_wq = alloc_workqueue("kt_fileio", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!kt_fd_wq)
		return -ENOMEM;
	ret = kt_backend_register(&kt_fd_ops);
	if (ret)
		destroy_workqueue(kt_fd_wq);
	return ret;
}

static void __exit kt_fd_exit(void)
{
	kt_backend_unregister(&kt_fd_ops);
	destroy_workqueue(kt_fd_wq);
}

module_init(kt_fd_init);
module_exit(kt_fd_exit);

MODULE_DESCRIPTION("ktarget file backstore (fileio)");
MODULE_VERSION(KT_VERSION);
MODULE_LICENSE("GPL");
MODULE_ALIAS("ktarget-backend-fileio");
