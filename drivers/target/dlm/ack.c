// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_cluster: waiting until the other nodes have applied a change.
 *
 * A PREEMPT AND ABORT must not answer while another node may still let a
 * write of the preempted nexus through: a fence agent trusts that none
 * lands once it has returned. So each node holds a lock "ack.<its node
 * id>" in EX, and its value block says which version of the reservations
 * the node has applied (loaded, and ended the commands the change
 * aborted):
 *
 *   kt_ack_wait(V)     the writer, for each other member: its lock in PR,
 *                      which the holder must give up first; the version
 *                      read; back to NL. Until every one says V or newer.
 *   blocking callback  the holder: the core applies what it has not yet
 *                      (kt_cluster_ack_asked()), then calls kt_ack()
 *   kt_ack(V)          writes V and converts EX -> NL, which publishes
 *                      it; then asks for EX again without waiting, to be
 *                      granted once the writers are done
 *
 * The value also says from which version on the node vouches for what
 * it applied: one that had to drop aborts (too many in one change, or
 * changes it missed) cannot say it applied the versions up to it.
 *
 * A writer granted PR over an older version met a node that was answering
 * an earlier writer: it asks again, queued (QUECVT) behind that node's
 * request for EX, whose grant makes the node answer this writer too. A
 * node that is no longer a member has nothing to wait for (it wrote that
 * it left, or died, and the DLM may then flag the value invalid). Each
 * request is bounded by KT_DLM_LOCK_TIMEOUT, the whole wait by
 * KT_ACK_WAIT: a writer that runs out fails its command rather than answer
 * before a node has applied the change.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/delay.h>
#include <linux/dlm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cluster_lu.h"

#define KT_ACK_MAGIC	0x6b74416b	/* "ktAk" */
#define KT_ACK_LEFT	BIT(0)		/* the node left: nothing to wait for */
#define KT_ACK_WAIT	(30 * HZ)	/* for all the other nodes */
#define KT_ACK_RETRY	HZ		/* a failed request for EX, again */
#define KT_ACK_AGAIN_MS	20		/* a node still answering another */
#define KT_ACK_POISONED	U32_MAX		/* a peer slot that cannot be reused */

struct kt_ack_lvb {
	__be32	magic;
	__be32	flags;			/* KT_ACK_* */
	__be64	version;		/* of the reservations, applied */
	__be64	from;			/* ... and every one since this */
};

static_assert(sizeof(struct kt_ack_lvb) <= KT_CLUSTER_BLOCK_LEN);

/* A writer wants this node's lock: the core applies, then kt_ack(). */
static void kt_ack_bast(void *arg, int mode)
{
	struct kt_dlm_lock *l = arg;
	struct kt_ack *a = container_of(l, struct kt_ack, own);

	if (!READ_ONCE(a->dying))
		kt_cluster_ack_asked(l->clu->dev);
}

/* The answer to kt_ack_ask()'s request (or to a cancel, or an unlock) */
static void kt_ack_granted(void *arg)
{
	struct kt_dlm_lock *l = arg;
	struct kt_ack *a = container_of(l, struct kt_ack, own);
	unsigned long flags;

	spin_lock_irqsave(&l->lock, flags);
	if (a->asking) {
		a->asking = false;
		if (!l->lksb.sb_status)
			l->granted = DLM_LOCK_EX;
		else if (!a->dying)
			mod_delayed_work(kt_cluster_wq, &a->retry, KT_ACK_RETRY);
	}
	spin_unlock_irqrestore(&l->lock, flags);
	complete(&l->ast);
}

/*
 * Under a->mutex, the lock in NL: ask for EX again without waiting. Until
 * it is granted no writer waits for this node; one that reads meanwhile
 * finds the version just written.
 */
static void kt_ack_ask(struct kt_cluster_lu *clu)
{
	struct kt_ack *a = &clu->ack;
	struct kt_dlm_lock *l = &a->own;
	int ret = -ETIMEDOUT;

	if (a->dying || l->broken)
		return;
	if (kt_dlm_recovered(clu)) {
		spin_lock_irq(&l->lock);
		a->asking = true;
		spin_unlock_irq(&l->lock);
		reinit_completion(&l->ast);
		ret = dlm_lock(clu->ls, DLM_LOCK_EX, &l->lksb,
			       DLM_LKF_CONVERT | DLM_LKF_VALBLK, l->name,
			       strlen(l->name), 0, kt_ack_granted, l,
			       kt_ack_bast);
		if (!ret)
			return;
		spin_lock_irq(&l->lock);
		a->asking = false;
		spin_unlock_irq(&l->lock);
	}
	pr_warn_ratelimited("%s: lockspace %s: lock %s to EX: error %d; trying again\n",
			    kt_cluster_dev_name(clu->dev), clu->name, l->name, ret);
	mod_delayed_work(kt_cluster_wq, &a->retry, KT_ACK_RETRY);
}

static void kt_ack_retry(struct work_struct *work)
{
	struct kt_ack *a = container_of(to_delayed_work(work), struct kt_ack,
					retry);
	struct kt_dlm_lock *l = &a->own;
	bool idle;

	mutex_lock(&a->mutex);
	spin_lock_irq(&l->lock);
	idle = !a->asking && l->granted != DLM_LOCK_EX;
	spin_unlock_irq(&l->lock);
	if (idle)
		kt_ack_ask(l->clu);
	mutex_unlock(&a->mutex);
}

void kt_ack(struct kt_cluster_lu *clu, u64 version, u64 from)
{
	struct kt_ack *a = &clu->ack;
	struct kt_dlm_lock *l = &a->own;
	struct kt_ack_lvb *v = (struct kt_ack_lvb *)a->lvb;
	bool held;

	mutex_lock(&a->mutex);
	spin_lock_irq(&l->lock);
	held = l->granted == DLM_LOCK_EX && !a->asking;
	spin_unlock_irq(&l->lock);
	/*
	 * Not held: an earlier answer's request for EX still waits, and the
	 * writer's blocking callback comes once it is granted.
	 */
	if (held && !a->dying && !l->broken) {
		memset(a->lvb, 0, sizeof(a->lvb));
		v->magic = cpu_to_be32(KT_ACK_MAGIC);
		v->version = cpu_to_be64(version);
		v->from = cpu_to_be64(from);
		if (!kt_dlm_lock_request(l, DLM_LOCK_NL, DLM_LKF_VALBLK))
			kt_ack_ask(clu);
	}
	mutex_unlock(&a->mutex);
}

/*
 * Under wait_mutex: the slot of node @node's lock, set up on first use. A
 * full table gives up the slot of a node that is no longer a member.
 */
static struct kt_ack_peer *kt_ack_peer(struct kt_cluster_lu *clu, u32 node,
				       const u32 *members, int nr)
{
	struct kt_ack *a = &clu->ack;
	struct kt_ack_peer *p, *slot = NULL;
	unsigned int i;
	int m;

	for (i = 0; i < KT_CLUSTER_MAX_NODES; i++) {
		p = &a->peer[i];
		if (p->node == node)
			return p;
		if (!slot && !p->node)
			slot = p;
	}
	for (i = 0; !slot && i < KT_CLUSTER_MAX_NODES; i++) {
		p = &a->peer[i];
		for (m = 0; m < nr && members[m] != p->node; m++)
			;
		if (m == nr && p->node != KT_ACK_POISONED) {
			kt_dlm_lock_exit(&p->l);
			/* an unlock never answered may still write into it */
			if (p->l.broken)
				p->node = KT_ACK_POISONED;
			else
				slot = p;
		}
	}
	if (!slot)
		return NULL;
	slot->node = node;
	snprintf(slot->name, sizeof(slot->name), "ack.%u", node);
	kt_dlm_lock_setup(&slot->l, clu, slot->name, NULL);
	slot->l.lksb.sb_lvbptr = slot->lvb;
	return slot;
}

/* Is @node a member of the lockspace now? */
static bool kt_ack_member(struct kt_cluster_lu *clu, u32 node)
{
	bool found = false;
	int i;

	spin_lock(&clu->members_lock);
	for (i = 0; i < clu->nr_members && !found; i++)
		found = clu->members[i] == node;
	spin_unlock(&clu->members_lock);
	return found;
}

/*
 * Node @p's answer, read in PR: 1 when it has applied @version, 0 when
 * not yet (it answered an earlier writer, or has not taken its lock).
 */
static int kt_ack_read(struct kt_ack_peer *p, u64 version)
{
	const struct kt_ack_lvb *v = (const struct kt_ack_lvb *)p->lvb;
	/* the DLM lost the value (its holder left or died): nothing read */
	if ((p->l.lksb.sb_flags & DLM_SBF_VALNOTVALID) ||
	    be32_to_cpu(v->magic) != KT_ACK_MAGIC)
		return 0;
	if (be32_to_cpu(v->flags) & KT_ACK_LEFT)
		return 1;
	return be64_to_cpu(v->version) >= version &&
	       be64_to_cpu(v->from) <= version;
}

/* Until node @p has applied @version, or is no longer a member */
static int kt_ack_wait_one(struct kt_cluster_lu *clu, struct kt_ack_peer *p,
			   u64 version, unsigned long deadline)
{
	int ret, done;

	for (;;) {
		if (p->l.broken)
			return -EIO;
		/*
		 * From NL, a conversion that queues behind the node's own
		 * request for EX: granted once the node has answered
		 */
		ret = kt_dlm_lock_request(&p->l, DLM_LOCK_PR, DLM_LKF_VALBLK |
					  (p->l.exists && p->l.granted == DLM_LOCK_NL ?
					   DLM_LKF_QUECVT : 0));
		if (ret)
			return ret;
		done = kt_ack_read(p, version);
		/* the node takes EX back, for the next writer */
		ret = kt_dlm_lock_request(&p->l, DLM_LOCK_NL, 0);
		if (ret) {
			/* held in PR it would keep the node from EX: let go */
			kt_dlm_lock_exit(&p->l);
			p->node = p->l.broken ? KT_ACK_POISONED : 0;
			return ret;
		}
		if (done || !kt_ack_member(clu, p->node))
			return 0;
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
		msleep(KT_ACK_AGAIN_MS);
	}
}

int kt_ack_wait(struct kt_cluster_lu *clu, u64 version)
{
	struct kt_ack *a = &clu->ack;
	u32 members[KT_CLUSTER_MAX_NODES], me;
	unsigned long deadline;
	int i, nr, ret = 0;

	mutex_lock(&a->wait_mutex);
	deadline = jiffies + KT_ACK_WAIT;
	spin_lock(&clu->members_lock);
	me = clu->node_id;
	nr = clu->nr_members;
	memcpy(members, clu->members, nr * sizeof(members[0]));
	spin_unlock(&clu->members_lock);
	/* no node ids: no node holds a lock to ask */
	for (i = 0; me && i < nr && !ret; i++) {
		struct kt_ack_peer *p;

		if (members[i] == me)
			continue;
		p = kt_ack_peer(clu, members[i], members, nr);
		ret = p ? kt_ack_wait_one(clu, p, version, deadline) : -ENOSPC;
		if (ret)
			pr_warn_ratelimited("%s: lockspace %s: node %u has not said it applied version %llu: error %d\n",
					    kt_cluster_dev_name(clu->dev),
					    clu->name, members[i], version, ret);
	}
	mutex_unlock(&a->wait_mutex);
	return ret;
}

/* After the join: this node's lock in EX, once it knows its node id */
int kt_ack_init(struct kt_cluster_lu *clu)
{
	struct kt_ack *a = &clu->ack;
	u32 me;

	mutex_init(&a->mutex);
	mutex_init(&a->wait_mutex);
	INIT_DELAYED_WORK(&a->retry, kt_ack_retry);
	a->peer = kvcalloc(KT_CLUSTER_MAX_NODES, sizeof(*a->peer), GFP_KERNEL);
	if (!a->peer)
		return -ENOMEM;
	spin_lock(&clu->members_lock);
	me = clu->node_id;
	spin_unlock(&clu->members_lock);
	snprintf(a->name, sizeof(a->name), "ack.%u", me);
	kt_dlm_lock_setup(&a->own, clu, a->name, kt_ack_bast);
	a->own.lksb.sb_lvbptr = a->lvb;
	if (!me)
		return 0;	/* the DLM gives no node ids: nobody asks */
	return kt_dlm_lock_request(&a->own, DLM_LOCK_EX, DLM_LKF_VALBLK);
}

/* No kt_ack_wait() runs; kt_ack() may, until the core has let go. */
void kt_ack_exit(struct kt_cluster_lu *clu)
{
	struct kt_ack *a = &clu->ack;
	struct kt_dlm_lock *l = &a->own;
	struct kt_ack_lvb *v = (struct kt_ack_lvb *)a->lvb;
	bool asking, held;
	unsigned int i;

	if (!a->peer)
		return;		/* kt_ack_init() stopped before it */
	mutex_lock(&a->mutex);
	spin_lock_irq(&l->lock);
	WRITE_ONCE(a->dying, true);
	spin_unlock_irq(&l->lock);
	mutex_unlock(&a->mutex);
	/* kt_ack_granted() queues it no more */
	cancel_delayed_work_sync(&a->retry);

	mutex_lock(&a->mutex);
	spin_lock_irq(&l->lock);
	asking = a->asking;
	spin_unlock_irq(&l->lock);
	/* the cancel's answer, or the grant's when it won the race */
	if (asking && !dlm_unlock(clu->ls, l->lksb.sb_lkid, DLM_LKF_CANCEL,
				  &l->lksb, l))
		wait_for_completion_timeout(&l->ast, KT_DLM_LOCK_TIMEOUT);
	spin_lock_irq(&l->lock);
	held = l->granted == DLM_LOCK_EX && !a->asking;
	spin_unlock_irq(&l->lock);
	if (held && !l->broken) {
		/* a writer finds this node gone, not behind */
		memset(a->lvb, 0, sizeof(a->lvb));
		v->magic = cpu_to_be32(KT_ACK_MAGIC);
		v->flags = cpu_to_be32(KT_ACK_LEFT);
		kt_dlm_lock_request(l, DLM_LOCK_NL, DLM_LKF_VALBLK);
	}
	mutex_unlock(&a->mutex);
	kt_dlm_lock_exit(l);
	for (i = 0; i < KT_CLUSTER_MAX_NODES; i++)
		if (a->peer[i].node && a->peer[i].node != KT_ACK_POISONED)
			kt_dlm_lock_exit(&a->peer[i].l);
	kvfree(a->peer);
	a->peer = NULL;
}
