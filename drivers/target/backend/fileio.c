// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_fileio: a file, or a block device opened as a file, configured as
 * LIO's fileio: control "fd_dev_name=PATH,fd_dev_size=BYTES,fd_buffered_io=B".
 *
 * Without fd_buffered_io the file is opened O_DSYNC (write-through); with
 * it, writes are cached and FUA / SYNCHRONIZE CACHE make them stable.
 * I/O is synchronous in the submitting work item for now.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/falloc.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include <ktarget/backend.h>
#include <ktarget/fabric.h>

struct kt_fd_dev {
	struct kt_dev	dev;
	char		path[KT_PATH_LEN];
	u64		size;		/* fd_dev_size=, bytes */
	bool		buffered;	/* fd_buffered_io= */
	bool		async;		/* fd_async_io=, accepted */
	struct file	*file;
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

static int kt_fd_set_param(struct kt_dev *dev, const char *key,
			   const char *value)
{
	struct kt_fd_dev *fd = to_fd(dev);

	if (!strcmp(key, "fd_dev_name")) {
		if (value[0] != '/' || strlen(value) >= sizeof(fd->path))
			return -EINVAL;
		strscpy(fd->path, value, sizeof(fd->path));
		strscpy(dev->udev_path, value, sizeof(dev->udev_path));
		return 0;
	}
	if (!strcmp(key, "fd_dev_size"))
		return kstrtou64(value, 0, &fd->size);
	if (!strcmp(key, "fd_buffered_io"))
		return kstrtobool(value, &fd->buffered);
	if (!strcmp(key, "fd_async_io"))
		return kstrtobool(value, &fd->async);
	return -ENOKEY;
}

static int kt_fd_enable(struct kt_dev *dev)
{
	struct kt_fd_dev *fd = to_fd(dev);
	const char *name = config_item_name(&dev->group.cg_item);
	struct inode *inode;
	struct file *file;
	int flags = O_RDWR | O_CREAT | O_LARGEFILE;
	u64 size;

	if (!fd->path[0]) {
		pr_warn_ratelimited("%s: set fd_dev_name= through control before enabling\n",
				    name);
		return -EINVAL;
	}
	if (!fd->buffered)
		flags |= O_DSYNC;
	file = filp_open(fd->path, flags, 0600);
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
		/* a new or shorter file grows (sparse) to fd_dev_size */
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
	dev->nr_blocks = div_u64(size, dev->attrib.hw_block_size);
	dev->attrib.block_size = dev->attrib.hw_block_size;
	dev->attrib.hw_max_sectors = 8192;
	dev->attrib.hw_queue_depth = 128;
	/* write-back only when the page cache is in the way (LIO's rule) */
	if (fd->buffered)
		dev->attrib.emulate_write_cache = 1;
	return 0;
}

static void kt_fd_disable(struct kt_dev *dev)
{
	struct kt_fd_dev *fd = to_fd(dev);

	if (fd->file)
		fput(fd->file);
	fd->file = NULL;
}

static void kt_fd_rw(struct kt_cmd *cmd, bool write, u64 pos, u32 len,
		     bool fua)
{
	struct kt_fd_dev *fd = to_fd(cmd->dev);
	loff_t off = pos;
	struct scatterlist *sg;
	u32 done = 0;
	ssize_t ret = 0;
	unsigned int i;

	for_each_sg(cmd->sgl, sg, cmd->sg_nents, i) {
		u32 n = min(sg->length, len - done);
		void *p = page_address(sg_page(sg)) + sg->offset;

		if (!n)
			break;
		ret = write ? kernel_write(fd->file, p, n, &off) :
			      kernel_read(fd->file, p, n, &off);
		/* reads past the end of a file that shrank see zeroes */
		if (!write && ret >= 0 && ret < n) {
			memset(p + ret, 0, n - ret);
			off += n - ret;
			ret = n;
		}
		if (ret != n)
			break;
		done += n;
	}
	if (done != len) {
		pr_warn_ratelimited("%s: %s at %llu failed: %zd\n",
				    fd->path, write ? "write" : "read", pos, ret);
		kt_cmd_complete(cmd, write ? KT_SENSE_WRITE_ERROR :
					     KT_SENSE_MEDIUM_ERROR);
		return;
	}
	if (write && fua && fd->buffered &&
	    vfs_fsync_range(fd->file, pos, pos + len - 1, 1)) {
		kt_cmd_complete(cmd, KT_SENSE_WRITE_ERROR);
		return;
	}
	kt_cmd_complete(cmd, KT_SENSE_NONE);
}

static void kt_fd_flush(struct kt_cmd *cmd)
{
	struct kt_fd_dev *fd = to_fd(cmd->dev);

	kt_cmd_complete(cmd, vfs_fsync(fd->file, 1) ? KT_SENSE_WRITE_ERROR :
						       KT_SENSE_NONE);
}

/* UNMAP, WRITE SAME of zeroes: punch a hole, or write zeroes. */
static sense_reason_t kt_fd_write_zeroes(struct kt_dev *dev, u64 pos, u64 len)
{
	struct kt_fd_dev *fd = to_fd(dev);
	loff_t off = pos;
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
	return ret ? KT_SENSE_WRITE_ERROR : KT_SENSE_NONE;
}

/* rtslib reads "File:", "Size:" and "Async:" from here. */
static ssize_t kt_fd_show_info(struct kt_dev *dev, char *page, size_t size)
{
	struct kt_fd_dev *fd = to_fd(dev);

	return scnprintf(page, size,
			 "        TCM FILEIO ID: %u        File: %s  Size: %llu  Mode: %s Async: %d\n",
			 dev->index, fd->path, fd->size,
			 fd->buffered ? "Buffered-WCE" : "O_DSYNC", fd->async);
}

static const struct kt_backend_ops kt_fd_ops = {
	.name		= "fileio",
	.owner		= THIS_MODULE,
	.alloc_dev	= kt_fd_alloc_dev,
	.free_dev	= kt_fd_free_dev,
	.set_param	= kt_fd_set_param,
	.enable		= kt_fd_enable,
	.disable	= kt_fd_disable,
	.show_info	= kt_fd_show_info,
	.rw		= kt_fd_rw,
	.flush		= kt_fd_flush,
	.write_zeroes	= kt_fd_write_zeroes,
};

static int __init kt_fd_init(void)
{
	return kt_backend_register(&kt_fd_ops);
}

static void __exit kt_fd_exit(void)
{
	kt_backend_unregister(&kt_fd_ops);
}

module_init(kt_fd_init);
module_exit(kt_fd_exit);

MODULE_DESCRIPTION("ktarget file backstore (fileio)");
MODULE_LICENSE("GPL");
MODULE_ALIAS("ktarget-backend-fileio");
