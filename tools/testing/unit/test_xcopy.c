// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of drivers/target/proto/xcopy.c: EXTENDED COPY (LID1)
 * parameter lists as libiscsi's iscsi-dd and ExtendedCopy tests send them,
 * hostile lists, the segment arithmetic and the RECEIVE COPY RESULTS / VPD
 * 8Fh responses. Every parse runs over an exact-size heap copy so that ASan
 * flags any read past the parameter list.
 */
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/unaligned.h>

#include <ktarget/proto/rod.h>
#include <ktarget/proto/xcopy.h>

#include "kt_test.h"

/* A parameter list under construction */
struct plist {
	u8	b[8192];
	size_t	n;
};

static void pl_hdr(struct plist *p, u8 list_id, u8 usage, u16 cscd_len,
		   u32 seg_len, u32 inline_len)
{
	memset(p->b, 0, 16);
	p->b[0] = list_id;
	p->b[1] = (usage & 3) << 3;
	put_unaligned_be16(cscd_len, &p->b[2]);
	put_unaligned_be32(seg_len, &p->b[8]);
	put_unaligned_be32(inline_len, &p->b[12]);
	if (p->n < 16)
		p->n = 16;
}

/* Fix the header lengths after the descriptors were appended */
static void pl_lengths(struct plist *p, size_t cscd_end)
{
	put_unaligned_be16(cscd_end - 16, &p->b[2]);
	put_unaligned_be32(p->n - cscd_end, &p->b[8]);
}

/* Identification CSCD descriptor (E4h) with an arbitrary designator */
static u8 *pl_cscd(struct plist *p, u8 code_set, u8 desig_type,
		   const u8 *desig, u8 len, u32 block_len)
{
	u8 *d = &p->b[p->n];

	memset(d, 0, 32);
	d[0] = 0xe4;
	d[4] = code_set;
	d[5] = desig_type;
	d[7] = len;
	memcpy(&d[8], desig, len > 20 ? 20 : len);
	put_unaligned_be24(block_len, &d[29]);
	p->n += 32;
	return d;
}

static const u8 naa6_a[16] = { 0x60, 0x01, 0x40, 0x51, 0x11, 0x22, 0x33, 0x44,
			       0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc };
static const u8 naa6_b[16] = { 0x60, 0x01, 0x40, 0x5f, 0x0f, 0x1e, 0x2d, 0x3c,
			       0x4b, 0x5a, 0x69, 0x78, 0x87, 0x96, 0xa5, 0xb4 };
static const u8 naa5[8] = { 0x50, 0x01, 0x40, 0x50, 0xde, 0xad, 0xbe, 0xef };
static const u8 eui64[8] = { 0x00, 0x14, 0x05, 0xaa, 0xbb, 0xcc, 0xdd, 0xee };

static u8 *pl_naa(struct plist *p, const u8 *naa, u8 len, u32 block_len)
{
	return pl_cscd(p, 0x1, 0x3, naa, len, block_len);
}

/* Block to block segment descriptor (02h) */
static u8 *pl_seg(struct plist *p, u8 flags, u16 src, u16 dst, u16 nr,
		  u64 src_lba, u64 dst_lba)
{
	u8 *d = &p->b[p->n];

	memset(d, 0, 28);
	d[0] = 0x02;
	d[1] = flags;			/* DC is bit 1, CAT bit 0 */
	put_unaligned_be16(24, &d[2]);
	put_unaligned_be16(src, &d[4]);
	put_unaligned_be16(dst, &d[6]);
	put_unaligned_be16(nr, &d[10]);
	put_unaligned_be64(src_lba, &d[12]);
	put_unaligned_be64(dst_lba, &d[20]);
	p->n += 28;
	return d;
}

/* Parse the first @len bytes of @p from an exact-size heap copy */
static enum kt_xcopy_status pl_parse_len(const struct plist *p, size_t len,
					 struct kt_xcopy_list *l,
					 struct kt_xcopy_err *e)
{
	enum kt_xcopy_status st;
	u8 *copy = malloc(len ? len : 1);

	memcpy(copy, p->b, len);
	st = kt_xcopy_parse(copy, len, l, e);
	free(copy);
	return st;
}

static enum kt_xcopy_status pl_parse(const struct plist *p,
				     struct kt_xcopy_list *l,
				     struct kt_xcopy_err *e)
{
	return pl_parse_len(p, p->n, l, e);
}

/* The list iscsi-dd --xcopy sends: source and destination CSCD, 1 segment */
static void pl_iscsi_dd(struct plist *p, u16 nr, u64 lba)
{
	p->n = 0;
	pl_hdr(p, 1, KT_XCOPY_LIST_ID_NO_HOLD, 0, 0, 0);
	pl_naa(p, naa6_a, 16, 512);
	pl_naa(p, naa6_b, 16, 512);
	pl_seg(p, 0, 0, 1, nr, lba, lba);
	pl_lengths(p, 16 + 64);
}

#define EXPECT_SENSE(e, k, a) \
	do { \
		KT_EXPECT_EQ((e)->key, (k)); \
		KT_EXPECT_EQ((e)->asc, (a) >> 8); \
		KT_EXPECT_EQ((e)->ascq, (a) & 0xff); \
	} while (0)

/* ILLEGAL REQUEST with a field pointer (and optionally a bit pointer) */
#define EXPECT_FIELD(e, a, f, b) \
	do { \
		EXPECT_SENSE(e, KT_XCOPY_KEY_ILLEGAL_REQUEST, a); \
		KT_EXPECT((e)->flags & KT_XCOPY_ERR_SKSV); \
		KT_EXPECT(!((e)->flags & KT_XCOPY_ERR_CD)); \
		KT_EXPECT_EQ((e)->field, (f)); \
		if ((b) < 0) { \
			KT_EXPECT(!((e)->flags & KT_XCOPY_ERR_BPV)); \
		} else { \
			KT_EXPECT((e)->flags & KT_XCOPY_ERR_BPV); \
			KT_EXPECT_EQ((e)->bit, (b)); \
		} \
	} while (0)

#define EXPECT_LEN_ERROR(e) \
	do { \
		EXPECT_SENSE(e, KT_XCOPY_KEY_ILLEGAL_REQUEST, \
			     KT_XCOPY_ASC_PARAM_LIST_LEN); \
		KT_EXPECT_EQ((e)->flags, 0); \
	} while (0)

/* COPY ABORTED naming segment @n and the field at @f */
#define EXPECT_ABORTED(e, a, f, n) \
	do { \
		EXPECT_SENSE(e, KT_XCOPY_KEY_COPY_ABORTED, a); \
		KT_EXPECT((e)->flags & KT_XCOPY_ERR_SKSV); \
		KT_EXPECT((e)->flags & KT_XCOPY_ERR_CSI); \
		KT_EXPECT_EQ((e)->field, (f)); \
		KT_EXPECT_EQ((e)->info, (n)); \
	} while (0)

static struct kt_xcopy_list *new_list(void)
{
	return calloc(1, sizeof(struct kt_xcopy_list));
}

/* Parsing valid lists */

static void iscsi_dd_two_cscd_one_segment_list_parses(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p;

	pl_iscsi_dd(&p, 2048, 0x123456789aULL);
	KT_EXPECT_EQ(p.n, 108);
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_OK);
	KT_EXPECT_EQ(e.key, 0);
	KT_EXPECT_EQ(l->len, 108);
	KT_EXPECT_EQ(l->list_id, 1);
	KT_EXPECT_EQ(l->list_id_usage, KT_XCOPY_LIST_ID_NO_HOLD);
	KT_EXPECT_EQ(l->priority, 0);
	KT_EXPECT_EQ(l->nr_cscd, 2);
	KT_EXPECT_EQ(l->nr_seg, 1);

	KT_EXPECT_EQ(l->cscd[0].type, 0xe4);
	KT_EXPECT_EQ(l->cscd[0].offset, 16);
	KT_EXPECT_EQ(l->cscd[1].offset, 48);
	KT_EXPECT_EQ(l->cscd[0].dev_type, 0);
	KT_EXPECT_EQ(l->cscd[0].code_set, 1);
	KT_EXPECT_EQ(l->cscd[0].assoc, 0);
	KT_EXPECT_EQ(l->cscd[0].desig_type, KT_XCOPY_DESIG_NAA);
	KT_EXPECT_EQ(l->cscd[0].desig_len, 16);
	KT_EXPECT(!memcmp(l->cscd[0].desig, naa6_a, 16));
	KT_EXPECT(!memcmp(l->cscd[1].desig, naa6_b, 16));
	KT_EXPECT_EQ(l->cscd[1].block_len, 512);

	KT_EXPECT_EQ(l->seg[0].type, 0x02);
	KT_EXPECT_EQ(l->seg[0].offset, 80);
	KT_EXPECT_EQ(l->seg[0].src, 0);
	KT_EXPECT_EQ(l->seg[0].dst, 1);
	KT_EXPECT_EQ(l->seg[0].nr_blocks, 2048);
	KT_EXPECT_EQ(l->seg[0].src_lba, 0x123456789aULL);
	KT_EXPECT_EQ(l->seg[0].dst_lba, 0x123456789aULL);
	KT_EXPECT_EQ(l->seg[0].flags, 0);
	free(l);
}

static void libiscsi_simple_copy_within_one_cscd_parses(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p = { .n = 0 };

	/* ExtendedCopy.Simple: one CSCD, 2048 blocks from LBA 0 to the end */
	pl_hdr(&p, 1, KT_XCOPY_LIST_ID_NO_HOLD, 32, 28, 0);
	pl_naa(&p, naa6_a, 16, 4096);
	pl_seg(&p, 0, 0, 0, 2048, 0, 1000000 - 2048);
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_OK);
	KT_EXPECT_EQ(l->nr_cscd, 1);
	KT_EXPECT_EQ(l->seg[0].src, 0);
	KT_EXPECT_EQ(l->seg[0].dst, 0);
	KT_EXPECT_EQ(l->seg[0].dst_lba, 1000000 - 2048);
	free(l);
}

static void several_segments_and_designators_parse_in_order(void)
{
	static const u8 t10[12] = "KTARGET lu-7";
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p = { .n = 0 };
	unsigned int i;

	pl_hdr(&p, 0x42, KT_XCOPY_LIST_ID_HOLD, 0, 0, 0);
	p.b[1] |= 0x20 | 0x5;		/* STR, PRIORITY 5 */
	pl_naa(&p, naa6_a, 16, 512);
	pl_naa(&p, naa5, 8, 4096);
	pl_cscd(&p, 0x1, 0x2, eui64, 8, 0);
	pl_cscd(&p, 0x2, 0x1, t10, 12, 512);
	pl_seg(&p, 0, 0, 1, 8, 0, 0);
	pl_seg(&p, 0x2, 1, 0, 1, 10, 80);		/* DC */
	pl_seg(&p, 0x1, 2, 3, 0, 7, 9);			/* CAT, 0 blocks */
	pl_seg(&p, 0, KT_XCOPY_CSCD_LOCAL, 3, 65535, ~0ULL, 1);
	pl_seg(&p, 0x3, 3, KT_XCOPY_CSCD_LOCAL, 5, 5, 6);
	pl_lengths(&p, 16 + 4 * 32);

	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_OK);
	KT_EXPECT_EQ(l->list_id, 0x42);
	KT_EXPECT_EQ(l->list_id_usage, KT_XCOPY_LIST_ID_HOLD);
	KT_EXPECT_EQ(l->priority, 5);
	KT_EXPECT(l->flags & KT_XCOPY_LIST_STR);
	KT_EXPECT_EQ(l->nr_cscd, 4);
	KT_EXPECT_EQ(l->nr_seg, 5);
	KT_EXPECT_EQ(l->cscd[1].desig_len, 8);
	KT_EXPECT(!memcmp(l->cscd[1].desig, naa5, 8));
	KT_EXPECT_EQ(l->cscd[1].block_len, 4096);
	KT_EXPECT_EQ(l->cscd[2].desig_type, KT_XCOPY_DESIG_EUI64);
	KT_EXPECT_EQ(l->cscd[3].desig_type, KT_XCOPY_DESIG_T10);
	KT_EXPECT_EQ(l->cscd[3].code_set, 2);
	for (i = 0; i < 5; i++)
		KT_EXPECT_EQ(l->seg[i].offset, 16 + 128 + 28 * i);
	KT_EXPECT_EQ(l->seg[1].flags, KT_XCOPY_SEG_DC);
	KT_EXPECT_EQ(l->seg[2].flags, KT_XCOPY_SEG_CAT);
	KT_EXPECT_EQ(l->seg[2].nr_blocks, 0);
	KT_EXPECT_EQ(l->seg[3].src, KT_XCOPY_CSCD_LOCAL);
	KT_EXPECT_EQ(l->seg[3].nr_blocks, 65535);
	KT_EXPECT_EQ(l->seg[3].src_lba, ~0ULL);
	KT_EXPECT_EQ(l->seg[4].flags, KT_XCOPY_SEG_DC | KT_XCOPY_SEG_CAT);
	KT_EXPECT_EQ(l->seg[4].dst, KT_XCOPY_CSCD_LOCAL);
	free(l);
}

static void list_at_every_limit_parses(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p = { .n = 0 };
	unsigned int i;

	pl_hdr(&p, 0, KT_XCOPY_LIST_ID_NONE, 0, 0, 0);
	for (i = 0; i < KT_XCOPY_MAX_CSCD; i++)
		pl_naa(&p, naa6_a, 16, 512);
	for (i = 0; i < KT_XCOPY_MAX_SEGMENTS; i++)
		pl_seg(&p, 0, i % KT_XCOPY_MAX_CSCD, 15 - i % 16, i, i, i);
	pl_lengths(&p, 16 + KT_XCOPY_MAX_CSCD * 32);
	KT_EXPECT_EQ(p.n, KT_XCOPY_MAX_PARAM_LEN);
	KT_EXPECT_EQ(p.n, 2320);
	KT_EXPECT(p.n <= 4096);

	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_OK);
	KT_EXPECT_EQ(l->nr_cscd, KT_XCOPY_MAX_CSCD);
	KT_EXPECT_EQ(l->nr_seg, KT_XCOPY_MAX_SEGMENTS);
	KT_EXPECT_EQ(l->seg[63].nr_blocks, 63);
	KT_EXPECT_EQ(l->seg[63].dst, 0);
	free(l);
}

static void trailing_bytes_after_the_declared_list_are_ignored(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p;

	pl_iscsi_dd(&p, 8, 0);
	memset(&p.b[p.n], 0xff, 100);
	p.n += 100;
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_OK);
	KT_EXPECT_EQ(l->len, 108);
	free(l);
}

static void empty_parameter_list_is_good_with_nothing_to_copy(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;

	/* ExtendedCopy.ParamHdr: PARAMETER LIST LENGTH 0 is GOOD */
	KT_EXPECT_EQ(kt_xcopy_parse(NULL, 0, l, &e), KT_XCOPY_EMPTY);
	KT_EXPECT_EQ(l->nr_seg, 0);
	KT_EXPECT_EQ(e.key, 0);
	free(l);
}

/* Lengths */

static void header_shorter_than_16_bytes_is_parameter_list_length_error(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p;
	size_t n;

	pl_iscsi_dd(&p, 1, 0);
	for (n = 1; n < 16; n++) {
		KT_EXPECT_EQ(pl_parse_len(&p, n, l, &e), KT_XCOPY_ERROR);
		EXPECT_LEN_ERROR(&e);
	}
	free(l);
}

static void truncated_cscd_descriptor_is_parameter_list_length_error(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p = { .n = 0 };

	/* ExtendedCopy.ParamHdr: the list ends inside the CSCD descriptor */
	pl_hdr(&p, 1, 0, 32, 28, 0);
	pl_naa(&p, naa6_a, 16, 512);
	pl_seg(&p, 0, 0, 0, 2048, 0, 4096);
	KT_EXPECT_EQ(pl_parse_len(&p, 16 + 32 - 1, l, &e), KT_XCOPY_ERROR);
	EXPECT_LEN_ERROR(&e);
	free(l);
}

static void truncated_segment_descriptor_is_parameter_list_length_error(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p;
	size_t n;

	/* ExtendedCopy.ParamHdr, and every shorter cut of the same list */
	pl_iscsi_dd(&p, 2048, 0);
	for (n = 16; n < p.n; n++) {
		KT_EXPECT_EQ(pl_parse_len(&p, n, l, &e), KT_XCOPY_ERROR);
		EXPECT_LEN_ERROR(&e);
	}
	KT_EXPECT_EQ(pl_parse_len(&p, p.n, l, &e), KT_XCOPY_OK);
	free(l);
}

static void header_lengths_near_u32_max_do_not_wrap(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p = { .n = 0 };

	pl_hdr(&p, 0, 0, 0xffff, 0xffffffff, 0);
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_LEN_ERROR(&e);

	/* 0xffffffe0 + 32 would wrap a 32-bit sum to zero */
	pl_hdr(&p, 0, 0, 32, 0xffffffe0, 0);
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_LEN_ERROR(&e);
	free(l);
}

/*
 * libiscsi ExtendedCopy.DescrLimits, step by step: read the operating
 * parameters, then send one CSCD descriptor too many, one segment
 * descriptor too many, and a list longer than MAXIMUM DESCRIPTOR LIST
 * LENGTH, sized exactly as the test sizes them.
 */
static void descr_limits_from_operating_parameters_give_expected_sense(void)
{
	struct kt_xcopy_list *l = new_list();
	u32 max_cscd, max_seg, max_list, alloc, tgt_len, seg_len, nseg;
	struct kt_xcopy_err e;
	struct plist p;
	u8 op[64];
	u32 i;

	KT_EXPECT_EQ(kt_xcopy_build_op_params(op, sizeof(op)), 46);
	max_cscd = get_unaligned_be16(&op[8]);
	max_seg = get_unaligned_be16(&op[10]);
	max_list = get_unaligned_be32(&op[12]);
	KT_EXPECT(max_cscd >= 2);
	KT_EXPECT(max_seg >= 1);

	alloc = 16 + (max_cscd + 1) * 32 + (max_seg + 1) * 28;
	if (alloc < 16 + max_list + 28)
		alloc = 16 + max_list + 28;
	KT_EXPECT(alloc <= sizeof(p.b));

	/* one CSCD descriptor too many, one segment */
	p.n = 0;
	pl_hdr(&p, 1, 0, 0, 0, 0);
	for (i = 0; i < max_cscd + 1; i++)
		pl_naa(&p, naa6_a, 16, 512);
	pl_seg(&p, 0, 0, 0, 2048, 0, 8192);
	pl_lengths(&p, 16 + (max_cscd + 1) * 32);
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_TOO_MANY_CSCD, 2, -1);

	/* one CSCD, one segment descriptor too many */
	p.n = 0;
	pl_hdr(&p, 2, 0, 0, 0, 0);
	pl_naa(&p, naa6_a, 16, 512);
	for (i = 0; i < max_seg + 1; i++)
		pl_seg(&p, 0, 0, 0, 2048, 0, 8192);
	pl_lengths(&p, 16 + 32);
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_TOO_MANY_SEGMENTS, 8, -1);

	/* too many CSCDs, and segments filling the rest: too long a list */
	p.n = 0;
	pl_hdr(&p, 3, 0, 0, 0, 0);
	tgt_len = (max_cscd + 1) * 32;
	seg_len = alloc - 16 - tgt_len;
	nseg = seg_len / 28;
	for (i = 0; i < max_cscd + 1; i++)
		pl_naa(&p, naa6_a, 16, 512);
	for (i = 0; i < nseg; i++)
		pl_seg(&p, 0, 0, 0, 2048, 0, 8192);
	pl_lengths(&p, 16 + tgt_len);
	KT_EXPECT(p.n - 16 > max_list);
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_LEN_ERROR(&e);
	free(l);
}

/* Descriptor types */

static void fibre_channel_cscd_e0_is_unsupported_target_descriptor(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p;
	u8 *d;

	/* ExtendedCopy.DescrType: N_Port_Name CSCD descriptor */
	pl_iscsi_dd(&p, 8, 0);
	d = &p.b[48];
	d[0] = 0xe0;
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_BAD_CSCD_TYPE, 48, -1);

	d[0] = 0xff;			/* CSCD descriptor extension */
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_BAD_CSCD_TYPE, 48, -1);
	free(l);
}

static void stream_to_stream_segment_is_unsupported_segment_descriptor(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p = { .n = 0 };
	u8 *d;

	/* ExtendedCopy.DescrType: a 20-byte stream to stream header (03h) */
	pl_hdr(&p, 1, 0, 32, 20, 0);
	pl_naa(&p, naa6_a, 16, 512);
	d = &p.b[p.n];
	memset(d, 0, 20);
	d[0] = 0x03;
	put_unaligned_be16(16, &d[2]);
	p.n += 20;
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_BAD_SEGMENT_TYPE, 48, -1);
	free(l);
}

static void block_with_offset_segment_0a_is_unsupported(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p = { .n = 0 };
	u8 *d;

	/* 0Ah needs byte offsets within blocks: not implemented */
	pl_hdr(&p, 1, 0, 0, 0, 0);
	pl_naa(&p, naa6_a, 16, 512);
	pl_seg(&p, 0, 0, 0, 1, 0, 0);
	d = &p.b[p.n];
	memset(d, 0, 32);
	d[0] = 0x0a;
	put_unaligned_be16(28, &d[2]);
	p.n += 32;
	pl_lengths(&p, 48);
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_BAD_SEGMENT_TYPE, 76, -1);
	free(l);
}

/* CSCD references */

static void segment_naming_missing_cscd_is_copy_aborted_unreachable(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p = { .n = 0 };

	/* ExtendedCopy.ValidSegDescr: destination index 1, one CSCD */
	pl_hdr(&p, 1, 0, 32, 28, 0);
	pl_naa(&p, naa6_a, 16, 512);
	pl_seg(&p, 0, 0, 1, 2048, 0, 4096);
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_ABORTED(&e, KT_XCOPY_ASC_UNREACHABLE_TARGET, 48 + 6, 0);

	/* source index past the list, in the second segment */
	p.n = 0;
	pl_hdr(&p, 1, 0, 0, 0, 0);
	pl_naa(&p, naa6_a, 16, 512);
	pl_naa(&p, naa6_b, 16, 512);
	pl_seg(&p, 0, 0, 1, 1, 0, 0);
	pl_seg(&p, 0, 2, 1, 1, 0, 0);
	pl_lengths(&p, 80);
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_ABORTED(&e, KT_XCOPY_ASC_UNREACHABLE_TARGET, 108 + 4, 1);
	free(l);
}

static void reserved_and_out_of_list_cscd_ids_are_unreachable(void)
{
	static const u16 bad[] = { 0x07ff, 0x0800, 0xbfff, 0xfffe, 16 };
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		pl_iscsi_dd(&p, 1, 0);
		put_unaligned_be16(bad[i], &p.b[80 + 4]);
		KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
		EXPECT_ABORTED(&e, KT_XCOPY_ASC_UNREACHABLE_TARGET, 84, 0);
	}
	/* FFFFh is the logical unit that received the command */
	pl_iscsi_dd(&p, 1, 0);
	put_unaligned_be16(0xffff, &p.b[80 + 4]);
	put_unaligned_be16(0xffff, &p.b[80 + 6]);
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_OK);
	KT_EXPECT_EQ(l->seg[0].src, KT_XCOPY_CSCD_LOCAL);
	free(l);
}

static void segments_without_any_cscd_are_unreachable(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p = { .n = 0 };

	pl_hdr(&p, 1, 0, 0, 28, 0);
	pl_seg(&p, 0, 0, 0, 1, 0, 0);
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_ABORTED(&e, KT_XCOPY_ASC_UNREACHABLE_TARGET, 20, 0);
	free(l);
}

static void illegal_request_checks_run_before_copy_aborted_ones(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p = { .n = 0 };
	u8 *d;

	/* segment 0 names a missing CSCD, segment 1 has a bad length */
	pl_hdr(&p, 1, 0, 0, 0, 0);
	pl_naa(&p, naa6_a, 16, 512);
	pl_seg(&p, 0, 0, 9, 1, 0, 0);
	d = pl_seg(&p, 0, 0, 0, 1, 0, 0);
	put_unaligned_be16(25, &d[2]);
	pl_lengths(&p, 48);
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_INVALID_PARAM, 76 + 2, -1);
	free(l);
}

/* CSCD descriptor fields */

static void naa_designator_of_wrong_length_is_invalid_field(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p;

	/* NAA 6h is 16 bytes */
	pl_iscsi_dd(&p, 1, 0);
	p.b[16 + 7] = 8;
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_INVALID_PARAM, 16 + 7, -1);

	p.b[16 + 7] = 12;
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_INVALID_PARAM, 16 + 7, -1);

	p.b[16 + 7] = 0;
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_INVALID_PARAM, 16 + 7, -1);

	/* NAA 5h is 8 bytes */
	pl_iscsi_dd(&p, 1, 0);
	p.b[48 + 8] = 0x50;
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_INVALID_PARAM, 48 + 7, -1);
	p.b[48 + 7] = 8;
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_OK);
	KT_EXPECT_EQ(l->cscd[1].desig_len, 8);
	free(l);
}

static void naa_designator_with_bad_naa_or_code_set_is_invalid_field(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p;

	pl_iscsi_dd(&p, 1, 0);
	p.b[16 + 8] = 0x10;		/* NAA 1h is not defined */
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_INVALID_PARAM, 16 + 8, 7);

	pl_iscsi_dd(&p, 1, 0);
	p.b[16 + 4] = 0x2;		/* NAA must be binary */
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_INVALID_PARAM, 16 + 4, 3);
	free(l);
}

static void designator_longer_than_20_bytes_is_invalid_field(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p;

	pl_iscsi_dd(&p, 1, 0);
	p.b[48 + 7] = 21;
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_INVALID_PARAM, 48 + 7, -1);
	p.b[48 + 7] = 0xff;
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_INVALID_PARAM, 48 + 7, -1);
	free(l);
}

static void unsupported_designator_types_are_invalid_field(void)
{
	static const u8 types[] = { 0x0, 0x4, 0x5, 0x6, 0x7, 0x8, 0xa, 0xf };
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p;
	unsigned int i;

	for (i = 0; i < sizeof(types); i++) {
		pl_iscsi_dd(&p, 1, 0);
		p.b[16 + 5] = types[i];
		KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
		EXPECT_FIELD(&e, KT_XCOPY_ASC_INVALID_PARAM, 16 + 5, 3);
	}
	free(l);
}

static void designator_of_a_port_is_invalid_field(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p;

	pl_iscsi_dd(&p, 1, 0);
	p.b[48 + 5] |= 0x10;		/* ASSOCIATION 01b: target port */
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_INVALID_PARAM, 48 + 5, 5);
	free(l);
}

static void eui64_and_t10_designator_lengths_are_checked(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p = { .n = 0 };
	static const u8 t10[8] = "LIO-ORG ";
	u8 *d;

	pl_hdr(&p, 1, 0, 0, 0, 0);
	d = pl_cscd(&p, 0x1, 0x2, eui64, 8, 512);
	pl_cscd(&p, 0x2, 0x1, t10, 8, 512);
	pl_seg(&p, 0, 0, 1, 1, 0, 0);
	pl_lengths(&p, 80);
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_OK);

	d[7] = 12;
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_OK);
	d[7] = 16;
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_OK);
	d[7] = 10;
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_INVALID_PARAM, 16 + 7, -1);
	d[7] = 8;
	d[4] = 0x2;			/* EUI-64 must be binary */
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_INVALID_PARAM, 16 + 4, 3);
	d[4] = 0x1;

	p.b[48 + 7] = 7;		/* shorter than T10 VENDOR IDENTIFICATION */
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_INVALID_PARAM, 48 + 7, -1);
	p.b[48 + 7] = 8;
	p.b[48 + 4] = 0x3;		/* UTF-8 */
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_INVALID_PARAM, 48 + 4, 3);
	free(l);
}

static void non_block_peripheral_device_type_is_invalid_field(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p;

	pl_iscsi_dd(&p, 1, 0);
	p.b[48 + 1] = 0x01;		/* sequential access */
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_INVALID_PARAM, 48 + 1, 4);
	free(l);
}

static void lu_id_type_and_nul_bit_are_ignored(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p;

	/*
	 * ExtendedCopy.ValidTgtDescr on an SPC-4 target: a reserved LU ID
	 * TYPE must not fail the command, the NUL bit is obsolete.
	 */
	pl_iscsi_dd(&p, 1, 0);
	p.b[16 + 1] = 0x2 << 6;
	p.b[48 + 1] = (0x3 << 6) | BIT(5);
	p.b[48 + 2] = 0x12;		/* RELATIVE INITIATOR PORT IDENTIFIER */
	p.b[48 + 3] = 0x34;
	p.b[48 + 28] = BIT(2);		/* PAD */
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_OK);
	KT_EXPECT_EQ(l->cscd[0].lu_id_type, 2);
	KT_EXPECT_EQ(l->cscd[1].lu_id_type, 3);
	KT_EXPECT(l->cscd[1].flags & KT_XCOPY_CSCD_NUL);
	KT_EXPECT(l->cscd[1].flags & KT_XCOPY_CSCD_PAD);
	KT_EXPECT(!(l->cscd[0].flags & KT_XCOPY_CSCD_NUL));
	KT_EXPECT_EQ(l->cscd[1].rel_port, 0x1234);
	free(l);
}

/* Header fields */

static void inline_data_is_invalid_field_in_parameter_list(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p;

	pl_iscsi_dd(&p, 1, 0);
	put_unaligned_be32(4, &p.b[12]);
	memset(&p.b[p.n], 0xab, 4);
	p.n += 4;
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_INVALID_PARAM, 12, -1);

	put_unaligned_be32(0xffffffff, &p.b[12]);
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_INVALID_PARAM, 12, -1);
	free(l);
}

static void reserved_list_id_usage_is_invalid_field(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p;

	pl_iscsi_dd(&p, 1, 0);
	p.b[1] = 0x1 << 3;
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_INVALID_PARAM, 1, 4);
	free(l);
}

static void no_list_id_usage_needs_a_zero_list_identifier(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p;

	pl_iscsi_dd(&p, 1, 0);
	p.b[1] = KT_XCOPY_LIST_ID_NONE << 3;
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_INVALID_PARAM, 0, -1);
	p.b[0] = 0;
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_OK);
	KT_EXPECT_EQ(l->list_id_usage, KT_XCOPY_LIST_ID_NONE);
	free(l);
}

static void cscd_list_length_not_a_multiple_of_32_is_invalid_field(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p;

	pl_iscsi_dd(&p, 1, 0);
	put_unaligned_be16(63, &p.b[2]);
	put_unaligned_be32(29, &p.b[8]);
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_INVALID_PARAM, 2, -1);
	free(l);
}

static void segment_descriptor_length_other_than_24_is_invalid_field(void)
{
	static const u16 lens[] = { 0, 23, 25, 28, 0xffff };
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		pl_iscsi_dd(&p, 1, 0);
		put_unaligned_be16(lens[i], &p.b[80 + 2]);
		KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
		EXPECT_FIELD(&e, KT_XCOPY_ASC_INVALID_PARAM, 82, -1);
	}
	free(l);
}

static void segment_list_length_cutting_a_descriptor_is_invalid_field(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p;
	u32 cut;

	/* the list length ends 1..27 bytes into a second descriptor */
	for (cut = 1; cut < 28; cut++) {
		pl_iscsi_dd(&p, 1, 0);
		pl_seg(&p, 0, 0, 1, 1, 0, 0);
		put_unaligned_be32(28 + cut, &p.b[8]);
		KT_EXPECT_EQ(pl_parse_len(&p, 108 + cut, l, &e),
			     KT_XCOPY_ERROR);
		EXPECT_FIELD(&e, KT_XCOPY_ASC_INVALID_PARAM, 8, -1);
	}
	/* a cut descriptor of a type we do not know is reported as such */
	pl_iscsi_dd(&p, 1, 0);
	p.b[108] = 0x00;
	put_unaligned_be32(28 + 2, &p.b[8]);
	KT_EXPECT_EQ(pl_parse_len(&p, 110, l, &e), KT_XCOPY_ERROR);
	EXPECT_FIELD(&e, KT_XCOPY_ASC_BAD_SEGMENT_TYPE, 108, -1);
	free(l);
}

/* Sense helpers */

static void sks_encodes_field_and_bit_pointer_for_parameter_data(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p;
	u8 sks[3];

	pl_iscsi_dd(&p, 1, 0);
	p.b[48 + 5] |= 0x20;		/* ASSOCIATION 10b */
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	KT_EXPECT(kt_xcopy_sks(&e, sks));
	KT_EXPECT_EQ(sks[0], 0x80 | 0x08 | 5);	/* SKSV, C/D=0, BPV, bit 5 */
	KT_EXPECT_EQ(get_unaligned_be16(&sks[1]), 53);

	e.flags |= KT_XCOPY_ERR_CD;
	KT_EXPECT(kt_xcopy_sks(&e, sks));
	KT_EXPECT_EQ(sks[0], 0x80 | 0x40 | 0x08 | 5);

	/* PARAMETER LIST LENGTH ERROR carries no field pointer */
	KT_EXPECT_EQ(pl_parse_len(&p, 20, l, &e), KT_XCOPY_ERROR);
	memset(sks, 0xee, sizeof(sks));
	KT_EXPECT(!kt_xcopy_sks(&e, sks));
	KT_EXPECT_EQ(sks[0] | sks[1] | sks[2], 0);
	free(l);
}

static void sks_for_copy_aborted_is_a_segment_pointer(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p;
	u8 sks[3];

	pl_iscsi_dd(&p, 1, 0);
	put_unaligned_be16(7, &p.b[80 + 6]);
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_ERROR);
	e.flags |= KT_XCOPY_ERR_CD;	/* bit 6 is reserved in this format */
	KT_EXPECT(kt_xcopy_sks(&e, sks));
	KT_EXPECT_EQ(sks[0], 0x80);	/* SKSV, SD=0: from the list start */
	KT_EXPECT_EQ(get_unaligned_be16(&sks[1]), 86);
	free(l);
}

static void cscd_match_compares_type_length_and_bytes(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_err e;
	struct plist p;
	u8 other[16];

	pl_iscsi_dd(&p, 1, 0);
	KT_EXPECT_EQ(pl_parse(&p, l, &e), KT_XCOPY_OK);
	KT_EXPECT(kt_xcopy_cscd_match(&l->cscd[0], 3, naa6_a, 16));
	KT_EXPECT(!kt_xcopy_cscd_match(&l->cscd[0], 3, naa6_b, 16));
	KT_EXPECT(!kt_xcopy_cscd_match(&l->cscd[0], 2, naa6_a, 16));
	KT_EXPECT(!kt_xcopy_cscd_match(&l->cscd[0], 3, naa6_a, 8));
	KT_EXPECT(!kt_xcopy_cscd_match(&l->cscd[0], 3, naa6_a, 300));
	memcpy(other, naa6_a, 16);
	other[15] ^= 1;
	KT_EXPECT(!kt_xcopy_cscd_match(&l->cscd[0], 3, other, 16));
	free(l);
}

/* Segment arithmetic */

static void segment_bytes_count_source_blocks_unless_dc(void)
{
	struct kt_xcopy_segment s = { .nr_blocks = 8 };
	u64 bytes = 0;

	/* eight 512-byte source blocks are one 4096-byte destination block */
	KT_EXPECT_EQ(kt_xcopy_segment_bytes(&s, 512, 4096, &bytes), 0);
	KT_EXPECT_EQ(bytes, 4096);
	/* DC: eight destination blocks */
	s.flags = KT_XCOPY_SEG_DC;
	KT_EXPECT_EQ(kt_xcopy_segment_bytes(&s, 512, 4096, &bytes), 0);
	KT_EXPECT_EQ(bytes, 32768);
	KT_EXPECT_EQ(kt_xcopy_segment_bytes(&s, 4096, 512, &bytes), 0);
	KT_EXPECT_EQ(bytes, 4096);

	/* seven 512-byte blocks do not fill 4096-byte blocks */
	s.flags = 0;
	s.nr_blocks = 7;
	bytes = 1;
	KT_EXPECT_EQ(kt_xcopy_segment_bytes(&s, 512, 4096, &bytes), -ERANGE);
	KT_EXPECT_EQ(bytes, 1);
	s.flags = KT_XCOPY_SEG_DC;
	KT_EXPECT_EQ(kt_xcopy_segment_bytes(&s, 4096, 512, &bytes), -ERANGE);

	/* the largest segment, and an empty one */
	s.flags = 0;
	s.nr_blocks = 65535;
	KT_EXPECT_EQ(kt_xcopy_segment_bytes(&s, 65536, 512, &bytes), 0);
	KT_EXPECT_EQ(bytes, 65535ULL * 65536);
	s.nr_blocks = 0;
	KT_EXPECT_EQ(kt_xcopy_segment_bytes(&s, 512, 4096, &bytes), 0);
	KT_EXPECT_EQ(bytes, 0);
}

static void segment_bytes_reject_unsupported_block_sizes(void)
{
	static const u32 bad[] = { 0, 1, 256, 520, 4160, 131072, 0x80000000,
				   0xffffffff };
	struct kt_xcopy_segment s = { .nr_blocks = 1 };
	unsigned int i;
	u64 bytes;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		KT_EXPECT_EQ(kt_xcopy_segment_bytes(&s, bad[i], 512, &bytes),
			     -EINVAL);
		KT_EXPECT_EQ(kt_xcopy_segment_bytes(&s, 512, bad[i], &bytes),
			     -EINVAL);
	}
}

static int span_of(struct plist *p, struct kt_xcopy_list *l, unsigned int nr,
		   u32 sbs, u64 scap, u32 dbs, u64 dcap,
		   struct kt_xcopy_span *span, struct kt_xcopy_err *e)
{
	struct kt_xcopy_geom src = { .nr_blocks = scap, .block_size = sbs };
	struct kt_xcopy_geom dst = { .nr_blocks = dcap, .block_size = dbs };

	if (pl_parse(p, l, e) != KT_XCOPY_OK)
		return -100;
	return kt_xcopy_segment_span(l, nr, &src, &dst, span, e);
}

static void span_512_to_4096_counts_both_sides(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_span span;
	struct kt_xcopy_err e;
	struct plist p;

	pl_iscsi_dd(&p, 2048, 64);
	put_unaligned_be24(4096, &p.b[48 + 29]);
	KT_EXPECT_EQ(span_of(&p, l, 0, 512, 4096, 4096, 320, &span, &e), 0);
	KT_EXPECT_EQ(span.bytes, 2048 * 512);
	KT_EXPECT_EQ(span.src_lba, 64);
	KT_EXPECT_EQ(span.dst_lba, 64);
	KT_EXPECT_EQ(span.src_bs, 512);
	KT_EXPECT_EQ(span.dst_bs, 4096);
	/* the destination ends exactly at its capacity: 64 + 256 blocks */
	KT_EXPECT_EQ(span_of(&p, l, 0, 512, 4096, 4096, 319, &span, &e), -EINVAL);
	EXPECT_ABORTED(&e, KT_XCOPY_ASC_NONE, 80 + 20, 0);
	KT_EXPECT_EQ(span.bytes, 0);
	free(l);
}

static void span_beyond_source_or_destination_is_copy_aborted(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_span span;
	struct kt_xcopy_err e;
	struct plist p;

	/* ExtendedCopy.ValidSegDescr: 2048 blocks at the last LBA */
	pl_iscsi_dd(&p, 2048, 0);
	put_unaligned_be64(99999, &p.b[80 + 20]);
	KT_EXPECT_EQ(span_of(&p, l, 0, 512, 100000, 512, 100000, &span, &e),
		     -EINVAL);
	EXPECT_ABORTED(&e, KT_XCOPY_ASC_NONE, 100, 0);

	put_unaligned_be64(100000 - 2048, &p.b[80 + 20]);
	KT_EXPECT_EQ(span_of(&p, l, 0, 512, 100000, 512, 100000, &span, &e), 0);

	put_unaligned_be64(100000 - 2047, &p.b[80 + 12]);
	KT_EXPECT_EQ(span_of(&p, l, 0, 512, 100000, 512, 100000, &span, &e),
		     -EINVAL);
	EXPECT_ABORTED(&e, KT_XCOPY_ASC_NONE, 92, 0);

	/* LBAs near 2^64 must not wrap past the capacity check */
	put_unaligned_be64(~0ULL - 100, &p.b[80 + 12]);
	KT_EXPECT_EQ(span_of(&p, l, 0, 512, ~0ULL, 512, 100000, &span, &e),
		     -EINVAL);
	EXPECT_ABORTED(&e, KT_XCOPY_ASC_NONE, 92, 0);
	put_unaligned_be64(~0ULL, &p.b[80 + 12]);
	KT_EXPECT_EQ(span_of(&p, l, 0, 512, ~0ULL, 512, 100000, &span, &e),
		     -EINVAL);
	free(l);
}

static void span_with_inexact_segment_is_unexpected_inexact_segment(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_span span;
	struct kt_xcopy_err e;
	struct plist p;

	pl_iscsi_dd(&p, 7, 0);
	pl_seg(&p, 0, 0, 1, 9, 0, 0);
	put_unaligned_be32(56, &p.b[8]);
	put_unaligned_be24(0, &p.b[48 + 29]);
	KT_EXPECT_EQ(span_of(&p, l, 1, 512, 1000, 4096, 1000, &span, &e),
		     -EINVAL);
	EXPECT_ABORTED(&e, KT_XCOPY_ASC_INEXACT_SEGMENT, 108 + 10, 1);
	free(l);
}

static void span_with_wrong_disk_block_length_is_copy_aborted(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_span span;
	struct kt_xcopy_err e;
	struct plist p;

	pl_iscsi_dd(&p, 8, 0);
	/* the destination CSCD says 512, the device has 4096 */
	KT_EXPECT_EQ(span_of(&p, l, 0, 512, 1000, 4096, 1000, &span, &e),
		     -EINVAL);
	EXPECT_ABORTED(&e, KT_XCOPY_ASC_INVALID_PARAM, 48 + 29, 0);
	/* zero DISK BLOCK LENGTH defers to the device */
	put_unaligned_be24(0, &p.b[48 + 29]);
	KT_EXPECT_EQ(span_of(&p, l, 0, 512, 1000, 4096, 1000, &span, &e), 0);
	/* and so does the local logical unit, FFFFh */
	put_unaligned_be24(512, &p.b[48 + 29]);
	put_unaligned_be16(0xffff, &p.b[80 + 6]);
	KT_EXPECT_EQ(span_of(&p, l, 0, 512, 1000, 4096, 1000, &span, &e), 0);
	KT_EXPECT_EQ(span.bytes, 4096);
	free(l);
}

static void span_of_a_bad_segment_number_or_geometry_is_internal(void)
{
	struct kt_xcopy_list *l = new_list();
	struct kt_xcopy_span span;
	struct kt_xcopy_err e;
	struct plist p;

	pl_iscsi_dd(&p, 8, 0);
	KT_EXPECT_EQ(span_of(&p, l, 1, 512, 1000, 512, 1000, &span, &e),
		     -EINVAL);
	EXPECT_SENSE(&e, KT_XCOPY_KEY_HARDWARE_ERROR,
		     KT_XCOPY_ASC_INTERNAL_FAILURE);
	put_unaligned_be24(0, &p.b[16 + 29]);
	KT_EXPECT_EQ(span_of(&p, l, 0, 0, 1000, 512, 1000, &span, &e), -EINVAL);
	EXPECT_SENSE(&e, KT_XCOPY_KEY_HARDWARE_ERROR,
		     KT_XCOPY_ASC_INTERNAL_FAILURE);
	free(l);
}

static void iterator_splits_512_to_4096_span_into_aligned_chunks(void)
{
	struct kt_xcopy_span span = {
		.src_lba = 1000, .dst_lba = 7, .src_bs = 512, .dst_bs = 4096,
		.bytes = 3 * 65536 + 3 * 4096,
	};
	struct kt_xcopy_iter it;
	struct kt_xcopy_chunk c;
	u64 total = 0, src = 1000, dst = 7;
	unsigned int n = 0;

	/* 65536 + 100 rounds down to 65536, a multiple of both blocks */
	KT_EXPECT_EQ(kt_xcopy_iter_init(&it, &span, 65536 + 100), 0);
	while (kt_xcopy_iter_next(&it, &c)) {
		KT_EXPECT_EQ(c.src_lba, src);
		KT_EXPECT_EQ(c.dst_lba, dst);
		KT_EXPECT_EQ(c.bytes % 4096, 0);
		KT_EXPECT(c.bytes <= 65536);
		KT_EXPECT_EQ(c.src_blocks, c.bytes / 512);
		KT_EXPECT_EQ(c.dst_blocks, c.bytes / 4096);
		src += c.src_blocks;
		dst += c.dst_blocks;
		total += c.bytes;
		n++;
	}
	KT_EXPECT_EQ(n, 4);
	KT_EXPECT_EQ(c.bytes, 3 * 4096);
	KT_EXPECT_EQ(total, span.bytes);
	KT_EXPECT_EQ(src, 1000 + span.bytes / 512);
	KT_EXPECT_EQ(dst, 7 + span.bytes / 4096);
	KT_EXPECT(!kt_xcopy_iter_next(&it, &c));
}

static void iterator_4096_to_512_uses_the_larger_block_as_unit(void)
{
	struct kt_xcopy_span span = {
		.src_lba = 0, .dst_lba = 0, .src_bs = 4096, .dst_bs = 512,
		.bytes = 40960,
	};
	struct kt_xcopy_iter it;
	struct kt_xcopy_chunk c;
	unsigned int n = 0;

	/* a 5000-byte buffer holds one 4096-byte source block */
	KT_EXPECT_EQ(kt_xcopy_iter_init(&it, &span, 5000), 0);
	while (kt_xcopy_iter_next(&it, &c)) {
		KT_EXPECT_EQ(c.bytes, 4096);
		KT_EXPECT_EQ(c.src_lba, n);
		KT_EXPECT_EQ(c.dst_lba, n * 8);
		n++;
	}
	KT_EXPECT_EQ(n, 10);
}

static void iterator_rejects_tiny_buffers_and_malformed_spans(void)
{
	struct kt_xcopy_span span = {
		.src_bs = 512, .dst_bs = 4096, .bytes = 8192,
	};
	struct kt_xcopy_iter it;
	struct kt_xcopy_chunk c;

	KT_EXPECT_EQ(kt_xcopy_iter_init(&it, &span, 4095), -EINVAL);
	KT_EXPECT(!kt_xcopy_iter_next(&it, &c));
	KT_EXPECT_EQ(kt_xcopy_iter_init(&it, &span, 0), -EINVAL);
	KT_EXPECT_EQ(kt_xcopy_iter_init(&it, &span, 4096), 0);

	span.bytes = 8192 + 512;	/* not whole destination blocks */
	KT_EXPECT_EQ(kt_xcopy_iter_init(&it, &span, 65536), -EINVAL);

	span.bytes = 8192;
	span.dst_bs = 3000;
	KT_EXPECT_EQ(kt_xcopy_iter_init(&it, &span, 65536), -EINVAL);

	/* an LBA range that would wrap past 2^64 */
	span.dst_bs = 512;
	span.dst_lba = ~0ULL - 3;
	KT_EXPECT_EQ(kt_xcopy_iter_init(&it, &span, 65536), -EINVAL);
	span.dst_lba = ~0ULL - 16;
	KT_EXPECT_EQ(kt_xcopy_iter_init(&it, &span, 65536), 0);

	/* an empty span yields no chunk */
	span.bytes = 0;
	KT_EXPECT_EQ(kt_xcopy_iter_init(&it, &span, 65536), 0);
	KT_EXPECT(!kt_xcopy_iter_next(&it, &c));
}

static void iterator_with_u32_max_buffer_and_huge_span_stays_exact(void)
{
	struct kt_xcopy_span span = {
		.src_bs = 4096, .dst_bs = 4096, .bytes = 1ULL << 34,
	};
	struct kt_xcopy_iter it;
	struct kt_xcopy_chunk c;
	u64 total = 0;
	unsigned int n = 0;

	KT_EXPECT_EQ(kt_xcopy_iter_init(&it, &span, 0xffffffff), 0);
	while (kt_xcopy_iter_next(&it, &c)) {
		KT_EXPECT(c.bytes == 0xfffff000 || it.left == 0);
		total += c.bytes;
		n++;
	}
	KT_EXPECT_EQ(total, 1ULL << 34);
	KT_EXPECT_EQ(n, 5);
}

/* Responses */

static void operating_parameters_report_the_limits(void)
{
	u8 b[64];

	memset(b, 0xee, sizeof(b));
	KT_EXPECT_EQ(kt_xcopy_build_op_params(b, sizeof(b)),
		     KT_XCOPY_OP_PARAMS_LEN);
	KT_EXPECT_EQ(get_unaligned_be32(&b[0]), 42);	/* AVAILABLE DATA */
	KT_EXPECT_EQ(b[4], 0x01);			/* SNLID */
	KT_EXPECT_EQ(get_unaligned_be16(&b[8]), KT_XCOPY_MAX_CSCD);
	KT_EXPECT_EQ(get_unaligned_be16(&b[10]), KT_XCOPY_MAX_SEGMENTS);
	KT_EXPECT_EQ(get_unaligned_be32(&b[12]), 2304);
	KT_EXPECT_EQ(get_unaligned_be32(&b[16]), 256 << 20);
	KT_EXPECT_EQ(get_unaligned_be32(&b[20]), 0);	/* no inline data */
	KT_EXPECT_EQ(get_unaligned_be32(&b[24]), 0);
	KT_EXPECT_EQ(get_unaligned_be32(&b[28]), 0);
	KT_EXPECT_EQ(get_unaligned_be16(&b[34]), KT_XCOPY_MAX_CONCURRENT);
	KT_EXPECT_EQ(b[36], KT_XCOPY_MAX_CONCURRENT);
	KT_EXPECT_EQ(b[37], 9);
	KT_EXPECT_EQ(b[43], 2);
	KT_EXPECT_EQ(b[44], 0x02);
	KT_EXPECT_EQ(b[45], 0xe4);
	KT_EXPECT_EQ(b[46], 0xee);		/* nothing written past 46 */
}

static void responses_respect_every_allocation_length(void)
{
	struct kt_xcopy_progress prog = {
		.bytes = 12345, .segments = 3, .state = KT_XCOPY_CM_FAILED,
	};
	u8 sense[18] = { 0x70, 0, 0x0a };
	u8 full[512], b[512];
	unsigned int n, len, which;

	for (which = 0; which < 4; which++) {
		switch (which) {
		case 0:
			len = kt_xcopy_build_op_params(full, sizeof(full));
			break;
		case 1:
			len = kt_xcopy_build_copy_status(full, sizeof(full),
							 &prog);
			break;
		case 2:
			len = kt_xcopy_build_failure_details(full, sizeof(full),
							     &prog, sense,
							     sizeof(sense));
			break;
		default:
			len = kt_xcopy_build_vpd_tpc(full, sizeof(full), 0, NULL);
			break;
		}
		for (n = 0; n <= len + 1; n++) {
			unsigned int got;
			u8 *exact = malloc(n ? n : 1);

			switch (which) {
			case 0:
				got = kt_xcopy_build_op_params(exact, n);
				break;
			case 1:
				got = kt_xcopy_build_copy_status(exact, n,
								 &prog);
				break;
			case 2:
				got = kt_xcopy_build_failure_details(exact, n,
								     &prog,
								     sense,
								     sizeof(sense));
				break;
			default:
				got = kt_xcopy_build_vpd_tpc(exact, n, 0, NULL);
				break;
			}
			KT_EXPECT_EQ(got, len);
			memcpy(b, exact, n < len ? n : len);
			KT_EXPECT(!memcmp(b, full, n < len ? n : len));
			free(exact);
		}
	}
	/* a zero allocation length with no buffer at all */
	KT_EXPECT_EQ(kt_xcopy_build_vpd_tpc(NULL, 0, 0, NULL), KT_XCOPY_VPD_TPC_LEN);
}

static void copy_status_scales_transfer_count_to_32_bits(void)
{
	struct kt_xcopy_progress prog = {
		.bytes = 4096 * 2048, .segments = 1, .state = KT_XCOPY_CM_DONE,
	};
	u8 b[12];

	KT_EXPECT_EQ(kt_xcopy_build_copy_status(b, sizeof(b), &prog), 12);
	KT_EXPECT_EQ(get_unaligned_be32(&b[0]), 8);
	KT_EXPECT_EQ(b[4], KT_XCOPY_CM_DONE);
	KT_EXPECT_EQ(get_unaligned_be16(&b[5]), 1);
	KT_EXPECT_EQ(b[7], 0);				/* bytes */
	KT_EXPECT_EQ(get_unaligned_be32(&b[8]), 4096 * 2048);

	prog.bytes = 0xffffffffULL;
	kt_xcopy_build_copy_status(b, sizeof(b), &prog);
	KT_EXPECT_EQ(b[7], 0);
	KT_EXPECT_EQ(get_unaligned_be32(&b[8]), 0xffffffff);

	prog.bytes = 1ULL << 32;
	kt_xcopy_build_copy_status(b, sizeof(b), &prog);
	KT_EXPECT_EQ(b[7], 1);				/* KiB */
	KT_EXPECT_EQ(get_unaligned_be32(&b[8]), 1 << 22);

	prog.bytes = 1ULL << 50;
	kt_xcopy_build_copy_status(b, sizeof(b), &prog);
	KT_EXPECT_EQ(b[7], 2);				/* MiB */
	KT_EXPECT_EQ(get_unaligned_be32(&b[8]), 1 << 30);

	prog.bytes = ~0ULL;
	prog.state = KT_XCOPY_CM_IN_PROGRESS;
	prog.flags = KT_XCOPY_PROGRESS_HDD;
	kt_xcopy_build_copy_status(b, sizeof(b), &prog);
	KT_EXPECT_EQ(b[4], 0x80);
	KT_EXPECT_EQ(b[7], 4);				/* TiB */
	KT_EXPECT_EQ(get_unaligned_be32(&b[8]), 0xffffff);
}

static void failure_details_carry_sense_only_after_a_failure(void)
{
	struct kt_xcopy_progress prog = { .state = KT_XCOPY_CM_FAILED };
	u8 sense[300], b[400];
	unsigned int i;

	for (i = 0; i < sizeof(sense); i++)
		sense[i] = i;
	memset(b, 0xee, sizeof(b));
	KT_EXPECT_EQ(kt_xcopy_build_failure_details(b, sizeof(b), &prog,
						    sense, 18), 78);
	KT_EXPECT_EQ(get_unaligned_be32(&b[0]), 74);
	for (i = 4; i < 56; i++)
		KT_EXPECT_EQ(b[i], 0);
	KT_EXPECT_EQ(b[56], KT_XCOPY_CM_FAILED);
	KT_EXPECT_EQ(get_unaligned_be16(&b[58]), 18);
	KT_EXPECT(!memcmp(&b[60], sense, 18));
	KT_EXPECT_EQ(b[78], 0xee);

	/* sense data is capped at 252 bytes */
	KT_EXPECT_EQ(kt_xcopy_build_failure_details(b, sizeof(b), &prog,
						    sense, 300), 60 + 252);
	KT_EXPECT_EQ(get_unaligned_be16(&b[58]), 252);
	KT_EXPECT_EQ(kt_xcopy_build_failure_details(b, sizeof(b), &prog,
						    NULL, 300), 60);

	/* a copy that did not fail has no details */
	prog.state = KT_XCOPY_CM_DONE;
	memset(b, 0xee, sizeof(b));
	KT_EXPECT_EQ(kt_xcopy_build_failure_details(b, sizeof(b), &prog,
						    sense, 18), 4);
	KT_EXPECT_EQ(get_unaligned_be32(&b[0]), 0);
	KT_EXPECT_EQ(b[4], 0xee);
}

/* Walk VPD 8Fh as libiscsi's Inquiry.VPDThirdPartyCopy does */
static const u8 *vpd_desc(const u8 *b, unsigned int len, u16 type)
{
	unsigned int off = 4;

	while (off + 4 <= len) {
		if (get_unaligned_be16(&b[off]) == type)
			return &b[off];
		off += 4 + get_unaligned_be16(&b[off + 2]);
	}
	return NULL;
}

static void vpd_8f_descriptors_match_the_limits(void)
{
	u8 b[256], op[64];
	const u8 *d;
	unsigned int off, len, n = 0;

	memset(b, 0xee, sizeof(b));
	len = kt_xcopy_build_vpd_tpc(b, sizeof(b), 0x00, NULL);
	KT_EXPECT_EQ(len, KT_XCOPY_VPD_TPC_LEN);
	KT_EXPECT_EQ(b[0], 0x00);
	KT_EXPECT_EQ(b[1], 0x8f);
	KT_EXPECT_EQ(get_unaligned_be16(&b[2]) + 4, len);
	KT_EXPECT_EQ(b[len], 0xee);
	kt_xcopy_build_op_params(op, sizeof(op));

	/* descriptors tile the page, each a multiple of four bytes long */
	for (off = 4; off < len; n++) {
		KT_EXPECT_EQ(get_unaligned_be16(&b[off + 2]) % 4, 0);
		off += 4 + get_unaligned_be16(&b[off + 2]);
	}
	KT_EXPECT_EQ(off, len);
	KT_EXPECT_EQ(n, 5);

	/* Supported Commands: 83h/00h and 84h/00h,03h,04h */
	d = vpd_desc(b, len, 0x0001);
	KT_EXPECT(d);
	if (d) {
		KT_EXPECT_EQ(d[4], 8);
		KT_EXPECT_EQ(get_unaligned_be16(&d[2]), (1 + d[4] + 3) & ~3);
		KT_EXPECT_EQ(d[5], 0x83);
		KT_EXPECT_EQ(d[6], 1);
		KT_EXPECT_EQ(d[7], 0x00);
		KT_EXPECT_EQ(d[8], 0x84);
		KT_EXPECT_EQ(d[9], 3);
		KT_EXPECT_EQ(d[10], 0x00);
		KT_EXPECT_EQ(d[11], 0x03);
		KT_EXPECT_EQ(d[12], 0x04);
	}
	/* Parameter Data: the same limits as the operating parameters */
	d = vpd_desc(b, len, 0x0004);
	KT_EXPECT(d);
	if (d) {
		KT_EXPECT_EQ(get_unaligned_be16(&d[2]), 0x1c);
		KT_EXPECT_EQ(get_unaligned_be32(&d[4]), 0);
		KT_EXPECT(!memcmp(&d[8], &op[8], 8));	/* counts, list len */
		KT_EXPECT(!memcmp(&d[16], &op[20], 4));	/* inline */
	}
	/* Supported Descriptors: 02h and E4h */
	d = vpd_desc(b, len, 0x0008);
	KT_EXPECT(d);
	if (d) {
		KT_EXPECT_EQ(get_unaligned_be16(&d[2]), 4);
		KT_EXPECT_EQ(d[4], 2);
		KT_EXPECT(!memcmp(&d[5], &op[44], 2));
	}
	/* Supported CSCD Descriptor IDs: FFFFh */
	d = vpd_desc(b, len, 0x000c);
	KT_EXPECT(d);
	if (d) {
		KT_EXPECT_EQ(get_unaligned_be16(&d[2]), 4);
		KT_EXPECT_EQ(get_unaligned_be16(&d[4]), 2);
		KT_EXPECT_EQ(get_unaligned_be16(&d[6]), 0xffff);
	}
	/* General Copy Operations */
	d = vpd_desc(b, len, 0x8001);
	KT_EXPECT(d);
	if (d) {
		KT_EXPECT_EQ(get_unaligned_be16(&d[2]), 0x20);
		KT_EXPECT_EQ(get_unaligned_be32(&d[4]),
			     get_unaligned_be16(&op[34]));
		KT_EXPECT_EQ(get_unaligned_be32(&d[8]), op[36]);
		KT_EXPECT(get_unaligned_be32(&d[4]) >= 1);
		KT_EXPECT(get_unaligned_be32(&d[4]) <= 16384);
		KT_EXPECT(get_unaligned_be32(&d[8]) <= 255);
		KT_EXPECT(!memcmp(&d[12], &op[16], 4));
		KT_EXPECT_EQ(d[16], op[37]);
	}
}

static void vpd_8f_offers_token_copy_in_blocks_of_the_lu(void)
{
	struct kt_xcopy_rod_vpd rod = { .block_size = 4096, .timeout = 45 };
	u8 b[512];
	const u8 *d;
	unsigned int off, len, n = 0;

	memset(b, 0xee, sizeof(b));
	len = kt_xcopy_build_vpd_tpc(b, sizeof(b), 0x00, &rod);
	KT_EXPECT_EQ(len, KT_XCOPY_VPD_TPC_ROD_LEN);
	KT_EXPECT_EQ(get_unaligned_be16(&b[2]) + 4, len);
	KT_EXPECT_EQ(b[len], 0xee);
	for (off = 4; off < len; n++) {
		KT_EXPECT_EQ(get_unaligned_be16(&b[off + 2]) % 4, 0);
		off += 4 + get_unaligned_be16(&b[off + 2]);
	}
	KT_EXPECT_EQ(off, len);
	KT_EXPECT_EQ(n, 7);

	/* Supported Commands: 83h/00h,10h,11h and 84h/00h,03h,04h,07h */
	d = vpd_desc(b, len, 0x0001);
	KT_EXPECT(d);
	if (d) {
		static const u8 want[] = { 11, 0x83, 3, 0x00, 0x10, 0x11,
					   0x84, 4, 0x00, 0x03, 0x04, 0x07 };

		KT_EXPECT(!memcmp(d + 4, want, sizeof(want)));
		KT_EXPECT_EQ(get_unaligned_be16(&d[2]), 12);
	}
	/* Block Device ROD Token Limits, as ddpt and Windows read it */
	d = vpd_desc(b, len, 0x0000);
	KT_EXPECT(d);
	if (d) {
		KT_EXPECT_EQ(get_unaligned_be16(&d[2]), 32);
		KT_EXPECT_EQ(get_unaligned_be16(&d[10]), KT_ROD_MAX_RANGES);
		KT_EXPECT_EQ(get_unaligned_be32(&d[12]), KT_ROD_TIMEOUT_MAX);
		KT_EXPECT_EQ(get_unaligned_be32(&d[16]), 45);
		KT_EXPECT_EQ(get_unaligned_be64(&d[20]), KT_ROD_MAX_BYTES / 4096);
		KT_EXPECT_EQ(get_unaligned_be64(&d[28]), KT_ROD_OPTIMAL_BYTES / 4096);
	}
	/* Supported ROD Token and ROD Types: ours in and out, zero in only */
	d = vpd_desc(b, len, 0x0108);
	KT_EXPECT(d);
	if (d) {
		KT_EXPECT_EQ(get_unaligned_be16(&d[6]), 128);
		KT_EXPECT_EQ(get_unaligned_be32(&d[8]), KT_ROD_TYPE_PIT_VULNERABLE);
		KT_EXPECT_EQ(d[12], 0x03);
		KT_EXPECT_EQ(get_unaligned_be32(&d[72]), KT_ROD_TYPE_ZERO);
		KT_EXPECT_EQ(d[76], 0x02);
	}
}

static const struct kt_test tests[] = {
	KT_TEST_ENTRY(iscsi_dd_two_cscd_one_segment_list_parses),
	KT_TEST_ENTRY(libiscsi_simple_copy_within_one_cscd_parses),
	KT_TEST_ENTRY(several_segments_and_designators_parse_in_order),
	KT_TEST_ENTRY(list_at_every_limit_parses),
	KT_TEST_ENTRY(trailing_bytes_after_the_declared_list_are_ignored),
	KT_TEST_ENTRY(empty_parameter_list_is_good_with_nothing_to_copy),
	KT_TEST_ENTRY(header_shorter_than_16_bytes_is_parameter_list_length_error),
	KT_TEST_ENTRY(truncated_cscd_descriptor_is_parameter_list_length_error),
	KT_TEST_ENTRY(truncated_segment_descriptor_is_parameter_list_length_error),
	KT_TEST_ENTRY(header_lengths_near_u32_max_do_not_wrap),
	KT_TEST_ENTRY(descr_limits_from_operating_parameters_give_expected_sense),
	KT_TEST_ENTRY(fibre_channel_cscd_e0_is_unsupported_target_descriptor),
	KT_TEST_ENTRY(stream_to_stream_segment_is_unsupported_segment_descriptor),
	KT_TEST_ENTRY(block_with_offset_segment_0a_is_unsupported),
	KT_TEST_ENTRY(segment_naming_missing_cscd_is_copy_aborted_unreachable),
	KT_TEST_ENTRY(reserved_and_out_of_list_cscd_ids_are_unreachable),
	KT_TEST_ENTRY(segments_without_any_cscd_are_unreachable),
	KT_TEST_ENTRY(illegal_request_checks_run_before_copy_aborted_ones),
	KT_TEST_ENTRY(naa_designator_of_wrong_length_is_invalid_field),
	KT_TEST_ENTRY(naa_designator_with_bad_naa_or_code_set_is_invalid_field),
	KT_TEST_ENTRY(designator_longer_than_20_bytes_is_invalid_field),
	KT_TEST_ENTRY(unsupported_designator_types_are_invalid_field),
	KT_TEST_ENTRY(designator_of_a_port_is_invalid_field),
	KT_TEST_ENTRY(eui64_and_t10_designator_lengths_are_checked),
	KT_TEST_ENTRY(non_block_peripheral_device_type_is_invalid_field),
	KT_TEST_ENTRY(lu_id_type_and_nul_bit_are_ignored),
	KT_TEST_ENTRY(inline_data_is_invalid_field_in_parameter_list),
	KT_TEST_ENTRY(reserved_list_id_usage_is_invalid_field),
	KT_TEST_ENTRY(no_list_id_usage_needs_a_zero_list_identifier),
	KT_TEST_ENTRY(cscd_list_length_not_a_multiple_of_32_is_invalid_field),
	KT_TEST_ENTRY(segment_descriptor_length_other_than_24_is_invalid_field),
	KT_TEST_ENTRY(segment_list_length_cutting_a_descriptor_is_invalid_field),
	KT_TEST_ENTRY(sks_encodes_field_and_bit_pointer_for_parameter_data),
	KT_TEST_ENTRY(sks_for_copy_aborted_is_a_segment_pointer),
	KT_TEST_ENTRY(cscd_match_compares_type_length_and_bytes),
	KT_TEST_ENTRY(segment_bytes_count_source_blocks_unless_dc),
	KT_TEST_ENTRY(segment_bytes_reject_unsupported_block_sizes),
	KT_TEST_ENTRY(span_512_to_4096_counts_both_sides),
	KT_TEST_ENTRY(span_beyond_source_or_destination_is_copy_aborted),
	KT_TEST_ENTRY(span_with_inexact_segment_is_unexpected_inexact_segment),
	KT_TEST_ENTRY(span_with_wrong_disk_block_length_is_copy_aborted),
	KT_TEST_ENTRY(span_of_a_bad_segment_number_or_geometry_is_internal),
	KT_TEST_ENTRY(iterator_splits_512_to_4096_span_into_aligned_chunks),
	KT_TEST_ENTRY(iterator_4096_to_512_uses_the_larger_block_as_unit),
	KT_TEST_ENTRY(iterator_rejects_tiny_buffers_and_malformed_spans),
	KT_TEST_ENTRY(iterator_with_u32_max_buffer_and_huge_span_stays_exact),
	KT_TEST_ENTRY(operating_parameters_report_the_limits),
	KT_TEST_ENTRY(responses_respect_every_allocation_length),
	KT_TEST_ENTRY(copy_status_scales_transfer_count_to_32_bits),
	KT_TEST_ENTRY(failure_details_carry_sense_only_after_a_failure),
	KT_TEST_ENTRY(vpd_8f_descriptors_match_the_limits),
	KT_TEST_ENTRY(vpd_8f_offers_token_copy_in_blocks_of_the_lu),
};

KT_TEST_MAIN(tests)
