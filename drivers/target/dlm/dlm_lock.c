// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_cluster: a DLM lock kept by the node that last used it.
 *
 * kt_dlm_lock_get() converts the lock to EX unless this node has it in EX
 * already; kt_dlm_lock_put() ends the use but keeps EX. Only when another
 * node asks (the DLM's blocking callback) does the yield work convert it
 * down to NL, after the use in progress; a use that starts while another
 * node waits lets the yield go first, so that no node starves the others.
 *
 * Every request is bounded: one the other nodes do not answer within
 * KT_DLM_LOCK_TIMEOUT is cancelled, and a lock whose cancel is not
 * answered either is marked broken and refuses every later use.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dlm.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "cluster_lu.h"

/* How long a yield that failed waits before it tries again */
#define KT_DLM_YIELD_RETRY	HZ

static void kt_dlm_lock_ast(void *arg)
{
	struct kt_dlm_lock *l = arg;

	complete(&l->ast);
}

static void kt_dlm_lock_bast(void *arg, int mode)
{
	struct kt_dlm_lock *l = arg;
	unsigned long flags;

	spin_lock_irqsave(&l->lock, flags);
	if (!l->dying) {
		l->wanted = true;
		if (!l->busy)
			mod_delayed_work(kt_cluster_wq, &l->yield, 0);
	}
	spin_unlock_irqrestore(&l->lock, flags);
}

/*
 * Under l->lock, a use or a request has ended: let the next one in, and
 * give the lock back if another node asked for it meanwhile.
 */
static void kt_dlm_lock_idle(struct kt_dlm_lock *l, unsigned long delay)
{
	l->busy = false;
	if (l->granted != DLM_LOCK_EX)
		l->wanted = false;
	else if (l->wanted && !l->dying)
		mod_delayed_work(kt_cluster_wq, &l->yield, delay);
	wake_up_all(&l->wait);
}

/*
 * dlm_lock() waits for the lockspace's recovery without a bound, and a
 * node cut off from the quorum stays in recovery: wait for it before a
 * request, as long as for an answer. (A recovery that starts between this
 * and dlm_lock() still holds the request until it ends.) False when it
 * has not ended in time.
 */
bool kt_dlm_recovered(struct kt_cluster_lu *clu)
{
	return wait_event_timeout(clu->recovered, !READ_ONCE(clu->recovering) ||
				  READ_ONCE(clu->leaving), KT_DLM_LOCK_TIMEOUT);
}

/*
 * Ask the DLM for @mode and wait for the answer: 0 when granted, or
 * -errno. A request the other nodes do not answer in time is cancelled.
 */
int kt_dlm_lock_request(struct kt_dlm_lock *l, int mode, u32 flags)
{
	struct kt_cluster_lu *clu = l->clu;
	int ret;

	if (l->exists)
		flags |= DLM_LKF_CONVERT;
	if (!kt_dlm_recovered(clu)) {
		ret = -ETIMEDOUT;
		goto out;
	}
	reinit_completion(&l->ast);
	ret = dlm_lock(clu->ls, mode, &l->lksb, flags, l->name,
		       strlen(l->name), 0, kt_dlm_lock_ast, l, l->bast);
	if (ret)
		goto out;
	if (!wait_for_completion_timeout(&l->ast, KT_DLM_LOCK_TIMEOUT)) {
		/*
		 * One answer still comes: the cancel's (-DLM_ECANCEL) or, when
		 * the grant won the race and the cancel is refused, the grant's.
		 */
		dlm_unlock(clu->ls, l->lksb.sb_lkid, DLM_LKF_CANCEL, &l->lksb, l);
		if (!wait_for_completion_timeout(&l->ast, KT_DLM_LOCK_TIMEOUT)) {
			/* the DLM's teardown still ends it (release_lockspace) */
			l->broken = true;
			ret = -ETIMEDOUT;
			goto out;
		}
		if (l->lksb.sb_status == -DLM_ECANCEL)
			l->lksb.sb_status = -ETIMEDOUT;
	}
	ret = l->lksb.sb_status;
out:
	if (!ret) {
		l->exists = true;
		l->granted = mode;
	} else {
		pr_warn_ratelimited("%s: lockspace %s: lock %s to mode %d: error %d%s\n",
				    kt_cluster_dev_name(clu->dev), clu->name,
				    l->name, mode, ret, l->broken ?
				    " (no answer: unusable until cluster mode restarts)" : "");
	}
	return ret;
}

static void kt_dlm_lock_yield(struct work_struct *work)
{
	struct kt_dlm_lock *l = container_of(to_delayed_work(work),
					     struct kt_dlm_lock, yield);
	int ret;

	spin_lock_irq(&l->lock);
	if (l->busy || l->dying || l->broken || !l->wanted ||
	    l->granted != DLM_LOCK_EX) {
		/* the use in progress queues the yield again when it ends */
		if (!l->busy && l->granted != DLM_LOCK_EX)
			l->wanted = false;
		spin_unlock_irq(&l->lock);
		return;
	}
	l->busy = true;
	spin_unlock_irq(&l->lock);

	ret = kt_dlm_lock_request(l, DLM_LOCK_NL, 0);

	spin_lock_irq(&l->lock);
	/* still EX after a failure: @wanted stays, and the yield retries */
	kt_dlm_lock_idle(l, ret ? KT_DLM_YIELD_RETRY : 0);
	spin_unlock_irq(&l->lock);
}

/* Set @l up without asking the DLM for anything yet. */
void kt_dlm_lock_setup(struct kt_dlm_lock *l, struct kt_cluster_lu *clu,
		       const char *name, void (*bast)(void *arg, int mode))
{
	memset(l, 0, sizeof(*l));
	l->clu = clu;
	l->name = name;
	l->bast = bast;
	init_completion(&l->ast);
	spin_lock_init(&l->lock);
	init_waitqueue_head(&l->wait);
	INIT_DELAYED_WORK(&l->yield, kt_dlm_lock_yield);
}

/* The lock exists in NL: kt_dlm_lock_get() converts from there. */
int kt_dlm_lock_init(struct kt_dlm_lock *l, struct kt_cluster_lu *clu,
		     const char *name)
{
	kt_dlm_lock_setup(l, clu, name, kt_dlm_lock_bast);
	return kt_dlm_lock_request(l, DLM_LOCK_NL, 0);
}

/*
 * No use is running or will start: stop the yield and give the lock back
 * to the DLM. The caller releases the lockspace next, which ends any
 * request still open and flushes the DLM's callbacks.
 */
void kt_dlm_lock_exit(struct kt_dlm_lock *l)
{
	spin_lock_irq(&l->lock);
	l->dying = true;
	wait_event_lock_irq(l->wait, !l->busy, l->lock);
	spin_unlock_irq(&l->lock);
	/* no blocking callback queues it once @dying is set */
	cancel_delayed_work_sync(&l->yield);
	if (!l->exists || l->broken)
		return;
	reinit_completion(&l->ast);
	if (!dlm_unlock(l->clu->ls, l->lksb.sb_lkid, 0, &l->lksb, l))
		wait_for_completion_timeout(&l->ast, KT_DLM_LOCK_TIMEOUT);
	l->exists = false;
}

/* Hold @l in EX, this node's uses one at a time. May sleep. */
int kt_dlm_lock_get(struct kt_dlm_lock *l)
{
	int ret = 0;

	spin_lock_irq(&l->lock);
	wait_event_lock_irq(l->wait, (!l->busy && !l->wanted) || l->broken ||
			    l->dying, l->lock);
	if (l->broken || l->dying) {
		spin_unlock_irq(&l->lock);
		return -EIO;
	}
	l->busy = true;
	if (l->granted != DLM_LOCK_EX) {
		spin_unlock_irq(&l->lock);
		ret = kt_dlm_lock_request(l, DLM_LOCK_EX, 0);
		spin_lock_irq(&l->lock);
		if (ret)
			kt_dlm_lock_idle(l, 0);
	}
	spin_unlock_irq(&l->lock);
	return ret;
}

/* End this node's use; the lock stays EX until another node asks. Any context. */
void kt_dlm_lock_put(struct kt_dlm_lock *l)
{
	unsigned long flags;

	spin_lock_irqsave(&l->lock, flags);
	kt_dlm_lock_idle(l, 0);
	spin_unlock_irqrestore(&l->lock, flags);
}
