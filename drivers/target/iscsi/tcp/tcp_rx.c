// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: reading PDUs off a TCP stream. A resumable state machine
 * (struct kt_tcp_rx) takes each PDU in parts: BHS, AHS, header digest,
 * data, padding, data digest. The fabric decodes the header and says
 * where the data goes (kt_iscsi_rx_header(), kt_iscsi_rx_data()); command
 * data is read straight into the command's pages.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32c.h>
#include <linux/kernel.h>
#include <linux/uio.h>

#include "tcp.h"

#define KT_RX_BUDGET	64	/* PDUs per run of the receive work */
#define KT_RX_BUDGET_BYTES	SZ_256K	/* and bytes */
#define KT_RX_IOV	64	/* runs of data filled by one receive call */

static void kt_tcp_rx_next(struct kt_tcp_rx *rx, enum kt_tcp_rx_state s,
			   u32 need)
{
	rx->state = s;
	rx->got = 0;
	rx->need = need;
}

void kt_tcp_rx_init(struct kt_tcp_rx *rx)
{
	kt_tcp_rx_next(rx, KT_RX_BHS, KT_ISCSI_BHS_LEN);
}

/* Read into @iov; bytes read, 0 for nothing yet, -errno when gone. */
static int kt_tcp_recvv(struct kt_tcp_conn *tc, struct kvec *iov,
			unsigned int n, size_t len)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	int ret;

	ret = kernel_recvmsg(tc->sock, &msg, iov, n, len, msg.msg_flags);
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
static int kt_tcp_rx_fill(struct kt_tcp_conn *tc, struct kvec *iov,
			  unsigned int n, size_t len, size_t ahead)
{
	struct kt_tcp_rx *rx = &tc->rx;
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
	ret = kt_tcp_recvv(tc, iov, n + 1, len + ahead);
	if (ret <= (int)len)
		return ret;
	rx->ahead_off = 0;
	rx->ahead_len = ret - len;
	return len;
}

/*
 * Data: as many runs as the fabric gives at once, straight into a
 * command's pages (one call per page would cost a socket lock round each
 * 4 KiB), or into the scratch buffer when dropped.
 */
static int kt_tcp_rx_data(struct kt_iscsi_conn *conn, struct kt_tcp_conn *tc,
			  bool digest)
{
	struct kt_tcp_rx *rx = &tc->rx;
	struct kvec iov[KT_RX_IOV + 1];	/* and the read-ahead buffer */
	u32 off = rx->got, left = rx->need - rx->got, room;
	unsigned int n = 0, i;
	size_t total = 0;
	int ret, rest;

	while (left && n < KT_RX_IOV) {
		void *p = kt_iscsi_rx_data(conn, off, left, &room);

		if (!p) {
			if (n)
				break;
			p = rx->scratch;
			room = min_t(u32, room, sizeof(rx->scratch));
			iov[n++] = (struct kvec){ p, room };
			total = room;
			break;
		}
		iov[n++] = (struct kvec){ p, room };
		total += room;
		off += room;
		left -= room;
	}
	/*
	 * a large segment reads ahead only the next header: what is read
	 * ahead is copied once more, and a run of 8 KiB Data-Outs would
	 * copy an eighth of it twice
	 */
	ret = kt_tcp_rx_fill(tc, iov, n, total,
			     total >= PAGE_SIZE ? KT_ISCSI_BHS_LEN :
						  sizeof(rx->ahead));
	if (ret <= 0)
		return ret;
	if (digest)
		for (i = 0, rest = ret; rest > 0; rest -= iov[i++].iov_len)
			rx->crc = crc32c(rx->crc, iov[i].iov_base,
					 min_t(size_t, rest, iov[i].iov_len));
	rx->got += ret;
	return ret;
}

static int kt_tcp_rx_step(struct kt_iscsi_conn *conn, struct kt_tcp_conn *tc,
			  unsigned int digests)
{
	struct kt_tcp_rx *rx = &tc->rx;
	struct kvec iov[2];
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
		p = rx->pad;
		room = min_t(u32, rx->need - rx->got, 4);
		break;
	case KT_RX_HDIGEST:
	case KT_RX_DDIGEST:
		p = (u8 *)&rx->digest + rx->got;
		room = rx->need - rx->got;
		break;
	case KT_RX_DATA:
		return kt_tcp_rx_data(conn, tc, digests & KT_ISCSI_DIGEST_DATA);
	default:
		return -EINVAL;
	}

	iov[0] = (struct kvec){ p, room };
	n = kt_tcp_rx_fill(tc, iov, 1, room, sizeof(rx->ahead));
	if (n <= 0)
		return n;
	if ((rx->state == KT_RX_PAD && (digests & KT_ISCSI_DIGEST_DATA)) ||
	    (rx->state == KT_RX_AHS && (digests & KT_ISCSI_DIGEST_HEADER)))
		rx->crc = crc32c(rx->crc, p, n);
	rx->got += n;
	return n;
}

/*
 * A part is complete: move to the next one. 1 when a header must wait for
 * its CmdSN (MC/S): it stays received, and is taken up when kicked (this
 * runs again for the same part then, and comes to the same point).
 *
 * A header is handed on only once all of it is in and its digest, which
 * covers the BHS and the AHS (RFC 7143 11.2), has been checked.
 */
static int kt_tcp_rx_advance(struct kt_iscsi_conn *conn,
			     struct kt_tcp_conn *tc, unsigned int digests)
{
	struct kt_tcp_rx *rx = &tc->rx;
	u32 ahs_len = rx->bhs[KT_ISCSI_BHS_AHS_LEN] * 4;
	int ret;

	switch (rx->state) {
	case KT_RX_BHS:
		rx->crc = (digests & KT_ISCSI_DIGEST_HEADER) ?
			  crc32c(~0, rx->bhs, KT_ISCSI_BHS_LEN) : ~0;
		if (ahs_len) {
			kt_tcp_rx_next(rx, KT_RX_AHS, ahs_len);
			return 0;
		}
		fallthrough;
	case KT_RX_AHS:
		if (digests & KT_ISCSI_DIGEST_HEADER) {
			kt_tcp_rx_next(rx, KT_RX_HDIGEST, 4);
			return 0;
		}
		fallthrough;
	case KT_RX_HDIGEST:
		if (rx->state == KT_RX_HDIGEST &&
		    le32_to_cpu(rx->digest) != ~rx->crc) {
			pr_warn_ratelimited("header digest error: closing the connection\n");
			return -EPROTO;
		}
		ret = kt_iscsi_rx_header(conn, rx->bhs, &rx->data_len);
		if (ret)
			return ret;
		rx->crc = ~0;
		if (rx->data_len) {
			kt_tcp_rx_next(rx, KT_RX_DATA, rx->data_len);
			return 0;
		}
		break;
	case KT_RX_DATA:
		if (kt_iscsi_pad4(rx->data_len) != rx->data_len) {
			kt_tcp_rx_next(rx, KT_RX_PAD,
				       kt_iscsi_pad4(rx->data_len) - rx->data_len);
			return 0;
		}
		fallthrough;
	case KT_RX_PAD:
		if (digests & KT_ISCSI_DIGEST_DATA) {
			kt_tcp_rx_next(rx, KT_RX_DDIGEST, 4);
			return 0;
		}
		break;
	case KT_RX_DDIGEST:
		if (le32_to_cpu(rx->digest) != ~rx->crc)
			kt_iscsi_rx_data_bad(conn);
		break;
	default:
		return -EINVAL;
	}

	kt_iscsi_rx_end(conn);
	kt_tcp_rx_next(rx, KT_RX_BHS, KT_ISCSI_BHS_LEN);
	return 0;
}

/* Receive what the socket has; -errno when the connection must close. */
int kt_tcp_receive(struct kt_iscsi_conn *conn)
{
	struct kt_tcp_conn *tc = kt_tcp(conn);
	struct kt_tcp_rx *rx = &tc->rx;
	unsigned int pdus = 0, digests;
	size_t bytes = 0;
	int ret;

	for (;;) {
		/*
		 * between PDUs: read no more requests while their answers
		 * pile up unread (the fabric kicks us when they drain); the
		 * keepalive closes a connection whose initiator stays away
		 */
		if (rx->state == KT_RX_BHS && !rx->got &&
		    kt_iscsi_rx_paused(conn))
			return 0;
		/* digests start with the first PDU after the login */
		digests = kt_iscsi_conn_digests(conn);
		/* a header waiting for its CmdSN is in already */
		if (rx->got < rx->need) {
			ret = kt_tcp_rx_step(conn, tc, digests);
			if (ret < 0)
				return ret;
			bytes += ret;
			if (rx->got < rx->need) {
				if (!ret)
					return 0;	/* wait for data_ready */
				continue;
			}
		}
		if (rx->state == KT_RX_BHS &&
		    (++pdus > KT_RX_BUDGET || bytes > KT_RX_BUDGET_BYTES)) {
			/*
			 * let other connections on this CPU run, and this
			 * one's transmit work: R2Ts held back behind a long
			 * run of Data-Out stall the initiator's writes
			 */
			kt_iscsi_conn_rx_kick(conn);
			return min(kt_tcp_rx_advance(conn, tc, digests), 0);
		}
		ret = kt_tcp_rx_advance(conn, tc, digests);
		if (ret)
			return min(ret, 0);	/* 1: waits for its CmdSN */
	}
}
