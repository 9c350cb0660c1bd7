/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_iscsi: the TCP transport's state, kept in the connection's
 * transport area. tcp.c holds the socket and sends; tcp_rx.c reads PDUs
 * off the byte stream; tcp_listen.c listens on a portal and accepts.
 */
#ifndef KTARGET_ISCSI_TCP_H
#define KTARGET_ISCSI_TCP_H

#include <linux/net.h>
#include <net/sock.h>

#include <ktarget/iscsi_transport.h>
#include <ktarget/proto/iscsi_pdu.h>

/* Which part of a PDU the stream is in. */
enum kt_tcp_rx_state {
	KT_RX_BHS,
	KT_RX_AHS,
	KT_RX_HDIGEST,
	KT_RX_DATA,
	KT_RX_PAD,
	KT_RX_DDIGEST,
};

#define KT_RX_AHEAD	1024	/* read-ahead bytes (kt_tcp_rx_fill()) */
#define KT_RX_SCRATCH	256	/* what dropped data is read into */

struct kt_tcp_rx {
	enum kt_tcp_rx_state	state;
	u8			bhs[KT_ISCSI_BHS_LEN];
	u32			got;		/* bytes of the current part */
	u32			need;
	u32			data_len;	/* the PDU's data segment */
	u8			pad[4];
	__le32			digest;
	u32			crc;		/* running digest */
	/*
	 * bytes read past the current part, so that one receive call
	 * brings in a PDU's data and the headers that follow it
	 */
	u16			ahead_off;
	u16			ahead_len;
	u8			ahead[KT_RX_AHEAD];
	u8			scratch[KT_RX_SCRATCH];
};

struct kt_tcp_conn {
	struct socket		*sock;
	bool			corked;		/* the last send said MSG_MORE */
	struct kt_tcp_rx	rx;
	void			(*saved_data_ready)(struct sock *sk);
	void			(*saved_write_space)(struct sock *sk);
	void			(*saved_state_change)(struct sock *sk);
};

static inline struct kt_tcp_conn *kt_tcp(struct kt_iscsi_conn *conn)
{
	return kt_iscsi_conn_priv(conn);
}

/* tcp.c: the transport; a connection accepted on @portal (takes @sock) */
extern const struct kt_iscsi_transport kt_iscsi_tcp;
struct kt_iscsi_conn *kt_iscsi_tcp_accept(struct kt_iscsi_portal *portal,
					  struct socket *sock);

/* tcp_rx.c */
int kt_tcp_receive(struct kt_iscsi_conn *conn);
void kt_tcp_rx_init(struct kt_tcp_rx *rx);

/* tcp_listen.c: the transport's listen and unlisten hooks */
void *kt_tcp_listen(struct kt_iscsi_portal *portal);
void kt_tcp_unlisten(void *listener);

#endif /* KTARGET_ISCSI_TCP_H */
