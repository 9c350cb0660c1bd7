/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cluster mode: several ktarget nodes serve one LU. What the core asks of
 * the module that keeps an LU's state consistent across nodes
 * (ktarget_cluster, on the kernel's DLM), and what that module may call.
 *
 * The core owns the configuration (configfs .../DEV/cluster/) and decides
 * when to join and leave; the module owns the lockspace. With cluster mode
 * off a device has no kt_cluster_lu and the I/O path takes no branch of it.
 */
#ifndef KTARGET_CLUSTER_H
#define KTARGET_CLUSTER_H

#include <linux/types.h>

struct kt_dev;
struct kt_cluster_lu;		/* the module's, one per clustered device */
struct module;

#define KT_CLUSTER_NAME_LEN	64	/* a DLM lockspace name (DLM_LOCKSPACE_LEN) */
#define KT_CLUSTER_MAX_NODES	16

/*
 * The LU's shared states, each in blocks of KT_CLUSTER_BLOCK_LEN bytes,
 * block 0 its header. Never written, a block reads as zeroes.
 */
#define KT_CLUSTER_BLOCK_LEN	256
enum kt_cluster_state_id {
	KT_CLUSTER_PR,		/* persistent reservations */
	KT_CLUSTER_ALUA,	/* every node's target port groups */
	KT_CLUSTER_NR_STATES,
};

#define KT_CLUSTER_STATE_BLOCKS	257	/* PR: the header and 256 more */
#define KT_CLUSTER_ALUA_BLOCKS	1	/* ALUA: the header alone */

struct kt_cluster_ops {
	struct module *owner;
	/*
	 * Join the lockspace @name for @dev: ERR_PTR(-errno) after logging
	 * why (no DLM daemon, a cluster name mismatch, ...). May sleep.
	 */
	struct kt_cluster_lu *(*join)(struct kt_dev *dev, const char *name);
	/* Leave it; no call for @clu is running or will start. May sleep. */
	void (*leave)(struct kt_cluster_lu *clu);
	/*
	 * COMPARE AND WRITE and ORWRITE: the read, compare and write of one
	 * node never interleave with another node's. 0, or -errno when the
	 * lock cannot be had (the lockspace is gone). May sleep.
	 */
	int (*rmw_lock)(struct kt_cluster_lu *clu);
	void (*rmw_unlock)(struct kt_cluster_lu *clu);
	/*
	 * A shared state (@sid, enum kt_cluster_state_id): state_lock()
	 * makes this node's reads current
	 * (@write: and lets it write), until state_unlock(), which makes the
	 * writes visible to every node when @publish is set. Between the two
	 * calls the other nodes neither change it nor see part of a change.
	 * state_read() and state_write() return 0, -ESTALE when the DLM
	 * lost the block's value (the nodes that held it left), or -errno;
	 * state_unlock() an -errno when @publish could not be done. All may
	 * sleep; the core calls them one at a time per LU.
	 */
	int (*state_lock)(struct kt_cluster_lu *clu, unsigned int sid,
			  bool write);
	int (*state_read)(struct kt_cluster_lu *clu, unsigned int sid,
			  unsigned int blk, void *buf);
	int (*state_write)(struct kt_cluster_lu *clu, unsigned int sid,
			   unsigned int blk, const void *buf);
	int (*state_unlock)(struct kt_cluster_lu *clu, unsigned int sid,
			    bool publish);
	/*
	 * The reservations' version @version (the header's) is published:
	 * wait until every other member has applied it, that is loaded it
	 * and ended the commands it aborted. 0, or -ETIMEDOUT when a member
	 * did not say so within the DLM's bound. May sleep; not under
	 * res.lock. A member that left or died has nothing to apply.
	 */
	int (*ack_wait)(struct kt_cluster_lu *clu, u64 version);
	/*
	 * After kt_cluster_ack_asked(): this node has applied every version
	 * from @from to @version, the newest it has (a version before @from
	 * it cannot vouch for: it lost aborts of it). May sleep.
	 */
	void (*ack)(struct kt_cluster_lu *clu, u64 version, u64 from);
	/* What configfs .../cluster/ shows: this node, the members */
	u32 (*node_id)(struct kt_cluster_lu *clu);
	int (*members)(struct kt_cluster_lu *clu, u32 *ids, int max);
};

int kt_cluster_register(const struct kt_cluster_ops *ops);
void kt_cluster_unregister(const struct kt_cluster_ops *ops);

/*
 * Another node is about to change the shared state: this node's copy is
 * stale from now on. Called from the module's own work and from inside
 * state_lock() and state_unlock(): it must not wait for anything.
 */
void kt_cluster_state_stale(struct kt_dev *dev, unsigned int sid);

/*
 * Another node waits (ack_wait()) for this node to apply the newest
 * version of the reservations: load it, end the commands it aborted, then
 * call ack(). Any context; must not wait.
 */
void kt_cluster_ack_asked(struct kt_dev *dev);

/*
 * Node @nodeid has left the lockspace (it failed, or left): from the DLM's
 * recovery. Any context; must not take a DLM lock itself.
 */
void kt_cluster_node_left(struct kt_dev *dev, u32 nodeid);

/*
 * The lockspace has been in recovery longer than the module allows
 * (@lost), or its recovery has ended since (!@lost). While it is lost the
 * LU answers only what a port in the Unavailable state answers, and every
 * other command ends NOT READY (2/04/0C); when it ends, the node loads the
 * shared states again before it serves. Process context; the calls for a
 * device come one at a time, and none after leave() has returned.
 */
void kt_cluster_lockspace_lost(struct kt_dev *dev, bool lost);

/* The device's configfs name, for the module's log lines */
const char *kt_cluster_dev_name(const struct kt_dev *dev);

#endif /* KTARGET_CLUSTER_H */
