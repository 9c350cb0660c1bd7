// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: the life of a SCSI command, from the fabric's submission to
 * its release:
 *
 *   kt_cmd_setup()           LUN lookup, CDB decode, length checks, buffer
 *   kt_cmd_run()
 *     -> write_pending()      (DATA OUT) the fabric fetches the data ...
 *     -> kt_cmd_data_out_done()
 *   kt_cmd_execute()         cmd->execute: emulation or a backstore call
 *                            (from the caller or a work item: cmd_hop.c)
 *   kt_cmd_complete()        status, sense, residuals
 *     -> queue_data_in() / queue_status()
 *   kt_cmd_put()             the last reference: release_cmd()
 *
 * A failure at any stage ends in kt_cmd_complete() with a sense_reason_t.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include <ktarget/backend.h>
#include <ktarget/fabric.h>
#include <ktarget/proto/cdb.h>
#include <ktarget/proto/spc.h>

#include "alua/alua.h"
#include "copy/rod_watch.h"
#include "core.h"
#include "pr/pr.h"
#include "scsi/cmdsets.h"

void kt_cmd_init(struct kt_cmd *cmd, const struct kt_fabric_ops *ops,
		 struct kt_session *sess, u64 tag, enum kt_data_dir dir,
		 u32 expected_len, enum kt_task_attr attr)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->ops = ops;
	cmd->sess = sess;
	cmd->tag = tag;
	cmd->dir = dir;
	cmd->expected_len = expected_len;
	cmd->task_attr = attr;
	cmd->start = jiffies;
	kref_init(&cmd->kref);
	INIT_LIST_HEAD(&cmd->sess_node);
	INIT_LIST_HEAD(&cmd->ts_node);
}
EXPORT_SYMBOL_GPL(kt_cmd_init);

/*
 * The core's own commands (EXTENDED COPY's READs and WRITEs, SANITIZE's
 * writes) have no fabric (cmd->ops is NULL): every backend call they make
 * ends, through kt_be_done(), in their be_done continuation, never in
 * kt_cmd_complete(). They live and die with the operation that embeds
 * them, on @sess's nexus (NULL: none) with @tag its command's.
 */
void kt_cmd_init_internal(struct kt_cmd *cmd, struct kt_session *sess,
			  u64 tag, enum kt_data_dir dir)
{
	kt_cmd_init(cmd, NULL, sess, tag, dir, 0, KT_TASK_SIMPLE);
}

static void kt_cmd_release(struct kref *kref)
{
	struct kt_cmd *cmd = container_of(kref, struct kt_cmd, kref);
	struct kt_session *sess = cmd->sess;
	struct scatterlist *keep;
	unsigned long flags;

	if (!list_empty(&cmd->sess_node)) {
		spin_lock_irqsave(&sess->cmd_lock, flags);
		list_del_init(&cmd->sess_node);
		spin_unlock_irqrestore(&sess->cmd_lock, flags);
	}
	/*
	 * Multi-step commands may have swapped the data buffer aside: free
	 * what they allocated, never the session's buffer or the fabric's.
	 */
	keep = cmd->fabric_sgl ?: cmd->data_sgl;
	if ((cmd->sgl_owned || cmd->fabric_sgl) && cmd->sgl != keep)
		sgl_free(cmd->sgl);
	if (cmd->aux_sgl && cmd->aux_sgl != keep)
		sgl_free(cmd->aux_sgl);
	if (cmd->data_sgl) {
		kt_data_limit_uncharge(sess, cmd->data_cap);
		kt_sgl_cache_put(sess, cmd->data_sgl, cmd->data_cap);
	}
	if (cmd->lun)
		kt_lun_put(cmd->lun);
	if (cmd->ops)
		cmd->ops->release_cmd(cmd);
}

void kt_cmd_get(struct kt_cmd *cmd)
{
	kref_get(&cmd->kref);
}
EXPORT_SYMBOL_GPL(kt_cmd_get);

void kt_cmd_put(struct kt_cmd *cmd)
{
	kref_put(&cmd->kref, kt_cmd_release);
}
EXPORT_SYMBOL_GPL(kt_cmd_put);

/* Record @reason as the command's outcome, building sense data once. */
static void kt_cmd_set_outcome(struct kt_cmd *cmd, sense_reason_t reason)
{
	/* a passthrough backstore's status and sense, as it gave them */
	if (test_bit(KT_CMD_OWN_STATUS, &cmd->flags))
		return;
	/* GOOD, without sense: what the table says, without looking it up */
	if (likely(reason == KT_SENSE_NONE)) {
		cmd->sense_reason = reason;
		cmd->status = KT_SAM_GOOD;
		cmd->sense_len = 0;
		return;
	}
	cmd->sense_reason = reason;
	cmd->status = kt_sense_status(reason);
	cmd->sense_len = kt_sense_build(reason, cmd->sense_asc_ascq,
					&cmd->sense_field, cmd->sense_info,
					cmd->sense_info_valid, cmd->sense);
	if (cmd->sense_len && cmd->sense_asc_exact)
		kt_sense_set_asc(cmd->sense, cmd->sense_asc_ascq);
	if (cmd->sense_len && cmd->sense_csi_valid)
		kt_sense_set_csi(cmd->sense, cmd->sense_csi);
}

/*
 * A command ends either completed or aborted, never both: set @bit
 * (KT_CMD_COMPLETE or KT_CMD_ABORTED) unless one of them is set already.
 */
bool kt_cmd_claim(struct kt_cmd *cmd, int bit)
{
	unsigned long old = READ_ONCE(cmd->flags);
	const unsigned long ended = BIT(KT_CMD_COMPLETE) | BIT(KT_CMD_ABORTED);

	do {
		if (old & ended)
			return false;
	} while (!try_cmpxchg(&cmd->flags, &old, old | BIT(bit)));
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(kt_cmd_claim);

/*
 * An aborted command has reached its end. SAM-5 7.2: it gets no response,
 * except TASK ABORTED status for another nexus's command when TAS is on.
 */
static void kt_cmd_end_aborted(struct kt_cmd *cmd)
{
	struct kt_tmr *tmr = cmd->abort_tmr;

	if (cmd->abort_tas) {
		cmd->status = KT_SAM_TASK_ABORTED;
		cmd->sense_len = 0;
		cmd->ops->queue_status(cmd);
	} else {
		cmd->ops->aborted(cmd);
	}
	kt_task_set_leave(cmd);
	kt_cmd_put(cmd);
	kt_tmr_task_done(tmr);
}

/*
 * The command is done. Called once, from any context; the fabric's
 * queue_* hooks must not sleep. The core's own reference is dropped here.
 */
void kt_cmd_complete(struct kt_cmd *cmd, sense_reason_t reason)
{
	/* a command between two steps is the backstore's: kt_be_done() */
	WARN_ON_ONCE(cmd->be_done);
	/* its blocks have landed, or never will */
	kt_rod_cmd_end(cmd);
	if (!kt_cmd_claim(cmd, KT_CMD_COMPLETE)) {
		/* aborted: the first completion ends it, a second is a bug */
		if (!WARN_ON_ONCE(!test_bit(KT_CMD_ABORTED, &cmd->flags) ||
				  test_and_set_bit(KT_CMD_COMPLETE, &cmd->flags)))
			kt_cmd_end_aborted(cmd);
		return;
	}
	kt_cmd_set_outcome(cmd, reason);
	/* an answer the core builds, completed good without data: none moves */
	if (cmd->status == KT_SAM_GOOD && cmd->data_in_built &&
	    !cmd->data_in_done)
		kt_cmd_set_data_in_len(cmd, 0);

	if ((cmd->status == KT_SAM_GOOD ||
	     (cmd->status == KT_SAM_CHECK_CONDITION &&
	      test_bit(KT_CMD_DATA_WITH_SENSE, &cmd->flags))) &&
	    cmd->dir == KT_DATA_IN && cmd->data_length)
		cmd->ops->queue_data_in(cmd);
	else
		cmd->ops->queue_status(cmd);
	/*
	 * Only now may what it held back run: their responses are queued
	 * behind its own. Leaving first, an ORDERED command behind a WRITE
	 * answered before the WRITE whenever the task set's work ran first.
	 */
	kt_task_set_leave(cmd);
	kt_cmd_put(cmd);
}
EXPORT_SYMBOL_GPL(kt_cmd_complete);

void kt_be_done(struct kt_cmd *cmd, sense_reason_t reason)
{
	void (*next)(struct kt_cmd *cmd, sense_reason_t r) = cmd->be_done;

	/* out of the backstore: a format may go on (be_io.c) */
	kt_be_io_done(cmd);
	/* a step of a multi-step command: the core goes on from there */
	if (next) {
		cmd->be_done = NULL;
		next(cmd, reason);
		return;
	}
	kt_cmd_be_complete(cmd, reason);
}
EXPORT_SYMBOL_GPL(kt_be_done);

void kt_be_cdb_done(struct kt_cmd *cmd, u8 status, const u8 *sense,
		    u32 sense_len)
{
	if (status == KT_SAM_GOOD) {
		kt_be_done(cmd, KT_SENSE_NONE);
		return;
	}
	cmd->status = status;
	cmd->sense_len = 0;
	if (status == KT_SAM_CHECK_CONDITION && sense && sense_len) {
		cmd->sense_len = min_t(u32, sense_len, KT_SENSE_MAX_LEN);
		memcpy(cmd->sense, sense, cmd->sense_len);
	}
	/* the reason only says it is not GOOD: the status above is sent */
	cmd->sense_reason = KT_SENSE_LU_COMM_FAILURE;
	set_bit(KT_CMD_OWN_STATUS, &cmd->flags);
	kt_be_done(cmd, KT_SENSE_LU_COMM_FAILURE);
}
EXPORT_SYMBOL_GPL(kt_be_cdb_done);

/* The command's data is in: run it, unless its task attribute holds it. */
void kt_cmd_execute(struct kt_cmd *cmd)
{
	if (!kt_task_set_may_run(cmd))
		return;
	/* only another node's abort looks: a clustered LU's commands alone */
	if (unlikely(cmd->dev && READ_ONCE(cmd->dev->state->res.clustered))) {
		set_bit(KT_CMD_EXECUTING, &cmd->flags);
		/* against kt_tmr_collect()'s claim: it sees this, or this it */
		smp_mb__after_atomic();
	}
	if (test_bit(KT_CMD_ABORTED, &cmd->flags)) {
		kt_cmd_complete(cmd, KT_SENSE_ABORTED_COMMAND);
		return;
	}
	/*
	 * a FORMAT UNIT that began after its gates: it must not reach the
	 * backstore (format.c); SANITIZE's is the same check
	 */
	if (cmd->dev) {
		sense_reason_t reason = kt_sanitize_check(cmd);

		if (unlikely(reason)) {
			kt_cmd_complete(cmd, reason);
			return;
		}
	}
	/* a write held back below changes its blocks all the same */
	kt_rod_cmd_begin(cmd);
	/* its checks wait for its LU's reservations to load */
	if (unlikely(test_bit(KT_CMD_LOADING, &cmd->flags))) {
		kt_pr_cluster_wait(cmd);
		return;
	}
	cmd->execute(cmd);
}
EXPORT_SYMBOL_IF_KUNIT(kt_cmd_execute);

/*
 * Cluster mode: @cmd came while another node was changing its LU's
 * reservations. In the work item kt_cluster_defer() runs it in: load them
 * (the unit attentions and aborts of the change come with the load; a
 * remote PREEMPT AND ABORT spares @cmd, which came after it began), then
 * the checks kt_cmd_setup() left for after the load. KT_SENSE_NONE, or
 * why @cmd ends without running.
 */
sense_reason_t kt_cmd_loaded_checks(struct kt_cmd *cmd)
{
	sense_reason_t reason;

	reason = kt_pr_cluster_refresh(cmd);
	clear_bit(KT_CMD_LOADING, &cmd->flags);
	if (!reason)
		reason = kt_ua_check(cmd);
	if (!reason && READ_ONCE(cmd->dev->state->res.active))
		reason = kt_res_check(cmd);
	return reason;
}

void kt_cmd_data_out_done(struct kt_cmd *cmd)
{
	kt_cmd_submit(cmd);
}
EXPORT_SYMBOL_GPL(kt_cmd_data_out_done);

void kt_cmd_fail(struct kt_cmd *cmd, sense_reason_t reason)
{
	kt_cmd_complete(cmd, reason);
}
EXPORT_SYMBOL_GPL(kt_cmd_fail);

/*
 * SPC-4 / iSCSI (RFC 7143 11.4.5.2) residuals: the command moves what its
 * CDB says, but never more than the initiator expects.
 */
static void kt_cmd_set_residual(struct kt_cmd *cmd, u32 needed)
{
	if (cmd->expected_len > needed) {
		cmd->underflow = true;
		cmd->residual = cmd->expected_len - needed;
		cmd->data_length = needed;
	} else if (cmd->expected_len < needed) {
		cmd->overflow = true;
		cmd->residual = needed - cmd->expected_len;
		cmd->data_length = cmd->expected_len;
	} else {
		cmd->data_length = needed;
	}
}

static sense_reason_t kt_cmd_alloc_data(struct kt_cmd *cmd, u32 len)
{
	unsigned int pages = DIV_ROUND_UP(len, PAGE_SIZE);

	if (!len || cmd->sgl)
		return KT_SENSE_NONE;
	if (!kt_data_limit_try_charge(cmd->sess, pages))
		return KT_SENSE_TASK_SET_FULL;
	cmd->sgl = kt_sgl_cache_get(cmd->sess, len, &cmd->sg_nents,
				    &cmd->data_cap);
	if (!cmd->sgl) {
		kt_data_limit_uncharge(cmd->sess, pages);
		return KT_SENSE_OUT_OF_RESOURCES;
	}
	/* a recycled buffer may have more pages than asked for */
	kt_data_limit_charge(cmd->sess, cmd->data_cap - pages);
	cmd->sgl_owned = true;
	cmd->data_sgl = cmd->sgl;
	return KT_SENSE_NONE;
}

/* Decode the CDB and decide what the command transfers and runs. */
static sense_reason_t kt_cmd_parse(struct kt_cmd *cmd, unsigned int cdb_len)
{
	enum kt_data_dir need_dir = KT_DATA_NONE;
	struct kt_cdb c;
	sense_reason_t reason;
	u32 needed = 0;

	/* a passthrough LU's device server answers the CDB (backend.h) */
	if (cmd->dev && cmd->dev->ops->exec_cdb &&
	    kt_passthrough_takes(cmd->cdb, cdb_len))
		return kt_passthrough_setup(cmd, cdb_len);

	/* the LU's device type says which commands it has: decided here once */
	switch (kt_cdb_decode_in(kt_dev_cdb_set(cmd->dev), cmd->cdb, cdb_len, &c)) {
	case KT_CDB_OK:
		break;
	case KT_CDB_BAD_LENGTH:
	case KT_CDB_TRUNCATED:
		cmd->sense_field = KT_FIELD_CDB(c.bad_byte);
		return KT_SENSE_INVALID_CDB_FIELD;
	default:
		cmd->sense_field = KT_FIELD_CDB(0);
		return KT_SENSE_INVALID_OPCODE;
	}
	cmd->desc = c.desc;
	cmd->lba = c.lba;
	cmd->nr_blocks = c.nr_blocks;
	cmd->cdb_flags = c.flags;

	reason = kt_exec_parse(cmd, &c, &needed, &need_dir);
	if (reason)
		return reason;

	/*
	 * The CDB decides the direction. Only data the initiator will not
	 * send is an error: a write-direction CDB without a data-out phase.
	 */
	if (need_dir == KT_DATA_OUT && cmd->dir == KT_DATA_IN)
		return KT_SENSE_INVALID_FIELD_IN_COMMAND_IU;
	/*
	 * A fabric's own buffer was mapped for the direction its initiator
	 * gave: data the other way would land in pages meant to be read
	 * (an SG_IO buffer pinned for a write, say).
	 */
	if (cmd->fabric_sgl && need_dir != KT_DATA_NONE && need_dir != cmd->dir)
		return KT_SENSE_INVALID_FIELD_IN_COMMAND_IU;
	if (need_dir != KT_DATA_NONE)
		cmd->dir = need_dir;
	kt_cmd_set_residual(cmd, needed);
	return KT_SENSE_NONE;
}

/* The session knows the command from now on; the core holds a reference. */
static void kt_cmd_register(struct kt_cmd *cmd, u64 unpacked_lun)
{
	struct kt_session *sess = cmd->sess;
	unsigned long flags;

	cmd->unpacked_lun = unpacked_lun;
	spin_lock_irqsave(&sess->cmd_lock, flags);
	list_add_tail(&cmd->sess_node, &sess->cmds);
	spin_unlock_irqrestore(&sess->cmd_lock, flags);

	/* one reference for the core's stages, dropped by kt_cmd_complete() */
	kt_cmd_get(cmd);
}

/*
 * The fabric cannot take @cmd in (TASK SET FULL, BUSY): register it as
 * kt_cmd_setup() does, without looking at its CDB or its LU, so that it
 * holds no buffer and consumes no unit attention. Returns @reason, which
 * the fabric then completes it with, as with kt_cmd_setup().
 */
sense_reason_t kt_cmd_refuse(struct kt_cmd *cmd, u64 unpacked_lun,
			     sense_reason_t reason)
{
	kt_cmd_register(cmd, unpacked_lun);
	cmd->dir = KT_DATA_NONE;
	return reason;
}
EXPORT_SYMBOL_GPL(kt_cmd_refuse);

/*
 * The gates of a command to an LU, in order: cluster mode's (the LU's
 * shared state may be reloading; the checks that need it then wait for
 * the load, kt_cmd_loaded_checks()), a change of the storage's size
 * (every nexus, this one included, hears of it as a unit attention),
 * unit attentions (SAM-5 5.14), a
 * SANITIZE (SBC-3 4.11), the port's ALUA state (SPC-4 5.15) and the
 * reservations (SPC-4 5.13). Each lets the command on or says why it ends.
 */
static sense_reason_t kt_cmd_lu_gates(struct kt_cmd *cmd)
{
	sense_reason_t reason;

	reason = kt_res_gate_cluster(cmd);
	if (reason)
		return reason;
	kt_alua_gate_cluster(cmd->dev);
	kt_dev_size_sync(cmd->dev, KT_UA_ALL, NULL);
	if (!test_bit(KT_CMD_LOADING, &cmd->flags))
		reason = kt_ua_check(cmd);
	if (!reason)
		reason = kt_sanitize_check(cmd);
	if (!reason)
		reason = kt_alua_check(cmd);
	if (!reason)
		reason = kt_res_gate(cmd);
	return reason;
}

sense_reason_t kt_cmd_setup(struct kt_cmd *cmd, const u8 *cdb,
			    unsigned int cdb_len, u64 unpacked_lun)
{
	struct kt_session *sess = cmd->sess;
	sense_reason_t reason;
	bool wp = false;

	kt_cmd_register(cmd, unpacked_lun);

	if (cdb_len > KT_CDB_INLINE) {
		cmd->sense_field = KT_FIELD_CDB(0);
		return KT_SENSE_CDB_TOO_LONG;
	}
	memcpy(cmd->cdb, cdb, cdb_len);

	cmd->lun = kt_session_get_lun(sess, unpacked_lun, &wp);
	if (cmd->lun)
		WRITE_ONCE(cmd->dev, cmd->lun->dev);
	/*
	 * an ACL's write protection, or the control mode page's SWP; a CD/DVD
	 * LU's disc is never written, nor a medium opened read-only
	 */
	cmd->write_protected = wp || (cmd->dev && (READ_ONCE(cmd->dev->state->swp) ||
						    cmd->dev->attrib.emulate_cdrom ||
						    cmd->dev->read_only));

	reason = kt_cmd_parse(cmd, cdb_len);
	if (!reason && cmd->dev)
		reason = kt_cmd_lu_gates(cmd);
	/* an answer the core builds gets its buffer when it is known */
	if (!reason && !cmd->data_in_built)
		reason = kt_cmd_alloc_data(cmd, cmd->data_length);
	return reason;
}
EXPORT_SYMBOL_GPL(kt_cmd_setup);

void kt_cmd_set_fabric_sgl(struct kt_cmd *cmd, struct scatterlist *sgl,
			   unsigned int nents)
{
	cmd->sgl = sgl;
	cmd->sg_nents = nents;
	cmd->fabric_sgl = sgl;
}
EXPORT_SYMBOL_GPL(kt_cmd_set_fabric_sgl);

void kt_cmd_set_fabric_prot(struct kt_cmd *cmd, struct scatterlist *sgl,
			    unsigned int nents)
{
	struct scatterlist *sg;
	unsigned int i;

	cmd->prot_sgl = sgl;
	cmd->prot_nents = nents;
	cmd->prot_by_fabric = !sgl;
	cmd->prot_len = 0;
	for_each_sg(sgl, sg, nents, i)
		cmd->prot_len += sg->length;
}
EXPORT_SYMBOL_GPL(kt_cmd_set_fabric_prot);

void kt_cmd_run(struct kt_cmd *cmd)
{
	/*
	 * Received whole only now (its PDU, immediate data included): it
	 * enters its LU's task set, where an ORDERED command holds back
	 * every initiator's. One aborted while it came need not: it ends
	 * at kt_cmd_execute().
	 */
	if (cmd->dev && !test_bit(KT_CMD_ABORTED, &cmd->flags))
		kt_task_set_enter(cmd);
	if (cmd->dir == KT_DATA_OUT && cmd->data_length &&
	    cmd->data_received < cmd->data_length) {
		cmd->ops->write_pending(cmd);
		return;
	}
	kt_cmd_submit(cmd);
}
EXPORT_SYMBOL_GPL(kt_cmd_run);

/*
 * An emulated command built its response, @len bytes at @buf (already cut
 * to what the command may return): copy it into a data-in buffer of that
 * size, however large the ALLOCATION LENGTH, and complete.
 */
void kt_cmd_complete_data(struct kt_cmd *cmd, const void *buf, u32 len)
{
	sense_reason_t reason;

	len = min(len, cmd->data_length);
	reason = kt_cmd_alloc_data(cmd, len);
	if (reason) {
		kt_cmd_complete(cmd, reason);
		return;
	}
	if (len)
		sg_copy_from_buffer(cmd->sgl, cmd->sg_nents, buf, len);
	cmd->data_in_done = true;
	kt_cmd_set_data_in_len(cmd, len);
	kt_cmd_complete(cmd, KT_SENSE_NONE);
}

/*
 * An emulated command produced @len bytes of data-in, which may be less
 * than its allocation length: shorten the transfer and the residual follows.
 */
void kt_cmd_set_data_in_len(struct kt_cmd *cmd, u32 len)
{
	if (len >= cmd->data_length)
		return;
	cmd->overflow = false;
	cmd->underflow = false;
	cmd->residual = 0;
	kt_cmd_set_residual(cmd, len);
}
EXPORT_SYMBOL_GPL(kt_cmd_set_data_in_len);

/*
 * A passthrough command that ends in CHECK CONDITION returned its first
 * @len bytes of data-in all the same (SSC-4 READ: a filemark, the end of
 * the medium or a shorter block met, the bytes before it valid): they go
 * to the initiator before the status, with the residual of the rest
 * (RFC 7143 11.4.5), as LIO's SCF_TREAT_READ_AS_NORMAL does.
 * Without it no data goes with a status other than GOOD, and no residual
 * claims any. Before kt_be_cdb_done().
 */
void kt_cmd_set_data_in_valid(struct kt_cmd *cmd, u32 len)
{
	if (cmd->dir != KT_DATA_IN || !len)
		return;
	kt_cmd_set_data_in_len(cmd, len);
	set_bit(KT_CMD_DATA_WITH_SENSE, &cmd->flags);
}
EXPORT_SYMBOL_GPL(kt_cmd_set_data_in_valid);
