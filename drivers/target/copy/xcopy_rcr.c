// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: copies by LIST IDENTIFIER and RECEIVE COPY RESULTS (84h):
 * RECEIVE COPY STATUS (LID1), RECEIVE COPY OPERATING PARAMETERS and
 * RECEIVE COPY FAILURE DETAILS (LID1) (SPC-4 6.18 - 6.20), and RECEIVE ROD
 * TOKEN INFORMATION for POPULATE TOKEN and WRITE USING TOKEN.
 *
 * List identifiers belong to an I_T nexus and a copy manager (the LU the
 * EXTENDED COPY was sent to). Each nexus has a small table of them, made on
 * its first EXTENDED COPY that names one: copies in progress, and the
 * results of finished copies whose LIST ID USAGE (00b) asks that they be
 * held until RECEIVE COPY RESULTS reads them. When the table is full, the
 * oldest held result makes room; a copy in progress is never dropped.
 * LID1 identifiers (8 bits) and those of token operations (32 bits) are
 * apart. A POPULATE TOKEN's result holds a reference to its token.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include <linux/unaligned.h>
#include <scsi/scsi_proto.h>

#include <ktarget/fabric.h>

#include "core.h"
#include "xcopy.h"

#define KT_XCOPY_IDS		KT_XCOPY_MAX_CONCURRENT

struct kt_xcopy_held {
	u64				seq;	/* 0: a free slot */
	u32				dev_index;
	u32				list_id;
	u32				block_size;	/* of the LU */
	u8				kind;		/* KT_XCOPY_KIND_* */
	bool				hold;
	struct kt_rod_token		*token;
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

/* The slot is free again; what it held goes. */
static void kt_xcopy_held_clear(struct kt_xcopy_held *h)
{
	if (h->token)
		kt_rod_token_put(h->token);
	h->token = NULL;
	h->seq = 0;
}

void kt_xcopy_session_release(struct kt_session *sess)
{
	struct kt_xcopy_ids *ids = sess->xcopy_ids;
	int i;

	if (ids)
		for (i = 0; i < KT_XCOPY_IDS; i++)
			kt_xcopy_held_clear(&ids->slot[i]);
	kfree(ids);
	sess->xcopy_ids = NULL;
}

static bool kt_xcopy_lid4(u8 kind)
{
	return kind != KT_XCOPY_KIND_LID1;
}

static int kt_xcopy_ids_find(struct kt_xcopy_ids *ids, u32 dev_index,
			     u32 list_id, bool lid4)
{
	const struct kt_xcopy_held *h;
	int i;

	lockdep_assert_held(&ids->lock);
	for (i = 0; i < KT_XCOPY_IDS; i++) {
		h = &ids->slot[i];
		if (h->seq && h->dev_index == dev_index &&
		    h->list_id == list_id && kt_xcopy_lid4(h->kind) == lid4)
			return i;
	}
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

int kt_xcopy_ids_claim(struct kt_cmd *cmd, u32 list_id, u8 kind, bool hold,
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
	slot = kt_xcopy_ids_find(ids, cmd->dev->index, list_id,
				 kt_xcopy_lid4(kind));
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
	kt_xcopy_held_clear(h);
	memset(h, 0, sizeof(*h));
	h->seq = ++ids->seq;
	h->dev_index = cmd->dev->index;
	h->list_id = list_id;
	h->kind = kind;
	h->block_size = cmd->dev->attrib.block_size;
	h->hold = hold;
	h->p.state = KT_XCOPY_CM_IN_PROGRESS;
	spin_unlock(&ids->lock);
	return slot;
}

void kt_xcopy_ids_set_token(struct kt_session *sess, int slot,
			    struct kt_rod_token *token, u64 bytes)
{
	struct kt_xcopy_ids *ids = sess->xcopy_ids;

	if (WARN_ON_ONCE(slot < 0 || !ids)) {
		kt_rod_token_put(token);
		return;
	}
	spin_lock(&ids->lock);
	ids->slot[slot].token = token;
	ids->slot[slot].p.bytes = bytes;
	spin_unlock(&ids->lock);
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
		kt_xcopy_held_clear(h);
	spin_unlock(&ids->lock);
}

/*
 * The held results of @list_id into *@out (and the token a POPULATE TOKEN
 * made into @tok, where given), or false. Results are read once: COPY
 * STATUS of a copy that succeeded, FAILURE DETAILS of one that failed, ROD
 * TOKEN INFORMATION of a token operation that ended, release them.
 */
static bool kt_xcopy_ids_read(struct kt_cmd *cmd, u32 list_id, u8 sa,
			      struct kt_xcopy_held *out, u8 *tok)
{
	struct kt_xcopy_ids *ids = READ_ONCE(cmd->sess->xcopy_ids);
	struct kt_xcopy_held *h;
	int slot;

	if (!ids)
		return false;
	spin_lock(&ids->lock);
	slot = kt_xcopy_ids_find(ids, cmd->dev->index, list_id,
				 sa == KT_XCOPY_RCR_ROD_TOKEN_INFO);
	if (slot < 0) {
		spin_unlock(&ids->lock);
		return false;
	}
	h = &ids->slot[slot];
	*out = *h;
	out->token = NULL;
	if (tok && h->token)
		memcpy(tok, kt_rod_token_bytes(h->token), KT_ROD_TOKEN_LEN);
	if ((sa == KT_XCOPY_RCR_COPY_STATUS &&
	     h->p.state == KT_XCOPY_CM_DONE) ||
	    (sa == KT_XCOPY_RCR_FAILURE_DETAILS &&
	     h->p.state == KT_XCOPY_CM_FAILED) ||
	    (sa == KT_XCOPY_RCR_ROD_TOKEN_INFO &&
	     h->p.state != KT_XCOPY_CM_IN_PROGRESS))
		kt_xcopy_held_clear(h);
	spin_unlock(&ids->lock);
	return true;
}

#define KT_XCOPY_RCR_BUF	(KT_ROD_RRTI_HDR_LEN + KT_SENSE_BUF_LEN + 4 + \
				 2 + KT_ROD_TOKEN_LEN)

static unsigned int kt_xcopy_rcr_failure(u8 *buf,
					 const struct kt_xcopy_held *h)
{
	return kt_xcopy_build_failure_details(buf, KT_XCOPY_RCR_BUF, &h->p,
					      h->sense, h->sense_len);
}

/* RECEIVE ROD TOKEN INFORMATION of what @h holds (@tok: its token) */
static unsigned int kt_xcopy_rrti(u8 *buf, const struct kt_xcopy_held *h,
				  const u8 *tok)
{
	bool failed = h->p.state == KT_XCOPY_CM_FAILED;
	struct kt_rod_status st = {
		.sa = h->kind,
		.blocks = h->p.bytes / h->block_size,
		.segments = h->p.segments,
		.scsi_status = failed ? SAM_STAT_CHECK_CONDITION : SAM_STAT_GOOD,
	};

	switch (h->p.state) {
	case KT_XCOPY_CM_IN_PROGRESS:
		st.op_status = KT_ROD_OP_RUNNING;
		break;
	case KT_XCOPY_CM_DONE:
		st.op_status = KT_ROD_OP_DONE;
		break;
	default:
		st.op_status = KT_ROD_OP_FAILED;
		break;
	}
	return kt_rod_build_rrti(buf, KT_XCOPY_RCR_BUF, &st, h->sense,
				 failed ? h->sense_len : 0,
				 h->kind == KT_XCOPY_KIND_PT && !failed ? tok : NULL);
}

/* RECEIVE COPY RESULTS; the CDB was checked against the opcode table. */
void kt_xcopy_rcr_execute(struct kt_cmd *cmd)
{
	u8 sa = cmd->cdb[1] & 0x1f;
	u32 list_id = cmd->cdb[2];
	struct kt_xcopy_held h;
	unsigned int full;
	u8 *buf, *tok;

	buf = kzalloc(KT_XCOPY_RCR_BUF + KT_ROD_TOKEN_LEN, GFP_KERNEL);
	if (!buf) {
		kt_cmd_complete(cmd, KT_SENSE_OUT_OF_RESOURCES);
		return;
	}
	tok = buf + KT_XCOPY_RCR_BUF;
	if (sa == KT_XCOPY_RCR_ROD_TOKEN_INFO)
		list_id = get_unaligned_be32(&cmd->cdb[2]);
	switch (sa) {
	case KT_XCOPY_RCR_OP_PARAMS:
		full = kt_xcopy_build_op_params(buf, KT_XCOPY_RCR_BUF);
		break;
	case KT_XCOPY_RCR_COPY_STATUS:
	case KT_XCOPY_RCR_FAILURE_DETAILS:
	case KT_XCOPY_RCR_ROD_TOKEN_INFO:
		/* SPC-4 6.18.2: no copy by that LIST IDENTIFIER */
		if (!kt_xcopy_ids_read(cmd, list_id, sa, &h, tok)) {
			kfree(buf);
			cmd->sense_field = KT_FIELD_CDB(2);
			kt_cmd_complete(cmd, KT_SENSE_INVALID_CDB_FIELD);
			return;
		}
		if (sa == KT_XCOPY_RCR_COPY_STATUS)
			full = kt_xcopy_build_copy_status(buf, KT_XCOPY_RCR_BUF,
							  &h.p);
		else if (sa == KT_XCOPY_RCR_FAILURE_DETAILS)
			full = kt_xcopy_rcr_failure(buf, &h);
		else
			full = kt_xcopy_rrti(buf, &h, tok);
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
