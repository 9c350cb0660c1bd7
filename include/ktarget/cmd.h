/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One SCSI command, as the core, its fabric and its backstore share it.
 * A fabric embeds it in its own command (fabric.h has the calls that
 * bring it in); a backstore sees it through rw() and flush() (backend.h)
 * and touches only the data buffer, the LBA range and its own cmd->be.
 */
#ifndef KTARGET_CMD_H
#define KTARGET_CMD_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/scatterlist.h>
#include <linux/types.h>
#include <linux/llist.h>
#include <linux/workqueue.h>

#include <ktarget/proto/sense.h>

struct kt_cdb_desc;
struct kt_dev;
struct kt_fabric_ops;
struct kt_lun;
struct kt_sbc_ws_pi;
struct kt_session;
struct kt_tmr;

#define KT_CDB_INLINE		32	/* longer CDBs are refused */

enum kt_data_dir {
	KT_DATA_NONE,
	KT_DATA_IN,		/* target to initiator (READ) */
	KT_DATA_OUT,		/* initiator to target (WRITE) */
};

/* SAM-5 8.6: task attributes */
enum kt_task_attr {
	KT_TASK_SIMPLE,
	KT_TASK_ORDERED,
	KT_TASK_HEAD_OF_QUEUE,
	KT_TASK_ACA,
};

/* One SCSI command. Embedded in the fabric's command. */
struct kt_cmd {
	const struct kt_fabric_ops *ops;
	struct kt_session	*sess;
	struct kt_lun		*lun;		/* referenced while set */
	struct kt_dev		*dev;
	struct kref		kref;
	struct list_head	sess_node;
	struct work_struct	work;
	/* cluster mode: runs it where it may wait (kt_cluster_defer()) */
	struct work_struct	defer_work;
	/* submit_type or complete_type 2: the workqueue hop (cmd_hop.c) */
	struct work_struct	hop_work;
	sense_reason_t		hop_reason;
	struct llist_node	loading_node;	/* waits for its LU's load */
	/* aborted by a TMF: its request, and whether TAS answers it */
	struct kt_tmr		*abort_tmr;
	struct list_head	abort_node;
	bool			abort_tas;

	u8			cdb[KT_CDB_INLINE];
	u64			tag;		/* fabric's task tag (ITT) */
	u64			unpacked_lun;
	enum kt_task_attr	task_attr;
	unsigned int		ts_state;	/* in the task set: KT_TS_* */
	bool			ts_ready;	/* held, and its data is in */
	struct list_head	ts_node;	/* task_set.held */
	enum kt_data_dir	dir;		/* as the initiator declared it */
	u32			expected_len;	/* initiator's expected transfer length */
	u32			data_length;	/* what the command moves */
	u32			data_received;	/* write data already in sgl */
	u32			residual;
	bool			overflow;	/* residual is an overflow */
	bool			underflow;
	bool			write_protected;

	/* decoded by the core */
	u64			lba;
	u32			nr_blocks;
	u8			cdb_flags;
	u8			cdb_len;	/* a passthrough command's */
	/*
	 * A command that changes blocks: tokens made while it is under way
	 * are revoked when it completes (kt_rod_write_end()). @rod_watch:
	 * 0 none, 1 its LBA range, 2 the whole LU.
	 */
	u8			rod_watch;
	s64			rod_made;
	/* what the core knows of the command, once kt_cmd_setup() took it */
	const struct kt_cdb_desc *desc;
	/*
	 * Runs the command once its data is in. Whatever happens, it ends
	 * in exactly one kt_cmd_complete() (or kt_cmd_complete_data()), now
	 * or from the context a backstore or a work item finishes in.
	 */
	void			(*execute)(struct kt_cmd *cmd);

	/*
	 * The backstore's own, while its rw() or flush() of the command
	 * runs: one of these, by how it does the I/O.
	 */
	union {
		/* bios in flight, and the outcome of a failed one */
		struct {
			atomic_t	pending;
			sense_reason_t	reason;
			u32		len;
			bool		write;
			/* whole pages the data went through, or NULL */
			struct scatterlist *bounce;
			unsigned int	bounce_nents;
		} bio;
		/* I/O run from a work item */
		struct {
			struct work_struct work;
			u64		pos;
			u32		len;
			bool		write;
			bool		fua;
		} wq;
	} be;
	/*
	 * the backstore may keep the pages of cmd->sgl, which the core
	 * allocated, and put its own in their place: a WRITE whose buffer
	 * nothing reads after it
	 */
	bool			be_take_pages;
	/*
	 * WRITE ATOMIC: the write reaches the storage whole or not at all
	 * (a backstore that sets attrib.atomic_max_len gets it; one bio
	 * with REQ_ATOMIC on iblock)
	 */
	bool			be_atomic;
	/*
	 * Commands of several backstore steps (WRITE SAME, VERIFY, the
	 * read-modify-writes, the copy's and SANITIZE's own I/O): the step
	 * kt_be_done() goes on to when the backstore's call ends, instead
	 * of completing the command, and the core's own buffer for the steps.
	 */
	void			(*be_done)(struct kt_cmd *cmd, sense_reason_t r);
	struct scatterlist	*aux_sgl;
	unsigned int		aux_nents;
	u64			loop_pos;
	u64			loop_end;
	atomic_t		loop_state;
	sense_reason_t		loop_reason;
	bool			loop_read;	/* the loop reads (VERIFY) */
	/* WRITE SAME with WRPROTECT: the tuples its chunks carry (prot_sgl) */
	struct kt_sbc_ws_pi	*loop_pi;

	struct scatterlist	*sgl;
	unsigned int		sg_nents;
	bool			sgl_owned;	/* the core allocated sgl */
	/* the fabric's buffer (kt_cmd_set_fabric_sgl()), never freed here */
	struct scatterlist	*fabric_sgl;
	/*
	 * T10-PI that travels beside the data (DIX: kt_cmd_set_fabric_prot()),
	 * 8 bytes per logical block in order, the fabric's buffer; and the
	 * CDB's RDPROTECT / WRPROTECT / VRPROTECT, which say what the device
	 * server checks (proto/pi.h, kt_pi_protect_checks())
	 */
	struct scatterlist	*prot_sgl;
	unsigned int		prot_nents;
	u32			prot_len;
	bool			prot_by_fabric;	/* it makes and drops the PI */
	u8			protect;
	/*
	 * the fabric's buffer, PI interleaved with the data, while the
	 * core's own lists stand in for it (pi_wire.c)
	 */
	struct scatterlist	*pi_wire_sgl;
	unsigned int		pi_wire_nents;
	unsigned int		pi_wire_pages;	/* charged (data_limit.c) */
	bool			pi_interleaved;	/* the CDB's PI travels so */
	bool			pi_insert;	/* the core makes a read's PI */
	/*
	 * the core builds the data-in itself (SPC emulation): its buffer is
	 * allocated at completion for the answer, not for ALLOCATION LENGTH
	 */
	bool			data_in_built;
	bool			data_in_done;	/* ... and it has been built */
	/* the buffer the core gave the command, from its session's cache */
	struct scatterlist	*data_sgl;
	unsigned int		data_cap;	/* its pages */

	/* outcome */
	u8			status;		/* SAM status */
	sense_reason_t		sense_reason;
	u16			sense_asc_ascq;
	struct kt_sense_field	sense_field;
	u64			sense_info;
	bool			sense_info_valid;
	/* EXTENDED COPY: ASC/ASCQ exactly as given, and the failed segment */
	bool			sense_asc_exact;
	bool			sense_csi_valid;
	u32			sense_csi;
	u8			sense[KT_SENSE_MAX_LEN];
	u8			sense_len;

	unsigned long		flags;		/* KT_CMD_* bits */
	/* the format generation its checks saw (the core's be_io.c); 0: none */
	u32			fmt_gen;
	unsigned long		start;		/* jiffies at kt_cmd_init() */
};

#define KT_CMD_ABORTED		0	/* a TMF aborted it */
#define KT_CMD_COMPLETE		1	/* the response has been queued */
/* cluster mode: it came while its LU's reservations were reloading */
#define KT_CMD_LOADING		2
/* clustered LU: kt_cmd_execute() has begun, so unless aborted first it may reach the disk */
#define KT_CMD_EXECUTING	3
/* a passthrough backstore gave the status and sense (kt_be_cdb_done()) */
#define KT_CMD_OWN_STATUS	4
/* its data-in goes before a CHECK CONDITION (kt_cmd_set_data_in_valid()) */
#define KT_CMD_DATA_WITH_SENSE	5
/* it is in its device's backstore gate, until kt_be_done() (be_io.c) */
#define KT_CMD_BE_IO		6

void kt_cmd_get(struct kt_cmd *cmd);
void kt_cmd_put(struct kt_cmd *cmd);

/* The command's outcome; backstores and emulation end every command here. */
void kt_cmd_complete(struct kt_cmd *cmd, sense_reason_t reason);
void kt_cmd_set_data_in_len(struct kt_cmd *cmd, u32 len);
void kt_cmd_set_data_in_valid(struct kt_cmd *cmd, u32 len);

#endif /* KTARGET_CMD_H */
