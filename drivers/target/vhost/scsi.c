// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_vhost: the request queues (virtio 1.2, 5.6.6.1). A request is a
 * chain whose device-readable part holds a virtio_scsi_cmd_req and the
 * data-out, and whose writable part has room for a virtio_scsi_cmd_resp
 * and the data-in, however the guest cut them into descriptors.
 *
 * The LUN field is the guest's virtio-scsi address: byte 0 is 1, byte 1
 * the target (the TPG's tag), bytes 2-3 the LUN as SAM-5 4.7 puts it in
 * the first level, bytes 4-7 zero. Another byte 0, or a target the
 * endpoint has no TPG for, is answered VIRTIO_SCSI_S_BAD_TARGET without a
 * command; a LUN the TPG lacks is the core's to answer (LOGICAL UNIT NOT
 * SUPPORTED). A header that does not fit, or data both ways, is answered
 * VIRTIO_SCSI_S_FAILURE; no memory for the command, VIRTIO_SCSI_S_BUSY.
 *
 * The data: the core allocates the command's buffer (cmd->sgl) from what
 * the CDB and the guest's buffer allow, the data-out is copied into it
 * before the command runs, and the data-in is copied out of it from the
 * queue's work once the core calls queue_data_in. A queue takes at most
 * its ring size of commands at once.
 *
 * With VIRTIO_SCSI_F_T10_PI negotiated (QEMU's t10_pi=on) the header is a
 * virtio_scsi_cmd_req_pi: the first pi_bytesout bytes after it, or the
 * first pi_bytesin after the response, are the PI of the blocks (the
 * guest's DIX list, 8 bytes a block), then the data. The PI goes to a
 * buffer of the command's own (at most KT_VHOST_MAX_PI bytes, and no more
 * than 8 bytes for each 512 of the command's data), handed to the core
 * beside the data as the loopback hands its DIX list.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
#include <linux/overflow.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/unaligned.h>
#include <linux/virtio_byteorder.h>

#include <ktarget/proto/lun.h>

#include "vhost.h"

/*
 * The PI one request may carry: the tuples of 64 MiB of 512-byte blocks,
 * more than a command of the core moves
 */
#define KT_VHOST_MAX_PI		SZ_1M
/* a T10-PI tuple's bytes, for a logical block of at least 512 */
#define KT_VHOST_PI_TUPLE	8

/* A command of a request queue */
struct kt_vhost_cmd {
	struct kt_cmd		cmd;
	struct kt_vhost_req	r;
	u8			response;	/* VIRTIO_SCSI_S_OK or _ABORTED */
	bool			data_in;	/* queue_data_in: send the data */
	/* T10_PI: the guest's tuples, pi_in of them go back before the data */
	struct scatterlist	*prot;
	unsigned int		prot_nents;
	u32			pi_in;
	struct iovec		iov[];		/* r.in */
};

static struct kt_vhost_cmd *to_vhost_cmd(struct kt_cmd *cmd)
{
	return container_of(cmd, struct kt_vhost_cmd, cmd);
}

/*
 * The TPG and LUN a virtio-scsi LUN field names; false when the endpoint
 * has no such target. Under a vq->mutex of @dev.
 */
bool kt_vhost_addr_target(struct kt_vhost_dev *dev, const u8 *lun,
			  struct kt_vhost_tpg **tpg, u64 *unpacked_lun)
{
	struct kt_vhost_tpg *t;

	if (lun[0] != 1)
		return false;
	t = dev->tpgs[lun[1]];
	if (!t)
		return false;
	*tpg = t;
	if (get_unaligned_be32(lun + 4))
		*unpacked_lun = KT_LUN_NONE;
	else
		*unpacked_lun = kt_lun_decode((u64)get_unaligned_be16(lun + 2) << 48);
	return true;
}

/*
 * Copy @len bytes between the buffer @sgl and @it, a page at a time (the
 * core's entries may be longer than a page). Returns the bytes moved.
 */
static size_t kt_vhost_sg_copy(struct scatterlist *sgl, unsigned int nents,
			       size_t len, struct iov_iter *it, bool to_guest)
{
	struct scatterlist *sg;
	size_t done = 0, n, got, off, left;
	struct page *page;
	unsigned int i;

	for_each_sg(sgl, sg, nents, i) {
		off = sg->offset;
		left = min_t(size_t, sg->length, len - done);
		while (left) {
			page = nth_page(sg_page(sg), off >> PAGE_SHIFT);
			n = min_t(size_t, left, PAGE_SIZE - offset_in_page(off));
			if (to_guest)
				got = copy_page_to_iter(page, offset_in_page(off),
							n, it);
			else
				got = copy_page_from_iter(page, offset_in_page(off),
							  n, it);
			done += got;
			if (got != n)
				return done;
			off += n;
			left -= n;
		}
		if (done == len)
			break;
	}
	return done;
}

static enum kt_task_attr kt_vhost_task_attr(u8 attr)
{
	switch (attr) {
	case VIRTIO_SCSI_S_ORDERED:
		return KT_TASK_ORDERED;
	case VIRTIO_SCSI_S_HEAD:
		return KT_TASK_HEAD_OF_QUEUE;
	case VIRTIO_SCSI_S_ACA:
		return KT_TASK_ACA;
	default:
		return KT_TASK_SIMPLE;
	}
}

static int kt_vhost_cmd_refuse(struct kt_vhost_vq *vq,
			       struct kt_vhost_chain *c, u16 head, u8 response)
{
	struct virtio_scsi_cmd_resp resp = { .response = response };

	return kt_vhost_reply(vq, c, head, &resp, sizeof(resp));
}

/* A request's header, with PI (T10_PI) or without */
struct kt_vhost_hdr {
	union {
		struct virtio_scsi_cmd_req	req;
		struct virtio_scsi_cmd_req_pi	pi;
	};
	size_t		len;
	const u8	*cdb;
	u32		pi_out;
	u32		pi_in;
};

/* Read the header the features say; false when it is not readable */
static bool kt_vhost_read_hdr(struct kt_vhost_vq *vq, struct iov_iter *it,
			      struct kt_vhost_hdr *h)
{
	bool pi = vq->dev->features & (1ULL << VIRTIO_SCSI_F_T10_PI);

	h->len = pi ? sizeof(h->pi) : sizeof(h->req);
	if (copy_from_iter(&h->req, h->len, it) != h->len)
		return false;
	h->cdb = pi ? h->pi.cdb : h->req.cdb;
	h->pi_out = pi ? __virtio32_to_cpu(true, h->pi.pi_bytesout) : 0;
	h->pi_in = pi ? __virtio32_to_cpu(true, h->pi.pi_bytesin) : 0;
	return true;
}

/*
 * The guest's PI for the command: a buffer of its own, a write's copied in
 * from @it (where the data-out begins). Not readable: the queue is broken.
 */
static sense_reason_t kt_vhost_take_pi(struct kt_vhost_cmd *vc,
				       const struct kt_vhost_hdr *h,
				       struct iov_iter *it)
{
	u32 len = h->pi_out ?: h->pi_in;

	vc->prot = sgl_alloc(len, GFP_KERNEL_ACCOUNT | __GFP_ZERO,
			     &vc->prot_nents);
	if (!vc->prot)
		return KT_SENSE_OUT_OF_RESOURCES;
	vc->pi_in = h->pi_in;
	if (h->pi_out &&
	    kt_vhost_sg_copy(vc->prot, vc->prot_nents, len, it, false) != len) {
		kt_vhost_vq_broken(vc->r.vq, "a request's PI is not readable");
		return KT_SENSE_ABORTED_COMMAND;
	}
	kt_cmd_set_fabric_prot(&vc->cmd, vc->prot, vc->prot_nents);
	return KT_SENSE_NONE;
}

/* Take one request in: answer it at once, or hand it to the core. */
static int kt_vhost_cmd_one(struct kt_vhost_vq *vq, u16 head,
			    struct kt_vhost_chain *c)
{
	struct kt_vhost_dev *dev = vq->dev;
	enum kt_data_dir dir = KT_DATA_NONE;
	struct kt_vhost_tpg *tpg;
	struct kt_vhost_cmd *vc;
	struct kt_vhost_hdr h;
	u64 out_data, in_data, lun;
	struct iov_iter it;
	sense_reason_t reason;
	struct kt_cmd *cmd;
	u32 expected = 0;
	size_t n;

	iov_iter_init(&it, ITER_SOURCE, vq->iov, c->out_nr, c->out_len);
	if (c->out_len < sizeof(h.req) ||
	    c->in_len < sizeof(struct virtio_scsi_cmd_resp)) {
		pr_warn_ratelimited("queue %u: a request without room for its header or response\n",
				    vq->index);
		return kt_vhost_cmd_refuse(vq, c, head, VIRTIO_SCSI_S_FAILURE);
	}
	if (!kt_vhost_read_hdr(vq, &it, &h)) {
		if (c->out_len < h.len) {
			pr_warn_ratelimited("queue %u: a request without room for its header with PI\n",
					    vq->index);
			return kt_vhost_cmd_refuse(vq, c, head,
						   VIRTIO_SCSI_S_FAILURE);
		}
		kt_vhost_vq_broken(vq, "a request header is not readable");
		return -EFAULT;
	}
	if (!kt_vhost_addr_target(dev, h.req.lun, &tpg, &lun))
		return kt_vhost_cmd_refuse(vq, c, head,
					   VIRTIO_SCSI_S_BAD_TARGET);
	out_data = c->out_len - h.len;
	in_data = c->in_len - sizeof(struct virtio_scsi_cmd_resp);
	if ((out_data && in_data) || out_data > U32_MAX || in_data > U32_MAX) {
		pr_warn_ratelimited("queue %u: a request with data both ways, or more than 4 GiB\n",
				    vq->index);
		return kt_vhost_cmd_refuse(vq, c, head, VIRTIO_SCSI_S_FAILURE);
	}
	if ((h.pi_out && h.pi_in) || h.pi_out > out_data || h.pi_in > in_data ||
	    h.pi_out > KT_VHOST_MAX_PI || h.pi_in > KT_VHOST_MAX_PI) {
		pr_warn_ratelimited("queue %u: PI of %u bytes out and %u in, with %llu and %llu bytes of buffers (at most %u of PI)\n",
				    vq->index, h.pi_out, h.pi_in, out_data,
				    in_data, KT_VHOST_MAX_PI);
		return kt_vhost_cmd_refuse(vq, c, head, VIRTIO_SCSI_S_FAILURE);
	}
	out_data -= h.pi_out;
	in_data -= h.pi_in;
	if (out_data) {
		dir = KT_DATA_OUT;
		expected = out_data;
	} else if (in_data) {
		dir = KT_DATA_IN;
		expected = in_data;
	}

	vc = kzalloc(struct_size(vc, iov, c->in_nr), GFP_KERNEL_ACCOUNT);
	if (!vc)
		return kt_vhost_cmd_refuse(vq, c, head, VIRTIO_SCSI_S_BUSY);
	memcpy(vc->iov, vq->iov + c->out_nr, c->in_nr * sizeof(*vc->iov));
	vc->r.vq = vq;
	vc->r.tpg = tpg;
	vc->r.head = head;
	vc->r.in = vc->iov;
	vc->r.in_nr = c->in_nr;
	vc->r.in_len = c->in_len;
	vc->response = VIRTIO_SCSI_S_OK;
	atomic_inc(&vq->inflight);
	atomic_inc(&tpg->inflight);
	atomic_inc(&dev->inflight);
	kt_obj_inc(&kt_vhost_objs[KT_VHOST_OBJ_CMD]);

	cmd = &vc->cmd;
	kt_cmd_init(cmd, &kt_vhost_ops, &tpg->nexus->sess,
		    __virtio64_to_cpu(true, h.req.tag), dir, expected,
		    kt_vhost_task_attr(h.req.task_attr));
	reason = h.pi_out || h.pi_in ? kt_vhost_take_pi(vc, &h, &it) :
				       KT_SENSE_NONE;
	if (reason)
		reason = kt_cmd_refuse(cmd, lun, reason);
	else
		reason = kt_cmd_setup(cmd, h.cdb, VIRTIO_SCSI_CDB_SIZE, lun);
	/*
	 * no more PI than the command's blocks can have (8 bytes for every
	 * 512 of data): what the target holds follows the data, which the
	 * core bounds (data_buffer_limit_mb)
	 */
	if (!reason && vc->prot &&
	    (h.pi_out ?: h.pi_in) > DIV_ROUND_UP(cmd->data_length, 512) *
				     KT_VHOST_PI_TUPLE) {
		pr_warn_ratelimited("queue %u: PI of %u bytes for %u bytes of data\n",
				    vq->index, h.pi_out ?: h.pi_in,
				    cmd->data_length);
		vc->response = VIRTIO_SCSI_S_FAILURE;
		reason = KT_SENSE_ABORTED_COMMAND;
	}
	if (!reason && cmd->dir == KT_DATA_OUT && cmd->data_length) {
		/* data_length is at most what the guest gave (expected) */
		n = kt_vhost_sg_copy(cmd->sgl, cmd->sg_nents, cmd->data_length,
				     &it, false);
		cmd->data_received = n;
		if (n != cmd->data_length) {
			kt_vhost_vq_broken(vq, "a request's data-out is not readable");
			reason = KT_SENSE_ABORTED_COMMAND;
		}
	}
	if (reason)
		kt_cmd_fail(cmd, reason);
	else
		kt_cmd_run(cmd);
	return 0;
}

void kt_vhost_handle_io(struct kt_vhost_vq *vq)
{
	unsigned int budget = KT_VHOST_BUDGET;
	struct kt_vhost_chain c;
	u16 head;

	/* the answers of commands in flight requeue the work */
	while (atomic_read(&vq->inflight) < vq->num) {
		if (!budget--) {
			kt_vhost_vq_queue(vq);
			return;
		}
		if (kt_vhost_vq_next(vq, &head) <= 0 ||
		    kt_vhost_vq_walk(vq, head, &c) ||
		    kt_vhost_cmd_one(vq, head, &c))
			return;
	}
}

/*
 * Copy the data-in into the guest's buffer after the response, at most
 * @room bytes: false when less reached it (a buffer not writable).
 */
static bool kt_vhost_send_data_in(struct kt_vhost_cmd *vc, size_t room,
				  size_t *moved)
{
	struct kt_vhost_req *r = &vc->r;
	struct kt_cmd *cmd = &vc->cmd;
	struct iov_iter it;
	size_t want;

	*moved = 0;
	if (!vc->data_in || !cmd->data_length || !cmd->sgl)
		return true;
	want = min_t(size_t, room, cmd->data_length);
	iov_iter_init(&it, ITER_DEST, r->in, r->in_nr, r->in_len);
	iov_iter_advance(&it, sizeof(struct virtio_scsi_cmd_resp));
	/*
	 * T10_PI: the tuples first, where the guest's DIX list is mapped,
	 * when the core filled them (RDPROTECT); else that room is left as
	 * the guest had it
	 */
	if (vc->pi_in && vc->prot && kt_cmd_prot_filled(cmd) &&
	    kt_vhost_sg_copy(vc->prot, vc->prot_nents, vc->pi_in, &it,
			     true) != vc->pi_in) {
		pr_warn_ratelimited("queue %u: a data-in's PI buffer is not writable; the request fails\n",
				    r->vq->index);
		return false;
	} else if (vc->pi_in && !kt_cmd_prot_filled(cmd)) {
		iov_iter_advance(&it, vc->pi_in);
	}
	*moved = kt_vhost_sg_copy(cmd->sgl, cmd->sg_nents, want, &it, true);
	if (*moved == want)
		return true;
	pr_warn_ratelimited("queue %u: a data-in buffer is not writable (%zu of %zu bytes); the request fails\n",
			    r->vq->index, *moved, want);
	*moved = 0;
	return false;
}

/* The answer of a command, from its queue's work: data-in, response. */
void kt_vhost_answer_cmd(struct kt_vhost_req *r)
{
	struct kt_vhost_cmd *vc = container_of(r, struct kt_vhost_cmd, r);
	struct virtio_scsi_cmd_resp resp = { .response = vc->response };
	size_t room = r->in_len - sizeof(resp) - vc->pi_in, moved = 0;
	struct kt_vhost_vq *vq = r->vq;
	struct kt_cmd *cmd = &vc->cmd;
	struct iov_iter it;
	u32 resid = 0;

	if (resp.response == VIRTIO_SCSI_S_OK && cmd->dir == KT_DATA_IN) {
		/* not GOOD with a residual: the data did not reach the guest */
		if (!kt_vhost_send_data_in(vc, room, &moved))
			resp.response = VIRTIO_SCSI_S_FAILURE;
		resid = room - moved;
	}
	/*
	 * What the CDB wanted beyond the guest's buffers (none, or the
	 * other way), as LIO reports its residual count
	 */
	if (resp.response == VIRTIO_SCSI_S_OK &&
	    (cmd->overflow || (cmd->underflow && cmd->dir != KT_DATA_IN)))
		resid = cmd->residual;
	if (resp.response == VIRTIO_SCSI_S_OK) {
		resp.status = cmd->status;
		resp.sense_len = __cpu_to_virtio32(true, min_t(u32, cmd->sense_len,
							       sizeof(resp.sense)));
		memcpy(resp.sense, cmd->sense,
		       min_t(size_t, cmd->sense_len, sizeof(resp.sense)));
	}
	resp.resid = __cpu_to_virtio32(true, resid);
	iov_iter_init(&it, ITER_DEST, r->in, r->in_nr, sizeof(resp));
	/* the PI went before the data */
	if (moved)
		moved += vc->pi_in;
	if (copy_to_iter(&resp, sizeof(resp), &it) == sizeof(resp))
		kt_vhost_vq_used(vq, r->head, sizeof(resp) + moved);
	else
		kt_vhost_vq_broken(vq, "a response buffer is not writable");
	atomic_dec(&vq->inflight);
	kt_cmd_put(cmd);
}

/* Every byte of the data-out came with the request (scsi.c copies it). */
void kt_vhost_write_pending(struct kt_cmd *cmd)
{
	kt_cmd_fail(cmd, KT_SENSE_ABORTED_COMMAND);
}

void kt_vhost_queue_data_in(struct kt_cmd *cmd)
{
	struct kt_vhost_cmd *vc = to_vhost_cmd(cmd);

	vc->data_in = true;
	kt_vhost_req_done(&vc->r);
}

void kt_vhost_queue_status(struct kt_cmd *cmd)
{
	kt_vhost_req_done(&to_vhost_cmd(cmd)->r);
}

/*
 * A TMF ended the command (SAM-5 7.2): the guest still wants its buffers
 * back, with VIRTIO_SCSI_S_ABORTED (virtio 1.2, 5.6.6.1.1).
 */
void kt_vhost_aborted(struct kt_cmd *cmd)
{
	struct kt_vhost_cmd *vc = to_vhost_cmd(cmd);

	vc->response = VIRTIO_SCSI_S_ABORTED;
	kt_vhost_req_done(&vc->r);
}

/* The last reference: any context, no sleeping. */
void kt_vhost_release_cmd(struct kt_cmd *cmd)
{
	struct kt_vhost_cmd *vc = to_vhost_cmd(cmd);
	struct kt_vhost_tpg *tpg = vc->r.tpg;
	struct kt_vhost_dev *dev = vc->r.vq->dev;

	sgl_free(vc->prot);
	kfree(vc);
	kt_obj_dec(&kt_vhost_objs[KT_VHOST_OBJ_CMD]);
	/* the waiters may free either as soon as its count is 0 */
	if (atomic_dec_and_test(&tpg->inflight))
		wake_up_var(&tpg->inflight);
	if (atomic_dec_and_test(&dev->inflight))
		wake_up_var(&dev->inflight);
}
