// SPDX-License-Identifier: GPL-2.0
/*
 * drivers/target/srpt/parse.c: SRP_CMD's CDB and data descriptors, with
 * the IUs a broken or hostile initiator sends. Each IU is exactly as long
 * as its buffer (heap, so that ASan sees a read past it).
 */
#include <linux/types.h>

#include "kt_test.h"
#include "parse.h"

#define IU_MAX	512

static u8 iu[IU_MAX];

static void put32(u8 *p, u32 v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/* a direct or indirect descriptor at @p */
static void desc(u8 *p, u32 len)
{
	memset(p, 0x11, 12);
	put32(p + 12, len);
}

/* an SRP_CMD: @fmt in the DATA-IN nibble (or OUT with @out) */
static void cmd(u8 fmt, bool out, u8 count)
{
	memset(iu, 0, sizeof(iu));
	iu[0] = 0x02;
	iu[5] = out ? fmt << 4 : fmt;
	iu[out ? 6 : 7] = count;
	iu[32] = 0x28;			/* READ (10) */
}

static enum kt_srpt_parse parse(u32 len, struct kt_srpt_parsed *p, u32 *bad)
{
	u8 *copy = malloc(len ? len : 1);
	enum kt_srpt_parse st;

	memcpy(copy, iu, len);
	st = kt_srpt_parse_cmd(copy, len, p, bad);
	free(copy);
	return st;
}

static void no_data_takes_the_cdb(void)
{
	struct kt_srpt_parsed p;
	u32 bad;

	cmd(0, false, 0);
	iu[29] = 2;
	KT_EXPECT_EQ(parse(48, &p, &bad), KT_SRPT_PARSE_OK);
	KT_EXPECT_EQ(p.dir, KT_SRPT_DIR_NONE);
	KT_EXPECT_EQ(p.cdb_len, 16);
	KT_EXPECT_EQ(p.task_attr, 2);
	KT_EXPECT_EQ(p.ndesc, 0);
}

static void iu_shorter_than_the_header_is_short(void)
{
	struct kt_srpt_parsed p;
	u32 bad;

	cmd(0, false, 0);
	KT_EXPECT_EQ(parse(47, &p, &bad), KT_SRPT_PARSE_SHORT);
	KT_EXPECT_EQ(parse(0, &p, &bad), KT_SRPT_PARSE_SHORT);
}

static void additional_cdb_past_the_iu_is_short(void)
{
	struct kt_srpt_parsed p;
	u32 bad;

	cmd(0, false, 0);
	iu[31] = 16;
	KT_EXPECT_EQ(parse(60, &p, &bad), KT_SRPT_PARSE_SHORT);
	KT_EXPECT_EQ(bad, 31);
	KT_EXPECT_EQ(parse(64, &p, &bad), KT_SRPT_PARSE_OK);
	KT_EXPECT_EQ(p.cdb_len, 32);
}

static void direct_descriptor_gives_its_length(void)
{
	struct kt_srpt_parsed p;
	u32 bad;

	cmd(1, true, 0);
	desc(iu + 48, 4096);
	KT_EXPECT_EQ(parse(64, &p, &bad), KT_SRPT_PARSE_OK);
	KT_EXPECT_EQ(p.dir, KT_SRPT_DIR_OUT);
	KT_EXPECT_EQ(p.ndesc, 1);
	KT_EXPECT_EQ(p.total, 4096);
	KT_EXPECT_EQ(parse(63, &p, &bad), KT_SRPT_PARSE_SHORT);
}

static void data_both_ways_is_refused(void)
{
	struct kt_srpt_parsed p;
	u32 bad;

	cmd(1, true, 0);
	iu[5] |= 1;
	KT_EXPECT_EQ(parse(80, &p, &bad), KT_SRPT_PARSE_BIDI);
	KT_EXPECT_EQ(bad, 5);
}

static void immediate_data_format_is_refused(void)
{
	struct kt_srpt_parsed p;
	u32 bad;

	cmd(3, true, 0);
	KT_EXPECT_EQ(parse(80, &p, &bad), KT_SRPT_PARSE_FORMAT);
	cmd(0xf, false, 0);
	KT_EXPECT_EQ(parse(80, &p, &bad), KT_SRPT_PARSE_FORMAT);
}

/* an indirect table of @n descriptors of @each bytes, all in the IU */
static u32 indirect(u8 n, u32 each)
{
	u32 i;

	cmd(2, false, n);
	desc(iu + 48, n * 16);
	put32(iu + 64, n * each);
	for (i = 0; i < n; i++)
		desc(iu + 68 + 16 * i, each);
	return 68 + 16 * n;
}

static void indirect_table_adds_up(void)
{
	struct kt_srpt_parsed p;
	u32 bad, len = indirect(3, 8192);

	KT_EXPECT_EQ(parse(len, &p, &bad), KT_SRPT_PARSE_OK);
	KT_EXPECT_EQ(p.dir, KT_SRPT_DIR_IN);
	KT_EXPECT_EQ(p.ndesc, 3);
	KT_EXPECT_EQ(p.total, 3 * 8192);
	KT_EXPECT_EQ(parse(len - 1, &p, &bad), KT_SRPT_PARSE_SHORT);
}

static void indirect_count_past_the_iu_is_short(void)
{
	struct kt_srpt_parsed p;
	u32 bad, len = indirect(20, 512);

	/* the count says 20, the IU holds 2 */
	KT_EXPECT_EQ(parse(68 + 32, &p, &bad), KT_SRPT_PARSE_SHORT);
	KT_EXPECT_EQ(parse(len, &p, &bad), KT_SRPT_PARSE_OK);
}

static void indirect_table_outside_the_iu_is_refused(void)
{
	struct kt_srpt_parsed p;
	u32 bad, len = indirect(4, 512);

	iu[7] = 2;			/* a partial list: the rest to fetch */
	KT_EXPECT_EQ(parse(len, &p, &bad), KT_SRPT_PARSE_EXTERNAL);
}

static void indirect_lengths_that_do_not_add_up_are_refused(void)
{
	struct kt_srpt_parsed p;
	u32 bad, len = indirect(2, 4096);

	put32(iu + 64, 4096);
	KT_EXPECT_EQ(parse(len, &p, &bad), KT_SRPT_PARSE_LENGTH);
	KT_EXPECT_EQ(bad, 64);
	len = indirect(2, 4096);
	put32(iu + 60, 33);		/* not whole descriptors */
	KT_EXPECT_EQ(parse(len, &p, &bad), KT_SRPT_PARSE_LENGTH);
	len = indirect(2, 0xffffffff);	/* a sum past 32 bits */
	put32(iu + 64, 0xfffffffe);
	KT_EXPECT_EQ(parse(len, &p, &bad), KT_SRPT_PARSE_LENGTH);
}

static void every_count_and_length_stays_inside(void)
{
	struct kt_srpt_parsed p;
	u32 bad, len, n;

	/* 255 descriptors claimed in IUs of every length: no read past */
	for (n = 0; n < 256; n++) {
		for (len = 0; len <= IU_MAX; len += 7) {
			memset(iu, 0xff, sizeof(iu));
			iu[5] = 0x02;
			iu[7] = n;
			put32(iu + 60, n * 16);
			parse(len, &p, &bad);
		}
	}
	KT_EXPECT(1);
}

static const struct kt_test tests[] = {
	KT_TEST_ENTRY(no_data_takes_the_cdb),
	KT_TEST_ENTRY(iu_shorter_than_the_header_is_short),
	KT_TEST_ENTRY(additional_cdb_past_the_iu_is_short),
	KT_TEST_ENTRY(direct_descriptor_gives_its_length),
	KT_TEST_ENTRY(data_both_ways_is_refused),
	KT_TEST_ENTRY(immediate_data_format_is_refused),
	KT_TEST_ENTRY(indirect_table_adds_up),
	KT_TEST_ENTRY(indirect_count_past_the_iu_is_short),
	KT_TEST_ENTRY(indirect_table_outside_the_iu_is_refused),
	KT_TEST_ENTRY(indirect_lengths_that_do_not_add_up_are_refused),
	KT_TEST_ENTRY(every_count_and_length_stays_inside),
};

KT_TEST_MAIN(tests)
