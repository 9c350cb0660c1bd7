// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_loop: module entry. Loaded on demand by ktarget_core when
 * target/loopback is made (MODULE_ALIAS below), as LIO loads tcm_loop;
 * rtslib-fb makes the directory first and runs modprobe tcm_loop only when
 * that fails, so targetcli finds this module without knowing its name.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/workqueue.h>

#include <ktarget/version.h>

#include "loop.h"

struct kt_obj_count kt_loop_objs[KT_LOOP_OBJ_NR];
struct workqueue_struct *kt_loop_wq;

static const char * const kt_loop_obj_names[KT_LOOP_OBJ_NR] = {
	[KT_LOOP_OBJ_NEXUS]	= "loop_nexuses",
	[KT_LOOP_OBJ_CMD]	= "loop_commands",
};

static void kt_loop_objs_exit(void)
{
	int i;

	for (i = 0; i < KT_LOOP_OBJ_NR; i++)
		kt_obj_count_unregister(&kt_loop_objs[i]);
}

static int kt_loop_objs_init(void)
{
	int i, ret;

	for (i = 0; i < KT_LOOP_OBJ_NR; i++) {
		ret = kt_obj_count_register(&kt_loop_objs[i], THIS_MODULE,
					    kt_loop_obj_names[i]);
		if (ret) {
			while (i--)
				kt_obj_count_unregister(&kt_loop_objs[i]);
			return ret;
		}
	}
	return 0;
}

/* The loopback fabric as the core sees it. */
const struct kt_fabric_ops kt_loop_ops = {
	.name			= "loopback",
	.owner			= THIS_MODULE,
	.proto_id		= KT_LOOP_PROTO_SAS,

	/* the data path: scsi.c */
	.write_pending		= kt_loop_write_pending,
	.queue_data_in		= kt_loop_queue_status,
	.queue_status		= kt_loop_queue_status,
	.queue_tm_rsp		= kt_loop_queue_tm_rsp,
	.release_cmd		= kt_loop_release_cmd,
	.aborted		= kt_loop_aborted,

	/* configuration: configfs.c; a LUN's disk comes and goes in scsi.c */
	.make_wwn		= kt_loop_make_wwn,
	.drop_wwn		= kt_loop_drop_wwn,
	.make_tpg		= kt_loop_make_tpg,
	.drop_tpg		= kt_loop_drop_tpg,
	.lun_linked		= kt_loop_lun_linked,
	.lun_unlinking		= kt_loop_lun_unlinking,

	.fabric_attrs		= kt_loop_root_attrs,
	.tpg_attrs		= kt_loop_tpg_attrs,
	.tpg_attrib_attrs	= kt_loop_tpg_attrib_attrs,
};

static int __init kt_loop_init(void)
{
	int ret;

	ret = kt_loop_objs_init();
	if (ret)
		return ret;
	/* commands run here, on the CPU that queued them */
	kt_loop_wq = alloc_workqueue("ktarget_loop", WQ_MEM_RECLAIM, 0);
	if (!kt_loop_wq) {
		ret = -ENOMEM;
		goto out_objs;
	}
	ret = kt_loop_scsi_init();
	if (ret)
		goto out_wq;
	ret = kt_fabric_register(&kt_loop_ops);
	if (ret)
		goto out_scsi;
	return 0;

out_scsi:
	kt_loop_scsi_exit();
out_wq:
	destroy_workqueue(kt_loop_wq);
out_objs:
	kt_loop_objs_exit();
	return ret;
}

/* configfs pins the module while any TPG, and so any nexus, exists */
static void __exit kt_loop_exit(void)
{
	kt_fabric_unregister(&kt_loop_ops);
	kt_loop_scsi_exit();
	destroy_workqueue(kt_loop_wq);
	kt_loop_objs_exit();
}

module_init(kt_loop_init);
module_exit(kt_loop_exit);

MODULE_DESCRIPTION("ktarget loopback fabric (a SCSI host per I_T nexus)");
MODULE_VERSION(KT_VERSION);
MODULE_LICENSE("GPL");
MODULE_ALIAS("ktarget-fabric-loopback");
