/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ALUA target port groups of a device (drivers/target/alua.c): LIO's
 * core/HBA/DEV/alua/NAME, with default_tg_pt_gp made with the device. Each
 * LUN linked to the device is one target port and belongs to one group.
 */
#ifndef KTARGET_CORE_ALUA_GROUPS_H
#define KTARGET_CORE_ALUA_GROUPS_H

#include <linux/configfs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

struct kt_dev;
struct kt_alua_cluster;

/*
 * One group. Everything is written under the device's alua.lock; @state,
 * @access_type and @id are also read without it, on the command path.
 */
struct kt_alua_gp {
	struct config_group	group;
	struct kt_dev		*dev;
	struct list_head	node;		/* dev->alua.groups */
	struct list_head	members;	/* struct kt_alua_port.node */
	u16			id;
	bool			id_valid;	/* tg_pt_gp_id written */
	bool			is_default;	/* default_tg_pt_gp, in the LU */
	bool			preferred;
	bool			write_metadata;	/* kept for rtslib, unused */
	bool			cluster_dirty;	/* state set here, not published */
	u8			state;		/* KT_ALUA_* */
	u8			status;		/* KT_ALUA_STATUS_* */
	u8			access_type;	/* KT_ALUA_TPGS_* bits */
	u8			supported;	/* KT_ALUA_SUP_* */
	u32			nonop_delay_msecs;
	u32			trans_delay_msecs;
	u32			implicit_trans_secs;
	struct rcu_head		rcu;
};

/* The ALUA side of a LUN (a target port): embedded in struct kt_lun. */
struct kt_alua_port {
	struct kt_alua_gp __rcu	*gp;		/* NULL while unlinked */
	struct list_head	node;		/* gp->members */
	bool			offline;	/* secondary state OFFLINE */
	bool			write_md;
	u8			status;		/* secondary access status */
};

/* The groups of a device: embedded in struct kt_dev. */
struct kt_alua {
	struct mutex		lock;		/* groups, members, states */
	struct list_head	groups;		/* struct kt_alua_gp.node */
	struct kt_alua_gp	default_gp;
	/*
	 * Groups whose state refuses commands, plus offline ports: while 0
	 * the command path pays one load for ALUA.
	 */
	int			nr_gated;
	struct kt_alua_cluster __rcu *clustered; /* alua_cluster.c */
};

#endif /* KTARGET_CORE_ALUA_GROUPS_H */
