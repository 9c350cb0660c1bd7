/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_core: reservations, between pr.c (persistent reservations),
 * pr_aptpl.c (their APTPL file), pr_cluster.c (cluster mode), reserve.c
 * (SPC-2 RESERVE and RELEASE), configfs/dev_pr.c (DEV/pr/) and the rest of
 * the core.
 */
#ifndef KTARGET_CORE_PR_H
#define KTARGET_CORE_PR_H

#include <ktarget/fabric.h>
#include <ktarget/proto/pr.h>

#include "dev_state.h"

struct kt_cdb;

/* One registered I_T nexus (or, ALL_TG_PT, one initiator port everywhere) */
struct kt_pr_reg {
	struct list_head	node;		/* dev->state->res.regs */
	u64			key;
	u16			rtpi;		/* target port it came through */
	bool			all_tg_pt;
	struct kt_pr_tid	tid;		/* initiator port */
};

#define KT_PR_MAX_REGS		256	/* registrations per device */

/* The I_T nexuses of a registration (ua.c's key), and its port (0: all). */
struct kt_pr_nexus {
	u64			key;
	u16			port;
};

/* An SPC-2 RESERVE holds the LU, through this node or another */
static inline bool kt_reserve_held(const struct kt_res *res)
{
	return res->spc2_holder || res->spc2_elsewhere;
}

/* pr.c */
void kt_res_dev_init(struct kt_dev *dev);
void kt_res_dev_release(struct kt_dev *dev);
sense_reason_t kt_pr_parse(struct kt_cmd *cmd, const struct kt_cdb *c,
			   u32 *needed, enum kt_data_dir *dir);
/* a reservation exists (dev->state->res.active): may @cmd run? */
sense_reason_t kt_res_check(struct kt_cmd *cmd);
sense_reason_t kt_res_check_arrival(struct kt_cmd *cmd);
bool kt_pr_reg_holds(const struct kt_dev *dev, const struct kt_pr_reg *reg);
/* under dev->state->res.lock: publish dev->state->res.active */
void kt_res_update(struct kt_dev *dev);

/* pr_cluster.c: cluster mode's one state for every node */
#define KT_PR_CLUSTER_ABORT	0	/* an event that aborts, not a UA */
unsigned int kt_pr_max_regs(const struct kt_dev *dev);
int kt_pr_cluster_attach(struct kt_dev *dev);
struct kt_pr_cluster *kt_pr_cluster_detach(struct kt_dev *dev);
void kt_pr_cluster_free(struct kt_dev *dev, struct kt_pr_cluster *pc);
void kt_pr_cluster_stale(struct kt_dev *dev);
void kt_pr_cluster_ack_asked(struct kt_dev *dev);
u64 kt_pr_cluster_version(struct kt_dev *dev);
int kt_pr_cluster_settle(struct kt_dev *dev, u64 version);
void kt_pr_cluster_lost(struct kt_dev *dev);
void kt_pr_cluster_found(struct kt_dev *dev);
/* under res.lock */
int kt_pr_cluster_begin(struct kt_dev *dev, bool write);
int kt_pr_cluster_end(struct kt_dev *dev, bool changed);
void kt_pr_cluster_event(struct kt_dev *dev, u64 nexus, u16 port,
			 u16 asc_ascq);
/* not under res.lock */
struct kt_tmr;
bool kt_pr_cluster_reset(struct kt_lun *lun, struct kt_tmr *tmr, bool ua);
void kt_pr_cluster_wait(struct kt_cmd *cmd);
void kt_pr_cluster_aborts(struct kt_dev *dev, struct kt_cmd *spare);
sense_reason_t kt_pr_cluster_refresh(struct kt_cmd *cmd);
sense_reason_t kt_pr_cluster_arrive(struct kt_cmd *cmd);
sense_reason_t kt_pr_cluster_lost_check(struct kt_cmd *cmd);
/* under res.lock */
sense_reason_t kt_pr_cluster_current(struct kt_cmd *cmd);

/*
 * Cluster mode's gate, the first a command to an LU passes: while another
 * node changes the reservations (and the unit attentions), or while the
 * lockspace is lost, the command is checked once the state has loaded, in
 * a work item (KT_CMD_LOADING, kt_cmd_loaded_checks()). Nothing waits for
 * the DLM in the fabric's receive path.
 */
static inline sense_reason_t kt_res_gate_cluster(struct kt_cmd *cmd)
{
	if (unlikely(READ_ONCE(cmd->dev->state->res.active) &
		     (KT_RES_STALE | KT_RES_LOST)))
		return kt_pr_cluster_arrive(cmd);
	return KT_SENSE_NONE;
}

/* SPC-4 5.13: the reservations' gate, one load when nobody reserved */
static inline sense_reason_t kt_res_gate(struct kt_cmd *cmd)
{
	unsigned long active = READ_ONCE(cmd->dev->state->res.active);

	if (!active || test_bit(KT_CMD_LOADING, &cmd->flags))
		return KT_SENSE_NONE;
	if (unlikely(active & (KT_RES_STALE | KT_RES_LOST)))
		return kt_pr_cluster_arrive(cmd);
	return kt_res_check_arrival(cmd);
}

/* pr_aptpl.c: under dev->state->res.lock */
void kt_pr_aptpl_save(struct kt_dev *dev);
void kt_pr_aptpl_load(struct kt_dev *dev);

/* reserve.c */
sense_reason_t kt_reserve_parse(struct kt_cmd *cmd, const struct kt_cdb *c,
				u32 *needed, enum kt_data_dir *dir);
/* under dev->state->res.lock: may @cmd pass an SPC-2 reservation? */
sense_reason_t kt_reserve_check_locked(struct kt_cmd *cmd);
void kt_reserve_session_release(struct kt_session *sess);
void kt_reserve_set_holder(struct kt_res *res, struct kt_session *sess);
void kt_reserve_dev_release(struct kt_dev *dev);
void kt_reserve_reset(struct kt_dev *dev);

#endif /* KTARGET_CORE_PR_H */
