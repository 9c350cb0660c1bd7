/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_isert: iSER (RFC 7145) for ktarget_iscsi over the kernel RDMA
 * core. rdma_cm sets connections up; iSCSI control PDUs travel as SEND
 * messages with an iSER header in front; command data moves with
 * RDMA READ / WRITE through the rdma_rw API.
 */
#ifndef KTARGET_ISERT_H
#define KTARGET_ISERT_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>

#include <ktarget/cmd.h>
#include <ktarget/iscsi_transport.h>
#include <ktarget/proto/iscsi_pdu.h>

/* RFC 7145 9.2: the iSER header in front of every iSCSI PDU */
#define KT_ISER_HDR_LEN		28
#define KT_ISER_CTRL		0x10	/* iSCSI control-type PDU */
#define KT_ISER_HELLO		0x20
#define KT_ISER_WSV		0x08	/* write STag valid */
#define KT_ISER_RSV		0x04	/* read STag valid */
/* private data of the CM accept (Linux iSER: struct iser_cm_hdr) */
#define KT_ISER_ZBVA_NOT_USED	0x80
#define KT_ISER_SEND_INV_NOT_USED 0x40

/* what one receive buffer holds: header, BHS, a little AHS, data */
#define KT_ISER_MAX_RECV_DSL	8192
#define KT_ISER_MAX_AHS		256
#define KT_ISER_RX_LEN		(KT_ISER_HDR_LEN + KT_ISCSI_BHS_LEN + \
				 KT_ISER_MAX_AHS + KT_ISER_MAX_RECV_DSL)
#define KT_ISER_NR_RX		128	/* as the initiators post */
#define KT_ISER_MAX_SEND	512	/* SENDs in flight */
#define KT_ISER_RDMA_CTXS	128	/* commands moving data at once */
#define KT_ISER_CQ_LEN		2048

/* A listener on one portal address. */
/*
 * lock guards cm_id and stopping, and is never held across an rdma_cm
 * call: the listener's event handler takes it under the cm_id's
 * handler_mutex. setup serializes the attempts to listen (the first one
 * and the relisten work's).
 */
struct kt_iser_listener {
	struct kt_iscsi_portal	*portal;
	struct mutex		lock;		/* cm_id, stopping */
	struct mutex		setup;		/* one listen attempt at a time */
	struct rdma_cm_id	*cm_id;		/* NULL while waiting for a device */
	struct delayed_work	relisten;	/* after the device went away */
	bool			stopping;
};

struct kt_iser_rx {
	struct ib_cqe		cqe;
	struct kt_iser_conn	*ic;
	u64			dma;
	u8			*buf;
};

/* One connection: the RDMA side of a struct kt_iscsi_conn. */
struct kt_iser_conn {
	struct kref		kref;		/* the iSCSI conn's, the cm_id's */
	struct kt_iscsi_conn	*conn;
	struct rdma_cm_id	*cm_id;
	struct sockaddr_storage	local;		/* the cm_id's, kept */
	struct ib_device	*dev;
	struct ib_pd		*pd;
	struct ib_cq		*cq;
	struct ib_qp		*qp;
	u32			port;
	struct kt_iser_rx	*rx;

	spinlock_t		post_lock;	/* posting vs. shutdown */
	bool			down;		/* nothing is posted any more */
	struct completion	drained;	/* shutdown finished */

	struct mutex		res_lock;	/* QP, CQ, PD, buffers */
	bool			res_freed;
	bool			released;	/* the iSCSI conn let go */
	bool			dev_removed;	/* rdma_cm destroys the cm_id */

	/* the iSER header of the PDU being received */
	u8			rx_flags;
	u32			write_stag;
	u64			write_va;
	u32			read_stag;
	u64			read_va;
};

/* Per command: the transport area of a struct kt_iscsi_cmd. */
struct kt_iser_cmd {
	struct ib_cqe		cqe;
	struct rdma_rw_ctx	rw;
	struct scatterlist	*trim_sg;	/* last entry, shortened */
	u32			trim_len;	/* its real length */
	u32			nents;
	u8			flags;		/* WSV / RSV */
	bool			rw_live;
	u32			write_stag;
	u32			read_stag;
	u64			write_va;
	u64			read_va;
	u64			rsp_dma;
	struct ib_sge		sge;
	struct ib_send_wr	send;
	u8			rsp[KT_ISER_HDR_LEN + KT_ISCSI_BHS_LEN +
				    2 + KT_SENSE_MAX_LEN];
};

static inline struct kt_iser_cmd *kt_iser_cmd(struct kt_iscsi_cmd *cmd)
{
	return kt_iscsi_cmd_priv(cmd);
}

static inline struct kt_iscsi_cmd *kt_iser_icmd(struct kt_iser_cmd *c)
{
	return kt_iscsi_priv_cmd(c);
}

/* cm.c */
void *kt_iser_listen(struct kt_iscsi_portal *portal);
void kt_iser_unlisten(void *listener);
void kt_iser_conn_put(struct kt_iser_conn *ic);
void kt_iser_free_res(struct kt_iser_conn *ic);
extern struct workqueue_struct *kt_iser_wq;

/* io.c */
extern const struct kt_iscsi_transport kt_iser_transport;
int kt_iser_post_rx_all(struct kt_iser_conn *ic);
int kt_iser_alloc_rx(struct kt_iser_conn *ic);
void kt_iser_free_rx(struct kt_iser_conn *ic);

#endif /* KTARGET_ISERT_H */
