// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_srpt: what an initiator sends. Each channel keeps rq_size
 * receive buffers posted, of max_it_iu_len bytes each; an IU is read out
 * of its buffer in the CQ's work (one at a time, in arrival order) and
 * the buffer is posted again before anything answers it.
 *
 * Credits (SRP r16a 5.6, the request limit): the login grants rq_size - 2,
 * and every answer (SRP_RSP) hands the initiator back the credit of its
 * own request plus those earned by requests that got no answer (aborted
 * commands, dropped IUs). When such credits wait and no answer is on its
 * way to carry them, an SRP_CRED_REQ carries them (SRP r16a 6.10), one at
 * a time: without it a channel whose commands were all aborted unanswered
 * (a LUN RESET of another nexus, TAS off) could be left without credits
 * and nothing to bring them back. A request sent without a credit is a
 * protocol error that ends the channel: counting them is what keeps an
 * initiator within the buffers posted for it. Of the two buffers more than
 * granted, one covers the moment between an answer leaving and its
 * request's buffer being posted again, the other the SRP_CRED_RSP, which
 * takes no credit.
 *
 * IUs that arrive after the accept but before rdma_cm says the connection
 * is established (the initiator may send once it has the REP) wait on
 * ch->early; the established event runs them in order.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "srpt.h"

static void kt_srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc);

static int kt_srpt_post_rx(struct kt_srpt_ch *ch, struct kt_srpt_rx *rx)
{
	struct ib_sge sge = {
		.addr = rx->dma,
		.length = ch->max_it_iu_len,
		.lkey = ch->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &rx->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};
	unsigned long flags;
	int ret = -ENOTCONN;

	ib_dma_sync_single_for_device(ch->dev, rx->dma, ch->max_it_iu_len,
				      DMA_FROM_DEVICE);
	spin_lock_irqsave(&ch->post_lock, flags);
	if (!ch->down)
		ret = ib_post_recv(ch->qp, &wr, NULL);
	spin_unlock_irqrestore(&ch->post_lock, flags);
	return ret;
}

int kt_srpt_alloc_rx(struct kt_srpt_ch *ch)
{
	u32 i;

	ch->rx = kcalloc(ch->rq_size, sizeof(*ch->rx), GFP_KERNEL);
	if (!ch->rx)
		return -ENOMEM;
	for (i = 0; i < ch->rq_size; i++) {
		struct kt_srpt_rx *rx = &ch->rx[i];

		rx->ch = ch;
		rx->cqe.done = kt_srpt_recv_done;
		INIT_LIST_HEAD(&rx->node);
		rx->buf = kmalloc(ch->max_it_iu_len, GFP_KERNEL);
		if (!rx->buf)
			goto fail;
		rx->dma = ib_dma_map_single(ch->dev, rx->buf, ch->max_it_iu_len,
					    DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(ch->dev, rx->dma)) {
			kfree(rx->buf);
			rx->buf = NULL;
			goto fail;
		}
	}
	return 0;
fail:
	kt_srpt_free_rx(ch);
	return -ENOMEM;
}

void kt_srpt_free_rx(struct kt_srpt_ch *ch)
{
	u32 i;

	if (!ch->rx)
		return;
	for (i = 0; i < ch->rq_size; i++) {
		struct kt_srpt_rx *rx = &ch->rx[i];

		if (!rx->buf)
			continue;
		ib_dma_unmap_single(ch->dev, rx->dma, ch->max_it_iu_len,
				    DMA_FROM_DEVICE);
		kfree(rx->buf);
	}
	kfree(ch->rx);
	ch->rx = NULL;
}

int kt_srpt_post_rx_all(struct kt_srpt_ch *ch)
{
	u32 i;
	int ret;

	for (i = 0; i < ch->rq_size; i++) {
		ret = kt_srpt_post_rx(ch, &ch->rx[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The request limit delta of an answer: @own (1 for the answer to a
 * request, 0 otherwise) plus what was earned meanwhile. Counted as the
 * initiator's before the answer goes, since it may use them at once.
 */
u32 kt_srpt_grant(struct kt_srpt_ch *ch, u32 own)
{
	u32 delta = own + atomic_xchg(&ch->credit_delta, 0);

	atomic_add(delta, &ch->credits);
	return delta;
}

static void kt_srpt_cred_sent(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kt_srpt_ch *ch = container_of(wc->wr_cqe, struct kt_srpt_ch,
					     cred.cqe);
	unsigned long flags;

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR) {
		pr_warn_ratelimited("%s: SRP_CRED_REQ failed: %s: closing the channel\n",
				    ch->sess.initiator,
				    ib_wc_status_msg(wc->status));
		kt_srpt_ch_close(ch);
	}
	kt_srpt_send_unmap(ch, &ch->cred);
	spin_lock_irqsave(&ch->post_lock, flags);
	ch->cred_busy--;
	kt_srpt_cred_kick(ch);
	spin_unlock_irqrestore(&ch->post_lock, flags);
}

/*
 * Under post_lock: credits wait and nothing else will carry them (no
 * answer claimed and not yet posted, no TMF answer waiting; those posted
 * took theirs when they were built): an SRP_CRED_REQ, unless one is still
 * out. It takes the send queue entry kept for it (conn.c).
 */
void kt_srpt_cred_kick(struct kt_srpt_ch *ch)
{
	struct srp_cred_req *req = (struct srp_cred_req *)ch->cred.buf;
	int ret;

	lockdep_assert_held(&ch->post_lock);
	if (ch->down || ch->cred_busy || atomic_read(&ch->rsp_pending) ||
	    !list_empty(&ch->tmf_wait) || atomic_read(&ch->credit_delta) <= 0 ||
	    atomic_read(&ch->state) != KT_SRPT_CH_LIVE)
		return;
	memset(req, 0, sizeof(*req));
	req->opcode = SRP_CRED_REQ;
	req->tag = ++ch->cred_tag;
	req->req_lim_delta = cpu_to_be32(kt_srpt_grant(ch, 0));
	ret = kt_srpt_send_map(ch, &ch->cred, sizeof(*req), kt_srpt_cred_sent);
	if (!ret) {
		ret = ib_post_send(ch->qp, &ch->cred.wr, NULL);
		if (ret)
			kt_srpt_send_unmap(ch, &ch->cred);
	}
	if (ret) {
		pr_warn_ratelimited("%s: cannot send SRP_CRED_REQ: %pe: closing the channel\n",
				    ch->sess.initiator, ERR_PTR(ret));
		kt_srpt_ch_close(ch);
		return;
	}
	/* its completion, and the initiator's SRP_CRED_RSP */
	ch->cred_busy = 2;
}

/* SRP r16a 6.11: the initiator took the credits of our SRP_CRED_REQ */
static void kt_srpt_cred_rsp(struct kt_srpt_ch *ch)
{
	unsigned long flags;

	spin_lock_irqsave(&ch->post_lock, flags);
	if (ch->cred_busy) {
		ch->cred_busy--;
		kt_srpt_cred_kick(ch);
	}
	spin_unlock_irqrestore(&ch->post_lock, flags);
}

/*
 * A request that gets no answer: its credit goes with the next answer,
 * or alone when none is on its way. Any context.
 */
void kt_srpt_credit_back(struct kt_srpt_ch *ch)
{
	unsigned long flags;

	atomic_inc(&ch->credit_delta);
	spin_lock_irqsave(&ch->post_lock, flags);
	kt_srpt_cred_kick(ch);
	spin_unlock_irqrestore(&ch->post_lock, flags);
}

/* Requests take a credit; answers to our own requests do not. */
static bool kt_srpt_is_request(u8 opcode)
{
	return opcode != SRP_CRED_RSP && opcode != SRP_AER_RSP;
}

/* One IU; false when the channel ends with it. */
static bool kt_srpt_handle_iu(struct kt_srpt_ch *ch, const u8 *iu, u32 len)
{
	u8 opcode;

	if (!len) {
		pr_warn_ratelimited("%s: empty IU: closing the channel\n",
				    ch->sess.initiator);
		return false;
	}
	opcode = iu[0];
	if (kt_srpt_is_request(opcode) &&
	    atomic_dec_if_positive(&ch->credits) < 0) {
		pr_warn_ratelimited("%s: IU %#x sent without a credit (SRP request limit): closing the channel\n",
				    ch->sess.initiator, opcode);
		return false;
	}
	switch (opcode) {
	case SRP_CMD:
		kt_srpt_handle_cmd(ch, iu, len);
		return true;
	case SRP_TSK_MGMT:
		kt_srpt_handle_tmf(ch, iu, len);
		return true;
	case SRP_I_LOGOUT:
		/* SRP r16a 6.9: the channel ends; no answer */
		pr_info("%s: logged out\n", ch->sess.initiator);
		return false;
	case SRP_CRED_RSP:
		kt_srpt_cred_rsp(ch);
		return true;
	case SRP_AER_RSP:
		/* we never ask for it; nothing to do */
		return true;
	default:
		pr_warn_ratelimited("%s: IU with opcode %#x ignored\n",
				    ch->sess.initiator, opcode);
		kt_srpt_credit_back(ch);
		return true;
	}
}

/* The IU of @rx; false when the channel ends with it */
static bool kt_srpt_rx_handle(struct kt_srpt_ch *ch, struct kt_srpt_rx *rx)
{
	unsigned int noio;
	bool ok;

	/*
	 * After an SRP_I_LOGOUT, or once anything else closed the channel,
	 * what is still in the receive queue does not run: it ends here,
	 * its buffer not posted again.
	 */
	if (atomic_read(&ch->state) == KT_SRPT_CH_CLOSING)
		return false;
	/*
	 * The disk may be what the initiator's memory reclaim writes to,
	 * in this very kernel over rxe: allocate nothing that waits for it.
	 */
	noio = memalloc_noio_save();
	ok = kt_srpt_handle_iu(ch, rx->buf, rx->len);
	memalloc_noio_restore(noio);
	return ok;
}

/* @rx is read: post it again, unless the channel ends */
static void kt_srpt_rx_repost(struct kt_srpt_ch *ch, struct kt_srpt_rx *rx,
			      bool ok)
{
	if (!ok || kt_srpt_post_rx(ch, rx))
		kt_srpt_ch_close(ch);
}

static void kt_srpt_rx_one(struct kt_srpt_ch *ch, struct kt_srpt_rx *rx)
{
	kt_srpt_rx_repost(ch, rx, kt_srpt_rx_handle(ch, rx));
}

/* Runs in the CQ's work: one IU at a time, in arrival order. */
static void kt_srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kt_srpt_rx *rx = container_of(wc->wr_cqe, struct kt_srpt_rx, cqe);
	struct kt_srpt_ch *ch = rx->ch;
	bool early;

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_warn_ratelimited("%s: receive failed: %s: closing the channel\n",
					    ch->sess.initiator,
					    ib_wc_status_msg(wc->status));
		kt_srpt_ch_close(ch);
		return;
	}
	ib_dma_sync_single_for_cpu(ch->dev, rx->dma, ch->max_it_iu_len,
				   DMA_FROM_DEVICE);
	rx->len = min(wc->byte_len, ch->max_it_iu_len);

	spin_lock_bh(&ch->early_lock);
	early = atomic_read(&ch->state) == KT_SRPT_CH_CONNECTING ||
		!list_empty(&ch->early);
	if (early)
		list_add_tail(&rx->node, &ch->early);
	spin_unlock_bh(&ch->early_lock);
	if (!early)
		kt_srpt_rx_one(ch, rx);
}

/*
 * The connection is established: the IUs that came before it, in order.
 * It holds a reference to the channel (kt_srpt_ch_established()): the
 * close may have cancelled it before it was queued.
 */
void kt_srpt_early_work(struct work_struct *work)
{
	struct kt_srpt_ch *ch = container_of(work, struct kt_srpt_ch,
					     early_work);
	struct kt_srpt_rx *rx;
	bool ok;

	for (;;) {
		spin_lock_bh(&ch->early_lock);
		rx = list_first_entry_or_null(&ch->early, struct kt_srpt_rx,
					      node);
		spin_unlock_bh(&ch->early_lock);
		if (!rx)
			break;
		ok = kt_srpt_rx_handle(ch, rx);
		/*
		 * Off the list only now (later IUs queue behind it till
		 * then), and before it is posted again: its next IU may
		 * come, and be queued here, as soon as it is.
		 */
		spin_lock_bh(&ch->early_lock);
		list_del_init(&rx->node);
		spin_unlock_bh(&ch->early_lock);
		kt_srpt_rx_repost(ch, rx, ok);
	}
	kt_srpt_ch_put(ch);
}

/* The channel closes: what waited is dropped with it. */
void kt_srpt_early_flush(struct kt_srpt_ch *ch)
{
	/* cancelled before it ran: its reference is ours to drop */
	if (cancel_work_sync(&ch->early_work))
		kt_srpt_ch_put(ch);
	spin_lock_bh(&ch->early_lock);
	while (!list_empty(&ch->early))
		list_del_init(ch->early.next);
	spin_unlock_bh(&ch->early_lock);
}
