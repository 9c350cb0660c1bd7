/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The commands ktarget implements, one descriptor each (kt_cdb_descs[]),
 * and CDB decoding: pure code over the CDB bytes, built into ktarget_core
 * and into the userspace unit and fuzz tests. Opcodes go by their
 * <scsi/scsi_proto.h> names.
 *
 * References: SPC-4 4.2.5 (CDB formats), SBC-3 5 (command descriptions).
 */
#ifndef KTARGET_PROTO_CDB_H
#define KTARGET_PROTO_CDB_H

#include <linux/bits.h>
#include <linux/types.h>
#include <scsi/scsi_proto.h>

#define KT_CDB_MAX_LEN		260	/* SPC-4 4.2.5.3: 8 + 252 additional */

/* Operation codes and service actions <scsi/scsi_proto.h> (6.1) lacks */
#ifndef SANITIZE
#define SANITIZE		0x48	/* SBC-3 5.19 */
#endif
#ifndef ORWRITE_16
#define ORWRITE_16		0x8b	/* SBC-3 5.9 */
#endif
#ifndef PRE_FETCH_16
#define PRE_FETCH_16		0x90	/* SBC-3 5.11 */
#endif
#ifndef WRITE_ATOMIC_16
#define WRITE_ATOMIC_16		0x9c	/* SBC-4 5.48 (6.11's scsi_proto.h) */
#endif
#ifndef READ_DEFECT_DATA_12
#define READ_DEFECT_DATA_12	0xb7	/* SBC-3 5.18 */
#endif
#define KT_SA_XCOPY_LID1	0x00	/* SPC-4 6.3: EXTENDED COPY (LID1) */
#define KT_SA_RCR_COPY_STATUS	0x00	/* SPC-4 6.18: RECEIVE COPY STATUS (LID1) */
#define KT_SA_RCR_OPERATING	0x03	/* ... RECEIVE COPY OPERATING PARAMETERS */
#define KT_SA_RCR_FAILURE	0x04	/* ... RECEIVE COPY FAILURE DETAILS (LID1) */
#define KT_SA_RCR_ROD_INFO	0x07	/* ... RECEIVE ROD TOKEN INFORMATION */
#define KT_SA_POPULATE_TOKEN	0x10	/* SBC-3: POPULATE TOKEN */
#define KT_SA_WRITE_USING_TOKEN	0x11	/* SBC-3: WRITE USING TOKEN */

/* Where the LBA and transfer length sit in a CDB (SBC-3 5.x). */
enum kt_cdb_layout {
	KT_CDB_NONE = 0,	/* no LBA / transfer length */
	KT_CDB_RW6,		/* 21-bit LBA, 8-bit length, 0 means 256 */
	KT_CDB_RW10,		/* 32-bit LBA at 2, 16-bit length at 7 */
	KT_CDB_RW12,		/* 32-bit LBA at 2, 32-bit length at 6 */
	KT_CDB_RW16,		/* 64-bit LBA at 2, 32-bit length at 10 */
	KT_CDB_CAW16,		/* 64-bit LBA at 2, 8-bit length at 13 */
	KT_CDB_ATOMIC16,	/* 64-bit LBA at 2, 16-bit length at 12 */
};

/* What a command needs the LU to offer before it exists (kt_cdb_desc.gate) */
enum kt_cdb_gate {
	KT_GATE_ALWAYS = 0,
	KT_GATE_PR,		/* emulate_pr */
	KT_GATE_CAW,		/* emulate_caw */
	KT_GATE_TPU,		/* emulate_tpu */
	KT_GATE_LBP,		/* emulate_tpu or emulate_tpws */
	KT_GATE_3PC,		/* emulate_3pc */
	KT_GATE_ROD,		/* emulate_3pc, and tokens can be kept (KT_LU_ROD) */
	KT_GATE_ALUA,		/* TPGS not zero */
	KT_GATE_ALUA_EXPL,	/* explicit ALUA */
	KT_GATE_BLOCK_ERASE,	/* the backstore can BLOCK ERASE */
	KT_GATE_ATOMIC,		/* the LU writes atomically (atomic_max_len) */
};

/* SPC-4 5.13.1, SBC-3 4.17: how a command meets reservations (kt_cdb_desc.pr) */
enum kt_cdb_pr {
	KT_PRC_WRITE = 0,	/* changes the medium or the LU's state */
	KT_PRC_READ,		/* reads the medium or the LU's state */
	KT_PRC_ANY,		/* allowed through every reservation */
	KT_PRC_RESV,		/* RESERVE / RELEASE (6)/(10) */
	KT_PRC_START_STOP,	/* ANY when it only STARTs, else WRITE */
	KT_PRC_PREVENT_ALLOW,	/* ANY when it ALLOWs, else WRITE */
};

/* Which of the core's functions takes a command on (kt_cdb_desc.run) */
enum kt_cdb_run {
	KT_RUN_NONE = 0,	/* an entry that forgot its .run: refused */
	KT_RUN_GOOD,		/* nothing to do but answer GOOD */
	KT_RUN_REQUEST_SENSE,
	KT_RUN_INQUIRY,
	KT_RUN_REPORT_LUNS,
	KT_RUN_MODE_SENSE,
	KT_RUN_MODE_SELECT,
	KT_RUN_READ_CAPACITY,	/* (10) and (16) */
	KT_RUN_READ_DEFECT,
	KT_RUN_GET_LBA_STATUS,
	KT_RUN_RSOC,
	KT_RUN_RSTMF,
	KT_RUN_RTPG,
	KT_RUN_STPG,
	KT_RUN_XCOPY,
	KT_RUN_RECEIVE_COPY,
	KT_RUN_POPULATE_TOKEN,
	KT_RUN_WRITE_USING_TOKEN,
	KT_RUN_RESERVE,		/* RESERVE and RELEASE (6)/(10) */
	KT_RUN_PR,		/* PERSISTENT RESERVE IN and OUT */
	KT_RUN_RW,		/* READ, WRITE, WRITE AND VERIFY */
	KT_RUN_VERIFY,
	KT_RUN_CAW,
	KT_RUN_ORWRITE,
	KT_RUN_PRE_FETCH,
	KT_RUN_SYNC_CACHE,
	KT_RUN_WRITE_SAME,
	KT_RUN_UNMAP,
	KT_RUN_SANITIZE,
	KT_RUN_REPORT_ID_INFO,	/* REPORT IDENTIFYING INFORMATION */
	KT_RUN_WRITE_ATOMIC,	/* WRITE ATOMIC (16) */
	KT_RUN_FORMAT,		/* FORMAT UNIT */
	/* MMC-6, a CD/DVD LU's own (proto/mmc.c's table) */
	KT_RUN_MMC_READ_ONLY,	/* changes the medium: refused, it is read-only */
	KT_RUN_MMC_MODE_SENSE,	/* MODE SENSE (6)/(10): the MM capabilities page */
	KT_RUN_MMC_GET_CONFIG,	/* GET CONFIGURATION */
	KT_RUN_MMC_EVENT,	/* GET EVENT STATUS NOTIFICATION */
	KT_RUN_MMC_READ_TOC,	/* READ TOC/PMA/ATIP */
	KT_RUN_MMC_DISC_INFO,	/* READ DISC INFORMATION */
	KT_RUN_MMC_TRACK_INFO,	/* READ TRACK INFORMATION */
	KT_RUN_MMC_MECH_STATUS,	/* MECHANISM STATUS */
	KT_RUN_NR
};

/* Bits of struct kt_cdb_desc.flags */
#define KT_CDB_D_DPOFUA		BIT(0)	/* DPO/FUA of byte 1 follow the LU's DPOFUA */
#define KT_CDB_D_WS_UNMAP	BIT(1)	/* UNMAP of byte 1 follows emulate_tpws */
#define KT_CDB_D_LONG		BIT(2)	/* may take long: longer recommended timeout */
#define KT_CDB_D_PARAM		BIT(3)	/* .alen_* is a PARAMETER LIST LENGTH */
#define KT_CDB_D_PROTECT	BIT(4)	/* byte 1 bits 7..5: RD/WR/VR/ORPROTECT */
#define KT_CDB_D_BLOCKS_IN	BIT(5)	/* returns logical blocks */
#define KT_CDB_D_BLOCKS_OUT	BIT(6)	/* carries logical blocks to the target */
/* exemptions: what a command is answered in spite of */
#define KT_CDB_D_NO_LU		BIT(7)	/* answered for a LUN with no LU (SPC-4 4.6.5) */
#define KT_CDB_D_NO_UA		BIT(8)	/* reports no unit attention (SAM-5 5.14) */
#define KT_CDB_D_IN_SANITIZE	BIT(9)	/* runs while a SANITIZE does (SBC-3 4.11) */
#define KT_CDB_D_RESERVED_OK	BIT(10)	/* passes another nexus's RESERVE (SPC-2 5.5.1) */
#define KT_CDB_D_ALUA_STANDBY	BIT(11)	/* runs in Standby (SPC-4 5.15.2.4.4) */
#define KT_CDB_D_ALUA_ANY	BIT(12)	/* runs in every ALUA state (SPC-4 5.15.2.4.5) */
/* reaches the medium: refused once a SANITIZE failed (SBC-3 4.11.2) */
#define KT_CDB_D_MEDIUM		BIT(13)
/*
 * changes blocks its data does not carry (WRITE SAME, SANITIZE): those of
 * its LBA range, or, without one, any. UNMAP names its blocks in its
 * parameter list and watches them as it unmaps them (sbc.c).
 */
#define KT_CDB_D_CHANGES	BIT(14)

/*
 * One command ktarget implements: an operation code, or an operation code
 * and service action. Decoding, the reserved-bit checks, REPORT SUPPORTED
 * OPERATION CODES, the unit attention, reservation, ALUA and SANITIZE
 * gates and the core's dispatch (.run) all read it; kt_cdb_descs[] holds
 * them all.
 */
struct kt_cdb_desc {
	u8	opcode;
	u8	sa;		/* SERVICE ACTION in byte 1 bits 4..0, with has_sa */
	u8	has_sa;
	u8	len;		/* CDB length */
	u8	layout;		/* enum kt_cdb_layout */
	u8	run;		/* enum kt_cdb_run */
	u8	gate;		/* enum kt_cdb_gate */
	u8	pr;		/* enum kt_cdb_pr */
	u8	alen_off;	/* ALLOCATION / PARAMETER LIST LENGTH field */
	u8	alen_size;	/* its size in bytes, 0 if none */
	u16	flags;		/* KT_CDB_D_* */
	/*
	 * SPC-4 6.35.3: CDB USAGE DATA from byte 1 on (byte 0 is the
	 * operation code). The service action sits where the CDB has it,
	 * every other bit is one when the device server looks at it. The
	 * CONTROL byte is zero here and checked on its own.
	 */
	u8	usage[15];
};

/* Sorted by operation code and service action, the order RSOC lists them in */
extern const struct kt_cdb_desc kt_cdb_descs[];
extern const unsigned int kt_cdb_nr_descs;

/*
 * A device type's command set: its descriptors, sorted as kt_cdb_descs[].
 * A direct-access block device has kt_cdb_descs[] (kt_sbc_cmds), a CD/DVD
 * device kt_mmc_descs[] (kt_mmc_cmds, proto/mmc.c). The core picks one
 * per LU once, when it decodes a CDB; nothing else asks the device type.
 */
struct kt_cdb_set {
	const struct kt_cdb_desc	*descs;
	unsigned int			nr;
};

extern const struct kt_cdb_set kt_sbc_cmds;

/*
 * The descriptor of the command @cdb (@len bytes) starts, whatever the LU
 * offers; NULL when ktarget implements no such command. _in: among those
 * of @set (NULL: kt_sbc_cmds).
 */
const struct kt_cdb_desc *kt_cdb_desc_find_in(const struct kt_cdb_set *set,
					      const u8 *cdb, size_t len);
const struct kt_cdb_desc *kt_cdb_desc_find(const u8 *cdb, size_t len);

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
	const struct kt_cdb_desc *desc;	/* NULL: not a command of ours */
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
/* The same, with the command set @set (NULL: kt_sbc_cmds) */
enum kt_cdb_status kt_cdb_decode_in(const struct kt_cdb_set *set,
				    const u8 *buf, size_t len,
				    struct kt_cdb *cdb);

/*
 * True when [lba, lba + nr) lies within a device of @capacity blocks;
 * safe against wrap-around for any input.
 */
static inline bool kt_cdb_range_ok(u64 lba, u64 nr, u64 capacity)
{
	return lba <= capacity && nr <= capacity - lba;
}

#endif /* KTARGET_PROTO_CDB_H */
