/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_vhost: the vhost-scsi fabric, as LIO's vhost_scsi (tcm_vhost) is.
 * Its initiator is a virtio-scsi driver in a guest; the guest's queues are
 * served here, in the kernel, through the vhost character device
 * /dev/vhost-scsi that a VMM (QEMU's vhost-scsi-pci) opens and sets up.
 *
 * The kernel's own vhost core (drivers/vhost/vhost.h, vringh) is private
 * to the kernel tree and not in every kernel's configuration, so this
 * folder speaks the vhost protocol itself, from the UAPI headers alone,
 * and knows the target core only through <ktarget/fabric.h> and
 * <ktarget/cmd.h>:
 *
 *	main.c		module init and exit, the fabric's ops table, the
 *			misc device
 *	dev.c		the character device: owner, features, memory table,
 *			vring set-up, endpoint (VHOST_SCSI_SET_ENDPOINT)
 *	vring.c		split virtqueues in the owner's memory: kicks, the
 *			avail ring, descriptor chains, the used ring, calls
 *	scsi.c		the request queues: virtio_scsi_cmd_req to kt_cmd
 *			and the answer back
 *	tmf.c		the control queue: task management, AN queries
 *	event.c		the event queue: LUN hotplug (TRANSPORT_RESET)
 *	configfs.c	target/vhost/WWN/tpgt_N/{nexus, attrib/}, LUN hooks
 *
 * Everything the guest (or the VMM) wrote is hostile: ring indices,
 * descriptor chains (loops, indirect tables, lengths, addresses), the
 * request headers. A bad request is answered with a virtio-scsi response
 * code; a ring that cannot be trusted any more stops ("broken") until the
 * VMM sets it up again, and the VMM's error eventfd is signalled. Nothing
 * the guest does allocates more than its ring size in commands.
 */
#ifndef KTARGET_VHOST_VHOST_H
#define KTARGET_VHOST_VHOST_H

#include <linux/atomic.h>
#include <linux/eventfd.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/uio.h>
#include <linux/vhost.h>
#include <linux/virtio_scsi.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <ktarget/cmd.h>
#include <ktarget/fabric.h>
#include <ktarget/objects.h>

/* SPC-4 7.6.1: PROTOCOL IDENTIFIERs of the WWN types, as LIO's */
#define KT_VHOST_PROTO_FCP	0
#define KT_VHOST_PROTO_SAS	6
#define KT_VHOST_PROTO_ISCSI	5

/* The virtio-scsi target field is one byte: tpgt_1 .. tpgt_255 */
#define KT_VHOST_MAX_TARGET	256

/* Queues: control, event, then the request queues */
#define KT_VHOST_VQ_CTL		0
#define KT_VHOST_VQ_EVT		1
#define KT_VHOST_VQ_IO		2
/* QEMU asks for one request queue a vCPU; LIO's limit */
#define KT_VHOST_MAX_IO_VQ	128
#define KT_VHOST_NR_VQ		(KT_VHOST_VQ_IO + KT_VHOST_MAX_IO_VQ)

/* QEMU's VIRTQUEUE_MAX_SIZE: the longest ring, and so the most in flight */
#define KT_VHOST_MAX_RING	1024
/* segments of one request, its descriptors split at memory regions */
#define KT_VHOST_MAX_SEGS	1026
/* entries of one indirect table */
#define KT_VHOST_MAX_INDIRECT	1024
/* memory regions of the table (LIO's max_mem_regions default) */
#define KT_VHOST_MAX_REGIONS	64
/* hotplug events kept for the guest before they are reported missed */
#define KT_VHOST_MAX_EVENTS	64
/* requests one run of a queue's work takes before it yields */
#define KT_VHOST_BUDGET		64

/* How long a teardown wait goes before it says what it waits for, again */
#define KT_VHOST_WAIT_WARN	(10 * HZ)

/* What the device offers (no dirty log, no IOTLB, no EVENT_IDX) */
#define KT_VHOST_FEATURES	((1ULL << VIRTIO_F_VERSION_1) |		\
				 (1ULL << VIRTIO_F_ANY_LAYOUT) |	\
				 (1ULL << VIRTIO_RING_F_INDIRECT_DESC) |	\
				 (1ULL << VIRTIO_SCSI_F_HOTPLUG) |	\
				 (1ULL << VIRTIO_SCSI_F_T10_PI))

struct kt_vhost_dev;
struct kt_vhost_vq;

/* target/vhost/WWN */
struct kt_vhost_tport {
	struct kt_wwn		wwn;
	u8			proto;		/* by the WWN's type */
};

/* an I_T nexus: tpgt_N/nexus */
struct kt_vhost_nexus {
	struct kt_session	sess;
};

/* WWN/tpgt_N: one virtio-scsi target of the endpoint */
struct kt_vhost_tpg {
	struct kt_tpg		tpg;
	struct kt_vhost_tport	*tport;
	u16			tag;		/* the guest's target */
	/* attrib/fabric_prot_type, which a nexus takes when it is made */
	u8			fabric_prot_type;
	struct list_head	node;		/* kt_vhost_tpgs */
	/* under kt_vhost_mutex: */
	struct kt_vhost_nexus	*nexus;
	struct kt_vhost_dev	*dev;		/* the endpoint it serves */
	/* leaving dev: its requests end, without kt_vhost_mutex (dev.c) */
	bool			detaching;
	struct list_head	detach_node;	/* kt_vhost_clear_endpoint */
	/* commands and TMFs of the nexus not yet released */
	atomic_t		inflight;
};

/* The memory table: guest physical addresses to the owner's */
struct kt_vhost_mem {
	unsigned int			nr;
	struct vhost_memory_region	r[];
};

/* A request taken off a queue, until its answer is in the used ring */
struct kt_vhost_req {
	struct llist_node	node;		/* vq->done */
	struct kt_vhost_vq	*vq;
	struct kt_vhost_tpg	*tpg;
	u16			head;
	bool			is_tmf;
	/* the device-writable part of its chain: the response, data-in */
	unsigned int		in_nr;
	u64			in_len;
	struct iovec		*in;
};

/* What a chain walk found: out segments, then in segments, in vq->iov */
struct kt_vhost_chain {
	unsigned int		out_nr;
	unsigned int		in_nr;
	u64			out_len;
	u64			in_len;
};

struct kt_vhost_vq {
	struct kt_vhost_dev	*dev;
	unsigned int		index;
	/* the ring's state, against the ioctls; its work holds it */
	struct mutex		mutex;
	struct work_struct	work;
	void			(*handle)(struct kt_vhost_vq *vq);

	unsigned int		num;
	bool			addr_set;
	bool			started;	/* used->idx read */
	bool			broken;
	void __user		*desc;
	void __user		*avail;
	void __user		*used;
	u16			last_avail;
	u16			used_idx;
	u16			used_pending;	/* elements not yet published */

	struct file		*kick;
	wait_queue_head_t	*kick_wqh;
	wait_queue_entry_t	kick_wait;
	poll_table		kick_pt;
	struct eventfd_ctx	*call;
	struct eventfd_ctx	*err;

	/* answers the core has finished, for the work to send */
	struct llist_head	done;
	atomic_t		inflight;	/* heads taken, not yet used */
	/* the chain being walked */
	struct iovec		iov[KT_VHOST_MAX_SEGS];
};

/* One open /dev/vhost-scsi: one virtio-scsi device of one guest */
struct kt_vhost_dev {
	struct mutex		mutex;		/* the ioctls */
	struct mm_struct	*mm;		/* the owner's (mmget) */
	/* the owner's memory cgroup: what the queues allocate is its */
	struct mem_cgroup	*memcg;
	u64			features;
	/* the memory table, the targets, the features (dev.c's comment) */
	struct rw_semaphore	ep_sem;
	struct kt_vhost_mem	*mem;
	struct kt_vhost_tpg	*tpgs[KT_VHOST_MAX_TARGET];	/* by tpgt */
	bool			has_endpoint;
	bool			mem_changing;	/* SET_MEM_TABLE drains */
	char			wwpn[KT_INITIATOR_NAME_LEN];
	/* requests and TMFs not yet answered (for teardown) */
	atomic_t		inflight;
	/* TPGs removed under the endpoint, not yet detached from it */
	atomic_t		detaching;

	/* hotplug events for the guest */
	spinlock_t		evt_lock;
	struct list_head	events;
	unsigned int		evt_nr;
	bool			events_missed;

	/*
	 * The control and event queues from open; a request queue from the
	 * first ioctl naming it (under mutex), until the file is closed.
	 * Read elsewhere with smp_load_acquire() (kt_vhost_dev_vq()).
	 */
	struct kt_vhost_vq	*vqs[KT_VHOST_NR_VQ];
};

enum {
	KT_VHOST_OBJ_DEV,
	KT_VHOST_OBJ_NEXUS,
	KT_VHOST_OBJ_CMD,
	KT_VHOST_OBJ_TMF,
	KT_VHOST_OBJ_NR,
};

extern struct kt_obj_count kt_vhost_objs[KT_VHOST_OBJ_NR];
extern const struct kt_fabric_ops kt_vhost_ops;
extern struct workqueue_struct *kt_vhost_wq;
/* the TPG list, their nexuses and endpoints */
extern struct mutex kt_vhost_mutex;
extern struct list_head kt_vhost_tpgs;

static inline struct kt_vhost_tpg *to_vhost_tpg(struct kt_tpg *tpg)
{
	return container_of(tpg, struct kt_vhost_tpg, tpg);
}

/* Queue @i of @dev, or NULL if the VMM never set it up */
static inline struct kt_vhost_vq *kt_vhost_dev_vq(struct kt_vhost_dev *dev,
						  unsigned int i)
{
	/* pairs with kt_vhost_vq_get()'s smp_store_release() */
	return smp_load_acquire(&dev->vqs[i]);
}

static inline bool kt_vhost_has(struct kt_vhost_dev *dev, unsigned int bit)
{
	return dev->features & (1ULL << bit);
}

/* dev.c */
int kt_vhost_dev_init(void);
void kt_vhost_dev_exit(void);
void kt_vhost_detach_tpg(struct kt_vhost_tpg *tpg);
void kt_vhost_wait_inflight(atomic_t *count, const char *what);

/* vring.c */
void kt_vhost_vq_init(struct kt_vhost_dev *dev, struct kt_vhost_vq *vq,
		      unsigned int index);
void kt_vhost_vq_work(struct work_struct *work);
int kt_vhost_vq_set_kick(struct kt_vhost_vq *vq, int fd);
void kt_vhost_vq_stop(struct kt_vhost_vq *vq);
bool kt_vhost_vq_ready(struct kt_vhost_vq *vq);
int kt_vhost_vq_next(struct kt_vhost_vq *vq, u16 *head);
int kt_vhost_vq_walk(struct kt_vhost_vq *vq, u16 head,
		     struct kt_vhost_chain *c);
int kt_vhost_vq_used(struct kt_vhost_vq *vq, u16 head, u32 len);
void kt_vhost_vq_broken(struct kt_vhost_vq *vq, const char *why);
void kt_vhost_vq_queue(struct kt_vhost_vq *vq);
void kt_vhost_req_done(struct kt_vhost_req *r);
int kt_vhost_reply(struct kt_vhost_vq *vq, struct kt_vhost_chain *c, u16 head,
		   const void *resp, size_t len);
bool kt_vhost_addr_target(struct kt_vhost_dev *dev, const u8 *lun,
			  struct kt_vhost_tpg **tpg, u64 *unpacked_lun);

/* scsi.c */
void kt_vhost_handle_io(struct kt_vhost_vq *vq);
void kt_vhost_answer_cmd(struct kt_vhost_req *r);
void kt_vhost_write_pending(struct kt_cmd *cmd);
void kt_vhost_queue_data_in(struct kt_cmd *cmd);
void kt_vhost_queue_status(struct kt_cmd *cmd);
void kt_vhost_aborted(struct kt_cmd *cmd);
void kt_vhost_release_cmd(struct kt_cmd *cmd);

/* tmf.c */
void kt_vhost_handle_ctl(struct kt_vhost_vq *vq);
void kt_vhost_answer_tmf(struct kt_vhost_req *r);
void kt_vhost_queue_tm_rsp(struct kt_tmr *tmr);

/* event.c */
void kt_vhost_handle_evt(struct kt_vhost_vq *vq);
void kt_vhost_event(struct kt_vhost_dev *dev, u8 target, u64 lun, u32 reason);
void kt_vhost_events_flush(struct kt_vhost_dev *dev, bool keep_missed);

/* configfs.c */
struct kt_wwn *kt_vhost_make_wwn(const char *name);
void kt_vhost_drop_wwn(struct kt_wwn *wwn);
struct kt_tpg *kt_vhost_make_tpg(struct kt_wwn *wwn, u16 tag);
void kt_vhost_drop_tpg(struct kt_tpg *tpg);
void kt_vhost_lun_linked(struct kt_tpg *tpg, u64 unpacked_lun);
void kt_vhost_lun_unlinking(struct kt_tpg *tpg, u64 unpacked_lun);
extern struct configfs_attribute *kt_vhost_root_attrs[];
extern struct configfs_attribute *kt_vhost_tpg_attrs[];
extern struct configfs_attribute *kt_vhost_tpg_attrib_attrs[];

#endif /* KTARGET_VHOST_VHOST_H */
