// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_cluster: cluster mode on the kernel's DLM.
 *
 * Each clustered device joins a lockspace of its own (its name is the
 * device's cluster/lockspace), which dlm_controld makes the same on every
 * node that joins it: corosync says who the members are, this module only
 * takes locks in it. The lockspace's recovery callbacks tell which nodes
 * are members and which is this one.
 *
 * A recovery that does not end within recovery_timeout (a node cut off
 * from the quorum, a fence that does not come) loses the lockspace: the
 * core then stops serving the LU, until the recovery ends, rather than go
 * on with a state the other nodes may have changed without it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dlm.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cluster_lu.h"

struct workqueue_struct *kt_cluster_wq;

static unsigned int recovery_timeout = 30;
module_param(recovery_timeout, uint, 0644);
MODULE_PARM_DESC(recovery_timeout,
		 "seconds a lockspace may stay in recovery before its LU stops (0: never)");

static void kt_clu_recover_prep(void *arg)
{
	struct kt_cluster_lu *clu = arg;
	unsigned int secs = READ_ONCE(recovery_timeout);

	mutex_lock(&clu->recovery_mutex);
	clu->recovering = true;
	if (secs && !clu->leaving)
		mod_delayed_work(kt_cluster_wq, &clu->lost_work,
				 (unsigned long)secs * HZ);
	mutex_unlock(&clu->recovery_mutex);
}

static void kt_clu_lost_work(struct work_struct *work)
{
	struct kt_cluster_lu *clu = container_of(to_delayed_work(work),
						 struct kt_cluster_lu,
						 lost_work);

	mutex_lock(&clu->recovery_mutex);
	if (clu->recovering && !clu->lost && !clu->leaving) {
		pr_warn("%s: lockspace %s: in recovery for more than %u s (no quorum? fencing?)\n",
			kt_cluster_dev_name(clu->dev), clu->name,
			READ_ONCE(recovery_timeout));
		clu->lost = true;
		kt_cluster_lockspace_lost(clu->dev, true);
	}
	mutex_unlock(&clu->recovery_mutex);
}

static void kt_clu_recover_slot(void *arg, struct dlm_slot *slot)
{
	struct kt_cluster_lu *clu = arg;

	pr_info("%s: lockspace %s: node %d left\n",
		kt_cluster_dev_name(clu->dev), clu->name, slot->nodeid);
	/* its target port groups: the core changes them after the recovery */
	kt_cluster_node_left(clu->dev, slot->nodeid);
}

static void kt_clu_recover_done(void *arg, struct dlm_slot *slots,
				int num_slots, int our_slot, u32 generation)
{
	struct kt_cluster_lu *clu = arg;
	int i, n = 0;

	spin_lock(&clu->members_lock);
	for (i = 0; i < num_slots; i++) {
		if (slots[i].slot == our_slot)
			clu->node_id = slots[i].nodeid;
		if (n < KT_CLUSTER_MAX_NODES)
			clu->members[n++] = slots[i].nodeid;
	}
	clu->nr_members = n;
	spin_unlock(&clu->members_lock);

	mutex_lock(&clu->recovery_mutex);
	clu->recovering = false;
	cancel_delayed_work(&clu->lost_work);
	if (clu->lost && !clu->leaving)
		kt_cluster_lockspace_lost(clu->dev, false);
	clu->lost = false;
	mutex_unlock(&clu->recovery_mutex);
	wake_up_all(&clu->recovered);
}

static const struct dlm_lockspace_ops kt_clu_ls_ops = {
	.recover_prep	= kt_clu_recover_prep,
	.recover_slot	= kt_clu_recover_slot,
	.recover_done	= kt_clu_recover_done,
};

/* Leave the lockspace; the core hears nothing from it afterwards. */
static void kt_clu_release(struct kt_cluster_lu *clu)
{
	mutex_lock(&clu->recovery_mutex);
	clu->leaving = true;
	mutex_unlock(&clu->recovery_mutex);
	wake_up_all(&clu->recovered);
	/* recover_prep() queues it no more */
	cancel_delayed_work_sync(&clu->lost_work);
	dlm_release_lockspace(clu->ls, 2);
}

static struct kt_cluster_lu *kt_clu_join(struct kt_dev *dev, const char *name)
{
	const char *devname = kt_cluster_dev_name(dev);
	struct kt_cluster_lu *clu;
	int ret, ops_result;

	clu = kzalloc(sizeof(*clu), GFP_KERNEL);
	if (!clu)
		return ERR_PTR(-ENOMEM);
	clu->dev = dev;
	strscpy(clu->name, name, sizeof(clu->name));
	spin_lock_init(&clu->members_lock);
	mutex_init(&clu->recovery_mutex);
	init_waitqueue_head(&clu->recovered);
	INIT_DELAYED_WORK(&clu->lost_work, kt_clu_lost_work);

	ret = dlm_new_lockspace(clu->name, NULL, DLM_LSFL_NEWEXCL,
				KT_CLUSTER_BLOCK_LEN, &kt_clu_ls_ops, clu,
				&ops_result, &clu->ls);
	switch (ret) {
	case 0:
		break;
	case -EUNATCH:		/* no daemon */
	case -ENOTCONN:		/* ... so the DLM has no address to use */
		pr_warn_ratelimited("%s: cluster/enable: dlm_controld is not running: start corosync and dlm_controld first\n",
				    devname);
		goto out_free;
	case -EEXIST:
		pr_warn_ratelimited("%s: cluster/enable: lockspace %s is in use by another device of this node\n",
				    devname, clu->name);
		goto out_free;
	default:
		pr_warn_ratelimited("%s: cluster/enable: joining lockspace %s failed: error %d\n",
				    devname, clu->name, ret);
		goto out_free;
	}
	if (ops_result)
		pr_info("%s: lockspace %s: the DLM gives no recovery callbacks (%d): node ids unknown\n",
			devname, clu->name, ops_result);

	ret = kt_dlm_lock_init(&clu->rmw, clu, "rmw");
	if (ret) {
		pr_warn_ratelimited("%s: cluster/enable: lockspace %s: no lock: error %d\n",
				    devname, clu->name, ret);
		goto out_release;
	}
	ret = kt_state_init(clu);
	if (ret) {
		pr_warn_ratelimited("%s: cluster/enable: lockspace %s: no state lock: error %d\n",
				    devname, clu->name, ret);
		goto out_state;
	}
	ret = kt_ack_init(clu);
	if (ret) {
		pr_warn_ratelimited("%s: cluster/enable: lockspace %s: no ack lock: error %d\n",
				    devname, clu->name, ret);
		goto out_state;
	}
	return clu;

out_state:
	kt_ack_exit(clu);
	kt_state_exit(clu);
	kt_dlm_lock_exit(&clu->rmw);
out_release:
	kt_clu_release(clu);
out_free:
	kfree(clu);
	return ERR_PTR(ret);
}

static void kt_clu_leave(struct kt_cluster_lu *clu)
{
	kt_ack_exit(clu);
	kt_state_exit(clu);
	kt_dlm_lock_exit(&clu->rmw);
	kt_clu_release(clu);
	kfree(clu);
}

static int kt_clu_rmw_lock(struct kt_cluster_lu *clu)
{
	return kt_dlm_lock_get(&clu->rmw);
}

static void kt_clu_rmw_unlock(struct kt_cluster_lu *clu)
{
	kt_dlm_lock_put(&clu->rmw);
}

static u32 kt_clu_node_id(struct kt_cluster_lu *clu)
{
	u32 id;

	spin_lock(&clu->members_lock);
	id = clu->node_id;
	spin_unlock(&clu->members_lock);
	return id;
}

static int kt_clu_members(struct kt_cluster_lu *clu, u32 *ids, int max)
{
	int n;

	spin_lock(&clu->members_lock);
	n = min(clu->nr_members, max);
	memcpy(ids, clu->members, n * sizeof(*ids));
	spin_unlock(&clu->members_lock);
	return n;
}

static const struct kt_cluster_ops kt_clu_ops = {
	.owner		= THIS_MODULE,
	.join		= kt_clu_join,
	.leave		= kt_clu_leave,
	.rmw_lock	= kt_clu_rmw_lock,
	.rmw_unlock	= kt_clu_rmw_unlock,
	.state_lock	= kt_state_lock,
	.state_read	= kt_state_read,
	.state_write	= kt_state_write,
	.state_unlock	= kt_state_unlock,
	.ack_wait	= kt_ack_wait,
	.ack		= kt_ack,
	.node_id	= kt_clu_node_id,
	.members	= kt_clu_members,
};

static int __init kt_cluster_init(void)
{
	int ret;

	kt_cluster_wq = alloc_workqueue("ktarget_cluster", WQ_MEM_RECLAIM, 0);
	if (!kt_cluster_wq)
		return -ENOMEM;
	ret = kt_cluster_register(&kt_clu_ops);
	if (ret)
		destroy_workqueue(kt_cluster_wq);
	return ret;
}

static void __exit kt_cluster_exit(void)
{
	kt_cluster_unregister(&kt_clu_ops);
	destroy_workqueue(kt_cluster_wq);
}

module_init(kt_cluster_init);
module_exit(kt_cluster_exit);
MODULE_DESCRIPTION("ktarget: an LU served by several nodes, on the kernel's DLM");
MODULE_LICENSE("GPL");
