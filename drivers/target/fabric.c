// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: the registered fabrics. Registration checks the ops and
 * builds the fabric's configfs item types (configfs/fabric.c); mkdir
 * target/NAME (configfs/root.c) loads the fabric module on demand
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

#include "configfs/configfs.h"
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

static struct kt_fabric *kt_fabric_find(const char *name)
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

/*
 * The fabric called @name, with a reference on its module, which is
 * loaded (as ktarget-fabric-NAME) if no fabric of that name is registered
 * yet. NULL if there is none.
 */
struct kt_fabric *kt_fabric_get(const char *name)
{
	struct kt_fabric *f = kt_fabric_find(name);

	if (!f) {
		request_module("ktarget-fabric-%s", name);
		f = kt_fabric_find(name);
	}
	return f;
}
