// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of drivers/target/proto/mmc.c: a CD/DVD LU's command table
 * and its answers (GET CONFIGURATION, GET EVENT STATUS NOTIFICATION, READ
 * TOC, READ DISC and TRACK INFORMATION, MECHANISM STATUS, MODE SENSE page
 * 2Ah). Responses go to buffers malloc'ed to the exact allocation length,
 * so that ASan catches overruns.
 */
#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/unaligned.h>

#include <ktarget/proto/cdb.h>
#include <ktarget/proto/mmc.h>
#include <ktarget/proto/sense.h>
#include <ktarget/proto/spc.h>

#include "kt_test.h"

#define CD_BLOCKS	1000		/* 00:15:25 after 00:02:00 */
#define DVD_BLOCKS	(KT_MMC_CD_MAX_BLOCKS + 1)

typedef sense_reason_t (*builder_t)(const struct kt_lu_info *lu, const u8 *cdb,
				    u8 *buf, u32 buf_len, u32 *data_len,
				    struct kt_sense_field *field);

struct result {
	sense_reason_t	ret;
	u32		data_len;
	struct kt_sense_field field;
	u8		data[1024];
};

static void run(builder_t fn, u64 nr_blocks, const u8 *cdb, u32 alloc,
		struct result *r)
{
	struct kt_lu_info lu = {
		.pdt = TYPE_ROM, .nr_blocks = nr_blocks,
		.block_size = KT_MMC_BLOCK_SIZE,
	};
	u8 *buf = malloc(alloc ? alloc : 1);

	memset(r, 0, sizeof(*r));
	r->ret = fn(&lu, cdb, buf, alloc, &r->data_len, &r->field);
	if (!r->ret)
		memcpy(r->data, buf, r->data_len < alloc ? r->data_len : alloc);
	free(buf);
}

static void mmc_table_is_sorted_and_each_entry_finds_itself(void)
{
	const struct kt_cdb_desc *d, *prev = NULL;
	unsigned int i;
	u8 cdb[16];

	KT_EXPECT(kt_mmc_cmds.nr > 20);
	for (i = 0; i < kt_mmc_cmds.nr; i++) {
		d = &kt_mmc_cmds.descs[i];
		if (prev)
			KT_EXPECT(prev->opcode < d->opcode);
		prev = d;
		KT_EXPECT_EQ(d->len, kt_cdb_group_len(d->opcode));
		KT_EXPECT(!d->has_sa);
		KT_EXPECT(!d->alen_size || d->alen_off + d->alen_size <= d->len - 1U);
		KT_EXPECT(d->run != KT_RUN_NONE && d->run < KT_RUN_NR);
		/* only reads move blocks: what would write is refused */
		KT_EXPECT(!(d->flags & KT_CDB_D_BLOCKS_OUT));
		memset(cdb, 0, sizeof(cdb));
		cdb[0] = d->opcode;
		KT_EXPECT(kt_cdb_desc_find_in(&kt_mmc_cmds, cdb, d->len) == d);
	}
}

static void mmc_table_has_no_sbc_only_command(void)
{
	static const u8 ops[] = { READ_6, WRITE_6, READ_16, WRITE_16, VERIFY,
				  UNMAP, WRITE_SAME, SERVICE_ACTION_IN_16,
				  MODE_SELECT, PERSISTENT_RESERVE_IN,
				  EXTENDED_COPY, MAINTENANCE_IN };
	struct kt_cdb c;
	unsigned int i;
	u8 cdb[16];

	for (i = 0; i < sizeof(ops); i++) {
		memset(cdb, 0, sizeof(cdb));
		cdb[0] = ops[i];
		KT_EXPECT(!kt_cdb_desc_find_in(&kt_mmc_cmds, cdb, sizeof(cdb)));
	}
	/* writes are in the table, refused as read-only; reads are RW */
	cdb[0] = WRITE_10;
	KT_EXPECT_EQ(kt_cdb_decode_in(&kt_mmc_cmds, cdb, 10, &c), KT_CDB_OK);
	KT_EXPECT(c.desc && c.desc->run == KT_RUN_MMC_READ_ONLY);
	cdb[0] = READ_12;
	put_unaligned_be32(7, &cdb[2]);
	put_unaligned_be32(3, &cdb[6]);
	KT_EXPECT_EQ(kt_cdb_decode_in(&kt_mmc_cmds, cdb, 12, &c), KT_CDB_OK);
	KT_EXPECT(c.desc && c.desc->run == KT_RUN_RW);
	KT_EXPECT_EQ(c.lba, 7);
	KT_EXPECT_EQ(c.nr_blocks, 3);
	/* the disk's table is still the default */
	cdb[0] = KT_MMC_GET_CONFIGURATION;
	KT_EXPECT(!kt_cdb_desc_find(cdb, 10));
	KT_EXPECT(!kt_cdb_desc_find_in(NULL, cdb, 10));
}

static void profile_is_cd_up_to_80_minutes_then_dvd(void)
{
	KT_EXPECT_EQ(kt_mmc_profile(1), KT_MMC_PROFILE_CD_ROM);
	KT_EXPECT_EQ(kt_mmc_profile(KT_MMC_CD_MAX_BLOCKS), KT_MMC_PROFILE_CD_ROM);
	KT_EXPECT_EQ(kt_mmc_profile(DVD_BLOCKS), KT_MMC_PROFILE_DVD_ROM);
}

/* the feature at @off: its code, and the offset of the next */
static u32 feature_at(const struct result *r, u32 off, u16 *code)
{
	*code = get_unaligned_be16(&r->data[off]);
	return off + 4 + r->data[off + 3];
}

static void get_configuration_lists_profiles_and_features_cd_current(void)
{
	static const u16 want[] = { 0x0000, 0x0001, 0x0002, 0x0003, 0x0010,
				    0x001e, 0x001f, 0x0100 };
	u8 cdb[10] = { KT_MMC_GET_CONFIGURATION, 0, 0, 0, 0, 0, 0, 0x02, 0 };
	struct result r;
	u32 off = 8, i;
	u16 code;

	run(kt_mmc_get_configuration, CD_BLOCKS, cdb, 512, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[0]), r.data_len - 4);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[6]), KT_MMC_PROFILE_CD_ROM);
	/* profile list: persistent and current, DVD-ROM then CD-ROM (current) */
	KT_EXPECT_EQ(r.data[10], 0x03);
	KT_EXPECT_EQ(r.data[11], 8);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[12]), KT_MMC_PROFILE_DVD_ROM);
	KT_EXPECT_EQ(r.data[14], 0);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[16]), KT_MMC_PROFILE_CD_ROM);
	KT_EXPECT_EQ(r.data[18], 1);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		off = feature_at(&r, off, &code);
		KT_EXPECT_EQ(code, want[i]);
		if (i + 1 == ARRAY_SIZE(want))
			KT_EXPECT_EQ(off, r.data_len);
	}
	/* random readable: 2048-byte blocks, blocking 1; CD Read current */
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[8 + 12 + 12 + 8 + 8]), 0x0010);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[8 + 12 + 12 + 8 + 8 + 4]), 2048);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[8 + 12 + 12 + 8 + 8 + 8]), 1);
}

static void get_configuration_of_a_large_disc_is_dvd(void)
{
	u8 cdb[10] = { KT_MMC_GET_CONFIGURATION, 0x01, 0, 0, 0, 0, 0, 0x02, 0 };
	struct result r;
	u32 off = 8;
	u16 code;
	bool dvd_read = false, cd_read = false;

	/* RT 01b: current features only */
	run(kt_mmc_get_configuration, DVD_BLOCKS, cdb, 512, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[6]), KT_MMC_PROFILE_DVD_ROM);
	KT_EXPECT_EQ(r.data[14], 1);		/* DVD-ROM's CURRENTP */
	while (off < r.data_len) {
		off = feature_at(&r, off, &code);
		dvd_read |= code == 0x001f;
		cd_read |= code == 0x001e;
	}
	KT_EXPECT(dvd_read);
	KT_EXPECT(!cd_read);
}

static void get_configuration_rt2_returns_the_one_feature(void)
{
	u8 cdb[10] = { KT_MMC_GET_CONFIGURATION, 0x02, 0x00, 0x10, 0, 0, 0, 0, 64 };
	struct result r;

	run(kt_mmc_get_configuration, CD_BLOCKS, cdb, 64, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 8 + 12);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[0]), 16);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[8]), 0x0010);
	/* a feature the drive lacks: the header alone */
	cdb[3] = 0x20;
	run(kt_mmc_get_configuration, CD_BLOCKS, cdb, 64, &r);
	KT_EXPECT_EQ(r.data_len, 8);
}

static void get_configuration_header_only_and_bad_rt(void)
{
	u8 cdb[10] = { KT_MMC_GET_CONFIGURATION, 0, 0, 0, 0, 0, 0, 0, 8 };
	struct result r;

	/* what Linux's cdrom driver asks first: 8 bytes, the current profile */
	run(kt_mmc_get_configuration, CD_BLOCKS, cdb, 8, &r);
	KT_EXPECT_EQ(r.data_len, 8);
	KT_EXPECT(get_unaligned_be32(&r.data[0]) > 4);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[6]), KT_MMC_PROFILE_CD_ROM);
	cdb[1] = 0x03;
	run(kt_mmc_get_configuration, CD_BLOCKS, cdb, 8, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(r.field.byte, 1);
}

static void event_status_reports_media_present_when_polled(void)
{
	u8 cdb[10] = { GET_EVENT_STATUS_NOTIFICATION, 0x01, 0, 0, 0x10, 0, 0, 0, 8 };
	struct result r;

	run(kt_mmc_event_status, CD_BLOCKS, cdb, 8, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 8);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[0]), 6);
	KT_EXPECT_EQ(r.data[2], 4);		/* media class, event available */
	KT_EXPECT_EQ(r.data[3], 0x10);
	KT_EXPECT_EQ(r.data[4], 0);		/* NoChg */
	KT_EXPECT_EQ(r.data[5], 0x02);		/* present, closed */
	/* a class the drive has no events of: NEA */
	cdb[4] = 0x02;
	run(kt_mmc_event_status, CD_BLOCKS, cdb, 8, &r);
	KT_EXPECT_EQ(r.data_len, 4);
	KT_EXPECT_EQ(r.data[2], 0x80);
	/* asynchronous operation is refused */
	cdb[1] = 0;
	run(kt_mmc_event_status, CD_BLOCKS, cdb, 8, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(r.field.byte, 1);
	KT_EXPECT_EQ(r.field.bit, 0);
}

static void read_toc_lba_and_msf(void)
{
	u8 cdb[10] = { READ_TOC, 0, 0, 0, 0, 0, 0, 0, 64 };
	struct result r;

	run(kt_mmc_read_toc, CD_BLOCKS, cdb, 64, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 20);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[0]), 18);
	KT_EXPECT_EQ(r.data[2], 1);
	KT_EXPECT_EQ(r.data[3], 1);
	KT_EXPECT_EQ(r.data[5], 0x14);		/* a data track */
	KT_EXPECT_EQ(r.data[6], 1);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[8]), 0);
	KT_EXPECT_EQ(r.data[14], 0xaa);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[16]), CD_BLOCKS);
	/* MSF: 00:02:00, and the lead-out at 1150 frames, 00:15:25 */
	cdb[1] = 0x02;
	run(kt_mmc_read_toc, CD_BLOCKS, cdb, 64, &r);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[8]), 0x00000200);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[16]), 0x00000f19);
	/* from the lead-out: that descriptor alone */
	cdb[6] = 0xaa;
	run(kt_mmc_read_toc, CD_BLOCKS, cdb, 64, &r);
	KT_EXPECT_EQ(r.data_len, 12);
	KT_EXPECT_EQ(r.data[6], 0xaa);
	/* a track the disc does not have */
	cdb[6] = 2;
	run(kt_mmc_read_toc, CD_BLOCKS, cdb, 64, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(r.field.byte, 6);
}

/* 2^32 blocks of 2048 bytes (8 TiB): 32-bit fields saturate, never wrap */
static void read_toc_and_track_size_of_8_tib_saturate(void)
{
	u8 toc[10] = { READ_TOC, 0, 0, 0, 0, 0, 0xaa, 0, 12 };
	u8 ti[10] = { KT_MMC_READ_TRACK_INFO, 0x01, 0, 0, 0, 1, 0, 0, 36 };
	struct result r;

	run(kt_mmc_read_toc, 1ULL << 32, toc, 12, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[8]), 0xffffffff);
	run(kt_mmc_read_toc, (1ULL << 32) + 5, toc, 12, &r);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[8]), 0xffffffff);
	run(kt_mmc_read_toc, 0xffffffffULL, toc, 12, &r);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[8]), 0xffffffff);
	run(kt_mmc_track_info, 1ULL << 32, ti, 36, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[24]), 0xffffffff);
}

static void read_toc_session_full_and_bad_formats(void)
{
	/* the session format as Linux's sr sends it: in the CONTROL byte */
	u8 cdb[10] = { READ_TOC, 0, 0, 0, 0, 0, 0, 0, 12, 0x40 };
	struct result r;

	run(kt_mmc_read_toc, CD_BLOCKS, cdb, 12, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 12);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[0]), 10);
	KT_EXPECT_EQ(r.data[6], 1);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[8]), 0);
	/* full TOC: A0h, A1h, A2h, track 1; the lead-out in MSF */
	cdb[2] = 0x02;
	cdb[8] = 64;
	cdb[9] = 0;
	run(kt_mmc_read_toc, CD_BLOCKS, cdb, 64, &r);
	KT_EXPECT_EQ(r.data_len, 4 + 4 * 11);
	KT_EXPECT_EQ(r.data[4 + 3], 0xa0);
	KT_EXPECT_EQ(r.data[4 + 8], 1);
	KT_EXPECT_EQ(r.data[4 + 22 + 3], 0xa2);
	KT_EXPECT_EQ(r.data[4 + 22 + 8], 0);
	KT_EXPECT_EQ(r.data[4 + 22 + 9], 15);
	KT_EXPECT_EQ(r.data[4 + 22 + 10], 25);
	KT_EXPECT_EQ(r.data[4 + 33 + 3], 1);
	/* PMA, ATIP, CD-TEXT: none */
	cdb[2] = 0x03;
	run(kt_mmc_read_toc, CD_BLOCKS, cdb, 64, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(r.field.byte, 2);
	/* MSF of a DVD past 255 minutes stops at the last address */
	cdb[1] = 0x02;
	cdb[2] = 0;
	run(kt_mmc_read_toc, 0xffffffffULL, cdb, 64, &r);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[16]), 0x00ff3b4a);
}

static void disc_information_says_complete(void)
{
	u8 cdb[10] = { KT_MMC_READ_DISC_INFO, 0, 0, 0, 0, 0, 0, 0, 34 };
	struct result r;

	run(kt_mmc_disc_info, CD_BLOCKS, cdb, 34, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 34);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[0]), 32);
	KT_EXPECT_EQ(r.data[2], 0x0e);
	KT_EXPECT_EQ(r.data[3], 1);
	KT_EXPECT_EQ(r.data[6], 1);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[16]), 0xffffffff);
	/* a short allocation length: cut, the full length still said */
	cdb[8] = 2;
	run(kt_mmc_disc_info, CD_BLOCKS, cdb, 2, &r);
	KT_EXPECT_EQ(r.data_len, 2);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[0]), 32);
	cdb[1] = 0x01;
	run(kt_mmc_disc_info, CD_BLOCKS, cdb, 34, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
}

static void track_information_by_lba_track_and_session(void)
{
	u8 cdb[10] = { KT_MMC_READ_TRACK_INFO, 0x01, 0, 0, 0, 1, 0, 0, 36 };
	struct result r;

	run(kt_mmc_track_info, CD_BLOCKS, cdb, 36, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 36);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[0]), 34);
	KT_EXPECT_EQ(r.data[2], 1);
	KT_EXPECT_EQ(r.data[5], 0x04);
	KT_EXPECT_EQ(r.data[6], 0x01);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[24]), CD_BLOCKS);
	cdb[1] = 0x02;			/* session 1 */
	run(kt_mmc_track_info, CD_BLOCKS, cdb, 36, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	cdb[1] = 0x00;			/* LBA 999, the last */
	put_unaligned_be32(CD_BLOCKS - 1, &cdb[2]);
	run(kt_mmc_track_info, CD_BLOCKS, cdb, 36, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	put_unaligned_be32(CD_BLOCKS, &cdb[2]);
	run(kt_mmc_track_info, CD_BLOCKS, cdb, 36, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
	cdb[1] = 0x01;			/* track 2, the invisible track FFh */
	put_unaligned_be32(2, &cdb[2]);
	run(kt_mmc_track_info, CD_BLOCKS, cdb, 36, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
	put_unaligned_be32(0xff, &cdb[2]);
	run(kt_mmc_track_info, CD_BLOCKS, cdb, 36, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
	cdb[1] = 0x03;
	run(kt_mmc_track_info, CD_BLOCKS, cdb, 36, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
}

static void mechanism_status_is_an_idle_drive(void)
{
	u8 cdb[12] = { KT_MMC_MECHANISM_STATUS, 0, 0, 0, 0, 0, 0, 0, 0, 8 };
	struct result r;

	run(kt_mmc_mech_status, CD_BLOCKS, cdb, 8, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 8);
	KT_EXPECT_EQ(r.data[1], 0);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[6]), 0);
}

static void mode_sense_gives_the_capabilities_page(void)
{
	u8 ms10[10] = { MODE_SENSE_10, 0, 0x2a, 0, 0, 0, 0, 0, 128 };
	u8 ms6[6] = { MODE_SENSE, 0x08, 0x3f, 0, 255 };
	struct result r;

	run(kt_mmc_mode_sense, CD_BLOCKS, ms10, 128, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 8 + 32);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[0]), 8 + 32 - 2);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[6]), 0);	/* no block descriptor */
	KT_EXPECT_EQ(r.data[8], 0x2a);
	KT_EXPECT_EQ(r.data[9], 30);
	KT_EXPECT(r.data[8 + 2] & 0x08);			/* reads DVD-ROM */
	KT_EXPECT_EQ(r.data[8 + 3], 0);				/* writes nothing */
	KT_EXPECT_EQ(r.data[8 + 6] >> 5, 1);			/* a tray */
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[8 + 8]), 32 * 176);
	run(kt_mmc_mode_sense, CD_BLOCKS, ms6, 255, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 4 + 32);
	KT_EXPECT_EQ(r.data[0], 4 + 32 - 1);
	KT_EXPECT_EQ(r.data[4], 0x2a);
	/* changeable: nothing is */
	ms6[2] = 0x40 | 0x2a;
	run(kt_mmc_mode_sense, CD_BLOCKS, ms6, 255, &r);
	KT_EXPECT_EQ(r.data[4 + 2], 0);
	KT_EXPECT_EQ(r.data[4 + 6], 0);
	/* saved values, another page, a subpage */
	ms6[2] = 0xc0 | 0x2a;
	run(kt_mmc_mode_sense, CD_BLOCKS, ms6, 255, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_SAVING_PARAMS_UNSUPPORTED);
	ms6[2] = 0x01;
	run(kt_mmc_mode_sense, CD_BLOCKS, ms6, 255, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(r.field.byte, 2);
	ms6[2] = 0x2a;
	ms6[3] = 0x01;
	run(kt_mmc_mode_sense, CD_BLOCKS, ms6, 255, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(r.field.byte, 3);
}

static const struct kt_test tests[] = {
	KT_TEST_ENTRY(mmc_table_is_sorted_and_each_entry_finds_itself),
	KT_TEST_ENTRY(mmc_table_has_no_sbc_only_command),
	KT_TEST_ENTRY(profile_is_cd_up_to_80_minutes_then_dvd),
	KT_TEST_ENTRY(get_configuration_lists_profiles_and_features_cd_current),
	KT_TEST_ENTRY(get_configuration_of_a_large_disc_is_dvd),
	KT_TEST_ENTRY(get_configuration_rt2_returns_the_one_feature),
	KT_TEST_ENTRY(get_configuration_header_only_and_bad_rt),
	KT_TEST_ENTRY(event_status_reports_media_present_when_polled),
	KT_TEST_ENTRY(read_toc_lba_and_msf),
	KT_TEST_ENTRY(read_toc_session_full_and_bad_formats),
	KT_TEST_ENTRY(read_toc_and_track_size_of_8_tib_saturate),
	KT_TEST_ENTRY(disc_information_says_complete),
	KT_TEST_ENTRY(track_information_by_lba_track_and_session),
	KT_TEST_ENTRY(mechanism_status_is_an_idle_drive),
	KT_TEST_ENTRY(mode_sense_gives_the_capabilities_page),
};

KT_TEST_MAIN(tests)
