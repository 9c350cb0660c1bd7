// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: the registered backstores. Each backstore module
 * registers its ops under its name (rd_mcp, fileio, iblock); mkdir
 * target/core/NAME_N (configfs/core.c) finds them here.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kmod.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <ktarget/backend.h>

#include "core.h"

struct kt_backend {
	struct list_head		node;
	const struct kt_backend_ops	*ops;
};

static LIST_HEAD(kt_backends);
static DEFINE_MUTEX(kt_backends_lock);

int kt_backend_register(const struct kt_backend_ops *ops)
{
	struct kt_backend *b, *new;

	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	new->ops = ops;

	mutex_lock(&kt_backends_lock);
	list_for_each_entry(b, &kt_backends, node) {
		if (!strcmp(b->ops->name, ops->name)) {
			mutex_unlock(&kt_backends_lock);
			kfree(new);
			pr_err("backstore %s is already registered\n", ops->name);
			return -EEXIST;
		}
	}
	list_add_tail(&new->node, &kt_backends);
	mutex_unlock(&kt_backends_lock);
	return 0;
}
EXPORT_SYMBOL_GPL(kt_backend_register);

void kt_backend_unregister(const struct kt_backend_ops *ops)
{
	struct kt_backend *b;

	mutex_lock(&kt_backends_lock);
	list_for_each_entry(b, &kt_backends, node) {
		if (b->ops == ops) {
			list_del(&b->node);
			kfree(b);
			break;
		}
	}
	mutex_unlock(&kt_backends_lock);
}
EXPORT_SYMBOL_GPL(kt_backend_unregister);

static const struct kt_backend_ops *kt_backend_find(const char *name)
{
	const struct kt_backend_ops *ops = NULL;
	struct kt_backend *b;

	mutex_lock(&kt_backends_lock);
	list_for_each_entry(b, &kt_backends, node) {
		if (!strcmp(b->ops->name, name) && try_module_get(b->ops->owner)) {
			ops = b->ops;
			break;
		}
	}
	mutex_unlock(&kt_backends_lock);
	return ops;
}

/*
 * The backstore called @name, with a reference on its module, which is
 * loaded (as ktarget-backend-NAME) if no backstore of that name is
 * registered yet. NULL if there is none.
 */
const struct kt_backend_ops *kt_backend_get(const char *name)
{
	const struct kt_backend_ops *ops = kt_backend_find(name);

	if (!ops) {
		request_module("ktarget-backend-%s", name);
		ops = kt_backend_find(name);
	}
	return ops;
}

/*
 * The core aborted @cmd (a TMF, an I_T nexus loss): a backstore that may
 * never hear back from its storage ends it within a bound (backend.h).
 * Every victim of such a device is passed, whether its backstore has it or
 * not: KT_CMD_EXECUTING is set on a clustered LU's commands alone, so it
 * cannot say which reached exec_cdb(), and a backstore ignores one it does
 * not have; one on its way in finds KT_CMD_ABORTED set, which the claim set
 * before this call.
 */
void kt_backend_abort(struct kt_cmd *cmd)
{
	/* a victim still in kt_cmd_setup() may be getting its device */
	struct kt_dev *dev = READ_ONCE(cmd->dev);

	if (dev && dev->ops->abort)
		dev->ops->abort(cmd);
}

/*
 * Whether @dev's backstore may never hear back from its storage (it has
 * lun_unlinking()): its LUNs take no new command from an unlink's start.
 */
bool kt_backend_may_not_answer(const struct kt_dev *dev)
{
	return !!dev->ops->lun_unlinking;
}

/* Whether @dev's backstore has lun_unlinking(), which was called. */
bool kt_backend_lun_unlinking(struct kt_dev *dev, const struct kt_lun *lun)
{
	if (!dev->ops->lun_unlinking)
		return false;
	dev->ops->lun_unlinking(dev, lun);
	return true;
}
