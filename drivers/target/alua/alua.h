/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_core: ALUA between its files (alua.c, configfs/dev_alua.c) and the
 * rest of the core.
 */
#ifndef KTARGET_CORE_ALUA_H
#define KTARGET_CORE_ALUA_H

#include <linux/compiler.h>
#include <linux/rcupdate.h>

#include <ktarget/fabric.h>
#include <ktarget/proto/alua.h>
#include <ktarget/target.h>

#include "dev_state.h"

struct kt_lu_info;

/* alua.c: groups, ports, commands */
void kt_alua_dev_init(struct kt_dev *dev);
void kt_alua_gp_init(struct kt_alua_gp *gp, struct kt_dev *dev);
void kt_alua_lun_attach(struct kt_lun *lun);
void kt_alua_lun_detach(struct kt_lun *lun);
void kt_alua_lu_info(struct kt_cmd *cmd, u8 *tpgs, u16 *tpg_id);
sense_reason_t kt_alua_check_slow(struct kt_cmd *cmd);
/* REPORT TARGET PORT GROUPS: a kt_builder_t (scsi/cmdsets.h) */
sense_reason_t kt_alua_report(struct kt_cmd *cmd, const struct kt_lu_info *lu,
			      u8 *buf, u32 len, u32 *data_len);
/* SET TARGET PORT GROUPS descriptors taken in one command */
#define KT_STPG_MAX_DESC	4096
#define KT_STPG_MAX_LEN		(KT_ALUA_STPG_HDR_LEN + \
				 KT_STPG_MAX_DESC * KT_ALUA_STPG_DESC_LEN)
void kt_alua_stpg_execute(struct kt_cmd *cmd);

/* alua_cluster.c: cluster mode's one table of every node's groups */
int kt_alua_cluster_attach(struct kt_dev *dev);
struct kt_alua_cluster *kt_alua_cluster_detach(struct kt_dev *dev);
void kt_alua_cluster_free(struct kt_alua_cluster *ac);
void kt_alua_cluster_changed(struct kt_dev *dev);
void kt_alua_cluster_stale(struct kt_dev *dev);
void kt_alua_cluster_current(struct kt_dev *dev);
unsigned int kt_alua_cluster_report(struct kt_dev *dev,
				    struct kt_alua_desc *d, unsigned int n,
				    u16 *ports);
#define KT_ALUA_CLUSTER_GROUPS	9	/* room kt_alua_cluster_report() needs */
#define KT_ALUA_CLUSTER_PORTS	4	/* ... per group */
bool kt_alua_cluster_stpg(struct kt_cmd *cmd,
			  const struct kt_alua_stpg_desc *d, unsigned int nr,
			  sense_reason_t *reason, bool *changed);

/* Under dev->state->alua.lock: */
struct kt_alua_gp *kt_alua_find_gp(struct kt_dev *dev, const char *name,
				   size_t len);
struct kt_alua_gp *kt_alua_find_id(struct kt_dev *dev, u16 id);
bool kt_alua_id_in_use(struct kt_dev *dev, u16 id,
		       const struct kt_alua_gp *except);
void kt_alua_set_state(struct kt_alua_gp *gp, u8 state, u8 status);
void kt_alua_move_port(struct kt_lun *lun, struct kt_alua_gp *gp);
void kt_alua_set_offline(struct kt_lun *lun, bool offline);
void kt_alua_gp_remove(struct kt_alua_gp *gp);

/* Cluster mode: the target port groups' states are every node's. */
static inline void kt_alua_gate_cluster(struct kt_dev *dev)
{
	if (unlikely(rcu_access_pointer(dev->state->alua.clustered)))
		kt_alua_cluster_current(dev);
}

/*
 * SPC-4 5.15.2.4: refuse what the port's access state does not allow.
 * While every group of the device is active, one load.
 */
static inline sense_reason_t kt_alua_check(struct kt_cmd *cmd)
{
	if (likely(!READ_ONCE(cmd->dev->state->alua.nr_gated)))
		return KT_SENSE_NONE;
	return kt_alua_check_slow(cmd);
}

#endif /* KTARGET_CORE_ALUA_H */
