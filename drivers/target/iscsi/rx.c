// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: a received PDU, whatever carried it. The header is
 * decoded and checked here, the data goes where the header says (a
 * command's pages, the connection's buffer, or nowhere), and the whole
 * PDU is handed to the login or the full-feature code. Stream transports
 * (tcp_rx.c) call in part by part, message transports with whole PDUs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/scatterlist.h>

#include "conn.h"

/* The header is in: check it and decide where its data goes. */
static int kt_iscsi_rx_decode(struct kt_iscsi_conn *conn)
{
	struct kt_iscsi_rx *rx = &conn->rx;
	enum kt_iscsi_bhs_status st;

	if (READ_ONCE(conn->state) >= KT_CONN_CLOSING)
		return -ENOTCONN;
	WRITE_ONCE(conn->last_rx, jiffies);
	st = kt_iscsi_bhs_decode(rx->bhs, KT_ISCSI_BHS_LEN,
				 conn->nego.max_recv_dsl, &rx->hdr);
	if (st != KT_ISCSI_BHS_OK && st != KT_ISCSI_BHS_TRUNCATED &&
	    (conn->state == KT_CONN_LOGIN ||
	     st == KT_ISCSI_BHS_DATA_TOO_LONG)) {
		pr_warn_ratelimited("closing connection: bad PDU header (%s)\n",
				    kt_iscsi_bhs_status_name(st));
		return -EPROTO;
	}
	rx->buf = conn->rx_buf;
	rx->cmd = NULL;
	rx->pdu_cmd = NULL;
	rx->discard = false;
	rx->skip = false;
	if (st != KT_ISCSI_BHS_OK) {
		kt_iscsi_send_reject(conn, rx->hdr.reject_reason);
		rx->discard = true;
		rx->skip = true;
	} else if (conn->state == KT_CONN_FFP) {
		int ret = kt_iscsi_ffp_data_dest(conn);

		if (ret)
			return ret;
	} else if (rx->hdr.opcode != KT_ISCSI_OP_LOGIN_REQ) {
		pr_warn_ratelimited("closing connection: opcode %#x during login\n",
				    rx->hdr.opcode);
		return -EPROTO;
	}
	return 0;
}

int kt_iscsi_rx_header(struct kt_iscsi_conn *conn, const u8 *bhs,
		       u32 *data_len)
{
	int ret;

	memcpy(conn->rx.bhs, bhs, KT_ISCSI_BHS_LEN);
	WRITE_ONCE(conn->last_rx, jiffies);
	if (conn->state == KT_CONN_FFP && kt_iscsi_cmdsn_wait(conn))
		return 1;
	ret = kt_iscsi_rx_decode(conn);
	if (ret)
		return ret;
	*data_len = conn->rx.hdr.data_len;
	return 0;
}
EXPORT_SYMBOL_GPL(kt_iscsi_rx_header);

void *kt_iscsi_rx_data(struct kt_iscsi_conn *conn, u32 off, u32 left,
		       u32 *room)
{
	struct kt_iscsi_rx *rx = &conn->rx;
	struct scatterlist *sg;

	*room = left;
	if (rx->discard)
		return NULL;
	if (!rx->cmd)
		return rx->buf + off;
	off += rx->cmd_off;
	if (off >= rx->cmd_cap)
		return NULL;	/* beyond the command's buffer: dropped */
	left = min(left, rx->cmd_cap - off);
	/* the core's scatterlists are arrays of whole pages */
	sg = &rx->cmd->se.sgl[off >> PAGE_SHIFT];
	off &= ~PAGE_MASK;
	*room = min_t(u32, left, sg->length - off);
	return page_address(sg_page(sg)) + sg->offset + off;
}
EXPORT_SYMBOL_GPL(kt_iscsi_rx_data);

/*
 * RFC 7143 7.8: a PDU whose data digest fails is dropped with a Reject,
 * except that the data of a command (immediate data or a Data-Out) ends
 * the command with CHECK CONDITION, PROTOCOL SERVICE CRC ERROR, once all
 * its data is in: the command keeps its place in the CmdSN order.
 */
void kt_iscsi_rx_data_bad(struct kt_iscsi_conn *conn)
{
	struct kt_iscsi_rx *rx = &conn->rx;
	struct kt_iscsi_cmd *cmd = rx->pdu_cmd;

	pr_warn_ratelimited("data digest error on opcode %#x, ITT %#x\n",
			    rx->hdr.opcode, rx->hdr.itt);
	if (rx->hdr.opcode == KT_ISCSI_OP_DATA_OUT || !cmd)
		kt_iscsi_send_reject(conn, KT_ISCSI_REJECT_DATA_DIGEST);
	if (cmd)
		cmd->data_bad = true;
	else
		rx->skip = true;
}
EXPORT_SYMBOL_GPL(kt_iscsi_rx_data_bad);

void kt_iscsi_rx_end(struct kt_iscsi_conn *conn)
{
	struct kt_iscsi_rx *rx = &conn->rx;
	bool acted = false;

	if (!rx->skip) {
		if (conn->state == KT_CONN_LOGIN) {
			kt_iscsi_login_pdu(conn);
			acted = true;
		} else if (conn->state == KT_CONN_FFP) {
			kt_iscsi_ffp_pdu(conn);
			acted = true;
		}
	}
	kt_iscsi_rx_put_cmd(conn, acted);
}
EXPORT_SYMBOL_GPL(kt_iscsi_rx_end);

int kt_iscsi_rx_pdu(struct kt_iscsi_conn *conn, const u8 *pdu, u32 len)
{
	struct kt_iscsi_rx *rx = &conn->rx;
	u32 data_len, off, got, room;
	void *dst;
	int ret;

	if (len < KT_ISCSI_BHS_LEN) {
		pr_warn_ratelimited("closing connection: a %u-byte message is no PDU\n",
				    len);
		return -EPROTO;
	}
	memcpy(rx->bhs, pdu, KT_ISCSI_BHS_LEN);
	ret = kt_iscsi_rx_decode(conn);
	if (ret)
		return ret;
	data_len = rx->hdr.data_len;
	off = KT_ISCSI_BHS_LEN + rx->hdr.ahs_len;
	if (off + (u64)data_len > len) {
		pr_warn_ratelimited("closing connection: PDU (opcode %#x) of %u data bytes in a %u-byte message\n",
				    rx->hdr.opcode, data_len, len);
		return -EPROTO;
	}
	for (got = 0; got < data_len; got += room) {
		dst = kt_iscsi_rx_data(conn, got, data_len - got, &room);
		if (dst)
			memcpy(dst, pdu + off + got, room);
	}
	/* what the PDU completes may go out from here (kt_iscsi_tx_now()) */
	WRITE_ONCE(conn->rx_task, current);
	kt_iscsi_rx_end(conn);
	WRITE_ONCE(conn->rx_task, NULL);
	return 0;
}
EXPORT_SYMBOL_GPL(kt_iscsi_rx_pdu);
