// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of drivers/target/proto/cdb.c, including hostile input.
 */
#include <linux/types.h>
#include <asm/unaligned.h>

#include <ktarget/proto/cdb.h>

#include "kt_test.h"

static void read10_decodes_lba_length_and_fua(void)
{
	u8 b[10] = { 0x28, 0x08, 0x12, 0x34, 0x56, 0x78, 0, 0x01, 0x00, 0 };
	struct kt_cdb c;

	KT_EXPECT_EQ(kt_cdb_decode(b, sizeof(b), &c), KT_CDB_OK);
	KT_EXPECT_EQ(c.len, 10);
	KT_EXPECT_EQ(c.lba, 0x12345678);
	KT_EXPECT_EQ(c.nr_blocks, 256);
	KT_EXPECT_EQ(c.layout, KT_CDB_RW10);
	KT_EXPECT(c.flags & KT_CDB_F_FUA);
	KT_EXPECT(!(c.flags & KT_CDB_F_DPO));
	KT_EXPECT(c.flags & KT_CDB_F_DATA_IN);
}

static void read6_length_zero_means_256_blocks(void)
{
	u8 b[6] = { 0x08, 0xff, 0xff, 0xff, 0x00, 0 };
	struct kt_cdb c;

	KT_EXPECT_EQ(kt_cdb_decode(b, sizeof(b), &c), KT_CDB_OK);
	KT_EXPECT_EQ(c.lba, 0x1fffff);	/* top three bits of byte 1 are not LBA */
	KT_EXPECT_EQ(c.nr_blocks, 256);
	KT_EXPECT_EQ(c.flags & KT_CDB_F_FUA, 0);	/* READ (6) has no FUA bit */
}

static void write16_decodes_64bit_lba_and_dpo(void)
{
	u8 b[16] = { 0x8a, 0x10 };
	struct kt_cdb c;

	put_unaligned_be64(0xfedcba9876543210ULL, &b[2]);
	put_unaligned_be32(0xffffffff, &b[10]);
	KT_EXPECT_EQ(kt_cdb_decode(b, sizeof(b), &c), KT_CDB_OK);
	KT_EXPECT_EQ(c.lba, 0xfedcba9876543210ULL);
	KT_EXPECT_EQ(c.nr_blocks, 0xffffffff);
	KT_EXPECT(c.flags & KT_CDB_F_DPO);
	KT_EXPECT(c.flags & KT_CDB_F_DATA_OUT);
}

static void read12_and_compare_and_write_lengths(void)
{
	u8 r12[12] = { 0xa8, 0, 0, 0, 0, 9, 0, 0, 1, 0 };
	u8 caw[16] = { 0x89 };
	struct kt_cdb c;

	KT_EXPECT_EQ(kt_cdb_decode(r12, sizeof(r12), &c), KT_CDB_OK);
	KT_EXPECT_EQ(c.lba, 9);
	KT_EXPECT_EQ(c.nr_blocks, 256);

	caw[13] = 3;
	KT_EXPECT_EQ(kt_cdb_decode(caw, sizeof(caw), &c), KT_CDB_OK);
	KT_EXPECT_EQ(c.nr_blocks, 3);
	KT_EXPECT_EQ(c.layout, KT_CDB_CAW16);
}

static void empty_buffer_is_truncated(void)
{
	struct kt_cdb c;

	KT_EXPECT_EQ(kt_cdb_decode(NULL, 0, &c), KT_CDB_TRUNCATED);
}

static void buffer_shorter_than_group_length_is_truncated(void)
{
	u8 b[16] = { 0x88 };
	struct kt_cdb c;
	size_t n;

	for (n = 1; n < 16; n++)
		KT_EXPECT_EQ(kt_cdb_decode(b, n, &c), KT_CDB_TRUNCATED);
	KT_EXPECT_EQ(kt_cdb_decode(b, 16, &c), KT_CDB_OK);
}

static void vendor_specific_group_is_unknown(void)
{
	u8 b[16] = { 0xc0 };
	struct kt_cdb c;

	KT_EXPECT_EQ(kt_cdb_decode(b, sizeof(b), &c), KT_CDB_UNKNOWN);
	b[0] = 0xff;
	KT_EXPECT_EQ(kt_cdb_decode(b, sizeof(b), &c), KT_CDB_UNKNOWN);
	b[0] = 0x60;	/* group 3 is reserved */
	KT_EXPECT_EQ(kt_cdb_decode(b, sizeof(b), &c), KT_CDB_UNKNOWN);
}

static void variable_length_cdb_bounds_are_checked(void)
{
	u8 b[KT_CDB_MAX_LEN + 8] = { 0x7f };
	struct kt_cdb c;

	KT_EXPECT_EQ(kt_cdb_decode(b, 7, &c), KT_CDB_TRUNCATED);

	b[7] = 0;	/* must be at least 4 */
	KT_EXPECT_EQ(kt_cdb_decode(b, sizeof(b), &c), KT_CDB_BAD_LENGTH);
	KT_EXPECT_EQ(c.bad_byte, 7);

	b[7] = 5;	/* must be a multiple of 4 */
	KT_EXPECT_EQ(kt_cdb_decode(b, sizeof(b), &c), KT_CDB_BAD_LENGTH);

	b[7] = 0xfc;	/* 8 + 252 = 260, the largest allowed */
	KT_EXPECT_EQ(kt_cdb_decode(b, sizeof(b), &c), KT_CDB_OK);
	KT_EXPECT_EQ(c.len, 260);
	KT_EXPECT_EQ(kt_cdb_decode(b, 259, &c), KT_CDB_TRUNCATED);

	b[7] = 0x18;	/* 32 bytes */
	KT_EXPECT_EQ(kt_cdb_decode(b, 32, &c), KT_CDB_OK);
	KT_EXPECT_EQ(c.len, 32);
}

static void every_opcode_decodes_without_reading_past_the_cdb(void)
{
	struct kt_cdb c;
	unsigned int op, n;

	/*
	 * The buffer is exactly as long as the group says, so ASan flags any
	 * read past the CDB; a shorter buffer must never be accepted.
	 */
	for (op = 0; op < 256; op++) {
		if (op == 0x7f)
			continue;
		n = kt_cdb_group_len(op);
		if (!n)
			continue;
		{
			u8 *b = malloc(n);

			memset(b, 0xff, n);
			b[0] = op;
			KT_EXPECT_EQ(kt_cdb_decode(b, n, &c), KT_CDB_OK);
			KT_EXPECT_EQ(c.len, n);
			KT_EXPECT_EQ(kt_cdb_decode(b, n - 1, &c), KT_CDB_TRUNCATED);
			free(b);
		}
	}
}

static void range_check_is_overflow_safe(void)
{
	KT_EXPECT(kt_cdb_range_ok(0, 100, 100));
	KT_EXPECT(kt_cdb_range_ok(100, 0, 100));
	KT_EXPECT(!kt_cdb_range_ok(1, 100, 100));
	KT_EXPECT(!kt_cdb_range_ok(101, 0, 100));
	KT_EXPECT(!kt_cdb_range_ok(U64_MAX, 2, 100));
	KT_EXPECT(!kt_cdb_range_ok(2, U64_MAX, 100));
	KT_EXPECT(!kt_cdb_range_ok(U64_MAX - 1, 2, U64_MAX));
	KT_EXPECT(kt_cdb_range_ok(U64_MAX - 1, 1, U64_MAX));
}

static const struct kt_test tests[] = {
	KT_TEST_ENTRY(read10_decodes_lba_length_and_fua),
	KT_TEST_ENTRY(read6_length_zero_means_256_blocks),
	KT_TEST_ENTRY(write16_decodes_64bit_lba_and_dpo),
	KT_TEST_ENTRY(read12_and_compare_and_write_lengths),
	KT_TEST_ENTRY(empty_buffer_is_truncated),
	KT_TEST_ENTRY(buffer_shorter_than_group_length_is_truncated),
	KT_TEST_ENTRY(vendor_specific_group_is_unknown),
	KT_TEST_ENTRY(variable_length_cdb_bounds_are_checked),
	KT_TEST_ENTRY(every_opcode_decodes_without_reading_past_the_cdb),
	KT_TEST_ENTRY(range_check_is_overflow_safe),
};

KT_TEST_MAIN(tests)
