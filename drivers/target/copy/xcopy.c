// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: the EXTENDED COPY (LID1) engine (SPC-4 6.4).
 *
 * The parameter list is parsed and checked in the issuing context
 * (proto/xcopy.c); the copy itself runs on a dedicated workqueue, one work
 * item per command, so that copies run side by side. Each copy:
 *
 *   - resolves its CSCD descriptors by NAA designator among the LUNs the
 *     issuing I_T nexus can address, and nowhere else;
 *   - checks every segment against both devices before any data moves;
 *   - takes one scatterlist, sized for two of its largest chunks, and
 *     reuses it with the READ and WRITE commands embedded in the
 *     operation: nothing is allocated per chunk, and the buffer outlives
 *     the copy for the next one (xcopy_buf.c). Where source and
 *     destination do not overlap, up to xcopy_depth chunks are in flight,
 *     each in its own part with its own READ and WRITE (kt_xcopy_deep());
 *     otherwise, while one half is written, the next chunk is read into
 *     the other. The I/O is issued from a second workqueue so that
 *     synchronous backstores (zram, rd) overlap too;
 *   - lets the backstore copy between its own devices (copy_range) first:
 *     in one call per segment where it shares extents, chunk by chunk
 *     with the same depth where it moves the data (copy_moves_data);
 *   - stops between chunks when a task management function aborts it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include <ktarget/backend.h>
#include <ktarget/fabric.h>
#include <ktarget/proto/cdb.h>
#include <ktarget/proto/spc.h>

#include "alua/alua.h"
#include "core.h"
#include "pr/pr.h"
#include "rod_watch.h"
#include "scsi/cmdsets.h"
#include "xcopy.h"

#define KT_XCOPY_CHUNK_MAX_KB	16384	/* default and largest chunk */
#define KT_XCOPY_CHUNK_MIN	KT_XCOPY_MAX_BLOCK_SIZE

static unsigned int xcopy_max_chunk_kb = KT_XCOPY_CHUNK_MAX_KB;
module_param(xcopy_max_chunk_kb, uint, 0644);
MODULE_PARM_DESC(xcopy_max_chunk_kb,
		 "Largest EXTENDED COPY read/write chunk in KiB (64-16384)");

#define KT_XCOPY_DEPTH_MAX	8

static unsigned int xcopy_depth = 4;
module_param(xcopy_depth, uint, 0644);
MODULE_PARM_DESC(xcopy_depth,
		 "Chunks one EXTENDED COPY or WRITE USING TOKEN keeps in flight (2-8)");

static bool xcopy_backend_copy = true;
module_param(xcopy_backend_copy, bool, 0644);
MODULE_PARM_DESC(xcopy_backend_copy,
		 "Let a backstore copy between its own devices (copy_range)");

static struct workqueue_struct *kt_xcopy_wq;
/* a copy's READs and WRITEs issued from work items; they never wait for a copy */
static struct workqueue_struct *kt_xcopy_io_wq;

/* One part of the copy buffer: a chunk's. */
struct kt_xcopy_buf {
	struct scatterlist	*sgl;
	unsigned int		nents;
};

struct kt_xcopy_op;

/*
 * One chunk in flight when a copy keeps several (kt_xcopy_deep()): its
 * READ, then its WRITE, issued from @work on the I/O workqueue, so that
 * backstores that complete in the submitting thread overlap as well; or,
 * when the backstore copies the segment (kt_xcopy_op.be_chunks), its
 * copy_range().
 */
struct kt_xcopy_slot {
	struct kt_xcopy_op	*op;
	struct kt_cmd		rd;
	struct kt_cmd		wr;
	struct work_struct	work;
	struct completion	done;
	struct kt_xcopy_buf	buf;
	struct kt_dev		*src;
	struct kt_dev		*dst;
	u64			src_pos;
	u64			dst_pos;
	u32			len;
	bool			writing;	/* the READ is in */
	bool			busy;		/* issued, not reaped */
	bool			revoked;	/* the token changed under it */
	sense_reason_t		reason;
	s64			rod_made;	/* as its WRITE began */
};

struct kt_xcopy_op {
	struct work_struct	work;
	struct kt_cmd		*cmd;		/* the EXTENDED COPY */
	struct kt_xcopy_list	list;
	struct kt_xcopy_span	span[KT_XCOPY_MAX_SEGMENTS];
	struct kt_lun		*lun[KT_XCOPY_MAX_CSCD];	/* referenced */
	bool			wp[KT_XCOPY_MAX_CSCD];
	/* the internal READ and WRITE, reused for every chunk */
	struct kt_cmd		rd;
	struct kt_cmd		wr;
	struct completion	rd_done;
	struct completion	wr_done;
	sense_reason_t		rd_reason;
	sense_reason_t		wr_reason;
	struct work_struct	rd_work;	/* issues the READ beside a WRITE */
	u64			rd_pos;
	u32			rd_len;
	bool			rd_busy;	/* a READ is in flight */
	struct scatterlist	*sgl;		/* the one buffer */
	unsigned int		sg_nents;
	unsigned int		sg_cap;		/* its pages */
	struct kt_xcopy_buf	buf[KT_XCOPY_DEPTH_MAX];
	/* 2: READ and WRITE overlap; more: that many chunks in flight */
	unsigned int		nr_bufs;
	unsigned int		want_bufs;	/* what the plan asks for */
	struct kt_xcopy_slot	pipe[KT_XCOPY_DEPTH_MAX];
	u32			sgl_len;	/* bytes of one buffer */
	int			slot;		/* held results, or KT_XCOPY_NO_SLOT */
	/*
	 * WRITE USING TOKEN: the spans come made, from the token's LU
	 * (lun[0]) to the LU of the command; the token, referenced, is
	 * checked after every READ. @zero: the block device zero token.
	 */
	bool			token_copy;
	bool			zero;
	bool			be_chunks;	/* slots call copy_range() */
	bool			del_tkn;
	struct kt_rod_token	*token;
	u64			bytes;		/* written so far */
	u16			segs_done;
};

sense_reason_t kt_xcopy_set_err(struct kt_cmd *cmd,
				const struct kt_xcopy_err *err)
{
	sense_reason_t reason;

	switch (err->key) {
	case KT_XCOPY_KEY_COPY_ABORTED:
		reason = KT_SENSE_COPY_ABORTED;
		break;
	case KT_XCOPY_KEY_ILLEGAL_REQUEST:
		reason = KT_SENSE_INVALID_PARAM_FIELD;
		break;
	default:
		reason = KT_SENSE_LU_COMM_FAILURE;	/* HARDWARE ERROR */
		break;
	}
	cmd->sense_asc_ascq = err->asc << 8 | err->ascq;
	cmd->sense_asc_exact = true;
	if (err->flags & KT_XCOPY_ERR_SKSV) {
		cmd->sense_field = (struct kt_sense_field){
			.byte = err->field,
			.bit = err->bit,
			.bit_valid = !!(err->flags & KT_XCOPY_ERR_BPV),
			.in_cdb = err->key != KT_XCOPY_KEY_COPY_ABORTED &&
				  (err->flags & KT_XCOPY_ERR_CD),
			.valid = 1,
		};
	}
	if (err->flags & KT_XCOPY_ERR_CSI) {
		cmd->sense_csi = err->info;
		cmd->sense_csi_valid = true;
	}
	return reason;
}

/* COPY ABORTED for segment @nr, ASC/ASCQ @asc, field pointer @field */
static sense_reason_t kt_xcopy_abort_seg(struct kt_cmd *cmd, u16 asc,
					 unsigned int nr, int field)
{
	struct kt_xcopy_err err = {
		.key = KT_XCOPY_KEY_COPY_ABORTED,
		.asc = asc >> 8,
		.ascq = asc & 0xff,
		.info = nr,
		.flags = KT_XCOPY_ERR_CSI,
	};

	if (field >= 0) {
		err.field = field;
		err.flags |= KT_XCOPY_ERR_SKSV;
	}
	return kt_xcopy_set_err(cmd, &err);
}

static struct kt_dev *kt_xcopy_dev(struct kt_xcopy_op *op, u16 id)
{
	return id == KT_XCOPY_CSCD_LOCAL ? op->cmd->dev : op->lun[id]->dev;
}

static bool kt_xcopy_wp(struct kt_xcopy_op *op, u16 id)
{
	return id == KT_XCOPY_CSCD_LOCAL ? op->cmd->write_protected : op->wp[id];
}

/* The NAA designator VPD page 83h gives for @lun (proto/spc.c) */
static void kt_xcopy_lun_naa(struct kt_xcopy_op *op, struct kt_lun *lun,
			     u8 *naa)
{
	struct kt_lu_info lu;

	op->rd.lun = lun;
	op->rd.dev = lun->dev;
	kt_lu_info_fill(&op->rd, &lu);
	kt_spc_naa(&lu, naa);
	op->rd.lun = NULL;
	op->rd.dev = NULL;
}

/* The first segment naming CSCD descriptor @id, for the sense data */
static unsigned int kt_xcopy_first_user(const struct kt_xcopy_list *list,
					u16 id)
{
	unsigned int i;

	for (i = 0; i < list->nr_seg; i++)
		if (list->seg[i].src == id || list->seg[i].dst == id)
			return i;
	return list->nr_seg;
}

/*
 * The core reads and writes @dev's blocks itself: not so a passthrough
 * LU's (exec_cdb, backend.h), whose device server is elsewhere and which
 * has no rw or write_zeroes; a copy names it as it would a LU it cannot
 * reach.
 */
static bool kt_xcopy_dev_copyable(const struct kt_dev *dev)
{
	return !dev->ops->exec_cdb && !WARN_ON_ONCE(!dev->ops->rw);
}

/*
 * Find the logical unit of every CSCD descriptor a segment uses, among the
 * LUNs of the issuing I_T nexus only (CVE-2020-28374). A designator no LUN
 * of the nexus has, or only a passthrough LU has, ends the copy before
 * anything is read or written.
 */
static sense_reason_t kt_xcopy_resolve(struct kt_xcopy_op *op)
{
	struct kt_cmd *cmd = op->cmd;
	u8 naa[KT_SPC_NAA_LEN];
	unsigned int i, j, n, user;
	struct kt_lun *lun;
	u64 *luns;
	bool wp;

	luns = kt_session_list_luns(cmd->sess, &n);
	if (!luns)
		return KT_SENSE_OUT_OF_RESOURCES;

	for (i = 0; i < op->list.nr_cscd; i++) {
		user = kt_xcopy_first_user(&op->list, i);
		if (user == op->list.nr_seg)
			continue;
		for (j = 0; j < n && !op->lun[i]; j++) {
			wp = false;
			lun = kt_session_get_lun(cmd->sess, luns[j], &wp);
			if (!lun)
				continue;
			kt_xcopy_lun_naa(op, lun, naa);
			if (kt_xcopy_dev_copyable(lun->dev) &&
			    kt_xcopy_cscd_match(&op->list.cscd[i],
						KT_XCOPY_DESIG_NAA, naa,
						sizeof(naa))) {
				op->lun[i] = lun;
				op->wp[i] = wp;
			} else {
				kt_lun_put(lun);
			}
		}
		if (!op->lun[i]) {
			kvfree(luns);
			return kt_xcopy_abort_seg(cmd,
					KT_XCOPY_ASC_TARGET_NOT_REACHABLE, user,
					op->list.cscd[i].offset);
		}
	}
	kvfree(luns);
	return KT_SENSE_NONE;
}

/*
 * The copy's READ (@io is op->rd) or WRITE (op->wr) of CSCD @id faces
 * every check the same command from the issuing nexus would: write
 * protection (the ACL's, the LU's SWP, a CD/DVD LU's disc), a SANITIZE
 * running or failed, the port's ALUA access state, reservations.
 * Checked when the copy is planned and again before each chunk, as any
 * of them may change while the copy runs; @io is idle then. A NOT READY
 * keeps its ASC for the copy.
 */
static sense_reason_t kt_xcopy_io_check(struct kt_xcopy_op *op,
					struct kt_cmd *io, u16 id)
{
	struct kt_dev *dev = kt_xcopy_dev(op, id);
	sense_reason_t reason;

	if (io == &op->wr && (kt_xcopy_wp(op, id) || READ_ONCE(dev->state->swp) ||
			      dev->attrib.emulate_cdrom || dev->read_only))
		return KT_SENSE_WRITE_PROTECTED;
	io->dev = dev;
	io->lun = id == KT_XCOPY_CSCD_LOCAL ? op->cmd->lun : op->lun[id];
	reason = kt_sanitize_check(io);
	if (!reason)
		reason = kt_sanitize_medium_check(io);
	if (!reason)
		reason = kt_alua_check(io);
	if (!reason && READ_ONCE(dev->state->res.active))
		reason = kt_res_check(io);
	if (reason == KT_SENSE_NOT_READY)
		op->cmd->sense_asc_ascq = io->sense_asc_ascq;
	io->lun = NULL;
	io->dev = NULL;
	return reason;
}

/* Before a chunk of segment @seg moves: both sides' checks again. */
static sense_reason_t kt_xcopy_chunk_check(struct kt_xcopy_op *op,
					   const struct kt_xcopy_segment *seg)
{
	return kt_xcopy_io_check(op, &op->rd, seg->src) ?:
	       kt_xcopy_io_check(op, &op->wr, seg->dst);
}

/* Bytes one READ or WRITE of @dev may move (its MAXIMUM TRANSFER LENGTH) */
static u64 kt_xcopy_dev_max(const struct kt_dev *dev)
{
	return (u64)dev->attrib.hw_max_sectors * dev->attrib.hw_block_size;
}

/*
 * A segment spans several chunks: xcopy_depth of them in flight (two
 * when it is 2 or less: a READ beside a WRITE), no more than the segment
 * needs or either device's queue depth takes. More than two share what
 * two chunks of sgl_len would take, in whole pages.
 */
static void kt_xcopy_plan_depth(struct kt_xcopy_op *op, u64 largest,
				u32 qdepth)
{
	unsigned int d = clamp_t(unsigned int, READ_ONCE(xcopy_depth), 2,
				 KT_XCOPY_DEPTH_MAX);
	u64 budget = 2ULL * op->sgl_len;
	u32 part;

	d = min_t(u64, d, max_t(u32, qdepth, 2));
	/* parts are at least a chunk's minimum: no more than fit the budget */
	d = min_t(u64, d, max_t(u64, budget / KT_XCOPY_CHUNK_MIN, 2));
	part = max_t(u64, KT_XCOPY_CHUNK_MIN,
		     round_down(budget / d, PAGE_SIZE));
	d = min_t(u64, d, DIV_ROUND_UP(largest, part));
	if (d > 2)
		op->sgl_len = part;
	op->want_bufs = max(d, 2U);
}

/*
 * Check every segment against its source and destination and size the
 * chunk: no larger than the module limit, either device's transfer limit,
 * or the largest segment.
 */
static sense_reason_t kt_xcopy_plan(struct kt_xcopy_op *op)
{
	u64 limit = (u64)clamp_t(unsigned int, READ_ONCE(xcopy_max_chunk_kb),
				 KT_XCOPY_CHUNK_MIN / 1024,
				 KT_XCOPY_CHUNK_MAX_KB) * 1024;
	struct kt_cmd *cmd = op->cmd;
	struct kt_xcopy_geom sg, dg;
	struct kt_xcopy_err err;
	struct kt_dev *src, *dst;
	sense_reason_t reason;
	u32 qdepth = U32_MAX;
	u64 largest = 0;
	unsigned int i;

	for (i = 0; i < op->list.nr_seg; i++) {
		const struct kt_xcopy_segment *seg = &op->list.seg[i];

		src = kt_xcopy_dev(op, seg->src);
		dst = kt_xcopy_dev(op, seg->dst);
		sg.nr_blocks = kt_dev_nr_lblocks(src);
		sg.block_size = src->attrib.block_size;
		dg.nr_blocks = kt_dev_nr_lblocks(dst);
		dg.block_size = dst->attrib.block_size;
		if (!op->token_copy &&
		    kt_xcopy_segment_span(&op->list, i, &sg, &dg, &op->span[i],
					  &err))
			return kt_xcopy_set_err(cmd, &err);
		/* a token's ranges were checked when it was made: LUs shrink */
		if (op->token_copy &&
		    (!kt_cdb_range_ok(op->span[i].src_lba,
				      op->span[i].bytes / op->span[i].src_bs,
				      sg.nr_blocks) ||
		     !kt_cdb_range_ok(op->span[i].dst_lba,
				      op->span[i].bytes / op->span[i].dst_bs,
				      dg.nr_blocks)))
			return KT_SENSE_LBA_OUT_OF_RANGE;
		/* a segment that moves nothing writes nothing */
		reason = op->zero ? KT_SENSE_NONE :
			 kt_xcopy_io_check(op, &op->rd, seg->src);
		if (!reason && op->span[i].bytes)
			reason = kt_xcopy_io_check(op, &op->wr, seg->dst);
		if (reason)
			return reason;
		limit = min(limit, kt_xcopy_dev_max(src));
		limit = min(limit, kt_xcopy_dev_max(dst));
		qdepth = min3(qdepth, src->attrib.hw_queue_depth,
			      dst->attrib.hw_queue_depth);
		largest = max(largest, op->span[i].bytes);
	}
	/* a chunk holds a whole block of either side, whatever the limits */
	limit = max_t(u64, limit, KT_XCOPY_CHUNK_MIN);
	op->sgl_len = min(limit, largest);
	op->want_bufs = 1;
	/* parts split on a page: all hold whole pages */
	if (largest > op->sgl_len && PAGE_ALIGNED(op->sgl_len))
		kt_xcopy_plan_depth(op, largest, qdepth);
	return KT_SENSE_NONE;
}

/*
 * The one scatterlist of the copy, taken when the first chunk needs it:
 * want_bufs buffers of sgl_len when a segment spans several chunks, else
 * one; one buffer, then smaller ones, when memory is short.
 */
static sense_reason_t kt_xcopy_alloc(struct kt_xcopy_op *op)
{
	struct kt_xcopy_stat *st = &op->cmd->dev->state->xcopy_stat;
	unsigned int part, i;
	bool fresh;

	while (!op->sgl && op->sgl_len) {
		op->nr_bufs = op->want_bufs;
		op->sgl = kt_xcopy_buf_get(op->cmd->sess,
					   op->sgl_len * op->nr_bufs,
					   &op->sg_nents, &op->sg_cap, &fresh);
		/* a spare is never NULL: a failed attempt is an allocation */
		atomic64_inc(fresh ? &st->sgl_allocs : &st->sgl_reuses);
		if (op->sgl)
			break;
		if (op->want_bufs > 1) {
			op->want_bufs = 1;
			continue;
		}
		if (op->sgl_len <= KT_XCOPY_CHUNK_MIN)
			return KT_SENSE_OUT_OF_RESOURCES;
		op->sgl_len = max_t(u32, op->sgl_len / 2, KT_XCOPY_CHUNK_MIN);
	}
	if (!op->sgl)
		return KT_SENSE_OUT_OF_RESOURCES;
	/* one page per entry: the parts meet at an entry */
	part = op->sg_nents / op->nr_bufs;
	for (i = 0; i < op->nr_bufs; i++) {
		op->buf[i].sgl = op->sgl + i * part;
		op->buf[i].nents = i + 1 < op->nr_bufs ? part :
				   op->sg_nents - i * part;
		if (i + 1 < op->nr_bufs)
			sg_mark_end(&op->sgl[(i + 1) * part - 1]);
	}
	return KT_SENSE_NONE;
}

static void kt_xcopy_rd_done(struct kt_cmd *io, sense_reason_t reason)
{
	struct kt_xcopy_op *op = container_of(io, struct kt_xcopy_op, rd);

	op->rd_reason = reason;
	complete(&op->rd_done);
}

static void kt_xcopy_wr_done(struct kt_cmd *io, sense_reason_t reason)
{
	struct kt_xcopy_op *op = container_of(io, struct kt_xcopy_op, wr);

	op->wr_reason = reason;
	complete(&op->wr_done);
}

static void kt_xcopy_rd_issue(struct kt_xcopy_op *op)
{
	kt_be_rw(&op->rd, false, op->rd_pos, op->rd_len, false);
}

/*
 * The copy's works issue backstore I/O and allocate for it: under
 * memalloc_noio, so that reclaim never waits on writeback to a disk whose
 * I/O is this work (a filesystem on a loopback LUN over a fileio file).
 */
static void kt_xcopy_rd_work(struct work_struct *work)
{
	unsigned int noio = memalloc_noio_save();

	kt_xcopy_rd_issue(container_of(work, struct kt_xcopy_op, rd_work));
	memalloc_noio_restore(noio);
}

/*
 * Start a READ of @len bytes at @pos of @dev into buffer @b. With two
 * buffers it is issued from the I/O workqueue, beside the caller's WRITE.
 */
static void kt_xcopy_read_start(struct kt_xcopy_op *op, struct kt_dev *dev,
				unsigned int b, u64 pos, u32 len)
{
	op->rd.dev = dev;
	op->rd.sgl = op->buf[b].sgl;
	op->rd.sg_nents = op->buf[b].nents;
	op->rd.be_done = kt_xcopy_rd_done;
	op->rd_pos = pos;
	op->rd_len = len;
	op->rd_busy = true;
	reinit_completion(&op->rd_done);
	if (op->nr_bufs >= 2)
		queue_work(kt_xcopy_io_wq, &op->rd_work);
	else
		kt_xcopy_rd_issue(op);
}

static sense_reason_t kt_xcopy_read_wait(struct kt_xcopy_op *op)
{
	if (!op->rd_busy)
		return KT_SENSE_NONE;
	wait_for_completion(&op->rd_done);
	op->rd_busy = false;
	return op->rd_reason;
}

/* WRITE @len bytes of buffer @b at @pos of @dev, waited for. */
static sense_reason_t kt_xcopy_write(struct kt_xcopy_op *op,
				     struct kt_dev *dev, unsigned int b,
				     u64 pos, u32 len)
{
	u64 lba = pos / dev->attrib.block_size;
	u64 nr = len / dev->attrib.block_size;
	s64 made;

	op->wr.dev = dev;
	op->wr.sgl = op->buf[b].sgl;
	op->wr.sg_nents = op->buf[b].nents;
	op->wr.be_done = kt_xcopy_wr_done;
	reinit_completion(&op->wr_done);
	made = kt_rod_write_begin(dev, lba, nr);
	kt_be_rw(&op->wr, true, pos, len, false);
	wait_for_completion(&op->wr_done);
	kt_rod_write_end(dev, lba, nr, made);
	return op->wr_reason;
}

/*
 * A backstore error while moving segment @nr; what a READ or WRITE of the
 * nexus would have been told (write protection, a reservation, ALUA,
 * SANITIZE, FORMAT UNIT) is told as it is, so the initiator knows to
 * retry or to format again.
 */
static sense_reason_t kt_xcopy_io_error(struct kt_xcopy_op *op,
					sense_reason_t reason, unsigned int nr)
{
	if (reason == KT_SENSE_WRITE_PROTECTED ||
	    reason == KT_SENSE_RESERVATION_CONFLICT ||
	    reason == KT_SENSE_NOT_READY ||
	    reason == KT_SENSE_SANITIZE_IN_PROGRESS ||
	    reason == KT_SENSE_SANITIZE_FAILED ||
	    reason == KT_SENSE_FORMAT_IN_PROGRESS ||
	    reason == KT_SENSE_FORMAT_FAILED ||
	    reason == KT_SENSE_FORMAT_CORRUPTED)
		return reason;
	return kt_xcopy_abort_seg(op->cmd, KT_XCOPY_ASC_3PC_DEV_FAILURE, nr,
				  -1);
}

/*
 * May the backstore copy @len bytes itself: source and destination are
 * its devices, the ranges do not overlap, and the module lets it. Not
 * with protection information on either side: the READs check the
 * source's, the WRITEs make the destination's (backend.h, init_prot).
 */
static bool kt_xcopy_can_fast(const struct kt_dev *src, u64 src_pos,
			      const struct kt_dev *dst, u64 dst_pos, u64 len)
{
	if (src->ops != dst->ops || !src->ops->copy_range || !len ||
	    !READ_ONCE(xcopy_backend_copy) || kt_pi_type(src) || kt_pi_type(dst))
		return false;
	return src != dst || src_pos >= dst_pos + len ||
	       dst_pos >= src_pos + len;
}

/*
 * The backstore copies what it can of a range kt_xcopy_can_fast() allows.
 * Returns the bytes done, in whole blocks of both sides: 0 when a token it
 * copies for was revoked meanwhile.
 */
static u64 kt_xcopy_fast(struct kt_xcopy_op *op, struct kt_dev *src,
			 u64 src_pos, struct kt_dev *dst, u64 dst_pos,
			 u64 len, u32 unit)
{
	u64 lba = dst_pos / dst->attrib.block_size;
	u64 nr = len / dst->attrib.block_size;
	s64 ret, made;

	if (op->token && kt_rod_token_revoked(op->token))
		return 0;
	made = kt_rod_write_begin(dst, lba, nr);
	ret = kt_be_copy_range(dst, dst_pos, src, src_pos, len);
	kt_rod_write_end(dst, lba, nr, made);
	/* a token over the source may have been revoked while it ran */
	if (ret > 0 && op->token && kt_rod_token_revoked(op->token))
		return 0;
	if (ret <= 0)
		return 0;
	kt_lbp_consumed(dst, op->cmd->sess, ret);
	return min_t(u64, ret, len) & ~(u64)(unit - 1);
}

/* WRITE USING TOKEN: a write changed the token's blocks since it was made */
static sense_reason_t kt_xcopy_revoked(struct kt_xcopy_op *op)
{
	struct kt_xcopy_err err;

	kt_rod_sense(&err, KT_ROD_ASC_TOKEN_REVOKED);
	return kt_xcopy_set_err(op->cmd, &err);
}

/* WRITE USING TOKEN with the block device zero token: @len zeroes at @pos */
static sense_reason_t kt_xcopy_zero(struct kt_xcopy_op *op,
				    struct kt_dev *dst, u64 pos, u64 len,
				    unsigned int nr)
{
	u64 lba = pos / dst->attrib.block_size;
	u64 blocks = len / dst->attrib.block_size;
	sense_reason_t reason;
	s64 made;

	reason = kt_xcopy_io_check(op, &op->wr, KT_XCOPY_CSCD_LOCAL);
	if (reason)
		return reason;
	made = kt_rod_write_begin(dst, lba, blocks);
	reason = kt_be_write_zeroes(dst, NULL, pos, len);
	kt_rod_write_end(dst, lba, blocks, made);
	if (reason)
		return kt_xcopy_io_error(op, reason, nr);
	op->bytes += len;
	atomic64_add(len, &op->cmd->dev->state->xcopy_stat.bytes);
	return KT_SENSE_NONE;
}

static void kt_xcopy_slot_rd_done(struct kt_cmd *io, sense_reason_t reason)
{
	struct kt_xcopy_slot *s = container_of(io, struct kt_xcopy_slot, rd);

	if (reason) {
		s->reason = reason;
		complete(&s->done);
		return;
	}
	s->writing = true;
	queue_work(kt_xcopy_io_wq, &s->work);
}

static void kt_xcopy_slot_wr_done(struct kt_cmd *io, sense_reason_t reason)
{
	struct kt_xcopy_slot *s = container_of(io, struct kt_xcopy_slot, wr);
	u32 bs = s->dst->attrib.block_size;

	kt_rod_write_end(s->dst, s->dst_pos / bs, s->len / bs, s->rod_made);
	s->reason = reason;
	complete(&s->done);
}

/*
 * A chunk in flight: issue its READ, or, once that is in, its WRITE. Once
 * rw() is called the slot may already be done and reused: nothing of it is
 * touched after.
 */
static void kt_xcopy_slot_step(struct kt_xcopy_slot *s)
{
	struct kt_xcopy_op *op = s->op;
	u32 bs = s->dst->attrib.block_size;

	if (op->be_chunks) {
		/* chunks are whole blocks of both sides */
		if (kt_xcopy_fast(op, s->src, s->src_pos, s->dst, s->dst_pos,
				  s->len, 1) != s->len) {
			if (op->token && kt_rod_token_revoked(op->token))
				s->revoked = true;
			else
				s->reason = KT_SENSE_LU_COMM_FAILURE;
		}
		complete(&s->done);
		return;
	}
	if (!s->writing) {
		s->rd.dev = s->src;
		s->rd.sgl = s->buf.sgl;
		s->rd.sg_nents = s->buf.nents;
		s->rd.be_done = kt_xcopy_slot_rd_done;
		kt_be_rw(&s->rd, false, s->src_pos, s->len, false);
		return;
	}
	/* what was read is the token's data only if nothing changed it */
	if (op->token && kt_rod_token_revoked(op->token)) {
		s->revoked = true;
		complete(&s->done);
		return;
	}
	s->wr.dev = s->dst;
	s->wr.sgl = s->buf.sgl;
	s->wr.sg_nents = s->buf.nents;
	s->wr.be_done = kt_xcopy_slot_wr_done;
	s->rod_made = kt_rod_write_begin(s->dst, s->dst_pos / bs, s->len / bs);
	kt_be_rw(&s->wr, true, s->dst_pos, s->len, false);
}

static void kt_xcopy_slot_work(struct work_struct *work)
{
	unsigned int noio = memalloc_noio_save();	/* see kt_xcopy_rd_work() */

	kt_xcopy_slot_step(container_of(work, struct kt_xcopy_slot, work));
	memalloc_noio_restore(noio);
}

/*
 * The chunk @s carried is over: what it moved, or why it failed. Slots
 * are reaped in the order they were issued, and the copy's byte count
 * (its TRANSFER COUNT) stops at the first chunk that failed: what came
 * after it is written, but not a run from the start.
 */
static void kt_xcopy_slot_reap(struct kt_xcopy_op *op,
			       struct kt_xcopy_slot *s, sense_reason_t *reason,
			       bool *revoked)
{
	struct kt_xcopy_stat *st = &op->cmd->dev->state->xcopy_stat;
	bool counting = !*reason && !*revoked;

	wait_for_completion(&s->done);
	s->busy = false;
	if (s->revoked) {
		*revoked = true;
	} else if (s->reason) {
		if (!*reason)
			*reason = s->reason;
	} else {
		atomic64_inc(&st->chunks);
		atomic64_add(s->len, &st->bytes);
		if (!counting)
			return;
		op->bytes += s->len;
		kt_xcopy_ids_progress(op->cmd->sess, op->slot, op->bytes,
				      op->segs_done);
	}
}

/*
 * Segment @nr from byte @done on, when source and destination do not
 * overlap: nr_bufs chunks in flight, each in its own part of the buffer
 * with its own READ and WRITE; a part is read again once its WRITE is in.
 * With be_chunks, want_bufs chunks in flight, each a copy_range() and no
 * buffer. The checks of each chunk run before it is issued; the first
 * failure stops the issuing, and what is in flight ends before the
 * segment does.
 */
static sense_reason_t kt_xcopy_deep(struct kt_xcopy_op *op, unsigned int nr,
				    struct kt_dev *src, u64 src_pos,
				    struct kt_dev *dst, u64 dst_pos,
				    u64 done, u64 total, u32 chunk)
{
	const struct kt_xcopy_segment *seg = &op->list.seg[nr];
	sense_reason_t reason = KT_SENSE_NONE;
	unsigned int depth = op->be_chunks ? op->want_bufs : op->nr_bufs;
	bool revoked = false, aborted = false;
	unsigned int k, busy = 0;
	struct kt_xcopy_slot *s;

	for (k = 0;; k++) {
		s = &op->pipe[k % depth];
		if (s->busy) {
			kt_xcopy_slot_reap(op, s, &reason, &revoked);
			busy--;
		}
		if (!reason && !revoked && !aborted && done < total) {
			aborted = test_bit(KT_CMD_ABORTED, &op->cmd->flags);
			if (!aborted)
				reason = kt_xcopy_chunk_check(op, seg);
		}
		if (reason || revoked || aborted || done == total) {
			if (!busy)
				break;
			continue;
		}
		if (!op->be_chunks)
			s->buf = op->buf[k % depth];
		s->src = src;
		s->dst = dst;
		s->src_pos = src_pos + done;
		s->dst_pos = dst_pos + done;
		s->len = min_t(u64, chunk, total - done);
		s->writing = false;
		s->revoked = false;
		s->reason = KT_SENSE_NONE;
		s->busy = true;
		reinit_completion(&s->done);
		queue_work(kt_xcopy_io_wq, &s->work);
		done += s->len;
		busy++;
	}
	if (revoked)
		return kt_xcopy_revoked(op);
	if (reason)
		return kt_xcopy_io_error(op, reason, nr);
	if (aborted) {
		atomic64_inc(&op->cmd->dev->state->xcopy_stat.aborts);
		return KT_SENSE_ABORTED_COMMAND;
	}
	return KT_SENSE_NONE;
}

/* Where chunk @done of a segment starts, and its length. */
static void kt_xcopy_chunk(const struct kt_xcopy_span *span, bool backward,
			   u32 chunk, u64 done, u64 *off, u32 *n)
{
	*n = min_t(u64, chunk, span->bytes - done);
	*off = backward ? span->bytes - done - *n : done;
}

/*
 * The backstore's part of segment @nr: all of it in one copy_range(); or,
 * where its copy moves the data and the plan keeps several chunks in
 * flight, a first chunk, then the rest chunk by chunk (kt_xcopy_deep()).
 * *@done: the bytes copied from the start of the segment. Returns true
 * when the segment is over, with *@reason saying how.
 */
static bool kt_xcopy_segment_fast(struct kt_xcopy_op *op, unsigned int nr,
				  struct kt_dev *src, u64 src_pos,
				  struct kt_dev *dst, u64 dst_pos, u32 unit,
				  u64 *done, sense_reason_t *reason)
{
	const struct kt_xcopy_span *span = &op->span[nr];
	struct kt_xcopy_stat *st = &op->cmd->dev->state->xcopy_stat;
	u32 chunk = op->sgl_len & ~(unit - 1);
	u64 len = span->bytes;

	*done = 0;
	if (!kt_xcopy_can_fast(src, src_pos, dst, dst_pos, len))
		return false;
	if (src->ops->copy_moves_data && op->want_bufs > 2 && chunk &&
	    chunk < len)
		len = chunk;
	*done = kt_xcopy_fast(op, src, src_pos, dst, dst_pos, len, unit);
	op->bytes += *done;
	atomic64_add(*done, &st->bytes);
	if (*done != len)
		return false;
	*reason = KT_SENSE_NONE;
	if (len < span->bytes) {
		op->be_chunks = true;
		*reason = kt_xcopy_deep(op, nr, src, src_pos, dst, dst_pos,
					len, span->bytes, chunk);
		op->be_chunks = false;
	}
	if (!*reason)
		atomic64_inc(&st->fast_copies);
	return true;
}

/*
 * Copy segment @nr chunk by chunk, reading chunk i + 1 into one buffer
 * while chunk i is written from the other. Within one device, a
 * destination that starts inside the source is copied from the end
 * backwards, so that every block is read before it is overwritten; the
 * READ that runs beside a WRITE then never covers blocks that WRITE
 * changes, in either direction.
 */
static sense_reason_t kt_xcopy_segment(struct kt_xcopy_op *op,
				       unsigned int nr)
{
	const struct kt_xcopy_segment *seg = &op->list.seg[nr];
	const struct kt_xcopy_span *span = &op->span[nr];
	struct kt_dev *src = kt_xcopy_dev(op, seg->src);
	struct kt_dev *dst = kt_xcopy_dev(op, seg->dst);
	struct kt_xcopy_stat *st = &op->cmd->dev->state->xcopy_stat;
	u64 src_pos = span->src_lba * span->src_bs;
	u64 dst_pos = span->dst_lba * span->dst_bs;
	u32 unit = max(span->src_bs, span->dst_bs);
	bool backward = src == dst && dst_pos > src_pos &&
			dst_pos < src_pos + span->bytes;
	unsigned int cur = 0;
	sense_reason_t reason;
	u64 done, off, next_off;
	u32 chunk, n, next_n;

	if (op->zero)
		return kt_xcopy_zero(op, dst, dst_pos, span->bytes, nr);
	if (kt_xcopy_segment_fast(op, nr, src, src_pos, dst, dst_pos, unit,
				  &done, &reason))
		return reason;
	reason = kt_xcopy_alloc(op);
	if (reason)
		return reason;
	chunk = op->sgl_len & ~(unit - 1);
	if (WARN_ON_ONCE(!chunk))
		return kt_xcopy_io_error(op, KT_SENSE_LU_COMM_FAILURE, nr);
	if (op->nr_bufs > 2 &&
	    (src != dst || src_pos >= dst_pos + span->bytes ||
	     dst_pos >= src_pos + span->bytes))
		return kt_xcopy_deep(op, nr, src, src_pos, dst, dst_pos, done,
				     span->bytes, chunk);

	kt_xcopy_chunk(span, backward, chunk, done, &off, &n);
	kt_xcopy_read_start(op, src, cur, src_pos + off, n);
	for (;;) {
		reason = kt_xcopy_read_wait(op);
		if (!reason)
			reason = kt_xcopy_chunk_check(op, seg);
		if (reason)
			return kt_xcopy_io_error(op, reason, nr);
		/* what was read is the token's data only if nothing changed it */
		if (op->token && kt_rod_token_revoked(op->token))
			return kt_xcopy_revoked(op);
		kt_xcopy_chunk(span, backward, chunk, done + n, &next_off,
			       &next_n);
		if (op->nr_bufs >= 2 && done + n < span->bytes &&
		    !test_bit(KT_CMD_ABORTED, &op->cmd->flags))
			kt_xcopy_read_start(op, src, cur ^ 1,
					    src_pos + next_off, next_n);
		reason = kt_xcopy_write(op, dst, cur, dst_pos + off, n);
		if (reason) {
			kt_xcopy_read_wait(op);
			return kt_xcopy_io_error(op, reason, nr);
		}
		done += n;
		op->bytes += n;
		atomic64_inc(&st->chunks);
		atomic64_add(n, &st->bytes);
		kt_xcopy_ids_progress(op->cmd->sess, op->slot, op->bytes,
				      op->segs_done);
		if (done == span->bytes)
			return KT_SENSE_NONE;
		if (test_bit(KT_CMD_ABORTED, &op->cmd->flags)) {
			kt_xcopy_read_wait(op);
			atomic64_inc(&st->aborts);
			return KT_SENSE_ABORTED_COMMAND;
		}
		if (op->nr_bufs >= 2)
			cur ^= 1;
		else
			kt_xcopy_read_start(op, src, cur, src_pos + next_off,
					    next_n);
		off = next_off;
		n = next_n;
	}
}

static void kt_xcopy_free(struct kt_xcopy_op *op)
{
	unsigned int i;

	/* the READ is over, but the work that issued it may still be returning */
	flush_work(&op->rd_work);
	for (i = 0; i < KT_XCOPY_DEPTH_MAX; i++)
		flush_work(&op->pipe[i].work);
	for (i = 0; i < KT_XCOPY_MAX_CSCD; i++)
		if (op->lun[i])
			kt_lun_put(op->lun[i]);
	if (op->sgl)
		kt_xcopy_buf_put(op->cmd->sess, op->sgl, op->sg_cap);
	kvfree(op);
}

/*
 * SPC-4 6.4.3: at most TOTAL CONCURRENT COPIES of a copy manager run at
 * once, whatever their LIST ID USAGE (11b holds no slot of xcopy_rcr.c):
 * each one queues work that reads and writes up to 64 segments of 256 MiB.
 * A nexus takes a slot only while it holds fewer copies than the LU has
 * slots free: alone it gets half of them, each newcomer finds one while any
 * is free, and the total never passes TOTAL. What a nexus holds is counted
 * over all LUs, which only ever refuses more. The others' copies are BUSY.
 */
static bool kt_xcopy_run_get(struct kt_cmd *cmd)
{
	int mine = atomic_inc_return(&cmd->sess->xcopy_running) - 1;
	int all = atomic_inc_return(&cmd->dev->state->xcopy_running);

	/* mine < the slots free before this one, MAX - (all - 1) */
	if (mine + all <= KT_XCOPY_MAX_CONCURRENT)
		return true;
	atomic_dec(&cmd->dev->state->xcopy_running);
	atomic_dec(&cmd->sess->xcopy_running);
	pr_debug("device %u: %d copies of this nexus, %d in all: EXTENDED COPY refused\n",
		 cmd->dev->index, mine, all - 1);
	return false;
}

static void kt_xcopy_run_put(struct kt_cmd *cmd)
{
	atomic_dec(&cmd->dev->state->xcopy_running);
	atomic_dec(&cmd->sess->xcopy_running);
}

static void kt_xcopy_work(struct work_struct *work)
{
	struct kt_xcopy_op *op = container_of(work, struct kt_xcopy_op, work);
	struct kt_cmd *cmd = op->cmd;
	struct kt_xcopy_stat *st = &cmd->dev->state->xcopy_stat;
	unsigned int noio = memalloc_noio_save();	/* see kt_xcopy_rd_work() */
	sense_reason_t reason;
	unsigned int i;

	atomic64_inc(&st->operations);
	reason = op->token_copy ? KT_SENSE_NONE : kt_xcopy_resolve(op);
	if (!reason)
		reason = kt_xcopy_plan(op);
	for (i = 0; !reason && i < op->list.nr_seg; i++) {
		/* aborted (a TMF, its nexus gone): no further segment starts */
		if (i && test_bit(KT_CMD_ABORTED, &cmd->flags)) {
			atomic64_inc(&st->aborts);
			reason = KT_SENSE_ABORTED_COMMAND;
			break;
		}
		reason = kt_xcopy_segment(op, i);
		if (!reason) {
			op->segs_done++;
			atomic64_inc(&st->segments);
		}
	}
	if (reason)
		atomic64_inc(&st->failures);
	if (op->token)
		kt_rod_token_done(op->token, op->del_tkn && !reason, op->bytes);
	op->token = NULL;
	kt_xcopy_ids_progress(cmd->sess, op->slot, op->bytes, op->segs_done);
	kt_xcopy_ids_finish(cmd, op->slot, reason);
	kt_xcopy_free(op);
	kt_xcopy_run_put(cmd);
	kt_cmd_complete(cmd, reason);
	memalloc_noio_restore(noio);
}

/*
 * One of the copy's internal commands: what the checks of
 * kt_xcopy_io_check() and the backstore see of it is a READ (16) or a
 * WRITE (16) of @cmd's nexus, with the descriptor the table has for it.
 */
static void kt_xcopy_io_init(struct kt_cmd *io, struct kt_cmd *cmd,
			     bool write)
{
	kt_cmd_init_internal(io, cmd->sess, cmd->tag,
			     write ? KT_DATA_OUT : KT_DATA_IN);
	io->cdb[0] = write ? WRITE_16 : READ_16;
	io->desc = kt_cdb_desc_find(io->cdb, sizeof(io->cdb));
}

/* Hand the planned copy @op of @cmd to the copy workqueue. */
static void kt_xcopy_start(struct kt_xcopy_op *op, struct kt_cmd *cmd)
{
	struct kt_xcopy_slot *s;
	unsigned int i;

	op->cmd = cmd;
	init_completion(&op->rd_done);
	init_completion(&op->wr_done);
	INIT_WORK(&op->rd_work, kt_xcopy_rd_work);
	kt_xcopy_io_init(&op->rd, cmd, false);
	kt_xcopy_io_init(&op->wr, cmd, true);
	for (i = 0; i < KT_XCOPY_DEPTH_MAX; i++) {
		s = &op->pipe[i];
		s->op = op;
		init_completion(&s->done);
		INIT_WORK(&s->work, kt_xcopy_slot_work);
		kt_xcopy_io_init(&s->rd, cmd, false);
		kt_xcopy_io_init(&s->wr, cmd, true);
	}
	INIT_WORK(&op->work, kt_xcopy_work);
	queue_work(kt_xcopy_wq, &op->work);
}

/* EXTENDED COPY (LID1): the parameter list is in cmd->sgl. */
void kt_xcopy_execute(struct kt_cmd *cmd)
{
	u32 len = min_t(u32, cmd->data_length, KT_XCOPY_MAX_PARAM_LEN);
	sense_reason_t reason = KT_SENSE_NONE;
	struct kt_xcopy_op *op;
	struct kt_xcopy_err err;
	u8 *buf;
	u8 usage;

	op = kvzalloc(sizeof(*op), GFP_KERNEL);
	buf = kmalloc(max_t(u32, len, 1), GFP_KERNEL);
	if (!op || !buf) {
		kfree(buf);
		kvfree(op);
		kt_cmd_complete(cmd, KT_SENSE_OUT_OF_RESOURCES);
		return;
	}
	sg_copy_to_buffer(cmd->sgl, cmd->sg_nents, buf, len);

	switch (kt_xcopy_parse(buf, len, &op->list, &err)) {
	case KT_XCOPY_OK:
		break;
	case KT_XCOPY_EMPTY:
		kfree(buf);
		kvfree(op);
		kt_cmd_complete(cmd, KT_SENSE_NONE);
		return;
	default:
		reason = kt_xcopy_set_err(cmd, &err);
		kfree(buf);
		kvfree(op);
		kt_cmd_complete(cmd, reason);
		return;
	}
	kfree(buf);

	if (!kt_xcopy_run_get(cmd)) {
		kvfree(op);
		kt_cmd_complete(cmd, KT_SENSE_OUT_OF_RESOURCES);	/* BUSY */
		return;
	}
	op->slot = KT_XCOPY_NO_SLOT;
	usage = op->list.list_id_usage;
	if (usage == KT_XCOPY_LIST_ID_HOLD || usage == KT_XCOPY_LIST_ID_NO_HOLD) {
		op->slot = kt_xcopy_ids_claim(cmd, op->list.list_id,
					      KT_XCOPY_KIND_LID1,
					      usage == KT_XCOPY_LIST_ID_HOLD,
					      &reason);
		if (op->slot == KT_XCOPY_NO_SLOT) {
			kt_xcopy_run_put(cmd);
			kvfree(op);
			kt_cmd_complete(cmd, reason);
			return;
		}
	}
	kt_xcopy_start(op, cmd);
}

void kt_xcopy_token_run(struct kt_cmd *cmd, struct kt_lun *src,
			struct kt_rod_token *token, bool del_tkn,
			const struct kt_xcopy_span *span, unsigned int nr,
			int slot)
{
	struct kt_xcopy_op *op;
	unsigned int i;

	op = kvzalloc(sizeof(*op), GFP_KERNEL);
	if (!op || WARN_ON_ONCE(nr > KT_XCOPY_MAX_SEGMENTS) ||
	    !kt_xcopy_run_get(cmd)) {
		kvfree(op);
		if (src)
			kt_lun_put(src);
		if (token)
			kt_rod_token_done(token, false, false);
		kt_xcopy_ids_finish(cmd, slot, KT_SENSE_OUT_OF_RESOURCES);
		kt_cmd_complete(cmd, KT_SENSE_OUT_OF_RESOURCES);
		return;
	}
	op->token_copy = true;
	op->zero = !token;
	op->del_tkn = del_tkn;
	op->token = token;
	op->lun[0] = src;
	op->slot = slot;
	op->list.nr_seg = nr;
	for (i = 0; i < nr; i++) {
		op->list.seg[i].src = src ? 0 : KT_XCOPY_CSCD_LOCAL;
		op->list.seg[i].dst = KT_XCOPY_CSCD_LOCAL;
		op->span[i] = span[i];
	}
	kt_xcopy_start(op, cmd);
}

int kt_xcopy_init(void)
{
	kt_rod_init();
	kt_xcopy_wq = alloc_workqueue("kt_xcopy", WQ_MEM_RECLAIM | WQ_UNBOUND,
				      0);
	if (!kt_xcopy_wq)
		return -ENOMEM;
	kt_xcopy_io_wq = alloc_workqueue("kt_xcopy_io",
					 WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	if (!kt_xcopy_io_wq) {
		destroy_workqueue(kt_xcopy_wq);
		return -ENOMEM;
	}
	return 0;
}

void kt_xcopy_exit(void)
{
	kt_rod_exit();
	destroy_workqueue(kt_xcopy_wq);
	destroy_workqueue(kt_xcopy_io_wq);
	kt_xcopy_buf_exit();
}
