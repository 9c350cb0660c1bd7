// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: the runtime side of TPGs: ACLs, sessions (I_T nexuses) and
 * the LUN a command addresses.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <ktarget/fabric.h>
#include <ktarget/objects.h>

#include "copy/xcopy.h"
#include "core.h"
#include "pr/pr.h"

static unsigned int sessions_per_initiator = 64;
module_param(sessions_per_initiator, uint, 0644);
MODULE_PARM_DESC(sessions_per_initiator,
		 "sessions one initiator name may have in a TPG (0: no bound)");

void kt_acl_init(struct kt_node_acl *acl, struct kt_tpg *tpg, const char *name)
{
	acl->tpg = tpg;
	strscpy(acl->name, name, sizeof(acl->name));
	acl->queue_depth = 128;
	xa_init(&acl->mapped);
	INIT_LIST_HEAD(&acl->node);
	kref_init(&acl->kref);
}

static void kt_acl_free(struct kref *kref)
{
	struct kt_node_acl *acl = container_of(kref, struct kt_node_acl, kref);
	struct kt_tpg *tpg = acl->tpg;

	xa_destroy(&acl->mapped);
	if (tpg->ops->free_acl)
		tpg->ops->free_acl(acl);
	else
		kfree(acl);
}

void kt_acl_put(struct kt_node_acl *acl)
{
	kref_put(&acl->kref, kt_acl_free);
}
EXPORT_SYMBOL_GPL(kt_acl_put);

/* The configured ACL of @initiator in @tpg, referenced; NULL if none. */
struct kt_node_acl *kt_tpg_find_acl(struct kt_tpg *tpg, const char *initiator)
{
	struct kt_node_acl *acl, *found = NULL;

	mutex_lock(&tpg->lock);
	list_for_each_entry(acl, &tpg->acls, node) {
		if (!strcmp(acl->name, initiator)) {
			kref_get(&acl->kref);
			found = acl;
			break;
		}
	}
	mutex_unlock(&tpg->lock);
	return found;
}
EXPORT_SYMBOL_GPL(kt_tpg_find_acl);

/* every registered session, for what crosses TPGs (PREEMPT AND ABORT) */
static LIST_HEAD(kt_all_sessions);
static DEFINE_SPINLOCK(kt_all_sessions_lock);

void kt_session_walk(kt_session_fn fn, void *arg)
{
	struct kt_session *sess;

	spin_lock(&kt_all_sessions_lock);
	list_for_each_entry(sess, &kt_all_sessions, all_node)
		fn(sess, arg);
	spin_unlock(&kt_all_sessions_lock);
}

/*
 * Under session_lock: @tpg's sessions of @new's initiator (names compare
 * without case, as iSCSI names do), up to @max. One with @new's ISID is
 * not counted: @new replaces it, and it is on its way out.
 */
static unsigned int kt_tpg_sessions_of(struct kt_tpg *tpg,
				       const struct kt_session *new,
				       unsigned int max)
{
	struct kt_session *sess;
	unsigned int n = 0;

	list_for_each_entry(sess, &tpg->sessions, node) {
		if (strcasecmp(sess->tid.name, new->tid.name))
			continue;
		if (sess->tid.has_isid && new->tid.has_isid &&
		    !memcmp(sess->tid.isid, new->tid.isid, sizeof(new->tid.isid)))
			continue;
		if (++n >= max)
			break;
	}
	return n;
}

/*
 * Register an I_T nexus. @acl is a referenced ACL from kt_tpg_find_acl(),
 * whose reference the session takes over, or NULL for demo mode
 * (generate_node_acls: the initiator sees every LUN of the TPG).
 * -EUSERS when the initiator has sessions_per_initiator in the TPG
 * already (ISIDs are the initiator's to choose: without a bound it could
 * make sessions until memory ran out), -ENOMEM.
 */
int kt_session_register(struct kt_session *sess, struct kt_tpg *tpg,
			struct kt_node_acl *acl, const char *initiator)
{
	unsigned int max = READ_ONCE(sessions_per_initiator);

	if (!acl && !tpg->generate_node_acls)
		return -EACCES;
	if (max) {
		spin_lock(&tpg->session_lock);
		if (kt_tpg_sessions_of(tpg, sess, max) >= max) {
			spin_unlock(&tpg->session_lock);
			pr_warn_ratelimited("%s has %u sessions in TPG %u: a login for another refused (sessions_per_initiator)\n",
					    sess->tid.name, max, tpg->tag);
			return -EUSERS;
		}
		spin_unlock(&tpg->session_lock);
	}
	if (kt_data_share_get(sess))
		return -ENOMEM;

	sess->tpg = tpg;
	sess->acl = acl;
	strscpy(sess->initiator, initiator, sizeof(sess->initiator));
	spin_lock_init(&sess->cmd_lock);
	INIT_LIST_HEAD(&sess->cmds);
	kt_ua_session_init(sess);
	kt_sgl_cache_init(sess);

	spin_lock(&tpg->session_lock);
	list_add_tail(&sess->node, &tpg->sessions);
	spin_unlock(&tpg->session_lock);
	spin_lock(&kt_all_sessions_lock);
	list_add_tail(&sess->all_node, &kt_all_sessions);
	spin_unlock(&kt_all_sessions_lock);
	kt_obj_inc(&kt_obj_sessions);
	return 0;
}
EXPORT_SYMBOL_GPL(kt_session_register);

void kt_session_unregister(struct kt_session *sess)
{
	struct kt_tpg *tpg = sess->tpg;

	spin_lock(&kt_all_sessions_lock);
	list_del_init(&sess->all_node);
	spin_unlock(&kt_all_sessions_lock);
	spin_lock(&tpg->session_lock);
	list_del_init(&sess->node);
	spin_unlock(&tpg->session_lock);
	WARN_ON_ONCE(!list_empty(&sess->cmds));
	kt_ua_session_exit(sess);
	kt_sgl_cache_exit(sess);
	kt_reserve_session_release(sess);
	kt_xcopy_session_release(sess);
	kt_data_share_put(sess);
	if (sess->acl)
		kt_acl_put(sess->acl);
	sess->acl = NULL;
	kt_obj_dec(&kt_obj_sessions);
}
EXPORT_SYMBOL_GPL(kt_session_unregister);

/*
 * The LUN @unpacked_lun as @sess sees it, with a reference on its
 * in-flight count, or NULL. *wp is set when the mapping is write-protected.
 */
struct kt_lun *kt_session_get_lun(struct kt_session *sess, u64 unpacked_lun,
				  bool *wp)
{
	struct kt_mapped_lun *mlun;
	struct kt_lun *lun = NULL;

	rcu_read_lock();
	if (sess->acl) {
		mlun = xa_load(&sess->acl->mapped, unpacked_lun);
		if (mlun) {
			lun = rcu_dereference(mlun->lun);
			*wp = READ_ONCE(mlun->write_protect);
		}
	} else {
		lun = xa_load(&sess->tpg->luns, unpacked_lun);
		*wp = sess->tpg->demo_write_protect;
	}
	/* pairs with the store-release in kt_lun_allow_link() */
	if (lun && (!smp_load_acquire(&lun->live) ||
		    !kt_lun_tryget(lun)))
		lun = NULL;
	rcu_read_unlock();
	return lun;
}

bool kt_session_lun_number(struct kt_session *sess, u64 tpg_lun, u64 *seen)
{
	struct kt_mapped_lun *mlun;
	struct kt_lun *lun;
	unsigned long idx;
	bool found = false;

	if (!sess->acl) {
		*seen = tpg_lun;
		return true;
	}
	rcu_read_lock();
	xa_for_each(&sess->acl->mapped, idx, mlun) {
		lun = rcu_dereference(mlun->lun);
		if (lun && lun->unpacked_lun == tpg_lun) {
			*seen = idx;
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}
EXPORT_SYMBOL_GPL(kt_session_lun_number);

/* One more LUN for kt_session_fill_luns(); false once @luns is full */
static bool kt_session_add_lun(u64 *luns, unsigned int max, unsigned int *n,
			       unsigned long idx)
{
	if (luns && *n == max)
		return false;
	if (luns)
		luns[*n] = idx;
	(*n)++;
	return true;
}

/*
 * The LUN numbers @sess can address, ascending, into @luns (at most @max of
 * them); with @luns NULL, how many there are.
 */
static unsigned int kt_session_fill_luns(struct kt_session *sess, u64 *luns,
					 unsigned int max)
{
	struct kt_mapped_lun *mlun;
	struct kt_lun *lun;
	unsigned long idx;
	unsigned int n = 0;

	rcu_read_lock();
	if (sess->acl) {
		xa_for_each(&sess->acl->mapped, idx, mlun) {
			lun = rcu_dereference(mlun->lun);
			if (lun && READ_ONCE(lun->live) &&
			    !kt_session_add_lun(luns, max, &n, idx))
				break;
		}
	} else {
		xa_for_each(&sess->tpg->luns, idx, lun) {
			if (READ_ONCE(lun->live) &&
			    !kt_session_add_lun(luns, max, &n, idx))
				break;
		}
	}
	rcu_read_unlock();
	return n;
}

/*
 * The LUN numbers @sess can address, ascending, in an array the caller
 * kvfree()s, their count in @nr; NULL when out of memory. A LUN added
 * between the count and the listing is left for the next call.
 */
u64 *kt_session_list_luns(struct kt_session *sess, unsigned int *nr)
{
	unsigned int max = kt_session_fill_luns(sess, NULL, 0);
	u64 *luns;

	luns = kvmalloc_array(max ?: 1, sizeof(*luns), GFP_KERNEL);
	if (!luns)
		return NULL;
	*nr = kt_session_fill_luns(sess, luns, max);
	return luns;
}
