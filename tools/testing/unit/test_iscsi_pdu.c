// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of drivers/target/proto/iscsi_pdu.c: initiator PDUs built by
 * hand byte by byte, hostile headers, target PDUs read back field by field
 * at the offsets of RFC 7143 11, and serial number arithmetic.
 */
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/unaligned.h>

#include <ktarget/proto/iscsi_pdu.h>

#include "kt_test.h"

#define BHS		KT_ISCSI_BHS_LEN
#define NO_LIMIT	KT_ISCSI_MAX_DSL
#define DEF_LIMIT	KT_ISCSI_DEFAULT_MAX_RECV_DSL

/* Bytes 0, 1, 4 and 5-7: what every initiator PDU starts with. */
static void put_hdr(u8 *b, u8 byte0, u8 flags, u8 ahs_words, u32 dsl)
{
	memset(b, 0, BHS);
	b[0] = byte0;
	b[1] = flags;
	b[4] = ahs_words;
	put_unaligned_be24(dsl, &b[5]);
}

/* Decode from an exact-size heap copy, so ASan flags any overread. */
static enum kt_iscsi_bhs_status decode_exact(const u8 *src, size_t len,
					     u32 limit, struct kt_iscsi_bhs *h)
{
	enum kt_iscsi_bhs_status st;
	u8 *b = malloc(len ? len : 1);

	memcpy(b, src, len);
	st = kt_iscsi_bhs_decode(b, len, limit, h);
	h->cdb = NULL;	/* points into b, which goes away */
	free(b);
	return st;
}

/*
 * The test side decoder of target PDUs: every field read back at its RFC
 * 7143 offset, independently of the encoders.
 */
struct view {
	u8	opcode, flags, b2, b3, ahs;
	u32	dsl;
	u64	lun;
	u32	w[12];		/* big-endian words at 0, 4, ..., 44 */
};

#define W(off)	w[(off) / 4]

static struct view view(const u8 *b)
{
	struct view v;
	int i;

	v.opcode = b[0];
	v.flags = b[1];
	v.b2 = b[2];
	v.b3 = b[3];
	v.ahs = b[4];
	v.dsl = get_unaligned_be24(&b[5]);
	v.lun = get_unaligned_be64(&b[8]);
	for (i = 0; i < 12; i++)
		v.w[i] = get_unaligned_be32(&b[4 * i]);
	return v;
}

/* True when every byte of b[from..to] (inclusive) is zero. */
static int zero(const u8 *b, int from, int to)
{
	for (; from <= to; from++)
		if (b[from])
			return 0;
	return 1;
}

/* ------------------------------------------------------------------ */
/* initiator PDUs, one per opcode                                      */

static void nop_out_decodes_lun_ttt_and_sequence_numbers(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;

	put_hdr(b, 0x40, 0x80, 0, 0);
	put_unaligned_be64(0x0001000000000000ULL, &b[8]);
	put_unaligned_be32(0x11223344, &b[16]);
	put_unaligned_be32(0xffffffff, &b[20]);
	put_unaligned_be32(7, &b[24]);
	put_unaligned_be32(9, &b[28]);

	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_OK);
	KT_EXPECT_EQ(h.opcode, KT_ISCSI_OP_NOP_OUT);
	KT_EXPECT(h.immediate);
	KT_EXPECT(h.final);
	KT_EXPECT_EQ(h.lun, 0x0001000000000000ULL);
	KT_EXPECT_EQ(h.itt, 0x11223344);
	KT_EXPECT_EQ(h.ttt, 0xffffffff);
	KT_EXPECT_EQ(h.cmdsn, 7);
	KT_EXPECT_EQ(h.exp_statsn, 9);
	KT_EXPECT_EQ(h.reject_reason, KT_ISCSI_REJECT_NONE);
}

static void nop_out_answering_nop_in_decodes_ping_data_length(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;

	/* ITT 0xffffffff and I: the answer to a target's NOP-In */
	put_hdr(b, 0x40, 0x80, 0, 13);
	put_unaligned_be32(0xffffffff, &b[16]);
	put_unaligned_be32(0x00000abc, &b[20]);
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_OK);
	KT_EXPECT_EQ(h.ttt, 0xabc);
	KT_EXPECT_EQ(h.data_len, 13);
	KT_EXPECT_EQ(kt_iscsi_pdu_len(&h, false, false), 48 + 16);
}

static void nop_out_reserved_itt_without_immediate_is_rejected(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;

	put_hdr(b, 0x00, 0x80, 0, 0);
	put_unaligned_be32(0xffffffff, &b[16]);
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_BAD_NOP_ITT);
	KT_EXPECT_EQ(h.reject_reason, KT_ISCSI_REJECT_PROTOCOL_ERROR);
	KT_EXPECT_EQ(h.bad_byte, 0);

	/* an ordinary ITT may be non-immediate */
	put_unaligned_be32(1, &b[16]);
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_OK);
	KT_EXPECT(!h.immediate);
}

static void scsi_read10_command_decodes_cdb_and_expected_length(void)
{
	u8 *b = malloc(BHS);
	struct kt_iscsi_bhs h;
	static const u8 cdb[16] = { 0x28, 0, 0, 0, 0x10, 0, 0, 0, 8, 0 };

	/* READ (10) of 8 blocks, F + R + SIMPLE, as open-iscsi sends it */
	put_hdr(b, 0x01, 0xc1, 0, 0);
	put_unaligned_be64(0x0002000000000000ULL, &b[8]);
	put_unaligned_be32(0x0000002a, &b[16]);
	put_unaligned_be32(4096, &b[20]);
	put_unaligned_be32(0x100, &b[24]);
	put_unaligned_be32(0x55, &b[28]);
	memcpy(&b[32], cdb, 16);

	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, BHS, DEF_LIMIT, &h),
		     KT_ISCSI_BHS_OK);
	KT_EXPECT_EQ(h.opcode, KT_ISCSI_OP_SCSI_CMD);
	KT_EXPECT(!h.immediate);
	KT_EXPECT(h.final);
	KT_EXPECT(h.cmd.read);
	KT_EXPECT(!h.cmd.write);
	KT_EXPECT_EQ(h.cmd.attr, KT_ISCSI_ATTR_SIMPLE);
	KT_EXPECT_EQ(h.cmd.exp_xfer_len, 4096);
	KT_EXPECT_EQ(h.cmdsn, 0x100);
	KT_EXPECT_EQ(h.exp_statsn, 0x55);
	KT_EXPECT_EQ(h.itt, 0x2a);
	KT_EXPECT_EQ(h.lun, 0x0002000000000000ULL);
	KT_EXPECT(h.cdb == &b[32]);
	KT_EXPECT(!memcmp(h.cdb, cdb, 16));
	free(b);
}

static void scsi_write_with_immediate_data_decodes(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;

	/* W, no F: unsolicited Data-Out follows the immediate data */
	put_hdr(b, 0x01, 0x20 | KT_ISCSI_ATTR_ORDERED, 0, 8192);
	put_unaligned_be32(65536, &b[20]);
	b[32] = 0x2a;
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), 262144, &h),
		     KT_ISCSI_BHS_OK);
	KT_EXPECT(!h.final);
	KT_EXPECT(h.cmd.write);
	KT_EXPECT_EQ(h.cmd.attr, KT_ISCSI_ATTR_ORDERED);
	KT_EXPECT_EQ(h.data_len, 8192);
	KT_EXPECT_EQ(h.cdb[0], 0x2a);
}

static void scsi_bidirectional_command_keeps_both_flags(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;

	/* XDWRITEREAD (10): R + W, bidi length in an AHS of 8 bytes */
	put_hdr(b, 0x01, 0xe0, 2, 0);
	put_unaligned_be32(512, &b[20]);
	b[32] = 0x53;
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_OK);
	KT_EXPECT(h.cmd.read);
	KT_EXPECT(h.cmd.write);
	KT_EXPECT_EQ(h.ahs_len, 8);
}

static void scsi_command_with_length_but_no_direction_is_rejected(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;

	put_hdr(b, 0x01, 0x80, 0, 0);
	put_unaligned_be32(512, &b[20]);
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_NO_DIRECTION);
	KT_EXPECT_EQ(h.reject_reason, KT_ISCSI_REJECT_INVALID_FIELD);
	KT_EXPECT_EQ(h.bad_byte, 1);

	/* R or W with no data is allowed (RFC 7143 11.3.1) */
	put_unaligned_be32(0, &b[20]);
	b[1] = 0xe0;
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_OK);
	b[1] = 0x80;
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_OK);
}

static void tmf_abort_task_decodes_referenced_task(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;

	put_hdr(b, 0x42, 0x80 | KT_ISCSI_TMF_ABORT_TASK, 0, 0);
	put_unaligned_be64(0x0003000000000000ULL, &b[8]);
	put_unaligned_be32(0x77, &b[16]);
	put_unaligned_be32(0x2a, &b[20]);
	put_unaligned_be32(0x10, &b[24]);
	put_unaligned_be32(0x20, &b[28]);
	put_unaligned_be32(0x0f, &b[32]);
	put_unaligned_be32(0x3, &b[36]);
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_OK);
	KT_EXPECT_EQ(h.opcode, KT_ISCSI_OP_TMF_REQ);
	KT_EXPECT(h.immediate);
	KT_EXPECT_EQ(h.tmf.function, KT_ISCSI_TMF_ABORT_TASK);
	KT_EXPECT_EQ(h.tmf.rtt, 0x2a);
	KT_EXPECT_EQ(h.cmdsn, 0x10);
	KT_EXPECT_EQ(h.exp_statsn, 0x20);
	KT_EXPECT_EQ(h.tmf.ref_cmdsn, 0x0f);
	KT_EXPECT_EQ(h.tmf.exp_datasn, 3);
	KT_EXPECT_EQ(h.lun, 0x0003000000000000ULL);
}

static void tmf_unknown_function_is_left_to_the_tmf_code(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;

	/* answered by a TMF Response "not supported", not by a Reject */
	put_hdr(b, 0x42, 0x80 | 0x7f, 0, 0);
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_OK);
	KT_EXPECT_EQ(h.tmf.function, 0x7f);
}

/*
 * A first Login Request as open-iscsi sends it without CHAP: straight to
 * the operational stage, T = 1, NSG = FullFeaturePhase, an OUI-format ISID.
 */
static const char login_keys[] =
	"InitiatorName=iqn.2004-10.com.ubuntu:01:5d4ac1a3e3b\0"
	"InitiatorAlias=host1\0"
	"TargetName=iqn.2003-01.org.linux-iscsi.kt.x8664:sn.0123456789ab\0"
	"SessionType=Normal\0"
	"HeaderDigest=None\0"
	"DataDigest=None\0"
	"DefaultTime2Wait=2\0"
	"DefaultTime2Retain=0\0"
	"IFMarker=No\0"
	"OFMarker=No\0"
	"ErrorRecoveryLevel=0\0"
	"InitialR2T=No\0"
	"ImmediateData=Yes\0"
	"MaxBurstLength=16776192\0"
	"FirstBurstLength=262144\0"
	"MaxOutstandingR2T=1\0"
	"MaxConnections=1\0"
	"DataPDUInOrder=Yes\0"
	"DataSequenceInOrder=Yes\0"
	"MaxRecvDataSegmentLength=262144";

static void open_iscsi_login_request_decodes(void)
{
	static const u8 isid[6] = { 0x00, 0x02, 0x3d, 0x00, 0x00, 0x01 };
	u32 dsl = sizeof(login_keys);	/* keys end with a NUL */
	size_t n = BHS + kt_iscsi_pad4(dsl);
	u8 *b = calloc(1, n);
	struct kt_iscsi_bhs h;

	put_hdr(b, 0x43, 0x87, 0, dsl);
	memcpy(&b[8], isid, 6);		/* TSIH 0: a new session */
	put_unaligned_be32(0, &b[16]);	/* ITT */
	put_unaligned_be16(0, &b[20]);	/* CID */
	put_unaligned_be32(1, &b[24]);	/* CmdSN */
	memcpy(&b[BHS], login_keys, dsl);

	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, n, DEF_LIMIT, &h), KT_ISCSI_BHS_OK);
	KT_EXPECT_EQ(h.opcode, KT_ISCSI_OP_LOGIN_REQ);
	KT_EXPECT(h.immediate);
	KT_EXPECT(h.login.transit);
	KT_EXPECT(!h.login.cont);
	KT_EXPECT_EQ(h.login.csg, KT_ISCSI_STAGE_OPERATIONAL);
	KT_EXPECT_EQ(h.login.nsg, KT_ISCSI_STAGE_FULL_FEATURE);
	KT_EXPECT_EQ(h.login.version_max, 0);
	KT_EXPECT_EQ(h.login.version_min, 0);
	KT_EXPECT(!memcmp(h.login.isid, isid, 6));
	KT_EXPECT_EQ(h.login.tsih, 0);
	KT_EXPECT_EQ(h.login.cid, 0);
	KT_EXPECT_EQ(h.cmdsn, 1);
	KT_EXPECT_EQ(h.exp_statsn, 0);
	KT_EXPECT_EQ(h.data_len, dsl);
	KT_EXPECT_EQ(kt_iscsi_pdu_len(&h, false, false), n);
	/* digests are never used during login, but the sum still holds */
	KT_EXPECT_EQ(kt_iscsi_pdu_len(&h, true, true), n + 8);
	free(b);
}

static void security_stage_login_with_tsih_and_cid_decodes(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;

	/* a libiscsi-style random ISID, joining session 0x1234 on CID 2 */
	put_hdr(b, 0x43, 0x81, 0, 100);
	b[8] = 0x80;
	b[9] = 0x12;
	b[10] = 0x34;
	b[11] = 0x56;
	b[12] = 0x78;
	b[13] = 0x9a;
	put_unaligned_be16(0x1234, &b[14]);
	put_unaligned_be32(0xdeadbeef, &b[16]);
	put_unaligned_be16(2, &b[20]);
	put_unaligned_be32(0xfffffffe, &b[24]);
	put_unaligned_be32(0x33, &b[28]);
	b[2] = 0;
	b[3] = 0;
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_OK);
	KT_EXPECT_EQ(h.login.csg, KT_ISCSI_STAGE_SECURITY);
	KT_EXPECT_EQ(h.login.nsg, KT_ISCSI_STAGE_OPERATIONAL);
	KT_EXPECT_EQ(h.login.isid[0], 0x80);
	KT_EXPECT_EQ(h.login.isid[5], 0x9a);
	KT_EXPECT_EQ(h.login.tsih, 0x1234);
	KT_EXPECT_EQ(h.itt, 0xdeadbeef);
	KT_EXPECT_EQ(h.login.cid, 2);
	KT_EXPECT_EQ(h.cmdsn, 0xfffffffe);
	KT_EXPECT_EQ(h.exp_statsn, 0x33);
}

static void login_with_continue_and_transit_is_rejected(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;

	put_hdr(b, 0x43, 0xc1, 0, 0);
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_BAD_CONTINUE);
	KT_EXPECT_EQ(h.reject_reason, KT_ISCSI_REJECT_PROTOCOL_ERROR);
	KT_EXPECT_EQ(h.bad_byte, 1);

	/* C alone is fine: more text follows in the next PDU */
	b[1] = 0x41;
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_OK);
	KT_EXPECT(h.login.cont);
	KT_EXPECT(!h.login.transit);
}

static void login_transit_to_reserved_stage_2_is_rejected(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;

	put_hdr(b, 0x43, 0x82, 0, 0);	/* T, CSG 0, NSG 2 */
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_BAD_NSG);
	KT_EXPECT_EQ(h.reject_reason, KT_ISCSI_REJECT_PROTOCOL_ERROR);
	KT_EXPECT_EQ(h.bad_byte, 1);
	b[1] = 0x86;			/* T, CSG 1, NSG 2 */
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_BAD_NSG);
}

static void login_nsg_is_ignored_without_transit(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;

	/* RFC 7143 11.12.3: NSG is reserved when T = 0 */
	put_hdr(b, 0x43, 0x02, 0, 0);
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_OK);
	KT_EXPECT_EQ(h.login.nsg, 0);
	b[1] = 0x04;			/* CSG 1, NSG 0, T = 0 */
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_OK);
}

static void login_transit_backwards_or_in_place_is_rejected(void)
{
	static const u8 bad[] = {
		0x80,	/* CSG 0 -> NSG 0 */
		0x84,	/* CSG 1 -> NSG 0 */
		0x85,	/* CSG 1 -> NSG 1 */
	};
	static const u8 good[] = {
		0x81,	/* CSG 0 -> NSG 1 */
		0x83,	/* CSG 0 -> NSG 3 */
		0x87,	/* CSG 1 -> NSG 3 */
	};
	u8 b[BHS];
	struct kt_iscsi_bhs h;
	size_t i;

	for (i = 0; i < sizeof(bad); i++) {
		put_hdr(b, 0x43, bad[i], 0, 0);
		KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
			     KT_ISCSI_BHS_BAD_TRANSITION);
		KT_EXPECT_EQ(h.bad_byte, 1);
	}
	for (i = 0; i < sizeof(good); i++) {
		put_hdr(b, 0x43, good[i], 0, 0);
		KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
			     KT_ISCSI_BHS_OK);
	}
}

static void login_from_reserved_or_full_feature_stage_is_rejected(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;
	u8 flags[] = { 0x08, 0x0c, 0x8b, 0x8f };	/* CSG 2, 3, T */
	size_t i;

	for (i = 0; i < sizeof(flags); i++) {
		put_hdr(b, 0x43, flags[i], 0, 0);
		KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
			     KT_ISCSI_BHS_BAD_CSG);
		KT_EXPECT_EQ(h.reject_reason, KT_ISCSI_REJECT_PROTOCOL_ERROR);
	}
}

static void login_larger_than_default_segment_is_rejected(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;

	/* before negotiation the limit is 8192 (RFC 7143 13.12) */
	put_hdr(b, 0x43, 0x87, 0, 8193);
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_DATA_TOO_LONG);
	KT_EXPECT_EQ(h.reject_reason, KT_ISCSI_REJECT_PROTOCOL_ERROR);
	KT_EXPECT_EQ(h.bad_byte, 5);
	KT_EXPECT_EQ(h.data_len, 8193);	/* still there for the caller */
	put_unaligned_be24(8192, &b[5]);
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_OK);
}

static void text_request_decodes_ttt_and_continue(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;

	put_hdr(b, 0x44, 0x40, 0, 32);
	put_unaligned_be32(5, &b[16]);
	put_unaligned_be32(0x1000, &b[20]);
	put_unaligned_be32(11, &b[24]);
	put_unaligned_be32(12, &b[28]);
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_OK);
	KT_EXPECT_EQ(h.opcode, KT_ISCSI_OP_TEXT_REQ);
	KT_EXPECT(h.immediate);
	KT_EXPECT(h.text.cont);
	KT_EXPECT(!h.final);
	KT_EXPECT_EQ(h.ttt, 0x1000);
	KT_EXPECT_EQ(h.cmdsn, 11);
	KT_EXPECT_EQ(h.exp_statsn, 12);
	KT_EXPECT_EQ(h.data_len, 32);
}

static void text_request_with_continue_and_final_is_rejected(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;

	put_hdr(b, 0x04, 0xc0, 0, 0);
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_BAD_CONTINUE);
	KT_EXPECT_EQ(h.reject_reason, KT_ISCSI_REJECT_PROTOCOL_ERROR);
	KT_EXPECT_EQ(h.bad_byte, 1);
}

static void data_out_decodes_datasn_and_buffer_offset(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;

	/* bit 6 of byte 0 is reserved in Data-Out: not an I bit */
	put_hdr(b, 0x45, 0x80, 0, 65536);
	put_unaligned_be64(0x0001000000000000ULL, &b[8]);
	put_unaligned_be32(0x99, &b[16]);
	put_unaligned_be32(0x1234, &b[20]);
	put_unaligned_be32(0xaaaaaaaa, &b[24]);	/* reserved, ignored */
	put_unaligned_be32(0x42, &b[28]);
	put_unaligned_be32(3, &b[36]);
	put_unaligned_be32(3 * 65536, &b[40]);
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), 65536, &h),
		     KT_ISCSI_BHS_OK);
	KT_EXPECT_EQ(h.opcode, KT_ISCSI_OP_DATA_OUT);
	KT_EXPECT(!h.immediate);
	KT_EXPECT(h.final);
	KT_EXPECT_EQ(h.itt, 0x99);
	KT_EXPECT_EQ(h.ttt, 0x1234);
	KT_EXPECT_EQ(h.cmdsn, 0);
	KT_EXPECT_EQ(h.exp_statsn, 0x42);
	KT_EXPECT_EQ(h.data.datasn, 3);
	KT_EXPECT_EQ(h.data.offset, 3 * 65536);
	KT_EXPECT_EQ(h.data_len, 65536);
}

static void logout_request_decodes_reason_and_cid(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;

	put_hdr(b, 0x46, 0x80 | KT_ISCSI_LOGOUT_CLOSE_CONNECTION, 0, 0);
	put_unaligned_be32(0x31, &b[16]);
	put_unaligned_be16(7, &b[20]);
	put_unaligned_be32(100, &b[24]);
	put_unaligned_be32(200, &b[28]);
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_OK);
	KT_EXPECT_EQ(h.opcode, KT_ISCSI_OP_LOGOUT_REQ);
	KT_EXPECT(h.immediate);
	KT_EXPECT_EQ(h.logout.reason, KT_ISCSI_LOGOUT_CLOSE_CONNECTION);
	KT_EXPECT_EQ(h.logout.cid, 7);
	KT_EXPECT_EQ(h.cmdsn, 100);
	KT_EXPECT_EQ(h.exp_statsn, 200);
}

static void logout_with_reserved_reason_is_rejected(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;
	unsigned int r;

	for (r = 3; r < 128; r++) {
		put_hdr(b, 0x46, 0x80 | r, 0, 0);
		KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
			     KT_ISCSI_BHS_RESERVED_VALUE);
		KT_EXPECT_EQ(h.reject_reason, KT_ISCSI_REJECT_PROTOCOL_ERROR);
		KT_EXPECT_EQ(h.bad_byte, 1);
	}
}

static void snack_decodes_type_begrun_and_runlength(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;

	put_hdr(b, 0x10, 0x80 | KT_ISCSI_SNACK_DATA_ACK, 0, 0);
	put_unaligned_be64(0x0001000000000000ULL, &b[8]);
	put_unaligned_be32(0xffffffff, &b[16]);
	put_unaligned_be32(0x5000, &b[20]);
	put_unaligned_be32(0x66, &b[28]);
	put_unaligned_be32(17, &b[40]);
	put_unaligned_be32(0, &b[44]);
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_OK);
	KT_EXPECT_EQ(h.opcode, KT_ISCSI_OP_SNACK);
	KT_EXPECT_EQ(h.snack.type, KT_ISCSI_SNACK_DATA_ACK);
	KT_EXPECT_EQ(h.ttt, 0x5000);
	KT_EXPECT_EQ(h.exp_statsn, 0x66);
	KT_EXPECT_EQ(h.snack.begrun, 17);
	KT_EXPECT_EQ(h.snack.runlength, 0);

	put_unaligned_be32(3, &b[40]);
	put_unaligned_be32(4, &b[44]);
	b[1] = 0x80 | KT_ISCSI_SNACK_RDATA;
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_OK);
	KT_EXPECT_EQ(h.snack.begrun, 3);
	KT_EXPECT_EQ(h.snack.runlength, 4);
}

static void snack_with_reserved_type_is_rejected(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;
	unsigned int t;

	for (t = 4; t < 16; t++) {
		put_hdr(b, 0x10, 0x80 | t, 0, 0);
		KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
			     KT_ISCSI_BHS_RESERVED_VALUE);
		KT_EXPECT_EQ(h.bad_byte, 1);
	}
}

/* ------------------------------------------------------------------ */
/* hostile headers                                                     */

static void truncated_bhs_is_rejected(void)
{
	u8 src[BHS];
	struct kt_iscsi_bhs h;
	size_t n;

	put_hdr(src, 0x01, 0x80, 0, 0);
	for (n = 0; n < BHS; n++) {
		KT_EXPECT_EQ(decode_exact(src, n, NO_LIMIT, &h),
			     KT_ISCSI_BHS_TRUNCATED);
		KT_EXPECT_EQ(h.reject_reason, KT_ISCSI_REJECT_NONE);
		KT_EXPECT_EQ(h.opcode, 0);
	}
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(NULL, 0, NO_LIMIT, &h),
		     KT_ISCSI_BHS_TRUNCATED);
	KT_EXPECT_EQ(decode_exact(src, BHS, NO_LIMIT, &h), KT_ISCSI_BHS_OK);
}

static void every_opcode_decodes_within_48_bytes(void)
{
	struct kt_iscsi_bhs h;
	unsigned int op, fill;

	/* exact-size buffers, all bits set or clear around the opcode */
	for (fill = 0; fill < 2; fill++) {
		for (op = 0; op < 256; op++) {
			u8 *b = malloc(BHS);
			enum kt_iscsi_bhs_status st;

			memset(b, fill ? 0xff : 0, BHS);
			b[0] = op;
			st = kt_iscsi_bhs_decode(b, BHS, NO_LIMIT, &h);
			KT_EXPECT(st != KT_ISCSI_BHS_TRUNCATED);
			KT_EXPECT_EQ(h.opcode, op & 0x3f);
			if (st != KT_ISCSI_BHS_OK) {
				KT_EXPECT(h.reject_reason != 0);
				KT_EXPECT(h.bad_byte < BHS);
			}
			free(b);
		}
	}
}

static void unknown_initiator_opcodes_are_not_supported(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;
	unsigned int op;

	for (op = 0; op < 0x20; op++) {
		if (op <= 0x06 || op == 0x10)
			continue;
		/* with and without I, including vendor 0x1c-0x1e */
		put_hdr(b, op, 0x80, 0, 0);
		KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), NO_LIMIT, &h),
			     KT_ISCSI_BHS_UNKNOWN_OPCODE);
		KT_EXPECT_EQ(h.reject_reason, KT_ISCSI_REJECT_NOT_SUPPORTED);
		KT_EXPECT_EQ(h.bad_byte, 0);
		b[0] = op | 0x40;
		KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), NO_LIMIT, &h),
			     KT_ISCSI_BHS_UNKNOWN_OPCODE);
	}
}

static void target_opcodes_from_initiator_are_protocol_errors(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;
	unsigned int op;

	for (op = 0x20; op < 0x40; op++) {
		put_hdr(b, op, 0x80, 0, 0);
		KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), NO_LIMIT, &h),
			     KT_ISCSI_BHS_TARGET_OPCODE);
		KT_EXPECT_EQ(h.reject_reason, KT_ISCSI_REJECT_PROTOCOL_ERROR);
		KT_EXPECT_EQ(h.bad_byte, 0);
		KT_EXPECT_EQ(h.opcode, op);
		b[0] = op | 0xc0;
		KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), NO_LIMIT, &h),
			     KT_ISCSI_BHS_TARGET_OPCODE);
	}
}

static void reserved_bits_are_ignored(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;

	/* RFC 7143 11: receivers ignore reserved fields */
	put_hdr(b, 0x80 | 0x40, 0xff, 0, 0);	/* NOP-Out, byte 1 all ones */
	b[2] = 0xff;
	b[3] = 0xff;
	memset(&b[32], 0xff, 16);
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_OK);
	KT_EXPECT_EQ(h.opcode, KT_ISCSI_OP_NOP_OUT);
	KT_EXPECT_EQ(h.flags, 0xff);

	put_hdr(b, 0x05, 0x7f, 0, 0);		/* Data-Out without F */
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_OK);
	KT_EXPECT(!h.final);
}

static void data_segment_over_the_limit_is_rejected(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;

	put_hdr(b, 0x05, 0x80, 0, 262145);
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), 262144, &h),
		     KT_ISCSI_BHS_DATA_TOO_LONG);
	KT_EXPECT_EQ(h.bad_byte, 5);
	KT_EXPECT_EQ(h.reject_reason, KT_ISCSI_REJECT_PROTOCOL_ERROR);
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), 262145, &h),
		     KT_ISCSI_BHS_OK);

	/* the largest 24-bit length, and a limit of zero */
	put_unaligned_be24(0xffffff, &b[5]);
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), NO_LIMIT, &h),
		     KT_ISCSI_BHS_OK);
	KT_EXPECT_EQ(h.data_len, 0xffffff);
	put_unaligned_be24(1, &b[5]);
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), 0, &h),
		     KT_ISCSI_BHS_DATA_TOO_LONG);
	put_unaligned_be24(0, &b[5]);
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), 0, &h), KT_ISCSI_BHS_OK);
}

static void common_fields_are_filled_on_error(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;

	/* enough to skip the bad PDU and keep the connection in step */
	put_hdr(b, 0x1c, 0x80, 3, 1001);
	put_unaligned_be32(0xabcdef01, &b[16]);
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), NO_LIMIT, &h),
		     KT_ISCSI_BHS_UNKNOWN_OPCODE);
	KT_EXPECT_EQ(h.itt, 0xabcdef01);
	KT_EXPECT_EQ(h.ahs_len, 12);
	KT_EXPECT_EQ(h.data_len, 1001);
	KT_EXPECT_EQ(kt_iscsi_pdu_len(&h, true, true), 48 + 12 + 4 + 1004 + 4);
}

static void ahs_length_is_counted_in_words(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;

	/* extended CDB AHS for a 32-byte CDB: 4 + 16 rounded = 20 bytes */
	put_hdr(b, 0x01, 0x80, 5, 0);
	b[32] = 0x7f;
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_OK);
	KT_EXPECT_EQ(h.ahs_len, 20);
	KT_EXPECT_EQ(kt_iscsi_pdu_len(&h, false, false), 68);
	KT_EXPECT_EQ(kt_iscsi_pdu_len(&h, true, false), 72);

	b[4] = 255;
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), DEF_LIMIT, &h),
		     KT_ISCSI_BHS_OK);
	KT_EXPECT_EQ(h.ahs_len, KT_ISCSI_MAX_AHS_LEN);
}

static void pdu_length_adds_padding_and_digests(void)
{
	struct kt_iscsi_bhs h = { 0 };
	static const struct { u32 dsl, plain, hd, dd, both; } t[] = {
		{ 0, 48, 52, 48, 52 },	/* no data, no data digest */
		{ 1, 52, 56, 56, 60 },
		{ 2, 52, 56, 56, 60 },
		{ 3, 52, 56, 56, 60 },
		{ 4, 52, 56, 56, 60 },
		{ 5, 56, 60, 60, 64 },
		{ 8192, 8240, 8244, 8244, 8248 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		h.data_len = t[i].dsl;
		KT_EXPECT_EQ(kt_iscsi_pdu_len(&h, false, false), t[i].plain);
		KT_EXPECT_EQ(kt_iscsi_pdu_len(&h, true, false), t[i].hd);
		KT_EXPECT_EQ(kt_iscsi_pdu_len(&h, false, true), t[i].dd);
		KT_EXPECT_EQ(kt_iscsi_pdu_len(&h, true, true), t[i].both);
	}
	KT_EXPECT_EQ(kt_iscsi_pad4(0), 0);
	KT_EXPECT_EQ(kt_iscsi_pad4(0xffffff), 0x1000000);
}

static void largest_pdu_length_does_not_overflow(void)
{
	u8 b[BHS];
	struct kt_iscsi_bhs h;

	put_hdr(b, 0x05, 0x80, 255, 0xffffff);
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), NO_LIMIT, &h),
		     KT_ISCSI_BHS_OK);
	KT_EXPECT_EQ(kt_iscsi_pdu_len(&h, true, true),
		     48ULL + 1020 + 4 + 0x1000000 + 4);
}

static void status_names_cover_every_status(void)
{
	int s;

	for (s = KT_ISCSI_BHS_OK; s <= KT_ISCSI_BHS_NO_DIRECTION; s++)
		KT_EXPECT(strcmp(kt_iscsi_bhs_status_name(s), "invalid"));
	KT_EXPECT(!strcmp(kt_iscsi_bhs_status_name(KT_ISCSI_BHS_NO_DIRECTION + 1),
			  "invalid"));
}

/* ------------------------------------------------------------------ */
/* target PDUs                                                         */

static void nop_in_round_trips(void)
{
	struct kt_iscsi_nop_in p = {
		.lun = 0x0001000000000000ULL, .itt = 0xffffffff, .ttt = 0x77,
		.statsn = 1, .exp_cmdsn = 2, .max_cmdsn = 3, .data_len = 5,
	};
	u8 b[BHS];
	struct view v;

	memset(b, 0xa5, sizeof(b));
	KT_EXPECT_EQ(kt_iscsi_encode_nop_in(b, &p), 0);
	v = view(b);
	KT_EXPECT_EQ(v.opcode, KT_ISCSI_OP_NOP_IN);
	KT_EXPECT_EQ(v.flags, 0x80);
	KT_EXPECT_EQ(v.ahs, 0);
	KT_EXPECT_EQ(v.dsl, 5);
	KT_EXPECT_EQ(v.lun, 0x0001000000000000ULL);
	KT_EXPECT_EQ(v.W(16), 0xffffffff);
	KT_EXPECT_EQ(v.W(20), 0x77);
	KT_EXPECT_EQ(v.W(24), 1);
	KT_EXPECT_EQ(v.W(28), 2);
	KT_EXPECT_EQ(v.W(32), 3);
	KT_EXPECT(zero(b, 2, 3));
	KT_EXPECT(zero(b, 36, 47));

	/* an answer to a NOP-Out: no TTT, so no LUN either */
	p.itt = 0x10;
	p.ttt = 0xffffffff;
	KT_EXPECT_EQ(kt_iscsi_encode_nop_in(b, &p), 0);
	KT_EXPECT(zero(b, 8, 15));
	KT_EXPECT_EQ(view(b).W(16), 0x10);

	p.ttt = 0x5;	/* both tags valid is not a NOP-In */
	memset(b, 0xa5, sizeof(b));
	KT_EXPECT_EQ(kt_iscsi_encode_nop_in(b, &p), -EINVAL);
	KT_EXPECT_EQ(b[0], 0xa5);	/* untouched */
}

static void scsi_response_round_trips_with_residuals(void)
{
	struct kt_iscsi_scsi_rsp p = {
		.itt = 0x2a, .snack_tag = 0, .statsn = 10, .exp_cmdsn = 11,
		.max_cmdsn = 42, .exp_datasn = 4, .bidi_residual = 100,
		.residual = 512, .data_len = 20,
		.flags = KT_ISCSI_RSP_UNDERFLOW | KT_ISCSI_RSP_BIDI_OVERFLOW,
		.response = KT_ISCSI_RESPONSE_COMPLETED, .status = 0x02,
	};
	u8 b[BHS];
	struct view v;

	memset(b, 0xa5, sizeof(b));
	KT_EXPECT_EQ(kt_iscsi_encode_scsi_rsp(b, &p), 0);
	v = view(b);
	KT_EXPECT_EQ(v.opcode, KT_ISCSI_OP_SCSI_RSP);
	KT_EXPECT_EQ(v.flags, 0x80 | 0x10 | 0x02);
	KT_EXPECT_EQ(v.b2, 0);
	KT_EXPECT_EQ(v.b3, 0x02);
	KT_EXPECT_EQ(v.dsl, 20);
	KT_EXPECT(zero(b, 4, 4));
	KT_EXPECT(zero(b, 8, 15));
	KT_EXPECT_EQ(v.W(16), 0x2a);
	KT_EXPECT_EQ(v.W(20), 0);
	KT_EXPECT_EQ(v.W(24), 10);
	KT_EXPECT_EQ(v.W(28), 11);
	KT_EXPECT_EQ(v.W(32), 42);
	KT_EXPECT_EQ(v.W(36), 4);
	KT_EXPECT_EQ(v.W(40), 100);
	KT_EXPECT_EQ(v.W(44), 512);

	/* without O/U/o/u the residual counts are reserved */
	p.flags = 0;
	KT_EXPECT_EQ(kt_iscsi_encode_scsi_rsp(b, &p), 0);
	KT_EXPECT_EQ(b[1], 0x80);
	KT_EXPECT(zero(b, 40, 47));

	p.flags = KT_ISCSI_RSP_OVERFLOW;
	KT_EXPECT_EQ(kt_iscsi_encode_scsi_rsp(b, &p), 0);
	KT_EXPECT_EQ(view(b).W(44), 512);
	KT_EXPECT(zero(b, 40, 43));
}

static void scsi_response_with_overflow_and_underflow_is_invalid(void)
{
	struct kt_iscsi_scsi_rsp p = { .flags = KT_ISCSI_RSP_OVERFLOW |
					       KT_ISCSI_RSP_UNDERFLOW };
	u8 b[BHS];

	KT_EXPECT_EQ(kt_iscsi_encode_scsi_rsp(b, &p), -EINVAL);
	p.flags = KT_ISCSI_RSP_BIDI_OVERFLOW | KT_ISCSI_RSP_BIDI_UNDERFLOW;
	KT_EXPECT_EQ(kt_iscsi_encode_scsi_rsp(b, &p), -EINVAL);
	p.flags = 0x01;	/* reserved bit */
	KT_EXPECT_EQ(kt_iscsi_encode_scsi_rsp(b, &p), -EINVAL);
	p.flags = 0;
	p.data_len = 0x1000000;
	KT_EXPECT_EQ(kt_iscsi_encode_scsi_rsp(b, &p), -EINVAL);
}

static void tmf_response_round_trips(void)
{
	struct kt_iscsi_tmf_rsp p = {
		.itt = 0x77, .statsn = 5, .exp_cmdsn = 6, .max_cmdsn = 7,
		.response = KT_ISCSI_TMF_RSP_NO_TASK,
	};
	u8 b[BHS];
	struct view v;

	memset(b, 0xa5, sizeof(b));
	KT_EXPECT_EQ(kt_iscsi_encode_tmf_rsp(b, &p), 0);
	v = view(b);
	KT_EXPECT_EQ(v.opcode, KT_ISCSI_OP_TMF_RSP);
	KT_EXPECT_EQ(v.flags, 0x80);
	KT_EXPECT_EQ(v.b2, KT_ISCSI_TMF_RSP_NO_TASK);
	KT_EXPECT_EQ(v.W(16), 0x77);
	KT_EXPECT_EQ(v.W(24), 5);
	KT_EXPECT_EQ(v.W(28), 6);
	KT_EXPECT_EQ(v.W(32), 7);
	KT_EXPECT(zero(b, 3, 15));
	KT_EXPECT(zero(b, 20, 23));
	KT_EXPECT(zero(b, 36, 47));
}

static void login_response_round_trips(void)
{
	struct kt_iscsi_login_rsp p = {
		.isid = { 0x00, 0x02, 0x3d, 0x00, 0x00, 0x01 },
		.tsih = 0x0101, .itt = 0, .statsn = 0x1000, .exp_cmdsn = 1,
		.max_cmdsn = 64, .data_len = 300,
		.status = KT_ISCSI_LOGIN_SUCCESS,
		.version_max = 0, .version_active = 0,
		.csg = KT_ISCSI_STAGE_OPERATIONAL,
		.nsg = KT_ISCSI_STAGE_FULL_FEATURE, .transit = true,
	};
	u8 b[BHS];
	struct view v;

	memset(b, 0xa5, sizeof(b));
	KT_EXPECT_EQ(kt_iscsi_encode_login_rsp(b, &p), 0);
	v = view(b);
	KT_EXPECT_EQ(v.opcode, KT_ISCSI_OP_LOGIN_RSP);
	KT_EXPECT_EQ(v.flags, 0x87);
	KT_EXPECT_EQ(v.b2, 0);
	KT_EXPECT_EQ(v.b3, 0);
	KT_EXPECT_EQ(v.dsl, 300);
	KT_EXPECT(!memcmp(&b[8], p.isid, 6));
	KT_EXPECT_EQ(get_unaligned_be16(&b[14]), 0x0101);
	KT_EXPECT_EQ(v.W(16), 0);
	KT_EXPECT_EQ(v.W(24), 0x1000);
	KT_EXPECT_EQ(v.W(28), 1);
	KT_EXPECT_EQ(v.W(32), 64);
	KT_EXPECT_EQ(b[36], 0);
	KT_EXPECT_EQ(b[37], 0);
	KT_EXPECT(zero(b, 4, 4));
	KT_EXPECT(zero(b, 20, 23));
	KT_EXPECT(zero(b, 38, 47));

	/* a failed login: class 2 detail 1, no transit, NSG not sent */
	p.status = KT_ISCSI_LOGIN_AUTH_FAILED;
	p.transit = false;
	p.csg = KT_ISCSI_STAGE_SECURITY;
	p.data_len = 0;
	KT_EXPECT_EQ(kt_iscsi_encode_login_rsp(b, &p), 0);
	KT_EXPECT_EQ(b[1], 0x00);
	KT_EXPECT_EQ(b[36], 2);
	KT_EXPECT_EQ(b[37], 1);

	p.cont = true;
	KT_EXPECT_EQ(kt_iscsi_encode_login_rsp(b, &p), 0);
	KT_EXPECT_EQ(b[1], 0x40);
}

static void login_response_with_bad_flags_is_invalid(void)
{
	struct kt_iscsi_login_rsp p = { .transit = true, .cont = true,
					.nsg = 1 };
	u8 b[BHS];

	KT_EXPECT_EQ(kt_iscsi_encode_login_rsp(b, &p), -EINVAL);
	p.cont = false;
	p.csg = 4;
	KT_EXPECT_EQ(kt_iscsi_encode_login_rsp(b, &p), -EINVAL);
	p.csg = 0;
	p.nsg = 4;
	KT_EXPECT_EQ(kt_iscsi_encode_login_rsp(b, &p), -EINVAL);
}

static void login_response_decodes_as_a_target_opcode(void)
{
	struct kt_iscsi_login_rsp p = { .nsg = 1, .transit = true };
	struct kt_iscsi_bhs h;
	u8 b[BHS];

	KT_EXPECT_EQ(kt_iscsi_encode_login_rsp(b, &p), 0);
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(b, sizeof(b), NO_LIMIT, &h),
		     KT_ISCSI_BHS_TARGET_OPCODE);
}

static void text_response_round_trips(void)
{
	struct kt_iscsi_text_rsp p = {
		.lun = 0, .itt = 9, .ttt = 0x400, .statsn = 3, .exp_cmdsn = 4,
		.max_cmdsn = 5, .data_len = 8190, .cont = true,
	};
	u8 b[BHS];
	struct view v;

	memset(b, 0xa5, sizeof(b));
	KT_EXPECT_EQ(kt_iscsi_encode_text_rsp(b, &p), 0);
	v = view(b);
	KT_EXPECT_EQ(v.opcode, KT_ISCSI_OP_TEXT_RSP);
	KT_EXPECT_EQ(v.flags, 0x40);
	KT_EXPECT_EQ(v.dsl, 8190);
	KT_EXPECT_EQ(v.W(16), 9);
	KT_EXPECT_EQ(v.W(20), 0x400);
	KT_EXPECT_EQ(v.W(24), 3);
	KT_EXPECT_EQ(v.W(28), 4);
	KT_EXPECT_EQ(v.W(32), 5);
	KT_EXPECT(zero(b, 2, 4));
	KT_EXPECT(zero(b, 8, 15));
	KT_EXPECT(zero(b, 36, 47));

	p.final = true;
	KT_EXPECT_EQ(kt_iscsi_encode_text_rsp(b, &p), -EINVAL);
	p.cont = false;
	p.ttt = 0xffffffff;
	KT_EXPECT_EQ(kt_iscsi_encode_text_rsp(b, &p), 0);
	KT_EXPECT_EQ(b[1], 0x80);
}

static void data_in_with_status_round_trips(void)
{
	struct kt_iscsi_data_in p = {
		.lun = 0x0001000000000000ULL, .itt = 0x2a, .ttt = 0x99,
		.statsn = 20, .exp_cmdsn = 21, .max_cmdsn = 50, .datasn = 2,
		.offset = 16384, .residual = 4096, .data_len = 8192,
		.flags = KT_ISCSI_FLAG_FINAL | KT_ISCSI_DATA_STATUS |
			 KT_ISCSI_DATA_UNDERFLOW,
		.status = 0x00,
	};
	u8 b[BHS];
	struct view v;

	memset(b, 0xa5, sizeof(b));
	KT_EXPECT_EQ(kt_iscsi_encode_data_in(b, &p), 0);
	v = view(b);
	KT_EXPECT_EQ(v.opcode, KT_ISCSI_OP_DATA_IN);
	KT_EXPECT_EQ(v.flags, 0x83);
	KT_EXPECT_EQ(v.b2, 0);
	KT_EXPECT_EQ(v.b3, 0);
	KT_EXPECT_EQ(v.dsl, 8192);
	KT_EXPECT_EQ(v.lun, 0);		/* no A: reserved */
	KT_EXPECT_EQ(v.W(16), 0x2a);
	KT_EXPECT_EQ(v.W(20), 0xffffffff);
	KT_EXPECT_EQ(v.W(24), 20);
	KT_EXPECT_EQ(v.W(28), 21);
	KT_EXPECT_EQ(v.W(32), 50);
	KT_EXPECT_EQ(v.W(36), 2);
	KT_EXPECT_EQ(v.W(40), 16384);
	KT_EXPECT_EQ(v.W(44), 4096);

	/* CHECK CONDITION is not sent in Data-In, but any status encodes */
	p.status = 0x08;
	p.flags = KT_ISCSI_FLAG_FINAL | KT_ISCSI_DATA_STATUS;
	KT_EXPECT_EQ(kt_iscsi_encode_data_in(b, &p), 0);
	KT_EXPECT_EQ(b[3], 0x08);
	KT_EXPECT(zero(b, 44, 47));	/* no O/U: residual reserved */
}

static void data_in_without_status_zeroes_status_fields(void)
{
	struct kt_iscsi_data_in p = {
		.lun = 0x0001000000000000ULL, .itt = 1, .ttt = 0x55,
		.statsn = 20, .exp_cmdsn = 21, .max_cmdsn = 50, .datasn = 0,
		.offset = 0, .residual = 4096, .data_len = 512,
		.status = 0x02,
	};
	u8 b[BHS];
	struct view v;

	memset(b, 0xa5, sizeof(b));
	KT_EXPECT_EQ(kt_iscsi_encode_data_in(b, &p), 0);
	v = view(b);
	KT_EXPECT_EQ(v.flags, 0);
	KT_EXPECT_EQ(v.b3, 0);
	KT_EXPECT_EQ(v.W(24), 0);
	KT_EXPECT_EQ(v.W(28), 21);
	KT_EXPECT_EQ(v.W(44), 0);

	/* A asks for a DataACK SNACK: TTT and LUN are sent */
	p.flags = KT_ISCSI_FLAG_FINAL | KT_ISCSI_DATA_ACK;
	KT_EXPECT_EQ(kt_iscsi_encode_data_in(b, &p), 0);
	v = view(b);
	KT_EXPECT_EQ(v.flags, 0xc0);
	KT_EXPECT_EQ(v.lun, 0x0001000000000000ULL);
	KT_EXPECT_EQ(v.W(20), 0x55);
}

static void data_in_with_bad_flags_is_invalid(void)
{
	struct kt_iscsi_data_in p = { 0 };
	u8 b[BHS];

	p.flags = KT_ISCSI_DATA_STATUS;		/* S without F */
	KT_EXPECT_EQ(kt_iscsi_encode_data_in(b, &p), -EINVAL);
	p.flags = KT_ISCSI_FLAG_FINAL | KT_ISCSI_DATA_UNDERFLOW; /* U w/o S */
	KT_EXPECT_EQ(kt_iscsi_encode_data_in(b, &p), -EINVAL);
	p.flags = KT_ISCSI_FLAG_FINAL | KT_ISCSI_DATA_STATUS |
		  KT_ISCSI_DATA_UNDERFLOW | KT_ISCSI_DATA_OVERFLOW;
	KT_EXPECT_EQ(kt_iscsi_encode_data_in(b, &p), -EINVAL);
	p.flags = 0x20;				/* reserved bit */
	KT_EXPECT_EQ(kt_iscsi_encode_data_in(b, &p), -EINVAL);
	p.flags = 0;
	p.data_len = 0x1000000;
	KT_EXPECT_EQ(kt_iscsi_encode_data_in(b, &p), -EINVAL);
}

static void logout_response_round_trips(void)
{
	struct kt_iscsi_logout_rsp p = {
		.itt = 0x31, .statsn = 7, .exp_cmdsn = 8, .max_cmdsn = 9,
		.time2wait = 2, .time2retain = 20,
		.response = KT_ISCSI_LOGOUT_RSP_CLOSED,
	};
	u8 b[BHS];
	struct view v;

	memset(b, 0xa5, sizeof(b));
	KT_EXPECT_EQ(kt_iscsi_encode_logout_rsp(b, &p), 0);
	v = view(b);
	KT_EXPECT_EQ(v.opcode, KT_ISCSI_OP_LOGOUT_RSP);
	KT_EXPECT_EQ(v.flags, 0x80);
	KT_EXPECT_EQ(v.b2, 0);
	KT_EXPECT_EQ(v.W(16), 0x31);
	KT_EXPECT_EQ(v.W(24), 7);
	KT_EXPECT_EQ(v.W(28), 8);
	KT_EXPECT_EQ(v.W(32), 9);
	KT_EXPECT_EQ(get_unaligned_be16(&b[40]), 2);
	KT_EXPECT_EQ(get_unaligned_be16(&b[42]), 20);
	KT_EXPECT(zero(b, 3, 15));
	KT_EXPECT(zero(b, 20, 23));
	KT_EXPECT(zero(b, 36, 39));
	KT_EXPECT(zero(b, 44, 47));
}

static void r2t_round_trips(void)
{
	struct kt_iscsi_r2t p = {
		.lun = 0x0005000000000000ULL, .itt = 0x2a, .ttt = 0x1001,
		.statsn = 12, .exp_cmdsn = 13, .max_cmdsn = 14, .r2tsn = 1,
		.offset = 262144, .desired_len = 262144,
	};
	u8 b[BHS];
	struct view v;

	memset(b, 0xa5, sizeof(b));
	KT_EXPECT_EQ(kt_iscsi_encode_r2t(b, &p), 0);
	v = view(b);
	KT_EXPECT_EQ(v.opcode, KT_ISCSI_OP_R2T);
	KT_EXPECT_EQ(v.flags, 0x80);
	KT_EXPECT_EQ(v.dsl, 0);
	KT_EXPECT_EQ(v.lun, 0x0005000000000000ULL);
	KT_EXPECT_EQ(v.W(16), 0x2a);
	KT_EXPECT_EQ(v.W(20), 0x1001);
	KT_EXPECT_EQ(v.W(24), 12);
	KT_EXPECT_EQ(v.W(28), 13);
	KT_EXPECT_EQ(v.W(32), 14);
	KT_EXPECT_EQ(v.W(36), 1);
	KT_EXPECT_EQ(v.W(40), 262144);
	KT_EXPECT_EQ(v.W(44), 262144);
	KT_EXPECT(zero(b, 2, 7));

	p.desired_len = 0;
	KT_EXPECT_EQ(kt_iscsi_encode_r2t(b, &p), -EINVAL);
	p.desired_len = 1;
	p.ttt = 0xffffffff;
	KT_EXPECT_EQ(kt_iscsi_encode_r2t(b, &p), -EINVAL);
}

static void async_message_round_trips(void)
{
	struct kt_iscsi_async p = {
		.lun = 0x0001000000000000ULL, .statsn = 30, .exp_cmdsn = 31,
		.max_cmdsn = 32, .data_len = 0,
		.event = KT_ISCSI_ASYNC_REQUEST_LOGOUT, .param3 = 10,
	};
	u8 b[BHS];
	struct view v;

	memset(b, 0xa5, sizeof(b));
	KT_EXPECT_EQ(kt_iscsi_encode_async(b, &p), 0);
	v = view(b);
	KT_EXPECT_EQ(v.opcode, KT_ISCSI_OP_ASYNC);
	KT_EXPECT_EQ(v.flags, 0x80);
	KT_EXPECT_EQ(v.lun, 0);		/* not a SCSI event */
	KT_EXPECT_EQ(v.W(16), 0xffffffff);
	KT_EXPECT_EQ(v.W(24), 30);
	KT_EXPECT_EQ(v.W(28), 31);
	KT_EXPECT_EQ(v.W(32), 32);
	KT_EXPECT_EQ(b[36], KT_ISCSI_ASYNC_REQUEST_LOGOUT);
	KT_EXPECT_EQ(b[37], 0);
	KT_EXPECT_EQ(get_unaligned_be16(&b[38]), 0);
	KT_EXPECT_EQ(get_unaligned_be16(&b[40]), 0);
	KT_EXPECT_EQ(get_unaligned_be16(&b[42]), 10);
	KT_EXPECT(zero(b, 2, 7));
	KT_EXPECT(zero(b, 20, 23));
	KT_EXPECT(zero(b, 44, 47));

	/* a SCSI async event carries its LUN and sense data */
	p.event = KT_ISCSI_ASYNC_SCSI_EVENT;
	p.data_len = 20;
	KT_EXPECT_EQ(kt_iscsi_encode_async(b, &p), 0);
	v = view(b);
	KT_EXPECT_EQ(v.lun, 0x0001000000000000ULL);
	KT_EXPECT_EQ(v.dsl, 20);
}

static void reject_round_trips_and_carries_the_bad_header(void)
{
	struct kt_iscsi_reject p = {
		.statsn = 40, .exp_cmdsn = 41, .max_cmdsn = 42, .datasn = 0,
		.data_len = KT_ISCSI_BHS_LEN,
	};
	struct kt_iscsi_bhs h;
	u8 bad[BHS], b[BHS];
	struct view v;

	/* the decoder says what to answer, the encoder builds it */
	put_hdr(bad, 0x1d, 0x80, 0, 0);
	KT_EXPECT_EQ(kt_iscsi_bhs_decode(bad, sizeof(bad), NO_LIMIT, &h),
		     KT_ISCSI_BHS_UNKNOWN_OPCODE);
	p.reason = h.reject_reason;

	memset(b, 0xa5, sizeof(b));
	KT_EXPECT_EQ(kt_iscsi_encode_reject(b, &p), 0);
	v = view(b);
	KT_EXPECT_EQ(v.opcode, KT_ISCSI_OP_REJECT);
	KT_EXPECT_EQ(v.flags, 0x80);
	KT_EXPECT_EQ(v.b2, KT_ISCSI_REJECT_NOT_SUPPORTED);
	KT_EXPECT_EQ(v.dsl, 48);
	KT_EXPECT_EQ(v.W(16), 0xffffffff);
	KT_EXPECT_EQ(v.W(24), 40);
	KT_EXPECT_EQ(v.W(28), 41);
	KT_EXPECT_EQ(v.W(32), 42);
	KT_EXPECT(zero(b, 3, 4));
	KT_EXPECT(zero(b, 8, 15));
	KT_EXPECT(zero(b, 20, 23));
	KT_EXPECT(zero(b, 36, 47));

	p.reason = 0x01;
	KT_EXPECT_EQ(kt_iscsi_encode_reject(b, &p), -EINVAL);
	p.reason = 0x0b;
	KT_EXPECT_EQ(kt_iscsi_encode_reject(b, &p), -EINVAL);
	p.reason = 0x0d;
	KT_EXPECT_EQ(kt_iscsi_encode_reject(b, &p), -EINVAL);
	p.reason = KT_ISCSI_REJECT_NONE;
	KT_EXPECT_EQ(kt_iscsi_encode_reject(b, &p), -EINVAL);
}

static void every_target_pdu_is_refused_by_the_initiator_decoder(void)
{
	struct kt_iscsi_nop_in nop = { .itt = 1, .ttt = 0xffffffff };
	struct kt_iscsi_scsi_rsp rsp = { 0 };
	struct kt_iscsi_tmf_rsp tmf = { 0 };
	struct kt_iscsi_login_rsp login = { 0 };
	struct kt_iscsi_text_rsp text = { .final = true };
	struct kt_iscsi_data_in din = { 0 };
	struct kt_iscsi_logout_rsp logout = { 0 };
	struct kt_iscsi_r2t r2t = { .ttt = 1, .desired_len = 1 };
	struct kt_iscsi_async async = { 0 };
	struct kt_iscsi_reject rej = { .reason = 4 };
	u8 b[10][BHS];
	struct kt_iscsi_bhs h;
	int i;

	KT_EXPECT_EQ(kt_iscsi_encode_nop_in(b[0], &nop), 0);
	KT_EXPECT_EQ(kt_iscsi_encode_scsi_rsp(b[1], &rsp), 0);
	KT_EXPECT_EQ(kt_iscsi_encode_tmf_rsp(b[2], &tmf), 0);
	KT_EXPECT_EQ(kt_iscsi_encode_login_rsp(b[3], &login), 0);
	KT_EXPECT_EQ(kt_iscsi_encode_text_rsp(b[4], &text), 0);
	KT_EXPECT_EQ(kt_iscsi_encode_data_in(b[5], &din), 0);
	KT_EXPECT_EQ(kt_iscsi_encode_logout_rsp(b[6], &logout), 0);
	KT_EXPECT_EQ(kt_iscsi_encode_r2t(b[7], &r2t), 0);
	KT_EXPECT_EQ(kt_iscsi_encode_async(b[8], &async), 0);
	KT_EXPECT_EQ(kt_iscsi_encode_reject(b[9], &rej), 0);
	for (i = 0; i < 10; i++) {
		KT_EXPECT_EQ(kt_iscsi_bhs_decode(b[i], BHS, NO_LIMIT, &h),
			     KT_ISCSI_BHS_TARGET_OPCODE);
		KT_EXPECT_EQ(b[i][4], 0);	/* never an AHS */
	}
}

/* ------------------------------------------------------------------ */
/* serial number arithmetic                                            */

static void serial_numbers_compare_across_wrap(void)
{
	KT_EXPECT(kt_iscsi_sn_lt(0xffffffff, 0));
	KT_EXPECT(!kt_iscsi_sn_lt(0, 0xffffffff));
	KT_EXPECT(kt_iscsi_sn_lt(0xfffffff0, 0x10));
	KT_EXPECT(kt_iscsi_sn_lt(1, 2));
	KT_EXPECT(!kt_iscsi_sn_lt(2, 1));
	KT_EXPECT(!kt_iscsi_sn_lt(5, 5));
	KT_EXPECT(kt_iscsi_sn_lte(5, 5));
	KT_EXPECT(kt_iscsi_sn_lte(0xffffffff, 0));
	KT_EXPECT(!kt_iscsi_sn_lte(0, 0xffffffff));
	/* the farthest still ordered: 2^31 - 1 apart */
	KT_EXPECT(kt_iscsi_sn_lt(0, 0x7fffffff));
	KT_EXPECT(!kt_iscsi_sn_lt(0x7fffffff, 0));
	KT_EXPECT(kt_iscsi_sn_lt(0x80000000, 0xffffffff));
}

static void serial_numbers_half_range_apart_are_unordered(void)
{
	/* RFC 1982 3.2: the comparison is undefined, answer "not less" */
	KT_EXPECT(!kt_iscsi_sn_lt(0, 0x80000000));
	KT_EXPECT(!kt_iscsi_sn_lt(0x80000000, 0));
	KT_EXPECT(!kt_iscsi_sn_lte(0x12345678, 0x92345678));
	KT_EXPECT(!kt_iscsi_sn_lte(0x92345678, 0x12345678));
}

static void cmdsn_window_accepts_exp_to_max_across_wrap(void)
{
	/* window 0xfffffffe .. 0x00000002 */
	KT_EXPECT(kt_iscsi_sn_in_window(0xfffffffe, 0xfffffffe, 2));
	KT_EXPECT(kt_iscsi_sn_in_window(0xffffffff, 0xfffffffe, 2));
	KT_EXPECT(kt_iscsi_sn_in_window(0, 0xfffffffe, 2));
	KT_EXPECT(kt_iscsi_sn_in_window(2, 0xfffffffe, 2));
	KT_EXPECT(!kt_iscsi_sn_in_window(3, 0xfffffffe, 2));
	KT_EXPECT(!kt_iscsi_sn_in_window(0xfffffffd, 0xfffffffe, 2));

	/* a single slot */
	KT_EXPECT(kt_iscsi_sn_in_window(7, 7, 7));
	KT_EXPECT(!kt_iscsi_sn_in_window(8, 7, 7));
}

static void cmdsn_window_closed_when_max_is_exp_minus_one(void)
{
	/* RFC 7143 4.2.2.1: MaxCmdSN = ExpCmdSN - 1 means a zero window */
	KT_EXPECT(!kt_iscsi_sn_in_window(10, 10, 9));
	KT_EXPECT(!kt_iscsi_sn_in_window(9, 10, 9));
	KT_EXPECT(!kt_iscsi_sn_in_window(0, 0, 0xffffffff));
	KT_EXPECT(!kt_iscsi_sn_in_window(0xffffffff, 0, 0xffffffff));
}

static void cmdsn_window_with_max_far_behind_exp_accepts_nothing(void)
{
	/*
	 * MaxCmdSN 0xfffffffe is two behind ExpCmdSN 0: each half of
	 * "0 <= 0x7fffffff <= 0xfffffffe" holds on its own, yet the window
	 * is invalid and must not let 0x7fffffff in.
	 */
	KT_EXPECT(kt_iscsi_sn_lte(0, 0x7fffffff));
	KT_EXPECT(kt_iscsi_sn_lte(0x7fffffff, 0xfffffffe));
	KT_EXPECT(!kt_iscsi_sn_in_window(0x7fffffff, 0, 0xfffffffe));
	KT_EXPECT(!kt_iscsi_sn_in_window(0, 0, 0xfffffffe));
	KT_EXPECT(!kt_iscsi_sn_in_window(0x40000000, 0, 0x80000000));

	/* the widest valid window is 2^31 numbers */
	KT_EXPECT(kt_iscsi_sn_in_window(0x7fffffff, 0, 0x7fffffff));
	KT_EXPECT(kt_iscsi_sn_in_window(0, 0, 0x7fffffff));
	KT_EXPECT(!kt_iscsi_sn_in_window(0x80000000, 0, 0x7fffffff));
}

static const struct kt_test tests[] = {
	KT_TEST_ENTRY(nop_out_decodes_lun_ttt_and_sequence_numbers),
	KT_TEST_ENTRY(nop_out_answering_nop_in_decodes_ping_data_length),
	KT_TEST_ENTRY(nop_out_reserved_itt_without_immediate_is_rejected),
	KT_TEST_ENTRY(scsi_read10_command_decodes_cdb_and_expected_length),
	KT_TEST_ENTRY(scsi_write_with_immediate_data_decodes),
	KT_TEST_ENTRY(scsi_bidirectional_command_keeps_both_flags),
	KT_TEST_ENTRY(scsi_command_with_length_but_no_direction_is_rejected),
	KT_TEST_ENTRY(tmf_abort_task_decodes_referenced_task),
	KT_TEST_ENTRY(tmf_unknown_function_is_left_to_the_tmf_code),
	KT_TEST_ENTRY(open_iscsi_login_request_decodes),
	KT_TEST_ENTRY(security_stage_login_with_tsih_and_cid_decodes),
	KT_TEST_ENTRY(login_with_continue_and_transit_is_rejected),
	KT_TEST_ENTRY(login_transit_to_reserved_stage_2_is_rejected),
	KT_TEST_ENTRY(login_nsg_is_ignored_without_transit),
	KT_TEST_ENTRY(login_transit_backwards_or_in_place_is_rejected),
	KT_TEST_ENTRY(login_from_reserved_or_full_feature_stage_is_rejected),
	KT_TEST_ENTRY(login_larger_than_default_segment_is_rejected),
	KT_TEST_ENTRY(text_request_decodes_ttt_and_continue),
	KT_TEST_ENTRY(text_request_with_continue_and_final_is_rejected),
	KT_TEST_ENTRY(data_out_decodes_datasn_and_buffer_offset),
	KT_TEST_ENTRY(logout_request_decodes_reason_and_cid),
	KT_TEST_ENTRY(logout_with_reserved_reason_is_rejected),
	KT_TEST_ENTRY(snack_decodes_type_begrun_and_runlength),
	KT_TEST_ENTRY(snack_with_reserved_type_is_rejected),
	KT_TEST_ENTRY(truncated_bhs_is_rejected),
	KT_TEST_ENTRY(every_opcode_decodes_within_48_bytes),
	KT_TEST_ENTRY(unknown_initiator_opcodes_are_not_supported),
	KT_TEST_ENTRY(target_opcodes_from_initiator_are_protocol_errors),
	KT_TEST_ENTRY(reserved_bits_are_ignored),
	KT_TEST_ENTRY(data_segment_over_the_limit_is_rejected),
	KT_TEST_ENTRY(common_fields_are_filled_on_error),
	KT_TEST_ENTRY(ahs_length_is_counted_in_words),
	KT_TEST_ENTRY(pdu_length_adds_padding_and_digests),
	KT_TEST_ENTRY(largest_pdu_length_does_not_overflow),
	KT_TEST_ENTRY(status_names_cover_every_status),
	KT_TEST_ENTRY(nop_in_round_trips),
	KT_TEST_ENTRY(scsi_response_round_trips_with_residuals),
	KT_TEST_ENTRY(scsi_response_with_overflow_and_underflow_is_invalid),
	KT_TEST_ENTRY(tmf_response_round_trips),
	KT_TEST_ENTRY(login_response_round_trips),
	KT_TEST_ENTRY(login_response_with_bad_flags_is_invalid),
	KT_TEST_ENTRY(login_response_decodes_as_a_target_opcode),
	KT_TEST_ENTRY(text_response_round_trips),
	KT_TEST_ENTRY(data_in_with_status_round_trips),
	KT_TEST_ENTRY(data_in_without_status_zeroes_status_fields),
	KT_TEST_ENTRY(data_in_with_bad_flags_is_invalid),
	KT_TEST_ENTRY(logout_response_round_trips),
	KT_TEST_ENTRY(r2t_round_trips),
	KT_TEST_ENTRY(async_message_round_trips),
	KT_TEST_ENTRY(reject_round_trips_and_carries_the_bad_header),
	KT_TEST_ENTRY(every_target_pdu_is_refused_by_the_initiator_decoder),
	KT_TEST_ENTRY(serial_numbers_compare_across_wrap),
	KT_TEST_ENTRY(serial_numbers_half_range_apart_are_unordered),
	KT_TEST_ENTRY(cmdsn_window_accepts_exp_to_max_across_wrap),
	KT_TEST_ENTRY(cmdsn_window_closed_when_max_is_exp_minus_one),
	KT_TEST_ENTRY(cmdsn_window_with_max_far_behind_exp_accepts_nothing),
};

KT_TEST_MAIN(tests)
