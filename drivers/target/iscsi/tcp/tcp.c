// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: the TCP transport. The socket's callbacks kick the
 * connection's receive and transmit work (on the CPU that accepted it: no
 * thread per connection); PDUs go out with their digests and padding,
 * gathered from the command's pages, and MSG_MORE while the transmit
 * queue has more.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32c.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/scatterlist.h>
#include <linux/tcp.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "tcp.h"

/* ---- socket callbacks ---- */

static void kt_tcp_data_ready(struct sock *sk)
{
	struct kt_iscsi_conn *conn;

	read_lock_bh(&sk->sk_callback_lock);
	conn = sk->sk_user_data;
	if (conn)
		kt_iscsi_conn_rx_kick(conn);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void kt_tcp_write_space(struct sock *sk)
{
	void (*orig)(struct sock *sk) = NULL;
	struct kt_iscsi_conn *conn;

	read_lock_bh(&sk->sk_callback_lock);
	conn = sk->sk_user_data;
	if (conn) {
		orig = kt_tcp(conn)->saved_write_space;
		kt_iscsi_conn_tx_kick(conn);
	}
	read_unlock_bh(&sk->sk_callback_lock);
	/* wakes a sender blocked in sendmsg waiting for buffer space */
	if (orig)
		orig(sk);
}

static void kt_tcp_state_change(struct sock *sk)
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
	orig = kt_tcp(conn)->saved_state_change;
	if (sk->sk_state == TCP_CLOSE || sk->sk_state == TCP_CLOSE_WAIT)
		kt_iscsi_conn_close(conn);
	read_unlock_bh(&sk->sk_callback_lock);
	orig(sk);
}

static void kt_tcp_restore_callbacks(struct kt_iscsi_conn *conn)
{
	struct kt_tcp_conn *tc = kt_tcp(conn);
	struct sock *sk = tc->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	if (sk->sk_user_data == conn) {
		sk->sk_user_data = NULL;
		sk->sk_data_ready = tc->saved_data_ready;
		sk->sk_write_space = tc->saved_write_space;
		sk->sk_state_change = tc->saved_state_change;
	}
	write_unlock_bh(&sk->sk_callback_lock);
}

/* ---- transmit ---- */

/* Send @iov fully; -errno on a dead socket. */
static int kt_tcp_sendv(struct kt_tcp_conn *tc, struct kvec *iov,
			unsigned int n, size_t len, bool more)
{
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL | (more ? MSG_MORE : 0) };
	int ret;

	while (len) {
		ret = kernel_sendmsg(tc->sock, &msg, iov, n, len);
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
static int kt_tcp_xmit(struct kt_iscsi_conn *conn, const u8 *bhs,
		       const void *data, struct scatterlist *sgl,
		       u32 sg_off, u32 len, bool more)
{
	static const u8 zero[4];
	struct kt_tcp_conn *tc = kt_tcp(conn);
	unsigned int digests = kt_iscsi_conn_digests(conn);
	bool ddigest = digests & KT_ISCSI_DIGEST_DATA;
	struct kvec iov[20];
	__le32 hd, dd;
	unsigned int n = 0;
	size_t total = 0;
	u32 pad = kt_iscsi_pad4(len) - len;
	u32 crc = ~0;
	int ret;

	iov[n++] = (struct kvec){ (void *)bhs, KT_ISCSI_BHS_LEN };
	total += KT_ISCSI_BHS_LEN;
	if (digests & KT_ISCSI_DIGEST_HEADER) {
		hd = cpu_to_le32(~crc32c(~0, bhs, KT_ISCSI_BHS_LEN));
		iov[n++] = (struct kvec){ &hd, 4 };
		total += 4;
	}
	if (len && data) {
		iov[n++] = (struct kvec){ (void *)data, len };
		if (ddigest)
			crc = crc32c(crc, data, len);
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
				ret = kt_tcp_sendv(tc, iov, n, total, true);
				if (ret)
					return ret;
				n = 0;
				total = 0;
			}
			iov[n++] = (struct kvec){ p, chunk };
			if (ddigest)
				crc = crc32c(crc, p, chunk);
			total += chunk;
			off += chunk;
			left -= chunk;
		}
	}
	if (len && pad) {
		iov[n++] = (struct kvec){ (void *)zero, pad };
		if (ddigest)
			crc = crc32c(crc, zero, pad);
		total += pad;
	}
	if (len && ddigest) {
		dd = cpu_to_le32(~crc);
		iov[n++] = (struct kvec){ &dd, 4 };
		total += 4;
	}
	ret = kt_tcp_sendv(tc, iov, n, total, more);
	tc->corked = !ret && more;
	return ret;
}

/* The queue ran dry: what the last send held back for more goes now. */
static void kt_tcp_flush(struct kt_iscsi_conn *conn)
{
	struct kt_tcp_conn *tc = kt_tcp(conn);

	if (tc->corked) {
		tcp_sock_set_cork(tc->sock->sk, false);
		tc->corked = false;
	}
}

static bool kt_tcp_writeable(struct kt_iscsi_conn *conn)
{
	return sk_stream_is_writeable(kt_tcp(conn)->sock->sk);
}

/* ---- life cycle ---- */

static void kt_tcp_shutdown(struct kt_iscsi_conn *conn)
{
	kt_tcp_restore_callbacks(conn);
	kernel_sock_shutdown(kt_tcp(conn)->sock, SHUT_RDWR);
}

static void kt_tcp_release(struct kt_iscsi_conn *conn)
{
	sock_release(kt_tcp(conn)->sock);
}

static int kt_tcp_local_addr(struct kt_iscsi_conn *conn,
			     struct sockaddr_storage *ss)
{
	int ret = kernel_getsockname(kt_tcp(conn)->sock, (struct sockaddr *)ss);

	return ret < 0 ? ret : 0;
}

const struct kt_iscsi_transport kt_iscsi_tcp = {
	.name		= "tcp",
	.owner		= THIS_MODULE,
	.conn_size	= sizeof(struct kt_tcp_conn),
	.listen		= kt_tcp_listen,
	.unlisten	= kt_tcp_unlisten,
	.xmit		= kt_tcp_xmit,
	.flush		= kt_tcp_flush,
	.writeable	= kt_tcp_writeable,
	.receive	= kt_tcp_receive,
	.shutdown	= kt_tcp_shutdown,
	.release	= kt_tcp_release,
	.local_addr	= kt_tcp_local_addr,
};

/*
 * A new connection from the listener's accept work; takes @sock, also when
 * it fails (the connection's release, or here, releases it once).
 */
struct kt_iscsi_conn *kt_iscsi_tcp_accept(struct kt_iscsi_portal *portal,
					  struct socket *sock)
{
	struct sockaddr_storage peer = {};
	struct kt_iscsi_conn *conn;
	struct sock *sk = sock->sk;
	struct kt_tcp_conn *tc;
	int ret;

	kernel_getpeername(sock, (struct sockaddr *)&peer);
	conn = kt_iscsi_conn_alloc(portal, &kt_iscsi_tcp, &peer);
	if (IS_ERR(conn)) {
		sock_release(sock);
		return conn;
	}
	tc = kt_tcp(conn);
	tc->sock = sock;
	kt_tcp_rx_init(&tc->rx);
	tcp_sock_set_nodelay(sk);
	sk->sk_sndtimeo = 30 * HZ;

	ret = kt_iscsi_conn_start(conn);
	if (ret) {
		kt_iscsi_conn_put(conn);
		return ERR_PTR(ret);
	}

	write_lock_bh(&sk->sk_callback_lock);
	tc->saved_data_ready = sk->sk_data_ready;
	tc->saved_write_space = sk->sk_write_space;
	tc->saved_state_change = sk->sk_state_change;
	sk->sk_user_data = conn;
	sk->sk_data_ready = kt_tcp_data_ready;
	sk->sk_write_space = kt_tcp_write_space;
	sk->sk_state_change = kt_tcp_state_change;
	write_unlock_bh(&sk->sk_callback_lock);

	/* data may have arrived before the callbacks were in place */
	kt_iscsi_conn_rx_kick(conn);
	return conn;
}
