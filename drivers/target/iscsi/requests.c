// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: the requests of the full feature phase (RFC 7143 11):
 * SCSI Command with immediate, unsolicited and solicited (R2T) data,
 * Data-Out, NOP-Out and Logout (Text is text.c's, task management tmf.c's).
 *
 * Header handling (where a PDU's data goes, kt_iscsi_ffp_data_dest()) and
 * PDU handling (what it does once it is all in, kt_iscsi_ffp_pdu()) are
 * separate steps, called by rx.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/unaligned.h>

#include <ktarget/proto/lun.h>

#include "conn.h"

/* ---- receive side: where data goes ---- */

static enum kt_data_dir kt_iscsi_dir(const struct kt_iscsi_bhs *h)
{
	if (h->cmd.write)
		return KT_DATA_OUT;
	if (h->cmd.read)
		return KT_DATA_IN;
	return KT_DATA_NONE;
}

static int kt_iscsi_scsi_cmd_header(struct kt_iscsi_conn *conn)
{
	const struct kt_iscsi_bhs *h = &conn->rx.hdr;
	struct kt_iscsi_cmd *cmd;
	static const u8 attr_map[] = { KT_TASK_SIMPLE, KT_TASK_SIMPLE,
		KT_TASK_ORDERED, KT_TASK_HEAD_OF_QUEUE, KT_TASK_ACA };
	u8 attr = h->cmd.attr < ARRAY_SIZE(attr_map) ? attr_map[h->cmd.attr] :
						      KT_TASK_SIMPLE;
	enum kt_iscsi_window win;
	u64 lun = kt_lun_decode(h->lun);

	/* before the CmdSN is taken: MC/S waits for it to be handed on */
	cmd = kmem_cache_zalloc(conn->cmd_cache, GFP_KERNEL);
	if (!cmd)
		return -ENOMEM;
	kt_obj_inc(&kt_iscsi_objs[KT_ISCSI_OBJ_CMD]);
	win = kt_iscsi_window_take(conn->sess, h->cmdsn, h->immediate,
				   &cmd->slot);
	if (win == KT_WINDOW_OUTSIDE) {
		/* RFC 7143 3.2.2.1: outside the window: silently ignored */
		kmem_cache_free(conn->cmd_cache, cmd);
		kt_obj_dec(&kt_iscsi_objs[KT_ISCSI_OBJ_CMD]);
		conn->rx.discard = true;
		conn->rx.skip = true;
		return 0;
	}
	kt_iscsi_conn_get(conn);
	kref_get(&conn->sess->kref);	/* the core may run it past the conn */
	/*
	 * How far the initiator had got with our responses (kt_iscsi_tx_now()).
	 * A connection's PDUs come in order; the login's ExpStatSN predates
	 * our first StatSN, so no comparison with it would mean anything.
	 */
	WRITE_ONCE(conn->exp_stat_sn, h->exp_statsn);
	cmd->conn = conn;
	cmd->lun_field = h->lun;
	cmd->itt = h->itt;
	cmd->cmdsn = h->cmdsn;
	if (conn->xport->cmd_init)
		conn->xport->cmd_init(conn, cmd);
	kt_cmd_init(&cmd->se, &kt_iscsi_ops, &conn->sess->se, h->itt,
		    kt_iscsi_dir(h), h->cmd.exp_xfer_len, attr);
	if (win == KT_WINDOW_FULL)
		cmd->setup_reason = kt_cmd_refuse(&cmd->se, lun,
						  KT_SENSE_TASK_SET_FULL);
	else
		cmd->setup_reason = kt_cmd_setup(&cmd->se, h->cdb, 16, lun);
	/*
	 * MC/S: it has reached the core (unit attentions, reservations); the
	 * next CmdSN may follow once it is also in the task set, when its
	 * PDU is all in (kt_iscsi_scsi_cmd(), kt_iscsi_rx_put_cmd())
	 */
	if (!h->immediate && !h->data_len)
		kt_iscsi_cmdsn_ready(conn, h->cmdsn);

	conn->rx.cmd = NULL;
	conn->rx.discard = true;
	cmd->imm_len = h->data_len;
	if (!cmd->setup_reason && h->data_len && cmd->se.dir == KT_DATA_OUT &&
	    conn->nego.immediate_data && h->data_len <= conn->nego.first_burst) {
		conn->rx.discard = false;
		conn->rx.cmd = cmd;
		conn->rx.cmd_off = 0;
		conn->rx.cmd_cap = cmd->se.data_length;
	}
	/* the header names the command until its data is in */
	conn->rx.pdu_cmd = cmd;
	return 0;
}

/*
 * The command a Data-Out is for, referenced while the receive side reads
 * the PDU into it: an abort from another connection of the session (MC/S)
 * may end the command meanwhile, but cannot free the buffer being filled.
 * Taken under the xarray's lock, against kt_iscsi_abort_data_out()'s
 * erase.
 */
static struct kt_iscsi_cmd *kt_iscsi_data_out_cmd(struct kt_iscsi_conn *conn,
						  u32 itt)
{
	struct kt_iscsi_cmd *cmd;

	xa_lock_irq(&conn->cmds);
	cmd = xa_load(&conn->cmds, itt);
	if (cmd)
		kt_cmd_get(&cmd->se);
	xa_unlock_irq(&conn->cmds);
	conn->rx.held = cmd;
	return cmd;
}

/*
 * A SCSI command that came with data: it has now entered the task set, or
 * never will (MC/S: kt_iscsi_scsi_cmd_header() did not hand it on).
 */
static void kt_iscsi_scsi_cmd_handed_on(struct kt_iscsi_conn *conn)
{
	const struct kt_iscsi_bhs *h = &conn->rx.hdr;

	if (!h->immediate && h->data_len)
		kt_iscsi_cmdsn_ready(conn, h->cmdsn);
}

/*
 * The PDU is done, or will never be (the connection closes, or left full
 * feature phase meanwhile): let its command go. A SCSI Command PDU that
 * was not acted on leaves a command set up from its header, which only
 * kt_iscsi_scsi_cmd() would have run or failed: it fails here.
 */
void kt_iscsi_rx_put_cmd(struct kt_iscsi_conn *conn, bool acted)
{
	struct kt_iscsi_cmd *cmd = conn->rx.held;

	if (!acted && conn->rx.pdu_cmd &&
	    conn->rx.hdr.opcode == KT_ISCSI_OP_SCSI_CMD) {
		kt_cmd_fail(&conn->rx.pdu_cmd->se, KT_SENSE_ABORTED_COMMAND);
		kt_iscsi_scsi_cmd_handed_on(conn);
	}
	conn->rx.pdu_cmd = NULL;
	if (!cmd)
		return;
	conn->rx.held = NULL;
	kt_cmd_put(&cmd->se);
}

static int kt_iscsi_data_out_header(struct kt_iscsi_conn *conn)
{
	const struct kt_iscsi_bhs *h = &conn->rx.hdr;
	struct kt_iscsi_cmd *cmd;

	cmd = kt_iscsi_data_out_cmd(conn, h->itt);
	conn->rx.discard = true;
	conn->rx.cmd = NULL;
	if (!cmd) {
		pr_debug("Data-Out for unknown ITT %#x\n", h->itt);
		return 0;
	}
	/* RFC 7143 11.7.5: the offset must lie within what was asked for */
	if (h->data.offset + (u64)h->data_len > cmd->se.expected_len ||
	    (h->ttt != 0xffffffff && h->ttt != cmd->ttt)) {
		kt_iscsi_send_reject(conn, KT_ISCSI_REJECT_PROTOCOL_ERROR);
		conn->rx.skip = true;
		return 0;
	}
	conn->rx.pdu_cmd = cmd;
	/*
	 * RFC 7143 11.7.4: DataSN counts the PDUs of one sequence (an R2T's,
	 * or the unsolicited one) from 0; with DataPDUInOrder each PDU starts
	 * where the last ended. A gap means a PDU was lost to a digest error
	 * (7.9), which 7.8 lets ERL 0 answer by ending the task with CHECK
	 * CONDITION once the rest of its data is in; the session lives on.
	 */
	if (h->data.datasn != cmd->exp_datasn ||
	    h->data.offset != cmd->se.data_received) {
		if (!cmd->data_bad)
			pr_warn_ratelimited("Data-Out out of order (ITT %#x: DataSN %u, expected %u; offset %u, expected %u): the command will fail\n",
					    cmd->itt, h->data.datasn,
					    cmd->exp_datasn, h->data.offset,
					    cmd->se.data_received);
		cmd->data_bad = true;
	}
	if (cmd->data_bad)
		return 0;	/* its data has no use any more */
	conn->rx.discard = false;
	conn->rx.cmd = cmd;
	conn->rx.cmd_off = h->data.offset;
	conn->rx.cmd_cap = cmd->se.data_length;
	return 0;
}

int kt_iscsi_ffp_data_dest(struct kt_iscsi_conn *conn)
{
	switch (conn->rx.hdr.opcode) {
	case KT_ISCSI_OP_SCSI_CMD:
		if (conn->sess->discovery) {
			kt_iscsi_send_reject(conn, KT_ISCSI_REJECT_PROTOCOL_ERROR);
			conn->rx.discard = true;
			conn->rx.skip = true;
			return 0;
		}
		return kt_iscsi_scsi_cmd_header(conn);
	case KT_ISCSI_OP_DATA_OUT:
		return kt_iscsi_data_out_header(conn);
	default:
		if (conn->rx.hdr.data_len > conn->rx_buf_len)
			return -EPROTO;
		return 0;
	}
}

/* ---- receive side: whole PDUs ---- */

static void kt_iscsi_scsi_cmd_start(struct kt_iscsi_conn *conn,
				    struct kt_iscsi_cmd *cmd)
{
	const struct kt_iscsi_bhs *h = &conn->rx.hdr;

	if (cmd->setup_reason) {
		kt_cmd_fail(&cmd->se, cmd->setup_reason);
		return;
	}
	if (conn->rx.cmd == cmd)
		cmd->se.data_received = min(h->data_len, cmd->se.data_length);
	if (cmd->data_bad && cmd->se.data_received >= cmd->se.data_length) {
		kt_cmd_fail(&cmd->se, KT_SENSE_PROTOCOL_CRC_ERROR);
		return;
	}

	/* with RDMA, no Data-Out follows: the transport fetches the rest */
	if (cmd->se.dir == KT_DATA_OUT && !conn->xport->get_data &&
	    cmd->se.data_received < cmd->se.data_length) {
		/*
		 * once in conn->cmds, an abort from another connection (MC/S)
		 * may end it at once: it stays ours until kt_cmd_run() is done
		 */
		kt_cmd_get(&cmd->se);
		WRITE_ONCE(cmd->in_xa, true);
		cmd->data_at = jiffies;
		if (xa_insert_irq(&conn->cmds, cmd->itt, cmd, GFP_KERNEL)) {
			cmd->in_xa = false;
			kt_cmd_fail(&cmd->se, KT_SENSE_OUT_OF_RESOURCES);
			kt_cmd_put(&cmd->se);
			return;
		}
		kt_iscsi_dataout_watch(conn);
		/* an abort before the insert found nothing to end: do it here */
		if (test_bit(KT_CMD_ABORTED, &cmd->se.flags) &&
		    xa_erase_irq(&conn->cmds, cmd->itt) == cmd) {
			cmd->in_xa = false;
			kt_cmd_fail(&cmd->se, KT_SENSE_ABORTED_COMMAND);
		} else {
			kt_cmd_run(&cmd->se);
		}
		kt_cmd_put(&cmd->se);
		return;
	}
	kt_cmd_run(&cmd->se);
}

static void kt_iscsi_scsi_cmd(struct kt_iscsi_conn *conn)
{
	struct kt_iscsi_cmd *cmd = conn->rx.pdu_cmd;

	if (!cmd)
		return;		/* outside the CmdSN window */
	kt_iscsi_scsi_cmd_start(conn, cmd);
	kt_iscsi_scsi_cmd_handed_on(conn);
}

static void kt_iscsi_data_out(struct kt_iscsi_conn *conn)
{
	const struct kt_iscsi_bhs *h = &conn->rx.hdr;
	struct kt_iscsi_cmd *cmd = conn->rx.pdu_cmd;
	u32 end;

	if (!cmd)
		return;
	WRITE_ONCE(cmd->data_at, jiffies);
	end = h->data.offset + h->data_len;
	/* in-order data (DataPDUInOrder=Yes): what has arrived is a prefix */
	if (end > cmd->se.data_received)
		cmd->se.data_received = end;
	cmd->exp_datasn = h->final ? 0 : cmd->exp_datasn + 1;
	if (h->final && cmd->r2t_outstanding)
		cmd->r2t_outstanding--;

	if (cmd->se.data_received >= cmd->se.data_length) {
		/* who takes it out of conn->cmds ends it: this PDU, or an abort */
		if (xa_erase_irq(&conn->cmds, cmd->itt) != cmd)
			return;
		cmd->in_xa = false;
		if (cmd->data_bad)
			kt_cmd_fail(&cmd->se, KT_SENSE_PROTOCOL_CRC_ERROR);
		else
			kt_cmd_data_out_done(&cmd->se);
	} else if (h->final && cmd->r2t_offset < cmd->write_end &&
		   xa_load(&conn->cmds, cmd->itt) == cmd) {
		kt_iscsi_cmd_queue(cmd, KT_TX_R2T);
	}
}

static void kt_iscsi_nop_out(struct kt_iscsi_conn *conn)
{
	const struct kt_iscsi_bhs *h = &conn->rx.hdr;
	struct kt_iscsi_nop_in n = { .itt = h->itt, .ttt = 0xffffffff };
	u8 bhs[KT_ISCSI_BHS_LEN];
	void *data = NULL;

	if (!h->immediate)
		kt_iscsi_cmdsn_check(conn, h->cmdsn, false);
	if (h->itt == 0xffffffff) {
		kt_iscsi_keepalive_answer(conn, h->ttt);
		return;		/* an answer to our ping */
	}
	/* RFC 7143 11.19: the ping data comes back */
	n.data_len = h->data_len;
	if (h->data_len) {
		data = kmemdup(conn->rx_buf, h->data_len, GFP_KERNEL);
		if (!data)
			n.data_len = 0;
	}
	if (kt_iscsi_encode_nop_in(bhs, &n)) {
		kfree(data);
		return;
	}
	kt_iscsi_queue_pdu(conn, bhs, data, n.data_len, true);
}

static void kt_iscsi_logout(struct kt_iscsi_conn *conn)
{
	const struct kt_iscsi_bhs *h = &conn->rx.hdr;
	struct kt_iscsi_logout_rsp r = { .itt = h->itt };
	u8 bhs[KT_ISCSI_BHS_LEN];
	bool other = false;

	if (!h->immediate)
		kt_iscsi_cmdsn_check(conn, h->cmdsn, false);
	if (h->logout.reason == KT_ISCSI_LOGOUT_REMOVE_FOR_RECOVERY) {
		r.response = KT_ISCSI_LOGOUT_RSP_NO_RECOVERY;
	} else if (h->logout.reason == KT_ISCSI_LOGOUT_CLOSE_CONNECTION &&
		   h->logout.cid != conn->cid) {
		/* MC/S: another connection of the session, closed from here */
		other = true;
		if (!kt_iscsi_sess_close_conns(conn->sess, conn, h->logout.cid,
					       true))
			r.response = KT_ISCSI_LOGOUT_RSP_CID_NOT_FOUND;
	}
	if (kt_iscsi_encode_logout_rsp(bhs, &r))
		return;
	kt_iscsi_queue_pdu(conn, bhs, NULL, 0, true);
	if (other || r.response != KT_ISCSI_LOGOUT_RSP_CLOSED)
		return;
	WRITE_ONCE(conn->logged_out, true);
	if (h->logout.reason == KT_ISCSI_LOGOUT_CLOSE_SESSION)
		kt_iscsi_sess_close_conns(conn->sess, conn, -1, true);
	kt_iscsi_conn_close_after_tx(conn);
}

void kt_iscsi_ffp_pdu(struct kt_iscsi_conn *conn)
{
	switch (conn->rx.hdr.opcode) {
	case KT_ISCSI_OP_SCSI_CMD:
		kt_iscsi_scsi_cmd(conn);
		break;
	case KT_ISCSI_OP_DATA_OUT:
		kt_iscsi_data_out(conn);
		break;
	case KT_ISCSI_OP_NOP_OUT:
		kt_iscsi_nop_out(conn);
		break;
	case KT_ISCSI_OP_TMF_REQ:
		kt_iscsi_tmf_req(conn);
		break;
	case KT_ISCSI_OP_LOGOUT_REQ:
		kt_iscsi_logout(conn);
		break;
	case KT_ISCSI_OP_TEXT_REQ:
		kt_iscsi_text(conn);
		break;
	default:
		kt_iscsi_send_reject(conn, KT_ISCSI_REJECT_NOT_SUPPORTED);
		break;
	}
}

/* The connection is going: commands waiting for Data-Out get none. */
void kt_iscsi_conn_abort_cmds(struct kt_iscsi_conn *conn)
{
	struct kt_iscsi_cmd *cmd;
	unsigned long idx;

	xa_for_each(&conn->cmds, idx, cmd) {
		/* who takes it out ends it: here, or an abort from elsewhere */
		if (xa_erase_irq(&conn->cmds, idx) != cmd)
			continue;
		cmd->in_xa = false;
		kt_cmd_fail(&cmd->se, KT_SENSE_ABORTED_COMMAND);
	}
}
