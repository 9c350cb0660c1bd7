// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: persistent reservations (SPC-4 5.13). Each device keeps its
 * registrations and its reservation in dev->state->res, under dev->state->res.lock:
 *
 *   PERSISTENT RESERVE OUT   REGISTER, REGISTER AND IGNORE EXISTING KEY
 *                            (SPEC_I_PT, ALL_TG_PT, APTPL), RESERVE,
 *                            RELEASE, CLEAR, PREEMPT, PREEMPT AND ABORT,
 *                            REGISTER AND MOVE
 *   PERSISTENT RESERVE IN    built by proto/pr.c over a copy of the state
 *   kt_res_check()           every command to a reserved device
 *
 * An I_T nexus is the initiator port (iSCSI name and ISID) and the relative
 * target port of the LUN the command came through. PREEMPT AND ABORT is a
 * PREEMPT that then has tmr.c abort the preempted nexuses' commands on the
 * device, and completes once they have ended.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <ktarget/fabric.h>
#include <ktarget/proto/cdb.h>
#include <ktarget/proto/pr.h>
#include <ktarget/proto/spc.h>

#include "core.h"
#include "pr.h"

#define KT_PR_PARAM_MAX		(64 * 1024)	/* longest PR OUT list taken */

/* SPC-4 annex D: unit attentions of reservations */

/* A unit attention for the I_T nexus (or nexuses) of @reg. */
static struct kt_pr_nexus kt_pr_reg_nexus(const struct kt_pr_reg *reg)
{
	return (struct kt_pr_nexus){
		.key = kt_nexus_key(reg->tid.name,
				    reg->tid.has_isid ? reg->tid.isid : NULL),
		.port = reg->all_tg_pt ? 0 : reg->rtpi,
	};
}

static void kt_pr_ua(struct kt_dev *dev, const struct kt_pr_reg *reg,
		     u16 asc_ascq)
{
	struct kt_pr_nexus n = kt_pr_reg_nexus(reg);

	kt_ua_raise_nexus(dev, asc_ascq, KT_UA_ONLY, n.key, n.port);
	/* cluster mode: the nexus may be on another node */
	kt_pr_cluster_event(dev, n.key, n.port, asc_ascq);
}

/*
 * The registrations a PREEMPT AND ABORT removes: their nexuses lose their
 * commands once the reservation state has changed.
 */
struct kt_pr_gone {
	struct kt_pr_nexus	*nexus;		/* NULL: a plain PREEMPT */
	unsigned int		nr;
	struct kt_pr_abort	*abort;		/* ends their commands */
	sense_reason_t		answer;		/* once they have ended */
};

/*
 * Does this PR OUT take a registration away (from a nexus that may have
 * commands on another node of a cluster)?
 */
static bool kt_pr_out_removes(const struct kt_pr_out *out)
{
	switch (out->sa) {
	case KT_PRO_REGISTER:
	case KT_PRO_REGISTER_AND_IGNORE:
		return !out->sa_key;
	case KT_PRO_CLEAR:
	case KT_PRO_PREEMPT:
	case KT_PRO_PREEMPT_AND_ABORT:
		return true;
	case KT_PRO_REGISTER_AND_MOVE:
		return out->unreg;
	default:
		return false;
	}
}

/* @r is preempted: its nexuses hear of it, and are aborted if asked. */
static void kt_pr_preempted(struct kt_dev *dev, struct kt_pr_reg *r,
			    struct kt_pr_gone *gone)
{
	kt_pr_ua(dev, r, KT_ASC_REGISTRATIONS_PREEMPTED);
	if (!gone->nexus)
		return;
	gone->nexus[gone->nr] = kt_pr_reg_nexus(r);
	kt_pr_cluster_event(dev, gone->nexus[gone->nr].key,
			    gone->nexus[gone->nr].port, KT_PR_CLUSTER_ABORT);
	gone->nr++;
}

void kt_res_dev_init(struct kt_dev *dev)
{
	struct kt_res *res = &dev->state->res;

	mutex_init(&res->lock);
	INIT_LIST_HEAD(&res->regs);
	INIT_LIST_HEAD(&res->spc2_node);
}

void kt_res_dev_release(struct kt_dev *dev)
{
	struct kt_pr_reg *reg, *tmp;

	kt_reserve_dev_release(dev);
	mutex_lock(&dev->state->res.lock);
	list_for_each_entry_safe(reg, tmp, &dev->state->res.regs, node) {
		list_del(&reg->node);
		kfree(reg);
	}
	dev->state->res.nr_regs = 0;
	dev->state->res.holder = NULL;
	dev->state->res.type = KT_PR_TYPE_NONE;
	mutex_unlock(&dev->state->res.lock);
}

/* Publish what kt_res_check() must look at; under res->lock. */
void kt_res_update(struct kt_dev *dev)
{
	struct kt_res *res = &dev->state->res;

	lockdep_assert_held(&res->lock);
	assign_bit(KT_RES_PR_BIT, &res->active, res->type != KT_PR_TYPE_NONE);
	assign_bit(KT_RES_SPC2_BIT, &res->active, kt_reserve_held(res));
}

/* The I_T nexus @cmd came through. */
static void kt_pr_nexus(struct kt_cmd *cmd, struct kt_pr_tid *tid, u16 *rtpi)
{
	*tid = cmd->sess->tid;
	*rtpi = cmd->lun ? cmd->lun->rtpi : 0;
}

static struct kt_pr_reg *kt_pr_find(struct kt_dev *dev,
				    const struct kt_pr_tid *tid, u16 rtpi)
{
	struct kt_pr_reg *reg;

	list_for_each_entry(reg, &dev->state->res.regs, node)
		if ((reg->all_tg_pt || reg->rtpi == rtpi) &&
		    kt_pr_tid_match(&reg->tid, tid))
			return reg;
	return NULL;
}

/* Exactly this registration: same port, same ISID (or both without). */
static struct kt_pr_reg *kt_pr_find_exact(struct kt_dev *dev,
					  const struct kt_pr_tid *tid,
					  u16 rtpi)
{
	struct kt_pr_reg *reg;

	list_for_each_entry(reg, &dev->state->res.regs, node)
		if (reg->rtpi == rtpi && reg->tid.has_isid == tid->has_isid &&
		    kt_pr_tid_match(&reg->tid, tid))
			return reg;
	return NULL;
}

bool kt_pr_reg_holds(const struct kt_dev *dev, const struct kt_pr_reg *reg)
{
	if (!reg || dev->state->res.type == KT_PR_TYPE_NONE)
		return false;
	if (kt_pr_type_all_reg(dev->state->res.type))
		return true;
	return dev->state->res.holder == reg;
}

static struct kt_pr_reg *kt_pr_reg_alloc(const struct kt_pr_tid *tid,
					 u16 rtpi, u64 key, bool all_tg_pt)
{
	struct kt_pr_reg *reg = kzalloc(sizeof(*reg), GFP_KERNEL);

	if (!reg)
		return NULL;
	reg->tid = *tid;
	reg->rtpi = rtpi;
	reg->key = key;
	reg->all_tg_pt = all_tg_pt;
	return reg;
}

static void kt_pr_add(struct kt_dev *dev, struct kt_pr_reg *reg)
{
	list_add_tail(&reg->node, &dev->state->res.regs);
	dev->state->res.nr_regs++;
}

static void kt_pr_set_resv(struct kt_dev *dev, struct kt_pr_reg *holder,
			   u8 type)
{
	dev->state->res.type = type;
	/* All Registrants: every registration holds it */
	dev->state->res.holder = kt_pr_type_all_reg(type) ? NULL : holder;
	kt_res_update(dev);
}

static void kt_pr_clear_resv(struct kt_dev *dev)
{
	dev->state->res.type = KT_PR_TYPE_NONE;
	dev->state->res.holder = NULL;
	kt_res_update(dev);
}

/* Every registration but @skip hears @asc_ascq. */
static void kt_pr_ua_others(struct kt_dev *dev, const struct kt_pr_reg *skip,
			    u16 asc_ascq)
{
	struct kt_pr_reg *reg;

	list_for_each_entry(reg, &dev->state->res.regs, node)
		if (reg != skip)
			kt_pr_ua(dev, reg, asc_ascq);
}

/*
 * Remove @reg (SPC-4 5.13.11.3): its reservation goes with it, unless of an
 * All Registrants type with registrants left. Registrants Only
 * reservations released so tell the others.
 */
static void kt_pr_unregister(struct kt_dev *dev, struct kt_pr_reg *reg)
{
	struct kt_res *res = &dev->state->res;
	u8 type = res->type;

	list_del(&reg->node);
	res->nr_regs--;
	if (type != KT_PR_TYPE_NONE) {
		if (kt_pr_type_all_reg(type)) {
			if (!res->nr_regs)
				kt_pr_clear_resv(dev);
		} else if (res->holder == reg) {
			kt_pr_clear_resv(dev);
			if (type == KT_PR_TYPE_WE_RO || type == KT_PR_TYPE_EA_RO)
				kt_pr_ua_others(dev, NULL, KT_ASC_RESERVATIONS_RELEASED);
		}
	}
	kfree(reg);
}

/* The TransportIDs of a SPEC_I_PT REGISTER, as new registrations in @new */
static sense_reason_t kt_pr_spec_i_pt(struct kt_dev *dev, struct kt_cmd *cmd,
				      const struct kt_pr_out *out,
				      const u8 *param,
				      const struct kt_pr_tid *me, u16 rtpi,
				      struct list_head *new, u32 *nr_new)
{
	u32 off = out->tid_off, end = out->tid_off + out->tid_len, used;
	struct kt_pr_reg *reg, *r;
	struct kt_pr_tid tid;
	sense_reason_t ret;
	bool dup;

	while (off < end) {
		ret = kt_pr_tid_parse(param + off, end - off, off, &used, &tid,
				      &cmd->sense_field);
		if (ret)
			return ret;
		/* the issuer is registered by the command itself */
		dup = tid.has_isid && me->has_isid &&
		      kt_pr_tid_match(&tid, me);
		list_for_each_entry(r, new, node)
			if (r->tid.has_isid == tid.has_isid &&
			    kt_pr_tid_match(&r->tid, &tid))
				dup = true;
		if (!dup && kt_pr_find_exact(dev, &tid, rtpi)) {
			/* SPC-4 6.16.3: a registered I_T nexus */
			cmd->sense_field = KT_FIELD_PARAM(off);
			return KT_SENSE_INVALID_PARAM_FIELD;
		}
		if (!dup) {
			if (dev->state->res.nr_regs + *nr_new + 1 >= kt_pr_max_regs(dev))
				return KT_SENSE_INSUFFICIENT_REG_RESOURCES;
			reg = kt_pr_reg_alloc(&tid, rtpi, out->sa_key,
					      out->all_tg_pt);
			if (!reg)
				return KT_SENSE_OUT_OF_RESOURCES;
			list_add_tail(&reg->node, new);
			(*nr_new)++;
		}
		off += used;
	}
	return KT_SENSE_NONE;
}

/* SPC-4 5.13.7: REGISTER and REGISTER AND IGNORE EXISTING KEY */
static sense_reason_t kt_pr_register(struct kt_dev *dev, struct kt_cmd *cmd,
				     const struct kt_pr_out *out,
				     const u8 *param, struct kt_pr_reg *reg,
				     const struct kt_pr_tid *me, u16 rtpi)
{
	bool ignore = out->sa == KT_PRO_REGISTER_AND_IGNORE;
	struct kt_pr_reg *n, *tmp;
	LIST_HEAD(new);
	sense_reason_t ret;
	u32 nr_new = 0;

	if (reg) {
		if (!ignore && out->res_key != reg->key)
			return KT_SENSE_RESERVATION_CONFLICT;
		if (out->spec_i_pt) {
			cmd->sense_field = KT_FIELD_PARAM_BIT(20, 3);
			return KT_SENSE_INVALID_PARAM_FIELD;
		}
		if (out->sa_key)
			reg->key = out->sa_key;
		else
			kt_pr_unregister(dev, reg);
		goto done;
	}
	if (!ignore && out->res_key)
		return KT_SENSE_RESERVATION_CONFLICT;
	if (!out->sa_key)
		return KT_SENSE_NONE;		/* nothing to do */
	if (dev->state->res.nr_regs >= kt_pr_max_regs(dev))
		return KT_SENSE_INSUFFICIENT_REG_RESOURCES;
	if (out->spec_i_pt) {
		ret = kt_pr_spec_i_pt(dev, cmd, out, param, me, rtpi, &new,
				      &nr_new);
		if (ret)
			goto fail;
	}
	reg = kt_pr_reg_alloc(me, rtpi, out->sa_key, out->all_tg_pt);
	if (!reg) {
		ret = KT_SENSE_OUT_OF_RESOURCES;
		goto fail;
	}
	kt_pr_add(dev, reg);
	list_for_each_entry_safe(n, tmp, &new, node) {
		list_del(&n->node);
		kt_pr_add(dev, n);
	}
done:
	dev->state->res.generation++;
	dev->state->res.aptpl = out->aptpl;
	return KT_SENSE_NONE;
fail:
	list_for_each_entry_safe(n, tmp, &new, node) {
		list_del(&n->node);
		kfree(n);
	}
	return ret;
}

/* SPC-4 5.13.9: RESERVE */
static sense_reason_t kt_pr_reserve(struct kt_dev *dev,
				    const struct kt_pr_out *out,
				    struct kt_pr_reg *reg)
{
	if (!reg || out->res_key != reg->key)
		return KT_SENSE_RESERVATION_CONFLICT;
	if (dev->state->res.type != KT_PR_TYPE_NONE) {
		/* held by this nexus, same scope and type: nothing to do */
		if (kt_pr_reg_holds(dev, reg) && dev->state->res.type == out->type)
			return KT_SENSE_NONE;
		return KT_SENSE_RESERVATION_CONFLICT;
	}
	kt_pr_set_resv(dev, reg, out->type);
	return KT_SENSE_NONE;
}

/* SPC-4 5.13.11.2: RELEASE */
static sense_reason_t kt_pr_release(struct kt_dev *dev,
				    const struct kt_pr_out *out,
				    struct kt_pr_reg *reg)
{
	u8 type = dev->state->res.type;

	if (!reg)
		return KT_SENSE_RESERVATION_CONFLICT;
	if (type == KT_PR_TYPE_NONE || !kt_pr_reg_holds(dev, reg))
		return KT_SENSE_NONE;
	if (out->res_key != reg->key)
		return KT_SENSE_RESERVATION_CONFLICT;
	if (out->type != type)
		return KT_SENSE_INVALID_RELEASE_OF_PR;
	kt_pr_clear_resv(dev);
	if (kt_pr_type_reg_only(type))
		kt_pr_ua_others(dev, reg, KT_ASC_RESERVATIONS_RELEASED);
	return KT_SENSE_NONE;
}

/* SPC-4 5.13.11.2.6: CLEAR */
static sense_reason_t kt_pr_clear(struct kt_dev *dev,
				  const struct kt_pr_out *out,
				  struct kt_pr_reg *reg)
{
	struct kt_pr_reg *r, *tmp;

	if (!reg || out->res_key != reg->key)
		return KT_SENSE_RESERVATION_CONFLICT;
	kt_pr_ua_others(dev, reg, KT_ASC_RESERVATIONS_PREEMPTED);
	kt_pr_clear_resv(dev);
	list_for_each_entry_safe(r, tmp, &dev->state->res.regs, node) {
		list_del(&r->node);
		kfree(r);
	}
	dev->state->res.nr_regs = 0;
	dev->state->res.generation++;
	return KT_SENSE_NONE;
}

/* Remove the registrations with @key, but not @keep; how many went. */
static u32 kt_pr_remove_key(struct kt_dev *dev, u64 key,
			    struct kt_pr_reg *keep, struct kt_pr_gone *gone)
{
	struct kt_pr_reg *r, *tmp;
	u32 n = 0;

	list_for_each_entry_safe(r, tmp, &dev->state->res.regs, node) {
		if (r == keep || r->key != key)
			continue;
		kt_pr_preempted(dev, r, gone);
		list_del(&r->node);
		dev->state->res.nr_regs--;
		if (dev->state->res.holder == r)
			dev->state->res.holder = NULL;
		kfree(r);
		n++;
	}
	return n;
}

/*
 * SPC-4 5.13.11.4: PREEMPT, and the reservation part of PREEMPT AND ABORT
 * (@gone collects the nexuses whose commands are then aborted).
 */
static sense_reason_t kt_pr_preempt(struct kt_dev *dev,
				    const struct kt_pr_out *out,
				    struct kt_pr_reg *reg,
				    struct kt_sense_field *field,
				    struct kt_pr_gone *gone)
{
	struct kt_res *res = &dev->state->res;
	struct kt_pr_reg *r, *tmp;
	u8 old_type = res->type;
	bool all_reg = old_type != KT_PR_TYPE_NONE &&
		       kt_pr_type_all_reg(old_type);
	bool holder = !all_reg && old_type != KT_PR_TYPE_NONE &&
		      res->holder && res->holder->key == out->sa_key;

	if (!reg || out->res_key != reg->key)
		return KT_SENSE_RESERVATION_CONFLICT;

	/*
	 * TYPE and SCOPE first where the PREEMPT would reserve, or names no
	 * key (an error either way): the CDB's fault before the list's
	 */
	if ((!out->sa_key || holder) && kt_pr_out_check_type(out, field))
		return KT_SENSE_INVALID_CDB_FIELD;

	if (all_reg && !out->sa_key) {
		/* every other registration goes, the preempter reserves */
		list_for_each_entry_safe(r, tmp, &res->regs, node) {
			if (r == reg)
				continue;
			kt_pr_preempted(dev, r, gone);
			list_del(&r->node);
			res->nr_regs--;
			kfree(r);
		}
		kt_pr_set_resv(dev, reg, out->type);
		goto done;
	}
	if (!out->sa_key) {
		*field = KT_FIELD_PARAM(8);
		return KT_SENSE_INVALID_PARAM_FIELD;
	}
	if (holder) {
		/* the holder is preempted: the reservation moves */
		kt_pr_remove_key(dev, out->sa_key, reg, gone);
		kt_pr_set_resv(dev, reg, out->type);
		if (old_type != out->type)
			kt_pr_ua_others(dev, reg, KT_ASC_RESERVATIONS_RELEASED);
		goto done;
	}
	/* only registrations go; the reservation stays, TYPE and SCOPE unused */
	if (!kt_pr_remove_key(dev, out->sa_key, reg, gone))
		return KT_SENSE_RESERVATION_CONFLICT;
	if (all_reg && !res->nr_regs)
		kt_pr_clear_resv(dev);
done:
	res->generation++;
	return KT_SENSE_NONE;
}

/* SPC-4 5.13.8: REGISTER AND MOVE */
static sense_reason_t kt_pr_move(struct kt_dev *dev, struct kt_cmd *cmd,
				 const struct kt_pr_out *out, const u8 *param,
				 struct kt_pr_reg *reg,
				 const struct kt_pr_tid *me, u16 rtpi)
{
	struct kt_res *res = &dev->state->res;
	struct kt_pr_reg *dst;
	struct kt_pr_tid tid;
	sense_reason_t ret;

	if (!reg || out->res_key != reg->key)
		return KT_SENSE_RESERVATION_CONFLICT;
	if (!out->sa_key) {
		cmd->sense_field = KT_FIELD_PARAM(8);
		return KT_SENSE_INVALID_PARAM_FIELD;
	}
	/* only the holder of a reservation of one nexus moves it */
	if (res->type == KT_PR_TYPE_NONE || kt_pr_type_all_reg(res->type) ||
	    res->holder != reg)
		return KT_SENSE_RESERVATION_CONFLICT;
	ret = kt_pr_move_tid(out, param, &tid, &cmd->sense_field);
	if (ret)
		return ret;
	if (!out->rtpi) {
		cmd->sense_field = KT_FIELD_PARAM(18);
		return KT_SENSE_INVALID_PARAM_FIELD;
	}
	if (out->rtpi == rtpi && kt_pr_tid_match(&tid, me)) {
		/* SPC-4 6.16.4: not to the nexus it came through */
		cmd->sense_field = KT_FIELD_PARAM(out->tid_off);
		return KT_SENSE_INVALID_PARAM_FIELD;
	}
	dst = kt_pr_find_exact(dev, &tid, out->rtpi);
	if (dst) {
		dst->key = out->sa_key;
	} else {
		if (res->nr_regs >= kt_pr_max_regs(dev))
			return KT_SENSE_INSUFFICIENT_REG_RESOURCES;
		dst = kt_pr_reg_alloc(&tid, out->rtpi, out->sa_key, false);
		if (!dst)
			return KT_SENSE_OUT_OF_RESOURCES;
		kt_pr_add(dev, dst);
	}
	kt_pr_set_resv(dev, dst, res->type);
	if (out->unreg)
		kt_pr_unregister(dev, reg);
	res->generation++;
	res->aptpl = out->aptpl;
	return KT_SENSE_NONE;
}

static void kt_pr_out_exec(struct kt_cmd *cmd)
{
	struct kt_dev *dev = cmd->dev;
	struct kt_pr_gone gone = { };
	struct kt_pr_out out;
	struct kt_pr_tid me;
	struct kt_pr_reg *reg;
	sense_reason_t ret;
	bool was_aptpl;
	u64 settle = 0;
	u32 gen;
	u16 rtpi;
	u8 *param = NULL;

	/* cluster mode: it may wait for the other nodes */
	if (kt_cluster_defer(cmd))
		return;

	if (cmd->data_length) {
		param = kmalloc(cmd->data_length, GFP_KERNEL);
		if (!param) {
			kt_cmd_complete(cmd, KT_SENSE_OUT_OF_RESOURCES);
			return;
		}
		sg_copy_to_buffer(cmd->sgl, cmd->sg_nents, param,
				  cmd->data_length);
	}
	ret = kt_pr_out_parse(cmd->cdb, param, cmd->data_length, &out,
			      &cmd->sense_field);
	if (ret)
		goto out;
	kt_pr_nexus(cmd, &me, &rtpi);

	mutex_lock(&dev->state->res.lock);
	if (!dev->state->res.aptpl_loaded)
		kt_pr_aptpl_load(dev);
	/* cluster mode: the current state, held until it is published */
	if (kt_pr_cluster_begin(dev, true)) {
		cmd->sense_asc_ascq = KT_ASC_NOT_READY_UNAVAILABLE;
		ret = KT_SENSE_NOT_READY;
		goto unlock;
	}
	/* SPC-4 5.13.3: not while an SPC-2 RESERVE holds the LU */
	if (kt_reserve_held(&dev->state->res)) {
		ret = KT_SENSE_RESERVATION_CONFLICT;
		goto publish;
	}
	was_aptpl = dev->state->res.aptpl;
	gen = dev->state->res.generation;
	reg = kt_pr_find(dev, &me, rtpi);
	switch (out.sa) {
	case KT_PRO_REGISTER:
	case KT_PRO_REGISTER_AND_IGNORE:
		ret = kt_pr_register(dev, cmd, &out, param, reg, &me, rtpi);
		break;
	case KT_PRO_RESERVE:
		ret = kt_pr_reserve(dev, &out, reg);
		break;
	case KT_PRO_RELEASE:
		ret = kt_pr_release(dev, &out, reg);
		break;
	case KT_PRO_CLEAR:
		ret = kt_pr_clear(dev, &out, reg);
		break;
	case KT_PRO_PREEMPT_AND_ABORT:
		gone.nexus = kmalloc_array(max_t(u32, dev->state->res.nr_regs, 1),
					   sizeof(*gone.nexus), GFP_KERNEL);
		gone.abort = kt_tmr_preempt_alloc(cmd);
		if (!gone.nexus || !gone.abort) {
			ret = KT_SENSE_OUT_OF_RESOURCES;
			break;
		}
		fallthrough;
	case KT_PRO_PREEMPT:
		ret = kt_pr_preempt(dev, &out, reg, &cmd->sense_field, &gone);
		break;
	case KT_PRO_REGISTER_AND_MOVE:
		ret = kt_pr_move(dev, cmd, &out, param, reg, &me, rtpi);
		break;
	default:
		cmd->sense_field = KT_FIELD_CDB_BIT(1, 4);
		ret = KT_SENSE_INVALID_CDB_FIELD;
		break;
	}
	/* from now on the live state wins over any APTPL file */
	if (!ret)
		dev->state->res.aptpl_loaded = true;
	if (!ret && (dev->state->res.aptpl || was_aptpl) &&
	    (gen != dev->state->res.generation || out.sa == KT_PRO_RESERVE ||
	     out.sa == KT_PRO_RELEASE))
		kt_pr_aptpl_save(dev);
publish:
	if (kt_pr_cluster_end(dev, !ret) && !ret) {
		/* the other nodes never saw it: as if it had not run */
		cmd->sense_asc_ascq = KT_ASC_NOT_READY_UNAVAILABLE;
		ret = KT_SENSE_NOT_READY;
	} else if (!ret && gen != dev->state->res.generation &&
		   kt_pr_out_removes(&out)) {
		settle = kt_pr_cluster_version(dev);
	}
unlock:
	mutex_unlock(&dev->state->res.lock);
	kt_pr_cluster_aborts(dev, cmd);
	/*
	 * Cluster mode: a nexus this removed may still have commands on
	 * another node (fencing trusts that none lands once this answers).
	 * The change holds either way; the answer says whether every node
	 * applied it.
	 */
	if (settle && kt_pr_cluster_settle(dev, settle)) {
		cmd->sense_asc_ascq = KT_ASC_NOT_READY_UNAVAILABLE;
		if (!gone.abort)
			ret = KT_SENSE_NOT_READY;
		else
			gone.answer = KT_SENSE_NOT_READY;
	}
out:
	kfree(param);
	if (!ret && gone.abort) {
		/* SPC-4 5.13.11.5: GOOD once their commands have ended */
		kt_tmr_preempt_abort(gone.abort, gone.nexus, gone.nr,
				     gone.answer);
	} else {
		kfree(gone.abort);
		kt_cmd_complete(cmd, ret);
	}
	kfree(gone.nexus);
}

/* A copy of the state for the PR IN builders; under res->lock. */
static struct kt_pr_reg_info *kt_pr_snapshot(struct kt_dev *dev,
					     struct kt_pr_info *info)
{
	struct kt_pr_reg_info *regs;
	struct kt_pr_reg *reg;
	u32 i = 0;

	regs = kvcalloc(max_t(u32, dev->state->res.nr_regs, 1), sizeof(*regs),
			GFP_KERNEL);
	if (!regs)
		return NULL;
	list_for_each_entry(reg, &dev->state->res.regs, node) {
		regs[i].key = reg->key;
		regs[i].rtpi = reg->rtpi;
		regs[i].all_tg_pt = reg->all_tg_pt;
		regs[i].holder = kt_pr_reg_holds(dev, reg);
		regs[i].tid = reg->tid;
		i++;
	}
	info->generation = dev->state->res.generation;
	info->type = dev->state->res.type;
	info->res_key = dev->state->res.holder ? dev->state->res.holder->key : 0;
	info->aptpl = dev->state->res.aptpl;
	info->regs = regs;
	info->nr_regs = i;
	return regs;
}

static void kt_pr_in_exec(struct kt_cmd *cmd)
{
	struct kt_dev *dev = cmd->dev;
	struct kt_pr_reg_info *regs;
	struct kt_pr_info info = { 0 };
	sense_reason_t ret;
	u32 len = cmd->data_length, data_len = 0;
	u8 *buf;

	if (kt_cluster_defer(cmd))
		return;
	mutex_lock(&dev->state->res.lock);
	if (!dev->state->res.aptpl_loaded)
		kt_pr_aptpl_load(dev);
	if (kt_pr_cluster_begin(dev, false)) {
		mutex_unlock(&dev->state->res.lock);
		cmd->sense_asc_ascq = KT_ASC_NOT_READY_UNAVAILABLE;
		kt_cmd_complete(cmd, KT_SENSE_NOT_READY);
		return;
	}
	if (kt_reserve_held(&dev->state->res)) {
		mutex_unlock(&dev->state->res.lock);
		kt_cmd_complete(cmd, KT_SENSE_RESERVATION_CONFLICT);
		return;
	}
	regs = kt_pr_snapshot(dev, &info);
	mutex_unlock(&dev->state->res.lock);
	kt_pr_cluster_aborts(dev, cmd);
	if (!regs) {
		kt_cmd_complete(cmd, KT_SENSE_OUT_OF_RESOURCES);
		return;
	}

	buf = kzalloc(max_t(u32, len, 1), GFP_KERNEL);
	if (!buf) {
		kvfree(regs);
		kt_cmd_complete(cmd, KT_SENSE_OUT_OF_RESOURCES);
		return;
	}
	ret = kt_pr_in(&info, cmd->cdb, buf, len, &data_len,
		       &cmd->sense_field);
	kvfree(regs);
	if (ret)
		kt_cmd_complete(cmd, ret);
	else
		kt_cmd_complete_data(cmd, buf, min(len, data_len));
	kfree(buf);
}

sense_reason_t kt_pr_parse(struct kt_cmd *cmd, const struct kt_cdb *c,
			   u32 *needed, enum kt_data_dir *dir)
{
	if (!cmd->dev)
		return KT_SENSE_LUN_NOT_SUPPORTED;
	*needed = kt_spc_desc_alloc_len(c->desc, cmd->cdb);
	if (cmd->cdb[0] == PERSISTENT_RESERVE_IN) {
		*dir = KT_DATA_IN;
		cmd->execute = kt_pr_in_exec;
		return KT_SENSE_NONE;
	}
	if (*needed > KT_PR_PARAM_MAX) {
		cmd->sense_field = KT_FIELD_CDB(5);
		return KT_SENSE_PARAM_LIST_LENGTH;
	}
	if (*needed)
		*dir = KT_DATA_OUT;
	cmd->execute = kt_pr_out_exec;
	return KT_SENSE_NONE;
}

/* Under res.lock: may @cmd pass the LU's reservations? */
static sense_reason_t kt_res_check_locked(struct kt_cmd *cmd)
{
	struct kt_dev *dev = cmd->dev;
	struct kt_pr_reg *reg;
	struct kt_pr_tid me;
	sense_reason_t ret;
	u16 rtpi;

	/* cluster mode: another node changed them; decide on the new ones */
	ret = kt_pr_cluster_current(cmd);
	if (!ret && kt_reserve_held(&dev->state->res)) {
		ret = kt_reserve_check_locked(cmd);
	} else if (!ret && dev->state->res.type != KT_PR_TYPE_NONE) {
		kt_pr_nexus(cmd, &me, &rtpi);
		reg = kt_pr_find(dev, &me, rtpi);
		ret = kt_pr_check_access(cmd->desc, cmd->cdb,
					 dev->state->res.type, reg,
					 kt_pr_reg_holds(dev, reg));
	}
	return ret;
}

sense_reason_t kt_res_check(struct kt_cmd *cmd)
{
	struct kt_dev *dev = cmd->dev;
	sense_reason_t ret;

	/* cluster mode, the lockspace lost: decide on nothing, wait for nothing */
	if (unlikely(test_bit(KT_RES_LOST_BIT, &dev->state->res.active)))
		return kt_pr_cluster_lost_check(cmd);
	mutex_lock(&dev->state->res.lock);
	ret = kt_res_check_locked(cmd);
	mutex_unlock(&dev->state->res.lock);
	kt_pr_cluster_aborts(dev, cmd);
	return ret;
}

/*
 * kt_cmd_setup()'s kt_res_check(), which never waits in the receive path
 * for the DLM: in cluster mode res.lock may be held by a command waiting
 * for the other nodes, and a stale copy would load under it. Then @cmd is
 * checked once it can be, before it runs (KT_CMD_LOADING).
 */
sense_reason_t kt_res_check_arrival(struct kt_cmd *cmd)
{
	struct kt_res *res = &cmd->dev->state->res;
	sense_reason_t ret;

	if (!READ_ONCE(res->clustered))
		return kt_res_check(cmd);
	if (!mutex_trylock(&res->lock)) {
		set_bit(KT_CMD_LOADING, &cmd->flags);
		return KT_SENSE_NONE;
	}
	if (test_bit(KT_RES_STALE_BIT, &res->active) ||
	    test_bit(KT_RES_LOST_BIT, &res->active)) {
		mutex_unlock(&res->lock);
		return kt_pr_cluster_arrive(cmd);
	}
	ret = kt_res_check_locked(cmd);
	mutex_unlock(&res->lock);
	kt_pr_cluster_aborts(cmd->dev, cmd);
	return ret;
}
