// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: the target port groups of a clustered device, one table
 * for every node, in the cluster module's ALUA state (one lock value
 * block, include/ktarget/cluster.h).
 *
 * Each node configures its own groups and ports as on one node (give each
 * node's groups ids of their own). The table lists every node's groups:
 * id, state, what they support, their ports and the node they are on.
 *
 *   REPORT TARGET PORT GROUPS   this node's groups, and the other nodes'
 *                               from the table
 *   SET TARGET PORT GROUPS      any group of any node: the table changes,
 *                               and the node whose group it is applies the
 *                               new state when it loads the table
 *   a node leaves the cluster   its groups become Unavailable; the group
 *                               cluster/alua_takeover names, if any, of a
 *                               survivor becomes Active/Optimized
 *
 * A node publishes its own groups when its ports or their states change
 * (work below) and loads the table whenever another node changes it (the
 * module says so through kt_cluster_state_stale()). A state that changes
 * on a node is a unit attention (2A/06) for the nexuses of that node.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/delay.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include <ktarget/cluster.h>
#include <ktarget/proto/alua.h>
#include <ktarget/proto/sense.h>

#include "alua.h"
#include "core.h"
#include "lun.h"

#define KT_ALC_MAGIC		0x6b74414c	/* "ktAL" */
#define KT_ALC_GROUPS		KT_ALUA_CLUSTER_GROUPS
#define KT_ALC_PORTS		KT_ALUA_CLUSTER_PORTS

struct kt_alc_gp {
	__be32	node;			/* the node whose ports they are */
	__be16	id;
	__be16	ports[KT_ALC_PORTS];	/* relative target port identifiers */
	u8	state;			/* KT_ALUA_* */
	u8	status;
	u8	supported;
	u8	access_type;		/* KT_ALUA_TPGS_* */
	u8	preferred;
	u8	nr_ports;
	u8	rsvd[2];
};

struct kt_alc_hdr {
	__be32	magic;			/* 0: nothing published yet */
	u8	nr;
	u8	rsvd[3];
	__be64	version;
	struct kt_alc_gp gp[KT_ALC_GROUPS];
};

union kt_alc_block {
	u8			raw[KT_CLUSTER_BLOCK_LEN];
	struct kt_alc_hdr	hdr;
};

static_assert(sizeof(struct kt_alc_hdr) <= KT_CLUSTER_BLOCK_LEN);

/* This node's side of the table, while cluster mode is on */
struct kt_alua_cluster {
	struct kt_dev		*dev;
	struct work_struct	work;
	spinlock_t		lock;		/* the five below */
	bool			stale;		/* another node changed it */
	bool			publish;	/* this node's groups changed */
	u32			left[KT_CLUSTER_MAX_NODES];
	unsigned int		nr_left;
	struct kt_alc_hdr	table;		/* as last loaded or written */
	struct mutex		mutex;		/* one sync at a time */
	union kt_alc_block	blk;
};

static u32 kt_alc_me(struct kt_dev *dev)
{
	struct kt_cluster *c = &dev->state->cluster;

	return c->ops->node_id(c->lu);
}

/* The table's entry of group @id, or NULL. */
static struct kt_alc_gp *kt_alc_find(struct kt_alc_hdr *t, u16 id)
{
	unsigned int i;

	for (i = 0; i < t->nr; i++)
		if (be16_to_cpu(t->gp[i].id) == id)
			return &t->gp[i];
	return NULL;
}

/*
 * Under alua.lock: this node's groups into @t, keeping the state the table
 * has for a group it has already; @t's entries of this node's that no
 * longer exist go.
 */
static void kt_alc_put_mine(struct kt_dev *dev, struct kt_alc_hdr *t, u32 me)
{
	struct kt_alc_hdr old = *t;
	struct kt_alua_port *port;
	struct kt_alua_gp *gp;
	unsigned int i, n = 0;

	/* the other nodes' first */
	for (i = 0; i < old.nr; i++)
		if (be32_to_cpu(old.gp[i].node) != me)
			t->gp[n++] = old.gp[i];
	list_for_each_entry(gp, &dev->state->alua.groups, node) {
		struct kt_alc_gp *e, *was;

		/* default_tg_pt_gp (id 0) is every node's: not listed */
		if (!gp->id_valid || gp->is_default)
			continue;
		if (n == KT_ALC_GROUPS) {
			pr_warn_ratelimited("%s: cluster ALUA: more than %d groups in the cluster; group %u is not shared\n",
					    config_item_name(&dev->group.cg_item),
					    KT_ALC_GROUPS, gp->id);
			break;
		}
		e = &t->gp[n++];
		memset(e, 0, sizeof(*e));
		e->node = cpu_to_be32(me);
		e->id = cpu_to_be16(gp->id);
		was = kt_alc_find(&old, gp->id);
		/* a state set here since the last publish wins */
		if (was && !gp->cluster_dirty) {
			e->state = was->state;
			e->status = was->status;
		} else {
			e->state = gp->state;
			e->status = gp->status;
		}
		gp->cluster_dirty = false;
		e->supported = gp->supported;
		e->access_type = gp->access_type;
		e->preferred = gp->preferred;
		list_for_each_entry(port, &gp->members, node) {
			u16 rtpi = container_of(port, struct kt_lun, alua)->rtpi;
			unsigned int k;

			for (k = 0; k < e->nr_ports; k++)
				if (be16_to_cpu(e->ports[k]) == rtpi)
					break;
			if (k == e->nr_ports && e->nr_ports < KT_ALC_PORTS)
				e->ports[e->nr_ports++] = cpu_to_be16(rtpi);
		}
	}
	t->nr = n;
}

/* Under alua.lock: the table's states for this node's groups. */
static bool kt_alc_apply(struct kt_dev *dev, struct kt_alc_hdr *t)
{
	struct kt_alua_gp *gp;
	bool changed = false;

	list_for_each_entry(gp, &dev->state->alua.groups, node) {
		struct kt_alc_gp *e;

		if (!gp->id_valid || gp->is_default)
			continue;
		e = kt_alc_find(t, gp->id);
		if (e && e->state != gp->state) {
			kt_alua_set_state(gp, e->state, e->status);
			changed = true;
		}
	}
	return changed;
}

/* A node left: its groups are Unavailable, the takeover group optimized. */
static void kt_alc_node_gone(struct kt_dev *dev, struct kt_alc_hdr *t,
			     u32 node, u32 me)
{
	u16 takeover = READ_ONCE(dev->state->cluster.alua_takeover);
	struct kt_alc_gp *e;
	unsigned int i;

	for (i = 0; i < t->nr; i++) {
		e = &t->gp[i];
		if (be32_to_cpu(e->node) != node)
			continue;
		e->state = KT_ALUA_UNAVAILABLE;
		e->status = KT_ALUA_STATUS_IMPLICIT;
	}
	e = takeover ? kt_alc_find(t, takeover) : NULL;
	if (e && be32_to_cpu(e->node) == me) {
		e->state = KT_ALUA_AO;
		e->status = KT_ALUA_STATUS_IMPLICIT;
	}
	pr_info("%s: cluster ALUA: node %u left: its groups are Unavailable%s\n",
		config_item_name(&dev->group.cg_item), node,
		e ? ", the takeover group Active/Optimized" : "");
}

/*
 * Load the table, and write it when this node's groups changed or a node
 * left. @stpg, if set, changes it first (SET TARGET PORT GROUPS). Returns
 * 0 or -errno; *changed says whether a state of this node's changed.
 */
static int kt_alc_sync(struct kt_alua_cluster *ac,
		       int (*stpg)(struct kt_dev *dev, struct kt_alc_hdr *t,
				   void *arg),
		       void *arg, bool *changed)
{
	struct kt_dev *dev = ac->dev;
	const struct kt_cluster_ops *ops = dev->state->cluster.ops;
	struct kt_cluster_lu *lu = dev->state->cluster.lu;
	u32 left[KT_CLUSTER_MAX_NODES], me = kt_alc_me(dev);
	struct kt_alc_hdr *t = &ac->blk.hdr;
	unsigned int nr_left, i;
	bool publish, write;
	int ret;

	mutex_lock(&ac->mutex);
	spin_lock_irq(&ac->lock);
	publish = ac->publish;
	nr_left = ac->nr_left;
	memcpy(left, ac->left, nr_left * sizeof(left[0]));
	ac->publish = false;
	ac->nr_left = 0;
	ac->stale = false;
	spin_unlock_irq(&ac->lock);
	write = publish || nr_left || stpg;

	ret = ops->state_lock(lu, KT_CLUSTER_ALUA, write);
	if (ret)
		goto requeue;
	ret = ops->state_read(lu, KT_CLUSTER_ALUA, 0, &ac->blk);
	if ((ret == -ESTALE || (!ret && !t->magic)) && !write) {
		/* lost with the nodes that held it, or new: to be rebuilt */
		write = true;
		ret = ops->state_unlock(lu, KT_CLUSTER_ALUA, false);
		if (!ret)
			ret = ops->state_lock(lu, KT_CLUSTER_ALUA, true);
		if (ret)
			goto requeue;
		ret = ops->state_read(lu, KT_CLUSTER_ALUA, 0, &ac->blk);
	}
	if (ret == -ESTALE || (!ret && !t->magic)) {
		memset(&ac->blk, 0, sizeof(ac->blk));
		ret = 0;
	} else if (!ret && (be32_to_cpu(t->magic) != KT_ALC_MAGIC ||
			    t->nr > KT_ALC_GROUPS)) {
		ret = -EPROTO;
	}
	if (ret) {
		ops->state_unlock(lu, KT_CLUSTER_ALUA, false);
		goto requeue;
	}

	for (i = 0; i < nr_left; i++)
		kt_alc_node_gone(dev, t, left[i], me);
	mutex_lock(&dev->state->alua.lock);
	if (stpg)
		ret = stpg(dev, t, arg);
	/* this node's own groups: their ports and the table's states */
	if (!ret && write)
		kt_alc_put_mine(dev, t, me);
	*changed = !ret && kt_alc_apply(dev, t);
	mutex_unlock(&dev->state->alua.lock);

	if (!ret && write) {
		t->magic = cpu_to_be32(KT_ALC_MAGIC);
		be64_add_cpu(&t->version, 1);
		ret = ops->state_write(lu, KT_CLUSTER_ALUA, 0, &ac->blk);
	}
	i = ops->state_unlock(lu, KT_CLUSTER_ALUA, !ret && write);
	ret = ret ?: (int)i;
	if (!ret) {
		spin_lock_irq(&ac->lock);
		ac->table = *t;
		spin_unlock_irq(&ac->lock);
	}
	mutex_unlock(&ac->mutex);
	return ret;

requeue:
	/* what was asked is still to do */
	spin_lock_irq(&ac->lock);
	ac->publish |= publish;
	for (i = 0; i < nr_left && ac->nr_left < KT_CLUSTER_MAX_NODES; i++)
		ac->left[ac->nr_left++] = left[i];
	ac->stale = true;
	spin_unlock_irq(&ac->lock);
	mutex_unlock(&ac->mutex);
	pr_warn_ratelimited("%s: cluster ALUA: the table cannot be had: error %d\n",
			    config_item_name(&dev->group.cg_item), ret);
	return ret;
}

static void kt_alc_work(struct work_struct *work)
{
	struct kt_alua_cluster *ac = container_of(work, struct kt_alua_cluster,
						  work);
	bool changed = false;

	if (kt_alc_sync(ac, NULL, NULL, &changed)) {
		/* the lockspace recovers, or is gone: try again in a while */
		msleep(1000);
		queue_work(system_long_wq, &ac->work);
		return;
	}
	/* SPC-4 5.15.2.3: every nexus of this node's ports hears of it */
	if (changed)
		kt_ua_raise(ac->dev, KT_ASC_ALUA_STATE_CHANGED, KT_UA_ALL, NULL);
}

/* Under rcu_read_lock() where the caller may race with cluster mode off */
static struct kt_alua_cluster *kt_alc_of(struct kt_dev *dev)
{
	return rcu_dereference_check(dev->state->alua.clustered, true);
}

static void kt_alc_kick(struct kt_dev *dev, bool publish, u32 left);

/* This node's groups, ports or states changed: publish them. */
void kt_alua_cluster_changed(struct kt_dev *dev)
{
	kt_alc_kick(dev, true, 0);
}

/* Ask the work to publish (@publish) or note node @left gone (not 0). */
static void kt_alc_kick(struct kt_dev *dev, bool publish, u32 left)
{
	struct kt_alua_cluster *ac;
	unsigned long flags;

	rcu_read_lock();
	ac = kt_alc_of(dev);
	if (ac) {
		spin_lock_irqsave(&ac->lock, flags);
		ac->publish |= publish;
		if (left && ac->nr_left < KT_CLUSTER_MAX_NODES)
			ac->left[ac->nr_left++] = left;
		ac->stale = true;
		spin_unlock_irqrestore(&ac->lock, flags);
		queue_work(system_long_wq, &ac->work);
	}
	rcu_read_unlock();
}

/* The module: another node is about to change the table. */
void kt_alua_cluster_stale(struct kt_dev *dev)
{
	kt_alc_kick(dev, false, 0);
}

void kt_cluster_node_left(struct kt_dev *dev, u32 nodeid)
{
	kt_alc_kick(dev, false, nodeid);
}
EXPORT_SYMBOL_GPL(kt_cluster_node_left);

/*
 * REPORT TARGET PORT GROUPS: the other nodes' groups, after this node's
 * (@d has room for KT_ALC_GROUPS more, @ports for KT_ALC_GROUPS *
 * KT_ALC_PORTS). Returns how many it added.
 */
unsigned int kt_alua_cluster_report(struct kt_dev *dev,
				    struct kt_alua_desc *d, unsigned int n,
				    u16 *ports)
{
	struct kt_alua_cluster *ac = kt_alc_of(dev);
	struct kt_alc_hdr t;
	unsigned int i, k, added = 0;
	u32 me;
	bool stale;

	if (!ac)
		return 0;
	spin_lock_irq(&ac->lock);
	stale = ac->stale;
	spin_unlock_irq(&ac->lock);
	/* another node changed it: the work loads it before this answers */
	if (stale)
		flush_work(&ac->work);
	me = kt_alc_me(dev);
	spin_lock_irq(&ac->lock);
	t = ac->table;
	spin_unlock_irq(&ac->lock);
	for (i = 0; i < t.nr && i < KT_ALC_GROUPS; i++) {
		const struct kt_alc_gp *e = &t.gp[i];
		bool local = false;

		if (be32_to_cpu(e->node) == me)
			continue;
		for (k = 0; k < n; k++)
			local |= d[k].id == be16_to_cpu(e->id);
		if (local)
			continue;
		d[n + added] = (struct kt_alua_desc){
			.id = be16_to_cpu(e->id), .state = e->state,
			.status = e->status, .supported = e->supported,
			.preferred = e->preferred,
			.nr_ports = min_t(u8, e->nr_ports, KT_ALC_PORTS),
			.ports = ports,
		};
		for (k = 0; k < d[n + added].nr_ports; k++)
			ports[k] = be16_to_cpu(e->ports[k]);
		ports += KT_ALC_PORTS;
		added++;
	}
	return added;
}

struct kt_alc_stpg {
	struct kt_cmd			*cmd;
	const struct kt_alua_stpg_desc	*d;
	unsigned int			nr;
	bool				local;	/* a group of this node changed */
};

/* Under alua.lock, the table held for writing: all or nothing. */
static int kt_alc_stpg(struct kt_dev *dev, struct kt_alc_hdr *t, void *arg)
{
	struct kt_alc_stpg *s = arg;
	struct kt_alc_gp *e;
	unsigned int i;

	for (i = 0; i < s->nr; i++) {
		e = kt_alc_find(t, s->d[i].id);
		/* this node's groups were checked by alua.c */
		if (!e || be32_to_cpu(e->node) == kt_alc_me(dev))
			continue;
		if (!(e->access_type & KT_ALUA_TPGS_EXPLICIT) ||
		    !(e->supported & kt_alua_state_sup(s->d[i].state))) {
			s->cmd->sense_field = KT_FIELD_PARAM_BIT(KT_ALUA_STPG_HDR_LEN +
				i * KT_ALUA_STPG_DESC_LEN, 3);
			return -EINVAL;
		}
	}
	for (i = 0; i < s->nr; i++) {
		e = kt_alc_find(t, s->d[i].id);
		if (!e)
			continue;
		e->state = s->d[i].state;
		e->status = KT_ALUA_STATUS_EXPLICIT;
	}
	return 0;
}

/* Is group @id another node's (SET TARGET PORT GROUPS may name it)? */
bool kt_alua_cluster_has(struct kt_dev *dev, u16 id)
{
	struct kt_alua_cluster *ac = kt_alc_of(dev);
	struct kt_alc_gp *e;
	bool ret;

	if (!ac)
		return false;
	spin_lock_irq(&ac->lock);
	e = kt_alc_find(&ac->table, id);
	ret = e && be32_to_cpu(e->node) != kt_alc_me(dev);
	spin_unlock_irq(&ac->lock);
	return ret;
}

/*
 * SET TARGET PORT GROUPS in cluster mode, after alua.c has checked and
 * applied this node's groups: the table takes every descriptor. Returns
 * KT_SENSE_NONE, or why the command fails.
 */
sense_reason_t kt_alua_cluster_stpg(struct kt_cmd *cmd,
				    const struct kt_alua_stpg_desc *d,
				    unsigned int nr, bool *changed)
{
	struct kt_alua_cluster *ac = kt_alc_of(cmd->dev);
	struct kt_alc_stpg s = { .cmd = cmd, .d = d, .nr = nr };
	int ret;

	if (!ac)
		return KT_SENSE_NONE;
	ret = kt_alc_sync(ac, kt_alc_stpg, &s, changed);
	if (ret == -EINVAL)
		return KT_SENSE_INVALID_PARAM_FIELD;
	if (ret) {
		cmd->sense_asc_ascq = KT_ASC_NOT_READY_UNAVAILABLE;
		return KT_SENSE_NOT_READY;
	}
	return KT_SENSE_NONE;
}

/* Cluster mode goes on: publish this node's groups, load the others'. */
int kt_alua_cluster_attach(struct kt_dev *dev)
{
	struct kt_alua_cluster *ac = kzalloc(sizeof(*ac), GFP_KERNEL);

	if (!ac)
		return -ENOMEM;
	ac->dev = dev;
	INIT_WORK(&ac->work, kt_alc_work);
	spin_lock_init(&ac->lock);
	mutex_init(&ac->mutex);
	ac->publish = true;
	ac->stale = true;
	rcu_assign_pointer(dev->state->alua.clustered, ac);
	queue_work(system_long_wq, &ac->work);
	return 0;
}

/* Cluster mode goes off; kt_alua_cluster_free() once the module has left. */
struct kt_alua_cluster *kt_alua_cluster_detach(struct kt_dev *dev)
{
	struct kt_alua_cluster *ac = kt_alc_of(dev);

	RCU_INIT_POINTER(dev->state->alua.clustered, NULL);
	if (ac)
		cancel_work_sync(&ac->work);
	return ac;
}

void kt_alua_cluster_free(struct kt_alua_cluster *ac)
{
	if (!ac)
		return;
	/* a kick that saw it has queued its work by now */
	synchronize_rcu();
	cancel_work_sync(&ac->work);
	kfree(ac);
}
