// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: the block command set (SBC-3) on the data path: range
 * checks, then a backstore call. The backstore sees bytes, never a CDB.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/unaligned.h>

#include <ktarget/backend.h>
#include <ktarget/fabric.h>
#include <ktarget/proto/cdb.h>
#include <ktarget/proto/pi.h>
#include <ktarget/proto/spc.h>

#include "cmdsets.h"
#include "copy/rod_watch.h"
#include "core.h"

/*
 * The later steps of multi-step commands (COMPARE AND WRITE, ORWRITE,
 * WRITE SAME) and zeroing: I/O the data path depends on, with a rescuer.
 */
static struct workqueue_struct *kt_sbc_wq;

int kt_sbc_init(void)
{
	kt_sbc_wq = alloc_workqueue("kt_sbc", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return kt_sbc_wq ? 0 : -ENOMEM;
}

void kt_sbc_exit(void)
{
	destroy_workqueue(kt_sbc_wq);
}

/*
 * What reaches the backstore of a command that moves cmd->data_length
 * bytes. An overflowing initiator expects less than the CDB asks for
 * (cmd.c), maybe part of a block, and backstores move whole blocks: a write
 * stores only the whole blocks it was sent; a read reads the partial block
 * whole into the room its last page has, and the fabric sends what was
 * asked for. Where there is no such room (or the buffer is the fabric's)
 * the read stops at the last whole block.
 */
static u32 kt_sbc_backend_len(struct kt_cmd *cmd, bool write)
{
	u32 bs = cmd->dev->attrib.block_size, len = cmd->data_length;
	struct scatterlist *last;
	u32 extra = roundup(len, bs) - len;

	/* the core's data list, the tuples apart (pi_wire.c) */
	if (cmd->pi_wire_sgl)
		return cmd->prot_len / KT_PI_TUPLE_LEN * bs;
	if (!extra)
		return len;
	/* the fabric's buffer may share its last page: that room is not ours */
	last = sg_last(cmd->sgl, cmd->sg_nents);
	if (write || cmd->fabric_sgl ||
	    last->offset + last->length + extra > PAGE_SIZE)
		return rounddown(len, bs);
	last->length += extra;
	return len + extra;
}

/*
 * The backstore is done with a command whose PI the core handles here: a
 * read's tuples made where they are only the fabric's (as decided when it
 * started: a FORMAT UNIT may have changed the LU since), then the fabric's
 * interleaved buffer back (a read's filled). From a work item: both walk
 * the whole buffer, which the end of a bio must not do.
 */
static void kt_sbc_rw_pi_work(struct work_struct *work)
{
	struct kt_cmd *cmd = container_of(work, struct kt_cmd, work);
	bool write = cmd->cdb_flags & KT_CDB_F_DATA_OUT;
	u32 bs = cmd->dev->attrib.block_size;
	sense_reason_t reason = cmd->loop_reason;

	if (!reason && cmd->pi_insert)
		reason = kt_pi_insert(cmd, cmd->pi_wire_sgl ?
				      cmd->prot_len / KT_PI_TUPLE_LEN * bs :
				      rounddown(cmd->data_length, bs));
	reason = kt_pi_wire_join(cmd, !reason && !write) ?: reason;
	kt_cmd_be_complete(cmd, reason);
}

static void kt_sbc_rw_pi_done(struct kt_cmd *cmd, sense_reason_t reason)
{
	cmd->loop_reason = reason;
	INIT_WORK(&cmd->work, kt_sbc_rw_pi_work);
	queue_work(kt_sbc_wq, &cmd->work);
}

static void kt_sbc_execute_rw(struct kt_cmd *cmd)
{
	struct kt_dev *dev = cmd->dev;
	bool write = cmd->cdb_flags & KT_CDB_F_DATA_OUT;
	/*
	 * FUA got here only where it is accepted (DPOFUA offered, or the write
	 * cache off): honour it, whatever WCE says by now.
	 */
	bool fua = cmd->cdb_flags & KT_CDB_F_FUA;
	sense_reason_t reason;
	u32 len;

	/* PI in the fabric's buffer after each block: lists of the core's */
	if (cmd->pi_interleaved && cmd->data_length) {
		reason = kt_pi_wire_split(cmd, cmd->data_length /
					  (dev->attrib.block_size +
					   KT_PI_TUPLE_LEN), write);
		if (reason) {
			kt_cmd_complete(cmd, reason);
			return;
		}
	}
	len = kt_sbc_backend_len(cmd, write);
	/*
	 * A read of part of a block into the fabric's buffer fills only the
	 * whole blocks: the residual says the rest was not sent.
	 */
	if (!write && len < cmd->data_length && !cmd->pi_wire_sgl)
		kt_cmd_set_data_in_len(cmd, len);
	if (!len) {
		kt_pi_wire_join(cmd, false);
		kt_cmd_complete(cmd, KT_SENSE_NONE);
		return;
	}
	/* WRPROTECT: the initiator's PI is checked before any of it goes down */
	if (write && cmd->protect && cmd->prot_sgl) {
		reason = kt_pi_check_carried(cmd, len);
		if (reason) {
			kt_pi_wire_join(cmd, false);
			kt_cmd_complete(cmd, reason);
			return;
		}
	}
	/*
	 * PI the fabric shows on a LU that keeps none: a write's was checked
	 * and is dropped, a read's is made once the data is up; the backstore
	 * moves the data alone
	 */
	if (cmd->protect && kt_cmd_pi_fabric_only(cmd)) {
		cmd->protect = 0;
		cmd->pi_insert = !write && cmd->prot_sgl;
	}
	if (cmd->pi_insert || cmd->pi_wire_sgl)
		cmd->be_done = kt_sbc_rw_pi_done;
	/* the core's own buffer, and nothing reads it once it is written */
	cmd->be_take_pages = write && cmd->sgl_owned &&
			     cmd->sgl == cmd->data_sgl;
	kt_be_rw(cmd, write, cmd->lba * dev->attrib.block_size, len, fua);
}

static void kt_sbc_execute_sync(struct kt_cmd *cmd)
{
	if (cmd->dev->ops->flush) {
		kt_be_flush(cmd);
		return;
	}
	kt_cmd_complete(cmd, KT_SENSE_NONE);
}

/* Capacity in logical blocks: the backstore counts in hw blocks. */
u64 kt_dev_nr_lblocks(struct kt_dev *dev)
{
	/* kt_dev_size_sync() may change it under us */
	return div_u64(READ_ONCE(dev->nr_blocks) * dev->attrib.hw_block_size,
		       dev->attrib.block_size);
}

/*
 * MAXIMUM TRANSFER LENGTH of the Block Limits page, in logical blocks: at
 * least one, since 0 would say there is no limit at all.
 */
u32 kt_dev_max_xfer_blocks(const struct kt_dev *dev)
{
	const struct kt_dev_attrib *a = &dev->attrib;

	return max_t(u64, (u64)a->hw_max_sectors * a->hw_block_size /
			  a->block_size, 1);
}

/*
 * A command that reads the capacity or reaches beyond it looks again
 * (kt_dev_size_sync()): the storage may have grown since the last command.
 * At parse (kt_sbc_range()), before the gates' look, @self is true: this
 * nexus too hears CAPACITY DATA HAS CHANGED, from the gates, in place of
 * the command. READ CAPACITY, past the gates, reports the new capacity
 * itself and tells only the others. Whether it changed.
 */
bool kt_dev_capacity_check(struct kt_cmd *cmd, bool self)
{
	return kt_dev_size_sync(cmd->dev, self ? KT_UA_ALL : KT_UA_OTHERS,
				cmd->sess);
}

static void kt_sbc_execute_good(struct kt_cmd *cmd)
{
	kt_cmd_complete(cmd, KT_SENSE_NONE);
}

/* ---- VERIFY with BYTCHK: read the range, compare with the data-out ---- */

/* A place in a scatterlist: @off bytes into entry @sg */
struct kt_sbc_sg_pos {
	struct scatterlist	*sg;
	u32			off;
};

/*
 * The bytes at @p that one mapping reaches (to the end of their page and
 * of their entry), their page and offset in it; 0 at the list's end.
 */
static u32 kt_sbc_sg_run(struct kt_sbc_sg_pos *p, struct page **page,
			 u32 *in_page)
{
	u32 pos;

	while (p->sg && p->off == p->sg->length) {
		p->sg = sg_next(p->sg);
		p->off = 0;
	}
	if (!p->sg)
		return 0;
	pos = p->sg->offset + p->off;
	*page = nth_page(sg_page(p->sg), pos >> PAGE_SHIFT);
	*in_page = offset_in_page(pos);
	return min_t(u32, p->sg->length - p->off, PAGE_SIZE - *in_page);
}

/*
 * Walk the first @len bytes of two lists side by side, whatever the
 * lengths of their entries: one may be the fabric's own buffer (a SCSI
 * host's scatterlist), the other the core's whole pages. @step sees each
 * run of bytes that lies in one page of each, @off into the lists, and
 * returns false to stop there; it may write to @a's bytes. Each step maps
 * its two pages and unmaps them, in the reverse order, before the next:
 * any context (a backstore's completion calls it).
 */
static void kt_sbc_sg_pair(struct scatterlist *a, struct scatterlist *b,
			   u32 len,
			   bool (*step)(u8 *pa, const u8 *pb, u32 n, u32 off,
					void *arg),
			   void *arg)
{
	struct kt_sbc_sg_pos pa = { .sg = a }, pb = { .sg = b };
	struct page *page_a, *page_b;
	u32 in_a, in_b, off = 0, n;
	bool more;
	u8 *va, *vb;

	while (off < len) {
		n = min(kt_sbc_sg_run(&pa, &page_a, &in_a),
			kt_sbc_sg_run(&pb, &page_b, &in_b));
		n = min(n, len - off);
		if (!n)
			break;
		va = kmap_local_page(page_a);
		vb = kmap_local_page(page_b);
		more = step(va + in_a, vb + in_b, n, off, arg);
		kunmap_local(vb);
		flush_dcache_page(page_a);
		kunmap_local(va);
		if (!more)
			break;
		pa.off += n;
		pb.off += n;
		off += n;
	}
}

static bool kt_sbc_compare_step(u8 *pa, const u8 *pb, u32 n, u32 off,
				void *arg)
{
	struct kt_cmd *cmd = arg;
	u32 i;

	if (!memcmp(pa, pb, n))
		return true;
	for (i = 0; pa[i] == pb[i]; i++)
		;
	cmd->sense_info = off + i;
	cmd->sense_info_valid = true;
	return false;
}

/*
 * Compare the first @len bytes of two lists. On a difference, record its
 * offset as the sense INFORMATION (SBC-3 5.33, 5.2).
 */
static sense_reason_t kt_sbc_compare(struct kt_cmd *cmd, struct scatterlist *a,
				     struct scatterlist *b, u32 len)
{
	cmd->sense_info_valid = false;
	kt_sbc_sg_pair(a, b, len, kt_sbc_compare_step, cmd);
	return cmd->sense_info_valid ? KT_SENSE_MISCOMPARE : KT_SENSE_NONE;
}

/* After the read: cmd->sgl holds the medium, aux_sgl the initiator's data. */
static void kt_sbc_verify_done(struct kt_cmd *cmd, sense_reason_t reason)
{
	if (!reason)
		reason = kt_sbc_compare(cmd, cmd->sgl, cmd->aux_sgl,
					cmd->data_length);
	kt_cmd_be_complete(cmd, reason);
}

/*
 * COMPARE AND WRITE (SBC-3 5.2): read N blocks, compare with the first half
 * of the data-out, write the second half. One at a time per device.
 */
static void kt_sbc_rmw_unlock(struct kt_dev *dev)
{
	kt_cluster_rmw_unlock(dev);
	up(&dev->state->caw_sem);
}

static void kt_sbc_caw_write_done(struct kt_cmd *cmd, sense_reason_t reason)
{
	kt_sbc_rmw_unlock(cmd->dev);
	kt_cmd_be_complete(cmd, reason);
}

static void kt_sbc_caw_compare(struct kt_cmd *cmd, sense_reason_t reason)
{
	struct kt_dev *dev = cmd->dev;
	u32 half = cmd->nr_blocks * dev->attrib.block_size;
	u8 *buf;

	if (!reason)
		reason = kt_sbc_compare(cmd, cmd->sgl, cmd->aux_sgl, half);
	if (!reason) {
		/* the write half goes into the read buffer, which is N blocks */
		buf = kmalloc(half, GFP_KERNEL);
		if (!buf) {
			reason = KT_SENSE_OUT_OF_RESOURCES;
		} else {
			sg_pcopy_to_buffer(cmd->aux_sgl, cmd->aux_nents, buf, half, half);
			sg_copy_from_buffer(cmd->sgl, cmd->sg_nents, buf, half);
			kfree(buf);
		}
	}
	if (reason) {
		kt_sbc_rmw_unlock(dev);
		kt_cmd_be_complete(cmd, reason);
		return;
	}
	cmd->be_done = kt_sbc_caw_write_done;
	kt_be_rw(cmd, true, cmd->lba * dev->attrib.block_size, half,
		 cmd->cdb_flags & KT_CDB_F_FUA);
}

/*
 * ORWRITE (16) (SBC-3 5.8): read N blocks, OR the data-out into them, write
 * them back; serialised with COMPARE AND WRITE on the device's semaphore.
 */
static bool kt_sbc_or_step(u8 *pa, const u8 *pb, u32 n, u32 off, void *arg)
{
	u32 i;

	for (i = 0; i < n; i++)
		pa[i] |= pb[i];
	return true;
}

static void kt_sbc_orwrite_merge(struct kt_cmd *cmd, sense_reason_t reason)
{
	struct kt_dev *dev = cmd->dev;
	u32 len = cmd->data_length;

	/* the medium, read into cmd->sgl, takes the data-out in */
	if (!reason)
		kt_sbc_sg_pair(cmd->sgl, cmd->aux_sgl, len, kt_sbc_or_step,
			       NULL);
	if (reason) {
		kt_sbc_rmw_unlock(dev);
		kt_cmd_be_complete(cmd, reason);
		return;
	}
	cmd->be_done = kt_sbc_caw_write_done;
	kt_be_rw(cmd, true, cmd->lba * dev->attrib.block_size, len,
		 cmd->cdb_flags & KT_CDB_F_FUA);
}

/*
 * The read-modify-write commands share their first step: the data-out
 * moves aside to aux_sgl, @len bytes of the medium are read into a list of
 * their own, under the device's semaphore. The read may end in a bio's
 * interrupt: the compare or merge and the write start from a work item,
 * the one @next names.
 */
static void kt_sbc_caw_work(struct work_struct *work)
{
	struct kt_cmd *cmd = container_of(work, struct kt_cmd, work);
	unsigned int noio = memalloc_noio_save();	/* see kt_sbc_ws_work() */

	kt_sbc_caw_compare(cmd, cmd->loop_reason);
	memalloc_noio_restore(noio);
}

static void kt_sbc_orwrite_work(struct work_struct *work)
{
	struct kt_cmd *cmd = container_of(work, struct kt_cmd, work);
	unsigned int noio = memalloc_noio_save();	/* see kt_sbc_ws_work() */

	kt_sbc_orwrite_merge(cmd, cmd->loop_reason);
	memalloc_noio_restore(noio);
}

static void kt_sbc_rmw_read_done(struct kt_cmd *cmd, sense_reason_t reason)
{
	cmd->loop_reason = reason;
	queue_work(kt_sbc_wq, &cmd->work);
}

static void kt_sbc_rmw_start(struct kt_cmd *cmd, u32 len, work_func_t next)
{
	struct kt_dev *dev = cmd->dev;

	cmd->aux_sgl = sgl_alloc(len, GFP_KERNEL, &cmd->aux_nents);
	if (!cmd->aux_sgl) {
		kt_cmd_complete(cmd, KT_SENSE_OUT_OF_RESOURCES);
		return;
	}
	swap(cmd->sgl, cmd->aux_sgl);
	swap(cmd->sg_nents, cmd->aux_nents);
	if (down_interruptible(&dev->state->caw_sem)) {
		kt_cmd_complete(cmd, KT_SENSE_OUT_OF_RESOURCES);
		return;
	}
	/* with cluster mode on: and on every other node */
	if (kt_cluster_rmw_lock(dev)) {
		up(&dev->state->caw_sem);
		cmd->sense_asc_ascq = KT_ASC_NOT_READY_UNAVAILABLE;
		kt_cmd_complete(cmd, KT_SENSE_NOT_READY);
		return;
	}
	INIT_WORK(&cmd->work, next);
	cmd->be_done = kt_sbc_rmw_read_done;
	kt_be_rw(cmd, false, cmd->lba * dev->attrib.block_size, len, false);
}

static void kt_sbc_execute_caw(struct kt_cmd *cmd)
{
	/* cluster mode: its lock may wait for the other nodes */
	if (kt_cluster_defer(cmd))
		return;
	kt_sbc_rmw_start(cmd, cmd->nr_blocks * cmd->dev->attrib.block_size,
			 kt_sbc_caw_work);
}

static void kt_sbc_execute_orwrite(struct kt_cmd *cmd)
{
	if (kt_cluster_defer(cmd))
		return;
	kt_sbc_rmw_start(cmd, cmd->data_length, kt_sbc_orwrite_work);
}

static void kt_sbc_execute_verify(struct kt_cmd *cmd)
{
	struct kt_dev *dev = cmd->dev;

	cmd->aux_sgl = sgl_alloc(cmd->data_length, GFP_KERNEL, &cmd->aux_nents);
	if (!cmd->aux_sgl) {
		kt_cmd_complete(cmd, KT_SENSE_OUT_OF_RESOURCES);
		return;
	}
	/* the initiator's data moves aside; the medium is read into sgl */
	swap(cmd->sgl, cmd->aux_sgl);
	swap(cmd->sg_nents, cmd->aux_nents);
	cmd->be_done = kt_sbc_verify_done;
	kt_be_rw(cmd, false, cmd->lba * dev->attrib.block_size,
		 kt_sbc_backend_len(cmd, false), false);
}

/* ---- WRITE SAME and UNMAP ---- */

static void kt_sbc_ws_run(struct kt_cmd *cmd);

/*
 * WRITE SAME with WRPROTECT: the initiator's tuple for every block of a
 * chunk, which the backstore stores as it stores a fabric's (prot_sgl).
 */
struct kt_sbc_ws_pi {
	struct scatterlist	sg;
	u32			nr;
	u32			ref0;	/* the reference tag sent, at lba0 */
	u64			lba0;
	bool			all_ff;	/* the tuple sent is FFh bytes only */
	u8			tuples[];
};

static void kt_sbc_ws_pi_free(struct kt_cmd *cmd)
{
	if (!cmd->loop_pi)
		return;
	cmd->prot_sgl = NULL;
	cmd->prot_nents = 0;
	kfree(cmd->loop_pi);
	cmd->loop_pi = NULL;
}

/*
 * SBC-4 5.50: the first block takes the reference tag sent, each after it
 * one more (type 1; modulo 2^32); type 3 keeps the initiator's for all,
 * and a tuple of FFh bytes only is stored as it is for every block.
 */
static void kt_sbc_ws_pi_refs(struct kt_cmd *cmd, u64 pos)
{
	struct kt_sbc_ws_pi *p = cmd->loop_pi;
	u64 lba = div_u64(pos, cmd->dev->attrib.block_size);
	u32 ref = p->ref0 + (u32)(lba - p->lba0), i;

	if (kt_pi_type(cmd->dev) != KT_PI_TYPE1 || p->all_ff)
		return;
	for (i = 0; i < p->nr; i++)
		put_unaligned_be32(ref + i, p->tuples + i * KT_PI_TUPLE_LEN + 4);
}

static void kt_sbc_ws_finish(struct kt_cmd *cmd)
{
	swap(cmd->sgl, cmd->aux_sgl);
	swap(cmd->sg_nents, cmd->aux_nents);
	kt_sbc_ws_pi_free(cmd);
	kt_cmd_complete(cmd, cmd->loop_reason);
}

/*
 * Every work of this file issues backstore I/O and allocates for it: under
 * memalloc_noio, so that reclaim never waits on writeback to a disk whose
 * I/O is this work (a filesystem on a loopback LUN over a fileio file).
 */
static void kt_sbc_ws_work(struct work_struct *work)
{
	unsigned int noio = memalloc_noio_save();

	kt_sbc_ws_run(container_of(work, struct kt_cmd, work));
	memalloc_noio_restore(noio);
}

/*
 * A chunk is written. loop_state: 1 while kt_sbc_ws_run() is issuing,
 * 2 when the chunk completed inside that call (the loop goes on), 0 when
 * the issuer has returned (a work item goes on: bios end in interrupt).
 */
static void kt_sbc_ws_step(struct kt_cmd *cmd, sense_reason_t reason)
{
	if (reason)
		cmd->loop_reason = reason;
	if (atomic_xchg(&cmd->loop_state, 2) == 1)
		return;
	INIT_WORK(&cmd->work, kt_sbc_ws_work);
	queue_work(kt_sbc_wq, &cmd->work);
}

static void kt_sbc_ws_run(struct kt_cmd *cmd)
{
	u32 chunk = 0;
	struct scatterlist *sg;
	unsigned int i;

	for_each_sg(cmd->sgl, sg, cmd->sg_nents, i)
		chunk += sg->length;

	while (!cmd->loop_reason && cmd->loop_pos < cmd->loop_end) {
		u32 len = min_t(u64, chunk, cmd->loop_end - cmd->loop_pos);
		u64 pos = cmd->loop_pos;

		cmd->loop_pos += len;
		if (cmd->loop_pi)
			kt_sbc_ws_pi_refs(cmd, pos);
		atomic_set(&cmd->loop_state, 1);
		cmd->be_done = kt_sbc_ws_step;
		kt_be_rw(cmd, !cmd->loop_read, pos, len, false);
		if (atomic_xchg(&cmd->loop_state, 0) != 2)
			return;		/* it completes later, in kt_sbc_ws_step() */
	}
	kt_sbc_ws_finish(cmd);
}

#define KT_WS_CHUNK	(1024 * 1024)

/*
 * WRPROTECT: the tuple after the block, checked as the field says against
 * the block and the first LBA, then set up to go with every chunk.
 */
static sense_reason_t kt_sbc_ws_pi_setup(struct kt_cmd *cmd, const u8 *block,
					 u64 pos, u32 chunk)
{
	u32 bs = cmd->dev->attrib.block_size, i;
	u8 type = kt_cmd_pi_type(cmd), tuple[KT_PI_TUPLE_LEN];
	u64 lba = div_u64(pos, bs);
	struct kt_sbc_ws_pi *p;
	sense_reason_t reason;

	sg_pcopy_to_buffer(cmd->sgl, cmd->sg_nents, tuple, sizeof(tuple), bs);
	reason = kt_pi_tuple_check(tuple, type, kt_pi_crc(0, block, bs), lba,
				   kt_pi_protect_checks(type, cmd->protect),
				   0, 0);
	if (reason) {
		cmd->sense_info = lba;
		cmd->sense_info_valid = true;
		pr_warn_ratelimited("device %u: WRITE SAME at LBA %llu: its protection information's %s does not match\n",
				    cmd->dev->index, lba,
				    reason == KT_SENSE_PI_GUARD ? "guard" :
				    "reference tag");
		return reason;
	}
	/* the PI is only the fabric's: checked, and no block keeps it */
	if (kt_cmd_pi_fabric_only(cmd)) {
		cmd->protect = 0;
		return KT_SENSE_NONE;
	}
	p = kmalloc(struct_size(p, tuples, chunk / bs * KT_PI_TUPLE_LEN),
		    GFP_KERNEL);
	if (!p)
		return KT_SENSE_OUT_OF_RESOURCES;
	p->nr = chunk / bs;
	p->ref0 = get_unaligned_be32(tuple + 4);
	p->lba0 = lba;
	p->all_ff = !memchr_inv(tuple, 0xff, sizeof(tuple));
	for (i = 0; i < p->nr; i++)
		memcpy(p->tuples + i * KT_PI_TUPLE_LEN, tuple, sizeof(tuple));
	sg_init_one(&p->sg, p->tuples, p->nr * KT_PI_TUPLE_LEN);
	cmd->loop_pi = p;
	cmd->prot_sgl = &p->sg;
	cmd->prot_nents = 1;
	return KT_SENSE_NONE;
}

static void kt_sbc_ws_pattern(struct kt_cmd *cmd, u64 pos, u64 len)
{
	u32 bs = cmd->dev->attrib.block_size;
	u32 chunk = min_t(u64, len, KT_WS_CHUNK);
	struct sg_mapping_iter m;
	sense_reason_t reason;
	u8 *block;

	block = kmalloc(bs, GFP_KERNEL);
	if (!block) {
		kt_cmd_complete(cmd, KT_SENSE_OUT_OF_RESOURCES);
		return;
	}
	sg_copy_to_buffer(cmd->sgl, cmd->sg_nents, block, bs);
	if (cmd->protect) {
		reason = kt_sbc_ws_pi_setup(cmd, block, pos, chunk);
		if (reason) {
			kfree(block);
			kt_cmd_complete(cmd, reason);
			return;
		}
	}
	cmd->aux_sgl = sgl_alloc(chunk, GFP_KERNEL, &cmd->aux_nents);
	if (!cmd->aux_sgl) {
		kfree(block);
		kt_sbc_ws_pi_free(cmd);
		kt_cmd_complete(cmd, KT_SENSE_OUT_OF_RESOURCES);
		return;
	}
	/* the chunk is the block repeated; pages hold whole blocks */
	sg_miter_start(&m, cmd->aux_sgl, cmd->aux_nents, SG_MITER_TO_SG);
	while (sg_miter_next(&m)) {
		size_t o;

		for (o = 0; o < m.length; o += min_t(size_t, bs, m.length - o))
			memcpy(m.addr + o, block, min_t(size_t, bs, m.length - o));
	}
	sg_miter_stop(&m);
	kfree(block);

	swap(cmd->sgl, cmd->aux_sgl);
	swap(cmd->sg_nents, cmd->aux_nents);
	cmd->loop_pos = pos;
	cmd->loop_end = pos + len;
	cmd->loop_reason = KT_SENSE_NONE;
	kt_sbc_ws_run(cmd);
}

/*
 * VERIFY with VRPROTECT and BYTCHK 00b: the range read, a chunk at a time,
 * into a buffer of the core's; the backstore checks each block's stored
 * PI as VRPROTECT says (kt_pi_verify()), and the first that fails ends it
 * with its sense and LBA. The data goes nowhere.
 */
static void kt_sbc_execute_verify_pi(struct kt_cmd *cmd)
{
	u32 bs = cmd->dev->attrib.block_size;
	u64 len = (u64)cmd->nr_blocks * bs;

	cmd->aux_sgl = sgl_alloc(min_t(u64, len, KT_WS_CHUNK), GFP_KERNEL,
				 &cmd->aux_nents);
	if (!cmd->aux_sgl) {
		kt_cmd_complete(cmd, KT_SENSE_OUT_OF_RESOURCES);
		return;
	}
	swap(cmd->sgl, cmd->aux_sgl);
	swap(cmd->sg_nents, cmd->aux_nents);
	cmd->loop_pos = cmd->lba * bs;
	cmd->loop_end = cmd->loop_pos + len;
	cmd->loop_reason = KT_SENSE_NONE;
	cmd->loop_read = true;
	kt_sbc_ws_run(cmd);
}

/*
 * Zeroing a range (WRITE SAME of zeroes, UNMAP) takes as long as writing it
 * where the storage cannot deallocate: it runs from a work item, so that
 * the fabric's receive work goes on with the connection's other commands.
 */
static void kt_sbc_zero_defer(struct kt_cmd *cmd, work_func_t fn)
{
	INIT_WORK(&cmd->work, fn);
	queue_work(kt_sbc_wq, &cmd->work);
}

static void kt_sbc_ws_zero_work(struct work_struct *work)
{
	struct kt_cmd *cmd = container_of(work, struct kt_cmd, work);
	struct kt_dev *dev = cmd->dev;
	unsigned int noio = memalloc_noio_save();	/* see kt_sbc_ws_work() */
	sense_reason_t reason;

	reason = kt_be_write_zeroes(dev, cmd, cmd->loop_pos,
				    cmd->loop_end - cmd->loop_pos);
	kt_lbp_resample(dev, cmd->sess);
	kt_cmd_complete(cmd, reason);
	memalloc_noio_restore(noio);
}

static bool kt_sbc_data_is_zero(struct kt_cmd *cmd, u32 len)
{
	struct sg_mapping_iter m;
	bool zero = true;
	u32 seen = 0;

	sg_miter_start(&m, cmd->sgl, cmd->sg_nents, SG_MITER_FROM_SG);
	while (zero && seen < len && sg_miter_next(&m)) {
		size_t n = min_t(size_t, m.length, len - seen);

		zero = !memchr_inv(m.addr, 0, n);
		seen += n;
	}
	sg_miter_stop(&m);
	return zero;
}

static void kt_sbc_execute_write_same(struct kt_cmd *cmd)
{
	struct kt_dev *dev = cmd->dev;
	struct kt_lu_info lu;
	struct kt_sbc_ws ws;
	sense_reason_t reason;
	u32 bs = dev->attrib.block_size;

	kt_lu_info_fill(cmd, &lu);
	reason = kt_sbc_write_same(&lu, cmd->cdb, &ws, &cmd->sense_field);
	if (reason) {
		kt_cmd_complete(cmd, reason);
		return;
	}
	/* zeroes with WRPROTECT are written: their tuples are the initiator's */
	if ((ws.flags & KT_SBC_WS_NDOB) ||
	    (!cmd->protect && kt_sbc_data_is_zero(cmd, bs))) {
		/* zeroes: deallocate where the backstore can (LBPRZ) */
		cmd->loop_pos = ws.lba * bs;
		cmd->loop_end = cmd->loop_pos + (u64)ws.nr_blocks * bs;
		kt_sbc_zero_defer(cmd, kt_sbc_ws_zero_work);
		return;
	}
	kt_sbc_ws_pattern(cmd, ws.lba * bs, ws.nr_blocks * bs);
}

static sense_reason_t kt_sbc_unmap(struct kt_cmd *cmd)
{
	u32 bs = cmd->dev->attrib.block_size;
	struct kt_lu_info lu;
	sense_reason_t reason;
	u32 nr = 0, i, blocks;
	u64 lba;
	s64 made;
	u8 *param;

	param = kmalloc(max_t(u32, cmd->data_length, 1), GFP_KERNEL);
	if (!param)
		return KT_SENSE_OUT_OF_RESOURCES;
	sg_copy_to_buffer(cmd->sgl, cmd->sg_nents, param, cmd->data_length);
	kt_lu_info_fill(cmd, &lu);
	reason = kt_sbc_unmap_check(&lu, param, cmd->data_length, &nr,
				    &cmd->sense_field);
	if (reason) {
		kfree(param);
		return reason;
	}
	/*
	 * UNMAP: every descriptor's range reads as zeroes afterwards (LBPRZ);
	 * the ROD tokens over it are revoked, and no others
	 */
	for (i = 0; !reason && i < nr; i++) {
		kt_sbc_unmap_desc(param, i, &lba, &blocks);
		if (!blocks)
			continue;
		made = kt_rod_write_begin(cmd->dev, lba, blocks);
		reason = kt_be_write_zeroes(cmd->dev, cmd, lba * bs,
					    (u64)blocks * bs);
		kt_rod_write_end(cmd->dev, lba, blocks, made);
	}
	kfree(param);
	return reason;
}

static void kt_sbc_unmap_work(struct work_struct *work)
{
	struct kt_cmd *cmd = container_of(work, struct kt_cmd, work);
	unsigned int noio = memalloc_noio_save();	/* see kt_sbc_ws_work() */
	sense_reason_t reason = kt_sbc_unmap(cmd);

	kt_lbp_resample(cmd->dev, cmd->sess);
	kt_cmd_complete(cmd, reason);
	memalloc_noio_restore(noio);
}

static void kt_sbc_execute_unmap(struct kt_cmd *cmd)
{
	kt_sbc_zero_defer(cmd, kt_sbc_unmap_work);
}

static sense_reason_t kt_sbc_range(struct kt_cmd *cmd, const struct kt_cdb *c,
				   u64 cap)
{
	if (!kt_cdb_range_ok(c->lba, c->nr_blocks, cap) &&
	    !(kt_dev_capacity_check(cmd, true) &&
	      kt_cdb_range_ok(c->lba, c->nr_blocks,
			      kt_dev_nr_lblocks(cmd->dev)))) {
		cmd->sense_info = c->lba;
		return KT_SENSE_LBA_OUT_OF_RANGE;
	}
	/* SBC-3 5.15: at most 2^32 - 1 bytes in one command */
	if ((u64)c->nr_blocks * cmd->dev->attrib.block_size > U32_MAX) {
		cmd->sense_field = KT_FIELD_CDB(c->len == 6 ? 4 : 7);
		return KT_SENSE_INVALID_CDB_FIELD;
	}
	return KT_SENSE_NONE;
}

/* Where the CDB keeps its TRANSFER LENGTH (SBC-3 5.x). */
static unsigned int kt_sbc_len_byte(const struct kt_cdb *c)
{
	switch (c->len) {
	case 6:
		return 4;
	case 12:
		return 6;
	case 16:
		return 10;
	default:
		return 7;
	}
}

/*
 * SAM-5 5.4, FCP-4 9.5.8: an initiator that will send less than the blocks
 * its CDB names (overflow) has them written whole, or not at all. Less
 * than a whole block cannot be written: nothing is transferred, and the
 * answer is INVALID FIELD IN COMMAND INFORMATION UNIT, with the overflow
 * residual all the same (RFC 7143 11.4.5: it is valid with a CHECK
 * CONDITION too), as initiators check it.
 */
static sense_reason_t kt_sbc_overflow(struct kt_cmd *cmd, u32 needed)
{
	if (cmd->expected_len >= needed ||
	    !(cmd->expected_len % cmd->dev->attrib.block_size))
		return KT_SENSE_NONE;
	cmd->overflow = true;
	cmd->residual = needed - cmd->expected_len;
	return KT_SENSE_INVALID_FIELD_IN_COMMAND_IU;
}

/*
 * A command that moves data moves no more than the MAXIMUM TRANSFER LENGTH
 * the Block Limits page advertises (SBC-3 6.6.4): that is what bounds the
 * buffer one command can make the target hold.
 */
static sense_reason_t kt_sbc_max_xfer(struct kt_cmd *cmd,
				      const struct kt_cdb *c)
{
	u32 max = kt_dev_max_xfer_blocks(cmd->dev);

	if (!max || c->nr_blocks <= max)
		return KT_SENSE_NONE;
	pr_debug("transfer of %u blocks above MAXIMUM TRANSFER LENGTH %u\n",
		 c->nr_blocks, max);
	cmd->sense_field = KT_FIELD_CDB(kt_sbc_len_byte(c));
	return KT_SENSE_INVALID_CDB_FIELD;
}

/*
 * The block commands, one parse function per kind (kt_cdb_desc.run says
 * which): each sets the transfer length and direction the CDB implies and
 * finds range errors before any data moves. The CDB's reserved bits were
 * checked by kt_spc_check_cdb(), a failed SANITIZE by kt_exec_parse().
 */

/* A transfer of blocks: within the LU, within MAXIMUM TRANSFER LENGTH, writable */
static sense_reason_t kt_sbc_transfer_ok(struct kt_cmd *cmd,
					 const struct kt_cdb *c, bool write)
{
	return kt_sbc_range(cmd, c, kt_dev_nr_lblocks(cmd->dev)) ?:
	       kt_sbc_max_xfer(cmd, c) ?:
	       (write && cmd->write_protected ? KT_SENSE_WRITE_PROTECTED :
						KT_SENSE_NONE);
}

/*
 * RDPROTECT / WRPROTECT / VRPROTECT (SBC-4 4.22.2), which reach here only
 * on a LU with PI (kt_spc_usage() lets them through): READ, WRITE and
 * WRITE AND VERIFY may set them where the fabric carries PI beside the
 * data (kt_cmd_set_fabric_prot()), enough for every block, or makes and
 * drops it itself; VERIFY with BYTCHK 00b on any fabric (no PI moves).
 * The rest with PI transferred (interleaved in the data over iSCSI, WRITE
 * SAME's one block, COMPARE AND WRITE, VERIFY's data) is not offered, and
 * 110b / 111b are reserved: an invalid field, as on a LU without PI.
 */
sense_reason_t kt_sbc_check_protect(struct kt_cmd *cmd, const struct kt_cdb *c)
{
	u8 protect = cmd->cdb[1] >> 5;
	const char *why;

	if (!protect)
		return KT_SENSE_NONE;
	if (protect > 5)
		why = "is reserved";
	else if (c->desc->run == KT_RUN_VERIFY && (cmd->cdb[1] & 0x06))
		why = "is offered with BYTCHK 00b only";
	/*
	 * without data: the medium's PI checked as VRPROTECT says; where the
	 * device keeps it (iblock), the block layer checks what 001b asks
	 */
	else if (c->desc->run == KT_RUN_VERIFY)
		why = cmd->dev->ops->init_prot || protect == 1 || protect == 5 ?
		      NULL : "is 001b or 101b only where the device below keeps the PI";
	/* WRITE SAME: its block's tuple follows it in the data-out buffer */
	else if (c->desc->run == KT_RUN_WRITE_SAME)
		why = cmd->prot_sgl || cmd->prot_by_fabric ?
		      "is offered with the tuple after the block, not beside it" :
		      NULL;
	else if (c->desc->run != KT_RUN_RW)
		why = "is not offered with this command";
	else if (!cmd->prot_sgl && !cmd->prot_by_fabric &&
		 !(cmd->ops && cmd->ops->pi_interleaved))
		why = "needs a fabric that carries PI beside the data (DIX) or in it";
	else if (cmd->prot_sgl &&
		 cmd->prot_len / KT_PI_TUPLE_LEN < c->nr_blocks)
		why = "came with less PI than its blocks need";
	else
		why = NULL;
	if (!why && c->desc->run == KT_RUN_RW && !cmd->prot_sgl &&
	    !cmd->prot_by_fabric)
		cmd->pi_interleaved = true;
	if (why) {
		pr_warn_ratelimited("device %u: opcode 0x%02x: protection field %u%u%ub %s\n",
				    cmd->dev->index, cmd->cdb[0], protect >> 2,
				    (protect >> 1) & 1, protect & 1, why);
		cmd->sense_field = KT_FIELD_CDB_BIT(1, 7);
		return KT_SENSE_INVALID_CDB_FIELD;
	}
	cmd->protect = protect;
	return KT_SENSE_NONE;
}

/* READ, WRITE, WRITE AND VERIFY */
sense_reason_t kt_sbc_parse_rw(struct kt_cmd *cmd, const struct kt_cdb *c,
			       u32 *needed, enum kt_data_dir *dir)
{
	sense_reason_t reason;

	reason = kt_sbc_transfer_ok(cmd, c, c->flags & KT_CDB_F_DATA_OUT);
	if (reason)
		return reason;
	*needed = c->nr_blocks * cmd->dev->attrib.block_size;
	*dir = (c->flags & KT_CDB_F_DATA_OUT) ? KT_DATA_OUT : KT_DATA_IN;
	cmd->execute = kt_sbc_execute_rw;
	/*
	 * each block followed by its tuple in the fabric's buffer, which
	 * must hold them all (more is an underflow the residual tells): no
	 * part of a block, nor of a tuple, moves alone
	 */
	if (cmd->pi_interleaved) {
		u64 want = (u64)c->nr_blocks * (cmd->dev->attrib.block_size +
						KT_PI_TUPLE_LEN);

		if (want > U32_MAX)
			return KT_SENSE_INVALID_CDB_FIELD;
		*needed = want;
		if (cmd->expected_len < *needed) {
			pr_warn_ratelimited("device %u: opcode 0x%02x with its PI interleaved: %u bytes expected, the %u blocks and their tuples are %u\n",
					    cmd->dev->index, cmd->cdb[0],
					    cmd->expected_len, c->nr_blocks,
					    *needed);
			cmd->overflow = true;
			cmd->residual = *needed - cmd->expected_len;
			return KT_SENSE_INVALID_FIELD_IN_COMMAND_IU;
		}
		return KT_SENSE_NONE;
	}
	return *dir == KT_DATA_OUT ? kt_sbc_overflow(cmd, *needed) :
				     KT_SENSE_NONE;
}

/*
 * WRITE ATOMIC (16) (SBC-4 5.48): the fields against the LU's atomic
 * limits first (as LIO), then as a WRITE. The backstore writes it whole
 * (cmd->be_atomic), so an initiator that would send less than its
 * blocks (overflow) is refused, none of them written.
 */
sense_reason_t kt_sbc_parse_write_atomic(struct kt_cmd *cmd,
					 const struct kt_cdb *c, u32 *needed,
					 enum kt_data_dir *dir)
{
	struct kt_lu_info lu;
	sense_reason_t reason;

	kt_lu_info_fill(cmd, &lu);
	reason = kt_sbc_write_atomic(&lu, cmd->cdb, &cmd->sense_field);
	if (reason)
		return reason;
	reason = kt_sbc_transfer_ok(cmd, c, true);
	if (reason)
		return reason;
	*needed = c->nr_blocks * cmd->dev->attrib.block_size;
	*dir = KT_DATA_OUT;
	cmd->be_atomic = true;
	cmd->execute = kt_sbc_execute_rw;
	if (cmd->expected_len < *needed) {
		cmd->overflow = true;
		cmd->residual = *needed - cmd->expected_len;
		return KT_SENSE_INVALID_FIELD_IN_COMMAND_IU;
	}
	return KT_SENSE_NONE;
}

sense_reason_t kt_sbc_parse_verify(struct kt_cmd *cmd, const struct kt_cdb *c,
				   u32 *needed, enum kt_data_dir *dir)
{
	sense_reason_t reason;
	u8 bytchk;

	reason = kt_sbc_range(cmd, c, kt_dev_nr_lblocks(cmd->dev));
	if (reason)
		return reason;
	/* SBC-3 5.33: BYTCHK 00b checks the medium only; 01b compares */
	bytchk = (cmd->cdb[1] >> 1) & 0x3;
	if (bytchk == 0 && cmd->protect && c->nr_blocks) {
		cmd->execute = kt_sbc_execute_verify_pi;
		return KT_SENSE_NONE;
	}
	if (bytchk == 0 || !c->nr_blocks) {
		cmd->execute = kt_sbc_execute_good;
		return KT_SENSE_NONE;
	}
	if (bytchk == 3) {
		/* 11b (one block for all) is not offered */
		cmd->sense_field = KT_FIELD_CDB_BIT(1, 2);
		return KT_SENSE_INVALID_CDB_FIELD;
	}
	reason = kt_sbc_max_xfer(cmd, c);
	if (reason)
		return reason;
	*needed = c->nr_blocks * cmd->dev->attrib.block_size;
	*dir = KT_DATA_OUT;
	cmd->execute = kt_sbc_execute_verify;
	return kt_sbc_overflow(cmd, *needed);
}

sense_reason_t kt_sbc_parse_caw(struct kt_cmd *cmd, const struct kt_cdb *c,
				u32 *needed, enum kt_data_dir *dir)
{
	u32 bs = cmd->dev->attrib.block_size;
	sense_reason_t reason;

	/*
	 * SBC-3 5.2: the data-out is exactly the verify and the write
	 * data; any other length means NUMBER OF BLOCKS is wrong.
	 */
	if (cmd->expected_len != 2 * c->nr_blocks * bs) {
		cmd->sense_field = KT_FIELD_CDB(13);
		return KT_SENSE_INVALID_CDB_FIELD;
	}
	if (!c->nr_blocks) {
		cmd->execute = kt_sbc_execute_good;
		return KT_SENSE_NONE;
	}
	reason = kt_sbc_range(cmd, c, kt_dev_nr_lblocks(cmd->dev));
	if (reason)
		return reason;
	if (cmd->write_protected)
		return KT_SENSE_WRITE_PROTECTED;
	/* SBC-3 5.2: the verify data, then the write data */
	*needed = 2 * c->nr_blocks * bs;
	*dir = KT_DATA_OUT;
	cmd->execute = kt_sbc_execute_caw;
	return KT_SENSE_NONE;
}

sense_reason_t kt_sbc_parse_orwrite(struct kt_cmd *cmd, const struct kt_cdb *c,
				    u32 *needed, enum kt_data_dir *dir)
{
	sense_reason_t reason;

	reason = kt_sbc_transfer_ok(cmd, c, true);
	if (reason)
		return reason;
	if (!c->nr_blocks) {
		cmd->execute = kt_sbc_execute_good;
		return KT_SENSE_NONE;
	}
	*needed = c->nr_blocks * cmd->dev->attrib.block_size;
	*dir = KT_DATA_OUT;
	cmd->execute = kt_sbc_execute_orwrite;
	return kt_sbc_overflow(cmd, *needed);
}

sense_reason_t kt_sbc_parse_pre_fetch(struct kt_cmd *cmd,
				      const struct kt_cdb *c, u32 *needed,
				      enum kt_data_dir *dir)
{
	sense_reason_t reason;

	reason = kt_sbc_range(cmd, c, kt_dev_nr_lblocks(cmd->dev));
	if (reason)
		return reason;
	cmd->execute = kt_sbc_execute_good;
	return KT_SENSE_NONE;
}

sense_reason_t kt_sbc_parse_sync(struct kt_cmd *cmd, const struct kt_cdb *c,
				 u32 *needed, enum kt_data_dir *dir)
{
	/* SBC-3 5.22: NUMBER OF BLOCKS 0 means to the end */
	if (!kt_cdb_range_ok(c->lba, c->nr_blocks,
			     kt_dev_nr_lblocks(cmd->dev))) {
		cmd->sense_info = c->lba;
		return KT_SENSE_LBA_OUT_OF_RANGE;
	}
	cmd->execute = kt_sbc_execute_sync;
	return KT_SENSE_NONE;
}

/* A backstore that cannot write zeroes offers neither WRITE SAME nor UNMAP */
static sense_reason_t kt_sbc_no_zeroes(struct kt_cmd *cmd)
{
	cmd->sense_field = KT_FIELD_CDB(0);
	return KT_SENSE_INVALID_OPCODE;
}

sense_reason_t kt_sbc_parse_write_same(struct kt_cmd *cmd,
				       const struct kt_cdb *c, u32 *needed,
				       enum kt_data_dir *dir)
{
	u32 bs = cmd->dev->attrib.block_size;

	if (!cmd->dev->ops->write_zeroes)
		return kt_sbc_no_zeroes(cmd);
	if (cmd->write_protected)
		return KT_SENSE_WRITE_PROTECTED;
	/* SBC-3 5.43: NDOB: no data-out buffer */
	if (!(c->opcode == WRITE_SAME_16 && (cmd->cdb[1] & 0x01))) {
		/*
		 * else exactly one logical block: with less there is
		 * no block to repeat, more is no block at all
		 */
		u32 len = bs + (cmd->protect ? KT_PI_TUPLE_LEN : 0);

		if (cmd->expected_len != len)
			return KT_SENSE_INVALID_CDB_FIELD;
		*needed = len;
		*dir = KT_DATA_OUT;
	}
	cmd->execute = kt_sbc_execute_write_same;
	return KT_SENSE_NONE;
}

sense_reason_t kt_sbc_parse_unmap(struct kt_cmd *cmd, const struct kt_cdb *c,
				  u32 *needed, enum kt_data_dir *dir)
{
	if (!cmd->dev->ops->write_zeroes)
		return kt_sbc_no_zeroes(cmd);
	if (cmd->write_protected)
		return KT_SENSE_WRITE_PROTECTED;
	*needed = get_unaligned_be16(&cmd->cdb[7]);
	*dir = KT_DATA_OUT;
	cmd->execute = kt_sbc_execute_unmap;
	return KT_SENSE_NONE;
}
