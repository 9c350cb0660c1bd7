// SPDX-License-Identifier: GPL-2.0
/*
 * iSCSI Basic Header Segment: decoding of initiator PDUs, encoding of target
 * PDUs. No allocation, locking or logging here: this file is compiled
 * unchanged into the userspace unit and fuzz tests.
 *
 * The decoder is deliberately lenient about reserved bits: RFC 7143 11 asks
 * receivers to ignore reserved fields and to report reserved code values in
 * defined fields as protocol errors. Beyond that it only refuses what the
 * PDU clauses of RFC 7143 forbid outright; state-dependent checks (CmdSN
 * window, ITT lookup, ImmediateData, FirstBurstLength, ...) belong to the
 * caller.
 */
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/bits.h>
#include <linux/unaligned.h>

#include <ktarget/proto/iscsi_pdu.h>

/* Offsets shared by most PDUs (RFC 7143 11.2.1) */
#define OFF_OPCODE	0
#define OFF_FLAGS	1
#define OFF_AHS_LEN	KT_ISCSI_BHS_AHS_LEN
#define OFF_DSL		5
#define OFF_LUN		8
#define OFF_ITT		16
#define OFF_TTT		20
#define OFF_CMDSN	24
#define OFF_STATSN	24
#define OFF_EXPSTATSN	28
#define OFF_EXPCMDSN	28
#define OFF_MAXCMDSN	32

static enum kt_iscsi_bhs_status kt_iscsi_bad(struct kt_iscsi_bhs *bhs,
					     enum kt_iscsi_bhs_status status,
					     u8 reason, u8 offset)
{
	bhs->reject_reason = reason;
	bhs->bad_byte = offset;
	return status;
}

/* RFC 7143 11.3 */
static enum kt_iscsi_bhs_status kt_iscsi_dec_cmd(const u8 *buf,
						 struct kt_iscsi_bhs *bhs)
{
	bhs->cmd.read = buf[OFF_FLAGS] & KT_ISCSI_CMD_READ;
	bhs->cmd.write = buf[OFF_FLAGS] & KT_ISCSI_CMD_WRITE;
	bhs->cmd.attr = buf[OFF_FLAGS] & KT_ISCSI_CMD_ATTR_MASK;
	bhs->cmd.exp_xfer_len = get_unaligned_be32(&buf[20]);
	bhs->cmdsn = get_unaligned_be32(&buf[OFF_CMDSN]);
	bhs->exp_statsn = get_unaligned_be32(&buf[OFF_EXPSTATSN]);
	bhs->cdb = &buf[32];

	/*
	 * RFC 7143 11.3.1: R and W may both be set (bidirectional) and may be
	 * set with no data, but must not both be clear when data is expected.
	 */
	if (bhs->cmd.exp_xfer_len && !bhs->cmd.read && !bhs->cmd.write)
		return kt_iscsi_bad(bhs, KT_ISCSI_BHS_NO_DIRECTION,
				    KT_ISCSI_REJECT_INVALID_FIELD, OFF_FLAGS);
	return KT_ISCSI_BHS_OK;
}

/* RFC 7143 11.5 */
static void kt_iscsi_dec_tmf(const u8 *buf, struct kt_iscsi_bhs *bhs)
{
	/*
	 * Functions outside 1..8 are left to the task management code, which
	 * answers them with a TMF Response (RFC 7143 11.6.1), not a Reject.
	 */
	bhs->tmf.function = buf[OFF_FLAGS] & KT_ISCSI_TMF_FUNCTION_MASK;
	bhs->tmf.rtt = get_unaligned_be32(&buf[20]);
	bhs->cmdsn = get_unaligned_be32(&buf[OFF_CMDSN]);
	bhs->exp_statsn = get_unaligned_be32(&buf[OFF_EXPSTATSN]);
	bhs->tmf.ref_cmdsn = get_unaligned_be32(&buf[32]);
	bhs->tmf.exp_datasn = get_unaligned_be32(&buf[36]);
}

/* RFC 7143 11.12 */
static enum kt_iscsi_bhs_status kt_iscsi_dec_login(const u8 *buf,
						   struct kt_iscsi_bhs *bhs)
{
	u8 flags = buf[OFF_FLAGS];

	bhs->login.transit = flags & KT_ISCSI_LOGIN_TRANSIT;
	bhs->login.cont = flags & KT_ISCSI_LOGIN_CONTINUE;
	bhs->login.csg = (flags & KT_ISCSI_LOGIN_CSG_MASK) >>
			 KT_ISCSI_LOGIN_CSG_SHIFT;
	bhs->login.version_max = buf[2];
	bhs->login.version_min = buf[3];
	memcpy(bhs->login.isid, &buf[8], KT_ISCSI_ISID_LEN);
	bhs->login.tsih = get_unaligned_be16(&buf[14]);
	bhs->login.cid = get_unaligned_be16(&buf[20]);
	bhs->cmdsn = get_unaligned_be32(&buf[OFF_CMDSN]);
	bhs->exp_statsn = get_unaligned_be32(&buf[OFF_EXPSTATSN]);

	/* RFC 7143 11.12.2: a Login Request with C = 1 must have T = 0 */
	if (bhs->login.transit && bhs->login.cont)
		return kt_iscsi_bad(bhs, KT_ISCSI_BHS_BAD_CONTINUE,
				    KT_ISCSI_REJECT_PROTOCOL_ERROR, OFF_FLAGS);

	/*
	 * RFC 7143 11.12.3: stage 2 is reserved, and a request cannot be sent
	 * from FullFeaturePhase: login ends when the target answers T = 1
	 * with NSG = 3.
	 */
	if (bhs->login.csg != KT_ISCSI_STAGE_SECURITY &&
	    bhs->login.csg != KT_ISCSI_STAGE_OPERATIONAL)
		return kt_iscsi_bad(bhs, KT_ISCSI_BHS_BAD_CSG,
				    KT_ISCSI_REJECT_PROTOCOL_ERROR, OFF_FLAGS);

	/* RFC 7143 11.12.3: NSG is reserved unless T = 1 */
	if (!bhs->login.transit)
		return KT_ISCSI_BHS_OK;

	bhs->login.nsg = flags & KT_ISCSI_LOGIN_NSG_MASK;
	if (bhs->login.nsg == 2)
		return kt_iscsi_bad(bhs, KT_ISCSI_BHS_BAD_NSG,
				    KT_ISCSI_REJECT_PROTOCOL_ERROR, OFF_FLAGS);

	/* RFC 7143 6.3, 11.12.1: a transit only ever moves forward */
	if (bhs->login.nsg <= bhs->login.csg)
		return kt_iscsi_bad(bhs, KT_ISCSI_BHS_BAD_TRANSITION,
				    KT_ISCSI_REJECT_PROTOCOL_ERROR, OFF_FLAGS);
	return KT_ISCSI_BHS_OK;
}

/* RFC 7143 11.10 */
static enum kt_iscsi_bhs_status kt_iscsi_dec_text(const u8 *buf,
						  struct kt_iscsi_bhs *bhs)
{
	bhs->text.cont = buf[OFF_FLAGS] & KT_ISCSI_TEXT_CONTINUE;
	bhs->ttt = get_unaligned_be32(&buf[OFF_TTT]);
	bhs->cmdsn = get_unaligned_be32(&buf[OFF_CMDSN]);
	bhs->exp_statsn = get_unaligned_be32(&buf[OFF_EXPSTATSN]);

	/* RFC 7143 11.10.2: a Text Request with C = 1 must have F = 0 */
	if (bhs->text.cont && bhs->final)
		return kt_iscsi_bad(bhs, KT_ISCSI_BHS_BAD_CONTINUE,
				    KT_ISCSI_REJECT_PROTOCOL_ERROR, OFF_FLAGS);
	return KT_ISCSI_BHS_OK;
}

/* RFC 7143 11.7 */
static void kt_iscsi_dec_data_out(const u8 *buf, struct kt_iscsi_bhs *bhs)
{
	bhs->ttt = get_unaligned_be32(&buf[OFF_TTT]);
	bhs->exp_statsn = get_unaligned_be32(&buf[OFF_EXPSTATSN]);
	bhs->data.datasn = get_unaligned_be32(&buf[36]);
	bhs->data.offset = get_unaligned_be32(&buf[40]);
}

/* RFC 7143 11.14 */
static enum kt_iscsi_bhs_status kt_iscsi_dec_logout(const u8 *buf,
						    struct kt_iscsi_bhs *bhs)
{
	bhs->logout.reason = buf[OFF_FLAGS] & KT_ISCSI_LOGOUT_REASON_MASK;
	bhs->logout.cid = get_unaligned_be16(&buf[20]);
	bhs->cmdsn = get_unaligned_be32(&buf[OFF_CMDSN]);
	bhs->exp_statsn = get_unaligned_be32(&buf[OFF_EXPSTATSN]);

	/* RFC 7143 11.14.1: codes 3..127 are reserved, see RFC 7143 11 */
	if (bhs->logout.reason > KT_ISCSI_LOGOUT_REMOVE_FOR_RECOVERY)
		return kt_iscsi_bad(bhs, KT_ISCSI_BHS_RESERVED_VALUE,
				    KT_ISCSI_REJECT_PROTOCOL_ERROR, OFF_FLAGS);
	return KT_ISCSI_BHS_OK;
}

/* RFC 7143 11.16 */
static enum kt_iscsi_bhs_status kt_iscsi_dec_snack(const u8 *buf,
						   struct kt_iscsi_bhs *bhs)
{
	bhs->snack.type = buf[OFF_FLAGS] & KT_ISCSI_SNACK_TYPE_MASK;
	bhs->ttt = get_unaligned_be32(&buf[OFF_TTT]);
	bhs->exp_statsn = get_unaligned_be32(&buf[OFF_EXPSTATSN]);
	bhs->snack.begrun = get_unaligned_be32(&buf[40]);
	bhs->snack.runlength = get_unaligned_be32(&buf[44]);

	/* RFC 7143 11.16.1: types 4..15 are reserved, see RFC 7143 11 */
	if (bhs->snack.type > KT_ISCSI_SNACK_RDATA)
		return kt_iscsi_bad(bhs, KT_ISCSI_BHS_RESERVED_VALUE,
				    KT_ISCSI_REJECT_PROTOCOL_ERROR, OFF_FLAGS);
	return KT_ISCSI_BHS_OK;
}

/* RFC 7143 11.18 */
static enum kt_iscsi_bhs_status kt_iscsi_dec_nop_out(const u8 *buf,
						     struct kt_iscsi_bhs *bhs)
{
	bhs->ttt = get_unaligned_be32(&buf[OFF_TTT]);
	bhs->cmdsn = get_unaligned_be32(&buf[OFF_CMDSN]);
	bhs->exp_statsn = get_unaligned_be32(&buf[OFF_EXPSTATSN]);

	/*
	 * RFC 7143 11.18.1: a NOP-Out that wants no answer (ITT 0xffffffff)
	 * must be immediate, or it would consume a CmdSN nobody acknowledges.
	 */
	if (bhs->itt == KT_ISCSI_RSVD_TAG && !bhs->immediate)
		return kt_iscsi_bad(bhs, KT_ISCSI_BHS_BAD_NOP_ITT,
				    KT_ISCSI_REJECT_PROTOCOL_ERROR, OFF_OPCODE);
	return KT_ISCSI_BHS_OK;
}

enum kt_iscsi_bhs_status kt_iscsi_bhs_decode(const u8 *buf, size_t len,
					     u32 max_data_len,
					     struct kt_iscsi_bhs *bhs)
{
	memset(bhs, 0, sizeof(*bhs));
	if (len < KT_ISCSI_BHS_LEN)
		return KT_ISCSI_BHS_TRUNCATED;

	/* RFC 7143 11.2.1: the fields every PDU has */
	bhs->opcode = buf[OFF_OPCODE] & KT_ISCSI_OP_MASK;
	bhs->flags = buf[OFF_FLAGS];
	bhs->final = buf[OFF_FLAGS] & KT_ISCSI_FLAG_FINAL;
	bhs->ahs_len = buf[OFF_AHS_LEN] * 4;
	bhs->data_len = get_unaligned_be24(&buf[OFF_DSL]);
	bhs->lun = get_unaligned_be64(&buf[OFF_LUN]);
	bhs->itt = get_unaligned_be32(&buf[OFF_ITT]);

	/* RFC 7143 11.2.1.2: target opcodes all have bit 5 set */
	if (bhs->opcode & KT_ISCSI_OP_TARGET)
		return kt_iscsi_bad(bhs, KT_ISCSI_BHS_TARGET_OPCODE,
				    KT_ISCSI_REJECT_PROTOCOL_ERROR, OFF_OPCODE);

	switch (bhs->opcode) {
	case KT_ISCSI_OP_NOP_OUT:
	case KT_ISCSI_OP_SCSI_CMD:
	case KT_ISCSI_OP_TMF_REQ:
	case KT_ISCSI_OP_LOGIN_REQ:
	case KT_ISCSI_OP_TEXT_REQ:
	case KT_ISCSI_OP_LOGOUT_REQ:
		/* RFC 7143 11.2.1.1 */
		bhs->immediate = buf[OFF_OPCODE] & KT_ISCSI_OP_IMMEDIATE;
		break;
	case KT_ISCSI_OP_DATA_OUT:
	case KT_ISCSI_OP_SNACK:
		/* RFC 7143 11.7, 11.16: no I bit, the bit is reserved */
		break;
	default:
		/* RFC 7143 11.2.1.2: undefined, or vendor specific 0x1c-0x1e */
		return kt_iscsi_bad(bhs, KT_ISCSI_BHS_UNKNOWN_OPCODE,
				    KT_ISCSI_REJECT_NOT_SUPPORTED, OFF_OPCODE);
	}

	/* RFC 7143 13.12: nothing longer than MaxRecvDataSegmentLength */
	if (bhs->data_len > max_data_len)
		return kt_iscsi_bad(bhs, KT_ISCSI_BHS_DATA_TOO_LONG,
				    KT_ISCSI_REJECT_PROTOCOL_ERROR, OFF_DSL);

	switch (bhs->opcode) {
	case KT_ISCSI_OP_NOP_OUT:
		return kt_iscsi_dec_nop_out(buf, bhs);
	case KT_ISCSI_OP_SCSI_CMD:
		return kt_iscsi_dec_cmd(buf, bhs);
	case KT_ISCSI_OP_TMF_REQ:
		kt_iscsi_dec_tmf(buf, bhs);
		return KT_ISCSI_BHS_OK;
	case KT_ISCSI_OP_LOGIN_REQ:
		return kt_iscsi_dec_login(buf, bhs);
	case KT_ISCSI_OP_TEXT_REQ:
		return kt_iscsi_dec_text(buf, bhs);
	case KT_ISCSI_OP_DATA_OUT:
		kt_iscsi_dec_data_out(buf, bhs);
		return KT_ISCSI_BHS_OK;
	case KT_ISCSI_OP_LOGOUT_REQ:
		return kt_iscsi_dec_logout(buf, bhs);
	default:
		return kt_iscsi_dec_snack(buf, bhs);
	}
}

const char *kt_iscsi_bhs_status_name(enum kt_iscsi_bhs_status status)
{
	switch (status) {
	case KT_ISCSI_BHS_OK:
		return "ok";
	case KT_ISCSI_BHS_TRUNCATED:
		return "truncated";
	case KT_ISCSI_BHS_UNKNOWN_OPCODE:
		return "unknown-opcode";
	case KT_ISCSI_BHS_TARGET_OPCODE:
		return "target-opcode";
	case KT_ISCSI_BHS_DATA_TOO_LONG:
		return "data-too-long";
	case KT_ISCSI_BHS_RESERVED_VALUE:
		return "reserved-value";
	case KT_ISCSI_BHS_BAD_CSG:
		return "bad-csg";
	case KT_ISCSI_BHS_BAD_NSG:
		return "bad-nsg";
	case KT_ISCSI_BHS_BAD_TRANSITION:
		return "bad-transition";
	case KT_ISCSI_BHS_BAD_CONTINUE:
		return "bad-continue";
	case KT_ISCSI_BHS_BAD_NOP_ITT:
		return "bad-nop-itt";
	case KT_ISCSI_BHS_NO_DIRECTION:
		return "no-direction";
	}
	return "invalid";
}

u32 kt_iscsi_pdu_len(const struct kt_iscsi_bhs *bhs, bool hdr_digest,
		     bool data_digest)
{
	u32 n = KT_ISCSI_BHS_LEN + bhs->ahs_len;

	/* RFC 7143 11.2: BHS, AHS, HeaderDigest, DataSegment, DataDigest */
	if (hdr_digest)
		n += KT_ISCSI_DIGEST_LEN;
	if (bhs->data_len) {
		n += kt_iscsi_pad4(bhs->data_len);
		if (data_digest)
			n += KT_ISCSI_DIGEST_LEN;
	}
	return n;
}

/* Zero the whole BHS, then write byte 0, byte 1 and DataSegmentLength. */
static void kt_iscsi_put_common(u8 *bhs, u8 opcode, u8 flags, u32 data_len)
{
	memset(bhs, 0, KT_ISCSI_BHS_LEN);
	bhs[OFF_OPCODE] = opcode;
	bhs[OFF_FLAGS] = flags;
	put_unaligned_be24(data_len, &bhs[OFF_DSL]);
}

/* StatSN, ExpCmdSN, MaxCmdSN sit at 24, 28, 32 in every target PDU. */
static void kt_iscsi_put_sns(u8 *bhs, u32 statsn, u32 exp_cmdsn, u32 max_cmdsn)
{
	put_unaligned_be32(statsn, &bhs[OFF_STATSN]);
	put_unaligned_be32(exp_cmdsn, &bhs[OFF_EXPCMDSN]);
	put_unaligned_be32(max_cmdsn, &bhs[OFF_MAXCMDSN]);
}

/* RFC 7143 11.19 */
int kt_iscsi_encode_nop_in(u8 *bhs, const struct kt_iscsi_nop_in *p)
{
	/* RFC 7143 11.19.1: a reply to a NOP-Out carries no TTT */
	if (p->data_len > KT_ISCSI_MAX_DSL ||
	    (p->itt != KT_ISCSI_RSVD_TAG && p->ttt != KT_ISCSI_RSVD_TAG))
		return -EINVAL;

	kt_iscsi_put_common(bhs, KT_ISCSI_OP_NOP_IN, KT_ISCSI_FLAG_FINAL,
			    p->data_len);
	/* RFC 7143 11.19.3: the LUN is reserved without a valid TTT */
	if (p->ttt != KT_ISCSI_RSVD_TAG)
		put_unaligned_be64(p->lun, &bhs[OFF_LUN]);
	put_unaligned_be32(p->itt, &bhs[OFF_ITT]);
	put_unaligned_be32(p->ttt, &bhs[OFF_TTT]);
	kt_iscsi_put_sns(bhs, p->statsn, p->exp_cmdsn, p->max_cmdsn);
	return 0;
}

/* RFC 7143 11.4 */
int kt_iscsi_encode_scsi_rsp(u8 *bhs, const struct kt_iscsi_scsi_rsp *p)
{
	const u8 bidi = KT_ISCSI_RSP_BIDI_OVERFLOW | KT_ISCSI_RSP_BIDI_UNDERFLOW;
	const u8 uni = KT_ISCSI_RSP_OVERFLOW | KT_ISCSI_RSP_UNDERFLOW;

	/* RFC 7143 11.4.1: o and u, O and U, are mutually exclusive */
	if (p->data_len > KT_ISCSI_MAX_DSL || (p->flags & ~(bidi | uni)) ||
	    (p->flags & bidi) == bidi || (p->flags & uni) == uni)
		return -EINVAL;

	kt_iscsi_put_common(bhs, KT_ISCSI_OP_SCSI_RSP,
			    KT_ISCSI_FLAG_FINAL | p->flags, p->data_len);
	bhs[2] = p->response;
	bhs[3] = p->status;
	put_unaligned_be32(p->itt, &bhs[OFF_ITT]);
	put_unaligned_be32(p->snack_tag, &bhs[20]);
	kt_iscsi_put_sns(bhs, p->statsn, p->exp_cmdsn, p->max_cmdsn);
	put_unaligned_be32(p->exp_datasn, &bhs[36]);
	/* RFC 7143 11.4.5, 11.4.6: residuals are reserved unless flagged */
	if (p->flags & bidi)
		put_unaligned_be32(p->bidi_residual, &bhs[40]);
	if (p->flags & uni)
		put_unaligned_be32(p->residual, &bhs[44]);
	return 0;
}

/* RFC 7143 11.6 */
int kt_iscsi_encode_tmf_rsp(u8 *bhs, const struct kt_iscsi_tmf_rsp *p)
{
	kt_iscsi_put_common(bhs, KT_ISCSI_OP_TMF_RSP, KT_ISCSI_FLAG_FINAL, 0);
	bhs[2] = p->response;
	put_unaligned_be32(p->itt, &bhs[OFF_ITT]);
	kt_iscsi_put_sns(bhs, p->statsn, p->exp_cmdsn, p->max_cmdsn);
	return 0;
}

/* RFC 7143 11.13 */
int kt_iscsi_encode_login_rsp(u8 *bhs, const struct kt_iscsi_login_rsp *p)
{
	u8 flags;

	/* RFC 7143 11.13.7: C = 1 needs T = 0; 11.12.3: stages fit 2 bits */
	if (p->data_len > KT_ISCSI_MAX_DSL || (p->transit && p->cont) ||
	    p->csg > KT_ISCSI_STAGE_FULL_FEATURE ||
	    p->nsg > KT_ISCSI_STAGE_FULL_FEATURE)
		return -EINVAL;

	flags = p->csg << KT_ISCSI_LOGIN_CSG_SHIFT;
	if (p->transit)
		flags |= KT_ISCSI_LOGIN_TRANSIT | p->nsg;
	if (p->cont)
		flags |= KT_ISCSI_LOGIN_CONTINUE;

	kt_iscsi_put_common(bhs, KT_ISCSI_OP_LOGIN_RSP, flags, p->data_len);
	bhs[2] = p->version_max;
	bhs[3] = p->version_active;
	memcpy(&bhs[8], p->isid, KT_ISCSI_ISID_LEN);
	put_unaligned_be16(p->tsih, &bhs[14]);
	put_unaligned_be32(p->itt, &bhs[OFF_ITT]);
	kt_iscsi_put_sns(bhs, p->statsn, p->exp_cmdsn, p->max_cmdsn);
	bhs[36] = KT_ISCSI_LOGIN_CLASS(p->status);
	bhs[37] = KT_ISCSI_LOGIN_DETAIL(p->status);
	return 0;
}

/* RFC 7143 11.11 */
int kt_iscsi_encode_text_rsp(u8 *bhs, const struct kt_iscsi_text_rsp *p)
{
	u8 flags = 0;

	/* RFC 7143 11.11.2: C = 1 needs F = 0 */
	if (p->data_len > KT_ISCSI_MAX_DSL || (p->final && p->cont))
		return -EINVAL;

	if (p->final)
		flags |= KT_ISCSI_FLAG_FINAL;
	if (p->cont)
		flags |= KT_ISCSI_TEXT_CONTINUE;

	kt_iscsi_put_common(bhs, KT_ISCSI_OP_TEXT_RSP, flags, p->data_len);
	put_unaligned_be64(p->lun, &bhs[OFF_LUN]);
	put_unaligned_be32(p->itt, &bhs[OFF_ITT]);
	put_unaligned_be32(p->ttt, &bhs[OFF_TTT]);
	kt_iscsi_put_sns(bhs, p->statsn, p->exp_cmdsn, p->max_cmdsn);
	return 0;
}

/* RFC 7143 11.7 */
int kt_iscsi_encode_data_in(u8 *bhs, const struct kt_iscsi_data_in *p)
{
	const u8 resid = KT_ISCSI_DATA_OVERFLOW | KT_ISCSI_DATA_UNDERFLOW;
	const u8 known = KT_ISCSI_FLAG_FINAL | KT_ISCSI_DATA_ACK | resid |
			 KT_ISCSI_DATA_STATUS;
	bool status = p->flags & KT_ISCSI_DATA_STATUS;
	bool ack = p->flags & KT_ISCSI_DATA_ACK;

	/*
	 * RFC 7143 11.7.3: S needs F; O and U are exclusive and only mean
	 * something with S.
	 */
	if (p->data_len > KT_ISCSI_MAX_DSL || (p->flags & ~known) ||
	    (status && !(p->flags & KT_ISCSI_FLAG_FINAL)) ||
	    (p->flags & resid) == resid || (!status && (p->flags & resid)))
		return -EINVAL;

	kt_iscsi_put_common(bhs, KT_ISCSI_OP_DATA_IN, p->flags, p->data_len);
	put_unaligned_be32(p->itt, &bhs[OFF_ITT]);
	/* RFC 7143 11.7.4: TTT and LUN only serve a DataACK request (A) */
	if (ack)
		put_unaligned_be64(p->lun, &bhs[OFF_LUN]);
	put_unaligned_be32(ack ? p->ttt : KT_ISCSI_RSVD_TAG, &bhs[OFF_TTT]);
	kt_iscsi_put_sns(bhs, status ? p->statsn : 0, p->exp_cmdsn,
			 p->max_cmdsn);
	put_unaligned_be32(p->datasn, &bhs[36]);
	put_unaligned_be32(p->offset, &bhs[40]);
	if (status) {
		bhs[3] = p->status;
		if (p->flags & resid)
			put_unaligned_be32(p->residual, &bhs[44]);
	}
	return 0;
}

/* RFC 7143 11.15 */
int kt_iscsi_encode_logout_rsp(u8 *bhs, const struct kt_iscsi_logout_rsp *p)
{
	kt_iscsi_put_common(bhs, KT_ISCSI_OP_LOGOUT_RSP, KT_ISCSI_FLAG_FINAL,
			    0);
	bhs[2] = p->response;
	put_unaligned_be32(p->itt, &bhs[OFF_ITT]);
	kt_iscsi_put_sns(bhs, p->statsn, p->exp_cmdsn, p->max_cmdsn);
	put_unaligned_be16(p->time2wait, &bhs[40]);
	put_unaligned_be16(p->time2retain, &bhs[42]);
	return 0;
}

/* RFC 7143 11.8 */
int kt_iscsi_encode_r2t(u8 *bhs, const struct kt_iscsi_r2t *p)
{
	/* RFC 7143 11.8.4, 11.8.5: a real TTT and a non-zero length */
	if (p->ttt == KT_ISCSI_RSVD_TAG || !p->desired_len)
		return -EINVAL;

	kt_iscsi_put_common(bhs, KT_ISCSI_OP_R2T, KT_ISCSI_FLAG_FINAL, 0);
	put_unaligned_be64(p->lun, &bhs[OFF_LUN]);
	put_unaligned_be32(p->itt, &bhs[OFF_ITT]);
	put_unaligned_be32(p->ttt, &bhs[OFF_TTT]);
	kt_iscsi_put_sns(bhs, p->statsn, p->exp_cmdsn, p->max_cmdsn);
	put_unaligned_be32(p->r2tsn, &bhs[36]);
	put_unaligned_be32(p->offset, &bhs[40]);
	put_unaligned_be32(p->desired_len, &bhs[44]);
	return 0;
}

/* RFC 7143 11.9 */
int kt_iscsi_encode_async(u8 *bhs, const struct kt_iscsi_async *p)
{
	if (p->data_len > KT_ISCSI_MAX_DSL)
		return -EINVAL;

	kt_iscsi_put_common(bhs, KT_ISCSI_OP_ASYNC, KT_ISCSI_FLAG_FINAL,
			    p->data_len);
	/* RFC 7143 11.9: the LUN is only meaningful for a SCSI event */
	if (p->event == KT_ISCSI_ASYNC_SCSI_EVENT)
		put_unaligned_be64(p->lun, &bhs[OFF_LUN]);
	put_unaligned_be32(KT_ISCSI_RSVD_TAG, &bhs[OFF_ITT]);
	kt_iscsi_put_sns(bhs, p->statsn, p->exp_cmdsn, p->max_cmdsn);
	bhs[36] = p->event;
	bhs[37] = p->vcode;
	put_unaligned_be16(p->param1, &bhs[38]);
	put_unaligned_be16(p->param2, &bhs[40]);
	put_unaligned_be16(p->param3, &bhs[42]);
	return 0;
}

/* RFC 7143 11.17 */
int kt_iscsi_encode_reject(u8 *bhs, const struct kt_iscsi_reject *p)
{
	/* RFC 7143 11.17.1: 0x01 is reserved, 0x0b deprecated, 0x0d+ unassigned */
	if (p->data_len > KT_ISCSI_MAX_DSL ||
	    p->reason < KT_ISCSI_REJECT_DATA_DIGEST || p->reason == 0x0b ||
	    p->reason > KT_ISCSI_REJECT_WAITING_LOGOUT)
		return -EINVAL;

	kt_iscsi_put_common(bhs, KT_ISCSI_OP_REJECT, KT_ISCSI_FLAG_FINAL,
			    p->data_len);
	bhs[2] = p->reason;
	put_unaligned_be32(KT_ISCSI_RSVD_TAG, &bhs[OFF_ITT]);
	kt_iscsi_put_sns(bhs, p->statsn, p->exp_cmdsn, p->max_cmdsn);
	put_unaligned_be32(p->datasn, &bhs[36]);
	return 0;
}
