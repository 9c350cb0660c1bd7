// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: asymmetric logical unit access (SPC-4 5.15). Each device
 * has target port groups (default_tg_pt_gp and those made in configfs);
 * each LUN linked to the device is a target port in one of them. This file
 * keeps the groups and their members, answers REPORT and SET TARGET PORT
 * GROUPS, and refuses what a port's access state does not allow. The wire
 * formats are in proto/alua.c, the configfs side in configfs/dev_alua.c.
 *
 * Locking: dev->state->alua.lock guards the group list, the members and every
 * write of a state. The command path reads a LUN's group under RCU; groups
 * are freed after a grace period, once their members have moved away.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include <ktarget/fabric.h>
#include <ktarget/proto/alua.h>

#include "alua.h"
#include "core.h"
#include "scsi/cmdsets.h"

/* LIO's defaults for a new group (rtslib saves and restores them). */
#define KT_ALUA_DEFAULT_NONOP_DELAY_MSECS	100

void kt_alua_gp_init(struct kt_alua_gp *gp, struct kt_dev *dev)
{
	gp->dev = dev;
	INIT_LIST_HEAD(&gp->node);
	INIT_LIST_HEAD(&gp->members);
	gp->state = KT_ALUA_AO;
	gp->status = KT_ALUA_STATUS_NONE;
	gp->access_type = KT_ALUA_TPGS_IMPLICIT | KT_ALUA_TPGS_EXPLICIT;
	gp->supported = KT_ALUA_SUP_T | KT_ALUA_SUP_O | KT_ALUA_SUP_U |
			KT_ALUA_SUP_S | KT_ALUA_SUP_AN | KT_ALUA_SUP_AO;
	gp->nonop_delay_msecs = KT_ALUA_DEFAULT_NONOP_DELAY_MSECS;
}

/* The device's groups: default_tg_pt_gp, id 0 (alua/ in configfs). */
void kt_alua_dev_init(struct kt_dev *dev)
{
	struct kt_alua *a = &dev->state->alua;

	mutex_init(&a->lock);
	INIT_LIST_HEAD(&a->groups);
	kt_alua_gp_init(&a->default_gp, dev);
	a->default_gp.id = 0;
	a->default_gp.id_valid = true;
	a->default_gp.is_default = true;
	list_add_tail(&a->default_gp.node, &a->groups);
}

static struct kt_lun *kt_alua_port_lun(struct kt_alua_port *port)
{
	return container_of(port, struct kt_lun, alua);
}

static bool kt_alua_state_gated(u8 state)
{
	return state != KT_ALUA_AO && state != KT_ALUA_ANO &&
	       state != KT_ALUA_LBA_DEPENDENT;
}

/* Recompute how many groups and ports refuse commands. */
static void kt_alua_recount(struct kt_dev *dev)
{
	struct kt_alua *a = &dev->state->alua;
	struct kt_alua_port *port;
	struct kt_alua_gp *gp;
	int n = 0;

	lockdep_assert_held(&a->lock);
	list_for_each_entry(gp, &a->groups, node) {
		if (kt_alua_state_gated(gp->state))
			n++;
		list_for_each_entry(port, &gp->members, node)
			n += port->offline;
	}
	WRITE_ONCE(a->nr_gated, n);
}

/* A group by its configfs name, among those with an id; NULL if none. */
struct kt_alua_gp *kt_alua_find_gp(struct kt_dev *dev, const char *name,
				   size_t len)
{
	struct kt_alua_gp *gp;

	lockdep_assert_held(&dev->state->alua.lock);
	list_for_each_entry(gp, &dev->state->alua.groups, node) {
		const char *n = config_item_name(&gp->group.cg_item);

		if (gp->id_valid && strlen(n) == len && !memcmp(n, name, len))
			return gp;
	}
	return NULL;
}

struct kt_alua_gp *kt_alua_find_id(struct kt_dev *dev, u16 id)
{
	struct kt_alua_gp *gp;

	list_for_each_entry(gp, &dev->state->alua.groups, node)
		if (gp->id_valid && gp->id == id)
			return gp;
	return NULL;
}

bool kt_alua_id_in_use(struct kt_dev *dev, u16 id,
		       const struct kt_alua_gp *except)
{
	struct kt_alua_gp *gp;

	lockdep_assert_held(&dev->state->alua.lock);
	gp = kt_alua_find_id(dev, id);
	return gp && gp != except;
}

void kt_alua_set_state(struct kt_alua_gp *gp, u8 state, u8 status)
{
	lockdep_assert_held(&gp->dev->state->alua.lock);
	WRITE_ONCE(gp->state, state);
	gp->status = status;
	kt_alua_recount(gp->dev);
}

void kt_alua_move_port(struct kt_lun *lun, struct kt_alua_gp *gp)
{
	lockdep_assert_held(&gp->dev->state->alua.lock);
	list_move_tail(&lun->alua.node, &gp->members);
	rcu_assign_pointer(lun->alua.gp, gp);
	kt_alua_cluster_changed(gp->dev);
}

void kt_alua_set_offline(struct kt_lun *lun, bool offline)
{
	lockdep_assert_held(&lun->dev->state->alua.lock);
	WRITE_ONCE(lun->alua.offline, offline);
	lun->alua.status = KT_ALUA_STATUS_IMPLICIT;
	kt_alua_recount(lun->dev);
}

/*
 * A group is being removed: its ports go back to default_tg_pt_gp, as in
 * LIO. The caller frees it after an RCU grace period.
 */
void kt_alua_gp_remove(struct kt_alua_gp *gp)
{
	struct kt_dev *dev = gp->dev;
	struct kt_alua_gp *def = &dev->state->alua.default_gp;
	struct kt_alua_port *port, *tmp;
	bool moved = false;

	mutex_lock(&dev->state->alua.lock);
	list_for_each_entry_safe(port, tmp, &gp->members, node) {
		kt_alua_move_port(kt_alua_port_lun(port), def);
		moved = true;
	}
	list_del_init(&gp->node);
	kt_alua_recount(dev);
	mutex_unlock(&dev->state->alua.lock);
	kt_alua_cluster_changed(dev);
	/* SPC-4 5.15.2.3: the ports moved may now be in another state */
	if (moved && gp->state != def->state)
		kt_ua_raise(dev, KT_ASC_ALUA_STATE_CHANGED, KT_UA_ALL, NULL);
}

/* A LUN was linked to its device: a new port, in default_tg_pt_gp. */
void kt_alua_lun_attach(struct kt_lun *lun)
{
	struct kt_alua *a = &lun->dev->state->alua;

	mutex_lock(&a->lock);
	lun->alua.offline = false;
	lun->alua.write_md = false;
	lun->alua.status = KT_ALUA_STATUS_NONE;
	list_add_tail(&lun->alua.node, &a->default_gp.members);
	rcu_assign_pointer(lun->alua.gp, &a->default_gp);
	mutex_unlock(&a->lock);
	kt_alua_cluster_changed(lun->dev);
}

/* The LUN is unlinked and idle: it leaves its group. */
void kt_alua_lun_detach(struct kt_lun *lun)
{
	struct kt_alua *a = &lun->dev->state->alua;

	mutex_lock(&a->lock);
	list_del_init(&lun->alua.node);
	RCU_INIT_POINTER(lun->alua.gp, NULL);
	lun->alua.offline = false;
	kt_alua_recount(lun->dev);
	mutex_unlock(&a->lock);
	kt_alua_cluster_changed(lun->dev);
}

/* The group the command came through; the device's default without a LUN. */
static const struct kt_alua_gp *kt_alua_cmd_gp(struct kt_cmd *cmd)
{
	const struct kt_alua_gp *gp = NULL;

	if (cmd->lun)
		gp = rcu_dereference(cmd->lun->alua.gp);
	return gp ? gp : &cmd->dev->state->alua.default_gp;
}

/* INQUIRY's TPGS and the VPD 83h target port group, for this port. */
void kt_alua_lu_info(struct kt_cmd *cmd, u8 *tpgs, u16 *tpg_id)
{
	const struct kt_alua_gp *gp;

	rcu_read_lock();
	gp = kt_alua_cmd_gp(cmd);
	*tpgs = READ_ONCE(gp->access_type);
	*tpg_id = READ_ONCE(gp->id);
	rcu_read_unlock();
}

sense_reason_t kt_alua_check_slow(struct kt_cmd *cmd)
{
	u8 state;
	u16 asc;

	if (!cmd->lun)
		return KT_SENSE_NONE;
	rcu_read_lock();
	state = READ_ONCE(kt_alua_cmd_gp(cmd)->state);
	if (READ_ONCE(cmd->lun->alua.offline))
		state = KT_ALUA_OFFLINE;
	rcu_read_unlock();

	asc = kt_alua_access_check(state, cmd->desc);
	if (!asc)
		return KT_SENSE_NONE;
	cmd->sense_asc_ascq = asc;
	return KT_SENSE_NOT_READY;
}

static bool kt_alua_has_port(const u16 *ports, unsigned int n, u16 rtpi)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ports[i] == rtpi)
			return true;
	return false;
}

/*
 * Snapshot the groups with an id into @d (room for @max) and their ports
 * into @ports (room for @max_ports); returns how many groups.
 */
static unsigned int kt_alua_snapshot(struct kt_dev *dev,
				     struct kt_alua_desc *d, unsigned int max,
				     u16 *ports, unsigned int max_ports)
{
	struct kt_alua_port *port;
	struct kt_alua_gp *gp;
	unsigned int n = 0, used = 0;
	u16 *p;

	list_for_each_entry(gp, &dev->state->alua.groups, node) {
		if (!gp->id_valid || n == max)
			continue;
		p = ports + used;
		d[n] = (struct kt_alua_desc){
			.id = gp->id, .state = gp->state,
			.status = gp->status, .supported = gp->supported,
			.preferred = gp->preferred, .ports = p,
		};
		list_for_each_entry(port, &gp->members, node) {
			u16 rtpi = kt_alua_port_lun(port)->rtpi;

			/* a port is listed once, however many LUNs it has */
			if (used == max_ports ||
			    d[n].nr_ports == KT_ALUA_MAX_PORTS ||
			    kt_alua_has_port(p, d[n].nr_ports, rtpi))
				continue;
			p[d[n].nr_ports++] = rtpi;
			used++;
		}
		n++;
	}
	return n;
}

/* REPORT TARGET PORT GROUPS (SPC-4 6.27) into @buf; @lu is not needed. */
sense_reason_t kt_alua_report(struct kt_cmd *cmd, const struct kt_lu_info *lu,
			      u8 *buf, u32 len, u32 *data_len)
{
	struct kt_alua *a = &cmd->dev->state->alua;
	struct kt_alua_port *port;
	struct kt_alua_desc *d;
	struct kt_alua_gp *gp;
	unsigned int nr_gp = 0, nr_ports = 0, n;
	sense_reason_t reason;
	u16 *ports;
	u8 its;

	mutex_lock(&a->lock);
	list_for_each_entry(gp, &a->groups, node) {
		nr_gp++;
		list_for_each_entry(port, &gp->members, node)
			nr_ports++;
	}
	/* cluster mode: room for the other nodes' groups after this one's */
	d = kcalloc(nr_gp + KT_ALUA_CLUSTER_GROUPS, sizeof(*d), GFP_KERNEL);
	ports = kcalloc(nr_ports + KT_ALUA_CLUSTER_GROUPS *
			KT_ALUA_CLUSTER_PORTS, sizeof(*ports), GFP_KERNEL);
	if (!d || !ports) {
		mutex_unlock(&a->lock);
		reason = KT_SENSE_OUT_OF_RESOURCES;
		goto out;
	}
	n = kt_alua_snapshot(cmd->dev, d, nr_gp, ports, nr_ports);
	rcu_read_lock();
	its = min_t(u32, kt_alua_cmd_gp(cmd)->implicit_trans_secs, 255);
	rcu_read_unlock();
	/* the build reads the snapshot only: it may run after the unlock */
	mutex_unlock(&a->lock);
	n += kt_alua_cluster_report(cmd->dev, d, n, ports + nr_ports);
	reason = kt_alua_rtpg(cmd->cdb, d, n, its, buf, len, data_len,
			      &cmd->sense_field);
out:
	kfree(ports);
	kfree(d);
	return reason;
}

/* Check every descriptor before any is applied: all or nothing. */
static sense_reason_t kt_alua_stpg_check(struct kt_cmd *cmd,
					 const struct kt_alua_stpg_desc *d,
					 unsigned int nr,
					 struct kt_alua_gp **gps)
{
	unsigned int i;
	u32 off;

	for (i = 0; i < nr; i++) {
		off = KT_ALUA_STPG_HDR_LEN + i * KT_ALUA_STPG_DESC_LEN;
		gps[i] = kt_alua_find_id(cmd->dev, d[i].id);
		if (!gps[i]) {
			pr_warn_ratelimited("%s: SET TARGET PORT GROUPS: no group %u\n",
					    config_item_name(&cmd->dev->group.cg_item),
					    d[i].id);
			cmd->sense_field = KT_FIELD_PARAM(off + 2);
			return KT_SENSE_INVALID_PARAM_FIELD;
		}
		if (!(gps[i]->access_type & KT_ALUA_TPGS_EXPLICIT) ||
		    !(gps[i]->supported & kt_alua_state_sup(d[i].state))) {
			pr_warn_ratelimited("%s: SET TARGET PORT GROUPS: group %u cannot be set to state %u\n",
					    config_item_name(&cmd->dev->group.cg_item),
					    d[i].id, d[i].state);
			cmd->sense_field = KT_FIELD_PARAM_BIT(off, 3);
			return KT_SENSE_INVALID_PARAM_FIELD;
		}
	}
	return KT_SENSE_NONE;
}

/* SET TARGET PORT GROUPS (SPC-4 6.36): the parameter list is in cmd->sgl. */
void kt_alua_stpg_execute(struct kt_cmd *cmd)
{
	struct kt_alua *a = &cmd->dev->state->alua;
	struct kt_alua_stpg_desc *d = NULL;
	struct kt_alua_gp **gps = NULL;
	u32 len = cmd->data_length;
	unsigned int nr = 0, max, i;
	sense_reason_t reason;
	bool changed = false;
	u8 *buf;

	/* cluster mode: it may wait for the other nodes */
	if (kt_cluster_defer(cmd))
		return;
	/* kt_exec_parse() refused lists longer than KT_STPG_MAX_LEN */
	max = len > KT_ALUA_STPG_HDR_LEN ?
	      (len - KT_ALUA_STPG_HDR_LEN) / KT_ALUA_STPG_DESC_LEN : 1;
	buf = kmalloc(max_t(u32, len, 1), GFP_KERNEL);
	d = kmalloc_array(max, sizeof(*d), GFP_KERNEL);
	gps = kmalloc_array(max, sizeof(*gps), GFP_KERNEL);
	if (!buf || !d || !gps) {
		reason = KT_SENSE_OUT_OF_RESOURCES;
		goto out;
	}
	sg_copy_to_buffer(cmd->sgl, cmd->sg_nents, buf, len);
	reason = kt_alua_stpg_parse(buf, len, d, max, &nr, &cmd->sense_field);
	if (reason)
		goto out;

	/* cluster mode: any node's groups, through the cluster's table */
	if (kt_alua_cluster_stpg(cmd, d, nr, &reason, &changed))
		goto ua;
	mutex_lock(&a->lock);
	reason = kt_alua_stpg_check(cmd, d, nr, gps);
	for (i = 0; !reason && i < nr; i++) {
		changed |= gps[i]->state != d[i].state;
		kt_alua_set_state(gps[i], d[i].state, KT_ALUA_STATUS_EXPLICIT);
	}
	mutex_unlock(&a->lock);
ua:
	/* SPC-4 5.15.2.3: every other I_T nexus hears of the change */
	if (changed)
		kt_ua_raise(cmd->dev, KT_ASC_ALUA_STATE_CHANGED, KT_UA_OTHERS, cmd->sess);
out:
	kfree(gps);
	kfree(d);
	kfree(buf);
	kt_cmd_complete(cmd, reason);
}
