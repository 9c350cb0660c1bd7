// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: the persistent reservations of a clustered device, one
 * state for every node, in the cluster module's shared state
 * (include/ktarget/cluster.h).
 *
 * Each node keeps its copy in dev->state->res, as a single node does, and
 * KT_RES_STALE in res.active says the copy may be out of date: the module
 * sets it as soon as another node is about to change the state, and the
 * next command, or the refresh work queued at the same time, loads the
 * state before anything looks at the copy. A node whose copy is current
 * checks every command against it without asking the other nodes.
 * KT_RES_LOST says the lockspace's recovery has not ended in time: the LU
 * then answers only what an Unavailable port answers, until it ends.
 *
 *   block 0      the header: version, PRgeneration, type, holder, APTPL,
 *                the number of registrations, an SPC-2 RESERVE's holder,
 *                and the unit attentions and aborts the last changes
 *                raised, each with its version
 *   banks        two of KT_PRC_BANK blocks: version V's registrations are
 *                in bank V % 2, one per block in the order of res.regs,
 *                each marked with V
 *
 * A PR OUT takes the state for writing, loads it if its version moved,
 * runs as it would on one node, then writes every registration to the
 * other bank and last the header with the next version: a change that
 * fails halfway leaves the published version whole. A node that loads a
 * newer version raises, for its own nexuses, the unit attentions of the
 * versions it had not seen, and aborts the commands of nexuses a PREEMPT
 * AND ABORT removed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait_bit.h>

#include <ktarget/cluster.h>
#include <ktarget/proto/alua.h>
#include <ktarget/proto/sense.h>

#include "core.h"
#include "pr.h"

#define KT_PRC_MAGIC		0x6b745052	/* "ktPR" */
#define KT_PRC_EVENTS		12
#define KT_PRC_BANK		((KT_CLUSTER_STATE_BLOCKS - 1) / 2)

struct kt_prc_event {
	__be64	nexus;			/* kt_nexus_key(), 0: every nexus */
	__be32	version;		/* its low 32 bits */
	__be16	port;			/* relative target port, 0: any */
	__be16	asc_ascq;		/* or KT_PR_CLUSTER_ABORT */
};

struct kt_prc_hdr {
	__be32	magic;			/* 0: nothing published yet */
	__be32	generation;		/* PRgeneration */
	__be64	version;
	__be64	events_lost;		/* events up to it did not fit */
	__be64	spc2_nexus;		/* an SPC-2 RESERVE's holder */
	__be16	nr_regs;
	__be16	holder;			/* its block's index, 0: none */
	__be16	spc2_port;
	u8	type;
	u8	aptpl;
	u8	nr_events;
	u8	spc2;			/* an SPC-2 RESERVE holds the LU */
	u8	rsvd[6];
	struct kt_prc_event ev[KT_PRC_EVENTS];
};

#define KT_PRC_ALL_TG_PT	BIT(0)
#define KT_PRC_HAS_ISID		BIT(1)

struct kt_prc_reg {
	__be64	key;
	__be16	rtpi;
	u8	flags;			/* KT_PRC_* */
	u8	proto;
	u8	isid[KT_PR_ISID_LEN];
	__be32	version;		/* low 32 bits of the header's */
	u8	rsvd[2];
	char	name[KT_PR_NAME_LEN];	/* NUL-terminated */
};

/* A block as the cluster module reads and writes it */
union kt_prc_block {
	u8			raw[KT_CLUSTER_BLOCK_LEN];
	struct kt_prc_hdr	hdr;
	struct kt_prc_reg	reg;
};

static_assert(sizeof(struct kt_prc_hdr) <= KT_CLUSTER_BLOCK_LEN);
static_assert(sizeof(struct kt_prc_reg) <= KT_CLUSTER_BLOCK_LEN);

/* This node's side of the shared state, while cluster mode is on */
struct kt_pr_cluster {
	u64			version;	/* of the state the copy is */
	bool			loaded;		/* @version means something */
	bool			ever_loaded;	/* since cluster mode went on */
	struct kt_prc_hdr	hdr;		/* the last header seen */
	/* what this change raised, for the other nodes */
	struct kt_prc_event	ev[KT_PRC_EVENTS];
	unsigned int		nr_ev;
	bool			ev_lost;
	bool			hdr_written;	/* published at the unlock */
	/* nexuses to abort here, once res.lock is let go */
	struct kt_pr_nexus	abort[KT_PRC_EVENTS];
	unsigned int		nr_abort;
	struct work_struct	refresh;
	/* another node waits for this one to apply its change: ack work */
	bool			ack_asked;
	struct delayed_work	ack;
	/* another node's aborts whose commands have not all ended */
	atomic_t		aborting;
	/*
	 * The first version this node can say it applied whole: a load that
	 * had to drop aborts (too many, or changes it missed) cannot vouch
	 * for the versions up to the one it loaded
	 */
	u64			sound_from;
	bool			aborts_lost;
	/* commands that came during a load, released by the refresh work */
	struct llist_head	loading;
	struct kt_dev		*dev;
	union kt_prc_block	blk;		/* kt_prc_take()'s, publish's */
};

static struct kt_cluster_lu *kt_prc_lu(struct kt_dev *dev)
{
	return dev->state->cluster.lu;
}

static const struct kt_cluster_ops *kt_prc_ops(struct kt_dev *dev)
{
	return dev->state->cluster.ops;
}

unsigned int kt_pr_max_regs(const struct kt_dev *dev)
{
	return dev->state->res.clustered ? KT_PRC_BANK : KT_PR_MAX_REGS;
}

/* Version @version's @i-th registration (from 1): its block */
static unsigned int kt_prc_blk(u64 version, unsigned int i)
{
	return 1 + (version % 2) * KT_PRC_BANK + i - 1;
}

static void kt_prc_pack(const struct kt_pr_reg *reg, u64 version,
			union kt_prc_block *blk)
{
	struct kt_prc_reg *b = &blk->reg;

	memset(blk, 0, sizeof(*blk));
	b->version = cpu_to_be32(version);
	b->key = cpu_to_be64(reg->key);
	b->rtpi = cpu_to_be16(reg->rtpi);
	b->flags = (reg->all_tg_pt ? KT_PRC_ALL_TG_PT : 0) |
		   (reg->tid.has_isid ? KT_PRC_HAS_ISID : 0);
	b->proto = reg->tid.proto;
	memcpy(b->isid, reg->tid.isid, sizeof(b->isid));
	strscpy(b->name, reg->tid.name, sizeof(b->name));
}

/*
 * -ESTALE when @blk is not version @version's (a lost value reads as 0s),
 * -ENOMEM: only the first says the DLM lost the state.
 */
static struct kt_pr_reg *kt_prc_unpack(const union kt_prc_block *blk,
				       u64 version)
{
	const struct kt_prc_reg *b = &blk->reg;
	struct kt_pr_reg *reg;

	if (be32_to_cpu(b->version) != (u32)version || !b->key ||
	    !b->name[0] || !memchr(b->name, '\0', sizeof(b->name)))
		return ERR_PTR(-ESTALE);
	reg = kzalloc(sizeof(*reg), GFP_KERNEL);
	if (!reg)
		return ERR_PTR(-ENOMEM);
	reg->key = be64_to_cpu(b->key);
	reg->rtpi = be16_to_cpu(b->rtpi);
	reg->all_tg_pt = b->flags & KT_PRC_ALL_TG_PT;
	reg->tid.has_isid = b->flags & KT_PRC_HAS_ISID;
	reg->tid.proto = b->proto;
	memcpy(reg->tid.isid, b->isid, sizeof(reg->tid.isid));
	strscpy(reg->tid.name, b->name, sizeof(reg->tid.name));
	return reg;
}

/* A change on this node raised @asc_ascq for a nexus; under res.lock. */
void kt_pr_cluster_event(struct kt_dev *dev, u64 nexus, u16 port,
			 u16 asc_ascq)
{
	struct kt_pr_cluster *pc = dev->state->res.clustered;

	if (!pc)
		return;
	if (pc->nr_ev == KT_PRC_EVENTS) {
		memmove(pc->ev, pc->ev + 1, sizeof(pc->ev) - sizeof(pc->ev[0]));
		pc->nr_ev--;
		pc->ev_lost = true;
	}
	pc->ev[pc->nr_ev++] = (struct kt_prc_event){
		.nexus = cpu_to_be64(nexus),
		.port = cpu_to_be16(port),
		.asc_ascq = cpu_to_be16(asc_ascq),
	};
}

/* Another node's change raised @ev: for this node's nexuses too. */
static void kt_prc_apply(struct kt_dev *dev, struct kt_pr_cluster *pc,
			 const struct kt_prc_event *ev)
{
	u16 asc_ascq = be16_to_cpu(ev->asc_ascq);
	struct kt_pr_nexus n = {
		.key = be64_to_cpu(ev->nexus),
		.port = be16_to_cpu(ev->port),
	};

	pr_debug("%s: another node's change %u: %#x for nexus %#llx port %u\n",
		 config_item_name(&dev->group.cg_item),
		 be32_to_cpu(ev->version), asc_ascq, n.key, n.port);
	if (!n.key) {
		kt_ua_raise(dev, asc_ascq, KT_UA_ALL, NULL);
		return;
	}

	if (asc_ascq != KT_PR_CLUSTER_ABORT) {
		kt_ua_raise_nexus(dev, asc_ascq, KT_UA_ONLY, n.key, n.port);
		return;
	}
	if (pc->nr_abort < ARRAY_SIZE(pc->abort)) {
		pc->abort[pc->nr_abort] = n;
		WRITE_ONCE(pc->nr_abort, pc->nr_abort + 1);
	} else {
		pc->aborts_lost = true;
	}
}

static void kt_prc_events(struct kt_dev *dev, struct kt_pr_cluster *pc,
			  const struct kt_prc_hdr *hdr)
{
	unsigned int i, nr = min_t(unsigned int, hdr->nr_events,
				   KT_PRC_EVENTS);
	u32 seen = pc->version;
	bool lost = be64_to_cpu(hdr->events_lost) > pc->version;

	if (lost) {
		/* too many changes since this node looked: tell everyone */
		pr_info_ratelimited("%s: persistent reservations changed too often on other nodes to tell each nexus why\n",
				    config_item_name(&dev->group.cg_item));
		kt_ua_raise(dev, KT_ASC_RESERVATIONS_PREEMPTED, KT_UA_ALL,
			    NULL);
	}
	pc->aborts_lost = false;
	for (i = 0; i < nr; i++)
		if ((s32)(be32_to_cpu(hdr->ev[i].version) - seen) > 0)
			kt_prc_apply(dev, pc, &hdr->ev[i]);
	/* aborts this node never heard of: it cannot say it applied these */
	if (lost || pc->aborts_lost) {
		pr_warn_ratelimited("%s: persistent reservations: aborts of other nodes' changes up to version %llu were lost here\n",
				    config_item_name(&dev->group.cg_item),
				    be64_to_cpu(hdr->version));
		pc->sound_from = be64_to_cpu(hdr->version) + 1;
	}
}

static void kt_prc_free_list(struct list_head *regs)
{
	struct kt_pr_reg *reg, *tmp;

	list_for_each_entry_safe(reg, tmp, regs, node) {
		list_del(&reg->node);
		kfree(reg);
	}
}

/* The nexus of this node's session that holds an SPC-2 RESERVE */
static void kt_prc_spc2_nexus(const struct kt_res *res, u64 *key, u16 *port)
{
	const struct kt_session *sess = res->spc2_holder;

	*key = sess->nexus_key;
	*port = sess->tpg->tag;
}

/* Whose is the SPC-2 RESERVE the header names: this node's session's? */
static void kt_prc_take_spc2(struct kt_res *res, const struct kt_prc_hdr *hdr)
{
	u64 key;
	u16 port;

	if (hdr->spc2 && res->spc2_holder) {
		kt_prc_spc2_nexus(res, &key, &port);
		if (be64_to_cpu(hdr->spc2_nexus) == key &&
		    be16_to_cpu(hdr->spc2_port) == port) {
			res->spc2_elsewhere = false;
			return;
		}
	}
	kt_reserve_set_holder(res, NULL);
	res->spc2_elsewhere = hdr->spc2;
}

/* The shared state is newer than the copy: take it. */
static int kt_prc_take(struct kt_dev *dev, struct kt_pr_cluster *pc,
		       const struct kt_prc_hdr *hdr)
{
	struct kt_cluster_lu *lu = kt_prc_lu(dev);
	const struct kt_cluster_ops *ops = kt_prc_ops(dev);
	struct kt_res *res = &dev->state->res;
	unsigned int i, nr = be16_to_cpu(hdr->nr_regs);
	unsigned int holder = be16_to_cpu(hdr->holder);
	u64 version = be64_to_cpu(hdr->version);
	bool was_aptpl = res->aptpl;
	LIST_HEAD(regs);
	int ret = 0;

	if (nr > KT_PRC_BANK || holder > nr ||
	    (hdr->type && !kt_pr_type_valid(hdr->type)))
		return -EPROTO;
	for (i = 1; i <= nr; i++) {
		struct kt_pr_reg *reg;

		ret = ops->state_read(lu, KT_CLUSTER_PR, kt_prc_blk(version, i), &pc->blk);
		if (ret)
			break;
		reg = kt_prc_unpack(&pc->blk, version);
		if (IS_ERR(reg)) {
			/*
			 * -ESTALE, not this version's: the DLM lost it, and this
			 * node's copy may replace it; -ENOMEM must not
			 */
			ret = PTR_ERR(reg);
			break;
		}
		list_add_tail(&reg->node, &regs);
	}
	if (ret) {
		kt_prc_free_list(&regs);
		return ret;
	}

	kt_prc_free_list(&res->regs);
	list_splice(&regs, &res->regs);
	res->nr_regs = nr;
	res->holder = NULL;
	if (holder) {
		struct kt_pr_reg *reg;

		i = 0;
		list_for_each_entry(reg, &res->regs, node)
			if (++i == holder)
				res->holder = reg;
	}
	kt_prc_take_spc2(res, hdr);
	res->type = hdr->type;
	res->generation = be32_to_cpu(hdr->generation);
	res->aptpl = hdr->aptpl;
	/* the shared state wins over any APTPL file */
	res->aptpl_loaded = true;
	kt_res_update(dev);
	pr_debug("%s: persistent reservations: version %llu to %llu, %u registration(s), %u event(s)\n",
		 config_item_name(&dev->group.cg_item), pc->version,
		 be64_to_cpu(hdr->version), nr, hdr->nr_events);
	/* a node that just joined has no nexus that missed anything */
	if (pc->ever_loaded)
		kt_prc_events(dev, pc, hdr);
	if (res->aptpl || was_aptpl)
		kt_pr_aptpl_save(dev);
	return 0;
}

/* Write the copy as the next version; the state is held for writing. */
static int kt_prc_publish(struct kt_dev *dev, struct kt_pr_cluster *pc,
			  bool all)
{
	struct kt_cluster_lu *lu = kt_prc_lu(dev);
	const struct kt_cluster_ops *ops = kt_prc_ops(dev);
	struct kt_res *res = &dev->state->res;
	struct kt_prc_hdr *hdr = &pc->hdr;
	unsigned int i = 0, holder = 0, n, keep;
	struct kt_pr_reg *reg;
	u64 version = pc->version + 1;
	int ret;

	/* the other bank: the published version stays whole meanwhile */
	list_for_each_entry(reg, &res->regs, node) {
		if (++i > KT_PRC_BANK)
			return -ENOSPC;
		if (reg == res->holder)
			holder = i;
		kt_prc_pack(reg, version, &pc->blk);
		ret = ops->state_write(lu, KT_CLUSTER_PR, kt_prc_blk(version, i), &pc->blk);
		if (ret)
			return ret;
	}

	hdr->magic = cpu_to_be32(KT_PRC_MAGIC);
	hdr->generation = cpu_to_be32(res->generation);
	hdr->version = cpu_to_be64(version);
	hdr->nr_regs = cpu_to_be16(i);
	hdr->holder = cpu_to_be16(holder);
	hdr->type = res->type;
	hdr->aptpl = res->aptpl;
	/* another node's SPC-2 RESERVE: as it was loaded */
	hdr->spc2 = kt_reserve_held(res);
	if (res->spc2_holder) {
		u64 key;
		u16 port;

		kt_prc_spc2_nexus(res, &key, &port);
		hdr->spc2_nexus = cpu_to_be64(key);
		hdr->spc2_port = cpu_to_be16(port);
	}
	/* the last KT_PRC_EVENTS events: the older ones, then this change's */
	n = min_t(unsigned int, hdr->nr_events, KT_PRC_EVENTS);
	if (all) {
		/* a node behind this copy cannot know what it missed */
		n = 0;
		hdr->events_lost = cpu_to_be64(pc->version);
	}
	keep = min(n, KT_PRC_EVENTS - pc->nr_ev);
	if (keep < n) {
		/* what falls out is of this version or older */
		hdr->events_lost = cpu_to_be64(pc->version);
		memmove(hdr->ev, hdr->ev + n - keep, keep * sizeof(hdr->ev[0]));
	}
	if (pc->ev_lost)
		hdr->events_lost = cpu_to_be64(version);
	for (i = 0; i < pc->nr_ev; i++) {
		pc->ev[i].version = cpu_to_be32(version);
		hdr->ev[keep + i] = pc->ev[i];
	}
	hdr->nr_events = keep + pc->nr_ev;
	memset(&pc->blk, 0, sizeof(pc->blk));
	pc->blk.hdr = *hdr;
	ret = ops->state_write(lu, KT_CLUSTER_PR, 0, &pc->blk);
	if (ret)
		return ret;
	pc->version = version;
	pc->loaded = true;
	pc->hdr_written = true;
	return 0;
}

/*
 * The copy and the cluster's state may differ: nothing decides on the copy
 * until the whole state is loaded again.
 */
static void kt_prc_distrust(struct kt_dev *dev, struct kt_pr_cluster *pc)
{
	pc->loaded = false;
	set_bit(KT_RES_STALE_BIT, &dev->state->res.active);
}

/* Is this node's copy worth publishing when the cluster's is gone? */
static bool kt_prc_worth_keeping(struct kt_pr_cluster *pc, struct kt_res *res)
{
	bool any = res->nr_regs || res->type || kt_reserve_held(res);

	/* a copy distrusted since (a failed publish) is not */
	if (!pc->loaded)
		return !pc->ever_loaded && any;
	return pc->version || any;
}

static int kt_prc_sync(struct kt_dev *dev, struct kt_pr_cluster *pc,
		       bool write)
{
	struct kt_cluster_lu *lu = kt_prc_lu(dev);
	const struct kt_cluster_ops *ops = kt_prc_ops(dev);
	struct kt_res *res = &dev->state->res;
	struct kt_prc_hdr hdr;
	bool republish, held_write = write;
	u64 version;
	int ret;

	/* no request while the lockspace is lost: none would be answered */
	if (test_bit(KT_RES_LOST_BIT, &res->active))
		return -ENOLINK;
	if (!res->aptpl_loaded)
		kt_pr_aptpl_load(dev);
	ret = ops->state_lock(lu, KT_CLUSTER_PR, held_write);
	if (ret)
		goto distrust;
again:
	republish = false;
	ret = ops->state_read(lu, KT_CLUSTER_PR, 0, &pc->blk);
	hdr = pc->blk.hdr;
	version = be64_to_cpu(hdr.version);
	if (ret == -ESTALE || (!ret && !hdr.magic)) {
		/* the nodes that held it left, or nobody published yet */
		ret = 0;
		republish = kt_prc_worth_keeping(pc, res);
		if (!republish) {
			pc->loaded = true;
			pc->ever_loaded = true;
			pc->version = 0;
			memset(&pc->hdr, 0, sizeof(pc->hdr));
		}
	} else if (!ret && be32_to_cpu(hdr.magic) != KT_PRC_MAGIC) {
		ret = -EPROTO;
	} else if (!ret && pc->loaded && version < pc->version) {
		republish = true;	/* it went back: the DLM lost it */
	} else if (!ret && (!pc->loaded || version != pc->version)) {
		ret = kt_prc_take(dev, pc, &hdr);
		if (ret == -ESTALE && kt_prc_worth_keeping(pc, res)) {
			/* its registrations left with the nodes that held them */
			ret = 0;
			republish = true;
		} else if (!ret) {
			pc->hdr = hdr;
			pc->version = version;
			pc->loaded = true;
			pc->ever_loaded = true;
		}
	}
	if (!ret && republish && !held_write) {
		/* for writing, and then look again: another node may have */
		ops->state_unlock(lu, KT_CLUSTER_PR, false);
		held_write = true;
		ret = ops->state_lock(lu, KT_CLUSTER_PR, true);
		if (ret)
			goto distrust;
		goto again;
	}
	pc->nr_ev = 0;
	pc->ev_lost = false;
	pc->hdr_written = false;
	if (!ret && republish) {
		pr_warn("%s: persistent reservations: the cluster's copy (version %llu) is lost; this node's (version %llu) replaces it\n",
			config_item_name(&dev->group.cg_item), version,
			pc->version);
		pc->version = max(pc->version, version);
		ret = kt_prc_publish(dev, pc, true);
	}
	if (ret) {
		ops->state_unlock(lu, KT_CLUSTER_PR, false);
		goto distrust;
	}
	/* the module sets it again if another node asks meanwhile */
	clear_bit(KT_RES_STALE_BIT, &res->active);
	if (!write) {
		ret = ops->state_unlock(lu, KT_CLUSTER_PR, pc->hdr_written);
		pc->hdr_written = false;
		if (ret)
			goto distrust;
	}
	return 0;

distrust:
	kt_prc_distrust(dev, pc);
	pr_warn_ratelimited("%s: persistent reservations: the cluster's state cannot be had: error %d\n",
			    config_item_name(&dev->group.cg_item), ret);
	return ret;
}

/*
 * Under res.lock, before a PR OUT (@write) or anything else looks at the
 * copy: make it current. For writing, the state stays held until
 * kt_pr_cluster_end(). 0, or -errno after saying why.
 */
int kt_pr_cluster_begin(struct kt_dev *dev, bool write)
{
	struct kt_pr_cluster *pc = dev->state->res.clustered;

	return pc ? kt_prc_sync(dev, pc, write) : 0;
}

/*
 * Under res.lock, after a PR OUT: publish the copy if @changed. When that
 * fails the copy is no longer the cluster's: the next look reloads it.
 */
int kt_pr_cluster_end(struct kt_dev *dev, bool changed)
{
	struct kt_pr_cluster *pc = dev->state->res.clustered;
	int ret = 0, unlocked;

	if (!pc)
		return 0;
	if (changed)
		ret = kt_prc_publish(dev, pc, false);
	/* a failed publish wrote only the other bank: no header for it */
	unlocked = kt_prc_ops(dev)->state_unlock(kt_prc_lu(dev), KT_CLUSTER_PR,
						 !ret && pc->hdr_written);
	pc->hdr_written = false;
	ret = ret ?: unlocked;
	if (ret) {
		pr_warn_ratelimited("%s: persistent reservations: a change could not be published: error %d\n",
				    config_item_name(&dev->group.cg_item), ret);
		kt_prc_distrust(dev, pc);
	}
	pc->nr_ev = 0;
	pc->ev_lost = false;
	return ret;
}

/* A reset of a clustered LU, on its way to the other nodes */
struct kt_prc_reset {
	struct work_struct	work;
	struct kt_lun		*lun;	/* a reference: the device stays */
	struct kt_tmr		*tmr;
	bool			ua;	/* LOGICAL UNIT RESET: 29/03 there too */
};

static void kt_prc_reset_work(struct work_struct *work)
{
	struct kt_prc_reset *r = container_of(work, struct kt_prc_reset, work);
	struct kt_dev *dev = r->lun->dev;

	if (r->ua) {
		mutex_lock(&dev->state->res.lock);
		if (!kt_pr_cluster_begin(dev, true)) {
			kt_pr_cluster_event(dev, 0, 0, KT_ASC_BUS_DEVICE_RESET);
			kt_pr_cluster_end(dev, true);
		}
		mutex_unlock(&dev->state->res.lock);
	}
	/* SAM-5 6.3: a reset ends SPC-2 reservations, on every node */
	kt_reserve_reset(dev);
	kt_lun_put(r->lun);
	kt_tmr_task_done(r->tmr);
	kfree(r);
}

/*
 * A LOGICAL UNIT RESET (@ua) or a target reset (@tmr) of @lun's LU: if it
 * is clustered, what the reset does beyond this node (the unit attention
 * 29/03 for the LU's nexuses on the other nodes; ending an SPC-2
 * reservation) is done from a work item, since the receive path never
 * waits for the other nodes, and @tmr answers once it is. False when the
 * LU is not clustered, there is no memory for the work or the LUN is being
 * unlinked: the caller ends the reservation itself.
 */
bool kt_pr_cluster_reset(struct kt_lun *lun, struct kt_tmr *tmr, bool ua)
{
	struct kt_dev *dev = lun->dev;
	struct kt_prc_reset *r;

	if (!READ_ONCE(dev->state->res.clustered))
		return false;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r) {
		pr_warn_ratelimited("%s: reset: no memory to tell the other nodes\n",
				    config_item_name(&dev->group.cg_item));
		return false;
	}
	/* a LUN being unlinked takes no new reference */
	if (!kt_lun_tryget(lun)) {
		kfree(r);
		return false;
	}
	r->lun = lun;
	r->tmr = tmr;
	r->ua = ua;
	atomic_inc(&tmr->pending);
	INIT_WORK(&r->work, kt_prc_reset_work);
	queue_work(system_long_wq, &r->work);
	return true;
}

/*
 * Not under res.lock: abort what another node's PREEMPT AND ABORT named,
 * but not @spare, the command that found the change (it came after it).
 */
void kt_pr_cluster_aborts(struct kt_dev *dev, struct kt_cmd *spare)
{
	struct kt_pr_cluster *pc;
	struct kt_pr_nexus gone[KT_PRC_EVENTS];
	unsigned int nr = 0;

	/*
	 * Every command to a reserved clustered LU comes here: no lock unless
	 * a load left aborts (its caller comes here after it, too). @pc lives
	 * while a LUN exports the device.
	 */
	pc = READ_ONCE(dev->state->res.clustered);
	if (!pc || !READ_ONCE(pc->nr_abort))
		return;
	mutex_lock(&dev->state->res.lock);
	pc = dev->state->res.clustered;
	if (pc) {
		nr = pc->nr_abort;
		memcpy(gone, pc->abort, nr * sizeof(gone[0]));
		WRITE_ONCE(pc->nr_abort, 0);
		/* counted before res.lock goes: the ack work waits for it */
		if (nr)
			atomic_inc(&pc->aborting);
	}
	mutex_unlock(&dev->state->res.lock);
	if (nr)
		kt_tmr_preempt_abort_dev(dev, gone, nr, spare, &pc->aborting);
}

/*
 * Under res.lock: bring the copy up to date for @cmd; KT_SENSE_NONE or why
 * it cannot run. The caller runs kt_pr_cluster_aborts() after the unlock.
 */
sense_reason_t kt_pr_cluster_current(struct kt_cmd *cmd)
{
	struct kt_dev *dev = cmd->dev;

	lockdep_assert_held(&dev->state->res.lock);
	if (!dev->state->res.clustered)
		return KT_SENSE_NONE;
	if (test_bit(KT_RES_LOST_BIT, &dev->state->res.active))
		return kt_pr_cluster_lost_check(cmd);
	if (!test_bit(KT_RES_STALE_BIT, &dev->state->res.active) ||
	    !kt_pr_cluster_begin(dev, false))
		return KT_SENSE_NONE;
	/* never decide on a copy that may be stale: try another path */
	cmd->sense_asc_ascq = KT_ASC_NOT_READY_UNAVAILABLE;
	return KT_SENSE_NOT_READY;
}

/*
 * KT_RES_LOST is set: what a port in the Unavailable state answers runs,
 * without looking at the reservations; everything else ends NOT READY.
 * Takes no lock: a request stuck in the DLM's recovery may hold res.lock.
 */
sense_reason_t kt_pr_cluster_lost_check(struct kt_cmd *cmd)
{
	u16 asc = kt_alua_access_check(KT_ALUA_UNAVAILABLE, cmd->desc);

	if (!asc)
		return KT_SENSE_NONE;
	cmd->sense_asc_ascq = asc;
	return KT_SENSE_NOT_READY;
}

/*
 * kt_cmd_setup(): KT_RES_STALE or KT_RES_LOST is set. Lost, @cmd gets its
 * answer now; stale, it is marked to be checked when the state has loaded
 * (kt_cmd_loaded_checks(), before it runs).
 */
sense_reason_t kt_pr_cluster_arrive(struct kt_cmd *cmd)
{
	struct kt_dev *dev = cmd->dev;

	if (!READ_ONCE(dev->state->res.clustered))
		return KT_SENSE_NONE;
	if (test_bit(KT_RES_LOST_BIT, &dev->state->res.active))
		return kt_pr_cluster_lost_check(cmd);
	set_bit(KT_CMD_LOADING, &cmd->flags);
	return KT_SENSE_NONE;
}

/* Bring the copy up to date; KT_SENSE_NONE or why a command cannot run. */
sense_reason_t kt_pr_cluster_refresh(struct kt_cmd *cmd)
{
	struct kt_dev *dev = cmd->dev;
	sense_reason_t ret;

	if (test_bit(KT_RES_LOST_BIT, &dev->state->res.active))
		return kt_pr_cluster_lost_check(cmd);
	mutex_lock(&dev->state->res.lock);
	ret = kt_pr_cluster_current(cmd);
	mutex_unlock(&dev->state->res.lock);
	kt_pr_cluster_aborts(dev, cmd);
	return ret;
}

static void kt_prc_refresh_work(struct work_struct *work)
{
	struct kt_pr_cluster *pc = container_of(work, struct kt_pr_cluster,
						refresh);
	struct kt_dev *dev = pc->dev;

	struct llist_node *waiting;
	struct kt_cmd *cmd, *next;

	mutex_lock(&dev->state->res.lock);
	if (test_bit(KT_RES_STALE_BIT, &dev->state->res.active) &&
	    !test_bit(KT_RES_LOST_BIT, &dev->state->res.active))
		kt_pr_cluster_begin(dev, false);
	mutex_unlock(&dev->state->res.lock);
	kt_pr_cluster_aborts(dev, NULL);
	/* the commands that came meanwhile: their checks, then they run */
	waiting = llist_del_all(&pc->loading);
	llist_for_each_entry_safe(cmd, next, waiting, loading_node)
		kt_cluster_defer(cmd);
}

/* How often the ack work looks again: a load failed, commands still run */
#define KT_PRC_ACK_AGAIN	HZ

/*
 * Another node waits until this one has applied its change: load the
 * state, end the commands it aborted, and say which versions this node
 * has applied. Until it can, it tries again: the DLM asks only once.
 */
static void kt_prc_ack_work(struct work_struct *work)
{
	struct kt_pr_cluster *pc = container_of(to_delayed_work(work),
						struct kt_pr_cluster, ack);
	struct kt_dev *dev = pc->dev;
	struct kt_res *res = &dev->state->res;
	bool have = false, gone;
	u64 version = 0, from = 0;

	if (!READ_ONCE(pc->ack_asked))
		return;
	mutex_lock(&res->lock);
	gone = res->clustered != pc;
	if (!gone && !test_bit(KT_RES_LOST_BIT, &res->active) &&
	    (!test_bit(KT_RES_STALE_BIT, &res->active) ||
	     !kt_pr_cluster_begin(dev, false)) && pc->loaded) {
		have = true;
		version = pc->version;
		from = pc->sound_from;
	}
	mutex_unlock(&res->lock);
	if (gone)
		return;
	if (have) {
		kt_pr_cluster_aborts(dev, NULL);
		/* a fenced host's write must not land after the other node answers */
		have = wait_var_event_timeout(&pc->aborting,
					      !atomic_read(&pc->aborting),
					      KT_PRC_ACK_AGAIN);
	}
	/* under res.lock: cluster mode going off takes it first */
	mutex_lock(&res->lock);
	if (res->clustered == pc && have) {
		WRITE_ONCE(pc->ack_asked, false);
		kt_prc_ops(dev)->ack(kt_prc_lu(dev), version, from);
	} else if (res->clustered == pc) {
		queue_delayed_work(system_long_wq, &pc->ack, KT_PRC_ACK_AGAIN);
	}
	mutex_unlock(&res->lock);
}

/* The module: another node waits for this one (kt_prc_ack_work()). */
void kt_pr_cluster_ack_asked(struct kt_dev *dev)
{
	struct kt_pr_cluster *pc = READ_ONCE(dev->state->res.clustered);

	if (!pc)
		return;
	WRITE_ONCE(pc->ack_asked, true);
	mod_delayed_work(system_long_wq, &pc->ack, 0);
}

/* Under res.lock: the version this node's copy is, 0 when not clustered */
u64 kt_pr_cluster_version(struct kt_dev *dev)
{
	struct kt_pr_cluster *pc = dev->state->res.clustered;

	lockdep_assert_held(&dev->state->res.lock);
	return pc && pc->loaded ? pc->version : 0;
}

/*
 * Not under res.lock, after a PR OUT published @version that removed
 * registrations: wait until every other node has applied it (refuses the
 * removed nexuses' commands, and has ended those a PREEMPT AND ABORT
 * aborted). 0, or -errno after saying why: the change holds, but the
 * command must not say it took effect everywhere.
 */
int kt_pr_cluster_settle(struct kt_dev *dev, u64 version)
{
	int ret = kt_prc_ops(dev)->ack_wait(kt_prc_lu(dev), version);

	if (ret)
		pr_warn_ratelimited("%s: persistent reservations: not every node applied version %llu in time: error %d\n",
				    config_item_name(&dev->group.cg_item),
				    version, ret);
	return ret;
}

/*
 * kt_cmd_execute(): @cmd came while its LU's reservations were loading
 * (KT_CMD_LOADING). It waits, out of the receive path and using no worker,
 * until the refresh work has tried the load; then kt_cluster_defer() runs
 * its checks and itself.
 */
void kt_pr_cluster_wait(struct kt_cmd *cmd)
{
	struct kt_pr_cluster *pc = READ_ONCE(cmd->dev->state->res.clustered);

	llist_add(&cmd->loading_node, &pc->loading);
	/* running already, it is queued again: a command added late waits */
	queue_work(system_long_wq, &pc->refresh);
}

/* The module says another node is about to change the reservations. */
void kt_pr_cluster_stale(struct kt_dev *dev)
{
	struct kt_pr_cluster *pc = READ_ONCE(dev->state->res.clustered);

	set_bit(KT_RES_STALE_BIT, &dev->state->res.active);
	/* the unit attentions and aborts should not wait for a command */
	if (pc)
		queue_work(system_long_wq, &pc->refresh);
}

/*
 * The lockspace is lost (its recovery does not end): stop serving the LU
 * rather than decide on a copy the other nodes may have moved past.
 */
void kt_pr_cluster_lost(struct kt_dev *dev)
{
	set_bit(KT_RES_LOST_BIT, &dev->state->res.active);
}

/* ... and found again: load the state before the next command runs. */
void kt_pr_cluster_found(struct kt_dev *dev)
{
	struct kt_pr_cluster *pc = READ_ONCE(dev->state->res.clustered);

	/* stale first: no command may see neither bit before the load */
	set_bit(KT_RES_STALE_BIT, &dev->state->res.active);
	clear_bit(KT_RES_LOST_BIT, &dev->state->res.active);
	if (pc)
		queue_work(system_long_wq, &pc->refresh);
}

/* Cluster mode goes on (no LUN exports the device): load before use. */
int kt_pr_cluster_attach(struct kt_dev *dev)
{
	struct kt_pr_cluster *pc = kvzalloc(sizeof(*pc), GFP_KERNEL);

	if (!pc)
		return -ENOMEM;
	pc->dev = dev;
	INIT_WORK(&pc->refresh, kt_prc_refresh_work);
	INIT_DELAYED_WORK(&pc->ack, kt_prc_ack_work);
	atomic_set(&pc->aborting, 0);
	/* a writer's request may have come while joining, unheard: answer it */
	pc->ack_asked = true;
	init_llist_head(&pc->loading);
	mutex_lock(&dev->state->res.lock);
	WRITE_ONCE(dev->state->res.clustered, pc);
	set_bit(KT_RES_STALE_BIT, &dev->state->res.active);
	mutex_unlock(&dev->state->res.lock);
	queue_delayed_work(system_long_wq, &pc->ack, 0);
	return 0;
}

/*
 * Cluster mode goes off: from now on the copy is this node's state. The
 * module may still call kt_cluster_state_stale() until it has left, so
 * kt_pr_cluster_free() comes after that.
 */
struct kt_pr_cluster *kt_pr_cluster_detach(struct kt_dev *dev)
{
	struct kt_pr_cluster *pc;

	mutex_lock(&dev->state->res.lock);
	pc = dev->state->res.clustered;
	WRITE_ONCE(dev->state->res.clustered, NULL);
	mutex_unlock(&dev->state->res.lock);
	return pc;
}

void kt_pr_cluster_free(struct kt_dev *dev, struct kt_pr_cluster *pc)
{
	/* no LUN exports the device: no command waits in @pc */
	if (pc) {
		cancel_work_sync(&pc->refresh);
		cancel_delayed_work_sync(&pc->ack);
		/* aborts end with their commands, which have ended or end now */
		wait_var_event(&pc->aborting, !atomic_read(&pc->aborting));
	}
	/* set by the module, which has left, even without @pc */
	clear_bit(KT_RES_STALE_BIT, &dev->state->res.active);
	clear_bit(KT_RES_LOST_BIT, &dev->state->res.active);
	kvfree(pc);
}
