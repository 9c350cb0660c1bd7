// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of drivers/target/proto/spc.c: INQUIRY and its VPD pages,
 * REPORT LUNS, REPORT SUPPORTED OPERATION CODES / TASK MANAGEMENT
 * FUNCTIONS, REQUEST SENSE and the CDB checks. Responses go to buffers
 * malloc'ed to the exact allocation length so that ASan catches overruns.
 */
#include <linux/types.h>
#include <linux/unaligned.h>

#include <ktarget/proto/cdb.h>
#include <ktarget/proto/sense.h>
#include <ktarget/proto/lun.h>
#include <ktarget/proto/spc.h>

#include "kt_test.h"

#define ALL_FEATURES	(KT_LU_WCE | KT_LU_FUA_WRITE | KT_LU_DPO | KT_LU_TPU | \
			 KT_LU_TPWS | KT_LU_CAW | KT_LU_3PC | KT_LU_NONROT | \
			 KT_LU_PR | KT_LU_LBPRZ | KT_LU_ROD)

static unsigned int fake_tpc_calls;

/* Stands in for kt_xcopy_build_vpd_tpc() */
static unsigned int fake_vpd_tpc(u8 *buf, unsigned int buf_len,
				 const struct kt_lu_info *lu)
{
	static const u8 page[8] = { 0x00, 0x8f, 0x00, 0x04, 1, 2, 3, 4 };
	unsigned int i;

	fake_tpc_calls++;
	for (i = 0; i < sizeof(page) && i < buf_len; i++)
		buf[i] = page[i];
	return sizeof(page);
}

static struct kt_lu_info test_lu(void)
{
	return (struct kt_lu_info){
		.nr_blocks = 2048,
		.dev_id = 1,
		.max_write_same_len = 4096,
		.block_size = 512,
		.hw_max_sectors = 1024,
		.optimal_sectors = 256,
		.max_unmap_lba_count = 8192,
		.max_unmap_block_desc_count = 256,
		.unmap_granularity = 8,
		.unmap_granularity_alignment = 0,
		.company_id = 0x001405,
		.flags = ALL_FEATURES,
		.rel_port_id = 1,
		.tpg_id = 3,
		.tmf = KT_TMF_SUP_ABORT_TASK | KT_TMF_SUP_ABORT_TASK_SET |
		       KT_TMF_SUP_LU_RESET,
		.max_caw_blocks = 1,
		.lbppbe = 0,
		.proto_id = KT_PROTO_ISCSI,
		.tpgs = 1,
		.vendor_id = "LIO-ORG",
		.product_id = "ktarget",
		.revision = "0.1",
		.unit_serial = "0123456789abcdef",
		.port_name = "iqn.2003-01.org.example:t1,t,0x0001",
		.target_name = "iqn.2003-01.org.example:t1",
		.vpd_tpc = fake_vpd_tpc,
	};
}

/* A builder call into a buffer of exactly @len bytes */
typedef sense_reason_t (*builder_fn)(const struct kt_lu_info *lu,
				     const u8 *cdb, u8 *buf, u32 buf_len,
				     u32 *data_len,
				     struct kt_sense_field *field);

struct result {
	sense_reason_t	ret;
	u32		data_len;
	struct kt_sense_field field;
	u8		data[4096];	/* what was written, zero beyond */
};

static void run(builder_fn fn, const struct kt_lu_info *lu, const u8 *cdb,
		u32 len, struct result *r)
{
	u8 *buf = malloc(len ? len : 1);

	memset(r, 0, sizeof(*r));
	memset(buf, 0xa5, len ? len : 1);
	r->ret = fn(lu, cdb, len ? buf : NULL, len, &r->data_len, &r->field);
	memcpy(r->data, buf, len < sizeof(r->data) ? len : sizeof(r->data));
	free(buf);
}

static void inquiry_cdb(u8 *cdb, bool evpd, u8 page, u16 alloc)
{
	memset(cdb, 0, 6);
	cdb[0] = 0x12;
	cdb[1] = evpd;
	cdb[2] = page;
	put_unaligned_be16(alloc, &cdb[3]);
}

#define MIN(a, b)	((a) < (b) ? (a) : (b))

#define EXPECT_FIELD(r, b, bit_) \
	do { \
		KT_EXPECT((r)->field.valid); \
		KT_EXPECT((r)->field.in_cdb); \
		KT_EXPECT_EQ((r)->field.byte, (b)); \
		if ((bit_) >= 0) { \
			KT_EXPECT((r)->field.bit_valid); \
			KT_EXPECT_EQ((r)->field.bit, (bit_)); \
		} else { \
			KT_EXPECT(!(r)->field.bit_valid); \
		} \
	} while (0)

/* INQUIRY ------------------------------------------------------------------ */

static void inquiry_standard_data_is_spc4_with_hisup_and_cmdque(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[6];

	inquiry_cdb(cdb, false, 0, 260);
	run(kt_spc_inquiry, &lu, cdb, 260, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 96);
	KT_EXPECT_EQ(r.data[0], 0x00);		/* PQ 0, direct access */
	KT_EXPECT_EQ(r.data[1], 0x00);		/* not removable */
	KT_EXPECT_EQ(r.data[2], 0x06);		/* SPC-4 */
	KT_EXPECT_EQ(r.data[3], 0x12);		/* HISUP, format 2 */
	KT_EXPECT_EQ(r.data[4], 96 - 5);
	KT_EXPECT_EQ(r.data[5], 0x18);		/* TPGS 01b, 3PC */
	KT_EXPECT_EQ(r.data[7], 0x02);		/* CMDQUE */
	KT_EXPECT(!memcmp(&r.data[8], "LIO-ORG ", 8));
	KT_EXPECT(!memcmp(&r.data[16], "ktarget         ", 16));
	KT_EXPECT(!memcmp(&r.data[32], "0.1 ", 4));
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[58]), 0x00a0);	/* SAM-5 */
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[60]), 0x0960);	/* iSCSI */
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[62]), 0x0460);	/* SPC-4 */
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[64]), 0x04c0);	/* SBC-3 */
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[66]), 0);
	KT_EXPECT_EQ(r.data[95], 0);
}

static void inquiry_of_a_cd_dvd_lu_says_type_5_removable_without_sbc_pages(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[6];
	u32 i;

	lu.pdt = TYPE_ROM;
	inquiry_cdb(cdb, false, 0, 260);
	run(kt_spc_inquiry, &lu, cdb, 260, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data[0], 0x05);		/* PQ 0, CD/DVD device */
	KT_EXPECT_EQ(r.data[1], 0x80);		/* RMB */
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[62]), 0x0460);	/* SPC-4 */
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[64]), 0);	/* no SBC-3 */
	/* Supported VPD Pages: none of SBC's */
	inquiry_cdb(cdb, true, 0x00, 64);
	run(kt_spc_inquiry, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT(r.data[3] >= 3);
	for (i = 0; i < r.data[3]; i++)
		KT_EXPECT(r.data[4 + i] < 0xb0);
	inquiry_cdb(cdb, true, 0xb0, 64);
	run(kt_spc_inquiry, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
	EXPECT_FIELD(&r, 2, -1);
	inquiry_cdb(cdb, true, 0x83, 255);
	run(kt_spc_inquiry, &lu, cdb, 255, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
}

static void inquiry_standard_without_alua_or_3pc_clears_tpgs_and_3pc(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[6];

	lu.tpgs = 0;
	lu.flags &= ~KT_LU_3PC;
	inquiry_cdb(cdb, false, 0, 96);
	run(kt_spc_inquiry, &lu, cdb, 96, &r);
	KT_EXPECT_EQ(r.data[5], 0x00);

	lu.tpgs = 3;
	run(kt_spc_inquiry, &lu, cdb, 96, &r);
	KT_EXPECT_EQ(r.data[5], 0x30);
}

static void inquiry_strings_are_truncated_space_padded_and_ascii(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[6];
	int i;

	lu.vendor_id = "VERYLONGVENDOR";
	lu.product_id = "bad\x01\x7f\xff";
	lu.revision = NULL;
	inquiry_cdb(cdb, false, 0, 96);
	run(kt_spc_inquiry, &lu, cdb, 96, &r);
	KT_EXPECT(!memcmp(&r.data[8], "VERYLONG", 8));
	KT_EXPECT(!memcmp(&r.data[16], "bad             ", 16));
	KT_EXPECT(!memcmp(&r.data[32], "    ", 4));
	for (i = 8; i < 36; i++)
		KT_EXPECT(r.data[i] >= 0x20 && r.data[i] <= 0x7e);
}

static void inquiry_evpd0_with_page_code_is_invalid_field_byte_2(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[6];

	inquiry_cdb(cdb, false, 1, 256);
	run(kt_spc_inquiry, &lu, cdb, 256, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
	EXPECT_FIELD(&r, 2, -1);
	KT_EXPECT_EQ(r.data_len, 0);
}

static void inquiry_cmddt_is_invalid_field_byte_1_bit_1(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_sense_field f;
	struct result r;
	u8 cdb[6];

	inquiry_cdb(cdb, false, 0, 96);
	cdb[1] = 0x02;
	run(kt_spc_inquiry, &lu, cdb, 96, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
	EXPECT_FIELD(&r, 1, 1);

	KT_EXPECT_EQ(kt_spc_check_cdb(&lu, cdb, 6, &f),
		     KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(f.byte, 1);
	KT_EXPECT_EQ(f.bit, 1);
	KT_EXPECT(f.bit_valid && f.in_cdb && f.valid);
}

static void inquiry_unknown_vpd_page_is_invalid_field_byte_2(void)
{
	static const u8 pages[] = { 0x01, 0x81, 0x84, 0x87, 0x88, 0x8f, 0xb3,
				    0xc0, 0xff };
	struct kt_lu_info lu = test_lu();
	struct result r;
	unsigned int i;
	u8 cdb[6];

	lu.flags &= ~KT_LU_3PC;		/* so 8Fh is unknown too */
	for (i = 0; i < sizeof(pages); i++) {
		inquiry_cdb(cdb, true, pages[i], 255);
		run(kt_spc_inquiry, &lu, cdb, 255, &r);
		KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
		EXPECT_FIELD(&r, 2, -1);
	}
}

static void inquiry_short_allocation_truncates_without_overrun(void)
{
	static const u8 pages[] = { 0x00, 0x80, 0x83, 0x86, 0xb0, 0xb1, 0xb2 };
	struct kt_lu_info lu = test_lu();
	struct result full, r;
	unsigned int p;
	u32 alloc;
	u8 cdb[6];

	for (p = 0; p <= sizeof(pages); p++) {
		bool std = p == sizeof(pages);

		inquiry_cdb(cdb, !std, std ? 0 : pages[p], 1024);
		run(kt_spc_inquiry, &lu, cdb, 1024, &full);
		KT_EXPECT_EQ(full.ret, KT_SENSE_NONE);
		for (alloc = 0; alloc <= full.data_len + 1; alloc++) {
			inquiry_cdb(cdb, !std, std ? 0 : pages[p], alloc);
			run(kt_spc_inquiry, &lu, cdb, alloc, &r);
			KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
			/* what the command returns: cut to the allocation */
			KT_EXPECT_EQ(r.data_len, MIN(alloc, full.data_len));
			KT_EXPECT(!memcmp(r.data, full.data, r.data_len));
		}
	}
}

static void inquiry_buffer_smaller_than_allocation_is_not_overrun(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[6];

	inquiry_cdb(cdb, true, 0x83, 4096);
	run(kt_spc_inquiry, &lu, cdb, 10, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT(r.data_len > 10);
	KT_EXPECT_EQ(r.data[1], 0x83);
}

static void inquiry_alloc_255_and_256_return_the_same_data(void)
{
	struct kt_lu_info lu = test_lu();
	struct result a, b;
	u8 cdb[6];

	inquiry_cdb(cdb, false, 0, 255);
	run(kt_spc_inquiry, &lu, cdb, 255, &a);
	inquiry_cdb(cdb, false, 0, 256);
	run(kt_spc_inquiry, &lu, cdb, 256, &b);
	KT_EXPECT_EQ(a.data_len, b.data_len);
	KT_EXPECT(!memcmp(a.data, b.data, a.data_len));
}

static void inquiry_supported_pages_are_all_readable(void)
{
	struct kt_lu_info lu = test_lu();
	struct result sup, r;
	unsigned int i, n;
	u8 cdb[6];

	inquiry_cdb(cdb, true, 0x00, 255);
	run(kt_spc_inquiry, &lu, cdb, 255, &sup);
	KT_EXPECT_EQ(sup.ret, KT_SENSE_NONE);
	n = get_unaligned_be16(&sup.data[2]);
	KT_EXPECT_EQ(n, 8);
	KT_EXPECT_EQ(sup.data_len, n + 4);
	KT_EXPECT(!memcmp(&sup.data[4],
			  "\x00\x80\x83\x86\x8f\xb0\xb1\xb2", 8));
	for (i = 0; i < n; i++) {
		inquiry_cdb(cdb, true, sup.data[4 + i], 255);
		run(kt_spc_inquiry, &lu, cdb, 255, &r);
		KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
		KT_EXPECT_EQ(r.data[1], sup.data[4 + i]);
	}
}

static void inquiry_supported_pages_follow_serial_and_3pc(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[6];

	lu.unit_serial = "";
	lu.flags &= ~KT_LU_3PC;
	inquiry_cdb(cdb, true, 0x00, 255);
	run(kt_spc_inquiry, &lu, cdb, 255, &r);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[2]), 6);
	KT_EXPECT(!memcmp(&r.data[4], "\x00\x83\x86\xb0\xb1\xb2", 6));

	inquiry_cdb(cdb, true, 0x80, 255);
	run(kt_spc_inquiry, &lu, cdb, 255, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);

	/* 3PC on, but no XCOPY code to build 8Fh: not offered */
	lu.flags |= KT_LU_3PC;
	lu.vpd_tpc = NULL;
	inquiry_cdb(cdb, true, 0x8f, 255);
	run(kt_spc_inquiry, &lu, cdb, 255, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
}

static void inquiry_vpd_8f_is_built_by_the_xcopy_hook(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[6];

	fake_tpc_calls = 0;
	inquiry_cdb(cdb, true, 0x8f, 6);
	run(kt_spc_inquiry, &lu, cdb, 6, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(fake_tpc_calls, 1);
	KT_EXPECT_EQ(r.data_len, 6);
	KT_EXPECT_EQ(r.data[1], 0x8f);
	KT_EXPECT_EQ(r.data[5], 2);
}

static void inquiry_vpd_80_returns_the_unit_serial(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[6];

	inquiry_cdb(cdb, true, 0x80, 255);
	run(kt_spc_inquiry, &lu, cdb, 255, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 4 + 16);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[2]), 16);
	KT_EXPECT(!memcmp(&r.data[4], "0123456789abcdef", 16));
}

/* Walk the designators of a Device Identification page */
struct desig {
	u8 proto, code_set, piv, assoc, type, len;
	const u8 *d;
};

static unsigned int parse_desigs(const struct result *r, struct desig *out,
				 unsigned int max)
{
	u32 end = 4 + get_unaligned_be16(&r->data[2]), off = 4;
	unsigned int n = 0;

	KT_EXPECT_EQ(end, r->data_len);
	while (off + 4 <= end && n < max) {
		out[n].proto = r->data[off] >> 4;
		out[n].code_set = r->data[off] & 0xf;
		out[n].piv = r->data[off + 1] >> 7;
		out[n].assoc = (r->data[off + 1] >> 4) & 0x3;
		out[n].type = r->data[off + 1] & 0xf;
		out[n].len = r->data[off + 3];
		out[n].d = &r->data[off + 4];
		off += 4 + out[n].len;
		n++;
	}
	KT_EXPECT_EQ(off, end);
	return n;
}

static void inquiry_vpd_83_has_naa_t10_port_group_and_names(void)
{
	struct kt_lu_info lu = test_lu();
	struct desig d[8];
	struct result r;
	unsigned int n;
	u8 cdb[6];

	inquiry_cdb(cdb, true, 0x83, 1024);
	run(kt_spc_inquiry, &lu, cdb, 1024, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	n = parse_desigs(&r, d, 8);
	KT_EXPECT_EQ(n, 6);

	/* NAA IEEE Registered Extended, logical unit */
	KT_EXPECT_EQ(d[0].code_set, 1);
	KT_EXPECT_EQ(d[0].assoc, 0);
	KT_EXPECT_EQ(d[0].type, 3);
	KT_EXPECT_EQ(d[0].len, 16);
	KT_EXPECT_EQ(d[0].d[0] >> 4, 6);

	/* T10 vendor ID: vendor, then serial */
	KT_EXPECT_EQ(d[1].code_set, 2);
	KT_EXPECT_EQ(d[1].type, 1);
	KT_EXPECT_EQ(d[1].len, 8 + 16);
	KT_EXPECT(!memcmp(d[1].d, "LIO-ORG 0123456789abcdef", 24));

	/* relative target port, iSCSI, PIV */
	KT_EXPECT_EQ(d[2].proto, 5);
	KT_EXPECT_EQ(d[2].piv, 1);
	KT_EXPECT_EQ(d[2].assoc, 1);
	KT_EXPECT_EQ(d[2].type, 4);
	KT_EXPECT_EQ(get_unaligned_be16(&d[2].d[2]), 1);

	/* target port group */
	KT_EXPECT_EQ(d[3].type, 5);
	KT_EXPECT_EQ(d[3].assoc, 1);
	KT_EXPECT_EQ(get_unaligned_be16(&d[3].d[2]), 3);

	/* SCSI name strings: target port, then target device */
	KT_EXPECT_EQ(d[4].type, 8);
	KT_EXPECT_EQ(d[4].code_set, 3);
	KT_EXPECT_EQ(d[4].assoc, 1);
	KT_EXPECT_EQ(d[4].len % 4, 0);
	KT_EXPECT(!strcmp((const char *)d[4].d, lu.port_name));
	KT_EXPECT_EQ(d[5].type, 8);
	KT_EXPECT_EQ(d[5].assoc, 2);
	KT_EXPECT(!strcmp((const char *)d[5].d, lu.target_name));
}

static void inquiry_vpd_83_without_alua_or_names_has_three_designators(void)
{
	struct kt_lu_info lu = test_lu();
	struct desig d[8];
	struct result r;
	u8 cdb[6];

	lu.tpgs = 0;
	lu.port_name = NULL;
	lu.target_name = "";
	lu.unit_serial = NULL;
	inquiry_cdb(cdb, true, 0x83, 1024);
	run(kt_spc_inquiry, &lu, cdb, 1024, &r);
	KT_EXPECT_EQ(parse_desigs(&r, d, 8), 3);
	KT_EXPECT_EQ(d[1].len, 8);		/* vendor only */
	KT_EXPECT_EQ(d[2].type, 4);
}

static void inquiry_vpd_83_long_names_are_capped_and_nul_padded(void)
{
	struct kt_lu_info lu = test_lu();
	char name[400], serial[400];
	struct desig d[8];
	struct result r;
	u8 cdb[6];

	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	memset(serial, 's', sizeof(serial) - 1);
	serial[sizeof(serial) - 1] = 0;
	lu.port_name = name;
	lu.target_name = "abc";
	lu.unit_serial = serial;
	inquiry_cdb(cdb, true, 0x83, 2048);
	run(kt_spc_inquiry, &lu, cdb, 2048, &r);
	KT_EXPECT_EQ(parse_desigs(&r, d, 8), 6);
	KT_EXPECT_EQ(d[1].len, 255);		/* 8 + 247 of the serial */
	KT_EXPECT_EQ(d[4].len, 252);
	KT_EXPECT_EQ(d[4].d[250], 'n');
	KT_EXPECT_EQ(d[4].d[251], 0);
	KT_EXPECT_EQ(d[5].len, 4);		/* "abc" + NUL */
	KT_EXPECT(!memcmp(d[5].d, "abc", 4));
}

static void naa_designators_of_two_devices_differ(void)
{
	struct kt_lu_info a = test_lu(), b = test_lu();
	u8 na[KT_SPC_NAA_LEN], nb[KT_SPC_NAA_LEN], nc[KT_SPC_NAA_LEN];

	/* same serial (LIO would give them the same NAA), other device id */
	b.dev_id = 2;
	kt_spc_naa(&a, na);
	kt_spc_naa(&b, nb);
	KT_EXPECT(memcmp(na, nb, sizeof(na)));
	/* and the same device always gets the same one */
	kt_spc_naa(&a, nc);
	KT_EXPECT(!memcmp(na, nc, sizeof(na)));

	/* a serial without hex digits and an empty one still work */
	a.unit_serial = "zzzz";
	b.unit_serial = "zzzz";
	kt_spc_naa(&a, na);
	kt_spc_naa(&b, nb);
	KT_EXPECT(memcmp(na, nb, sizeof(na)));
}

static void naa_designator_carries_company_id_and_device_id(void)
{
	struct kt_lu_info lu = test_lu();
	u8 naa[KT_SPC_NAA_LEN];

	lu.company_id = 0xabcdef;
	lu.dev_id = 0x1122334455667788ULL;
	kt_spc_naa(&lu, naa);
	KT_EXPECT_EQ(naa[0], 0x6a);
	KT_EXPECT_EQ(naa[1], 0xbc);
	KT_EXPECT_EQ(naa[2], 0xde);
	KT_EXPECT_EQ(naa[3] >> 4, 0xf);
	KT_EXPECT_EQ(get_unaligned_be64(&naa[8]), 0x1122334455667788ULL);
}

static void inquiry_vpd_86_reports_task_attributes_and_v_sup(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[6];

	inquiry_cdb(cdb, true, 0x86, 255);
	run(kt_spc_inquiry, &lu, cdb, 255, &r);
	KT_EXPECT_EQ(r.data_len, 64);
	KT_EXPECT_EQ(r.data[3], 0x3c);
	KT_EXPECT_EQ(r.data[4], 0);
	KT_EXPECT_EQ(r.data[5], 0x07);
	KT_EXPECT_EQ(r.data[6], 0x01);
	KT_EXPECT_EQ(r.data[7], 0x01);

	lu.flags &= ~KT_LU_WCE;
	run(kt_spc_inquiry, &lu, cdb, 255, &r);
	KT_EXPECT_EQ(r.data[6], 0x00);
}

/* T10-PI: PROTECT in the standard data, SPT and the checks in 86h */
static void inquiry_reports_protection_type(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[6];

	lu.pi_type = 1;
	inquiry_cdb(cdb, false, 0, 260);
	run(kt_spc_inquiry, &lu, cdb, 260, &r);
	KT_EXPECT_EQ(r.data[5], 0x19);		/* TPGS 01b, 3PC, PROTECT */
	inquiry_cdb(cdb, true, 0x86, 255);
	run(kt_spc_inquiry, &lu, cdb, 255, &r);
	KT_EXPECT_EQ(r.data[4], 0x05);		/* SPT 000b, GRD_CHK, REF_CHK */
	lu.pi_type = 3;
	run(kt_spc_inquiry, &lu, cdb, 255, &r);
	KT_EXPECT_EQ(r.data[4], 0x24);		/* SPT 100b, GRD_CHK */
	lu.pi_type = 0;
	run(kt_spc_inquiry, &lu, cdb, 255, &r);
	KT_EXPECT_EQ(r.data[4], 0x00);
}

static void inquiry_vpd_b0_reports_block_limits(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	unsigned int i;
	u8 cdb[6];

	lu.unmap_granularity_alignment = 3;
	lu.lbppbe = 3;
	inquiry_cdb(cdb, true, 0xb0, 64);
	run(kt_spc_inquiry, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 64);
	KT_EXPECT_EQ(r.data[3], 0x3c);			/* SBC-3 length */
	KT_EXPECT_EQ(r.data[4], 0x01);			/* WSNZ */
	KT_EXPECT_EQ(r.data[5], 1);			/* COMPARE AND WRITE */
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[6]), 8);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[8]), 1024);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[12]), 256);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[16]), 0);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[20]), 8192);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[24]), 256);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[28]), 8);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[32]), 0x80000003);
	KT_EXPECT_EQ(get_unaligned_be64(&r.data[36]), 4096);
	/* no atomic write offered: bytes 44-63 are zero (SBC-4) */
	for (i = 44; i < 64; i++)
		KT_EXPECT_EQ(r.data[i], 0);
}

static void inquiry_vpd_b0_reports_atomic_limits_within_max_transfer(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[6];

	lu.atomic_max_len = 2048;		/* above MAXIMUM TRANSFER LENGTH */
	lu.atomic_alignment = 8;
	lu.atomic_granularity = 4;
	lu.atomic_max_with_boundary = 64;
	lu.atomic_max_boundary = 16;
	inquiry_cdb(cdb, true, 0xb0, 64);
	run(kt_spc_inquiry, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 64);
	KT_EXPECT_EQ(r.data[3], 0x3c);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[44]), 1024);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[48]), 8);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[52]), 4);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[56]), 64);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[60]), 16);
}

static void inquiry_vpd_b0_without_unmap_reports_zero_unmap_limits(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[6];

	/* libiscsi BlockLimits: no LBPU means both unmap counts are zero */
	lu.flags &= ~(KT_LU_TPU | KT_LU_TPWS | KT_LU_CAW);
	lu.optimal_sectors = 4096;		/* clamped to the maximum */
	inquiry_cdb(cdb, true, 0xb0, 64);
	run(kt_spc_inquiry, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(r.data[5], 0);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[12]), 1024);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[20]), 0);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[24]), 0);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[28]), 0);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[32]), 0);
}

static void inquiry_vpd_b1_reports_non_rotating_medium(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[6];

	inquiry_cdb(cdb, true, 0xb1, 64);
	run(kt_spc_inquiry, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(r.data_len, 64);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[4]), 1);

	lu.flags &= ~KT_LU_NONROT;
	run(kt_spc_inquiry, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[4]), 0);
}

static void inquiry_vpd_b2_reports_provisioning(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[6];

	inquiry_cdb(cdb, true, 0xb2, 64);
	run(kt_spc_inquiry, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(r.data_len, 8);
	KT_EXPECT_EQ(r.data[3], 4);
	KT_EXPECT_EQ(r.data[5], 0x80 | 0x40 | 0x20 | 0x04);
	KT_EXPECT_EQ(r.data[6], 0x02);			/* thin */

	lu.flags &= ~KT_LU_TPWS;
	run(kt_spc_inquiry, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(r.data[5], 0x80 | 0x04);

	lu.flags &= ~KT_LU_TPU;
	run(kt_spc_inquiry, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(r.data[5], 0);
	KT_EXPECT_EQ(r.data[6], 0);
}

/* REPORT LUNS -------------------------------------------------------------- */

static void report_luns_cdb(u8 *cdb, u8 select, u32 alloc)
{
	memset(cdb, 0, 12);
	cdb[0] = 0xa0;
	cdb[2] = select;
	put_unaligned_be32(alloc, &cdb[6]);
}

static void run_luns(const u8 *cdb, const u64 *luns, u32 nr, bool wlun,
		     u32 len, struct result *r)
{
	u8 *buf = malloc(len ? len : 1);

	memset(r, 0, sizeof(*r));
	r->ret = kt_spc_report_luns(cdb, luns, nr, wlun, len ? buf : NULL,
				    len, &r->data_len, &r->field);
	memcpy(r->data, buf, len < sizeof(r->data) ? len : sizeof(r->data));
	free(buf);
}

static void report_luns_encodes_peripheral_and_flat_addressing(void)
{
	static const u64 luns[] = { 0, 5, 255, 256, 16383 };
	struct result r;
	u8 cdb[12];

	report_luns_cdb(cdb, 0, 1024);
	run_luns(cdb, luns, 5, true, 1024, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 8 + 5 * 8);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[0]), 5 * 8);
	KT_EXPECT(!memcmp(&r.data[8], "\0\0\0\0\0\0\0\0", 8));
	KT_EXPECT(!memcmp(&r.data[16], "\x00\x05\0\0\0\0\0\0", 8));
	KT_EXPECT(!memcmp(&r.data[24], "\x00\xff\0\0\0\0\0\0", 8));
	KT_EXPECT(!memcmp(&r.data[32], "\x41\x00\0\0\0\0\0\0", 8));
	KT_EXPECT(!memcmp(&r.data[40], "\x7f\xff\0\0\0\0\0\0", 8));
}

static void report_luns_allocation_below_16_is_invalid_field_byte_6(void)
{
	static const u64 luns[] = { 0 };
	struct result r;
	u32 alloc;
	u8 cdb[12];

	for (alloc = 0; alloc < 16; alloc++) {
		report_luns_cdb(cdb, 0, alloc);
		run_luns(cdb, luns, 1, false, alloc, &r);
		KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
		EXPECT_FIELD(&r, 6, -1);
	}
}

static void report_luns_select_report_picks_the_well_known_lun(void)
{
	static const u64 luns[] = { 1, 2 };
	struct result r;
	u8 cdb[12];

	report_luns_cdb(cdb, 0x01, 64);
	run_luns(cdb, luns, 2, true, 64, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[0]), 8);
	KT_EXPECT(!memcmp(&r.data[8], "\xc1\x01\0\0\0\0\0\0", 8));

	report_luns_cdb(cdb, 0x02, 64);
	run_luns(cdb, luns, 2, true, 64, &r);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[0]), 24);
	KT_EXPECT(!memcmp(&r.data[24], "\xc1\x01\0\0\0\0\0\0", 8));

	/* without the well-known LUN, 01h reports an empty list */
	report_luns_cdb(cdb, 0x01, 64);
	run_luns(cdb, luns, 2, false, 64, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 8);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[0]), 0);
}

static void report_luns_reserved_select_report_is_invalid_field_byte_2(void)
{
	static const u8 bad[] = { 0x03, 0x10, 0x11, 0x12, 0xff };
	static const u64 luns[] = { 0 };
	struct result r;
	unsigned int i;
	u8 cdb[12];

	for (i = 0; i < sizeof(bad); i++) {
		report_luns_cdb(cdb, bad[i], 64);
		run_luns(cdb, luns, 1, true, 64, &r);
		KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
		EXPECT_FIELD(&r, 2, -1);
	}
}

static void report_luns_with_nothing_mapped_reports_lun_0(void)
{
	static const u64 luns[] = { 20000 };	/* not encodable: skipped */
	struct result r;
	u8 cdb[12];

	report_luns_cdb(cdb, 0, 64);
	run_luns(cdb, NULL, 0, false, 64, &r);
	KT_EXPECT_EQ(r.data_len, 16);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[0]), 8);
	KT_EXPECT(!memcmp(&r.data[8], "\0\0\0\0\0\0\0\0", 8));

	run_luns(cdb, luns, 1, false, 64, &r);
	KT_EXPECT_EQ(r.data_len, 16);
}

static void report_luns_truncated_list_keeps_the_full_length(void)
{
	u64 luns[100];
	struct result r;
	unsigned int i;
	u8 cdb[12];

	for (i = 0; i < 100; i++)
		luns[i] = i;
	report_luns_cdb(cdb, 0, 16);
	run_luns(cdb, luns, 100, false, 16, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 16);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[0]), 800);
	/* the buffer may be shorter still: the length stays the command's */
	report_luns_cdb(cdb, 0, 1024);
	run_luns(cdb, luns, 100, false, 12, &r);
	KT_EXPECT_EQ(r.data_len, 808);
	KT_EXPECT_EQ(get_unaligned_be32(&r.data[0]), 800);
}

static void encode_lun_refuses_what_sam5_cannot_address_simply(void)
{
	u64 f;

	KT_EXPECT(kt_lun_encode(255, &f));
	KT_EXPECT_EQ(f, 0x00ff000000000000ULL);
	KT_EXPECT(kt_lun_encode(256, &f));
	KT_EXPECT_EQ(f, 0x4100000000000000ULL);
	KT_EXPECT(kt_lun_encode(16383, &f));
	KT_EXPECT_EQ(f, 0x7fff000000000000ULL);
	KT_EXPECT(!kt_lun_encode(16384, &f));
	KT_EXPECT(!kt_lun_encode(65535, &f));
	KT_EXPECT(!kt_lun_encode(KT_LUN_NONE, &f));
	KT_EXPECT(kt_lun_encode(KT_LUN_REPORT_LUNS, &f));
	KT_EXPECT_EQ(f, 0xc101000000000000ULL);
}

static void decode_lun_is_encode_backwards(void)
{
	u64 lun, f;

	for (lun = 0; lun <= KT_LUN_FLAT_MAX; lun++) {
		KT_EXPECT(kt_lun_encode(lun, &f));
		KT_EXPECT_EQ(kt_lun_decode(f), lun);
	}
	KT_EXPECT(kt_lun_encode(KT_LUN_REPORT_LUNS, &f));
	KT_EXPECT_EQ(kt_lun_decode(f), KT_LUN_REPORT_LUNS);
	/* flat space addressing of a peripheral LUN is the same LU */
	KT_EXPECT_EQ(kt_lun_decode(0x4005000000000000ULL), 5);
}

static void decode_lun_names_no_lu_beyond_one_level_or_bus_0(void)
{
	static const u64 none[] = {
		0x0000000100000000ULL,	/* LUN 0, then a second level */
		0x0001000000000001ULL,	/* the fourth level */
		0x4001000000010000ULL,	/* flat 1, then a third level */
		0x0105000000000000ULL,	/* bus 1 */
		0x8001000000000000ULL,	/* logical unit addressing */
		0xd200000100000000ULL,	/* extended flat space */
		0xc201000000000000ULL,	/* another extended method */
		0xc101000000000001ULL,	/* the REPORT LUNS W-LUN, more levels */
		~0ULL,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(none); i++)
		KT_EXPECT_EQ(kt_lun_decode(none[i]), KT_LUN_NONE);
	/* no configured LUN (up to 65535) is a well-known LUN */
	KT_EXPECT(KT_LUN_REPORT_LUNS > 65535);
}

/* REPORT SUPPORTED OPERATION CODES -------------------------------------- */

static void rsoc_cdb(u8 *cdb, bool rctd, u8 options, u8 opcode, u16 sa,
		     u32 alloc)
{
	memset(cdb, 0, 12);
	cdb[0] = 0xa3;
	cdb[1] = 0x0c;
	cdb[2] = (rctd ? 0x80 : 0) | options;
	cdb[3] = opcode;
	put_unaligned_be16(sa, &cdb[4]);
	put_unaligned_be32(alloc, &cdb[6]);
}

struct desc {
	u8 opcode;
	u16 sa;
	u8 servactv, ctdp;
	u16 cdb_len;
};

static unsigned int rsoc_all(const struct kt_lu_info *lu, bool rctd,
			     struct desc *d, unsigned int max)
{
	u32 off = 4, end, step = rctd ? 20 : 8;
	unsigned int n = 0;
	struct result r;
	u8 cdb[12];

	rsoc_cdb(cdb, rctd, 0, 0, 0, 4096);
	run(kt_spc_rsoc, lu, cdb, 4096, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	end = 4 + get_unaligned_be32(&r.data[0]);
	KT_EXPECT_EQ(end, r.data_len);
	while (off + step <= end && n < max) {
		d[n].opcode = r.data[off];
		d[n].sa = get_unaligned_be16(&r.data[off + 2]);
		d[n].servactv = r.data[off + 5] & 0x01;
		d[n].ctdp = !!(r.data[off + 5] & 0x02);
		d[n].cdb_len = get_unaligned_be16(&r.data[off + 6]);
		if (rctd)
			KT_EXPECT_EQ(get_unaligned_be16(&r.data[off + 8]), 0x0a);
		off += step;
		n++;
	}
	KT_EXPECT_EQ(off, end);
	return n;
}

static bool has_desc(const struct desc *d, unsigned int n, u8 op, u16 sa)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (d[i].opcode == op && d[i].sa == sa)
			return true;
	return false;
}

static void rsoc_all_commands_lists_every_command_of_the_issue(void)
{
	static const u8 ops[] = {
		0x00, 0x03, 0x08, 0x0a, 0x12, 0x15, 0x16, 0x17, 0x1a, 0x1b,
		0x1e, 0x25, 0x28, 0x2a, 0x2e, 0x2f, 0x34, 0x35, 0x37, 0x41,
		0x42, 0x55, 0x56, 0x57, 0x5a, 0x88, 0x89, 0x8a, 0x8b, 0x8e,
		0x8f, 0x90, 0x91, 0x93, 0xa0, 0xa8, 0xaa, 0xae, 0xaf, 0xb7,
	};
	struct kt_lu_info lu = test_lu();
	struct desc d[128];
	unsigned int n, i;

	lu.tpgs = 3;
	n = rsoc_all(&lu, false, d, 128);
	for (i = 0; i < sizeof(ops); i++)
		KT_EXPECT(has_desc(d, n, ops[i], 0));
	KT_EXPECT(has_desc(d, n, 0x5e, 0x00));
	KT_EXPECT(has_desc(d, n, 0x5e, 0x03));
	KT_EXPECT(has_desc(d, n, 0x5f, 0x07));
	KT_EXPECT(has_desc(d, n, 0x83, 0x00));
	KT_EXPECT(has_desc(d, n, 0x84, 0x03));
	KT_EXPECT(has_desc(d, n, 0x9e, 0x10));
	KT_EXPECT(has_desc(d, n, 0x9e, 0x12));
	KT_EXPECT(has_desc(d, n, 0xa3, 0x0a));
	KT_EXPECT(has_desc(d, n, 0xa3, 0x0c));
	KT_EXPECT(has_desc(d, n, 0xa3, 0x0d));
	KT_EXPECT(has_desc(d, n, 0xa4, 0x0a));
	for (i = 0; i < n; i++) {
		KT_EXPECT(!d[i].ctdp);
		/* libiscsi SERVACTV: no service action unless SERVACTV */
		if (!d[i].servactv)
			KT_EXPECT_EQ(d[i].sa, 0);
		KT_EXPECT(d[i].cdb_len == 6 || d[i].cdb_len == 10 ||
			  d[i].cdb_len == 12 || d[i].cdb_len == 16);
	}
}

/* RSOC lists exactly the table, in its order, with each entry's CDB length */
static void rsoc_all_commands_is_the_command_table(void)
{
	struct kt_lu_info lu = test_lu();
	struct desc d[128];
	unsigned int n, i;
	u8 usage[16];

	lu.tpgs = 3;
	lu.flags |= KT_LU_BLOCK_ERASE;
	lu.atomic_max_len = 16;
	n = rsoc_all(&lu, false, d, 128);
	KT_EXPECT_EQ(n, kt_cdb_nr_descs);
	for (i = 0; i < n && i < kt_cdb_nr_descs; i++) {
		KT_EXPECT_EQ(d[i].opcode, kt_cdb_descs[i].opcode);
		KT_EXPECT_EQ(d[i].sa, kt_cdb_descs[i].sa);
		KT_EXPECT_EQ(d[i].servactv, kt_cdb_descs[i].has_sa);
		KT_EXPECT_EQ(d[i].cdb_len, kt_cdb_descs[i].len);
	}
	/* and a CDB whose every usage bit is set passes the reserved-bit check */
	for (i = 0; i < kt_cdb_nr_descs; i++) {
		const struct kt_cdb_desc *c = &kt_cdb_descs[i];
		struct kt_sense_field f;
		sense_reason_t ret;

		memset(usage, 0, sizeof(usage));
		usage[0] = c->opcode;
		memcpy(&usage[1], c->usage, c->len - 1);
		ret = kt_spc_check_cdb(&lu, usage, c->len, &f);
		/* only the per-command field checks may still object */
		KT_EXPECT(ret == KT_SENSE_NONE || ret == KT_SENSE_INVALID_CDB_FIELD);
		if (ret)
			KT_EXPECT(f.byte != 0);
		/* one bit more than the usage data allows is refused */
		if (c->len > 2 && (u8)~usage[1] && !c->has_sa) {
			usage[1] |= (u8)~usage[1] & -(u8)~usage[1];
			KT_EXPECT_EQ(kt_spc_check_cdb(&lu, usage, c->len, &f),
				     KT_SENSE_INVALID_CDB_FIELD);
		}
	}
}

static void rsoc_all_commands_skips_features_that_are_off(void)
{
	struct kt_lu_info lu = test_lu();
	struct desc d[128];
	unsigned int n;

	lu.flags &= ~(KT_LU_CAW | KT_LU_TPU | KT_LU_TPWS | KT_LU_3PC |
		      KT_LU_PR);
	lu.tpgs = 1;
	n = rsoc_all(&lu, false, d, 128);
	KT_EXPECT(!has_desc(d, n, 0x89, 0));
	KT_EXPECT(!has_desc(d, n, 0x42, 0));
	KT_EXPECT(!has_desc(d, n, 0x9e, 0x12));
	KT_EXPECT(!has_desc(d, n, 0x83, 0));
	KT_EXPECT(!has_desc(d, n, 0x84, 0x03));
	KT_EXPECT(!has_desc(d, n, 0x5e, 0));
	KT_EXPECT(!has_desc(d, n, 0x5f, 0));
	KT_EXPECT(!has_desc(d, n, 0x16, 0));
	KT_EXPECT(!has_desc(d, n, 0x57, 0));
	KT_EXPECT(has_desc(d, n, 0xa3, 0x0a));	/* implicit ALUA: RTPG */
	KT_EXPECT(!has_desc(d, n, 0xa4, 0x0a));	/* but no STPG */
	KT_EXPECT(has_desc(d, n, 0x41, 0));	/* WRITE SAME stays */
	KT_EXPECT(has_desc(d, n, 0x9e, 0x10));

	lu.tpgs = 0;
	n = rsoc_all(&lu, false, d, 128);
	KT_EXPECT(!has_desc(d, n, 0xa3, 0x0a));
}

/* Every KT_LU_* flag is a bit of its own */
static void lu_flags_are_distinct(void)
{
	static const u32 flags[] = {
		KT_LU_WCE, KT_LU_FUA_WRITE, KT_LU_DPO, KT_LU_TPU, KT_LU_TPWS,
		KT_LU_CAW, KT_LU_3PC, KT_LU_READ_ONLY, KT_LU_NONROT, KT_LU_PR,
		KT_LU_LBPRZ, KT_LU_TAS, KT_LU_REST_REORD, KT_LU_SWP,
		KT_LU_WCE_CHANGEABLE, KT_LU_SWP_CHANGEABLE, KT_LU_BLOCK_ERASE,
		KT_LU_LBP_THRESH, KT_LU_LBP_THRESH_ON, KT_LU_LBP_SITUA,
		KT_LU_ROD
	};
	u32 all = 0;
	unsigned int i;

	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		KT_EXPECT(!(all & flags[i]));
		all |= flags[i];
	}
}

/* A LU that keeps no tokens (clustered) copies by EXTENDED COPY only */
static void rsoc_without_rod_keeps_xcopy_but_not_token_copy(void)
{
	struct kt_lu_info lu = test_lu();
	struct desc d[128];
	unsigned int n;

	n = rsoc_all(&lu, false, d, 128);
	KT_EXPECT(has_desc(d, n, 0x83, 0x10));
	KT_EXPECT(has_desc(d, n, 0x83, 0x11));
	KT_EXPECT(has_desc(d, n, 0x84, 0x07));

	lu.flags &= ~KT_LU_ROD;
	n = rsoc_all(&lu, false, d, 128);
	KT_EXPECT(has_desc(d, n, 0x83, 0x00));
	KT_EXPECT(has_desc(d, n, 0x84, 0x03));
	KT_EXPECT(!has_desc(d, n, 0x83, 0x10));
	KT_EXPECT(!has_desc(d, n, 0x83, 0x11));
	KT_EXPECT(!has_desc(d, n, 0x84, 0x07));

	/* KT_LU_ROD alone offers nothing */
	lu.flags = (lu.flags & ~KT_LU_3PC) | KT_LU_ROD;
	n = rsoc_all(&lu, false, d, 128);
	KT_EXPECT(!has_desc(d, n, 0x83, 0x10));
	KT_EXPECT(!has_desc(d, n, 0x83, 0x00));
}

static void rsoc_rctd_adds_a_timeouts_descriptor_to_every_command(void)
{
	struct kt_lu_info lu = test_lu();
	struct desc d[128];
	unsigned int n, i;

	n = rsoc_all(&lu, true, d, 128);
	KT_EXPECT(n > 40);
	for (i = 0; i < n; i++)
		KT_EXPECT(d[i].ctdp);
}

static void rsoc_one_command_works_for_every_reported_command(void)
{
	struct kt_lu_info lu = test_lu();
	struct desc d[128];
	unsigned int n, i;
	struct result r;
	u8 cdb[12];

	lu.tpgs = 3;
	n = rsoc_all(&lu, false, d, 128);
	for (i = 0; i < n; i++) {
		/* libiscsi OneCommand: 001b only without service actions */
		rsoc_cdb(cdb, false, 1, d[i].opcode, d[i].sa, 65535);
		run(kt_spc_rsoc, &lu, cdb, 65535, &r);
		KT_EXPECT_EQ(r.ret, d[i].servactv ? KT_SENSE_INVALID_CDB_FIELD :
			     KT_SENSE_NONE);
		rsoc_cdb(cdb, false, 2, d[i].opcode, d[i].sa, 65535);
		run(kt_spc_rsoc, &lu, cdb, 65535, &r);
		KT_EXPECT_EQ(r.ret, d[i].servactv ? KT_SENSE_NONE :
			     KT_SENSE_INVALID_CDB_FIELD);

		rsoc_cdb(cdb, true, d[i].servactv ? 2 : 1, d[i].opcode,
			 d[i].sa, 65535);
		run(kt_spc_rsoc, &lu, cdb, 65535, &r);
		KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
		KT_EXPECT_EQ(r.data[1], 0x80 | 0x03);	/* CTDP, supported */
		KT_EXPECT_EQ(get_unaligned_be16(&r.data[2]), d[i].cdb_len);
		KT_EXPECT_EQ(r.data[4], d[i].opcode);
		if (d[i].servactv)
			KT_EXPECT_EQ(r.data[5] & 0x1f, d[i].sa);
		KT_EXPECT_EQ(r.data_len, 4 + d[i].cdb_len + 12);
		KT_EXPECT_EQ(get_unaligned_be16(&r.data[4 + d[i].cdb_len]),
			     0x0a);

		/* 011b takes either */
		rsoc_cdb(cdb, false, 3, d[i].opcode, d[i].sa, 65535);
		run(kt_spc_rsoc, &lu, cdb, 65535, &r);
		KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
		KT_EXPECT_EQ(r.data[1], 0x03);
	}
}

static void rsoc_unsupported_command_reports_support_001b(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[12];

	rsoc_cdb(cdb, true, 1, 0x07, 0, 64);		/* REASSIGN BLOCKS */
	run(kt_spc_rsoc, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 4);
	KT_EXPECT_EQ(r.data[1], 0x01);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[2]), 0);

	rsoc_cdb(cdb, false, 2, 0x9e, 0x11, 64);	/* an unknown SA */
	run(kt_spc_rsoc, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data[1], 0x01);

	rsoc_cdb(cdb, false, 2, 0x9e, 0x110, 64);	/* not a 5-bit SA */
	run(kt_spc_rsoc, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(r.data[1], 0x01);

	lu.flags &= ~KT_LU_CAW;
	rsoc_cdb(cdb, false, 1, 0x89, 0, 64);
	run(kt_spc_rsoc, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(r.data[1], 0x01);
}

static void rsoc_reserved_reporting_options_are_invalid_field_byte_2(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[12], opt;

	for (opt = 4; opt < 8; opt++) {
		rsoc_cdb(cdb, false, opt, 0x28, 0, 64);
		run(kt_spc_rsoc, &lu, cdb, 64, &r);
		KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
		EXPECT_FIELD(&r, 2, 2);
	}
	rsoc_cdb(cdb, false, 1, 0x9e, 0x10, 64);
	run(kt_spc_rsoc, &lu, cdb, 64, &r);
	EXPECT_FIELD(&r, 2, 2);
}

static void rsoc_usage_data_dpo_fua_follow_dpofua(void)
{
	static const u8 ops[] = { 0x28, 0x2a, 0x88, 0x8a, 0xa8, 0xaa, 0x89 };
	struct kt_lu_info lu = test_lu();
	struct result r;
	unsigned int i;
	u8 cdb[12];

	/* libiscsi Read10.DpoFua, Verify10.Dpo */
	for (i = 0; i < sizeof(ops); i++) {
		rsoc_cdb(cdb, false, 1, ops[i], 0, 64);
		run(kt_spc_rsoc, &lu, cdb, 64, &r);
		KT_EXPECT_EQ(r.data[5] & 0x18, 0x18);
	}
	rsoc_cdb(cdb, false, 1, 0x2f, 0, 64);
	run(kt_spc_rsoc, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(r.data[5] & 0x10, 0x10);

	lu.flags &= ~KT_LU_DPO;
	for (i = 0; i < sizeof(ops); i++) {
		rsoc_cdb(cdb, false, 1, ops[i], 0, 64);
		run(kt_spc_rsoc, &lu, cdb, 64, &r);
		KT_EXPECT_EQ(r.data[5] & 0x18, 0);
	}
	rsoc_cdb(cdb, false, 1, 0x2f, 0, 64);
	run(kt_spc_rsoc, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(r.data[5] & 0x10, 0);
}

static void rsoc_usage_data_unmap_bit_of_write_same_follows_tpws(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[12];

	rsoc_cdb(cdb, false, 1, 0x93, 0, 64);
	run(kt_spc_rsoc, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(r.data[5], 0x09);
	lu.flags &= ~KT_LU_TPWS;
	run(kt_spc_rsoc, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(r.data[5], 0x01);
}

static void rsoc_short_allocation_truncates_without_overrun(void)
{
	struct kt_lu_info lu = test_lu();
	struct result full, r;
	u8 cdb[12];
	u32 alloc;

	rsoc_cdb(cdb, true, 0, 0, 0, 4096);
	run(kt_spc_rsoc, &lu, cdb, 4096, &full);
	for (alloc = 0; alloc < full.data_len; alloc += 7) {
		rsoc_cdb(cdb, true, 0, 0, 0, alloc);
		run(kt_spc_rsoc, &lu, cdb, alloc, &r);
		KT_EXPECT_EQ(r.data_len, alloc);
		KT_EXPECT(!memcmp(r.data, full.data, alloc));
		KT_EXPECT(alloc < 4 ||
			  get_unaligned_be32(&r.data[0]) == full.data_len - 4);
	}
}

/* REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS ----------------------------- */

static void rstmf_reports_the_supported_functions(void)
{
	struct kt_lu_info lu = test_lu();
	struct result r;
	u8 cdb[12] = { 0xa3, 0x0d };

	put_unaligned_be32(64, &cdb[6]);
	run(kt_spc_rstmf, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 4);
	KT_EXPECT_EQ(r.data[0], 0x80 | 0x40 | 0x08);	/* ATS ATSS LURS */
	KT_EXPECT_EQ(r.data[1], 0);
	KT_EXPECT_EQ(r.data[3], 0);

	lu.tmf |= KT_TMF_SUP_IT_NEXUS_RESET | KT_TMF_SUP_QUERY_TASK;
	cdb[2] = 0x80;					/* REPD */
	run(kt_spc_rstmf, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(r.data_len, 16);
	KT_EXPECT_EQ(r.data[0], 0x80 | 0x40 | 0x08 | 0x04);
	KT_EXPECT_EQ(r.data[1], 0x01);
	KT_EXPECT_EQ(r.data[3], 0x0c);

	put_unaligned_be32(2, &cdb[6]);
	run(kt_spc_rstmf, &lu, cdb, 2, &r);
	KT_EXPECT_EQ(r.data_len, 2);
}

/* REPORT IDENTIFYING INFORMATION ------------------------------------------ */

static void rii_type_7fh_lists_the_types_offered(void)
{
	struct kt_lu_info lu = test_lu();
	u8 cdb[12] = { 0xa3, 0x05 };
	struct result r;

	put_unaligned_be32(64, &cdb[6]);
	cdb[10] = 0x7f << 1;
	run(kt_spc_report_id_info, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 4 + 8);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[2]), 8);
	/* type 0, at most 0 bytes (no SET IDENTIFYING INFORMATION) */
	KT_EXPECT_EQ(r.data[4], 0);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[6]), 0);
	/* type 2, the text: at most 256 bytes */
	KT_EXPECT_EQ(r.data[8], 2 << 1);
	KT_EXPECT_EQ(r.data[9], 0);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[10]), 256);
	/* a short ALLOCATION LENGTH: the first bytes */
	put_unaligned_be32(6, &cdb[6]);
	run(kt_spc_report_id_info, &lu, cdb, 6, &r);
	KT_EXPECT_EQ(r.data_len, 6);
	/* a type neither listed nor 7Fh */
	put_unaligned_be32(64, &cdb[6]);
	cdb[10] = 0x7e << 1;
	run(kt_spc_report_id_info, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(r.ret, KT_SENSE_INVALID_CDB_FIELD);
	KT_EXPECT_EQ(r.field.byte, 10);
}

/* REQUEST SENSE ------------------------------------------------------------ */

static sense_reason_t request_sense(const u8 *cdb, const u8 *sense,
				    u32 sense_len, u32 len, struct result *r)
{
	u8 *buf = malloc(len ? len : 1);

	memset(r, 0, sizeof(*r));
	r->ret = kt_spc_request_sense(cdb, sense, sense_len, len ? buf : NULL,
				      len, &r->data_len, &r->field);
	memcpy(r->data, buf, len);
	free(buf);
	return r->ret;
}

static void request_sense_without_pending_sense_is_no_sense(void)
{
	u8 cdb[6] = { 0x03, 0, 0, 0, 252, 0 };
	struct result r;

	KT_EXPECT_EQ(request_sense(cdb, NULL, 0, 252, &r), KT_SENSE_NONE);
	KT_EXPECT_EQ(r.data_len, 18);
	KT_EXPECT_EQ(r.data[0], 0x70);
	KT_EXPECT_EQ(r.data[2], 0);
	KT_EXPECT_EQ(r.data[7], 10);
	KT_EXPECT_EQ(r.data[12], 0);

	cdb[1] = 0x01;					/* DESC */
	request_sense(cdb, NULL, 0, 252, &r);
	KT_EXPECT_EQ(r.data_len, 8);
	KT_EXPECT_EQ(r.data[0], 0x72);
	KT_EXPECT_EQ(r.data[7], 0);
}

static void request_sense_returns_the_pending_fixed_sense(void)
{
	static const u8 sense[18] = {
		0x70, 0, 0x06, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x29, 0x00,
	};
	u8 cdb[6] = { 0x03, 0, 0, 0, 8, 0 };
	struct result r;

	request_sense(cdb, sense, 18, 8, &r);
	KT_EXPECT_EQ(r.data_len, 8);
	KT_EXPECT(!memcmp(r.data, sense, 8));
}

static void request_sense_desc_converts_information_and_field_pointer(void)
{
	static const u8 sense[18] = {
		0xf0, 0, 0x05, 0x00, 0x00, 0x02, 0x01, 10, 0, 0, 0, 0,
		0x24, 0x00, 0, 0xc8 | 1, 0x00, 0x02,
	};
	u8 cdb[6] = { 0x03, 0x01, 0, 0, 255, 0 };
	struct result r;

	request_sense(cdb, sense, 18, 255, &r);
	KT_EXPECT_EQ(r.data_len, 8 + 12 + 8);
	KT_EXPECT_EQ(r.data[0], 0x72);
	KT_EXPECT_EQ(r.data[1], 0x05);
	KT_EXPECT_EQ(r.data[2], 0x24);
	KT_EXPECT_EQ(r.data[3], 0x00);
	KT_EXPECT_EQ(r.data[7], 20);
	KT_EXPECT_EQ(r.data[8], 0x00);			/* information */
	KT_EXPECT_EQ(r.data[9], 0x0a);
	KT_EXPECT_EQ(r.data[10], 0x80);
	KT_EXPECT_EQ(get_unaligned_be64(&r.data[12]), 0x201);
	KT_EXPECT_EQ(r.data[20], 0x02);			/* sense key specific */
	KT_EXPECT_EQ(r.data[21], 0x06);
	KT_EXPECT_EQ(r.data[24], 0xc9);
	KT_EXPECT_EQ(get_unaligned_be16(&r.data[25]), 2);

	/* a short allocation length truncates */
	cdb[4] = 4;
	request_sense(cdb, sense, 18, 4, &r);
	KT_EXPECT_EQ(r.data_len, 4);
	KT_EXPECT_EQ(r.data[2], 0x24);
}

/* CDB checks --------------------------------------------------------------- */

static sense_reason_t check(const struct kt_lu_info *lu, const u8 *cdb,
			    u32 len, struct kt_sense_field *f)
{
	u8 *copy = malloc(len ? len : 1);
	sense_reason_t ret;

	memcpy(copy, cdb, len);
	ret = kt_spc_check_cdb(lu, copy, len, f);
	free(copy);
	return ret;
}

#define EXPECT_CHECK(lu, cdb, len, b, bit_) \
	do { \
		struct kt_sense_field _f; \
		KT_EXPECT_EQ(check(lu, cdb, len, &_f), \
			     KT_SENSE_INVALID_CDB_FIELD); \
		KT_EXPECT(_f.valid && _f.in_cdb); \
		KT_EXPECT_EQ(_f.byte, (b)); \
		if ((bit_) >= 0) { \
			KT_EXPECT(_f.bit_valid); \
			KT_EXPECT_EQ(_f.bit, (bit_)); \
		} \
	} while (0)

#define EXPECT_CHECK_OK(lu, cdb, len) \
	do { \
		struct kt_sense_field _f; \
		KT_EXPECT_EQ(check(lu, cdb, len, &_f), KT_SENSE_NONE); \
	} while (0)

/* SANITIZE ---------------------------------------------------------------- */

static void sanitize_service_actions_follow_block_erase_support(void)
{
	struct kt_lu_info lu = test_lu();
	struct desc d[128];
	struct result r;
	unsigned int n;
	u8 cdb[6];

	lu.flags |= KT_LU_BLOCK_ERASE;
	n = rsoc_all(&lu, false, d, 128);
	KT_EXPECT(has_desc(d, n, 0x48, 0x01));
	KT_EXPECT(has_desc(d, n, 0x48, 0x02));
	KT_EXPECT(has_desc(d, n, 0x48, 0x1f));
	KT_EXPECT(!has_desc(d, n, 0x48, 0x03));	/* no CRYPTOGRAPHIC ERASE */
	/* VPD B1h: WABEREQ 01b, reads of erased blocks are GOOD */
	inquiry_cdb(cdb, true, 0xb1, 64);
	run(kt_spc_inquiry, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(r.data[7], 0x40);

	lu.flags &= ~KT_LU_BLOCK_ERASE;
	n = rsoc_all(&lu, false, d, 128);
	KT_EXPECT(has_desc(d, n, 0x48, 0x01));
	KT_EXPECT(!has_desc(d, n, 0x48, 0x02));
	run(kt_spc_inquiry, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(r.data[7], 0);
}

static void sanitize_cdb_checks_reserved_bits_and_service_action(void)
{
	struct kt_lu_info lu = test_lu();
	u8 cdb[10] = { 0x48, 0x01 };

	EXPECT_CHECK_OK(&lu, cdb, 10);
	cdb[1] = 0x21;				/* AUSE */
	EXPECT_CHECK_OK(&lu, cdb, 10);
	cdb[1] = 0xa1;				/* IMMED, AUSE */
	EXPECT_CHECK_OK(&lu, cdb, 10);
	cdb[1] = 0x41;				/* reserved (ZNR) */
	EXPECT_CHECK(&lu, cdb, 10, 1, 6);
	cdb[1] = 0x01;
	cdb[4] = 4;				/* reserved byte */
	EXPECT_CHECK(&lu, cdb, 10, 4, 2);
	cdb[4] = 0;
	cdb[1] = 0x03;				/* CRYPTOGRAPHIC ERASE */
	EXPECT_CHECK(&lu, cdb, 10, 1, 4);
	cdb[1] = 0x02;				/* BLOCK ERASE, not offered */
	EXPECT_CHECK(&lu, cdb, 10, 1, 4);
	lu.flags |= KT_LU_BLOCK_ERASE;
	EXPECT_CHECK_OK(&lu, cdb, 10);
}

static void check_cdb_unsupported_opcode_is_invalid_opcode(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_sense_field f;
	u8 cdb[16] = { 0x07 };				/* REASSIGN BLOCKS */

	KT_EXPECT_EQ(check(&lu, cdb, 6, &f), KT_SENSE_INVALID_OPCODE);
	KT_EXPECT(!f.valid);
	KT_EXPECT_EQ(check(&lu, cdb, 0, &f), KT_SENSE_INVALID_OPCODE);

	cdb[0] = 0x89;
	lu.flags &= ~KT_LU_CAW;
	KT_EXPECT_EQ(check(&lu, cdb, 16, &f), KT_SENSE_INVALID_OPCODE);
	cdb[0] = 0x42;
	lu.flags &= ~KT_LU_TPU;
	KT_EXPECT_EQ(check(&lu, cdb, 10, &f), KT_SENSE_INVALID_OPCODE);
	cdb[0] = 0x5e;
	lu.flags &= ~KT_LU_PR;
	KT_EXPECT_EQ(check(&lu, cdb, 10, &f), KT_SENSE_INVALID_OPCODE);
}

static void check_cdb_unsupported_service_action_is_field_byte_1_bit_4(void)
{
	struct kt_lu_info lu = test_lu();
	u8 cdb[16] = { 0x9e, 0x11 };

	/* libiscsi counts this as "not implemented" (field pointer 1) */
	EXPECT_CHECK(&lu, cdb, 16, 1, 4);
	cdb[0] = 0xa3;
	cdb[1] = 0x0b;					/* REPORT ALIASES */
	EXPECT_CHECK(&lu, cdb, 12, 1, 4);
	cdb[1] = 0x0a;
	lu.tpgs = 0;
	EXPECT_CHECK(&lu, cdb, 12, 1, 4);
}

static void check_cdb_short_cdb_is_refused(void)
{
	struct kt_lu_info lu = test_lu();
	u8 cdb[16] = { 0x88 };

	EXPECT_CHECK(&lu, cdb, 10, 0, -1);
	EXPECT_CHECK_OK(&lu, cdb, 16);
	/* a longer buffer is fine: the command decides the length */
	cdb[0] = 0x00;
	EXPECT_CHECK_OK(&lu, cdb, 16);
}

static void check_cdb_naca_and_link_are_invalid_in_the_control_byte(void)
{
	struct kt_lu_info lu = test_lu();
	u8 cdb[16] = { 0x00 };

	cdb[5] = 0x04;					/* NACA */
	EXPECT_CHECK(&lu, cdb, 6, 5, 2);
	cdb[5] = 0x01;					/* LINK */
	EXPECT_CHECK(&lu, cdb, 6, 5, 0);
	cdb[5] = 0x20;					/* reserved */
	EXPECT_CHECK(&lu, cdb, 6, 5, 5);
	cdb[5] = 0xc0;					/* vendor specific */
	EXPECT_CHECK_OK(&lu, cdb, 6);

	memset(cdb, 0, sizeof(cdb));
	cdb[0] = 0x88;
	cdb[15] = 0x04;
	EXPECT_CHECK(&lu, cdb, 16, 15, 2);
}

static void check_cdb_reserved_bits_name_byte_and_bit(void)
{
	struct kt_lu_info lu = test_lu();
	u8 cdb[16] = { 0x28 };

	cdb[1] = 0x20;					/* RDPROTECT, no PI */
	EXPECT_CHECK(&lu, cdb, 10, 1, 7);
	cdb[0] = 0x08;					/* READ (6): reserved */
	EXPECT_CHECK(&lu, cdb, 6, 1, 5);
	cdb[0] = 0x28;
	cdb[1] = 0x01;					/* obsolete */
	EXPECT_CHECK(&lu, cdb, 10, 1, 0);
	cdb[1] = 0;
	cdb[6] = 0x40;					/* reserved above GROUP */
	EXPECT_CHECK(&lu, cdb, 10, 6, 6);
	cdb[6] = 0x03;					/* GROUP NUMBER */
	EXPECT_CHECK_OK(&lu, cdb, 10);

	memset(cdb, 0, sizeof(cdb));
	cdb[0] = 0x00;
	cdb[3] = 0x11;					/* TEST UNIT READY */
	EXPECT_CHECK(&lu, cdb, 6, 3, 4);
}

static void check_cdb_dpo_and_fua_need_dpofua(void)
{
	struct kt_lu_info lu = test_lu();
	u8 cdb[16] = { 0x28, 0x18 };

	EXPECT_CHECK_OK(&lu, cdb, 10);
	lu.flags &= ~KT_LU_FUA_WRITE;
	EXPECT_CHECK(&lu, cdb, 10, 1, 4);
	cdb[1] = 0x08;
	EXPECT_CHECK(&lu, cdb, 10, 1, 3);
	cdb[0] = 0x2f;					/* VERIFY (10) DPO */
	cdb[1] = 0x10;
	EXPECT_CHECK(&lu, cdb, 10, 1, 4);
}

/* UEFI firmware's FUA where DPOFUA=0: taken while the write cache is off */
static void check_cdb_fua_without_dpofua_is_taken_with_wce_off(void)
{
	struct kt_lu_info lu = test_lu();
	u8 cdb[16] = { 0x2a, 0x08 };			/* WRITE (10) FUA */

	lu.flags &= ~(KT_LU_FUA_WRITE | KT_LU_DPO);
	EXPECT_CHECK(&lu, cdb, 10, 1, 3);
	lu.flags &= ~KT_LU_WCE;
	EXPECT_CHECK_OK(&lu, cdb, 10);
	cdb[0] = 0x8a;					/* WRITE (16) FUA */
	EXPECT_CHECK_OK(&lu, cdb, 16);
	cdb[1] = 0x18;					/* DPO is still refused */
	EXPECT_CHECK(&lu, cdb, 16, 1, 4);
}

static void check_cdb_verify_bytchk_10b_is_invalid_byte_1_bit_2(void)
{
	static const u8 verify[] = { 0x2f, 0xaf, 0x8f };
	static const u8 wv[] = { 0x2e, 0xae, 0x8e };
	static const u8 len[] = { 10, 12, 16 };
	struct kt_lu_info lu = test_lu();
	unsigned int i;
	u8 cdb[16];

	for (i = 0; i < 3; i++) {
		memset(cdb, 0, sizeof(cdb));
		cdb[0] = verify[i];
		cdb[1] = 0x02;				/* BYTCHK 01b */
		EXPECT_CHECK_OK(&lu, cdb, len[i]);
		cdb[1] = 0x06;				/* 11b */
		EXPECT_CHECK_OK(&lu, cdb, len[i]);
		cdb[1] = 0x04;				/* 10b */
		EXPECT_CHECK(&lu, cdb, len[i], 1, 2);

		cdb[0] = wv[i];
		cdb[1] = 0x02;
		EXPECT_CHECK_OK(&lu, cdb, len[i]);
		cdb[1] = 0x04;
		EXPECT_CHECK(&lu, cdb, len[i], 1, 2);
		cdb[1] = 0x06;
		EXPECT_CHECK(&lu, cdb, len[i], 1, 2);
	}
}

static void check_cdb_compare_and_write_over_maximum_is_byte_13(void)
{
	struct kt_lu_info lu = test_lu();
	u8 cdb[16] = { 0x89 };

	cdb[13] = 1;
	EXPECT_CHECK_OK(&lu, cdb, 16);
	cdb[13] = 0;
	EXPECT_CHECK_OK(&lu, cdb, 16);
	cdb[13] = 2;
	EXPECT_CHECK(&lu, cdb, 16, 13, -1);
	cdb[13] = 0;
	cdb[10] = 1;					/* reserved */
	EXPECT_CHECK(&lu, cdb, 16, 10, 0);
}

static void check_cdb_start_stop_unit_fields(void)
{
	struct kt_lu_info lu = test_lu();
	u8 cdb[16] = { 0x1b };
	u8 pc;

	cdb[4] = 0x01;					/* START */
	EXPECT_CHECK_OK(&lu, cdb, 6);
	cdb[1] = 0x01;					/* IMMED */
	cdb[4] = 0x04;					/* NO_FLUSH */
	EXPECT_CHECK_OK(&lu, cdb, 6);
	/* not removable: LOEJ is refused (libiscsi StartStopUnit.Simple) */
	cdb[4] = 0x02;
	EXPECT_CHECK(&lu, cdb, 6, 4, 1);
	cdb[4] = 0x08;					/* reserved */
	EXPECT_CHECK(&lu, cdb, 6, 4, 3);

	for (pc = 0; pc < 16; pc++) {
		bool ok = pc <= 3 || pc == 7 || pc == 0xa || pc == 0xb;

		cdb[3] = 0;
		cdb[4] = pc << 4;
		if (ok)
			EXPECT_CHECK_OK(&lu, cdb, 6);
		else
			EXPECT_CHECK(&lu, cdb, 6, 4, 7);
	}
	cdb[4] = 0x20;					/* IDLE */
	cdb[3] = 2;					/* idle_c */
	EXPECT_CHECK_OK(&lu, cdb, 6);
	cdb[3] = 3;
	EXPECT_CHECK(&lu, cdb, 6, 3, 3);
	cdb[4] = 0x00;
	cdb[3] = 1;
	EXPECT_CHECK(&lu, cdb, 6, 3, 3);
}

static void check_cdb_prevent_allow_accepts_00b_and_01b(void)
{
	struct kt_lu_info lu = test_lu();
	u8 cdb[16] = { 0x1e };

	EXPECT_CHECK_OK(&lu, cdb, 6);
	cdb[4] = 1;
	EXPECT_CHECK_OK(&lu, cdb, 6);
	cdb[4] = 2;
	EXPECT_CHECK(&lu, cdb, 6, 4, 1);
	cdb[4] = 3;
	EXPECT_CHECK(&lu, cdb, 6, 4, 1);
}

static void check_cdb_write_same_unmap_and_anchor_bits(void)
{
	struct kt_lu_info lu = test_lu();
	u8 cdb[16] = { 0x41, 0x08 };

	EXPECT_CHECK_OK(&lu, cdb, 10);
	cdb[1] = 0x10;					/* ANCHOR */
	EXPECT_CHECK(&lu, cdb, 10, 1, 4);
	cdb[1] = 0x18;
	EXPECT_CHECK(&lu, cdb, 10, 1, 4);
	cdb[1] = 0x08;
	lu.flags &= ~KT_LU_TPWS;
	EXPECT_CHECK(&lu, cdb, 10, 1, 3);
	cdb[0] = 0x93;
	cdb[1] = 0x01;					/* NDOB */
	EXPECT_CHECK_OK(&lu, cdb, 16);
	cdb[1] = 0x04;					/* PBDATA */
	EXPECT_CHECK(&lu, cdb, 16, 1, 2);
}

static void check_cdb_report_target_port_groups_format(void)
{
	struct kt_lu_info lu = test_lu();
	u8 cdb[16] = { 0xa3, 0x0a };

	EXPECT_CHECK_OK(&lu, cdb, 12);
	cdb[1] = 0x2a;					/* extended header */
	EXPECT_CHECK_OK(&lu, cdb, 12);
	cdb[1] = 0x4a;
	EXPECT_CHECK(&lu, cdb, 12, 1, 7);
}

/* Commands whose byte 1 starts with an RD/WR/VR/ORPROTECT field */
static bool has_protect_field(u8 op)
{
	static const u8 ops[] = { 0x28, 0x2a, 0x2e, 0x2f, 0x41, 0x88, 0x89,
				  0x8a, 0x8b, 0x8e, 0x8f, 0x93, 0xa8, 0xaa,
				  0xae, 0xaf };

	return memchr(ops, op, sizeof(ops));
}

/*
 * Against the usage data REPORT SUPPORTED OPERATION CODES reports: an
 * all-zero CDB of every command passes, and every bit the usage data
 * leaves clear is refused with exactly that byte and bit.
 */
static void check_cdb_agrees_with_usage_data_of(struct kt_lu_info lu)
{
	/* the reads and writes whose bit 3 of byte 1 is FUA */
	static const u8 fua_ops[] = { 0x28, 0x2a, 0x88, 0x89, 0x8a, 0x8b,
				      0xa8, 0xaa };
	struct kt_sense_field f;
	unsigned int n, i, byte, bit;
	struct desc d[128];
	struct result r;
	u8 rcdb[12], cdb[16], usage[16];

	n = rsoc_all(&lu, false, d, 128);
	for (i = 0; i < n; i++) {
		rsoc_cdb(rcdb, false, d[i].servactv ? 2 : 1, d[i].opcode,
			 d[i].sa, 64);
		run(kt_spc_rsoc, &lu, rcdb, 64, &r);
		memcpy(usage, &r.data[4], d[i].cdb_len);

		memset(cdb, 0, sizeof(cdb));
		cdb[0] = d[i].opcode;
		cdb[1] = d[i].sa;
		KT_EXPECT_EQ(check(&lu, cdb, d[i].cdb_len, &f), KT_SENSE_NONE);
		if (d[i].servactv)
			usage[1] |= 0x1f;
		for (byte = 1; byte < d[i].cdb_len - 1U; byte++) {
			for (bit = 0; bit < 8; bit++) {
				if (usage[byte] & (1U << bit))
					continue;
				cdb[byte] = 1U << bit;
				if (byte == 1)
					cdb[1] |= d[i].sa;
				KT_EXPECT_EQ(check(&lu, cdb, d[i].cdb_len, &f),
					     KT_SENSE_INVALID_CDB_FIELD);
				KT_EXPECT_EQ(f.byte, byte);
				/* a multi-bit field is named by its first bit */
				if (byte == 1 && bit >= 5 &&
				    has_protect_field(d[i].opcode))
					KT_EXPECT_EQ(f.bit, 7);
				else
					KT_EXPECT_EQ(f.bit, bit);
				cdb[byte] = byte == 1 ? d[i].sa : 0;
			}
		}
		/* and FUA, where the usage data shows it, is taken */
		if ((usage[1] & 0x08) && memchr(fua_ops, d[i].opcode,
						sizeof(fua_ops))) {
			cdb[1] = 0x08;
			KT_EXPECT_EQ(check(&lu, cdb, d[i].cdb_len, &f),
				     KT_SENSE_NONE);
		}
	}
}

/* with the write cache and DPOFUA each on and off (FUA without DPOFUA) */
static void check_cdb_agrees_with_the_reported_usage_data(void)
{
	static const u32 off[] = {
		0, KT_LU_WCE, KT_LU_FUA_WRITE | KT_LU_DPO,
		KT_LU_WCE | KT_LU_FUA_WRITE | KT_LU_DPO,
	};
	struct kt_lu_info lu = test_lu();
	unsigned int i;

	lu.tpgs = 3;
	for (i = 0; i < ARRAY_SIZE(off); i++) {
		lu.flags = ALL_FEATURES & ~off[i];
		check_cdb_agrees_with_usage_data_of(lu);
	}
}

/* UEFI's FUA with the write cache off is reported as usable, as it is */
static void rsoc_usage_data_shows_fua_with_the_write_cache_off(void)
{
	static const u8 ops[] = { 0x28, 0x2a, 0x88, 0x8a, 0xa8, 0xaa };
	struct kt_lu_info lu = test_lu();
	struct result r;
	unsigned int i;
	u8 cdb[12];

	lu.flags &= ~(KT_LU_WCE | KT_LU_FUA_WRITE | KT_LU_DPO);
	for (i = 0; i < sizeof(ops); i++) {
		rsoc_cdb(cdb, false, 1, ops[i], 0, 64);
		run(kt_spc_rsoc, &lu, cdb, 64, &r);
		KT_EXPECT_EQ(r.data[5] & 0x18, 0x08);
	}
	/* WRITE AND VERIFY has no FUA bit */
	rsoc_cdb(cdb, false, 1, 0x2e, 0, 64);
	run(kt_spc_rsoc, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(r.data[5] & 0x18, 0);
	lu.flags |= KT_LU_WCE;
	rsoc_cdb(cdb, false, 1, 0x2a, 0, 64);
	run(kt_spc_rsoc, &lu, cdb, 64, &r);
	KT_EXPECT_EQ(r.data[5] & 0x18, 0);
}

static void alloc_len_reads_the_field_of_each_command(void)
{
	u8 inq[6] = { 0x12, 0, 0, 0x01, 0x02 };
	u8 ms6[6] = { 0x1a, 0, 0x3f, 0, 0xff };
	u8 ms10[10] = { 0x5a, 0, 0x3f, 0, 0, 0, 0, 0x10, 0x00 };
	u8 rc10[10] = { 0x25 };
	u8 rc16[16] = { 0x9e, 0x10 };
	u8 rsoc[12] = { 0xa3, 0x0c };
	u8 sel[10] = { 0x55, 0x10, 0, 0, 0, 0, 0, 0, 0x18 };
	u8 tur[6] = { 0x00 };
	u8 unknown[16] = { 0x04 };

	put_unaligned_be32(32, &rc16[10]);
	put_unaligned_be32(0x12345, &rsoc[6]);
	KT_EXPECT_EQ(kt_spc_alloc_len(inq), 0x102);
	KT_EXPECT_EQ(kt_spc_alloc_len(ms6), 0xff);
	KT_EXPECT_EQ(kt_spc_alloc_len(ms10), 0x1000);
	KT_EXPECT_EQ(kt_spc_alloc_len(rc10), 8);
	KT_EXPECT_EQ(kt_spc_alloc_len(rc16), 32);
	KT_EXPECT_EQ(kt_spc_alloc_len(rsoc), 0x12345);
	KT_EXPECT_EQ(kt_spc_alloc_len(sel), 0x18);
	KT_EXPECT_EQ(kt_spc_alloc_len(tur), 0);
	KT_EXPECT_EQ(kt_spc_alloc_len(unknown), 0);
}

static void write_atomic_is_an_invalid_opcode_without_atomic_limits(void)
{
	struct kt_lu_info lu = test_lu();
	struct kt_sense_field f;
	struct desc d[128];
	unsigned int n;
	u8 cdb[16] = { 0x9c };

	put_unaligned_be16(8, &cdb[12]);
	/* as LIO: no atomic_max_len, no WRITE ATOMIC (16) */
	KT_EXPECT_EQ(check(&lu, cdb, 16, &f), KT_SENSE_INVALID_OPCODE);
	n = rsoc_all(&lu, false, d, 128);
	KT_EXPECT(!has_desc(d, n, 0x9c, 0));

	lu.atomic_max_len = 16;
	KT_EXPECT_EQ(check(&lu, cdb, 16, &f), KT_SENSE_NONE);
	n = rsoc_all(&lu, false, d, 128);
	KT_EXPECT(has_desc(d, n, 0x9c, 0));
	/* DPO and FUA with DPOFUA; the PROTECT field is refused */
	cdb[1] = 0x18;
	KT_EXPECT_EQ(check(&lu, cdb, 16, &f), KT_SENSE_NONE);
	cdb[1] = 0x20;
	EXPECT_CHECK(&lu, cdb, 16, 1, 7);
}

static const struct kt_test tests[] = {
	KT_TEST_ENTRY(inquiry_standard_data_is_spc4_with_hisup_and_cmdque),
	KT_TEST_ENTRY(inquiry_of_a_cd_dvd_lu_says_type_5_removable_without_sbc_pages),
	KT_TEST_ENTRY(inquiry_standard_without_alua_or_3pc_clears_tpgs_and_3pc),
	KT_TEST_ENTRY(inquiry_strings_are_truncated_space_padded_and_ascii),
	KT_TEST_ENTRY(inquiry_evpd0_with_page_code_is_invalid_field_byte_2),
	KT_TEST_ENTRY(inquiry_cmddt_is_invalid_field_byte_1_bit_1),
	KT_TEST_ENTRY(inquiry_unknown_vpd_page_is_invalid_field_byte_2),
	KT_TEST_ENTRY(inquiry_short_allocation_truncates_without_overrun),
	KT_TEST_ENTRY(inquiry_buffer_smaller_than_allocation_is_not_overrun),
	KT_TEST_ENTRY(inquiry_alloc_255_and_256_return_the_same_data),
	KT_TEST_ENTRY(inquiry_supported_pages_are_all_readable),
	KT_TEST_ENTRY(inquiry_supported_pages_follow_serial_and_3pc),
	KT_TEST_ENTRY(inquiry_vpd_8f_is_built_by_the_xcopy_hook),
	KT_TEST_ENTRY(inquiry_vpd_80_returns_the_unit_serial),
	KT_TEST_ENTRY(inquiry_vpd_83_has_naa_t10_port_group_and_names),
	KT_TEST_ENTRY(inquiry_vpd_83_without_alua_or_names_has_three_designators),
	KT_TEST_ENTRY(inquiry_vpd_83_long_names_are_capped_and_nul_padded),
	KT_TEST_ENTRY(naa_designators_of_two_devices_differ),
	KT_TEST_ENTRY(naa_designator_carries_company_id_and_device_id),
	KT_TEST_ENTRY(inquiry_vpd_86_reports_task_attributes_and_v_sup),
	KT_TEST_ENTRY(inquiry_reports_protection_type),
	KT_TEST_ENTRY(inquiry_vpd_b0_reports_block_limits),
	KT_TEST_ENTRY(inquiry_vpd_b0_without_unmap_reports_zero_unmap_limits),
	KT_TEST_ENTRY(inquiry_vpd_b0_reports_atomic_limits_within_max_transfer),
	KT_TEST_ENTRY(inquiry_vpd_b1_reports_non_rotating_medium),
	KT_TEST_ENTRY(inquiry_vpd_b2_reports_provisioning),
	KT_TEST_ENTRY(report_luns_encodes_peripheral_and_flat_addressing),
	KT_TEST_ENTRY(report_luns_allocation_below_16_is_invalid_field_byte_6),
	KT_TEST_ENTRY(report_luns_select_report_picks_the_well_known_lun),
	KT_TEST_ENTRY(report_luns_reserved_select_report_is_invalid_field_byte_2),
	KT_TEST_ENTRY(report_luns_with_nothing_mapped_reports_lun_0),
	KT_TEST_ENTRY(report_luns_truncated_list_keeps_the_full_length),
	KT_TEST_ENTRY(encode_lun_refuses_what_sam5_cannot_address_simply),
	KT_TEST_ENTRY(decode_lun_is_encode_backwards),
	KT_TEST_ENTRY(decode_lun_names_no_lu_beyond_one_level_or_bus_0),
	KT_TEST_ENTRY(rsoc_all_commands_lists_every_command_of_the_issue),
	KT_TEST_ENTRY(rsoc_all_commands_is_the_command_table),
	KT_TEST_ENTRY(rsoc_all_commands_skips_features_that_are_off),
	KT_TEST_ENTRY(write_atomic_is_an_invalid_opcode_without_atomic_limits),
	KT_TEST_ENTRY(rsoc_without_rod_keeps_xcopy_but_not_token_copy),
	KT_TEST_ENTRY(lu_flags_are_distinct),
	KT_TEST_ENTRY(sanitize_service_actions_follow_block_erase_support),
	KT_TEST_ENTRY(sanitize_cdb_checks_reserved_bits_and_service_action),
	KT_TEST_ENTRY(rsoc_rctd_adds_a_timeouts_descriptor_to_every_command),
	KT_TEST_ENTRY(rsoc_one_command_works_for_every_reported_command),
	KT_TEST_ENTRY(rsoc_unsupported_command_reports_support_001b),
	KT_TEST_ENTRY(rsoc_reserved_reporting_options_are_invalid_field_byte_2),
	KT_TEST_ENTRY(rsoc_usage_data_dpo_fua_follow_dpofua),
	KT_TEST_ENTRY(rsoc_usage_data_unmap_bit_of_write_same_follows_tpws),
	KT_TEST_ENTRY(rsoc_short_allocation_truncates_without_overrun),
	KT_TEST_ENTRY(rstmf_reports_the_supported_functions),
	KT_TEST_ENTRY(rii_type_7fh_lists_the_types_offered),
	KT_TEST_ENTRY(request_sense_without_pending_sense_is_no_sense),
	KT_TEST_ENTRY(request_sense_returns_the_pending_fixed_sense),
	KT_TEST_ENTRY(request_sense_desc_converts_information_and_field_pointer),
	KT_TEST_ENTRY(check_cdb_unsupported_opcode_is_invalid_opcode),
	KT_TEST_ENTRY(check_cdb_unsupported_service_action_is_field_byte_1_bit_4),
	KT_TEST_ENTRY(check_cdb_short_cdb_is_refused),
	KT_TEST_ENTRY(check_cdb_naca_and_link_are_invalid_in_the_control_byte),
	KT_TEST_ENTRY(check_cdb_reserved_bits_name_byte_and_bit),
	KT_TEST_ENTRY(check_cdb_dpo_and_fua_need_dpofua),
	KT_TEST_ENTRY(check_cdb_fua_without_dpofua_is_taken_with_wce_off),
	KT_TEST_ENTRY(check_cdb_verify_bytchk_10b_is_invalid_byte_1_bit_2),
	KT_TEST_ENTRY(check_cdb_compare_and_write_over_maximum_is_byte_13),
	KT_TEST_ENTRY(check_cdb_start_stop_unit_fields),
	KT_TEST_ENTRY(check_cdb_prevent_allow_accepts_00b_and_01b),
	KT_TEST_ENTRY(check_cdb_write_same_unmap_and_anchor_bits),
	KT_TEST_ENTRY(check_cdb_report_target_port_groups_format),
	KT_TEST_ENTRY(check_cdb_agrees_with_the_reported_usage_data),
	KT_TEST_ENTRY(rsoc_usage_data_shows_fua_with_the_write_cache_off),
	KT_TEST_ENTRY(alloc_len_reads_the_field_of_each_command),
};

KT_TEST_MAIN(tests)
