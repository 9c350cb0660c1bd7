// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of drivers/target/proto/sense.c.
 */
#include <linux/types.h>

#include <ktarget/proto/sense.h>

#include "kt_test.h"

static void invalid_cdb_field_has_field_pointer(void)
{
	struct kt_sense_field f = KT_FIELD_CDB_BIT(1, 4);
	u8 b[KT_SENSE_BUF_LEN];

	KT_EXPECT_EQ(kt_sense_build(KT_SENSE_INVALID_CDB_FIELD, 0, &f, 0, false, b),
		     KT_SENSE_BUF_LEN);
	KT_EXPECT_EQ(b[0], 0x70);
	KT_EXPECT_EQ(b[2], 0x05);
	KT_EXPECT_EQ(b[7], 10);
	KT_EXPECT_EQ(b[12], 0x24);
	KT_EXPECT_EQ(b[13], 0x00);
	KT_EXPECT_EQ(b[15], 0x80 | 0x40 | 0x08 | 4);
	KT_EXPECT_EQ(b[16], 0);
	KT_EXPECT_EQ(b[17], 1);
}

static void param_field_pointer_has_cd_bit_clear(void)
{
	struct kt_sense_field f = KT_FIELD_PARAM(0x1234);
	u8 b[KT_SENSE_BUF_LEN];

	kt_sense_build(KT_SENSE_INVALID_PARAM_FIELD, 0, &f, 0, false, b);
	KT_EXPECT_EQ(b[12], 0x26);
	KT_EXPECT_EQ(b[15], 0x80);
	KT_EXPECT_EQ(b[16], 0x12);
	KT_EXPECT_EQ(b[17], 0x34);
}

static void miscompare_reports_offset_in_information(void)
{
	u8 b[KT_SENSE_BUF_LEN];

	kt_sense_build(KT_SENSE_MISCOMPARE, 0, NULL, 513, true, b);
	KT_EXPECT_EQ(b[0], 0xf0);
	KT_EXPECT_EQ(b[2], 0x0e);
	KT_EXPECT_EQ(b[6], 0x01);
	KT_EXPECT_EQ(b[5], 0x02);
	KT_EXPECT_EQ(b[15], 0);
}

static void unit_attention_takes_caller_asc(void)
{
	u8 b[KT_SENSE_BUF_LEN];

	kt_sense_build(KT_SENSE_UNIT_ATTENTION, 0x2a09, NULL, 0, false, b);
	KT_EXPECT_EQ(b[2], 0x06);
	KT_EXPECT_EQ(b[12], 0x2a);
	KT_EXPECT_EQ(b[13], 0x09);
}

static void reasons_without_sense_build_nothing(void)
{
	u8 b[KT_SENSE_BUF_LEN];

	KT_EXPECT_EQ(kt_sense_build(KT_SENSE_NONE, 0, NULL, 0, false, b), 0);
	KT_EXPECT_EQ(kt_sense_build(KT_SENSE_RESERVATION_CONFLICT, 0, NULL, 0, false, b), 0);
	KT_EXPECT_EQ(kt_sense_status(KT_SENSE_RESERVATION_CONFLICT), KT_SAM_RESERVATION_CONFLICT);
	KT_EXPECT_EQ(kt_sense_status(KT_SENSE_OUT_OF_RESOURCES), KT_SAM_BUSY);
	KT_EXPECT_EQ(kt_sense_status(KT_SENSE_NONE), KT_SAM_GOOD);
}

static void every_reason_has_an_entry(void)
{
	unsigned int r;
	u8 k, a, q;

	for (r = 1; r <= KT_SENSE_MAX; r++) {
		u8 st = kt_sense_status(KT_SR(r));

		KT_EXPECT(st != KT_SAM_GOOD);
		kt_sense_lookup(KT_SR(r), &k, &a, &q);
		if (st == KT_SAM_CHECK_CONDITION)
			KT_EXPECT(k != 0);
	}
}

static void unknown_reason_maps_to_hardware_error(void)
{
	u8 b[KT_SENSE_BUF_LEN];

	KT_EXPECT_EQ(kt_sense_build(KT_SR(KT_SENSE_MAX + 7), 0, NULL, 0, false, b),
		     KT_SENSE_BUF_LEN);
	KT_EXPECT_EQ(b[2], 0x04);
}

/* EXTENDED COPY: COPY ABORTED with no additional sense and segment 3 */
static void copy_aborted_takes_zero_asc_and_segment_number(void)
{
	struct kt_sense_field f = KT_FIELD_PARAM(0x4c);
	u8 b[KT_SENSE_BUF_LEN];

	KT_EXPECT_EQ(kt_sense_build(KT_SENSE_COPY_ABORTED, 0, &f, 0, false, b),
		     KT_SENSE_BUF_LEN);
	KT_EXPECT_EQ(b[12], 0x0d);
	kt_sense_set_asc(b, 0x0000);
	kt_sense_set_csi(b, 3);
	KT_EXPECT_EQ(b[2], 0x0a);
	KT_EXPECT_EQ(b[12], 0x00);
	KT_EXPECT_EQ(b[13], 0x00);
	KT_EXPECT_EQ(b[8], 0);
	KT_EXPECT_EQ(b[11], 3);
	/* INFORMATION stays invalid; the segment pointer is untouched */
	KT_EXPECT_EQ(b[0], 0x70);
	KT_EXPECT_EQ(b[15], 0x80);
	KT_EXPECT_EQ(b[17], 0x4c);
}

static void set_asc_overrides_the_table(void)
{
	u8 b[KT_SENSE_BUF_LEN];

	kt_sense_build(KT_SENSE_INVALID_PARAM_FIELD, 0, NULL, 0, false, b);
	kt_sense_set_asc(b, 0x2606);
	KT_EXPECT_EQ(b[2], 0x05);
	KT_EXPECT_EQ(b[12], 0x26);
	KT_EXPECT_EQ(b[13], 0x06);
	kt_sense_set_csi(b, 0x01020304);
	KT_EXPECT_EQ(b[8], 1);
	KT_EXPECT_EQ(b[9], 2);
	KT_EXPECT_EQ(b[10], 3);
	KT_EXPECT_EQ(b[11], 4);
}

static const struct kt_test tests[] = {
	KT_TEST_ENTRY(copy_aborted_takes_zero_asc_and_segment_number),
	KT_TEST_ENTRY(set_asc_overrides_the_table),
	KT_TEST_ENTRY(invalid_cdb_field_has_field_pointer),
	KT_TEST_ENTRY(param_field_pointer_has_cd_bit_clear),
	KT_TEST_ENTRY(miscompare_reports_offset_in_information),
	KT_TEST_ENTRY(unit_attention_takes_caller_asc),
	KT_TEST_ENTRY(reasons_without_sense_build_nothing),
	KT_TEST_ENTRY(every_reason_has_an_entry),
	KT_TEST_ENTRY(unknown_reason_maps_to_hardware_error),
};

KT_TEST_MAIN(tests)
