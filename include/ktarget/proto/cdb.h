/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SCSI CDB decoding: a pure function over the CDB bytes, built into
 * ktarget_core and into the userspace unit and fuzz tests.
 *
 * References: SPC-4 4.2.5 (CDB formats), SBC-3 5 (command descriptions).
 */
#ifndef KTARGET_PROTO_CDB_H
#define KTARGET_PROTO_CDB_H

#include <linux/bits.h>
#include <linux/types.h>

#define KT_CDB_MAX_LEN		260	/* SPC-4 4.2.5.3: 8 + 252 additional */

/* Where the LBA and transfer length sit in a CDB (SBC-3 5.x). */
enum kt_cdb_layout {
	KT_CDB_NONE = 0,	/* no LBA / transfer length */
	KT_CDB_RW6,		/* 21-bit LBA, 8-bit length, 0 means 256 */
	KT_CDB_RW10,		/* 32-bit LBA at 2, 16-bit length at 7 */
	KT_CDB_RW12,		/* 32-bit LBA at 2, 32-bit length at 6 */
	KT_CDB_RW16,		/* 64-bit LBA at 2, 32-bit length at 10 */
	KT_CDB_CAW16,		/* 64-bit LBA at 2, 8-bit length at 13 */
};

/* Bits of struct kt_cdb.flags */
#define KT_CDB_F_FUA		BIT(0)	/* force unit access */
#define KT_CDB_F_DPO		BIT(1)	/* disable page out */
#define KT_CDB_F_DATA_OUT	BIT(2)	/* the command carries blocks to the target */
#define KT_CDB_F_DATA_IN	BIT(3)	/* the command returns blocks */

enum kt_cdb_status {
	KT_CDB_OK = 0,
	KT_CDB_TRUNCATED,	/* buffer shorter than the CDB its opcode implies */
	KT_CDB_BAD_LENGTH,	/* variable-length CDB with an impossible length */
	KT_CDB_UNKNOWN,		/* opcode group with no defined CDB length */
};

struct kt_cdb {
	u64	lba;
	u32	nr_blocks;	/* transfer length in logical blocks */
	u16	len;		/* CDB length in bytes */
	u8	opcode;
	u8	layout;		/* enum kt_cdb_layout */
	u8	flags;		/* KT_CDB_F_* */
	u8	bad_byte;	/* on error: offset of the offending byte */
};

/* Length of the CDB that starts with @opcode, 0 when the group is vendor specific. */
unsigned int kt_cdb_group_len(u8 opcode);

enum kt_cdb_status kt_cdb_decode(const u8 *buf, size_t len, struct kt_cdb *cdb);

/*
 * True when [lba, lba + nr) lies within a device of @capacity blocks;
 * safe against wrap-around for any input.
 */
static inline bool kt_cdb_range_ok(u64 lba, u64 nr, u64 capacity)
{
	return lba <= capacity && nr <= capacity - lba;
}

#endif /* KTARGET_PROTO_CDB_H */
