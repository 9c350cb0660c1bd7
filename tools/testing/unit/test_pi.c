// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of drivers/target/proto/pi.c: the CRC-16 T10-DIF guard
 * against known vectors, the tuple a write makes, the checks and escapes.
 */
#include <linux/types.h>
#include <string.h>

#include <ktarget/proto/pi.h>
#include <ktarget/proto/sense.h>

#include "kt_test.h"

/* the CRC catalogue's check value of CRC-16/T10-DIF: "123456789" */
static void crc_of_check_string_is_d0db(void)
{
	KT_EXPECT_EQ(kt_pi_crc(0, (const u8 *)"123456789", 9), 0xd0db);
}

static void crc_of_zero_block_is_zero(void)
{
	u8 b[512] = { 0 };

	KT_EXPECT_EQ(kt_pi_crc(0, b, sizeof(b)), 0);
}

/* a block of FFh, and one of the bytes 00h..FFh twice (computed bitwise) */
static void crc_of_known_blocks(void)
{
	u8 b[512];
	int i;

	memset(b, 0xff, sizeof(b));
	KT_EXPECT_EQ(kt_pi_crc(0, b, sizeof(b)), 0xe6a1);
	for (i = 0; i < 512; i++)
		b[i] = i & 0xff;
	KT_EXPECT_EQ(kt_pi_crc(0, b, sizeof(b)), 0x4f10);
}

static void crc_goes_on_across_pieces(void)
{
	u8 b[512];
	u16 c;
	int i;

	for (i = 0; i < 512; i++)
		b[i] = i * 7;
	c = kt_pi_crc(0, b, 100);
	c = kt_pi_crc(c, b + 100, 1);
	c = kt_pi_crc(c, b + 101, 411);
	KT_EXPECT_EQ(c, kt_pi_crc(0, b, 512));
}

static void type1_tuple_has_app_zero_and_lba_low_32_bits(void)
{
	u8 t[KT_PI_TUPLE_LEN];
	static const u8 want[] = { 0x12, 0x34, 0, 0, 0x89, 0xab, 0xcd, 0xef };

	kt_pi_tuple_make(t, KT_PI_TYPE1, 0x1234, 0x0123456789abcdefULL);
	KT_EXPECT(!memcmp(t, want, sizeof(want)));
}

static void type3_tuple_has_ref_zero(void)
{
	u8 t[KT_PI_TUPLE_LEN];
	static const u8 want[] = { 0xbe, 0xef, 0, 0, 0, 0, 0, 0 };

	kt_pi_tuple_make(t, KT_PI_TYPE3, 0xbeef, 77);
	KT_EXPECT(!memcmp(t, want, sizeof(want)));
}

static void read_checks_guard_and_type1_ref(void)
{
	KT_EXPECT_EQ(kt_pi_read_checks(KT_PI_TYPE1),
		     KT_PI_CHECK_GUARD | KT_PI_CHECK_REF);
	KT_EXPECT_EQ(kt_pi_read_checks(KT_PI_TYPE3), KT_PI_CHECK_GUARD);
}

static void protect_field_chooses_the_checks(void)
{
	const unsigned int g = KT_PI_CHECK_GUARD, r = KT_PI_CHECK_REF;

	/* 000b as a read without PI; 001b and 101b guard and type 1's ref */
	KT_EXPECT_EQ(kt_pi_protect_checks(KT_PI_TYPE1, 0), g | r);
	KT_EXPECT_EQ(kt_pi_protect_checks(KT_PI_TYPE1, 1), g | r);
	KT_EXPECT_EQ(kt_pi_protect_checks(KT_PI_TYPE1, 5), g | r);
	KT_EXPECT_EQ(kt_pi_protect_checks(KT_PI_TYPE3, 1), g);
	/* 010b no guard, 011b nothing, 100b the guard alone */
	KT_EXPECT_EQ(kt_pi_protect_checks(KT_PI_TYPE1, 2), r);
	KT_EXPECT_EQ(kt_pi_protect_checks(KT_PI_TYPE3, 2), 0);
	KT_EXPECT_EQ(kt_pi_protect_checks(KT_PI_TYPE1, 3), 0);
	KT_EXPECT_EQ(kt_pi_protect_checks(KT_PI_TYPE1, 4), g);
	KT_EXPECT_EQ(kt_pi_protect_checks(KT_PI_TYPE3, 4), g);
	/* the application tag never: ATO is 0 */
	KT_EXPECT_EQ(kt_pi_protect_checks(KT_PI_TYPE1, 1) & KT_PI_CHECK_APP, 0);
}

static void good_tuple_passes(void)
{
	u8 t[KT_PI_TUPLE_LEN];
	unsigned int c = kt_pi_read_checks(KT_PI_TYPE1);

	kt_pi_tuple_make(t, KT_PI_TYPE1, 0xd0db, 42);
	KT_EXPECT_EQ(kt_pi_tuple_check(t, KT_PI_TYPE1, 0xd0db, 42, c, 0, 0),
		     KT_SENSE_NONE);
}

static void bad_guard_is_10_01_before_ref(void)
{
	u8 t[KT_PI_TUPLE_LEN];
	unsigned int c = kt_pi_read_checks(KT_PI_TYPE1);

	kt_pi_tuple_make(t, KT_PI_TYPE1, 0xd0db, 42);
	KT_EXPECT_EQ(kt_pi_tuple_check(t, KT_PI_TYPE1, 0xd0da, 43, c, 0, 0),
		     KT_SENSE_PI_GUARD);
}

static void type1_wrong_ref_is_10_03(void)
{
	u8 t[KT_PI_TUPLE_LEN];
	unsigned int c = kt_pi_read_checks(KT_PI_TYPE1);

	kt_pi_tuple_make(t, KT_PI_TYPE1, 0xd0db, 42);
	KT_EXPECT_EQ(kt_pi_tuple_check(t, KT_PI_TYPE1, 0xd0db, 43, c, 0, 0),
		     KT_SENSE_PI_REF_TAG);
	/* only the low 32 bits of the LBA are compared */
	KT_EXPECT_EQ(kt_pi_tuple_check(t, KT_PI_TYPE1, 0xd0db, (1ULL << 32) + 42,
				       c, 0, 0), KT_SENSE_NONE);
}

static void type3_ref_is_not_checked(void)
{
	u8 t[KT_PI_TUPLE_LEN];
	unsigned int c = kt_pi_read_checks(KT_PI_TYPE3);

	kt_pi_tuple_make(t, KT_PI_TYPE1, 0xd0db, 42);
	KT_EXPECT_EQ(kt_pi_tuple_check(t, KT_PI_TYPE3, 0xd0db, 7, c, 0, 0),
		     KT_SENSE_NONE);
}

static void app_tag_check_is_10_02_under_mask(void)
{
	u8 t[KT_PI_TUPLE_LEN] = { 0xd0, 0xdb, 0x12, 0x34, 0, 0, 0, 42 };
	unsigned int c = KT_PI_CHECK_GUARD | KT_PI_CHECK_APP | KT_PI_CHECK_REF;

	KT_EXPECT_EQ(kt_pi_tuple_check(t, KT_PI_TYPE1, 0xd0db, 42, c, 0x1299, 0xff00),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(kt_pi_tuple_check(t, KT_PI_TYPE1, 0xd0db, 42, c, 0x1299, 0xffff),
		     KT_SENSE_PI_APP_TAG);
}

static void type1_app_escape_turns_checks_off(void)
{
	u8 t[KT_PI_TUPLE_LEN] = { 0, 0, 0xff, 0xff, 0, 0, 0, 1 };
	unsigned int c = kt_pi_read_checks(KT_PI_TYPE1);

	KT_EXPECT_EQ(kt_pi_tuple_check(t, KT_PI_TYPE1, 0x1111, 42, c, 0, 0),
		     KT_SENSE_NONE);
}

static void type3_needs_both_escapes(void)
{
	u8 t[KT_PI_TUPLE_LEN] = { 0, 0, 0xff, 0xff, 0, 0, 0, 1 };
	unsigned int c = kt_pi_read_checks(KT_PI_TYPE3);

	KT_EXPECT_EQ(kt_pi_tuple_check(t, KT_PI_TYPE3, 0x1111, 42, c, 0, 0),
		     KT_SENSE_PI_GUARD);
	memset(t + 4, 0xff, 4);
	KT_EXPECT_EQ(kt_pi_tuple_check(t, KT_PI_TYPE3, 0x1111, 42, c, 0, 0),
		     KT_SENSE_NONE);
}

/* a formatted block (all FFh) reads under either type */
static void formatted_tuple_is_never_checked(void)
{
	u8 t[KT_PI_TUPLE_LEN];

	memset(t, 0xff, sizeof(t));
	KT_EXPECT_EQ(kt_pi_tuple_check(t, KT_PI_TYPE1, 0, 9, 7, 0, 0xffff),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(kt_pi_tuple_check(t, KT_PI_TYPE3, 0, 9, 7, 0, 0xffff),
		     KT_SENSE_NONE);
}

static const struct kt_test tests[] = {
	KT_TEST_ENTRY(crc_of_check_string_is_d0db),
	KT_TEST_ENTRY(crc_of_zero_block_is_zero),
	KT_TEST_ENTRY(crc_of_known_blocks),
	KT_TEST_ENTRY(crc_goes_on_across_pieces),
	KT_TEST_ENTRY(type1_tuple_has_app_zero_and_lba_low_32_bits),
	KT_TEST_ENTRY(type3_tuple_has_ref_zero),
	KT_TEST_ENTRY(read_checks_guard_and_type1_ref),
	KT_TEST_ENTRY(protect_field_chooses_the_checks),
	KT_TEST_ENTRY(good_tuple_passes),
	KT_TEST_ENTRY(bad_guard_is_10_01_before_ref),
	KT_TEST_ENTRY(type1_wrong_ref_is_10_03),
	KT_TEST_ENTRY(type3_ref_is_not_checked),
	KT_TEST_ENTRY(app_tag_check_is_10_02_under_mask),
	KT_TEST_ENTRY(type1_app_escape_turns_checks_off),
	KT_TEST_ENTRY(type3_needs_both_escapes),
	KT_TEST_ENTRY(formatted_tuple_is_never_checked),
};

KT_TEST_MAIN(tests)
