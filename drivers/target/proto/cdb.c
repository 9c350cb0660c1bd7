// SPDX-License-Identifier: GPL-2.0
/*
 * SCSI CDB decoding, table-driven. No allocation, locking or logging here:
 * this file is compiled unchanged into the userspace unit and fuzz tests.
 */
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/unaligned.h>

#include <ktarget/proto/cdb.h>
#include <ktarget/proto/pr.h>
#include <ktarget/proto/spc.h>

#define OP(op, l)		.opcode = (op), .len = (l)
#define OP_SA(op, s, l)		.opcode = (op), .sa = (s), .has_sa = 1, .len = (l)
#define USAGE(...)		.usage = { __VA_ARGS__ }

#define IN		KT_CDB_D_BLOCKS_IN
#define OUT		KT_CDB_D_BLOCKS_OUT
#define DPOFUA		KT_CDB_D_DPOFUA
#define LONG		KT_CDB_D_LONG
#define PARAM		KT_CDB_D_PARAM
#define PROTECT		KT_CDB_D_PROTECT
/* INQUIRY, REPORT LUNS, REQUEST SENSE: about the target, not the medium */
#define FOR_TARGET	(KT_CDB_D_NO_LU | KT_CDB_D_NO_UA | KT_CDB_D_IN_SANITIZE | \
			 KT_CDB_D_RESERVED_OK | KT_CDB_D_ALUA_ANY)
#define STANDBY		KT_CDB_D_ALUA_STANDBY
#define MEDIUM		KT_CDB_D_MEDIUM
#define CHANGES		KT_CDB_D_CHANGES

/*
 * Every command ktarget implements. SPC-4 commands are described in
 * SPC-4 6, block commands in SBC-3 5. Keep it sorted (a unit test checks).
 */
const struct kt_cdb_desc kt_cdb_descs[] = {
	{ OP(TEST_UNIT_READY, 6), .run = KT_RUN_GOOD, .pr = KT_PRC_ANY },
	/* DESC */
	{ OP(REQUEST_SENSE, 6), .run = KT_RUN_REQUEST_SENSE, .flags = FOR_TARGET,
	  .pr = KT_PRC_ANY, .alen_off = 4, .alen_size = 1, USAGE(0x01, 0, 0, 0xff) },
	/* FMTPINFO, LONGLIST, FMTDATA, CMPLST, DEFECT LIST FORMAT; no FFMT */
	{ OP(FORMAT_UNIT, 6), .run = KT_RUN_FORMAT, .flags = CHANGES | LONG,
	  USAGE(0xff, 0, 0, 0) },
	{ OP(READ_6, 6), .run = KT_RUN_RW, .layout = KT_CDB_RW6, .flags = MEDIUM | IN,
	  .pr = KT_PRC_READ, USAGE(0x1f, 0xff, 0xff, 0xff) },
	{ OP(WRITE_6, 6), .run = KT_RUN_RW, .layout = KT_CDB_RW6, .flags = MEDIUM | OUT,
	  USAGE(0x1f, 0xff, 0xff, 0xff) },
	/* EVPD (CMDDT is obsolete) */
	{ OP(INQUIRY, 6), .run = KT_RUN_INQUIRY, .flags = FOR_TARGET, .pr = KT_PRC_ANY,
	  .alen_off = 3, .alen_size = 2, USAGE(0x01, 0xff, 0xff, 0xff) },
	/* PF, SP */
	{ OP(MODE_SELECT, 6), .run = KT_RUN_MODE_SELECT, .flags = PARAM | STANDBY,
	  .alen_off = 4, .alen_size = 1, USAGE(0x11, 0, 0, 0xff) },
	/* no third-party or extents */
	{ OP(RESERVE, 6), .run = KT_RUN_RESERVE, .gate = KT_GATE_PR, .pr = KT_PRC_RESV },
	{ OP(RELEASE, 6), .run = KT_RUN_RESERVE, .gate = KT_GATE_PR, .pr = KT_PRC_RESV,
	  .flags = KT_CDB_D_RESERVED_OK },
	/* DBD, PC, PAGE CODE, SUBPAGE CODE */
	{ OP(MODE_SENSE, 6), .run = KT_RUN_MODE_SENSE, .flags = STANDBY, .pr = KT_PRC_READ,
	  .alen_off = 4, .alen_size = 1, USAGE(0x08, 0xff, 0xff, 0xff) },
	/* IMMED, modifier, POWER CONDITION, NO_FLUSH, START */
	{ OP(START_STOP, 6), .run = KT_RUN_GOOD, .flags = LONG, .pr = KT_PRC_START_STOP,
	  USAGE(0x01, 0, 0x0f, 0xf5) },
	{ OP(ALLOW_MEDIUM_REMOVAL, 6), .run = KT_RUN_GOOD, .pr = KT_PRC_PREVENT_ALLOW,
	  USAGE(0, 0, 0, 0x03) },
	/* LBA, PMI */
	{ OP(READ_CAPACITY, 10), .run = KT_RUN_READ_CAPACITY, .pr = KT_PRC_ANY,
	  USAGE(0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0x01) },
	/* DPO, FUA, RARC, FUA_NV */
	{ OP(READ_10, 10), .run = KT_RUN_RW, .layout = KT_CDB_RW10,
	  .flags = MEDIUM | IN | DPOFUA | PROTECT, .pr = KT_PRC_READ,
	  USAGE(0x1e, 0xff, 0xff, 0xff, 0xff, 0x1f, 0xff, 0xff) },
	/* DPO, FUA, FUA_NV */
	{ OP(WRITE_10, 10), .run = KT_RUN_RW, .layout = KT_CDB_RW10,
	  .flags = MEDIUM | OUT | DPOFUA | PROTECT,
	  USAGE(0x1a, 0xff, 0xff, 0xff, 0xff, 0x1f, 0xff, 0xff) },
	/* DPO, BYTCHK */
	{ OP(WRITE_VERIFY, 10), .run = KT_RUN_RW, .layout = KT_CDB_RW10,
	  .flags = MEDIUM | OUT | DPOFUA | PROTECT,
	  USAGE(0x16, 0xff, 0xff, 0xff, 0xff, 0x1f, 0xff, 0xff) },
	/* DPO, BYTCHK */
	{ OP(VERIFY, 10), .run = KT_RUN_VERIFY, .layout = KT_CDB_RW10,
	  .flags = MEDIUM | DPOFUA | LONG | PROTECT, .pr = KT_PRC_READ,
	  USAGE(0x16, 0xff, 0xff, 0xff, 0xff, 0x1f, 0xff, 0xff) },
	/* IMMED */
	{ OP(PRE_FETCH, 10), .run = KT_RUN_PRE_FETCH, .flags = MEDIUM,
	  .layout = KT_CDB_RW10, .pr = KT_PRC_READ,
	  USAGE(0x02, 0xff, 0xff, 0xff, 0xff, 0x1f, 0xff, 0xff) },
	/* SYNC_NV (obsolete, ignored), IMMED */
	{ OP(SYNCHRONIZE_CACHE, 10), .run = KT_RUN_SYNC_CACHE, .layout = KT_CDB_RW10,
	  .flags = MEDIUM | LONG, USAGE(0x06, 0xff, 0xff, 0xff, 0xff, 0x1f, 0xff, 0xff) },
	/* REQ_PLIST, REQ_GLIST, DEFECT LIST FORMAT */
	{ OP(READ_DEFECT_DATA, 10), .run = KT_RUN_READ_DEFECT, .pr = KT_PRC_READ,
	  .alen_off = 7, .alen_size = 2, USAGE(0, 0x1f, 0, 0, 0, 0, 0xff, 0xff) },
	/* UNMAP (ANCHOR unsupported) */
	{ OP(WRITE_SAME, 10), .run = KT_RUN_WRITE_SAME, .layout = KT_CDB_RW10,
	  .flags = MEDIUM | CHANGES | KT_CDB_D_WS_UNMAP | LONG | PROTECT,
	  USAGE(0x08, 0xff, 0xff, 0xff, 0xff, 0x1f, 0xff, 0xff) },
	/* ANCHOR unsupported */
	/* no CHANGES: UNMAP watches the ranges of its parameter list (sbc.c) */
	{ OP(UNMAP, 10), .run = KT_RUN_UNMAP, .flags = MEDIUM | PARAM | LONG,
	  .gate = KT_GATE_TPU, .alen_off = 7, .alen_size = 2,
	  USAGE(0, 0, 0, 0, 0, 0x1f, 0xff, 0xff) },
	/* IMMED, AUSE */
	{ OP_SA(SANITIZE, KT_SBC_SANITIZE_OVERWRITE, 10), .run = KT_RUN_SANITIZE,
	  .flags = CHANGES | PARAM | LONG, .alen_off = 7, .alen_size = 2,
	  USAGE(0xa1, 0, 0, 0, 0, 0, 0xff, 0xff) },
	{ OP_SA(SANITIZE, KT_SBC_SANITIZE_BLOCK_ERASE, 10), .run = KT_RUN_SANITIZE,
	  .flags = CHANGES | PARAM | LONG, .gate = KT_GATE_BLOCK_ERASE, .alen_off = 7,
	  .alen_size = 2,
	  USAGE(0xa2, 0, 0, 0, 0, 0, 0xff, 0xff) },
	{ OP_SA(SANITIZE, KT_SBC_SANITIZE_EXIT_FAILURE, 10), .run = KT_RUN_SANITIZE,
	  .flags = PARAM, .alen_off = 7, .alen_size = 2,
	  USAGE(0xbf, 0, 0, 0, 0, 0, 0xff, 0xff) },
	/* PF, SP */
	{ OP(MODE_SELECT_10, 10), .run = KT_RUN_MODE_SELECT, .flags = PARAM | STANDBY,
	  .alen_off = 7, .alen_size = 2, USAGE(0x11, 0, 0, 0, 0, 0, 0xff, 0xff) },
	/* no third-party */
	{ OP(RESERVE_10, 10), .run = KT_RUN_RESERVE, .gate = KT_GATE_PR, .pr = KT_PRC_RESV },
	{ OP(RELEASE_10, 10), .run = KT_RUN_RESERVE, .gate = KT_GATE_PR, .pr = KT_PRC_RESV,
	  .flags = KT_CDB_D_RESERVED_OK },
	/* LLBAA, DBD, PC, PAGE CODE, SUBPAGE CODE */
	{ OP(MODE_SENSE_10, 10), .run = KT_RUN_MODE_SENSE, .flags = STANDBY,
	  .pr = KT_PRC_READ, .alen_off = 7, .alen_size = 2,
	  USAGE(0x18, 0xff, 0xff, 0, 0, 0, 0xff, 0xff) },
	{ OP_SA(PERSISTENT_RESERVE_IN, KT_PRI_READ_KEYS, 10), .run = KT_RUN_PR,
	  .gate = KT_GATE_PR, .flags = STANDBY, .pr = KT_PRC_ANY, .alen_off = 7,
	  .alen_size = 2, USAGE(KT_PRI_READ_KEYS, 0, 0, 0, 0, 0, 0xff, 0xff) },
	{ OP_SA(PERSISTENT_RESERVE_IN, KT_PRI_READ_RESERVATION, 10), .run = KT_RUN_PR,
	  .gate = KT_GATE_PR, .flags = STANDBY, .pr = KT_PRC_ANY, .alen_off = 7,
	  .alen_size = 2, USAGE(KT_PRI_READ_RESERVATION, 0, 0, 0, 0, 0, 0xff, 0xff) },
	{ OP_SA(PERSISTENT_RESERVE_IN, KT_PRI_REPORT_CAPABILITIES, 10), .run = KT_RUN_PR,
	  .gate = KT_GATE_PR, .flags = STANDBY, .pr = KT_PRC_ANY, .alen_off = 7,
	  .alen_size = 2, USAGE(KT_PRI_REPORT_CAPABILITIES, 0, 0, 0, 0, 0, 0xff, 0xff) },
	{ OP_SA(PERSISTENT_RESERVE_IN, KT_PRI_READ_FULL_STATUS, 10), .run = KT_RUN_PR,
	  .gate = KT_GATE_PR, .flags = STANDBY, .pr = KT_PRC_ANY, .alen_off = 7,
	  .alen_size = 2, USAGE(KT_PRI_READ_FULL_STATUS, 0, 0, 0, 0, 0, 0xff, 0xff) },
	/* SCOPE, TYPE; the service actions' own rules are pr.c's */
	{ OP_SA(PERSISTENT_RESERVE_OUT, KT_PRO_REGISTER, 10), .run = KT_RUN_PR,
	  .gate = KT_GATE_PR, .flags = PARAM | STANDBY, .pr = KT_PRC_ANY, .alen_off = 5,
	  .alen_size = 4, USAGE(KT_PRO_REGISTER, 0xff, 0, 0, 0xff, 0xff, 0xff, 0xff) },
	{ OP_SA(PERSISTENT_RESERVE_OUT, KT_PRO_RESERVE, 10), .run = KT_RUN_PR,
	  .gate = KT_GATE_PR, .flags = PARAM | STANDBY, .pr = KT_PRC_ANY, .alen_off = 5,
	  .alen_size = 4, USAGE(KT_PRO_RESERVE, 0xff, 0, 0, 0xff, 0xff, 0xff, 0xff) },
	{ OP_SA(PERSISTENT_RESERVE_OUT, KT_PRO_RELEASE, 10), .run = KT_RUN_PR,
	  .gate = KT_GATE_PR, .flags = PARAM | STANDBY, .pr = KT_PRC_ANY, .alen_off = 5,
	  .alen_size = 4, USAGE(KT_PRO_RELEASE, 0xff, 0, 0, 0xff, 0xff, 0xff, 0xff) },
	{ OP_SA(PERSISTENT_RESERVE_OUT, KT_PRO_CLEAR, 10), .run = KT_RUN_PR,
	  .gate = KT_GATE_PR, .flags = PARAM | STANDBY, .pr = KT_PRC_ANY, .alen_off = 5,
	  .alen_size = 4, USAGE(KT_PRO_CLEAR, 0xff, 0, 0, 0xff, 0xff, 0xff, 0xff) },
	{ OP_SA(PERSISTENT_RESERVE_OUT, KT_PRO_PREEMPT, 10), .run = KT_RUN_PR,
	  .gate = KT_GATE_PR, .flags = PARAM | STANDBY, .pr = KT_PRC_ANY, .alen_off = 5,
	  .alen_size = 4, USAGE(KT_PRO_PREEMPT, 0xff, 0, 0, 0xff, 0xff, 0xff, 0xff) },
	{ OP_SA(PERSISTENT_RESERVE_OUT, KT_PRO_PREEMPT_AND_ABORT, 10), .run = KT_RUN_PR,
	  .gate = KT_GATE_PR, .flags = PARAM | STANDBY, .pr = KT_PRC_ANY, .alen_off = 5,
	  .alen_size = 4, USAGE(KT_PRO_PREEMPT_AND_ABORT, 0xff, 0, 0, 0xff, 0xff, 0xff, 0xff) },
	{ OP_SA(PERSISTENT_RESERVE_OUT, KT_PRO_REGISTER_AND_IGNORE, 10), .run = KT_RUN_PR,
	  .gate = KT_GATE_PR, .flags = PARAM | STANDBY, .pr = KT_PRC_ANY, .alen_off = 5,
	  .alen_size = 4, USAGE(KT_PRO_REGISTER_AND_IGNORE, 0xff, 0, 0, 0xff, 0xff, 0xff, 0xff) },
	{ OP_SA(PERSISTENT_RESERVE_OUT, KT_PRO_REGISTER_AND_MOVE, 10), .run = KT_RUN_PR,
	  .gate = KT_GATE_PR, .flags = PARAM | STANDBY, .pr = KT_PRC_ANY, .alen_off = 5,
	  .alen_size = 4, USAGE(KT_PRO_REGISTER_AND_MOVE, 0xff, 0, 0, 0xff, 0xff, 0xff, 0xff) },
	{ OP_SA(EXTENDED_COPY, KT_SA_XCOPY_LID1, 16), .run = KT_RUN_XCOPY,
	  .flags = PARAM | LONG, .gate = KT_GATE_3PC, .alen_off = 10, .alen_size = 4,
	  USAGE(KT_SA_XCOPY_LID1, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0) },
	/* LIST IDENTIFIER, GROUP NUMBER */
	{ OP_SA(EXTENDED_COPY, KT_SA_POPULATE_TOKEN, 16), .run = KT_RUN_POPULATE_TOKEN,
	  .flags = MEDIUM | PARAM, .gate = KT_GATE_ROD, .pr = KT_PRC_READ,
	  .alen_off = 10, .alen_size = 4,
	  USAGE(KT_SA_POPULATE_TOKEN, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0x1f) },
	/* LIST IDENTIFIER, GROUP NUMBER */
	{ OP_SA(EXTENDED_COPY, KT_SA_WRITE_USING_TOKEN, 16), .run = KT_RUN_WRITE_USING_TOKEN,
	  .flags = MEDIUM | PARAM | LONG, .gate = KT_GATE_ROD, .alen_off = 10, .alen_size = 4,
	  USAGE(KT_SA_WRITE_USING_TOKEN, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0x1f) },
	/* LIST IDENTIFIER */
	{ OP_SA(RECEIVE_COPY_RESULTS, KT_SA_RCR_COPY_STATUS, 16),
	  .run = KT_RUN_RECEIVE_COPY, .gate = KT_GATE_3PC, .pr = KT_PRC_READ,
	  .alen_off = 10, .alen_size = 4,
	  USAGE(KT_SA_RCR_COPY_STATUS, 0xff, 0, 0, 0, 0, 0, 0,
		0, 0xff, 0xff, 0xff, 0xff, 0) },
	{ OP_SA(RECEIVE_COPY_RESULTS, KT_SA_RCR_OPERATING, 16), .run = KT_RUN_RECEIVE_COPY,
	  .gate = KT_GATE_3PC, .pr = KT_PRC_READ, .alen_off = 10, .alen_size = 4,
	  USAGE(KT_SA_RCR_OPERATING, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0) },
	/* LIST IDENTIFIER */
	{ OP_SA(RECEIVE_COPY_RESULTS, KT_SA_RCR_FAILURE, 16), .run = KT_RUN_RECEIVE_COPY,
	  .gate = KT_GATE_3PC, .pr = KT_PRC_READ, .alen_off = 10, .alen_size = 4,
	  USAGE(KT_SA_RCR_FAILURE, 0xff, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0) },
	/* LIST IDENTIFIER */
	{ OP_SA(RECEIVE_COPY_RESULTS, KT_SA_RCR_ROD_INFO, 16), .run = KT_RUN_RECEIVE_COPY,
	  .gate = KT_GATE_ROD, .pr = KT_PRC_READ, .alen_off = 10, .alen_size = 4,
	  USAGE(KT_SA_RCR_ROD_INFO, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0,
		0xff, 0xff, 0xff, 0xff, 0) },
	/* DPO, FUA, RARC, FUA_NV */
	{ OP(READ_16, 16), .run = KT_RUN_RW, .layout = KT_CDB_RW16,
	  .flags = MEDIUM | IN | DPOFUA | PROTECT, .pr = KT_PRC_READ,
	  USAGE(0x1e, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0x1f) },
	/* DPO, FUA, FUA_NV, NUMBER OF LOGICAL BLOCKS */
	{ OP(COMPARE_AND_WRITE, 16), .run = KT_RUN_CAW, .layout = KT_CDB_CAW16,
	  .flags = MEDIUM | OUT | DPOFUA | PROTECT, .gate = KT_GATE_CAW,
	  USAGE(0x1a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0, 0, 0, 0xff, 0x1f) },
	/* DPO, FUA, FUA_NV */
	{ OP(WRITE_16, 16), .run = KT_RUN_RW, .layout = KT_CDB_RW16,
	  .flags = MEDIUM | OUT | DPOFUA | PROTECT,
	  USAGE(0x1a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0x1f) },
	/* DPO, FUA, FUA_NV */
	{ OP(ORWRITE_16, 16), .run = KT_RUN_ORWRITE, .layout = KT_CDB_RW16,
	  .flags = MEDIUM | OUT | DPOFUA | PROTECT,
	  USAGE(0x1a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0x1f) },
	/* DPO, BYTCHK */
	{ OP(WRITE_VERIFY_16, 16), .run = KT_RUN_RW, .layout = KT_CDB_RW16,
	  .flags = MEDIUM | OUT | DPOFUA | PROTECT,
	  USAGE(0x16, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0x1f) },
	/* DPO, BYTCHK */
	{ OP(VERIFY_16, 16), .run = KT_RUN_VERIFY, .layout = KT_CDB_RW16,
	  .flags = MEDIUM | DPOFUA | LONG | PROTECT, .pr = KT_PRC_READ,
	  USAGE(0x16, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0x1f) },
	/* IMMED */
	{ OP(PRE_FETCH_16, 16), .run = KT_RUN_PRE_FETCH, .flags = MEDIUM,
	  .layout = KT_CDB_RW16, .pr = KT_PRC_READ,
	  USAGE(0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0x1f) },
	/* SYNC_NV (obsolete, ignored), IMMED */
	{ OP(SYNCHRONIZE_CACHE_16, 16), .run = KT_RUN_SYNC_CACHE, .layout = KT_CDB_RW16,
	  .flags = MEDIUM | LONG,
	  USAGE(0x06, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0x1f) },
	/* UNMAP, NDOB (ANCHOR unsupported) */
	{ OP(WRITE_SAME_16, 16), .run = KT_RUN_WRITE_SAME, .layout = KT_CDB_RW16,
	  .flags = MEDIUM | CHANGES | KT_CDB_D_WS_UNMAP | LONG | PROTECT,
	  USAGE(0x09, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0x1f) },
	/* DPO, FUA, ATOMIC BOUNDARY (SBC-4 5.48) */
	{ OP(WRITE_ATOMIC_16, 16), .run = KT_RUN_WRITE_ATOMIC, .layout = KT_CDB_ATOMIC16,
	  .flags = MEDIUM | OUT | DPOFUA | PROTECT, .gate = KT_GATE_ATOMIC,
	  USAGE(0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0x1f) },
	/* PMI */
	{ OP_SA(SERVICE_ACTION_IN_16, SAI_READ_CAPACITY_16, 16),
	  .run = KT_RUN_READ_CAPACITY, .pr = KT_PRC_ANY, .alen_off = 10, .alen_size = 4,
	  USAGE(SAI_READ_CAPACITY_16, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0x01) },
	{ OP_SA(SERVICE_ACTION_IN_16, SAI_GET_LBA_STATUS, 16), .run = KT_RUN_GET_LBA_STATUS,
	  .gate = KT_GATE_LBP, .pr = KT_PRC_READ, .alen_off = 10, .alen_size = 4,
	  USAGE(SAI_GET_LBA_STATUS, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0) },
	/* SELECT REPORT */
	{ OP(REPORT_LUNS, 12), .run = KT_RUN_REPORT_LUNS, .flags = FOR_TARGET,
	  .pr = KT_PRC_ANY, .alen_off = 6, .alen_size = 4,
	  USAGE(0, 0xff, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0) },
	/* INFORMATION TYPE */
	{ OP_SA(MAINTENANCE_IN, MI_REPORT_IDENTIFYING_INFORMATION, 12),
	  .run = KT_RUN_REPORT_ID_INFO, .pr = KT_PRC_ANY, .alen_off = 6, .alen_size = 4,
	  USAGE(MI_REPORT_IDENTIFYING_INFORMATION, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
		0xfe, 0) },
	/* PARAMETER DATA FORMAT */
	{ OP_SA(MAINTENANCE_IN, MI_REPORT_TARGET_PGS, 12), .run = KT_RUN_RTPG,
	  .gate = KT_GATE_ALUA, .flags = KT_CDB_D_ALUA_ANY, .pr = KT_PRC_ANY, .alen_off = 6,
	  .alen_size = 4,
	  USAGE(0xe0 | MI_REPORT_TARGET_PGS, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0) },
	/* RCTD, REPORTING OPTIONS, REQUESTED OPERATION CODE, ... */
	{ OP_SA(MAINTENANCE_IN, MI_REPORT_SUPPORTED_OPERATION_CODES, 12),
	  .run = KT_RUN_RSOC, .flags = KT_CDB_D_ALUA_ANY, .pr = KT_PRC_READ, .alen_off = 6,
	  .alen_size = 4,
	  USAGE(MI_REPORT_SUPPORTED_OPERATION_CODES, 0x87, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0) },
	/* REPD */
	{ OP_SA(MAINTENANCE_IN, MI_REPORT_SUPPORTED_TASK_MANAGEMENT_FUNCTIONS, 12),
	  .run = KT_RUN_RSTMF, .flags = KT_CDB_D_ALUA_ANY, .pr = KT_PRC_READ, .alen_off = 6,
	  .alen_size = 4,
	  USAGE(MI_REPORT_SUPPORTED_TASK_MANAGEMENT_FUNCTIONS, 0x80, 0, 0, 0, 0xff, 0xff, 0xff,
		0xff, 0) },
	{ OP_SA(MAINTENANCE_OUT, MO_SET_TARGET_PGS, 12), .run = KT_RUN_STPG,
	  .gate = KT_GATE_ALUA_EXPL, .flags = PARAM | KT_CDB_D_ALUA_ANY, .alen_off = 6,
	  .alen_size = 4, USAGE(MO_SET_TARGET_PGS, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0) },
	/* DPO, FUA, RARC, FUA_NV */
	{ OP(READ_12, 12), .run = KT_RUN_RW, .layout = KT_CDB_RW12,
	  .flags = MEDIUM | IN | DPOFUA | PROTECT, .pr = KT_PRC_READ,
	  USAGE(0x1e, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x1f) },
	/* DPO, FUA, FUA_NV */
	{ OP(WRITE_12, 12), .run = KT_RUN_RW, .layout = KT_CDB_RW12,
	  .flags = MEDIUM | OUT | DPOFUA | PROTECT,
	  USAGE(0x1a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x1f) },
	/* DPO, BYTCHK */
	{ OP(WRITE_VERIFY_12, 12), .run = KT_RUN_RW, .layout = KT_CDB_RW12,
	  .flags = MEDIUM | OUT | DPOFUA | PROTECT,
	  USAGE(0x16, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x1f) },
	/* DPO, BYTCHK */
	{ OP(VERIFY_12, 12), .run = KT_RUN_VERIFY, .layout = KT_CDB_RW12,
	  .flags = MEDIUM | DPOFUA | LONG | PROTECT, .pr = KT_PRC_READ,
	  USAGE(0x16, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x1f) },
	/* REQ_PLIST, REQ_GLIST, FORMAT, INDEX */
	{ OP(READ_DEFECT_DATA_12, 12), .run = KT_RUN_READ_DEFECT, .pr = KT_PRC_READ,
	  .alen_off = 6, .alen_size = 4,
	  USAGE(0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0) },
};

const unsigned int kt_cdb_nr_descs = ARRAY_SIZE(kt_cdb_descs);

const struct kt_cdb_set kt_sbc_cmds = {
	.descs	= kt_cdb_descs,
	.nr	= ARRAY_SIZE(kt_cdb_descs),
};

#undef OP
#undef OP_SA
#undef USAGE
#undef IN
#undef OUT
#undef DPOFUA
#undef LONG
#undef PARAM
#undef PROTECT
#undef FOR_TARGET
#undef STANDBY
#undef MEDIUM

static int kt_cdb_desc_cmp(const struct kt_cdb_desc *d, u8 opcode, u8 sa)
{
	if (d->opcode != opcode)
		return d->opcode < opcode ? -1 : 1;
	if (!d->has_sa || d->sa == sa)
		return 0;
	return d->sa < sa ? -1 : 1;
}

const struct kt_cdb_desc *kt_cdb_desc_find_in(const struct kt_cdb_set *set,
					      const u8 *cdb, size_t len)
{
	unsigned int lo = 0, hi, mid;
	u8 sa = len > 1 ? cdb[1] & 0x1f : 0;
	int cmp;

	if (!len)
		return NULL;
	if (!set)
		set = &kt_sbc_cmds;
	hi = set->nr;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		cmp = kt_cdb_desc_cmp(&set->descs[mid], cdb[0], sa);
		if (!cmp)
			return &set->descs[mid];
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct kt_cdb_desc *kt_cdb_desc_find(const u8 *cdb, size_t len)
{
	return kt_cdb_desc_find_in(&kt_sbc_cmds, cdb, len);
}

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
	return kt_cdb_decode_in(&kt_sbc_cmds, buf, len, cdb);
}

enum kt_cdb_status kt_cdb_decode_in(const struct kt_cdb_set *set,
				    const u8 *buf, size_t len,
				    struct kt_cdb *cdb)
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

	d = kt_cdb_desc_find_in(set, buf, cdb->len);
	if (!d)
		return KT_CDB_OK;
	cdb->desc = d;
	cdb->layout = d->layout;
	if (d->flags & KT_CDB_D_BLOCKS_IN)
		cdb->flags |= KT_CDB_F_DATA_IN;
	if (d->flags & KT_CDB_D_BLOCKS_OUT)
		cdb->flags |= KT_CDB_F_DATA_OUT;
	/* the bits the command has (its usage data says where) and that are set */
	if ((d->flags & KT_CDB_D_DPOFUA) && (buf[1] & d->usage[0] & 0x08))
		cdb->flags |= KT_CDB_F_FUA;
	if ((d->flags & KT_CDB_D_DPOFUA) && (buf[1] & d->usage[0] & 0x10))
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
	case KT_CDB_ATOMIC16:
		cdb->lba = get_unaligned_be64(&buf[2]);
		cdb->nr_blocks = get_unaligned_be16(&buf[12]);
		break;
	default:
		break;
	}
	return KT_CDB_OK;
}
