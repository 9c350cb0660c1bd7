// SPDX-License-Identifier: GPL-2.0
/*
 * Token copy (ODX): POPULATE TOKEN and WRITE USING TOKEN parameter lists,
 * the ROD token's layout, RECEIVE ROD TOKEN INFORMATION. No allocation,
 * locking or logging here: this file is compiled unchanged into the
 * userspace unit and fuzz tests.
 */
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/bits.h>
#include <linux/unaligned.h>

#include <ktarget/proto/out.h>
#include <ktarget/proto/rod.h>

/* Offsets within the parameter lists */
#define PT_FLAGS		2
#define PT_TIMEOUT		4
#define PT_TYPE			8
#define PT_RANGES_LEN		14
#define WUT_FLAGS		2
#define WUT_OFFSET		8
#define WUT_RANGES_LEN		534

static void kt_rod_set(struct kt_xcopy_err *err, u8 key, u16 asc)
{
	memset(err, 0, sizeof(*err));
	err->key = key;
	err->asc = asc >> 8;
	err->ascq = asc & 0xff;
}

void kt_rod_sense(struct kt_xcopy_err *err, u16 asc)
{
	kt_rod_set(err, KT_XCOPY_KEY_ILLEGAL_REQUEST, asc);
}

/* ILLEGAL REQUEST @asc pointing at byte @field of the parameter list */
static enum kt_xcopy_status kt_rod_bad(struct kt_xcopy_err *err, u16 asc,
				       unsigned int field)
{
	kt_rod_set(err, KT_XCOPY_KEY_ILLEGAL_REQUEST, asc);
	err->flags = KT_XCOPY_ERR_SKSV;
	err->field = field;
	return KT_XCOPY_ERROR;
}

static enum kt_xcopy_status kt_rod_bad_len(struct kt_xcopy_err *err)
{
	kt_rod_set(err, KT_XCOPY_KEY_ILLEGAL_REQUEST,
		   KT_XCOPY_ASC_PARAM_LIST_LEN);
	return KT_XCOPY_ERROR;
}

/*
 * The list's DATA LENGTH (bytes 0-1, counting from byte 2) must cover its
 * header and fit in what was sent; @hdr is the header's length, @rl_off
 * where BLOCK DEVICE RANGE DESCRIPTOR LENGTH is. Returns the byte length
 * of the descriptors, or -1 with *@err set.
 */
static int kt_rod_list_len(const u8 *buf, size_t len, unsigned int hdr,
			   unsigned int rl_off, struct kt_xcopy_err *err)
{
	u32 total, ranges;

	if (len < hdr) {
		kt_rod_bad_len(err);
		return -1;
	}
	total = get_unaligned_be16(buf) + 2;
	ranges = get_unaligned_be16(buf + rl_off);
	if (total < hdr || total > len) {
		kt_rod_bad(err, KT_XCOPY_ASC_INVALID_PARAM, 0);
		return -1;
	}
	if (ranges % KT_ROD_RANGE_LEN || ranges > total - hdr) {
		kt_rod_bad(err, KT_XCOPY_ASC_INVALID_PARAM, rl_off);
		return -1;
	}
	if (ranges / KT_ROD_RANGE_LEN > KT_ROD_MAX_RANGES) {
		kt_rod_bad(err, KT_XCOPY_ASC_TOO_MANY_SEGMENTS, rl_off);
		return -1;
	}
	return ranges;
}

static bool kt_rod_overlap(const struct kt_rod_range *a,
			   const struct kt_rod_range *b)
{
	return a->lba < b->lba + b->nr && b->lba < a->lba + a->nr;
}

/*
 * The @n descriptors at @buf + @off into @out, checked against @g: within
 * the LU, not overlapping one another, at most KT_ROD_MAX_BYTES in all.
 * Descriptors of no blocks are dropped (SBC-3: they are not an error).
 */
static enum kt_xcopy_status kt_rod_ranges(const u8 *buf, unsigned int off,
					  unsigned int n,
					  const struct kt_rod_geom *g,
					  unsigned int total_field,
					  struct kt_rod_ranges *out,
					  struct kt_xcopy_err *err)
{
	unsigned int i, j, at;
	struct kt_rod_range r;

	out->nr = 0;
	out->blocks = 0;
	for (i = 0; i < n; i++) {
		at = off + i * KT_ROD_RANGE_LEN;
		r.lba = get_unaligned_be64(buf + at);
		r.nr = get_unaligned_be32(buf + at + 8);
		if (!r.nr)
			continue;
		if (r.lba > g->nr_blocks || r.nr > g->nr_blocks - r.lba)
			return kt_rod_bad(err, KT_XCOPY_ASC_LBA_OUT_OF_RANGE,
					  at);
		for (j = 0; j < out->nr; j++)
			if (kt_rod_overlap(&r, &out->r[j]))
				return kt_rod_bad(err,
						  KT_XCOPY_ASC_INVALID_PARAM,
						  at);
		out->blocks += r.nr;
		/* each term is below 2^32 and there are at most 64 */
		if (out->blocks * g->block_size > KT_ROD_MAX_BYTES)
			return kt_rod_bad(err, KT_XCOPY_ASC_INVALID_PARAM,
					  total_field);
		out->r[out->nr++] = r;
	}
	return KT_XCOPY_OK;
}

enum kt_xcopy_status kt_rod_parse_pt(const u8 *buf, size_t len,
				     const struct kt_rod_geom *g,
				     struct kt_rod_pt *pt,
				     struct kt_xcopy_err *err)
{
	int rl;

	memset(pt, 0, sizeof(*pt));
	rl = kt_rod_list_len(buf, len, KT_ROD_PT_HDR_LEN, PT_RANGES_LEN, err);
	if (rl < 0)
		return KT_XCOPY_ERROR;
	pt->flags = buf[PT_FLAGS] & (KT_ROD_IMMED | KT_ROD_RTV);
	pt->timeout = get_unaligned_be32(buf + PT_TIMEOUT);
	pt->type = get_unaligned_be32(buf + PT_TYPE);
	if (pt->timeout > KT_ROD_TIMEOUT_MAX)
		return kt_rod_bad(err, KT_XCOPY_ASC_INVALID_PARAM, PT_TIMEOUT);
	/* the types a token made here is; the zero token is never made */
	if ((pt->flags & KT_ROD_RTV) &&
	    pt->type != KT_ROD_TYPE_PIT_VULNERABLE &&
	    pt->type != KT_ROD_TYPE_PIT_ANY)
		return kt_rod_bad(err, KT_XCOPY_ASC_INVALID_PARAM, PT_TYPE);
	return kt_rod_ranges(buf, KT_ROD_PT_HDR_LEN, rl / KT_ROD_RANGE_LEN, g,
			     PT_RANGES_LEN, &pt->ranges, err);
}

enum kt_xcopy_status kt_rod_parse_wut(const u8 *buf, size_t len,
				      const struct kt_rod_geom *g,
				      struct kt_rod_wut *wut,
				      struct kt_xcopy_err *err)
{
	int rl;

	memset(wut, 0, sizeof(*wut));
	rl = kt_rod_list_len(buf, len, KT_ROD_WUT_HDR_LEN, WUT_RANGES_LEN,
			     err);
	if (rl < 0)
		return KT_XCOPY_ERROR;
	wut->flags = buf[WUT_FLAGS] & (KT_ROD_IMMED | KT_ROD_DEL_TKN);
	wut->offset = get_unaligned_be64(buf + WUT_OFFSET);
	memcpy(wut->token, buf + KT_ROD_WUT_TOKEN_OFF, KT_ROD_TOKEN_LEN);
	return kt_rod_ranges(buf, KT_ROD_WUT_HDR_LEN, rl / KT_ROD_RANGE_LEN, g,
			     WUT_RANGES_LEN, &wut->ranges, err);
}

void kt_rod_token_build(const struct kt_rod_token_info *info, u8 *tok)
{
	u8 *cscd = tok + KT_ROD_TOK_CREATOR;

	memset(tok, 0, KT_ROD_TOKEN_LEN);
	put_unaligned_be32(info->type, tok);
	put_unaligned_be16(KT_ROD_TOKEN_LEN_FIELD, tok + 6);
	put_unaligned_be64(info->id, tok + KT_ROD_TOK_ID);
	/* CREATOR LOGICAL UNIT DESCRIPTOR: identification CSCD, NAA */
	cscd[0] = KT_XCOPY_CSCD_ID;
	cscd[4] = 0x01;				/* CODE SET: binary */
	cscd[5] = KT_XCOPY_DESIG_NAA;		/* ASSOCIATION 0: the LU */
	cscd[7] = sizeof(info->naa);
	memcpy(cscd + 8, info->naa, sizeof(info->naa));
	put_unaligned_be16(info->block_size >> 8, cscd + 29);
	cscd[31] = info->block_size & 0xff;
	put_unaligned_be64(info->bytes, tok + KT_ROD_TOK_BYTES);
	put_unaligned_be32(info->block_size, tok + KT_ROD_TOK_BLOCK_LEN);
}

int kt_rod_token_read(const u8 *tok, struct kt_rod_token_info *info,
		      struct kt_xcopy_err *err)
{
	memset(info, 0, sizeof(*info));
	info->type = get_unaligned_be32(tok);
	if (get_unaligned_be16(tok + 6) != KT_ROD_TOKEN_LEN_FIELD) {
		kt_rod_sense(err, KT_ROD_ASC_TOKEN_LENGTH);
		return -EINVAL;
	}
	if (info->type != KT_ROD_TYPE_PIT_VULNERABLE &&
	    info->type != KT_ROD_TYPE_ZERO) {
		kt_rod_sense(err, KT_ROD_ASC_TOKEN_TYPE);
		return -EINVAL;
	}
	info->id = get_unaligned_be64(tok + KT_ROD_TOK_ID);
	info->bytes = get_unaligned_be64(tok + KT_ROD_TOK_BYTES);
	info->block_size = get_unaligned_be32(tok + KT_ROD_TOK_BLOCK_LEN);
	memcpy(info->naa, tok + KT_ROD_TOK_CREATOR + 8, sizeof(info->naa));
	return 0;
}

unsigned int kt_rod_build_rrti(u8 *buf, unsigned int buf_len,
			       const struct kt_rod_status *st,
			       const u8 *sense, unsigned int sense_len,
			       const u8 *tok)
{
	struct kt_out o = { .buf = buf, .cap = buf_len };
	bool done = st->op_status != KT_ROD_OP_RUNNING;
	unsigned int tok_len = tok ? 2 + KT_ROD_TOKEN_LEN : 0;

	if (!sense)
		sense_len = 0;
	if (sense_len > KT_ROD_RRTI_SENSE_MAX)
		sense_len = KT_ROD_RRTI_SENSE_MAX;

	kt_out_be32(&o, KT_ROD_RRTI_HDR_LEN - 4 + sense_len + 4 + tok_len);
	kt_out_u8(&o, st->sa & 0x1f);		/* RESPONSE TO SERVICE ACTION */
	kt_out_u8(&o, st->op_status & 0x7f);	/* COPY OPERATION STATUS */
	kt_out_be16(&o, 0);			/* OPERATION COUNTER */
	/* ESTIMATED STATUS UPDATE DELAY: none once it is over */
	kt_out_be32(&o, done ? 0 : 1000);
	kt_out_u8(&o, done ? st->scsi_status : 0);
	kt_out_u8(&o, sense_len);		/* LENGTH OF THE SENSE DATA FIELD */
	kt_out_u8(&o, sense_len);		/* SENSE DATA LENGTH */
	kt_out_u8(&o, KT_ROD_UNITS_BLOCKS);
	kt_out_be64(&o, st->blocks);
	kt_out_be16(&o, st->segments);
	kt_out_zero(&o, 6);
	kt_out_bytes(&o, sense, sense_len);
	kt_out_be32(&o, tok_len);		/* ROD TOKEN DESCRIPTORS LENGTH */
	if (tok) {
		kt_out_zero(&o, 2);
		kt_out_bytes(&o, tok, KT_ROD_TOKEN_LEN);
	}
	return o.pos;
}

u64 kt_rod_src_map(const struct kt_rod_ranges *src, u32 bs, u64 off, u64 len,
		   u64 *src_pos)
{
	unsigned int i;
	u64 bytes;

	for (i = 0; i < src->nr; i++) {
		bytes = (u64)src->r[i].nr * bs;
		if (off < bytes) {
			*src_pos = src->r[i].lba * bs + off;
			return len < bytes - off ? len : bytes - off;
		}
		off -= bytes;
	}
	return 0;
}
