// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: copies by LIST IDENTIFIER and RECEIVE COPY RESULTS (84h):
 * RECEIVE COPY STATUS (LID1), RECEIVE COPY OPERATING PARAMETERS and
 * RECEIVE COPY FAILURE DETAILS (LID1) (SPC-4 6.18 - 6.20).
 *
 * List identifiers belong to an I_T nexus and a copy manager (the LU the
 * EXTENDED COPY was sent to). Each nexus has a small table of them, made on
 * its first EXTENDED COPY that names one: copies in progress, and the
 * results of finished copies whose LIST ID USAGE (00b) asks that they be
 * held until RECEIVE COPY RESULTS reads them. When the table is full, the
 * oldest held result makes room; a copy in progress is never dropped.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include <ktarget/fabric.h>

#include "core.h"
#include "xcopy.h"

#define KT_XCOPY_IDS		KT_XCOPY_MAX_CONCURRENT

struct kt_xcopy_held {
	u64				seq;	/* 0: a free slot */
	u32				dev_index;
	u8				list_id;
	bool				hold;
	struct kt_xcopy_progress	p;
	u8				sense[KT_SENSE_BUF_LEN];
	u8				sense_len;
};

struct kt_xcopy_ids {
	spinlock_t		lock;	/* seq, slot[] */
	u64			seq;
	struct kt_xcopy_held	slot[KT_XCOPY_IDS];
};

static struct kt_xcopy_ids *kt_xcopy_ids_get(struct kt_session *sess)
{
	struct kt_xcopy_ids *ids = READ_ONCE(sess->xcopy_ids);

	if (ids)
		return ids;
	ids = kzalloc(sizeof(*ids), GFP_KERNEL);
	if (!ids)
		return NULL;
	spin_lock_init(&ids->lock);
	/* two first copies of a nexus at once: one table wins */
	if (cmpxchg(&sess->xcopy_ids, NULL, ids)) {
		kfree(ids);
		ids = READ_ONCE(sess->xcopy_ids);
	}
	return ids;
}

void kt_xcopy_session_release(struct kt_session *sess)
{
	kfree(sess->xcopy_ids);
	sess->xcopy_ids = NULL;
}

static int kt_xcopy_ids_find(struct kt_xcopy_ids *ids, u32 dev_index,
			     u8 list_id)
{
	int i;

	lockdep_assert_held(&ids->lock);
	for (i = 0; i < KT_XCOPY_IDS; i++)
		if (ids->slot[i].seq && ids->slot[i].dev_index == dev_index &&
		    ids->slot[i].list_id == list_id)
			return i;
	return KT_XCOPY_NO_SLOT;
}

/* A free slot, else the one of the oldest finished copy */
static int kt_xcopy_ids_room(struct kt_xcopy_ids *ids)
{
	int i, victim = KT_XCOPY_NO_SLOT;

	lockdep_assert_held(&ids->lock);
	for (i = 0; i < KT_XCOPY_IDS; i++) {
		const struct kt_xcopy_held *h = &ids->slot[i];

		if (!h->seq)
			return i;
		if (h->p.state != KT_XCOPY_CM_IN_PROGRESS &&
		    (victim < 0 || h->seq < ids->slot[victim].seq))
			victim = i;
	}
	return victim;
}

int kt_xcopy_ids_claim(struct kt_cmd *cmd, u8 list_id, bool hold,
		       sense_reason_t *reason)
{
	struct kt_xcopy_ids *ids = kt_xcopy_ids_get(cmd->sess);
	struct kt_xcopy_err err = {
		.key = KT_XCOPY_KEY_ILLEGAL_REQUEST,
		.asc = KT_XCOPY_ASC_OP_IN_PROGRESS >> 8,
		.ascq = KT_XCOPY_ASC_OP_IN_PROGRESS & 0xff,
		.field = 0,		/* LIST IDENTIFIER */
		.flags = KT_XCOPY_ERR_SKSV,
	};
	struct kt_xcopy_held *h;
	int slot;

	if (!ids) {
		*reason = KT_SENSE_OUT_OF_RESOURCES;
		return KT_XCOPY_NO_SLOT;
	}
	spin_lock(&ids->lock);
	slot = kt_xcopy_ids_find(ids, cmd->dev->index, list_id);
	/* SPC-4 6.4.3.2: the list identifier of a copy still running */
	if (slot >= 0 && ids->slot[slot].p.state == KT_XCOPY_CM_IN_PROGRESS) {
		spin_unlock(&ids->lock);
		*reason = kt_xcopy_set_err(cmd, &err);
		return KT_XCOPY_NO_SLOT;
	}
	/* a new copy under the identifier of held results replaces them */
	if (slot < 0)
		slot = kt_xcopy_ids_room(ids);
	if (slot < 0) {
		spin_unlock(&ids->lock);
		*reason = KT_SENSE_OUT_OF_RESOURCES;	/* every slot running */
		return KT_XCOPY_NO_SLOT;
	}
	h = &ids->slot[slot];
	memset(h, 0, sizeof(*h));
	h->seq = ++ids->seq;
	h->dev_index = cmd->dev->index;
	h->list_id = list_id;
	h->hold = hold;
	h->p.state = KT_XCOPY_CM_IN_PROGRESS;
	spin_unlock(&ids->lock);
	return slot;
}

void kt_xcopy_ids_progress(struct kt_session *sess, int slot, u64 bytes,
			   u16 segments)
{
	struct kt_xcopy_ids *ids = sess->xcopy_ids;

	if (slot < 0 || !ids)
		return;
	spin_lock(&ids->lock);
	ids->slot[slot].p.bytes = bytes;
	ids->slot[slot].p.segments = segments;
	spin_unlock(&ids->lock);
}

void kt_xcopy_ids_finish(struct kt_cmd *cmd, int slot, sense_reason_t reason)
{
	struct kt_xcopy_ids *ids = cmd->sess->xcopy_ids;
	u8 sense[KT_SENSE_BUF_LEN];
	unsigned int n = 0;
	struct kt_xcopy_held *h;

	if (slot < 0 || !ids)
		return;
	/* the sense data the command is about to return (cmd.c) */
	if (reason) {
		n = kt_sense_build(reason, cmd->sense_asc_ascq,
				   &cmd->sense_field, cmd->sense_info,
				   cmd->sense_info_valid, sense);
		if (n && cmd->sense_asc_exact)
			kt_sense_set_asc(sense, cmd->sense_asc_ascq);
		if (n && cmd->sense_csi_valid)
			kt_sense_set_csi(sense, cmd->sense_csi);
	}
	spin_lock(&ids->lock);
	h = &ids->slot[slot];
	h->p.state = reason ? KT_XCOPY_CM_FAILED : KT_XCOPY_CM_DONE;
	memcpy(h->sense, sense, n);
	h->sense_len = n;
	if (!h->hold)
		h->seq = 0;
	spin_unlock(&ids->lock);
}

/*
 * The held results of @list_id into *@out, or false. Results are read
 * once: COPY STATUS of a copy that succeeded, FAILURE DETAILS of one that
 * failed, release them.
 */
static bool kt_xcopy_ids_read(struct kt_cmd *cmd, u8 list_id, u8 sa,
			      struct kt_xcopy_held *out)
{
	struct kt_xcopy_ids *ids = READ_ONCE(cmd->sess->xcopy_ids);
	struct kt_xcopy_held *h;
	int slot;

	if (!ids)
		return false;
	spin_lock(&ids->lock);
	slot = kt_xcopy_ids_find(ids, cmd->dev->index, list_id);
	if (slot < 0) {
		spin_unlock(&ids->lock);
		return false;
	}
	h = &ids->slot[slot];
	*out = *h;
	if ((sa == KT_XCOPY_RCR_COPY_STATUS &&
	     h->p.state == KT_XCOPY_CM_DONE) ||
	    (sa == KT_XCOPY_RCR_FAILURE_DETAILS &&
	     h->p.state == KT_XCOPY_CM_FAILED))
		h->seq = 0;
	spin_unlock(&ids->lock);
	return true;
}

#define KT_XCOPY_RCR_BUF	(KT_XCOPY_FAILURE_HDR_LEN + KT_SENSE_BUF_LEN)

static unsigned int kt_xcopy_rcr_failure(u8 *buf,
					 const struct kt_xcopy_held *h)
{
	return kt_xcopy_build_failure_details(buf, KT_XCOPY_RCR_BUF, &h->p,
					      h->sense, h->sense_len);
}

/* RECEIVE COPY RESULTS; the CDB was checked against the opcode table. */
void kt_xcopy_rcr_execute(struct kt_cmd *cmd)
{
	u8 sa = cmd->cdb[1] & 0x1f;
	u8 list_id = cmd->cdb[2];
	struct kt_xcopy_held h;
	unsigned int full;
	u8 *buf;

	buf = kzalloc(KT_XCOPY_RCR_BUF, GFP_KERNEL);
	if (!buf) {
		kt_cmd_complete(cmd, KT_SENSE_OUT_OF_RESOURCES);
		return;
	}
	switch (sa) {
	case KT_XCOPY_RCR_OP_PARAMS:
		full = kt_xcopy_build_op_params(buf, KT_XCOPY_RCR_BUF);
		break;
	case KT_XCOPY_RCR_COPY_STATUS:
	case KT_XCOPY_RCR_FAILURE_DETAILS:
		/* SPC-4 6.18.2: no copy by that LIST IDENTIFIER */
		if (!kt_xcopy_ids_read(cmd, list_id, sa, &h)) {
			kfree(buf);
			cmd->sense_field = KT_FIELD_CDB(2);
			kt_cmd_complete(cmd, KT_SENSE_INVALID_CDB_FIELD);
			return;
		}
		if (sa == KT_XCOPY_RCR_COPY_STATUS)
			full = kt_xcopy_build_copy_status(buf, KT_XCOPY_RCR_BUF,
							  &h.p);
		else
			full = kt_xcopy_rcr_failure(buf, &h);
		break;
	default:
		kfree(buf);
		cmd->sense_field = KT_FIELD_CDB(1);
		kt_cmd_complete(cmd, KT_SENSE_INVALID_CDB_FIELD);
		return;
	}
	kt_cmd_complete_data(cmd, buf, min_t(u32, full, KT_XCOPY_RCR_BUF));
	kfree(buf);
}
