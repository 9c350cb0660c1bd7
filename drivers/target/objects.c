// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: the live object counts of every ktarget module, shown in
 * /sys/kernel/debug/ktarget/objects.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>

#include <ktarget/fabric.h>
#include <ktarget/objects.h>

#include "core.h"

static LIST_HEAD(kt_obj_counts);
static DEFINE_MUTEX(kt_obj_lock);
static struct dentry *kt_debugfs_root;

/* Objects made on one CPU and freed on another: only the sum is exact. */
long kt_obj_count_sum(const struct kt_obj_count *c)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(c->live, cpu);
	return sum;
}
EXPORT_SYMBOL_GPL(kt_obj_count_sum);

int kt_obj_count_register(struct kt_obj_count *c, struct module *owner,
			  const char *name)
{
	c->live = alloc_percpu(long);
	if (!c->live)
		return -ENOMEM;
	c->name = name;
	c->owner = owner;
	mutex_lock(&kt_obj_lock);
	list_add_tail(&c->node, &kt_obj_counts);
	mutex_unlock(&kt_obj_lock);
	return 0;
}
EXPORT_SYMBOL_GPL(kt_obj_count_register);

void kt_obj_count_unregister(struct kt_obj_count *c)
{
	long left;

	if (!c->live)
		return;
	mutex_lock(&kt_obj_lock);
	list_del(&c->node);
	mutex_unlock(&kt_obj_lock);
	left = kt_obj_count_sum(c);
	if (left)
		pr_err("%s: %ld %s still live at unload\n",
		       module_name(c->owner), left, c->name);
	free_percpu(c->live);
	c->live = NULL;
}
EXPORT_SYMBOL_GPL(kt_obj_count_unregister);

static int kt_objects_show(struct seq_file *m, void *unused)
{
	struct kt_obj_count *c;

	mutex_lock(&kt_obj_lock);
	list_for_each_entry(c, &kt_obj_counts, node)
		seq_printf(m, "%s %s %ld\n", module_name(c->owner), c->name,
			   kt_obj_count_sum(c));
	mutex_unlock(&kt_obj_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kt_objects);

/* The core's own counts: sessions and the LUN references they take. */
struct kt_obj_count kt_obj_sessions;
struct kt_obj_count kt_obj_lun_refs;

bool kt_lun_tryget(struct kt_lun *lun)
{
	if (!percpu_ref_tryget_live(&lun->ref))
		return false;
	kt_obj_inc(&kt_obj_lun_refs);
	return true;
}

void kt_lun_get(struct kt_lun *lun)
{
	percpu_ref_get(&lun->ref);
	kt_obj_inc(&kt_obj_lun_refs);
}

void kt_lun_put(struct kt_lun *lun)
{
	kt_obj_dec(&kt_obj_lun_refs);
	percpu_ref_put(&lun->ref);
}

int kt_objects_init(void)
{
	int ret;

	ret = kt_obj_count_register(&kt_obj_sessions, THIS_MODULE, "sessions");
	if (ret)
		return ret;
	ret = kt_obj_count_register(&kt_obj_lun_refs, THIS_MODULE, "lun_refs");
	if (ret) {
		kt_obj_count_unregister(&kt_obj_sessions);
		return ret;
	}
	/* debugfs is a debugging aid: the target runs without it */
	kt_debugfs_root = debugfs_create_dir("ktarget", NULL);
	debugfs_create_file("objects", 0444, kt_debugfs_root, NULL,
			    &kt_objects_fops);
	kt_cmd_debugfs_init(kt_debugfs_root);
	return 0;
}

void kt_objects_exit(void)
{
	debugfs_remove_recursive(kt_debugfs_root);
	kt_obj_count_unregister(&kt_obj_lun_refs);
	kt_obj_count_unregister(&kt_obj_sessions);
}
