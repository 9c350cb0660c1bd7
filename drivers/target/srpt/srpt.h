/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_srpt: the SCSI RDMA Protocol target fabric (SRP r16a, the ABI of
 * LIO's ib_srpt, the target side of Linux's ib_srp). Initiators log in
 * through rdma_cm on the port rdma_cm_port (the SRP_LOGIN_REQ is the
 * connect request's private data, the SRP_LOGIN_RSP or SRP_LOGIN_REJ the
 * accept's or reject's); each RDMA connection is a channel and an I_T
 * nexus of its own, as in ib_srpt. Request IUs arrive as SENDs into
 * posted receive buffers, data moves with RDMA READ and WRITE (rdma_rw),
 * SRP_RSP goes back as a SEND. This folder knows the core only through
 * <ktarget/fabric.h>, <ktarget/cmd.h> and <ktarget/objects.h>:
 *
 *	main.c		module init and exit, parameters, the ops table
 *	configfs.c	target/srpt/{PORT, discovery_auth/rdma_cm_port},
 *			tpgt_N/attrib/, the TPG's channel lists
 *	cm.c		the rdma_cm listener and the events of a channel
 *	conn.c		login checks, a channel's set-up and teardown
 *	rx.c		receive buffers, credits, IUs by opcode, logout
 *	parse.c		SRP_CMD's CDB and data descriptors (pure)
 *	cmd.c		SRP_CMD: data transfer, SRP_RSP
 *	tmf.c		SRP_TSK_MGMT to the core's TMFs and back
 */
#ifndef KTARGET_SRPT_SRPT_H
#define KTARGET_SRPT_SRPT_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>
#include <scsi/srp.h>

#include <ktarget/cmd.h>
#include <ktarget/fabric.h>
#include <ktarget/objects.h>

#include "parse.h"

#define KT_SRPT_PROTO_SRP	4	/* SPC-4 7.6.1: SCSI RDMA Protocol */

/* SRP r16a 6.2: the smallest IU an initiator may ask for */
#define KT_SRPT_MIN_IU_LEN	64
/* srp_max_req_size: ib_srpt's bounds and default (ib_srp asks for 8276) */
#define KT_SRPT_MIN_REQ_SIZE	996
#define KT_SRPT_DEF_REQ_SIZE	8276
#define KT_SRPT_MAX_REQ_SIZE	65536
/* srp_max_rsp_size */
#define KT_SRPT_MIN_RSP_SIZE	(sizeof(struct srp_rsp) + 4)
#define KT_SRPT_DEF_RSP_SIZE	256
#define KT_SRPT_MAX_RSP_SIZE	1024
/* receive buffers of a channel (ib_srpt's MAX_SRPT_RQ_SIZE) */
#define KT_SRPT_RQ_SIZE		128
/* srp_sq_size: send queue entries of a channel */
#define KT_SRPT_MIN_SQ_SIZE	16
#define KT_SRPT_DEF_SQ_SIZE	4096
/* send queue entries beyond srp_sq_size, for TMF answers (ch->tmf_avail) */
#define KT_SRPT_SQ_RESERVE	16
/* channels in all: each holds about rq_size * srp_max_req_size bytes */
#define KT_SRPT_MAX_CHANNELS	256
/* what an SRP_RSP of ours carries at most: sense, or a TMF's 4 bytes */
#define KT_SRPT_RSP_LEN		(sizeof(struct srp_rsp) + KT_SENSE_MAX_LEN + 4)
/* how long a wait goes before it says what it waits for, again */
#define KT_SRPT_WAIT_WARN	(30 * HZ)

/* module parameters (main.c) */
extern unsigned int kt_srpt_max_req_size;
extern u64 kt_srpt_service_guid;
extern int kt_srpt_sq_size;

/* target/srpt/PORT: a port's GUID or GID */
struct kt_srpt_tport {
	struct kt_wwn		wwn;
	u8			id[16];		/* GID; a GUID in bytes 8..15 */
	bool			is_guid;
	struct list_head	node;		/* kt_srpt_tports */
	struct list_head	tpgs;
};

/* PORT/tpgt_N */
struct kt_srpt_tpg {
	struct kt_tpg		tpg;
	struct kt_srpt_tport	*tport;
	struct list_head	node;		/* tport->tpgs */
	struct list_head	channels;	/* under kt_srpt_lock */
	bool			closed;		/* no login joins it */
	/* attrib/ */
	u32			max_req_size;
	u32			max_rsp_size;
	u32			sq_size;
};

enum kt_srpt_ch_state {
	KT_SRPT_CH_CONNECTING,		/* accepted, not yet established */
	KT_SRPT_CH_LIVE,
	KT_SRPT_CH_CLOSING,		/* the close work owns it */
};

struct kt_srpt_ch;

/* A receive buffer, posted while it is not being read. */
struct kt_srpt_rx {
	struct ib_cqe		cqe;
	struct kt_srpt_ch	*ch;
	struct list_head	node;		/* ch->early */
	u32			len;		/* what arrived */
	u64			dma;
	u8			*buf;
};

/* One SEND of ours (SRP_RSP), inside the command or TMF it answers. */
struct kt_srpt_send {
	struct ib_cqe		cqe;
	struct ib_sge		sge;
	struct ib_send_wr	wr;
	u64			dma;
	bool			mapped;
	u8			buf[KT_SRPT_RSP_LEN] __aligned(8);
};

/* A channel: one RDMA connection, one I_T nexus. */
struct kt_srpt_ch {
	struct kref		kref;		/* the cm_id's, the close's */
	struct rdma_cm_id	*cm_id;
	struct ib_device	*dev;
	u32			port;
	struct ib_pd		*pd;
	struct ib_cq		*cq;
	struct ib_qp		*qp;
	struct kt_srpt_rx	*rx;
	u32			rq_size;
	u32			sq_size;
	u32			max_it_iu_len;
	u32			max_ti_iu_len;

	struct kt_srpt_tpg	*tpg;
	struct kt_session	sess;
	struct list_head	tpg_node;	/* tpg->channels */
	u8			i_port_id[16];
	u8			t_port_id[16];

	atomic_t		state;		/* enum kt_srpt_ch_state */
	struct work_struct	close_work;

	/* IUs that came before the connection was established */
	spinlock_t		early_lock;
	struct list_head	early;
	struct work_struct	early_work;

	spinlock_t		post_lock;	/* down, the SQ and TMF wait lists */
	bool			down;		/* nothing is posted any more */
	struct list_head	sq_wait;	/* commands waiting for room */
	struct work_struct	sq_work;
	atomic_t		sq_avail;	/* send queue entries free */
	/*
	 * Answers of commands that completed (queue_status, queue_data_in)
	 * and are not posted yet: TMF answers wait on tmf_wait until none
	 * is left, so that the send queue puts them behind that data.
	 */
	atomic_t		rsp_pending;
	struct list_head	tmf_wait;
	u32			tmf_avail;	/* of the SQ reserve, post_lock */

	/* SRP r16a 5.6: request limit */
	atomic_t		credits;	/* requests the initiator may send */
	atomic_t		credit_delta;	/* earned, not yet granted */
	/*
	 * SRP r16a 6.10: credits sent with no answer to carry them, one
	 * SRP_CRED_REQ at a time: cred_busy (post_lock) counts its send's
	 * completion and the SRP_CRED_RSP still to come
	 */
	struct kt_srpt_send	cred;
	u8			cred_busy;
	u64			cred_tag;

	atomic_t		live;		/* commands and TMFs not released */

	struct mutex		res_lock;	/* dev_removed, released */
	bool			dev_removed;	/* rdma_cm destroys the cm_id */
	bool			released;	/* the close destroys it */
	struct completion	freed;		/* QP and buffers gone */
};

/* What a command waits for when the send queue is full */
enum kt_srpt_op {
	KT_SRPT_OP_NONE,
	KT_SRPT_OP_FETCH,		/* RDMA READ of the write data */
	KT_SRPT_OP_DATA_IN,		/* RDMA WRITE of the read data, SRP_RSP */
	KT_SRPT_OP_RSP,			/* SRP_RSP alone */
};

/* A remote buffer of an SRP_CMD (SRP r16a 5.5.1) */
struct kt_srpt_desc {
	u64			va;
	u32			key;
	u32			len;
};

/* One SRP_CMD. */
struct kt_srpt_cmd {
	struct kt_cmd		cmd;
	struct kt_srpt_ch	*ch;
	u64			tag;		/* as the initiator sent it */
	struct work_struct	work;		/* the data-in, from the wq */
	struct list_head	wait_node;	/* ch->sq_wait */
	enum kt_srpt_op		op;
	u32			n_wr;		/* send queue entries it holds */
	struct ib_cqe		rw_cqe;		/* RDMA READ done */

	u32			ndesc;
	struct kt_srpt_desc	*desc;		/* desc1 or an array */
	struct kt_srpt_desc	desc1;

	/* rdma_rw: one context per remote buffer the data touches */
	struct rdma_rw_ctx	*rw;		/* and the arrays below */
	u32			nr_rw;		/* set up */
	struct scatterlist	*rw_sg;		/* slices of cmd.sgl */
	u32			*rw_nents;	/* per context */
	u32			*rw_first;	/* its first entry in rw_sg */
	enum dma_data_direction	rw_dir;

	struct kt_srpt_send	rsp;
};

static inline struct kt_srpt_cmd *to_srpt_cmd(struct kt_cmd *cmd)
{
	return container_of(cmd, struct kt_srpt_cmd, cmd);
}

static inline struct kt_srpt_tpg *to_srpt_tpg(struct kt_tpg *tpg)
{
	return container_of(tpg, struct kt_srpt_tpg, tpg);
}

enum {
	KT_SRPT_OBJ_CH,
	KT_SRPT_OBJ_CMD,
	KT_SRPT_OBJ_TMF,
	KT_SRPT_OBJ_NR,
};

extern struct kt_obj_count kt_srpt_objs[KT_SRPT_OBJ_NR];
extern const struct kt_fabric_ops kt_srpt_ops;
extern struct workqueue_struct *kt_srpt_wq;
extern struct workqueue_struct *kt_srpt_close_wq;
/* tports, their TPGs, the TPGs' channel lists and closed flags */
extern struct mutex kt_srpt_lock;
extern struct list_head kt_srpt_tports;

/* configfs.c */
struct kt_wwn *kt_srpt_make_wwn(const char *name);
void kt_srpt_drop_wwn(struct kt_wwn *wwn);
struct kt_tpg *kt_srpt_make_tpg(struct kt_wwn *wwn, u16 tag);
void kt_srpt_drop_tpg(struct kt_tpg *tpg);
int kt_srpt_tpg_enable(struct kt_tpg *tpg, bool enable);
void kt_srpt_close_acl(struct kt_node_acl *acl);
void kt_srpt_init_fabric_groups(struct config_group *root);
extern struct configfs_attribute *kt_srpt_tpg_attrib_attrs[];

/* cm.c */
int kt_srpt_listen(u16 port);
void kt_srpt_unlisten(void);
u16 kt_srpt_listen_port(void);
int kt_srpt_ch_cm_handler(struct rdma_cm_id *cm_id, struct rdma_cm_event *ev);

/* conn.c */
int kt_srpt_login(struct rdma_cm_id *cm_id, struct rdma_cm_event *ev);
void kt_srpt_ch_established(struct kt_srpt_ch *ch);
void kt_srpt_ch_close(struct kt_srpt_ch *ch);
int kt_srpt_ch_device_removed(struct kt_srpt_ch *ch);
void kt_srpt_ch_put(struct kt_srpt_ch *ch);
void kt_srpt_tpg_close(struct kt_srpt_tpg *tpg, struct kt_node_acl *acl,
		       bool shut);

/* rx.c */
int kt_srpt_alloc_rx(struct kt_srpt_ch *ch);
void kt_srpt_free_rx(struct kt_srpt_ch *ch);
int kt_srpt_post_rx_all(struct kt_srpt_ch *ch);
void kt_srpt_early_work(struct work_struct *work);
void kt_srpt_early_flush(struct kt_srpt_ch *ch);
u32 kt_srpt_grant(struct kt_srpt_ch *ch, u32 own);
void kt_srpt_credit_back(struct kt_srpt_ch *ch);
void kt_srpt_cred_kick(struct kt_srpt_ch *ch);

/* cmd.c */
void kt_srpt_handle_cmd(struct kt_srpt_ch *ch, const u8 *iu, u32 len);
void kt_srpt_write_pending(struct kt_cmd *cmd);
void kt_srpt_queue_data_in(struct kt_cmd *cmd);
void kt_srpt_queue_status(struct kt_cmd *cmd);
void kt_srpt_aborted(struct kt_cmd *cmd);
void kt_srpt_release_cmd(struct kt_cmd *cmd);
void kt_srpt_sq_work(struct work_struct *work);
void kt_srpt_sq_flush(struct kt_srpt_ch *ch);
void kt_srpt_sq_put(struct kt_srpt_ch *ch, u32 n);
void kt_srpt_rsp_posted_locked(struct kt_srpt_ch *ch);
void kt_srpt_live_put(struct kt_srpt_ch *ch);
int kt_srpt_send_map(struct kt_srpt_ch *ch, struct kt_srpt_send *s, u32 len,
		     void (*done)(struct ib_cq *cq, struct ib_wc *wc));
void kt_srpt_send_unmap(struct kt_srpt_ch *ch, struct kt_srpt_send *s);

/* tmf.c */
void kt_srpt_handle_tmf(struct kt_srpt_ch *ch, const u8 *iu, u32 len);
void kt_srpt_queue_tm_rsp(struct kt_tmr *tmr);
void kt_srpt_tmf_kick(struct kt_srpt_ch *ch);
void kt_srpt_tmf_flush(struct kt_srpt_ch *ch);

#endif /* KTARGET_SRPT_SRPT_H */
