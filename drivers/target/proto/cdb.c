// SPDX-License-Identifier: GPL-2.0
/*
 * SCSI CDB decoding, table-driven. No allocation, locking or logging here:
 * this file is compiled unchanged into the userspace unit and fuzz tests.
 */
#include <linux/types.h>
#include <linux/errno.h>
#include <asm/unaligned.h>

#include <ktarget/proto/cdb.h>

struct kt_cdb_desc {
	u8 layout;
	u8 flags;
};

#define RD	KT_CDB_F_DATA_IN
#define WR	KT_CDB_F_DATA_OUT
#define CACHE	(KT_CDB_F_FUA | KT_CDB_F_DPO)	/* bits 3 and 4 of byte 1 are FUA, DPO */

/* SBC-3 5: the block commands whose LBA and length the core must range-check. */
static const struct kt_cdb_desc kt_cdb_table[256] = {
	[0x08] = { KT_CDB_RW6,   RD },		/* READ (6) */
	[0x0a] = { KT_CDB_RW6,   WR },		/* WRITE (6) */
	[0x28] = { KT_CDB_RW10,  RD | CACHE },	/* READ (10) */
	[0x2a] = { KT_CDB_RW10,  WR | CACHE },	/* WRITE (10) */
	[0x2e] = { KT_CDB_RW10,  WR | KT_CDB_F_DPO },	/* WRITE AND VERIFY (10) */
	[0x2f] = { KT_CDB_RW10,  KT_CDB_F_DPO },	/* VERIFY (10) */
	[0x34] = { KT_CDB_RW10,  0 },		/* PRE-FETCH (10) */
	[0x35] = { KT_CDB_RW10,  0 },		/* SYNCHRONIZE CACHE (10) */
	[0x41] = { KT_CDB_RW10,  0 },		/* WRITE SAME (10) */
	[0x88] = { KT_CDB_RW16,  RD | CACHE },	/* READ (16) */
	[0x89] = { KT_CDB_CAW16, WR | CACHE },	/* COMPARE AND WRITE */
	[0x8a] = { KT_CDB_RW16,  WR | CACHE },	/* WRITE (16) */
	[0x8b] = { KT_CDB_RW16,  WR | CACHE },	/* ORWRITE (16) */
	[0x8e] = { KT_CDB_RW16,  WR | KT_CDB_F_DPO },	/* WRITE AND VERIFY (16) */
	[0x8f] = { KT_CDB_RW16,  KT_CDB_F_DPO },	/* VERIFY (16) */
	[0x90] = { KT_CDB_RW16,  0 },		/* PRE-FETCH (16) */
	[0x91] = { KT_CDB_RW16,  0 },		/* SYNCHRONIZE CACHE (16) */
	[0x93] = { KT_CDB_RW16,  0 },		/* WRITE SAME (16) */
	[0xa8] = { KT_CDB_RW12,  RD | CACHE },	/* READ (12) */
	[0xaa] = { KT_CDB_RW12,  WR | CACHE },	/* WRITE (12) */
	[0xae] = { KT_CDB_RW12,  WR | KT_CDB_F_DPO },	/* WRITE AND VERIFY (12) */
	[0xaf] = { KT_CDB_RW12,  KT_CDB_F_DPO },	/* VERIFY (12) */
};

#undef RD
#undef WR
#undef CACHE

/* SPC-4 4.2.5.1, table 9: the group code (top three bits) gives the length. */
unsigned int kt_cdb_group_len(u8 opcode)
{
	static const u8 group_len[8] = { 6, 10, 10, 0, 16, 12, 0, 0 };

	return group_len[opcode >> 5];
}

/* SPC-4 4.2.5.3: variable-length CDBs carry 8 + ADDITIONAL CDB LENGTH bytes. */
static enum kt_cdb_status kt_cdb_len(const u8 *buf, size_t len,
				     struct kt_cdb *cdb)
{
	unsigned int n;

	if (buf[0] == 0x7f) {
		if (len < 8) {
			cdb->bad_byte = 0;
			return KT_CDB_TRUNCATED;
		}
		/* the additional length is a multiple of 4, at least 4 */
		if (buf[7] < 4 || buf[7] % 4 || buf[7] > KT_CDB_MAX_LEN - 8) {
			cdb->bad_byte = 7;
			return KT_CDB_BAD_LENGTH;
		}
		n = 8 + buf[7];
	} else {
		n = kt_cdb_group_len(buf[0]);
		if (!n) {
			cdb->bad_byte = 0;
			return KT_CDB_UNKNOWN;
		}
	}

	if (len < n) {
		cdb->bad_byte = 0;
		return KT_CDB_TRUNCATED;
	}
	cdb->len = n;
	return KT_CDB_OK;
}

enum kt_cdb_status kt_cdb_decode(const u8 *buf, size_t len, struct kt_cdb *cdb)
{
	const struct kt_cdb_desc *d;
	enum kt_cdb_status st;

	*cdb = (struct kt_cdb){ 0 };
	if (!len)
		return KT_CDB_TRUNCATED;

	cdb->opcode = buf[0];
	st = kt_cdb_len(buf, len, cdb);
	if (st != KT_CDB_OK)
		return st;

	d = &kt_cdb_table[buf[0]];
	cdb->layout = d->layout;
	cdb->flags = d->flags & (KT_CDB_F_DATA_IN | KT_CDB_F_DATA_OUT);
	if ((d->flags & KT_CDB_F_FUA) && (buf[1] & 0x08))
		cdb->flags |= KT_CDB_F_FUA;
	if ((d->flags & KT_CDB_F_DPO) && (buf[1] & 0x10))
		cdb->flags |= KT_CDB_F_DPO;

	switch (d->layout) {
	case KT_CDB_RW6:
		/* SBC-3 5.15: a TRANSFER LENGTH of 0 means 256 blocks */
		cdb->lba = get_unaligned_be24(&buf[1]) & 0x1fffff;
		cdb->nr_blocks = buf[4] ? buf[4] : 256;
		break;
	case KT_CDB_RW10:
		cdb->lba = get_unaligned_be32(&buf[2]);
		cdb->nr_blocks = get_unaligned_be16(&buf[7]);
		break;
	case KT_CDB_RW12:
		cdb->lba = get_unaligned_be32(&buf[2]);
		cdb->nr_blocks = get_unaligned_be32(&buf[6]);
		break;
	case KT_CDB_RW16:
		cdb->lba = get_unaligned_be64(&buf[2]);
		cdb->nr_blocks = get_unaligned_be32(&buf[10]);
		break;
	case KT_CDB_CAW16:
		cdb->lba = get_unaligned_be64(&buf[2]);
		cdb->nr_blocks = buf[13];
		break;
	default:
		break;
	}
	return KT_CDB_OK;
}
