// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_isert: module entry. ktarget_iscsi loads it when a network
 * portal's iser attribute is set, as LIO loads ib_isert.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include <ktarget/version.h>

#include "isert.h"

static const struct kt_iscsi_rdma_ops kt_iser_ops = {
	.owner		= THIS_MODULE,
	.listen		= kt_iser_listen,
	.unlisten	= kt_iser_unlisten,
};

static int __init kt_iser_init(void)
{
	int ret;

	kt_iser_wq = alloc_workqueue("ktarget_isert", WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	if (!kt_iser_wq)
		return -ENOMEM;
	ret = kt_iscsi_rdma_register(&kt_iser_ops);
	if (ret) {
		destroy_workqueue(kt_iser_wq);
		return ret;
	}
	return 0;
}

static void __exit kt_iser_exit(void)
{
	/* listeners and connections pin this module: none is left */
	kt_iscsi_rdma_unregister(&kt_iser_ops);
	destroy_workqueue(kt_iser_wq);
}

module_init(kt_iser_init);
module_exit(kt_iser_exit);

MODULE_DESCRIPTION("ktarget iSER transport for ktarget_iscsi");
MODULE_VERSION(KT_VERSION);
MODULE_LICENSE("GPL");
