/* SPDX-License-Identifier: GPL-2.0 */
/*
 * EXTENDED COPY (LID1) parameter list parsing, segment arithmetic and the
 * RECEIVE COPY RESULTS / Third-party Copy VPD responses: pure functions over
 * caller-owned buffers, built into ktarget_core and into the userspace unit
 * and fuzz tests.
 *
 * References (SPC-4, clause numbers as in spc4r37): 6.4 EXTENDED COPY
 * (LID1) with 6.4.3 its parameter list and 6.4.6 segment descriptors; the
 * RECEIVE COPY STATUS (LID1), RECEIVE COPY OPERATING PARAMETERS and RECEIVE
 * COPY FAILURE DETAILS (LID1) service actions of RECEIVE COPY RESULTS (84h);
 * the Third-party Copy VPD page (8Fh); 4.5 sense data.
 */
#ifndef KTARGET_PROTO_XCOPY_H
#define KTARGET_PROTO_XCOPY_H

#include <linux/bits.h>
#include <linux/types.h>

/* Wire sizes (SPC-4 6.4: header, CSCD and segment descriptors) */
#define KT_XCOPY_HDR_LEN		16	/* parameter list header */
#define KT_XCOPY_CSCD_LEN		32	/* every CSCD descriptor */
#define KT_XCOPY_SEG_B2B_LEN		28	/* segment descriptor 02h */
#define KT_XCOPY_DESIG_MAX		20	/* designator bytes in an E4h CSCD */

/*
 * Limits. RECEIVE COPY RESULTS (OPERATING PARAMETERS) and the Parameter
 * Data / General Copy Operations descriptors of VPD page 8Fh report exactly
 * these, and kt_xcopy_parse() enforces them.
 *
 * The descriptor list limit is what the largest legal list needs
 * (16 CSCD descriptors of 32 bytes plus 64 segment descriptors of 28 bytes),
 * so a whole parameter list always fits in one 4 KiB page. It is also large
 * enough that one CSCD descriptor too many, or one segment descriptor too
 * many, stays inside it: libiscsi's ExtendedCopy.DescrLimits expects TOO
 * MANY ... DESCRIPTORS for those and PARAMETER LIST LENGTH ERROR only when
 * the list itself is too long.
 */
#define KT_XCOPY_MAX_CSCD		16	/* MAXIMUM CSCD DESCRIPTOR COUNT */
#define KT_XCOPY_MAX_SEGMENTS		64	/* MAXIMUM SEGMENT DESCRIPTOR COUNT */
#define KT_XCOPY_MAX_DESC_LIST_LEN	(KT_XCOPY_MAX_CSCD * KT_XCOPY_CSCD_LEN + \
					 KT_XCOPY_MAX_SEGMENTS * KT_XCOPY_SEG_B2B_LEN)
#define KT_XCOPY_MAX_INLINE_LEN		0	/* no inline data */
#define KT_XCOPY_MAX_PARAM_LEN		(KT_XCOPY_HDR_LEN + \
					 KT_XCOPY_MAX_DESC_LIST_LEN + \
					 KT_XCOPY_MAX_INLINE_LEN)
#define KT_XCOPY_MAX_SEG_BYTES		(256U << 20)	/* MAXIMUM SEGMENT LENGTH */
#define KT_XCOPY_MAX_CONCURRENT		16	/* TOTAL / MAXIMUM CONCURRENT COPIES */
#define KT_XCOPY_SEG_GRAN_LOG2		9	/* DATA SEGMENT GRANULARITY: 512 */

/* Block sizes the segment helpers accept: powers of two in this range. */
#define KT_XCOPY_MIN_BLOCK_SIZE		512U
#define KT_XCOPY_MAX_BLOCK_SIZE		65536U

/* Descriptor type codes we implement (SPC-4 6.4, descriptor type codes) */
#define KT_XCOPY_SEG_B2B		0x02	/* block device to block device */
#define KT_XCOPY_CSCD_ID		0xe4	/* identification descriptor CSCD */

/*
 * CSCD DESCRIPTOR ID values in a segment descriptor (spc4r37 6.4.6.1,
 * table 150): 0000h-07FFh index the CSCD descriptor list, FFFFh names the
 * logical unit that received the EXTENDED COPY command.
 */
#define KT_XCOPY_CSCD_INDEX_MAX		0x07ff
#define KT_XCOPY_CSCD_LOCAL		0xffff

/* LIST ID USAGE field of the header (SPC-4 6.4.3, table: LIST ID USAGE) */
#define KT_XCOPY_LIST_ID_HOLD		0x0	/* hold results for RECEIVE COPY */
#define KT_XCOPY_LIST_ID_NO_HOLD	0x2	/* unique list id, no held results */
#define KT_XCOPY_LIST_ID_NONE		0x3	/* LIST IDENTIFIER must be zero */

/* Designator types accepted in an E4h CSCD (SPC-4 Device Identification VPD) */
#define KT_XCOPY_DESIG_T10		0x1	/* T10 vendor ID based */
#define KT_XCOPY_DESIG_EUI64		0x2	/* EUI-64 based */
#define KT_XCOPY_DESIG_NAA		0x3	/* NAA */

/* Sense keys (SPC-4 4.5.6, sense key descriptions) */
#define KT_XCOPY_KEY_HARDWARE_ERROR	0x04
#define KT_XCOPY_KEY_ILLEGAL_REQUEST	0x05
#define KT_XCOPY_KEY_COPY_ABORTED	0x0a

/* ASC << 8 | ASCQ (SPC-4 4.5.6, ASC and ASCQ assignments) */
#define KT_XCOPY_ASC_NONE		0x0000	/* NO ADDITIONAL SENSE INFORMATION */
#define KT_XCOPY_ASC_OP_IN_PROGRESS	0x0016	/* OPERATION IN PROGRESS */
#define KT_XCOPY_ASC_UNREACHABLE_TARGET	0x0804	/* UNREACHABLE COPY TARGET */
#define KT_XCOPY_ASC_3PC_DEV_FAILURE	0x0d01	/* THIRD PARTY DEVICE FAILURE */
#define KT_XCOPY_ASC_TARGET_NOT_REACHABLE 0x0d02 /* COPY TARGET DEVICE NOT REACHABLE */
#define KT_XCOPY_ASC_BAD_TARGET_TYPE	0x0d03	/* INCORRECT COPY TARGET DEVICE TYPE */
#define KT_XCOPY_ASC_TARGET_UNDERRUN	0x0d04	/* COPY TARGET DEVICE DATA UNDERRUN */
#define KT_XCOPY_ASC_TARGET_OVERRUN	0x0d05	/* COPY TARGET DEVICE DATA OVERRUN */
#define KT_XCOPY_ASC_PARAM_LIST_LEN	0x1a00	/* PARAMETER LIST LENGTH ERROR */
#define KT_XCOPY_ASC_LBA_OUT_OF_RANGE	0x2100	/* LOGICAL BLOCK ADDRESS OUT OF RANGE */
#define KT_XCOPY_ASC_INVALID_CDB	0x2400	/* INVALID FIELD IN CDB */
#define KT_XCOPY_ASC_INVALID_PARAM	0x2600	/* INVALID FIELD IN PARAMETER LIST */
#define KT_XCOPY_ASC_TOO_MANY_CSCD	0x2606	/* TOO MANY TARGET DESCRIPTORS */
#define KT_XCOPY_ASC_BAD_CSCD_TYPE	0x2607	/* UNSUPPORTED TARGET DESCRIPTOR TYPE CODE */
#define KT_XCOPY_ASC_TOO_MANY_SEGMENTS	0x2608	/* TOO MANY SEGMENT DESCRIPTORS */
#define KT_XCOPY_ASC_BAD_SEGMENT_TYPE	0x2609	/* UNSUPPORTED SEGMENT DESCRIPTOR TYPE CODE */
#define KT_XCOPY_ASC_INEXACT_SEGMENT	0x260a	/* UNEXPECTED INEXACT SEGMENT */
#define KT_XCOPY_ASC_INLINE_EXCEEDED	0x260b	/* INLINE DATA LENGTH EXCEEDED */
#define KT_XCOPY_ASC_BAD_COPY_OP	0x260c	/* INVALID OPERATION FOR COPY SRC OR DST */
#define KT_XCOPY_ASC_SEG_GRANULARITY	0x260d	/* COPY SEGMENT GRANULARITY VIOLATION */
#define KT_XCOPY_ASC_INTERNAL_FAILURE	0x4400	/* INTERNAL TARGET FAILURE */

/* Bits of struct kt_xcopy_err.flags */
#define KT_XCOPY_ERR_SKSV	BIT(0)	/* FIELD POINTER (and BIT POINTER) valid */
#define KT_XCOPY_ERR_CD		BIT(1)	/* field is in the CDB, not parameter data */
#define KT_XCOPY_ERR_BPV	BIT(2)	/* BIT POINTER valid */
#define KT_XCOPY_ERR_CSI	BIT(3)	/* .info is the failing segment number */

/*
 * What the core needs to build the sense data: sense key, ASC/ASCQ, the
 * sense-key specific field (SPC-4 4.5.2.4.2 field pointer for ILLEGAL
 * REQUEST, 4.5.2.4.5 segment pointer with SD=0 for COPY ABORTED) and, for
 * COPY ABORTED, the segment number for the COMMAND-SPECIFIC INFORMATION
 * field (SPC-4 6.4, errors detected during segment processing). FIELD
 * POINTER is a byte offset into the parameter list unless KT_XCOPY_ERR_CD
 * is set.
 */
struct kt_xcopy_err {
	u32	info;		/* segment number, if KT_XCOPY_ERR_CSI */
	u16	field;		/* FIELD POINTER, if KT_XCOPY_ERR_SKSV */
	u8	key;		/* sense key */
	u8	asc;
	u8	ascq;
	u8	bit;		/* BIT POINTER, if KT_XCOPY_ERR_BPV */
	u8	flags;		/* KT_XCOPY_ERR_* */
};

/* Bits of struct kt_xcopy_cscd.flags */
#define KT_XCOPY_CSCD_NUL	BIT(0)	/* NUL bit (obsolete in SPC-4, ignored) */
#define KT_XCOPY_CSCD_PAD	BIT(1)	/* PAD bit of the block device parameters */

/* One identification descriptor CSCD descriptor, E4h (SPC-4 6.4, CSCD descriptors) */
struct kt_xcopy_cscd {
	u32	block_len;	/* DISK BLOCK LENGTH, 0 if not given */
	u16	rel_port;	/* RELATIVE INITIATOR PORT IDENTIFIER */
	u16	offset;		/* of the descriptor in the parameter list */
	u8	type;		/* KT_XCOPY_CSCD_ID */
	u8	dev_type;	/* PERIPHERAL DEVICE TYPE, always 00h */
	u8	lu_id_type;	/* LU ID TYPE, ignored for E4h */
	u8	flags;		/* KT_XCOPY_CSCD_* */
	u8	code_set;
	u8	assoc;		/* ASSOCIATION, always 0 (logical unit) */
	u8	desig_type;	/* KT_XCOPY_DESIG_* */
	u8	desig_len;
	u8	desig[KT_XCOPY_DESIG_MAX];
};

/* Bits of struct kt_xcopy_segment.flags */
#define KT_XCOPY_SEG_DC		BIT(0)	/* NUMBER OF BLOCKS counts destination blocks */
#define KT_XCOPY_SEG_CAT	BIT(1)	/* CAT bit (no effect: segments are exact) */

/* One block to block segment descriptor, 02h (SPC-4 6.4.6, block to block) */
struct kt_xcopy_segment {
	u64	src_lba;
	u64	dst_lba;
	u16	src;		/* CSCD index or KT_XCOPY_CSCD_LOCAL */
	u16	dst;
	u16	nr_blocks;	/* NUMBER OF BLOCKS, see KT_XCOPY_SEG_DC */
	u16	offset;		/* of the descriptor in the parameter list */
	u8	type;		/* KT_XCOPY_SEG_B2B */
	u8	flags;		/* KT_XCOPY_SEG_* */
};

/* Bits of struct kt_xcopy_list.flags */
#define KT_XCOPY_LIST_STR	BIT(0)	/* STR (sequential striped) hint */

/* A parsed EXTENDED COPY (LID1) parameter list (SPC-4 6.4.3) */
struct kt_xcopy_list {
	struct kt_xcopy_cscd	cscd[KT_XCOPY_MAX_CSCD];
	struct kt_xcopy_segment	seg[KT_XCOPY_MAX_SEGMENTS];
	u32	len;		/* header + descriptor lists + inline data */
	u16	nr_cscd;
	u16	nr_seg;
	u8	list_id;	/* LIST IDENTIFIER */
	u8	list_id_usage;	/* KT_XCOPY_LIST_ID_* */
	u8	priority;	/* PRIORITY */
	u8	flags;		/* KT_XCOPY_LIST_* */
};

enum kt_xcopy_status {
	KT_XCOPY_OK = 0,	/* *list holds the parsed list */
	KT_XCOPY_EMPTY,		/* no parameter data: complete with GOOD */
	KT_XCOPY_ERROR,		/* *err holds the sense to return */
};

/*
 * Parse the parameter list of EXTENDED COPY (LID1), @len bytes at @buf.
 * Checks that run before any segment is processed give ILLEGAL REQUEST
 * (SPC-4 6.4, errors detected before processing segments); a segment naming
 * a CSCD descriptor that does not exist gives COPY ABORTED with UNREACHABLE
 * COPY TARGET and the segment number (errors detected during processing).
 * Bytes past the length the header declares are ignored. On error, *list
 * holds whatever was parsed before the bad field.
 */
enum kt_xcopy_status kt_xcopy_parse(const u8 *buf, size_t len,
				    struct kt_xcopy_list *list,
				    struct kt_xcopy_err *err);

/*
 * Encode the 3-byte SENSE KEY SPECIFIC field of @err into @sks; returns
 * false (and zeroes @sks) when @err carries no field pointer.
 */
bool kt_xcopy_sks(const struct kt_xcopy_err *err, u8 *sks);

/* True when @cscd names the designator @desig of type @desig_type. */
bool kt_xcopy_cscd_match(const struct kt_xcopy_cscd *cscd, u8 desig_type,
			 const u8 *desig, unsigned int len);

/* What the core knows about a resolved copy source or destination */
struct kt_xcopy_geom {
	u64	nr_blocks;	/* capacity in logical blocks */
	u32	block_size;	/* logical block length in bytes */
};

/* One segment in bytes and blocks, checked against both devices */
struct kt_xcopy_span {
	u64	src_lba;
	u64	dst_lba;
	u64	bytes;
	u32	src_bs;
	u32	dst_bs;
};

/*
 * Bytes moved by @seg between devices of @src_bs and @dst_bs byte blocks
 * (SPC-4 6.4.6, block to block: NUMBER OF BLOCKS counts source blocks, or
 * destination blocks when DC is set). Returns 0, -EINVAL for a block size that is not
 * a power of two in [KT_XCOPY_MIN_BLOCK_SIZE, KT_XCOPY_MAX_BLOCK_SIZE],
 * -ERANGE when the byte count is not a whole number of blocks on both sides.
 */
int kt_xcopy_segment_bytes(const struct kt_xcopy_segment *seg, u32 src_bs,
			   u32 dst_bs, u64 *bytes);

/*
 * Resolve segment @nr of @list against the source and destination the core
 * found for it: byte count, exactness, CSCD DISK BLOCK LENGTH and both LBA
 * ranges, overflow-safe. Returns 0 or -EINVAL with *err set to COPY ABORTED
 * sense naming the segment.
 */
int kt_xcopy_segment_span(const struct kt_xcopy_list *list, unsigned int nr,
			  const struct kt_xcopy_geom *src,
			  const struct kt_xcopy_geom *dst,
			  struct kt_xcopy_span *span, struct kt_xcopy_err *err);

/* Walks a span in chunks no larger than the caller's buffer */
struct kt_xcopy_iter {
	u64	src_lba;
	u64	dst_lba;
	u64	left;		/* bytes not yet handed out */
	u32	chunk;		/* bytes per chunk, a multiple of both blocks */
	u32	src_shift;	/* log2 of the source block size */
	u32	dst_shift;
};

struct kt_xcopy_chunk {
	u64	src_lba;
	u64	dst_lba;
	u32	bytes;
	u32	src_blocks;
	u32	dst_blocks;
};

/*
 * Prepare to walk @span in chunks of at most @max_bytes; returns -EINVAL if
 * @max_bytes cannot hold one block of each side or the span is malformed.
 */
int kt_xcopy_iter_init(struct kt_xcopy_iter *it,
		       const struct kt_xcopy_span *span, u32 max_bytes);

/* Next chunk into @chunk; false when the span is done. */
bool kt_xcopy_iter_next(struct kt_xcopy_iter *it, struct kt_xcopy_chunk *chunk);

/* COPY MANAGER STATUS (SPC-4 RECEIVE COPY STATUS (LID1)) */
#define KT_XCOPY_CM_IN_PROGRESS	0x00
#define KT_XCOPY_CM_DONE	0x01	/* completed without errors */
#define KT_XCOPY_CM_FAILED	0x02	/* completed with errors */

/* Bits of struct kt_xcopy_progress.flags */
#define KT_XCOPY_PROGRESS_HDD	BIT(0)	/* held data discarded */

/* What the core keeps about a copy identified by its LIST IDENTIFIER */
struct kt_xcopy_progress {
	u64	bytes;		/* bytes written to destinations so far */
	u16	segments;	/* segments processed */
	u8	state;		/* KT_XCOPY_CM_* */
	u8	flags;		/* KT_XCOPY_PROGRESS_* */
};

/* RECEIVE COPY RESULTS (84h) service actions (SPC-4) */
#define KT_XCOPY_RCR_COPY_STATUS	0x00
#define KT_XCOPY_RCR_OP_PARAMS		0x03
#define KT_XCOPY_RCR_FAILURE_DETAILS	0x04
#define KT_XCOPY_RCR_ROD_TOKEN_INFO	0x07	/* RECEIVE ROD TOKEN INFORMATION */

/* Full lengths of the fixed responses */
#define KT_XCOPY_OP_PARAMS_LEN		46
#define KT_XCOPY_COPY_STATUS_LEN	12
#define KT_XCOPY_FAILURE_HDR_LEN	60
#define KT_XCOPY_SENSE_MAX		252
#define KT_XCOPY_VPD_TPC_LEN		104
#define KT_XCOPY_VPD_TPC_ROD_LEN	(KT_XCOPY_VPD_TPC_LEN + 36 + 136)

/*
 * Response builders. Each writes at most @buf_len bytes of its response to
 * @buf (the caller passes min(ALLOCATION LENGTH, its buffer)) and returns
 * the full length of the response, so the caller can report the residual.
 */
unsigned int kt_xcopy_build_op_params(u8 *buf, unsigned int buf_len);
unsigned int kt_xcopy_build_copy_status(u8 *buf, unsigned int buf_len,
					const struct kt_xcopy_progress *p);
unsigned int kt_xcopy_build_failure_details(u8 *buf, unsigned int buf_len,
					    const struct kt_xcopy_progress *p,
					    const u8 *sense,
					    unsigned int sense_len);
/* What VPD page 8Fh says of token copy (proto/rod.h), where it is offered */
struct kt_xcopy_rod_vpd {
	u32	block_size;	/* the LU's: limits are in its blocks */
	u32	timeout;	/* DEFAULT INACTIVITY TIMEOUT, s */
};

unsigned int kt_xcopy_build_vpd_tpc(u8 *buf, unsigned int buf_len,
				    u8 periph,
				    const struct kt_xcopy_rod_vpd *rod);

#endif /* KTARGET_PROTO_XCOPY_H */
