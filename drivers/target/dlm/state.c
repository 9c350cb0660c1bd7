// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_cluster: the LU's shared state, in lock value blocks.
 *
 * Block 0, the header, is the value block of the lock "state"; block N is
 * that of the lock "state.N". A node reads under the header in PR and
 * writes under it in EX, so that no node ever sees half of a change:
 *
 *   state_lock(read)    header to PR, which brings its value block
 *   state_lock(write)   header to NL, then EX: two nodes converting PR to
 *                       EX at once would deadlock
 *   state_read(N)       state.N to PR, which reads its value (nothing to
 *                       ask when this node holds it in PR already)
 *   state_write(N)      state.N to EX and back to PR, which writes it
 *   state_unlock()      header EX -> PR, writing its value when the change
 *                       is published; NL when another node asked for EX
 *
 * Between uses this node keeps the header, and the blocks it has read or
 * written, in PR: its copy of the state is current for as long as it does.
 * Another node's request for EX on the header comes as a blocking
 * callback: the core hears that its copy is stale, then the blocks and
 * the header drop to NL. Every request carries DLM_LKF_VALBLK, so that
 * when a node leaves, the DLM rebuilds each value block from a PR holder
 * that has it; a block no node held in PR comes back flagged invalid, and
 * one the DLM has no value for reads as zeroes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dlm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cluster_lu.h"

#define KT_STATE_NOBODY		DLM_LOCK_IV	/* no node waits */

static struct kt_cluster_state *hdr_to_state(struct kt_dlm_lock *l)
{
	return container_of(l, struct kt_cluster_state, hdr);
}

/* Another node wants the header in @mode, which conflicts with ours. */
static void kt_state_bast(void *arg, int mode)
{
	struct kt_dlm_lock *l = arg;
	struct kt_cluster_state *st = hdr_to_state(l);
	unsigned long flags;

	spin_lock_irqsave(&l->lock, flags);
	st->wanted = max(st->wanted, mode);
	if (!l->dying)
		queue_work(kt_cluster_wq, &st->drop);
	spin_unlock_irqrestore(&l->lock, flags);
}

/* Under st->mutex: the blocks this node holds in PR go back to NL. */
static void kt_state_drop_blocks(struct kt_cluster_state *st)
{
	unsigned int i;

	for (i = 1; i < st->nr_blocks; i++) {
		struct kt_dlm_lock *l = &st->blk[i].l;

		if (l->exists && !l->broken && l->granted != DLM_LOCK_NL)
			kt_dlm_lock_request(l, DLM_LOCK_NL, DLM_LKF_VALBLK);
	}
}

/*
 * Under st->mutex: let another node have the header. A PR this node keeps
 * only blocks a writer; the core hears its copy is stale before the writer
 * can be granted.
 */
static void kt_state_yield(struct kt_cluster_state *st)
{
	int wanted;

	spin_lock_irq(&st->hdr.lock);
	wanted = st->wanted;
	st->wanted = KT_STATE_NOBODY;
	spin_unlock_irq(&st->hdr.lock);

	if (wanted == KT_STATE_NOBODY || st->hdr.granted == DLM_LOCK_NL ||
	    st->hdr.broken || !st->hdr.exists)
		return;
	/* PR and PR agree: only a writer makes this node let go */
	if (st->hdr.granted == DLM_LOCK_PR && wanted <= DLM_LOCK_PR)
		return;
	kt_cluster_state_stale(st->clu->dev, st->sid);
	kt_state_drop_blocks(st);
	if (kt_dlm_lock_request(&st->hdr, DLM_LOCK_NL, DLM_LKF_VALBLK)) {
		/* still held: the other node waits until the next try */
		spin_lock_irq(&st->hdr.lock);
		st->wanted = max(st->wanted, wanted);
		spin_unlock_irq(&st->hdr.lock);
	}
}

static void kt_state_drop(struct work_struct *work)
{
	struct kt_cluster_state *st = container_of(work,
						   struct kt_cluster_state,
						   drop);

	mutex_lock(&st->mutex);
	kt_state_yield(st);
	mutex_unlock(&st->mutex);
}

static const struct {
	const char	*name;
	unsigned int	nr_blocks;
} kt_states[KT_CLUSTER_NR_STATES] = {
	[KT_CLUSTER_PR]		= { "state", KT_CLUSTER_STATE_BLOCKS },
	[KT_CLUSTER_ALUA]	= { "alua", KT_CLUSTER_ALUA_BLOCKS },
};

static int kt_state_init_one(struct kt_cluster_lu *clu, unsigned int sid)
{
	struct kt_cluster_state *st = &clu->state[sid];
	unsigned int i;

	st->clu = clu;
	st->sid = sid;
	st->nr_blocks = kt_states[sid].nr_blocks;
	strscpy(st->name, kt_states[sid].name, sizeof(st->name));
	mutex_init(&st->mutex);
	st->wanted = KT_STATE_NOBODY;
	INIT_WORK(&st->drop, kt_state_drop);
	kt_dlm_lock_setup(&st->hdr, clu, st->name, kt_state_bast);
	/* only DLM_LKF_VALBLK requests keep a value block: all of ours do */
	st->hdr.lksb.sb_lvbptr = st->hdr_lvb;
	st->blk = kvcalloc(st->nr_blocks, sizeof(*st->blk), GFP_KERNEL);
	if (!st->blk)
		return -ENOMEM;
	for (i = 1; i < st->nr_blocks; i++) {
		struct kt_state_block *b = &st->blk[i];

		snprintf(b->name, sizeof(b->name), "%s.%u", st->name, i);
		kt_dlm_lock_setup(&b->l, clu, b->name, NULL);
		b->l.lksb.sb_lvbptr = b->lvb;
	}
	return kt_dlm_lock_request(&st->hdr, DLM_LOCK_NL, DLM_LKF_VALBLK);
}

int kt_state_init(struct kt_cluster_lu *clu)
{
	unsigned int sid;
	int ret;

	for (sid = 0; sid < KT_CLUSTER_NR_STATES; sid++) {
		ret = kt_state_init_one(clu, sid);
		if (ret)
			return ret;
	}
	return 0;
}

static void kt_state_exit_one(struct kt_cluster_state *st)
{
	unsigned int i;

	if (!st->clu)
		return;		/* kt_state_init() stopped before it */
	spin_lock_irq(&st->hdr.lock);
	st->hdr.dying = true;		/* the blocking callback queues nothing */
	spin_unlock_irq(&st->hdr.lock);
	cancel_work_sync(&st->drop);
	kt_dlm_lock_exit(&st->hdr);
	if (st->blk)
		for (i = 1; i < st->nr_blocks; i++)
			kt_dlm_lock_exit(&st->blk[i].l);
	kvfree(st->blk);
}

/* No state_*() call runs or will start. */
void kt_state_exit(struct kt_cluster_lu *clu)
{
	unsigned int sid;

	for (sid = 0; sid < KT_CLUSTER_NR_STATES; sid++)
		kt_state_exit_one(&clu->state[sid]);
}

int kt_state_lock(struct kt_cluster_lu *clu, unsigned int sid, bool write)
{
	struct kt_cluster_state *st = &clu->state[sid];
	int ret = 0;

	mutex_lock(&st->mutex);
	st->hdr_dirty = false;
	if (st->hdr.broken) {
		ret = -EIO;
	} else if (st->hdr.granted == DLM_LOCK_EX) {
		/*
		 * Left in EX by a failed unlock: the value block holds what
		 * was read at the grant. Reading goes down without writing it.
		 */
		if (!write)
			ret = kt_dlm_lock_request(&st->hdr, DLM_LOCK_PR, 0);
	} else if (write) {
		if (st->hdr.granted == DLM_LOCK_PR) {
			/* until EX is granted, another writer may come first */
			kt_cluster_state_stale(clu->dev, sid);
			kt_state_drop_blocks(st);
			ret = kt_dlm_lock_request(&st->hdr, DLM_LOCK_NL,
						  DLM_LKF_VALBLK);
		}
		if (!ret) {
			/* a value the DLM no longer has reads as zeroes */
			memset(st->hdr_lvb, 0, sizeof(st->hdr_lvb));
			ret = kt_dlm_lock_request(&st->hdr, DLM_LOCK_EX,
						  DLM_LKF_VALBLK);
		}
	} else if (st->hdr.granted != DLM_LOCK_PR) {
		memset(st->hdr_lvb, 0, sizeof(st->hdr_lvb));
		ret = kt_dlm_lock_request(&st->hdr, DLM_LOCK_PR,
					  DLM_LKF_VALBLK);
	}
	if (ret)
		mutex_unlock(&st->mutex);
	return ret;
}

int kt_state_read(struct kt_cluster_lu *clu, unsigned int sid,
		  unsigned int blk, void *buf)
{
	struct kt_cluster_state *st = &clu->state[sid];
	struct kt_state_block *b;
	bool lost;
	int ret;

	if (!blk) {
		memcpy(buf, st->hdr_lvb, KT_CLUSTER_BLOCK_LEN);
		return st->hdr.lksb.sb_flags & DLM_SBF_VALNOTVALID ?
		       -ESTALE : 0;
	}
	if (WARN_ON_ONCE(blk >= st->nr_blocks))
		return -EINVAL;
	b = &st->blk[blk];
	if (b->l.broken)
		return -EIO;
	if (b->l.granted != DLM_LOCK_PR) {
		memset(b->lvb, 0, sizeof(b->lvb));
		ret = kt_dlm_lock_request(&b->l, DLM_LOCK_PR, DLM_LKF_VALBLK);
		if (ret)
			return ret;
	}
	lost = b->l.lksb.sb_flags & DLM_SBF_VALNOTVALID;
	memcpy(buf, b->lvb, KT_CLUSTER_BLOCK_LEN);
	return lost ? -ESTALE : 0;
}

int kt_state_write(struct kt_cluster_lu *clu, unsigned int sid,
		   unsigned int blk, const void *buf)
{
	struct kt_cluster_state *st = &clu->state[sid];
	struct kt_state_block *b;
	int ret;

	if (WARN_ON_ONCE(st->hdr.granted != DLM_LOCK_EX ||
			 blk >= st->nr_blocks))
		return -EINVAL;
	if (!blk) {
		memcpy(st->hdr_new, buf, KT_CLUSTER_BLOCK_LEN);
		st->hdr_dirty = true;
		return 0;
	}
	b = &st->blk[blk];
	if (b->l.broken)
		return -EIO;
	ret = kt_dlm_lock_request(&b->l, DLM_LOCK_EX, DLM_LKF_VALBLK);
	if (ret)
		return ret;
	memcpy(b->lvb, buf, KT_CLUSTER_BLOCK_LEN);
	return kt_dlm_lock_request(&b->l, DLM_LOCK_PR, DLM_LKF_VALBLK);
}

int kt_state_unlock(struct kt_cluster_lu *clu, unsigned int sid,
		    bool publish)
{
	struct kt_cluster_state *st = &clu->state[sid];
	int ret = 0;

	if (st->hdr.granted == DLM_LOCK_EX) {
		/* unpublished, the value read at the grant goes back */
		if (publish && st->hdr_dirty)
			memcpy(st->hdr_lvb, st->hdr_new, sizeof(st->hdr_lvb));
		ret = kt_dlm_lock_request(&st->hdr, DLM_LOCK_PR,
					  DLM_LKF_VALBLK);
		/* the core must not trust what it could not publish */
		if (ret)
			kt_cluster_state_stale(clu->dev, sid);
	} else if (publish) {
		ret = -EINVAL;
	}
	st->hdr_dirty = false;
	kt_state_yield(st);
	mutex_unlock(&st->mutex);
	return ret;
}
