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
 * connection that sent it keeps serving other commands.
 *
 * A sanitize that fails or is aborted leaves the LU in failure mode: block
 * commands end with MEDIUM ERROR, SANITIZE COMMAND FAILED, until a sanitize
 * completes, or until EXIT FAILURE MODE when the failed one had AUSE set.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/workqueue.h>

#include <ktarget/backend.h>
#include <ktarget/fabric.h>
#include <ktarget/proto/spc.h>

#include "core.h"

#define KT_SANITIZE_CHUNK	(1024 * 1024)
/* BLOCK ERASE: deallocate this much at a time, to look at aborts */
#define KT_SANITIZE_ERASE_STEP	(256ULL * 1024 * 1024)

void kt_sanitize_dev_init(struct kt_dev *dev)
{
	atomic_set(&dev->sanitize.state, KT_SANITIZE_IDLE);
	init_completion(&dev->sanitize.chunk_done);
}

/* Called for every command with a LU, after the unit attention check. */
sense_reason_t kt_sanitize_check(struct kt_cmd *cmd)
{
	if (likely(atomic_read(&cmd->dev->sanitize.state) !=
		   KT_SANITIZE_RUNNING))
		return KT_SENSE_NONE;
	switch (cmd->cdb[0]) {
	case 0x12:				/* INQUIRY */
	case 0x03:				/* REQUEST SENSE */
	case 0xa0:				/* REPORT LUNS */
		return KT_SENSE_NONE;
	}
	return KT_SENSE_SANITIZE_IN_PROGRESS;
}

/* Block commands on a LU whose last sanitize failed. */
sense_reason_t kt_sanitize_medium_check(struct kt_cmd *cmd)
{
	if (likely(atomic_read(&cmd->dev->sanitize.state) !=
		   KT_SANITIZE_FAILED) || cmd->cdb[0] == 0x48)
		return KT_SENSE_NONE;
	return KT_SENSE_SANITIZE_FAILED;
}

/*
 * SPC-4 4.5.2.4.4: the progress of a running sanitize, in 65536ths, for
 * REQUEST SENSE. False when none runs.
 */
bool kt_sanitize_progress(struct kt_dev *dev, u16 *progress)
{
	struct kt_sanitize *s = &dev->sanitize;
	u64 done, total;

	if (atomic_read(&s->state) != KT_SANITIZE_RUNNING)
		return false;
	done = READ_ONCE(s->done);
	total = READ_ONCE(s->total);
	*progress = total ? div64_u64(done * 0xffff, total) : 0;
	return true;
}

static void kt_sanitize_chunk_done(struct kt_cmd *cmd, sense_reason_t reason)
{
	struct kt_sanitize *s = &cmd->dev->sanitize;

	s->chunk_reason = reason;
	complete(&s->chunk_done);
}

/* One backstore step of the operation, waited for. */
static sense_reason_t kt_sanitize_write(struct kt_cmd *cmd, u64 pos, u32 len)
{
	struct kt_sanitize *s = &cmd->dev->sanitize;

	reinit_completion(&s->chunk_done);
	cmd->be_done = kt_sanitize_chunk_done;
	cmd->dev->ops->rw(cmd, true, pos, len, false);
	wait_for_completion(&s->chunk_done);
	return s->chunk_reason;
}

static void kt_sanitize_invert(struct kt_cmd *cmd)
{
	struct sg_mapping_iter m;
	size_t i;

	sg_miter_start(&m, cmd->sgl, cmd->sg_nents, SG_MITER_TO_SG);
	while (sg_miter_next(&m))
		for (i = 0; i < m.length; i++)
			((u8 *)m.addr)[i] ^= 0xff;
	sg_miter_stop(&m);
}

static sense_reason_t kt_sanitize_overwrite(struct kt_cmd *cmd, u64 size)
{
	struct kt_sanitize *s = &cmd->dev->sanitize;
	sense_reason_t reason;
	u64 pos;
	u32 len;
	u8 pass;

	for (pass = 0; pass < s->passes; pass++) {
		/* INVERT: the pattern flips between consecutive passes */
		if (pass && s->invert)
			kt_sanitize_invert(cmd);
		for (pos = 0; pos < size; pos += len) {
			if (test_bit(KT_CMD_ABORTED, &cmd->flags))
				return KT_SENSE_ABORTED_COMMAND;
			len = min_t(u64, KT_SANITIZE_CHUNK, size - pos);
			reason = kt_sanitize_write(cmd, pos, len);
			if (reason)
				return reason;
			WRITE_ONCE(s->done, s->done + len);
		}
	}
	return KT_SENSE_NONE;
}

static sense_reason_t kt_sanitize_erase(struct kt_cmd *cmd, u64 size)
{
	struct kt_sanitize *s = &cmd->dev->sanitize;
	sense_reason_t reason;
	u64 pos, len;

	for (pos = 0; pos < size; pos += len) {
		if (test_bit(KT_CMD_ABORTED, &cmd->flags))
			return KT_SENSE_ABORTED_COMMAND;
		len = min(KT_SANITIZE_ERASE_STEP, size - pos);
		reason = cmd->dev->ops->write_zeroes(cmd->dev, pos, len);
		if (reason)
			return reason;
		WRITE_ONCE(s->done, s->done + len);
	}
	return KT_SENSE_NONE;
}

static void kt_sanitize_work(struct work_struct *work)
{
	struct kt_cmd *cmd = container_of(work, struct kt_cmd, work);
	struct kt_dev *dev = cmd->dev;
	struct kt_sanitize *s = &dev->sanitize;
	u64 size = kt_dev_nr_lblocks(dev) * dev->attrib.block_size;
	sense_reason_t reason;

	if ((cmd->cdb[1] & 0x1f) == KT_SBC_SANITIZE_BLOCK_ERASE)
		reason = kt_sanitize_erase(cmd, size);
	else
		reason = kt_sanitize_overwrite(cmd, size);
	/* what was written must survive a power loss before GOOD */
	if (!reason && dev->ops->flush) {
		reinit_completion(&s->chunk_done);
		cmd->be_done = kt_sanitize_chunk_done;
		dev->ops->flush(cmd);
		wait_for_completion(&s->chunk_done);
		reason = s->chunk_reason;
	}
	if (cmd->aux_sgl) {
		swap(cmd->sgl, cmd->aux_sgl);
		swap(cmd->sg_nents, cmd->aux_nents);
	}

	if (reason) {
		s->ause = cmd->cdb[1] & 0x20;
		atomic_set(&s->state, KT_SANITIZE_FAILED);
		pr_warn_ratelimited("device %u: SANITIZE failed or was aborted; block commands fail until a sanitize completes%s\n",
				    dev->index,
				    s->ause ? " or EXIT FAILURE MODE" : "");
		if (reason != KT_SENSE_ABORTED_COMMAND)
			reason = KT_SENSE_SANITIZE_FAILED;
	} else {
		atomic_set(&s->state, KT_SANITIZE_IDLE);
		pr_info("device %u: SANITIZE %s done\n", dev->index,
			(cmd->cdb[1] & 0x1f) == KT_SBC_SANITIZE_BLOCK_ERASE ?
			"BLOCK ERASE" : "OVERWRITE");
	}
	kt_cmd_complete(cmd, reason);
}

/* OVERWRITE: a chunk of the medium's worth of pattern, from the list */
static sense_reason_t kt_sanitize_pattern(struct kt_cmd *cmd,
					  const struct kt_sbc_sanitize *p)
{
	struct sg_mapping_iter m;
	u8 *param, *pat;
	size_t i, k = 0;

	param = kmalloc(p->param_len, GFP_KERNEL);
	if (!param)
		return KT_SENSE_OUT_OF_RESOURCES;
	sg_copy_to_buffer(cmd->sgl, cmd->sg_nents, param, p->param_len);
	pat = param + KT_SBC_SANITIZE_HDR_LEN;

	cmd->aux_sgl = sgl_alloc(KT_SANITIZE_CHUNK, GFP_KERNEL,
				 &cmd->aux_nents);
	if (!cmd->aux_sgl) {
		kfree(param);
		return KT_SENSE_OUT_OF_RESOURCES;
	}
	/* the pattern repeats from the start of every logical block */
	sg_miter_start(&m, cmd->aux_sgl, cmd->aux_nents, SG_MITER_TO_SG);
	while (sg_miter_next(&m)) {
		for (i = 0; i < m.length; i++, k++) {
			if (k == cmd->dev->attrib.block_size)
				k = 0;
			((u8 *)m.addr)[i] = pat[k % p->pattern_len];
		}
	}
	sg_miter_stop(&m);
	kfree(param);
	swap(cmd->sgl, cmd->aux_sgl);
	swap(cmd->sg_nents, cmd->aux_nents);
	return KT_SENSE_NONE;
}

static sense_reason_t kt_sanitize_exit_failure(struct kt_cmd *cmd)
{
	struct kt_sanitize *s = &cmd->dev->sanitize;

	/* SBC-3 4.11.4: only after a sanitize that allowed it */
	if (atomic_read(&s->state) == KT_SANITIZE_FAILED) {
		if (!s->ause) {
			cmd->sense_field = KT_FIELD_CDB_BIT(1, 4);
			return KT_SENSE_INVALID_CDB_FIELD;
		}
		atomic_cmpxchg(&s->state, KT_SANITIZE_FAILED, KT_SANITIZE_IDLE);
		pr_info("device %u: left sanitize failure mode\n",
			cmd->dev->index);
	}
	kt_cmd_complete(cmd, KT_SENSE_NONE);
	return KT_SENSE_NONE;
}

static sense_reason_t kt_sanitize_execute(struct kt_cmd *cmd)
{
	struct kt_dev *dev = cmd->dev;
	struct kt_sanitize *s = &dev->sanitize;
	struct kt_sbc_sanitize p;
	struct kt_lu_info lu;
	sense_reason_t reason;
	int old;
	u8 *hdr;

	kt_lu_info_fill(cmd, &lu);
	reason = kt_sbc_sanitize_cdb(&lu, cmd->cdb, &p, &cmd->sense_field);
	if (reason)
		return reason;
	if (p.sa == KT_SBC_SANITIZE_EXIT_FAILURE)
		return kt_sanitize_exit_failure(cmd);

	if (p.sa == KT_SBC_SANITIZE_OVERWRITE) {
		hdr = kmalloc(p.param_len, GFP_KERNEL);
		if (!hdr)
			return KT_SENSE_OUT_OF_RESOURCES;
		sg_copy_to_buffer(cmd->sgl, cmd->sg_nents, hdr, p.param_len);
		reason = kt_sbc_sanitize_overwrite(&lu, hdr, p.param_len, &p,
						   &cmd->sense_field);
		kfree(hdr);
		if (reason)
			return reason;
	}

	old = atomic_read(&s->state);
	if (old == KT_SANITIZE_RUNNING ||
	    atomic_cmpxchg(&s->state, old, KT_SANITIZE_RUNNING) != old)
		return KT_SENSE_SANITIZE_IN_PROGRESS;
	s->passes = p.sa == KT_SBC_SANITIZE_OVERWRITE ? p.passes : 1;
	s->invert = p.invert;
	WRITE_ONCE(s->done, 0);
	WRITE_ONCE(s->total, s->passes * kt_dev_nr_lblocks(dev) *
			     dev->attrib.block_size);

	if (p.sa == KT_SBC_SANITIZE_OVERWRITE) {
		reason = kt_sanitize_pattern(cmd, &p);
		if (reason) {
			atomic_set(&s->state, old);
			return reason;
		}
	}
	pr_info("device %u: SANITIZE %s of %llu bytes started\n", dev->index,
		p.sa == KT_SBC_SANITIZE_OVERWRITE ? "OVERWRITE" : "BLOCK ERASE",
		s->total);
	INIT_WORK(&cmd->work, kt_sanitize_work);
	queue_work(system_unbound_wq, &cmd->work);
	return KT_SENSE_NONE;
}

/* kt_sbc_parse(): the transfer SANITIZE implies */
sense_reason_t kt_sanitize_parse(struct kt_cmd *cmd, u32 *needed,
				 enum kt_data_dir *dir)
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
