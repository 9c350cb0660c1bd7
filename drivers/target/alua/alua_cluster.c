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
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
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
#define KT_ALC_RETRY		HZ		/* after a failed sync */
#define KT_ALC_LOAD_WAIT	HZ		/* commands wait for a load */

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

static_assert(sizeof(struct kt_alc_gp) == 24);
static_assert(sizeof(struct kt_alc_hdr) <= KT_CLUSTER_BLOCK_LEN);

/* This node's side of the table, while cluster mode is on */
struct kt_alua_cluster {
	struct kt_dev		*dev;
	struct delayed_work	work;
	wait_queue_head_t	loaded;		/* @stale went false */
	spinlock_t		lock;		/* the seven below */
	bool			dying;		/* cluster mode goes off */
	bool			stale;		/* another node changed it */
	unsigned long		stale_since;	/* jiffies */
	unsigned int		stale_gen;	/* bumped by each such change */
	bool			publish;	/* this node's groups changed */
	u32			left[KT_CLUSTER_MAX_NODES];
	unsigned int		nr_left;
	struct kt_alc_hdr	table;		/* as last loaded or written */
	struct mutex		mutex;		/* one sync at a time, and: */
	bool			fresh;		/* nothing published yet */
	bool			leaving;	/* take this node's entries out */
	union kt_alc_block	blk;
};

/* What SET TARGET PORT GROUPS asks of a sync */
struct kt_alc_stpg {
	struct kt_cmd			*cmd;
	const struct kt_alua_stpg_desc	*d;
	unsigned int			nr;
	sense_reason_t			reason;
};

/* The table's entry of group @id (of node @node, unless 0), or NULL. */
static struct kt_alc_gp *kt_alc_find(struct kt_alc_hdr *t, u32 node, u16 id)
{
	unsigned int i;

	for (i = 0; i < t->nr && i < KT_ALC_GROUPS; i++)
		if (be16_to_cpu(t->gp[i].id) == id &&
		    (!node || be32_to_cpu(t->gp[i].node) == node))
			return &t->gp[i];
	return NULL;
}

/*
 * Under alua.lock: this node's groups into @t (none while leaving),
 * keeping the state the table has for one it published before, unless it
 * was set here since; the other nodes' entries stay.
 */
static void kt_alc_put_mine(struct kt_alua_cluster *ac, struct kt_alc_hdr *t,
			    u32 me)
{
	struct kt_dev *dev = ac->dev;
	struct kt_alc_hdr old = *t;
	struct kt_alua_port *port;
	struct kt_alua_gp *gp;
	unsigned int i, n = 0;

	for (i = 0; i < old.nr && i < KT_ALC_GROUPS; i++)
		if (be32_to_cpu(old.gp[i].node) != me)
			t->gp[n++] = old.gp[i];
	list_for_each_entry(gp, &dev->state->alua.groups, node) {
		struct kt_alc_gp *e, *was;

		if (ac->leaving || !gp->id_valid || gp->is_default)
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
		/* a node that comes back starts from its own states */
		was = ac->fresh ? NULL : kt_alc_find(&old, me, gp->id);
		e->state = was && !gp->cluster_dirty ? was->state : gp->state;
		e->status = was && !gp->cluster_dirty ? was->status : gp->status;
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

/* Under alua.lock: would publishing change this node's entries? */
static bool kt_alc_mine_differ(struct kt_alua_cluster *ac,
			       struct kt_alc_hdr *t, u32 me)
{
	struct kt_alc_hdr want = *t;
	unsigned int i, mine = 0, want_mine = 0;

	kt_alc_put_mine(ac, &want, me);
	/* the entries' order is no difference: only their contents */
	for (i = 0; i < t->nr && i < KT_ALC_GROUPS; i++)
		mine += be32_to_cpu(t->gp[i].node) == me;
	for (i = 0; i < want.nr; i++) {
		const struct kt_alc_gp *w = &want.gp[i], *e;

		if (be32_to_cpu(w->node) != me)
			continue;
		want_mine++;
		e = kt_alc_find(t, me, be16_to_cpu(w->id));
		if (!e || memcmp(e, w, sizeof(*e)))
			return true;
	}
	return mine != want_mine;
}

/* Under alua.lock: the table's states for this node's groups. */
static bool kt_alc_apply(struct kt_dev *dev, struct kt_alc_hdr *t, u32 me)
{
	struct kt_alua_gp *gp;
	bool changed = false;

	list_for_each_entry(gp, &dev->state->alua.groups, node) {
		struct kt_alc_gp *e;

		/* a state set here and not yet published stays */
		if (!gp->id_valid || gp->is_default || gp->cluster_dirty)
			continue;
		e = kt_alc_find(t, me, gp->id);
		if (e && e->state != gp->state &&
		    (gp->supported & kt_alua_state_sup(e->state))) {
			kt_alua_set_state(gp, e->state, e->status);
			changed = true;
		}
	}
	return changed;
}

/* Under alua.lock: the table was published; what was set here is in it. */
static void kt_alc_published(struct kt_dev *dev, struct kt_alc_hdr *t, u32 me)
{
	struct kt_alua_gp *gp;

	list_for_each_entry(gp, &dev->state->alua.groups, node) {
		struct kt_alc_gp *e = kt_alc_find(t, me, gp->id);

		if (gp->cluster_dirty && e && e->state == gp->state)
			gp->cluster_dirty = false;
	}
}

/* A node left: its groups are Unavailable, the takeover group optimized. */
static void kt_alc_node_gone(struct kt_dev *dev, struct kt_alc_hdr *t,
			     u32 node, u32 me)
{
	u16 takeover = READ_ONCE(dev->state->cluster.alua_takeover);
	struct kt_alc_gp *e;
	unsigned int i;

	for (i = 0; i < t->nr && i < KT_ALC_GROUPS; i++) {
		e = &t->gp[i];
		if (be32_to_cpu(e->node) != node)
			continue;
		e->state = KT_ALUA_UNAVAILABLE;
		e->status = KT_ALUA_STATUS_IMPLICIT;
	}
	e = takeover ? kt_alc_find(t, me, takeover) : NULL;
	if (e) {
		e->state = KT_ALUA_AO;
		e->status = KT_ALUA_STATUS_IMPLICIT;
	}
	pr_info("%s: cluster ALUA: node %u left: its groups are Unavailable%s\n",
		config_item_name(&dev->group.cg_item), node,
		e ? "; this node's takeover group is Active/Optimized" : "");
}

/*
 * Under alua.lock: SET TARGET PORT GROUPS against the table as it is now,
 * all or nothing: this node's groups as alua.c checks them, the others'
 * by their entries. Only the table changes here.
 */
static sense_reason_t kt_alc_stpg(struct kt_alc_stpg *s, struct kt_alc_hdr *t,
				  u32 me)
{
	struct kt_dev *dev = s->cmd->dev;
	struct kt_alua_gp *gp;
	struct kt_alc_gp *e;
	unsigned int i;
	u32 off;

	for (i = 0; i < s->nr; i++) {
		u8 access, sup;

		off = KT_ALUA_STPG_HDR_LEN + i * KT_ALUA_STPG_DESC_LEN;
		gp = kt_alua_find_id(dev, s->d[i].id);
		e = gp ? NULL : kt_alc_find(t, 0, s->d[i].id);
		if (!gp && !e) {
			s->cmd->sense_field = KT_FIELD_PARAM(off + 2);
			return KT_SENSE_INVALID_PARAM_FIELD;
		}
		access = gp ? gp->access_type : e->access_type;
		sup = gp ? gp->supported : e->supported;
		if (!(access & KT_ALUA_TPGS_EXPLICIT) ||
		    !(sup & kt_alua_state_sup(s->d[i].state))) {
			s->cmd->sense_field = KT_FIELD_PARAM_BIT(off, 3);
			return KT_SENSE_INVALID_PARAM_FIELD;
		}
	}
	/* this node's groups take it once it is published (kt_alc_sync) */
	for (i = 0; i < s->nr; i++) {
		gp = kt_alua_find_id(dev, s->d[i].id);
		if (gp)
			gp->cluster_dirty = false;	/* this wins */
		e = kt_alc_find(t, gp ? me : 0, s->d[i].id);
		if (e) {
			e->state = s->d[i].state;
			e->status = KT_ALUA_STATUS_EXPLICIT;
		}
	}
	return KT_SENSE_NONE;
}

/*
 * The table is unusable: never published, not one this version writes, or
 * lost (-ESTALE: the DLM dropped its value when a node died while none of
 * the survivors held it). A lost table starts again from this node's last
 * copy, so that the groups of the node that died are still listed, and
 * become Unavailable; the others from nothing.
 */
static void kt_alc_reset(struct kt_alua_cluster *ac, int why)
{
	if (why == -EPROTO)
		pr_warn_ratelimited("%s: cluster ALUA: the table is not one this version writes; making it again\n",
				    config_item_name(&ac->dev->group.cg_item));
	memset(&ac->blk, 0, sizeof(ac->blk));
	if (why != -ESTALE)
		return;
	spin_lock_irq(&ac->lock);
	ac->blk.hdr = ac->table;
	spin_unlock_irq(&ac->lock);
	if (ac->blk.hdr.magic)
		pr_warn("%s: cluster ALUA: the cluster's table is lost; this node's copy (version %llu) replaces it\n",
			config_item_name(&ac->dev->group.cg_item),
			be64_to_cpu(ac->blk.hdr.version));
}

/*
 * Load the table; write it when this node's groups changed, a node left,
 * this node leaves, or @s (SET TARGET PORT GROUPS) changes it. What was
 * asked and not done is asked again in a while. 0 or -errno; *changed
 * says whether a state of this node's changed.
 */
static int kt_alc_sync(struct kt_alua_cluster *ac, struct kt_alc_stpg *s,
		       bool *changed)
{
	struct kt_dev *dev = ac->dev;
	const struct kt_cluster_ops *ops = dev->state->cluster.ops;
	struct kt_cluster_lu *lu = dev->state->cluster.lu;
	u32 left[KT_CLUSTER_MAX_NODES], me;
	struct kt_alc_hdr *t = &ac->blk.hdr;
	unsigned int nr_left, i, gen;
	bool publish, write, held;
	int ret, unl;

	lockdep_assert_held(&ac->mutex);
	/* the lockspace is lost: what is asked waits for its recovery's end */
	if (test_bit(KT_RES_LOST_BIT, &dev->state->res.active))
		return -ENOLINK;
	me = ops->node_id(lu);
	if (!me) {
		pr_warn_ratelimited("%s: cluster ALUA: the DLM gives no node id: groups are not shared\n",
				    config_item_name(&dev->group.cg_item));
		return -ENODEV;
	}
	spin_lock_irq(&ac->lock);
	gen = ac->stale_gen;
	publish = ac->publish;
	nr_left = ac->nr_left;
	memcpy(left, ac->left, nr_left * sizeof(left[0]));
	ac->publish = false;
	ac->nr_left = 0;
	spin_unlock_irq(&ac->lock);
	write = publish || nr_left || s || ac->leaving;

again:
	held = write;
	ret = ops->state_lock(lu, KT_CLUSTER_ALUA, held);
	if (ret)
		goto undo;
	ret = ops->state_read(lu, KT_CLUSTER_ALUA, 0, &ac->blk);
	if (!ret && t->magic && (be32_to_cpu(t->magic) != KT_ALC_MAGIC ||
				 t->nr > KT_ALC_GROUPS))
		ret = -EPROTO;
	if (ret == -ESTALE || ret == -EPROTO || (!ret && !t->magic)) {
		kt_alc_reset(ac, ret);
		write = true;
		ret = 0;
	}
	if (!ret && !write) {
		/* this node's entries missing or old (a rebuild): publish */
		mutex_lock(&dev->state->alua.lock);
		write = kt_alc_mine_differ(ac, t, me);
		mutex_unlock(&dev->state->alua.lock);
	}
	if (!ret && write && !held) {
		ops->state_unlock(lu, KT_CLUSTER_ALUA, false);
		goto again;
	}
	if (ret) {
		ops->state_unlock(lu, KT_CLUSTER_ALUA, false);
		goto undo;
	}

	for (i = 0; i < nr_left; i++)
		kt_alc_node_gone(dev, t, left[i], me);
	mutex_lock(&dev->state->alua.lock);
	if (s)
		s->reason = kt_alc_stpg(s, t, me);
	if (write)
		kt_alc_put_mine(ac, t, me);
	/* a SET TARGET PORT GROUPS changes nothing here until published */
	if (!s)
		*changed |= kt_alc_apply(dev, t, me);
	mutex_unlock(&dev->state->alua.lock);
	/*
	 * SPC-4 5.15.2.3: another node's change, every nexus of this node's
	 * ports hears of it, before the commands waiting for the load go on
	 * (SET TARGET PORT GROUPS of this node's raises its own)
	 */
	if (*changed && !s)
		kt_ua_raise(dev, KT_ASC_ALUA_STATE_CHANGED, KT_UA_ALL, NULL);

	if (write) {
		t->magic = cpu_to_be32(KT_ALC_MAGIC);
		be64_add_cpu(&t->version, 1);
		ret = ops->state_write(lu, KT_CLUSTER_ALUA, 0, &ac->blk);
	}
	unl = ops->state_unlock(lu, KT_CLUSTER_ALUA, !ret && write);
	ret = ret ?: unl;
	if (ret)
		goto undo;
	if (write) {
		mutex_lock(&dev->state->alua.lock);
		if (s)
			*changed |= kt_alc_apply(dev, t, me);
		kt_alc_published(dev, t, me);
		mutex_unlock(&dev->state->alua.lock);
		ac->fresh = false;
	}
	spin_lock_irq(&ac->lock);
	ac->table = *t;
	/* a change another node began meanwhile is still to load */
	if (ac->stale_gen == gen)
		ac->stale = false;
	spin_unlock_irq(&ac->lock);
	wake_up_all(&ac->loaded);
	return 0;

undo:
	/* what was asked is still to do */
	spin_lock_irq(&ac->lock);
	ac->publish |= publish;
	for (i = 0; i < nr_left && ac->nr_left < KT_CLUSTER_MAX_NODES; i++)
		ac->left[ac->nr_left++] = left[i];
	if (!ac->dying)
		queue_delayed_work(system_long_wq, &ac->work, KT_ALC_RETRY);
	spin_unlock_irq(&ac->lock);
	pr_warn_ratelimited("%s: cluster ALUA: the table cannot be had: error %d\n",
			    config_item_name(&dev->group.cg_item), ret);
	return ret;
}

static void kt_alc_work(struct work_struct *work)
{
	struct kt_alua_cluster *ac = container_of(to_delayed_work(work),
						  struct kt_alua_cluster, work);
	bool changed = false;

	mutex_lock(&ac->mutex);
	kt_alc_sync(ac, NULL, &changed);
	mutex_unlock(&ac->mutex);
}

/*
 * Set by cluster mode's join and cleared, after a grace period, before its
 * leave: the command path runs only while a LUN exports the device, which
 * cluster mode's changes wait for; configfs and the module's callbacks
 * look under rcu_read_lock().
 */
static struct kt_alua_cluster *kt_alc_of(struct kt_dev *dev)
{
	return rcu_dereference_check(dev->state->alua.clustered, true);
}

/* Ask the work to publish, note node @left (not 0) gone, or just load. */
static void kt_alc_kick(struct kt_dev *dev, bool publish, u32 left,
			bool stale)
{
	struct kt_alua_cluster *ac;
	unsigned long flags;
	unsigned int i;

	rcu_read_lock();
	ac = kt_alc_of(dev);
	if (ac) {
		spin_lock_irqsave(&ac->lock, flags);
		ac->publish |= publish;
		if (stale && !ac->stale)
			ac->stale_since = jiffies;
		ac->stale |= stale;
		ac->stale_gen += stale;
		for (i = 0; left && i < ac->nr_left; i++)
			if (ac->left[i] == left)
				left = 0;
		if (left && ac->nr_left < KT_CLUSTER_MAX_NODES)
			ac->left[ac->nr_left++] = left;
		if (!ac->dying)
			mod_delayed_work(system_long_wq, &ac->work, 0);
		spin_unlock_irqrestore(&ac->lock, flags);
	}
	rcu_read_unlock();
}

/* This node's groups, ports or states changed: publish them. */
void kt_alua_cluster_changed(struct kt_dev *dev)
{
	kt_alc_kick(dev, true, 0, false);
}

/* The module: another node is about to change the table. */
void kt_alua_cluster_stale(struct kt_dev *dev)
{
	kt_alc_kick(dev, false, 0, true);
}

void kt_cluster_node_left(struct kt_dev *dev, u32 nodeid)
{
	kt_alc_kick(dev, false, nodeid, false);
}
EXPORT_SYMBOL_GPL(kt_cluster_node_left);

/*
 * Another node is changing the table: wait for this node to load it, so
 * that what that node has answered holds here too, but only for a moment
 * after the change began (a node that died changing it must not stall
 * every command until the recovery ends).
 */
static void kt_alc_wait_loaded(struct kt_alua_cluster *ac)
{
	long left;

	if (!READ_ONCE(ac->stale))
		return;
	left = (long)(READ_ONCE(ac->stale_since) + KT_ALC_LOAD_WAIT - jiffies);
	if (left > 0)
		wait_event_timeout(ac->loaded, !READ_ONCE(ac->stale), left);
}

/* The command path, before its unit attention and ALUA checks. */
void kt_alua_cluster_current(struct kt_dev *dev)
{
	struct kt_alua_cluster *ac = kt_alc_of(dev);

	if (ac)
		kt_alc_wait_loaded(ac);
}

/*
 * REPORT TARGET PORT GROUPS: the other nodes' groups, after this node's
 * @n (@d has room for KT_ALC_GROUPS more, @ports for KT_ALC_GROUPS *
 * KT_ALC_PORTS). Returns how many it added.
 */
unsigned int kt_alua_cluster_report(struct kt_dev *dev,
				    struct kt_alua_desc *d, unsigned int n,
				    u16 *ports)
{
	struct kt_alua_cluster *ac = kt_alc_of(dev);
	const struct kt_cluster_ops *ops = dev->state->cluster.ops;
	struct kt_alc_hdr t;
	unsigned int i, k, added = 0;
	u32 me;

	if (!ac)
		return 0;
	kt_alc_wait_loaded(ac);
	me = ops->node_id(dev->state->cluster.lu);
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

/*
 * SET TARGET PORT GROUPS in cluster mode: false when cluster mode is off
 * (alua.c does it alone). Else *@reason is the command's answer, and
 * *@changed says whether a group of this node's changed state.
 */
bool kt_alua_cluster_stpg(struct kt_cmd *cmd,
			  const struct kt_alua_stpg_desc *d, unsigned int nr,
			  sense_reason_t *reason, bool *changed)
{
	struct kt_alua_cluster *ac = kt_alc_of(cmd->dev);
	struct kt_alc_stpg s = { .cmd = cmd, .d = d, .nr = nr };
	int ret;

	if (!ac)
		return false;
	mutex_lock(&ac->mutex);
	ret = kt_alc_sync(ac, &s, changed);
	mutex_unlock(&ac->mutex);
	if (ret) {
		/* SPC-4: SET TARGET PORT GROUPS COMMAND FAILED */
		cmd->sense_asc_ascq = KT_ASC_STPG_FAILED;
		cmd->sense_asc_exact = true;
		*reason = KT_SENSE_LU_COMM_FAILURE;
	} else {
		*reason = s.reason;
	}
	return true;
}

/* Cluster mode goes on: publish this node's groups, load the others'. */
int kt_alua_cluster_attach(struct kt_dev *dev)
{
	struct kt_alua_cluster *ac = kzalloc(sizeof(*ac), GFP_KERNEL);

	if (!ac)
		return -ENOMEM;
	ac->dev = dev;
	INIT_DELAYED_WORK(&ac->work, kt_alc_work);
	init_waitqueue_head(&ac->loaded);
	spin_lock_init(&ac->lock);
	mutex_init(&ac->mutex);
	ac->publish = true;
	ac->stale = true;
	ac->stale_since = jiffies;
	ac->fresh = true;
	rcu_assign_pointer(dev->state->alua.clustered, ac);
	queue_delayed_work(system_long_wq, &ac->work, 0);
	return 0;
}

/*
 * Cluster mode goes off, the module still there: this node's entries
 * leave the table, and nothing runs or starts here once this returns.
 */
struct kt_alua_cluster *kt_alua_cluster_detach(struct kt_dev *dev)
{
	struct kt_alua_cluster *ac = kt_alc_of(dev);
	bool changed = false;

	if (!ac)
		return NULL;
	mutex_lock(&ac->mutex);
	ac->leaving = true;
	kt_alc_sync(ac, NULL, &changed);
	mutex_unlock(&ac->mutex);

	spin_lock_irq(&ac->lock);
	ac->dying = true;
	spin_unlock_irq(&ac->lock);
	RCU_INIT_POINTER(dev->state->alua.clustered, NULL);
	/* a kick that saw it has queued the work by now */
	synchronize_rcu();
	cancel_delayed_work_sync(&ac->work);
	return ac;
}

void kt_alua_cluster_free(struct kt_alua_cluster *ac)
{
	kfree(ac);
}
