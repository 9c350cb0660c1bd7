// SPDX-License-Identifier: GPL-2.0
/*
 * A CD/DVD LU's commands (MMC-6) and the answers only such a LU gives: its
 * features and profiles, events, table of contents, disc and track
 * information, mechanism status and the MM capabilities mode page. No
 * allocation, locking or logging here: this file is compiled unchanged
 * into the userspace unit tests.
 */
#include <linux/types.h>
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/unaligned.h>

#include <ktarget/proto/cdb.h>
#include <ktarget/proto/mmc.h>
#include <ktarget/proto/sense.h>
#include <ktarget/proto/spc.h>

#define OP(op, l)		.opcode = (op), .len = (l)
#define USAGE(...)		.usage = { __VA_ARGS__ }
#define ALEN(off, size)		.alen_off = (off), .alen_size = (size)
#define FOR_TARGET	(KT_CDB_D_NO_LU | KT_CDB_D_NO_UA | KT_CDB_D_IN_SANITIZE | \
			 KT_CDB_D_RESERVED_OK | KT_CDB_D_ALUA_ANY)
/* a command that would change the disc: every field passes, it is refused */
#define REFUSED(op, l)	OP(op, l), .run = KT_RUN_MMC_READ_ONLY, \
			USAGE(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)

/*
 * What a CD/DVD LU answers. The SPC commands share the disk's runs; the
 * block reads are SBC's READ (10)/(12); what would write the disc is
 * refused with DATA PROTECT, WRITE PROTECTED; anything else is an invalid
 * operation code. What tells the drive's and the disc's kind and state
 * (GET CONFIGURATION, GET EVENT STATUS NOTIFICATION, READ TOC) answers in
 * ALUA Standby as MODE SENSE does; the blocks do not. Keep it sorted (a
 * unit test checks).
 */
static const struct kt_cdb_desc kt_mmc_descs[] = {
	{ OP(TEST_UNIT_READY, 6), .run = KT_RUN_GOOD, .pr = KT_PRC_ANY },
	{ OP(REQUEST_SENSE, 6), .run = KT_RUN_REQUEST_SENSE, .flags = FOR_TARGET,
	  .pr = KT_PRC_ANY, ALEN(4, 1), USAGE(0x01, 0, 0, 0xff) },
	{ REFUSED(FORMAT_UNIT, 6) },
	{ OP(INQUIRY, 6), .run = KT_RUN_INQUIRY, .flags = FOR_TARGET, .pr = KT_PRC_ANY,
	  ALEN(3, 2), USAGE(0x01, 0xff, 0xff, 0xff) },
	/* DBD, PC, PAGE CODE, SUBPAGE CODE */
	{ OP(MODE_SENSE, 6), .run = KT_RUN_MMC_MODE_SENSE, .pr = KT_PRC_READ,
	  ALEN(4, 1), USAGE(0x08, 0xff, 0xff, 0xff) },
	/* IMMED, POWER CONDITION, LOEJ, START: the disc stays */
	{ OP(START_STOP, 6), .run = KT_RUN_GOOD, .pr = KT_PRC_START_STOP,
	  USAGE(0x01, 0, 0, 0xf3) },
	/* PERSISTENT, PREVENT */
	{ OP(ALLOW_MEDIUM_REMOVAL, 6), .run = KT_RUN_GOOD, .pr = KT_PRC_PREVENT_ALLOW,
	  USAGE(0, 0, 0, 0x03) },
	{ OP(READ_CAPACITY, 10), .run = KT_RUN_READ_CAPACITY, .pr = KT_PRC_ANY },
	/* DPO, FUA */
	{ OP(READ_10, 10), .run = KT_RUN_RW, .layout = KT_CDB_RW10,
	  .flags = KT_CDB_D_MEDIUM | KT_CDB_D_BLOCKS_IN | KT_CDB_D_DPOFUA,
	  .pr = KT_PRC_READ, USAGE(0x18, 0xff, 0xff, 0xff, 0xff, 0, 0xff, 0xff) },
	{ REFUSED(WRITE_10, 10) },
	{ REFUSED(WRITE_VERIFY, 10) },
	/* IMMED: nothing is ever cached to write */
	{ OP(SYNCHRONIZE_CACHE, 10), .run = KT_RUN_GOOD,
	  USAGE(0x02, 0xff, 0xff, 0xff, 0xff, 0, 0xff, 0xff) },
	/* MSF, FORMAT, TRACK/SESSION NUMBER */
	{ OP(READ_TOC, 10), .run = KT_RUN_MMC_READ_TOC, .pr = KT_PRC_READ,
	  .flags = KT_CDB_D_ALUA_STANDBY, ALEN(7, 2),
	  USAGE(0x02, 0x0f, 0, 0, 0, 0xff, 0xff, 0xff) },
	/* RT, STARTING FEATURE NUMBER */
	{ OP(KT_MMC_GET_CONFIGURATION, 10), .run = KT_RUN_MMC_GET_CONFIG,
	  .flags = KT_CDB_D_ALUA_STANDBY, .pr = KT_PRC_ANY, ALEN(7, 2),
	  USAGE(0x03, 0xff, 0xff, 0, 0, 0, 0xff, 0xff) },
	/* POLLED, NOTIFICATION CLASS REQUEST */
	{ OP(GET_EVENT_STATUS_NOTIFICATION, 10), .run = KT_RUN_MMC_EVENT,
	  .flags = KT_CDB_D_NO_UA | KT_CDB_D_ALUA_STANDBY, .pr = KT_PRC_ANY, ALEN(7, 2),
	  USAGE(0x01, 0, 0, 0xff, 0, 0, 0xff, 0xff) },
	/* DATA TYPE */
	{ OP(KT_MMC_READ_DISC_INFO, 10), .run = KT_RUN_MMC_DISC_INFO, .pr = KT_PRC_READ,
	  ALEN(7, 2), USAGE(0x07, 0, 0, 0, 0, 0, 0xff, 0xff) },
	/* OPEN, ADDRESS/NUMBER TYPE, LOGICAL BLOCK ADDRESS/TRACK/SESSION NUMBER */
	{ OP(KT_MMC_READ_TRACK_INFO, 10), .run = KT_RUN_MMC_TRACK_INFO,
	  .pr = KT_PRC_READ, ALEN(7, 2),
	  USAGE(0x07, 0xff, 0xff, 0xff, 0xff, 0, 0xff, 0xff) },
	{ REFUSED(KT_MMC_RESERVE_TRACK, 10) },
	{ REFUSED(KT_MMC_SEND_OPC, 10) },
	{ REFUSED(KT_MMC_REPAIR_TRACK, 10) },
	/* LLBAA, DBD, PC, PAGE CODE, SUBPAGE CODE */
	{ OP(MODE_SENSE_10, 10), .run = KT_RUN_MMC_MODE_SENSE, .pr = KT_PRC_READ,
	  ALEN(7, 2), USAGE(0x18, 0xff, 0xff, 0, 0, 0, 0xff, 0xff) },
	{ REFUSED(KT_MMC_CLOSE_TRACK, 10) },
	{ REFUSED(KT_MMC_SEND_CUE_SHEET, 10) },
	/* SELECT REPORT */
	{ OP(REPORT_LUNS, 12), .run = KT_RUN_REPORT_LUNS, .flags = FOR_TARGET,
	  .pr = KT_PRC_ANY, ALEN(6, 4), USAGE(0, 0xff, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0) },
	{ REFUSED(KT_MMC_BLANK, 12) },
	/* DPO, FUA, STREAMING */
	{ OP(READ_12, 12), .run = KT_RUN_RW, .layout = KT_CDB_RW12,
	  .flags = KT_CDB_D_MEDIUM | KT_CDB_D_BLOCKS_IN | KT_CDB_D_DPOFUA,
	  .pr = KT_PRC_READ,
	  USAGE(0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x80) },
	{ REFUSED(WRITE_12, 12) },
	/* ROTATIONAL CONTROL, DRIVE READ SPEED, DRIVE WRITE SPEED: taken, ignored */
	{ OP(KT_MMC_SET_CD_SPEED, 12), .run = KT_RUN_GOOD, .pr = KT_PRC_ANY,
	  USAGE(0x03, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0) },
	{ OP(KT_MMC_MECHANISM_STATUS, 12), .run = KT_RUN_MMC_MECH_STATUS,
	  .pr = KT_PRC_ANY, ALEN(8, 2), USAGE(0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0) },
};

const struct kt_cdb_set kt_mmc_cmds = {
	.descs	= kt_mmc_descs,
	.nr	= ARRAY_SIZE(kt_mmc_descs),
};

#undef OP
#undef USAGE
#undef ALEN
#undef FOR_TARGET
#undef REFUSED

u16 kt_mmc_profile(u64 nr_blocks)
{
	return nr_blocks > KT_MMC_CD_MAX_BLOCKS ? KT_MMC_PROFILE_DVD_ROM :
						 KT_MMC_PROFILE_CD_ROM;
}

static sense_reason_t kt_mmc_bad_bit(struct kt_sense_field *field, u16 byte,
				     u8 bit)
{
	*field = KT_FIELD_CDB_BIT(byte, bit);
	return KT_SENSE_INVALID_CDB_FIELD;
}

static sense_reason_t kt_mmc_bad_byte(struct kt_sense_field *field, u16 byte)
{
	*field = KT_FIELD_CDB(byte);
	return KT_SENSE_INVALID_CDB_FIELD;
}

static void kt_mmc_begin(u32 alloc, u8 *buf, u32 buf_len,
			 struct kt_spc_out *o, u32 *data_len,
			 struct kt_sense_field *field)
{
	*data_len = 0;
	*field = (struct kt_sense_field){ 0 };
	kt_spc_out_init(o, buf, buf_len, alloc);
}

/* ------------------------------------------------------------------------
 * GET CONFIGURATION (MMC-6 6.6, features 5.3)
 */

#define RT_ALL		0x0	/* every feature from the starting one */
#define RT_CURRENT	0x1	/* ... that is current */
#define RT_ONE		0x2	/* the starting feature alone */

#define FEAT_PROFILE_LIST	0x0000
#define FEAT_CORE		0x0001
#define FEAT_MORPHING		0x0002
#define FEAT_REMOVABLE		0x0003
#define FEAT_RANDOM_READABLE	0x0010
#define FEAT_CD_READ		0x001e
#define FEAT_DVD_READ		0x001f
#define FEAT_POWER_MGMT		0x0100

/* MMC-6 5.3.3: PHYSICAL INTERFACE STANDARD, SCSI family */
#define KT_MMC_IFACE_SCSI	0x00000001
/* MMC-6 5.3.4: LOADING MECHANISM TYPE 001b (tray), EJECT, LOCK */
#define KT_MMC_MECH_TRAY	(0x1 << 5)
#define KT_MMC_MECH_EJECT	0x08
#define KT_MMC_MECH_LOCK	0x01

/* The features of this drive, in the order GET CONFIGURATION lists them */
static const u16 kt_mmc_features[] = {
	FEAT_PROFILE_LIST, FEAT_CORE, FEAT_MORPHING, FEAT_REMOVABLE,
	FEAT_RANDOM_READABLE, FEAT_CD_READ, FEAT_DVD_READ, FEAT_POWER_MGMT,
};

/* Whether @feature is current with the disc of @profile loaded */
static bool kt_mmc_feature_current(u16 feature, u16 profile)
{
	switch (feature) {
	case FEAT_CD_READ:
		return profile == KT_MMC_PROFILE_CD_ROM;
	case FEAT_DVD_READ:
		return profile == KT_MMC_PROFILE_DVD_ROM;
	}
	return true;
}

/* MMC-6 5.2.2: the feature descriptor header */
static void kt_mmc_feature_hdr(struct kt_spc_out *o, u16 code, u8 version,
			       bool persistent, bool current, u8 len)
{
	kt_spc_out_be16(o, code);
	kt_spc_out_u8(o, version << 2 | (persistent ? 0x02 : 0) |
		      (current ? 0x01 : 0));
	kt_spc_out_u8(o, len);
}

static void kt_mmc_profile_desc(struct kt_spc_out *o, u16 profile, u16 cur)
{
	kt_spc_out_be16(o, profile);
	kt_spc_out_u8(o, profile == cur ? 0x01 : 0);	/* CURRENTP */
	kt_spc_out_u8(o, 0);
}

static void kt_mmc_feature(struct kt_spc_out *o, u16 feature, u16 profile)
{
	bool cur = kt_mmc_feature_current(feature, profile);

	switch (feature) {
	case FEAT_PROFILE_LIST:
		/* MMC-6 5.3.1: the highest-numbered profile first */
		kt_mmc_feature_hdr(o, feature, 0, true, true, 8);
		kt_mmc_profile_desc(o, KT_MMC_PROFILE_DVD_ROM, profile);
		kt_mmc_profile_desc(o, KT_MMC_PROFILE_CD_ROM, profile);
		break;
	case FEAT_CORE:
		/* MMC-6 5.3.2: version 2; no INQ2, no DBE */
		kt_mmc_feature_hdr(o, feature, 2, true, true, 8);
		kt_spc_out_be32(o, KT_MMC_IFACE_SCSI);
		kt_spc_out_fill(o, 0, 4);
		break;
	case FEAT_MORPHING:
		/* MMC-6 5.3.3: events are polled (ASYNC 0), no OCEVENT */
		kt_mmc_feature_hdr(o, feature, 1, true, true, 4);
		kt_spc_out_fill(o, 0, 4);
		break;
	case FEAT_REMOVABLE:
		/* MMC-6 5.3.4: a tray that ejects and locks */
		kt_mmc_feature_hdr(o, feature, 0, true, true, 4);
		kt_spc_out_u8(o, KT_MMC_MECH_TRAY | KT_MMC_MECH_EJECT |
			      KT_MMC_MECH_LOCK);
		kt_spc_out_fill(o, 0, 3);
		break;
	case FEAT_RANDOM_READABLE:
		/* MMC-6 5.3.7: 2048-byte blocks; BLOCKING 16 on a DVD, 1 on a CD */
		kt_mmc_feature_hdr(o, feature, 0, false, cur, 8);
		kt_spc_out_be32(o, KT_MMC_BLOCK_SIZE);
		kt_spc_out_be16(o, profile == KT_MMC_PROFILE_DVD_ROM ? 16 : 1);
		kt_spc_out_fill(o, 0, 2);		/* no PP */
		break;
	case FEAT_CD_READ:
		/* MMC-6 5.3.11: version 2, no CD-Text, C2 or DAP */
		kt_mmc_feature_hdr(o, feature, 2, false, cur, 4);
		kt_spc_out_fill(o, 0, 4);
		break;
	case FEAT_DVD_READ:
		/* MMC-6 5.3.12: version 0, no additional data */
		kt_mmc_feature_hdr(o, feature, 0, false, cur, 0);
		break;
	case FEAT_POWER_MGMT:
		/* MMC-6 5.3.28 */
		kt_mmc_feature_hdr(o, feature, 0, true, true, 0);
		break;
	}
}

sense_reason_t kt_mmc_get_configuration(const struct kt_lu_info *lu,
					const u8 *cdb, u8 *buf, u32 buf_len,
					u32 *data_len,
					struct kt_sense_field *field)
{
	u16 start = get_unaligned_be16(&cdb[2]), f;
	u16 profile = kt_mmc_profile(lu->nr_blocks);
	u8 rt = cdb[1] & 0x03;
	struct kt_spc_out o;
	unsigned int i;

	kt_mmc_begin(get_unaligned_be16(&cdb[7]), buf, buf_len, &o,
		     data_len, field);
	if (rt != RT_ALL && rt != RT_CURRENT && rt != RT_ONE)
		return kt_mmc_bad_bit(field, 1, 1);

	/* MMC-6 5.2.1: the feature header; DATA LENGTH filled in below */
	kt_spc_out_be32(&o, 0);
	kt_spc_out_be16(&o, 0);
	kt_spc_out_be16(&o, profile);
	for (i = 0; i < ARRAY_SIZE(kt_mmc_features); i++) {
		f = kt_mmc_features[i];
		if (f < start || (rt == RT_ONE && f != start))
			continue;
		if (rt == RT_CURRENT && !kt_mmc_feature_current(f, profile))
			continue;
		kt_mmc_feature(&o, f, profile);
	}
	kt_spc_out_set_be32(&o, 0, o.off - 4);
	*data_len = kt_spc_out_len(&o);
	return KT_SENSE_NONE;
}

/* ------------------------------------------------------------------------
 * GET EVENT STATUS NOTIFICATION (MMC-6 6.7)
 */

#define EVENT_CLASS_MEDIA	4		/* NOTIFICATION CLASS 100b */
#define EVENT_SUPPORTED		BIT(EVENT_CLASS_MEDIA)
#define EVENT_NEA		0x80		/* no event available */
#define MEDIA_PRESENT		0x02		/* MEDIA STATUS: present, door closed */

sense_reason_t kt_mmc_event_status(const struct kt_lu_info *lu,
				   const u8 *cdb, u8 *buf, u32 buf_len,
				   u32 *data_len,
				   struct kt_sense_field *field)
{
	struct kt_spc_out o;

	kt_mmc_begin(get_unaligned_be16(&cdb[7]), buf, buf_len, &o,
		     data_len, field);
	/* MMC-6 6.7.2.2: asynchronous operation is not offered */
	if (!(cdb[1] & 0x01))
		return kt_mmc_bad_bit(field, 1, 0);

	if (!(cdb[4] & EVENT_SUPPORTED)) {
		/* none of the classes asked for: the header alone, NEA */
		kt_spc_out_be16(&o, 2);
		kt_spc_out_u8(&o, EVENT_NEA);
		kt_spc_out_u8(&o, EVENT_SUPPORTED);
		*data_len = kt_spc_out_len(&o);
		return KT_SENSE_NONE;
	}
	/* MMC-6 6.7.2.6: the disc never changes: NoChg, present, closed */
	kt_spc_out_be16(&o, 2 + 4);
	kt_spc_out_u8(&o, EVENT_CLASS_MEDIA);
	kt_spc_out_u8(&o, EVENT_SUPPORTED);
	kt_spc_out_u8(&o, 0);			/* MEDIA EVENT CODE: NoChg */
	kt_spc_out_u8(&o, MEDIA_PRESENT);
	kt_spc_out_u8(&o, 0);			/* START SLOT */
	kt_spc_out_u8(&o, 0);			/* END SLOT */
	*data_len = kt_spc_out_len(&o);
	return KT_SENSE_NONE;
}

/* ------------------------------------------------------------------------
 * READ TOC/PMA/ATIP (MMC-6 6.26)
 */

#define TOC_FORMAT_TOC		0x0
#define TOC_FORMAT_SESSION	0x1
#define TOC_FORMAT_FULL		0x2
#define TOC_LEADOUT		0xaa	/* the lead-out's track number */
#define TOC_ADR_CTRL_DATA	0x14	/* ADR 1 (Q position), CONTROL 4 (data) */
#define MSF_OFFSET		150	/* LBA 0 is 00:02:00 */

/* MMC-6 4.2.3.2: LBA to minute, second, frame; past 255 minutes, the last */
static void kt_mmc_msf(u64 lba, u8 *m, u8 *s, u8 *f)
{
	u64 frames = lba + MSF_OFFSET;

	if (frames > 255ULL * 60 * 75 + 59 * 75 + 74)
		frames = 255ULL * 60 * 75 + 59 * 75 + 74;
	*m = frames / (60 * 75);
	*s = (frames / 75) % 60;
	*f = frames % 75;
}

/*
 * A 32-bit LBA or block count: an image of 2^32 blocks of 2048 bytes (8
 * TiB) or more has its lead-out and size past the field, which then says
 * FFFFFFFFh, the most it holds (as READ CAPACITY (10) does), not the low
 * 32 bits
 */
static u32 kt_mmc_u32(u64 v)
{
	return v > U32_MAX ? U32_MAX : v;
}

static void kt_mmc_out_addr(struct kt_spc_out *o, u64 lba, bool msf)
{
	u8 m, s, f;

	if (!msf) {
		kt_spc_out_be32(o, kt_mmc_u32(lba));
		return;
	}
	kt_mmc_msf(lba, &m, &s, &f);
	kt_spc_out_u8(o, 0);
	kt_spc_out_u8(o, m);
	kt_spc_out_u8(o, s);
	kt_spc_out_u8(o, f);
}

static void kt_mmc_toc_desc(struct kt_spc_out *o, u8 track, u64 lba, bool msf)
{
	kt_spc_out_u8(o, 0);
	kt_spc_out_u8(o, TOC_ADR_CTRL_DATA);
	kt_spc_out_u8(o, track);
	kt_spc_out_u8(o, 0);
	kt_mmc_out_addr(o, lba, msf);
}

/* MMC-6 6.26.3.4: one Q sub-channel entry of session 1 with its P-time */
static void kt_mmc_full_toc_desc(struct kt_spc_out *o, u8 point, u8 pmin,
				 u8 psec, u8 pframe)
{
	kt_spc_out_u8(o, 1);			/* SESSION NUMBER */
	kt_spc_out_u8(o, TOC_ADR_CTRL_DATA);
	kt_spc_out_u8(o, 0);			/* TNO: lead-in */
	kt_spc_out_u8(o, point);
	kt_spc_out_fill(o, 0, 4);		/* MIN, SEC, FRAME, ZERO */
	kt_spc_out_u8(o, pmin);
	kt_spc_out_u8(o, psec);
	kt_spc_out_u8(o, pframe);
}

sense_reason_t kt_mmc_read_toc(const struct kt_lu_info *lu, const u8 *cdb,
			       u8 *buf, u32 buf_len, u32 *data_len,
			       struct kt_sense_field *field)
{
	bool msf = cdb[1] & 0x02;
	u8 format = cdb[2] & 0x0f, track = cdb[6], m, s, f;
	struct kt_spc_out o;

	kt_mmc_begin(get_unaligned_be16(&cdb[7]), buf, buf_len, &o,
		     data_len, field);
	/* SFF-8020: FORMAT in the CONTROL byte's bits 7..6 when the field is 0 */
	if (!format)
		format = cdb[9] >> 6;

	kt_spc_out_be16(&o, 0);		/* TOC DATA LENGTH, filled in below */
	kt_spc_out_u8(&o, 1);		/* first track or session */
	kt_spc_out_u8(&o, 1);		/* last track or session */
	switch (format) {
	case TOC_FORMAT_TOC:
		/* a track after the last, other than the lead-out, is none */
		if (track > 1 && track != TOC_LEADOUT)
			return kt_mmc_bad_byte(field, 6);
		if (track <= 1)
			kt_mmc_toc_desc(&o, 1, 0, msf);
		kt_mmc_toc_desc(&o, TOC_LEADOUT, lu->nr_blocks, msf);
		break;
	case TOC_FORMAT_SESSION:
		/* the first track of the last session */
		kt_mmc_toc_desc(&o, 1, 0, msf);
		break;
	case TOC_FORMAT_FULL:
		/* POINT A0h: first track, disc type CD-DA or CD-ROM (00h) */
		kt_mmc_full_toc_desc(&o, 0xa0, 1, 0x00, 0);
		/* A1h: last track; A2h: the lead-out's start */
		kt_mmc_full_toc_desc(&o, 0xa1, 1, 0, 0);
		kt_mmc_msf(lu->nr_blocks, &m, &s, &f);
		kt_mmc_full_toc_desc(&o, 0xa2, m, s, f);
		kt_mmc_msf(0, &m, &s, &f);
		kt_mmc_full_toc_desc(&o, 1, m, s, f);
		break;
	default:
		/* no PMA, ATIP or CD-TEXT on a pressed disc */
		return kt_mmc_bad_bit(field, 2, 3);
	}
	kt_spc_out_set_be16(&o, 0, o.off - 2);
	*data_len = kt_spc_out_len(&o);
	return KT_SENSE_NONE;
}

/* ------------------------------------------------------------------------
 * READ DISC INFORMATION (MMC-6 6.22), READ TRACK INFORMATION (6.27)
 */

#define DISC_INFO_LEN		34	/* standard disc information */
#define TRACK_INFO_LEN		36
/* not erasable, last session complete (11b), disc complete (10b) */
#define DISC_STATUS_COMPLETE	0x0e

sense_reason_t kt_mmc_disc_info(const struct kt_lu_info *lu, const u8 *cdb,
				u8 *buf, u32 buf_len, u32 *data_len,
				struct kt_sense_field *field)
{
	struct kt_spc_out o;

	kt_mmc_begin(get_unaligned_be16(&cdb[7]), buf, buf_len, &o,
		     data_len, field);
	/* DATA TYPE 000b, standard disc information, is all there is */
	if (cdb[1] & 0x07)
		return kt_mmc_bad_bit(field, 1, 2);

	kt_spc_out_be16(&o, DISC_INFO_LEN - 2);
	kt_spc_out_u8(&o, DISC_STATUS_COMPLETE);
	kt_spc_out_u8(&o, 1);		/* NUMBER OF FIRST TRACK ON DISC */
	kt_spc_out_u8(&o, 1);		/* NUMBER OF SESSIONS (LSB) */
	kt_spc_out_u8(&o, 1);		/* FIRST TRACK NUMBER IN LAST SESSION (LSB) */
	kt_spc_out_u8(&o, 1);		/* LAST TRACK NUMBER IN LAST SESSION (LSB) */
	kt_spc_out_u8(&o, 0);		/* no DID, bar code, application code */
	kt_spc_out_u8(&o, 0x00);	/* DISC TYPE: CD-DA or CD-ROM */
	kt_spc_out_fill(&o, 0, 3);	/* the MSBs of the numbers above */
	kt_spc_out_be32(&o, 0);		/* DISC IDENTIFICATION */
	/* a complete disc: no next lead-in, no last possible lead-out */
	kt_spc_out_be32(&o, 0xffffffff);
	kt_spc_out_be32(&o, 0xffffffff);
	kt_spc_out_fill(&o, 0, 8);	/* DISC BAR CODE */
	kt_spc_out_u8(&o, 0);		/* DISC APPLICATION CODE */
	kt_spc_out_u8(&o, 0);		/* NUMBER OF OPC TABLES */
	*data_len = kt_spc_out_len(&o);
	return KT_SENSE_NONE;
}

#define TRACK_BY_LBA		0x0
#define TRACK_BY_NUMBER		0x1
#define TRACK_BY_SESSION	0x2
#define TRACK_MODE_DATA		0x04	/* data, recorded uninterrupted */
#define DATA_MODE_1		0x01

sense_reason_t kt_mmc_track_info(const struct kt_lu_info *lu, const u8 *cdb,
				 u8 *buf, u32 buf_len, u32 *data_len,
				 struct kt_sense_field *field)
{
	u32 n = get_unaligned_be32(&cdb[2]);
	struct kt_spc_out o;
	bool ok;

	kt_mmc_begin(get_unaligned_be16(&cdb[7]), buf, buf_len, &o,
		     data_len, field);
	switch (cdb[1] & 0x03) {
	case TRACK_BY_LBA:
		ok = n < lu->nr_blocks;
		break;
	case TRACK_BY_NUMBER:
	case TRACK_BY_SESSION:
		/* one session, one track; no invisible or incomplete track */
		ok = n == 1;
		break;
	default:
		return kt_mmc_bad_bit(field, 1, 1);
	}
	if (!ok)
		return kt_mmc_bad_byte(field, 2);

	kt_spc_out_be16(&o, TRACK_INFO_LEN - 2);
	kt_spc_out_u8(&o, 1);			/* TRACK NUMBER (LSB) */
	kt_spc_out_u8(&o, 1);			/* SESSION NUMBER (LSB) */
	kt_spc_out_u8(&o, 0);
	kt_spc_out_u8(&o, TRACK_MODE_DATA);
	kt_spc_out_u8(&o, DATA_MODE_1);		/* not blank, not packet */
	kt_spc_out_u8(&o, 0);			/* no NWA, no LRA */
	kt_spc_out_be32(&o, 0);			/* TRACK START ADDRESS */
	kt_spc_out_be32(&o, 0);			/* NEXT WRITABLE ADDRESS */
	kt_spc_out_be32(&o, 0);			/* FREE BLOCKS */
	kt_spc_out_be32(&o, 0);			/* FIXED PACKET SIZE */
	kt_spc_out_be32(&o, kt_mmc_u32(lu->nr_blocks));	/* TRACK SIZE */
	kt_spc_out_be32(&o, 0);			/* LAST RECORDED ADDRESS */
	kt_spc_out_u8(&o, 0);			/* TRACK NUMBER (MSB) */
	kt_spc_out_u8(&o, 0);			/* SESSION NUMBER (MSB) */
	kt_spc_out_fill(&o, 0, 2);
	*data_len = kt_spc_out_len(&o);
	return KT_SENSE_NONE;
}

/* ------------------------------------------------------------------------
 * MECHANISM STATUS (MMC-6 6.10)
 */

sense_reason_t kt_mmc_mech_status(const struct kt_lu_info *lu, const u8 *cdb,
				  u8 *buf, u32 buf_len, u32 *data_len,
				  struct kt_sense_field *field)
{
	struct kt_spc_out o;

	kt_mmc_begin(get_unaligned_be16(&cdb[8]), buf, buf_len, &o,
		     data_len, field);
	/* no fault, no changer, slot 0, idle, door closed, no slot tables */
	kt_spc_out_fill(&o, 0, 8);
	*data_len = kt_spc_out_len(&o);
	return KT_SENSE_NONE;
}

/* ------------------------------------------------------------------------
 * MODE SENSE (6)/(10): MM Capabilities and Mechanical Status (2Ah)
 */

#define PC_CHANGEABLE	0x1
#define PC_SAVED	0x3
#define PAGE_MM_CAPS	0x2a
#define PAGE_ALL	0x3f
#define SUBPAGE_ALL	0xff
#define MM_CAPS_LEN	32		/* no write speed descriptors */
/* reads CD-R, CD-RW and DVD-ROM media; multi-session */
#define MM_CAPS_READ	0x0b
#define MM_CAPS_MULTI	0x40
/* in kB/s: 32x CD (176 kB/s each), what Linux's sr reports as its speed */
#define MM_CAPS_SPEED	(32 * 176)

static void kt_mmc_page_mm_caps(struct kt_spc_out *o, u8 pc)
{
	kt_spc_out_u8(o, PAGE_MM_CAPS);
	kt_spc_out_u8(o, MM_CAPS_LEN - 2);
	if (pc == PC_CHANGEABLE) {
		kt_spc_out_fill(o, 0, MM_CAPS_LEN - 2);	/* nothing is */
		return;
	}
	kt_spc_out_u8(o, MM_CAPS_READ);
	kt_spc_out_u8(o, 0);			/* writes nothing */
	kt_spc_out_u8(o, MM_CAPS_MULTI);
	kt_spc_out_u8(o, 0);			/* no CD-DA, C2, ISRC, UPC */
	kt_spc_out_u8(o, KT_MMC_MECH_TRAY | KT_MMC_MECH_EJECT | KT_MMC_MECH_LOCK);
	kt_spc_out_u8(o, 0);
	kt_spc_out_be16(o, MM_CAPS_SPEED);	/* obsolete: maximum read speed */
	kt_spc_out_be16(o, 0);			/* NUMBER OF VOLUME LEVELS */
	kt_spc_out_be16(o, 0);			/* BUFFER SIZE SUPPORTED */
	kt_spc_out_be16(o, MM_CAPS_SPEED);	/* obsolete: current read speed */
	kt_spc_out_fill(o, 0, MM_CAPS_LEN - 16);
}

sense_reason_t kt_mmc_mode_sense(const struct kt_lu_info *lu, const u8 *cdb,
				 u8 *buf, u32 buf_len, u32 *data_len,
				 struct kt_sense_field *field)
{
	bool ten = cdb[0] == MODE_SENSE_10;
	u8 pc = cdb[2] >> 6, page = cdb[2] & 0x3f, subpage = cdb[3];
	u32 hdr = ten ? 8 : 4;
	struct kt_spc_out o;

	kt_mmc_begin(ten ? get_unaligned_be16(&cdb[7]) : cdb[4], buf,
		     buf_len, &o, data_len, field);
	if (pc == PC_SAVED) {
		*field = KT_FIELD_CDB_BIT(2, 7);
		return KT_SENSE_SAVING_PARAMS_UNSUPPORTED;
	}
	if (page != PAGE_MM_CAPS && page != PAGE_ALL)
		return kt_mmc_bad_bit(field, 2, 5);
	if (subpage && !(page == PAGE_ALL && subpage == SUBPAGE_ALL))
		return kt_mmc_bad_byte(field, 3);

	/* the mode parameter header; MMC has no block descriptors */
	kt_spc_out_fill(&o, 0, hdr);
	kt_mmc_page_mm_caps(&o, pc);
	if (ten)
		kt_spc_out_set_be16(&o, 0, o.off - 2);
	else
		kt_spc_out_set(&o, 0, o.off - 1);
	*data_len = kt_spc_out_len(&o);
	return KT_SENSE_NONE;
}
