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
 *     the copy for the next one (xcopy_buf.c). While one half is
 *     written, the next chunk is read into the other, the READ issued
 *     from a second work item so that synchronous backstores (zram, rd)
 *     overlap too;
 *   - stops between chunks when a task management function aborts it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include <ktarget/backend.h>
#include <ktarget/fabric.h>
#include <ktarget/proto/cdb.h>
#include <ktarget/proto/spc.h>

#include "alua.h"
#include "core.h"
#include "pr.h"
#include "xcopy.h"

#define KT_XCOPY_CHUNK_MAX_KB	16384	/* default and largest chunk */
#define KT_XCOPY_CHUNK_MIN	KT_XCOPY_MAX_BLOCK_SIZE
#define KT_XCOPY_LUNS_MAX	1024	/* LUNs of a nexus searched by designator */

static unsigned int xcopy_max_chunk_kb = KT_XCOPY_CHUNK_MAX_KB;
module_param(xcopy_max_chunk_kb, uint, 0644);
MODULE_PARM_DESC(xcopy_max_chunk_kb,
		 "Largest EXTENDED COPY read/write chunk in KiB (64-16384)");

static bool xcopy_backend_copy = true;
module_param(xcopy_backend_copy, bool, 0644);
MODULE_PARM_DESC(xcopy_backend_copy,
		 "Let a backstore copy between its own devices (copy_range)");

static struct workqueue_struct *kt_xcopy_wq;
/* the READs issued beside a copy's WRITE; they never wait for a copy */
static struct workqueue_struct *kt_xcopy_io_wq;

/* One half of the copy buffer. */
struct kt_xcopy_buf {
	struct scatterlist	*sgl;
	unsigned int		nents;
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
	struct kt_xcopy_buf	buf[2];
	unsigned int		nr_bufs;	/* 2: READ and WRITE overlap */
	bool			want_two;	/* a segment spans chunks */
	u32			sgl_len;	/* bytes of one buffer */
	int			slot;		/* held results, or KT_XCOPY_NO_SLOT */
	/*
	 * WRITE USING TOKEN: the spans come made, from the token's LU
	 * (lun[0]) to the LU of the command; the token, referenced, is
	 * checked after every READ. @zero: the block device zero token.
	 */
	bool			token_copy;
	bool			zero;
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
 * Find the logical unit of every CSCD descriptor a segment uses, among the
 * LUNs of the issuing I_T nexus only (CVE-2020-28374). A designator no LUN
 * of the nexus has ends the copy before anything is read or written.
 */
static sense_reason_t kt_xcopy_resolve(struct kt_xcopy_op *op)
{
	struct kt_cmd *cmd = op->cmd;
	u8 naa[KT_SPC_NAA_LEN];
	unsigned int i, j, n, user;
	struct kt_lun *lun;
	u64 *luns;
	bool wp;

	luns = kmalloc_array(KT_XCOPY_LUNS_MAX, sizeof(*luns), GFP_KERNEL);
	if (!luns)
		return KT_SENSE_OUT_OF_RESOURCES;
	n = kt_session_list_luns(cmd->sess, luns, KT_XCOPY_LUNS_MAX);

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
			if (kt_xcopy_cscd_match(&op->list.cscd[i],
						KT_XCOPY_DESIG_NAA, naa,
						sizeof(naa))) {
				op->lun[i] = lun;
				op->wp[i] = wp;
			} else {
				kt_lun_put(lun);
			}
		}
		if (!op->lun[i]) {
			kfree(luns);
			return kt_xcopy_abort_seg(cmd,
					KT_XCOPY_ASC_TARGET_NOT_REACHABLE, user,
					op->list.cscd[i].offset);
		}
	}
	kfree(luns);
	return KT_SENSE_NONE;
}

/*
 * The copy's READ (@io is op->rd) or WRITE (op->wr) of CSCD @id faces
 * every check the same command from the issuing nexus would: write
 * protection (the ACL's, and the LU's SWP), a SANITIZE running or failed,
 * the port's ALUA access state, reservations. Checked when the copy is
 * planned and again before each chunk, as any of them may change while
 * the copy runs; @io is idle then. A NOT READY keeps its ASC for the copy.
 */
static sense_reason_t kt_xcopy_io_check(struct kt_xcopy_op *op,
					struct kt_cmd *io, u16 id)
{
	struct kt_dev *dev = kt_xcopy_dev(op, id);
	sense_reason_t reason;

	if (io == &op->wr && (kt_xcopy_wp(op, id) || READ_ONCE(dev->state->swp)))
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
		largest = max(largest, op->span[i].bytes);
	}
	/* a chunk holds a whole block of either side, whatever the limits */
	limit = max_t(u64, limit, KT_XCOPY_CHUNK_MIN);
	op->sgl_len = min(limit, largest);
	/* halves split on a page: both hold whole pages */
	op->want_two = largest > op->sgl_len && PAGE_ALIGNED(op->sgl_len);
	return KT_SENSE_NONE;
}

/*
 * The one scatterlist of the copy, taken when the first chunk needs it:
 * two buffers of sgl_len when a segment spans several chunks, else one;
 * one buffer, then smaller ones, when memory is short.
 */
static sense_reason_t kt_xcopy_alloc(struct kt_xcopy_op *op)
{
	struct kt_xcopy_stat *st = &op->cmd->dev->state->xcopy_stat;
	unsigned int half;
	bool fresh;

	while (!op->sgl && op->sgl_len) {
		op->nr_bufs = op->want_two ? 2 : 1;
		op->sgl = kt_xcopy_buf_get(op->sgl_len * op->nr_bufs,
					   &op->sg_nents, &op->sg_cap, &fresh);
		/* a spare is never NULL: a failed attempt is an allocation */
		atomic64_inc(fresh ? &st->sgl_allocs : &st->sgl_reuses);
		if (op->sgl)
			break;
		if (op->want_two) {
			op->want_two = false;
			continue;
		}
		if (op->sgl_len <= KT_XCOPY_CHUNK_MIN)
			return KT_SENSE_OUT_OF_RESOURCES;
		op->sgl_len = max_t(u32, op->sgl_len / 2, KT_XCOPY_CHUNK_MIN);
	}
	if (!op->sgl)
		return KT_SENSE_OUT_OF_RESOURCES;
	op->buf[0] = (struct kt_xcopy_buf){ op->sgl, op->sg_nents };
	if (op->nr_bufs == 2) {
		/* one page per entry: the halves meet at an entry */
		half = op->sg_nents / 2;
		sg_mark_end(&op->sgl[half - 1]);
		op->buf[0].nents = half;
		op->buf[1] = (struct kt_xcopy_buf){ op->sgl + half,
						    op->sg_nents - half };
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
	op->rd.dev->ops->rw(&op->rd, false, op->rd_pos, op->rd_len, false);
}

static void kt_xcopy_rd_work(struct work_struct *work)
{
	kt_xcopy_rd_issue(container_of(work, struct kt_xcopy_op, rd_work));
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
	if (op->nr_bufs == 2)
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
	op->wr.dev = dev;
	op->wr.sgl = op->buf[b].sgl;
	op->wr.sg_nents = op->buf[b].nents;
	op->wr.be_done = kt_xcopy_wr_done;
	reinit_completion(&op->wr_done);
	kt_rod_changed(dev, pos / dev->attrib.block_size,
		       len / dev->attrib.block_size);
	dev->ops->rw(&op->wr, true, pos, len, false);
	wait_for_completion(&op->wr_done);
	return op->wr_reason;
}

/*
 * A backstore error while moving segment @nr; what a READ or WRITE of the
 * nexus would have been told (write protection, a reservation, ALUA,
 * SANITIZE) is told as it is.
 */
static sense_reason_t kt_xcopy_io_error(struct kt_xcopy_op *op,
					sense_reason_t reason, unsigned int nr)
{
	if (reason == KT_SENSE_WRITE_PROTECTED ||
	    reason == KT_SENSE_RESERVATION_CONFLICT ||
	    reason == KT_SENSE_NOT_READY ||
	    reason == KT_SENSE_SANITIZE_IN_PROGRESS ||
	    reason == KT_SENSE_SANITIZE_FAILED)
		return reason;
	return kt_xcopy_abort_seg(op->cmd, KT_XCOPY_ASC_3PC_DEV_FAILURE, nr,
				  -1);
}

/*
 * Let the backstore copy what it can itself, when source and destination
 * are its devices and the ranges do not overlap. Returns the bytes done,
 * in whole blocks of both sides.
 */
static u64 kt_xcopy_fast(struct kt_xcopy_op *op, struct kt_dev *src,
			 u64 src_pos, struct kt_dev *dst, u64 dst_pos,
			 u64 len, u32 unit)
{
	struct kt_xcopy_stat *st = &op->cmd->dev->state->xcopy_stat;
	s64 ret;

	if (src->ops != dst->ops || !src->ops->copy_range || !len ||
	    !READ_ONCE(xcopy_backend_copy))
		return 0;
	if (src == dst && src_pos < dst_pos + len && dst_pos < src_pos + len)
		return 0;
	if (op->token && kt_rod_token_revoked(op->token))
		return 0;
	kt_rod_changed(dst, dst_pos / dst->attrib.block_size,
		       len / dst->attrib.block_size);
	ret = src->ops->copy_range(dst, dst_pos, src, src_pos, len);
	/* a token over the source may have been revoked while it ran */
	if (ret > 0 && op->token && kt_rod_token_revoked(op->token))
		return 0;
	if (ret <= 0)
		return 0;
	kt_lbp_consumed(dst, op->cmd->sess, ret);
	ret = min_t(u64, ret, len) & ~(u64)(unit - 1);
	if (ret == len)
		atomic64_inc(&st->fast_copies);
	atomic64_add(ret, &st->bytes);
	return ret;
}

/* WRITE USING TOKEN: a write changed the token's blocks since it was made */
static sense_reason_t kt_xcopy_revoked(struct kt_xcopy_op *op)
{
	struct kt_xcopy_err err;

	kt_rod_err(&err, KT_ROD_ASC_TOKEN_REVOKED);
	return kt_xcopy_set_err(op->cmd, &err);
}

/* WRITE USING TOKEN with the block device zero token: @len zeroes at @pos */
static sense_reason_t kt_xcopy_zero(struct kt_xcopy_op *op,
				    struct kt_dev *dst, u64 pos, u64 len,
				    unsigned int nr)
{
	sense_reason_t reason;

	reason = kt_xcopy_io_check(op, &op->wr, KT_XCOPY_CSCD_LOCAL);
	if (reason)
		return reason;
	kt_rod_changed(dst, pos / dst->attrib.block_size,
		       len / dst->attrib.block_size);
	reason = dst->ops->write_zeroes(dst, pos, len);
	if (reason)
		return kt_xcopy_io_error(op, reason, nr);
	op->bytes += len;
	atomic64_add(len, &op->cmd->dev->state->xcopy_stat.bytes);
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
	done = kt_xcopy_fast(op, src, src_pos, dst, dst_pos, span->bytes, unit);
	op->bytes += done;
	if (done == span->bytes)
		return KT_SENSE_NONE;
	reason = kt_xcopy_alloc(op);
	if (reason)
		return reason;
	chunk = op->sgl_len & ~(unit - 1);
	if (WARN_ON_ONCE(!chunk))
		return kt_xcopy_io_error(op, KT_SENSE_LU_COMM_FAILURE, nr);

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
		if (op->nr_bufs == 2 && done + n < span->bytes &&
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
		if (op->nr_bufs == 2)
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
	for (i = 0; i < KT_XCOPY_MAX_CSCD; i++)
		if (op->lun[i])
			kt_lun_put(op->lun[i]);
	if (op->sgl)
		kt_xcopy_buf_put(op->sgl, op->sg_cap);
	kfree(op);
}

/*
 * SPC-4 6.4.3: at most MAXIMUM CONCURRENT COPIES of a nexus and TOTAL
 * CONCURRENT COPIES of a copy manager run at once, whatever their LIST ID
 * USAGE (11b holds no slot of xcopy_rcr.c): each one queues work that
 * reads and writes up to 64 segments of 256 MiB.
 */
static bool kt_xcopy_run_get(struct kt_cmd *cmd)
{
	if (atomic_inc_return(&cmd->sess->xcopy_running) >
	    KT_XCOPY_MAX_CONCURRENT)
		goto nexus;
	if (atomic_inc_return(&cmd->dev->state->xcopy_running) >
	    KT_XCOPY_MAX_CONCURRENT)
		goto dev;
	return true;
dev:
	atomic_dec(&cmd->dev->state->xcopy_running);
nexus:
	atomic_dec(&cmd->sess->xcopy_running);
	pr_debug("device %u: %d copies of this nexus, %d in all: EXTENDED COPY refused\n",
		 cmd->dev->index, atomic_read(&cmd->sess->xcopy_running),
		 atomic_read(&cmd->dev->state->xcopy_running));
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
	sense_reason_t reason;
	unsigned int i;

	atomic64_inc(&st->operations);
	reason = op->token_copy ? KT_SENSE_NONE : kt_xcopy_resolve(op);
	if (!reason)
		reason = kt_xcopy_plan(op);
	for (i = 0; !reason && i < op->list.nr_seg; i++) {
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
}

/* Hand the planned copy @op of @cmd to the copy workqueue. */
static void kt_xcopy_start(struct kt_xcopy_op *op, struct kt_cmd *cmd)
{
	op->cmd = cmd;
	init_completion(&op->rd_done);
	init_completion(&op->wr_done);
	INIT_WORK(&op->rd_work, kt_xcopy_rd_work);
	kt_cmd_init(&op->rd, &kt_internal_ops, cmd->sess, cmd->tag,
		    KT_DATA_IN, 0, KT_TASK_SIMPLE);
	kt_cmd_init(&op->wr, &kt_internal_ops, cmd->sess, cmd->tag,
		    KT_DATA_OUT, 0, KT_TASK_SIMPLE);
	/*
	 * What the checks of kt_xcopy_io_check() see of them: a READ (16)
	 * and a WRITE (16), with the descriptors the table has for those.
	 */
	op->rd.cdb[0] = READ_16;
	op->wr.cdb[0] = WRITE_16;
	op->rd.desc = kt_cdb_desc_find(op->rd.cdb, sizeof(op->rd.cdb));
	op->wr.desc = kt_cdb_desc_find(op->wr.cdb, sizeof(op->wr.cdb));
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

	op = kzalloc(sizeof(*op), GFP_KERNEL);
	buf = kmalloc(max_t(u32, len, 1), GFP_KERNEL);
	if (!op || !buf) {
		kfree(buf);
		kfree(op);
		kt_cmd_complete(cmd, KT_SENSE_OUT_OF_RESOURCES);
		return;
	}
	sg_copy_to_buffer(cmd->sgl, cmd->sg_nents, buf, len);

	switch (kt_xcopy_parse(buf, len, &op->list, &err)) {
	case KT_XCOPY_OK:
		break;
	case KT_XCOPY_EMPTY:
		kfree(buf);
		kfree(op);
		kt_cmd_complete(cmd, KT_SENSE_NONE);
		return;
	default:
		reason = kt_xcopy_set_err(cmd, &err);
		kfree(buf);
		kfree(op);
		kt_cmd_complete(cmd, reason);
		return;
	}
	kfree(buf);

	if (!kt_xcopy_run_get(cmd)) {
		kfree(op);
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
			kfree(op);
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

	op = kzalloc(sizeof(*op), GFP_KERNEL);
	if (!op || WARN_ON_ONCE(nr > KT_XCOPY_MAX_SEGMENTS) ||
	    !kt_xcopy_run_get(cmd)) {
		kfree(op);
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
