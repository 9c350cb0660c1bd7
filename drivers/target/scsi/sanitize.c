// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: SANITIZE (SBC-3 4.11, 5.19).
 *
 * One sanitize operation at a time per logical unit. While it runs, every
 * command but INQUIRY, REPORT LUNS and REQUEST SENSE ends with NOT READY,
 * SANITIZE IN PROGRESS, and REQUEST SENSE reports how far it has gone.
 * OVERWRITE writes the initiator's pattern over the whole medium, once per
 * pass, through the backstore's rw(); BLOCK ERASE deallocates the whole
 * medium with write_zeroes(). The operation runs on a work item, so the
 * connection that sent it keeps serving other commands; with IMMED the
 * command returns GOOD as soon as the operation has started.
 *
 * FORMAT UNIT (format.c) is the LU's other long operation: it takes the
 * same slot (kt_sanitize_slot_start(), KT_SANITIZE_FORMATTING), so that a
 * LU runs one of the two at a time, the same commands wait for it (FORMAT
 * IN PROGRESS), REQUEST SENSE reports it, and it runs on this file's
 * workqueue.
 *
 * Task management ends the SANITIZE command but not the operation. A
 * sanitize that fails (a backstore error, or its LUN removed) leaves the
 * LU in failure mode: block commands end with MEDIUM ERROR, SANITIZE
 * COMMAND FAILED, until a sanitize completes, or until EXIT FAILURE MODE
 * when the failed one had AUSE set.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/sched/mm.h>
#include <linux/workqueue.h>

#include <ktarget/backend.h>
#include <ktarget/fabric.h>
#include <ktarget/proto/cdb.h>
#include <ktarget/proto/spc.h>

#include "cmdsets.h"
#include "copy/rod_watch.h"
#include "core.h"

#define KT_SANITIZE_CHUNK	(1024 * 1024)
/* BLOCK ERASE: deallocate this much at a time, to look at aborts */
#define KT_SANITIZE_ERASE_STEP	(256ULL * 1024 * 1024)

void kt_sanitize_dev_init(struct kt_dev *dev)
{
	atomic_set(&dev->state->sanitize.state, KT_SANITIZE_IDLE);
}

/* What a command meets while the LU's long operation in @state runs */
static sense_reason_t kt_sanitize_busy(int state)
{
	switch (state) {
	case KT_SANITIZE_RUNNING:
		return KT_SENSE_SANITIZE_IN_PROGRESS;
	case KT_SANITIZE_FORMATTING:
		return KT_SENSE_FORMAT_IN_PROGRESS;
	default:
		return KT_SENSE_NONE;
	}
}

/*
 * SBC-4 5.3.1: after a FORMAT UNIT that failed or was stopped (format.c),
 * what commands meet until a format works
 */
static sense_reason_t kt_format_failed(struct kt_sanitize *s)
{
	smp_rmb();	/* the state read before: kt_sanitize_slot_end() */
	return READ_ONCE(s->fmt_stopped) ? KT_SENSE_FORMAT_CORRUPTED :
					   KT_SENSE_FORMAT_FAILED;
}

/*
 * Called for every command with a LU, after the unit attention check, and
 * again before it runs (kt_cmd_execute()): one set up before a FORMAT UNIT
 * began and held behind it must not reach the backstore (format.c). After
 * a format that failed, the commands that reach the medium end as the
 * format did, TEST UNIT READY too: an initiator that sent it with IMMED
 * learns of it when it polls, or on its next READ or WRITE. The others
 * (MODE SENSE, READ CAPACITY: what sg_format asks before it formats
 * again) and FORMAT UNIT run.
 */
sense_reason_t kt_sanitize_check(struct kt_cmd *cmd)
{
	struct kt_sanitize *s = &cmd->dev->state->sanitize;
	int state = atomic_read(&s->state);
	sense_reason_t reason;

	reason = kt_sanitize_busy(state);
	if (likely(!reason && state != KT_SANITIZE_FORMAT_FAILED))
		return KT_SENSE_NONE;
	if (cmd->desc->flags & KT_CDB_D_IN_SANITIZE)
		return KT_SENSE_NONE;
	if (reason)
		return reason;
	if (cmd->cdb[0] == FORMAT_UNIT ||
	    (!(cmd->desc->flags & KT_CDB_D_MEDIUM) &&
	     cmd->cdb[0] != TEST_UNIT_READY))
		return KT_SENSE_NONE;
	return kt_format_failed(s);
}

/*
 * Take the LU's long operation for @state (KT_SANITIZE_FORMATTING) with
 * @total units of progress; why not when another runs or a sanitize
 * failed. kt_sanitize_queue() runs its work, kt_sanitize_slot_end() lets
 * it go.
 */
sense_reason_t kt_sanitize_slot_start(struct kt_dev *dev, int state,
				      u64 total)
{
	struct kt_sanitize *s = &dev->state->sanitize;
	int old = atomic_cmpxchg(&s->state, KT_SANITIZE_IDLE, state);

	/* a format may be tried again after one that failed */
	if (old == KT_SANITIZE_FORMAT_FAILED && state == KT_SANITIZE_FORMATTING &&
	    atomic_cmpxchg(&s->state, old, state) == old)
		old = KT_SANITIZE_IDLE;
	if (old != KT_SANITIZE_IDLE)
		return old == KT_SANITIZE_FAILED ? KT_SENSE_SANITIZE_FAILED :
		       kt_sanitize_busy(old) ?: KT_SENSE_FORMAT_IN_PROGRESS;
	WRITE_ONCE(s->done, 0);
	WRITE_ONCE(s->total, total);
	return KT_SENSE_NONE;
}

/* The long operation ends: @failed, the LU stays in format failure mode */
void kt_sanitize_slot_end(struct kt_dev *dev, bool failed)
{
	/* fmt_stopped before the state: kt_format_failed() */
	atomic_set_release(&dev->state->sanitize.state,
			   failed ? KT_SANITIZE_FORMAT_FAILED : KT_SANITIZE_IDLE);
}

/*
 * Commands that reach the medium (KT_CDB_D_MEDIUM) on a LU whose last
 * sanitize failed; SANITIZE itself, to retry or to EXIT FAILURE MODE, is
 * not one of them.
 */
sense_reason_t kt_sanitize_medium_check(struct kt_cmd *cmd)
{
	if (likely(atomic_read(&cmd->dev->state->sanitize.state) !=
		   KT_SANITIZE_FAILED))
		return KT_SENSE_NONE;
	return KT_SENSE_SANITIZE_FAILED;
}

/*
 * SPC-4 4.5.2.4.4: the progress of a running sanitize or format, in
 * 65536ths, for REQUEST SENSE, and the sense that goes with it; none when
 * neither runs. After a failed format, its sense (@progress not set).
 */
sense_reason_t kt_sanitize_progress(struct kt_dev *dev, u16 *progress,
				    bool *has_progress)
{
	struct kt_sanitize *s = &dev->state->sanitize;
	int state = atomic_read(&s->state);
	sense_reason_t reason;
	u64 done, total;

	*has_progress = false;
	if (state == KT_SANITIZE_FORMAT_FAILED)
		return kt_format_failed(s);
	reason = kt_sanitize_busy(state);
	if (!reason)
		return KT_SENSE_NONE;
	*has_progress = true;
	done = READ_ONCE(s->done);
	total = READ_ONCE(s->total);
	/* done <= total: scaled down until done * 65535 fits in 64 bits */
	while (total >> 48) {
		total >>= 1;
		done >>= 1;
	}
	*progress = total ? div64_u64(done * 0xffff, total) : 0;
	return reason;
}

/*
 * One sanitize operation. It outlives its SANITIZE command when that ends
 * first: at once with IMMED, or when ABORT TASK, a reset or a closed
 * session aborts it (SBC-4 4.11: resets suspend the operation and it
 * resumes; here it simply goes on). It writes through a command of its
 * own and holds the LUN, which it lets go of early only when the LUN is
 * being removed.
 */
struct kt_sanitize_op {
	struct work_struct	work;
	struct kt_dev		*dev;
	struct kt_lun		*lun;		/* referenced */
	struct kt_cmd		*cmd;		/* the SANITIZE, until it ends */
	struct kt_cmd		io;		/* the backstore steps */
	struct completion	step_done;
	sense_reason_t		step_reason;
	u8			sa;
	u8			passes;		/* OVERWRITE COUNT */
	bool			invert;		/* OVERWRITE: INVERT */
	bool			ause;
};

static struct workqueue_struct *kt_sanitize_wq;

static void kt_sanitize_step_done(struct kt_cmd *io, sense_reason_t reason)
{
	struct kt_sanitize_op *op = container_of(io, struct kt_sanitize_op,
						 io);

	op->step_reason = reason;
	complete(&op->step_done);
}

/*
 * Between two steps: an aborted SANITIZE ends now (the operation goes on);
 * false when the LUN is being removed, which ends the operation.
 */
static bool kt_sanitize_may_go_on(struct kt_sanitize_op *op)
{
	if (op->cmd && test_bit(KT_CMD_ABORTED, &op->cmd->flags)) {
		pr_info("device %u: SANITIZE command aborted; the sanitize goes on\n",
			op->dev->index);
		kt_cmd_complete(op->cmd, KT_SENSE_ABORTED_COMMAND);
		op->cmd = NULL;
	}
	return !percpu_ref_is_dying(&op->lun->ref);
}

/* One backstore write or flush of the operation, waited for. */
static sense_reason_t kt_sanitize_step(struct kt_sanitize_op *op, u64 pos,
				       u32 len)
{
	reinit_completion(&op->step_done);
	op->io.be_done = kt_sanitize_step_done;
	if (len)
		kt_be_rw(&op->io, true, pos, len, false);
	else
		kt_be_flush(&op->io);
	wait_for_completion(&op->step_done);
	return op->step_reason;
}

static void kt_sanitize_invert(struct kt_cmd *io)
{
	struct sg_mapping_iter m;
	size_t i;

	sg_miter_start(&m, io->sgl, io->sg_nents, SG_MITER_TO_SG);
	while (sg_miter_next(&m))
		for (i = 0; i < m.length; i++)
			((u8 *)m.addr)[i] ^= 0xff;
	sg_miter_stop(&m);
}

static sense_reason_t kt_sanitize_overwrite(struct kt_sanitize_op *op,
					    u64 size)
{
	struct kt_sanitize *s = &op->dev->state->sanitize;
	sense_reason_t reason;
	u64 pos;
	u32 len;
	u8 pass;

	for (pass = 0; pass < op->passes; pass++) {
		/* INVERT: the pattern flips between consecutive passes */
		if (pass && op->invert)
			kt_sanitize_invert(&op->io);
		for (pos = 0; pos < size; pos += len) {
			if (!kt_sanitize_may_go_on(op))
				return KT_SENSE_ABORTED_COMMAND;
			len = min_t(u64, KT_SANITIZE_CHUNK, size - pos);
			reason = kt_sanitize_step(op, pos, len);
			if (reason)
				return reason;
			WRITE_ONCE(s->done, s->done + len);
		}
	}
	return KT_SENSE_NONE;
}

static sense_reason_t kt_sanitize_erase(struct kt_sanitize_op *op, u64 size)
{
	struct kt_sanitize *s = &op->dev->state->sanitize;
	sense_reason_t reason;
	u64 pos, len;

	for (pos = 0; pos < size; pos += len) {
		if (!kt_sanitize_may_go_on(op))
			return KT_SENSE_ABORTED_COMMAND;
		len = min(KT_SANITIZE_ERASE_STEP, size - pos);
		reason = kt_be_write_zeroes(op->dev, NULL, pos, len);
		if (reason)
			return reason;
		WRITE_ONCE(s->done, s->done + len);
	}
	return KT_SENSE_NONE;
}

static void kt_sanitize_free(struct kt_sanitize_op *op)
{
	if (op->io.sgl)
		sgl_free(op->io.sgl);
	kfree(op);
}

static void kt_sanitize_work(struct work_struct *work)
{
	struct kt_sanitize_op *op = container_of(work, struct kt_sanitize_op,
						 work);
	struct kt_dev *dev = op->dev;
	struct kt_sanitize *s = &dev->state->sanitize;
	u64 size = kt_dev_nr_lblocks(dev) * dev->attrib.block_size;
	struct kt_lun *lun = op->lun;
	unsigned int noio = memalloc_noio_save();	/* as kt_sbc_ws_work() */
	sense_reason_t reason;

	if (op->sa == KT_SBC_SANITIZE_BLOCK_ERASE)
		reason = kt_sanitize_erase(op, size);
	else
		reason = kt_sanitize_overwrite(op, size);
	/* what was written must survive a power loss before GOOD */
	if (!reason && dev->ops->flush)
		reason = kt_sanitize_step(op, 0, 0);
	/*
	 * its command may have completed long ago (IMMED, an abort): a ROD
	 * token made since then holds blocks it changed
	 */
	kt_rod_changed(dev, 0, 0);

	if (reason) {
		s->ause = op->ause;
		atomic_set(&s->state, KT_SANITIZE_FAILED);
		pr_warn_ratelimited("device %u: SANITIZE failed or its LUN went away; block commands fail until a sanitize completes%s\n",
				    dev->index,
				    s->ause ? " or EXIT FAILURE MODE" : "");
	} else {
		atomic_set(&s->state, KT_SANITIZE_IDLE);
		pr_info("device %u: SANITIZE %s done\n", dev->index,
			op->sa == KT_SBC_SANITIZE_BLOCK_ERASE ?
			"BLOCK ERASE" : "OVERWRITE");
	}
	if (op->cmd)
		kt_cmd_complete(op->cmd, reason);
	kt_sanitize_free(op);
	kt_lun_put(lun);
	memalloc_noio_restore(noio);
}

/* OVERWRITE: a chunk of the medium's worth of @pat, the list's pattern */
static sense_reason_t kt_sanitize_pattern(struct kt_sanitize_op *op,
					  const struct kt_sbc_sanitize *p,
					  const u8 *pat)
{
	u32 bs = op->dev->attrib.block_size;
	struct kt_cmd *io = &op->io;
	struct sg_mapping_iter m;
	size_t i, k = 0;

	io->sgl = sgl_alloc(KT_SANITIZE_CHUNK, GFP_KERNEL, &io->sg_nents);
	if (!io->sgl)
		return KT_SENSE_OUT_OF_RESOURCES;
	/* the pattern repeats from the start of every logical block */
	sg_miter_start(&m, io->sgl, io->sg_nents, SG_MITER_TO_SG);
	while (sg_miter_next(&m)) {
		for (i = 0; i < m.length; i++, k++) {
			if (k == bs)
				k = 0;
			((u8 *)m.addr)[i] = pat[k % p->pattern_len];
		}
	}
	sg_miter_stop(&m);
	return KT_SENSE_NONE;
}

static void kt_sanitize_exit_failure(struct kt_cmd *cmd)
{
	struct kt_sanitize *s = &cmd->dev->state->sanitize;

	/* SBC-3 4.11.4: only after a sanitize that allowed it */
	if (atomic_read(&s->state) == KT_SANITIZE_FAILED) {
		if (!s->ause) {
			cmd->sense_field = KT_FIELD_CDB_BIT(1, 4);
			kt_cmd_complete(cmd, KT_SENSE_INVALID_CDB_FIELD);
			return;
		}
		atomic_cmpxchg(&s->state, KT_SANITIZE_FAILED, KT_SANITIZE_IDLE);
		pr_info("device %u: left sanitize failure mode\n",
			cmd->dev->index);
	}
	kt_cmd_complete(cmd, KT_SENSE_NONE);
}

/* The operation @p asks for, its pattern from @param for OVERWRITE. */
static struct kt_sanitize_op *kt_sanitize_op_alloc(struct kt_cmd *cmd,
						   const struct kt_sbc_sanitize *p,
						   const u8 *param,
						   sense_reason_t *reason)
{
	struct kt_sanitize_op *op = kzalloc(sizeof(*op), GFP_KERNEL);

	*reason = KT_SENSE_OUT_OF_RESOURCES;
	if (!op)
		return NULL;
	op->dev = cmd->dev;
	op->sa = p->sa;
	op->ause = p->ause;
	op->invert = p->invert;
	op->passes = p->sa == KT_SBC_SANITIZE_OVERWRITE ? p->passes : 1;
	init_completion(&op->step_done);
	INIT_WORK(&op->work, kt_sanitize_work);
	kt_cmd_init_internal(&op->io, NULL, cmd->tag, KT_DATA_OUT);
	op->io.dev = cmd->dev;
	op->io.cdb[0] = 0x8a;		/* what the backstore sees: WRITE */
	if (p->sa == KT_SBC_SANITIZE_OVERWRITE) {
		*reason = kt_sanitize_pattern(op, p,
					      param + KT_SBC_SANITIZE_HDR_LEN);
		if (*reason) {
			kt_sanitize_free(op);
			return NULL;
		}
	}
	*reason = KT_SENSE_NONE;
	return op;
}

static void kt_sanitize_execute(struct kt_cmd *cmd)
{
	struct kt_dev *dev = cmd->dev;
	struct kt_sanitize *s = &dev->state->sanitize;
	struct kt_sanitize_op *op;
	struct kt_sbc_sanitize p;
	struct kt_lu_info lu;
	sense_reason_t reason;
	u8 *param = NULL;
	int old;

	kt_lu_info_fill(cmd, &lu);
	reason = kt_sbc_sanitize_cdb(&lu, cmd->cdb, &p, &cmd->sense_field);
	if (reason)
		goto out;
	if (p.sa == KT_SBC_SANITIZE_EXIT_FAILURE) {
		kt_sanitize_exit_failure(cmd);
		return;
	}

	if (p.sa == KT_SBC_SANITIZE_OVERWRITE) {
		param = kmalloc(p.param_len, GFP_KERNEL);
		if (!param) {
			reason = KT_SENSE_OUT_OF_RESOURCES;
			goto out;
		}
		sg_copy_to_buffer(cmd->sgl, cmd->sg_nents, param, p.param_len);
		reason = kt_sbc_sanitize_overwrite(&lu, param, p.param_len, &p,
						   &cmd->sense_field);
		if (reason)
			goto out;
	}
	op = kt_sanitize_op_alloc(cmd, &p, param, &reason);
	if (!op)
		goto out;

	old = atomic_read(&s->state);
	if (kt_sanitize_busy(old) ||
	    atomic_cmpxchg(&s->state, old, KT_SANITIZE_RUNNING) != old) {
		kt_sanitize_free(op);
		reason = kt_sanitize_busy(atomic_read(&s->state)) ?:
			 KT_SENSE_SANITIZE_IN_PROGRESS;
		goto out;
	}
	WRITE_ONCE(s->done, 0);
	WRITE_ONCE(s->total, op->passes * kt_dev_nr_lblocks(dev) *
			     dev->attrib.block_size);
	pr_info("device %u: SANITIZE %s of %llu bytes started%s\n", dev->index,
		p.sa == KT_SBC_SANITIZE_OVERWRITE ? "OVERWRITE" : "BLOCK ERASE",
		s->total, p.immed ? ", status returned at once (IMMED)" : "");
	kt_lun_get(cmd->lun);
	op->lun = cmd->lun;
	/* IMMED: GOOD now; REQUEST SENSE tells how far it has gone */
	if (p.immed)
		kt_cmd_complete(cmd, KT_SENSE_NONE);
	else
		op->cmd = cmd;
	queue_work(kt_sanitize_wq, &op->work);
out:
	kfree(param);
	/* started: the operation (or IMMED above) completes it */
	if (reason)
		kt_cmd_complete(cmd, reason);
}

/* The transfer SANITIZE implies (kt_exec_parse() calls it) */
sense_reason_t kt_sanitize_parse(struct kt_cmd *cmd, const struct kt_cdb *c,
				 u32 *needed, enum kt_data_dir *dir)
{
	struct kt_sbc_sanitize p;
	struct kt_lu_info lu;
	sense_reason_t reason;

	kt_lu_info_fill(cmd, &lu);
	reason = kt_sbc_sanitize_cdb(&lu, cmd->cdb, &p, &cmd->sense_field);
	if (reason)
		return reason;
	if (p.sa != KT_SBC_SANITIZE_EXIT_FAILURE && cmd->write_protected)
		return KT_SENSE_WRITE_PROTECTED;
	*needed = p.param_len;
	if (p.param_len)
		*dir = KT_DATA_OUT;
	cmd->execute = kt_sanitize_execute;
	return KT_SENSE_NONE;
}

/* Run a long operation's work (format.c) where SANITIZE's runs */
void kt_sanitize_queue(struct work_struct *work)
{
	queue_work(kt_sanitize_wq, work);
}

int kt_sanitize_init(void)
{
	kt_sanitize_wq = alloc_workqueue("kt_sanitize", WQ_UNBOUND, 0);
	return kt_sanitize_wq ? 0 : -ENOMEM;
}

/* Every operation holds a LUN: none is left once configfs is empty. */
void kt_sanitize_exit(void)
{
	destroy_workqueue(kt_sanitize_wq);
}
