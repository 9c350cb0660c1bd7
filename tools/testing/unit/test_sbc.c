// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of drivers/target/proto/sbc.c: READ CAPACITY, WRITE SAME,
 * UNMAP, GET LBA STATUS and READ DEFECT DATA. Responses go to buffers
 * malloc'ed to the exact allocation length, parameter lists to buffers of
 * their exact length, so that ASan catches overruns.
 */
#include <linux/errno.h>
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
		.max_write_same_len = 1024,
		.block_size = 512,
		.max_unmap_lba_count = 1024,
		.max_unmap_block_desc_count = 4,
		.flags = KT_LU_TPU | KT_LU_TPWS | KT_LU_LBPRZ,
		.proto_id = KT_PROTO_ISCSI,
	};
}

struct result {
	sense_reason_t	ret;
	u32		data_len;
	struct kt_sense_field field;
	u8		data[4096];
};

static void read_capacity(const struct kt_lu_info *lu, const u8 *cdb, u32 len,
			  struct result *r)
{
	u8 *buf = malloc(len ? len : 1);

	memset(r, 0, sizeof(*r));
	r->ret = kt_sbc_read_capacity(lu, cdb, len ? buf : NULL, len,
				      &r->data_len, &r->field);
	memcpy(r->data, buf, len);
	free(buf);
}

static void rc16_cdb(u8 *cdb, u32 alloc)
{
	memset(cdb, 0, 16);
	cdb[0] = 0x9e;
	cdb[1] = 0x10;
	put_unaligned_be32(alloc, &cdb[10]);
}

/* READ CAPACITY ------------------------------------------------------------ */

static void read_capacity10_returns_last_lba_and_block_length(void)
{
	struct kt_lu_info lu = test_lu();
	u8 cdb[10] = { 0x25 };
	struct result r;

	read_capacity(&lu, cdb, 8, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 8);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[0]), 2047);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[4]), 512);

	/* the core's buffer may be shorter than the 8 bytes */
	read_capacity(&lu, cdb, 3, &r);
	KT_EXPECT_EQ(r.data_len, 8);
}

static void read_capacity10_beyond_32_bits_returns_ffffffff(void)
{
	struct kt_lu_info lu = test_lu();
	u8 cdb[10] = { 0x25 };
	struct result r;

	lu.nr_blocks = 0x100000000ULL;			/* last LBA FFFFFFFFh */
	read_capacity(&lu, cdb, 8, &r);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[0]), 0xffffffff);
	lu.nr_blocks = 0xffffffffULL;			/* last LBA FFFFFFFEh */
	read_capacity(&lu, cdb, 8, &r);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[0]), 0xfffffffe);
	lu.nr_blocks = 1ULL << 40;
	read_capacity(&lu, cdb, 8, &r);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[0]), 0xffffffff);
}

static void read_capacity10_lba_without_pmi_is_invalid_field_byte_2(void)
{
	struct kt_lu_info lu = test_lu();
	u8 cdb[10] = { 0x25, 0, 0, 0, 0, 1 };
	struct result r;

	read_capacity(&lu, cdb, 8, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT(r.field.valid && r.field.in_cdb && !r.field.bit_valid);
	KT_EXPECT_EQ(r.field.byte, 2);
	cdb[8] = 0x01;					/* PMI */
	read_capacity(&lu, cdb, 8, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[0]), 2047);
}

/* T10-PI: PROT_EN and P_TYPE (the type less one), P_I_EXPONENT 0 */
static void read_capacity16_reports_protection_type(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[16];

	rc16_cdb(cdb, 32);
	read_capacity(&lu, cdb, 32, &r);
	KT_EXPECT_EQ(r.data[12], 0x00);
	lu.pi_type = 1;
	read_capacity(&lu, cdb, 32, &r);
	KT_EXPECT_EQ(r.data[12], 0x01);
	KT_EXPECT_EQ(r.data[13] >> 4, 0);
	lu.pi_type = 3;
	read_capacity(&lu, cdb, 32, &r);
	KT_EXPECT_EQ(r.data[12], 0x05);
}

static void read_capacity16_reports_provisioning_and_physical_blocks(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[16];

	lu.lbppbe = 3;
	lu.lowest_aligned_lba = 0x4005;			/* 14 bits used */
	rc16_cdb(cdb, 32);
	read_capacity(&lu, cdb, 32, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 32);
	KT_EXPECT_EQ(get_unaligned_be64(&r.data[0]), 2047);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[8]), 512);
	KT_EXPECT_EQ(r.data[12], 0);
	KT_EXPECT_EQ(r.data[13], 3);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[14]), 0xc000 | 0x0005);

	lu.flags &= ~KT_LU_LBPRZ;
	read_capacity(&lu, cdb, 32, &r);
	KT_EXPECT_EQ(r.data[14] & 0xc0, 0x80);
	lu.flags &= ~KT_LU_TPU;
	read_capacity(&lu, cdb, 32, &r);
	KT_EXPECT_EQ(r.data[14] & 0xc0, 0x80);		/* TPWS alone: LBPME */
	lu.flags &= ~KT_LU_TPWS;
	lu.flags |= KT_LU_LBPRZ;
	read_capacity(&lu, cdb, 32, &r);
	KT_EXPECT_EQ(r.data[14] & 0xc0, 0);
}

static void read_capacity16_beyond_32_bits(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[16];

	lu.nr_blocks = 0x123456789abcULL;
	rc16_cdb(cdb, 32);
	read_capacity(&lu, cdb, 32, &r);
	KT_EXPECT_EQ(get_unaligned_be64(&r.data[0]), 0x123456789abbULL);
}

static void read_capacity16_allocation_0_to_32_truncates_exactly(void)
{
	struct kt_lu_info lu = test_lu();
	struct result full, r;
	u32 alloc;
	u8 cdb[16];

	rc16_cdb(cdb, 32);
	read_capacity(&lu, cdb, 32, &full);
	/* libiscsi ReadCapacity16.Alloclen: 0..15 are not an error */
	for (alloc = 0; alloc <= 32; alloc++) {
		rc16_cdb(cdb, alloc);
		read_capacity(&lu, cdb, alloc, &r);
		KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
		KT_EXPECT_EQ(r.data_len, alloc);
		KT_EXPECT(!memcmp(r.data, full.data, alloc));
	}
}

static void read_capacity16_lba_without_pmi_is_invalid_field_byte_2(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[16];

	rc16_cdb(cdb, 32);
	cdb[9] = 1;
	read_capacity(&lu, cdb, 32, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(r.field.byte, 2);
	cdb[14] = 1;
	read_capacity(&lu, cdb, 32, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
}

/* WRITE SAME --------------------------------------------------------------- */

static sense_reason_t ws10(const struct kt_lu_info *lu, u8 b1, u32 lba,
			   u16 nr, struct kt_sbc_ws *ws,
			   struct kt_sense_field *f)
{
	u8 cdb[10] = { 0x41, b1 };

	put_unaligned_be32(lba, &cdb[2]);
	put_unaligned_be16(nr, &cdb[7]);
	return kt_sbc_write_same(lu, cdb, ws, f);
}

static sense_reason_t ws16(const struct kt_lu_info *lu, u8 b1, u64 lba,
			   u32 nr, struct kt_sbc_ws *ws,
			   struct kt_sense_field *f)
{
	u8 cdb[16] = { 0x93, b1 };

	put_unaligned_be64(lba, &cdb[2]);
	put_unaligned_be32(nr, &cdb[10]);
	return kt_sbc_write_same(lu, cdb, ws, f);
}

static void write_same_decodes_lba_blocks_and_flags(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_sense_field f;
	struct kt_sbc_ws ws;

	KT_EXPECT_EQ(ws10(&lu, 0x08, 2047, 1, &ws, &f), KT_SENSE_NONE);
	KT_EXPECT_EQ(ws.lba, 2047);
	KT_EXPECT_EQ(ws.nr_blocks, 1);
	KT_EXPECT_EQ(ws.flags, KT_SBC_WS_UNMAP);
	KT_EXPECT_EQ(ws16(&lu, 0x01, 0, 1024, &ws, &f), KT_SENSE_NONE);
	KT_EXPECT_EQ(ws.nr_blocks, 1024);
	KT_EXPECT_EQ(ws.flags, KT_SBC_WS_NDOB);
	KT_EXPECT_EQ(ws16(&lu, 0x09, 1024, 1024, &ws, &f), KT_SENSE_NONE);
	KT_EXPECT_EQ(ws.flags, KT_SBC_WS_NDOB | KT_SBC_WS_UNMAP);
}

static void write_same_wrprotect_needs_pi_and_a_block(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_sense_field f;
	struct kt_sbc_ws ws;

	/* no PI: WRPROTECT is a field in error, named by its first bit */
	KT_EXPECT_EQ(ws10(&lu, 0x20, 0, 8, &ws, &f),
		     KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT(f.valid && f.in_cdb && f.bit_valid);
	KT_EXPECT_EQ(f.byte, 1);
	KT_EXPECT_EQ(f.bit, 7);
	lu.pi_type = 1;
	KT_EXPECT_EQ(ws10(&lu, 0x20, 0, 8, &ws, &f), KT_SENSE_NONE);
	KT_EXPECT_EQ(ws16(&lu, 0xa0, 100, 8, &ws, &f), KT_SENSE_NONE);
	/* NDOB sends no block, so no tuple either */
	KT_EXPECT_EQ(ws16(&lu, 0x21, 0, 8, &ws, &f),
		     KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(f.bit, 7);
}

static void write_same_zero_blocks_is_invalid_field_wsnz(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_sense_field f;
	struct kt_sbc_ws ws;

	/* libiscsi WriteSame10/16.ZeroBlocks with WSNZ=1 */
	KT_EXPECT_EQ(ws10(&lu, 0, 0, 0, &ws, &f), KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT(f.valid && f.in_cdb && !f.bit_valid);
	KT_EXPECT_EQ(f.byte, 7);
	KT_EXPECT_EQ(ws16(&lu, 0, 0, 0, &ws, &f), KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(f.byte, 10);
	KT_EXPECT_EQ(ws10(&lu, 0x08, 0, 0, &ws, &f),
		     KT_SENSE_INVALID_CDB_FIELD);
}

static void write_same_zero_blocks_past_the_end_is_lba_out_of_range(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_sense_field f;
	struct kt_sbc_ws ws;

	KT_EXPECT_EQ(ws10(&lu, 0, 2049, 0, &ws, &f), KT_SENSE_LBA_OUT_OF_RANGE);
	KT_EXPECT_EQ(ws10(&lu, 0, 0x80000000, 0, &ws, &f),
		     KT_SENSE_LBA_OUT_OF_RANGE);
	KT_EXPECT_EQ(ws10(&lu, 0, 0xffffffff, 0, &ws, &f),
		     KT_SENSE_LBA_OUT_OF_RANGE);
	KT_EXPECT_EQ(ws16(&lu, 0, 2049, 0, &ws, &f), KT_SENSE_LBA_OUT_OF_RANGE);
	KT_EXPECT_EQ(ws16(&lu, 0, 1ULL << 63, 0, &ws, &f),
		     KT_SENSE_LBA_OUT_OF_RANGE);
	KT_EXPECT_EQ(ws16(&lu, 0, ~0ULL, 0, &ws, &f),
		     KT_SENSE_LBA_OUT_OF_RANGE);
}

static void write_same_beyond_the_end_is_lba_out_of_range_overflow_safe(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_sense_field f;
	struct kt_sbc_ws ws;

	KT_EXPECT_EQ(ws10(&lu, 0, 2047, 2, &ws, &f), KT_SENSE_LBA_OUT_OF_RANGE);
	KT_EXPECT_EQ(ws16(&lu, 0, ~0ULL, 2, &ws, &f),
		     KT_SENSE_LBA_OUT_OF_RANGE);
	KT_EXPECT_EQ(ws16(&lu, 0, 2048 - 256, 256, &ws, &f), KT_SENSE_NONE);
}

static void write_same_over_maximum_length_is_invalid_field(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_sense_field f;
	struct kt_sbc_ws ws;

	KT_EXPECT_EQ(ws16(&lu, 0, 0, 1025, &ws, &f),
		     KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(f.byte, 10);
	KT_EXPECT_EQ(ws10(&lu, 0x08, 0, 1025, &ws, &f),
		     KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(f.byte, 7);
	lu.max_write_same_len = 0;			/* no limit */
	KT_EXPECT_EQ(ws16(&lu, 0, 0, 2048, &ws, &f), KT_SENSE_NONE);
}

static void write_same_flag_bits_name_byte_1_and_their_bit(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_sense_field f;
	struct kt_sbc_ws ws;

	/* libiscsi WriteSame10.Unmap: ANCHOR without ANC_SUP */
	KT_EXPECT_EQ(ws10(&lu, 0x10, 0, 1, &ws, &f),
		     KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(f.byte, 1);
	KT_EXPECT_EQ(f.bit, 4);
	KT_EXPECT_EQ(ws10(&lu, 0x18, 0, 1, &ws, &f),
		     KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(f.bit, 4);
	KT_EXPECT_EQ(ws16(&lu, 0x20, 0, 1, &ws, &f),	/* WRPROTECT */
		     KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(f.bit, 7);
	KT_EXPECT_EQ(ws16(&lu, 0x02, 0, 1, &ws, &f),	/* LBDATA */
		     KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(f.bit, 1);
	KT_EXPECT_EQ(ws10(&lu, 0x01, 0, 1, &ws, &f),	/* no NDOB in (10) */
		     KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(f.bit, 0);

	lu.flags &= ~KT_LU_TPWS;
	KT_EXPECT_EQ(ws16(&lu, 0x08, 0, 1, &ws, &f),
		     KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(f.bit, 3);
	KT_EXPECT_EQ(ws16(&lu, 0x00, 0, 1, &ws, &f), KT_SENSE_NONE);
}

/* UNMAP -------------------------------------------------------------------- */

struct unmap_desc {
	u64 lba;
	u32 nr;
};

static u32 unmap_list(u8 *p, const struct unmap_desc *d, u32 n)
{
	u32 i, len = 8 + 16 * n;

	memset(p, 0, len);
	put_unaligned_be16(len - 2, &p[0]);
	put_unaligned_be16(16 * n, &p[2]);
	for (i = 0; i < n; i++) {
		put_unaligned_be64(d[i].lba, &p[8 + 16 * i]);
		put_unaligned_be32(d[i].nr, &p[8 + 16 * i + 8]);
	}
	return len;
}

static sense_reason_t unmap_check(const struct kt_lu_info *lu, const u8 *list,
				  u32 len, u32 *nr, struct kt_sense_field *f)
{
	u8 *p = malloc(len ? len : 1);
	sense_reason_t ret;

	if (len)
		memcpy(p, list, len);
	ret = kt_sbc_unmap_check(lu, len ? p : NULL, len, nr, f);
	free(p);
	return ret;
}

static void unmap_empty_list_and_header_only_are_good(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_sense_field f;
	u8 list[8];
	u32 nr, len;

	KT_EXPECT_EQ(unmap_check(&lu, NULL, 0, &nr, &f), KT_SENSE_NONE);
	KT_EXPECT_EQ(nr, 0);
	len = unmap_list(list, NULL, 0);
	KT_EXPECT_EQ(unmap_check(&lu, list, len, &nr, &f), KT_SENSE_NONE);
	KT_EXPECT_EQ(nr, 0);
}

static void unmap_partial_header_is_parameter_list_length_error(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_sense_field f;
	u8 list[8] = { 0 };
	u32 nr, len;

	for (len = 1; len < 8; len++)
		KT_EXPECT_EQ(unmap_check(&lu, list, len, &nr, &f),
			     KT_SENSE_PARAM_LIST_LENGTH);
}

static void unmap_descriptors_are_checked_and_decoded(void)
{
	static const struct unmap_desc d[] = {
		{ 0, 1 }, { 100, 0 }, { 2048, 0 }, { 2000, 48 },
	};
	struct kt_lu_info lu = test_lu();
	struct kt_sense_field f;
	u8 list[8 + 16 * 4];
	u32 nr, len, i, n;
	u64 lba;

	/* libiscsi Unmap.ZeroBlocks: 0 blocks, even at the end, is fine */
	len = unmap_list(list, d, 4);
	KT_EXPECT_EQ(unmap_check(&lu, list, len, &nr, &f), KT_SENSE_NONE);
	KT_EXPECT_EQ(nr, 4);
	for (i = 0; i < nr; i++) {
		kt_sbc_unmap_desc(list, i, &lba, &n);
		KT_EXPECT_EQ(lba, d[i].lba);
		KT_EXPECT_EQ(n, d[i].nr);
	}
}

static void unmap_partial_descriptor_is_ignored(void)
{
	static const struct unmap_desc d[] = { { 0, 1 }, { 8, 8 } };
	struct kt_lu_info lu = test_lu();
	struct kt_sense_field f;
	u8 list[8 + 32];
	u32 nr, len;

	len = unmap_list(list, d, 2);
	KT_EXPECT_EQ(unmap_check(&lu, list, len - 1, &nr, &f), KT_SENSE_NONE);
	KT_EXPECT_EQ(nr, 1);
	/* a descriptor data length past the list is clamped to it */
	put_unaligned_be16(0xfff0, &list[2]);
	KT_EXPECT_EQ(unmap_check(&lu, list, len, &nr, &f), KT_SENSE_NONE);
	KT_EXPECT_EQ(nr, 2);
	/* and one shorter than the list wins */
	put_unaligned_be16(16, &list[2]);
	KT_EXPECT_EQ(unmap_check(&lu, list, len, &nr, &f), KT_SENSE_NONE);
	KT_EXPECT_EQ(nr, 1);
}

static void unmap_too_many_descriptors_is_invalid_param_byte_2(void)
{
	struct unmap_desc d[5] = { { 0, 1 }, { 1, 1 }, { 2, 1 }, { 3, 1 },
				   { 4, 1 } };
	struct kt_lu_info lu = test_lu();
	struct kt_sense_field f;
	u8 list[8 + 16 * 5];
	u32 nr, len;

	len = unmap_list(list, d, 5);
	KT_EXPECT_EQ(unmap_check(&lu, list, len, &nr, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	KT_EXPECT(f.valid && !f.in_cdb);
	KT_EXPECT_EQ(f.byte, 2);
	KT_EXPECT_EQ(nr, 0);
	lu.max_unmap_block_desc_count = 0xffffffff;
	KT_EXPECT_EQ(unmap_check(&lu, list, len, &nr, &f), KT_SENSE_NONE);
}

static void unmap_over_maximum_lba_count_names_the_descriptor(void)
{
	static const struct unmap_desc d[] = { { 0, 1000 }, { 1000, 25 } };
	struct kt_lu_info lu = test_lu();
	struct kt_sense_field f;
	u8 list[8 + 32];
	u32 nr, len;

	len = unmap_list(list, d, 2);
	KT_EXPECT_EQ(unmap_check(&lu, list, len, &nr, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	KT_EXPECT_EQ(f.byte, 8 + 16 + 8);
	lu.max_unmap_lba_count = 0xffffffff;
	KT_EXPECT_EQ(unmap_check(&lu, list, len, &nr, &f), KT_SENSE_NONE);
}

static void unmap_range_past_the_end_is_lba_out_of_range(void)
{
	static const struct unmap_desc past[] = { { 2047, 2 } };
	static const struct unmap_desc wrap[] = { { ~0ULL, 2 } };
	static const struct unmap_desc start[] = { { 2049, 0 } };
	struct kt_lu_info lu = test_lu();
	struct kt_sense_field f;
	u8 list[8 + 16];
	u32 nr, len;

	len = unmap_list(list, past, 1);
	KT_EXPECT_EQ(unmap_check(&lu, list, len, &nr, &f),
		     KT_SENSE_LBA_OUT_OF_RANGE);
	len = unmap_list(list, wrap, 1);
	KT_EXPECT_EQ(unmap_check(&lu, list, len, &nr, &f),
		     KT_SENSE_LBA_OUT_OF_RANGE);
	len = unmap_list(list, start, 1);
	KT_EXPECT_EQ(unmap_check(&lu, list, len, &nr, &f),
		     KT_SENSE_LBA_OUT_OF_RANGE);
}

/* GET LBA STATUS ----------------------------------------------------------- */

static void glbas_cdb(u8 *cdb, u64 lba, u32 alloc)
{
	memset(cdb, 0, 16);
	cdb[0] = 0x9e;
	cdb[1] = 0x12;
	put_unaligned_be64(lba, &cdb[2]);
	put_unaligned_be32(alloc, &cdb[10]);
}

static void get_lba_status(const struct kt_lu_info *lu, const u8 *cdb,
			   kt_sbc_lba_status_fn fn, void *priv, u32 len,
			   struct result *r)
{
	u8 *buf = malloc(len ? len : 1);

	memset(r, 0, sizeof(*r));
	r->ret = kt_sbc_get_lba_status(lu, cdb, fn, priv, len ? buf : NULL,
				       len, &r->data_len, &r->field);
	memcpy(r->data, buf, len < sizeof(r->data) ? len : sizeof(r->data));
	free(buf);
}

static void get_lba_status_without_callback_maps_everything(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[16];

	/* libiscsi GetLBAStatus.Simple: from the start and near the end */
	glbas_cdb(cdb, 7, 24);
	get_lba_status(&lu, cdb, NULL, NULL, 24, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 24);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[0]), 20);
	KT_EXPECT_EQ(get_unaligned_be64(&r.data[8]), 7);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[16]), 2048 - 7);
	KT_EXPECT_EQ(r.data[20], KT_SBC_LBA_MAPPED);

	glbas_cdb(cdb, 2047, 24);
	get_lba_status(&lu, cdb, NULL, NULL, 24, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[16]), 1);
}

static void get_lba_status_past_the_end_is_lba_out_of_range(void)
{
	static const u64 lbas[] = { 2048, 2049, 1ULL << 63, ~0ULL };
	struct kt_lu_info lu = test_lu();
	struct result r;
	unsigned int i;
	u8 cdb[16];

	for (i = 0; i < 4; i++) {
		glbas_cdb(cdb, lbas[i], 24);
		get_lba_status(&lu, cdb, NULL, NULL, 24, &r);
		KT_EXPECT_EQ(r.ret, KT_SENSE_LBA_OUT_OF_RANGE);
	}
}

static void get_lba_status_splits_a_huge_device_into_descriptors(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[16];

	lu.nr_blocks = 0x180000000ULL;
	glbas_cdb(cdb, 0, 40);
	get_lba_status(&lu, cdb, NULL, NULL, 40, &r);
	KT_EXPECT_EQ(r.data_len, 40);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[16]), 0xffffffff);
	KT_EXPECT_EQ(get_unaligned_be64(&r.data[24]), 0xffffffffULL);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[32]), 0x80000001);
}

/* Extents of 10 blocks, every other one deallocated */
static int striped(void *priv, u64 lba, u64 max, u64 *nr, u8 *status)
{
	unsigned int *calls = priv;

	(*calls)++;
	*nr = 10 - lba % 10;
	if (*nr > max)
		*nr = max;
	*status = (lba / 10) % 2 ? KT_SBC_LBA_DEALLOCATED : KT_SBC_LBA_MAPPED;
	return 0;
}

static void get_lba_status_callback_describes_extents(void)
{
	struct kt_lu_info lu = test_lu();
	unsigned int calls = 0;
	struct result r;
	u8 cdb[16];

	glbas_cdb(cdb, 5, 8 + 3 * 16);
	get_lba_status(&lu, cdb, striped, &calls, 8 + 3 * 16, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(calls, 3);
	KT_EXPECT_EQ(r.data_len, 8 + 3 * 16);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[0]), 4 + 3 * 16);
	KT_EXPECT_EQ(get_unaligned_be64(&r.data[8]), 5);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[16]), 5);
	KT_EXPECT_EQ(r.data[20], KT_SBC_LBA_MAPPED);
	KT_EXPECT_EQ(get_unaligned_be64(&r.data[24]), 10);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[32]), 10);
	KT_EXPECT_EQ(r.data[36], KT_SBC_LBA_DEALLOCATED);
	KT_EXPECT_EQ(get_unaligned_be64(&r.data[40]), 20);

	/* at the end of the device the last extent is cut short */
	calls = 0;
	glbas_cdb(cdb, 2045, 4096);
	get_lba_status(&lu, cdb, striped, &calls, 4096, &r);
	KT_EXPECT_EQ(calls, 1);
	KT_EXPECT_EQ(r.data_len, 24);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[16]), 3);
}

static void get_lba_status_short_allocation_still_gives_one_descriptor(void)
{
	struct kt_lu_info lu = test_lu();
	unsigned int calls = 0;
	struct result r;
	u32 alloc;
	u8 cdb[16];

	for (alloc = 0; alloc < 24; alloc++) {
		calls = 0;
		glbas_cdb(cdb, 0, alloc);
		get_lba_status(&lu, cdb, striped, &calls, alloc, &r);
		KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
		KT_EXPECT_EQ(calls, 1);
		KT_EXPECT_EQ(r.data_len, alloc);
		KT_EXPECT(alloc < 4 || get_unaligned_be32(&r.data[0]) == 20);
	}
}

static int failing(void *priv, u64 lba, u64 max, u64 *nr, u8 *status)
{
	return -5;
}

static int too_long(void *priv, u64 lba, u64 max, u64 *nr, u8 *status)
{
	*nr = max + 1;
	*status = 0;
	return 0;
}

static void get_lba_status_callback_errors_fail_the_command(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[16];

	glbas_cdb(cdb, 0, 64);
	get_lba_status(&lu, cdb, failing, NULL, 64, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_LU_COMM_FAILURE);
	get_lba_status(&lu, cdb, too_long, NULL, 64, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_LU_COMM_FAILURE);
}

/* READ DEFECT DATA --------------------------------------------------------- */

static void read_defect_data_returns_empty_lists(void)
{
	u8 cdb10[10] = { 0x37, 0, 0x1d, 0, 0, 0, 0, 0, 64 };
	u8 cdb12[12] = { 0xb7, 0x0c };
	struct kt_sense_field f;
	u8 *buf = malloc(64);
	u32 len;

	KT_EXPECT_EQ(kt_sbc_read_defect_data(cdb10, buf, 64, &len, &f),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(len, 4);
	KT_EXPECT_EQ(buf[1], 0x1d);
	KT_EXPECT_EQ(get_unaligned_be16(&buf[2]), 0);

	put_unaligned_be32(64, &cdb12[6]);
	KT_EXPECT_EQ(kt_sbc_read_defect_data(cdb12, buf, 64, &len, &f),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(len, 8);
	KT_EXPECT_EQ(buf[1], 0x0c);
	KT_EXPECT_EQ(get_unaligned_be32(&buf[4]), 0);

	cdb10[8] = 2;
	KT_EXPECT_EQ(kt_sbc_read_defect_data(cdb10, buf, 2, &len, &f),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(len, 2);
	free(buf);
}

/* FORMAT UNIT ------------------------------------------------------------- */

static void format_cdb_fmtdata_and_longlist_choose_the_header(void)
{
	u8 cdb[6] = { 0x04 };
	struct kt_sbc_format f;

	kt_sbc_format_cdb(cdb, &f);
	KT_EXPECT_EQ(f.param_len, 0);
	KT_EXPECT_EQ(f.fmtpinfo, 0);
	/* sg_format --fmtpinfo=2: FMTPINFO 10b, FMTDATA, CMPLST */
	cdb[1] = 0x98;
	kt_sbc_format_cdb(cdb, &f);
	KT_EXPECT_EQ(f.param_len, KT_SBC_FORMAT_SHORT_HDR);
	KT_EXPECT_EQ(f.fmtpinfo, 2);
	cdb[1] = 0xf0;				/* LONGLIST */
	kt_sbc_format_cdb(cdb, &f);
	KT_EXPECT_EQ(f.param_len, KT_SBC_FORMAT_LONG_HDR);
	KT_EXPECT_EQ(f.fmtpinfo, 3);
	cdb[1] = 0x27;				/* LONGLIST without FMTDATA */
	kt_sbc_format_cdb(cdb, &f);
	KT_EXPECT_EQ(f.param_len, 0);
}

static sense_reason_t format_hdr(const u8 *hdr, u8 param_len, u32 len,
				 struct kt_sbc_format *f,
				 struct kt_sense_field *field)
{
	u8 *buf = malloc(len ? len : 1);
	sense_reason_t ret;

	memcpy(buf, hdr, len);
	*f = (struct kt_sbc_format){ .param_len = param_len };
	ret = kt_sbc_format_param(buf, len, f, field);
	free(buf);
	return ret;
}

static void format_header_takes_no_defect_list_or_pattern(void)
{
	u8 shrt[4] = { 0x01, 0x02, 0, 0 };	/* PFU 001b, IMMED */
	u8 lng[8] = { 0, 0xa0, 0, 0, 0, 0, 0, 0 };	/* FOV, DCRT */
	struct kt_sbc_format f;
	struct kt_sense_field fl;

	KT_EXPECT_EQ(format_hdr(shrt, 4, 4, &f, &fl), KT_SENSE_NONE);
	KT_EXPECT_EQ(f.pfu, 1);
	KT_EXPECT(f.immed);
	KT_EXPECT_EQ(format_hdr(lng, 8, 8, &f, &fl), KT_SENSE_NONE);
	KT_EXPECT(!f.immed);
	/* shorter than the header */
	KT_EXPECT_EQ(format_hdr(shrt, 4, 3, &f, &fl), KT_SENSE_PARAM_LIST_LENGTH);
	KT_EXPECT_EQ(format_hdr(lng, 8, 4, &f, &fl), KT_SENSE_PARAM_LIST_LENGTH);
	/* a defect list */
	shrt[3] = 8;
	KT_EXPECT_EQ(format_hdr(shrt, 4, 4, &f, &fl), KT_SENSE_INVALID_PARAM_FIELD);
	KT_EXPECT(fl.valid && !fl.in_cdb && fl.byte == 2);
	shrt[3] = 0;
	lng[7] = 4;
	KT_EXPECT_EQ(format_hdr(lng, 8, 8, &f, &fl), KT_SENSE_INVALID_PARAM_FIELD);
	KT_EXPECT_EQ(fl.byte, 4);
	lng[7] = 0;
	/* IP, with FOV or without */
	shrt[1] = 0x88;
	KT_EXPECT_EQ(format_hdr(shrt, 4, 4, &f, &fl), KT_SENSE_INVALID_PARAM_FIELD);
	KT_EXPECT(fl.byte == 1 && fl.bit == 3);
	/* FOV 0 with DCRT */
	shrt[1] = 0x20;
	KT_EXPECT_EQ(format_hdr(shrt, 4, 4, &f, &fl), KT_SENSE_INVALID_PARAM_FIELD);
	shrt[1] = 0;
	/* reserved bits of byte 0; a protection interval exponent */
	shrt[0] = 0x08;
	KT_EXPECT_EQ(format_hdr(shrt, 4, 4, &f, &fl), KT_SENSE_INVALID_PARAM_FIELD);
	KT_EXPECT_EQ(fl.byte, 0);
	lng[3] = 0x01;
	KT_EXPECT_EQ(format_hdr(lng, 8, 8, &f, &fl), KT_SENSE_INVALID_PARAM_FIELD);
	KT_EXPECT_EQ(fl.byte, 3);
}

/* SBC-4 5.3.2's table: FMTPINFO and PROTECTION FIELD USAGE */
static void format_pi_type_follows_the_sbc4_table(void)
{
	static const struct {
		u8 fmtpinfo, pfu;
		int type;
		bool in_cdb;
	} t[] = {
		{ 0, 0, 0, false }, { 0, 1, -EINVAL, false },
		{ 1, 0, -EINVAL, true }, { 1, 1, -EINVAL, true },
		{ 2, 0, 1, false }, { 2, 1, -EINVAL, false },
		{ 3, 0, 2, false }, { 3, 1, 3, false },
		{ 3, 2, -EINVAL, false }, { 3, 3, -EINVAL, false },
		{ 3, 7, -EINVAL, false },
	};
	struct kt_sense_field fl;
	struct kt_sbc_format f;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		f = (struct kt_sbc_format){ .fmtpinfo = t[i].fmtpinfo,
					    .pfu = t[i].pfu };
		KT_EXPECT_EQ(kt_sbc_format_pi_type(&f, &fl), t[i].type);
		if (t[i].type < 0)
			KT_EXPECT(fl.valid && fl.in_cdb == t[i].in_cdb);
	}
}

/* SANITIZE ---------------------------------------------------------------- */

static void sanitize_cdb(u8 *cdb, u8 byte1, u16 param_len)
{
	memset(cdb, 0, 10);
	cdb[0] = 0x48;
	cdb[1] = byte1;
	put_unaligned_be16(param_len, &cdb[7]);
}

static void sanitize_cdb_parameter_length_suits_the_service_action(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_sbc_sanitize s;
	struct kt_sense_field f;
	u8 cdb[10];
	u16 len;

	/* OVERWRITE: a 4-byte header and 1 to 512 bytes of pattern */
	for (len = 0; len < 600; len++) {
		sanitize_cdb(cdb, 0x21, len);
		if (len >= 5 && len <= 516) {
			KT_EXPECT_EQ(kt_sbc_sanitize_cdb(&lu, cdb, &s, &f),
				     KT_SENSE_NONE);
			KT_EXPECT_EQ(s.sa, 1);
			KT_EXPECT(s.ause);
			KT_EXPECT_EQ(s.param_len, len);
		} else {
			KT_EXPECT_EQ(kt_sbc_sanitize_cdb(&lu, cdb, &s, &f),
				     KT_SENSE_INVALID_CDB_FIELD);
			KT_EXPECT(f.valid && f.in_cdb && f.byte == 7);
		}
	}
	/* BLOCK ERASE and EXIT FAILURE MODE take no list */
	sanitize_cdb(cdb, 0x02, 0);
	KT_EXPECT_EQ(kt_sbc_sanitize_cdb(&lu, cdb, &s, &f), KT_SENSE_NONE);
	KT_EXPECT(!s.ause);
	sanitize_cdb(cdb, 0x02, 8);
	KT_EXPECT_EQ(kt_sbc_sanitize_cdb(&lu, cdb, &s, &f),
		     KT_SENSE_INVALID_CDB_FIELD);
	sanitize_cdb(cdb, 0x1f, 8);
	KT_EXPECT_EQ(kt_sbc_sanitize_cdb(&lu, cdb, &s, &f),
		     KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(f.byte, 7);
}

static sense_reason_t overwrite(const struct kt_lu_info *lu, const u8 *list,
				u32 len, struct kt_sbc_sanitize *s,
				struct kt_sense_field *f)
{
	u8 *buf = malloc(len ? len : 1);
	sense_reason_t ret;

	memcpy(buf, list, len);
	memset(s, 0, sizeof(*s));
	ret = kt_sbc_sanitize_overwrite(lu, buf, len, s, f);
	free(buf);
	return ret;
}

static void sanitize_overwrite_list_is_decoded_and_checked(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_sbc_sanitize s;
	struct kt_sense_field f;
	u8 list[4 + 513] = { 0x83, 0, 0, 4, 0xaa, 0xbb, 0xcc, 0xdd };

	KT_EXPECT_EQ(overwrite(&lu, list, 8, &s, &f), KT_SENSE_NONE);
	KT_EXPECT(s.invert);
	KT_EXPECT_EQ(s.passes, 3);
	KT_EXPECT_EQ(s.pattern_len, 4);

	/* OVERWRITE COUNT 0 is reserved */
	list[0] = 0x00;
	KT_EXPECT_EQ(overwrite(&lu, list, 8, &s, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	KT_EXPECT(f.valid && !f.in_cdb && f.byte == 0 && f.bit == 4);
	/* TEST is refused */
	list[0] = 0x21;
	KT_EXPECT_EQ(overwrite(&lu, list, 8, &s, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	KT_EXPECT(f.byte == 0 && f.bit == 6);
	list[0] = 0x01;
	list[1] = 0x01;
	KT_EXPECT_EQ(overwrite(&lu, list, 8, &s, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	KT_EXPECT_EQ(f.byte, 1);
	list[1] = 0;

	/* the pattern length must be 1..block size and fill the list */
	put_unaligned_be16(0, &list[2]);
	KT_EXPECT_EQ(overwrite(&lu, list, 8, &s, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	KT_EXPECT_EQ(f.byte, 2);
	put_unaligned_be16(5, &list[2]);
	KT_EXPECT_EQ(overwrite(&lu, list, 8, &s, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	put_unaligned_be16(513, &list[2]);
	KT_EXPECT_EQ(overwrite(&lu, list, 517, &s, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	put_unaligned_be16(512, &list[2]);
	KT_EXPECT_EQ(overwrite(&lu, list, 516, &s, &f), KT_SENSE_NONE);
	KT_EXPECT_EQ(s.pattern_len, 512);
	KT_EXPECT_EQ(overwrite(&lu, list, 4, &s, &f),
		     KT_SENSE_PARAM_LIST_LENGTH);
}

/* WRITE ATOMIC (16) ---------------------------------------------------------- */

static sense_reason_t write_atomic(const struct kt_lu_info *lu, u64 lba,
				   u16 boundary, u16 nr,
				   struct kt_sense_field *f)
{
	u8 *cdb = malloc(16);
	sense_reason_t ret;

	memset(cdb, 0, 16);
	cdb[0] = 0x9c;
	put_unaligned_be64(lba, &cdb[2]);
	put_unaligned_be16(boundary, &cdb[10]);
	put_unaligned_be16(nr, &cdb[12]);
	ret = kt_sbc_write_atomic(lu, cdb, f);
	free(cdb);
	return ret;
}

static void write_atomic_within_the_limits_is_good(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_sense_field f;

	lu.hw_max_sectors = 1024;
	lu.atomic_max_len = 64;
	lu.atomic_alignment = 8;
	lu.atomic_granularity = 8;
	KT_EXPECT_EQ(kt_sbc_atomic_max(&lu), 64);
	KT_EXPECT_EQ(write_atomic(&lu, 0, 0, 64, &f), KT_SENSE_NONE);
	KT_EXPECT_EQ(write_atomic(&lu, 16, 0, 8, &f), KT_SENSE_NONE);
	/* no data, nothing to keep whole: as WRITE (16) of 0 blocks */
	KT_EXPECT_EQ(write_atomic(&lu, 8, 0, 0, &f), KT_SENSE_NONE);
	/* an LBA past the end is the caller's range check, not this one */
	KT_EXPECT_EQ(write_atomic(&lu, ~0ULL & ~7ULL, 0, 8, &f), KT_SENSE_NONE);
}

static void write_atomic_off_the_limits_names_the_field(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_sense_field f;

	lu.hw_max_sectors = 32;			/* below atomic_max_len */
	lu.atomic_max_len = 64;
	lu.atomic_alignment = 8;
	lu.atomic_granularity = 4;
	KT_EXPECT_EQ(kt_sbc_atomic_max(&lu), 32);
	/* over the maximum (within MAXIMUM TRANSFER LENGTH) */
	KT_EXPECT_EQ(write_atomic(&lu, 0, 0, 36, &f), KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT(f.valid && f.in_cdb && f.byte == 12);
	/* off the granularity */
	KT_EXPECT_EQ(write_atomic(&lu, 0, 0, 6, &f), KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(f.byte, 12);
	/* off the alignment */
	KT_EXPECT_EQ(write_atomic(&lu, 4, 0, 8, &f), KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(f.byte, 2);
	/* a boundary where none is offered */
	KT_EXPECT_EQ(write_atomic(&lu, 0, 4, 8, &f), KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(f.byte, 10);
	/* with boundaries offered: their own maximum and granularity */
	lu.atomic_max_with_boundary = 16;
	lu.atomic_max_boundary = 8;
	KT_EXPECT_EQ(write_atomic(&lu, 0, 8, 16, &f), KT_SENSE_NONE);
	KT_EXPECT_EQ(write_atomic(&lu, 0, 8, 20, &f), KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(f.byte, 12);
	KT_EXPECT_EQ(write_atomic(&lu, 0, 12, 16, &f), KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(f.byte, 10);
	KT_EXPECT_EQ(write_atomic(&lu, 0, 6, 16, &f), KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(f.byte, 10);
	/* none offered at all: every length is over the maximum */
	lu.atomic_max_len = 0;
	KT_EXPECT_EQ(write_atomic(&lu, 0, 0, 8, &f), KT_SENSE_INVALID_CDB_FIELD);
}

static const struct kt_test tests[] = {
	KT_TEST_ENTRY(read_capacity10_returns_last_lba_and_block_length),
	KT_TEST_ENTRY(read_capacity10_beyond_32_bits_returns_ffffffff),
	KT_TEST_ENTRY(read_capacity10_lba_without_pmi_is_invalid_field_byte_2),
	KT_TEST_ENTRY(read_capacity16_reports_protection_type),
	KT_TEST_ENTRY(read_capacity16_reports_provisioning_and_physical_blocks),
	KT_TEST_ENTRY(read_capacity16_beyond_32_bits),
	KT_TEST_ENTRY(read_capacity16_allocation_0_to_32_truncates_exactly),
	KT_TEST_ENTRY(read_capacity16_lba_without_pmi_is_invalid_field_byte_2),
	KT_TEST_ENTRY(write_same_decodes_lba_blocks_and_flags),
	KT_TEST_ENTRY(write_same_wrprotect_needs_pi_and_a_block),
	KT_TEST_ENTRY(write_same_zero_blocks_is_invalid_field_wsnz),
	KT_TEST_ENTRY(write_same_zero_blocks_past_the_end_is_lba_out_of_range),
	KT_TEST_ENTRY(write_same_beyond_the_end_is_lba_out_of_range_overflow_safe),
	KT_TEST_ENTRY(write_same_over_maximum_length_is_invalid_field),
	KT_TEST_ENTRY(write_same_flag_bits_name_byte_1_and_their_bit),
	KT_TEST_ENTRY(unmap_empty_list_and_header_only_are_good),
	KT_TEST_ENTRY(unmap_partial_header_is_parameter_list_length_error),
	KT_TEST_ENTRY(unmap_descriptors_are_checked_and_decoded),
	KT_TEST_ENTRY(unmap_partial_descriptor_is_ignored),
	KT_TEST_ENTRY(unmap_too_many_descriptors_is_invalid_param_byte_2),
	KT_TEST_ENTRY(unmap_over_maximum_lba_count_names_the_descriptor),
	KT_TEST_ENTRY(unmap_range_past_the_end_is_lba_out_of_range),
	KT_TEST_ENTRY(get_lba_status_without_callback_maps_everything),
	KT_TEST_ENTRY(get_lba_status_past_the_end_is_lba_out_of_range),
	KT_TEST_ENTRY(get_lba_status_splits_a_huge_device_into_descriptors),
	KT_TEST_ENTRY(get_lba_status_callback_describes_extents),
	KT_TEST_ENTRY(get_lba_status_short_allocation_still_gives_one_descriptor),
	KT_TEST_ENTRY(get_lba_status_callback_errors_fail_the_command),
	KT_TEST_ENTRY(read_defect_data_returns_empty_lists),
	KT_TEST_ENTRY(format_cdb_fmtdata_and_longlist_choose_the_header),
	KT_TEST_ENTRY(format_header_takes_no_defect_list_or_pattern),
	KT_TEST_ENTRY(format_pi_type_follows_the_sbc4_table),
	KT_TEST_ENTRY(sanitize_cdb_parameter_length_suits_the_service_action),
	KT_TEST_ENTRY(sanitize_overwrite_list_is_decoded_and_checked),
	KT_TEST_ENTRY(write_atomic_within_the_limits_is_good),
	KT_TEST_ENTRY(write_atomic_off_the_limits_names_the_field),
};

KT_TEST_MAIN(tests)
