// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: SPC-2 RESERVE (6)/(10) and RELEASE (6)/(10) (SPC-2 7.21,
 * 7.24; obsolete since SPC-3 but still used by clustering software). One
 * I_T nexus, the session, holds the whole logical unit; the reservation
 * ends with RELEASE, with the session (logout, I_T nexus loss) and with a
 * LUN or target reset. No third-party reservations, no extents.
 *
 * SPC-3 5.6.3 (and SPC-4 5.13.3 with CRH 0): while the logical unit has
 * persistent reservation registrations, RESERVE and RELEASE conflict; while
 * an SPC-2 reservation is held, PERSISTENT RESERVE IN/OUT conflict (pr.c).
 *
 * Devices an SPC-2 reservation of this node's holds are on one list, so
 * that a session going away finds them without knowing which LUNs it once
 * saw: a device is on it exactly while res.spc2_holder is set, both changed
 * under res.lock. The list's own lock is a spinlock taken inside res.lock
 * and never held across anything else: in cluster mode ending or taking a
 * reservation waits for the other nodes (up to a DLM timeout), under that
 * LU's res.lock only, so no other LU, and no receive path, waits for it.
 *
 * Cluster mode: the reservation is part of the LU's shared state
 * (pr_cluster.c); a node whose sessions do not hold it sees
 * res.spc2_elsewhere when another node's does. Every change is published.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/wait_bit.h>

#include <ktarget/fabric.h>
#include <ktarget/proto/cdb.h>
#include <ktarget/proto/pr.h>

#include "core.h"
#include "pr.h"

/* Lock order: dev->state->res.lock, then kt_reserved_lock */
static DEFINE_SPINLOCK(kt_reserved_lock);
static LIST_HEAD(kt_reserved_devs);

/* How long a device's removal waits for a session's release before it says so */
#define KT_RESERVE_RELEASE_WARN	(10 * HZ)

/* Under res.lock: this node's session @sess holds @res now, or none does. */
void kt_reserve_set_holder(struct kt_res *res, struct kt_session *sess)
{
	lockdep_assert_held(&res->lock);
	WRITE_ONCE(res->spc2_holder, sess);
	spin_lock(&kt_reserved_lock);
	if (!sess)
		list_del_init(&res->spc2_node);
	else if (list_empty(&res->spc2_node))
		list_add_tail(&res->spc2_node, &kt_reserved_devs);
	spin_unlock(&kt_reserved_lock);
}

static void kt_reserve_drop(struct kt_dev *dev)
{
	lockdep_assert_held(&dev->state->res.lock);
	kt_reserve_set_holder(&dev->state->res, NULL);
	dev->state->res.spc2_elsewhere = false;
	kt_res_update(dev);
}

/*
 * Under res.lock: end the reservation, on every node in cluster mode.
 * A node that cannot reach the others marks its copy stale (pr_cluster.c)
 * and so decides nothing until it can.
 */
static void kt_reserve_end(struct kt_dev *dev)
{
	if (!kt_reserve_held(&dev->state->res))
		return;
	if (kt_pr_cluster_begin(dev, true)) {
		/* the session may be going: this node lets go of it at least */
		kt_reserve_drop(dev);
		return;
	}
	if (kt_reserve_held(&dev->state->res))
		kt_reserve_drop(dev);
	kt_pr_cluster_end(dev, true);
}

sense_reason_t kt_reserve_check_locked(struct kt_cmd *cmd)
{
	lockdep_assert_held(&cmd->dev->state->res.lock);
	if (cmd->dev->state->res.spc2_holder == cmd->sess)
		return KT_SENSE_NONE;
	return kt_pr_check_reserve(cmd->desc);
}

static void kt_reserve_exec(struct kt_cmd *cmd)
{
	struct kt_dev *dev = cmd->dev;
	bool reserve = cmd->cdb[0] == RESERVE || cmd->cdb[0] == RESERVE_10;
	sense_reason_t ret = KT_SENSE_NONE;

	struct kt_res *res = &dev->state->res;
	bool changed = false;

	/* cluster mode: it may wait for the other nodes */
	if (kt_cluster_defer(cmd))
		return;
	mutex_lock(&res->lock);
	if (kt_pr_cluster_begin(dev, true)) {
		cmd->sense_asc_ascq = KT_ASC_NOT_READY_UNAVAILABLE;
		ret = KT_SENSE_NOT_READY;
		goto unlock;
	}
	if (res->nr_regs || res->type != KT_PR_TYPE_NONE) {
		ret = KT_SENSE_RESERVATION_CONFLICT;
	} else if (reserve) {
		if (!kt_reserve_held(res)) {
			kt_reserve_set_holder(res, cmd->sess);
			kt_res_update(dev);
			changed = true;
		} else if (res->spc2_holder != cmd->sess) {
			ret = KT_SENSE_RESERVATION_CONFLICT;
		}
	} else if (res->spc2_holder == cmd->sess) {
		kt_reserve_drop(dev);
		changed = true;
	}
	/* SPC-2 7.24: RELEASE from another nexus is GOOD and does nothing */
	if (kt_pr_cluster_end(dev, changed) && changed) {
		cmd->sense_asc_ascq = KT_ASC_NOT_READY_UNAVAILABLE;
		ret = KT_SENSE_NOT_READY;
	}
unlock:
	mutex_unlock(&res->lock);
	kt_cmd_complete(cmd, ret);
}

sense_reason_t kt_reserve_parse(struct kt_cmd *cmd, const struct kt_cdb *c,
				u32 *needed, enum kt_data_dir *dir)
{
	if (!cmd->dev)
		return KT_SENSE_LUN_NOT_SUPPORTED;
	*needed = 0;
	cmd->execute = kt_reserve_exec;
	return KT_SENSE_NONE;
}

/*
 * A device @sess holds a reservation of, marked as one a session release
 * works on (its release waits until that is over), or NULL. A device
 * going away (spc2_dying) is left to its own release.
 */
static struct kt_dev *kt_reserve_next_of(struct kt_session *sess)
{
	struct kt_res *res;

	spin_lock(&kt_reserved_lock);
	list_for_each_entry(res, &kt_reserved_devs, spc2_node) {
		if (READ_ONCE(res->spc2_holder) != sess || res->spc2_dying ||
		    res->spc2_releasing)
			continue;
		res->spc2_releasing = true;
		spin_unlock(&kt_reserved_lock);
		return container_of(res, struct kt_dev_state, res)->dev;
	}
	spin_unlock(&kt_reserved_lock);
	return NULL;
}

static bool kt_reserve_releasing(struct kt_res *res)
{
	bool busy;

	spin_lock(&kt_reserved_lock);
	busy = res->spc2_releasing;
	spin_unlock(&kt_reserved_lock);
	return busy;
}

/*
 * The session ends: SPC-2 5.5.1, its reservations are released. One device
 * at a time, the list's lock not held: in cluster mode each waits for the
 * other nodes. Ending one leaves res.spc2_holder NULL, so the loop ends.
 */
void kt_reserve_session_release(struct kt_session *sess)
{
	struct kt_dev *dev;
	struct kt_res *res;

	while ((dev = kt_reserve_next_of(sess))) {
		res = &dev->state->res;
		mutex_lock(&res->lock);
		if (res->spc2_holder == sess)
			kt_reserve_end(dev);
		mutex_unlock(&res->lock);
		spin_lock(&kt_reserved_lock);
		res->spc2_releasing = false;
		spin_unlock(&kt_reserved_lock);
		/* only the address: kt_reserve_dev_release() may free it now */
		wake_up_var(&res->spc2_releasing);
	}
}

/* A LUN reset or target reset (SAM-5 6.3.4) ends the reservation. */
void kt_reserve_reset(struct kt_dev *dev)
{
	mutex_lock(&dev->state->res.lock);
	kt_reserve_end(dev);
	mutex_unlock(&dev->state->res.lock);
}

/*
 * The device goes away: cluster mode is off, so this is local. A session
 * release that took it first is waited for; none takes it after.
 */
void kt_reserve_dev_release(struct kt_dev *dev)
{
	struct kt_res *res = &dev->state->res;

	spin_lock(&kt_reserved_lock);
	res->spc2_dying = true;
	spin_unlock(&kt_reserved_lock);
	/* bounded by that release's own DLM waits; say what holds it up */
	while (!wait_var_event_timeout(&res->spc2_releasing,
				       !kt_reserve_releasing(res),
				       KT_RESERVE_RELEASE_WARN))
		pr_warn_ratelimited("%s: removal waits for a session's release of its SPC-2 reservation\n",
				    config_item_name(&dev->group.cg_item));
	mutex_lock(&dev->state->res.lock);
	kt_reserve_drop(dev);
	mutex_unlock(&dev->state->res.lock);
}
