/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interface between ktarget_core and its fabrics (iSCSI today).
 *
 * Configuration: a fabric registers a struct kt_fabric_ops; mkdir of
 * target/NAME makes the core request_module("ktarget-fabric-NAME") and build
 * LIO's generic tree below it:
 *
 *	target/NAME/WWN/tpgt_N/{enable, lun/lun_N -> core/HBA/DEV,
 *			acls/INITIATOR/{lun_N -> ../../lun/lun_M, ...},
 *			np/ADDR, attrib/, param/, auth/}
 *
 * with the fabric's own attributes and hooks at every level.
 *
 * Commands: a fabric embeds struct kt_cmd in its command, calls kt_cmd_init(),
 * kt_cmd_setup() and kt_cmd_run(), and is called back through the data-path
 * hooks. The
 * core holds a reference for every stage it runs; the fabric drops its own
 * with kt_cmd_put() when the response has been sent. The last put calls
 * release_cmd.
 */
#ifndef KTARGET_FABRIC_H
#define KTARGET_FABRIC_H

#include <linux/configfs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu-refcount.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>
#include <linux/workqueue.h>

#include <ktarget/cmd.h>
#include <ktarget/target.h>
#include <ktarget/proto/pr.h>
#include <ktarget/proto/sense.h>

struct kt_tmr;
struct kt_tpg;
struct kt_wwn;
struct kt_node_acl;
struct kt_data_share;
struct kt_session;
struct kt_xcopy_ids;

#define KT_INITIATOR_NAME_LEN	224	/* RFC 7143 4.2.7.1: iSCSI names */

/* SAM-5 7.1: task management functions */
enum kt_tmf {
	KT_TMF_ABORT_TASK = 1,
	KT_TMF_ABORT_TASK_SET,
	KT_TMF_CLEAR_ACA,
	KT_TMF_CLEAR_TASK_SET,
	KT_TMF_LUN_RESET,
	KT_TMF_TARGET_WARM_RESET,
	KT_TMF_TARGET_COLD_RESET,
	KT_TMF_I_T_NEXUS_RESET,
	KT_TMF_QUERY_TASK,
	/* the core's own: the commands of preempted nexuses (SPC-4 5.13.11.5) */
	KT_TMF_PREEMPT_AND_ABORT,
	/* ... and of a nexus that is gone (kt_session_nexus_loss()) */
	KT_TMF_I_T_NEXUS_LOSS,
};

/* SAM-5 7.10: task management function service responses */
enum kt_tmf_rsp {
	KT_TMR_COMPLETE,
	KT_TMR_SUCCEEDED,
	KT_TMR_REJECTED,
	KT_TMR_INCORRECT_LUN,
	KT_TMR_TASK_DOES_NOT_EXIST,
	KT_TMR_NOT_SUPPORTED,
	KT_TMR_FAILED,
};

struct kt_fabric_ops {
	const char	*name;
	struct module	*owner;
	u8		proto_id;	/* SPC-4 7.6.1: iSCSI is 5 */

	/*
	 * --- data path: every hook is required but abort_data_out;
	 * kt_fabric_register() refuses a fabric without one ---
	 */

	/*
	 * Move the write data into cmd->sgl, then call kt_cmd_data_out_done()
	 * (or kt_cmd_fail()). Data that came with the command (immediate /
	 * unsolicited) may already be there; cmd->data_received says how much.
	 */
	void	(*write_pending)(struct kt_cmd *cmd);
	/* Send cmd->sgl (cmd->data_length bytes) and then the status. */
	void	(*queue_data_in)(struct kt_cmd *cmd);
	/* Send the status (and sense) of a command with no data to return. */
	void	(*queue_status)(struct kt_cmd *cmd);
	/* The answer to a task management request; from a work item. */
	void	(*queue_tm_rsp)(struct kt_tmr *tmr);
	/*
	 * The last reference is gone: free the fabric's command. Any
	 * context: a bio's completion, or a TMF holding the TPG's
	 * session_lock. It must not sleep nor take a core lock.
	 */
	void	(*release_cmd)(struct kt_cmd *cmd);
	/*
	 * A TMF aborted the command and it has ended: no response goes out
	 * for it (SAM-5 7.2). Drop the fabric's reference, as queue_status
	 * would have once sent.
	 */
	void	(*aborted)(struct kt_cmd *cmd);
	/*
	 * Optional: the command, aborted by a TMF of its own session, may be
	 * waiting for write data; if so stop waiting and kt_cmd_fail() it.
	 * Called in the context that submitted the TMF.
	 */
	void	(*abort_data_out)(struct kt_cmd *cmd);

	/*
	 * How the core runs a command from kt_cmd_run() and
	 * kt_cmd_data_out_done() (submission), and from a backstore's end to
	 * queue_data_in() / queue_status() (completion), where the LU's
	 * attrib/submit_type or complete_type leaves it to the fabric:
	 * KT_HOP_DIRECT (0 means it too) or KT_HOP_QUEUED. A fabric whose
	 * context cannot take a direct call sets no_direct_*: direct is then
	 * queued. WWN/param/ shows all four, read-only, as LIO's does.
	 */
	u8	default_submit_type;
	u8	default_complete_type;
	bool	no_direct_submit;
	bool	no_direct_complete;
	/*
	 * No buffer for PI beside the data (kt_cmd_set_fabric_prot()): what
	 * RDPROTECT / WRPROTECT transfer is interleaved in the data, each
	 * logical block followed by its tuple, as SBC-4 lays it out (iSCSI)
	 */
	bool	pi_interleaved;

	/*
	 * --- configuration: the wwn and tpg hooks are required; without
	 * make_np the TPG has no portals (with it, drop_np is required);
	 * without alloc_acl / free_acl the core allocates a plain ACL ---
	 */

	struct kt_wwn	*(*make_wwn)(const char *name);
	void		(*drop_wwn)(struct kt_wwn *wwn);
	struct kt_tpg	*(*make_tpg)(struct kt_wwn *wwn, u16 tag);
	void		(*drop_tpg)(struct kt_tpg *tpg);
	/* enable/disable the TPG: start or stop its portals and sessions */
	int		(*tpg_enable)(struct kt_tpg *tpg, bool enable);
	/* np/NAME: a network portal */
	struct config_group *(*make_np)(struct kt_tpg *tpg, const char *name);
	void		(*drop_np)(struct kt_tpg *tpg, struct config_group *np);
	/* an ACL's fabric part: allocated by the fabric, embedding kt_node_acl */
	struct kt_node_acl *(*alloc_acl)(struct kt_tpg *tpg);
	void		(*free_acl)(struct kt_node_acl *acl);
	/* the ACL is being removed: close its sessions */
	void		(*close_acl_sessions)(struct kt_node_acl *acl);
	/*
	 * Optional, for a fabric whose initiator side is in this kernel
	 * (loopback), or that tells its initiator of LUN changes (vhost's
	 * hotplug events): lun/lun_N of @tpg now links a device, and commands
	 * reach it; lun/lun_N is about to be unlinked, and commands still
	 * reach it until this returns. Process context, no core lock held.
	 */
	void		(*lun_linked)(struct kt_tpg *tpg, u64 unpacked_lun);
	void		(*lun_unlinking)(struct kt_tpg *tpg, u64 unpacked_lun);

	/* configfs attributes of each level; NULL-terminated, may be NULL */
	struct configfs_attribute **fabric_attrs;
	struct configfs_attribute **wwn_attrs;
	struct configfs_attribute **tpg_attrs;
	struct configfs_attribute **tpg_attrib_attrs;
	struct configfs_attribute **tpg_param_attrs;
	struct configfs_attribute **tpg_auth_attrs;
	struct configfs_attribute **acl_attrs;
	struct configfs_attribute **acl_attrib_attrs;
	struct configfs_attribute **acl_auth_attrs;
	/* extra default groups of the fabric root (iSCSI: discovery_auth) */
	void	(*init_fabric_groups)(struct config_group *root);
};

int kt_fabric_register(const struct kt_fabric_ops *ops);
void kt_fabric_unregister(const struct kt_fabric_ops *ops);

/* a TPG's LUN, an ACL's mapped LUN: the core's (drivers/target/lun.h) */
struct kt_lun;
struct kt_mapped_lun;

/* target/NAME/WWN: embedded in the fabric's own target object. */
struct kt_wwn {
	struct config_group		group;
	struct config_group		param_group;	/* param/ */
	const struct kt_fabric_ops	*ops;
	char				name[KT_INITIATOR_NAME_LEN];
};

/* An initiator allowed into a TPG: acls/INITIATOR (or made on login). */
struct kt_node_acl {
	struct config_group	group;
	struct config_group	attrib_group;
	struct config_group	auth_group;
	struct kt_tpg		*tpg;
	char			name[KT_INITIATOR_NAME_LEN];
	bool			dynamic;	/* generate_node_acls: no mapped LUNs */
	u32			queue_depth;
	struct xarray		mapped;		/* mapped_lun -> kt_mapped_lun */
	struct list_head	node;		/* tpg->acls */
	struct kref		kref;
};

/* A target portal group: WWN/tpgt_N. Embedded in the fabric's TPG. */
struct kt_tpg {
	struct config_group	group;
	struct config_group	lun_group;
	struct config_group	acl_group;
	struct config_group	np_group;
	struct config_group	attrib_group;
	struct config_group	param_group;
	struct config_group	auth_group;
	const struct kt_fabric_ops *ops;
	struct kt_wwn		*wwn;
	u16			tag;
	bool			enabled;
	bool			generate_node_acls;	/* demo mode */
	bool			demo_write_protect;
	struct mutex		lock;		/* configuration changes */
	struct mutex		enable_lock;	/* one writer of enable at a time */
	struct xarray		luns;		/* unpacked_lun -> kt_lun (RCU) */
	struct list_head	acls;
	struct list_head	sessions;
	spinlock_t		session_lock;	/* sessions */
	atomic_t		lun_gen;	/* bumped when the LUN set changes */
};

/* A data buffer a session keeps for its next command (sgl_cache.c). */
#define KT_SGL_CACHE_SLOTS	8
#define KT_SGL_CACHE_MAX_PAGES	256	/* 1 MiB: larger ones are freed */

struct kt_sgl_slot {
	struct scatterlist	*sgl;
	unsigned int		cap;		/* pages */
};

/* An I_T nexus. Embedded in the fabric's session. */
struct kt_session {
	struct kt_tpg		*tpg;
	struct kt_node_acl	*acl;
	struct list_head	node;		/* tpg->sessions */
	struct list_head	all_node;	/* every session, all TPGs */
	spinlock_t		cmd_lock;	/* cmds */
	struct list_head	cmds;		/* commands in flight, for TMFs */
	/*
	 * the initiator port, as TransportIDs name it: the fabric fills it
	 * in before kt_session_register() (the nexus keys are made there)
	 */
	struct kt_pr_tid	tid;
	char			initiator[KT_INITIATOR_NAME_LEN];
	struct kt_xcopy_ids	*xcopy_ids;	/* held copy results (xcopy_rcr.c) */
	atomic_t		xcopy_running;	/* its copies running (xcopy.c) */
	struct kt_data_share	*data_share;	/* its initiator's (data_limit.c) */
	/*
	 * 0, or the protection type (1, 3) the fabric shows on LUs that
	 * keep no PI (its fabric_prot_type): set before kt_session_register()
	 */
	u8			prot_type;

	/* unit attentions (ua.c) */
	u64			nexus_key;	/* the initiator port */
	u64			nexus_name_key;	/* initiator name alone */
	u64			ua_base;	/* events before login don't apply */
	struct xarray		ua_seen;	/* dev index -> last event seen */
	spinlock_t		sgl_lock;	/* sgl_slot, sgl_nr */
	struct kt_sgl_slot	sgl_slot[KT_SGL_CACHE_SLOTS];
	unsigned int		sgl_nr;
	int			lun_gen_seen;	/* tpg->lun_gen last reported */
};

/* A task management request. Embedded in the fabric's request. */
struct kt_tmr {
	struct kt_session	*sess;
	enum kt_tmf		function;
	enum kt_tmf_rsp		response;
	u64			unpacked_lun;
	u64			ref_tag;	/* ABORT TASK: the task's tag */
	struct work_struct	work;
	atomic_t		pending;	/* aborted commands not yet over */
};

void kt_cmd_init(struct kt_cmd *cmd, const struct kt_fabric_ops *ops,
		 struct kt_session *sess, u64 tag, enum kt_data_dir dir,
		 u32 expected_len, enum kt_task_attr attr);
/*
 * Look up the LUN, decode the CDB, check lengths, allocate cmd->sgl.
 * On success the fabric may place immediate / unsolicited data in cmd->sgl
 * (setting cmd->data_received) and then calls kt_cmd_run(); on failure it
 * calls kt_cmd_fail() with the reason once it has read past the data.
 */
sense_reason_t kt_cmd_setup(struct kt_cmd *cmd, const u8 *cdb,
			    unsigned int cdb_len, u64 unpacked_lun);
/*
 * The command's data is in the fabric's own buffer (a SCSI host's
 * scatterlist, @nents entries of any length): call it between
 * kt_cmd_init() and kt_cmd_setup(). The core reads and writes the data
 * there, within what its entries hold, and never frees it; a step that
 * needs a buffer of its own allocates one beside it.
 */
void kt_cmd_set_fabric_sgl(struct kt_cmd *cmd, struct scatterlist *sgl,
			   unsigned int nents);
/*
 * The command carries T10 protection information in a buffer of the
 * fabric's beside the data (a SCSI host's DIX list: 8 bytes per logical
 * block, in order): call it between kt_cmd_init() and kt_cmd_setup().
 * Only then may its CDB set RDPROTECT or WRPROTECT on a LU with PI: a
 * write's tuples are checked as WRPROTECT says and kept, a read's are
 * checked as RDPROTECT says and placed there. Never freed here. @sgl NULL:
 * the fabric's side makes a write's PI and drops a read's (a SCSI host's
 * DIF without DIX, the midlayer's WRITE_INSERT / READ_STRIP), so the core
 * makes the tuples and checks them as the fields say, and moves none.
 */
void kt_cmd_set_fabric_prot(struct kt_cmd *cmd, struct scatterlist *sgl,
			    unsigned int nents);
/*
 * Once a read has completed: whether the core placed its tuples in the
 * fabric's PI list (RDPROTECT set, on a LU with PI or one its fabric shows
 * with PI); if not, the list holds what the fabric put there.
 */
static inline bool kt_cmd_prot_filled(const struct kt_cmd *cmd)
{
	return cmd->prot_sgl && (cmd->protect || cmd->pi_insert);
}

/* Instead of kt_cmd_setup(): the fabric refuses @cmd with @reason. */
sense_reason_t kt_cmd_refuse(struct kt_cmd *cmd, u64 unpacked_lun,
			     sense_reason_t reason);
/*
 * The command has been received whole, in the order of the fabric's
 * delivery: it enters its LU's task set, then asks for its Data-Out
 * (write_pending) or runs.
 */
void kt_cmd_run(struct kt_cmd *cmd);
/* The write data is all in cmd->sgl. */
void kt_cmd_data_out_done(struct kt_cmd *cmd);
/* Fail a command before or during data transfer. */
void kt_cmd_fail(struct kt_cmd *cmd, sense_reason_t reason);

/*
 * Run a task management function; the answer comes through the fabric's
 * queue_tm_rsp() once every command it aborted has ended. Call it from the
 * context that handles the session's write data (see abort_data_out).
 */
void kt_tmr_submit(struct kt_tmr *tmr);
/*
 * The nexus is gone (SAM-5 6.3.4; iSCSI: the session's last connection
 * closed, by a logout or not): what is left of its tasks is aborted and
 * ends without a response (ops->aborted). Process context; the session
 * must still be registered.
 */
void kt_session_nexus_loss(struct kt_session *sess);

/* Sessions */
struct kt_node_acl *kt_tpg_find_acl(struct kt_tpg *tpg, const char *initiator);
void kt_acl_put(struct kt_node_acl *acl);
int kt_session_register(struct kt_session *sess, struct kt_tpg *tpg,
			struct kt_node_acl *acl, const char *initiator);
void kt_session_unregister(struct kt_session *sess);
/*
 * The LUN number under which @sess addresses its TPG's LUN @tpg_lun: the
 * same without an ACL, the ACL's mapped LUN with one; false when @sess
 * has no way to it. Any context.
 */
bool kt_session_lun_number(struct kt_session *sess, u64 tpg_lun, u64 *seen);

static inline struct kt_tpg *kt_tpg_from_item(struct config_item *item)
{
	return container_of(to_config_group(item), struct kt_tpg, group);
}

/* a fabric's default_submit_type or default_complete_type: 0 is direct */
static inline u8 kt_fabric_hop_default(u8 type)
{
	return type == KT_HOP_QUEUED ? KT_HOP_QUEUED : KT_HOP_DIRECT;
}

#endif /* KTARGET_FABRIC_H */
