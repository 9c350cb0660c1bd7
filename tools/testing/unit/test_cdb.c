// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of drivers/target/proto/cdb.c, including hostile input.
 */
#include <linux/types.h>
#include <linux/unaligned.h>

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

static void command_table_is_sorted_and_each_entry_finds_itself(void)
{
	const struct kt_cdb_desc *d, *prev = NULL;
	unsigned int i;
	u8 cdb[16];

	KT_EXPECT(kt_cdb_nr_descs > 40);
	for (i = 0; i < kt_cdb_nr_descs; i++) {
		d = &kt_cdb_descs[i];
		/* sorted by opcode, then service action, no duplicates */
		if (prev)
			KT_EXPECT(prev->opcode < d->opcode ||
				  (prev->opcode == d->opcode && prev->has_sa &&
				   d->has_sa && prev->sa < d->sa));
		prev = d;
		/* the CDB length is the one its group code gives */
		KT_EXPECT_EQ(d->len, kt_cdb_group_len(d->opcode));
		KT_EXPECT(d->has_sa || !d->sa);
		KT_EXPECT(d->sa <= 0x1f);
		/* the usage data names the service action where the CDB has it */
		if (d->has_sa)
			KT_EXPECT_EQ(d->usage[0] & 0x1f, d->sa);
		/* the allocation length lies inside the CDB, before CONTROL */
		KT_EXPECT(!d->alen_size ||
			  d->alen_off + d->alen_size <= d->len - 1U);
		KT_EXPECT(!(d->flags & KT_CDB_D_BLOCKS_IN) ||
			  !(d->flags & KT_CDB_D_BLOCKS_OUT));
		/* block data comes with an LBA and a length to check */
		if (d->flags & (KT_CDB_D_BLOCKS_IN | KT_CDB_D_BLOCKS_OUT))
			KT_EXPECT(d->layout != KT_CDB_NONE);
		/* a command with an LBA reaches the medium, and is the core's to run */
		if (d->layout != KT_CDB_NONE)
			KT_EXPECT(d->flags & KT_CDB_D_MEDIUM);
		KT_EXPECT(d->run != KT_RUN_NONE && d->run < KT_RUN_NR);
		/* SANITIZE must get through after a failed one */
		if (d->run == KT_RUN_SANITIZE)
			KT_EXPECT(!(d->flags & KT_CDB_D_MEDIUM));
		/* a parameter list goes out, never in */
		if (d->flags & KT_CDB_D_PARAM)
			KT_EXPECT(!(d->flags & KT_CDB_D_BLOCKS_IN));

		memset(cdb, 0, sizeof(cdb));
		cdb[0] = d->opcode;
		cdb[1] = d->sa;
		KT_EXPECT(kt_cdb_desc_find(cdb, d->len) == d);
	}
}

static void command_not_in_the_table_finds_nothing(void)
{
	const u8 log_sense[10] = { LOG_SENSE };
	const u8 rtpg_other_sa[12] = { MAINTENANCE_IN, MI_REPORT_ALIASES };
	const u8 sai_other[16] = { SERVICE_ACTION_IN_16, SAI_REPORT_REFERRALS };
	struct kt_cdb c;

	KT_EXPECT(!kt_cdb_desc_find(log_sense, sizeof(log_sense)));
	KT_EXPECT(!kt_cdb_desc_find(rtpg_other_sa, sizeof(rtpg_other_sa)));
	KT_EXPECT(!kt_cdb_desc_find(sai_other, sizeof(sai_other)));
	KT_EXPECT(!kt_cdb_desc_find(log_sense, 0));
	/* decoding still knows its length: the core answers INVALID OPCODE */
	KT_EXPECT_EQ(kt_cdb_decode(log_sense, sizeof(log_sense), &c), KT_CDB_OK);
	KT_EXPECT(!c.desc);
	KT_EXPECT_EQ(c.len, 10);
}

static void target_commands_are_exempt_from_every_lu_condition(void)
{
	static const u8 ops[] = { INQUIRY, REPORT_LUNS, REQUEST_SENSE };
	const u16 all = KT_CDB_D_NO_LU | KT_CDB_D_NO_UA | KT_CDB_D_IN_SANITIZE |
			KT_CDB_D_RESERVED_OK | KT_CDB_D_ALUA_ANY;
	const struct kt_cdb_desc *d;
	unsigned int i, n = 0;
	u8 cdb[12] = { 0 };

	for (i = 0; i < sizeof(ops); i++) {
		cdb[0] = ops[i];
		d = kt_cdb_desc_find(cdb, sizeof(cdb));
		KT_EXPECT(d);
		KT_EXPECT_EQ(d->flags & all, all);
		KT_EXPECT_EQ(d->pr, KT_PRC_ANY);
	}
	/* and no other command needs no LU or skips unit attentions */
	for (i = 0; i < kt_cdb_nr_descs; i++)
		if (kt_cdb_descs[i].flags & (KT_CDB_D_NO_LU | KT_CDB_D_NO_UA |
					     KT_CDB_D_IN_SANITIZE))
			n++;
	KT_EXPECT_EQ(n, sizeof(ops));
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
	KT_TEST_ENTRY(command_table_is_sorted_and_each_entry_finds_itself),
	KT_TEST_ENTRY(command_not_in_the_table_finds_nothing),
	KT_TEST_ENTRY(target_commands_are_exempt_from_every_lu_condition),
};

KT_TEST_MAIN(tests)
