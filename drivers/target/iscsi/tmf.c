// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: Task Management Function Request and Response (RFC 7143
 * 11.5, 11.6). The request becomes a core TMF; its answer comes back
 * through queue_tm_rsp once every task it aborted has ended.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>

#include <ktarget/proto/lun.h>

#include "conn.h"
#include "iscsi.h"

/*
 * The TMF holds its connection (the response goes there, or nowhere once
 * it closed) and its session: the core answers through se.sess, and its
 * tasks may take long after both the connection and the session closed.
 */
struct kt_iscsi_tmr {
	struct kt_tmr		se;
	struct kt_iscsi_conn	*conn;
	struct kt_iscsi_sess	*sess;
	u32			itt;
	u32			ref_cmdsn;
	bool			cold;	/* TARGET COLD RESET */
};

static const enum kt_tmf kt_iscsi_tmf_map[] = {
	[KT_ISCSI_TMF_ABORT_TASK]		= KT_TMF_ABORT_TASK,
	[KT_ISCSI_TMF_ABORT_TASK_SET]		= KT_TMF_ABORT_TASK_SET,
	[KT_ISCSI_TMF_CLEAR_ACA]		= KT_TMF_CLEAR_ACA,
	[KT_ISCSI_TMF_CLEAR_TASK_SET]		= KT_TMF_CLEAR_TASK_SET,
	[KT_ISCSI_TMF_LOGICAL_UNIT_RESET]	= KT_TMF_LUN_RESET,
	[KT_ISCSI_TMF_TARGET_WARM_RESET]	= KT_TMF_TARGET_WARM_RESET,
	/* the core resets; the sessions are dropped here afterwards */
	[KT_ISCSI_TMF_TARGET_COLD_RESET]	= KT_TMF_TARGET_WARM_RESET,
};

static void kt_iscsi_send_tm_rsp(struct kt_iscsi_conn *conn, u32 itt,
				 u8 response)
{
	struct kt_iscsi_tmf_rsp r = { .itt = itt, .response = response };
	u8 bhs[KT_ISCSI_BHS_LEN];

	if (!kt_iscsi_encode_tmf_rsp(bhs, &r))
		kt_iscsi_queue_pdu(conn, bhs, NULL, 0, true);
}

/*
 * A target reset ends every other initiator's tasks (and, cold, their
 * sessions): only an initiator whose ACL allows it may ask (LIO's
 * tmr_warm_reset and tmr_cold_reset, off by default). Demo-mode sessions
 * have no ACL and may not.
 */
static bool kt_iscsi_reset_allowed(struct kt_iscsi_conn *conn, u8 function)
{
	struct kt_node_acl *acl = conn->sess->se.acl;
	const char *name = function == KT_ISCSI_TMF_TARGET_COLD_RESET ?
			   "COLD" : "WARM";
	const char *attr = function == KT_ISCSI_TMF_TARGET_COLD_RESET ?
			   "tmr_cold_reset" : "tmr_warm_reset";
	u32 allowed = 0;

	if (acl) {
		const struct kt_iscsi_acl_attrib *a = &to_iscsi_acl(acl)->attrib;

		allowed = function == KT_ISCSI_TMF_TARGET_COLD_RESET ?
			  READ_ONCE(a->tmr_cold_reset) :
			  READ_ONCE(a->tmr_warm_reset);
	}
	if (!allowed)
		pr_warn_ratelimited("%s: TARGET %s RESET refused: %s (ACL attrib/%s=1 allows it)\n",
				    conn->sess->initiator, name,
				    acl ? "its ACL does not allow it" :
					  "a demo-mode session has no ACL",
				    attr);
	return allowed;
}

void kt_iscsi_tmf_req(struct kt_iscsi_conn *conn)
{
	const struct kt_iscsi_bhs *h = &conn->rx.hdr;
	u8 function = h->tmf.function;
	struct kt_iscsi_tmr *t;

	if (!h->immediate)
		kt_iscsi_cmdsn_check(conn, h->cmdsn, false);
	/* RFC 7143 4.3: a discovery session has no tasks, and no I_T nexus */
	if (conn->sess->discovery) {
		pr_warn_ratelimited("task management in a discovery session: rejected\n");
		kt_iscsi_send_reject(conn, KT_ISCSI_REJECT_PROTOCOL_ERROR);
		return;
	}
	if (function >= ARRAY_SIZE(kt_iscsi_tmf_map) ||
	    !kt_iscsi_tmf_map[function]) {
		kt_iscsi_send_tm_rsp(conn, h->itt,
				     KT_ISCSI_TMF_RSP_NOT_SUPPORTED);
		return;
	}
	if ((function == KT_ISCSI_TMF_TARGET_WARM_RESET ||
	     function == KT_ISCSI_TMF_TARGET_COLD_RESET) &&
	    !kt_iscsi_reset_allowed(conn, function)) {
		/* RFC 7143 11.6.1: 6, Task management function authorization failed */
		kt_iscsi_send_tm_rsp(conn, h->itt, KT_ISCSI_TMF_RSP_AUTH_FAILED);
		return;
	}
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t) {
		kt_iscsi_send_tm_rsp(conn, h->itt, KT_ISCSI_TMF_RSP_REJECTED);
		return;
	}
	kt_obj_inc(&kt_iscsi_objs[KT_ISCSI_OBJ_TMF]);
	kt_iscsi_conn_get(conn);
	t->conn = conn;
	t->sess = conn->sess;
	kref_get(&t->sess->kref);
	t->itt = h->itt;
	t->ref_cmdsn = h->tmf.ref_cmdsn;
	t->cold = function == KT_ISCSI_TMF_TARGET_COLD_RESET;
	t->se.sess = &t->sess->se;
	t->se.function = kt_iscsi_tmf_map[function];
	t->se.unpacked_lun = kt_lun_decode(h->lun);
	t->se.ref_tag = h->tmf.rtt;
	kt_tmr_submit(&t->se);
}

static u8 kt_iscsi_tm_response(struct kt_iscsi_tmr *t)
{
	struct kt_iscsi_sess *sess = t->sess;

	switch (t->se.response) {
	case KT_TMR_COMPLETE:
	case KT_TMR_SUCCEEDED:
		return KT_ISCSI_TMF_RSP_COMPLETE;
	case KT_TMR_INCORRECT_LUN:
		return KT_ISCSI_TMF_RSP_NO_LUN;
	case KT_TMR_TASK_DOES_NOT_EXIST:
		/*
		 * RFC 7143 11.5.1: a task whose CmdSN has not arrived yet is
		 * taken as received and aborted; one that has ended does not
		 * exist.
		 */
		if (!kt_iscsi_sn_lt(t->ref_cmdsn, READ_ONCE(sess->exp_cmdsn)))
			return KT_ISCSI_TMF_RSP_COMPLETE;
		return KT_ISCSI_TMF_RSP_NO_TASK;
	case KT_TMR_NOT_SUPPORTED:
		return KT_ISCSI_TMF_RSP_NOT_SUPPORTED;
	default:
		return KT_ISCSI_TMF_RSP_REJECTED;
	}
}

void kt_iscsi_queue_tm_rsp(struct kt_tmr *tmr)
{
	struct kt_iscsi_tmr *t = container_of(tmr, struct kt_iscsi_tmr, se);
	struct kt_iscsi_conn *conn = t->conn;
	u8 response = kt_iscsi_tm_response(t);

	kt_iscsi_send_tm_rsp(conn, t->itt, response);
	if (t->cold && response == KT_ISCSI_TMF_RSP_COMPLETE)
		kt_iscsi_cold_reset(t->sess);
	kt_iscsi_sess_put(t->sess);
	kfree(t);
	kt_obj_dec(&kt_iscsi_objs[KT_ISCSI_OBJ_TMF]);
	kt_iscsi_conn_put(conn);
}
