// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_srpt: module entry. Loaded on demand by ktarget_core when
 * target/srpt is made (MODULE_ALIAS below), as LIO loads ib_srpt; rtslib
 * makes the directory first, so targetcli finds this module without
 * knowing its name. The parameters are ib_srpt's (srp_max_req_size,
 * srpt_srq_size, srpt_service_guid) and those its out-of-tree version
 * (SCST's) has as parameters and LIO in configfs (rdma_cm_port, use_srq,
 * srpt_sq_size).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/workqueue.h>

#include <ktarget/version.h>

#include "srpt.h"

struct kt_obj_count kt_srpt_objs[KT_SRPT_OBJ_NR];
struct workqueue_struct *kt_srpt_wq;
struct workqueue_struct *kt_srpt_close_wq;

static int kt_srpt_set_req_size(const char *val, const struct kernel_param *kp)
{
	unsigned int n;

	if (kstrtouint(val, 0, &n) || n < KT_SRPT_MIN_REQ_SIZE ||
	    n > KT_SRPT_MAX_REQ_SIZE)
		return -EINVAL;
	*(unsigned int *)kp->arg = n;
	return 0;
}

static const struct kernel_param_ops kt_srpt_req_size_ops = {
	.set	= kt_srpt_set_req_size,
	.get	= param_get_uint,
};

unsigned int kt_srpt_max_req_size = KT_SRPT_DEF_REQ_SIZE;
module_param_cb(srp_max_req_size, &kt_srpt_req_size_ops,
		&kt_srpt_max_req_size, 0444);
MODULE_PARM_DESC(srp_max_req_size,
		 "largest SRP request IU in bytes (996..65536), the default of new TPGs' attrib/srp_max_req_size");

static int kt_srpt_srq_size = 4095;
module_param_named(srpt_srq_size, kt_srpt_srq_size, int, 0444);
MODULE_PARM_DESC(srpt_srq_size,
		 "shared receive queue size (unused: channels have receive buffers of their own)");

static int kt_srpt_set_u64_x(const char *val, const struct kernel_param *kp)
{
	return kstrtou64(val, 16, (u64 *)kp->arg);
}

static int kt_srpt_get_u64_x(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "0x%016llx\n", *(u64 *)kp->arg);
}

static const struct kernel_param_ops kt_srpt_u64_x_ops = {
	.set	= kt_srpt_set_u64_x,
	.get	= kt_srpt_get_u64_x,
};

u64 kt_srpt_service_guid;
module_param_cb(srpt_service_guid, &kt_srpt_u64_x_ops, &kt_srpt_service_guid,
		0444);
MODULE_PARM_DESC(srpt_service_guid,
		 "the id_ext and ioc_guid logins must name (0: the node GUID of the device they come in on)");

static ushort kt_srpt_cm_port;
module_param_named(rdma_cm_port, kt_srpt_cm_port, ushort, 0444);
MODULE_PARM_DESC(rdma_cm_port,
		 "port rdma_cm listens on from load (0: none until target/srpt/discovery_auth/rdma_cm_port)");

static bool kt_srpt_use_srq;
module_param_named(use_srq, kt_srpt_use_srq, bool, 0444);
MODULE_PARM_DESC(use_srq, "use a shared receive queue (not supported: 0 only)");

int kt_srpt_sq_size = KT_SRPT_DEF_SQ_SIZE;
module_param_named(srpt_sq_size, kt_srpt_sq_size, int, 0444);
MODULE_PARM_DESC(srpt_sq_size,
		 "send queue entries of a channel, the default of new TPGs' attrib/srp_sq_size");

static const char * const kt_srpt_obj_names[KT_SRPT_OBJ_NR] = {
	[KT_SRPT_OBJ_CH]	= "srpt_channels",
	[KT_SRPT_OBJ_CMD]	= "srpt_commands",
	[KT_SRPT_OBJ_TMF]	= "srpt_tmfs",
};

static void kt_srpt_objs_exit(void)
{
	int i;

	for (i = 0; i < KT_SRPT_OBJ_NR; i++)
		kt_obj_count_unregister(&kt_srpt_objs[i]);
}

static int kt_srpt_objs_init(void)
{
	int i, ret;

	for (i = 0; i < KT_SRPT_OBJ_NR; i++) {
		ret = kt_obj_count_register(&kt_srpt_objs[i], THIS_MODULE,
					    kt_srpt_obj_names[i]);
		if (ret) {
			while (i--)
				kt_obj_count_unregister(&kt_srpt_objs[i]);
			return ret;
		}
	}
	return 0;
}

/* The SRP fabric as the core sees it. */
const struct kt_fabric_ops kt_srpt_ops = {
	.name			= "srpt",
	.owner			= THIS_MODULE,
	.proto_id		= KT_SRPT_PROTO_SRP,

	/* the data path: cmd.c, tmf.c */
	.write_pending		= kt_srpt_write_pending,
	.queue_data_in		= kt_srpt_queue_data_in,
	.queue_status		= kt_srpt_queue_status,
	.queue_tm_rsp		= kt_srpt_queue_tm_rsp,
	.release_cmd		= kt_srpt_release_cmd,
	.aborted		= kt_srpt_aborted,

	/* configuration: configfs.c */
	.make_wwn		= kt_srpt_make_wwn,
	.drop_wwn		= kt_srpt_drop_wwn,
	.make_tpg		= kt_srpt_make_tpg,
	.drop_tpg		= kt_srpt_drop_tpg,
	.tpg_enable		= kt_srpt_tpg_enable,
	.close_acl_sessions	= kt_srpt_close_acl,
	.tpg_attrib_attrs	= kt_srpt_tpg_attrib_attrs,
	.init_fabric_groups	= kt_srpt_init_fabric_groups,
};

static int __init kt_srpt_init(void)
{
	int ret;

	if (kt_srpt_use_srq)
		pr_warn("use_srq=1 is not supported: every channel has receive buffers of its own\n");
	if (kt_srpt_sq_size < KT_SRPT_MIN_SQ_SIZE) {
		pr_warn("srpt_sq_size %d is below %d: using %d\n", kt_srpt_sq_size,
			KT_SRPT_MIN_SQ_SIZE, KT_SRPT_MIN_SQ_SIZE);
		kt_srpt_sq_size = KT_SRPT_MIN_SQ_SIZE;
	}
	ret = kt_srpt_objs_init();
	if (ret)
		return ret;
	kt_srpt_wq = alloc_workqueue("ktarget_srpt", WQ_MEM_RECLAIM, 0);
	/* a channel's close waits for work on kt_srpt_wq: another queue */
	kt_srpt_close_wq = alloc_workqueue("ktarget_srpt_close",
					   WQ_MEM_RECLAIM, 0);
	if (!kt_srpt_wq || !kt_srpt_close_wq) {
		ret = -ENOMEM;
		goto out_wq;
	}
	ret = kt_fabric_register(&kt_srpt_ops);
	if (ret)
		goto out_wq;
	if (kt_srpt_cm_port)
		kt_srpt_listen(kt_srpt_cm_port);
	return 0;

out_wq:
	if (kt_srpt_close_wq)
		destroy_workqueue(kt_srpt_close_wq);
	if (kt_srpt_wq)
		destroy_workqueue(kt_srpt_wq);
	kt_srpt_objs_exit();
	return ret;
}

/*
 * configfs pins the module while any TPG, and so any channel, exists; a
 * login running in the listener's handler is waited for as it goes.
 */
static void __exit kt_srpt_exit(void)
{
	kt_srpt_unlisten();
	kt_fabric_unregister(&kt_srpt_ops);
	destroy_workqueue(kt_srpt_close_wq);
	destroy_workqueue(kt_srpt_wq);
	kt_srpt_objs_exit();
}

module_init(kt_srpt_init);
module_exit(kt_srpt_exit);

MODULE_DESCRIPTION("ktarget SRP target fabric (SCSI RDMA Protocol over rdma_cm)");
MODULE_VERSION(KT_VERSION);
MODULE_LICENSE("GPL");
MODULE_ALIAS("ktarget-fabric-srpt");
