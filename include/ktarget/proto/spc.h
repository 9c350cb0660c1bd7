/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SPC-4 / SBC-3 response data and CDB field checks: pure functions over a
 * plain description of the logical unit and the CDB bytes, built into
 * ktarget_core and into the userspace unit and fuzz tests.
 *
 *   spc.c   INQUIRY and its VPD pages, REPORT LUNS, REPORT SUPPORTED
 *           OPERATION CODES / TASK MANAGEMENT FUNCTIONS, REQUEST SENSE and
 *           the table-driven CDB checks (kt_spc_check_cdb())
 *   mode.c  MODE SENSE (6)/(10) and MODE SELECT (6)/(10)
 *   sbc.c   READ CAPACITY (10)/(16), WRITE SAME, UNMAP, GET LBA STATUS,
 *           READ DEFECT DATA
 *
 * The builders share one contract:
 *   - @cdb holds at least the CDB length its operation code implies;
 *   - @buf has room for @buf_len bytes; a builder writes at most
 *     min(@buf_len, ALLOCATION LENGTH) bytes to it and never reads it;
 *   - *@data_len is the number of bytes the command returns: the complete
 *     response cut to the ALLOCATION LENGTH (SPC-4 4.2.5), but not to
 *     @buf_len. The core sends min(*@data_len, its buffer) and reports the
 *     residual against the expected data transfer length: an ALLOCATION
 *     LENGTH smaller than the response is no overflow (libiscsi
 *     ModeSense6.Residuals); the full response length is in the data;
 *   - on failure the return value is the sense_reason_t to report and
 *     *@field points at the offending CDB or parameter list field.
 *
 * The core is expected to run kt_spc_check_cdb() on every command first:
 * the builders check the semantics of their fields, not reserved bits.
 *
 * References: SPC-4 (spc4r37), SBC-3 (sbc3r35), SAM-5.
 */
#ifndef KTARGET_PROTO_SPC_H
#define KTARGET_PROTO_SPC_H

#include <linux/bits.h>
#include <linux/types.h>

#include <ktarget/proto/lun.h>
#include <ktarget/proto/sense.h>

struct kt_cdb_desc;
struct kt_cdb_set;

/* Bits of struct kt_lu_info.flags, the device attributes LIO names */
#define KT_LU_WCE		BIT(0)	/* emulate_write_cache: WCE, V_SUP */
#define KT_LU_FUA_WRITE		BIT(1)	/* emulate_fua_write */
#define KT_LU_DPO		BIT(2)	/* emulate_dpo */
#define KT_LU_TPU		BIT(3)	/* emulate_tpu: UNMAP */
#define KT_LU_TPWS		BIT(4)	/* emulate_tpws: WRITE SAME with UNMAP */
#define KT_LU_CAW		BIT(5)	/* emulate_caw: COMPARE AND WRITE */
#define KT_LU_3PC		BIT(6)	/* emulate_3pc: EXTENDED COPY */
#define KT_LU_READ_ONLY		BIT(7)	/* write protected */
#define KT_LU_NONROT		BIT(8)	/* is_nonrot */
#define KT_LU_PR		BIT(9)	/* emulate_pr: PR and RESERVE/RELEASE */
#define KT_LU_LBPRZ		BIT(10)	/* unmap_zeroes_data */
#define KT_LU_TAS		BIT(11)	/* emulate_tas */
#define KT_LU_REST_REORD	BIT(12)	/* emulate_rest_reord: QAM 0 */
#define KT_LU_SWP		BIT(13)	/* software write protect is on */
#define KT_LU_WCE_CHANGEABLE	BIT(14)	/* MODE SELECT may change WCE */
#define KT_LU_SWP_CHANGEABLE	BIT(15)	/* MODE SELECT may change SWP */
#define KT_LU_BLOCK_ERASE	BIT(16)	/* SANITIZE BLOCK ERASE is offered */
#define KT_LU_LBP_THRESH	BIT(17)	/* a soft threshold is offered (1Ch/02h) */
#define KT_LU_LBP_THRESH_ON	BIT(18)	/* ... and enabled */
#define KT_LU_LBP_SITUA		BIT(19)	/* ... its UA for one I_T nexus only */
#define KT_LU_ROD		BIT(20)	/* token copy (ODX), with KT_LU_3PC */

/* Bits of struct kt_lu_info.tmf (SPC-4 6.37, supported TMFs) */
#define KT_TMF_SUP_ABORT_TASK		BIT(0)
#define KT_TMF_SUP_ABORT_TASK_SET	BIT(1)
#define KT_TMF_SUP_CLEAR_ACA		BIT(2)
#define KT_TMF_SUP_CLEAR_TASK_SET	BIT(3)
#define KT_TMF_SUP_LU_RESET		BIT(4)
#define KT_TMF_SUP_QUERY_TASK		BIT(5)
#define KT_TMF_SUP_TARGET_RESET		BIT(6)
#define KT_TMF_SUP_WAKEUP		BIT(7)
#define KT_TMF_SUP_QUERY_ASYNC		BIT(8)
#define KT_TMF_SUP_QUERY_TASK_SET	BIT(9)
#define KT_TMF_SUP_IT_NEXUS_RESET	BIT(10)

/* SPC-4 7.6.1: PROTOCOL IDENTIFIER */
#define KT_PROTO_FCP		0x0
#define KT_PROTO_SRP		0x4
#define KT_PROTO_ISCSI		0x5
#define KT_PROTO_SAS		0x6

/* Longest strings the builders use (SPC-4 6.6.2, 7.8) */
#define KT_SPC_VENDOR_LEN	8
#define KT_SPC_PRODUCT_LEN	16
#define KT_SPC_REVISION_LEN	4
#define KT_SPC_SERIAL_MAX	252	/* unit serial in VPD 80h */
#define KT_SPC_PD_TEXT_MAX	255	/* REPORT IDENTIFYING INFORMATION text */
#define KT_SPC_NAME_MAX		251	/* SCSI name string, plus NUL and padding: 252 */

/*
 * What the builders know about a logical unit, filled in by the core from
 * the device, its attributes and the LUN/port the command came through.
 * Strings are NUL-terminated (or NULL); the builders use at most the length
 * their field has and replace bytes outside 20h..7Eh with spaces.
 */
struct kt_lu_info {
	/*
	 * PERIPHERAL DEVICE TYPE: TYPE_DISK, or TYPE_ROM for a CD/DVD LU
	 * (proto/mmc.h), whose commands are @cmds (NULL: kt_sbc_cmds)
	 */
	u8	pdt;
	const struct kt_cdb_set *cmds;
	u64	nr_blocks;		/* capacity in logical blocks */
	u64	dev_id;			/* unique among this host's devices (NAA 6) */
	u64	max_write_same_len;	/* logical blocks, 0: no limit */
	u32	block_size;		/* logical block length in bytes */
	u32	hw_max_sectors;		/* MAXIMUM TRANSFER LENGTH, logical blocks */
	u32	optimal_sectors;	/* OPTIMAL TRANSFER LENGTH, logical blocks */
	u32	max_unmap_lba_count;
	u32	max_unmap_block_desc_count;
	u32	unmap_granularity;	/* logical blocks */
	u32	unmap_granularity_alignment;
	u32	company_id;		/* IEEE OUI, 24 bits */
	u32	flags;			/* KT_LU_* */
	u16	rel_port_id;		/* RELATIVE TARGET PORT IDENTIFIER */
	u16	tpg_id;			/* TARGET PORT GROUP */
	u16	lowest_aligned_lba;	/* 14 bits (READ CAPACITY (16)) */
	u16	tmf;			/* KT_TMF_* the fabric and core support */
	/*
	 * WRITE ATOMIC (SBC-4 4.29), in logical blocks: the Block Limits
	 * fields of the same names; @atomic_max_len 0 offers no atomic
	 * write at all (the opcode is then unsupported).
	 */
	u32	atomic_max_len;
	u32	atomic_alignment;	/* 0: any LBA */
	u32	atomic_granularity;	/* 0: any length */
	u32	atomic_max_with_boundary;
	u32	atomic_max_boundary;	/* 0: no ATOMIC BOUNDARY offered */
	u8	max_caw_blocks;		/* MAXIMUM COMPARE AND WRITE LENGTH */
	/* T10-PI: the protection type, 1 or 3 (proto/pi.h); 0 none */
	u8	pi_type;
	u8	lbppbe;			/* logical blocks per physical block, log2 */
	u8	proto_id;		/* KT_PROTO_ISCSI */
	u8	tpgs;			/* TPGS: 0 none, 1 implicit, 2 explicit, 3 both */
	u8	ua_intlck_ctrl;		/* UA_INTLCK_CTRL field value: 0, 2 or 3 */
	/*
	 * With KT_LU_LBP_THRESH: the THRESHOLD EXPONENT (threshold sets of
	 * 2^exp logical blocks) and the THRESHOLD COUNT of the one soft
	 * threshold, on available LBA mapping resources, armed decreasing.
	 */
	u8	lbp_thresh_exp;
	u32	lbp_thresh_count;
	const char *vendor_id;
	const char *product_id;
	const char *revision;
	const char *unit_serial;
	const char *pd_text_id_info;	/* "" or NULL: none */
	const char *port_name;		/* "iqn...,t,0x0001" or NULL */
	const char *target_name;	/* "iqn..." or NULL */
	/*
	 * Third-party Copy VPD page (8Fh), built by the copy manager for
	 * this LU (kt_xcopy_build_vpd_tpc()); the page is offered only when
	 * this is set and KT_LU_3PC is on.
	 */
	unsigned int (*vpd_tpc)(u8 *buf, unsigned int buf_len,
				const struct kt_lu_info *lu);
	u32	rod_timeout;		/* token copy: DEFAULT INACTIVITY TIMEOUT, s */
};

/* SBC-3: a DPOFUA bit of one means both DPO and FUA are honoured */
static inline bool kt_spc_dpofua(const struct kt_lu_info *lu)
{
	return (lu->flags & (KT_LU_FUA_WRITE | KT_LU_DPO)) ==
	       (KT_LU_FUA_WRITE | KT_LU_DPO);
}

/*
 * The longest WRITE ATOMIC the LU takes, in logical blocks: its
 * atomic_max_len, within MAXIMUM TRANSFER LENGTH (Block Limits VPD);
 * 0 when it offers none
 */
static inline u32 kt_sbc_atomic_max(const struct kt_lu_info *lu)
{
	if (lu->hw_max_sectors && lu->atomic_max_len > lu->hw_max_sectors)
		return lu->hw_max_sectors;
	return lu->atomic_max_len;
}

/* Logical block provisioning management enabled (LBPME) */
static inline bool kt_spc_lbpme(const struct kt_lu_info *lu)
{
	return lu->flags & (KT_LU_TPU | KT_LU_TPWS);
}

/*
 * Bounded output for the builders: bytes past @cap are counted, not
 * written, so @off ends as the full response length.
 */
struct kt_spc_out {
	u8	*buf;
	u32	cap;		/* bytes we may write */
	u32	alloc;		/* ALLOCATION LENGTH */
	u32	off;		/* bytes of the response so far */
};

static inline void kt_spc_out_init(struct kt_spc_out *o, u8 *buf,
				   u32 buf_len, u32 alloc_len)
{
	o->buf = buf;
	o->cap = buf_len < alloc_len ? buf_len : alloc_len;
	o->alloc = alloc_len;
	o->off = 0;
}

/* What the command returns: the response cut to the ALLOCATION LENGTH */
static inline u32 kt_spc_out_len(const struct kt_spc_out *o)
{
	return o->off < o->alloc ? o->off : o->alloc;
}

static inline void kt_spc_out_set(struct kt_spc_out *o, u32 pos, u8 v)
{
	if (pos < o->cap)
		o->buf[pos] = v;
}

static inline void kt_spc_out_u8(struct kt_spc_out *o, u8 v)
{
	kt_spc_out_set(o, o->off, v);
	if (o->off != (u32)~0U)
		o->off++;
}

static inline void kt_spc_out_be16(struct kt_spc_out *o, u16 v)
{
	kt_spc_out_u8(o, v >> 8);
	kt_spc_out_u8(o, v & 0xff);
}

static inline void kt_spc_out_be32(struct kt_spc_out *o, u32 v)
{
	kt_spc_out_be16(o, v >> 16);
	kt_spc_out_be16(o, v & 0xffff);
}

static inline void kt_spc_out_be64(struct kt_spc_out *o, u64 v)
{
	kt_spc_out_be32(o, v >> 32);
	kt_spc_out_be32(o, v & 0xffffffff);
}

static inline void kt_spc_out_fill(struct kt_spc_out *o, u8 v, u32 n)
{
	while (n--)
		kt_spc_out_u8(o, v);
}

static inline void kt_spc_out_mem(struct kt_spc_out *o, const u8 *p, u32 n)
{
	while (n--)
		kt_spc_out_u8(o, *p++);
}

static inline void kt_spc_out_set_be16(struct kt_spc_out *o, u32 pos, u16 v)
{
	kt_spc_out_set(o, pos, v >> 8);
	kt_spc_out_set(o, pos + 1, v & 0xff);
}

static inline void kt_spc_out_set_be32(struct kt_spc_out *o, u32 pos, u32 v)
{
	kt_spc_out_set_be16(o, pos, v >> 16);
	kt_spc_out_set_be16(o, pos + 2, v & 0xffff);
}

/* spc.c ------------------------------------------------------------------ */

/*
 * Validate the CDB of any command ktarget implements (SPC-4 4.2.5): the
 * operation code and service action must be supported with the features
 * @lu has on (else INVALID COMMAND OPERATION CODE, or INVALID FIELD IN CDB
 * at the SERVICE ACTION); every bit the CDB usage data of REPORT SUPPORTED
 * OPERATION CODES leaves clear must be zero (so DPO/FUA need DPOFUA, the
 * WRITE SAME UNMAP bit needs KT_LU_TPWS, *PROTECT fields are refused);
 * the CONTROL byte must not ask for NACA or linking; and the fields of
 * commands without a builder here must hold values we accept (VERIFY and
 * WRITE AND VERIFY BYTCHK, COMPARE AND WRITE length, START STOP UNIT,
 * PREVENT ALLOW MEDIUM REMOVAL, REPORT TARGET PORT GROUPS format). The
 * builders check the fields of their own commands. @len is the length of
 * @cdb; a CDB shorter than its command is refused.
 */
sense_reason_t kt_spc_check_cdb(const struct kt_lu_info *lu, const u8 *cdb,
				u32 len, struct kt_sense_field *field);
/*
 * The same, with @c the descriptor kt_cdb_desc_find() gave for @cdb
 * (NULL: none), as the core has it from decoding: no second lookup.
 */
sense_reason_t kt_spc_check_desc(const struct kt_lu_info *lu,
				 const struct kt_cdb_desc *c, const u8 *cdb,
				 u32 len, struct kt_sense_field *field);

/*
 * ALLOCATION LENGTH of a command that returns parameter data, or the
 * PARAMETER LIST LENGTH of one that takes it (0 for other commands and for
 * commands ktarget does not implement); the READ CAPACITY (10) response,
 * which has no such field, counts as 8. @cdb holds the whole CDB.
 */
u32 kt_spc_alloc_len(const u8 *cdb);
/* The same for the command @c describes (any command set) */
u32 kt_spc_desc_alloc_len(const struct kt_cdb_desc *c, const u8 *cdb);

/* INQUIRY (SPC-4 6.6): standard data and the VPD pages */
sense_reason_t kt_spc_inquiry(const struct kt_lu_info *lu, const u8 *cdb,
			      u8 *buf, u32 buf_len, u32 *data_len,
			      struct kt_sense_field *field);

/*
 * REPORT LUNS (SPC-4 6.33) listing the @nr LUNs in @luns that the I_T
 * nexus can see (LUN numbers as configured, < 16384; others are skipped),
 * plus the REPORT LUNS well-known LUN (proto/lun.h) when @wlun is true.
 * The longest answer: its header, every flat LUN and the well-known one.
 */
#define KT_REPORT_LUNS_MAX_LEN	(8 + 8 * (KT_LUN_FLAT_MAX + 2))

sense_reason_t kt_spc_report_luns(const u8 *cdb, const u64 *luns, u32 nr,
				  bool wlun, u8 *buf, u32 buf_len,
				  u32 *data_len, struct kt_sense_field *field);

/*
 * The 16 bytes of the NAA IEEE Registered Extended designator of @lu: the
 * COMPANY ID, 36 bits derived from the unit serial and the 64-bit device
 * id, so that two devices of one host never share it. XCOPY resolves copy
 * targets by this designator.
 */
#define KT_SPC_NAA_LEN		16

void kt_spc_naa(const struct kt_lu_info *lu, u8 *out);

/* REPORT SUPPORTED OPERATION CODES (SPC-4 6.35) */
sense_reason_t kt_spc_rsoc(const struct kt_lu_info *lu, const u8 *cdb,
			   u8 *buf, u32 buf_len, u32 *data_len,
			   struct kt_sense_field *field);

/*
 * REPORT IDENTIFYING INFORMATION (SPC-4 6.32): INFORMATION TYPE 0000000b
 * (the peripheral device identifying information, which only SET
 * IDENTIFYING INFORMATION sets: none here, so empty) and 0000010b (the
 * text of lu->pd_text_id_info, LIO's wwn/pd_text_id_info), and 1111111b,
 * the list of those two with their maximum lengths (0 and 256); any other
 * type is an invalid field.
 */
sense_reason_t kt_spc_report_id_info(const struct kt_lu_info *lu,
				     const u8 *cdb, u8 *buf, u32 buf_len,
				     u32 *data_len,
				     struct kt_sense_field *field);

/* REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS (SPC-4 6.37) */
sense_reason_t kt_spc_rstmf(const struct kt_lu_info *lu, const u8 *cdb,
			    u8 *buf, u32 buf_len, u32 *data_len,
			    struct kt_sense_field *field);

/*
 * REQUEST SENSE (SPC-4 6.39): return @sense (fixed format, @sense_len
 * bytes, as kt_sense_build() makes it) or, when @sense_len is 0, NO SENSE;
 * converted to descriptor format when the DESC bit asks for it.
 */
sense_reason_t kt_spc_request_sense(const u8 *cdb, const u8 *sense,
				    u32 sense_len, u8 *buf, u32 buf_len,
				    u32 *data_len, struct kt_sense_field *field);

/* mode.c ----------------------------------------------------------------- */

/* MODE SENSE (6) and (10) (SPC-4 6.11, 6.12) */
sense_reason_t kt_spc_mode_sense(const struct kt_lu_info *lu, const u8 *cdb,
				 u8 *buf, u32 buf_len, u32 *data_len,
				 struct kt_sense_field *field);

/* What a MODE SELECT asks to change */
#define KT_MODE_SET_WCE		BIT(0)	/* .wce holds the new WCE */
#define KT_MODE_SET_SWP		BIT(1)	/* .swp holds the new SWP */
#define KT_MODE_SET_LBP		BIT(2)	/* .lbp_* hold the new threshold */

struct kt_mode_select {
	u8	set;			/* KT_MODE_SET_* */
	u8	wce;
	u8	swp;
	u8	lbp_on;			/* ENABLED */
	u8	lbp_situa;		/* SITUA */
	u32	lbp_count;		/* THRESHOLD COUNT, in threshold sets */
};

/*
 * MODE SELECT (6) and (10) (SPC-4 6.9, 6.10) with @len bytes of parameter
 * list at @param. Nothing changes unless the whole list is valid: fields
 * that are not changeable must hold their current value.
 */
sense_reason_t kt_spc_mode_select(const struct kt_lu_info *lu, const u8 *cdb,
				  const u8 *param, u32 len,
				  struct kt_mode_select *sel,
				  struct kt_sense_field *field);

/* sbc.c ------------------------------------------------------------------ */

/* READ CAPACITY (10) and (16) (SBC-3) */
sense_reason_t kt_sbc_read_capacity(const struct kt_lu_info *lu,
				    const u8 *cdb, u8 *buf, u32 buf_len,
				    u32 *data_len,
				    struct kt_sense_field *field);

/* WRITE SAME (10) and (16), decoded */
#define KT_SBC_WS_UNMAP		BIT(0)	/* unmap if possible (UNMAP bit) */
#define KT_SBC_WS_NDOB		BIT(1)	/* no Data-Out buffer: write zeroes */

struct kt_sbc_ws {
	u64	lba;
	u64	nr_blocks;
	u8	flags;			/* KT_SBC_WS_* */
};

/*
 * Decode WRITE SAME (10)/(16) (SBC-3), range-checked against the
 * capacity; WSNZ is one, so a NUMBER OF LOGICAL BLOCKS of zero is refused.
 */
sense_reason_t kt_sbc_write_same(const struct kt_lu_info *lu, const u8 *cdb,
				 struct kt_sbc_ws *ws,
				 struct kt_sense_field *field);

/*
 * UNMAP parameter list (SBC-3): @len bytes at @param. Checks the header,
 * the descriptor count, the total and every range; on success *@nr is the
 * number of descriptors to pass to kt_sbc_unmap_desc().
 */
#define KT_SBC_UNMAP_HDR_LEN	8
#define KT_SBC_UNMAP_DESC_LEN	16

sense_reason_t kt_sbc_unmap_check(const struct kt_lu_info *lu,
				  const u8 *param, u32 len, u32 *nr,
				  struct kt_sense_field *field);

void kt_sbc_unmap_desc(const u8 *param, u32 i, u64 *lba, u32 *nr_blocks);

/* GET LBA STATUS provisioning status (SBC-3) */
#define KT_SBC_LBA_MAPPED	0x0
#define KT_SBC_LBA_DEALLOCATED	0x1
#define KT_SBC_LBA_ANCHORED	0x2

/*
 * Tell the status of the extent that starts at @lba: set *@nr (1..@max)
 * and *@status. Returns 0 or a negative errno.
 */
typedef int (*kt_sbc_lba_status_fn)(void *priv, u64 lba, u64 max, u64 *nr,
				    u8 *status);

/*
 * GET LBA STATUS (SBC-3): descriptors from @fn, or one descriptor saying
 * everything from the starting LBA is mapped when @fn is NULL.
 */
sense_reason_t kt_sbc_get_lba_status(const struct kt_lu_info *lu,
				     const u8 *cdb, kt_sbc_lba_status_fn fn,
				     void *priv, u8 *buf, u32 buf_len,
				     u32 *data_len,
				     struct kt_sense_field *field);

/* FORMAT UNIT (SBC-4 5.3): the parameter list headers */
#define KT_SBC_FORMAT_SHORT_HDR		4
#define KT_SBC_FORMAT_LONG_HDR		8

struct kt_sbc_format {
	u8	fmtpinfo;		/* FMTPINFO, CDB byte 1 bits 7..6 */
	u8	pfu;			/* PROTECTION FIELD USAGE */
	bool	immed;
	u8	param_len;		/* the header FMTDATA brings, or 0 */
};

/*
 * FORMAT UNIT CDB: FMTPINFO and the parameter list it brings (FMTDATA:
 * the short or, with LONGLIST, the long header); the rest of @f is 0.
 */
void kt_sbc_format_cdb(const u8 *cdb, struct kt_sbc_format *f);

/*
 * FORMAT UNIT parameter list header of @len bytes (f->param_len at
 * least): PROTECTION FIELD USAGE and IMMED into @f. A defect list, an
 * initialization pattern or a protection interval exponent is INVALID
 * FIELD IN PARAMETER LIST.
 */
sense_reason_t kt_sbc_format_param(const u8 *param, u32 len,
				   struct kt_sbc_format *f,
				   struct kt_sense_field *field);

/*
 * The protection type (0 none, 1, 2, 3) FMTPINFO and PROTECTION FIELD
 * USAGE ask for, or -EINVAL with @field at the field at fault.
 */
int kt_sbc_format_pi_type(const struct kt_sbc_format *f,
			  struct kt_sense_field *field);

/* SANITIZE (SBC-3 5.19): service actions ktarget knows */
#define KT_SBC_SANITIZE_OVERWRITE	0x01
#define KT_SBC_SANITIZE_BLOCK_ERASE	0x02
#define KT_SBC_SANITIZE_EXIT_FAILURE	0x1f
#define KT_SBC_SANITIZE_HDR_LEN		4	/* OVERWRITE list header */

struct kt_sbc_sanitize {
	u8	sa;			/* SERVICE ACTION */
	bool	immed;
	bool	ause;			/* EXIT FAILURE MODE allowed after a failure */
	u16	param_len;
	/* OVERWRITE, from kt_sbc_sanitize_overwrite() */
	bool	invert;			/* invert the pattern between passes */
	u8	passes;			/* OVERWRITE COUNT, 1..31 */
	u16	pattern_len;		/* the pattern follows the header */
};

/*
 * SANITIZE CDB: the service action, its flags and whether the parameter
 * list length suits it (OVERWRITE: a header and 1 to block-size bytes of
 * pattern; the others: none). The service action itself was checked
 * against what the LU offers by kt_spc_check_cdb().
 */
sense_reason_t kt_sbc_sanitize_cdb(const struct kt_lu_info *lu, const u8 *cdb,
				   struct kt_sbc_sanitize *s,
				   struct kt_sense_field *field);

/* SANITIZE OVERWRITE parameter list of @len bytes: fills the rest of @s */
sense_reason_t kt_sbc_sanitize_overwrite(const struct kt_lu_info *lu,
					 const u8 *param, u32 len,
					 struct kt_sbc_sanitize *s,
					 struct kt_sense_field *field);

/*
 * WRITE ATOMIC (16) (SBC-4 5.48, 4.29): the ATOMIC BOUNDARY and TRANSFER
 * LENGTH against the LU's atomic limits, the LBA against its ATOMIC
 * ALIGNMENT. Any field off them is INVALID FIELD IN CDB pointing at it.
 * The range against the capacity is the caller's, as for any write.
 */
sense_reason_t kt_sbc_write_atomic(const struct kt_lu_info *lu, const u8 *cdb,
				   struct kt_sense_field *field);

/* READ DEFECT DATA (10)/(12) (SBC-3): an empty defect list */
sense_reason_t kt_sbc_read_defect_data(const u8 *cdb, u8 *buf, u32 buf_len,
				       u32 *data_len,
				       struct kt_sense_field *field);

#endif /* KTARGET_PROTO_SPC_H */
