// SPDX-License-Identifier: GPL-2.0
/*
 * Persistent reservations on the wire: PERSISTENT RESERVE OUT parameter
 * lists, TransportIDs, PERSISTENT RESERVE IN response data and the
 * tables of commands a reservation lets through. No allocation, locking or
 * logging: compiled unchanged into the userspace unit and fuzz tests.
 */
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/string.h>
#include <linux/unaligned.h>

#include <ktarget/proto/cdb.h>
#include <ktarget/proto/pr.h>
#include <ktarget/proto/sense.h>
#include <ktarget/proto/spc.h>

/* SPC-4 7.6.4.6: ",i,0x" between the iSCSI name and the ISID */
static const char kt_pr_isid_sep[] = ",i,0x";
#define KT_PR_SEP_LEN		(sizeof(kt_pr_isid_sep) - 1)
#define KT_PR_TID_HDR		4
#define KT_PR_TID_MIN_ADDL	20	/* SPC-4 7.6.4.6: at least 24 bytes */
/*
 * SPC-4 7.6.4.6: the ISCSI NAME field, its NUL and padding included, is
 * 224 bytes at most; format 01b adds ",i,0x", the ISID's 12 digits and a
 * NUL to the name (223 bytes at most): 244 bytes padded.
 */
#define KT_PR_TID_MAX_ADDL	KT_PR_NAME_LEN
#define KT_PR_TID_MAX_ADDL_ISID	((KT_PR_NAME_LEN - 1 + KT_PR_SEP_LEN + \
				  2 * KT_PR_ISID_LEN + 1 + 3) & ~3U)

/* Format 01b: "NAME,i,0xISID": split at the last separator */
static sense_reason_t kt_pr_tid_isid(const u8 *s, u32 n, u32 base,
				     struct kt_pr_tid *tid, u32 *name_len,
				     struct kt_sense_field *field)
{
	u32 i, j;
	int hi, lo;

	if (n < KT_PR_SEP_LEN + 2 * KT_PR_ISID_LEN + 1)
		goto bad;
	i = n - 2 * KT_PR_ISID_LEN - KT_PR_SEP_LEN;
	for (j = 0; j < KT_PR_SEP_LEN; j++)
		if (tolower(s[i + j]) != kt_pr_isid_sep[j])
			goto bad;
	for (j = 0; j < KT_PR_ISID_LEN; j++) {
		hi = hex_to_bin(s[i + KT_PR_SEP_LEN + 2 * j]);
		lo = hex_to_bin(s[i + KT_PR_SEP_LEN + 2 * j + 1]);
		if (hi < 0 || lo < 0)
			goto bad;
		tid->isid[j] = hi << 4 | lo;
	}
	tid->has_isid = true;
	*name_len = i;
	return KT_SENSE_NONE;
bad:
	*field = KT_FIELD_PARAM(base + KT_PR_TID_HDR);
	return KT_SENSE_INVALID_PARAM_FIELD;
}

/*
 * SPC-4 7.6.4: the TransportIDs of fixed size, format 00b, 24 bytes with
 * a binary port identifier at an offset: FC's N_PORT_NAME, SRP's
 * INITIATOR PORT IDENTIFIER, SAS's SAS ADDRESS. @prefix starts the name
 * made from one.
 */
struct kt_pr_bin_form {
	u8		proto;
	u8		off;
	u8		len;
	const char	*prefix;
};

#define KT_PR_BIN_TID_LEN	24
#define KT_PR_BIN_ID_MAX	16

static const struct kt_pr_bin_form kt_pr_bin_forms[] = {
	{ KT_PROTO_FCP,	8, 8,	"fc." },
	{ KT_PROTO_SRP,	8, 16,	"0x" },
	{ KT_PROTO_SAS,	4, 8,	"naa." },
};

static const struct kt_pr_bin_form *kt_pr_bin_form(u8 proto)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(kt_pr_bin_forms); i++)
		if (kt_pr_bin_forms[i].proto == proto)
			return &kt_pr_bin_forms[i];
	return NULL;
}

/*
 * The identifier a fabric's port name spells: hex digits after a prefix
 * ("naa.", "fc.", "0x"), colons between bytes skipped; digits past the
 * identifier's size are not part of it (a 32-digit naa. name is a SAS
 * address of its first 16, as LIO takes it). False if too few.
 */
static bool kt_pr_name_id(const struct kt_pr_bin_form *f, const char *name,
			  u8 *id)
{
	const char *s = name, *dot = strchr(name, '.');
	int hi, lo;
	u32 n = 0;

	if (dot && dot - name <= 3)
		s = dot + 1;
	else if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	while (n < f->len) {
		if (*s == ':') {
			s++;
			continue;
		}
		hi = hex_to_bin(s[0]);
		lo = hi < 0 ? -1 : hex_to_bin(s[1]);
		if (lo < 0)
			return false;
		id[n++] = hi << 4 | lo;
		s += 2;
	}
	return true;
}

static sense_reason_t kt_pr_tid_parse_bin(const struct kt_pr_bin_form *f,
					  const u8 *buf, u32 len, u32 base,
					  u32 *used, struct kt_pr_tid *tid,
					  struct kt_sense_field *field)
{
	static const char hex[] = "0123456789abcdef";
	u32 n = strlen(f->prefix), i;
	const u8 *id = buf + f->off;

	if (buf[0] & 0xf0) {
		*field = KT_FIELD_PARAM_BIT(base, 7);
		return KT_SENSE_INVALID_PARAM_FIELD;
	}
	if (len < KT_PR_BIN_TID_LEN) {
		*field = KT_FIELD_PARAM(base);
		return KT_SENSE_PARAM_LIST_LENGTH;
	}
	tid->proto = f->proto;
	memcpy(tid->name, f->prefix, n);
	for (i = 0; i < f->len; i++) {
		tid->name[n++] = hex[id[i] >> 4];
		tid->name[n++] = hex[id[i] & 0xf];
	}
	tid->name[n] = '\0';
	*used = KT_PR_BIN_TID_LEN;
	return KT_SENSE_NONE;
}

const char *kt_pr_proto_name(u8 proto)
{
	static const char *const names[] = {
		"FCP", "SPI", "SSA", "SBP", "SRP", "iSCSI", "SAS", "ADT",
		"ATA", "UAS", "SOP", "PCIe",
	};

	return proto < ARRAY_SIZE(names) ? names[proto] : "Unknown";
}

sense_reason_t kt_pr_tid_parse(const u8 *buf, u32 len, u32 base, u32 *used,
			       struct kt_pr_tid *tid,
			       struct kt_sense_field *field)
{
	const u8 *nul, *s = buf + KT_PR_TID_HDR;
	u32 addl, n, name_len;
	sense_reason_t ret;
	u8 fmt;

	memset(tid, 0, sizeof(*tid));
	if (len < KT_PR_TID_HDR) {
		*field = KT_FIELD_PARAM(base);
		return KT_SENSE_PARAM_LIST_LENGTH;
	}
	if (kt_pr_bin_form(buf[0] & 0x0f))
		return kt_pr_tid_parse_bin(kt_pr_bin_form(buf[0] & 0x0f), buf,
					   len, base, used, tid, field);
	if ((buf[0] & 0x0f) != KT_PROTO_ISCSI) {
		*field = KT_FIELD_PARAM_BIT(base, 3);
		return KT_SENSE_INVALID_PARAM_FIELD;
	}
	tid->proto = KT_PROTO_ISCSI;
	fmt = buf[0] >> 6;
	if (fmt > 1 || (buf[0] & 0x30)) {
		*field = KT_FIELD_PARAM_BIT(base, 7);
		return KT_SENSE_INVALID_PARAM_FIELD;
	}
	addl = get_unaligned_be16(&buf[2]);
	if (addl < KT_PR_TID_MIN_ADDL || addl % 4 ||
	    addl > (fmt ? KT_PR_TID_MAX_ADDL_ISID : KT_PR_TID_MAX_ADDL)) {
		*field = KT_FIELD_PARAM(base + 2);
		return KT_SENSE_INVALID_PARAM_FIELD;
	}
	if (addl > len - KT_PR_TID_HDR) {
		*field = KT_FIELD_PARAM(base + 2);
		return KT_SENSE_PARAM_LIST_LENGTH;
	}
	nul = memchr(s, 0, addl);
	if (!nul || nul == s) {
		*field = KT_FIELD_PARAM(base + KT_PR_TID_HDR);
		return KT_SENSE_INVALID_PARAM_FIELD;
	}
	n = nul - s;
	name_len = n;
	if (fmt == 1) {
		ret = kt_pr_tid_isid(s, n, base, tid, &name_len, field);
		if (ret)
			return ret;
	}
	if (!name_len || name_len >= KT_PR_NAME_LEN) {
		*field = KT_FIELD_PARAM(base + KT_PR_TID_HDR);
		return KT_SENSE_INVALID_PARAM_FIELD;
	}
	memcpy(tid->name, s, name_len);
	tid->name[name_len] = '\0';
	*used = KT_PR_TID_HDR + addl;
	return KT_SENSE_NONE;
}

/*
 * FC, SRP, SAS: the identifier the name spells (zeros for a name that
 * spells none; the fabrics let in no such name)
 */
static void kt_pr_out_bin_tid(struct kt_spc_out *o,
			      const struct kt_pr_bin_form *f,
			      const struct kt_pr_tid *tid)
{
	u8 id[KT_PR_BIN_ID_MAX];

	if (!kt_pr_name_id(f, tid->name, id))
		memset(id, 0, sizeof(id));
	kt_spc_out_u8(o, f->proto);
	kt_spc_out_fill(o, 0, f->off - 1);
	kt_spc_out_mem(o, id, f->len);
	kt_spc_out_fill(o, 0, KT_PR_BIN_TID_LEN - f->off - f->len);
}

/* A TransportID in its protocol's form; iSCSI's for any other protocol */
static void kt_pr_out_tid(struct kt_spc_out *o, const struct kt_pr_tid *tid)
{
	static const char hex[] = "0123456789abcdef";
	u32 n = strnlen(tid->name, KT_PR_NAME_LEN - 1);
	u32 addl, i, start = o->off;

	if (kt_pr_bin_form(tid->proto)) {
		kt_pr_out_bin_tid(o, kt_pr_bin_form(tid->proto), tid);
		return;
	}

	addl = n + 1;
	if (tid->has_isid)
		addl += KT_PR_SEP_LEN + 2 * KT_PR_ISID_LEN;
	addl = (addl + 3) & ~3U;
	if (addl < KT_PR_TID_MIN_ADDL)
		addl = KT_PR_TID_MIN_ADDL;

	kt_spc_out_u8(o, (tid->has_isid ? 0x40 : 0) | KT_PROTO_ISCSI);
	kt_spc_out_u8(o, 0);
	kt_spc_out_be16(o, addl);
	kt_spc_out_mem(o, (const u8 *)tid->name, n);
	if (tid->has_isid) {
		kt_spc_out_mem(o, (const u8 *)kt_pr_isid_sep, KT_PR_SEP_LEN);
		for (i = 0; i < KT_PR_ISID_LEN; i++) {
			kt_spc_out_u8(o, hex[tid->isid[i] >> 4]);
			kt_spc_out_u8(o, hex[tid->isid[i] & 0xf]);
		}
	}
	kt_spc_out_fill(o, 0, start + KT_PR_TID_HDR + addl - o->off);
}

u32 kt_pr_tid_build(const struct kt_pr_tid *tid, u8 *buf, u32 buf_len)
{
	struct kt_spc_out o;

	kt_spc_out_init(&o, buf, buf_len, U32_MAX);
	kt_pr_out_tid(&o, tid);
	return o.off;
}

bool kt_pr_tid_match(const struct kt_pr_tid *a, const struct kt_pr_tid *b)
{
	const struct kt_pr_bin_form *f = kt_pr_bin_form(a->proto);
	u8 ia[KT_PR_BIN_ID_MAX], ib[KT_PR_BIN_ID_MAX];

	if (a->proto != b->proto)
		return false;
	if (f && kt_pr_name_id(f, a->name, ia) && kt_pr_name_id(f, b->name, ib))
		return !memcmp(ia, ib, f->len);
	if (strcasecmp(a->name, b->name))
		return false;
	if (!a->has_isid || !b->has_isid)
		return true;
	return !memcmp(a->isid, b->isid, KT_PR_ISID_LEN);
}

/* SPC-4 6.16.4: REGISTER AND MOVE parameter list */
static sense_reason_t kt_pr_out_move(const u8 *param, u32 plen,
				     struct kt_pr_out *out,
				     struct kt_sense_field *field)
{
	if (plen < KT_PR_OUT_MOVE_HDR_LEN) {
		*field = KT_FIELD_CDB(5);
		return KT_SENSE_PARAM_LIST_LENGTH;
	}
	out->res_key = get_unaligned_be64(&param[0]);
	out->sa_key = get_unaligned_be64(&param[8]);
	if (param[17] & 0xfc) {
		*field = KT_FIELD_PARAM(17);
		return KT_SENSE_INVALID_PARAM_FIELD;
	}
	out->unreg = param[17] & 0x02;
	out->aptpl = param[17] & 0x01;
	out->rtpi = get_unaligned_be16(&param[18]);
	out->tid_len = get_unaligned_be32(&param[20]);
	out->tid_off = KT_PR_OUT_MOVE_HDR_LEN;
	/*
	 * SPC-4 6.16.4: the list ends with the TransportID; one shorter
	 * or longer than the list is a length error (LIO's check too)
	 */
	if (out->tid_len != plen - KT_PR_OUT_MOVE_HDR_LEN) {
		*field = KT_FIELD_PARAM(20);
		return KT_SENSE_PARAM_LIST_LENGTH;
	}
	if (out->tid_len < KT_PR_TID_HDR + KT_PR_TID_MIN_ADDL) {
		*field = KT_FIELD_PARAM(20);
		return KT_SENSE_INVALID_PARAM_FIELD;
	}
	return KT_SENSE_NONE;
}

sense_reason_t kt_pr_move_tid(const struct kt_pr_out *out, const u8 *param,
			      struct kt_pr_tid *tid,
			      struct kt_sense_field *field)
{
	sense_reason_t ret;
	u32 used = 0;

	ret = kt_pr_tid_parse(param + out->tid_off, out->tid_len,
			      out->tid_off, &used, tid, field);
	if (ret)
		return ret;
	/* the TRANSPORTID PARAMETER DATA LENGTH is the TransportID's own */
	if (used != out->tid_len) {
		*field = KT_FIELD_PARAM(20);
		return KT_SENSE_INVALID_PARAM_FIELD;
	}
	return KT_SENSE_NONE;
}

/* SPC-4 6.16.3: the basic parameter list, with SPEC_I_PT TransportIDs */
static sense_reason_t kt_pr_out_basic(const u8 *param, u32 plen,
				      struct kt_pr_out *out,
				      struct kt_sense_field *field)
{
	if (plen < KT_PR_OUT_BASIC_LEN) {
		*field = KT_FIELD_CDB(5);
		return KT_SENSE_PARAM_LIST_LENGTH;
	}
	out->res_key = get_unaligned_be64(&param[0]);
	out->sa_key = get_unaligned_be64(&param[8]);
	if (param[20] & 0xf0) {
		*field = KT_FIELD_PARAM(20);
		return KT_SENSE_INVALID_PARAM_FIELD;
	}
	out->spec_i_pt = param[20] & 0x08;
	out->all_tg_pt = param[20] & 0x04;
	out->aptpl = param[20] & 0x01;

	if (!out->spec_i_pt) {
		if (plen != KT_PR_OUT_BASIC_LEN) {
			*field = KT_FIELD_CDB(5);
			return KT_SENSE_PARAM_LIST_LENGTH;
		}
		return KT_SENSE_NONE;
	}
	/* SPC-4 6.16.3: SPEC_I_PT is for REGISTER only */
	if (out->sa != KT_PRO_REGISTER) {
		*field = KT_FIELD_PARAM_BIT(20, 3);
		return KT_SENSE_INVALID_PARAM_FIELD;
	}
	if (plen < KT_PR_OUT_BASIC_LEN + 4) {
		*field = KT_FIELD_CDB(5);
		return KT_SENSE_PARAM_LIST_LENGTH;
	}
	out->tid_off = KT_PR_OUT_BASIC_LEN + 4;
	out->tid_len = get_unaligned_be32(&param[KT_PR_OUT_BASIC_LEN]);
	if (out->tid_len != plen - out->tid_off) {
		*field = KT_FIELD_PARAM(KT_PR_OUT_BASIC_LEN);
		return KT_SENSE_PARAM_LIST_LENGTH;
	}
	return KT_SENSE_NONE;
}

sense_reason_t kt_pr_out_check_type(const struct kt_pr_out *out,
				    struct kt_sense_field *field)
{
	if (out->scope != KT_PR_SCOPE_LU) {
		*field = KT_FIELD_CDB_BIT(2, 7);
		return KT_SENSE_INVALID_CDB_FIELD;
	}
	if (!kt_pr_type_valid(out->type)) {
		*field = KT_FIELD_CDB_BIT(2, 3);
		return KT_SENSE_INVALID_CDB_FIELD;
	}
	return KT_SENSE_NONE;
}

sense_reason_t kt_pr_out_parse(const u8 *cdb, const u8 *param, u32 len,
			       struct kt_pr_out *out,
			       struct kt_sense_field *field)
{
	sense_reason_t ret;

	u32 plen = get_unaligned_be32(&cdb[5]);

	memset(out, 0, sizeof(*out));
	out->sa = cdb[1] & 0x1f;
	out->scope = cdb[2] >> 4;
	out->type = cdb[2] & 0x0f;

	if (out->sa > KT_PRO_REGISTER_AND_MOVE) {
		*field = KT_FIELD_CDB_BIT(1, 4);
		return KT_SENSE_INVALID_CDB_FIELD;
	}
	switch (out->sa) {
	case KT_PRO_RESERVE:
	case KT_PRO_RELEASE:
	case KT_PRO_REGISTER_AND_MOVE:
		ret = kt_pr_out_check_type(out, field);
		if (ret)
			return ret;
		break;
	}
	/* the whole list must have arrived */
	if (len < plen || (plen && !param)) {
		*field = KT_FIELD_CDB(5);
		return KT_SENSE_PARAM_LIST_LENGTH;
	}
	if (out->sa == KT_PRO_REGISTER_AND_MOVE)
		return kt_pr_out_move(param, plen, out, field);
	return kt_pr_out_basic(param, plen, out, field);
}

/* ------------------------------------------------------------------------
 * PERSISTENT RESERVE IN (SPC-4 6.15)
 */

#define KT_PR_HDR_LEN		8

static void kt_pr_read_keys(const struct kt_pr_info *pr, struct kt_spc_out *o)
{
	u32 i;

	kt_spc_out_be32(o, pr->generation);
	kt_spc_out_be32(o, pr->nr_regs * 8);
	for (i = 0; i < pr->nr_regs; i++)
		kt_spc_out_be64(o, pr->regs[i].key);
}

static void kt_pr_read_resv(const struct kt_pr_info *pr, struct kt_spc_out *o)
{
	bool resv = pr->type != KT_PR_TYPE_NONE;

	kt_spc_out_be32(o, pr->generation);
	kt_spc_out_be32(o, resv ? 16 : 0);
	if (!resv)
		return;
	/* SPC-4 6.15.3.3: All Registrants reservations show key zero */
	kt_spc_out_be64(o, kt_pr_type_all_reg(pr->type) ? 0 : pr->res_key);
	kt_spc_out_be32(o, 0);			/* obsolete */
	kt_spc_out_u8(o, 0);
	kt_spc_out_u8(o, KT_PR_SCOPE_LU << 4 | pr->type);
	kt_spc_out_be16(o, 0);			/* obsolete */
}

/*
 * SPC-4 6.15.4. ALLOW COMMANDS 011b: TEST UNIT READY passes every
 * reservation, and the commands that only read (MODE SENSE, READ BUFFER,
 * RECEIVE COPY RESULTS, REPORT SUPPORTED OPERATION CODES ...) pass Write
 * Exclusive ones; see kt_pr_check_access().
 */
static void kt_pr_report_caps(const struct kt_pr_info *pr,
			      struct kt_spc_out *o)
{
	kt_spc_out_be16(o, 8);
	/* SIP_C, ATP_C, PTPL_C; no CRH: RESERVE conflicts with registrations */
	kt_spc_out_u8(o, 0x08 | 0x04 | 0x01);
	/* TMV, ALLOW COMMANDS, PTPL_A */
	kt_spc_out_u8(o, 0x80 | 0x03 << 4 | (pr->aptpl ? 0x01 : 0));
	/* WR_EX_AR, EX_AC_RO, WR_EX_RO, EX_AC, WR_EX; EX_AC_AR */
	kt_spc_out_u8(o, 0x80 | 0x40 | 0x20 | 0x08 | 0x02);
	kt_spc_out_u8(o, 0x01);
	kt_spc_out_be16(o, 0);
}

static void kt_pr_read_full(const struct kt_pr_info *pr, struct kt_spc_out *o)
{
	const struct kt_pr_reg_info *r;
	u32 i, len_pos, start;

	kt_spc_out_be32(o, pr->generation);
	len_pos = o->off;
	kt_spc_out_be32(o, 0);
	start = o->off;
	for (i = 0; i < pr->nr_regs; i++) {
		u32 tid_pos;

		r = &pr->regs[i];
		kt_spc_out_be64(o, r->key);
		kt_spc_out_be32(o, 0);
		kt_spc_out_u8(o, (r->all_tg_pt ? 0x02 : 0) |
				 (r->holder ? 0x01 : 0));
		kt_spc_out_u8(o, r->holder ? KT_PR_SCOPE_LU << 4 | pr->type : 0);
		kt_spc_out_be32(o, 0);
		kt_spc_out_be16(o, r->rtpi);
		tid_pos = o->off;
		kt_spc_out_be32(o, 0);
		kt_pr_out_tid(o, &r->tid);
		kt_spc_out_set_be32(o, tid_pos, o->off - tid_pos - 4);
	}
	kt_spc_out_set_be32(o, len_pos, o->off - start);
}

sense_reason_t kt_pr_in(const struct kt_pr_info *pr, const u8 *cdb, u8 *buf,
			u32 buf_len, u32 *data_len,
			struct kt_sense_field *field)
{
	struct kt_spc_out o;

	kt_spc_out_init(&o, buf, buf_len, get_unaligned_be16(&cdb[7]));
	switch (cdb[1] & 0x1f) {
	case KT_PRI_READ_KEYS:
		kt_pr_read_keys(pr, &o);
		break;
	case KT_PRI_READ_RESERVATION:
		kt_pr_read_resv(pr, &o);
		break;
	case KT_PRI_REPORT_CAPABILITIES:
		kt_pr_report_caps(pr, &o);
		break;
	case KT_PRI_READ_FULL_STATUS:
		kt_pr_read_full(pr, &o);
		break;
	default:
		*field = KT_FIELD_CDB_BIT(1, 4);
		return KT_SENSE_INVALID_CDB_FIELD;
	}
	*data_len = kt_spc_out_len(&o);
	return KT_SENSE_NONE;
}

/* ------------------------------------------------------------------------
 * Commands in the presence of reservations (SPC-4 5.13.1, SBC-3 4.17)
 */

/* The class of @cdb: its descriptor @d's, refined by the fields that decide it */
static enum kt_cdb_pr kt_pr_class(const struct kt_cdb_desc *d, const u8 *cdb)
{
	if (!d)
		return KT_PRC_WRITE;
	switch (d->pr) {
	case KT_PRC_START_STOP:
		/* SPC-4 5.13.1: START with no power condition passes */
		return (cdb[4] & 0xf1) == 0x01 ? KT_PRC_ANY : KT_PRC_WRITE;
	case KT_PRC_PREVENT_ALLOW:
		/* ... and so does ALLOW */
		return cdb[4] & 0x03 ? KT_PRC_WRITE : KT_PRC_ANY;
	}
	return d->pr;
}

sense_reason_t kt_pr_check_access(const struct kt_cdb_desc *d, const u8 *cdb,
				  u8 type, bool registered, bool holder)
{
	enum kt_cdb_pr cls = kt_pr_class(d, cdb);

	if (type == KT_PR_TYPE_NONE || cls == KT_PRC_ANY)
		return KT_SENSE_NONE;
	/* SPC-4 5.13.3: RESERVE and RELEASE conflict with any PR */
	if (cls == KT_PRC_RESV)
		return KT_SENSE_RESERVATION_CONFLICT;
	if (holder)
		return KT_SENSE_NONE;

	switch (type) {
	case KT_PR_TYPE_WE:
		if (cls == KT_PRC_READ)
			return KT_SENSE_NONE;
		break;
	case KT_PR_TYPE_WE_RO:
	case KT_PR_TYPE_WE_AR:
		if (registered || cls == KT_PRC_READ)
			return KT_SENSE_NONE;
		break;
	case KT_PR_TYPE_EA_RO:
	case KT_PR_TYPE_EA_AR:
		if (registered)
			return KT_SENSE_NONE;
		break;
	}
	return KT_SENSE_RESERVATION_CONFLICT;
}

sense_reason_t kt_pr_check_reserve(const struct kt_cdb_desc *d)
{
	if (d && (d->flags & KT_CDB_D_RESERVED_OK))
		return KT_SENSE_NONE;
	return KT_SENSE_RESERVATION_CONFLICT;
}
