/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_user: the user backstore, LIO's TCMU ABI. A daemon (tcmu-runner)
 * serves the device's SCSI commands through a UIO device: one mapping of a
 * mailbox, a command ring and a data area (<linux/target_core_user.h>),
 * and the generic netlink family TCM-USER tells it devices come and go.
 *
 * The daemon is an untrusted, mortal peer. The kernel keeps its own copy
 * of everything it must rely on (the ring's head and what it has consumed,
 * each command's data blocks and length, which command ids are in the
 * ring); from the shared memory it reads only the tail, the entries the
 * tail has passed and the data, each value once, and checks it before use.
 *
 *   main.c      the module, the backend ops, device set-up and teardown
 *   ring.c      commands into the ring, completions out (the kick's work),
 *               ring reset
 *   data.c      the data area: blocks, their pages (a bound across all
 *               devices, idle ones given back), copies to and from
 *   timeout.c   the deadlines: cmd_time_out and qfull_time_out
 *   uio.c       the UIO device: mmap, open/release, the daemon's kick
 *   netlink.c   the TCM-USER family
 *   configfs.c  attrib/ and action/ files of a user device
 *   entry.c     pure checks of what the daemon wrote (unit-tested)
 */
#ifndef KTARGET_USER_H
#define KTARGET_USER_H

#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/path.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/uio_driver.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/target_core_user.h>

#include <ktarget/backend.h>

#include "entry.h"

#define KT_USER_CONFIG_LEN	256	/* dev_config=, as LIO */
#define KT_USER_RING_MB_MAX	8	/* mailbox and command ring */
#define KT_USER_DATA_MB_DEF	1024	/* max_data_area_mb default */
#define KT_USER_TIME_OUT_DEF	30	/* cmd_time_out default, seconds */
#define KT_USER_IDLE_FREE	10	/* s: an idle device's pages go back */
#define KT_USER_CMDR_OFF	((u32)sizeof(struct tcmu_mailbox))

/* udev->flags */
#define KT_USER_OPEN		0	/* the daemon has the UIO device open */
#define KT_USER_BLOCKED		1	/* action/block_dev: new commands BUSY */
#define KT_USER_BROKEN		2	/* the daemon wrote a bad entry */

enum kt_user_cmd_state {
	KT_UCMD_QUEUED,		/* waiting for ring or data space */
	KT_UCMD_PENDING,	/* its entry written, not yet shown */
	KT_UCMD_RING,		/* in the ring, the daemon's */
	KT_UCMD_EXPIRED,	/* in the ring, its SCSI command ended */
};

struct kt_user_dev;

/* One command passed to the daemon, or waiting to be. */
struct kt_user_cmd {
	struct kt_user_dev	*udev;
	struct kt_cmd		*cmd;		/* NULL once expired */
	struct list_head	node;	/* qfull, pending, inflight or done */
	struct list_head	fill;	/* a caller's: data to copy in */
	enum kt_user_cmd_state	state;
	u16			id;		/* ring cmd_id, while in the ring */
	u32			ring_end;	/* the head past its entry */
	bool			filled;		/* its data is in its blocks */
	bool			orphan;		/* reset_ring while filled */
	u32			copy_len;	/* answered: data-in to copy */
	unsigned long		deadline;	/* jiffies */
	bool			cut;		/* deadline: aborted, LUN gone */
	u32			data_len;
	u32			nr_blocks;
	u32			*blocks;	/* data area blocks it holds */
	/* outcome, set under the lock, acted on after it */
	sense_reason_t		reason;		/* the kernel's own failure */
	u8			status;
	bool			read_len_valid;
	u32			read_len;
	u8			sense[KT_USER_SENSE_LEN];
};

struct kt_user_dev {
	struct kt_dev		dev;
	/* the configfs device, and each mapping of the UIO device */
	struct kref		kref;

	/* set through control / attrib, fixed once enabled unless said */
	char			config[KT_USER_CONFIG_LEN];
	u64			dev_size;	/* live: resize */
	u32			data_area_mb;
	u32			pages_per_blk;
	u32			ring_mb;
	u32			hw_block_size;	/* 0: 512 */
	u32			hw_max_sectors;	/* 0: 128 */
	int			nl_reply_supported;
	u32			cmd_time_out;	/* seconds, 0: none */
	int			qfull_time_out;	/* seconds, -1: cmd_time_out */
	bool			tmr_notification;

	/*
	 * Held, with @lock, to change @mapping and @map_path (mmap, take
	 * down), and alone over a reclaim's zap, which uses @mapping with no
	 * reference of its own on the node (taking one under @lock would
	 * nest the dentry's lock, not softirq-safe, in it). Order: the
	 * daemon's mmap_lock, UIO's info_lock, kt_user_devs_lock (data.c),
	 * then this, then @lock or a page's lock; never taken under @lock.
	 */
	struct mutex		map_lock;
	spinlock_t		lock;		/* all below */
	unsigned long		flags;		/* KT_USER_* bits */
	bool			up;		/* enabled, ring set up */
	struct uio_info		uio;
	bool			uio_up;
	void			*mb;		/* mailbox + command ring */
	void			*cmdr;		/* the ring, KT_USER_CMDR_OFF on */
	size_t			mb_size;
	struct kt_user_ring	ring;		/* the kernel's copy */
	size_t			data_off;	/* data area, in the mapping */
	size_t			map_size;
	u32			blk_size;
	u32			max_blocks;
	u32			free_blocks;
	unsigned long		*bitmap;
	struct xarray		pages;		/* data area page index -> page */
	u32			nr_pages;	/* in @pages */
	unsigned long		idle_since;	/* jiffies: no block in use */
	struct address_space	*mapping;	/* the daemon's mmap(), while enabled */
	struct path		map_path;	/* its device node, held with it */
	u64			map_gen;	/* one more at each take_down */
	u32			map_vmas;	/* VMAs of this enable (uio.c) */
	struct list_head	devs;		/* data.c's list, while enabled */
	struct xarray		cmds;		/* ring cmd_id -> kt_user_cmd */
	u32			next_id;
	struct list_head	qfull;
	struct list_head	pending;	/* in ring order */
	struct list_head	inflight;
	struct timer_list	timer;
	struct work_struct	kick_work;	/* the daemon's answers */
	u64			bad_entries;	/* the daemon's, ignored */
	u32			filling;	/* on a caller's @fill */
	wait_queue_head_t	fill_wq;	/* @filling back to 0 */
};

static inline struct kt_user_dev *to_udev(struct kt_dev *dev)
{
	return container_of(dev, struct kt_user_dev, dev);
}

static inline const char *kt_user_name(struct kt_user_dev *udev)
{
	return config_item_name(&udev->dev.group.cg_item);
}

/* main.c */
void kt_user_dev_put(struct kt_user_dev *udev);
int kt_user_set_size(struct kt_user_dev *udev, const char *value, bool tell);

/* ring.c */
void kt_user_mb_describe(struct kt_user_dev *udev);
void kt_user_exec_cdb(struct kt_cmd *cmd);
void kt_user_kick_init(struct kt_user_dev *udev);
void kt_user_kick(struct kt_user_dev *udev);
int kt_user_ring_mod_init(void);
void kt_user_ring_mod_exit(void);
void kt_user_run_waiting(struct kt_user_dev *udev);
void kt_user_reset_ring(struct kt_user_dev *udev, bool hard);
void kt_user_block(struct kt_user_dev *udev, bool block);
void kt_user_finish(struct list_head *done);
void kt_user_run_qfull(struct kt_user_dev *udev, struct list_head *done,
		       struct list_head *fill, bool fail);
void kt_user_fill(struct kt_user_dev *udev, struct list_head *fill);
void kt_user_cmd_free(struct kt_user_cmd *ucmd);

/* data.c */
int kt_user_data_init(struct kt_user_dev *udev);
void kt_user_data_exit(struct kt_user_dev *udev, struct address_space *mapping);
void kt_user_data_mod_exit(void);
u32 kt_user_global_max_mb(void);
unsigned long kt_user_data_reclaim(struct kt_user_dev *udev);
int kt_user_data_alloc(struct kt_user_dev *udev, struct kt_user_cmd *ucmd);
void kt_user_data_free(struct kt_user_dev *udev, struct kt_user_cmd *ucmd);
unsigned int kt_user_data_iovs(struct kt_user_dev *udev,
			       struct kt_user_cmd *ucmd, struct iovec *iov);
void kt_user_data_copy(struct kt_user_dev *udev, struct kt_user_cmd *ucmd,
		       struct kt_cmd *cmd, u32 len, bool to_area);
struct page *kt_user_data_page(struct kt_user_dev *udev, unsigned long idx);

/* timeout.c */
void kt_user_timer_init(struct kt_user_dev *udev);
void kt_user_timer_arm(struct kt_user_dev *udev);
void kt_user_timer_add(struct kt_user_dev *udev, unsigned long deadline);
unsigned long kt_user_deadline(u32 seconds);
void kt_user_abort(struct kt_cmd *cmd);
void kt_user_lun_unlinking(struct kt_dev *dev, const struct kt_lun *lun);

/* uio.c */
int kt_user_uio_register(struct kt_user_dev *udev);
void kt_user_uio_unregister(struct kt_user_dev *udev);
int kt_user_uio_init(void);
void kt_user_uio_exit(void);

/* netlink.c */
int kt_user_nl_init(void);
void kt_user_nl_exit(void);
int kt_user_nl_added(struct kt_user_dev *udev);
int kt_user_nl_removed(struct kt_user_dev *udev);
int kt_user_nl_reconfig_size(struct kt_user_dev *udev, u64 size);
bool kt_user_nl_reply_supported(void);
void kt_user_nl_reset(void);
extern bool kt_user_nl_blocked;

/* configfs.c */
extern struct configfs_attribute *kt_user_attrib_attrs[];
extern struct configfs_attribute *kt_user_action_attrs[];

#endif /* KTARGET_USER_H */
