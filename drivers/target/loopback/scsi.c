// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_loop: the initiator side. Each I_T nexus has a Scsi_Host of its
 * own, a child of the module's pseudo device (/sys/devices/ktarget_loop),
 * with one target, the TPG's tag, whose LUNs are the TPG's.
 *
 * A command: queuecommand() hands the scsi_cmnd to a work item (the core
 * runs commands in process context; queuecommand may not sleep), which
 * gives the core its CDB, LUN, direction and the scsi_cmnd's own
 * scatterlist as the data buffer (and its PI list, DIX, as the PI's).
 * The core's answer (status, sense, residual) is copied into the
 * scsi_cmnd by queue_data_in/queue_status; scsi_done() waits for the
 * release of the last reference, since the core may touch the command
 * until then and it lives in the scsi_cmnd.
 *
 * Error handling: once the midlayer's error handler has a command (it
 * timed out), the scsi_cmnd is the handler's: the release does not call
 * scsi_done() then, but tells the handler, which may not return before,
 * or the command would be reused under the core. ABORT TASK serves
 * eh_abort_handler, LUN RESET eh_device_reset_handler, and a LUN RESET
 * of every LU of the target eh_target_reset_handler; each waits for the
 * commands it ended. The answers of the core's TMFs come from a work item.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/device.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/unaligned.h>
#include <linux/wait.h>
#include <scsi/scsi.h>
#include <scsi/scsi_cmnd.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_host.h>

#include <ktarget/proto/lun.h>

#include "loop.h"

/*
 * An I_T nexus and its initiator port: the private area of the Scsi_Host
 * made for it, freed with the host.
 */
struct kt_loop_nexus {
	struct kt_session	sess;
	struct kt_loop_tpg	*tpg;
	struct device		*gendev;	/* its host's (kt_loop_host()) */
	spinlock_t		lock;		/* its commands' busy, eh_owned */
	/* commands between queuecommand and their release */
	atomic_t		inflight;
	/*
	 * TMFs of the error handler under way: a reset asked for through
	 * SG_SCSI_RESET holds no command, and may come while the nexus goes,
	 * which stops new ones (dying) and waits for these.
	 */
	atomic_t		tmfs;
	bool			dying;
};

/* A SCSI command: the private area of its scsi_cmnd. */
struct kt_loop_cmd {
	struct kt_cmd		cmd;
	struct scsi_cmnd	*sc;
	struct kt_loop_nexus	*nexus;
	struct work_struct	work;
	bool			busy;		/* queued, not yet released */
	bool			eh_owned;	/* the error handler has it */
	bool			aborted;	/* ended by a TMF, unanswered */
};

/* the SCSI host whose private area @nx is */
#define kt_loop_host(nx) dev_to_shost((nx)->gendev)

/* the pseudo device every nexus's Scsi_Host hangs below */
static struct device *kt_loop_root;

/* A TMF the error handler waits for. */
struct kt_loop_tmr {
	struct kt_tmr		tmr;
	struct completion	done;
};

/* One whole READ or WRITE of 4 MiB, the core's longest (design.md) */
#define KT_LOOP_MAX_SECTORS	8192
#define KT_LOOP_CAN_QUEUE	1024
/* the Linux LUN of the core's last flat-space LUN, plus one */
#define KT_LOOP_MAX_LUN		(0x4000 + KT_LUN_FLAT_MAX + 1)

/* How long a wait goes before it says what it waits for, again and again */
#define KT_LOOP_WAIT_WARN	(30 * HZ)

/* The core's LUN number of a Linux LUN (the scsilun_to_int() form) */
static u64 kt_loop_unpack_lun(u64 lun)
{
	struct scsi_lun sl;

	int_to_scsilun(lun, &sl);
	return kt_lun_decode(get_unaligned_be64(sl.scsi_lun));
}

/* ... and back; false for a LUN no initiator can address */
static bool kt_loop_linux_lun(u64 unpacked, u64 *lun)
{
	struct scsi_lun sl;
	u64 field;

	if (!kt_lun_encode(unpacked, &field))
		return false;
	put_unaligned_be64(field, sl.scsi_lun);
	*lun = scsilun_to_int(&sl);
	return true;
}

/* The task tag: unique among the host's commands in flight */
static u64 kt_loop_tag(struct scsi_cmnd *sc)
{
	return blk_mq_unique_tag(scsi_cmd_to_rq(sc));
}

/* ---- commands ---- */

/*
 * @lc leaves the host: to the midlayer, or to its error handler when
 * that has it. Any context.
 */
static void kt_loop_cmd_end(struct kt_loop_cmd *lc)
{
	struct kt_loop_nexus *nx = lc->nexus;
	struct scsi_cmnd *sc = lc->sc;
	unsigned long flags;

	kt_obj_dec(&kt_loop_objs[KT_LOOP_OBJ_CMD]);
	/*
	 * Done under the lock: the error handler, which takes a command
	 * under it (kt_loop_eh_take()), sees it either still busy or
	 * already handed back, never in between. After scsi_done() the
	 * scsi_cmnd, and @lc in it, may be another command's.
	 */
	spin_lock_irqsave(&nx->lock, flags);
	WRITE_ONCE(lc->busy, false);
	if (!lc->eh_owned)
		scsi_done(sc);
	spin_unlock_irqrestore(&nx->lock, flags);
	/*
	 * The nexus may go as soon as the count reaches 0: the wake-up
	 * uses only its address.
	 */
	atomic_dec(&nx->inflight);
	/* the waiter's test and this wake-up's look at the queue, ordered */
	smp_mb__after_atomic();
	wake_up_var(&nx->inflight);
}

/* Whether the error handler has taken @lc (kt_loop_eh_take()) */
static bool kt_loop_eh_has(struct kt_loop_cmd *lc)
{
	bool owned;

	spin_lock_irq(&lc->nexus->lock);
	owned = lc->eh_owned;
	spin_unlock_irq(&lc->nexus->lock);
	return owned;
}

/*
 * The PI of a command to a LU with PI (the host offers DIF and DIX): the
 * sd driver's tuples beside the data, or none where the block layer made
 * none (integrity/write_generate 0, read_verify 0): then this host, the
 * target, makes and drops them.
 */
static void kt_loop_set_prot(struct kt_cmd *cmd, struct scsi_cmnd *sc)
{
	switch (scsi_get_prot_op(sc)) {
	case SCSI_PROT_READ_PASS:
	case SCSI_PROT_WRITE_PASS:
		kt_cmd_set_fabric_prot(cmd, scsi_prot_sglist(sc),
				       scsi_prot_sg_count(sc));
		break;
	case SCSI_PROT_READ_STRIP:
	case SCSI_PROT_WRITE_INSERT:
		kt_cmd_set_fabric_prot(cmd, NULL, 0);
		break;
	default:
		break;
	}
}

static void kt_loop_submit(struct work_struct *work)
{
	struct kt_loop_cmd *lc = container_of(work, struct kt_loop_cmd, work);
	struct scsi_cmnd *sc = lc->sc;
	struct kt_cmd *cmd = &lc->cmd;
	enum kt_data_dir dir = KT_DATA_NONE;
	unsigned int noio;
	sense_reason_t reason;

	/*
	 * Timed out before it reached the core: the error handler took it
	 * (its ABORT TASK found no such task), and it must not run after the
	 * reset that comes next.
	 */
	if (kt_loop_eh_has(lc)) {
		kt_loop_cmd_end(lc);
		return;
	}

	/*
	 * The disk may be what memory reclaim writes to: nothing the core
	 * allocates on the way in may wait for reclaim's I/O.
	 */
	noio = memalloc_noio_save();
	if (sc->sc_data_direction == DMA_TO_DEVICE)
		dir = KT_DATA_OUT;
	else if (sc->sc_data_direction == DMA_FROM_DEVICE)
		dir = KT_DATA_IN;
	kt_cmd_init(cmd, &kt_loop_ops, &lc->nexus->sess, kt_loop_tag(sc), dir,
		    scsi_bufflen(sc), KT_TASK_SIMPLE);
	if (scsi_sg_count(sc))
		kt_cmd_set_fabric_sgl(cmd, scsi_sglist(sc), scsi_sg_count(sc));
	kt_loop_set_prot(cmd, sc);
	/* the write data came with the command */
	if (dir == KT_DATA_OUT)
		cmd->data_received = scsi_bufflen(sc);

	reason = kt_cmd_setup(cmd, sc->cmnd, sc->cmd_len,
			      kt_loop_unpack_lun(sc->device->lun));
	/*
	 * ... or in the moment before the core knew it: a TMF sent since
	 * has not seen it, so it ends here.
	 */
	if (!reason && kt_loop_eh_has(lc))
		reason = KT_SENSE_ABORTED_COMMAND;
	if (reason)
		kt_cmd_fail(cmd, reason);
	else
		kt_cmd_run(cmd);
	memalloc_noio_restore(noio);
}

static int kt_loop_queuecommand(struct Scsi_Host *sh, struct scsi_cmnd *sc)
{
	struct kt_loop_nexus *nx = shost_priv(sh);
	struct kt_loop_cmd *lc = scsi_cmd_priv(sc);

	/* LIO: an offline port fails commands for the midlayer to retry */
	if (READ_ONCE(nx->tpg->offline)) {
		sc->result = DID_TRANSPORT_DISRUPTED << 16;
		scsi_done(sc);
		return 0;
	}
	lc->sc = sc;
	lc->nexus = nx;
	lc->aborted = false;
	WRITE_ONCE(lc->eh_owned, false);
	WRITE_ONCE(lc->busy, true);
	atomic_inc(&nx->inflight);
	kt_obj_inc(&kt_loop_objs[KT_LOOP_OBJ_CMD]);
	INIT_WORK(&lc->work, kt_loop_submit);
	queue_work(kt_loop_wq, &lc->work);
	return 0;
}

/* All its data is in the scsi_cmnd's pages already. */
void kt_loop_write_pending(struct kt_cmd *cmd)
{
	kt_cmd_data_out_done(cmd);
}

/* The answer, data-in or not: the data is in place already. */
void kt_loop_queue_status(struct kt_cmd *cmd)
{
	struct kt_loop_cmd *lc = container_of(cmd, struct kt_loop_cmd, cmd);
	struct scsi_cmnd *sc = lc->sc;

	sc->result = cmd->status;
	if (cmd->sense_len)
		memcpy(sc->sense_buffer, cmd->sense,
		       min_t(u32, cmd->sense_len, SCSI_SENSE_BUFFERSIZE));
	scsi_set_resid(sc, cmd->underflow ? cmd->residual : 0);
	kt_cmd_put(cmd);
}

/*
 * A TMF ended the command without an answer (SAM-5 7.2). The error
 * handler's own TMFs find it the handler's; one of another nexus (a
 * PREEMPT AND ABORT), or the loss of this one, would leave it to time
 * out: DID_RESET lets the midlayer retry it at once instead
 * (sd fails a command ended with DID_ABORT).
 */
void kt_loop_aborted(struct kt_cmd *cmd)
{
	struct kt_loop_cmd *lc = container_of(cmd, struct kt_loop_cmd, cmd);

	lc->aborted = true;
	kt_cmd_put(cmd);
}

/* The last reference: any context. */
void kt_loop_release_cmd(struct kt_cmd *cmd)
{
	struct kt_loop_cmd *lc = container_of(cmd, struct kt_loop_cmd, cmd);

	if (lc->aborted)
		lc->sc->result = DID_RESET << 16;
	kt_loop_cmd_end(lc);
}

/* ---- error handling ---- */

void kt_loop_queue_tm_rsp(struct kt_tmr *tmr)
{
	complete(&container_of(tmr, struct kt_loop_tmr, tmr)->done);
}

/* Run a TMF on @nx's nexus and wait for its answer. */
static enum kt_tmf_rsp kt_loop_tmf(struct kt_loop_nexus *nx,
				   enum kt_tmf function, u64 unpacked_lun,
				   u64 tag)
{
	enum kt_tmf_rsp rsp = KT_TMR_FAILED;
	struct kt_loop_tmr *t;

	atomic_inc(&nx->tmfs);
	/* pairs with kt_loop_nexus_drop(): it sees the count, or this the flag */
	smp_mb__after_atomic();
	if (READ_ONCE(nx->dying))
		goto out;
	t = kzalloc(sizeof(*t), GFP_NOIO);
	if (!t)
		goto out;
	t->tmr.sess = &nx->sess;
	t->tmr.function = function;
	t->tmr.unpacked_lun = unpacked_lun;
	t->tmr.ref_tag = tag;
	init_completion(&t->done);
	kt_tmr_submit(&t->tmr);
	wait_for_completion(&t->done);
	rsp = t->tmr.response;
	/* the core's work item touches nothing of it after the answer */
	kfree(t);
out:
	/* the host, and @nx in it, outlive every error handler's call */
	atomic_dec(&nx->tmfs);
	/* the count drops before the wake-up looks at the wait queue */
	smp_mb__after_atomic();
	wake_up_var(&nx->tmfs);
	return rsp;
}

/*
 * The error handler takes @sc: from now on its release only says so.
 * False when it has been released already (its answer was ignored: the
 * command had timed out).
 */
static bool kt_loop_eh_take(struct kt_loop_nexus *nx, struct scsi_cmnd *sc)
{
	struct kt_loop_cmd *lc = scsi_cmd_priv(sc);
	unsigned long flags;
	bool busy;

	spin_lock_irqsave(&nx->lock, flags);
	busy = lc->busy;
	if (busy)
		WRITE_ONCE(lc->eh_owned, true);
	spin_unlock_irqrestore(&nx->lock, flags);
	return busy;
}

struct kt_loop_busy {
	struct scsi_device	*sdev;		/* NULL: any */
	unsigned int		count;
};

static bool kt_loop_count_busy(struct scsi_cmnd *sc, void *arg)
{
	struct kt_loop_busy *b = arg;
	struct kt_loop_cmd *lc = scsi_cmd_priv(sc);

	if (b->sdev && sc->device != b->sdev)
		return true;
	if (READ_ONCE(lc->busy))
		b->count++;
	return true;
}

/* Commands of @sdev (NULL: of the host) not yet released */
static unsigned int kt_loop_busy(struct kt_loop_nexus *nx,
				 struct scsi_device *sdev)
{
	struct kt_loop_busy b = { .sdev = sdev };

	scsi_host_busy_iter(kt_loop_host(nx), kt_loop_count_busy, &b);
	return b.count;
}

/*
 * Take the commands of @sdev (NULL: of the host) that timed out and that
 * the core still has for the error handler. A reset asked for through
 * SG_SCSI_RESET finds others in flight too: those stay the midlayer's,
 * answered as usual (DID_ABORT if the reset ends them).
 */
static bool kt_loop_eh_take_one(struct scsi_cmnd *sc, void *arg)
{
	struct kt_loop_busy *b = arg;

	if ((!b->sdev || sc->device == b->sdev) &&
	    test_bit(SCMD_STATE_COMPLETE, &sc->state))
		kt_loop_eh_take(shost_priv(sc->device->host), sc);
	return true;
}

/* Wait until the commands of @sdev (NULL: all) have been released. */
static void kt_loop_eh_wait(struct kt_loop_nexus *nx, struct scsi_device *sdev)
{
	while (!wait_var_event_timeout(&nx->inflight, !kt_loop_busy(nx, sdev),
				       KT_LOOP_WAIT_WARN))
		pr_warn("host%u: the error handler still waits for %u command(s) in the target\n",
			kt_loop_host(nx)->host_no, kt_loop_busy(nx, sdev));
}

static int kt_loop_eh_abort(struct scsi_cmnd *sc)
{
	struct kt_loop_nexus *nx = shost_priv(sc->device->host);
	struct kt_loop_cmd *lc = scsi_cmd_priv(sc);
	enum kt_tmf_rsp rsp;

	if (!kt_loop_eh_take(nx, sc))
		return SUCCESS;
	rsp = kt_loop_tmf(nx, KT_TMF_ABORT_TASK,
			  kt_loop_unpack_lun(sc->device->lun), kt_loop_tag(sc));
	/* not found: not yet set up, or ending; a LUN RESET comes next */
	if (rsp != KT_TMR_COMPLETE)
		return READ_ONCE(lc->busy) ? FAILED : SUCCESS;
	while (!wait_var_event_timeout(&nx->inflight, !READ_ONCE(lc->busy),
				       KT_LOOP_WAIT_WARN))
		pr_warn("host%u: an aborted command has not ended yet\n",
			kt_loop_host(nx)->host_no);
	return SUCCESS;
}

/*
 * LUN RESET of @sdev. For the error handler (@eh), its commands are over
 * when it returns. A reset asked for through SG_SCSI_RESET ends commands
 * that stay the midlayer's, answered as usual: it neither takes nor
 * waits for any, and so never walks the host's commands, which may be
 * going with the host meanwhile.
 */
static void kt_loop_lun_reset(struct kt_loop_nexus *nx,
			      struct scsi_device *sdev, bool eh)
{
	struct kt_loop_busy b = { .sdev = sdev };
	enum kt_tmf_rsp rsp;

	if (eh)
		scsi_host_busy_iter(kt_loop_host(nx), kt_loop_eh_take_one, &b);
	rsp = kt_loop_tmf(nx, KT_TMF_LUN_RESET, kt_loop_unpack_lun(sdev->lun),
			  0);
	/*
	 * Whatever the answer (a LUN unlinked meanwhile has none), the
	 * commands must have left the core before the handler goes on.
	 */
	if (eh)
		kt_loop_eh_wait(nx, sdev);
	if (rsp != KT_TMR_COMPLETE)
		sdev_printk(KERN_INFO, sdev, "LUN RESET answered %d\n", rsp);
}

static bool kt_loop_eh_call(struct scsi_cmnd *sc)
{
	return sc->submitter != SUBMITTED_BY_SCSI_RESET_IOCTL;
}

static int kt_loop_eh_device_reset(struct scsi_cmnd *sc)
{
	kt_loop_lun_reset(shost_priv(sc->device->host), sc->device,
			  kt_loop_eh_call(sc));
	return SUCCESS;
}

/*
 * A LUN RESET of every LU; also what a host reset does (the midlayer
 * goes straight there once the host's eh_deadline has passed).
 */
static int kt_loop_eh_target_reset(struct scsi_cmnd *sc)
{
	struct kt_loop_nexus *nx = shost_priv(sc->device->host);
	bool eh = kt_loop_eh_call(sc);
	struct scsi_device *sdev;

	shost_for_each_device(sdev, kt_loop_host(nx))
		kt_loop_lun_reset(nx, sdev, eh);
	if (eh)
		kt_loop_eh_wait(nx, NULL);
	return SUCCESS;
}

static struct scsi_host_template kt_loop_sht = {
	.module			= THIS_MODULE,
	.name			= "ktarget loopback",
	.proc_name		= "ktarget_loop",
	.queuecommand		= kt_loop_queuecommand,
	.eh_abort_handler	= kt_loop_eh_abort,
	.eh_device_reset_handler = kt_loop_eh_device_reset,
	.eh_target_reset_handler = kt_loop_eh_target_reset,
	.eh_host_reset_handler	= kt_loop_eh_target_reset,
	.can_queue		= KT_LOOP_CAN_QUEUE,
	.cmd_per_lun		= KT_LOOP_CAN_QUEUE,
	.this_id		= -1,
	.sg_tablesize		= KT_LOOP_MAX_SECTORS / (PAGE_SIZE >> 9),
	.sg_prot_tablesize	= KT_LOOP_MAX_SECTORS / (PAGE_SIZE >> 9),
	.max_sectors		= KT_LOOP_MAX_SECTORS,
	.cmd_size		= sizeof(struct kt_loop_cmd),
	.track_queue_depth	= 1,
};

/* ---- the nexus ---- */

/*
 * Make the I_T nexus of @initiator to @tpg and its Scsi_Host, and scan
 * the TPG's LUNs. An ACL of that name maps the LUNs it has; without one
 * the nexus sees every LUN of the TPG (LIO's loopback runs in demo mode).
 */
int kt_loop_nexus_make(struct kt_loop_tpg *tpg, const char *initiator)
{
	struct kt_node_acl *acl;
	struct kt_loop_nexus *nx;
	struct Scsi_Host *sh;
	int ret;

	lockdep_assert_held(&tpg->nexus_lock);
	sh = scsi_host_alloc(&kt_loop_sht, sizeof(*nx));
	if (!sh)
		return -ENOMEM;
	nx = shost_priv(sh);
	nx->gendev = &sh->shost_gendev;
	nx->tpg = tpg;
	spin_lock_init(&nx->lock);
	atomic_set(&nx->inflight, 0);
	atomic_set(&nx->tmfs, 0);
	sh->max_channel = 0;
	sh->max_id = tpg->tpg.tag + 1;
	sh->max_lun = KT_LOOP_MAX_LUN;
	sh->max_cmd_len = KT_CDB_INLINE;
	/*
	 * A target with no LUN 0 yet is taken for SCSI-2 when a LUN is
	 * added, and the midlayer would put the LUN in CDB byte 1, whose
	 * bits the core refuses as reserved (INQUIRY: INVALID FIELD IN CDB).
	 */
	sh->no_scsi2_lun_in_cdb = 1;
	/*
	 * T10-PI travels beside the data (DIX) to and from a LU with PI of
	 * type 1 or 3, and the target checks it (DIF): the sd driver then
	 * makes and checks the tuples (CRC guards) of every block it moves.
	 */
	scsi_host_set_prot(sh, SHOST_DIF_TYPE1_PROTECTION |
			   SHOST_DIF_TYPE3_PROTECTION |
			   SHOST_DIX_TYPE1_PROTECTION |
			   SHOST_DIX_TYPE3_PROTECTION);
	scsi_host_set_guard(sh, SHOST_DIX_GUARD_CRC);

	nx->sess.prot_type = READ_ONCE(tpg->fabric_prot_type);
	nx->sess.tid.proto = KT_LOOP_PROTO_SAS;
	strscpy(nx->sess.tid.name, initiator, sizeof(nx->sess.tid.name));
	acl = kt_tpg_find_acl(&tpg->tpg, initiator);
	ret = kt_session_register(&nx->sess, &tpg->tpg, acl, initiator);
	if (ret) {
		if (acl)
			kt_acl_put(acl);
		goto out_put;
	}
	ret = scsi_add_host(sh, kt_loop_root);
	if (ret)
		goto out_unregister;
	tpg->nexus = nx;
	kt_obj_inc(&kt_loop_objs[KT_LOOP_OBJ_NEXUS]);
	scsi_scan_target(&sh->shost_gendev, 0, tpg->tpg.tag, SCAN_WILD_CARD,
			 SCSI_SCAN_INITIAL);
	return 0;

out_unregister:
	kt_session_unregister(&nx->sess);
out_put:
	scsi_host_put(sh);
	return ret;
}

/*
 * Remove the nexus: its disks go first (the midlayer fails what is sent
 * to them from then on and waits for what the core has), then the
 * session.
 */
void kt_loop_nexus_drop(struct kt_loop_tpg *tpg)
{
	struct kt_loop_nexus *nx = tpg->nexus;
	struct Scsi_Host *sh = kt_loop_host(nx);

	lockdep_assert_held(&tpg->nexus_lock);
	scsi_remove_host(sh);
	while (!wait_var_event_timeout(&nx->inflight, !atomic_read(&nx->inflight),
				       KT_LOOP_WAIT_WARN))
		pr_warn("host%u: removing the nexus waits for %d command(s) in the target\n",
			sh->host_no, atomic_read(&nx->inflight));
	/* a reset through sg may still be on its way to the session */
	WRITE_ONCE(nx->dying, true);
	/* pairs with kt_loop_tmf()'s: it sees the flag, or this its count */
	smp_mb();
	while (!wait_var_event_timeout(&nx->tmfs, !atomic_read(&nx->tmfs),
				       KT_LOOP_WAIT_WARN))
		pr_warn("host%u: removing the nexus waits for a reset in the target\n",
			sh->host_no);
	/* nothing is left of its tasks; the core hears of the loss all the same */
	kt_session_nexus_loss(&nx->sess);
	kt_session_unregister(&nx->sess);
	tpg->nexus = NULL;
	kt_obj_dec(&kt_loop_objs[KT_LOOP_OBJ_NEXUS]);
	scsi_host_put(sh);
}

/* The Scsi_Host number of @tpg's nexus, or -1 without one */
int kt_loop_host_no(struct kt_loop_tpg *tpg)
{
	lockdep_assert_held(&tpg->nexus_lock);
	return tpg->nexus ? kt_loop_host(tpg->nexus)->host_no : -1;
}

/* The initiator port name of @tpg's nexus, or NULL without one */
const char *kt_loop_initiator(struct kt_loop_tpg *tpg)
{
	lockdep_assert_held(&tpg->nexus_lock);
	return tpg->nexus ? tpg->nexus->sess.initiator : NULL;
}

/*
 * The Linux LUN under which @tpg's nexus sees the TPG's LUN @unpacked_lun:
 * an ACL of the nexus's initiator may map it under another number, or not
 * at all (a LUN an ACL maps later shows after a rescan of the host, as
 * with LIO's). Under nexus_lock.
 */
static bool kt_loop_nexus_lun(struct kt_loop_tpg *tpg, u64 unpacked_lun,
			      u64 *lun)
{
	u64 seen;

	lockdep_assert_held(&tpg->nexus_lock);
	return tpg->nexus &&
	       kt_session_lun_number(&tpg->nexus->sess, unpacked_lun, &seen) &&
	       kt_loop_linux_lun(seen, lun);
}

/* A LUN linked while a nexus exists: its disk appears. */
void kt_loop_lun_linked(struct kt_tpg *se_tpg, u64 unpacked_lun)
{
	struct kt_loop_tpg *tpg = to_loop_tpg(se_tpg);
	struct Scsi_Host *sh;
	u64 lun;
	int ret;

	mutex_lock(&tpg->nexus_lock);
	if (kt_loop_nexus_lun(tpg, unpacked_lun, &lun)) {
		sh = kt_loop_host(tpg->nexus);
		ret = scsi_add_device(sh, 0, se_tpg->tag, lun);
		if (ret)
			pr_warn("host%u: LUN %llu did not come up: %d\n",
				sh->host_no, unpacked_lun, ret);
	}
	mutex_unlock(&tpg->nexus_lock);
}

/*
 * A LUN about to be unlinked: its disk goes while the LU still answers
 * (the cache flush on the way out, the commands in flight).
 */
void kt_loop_lun_unlinking(struct kt_tpg *se_tpg, u64 unpacked_lun)
{
	struct kt_loop_tpg *tpg = to_loop_tpg(se_tpg);
	struct scsi_device *sdev;
	u64 lun;

	mutex_lock(&tpg->nexus_lock);
	if (kt_loop_nexus_lun(tpg, unpacked_lun, &lun)) {
		sdev = scsi_device_lookup(kt_loop_host(tpg->nexus), 0,
					  se_tpg->tag, lun);
		if (sdev) {
			scsi_remove_device(sdev);
			scsi_device_put(sdev);
		}
	}
	mutex_unlock(&tpg->nexus_lock);
}

int kt_loop_scsi_init(void)
{
	kt_loop_root = root_device_register("ktarget_loop");
	return PTR_ERR_OR_ZERO(kt_loop_root);
}

void kt_loop_scsi_exit(void)
{
	root_device_unregister(kt_loop_root);
}
