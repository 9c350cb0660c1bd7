// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: a TCP connection. Receive and transmit run as work items
 * on the CPU that accepted the connection, driven by the socket's callbacks:
 * no thread per connection, no lock shared between connections.
 *
 * Receive is a resumable state machine (struct kt_iscsi_rx): BHS, AHS,
 * header digest, data, padding, data digest; each PDU is then handed to the
 * login or the full-feature code. Transmit drains a queue of PDUs; commands
 * queue themselves (their Data-In, R2Ts and status are built when sent), so
 * completions are batched into as few socket writes as the queue allows.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32c.h>
#include <linux/highmem.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <asm/unaligned.h>

#include "conn.h"

#define KT_RX_BUDGET	64	/* PDUs per run of the receive work */
#define KT_RX_BUDGET_BYTES	SZ_256K	/* and bytes */
/*
 * Bytes of answers (NOP-In ping data, Text responses, Rejects) one
 * connection may have queued before it stops reading requests: an
 * initiator that never reads its socket cannot make the queue grow. A
 * PDU in flight may take it over once, by at most one data segment.
 */
#define KT_TX_BUDGET_BYTES	SZ_1M
#define KT_RX_IOV	64	/* pages filled by one receive call */

struct workqueue_struct *kt_iscsi_wq;
/*
 * Closing and freeing wait for a connection's work on kt_iscsi_wq, so run
 * elsewhere.
 */
struct workqueue_struct *kt_iscsi_close_wq;

/*
 * Every close, then everything a close queued, has run, and the frees
 * that the last of those queued.
 */
void kt_iscsi_flush(void)
{
	flush_workqueue(kt_iscsi_close_wq);
	flush_workqueue(kt_iscsi_wq);
	flush_workqueue(kt_iscsi_close_wq);
}

static u32 kt_crc(u32 crc, const void *buf, size_t len)
{
	return crc32c(crc, buf, len);
}

/* ---- socket callbacks ---- */

static void kt_iscsi_data_ready(struct sock *sk)
{
	struct kt_iscsi_conn *conn;

	read_lock_bh(&sk->sk_callback_lock);
	conn = sk->sk_user_data;
	if (conn && conn->state < KT_CONN_CLOSING)
		queue_work_on(conn->cpu, kt_iscsi_wq, &conn->rx_work);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void kt_iscsi_write_space(struct sock *sk)
{
	void (*orig)(struct sock *sk) = NULL;
	struct kt_iscsi_conn *conn;

	read_lock_bh(&sk->sk_callback_lock);
	conn = sk->sk_user_data;
	if (conn) {
		orig = conn->saved_write_space;
		if (conn->state < KT_CONN_CLOSING)
			queue_work_on(conn->cpu, kt_iscsi_wq, &conn->tx_work);
	}
	read_unlock_bh(&sk->sk_callback_lock);
	/* wakes a sender blocked in sendmsg waiting for buffer space */
	if (orig)
		orig(sk);
}

static void kt_iscsi_state_change(struct sock *sk)
{
	struct kt_iscsi_conn *conn;
	void (*orig)(struct sock *sk);

	read_lock_bh(&sk->sk_callback_lock);
	conn = sk->sk_user_data;
	if (!conn) {
		orig = sk->sk_state_change;
		read_unlock_bh(&sk->sk_callback_lock);
		orig(sk);
		return;
	}
	orig = conn->saved_state_change;
	if (sk->sk_state == TCP_CLOSE || sk->sk_state == TCP_CLOSE_WAIT)
		kt_iscsi_conn_close(conn);
	read_unlock_bh(&sk->sk_callback_lock);
	orig(sk);
}

static void kt_iscsi_restore_callbacks(struct kt_iscsi_conn *conn)
{
	struct sock *sk = conn->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	if (sk->sk_user_data == conn) {
		sk->sk_user_data = NULL;
		sk->sk_data_ready = conn->saved_data_ready;
		sk->sk_write_space = conn->saved_write_space;
		sk->sk_state_change = conn->saved_state_change;
	}
	write_unlock_bh(&sk->sk_callback_lock);
}

/* ---- transmit ---- */

/* Send @iov fully; -errno on a dead socket. */
static int kt_iscsi_sendv(struct kt_iscsi_conn *conn, struct kvec *iov,
			  unsigned int n, size_t len, bool more)
{
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL | (more ? MSG_MORE : 0) };
	int ret;

	while (len) {
		ret = kernel_sendmsg(conn->sock, &msg, iov, n, len);
		if (ret <= 0)
			return ret ? ret : -EPIPE;
		len -= ret;
		/* a short send: step over what went */
		while (ret && n) {
			if (ret >= iov->iov_len) {
				ret -= iov->iov_len;
				iov++;
				n--;
			} else {
				iov->iov_base += ret;
				iov->iov_len -= ret;
				ret = 0;
			}
		}
	}
	return 0;
}

/*
 * One PDU: @bhs, its header digest, @len bytes of data gathered from a
 * linear buffer or from @sgl at @sg_off, padding and data digest.
 */
static int kt_iscsi_tcp_xmit(struct kt_iscsi_conn *conn, const u8 *bhs,
			     const void *data, struct scatterlist *sgl,
			     u32 sg_off, u32 len, bool more)
{
	static const u8 zero[4];
	struct kvec iov[20];
	__le32 hd, dd;
	unsigned int n = 0;
	size_t total = 0;
	u32 pad = kt_iscsi_pad4(len) - len;
	u32 crc = ~0;
	int ret;

	iov[n++] = (struct kvec){ (void *)bhs, KT_ISCSI_BHS_LEN };
	total += KT_ISCSI_BHS_LEN;
	if (conn->nego.header_digest) {
		hd = cpu_to_le32(~kt_crc(~0, bhs, KT_ISCSI_BHS_LEN));
		iov[n++] = (struct kvec){ &hd, 4 };
		total += 4;
	}
	if (len && data) {
		iov[n++] = (struct kvec){ (void *)data, len };
		crc = kt_crc(crc, data, len);
		total += len;
	} else if (len) {
		u32 off = sg_off, left = len;

		/* the core's scatterlists are arrays of whole pages */
		while (left) {
			struct scatterlist *sg = &sgl[off >> PAGE_SHIFT];
			u32 poff = off & ~PAGE_MASK;
			u32 chunk = min_t(u32, left, sg->length - poff);
			void *p = page_address(sg_page(sg)) + sg->offset + poff;

			if (n >= ARRAY_SIZE(iov) - 3) {
				ret = kt_iscsi_sendv(conn, iov, n, total, true);
				if (ret)
					return ret;
				n = 0;
				total = 0;
			}
			iov[n++] = (struct kvec){ p, chunk };
			if (conn->nego.data_digest)
				crc = kt_crc(crc, p, chunk);
			total += chunk;
			off += chunk;
			left -= chunk;
		}
	}
	if (len && pad) {
		iov[n++] = (struct kvec){ (void *)zero, pad };
		crc = kt_crc(crc, zero, pad);
		total += pad;
	}
	if (len && conn->nego.data_digest) {
		dd = cpu_to_le32(~crc);
		iov[n++] = (struct kvec){ &dd, 4 };
		total += 4;
	}
	ret = kt_iscsi_sendv(conn, iov, n, total, more);
	conn->tx_corked = !ret && more;
	return ret;
}

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

/* The allowed CPU online after @cpu, wrapping around; @cpu when none. */
static int kt_iscsi_next_cpu(int cpu)
{
	int next = cpumask_next_and(cpu, &kt_iscsi_allowed_cpus,
				    cpu_online_mask);

	if (next >= nr_cpu_ids)
		next = cpumask_first_and(&kt_iscsi_allowed_cpus,
					 cpu_online_mask);
	return next < nr_cpu_ids ? next : cpu;
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

/* What a queued PDU of its own costs the connection's transmit budget. */
/* What a queued PDU holds: its slab objects, not just its bytes. */
static long kt_iscsi_tx_cost(const struct kt_iscsi_tx *tx)
{
	if (tx->kind != KT_TX_PDU)
		return 0;
	return kmalloc_size_roundup(sizeof(*tx)) +
	       (tx->data ? kmalloc_size_roundup(tx->data_len) : 0);
}

/* The receive side stops while the transmit queue is over its budget. */
static bool kt_iscsi_rx_throttle(struct kt_iscsi_conn *conn)
{
	if (atomic_long_read(&conn->tx_bytes) <= KT_TX_BUDGET_BYTES)
		return false;
	WRITE_ONCE(conn->rx_throttled, true);
	/* pairs with the barrier in kt_iscsi_tx_pdu_free() */
	smp_mb();
	if (atomic_long_read(&conn->tx_bytes) > KT_TX_BUDGET_BYTES)
		return true;
	/* it drained meanwhile: whoever sees the flag first clears it */
	return !xchg(&conn->rx_throttled, false);
}

/* A PDU of the queue's own is sent or dropped: free it, resume receiving. */
static void kt_iscsi_tx_pdu_free(struct kt_iscsi_conn *conn,
				 struct kt_iscsi_tx *tx)
{
	long left = atomic_long_sub_return(kt_iscsi_tx_cost(tx),
					   &conn->tx_bytes);

	kfree(tx->data);
	kfree(tx);
	/* pairs with the barrier in kt_iscsi_rx_throttle() */
	smp_mb();
	if (left <= KT_TX_BUDGET_BYTES / 2 && READ_ONCE(conn->rx_throttled) &&
	    xchg(&conn->rx_throttled, false) &&
	    READ_ONCE(conn->state) < KT_CONN_CLOSING)
		queue_work_on(conn->cpu, kt_iscsi_wq, &conn->rx_work);
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

static void kt_iscsi_tx_work(struct work_struct *work)
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
	if (conn->tx_corked && conn->state < KT_CONN_CLOSING) {
		tcp_sock_set_cork(conn->sock->sk, false);
		conn->tx_corked = false;
	}
	mutex_unlock(&conn->tx_mutex);

	/* an RDMA transport closes once the Logout Response has gone */
	if (conn->state == KT_CONN_LOGOUT && !conn->xport->rdma)
		kt_iscsi_conn_close(conn);
}

/* ---- receive ---- */

/* Read into @buf; bytes read, 0 for nothing yet, -errno when gone. */
static int kt_iscsi_recvv(struct kt_iscsi_conn *conn, struct kvec *iov,
			  unsigned int n, size_t len)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	int ret;

	ret = kernel_recvmsg(conn->sock, &msg, iov, n, len, msg.msg_flags);
	if (ret == -EAGAIN)
		return 0;
	if (ret == 0)
		return -ECONNRESET;
	return ret;
}

/*
 * Fill @iov (@n entries, @len bytes; one more entry free behind them):
 * from what was read ahead, else from the socket, with @ahead bytes of the
 * read-ahead buffer in that free entry. One call then takes a PDU's data
 * and the header after it, or a run of commands without data: a receive
 * call per part cost a socket lock round each.
 */
static int kt_iscsi_rx_fill(struct kt_iscsi_conn *conn, struct kvec *iov,
			    unsigned int n, size_t len, size_t ahead)
{
	struct kt_iscsi_rx *rx = &conn->rx;
	unsigned int i;
	size_t done = 0;
	int ret;

	if (rx->ahead_len) {
		for (i = 0; i < n && rx->ahead_len; i++) {
			size_t c = min_t(size_t, iov[i].iov_len, rx->ahead_len);

			memcpy(iov[i].iov_base, rx->ahead + rx->ahead_off, c);
			rx->ahead_off += c;
			rx->ahead_len -= c;
			done += c;
		}
		return done;
	}
	iov[n] = (struct kvec){ rx->ahead, ahead };
	ret = kt_iscsi_recvv(conn, iov, n + 1, len + ahead);
	if (ret <= (int)len)
		return ret;
	rx->ahead_off = 0;
	rx->ahead_len = ret - len;
	return len;
}

static int kt_iscsi_recv(struct kt_iscsi_conn *conn, void *buf, size_t len)
{
	struct kvec iov[2] = { { buf, len } };

	return kt_iscsi_rx_fill(conn, iov, 1, len, sizeof(conn->rx.ahead));
}

/*
 * A command's data straight into its pages, many pages per receive call:
 * one call per page would cost a socket lock round each 4 KiB.
 */
static int kt_iscsi_rx_pages(struct kt_iscsi_conn *conn)
{
	struct kt_iscsi_rx *rx = &conn->rx;
	struct kvec iov[KT_RX_IOV + 1];	/* and the read-ahead buffer */
	u32 off = rx->cmd_off + rx->got;
	u32 end = min(rx->cmd_cap, rx->cmd_off + rx->need);
	unsigned int n = 0, i;
	size_t total = 0;
	int ret, left;

	while (off < end && n < KT_RX_IOV) {
		struct scatterlist *sg = &rx->cmd->se.sgl[off >> PAGE_SHIFT];
		u32 poff = off & ~PAGE_MASK;
		u32 chunk = min_t(u32, end - off, sg->length - poff);

		iov[n++] = (struct kvec){
			page_address(sg_page(sg)) + sg->offset + poff, chunk };
		total += chunk;
		off += chunk;
	}
	/*
	 * only the next header: data read ahead is copied once more, and
	 * a run of 8 KiB Data-Outs would copy an eighth of it twice
	 */
	ret = kt_iscsi_rx_fill(conn, iov, n, total, KT_ISCSI_BHS_LEN);
	if (ret <= 0)
		return ret;
	if (conn->nego.data_digest)
		for (i = 0, left = ret; left > 0; left -= iov[i++].iov_len)
			rx->crc = kt_crc(rx->crc, iov[i].iov_base,
					 min_t(size_t, left, iov[i].iov_len));
	rx->got += ret;
	return ret;
}

/* Where the next data bytes go: a linear buffer or a command's pages. */
static void *kt_iscsi_rx_ptr(struct kt_iscsi_conn *conn, u32 *room)
{
	struct kt_iscsi_rx *rx = &conn->rx;
	u32 left = rx->need - rx->got;

	if (rx->discard) {
		*room = min_t(u32, left, sizeof(rx->bhs));
		return rx->bhs;	/* scratch: the header is decoded already */
	}
	if (rx->cmd) {
		struct scatterlist *sg;
		u32 off = rx->cmd_off + rx->got;

		if (off >= rx->cmd_cap) {
			*room = min_t(u32, left, sizeof(rx->bhs));
			return rx->bhs;	/* beyond the buffer: dropped */
		}
		left = min(left, rx->cmd_cap - off);

		sg = &rx->cmd->se.sgl[off >> PAGE_SHIFT];
		off &= ~PAGE_MASK;
		*room = min_t(u32, left, sg->length - off);
		return page_address(sg_page(sg)) + sg->offset + off;
	}
	*room = left;
	return rx->buf + rx->got;
}

static void kt_iscsi_rx_next(struct kt_iscsi_rx *rx, enum kt_iscsi_rx_state s,
			     u32 need)
{
	rx->state = s;
	rx->got = 0;
	rx->need = need;
}

/*
 * RFC 7143 7.8: a PDU whose data digest fails is dropped with a Reject,
 * except that the data of a command (immediate data or a Data-Out) ends
 * the command with CHECK CONDITION, PROTOCOL SERVICE CRC ERROR, once all
 * its data is in: the command keeps its place in the CmdSN order.
 */
static void kt_iscsi_rx_digest_error(struct kt_iscsi_conn *conn)
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

/* The header is in: check it and decide where its data goes. */
static int kt_iscsi_rx_header(struct kt_iscsi_conn *conn)
{
	struct kt_iscsi_rx *rx = &conn->rx;
	enum kt_iscsi_bhs_status st;

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

static int kt_iscsi_rx_step(struct kt_iscsi_conn *conn)
{
	struct kt_iscsi_rx *rx = &conn->rx;
	u32 room;
	void *p;
	int n;

	switch (rx->state) {
	case KT_RX_BHS:
		p = rx->bhs + rx->got;
		room = rx->need - rx->got;
		break;
	case KT_RX_AHS:
	case KT_RX_PAD:
	case KT_RX_HDIGEST:
	case KT_RX_DDIGEST:
		p = (rx->state == KT_RX_HDIGEST || rx->state == KT_RX_DDIGEST) ?
		    (u8 *)&rx->digest + rx->got : rx->pad;
		room = min_t(u32, rx->need - rx->got, 4);
		break;
	case KT_RX_DATA:
		if (rx->cmd && !rx->discard &&
		    rx->cmd_off + rx->got < rx->cmd_cap)
			return kt_iscsi_rx_pages(conn);
		p = kt_iscsi_rx_ptr(conn, &room);
		break;
	default:
		return -EINVAL;
	}

	n = kt_iscsi_recv(conn, p, room);
	if (n <= 0)
		return n;
	if (((rx->state == KT_RX_DATA || rx->state == KT_RX_PAD) &&
	     conn->nego.data_digest) ||
	    (rx->state == KT_RX_AHS && conn->nego.header_digest))
		rx->crc = kt_crc(rx->crc, p, n);
	rx->got += n;
	return n;
}

/* The whole PDU is in: act on it and wait for the next. */
static void kt_iscsi_rx_dispatch(struct kt_iscsi_conn *conn)
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
	kt_iscsi_rx_next(rx, KT_RX_BHS, KT_ISCSI_BHS_LEN);
}

/*
 * A transport that receives whole PDUs (iSER: one message each, no
 * digests) hands them in here; the data goes where a TCP PDU's would.
 */
int kt_iscsi_rx_pdu(struct kt_iscsi_conn *conn, const u8 *pdu, u32 len)
{
	struct kt_iscsi_rx *rx = &conn->rx;
	u32 data_len, off, room;
	void *dst;
	int ret;

	if (conn->state >= KT_CONN_CLOSING)
		return -ENOTCONN;
	if (len < KT_ISCSI_BHS_LEN) {
		pr_warn_ratelimited("closing connection: a %u-byte message is no PDU\n",
				    len);
		return -EPROTO;
	}
	memcpy(rx->bhs, pdu, KT_ISCSI_BHS_LEN);
	WRITE_ONCE(conn->last_rx, jiffies);
	ret = kt_iscsi_rx_header(conn);
	if (ret)
		return ret;
	data_len = rx->hdr.data_len;
	off = KT_ISCSI_BHS_LEN + rx->hdr.ahs_len;
	if (off + (u64)data_len > len) {
		pr_warn_ratelimited("closing connection: PDU (opcode %#x) of %u data bytes in a %u-byte message\n",
				    rx->hdr.opcode, data_len, len);
		return -EPROTO;
	}
	kt_iscsi_rx_next(rx, KT_RX_DATA, data_len);
	while (rx->got < rx->need) {
		dst = kt_iscsi_rx_ptr(conn, &room);
		memcpy(dst, pdu + off + rx->got, room);
		rx->got += room;
	}
	/* what the PDU completes may go out from here (kt_iscsi_tx_now()) */
	WRITE_ONCE(conn->rx_task, current);
	kt_iscsi_rx_dispatch(conn);
	WRITE_ONCE(conn->rx_task, NULL);
	return 0;
}
EXPORT_SYMBOL_GPL(kt_iscsi_rx_pdu);

/*
 * A part is complete: move to the next one. 1 when a header must wait for
 * its CmdSN (MC/S): it stays received, and is taken up when kicked (this
 * runs again for the same part then, and comes to the same point).
 *
 * A header is acted on only once all of it is in and its digest, which
 * covers the BHS and the AHS (RFC 7143 11.2), has been checked.
 */
static int kt_iscsi_rx_advance(struct kt_iscsi_conn *conn)
{
	struct kt_iscsi_rx *rx = &conn->rx;
	u32 ahs_len = rx->bhs[KT_ISCSI_BHS_AHS_LEN] * 4, data_len;
	int ret;

	switch (rx->state) {
	case KT_RX_BHS:
		WRITE_ONCE(conn->last_rx, jiffies);
		rx->crc = conn->nego.header_digest ?
			  kt_crc(~0, rx->bhs, KT_ISCSI_BHS_LEN) : ~0;
		if (ahs_len) {
			kt_iscsi_rx_next(rx, KT_RX_AHS, ahs_len);
			return 0;
		}
		fallthrough;
	case KT_RX_AHS:
		if (conn->nego.header_digest) {
			kt_iscsi_rx_next(rx, KT_RX_HDIGEST, 4);
			return 0;
		}
		fallthrough;
	case KT_RX_HDIGEST:
		if (rx->state == KT_RX_HDIGEST &&
		    le32_to_cpu(rx->digest) != ~rx->crc) {
			pr_warn_ratelimited("header digest error: closing the connection\n");
			return -EPROTO;
		}
		if (conn->state == KT_CONN_FFP && kt_iscsi_cmdsn_wait(conn))
			return 1;
		ret = kt_iscsi_rx_header(conn);
		if (ret)
			return ret;
		data_len = rx->hdr.data_len;
		rx->crc = ~0;
		if (data_len) {
			kt_iscsi_rx_next(rx, KT_RX_DATA, data_len);
			return 0;
		}
		break;
	case KT_RX_DATA:
		data_len = rx->hdr.data_len;
		if (kt_iscsi_pad4(data_len) != data_len) {
			kt_iscsi_rx_next(rx, KT_RX_PAD, kt_iscsi_pad4(data_len) - data_len);
			return 0;
		}
		fallthrough;
	case KT_RX_PAD:
		if (conn->nego.data_digest) {
			kt_iscsi_rx_next(rx, KT_RX_DDIGEST, 4);
			return 0;
		}
		break;
	case KT_RX_DDIGEST:
		if (le32_to_cpu(rx->digest) != ~rx->crc)
			kt_iscsi_rx_digest_error(conn);
		break;
	default:
		return -EINVAL;
	}

	kt_iscsi_rx_dispatch(conn);
	return 0;
}

/* Receive what the socket has; -errno when the connection must close. */
static int kt_iscsi_rx_loop(struct kt_iscsi_conn *conn)
{
	unsigned int pdus = 0;
	size_t bytes = 0;
	int ret;

	while (conn->state < KT_CONN_CLOSING) {
		/*
		 * between PDUs: read no more requests while their answers
		 * pile up unread (kt_iscsi_tx_pdu_free() resumes us); the
		 * keepalive closes a connection whose initiator stays away
		 */
		if (conn->rx.state == KT_RX_BHS && !conn->rx.got &&
		    kt_iscsi_rx_throttle(conn)) {
			pr_debug("cid %u: %ld bytes of answers unread, receiving stops\n",
				 conn->cid, atomic_long_read(&conn->tx_bytes));
			return 0;
		}
		/* a header waiting for its CmdSN is in already */
		if (conn->rx.got < conn->rx.need) {
			ret = kt_iscsi_rx_step(conn);
			if (ret < 0)
				return ret;
			bytes += ret;
			if (conn->rx.got < conn->rx.need) {
				if (!ret)
					return 0;	/* wait for data_ready */
				continue;
			}
		}
		if (conn->rx.state == KT_RX_BHS &&
		    (++pdus > KT_RX_BUDGET || bytes > KT_RX_BUDGET_BYTES)) {
			/*
			 * let other connections on this CPU run, and this
			 * one's transmit work: R2Ts held back behind a long
			 * run of Data-Out stall the initiator's writes
			 */
			queue_work_on(conn->cpu, kt_iscsi_wq, &conn->rx_work);
			return min(kt_iscsi_rx_advance(conn), 0);
		}
		ret = kt_iscsi_rx_advance(conn);
		if (ret)
			return min(ret, 0);	/* 1: waits for its CmdSN */
	}
	return 0;
}

static void kt_iscsi_rx_work(struct work_struct *work)
{
	struct kt_iscsi_conn *conn = container_of(work, struct kt_iscsi_conn,
						  rx_work);
	int ret;

	WRITE_ONCE(conn->rx_task, current);
	ret = kt_iscsi_rx_loop(conn);
	WRITE_ONCE(conn->rx_task, NULL);
	if (ret)
		kt_iscsi_conn_close(conn);
}

/* ---- life cycle ---- */

/*
 * The last reference may go in a bio's completion: the socket is released
 * from a work item (and module exit drains the workqueue).
 */
static void kt_iscsi_conn_free_work(struct work_struct *work)
{
	struct kt_iscsi_conn *conn = container_of(work, struct kt_iscsi_conn,
						  free_work);
	struct module *owner = conn->xport->owner;

	/*
	 * The last reference may be a TMF's, answered after the close: its
	 * response queued the transmit work again, and a freed answer may
	 * have woken the receive work. Neither may outlive the connection.
	 */
	cancel_work_sync(&conn->rx_work);
	flush_work(&conn->tx_work);
	conn->xport->release(conn);
	module_put(owner);
	if (conn->portal)
		kt_iscsi_portal_put(conn->portal);
	kvfree(conn->rx_buf);
	xa_destroy(&conn->cmds);
	kfree(conn);
	kt_obj_dec(&kt_iscsi_objs[KT_ISCSI_OBJ_CONN]);
	module_put(THIS_MODULE);
}

static void kt_iscsi_conn_release(struct kref *kref)
{
	struct kt_iscsi_conn *conn = container_of(kref, struct kt_iscsi_conn,
						  kref);

	/*
	 * Not on kt_iscsi_wq: the free work waits for the connection's
	 * receive and transmit work there, and a work item that waits for
	 * others of its own WQ_MEM_RECLAIM workqueue can deadlock when the
	 * rescuer runs it (lockdep says so).
	 */
	queue_work(kt_iscsi_close_wq, &conn->free_work);
}

void kt_iscsi_conn_get(struct kt_iscsi_conn *conn)
{
	kref_get(&conn->kref);
}
EXPORT_SYMBOL_GPL(kt_iscsi_conn_get);

void kt_iscsi_conn_put(struct kt_iscsi_conn *conn)
{
	kref_put(&conn->kref, kt_iscsi_conn_release);
}
EXPORT_SYMBOL_GPL(kt_iscsi_conn_put);

static void kt_iscsi_close_work(struct work_struct *work)
{
	struct kt_iscsi_conn *conn = container_of(work, struct kt_iscsi_conn,
						  close_work);
	struct kt_iscsi_tx *tx;
	bool more;

	conn->xport->shutdown(conn);
	/*
	 * The receive work arms the timers (login, keepalive): once it is
	 * cancelled nothing re-arms them, shutdown having unhooked the
	 * socket's callbacks.
	 */
	cancel_work_sync(&conn->rx_work);
	del_timer_sync(&conn->login_timer);
	kt_iscsi_keepalive_stop(conn);
	kt_iscsi_dataout_stop(conn);
	WRITE_ONCE(conn->state, KT_CONN_DEAD);
	/* a command or a Data-Out cut off half-way */
	kt_iscsi_rx_put_cmd(conn, false);

	/* commands waiting for Data-Out will get none */
	kt_iscsi_conn_abort_cmds(conn);
	flush_work(&conn->tx_work);
	/* what is still queued is dropped by the tx work of a dead connection */
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

	kt_iscsi_login_free(conn);
	if (conn->sess)
		kt_iscsi_sess_del_conn(conn);
	kt_iscsi_conn_put(conn);
}

/*
 * Close from any context; the work does it once. Only a live state moves
 * to CLOSING: a connection that is DEAD stays so, and the close work,
 * queued by whoever moved it, runs once.
 */
void kt_iscsi_conn_close(struct kt_iscsi_conn *conn)
{
	enum kt_iscsi_conn_state old = READ_ONCE(conn->state);

	do {
		if (old >= KT_CONN_CLOSING)
			return;
	} while (!try_cmpxchg(&conn->state, &old, KT_CONN_CLOSING));
	queue_work(kt_iscsi_close_wq, &conn->close_work);
}
EXPORT_SYMBOL_GPL(kt_iscsi_conn_close);

static void kt_iscsi_login_timeout(struct timer_list *t)
{
	struct kt_iscsi_conn *conn = from_timer(conn, t, login_timer);

	pr_warn_ratelimited("login timed out: closing the connection\n");
	kt_iscsi_conn_close(conn);
}

/* ---- the TCP transport ---- */

static void kt_iscsi_tcp_shutdown(struct kt_iscsi_conn *conn)
{
	kt_iscsi_restore_callbacks(conn);
	kernel_sock_shutdown(conn->sock, SHUT_RDWR);
}

static void kt_iscsi_tcp_release(struct kt_iscsi_conn *conn)
{
	sock_release(conn->sock);
}

static int kt_iscsi_tcp_local_addr(struct kt_iscsi_conn *conn,
				   struct sockaddr_storage *ss)
{
	int ret = kernel_getsockname(conn->sock, (struct sockaddr *)ss);

	return ret < 0 ? ret : 0;
}

static const struct kt_iscsi_transport kt_iscsi_tcp = {
	.name		= "tcp",
	.owner		= THIS_MODULE,
	.xmit		= kt_iscsi_tcp_xmit,
	.shutdown	= kt_iscsi_tcp_shutdown,
	.release	= kt_iscsi_tcp_release,
	.local_addr	= kt_iscsi_tcp_local_addr,
};

/* ---- life cycle, continued ---- */

/*
 * A new connection's CPU: this one, where the portal accepted it, unless
 * cpus_allowed_list leaves it out; then the next allowed CPU online.
 */
static int kt_iscsi_conn_cpu(void)
{
	int cpu = raw_smp_processor_id();

	if (cpumask_test_cpu(cpu, &kt_iscsi_allowed_cpus))
		return cpu;
	return kt_iscsi_next_cpu(cpu);
}

struct kt_iscsi_conn *kt_iscsi_conn_alloc(struct kt_iscsi_portal *portal,
					  const struct kt_iscsi_transport *xport,
					  void *priv)
{
	struct kt_iscsi_conn *conn;

	if (!try_module_get(THIS_MODULE))
		return ERR_PTR(-ENODEV);
	if (!try_module_get(xport->owner)) {
		module_put(THIS_MODULE);
		return ERR_PTR(-ENODEV);
	}
	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (conn)
		conn->rx_buf = kvmalloc(KT_ISCSI_LOGIN_BUF, GFP_KERNEL);
	if (!conn || !conn->rx_buf) {
		kfree(conn);
		module_put(xport->owner);
		module_put(THIS_MODULE);
		return ERR_PTR(-ENOMEM);
	}
	kt_obj_inc(&kt_iscsi_objs[KT_ISCSI_OBJ_CONN]);
	conn->rx_buf_len = KT_ISCSI_LOGIN_BUF;
	kref_init(&conn->kref);
	conn->xport = xport;
	conn->xport_priv = priv;
	conn->portal = portal;
	refcount_inc(&portal->ref);
	conn->state = KT_CONN_LOGIN;
	conn->cpu = kt_iscsi_conn_cpu();
	conn->nego.max_recv_dsl = KT_ISCSI_LOGIN_BUF;
	conn->nego.max_xmit_dsl = KT_ISCSI_LOGIN_BUF;
	INIT_LIST_HEAD(&conn->sess_node);
	INIT_LIST_HEAD(&conn->tx_queue);
	spin_lock_init(&conn->tx_lock);
	mutex_init(&conn->tx_mutex);
	xa_init_flags(&conn->cmds, XA_FLAGS_LOCK_IRQ);
	INIT_WORK(&conn->rx_work, kt_iscsi_rx_work);
	INIT_WORK(&conn->tx_work, kt_iscsi_tx_work);
	INIT_WORK(&conn->close_work, kt_iscsi_close_work);
	INIT_WORK(&conn->free_work, kt_iscsi_conn_free_work);
	timer_setup(&conn->login_timer, kt_iscsi_login_timeout, 0);
	conn->login_start = jiffies;
	kt_iscsi_keepalive_init(conn);
	kt_iscsi_dataout_init(conn);
	kt_iscsi_rx_next(&conn->rx, KT_RX_BHS, KT_ISCSI_BHS_LEN);
	return conn;
}
EXPORT_SYMBOL_GPL(kt_iscsi_conn_alloc);

/* Arm the login; on failure the caller puts the connection. */
int kt_iscsi_conn_start(struct kt_iscsi_conn *conn)
{
	return kt_iscsi_login_start(conn);
}
EXPORT_SYMBOL_GPL(kt_iscsi_conn_start);

/*
 * A new connection from the portal's accept work; takes @sock, also when
 * it fails (the connection's release, or here, releases it once).
 */
struct kt_iscsi_conn *kt_iscsi_conn_create(struct socket *sock,
					   struct kt_iscsi_portal *portal)
{
	struct kt_iscsi_conn *conn;
	struct sock *sk = sock->sk;

	conn = kt_iscsi_conn_alloc(portal, &kt_iscsi_tcp, NULL);
	if (IS_ERR(conn)) {
		sock_release(sock);
		return conn;
	}
	conn->sock = sock;
	kernel_getpeername(sock, (struct sockaddr *)&conn->peer);
	tcp_sock_set_nodelay(sk);
	sk->sk_sndtimeo = 30 * HZ;

	if (kt_iscsi_conn_start(conn)) {
		kt_iscsi_conn_put(conn);
		return ERR_PTR(-ENOMEM);
	}

	write_lock_bh(&sk->sk_callback_lock);
	conn->saved_data_ready = sk->sk_data_ready;
	conn->saved_write_space = sk->sk_write_space;
	conn->saved_state_change = sk->sk_state_change;
	sk->sk_user_data = conn;
	sk->sk_data_ready = kt_iscsi_data_ready;
	sk->sk_write_space = kt_iscsi_write_space;
	sk->sk_state_change = kt_iscsi_state_change;
	write_unlock_bh(&sk->sk_callback_lock);

	/* data may have arrived before the callbacks were in place */
	queue_work_on(conn->cpu, kt_iscsi_wq, &conn->rx_work);
	return conn;
}
