// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_srpt: SRP_TSK_MGMT (SRP r16a 6.7) as the core's task management
 * functions, and the SRP_RSP that answers it: RSPVALID, four bytes of
 * response data whose last is the response code (SRP r16a table 24). A
 * TMF holds its channel's live count until its answer has been sent, so
 * the channel (and the session the core answers through) outlives it.
 *
 * The answer waits on ch->tmf_wait, in order, while
 *	- an answer of a command that completed before it is not posted yet
 *	  (ch->rsp_pending): the initiator frees a command's buffers on the
 *	  TMF's answer, so the RDMA WRITE of its data must be before it on
 *	  the send queue, which runs in order;
 *	- the send queue's reserve for TMF answers (KT_SRPT_SQ_RESERVE
 *	  entries beyond srp_sq_size, ch->tmf_avail) is all in flight.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/unaligned.h>

#include <ktarget/proto/lun.h>

#include "srpt.h"

/* SRP r16a table 24: RESPONSE CODE */
#define KT_SRPT_TMF_COMPLETE		0x00
#define KT_SRPT_TMF_INVALID_IU		0x02
#define KT_SRPT_TMF_NOT_SUPPORTED	0x04
#define KT_SRPT_TMF_FAILED		0x05
#define KT_SRPT_TMF_INCORRECT_LUN	0x09

struct kt_srpt_tmr {
	struct kt_tmr		tmr;
	struct kt_srpt_ch	*ch;
	u64			tag;
	struct list_head	wait_node;	/* ch->tmf_wait */
	struct kt_srpt_send	rsp;
};

static void kt_srpt_tmr_free(struct kt_srpt_tmr *t)
{
	struct kt_srpt_ch *ch = t->ch;

	kt_srpt_send_unmap(ch, &t->rsp);
	kfree(t);
	kt_obj_dec(&kt_srpt_objs[KT_SRPT_OBJ_TMF]);
	kt_srpt_live_put(ch);
}

/*
 * Under post_lock: post the waiting TMF answers that may go now, then an
 * SRP_CRED_REQ if credits wait. From any context: an answer's post, a TMF
 * answer's completion.
 */
void kt_srpt_tmf_kick(struct kt_srpt_ch *ch)
{
	struct kt_srpt_tmr *t;
	int ret;

	lockdep_assert_held(&ch->post_lock);
	while (!ch->down && ch->tmf_avail && !atomic_read(&ch->rsp_pending)) {
		t = list_first_entry_or_null(&ch->tmf_wait, struct kt_srpt_tmr,
					     wait_node);
		if (!t)
			break;
		list_del_init(&t->wait_node);
		ret = ib_post_send(ch->qp, &t->rsp.wr, NULL);
		if (!ret) {
			ch->tmf_avail--;
			continue;
		}
		pr_warn_ratelimited("%s: TMF tag %#llx: cannot post its answer: %pe: closing the channel\n",
				    ch->sess.initiator, t->tag, ERR_PTR(ret));
		kt_srpt_ch_close(ch);
		kt_srpt_tmr_free(t);
	}
	/* credits that no answer carries go on their own */
	kt_srpt_cred_kick(ch);
}

/* The channel is down and drained: the answers that wait never go. */
void kt_srpt_tmf_flush(struct kt_srpt_ch *ch)
{
	struct kt_srpt_tmr *t;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&ch->post_lock, flags);
		t = list_first_entry_or_null(&ch->tmf_wait, struct kt_srpt_tmr,
					     wait_node);
		if (t)
			list_del_init(&t->wait_node);
		spin_unlock_irqrestore(&ch->post_lock, flags);
		if (!t)
			return;
		kt_srpt_tmr_free(t);
	}
}

static void kt_srpt_tmr_sent(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kt_srpt_tmr *t = container_of(wc->wr_cqe, struct kt_srpt_tmr,
					     rsp.cqe);
	struct kt_srpt_ch *ch = t->ch;
	unsigned long flags;

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR) {
		pr_warn_ratelimited("%s: TMF response failed: %s: closing the channel\n",
				    ch->sess.initiator,
				    ib_wc_status_msg(wc->status));
		kt_srpt_ch_close(ch);
	}
	/* its reserved entry is back: a waiting answer may take it */
	spin_lock_irqsave(&ch->post_lock, flags);
	ch->tmf_avail++;
	kt_srpt_tmf_kick(ch);
	spin_unlock_irqrestore(&ch->post_lock, flags);
	kt_srpt_tmr_free(t);
}

/* Answer @t with @code, once it may go (tmf_wait, above). */
static void kt_srpt_tmr_answer(struct kt_srpt_tmr *t, u8 code)
{
	struct kt_srpt_ch *ch = t->ch;
	struct srp_rsp *rsp = (struct srp_rsp *)t->rsp.buf;
	unsigned long flags;
	bool down;

	memset(rsp, 0, sizeof(*rsp) + 4);
	rsp->opcode = SRP_RSP;
	rsp->tag = t->tag;
	rsp->flags = SRP_RSP_FLAG_RSPVALID;
	rsp->resp_data_len = cpu_to_be32(4);
	rsp->data[3] = code;
	rsp->req_lim_delta = cpu_to_be32(kt_srpt_grant(ch, 1));
	if (kt_srpt_send_map(ch, &t->rsp, sizeof(*rsp) + 4, kt_srpt_tmr_sent)) {
		kt_srpt_tmr_free(t);
		return;
	}
	spin_lock_irqsave(&ch->post_lock, flags);
	down = ch->down;
	if (!down) {
		list_add_tail(&t->wait_node, &ch->tmf_wait);
		kt_srpt_tmf_kick(ch);
	}
	spin_unlock_irqrestore(&ch->post_lock, flags);
	if (down)
		kt_srpt_tmr_free(t);
}

/* From the core's work item, once every command it aborted has ended */
void kt_srpt_queue_tm_rsp(struct kt_tmr *tmr)
{
	struct kt_srpt_tmr *t = container_of(tmr, struct kt_srpt_tmr, tmr);
	u8 code;

	switch (tmr->response) {
	case KT_TMR_COMPLETE:
	case KT_TMR_SUCCEEDED:
	/* SAM-5 7.2: aborting a task that is not there completes */
	case KT_TMR_TASK_DOES_NOT_EXIST:
		code = KT_SRPT_TMF_COMPLETE;
		break;
	case KT_TMR_REJECTED:
	case KT_TMR_NOT_SUPPORTED:
		code = KT_SRPT_TMF_NOT_SUPPORTED;
		break;
	case KT_TMR_INCORRECT_LUN:
		code = KT_SRPT_TMF_INCORRECT_LUN;
		break;
	default:
		code = KT_SRPT_TMF_FAILED;
		break;
	}
	kt_srpt_tmr_answer(t, code);
}

/* The SRP task management function's, as the core knows it; 0: none */
static enum kt_tmf kt_srpt_tmf_of(u8 func)
{
	switch (func) {
	case SRP_TSK_ABORT_TASK:
		return KT_TMF_ABORT_TASK;
	case SRP_TSK_ABORT_TASK_SET:
		return KT_TMF_ABORT_TASK_SET;
	case SRP_TSK_CLEAR_TASK_SET:
		return KT_TMF_CLEAR_TASK_SET;
	case SRP_TSK_LUN_RESET:
		return KT_TMF_LUN_RESET;
	case SRP_TSK_CLEAR_ACA:
		return KT_TMF_CLEAR_ACA;
	default:
		return 0;
	}
}

void kt_srpt_handle_tmf(struct kt_srpt_ch *ch, const u8 *iu, u32 len)
{
	struct kt_srpt_tmr *t;
	enum kt_tmf function;

	if (len < 16) {
		pr_warn_ratelimited("%s: SRP_TSK_MGMT of %u bytes has no tag: ignored\n",
				    ch->sess.initiator, len);
		kt_srpt_credit_back(ch);
		return;
	}
	t = kzalloc(sizeof(*t), GFP_NOIO);
	if (!t) {
		/* without memory for an answer: the initiator retries elsewhere */
		kt_srpt_ch_close(ch);
		return;
	}
	t->ch = ch;
	INIT_LIST_HEAD(&t->wait_node);
	memcpy(&t->tag, iu + 8, sizeof(t->tag));
	atomic_inc(&ch->live);
	kt_obj_inc(&kt_srpt_objs[KT_SRPT_OBJ_TMF]);

	if (len < sizeof(struct srp_tsk_mgmt)) {
		pr_warn_ratelimited("%s: SRP_TSK_MGMT of %u bytes, want %zu\n",
				    ch->sess.initiator, len,
				    sizeof(struct srp_tsk_mgmt));
		kt_srpt_tmr_answer(t, KT_SRPT_TMF_INVALID_IU);
		return;
	}
	function = kt_srpt_tmf_of(iu[30]);
	if (!function) {
		pr_warn_ratelimited("%s: task management function %#x not supported\n",
				    ch->sess.initiator, iu[30]);
		kt_srpt_tmr_answer(t, KT_SRPT_TMF_NOT_SUPPORTED);
		return;
	}
	t->tmr.sess = &ch->sess;
	t->tmr.function = function;
	t->tmr.unpacked_lun = kt_lun_decode(get_unaligned_be64(iu + 20));
	memcpy(&t->tmr.ref_tag, iu + 32, sizeof(t->tmr.ref_tag));
	kt_tmr_submit(&t->tmr);
}
