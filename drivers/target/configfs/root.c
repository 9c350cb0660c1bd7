// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: the configfs root, /sys/kernel/config/target.
 *
 * The tree and its attribute names follow LIO's, so that rtslib-fb,
 * targetcli and echo scripts work unchanged:
 *
 *	target/version	read-only banner
 *	target/dbroot	where persistent state (PR APTPL, ALUA) is kept
 *	target/data_buffer_limit_mb
 *			what commands of all sessions may hold in data
 *			buffers (ktarget's own; 0: no limit)
 *	target/core/	backstore HBAs
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/utsname.h>

#include "configfs.h"
#include "core.h"
#include "fabric.h"

static ssize_t kt_root_version_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "ktarget Core ConfigFS Infrastructure v%s on %s/%s on %s\n",
			  KT_VERSION, utsname()->sysname, utsname()->machine,
			  utsname()->release);
}

static ssize_t kt_root_dbroot_show(struct config_item *item, char *page)
{
	char *dir = kmalloc(KT_DBROOT_MAX, GFP_KERNEL);
	ssize_t len;

	if (!dir)
		return -ENOMEM;
	kt_dbroot_get(dir, KT_DBROOT_MAX);
	len = sysfs_emit(page, "%s\n", dir);
	kfree(dir);
	return len;
}

/*
 * rtslib writes "/etc/rtslib-fb-target\n" here at start-up and expects the
 * write to fail when that directory does not exist; so do we.
 */
static ssize_t kt_root_dbroot_store(struct config_item *item,
				    const char *page, size_t count)
{
	size_t len = kt_cfs_value_len(page, count);
	struct path path;
	char *dir;
	int ret;

	if (memchr(page, '\0', len)) {
		pr_warn_ratelimited("dbroot: the path holds a NUL byte\n");
		return -EINVAL;
	}
	if (!len || page[0] != '/') {
		pr_warn_ratelimited("dbroot: '%.*s' is not an absolute path\n",
				    (int)min_t(size_t, len, 64), page);
		return -EINVAL;
	}
	if (len >= KT_DBROOT_MAX) {
		pr_warn_ratelimited("dbroot: path of %zu bytes is longer than %d\n",
				    len, KT_DBROOT_MAX - 1);
		return -EINVAL;
	}

	dir = kmemdup_nul(page, len, GFP_KERNEL);
	if (!dir)
		return -ENOMEM;

	ret = kern_path(dir, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &path);
	if (ret) {
		pr_warn_ratelimited("dbroot: %.*s%s is not a directory (%pe)\n",
				    200, dir, len > 200 ? "..." : "", ERR_PTR(ret));
		goto out;
	}
	path_put(&path);

	kt_dbroot_set(dir);
	pr_info("dbroot set to %s\n", dir);
	ret = count;
out:
	kfree(dir);
	return ret;
}

size_t kt_cfs_value_len(const char *page, size_t count)
{
	while (count && (page[count - 1] == '\n' || page[count - 1] == '\r'))
		count--;
	return count;
}
EXPORT_SYMBOL_GPL(kt_cfs_value_len);

/*
 * A number written to an attribute: what kstrtou32() reads with base 0,
 * as LIO takes it, a newline after it allowed, in @min..@max. -EINVAL
 * for no such number, -ERANGE for one outside the range (in *@val);
 * unlogged: the caller names the attribute and what it wants.
 */
int kt_cfs_u32(const char *page, size_t count, u32 min, u32 max, u32 *val)
{
	size_t len = kt_cfs_value_len(page, count);
	char num[24];

	if (!len || len >= sizeof(num))
		return -EINVAL;
	memcpy(num, page, len);
	num[len] = '\0';
	if (kstrtou32(num, 0, val))
		return -EINVAL;
	return *val < min || *val > max ? -ERANGE : 0;
}
EXPORT_SYMBOL_GPL(kt_cfs_u32);

static ssize_t kt_root_data_buffer_limit_mb_show(struct config_item *item,
						 char *page)
{
	return sysfs_emit(page, "%lu\n", kt_data_limit_mb());
}

static ssize_t kt_root_data_buffer_limit_mb_store(struct config_item *item,
						  const char *page, size_t count)
{
	unsigned long mb;
	int ret;

	if (kstrtoul(page, 0, &mb)) {
		pr_warn_ratelimited("data_buffer_limit_mb: '%.*s' is not a number of MiB\n",
				    (int)kt_cfs_value_len(page, count), page);
		return -EINVAL;
	}
	ret = kt_data_limit_set_mb(mb);
	return ret ? ret : count;
}

CONFIGFS_ATTR_RO(kt_root_, version);
CONFIGFS_ATTR(kt_root_, dbroot);
CONFIGFS_ATTR(kt_root_, data_buffer_limit_mb);

static struct configfs_attribute *kt_root_attrs[] = {
	&kt_root_attr_version,
	&kt_root_attr_dbroot,
	&kt_root_attr_data_buffer_limit_mb,
	NULL,
};

/* ---- target/NAME: a fabric ---- */

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

static const struct config_item_type kt_root_type = {
	.ct_group_ops	= &kt_root_group_ops,
	.ct_attrs	= kt_root_attrs,
	.ct_owner	= THIS_MODULE,
};

static struct config_group kt_core_group;

static struct configfs_subsystem kt_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf	= "target",
			.ci_type	= &kt_root_type,
		},
	},
};

int kt_configfs_init(void)
{
	int ret;

	config_group_init(&kt_subsys.su_group);
	mutex_init(&kt_subsys.su_mutex);

	config_group_init_type_name(&kt_core_group, "core", &kt_core_type);
	configfs_add_default_group(&kt_core_group, &kt_subsys.su_group);

	ret = configfs_register_subsystem(&kt_subsys);
	if (ret == -EEXIST) {
		pr_err("configfs 'target' is already registered, most likely by LIO's target_core_mod: unload it first (modprobe -r target_core_mod)\n");
		return -EBUSY;
	}
	if (ret)
		pr_err("cannot register configfs subsystem 'target': %d\n", ret);
	return ret;
}

void kt_configfs_exit(void)
{
	configfs_unregister_subsystem(&kt_subsys);
}
