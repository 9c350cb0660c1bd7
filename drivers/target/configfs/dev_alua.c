// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: ALUA in configfs, with LIO's names (rtslib-fb alua.py and
 * target.py read and write them):
 *
 *   core/HBA/DEV/alua/default_tg_pt_gp/	made with the device, id 0
 *   core/HBA/DEV/alua/NAME/			mkdir, then write tg_pt_gp_id
 *	alua_access_state, alua_access_status, alua_access_type, preferred,
 *	alua_write_metadata, nonop_delay_msecs, trans_delay_msecs,
 *	implicit_trans_secs, alua_support_*, tg_pt_gp_id, members
 *   WWN/tpgt_N/lun/lun_N/alua_tg_pt_gp		the LUN's group, by name
 *   WWN/tpgt_N/lun/lun_N/alua_tg_pt_{offline,status,write_md}
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <ktarget/fabric.h>
#include <ktarget/proto/alua.h>

#include "alua/alua.h"
#include "configfs.h"
#include "core.h"

/* LIO's upper limits (target_core_alua.h) */
#define KT_ALUA_MAX_NONOP_DELAY_MSECS	10000
#define KT_ALUA_MAX_TRANS_DELAY_MSECS	30000
#define KT_ALUA_MAX_IMPLICIT_TRANS_SECS	255

static const char * const kt_alua_type_names[] = {
	"None", "Implicit", "Explicit", "Implicit and Explicit",
};

static const char * const kt_alua_status_names[] = {
	"None", "Altered by Explicit STPG", "Altered by Implicit ALUA",
};

static const char *kt_alua_state_name(u8 state)
{
	switch (state) {
	case KT_ALUA_AO:		return "Active/Optimized";
	case KT_ALUA_ANO:		return "Active/NonOptimized";
	case KT_ALUA_STANDBY:		return "Standby";
	case KT_ALUA_UNAVAILABLE:	return "Unavailable";
	case KT_ALUA_LBA_DEPENDENT:	return "LBA Dependent";
	case KT_ALUA_OFFLINE:		return "Offline";
	case KT_ALUA_TRANSITIONING:	return "Transitioning";
	}
	return "Unknown";
}

static struct kt_alua_gp *to_kt_alua_gp(struct config_item *item)
{
	return container_of(to_config_group(item), struct kt_alua_gp, group);
}

static const char *kt_gp_name(struct kt_alua_gp *gp)
{
	return config_item_name(&gp->group.cg_item);
}

/* "N" in 0..@max (kt_cfs_u32()); logs a refusal. */
static int kt_alua_parse_u32(struct kt_alua_gp *gp, const char *attr,
			     const char *page, size_t count, u32 max, u32 *val)
{
	if (kt_cfs_u32(page, count, 0, max, val)) {
		pr_warn_ratelimited("alua/%s: %s: want a number 0..%u\n",
				    kt_gp_name(gp), attr, max);
		return -EINVAL;
	}
	return 0;
}

/* ---- alua/NAME attributes ---- */

static ssize_t kt_gp_alua_access_state_show(struct config_item *item,
					    char *page)
{
	return sysfs_emit(page, "%u\n", READ_ONCE(to_kt_alua_gp(item)->state));
}

/* An implicit transition, as LIO's configfs makes it. */
static ssize_t kt_gp_alua_access_state_store(struct config_item *item,
					     const char *page, size_t count)
{
	struct kt_alua_gp *gp = to_kt_alua_gp(item);
	struct kt_dev *dev = gp->dev;
	bool changed;
	u32 state;
	int ret;

	ret = kt_alua_parse_u32(gp, "alua_access_state", page, count, 0xf, &state);
	if (ret)
		return ret;
	mutex_lock(&dev->state->alua.lock);
	if (!gp->id_valid) {
		pr_warn_ratelimited("alua/%s: alua_access_state: write tg_pt_gp_id first\n",
				    kt_gp_name(gp));
		ret = -EINVAL;
	} else if (!(gp->access_type & KT_ALUA_TPGS_IMPLICIT)) {
		pr_warn_ratelimited("alua/%s: alua_access_state: implicit ALUA is off (alua_access_type)\n",
				    kt_gp_name(gp));
		ret = -EINVAL;
	} else if (state == KT_ALUA_OFFLINE ||
		   !(gp->supported & kt_alua_state_sup(state))) {
		/* offline is a port's state: alua_tg_pt_offline of a LUN */
		pr_warn_ratelimited("alua/%s: alua_access_state: state %u is not supported by the group\n",
				    kt_gp_name(gp), state);
		ret = -EINVAL;
	}
	if (ret) {
		mutex_unlock(&dev->state->alua.lock);
		return ret;
	}
	changed = gp->state != state;
	kt_alua_set_state(gp, state, KT_ALUA_STATUS_IMPLICIT);
	/* cluster mode: the other nodes see it once this node publishes */
	gp->cluster_dirty = true;
	mutex_unlock(&dev->state->alua.lock);
	kt_alua_cluster_changed(dev);
	if (changed)
		kt_ua_raise(dev, KT_ASC_ALUA_STATE_CHANGED, KT_UA_ALL, NULL);
	return count;
}

static ssize_t kt_gp_alua_access_status_show(struct config_item *item,
					     char *page)
{
	u8 status = READ_ONCE(to_kt_alua_gp(item)->status);

	return sysfs_emit(page, "%s\n",
			  status < ARRAY_SIZE(kt_alua_status_names) ?
			  kt_alua_status_names[status] : "Unknown");
}

static ssize_t kt_gp_alua_access_status_store(struct config_item *item,
					      const char *page, size_t count)
{
	struct kt_alua_gp *gp = to_kt_alua_gp(item);
	u32 v;
	int ret;

	ret = kt_alua_parse_u32(gp, "alua_access_status", page, count,
				KT_ALUA_STATUS_IMPLICIT, &v);
	if (ret)
		return ret;
	mutex_lock(&gp->dev->state->alua.lock);
	gp->status = v;
	mutex_unlock(&gp->dev->state->alua.lock);
	kt_alua_cluster_changed(gp->dev);
	return count;
}

static ssize_t kt_gp_alua_access_type_show(struct config_item *item,
					   char *page)
{
	u8 type = READ_ONCE(to_kt_alua_gp(item)->access_type) & 0x3;

	return sysfs_emit(page, "%s\n", kt_alua_type_names[type]);
}

static ssize_t kt_gp_alua_access_type_store(struct config_item *item,
					    const char *page, size_t count)
{
	struct kt_alua_gp *gp = to_kt_alua_gp(item);
	u32 v;
	int ret;

	ret = kt_alua_parse_u32(gp, "alua_access_type", page, count, 3, &v);
	if (ret)
		return ret;
	mutex_lock(&gp->dev->state->alua.lock);
	WRITE_ONCE(gp->access_type, v);
	mutex_unlock(&gp->dev->state->alua.lock);
	kt_alua_cluster_changed(gp->dev);
	return count;
}

static ssize_t kt_gp_tg_pt_gp_id_show(struct config_item *item, char *page)
{
	struct kt_alua_gp *gp = to_kt_alua_gp(item);

	/* LIO: empty until an id is written */
	if (!READ_ONCE(gp->id_valid))
		return 0;
	return sysfs_emit(page, "%u\n", READ_ONCE(gp->id));
}

static ssize_t kt_gp_tg_pt_gp_id_store(struct config_item *item,
				       const char *page, size_t count)
{
	struct kt_alua_gp *gp = to_kt_alua_gp(item);
	struct kt_dev *dev = gp->dev;
	u32 id;
	int ret;

	ret = kt_alua_parse_u32(gp, "tg_pt_gp_id", page, count, U16_MAX, &id);
	if (ret)
		return ret;
	mutex_lock(&dev->state->alua.lock);
	if (kt_alua_id_in_use(dev, id, gp)) {
		pr_warn_ratelimited("alua/%s: tg_pt_gp_id: %u is taken by another group of %s\n",
				    kt_gp_name(gp), id,
				    config_item_name(&dev->group.cg_item));
		ret = -EINVAL;
	} else {
		WRITE_ONCE(gp->id, id);
		WRITE_ONCE(gp->id_valid, true);
	}
	mutex_unlock(&dev->state->alua.lock);
	if (!ret)
		kt_alua_cluster_changed(dev);
	return ret ? ret : count;
}

static ssize_t kt_gp_members_show(struct config_item *item, char *page)
{
	struct kt_alua_gp *gp = to_kt_alua_gp(item);
	struct kt_alua_port *port;
	ssize_t len = 0;

	mutex_lock(&gp->dev->state->alua.lock);
	list_for_each_entry(port, &gp->members, node) {
		struct kt_lun *lun = container_of(port, struct kt_lun, alua);
		struct kt_tpg *tpg = lun->tpg;

		len += scnprintf(page + len, PAGE_SIZE - len,
				 "%s/%s/tpgt_%u/%s\n", tpg->ops->name,
				 tpg->wwn->name, tpg->tag,
				 config_item_name(&lun->group.cg_item));
	}
	mutex_unlock(&gp->dev->state->alua.lock);
	return len;
}

/* A bool or bounded number attribute of a group, stored under the lock. */
#define KT_GP_NUM_ATTR(name, field, max)				\
static ssize_t kt_gp_##name##_show(struct config_item *item, char *page) \
{									\
	return sysfs_emit(page, "%u\n",					\
			  (u32)READ_ONCE(to_kt_alua_gp(item)->field));	\
}									\
static ssize_t kt_gp_##name##_store(struct config_item *item,		\
				    const char *page, size_t count)	\
{									\
	struct kt_alua_gp *gp = to_kt_alua_gp(item);			\
	u32 v;								\
	int ret = kt_alua_parse_u32(gp, #name, page, count, max, &v);	\
									\
	if (ret)							\
		return ret;						\
	mutex_lock(&gp->dev->state->alua.lock);				\
	WRITE_ONCE(gp->field, v);					\
	mutex_unlock(&gp->dev->state->alua.lock);				\
	kt_alua_cluster_changed(gp->dev);				\
	return count;							\
}									\
CONFIGFS_ATTR(kt_gp_, name)

KT_GP_NUM_ATTR(preferred, preferred, 1);
KT_GP_NUM_ATTR(alua_write_metadata, write_metadata, 1);
KT_GP_NUM_ATTR(nonop_delay_msecs, nonop_delay_msecs,
	       KT_ALUA_MAX_NONOP_DELAY_MSECS);
KT_GP_NUM_ATTR(trans_delay_msecs, trans_delay_msecs,
	       KT_ALUA_MAX_TRANS_DELAY_MSECS);
KT_GP_NUM_ATTR(implicit_trans_secs, implicit_trans_secs,
	       KT_ALUA_MAX_IMPLICIT_TRANS_SECS);

static void kt_gp_set_sup(struct kt_alua_gp *gp, u8 bit, bool on)
{
	WRITE_ONCE(gp->supported, on ? gp->supported | bit :
				       gp->supported & ~bit);
}

/* alua_support_*: one SUPPORTED bit of the group */
#define KT_GP_SUP_ATTR(name, bit)					\
static ssize_t kt_gp_alua_support_##name##_show(struct config_item *item, \
						char *page)		\
{									\
	return sysfs_emit(page, "%d\n",					\
			  !!(READ_ONCE(to_kt_alua_gp(item)->supported) & (bit))); \
}									\
static ssize_t kt_gp_alua_support_##name##_store(struct config_item *item, \
						 const char *page,	\
						 size_t count)		\
{									\
	struct kt_alua_gp *gp = to_kt_alua_gp(item);			\
	u32 v;								\
	int ret = kt_alua_parse_u32(gp, "alua_support_" #name, page,	\
				    count, 1, &v);			\
									\
	if (ret)							\
		return ret;						\
	mutex_lock(&gp->dev->state->alua.lock);				\
	kt_gp_set_sup(gp, bit, v);					\
	mutex_unlock(&gp->dev->state->alua.lock);				\
	kt_alua_cluster_changed(gp->dev);				\
	return count;							\
}									\
CONFIGFS_ATTR(kt_gp_, alua_support_##name)

KT_GP_SUP_ATTR(transitioning, KT_ALUA_SUP_T);
KT_GP_SUP_ATTR(offline, KT_ALUA_SUP_O);
KT_GP_SUP_ATTR(unavailable, KT_ALUA_SUP_U);
KT_GP_SUP_ATTR(standby, KT_ALUA_SUP_S);
KT_GP_SUP_ATTR(active_nonoptimized, KT_ALUA_SUP_AN);
KT_GP_SUP_ATTR(active_optimized, KT_ALUA_SUP_AO);

/* LBA dependent access is not implemented: read-only, as in LIO */
static ssize_t kt_gp_alua_support_lba_dependent_show(struct config_item *item,
						     char *page)
{
	return sysfs_emit(page, "%d\n",
			  !!(READ_ONCE(to_kt_alua_gp(item)->supported) &
			     KT_ALUA_SUP_LBD));
}

CONFIGFS_ATTR(kt_gp_, alua_access_state);
CONFIGFS_ATTR(kt_gp_, alua_access_status);
CONFIGFS_ATTR(kt_gp_, alua_access_type);
CONFIGFS_ATTR(kt_gp_, tg_pt_gp_id);
CONFIGFS_ATTR_RO(kt_gp_, members);
CONFIGFS_ATTR_RO(kt_gp_, alua_support_lba_dependent);

static struct configfs_attribute *kt_alua_gp_attrs[] = {
	&kt_gp_attr_alua_access_state,
	&kt_gp_attr_alua_access_status,
	&kt_gp_attr_alua_access_type,
	&kt_gp_attr_alua_write_metadata,
	&kt_gp_attr_preferred,
	&kt_gp_attr_nonop_delay_msecs,
	&kt_gp_attr_trans_delay_msecs,
	&kt_gp_attr_implicit_trans_secs,
	&kt_gp_attr_alua_support_transitioning,
	&kt_gp_attr_alua_support_offline,
	&kt_gp_attr_alua_support_lba_dependent,
	&kt_gp_attr_alua_support_unavailable,
	&kt_gp_attr_alua_support_standby,
	&kt_gp_attr_alua_support_active_nonoptimized,
	&kt_gp_attr_alua_support_active_optimized,
	&kt_gp_attr_tg_pt_gp_id,
	&kt_gp_attr_members,
	NULL,
};

static void kt_alua_gp_release(struct config_item *item)
{
	struct kt_alua_gp *gp = to_kt_alua_gp(item);

	/*
	 * default_tg_pt_gp lives in the device's state, which may be gone:
	 * the group itself says which it is
	 */
	if (!gp->is_default)
		kfree_rcu(gp, rcu);
}

static struct configfs_item_operations kt_alua_gp_item_ops = {
	.release	= kt_alua_gp_release,
};

static const struct config_item_type kt_alua_gp_type = {
	.ct_item_ops	= &kt_alua_gp_item_ops,
	.ct_attrs	= kt_alua_gp_attrs,
	.ct_owner	= THIS_MODULE,
};

/* ---- core/HBA/DEV/alua: mkdir / rmdir of groups ---- */

static struct config_group *kt_alua_make_gp(struct config_group *group,
					    const char *name)
{
	struct kt_dev *dev = container_of(group, struct kt_dev, alua_group);
	struct kt_alua_gp *gp;

	gp = kzalloc(sizeof(*gp), GFP_KERNEL);
	if (!gp)
		return ERR_PTR(-ENOMEM);
	kt_alua_gp_init(gp, dev);
	config_group_init_type_name(&gp->group, name, &kt_alua_gp_type);
	mutex_lock(&dev->state->alua.lock);
	list_add_tail(&gp->node, &dev->state->alua.groups);
	mutex_unlock(&dev->state->alua.lock);
	return &gp->group;
}

static void kt_alua_drop_gp(struct config_group *group,
			    struct config_item *item)
{
	kt_alua_gp_remove(to_kt_alua_gp(item));
	config_item_put(item);
}

static struct configfs_group_operations kt_dev_alua_group_ops = {
	.make_group	= kt_alua_make_gp,
	.drop_item	= kt_alua_drop_gp,
};

const struct config_item_type kt_dev_alua_type = {
	.ct_group_ops	= &kt_dev_alua_group_ops,
	.ct_owner	= THIS_MODULE,
};

/* alua/default_tg_pt_gp, the group kt_alua_dev_init() made */
void kt_cfs_alua_dev_init(struct kt_dev *dev)
{
	struct kt_alua_gp *gp = &dev->state->alua.default_gp;

	config_group_init_type_name(&gp->group, "default_tg_pt_gp",
				    &kt_alua_gp_type);
	configfs_add_default_group(&gp->group, &dev->alua_group);
}

/* ---- WWN/tpgt_N/lun/lun_N/alua_tg_pt_* ---- */

static struct kt_lun *kt_alua_lun(struct config_item *item)
{
	return container_of(to_config_group(item), struct kt_lun, group);
}

/*
 * Run @fn on a linked LUN with tpg->lock and the device's alua.lock held;
 * -ENODEV (logged) when the LUN is not linked to a device.
 */
static ssize_t kt_alua_lun_locked(struct config_item *item, const char *attr,
				  ssize_t (*fn)(struct kt_lun *lun, void *arg),
				  void *arg)
{
	struct kt_lun *lun = kt_alua_lun(item);
	ssize_t ret;

	mutex_lock(&lun->tpg->lock);
	if (!lun->dev) {
		mutex_unlock(&lun->tpg->lock);
		pr_warn_ratelimited("lun/%s: %s: the LUN is not linked to a device\n",
				    config_item_name(item), attr);
		return -ENODEV;
	}
	mutex_lock(&lun->dev->state->alua.lock);
	ret = fn(lun, arg);
	mutex_unlock(&lun->dev->state->alua.lock);
	mutex_unlock(&lun->tpg->lock);
	return ret;
}

static struct kt_alua_gp *kt_alua_lun_gp(struct kt_lun *lun)
{
	return rcu_dereference_protected(lun->alua.gp,
				lockdep_is_held(&lun->dev->state->alua.lock));
}

static ssize_t kt_lun_show_gp(struct kt_lun *lun, void *page)
{
	struct kt_alua_gp *gp = kt_alua_lun_gp(lun);

	if (!gp)
		return 0;
	return sysfs_emit(page,
			  "TG Port Alias: %s\nTG Port Group ID: %u\n"
			  "TG Port Primary Access State: %s\n"
			  "TG Port Primary Access Status: %s\n"
			  "TG Port Secondary Access State: %s\n"
			  "TG Port Secondary Access Status: %s\n",
			  kt_gp_name(gp), gp->id, kt_alua_state_name(gp->state),
			  gp->status < ARRAY_SIZE(kt_alua_status_names) ?
			  kt_alua_status_names[gp->status] : "Unknown",
			  lun->alua.offline ? "Offline" : "None",
			  lun->alua.status < ARRAY_SIZE(kt_alua_status_names) ?
			  kt_alua_status_names[lun->alua.status] : "Unknown");
}

static ssize_t kt_lun_alua_tg_pt_gp_show(struct config_item *item, char *page)
{
	struct kt_lun *lun = kt_alua_lun(item);
	ssize_t ret = 0;

	/* unlinked: empty, as LIO (rtslib reads that as "no group") */
	mutex_lock(&lun->tpg->lock);
	if (lun->dev) {
		mutex_lock(&lun->dev->state->alua.lock);
		ret = kt_lun_show_gp(lun, page);
		mutex_unlock(&lun->dev->state->alua.lock);
	}
	mutex_unlock(&lun->tpg->lock);
	return ret;
}

struct kt_alua_name {
	const char	*name;
	size_t		len;
};

static ssize_t kt_lun_move_gp(struct kt_lun *lun, void *arg)
{
	const struct kt_alua_name *n = arg;
	struct kt_alua_gp *gp, *old = kt_alua_lun_gp(lun);

	gp = kt_alua_find_gp(lun->dev, n->name, n->len);
	if (!gp) {
		pr_warn_ratelimited("lun/%s: alua_tg_pt_gp: %s has no group '%.*s' with a tg_pt_gp_id\n",
				    config_item_name(&lun->group.cg_item),
				    config_item_name(&lun->dev->group.cg_item),
				    (int)n->len, n->name);
		return -ENODEV;
	}
	if (gp == old)
		return 0;
	kt_alua_move_port(lun, gp);
	/* SPC-4 5.15.2.3: the port is now in its new group's state */
	if (!old || old->state != gp->state)
		kt_ua_raise(lun->dev, KT_ASC_ALUA_STATE_CHANGED, KT_UA_ALL, NULL);
	return 0;
}

static ssize_t kt_lun_alua_tg_pt_gp_store(struct config_item *item,
					  const char *page, size_t count)
{
	struct kt_alua_name n = { page, kt_cfs_value_len(page, count) };
	ssize_t ret;

	if (!n.len) {
		pr_warn_ratelimited("lun/%s: alua_tg_pt_gp: want a group name\n",
				    config_item_name(item));
		return -EINVAL;
	}
	ret = kt_alua_lun_locked(item, "alua_tg_pt_gp", kt_lun_move_gp, &n);
	return ret ? ret : count;
}

static ssize_t kt_lun_alua_tg_pt_offline_show(struct config_item *item,
					      char *page)
{
	return sysfs_emit(page, "%d\n",
			  READ_ONCE(kt_alua_lun(item)->alua.offline));
}

static ssize_t kt_lun_set_offline(struct kt_lun *lun, void *arg)
{
	bool offline = *(bool *)arg;

	if (lun->alua.offline != offline) {
		kt_alua_set_offline(lun, offline);
		kt_ua_raise(lun->dev, KT_ASC_ALUA_STATE_CHANGED, KT_UA_ALL, NULL);
	}
	return 0;
}

/* The LUN's own bool: kstrtobool, one log line when refused. */
static int kt_lun_parse_bool(struct config_item *item, const char *attr,
			     const char *page, bool *v)
{
	if (kstrtobool(page, v)) {
		pr_warn_ratelimited("lun/%s: %s: want 0 or 1\n",
				    config_item_name(item), attr);
		return -EINVAL;
	}
	return 0;
}

static ssize_t kt_lun_alua_tg_pt_offline_store(struct config_item *item,
					       const char *page, size_t count)
{
	bool offline;
	ssize_t ret;

	if (kt_lun_parse_bool(item, "alua_tg_pt_offline", page, &offline))
		return -EINVAL;
	ret = kt_alua_lun_locked(item, "alua_tg_pt_offline",
				 kt_lun_set_offline, &offline);
	return ret ? ret : count;
}

static ssize_t kt_lun_alua_tg_pt_status_show(struct config_item *item,
					     char *page)
{
	return sysfs_emit(page, "%u\n",
			  READ_ONCE(kt_alua_lun(item)->alua.status));
}

static ssize_t kt_lun_alua_tg_pt_status_store(struct config_item *item,
					      const char *page, size_t count)
{
	u8 v;

	if (kstrtou8(page, 0, &v) || v > KT_ALUA_STATUS_IMPLICIT) {
		pr_warn_ratelimited("lun/%s: alua_tg_pt_status: want 0, 1 or 2\n",
				    config_item_name(item));
		return -EINVAL;
	}
	WRITE_ONCE(kt_alua_lun(item)->alua.status, v);
	return count;
}

static ssize_t kt_lun_alua_tg_pt_write_md_show(struct config_item *item,
					       char *page)
{
	return sysfs_emit(page, "%d\n",
			  READ_ONCE(kt_alua_lun(item)->alua.write_md));
}

static ssize_t kt_lun_alua_tg_pt_write_md_store(struct config_item *item,
						const char *page, size_t count)
{
	bool v;

	if (kt_lun_parse_bool(item, "alua_tg_pt_write_md", page, &v))
		return -EINVAL;
	WRITE_ONCE(kt_alua_lun(item)->alua.write_md, v);
	return count;
}

CONFIGFS_ATTR(kt_lun_, alua_tg_pt_gp);
CONFIGFS_ATTR(kt_lun_, alua_tg_pt_offline);
CONFIGFS_ATTR(kt_lun_, alua_tg_pt_status);
CONFIGFS_ATTR(kt_lun_, alua_tg_pt_write_md);

struct configfs_attribute *kt_alua_lun_attrs[] = {
	&kt_lun_attr_alua_tg_pt_gp,
	&kt_lun_attr_alua_tg_pt_offline,
	&kt_lun_attr_alua_tg_pt_status,
	&kt_lun_attr_alua_tg_pt_write_md,
	NULL,
};
