// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of drivers/target/proto/rod.c: POPULATE TOKEN and WRITE USING
 * TOKEN parameter lists, the ROD token layout, RECEIVE ROD TOKEN
 * INFORMATION.
 */
#include "kt_test.h"

#include <errno.h>

#include <ktarget/proto/rod.h>

static const struct kt_rod_geom geom = { .nr_blocks = 1 << 20, .block_size = 512 };

static void put_be16(u8 *p, unsigned int v) { p[0] = v >> 8; p[1] = v; }
static void put_be32(u8 *p, u32 v) { put_be16(p, v >> 16); put_be16(p + 2, v); }
static void put_be64(u8 *p, u64 v) { put_be32(p, v >> 32); put_be32(p + 4, v); }
static u32 get_be32(const u8 *p) { return (u32)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }

/* A POPULATE TOKEN list of @n ranges: range i at lba 100 * i, @blocks each */
static size_t pt_list(u8 *b, unsigned int n, u32 blocks)
{
	size_t len = KT_ROD_PT_HDR_LEN + n * KT_ROD_RANGE_LEN;
	unsigned int i;

	memset(b, 0, len);
	put_be16(b, len - 2);
	put_be16(b + 14, n * KT_ROD_RANGE_LEN);
	for (i = 0; i < n; i++) {
		put_be64(b + 16 + i * 16, 100 * i);
		put_be32(b + 16 + i * 16 + 8, blocks);
	}
	return len;
}

static void expect_err(const struct kt_xcopy_err *err, u16 asc, int field)
{
	KT_EXPECT_EQ(err->key, KT_XCOPY_KEY_ILLEGAL_REQUEST);
	KT_EXPECT_EQ(err->asc << 8 | err->ascq, asc);
	if (field >= 0) {
		KT_EXPECT(err->flags & KT_XCOPY_ERR_SKSV);
		KT_EXPECT_EQ(err->field, field);
	}
}

static void test_pt_ok(void)
{
	static u8 b[2048];
	static struct kt_rod_pt pt;
	struct kt_xcopy_err err;
	size_t len = pt_list(b, 3, 8);

	put_be32(b + 16 + 16 + 8, 0);		/* an empty range is dropped */
	b[2] = KT_ROD_IMMED;
	put_be32(b + 4, 30);
	KT_EXPECT_EQ(kt_rod_parse_pt(b, len, &geom, &pt, &err), KT_XCOPY_OK);
	KT_EXPECT_EQ(pt.ranges.nr, 2);
	KT_EXPECT_EQ(pt.ranges.blocks, 16);
	KT_EXPECT_EQ(pt.ranges.r[1].lba, 200);
	KT_EXPECT_EQ(pt.timeout, 30);
	KT_EXPECT_EQ(pt.flags, KT_ROD_IMMED);

	/* RTV with the types made here, and bytes past DATA LENGTH ignored */
	b[2] = KT_ROD_RTV;
	put_be32(b + 8, KT_ROD_TYPE_PIT_VULNERABLE);
	KT_EXPECT_EQ(kt_rod_parse_pt(b, len + 40, &geom, &pt, &err), KT_XCOPY_OK);
	put_be32(b + 8, KT_ROD_TYPE_PIT_ANY);
	KT_EXPECT_EQ(kt_rod_parse_pt(b, len, &geom, &pt, &err), KT_XCOPY_OK);
}

static void test_pt_refused(void)
{
	static u8 b[2048];
	static struct kt_rod_pt pt;
	struct kt_xcopy_err err;
	size_t len;

	len = pt_list(b, 1, 8);
	KT_EXPECT_EQ(kt_rod_parse_pt(b, 15, &geom, &pt, &err), KT_XCOPY_ERROR);
	expect_err(&err, KT_XCOPY_ASC_PARAM_LIST_LEN, -1);

	/* DATA LENGTH says more than was sent */
	KT_EXPECT_EQ(kt_rod_parse_pt(b, len - 1, &geom, &pt, &err), KT_XCOPY_ERROR);
	expect_err(&err, KT_XCOPY_ASC_INVALID_PARAM, 0);

	len = pt_list(b, 1, 8);
	put_be16(b + 14, 15);
	KT_EXPECT_EQ(kt_rod_parse_pt(b, len, &geom, &pt, &err), KT_XCOPY_ERROR);
	expect_err(&err, KT_XCOPY_ASC_INVALID_PARAM, 14);

	len = pt_list(b, KT_ROD_MAX_RANGES + 1, 1);
	KT_EXPECT_EQ(kt_rod_parse_pt(b, len, &geom, &pt, &err), KT_XCOPY_ERROR);
	expect_err(&err, KT_XCOPY_ASC_TOO_MANY_SEGMENTS, 14);
	len = pt_list(b, KT_ROD_MAX_RANGES, 1);
	KT_EXPECT_EQ(kt_rod_parse_pt(b, len, &geom, &pt, &err), KT_XCOPY_OK);

	/* past the end, and wrapping around */
	len = pt_list(b, 2, 8);
	put_be64(b + 32, geom.nr_blocks - 4);
	KT_EXPECT_EQ(kt_rod_parse_pt(b, len, &geom, &pt, &err), KT_XCOPY_ERROR);
	expect_err(&err, KT_XCOPY_ASC_LBA_OUT_OF_RANGE, 32);
	put_be64(b + 32, ~0ULL - 2);
	KT_EXPECT_EQ(kt_rod_parse_pt(b, len, &geom, &pt, &err), KT_XCOPY_ERROR);
	expect_err(&err, KT_XCOPY_ASC_LBA_OUT_OF_RANGE, 32);
	put_be64(b + 32, geom.nr_blocks - 8);
	KT_EXPECT_EQ(kt_rod_parse_pt(b, len, &geom, &pt, &err), KT_XCOPY_OK);

	/* overlapping ranges */
	len = pt_list(b, 2, 200);
	KT_EXPECT_EQ(kt_rod_parse_pt(b, len, &geom, &pt, &err), KT_XCOPY_ERROR);
	expect_err(&err, KT_XCOPY_ASC_INVALID_PARAM, 32);

	/* more than a token may represent */
	len = pt_list(b, 1, KT_ROD_MAX_BYTES / 512 + 1);
	KT_EXPECT_EQ(kt_rod_parse_pt(b, len, &geom, &pt, &err), KT_XCOPY_ERROR);
	expect_err(&err, KT_XCOPY_ASC_INVALID_PARAM, 14);

	/* INACTIVITY TIMEOUT over the maximum; ROD types not made here */
	len = pt_list(b, 1, 8);
	put_be32(b + 4, KT_ROD_TIMEOUT_MAX + 1);
	KT_EXPECT_EQ(kt_rod_parse_pt(b, len, &geom, &pt, &err), KT_XCOPY_ERROR);
	expect_err(&err, KT_XCOPY_ASC_INVALID_PARAM, 4);
	put_be32(b + 4, KT_ROD_TIMEOUT_MAX);
	b[2] = KT_ROD_RTV;
	put_be32(b + 8, KT_ROD_TYPE_ZERO);
	KT_EXPECT_EQ(kt_rod_parse_pt(b, len, &geom, &pt, &err), KT_XCOPY_ERROR);
	expect_err(&err, KT_XCOPY_ASC_INVALID_PARAM, 8);
	put_be32(b + 8, 0x00010000);	/* access upon reference */
	KT_EXPECT_EQ(kt_rod_parse_pt(b, len, &geom, &pt, &err), KT_XCOPY_ERROR);
	b[2] = 0;			/* without RTV the type is ours to pick */
	KT_EXPECT_EQ(kt_rod_parse_pt(b, len, &geom, &pt, &err), KT_XCOPY_OK);
}

static void test_wut(void)
{
	static u8 b[2048];
	static struct kt_rod_wut wut;
	struct kt_xcopy_err err;
	size_t len = KT_ROD_WUT_HDR_LEN + 2 * 16;
	unsigned int i;

	memset(b, 0, sizeof(b));
	put_be16(b, len - 2);
	b[2] = KT_ROD_DEL_TKN;
	put_be64(b + 8, 24);
	for (i = 0; i < KT_ROD_TOKEN_LEN; i++)
		b[16 + i] = i * 7;
	put_be16(b + 534, 32);
	put_be64(b + 536, 1000);
	put_be32(b + 544, 16);
	put_be64(b + 552, 2000);
	put_be32(b + 560, 8);
	KT_EXPECT_EQ(kt_rod_parse_wut(b, len, &geom, &wut, &err), KT_XCOPY_OK);
	KT_EXPECT_EQ(wut.offset, 24);
	KT_EXPECT_EQ(wut.flags, KT_ROD_DEL_TKN);
	KT_EXPECT(!memcmp(wut.token, b + 16, KT_ROD_TOKEN_LEN));
	KT_EXPECT_EQ(wut.ranges.nr, 2);
	KT_EXPECT_EQ(wut.ranges.blocks, 24);

	KT_EXPECT_EQ(kt_rod_parse_wut(b, KT_ROD_WUT_HDR_LEN - 1, &geom, &wut, &err),
		     KT_XCOPY_ERROR);
	expect_err(&err, KT_XCOPY_ASC_PARAM_LIST_LEN, -1);
	put_be64(b + 552, 1010);	/* overlaps the first */
	KT_EXPECT_EQ(kt_rod_parse_wut(b, len, &geom, &wut, &err), KT_XCOPY_ERROR);
	expect_err(&err, KT_XCOPY_ASC_INVALID_PARAM, 552);
	put_be16(b + 534, 48);		/* more than DATA LENGTH holds */
	KT_EXPECT_EQ(kt_rod_parse_wut(b, len, &geom, &wut, &err), KT_XCOPY_ERROR);
	expect_err(&err, KT_XCOPY_ASC_INVALID_PARAM, 534);
}

static void test_token(void)
{
	struct kt_rod_token_info in = {
		.id = 0x1122334455667788ULL,
		.bytes = 3 << 20,
		.type = KT_ROD_TYPE_PIT_VULNERABLE,
		.block_size = 4096,
	}, out;
	struct kt_xcopy_err err;
	u8 tok[KT_ROD_TOKEN_LEN];
	unsigned int i;

	for (i = 0; i < sizeof(in.naa); i++)
		in.naa[i] = 0x60 + i;
	kt_rod_token_build(&in, tok);
	KT_EXPECT_EQ(get_be32(tok), KT_ROD_TYPE_PIT_VULNERABLE);
	KT_EXPECT_EQ(tok[6] << 8 | tok[7], 0x1f8);
	KT_EXPECT_EQ(tok[16], 0xe4);			/* identification CSCD */
	KT_EXPECT_EQ(tok[16 + 5] & 0xf, 3);		/* NAA */
	KT_EXPECT_EQ(tok[16 + 7], 16);
	KT_EXPECT_EQ(tok[16 + 31] | tok[16 + 30] << 8, 4096);
	KT_EXPECT_EQ(get_be32(tok + 48), 0);		/* high bytes: zero */
	KT_EXPECT_EQ(get_be32(tok + 60), 3 << 20);
	for (i = KT_ROD_TOK_RANDOM; i < KT_ROD_TOKEN_LEN; i++)
		KT_EXPECT_EQ(tok[i], 0);		/* the caller's to fill */

	KT_EXPECT_EQ(kt_rod_token_read(tok, &out, &err), 0);
	KT_EXPECT_EQ(out.id, in.id);
	KT_EXPECT_EQ(out.bytes, in.bytes);
	KT_EXPECT_EQ(out.block_size, 4096);
	KT_EXPECT(!memcmp(out.naa, in.naa, sizeof(in.naa)));

	tok[7] = 0xf0;
	KT_EXPECT_EQ(kt_rod_token_read(tok, &out, &err), -EINVAL);
	expect_err(&err, KT_ROD_ASC_TOKEN_LENGTH, -1);
	tok[7] = 0xf8;
	put_be32(tok, 0x00010000);
	KT_EXPECT_EQ(kt_rod_token_read(tok, &out, &err), -EINVAL);
	expect_err(&err, KT_ROD_ASC_TOKEN_TYPE, -1);
	put_be32(tok, KT_ROD_TYPE_ZERO);
	KT_EXPECT_EQ(kt_rod_token_read(tok, &out, &err), 0);
	KT_EXPECT_EQ(out.type, KT_ROD_TYPE_ZERO);
}

static void test_rrti(void)
{
	struct kt_rod_status st = {
		.blocks = 2048, .sa = 0x10, .op_status = KT_ROD_OP_DONE,
	};
	u8 tok[KT_ROD_TOKEN_LEN], b[1024], sense[18] = { 0x70, 0, 5 };
	unsigned int n, i;

	for (i = 0; i < sizeof(tok); i++)
		tok[i] = i;
	memset(b, 0xee, sizeof(b));
	n = kt_rod_build_rrti(b, sizeof(b), &st, NULL, 0, tok);
	KT_EXPECT_EQ(n, 550);
	KT_EXPECT_EQ(get_be32(b), 546);
	KT_EXPECT_EQ(b[4], 0x10);
	KT_EXPECT_EQ(b[5], KT_ROD_OP_DONE);
	KT_EXPECT_EQ(get_be32(b + 8), 0);		/* no delay: it is over */
	KT_EXPECT_EQ(b[13], 0);
	KT_EXPECT_EQ(b[15], KT_ROD_UNITS_BLOCKS);
	KT_EXPECT_EQ(get_be32(b + 20), 2048);
	KT_EXPECT_EQ(get_be32(b + 32), 514);
	KT_EXPECT(!memcmp(b + 38, tok, sizeof(tok)));
	KT_EXPECT_EQ(b[550], 0xee);

	/* a failed WRITE USING TOKEN: sense, no token; a short buffer */
	st.sa = 0x11;
	st.op_status = KT_ROD_OP_FAILED;
	st.scsi_status = 2;
	memset(b, 0xee, sizeof(b));
	n = kt_rod_build_rrti(b, 20, &st, sense, sizeof(sense), NULL);
	KT_EXPECT_EQ(n, 32 + 18 + 4);
	KT_EXPECT_EQ(b[19], 0);
	KT_EXPECT_EQ(b[20], 0xee);			/* not written: past 20 */
	n = kt_rod_build_rrti(b, sizeof(b), &st, sense, sizeof(sense), NULL);
	KT_EXPECT_EQ(get_be32(b), 32 + 18 + 4 - 4);
	KT_EXPECT_EQ(b[12], 2);
	KT_EXPECT_EQ(b[13], 18);
	KT_EXPECT_EQ(b[14], 18);
	KT_EXPECT_EQ(b[34], 5);
	KT_EXPECT_EQ(get_be32(b + 50), 0);
}

static void test_src_map(void)
{
	struct kt_rod_ranges r = {
		.nr = 2, .blocks = 24,
		.r = { { .lba = 100, .nr = 8 }, { .lba = 500, .nr = 16 } },
	};
	u64 pos = 0;

	KT_EXPECT_EQ(kt_rod_src_map(&r, 512, 0, 1 << 20, &pos), 8 * 512);
	KT_EXPECT_EQ(pos, 100 * 512);
	KT_EXPECT_EQ(kt_rod_src_map(&r, 512, 4 * 512, 512, &pos), 512);
	KT_EXPECT_EQ(pos, 104 * 512);
	KT_EXPECT_EQ(kt_rod_src_map(&r, 512, 10 * 512, 1 << 20, &pos), 14 * 512);
	KT_EXPECT_EQ(pos, 502 * 512);
	KT_EXPECT_EQ(kt_rod_src_map(&r, 512, 24 * 512, 512, &pos), 0);
}

static const struct kt_test tests[] = {
	KT_TEST_ENTRY(test_pt_ok),
	KT_TEST_ENTRY(test_pt_refused),
	KT_TEST_ENTRY(test_wut),
	KT_TEST_ENTRY(test_token),
	KT_TEST_ENTRY(test_rrti),
	KT_TEST_ENTRY(test_src_map),
};

KT_TEST_MAIN(tests);
