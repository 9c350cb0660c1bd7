// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: the ROD tokens POPULATE TOKEN makes.
 *
 * A token is a capability to read the blocks it names, so it is made
 * unguessable and checked whole: 256 of its 512 bytes come from
 * get_random_bytes(), and WRITE USING TOKEN finds it by its identifier and
 * then compares every byte with the copy kept here. A token may be used
 * from any I_T nexus (Windows populates on one and writes on another),
 * for the LU that nexus writes to, with the checks a WRITE would face.
 *
 * It is a point in time copy that a change revokes: a write to any of its
 * source blocks (by any command, or by a copy) marks it revoked, and the
 * copy engine checks that after each READ of it. Writes watch a token while
 * it is live or a copy uses it (@users), whatever became of it since: a
 * copy that outlives its token's timeout, or another copy's DEL_TKN,
 * still learns of a change. It expires after its inactivity timeout (not
 * while in use); unusable tokens stay KT_ROD_GRACE to tell why, then are
 * freed. Each LU keeps at most rod_tokens_per_lu of them; when they are
 * all taken, the next POPULATE TOKEN frees one, its biggest holder's
 * first (kt_rod_evict()), so that no nexus can lock the others out.
 * A write that began before a token was made and lands after it would
 * change it unseen: such a write revokes, when it completes, the tokens
 * over its blocks made while it was under way (kt_rod_write_end()).
 *
 * Two spinlocks. Each LU's (rod.lock) covers its list of tokens and
 * their state: a write of the LU takes it alone, and only while the LU has
 * live tokens, so writes to different LUs never meet here. kt_rod_lock
 * covers the table of identifiers; whatever else reaches a token (make,
 * find, done, reap, a LUN or LU going) takes it first, then the token's
 * LU lock, so a token found in the table has a LU that is still there.
 * A token joins or leaves the table and its LU's list under both.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/algapi.h>
#include <linux/hashtable.h>
#include <linux/jiffies.h>
#include <linux/kref.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <ktarget/cmd.h>
#include <ktarget/fabric.h>
#include <ktarget/proto/spc.h>

#include "core.h"
#include "lun.h"
#include "rod.h"
#include "scsi/cmdsets.h"

#define KT_ROD_HASH_BITS	8
#define KT_ROD_GRACE		(60 * HZ)	/* an unusable token is kept */

static unsigned int rod_tokens_per_lu = 128;
module_param(rod_tokens_per_lu, uint, 0644);
MODULE_PARM_DESC(rod_tokens_per_lu,
		 "ROD tokens (ODX) one logical unit keeps at most (1-4096)");

enum kt_rod_state {
	KT_ROD_LIVE,
	KT_ROD_REVOKED,		/* its source changed, or its LUN went */
	KT_ROD_EXPIRED,
	KT_ROD_DELETED,		/* DEL_TKN */
};

struct kt_rod_token {
	struct kref		kref;
	struct hlist_node	id_node;	/* kt_rod_ids */
	struct list_head	dev_node;	/* dev->state->rod.tokens */
	struct kt_dev		*dev;		/* whose blocks it names */
	struct kt_lun		*lun;		/* made through; NULL once gone */
	u64			nexus;		/* who made it: nexus_key */
	u64			id;
	s64			seq;		/* its LU's rod.made once made */
	unsigned long		used;		/* jiffies: made, or last used */
	unsigned long		timeout;	/* jiffies of inactivity */
	unsigned long		dead_since;	/* jiffies: no longer usable */
	u8			state;		/* enum kt_rod_state */
	bool			changed;	/* a source block was written */
	unsigned int		users;		/* copies reading through it */
	u32			block_size;
	struct kt_rod_ranges	ranges;
	u8			bytes[KT_ROD_TOKEN_LEN];
};

static DEFINE_SPINLOCK(kt_rod_lock);
static DEFINE_HASHTABLE(kt_rod_ids, KT_ROD_HASH_BITS);
static unsigned int kt_rod_count;
static atomic64_t kt_rod_next_id;
static void kt_rod_reap(struct work_struct *work);
static DECLARE_DELAYED_WORK(kt_rod_reap_work, kt_rod_reap);

static void kt_rod_token_free(struct kref *kref)
{
	kfree(container_of(kref, struct kt_rod_token, kref));
}

void kt_rod_token_put(struct kt_rod_token *t)
{
	kref_put(&t->kref, kt_rod_token_free);
}

const u8 *kt_rod_token_bytes(const struct kt_rod_token *t)
{
	return t->bytes;
}

const struct kt_rod_ranges *kt_rod_token_ranges(const struct kt_rod_token *t)
{
	return &t->ranges;
}

u32 kt_rod_token_block_size(const struct kt_rod_token *t)
{
	return t->block_size;
}

bool kt_rod_token_revoked(const struct kt_rod_token *t)
{
	return READ_ONCE(t->changed);
}

/* Writes to its source must look at it: it is live, or a copy reads it. */
static bool kt_rod_watched(const struct kt_rod_token *t)
{
	return t->state == KT_ROD_LIVE || t->users;
}

/*
 * A live token stops being usable; writes stop looking at it once no
 * copy uses it either.
 */
static void kt_rod_kill(struct kt_rod_token *t, enum kt_rod_state why,
			unsigned long since)
{
	lockdep_assert_held(&t->dev->state->rod.lock);
	if (t->state != KT_ROD_LIVE)
		return;
	t->state = why;
	t->dead_since = since;
	if (!t->users)
		atomic_dec(&t->dev->state->rod.live);
}

static bool kt_rod_timed_out(const struct kt_rod_token *t, unsigned long now)
{
	return time_after(now, t->used + t->timeout);
}

/* Out of the table; the caller puts the table's reference. */
static void kt_rod_unlink(struct kt_rod_token *t)
{
	lockdep_assert_held(&kt_rod_lock);
	lockdep_assert_held(&t->dev->state->rod.lock);
	kt_rod_kill(t, KT_ROD_DELETED, jiffies);
	hash_del(&t->id_node);
	list_del(&t->dev_node);
	t->dev->state->rod.nr--;
	kt_rod_count--;
}

/*
 * Expire what timed out; free what has been unusable for KT_ROD_GRACE
 * (@all_dead: what is unusable at all). A token in use stays as it is.
 */
static bool kt_rod_reap_one(struct kt_rod_token *t, unsigned long now,
			    bool all_dead)
{
	if (t->users)
		return false;
	if (t->state == KT_ROD_LIVE && kt_rod_timed_out(t, now))
		kt_rod_kill(t, KT_ROD_EXPIRED, t->used + t->timeout);
	if (t->state == KT_ROD_LIVE ||
	    (!all_dead && !time_after(now, t->dead_since + KT_ROD_GRACE)))
		return false;
	kt_rod_unlink(t);
	kt_rod_token_put(t);
	return true;
}

/* How many tokens of @dev's table @nexus made. */
static unsigned int kt_rod_held_by(struct kt_dev *dev, u64 nexus)
{
	struct kt_rod_token *t;
	unsigned int n = 0;

	list_for_each_entry(t, &dev->state->rod.tokens, dev_node)
		n += t->nexus == nexus;
	return n;
}

/*
 * The LU's table is full: one nexus must not keep the others out. A
 * nexus that holds at least half of it pays for its next token with its
 * own oldest; any other takes the oldest of the nexus that holds more
 * than half, if one does (at most one can: found by majority vote), or
 * else the table's oldest. A token a copy is reading is never taken.
 * True if one was freed.
 */
static bool kt_rod_evict(struct kt_dev *dev, u64 nexus, unsigned int max)
{
	static const char *const whose[] = {
		"the requester's own, it holds half of the table or more",
		"of the nexus holding most of the table",
		"the table's oldest",
	};
	struct kt_rod_token *t, *victim = NULL;
	unsigned int votes = 0, why = 0;
	u64 big = 0;

	lockdep_assert_held(&dev->state->rod.lock);
	if (kt_rod_held_by(dev, nexus) * 2 < max) {
		list_for_each_entry(t, &dev->state->rod.tokens, dev_node) {
			if (!votes)
				big = t->nexus;
			votes += big == t->nexus ? 1 : -1;
		}
		why = votes && kt_rod_held_by(dev, big) * 2 > max ? 1 : 2;
		nexus = big;
	}
	list_for_each_entry(t, &dev->state->rod.tokens, dev_node) {
		if ((why == 2 || t->nexus == nexus) && !t->users) {
			victim = t;
			break;
		}
	}
	if (!victim)
		return false;
	pr_info_ratelimited("device %u: ROD token table full (rod_tokens_per_lu=%u): a token goes, %s\n",
			    dev->index, max, whose[why]);
	kt_rod_unlink(victim);
	kt_rod_token_put(victim);
	return true;
}

static void kt_rod_reap(struct work_struct *work)
{
	unsigned long now = jiffies;
	struct kt_rod_token *t;
	struct hlist_node *tmp;
	bool again;
	int bkt;

	spin_lock_irq(&kt_rod_lock);
	hash_for_each_safe(kt_rod_ids, bkt, tmp, t, id_node) {
		spinlock_t *lock = &t->dev->state->rod.lock;

		spin_lock(lock);
		kt_rod_reap_one(t, now, false);
		spin_unlock(lock);
	}
	again = kt_rod_count;
	spin_unlock_irq(&kt_rod_lock);
	if (again)
		schedule_delayed_work(&kt_rod_reap_work, HZ);
}

struct kt_rod_token *kt_rod_token_make(struct kt_cmd *cmd,
				       const struct kt_rod_pt *pt,
				       struct kt_xcopy_err *err)
{
	struct kt_dev *dev = cmd->dev;
	struct kt_rod_token_info info = {
		.type = KT_ROD_TYPE_PIT_VULNERABLE,
		.block_size = dev->attrib.block_size,
		.bytes = pt->ranges.blocks * dev->attrib.block_size,
		.id = atomic64_inc_return(&kt_rod_next_id),
	};
	struct kt_rod_token *t, *old, *tmp;
	unsigned int max = clamp_t(unsigned int, READ_ONCE(rod_tokens_per_lu),
				   1, 4096);
	struct kt_lu_info lu;
	u32 secs;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t) {
		kt_rod_sense(err, KT_ROD_ASC_INSUFFICIENT);
		return NULL;
	}
	kref_init(&t->kref);		/* the table's */
	kref_get(&t->kref);		/* the caller's */
	t->dev = dev;
	t->lun = cmd->lun;
	t->nexus = cmd->sess->nexus_key;
	t->id = info.id;
	t->block_size = info.block_size;
	t->ranges = pt->ranges;
	secs = pt->timeout ?: READ_ONCE(dev->attrib.rod_inactivity_timeout);
	t->timeout = secs * HZ;
	kt_lu_info_fill(cmd, &lu);
	kt_spc_naa(&lu, info.naa);
	kt_rod_token_build(&info, t->bytes);
	get_random_bytes(t->bytes + KT_ROD_TOK_RANDOM, KT_ROD_TOK_RANDOM_LEN);

	spin_lock_irq(&kt_rod_lock);
	spin_lock(&dev->state->rod.lock);
	/* room: first from this LU's unusable tokens */
	if (dev->state->rod.nr >= max) {
		list_for_each_entry_safe(old, tmp, &dev->state->rod.tokens,
					 dev_node)
			if (kt_rod_reap_one(old, jiffies, true) &&
			    dev->state->rod.nr < max)
				break;
	}
	if (dev->state->rod.nr >= max)
		kt_rod_evict(dev, t->nexus, max);
	if (dev->state->rod.nr >= max) {
		spin_unlock(&dev->state->rod.lock);
		spin_unlock_irq(&kt_rod_lock);
		pr_warn_ratelimited("device %u: POPULATE TOKEN refused: it holds %u ROD tokens (rod_tokens_per_lu)\n",
				    dev->index, dev->state->rod.nr);
		kfree(t);
		kt_rod_sense(err, KT_ROD_ASC_INSUFFICIENT);
		return NULL;
	}
	t->used = jiffies;
	hash_add(kt_rod_ids, &t->id_node, t->id);
	list_add_tail(&t->dev_node, &dev->state->rod.tokens);
	dev->state->rod.nr++;
	atomic_inc(&dev->state->rod.live);
	/*
	 * live before made (atomic64_inc_return() is fully ordered): a write
	 * that reads the new count at its start (kt_rod_write_begin()) sees
	 * the token live; one that read the old count sees the new one when
	 * it ends, and revokes it then
	 */
	t->seq = atomic64_inc_return(&dev->state->rod.made);
	kt_rod_count++;
	spin_unlock(&dev->state->rod.lock);
	spin_unlock_irq(&kt_rod_lock);
	schedule_delayed_work(&kt_rod_reap_work, HZ);
	return t;
}

static u16 kt_rod_state_asc(enum kt_rod_state s)
{
	switch (s) {
	case KT_ROD_REVOKED:
		return KT_ROD_ASC_TOKEN_REVOKED;
	case KT_ROD_EXPIRED:
		return KT_ROD_ASC_TOKEN_EXPIRED;
	default:
		return KT_ROD_ASC_TOKEN_DELETED;
	}
}

struct kt_rod_token *kt_rod_token_find(const u8 *tok, struct kt_lun **lun,
				       struct kt_xcopy_err *err)
{
	struct kt_rod_token_info info;
	struct kt_rod_token *t;
	unsigned long now = jiffies;
	u16 asc = KT_ROD_ASC_TOKEN_UNKNOWN;

	if (kt_rod_token_read(tok, &info, err))
		return NULL;
	spin_lock_irq(&kt_rod_lock);
	hash_for_each_possible(kt_rod_ids, t, id_node, info.id) {
		if (t->id != info.id)
			continue;
		if (crypto_memneq(t->bytes, tok, KT_ROD_TOKEN_LEN)) {
			asc = KT_ROD_ASC_TOKEN_CORRUPT;
			break;
		}
		spin_lock(&t->dev->state->rod.lock);
		if (t->state == KT_ROD_LIVE && kt_rod_timed_out(t, now))
			kt_rod_kill(t, KT_ROD_EXPIRED, t->used + t->timeout);
		/* its LUN is going: no command can read through it now */
		if (t->state == KT_ROD_LIVE && (!t->lun || !kt_lun_tryget(t->lun)))
			kt_rod_kill(t, KT_ROD_REVOKED, now);
		if (t->state != KT_ROD_LIVE) {
			asc = kt_rod_state_asc(t->state);
			spin_unlock(&t->dev->state->rod.lock);
			break;
		}
		*lun = t->lun;
		t->users++;
		kref_get(&t->kref);
		spin_unlock(&t->dev->state->rod.lock);
		spin_unlock_irq(&kt_rod_lock);
		return t;
	}
	spin_unlock_irq(&kt_rod_lock);
	kt_rod_sense(err, asc);
	return NULL;
}

void kt_rod_token_done(struct kt_rod_token *t, bool del, bool moved)
{
	spin_lock_irq(&kt_rod_lock);
	spin_lock(&t->dev->state->rod.lock);
	/* a use that moves nothing does not keep a token alive */
	if (moved)
		t->used = jiffies;
	if (del)
		kt_rod_kill(t, KT_ROD_DELETED, jiffies);
	if (!--t->users && t->state != KT_ROD_LIVE)
		atomic_dec(&t->dev->state->rod.live);
	spin_unlock(&t->dev->state->rod.lock);
	spin_unlock_irq(&kt_rod_lock);
	kt_rod_token_put(t);
}

static bool kt_rod_overlaps(const struct kt_rod_ranges *r, u64 lba, u64 nr)
{
	unsigned int i;

	if (!nr)
		return true;
	for (i = 0; i < r->nr; i++)
		if (r->r[i].lba < lba + nr && lba < r->r[i].lba + r->r[i].nr)
			return true;
	return false;
}

void kt_rod_revoke(struct kt_dev *dev, u64 lba, u64 nr)
{
	struct kt_rod_token *t;
	unsigned long flags;

	spin_lock_irqsave(&dev->state->rod.lock, flags);
	list_for_each_entry(t, &dev->state->rod.tokens, dev_node)
		if (kt_rod_watched(t) && kt_rod_overlaps(&t->ranges, lba, nr)) {
			WRITE_ONCE(t->changed, true);
			kt_rod_kill(t, KT_ROD_REVOKED, jiffies);
			pr_debug("device %u: ROD token %llu revoked by a write at LBA %llu\n",
				 dev->index, t->id, lba);
		}
	spin_unlock_irqrestore(&dev->state->rod.lock, flags);
}

/* from any context; walks the LU's tokens (rod_tokens_per_lu at most) */
void kt_rod_revoke_since(struct kt_dev *dev, u64 lba, u64 nr, s64 made)
{
	struct kt_rod_token *t;
	unsigned long flags;

	spin_lock_irqsave(&dev->state->rod.lock, flags);
	list_for_each_entry(t, &dev->state->rod.tokens, dev_node)
		if (t->seq > made && kt_rod_watched(t) &&
		    kt_rod_overlaps(&t->ranges, lba, nr)) {
			WRITE_ONCE(t->changed, true);
			kt_rod_kill(t, KT_ROD_REVOKED, jiffies);
			pr_debug("device %u: ROD token %llu revoked: a write under way as it was made landed at LBA %llu\n",
				 dev->index, t->id, lba);
		}
	spin_unlock_irqrestore(&dev->state->rod.lock, flags);
}

void kt_rod_lun_gone(struct kt_lun *lun)
{
	struct kt_rod_token *t;
	int bkt;

	spin_lock_irq(&kt_rod_lock);
	hash_for_each(kt_rod_ids, bkt, t, id_node) {
		spinlock_t *lock = &t->dev->state->rod.lock;

		spin_lock(lock);
		if (t->lun == lun) {
			t->lun = NULL;
			kt_rod_kill(t, KT_ROD_REVOKED, jiffies);
		}
		spin_unlock(lock);
	}
	spin_unlock_irq(&kt_rod_lock);
}

void kt_rod_dev_init(struct kt_dev *dev)
{
	struct kt_rod_dev *rod = &dev->state->rod;

	spin_lock_init(&rod->lock);
	INIT_LIST_HEAD(&rod->tokens);
	atomic_set(&rod->live, 0);
	atomic64_set(&rod->made, 0);
}

void kt_rod_dev_release(struct kt_dev *dev)
{
	struct kt_rod_token *t, *tmp;

	spin_lock_irq(&kt_rod_lock);
	spin_lock(&dev->state->rod.lock);
	list_for_each_entry_safe(t, tmp, &dev->state->rod.tokens, dev_node) {
		kt_rod_unlink(t);
		kt_rod_token_put(t);
	}
	spin_unlock(&dev->state->rod.lock);
	spin_unlock_irq(&kt_rod_lock);
}

int kt_rod_init(void)
{
	u64 start;

	/* identifiers need not be secret, but need not say how many came */
	get_random_bytes(&start, sizeof(start));
	atomic64_set(&kt_rod_next_id, start >> 1);
	return 0;
}

void kt_rod_exit(void)
{
	cancel_delayed_work_sync(&kt_rod_reap_work);
	WARN_ON_ONCE(kt_rod_count);
}
