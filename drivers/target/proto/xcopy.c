// SPDX-License-Identifier: GPL-2.0
/*
 * EXTENDED COPY (LID1) parameter list parser, segment arithmetic and the
 * RECEIVE COPY RESULTS / Third-party Copy VPD responses. No allocation,
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
#include <ktarget/proto/xcopy.h>

/* Error reporting */

static void kt_xcopy_set(struct kt_xcopy_err *err, u8 key, u16 asc)
{
	memset(err, 0, sizeof(*err));
	err->key = key;
	err->asc = asc >> 8;
	err->ascq = asc & 0xff;
}

static void kt_xcopy_set_field(struct kt_xcopy_err *err, unsigned int field,
			       int bit)
{
	err->flags |= KT_XCOPY_ERR_SKSV;
	err->field = field;
	if (bit >= 0) {
		err->flags |= KT_XCOPY_ERR_BPV;
		err->bit = bit;
	}
}

/* SPC-4 6.4: errors found before any segment is processed */
static int kt_xcopy_bad_param(struct kt_xcopy_err *err, u16 asc,
			      unsigned int field, int bit)
{
	kt_xcopy_set(err, KT_XCOPY_KEY_ILLEGAL_REQUEST, asc);
	kt_xcopy_set_field(err, field, bit);
	return -EINVAL;
}

static int kt_xcopy_bad_len(struct kt_xcopy_err *err)
{
	kt_xcopy_set(err, KT_XCOPY_KEY_ILLEGAL_REQUEST,
		     KT_XCOPY_ASC_PARAM_LIST_LEN);
	return -EINVAL;
}

/* SPC-4 6.4: errors found while processing segment @nr */
static int kt_xcopy_aborted(struct kt_xcopy_err *err, u16 asc,
			    unsigned int field, unsigned int nr)
{
	kt_xcopy_set(err, KT_XCOPY_KEY_COPY_ABORTED, asc);
	kt_xcopy_set_field(err, field, -1);
	err->flags |= KT_XCOPY_ERR_CSI;
	err->info = nr;
	return -EINVAL;
}

static int kt_xcopy_internal(struct kt_xcopy_err *err)
{
	kt_xcopy_set(err, KT_XCOPY_KEY_HARDWARE_ERROR,
		     KT_XCOPY_ASC_INTERNAL_FAILURE);
	return -EINVAL;
}

/* Parameter list header (SPC-4 6.4.3) */

static int kt_xcopy_parse_hdr(const u8 *buf, size_t len,
			      struct kt_xcopy_list *list, u32 *cscd_len,
			      u32 *seg_len, struct kt_xcopy_err *err)
{
	u32 inline_len;
	u64 need;

	if (len < KT_XCOPY_HDR_LEN)
		return kt_xcopy_bad_len(err);

	list->list_id = buf[0];
	list->list_id_usage = (buf[1] >> 3) & 0x3;
	list->priority = buf[1] & 0x7;
	if (buf[1] & BIT(5))
		list->flags |= KT_XCOPY_LIST_STR;
	*cscd_len = get_unaligned_be16(&buf[2]);
	*seg_len = get_unaligned_be32(&buf[8]);
	inline_len = get_unaligned_be32(&buf[12]);

	/* LIST ID USAGE 01b is reserved */
	if (list->list_id_usage == 0x1)
		return kt_xcopy_bad_param(err, KT_XCOPY_ASC_INVALID_PARAM, 1, 4);
	/* 11b: no list identifier, which must then be zero */
	if (list->list_id_usage == KT_XCOPY_LIST_ID_NONE && list->list_id)
		return kt_xcopy_bad_param(err, KT_XCOPY_ASC_INVALID_PARAM, 0, -1);

	/*
	 * Descriptor lists longer than MAXIMUM DESCRIPTOR LIST LENGTH are a
	 * PARAMETER LIST LENGTH ERROR; this comes before the descriptor
	 * counts so that an over-long list is reported as such.
	 */
	if ((u64)*cscd_len + *seg_len > KT_XCOPY_MAX_DESC_LIST_LEN)
		return kt_xcopy_bad_len(err);

	/* INLINE DATA LENGTH beyond MAXIMUM INLINE DATA LENGTH (zero) */
	if (inline_len > KT_XCOPY_MAX_INLINE_LEN)
		return kt_xcopy_bad_param(err, KT_XCOPY_ASC_INVALID_PARAM, 12, -1);

	/* the header promises more than the Data-Out buffer holds */
	need = (u64)KT_XCOPY_HDR_LEN + *cscd_len + *seg_len + inline_len;
	if (len < need)
		return kt_xcopy_bad_len(err);
	list->len = need;
	return 0;
}

/* CSCD descriptors (SPC-4 6.4, CSCD descriptors) */

/* Designator of an E4h descriptor, as in the Device Identification VPD page */
static int kt_xcopy_check_desig(const u8 *d, unsigned int off,
				const struct kt_xcopy_cscd *c,
				struct kt_xcopy_err *err)
{
	unsigned int want;

	switch (c->desig_type) {
	case KT_XCOPY_DESIG_NAA:
		if (c->code_set != 0x1)		/* binary */
			return kt_xcopy_bad_param(err, KT_XCOPY_ASC_INVALID_PARAM,
						  off + 4, 3);
		if (c->desig_len != 8 && c->desig_len != 16)
			return kt_xcopy_bad_param(err, KT_XCOPY_ASC_INVALID_PARAM,
						  off + 7, -1);
		/* NAA 2h, 3h, 5h are 8 bytes long, 6h is 16 bytes long */
		switch (d[8] >> 4) {
		case 0x2:
		case 0x3:
		case 0x5:
			want = 8;
			break;
		case 0x6:
			want = 16;
			break;
		default:
			return kt_xcopy_bad_param(err, KT_XCOPY_ASC_INVALID_PARAM,
						  off + 8, 7);
		}
		if (c->desig_len != want)
			return kt_xcopy_bad_param(err, KT_XCOPY_ASC_INVALID_PARAM,
						  off + 7, -1);
		return 0;
	case KT_XCOPY_DESIG_EUI64:
		if (c->code_set != 0x1)
			return kt_xcopy_bad_param(err, KT_XCOPY_ASC_INVALID_PARAM,
						  off + 4, 3);
		if (c->desig_len != 8 && c->desig_len != 12 &&
		    c->desig_len != 16)
			return kt_xcopy_bad_param(err, KT_XCOPY_ASC_INVALID_PARAM,
						  off + 7, -1);
		return 0;
	case KT_XCOPY_DESIG_T10:
		/* binary or ASCII; T10 VENDOR IDENTIFICATION is 8 bytes */
		if (c->code_set != 0x1 && c->code_set != 0x2)
			return kt_xcopy_bad_param(err, KT_XCOPY_ASC_INVALID_PARAM,
						  off + 4, 3);
		if (c->desig_len < 8)
			return kt_xcopy_bad_param(err, KT_XCOPY_ASC_INVALID_PARAM,
						  off + 7, -1);
		return 0;
	default:
		return kt_xcopy_bad_param(err, KT_XCOPY_ASC_INVALID_PARAM,
					  off + 5, 3);
	}
}

/* One 32-byte CSCD descriptor at parameter list offset @off */
static int kt_xcopy_parse_cscd(const u8 *d, unsigned int off,
			       struct kt_xcopy_cscd *c,
			       struct kt_xcopy_err *err)
{
	int ret;

	if (d[0] != KT_XCOPY_CSCD_ID)
		return kt_xcopy_bad_param(err, KT_XCOPY_ASC_BAD_CSCD_TYPE,
					  off, -1);

	c->type = d[0];
	c->offset = off;
	/*
	 * LU ID TYPE is not used by an identification descriptor, which names
	 * the logical unit by its designator; the NUL bit is obsolete in
	 * SPC-4. Both are kept for the record and otherwise ignored.
	 */
	c->lu_id_type = d[1] >> 6;
	if (d[1] & BIT(5))
		c->flags |= KT_XCOPY_CSCD_NUL;
	/* block devices (direct access, 00h) only */
	c->dev_type = d[1] & 0x1f;
	if (c->dev_type != 0x00)
		return kt_xcopy_bad_param(err, KT_XCOPY_ASC_INVALID_PARAM,
					  off + 1, 4);
	c->rel_port = get_unaligned_be16(&d[2]);

	c->code_set = d[4] & 0x0f;
	c->assoc = (d[5] >> 4) & 0x3;
	c->desig_type = d[5] & 0x0f;
	c->desig_len = d[7];
	/* the designator must name a logical unit */
	if (c->assoc != 0x0)
		return kt_xcopy_bad_param(err, KT_XCOPY_ASC_INVALID_PARAM,
					  off + 5, 5);
	if (c->desig_len > KT_XCOPY_DESIG_MAX)
		return kt_xcopy_bad_param(err, KT_XCOPY_ASC_INVALID_PARAM,
					  off + 7, -1);
	ret = kt_xcopy_check_desig(d, off, c, err);
	if (ret)
		return ret;
	memcpy(c->desig, &d[8], c->desig_len);

	/* device type specific parameters of a block device: bytes 28-31 */
	if (d[28] & BIT(2))
		c->flags |= KT_XCOPY_CSCD_PAD;
	c->block_len = get_unaligned_be24(&d[29]);
	return 0;
}

static int kt_xcopy_parse_cscds(const u8 *buf, u32 cscd_len,
				struct kt_xcopy_list *list,
				struct kt_xcopy_err *err)
{
	unsigned int i, n, off;
	int ret;

	/* every CSCD descriptor is 32 bytes long */
	if (cscd_len % KT_XCOPY_CSCD_LEN)
		return kt_xcopy_bad_param(err, KT_XCOPY_ASC_INVALID_PARAM, 2, -1);
	/* spc4r37 6.4.3.4 CSCD DESCRIPTOR LIST LENGTH field */
	n = cscd_len / KT_XCOPY_CSCD_LEN;
	if (n > KT_XCOPY_MAX_CSCD)
		return kt_xcopy_bad_param(err, KT_XCOPY_ASC_TOO_MANY_CSCD, 2, -1);

	for (i = 0; i < n; i++) {
		off = KT_XCOPY_HDR_LEN + i * KT_XCOPY_CSCD_LEN;
		ret = kt_xcopy_parse_cscd(&buf[off], off, &list->cscd[i], err);
		if (ret)
			return ret;
	}
	list->nr_cscd = n;
	return 0;
}

/* Segment descriptors (SPC-4 6.4.6) */

/* One block to block descriptor, 02h, known to fit, at offset @off */
static void kt_xcopy_parse_b2b(const u8 *d, unsigned int off,
			       struct kt_xcopy_segment *s)
{
	s->type = d[0];
	s->offset = off;
	if (d[1] & BIT(1))
		s->flags |= KT_XCOPY_SEG_DC;
	if (d[1] & BIT(0))
		s->flags |= KT_XCOPY_SEG_CAT;
	s->src = get_unaligned_be16(&d[4]);
	s->dst = get_unaligned_be16(&d[6]);
	s->nr_blocks = get_unaligned_be16(&d[10]);
	s->src_lba = get_unaligned_be64(&d[12]);
	s->dst_lba = get_unaligned_be64(&d[20]);
}

static int kt_xcopy_parse_segs(const u8 *buf, u32 start, u32 seg_len,
			       struct kt_xcopy_list *list,
			       struct kt_xcopy_err *err)
{
	unsigned int n = 0;
	u32 pos = 0, left, off;
	const u8 *d;

	while (pos < seg_len) {
		off = start + pos;
		left = seg_len - pos;
		d = &buf[off];

		/* spc4r37 6.4.3.5 SEGMENT DESCRIPTOR LIST LENGTH field */
		if (n == KT_XCOPY_MAX_SEGMENTS)
			return kt_xcopy_bad_param(err,
						  KT_XCOPY_ASC_TOO_MANY_SEGMENTS,
						  8, -1);
		if (d[0] != KT_XCOPY_SEG_B2B)
			return kt_xcopy_bad_param(err,
						  KT_XCOPY_ASC_BAD_SEGMENT_TYPE,
						  off, -1);
		/* a descriptor cut short by SEGMENT DESCRIPTOR LIST LENGTH */
		if (left < 4)
			return kt_xcopy_bad_param(err, KT_XCOPY_ASC_INVALID_PARAM,
						  8, -1);
		/* DESCRIPTOR LENGTH counts the bytes after byte 3 */
		if (get_unaligned_be16(&d[2]) != KT_XCOPY_SEG_B2B_LEN - 4)
			return kt_xcopy_bad_param(err, KT_XCOPY_ASC_INVALID_PARAM,
						  off + 2, -1);
		if (left < KT_XCOPY_SEG_B2B_LEN)
			return kt_xcopy_bad_param(err, KT_XCOPY_ASC_INVALID_PARAM,
						  8, -1);

		kt_xcopy_parse_b2b(d, off, &list->seg[n]);
		pos += KT_XCOPY_SEG_B2B_LEN;
		n++;
	}
	list->nr_seg = n;
	return 0;
}

/*
 * spc4r37 6.4.6.1: a CSCD DESCRIPTOR ID is an index into the CSCD
 * descriptor list or FFFFh for the logical unit processing the command.
 */
static bool kt_xcopy_id_ok(const struct kt_xcopy_list *list, u16 id)
{
	return id == KT_XCOPY_CSCD_LOCAL || id < list->nr_cscd;
}

/*
 * A segment that names a CSCD descriptor the list does not hold cannot
 * reach its copy source or destination: COPY ABORTED, UNREACHABLE COPY
 * TARGET, with the segment number (what libiscsi ExtendedCopy.ValidSegDescr
 * expects). This runs after every ILLEGAL REQUEST check of the list.
 */
static int kt_xcopy_check_ids(const struct kt_xcopy_list *list,
			      struct kt_xcopy_err *err)
{
	const struct kt_xcopy_segment *s;
	unsigned int i;

	for (i = 0; i < list->nr_seg; i++) {
		s = &list->seg[i];
		if (!kt_xcopy_id_ok(list, s->src))
			return kt_xcopy_aborted(err,
						KT_XCOPY_ASC_UNREACHABLE_TARGET,
						s->offset + 4, i);
		if (!kt_xcopy_id_ok(list, s->dst))
			return kt_xcopy_aborted(err,
						KT_XCOPY_ASC_UNREACHABLE_TARGET,
						s->offset + 6, i);
	}
	return 0;
}

enum kt_xcopy_status kt_xcopy_parse(const u8 *buf, size_t len,
				    struct kt_xcopy_list *list,
				    struct kt_xcopy_err *err)
{
	u32 cscd_len, seg_len;

	memset(list, 0, sizeof(*list));
	memset(err, 0, sizeof(*err));

	/* SPC-4 6.4.1: a PARAMETER LIST LENGTH of zero is not an error */
	if (!len)
		return KT_XCOPY_EMPTY;

	if (kt_xcopy_parse_hdr(buf, len, list, &cscd_len, &seg_len, err) ||
	    kt_xcopy_parse_cscds(buf, cscd_len, list, err) ||
	    kt_xcopy_parse_segs(buf, KT_XCOPY_HDR_LEN + cscd_len, seg_len,
				list, err) ||
	    kt_xcopy_check_ids(list, err))
		return KT_XCOPY_ERROR;
	return KT_XCOPY_OK;
}

/*
 * SPC-4 4.5.2.4.2 (field pointer) and 4.5.2.4.5 (segment pointer, SD set
 * to zero: FIELD POINTER counts from the start of the parameter list).
 */
bool kt_xcopy_sks(const struct kt_xcopy_err *err, u8 *sks)
{
	sks[0] = 0;
	sks[1] = 0;
	sks[2] = 0;
	if (!(err->flags & KT_XCOPY_ERR_SKSV))
		return false;

	sks[0] = BIT(7);
	if (err->key != KT_XCOPY_KEY_COPY_ABORTED &&
	    (err->flags & KT_XCOPY_ERR_CD))
		sks[0] |= BIT(6);
	if (err->flags & KT_XCOPY_ERR_BPV)
		sks[0] |= BIT(3) | (err->bit & 0x7);
	put_unaligned_be16(err->field, &sks[1]);
	return true;
}

bool kt_xcopy_cscd_match(const struct kt_xcopy_cscd *cscd, u8 desig_type,
			 const u8 *desig, unsigned int len)
{
	return cscd->desig_type == desig_type && cscd->desig_len == len &&
	       len <= KT_XCOPY_DESIG_MAX && !memcmp(cscd->desig, desig, len);
}

/* Segment arithmetic */

/* log2 of a supported block size, or -EINVAL */
static int kt_xcopy_bs_shift(u32 bs)
{
	int shift = 0;

	if (bs < KT_XCOPY_MIN_BLOCK_SIZE || bs > KT_XCOPY_MAX_BLOCK_SIZE ||
	    (bs & (bs - 1)))
		return -EINVAL;
	while ((1U << shift) < bs)
		shift++;
	return shift;
}

/* [lba, lba + nr) within @capacity blocks, for any input */
static bool kt_xcopy_range_ok(u64 lba, u64 nr, u64 capacity)
{
	return lba <= capacity && nr <= capacity - lba;
}

int kt_xcopy_segment_bytes(const struct kt_xcopy_segment *seg, u32 src_bs,
			   u32 dst_bs, u64 *bytes)
{
	int src_shift = kt_xcopy_bs_shift(src_bs);
	int dst_shift = kt_xcopy_bs_shift(dst_bs);
	u64 n;

	if (src_shift < 0 || dst_shift < 0)
		return -EINVAL;

	/* SPC-4 6.4.6, block to block: DC selects whose blocks are counted */
	if (seg->flags & KT_XCOPY_SEG_DC)
		n = (u64)seg->nr_blocks << dst_shift;
	else
		n = (u64)seg->nr_blocks << src_shift;

	/* both sides must move whole blocks: no residue to carry */
	if ((n & (src_bs - 1)) || (n & (dst_bs - 1)))
		return -ERANGE;
	*bytes = n;
	return 0;
}

/* The CSCD descriptor behind a segment's CSCD ID, NULL for FFFFh */
static const struct kt_xcopy_cscd *
kt_xcopy_seg_cscd(const struct kt_xcopy_list *list, u16 id)
{
	if (id == KT_XCOPY_CSCD_LOCAL || id >= list->nr_cscd)
		return NULL;
	return &list->cscd[id];
}

/* DISK BLOCK LENGTH, when given, must be the device's block length */
static int kt_xcopy_check_block_len(const struct kt_xcopy_list *list, u16 id,
				    u32 block_size, unsigned int nr,
				    struct kt_xcopy_err *err)
{
	const struct kt_xcopy_cscd *c = kt_xcopy_seg_cscd(list, id);

	if (c && c->block_len && c->block_len != block_size)
		return kt_xcopy_aborted(err, KT_XCOPY_ASC_INVALID_PARAM,
					c->offset + 29, nr);
	return 0;
}

int kt_xcopy_segment_span(const struct kt_xcopy_list *list, unsigned int nr,
			  const struct kt_xcopy_geom *src,
			  const struct kt_xcopy_geom *dst,
			  struct kt_xcopy_span *span, struct kt_xcopy_err *err)
{
	const struct kt_xcopy_segment *seg;
	int ret;
	u64 bytes;

	memset(span, 0, sizeof(*span));
	memset(err, 0, sizeof(*err));
	if (nr >= list->nr_seg || nr >= KT_XCOPY_MAX_SEGMENTS)
		return kt_xcopy_internal(err);
	seg = &list->seg[nr];
	if (!kt_xcopy_id_ok(list, seg->src) || !kt_xcopy_id_ok(list, seg->dst))
		return kt_xcopy_internal(err);

	ret = kt_xcopy_check_block_len(list, seg->src, src->block_size, nr,
				       err);
	if (!ret)
		ret = kt_xcopy_check_block_len(list, seg->dst, dst->block_size,
					       nr, err);
	if (ret)
		return ret;

	ret = kt_xcopy_segment_bytes(seg, src->block_size, dst->block_size,
				     &bytes);
	if (ret == -ERANGE)
		return kt_xcopy_aborted(err, KT_XCOPY_ASC_INEXACT_SEGMENT,
					seg->offset + 10, nr);
	if (ret)
		return kt_xcopy_internal(err);
	if (bytes > KT_XCOPY_MAX_SEG_BYTES)
		return kt_xcopy_aborted(err, KT_XCOPY_ASC_INVALID_PARAM,
					seg->offset + 10, nr);

	/*
	 * Out of range on either side. libiscsi ExtendedCopy.ValidSegDescr
	 * accepts COPY ABORTED with no additional sense, UNREACHABLE COPY
	 * TARGET or COPY TARGET DEVICE NOT REACHABLE; the field pointer names
	 * the LBA that does not fit.
	 */
	if (!kt_xcopy_range_ok(seg->src_lba,
			       bytes >> kt_xcopy_bs_shift(src->block_size),
			       src->nr_blocks))
		return kt_xcopy_aborted(err, KT_XCOPY_ASC_NONE,
					seg->offset + 12, nr);
	if (!kt_xcopy_range_ok(seg->dst_lba,
			       bytes >> kt_xcopy_bs_shift(dst->block_size),
			       dst->nr_blocks))
		return kt_xcopy_aborted(err, KT_XCOPY_ASC_NONE,
					seg->offset + 20, nr);

	span->src_lba = seg->src_lba;
	span->dst_lba = seg->dst_lba;
	span->bytes = bytes;
	span->src_bs = src->block_size;
	span->dst_bs = dst->block_size;
	return 0;
}

int kt_xcopy_iter_init(struct kt_xcopy_iter *it,
		       const struct kt_xcopy_span *span, u32 max_bytes)
{
	int src_shift = kt_xcopy_bs_shift(span->src_bs);
	int dst_shift = kt_xcopy_bs_shift(span->dst_bs);
	u32 unit;

	memset(it, 0, sizeof(*it));
	if (src_shift < 0 || dst_shift < 0)
		return -EINVAL;

	/* with power-of-two blocks the larger one is a multiple of both */
	unit = span->src_bs > span->dst_bs ? span->src_bs : span->dst_bs;
	if (span->bytes & (unit - 1))
		return -EINVAL;
	if (span->src_lba + (span->bytes >> src_shift) < span->src_lba ||
	    span->dst_lba + (span->bytes >> dst_shift) < span->dst_lba)
		return -EINVAL;
	it->chunk = max_bytes & ~(unit - 1);
	if (!it->chunk)
		return -EINVAL;

	it->src_lba = span->src_lba;
	it->dst_lba = span->dst_lba;
	it->left = span->bytes;
	it->src_shift = src_shift;
	it->dst_shift = dst_shift;
	return 0;
}

bool kt_xcopy_iter_next(struct kt_xcopy_iter *it, struct kt_xcopy_chunk *chunk)
{
	u32 n;

	if (!it->left || !it->chunk)
		return false;
	n = it->left < it->chunk ? (u32)it->left : it->chunk;

	chunk->src_lba = it->src_lba;
	chunk->dst_lba = it->dst_lba;
	chunk->bytes = n;
	chunk->src_blocks = n >> it->src_shift;
	chunk->dst_blocks = n >> it->dst_shift;

	it->src_lba += chunk->src_blocks;
	it->dst_lba += chunk->dst_blocks;
	it->left -= n;
	return true;
}

/* Responses, through the cursor of <ktarget/proto/out.h> */

/* Descriptor type codes we implement, ascending */
static const u8 kt_xcopy_codes[] = { KT_XCOPY_SEG_B2B, KT_XCOPY_CSCD_ID };

/* SPC-4 RECEIVE COPY OPERATING PARAMETERS parameter data */
unsigned int kt_xcopy_build_op_params(u8 *buf, unsigned int buf_len)
{
	struct kt_out o = { .buf = buf, .cap = buf_len };

	kt_out_be32(&o, KT_XCOPY_OP_PARAMS_LEN - 4);	/* AVAILABLE DATA */
	kt_out_u8(&o, 0x01);			/* SNLID: LIST ID USAGE 11b */
	kt_out_zero(&o, 3);
	kt_out_be16(&o, KT_XCOPY_MAX_CSCD);
	kt_out_be16(&o, KT_XCOPY_MAX_SEGMENTS);
	kt_out_be32(&o, KT_XCOPY_MAX_DESC_LIST_LEN);
	kt_out_be32(&o, KT_XCOPY_MAX_SEG_BYTES);	/* MAXIMUM SEGMENT LENGTH */
	kt_out_be32(&o, KT_XCOPY_MAX_INLINE_LEN);
	kt_out_be32(&o, 0);			/* HELD DATA LIMIT */
	kt_out_be32(&o, 0);			/* MAX STREAM DEVICE TRANSFER */
	kt_out_zero(&o, 2);
	kt_out_be16(&o, KT_XCOPY_MAX_CONCURRENT);	/* TOTAL CONCURRENT */
	kt_out_u8(&o, KT_XCOPY_MAX_CONCURRENT);		/* MAXIMUM CONCURRENT */
	kt_out_u8(&o, KT_XCOPY_SEG_GRAN_LOG2);	/* DATA SEGMENT GRANULARITY */
	kt_out_u8(&o, 0);			/* INLINE DATA GRANULARITY */
	kt_out_u8(&o, 0);			/* HELD DATA GRANULARITY */
	kt_out_zero(&o, 3);
	kt_out_u8(&o, sizeof(kt_xcopy_codes));	/* IMPLEMENTED DESC LIST LEN */
	kt_out_bytes(&o, kt_xcopy_codes, sizeof(kt_xcopy_codes));
	return o.pos;
}

/* SPC-4 RECEIVE COPY STATUS (LID1) parameter data */
unsigned int kt_xcopy_build_copy_status(u8 *buf, unsigned int buf_len,
					const struct kt_xcopy_progress *p)
{
	struct kt_out o = { .buf = buf, .cap = buf_len };
	u64 count = p->bytes;
	u8 units = 0;

	/* TRANSFER COUNT UNITS: bytes, then KiB, MiB, ... until it fits */
	while (count > 0xffffffffULL) {
		count >>= 10;
		units++;
	}

	kt_out_be32(&o, KT_XCOPY_COPY_STATUS_LEN - 4);	/* AVAILABLE DATA */
	kt_out_u8(&o, (p->flags & KT_XCOPY_PROGRESS_HDD ? BIT(7) : 0) |
		      (p->state & 0x7f));
	kt_out_be16(&o, p->segments);
	kt_out_u8(&o, units);
	kt_out_be32(&o, count);
	return o.pos;
}

/*
 * SPC-4 RECEIVE COPY FAILURE DETAILS (LID1) parameter data: only a copy
 * that completed with errors has details; otherwise AVAILABLE DATA is zero
 * and nothing follows it.
 */
unsigned int kt_xcopy_build_failure_details(u8 *buf, unsigned int buf_len,
					    const struct kt_xcopy_progress *p,
					    const u8 *sense,
					    unsigned int sense_len)
{
	struct kt_out o = { .buf = buf, .cap = buf_len };

	if (p->state != KT_XCOPY_CM_FAILED) {
		kt_out_be32(&o, 0);
		return o.pos;
	}
	if (!sense)
		sense_len = 0;
	if (sense_len > KT_XCOPY_SENSE_MAX)
		sense_len = KT_XCOPY_SENSE_MAX;

	kt_out_be32(&o, KT_XCOPY_FAILURE_HDR_LEN - 4 + sense_len);
	kt_out_zero(&o, 52);
	kt_out_u8(&o, p->state);		/* COPY COMMAND STATUS */
	kt_out_u8(&o, 0);
	kt_out_be16(&o, sense_len);		/* SENSE DATA LENGTH */
	kt_out_bytes(&o, sense, sense_len);
	return o.pos;
}

/*
 * The token copy descriptors of VPD page 8Fh: Block Device ROD Token
 * Limits (0000h) in blocks of the LU, and Supported ROD Token and ROD
 * Types (0108h): the point in time token made and taken here, and the
 * block device zero token, taken only.
 */
static void kt_xcopy_vpd_rod(struct kt_out *o,
			     const struct kt_xcopy_rod_vpd *rod)
{
	kt_out_be16(o, 0x0000);
	kt_out_be16(o, 32);
	kt_out_zero(o, 6);
	kt_out_be16(o, KT_ROD_MAX_RANGES);
	kt_out_be32(o, KT_ROD_TIMEOUT_MAX);
	kt_out_be32(o, rod->timeout);
	kt_out_be64(o, KT_ROD_MAX_BYTES / rod->block_size);
	kt_out_be64(o, KT_ROD_OPTIMAL_BYTES / rod->block_size);

	kt_out_be16(o, 0x0108);
	kt_out_be16(o, 4 + 2 * 64);
	kt_out_zero(o, 2);
	kt_out_be16(o, 2 * 64);		/* ROD TYPE DESCRIPTORS LENGTH */
	kt_out_be32(o, KT_ROD_TYPE_PIT_VULNERABLE);
	kt_out_u8(o, 0x03);		/* TOKEN_IN, TOKEN_OUT */
	kt_out_zero(o, 59);
	kt_out_be32(o, KT_ROD_TYPE_ZERO);
	kt_out_u8(o, 0x02);		/* TOKEN_IN */
	kt_out_zero(o, 59);
}

/*
 * Third-party Copy VPD page (8Fh) for a copy manager that implements
 * EXTENDED COPY (LID1), and token copy when @rod is given: the Supported
 * Commands, Parameter Data, Supported Descriptors, Supported CSCD
 * Descriptor IDs and General Copy Operations descriptors, then those of
 * kt_xcopy_vpd_rod(), each padded to a multiple of four bytes.
 */
unsigned int kt_xcopy_build_vpd_tpc(u8 *buf, unsigned int buf_len, u8 periph,
				    const struct kt_xcopy_rod_vpd *rod)
{
	struct kt_out o = { .buf = buf, .cap = buf_len };

	kt_out_u8(&o, periph);		/* PERIPHERAL QUALIFIER / DEVICE TYPE */
	kt_out_u8(&o, 0x8f);
	kt_out_be16(&o, (rod ? KT_XCOPY_VPD_TPC_ROD_LEN :
			 KT_XCOPY_VPD_TPC_LEN) - 4);

	/*
	 * Supported Commands: EXTENDED COPY (LID1), POPULATE TOKEN, WRITE
	 * USING TOKEN; RECEIVE COPY RESULTS' service actions
	 */
	kt_out_be16(&o, 0x0001);
	kt_out_be16(&o, 12);
	kt_out_u8(&o, rod ? 11 : 8);	/* COMMANDS SUPPORTED LIST LENGTH */
	kt_out_u8(&o, 0x83);
	kt_out_u8(&o, rod ? 3 : 1);
	kt_out_u8(&o, 0x00);
	if (rod) {
		kt_out_u8(&o, 0x10);
		kt_out_u8(&o, 0x11);
	}
	kt_out_u8(&o, 0x84);
	kt_out_u8(&o, rod ? 4 : 3);
	kt_out_u8(&o, KT_XCOPY_RCR_COPY_STATUS);
	kt_out_u8(&o, KT_XCOPY_RCR_OP_PARAMS);
	kt_out_u8(&o, KT_XCOPY_RCR_FAILURE_DETAILS);
	if (rod)
		kt_out_u8(&o, KT_XCOPY_RCR_ROD_TOKEN_INFO);
	else
		kt_out_zero(&o, 3);

	/* Parameter Data */
	kt_out_be16(&o, 0x0004);
	kt_out_be16(&o, 28);
	kt_out_zero(&o, 4);
	kt_out_be16(&o, KT_XCOPY_MAX_CSCD);
	kt_out_be16(&o, KT_XCOPY_MAX_SEGMENTS);
	kt_out_be32(&o, KT_XCOPY_MAX_DESC_LIST_LEN);
	kt_out_be32(&o, KT_XCOPY_MAX_INLINE_LEN);
	kt_out_zero(&o, 12);

	/* Supported Descriptors */
	kt_out_be16(&o, 0x0008);
	kt_out_be16(&o, 4);
	kt_out_u8(&o, sizeof(kt_xcopy_codes));
	kt_out_bytes(&o, kt_xcopy_codes, sizeof(kt_xcopy_codes));
	kt_out_zero(&o, 1);

	/* Supported CSCD Descriptor IDs: FFFFh, this logical unit */
	kt_out_be16(&o, 0x000c);
	kt_out_be16(&o, 4);
	kt_out_be16(&o, 2);
	kt_out_be16(&o, KT_XCOPY_CSCD_LOCAL);

	/* General Copy Operations */
	kt_out_be16(&o, 0x8001);
	kt_out_be16(&o, 32);
	kt_out_be32(&o, KT_XCOPY_MAX_CONCURRENT);	/* TOTAL CONCURRENT */
	kt_out_be32(&o, KT_XCOPY_MAX_CONCURRENT);	/* MAX IDENTIFIED */
	kt_out_be32(&o, KT_XCOPY_MAX_SEG_BYTES);
	kt_out_u8(&o, KT_XCOPY_SEG_GRAN_LOG2);
	kt_out_u8(&o, 0);			/* INLINE DATA GRANULARITY */
	kt_out_zero(&o, 18);
	if (rod)
		kt_xcopy_vpd_rod(&o, rod);
	return o.pos;
}
