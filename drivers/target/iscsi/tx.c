// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: the transmit queue. Commands queue themselves (their
 * Data-In, R2Ts and status are built when sent), other PDUs are queued
 * whole; the transmit work drains the queue through the transport, so
 * completions are batched into as few sends as the queue allows.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/unaligned.h>

#include "conn.h"

/*
 * Bytes of answers (NOP-In ping data, Text responses, Rejects) one
 * connection may have queued before it stops reading requests: an
 * initiator that never reads its socket cannot make the queue grow. A
 * PDU in flight may take it over once, by at most one data segment.
 */
#define KT_TX_BUDGET_BYTES	SZ_1M

int kt_iscsi_send_pdu(struct kt_iscsi_conn *conn, const u8 *bhs,
		      const void *data, u32 len)
{
	return conn->xport->xmit(conn, bhs, data, NULL, 0, len, false);
}

int kt_iscsi_send_sg(struct kt_iscsi_conn *conn, const u8 *bhs,
		     struct scatterlist *sgl, u32 off, u32 len, bool more)
{
	return conn->xport->xmit(conn, bhs, NULL, sgl, off, len, more);
}

/*
 * Sequence numbers go in when a PDU is sent, in send order: StatSN
 * (advanced when @statsn), ExpCmdSN and MaxCmdSN (RFC 7143 11.x: bytes
 * 24..35 of every target PDU that carries them).
 */
void kt_iscsi_stamp(struct kt_iscsi_conn *conn, u8 *bhs, bool statsn)
{
	struct kt_iscsi_sess *sess = conn->sess;

	put_unaligned_be32(statsn ? conn->stat_sn++ : conn->stat_sn, bhs + 24);
	if (sess) {
		put_unaligned_be32(READ_ONCE(sess->exp_cmdsn), bhs + 28);
		put_unaligned_be32(kt_iscsi_sess_max_cmdsn(sess), bhs + 32);
	}
}

/*
 * Where the transmit work runs. TCP: on the connection's CPU, beside its
 * receive work. RDMA: on another CPU than this one, where the completion
 * of what arrived runs: a soft-RoCE device does the copying of what is
 * posted on the CPU that posts it, and the two directions then share out
 * the CPUs (kt_iscsi_tx_now() posts a lone command's response at once).
 */
static int kt_iscsi_tx_cpu(struct kt_iscsi_conn *conn)
{
	if (!conn->xport->rdma)
		return conn->cpu;
	return kt_iscsi_next_cpu(raw_smp_processor_id());
}

/* What a queued PDU holds: its slab objects, not just its bytes. */
static long kt_iscsi_tx_cost(const struct kt_iscsi_tx *tx)
{
	if (tx->kind != KT_TX_PDU)
		return 0;
	return kmalloc_size_roundup(sizeof(*tx)) +
	       (tx->data ? kmalloc_size_roundup(tx->data_len) : 0);
}

/* The receive side stops while the transmit queue is over its budget. */
bool kt_iscsi_rx_paused(struct kt_iscsi_conn *conn)
{
	if (atomic_long_read(&conn->tx_bytes) <= KT_TX_BUDGET_BYTES)
		return false;
	WRITE_ONCE(conn->rx_throttled, true);
	/* pairs with the barrier in kt_iscsi_tx_pdu_free() */
	smp_mb();
	if (atomic_long_read(&conn->tx_bytes) > KT_TX_BUDGET_BYTES) {
		pr_debug("cid %u: %ld bytes of answers unread, receiving stops\n",
			 conn->cid, atomic_long_read(&conn->tx_bytes));
		return true;
	}
	/* it drained meanwhile: whoever sees the flag first clears it */
	return !xchg(&conn->rx_throttled, false);
}
EXPORT_SYMBOL_GPL(kt_iscsi_rx_paused);

/* A PDU of the queue's own is sent or dropped: free it, resume receiving. */
static void kt_iscsi_tx_pdu_free(struct kt_iscsi_conn *conn,
				 struct kt_iscsi_tx *tx)
{
	long left = atomic_long_sub_return(kt_iscsi_tx_cost(tx),
					   &conn->tx_bytes);

	kfree(tx->data);
	kfree(tx);
	/* pairs with the barrier in kt_iscsi_rx_paused() */
	smp_mb();
	if (left <= KT_TX_BUDGET_BYTES / 2 && READ_ONCE(conn->rx_throttled) &&
	    xchg(&conn->rx_throttled, false))
		kt_iscsi_conn_rx_kick(conn);
}

void kt_iscsi_queue_tx(struct kt_iscsi_conn *conn, struct kt_iscsi_tx *tx)
{
	unsigned long flags;

	atomic_long_add(kt_iscsi_tx_cost(tx), &conn->tx_bytes);
	spin_lock_irqsave(&conn->tx_lock, flags);
	list_add_tail(&tx->node, &conn->tx_queue);
	spin_unlock_irqrestore(&conn->tx_lock, flags);
	queue_work_on(kt_iscsi_tx_cpu(conn), kt_iscsi_wq, &conn->tx_work);
}

static struct kt_iscsi_tx *kt_iscsi_tx_pop(struct kt_iscsi_conn *conn,
					   bool *more)
{
	struct kt_iscsi_tx *tx;
	unsigned long flags;

	spin_lock_irqsave(&conn->tx_lock, flags);
	tx = list_first_entry_or_null(&conn->tx_queue, struct kt_iscsi_tx,
				      node);
	if (tx)
		list_del_init(&tx->node);
	*more = !list_empty(&conn->tx_queue);
	spin_unlock_irqrestore(&conn->tx_lock, flags);
	return tx;
}

void kt_iscsi_tx_work(struct work_struct *work)
{
	struct kt_iscsi_conn *conn = container_of(work, struct kt_iscsi_conn,
						  tx_work);
	struct kt_iscsi_tx *tx;
	bool more, dead;
	int ret;

	mutex_lock(&conn->tx_mutex);
	while ((tx = kt_iscsi_tx_pop(conn, &more))) {
		dead = conn->state >= KT_CONN_CLOSING;
		if (tx->kind == KT_TX_PDU) {
			kt_iscsi_stamp(conn, tx->bhs, tx->statsn);
			ret = dead ? 0 : conn->xport->xmit(conn, tx->bhs,
							   tx->data, NULL, 0,
							   tx->data_len, more);
			kt_iscsi_tx_pdu_free(conn, tx);
		} else {
			/* Data-In, R2T, status: built from the command now */
			kt_iscsi_cmd_tx(conn, container_of(tx, struct kt_iscsi_cmd, tx),
					more);
			ret = 0;
		}
		if (ret && !dead) {
			pr_debug("send failed (%d): closing the connection\n", ret);
			kt_iscsi_conn_close(conn);
		}
	}
	/* the last turn sent nothing: what the one before held back goes now */
	if (conn->xport->flush && conn->state < KT_CONN_CLOSING)
		conn->xport->flush(conn);
	mutex_unlock(&conn->tx_mutex);

	/* an RDMA transport closes once the Logout Response has gone */
	if (conn->state == KT_CONN_LOGOUT && !conn->xport->rdma)
		kt_iscsi_conn_close(conn);
}

void kt_iscsi_tx_drop_all(struct kt_iscsi_conn *conn)
{
	struct kt_iscsi_tx *tx;
	bool more;

	mutex_lock(&conn->tx_mutex);
	while ((tx = kt_iscsi_tx_pop(conn, &more))) {
		if (tx->kind == KT_TX_PDU) {
			kt_iscsi_tx_pdu_free(conn, tx);
		} else {
			kt_iscsi_cmd_tx(conn, container_of(tx, struct kt_iscsi_cmd, tx),
					false);
		}
	}
	mutex_unlock(&conn->tx_mutex);
}
