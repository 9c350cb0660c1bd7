// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of drivers/target/proto/mode.c: MODE SENSE (6)/(10) and
 * MODE SELECT (6)/(10). Responses go to buffers malloc'ed to the exact
 * allocation length, parameter lists to buffers of their exact length, so
 * that ASan catches overruns.
 */
#include <linux/types.h>
#include <linux/unaligned.h>

#include <ktarget/proto/sense.h>
#include <ktarget/proto/spc.h>

#include "kt_test.h"

static struct kt_lu_info test_lu(void)
{
	return (struct kt_lu_info){
		.nr_blocks = 2048,
		.dev_id = 1,
		.block_size = 512,
		.flags = KT_LU_WCE | KT_LU_FUA_WRITE | KT_LU_DPO | KT_LU_TAS |
			 KT_LU_WCE_CHANGEABLE | KT_LU_SWP_CHANGEABLE,
		.ua_intlck_ctrl = 0,
		.proto_id = KT_PROTO_ISCSI,
	};
}

struct result {
	sense_reason_t	ret;
	u32		data_len;
	struct kt_sense_field field;
	u8		data[1024];
};

static void sense6(const struct kt_lu_info *lu, bool dbd, u8 pc, u8 page,
		   u8 sub, u8 alloc, struct result *r)
{
	u8 cdb[6] = { 0x1a, dbd ? 0x08 : 0, pc << 6 | page, sub, alloc };
	u8 *buf = malloc(alloc ? alloc : 1);

	memset(r, 0, sizeof(*r));
	r->ret = kt_spc_mode_sense(lu, cdb, alloc ? buf : NULL, alloc,
				   &r->data_len, &r->field);
	memcpy(r->data, buf, alloc);
	free(buf);
}

static void sense10(const struct kt_lu_info *lu, bool llbaa, bool dbd, u8 pc,
		    u8 page, u8 sub, u16 alloc, struct result *r)
{
	u8 cdb[10] = { 0x5a, (llbaa ? 0x10 : 0) | (dbd ? 0x08 : 0),
		       pc << 6 | page, sub };
	u8 *buf = malloc(alloc ? alloc : 1);

	put_unaligned_be16(alloc, &cdb[7]);
	memset(r, 0, sizeof(*r));
	r->ret = kt_spc_mode_sense(lu, cdb, alloc ? buf : NULL, alloc,
				   &r->data_len, &r->field);
	memcpy(r->data, buf, alloc < sizeof(r->data) ? alloc : sizeof(r->data));
	free(buf);
}

/* Offset of mode page @code in a MODE SENSE response, 0 if absent */
static u32 find_page(const struct result *r, u32 hdr, u8 code)
{
	u32 off, bdl = hdr == 4 ? r->data[3] : get_unaligned_be16(&r->data[6]);

	for (off = hdr + bdl; off + 2 <= r->data_len; off += 2 + r->data[off + 1])
		if ((r->data[off] & 0x3f) == code)
			return off;
	return 0;
}

/* MODE SENSE --------------------------------------------------------------- */

static void mode_sense6_all_pages_has_header_descriptor_and_four_pages(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u32 off;

	sense6(&lu, false, 0, 0x3f, 0, 255, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 4 + 8 + 12 + 20 + 12 + 12);
	KT_EXPECT_EQ(r.data[0], r.data_len - 1);
	KT_EXPECT_EQ(r.data[1], 0);
	KT_EXPECT_EQ(r.data[2], 0x10);			/* DPOFUA, not WP */
	KT_EXPECT_EQ(r.data[3], 8);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[4]), 2048);
	KT_EXPECT_EQ(get_unaligned_be24(&r.data[9]), 512);
	off = 12;
	KT_EXPECT_EQ(r.data[off], 0x01);
	KT_EXPECT_EQ(r.data[off + 1], 0x0a);
	off += 12;
	KT_EXPECT_EQ(r.data[off], 0x08);
	KT_EXPECT_EQ(r.data[off + 1], 0x12);
	KT_EXPECT_EQ(r.data[off + 2], 0x04);		/* WCE */
	off += 20;
	KT_EXPECT_EQ(r.data[off], 0x0a);
	off += 12;
	KT_EXPECT_EQ(r.data[off], 0x1c);
	KT_EXPECT_EQ(r.data[off + 2], 0x08);		/* DEXCPT */
}

static void mode_sense6_subpage_ff_returns_the_same_pages(void)
{
	struct kt_lu_info lu = test_lu();
	struct result a, b;

	sense6(&lu, false, 0, 0x3f, 0, 255, &a);
	sense6(&lu, false, 0, 0x3f, 0xff, 255, &b);
	KT_EXPECT_EQ(b.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(a.data_len, b.data_len);
	KT_EXPECT(!memcmp(a.data, b.data, a.data_len));
	sense6(&lu, false, 0, 0x0a, 0xff, 255, &b);
	KT_EXPECT_EQ(b.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(b.data_len, 4 + 8 + 12);
}

static void mode_sense_dbd_leaves_out_the_block_descriptor(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;

	sense6(&lu, true, 0, 0x08, 0, 255, &r);
	KT_EXPECT_EQ(r.data_len, 4 + 20);
	KT_EXPECT_EQ(r.data[3], 0);
	KT_EXPECT_EQ(r.data[4], 0x08);

	sense10(&lu, true, true, 0, 0x08, 0, 255, &r);
	KT_EXPECT_EQ(r.data_len, 8 + 20);
	KT_EXPECT_EQ(r.data[4], 0);			/* no LONGLBA */
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[6]), 0);
}

static void mode_sense10_llbaa_returns_a_long_lba_descriptor(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;

	lu.nr_blocks = 0x123456789aULL;			/* beyond 32 bits */
	lu.block_size = 4096;
	sense10(&lu, true, false, 0, 0x0a, 0, 255, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 8 + 16 + 12);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[0]), r.data_len - 2);
	KT_EXPECT_EQ(r.data[3], 0x10);
	KT_EXPECT_EQ(r.data[4], 0x01);			/* LONGLBA */
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[6]), 16);
	KT_EXPECT_EQ(get_unaligned_be64(&r.data[8]), 0x123456789aULL);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[20]), 4096);

	/* a short descriptor says FFFFFFFFh for a capacity beyond 32 bits */
	sense10(&lu, false, false, 0, 0x0a, 0, 255, &r);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[6]), 8);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[8]), 0xffffffff);
	KT_EXPECT_EQ(get_unaligned_be24(&r.data[13]), 4096);
	sense6(&lu, false, 0, 0x0a, 0, 255, &r);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[4]), 0xffffffff);
}

static void mode_sense_saved_values_is_saving_not_supported_byte_2_bit_7(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;

	sense6(&lu, false, 3, 0x3f, 0, 255, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_SAVING_PARAMS_UNSUPPORTED);
	KT_EXPECT(r.field.valid && r.field.in_cdb && r.field.bit_valid);
	KT_EXPECT_EQ(r.field.byte, 2);
	KT_EXPECT_EQ(r.field.bit, 7);
	KT_EXPECT_EQ(r.data_len, 0);
}

static void mode_sense_unknown_page_is_invalid_field_byte_2(void)
{
	static const u8 pages[] = { 0x00, 0x02, 0x07, 0x19, 0x1a, 0x3e };
	struct kt_lu_info lu = test_lu();
	struct result r;
	unsigned int i;

	for (i = 0; i < sizeof(pages); i++) {
		sense6(&lu, false, 0, pages[i], 0, 255, &r);
		KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
		KT_EXPECT_EQ(r.field.byte, 2);
		KT_EXPECT_EQ(r.field.bit, 5);
		KT_EXPECT(r.field.in_cdb);
	}
}

static void mode_sense_unknown_subpage_is_invalid_field_byte_3(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;

	sense6(&lu, false, 0, 0x0a, 0x01, 255, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(r.field.byte, 3);
	KT_EXPECT(!r.field.bit_valid);
	sense10(&lu, false, false, 0, 0x3f, 0xfe, 255, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(r.field.byte, 3);
}

static void mode_sense_control_page_reports_sane_values(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u32 off;

	sense6(&lu, true, 0, 0x0a, 0, 255, &r);
	off = find_page(&r, 4, 0x0a);
	KT_EXPECT_EQ(off, 4);
	KT_EXPECT_EQ(r.data[off + 1], 0x0a);
	KT_EXPECT_EQ(r.data[off + 2], 0x02);		/* TST 0, D_SENSE 0 */
	KT_EXPECT_EQ(r.data[off + 3], 0x10);		/* QAM 1, QERR 0 */
	KT_EXPECT_EQ(r.data[off + 4], 0x00);
	KT_EXPECT_EQ(r.data[off + 5], 0x40);		/* TAS */
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[off + 8]), 0xffff);

	lu.flags |= KT_LU_REST_REORD | KT_LU_SWP;
	lu.flags &= ~KT_LU_TAS;
	lu.ua_intlck_ctrl = 2;
	sense6(&lu, true, 0, 0x0a, 0, 255, &r);
	KT_EXPECT_EQ(r.data[off + 3], 0x00);
	KT_EXPECT_EQ(r.data[off + 4], 0x20 | 0x08);	/* UA_INTLCK, SWP */
	KT_EXPECT_EQ(r.data[off + 5], 0);
	KT_EXPECT_EQ(r.data[2], 0x80 | 0x10);		/* SWP means WP */

	lu.ua_intlck_ctrl = 1;				/* reserved: not sent */
	sense6(&lu, true, 0, 0x0a, 0, 255, &r);
	KT_EXPECT_EQ(r.data[off + 4], 0x08);
}

static void mode_sense_control_page_is_the_same_alone_and_in_all_pages(void)
{
	struct kt_lu_info lu = test_lu();
	struct result all, one;
	u32 a, o;

	sense6(&lu, false, 0, 0x3f, 0, 255, &all);
	sense6(&lu, false, 0, 0x0a, 0, 255, &one);
	a = find_page(&all, 4, 0x0a);
	o = find_page(&one, 4, 0x0a);
	KT_EXPECT(a && o);
	KT_EXPECT(!memcmp(&all.data[a], &one.data[o], 12));
}

static void mode_sense_changeable_values_show_wce_and_swp_only(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u32 off, i;

	sense6(&lu, false, 1, 0x3f, 0, 255, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	for (i = 4; i < 12; i++)			/* block descriptor */
		KT_EXPECT_EQ(r.data[i], 0);
	off = find_page(&r, 4, 0x08);
	KT_EXPECT_EQ(r.data[off + 2], 0x04);
	for (i = 3; i < 20; i++)
		KT_EXPECT_EQ(r.data[off + i], 0);
	off = find_page(&r, 4, 0x0a);
	KT_EXPECT_EQ(r.data[off + 4], 0x08);
	KT_EXPECT_EQ(r.data[off + 2], 0);
	KT_EXPECT_EQ(r.data[off + 8], 0);

	lu.flags &= ~(KT_LU_WCE_CHANGEABLE | KT_LU_SWP_CHANGEABLE);
	sense6(&lu, true, 1, 0x0a, 0, 255, &r);
	KT_EXPECT_EQ(r.data[4 + 4], 0);
	sense6(&lu, true, 1, 0x08, 0, 255, &r);
	KT_EXPECT_EQ(r.data[4 + 2], 0);
}

static void mode_sense_default_values_have_swp_off(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;

	lu.flags |= KT_LU_SWP;
	sense6(&lu, true, 2, 0x0a, 0, 255, &r);
	KT_EXPECT_EQ(r.data[4 + 4] & 0x08, 0);
	sense6(&lu, true, 2, 0x08, 0, 255, &r);
	KT_EXPECT_EQ(r.data[4 + 2], 0x04);
}

static void mode_sense_device_specific_parameter_has_wp_and_dpofua(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;

	lu.flags |= KT_LU_READ_ONLY;
	sense6(&lu, true, 0, 0x3f, 0, 255, &r);
	KT_EXPECT_EQ(r.data[2], 0x90);
	lu.flags &= ~(KT_LU_READ_ONLY | KT_LU_DPO);
	sense10(&lu, false, true, 0, 0x3f, 0, 255, &r);
	KT_EXPECT_EQ(r.data[3], 0x00);
}

static void mode_sense_short_allocation_truncates_but_keeps_the_length(void)
{
	struct kt_lu_info lu = test_lu();
	struct result full, r;
	u32 alloc;

	sense6(&lu, false, 0, 0x3f, 0, 255, &full);
	for (alloc = 0; alloc <= 255; alloc++) {
		sense6(&lu, false, 0, 0x3f, 0, alloc, &r);
		KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
		KT_EXPECT_EQ(r.data_len, alloc < full.data_len ? alloc :
			     full.data_len);
		KT_EXPECT(!memcmp(r.data, full.data, r.data_len));
	}
	/* libiscsi ModeSense6.Residuals: 4 bytes, MODE DATA LENGTH intact */
	sense6(&lu, false, 0, 0x3f, 0, 4, &r);
	KT_EXPECT_EQ(r.data[0], full.data_len - 1);

	sense10(&lu, true, false, 0, 0x3f, 0, 3, &r);
	KT_EXPECT_EQ(r.data_len, 3);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[0]), 8 + 16 + 56 - 2);
}

/* MODE SELECT -------------------------------------------------------------- */

static sense_reason_t select_list(const struct kt_lu_info *lu, bool ten,
				  u8 b1, const u8 *list, u32 len,
				  struct kt_mode_select *sel,
				  struct kt_sense_field *f)
{
	u8 cdb[10] = { 0 };
	u8 *p = malloc(len ? len : 1);
	sense_reason_t ret;

	if (ten) {
		cdb[0] = 0x55;
		put_unaligned_be16(len, &cdb[7]);
	} else {
		cdb[0] = 0x15;
		cdb[4] = len;
	}
	cdb[1] = b1;
	memcpy(p, list, len);
	ret = kt_spc_mode_select(lu, cdb, p, len, sel, f);
	free(p);
	return ret;
}

/* A MODE SELECT (6) list made from the current page, as libiscsi does */
static u32 list_from_page(const struct kt_lu_info *lu, u8 code, u8 *list)
{
	struct result r;
	u32 n;

	sense6(lu, true, 0, code, 0, 255, &r);
	n = r.data_len - 4;
	memset(list, 0, 4);
	memcpy(list + 4, r.data + 4, n);
	return 4 + n;
}

#define EXPECT_PARAM(f, b, bit_) \
	do { \
		KT_EXPECT((f).valid); \
		KT_EXPECT(!(f).in_cdb); \
		KT_EXPECT_EQ((f).byte, (b)); \
		if ((bit_) >= 0) { \
			KT_EXPECT((f).bit_valid); \
			KT_EXPECT_EQ((f).bit, (bit_)); \
		} else { \
			KT_EXPECT(!(f).bit_valid); \
		} \
	} while (0)

static void mode_select_of_current_pages_changes_nothing(void)
{
	static const u8 codes[] = { 0x01, 0x08, 0x0a, 0x1c };
	struct kt_lu_info lu = test_lu();
	struct kt_mode_select sel;
	struct kt_sense_field f;
	unsigned int i;
	u8 list[64];
	u32 n;

	for (i = 0; i < sizeof(codes); i++) {
		n = list_from_page(&lu, codes[i], list);
		KT_EXPECT_EQ(select_list(&lu, false, 0x10, list, n, &sel, &f),
			     KT_SENSE_NONE);
		if (codes[i] == 0x08) {
			KT_EXPECT_EQ(sel.set, KT_MODE_SET_WCE);
			KT_EXPECT_EQ(sel.wce, 1);
		} else if (codes[i] == 0x0a) {
			KT_EXPECT_EQ(sel.set, KT_MODE_SET_SWP);
			KT_EXPECT_EQ(sel.swp, 0);
		} else {
			KT_EXPECT_EQ(sel.set, 0);
		}
	}
}

static void mode_select_sets_swp_like_libiscsi_set_swp(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_mode_select sel;
	struct kt_sense_field f;
	u8 list[64];
	u32 n;

	n = list_from_page(&lu, 0x0a, list);
	list[4 + 4] |= 0x08;
	KT_EXPECT_EQ(select_list(&lu, false, 0x10, list, n, &sel, &f),
		     KT_SENSE_NONE);
	KT_EXPECT(sel.set & KT_MODE_SET_SWP);
	KT_EXPECT_EQ(sel.swp, 1);

	/* not changeable: the same list is refused at the SWP bit */
	lu.flags &= ~KT_LU_SWP_CHANGEABLE;
	KT_EXPECT_EQ(select_list(&lu, false, 0x10, list, n, &sel, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	EXPECT_PARAM(f, 4 + 4, 3);
	KT_EXPECT_EQ(sel.set, 0);
}

static void mode_select_clears_wce_when_changeable(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_mode_select sel;
	struct kt_sense_field f;
	u8 list[64];
	u32 n;

	n = list_from_page(&lu, 0x08, list);
	list[4 + 2] &= ~0x04;
	KT_EXPECT_EQ(select_list(&lu, false, 0x10, list, n, &sel, &f),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(sel.set, KT_MODE_SET_WCE);
	KT_EXPECT_EQ(sel.wce, 0);

	lu.flags &= ~KT_LU_WCE_CHANGEABLE;
	KT_EXPECT_EQ(select_list(&lu, false, 0x10, list, n, &sel, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	EXPECT_PARAM(f, 6, 2);
}

static void mode_select_non_changeable_field_names_byte_and_bit(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_mode_select sel;
	struct kt_sense_field f;
	u8 list[64];
	u32 n;

	n = list_from_page(&lu, 0x0a, list);
	list[4 + 2] |= 0x04;				/* D_SENSE */
	KT_EXPECT_EQ(select_list(&lu, false, 0x10, list, n, &sel, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	EXPECT_PARAM(f, 6, 2);

	n = list_from_page(&lu, 0x0a, list);
	list[4 + 9] = 0x10;				/* BUSY TIMEOUT */
	KT_EXPECT_EQ(select_list(&lu, false, 0x10, list, n, &sel, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	EXPECT_PARAM(f, 13, 7);
}

static void mode_select_pf_zero_is_invalid_field_byte_1_bit_4(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_mode_select sel;
	struct kt_sense_field f;
	u8 list[64];
	u32 n;

	n = list_from_page(&lu, 0x0a, list);
	KT_EXPECT_EQ(select_list(&lu, false, 0x00, list, n, &sel, &f),
		     KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT(f.in_cdb && f.bit_valid);
	KT_EXPECT_EQ(f.byte, 1);
	KT_EXPECT_EQ(f.bit, 4);
}

static void mode_select_sp_is_invalid_field_byte_1_bit_0(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_mode_select sel;
	struct kt_sense_field f;
	u8 list[64];
	u32 n;

	/* SPC-4 6.9: no saved pages means INVALID FIELD IN CDB */
	n = list_from_page(&lu, 0x0a, list);
	KT_EXPECT_EQ(select_list(&lu, true, 0x11, list, n, &sel, &f),
		     KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT(f.in_cdb && f.bit_valid);
	KT_EXPECT_EQ(f.byte, 1);
	KT_EXPECT_EQ(f.bit, 0);
}

static void mode_select_empty_list_is_good_and_short_header_is_length_error(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_mode_select sel;
	struct kt_sense_field f;
	u8 list[8] = { 0 };
	u32 n;

	KT_EXPECT_EQ(select_list(&lu, false, 0x10, list, 0, &sel, &f),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(sel.set, 0);
	for (n = 1; n < 4; n++)
		KT_EXPECT_EQ(select_list(&lu, false, 0x10, list, n, &sel, &f),
			     KT_SENSE_PARAM_LIST_LENGTH);
	for (n = 1; n < 8; n++)
		KT_EXPECT_EQ(select_list(&lu, true, 0x10, list, n, &sel, &f),
			     KT_SENSE_PARAM_LIST_LENGTH);
	/* a header alone is fine */
	KT_EXPECT_EQ(select_list(&lu, false, 0x10, list, 4, &sel, &f),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(select_list(&lu, true, 0x10, list, 8, &sel, &f),
		     KT_SENSE_NONE);
}

static void mode_select_truncated_page_is_parameter_list_length_error(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_mode_select sel;
	struct kt_sense_field f;
	u8 list[64];
	u32 n, cut;

	n = list_from_page(&lu, 0x08, list);
	for (cut = 5; cut < n; cut++) {
		KT_EXPECT_EQ(select_list(&lu, false, 0x10, list, cut, &sel, &f),
			     KT_SENSE_PARAM_LIST_LENGTH);
		KT_EXPECT_EQ(sel.set, 0);
	}
}

static void mode_select_wrong_page_length_is_invalid_param_at_length(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_mode_select sel;
	struct kt_sense_field f;
	u8 list[64];
	u32 n;

	n = list_from_page(&lu, 0x0a, list);
	list[5] = 0x0b;
	KT_EXPECT_EQ(select_list(&lu, false, 0x10, list, n, &sel, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	EXPECT_PARAM(f, 5, -1);
}

static void mode_select_unknown_page_ps_or_spf_is_invalid_param(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_mode_select sel;
	struct kt_sense_field f;
	u8 list[64];
	u32 n;

	n = list_from_page(&lu, 0x0a, list);
	list[4] = 0x1a;					/* power condition */
	KT_EXPECT_EQ(select_list(&lu, false, 0x10, list, n, &sel, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	EXPECT_PARAM(f, 4, 5);
	list[4] = 0x8a;					/* PS */
	KT_EXPECT_EQ(select_list(&lu, false, 0x10, list, n, &sel, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	EXPECT_PARAM(f, 4, 7);
	list[4] = 0x4a;					/* SPF: subpage 0Ah */
	KT_EXPECT_EQ(select_list(&lu, false, 0x10, list, n, &sel, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	EXPECT_PARAM(f, 5, -1);
	list[5] = 0x00;					/* SPF: subpage 00h */
	KT_EXPECT_EQ(select_list(&lu, false, 0x10, list, n, &sel, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	EXPECT_PARAM(f, 4, 6);
}

static void mode_select_header_fields_are_checked(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_mode_select sel;
	struct kt_sense_field f;
	u8 list[64];
	u32 n;

	n = list_from_page(&lu, 0x0a, list);
	list[0] = 0x33;				/* MODE DATA LENGTH: ignored */
	list[2] = 0x90;				/* DEVICE-SPECIFIC: ignored */
	KT_EXPECT_EQ(select_list(&lu, false, 0x10, list, n, &sel, &f),
		     KT_SENSE_NONE);
	list[1] = 0x01;				/* MEDIUM TYPE */
	KT_EXPECT_EQ(select_list(&lu, false, 0x10, list, n, &sel, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	EXPECT_PARAM(f, 1, -1);
	list[1] = 0;
	list[3] = 4;				/* BLOCK DESCRIPTOR LENGTH */
	KT_EXPECT_EQ(select_list(&lu, false, 0x10, list, n, &sel, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	EXPECT_PARAM(f, 3, -1);
}

static void mode_select_block_descriptor_must_match_the_device(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_mode_select sel;
	struct kt_sense_field f;
	struct result r;
	u8 list[64];
	u32 n;

	/* MODE SENSE (6) with a block descriptor, sent straight back */
	sense6(&lu, false, 0, 0x08, 0, 255, &r);
	n = r.data_len;
	memcpy(list, r.data, n);
	list[0] = 0;
	KT_EXPECT_EQ(select_list(&lu, false, 0x10, list, n, &sel, &f),
		     KT_SENSE_NONE);
	/* NUMBER OF LOGICAL BLOCKS 0: keep the capacity */
	put_unaligned_be32(0, &list[4]);
	KT_EXPECT_EQ(select_list(&lu, false, 0x10, list, n, &sel, &f),
		     KT_SENSE_NONE);
	put_unaligned_be32(100, &list[4]);
	KT_EXPECT_EQ(select_list(&lu, false, 0x10, list, n, &sel, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	EXPECT_PARAM(f, 4, -1);
	put_unaligned_be32(0, &list[4]);
	put_unaligned_be24(4096, &list[9]);		/* block length */
	KT_EXPECT_EQ(select_list(&lu, false, 0x10, list, n, &sel, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	EXPECT_PARAM(f, 9, -1);
	/* the descriptor, but not the page it announces */
	KT_EXPECT_EQ(select_list(&lu, false, 0x10, list, 10, &sel, &f),
		     KT_SENSE_PARAM_LIST_LENGTH);
}

static void mode_select10_long_lba_descriptor(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_mode_select sel;
	struct kt_sense_field f;
	struct result r;
	u8 list[128];
	u32 n;

	lu.nr_blocks = 1ULL << 33;
	sense10(&lu, true, false, 0, 0x08, 0, 255, &r);
	n = r.data_len;
	memcpy(list, r.data, n);
	list[0] = 0;
	list[1] = 0;
	KT_EXPECT_EQ(select_list(&lu, true, 0x10, list, n, &sel, &f),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(sel.set, KT_MODE_SET_WCE);
	list[4] = 0;					/* now 16 bytes of short */
	KT_EXPECT_EQ(select_list(&lu, true, 0x10, list, n, &sel, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	EXPECT_PARAM(f, 6, -1);
	list[4] = 0x03;					/* reserved bit */
	KT_EXPECT_EQ(select_list(&lu, true, 0x10, list, n, &sel, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	EXPECT_PARAM(f, 4, 1);
}

static void mode_select_changes_nothing_if_a_later_page_is_bad(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_mode_select sel;
	struct kt_sense_field f;
	u8 list[64], page[64];
	u32 n, m;

	n = list_from_page(&lu, 0x08, list);
	list[4 + 2] = 0;				/* WCE off */
	m = list_from_page(&lu, 0x1c, page);
	page[4 + 3] = 0x06;				/* MRIE */
	memcpy(list + n, page + 4, m - 4);
	KT_EXPECT_EQ(select_list(&lu, false, 0x10, list, n + m - 4, &sel, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	EXPECT_PARAM(f, n + 3, 2);
	KT_EXPECT_EQ(sel.set, 0);
}

static void mode_select_uses_the_shorter_of_list_and_cdb_length(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_mode_select sel;
	struct kt_sense_field f;
	u8 cdb[6] = { 0x15, 0x10, 0, 0, 10, 0 };
	u8 list[64];
	u32 n;

	/* the CDB says 10 bytes: the page is cut short */
	n = list_from_page(&lu, 0x0a, list);
	KT_EXPECT_EQ(kt_spc_mode_select(&lu, cdb, list, n, &sel, &f),
		     KT_SENSE_PARAM_LIST_LENGTH);
	cdb[4] = n;
	KT_EXPECT_EQ(kt_spc_mode_select(&lu, cdb, list, n, &sel, &f),
		     KT_SENSE_NONE);
}

/* Logical Block Provisioning mode page (1Ch/02h) ---------------------------- */

static struct kt_lu_info lbp_lu(void)
{
	struct kt_lu_info lu = test_lu();

	lu.flags |= KT_LU_TPU | KT_LU_LBP_THRESH | KT_LU_LBP_THRESH_ON;
	lu.lbp_thresh_exp = 11;
	lu.lbp_thresh_count = 0x1234;
	return lu;
}

static void mode_sense_lbp_page_absent_without_thresholds(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;

	sense10(&lu, false, true, 0, 0x1c, 0x02, 255, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(r.field.byte, 3);
	sense10(&lu, false, true, 0, 0x1c, 0xff, 255, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 8 + 12);		/* the IEC page only */
}

static void mode_sense_lbp_page_is_a_subpage_with_one_descriptor(void)
{
	struct kt_lu_info lu = lbp_lu();
	struct result r, all0;
	u8 *p;

	sense10(&lu, false, true, 0, 0x1c, 0x02, 255, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 8 + 24);
	p = r.data + 8;
	KT_EXPECT_EQ(p[0], 0x5c);			/* SPF, page 1Ch */
	KT_EXPECT_EQ(p[1], 0x02);
	KT_EXPECT_EQ(get_unaligned_be16(&p[2]), 0x14);
	KT_EXPECT_EQ(p[4], 0);				/* SITUA */
	KT_EXPECT_EQ(p[16], 0x80);			/* ENABLED, soft, decreasing */
	KT_EXPECT_EQ(p[17], 0x01);			/* available resources */
	KT_EXPECT_EQ(get_unaligned_be32(&p[20]), 0x1234);

	/* all pages with subpages end with it; subpage 00h leaves it out */
	sense10(&lu, false, true, 0, 0x3f, 0xff, 255, &r);
	sense10(&lu, false, true, 0, 0x3f, 0x00, 255, &all0);
	KT_EXPECT_EQ(r.data_len, all0.data_len + 24);
	KT_EXPECT_EQ(r.data[r.data_len - 24], 0x5c);

	sense10(&lu, false, true, 1, 0x1c, 0x02, 255, &r);	/* changeable */
	p = r.data + 8;
	KT_EXPECT_EQ(p[4], 0x01);
	KT_EXPECT_EQ(p[16], 0x80);
	KT_EXPECT_EQ(p[17], 0);
	KT_EXPECT_EQ(get_unaligned_be32(&p[20]), 0xffffffff);

	sense10(&lu, false, true, 2, 0x1c, 0x02, 255, &r);	/* default */
	p = r.data + 8;
	KT_EXPECT_EQ(p[16], 0);
	KT_EXPECT_EQ(get_unaligned_be32(&p[20]), 0);
}

/* A MODE SELECT (10) list of the current 1Ch/02h page */
static u32 lbp_list(const struct kt_lu_info *lu, u8 *list)
{
	struct result r;

	sense10(lu, false, true, 0, 0x1c, 0x02, 255, &r);
	memset(list, 0, 8);
	memcpy(list + 8, r.data + 8, 24);
	return 32;
}

static void mode_select_lbp_threshold_sets_enabled_count_and_situa(void)
{
	struct kt_lu_info lu = lbp_lu();
	struct kt_mode_select sel;
	struct kt_sense_field f;
	u8 list[32];
	u32 n;

	n = lbp_list(&lu, list);
	list[8 + 4] = 0x01;
	list[8 + 16] = 0;
	put_unaligned_be32(77, &list[8 + 20]);
	KT_EXPECT_EQ(select_list(&lu, true, 0x10, list, n, &sel, &f),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(sel.set, KT_MODE_SET_LBP);
	KT_EXPECT_EQ(sel.lbp_situa, 1);
	KT_EXPECT_EQ(sel.lbp_on, 0);
	KT_EXPECT_EQ(sel.lbp_count, 77);

	/* the threshold resource and arming are not changeable */
	n = lbp_list(&lu, list);
	list[8 + 17] = 0x02;
	KT_EXPECT_EQ(select_list(&lu, true, 0x10, list, n, &sel, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	EXPECT_PARAM(f, 8 + 17, 1);
	n = lbp_list(&lu, list);
	list[8 + 16] |= 0x01;
	KT_EXPECT_EQ(select_list(&lu, true, 0x10, list, n, &sel, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	EXPECT_PARAM(f, 8 + 16, 0);
	/* its PAGE LENGTH is two bytes at 2 */
	n = lbp_list(&lu, list);
	list[8 + 3] = 0x10;
	KT_EXPECT_EQ(select_list(&lu, true, 0x10, list, n, &sel, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	EXPECT_PARAM(f, 8 + 2, -1);
	/* a short list */
	n = lbp_list(&lu, list);
	KT_EXPECT_EQ(select_list(&lu, true, 0x10, list, n - 4, &sel, &f),
		     KT_SENSE_PARAM_LIST_LENGTH);
	/* subpage 02h of a device without thresholds: the SUBPAGE CODE */
	lu = test_lu();
	KT_EXPECT_EQ(select_list(&lu, true, 0x10, list, n, &sel, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	EXPECT_PARAM(f, 8 + 1, -1);
	/* subpage FFh of a page that has subpages */
	lu = lbp_lu();
	n = lbp_list(&lu, list);
	list[8 + 1] = 0xff;
	KT_EXPECT_EQ(select_list(&lu, true, 0x10, list, n, &sel, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	EXPECT_PARAM(f, 8 + 1, -1);
	lu = test_lu();
	list[8 + 1] = 0x02;
	/* a page code no subpage of which exists: the PAGE CODE */
	list[8] = 0x40 | 0x1a;
	KT_EXPECT_EQ(select_list(&lu, true, 0x10, list, n, &sel, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	EXPECT_PARAM(f, 8, 5);
}


static const struct kt_test tests[] = {
	KT_TEST_ENTRY(mode_sense6_all_pages_has_header_descriptor_and_four_pages),
	KT_TEST_ENTRY(mode_sense6_subpage_ff_returns_the_same_pages),
	KT_TEST_ENTRY(mode_sense_dbd_leaves_out_the_block_descriptor),
	KT_TEST_ENTRY(mode_sense10_llbaa_returns_a_long_lba_descriptor),
	KT_TEST_ENTRY(mode_sense_saved_values_is_saving_not_supported_byte_2_bit_7),
	KT_TEST_ENTRY(mode_sense_unknown_page_is_invalid_field_byte_2),
	KT_TEST_ENTRY(mode_sense_unknown_subpage_is_invalid_field_byte_3),
	KT_TEST_ENTRY(mode_sense_control_page_reports_sane_values),
	KT_TEST_ENTRY(mode_sense_control_page_is_the_same_alone_and_in_all_pages),
	KT_TEST_ENTRY(mode_sense_changeable_values_show_wce_and_swp_only),
	KT_TEST_ENTRY(mode_sense_default_values_have_swp_off),
	KT_TEST_ENTRY(mode_sense_device_specific_parameter_has_wp_and_dpofua),
	KT_TEST_ENTRY(mode_sense_short_allocation_truncates_but_keeps_the_length),
	KT_TEST_ENTRY(mode_select_of_current_pages_changes_nothing),
	KT_TEST_ENTRY(mode_select_sets_swp_like_libiscsi_set_swp),
	KT_TEST_ENTRY(mode_select_clears_wce_when_changeable),
	KT_TEST_ENTRY(mode_select_non_changeable_field_names_byte_and_bit),
	KT_TEST_ENTRY(mode_select_pf_zero_is_invalid_field_byte_1_bit_4),
	KT_TEST_ENTRY(mode_select_sp_is_invalid_field_byte_1_bit_0),
	KT_TEST_ENTRY(mode_select_empty_list_is_good_and_short_header_is_length_error),
	KT_TEST_ENTRY(mode_select_truncated_page_is_parameter_list_length_error),
	KT_TEST_ENTRY(mode_select_wrong_page_length_is_invalid_param_at_length),
	KT_TEST_ENTRY(mode_select_unknown_page_ps_or_spf_is_invalid_param),
	KT_TEST_ENTRY(mode_select_header_fields_are_checked),
	KT_TEST_ENTRY(mode_select_block_descriptor_must_match_the_device),
	KT_TEST_ENTRY(mode_select10_long_lba_descriptor),
	KT_TEST_ENTRY(mode_select_changes_nothing_if_a_later_page_is_bad),
	KT_TEST_ENTRY(mode_select_uses_the_shorter_of_list_and_cdb_length),
	KT_TEST_ENTRY(mode_sense_lbp_page_absent_without_thresholds),
	KT_TEST_ENTRY(mode_sense_lbp_page_is_a_subpage_with_one_descriptor),
	KT_TEST_ENTRY(mode_select_lbp_threshold_sets_enabled_count_and_situa),
};

KT_TEST_MAIN(tests)
