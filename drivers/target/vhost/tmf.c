// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_vhost: the control queue (virtio 1.2, 5.6.6.2). A task
 * management request goes to the core as a kt_tmr on the nexus of the
 * TPG it addresses; its answer comes back through queue_tm_rsp, once the
 * commands it aborted have ended (those go back to the guest with
 * VIRTIO_SCSI_S_ABORTED), and is written from the queue's work.
 *
 * The functions and their answers (SAM-5 7, virtio's response codes):
 *
 *	ABORT TASK, ABORT TASK SET, CLEAR TASK SET, LOGICAL UNIT RESET
 *					the core's; FUNCTION COMPLETE is
 *					VIRTIO_SCSI_S_OK
 *	I_T NEXUS RESET, QUERY TASK	the core answers them FUNCTION NOT
 *					SUPPORTED: VIRTIO_SCSI_S_FUNCTION_REJECTED
 *	CLEAR ACA, QUERY TASK SET	VIRTIO_SCSI_S_FUNCTION_REJECTED
 *	a target the endpoint lacks	VIRTIO_SCSI_S_BAD_TARGET
 *
 * Asynchronous notification queries and subscriptions are answered with
 * no event supported (event_actual 0). A request of another type, or too
 * short for its type, gets its buffers back with nothing written.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/virtio_byteorder.h>

#include "vhost.h"

struct kt_vhost_tmr {
	struct kt_tmr		tmr;
	struct kt_vhost_req	r;
	struct iovec		iov[];
};

static bool kt_vhost_tmf_function(u32 subtype, enum kt_tmf *function)
{
	switch (subtype) {
	case VIRTIO_SCSI_T_TMF_ABORT_TASK:
		*function = KT_TMF_ABORT_TASK;
		return true;
	case VIRTIO_SCSI_T_TMF_ABORT_TASK_SET:
		*function = KT_TMF_ABORT_TASK_SET;
		return true;
	case VIRTIO_SCSI_T_TMF_CLEAR_TASK_SET:
		*function = KT_TMF_CLEAR_TASK_SET;
		return true;
	case VIRTIO_SCSI_T_TMF_I_T_NEXUS_RESET:
		*function = KT_TMF_I_T_NEXUS_RESET;
		return true;
	case VIRTIO_SCSI_T_TMF_LOGICAL_UNIT_RESET:
		*function = KT_TMF_LUN_RESET;
		return true;
	case VIRTIO_SCSI_T_TMF_QUERY_TASK:
		*function = KT_TMF_QUERY_TASK;
		return true;
	default:
		return false;
	}
}

static u8 kt_vhost_tmf_response(enum kt_tmf_rsp rsp)
{
	switch (rsp) {
	case KT_TMR_COMPLETE:
	case KT_TMR_TASK_DOES_NOT_EXIST:
		return VIRTIO_SCSI_S_OK;	/* FUNCTION COMPLETE */
	case KT_TMR_SUCCEEDED:
		return VIRTIO_SCSI_S_FUNCTION_SUCCEEDED;
	case KT_TMR_INCORRECT_LUN:
		return VIRTIO_SCSI_S_INCORRECT_LUN;
	case KT_TMR_REJECTED:
	case KT_TMR_NOT_SUPPORTED:
		return VIRTIO_SCSI_S_FUNCTION_REJECTED;
	default:
		return VIRTIO_SCSI_S_FAILURE;
	}
}

static int kt_vhost_tmf(struct kt_vhost_vq *vq, u16 head,
			struct kt_vhost_chain *c, struct iov_iter *it)
{
	struct virtio_scsi_ctrl_tmf_resp resp = { };
	struct virtio_scsi_ctrl_tmf_req req;
	struct kt_vhost_dev *dev = vq->dev;
	struct kt_vhost_tpg *tpg;
	struct kt_vhost_tmr *t;
	enum kt_tmf function;
	u64 lun;

	if (c->out_len < sizeof(req) || c->in_len < sizeof(resp))
		return kt_vhost_vq_used(vq, head, 0);
	if (copy_from_iter(&req, sizeof(req), it) != sizeof(req)) {
		kt_vhost_vq_broken(vq, "a TMF request is not readable");
		return -EFAULT;
	}
	if (!kt_vhost_addr_target(dev, req.lun, &tpg, &lun)) {
		resp.response = VIRTIO_SCSI_S_BAD_TARGET;
		return kt_vhost_reply(vq, c, head, &resp, sizeof(resp));
	}
	if (!kt_vhost_tmf_function(__virtio32_to_cpu(true, req.subtype),
				   &function)) {
		resp.response = VIRTIO_SCSI_S_FUNCTION_REJECTED;
		return kt_vhost_reply(vq, c, head, &resp, sizeof(resp));
	}
	t = kzalloc(struct_size(t, iov, c->in_nr), GFP_KERNEL_ACCOUNT);
	if (!t) {
		resp.response = VIRTIO_SCSI_S_BUSY;
		return kt_vhost_reply(vq, c, head, &resp, sizeof(resp));
	}
	memcpy(t->iov, vq->iov + c->out_nr, c->in_nr * sizeof(*t->iov));
	t->r.vq = vq;
	t->r.tpg = tpg;
	t->r.head = head;
	t->r.is_tmf = true;
	t->r.in = t->iov;
	t->r.in_nr = c->in_nr;
	t->r.in_len = c->in_len;
	t->tmr.sess = &tpg->nexus->sess;
	t->tmr.function = function;
	t->tmr.unpacked_lun = lun;
	t->tmr.ref_tag = __virtio64_to_cpu(true, req.tag);
	atomic_inc(&vq->inflight);
	atomic_inc(&tpg->inflight);
	atomic_inc(&dev->inflight);
	kt_obj_inc(&kt_vhost_objs[KT_VHOST_OBJ_TMF]);
	kt_tmr_submit(&t->tmr);
	return 0;
}

static int kt_vhost_an(struct kt_vhost_vq *vq, u16 head,
		       struct kt_vhost_chain *c)
{
	struct virtio_scsi_ctrl_an_resp resp = {
		.event_actual	= 0,
		.response	= VIRTIO_SCSI_S_OK,
	};

	if (c->out_len < sizeof(struct virtio_scsi_ctrl_an_req))
		return kt_vhost_vq_used(vq, head, 0);
	return kt_vhost_reply(vq, c, head, &resp, sizeof(resp));
}

void kt_vhost_handle_ctl(struct kt_vhost_vq *vq)
{
	unsigned int budget = KT_VHOST_BUDGET;
	struct kt_vhost_chain c;
	struct iov_iter it;
	__virtio32 type;
	u16 head;
	int ret;

	while (atomic_read(&vq->inflight) < vq->num) {
		if (!budget--) {
			kt_vhost_vq_queue(vq);
			return;
		}
		if (kt_vhost_vq_next(vq, &head) <= 0 ||
		    kt_vhost_vq_walk(vq, head, &c))
			return;
		if (c.out_len < sizeof(type)) {
			ret = kt_vhost_vq_used(vq, head, 0);
		} else {
			iov_iter_init(&it, ITER_SOURCE, vq->iov, c.out_nr,
				      c.out_len);
			/* peeked: the request is read whole below */
			if (copy_from_iter(&type, sizeof(type), &it) !=
			    sizeof(type)) {
				kt_vhost_vq_broken(vq, "a control request is not readable");
				return;
			}
			iov_iter_revert(&it, sizeof(type));
			switch (__virtio32_to_cpu(true, type)) {
			case VIRTIO_SCSI_T_TMF:
				ret = kt_vhost_tmf(vq, head, &c, &it);
				break;
			case VIRTIO_SCSI_T_AN_QUERY:
			case VIRTIO_SCSI_T_AN_SUBSCRIBE:
				ret = kt_vhost_an(vq, head, &c);
				break;
			default:
				pr_warn_ratelimited("queue %u: a control request of unknown type %u\n",
						    vq->index,
						    __virtio32_to_cpu(true, type));
				ret = kt_vhost_vq_used(vq, head, 0);
				break;
			}
		}
		if (ret)
			return;
	}
}

/*
 * The core's answer, from its work item: sent from the queue's work. The
 * answers of the commands it aborted were queued to their queues' works
 * (kt_vhost_aborted) before; they go into their used rings first, since
 * Linux's virtio_scsi takes the TMF's answer as their end.
 */
void kt_vhost_queue_tm_rsp(struct kt_tmr *tmr)
{
	struct kt_vhost_req *r = &container_of(tmr, struct kt_vhost_tmr, tmr)->r;
	struct kt_vhost_dev *dev = r->vq->dev;
	struct kt_vhost_vq *vq;
	unsigned int i;

	for (i = KT_VHOST_VQ_IO; i < KT_VHOST_NR_VQ; i++) {
		vq = kt_vhost_dev_vq(dev, i);
		if (vq)
			flush_work(&vq->work);
	}
	kt_vhost_req_done(r);
}

void kt_vhost_answer_tmf(struct kt_vhost_req *r)
{
	struct kt_vhost_tmr *t = container_of(r, struct kt_vhost_tmr, r);
	struct virtio_scsi_ctrl_tmf_resp resp = {
		.response = kt_vhost_tmf_response(t->tmr.response),
	};
	struct kt_vhost_tpg *tpg = r->tpg;
	struct kt_vhost_vq *vq = r->vq;
	struct kt_vhost_dev *dev = vq->dev;
	struct iov_iter it;

	iov_iter_init(&it, ITER_DEST, r->in, r->in_nr, sizeof(resp));
	if (copy_to_iter(&resp, sizeof(resp), &it) == sizeof(resp))
		kt_vhost_vq_used(vq, r->head, sizeof(resp));
	else
		kt_vhost_vq_broken(vq, "a TMF response buffer is not writable");
	atomic_dec(&vq->inflight);
	/* the core touches nothing of it after its answer */
	kfree(t);
	kt_obj_dec(&kt_vhost_objs[KT_VHOST_OBJ_TMF]);
	if (atomic_dec_and_test(&tpg->inflight))
		wake_up_var(&tpg->inflight);
	if (atomic_dec_and_test(&dev->inflight))
		wake_up_var(&dev->inflight);
}
