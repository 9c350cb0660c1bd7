/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_loop: the loopback fabric, as LIO's tcm_loop is. Its initiator
 * side is this kernel's SCSI midlayer: writing an initiator name to a
 * TPG's nexus attribute makes an I_T nexus and a Scsi_Host for it, whose
 * disks are the TPG's LUNs. This folder knows the core only through
 * <ktarget/fabric.h> and <ktarget/cmd.h>:
 *
 *	main.c		module init and exit, the fabric's ops table
 *	scsi.c		the Scsi_Host: commands in, responses and TMFs out
 *	configfs.c	target/loopback/naa.X/tpgt_N/{nexus, transport_status,
 *			address, attrib/}, and the LUN hooks
 */
#ifndef KTARGET_LOOPBACK_LOOP_H
#define KTARGET_LOOPBACK_LOOP_H

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

#include <ktarget/cmd.h>
#include <ktarget/fabric.h>
#include <ktarget/objects.h>

struct kt_loop_nexus;		/* scsi.c's */

#define KT_LOOP_PROTO_SAS	6	/* SPC-4 7.6.1: naa. WWNs are SAS ports */

/* target/loopback/naa.X */
struct kt_loop_tport {
	struct kt_wwn		wwn;
};

/* naa.X/tpgt_N: one target of the emulated SAS port */
struct kt_loop_tpg {
	struct kt_tpg		tpg;
	/* nexus creation and removal, and the scans of its LUNs */
	struct mutex		nexus_lock;
	struct kt_loop_nexus	*nexus;		/* under nexus_lock */
	bool			offline;	/* transport_status */
	/* attrib/fabric_prot_type, which a nexus takes when it is made */
	u8			fabric_prot_type;
};

enum {
	KT_LOOP_OBJ_NEXUS,
	KT_LOOP_OBJ_CMD,
	KT_LOOP_OBJ_NR,
};

extern struct kt_obj_count kt_loop_objs[KT_LOOP_OBJ_NR];
extern const struct kt_fabric_ops kt_loop_ops;
extern struct workqueue_struct *kt_loop_wq;

static inline struct kt_loop_tpg *to_loop_tpg(struct kt_tpg *tpg)
{
	return container_of(tpg, struct kt_loop_tpg, tpg);
}

/* scsi.c */
int kt_loop_scsi_init(void);
void kt_loop_scsi_exit(void);
int kt_loop_nexus_make(struct kt_loop_tpg *tpg, const char *initiator);
void kt_loop_nexus_drop(struct kt_loop_tpg *tpg);
int kt_loop_host_no(struct kt_loop_tpg *tpg);
const char *kt_loop_initiator(struct kt_loop_tpg *tpg);
void kt_loop_lun_linked(struct kt_tpg *tpg, u64 unpacked_lun);
void kt_loop_lun_unlinking(struct kt_tpg *tpg, u64 unpacked_lun);
void kt_loop_write_pending(struct kt_cmd *cmd);
void kt_loop_queue_status(struct kt_cmd *cmd);
void kt_loop_queue_tm_rsp(struct kt_tmr *tmr);
void kt_loop_release_cmd(struct kt_cmd *cmd);
void kt_loop_aborted(struct kt_cmd *cmd);

/* configfs.c */
struct kt_wwn *kt_loop_make_wwn(const char *name);
void kt_loop_drop_wwn(struct kt_wwn *wwn);
struct kt_tpg *kt_loop_make_tpg(struct kt_wwn *wwn, u16 tag);
void kt_loop_drop_tpg(struct kt_tpg *tpg);
extern struct configfs_attribute *kt_loop_root_attrs[];
extern struct configfs_attribute *kt_loop_tpg_attrs[];
extern struct configfs_attribute *kt_loop_tpg_attrib_attrs[];

#endif /* KTARGET_LOOPBACK_LOOP_H */
