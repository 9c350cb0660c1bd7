// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_isert: module entry. ktarget_iscsi loads it when a network
 * portal's iser attribute is set, as LIO loads ib_isert.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include <ktarget/version.h>

#include "isert.h"

static int __init kt_iser_init(void)
{
	int ret;

	kt_iser_wq = alloc_workqueue("ktarget_isert", WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	if (!kt_iser_wq)
		return -ENOMEM;
	ret = kt_iscsi_transport_register(&kt_iser_transport);
	if (ret) {
		destroy_workqueue(kt_iser_wq);
		return ret;
	}
	return 0;
}

static void __exit kt_iser_exit(void)
{
	/* listeners and connections pin this module: none is left */
	kt_iscsi_transport_unregister(&kt_iser_transport);
	destroy_workqueue(kt_iser_wq);
}

module_init(kt_iser_init);
module_exit(kt_iser_exit);

MODULE_DESCRIPTION("ktarget iSER transport for ktarget_iscsi");
MODULE_VERSION(KT_VERSION);
MODULE_LICENSE("GPL");
