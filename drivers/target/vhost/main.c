// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_vhost: module entry. Loaded on demand by ktarget_core when
 * target/vhost is made (MODULE_ALIAS below), as LIO loads vhost_scsi;
 * rtslib-fb makes the directory first and runs modprobe tcm_vhost only
 * when that fails, so targetcli finds this module without knowing its
 * name. It registers /dev/vhost-scsi, and refuses to load while another
 * driver (LIO's vhost_scsi) has that name.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/workqueue.h>

#include <ktarget/version.h>

#include "vhost.h"

struct kt_obj_count kt_vhost_objs[KT_VHOST_OBJ_NR];
struct workqueue_struct *kt_vhost_wq;

static const char * const kt_vhost_obj_names[KT_VHOST_OBJ_NR] = {
	[KT_VHOST_OBJ_DEV]	= "vhost_devices",
	[KT_VHOST_OBJ_NEXUS]	= "vhost_nexuses",
	[KT_VHOST_OBJ_CMD]	= "vhost_commands",
	[KT_VHOST_OBJ_TMF]	= "vhost_tmfs",
};

static void kt_vhost_objs_exit(void)
{
	int i;

	for (i = 0; i < KT_VHOST_OBJ_NR; i++)
		kt_obj_count_unregister(&kt_vhost_objs[i]);
}

static int kt_vhost_objs_init(void)
{
	int i, ret;

	for (i = 0; i < KT_VHOST_OBJ_NR; i++) {
		ret = kt_obj_count_register(&kt_vhost_objs[i], THIS_MODULE,
					    kt_vhost_obj_names[i]);
		if (ret) {
			while (i--)
				kt_obj_count_unregister(&kt_vhost_objs[i]);
			return ret;
		}
	}
	return 0;
}

/* The vhost fabric as the core sees it. */
const struct kt_fabric_ops kt_vhost_ops = {
	.name			= "vhost",
	.owner			= THIS_MODULE,
	.proto_id		= KT_VHOST_PROTO_SAS,

	/* the data path: scsi.c, tmf.c */
	.write_pending		= kt_vhost_write_pending,
	.queue_data_in		= kt_vhost_queue_data_in,
	.queue_status		= kt_vhost_queue_status,
	.queue_tm_rsp		= kt_vhost_queue_tm_rsp,
	.release_cmd		= kt_vhost_release_cmd,
	.aborted		= kt_vhost_aborted,

	/* configuration: configfs.c; LUNs coming and going: event.c */
	.make_wwn		= kt_vhost_make_wwn,
	.drop_wwn		= kt_vhost_drop_wwn,
	.make_tpg		= kt_vhost_make_tpg,
	.drop_tpg		= kt_vhost_drop_tpg,
	.lun_linked		= kt_vhost_lun_linked,
	.lun_unlinking		= kt_vhost_lun_unlinking,

	.fabric_attrs		= kt_vhost_root_attrs,
	.tpg_attrs		= kt_vhost_tpg_attrs,
	.tpg_attrib_attrs	= kt_vhost_tpg_attrib_attrs,
};

static int __init kt_vhost_init(void)
{
	int ret;

	ret = kt_vhost_objs_init();
	if (ret)
		return ret;
	/* the queues' works: they borrow their owner's mm while they run */
	kt_vhost_wq = alloc_workqueue("ktarget_vhost", WQ_MEM_RECLAIM, 0);
	if (!kt_vhost_wq) {
		ret = -ENOMEM;
		goto out_objs;
	}
	ret = kt_fabric_register(&kt_vhost_ops);
	if (ret)
		goto out_wq;
	ret = kt_vhost_dev_init();
	if (ret)
		goto out_fabric;
	return 0;

out_fabric:
	kt_fabric_unregister(&kt_vhost_ops);
out_wq:
	destroy_workqueue(kt_vhost_wq);
out_objs:
	kt_vhost_objs_exit();
	return ret;
}

/*
 * configfs pins the module while any TPG exists, and an open
 * /dev/vhost-scsi while its file does: nothing is left to wait for.
 */
static void __exit kt_vhost_exit(void)
{
	kt_vhost_dev_exit();
	kt_fabric_unregister(&kt_vhost_ops);
	destroy_workqueue(kt_vhost_wq);
	kt_vhost_objs_exit();
}

module_init(kt_vhost_init);
module_exit(kt_vhost_exit);

MODULE_DESCRIPTION("ktarget vhost-scsi fabric (a guest's virtio-scsi queues)");
MODULE_VERSION(KT_VERSION);
MODULE_LICENSE("GPL");
MODULE_ALIAS("ktarget-fabric-vhost");
