// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for drivers/target/proto/iscsi_pdu.c.
 *
 * The input is decoded as a received BHS (bytes 48-51, when present, give
 * the MaxRecvDataSegmentLength), then reused as the field values of every
 * target PDU encoder and of the serial number helpers. Any broken invariant
 * aborts.
 */
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/unaligned.h>
#include <stdlib.h>
#include <string.h>

#include <ktarget/proto/iscsi_pdu.h>

#define CHECK(x)	do { if (!(x)) abort(); } while (0)
#define BHS		KT_ISCSI_BHS_LEN
#define RSVD		KT_ISCSI_RSVD_TAG

/* Field values drawn from the input, zeros once it runs out. */
struct cursor {
	const u8 *p;
	size_t n;
};

static u8 take8(struct cursor *c)
{
	if (!c->n)
		return 0;
	c->n--;
	return *c->p++;
}

static u16 take16(struct cursor *c)
{
	u16 hi = take8(c);

	return hi << 8 | take8(c);
}

static u32 take32(struct cursor *c)
{
	u32 hi = take16(c);

	return hi << 16 | take16(c);
}

static u64 take64(struct cursor *c)
{
	u64 hi = take32(c);

	return hi << 32 | take32(c);
}

/* A data length that is valid about half of the time. */
static u32 take_dsl(struct cursor *c)
{
	return take32(c) & 0x1ffffff;
}

/* A tag that is often the reserved 0xffffffff. */
static u32 take_tag(struct cursor *c)
{
	return (take8(c) & 1) ? RSVD : take32(c);
}

static bool zero(const u8 *b, int from, int to)
{
	for (; from <= to; from++)
		if (b[from])
			return false;
	return true;
}

static u32 be32(const u8 *b, int off)
{
	return get_unaligned_be32(&b[off]);
}

/* Checks every encoded target PDU has in common. */
static void check_common(const u8 *b, u8 opcode, u32 dsl, u32 statsn,
			 u32 exp_cmdsn, u32 max_cmdsn)
{
	struct kt_iscsi_bhs h;

	CHECK(b[0] == opcode);
	CHECK(b[4] == 0);
	CHECK(get_unaligned_be24(&b[5]) == dsl);
	CHECK(be32(b, 24) == statsn);
	CHECK(be32(b, 28) == exp_cmdsn);
	CHECK(be32(b, 32) == max_cmdsn);
	/* what a target sends, a target must refuse to receive */
	CHECK(kt_iscsi_bhs_decode(b, BHS, KT_ISCSI_MAX_DSL, &h) ==
	      KT_ISCSI_BHS_TARGET_OPCODE);
}

/* The encoder failed: it must have had a reason and left @b alone. */
static void check_refused(const u8 *b, bool invalid)
{
	CHECK(invalid);
	CHECK(b[0] == 0xa5 && b[47] == 0xa5);
}

static void fuzz_nop_in(struct cursor *c)
{
	struct kt_iscsi_nop_in p;
	u8 b[BHS];
	bool bad;

	p.lun = take64(c);
	p.itt = take_tag(c);
	p.ttt = take_tag(c);
	p.statsn = take32(c);
	p.exp_cmdsn = take32(c);
	p.max_cmdsn = take32(c);
	p.data_len = take_dsl(c);
	bad = p.data_len > KT_ISCSI_MAX_DSL || (p.itt != RSVD && p.ttt != RSVD);

	memset(b, 0xa5, sizeof(b));
	if (kt_iscsi_encode_nop_in(b, &p)) {
		check_refused(b, bad);
		return;
	}
	CHECK(!bad);
	check_common(b, KT_ISCSI_OP_NOP_IN, p.data_len, p.statsn, p.exp_cmdsn,
		     p.max_cmdsn);
	CHECK(b[1] == 0x80 && zero(b, 2, 3) && zero(b, 36, 47));
	CHECK(get_unaligned_be64(&b[8]) == (p.ttt != RSVD ? p.lun : 0));
	CHECK(be32(b, 16) == p.itt && be32(b, 20) == p.ttt);
}

static void fuzz_scsi_rsp(struct cursor *c)
{
	struct kt_iscsi_scsi_rsp p;
	u8 b[BHS];
	bool bad;

	p.itt = take32(c);
	p.snack_tag = take32(c);
	p.statsn = take32(c);
	p.exp_cmdsn = take32(c);
	p.max_cmdsn = take32(c);
	p.exp_datasn = take32(c);
	p.bidi_residual = take32(c);
	p.residual = take32(c);
	p.data_len = take_dsl(c);
	p.flags = take8(c);
	p.response = take8(c);
	p.status = take8(c);
	bad = p.data_len > KT_ISCSI_MAX_DSL || (p.flags & ~0x1e) ||
	      (p.flags & 0x18) == 0x18 || (p.flags & 0x06) == 0x06;

	memset(b, 0xa5, sizeof(b));
	if (kt_iscsi_encode_scsi_rsp(b, &p)) {
		check_refused(b, bad);
		return;
	}
	CHECK(!bad);
	check_common(b, KT_ISCSI_OP_SCSI_RSP, p.data_len, p.statsn,
		     p.exp_cmdsn, p.max_cmdsn);
	CHECK(b[1] == (0x80 | p.flags));
	CHECK(b[2] == p.response && b[3] == p.status && zero(b, 8, 15));
	CHECK(be32(b, 16) == p.itt && be32(b, 20) == p.snack_tag);
	CHECK(be32(b, 36) == p.exp_datasn);
	CHECK(be32(b, 40) == ((p.flags & 0x18) ? p.bidi_residual : 0));
	CHECK(be32(b, 44) == ((p.flags & 0x06) ? p.residual : 0));
}

static void fuzz_tmf_rsp(struct cursor *c)
{
	struct kt_iscsi_tmf_rsp p;
	u8 b[BHS];

	p.itt = take32(c);
	p.statsn = take32(c);
	p.exp_cmdsn = take32(c);
	p.max_cmdsn = take32(c);
	p.response = take8(c);

	memset(b, 0xa5, sizeof(b));
	CHECK(kt_iscsi_encode_tmf_rsp(b, &p) == 0);
	check_common(b, KT_ISCSI_OP_TMF_RSP, 0, p.statsn, p.exp_cmdsn,
		     p.max_cmdsn);
	CHECK(b[1] == 0x80 && b[2] == p.response && zero(b, 3, 3));
	CHECK(zero(b, 8, 15) && be32(b, 16) == p.itt && zero(b, 20, 23));
	CHECK(zero(b, 36, 47));
}

static void fuzz_login_rsp(struct cursor *c)
{
	struct kt_iscsi_login_rsp p;
	u8 b[BHS], flags;
	int i;
	bool bad;

	for (i = 0; i < KT_ISCSI_ISID_LEN; i++)
		p.isid[i] = take8(c);
	p.tsih = take16(c);
	p.itt = take32(c);
	p.statsn = take32(c);
	p.exp_cmdsn = take32(c);
	p.max_cmdsn = take32(c);
	p.data_len = take_dsl(c);
	p.status = take16(c);
	p.version_max = take8(c);
	p.version_active = take8(c);
	flags = take8(c);
	p.csg = flags & 7;
	p.nsg = (flags >> 3) & 7;
	p.transit = flags & 0x40;
	p.cont = flags & 0x80;
	bad = p.data_len > KT_ISCSI_MAX_DSL || (p.transit && p.cont) ||
	      p.csg > 3 || p.nsg > 3;

	memset(b, 0xa5, sizeof(b));
	if (kt_iscsi_encode_login_rsp(b, &p)) {
		check_refused(b, bad);
		return;
	}
	CHECK(!bad);
	check_common(b, KT_ISCSI_OP_LOGIN_RSP, p.data_len, p.statsn,
		     p.exp_cmdsn, p.max_cmdsn);
	CHECK(!!(b[1] & 0x80) == p.transit && !!(b[1] & 0x40) == p.cont);
	CHECK((b[1] & 0x30) == 0 && ((b[1] >> 2) & 3) == p.csg);
	CHECK((b[1] & 3) == (p.transit ? p.nsg : 0));
	CHECK(b[2] == p.version_max && b[3] == p.version_active);
	CHECK(!memcmp(&b[8], p.isid, KT_ISCSI_ISID_LEN));
	CHECK(get_unaligned_be16(&b[14]) == p.tsih && be32(b, 16) == p.itt);
	CHECK(zero(b, 20, 23) && get_unaligned_be16(&b[36]) == p.status);
	CHECK(zero(b, 38, 47));
}

static void fuzz_text_rsp(struct cursor *c)
{
	struct kt_iscsi_text_rsp p;
	u8 b[BHS], flags;
	bool bad;

	p.lun = take64(c);
	p.itt = take32(c);
	p.ttt = take_tag(c);
	p.statsn = take32(c);
	p.exp_cmdsn = take32(c);
	p.max_cmdsn = take32(c);
	p.data_len = take_dsl(c);
	flags = take8(c);
	p.final = flags & 1;
	p.cont = flags & 2;
	bad = p.data_len > KT_ISCSI_MAX_DSL || (p.final && p.cont);

	memset(b, 0xa5, sizeof(b));
	if (kt_iscsi_encode_text_rsp(b, &p)) {
		check_refused(b, bad);
		return;
	}
	CHECK(!bad);
	check_common(b, KT_ISCSI_OP_TEXT_RSP, p.data_len, p.statsn,
		     p.exp_cmdsn, p.max_cmdsn);
	CHECK(b[1] == ((p.final ? 0x80 : 0) | (p.cont ? 0x40 : 0)));
	CHECK(zero(b, 2, 3) && get_unaligned_be64(&b[8]) == p.lun);
	CHECK(be32(b, 16) == p.itt && be32(b, 20) == p.ttt);
	CHECK(zero(b, 36, 47));
}

static void fuzz_data_in(struct cursor *c)
{
	struct kt_iscsi_data_in p;
	u8 b[BHS];
	bool bad, s, a;

	p.lun = take64(c);
	p.itt = take32(c);
	p.ttt = take32(c);
	p.statsn = take32(c);
	p.exp_cmdsn = take32(c);
	p.max_cmdsn = take32(c);
	p.datasn = take32(c);
	p.offset = take32(c);
	p.residual = take32(c);
	p.data_len = take_dsl(c);
	p.flags = take8(c);
	p.status = take8(c);
	s = p.flags & 0x01;
	a = p.flags & 0x40;
	bad = p.data_len > KT_ISCSI_MAX_DSL || (p.flags & 0x38) ||
	      (s && !(p.flags & 0x80)) || (p.flags & 0x06) == 0x06 ||
	      (!s && (p.flags & 0x06));

	memset(b, 0xa5, sizeof(b));
	if (kt_iscsi_encode_data_in(b, &p)) {
		check_refused(b, bad);
		return;
	}
	CHECK(!bad);
	check_common(b, KT_ISCSI_OP_DATA_IN, p.data_len, s ? p.statsn : 0,
		     p.exp_cmdsn, p.max_cmdsn);
	CHECK(b[1] == p.flags && zero(b, 2, 2));
	CHECK(b[3] == (s ? p.status : 0));
	CHECK(get_unaligned_be64(&b[8]) == (a ? p.lun : 0));
	CHECK(be32(b, 16) == p.itt && be32(b, 20) == (a ? p.ttt : RSVD));
	CHECK(be32(b, 36) == p.datasn && be32(b, 40) == p.offset);
	CHECK(be32(b, 44) == ((p.flags & 0x06) ? p.residual : 0));
}

static void fuzz_logout_rsp(struct cursor *c)
{
	struct kt_iscsi_logout_rsp p;
	u8 b[BHS];

	p.itt = take32(c);
	p.statsn = take32(c);
	p.exp_cmdsn = take32(c);
	p.max_cmdsn = take32(c);
	p.time2wait = take16(c);
	p.time2retain = take16(c);
	p.response = take8(c);

	memset(b, 0xa5, sizeof(b));
	CHECK(kt_iscsi_encode_logout_rsp(b, &p) == 0);
	check_common(b, KT_ISCSI_OP_LOGOUT_RSP, 0, p.statsn, p.exp_cmdsn,
		     p.max_cmdsn);
	CHECK(b[1] == 0x80 && b[2] == p.response && zero(b, 3, 3));
	CHECK(zero(b, 8, 15) && be32(b, 16) == p.itt && zero(b, 20, 23));
	CHECK(zero(b, 36, 39) && zero(b, 44, 47));
	CHECK(get_unaligned_be16(&b[40]) == p.time2wait);
	CHECK(get_unaligned_be16(&b[42]) == p.time2retain);
}

static void fuzz_r2t(struct cursor *c)
{
	struct kt_iscsi_r2t p;
	u8 b[BHS];
	bool bad;

	p.lun = take64(c);
	p.itt = take32(c);
	p.ttt = take_tag(c);
	p.statsn = take32(c);
	p.exp_cmdsn = take32(c);
	p.max_cmdsn = take32(c);
	p.r2tsn = take32(c);
	p.offset = take32(c);
	p.desired_len = take32(c);
	bad = p.ttt == RSVD || !p.desired_len;

	memset(b, 0xa5, sizeof(b));
	if (kt_iscsi_encode_r2t(b, &p)) {
		check_refused(b, bad);
		return;
	}
	CHECK(!bad);
	check_common(b, KT_ISCSI_OP_R2T, 0, p.statsn, p.exp_cmdsn,
		     p.max_cmdsn);
	CHECK(b[1] == 0x80 && zero(b, 2, 3));
	CHECK(get_unaligned_be64(&b[8]) == p.lun);
	CHECK(be32(b, 16) == p.itt && be32(b, 20) == p.ttt);
	CHECK(be32(b, 36) == p.r2tsn && be32(b, 40) == p.offset);
	CHECK(be32(b, 44) == p.desired_len);
}

static void fuzz_async(struct cursor *c)
{
	struct kt_iscsi_async p;
	u8 b[BHS];
	bool bad;

	p.lun = take64(c);
	p.statsn = take32(c);
	p.exp_cmdsn = take32(c);
	p.max_cmdsn = take32(c);
	p.data_len = take_dsl(c);
	p.param1 = take16(c);
	p.param2 = take16(c);
	p.param3 = take16(c);
	p.event = take8(c) & 0x87;	/* 0..7 and a few vendor values */
	p.vcode = take8(c);
	bad = p.data_len > KT_ISCSI_MAX_DSL;

	memset(b, 0xa5, sizeof(b));
	if (kt_iscsi_encode_async(b, &p)) {
		check_refused(b, bad);
		return;
	}
	CHECK(!bad);
	check_common(b, KT_ISCSI_OP_ASYNC, p.data_len, p.statsn, p.exp_cmdsn,
		     p.max_cmdsn);
	CHECK(b[1] == 0x80 && zero(b, 2, 3));
	CHECK(get_unaligned_be64(&b[8]) == (p.event ? 0 : p.lun));
	CHECK(be32(b, 16) == RSVD && zero(b, 20, 23));
	CHECK(b[36] == p.event && b[37] == p.vcode);
	CHECK(get_unaligned_be16(&b[38]) == p.param1);
	CHECK(get_unaligned_be16(&b[40]) == p.param2);
	CHECK(get_unaligned_be16(&b[42]) == p.param3);
	CHECK(zero(b, 44, 47));
}

static void fuzz_reject(struct cursor *c)
{
	struct kt_iscsi_reject p;
	u8 b[BHS];
	bool bad;

	p.statsn = take32(c);
	p.exp_cmdsn = take32(c);
	p.max_cmdsn = take32(c);
	p.datasn = take32(c);
	p.data_len = take_dsl(c);
	p.reason = take8(c) & 0x1f;
	bad = p.data_len > KT_ISCSI_MAX_DSL || p.reason < 2 ||
	      p.reason == 0x0b || p.reason > 0x0c;

	memset(b, 0xa5, sizeof(b));
	if (kt_iscsi_encode_reject(b, &p)) {
		check_refused(b, bad);
		return;
	}
	CHECK(!bad);
	check_common(b, KT_ISCSI_OP_REJECT, p.data_len, p.statsn, p.exp_cmdsn,
		     p.max_cmdsn);
	CHECK(b[1] == 0x80 && b[2] == p.reason && zero(b, 3, 3));
	CHECK(zero(b, 8, 15) && be32(b, 16) == RSVD && zero(b, 20, 23));
	CHECK(be32(b, 36) == p.datasn && zero(b, 40, 47));
}

static void fuzz_serial(struct cursor *c)
{
	u32 a = take32(c), b = take32(c), d = take32(c);

	CHECK(!(kt_iscsi_sn_lt(a, b) && kt_iscsi_sn_lt(b, a)));
	CHECK(!kt_iscsi_sn_lt(a, a) && kt_iscsi_sn_lte(a, a));
	if (a != b && a - b != 0x80000000U)
		CHECK(kt_iscsi_sn_lt(a, b) != kt_iscsi_sn_lt(b, a));
	CHECK(kt_iscsi_sn_lte(a, b) == (a == b || kt_iscsi_sn_lt(a, b)));
	/* the order does not depend on where the counters started */
	CHECK(kt_iscsi_sn_lt(a, b) == kt_iscsi_sn_lt(a + d, b + d));
	CHECK(kt_iscsi_sn_in_window(a, a, a));
	CHECK(!kt_iscsi_sn_in_window(a, a, a - 1));
	/* in a valid window both ends bound it; an invalid one is empty */
	if (kt_iscsi_sn_in_window(d, a, b))
		CHECK(kt_iscsi_sn_lte(a, d) && kt_iscsi_sn_lte(d, b) &&
		      kt_iscsi_sn_lte(a, b) && b - a < 0x80000000U);
	if (b - a < 0x80000000U)
		CHECK(kt_iscsi_sn_in_window(d, a, b) ==
		      (kt_iscsi_sn_lte(a, d) && kt_iscsi_sn_lte(d, b)));
	else
		CHECK(!kt_iscsi_sn_in_window(d, a, b));
}

/* Invariants of a decoded BHS against the raw bytes. */
static void check_decoded(const u8 *data, size_t size, u32 max,
			  enum kt_iscsi_bhs_status st,
			  const struct kt_iscsi_bhs *h)
{
	u32 n, n_all;

	CHECK(strcmp(kt_iscsi_bhs_status_name(st), "invalid"));
	if (size < BHS) {
		CHECK(st == KT_ISCSI_BHS_TRUNCATED);
		CHECK(h->opcode == 0 && h->reject_reason == 0 && !h->cdb);
		return;
	}
	CHECK(st != KT_ISCSI_BHS_TRUNCATED);
	CHECK(h->opcode == (data[0] & 0x3f) && h->flags == data[1]);
	CHECK(h->final == !!(data[1] & 0x80));
	CHECK(h->ahs_len == data[4] * 4U);
	CHECK(h->data_len == get_unaligned_be24(&data[5]));
	CHECK(h->lun == get_unaligned_be64(&data[8]));
	CHECK(h->itt == be32(data, 16));

	n = kt_iscsi_pdu_len(h, false, false);
	n_all = kt_iscsi_pdu_len(h, true, true);
	CHECK(n % 4 == 0 && n_all % 4 == 0);
	CHECK(n == BHS + h->ahs_len + kt_iscsi_pad4(h->data_len));
	CHECK(n_all == n + 4 + (h->data_len ? 4 : 0));
	CHECK(n_all <= BHS + KT_ISCSI_MAX_AHS_LEN + 0x1000000 + 8);

	if (st != KT_ISCSI_BHS_OK) {
		CHECK(h->reject_reason == KT_ISCSI_REJECT_PROTOCOL_ERROR ||
		      h->reject_reason == KT_ISCSI_REJECT_NOT_SUPPORTED ||
		      h->reject_reason == KT_ISCSI_REJECT_INVALID_FIELD);
		CHECK(h->bad_byte < BHS);
		if (st == KT_ISCSI_BHS_TARGET_OPCODE)
			CHECK(h->opcode >= 0x20);
		if (st == KT_ISCSI_BHS_DATA_TOO_LONG)
			CHECK(h->data_len > max);
		return;
	}

	CHECK(h->reject_reason == 0 && h->bad_byte == 0);
	CHECK(h->data_len <= max);
	CHECK(h->opcode <= KT_ISCSI_OP_LOGOUT_REQ ||
	      h->opcode == KT_ISCSI_OP_SNACK);
	CHECK(h->immediate == (!!(data[0] & 0x40) &&
			       h->opcode != KT_ISCSI_OP_DATA_OUT &&
			       h->opcode != KT_ISCSI_OP_SNACK));
	CHECK((h->cdb == &data[32]) == (h->opcode == KT_ISCSI_OP_SCSI_CMD));

	switch (h->opcode) {
	case KT_ISCSI_OP_NOP_OUT:
		CHECK(h->itt != RSVD || h->immediate);
		break;
	case KT_ISCSI_OP_SCSI_CMD:
		CHECK(h->cmd.exp_xfer_len == be32(data, 20));
		CHECK(!h->cmd.exp_xfer_len || h->cmd.read || h->cmd.write);
		CHECK(h->cmd.attr == (data[1] & 7));
		break;
	case KT_ISCSI_OP_LOGIN_REQ:
		CHECK(!(h->login.transit && h->login.cont));
		CHECK(h->login.csg <= 1);
		if (h->login.transit)
			CHECK((h->login.nsg == 1 || h->login.nsg == 3) &&
			      h->login.nsg > h->login.csg);
		else
			CHECK(h->login.nsg == 0);
		CHECK(!memcmp(h->login.isid, &data[8], KT_ISCSI_ISID_LEN));
		break;
	case KT_ISCSI_OP_TEXT_REQ:
		CHECK(!(h->text.cont && h->final));
		break;
	case KT_ISCSI_OP_LOGOUT_REQ:
		CHECK(h->logout.reason <= 2);
		break;
	case KT_ISCSI_OP_SNACK:
		CHECK(h->snack.type <= 3);
		CHECK(h->snack.begrun == be32(data, 40));
		CHECK(h->snack.runlength == be32(data, 44));
		break;
	case KT_ISCSI_OP_DATA_OUT:
		CHECK(h->cmdsn == 0);
		CHECK(h->data.datasn == be32(data, 36));
		CHECK(h->data.offset == be32(data, 40));
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct kt_iscsi_bhs h, again;
	enum kt_iscsi_bhs_status st;
	struct cursor c = { data, size };
	u32 max;

	max = size >= BHS + 4 ? be32(data, BHS) : KT_ISCSI_DEFAULT_MAX_RECV_DSL;
	st = kt_iscsi_bhs_decode(data, size, max, &h);
	check_decoded(data, size, max, st, &h);

	/* same answer twice; a larger limit only lifts DATA_TOO_LONG */
	CHECK(kt_iscsi_bhs_decode(data, size, max, &again) == st);
	CHECK(again.reject_reason == h.reject_reason &&
	      again.bad_byte == h.bad_byte);
	if (st != KT_ISCSI_BHS_DATA_TOO_LONG)
		CHECK(kt_iscsi_bhs_decode(data, size, U32_MAX, &again) == st);

	fuzz_nop_in(&c);
	fuzz_scsi_rsp(&c);
	fuzz_tmf_rsp(&c);
	fuzz_login_rsp(&c);
	fuzz_text_rsp(&c);
	fuzz_data_in(&c);
	fuzz_logout_rsp(&c);
	fuzz_r2t(&c);
	fuzz_async(&c);
	fuzz_reject(&c);
	fuzz_serial(&c);
	return 0;
}
