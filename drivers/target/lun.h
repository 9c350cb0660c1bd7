/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_core: a TPG's LUNs and an ACL's mapped LUNs. Fabrics see them
 * only as pointers (cmd->lun); the core makes, links and looks them up
 * (session.c, configfs/fabric.c).
 */
#ifndef KTARGET_CORE_LUN_H
#define KTARGET_CORE_LUN_H

#include <linux/completion.h>
#include <linux/configfs.h>
#include <linux/percpu-refcount.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "alua/alua_groups.h"

struct kt_dev;
struct kt_node_acl;
struct kt_tpg;

/* A LUN of a TPG: tpgt_N/lun/lun_N, linked to a device. */
struct kt_lun {
	struct config_group	group;
	struct kt_tpg		*tpg;
	u64			unpacked_lun;
	u16			rtpi;		/* relative target port id */
	struct kt_dev		*dev;		/* NULL until linked */
	bool			live;		/* linked: lookups may take refs */
	struct kt_alua_port	alua;		/* its target port group */
	struct percpu_ref	ref;		/* commands in flight */
	struct completion	ref_done;
	struct rcu_head		rcu;
};

/* A LUN as one initiator sees it: acls/INITIATOR/lun_N. */
struct kt_mapped_lun {
	struct config_group	group;
	struct kt_node_acl	*acl;
	u64			mapped_lun;
	struct kt_lun __rcu	*lun;
	bool			write_protect;
	struct rcu_head		rcu;
};

#endif /* KTARGET_CORE_LUN_H */
