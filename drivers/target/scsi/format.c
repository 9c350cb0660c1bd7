// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: FORMAT UNIT (SBC-4 5.3) of an emulated LU, which has no
 * medium to lay out: what a format changes is the LU's T10-PI type
 * (FMTPINFO with PROTECTION FIELD USAGE, SBC-4 5.3.2), as sg_format
 * --fmtpinfo asks. Type 1 (10b/000b) and type 3 (11b/001b) on a backstore
 * that keeps PI (fileio, rd), none (00b/000b) there too; type 2 and the
 * rest are refused. The data stays; every block's PI reads FFh (no check)
 * until it is written, as after attrib/pi_prot_format. A backstore that
 * keeps no PI of its own (iblock, whose disk may keep it) takes only the
 * type it has, and has nothing to format: GOOD at once, as for a LU
 * without PI asked for none.
 *
 * The format takes the LU's one long operation, SANITIZE's (sanitize.c):
 * while it runs, every command but INQUIRY, REPORT LUNS and REQUEST SENSE
 * ends with NOT READY, FORMAT IN PROGRESS, and with IMMED the command is
 * GOOD as soon as it has started. Its work item changes the backstore's
 * PI storage (init_prot / format_prot / free_prot) only while the
 * device's backstore gate is closed (be_io.c): no data op of the device,
 * a command's or the copy engine's, is under way then, and none starts.
 * Commands checked against the old type do not run after it either (the
 * format generation, be_io.c): they end with FORMAT IN PROGRESS, which an
 * initiator retries. Afterwards attrib/pi_prot_type (and pi_prot_verify, as a
 * configfs write sets it) say the new type, so a saved configuration
 * keeps it, and every other I_T nexus hears of the change: CAPACITY DATA
 * HAS CHANGED for READ CAPACITY (16)'s PROT_EN and P_TYPE, INQUIRY DATA
 * HAS CHANGED for the PROTECT bit and the Extended INQUIRY page.
 *
 * A format that fails, or that a LUN reset, ABORT TASK of the FORMAT UNIT
 * or the removal of its LUN stops (a fileio backstore asks
 * kt_format_stopping() between chunks of its protection file), leaves the
 * LU in format failure: TEST UNIT READY and the commands that reach the
 * medium end with MEDIUM ERROR, FORMAT COMMAND FAILED or (stopped) MEDIUM
 * FORMAT CORRUPTED, REQUEST SENSE says so, until a format works (SBC-4
 * 5.3.1; kt_sanitize_check()). So an initiator that sent it with IMMED, and got
 * GOOD before the work began, learns of it on its next command.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/scatterlist.h>
#include <linux/workqueue.h>

#include <ktarget/backend.h>
#include <ktarget/fabric.h>
#include <ktarget/proto/cdb.h>
#include <ktarget/proto/spc.h>

#include "cmdsets.h"
#include "core.h"

struct kt_format_op {
	struct work_struct	work;
	struct kt_dev		*dev;
	struct kt_lun		*lun;		/* referenced */
	struct kt_cmd		*cmd;		/* the FORMAT UNIT, until it ends */
	u64			nexus;		/* ... its I_T nexus: no UA there */
	u16			port;
	u8			type;		/* the protection type asked for */
};

/*
 * A LUN reset (tmr.c), or the removal of @lun (NULL: any) of the device
 * (configfs/fabric.c): a running format stops at its next chunk.
 */
void kt_format_stop(struct kt_dev *dev, const struct kt_lun *lun)
{
	struct kt_sanitize *s = &dev->state->sanitize;

	if (atomic_read(&s->state) != KT_SANITIZE_FORMATTING)
		return;
	if (lun && READ_ONCE(s->fmt_lun) != lun)
		return;
	WRITE_ONCE(s->fmt_stop, true);
}

/*
 * For a backstore's format_prot / init_prot, from the format's work
 * between chunks: stop now. False outside a format. The LUN it came
 * through going counts too, whenever its removal began: a removal that
 * found no format running yet (the FORMAT UNIT still held, or between
 * taking the slot and naming its LUN) waits for this one's reference.
 */
bool kt_format_stopping(struct kt_dev *dev)
{
	struct kt_sanitize *s = &dev->state->sanitize;
	struct kt_lun *lun;

	if (atomic_read(&s->state) != KT_SANITIZE_FORMATTING)
		return false;
	lun = (struct kt_lun *)READ_ONCE(s->fmt_lun);
	return READ_ONCE(s->fmt_stop) ||
	       (lun && percpu_ref_is_dying(&lun->ref)) ||
	       (s->fmt_cmd && test_bit(KT_CMD_ABORTED, &s->fmt_cmd->flags));
}
EXPORT_SYMBOL_GPL(kt_format_stopping);

/* The PI storage from type @old to @type; under dev->cfg_lock */
static int kt_format_prot(struct kt_dev *dev, u8 old, u8 type)
{
	int ret;

	lockdep_assert_held(&dev->cfg_lock);
	/* kt_format_type_ok() let none through that needs what is missing */
	if (WARN_ON_ONCE(!dev->ops->init_prot || !dev->ops->free_prot ||
			 !dev->ops->format_prot))
		return -EOPNOTSUPP;
	if (kt_format_stopping(dev))
		return -EINTR;
	if (!type) {
		dev->ops->free_prot(dev);
		return 0;
	}
	/* init_prot keeps the PI a protection file of LIO's holds: format */
	if (!old) {
		ret = dev->ops->init_prot(dev);
		if (ret)
			return ret;
	}
	ret = dev->ops->format_prot(dev);
	if (ret && !old)
		dev->ops->free_prot(dev);
	return ret;
}

static void kt_format_work(struct work_struct *work)
{
	struct kt_format_op *op = container_of(work, struct kt_format_op, work);
	struct kt_dev *dev = op->dev;
	struct kt_sanitize *s = &dev->state->sanitize;
	unsigned int noio = memalloc_noio_save();
	sense_reason_t reason = KT_SENSE_NONE;
	u8 old;
	int ret;

	/* no data op of the device from here until it is open again */
	kt_be_io_close(dev);
	mutex_lock(&dev->cfg_lock);
	old = dev->attrib.pi_prot_type;
	ret = kt_format_prot(dev, old, op->type);
	if (!ret) {
		WRITE_ONCE(dev->attrib.pi_prot_type, op->type);
		dev->attrib.pi_prot_verify = !!op->type;
	}
	/* whatever came of it, what was checked before runs no more */
	kt_be_io_new_gen(dev);
	mutex_unlock(&dev->cfg_lock);
	kt_be_io_open(dev);

	if (ret == -EINTR) {
		pr_warn_ratelimited("device %u: FORMAT UNIT to protection type %u stopped (a LUN reset, an abort or its LUN removed): MEDIUM FORMAT CORRUPTED until a format works\n",
				    dev->index, op->type);
		reason = KT_SENSE_FORMAT_CORRUPTED;
	} else if (ret) {
		pr_warn_ratelimited("device %u: FORMAT UNIT to protection type %u failed (%pe): FORMAT COMMAND FAILED until a format works\n",
				    dev->index, op->type, ERR_PTR(ret));
		reason = KT_SENSE_FORMAT_FAILED;
	} else {
		pr_info("device %u: formatted, protection type %u (was %u)\n",
			dev->index, op->type, old);
		if (old != op->type) {
			kt_ua_raise_nexus(dev, KT_ASC_CAPACITY_CHANGED,
					  KT_UA_OTHERS, op->nexus, op->port);
			kt_ua_raise_nexus(dev, KT_ASC_INQUIRY_CHANGED,
					  KT_UA_OTHERS, op->nexus, op->port);
		}
	}
	WRITE_ONCE(s->fmt_stopped, ret == -EINTR);
	s->fmt_cmd = NULL;
	WRITE_ONCE(s->fmt_lun, NULL);
	kt_sanitize_slot_end(dev, ret);
	if (op->cmd)
		kt_cmd_complete(op->cmd,
				test_bit(KT_CMD_ABORTED, &op->cmd->flags) ?
				KT_SENSE_ABORTED_COMMAND : reason);
	kt_lun_put(op->lun);
	kfree(op);
	memalloc_noio_restore(noio);
}

/*
 * Whether the LU can take protection type @type; why not is logged. The
 * field at fault is FMTPINFO: ktarget offers no such format.
 */
static sense_reason_t kt_format_type_ok(struct kt_cmd *cmd, u8 type)
{
	struct kt_dev *dev = cmd->dev;
	const char *why = NULL;

	if (type == 2)
		why = "type 2 (32-byte CDBs) is not supported: 10b: type 1, 11b, PFU 001b: type 3";
	/*
	 * its PI is the fabric's (fabric_prot_type): that type only, and
	 * nothing to do, whatever the backstore below could keep
	 */
	else if (kt_cmd_pi_fabric_only(cmd))
		why = type == kt_cmd_pi_type(cmd) ? NULL :
		      "the LU keeps no PI, its fabric shows it with its own type: that type only";
	else if (!dev->ops->init_prot && type != kt_pi_type(dev) &&
		 kt_pi_type(dev))
		why = "its backstore keeps no PI of its own: only its disk's type";
	else if (!dev->ops->init_prot && type != kt_pi_type(dev))
		why = "its backstore keeps no protection information: FMTPINFO 00b only";
	else if (type && dev->attrib.emulate_cdrom)
		why = "a CD/DVD device keeps no protection information";
	else if (type != kt_pi_type(dev) && READ_ONCE(dev->state->cluster.lu))
		why = "in cluster mode the protection type cannot change";
	if (!why)
		return KT_SENSE_NONE;
	pr_warn_ratelimited("device %u (%s): FORMAT UNIT with FMTPINFO %u refused: %s\n",
			    dev->index, dev->ops->name, cmd->cdb[1] >> 6, why);
	cmd->sense_field = KT_FIELD_CDB_BIT(1, 7);
	return KT_SENSE_INVALID_CDB_FIELD;
}

/* The protection type the CDB and its parameter list header ask for */
static sense_reason_t kt_format_decode(struct kt_cmd *cmd, u8 *type,
				       bool *immed)
{
	u8 hdr[KT_SBC_FORMAT_LONG_HDR];
	struct kt_sbc_format f;
	sense_reason_t reason;
	int t;

	kt_sbc_format_cdb(cmd->cdb, &f);
	if (f.param_len) {
		if (cmd->data_length < f.param_len)
			return KT_SENSE_PARAM_LIST_LENGTH;
		sg_copy_to_buffer(cmd->sgl, cmd->sg_nents, hdr, f.param_len);
		reason = kt_sbc_format_param(hdr, f.param_len, &f,
					     &cmd->sense_field);
		if (reason)
			return reason;
	}
	t = kt_sbc_format_pi_type(&f, &cmd->sense_field);
	if (t < 0) {
		pr_warn_ratelimited("device %u: FORMAT UNIT with FMTPINFO %u and PROTECTION FIELD USAGE %u: no protection type SBC-4 defines\n",
				    cmd->dev->index, f.fmtpinfo, f.pfu);
		return cmd->sense_field.in_cdb ? KT_SENSE_INVALID_CDB_FIELD :
						 KT_SENSE_INVALID_PARAM_FIELD;
	}
	*type = t;
	*immed = f.immed;
	return kt_format_type_ok(cmd, t);
}

static void kt_format_execute(struct kt_cmd *cmd)
{
	struct kt_dev *dev = cmd->dev;
	struct kt_format_op *op;
	sense_reason_t reason;
	bool immed = false;
	u8 type = 0;

	reason = kt_format_decode(cmd, &type, &immed);
	if (reason)
		goto out;
	/*
	 * its LUN is being removed (it waited in the task set meanwhile):
	 * a format begun now would stop at once and leave the LU saying
	 * MEDIUM FORMAT CORRUPTED to every other LUN, with nothing changed
	 */
	if (percpu_ref_is_dying(&cmd->lun->ref)) {
		reason = KT_SENSE_ABORTED_COMMAND;
		goto out;
	}
	/*
	 * no PI before or after, a backstore whose type stays what its disk
	 * has, or PI only the fabric's: nothing to format, the data stays; a
	 * format that failed before is over
	 */
	if ((type == kt_pi_type(dev) && (!type || !dev->ops->init_prot)) ||
	    kt_cmd_pi_fabric_only(cmd)) {
		atomic_cmpxchg(&dev->state->sanitize.state,
			       KT_SANITIZE_FORMAT_FAILED, KT_SANITIZE_IDLE);
		goto out;
	}

	op = kzalloc(sizeof(*op), GFP_KERNEL);
	if (!op) {
		reason = KT_SENSE_OUT_OF_RESOURCES;
		goto out;
	}
	op->dev = dev;
	op->type = type;
	op->nexus = cmd->sess->nexus_key;
	op->port = cmd->sess->tpg->tag;
	INIT_WORK(&op->work, kt_format_work);
	reason = kt_sanitize_slot_start(dev, KT_SANITIZE_FORMATTING, 1);
	if (reason) {
		kfree(op);
		goto out;
	}
	pr_info("device %u: FORMAT UNIT to protection type %u started%s\n",
		dev->index, type,
		immed ? ", status returned at once (IMMED)" : "");
	kt_lun_get(cmd->lun);
	op->lun = cmd->lun;
	WRITE_ONCE(dev->state->sanitize.fmt_stop, false);
	WRITE_ONCE(dev->state->sanitize.fmt_lun, cmd->lun);
	/* IMMED: GOOD now; REQUEST SENSE tells it is under way */
	if (immed) {
		dev->state->sanitize.fmt_cmd = NULL;
		kt_cmd_complete(cmd, KT_SENSE_NONE);
	} else {
		op->cmd = cmd;
		dev->state->sanitize.fmt_cmd = cmd;
	}
	kt_sanitize_queue(&op->work);
	return;
out:
	kt_cmd_complete(cmd, reason);
}

/* The transfer FORMAT UNIT implies (kt_exec_parse() calls it) */
sense_reason_t kt_format_parse(struct kt_cmd *cmd, const struct kt_cdb *c,
			       u32 *needed, enum kt_data_dir *dir)
{
	struct kt_sbc_format f;

	if (cmd->write_protected)
		return KT_SENSE_WRITE_PROTECTED;
	kt_sbc_format_cdb(cmd->cdb, &f);
	*needed = f.param_len;
	if (f.param_len)
		*dir = KT_DATA_OUT;
	/* what came before it runs first, what comes after waits */
	cmd->task_attr = KT_TASK_ORDERED;
	cmd->execute = kt_format_execute;
	return KT_SENSE_NONE;
}
