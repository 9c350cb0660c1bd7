// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_srpt: a channel's life. A connect request carries an
 * SRP_LOGIN_REQ (SRP r16a 6.2, in the rdma_cm layout of struct
 * srp_login_req_rdma); it is checked, the TPG is found by the port the
 * request came in on (a WWN names its GUID or its GID 0) and the
 * initiator by its port identifier (an ACL named "0x" and 32 hex digits,
 * the same without "0x", or the GUID half as xxxx:xxxx:xxxx:xxxx, as
 * ib_srpt takes them), the queue pair and receive buffers are made, the
 * session registered, and the SRP_LOGIN_RSP goes with the accept. Each
 * refusal is an SRP_LOGIN_REJ with the reason SRP r16a table 8 gives it.
 *
 * The channel then lives until a close (disconnect, SRP_I_LOGOUT, an
 * error, the TPG disabled or removed, its ACL removed, another login of
 * the same nexus asking for a single channel). The close work, once per
 * channel on kt_srpt_close_wq:
 *
 *	1. stops posting and drains the queue pair: no completion after it
 *	2. drops the IUs and commands that wait, then ends the nexus's
 *	   tasks (kt_session_nexus_loss()) and waits, with a warning every
 *	   30 s, until its last command and TMF are released: a command in
 *	   a backstore holds the session
 *	3. unregisters the session, leaves the TPG's list (which is what
 *	   TPG and ACL removal wait for), frees the QP, CQ, PD and buffers,
 *	   and destroys the cm_id, unless the device went away: then
 *	   rdma_cm destroys it as the removal handler returns.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>

#include "srpt.h"

static atomic_t kt_srpt_nr_ch = ATOMIC_INIT(0);
/* bumped each time a channel leaves its TPG's list: kt_srpt_tpg_close() */
static atomic_t kt_srpt_ch_gone;

static void kt_srpt_ch_free(struct kref *kref)
{
	kfree(container_of(kref, struct kt_srpt_ch, kref));
}

void kt_srpt_ch_put(struct kt_srpt_ch *ch)
{
	kref_put(&ch->kref, kt_srpt_ch_free);
}

/* The first packet came before the RTU: rdma_cm moves the QP on. */
static void kt_srpt_qp_event(struct ib_event *ev, void *ctx)
{
	struct kt_srpt_ch *ch = ctx;

	if (ev->event == IB_EVENT_COMM_EST)
		rdma_notify(ch->cm_id, ev->event);
}

/* QP, CQ, PD and buffers; the QP first, by rdma_cm */
static void kt_srpt_free_res(struct kt_srpt_ch *ch)
{
	if (ch->qp)
		rdma_destroy_qp(ch->cm_id);
	ch->qp = NULL;
	kt_srpt_free_rx(ch);
	if (ch->cq)
		ib_free_cq(ch->cq);
	ch->cq = NULL;
	if (ch->pd)
		ib_dealloc_pd(ch->pd);
	ch->pd = NULL;
}

static int kt_srpt_create_qp(struct kt_srpt_ch *ch)
{
	const struct ib_device_attr *attrs = &ch->dev->attrs;
	struct ib_qp_init_attr attr = {
		.event_handler = kt_srpt_qp_event,
		.qp_context = ch,
		.cap = {
			/* + one SRP_CRED_REQ (rx.c) */
			.max_send_wr = ch->sq_size + KT_SRPT_SQ_RESERVE + 1,
			.max_recv_wr = ch->rq_size + 1,		/* + drain */
			.max_recv_sge = 1,
			.max_send_sge = min_t(u32, attrs->max_send_sge, 32),
			.max_rdma_ctxs = ch->rq_size,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
		.port_num = ch->port,
	};
	/* flushes complete unsignalled requests too */
	int cqe = min_t(int, ch->rq_size + 2 * (ch->sq_size + 128),
			attrs->max_cqe);
	int ret;

	ch->pd = ib_alloc_pd(ch->dev, 0);
	if (IS_ERR(ch->pd)) {
		ret = PTR_ERR(ch->pd);
		ch->pd = NULL;
		return ret;
	}
	ch->cq = ib_alloc_cq_any(ch->dev, ch, cqe, IB_POLL_WORKQUEUE);
	if (IS_ERR(ch->cq)) {
		ret = PTR_ERR(ch->cq);
		ch->cq = NULL;
		return ret;
	}
	attr.send_cq = ch->cq;
	attr.recv_cq = ch->cq;
	ret = rdma_create_qp(ch->cm_id, ch->pd, &attr);
	if (ret)
		return ret;
	ch->qp = ch->cm_id->qp;
	return 0;
}

static void kt_srpt_close_work(struct work_struct *work);

static struct kt_srpt_ch *kt_srpt_ch_alloc(struct rdma_cm_id *cm_id)
{
	struct kt_srpt_ch *ch;

	ch = kzalloc(sizeof(*ch), GFP_KERNEL);
	if (!ch)
		return NULL;
	/* the cm_id's reference and the close's */
	kref_init(&ch->kref);
	kref_get(&ch->kref);
	ch->cm_id = cm_id;
	ch->dev = cm_id->device;
	ch->port = cm_id->port_num;
	INIT_LIST_HEAD(&ch->tpg_node);
	atomic_set(&ch->state, KT_SRPT_CH_CONNECTING);
	INIT_WORK(&ch->close_work, kt_srpt_close_work);
	spin_lock_init(&ch->early_lock);
	INIT_LIST_HEAD(&ch->early);
	INIT_WORK(&ch->early_work, kt_srpt_early_work);
	spin_lock_init(&ch->post_lock);
	INIT_LIST_HEAD(&ch->sq_wait);
	INIT_WORK(&ch->sq_work, kt_srpt_sq_work);
	INIT_LIST_HEAD(&ch->tmf_wait);
	ch->tmf_avail = KT_SRPT_SQ_RESERVE;
	mutex_init(&ch->res_lock);
	init_completion(&ch->freed);
	return ch;
}

/* ---- login ---- */

static int kt_srpt_reject(struct rdma_cm_id *cm_id, u64 tag, u32 reason,
			  const char *why)
{
	struct srp_login_rej rej = {
		.opcode = SRP_LOGIN_REJ,
		.reason = cpu_to_be32(reason),
		.tag = tag,
		.buf_fmt = cpu_to_be16(SRP_BUF_FORMAT_DIRECT |
				       SRP_BUF_FORMAT_INDIRECT),
	};

	pr_warn_ratelimited("login from %pISpc refused (%#x): %s\n",
			    &cm_id->route.addr.dst_addr, reason, why);
	rdma_reject(cm_id, &rej, sizeof(rej), IB_CM_REJ_CONSUMER_DEFINED);
	return -ECONNREFUSED;
}

/* Does target/srpt/@tport name the port the request came in on? */
static bool kt_srpt_tport_is(struct kt_srpt_tport *tport,
			     const union ib_gid *gid0)
{
	if (tport->is_guid)
		return !memcmp(tport->id + 8, gid0->raw + 8, 8);
	return !memcmp(tport->id, gid0->raw, 16);
}

/* The names an ACL of the initiator may have, best first */
#define KT_SRPT_NAMES	3

static void kt_srpt_names(const u8 *i_port_id,
			  char names[KT_SRPT_NAMES][KT_INITIATOR_NAME_LEN])
{
	const u8 *g = i_port_id + 8;

	snprintf(names[0], KT_INITIATOR_NAME_LEN, "0x%16phN", i_port_id);
	snprintf(names[1], KT_INITIATOR_NAME_LEN, "%16phN", i_port_id);
	snprintf(names[2], KT_INITIATOR_NAME_LEN, "%02x%02x:%02x%02x:%02x%02x:%02x%02x",
		 g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7]);
}

/*
 * Under kt_srpt_lock: the first open TPG of the port that lets the
 * initiator in, with its ACL (referenced; NULL in demo mode) and the name
 * the session takes.
 */
static struct kt_srpt_tpg *kt_srpt_find_tpg(const union ib_gid *gid0,
					    char names[KT_SRPT_NAMES][KT_INITIATOR_NAME_LEN],
					    struct kt_node_acl **acl,
					    const char **name)
{
	struct kt_srpt_tport *tport;
	struct kt_srpt_tpg *tpg;
	int i;

	lockdep_assert_held(&kt_srpt_lock);
	list_for_each_entry(tport, &kt_srpt_tports, node) {
		if (!kt_srpt_tport_is(tport, gid0))
			continue;
		list_for_each_entry(tpg, &tport->tpgs, node) {
			if (tpg->closed || !READ_ONCE(tpg->tpg.enabled))
				continue;
			for (i = 0; i < KT_SRPT_NAMES; i++) {
				*acl = kt_tpg_find_acl(&tpg->tpg, names[i]);
				if (*acl) {
					*name = names[i];
					return tpg;
				}
			}
			if (tpg->tpg.generate_node_acls) {
				*name = names[0];
				return tpg;
			}
		}
	}
	return NULL;
}

/*
 * SRP r16a 6.2: MULTI-CHANNEL ACTION. Single: the nexus's other channels
 * end; multiple: they stay. Under kt_srpt_lock; the login response's
 * MULTI-CHANNEL RESULT.
 */
static u8 kt_srpt_multichannel(struct kt_srpt_ch *new, u8 req_flags)
{
	struct kt_srpt_ch *ch;
	bool any = false;

	lockdep_assert_held(&kt_srpt_lock);
	list_for_each_entry(ch, &new->tpg->channels, tpg_node) {
		if (memcmp(ch->i_port_id, new->i_port_id, 16) ||
		    memcmp(ch->t_port_id, new->t_port_id, 16) ||
		    atomic_read(&ch->state) == KT_SRPT_CH_CLOSING)
			continue;
		any = true;
		if ((req_flags & 3) == SRP_MULTICHAN_SINGLE)
			kt_srpt_ch_close(ch);
	}
	if (!any)
		return SRP_LOGIN_RSP_MULTICHAN_NO_CHAN;
	return (req_flags & 3) == SRP_MULTICHAN_SINGLE ?
		SRP_LOGIN_RSP_MULTICHAN_TERMINATED :
		SRP_LOGIN_RSP_MULTICHAN_MAINTAINED;
}

/* The target port identifier: id_ext and ioc_guid, our service GUID */
static bool kt_srpt_target_port_ok(struct ib_device *dev, const u8 *tpi)
{
	__be64 want = kt_srpt_service_guid ?
		      cpu_to_be64(kt_srpt_service_guid) : dev->node_guid;

	return !memcmp(tpi, &want, 8) && !memcmp(tpi + 8, &want, 8);
}

/*
 * A connect request on the listener, in its handler: nonzero makes
 * rdma_cm destroy @cm_id (after the reject has gone).
 */
int kt_srpt_login(struct rdma_cm_id *cm_id, struct rdma_cm_event *ev)
{
	char names[KT_SRPT_NAMES][KT_INITIATOR_NAME_LEN];
	const struct ib_device_attr *attrs = &cm_id->device->attrs;
	struct srp_login_req_rdma req;
	struct srp_login_rsp rsp = {};
	struct rdma_conn_param param = {
		.private_data = &rsp,
		.private_data_len = sizeof(rsp),
		.responder_resources = min_t(u32, ev->param.conn.responder_resources,
					     attrs->max_qp_rd_atom),
		.initiator_depth = min_t(u32, ev->param.conn.initiator_depth,
					 attrs->max_qp_init_rd_atom),
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	struct kt_node_acl *acl = NULL;
	char where[KT_INITIATOR_NAME_LEN + 16];
	struct kt_srpt_tpg *tpg;
	struct kt_srpt_ch *ch;
	const char *name, *why;
	union ib_gid gid0;
	u32 it_iu_len, reason;
	u16 fmt;
	int ret;

	if (!ev->param.conn.private_data ||
	    ev->param.conn.private_data_len < sizeof(req))
		return kt_srpt_reject(cm_id, 0, SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL,
				      "connect request without an SRP_LOGIN_REQ");
	memcpy(&req, ev->param.conn.private_data, sizeof(req));
	if (req.opcode != SRP_LOGIN_REQ)
		return kt_srpt_reject(cm_id, req.tag, SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL,
				      "not an SRP_LOGIN_REQ");
	it_iu_len = be32_to_cpu(req.req_it_iu_len);
	fmt = be16_to_cpu(req.req_buf_fmt);
	if (!(fmt & (SRP_BUF_FORMAT_DIRECT | SRP_BUF_FORMAT_INDIRECT)))
		return kt_srpt_reject(cm_id, req.tag, SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT,
				      "neither direct nor indirect descriptors");
	if (it_iu_len < KT_SRPT_MIN_IU_LEN)
		return kt_srpt_reject(cm_id, req.tag, SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL,
				      "requested IU length below 64 bytes");
	if (!kt_srpt_target_port_ok(cm_id->device, req.target_port_id))
		return kt_srpt_reject(cm_id, req.tag, SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL,
				      "target port identifier is not id_ext and ioc_guid = srpt_service_guid");
	ret = rdma_query_gid(cm_id->device, cm_id->port_num, 0, &gid0);
	if (ret)
		return kt_srpt_reject(cm_id, req.tag, SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL,
				      "the port has no GID 0");
	if (atomic_inc_return(&kt_srpt_nr_ch) > KT_SRPT_MAX_CHANNELS) {
		atomic_dec(&kt_srpt_nr_ch);
		return kt_srpt_reject(cm_id, req.tag, SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES,
				      "channel limit reached");
	}
	kt_srpt_names(req.initiator_port_id, names);

	ch = kt_srpt_ch_alloc(cm_id);
	if (!ch) {
		reason = SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES;
		why = "no memory";
		goto out_count;
	}
	memcpy(ch->i_port_id, req.initiator_port_id, 16);
	memcpy(ch->t_port_id, req.target_port_id, 16);

	mutex_lock(&kt_srpt_lock);
	tpg = kt_srpt_find_tpg(&gid0, names, &acl, &name);
	if (!tpg) {
		pr_warn_ratelimited("%s (%s): no enabled TPG of port %pI6 has an ACL for it\n",
				    names[0], names[2], gid0.raw);
		reason = SRP_LOGIN_REJ_CHANNEL_LIMIT_REACHED;
		why = "no ACL";
		goto out_unlock;
	}
	if (it_iu_len > tpg->max_req_size) {
		reason = SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE;
		why = "requested IU length above srp_max_req_size";
		goto out_acl;
	}
	ch->tpg = tpg;
	ch->rq_size = KT_SRPT_RQ_SIZE;
	/*
	 * The send queue: srp_sq_size, the TMF answers' reserve and the
	 * SRP_CRED_REQ; kept within max_qp_wr - rq_size as before, without
	 * wrapping below zero on a device of small queues.
	 */
	if (attrs->max_qp_wr < (int)(ch->rq_size + KT_SRPT_SQ_RESERVE + 1 +
				     KT_SRPT_MIN_SQ_SIZE)) {
		reason = SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES;
		why = "the device's queue pairs are too small";
		goto out_acl;
	}
	ch->sq_size = min_t(u32, tpg->sq_size,
			    attrs->max_qp_wr - KT_SRPT_SQ_RESERVE - 1 -
			    ch->rq_size);
	ch->max_it_iu_len = it_iu_len;
	ch->max_ti_iu_len = tpg->max_rsp_size;
	atomic_set(&ch->sq_avail, ch->sq_size);
	ret = kt_srpt_create_qp(ch);
	if (!ret)
		ret = kt_srpt_alloc_rx(ch);
	if (!ret)
		ret = kt_srpt_post_rx_all(ch);
	if (ret) {
		reason = SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES;
		why = "no queue pair or receive buffers";
		goto out_res;
	}

	ch->sess.tid.proto = KT_SRPT_PROTO_SRP;
	strscpy(ch->sess.tid.name, names[0], sizeof(ch->sess.tid.name));
	ret = kt_session_register(&ch->sess, &tpg->tpg, acl, name);
	if (ret) {
		reason = ret == -ENOMEM ? SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES :
					  SRP_LOGIN_REJ_CHANNEL_LIMIT_REACHED;
		why = "no session";
		goto out_res;
	}
	rsp.rsp_flags = kt_srpt_multichannel(ch, req.req_flags);
	list_add_tail(&ch->tpg_node, &tpg->channels);
	kt_obj_inc(&kt_srpt_objs[KT_SRPT_OBJ_CH]);

	/* SRP r16a 6.3; two receive buffers more than credits (rx.c) */
	atomic_set(&ch->credits, ch->rq_size - 2);
	rsp.opcode = SRP_LOGIN_RSP;
	rsp.req_lim_delta = cpu_to_be32(ch->rq_size - 2);
	rsp.tag = req.tag;
	rsp.max_it_iu_len = cpu_to_be32(it_iu_len);
	rsp.max_ti_iu_len = cpu_to_be32(ch->max_ti_iu_len);
	rsp.buf_fmt = cpu_to_be16(SRP_BUF_FORMAT_DIRECT |
				  SRP_BUF_FORMAT_INDIRECT);
	/* from here on, this cm_id's events are the channel's */
	cm_id->context = ch;
	cm_id->event_handler = kt_srpt_ch_cm_handler;
	/* once the lock is dropped the TPG may go with its WWN */
	snprintf(where, sizeof(where), "%s/tpgt_%u", tpg->tpg.wwn->name,
		 tpg->tpg.tag);
	mutex_unlock(&kt_srpt_lock);

	ret = rdma_accept(cm_id, &param);
	if (ret) {
		pr_warn_ratelimited("%s: cannot accept the login: %pe\n",
				    name, ERR_PTR(ret));
		/* the close work destroys the cm_id once this handler returns */
		kt_srpt_ch_close(ch);
		return 0;
	}
	pr_info("%s logged in to %s from %pISpc\n", name, where,
		&cm_id->route.addr.dst_addr);
	return 0;

out_res:
	/* flushed receives find it closing and do nothing */
	atomic_set(&ch->state, KT_SRPT_CH_CLOSING);
	kt_srpt_free_res(ch);
out_acl:
	if (acl)
		kt_acl_put(acl);
out_unlock:
	mutex_unlock(&kt_srpt_lock);
	kfree(ch);
out_count:
	atomic_dec(&kt_srpt_nr_ch);
	return kt_srpt_reject(cm_id, req.tag, reason, why);
}

void kt_srpt_ch_established(struct kt_srpt_ch *ch)
{
	int old = KT_SRPT_CH_CONNECTING;

	if (!atomic_try_cmpxchg(&ch->state, &old, KT_SRPT_CH_LIVE))
		return;
	/*
	 * A close may come now and cancel the work before it is queued:
	 * the work holds a reference, dropped by it or by the cancel.
	 */
	kref_get(&ch->kref);
	if (!queue_work(kt_srpt_wq, &ch->early_work))
		kt_srpt_ch_put(ch);
}

/* ---- teardown ---- */

/* Once per channel, from any context */
void kt_srpt_ch_close(struct kt_srpt_ch *ch)
{
	int old = atomic_read(&ch->state);

	do {
		if (old == KT_SRPT_CH_CLOSING)
			return;
	} while (!atomic_try_cmpxchg(&ch->state, &old, KT_SRPT_CH_CLOSING));
	queue_work(kt_srpt_close_wq, &ch->close_work);
}

static void kt_srpt_close_work(struct work_struct *work)
{
	struct kt_srpt_ch *ch = container_of(work, struct kt_srpt_ch,
					     close_work);
	unsigned long flags;
	unsigned int noio;
	bool removed;

	/* the commands it ends may be the initiator's reclaim (rx.c) */
	noio = memalloc_noio_save();
	spin_lock_irqsave(&ch->post_lock, flags);
	ch->down = true;
	spin_unlock_irqrestore(&ch->post_lock, flags);
	mutex_lock(&ch->res_lock);
	removed = ch->dev_removed;
	mutex_unlock(&ch->res_lock);
	if (!removed)
		rdma_disconnect(ch->cm_id);
	ib_drain_qp(ch->qp);
	kt_srpt_early_flush(ch);
	kt_srpt_sq_flush(ch);
	kt_srpt_tmf_flush(ch);

	kt_session_nexus_loss(&ch->sess);
	while (!wait_var_event_timeout(&ch->live, !atomic_read(&ch->live),
				       KT_SRPT_WAIT_WARN))
		pr_warn("%s: closing a channel waits for %d command(s) in the target\n",
			ch->sess.initiator, atomic_read(&ch->live));
	pr_info("%s: channel closed\n", ch->sess.initiator);
	kt_session_unregister(&ch->sess);

	mutex_lock(&kt_srpt_lock);
	list_del_init(&ch->tpg_node);
	mutex_unlock(&kt_srpt_lock);
	atomic_inc(&kt_srpt_ch_gone);
	/* the count changes before the wake-up looks at the wait queue */
	smp_mb__after_atomic();
	wake_up_var(&kt_srpt_ch_gone);

	mutex_lock(&ch->res_lock);
	kt_srpt_free_res(ch);
	ch->released = true;
	removed = ch->dev_removed;
	mutex_unlock(&ch->res_lock);
	complete_all(&ch->freed);
	if (!removed) {
		rdma_destroy_id(ch->cm_id);
		kt_srpt_ch_put(ch);		/* the cm_id's */
	}
	kt_obj_dec(&kt_srpt_objs[KT_SRPT_OBJ_CH]);
	atomic_dec(&kt_srpt_nr_ch);
	kt_srpt_ch_put(ch);			/* the close's */
	memalloc_noio_restore(noio);
}

/*
 * The RDMA device goes: the queue pair and buffers must be gone before
 * this handler returns 1, when rdma_cm destroys the cm_id. Unless the
 * close work got there first: then it destroys the cm_id, once this
 * handler has returned 0.
 */
int kt_srpt_ch_device_removed(struct kt_srpt_ch *ch)
{
	mutex_lock(&ch->res_lock);
	if (ch->released) {
		mutex_unlock(&ch->res_lock);
		return 0;
	}
	ch->dev_removed = true;
	mutex_unlock(&ch->res_lock);
	kt_srpt_ch_close(ch);
	/*
	 * It cannot return before the QP is gone; the close waits for the
	 * commands in the backstores: say so while it lasts.
	 */
	while (!wait_for_completion_timeout(&ch->freed, KT_SRPT_WAIT_WARN))
		pr_warn("%s: the RDMA device's removal waits for the channel's close (%d command(s) in the target)\n",
			ch->sess.initiator, atomic_read(&ch->live));
	kt_srpt_ch_put(ch);			/* the cm_id's */
	return 1;
}

/*
 * Is a channel of @tpg (of @acl, unless NULL) left? *@seen: the count of
 * departures read first, so that one after the look ends the wait.
 */
static bool kt_srpt_tpg_has(struct kt_srpt_tpg *tpg, struct kt_node_acl *acl,
			    int *seen)
{
	struct kt_srpt_ch *ch;
	bool found = false;

	*seen = atomic_read(&kt_srpt_ch_gone);
	mutex_lock(&kt_srpt_lock);
	list_for_each_entry(ch, &tpg->channels, tpg_node) {
		if (!acl || ch->sess.acl == acl) {
			found = true;
			break;
		}
	}
	mutex_unlock(&kt_srpt_lock);
	return found;
}

/*
 * Close @tpg's channels (of @acl only, unless NULL) and wait until they
 * are gone; @shut: no login joins the TPG until it is enabled again. The
 * list is looked at under kt_srpt_lock, a mutex, so not in the wait's
 * condition: that waits, lock-free, for the next channel to leave a list.
 */
void kt_srpt_tpg_close(struct kt_srpt_tpg *tpg, struct kt_node_acl *acl,
		       bool shut)
{
	unsigned long deadline = jiffies + KT_SRPT_WAIT_WARN;
	struct kt_srpt_ch *ch;
	int seen;

	mutex_lock(&kt_srpt_lock);
	if (shut)
		tpg->closed = true;
	list_for_each_entry(ch, &tpg->channels, tpg_node)
		if (!acl || ch->sess.acl == acl)
			kt_srpt_ch_close(ch);
	mutex_unlock(&kt_srpt_lock);
	while (kt_srpt_tpg_has(tpg, acl, &seen)) {
		if (wait_var_event_timeout(&kt_srpt_ch_gone,
					   atomic_read(&kt_srpt_ch_gone) != seen,
					   KT_SRPT_WAIT_WARN) &&
		    time_before(jiffies, deadline))
			continue;
		pr_warn("%s/tpgt_%u: still waiting for its channels to close\n",
			tpg->tpg.wwn->name, tpg->tpg.tag);
		deadline = jiffies + KT_SRPT_WAIT_WARN;
	}
}
