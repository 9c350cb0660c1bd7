// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: module entry and exit, and the dbroot, the directory
 * where the core keeps state across restarts (PR APTPL files; written
 * through target/dbroot, configfs/root.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "configfs/configfs.h"
#include "copy/xcopy.h"
#include "core.h"
#include "scsi/cmdsets.h"

static DEFINE_MUTEX(kt_dbroot_lock);
static char kt_dbroot[KT_DBROOT_MAX] = KT_DBROOT_DEFAULT;

void kt_dbroot_get(char *buf, size_t size)
{
	mutex_lock(&kt_dbroot_lock);
	strscpy(buf, kt_dbroot, size);
	mutex_unlock(&kt_dbroot_lock);
}

/* @dir: an absolute path to a directory, checked by the caller */
void kt_dbroot_set(const char *dir)
{
	mutex_lock(&kt_dbroot_lock);
	strscpy(kt_dbroot, dir, sizeof(kt_dbroot));
	mutex_unlock(&kt_dbroot_lock);
}

static int __init kt_core_init(void)
{
	int ret;

	ret = kt_objects_init();
	if (ret)
		return ret;
	ret = kt_data_limit_init();
	if (ret)
		goto out_objects;
	ret = kt_xcopy_init();
	if (ret)
		goto out_data_limit;
	ret = kt_sanitize_init();
	if (ret)
		goto out_xcopy;
	ret = kt_task_set_init();
	if (ret)
		goto out_sanitize;
	ret = kt_sbc_init();
	if (ret)
		goto out_task_set;
	ret = kt_cmd_hop_init();
	if (ret)
		goto out_sbc;
	ret = kt_cluster_init();
	if (ret)
		goto out_hop;
	ret = kt_configfs_init();
	if (ret)
		goto out_cluster;

	pr_info("ktarget core %s loaded\n", KT_VERSION);
	return 0;

out_cluster:
	kt_cluster_exit();
out_hop:
	kt_cmd_hop_exit();
out_sbc:
	kt_sbc_exit();
out_task_set:
	kt_task_set_exit();
out_sanitize:
	kt_sanitize_exit();
out_xcopy:
	kt_xcopy_exit();
out_data_limit:
	kt_data_limit_exit();
out_objects:
	kt_objects_exit();
	return ret;
}

static void __exit kt_core_exit(void)
{
	kt_configfs_exit();
	kt_cluster_exit();
	kt_cmd_hop_exit();
	kt_sbc_exit();
	kt_task_set_exit();
	kt_sanitize_exit();
	kt_xcopy_exit();
	kt_data_limit_exit();
	kt_objects_exit();
}

module_init(kt_core_init);
module_exit(kt_core_exit);

MODULE_DESCRIPTION("ktarget SCSI target core");
MODULE_LICENSE("GPL");
MODULE_VERSION(KT_VERSION);
