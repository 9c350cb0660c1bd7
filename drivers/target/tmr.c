// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: task management functions (SAM-5 7).
 *
 * A TMF picks the commands it aborts under the sessions' command locks and
 * marks each one aborted, unless it has completed already (kt_cmd_claim():
 * a command ends one way only). Commands waiting for write data from the
 * issuing session are failed at once through the fabric; the others stop
 * at their next stage, or finish the backstore I/O they are in. The TMF
 * answers when the last of them has ended: an aborted command sends no
 * response of its own, but a command of another I_T nexus gets TASK
 * ABORTED status when the device's TAS is on (SAM-5 5.7).
 *
 * The scope of the TPG stands in for the target: CLEAR TASK SET, LUN
 * RESET and TARGET WARM RESET reach every session of the TPG. PREEMPT AND
 * ABORT reaches the preempted nexuses wherever they log in, and answers
 * its PERSISTENT RESERVE OUT command instead of a fabric.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

#include <ktarget/fabric.h>

#include "core.h"
#include "pr/pr.h"

struct kt_tmr_scope {
	struct kt_tmr		*tmr;
	struct kt_lun		*lun;		/* the LU's, or NULL: all of them */
	struct kt_dev		*dev;		/* its LU */
	bool			all_sessions;	/* else the issuer's only */
	struct list_head	victims;
	unsigned int		count;
	/* PREEMPT AND ABORT: the nexuses, and the command that spares itself */
	const struct kt_pr_nexus *gone;
	unsigned int		nr_gone;
	struct kt_cmd		*except;
	bool			remote;		/* another node's */
	unsigned int		executing;	/* victims that may reach the disk */
};

/* A PREEMPT AND ABORT, answered with GOOD when its victims have ended. */
struct kt_pr_abort {
	struct kt_tmr		tmr;
	struct kt_cmd		*pr;
	sense_reason_t		answer;		/* @pr's, once they have ended */
	/* another node's change: counted down when its commands have ended */
	atomic_t		*aborting;
};

static bool kt_tmr_match(const struct kt_tmr_scope *s, struct kt_cmd *cmd)
{
	const struct kt_tmr *tmr = s->tmr;

	switch (tmr->function) {
	case KT_TMF_ABORT_TASK:
		return cmd->tag == tmr->ref_tag;
	case KT_TMF_ABORT_TASK_SET:
		return cmd->unpacked_lun == tmr->unpacked_lun;
	case KT_TMF_TARGET_WARM_RESET:
	case KT_TMF_I_T_NEXUS_LOSS:
		return true;
	case KT_TMF_PREEMPT_AND_ABORT:
		/* a command that came while the change loaded came after it */
		return cmd->dev == s->dev && cmd != s->except &&
		       !(s->remote && test_bit(KT_CMD_LOADING, &cmd->flags));
	default:
		return cmd->dev == s->dev;
	}
}

/*
 * Mark the commands of @sess the TMF aborts and hold them on s->victims.
 *
 * A command that completed already is let go again, and the TMF's
 * reference may be its last: its response went out meanwhile. Its release
 * takes cmd_lock, so such a command leaves the session's list here and is
 * put once the lock is dropped (put under the lock, the CPU spun on the
 * lock it held, with interrupts off).
 */
/*
 * Mark @cmd of @sess aborted by @s's TMF; false if it completed first.
 * A completion on another CPU that finds KT_CMD_ABORTED ends the command
 * at once (kt_cmd_end_aborted(), from a backstore's end_io too), reading
 * which TMF to tell and whether to answer TASK ABORTED: both are written
 * before the claim, whose cmpxchg publishes them, and the TMF counts the
 * command before it can end. Only TMFs write them, each under the
 * session's cmd_lock, so a command an earlier TMF aborted keeps its own.
 */
static bool kt_tmr_claim(struct kt_tmr_scope *s, struct kt_session *sess,
			 struct kt_cmd *cmd)
{
	lockdep_assert_held(&sess->cmd_lock);
	if (test_bit(KT_CMD_ABORTED, &cmd->flags))
		return false;
	cmd->abort_tmr = s->tmr;
	cmd->abort_tas = sess != s->tmr->sess && cmd->dev &&
			 READ_ONCE(cmd->dev->attrib.emulate_tas);
	/* never the last: the TMF holds one of its own while collecting */
	atomic_inc(&s->tmr->pending);
	if (kt_cmd_claim(cmd, KT_CMD_ABORTED))
		return true;
	cmd->abort_tmr = NULL;
	atomic_dec(&s->tmr->pending);
	return false;
}

static void kt_tmr_collect(struct kt_tmr_scope *s, struct kt_session *sess)
{
	struct kt_cmd *cmd, *tmp;
	unsigned long flags;
	LIST_HEAD(ended);

	spin_lock_irqsave(&sess->cmd_lock, flags);
	list_for_each_entry_safe(cmd, tmp, &sess->cmds, sess_node) {
		if (!kt_tmr_match(s, cmd))
			continue;
		/* on its way out: kt_cmd_release() waits for this lock */
		if (!kref_get_unless_zero(&cmd->kref))
			continue;
		if (!kt_tmr_claim(s, sess, cmd)) {
			/* completed already: its response is on its way */
			if (!refcount_dec_not_one(&cmd->kref.refcount))
				list_move_tail(&cmd->sess_node, &ended);
			continue;
		}
		list_add_tail(&cmd->abort_node, &s->victims);
		s->count++;
		/* the claim above is a full barrier: see kt_cmd_execute() */
		if (test_bit(KT_CMD_EXECUTING, &cmd->flags))
			s->executing++;
	}
	spin_unlock_irqrestore(&sess->cmd_lock, flags);
	/* ours is a reference: none of them is released before this put */
	list_for_each_entry_safe(cmd, tmp, &ended, sess_node) {
		list_del_init(&cmd->sess_node);
		kt_cmd_put(cmd);
	}
}

static void kt_tmr_collect_all(struct kt_tmr_scope *s)
{
	struct kt_session *issuer = s->tmr->sess;
	struct kt_tpg *tpg = issuer->tpg;
	struct kt_session *sess;

	if (!s->all_sessions) {
		kt_tmr_collect(s, issuer);
		return;
	}
	spin_lock(&tpg->session_lock);
	list_for_each_entry(sess, &tpg->sessions, node)
		kt_tmr_collect(s, sess);
	spin_unlock(&tpg->session_lock);
}

/* Stop what waits for data, and let go of the victims. */
static void kt_tmr_release_victims(struct kt_tmr_scope *s)
{
	struct kt_session *issuer = s->tmr->sess;
	struct kt_cmd *cmd, *tmp;

	list_for_each_entry_safe(cmd, tmp, &s->victims, abort_node) {
		list_del_init(&cmd->abort_node);
		kt_task_set_abort(cmd);
		if (cmd->sess == issuer && cmd->ops->abort_data_out)
			cmd->ops->abort_data_out(cmd);
		kt_backend_abort(cmd);
		kt_cmd_put(cmd);
	}
}

/* A reset: every nexus of @dev hears of it on its next command. */
static void kt_tmr_reset_ua(struct kt_tmr_scope *s)
{
	struct kt_tpg *tpg = s->tmr->sess->tpg;
	struct kt_lun *lun;
	unsigned long idx;

	/*
	 * SAM-5 6.3: a reset ends SPC-2 reservations, not PRs. Cluster mode:
	 * on every node, and the LU's nexuses there hear of a LUN reset too;
	 * a work item does that, the TMF answering once it has.
	 */
	if (s->lun) {
		kt_format_stop(s->dev, NULL);
		kt_ua_raise(s->dev, KT_ASC_BUS_DEVICE_RESET, KT_UA_ALL, NULL);
		if (!kt_pr_cluster_reset(s->lun, s->tmr, true))
			kt_reserve_reset(s->dev);
		return;
	}
	mutex_lock(&tpg->lock);
	xa_for_each(&tpg->luns, idx, lun)
		if (lun->dev) {
			kt_format_stop(lun->dev, NULL);
			kt_ua_raise(lun->dev, KT_ASC_POWER_ON_RESET, KT_UA_ALL,
				    NULL);
			if (!kt_pr_cluster_reset(lun, s->tmr, false))
				kt_reserve_reset(lun->dev);
		}
	mutex_unlock(&tpg->lock);
}

/* Does @sess belong to a nexus PREEMPT AND ABORT names (as ua.c matches)? */
static bool kt_tmr_nexus_gone(const struct kt_tmr_scope *s,
			      const struct kt_session *sess)
{
	unsigned int i;

	for (i = 0; i < s->nr_gone; i++) {
		const struct kt_pr_nexus *n = &s->gone[i];

		if ((n->key == sess->nexus_key ||
		     n->key == sess->nexus_name_key) &&
		    (!n->port || n->port == sess->tpg->tag))
			return true;
	}
	return false;
}

static void kt_tmr_collect_gone(struct kt_session *sess, void *arg)
{
	struct kt_tmr_scope *s = arg;

	if (kt_tmr_nexus_gone(s, sess))
		kt_tmr_collect(s, sess);
}

static void kt_tmr_preempt_done(struct work_struct *work)
{
	struct kt_pr_abort *pa = container_of(work, struct kt_pr_abort,
					      tmr.work);
	atomic_t *aborting = pa->aborting;

	if (pa->pr)
		kt_cmd_complete(pa->pr, pa->answer);
	kfree(pa);
	/* the waiter may free the counter at once: only its address is used */
	if (aborting && atomic_dec_and_test(aborting))
		wake_up_var(aborting);
}

/*
 * SPC-4 5.13.11.5: after PREEMPT AND ABORT has removed registrations, the
 * commands of their nexuses on this LU end as a task management function
 * would end them (TASK ABORTED for another nexus when TAS is set), and
 * @pr completes with @answer (GOOD, or why the other nodes could not be
 * waited for) once the last of them has. What this needs is
 * allocated by kt_tmr_preempt_alloc() before the reservation changes, so
 * that nothing can fail once it has.
 */
struct kt_pr_abort *kt_tmr_preempt_alloc(struct kt_cmd *pr)
{
	struct kt_pr_abort *pa = kzalloc(sizeof(*pa), GFP_KERNEL);

	if (!pa)
		return NULL;
	pa->pr = pr;
	pa->tmr.sess = pr->sess;
	pa->tmr.function = KT_TMF_PREEMPT_AND_ABORT;
	INIT_WORK(&pa->tmr.work, kt_tmr_preempt_done);
	atomic_set(&pa->tmr.pending, 1);
	return pa;
}

void kt_tmr_preempt_abort(struct kt_pr_abort *pa,
			  const struct kt_pr_nexus *gone, unsigned int nr_gone,
			  sense_reason_t answer)
{
	struct kt_tmr_scope s = {
		.tmr = &pa->tmr,
		.dev = pa->pr->dev,
		.gone = gone,
		.nr_gone = nr_gone,
		.except = pa->pr,
	};

	pa->answer = answer;
	INIT_LIST_HEAD(&s.victims);
	kt_session_walk(kt_tmr_collect_gone, &s);
	kt_tmr_release_victims(&s);
	if (s.count)
		pr_debug("PREEMPT AND ABORT aborted %u command(s)\n", s.count);
	kt_tmr_task_done(&pa->tmr);
}

/*
 * Cluster mode: another node's PREEMPT AND ABORT removed @gone; their
 * commands here end as that node's do, all but @spare. The caller has
 * counted this abort in @aborting, which is counted down once the last of
 * them has ended (the other node's answer waits for that).
 */
void kt_tmr_preempt_abort_dev(struct kt_dev *dev,
			      const struct kt_pr_nexus *gone,
			      unsigned int nr_gone, struct kt_cmd *spare,
			      atomic_t *aborting)
{
	struct kt_pr_abort *pa = kzalloc(sizeof(*pa), GFP_KERNEL);
	struct kt_tmr_scope s = {
		.dev = dev,
		.gone = gone,
		.nr_gone = nr_gone,
		.except = spare,
		.remote = true,
	};

	if (!pa) {
		pr_warn_ratelimited("%s: PREEMPT AND ABORT of another node: no memory to abort this node's commands\n",
				    config_item_name(&dev->group.cg_item));
		if (atomic_dec_and_test(aborting))
			wake_up_var(aborting);
		return;
	}
	pa->aborting = aborting;
	pa->tmr.function = KT_TMF_PREEMPT_AND_ABORT;
	INIT_WORK(&pa->tmr.work, kt_tmr_preempt_done);
	atomic_set(&pa->tmr.pending, 1);
	s.tmr = &pa->tmr;
	INIT_LIST_HEAD(&s.victims);
	kt_session_walk(kt_tmr_collect_gone, &s);
	/*
	 * None had begun to execute (waiting for Data-Out, held in the task
	 * set, deferred by a load): none will write, so the other node need
	 * not wait for them to end, which may take the initiator's Data-Out
	 */
	if (!s.executing) {
		pa->aborting = NULL;
		if (atomic_dec_and_test(aborting))
			wake_up_var(aborting);
	}
	kt_tmr_release_victims(&s);
	if (s.count)
		pr_debug("another node's PREEMPT AND ABORT aborted %u command(s)\n",
			 s.count);
	kt_tmr_task_done(&pa->tmr);
}

/*
 * SAM-5 6.3.4: the I_T nexus of @sess is gone (its last connection closed,
 * by a logout or not, or the session was reinstated): what is left of its
 * tasks is aborted, as by a TMF nobody answers. Its commands stop at their
 * next stage, a copy between two chunks, and send nothing; the session
 * then ends with them instead of when a long command would have. The
 * session may be freed before the last of them ends: pa->tmr.sess is not
 * looked at after the collect (kt_tmr_preempt_done() reads only pa->pr).
 * Process context.
 */
void kt_session_nexus_loss(struct kt_session *sess)
{
	/* from a fabric's close work, on a reclaim workqueue: no I/O */
	struct kt_pr_abort *pa = kzalloc(sizeof(*pa), GFP_NOIO);
	struct kt_tmr_scope s = { };

	if (!pa) {
		pr_warn_ratelimited("%s: I_T nexus loss: no memory to abort its tasks; they run to their end\n",
				    sess->initiator);
		return;
	}
	pa->tmr.sess = sess;
	pa->tmr.function = KT_TMF_I_T_NEXUS_LOSS;
	INIT_WORK(&pa->tmr.work, kt_tmr_preempt_done);
	atomic_set(&pa->tmr.pending, 1);
	s.tmr = &pa->tmr;
	INIT_LIST_HEAD(&s.victims);
	kt_tmr_collect(&s, sess);
	kt_tmr_release_victims(&s);
	if (s.count)
		pr_debug("%s: I_T nexus loss aborted %u command(s)\n",
			 sess->initiator, s.count);
	kt_tmr_task_done(&pa->tmr);
}
EXPORT_SYMBOL_GPL(kt_session_nexus_loss);

static void kt_tmr_respond(struct work_struct *work)
{
	struct kt_tmr *tmr = container_of(work, struct kt_tmr, work);

	tmr->sess->tpg->ops->queue_tm_rsp(tmr);
}

/* An aborted command has ended; the last one lets the TMF answer. */
void kt_tmr_task_done(struct kt_tmr *tmr)
{
	if (atomic_dec_and_test(&tmr->pending))
		queue_work(system_wq, &tmr->work);
}

void kt_tmr_submit(struct kt_tmr *tmr)
{
	struct kt_tmr_scope s = { .tmr = tmr };
	struct kt_lun *lun = NULL;
	bool wp;

	INIT_WORK(&tmr->work, kt_tmr_respond);
	INIT_LIST_HEAD(&s.victims);
	/* one count for the submitter, dropped at the end */
	atomic_set(&tmr->pending, 1);
	tmr->response = KT_TMR_COMPLETE;

	switch (tmr->function) {
	case KT_TMF_ABORT_TASK:
		break;
	case KT_TMF_ABORT_TASK_SET:
	case KT_TMF_CLEAR_TASK_SET:
	case KT_TMF_LUN_RESET:
		lun = kt_session_get_lun(tmr->sess, tmr->unpacked_lun, &wp);
		if (!lun) {
			tmr->response = KT_TMR_INCORRECT_LUN;
			goto out;
		}
		s.lun = lun;
		s.dev = lun->dev;
		s.all_sessions = tmr->function != KT_TMF_ABORT_TASK_SET;
		break;
	case KT_TMF_TARGET_WARM_RESET:
		s.all_sessions = true;
		break;
	default:
		tmr->response = KT_TMR_NOT_SUPPORTED;
		goto out;
	}

	kt_tmr_collect_all(&s);
	if (tmr->function == KT_TMF_ABORT_TASK && !s.count)
		tmr->response = KT_TMR_TASK_DOES_NOT_EXIST;
	kt_tmr_release_victims(&s);
	if (tmr->function == KT_TMF_LUN_RESET ||
	    tmr->function == KT_TMF_TARGET_WARM_RESET)
		kt_tmr_reset_ua(&s);
	if (s.count)
		pr_debug("TMF %d aborted %u command(s)\n", tmr->function,
			 s.count);
out:
	if (lun)
		kt_lun_put(lun);
	kt_tmr_task_done(tmr);
}
EXPORT_SYMBOL_GPL(kt_tmr_submit);
