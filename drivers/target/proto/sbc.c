// SPDX-License-Identifier: GPL-2.0
/*
 * SBC-3 responses and decoders: READ CAPACITY, WRITE SAME, the UNMAP
 * parameter list, GET LBA STATUS and READ DEFECT DATA. No allocation,
 * locking or logging here: this file is compiled unchanged into the
 * userspace unit and fuzz tests.
 */
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/bits.h>
#include <linux/unaligned.h>

#include <ktarget/proto/cdb.h>
#include <ktarget/proto/sense.h>
#include <ktarget/proto/spc.h>

/* The most GET LBA STATUS descriptors one command returns */
#define KT_SBC_LBA_STATUS_MAX	1024

static sense_reason_t kt_sbc_bad_cdb(struct kt_sense_field *field, u16 byte,
				     int bit)
{
	*field = bit < 0 ? KT_FIELD_CDB(byte) : KT_FIELD_CDB_BIT(byte, bit);
	return KT_SENSE_INVALID_CDB_FIELD;
}

static sense_reason_t kt_sbc_bad_param(struct kt_sense_field *field,
				       u32 byte)
{
	*field = KT_FIELD_PARAM(byte > 0xffff ? 0xffff : byte);
	return KT_SENSE_INVALID_PARAM_FIELD;
}

/* SBC-3 READ CAPACITY (10) and (16) */
sense_reason_t kt_sbc_read_capacity(const struct kt_lu_info *lu,
				    const u8 *cdb, u8 *buf, u32 buf_len,
				    u32 *data_len,
				    struct kt_sense_field *field)
{
	u64 last = lu->nr_blocks ? lu->nr_blocks - 1 : 0;
	struct kt_spc_out o;
	u16 lbp = 0;

	*data_len = 0;
	*field = (struct kt_sense_field){ 0 };

	if (cdb[0] == READ_CAPACITY) {
		/* the LOGICAL BLOCK ADDRESS must be zero unless PMI is set */
		if (!(cdb[8] & 0x01) && get_unaligned_be32(&cdb[2]))
			return kt_sbc_bad_cdb(field, 2, -1);
		kt_spc_out_init(&o, buf, buf_len, 8);
		/* FFFFFFFFh: too big for this command, use READ CAPACITY (16) */
		kt_spc_out_be32(&o, last >= 0xffffffffULL ? 0xffffffff : last);
		kt_spc_out_be32(&o, lu->block_size);
		*data_len = kt_spc_out_len(&o);
		return KT_SENSE_NONE;
	}

	if ((cdb[1] & 0x1f) != 0x10)
		return kt_sbc_bad_cdb(field, 1, 4);
	if (!(cdb[14] & 0x01) && get_unaligned_be64(&cdb[2]))
		return kt_sbc_bad_cdb(field, 2, -1);

	if (kt_spc_lbpme(lu)) {
		lbp |= BIT(15);				/* LBPME */
		if (lu->flags & KT_LU_LBPRZ)
			lbp |= BIT(14);			/* LBPRZ */
	}
	lbp |= lu->lowest_aligned_lba & 0x3fff;

	kt_spc_out_init(&o, buf, buf_len, get_unaligned_be32(&cdb[10]));
	kt_spc_out_be64(&o, last);
	kt_spc_out_be32(&o, lu->block_size);
	/* P_TYPE (the type less one) and PROT_EN; byte 13: P_I_EXPONENT 0 */
	kt_spc_out_u8(&o, lu->pi_type ? ((lu->pi_type - 1) << 1) | 0x01 : 0);
	kt_spc_out_u8(&o, lu->lbppbe & 0x0f);	/* LBPPBE */
	kt_spc_out_be16(&o, lbp);
	kt_spc_out_fill(&o, 0, 16);
	*data_len = kt_spc_out_len(&o);
	return KT_SENSE_NONE;
}

/* SBC-3 WRITE SAME (10) and (16) */
sense_reason_t kt_sbc_write_same(const struct kt_lu_info *lu, const u8 *cdb,
				 struct kt_sbc_ws *ws,
				 struct kt_sense_field *field)
{
	bool ten = cdb[0] == WRITE_SAME;
	u8 b1 = cdb[1], nr_byte = ten ? 7 : 10;

	*ws = (struct kt_sbc_ws){ 0 };
	*field = (struct kt_sense_field){ 0 };

	/*
	 * WRPROTECT only where the LU has PI, and with a block to carry it
	 * (not NDOB); PBDATA/LBDATA obsolete, no ANC_SUP
	 */
	if ((b1 & 0xe0) && (!lu->pi_type || (!ten && (b1 & 0x01))))
		return kt_sbc_bad_cdb(field, 1, 7);
	if (b1 & 0x10)
		return kt_sbc_bad_cdb(field, 1, 4);
	if ((b1 & 0x08) && !(lu->flags & KT_LU_TPWS))
		return kt_sbc_bad_cdb(field, 1, 3);
	if (b1 & 0x06)
		return kt_sbc_bad_cdb(field, 1, b1 & 0x04 ? 2 : 1);
	if (ten && (b1 & 0x01))
		return kt_sbc_bad_cdb(field, 1, 0);

	if (ten) {
		ws->lba = get_unaligned_be32(&cdb[2]);
		ws->nr_blocks = get_unaligned_be16(&cdb[7]);
	} else {
		ws->lba = get_unaligned_be64(&cdb[2]);
		ws->nr_blocks = get_unaligned_be32(&cdb[10]);
	}
	if (b1 & 0x08)
		ws->flags |= KT_SBC_WS_UNMAP;
	if (!ten && (b1 & 0x01))
		ws->flags |= KT_SBC_WS_NDOB;

	/* range first: 0 blocks past the end is LBA OUT OF RANGE (libiscsi) */
	if (!kt_cdb_range_ok(ws->lba, ws->nr_blocks, lu->nr_blocks))
		return KT_SENSE_LBA_OUT_OF_RANGE;
	/* Block Limits VPD: WSNZ is one */
	if (!ws->nr_blocks)
		return kt_sbc_bad_cdb(field, nr_byte, -1);
	if (lu->max_write_same_len && ws->nr_blocks > lu->max_write_same_len)
		return kt_sbc_bad_cdb(field, nr_byte, -1);
	return KT_SENSE_NONE;
}

/* SBC-3 UNMAP: the parameter list */
sense_reason_t kt_sbc_unmap_check(const struct kt_lu_info *lu,
				  const u8 *param, u32 len, u32 *nr,
				  struct kt_sense_field *field)
{
	u32 bd_len, count, i, off;
	u64 lba, total = 0;
	u32 blocks;

	*nr = 0;
	*field = (struct kt_sense_field){ 0 };

	/* an empty list is not an error; a partial header is */
	if (!len)
		return KT_SENSE_NONE;
	if (len < KT_SBC_UNMAP_HDR_LEN)
		return KT_SENSE_PARAM_LIST_LENGTH;

	/*
	 * UNMAP BLOCK DESCRIPTOR DATA LENGTH: descriptors that do not fit in
	 * the list, or a trailing partial one, are ignored.
	 */
	bd_len = get_unaligned_be16(&param[2]);
	if (bd_len > len - KT_SBC_UNMAP_HDR_LEN)
		bd_len = len - KT_SBC_UNMAP_HDR_LEN;
	count = bd_len / KT_SBC_UNMAP_DESC_LEN;

	/* FFFFFFFFh in the Block Limits VPD page means no limit */
	if (count > lu->max_unmap_block_desc_count)
		return kt_sbc_bad_param(field, 2);

	for (i = 0; i < count; i++) {
		off = KT_SBC_UNMAP_HDR_LEN + i * KT_SBC_UNMAP_DESC_LEN;
		lba = get_unaligned_be64(&param[off]);
		blocks = get_unaligned_be32(&param[off + 8]);
		if (!kt_cdb_range_ok(lba, blocks, lu->nr_blocks))
			return KT_SENSE_LBA_OUT_OF_RANGE;
		/* MAXIMUM UNMAP LBA COUNT bounds the whole command */
		total += blocks;
		if (lu->max_unmap_lba_count != 0xffffffff &&
		    total > lu->max_unmap_lba_count)
			return kt_sbc_bad_param(field, off + 8);
	}
	*nr = count;
	return KT_SENSE_NONE;
}

void kt_sbc_unmap_desc(const u8 *param, u32 i, u64 *lba, u32 *nr_blocks)
{
	const u8 *d = param + KT_SBC_UNMAP_HDR_LEN + i * KT_SBC_UNMAP_DESC_LEN;

	*lba = get_unaligned_be64(d);
	*nr_blocks = get_unaligned_be32(d + 8);
}

/* SBC-3 GET LBA STATUS */
sense_reason_t kt_sbc_get_lba_status(const struct kt_lu_info *lu,
				     const u8 *cdb, kt_sbc_lba_status_fn fn,
				     void *priv, u8 *buf, u32 buf_len,
				     u32 *data_len,
				     struct kt_sense_field *field)
{
	u64 lba = get_unaligned_be64(&cdb[2]), left, nr;
	u32 alloc = get_unaligned_be32(&cdb[10]), max_desc, n = 0;
	struct kt_spc_out o;
	u8 status;
	int err;

	*data_len = 0;
	*field = (struct kt_sense_field){ 0 };

	if ((cdb[1] & 0x1f) != 0x12)
		return kt_sbc_bad_cdb(field, 1, 4);
	if (lba >= lu->nr_blocks)
		return KT_SENSE_LBA_OUT_OF_RANGE;

	/* as many descriptors as the allocation length holds, at least one */
	max_desc = alloc > 8 ? (alloc - 8) / 16 : 0;
	if (!max_desc)
		max_desc = 1;
	if (max_desc > KT_SBC_LBA_STATUS_MAX)
		max_desc = KT_SBC_LBA_STATUS_MAX;

	kt_spc_out_init(&o, buf, buf_len, alloc);
	kt_spc_out_be32(&o, 0);		/* PARAMETER DATA LENGTH, set below */
	kt_spc_out_be32(&o, 0);

	while (lba < lu->nr_blocks && n < max_desc) {
		/* a descriptor covers at most FFFFFFFFh blocks */
		left = lu->nr_blocks - lba;
		if (left > 0xffffffff)
			left = 0xffffffff;
		nr = left;
		status = KT_SBC_LBA_MAPPED;
		if (fn) {
			err = fn(priv, lba, left, &nr, &status);
			if (err)
				return KT_SENSE_LU_COMM_FAILURE;
			if (!nr || nr > left)
				return KT_SENSE_LU_COMM_FAILURE;
		}
		kt_spc_out_be64(&o, lba);
		kt_spc_out_be32(&o, nr);
		kt_spc_out_u8(&o, status & 0x0f);	/* PROVISIONING STATUS */
		kt_spc_out_fill(&o, 0, 3);
		lba += nr;
		n++;
	}
	kt_spc_out_set_be32(&o, 0, o.off - 4);
	*data_len = kt_spc_out_len(&o);
	return KT_SENSE_NONE;
}

/* SBC-4 WRITE ATOMIC (16), after the table checked its reserved bits */
sense_reason_t kt_sbc_write_atomic(const struct kt_lu_info *lu, const u8 *cdb,
				   struct kt_sense_field *field)
{
	u64 lba = get_unaligned_be64(&cdb[2]);
	u16 boundary = get_unaligned_be16(&cdb[10]);
	u16 nr = get_unaligned_be16(&cdb[12]);
	u32 gran = lu->atomic_granularity;

	*field = (struct kt_sense_field){ 0 };

	/* SBC-4 4.29.2: a boundary above the one offered (none: any) */
	if (boundary && boundary > lu->atomic_max_boundary)
		return kt_sbc_bad_cdb(field, 10, -1);
	if (nr > (boundary ? lu->atomic_max_with_boundary : kt_sbc_atomic_max(lu)))
		return kt_sbc_bad_cdb(field, 12, -1);
	/* lengths and boundaries in whole ATOMIC TRANSFER LENGTH GRANULARITY */
	if (gran && nr % gran)
		return kt_sbc_bad_cdb(field, 12, -1);
	if (gran && boundary % gran)
		return kt_sbc_bad_cdb(field, 10, -1);
	/* the first block at a multiple of ATOMIC ALIGNMENT */
	if (lu->atomic_alignment && lba % lu->atomic_alignment)
		return kt_sbc_bad_cdb(field, 2, -1);
	return KT_SENSE_NONE;
}

/* SBC-3 READ DEFECT DATA (10) and (12): no defects */
sense_reason_t kt_sbc_read_defect_data(const u8 *cdb, u8 *buf, u32 buf_len,
				       u32 *data_len,
				       struct kt_sense_field *field)
{
	struct kt_spc_out o;

	*field = (struct kt_sense_field){ 0 };

	if (cdb[0] == READ_DEFECT_DATA) {
		kt_spc_out_init(&o, buf, buf_len, get_unaligned_be16(&cdb[7]));
		kt_spc_out_u8(&o, 0);
		/* REQ_PLIST, REQ_GLIST, DEFECT LIST FORMAT as requested */
		kt_spc_out_u8(&o, cdb[2] & 0x1f);
		kt_spc_out_be16(&o, 0);		/* DEFECT LIST LENGTH */
	} else {
		kt_spc_out_init(&o, buf, buf_len, get_unaligned_be32(&cdb[6]));
		kt_spc_out_u8(&o, 0);
		kt_spc_out_u8(&o, cdb[1] & 0x1f);
		kt_spc_out_be16(&o, 0);		/* GENERATION CODE */
		kt_spc_out_be32(&o, 0);		/* DEFECT LIST LENGTH */
	}
	*data_len = kt_spc_out_len(&o);
	return KT_SENSE_NONE;
}

/* SBC-3 SANITIZE: the CDB, after the table checked its reserved bits */
sense_reason_t kt_sbc_sanitize_cdb(const struct kt_lu_info *lu, const u8 *cdb,
				   struct kt_sbc_sanitize *s,
				   struct kt_sense_field *field)
{
	*field = (struct kt_sense_field){ 0 };
	*s = (struct kt_sbc_sanitize){
		.sa = cdb[1] & 0x1f,
		.immed = cdb[1] & 0x80,
		.ause = cdb[1] & 0x20,
		.param_len = get_unaligned_be16(&cdb[7]),
	};

	/* OVERWRITE takes a header and a pattern of 1 to block-size bytes */
	if (s->sa == KT_SBC_SANITIZE_OVERWRITE) {
		if (s->param_len <= KT_SBC_SANITIZE_HDR_LEN ||
		    s->param_len > KT_SBC_SANITIZE_HDR_LEN + lu->block_size)
			return kt_sbc_bad_cdb(field, 7, -1);
		return KT_SENSE_NONE;
	}
	/* the other service actions take no parameter list */
	if (s->param_len)
		return kt_sbc_bad_cdb(field, 7, -1);
	return KT_SENSE_NONE;
}

/*
 * SBC-4 5.3 FORMAT UNIT: the CDB, after the table checked its reserved
 * bits. Without FMTDATA, LONGLIST, CMPLST and the DEFECT LIST FORMAT say
 * nothing (SBC-4 5.3.1); with it, the parameter list is its header alone
 * (kt_sbc_format_param() refuses a defect list), of the length LONGLIST
 * gives.
 */
void kt_sbc_format_cdb(const u8 *cdb, struct kt_sbc_format *f)
{
	bool fmtdata = cdb[1] & 0x10;

	*f = (struct kt_sbc_format){
		.fmtpinfo = cdb[1] >> 6,
		.param_len = !fmtdata ? 0 : (cdb[1] & 0x20) ?
			     KT_SBC_FORMAT_LONG_HDR : KT_SBC_FORMAT_SHORT_HDR,
	};
}

/*
 * SBC-4 5.3.2: the parameter list header, @len bytes at @param (the
 * f->param_len kt_sbc_format_cdb() asked for). No defect list and no
 * initialization pattern are taken; FOV 0 leaves DPRY, DCRT, STPF and IP
 * zero; with FOV, DPRY, DCRT and STPF ask for what a backstore does
 * anyway. The long header's P_I_INFORMATION and PROTECTION INTERVAL
 * EXPONENT must be 0: one protection interval per logical block.
 */
sense_reason_t kt_sbc_format_param(const u8 *param, u32 len,
				   struct kt_sbc_format *f,
				   struct kt_sense_field *field)
{
	u32 defects;

	*field = (struct kt_sense_field){ 0 };
	if (len < f->param_len)
		return KT_SENSE_PARAM_LIST_LENGTH;
	if (param[0] & 0xf8)
		return kt_sbc_bad_param(field, 0);
	/* FOV 0: DPRY, DCRT, STPF, IP zero; IP: no pattern offered */
	if ((!(param[1] & 0x80) && (param[1] & 0x78)) || (param[1] & 0x08)) {
		*field = KT_FIELD_PARAM_BIT(1, 3);
		return KT_SENSE_INVALID_PARAM_FIELD;
	}
	if (f->param_len == KT_SBC_FORMAT_LONG_HDR) {
		if (param[2])
			return kt_sbc_bad_param(field, 2);
		if (param[3])
			return kt_sbc_bad_param(field, 3);
		defects = get_unaligned_be32(&param[4]);
	} else {
		defects = get_unaligned_be16(&param[2]);
	}
	if (defects)
		return kt_sbc_bad_param(field, f->param_len ==
					KT_SBC_FORMAT_LONG_HDR ? 4 : 2);
	f->pfu = param[0] & 0x07;
	f->immed = param[1] & 0x02;
	return KT_SENSE_NONE;
}

/*
 * SBC-4 5.3.2, FMTPINFO and PROTECTION FIELD USAGE: the protection type
 * they ask for (0 none, 1, 2 or 3), or -EINVAL for a combination SBC-4
 * does not define (or one with a protection interval exponent). @field
 * then points at the field at fault: FMTPINFO 01b the CDB's, a PFU that
 * does not go with FMTPINFO the header's.
 */
int kt_sbc_format_pi_type(const struct kt_sbc_format *f,
			  struct kt_sense_field *field)
{
	*field = (struct kt_sense_field){ 0 };
	switch (f->fmtpinfo) {
	case 0:
	case 2:
		if (!f->pfu)
			return f->fmtpinfo ? 1 : 0;
		break;
	case 3:
		if (f->pfu <= 1)
			return f->pfu ? 3 : 2;
		break;
	default:
		*field = KT_FIELD_CDB_BIT(1, 7);
		return -EINVAL;
	}
	*field = KT_FIELD_PARAM_BIT(0, 2);
	return -EINVAL;
}

/* SBC-3 SANITIZE OVERWRITE parameter list, @len bytes at @param */
sense_reason_t kt_sbc_sanitize_overwrite(const struct kt_lu_info *lu,
					 const u8 *param, u32 len,
					 struct kt_sbc_sanitize *s,
					 struct kt_sense_field *field)
{
	u16 pattern_len;

	*field = (struct kt_sense_field){ 0 };
	if (len <= KT_SBC_SANITIZE_HDR_LEN)
		return KT_SENSE_PARAM_LIST_LENGTH;

	/* TEST is for vendor tests of the sanitize itself: none here */
	if (param[0] & 0x60) {
		*field = KT_FIELD_PARAM_BIT(0, 6);
		return KT_SENSE_INVALID_PARAM_FIELD;
	}
	/* OVERWRITE COUNT 0 is reserved */
	if (!(param[0] & 0x1f)) {
		*field = KT_FIELD_PARAM_BIT(0, 4);
		return KT_SENSE_INVALID_PARAM_FIELD;
	}
	if (param[1])
		return kt_sbc_bad_param(field, 1);
	/* the list is exactly the header and the pattern */
	pattern_len = get_unaligned_be16(&param[2]);
	if (!pattern_len || pattern_len > lu->block_size ||
	    pattern_len != len - KT_SBC_SANITIZE_HDR_LEN)
		return kt_sbc_bad_param(field, 2);

	s->invert = param[0] & 0x80;
	s->passes = param[0] & 0x1f;
	s->pattern_len = pattern_len;
	return KT_SENSE_NONE;
}
