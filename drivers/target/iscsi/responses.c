// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: what the full feature phase (RFC 7143 11) sends back.
 * A command's R2Ts, its Data-In with status collapsed into the last PDU,
 * or its SCSI Response, built when the transmit queue reaches them; NOP-In,
 * Text and Logout responses and Rejects queued whole; and the fabric's
 * data-path hooks, through which the core hands a command back.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/unaligned.h>

#include "conn.h"

static struct kt_iscsi_cmd *to_icmd(struct kt_cmd *se)
{
	return container_of(se, struct kt_iscsi_cmd, se);
}

/* The command's session: it holds a reference, its connection may not. */
static struct kt_iscsi_sess *kt_iscsi_cmd_sess(struct kt_iscsi_cmd *cmd)
{
	return container_of(cmd->se.sess, struct kt_iscsi_sess, se);
}

/*
 * The command is answered (or will never be): its slot is free, and the
 * response about to be stamped says so in MaxCmdSN. The count is the
 * session's, which the command holds.
 */
static void kt_iscsi_cmd_window_put(struct kt_iscsi_cmd *cmd)
{
	if (!cmd->slot)
		return;
	atomic_dec(cmd->slot);
	cmd->slot = NULL;
}

/* Queue a PDU that is not part of a command; @data is taken over. */
void kt_iscsi_queue_pdu(struct kt_iscsi_conn *conn, const u8 *bhs,
			void *data, u32 len, bool statsn)
{
	struct kt_iscsi_tx *tx = kzalloc(sizeof(*tx), GFP_KERNEL);

	if (!tx) {
		kfree(data);
		kt_iscsi_conn_close(conn);
		return;
	}
	tx->kind = KT_TX_PDU;
	tx->statsn = statsn;
	memcpy(tx->bhs, bhs, KT_ISCSI_BHS_LEN);
	tx->data = data;
	tx->data_len = len;
	kt_iscsi_queue_tx(conn, tx);
}

void kt_iscsi_send_reject(struct kt_iscsi_conn *conn, u8 reason)
{
	struct kt_iscsi_reject r = { .reason = reason, .data_len = KT_ISCSI_BHS_LEN };
	u8 bhs[KT_ISCSI_BHS_LEN];
	u8 *copy;

	/* RFC 7143 11.17: the rejected header is the data */
	copy = kmemdup(conn->rx.bhs, KT_ISCSI_BHS_LEN, GFP_KERNEL);
	if (!copy || kt_iscsi_encode_reject(bhs, &r)) {
		kfree(copy);
		return;
	}
	pr_debug("reject opcode %#x, reason %#x\n", conn->rx.hdr.opcode, reason);
	kt_iscsi_queue_pdu(conn, bhs, copy, KT_ISCSI_BHS_LEN, true);
}

/* ---- commands: transmit side ---- */

/*
 * May @kind go out at once, from here? Only from the connection's own
 * receive side (a command the core ran inline, or an R2T it asks for).
 * Over TCP only an R2T, which the initiator waits for before it sends the
 * data, and only when the socket has room, so that the receive side never
 * waits for the initiator to read: an initiator may stop reading while it
 * writes. Responses go through the transmit work, which sends the ones a
 * run of commands produced together: sent one by one from here, each made
 * a local initiator handle its own segment (Documentation/benchmarks.md,
 * "What the benchmarks decided"). Over RDMA anything while the initiator had
 * seen all our responses when it sent its last command (ExpStatSN), as at
 * queue depth 1, or does not say (libiscsi's iSER client always sends 1):
 * a post never waits, and a hop through the transmit work would add to
 * the command's latency. Otherwise more commands are on their way, and
 * the transmit work posts from another CPU (kt_iscsi_tx_cpu()): a
 * soft-RoCE device then copies the read data there while this CPU takes
 * in the next commands.
 */
static bool kt_iscsi_tx_now(struct kt_iscsi_conn *conn, u8 kind)
{
	if (READ_ONCE(conn->rx_task) != current)
		return false;
	if (conn->xport->rdma) {
		u32 unseen = READ_ONCE(conn->stat_sn) -
			     READ_ONCE(conn->exp_stat_sn);

		/* beyond the CmdSN window: the initiator does not keep count */
		return !unseen || unseen > conn->sess->cmdsn_depth;
	}
	return kind == KT_TX_R2T && conn->xport->writeable &&
	       conn->xport->writeable(conn);
}

/*
 * Ask for a command's part of the transmit queue (any context). What may
 * go out at once skips the hop through the transmit work when nothing is
 * queued ahead of it: an R2T then leaves with the receive work that asked
 * for it, a whole work item sooner.
 */
void kt_iscsi_cmd_queue(struct kt_iscsi_cmd *cmd, u8 kind)
{
	struct kt_iscsi_conn *conn = cmd->conn;
	bool queue, now = kt_iscsi_tx_now(conn, kind);
	unsigned long flags;

	spin_lock_irqsave(&conn->tx_lock, flags);
	cmd->pending |= BIT(kind);
	queue = !cmd->queued;
	now = now && queue && list_empty(&conn->tx_queue);
	cmd->queued = true;
	spin_unlock_irqrestore(&conn->tx_lock, flags);
	if (!queue)
		return;
	/*
	 * the transmit queue's own reference, put by kt_iscsi_cmd_tx(): an
	 * R2T queued for a command that an abort then ends and answers must
	 * not leave a freed command on the queue
	 */
	kt_cmd_get(&cmd->se);
	if (now && mutex_trylock(&conn->tx_mutex)) {
		kt_iscsi_cmd_tx(conn, cmd, false);
		mutex_unlock(&conn->tx_mutex);
		return;
	}
	cmd->tx.kind = kind;
	kt_iscsi_queue_tx(conn, &cmd->tx);
}

static void kt_iscsi_send_r2ts(struct kt_iscsi_conn *conn,
			       struct kt_iscsi_cmd *cmd)
{
	struct kt_iscsi_r2t r = {
		.itt = cmd->itt,
		.ttt = cmd->ttt,
	};
	u8 bhs[KT_ISCSI_BHS_LEN];

	/* RFC 7143 11.8.3: the LUN field of the command, as it came */
	r.lun = cmd->lun_field;
	while (cmd->r2t_outstanding < conn->nego.max_r2t &&
	       cmd->r2t_offset < cmd->write_end) {
		r.r2tsn = cmd->r2t_sn++;
		r.offset = cmd->r2t_offset;
		r.desired_len = min(conn->nego.max_burst,
				    cmd->write_end - cmd->r2t_offset);
		if (kt_iscsi_encode_r2t(bhs, &r))
			break;
		kt_iscsi_stamp(conn, bhs, false);
		/* counted before it is out: the answer may come at once */
		cmd->r2t_offset += r.desired_len;
		cmd->r2t_outstanding++;
		/* the initiator's time runs from when it is asked */
		WRITE_ONCE(cmd->data_at, jiffies);
		if (kt_iscsi_send_pdu(conn, bhs, NULL, 0))
			break;	/* the connection closes */
	}
}

static void kt_iscsi_rsp_flags(struct kt_cmd *se, u8 *flags, u32 *residual)
{
	if (se->overflow) {
		*flags |= KT_ISCSI_RSP_OVERFLOW;
		*residual = se->residual;
	} else if (se->underflow) {
		*flags |= KT_ISCSI_RSP_UNDERFLOW;
		*residual = se->residual;
	}
}

int kt_iscsi_build_status(struct kt_iscsi_conn *conn, struct kt_iscsi_cmd *cmd,
			  u8 *bhs, u32 *plen)
{
	struct kt_cmd *se = &cmd->se;
	struct kt_iscsi_scsi_rsp r = {
		.itt = cmd->itt,
		.status = se->status,
		.exp_datasn = cmd->data_sn,
	};
	u32 len = 0;

	kt_iscsi_rsp_flags(se, &r.flags, &r.residual);
	/* RFC 7143 11.4.7: sense data is prefixed with its length */
	if (se->sense_len) {
		put_unaligned_be16(se->sense_len, cmd->sense_pdu);
		memcpy(cmd->sense_pdu + 2, se->sense, se->sense_len);
		len = 2 + se->sense_len;
	}
	r.data_len = len;
	if (kt_iscsi_encode_scsi_rsp(bhs, &r))
		return -EINVAL;
	kt_iscsi_cmd_window_put(cmd);
	kt_iscsi_stamp(conn, bhs, true);
	*plen = len;
	return 0;
}
EXPORT_SYMBOL_GPL(kt_iscsi_build_status);

/*
 * The SCSI Response. An RDMA transport sends it from the command's own
 * buffers, after the read data when @data (RFC 7145 7.3.5: no Data-In
 * PDUs), and keeps the command's reference until both are done; 1 says
 * it took it.
 */
static int kt_iscsi_send_status(struct kt_iscsi_conn *conn,
				struct kt_iscsi_cmd *cmd, bool data, bool more)
{
	u8 bhs[KT_ISCSI_BHS_LEN];
	u32 len;
	int ret;

	ret = kt_iscsi_build_status(conn, cmd, bhs, &len);
	if (ret)
		return ret;
	if (conn->xport->put_data) {
		ret = conn->xport->put_data(conn, cmd, data, bhs,
					    cmd->sense_pdu, len);
		return ret ? ret : 1;
	}
	return conn->xport->xmit(conn, bhs, len ? cmd->sense_pdu : NULL, NULL,
				 0, len, more);
}

static int kt_iscsi_send_data_in(struct kt_iscsi_conn *conn,
				 struct kt_iscsi_cmd *cmd, bool more)
{
	struct kt_cmd *se = &cmd->se;
	bool collapse = se->status == KT_SAM_GOOD && !se->sense_len;
	u32 off = 0, len;
	u8 bhs[KT_ISCSI_BHS_LEN];
	int ret;

	while (off < se->data_length) {
		struct kt_iscsi_data_in d = {
			.itt = cmd->itt,
			.ttt = 0xffffffff,
			.datasn = cmd->data_sn++,
			.offset = off,
		};
		bool last;

		len = min(conn->nego.max_xmit_dsl, se->data_length - off);
		last = off + len == se->data_length;
		d.data_len = len;
		if (last) {
			d.flags = KT_ISCSI_FLAG_FINAL;
			if (collapse) {
				u8 rf = 0;

				d.flags |= KT_ISCSI_DATA_STATUS;
				d.status = se->status;
				kt_iscsi_rsp_flags(se, &rf, &d.residual);
				if (rf & KT_ISCSI_RSP_OVERFLOW)
					d.flags |= KT_ISCSI_DATA_OVERFLOW;
				if (rf & KT_ISCSI_RSP_UNDERFLOW)
					d.flags |= KT_ISCSI_DATA_UNDERFLOW;
			}
		}
		if (kt_iscsi_encode_data_in(bhs, &d))
			return -EINVAL;
		if (last && collapse)
			kt_iscsi_cmd_window_put(cmd);
		kt_iscsi_stamp(conn, bhs, last && collapse);
		ret = kt_iscsi_send_sg(conn, bhs, se->sgl, off, len,
				       !last || !collapse || more);
		if (ret)
			return ret;
		off += len;
	}
	return collapse ? 0 : kt_iscsi_send_status(conn, cmd, false, more);
}

/*
 * The transmit work's turn for @cmd: R2Ts, data and status. @more: other
 * PDUs follow at once, so that a run of responses leaves in as few TCP
 * segments as it fits, and the initiator takes them in one pass.
 */
void kt_iscsi_cmd_tx(struct kt_iscsi_conn *conn, struct kt_iscsi_cmd *cmd,
		     bool more)
{
	unsigned long flags;
	u8 pending;
	int ret = 0;

	spin_lock_irqsave(&conn->tx_lock, flags);
	pending = cmd->pending;
	cmd->pending = 0;
	cmd->queued = false;
	spin_unlock_irqrestore(&conn->tx_lock, flags);

	if (conn->state >= KT_CONN_CLOSING || cmd->silent) {
		if (pending & (BIT(KT_TX_DATA_IN) | BIT(KT_TX_STATUS)))
			kt_cmd_put(&cmd->se);
		goto out;
	}
	if (pending & BIT(KT_TX_R2T))
		kt_iscsi_send_r2ts(conn, cmd);
	if ((pending & BIT(KT_TX_DATA_IN)) && conn->xport->put_data)
		ret = kt_iscsi_send_status(conn, cmd, cmd->se.data_length,
					   more);
	else if (pending & BIT(KT_TX_DATA_IN))
		ret = kt_iscsi_send_data_in(conn, cmd, more);
	else if (pending & BIT(KT_TX_STATUS))
		ret = kt_iscsi_send_status(conn, cmd, false, more);
	if (ret == 1)
		goto out;	/* the transport puts the fabric's reference */
	if (pending & (BIT(KT_TX_DATA_IN) | BIT(KT_TX_STATUS)))
		kt_cmd_put(&cmd->se);	/* the fabric's reference: answered */
	if (ret)
		kt_iscsi_conn_close(conn);
out:
	kt_cmd_put(&cmd->se);		/* the transmit queue's */
}

/* ---- fabric hooks ---- */

void kt_iscsi_write_pending(struct kt_cmd *se)
{
	struct kt_iscsi_cmd *cmd = to_icmd(se);
	struct kt_iscsi_conn *conn = cmd->conn;
	u32 unsolicited;

	cmd->write_end = se->data_length;
	/* RFC 7143 13.11: without InitialR2T, FirstBurstLength comes unasked */
	unsolicited = conn->nego.initial_r2t ? se->data_received :
		      min(se->data_length, max(se->data_received,
					       min(conn->nego.first_burst,
						   se->expected_len)));
	cmd->r2t_offset = unsolicited;
	if (conn->xport->get_data) {
		/* RFC 7145 7.3.3: the target reads the rest with RDMA READ */
		if (conn->xport->get_data(conn, cmd, cmd->r2t_offset,
					  cmd->write_end))
			kt_cmd_fail(se, KT_SENSE_ABORTED_COMMAND);
		return;
	}
	/* the high half of the TTT space is the keepalive's */
	cmd->ttt = conn->next_ttt++ & KT_ISCSI_TTT_R2T_MASK;
	if (cmd->r2t_offset < cmd->write_end)
		kt_iscsi_cmd_queue(cmd, KT_TX_R2T);
}

void kt_iscsi_queue_data_in(struct kt_cmd *se)
{
	kt_iscsi_cmd_queue(to_icmd(se), KT_TX_DATA_IN);
}

void kt_iscsi_queue_status(struct kt_cmd *se)
{
	kt_iscsi_cmd_queue(to_icmd(se), KT_TX_STATUS);
}

/* SAM-5 7.2: an aborted command sends nothing; the transmit side lets go. */
void kt_iscsi_aborted(struct kt_cmd *se)
{
	struct kt_iscsi_cmd *cmd = to_icmd(se);

	cmd->silent = true;
	kt_iscsi_cmd_queue(cmd, KT_TX_STATUS);
}

/*
 * Any context: the connection's own receive side, or another connection's
 * (MC/S), whose abort ends the command; a Data-Out PDU being read into it
 * holds a reference (kt_iscsi_data_out_cmd()) and then finds it gone.
 */
void kt_iscsi_abort_data_out(struct kt_cmd *se)
{
	struct kt_iscsi_cmd *cmd = to_icmd(se);

	if (!cmd->in_xa || xa_erase_irq(&cmd->conn->cmds, cmd->itt) != cmd)
		return;
	cmd->in_xa = false;
	kt_cmd_fail(se, KT_SENSE_ABORTED_COMMAND);
}

void kt_iscsi_release_cmd(struct kt_cmd *se)
{
	struct kt_iscsi_cmd *cmd = to_icmd(se);
	struct kt_iscsi_conn *conn = cmd->conn;
	struct kt_iscsi_sess *sess = kt_iscsi_cmd_sess(cmd);

	kt_iscsi_cmd_window_put(cmd);
	kmem_cache_free(conn->cmd_cache, cmd);
	kt_obj_dec(&kt_iscsi_objs[KT_ISCSI_OBJ_CMD]);
	kt_iscsi_conn_put(conn);
	kt_iscsi_sess_put(sess);
}
