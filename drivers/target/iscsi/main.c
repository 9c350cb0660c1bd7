// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: module entry. Loaded on demand by ktarget_core when
 * target/iscsi is made (MODULE_ALIAS below), as LIO loads iscsi_target_mod.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>

#include "conn.h"

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

/*
 * The iSCSI fabric as the core sees it, registered below: what
 * target/iscsi is, the hooks the core calls and the attributes it shows.
 */
const struct kt_fabric_ops kt_iscsi_ops = {
	.name			= "iscsi",
	.owner			= THIS_MODULE,
	.proto_id		= 5,	/* SPC-4 7.6.1: iSCSI */

	/* the data path: responses.c and tmf.c */
	.write_pending		= kt_iscsi_write_pending,
	.queue_data_in		= kt_iscsi_queue_data_in,
	.queue_status		= kt_iscsi_queue_status,
	.queue_tm_rsp		= kt_iscsi_queue_tm_rsp,
	.release_cmd		= kt_iscsi_release_cmd,
	.aborted		= kt_iscsi_aborted,
	.abort_data_out		= kt_iscsi_abort_data_out,
	/* RDPROTECT / WRPROTECT: the PI follows each block in the data */
	.pi_interleaved		= true,

	/* configuration: configfs/fabric.c, np/ in configfs/np.c */
	.make_wwn		= kt_iscsi_make_wwn,
	.drop_wwn		= kt_iscsi_drop_wwn,
	.make_tpg		= kt_iscsi_make_tpg,
	.drop_tpg		= kt_iscsi_drop_tpg,
	.tpg_enable		= kt_iscsi_tpg_enable,
	.make_np		= kt_iscsi_make_np,
	.drop_np		= kt_iscsi_drop_np,
	.alloc_acl		= kt_iscsi_alloc_acl,
	.free_acl		= kt_iscsi_free_acl,
	/* session.c: an ACL that goes away takes its sessions with it */
	.close_acl_sessions	= kt_iscsi_acl_close_sessions,

	/* attributes: configfs/fabric.c, param/ and auth/ in their files */
	.fabric_attrs		= kt_iscsi_root_attrs,
	.tpg_attrs		= kt_iscsi_tpg_attrs,
	.tpg_attrib_attrs	= kt_iscsi_tpg_attrib_attrs,
	.tpg_param_attrs	= kt_iscsi_tpg_param_attrs,
	.tpg_auth_attrs		= kt_iscsi_tpg_auth_attrs,
	.acl_attrs		= kt_iscsi_acl_attrs,
	.acl_attrib_attrs	= kt_iscsi_acl_attrib_attrs,
	.acl_auth_attrs		= kt_iscsi_acl_auth_attrs,
	/* configfs/auth.c: discovery_auth/ */
	.init_fabric_groups	= kt_iscsi_init_fabric_groups,
};

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
