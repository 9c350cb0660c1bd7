// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_isert: moving PDUs and data. Receive buffers stay posted; each
 * completed one is handed whole to ktarget_iscsi and posted again. Control
 * PDUs go out as signalled SENDs; a command's read data goes as RDMA WRITEs
 * with its SCSI Response chained behind them on the same queue pair, and
 * its write data comes in with RDMA READs (RFC 7145 7.3).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/unaligned.h>

#include "isert.h"

static inline struct kt_iser_conn *to_ic(struct kt_iscsi_conn *conn)
{
	return *(struct kt_iser_conn **)kt_iscsi_conn_priv(conn);
}

/* Post @wr unless the connection is going down. */
static int kt_iser_post_send(struct kt_iser_conn *ic, struct ib_send_wr *wr)
{
	unsigned long flags;
	int ret = -ENOTCONN;

	spin_lock_irqsave(&ic->post_lock, flags);
	if (!ic->down)
		ret = ib_post_send(ic->qp, wr, NULL);
	spin_unlock_irqrestore(&ic->post_lock, flags);
	return ret;
}

static void kt_iser_put_hdr(u8 *p)
{
	memset(p, 0, KT_ISER_HDR_LEN);
	p[0] = KT_ISER_CTRL;
}

/* ---- receive ---- */

static void kt_iser_recv_done(struct ib_cq *cq, struct ib_wc *wc);

static int kt_iser_post_rx(struct kt_iser_conn *ic, struct kt_iser_rx *rx)
{
	struct ib_sge sge = {
		.addr = rx->dma,
		.length = KT_ISER_RX_LEN,
		.lkey = ic->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &rx->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};
	unsigned long flags;
	int ret = -ENOTCONN;

	ib_dma_sync_single_for_device(ic->dev, rx->dma, KT_ISER_RX_LEN,
				      DMA_FROM_DEVICE);
	spin_lock_irqsave(&ic->post_lock, flags);
	if (!ic->down)
		ret = ib_post_recv(ic->qp, &wr, NULL);
	spin_unlock_irqrestore(&ic->post_lock, flags);
	return ret;
}

int kt_iser_alloc_rx(struct kt_iser_conn *ic)
{
	unsigned int i;

	ic->rx = kcalloc(KT_ISER_NR_RX, sizeof(*ic->rx), GFP_KERNEL);
	if (!ic->rx)
		return -ENOMEM;
	for (i = 0; i < KT_ISER_NR_RX; i++) {
		struct kt_iser_rx *rx = &ic->rx[i];

		rx->ic = ic;
		rx->cqe.done = kt_iser_recv_done;
		rx->buf = kmalloc(KT_ISER_RX_LEN, GFP_KERNEL);
		if (!rx->buf)
			goto fail;
		rx->dma = ib_dma_map_single(ic->dev, rx->buf, KT_ISER_RX_LEN,
					    DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(ic->dev, rx->dma)) {
			kfree(rx->buf);
			rx->buf = NULL;
			goto fail;
		}
	}
	return 0;
fail:
	kt_iser_free_rx(ic);
	return -ENOMEM;
}

void kt_iser_free_rx(struct kt_iser_conn *ic)
{
	unsigned int i;

	if (!ic->rx)
		return;
	for (i = 0; i < KT_ISER_NR_RX; i++) {
		struct kt_iser_rx *rx = &ic->rx[i];

		if (!rx->buf)
			continue;
		ib_dma_unmap_single(ic->dev, rx->dma, KT_ISER_RX_LEN,
				    DMA_FROM_DEVICE);
		kfree(rx->buf);
	}
	kfree(ic->rx);
	ic->rx = NULL;
}

int kt_iser_post_rx_all(struct kt_iser_conn *ic)
{
	unsigned int i;
	int ret;

	for (i = 0; i < KT_ISER_NR_RX; i++) {
		ret = kt_iser_post_rx(ic, &ic->rx[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * libiscsi 1.19's iSER client announces immediate data in a SCSI Command's
 * DataSegmentLength but sends only the header, with the write STag naming
 * the whole buffer: it means "read it all". Take it so rather than close.
 */
static void kt_iser_imm_fixup(struct kt_iser_conn *ic, u8 *bhs, u32 len)
{
	u32 ahs = bhs[4] * 4, dlen = get_unaligned_be24(bhs + 5);

	if ((bhs[0] & 0x3f) != KT_ISCSI_OP_SCSI_CMD || !dlen ||
	    len >= KT_ISCSI_BHS_LEN + ahs + dlen || len != KT_ISCSI_BHS_LEN + ahs ||
	    !(ic->rx_flags & KT_ISER_WSV))
		return;
	pr_warn_once("an initiator announces immediate data it does not send (libiscsi 1.19?): reading all write data with RDMA READ\n");
	put_unaligned_be24(0, bhs + 5);
}

/* Runs in the CQ's work: one PDU at a time, in arrival order. */
static void kt_iser_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kt_iser_rx *rx = container_of(wc->wr_cqe, struct kt_iser_rx, cqe);
	struct kt_iser_conn *ic = rx->ic;
	const u8 *p = rx->buf;
	int ret;

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_warn_ratelimited("receive failed: %s: closing the connection\n",
					    ib_wc_status_msg(wc->status));
		kt_iscsi_conn_close(ic->conn);
		return;
	}
	ib_dma_sync_single_for_cpu(ic->dev, rx->dma, KT_ISER_RX_LEN,
				   DMA_FROM_DEVICE);
	if (wc->byte_len < KT_ISER_HDR_LEN + KT_ISCSI_BHS_LEN) {
		pr_warn_ratelimited("closing connection: %u-byte message is shorter than the iSER and iSCSI headers\n",
				    wc->byte_len);
		kt_iscsi_conn_close(ic->conn);
		return;
	}
	if ((p[0] & 0xf0) != KT_ISER_CTRL) {
		/* RFC 7145 9.3: Hello is for iSER-assisted login, unused here */
		pr_warn_ratelimited("closing connection: iSER message type %#x is not an iSCSI PDU\n",
				    p[0] & 0xf0);
		kt_iscsi_conn_close(ic->conn);
		return;
	}
	ic->rx_flags = p[0] & (KT_ISER_WSV | KT_ISER_RSV);
	ic->write_stag = get_unaligned_be32(p + 4);
	ic->write_va = get_unaligned_be64(p + 8);
	ic->read_stag = get_unaligned_be32(p + 16);
	ic->read_va = get_unaligned_be64(p + 20);

	kt_iser_imm_fixup(ic, rx->buf + KT_ISER_HDR_LEN,
			  wc->byte_len - KT_ISER_HDR_LEN);
	ret = kt_iscsi_rx_pdu(ic->conn, p + KT_ISER_HDR_LEN,
			      wc->byte_len - KT_ISER_HDR_LEN);
	if (!ret)
		ret = kt_iser_post_rx(ic, rx);
	if (ret)
		kt_iscsi_conn_close(ic->conn);
}

/* ---- control PDUs ---- */

struct kt_iser_tx {
	struct ib_cqe		cqe;
	struct kt_iser_conn	*ic;
	u64			dma;
	u32			len;
	bool			logout;		/* a Logout Response */
	u8			buf[];
};

static void kt_iser_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kt_iser_tx *tx = container_of(wc->wr_cqe, struct kt_iser_tx, cqe);
	struct kt_iser_conn *ic = tx->ic;

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR) {
		pr_warn_ratelimited("send failed: %s: closing the connection\n",
				    ib_wc_status_msg(wc->status));
		kt_iscsi_conn_close(ic->conn);
	}
	ib_dma_unmap_single(ic->dev, tx->dma, tx->len, DMA_TO_DEVICE);
	/*
	 * Closing before this would flush the response off the queue pair.
	 * (Waiting for the initiator to disconnect first is kinder to the
	 * kernel initiator, but libiscsi's iSER client then crashes.)
	 */
	if (tx->logout)
		kt_iscsi_conn_close(ic->conn);
	kfree(tx);
}

static int kt_iser_xmit(struct kt_iscsi_conn *conn, const u8 *bhs,
			const void *data, struct scatterlist *sgl, u32 sg_off,
			u32 len, bool more)
{
	struct kt_iser_conn *ic = to_ic(conn);
	struct kt_iser_tx *tx;
	struct ib_sge sge;
	struct ib_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	int ret;

	/* Data-In and R2T never travel as PDUs over iSER */
	if (WARN_ON_ONCE(sgl))
		return -EINVAL;
	tx = kmalloc(sizeof(*tx) + KT_ISER_HDR_LEN + KT_ISCSI_BHS_LEN + len,
		     GFP_KERNEL);
	if (!tx)
		return -ENOMEM;
	tx->ic = ic;
	tx->cqe.done = kt_iser_send_done;
	tx->len = KT_ISER_HDR_LEN + KT_ISCSI_BHS_LEN + len;
	tx->logout = (bhs[0] & 0x3f) == KT_ISCSI_OP_LOGOUT_RSP;
	kt_iser_put_hdr(tx->buf);
	memcpy(tx->buf + KT_ISER_HDR_LEN, bhs, KT_ISCSI_BHS_LEN);
	if (len)
		memcpy(tx->buf + KT_ISER_HDR_LEN + KT_ISCSI_BHS_LEN, data, len);
	tx->dma = ib_dma_map_single(ic->dev, tx->buf, tx->len, DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ic->dev, tx->dma)) {
		kfree(tx);
		return -ENOMEM;
	}
	sge = (struct ib_sge){ tx->dma, tx->len, ic->pd->local_dma_lkey };
	wr.wr_cqe = &tx->cqe;
	ret = kt_iser_post_send(ic, &wr);
	if (ret) {
		ib_dma_unmap_single(ic->dev, tx->dma, tx->len, DMA_TO_DEVICE);
		kfree(tx);
	}
	return ret;
}

/* ---- command data ---- */

/*
 * rdma_rw moves every byte of the scatterlist it is given: give it the
 * entries that hold @len bytes, the last one cut to size until
 * kt_iser_sg_restore().
 */
static u32 kt_iser_sg_fit(struct kt_iser_cmd *c, struct scatterlist *sgl,
			  u32 nents, u32 len)
{
	struct scatterlist *sg;
	u32 sum = 0, i;

	c->trim_sg = NULL;
	for_each_sg(sgl, sg, nents, i) {
		if (sum + sg->length >= len) {
			c->trim_sg = sg;
			c->trim_len = sg->length;
			sg->length = len - sum;
			return i + 1;
		}
		sum += sg->length;
	}
	return nents;
}

static void kt_iser_sg_restore(struct kt_iser_cmd *c)
{
	if (c->trim_sg)
		c->trim_sg->length = c->trim_len;
	c->trim_sg = NULL;
}

static void kt_iser_rw_done(struct kt_iser_conn *ic, struct kt_iscsi_cmd *cmd,
			    enum dma_data_direction dir)
{
	struct kt_iser_cmd *c = kt_iser_cmd(cmd);

	if (!c->rw_live)
		return;
	rdma_rw_ctx_destroy(&c->rw, ic->qp, ic->port, kt_iscsi_cmd_se(cmd)->sgl,
			    c->nents, dir);
	kt_iser_sg_restore(c);
	c->rw_live = false;
}

static void kt_iser_cmd_init(struct kt_iscsi_conn *conn,
			     struct kt_iscsi_cmd *cmd)
{
	struct kt_iser_conn *ic = to_ic(conn);
	struct kt_iser_cmd *c = kt_iser_cmd(cmd);

	c->flags = ic->rx_flags;
	c->write_stag = ic->write_stag;
	c->write_va = ic->write_va;
	c->read_stag = ic->read_stag;
	c->read_va = ic->read_va;
}

/* The write data is in (or could not be read): the command goes on. */
static void kt_iser_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kt_iser_cmd *c = container_of(wc->wr_cqe, struct kt_iser_cmd, cqe);
	struct kt_iscsi_cmd *cmd = kt_iser_icmd(c);
	/*
	 * once it goes on, the command may be answered and freed before this
	 * returns; the connection lives until the queue pair is drained
	 */
	struct kt_iscsi_conn *conn = kt_iscsi_cmd_conn(cmd);
	struct kt_iser_conn *ic = to_ic(conn);
	bool ok = wc->status == IB_WC_SUCCESS;

	kt_iser_rw_done(ic, cmd, DMA_FROM_DEVICE);
	if (!ok && wc->status != IB_WC_WR_FLUSH_ERR)
		pr_warn_ratelimited("RDMA READ of ITT %#x failed: %s: closing the connection\n",
				    kt_iscsi_cmd_itt(cmd),
				    ib_wc_status_msg(wc->status));
	kt_iscsi_cmd_data_fetched(cmd, ok);
	if (!ok)
		kt_iscsi_conn_close(conn);
}

static int kt_iser_get_data(struct kt_iscsi_conn *conn,
			    struct kt_iscsi_cmd *cmd, u32 from, u32 to)
{
	struct kt_iser_conn *ic = to_ic(conn);
	struct kt_iser_cmd *c = kt_iser_cmd(cmd);
	struct kt_cmd *se = kt_iscsi_cmd_se(cmd);
	int ret;

	if (!(c->flags & KT_ISER_WSV)) {
		pr_warn_ratelimited("ITT %#x: write of %u bytes without a write STag\n",
				    kt_iscsi_cmd_itt(cmd), to);
		return -EPROTO;
	}
	c->nents = kt_iser_sg_fit(c, se->sgl, se->sg_nents, to);
	ret = rdma_rw_ctx_init(&c->rw, ic->qp, ic->port, se->sgl, c->nents,
			       from, c->write_va, c->write_stag,
			       DMA_FROM_DEVICE);
	if (ret < 0) {
		kt_iser_sg_restore(c);
		return ret;
	}
	c->rw_live = true;
	c->cqe.done = kt_iser_read_done;
	ret = kt_iser_post_send(ic, rdma_rw_ctx_wrs(&c->rw, ic->qp, ic->port,
						    &c->cqe, NULL));
	if (ret)
		kt_iser_rw_done(ic, cmd, DMA_FROM_DEVICE);
	return ret;
}

/* The read data and the response after it are sent (or flushed). */
static void kt_iser_data_in_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kt_iser_cmd *c = container_of(wc->wr_cqe, struct kt_iser_cmd, cqe);
	struct kt_iscsi_cmd *cmd = kt_iser_icmd(c);
	struct kt_iscsi_conn *conn = kt_iscsi_cmd_conn(cmd);
	struct kt_iser_conn *ic = to_ic(conn);

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR) {
		pr_warn_ratelimited("RDMA WRITE of ITT %#x failed: %s: closing the connection\n",
				    kt_iscsi_cmd_itt(cmd),
				    ib_wc_status_msg(wc->status));
		kt_iscsi_conn_close(conn);
	}
	ib_dma_unmap_single(ic->dev, c->rsp_dma, c->sge.length, DMA_TO_DEVICE);
	kt_iser_rw_done(ic, cmd, DMA_TO_DEVICE);
	kt_cmd_put(kt_iscsi_cmd_se(cmd));
}

static int kt_iser_put_data(struct kt_iscsi_conn *conn,
			    struct kt_iscsi_cmd *cmd, bool data, const u8 *bhs,
			    const void *sense, u32 len)
{
	struct kt_iser_conn *ic = to_ic(conn);
	struct kt_iser_cmd *c = kt_iser_cmd(cmd);
	struct kt_cmd *se = kt_iscsi_cmd_se(cmd);
	u32 rsp_len = KT_ISER_HDR_LEN + KT_ISCSI_BHS_LEN + len;
	int ret;

	if (data && !(c->flags & KT_ISER_RSV)) {
		pr_warn_ratelimited("ITT %#x: read of %u bytes without a read STag\n",
				    kt_iscsi_cmd_itt(cmd), se->data_length);
		return -EPROTO;
	}
	if (WARN_ON_ONCE(rsp_len > sizeof(c->rsp)))
		return -EINVAL;
	kt_iser_put_hdr(c->rsp);
	memcpy(c->rsp + KT_ISER_HDR_LEN, bhs, KT_ISCSI_BHS_LEN);
	if (len)
		memcpy(c->rsp + KT_ISER_HDR_LEN + KT_ISCSI_BHS_LEN, sense, len);
	c->rsp_dma = ib_dma_map_single(ic->dev, c->rsp, rsp_len, DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ic->dev, c->rsp_dma))
		return -ENOMEM;
	c->sge = (struct ib_sge){ c->rsp_dma, rsp_len, ic->pd->local_dma_lkey };
	c->cqe.done = kt_iser_data_in_done;
	c->send = (struct ib_send_wr){
		.wr_cqe = &c->cqe,
		.sg_list = &c->sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	if (!data) {
		/* the response alone */
		ret = kt_iser_post_send(ic, &c->send);
		if (!ret)
			return 0;
		goto unmap;
	}

	c->nents = kt_iser_sg_fit(c, se->sgl, se->sg_nents, se->data_length);
	ret = rdma_rw_ctx_init(&c->rw, ic->qp, ic->port, se->sgl, c->nents,
			       0, c->read_va, c->read_stag, DMA_TO_DEVICE);
	if (ret < 0) {
		kt_iser_sg_restore(c);
		goto unmap;
	}
	c->rw_live = true;
	/* the response follows the data on the same queue pair */
	ret = kt_iser_post_send(ic, rdma_rw_ctx_wrs(&c->rw, ic->qp, ic->port,
						    NULL, &c->send));
	if (!ret)
		return 0;
	kt_iser_rw_done(ic, cmd, DMA_TO_DEVICE);
unmap:
	ib_dma_unmap_single(ic->dev, c->rsp_dma, rsp_len, DMA_TO_DEVICE);
	return ret;
}

/* ---- life cycle ---- */

/*
 * No post after this; the drain returns once every posted request has
 * completed, so no completion handler runs for this connection later.
 */
static void kt_iser_shutdown(struct kt_iscsi_conn *conn)
{
	struct kt_iser_conn *ic = to_ic(conn);
	unsigned long flags;

	spin_lock_irqsave(&ic->post_lock, flags);
	ic->down = true;
	spin_unlock_irqrestore(&ic->post_lock, flags);
	mutex_lock(&ic->res_lock);
	if (!ic->res_freed) {
		if (!ic->dev_removed)
			rdma_disconnect(ic->cm_id);
		ib_drain_qp(ic->qp);
	}
	mutex_unlock(&ic->res_lock);
	complete_all(&ic->drained);
}

static void kt_iser_release(struct kt_iscsi_conn *conn)
{
	struct kt_iser_conn *ic = to_ic(conn);
	struct rdma_cm_id *cm_id = NULL;

	mutex_lock(&ic->res_lock);
	ic->released = true;
	if (!ic->dev_removed)
		cm_id = ic->cm_id;
	mutex_unlock(&ic->res_lock);
	kt_iser_free_res(ic);
	if (cm_id) {
		rdma_destroy_id(cm_id);
		kt_iser_conn_put(ic);		/* the cm_id's */
	}
	kt_iser_conn_put(ic);			/* the iSCSI conn's */
}

static int kt_iser_local_addr(struct kt_iscsi_conn *conn,
			      struct sockaddr_storage *ss)
{
	struct kt_iser_conn *ic = to_ic(conn);

	/* a copy: rdma_cm may have destroyed the cm_id (device removal) */
	memcpy(ss, &ic->local, sizeof(*ss));
	return 0;
}

const struct kt_iscsi_transport kt_iser_transport = {
	.name		= "iser",
	.owner		= THIS_MODULE,
	.rdma		= true,
	.max_recv_dsl	= KT_ISER_MAX_RECV_DSL,
	.conn_size	= sizeof(struct kt_iser_conn *),
	.cmd_size	= sizeof(struct kt_iser_cmd),
	.listen		= kt_iser_listen,
	.unlisten	= kt_iser_unlisten,
	.xmit		= kt_iser_xmit,
	.cmd_init	= kt_iser_cmd_init,
	.get_data	= kt_iser_get_data,
	.put_data	= kt_iser_put_data,
	.shutdown	= kt_iser_shutdown,
	.release	= kt_iser_release,
	.local_addr	= kt_iser_local_addr,
};
