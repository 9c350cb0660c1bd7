// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_srpt: SRP_CMD and its SRP_RSP (SRP r16a 6.8, 6.9). The command
 * is read out of its receive buffer into a struct kt_srpt_cmd (its
 * descriptors copied: the buffer is posted again at once) and handed to
 * the core. Its data moves between the core's buffer and the initiator's
 * with rdma_rw, one context per remote buffer the data reaches, each over
 * a slice of the core's scatterlist (rw_sg: entries of its own, so that a
 * page two descriptors share is mapped once per context):
 *
 *	write	write_pending: RDMA READs, the last one signalled;
 *		kt_srpt_fetch_done(): kt_cmd_data_out_done()
 *	read	queue_data_in: from a work item (rdma_rw_ctx_init() may
 *		sleep), RDMA WRITEs with the SRP_RSP chained behind them
 *	status	queue_status: the SRP_RSP alone, from any context
 *
 * The SRP_RSP's completion drops the fabric's reference. Send queue
 * entries are counted (sq_avail); a command that finds too few waits on
 * ch->sq_wait, in order, until completions give them back. Once the
 * channel is down nothing is posted and each waiting or failing command
 * drops its reference as its answer would have.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/unaligned.h>

#include <ktarget/proto/lun.h>

#include "srpt.h"

/* parse.h's lengths are SRP's, as <scsi/srp.h> has them */
static_assert(sizeof(struct srp_cmd) == KT_SRPT_CMD_LEN);
static_assert(sizeof(struct srp_direct_buf) == KT_SRPT_DESC_LEN);
static_assert(sizeof(struct srp_indirect_buf) == KT_SRPT_IND_HDR_LEN);
static_assert(SRP_DATA_DESC_DIRECT == KT_SRPT_FMT_DIRECT);
static_assert(SRP_DATA_DESC_INDIRECT == KT_SRPT_FMT_INDIRECT);

void kt_srpt_live_put(struct kt_srpt_ch *ch)
{
	/* the channel may go once the count is 0: the wake-up uses its address */
	atomic_dec(&ch->live);
	/* the count drops before the wake-up looks at the wait queue */
	smp_mb__after_atomic();
	wake_up_var(&ch->live);
}

int kt_srpt_send_map(struct kt_srpt_ch *ch, struct kt_srpt_send *s, u32 len,
		     void (*done)(struct ib_cq *cq, struct ib_wc *wc))
{
	s->dma = ib_dma_map_single(ch->dev, s->buf, len, DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ch->dev, s->dma))
		return -ENOMEM;
	s->mapped = true;
	s->sge = (struct ib_sge){ s->dma, len, ch->pd->local_dma_lkey };
	s->cqe.done = done;
	s->wr = (struct ib_send_wr){
		.wr_cqe = &s->cqe,
		.sg_list = &s->sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	return 0;
}

void kt_srpt_send_unmap(struct kt_srpt_ch *ch, struct kt_srpt_send *s)
{
	if (s->mapped)
		ib_dma_unmap_single(ch->dev, s->dma, s->sge.length,
				    DMA_TO_DEVICE);
	s->mapped = false;
}

/* ---- rdma_rw over slices of the core's buffer ---- */

/* The contexts go, with their slices; nothing left to free after. */
static void kt_srpt_rw_free(struct kt_srpt_cmd *scmd)
{
	struct kt_srpt_ch *ch = scmd->ch;
	u32 j;

	for (j = 0; j < scmd->nr_rw; j++)
		rdma_rw_ctx_destroy(&scmd->rw[j], ch->qp, ch->port,
				    scmd->rw_sg + scmd->rw_first[j],
				    scmd->rw_nents[j], scmd->rw_dir);
	scmd->nr_rw = 0;
	kfree(scmd->rw);
	scmd->rw = NULL;
	kfree(scmd->rw_sg);
	scmd->rw_sg = NULL;
}

/*
 * Set up the RDMA READs or WRITEs of cmd->data_length bytes, the remote
 * buffers in order; *n_wr: the send queue entries they take.
 */
static int kt_srpt_rw_init(struct kt_srpt_cmd *scmd,
			   enum dma_data_direction dir, u32 *n_wr)
{
	struct kt_srpt_ch *ch = scmd->ch;
	struct kt_cmd *cmd = &scmd->cmd;
	struct scatterlist *sg = cmd->sgl;
	u32 left = cmd->data_length, off = 0, used = 0, nr = 0, i, j;
	u32 nsg = cmd->sg_nents + scmd->ndesc;
	u32 *desc_of;
	int ret;

	for (i = 0; i < scmd->ndesc && left; i++) {
		if (scmd->desc[i].len)
			nr++;
		left -= min(left, scmd->desc[i].len);
	}
	if (left || !nr)
		return -EINVAL;

	/* the contexts, then each one's first entry, count and descriptor */
	scmd->rw = kzalloc(nr * (sizeof(*scmd->rw) + 3 * sizeof(u32)),
			   GFP_NOIO);
	scmd->rw_sg = kmalloc_array(nsg, sizeof(*scmd->rw_sg), GFP_NOIO);
	if (!scmd->rw || !scmd->rw_sg) {
		kt_srpt_rw_free(scmd);
		return -ENOMEM;
	}
	scmd->rw_first = (u32 *)(scmd->rw + nr);
	scmd->rw_nents = scmd->rw_first + nr;
	desc_of = scmd->rw_nents + nr;
	sg_init_table(scmd->rw_sg, nsg);

	left = cmd->data_length;
	for (i = 0, j = 0; i < scmd->ndesc && left; i++) {
		u32 len = min(left, scmd->desc[i].len);

		if (!len)
			continue;
		left -= len;
		scmd->rw_first[j] = used;
		desc_of[j] = i;
		while (len) {
			u32 piece;

			if (!sg || used >= nsg) {
				kt_srpt_rw_free(scmd);
				return -EINVAL;
			}
			piece = min(sg->length - off, len);
			sg_set_page(&scmd->rw_sg[used++], sg_page(sg), piece,
				    sg->offset + off);
			off += piece;
			len -= piece;
			if (off == sg->length) {
				sg = sg_next(sg);
				off = 0;
			}
		}
		scmd->rw_nents[j] = used - scmd->rw_first[j];
		j++;
	}

	*n_wr = 0;
	scmd->rw_dir = dir;
	for (j = 0; j < nr; j++) {
		const struct kt_srpt_desc *d = &scmd->desc[desc_of[j]];

		ret = rdma_rw_ctx_init(&scmd->rw[j], ch->qp, ch->port,
				       scmd->rw_sg + scmd->rw_first[j],
				       scmd->rw_nents[j], 0, d->va, d->key, dir);
		if (ret < 0) {
			kt_srpt_rw_free(scmd);
			return ret;
		}
		*n_wr += ret;
		scmd->nr_rw = j + 1;
	}
	return 0;
}

/* ---- posting, and waiting for room ---- */

/* The work requests of @scmd's pending op, linked. */
static struct ib_send_wr *kt_srpt_first_wr(struct kt_srpt_cmd *scmd)
{
	struct kt_srpt_ch *ch = scmd->ch;
	struct ib_send_wr *first;
	struct ib_cqe *cqe;
	u32 j;

	if (scmd->op == KT_SRPT_OP_RSP)
		return &scmd->rsp.wr;
	first = scmd->op == KT_SRPT_OP_DATA_IN ? &scmd->rsp.wr : NULL;
	cqe = scmd->op == KT_SRPT_OP_FETCH ? &scmd->rw_cqe : NULL;
	for (j = scmd->nr_rw; j-- > 0; )
		first = rdma_rw_ctx_wrs(&scmd->rw[j], ch->qp, ch->port, cqe,
					first);
	return first;
}

static bool kt_srpt_sq_get(struct kt_srpt_ch *ch, u32 n)
{
	if (atomic_sub_return(n, &ch->sq_avail) >= 0)
		return true;
	atomic_add(n, &ch->sq_avail);
	return false;
}

/*
 * Under post_lock, as kt_srpt_start() finding too little room and joining
 * the list is: without it, entries given back between the two went
 * unseen by both, and the command waited for a completion that may never
 * come (nothing else in flight).
 */
void kt_srpt_sq_put(struct kt_srpt_ch *ch, u32 n)
{
	unsigned long flags;
	bool waiting;

	spin_lock_irqsave(&ch->post_lock, flags);
	atomic_add(n, &ch->sq_avail);
	waiting = !list_empty(&ch->sq_wait);
	spin_unlock_irqrestore(&ch->post_lock, flags);
	if (waiting)
		queue_work(kt_srpt_wq, &ch->sq_work);
}

/* The op of @scmd answers the command: an SRP_RSP is in it. */
static bool kt_srpt_op_answers(enum kt_srpt_op op)
{
	return op == KT_SRPT_OP_DATA_IN || op == KT_SRPT_OP_RSP;
}

/* An answer claimed in queue_status or queue_data_in is now posted (or never will be). */
void kt_srpt_rsp_posted_locked(struct kt_srpt_ch *ch)
{
	lockdep_assert_held(&ch->post_lock);
	if (atomic_dec_and_test(&ch->rsp_pending))
		kt_srpt_tmf_kick(ch);
}

/*
 * Post @scmd's op now, or queue it behind the others waiting for send
 * queue entries. -errno: the channel is down or the post failed.
 */
static int kt_srpt_start(struct kt_srpt_cmd *scmd, enum kt_srpt_op op)
{
	struct kt_srpt_ch *ch = scmd->ch;
	unsigned long flags;
	int ret = 0;

	scmd->op = op;
	if (scmd->n_wr > ch->sq_size) {
		pr_warn_ratelimited("%s: tag %#llx needs %u send queue entries, srp_sq_size is %u\n",
				    ch->sess.initiator, scmd->tag, scmd->n_wr,
				    ch->sq_size);
		return -ENOSPC;
	}
	spin_lock_irqsave(&ch->post_lock, flags);
	if (ch->down) {
		ret = -ENOTCONN;
	} else if (!list_empty(&ch->sq_wait) || !kt_srpt_sq_get(ch, scmd->n_wr)) {
		list_add_tail(&scmd->wait_node, &ch->sq_wait);
	} else {
		ret = ib_post_send(ch->qp, kt_srpt_first_wr(scmd), NULL);
		if (ret)
			atomic_add(scmd->n_wr, &ch->sq_avail);
		else if (kt_srpt_op_answers(op))
			kt_srpt_rsp_posted_locked(ch);
	}
	spin_unlock_irqrestore(&ch->post_lock, flags);
	return ret;
}

/* @scmd's op cannot go out: it ends here as its completion would have. */
static void kt_srpt_post_failed(struct kt_srpt_cmd *scmd, int err)
{
	struct kt_srpt_ch *ch = scmd->ch;
	enum kt_srpt_op op = scmd->op;
	unsigned long flags;

	scmd->op = KT_SRPT_OP_NONE;
	scmd->n_wr = 0;
	kt_srpt_rw_free(scmd);
	if (kt_srpt_op_answers(op)) {
		spin_lock_irqsave(&ch->post_lock, flags);
		kt_srpt_rsp_posted_locked(ch);
		spin_unlock_irqrestore(&ch->post_lock, flags);
	}
	/*
	 * A write whose RDMA READs can never fit the send queue (-ENOSPC,
	 * warned about in kt_srpt_start()) fails alone, CHECK CONDITION:
	 * closing the channel made the initiator log in again and send it
	 * again. An answer cannot be failed once the core has completed the
	 * command: it still closes the channel.
	 */
	if (op == KT_SRPT_OP_FETCH && err == -ENOSPC) {
		kt_cmd_fail(&scmd->cmd, KT_SENSE_OUT_OF_RESOURCES);
		return;
	}
	if (err != -ENOTCONN) {
		pr_warn_ratelimited("%s: tag %#llx: cannot post: %pe: closing the channel\n",
				    ch->sess.initiator, scmd->tag, ERR_PTR(err));
		kt_srpt_ch_close(ch);
	}
	if (op == KT_SRPT_OP_FETCH) {
		kt_cmd_fail(&scmd->cmd, KT_SENSE_LU_COMM_FAILURE);
		return;
	}
	kt_srpt_send_unmap(ch, &scmd->rsp);
	kt_cmd_put(&scmd->cmd);
}

/* Send queue entries came back: post what waited for them, in order. */
void kt_srpt_sq_work(struct work_struct *work)
{
	struct kt_srpt_ch *ch = container_of(work, struct kt_srpt_ch, sq_work);
	struct kt_srpt_cmd *scmd;
	unsigned long flags;
	unsigned int noio;
	int ret;

	/* what a failure ends (kt_cmd_fail(), the close) allocates no I/O */
	noio = memalloc_noio_save();
	for (;;) {
		spin_lock_irqsave(&ch->post_lock, flags);
		scmd = list_first_entry_or_null(&ch->sq_wait,
						struct kt_srpt_cmd, wait_node);
		if (!scmd || ch->down || !kt_srpt_sq_get(ch, scmd->n_wr)) {
			spin_unlock_irqrestore(&ch->post_lock, flags);
			break;
		}
		list_del_init(&scmd->wait_node);
		ret = ib_post_send(ch->qp, kt_srpt_first_wr(scmd), NULL);
		if (ret)
			atomic_add(scmd->n_wr, &ch->sq_avail);
		else if (kt_srpt_op_answers(scmd->op))
			kt_srpt_rsp_posted_locked(ch);
		spin_unlock_irqrestore(&ch->post_lock, flags);
		if (ret)
			kt_srpt_post_failed(scmd, ret);
	}
	memalloc_noio_restore(noio);
}

/* The channel is down and drained: what waits will never go. */
void kt_srpt_sq_flush(struct kt_srpt_ch *ch)
{
	struct kt_srpt_cmd *scmd;
	unsigned long flags;

	cancel_work_sync(&ch->sq_work);
	for (;;) {
		spin_lock_irqsave(&ch->post_lock, flags);
		scmd = list_first_entry_or_null(&ch->sq_wait,
						struct kt_srpt_cmd, wait_node);
		if (scmd)
			list_del_init(&scmd->wait_node);
		spin_unlock_irqrestore(&ch->post_lock, flags);
		if (!scmd)
			return;
		kt_srpt_post_failed(scmd, -ENOTCONN);
	}
}

/* ---- the answer ---- */

/* SRP r16a 6.9: the SRP_RSP of @scmd; its length */
static u32 kt_srpt_build_rsp(struct kt_srpt_cmd *scmd)
{
	struct kt_srpt_ch *ch = scmd->ch;
	struct kt_cmd *cmd = &scmd->cmd;
	struct srp_rsp *rsp = (struct srp_rsp *)scmd->rsp.buf;
	u32 sense = cmd->sense_len;
	__be32 res = cpu_to_be32(cmd->residual);

	memset(rsp, 0, sizeof(*rsp));
	rsp->opcode = SRP_RSP;
	rsp->tag = scmd->tag;
	rsp->status = cmd->status;
	if (cmd->underflow || cmd->overflow) {
		if (cmd->dir == KT_DATA_IN) {
			rsp->flags |= cmd->underflow ? SRP_RSP_FLAG_DIUNDER :
						       SRP_RSP_FLAG_DIOVER;
			rsp->data_in_res_cnt = res;
		} else if (cmd->dir == KT_DATA_OUT) {
			rsp->flags |= cmd->underflow ? SRP_RSP_FLAG_DOUNDER :
						       SRP_RSP_FLAG_DOOVER;
			rsp->data_out_res_cnt = res;
		}
	}
	sense = min3(sense, (u32)KT_SENSE_MAX_LEN,
		     ch->max_ti_iu_len - (u32)sizeof(*rsp));
	if (sense) {
		rsp->flags |= SRP_RSP_FLAG_SNSVALID;
		rsp->sense_data_len = cpu_to_be32(sense);
		memcpy(rsp->data, cmd->sense, sense);
	}
	rsp->req_lim_delta = cpu_to_be32(kt_srpt_grant(ch, 1));
	return sizeof(*rsp) + sense;
}

/* The SRP_RSP is sent (or flushed): the fabric's reference goes. */
static void kt_srpt_rsp_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kt_srpt_cmd *scmd = container_of(wc->wr_cqe, struct kt_srpt_cmd,
						rsp.cqe);
	struct kt_srpt_ch *ch = scmd->ch;
	u32 n = scmd->n_wr;

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR) {
		pr_warn_ratelimited("%s: tag %#llx: response failed: %s: closing the channel\n",
				    ch->sess.initiator, scmd->tag,
				    ib_wc_status_msg(wc->status));
		kt_srpt_ch_close(ch);
	}
	kt_srpt_send_unmap(ch, &scmd->rsp);
	kt_srpt_rw_free(scmd);
	scmd->n_wr = 0;
	scmd->op = KT_SRPT_OP_NONE;
	kt_srpt_sq_put(ch, n);
	kt_cmd_put(&scmd->cmd);
}

void kt_srpt_queue_status(struct kt_cmd *cmd)
{
	struct kt_srpt_cmd *scmd = to_srpt_cmd(cmd);
	struct kt_srpt_ch *ch = scmd->ch;
	int ret;

	/* a TMF answered from now on goes behind it */
	atomic_inc(&ch->rsp_pending);
	ret = kt_srpt_send_map(ch, &scmd->rsp, kt_srpt_build_rsp(scmd),
			       kt_srpt_rsp_done);
	if (ret) {
		scmd->op = KT_SRPT_OP_RSP;
		kt_srpt_post_failed(scmd, ret);
		return;
	}
	scmd->n_wr = 1;
	ret = kt_srpt_start(scmd, KT_SRPT_OP_RSP);
	if (ret)
		kt_srpt_post_failed(scmd, ret);
}

static void kt_srpt_data_in_work(struct work_struct *work)
{
	struct kt_srpt_cmd *scmd = container_of(work, struct kt_srpt_cmd, work);
	struct kt_srpt_ch *ch = scmd->ch;
	unsigned int noio;
	u32 n;
	int ret;

	/*
	 * rdma_rw_ctx_init() allocates with GFP_KERNEL: the disk may be what
	 * the initiator's memory reclaim writes to (rx.c)
	 */
	noio = memalloc_noio_save();
	scmd->op = KT_SRPT_OP_DATA_IN;
	ret = kt_srpt_rw_init(scmd, DMA_TO_DEVICE, &n);
	if (!ret)
		ret = kt_srpt_send_map(ch, &scmd->rsp, kt_srpt_build_rsp(scmd),
				       kt_srpt_rsp_done);
	if (!ret) {
		scmd->n_wr = n + 1;
		ret = kt_srpt_start(scmd, KT_SRPT_OP_DATA_IN);
	}
	if (ret)
		kt_srpt_post_failed(scmd, ret);
	memalloc_noio_restore(noio);
}

/* From any context: rdma_rw_ctx_init() may sleep, so a work item does it. */
void kt_srpt_queue_data_in(struct kt_cmd *cmd)
{
	struct kt_srpt_cmd *scmd = to_srpt_cmd(cmd);

	/* a TMF answered from now on goes behind its data */
	atomic_inc(&scmd->ch->rsp_pending);
	queue_work(kt_srpt_wq, &scmd->work);
}

/* ---- write data ---- */

static void kt_srpt_fetch_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kt_srpt_cmd *scmd = container_of(wc->wr_cqe, struct kt_srpt_cmd,
						rw_cqe);
	struct kt_srpt_ch *ch = scmd->ch;
	u32 n = scmd->n_wr;

	kt_srpt_rw_free(scmd);
	scmd->n_wr = 0;
	scmd->op = KT_SRPT_OP_NONE;
	kt_srpt_sq_put(ch, n);
	if (wc->status == IB_WC_SUCCESS) {
		kt_cmd_data_out_done(&scmd->cmd);
		return;
	}
	if (wc->status != IB_WC_WR_FLUSH_ERR) {
		pr_warn_ratelimited("%s: tag %#llx: RDMA READ failed: %s: closing the channel\n",
				    ch->sess.initiator, scmd->tag,
				    ib_wc_status_msg(wc->status));
		kt_srpt_ch_close(ch);
	}
	kt_cmd_fail(&scmd->cmd, KT_SENSE_LU_COMM_FAILURE);
}

/* Called from kt_cmd_run(), in the receive path: process context. */
void kt_srpt_write_pending(struct kt_cmd *cmd)
{
	struct kt_srpt_cmd *scmd = to_srpt_cmd(cmd);
	u32 n;
	int ret;

	scmd->op = KT_SRPT_OP_FETCH;
	ret = kt_srpt_rw_init(scmd, DMA_FROM_DEVICE, &n);
	if (ret) {
		pr_warn_ratelimited("%s: tag %#llx: cannot set up the RDMA READ of %u bytes: %pe\n",
				    scmd->ch->sess.initiator, scmd->tag,
				    cmd->data_length, ERR_PTR(ret));
		scmd->op = KT_SRPT_OP_NONE;
		kt_cmd_fail(cmd, KT_SENSE_OUT_OF_RESOURCES);
		return;
	}
	scmd->rw_cqe.done = kt_srpt_fetch_done;
	scmd->n_wr = n;
	ret = kt_srpt_start(scmd, KT_SRPT_OP_FETCH);
	if (ret)
		kt_srpt_post_failed(scmd, ret);
}

/* ---- the command's life ---- */

/* A TMF ended it unanswered: its credit goes back with the next answer. */
void kt_srpt_aborted(struct kt_cmd *cmd)
{
	kt_srpt_credit_back(to_srpt_cmd(cmd)->ch);
	kt_cmd_put(cmd);
}

/* The last reference: any context. */
void kt_srpt_release_cmd(struct kt_cmd *cmd)
{
	struct kt_srpt_cmd *scmd = to_srpt_cmd(cmd);
	struct kt_srpt_ch *ch = scmd->ch;

	/* its contexts went with their completion, or with their failure */
	WARN_ON_ONCE(scmd->nr_rw);
	if (scmd->desc != &scmd->desc1)
		kfree(scmd->desc);
	kfree(scmd->rw);
	kfree(scmd->rw_sg);
	kfree(scmd);
	kt_obj_dec(&kt_srpt_objs[KT_SRPT_OBJ_CMD]);
	kt_srpt_live_put(ch);
}

/* SAM-5 8.6 as SRP r16a 6.8 encodes it */
static enum kt_task_attr kt_srpt_task_attr(u8 attr)
{
	switch (attr) {
	case 1:
		return KT_TASK_HEAD_OF_QUEUE;
	case 2:
		return KT_TASK_ORDERED;
	case 4:
		return KT_TASK_ACA;
	default:
		return KT_TASK_SIMPLE;
	}
}

void kt_srpt_handle_cmd(struct kt_srpt_ch *ch, const u8 *iu, u32 len)
{
	enum kt_srpt_parse st;
	struct kt_srpt_parsed p = {};
	struct kt_srpt_cmd *scmd;
	enum kt_data_dir dir;
	sense_reason_t reason;
	struct kt_cmd *cmd;
	u32 bad, i;

	scmd = kzalloc(sizeof(*scmd), GFP_NOIO);
	if (!scmd) {
		/* without memory for an answer: the initiator retries elsewhere */
		kt_srpt_ch_close(ch);
		return;
	}
	cmd = &scmd->cmd;
	scmd->ch = ch;
	INIT_WORK(&scmd->work, kt_srpt_data_in_work);
	INIT_LIST_HEAD(&scmd->wait_node);
	scmd->desc = &scmd->desc1;
	atomic_inc(&ch->live);
	kt_obj_inc(&kt_srpt_objs[KT_SRPT_OBJ_CMD]);
	if (len >= 16)
		memcpy(&scmd->tag, iu + 8, sizeof(scmd->tag));

	st = kt_srpt_parse_cmd(iu, len, &p, &bad);
	if (st == KT_SRPT_PARSE_OK && p.ndesc > 1) {
		scmd->desc = kmalloc_array(p.ndesc, sizeof(*scmd->desc),
					   GFP_NOIO);
		if (!scmd->desc) {
			scmd->desc = &scmd->desc1;
			kt_cmd_init(cmd, &kt_srpt_ops, &ch->sess, scmd->tag,
				    KT_DATA_NONE, 0, KT_TASK_SIMPLE);
			kt_cmd_fail(cmd, kt_cmd_refuse(cmd, kt_lun_decode(p.lun),
						       KT_SENSE_OUT_OF_RESOURCES));
			return;
		}
	}
	if (st != KT_SRPT_PARSE_OK) {
		pr_warn_ratelimited("%s: SRP_CMD tag %#llx: %s (byte %u of %u)\n",
				    ch->sess.initiator, scmd->tag,
				    kt_srpt_parse_msg(st), bad, len);
		kt_cmd_init(cmd, &kt_srpt_ops, &ch->sess, scmd->tag,
			    KT_DATA_NONE, 0, KT_TASK_SIMPLE);
		kt_cmd_fail(cmd, kt_cmd_refuse(cmd, kt_lun_decode(p.lun),
					       KT_SENSE_INVALID_FIELD_IN_COMMAND_IU));
		return;
	}
	scmd->ndesc = p.ndesc;
	for (i = 0; i < p.ndesc; i++) {
		const u8 *d = p.desc + i * sizeof(struct srp_direct_buf);

		scmd->desc[i].va = get_unaligned_be64(d);
		scmd->desc[i].key = get_unaligned_be32(d + 8);
		scmd->desc[i].len = get_unaligned_be32(d + 12);
	}

	dir = p.dir == KT_SRPT_DIR_OUT ? KT_DATA_OUT :
	      p.dir == KT_SRPT_DIR_IN ? KT_DATA_IN : KT_DATA_NONE;
	kt_cmd_init(cmd, &kt_srpt_ops, &ch->sess, scmd->tag, dir, p.total,
		    kt_srpt_task_attr(p.task_attr));
	reason = kt_cmd_setup(cmd, p.cdb, p.cdb_len, kt_lun_decode(p.lun));
	/*
	 * The CDB moves data the other way than the descriptors given: they
	 * name buffers the initiator registered for that way only.
	 */
	if (!reason && dir != KT_DATA_NONE && cmd->dir != KT_DATA_NONE &&
	    cmd->dir != dir)
		reason = KT_SENSE_INVALID_FIELD_IN_COMMAND_IU;
	if (reason)
		kt_cmd_fail(cmd, reason);
	else
		kt_cmd_run(cmd);
}
