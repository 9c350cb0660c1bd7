// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: the core's calls of a backstore's data ops (rw, flush,
 * write_zeroes, copy_range), whoever makes them: a command of a task set
 * (scsi/sbc.c), the copy engine's reads and writes (copy/xcopy.c, for
 * EXTENDED COPY and the ROD tokens, which enter no task set), SANITIZE.
 *
 * Each call is counted in its device's gate, a percpu_ref, from before
 * the op is called until the backstore has ended it (kt_be_done() for rw
 * and flush, the return of the others). FORMAT UNIT (scsi/format.c)
 * closes the gate before it changes the PI storage and opens it after:
 * kt_be_io_close() kills the ref and waits until the count is zero, so
 * when it returns no op of the device is in the backstore, and none can
 * enter until kt_be_io_open(). A call that finds the gate closed does not
 * reach the backstore: it ends with NOT READY, FORMAT IN PROGRESS, which
 * a Linux initiator retries after a while (a copy ends as its I/O error).
 *
 * Why either the format sees an op or the op sees the format: the
 * percpu_ref's own guarantee. percpu_ref_tryget_live() runs under RCU and
 * fails once the kill is visible; the kill switches the ref to atomic
 * mode after an RCU grace period, so every get that succeeded before is
 * in the count the format waits on. No barrier of our own is needed for
 * that; the format generation below has its pair.
 *
 * A fabric command also carries the format generation it was checked
 * against (kt_cmd_setup_fmt_gen(), before its RDPROTECT / WRPROTECT and
 * medium checks): one set up before a format ended and reaching the
 * backstore after it (held in the task set behind the FORMAT UNIT, or a
 * step of a multi-step command) ends with FORMAT IN PROGRESS too, so that
 * the initiator sends it again and it is checked against the new type.
 * The format writes the new type, smp_wmb(), the new generation, and
 * opens the gate after another smp_wmb(); a command reads the gate (or
 * the generation at setup), smp_rmb(), then the generation (then the
 * type): it never sees the new gate with the old generation, nor the new
 * generation with the old type.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/percpu-refcount.h>

#include <ktarget/backend.h>

#include "core.h"

static void kt_be_io_drained(struct percpu_ref *ref)
{
	struct kt_dev_state *st = container_of(ref, struct kt_dev_state,
					       be_io);

	complete(&st->be_io_done);
}

int kt_be_io_dev_init(struct kt_dev *dev)
{
	struct kt_dev_state *st = dev->state;

	init_completion(&st->be_io_done);
	st->fmt_gen = 1;
	return percpu_ref_init(&st->be_io, kt_be_io_drained,
			       PERCPU_REF_ALLOW_REINIT, GFP_KERNEL);
}

void kt_be_io_dev_exit(struct kt_dev *dev)
{
	percpu_ref_exit(&dev->state->be_io);
}

/* Close @dev's gate: once this returns, no data op of it is under way. */
void kt_be_io_close(struct kt_dev *dev)
{
	struct kt_dev_state *st = dev->state;

	reinit_completion(&st->be_io_done);
	percpu_ref_kill(&st->be_io);
	wait_for_completion(&st->be_io_done);
}

/*
 * Open it again; what changed while it was closed is seen by whoever gets
 * in (the generation bump before it, if any: kt_be_io_new_gen()).
 */
void kt_be_io_open(struct kt_dev *dev)
{
	smp_wmb();	/* the generation before the gate; see the top */
	percpu_ref_reinit(&dev->state->be_io);
}

/* A format changed the device: commands checked before must not run. */
void kt_be_io_new_gen(struct kt_dev *dev)
{
	u32 gen = dev->state->fmt_gen + 1;

	smp_wmb();	/* the type before the generation */
	/* 0 is a command's "not checked against a format" */
	WRITE_ONCE(dev->state->fmt_gen, gen ?: 1);
}

/* At setup, before the checks that look at the PI type: see the top */
void kt_cmd_setup_fmt_gen(struct kt_cmd *cmd)
{
	cmd->fmt_gen = READ_ONCE(cmd->dev->state->fmt_gen);
	smp_rmb();	/* ... before the type */
}

/*
 * Enter @dev's gate for an op of @cmd (NULL: not a command's); why not.
 * A command set up against an older format generation does not enter.
 */
static sense_reason_t kt_be_io_enter(struct kt_dev *dev, struct kt_cmd *cmd)
{
	struct kt_dev_state *st = dev->state;

	if (unlikely(!percpu_ref_tryget_live(&st->be_io)))
		return KT_SENSE_FORMAT_IN_PROGRESS;
	smp_rmb();	/* the gate before the generation */
	if (unlikely(cmd && cmd->fmt_gen &&
		     cmd->fmt_gen != READ_ONCE(st->fmt_gen))) {
		percpu_ref_put(&st->be_io);
		return KT_SENSE_FORMAT_IN_PROGRESS;
	}
	return KT_SENSE_NONE;
}

static void kt_be_io_exit(struct kt_dev *dev)
{
	percpu_ref_put(&dev->state->be_io);
}

/* kt_be_done(): an rw or flush that entered the gate has ended */
void kt_be_io_done(struct kt_cmd *cmd)
{
	if (test_and_clear_bit(KT_CMD_BE_IO, &cmd->flags))
		kt_be_io_exit(cmd->dev);
}

/*
 * An rw or flush of @cmd may go to the backstore: true once it is in the
 * gate (kt_be_io_done() lets it out); else it ended here with the reason.
 */
static bool kt_be_cmd_enter(struct kt_cmd *cmd)
{
	sense_reason_t reason = kt_be_io_enter(cmd->dev, cmd);

	if (unlikely(reason)) {
		kt_be_done(cmd, reason);
		return false;
	}
	set_bit(KT_CMD_BE_IO, &cmd->flags);
	return true;
}

void kt_be_rw(struct kt_cmd *cmd, bool write, u64 pos, u32 len, bool fua)
{
	if (kt_be_cmd_enter(cmd))
		cmd->dev->ops->rw(cmd, write, pos, len, fua);
}

void kt_be_flush(struct kt_cmd *cmd)
{
	if (kt_be_cmd_enter(cmd))
		cmd->dev->ops->flush(cmd);
}

/* @cmd: the command it is for, NULL for the copy engine's */
sense_reason_t kt_be_write_zeroes(struct kt_dev *dev, struct kt_cmd *cmd,
				  u64 pos, u64 len)
{
	sense_reason_t reason = kt_be_io_enter(dev, cmd);

	if (unlikely(reason))
		return reason;
	reason = dev->ops->write_zeroes(dev, pos, len);
	kt_be_io_exit(dev);
	return reason;
}

/* Both devices' gates; -EAGAIN when either is closed (the engine's loop) */
s64 kt_be_copy_range(struct kt_dev *dst, u64 dst_pos, struct kt_dev *src,
		     u64 src_pos, u64 len)
{
	s64 ret = -EAGAIN;

	if (kt_be_io_enter(src, NULL))
		return ret;
	if (!kt_be_io_enter(dst, NULL)) {
		ret = src->ops->copy_range(dst, dst_pos, src, src_pos, len);
		kt_be_io_exit(dst);
	}
	kt_be_io_exit(src);
	return ret;
}
