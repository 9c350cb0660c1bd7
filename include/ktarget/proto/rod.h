/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Token copy (ODX): the parameter lists of POPULATE TOKEN and WRITE USING
 * TOKEN, the ROD token ktarget makes and checks, and the RECEIVE ROD TOKEN
 * INFORMATION response. Pure functions over caller-owned buffers, built
 * into ktarget_core and into the userspace unit and fuzz tests.
 *
 * References: SBC-3 5.x POPULATE TOKEN (83h/10h) and WRITE USING TOKEN
 * (83h/11h) with their block device range descriptors; SPC-4 RECEIVE ROD
 * TOKEN INFORMATION (84h/07h), the ROD token format and ROD types, the
 * Third-party Copy VPD page (8Fh); sense codes 23h/xx (INVALID TOKEN
 * OPERATION ...).
 */
#ifndef KTARGET_PROTO_ROD_H
#define KTARGET_PROTO_ROD_H

#include <linux/bits.h>
#include <linux/types.h>

#include <ktarget/proto/xcopy.h>

/* Wire sizes */
#define KT_ROD_TOKEN_LEN	512	/* a ROD token */
#define KT_ROD_TOKEN_LEN_FIELD	0x01f8	/* its ROD TOKEN LENGTH: bytes after 7 */
#define KT_ROD_RANGE_LEN	16	/* block device range descriptor */
#define KT_ROD_PT_HDR_LEN	16	/* POPULATE TOKEN list before the ranges */
#define KT_ROD_WUT_HDR_LEN	536	/* WRITE USING TOKEN list before the ranges */
#define KT_ROD_WUT_TOKEN_OFF	16	/* the ROD TOKEN in that list */

/*
 * Limits, reported in the Block Device ROD Token Limits descriptor of VPD
 * page 8Fh and enforced by the parsers. A token represents at most
 * KT_ROD_MAX_BYTES; one WRITE USING TOKEN writes at most that much. With
 * at most 32 ranges on each side, a WRITE USING TOKEN is at most 63
 * pieces of one source and one destination range: the segments of one
 * EXTENDED COPY.
 */
#define KT_ROD_MAX_RANGES	32	/* MAXIMUM RANGE DESCRIPTORS */
#define KT_ROD_MAX_BYTES	(256U << 20)
#define KT_ROD_OPTIMAL_BYTES	(64U << 20)	/* OPTIMAL TRANSFER COUNT */
#define KT_ROD_TIMEOUT_MAX	600	/* MAXIMUM INACTIVITY TIMEOUT, s */
#define KT_ROD_TIMEOUT_DEFAULT	60	/* DEFAULT INACTIVITY TIMEOUT, s */
#define KT_ROD_MAX_PARAM_LEN	(KT_ROD_WUT_HDR_LEN + \
				 KT_ROD_MAX_RANGES * KT_ROD_RANGE_LEN)

/*
 * ROD types. ktarget's tokens are point in time copies that a change of
 * the source data revokes (change vulnerable); the block device zero ROD
 * token is taken by WRITE USING TOKEN, never made.
 */
#define KT_ROD_TYPE_PIT_DEFAULT		0x00800000
#define KT_ROD_TYPE_PIT_VULNERABLE	0x00800001
#define KT_ROD_TYPE_PIT_ANY		0x0080ffff
#define KT_ROD_TYPE_ZERO		0xffff0001

/* Where ktarget's token keeps what it says (bytes of the 512) */
#define KT_ROD_TOK_ID		8	/* COPY MANAGER ROD TOKEN IDENTIFIER */
#define KT_ROD_TOK_CREATOR	16	/* identification CSCD descriptor, E4h */
#define KT_ROD_TOK_BYTES	56	/* NUMBER OF BYTES REPRESENTED, low 8 */
#define KT_ROD_TOK_BLOCK_LEN	96	/* device type specific: block length */
#define KT_ROD_TOK_RANDOM	256	/* extended ROD token data: random */
#define KT_ROD_TOK_RANDOM_LEN	256

/* ASC << 8 | ASCQ of the token errors (SPC-4 ASC 23h) */
#define KT_ROD_ASC_TOKEN_INVALID	0x2300	/* CAUSE NOT REPORTABLE */
#define KT_ROD_ASC_TOKEN_TYPE		0x2301	/* UNSUPPORTED TOKEN TYPE */
#define KT_ROD_ASC_TOKEN_UNKNOWN	0x2304
#define KT_ROD_ASC_TOKEN_CORRUPT	0x2305
#define KT_ROD_ASC_TOKEN_REVOKED	0x2306
#define KT_ROD_ASC_TOKEN_EXPIRED	0x2307
#define KT_ROD_ASC_TOKEN_DELETED	0x2309
#define KT_ROD_ASC_TOKEN_LENGTH		0x230a	/* INVALID TOKEN LENGTH */
#define KT_ROD_ASC_INSUFFICIENT		0x5503	/* INSUFFICIENT RESOURCES */

/* One block device range descriptor */
struct kt_rod_range {
	u64	lba;
	u32	nr;		/* NUMBER OF LOGICAL BLOCKS, never 0 here */
};

/* The ranges of a list: empty descriptors dropped, none overlapping */
struct kt_rod_ranges {
	u64			blocks;		/* their sum */
	u16			nr;
	struct kt_rod_range	r[KT_ROD_MAX_RANGES];
};

/* What the parsers check ranges against: the LU the command was sent to */
struct kt_rod_geom {
	u64	nr_blocks;
	u32	block_size;
};

/* Bits of struct kt_rod_pt.flags and struct kt_rod_wut.flags */
#define KT_ROD_IMMED		BIT(0)
#define KT_ROD_RTV		BIT(1)	/* POPULATE TOKEN: ROD TYPE given */
#define KT_ROD_DEL_TKN		BIT(1)	/* WRITE USING TOKEN: delete it after */

/* A parsed POPULATE TOKEN parameter list */
struct kt_rod_pt {
	u32			timeout;	/* s; 0: the default */
	u32			type;		/* ROD TYPE asked for, with RTV */
	u8			flags;
	struct kt_rod_ranges	ranges;
};

/* A parsed WRITE USING TOKEN parameter list */
struct kt_rod_wut {
	u64			offset;		/* OFFSET INTO ROD, in blocks */
	u8			flags;
	u8			token[KT_ROD_TOKEN_LEN];
	struct kt_rod_ranges	ranges;
};

/*
 * Parse the parameter list of POPULATE TOKEN (@len bytes at @buf) sent to
 * the LU @g. KT_XCOPY_OK, or KT_XCOPY_ERROR with the sense in *@err:
 * PARAMETER LIST LENGTH ERROR, INVALID FIELD IN PARAMETER LIST (timeout
 * over KT_ROD_TIMEOUT_MAX, a ROD type not made here, overlapping ranges,
 * more than KT_ROD_MAX_BYTES), TOO MANY SEGMENT DESCRIPTORS, LOGICAL BLOCK
 * ADDRESS OUT OF RANGE.
 */
enum kt_xcopy_status kt_rod_parse_pt(const u8 *buf, size_t len,
				     const struct kt_rod_geom *g,
				     struct kt_rod_pt *pt,
				     struct kt_xcopy_err *err);

/* The same for WRITE USING TOKEN; the token is copied, not checked. */
enum kt_xcopy_status kt_rod_parse_wut(const u8 *buf, size_t len,
				      const struct kt_rod_geom *g,
				      struct kt_rod_wut *wut,
				      struct kt_xcopy_err *err);

/* What a token made here says of itself */
struct kt_rod_token_info {
	u64	id;		/* COPY MANAGER ROD TOKEN IDENTIFIER */
	u64	bytes;		/* NUMBER OF BYTES REPRESENTED */
	u32	type;		/* ROD TYPE */
	u32	block_size;	/* the source LU's logical block length */
	u8	naa[16];	/* the source LU's NAA designator (VPD 83h) */
};

/*
 * Write the token @info describes into @tok (KT_ROD_TOKEN_LEN bytes),
 * leaving its KT_ROD_TOK_RANDOM_LEN random bytes for the caller to fill.
 */
void kt_rod_token_build(const struct kt_rod_token_info *info, u8 *tok);

/*
 * Read ROD TYPE, ROD TOKEN LENGTH and the identifier of @tok into *@info.
 * Returns 0, or -EINVAL with *@err set: INVALID TOKEN LENGTH, or
 * UNSUPPORTED TOKEN TYPE for a type WRITE USING TOKEN does not take. Only
 * the copy manager's own record of the token can tell it is genuine.
 */
int kt_rod_token_read(const u8 *tok, struct kt_rod_token_info *info,
		      struct kt_xcopy_err *err);

/* ILLEGAL REQUEST with the ASC/ASCQ @asc (KT_ROD_ASC_*), no field */
void kt_rod_sense(struct kt_xcopy_err *err, u16 asc);

/* COPY OPERATION STATUS (SPC-4 RECEIVE ROD TOKEN INFORMATION) */
#define KT_ROD_OP_DONE		0x01	/* completed without errors */
#define KT_ROD_OP_FAILED	0x02	/* completed with errors */
#define KT_ROD_OP_RUNNING	0x11	/* in progress, foreground */

/* TRANSFER COUNT UNITS: logical blocks of the LU (ddpt reads blocks) */
#define KT_ROD_UNITS_BLOCKS	0xf1

/* The state of a token operation, for its RECEIVE ROD TOKEN INFORMATION */
struct kt_rod_status {
	u64	blocks;		/* TRANSFER COUNT */
	u16	segments;	/* SEGMENTS PROCESSED */
	u8	sa;		/* RESPONSE TO SERVICE ACTION: 10h or 11h */
	u8	op_status;	/* KT_ROD_OP_* */
	u8	scsi_status;	/* EXTENDED COPY COMPLETION STATUS */
};

#define KT_ROD_RRTI_HDR_LEN	32
#define KT_ROD_RRTI_SENSE_MAX	252

/*
 * RECEIVE ROD TOKEN INFORMATION parameter data into @buf (at most
 * @buf_len bytes): the status, the sense data of a failed operation
 * (@sense, @sense_len) and, for a POPULATE TOKEN that made one, @tok.
 * Returns the full length.
 */
unsigned int kt_rod_build_rrti(u8 *buf, unsigned int buf_len,
			       const struct kt_rod_status *st,
			       const u8 *sense, unsigned int sense_len,
			       const u8 *tok);

/*
 * Where byte @off of a token's data is: the token's source ranges @src,
 * of @bs byte blocks, read end to end. Returns how many of the @len bytes
 * from there lie in one source range, with their byte address in
 * *@src_pos; 0 when @off is past the end.
 */
u64 kt_rod_src_map(const struct kt_rod_ranges *src, u32 bs, u64 off, u64 len,
		   u64 *src_pos);

#endif /* KTARGET_PROTO_ROD_H */
