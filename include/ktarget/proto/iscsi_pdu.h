/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iSCSI Basic Header Segment (BHS): decoding of the PDUs an initiator sends,
 * encoding of the PDUs a target sends, and serial number arithmetic. Pure
 * functions over caller-owned buffers, built into ktarget_iscsi and into the
 * userspace unit and fuzz tests.
 *
 * References: RFC 7143 (iSCSI, consolidated) 4.2.2.1, 11, 13.12; RFC 1982.
 */
#ifndef KTARGET_PROTO_ISCSI_PDU_H
#define KTARGET_PROTO_ISCSI_PDU_H

#include <linux/bits.h>
#include <linux/types.h>

#define KT_ISCSI_BHS_LEN		48	/* RFC 7143 11.2 */
#define KT_ISCSI_BHS_AHS_LEN		4	/* offset of TotalAHSLength (words) */
#define KT_ISCSI_DIGEST_LEN		4	/* RFC 7143 11.2.3: CRC32C */
#define KT_ISCSI_CDB_LEN		16	/* RFC 7143 11.3.5 */
#define KT_ISCSI_ISID_LEN		6	/* RFC 7143 11.12.5 */
#define KT_ISCSI_MAX_DSL		0xffffff /* RFC 7143 11.2.1.6: 24 bits */
#define KT_ISCSI_MAX_AHS_LEN		(255 * 4) /* RFC 7143 11.2.1.5 */
#define KT_ISCSI_DEFAULT_MAX_RECV_DSL	8192	/* RFC 7143 13.12 */
#define KT_ISCSI_RSVD_TAG		0xffffffffU /* RFC 7143 11.2.1.8 */
#define KT_ISCSI_VERSION		0x00	/* RFC 7143 11.12.4 */

/* RFC 7143 11.2.1.2: opcodes, initiator 0x00-0x1f, target 0x20-0x3f */
enum kt_iscsi_opcode {
	KT_ISCSI_OP_NOP_OUT		= 0x00,
	KT_ISCSI_OP_SCSI_CMD		= 0x01,
	KT_ISCSI_OP_TMF_REQ		= 0x02,
	KT_ISCSI_OP_LOGIN_REQ		= 0x03,
	KT_ISCSI_OP_TEXT_REQ		= 0x04,
	KT_ISCSI_OP_DATA_OUT		= 0x05,
	KT_ISCSI_OP_LOGOUT_REQ		= 0x06,
	KT_ISCSI_OP_SNACK		= 0x10,

	KT_ISCSI_OP_NOP_IN		= 0x20,
	KT_ISCSI_OP_SCSI_RSP		= 0x21,
	KT_ISCSI_OP_TMF_RSP		= 0x22,
	KT_ISCSI_OP_LOGIN_RSP		= 0x23,
	KT_ISCSI_OP_TEXT_RSP		= 0x24,
	KT_ISCSI_OP_DATA_IN		= 0x25,
	KT_ISCSI_OP_LOGOUT_RSP		= 0x26,
	KT_ISCSI_OP_R2T			= 0x31,
	KT_ISCSI_OP_ASYNC		= 0x32,
	KT_ISCSI_OP_REJECT		= 0x3f,
};

/* Byte 0 (RFC 7143 11.2.1.1, 11.2.1.2) */
#define KT_ISCSI_OP_MASK		0x3f
#define KT_ISCSI_OP_TARGET		BIT(5)	/* set in every target opcode */
#define KT_ISCSI_OP_IMMEDIATE		BIT(6)	/* I */

/* Byte 1, common (RFC 7143 11.2.1.3) */
#define KT_ISCSI_FLAG_FINAL		BIT(7)	/* F */

/* Byte 1 of SCSI Command (RFC 7143 11.3.1) */
#define KT_ISCSI_CMD_READ		BIT(6)	/* R */
#define KT_ISCSI_CMD_WRITE		BIT(5)	/* W */
#define KT_ISCSI_CMD_ATTR_MASK		0x07	/* ATTR */

enum kt_iscsi_task_attr {
	KT_ISCSI_ATTR_UNTAGGED		= 0,
	KT_ISCSI_ATTR_SIMPLE		= 1,
	KT_ISCSI_ATTR_ORDERED		= 2,
	KT_ISCSI_ATTR_HEAD_OF_QUEUE	= 3,
	KT_ISCSI_ATTR_ACA		= 4,
};

/* Byte 1 of SCSI Response (RFC 7143 11.4.1) */
#define KT_ISCSI_RSP_BIDI_OVERFLOW	BIT(4)	/* o */
#define KT_ISCSI_RSP_BIDI_UNDERFLOW	BIT(3)	/* u */
#define KT_ISCSI_RSP_OVERFLOW		BIT(2)	/* O */
#define KT_ISCSI_RSP_UNDERFLOW		BIT(1)	/* U */

/* RFC 7143 11.4.3: the Response field of a SCSI Response */
#define KT_ISCSI_RESPONSE_COMPLETED	0x00
#define KT_ISCSI_RESPONSE_TARGET_FAILURE 0x01

/* Byte 1 of Data-In (RFC 7143 11.7.2, 11.7.3); F is KT_ISCSI_FLAG_FINAL */
#define KT_ISCSI_DATA_ACK		BIT(6)	/* A */
#define KT_ISCSI_DATA_OVERFLOW		BIT(2)	/* O */
#define KT_ISCSI_DATA_UNDERFLOW		BIT(1)	/* U */
#define KT_ISCSI_DATA_STATUS		BIT(0)	/* S */

/* Byte 1 of Text Request/Response (RFC 7143 11.10.2, 11.11.2) */
#define KT_ISCSI_TEXT_CONTINUE		BIT(6)	/* C */

/* Byte 1 of Login Request/Response (RFC 7143 11.12.1-11.12.3) */
#define KT_ISCSI_LOGIN_TRANSIT		BIT(7)	/* T */
#define KT_ISCSI_LOGIN_CONTINUE		BIT(6)	/* C */
#define KT_ISCSI_LOGIN_CSG_MASK		0x0c
#define KT_ISCSI_LOGIN_CSG_SHIFT	2
#define KT_ISCSI_LOGIN_NSG_MASK		0x03

/* RFC 7143 11.12.3: login stages; 2 is reserved */
enum kt_iscsi_stage {
	KT_ISCSI_STAGE_SECURITY		= 0,
	KT_ISCSI_STAGE_OPERATIONAL	= 1,
	KT_ISCSI_STAGE_FULL_FEATURE	= 3,
};

/* RFC 7143 11.13.5: Status-Class << 8 | Status-Detail */
#define KT_ISCSI_LOGIN_CLASS(status)	((u8)((status) >> 8))
#define KT_ISCSI_LOGIN_DETAIL(status)	((u8)(status))

enum kt_iscsi_login_class {
	KT_ISCSI_LOGIN_CLASS_SUCCESS	= 0,
	KT_ISCSI_LOGIN_CLASS_REDIRECT	= 1,
	KT_ISCSI_LOGIN_CLASS_INITIATOR	= 2,
	KT_ISCSI_LOGIN_CLASS_TARGET	= 3,
};

enum kt_iscsi_login_status {
	KT_ISCSI_LOGIN_SUCCESS			= 0x0000,
	KT_ISCSI_LOGIN_TARGET_MOVED_TEMP	= 0x0101,
	KT_ISCSI_LOGIN_TARGET_MOVED_PERM	= 0x0102,
	KT_ISCSI_LOGIN_INITIATOR_ERROR		= 0x0200,
	KT_ISCSI_LOGIN_AUTH_FAILED		= 0x0201,
	KT_ISCSI_LOGIN_AUTHZ_FAILED		= 0x0202,
	KT_ISCSI_LOGIN_NOT_FOUND		= 0x0203,
	KT_ISCSI_LOGIN_TARGET_REMOVED		= 0x0204,
	KT_ISCSI_LOGIN_UNSUPPORTED_VERSION	= 0x0205,
	KT_ISCSI_LOGIN_TOO_MANY_CONNECTIONS	= 0x0206,
	KT_ISCSI_LOGIN_MISSING_PARAMETER	= 0x0207,
	KT_ISCSI_LOGIN_CANT_INCLUDE_IN_SESSION	= 0x0208,
	KT_ISCSI_LOGIN_SESSION_TYPE_UNSUPPORTED	= 0x0209,
	KT_ISCSI_LOGIN_SESSION_DOES_NOT_EXIST	= 0x020a,
	KT_ISCSI_LOGIN_INVALID_DURING_LOGIN	= 0x020b,
	KT_ISCSI_LOGIN_TARGET_ERROR		= 0x0300,
	KT_ISCSI_LOGIN_SERVICE_UNAVAILABLE	= 0x0301,
	KT_ISCSI_LOGIN_OUT_OF_RESOURCES		= 0x0302,
};

/* RFC 7143 11.5.1: Function of a Task Management Function Request */
enum kt_iscsi_tmf_function {
	KT_ISCSI_TMF_ABORT_TASK		= 1,
	KT_ISCSI_TMF_ABORT_TASK_SET	= 2,
	KT_ISCSI_TMF_CLEAR_ACA		= 3,
	KT_ISCSI_TMF_CLEAR_TASK_SET	= 4,
	KT_ISCSI_TMF_LOGICAL_UNIT_RESET	= 5,
	KT_ISCSI_TMF_TARGET_WARM_RESET	= 6,
	KT_ISCSI_TMF_TARGET_COLD_RESET	= 7,
	KT_ISCSI_TMF_TASK_REASSIGN	= 8,
};

#define KT_ISCSI_TMF_FUNCTION_MASK	0x7f

/* RFC 7143 11.6.1: Response of a Task Management Function Response */
enum kt_iscsi_tmf_response {
	KT_ISCSI_TMF_RSP_COMPLETE		= 0,
	KT_ISCSI_TMF_RSP_NO_TASK		= 1,
	KT_ISCSI_TMF_RSP_NO_LUN			= 2,
	KT_ISCSI_TMF_RSP_TASK_ALLEGIANT		= 3,
	KT_ISCSI_TMF_RSP_NO_REASSIGN		= 4,
	KT_ISCSI_TMF_RSP_NOT_SUPPORTED		= 5,
	KT_ISCSI_TMF_RSP_AUTH_FAILED		= 6,
	KT_ISCSI_TMF_RSP_REJECTED		= 255,
};

/* RFC 7143 11.14.1: Reason Code of a Logout Request */
enum kt_iscsi_logout_reason {
	KT_ISCSI_LOGOUT_CLOSE_SESSION		= 0,
	KT_ISCSI_LOGOUT_CLOSE_CONNECTION	= 1,
	KT_ISCSI_LOGOUT_REMOVE_FOR_RECOVERY	= 2,
};

#define KT_ISCSI_LOGOUT_REASON_MASK	0x7f

/* RFC 7143 11.15.1: Response of a Logout Response */
enum kt_iscsi_logout_response {
	KT_ISCSI_LOGOUT_RSP_CLOSED		= 0,
	KT_ISCSI_LOGOUT_RSP_CID_NOT_FOUND	= 1,
	KT_ISCSI_LOGOUT_RSP_NO_RECOVERY		= 2,
	KT_ISCSI_LOGOUT_RSP_CLEANUP_FAILED	= 3,
};

/* RFC 7143 11.16.1: Type of a SNACK Request */
enum kt_iscsi_snack_type {
	KT_ISCSI_SNACK_DATA_R2T		= 0,
	KT_ISCSI_SNACK_STATUS		= 1,
	KT_ISCSI_SNACK_DATA_ACK		= 2,
	KT_ISCSI_SNACK_RDATA		= 3,
};

#define KT_ISCSI_SNACK_TYPE_MASK	0x0f

/* RFC 7143 11.9.1: AsyncEvent of an Asynchronous Message */
enum kt_iscsi_async_event {
	KT_ISCSI_ASYNC_SCSI_EVENT	= 0,
	KT_ISCSI_ASYNC_REQUEST_LOGOUT	= 1,
	KT_ISCSI_ASYNC_DROP_CONNECTION	= 2,
	KT_ISCSI_ASYNC_DROP_ALL		= 3,
	KT_ISCSI_ASYNC_RENEGOTIATE	= 4,
	KT_ISCSI_ASYNC_VENDOR		= 255,
};

/* RFC 7143 11.17.1: Reason of a Reject; 0x01 and 0x0b are not to be sent */
enum kt_iscsi_reject_reason {
	KT_ISCSI_REJECT_NONE		= 0x00,	/* no Reject to send */
	KT_ISCSI_REJECT_DATA_DIGEST	= 0x02,
	KT_ISCSI_REJECT_SNACK		= 0x03,
	KT_ISCSI_REJECT_PROTOCOL_ERROR	= 0x04,
	KT_ISCSI_REJECT_NOT_SUPPORTED	= 0x05,
	KT_ISCSI_REJECT_IMMEDIATE	= 0x06,
	KT_ISCSI_REJECT_TASK_IN_PROGRESS = 0x07,
	KT_ISCSI_REJECT_INVALID_DATA_ACK = 0x08,
	KT_ISCSI_REJECT_INVALID_FIELD	= 0x09,
	KT_ISCSI_REJECT_LONG_OP		= 0x0a,
	KT_ISCSI_REJECT_WAITING_LOGOUT	= 0x0c,
};

/* RFC 7143 11.2.2.1: AHSType */
#define KT_ISCSI_AHS_EXTENDED_CDB	1
#define KT_ISCSI_AHS_BIDI_READ_LEN	2

/* Result of kt_iscsi_bhs_decode() */
enum kt_iscsi_bhs_status {
	KT_ISCSI_BHS_OK = 0,
	KT_ISCSI_BHS_TRUNCATED,		/* fewer than 48 bytes: read more */
	KT_ISCSI_BHS_UNKNOWN_OPCODE,	/* initiator opcode not defined (or vendor) */
	KT_ISCSI_BHS_TARGET_OPCODE,	/* a target opcode sent by the initiator */
	KT_ISCSI_BHS_DATA_TOO_LONG,	/* DataSegmentLength over the limit */
	KT_ISCSI_BHS_RESERVED_VALUE,	/* reserved Logout reason or SNACK type */
	KT_ISCSI_BHS_BAD_CSG,		/* Login CSG reserved or FullFeaturePhase */
	KT_ISCSI_BHS_BAD_NSG,		/* Login T=1 with the reserved NSG 2 */
	KT_ISCSI_BHS_BAD_TRANSITION,	/* Login T=1 with NSG not after CSG */
	KT_ISCSI_BHS_BAD_CONTINUE,	/* Login C with T, or Text C with F */
	KT_ISCSI_BHS_BAD_NOP_ITT,	/* NOP-Out ITT 0xffffffff without I */
	KT_ISCSI_BHS_NO_DIRECTION,	/* SCSI Command EDTL != 0, no R nor W */
};

/*
 * An initiator PDU header as decoded by kt_iscsi_bhs_decode(). Fields not
 * carried by the opcode are zero. Multi-byte fields are in host order.
 */
struct kt_iscsi_bhs {
	const u8 *cdb;		/* SCSI Command: the 16 CDB bytes in the buffer */
	u64	lun;		/* bytes 8-15 as one big-endian number */
	u32	ahs_len;	/* TotalAHSLength, in bytes */
	u32	data_len;	/* DataSegmentLength, in bytes, without padding */
	u32	itt;		/* Initiator Task Tag */
	u32	ttt;		/* NOP-Out, Text, Data-Out; SNACK: TTT or SNACK Tag */
	u32	cmdsn;		/* all but Data-Out and SNACK */
	u32	exp_statsn;	/* all opcodes */
	u8	opcode;		/* byte 0 without the I bit */
	u8	flags;		/* byte 1 as received */
	bool	immediate;	/* I, where the opcode defines it */
	bool	final;		/* F (T for a Login Request) */
	u8	reject_reason;	/* on error: enum kt_iscsi_reject_reason */
	u8	bad_byte;	/* on error: offset of the offending byte */
	union {
		struct {		/* RFC 7143 11.3 */
			u32	exp_xfer_len;
			u8	attr;	/* enum kt_iscsi_task_attr */
			bool	read;
			bool	write;
		} cmd;
		struct {		/* RFC 7143 11.5 */
			u32	rtt;	/* Referenced Task Tag */
			u32	ref_cmdsn;
			u32	exp_datasn;
			u8	function; /* enum kt_iscsi_tmf_function */
		} tmf;
		struct {		/* RFC 7143 11.12 */
			u8	isid[KT_ISCSI_ISID_LEN];
			u16	tsih;
			u16	cid;
			u8	version_max;
			u8	version_min;
			u8	csg;	/* enum kt_iscsi_stage */
			u8	nsg;	/* 0 unless transit */
			bool	transit;
			bool	cont;
		} login;
		struct {		/* RFC 7143 11.10 */
			bool	cont;
		} text;
		struct {		/* RFC 7143 11.7 */
			u32	datasn;
			u32	offset;	/* Buffer Offset */
		} data;
		struct {		/* RFC 7143 11.14 */
			u16	cid;
			u8	reason;	/* enum kt_iscsi_logout_reason */
		} logout;
		struct {		/* RFC 7143 11.16 */
			u32	begrun;
			u32	runlength;
			u8	type;	/* enum kt_iscsi_snack_type */
		} snack;
	};
};

/*
 * Decode the BHS of a PDU received by a target. @max_data_len is the
 * MaxRecvDataSegmentLength the target declared (8192 before it is
 * negotiated), so that an oversized data segment is refused before it is
 * read. Whenever @len >= 48 the common fields (opcode, flags, lengths, ITT)
 * are filled even on error, so the caller can skip the rest of the PDU.
 * On error, @bhs->reject_reason is the Reject the target should send and
 * @bhs->bad_byte the offset of the field at fault. During the Login phase
 * the answer to a bad Login Request is a Login Response with Status-Class 2
 * (Initiator Error) rather than a Reject.
 */
enum kt_iscsi_bhs_status kt_iscsi_bhs_decode(const u8 *buf, size_t len,
					     u32 max_data_len,
					     struct kt_iscsi_bhs *bhs);

/* A short constant name for a status, for the caller's logging. */
const char *kt_iscsi_bhs_status_name(enum kt_iscsi_bhs_status status);

/* RFC 7143 11.2.4: data segments are padded to a multiple of 4 bytes. */
static inline u32 kt_iscsi_pad4(u32 len)
{
	return (len + 3) & ~3U;
}

/*
 * Bytes on the wire of the whole PDU: BHS, AHS, header digest, padded data
 * segment and, when there is a data segment, data digest (RFC 7143 11.2).
 * Never overflows: the result is at most 48 + 1020 + 4 + 2^24 + 4.
 */
u32 kt_iscsi_pdu_len(const struct kt_iscsi_bhs *bhs, bool hdr_digest,
		     bool data_digest);

/*
 * Target PDUs. Each encoder validates its struct, then writes all 48 bytes
 * of @bhs, zeroing the reserved fields; it returns 0, or -EINVAL without
 * touching @bhs. TotalAHSLength is always 0.
 */
struct kt_iscsi_nop_in {		/* RFC 7143 11.19 */
	u64	lun;		/* sent only with a valid TTT */
	u32	itt;		/* 0xffffffff unless answering a NOP-Out */
	u32	ttt;		/* 0xffffffff unless a NOP-Out is wanted */
	u32	statsn;
	u32	exp_cmdsn;
	u32	max_cmdsn;
	u32	data_len;
};

struct kt_iscsi_scsi_rsp {		/* RFC 7143 11.4 */
	u32	itt;
	u32	snack_tag;
	u32	statsn;
	u32	exp_cmdsn;
	u32	max_cmdsn;
	u32	exp_datasn;
	u32	bidi_residual;	/* sent only with o or u */
	u32	residual;	/* sent only with O or U */
	u32	data_len;	/* sense or response data */
	u8	flags;		/* KT_ISCSI_RSP_* */
	u8	response;	/* KT_ISCSI_RESPONSE_* */
	u8	status;		/* SAM status */
};

struct kt_iscsi_tmf_rsp {		/* RFC 7143 11.6 */
	u32	itt;
	u32	statsn;
	u32	exp_cmdsn;
	u32	max_cmdsn;
	u8	response;	/* enum kt_iscsi_tmf_response */
};

struct kt_iscsi_login_rsp {		/* RFC 7143 11.13 */
	u8	isid[KT_ISCSI_ISID_LEN];
	u16	tsih;
	u32	itt;
	u32	statsn;
	u32	exp_cmdsn;
	u32	max_cmdsn;
	u32	data_len;
	u16	status;		/* enum kt_iscsi_login_status */
	u8	version_max;
	u8	version_active;
	u8	csg;
	u8	nsg;		/* sent only with transit */
	bool	transit;
	bool	cont;
};

struct kt_iscsi_text_rsp {		/* RFC 7143 11.11 */
	u64	lun;
	u32	itt;
	u32	ttt;
	u32	statsn;
	u32	exp_cmdsn;
	u32	max_cmdsn;
	u32	data_len;
	bool	final;
	bool	cont;
};

struct kt_iscsi_data_in {		/* RFC 7143 11.7 */
	u64	lun;		/* sent only with A */
	u32	itt;
	u32	ttt;		/* sent only with A, else 0xffffffff */
	u32	statsn;		/* sent only with S */
	u32	exp_cmdsn;
	u32	max_cmdsn;
	u32	datasn;
	u32	offset;		/* Buffer Offset */
	u32	residual;	/* sent only with S and O or U */
	u32	data_len;
	u8	flags;		/* KT_ISCSI_FLAG_FINAL, KT_ISCSI_DATA_* */
	u8	status;		/* SAM status, sent only with S */
};

struct kt_iscsi_logout_rsp {		/* RFC 7143 11.15 */
	u32	itt;
	u32	statsn;
	u32	exp_cmdsn;
	u32	max_cmdsn;
	u16	time2wait;
	u16	time2retain;
	u8	response;	/* enum kt_iscsi_logout_response */
};

struct kt_iscsi_r2t {			/* RFC 7143 11.8 */
	u64	lun;
	u32	itt;
	u32	ttt;
	u32	statsn;
	u32	exp_cmdsn;
	u32	max_cmdsn;
	u32	r2tsn;
	u32	offset;		/* Buffer Offset */
	u32	desired_len;	/* Desired Data Transfer Length */
};

struct kt_iscsi_async {			/* RFC 7143 11.9 */
	u64	lun;		/* sent only for a SCSI async event */
	u32	statsn;
	u32	exp_cmdsn;
	u32	max_cmdsn;
	u32	data_len;
	u16	param1;
	u16	param2;
	u16	param3;
	u8	event;		/* enum kt_iscsi_async_event */
	u8	vcode;
};

struct kt_iscsi_reject {		/* RFC 7143 11.17 */
	u32	statsn;
	u32	exp_cmdsn;
	u32	max_cmdsn;
	u32	datasn;		/* DataSN/R2TSN, 0 when not relevant */
	u32	data_len;	/* length of the rejected header, usually 48 */
	u8	reason;		/* enum kt_iscsi_reject_reason */
};

int kt_iscsi_encode_nop_in(u8 *bhs, const struct kt_iscsi_nop_in *p);
int kt_iscsi_encode_scsi_rsp(u8 *bhs, const struct kt_iscsi_scsi_rsp *p);
int kt_iscsi_encode_tmf_rsp(u8 *bhs, const struct kt_iscsi_tmf_rsp *p);
int kt_iscsi_encode_login_rsp(u8 *bhs, const struct kt_iscsi_login_rsp *p);
int kt_iscsi_encode_text_rsp(u8 *bhs, const struct kt_iscsi_text_rsp *p);
int kt_iscsi_encode_data_in(u8 *bhs, const struct kt_iscsi_data_in *p);
int kt_iscsi_encode_logout_rsp(u8 *bhs, const struct kt_iscsi_logout_rsp *p);
int kt_iscsi_encode_r2t(u8 *bhs, const struct kt_iscsi_r2t *p);
int kt_iscsi_encode_async(u8 *bhs, const struct kt_iscsi_async *p);
int kt_iscsi_encode_reject(u8 *bhs, const struct kt_iscsi_reject *p);

/*
 * Serial number arithmetic on 32-bit sequence numbers (RFC 1982 with
 * SERIAL_BITS = 32, as RFC 7143 4.2.2.1 requires for CmdSN, StatSN, DataSN
 * and R2TSN). Two numbers exactly 2^31 apart are not ordered: neither is
 * less than the other.
 */
static inline bool kt_iscsi_sn_lt(u32 a, u32 b)
{
	return a != b && b - a < 0x80000000U;
}

static inline bool kt_iscsi_sn_lte(u32 a, u32 b)
{
	return a == b || kt_iscsi_sn_lt(a, b);
}

/*
 * RFC 7143 4.2.2.1: a non-immediate command is accepted when
 * ExpCmdSN <= CmdSN <= MaxCmdSN. Serial order is not transitive, so this
 * measures distances from ExpCmdSN instead of chaining two comparisons; a
 * window is only valid when MaxCmdSN - ExpCmdSN < 2^31, so MaxCmdSN =
 * ExpCmdSN - 1 (closed) and any MaxCmdSN further behind accept nothing.
 */
static inline bool kt_iscsi_sn_in_window(u32 sn, u32 exp, u32 max)
{
	return max - exp < 0x80000000U && sn - exp <= max - exp;
}

#endif /* KTARGET_PROTO_ISCSI_PDU_H */
