// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: the generic configfs tree under every fabric, with LIO's
 * layout: WWN/tpgt_N/{enable, lun/lun_N, acls/INITIATOR/lun_N, np/, attrib/,
 * param/, auth/}. LUNs and mapped LUNs are tied to what they expose by
 * symlinks, checked in allow_link.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/ctype.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <ktarget/fabric.h>

#include "alua/alua.h"
#include "configfs.h"
#include "core.h"
#include "fabric.h"

#define KT_MAX_LUN	65535	/* LUN numbers a TPG accepts */

#define kt_fabric_of(item, member) \
	container_of((item)->ci_type, struct kt_fabric, member)

/* "prefix_N" with N canonical decimal, at most @max. */
static int kt_parse_indexed(const char *name, const char *prefix, u64 max,
			    u64 *val)
{
	size_t plen = strlen(prefix);

	if (strncmp(name, prefix, plen) || kstrtou64(name + plen, 10, val) ||
	    *val > max || (name[plen] == '0' && name[plen + 1]))
		return -EINVAL;
	return 0;
}

/* ---- target/NAME/WWN/tpgt_N/lun/lun_N ---- */

static struct kt_lun *to_kt_lun(struct config_item *item)
{
	return container_of(to_config_group(item), struct kt_lun, group);
}

static void kt_lun_ref_release(struct percpu_ref *ref)
{
	complete(&container_of(ref, struct kt_lun, ref)->ref_done);
}

static int kt_lun_allow_link(struct config_item *item,
			     struct config_item *target)
{
	struct kt_lun *lun = to_kt_lun(item);
	struct kt_tpg *tpg = lun->tpg;
	struct kt_dev *dev = kt_dev_from_link_target(target);
	int ret;

	if (!dev) {
		pr_warn_ratelimited("%s: a LUN links to a device under core/\n",
				    config_item_name(item));
		return -EINVAL;
	}
	/*
	 * The device's set-up (enable, cluster mode, geometry) stays as it is
	 * while a LUN links it: what changes it checks export_count under
	 * this lock too.
	 */
	mutex_lock(&dev->cfg_lock);
	if (!dev->enabled) {
		pr_warn_ratelimited("%s: device %s is not enabled\n",
				    config_item_name(item),
				    config_item_name(target));
		ret = -ENODEV;
		goto unlock_dev;
	}
	ret = kt_cluster_dev_export(dev);
	if (ret)
		goto unlock_dev;

	mutex_lock(&tpg->lock);
	if (lun->dev) {
		pr_warn_ratelimited("%s: already linked to a device\n",
				    config_item_name(item));
		ret = -EEXIST;
		goto out;
	}
	ret = percpu_ref_init(&lun->ref, kt_lun_ref_release, 0, GFP_KERNEL);
	if (ret)
		goto out;
	init_completion(&lun->ref_done);
	lun->dev = dev;
	kt_dev_export(dev);
	kt_alua_lun_attach(lun);
	/* mapped LUNs may point here already: publish after the ref is set up */
	smp_store_release(&lun->live, true);
	ret = xa_err(xa_store(&tpg->luns, lun->unpacked_lun, lun, GFP_KERNEL));
	if (ret) {
		WRITE_ONCE(lun->live, false);
		synchronize_rcu();
		kt_alua_lun_detach(lun);
		kt_dev_unexport(dev);
		lun->dev = NULL;
		percpu_ref_exit(&lun->ref);
	} else {
		kt_ua_luns_changed(tpg);
	}
out:
	mutex_unlock(&tpg->lock);
unlock_dev:
	mutex_unlock(&dev->cfg_lock);
	/* a fabric with its initiator here adds the LU to it */
	if (!ret && tpg->ops->lun_linked)
		tpg->ops->lun_linked(tpg, lun->unpacked_lun);
	return ret;
}

/*
 * Unlink: from its first step no new command finds the LUN (LOGICAL UNIT
 * NOT SUPPORTED, as LIO's once it killed the LUN's ref), so none starts
 * that could hold the unlink for another time-out of a stuck backstore;
 * then wait for those in flight, which finish or time out.
 */
static void kt_lun_drop_link(struct config_item *item,
			     struct config_item *target)
{
	struct kt_lun *lun = to_kt_lun(item);
	struct kt_tpg *tpg = lun->tpg;

	/*
	 * A backstore that may never hear back from its storage (a user
	 * daemon) takes no new command from here and ends what it holds in
	 * time; over any other, a fabric with its initiator here (loopback,
	 * vhost) takes the disk away next while the LUN still serves it, so
	 * what the initiator writes on the way out (its dirty pages, sd's
	 * cache flush) reaches the storage, as under LIO.
	 */
	if (kt_backend_may_not_answer(lun->dev))
		WRITE_ONCE(lun->live, false);
	kt_backend_lun_unlinking(lun->dev, lun);
	if (tpg->ops->lun_unlinking)
		tpg->ops->lun_unlinking(tpg, lun->unpacked_lun);
	mutex_lock(&tpg->lock);
	WRITE_ONCE(lun->live, false);
	xa_erase(&tpg->luns, lun->unpacked_lun);
	kt_ua_luns_changed(tpg);
	mutex_unlock(&tpg->lock);
	/* no lookup is still between seeing the LUN live and taking a ref */
	synchronize_rcu();

	/* a FORMAT UNIT through it holds a ref: it stops at its next chunk */
	kt_format_stop(lun->dev, lun);
	percpu_ref_kill(&lun->ref);
	/*
	 * One that reached such a backstore after that call is told too,
	 * every second; for any other the wait stays one the hung task
	 * detector sees.
	 */
	if (kt_backend_lun_unlinking(lun->dev, lun))
		while (!wait_for_completion_timeout(&lun->ref_done, HZ))
			kt_backend_lun_unlinking(lun->dev, lun);
	else
		wait_for_completion(&lun->ref_done);
	/* no command is left that could make a token through it */
	kt_rod_lun_gone(lun);
	percpu_ref_exit(&lun->ref);
	kt_alua_lun_detach(lun);
	mutex_lock(&lun->dev->cfg_lock);
	kt_dev_unexport(lun->dev);
	mutex_unlock(&lun->dev->cfg_lock);
	lun->dev = NULL;
}

static void kt_lun_release(struct config_item *item)
{
	kfree_rcu(to_kt_lun(item), rcu);
}

static struct configfs_item_operations kt_lun_item_ops = {
	.release	= kt_lun_release,
	.allow_link	= kt_lun_allow_link,
	.drop_link	= kt_lun_drop_link,
};

static struct config_group *kt_tpg_make_lun(struct config_group *group,
					    const char *name)
{
	struct kt_tpg *tpg = container_of(group, struct kt_tpg, lun_group);
	struct kt_fabric *f = kt_fabric_of(&group->cg_item, tpg_lun_type);
	struct kt_lun *lun;
	u64 n;

	if (kt_parse_indexed(name, "lun_", KT_MAX_LUN, &n)) {
		pr_warn_ratelimited("lun/%s: LUNs are lun_0 .. lun_%d\n",
				    name, KT_MAX_LUN);
		return ERR_PTR(-EINVAL);
	}
	lun = kzalloc(sizeof(*lun), GFP_KERNEL);
	if (!lun)
		return ERR_PTR(-ENOMEM);
	lun->tpg = tpg;
	lun->unpacked_lun = n;
	/* SPC-4 7.8.6.7: the port a LUN is reached through; 0 is reserved */
	lun->rtpi = tpg->tag;
	config_group_init_type_name(&lun->group, name, &f->lun_type);
	return &lun->group;
}

/* ---- acls/INITIATOR/lun_N ---- */

static struct kt_mapped_lun *to_kt_mlun(struct config_item *item)
{
	return container_of(to_config_group(item), struct kt_mapped_lun, group);
}

static int kt_mlun_allow_link(struct config_item *item,
			      struct config_item *target)
{
	struct kt_mapped_lun *mlun = to_kt_mlun(item);
	struct kt_fabric *f = kt_fabric_of(item, mlun_type);
	struct kt_tpg *tpg = mlun->acl->tpg;
	struct kt_lun *lun;
	int ret = 0;

	if (target->ci_type != &f->lun_type) {
		pr_warn_ratelimited("%s: a mapped LUN links to a LUN of its TPG\n",
				    config_item_name(item));
		return -EINVAL;
	}
	lun = to_kt_lun(target);
	mutex_lock(&tpg->lock);
	if (lun->tpg != tpg) {
		pr_warn_ratelimited("%s: the LUN belongs to another TPG\n",
				    config_item_name(item));
		ret = -EINVAL;
	} else if (rcu_access_pointer(mlun->lun)) {
		pr_warn_ratelimited("%s: already linked to a LUN\n",
				    config_item_name(item));
		ret = -EEXIST;
	} else {
		rcu_assign_pointer(mlun->lun, lun);
		kt_ua_luns_changed(tpg);
	}
	mutex_unlock(&tpg->lock);
	return ret;
}

static void kt_mlun_drop_link(struct config_item *item,
			      struct config_item *target)
{
	struct kt_mapped_lun *mlun = to_kt_mlun(item);

	mutex_lock(&mlun->acl->tpg->lock);
	RCU_INIT_POINTER(mlun->lun, NULL);
	kt_ua_luns_changed(mlun->acl->tpg);
	mutex_unlock(&mlun->acl->tpg->lock);
	synchronize_rcu();
}

static void kt_mlun_release(struct config_item *item)
{
	kfree_rcu(to_kt_mlun(item), rcu);
}

static ssize_t kt_mlun_write_protect_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", to_kt_mlun(item)->write_protect);
}

static ssize_t kt_mlun_write_protect_store(struct config_item *item,
					   const char *page, size_t count)
{
	bool wp;

	if (kstrtobool(page, &wp)) {
		pr_warn_ratelimited("%s: write_protect: want 0 or 1\n",
				    config_item_name(item));
		return -EINVAL;
	}
	WRITE_ONCE(to_kt_mlun(item)->write_protect, wp);
	return count;
}

CONFIGFS_ATTR(kt_mlun_, write_protect);

static struct configfs_attribute *kt_mlun_attrs[] = {
	&kt_mlun_attr_write_protect,
	NULL,
};

static struct configfs_item_operations kt_mlun_item_ops = {
	.release	= kt_mlun_release,
	.allow_link	= kt_mlun_allow_link,
	.drop_link	= kt_mlun_drop_link,
};

static struct kt_node_acl *to_kt_acl(struct config_item *item)
{
	return container_of(to_config_group(item), struct kt_node_acl, group);
}

static struct config_group *kt_acl_make_mlun(struct config_group *group,
					     const char *name)
{
	struct kt_node_acl *acl = to_kt_acl(&group->cg_item);
	struct kt_fabric *f = kt_fabric_of(&group->cg_item, acl_type);
	struct kt_mapped_lun *mlun;
	u64 n;
	int ret;

	if (kt_parse_indexed(name, "lun_", KT_MAX_LUN, &n)) {
		pr_warn_ratelimited("%s/%s: mapped LUNs are lun_0 .. lun_%d\n",
				    acl->name, name, KT_MAX_LUN);
		return ERR_PTR(-EINVAL);
	}
	mlun = kzalloc(sizeof(*mlun), GFP_KERNEL);
	if (!mlun)
		return ERR_PTR(-ENOMEM);
	mlun->acl = acl;
	mlun->mapped_lun = n;
	ret = xa_insert(&acl->mapped, n, mlun, GFP_KERNEL);
	if (ret) {
		kfree(mlun);
		return ERR_PTR(ret);
	}
	config_group_init_type_name(&mlun->group, name, &f->mlun_type);
	return &mlun->group;
}

static void kt_acl_drop_mlun(struct config_group *group,
			     struct config_item *item)
{
	struct kt_node_acl *acl = to_kt_acl(&group->cg_item);

	xa_erase(&acl->mapped, to_kt_mlun(item)->mapped_lun);
	config_item_put(item);
}

/* ---- tpgt_N/acls/INITIATOR ---- */

static void kt_acl_release(struct config_item *item)
{
	kt_acl_put(to_kt_acl(item));
}

static struct configfs_item_operations kt_acl_item_ops = {
	.release	= kt_acl_release,
};

static struct configfs_group_operations kt_acl_group_ops = {
	.make_group	= kt_acl_make_mlun,
	.drop_item	= kt_acl_drop_mlun,
};

static struct config_group *kt_tpg_make_acl(struct config_group *group,
					    const char *name)
{
	struct kt_tpg *tpg = container_of(group, struct kt_tpg, acl_group);
	struct kt_fabric *f = kt_fabric_of(&group->cg_item, tpg_acl_type);
	struct kt_node_acl *acl;
	size_t i, len = strlen(name);

	if (!len || len >= KT_INITIATOR_NAME_LEN) {
		pr_warn_ratelimited("acls: initiator names are 1..%d bytes\n",
				    KT_INITIATOR_NAME_LEN - 1);
		return ERR_PTR(-EINVAL);
	}
	for (i = 0; i < len; i++) {
		if (!isgraph(name[i])) {
			pr_warn_ratelimited("acls: initiator name has a non-printable byte at %zu\n",
					    i);
			return ERR_PTR(-EINVAL);
		}
	}

	acl = f->ops->alloc_acl ? f->ops->alloc_acl(tpg) :
				  kzalloc(sizeof(*acl), GFP_KERNEL);
	if (!acl)
		return ERR_PTR(-ENOMEM);
	kt_acl_init(acl, tpg, name);

	config_group_init_type_name(&acl->group, name, &f->acl_type);
	config_group_init_type_name(&acl->attrib_group, "attrib",
				    &f->acl_attrib_type);
	configfs_add_default_group(&acl->attrib_group, &acl->group);
	config_group_init_type_name(&acl->auth_group, "auth",
				    &f->acl_auth_type);
	configfs_add_default_group(&acl->auth_group, &acl->group);

	mutex_lock(&tpg->lock);
	list_add_tail(&acl->node, &tpg->acls);
	mutex_unlock(&tpg->lock);
	return &acl->group;
}

static void kt_tpg_drop_acl(struct config_group *group,
			    struct config_item *item)
{
	struct kt_tpg *tpg = container_of(group, struct kt_tpg, acl_group);
	struct kt_node_acl *acl = to_kt_acl(item);

	mutex_lock(&tpg->lock);
	list_del_init(&acl->node);
	mutex_unlock(&tpg->lock);
	if (tpg->ops->close_acl_sessions)
		tpg->ops->close_acl_sessions(acl);
	config_item_put(item);
}

/* ---- tpgt_N/np/NAME ---- */

static struct config_group *kt_tpg_make_np(struct config_group *group,
					   const char *name)
{
	struct kt_tpg *tpg = container_of(group, struct kt_tpg, np_group);

	if (!tpg->ops->make_np)
		return ERR_PTR(-EOPNOTSUPP);
	return tpg->ops->make_np(tpg, name);
}

static void kt_tpg_drop_np(struct config_group *group,
			   struct config_item *item)
{
	struct kt_tpg *tpg = container_of(group, struct kt_tpg, np_group);

	tpg->ops->drop_np(tpg, to_config_group(item));
}

/* ---- WWN/tpgt_N ---- */

static ssize_t kt_tpg_enable_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", kt_tpg_from_item(item)->enabled);
}

static ssize_t kt_tpg_enable_store(struct config_item *item,
				   const char *page, size_t count)
{
	struct kt_tpg *tpg = kt_tpg_from_item(item);
	bool on;
	int ret = 0;

	if (kstrtobool(page, &on)) {
		pr_warn_ratelimited("%s: enable: want 0 or 1\n",
				    config_item_name(item));
		return -EINVAL;
	}
	/*
	 * The fabric's hook runs without tpg->lock: disabling waits for
	 * sessions whose teardown takes it. Writers of enable take turns
	 * (configfs does not serialise them): an enable while a disable
	 * still waits for its sessions would let new ones in under it.
	 */
	mutex_lock(&tpg->enable_lock);
	mutex_lock(&tpg->lock);
	if (tpg->enabled == on) {
		mutex_unlock(&tpg->lock);
		mutex_unlock(&tpg->enable_lock);
		return count;
	}
	if (!on)
		tpg->enabled = false;	/* no new logins from here on */
	mutex_unlock(&tpg->lock);

	if (tpg->ops->tpg_enable)
		ret = tpg->ops->tpg_enable(tpg, on);
	if (on && !ret) {
		mutex_lock(&tpg->lock);
		tpg->enabled = true;
		mutex_unlock(&tpg->lock);
	}
	mutex_unlock(&tpg->enable_lock);
	return ret ? ret : count;
}

CONFIGFS_ATTR(kt_tpg_, enable);

static void kt_tpg_release(struct config_item *item)
{
	struct kt_tpg *tpg = kt_tpg_from_item(item);

	xa_destroy(&tpg->luns);
	tpg->ops->drop_tpg(tpg);
}

static struct configfs_item_operations kt_tpg_item_ops = {
	.release	= kt_tpg_release,
};

static struct config_group *kt_wwn_make_tpg(struct config_group *group,
					    const char *name)
{
	struct kt_wwn *wwn = container_of(group, struct kt_wwn, group);
	struct kt_fabric *f = kt_fabric_of(&group->cg_item, wwn_type);
	struct kt_tpg *tpg;
	u64 tag;

	if (kt_parse_indexed(name, "tpgt_", U16_MAX, &tag) || !tag) {
		pr_warn_ratelimited("%s/%s: TPGs are tpgt_1 .. tpgt_65535\n",
				    wwn->name, name);
		return ERR_PTR(-EINVAL);
	}
	tpg = f->ops->make_tpg(wwn, tag);
	if (IS_ERR(tpg))
		return ERR_CAST(tpg);

	tpg->ops = f->ops;
	tpg->wwn = wwn;
	tpg->tag = tag;
	mutex_init(&tpg->lock);
	mutex_init(&tpg->enable_lock);
	xa_init(&tpg->luns);
	INIT_LIST_HEAD(&tpg->acls);
	INIT_LIST_HEAD(&tpg->sessions);
	spin_lock_init(&tpg->session_lock);

	config_group_init_type_name(&tpg->group, name, &f->tpg_type);
	config_group_init_type_name(&tpg->lun_group, "lun", &f->tpg_lun_type);
	configfs_add_default_group(&tpg->lun_group, &tpg->group);
	config_group_init_type_name(&tpg->acl_group, "acls", &f->tpg_acl_type);
	configfs_add_default_group(&tpg->acl_group, &tpg->group);
	config_group_init_type_name(&tpg->np_group, "np", &f->tpg_np_type);
	configfs_add_default_group(&tpg->np_group, &tpg->group);
	config_group_init_type_name(&tpg->attrib_group, "attrib",
				    &f->tpg_attrib_type);
	configfs_add_default_group(&tpg->attrib_group, &tpg->group);
	config_group_init_type_name(&tpg->param_group, "param",
				    &f->tpg_param_type);
	configfs_add_default_group(&tpg->param_group, &tpg->group);
	config_group_init_type_name(&tpg->auth_group, "auth",
				    &f->tpg_auth_type);
	configfs_add_default_group(&tpg->auth_group, &tpg->group);
	return &tpg->group;
}

/* ---- target/NAME/WWN ---- */

static void kt_wwn_release(struct config_item *item)
{
	struct kt_wwn *wwn = container_of(to_config_group(item),
					  struct kt_wwn, group);

	wwn->ops->drop_wwn(wwn);
}

static struct configfs_item_operations kt_wwn_item_ops = {
	.release	= kt_wwn_release,
};

static struct config_group *kt_root_make_wwn(struct config_group *group,
					     const char *name)
{
	struct kt_fabric *f = kt_fabric_of_root(&group->cg_item);
	struct kt_wwn *wwn;

	if (strlen(name) >= KT_INITIATOR_NAME_LEN) {
		pr_warn_ratelimited("%s: target names are at most %d bytes\n",
				    f->ops->name, KT_INITIATOR_NAME_LEN - 1);
		return ERR_PTR(-EINVAL);
	}
	wwn = f->ops->make_wwn(name);
	if (IS_ERR(wwn))
		return ERR_CAST(wwn);
	wwn->ops = f->ops;
	strscpy(wwn->name, name, sizeof(wwn->name));
	config_group_init_type_name(&wwn->group, name, &f->wwn_type);
	config_group_init_type_name(&wwn->param_group, "param",
				    &f->wwn_param_type);
	configfs_add_default_group(&wwn->param_group, &wwn->group);
	return &wwn->group;
}

/* ---- the item types of one fabric ---- */

static struct configfs_group_operations kt_root_wwn_ops = {
	.make_group	= kt_root_make_wwn,
};

static struct configfs_group_operations kt_wwn_group_ops = {
	.make_group	= kt_wwn_make_tpg,
};

static struct configfs_group_operations kt_tpg_lun_group_ops = {
	.make_group	= kt_tpg_make_lun,
};

static struct configfs_group_operations kt_tpg_acl_group_ops = {
	.make_group	= kt_tpg_make_acl,
	.drop_item	= kt_tpg_drop_acl,
};

static struct configfs_group_operations kt_tpg_np_group_ops = {
	.make_group	= kt_tpg_make_np,
	.drop_item	= kt_tpg_drop_np,
};

static void kt_type(struct config_item_type *t, struct kt_fabric *f,
		    struct configfs_item_operations *iops,
		    struct configfs_group_operations *gops,
		    struct configfs_attribute **attrs)
{
	t->ct_item_ops = iops;
	t->ct_group_ops = gops;
	t->ct_attrs = attrs;
	/* items of this fabric pin the fabric's module, not only ours */
	t->ct_owner = f->ops->owner;
}

int kt_fabric_init_types(struct kt_fabric *f)
{
	const struct kt_fabric_ops *ops = f->ops;
	size_t n = 0, i;

	while (ops->tpg_attrs && ops->tpg_attrs[n])
		n++;
	f->tpg_attrs = kcalloc(n + 2, sizeof(*f->tpg_attrs), GFP_KERNEL);
	if (!f->tpg_attrs)
		return -ENOMEM;
	f->tpg_attrs[0] = &kt_tpg_attr_enable;
	for (i = 0; i < n; i++)
		f->tpg_attrs[i + 1] = ops->tpg_attrs[i];

	kt_type(&f->root_type, f, &kt_fabric_root_item_ops, &kt_root_wwn_ops,
		ops->fabric_attrs);
	kt_type(&f->wwn_type, f, &kt_wwn_item_ops, &kt_wwn_group_ops,
		ops->wwn_attrs);
	kt_type(&f->wwn_param_type, f, NULL, NULL, kt_wwn_param_attrs);
	kt_type(&f->tpg_type, f, &kt_tpg_item_ops, NULL, f->tpg_attrs);
	kt_type(&f->tpg_lun_type, f, NULL, &kt_tpg_lun_group_ops, NULL);
	kt_type(&f->lun_type, f, &kt_lun_item_ops, NULL, kt_alua_lun_attrs);
	kt_type(&f->tpg_acl_type, f, NULL, &kt_tpg_acl_group_ops, NULL);
	kt_type(&f->acl_type, f, &kt_acl_item_ops, &kt_acl_group_ops,
		ops->acl_attrs);
	kt_type(&f->acl_attrib_type, f, NULL, NULL, ops->acl_attrib_attrs);
	kt_type(&f->acl_auth_type, f, NULL, NULL, ops->acl_auth_attrs);
	kt_type(&f->mlun_type, f, &kt_mlun_item_ops, NULL, kt_mlun_attrs);
	kt_type(&f->tpg_np_type, f, NULL, &kt_tpg_np_group_ops, NULL);
	kt_type(&f->tpg_attrib_type, f, NULL, NULL, ops->tpg_attrib_attrs);
	kt_type(&f->tpg_param_type, f, NULL, NULL, ops->tpg_param_attrs);
	kt_type(&f->tpg_auth_type, f, NULL, NULL, ops->tpg_auth_attrs);
	return 0;
}

void kt_fabric_free_types(struct kt_fabric *f)
{
	kfree(f->tpg_attrs);
}
