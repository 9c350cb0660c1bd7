// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: sessions. A session is found by (initiator, ISID, TSIH)
 * at login, owns the CmdSN window, and is the core's I_T nexus.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/unaligned.h>

#include "conn.h"

static LIST_HEAD(kt_iscsi_sessions);
static DEFINE_SPINLOCK(kt_iscsi_sessions_lock);
static DEFINE_IDA(kt_iscsi_tsih_ida);

/*
 * The last command of a session may end in a bio's completion: the session
 * leaves the core from a work item (module exit drains the workqueue).
 */
static void kt_iscsi_sess_free_work(struct work_struct *work)
{
	struct kt_iscsi_sess *sess = container_of(work, struct kt_iscsi_sess,
						  free_work);

	spin_lock(&kt_iscsi_sessions_lock);
	list_del(&sess->node);
	spin_unlock(&kt_iscsi_sessions_lock);
	if (sess->registered) {
		kt_session_unregister(&sess->se);
		atomic_dec(&sess->tpg->nr_sessions);
	}
	ida_free(&kt_iscsi_tsih_ida, sess->tsih);
	kfree(sess);
	kt_obj_dec(&kt_iscsi_objs[KT_ISCSI_OBJ_SESS]);
}

struct kt_iscsi_sess *kt_iscsi_sess_create(bool discovery)
{
	struct kt_iscsi_sess *sess;
	int tsih;

	sess = kzalloc(sizeof(*sess), GFP_KERNEL);
	if (!sess)
		return NULL;
	/* RFC 7143 11.12.6: TSIH 0 is reserved for a new session */
	tsih = ida_alloc_range(&kt_iscsi_tsih_ida, 1, 0xffff, GFP_KERNEL);
	if (tsih < 0) {
		kfree(sess);
		return NULL;
	}
	kt_obj_inc(&kt_iscsi_objs[KT_ISCSI_OBJ_SESS]);
	sess->tsih = tsih;
	sess->discovery = discovery;
	kref_init(&sess->kref);
	INIT_WORK(&sess->free_work, kt_iscsi_sess_free_work);
	INIT_LIST_HEAD(&sess->conns);
	INIT_LIST_HEAD(&sess->node);
	spin_lock_init(&sess->lock);
	return sess;
}

static void kt_iscsi_sess_release(struct kref *kref)
{
	struct kt_iscsi_sess *sess = container_of(kref, struct kt_iscsi_sess,
						  kref);

	queue_work(kt_iscsi_wq, &sess->free_work);
}

/* A reinstating login waits here for the old session's last task. */
static DECLARE_WAIT_QUEUE_HEAD(kt_iscsi_sess_idle_wq);
static atomic_t kt_iscsi_sess_waiters = ATOMIC_INIT(0);

void kt_iscsi_sess_put(struct kt_iscsi_sess *sess)
{
	kref_put(&sess->kref, kt_iscsi_sess_release);
	/* not @sess: it may be gone now */
	if (atomic_read(&kt_iscsi_sess_waiters))
		wake_up_all(&kt_iscsi_sess_idle_wq);
}

/*
 * An existing session of @initiator with @isid (and @tsih if not 0) on
 * @tpg (NULL: a discovery session). RFC 7143 4.4.3: a session is named by
 * the initiator, the ISID and the target portal group together; the same
 * ISID on another target is another session.
 */
struct kt_iscsi_sess *kt_iscsi_sess_find(const u8 *isid, u16 tsih,
					 const char *initiator,
					 const struct kt_iscsi_tpg *tpg)
{
	struct kt_iscsi_sess *sess, *found = NULL;

	spin_lock(&kt_iscsi_sessions_lock);
	list_for_each_entry(sess, &kt_iscsi_sessions, node) {
		if (sess->closing || sess->tpg != tpg ||
		    memcmp(sess->isid, isid, 6) ||
		    strcmp(sess->initiator, initiator) ||
		    (tsih && sess->tsih != tsih) ||
		    !kref_get_unless_zero(&sess->kref))
			continue;
		found = sess;
		break;
	}
	spin_unlock(&kt_iscsi_sessions_lock);
	return found;
}

/*
 * RFC 7143 6.3.5: a new session of @initiator with @isid on @tpg replaces
 * the old one (closing or not), which ends first: its connections close,
 * and the login waits until the old session's last task has left the
 * backstore (it holds the session's last reference but the one taken
 * here), so that no WRITE of the old session lands after one of the new.
 * False when @conn, the new login's, closed meanwhile (its login timeout).
 */
bool kt_iscsi_sess_reinstate(const u8 *isid, const char *initiator,
			     const struct kt_iscsi_tpg *tpg,
			     struct kt_iscsi_conn *conn)
{
	struct kt_iscsi_sess *sess, *old;

	for (;;) {
		old = NULL;
		spin_lock(&kt_iscsi_sessions_lock);
		list_for_each_entry(sess, &kt_iscsi_sessions, node) {
			if (sess->tpg == tpg && !memcmp(sess->isid, isid, 6) &&
			    !strcmp(sess->initiator, initiator) &&
			    kref_get_unless_zero(&sess->kref)) {
				old = sess;
				break;
			}
		}
		spin_unlock(&kt_iscsi_sessions_lock);
		if (!old)
			return true;
		kt_iscsi_sess_close_conns(old, NULL, -1, false);
		atomic_inc(&kt_iscsi_sess_waiters);
		while (kref_read(&old->kref) > 1 &&
		       READ_ONCE(conn->state) < KT_CONN_CLOSING)
			wait_event_idle_timeout(kt_iscsi_sess_idle_wq,
						kref_read(&old->kref) == 1, HZ);
		atomic_dec(&kt_iscsi_sess_waiters);
		kt_iscsi_sess_put(old);
		if (READ_ONCE(conn->state) >= KT_CONN_CLOSING)
			return false;
	}
}

/*
 * The connection has logged in: it joins @sess, whose reference it takes,
 * unless the session already has @max connections (0: no limit).
 */
int kt_iscsi_sess_add_conn(struct kt_iscsi_sess *sess,
			   struct kt_iscsi_conn *conn, unsigned int max)
{
	spin_lock(&sess->lock);
	if (sess->closing || (max && sess->nr_conns >= max)) {
		spin_unlock(&sess->lock);
		return -ESHUTDOWN;
	}
	list_add_tail(&conn->sess_node, &sess->conns);
	WRITE_ONCE(sess->nr_conns, sess->nr_conns + 1);
	conn->sess = sess;
	spin_unlock(&sess->lock);

	spin_lock(&kt_iscsi_sessions_lock);
	if (list_empty(&sess->node))
		list_add_tail(&sess->node, &kt_iscsi_sessions);
	spin_unlock(&kt_iscsi_sessions_lock);
	return 0;
}

/*
 * The connection is gone; the last one ends the session, and its tasks
 * are aborted (I_T nexus loss). At ERL 0 a connection that failed, rather
 * than logged out, ends it too (RFC 7143 7.1.5: session recovery): its
 * tasks are lost, and the initiator recovers by logging in anew.
 */
void kt_iscsi_sess_del_conn(struct kt_iscsi_conn *conn)
{
	struct kt_iscsi_sess *sess = conn->sess;
	struct kt_iscsi_conn *c;
	bool last;

	spin_lock(&sess->lock);
	list_del_init(&conn->sess_node);
	WRITE_ONCE(sess->nr_conns, sess->nr_conns - 1);
	if (!list_empty(&sess->conns) && !sess->closing &&
	    !READ_ONCE(conn->logged_out)) {
		pr_info("%s: connection %u of session %#x failed: closing the session (ERL 0)\n",
			sess->initiator, conn->cid, sess->tsih);
		list_for_each_entry(c, &sess->conns, sess_node)
			kt_iscsi_conn_close(c);
	}
	if (list_empty(&sess->conns) || !READ_ONCE(conn->logged_out))
		sess->closing = true;
	last = list_empty(&sess->conns);
	spin_unlock(&sess->lock);
	/*
	 * The nexus is gone: what the session still runs (a copy of GiBs, a
	 * command held in the task set) is aborted, not waited for by the
	 * login that reinstates it or by a TPG being disabled.
	 */
	if (last && sess->registered)
		kt_session_nexus_loss(&sess->se);
	conn->sess = NULL;
	kt_iscsi_sess_put(sess);
}

/*
 * Close the connections of @sess but @keep: all of them (@cid < 0; the
 * session then ends with the last) or the one of @cid. @logout: they end
 * by a Logout, which their session outlives when @cid names one.
 * Returns how many were closed.
 */
int kt_iscsi_sess_close_conns(struct kt_iscsi_sess *sess,
			      struct kt_iscsi_conn *keep, int cid, bool logout)
{
	struct kt_iscsi_conn *conn;
	int n = 0;

	spin_lock(&sess->lock);
	if (cid < 0)
		sess->closing = true;
	list_for_each_entry(conn, &sess->conns, sess_node) {
		if (conn == keep || (cid >= 0 && conn->cid != cid))
			continue;
		if (logout)
			WRITE_ONCE(conn->logged_out, true);
		kt_iscsi_conn_close(conn);
		n++;
	}
	spin_unlock(&sess->lock);
	return n;
}

/*
 * The connection ends once what is queued for it has gone out: the
 * transmit work closes a connection in LOGOUT state when its queue is
 * empty, and is kicked here in case it has just finished.
 */
void kt_iscsi_conn_close_after_tx(struct kt_iscsi_conn *conn)
{
	cmpxchg(&conn->state, KT_CONN_FFP, KT_CONN_LOGOUT);
	kt_iscsi_conn_tx_kick(conn);
}

/*
 * RFC 7143 11.5.1: after a TARGET COLD RESET the target drops every
 * connection. The issuing session's go once its response is out (over
 * TCP; over iSER at once), the other sessions of the TPG at once.
 */
void kt_iscsi_cold_reset(struct kt_iscsi_sess *own)
{
	struct kt_iscsi_sess *sess;
	struct kt_iscsi_conn *conn;

	pr_info("TARGET COLD RESET: closing every session of the TPG\n");
	spin_lock(&kt_iscsi_sessions_lock);
	list_for_each_entry(sess, &kt_iscsi_sessions, node) {
		if (sess->discovery || sess->tpg != own->tpg)
			continue;
		if (sess != own) {
			kt_iscsi_sess_close_conns(sess, NULL, -1, false);
			continue;
		}
		spin_lock(&sess->lock);
		sess->closing = true;
		list_for_each_entry(conn, &sess->conns, sess_node) {
			/* an RDMA transport closes after a Logout Response only */
			if (conn->xport->rdma)
				kt_iscsi_conn_close(conn);
			else
				kt_iscsi_conn_close_after_tx(conn);
		}
		spin_unlock(&sess->lock);
	}
	spin_unlock(&kt_iscsi_sessions_lock);
}

/*
 * RFC 7143 11.9.1: an Async Message asking the initiator to log out within
 * @secs seconds. Under spinlocks: the PDU is allocated atomically, and a
 * connection that cannot get one is simply closed later with the rest.
 */
static void kt_iscsi_request_logout(struct kt_iscsi_conn *conn, u16 secs)
{
	struct kt_iscsi_async a = {
		.event = KT_ISCSI_ASYNC_REQUEST_LOGOUT,
		.param3 = secs,
	};
	struct kt_iscsi_tx *tx;

	if (READ_ONCE(conn->state) != KT_CONN_FFP)
		return;
	tx = kzalloc(sizeof(*tx), GFP_ATOMIC);
	if (!tx)
		return;
	if (kt_iscsi_encode_async(tx->bhs, &a)) {
		kfree(tx);
		return;
	}
	tx->kind = KT_TX_PDU;
	tx->statsn = true;
	kt_iscsi_queue_tx(conn, tx);
}

/* Ask every normal session of @tpg to log out; true if any was asked. */
static bool kt_iscsi_tpg_request_logout(struct kt_iscsi_tpg *tpg, u16 secs)
{
	struct kt_iscsi_sess *sess;
	struct kt_iscsi_conn *conn;
	bool asked = false;

	spin_lock(&kt_iscsi_sessions_lock);
	list_for_each_entry(sess, &kt_iscsi_sessions, node) {
		if (sess->discovery || sess->tpg != tpg)
			continue;
		spin_lock(&sess->lock);
		list_for_each_entry(conn, &sess->conns, sess_node) {
			kt_iscsi_request_logout(conn, secs);
			asked = true;
		}
		spin_unlock(&sess->lock);
	}
	spin_unlock(&kt_iscsi_sessions_lock);
	return asked;
}

static void kt_iscsi_close_matching(struct kt_iscsi_tpg *tpg,
				    struct kt_node_acl *acl)
{
	struct kt_iscsi_sess *sess;

	spin_lock(&kt_iscsi_sessions_lock);
	list_for_each_entry(sess, &kt_iscsi_sessions, node) {
		if (sess->discovery || sess->tpg != tpg)
			continue;
		if (acl && sess->se.acl != acl)
			continue;
		kt_iscsi_sess_close_conns(sess, NULL, -1, false);
	}
	spin_unlock(&kt_iscsi_sessions_lock);
}

/*
 * Close the sessions of a TPG being disabled and wait until they are gone:
 * the TPG, its LUNs and ACLs may go right after. Initiators are first asked
 * to log out, and given KT_ISCSI_LOGOUT_GRACE seconds to do it cleanly.
 * A session lives on while a command of it is in a backstore, and it
 * points at the TPG: the wait has no end but the last command's, and says
 * every 30 s what it waits for.
 */
void kt_iscsi_tpg_close_sessions(struct kt_iscsi_tpg *tpg)
{
	unsigned int i = 0;
	int left;

	/* the logins it waits for look up ACLs under it */
	lockdep_assert_not_held(&tpg->tpg.lock);
	kt_iscsi_tpg_close_logins(tpg);
	if (kt_iscsi_tpg_request_logout(tpg, KT_ISCSI_LOGOUT_GRACE)) {
		while (i++ < KT_ISCSI_LOGOUT_GRACE * 10 &&
		       atomic_read(&tpg->nr_sessions))
			msleep(100);
		left = atomic_read(&tpg->nr_sessions);
		if (left)
			pr_info("TPG %u of %s: %d session(s) did not log out within %u s: closing them\n",
				tpg->tpg.tag, tpg->tpg.wwn->name, left,
				KT_ISCSI_LOGOUT_GRACE);
	}
	kt_iscsi_close_matching(tpg, NULL);
	for (i = 1; (left = atomic_read(&tpg->nr_sessions)); i++) {
		/* idle: a backstore slower than the hung-task timeout is no hang of ours */
		schedule_timeout_idle(msecs_to_jiffies(100));
		if (!(i % 300))
			pr_warn("TPG %u of %s: waited %u s for %d closed session(s) whose commands are still in a backstore\n",
				tpg->tpg.tag, tpg->tpg.wwn->name, i / 10, left);
	}
	kt_iscsi_flush();
}

void kt_iscsi_acl_close_sessions(struct kt_node_acl *acl)
{
	kt_iscsi_close_matching(to_iscsi_tpg(acl->tpg), acl);
	kt_iscsi_flush();
}

static const char *const kt_iscsi_conn_state_name[] = {
	[KT_CONN_LOGIN]		= "IN_LOGIN",
	[KT_CONN_FFP]		= "LOGGED_IN",
	[KT_CONN_LOGOUT]	= "IN_LOGOUT",
	[KT_CONN_CLOSING]	= "CLEANUP_WAIT",
	[KT_CONN_DEAD]		= "FREE",
};

/* One session of kt_iscsi_acl_info(), at @off in @page. */
static int kt_iscsi_sess_info(struct kt_iscsi_sess *sess, char *page, int off)
{
	struct kt_iscsi_conn *conn;
	const u8 *i = sess->isid;

	off += sysfs_emit_at(page, off,
			     "InitiatorName: %s\nInitiatorAlias:\n"
			     "LIO Session ID: %u   ISID: 0x%02x %02x %02x %02x %02x %02x  TSIH: %u  SessionType: Normal\n"
			     "Session State: TARG_SESS_STATE_%s\n"
			     "ExpCmdSN: 0x%08x  MaxCmdSN: 0x%08x\n",
			     sess->initiator, sess->tsih, i[0], i[1], i[2],
			     i[3], i[4], i[5], sess->tsih,
			     sess->closing ? "FAILED" : "LOGGED_IN",
			     READ_ONCE(sess->exp_cmdsn),
			     kt_iscsi_sess_max_cmdsn(sess));
	spin_lock(&sess->lock);
	list_for_each_entry(conn, &sess->conns, sess_node)
		off += sysfs_emit_at(page, off,
				     "CID: %u  Connection State: TARG_CONN_STATE_%s\n"
				     "   Address %pISc %s  StatSN: 0x%08x\n",
				     conn->cid,
				     kt_iscsi_conn_state_name[READ_ONCE(conn->state)],
				     &conn->peer, conn->xport->rdma ? "iSER" : "TCP",
				     READ_ONCE(conn->stat_sn));
	spin_unlock(&sess->lock);
	return off;
}

/*
 * The normal sessions logged in under @acl and their connections, in the
 * lines LIO writes to an ACL's info (rtslib parses them: the session ID,
 * TARG_SESS_STATE_, and per connection TARG_CONN_STATE_ and "Address").
 */
ssize_t kt_iscsi_acl_info(struct kt_node_acl *acl, char *page)
{
	struct kt_iscsi_sess *sess;
	int off = 0;

	spin_lock(&kt_iscsi_sessions_lock);
	list_for_each_entry(sess, &kt_iscsi_sessions, node) {
		if (sess->discovery || sess->se.acl != acl)
			continue;
		if (off > PAGE_SIZE / 2) {
			off += sysfs_emit_at(page, off, "...\n");
			break;
		}
		off = kt_iscsi_sess_info(sess, page, off);
	}
	spin_unlock(&kt_iscsi_sessions_lock);
	if (!off)
		off = sysfs_emit(page,
				 "No active iSCSI Session for Initiator Endpoint: %s\n",
				 acl->name);
	return off;
}

/*
 * RFC 7143 4.2.2.1: the window the initiator may use next. A command holds
 * a slot from the moment it is taken in until it is answered, so MaxCmdSN
 * advances as commands complete, not as they arrive, and no more than
 * cmdsn_depth commands are ever held for one session.
 */
u32 kt_iscsi_sess_max_cmdsn(struct kt_iscsi_sess *sess)
{
	u32 exp = READ_ONCE(sess->exp_cmdsn);
	int free;

	/* pairs with the order of kt_iscsi_window_take(): slot, then CmdSN */
	smp_rmb();
	free = (int)sess->cmdsn_depth - atomic_read(&sess->window_used);
	/* a closed window is ExpCmdSN - 1, never less */
	return exp - 1 + max(free, 0);
}

/*
 * A SCSI command takes a slot, *@slot the count it is in. A non-immediate
 * one must carry ExpCmdSN and find a slot of the window free, else it is
 * outside the window (RFC 7143 4.2.2.1: silently ignored). The slot is
 * taken before ExpCmdSN moves: a MaxCmdSN computed in between is one too
 * small, never one too large.
 * An immediate command takes no CmdSN and is no part of the window, whose
 * MaxCmdSN the initiator has been told and may use up: it takes one of
 * KT_ISCSI_IMMEDIATE_MAX slots of its own, and without one it gets TASK
 * SET FULL.
 */
enum kt_iscsi_window kt_iscsi_window_take(struct kt_iscsi_sess *sess,
					  u32 cmdsn, bool immediate,
					  atomic_t **slot)
{
	atomic_t *used = immediate ? &sess->immediate_used : &sess->window_used;
	int max = immediate ? KT_ISCSI_IMMEDIATE_MAX : sess->cmdsn_depth;

	*slot = NULL;
	if (atomic_inc_return(used) > max) {
		atomic_dec(used);
		return immediate ? KT_WINDOW_FULL : KT_WINDOW_OUTSIDE;
	}
	if (!immediate && cmpxchg(&sess->exp_cmdsn, cmdsn, cmdsn + 1) != cmdsn) {
		atomic_dec(used);
		return KT_WINDOW_OUTSIDE;
	}
	*slot = used;
	return KT_WINDOW_TAKEN;
}

/* MC/S: let the connections waiting for a later CmdSN look again. */
static void kt_iscsi_cmdsn_kick(struct kt_iscsi_conn *conn)
{
	struct kt_iscsi_sess *sess = conn->sess;
	struct kt_iscsi_conn *c;

	spin_lock(&sess->lock);
	list_for_each_entry(c, &sess->conns, sess_node)
		if (c != conn && READ_ONCE(c->cmdsn_wait))
			kt_iscsi_conn_rx_kick(c);
	spin_unlock(&sess->lock);
}

/* The PDU of @cmdsn has been handed on: the next CmdSN may follow. */
void kt_iscsi_cmdsn_ready(struct kt_iscsi_conn *conn, u32 cmdsn)
{
	struct kt_iscsi_sess *sess = conn->sess;

	WRITE_ONCE(sess->ready_sn, cmdsn + 1);
	if (READ_ONCE(sess->nr_conns) > 1) {
		/* pairs with the barrier in kt_iscsi_cmdsn_wait() */
		smp_mb();
		kt_iscsi_cmdsn_kick(conn);
	}
}

/*
 * A PDU other than a SCSI command (those take a window slot in
 * kt_iscsi_window_take()), whose effect is immediate: RFC 7143 3.2.2.1,
 * a non-immediate one is taken only with the expected CmdSN, which it
 * advances, and is handed on at once. One compare-and-exchange, no lock.
 */
bool kt_iscsi_cmdsn_check(struct kt_iscsi_conn *conn, u32 cmdsn,
			  bool immediate)
{
	if (!immediate &&
	    cmpxchg(&conn->sess->exp_cmdsn, cmdsn, cmdsn + 1) != cmdsn)
		return false;
	if (!immediate)
		kt_iscsi_cmdsn_ready(conn, cmdsn);
	return true;
}

/*
 * MC/S: the PDU whose header @conn has just received carries a CmdSN
 * inside the window but ahead of the next one to be handed on. Those
 * before it come on other connections, and SCSI sees commands in CmdSN
 * order: this connection reads nothing more until its turn
 * (kt_iscsi_cmdsn_ready() kicks it).
 * With one connection nothing can fill the gap; the PDU is then ignored
 * as before (RFC 7143 3.2.2.1).
 */
bool kt_iscsi_cmdsn_wait(struct kt_iscsi_conn *conn)
{
	struct kt_iscsi_sess *sess = conn->sess;
	const u8 *bhs = conn->rx.bhs;
	u32 cmdsn, ready;

	if (!sess || READ_ONCE(sess->nr_conns) < 2 || (bhs[0] & 0x40))
		goto go;
	switch (bhs[0] & 0x3f) {
	case KT_ISCSI_OP_NOP_OUT:
	case KT_ISCSI_OP_SCSI_CMD:
	case KT_ISCSI_OP_TMF_REQ:
	case KT_ISCSI_OP_TEXT_REQ:
	case KT_ISCSI_OP_LOGOUT_REQ:
		break;
	default:
		goto go;
	}
	cmdsn = get_unaligned_be32(bhs + 24);
	WRITE_ONCE(conn->cmdsn_wait, true);
	/* pairs with the barrier in kt_iscsi_cmdsn_ready() */
	smp_mb();
	ready = READ_ONCE(sess->ready_sn);
	if ((s32)(cmdsn - ready) > 0 &&
	    (s32)(cmdsn - kt_iscsi_sess_max_cmdsn(sess)) <= 0)
		return true;
go:
	/* a kick may have found it waiting: the turn has come, or gone */
	if (unlikely(conn->cmdsn_wait))
		WRITE_ONCE(conn->cmdsn_wait, false);
	return false;
}
