// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: a ceiling on the memory that the commands of all sessions
 * together hold in data buffers, target/data_buffer_limit_mb. A session's
 * CmdSN window bounds what one initiator pins (its commands times the
 * MAXIMUM TRANSFER LENGTH); this bounds what many pin at once. A command
 * whose buffer would pass the ceiling is answered TASK SET FULL before
 * anything is allocated, and its initiator retries as others complete.
 *
 * Within the ceiling, an initiator (its name, over all its sessions and
 * TPGs: many ISIDs make no difference) takes buffers only while it holds
 * no more than it leaves free: alone it gets half of the ceiling, and one
 * that holds nothing gets what is free. A few sessions that read their
 * Data-In one byte at a time then cannot keep everyone else at TASK SET
 * FULL.
 *
 * The count is a percpu_counter. A command charges what it asks for before
 * the check and what its buffer really has once allocated (a recycled one
 * may be larger), so the ceiling is passed by at most a batch per CPU and
 * the difference of buffers being allocated at that moment. A command
 * larger than the whole ceiling still runs when it is alone.
 *
 * Counted too: the buffers of running copies (EXTENDED COPY, WRITE USING
 * TOKEN; xcopy_buf.c) and the data and PI lists that stand in for a
 * buffer with PI interleaved (pi_wire.c). Not counted: the second buffers of VERIFY, COMPARE
 * AND WRITE, ORWRITE and WRITE SAME, the buffers a session keeps for reuse
 * (bounded per session, KT_SGL_CACHE_SLOTS) and the copy engine's spares
 * (four).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/percpu_counter.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include <ktarget/fabric.h>

#include "core.h"

#define KT_DATA_BATCH	64	/* pages a CPU counts before it shares them */

static struct percpu_counter kt_data_pages;
static unsigned long kt_data_limit_pages;	/* 0: no ceiling */

/* What the sessions of one initiator name hold */
struct kt_data_share {
	struct hlist_node	node;
	u64			key;		/* kt_nexus_key() of the name */
	unsigned int		sessions;	/* under kt_data_share_lock */
	atomic_long_t		pages;
};

static DEFINE_HASHTABLE(kt_data_shares, 8);
static DEFINE_SPINLOCK(kt_data_share_lock);

/* A new session's initiator's share: 0 or -ENOMEM. */
int kt_data_share_get(struct kt_session *sess)
{
	u64 key = kt_nexus_key(sess->tid.name, NULL);
	struct kt_data_share *s, *fresh;

	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
	if (!fresh)
		return -ENOMEM;
	spin_lock(&kt_data_share_lock);
	hash_for_each_possible(kt_data_shares, s, node, key)
		if (s->key == key)
			goto found;
	s = fresh;
	fresh = NULL;
	s->key = key;
	hash_add(kt_data_shares, &s->node, key);
found:
	s->sessions++;
	spin_unlock(&kt_data_share_lock);
	kfree(fresh);
	sess->data_share = s;
	return 0;
}

void kt_data_share_put(struct kt_session *sess)
{
	struct kt_data_share *s = sess->data_share;

	if (!s)
		return;
	sess->data_share = NULL;
	spin_lock(&kt_data_share_lock);
	if (--s->sessions) {
		s = NULL;
	} else {
		WARN_ON_ONCE(atomic_long_read(&s->pages));
		hash_del(&s->node);
	}
	spin_unlock(&kt_data_share_lock);
	kfree(s);
}

int kt_data_limit_init(void)
{
	/* a quarter of RAM: buffers never push the rest of the system out */
	kt_data_limit_pages = totalram_pages() / 4;
	return percpu_counter_init(&kt_data_pages, 0, GFP_KERNEL);
}

void kt_data_limit_exit(void)
{
	percpu_counter_destroy(&kt_data_pages);
}

void kt_data_limit_charge(struct kt_session *sess, unsigned int pages)
{
	percpu_counter_add_batch(&kt_data_pages, pages, KT_DATA_BATCH);
	atomic_long_add(pages, &sess->data_share->pages);
}

void kt_data_limit_uncharge(struct kt_session *sess, unsigned int pages)
{
	percpu_counter_add_batch(&kt_data_pages, -(s64)pages, KT_DATA_BATCH);
	atomic_long_sub(pages, &sess->data_share->pages);
}

/*
 * Charge @pages to @sess's initiator for a buffer; false (nothing charged,
 * and a warning) when what it then holds and what all hold together pass
 * the ceiling while other buffers are held.
 */
bool kt_data_limit_try_charge(struct kt_session *sess, unsigned int pages)
{
	unsigned long limit = READ_ONCE(kt_data_limit_pages);
	long mine;

	kt_data_limit_charge(sess, pages);
	mine = atomic_long_read(&sess->data_share->pages);
	if (!limit || (mine <= limit &&
		       __percpu_counter_compare(&kt_data_pages, limit - mine,
						KT_DATA_BATCH) <= 0))
		return true;
	/* the exact sum, only on this path: alone, a command may run */
	if (percpu_counter_sum(&kt_data_pages) <= pages)
		return true;
	kt_data_limit_uncharge(sess, pages);
	pr_warn_ratelimited("data buffers of all sessions are at data_buffer_limit_mb=%lu, %s's at its share: commands get TASK SET FULL, copies smaller buffers, until others complete\n",
			    limit >> (20 - PAGE_SHIFT), sess->initiator);
	return false;
}

unsigned long kt_data_limit_mb(void)
{
	return READ_ONCE(kt_data_limit_pages) >> (20 - PAGE_SHIFT);
}

/* 0 lifts the ceiling; above the machine's RAM it means nothing. */
int kt_data_limit_set_mb(unsigned long mb)
{
	unsigned long ram_mb = totalram_pages() >> (20 - PAGE_SHIFT);

	if (mb > ram_mb) {
		pr_warn_ratelimited("data_buffer_limit_mb: %lu is more than the %lu MiB of RAM\n",
				    mb, ram_mb);
		return -EINVAL;
	}
	WRITE_ONCE(kt_data_limit_pages, mb << (20 - PAGE_SHIFT));
	pr_info("data buffers of all sessions limited to %lu MiB%s\n", mb,
		mb ? "" : " (no limit)");
	return 0;
}
