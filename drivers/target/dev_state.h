/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_core: the SCSI state of a logical unit that only the core
 * touches (unit attentions, reservations, ALUA groups, SANITIZE, the task
 * set, the soft threshold, the copy manager's counters), behind
 * kt_dev->state: backstores and fabrics never see it.
 */
#ifndef KTARGET_DEV_STATE_H
#define KTARGET_DEV_STATE_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/configfs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu-refcount.h>
#include <linux/rwsem.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <ktarget/target.h>

#include "alua/alua_groups.h"
#include "cluster.h"
#include "copy/rod.h"

/*
 * Unit attention conditions of a device (SAM-5 5.14): a short history of
 * events, each for every I_T nexus, for one, or for all but one. A nexus
 * remembers the sequence number of the last event it has seen (ua.c).
 */
#define KT_UA_HISTORY	8

enum kt_ua_scope {
	KT_UA_ALL,		/* every I_T nexus of the device */
	KT_UA_ONLY,		/* the one named */
	KT_UA_OTHERS,		/* every nexus but the one named */
};

struct kt_ua_event {
	u64	seq;		/* 0: unused slot */
	u64	nexus;		/* kt_nexus_key() of the one named */
	u16	port;		/* its relative target port, 0: any */
	u16	asc_ascq;
	u8	scope;		/* enum kt_ua_scope */
};

struct kt_ua_ring {
	spinlock_t		lock;	/* ev[], next */
	u64			seq;	/* of the newest event, 0: none yet */
	unsigned int		next;	/* slot the next event takes */
	struct kt_ua_event	ev[KT_UA_HISTORY];
};

/*
 * The soft threshold of the Logical Block Provisioning mode page
 * (lbp_thresh.c): offered where the backstore tells the room left for new
 * blocks, set by MODE SELECT.
 */
struct kt_lbp_thresh {
	spinlock_t	lock;		/* writes of the fields below */
	bool		offered;	/* set when the device is enabled */
	bool		on;		/* ENABLED */
	bool		situa;		/* SITUA: the UA for one I_T nexus */
	bool		armed;		/* not reached since it was set */
	u32		count;		/* THRESHOLD COUNT, in threshold sets */
	u64		next_sample;	/* jiffies64: sample by then at last */
	u64		sample_at;	/* ... or once written reaches this */
	unsigned long	sampling;	/* bit 0: a sample is being taken */
	atomic64_t	written;	/* bytes written to the device */
};

/*
 * EXTENDED COPY counters of a copy manager: statistics/xcopy/
 * (configfs/dev_xcopy_stat.c)
 */
struct kt_xcopy_stat {
	atomic64_t	operations;	/* EXTENDED COPY commands run */
	atomic64_t	failures;	/* ... that ended in an error */
	atomic64_t	segments;	/* segment descriptors completed */
	atomic64_t	bytes;		/* bytes written to destinations */
	atomic64_t	chunks;		/* READ/WRITE pairs, copy_range chunks */
	atomic64_t	sgl_allocs;	/* scatterlists allocated */
	atomic64_t	sgl_reuses;	/* ... taken from an earlier copy */
	atomic64_t	fast_copies;	/* segments the backend copied itself */
	atomic64_t	aborts;		/* copies stopped by a task abort */
};

/*
 * Reservations of a device: persistent (pr.c) and SPC-2 RESERVE (6)/(10)
 * (reserve.c). @active's bits change under @lock (KT_RES_STALE and
 * KT_RES_LOST also without it) and are read without it, so that a command
 * to a device nobody reserved pays one load.
 */
#define KT_RES_PR_BIT		0	/* a persistent reservation exists */
#define KT_RES_SPC2_BIT		1	/* an SPC-2 RESERVE holds the LU */
#define KT_RES_STALE_BIT	2	/* cluster mode: the copy may be old */
#define KT_RES_LOST_BIT		3	/* ... the lockspace is lost to it */
#define KT_RES_PR		BIT(KT_RES_PR_BIT)
#define KT_RES_SPC2		BIT(KT_RES_SPC2_BIT)
#define KT_RES_STALE		BIT(KT_RES_STALE_BIT)
#define KT_RES_LOST		BIT(KT_RES_LOST_BIT)

struct kt_pr_reg;
struct kt_pr_cluster;

struct kt_res {
	struct mutex		lock;		/* everything below */
	unsigned long		active;		/* KT_RES_* */
	struct list_head	regs;		/* struct kt_pr_reg */
	u32			nr_regs;
	u32			generation;	/* PRgeneration */
	u8			type;		/* KT_PR_TYPE_*, 0: none */
	bool			aptpl;		/* APTPL: state kept in dbroot */
	bool			aptpl_loaded;
	struct kt_pr_reg	*holder;	/* reserving registration */
	const void		*spc2_holder;	/* struct kt_session */
	bool			spc2_elsewhere;	/* cluster mode: another node's */
	struct list_head	spc2_node;	/* reserve.c: reserved devices */
	/* under reserve.c's list lock: a session release works on it; it goes */
	bool			spc2_releasing, spc2_dying;
	struct kt_pr_cluster	*clustered;	/* pr_cluster.c, cluster mode */
};

/*
 * SANITIZE (SBC-3 4.11): the LU's one sanitize operation, or the FORMAT
 * UNIT that runs in its place (KT_SANITIZE_FORMATTING)
 */
enum kt_sanitize_state {
	KT_SANITIZE_IDLE,
	KT_SANITIZE_RUNNING,
	KT_SANITIZE_FAILED,		/* failure mode until a sanitize works */
	KT_SANITIZE_FORMATTING,		/* FORMAT UNIT's turn (format.c) */
	KT_SANITIZE_FORMAT_FAILED,	/* a format failed or stopped: */
					/* ... until a format works */
};

struct kt_sanitize {
	atomic_t		state;		/* enum kt_sanitize_state */
	bool			ause;		/* the failed one had AUSE */
	/* FORMAT UNIT (format.c): stop between chunks (kt_format_stop()) */
	bool			fmt_stop;
	bool			fmt_stopped;	/* the failed one was stopped */
	struct kt_cmd		*fmt_cmd;	/* without IMMED, while it runs */
	const struct kt_lun	*fmt_lun;	/* the LUN it came through */
	u64			done;		/* bytes, for the progress */
	u64			total;
};

/*
 * SAM-5 8.6: the LU's one task set (TST 000b), where ORDERED commands wait
 * for all before them and hold back all after them (task_set.c). Until an
 * ORDERED command comes, commands enter through @ref alone.
 */
struct kt_task_set {
	struct percpu_ref	ref;		/* commands let in lock-free */
	spinlock_t		lock;
	bool			slow;		/* @ref is dead: all go by @lock */
	bool			drained;	/* ... and has come down to zero */
	bool			ordered_running;
	unsigned int		nr_running;	/* let in by @lock, not ended */
	struct list_head	held;		/* waiting, in arrival order */
	struct work_struct	work;
};

/*
 * T10-PI: a write's data and its tuples go down as one, and a read sees
 * both of one write (pi.c, kt_pi_range_lock()): the device's 1 MiB
 * regions map onto these by their index modulo KT_PI_STRIPES.
 */
#define KT_PI_STRIPES		8	/* lockdep's subclasses: at most 8 */
#define KT_PI_REGION_SHIFT	20

struct kt_dev_state {
	struct kt_dev			*dev;		/* whose it is */
	struct rw_semaphore		pi_stripes[KT_PI_STRIPES];
	/* the backstore's data ops under way; FORMAT UNIT waits (be_io.c) */
	struct percpu_ref		be_io;
	struct completion		be_io_done;
	u32				fmt_gen;	/* formats so far, from 1 */
	/* one COMPARE AND WRITE or ORWRITE at a time */
	struct semaphore		caw_sem;
	struct kt_ua_ring		ua;		/* unit attentions */
	struct kt_res			res;		/* reservations */
	struct kt_alua			alua;		/* target port groups */
	struct kt_sanitize		sanitize;
	struct kt_task_set		task_set;
	bool				swp;		/* control page SWP */
	struct kt_lbp_thresh		lbp;		/* soft threshold */
	struct kt_cluster		cluster;	/* cluster mode */

	struct config_group		xcopy_stat_group;
	struct kt_xcopy_stat		xcopy_stat;
	atomic_t			xcopy_running;	/* copies it manages */
	struct kt_rod_dev		rod;		/* tokens of its blocks */
};

#endif /* KTARGET_DEV_STATE_H */
