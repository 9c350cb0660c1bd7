/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_cluster: one clustered device's lockspace and the locks in it.
 */
#ifndef KTARGET_CLUSTER_LU_H
#define KTARGET_CLUSTER_LU_H

#include <linux/completion.h>
#include <linux/dlm.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>
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
	void			(*bast)(void *arg, int mode);
};

/* How long a request may wait for the other nodes (a partition, a stall) */
#define KT_DLM_LOCK_TIMEOUT	(30 * HZ)

/*
 * ack.c: the lock "ack.N" of each node N, its value block the version of
 * the reservations N has applied (struct kt_ack_lvb). This node holds its
 * own in EX; the others' are taken in PR by a writer that waits for them.
 */
struct kt_ack_peer {
	struct kt_dlm_lock	l;
	u32			node;		/* 0: the slot is free */
	char			name[16];
	u8			lvb[KT_CLUSTER_BLOCK_LEN];
};

struct kt_ack {
	struct kt_dlm_lock	own;
	char			name[16];
	u8			lvb[KT_CLUSTER_BLOCK_LEN];
	struct mutex		mutex;		/* kt_ack() and the retry, one at a time */
	bool			asking;		/* a request for EX waits, unanswered */
	bool			dying;		/* kt_ack_exit() has begun */
	struct delayed_work	retry;		/* ask for EX again after a failure */
	struct mutex		wait_mutex;	/* this node's writers, one at a time */
	struct kt_ack_peer	*peer;		/* [KT_CLUSTER_MAX_NODES] */
};

/*
 * The LU's shared state (state.c): a header block, the "state" lock's
 * value block, and numbered blocks each in a lock "state.N" of its own.
 * A node holds the header, and the blocks it has read or written, in PR
 * while its copy of the state is current, and converts to EX to change
 * them; another node's request for EX makes it drop them all to NL and
 * tell the core its copy is stale.
 */
struct kt_state_block {
	struct kt_dlm_lock	l;
	char			name[16];
	u8			lvb[KT_CLUSTER_BLOCK_LEN];
};

struct kt_cluster_state {
	struct kt_cluster_lu	*clu;
	unsigned int		sid;		/* enum kt_cluster_state_id */
	unsigned int		nr_blocks;	/* with the header */
	char			name[8];	/* of the header's lock */
	struct mutex		mutex;		/* one user on this node */
	struct kt_dlm_lock	hdr;
	u8			hdr_lvb[KT_CLUSTER_BLOCK_LEN];
	u8			hdr_new[KT_CLUSTER_BLOCK_LEN];	/* to publish */
	bool			hdr_dirty;	/* @hdr_new was written */
	int			wanted;		/* a mode another node asked */
	struct work_struct	drop;		/* PR -> NL for another node */
	struct kt_state_block	*blk;		/* [nr_blocks] */
};

struct kt_cluster_lu {
	struct kt_dev		*dev;
	dlm_lockspace_t		*ls;
	char			name[KT_CLUSTER_NAME_LEN + 1];

	spinlock_t		members_lock;	/* the three below */
	u32			node_id;	/* 0: the DLM gave no slots */
	u32			members[KT_CLUSTER_MAX_NODES];
	int			nr_members;

	/* a recovery that does not end loses the lockspace (lockspace.c) */
	struct mutex		recovery_mutex;	/* the three below */
	bool			recovering;	/* recover_prep, no recover_done */
	bool			lost;		/* ... for too long: the core knows */
	bool			leaving;	/* no more calls into the core */
	struct delayed_work	lost_work;
	wait_queue_head_t	recovered;	/* recovering went false, or leaving */

	struct kt_dlm_lock	rmw;		/* COMPARE AND WRITE, ORWRITE */
	struct kt_ack		ack;
	struct kt_cluster_state	state[KT_CLUSTER_NR_STATES];
};

extern struct workqueue_struct *kt_cluster_wq;

void kt_dlm_lock_setup(struct kt_dlm_lock *l, struct kt_cluster_lu *clu,
		       const char *name, void (*bast)(void *arg, int mode));
int kt_dlm_lock_init(struct kt_dlm_lock *l, struct kt_cluster_lu *clu,
		     const char *name);
bool kt_dlm_recovered(struct kt_cluster_lu *clu);
/* ask for @mode (DLM_LKF_* @flags) and wait: 0 or -errno */
int kt_dlm_lock_request(struct kt_dlm_lock *l, int mode, u32 flags);
void kt_dlm_lock_exit(struct kt_dlm_lock *l);
int kt_dlm_lock_get(struct kt_dlm_lock *l);
void kt_dlm_lock_put(struct kt_dlm_lock *l);

/* ack.c */
int kt_ack_init(struct kt_cluster_lu *clu);
void kt_ack_exit(struct kt_cluster_lu *clu);
int kt_ack_wait(struct kt_cluster_lu *clu, u64 version);
void kt_ack(struct kt_cluster_lu *clu, u64 version, u64 from);

/* state.c */
int kt_state_init(struct kt_cluster_lu *clu);
void kt_state_exit(struct kt_cluster_lu *clu);
int kt_state_lock(struct kt_cluster_lu *clu, unsigned int sid, bool write);
int kt_state_read(struct kt_cluster_lu *clu, unsigned int sid,
		  unsigned int blk, void *buf);
int kt_state_write(struct kt_cluster_lu *clu, unsigned int sid,
		   unsigned int blk, const void *buf);
int kt_state_unlock(struct kt_cluster_lu *clu, unsigned int sid,
		    bool publish);

#endif /* KTARGET_CLUSTER_LU_H */
