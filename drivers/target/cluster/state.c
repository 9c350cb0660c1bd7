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
 *   state_read(N)       state.N NL -> CR -> NL, which reads its value
 *   state_write(N)      state.N NL -> EX -> NL, which writes it
 *   state_unlock()      header EX -> PR, writing its value when the change
 *                       is published; NL when another node asked for EX
 *
 * Between uses this node keeps the header in PR, and its copy of the state
 * is current for as long as it does. Another node's request for EX comes
 * as a blocking callback: the core hears that its copy is stale, then the
 * header drops to NL. Block locks stay in NL once made, so that a block's
 * value outlives the node that wrote it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dlm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cluster_lu.h"

#define KT_STATE_NOBODY		DLM_LOCK_IV	/* no node waits */

static struct kt_cluster_lu *hdr_to_clu(struct kt_dlm_lock *l)
{
	return container_of(l, struct kt_cluster_lu, state.hdr);
}

/* Another node wants the header in @mode, which conflicts with ours. */
static void kt_state_bast(void *arg, int mode)
{
	struct kt_dlm_lock *l = arg;
	struct kt_cluster_state *st = &hdr_to_clu(l)->state;
	unsigned long flags;

	spin_lock_irqsave(&l->lock, flags);
	st->wanted = max(st->wanted, mode);
	if (!l->dying)
		queue_work(kt_cluster_wq, &st->drop);
	spin_unlock_irqrestore(&l->lock, flags);
}

/*
 * Under st->mutex: let another node have the header. A PR this node keeps
 * only blocks a writer; the core hears its copy is stale before the writer
 * can be granted.
 */
static void kt_state_yield(struct kt_cluster_lu *clu)
{
	struct kt_cluster_state *st = &clu->state;
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
	kt_cluster_state_stale(clu->dev);
	if (kt_dlm_lock_request(&st->hdr, DLM_LOCK_NL, 0)) {
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
	kt_state_yield(hdr_to_clu(&st->hdr));
	mutex_unlock(&st->mutex);
}

int kt_state_init(struct kt_cluster_lu *clu)
{
	struct kt_cluster_state *st = &clu->state;
	unsigned int i;

	mutex_init(&st->mutex);
	st->wanted = KT_STATE_NOBODY;
	INIT_WORK(&st->drop, kt_state_drop);
	kt_dlm_lock_setup(&st->hdr, clu, "state", kt_state_bast);
	st->hdr.lksb.sb_lvbptr = st->hdr_lvb;
	st->blk = kvcalloc(KT_CLUSTER_STATE_BLOCKS, sizeof(*st->blk),
			   GFP_KERNEL);
	if (!st->blk)
		return -ENOMEM;
	for (i = 1; i < KT_CLUSTER_STATE_BLOCKS; i++) {
		struct kt_state_block *b = &st->blk[i];

		snprintf(b->name, sizeof(b->name), "state.%u", i);
		kt_dlm_lock_setup(&b->l, clu, b->name, NULL);
		b->l.lksb.sb_lvbptr = b->lvb;
	}
	return kt_dlm_lock_request(&st->hdr, DLM_LOCK_NL, 0);
}

/* No state_*() call runs or will start. */
void kt_state_exit(struct kt_cluster_lu *clu)
{
	struct kt_cluster_state *st = &clu->state;
	unsigned int i;

	spin_lock_irq(&st->hdr.lock);
	st->hdr.dying = true;		/* the blocking callback queues nothing */
	spin_unlock_irq(&st->hdr.lock);
	cancel_work_sync(&st->drop);
	kt_dlm_lock_exit(&st->hdr);
	if (st->blk)
		for (i = 1; i < KT_CLUSTER_STATE_BLOCKS; i++)
			kt_dlm_lock_exit(&st->blk[i].l);
	kvfree(st->blk);
}

int kt_state_lock(struct kt_cluster_lu *clu, bool write)
{
	struct kt_cluster_state *st = &clu->state;
	int ret = 0;

	mutex_lock(&st->mutex);
	if (st->hdr.broken) {
		ret = -EIO;
	} else if (write) {
		if (st->hdr.granted == DLM_LOCK_PR) {
			/* until EX is granted, another writer may come first */
			kt_cluster_state_stale(clu->dev);
			ret = kt_dlm_lock_request(&st->hdr, DLM_LOCK_NL, 0);
		}
		if (!ret)
			ret = kt_dlm_lock_request(&st->hdr, DLM_LOCK_EX,
						  DLM_LKF_VALBLK);
	} else if (st->hdr.granted != DLM_LOCK_PR) {
		ret = kt_dlm_lock_request(&st->hdr, DLM_LOCK_PR,
					  DLM_LKF_VALBLK);
	}
	if (ret)
		mutex_unlock(&st->mutex);
	return ret;
}

int kt_state_read(struct kt_cluster_lu *clu, unsigned int blk, void *buf)
{
	struct kt_cluster_state *st = &clu->state;
	struct kt_state_block *b;
	bool lost;
	int ret;

	if (!blk) {
		memcpy(buf, st->hdr_lvb, KT_CLUSTER_BLOCK_LEN);
		return st->hdr.lksb.sb_flags & DLM_SBF_VALNOTVALID ?
		       -ESTALE : 0;
	}
	if (WARN_ON_ONCE(blk >= KT_CLUSTER_STATE_BLOCKS))
		return -EINVAL;
	b = &st->blk[blk];
	ret = kt_dlm_lock_request(&b->l, DLM_LOCK_CR, DLM_LKF_VALBLK);
	if (ret)
		return ret;
	lost = b->l.lksb.sb_flags & DLM_SBF_VALNOTVALID;
	memcpy(buf, b->lvb, KT_CLUSTER_BLOCK_LEN);
	ret = kt_dlm_lock_request(&b->l, DLM_LOCK_NL, 0);
	return ret ?: lost ? -ESTALE : 0;
}

int kt_state_write(struct kt_cluster_lu *clu, unsigned int blk,
		   const void *buf)
{
	struct kt_cluster_state *st = &clu->state;
	struct kt_state_block *b;
	int ret;

	if (WARN_ON_ONCE(st->hdr.granted != DLM_LOCK_EX ||
			 blk >= KT_CLUSTER_STATE_BLOCKS))
		return -EINVAL;
	if (!blk) {
		memcpy(st->hdr_lvb, buf, KT_CLUSTER_BLOCK_LEN);
		return 0;
	}
	b = &st->blk[blk];
	ret = kt_dlm_lock_request(&b->l, DLM_LOCK_EX, DLM_LKF_VALBLK);
	if (ret)
		return ret;
	memcpy(b->lvb, buf, KT_CLUSTER_BLOCK_LEN);
	return kt_dlm_lock_request(&b->l, DLM_LOCK_NL, DLM_LKF_VALBLK);
}

void kt_state_unlock(struct kt_cluster_lu *clu, bool publish)
{
	struct kt_cluster_state *st = &clu->state;

	if (st->hdr.granted == DLM_LOCK_EX &&
	    kt_dlm_lock_request(&st->hdr, DLM_LOCK_PR,
				publish ? DLM_LKF_VALBLK : 0)) {
		/* the core must not trust what it did not publish */
		kt_cluster_state_stale(clu->dev);
	}
	kt_state_yield(clu);
	mutex_unlock(&st->mutex);
}
