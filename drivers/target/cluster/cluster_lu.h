/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_cluster: one clustered device's lockspace and the locks in it.
 */
#ifndef KTARGET_CLUSTER_LU_H
#define KTARGET_CLUSTER_LU_H

#include <linux/completion.h>
#include <linux/dlm.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <ktarget/cluster.h>

/*
 * A DLM lock this node keeps once it has it: granted in EX it stays EX
 * until another node asks (a blocking callback), so that a node working
 * alone pays no round trip per use. Between uses it is held in NL.
 */
struct kt_dlm_lock {
	struct kt_cluster_lu	*clu;
	const char		*name;		/* the resource */
	struct dlm_lksb		lksb;
	struct completion	ast;		/* a request has ended */
	spinlock_t		lock;		/* the five below */
	wait_queue_head_t	wait;
	int			granted;	/* DLM_LOCK_NL or _EX */
	bool			busy;		/* a user or a conversion has it */
	bool			wanted;		/* another node asked for it */
	bool			dying;		/* kt_dlm_lock_exit() has begun */
	bool			broken;		/* a request never ended: unusable */
	bool			exists;		/* the DLM has our lock */
	struct delayed_work	yield;		/* gives it back: EX -> NL */
};

struct kt_cluster_lu {
	struct kt_dev		*dev;
	dlm_lockspace_t		*ls;
	char			name[KT_CLUSTER_NAME_LEN + 1];

	spinlock_t		members_lock;	/* the three below */
	u32			node_id;	/* 0: the DLM gave no slots */
	u32			members[KT_CLUSTER_MAX_NODES];
	int			nr_members;

	struct kt_dlm_lock	rmw;		/* COMPARE AND WRITE, ORWRITE */
};

extern struct workqueue_struct *kt_cluster_wq;

int kt_dlm_lock_init(struct kt_dlm_lock *l, struct kt_cluster_lu *clu,
		     const char *name);
void kt_dlm_lock_exit(struct kt_dlm_lock *l);
int kt_dlm_lock_get(struct kt_dlm_lock *l);
void kt_dlm_lock_put(struct kt_dlm_lock *l);

#endif /* KTARGET_CLUSTER_LU_H */
