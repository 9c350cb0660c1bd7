// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: module entry. Loaded on demand by ktarget_core when
 * target/iscsi is made (MODULE_ALIAS below), as LIO loads iscsi_target_mod.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>

#include "conn.h"
#include "tcp/tcp.h"

struct kt_obj_count kt_iscsi_objs[KT_ISCSI_OBJ_NR];

static const char * const kt_iscsi_obj_names[KT_ISCSI_OBJ_NR] = {
	[KT_ISCSI_OBJ_CONN]	= "connections",
	[KT_ISCSI_OBJ_LOGIN]	= "logins",
	[KT_ISCSI_OBJ_SESS]	= "iscsi_sessions",
	[KT_ISCSI_OBJ_CMD]	= "commands",
	[KT_ISCSI_OBJ_TMF]	= "tmfs",
};

static void kt_iscsi_objs_exit(void)
{
	int i;

	for (i = 0; i < KT_ISCSI_OBJ_NR; i++)
		kt_obj_count_unregister(&kt_iscsi_objs[i]);
}

static int kt_iscsi_objs_init(void)
{
	int i, ret;

	for (i = 0; i < KT_ISCSI_OBJ_NR; i++) {
		ret = kt_obj_count_register(&kt_iscsi_objs[i], THIS_MODULE,
					    kt_iscsi_obj_names[i]);
		if (ret) {
			while (i--)
				kt_obj_count_unregister(&kt_iscsi_objs[i]);
			return ret;
		}
	}
	return 0;
}

static int __init kt_iscsi_init(void)
{
	int ret;

	ret = kt_iscsi_objs_init();
	if (ret)
		return ret;
	ret = -ENOMEM;
	/*
	 * Receive and transmit work of each connection runs on its CPU, at
	 * normal priority: as high-priority work it preempted a local
	 * initiator's own processing on that CPU at every PDU
	 * (Documentation/benchmarks.md, "What the benchmarks decided").
	 */
	kt_iscsi_wq = alloc_workqueue("ktarget_iscsi", WQ_MEM_RECLAIM, 0);
	if (!kt_iscsi_wq)
		goto out_objs;
	kt_iscsi_close_wq = alloc_workqueue("ktarget_iscsi_close",
					    WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	if (!kt_iscsi_close_wq)
		goto out_wq;
	ret = kt_iscsi_transport_register(&kt_iscsi_tcp);
	if (ret)
		goto out_close_wq;

	ret = kt_fabric_register(&kt_iscsi_ops);
	if (ret)
		goto out_tcp;
	return 0;

out_tcp:
	kt_iscsi_transport_unregister(&kt_iscsi_tcp);
out_close_wq:
	destroy_workqueue(kt_iscsi_close_wq);
out_wq:
	destroy_workqueue(kt_iscsi_wq);
out_objs:
	kt_iscsi_objs_exit();
	return ret;
}

static void __exit kt_iscsi_exit(void)
{
	kt_fabric_unregister(&kt_iscsi_ops);
	/* configfs pins this module while any session or portal exists */
	kt_iscsi_flush();
	destroy_workqueue(kt_iscsi_close_wq);
	destroy_workqueue(kt_iscsi_wq);
	kt_iscsi_transport_unregister(&kt_iscsi_tcp);
	kt_iscsi_objs_exit();
}

module_init(kt_iscsi_init);
module_exit(kt_iscsi_exit);

MODULE_DESCRIPTION("ktarget iSCSI fabric (TCP)");
MODULE_VERSION(KT_VERSION);
MODULE_LICENSE("GPL");
MODULE_ALIAS("ktarget-fabric-iscsi");
