// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iblock: a block device through bios, configured as LIO's iblock:
 * control "udev_path=/dev/X" (and "readonly=B", "exclusive=B": 1, the
 * default, claims the device for the LU; 0 shares it with other openers, a
 * cluster application on this host, as LIO 6.17). Completion runs from the
 * bios' end_io, with no context switch. Over a device with atomic writes
 * (6.11 on) a WRITE ATOMIC goes down as one bio with REQ_ATOMIC.
 *
 * Over a device with T10-PI integrity of type 1 or 3 (a SCSI disk with DIF
 * and DIX, an NVMe namespace with PI), the LU has that type
 * (hw_pi_prot_type, and pi_prot_type unless set to 0), as LIO's iblock.
 * Without PI from the fabric the block layer makes a write's tuples and
 * checks a read's below; a failed check is the guard's sense here. With
 * the fabric's tuples (loopback DIX: RDPROTECT / WRPROTECT), each bio
 * carries the pages of the fabric's list for its blocks as its integrity
 * payload: a write's go down as the initiator sent them (the core checked
 * them), a read's come up into them and are checked as RDPROTECT says.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/blk-integrity.h>
#include <linux/blkdev.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include <ktarget/backend.h>
#include <ktarget/compat.h>
#include <ktarget/version.h>

struct kt_ib_dev {
	struct kt_dev		dev;
	struct kt_bdev		handle;		/* what kt_bdev_open() opened */
	struct block_device	*bdev;
	bool			readonly;
	bool			exclusive;
};

static struct kt_ib_dev *to_ib(struct kt_dev *dev)
{
	return container_of(dev, struct kt_ib_dev, dev);
}

static struct kt_dev *kt_ib_alloc_dev(const char *name)
{
	struct kt_ib_dev *ib = kzalloc(sizeof(*ib), GFP_KERNEL);

	if (!ib)
		return NULL;
	ib->exclusive = true;
	return &ib->dev;
}

static void kt_ib_free_dev(struct kt_dev *dev)
{
	kfree(to_ib(dev));
}

static int kt_ib_set_param(struct kt_dev *dev, const char *key,
			   const char *value)
{
	if (!strcmp(key, "udev_path")) {
		if (value[0] != '/' || strlen(value) >= sizeof(dev->udev_path))
			return -EINVAL;
		strscpy(dev->udev_path, value, sizeof(dev->udev_path));
		return 0;
	}
	if (!strcmp(key, "readonly"))
		return kstrtobool(value, &to_ib(dev)->readonly);
	if (!strcmp(key, "exclusive"))
		return kstrtobool(value, &to_ib(dev)->exclusive);
	return -ENOKEY;
}

/*
 * WRITE ATOMIC's limits from @bdev's (as LIO 6.19): the block layer takes
 * one REQ_ATOMIC bio of a whole number of its smallest unit, up to its
 * largest, and the bio carries the command's pages, so no more than one
 * bio holds (BIO_MAX_VECS pages: 1 MiB, a power of two as the units). A
 * device with an atomic boundary keeps writes within one only when each
 * starts at a multiple of the largest unit: that is then the alignment.
 * No ATOMIC BOUNDARY in the CDB is offered (max_with_boundary 0).
 */
static void kt_ib_atomic_limits(struct kt_dev *dev, struct block_device *bdev)
{
	struct kt_dev_attrib *a = &dev->attrib;
	u32 bs = a->hw_block_size, unit_min, unit_max, boundary;

	kt_bdev_atomic_limits(bdev, &unit_min, &unit_max, &boundary);
	unit_max = min_t(u32, unit_max, BIO_MAX_VECS * PAGE_SIZE);
	a->atomic_max_len = 0;
	a->atomic_alignment = 0;
	a->atomic_granularity = 0;
	a->atomic_max_with_boundary = 0;
	a->atomic_max_boundary = 0;
	if (unit_min < bs || unit_max < unit_min)
		return;
	a->atomic_max_len = unit_max / bs;
	a->atomic_granularity = unit_min / bs;
	a->atomic_alignment = (boundary ? unit_max : unit_min) / bs;
}

static int kt_ib_enable(struct kt_dev *dev)
{
	struct kt_ib_dev *ib = to_ib(dev);
	const char *name = config_item_name(&dev->group.cg_item);
	struct block_device *bdev;

	if (!dev->udev_path[0]) {
		pr_warn_ratelimited("%s: set udev_path= through control before enabling\n",
				    name);
		return -EINVAL;
	}
	bdev = kt_bdev_open(&ib->handle, dev->udev_path, !ib->readonly,
			    ib->exclusive ? ib : NULL);
	if (IS_ERR(bdev)) {
		pr_warn_ratelimited("%s: cannot open %s: %pe\n", name,
				    dev->udev_path, bdev);
		return PTR_ERR(bdev);
	}
	ib->bdev = bdev;
	dev->attrib.hw_block_size = bdev_logical_block_size(bdev);
	dev->attrib.block_size = dev->attrib.hw_block_size;
	/*
	 * MAXIMUM TRANSFER LENGTH bounds the buffer one command holds: 4 MiB,
	 * as rd and fileio. kt_ib_rw() builds as many bios as it needs, and
	 * the block layer splits them to the queue's own limits (a brd
	 * ramdisk's are 255 sectors).
	 */
	dev->attrib.hw_max_sectors = SZ_4M / dev->attrib.hw_block_size;
	dev->attrib.hw_queue_depth = 128;
	dev->attrib.is_nonrot = bdev_nonrot(bdev);
	/* a volatile cache below is the LU's: WCE=1, flushed on request */
	if (bdev_write_cache(bdev))
		dev->attrib.emulate_write_cache = 1;
	dev->nr_blocks = div_u64(bdev_nr_bytes(bdev), dev->attrib.hw_block_size);
	kt_ib_atomic_limits(dev, bdev);
	dev->attrib.hw_pi_prot_type = kt_bdev_pi_type(bdev);
	/* a CD/DVD LU has no PI (configfs/dev_attrib.c kt_cdrom_busy()) */
	dev->attrib.pi_prot_type = dev->attrib.emulate_cdrom ? 0 :
				   dev->attrib.hw_pi_prot_type;
	dev->attrib.pi_prot_verify = !!dev->attrib.pi_prot_type;
	if (dev->attrib.hw_pi_prot_type)
		pr_info("%s: %s keeps T10-PI of type %u: the LU has it too\n",
			name, dev->udev_path, dev->attrib.hw_pi_prot_type);
	return 0;
}

static void kt_ib_disable(struct kt_dev *dev)
{
	struct kt_ib_dev *ib = to_ib(dev);

	kt_bdev_close(&ib->handle);
	ib->bdev = NULL;
	dev->attrib.atomic_max_len = 0;
	dev->attrib.hw_pi_prot_type = 0;
	dev->attrib.pi_prot_type = 0;
	dev->attrib.pi_prot_verify = 0;
}

/*
 * WCE=0 promises that a completed write is on stable storage: where the
 * device below caches writes, each write goes through it (FUA) and zeroing
 * is followed by a flush.
 */
static bool kt_ib_writes_through(struct kt_dev *dev)
{
	return !READ_ONCE(dev->attrib.emulate_write_cache) &&
	       bdev_write_cache(to_ib(dev)->bdev);
}

/*
 * The command's bios are done: a read whose tuples came up into the
 * fabric's list has them checked as RDPROTECT says.
 */
/*
 * Copy @len bytes from @src to @dst, one of which holds whole pages
 * (sgl_alloc()'s): a page at a time, mapped atomically, so a bio's
 * completion may call it.
 */
static void kt_ib_copy_sgl(struct scatterlist *dst, unsigned int dst_nents,
			   struct scatterlist *src, unsigned int src_nents,
			   u32 len)
{
	struct sg_mapping_iter m;
	u32 off = 0;

	sg_miter_start(&m, dst, dst_nents, SG_MITER_ATOMIC | SG_MITER_TO_SG);
	while (off < len && sg_miter_next(&m)) {
		size_t n = min_t(size_t, m.length, len - off);

		sg_pcopy_to_buffer(src, src_nents, m.addr, n, off);
		off += n;
	}
	sg_miter_stop(&m);
}

/*
 * Whether every piece of the command's first @len bytes starts and ends
 * where @bdev's DMA alignment lets a bio carry it. A fabric's own buffer
 * (a loopback initiator's O_DIRECT buffer, which the SCSI midlayer lets
 * start at any 4 bytes) may not: a device that needs whole sectors would
 * read or write the wrong bytes of such a piece.
 */
static bool kt_ib_sgl_aligned(struct kt_cmd *cmd, struct block_device *bdev,
			      u32 len)
{
	unsigned int mask = bdev_dma_alignment(bdev);
	struct scatterlist *sg;
	u32 done = 0, n;
	unsigned int i;

	for_each_sg(cmd->sgl, sg, cmd->sg_nents, i) {
		n = min(sg->length, len - done);
		if (!n)
			break;
		if ((sg->offset | n) & mask)
			return false;
		done += n;
	}
	return true;
}

static void kt_ib_done(struct kt_cmd *cmd)
{
	sense_reason_t reason = READ_ONCE(cmd->be.bio.reason);
	struct scatterlist *bounce = cmd->be.bio.bounce;

	if (bounce) {
		if (!reason && !cmd->be.bio.write)
			kt_ib_copy_sgl(cmd->sgl, cmd->sg_nents, bounce,
				       cmd->be.bio.bounce_nents, cmd->be.bio.len);
		cmd->be.bio.bounce = NULL;
		sgl_free(bounce);
	}
	if (!reason && cmd->protect && cmd->prot_sgl &&
	    cmd->be.bio.len && !cmd->be.bio.write)
		reason = kt_pi_check_carried(cmd, cmd->be.bio.len);
	kt_be_done(cmd, reason);
}

/*
 * The bytes [@off, @off + @len) of the fabric's PI list, the tuples of the
 * blocks of @bio, as its integrity payload (seeded with its first block,
 * which the block layer maps to the device's LBA for type 1).
 */
static int kt_ib_bio_add_pi(struct kt_cmd *cmd, struct bio *bio, u32 off,
			    u32 len)
{
	struct bio_integrity_payload *bip;
	struct scatterlist *sg;
	unsigned int i, pieces = 0;
	u32 skip, at, n, total;

	/* the pages of the list that the bytes lie in */
	for (skip = off, at = 0, i = 0, sg = cmd->prot_sgl;
	     sg && i < cmd->prot_nents && at < off + len; sg = sg_next(sg), i++) {
		u32 from = max(at, off), to = min(at + sg->length, off + len);

		if (from < to)
			pieces += DIV_ROUND_UP(offset_in_page(sg->offset + from - at) +
					       to - from, PAGE_SIZE);
		at += sg->length;
	}
	bip = bio_integrity_alloc(bio, GFP_NOIO, max(pieces, 1U));
	if (IS_ERR_OR_NULL(bip))
		return -ENOMEM;
	/*
	 * The payload's size: 6.1's bio_integrity_add_page() does not count
	 * it (the caller does, as bio_integrity_prep() there); later kernels
	 * count it themselves, to the same total
	 */
	total = len;
	bip_set_seed(bip, div_u64((u64)bio->bi_iter.bi_sector << SECTOR_SHIFT,
				  cmd->dev->attrib.block_size));
	for_each_sg(cmd->prot_sgl, sg, cmd->prot_nents, i) {
		if (!len)
			break;
		if (skip >= sg->length) {
			skip -= sg->length;
			continue;
		}
		while (skip < sg->length && len) {
			u32 pos = sg->offset + skip;

			n = min3(sg->length - skip, len,
				 (u32)(PAGE_SIZE - offset_in_page(pos)));
			if (bio_integrity_add_page(bio, nth_page(sg_page(sg),
								 pos >> PAGE_SHIFT),
						   n, offset_in_page(pos)) != n)
				return -EIO;
			skip += n;
			len -= n;
		}
		skip = 0;
	}
	if (len)
		return -EIO;
	bip->bip_iter.bi_size = total;
	return 0;
}

/*
 * The last bio of a command completes it, with what a failed one said:
 * thin storage (dm-thin) out of space, or the read or write that failed.
 */
static void kt_ib_end_io(struct bio *bio)
{
	struct kt_cmd *cmd = bio->bi_private;

	if (bio->bi_status == BLK_STS_NOSPC)
		WRITE_ONCE(cmd->be.bio.reason, KT_SENSE_SPACE_ALLOC_FAILED);
	else if (bio->bi_status == BLK_STS_PROTECTION)
		WRITE_ONCE(cmd->be.bio.reason, KT_SENSE_PI_GUARD);
	else if (bio->bi_status)
		WRITE_ONCE(cmd->be.bio.reason, op_is_write(bio_op(bio)) ?
			   KT_SENSE_WRITE_ERROR : KT_SENSE_MEDIUM_ERROR);
	bio_put(bio);
	if (atomic_dec_and_test(&cmd->be.bio.pending))
		kt_ib_done(cmd);
}

/*
 * Whether the first @len bytes of the command's pages go down as one bio
 * the device takes whole: no more entries than a bio holds, every entry
 * but the first starting at a page's start and every one but the last
 * ending at a page's end (a device with an SG gap limit, NVMe's virtual
 * boundary, would split the bio at any other seam).
 */
static bool kt_ib_sgl_is_one_bio(struct kt_cmd *cmd, u32 len)
{
	struct scatterlist *sg;
	u32 done = 0, n;
	unsigned int i;

	if (cmd->sg_nents > BIO_MAX_VECS)
		return false;
	for_each_sg(cmd->sgl, sg, cmd->sg_nents, i) {
		n = min(sg->length, len - done);
		if (!n)
			break;
		if (i && offset_in_page(sg->offset))
			return false;
		done += n;
		if (done < len && offset_in_page(sg->offset + n))
			return false;
	}
	return true;
}

static void kt_ib_bounce_end_io(struct bio *bio)
{
	bio_free_pages(bio);
	kt_ib_end_io(bio);
}

/*
 * A fabric's own scatterlist (a loopback or vhost initiator's buffer) may
 * come in pieces no single bio can carry: its bytes are copied into whole
 * pages of a bio of their own, at most BIO_MAX_VECS of them since the
 * limits cap a WRITE ATOMIC there.
 */
static struct bio *kt_ib_bounce_bio(struct kt_cmd *cmd, struct block_device *bdev,
				    blk_opf_t opf, u32 len)
{
	unsigned int nr = DIV_ROUND_UP(len, PAGE_SIZE), i;
	struct bio *bio;

	if (nr > BIO_MAX_VECS)
		return NULL;
	bio = bio_alloc(bdev, nr, opf, GFP_NOIO);
	for (i = 0; i < nr; i++) {
		u32 n = min_t(u32, PAGE_SIZE, len - i * PAGE_SIZE);
		struct page *page = alloc_page(GFP_NOIO | __GFP_ZERO);

		if (!page) {
			bio_free_pages(bio);
			bio_put(bio);
			return NULL;
		}
		sg_pcopy_to_buffer(cmd->sgl, cmd->sg_nents, page_address(page),
				   n, (size_t)i * PAGE_SIZE);
		__bio_add_page(bio, page, n, 0);
	}
	bio->bi_end_io = kt_ib_bounce_end_io;
	return bio;
}

/*
 * WRITE ATOMIC: the whole command as one bio with REQ_ATOMIC, which the
 * device writes whole or not at all. The core checked it against the
 * limits kt_ib_atomic_limits() set; pages that cannot make that one bio
 * as they are go down copied (kt_ib_bounce_bio()).
 */
static void kt_ib_write_atomic(struct kt_cmd *cmd, blk_opf_t opf, u64 pos,
			       u32 len)
{
	struct kt_ib_dev *ib = to_ib(cmd->dev);
	struct scatterlist *sg;
	struct bio *bio;
	u32 done = 0, n;
	unsigned int i;

	opf |= KT_REQ_ATOMIC;
	if (!kt_ib_sgl_is_one_bio(cmd, len) ||
	    !kt_ib_sgl_aligned(cmd, ib->bdev, len)) {
		bio = kt_ib_bounce_bio(cmd, ib->bdev, opf, len);
		if (!bio) {
			pr_warn_ratelimited("%s: no memory to copy a WRITE ATOMIC of %u bytes in %u pieces into one bio\n",
					    config_item_name(&cmd->dev->group.cg_item),
					    len, cmd->sg_nents);
			kt_be_done(cmd, KT_SENSE_OUT_OF_RESOURCES);
			return;
		}
	} else {
		bio = bio_alloc(ib->bdev, cmd->sg_nents, opf, GFP_NOIO);
		for_each_sg(cmd->sgl, sg, cmd->sg_nents, i) {
			n = min(sg->length, len - done);
			if (!n)
				break;
			__bio_add_page(bio, sg_page(sg), n, sg->offset);
			done += n;
		}
		bio->bi_end_io = kt_ib_end_io;
	}
	bio->bi_iter.bi_sector = pos >> SECTOR_SHIFT;
	bio->bi_private = cmd;
	atomic_set(&cmd->be.bio.pending, 1);
	cmd->be.bio.reason = KT_SENSE_NONE;
	cmd->be.bio.bounce = NULL;
	submit_bio(bio);
}

/*
 * Send @bio of a command whose data starts at byte @pos of the device,
 * with its blocks' tuples where the fabric carried them.
 */
static void kt_ib_submit(struct kt_cmd *cmd, struct bio *bio, u64 pos)
{
	u32 bs = cmd->dev->attrib.block_size;
	u32 off = ((u64)bio->bi_iter.bi_sector << SECTOR_SHIFT) - pos;

	if (cmd->protect && cmd->prot_sgl &&
	    (bio->bi_iter.bi_size % bs || off % bs ||
	     kt_ib_bio_add_pi(cmd, bio, off / bs * KT_PI_TUPLE_LEN,
			      bio->bi_iter.bi_size / bs * KT_PI_TUPLE_LEN))) {
		pr_warn_ratelimited("device %u: the PI of %u bytes at %llu does not fit a bio\n",
				    cmd->dev->index, bio->bi_iter.bi_size,
				    pos + off);
		bio->bi_status = BLK_STS_IOERR;
		bio_endio(bio);
		return;
	}
	submit_bio(bio);
}

/*
 * Put the command's pages from @*sg (@*skip bytes into it) into @bio, as
 * many as it holds, and up to @left bytes. When the bio fills before the
 * end, it is cut back to the last whole block: a fabric's pieces (a
 * loopback initiator's buffer 512 bytes into a page, say) need not end on
 * a block of the device, yet each bio must, or the device refuses it and
 * a block's PI would be split. Moves @*sg / @*skip past what the bio took;
 * returns its bytes (0: not one block fitted).
 */
static u32 kt_ib_fill_bio(struct bio *bio, struct scatterlist **sg, u32 *skip,
			  u32 left, u32 bs)
{
	struct scatterlist *s = *sg;
	u32 off = *skip, took = 0, n;

	while (s && took < left) {
		n = min(s->length - off, left - took);
		if (!bio_add_page(bio, sg_page(s), n, s->offset + off))
			break;
		took += n;
		off += n;
		if (off == s->length) {
			s = sg_next(s);
			off = 0;
		}
	}
	if (took < left && took % bs) {
		took = rounddown(took, bs);
		if (!took)
			return 0;
		bio_trim(bio, 0, took >> SECTOR_SHIFT);
	}
	/* move past the bytes taken, from where this bio began */
	for (n = took; n; ) {
		u32 m = min((*sg)->length - *skip, n);

		n -= m;
		*skip += m;
		if (*skip == (*sg)->length) {
			*sg = sg_next(*sg);
			*skip = 0;
		}
	}
	return took;
}

static void kt_ib_rw(struct kt_cmd *cmd, bool write, u64 pos, u32 len,
		     bool fua)
{
	struct kt_ib_dev *ib = to_ib(cmd->dev);
	blk_opf_t opf = write ? REQ_OP_WRITE | (fua ? REQ_FUA : 0) : REQ_OP_READ;
	u32 bs = cmd->dev->attrib.block_size;
	struct scatterlist *sg = cmd->sgl;
	u64 end = bdev_nr_bytes(ib->bdev);
	u32 done = 0, skip = 0, took;
	unsigned int nents;
	struct bio *bio;

	if (write && ib->readonly) {
		kt_be_done(cmd, KT_SENSE_WRITE_PROTECTED);
		return;
	}
	/* the device shrunk since the command's range was checked */
	if (pos + len > end) {
		cmd->sense_info = div_u64(max(pos, end),
					  cmd->dev->attrib.block_size);
		cmd->sense_info_valid = true;
		kt_be_done(cmd, KT_SENSE_LBA_OUT_OF_RANGE);
		return;
	}
	if (write && kt_ib_writes_through(cmd->dev))
		opf |= REQ_FUA;
	if (write && cmd->be_atomic) {
		kt_ib_write_atomic(cmd, opf, pos, len);
		return;
	}
	/* one reference held while bios are built, dropped at the end */
	atomic_set(&cmd->be.bio.pending, 1);
	cmd->be.bio.reason = KT_SENSE_NONE;
	cmd->be.bio.len = len;
	cmd->be.bio.write = write;
	cmd->be.bio.bounce = NULL;
	nents = cmd->sg_nents;
	if (!kt_ib_sgl_aligned(cmd, ib->bdev, len)) {
		sg = sgl_alloc(len, GFP_NOIO, &nents);
		if (!sg) {
			pr_warn_ratelimited("device %u: no memory to copy %u bytes the device cannot take as they lie\n",
					    cmd->dev->index, len);
			kt_be_done(cmd, KT_SENSE_OUT_OF_RESOURCES);
			return;
		}
		if (write)
			kt_ib_copy_sgl(sg, nents, cmd->sgl, cmd->sg_nents, len);
		cmd->be.bio.bounce = sg;
		cmd->be.bio.bounce_nents = nents;
	}
	while (done < len) {
		bio = bio_alloc(ib->bdev, bio_max_segs(nents), opf, GFP_NOIO);
		bio->bi_iter.bi_sector = (pos + done) >> SECTOR_SHIFT;
		bio->bi_private = cmd;
		bio->bi_end_io = kt_ib_end_io;
		atomic_inc(&cmd->be.bio.pending);
		took = kt_ib_fill_bio(bio, &sg, &skip, len - done, bs);
		if (!took) {
			pr_warn_ratelimited("device %u: a block of %u bytes at %llu comes in more pieces than a bio holds\n",
					    cmd->dev->index, bs, pos + done);
			bio->bi_status = BLK_STS_IOERR;
			bio_endio(bio);
			break;
		}
		kt_ib_submit(cmd, bio, pos);
		done += took;
	}
	if (atomic_dec_and_test(&cmd->be.bio.pending))
		kt_ib_done(cmd);
}

static void kt_ib_flush_end_io(struct bio *bio)
{
	struct kt_cmd *cmd = bio->bi_private;
	blk_status_t st = bio->bi_status;

	bio_put(bio);
	kt_be_done(cmd, st ? KT_SENSE_WRITE_ERROR : KT_SENSE_NONE);
}

static void kt_ib_flush(struct kt_cmd *cmd)
{
	struct bio *bio;

	bio = bio_alloc(to_ib(cmd->dev)->bdev, 0, REQ_OP_WRITE | REQ_PREFLUSH,
			GFP_NOIO);
	bio->bi_private = cmd;
	bio->bi_end_io = kt_ib_flush_end_io;
	submit_bio(bio);
}

static sense_reason_t kt_ib_write_zeroes(struct kt_dev *dev, u64 pos, u64 len)
{
	struct block_device *bdev = to_ib(dev)->bdev;
	int ret;

	ret = blkdev_issue_zeroout(bdev, pos >> SECTOR_SHIFT,
				   len >> SECTOR_SHIFT, GFP_KERNEL, 0);
	if (!ret && kt_ib_writes_through(dev))
		ret = blkdev_issue_flush(bdev);
	return ret ? KT_SENSE_WRITE_ERROR : KT_SENSE_NONE;
}

static ssize_t kt_ib_show_info(struct kt_dev *dev, char *page, size_t size)
{
	struct kt_ib_dev *ib = to_ib(dev);

	/* LIO's lines: rtslib reads readonly and exclusive back from them */
	return scnprintf(page, size,
			 "        iBlock device: %pg  UDEV PATH: %s  readonly: %d\n"
			 "  exclusive: %d\n",
			 ib->bdev, dev->udev_path, ib->readonly, ib->exclusive);
}

static u64 kt_ib_size(struct kt_dev *dev)
{
	return bdev_nr_bytes(to_ib(dev)->bdev);
}

static const struct kt_backend_ops kt_ib_ops = {
	.name		= "iblock",
	.owner		= THIS_MODULE,
	.alloc_dev	= kt_ib_alloc_dev,
	.free_dev	= kt_ib_free_dev,
	.set_param	= kt_ib_set_param,
	.enable		= kt_ib_enable,
	.disable	= kt_ib_disable,
	.size		= kt_ib_size,
	.show_info	= kt_ib_show_info,
	.rw		= kt_ib_rw,
	.flush		= kt_ib_flush,
	.write_zeroes	= kt_ib_write_zeroes,
};

static int __init kt_ib_init(void)
{
	return kt_backend_register(&kt_ib_ops);
}

static void __exit kt_ib_exit(void)
{
	kt_backend_unregister(&kt_ib_ops);
}

module_init(kt_ib_init);
module_exit(kt_ib_exit);

MODULE_DESCRIPTION("ktarget block device backstore (iblock)");
MODULE_VERSION(KT_VERSION);
MODULE_LICENSE("GPL");
MODULE_ALIAS("ktarget-backend-iblock");
