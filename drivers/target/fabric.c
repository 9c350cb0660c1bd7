// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: fabric registry and the fabric roots, target/NAME/.
 *
 * mkdir target/NAME loads the fabric module on demand
 * (MODULE_ALIAS("ktarget-fabric-NAME")), as LIO does for its fabrics,
 * so targetcli finds ktarget's iSCSI without knowing its module name.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/kmod.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include <ktarget/fabric.h>

#include "core.h"
#include "fabric.h"

static LIST_HEAD(kt_fabrics);
static DEFINE_MUTEX(kt_fabrics_lock);

/* What the core calls without looking first (fabric.h says which). */
static bool kt_fabric_ops_complete(const struct kt_fabric_ops *ops)
{
	return ops->name && ops->write_pending && ops->queue_data_in &&
	       ops->queue_status && ops->queue_tm_rsp && ops->release_cmd &&
	       ops->aborted && ops->make_wwn && ops->drop_wwn &&
	       ops->make_tpg && ops->drop_tpg &&
	       (!ops->make_np || ops->drop_np) &&
	       !ops->alloc_acl == !ops->free_acl;
}

int kt_fabric_register(const struct kt_fabric_ops *ops)
{
	struct kt_fabric *f;
	int ret;

	if (!kt_fabric_ops_complete(ops)) {
		pr_err("fabric %s lacks a required hook\n",
		       ops->name ? ops->name : "(no name)");
		return -EINVAL;
	}
	mutex_lock(&kt_fabrics_lock);
	list_for_each_entry(f, &kt_fabrics, node) {
		if (!strcmp(f->ops->name, ops->name)) {
			mutex_unlock(&kt_fabrics_lock);
			pr_err("fabric %s is already registered\n", ops->name);
			return -EEXIST;
		}
	}
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f) {
		ret = -ENOMEM;
		goto out;
	}
	f->ops = ops;
	ret = kt_fabric_init_types(f);
	if (ret) {
		kfree(f);
		goto out;
	}
	list_add_tail(&f->node, &kt_fabrics);
out:
	mutex_unlock(&kt_fabrics_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(kt_fabric_register);

void kt_fabric_unregister(const struct kt_fabric_ops *ops)
{
	struct kt_fabric *f;

	mutex_lock(&kt_fabrics_lock);
	list_for_each_entry(f, &kt_fabrics, node) {
		if (f->ops == ops) {
			list_del(&f->node);
			kt_fabric_free_types(f);
			kfree(f);
			break;
		}
	}
	mutex_unlock(&kt_fabrics_lock);
}
EXPORT_SYMBOL_GPL(kt_fabric_unregister);

static struct kt_fabric *kt_fabric_get(const char *name)
{
	struct kt_fabric *f, *found = NULL;

	mutex_lock(&kt_fabrics_lock);
	list_for_each_entry(f, &kt_fabrics, node) {
		if (!strcmp(f->ops->name, name) && try_module_get(f->ops->owner)) {
			found = f;
			break;
		}
	}
	mutex_unlock(&kt_fabrics_lock);
	return found;
}

struct kt_fabric_root {
	struct config_group	group;
	struct kt_fabric	*fabric;
};

static void kt_fabric_root_release(struct config_item *item)
{
	struct kt_fabric_root *root =
		container_of(to_config_group(item), struct kt_fabric_root, group);

	module_put(root->fabric->ops->owner);
	kfree(root);
}

struct configfs_item_operations kt_fabric_root_item_ops = {
	.release	= kt_fabric_root_release,
};

struct kt_fabric *kt_fabric_of_root(struct config_item *item)
{
	return container_of(to_config_group(item), struct kt_fabric_root,
			    group)->fabric;
}

/* mkdir target/NAME */
static struct config_group *kt_root_make_fabric(struct config_group *group,
						const char *name)
{
	struct kt_fabric_root *root;
	struct kt_fabric *f;

	if (strlen(name) > 32) {
		pr_warn_ratelimited("target/%.32s...: fabric name too long\n", name);
		return ERR_PTR(-EINVAL);
	}
	f = kt_fabric_get(name);
	if (!f) {
		request_module("ktarget-fabric-%s", name);
		f = kt_fabric_get(name);
	}
	if (!f) {
		pr_warn_ratelimited("target/%s: no such fabric (known: iscsi)\n",
				    name);
		return ERR_PTR(-ENODEV);
	}

	root = kzalloc(sizeof(*root), GFP_KERNEL);
	if (!root) {
		module_put(f->ops->owner);
		return ERR_PTR(-ENOMEM);
	}
	root->fabric = f;
	config_group_init_type_name(&root->group, name, &f->root_type);
	if (f->ops->init_fabric_groups)
		f->ops->init_fabric_groups(&root->group);
	return &root->group;
}

/* rmdir target/NAME: the fabric's own groups (discovery_auth) go first */
static void kt_root_drop_fabric(struct config_group *group,
				struct config_item *item)
{
	configfs_remove_default_groups(to_config_group(item));
	config_item_put(item);
}

static struct configfs_group_operations kt_root_group_ops = {
	.make_group	= kt_root_make_fabric,
	.drop_item	= kt_root_drop_fabric,
};

struct configfs_group_operations *kt_root_group_ops_get(void)
{
	return &kt_root_group_ops;
}
