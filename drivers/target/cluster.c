// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: a device's cluster mode, configured through
 * core/HBA_N/NAME/cluster/ (configfs/dev_cluster.c):
 *
 *   lockspace  the DLM lockspace the nodes serving this LU share; written
 *              while cluster mode is off; empty means "kt_" and the unit
 *              serial (wwn/vpd_unit_serial), which the nodes set alike
 *   enable     1 joins the lockspace, 0 leaves it; only while no LUN
 *              exports the device, so that no command ever ran with the
 *              other mode's state (0 also cancels cluster_default's join)
 *   node_id    this node's id in the cluster, 0 while off
 *   members    the node ids in the lockspace, one line
 *   alua_takeover  the id of this node's target port group that becomes
 *              Active/Optimized when another node leaves (0: none)
 *
 * The cluster module (ktarget_cluster, which needs the kernel's dlm) is
 * loaded on the first enable and registers its ops here.
 *
 * With ktarget_core's cluster_default=1, every new device joins when a LUN
 * first links it, so that tools which build a device and its LUN in one
 * go (Pacemaker's iSCSILogicalUnit, targetcli restores) get cluster mode
 * without a step of their own.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

#include <ktarget/backend.h>
#include <ktarget/cluster.h>

#include "alua/alua.h"
#include "cluster.h"
#include "copy/rod_watch.h"
#include "core.h"
#include "pr/pr.h"

static bool cluster_default;
module_param(cluster_default, bool, 0644);
MODULE_PARM_DESC(cluster_default,
		 "new devices join their cluster lockspace when a LUN first links them");

static DEFINE_MUTEX(kt_cluster_ops_lock);
static const struct kt_cluster_ops *kt_cluster_ops;

/* the commands that may wait for the other nodes (kt_cluster_defer()) */
static struct workqueue_struct *kt_cluster_cmd_wq;

int kt_cluster_init(void)
{
	kt_cluster_cmd_wq = alloc_workqueue("kt_cluster_cmd",
					    WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return kt_cluster_cmd_wq ? 0 : -ENOMEM;
}

void kt_cluster_exit(void)
{
	destroy_workqueue(kt_cluster_cmd_wq);
}

static void kt_cluster_cmd_work(struct work_struct *work)
{
	struct kt_cmd *cmd = container_of(work, struct kt_cmd, defer_work);
	sense_reason_t reason;

	/* a task management function came meanwhile */
	if (test_bit(KT_CMD_ABORTED, &cmd->flags)) {
		kt_cmd_complete(cmd, KT_SENSE_ABORTED_COMMAND);
		return;
	}
	if (test_bit(KT_CMD_LOADING, &cmd->flags)) {
		reason = kt_cmd_loaded_checks(cmd);
		if (reason) {
			kt_cmd_complete(cmd, reason);
			return;
		}
	}
	cmd->execute(cmd);
}

/*
 * Cluster mode: a command that may wait for the other nodes (PERSISTENT
 * RESERVE IN/OUT, RESERVE, RELEASE, SET TARGET PORT GROUPS, and any that
 * came while its LU's reservations reload: the DLM, for as long as its
 * recovery or a lock's timeout lasts) runs in a work item, not in the
 * fabric's receive path, which goes on answering meanwhile (NOP-Out, task
 * management, the other commands). True when @cmd was queued; false on a
 * device not clustered, and in the work item. Cluster mode changes only
 * while no LUN exports the device.
 */
bool kt_cluster_defer(struct kt_cmd *cmd)
{
	if (!READ_ONCE(cmd->dev->state->cluster.lu) ||
	    current_work() == &cmd->defer_work)
		return false;
	INIT_WORK(&cmd->defer_work, kt_cluster_cmd_work);
	queue_work(kt_cluster_cmd_wq, &cmd->defer_work);
	return true;
}

int kt_cluster_register(const struct kt_cluster_ops *ops)
{
	int ret = 0;

	mutex_lock(&kt_cluster_ops_lock);
	if (kt_cluster_ops)
		ret = -EBUSY;
	else
		kt_cluster_ops = ops;
	mutex_unlock(&kt_cluster_ops_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(kt_cluster_register);

void kt_cluster_unregister(const struct kt_cluster_ops *ops)
{
	mutex_lock(&kt_cluster_ops_lock);
	if (kt_cluster_ops == ops)
		kt_cluster_ops = NULL;
	mutex_unlock(&kt_cluster_ops_lock);
}
EXPORT_SYMBOL_GPL(kt_cluster_unregister);

void kt_cluster_state_stale(struct kt_dev *dev, unsigned int sid)
{
	if (sid == KT_CLUSTER_PR)
		kt_pr_cluster_stale(dev);
	else if (sid == KT_CLUSTER_ALUA)
		kt_alua_cluster_stale(dev);
}
EXPORT_SYMBOL_GPL(kt_cluster_state_stale);

void kt_cluster_ack_asked(struct kt_dev *dev)
{
	kt_pr_cluster_ack_asked(dev);
}
EXPORT_SYMBOL_GPL(kt_cluster_ack_asked);

void kt_cluster_lockspace_lost(struct kt_dev *dev, bool lost)
{
	if (lost) {
		pr_warn("%s: cluster: the lockspace's recovery has not ended: the LU answers NOT READY until it does\n",
			kt_cluster_dev_name(dev));
		kt_pr_cluster_lost(dev);
	} else {
		pr_info("%s: cluster: the lockspace's recovery has ended: the LU is served again\n",
			kt_cluster_dev_name(dev));
		/*
		 * load both states again before anything decides on them; the
		 * ALUA sync does nothing while LOST is set: clear it first
		 */
		kt_pr_cluster_found(dev);
		kt_alua_cluster_stale(dev);
	}
}
EXPORT_SYMBOL_GPL(kt_cluster_lockspace_lost);

const char *kt_cluster_dev_name(const struct kt_dev *dev)
{
	return config_item_name((struct config_item *)&dev->group.cg_item);
}
EXPORT_SYMBOL_GPL(kt_cluster_dev_name);

/* The registered ops with a reference on their module, or NULL. */
static const struct kt_cluster_ops *kt_cluster_ops_get(void)
{
	const struct kt_cluster_ops *ops;

	mutex_lock(&kt_cluster_ops_lock);
	ops = kt_cluster_ops;
	if (ops && !try_module_get(ops->owner))
		ops = NULL;
	mutex_unlock(&kt_cluster_ops_lock);
	return ops;
}

/*
 * The read-modify-write commands' lock across nodes, taken under the
 * device's caw_sem. The holder's kt_cluster_lu is kept for the unlock:
 * cluster mode changes only under caw_sem too.
 */
int kt_cluster_rmw_lock(struct kt_dev *dev)
{
	struct kt_cluster *c = &dev->state->cluster;
	int ret;

	if (!c->lu)
		return 0;
	/* the lockspace is lost: no request would be answered */
	if (test_bit(KT_RES_LOST_BIT, &dev->state->res.active))
		return -ENOLINK;
	ret = c->ops->rmw_lock(c->lu);
	if (!ret)
		c->rmw_held = c->lu;
	return ret;
}

void kt_cluster_rmw_unlock(struct kt_dev *dev)
{
	struct kt_cluster *c = &dev->state->cluster;

	if (c->rmw_held)
		c->ops->rmw_unlock(c->rmw_held);
	c->rmw_held = NULL;
}

/* The default lockspace name: "kt_" and the unit serial, made safe. */
static int kt_cluster_default_name(struct kt_dev *dev, char *name)
{
	const char *serial = dev->wwn.unit_serial;
	size_t i, n;

	if (!serial[0])
		return -ENOENT;
	/* a cut serial could name another LU's lockspace */
	if (strlen(serial) > KT_CLUSTER_NAME_LEN - 3)
		return -ENAMETOOLONG;
	n = scnprintf(name, KT_CLUSTER_NAME_LEN + 1, "kt_%s", serial);
	for (i = 3; i < n; i++)
		if (!isalnum(name[i]) && name[i] != '-')
			name[i] = '_';
	return 0;
}

static int kt_cluster_join(struct kt_dev *dev)
{
	struct kt_cluster *c = &dev->state->cluster;
	const struct kt_cluster_ops *ops;
	struct kt_pr_cluster *pc = NULL;
	struct kt_cluster_lu *lu;
	char name[KT_CLUSTER_NAME_LEN + 1];
	int ret;

	/*
	 * PI the backstore keeps beside the data (fileio, rd) is this
	 * node's: another node's write would leave it stale. A device's own
	 * (iblock over a disk with DIF) goes with the data.
	 */
	if (dev->attrib.pi_prot_type && dev->ops->init_prot) {
		pr_warn_ratelimited("%s: cluster/enable: the device keeps protection information of its own (pi_prot_type %u), which other nodes' writes would leave stale: set pi_prot_type to 0 first\n",
				    kt_cluster_dev_name(dev),
				    dev->attrib.pi_prot_type);
		return -EINVAL;
	}
	if (c->lockspace[0]) {
		strscpy(name, c->lockspace, sizeof(name));
	} else {
		ret = kt_cluster_default_name(dev, name);
		if (ret == -ENAMETOOLONG) {
			pr_warn_ratelimited("%s: cluster/enable: the unit serial is too long for a lockspace name (at most %d bytes): set cluster/lockspace\n",
					    kt_cluster_dev_name(dev),
					    KT_CLUSTER_NAME_LEN - 3);
			return -EINVAL;
		}
		if (ret) {
			pr_warn_ratelimited("%s: cluster/enable: no lockspace name: set cluster/lockspace or wwn/vpd_unit_serial (the same on every node)\n",
					    kt_cluster_dev_name(dev));
			return -EINVAL;
		}
	}

	ops = kt_cluster_ops_get();
	if (!ops) {
		request_module("ktarget_cluster");
		ops = kt_cluster_ops_get();
	}
	if (!ops) {
		pr_warn_ratelimited("%s: cluster/enable: module ktarget_cluster (needs the kernel's dlm) cannot be loaded\n",
				    kt_cluster_dev_name(dev));
		return -ENOENT;
	}
	lu = ops->join(dev, name);
	if (IS_ERR(lu)) {
		module_put(ops->owner);
		return PTR_ERR(lu);
	}
	/* no read-modify-write command runs while the mode changes */
	down(&dev->state->caw_sem);
	c->ops = ops;
	c->lu = lu;
	up(&dev->state->caw_sem);
	/* no token copy on a clustered LU: none made before may stay */
	kt_rod_changed(dev, 0, 0);
	/* the reservations: the cluster's, loaded before the first command */
	ret = kt_pr_cluster_attach(dev);
	if (!ret) {
		/* the target port groups: this node's published, the others' */
		ret = kt_alua_cluster_attach(dev);
		if (ret)
			pc = kt_pr_cluster_detach(dev);
	}
	if (ret) {
		down(&dev->state->caw_sem);
		c->lu = NULL;
		c->ops = NULL;
		up(&dev->state->caw_sem);
		/* the module calls in no more: then its marks can go */
		ops->leave(lu);
		kt_pr_cluster_free(dev, pc);
		module_put(ops->owner);
		return ret;
	}
	pr_info("%s: cluster mode on, lockspace %s, node %u\n",
		kt_cluster_dev_name(dev), name, ops->node_id(lu));
	return 0;
}

static void kt_cluster_leave(struct kt_dev *dev)
{
	struct kt_cluster *c = &dev->state->cluster;
	const struct kt_cluster_ops *ops = c->ops;
	struct kt_cluster_lu *lu = c->lu;
	struct kt_alua_cluster *ac;
	struct kt_pr_cluster *pc;

	/* the reservations and group states this node last saw stay its own */
	pc = kt_pr_cluster_detach(dev);
	ac = kt_alua_cluster_detach(dev);
	down(&dev->state->caw_sem);
	c->lu = NULL;
	c->ops = NULL;
	up(&dev->state->caw_sem);
	ops->leave(lu);
	kt_alua_cluster_free(ac);
	kt_pr_cluster_free(dev, pc);
	module_put(ops->owner);
	pr_info("%s: cluster mode off\n", kt_cluster_dev_name(dev));
}

void kt_cluster_dev_init(struct kt_dev *dev)
{
	dev->state->cluster.join_on_export = READ_ONCE(cluster_default);
}

/*
 * Under cfg_lock, held until the link is made: a LUN is about to link @dev.
 * Join first if cluster_default asked for it; a join that fails refuses
 * the link (its reason is in the log).
 */
int kt_cluster_dev_export(struct kt_dev *dev)
{
	struct kt_cluster *c = &dev->state->cluster;
	int ret = 0;

	lockdep_assert_held(&dev->cfg_lock);
	if (c->join_on_export && !c->lu && !atomic_read(&dev->export_count)) {
		ret = kt_cluster_join(dev);
		if (ret)
			pr_warn_ratelimited("%s: a LUN cannot link it: cluster mode (cluster_default) did not join\n",
					    kt_cluster_dev_name(dev));
	}
	return ret;
}

/* The device goes: leave the lockspace if it is still joined. */
void kt_cluster_dev_release(struct kt_dev *dev)
{
	if (dev->state->cluster.lu)
		kt_cluster_leave(dev);
}

/*
 * cluster/enable: join the lockspace or leave it, only while no LUN
 * exports the device. Leaving also cancels cluster_default's join.
 */
int kt_cluster_enable(struct kt_dev *dev, bool on)
{
	int ret = 0;

	mutex_lock(&dev->cfg_lock);
	if (on == !!dev->state->cluster.lu) {
		ret = 0;
	} else if (atomic_read(&dev->export_count)) {
		pr_warn_ratelimited("%s: cluster/enable: the device is exported by a LUN; change cluster mode before linking it\n",
				    kt_cluster_dev_name(dev));
		ret = -EBUSY;
	} else if (on) {
		ret = kt_cluster_join(dev);
	} else {
		kt_cluster_leave(dev);
	}
	if (!ret && !on)
		dev->state->cluster.join_on_export = false;
	mutex_unlock(&dev->cfg_lock);
	return ret;
}

/* The lockspace the device joins (or would join): "" if it has none. */
void kt_cluster_lockspace(struct kt_dev *dev, char *name)
{
	mutex_lock(&dev->cfg_lock);
	if (dev->state->cluster.lockspace[0])
		strscpy(name, dev->state->cluster.lockspace,
			KT_CLUSTER_NAME_LEN + 1);
	else if (kt_cluster_default_name(dev, name))
		name[0] = '\0';
	mutex_unlock(&dev->cfg_lock);
}

/* cluster/lockspace: @len checked bytes, only while cluster mode is off */
int kt_cluster_set_lockspace(struct kt_dev *dev, const char *name, size_t len)
{
	int ret = 0;

	mutex_lock(&dev->cfg_lock);
	if (dev->state->cluster.lu) {
		pr_warn_ratelimited("%s: cluster/lockspace: cluster mode is on; write 0 to cluster/enable first\n",
				    kt_cluster_dev_name(dev));
		ret = -EBUSY;
	} else {
		memcpy(dev->state->cluster.lockspace, name, len);
		dev->state->cluster.lockspace[len] = '\0';
	}
	mutex_unlock(&dev->cfg_lock);
	return ret;
}

/* This node's id in the device's lockspace, 0 while cluster mode is off. */
u32 kt_cluster_node_id(struct kt_dev *dev)
{
	struct kt_cluster *c = &dev->state->cluster;
	u32 id = 0;

	mutex_lock(&dev->cfg_lock);
	if (c->lu)
		id = c->ops->node_id(c->lu);
	mutex_unlock(&dev->cfg_lock);
	return id;
}

/* The node ids in the lockspace, at most @max of them: how many. */
int kt_cluster_members(struct kt_dev *dev, u32 *ids, int max)
{
	struct kt_cluster *c = &dev->state->cluster;
	int n = 0;

	mutex_lock(&dev->cfg_lock);
	if (c->lu)
		n = c->ops->members(c->lu, ids, max);
	mutex_unlock(&dev->cfg_lock);
	return n;
}
