// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of drivers/target/proto/alua.c: REPORT TARGET PORT GROUPS
 * data (both header formats, truncation), SET TARGET PORT GROUPS parameter
 * lists, and the commands each access state lets through. Buffers are
 * malloc'ed to their exact length so that ASan catches overruns.
 */
#include <linux/types.h>
#include <linux/unaligned.h>

#include <ktarget/proto/alua.h>
#include <ktarget/proto/cdb.h>
#include <ktarget/proto/sense.h>

#include "kt_test.h"

static const u16 ports_a[] = { 1, 2 };
static const u16 ports_b[] = { 3 };

static const struct kt_alua_desc two_groups[] = {
	{ .id = 0, .state = KT_ALUA_AO, .status = KT_ALUA_STATUS_NONE,
	  .supported = 0xcf, .preferred = true, .nr_ports = 2,
	  .ports = ports_a },
	{ .id = 7, .state = KT_ALUA_STANDBY,
	  .status = KT_ALUA_STATUS_EXPLICIT, .supported = 0x0f,
	  .nr_ports = 1, .ports = ports_b },
};

static void rtpg_cdb(u8 *cdb, u8 format, u32 alloc)
{
	memset(cdb, 0, 12);
	cdb[0] = 0xa3;
	cdb[1] = (format << 5) | 0x0a;
	put_unaligned_be32(alloc, &cdb[6]);
}

static void rtpg_length_format_lists_groups_and_ports(void)
{
	struct kt_sense_field f;
	u8 cdb[12], *buf;
	u32 n = 0;

	rtpg_cdb(cdb, 0, 64);
	buf = malloc(64);
	memset(buf, 0xee, 64);
	KT_EXPECT_EQ(kt_alua_rtpg(cdb, two_groups, 2, 0, buf, 64, &n, &f),
		     KT_SENSE_NONE);
	/* 4 + (8 + 2 * 4) + (8 + 4) */
	KT_EXPECT_EQ(n, 32);
	KT_EXPECT_EQ(get_unaligned_be32(&buf[0]), 28);
	KT_EXPECT_EQ(buf[4], 0x80 | KT_ALUA_AO);
	KT_EXPECT_EQ(buf[5], 0xcf);
	KT_EXPECT_EQ(get_unaligned_be16(&buf[6]), 0);
	KT_EXPECT_EQ(buf[9], KT_ALUA_STATUS_NONE);
	KT_EXPECT_EQ(buf[11], 2);
	KT_EXPECT_EQ(get_unaligned_be16(&buf[14]), 1);
	KT_EXPECT_EQ(get_unaligned_be16(&buf[18]), 2);
	KT_EXPECT_EQ(buf[20], KT_ALUA_STANDBY);
	KT_EXPECT_EQ(get_unaligned_be16(&buf[22]), 7);
	KT_EXPECT_EQ(buf[25], KT_ALUA_STATUS_EXPLICIT);
	KT_EXPECT_EQ(buf[27], 1);
	KT_EXPECT_EQ(get_unaligned_be16(&buf[30]), 3);
	KT_EXPECT_EQ(buf[32], 0xee);	/* nothing past the data */
	free(buf);
}

static void rtpg_extended_header_has_format_and_time(void)
{
	struct kt_sense_field f;
	u8 cdb[12], *buf;
	u32 n = 0;

	rtpg_cdb(cdb, 1, 64);
	buf = malloc(36);
	KT_EXPECT_EQ(kt_alua_rtpg(cdb, two_groups, 2, 9, buf, 36, &n, &f),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(n, 36);
	KT_EXPECT_EQ(get_unaligned_be32(&buf[0]), 32);
	KT_EXPECT_EQ(buf[4], 0x10);
	KT_EXPECT_EQ(buf[5], 9);
	KT_EXPECT_EQ(get_unaligned_be16(&buf[10]), 0);
	KT_EXPECT_EQ(get_unaligned_be16(&buf[26]), 7);
	free(buf);
}

static void rtpg_truncated_to_allocation_keeps_full_length(void)
{
	struct kt_sense_field f;
	u8 cdb[12], *buf;
	u32 len, n;

	rtpg_cdb(cdb, 0, 64);
	for (len = 0; len < 32; len++) {
		buf = malloc(len ? len : 1);
		n = 0;
		KT_EXPECT_EQ(kt_alua_rtpg(cdb, two_groups, 2, 0, buf, len, &n,
					  &f), KT_SENSE_NONE);
		KT_EXPECT_EQ(n, 32);
		if (len >= 4)
			KT_EXPECT_EQ(get_unaligned_be32(&buf[0]), 28);
		free(buf);
	}
}

static void rtpg_reserved_format_is_invalid_cdb_field(void)
{
	struct kt_sense_field f;
	u8 cdb[12], buf[8];
	u32 n = 0;

	rtpg_cdb(cdb, 2, 8);
	KT_EXPECT_EQ(kt_alua_rtpg(cdb, two_groups, 2, 0, buf, 8, &n, &f),
		     KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT(f.valid && f.in_cdb && f.byte == 1 && f.bit == 7);
}

static void rtpg_no_groups_is_header_only(void)
{
	struct kt_sense_field f;
	u8 cdb[12], buf[8];
	u32 n = 0;

	rtpg_cdb(cdb, 0, 8);
	KT_EXPECT_EQ(kt_alua_rtpg(cdb, NULL, 0, 0, buf, 8, &n, &f),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(n, 4);
	KT_EXPECT_EQ(get_unaligned_be32(&buf[0]), 0);
}

static sense_reason_t stpg(const u8 *param, u32 len,
			   struct kt_alua_stpg_desc *out, unsigned int max,
			   unsigned int *nr, struct kt_sense_field *f)
{
	u8 *p = malloc(len ? len : 1);
	sense_reason_t ret;

	memcpy(p, param, len);
	ret = kt_alua_stpg_parse(p, len, out, max, nr, f);
	free(p);
	return ret;
}

static void stpg_two_descriptors_parse(void)
{
	const u8 param[] = { 0, 0, 0, 0,
			     0x02, 0, 0x00, 0x07,
			     0xf0, 0, 0x01, 0x00 };	/* high nibble ignored */
	struct kt_alua_stpg_desc d[4];
	struct kt_sense_field f;
	unsigned int nr = 9;

	KT_EXPECT_EQ(stpg(param, sizeof(param), d, 4, &nr, &f),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(nr, 2);
	KT_EXPECT_EQ(d[0].state, KT_ALUA_STANDBY);
	KT_EXPECT_EQ(d[0].id, 7);
	KT_EXPECT_EQ(d[1].state, KT_ALUA_AO);
	KT_EXPECT_EQ(d[1].id, 0x100);
}

static void stpg_empty_list_changes_nothing(void)
{
	struct kt_alua_stpg_desc d[1];
	struct kt_sense_field f;
	unsigned int nr = 9;

	KT_EXPECT_EQ(kt_alua_stpg_parse(NULL, 0, d, 1, &nr, &f),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(nr, 0);
	KT_EXPECT_EQ(stpg((const u8 *)"\0\0\0\0", 4, d, 1, &nr, &f),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(nr, 0);
}

static void stpg_partial_descriptor_is_length_error(void)
{
	const u8 param[] = { 0, 0, 0, 0, 0x02, 0, 0 };
	struct kt_alua_stpg_desc d[4];
	struct kt_sense_field f;
	unsigned int nr;

	KT_EXPECT_EQ(stpg(param, 3, d, 4, &nr, &f),
		     KT_SENSE_PARAM_LIST_LENGTH);
	KT_EXPECT_EQ(stpg(param, sizeof(param), d, 4, &nr, &f),
		     KT_SENSE_PARAM_LIST_LENGTH);
}

static void stpg_secondary_or_reserved_state_points_at_it(void)
{
	const u8 param[] = { 0, 0, 0, 0,
			     0x01, 0, 0, 1,
			     0x0e, 0, 0, 1 };	/* offline: a port state */
	struct kt_alua_stpg_desc d[4];
	struct kt_sense_field f;
	unsigned int nr;
	u8 p[8] = { 0, 0, 0, 0, 0, 0, 0, 1 };
	u8 s;

	KT_EXPECT_EQ(stpg(param, sizeof(param), d, 4, &nr, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	KT_EXPECT(f.valid && !f.in_cdb && f.byte == 8 && f.bit_valid &&
		  f.bit == 3);
	for (s = 4; s < 16; s++) {
		p[4] = s;
		KT_EXPECT_EQ(stpg(p, 8, d, 4, &nr, &f),
			     KT_SENSE_INVALID_PARAM_FIELD);
	}
}

static void stpg_more_descriptors_than_room_is_length_error(void)
{
	const u8 param[] = { 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2 };
	struct kt_alua_stpg_desc d[1];
	struct kt_sense_field f;
	unsigned int nr;

	KT_EXPECT_EQ(stpg(param, sizeof(param), d, 1, &nr, &f),
		     KT_SENSE_PARAM_LIST_LENGTH);
}

static void access_active_states_allow_everything(void)
{
	const u8 read10[10] = { 0x28 }, write10[10] = { 0x2a };
	const u8 tur[6] = { 0x00 };

	KT_EXPECT_EQ(kt_alua_access_check(KT_ALUA_AO, kt_cdb_desc_find(read10, 2)), 0);
	KT_EXPECT_EQ(kt_alua_access_check(KT_ALUA_AO, kt_cdb_desc_find(write10, 2)), 0);
	KT_EXPECT_EQ(kt_alua_access_check(KT_ALUA_ANO, kt_cdb_desc_find(read10, 2)), 0);
	KT_EXPECT_EQ(kt_alua_access_check(KT_ALUA_ANO, kt_cdb_desc_find(tur, 2)), 0);
}

static void access_standby_refuses_media_with_040b(void)
{
	const u8 read10[10] = { 0x28 }, tur[6] = { 0x00 };
	const u8 mode_sense[6] = { 0x1a }, prin[10] = { 0x5e };
	const u8 inquiry[6] = { 0x12 }, rtpg[12] = { 0xa3, 0x0a };
	const u8 stpg_cdb[12] = { 0xa4, 0x0a }, rsoc[12] = { 0xa3, 0x0c };
	const u8 maint_in_other[12] = { 0xa3, 0x05 };

	KT_EXPECT_EQ(kt_alua_access_check(KT_ALUA_STANDBY, kt_cdb_desc_find(read10, 2)), 0x040b);
	KT_EXPECT_EQ(kt_alua_access_check(KT_ALUA_STANDBY, kt_cdb_desc_find(tur, 2)), 0x040b);
	KT_EXPECT_EQ(kt_alua_access_check(KT_ALUA_STANDBY, kt_cdb_desc_find(maint_in_other, 2)),
		     0x040b);
	KT_EXPECT_EQ(kt_alua_access_check(KT_ALUA_STANDBY, kt_cdb_desc_find(mode_sense, 2)), 0);
	KT_EXPECT_EQ(kt_alua_access_check(KT_ALUA_STANDBY, kt_cdb_desc_find(prin, 2)), 0);
	KT_EXPECT_EQ(kt_alua_access_check(KT_ALUA_STANDBY, kt_cdb_desc_find(inquiry, 2)), 0);
	KT_EXPECT_EQ(kt_alua_access_check(KT_ALUA_STANDBY, kt_cdb_desc_find(rtpg, 2)), 0);
	KT_EXPECT_EQ(kt_alua_access_check(KT_ALUA_STANDBY, kt_cdb_desc_find(stpg_cdb, 2)), 0);
	KT_EXPECT_EQ(kt_alua_access_check(KT_ALUA_STANDBY, kt_cdb_desc_find(rsoc, 2)), 0);
}

static void access_unavailable_transitioning_offline_ascq(void)
{
	const u8 read10[10] = { 0x28 }, mode_sense[6] = { 0x1a };
	const u8 report_luns[12] = { 0xa0 }, rs[6] = { 0x03 };

	KT_EXPECT_EQ(kt_alua_access_check(KT_ALUA_UNAVAILABLE, kt_cdb_desc_find(read10, 2)),
		     0x040c);
	KT_EXPECT_EQ(kt_alua_access_check(KT_ALUA_UNAVAILABLE, kt_cdb_desc_find(mode_sense, 2)),
		     0x040c);
	KT_EXPECT_EQ(kt_alua_access_check(KT_ALUA_TRANSITIONING, kt_cdb_desc_find(read10, 2)),
		     0x040a);
	KT_EXPECT_EQ(kt_alua_access_check(KT_ALUA_OFFLINE, kt_cdb_desc_find(read10, 2)), 0x0412);
	KT_EXPECT_EQ(kt_alua_access_check(KT_ALUA_UNAVAILABLE, kt_cdb_desc_find(report_luns, 2)),
		     0);
	KT_EXPECT_EQ(kt_alua_access_check(KT_ALUA_TRANSITIONING, kt_cdb_desc_find(rs, 2)), 0);
	KT_EXPECT_EQ(kt_alua_access_check(KT_ALUA_OFFLINE, kt_cdb_desc_find(report_luns, 2)), 0);
}

static void state_sup_bits_match_spc4(void)
{
	KT_EXPECT_EQ(kt_alua_state_sup(KT_ALUA_AO), 0x01);
	KT_EXPECT_EQ(kt_alua_state_sup(KT_ALUA_ANO), 0x02);
	KT_EXPECT_EQ(kt_alua_state_sup(KT_ALUA_STANDBY), 0x04);
	KT_EXPECT_EQ(kt_alua_state_sup(KT_ALUA_UNAVAILABLE), 0x08);
	KT_EXPECT_EQ(kt_alua_state_sup(KT_ALUA_LBA_DEPENDENT), 0x10);
	KT_EXPECT_EQ(kt_alua_state_sup(KT_ALUA_OFFLINE), 0x40);
	KT_EXPECT_EQ(kt_alua_state_sup(KT_ALUA_TRANSITIONING), 0x80);
	KT_EXPECT_EQ(kt_alua_state_sup(5), 0);
}

static const struct kt_test tests[] = {
	KT_TEST_ENTRY(rtpg_length_format_lists_groups_and_ports),
	KT_TEST_ENTRY(rtpg_extended_header_has_format_and_time),
	KT_TEST_ENTRY(rtpg_truncated_to_allocation_keeps_full_length),
	KT_TEST_ENTRY(rtpg_reserved_format_is_invalid_cdb_field),
	KT_TEST_ENTRY(rtpg_no_groups_is_header_only),
	KT_TEST_ENTRY(stpg_two_descriptors_parse),
	KT_TEST_ENTRY(stpg_empty_list_changes_nothing),
	KT_TEST_ENTRY(stpg_partial_descriptor_is_length_error),
	KT_TEST_ENTRY(stpg_secondary_or_reserved_state_points_at_it),
	KT_TEST_ENTRY(stpg_more_descriptors_than_room_is_length_error),
	KT_TEST_ENTRY(access_active_states_allow_everything),
	KT_TEST_ENTRY(access_standby_refuses_media_with_040b),
	KT_TEST_ENTRY(access_unavailable_transitioning_offline_ascq),
	KT_TEST_ENTRY(state_sup_bits_match_spc4),
};

KT_TEST_MAIN(tests)
