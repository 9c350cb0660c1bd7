// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of drivers/target/proto/pr.c: PERSISTENT RESERVE OUT
 * parameter lists and TransportIDs, PERSISTENT RESERVE IN responses and
 * the reservation conflict tables. Parameter lists and responses live in
 * buffers malloc'ed to their exact length, so that ASan catches overruns.
 */
#include <linux/types.h>
#include <linux/unaligned.h>

#include <ktarget/proto/cdb.h>
#include <ktarget/proto/pr.h>
#include <ktarget/proto/sense.h>
#include <ktarget/proto/spc.h>

#include "kt_test.h"

#define INI1	"iqn.2024-01.org.example:host1"
#define INI2	"iqn.2024-01.org.example:host2"

static void prout_cdb(u8 *cdb, u8 sa, u8 type, u32 plen)
{
	memset(cdb, 0, 10);
	cdb[0] = 0x5f;
	cdb[1] = sa;
	cdb[2] = type;
	put_unaligned_be32(plen, &cdb[5]);
}

static void basic_list(u8 *p, u64 rk, u64 sark, u8 flags)
{
	memset(p, 0, 24);
	put_unaligned_be64(rk, &p[0]);
	put_unaligned_be64(sark, &p[8]);
	p[20] = flags;
}

/* parse @len bytes copied into an exact-size heap buffer */
static sense_reason_t parse(const u8 *cdb, const u8 *param, u32 len,
			    struct kt_pr_out *out, struct kt_sense_field *f)
{
	u8 *p = malloc(len ? len : 1);
	sense_reason_t ret;

	if (len)
		memcpy(p, param, len);
	memset(f, 0, sizeof(*f));
	ret = kt_pr_out_parse(cdb, len ? p : NULL, len, out, f);
	free(p);
	return ret;
}

/* an iSCSI TransportID for @s (already ",i,0x..." if format 01b) */
static u32 tid_make(u8 *buf, const char *s, bool fmt1, u16 addl)
{
	u32 n = strlen(s);

	if (!addl) {
		addl = (n + 1 + 3) & ~3U;
		if (addl < 20)
			addl = 20;
	}
	memset(buf, 0, 4 + addl);
	buf[0] = (fmt1 ? 0x40 : 0) | 0x05;
	put_unaligned_be16(addl, &buf[2]);
	memcpy(&buf[4], s, n < addl ? n : addl);
	return 4 + addl;
}

/* PERSISTENT RESERVE OUT --------------------------------------------------- */

static void register_basic_list_decodes_keys_and_flags(void)
{
	struct kt_sense_field f;
	struct kt_pr_out out;
	u8 cdb[10], p[24];

	prout_cdb(cdb, KT_PRO_REGISTER, 0, 24);
	basic_list(p, 0x1111, 0xabcdef0123456789ULL, 0x05);
	KT_EXPECT_EQ(parse(cdb, p, 24, &out, &f), KT_SENSE_NONE);
	KT_EXPECT_EQ(out.sa, KT_PRO_REGISTER);
	KT_EXPECT_EQ(out.res_key, 0x1111);
	KT_EXPECT_EQ(out.sa_key, 0xabcdef0123456789ULL);
	KT_EXPECT(out.all_tg_pt);
	KT_EXPECT(out.aptpl);
	KT_EXPECT(!out.spec_i_pt);
	KT_EXPECT_EQ(out.tid_len, 0);
}

static void basic_list_not_24_bytes_is_parameter_list_length_error(void)
{
	struct kt_sense_field f;
	struct kt_pr_out out;
	u8 cdb[10], p[32] = { 0 };

	prout_cdb(cdb, KT_PRO_RESERVE, KT_PR_TYPE_WE, 23);
	KT_EXPECT_EQ(parse(cdb, p, 23, &out, &f), KT_SENSE_PARAM_LIST_LENGTH);
	KT_EXPECT(f.valid && f.in_cdb);
	KT_EXPECT_EQ(f.byte, 5);
	prout_cdb(cdb, KT_PRO_REGISTER, 0, 28);
	KT_EXPECT_EQ(parse(cdb, p, 28, &out, &f), KT_SENSE_PARAM_LIST_LENGTH);
	prout_cdb(cdb, KT_PRO_REGISTER, 0, 0);
	KT_EXPECT_EQ(parse(cdb, NULL, 0, &out, &f), KT_SENSE_PARAM_LIST_LENGTH);
}

static void short_data_out_is_parameter_list_length_error(void)
{
	struct kt_sense_field f;
	struct kt_pr_out out;
	u8 cdb[10], p[24] = { 0 };

	prout_cdb(cdb, KT_PRO_REGISTER, 0, 24);
	KT_EXPECT_EQ(parse(cdb, p, 20, &out, &f), KT_SENSE_PARAM_LIST_LENGTH);
}

static void reserve_scope_and_type_are_checked_in_the_cdb(void)
{
	struct kt_sense_field f;
	struct kt_pr_out out;
	u8 cdb[10], p[24];

	basic_list(p, 1, 0, 0);
	prout_cdb(cdb, KT_PRO_RESERVE, 0x02, 24);	/* obsolete type 2 */
	KT_EXPECT_EQ(parse(cdb, p, 24, &out, &f), KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT(f.in_cdb && f.bit_valid);
	KT_EXPECT_EQ(f.byte, 2);
	KT_EXPECT_EQ(f.bit, 3);
	prout_cdb(cdb, KT_PRO_RELEASE, 0x10 | KT_PR_TYPE_EA, 24);
	KT_EXPECT_EQ(parse(cdb, p, 24, &out, &f), KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(f.byte, 2);
	KT_EXPECT_EQ(f.bit, 7);
	/* PREEMPT checks them only where it reserves (pr.c) */
	prout_cdb(cdb, KT_PRO_PREEMPT, 0x10 | 0x02, 24);
	KT_EXPECT_EQ(parse(cdb, p, 24, &out, &f), KT_SENSE_NONE);
	KT_EXPECT_EQ(kt_pr_out_check_type(&out, &f), KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(f.bit, 7);
	out.scope = KT_PR_SCOPE_LU;
	KT_EXPECT_EQ(kt_pr_out_check_type(&out, &f), KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(f.bit, 3);
	/* REGISTER ignores TYPE */
	prout_cdb(cdb, KT_PRO_REGISTER, 0x0f, 24);
	KT_EXPECT_EQ(parse(cdb, p, 24, &out, &f), KT_SENSE_NONE);
	prout_cdb(cdb, KT_PRO_RESERVE, KT_PR_TYPE_EA_AR, 24);
	KT_EXPECT_EQ(parse(cdb, p, 24, &out, &f), KT_SENSE_NONE);
	KT_EXPECT_EQ(out.type, KT_PR_TYPE_EA_AR);
}

static void reserved_bits_of_byte_20_are_invalid_field(void)
{
	struct kt_sense_field f;
	struct kt_pr_out out;
	u8 cdb[10], p[24];

	prout_cdb(cdb, KT_PRO_REGISTER, 0, 24);
	basic_list(p, 0, 1, 0x80);
	KT_EXPECT_EQ(parse(cdb, p, 24, &out, &f), KT_SENSE_INVALID_PARAM_FIELD);
	KT_EXPECT(f.valid && !f.in_cdb);
	KT_EXPECT_EQ(f.byte, 20);
}

static void spec_i_pt_only_with_register(void)
{
	struct kt_sense_field f;
	struct kt_pr_out out;
	u8 cdb[10], p[28] = { 0 };

	prout_cdb(cdb, KT_PRO_REGISTER_AND_IGNORE, 0, 28);
	basic_list(p, 0, 1, 0x08);
	KT_EXPECT_EQ(parse(cdb, p, 28, &out, &f), KT_SENSE_INVALID_PARAM_FIELD);
	KT_EXPECT(f.bit_valid);
	KT_EXPECT_EQ(f.byte, 20);
	KT_EXPECT_EQ(f.bit, 3);
}

static void spec_i_pt_transport_ids_are_located_and_parsed(void)
{
	u8 cdb[10], p[256];
	struct kt_sense_field f;
	struct kt_pr_out out;
	struct kt_pr_tid tid;
	u32 n1, n2, used;

	basic_list(p, 0, 7, 0x08);
	n1 = tid_make(p + 28, INI2, false, 0);
	n2 = tid_make(p + 28 + n1, INI1 ",i,0x23d000000001", true, 0);
	put_unaligned_be32(n1 + n2, &p[24]);
	prout_cdb(cdb, KT_PRO_REGISTER, 0, 28 + n1 + n2);
	KT_EXPECT_EQ(parse(cdb, p, 28 + n1 + n2, &out, &f), KT_SENSE_NONE);
	KT_EXPECT(out.spec_i_pt);
	KT_EXPECT_EQ(out.tid_off, 28);
	KT_EXPECT_EQ(out.tid_len, n1 + n2);

	KT_EXPECT_EQ(kt_pr_tid_parse(p + 28, n1 + n2, 28, &used, &tid, &f),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(used, n1);
	KT_EXPECT(!strcmp(tid.name, INI2));
	KT_EXPECT(!tid.has_isid);
	KT_EXPECT_EQ(kt_pr_tid_parse(p + 28 + n1, n2, 28 + n1, &used, &tid, &f),
		     KT_SENSE_NONE);
	KT_EXPECT(!strcmp(tid.name, INI1));
	KT_EXPECT(tid.has_isid);
	KT_EXPECT_EQ(tid.isid[0], 0x23);
	KT_EXPECT_EQ(tid.isid[1], 0xd0);
	KT_EXPECT_EQ(tid.isid[5], 0x01);

	/* TransportID list length that disagrees with the list */
	put_unaligned_be32(n1 + n2 + 4, &p[24]);
	KT_EXPECT_EQ(parse(cdb, p, 28 + n1 + n2, &out, &f),
		     KT_SENSE_PARAM_LIST_LENGTH);
}

static void transport_id_other_protocol_is_invalid_field(void)
{
	struct kt_sense_field f;
	struct kt_pr_tid tid;
	u8 buf[64];
	u32 used, n;

	n = tid_make(buf, INI1, false, 0);
	buf[0] = 0x03;				/* SBP: not taken */
	KT_EXPECT_EQ(kt_pr_tid_parse(buf, n, 40, &used, &tid, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	KT_EXPECT_EQ(f.byte, 40);
	buf[0] = 0x85;				/* format 10b */
	KT_EXPECT_EQ(kt_pr_tid_parse(buf, n, 40, &used, &tid, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	KT_EXPECT_EQ(f.bit, 7);
}

static void transport_id_bad_lengths_are_refused(void)
{
	struct kt_sense_field f;
	struct kt_pr_tid tid;
	u8 buf[64];
	u32 used, n;

	n = tid_make(buf, INI1, false, 0);
	KT_EXPECT_EQ(kt_pr_tid_parse(buf, n - 4, 0, &used, &tid, &f),
		     KT_SENSE_PARAM_LIST_LENGTH);
	KT_EXPECT_EQ(kt_pr_tid_parse(buf, 3, 0, &used, &tid, &f),
		     KT_SENSE_PARAM_LIST_LENGTH);
	put_unaligned_be16(18, &buf[2]);	/* not a multiple of 4 */
	KT_EXPECT_EQ(kt_pr_tid_parse(buf, n, 0, &used, &tid, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	KT_EXPECT_EQ(f.byte, 2);
	put_unaligned_be16(16, &buf[2]);	/* under 20 */
	KT_EXPECT_EQ(kt_pr_tid_parse(buf, n, 0, &used, &tid, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
}

static void transport_id_without_nul_is_invalid_field(void)
{
	struct kt_sense_field f;
	struct kt_pr_tid tid;
	u8 buf[32];
	u32 used;

	tid_make(buf, "iqn.2024-01.org.example:aaaa", false, 20);
	memset(&buf[4], 'a', 20);
	KT_EXPECT_EQ(kt_pr_tid_parse(buf, 24, 0, &used, &tid, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	KT_EXPECT_EQ(f.byte, 4);
}

static void transport_id_name_too_long_is_invalid_field(void)
{
	struct kt_sense_field f;
	struct kt_pr_tid tid;
	char name[300];
	u8 buf[320];
	u32 used, n;

	memset(name, 'x', 250);
	name[250] = '\0';
	n = tid_make(buf, name, false, 0);
	KT_EXPECT_EQ(kt_pr_tid_parse(buf, n, 0, &used, &tid, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	name[223] = '\0';			/* the longest iSCSI name */
	n = tid_make(buf, name, false, 0);
	KT_EXPECT_EQ(kt_pr_tid_parse(buf, n, 0, &used, &tid, &f),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(strlen(tid.name), 223);
}

/* SPC-4 7.6.4.6: an ISCSI NAME field of 224 bytes at most (244 with ISID) */
static void transport_id_additional_length_past_224_is_invalid_field(void)
{
	struct kt_sense_field f;
	struct kt_pr_tid tid;
	char name[300];
	u8 buf[320];
	u32 used, n;

	n = tid_make(buf, INI1, false, 228);
	KT_EXPECT_EQ(kt_pr_tid_parse(buf, n, 8, &used, &tid, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	KT_EXPECT_EQ(f.byte, 8 + 2);
	n = tid_make(buf, INI1, false, 224);
	KT_EXPECT_EQ(kt_pr_tid_parse(buf, n, 0, &used, &tid, &f),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(used, 228);
	/* the longest name with its ISID: 223 + 17 + NUL, padded to 244 */
	memset(name, 'y', 223);
	strcpy(name + 223, ",i,0x23d000000001");
	n = tid_make(buf, name, true, 0);
	KT_EXPECT_EQ(n, 4 + 244);
	KT_EXPECT_EQ(kt_pr_tid_parse(buf, n, 0, &used, &tid, &f),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(strlen(tid.name), 223);
	n = tid_make(buf, INI1 ",i,0x23d000000001", true, 248);
	KT_EXPECT_EQ(kt_pr_tid_parse(buf, n, 0, &used, &tid, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	/* a huge ADDITIONAL LENGTH in a short list: invalid, not read */
	tid_make(buf, INI1, false, 0);
	put_unaligned_be16(0xfffc, &buf[2]);
	KT_EXPECT_EQ(kt_pr_tid_parse(buf, 24, 0, &used, &tid, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
}

static void transport_id_format_1_needs_separator_and_12_hex_digits(void)
{
	struct kt_sense_field f;
	struct kt_pr_tid tid;
	u8 buf[64];
	u32 used, n;

	n = tid_make(buf, INI1 ",i,0x23d00000000", true, 0);
	KT_EXPECT_EQ(kt_pr_tid_parse(buf, n, 0, &used, &tid, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	n = tid_make(buf, INI1 ",t,0x23d000000001", true, 0);
	KT_EXPECT_EQ(kt_pr_tid_parse(buf, n, 0, &used, &tid, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	n = tid_make(buf, INI1 ",i,0x23d00000000g", true, 0);
	KT_EXPECT_EQ(kt_pr_tid_parse(buf, n, 0, &used, &tid, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	n = tid_make(buf, ",i,0x23d000000001", true, 0);
	KT_EXPECT_EQ(kt_pr_tid_parse(buf, n, 0, &used, &tid, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	n = tid_make(buf, INI1 ",I,0X23D000000001", true, 0);
	KT_EXPECT_EQ(kt_pr_tid_parse(buf, n, 0, &used, &tid, &f),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(tid.isid[1], 0xd0);
}

static void transport_id_build_round_trips(void)
{
	struct kt_pr_tid tid = { .name = INI1, .has_isid = true,
				 .isid = { 0x80, 0x12, 0x34, 0x56, 0x00, 0x01 },
				 .proto = KT_PROTO_ISCSI };
	struct kt_pr_tid back;
	struct kt_sense_field f;
	u8 buf[KT_PR_TID_MAX];
	u32 n, used;

	n = kt_pr_tid_build(&tid, buf, sizeof(buf));
	KT_EXPECT_EQ(n % 4, 0);
	KT_EXPECT_EQ(buf[0], 0x45);
	KT_EXPECT_EQ(get_unaligned_be16(&buf[2]), n - 4);
	KT_EXPECT(!memcmp(&buf[4], INI1 ",i,0x801234560001",
			  strlen(INI1) + 17));
	KT_EXPECT_EQ(kt_pr_tid_parse(buf, n, 0, &used, &back, &f),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(used, n);
	KT_EXPECT_EQ(back.proto, KT_PROTO_ISCSI);
	KT_EXPECT(kt_pr_tid_match(&tid, &back));
	back.proto = KT_PROTO_ISCSI + 1;	/* another protocol's port */
	KT_EXPECT(!kt_pr_tid_match(&tid, &back));
	back.proto = KT_PROTO_ISCSI;
	KT_EXPECT(!strcmp(kt_pr_proto_name(back.proto), "iSCSI"));
	KT_EXPECT(!strcmp(kt_pr_proto_name(0x0f), "Unknown"));
	back.isid[5] = 2;
	KT_EXPECT(!kt_pr_tid_match(&tid, &back));
	back.has_isid = false;			/* format 00b: any port */
	KT_EXPECT(kt_pr_tid_match(&tid, &back));

	tid.has_isid = false;
	strcpy(tid.name, "iqn.a");
	n = kt_pr_tid_build(&tid, buf, sizeof(buf));
	KT_EXPECT_EQ(n, 24);			/* the minimum */
	KT_EXPECT_EQ(buf[0], 0x05);
}

/* SPC-4 7.6.4.7: SAS, the 8-byte address at byte 4 of 24 */
static void transport_id_sas_is_its_address(void)
{
	static const u8 sas[24] = { 0x06, 0, 0, 0, 0x50, 0x01, 0x40, 0x50,
				    0, 0, 0x01, 0x02 };
	struct kt_pr_tid tid = { .name = "naa.5001405000000102",
				 .proto = KT_PROTO_SAS };
	struct kt_pr_tid back;
	struct kt_sense_field f;
	u8 buf[KT_PR_TID_MAX];
	u32 used;

	KT_EXPECT_EQ(kt_pr_tid_build(&tid, buf, sizeof(buf)), 24);
	KT_EXPECT(!memcmp(buf, sas, sizeof(sas)));
	KT_EXPECT_EQ(kt_pr_tid_parse(sas, 24, 0, &used, &back, &f),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(used, 24);
	KT_EXPECT_EQ(back.proto, KT_PROTO_SAS);
	KT_EXPECT(!strcmp(back.name, "naa.5001405000000102"));
	KT_EXPECT(kt_pr_tid_match(&tid, &back));
	/* a 32-digit naa. name: its first 16 are the SAS address */
	strcpy(tid.name, "naa.5001405000000102ffffffffffffffff");
	KT_EXPECT(kt_pr_tid_match(&tid, &back));
	strcpy(tid.name, "NAA.5001405000000103");
	KT_EXPECT(!kt_pr_tid_match(&tid, &back));
	/* iSCSI's name for the same digits is another port */
	back.proto = KT_PROTO_ISCSI;
	KT_EXPECT(!kt_pr_tid_match(&tid, &back));
	/* 24 bytes or the list is short; format 00b only */
	KT_EXPECT_EQ(kt_pr_tid_parse(sas, 20, 8, &used, &back, &f),
		     KT_SENSE_PARAM_LIST_LENGTH);
	memcpy(buf, sas, sizeof(sas));
	buf[0] = 0x46;
	KT_EXPECT_EQ(kt_pr_tid_parse(buf, 24, 8, &used, &back, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	KT_EXPECT_EQ(f.byte, 8);
	KT_EXPECT_EQ(f.bit, 7);
}

/* SPC-4 7.6.4.2 and .5: FC's N_PORT_NAME, SRP's 16-byte identifier */
static void transport_id_fc_and_srp_are_their_identifiers(void)
{
	struct kt_pr_tid fc = { .name = "fc.21000024ff314c48",
				.proto = KT_PROTO_FCP };
	struct kt_pr_tid srp = {
		.name = "0xfe800000000000000002c90300a0b0c1",
		.proto = KT_PROTO_SRP };
	struct kt_pr_tid back;
	struct kt_sense_field f;
	u8 buf[KT_PR_TID_MAX];
	u32 used;

	KT_EXPECT_EQ(kt_pr_tid_build(&fc, buf, sizeof(buf)), 24);
	KT_EXPECT_EQ(buf[0], 0x00);
	KT_EXPECT_EQ(buf[8], 0x21);
	KT_EXPECT_EQ(buf[15], 0x48);
	KT_EXPECT_EQ(buf[16], 0);
	KT_EXPECT_EQ(kt_pr_tid_parse(buf, 24, 0, &used, &back, &f),
		     KT_SENSE_NONE);
	KT_EXPECT(!strcmp(back.name, "fc.21000024ff314c48"));
	/* FC's colon form names the same port */
	strcpy(fc.name, "21:00:00:24:FF:31:4C:48");
	KT_EXPECT(kt_pr_tid_match(&fc, &back));

	KT_EXPECT_EQ(kt_pr_tid_build(&srp, buf, sizeof(buf)), 24);
	KT_EXPECT_EQ(buf[0], 0x04);
	KT_EXPECT_EQ(buf[8], 0xfe);
	KT_EXPECT_EQ(buf[23], 0xc1);
	KT_EXPECT_EQ(kt_pr_tid_parse(buf, 24, 0, &used, &back, &f),
		     KT_SENSE_NONE);
	KT_EXPECT(!strcmp(back.name, srp.name));
	/* ib_srpt's other spelling of the same port: no 0x */
	strcpy(srp.name, "fe800000000000000002c90300a0b0c1");
	KT_EXPECT(kt_pr_tid_match(&srp, &back));
	/* a name too short to spell an identifier matches only itself */
	strcpy(srp.name, "0xfe80");
	KT_EXPECT(!kt_pr_tid_match(&srp, &back));
	KT_EXPECT_EQ(kt_pr_tid_build(&srp, buf, sizeof(buf)), 24);
	KT_EXPECT_EQ(buf[8], 0);
}

static void register_and_move_list_is_decoded(void)
{
	struct kt_sense_field f;
	struct kt_pr_out out;
	u8 cdb[10], p[128];
	u32 n;

	memset(p, 0, sizeof(p));
	put_unaligned_be64(5, &p[0]);
	put_unaligned_be64(9, &p[8]);
	p[17] = 0x03;
	put_unaligned_be16(2, &p[18]);
	n = tid_make(p + 24, INI2 ",i,0x000000000001", true, 0);
	put_unaligned_be32(n, &p[20]);
	prout_cdb(cdb, KT_PRO_REGISTER_AND_MOVE, KT_PR_TYPE_WE, 24 + n);
	KT_EXPECT_EQ(parse(cdb, p, 24 + n, &out, &f), KT_SENSE_NONE);
	KT_EXPECT_EQ(out.res_key, 5);
	KT_EXPECT_EQ(out.sa_key, 9);
	KT_EXPECT(out.unreg && out.aptpl);
	KT_EXPECT_EQ(out.rtpi, 2);
	KT_EXPECT_EQ(out.tid_off, 24);
	KT_EXPECT_EQ(out.tid_len, n);

	put_unaligned_be32(n + 1, &p[20]);
	KT_EXPECT_EQ(parse(cdb, p, 24 + n, &out, &f),
		     KT_SENSE_PARAM_LIST_LENGTH);
	put_unaligned_be32(0xffffffff, &p[20]);
	KT_EXPECT_EQ(parse(cdb, p, 24 + n, &out, &f),
		     KT_SENSE_PARAM_LIST_LENGTH);
	put_unaligned_be32(0, &p[20]);
	KT_EXPECT_EQ(parse(cdb, p, 24 + n, &out, &f),
		     KT_SENSE_PARAM_LIST_LENGTH);
	/* no TransportID at all: less than the least one */
	prout_cdb(cdb, KT_PRO_REGISTER_AND_MOVE, KT_PR_TYPE_WE, 24);
	KT_EXPECT_EQ(parse(cdb, p, 24, &out, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	prout_cdb(cdb, KT_PRO_REGISTER_AND_MOVE, KT_PR_TYPE_WE, 24 + n);
	put_unaligned_be32(n, &p[20]);
	p[17] = 0x04;
	KT_EXPECT_EQ(parse(cdb, p, 24 + n, &out, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	KT_EXPECT_EQ(f.byte, 17);
	prout_cdb(cdb, KT_PRO_REGISTER_AND_MOVE, KT_PR_TYPE_WE, 20);
	KT_EXPECT_EQ(parse(cdb, p, 20, &out, &f), KT_SENSE_PARAM_LIST_LENGTH);
}

/*
 * SPC-4 6.16.4: the TRANSPORTID PARAMETER DATA LENGTH of REGISTER AND MOVE
 * is the length of the list after its header, and of its TransportID
 */
static void register_and_move_tid_length_must_agree(void)
{
	struct kt_sense_field f;
	struct kt_pr_tid tid;
	struct kt_pr_out out;
	u8 cdb[10], p[128];
	u32 n;

	memset(p, 0, sizeof(p));
	put_unaligned_be64(5, &p[0]);
	put_unaligned_be64(9, &p[8]);
	put_unaligned_be16(2, &p[18]);
	n = tid_make(p + 24, INI2, false, 0);
	/* a list longer than the header and the TransportID */
	put_unaligned_be32(n, &p[20]);
	prout_cdb(cdb, KT_PRO_REGISTER_AND_MOVE, KT_PR_TYPE_WE, 24 + n + 4);
	KT_EXPECT_EQ(parse(cdb, p, 24 + n + 4, &out, &f),
		     KT_SENSE_PARAM_LIST_LENGTH);
	KT_EXPECT_EQ(f.byte, 20);
	/* a TransportID shorter than the length given for it */
	put_unaligned_be32(n + 4, &p[20]);
	KT_EXPECT_EQ(parse(cdb, p, 24 + n + 4, &out, &f), KT_SENSE_NONE);
	KT_EXPECT_EQ(kt_pr_move_tid(&out, p, &tid, &f),
		     KT_SENSE_INVALID_PARAM_FIELD);
	KT_EXPECT(f.valid && !f.in_cdb);
	KT_EXPECT_EQ(f.byte, 20);
	/* one that agrees */
	put_unaligned_be32(n, &p[20]);
	prout_cdb(cdb, KT_PRO_REGISTER_AND_MOVE, KT_PR_TYPE_WE, 24 + n);
	KT_EXPECT_EQ(parse(cdb, p, 24 + n, &out, &f), KT_SENSE_NONE);
	KT_EXPECT_EQ(kt_pr_move_tid(&out, p, &tid, &f), KT_SENSE_NONE);
	KT_EXPECT(!strcmp(tid.name, INI2));
	/* its ADDITIONAL LENGTH past the list: a length error, no read past */
	put_unaligned_be16(n - 4 + 8, &p[24 + 2]);
	KT_EXPECT_EQ(kt_pr_move_tid(&out, p, &tid, &f),
		     KT_SENSE_PARAM_LIST_LENGTH);
}

/* PERSISTENT RESERVE IN ---------------------------------------------------- */

static struct kt_pr_reg_info regs[2] = {
	{ .key = 0x1122334455667788ULL, .rtpi = 1, .holder = true,
	  .tid = { .name = INI1, .has_isid = true, .proto = KT_PROTO_ISCSI,
		   .isid = { 0x23, 0xd0, 0, 0, 0, 1 } } },
	{ .key = 0xabcd, .rtpi = 2, .all_tg_pt = true,
	  .tid = { .name = INI2, .has_isid = true, .proto = KT_PROTO_ISCSI,
		   .isid = { 0x23, 0xd0, 0, 0, 0, 2 } } },
};

static const struct kt_pr_info pr_two = {
	.generation = 7,
	.type = KT_PR_TYPE_WE_RO,
	.res_key = 0x1122334455667788ULL,
	.regs = regs,
	.nr_regs = 2,
};

static sense_reason_t prin(const struct kt_pr_info *pr, u8 sa, u16 alloc,
			   u8 *out, u32 *dlen)
{
	struct kt_sense_field f;
	sense_reason_t ret;
	u8 cdb[10] = { 0x5e, sa };
	u8 *buf = malloc(alloc ? alloc : 1);

	put_unaligned_be16(alloc, &cdb[7]);
	ret = kt_pr_in(pr, cdb, alloc ? buf : NULL, alloc, dlen, &f);
	memcpy(out, buf, alloc);
	free(buf);
	return ret;
}

static void read_keys_lists_every_key_after_the_generation(void)
{
	u8 out[64];
	u32 dlen;

	KT_EXPECT_EQ(prin(&pr_two, KT_PRI_READ_KEYS, 64, out, &dlen),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(dlen, 24);
	KT_EXPECT_EQ(get_unaligned_be32(&out[0]), 7);
	KT_EXPECT_EQ(get_unaligned_be32(&out[4]), 16);
	KT_EXPECT_EQ(get_unaligned_be64(&out[8]), 0x1122334455667788ULL);
	KT_EXPECT_EQ(get_unaligned_be64(&out[16]), 0xabcd);
}

static void read_keys_truncates_to_the_allocation_length(void)
{
	u8 out[64], full[64];
	u32 dlen, flen, alloc;

	prin(&pr_two, KT_PRI_READ_KEYS, 64, full, &flen);
	for (alloc = 0; alloc < 30; alloc++) {
		KT_EXPECT_EQ(prin(&pr_two, KT_PRI_READ_KEYS, alloc, out, &dlen),
			     KT_SENSE_NONE);
		KT_EXPECT_EQ(dlen, alloc < flen ? alloc : flen);
		KT_EXPECT(!memcmp(out, full, dlen));
		/* the ADDITIONAL LENGTH still tells the full list */
		if (alloc >= 8)
			KT_EXPECT_EQ(get_unaligned_be32(&out[4]), 16);
	}
}

static void read_reservation_reports_key_scope_and_type(void)
{
	struct kt_pr_info pr = pr_two;
	u8 out[64];
	u32 dlen;

	KT_EXPECT_EQ(prin(&pr, KT_PRI_READ_RESERVATION, 64, out, &dlen),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(dlen, 24);
	KT_EXPECT_EQ(get_unaligned_be32(&out[4]), 16);
	KT_EXPECT_EQ(get_unaligned_be64(&out[8]), 0x1122334455667788ULL);
	KT_EXPECT_EQ(out[21], KT_PR_TYPE_WE_RO);

	pr.type = KT_PR_TYPE_EA_AR;		/* all registrants: key 0 */
	prin(&pr, KT_PRI_READ_RESERVATION, 64, out, &dlen);
	KT_EXPECT_EQ(get_unaligned_be64(&out[8]), 0);
	KT_EXPECT_EQ(out[21], KT_PR_TYPE_EA_AR);

	pr.type = KT_PR_TYPE_NONE;
	prin(&pr, KT_PRI_READ_RESERVATION, 64, out, &dlen);
	KT_EXPECT_EQ(dlen, 8);
	KT_EXPECT_EQ(get_unaligned_be32(&out[4]), 0);
}

static void report_capabilities_offers_every_type(void)
{
	struct kt_pr_info pr = pr_two;
	u8 out[8];
	u32 dlen;

	KT_EXPECT_EQ(prin(&pr, KT_PRI_REPORT_CAPABILITIES, 8, out, &dlen),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(dlen, 8);
	KT_EXPECT_EQ(get_unaligned_be16(&out[0]), 8);
	KT_EXPECT_EQ(out[2] & 0x0d, 0x0d);	/* SIP_C ATP_C PTPL_C */
	KT_EXPECT_EQ(out[3] & 0x01, 0);		/* PTPL_A */
	KT_EXPECT_EQ(out[4], 0xea);
	KT_EXPECT_EQ(out[5], 0x01);
	pr.aptpl = true;
	prin(&pr, KT_PRI_REPORT_CAPABILITIES, 8, out, &dlen);
	KT_EXPECT_EQ(out[3] & 0x01, 1);
}

static void read_full_status_describes_each_registration(void)
{
	u8 out[512];
	u32 dlen, d0, d1;

	KT_EXPECT_EQ(prin(&pr_two, KT_PRI_READ_FULL_STATUS, 512, out, &dlen),
		     KT_SENSE_NONE);
	KT_EXPECT_EQ(get_unaligned_be32(&out[0]), 7);
	KT_EXPECT_EQ(get_unaligned_be32(&out[4]), dlen - 8);
	d0 = 8;
	KT_EXPECT_EQ(get_unaligned_be64(&out[d0]), 0x1122334455667788ULL);
	KT_EXPECT_EQ(out[d0 + 12], 0x01);		/* R_HOLDER */
	KT_EXPECT_EQ(out[d0 + 13], KT_PR_TYPE_WE_RO);
	KT_EXPECT_EQ(get_unaligned_be16(&out[d0 + 18]), 1);
	KT_EXPECT_EQ(out[d0 + 24], 0x45);
	KT_EXPECT(!memcmp(&out[d0 + 28], INI1 ",i,0x23d000000001",
			  strlen(INI1) + 17));
	d1 = d0 + 24 + get_unaligned_be32(&out[d0 + 20]);
	KT_EXPECT_EQ(get_unaligned_be64(&out[d1]), 0xabcd);
	KT_EXPECT_EQ(out[d1 + 12], 0x02);		/* ALL_TG_PT */
	KT_EXPECT_EQ(out[d1 + 13], 0);
	KT_EXPECT_EQ(d1 + 24 + get_unaligned_be32(&out[d1 + 20]), dlen);
}

static void read_full_status_truncation_is_a_prefix(void)
{
	u8 out[512], full[512];
	u32 dlen, flen, alloc;

	prin(&pr_two, KT_PRI_READ_FULL_STATUS, 512, full, &flen);
	for (alloc = 0; alloc <= flen + 4; alloc += 3) {
		prin(&pr_two, KT_PRI_READ_FULL_STATUS, alloc, out, &dlen);
		KT_EXPECT_EQ(dlen, alloc < flen ? alloc : flen);
		KT_EXPECT(!memcmp(out, full, dlen));
	}
}

static void prin_unknown_service_action_is_invalid_field(void)
{
	u8 out[8];
	u32 dlen;

	KT_EXPECT_EQ(prin(&pr_two, 0x04, 8, out, &dlen),
		     KT_SENSE_INVALID_CDB_FIELD);
}

/* Conflicts ---------------------------------------------------------------- */

static const u8 cdb_read10[10] = { 0x28 };
static const u8 cdb_write10[10] = { 0x2a };
static const u8 cdb_tur[6] = { 0x00 };
static const u8 cdb_inquiry[6] = { 0x12 };
static const u8 cdb_mode_sense[6] = { 0x1a };
static const u8 cdb_reserve6[6] = { 0x16 };
static const u8 cdb_release10[10] = { 0x57 };
static const u8 cdb_prout[10] = { 0x5f };
static const u8 cdb_sync[10] = { 0x35 };

#define OK	KT_SENSE_NONE
#define RC	KT_SENSE_RESERVATION_CONFLICT

/* libiscsi ProutReserve.Access*: registered / unregistered, read / write */
/* The gates with the descriptor a disk LU decodes @cdb against */
static sense_reason_t access_of(const u8 *cdb, u8 type, bool registered,
				bool holder)
{
	return kt_pr_check_access(kt_cdb_desc_find(cdb, 2), cdb, type,
				  registered, holder);
}

static sense_reason_t reserve_of(const u8 *cdb)
{
	return kt_pr_check_reserve(kt_cdb_desc_find(cdb, 2));
}

static void access_table_matches_spc4_for_every_type(void)
{
	static const struct {
		u8 type;
		sense_reason_t reg_r, reg_w, unreg_r, unreg_w;
	} t[] = {
		{ KT_PR_TYPE_WE,    OK, RC, OK, RC },
		{ KT_PR_TYPE_EA,    RC, RC, RC, RC },
		{ KT_PR_TYPE_WE_RO, OK, OK, OK, RC },
		{ KT_PR_TYPE_EA_RO, OK, OK, RC, RC },
		{ KT_PR_TYPE_WE_AR, OK, OK, OK, RC },
		{ KT_PR_TYPE_EA_AR, OK, OK, RC, RC },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		KT_EXPECT_EQ(access_of(cdb_read10, t[i].type, true, false), t[i].reg_r);
		KT_EXPECT_EQ(access_of(cdb_write10, t[i].type, true, false), t[i].reg_w);
		KT_EXPECT_EQ(access_of(cdb_read10, t[i].type, false, false), t[i].unreg_r);
		KT_EXPECT_EQ(access_of(cdb_write10, t[i].type, false, false), t[i].unreg_w);
		KT_EXPECT_EQ(access_of(cdb_sync, t[i].type, false, false), RC);
		/* the holder reads and writes */
		KT_EXPECT_EQ(access_of(cdb_write10, t[i].type, true, true), OK);
		/* always allowed */
		KT_EXPECT_EQ(access_of(cdb_tur, t[i].type, false, false), OK);
		KT_EXPECT_EQ(access_of(cdb_inquiry, t[i].type, false, false), OK);
		KT_EXPECT_EQ(access_of(cdb_prout, t[i].type, false, false), OK);
		/* RESERVE / RELEASE conflict even for the holder */
		KT_EXPECT_EQ(access_of(cdb_reserve6, t[i].type, true, true), RC);
		KT_EXPECT_EQ(access_of(cdb_release10, t[i].type, true, true), RC);
	}
	KT_EXPECT_EQ(access_of(cdb_write10, KT_PR_TYPE_NONE, false, false), OK);
}

static void mode_sense_passes_write_exclusive_only(void)
{
	KT_EXPECT_EQ(access_of(cdb_mode_sense, KT_PR_TYPE_WE, false, false), OK);
	KT_EXPECT_EQ(access_of(cdb_mode_sense, KT_PR_TYPE_EA, true, false), RC);
}

static void spc2_reserve_lets_through_inquiry_and_release_only(void)
{
	KT_EXPECT_EQ(reserve_of(cdb_inquiry), OK);
	KT_EXPECT_EQ(reserve_of(cdb_release10), OK);
	KT_EXPECT_EQ(reserve_of(cdb_reserve6), RC);
	KT_EXPECT_EQ(reserve_of(cdb_tur), RC);
	KT_EXPECT_EQ(reserve_of(cdb_mode_sense), RC);
	KT_EXPECT_EQ(reserve_of(cdb_read10), RC);
	KT_EXPECT_EQ(reserve_of(cdb_prout), RC);
}

static const struct kt_test tests[] = {
	KT_TEST_ENTRY(register_basic_list_decodes_keys_and_flags),
	KT_TEST_ENTRY(basic_list_not_24_bytes_is_parameter_list_length_error),
	KT_TEST_ENTRY(short_data_out_is_parameter_list_length_error),
	KT_TEST_ENTRY(reserve_scope_and_type_are_checked_in_the_cdb),
	KT_TEST_ENTRY(reserved_bits_of_byte_20_are_invalid_field),
	KT_TEST_ENTRY(spec_i_pt_only_with_register),
	KT_TEST_ENTRY(spec_i_pt_transport_ids_are_located_and_parsed),
	KT_TEST_ENTRY(transport_id_other_protocol_is_invalid_field),
	KT_TEST_ENTRY(transport_id_bad_lengths_are_refused),
	KT_TEST_ENTRY(transport_id_without_nul_is_invalid_field),
	KT_TEST_ENTRY(transport_id_name_too_long_is_invalid_field),
	KT_TEST_ENTRY(transport_id_additional_length_past_224_is_invalid_field),
	KT_TEST_ENTRY(transport_id_format_1_needs_separator_and_12_hex_digits),
	KT_TEST_ENTRY(transport_id_build_round_trips),
	KT_TEST_ENTRY(transport_id_sas_is_its_address),
	KT_TEST_ENTRY(transport_id_fc_and_srp_are_their_identifiers),
	KT_TEST_ENTRY(register_and_move_list_is_decoded),
	KT_TEST_ENTRY(register_and_move_tid_length_must_agree),
	KT_TEST_ENTRY(read_keys_lists_every_key_after_the_generation),
	KT_TEST_ENTRY(read_keys_truncates_to_the_allocation_length),
	KT_TEST_ENTRY(read_reservation_reports_key_scope_and_type),
	KT_TEST_ENTRY(report_capabilities_offers_every_type),
	KT_TEST_ENTRY(read_full_status_describes_each_registration),
	KT_TEST_ENTRY(read_full_status_truncation_is_a_prefix),
	KT_TEST_ENTRY(prin_unknown_service_action_is_invalid_field),
	KT_TEST_ENTRY(access_table_matches_spc4_for_every_type),
	KT_TEST_ENTRY(mode_sense_passes_write_exclusive_only),
	KT_TEST_ENTRY(spc2_reserve_lets_through_inquiry_and_release_only),
};

KT_TEST_MAIN(tests)
