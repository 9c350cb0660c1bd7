// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_isert: connection management. A listener per portal address
 * takes connect requests from rdma_cm, builds the queue pair and its
 * buffers, accepts, and hands the connection to ktarget_iscsi, which runs
 * the login on it as on any other. Disconnects and device removal close
 * the iSCSI connection; its release frees what is here.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>

#include <rdma/ib_cm.h>

#include "isert.h"

#define KT_ISER_BACKLOG		128
#define KT_ISER_RELISTEN	(2 * HZ)

struct workqueue_struct *kt_iser_wq;

static void kt_iser_conn_free(struct kref *kref)
{
	kfree(container_of(kref, struct kt_iser_conn, kref));
}

void kt_iser_conn_put(struct kt_iser_conn *ic)
{
	kref_put(&ic->kref, kt_iser_conn_free);
}

/* QP, CQ, PD and receive buffers go once, by whoever comes first. */
void kt_iser_free_res(struct kt_iser_conn *ic)
{
	mutex_lock(&ic->res_lock);
	if (!ic->res_freed) {
		if (ic->qp)
			rdma_destroy_qp(ic->cm_id);
		kt_iser_free_rx(ic);
		if (ic->cq)
			ib_free_cq(ic->cq);
		if (ic->pd)
			ib_dealloc_pd(ic->pd);
		ic->qp = NULL;
		ic->cq = NULL;
		ic->pd = NULL;
		ic->res_freed = true;
	}
	mutex_unlock(&ic->res_lock);
}

static int kt_iser_create_qp(struct kt_iser_conn *ic)
{
	struct ib_qp_init_attr attr = {
		.qp_context = ic,
		.cap = {
			.max_send_wr = KT_ISER_MAX_SEND,
			.max_recv_wr = KT_ISER_NR_RX + 1,	/* + drain */
			.max_recv_sge = 1,
			.max_rdma_ctxs = KT_ISER_RDMA_CTXS,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
		.port_num = ic->port,
	};
	int ret;

	ic->pd = ib_alloc_pd(ic->dev, 0);
	if (IS_ERR(ic->pd)) {
		ret = PTR_ERR(ic->pd);
		ic->pd = NULL;
		return ret;
	}
	ic->cq = ib_alloc_cq_any(ic->dev, ic, KT_ISER_CQ_LEN, IB_POLL_WORKQUEUE);
	if (IS_ERR(ic->cq)) {
		ret = PTR_ERR(ic->cq);
		ic->cq = NULL;
		return ret;
	}
	attr.send_cq = ic->cq;
	attr.recv_cq = ic->cq;
	attr.cap.max_send_sge = min_t(u32, ic->dev->attrs.max_send_sge, 32);
	ret = rdma_create_qp(ic->cm_id, ic->pd, &attr);
	if (ret)
		return ret;
	ic->qp = ic->cm_id->qp;
	return 0;
}

static int kt_iser_conn_handler(struct rdma_cm_id *cm_id,
				struct rdma_cm_event *ev);

/* A connect request: everything is ready before the accept goes out. */
static int kt_iser_connect(struct kt_iser_listener *l, struct rdma_cm_id *cm_id,
			   struct rdma_cm_event *ev)
{
	const u8 *pdata = ev->param.conn.private_data;
	u8 hdr[4] = { KT_ISER_ZBVA_NOT_USED | KT_ISER_SEND_INV_NOT_USED };
	const struct ib_device_attr *attrs = &cm_id->device->attrs;
	/*
	 * rdma_cm hands the request over from this side: responder_resources
	 * is what the initiator will have in flight to us, initiator_depth
	 * what it serves of our RDMA READs (its Data-Out). Both are bounded
	 * by the device, whatever the initiator asked.
	 */
	struct rdma_conn_param param = {
		.private_data = hdr,
		.private_data_len = sizeof(hdr),
		.responder_resources = min_t(u32, ev->param.conn.responder_resources,
					     attrs->max_qp_rd_atom),
		.initiator_depth = min_t(u32, ev->param.conn.initiator_depth,
					 attrs->max_qp_init_rd_atom),
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	struct sockaddr_storage peer = {};
	struct kt_iser_conn *ic;
	struct kt_iscsi_conn *conn;
	int ret;

	if (ev->param.conn.private_data_len >= 1 && pdata)
		pr_debug("connect request, iSER flags %#x\n", pdata[0]);
	ic = kzalloc(sizeof(*ic), GFP_KERNEL);
	if (!ic)
		return -ENOMEM;
	/* one reference for the cm_id, one for the iSCSI connection */
	kref_init(&ic->kref);
	ic->cm_id = cm_id;
	ic->dev = cm_id->device;
	ic->port = cm_id->port_num;
	spin_lock_init(&ic->post_lock);
	mutex_init(&ic->res_lock);
	init_completion(&ic->drained);

	ret = kt_iser_create_qp(ic);
	if (!ret)
		ret = kt_iser_alloc_rx(ic);
	if (!ret)
		ret = kt_iser_post_rx_all(ic);
	if (ret)
		goto fail;

	memcpy(&peer, &cm_id->route.addr.dst_addr, sizeof(peer));
	conn = kt_iscsi_conn_alloc(l->portal, &kt_iser_transport, &peer);
	if (IS_ERR(conn)) {
		ret = PTR_ERR(conn);
		goto fail;
	}
	ic->conn = conn;
	*(struct kt_iser_conn **)kt_iscsi_conn_priv(conn) = ic;
	memcpy(&ic->local, &cm_id->route.addr.src_addr, sizeof(ic->local));
	kref_get(&ic->kref);
	/* from here on, this cm_id's events are the connection's */
	cm_id->context = ic;
	cm_id->event_handler = kt_iser_conn_handler;
	ret = kt_iscsi_conn_start(conn);
	if (!ret)
		ret = rdma_accept(cm_id, &param);
	if (ret) {
		pr_warn_ratelimited("cannot accept an iSER connection: %pe\n",
				    ERR_PTR(ret));
		/*
		 * rdma_cm destroys the cm_id when this returns: the queue
		 * pair goes first, as on device removal, and the iSCSI
		 * connection's release frees the rest.
		 */
		mutex_lock(&ic->res_lock);
		ic->dev_removed = true;
		mutex_unlock(&ic->res_lock);
		kt_iscsi_conn_close(conn);	/* its work drops the conn */
		wait_for_completion(&ic->drained);
		kt_iser_free_res(ic);
		kt_iser_conn_put(ic);			/* the cm_id's */
		return ret;
	}
	return 0;
fail:
	pr_warn_ratelimited("cannot set up an iSER connection: %pe\n",
			    ERR_PTR(ret));
	rdma_reject(cm_id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
	kt_iser_free_res(ic);
	kfree(ic);
	return ret;
}

/*
 * The device goes away: the queue pair and its buffers must be gone
 * before this handler returns; then rdma_cm destroys the cm_id.
 */
static int kt_iser_device_removed(struct kt_iser_conn *ic)
{
	mutex_lock(&ic->res_lock);
	if (ic->released) {
		/* the release is destroying the cm_id and waits for us */
		mutex_unlock(&ic->res_lock);
		return 0;
	}
	ic->dev_removed = true;
	mutex_unlock(&ic->res_lock);
	kt_iscsi_conn_close(ic->conn);
	wait_for_completion(&ic->drained);
	kt_iser_free_res(ic);
	kt_iser_conn_put(ic);			/* the cm_id's */
	return 1;
}

/* An event on a connection's cm_id (kt_iser_connect() gave it this handler) */
static int kt_iser_conn_handler(struct rdma_cm_id *cm_id,
				struct rdma_cm_event *ev)
{
	struct kt_iser_conn *ic = cm_id->context;

	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		pr_debug("connection established\n");
		return 0;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return kt_iser_device_removed(ic);
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_REJECTED:
		pr_debug("%s: closing the connection\n",
			 rdma_event_msg(ev->event));
		kt_iscsi_conn_close(ic->conn);
		return 0;
	default:
		return 0;
	}
}

/*
 * An event on the listener's cm_id: a connect request (whose new cm_id
 * kt_iser_connect() hands to kt_iser_conn_handler()), or the device gone
 * or the address moved, when the relisten work destroys this cm_id and
 * listens anew. Device removal waits for that destroy.
 */
static int kt_iser_listen_handler(struct rdma_cm_id *cm_id,
				  struct rdma_cm_event *ev)
{
	struct kt_iser_listener *l = cm_id->context;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return kt_iser_connect(l, cm_id, ev);
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL ||
	    ev->event == RDMA_CM_EVENT_ADDR_CHANGE) {
		mutex_lock(&l->lock);
		if (!l->stopping)
			mod_delayed_work(kt_iser_wq, &l->relisten, 0);
		mutex_unlock(&l->lock);
	}
	return 0;
}

/* Called with l->setup held; the new cm_id is l->cm_id once it listens. */
static int kt_iser_listen_id(struct kt_iser_listener *l)
{
	/* a copy: rdma_bind_addr() takes no const address */
	struct sockaddr_storage ss = *kt_iscsi_portal_addr(l->portal);
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, kt_iser_listen_handler, l, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	ret = rdma_bind_addr(id, (struct sockaddr *)&ss);
	if (!ret)
		ret = rdma_listen(id, KT_ISER_BACKLOG);
	if (!ret) {
		mutex_lock(&l->lock);
		if (l->stopping)
			ret = -ESHUTDOWN;
		else
			l->cm_id = id;
		mutex_unlock(&l->lock);
	}
	if (ret)
		rdma_destroy_id(id);
	return ret;
}

/*
 * The device went away or the address moved: destroy the old cm_id and
 * listen again, every KT_ISER_RELISTEN until the address is back.
 */
static void kt_iser_relisten(struct work_struct *work)
{
	struct kt_iser_listener *l = container_of(to_delayed_work(work),
						  struct kt_iser_listener,
						  relisten);
	struct rdma_cm_id *old;
	int ret;

	mutex_lock(&l->setup);
	mutex_lock(&l->lock);
	old = l->cm_id;
	l->cm_id = NULL;
	mutex_unlock(&l->lock);
	if (old) {
		pr_info("%pISpc: RDMA device gone or address moved, listening again when it is back\n",
			kt_iscsi_portal_addr(l->portal));
		rdma_destroy_id(old);
	}
	ret = kt_iser_listen_id(l);
	if (!ret) {
		pr_info("%pISpc: listening for iSER again\n", kt_iscsi_portal_addr(l->portal));
	} else if (ret != -ESHUTDOWN) {
		mutex_lock(&l->lock);
		if (!l->stopping)
			queue_delayed_work(kt_iser_wq, &l->relisten,
					   KT_ISER_RELISTEN);
		mutex_unlock(&l->lock);
	}
	mutex_unlock(&l->setup);
}

/*
 * No handler of the listener's can run once this returns: the relisten
 * work, which destroys the cm_ids it replaces, is done, and destroying the
 * last cm_id waits for a handler still running on it.
 */
static void kt_iser_stop(struct kt_iser_listener *l)
{
	struct rdma_cm_id *id;

	mutex_lock(&l->lock);
	l->stopping = true;
	mutex_unlock(&l->lock);
	cancel_delayed_work_sync(&l->relisten);
	mutex_lock(&l->lock);
	id = l->cm_id;
	l->cm_id = NULL;
	mutex_unlock(&l->lock);
	if (id)
		rdma_destroy_id(id);
}

void *kt_iser_listen(struct kt_iscsi_portal *portal)
{
	struct kt_iser_listener *l;
	int ret;

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return ERR_PTR(-ENOMEM);
	l->portal = portal;
	mutex_init(&l->lock);
	mutex_init(&l->setup);
	INIT_DELAYED_WORK(&l->relisten, kt_iser_relisten);
	mutex_lock(&l->setup);
	ret = kt_iser_listen_id(l);
	mutex_unlock(&l->setup);
	if (ret) {
		pr_warn_ratelimited("cannot listen for iSER on %pISpc: %pe (no RDMA device with that address?)\n",
				    kt_iscsi_portal_addr(portal), ERR_PTR(ret));
		kt_iser_stop(l);
		kfree(l);
		return ERR_PTR(ret);
	}
	pr_info("listening for iSER on %pISpc\n", kt_iscsi_portal_addr(portal));
	return l;
}

void kt_iser_unlisten(void *listener)
{
	struct kt_iser_listener *l = listener;

	kt_iser_stop(l);
	kfree(l);
}
