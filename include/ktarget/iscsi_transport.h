/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_iscsi's transport interface: what carries iSCSI PDUs for the
 * fabric. TCP (drivers/target/iscsi/tcp/) and iSER (ktarget_isert) are
 * its two users, and this header is all either of them includes of the
 * fabric.
 *
 * The fabric owns the connection, its session, login, sequence numbers,
 * the commands and their order; a transport moves bytes. It holds
 * connections and commands as opaque handles, keeps its own state in the
 * per-connection and per-command areas it asks for (conn_size, cmd_size),
 * and reaches the fabric only through the functions below.
 *
 * Two ways to receive. A stream transport (TCP) reads a PDU in parts:
 * kt_iscsi_rx_header() when the header is in, kt_iscsi_rx_data() for
 * where each run of data goes, kt_iscsi_rx_end() when all of it is in. A
 * message transport (iSER) hands each whole PDU to kt_iscsi_rx_pdu().
 *
 * Contexts: xmit, flush and the data hooks run in process context, one
 * sender at a time per connection; writeable may run in any context;
 * listen and unlisten run in process context, listen under the fabric's
 * portal lock, unlisten without it (in the free work of a portal's last
 * connection, too). The fabric's functions may be called from any context
 * unless they say so.
 */
#ifndef KTARGET_ISCSI_TRANSPORT_H
#define KTARGET_ISCSI_TRANSPORT_H

#include <linux/socket.h>
#include <linux/types.h>

struct kt_cmd;
struct kt_iscsi_cmd;
struct kt_iscsi_conn;
struct kt_iscsi_portal;
struct module;
struct scatterlist;
struct work_struct;

struct kt_iscsi_transport {
	const char	*name;
	struct module	*owner;
	/* RFC 7145: RDMAExtensions=Yes, no digests, no R2T or Data-In PDUs */
	bool		rdma;
	/* the largest data segment one received message can hold, 0: any */
	u32		max_recv_dsl;
	/* bytes of the transport's own state per connection and command */
	size_t		conn_size;
	size_t		cmd_size;

	/*
	 * Listen on @portal's address (kt_iscsi_portal_addr()): TCP for as
	 * long as the portal lives, rdma while one of its network portals
	 * has iser=1. The listener, or an ERR_PTR (the transport logs why it
	 * cannot listen). Connections it accepts are made with
	 * kt_iscsi_conn_alloc().
	 */
	void		*(*listen)(struct kt_iscsi_portal *portal);
	/*
	 * Stop: once this returns no connection is being accepted or will
	 * be, and nothing of the listener's runs; the portal may go next.
	 */
	void		(*unlisten)(void *listener);

	/*
	 * Send one PDU: @bhs, then @len bytes of @data or of @sgl from
	 * @sg_off. @more: another PDU follows at once.
	 */
	int		(*xmit)(struct kt_iscsi_conn *conn, const u8 *bhs,
				const void *data, struct scatterlist *sgl,
				u32 sg_off, u32 len, bool more);
	/* optional: the queue is empty; send what @more held back */
	void		(*flush)(struct kt_iscsi_conn *conn);
	/*
	 * optional: a PDU sent now goes without waiting for the initiator
	 * to read (the fabric then sends an R2T from its receive context)
	 */
	bool		(*writeable)(struct kt_iscsi_conn *conn);
	/*
	 * optional: receive what has arrived (process context, the
	 * connection's receive work); -errno closes the connection
	 */
	int		(*receive)(struct kt_iscsi_conn *conn);

	/* rdma: a SCSI Command PDU is being received; note its buffers */
	void		(*cmd_init)(struct kt_iscsi_conn *conn,
				    struct kt_iscsi_cmd *cmd);
	/*
	 * rdma: fetch the write data of bytes @from to @to, then call
	 * kt_iscsi_cmd_data_fetched()
	 */
	int		(*get_data)(struct kt_iscsi_conn *conn,
				    struct kt_iscsi_cmd *cmd, u32 from, u32 to);
	/*
	 * rdma: send a command's read data when @data, then the SCSI
	 * Response in @bhs with @len bytes of @sense. On success the
	 * transport owns the fabric's command reference and puts it
	 * (kt_cmd_put()) when both are done.
	 */
	int		(*put_data)(struct kt_iscsi_conn *conn,
				    struct kt_iscsi_cmd *cmd, bool data,
				    const u8 *bhs, const void *sense, u32 len);

	/* stop moving data: nothing is received or sent after this */
	void		(*shutdown)(struct kt_iscsi_conn *conn);
	/* free what the transport holds for @conn (process context) */
	void		(*release)(struct kt_iscsi_conn *conn);
	/* the local address the initiator dialled */
	int		(*local_addr)(struct kt_iscsi_conn *conn,
				      struct sockaddr_storage *ss);
};

int kt_iscsi_transport_register(const struct kt_iscsi_transport *t);
/* Only once none of its connections and listeners is left. */
void kt_iscsi_transport_unregister(const struct kt_iscsi_transport *t);

/* ---- connections ---- */

/*
 * A new connection from @peer to @portal, with one reference; start it
 * with kt_iscsi_conn_start() once the transport can move its PDUs.
 * -ESHUTDOWN: the portal is going (its listener is being stopped).
 */
struct kt_iscsi_conn *kt_iscsi_conn_alloc(struct kt_iscsi_portal *portal,
					  const struct kt_iscsi_transport *t,
					  const struct sockaddr_storage *peer);
/* Arm the login; on failure the caller puts the connection. */
int kt_iscsi_conn_start(struct kt_iscsi_conn *conn);
void kt_iscsi_conn_get(struct kt_iscsi_conn *conn);
void kt_iscsi_conn_put(struct kt_iscsi_conn *conn);
/* End the connection: shutdown, then release once the last put comes. */
void kt_iscsi_conn_close(struct kt_iscsi_conn *conn);
/* The transport's conn_size bytes. */
void *kt_iscsi_conn_priv(struct kt_iscsi_conn *conn);
/* Queue the connection's receive (->receive) or transmit work. */
void kt_iscsi_conn_rx_kick(struct kt_iscsi_conn *conn);
void kt_iscsi_conn_tx_kick(struct kt_iscsi_conn *conn);

#define KT_ISCSI_DIGEST_HEADER	BIT(0)	/* CRC32C, RFC 7143 13.1 */
#define KT_ISCSI_DIGEST_DATA	BIT(1)
/* The digests in use on @conn (they change once, at login's end). */
unsigned int kt_iscsi_conn_digests(const struct kt_iscsi_conn *conn);

const struct sockaddr_storage *
kt_iscsi_portal_addr(const struct kt_iscsi_portal *portal);
/*
 * A listener's accept work: queue @work where the connections it accepts
 * will run (on this CPU, with their receive and transmit work). Any
 * context. ktarget_iscsi's own TCP listener's: not exported.
 */
void kt_iscsi_accept_kick(struct work_struct *work);

/* ---- receiving ---- */

/* A message transport: one whole PDU; -errno closes the connection. */
int kt_iscsi_rx_pdu(struct kt_iscsi_conn *conn, const u8 *pdu, u32 len);

/*
 * A stream transport, in the connection's receive work. The header
 * (@bhs, its AHS read and dropped, its digest checked) is in: 0 and the
 * data segment's length in @data_len; 1 when it must wait for its CmdSN
 * (the receive is kicked later: call again with the same header); -errno
 * to close the connection.
 */
int kt_iscsi_rx_header(struct kt_iscsi_conn *conn, const u8 *bhs,
		       u32 *data_len);
/*
 * Where data bytes @off.. of the current PDU go (@left of them still to
 * come): @room contiguous bytes at the pointer returned, or NULL when
 * those @room bytes are to be read and dropped.
 */
void *kt_iscsi_rx_data(struct kt_iscsi_conn *conn, u32 off, u32 left,
		       u32 *room);
/* The data digest of the current PDU did not match (RFC 7143 7.8). */
void kt_iscsi_rx_data_bad(struct kt_iscsi_conn *conn);
/* All of the current PDU is in: act on it. */
void kt_iscsi_rx_end(struct kt_iscsi_conn *conn);
/*
 * Between PDUs: true while answers the initiator has not read pile up;
 * stop receiving, and the fabric kicks the receive when they drain.
 */
bool kt_iscsi_rx_paused(struct kt_iscsi_conn *conn);

/* ---- commands (rdma) ---- */

/* The transport's cmd_size bytes, and back. */
void *kt_iscsi_cmd_priv(struct kt_iscsi_cmd *cmd);
struct kt_iscsi_cmd *kt_iscsi_priv_cmd(void *priv);
struct kt_iscsi_conn *kt_iscsi_cmd_conn(struct kt_iscsi_cmd *cmd);
/* the SCSI command: its data buffer (sgl, sg_nents) and data_length */
struct kt_cmd *kt_iscsi_cmd_se(struct kt_iscsi_cmd *cmd);
u32 kt_iscsi_cmd_itt(const struct kt_iscsi_cmd *cmd);
/*
 * get_data's fetch is over: the command goes on, or with !@ok ends with
 * ABORTED COMMAND (the transport closes the connection). Not at the same
 * time as the connection's own receive (iSER: both run from one CQ).
 */
void kt_iscsi_cmd_data_fetched(struct kt_iscsi_cmd *cmd, bool ok);

#endif /* KTARGET_ISCSI_TRANSPORT_H */
