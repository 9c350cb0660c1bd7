/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_iscsi: connections, sessions and commands at run time.
 */
#ifndef KTARGET_ISCSI_CONN_H
#define KTARGET_ISCSI_CONN_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/net.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <ktarget/iscsi_transport.h>
#include <ktarget/objects.h>

#include "iscsi.h"

#define KT_ISCSI_LOGIN_BUF	8192	/* login and text data, one sequence */
#define KT_ISCSI_FIRST_PDU_SECS	5	/* a new connection's first login PDU */
#define KT_ISCSI_LOGIN_SECS	15	/* a login, until its TPG's is known */
#define KT_ISCSI_MAX_KEYS	64

/* What the session and connection agreed on (RFC 7143 13). */
struct kt_iscsi_nego {
	u32	max_recv_dsl;		/* ours: what the initiator may send us */
	u32	max_xmit_dsl;		/* the initiator's MaxRecvDataSegmentLength */
	u32	max_burst;
	u32	first_burst;
	u32	max_r2t;
	u16	time2wait;
	u16	time2retain;
	bool	initial_r2t;
	bool	immediate_data;
	bool	header_digest;
	bool	data_digest;
	bool	data_pdu_in_order;
	bool	data_seq_in_order;
	u8	erl;
	u16	max_conns;		/* MaxConnections */
};

/* An iSCSI session: one I_T nexus, one or more connections. */
struct kt_iscsi_sess {
	struct kt_session	se;
	struct kt_iscsi_tpg	*tpg;		/* NULL for discovery */
	/* its connections' and its commands' (a command may outlive both) */
	struct kref		kref;
	struct work_struct	free_work;
	struct list_head	node;		/* kt_iscsi_sessions */
	struct list_head	conns;
	unsigned int		nr_conns;
	spinlock_t		lock;		/* conns, CmdSN window */
	u8			isid[6];
	u16			tsih;
	bool			discovery;
	bool			registered;	/* with the core */
	bool			closing;
	u32			exp_cmdsn;
	u32			ready_sn;	/* CmdSNs before it reached the core */
	u32			cmdsn_depth;
	/* slots of the CmdSN window held: commands taken in, not answered */
	atomic_t		window_used;
	atomic_t		immediate_used;	/* the same of immediate commands */
	struct kt_iscsi_nego	nego;
	char			initiator[KT_INITIATOR_NAME_LEN];
	char			target[KT_INITIATOR_NAME_LEN];
};

/*
 * A text sequence in full feature phase (RFC 7143 11.10, 11.11): a request
 * gathered over PDUs with the C bit, an answer longer than one PDU sent a
 * part per Text Request; text.c's, on the receive side only.
 */
struct kt_iscsi_text_reply {
	u8	*buf;		/* kvmalloc'ed answer, NULL when none */
	u32	len;
	u32	off;		/* sent so far */
	u8	*req;		/* a request's text while it comes with C=1 */
	u32	req_len;
	u32	itt;
	u32	ttt;		/* of the response sent last */
	bool	open;		/* that response invited a follow-on request */
	bool	final;		/* the request being answered had the F bit */
};

enum kt_iscsi_conn_state {
	KT_CONN_LOGIN,
	KT_CONN_FFP,
	KT_CONN_LOGOUT,		/* logout answered: close after sending */
	KT_CONN_CLOSING,
	KT_CONN_DEAD,
};

/* The PDU being received, as the fabric decoded its header. */
struct kt_iscsi_rx {
	u8			bhs[KT_ISCSI_BHS_LEN];
	struct kt_iscsi_bhs	hdr;
	/* where the data segment goes */
	u8			*buf;		/* a linear buffer, or */
	struct kt_iscsi_cmd	*cmd;		/* a command's scatterlist ... */
	u32			cmd_off;	/* ... at this buffer offset, */
	u32			cmd_cap;	/* ... and bytes beyond this dropped */
	bool			discard;	/* read the data and drop it */
	bool			skip;		/* and do not act on the PDU */
	struct kt_iscsi_cmd	*pdu_cmd;	/* the SCSI Command being received */
	/* a Data-Out's command, referenced until its PDU is done */
	struct kt_iscsi_cmd	*held;
};

/*
 * One connection. The transport's conn_size bytes follow it
 * (kt_iscsi_conn_priv()).
 */
struct kt_iscsi_conn {
	struct kref		kref;
	const struct kt_iscsi_transport *xport;
	struct kmem_cache	*cmd_cache;	/* the transport's commands */
	struct kt_iscsi_sess	*sess;
	struct kt_iscsi_portal	*portal;
	struct list_head	sess_node;
	enum kt_iscsi_conn_state state;
	u16			cid;
	bool			logged_out;	/* not a failure: ERL 0 goes on */
	struct sockaddr_storage	peer;		/* the initiator's address */
	bool			cmdsn_wait;	/* MC/S: a PDU waits for its CmdSN */
	u32			stat_sn;
	u32			exp_stat_sn;
	struct kt_iscsi_nego	nego;		/* copy used on this connection */

	struct work_struct	rx_work;
	struct task_struct	*rx_task;	/* receiving, else NULL */
	struct work_struct	tx_work;
	struct work_struct	close_work;
	struct work_struct	free_work;
	int			cpu;		/* where rx and tx work runs */

	struct kt_iscsi_rx	rx;
	u8			*rx_buf;	/* data of non-SCSI PDUs */
	u32			rx_buf_len;

	spinlock_t		tx_lock;	/* tx_queue, commands' pending bits */
	struct list_head	tx_queue;	/* kt_iscsi_tx */
	struct mutex		tx_mutex;	/* one sender at a time */
	/* bytes of queued PDUs that are no command's (NOP-In, Text, Reject) */
	atomic_long_t		tx_bytes;
	bool			rx_throttled;	/* receiving stopped for tx_bytes */

	struct xarray		cmds;		/* ITT -> command awaiting Data-Out */
	u32			next_ttt;
	struct kt_iscsi_text_reply text;

	/* login */
	struct kt_iscsi_login	*login;
	struct timer_list	login_timer;
	unsigned long		login_start;	/* jiffies */

	/* keepalive (keepalive.c) */
	struct timer_list	nopin_timer;
	struct work_struct	nopin_work;
	/* dataout_timer.c: commands waiting for Data-Out too long */
	struct timer_list	dataout_timer;
	struct work_struct	dataout_work;
	u16			dataout_timeout;	/* s, 0: none */
	unsigned long		last_rx;	/* jiffies of the last PDU in */
	unsigned long		nopin_sent;	/* jiffies of the ping, if any */
	u32			nopin_ttt;	/* of the ping awaiting its answer */
	bool			nopin_waiting;
	u16			nopin_timeout;	/* s of silence before a ping, 0: off */
	u16			nopin_rsp_timeout; /* s to answer it */
};

/* A PDU waiting to be sent. Commands embed theirs; others are allocated. */
struct kt_iscsi_tx {
	struct list_head	node;
	u8			kind;		/* KT_TX_* */
	bool			statsn;		/* takes the next StatSN when sent */
	u8			bhs[KT_ISCSI_BHS_LEN];
	u8			*data;		/* KT_TX_PDU: owned, kfree'd */
	u32			data_len;
};

enum {
	KT_TX_PDU,		/* bhs + data as they are */
	KT_TX_DATA_IN,		/* a command's Data-In PDUs and status */
	KT_TX_STATUS,		/* a command's SCSI Response */
	KT_TX_R2T,		/* a command's next R2Ts */
};

/* A SCSI command received on a connection. */
struct kt_iscsi_cmd {
	struct kt_cmd		se;
	struct kt_iscsi_conn	*conn;
	struct kt_iscsi_tx	tx;
	u64			lun_field;	/* as the initiator sent it */
	u32			itt;
	u32			ttt;
	u32			cmdsn;
	u32			data_sn;	/* next DataSN / R2TSN */
	u32			r2t_sn;
	u32			r2t_offset;	/* next byte to ask for */
	u32			r2t_outstanding;
	u32			write_end;	/* bytes the initiator will send */
	bool			in_xa;		/* in conn->cmds */
	atomic_t		*slot;		/* the session's count it is in */
	bool			queued;		/* tx is on conn->tx_queue */
	bool			silent;		/* aborted: no response is sent */
	bool			data_bad;	/* a Data-Out was lost or corrupt */
	u32			exp_datasn;	/* next Data-Out DataSN */
	u8			pending;	/* BIT(KT_TX_*) still to send */
	sense_reason_t		setup_reason;	/* kt_cmd_setup() refused it */
	u32			imm_len;	/* immediate data in the command PDU */
	unsigned long		data_at;	/* jiffies: last Data-Out or R2T */
	u8			sense_pdu[2 + KT_SENSE_MAX_LEN];
	/* the transport's cmd_size bytes follow (kt_iscsi_cmd_priv()) */
};

static inline size_t kt_iscsi_cmd_size(const struct kt_iscsi_transport *t)
{
	return sizeof(struct kt_iscsi_cmd) + t->cmd_size;
}

/* conn.c: a connection's life; the transport interface's conn functions */
extern struct workqueue_struct *kt_iscsi_wq;
extern struct workqueue_struct *kt_iscsi_close_wq;
void kt_iscsi_flush(void);
/* The allowed CPU online after @cpu, wrapping around; @cpu when none. */
int kt_iscsi_next_cpu(int cpu);

/* transport.c */
struct kmem_cache *kt_iscsi_transport_cmds(const struct kt_iscsi_transport *t);
const struct kt_iscsi_transport *kt_iscsi_transport_rdma_get(void);
/*
 * tcp/tcp.c: the TCP transport, registered for the module's life (main.c);
 * every portal listens through it (portal.c).
 */
extern const struct kt_iscsi_transport kt_iscsi_tcp;

/* tx.c: the transmit queue */
void kt_iscsi_queue_tx(struct kt_iscsi_conn *conn, struct kt_iscsi_tx *tx);
void kt_iscsi_tx_work(struct work_struct *work);
/* A dead connection's queue: drop what is left (close work). */
void kt_iscsi_tx_drop_all(struct kt_iscsi_conn *conn);
void kt_iscsi_stamp(struct kt_iscsi_conn *conn, u8 *bhs, bool statsn);
int kt_iscsi_send_pdu(struct kt_iscsi_conn *conn, const u8 *bhs,
		      const void *data, u32 len);
int kt_iscsi_send_sg(struct kt_iscsi_conn *conn, const u8 *bhs,
		     struct scatterlist *sgl, u32 off, u32 len, bool more);

/* login.c */
int kt_iscsi_login_start(struct kt_iscsi_conn *conn);
void kt_iscsi_login_pdu(struct kt_iscsi_conn *conn);
void kt_iscsi_login_free(struct kt_iscsi_conn *conn);

/* login_limit.c */
int kt_iscsi_login_admit(const struct sockaddr_storage *peer);
void kt_iscsi_login_leave(const struct sockaddr_storage *peer);

/* session.c */
#define KT_ISCSI_LOGOUT_GRACE	2	/* s an initiator has to log out when asked */
u32 kt_iscsi_sess_max_cmdsn(struct kt_iscsi_sess *sess);
void kt_iscsi_sess_put(struct kt_iscsi_sess *sess);
bool kt_iscsi_sess_reinstate(const u8 *isid, const char *initiator,
			     const struct kt_iscsi_tpg *tpg,
			     struct kt_iscsi_conn *conn);
int kt_iscsi_sess_close_conns(struct kt_iscsi_sess *sess,
			      struct kt_iscsi_conn *keep, int cid, bool logout);
void kt_iscsi_conn_close_after_tx(struct kt_iscsi_conn *conn);
void kt_iscsi_cold_reset(struct kt_iscsi_sess *own);
struct kt_iscsi_sess *kt_iscsi_sess_find(const u8 *isid, u16 tsih,
					 const char *initiator,
					 const struct kt_iscsi_tpg *tpg);
struct kt_iscsi_sess *kt_iscsi_sess_create(bool discovery);
int kt_iscsi_sess_add_conn(struct kt_iscsi_sess *sess,
			   struct kt_iscsi_conn *conn, unsigned int max);
void kt_iscsi_sess_del_conn(struct kt_iscsi_conn *conn);
/* CmdSN: true when the command may run now (RFC 7143 4.2.2.1). */
bool kt_iscsi_cmdsn_wait(struct kt_iscsi_conn *conn);
/* immediate commands one session may have taken in and not answered */
#define KT_ISCSI_IMMEDIATE_MAX	16

enum kt_iscsi_window {
	KT_WINDOW_TAKEN,	/* a slot is held until the command is answered */
	KT_WINDOW_OUTSIDE,	/* not ExpCmdSN, or beyond MaxCmdSN: ignore it */
	KT_WINDOW_FULL,		/* immediate, and no slot free: TASK SET FULL */
};

enum kt_iscsi_window kt_iscsi_window_take(struct kt_iscsi_sess *sess,
					  u32 cmdsn, bool immediate,
					  atomic_t **slot);
void kt_iscsi_cmdsn_ready(struct kt_iscsi_conn *conn, u32 cmdsn);
bool kt_iscsi_cmdsn_check(struct kt_iscsi_conn *conn, u32 cmdsn,
			  bool immediate);

/* requests.c: the full feature phase's requests */
void kt_iscsi_ffp_pdu(struct kt_iscsi_conn *conn);
int kt_iscsi_ffp_data_dest(struct kt_iscsi_conn *conn);
void kt_iscsi_rx_put_cmd(struct kt_iscsi_conn *conn, bool acted);
void kt_iscsi_conn_abort_cmds(struct kt_iscsi_conn *conn);

/* responses.c: what goes back */
void kt_iscsi_send_reject(struct kt_iscsi_conn *conn, u8 reason);
/* Ask for @kind (KT_TX_*) of @cmd to be sent (any context). */
void kt_iscsi_cmd_queue(struct kt_iscsi_cmd *cmd, u8 kind);
void kt_iscsi_cmd_tx(struct kt_iscsi_conn *conn, struct kt_iscsi_cmd *cmd,
		     bool more);
/* Build and stamp @cmd's SCSI Response; its data is cmd->sense_pdu. */
int kt_iscsi_build_status(struct kt_iscsi_conn *conn, struct kt_iscsi_cmd *cmd,
			  u8 *bhs, u32 *len);

/* main.c: live counts, in /sys/kernel/debug/ktarget/objects */
enum kt_iscsi_obj {
	KT_ISCSI_OBJ_CONN,
	KT_ISCSI_OBJ_LOGIN,
	KT_ISCSI_OBJ_SESS,
	KT_ISCSI_OBJ_CMD,
	KT_ISCSI_OBJ_TMF,
	KT_ISCSI_OBJ_NR
};

extern struct kt_obj_count kt_iscsi_objs[KT_ISCSI_OBJ_NR];

/* responses.c: a PDU of its own, @data owned by the queue (kfree'd) */
void kt_iscsi_queue_pdu(struct kt_iscsi_conn *conn, const u8 *bhs,
			void *data, u32 len, bool statsn);

/* keepalive.c: NOP-In pings on a quiet connection (RFC 7143 11.19) */
#define KT_ISCSI_TTT_R2T_MASK	0x7fffffff
void kt_iscsi_keepalive_init(struct kt_iscsi_conn *conn);
void kt_iscsi_keepalive_start(struct kt_iscsi_conn *conn, u16 timeout,
			      u16 rsp_timeout);
void kt_iscsi_keepalive_stop(struct kt_iscsi_conn *conn);
void kt_iscsi_keepalive_answer(struct kt_iscsi_conn *conn, u32 ttt);

/* dataout_timer.c: the Data-Out timeout (ERL 0: the connection ends) */
void kt_iscsi_dataout_init(struct kt_iscsi_conn *conn);
void kt_iscsi_dataout_watch(struct kt_iscsi_conn *conn);
void kt_iscsi_dataout_stop(struct kt_iscsi_conn *conn);

/* tmf.c */
void kt_iscsi_tmf_req(struct kt_iscsi_conn *conn);

/* text.c: Text Requests in full feature phase */
void kt_iscsi_text(struct kt_iscsi_conn *conn);
void kt_iscsi_text_drop(struct kt_iscsi_conn *conn);

/*
 * discovery.c: the SendTargets answer appended at *@len; with no @buf only
 * its length is added. -ENOSPC: cut after the last target that fit.
 */
int kt_iscsi_sendtargets(struct kt_iscsi_conn *conn, u8 *buf, size_t size,
			 size_t *len, const u8 *what, size_t what_len);

#endif /* KTARGET_ISCSI_CONN_H */
