// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the builders and CDB checks of drivers/target/proto/spc.c
 * over arbitrary CDB bytes, buffer lengths, LUN lists and sense data.
 * Every output buffer is malloc'ed to its exact length so ASan catches
 * overruns; a truncated response must be a prefix of the full one.
 *
 * Input: flags (2), tpgs (1), buffer length (2), CDB length (1), CDB (16),
 * then the rest as LUN list / sense data.
 */
#include <linux/types.h>
#include <linux/unaligned.h>
#include <stdlib.h>
#include <string.h>

#include <ktarget/proto/sense.h>
#include <ktarget/proto/spc.h>

#define FULL_LEN	(65536 + 64)

static u8 full[FULL_LEN];

static unsigned int tpc_page(u8 *buf, unsigned int len,
			     const struct kt_lu_info *lu)
{
	unsigned int i;

	for (i = 0; i < len && i < 40; i++)
		buf[i] = i ? 0x11 : 0;
	return 40;
}

typedef sense_reason_t (*builder_fn)(const struct kt_lu_info *lu,
				     const u8 *cdb, u8 *buf, u32 buf_len,
				     u32 *data_len,
				     struct kt_sense_field *field);

static void check_reason(sense_reason_t ret, const struct kt_sense_field *f)
{
	if (ret == KT_SENSE_INVALID_CDB_FIELD && (!f->valid || !f->in_cdb))
		abort();
	if (f->valid && f->bit_valid && f->bit > 7)
		abort();
}

/* Run @fn into @len bytes and into a large buffer: same prefix, same length */
static void run(builder_fn fn, const struct kt_lu_info *lu, const u8 *cdb,
		u32 len)
{
	struct kt_sense_field f, ff;
	u32 dlen = 0, flen = 0;
	sense_reason_t ret, fret;
	u8 *buf = malloc(len ? len : 1);

	/* bytes past the ALLOCATION LENGTH stay as they were in both */
	memset(buf, 0x5a, len ? len : 1);
	memset(full, 0x5a, len < sizeof(full) ? len : sizeof(full));
	ret = fn(lu, cdb, len ? buf : NULL, len, &dlen, &f);
	check_reason(ret, &f);
	fret = fn(lu, cdb, full, sizeof(full), &flen, &ff);
	if (ret != fret || (ret == KT_SENSE_NONE && dlen != flen))
		abort();
	if (ret == KT_SENSE_NONE) {
		u32 n = dlen < len ? dlen : len;

		if (n > sizeof(full) || memcmp(buf, full, n))
			abort();
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct kt_lu_info lu = {
		.nr_blocks = 1ULL << 34,
		.dev_id = 7,
		.max_write_same_len = 65535,
		.block_size = 4096,
		.hw_max_sectors = 8192,
		.optimal_sectors = 1024,
		.max_unmap_lba_count = 65536,
		.max_unmap_block_desc_count = 64,
		.unmap_granularity = 8,
		.unmap_granularity_alignment = 1,
		.company_id = 0x001405,
		.rel_port_id = 2,
		.tpg_id = 1,
		.lowest_aligned_lba = 0,
		.tmf = 0x7ff,
		.max_caw_blocks = 1,
		.lbppbe = 3,
		.proto_id = KT_PROTO_ISCSI,
		.vendor_id = "LIO-ORG",
		.product_id = "ktarget fuzz",
		.revision = "4.0",
		.unit_serial = "6001405fedcba9876543210",
		.port_name = "iqn.2003-01.org.example:fuzz,t,0x0001",
		.target_name = "iqn.2003-01.org.example:fuzz",
		.vpd_tpc = tpc_page,
	};
	struct kt_sense_field f;
	u32 len, cdb_len, nr, i, dlen, rest;
	const u8 *tail;
	u64 luns[64];
	u8 *cdb, *exact;
	sense_reason_t ret;

	if (size < 22)
		return 0;
	lu.flags = get_unaligned_be16(data);
	lu.tpgs = data[2] & 3;
	lu.ua_intlck_ctrl = data[2] >> 4;
	len = get_unaligned_be16(&data[3]);
	cdb_len = data[5] % 17;
	tail = data + 22;
	rest = size - 22;

	cdb = malloc(16);
	memcpy(cdb, &data[6], 16);

	/* the check reads no further than the length it is given */
	exact = malloc(cdb_len ? cdb_len : 1);
	memcpy(exact, cdb, cdb_len);
	ret = kt_spc_check_cdb(&lu, exact, cdb_len, &f);
	check_reason(ret, &f);
	if (ret == KT_SENSE_NONE && !cdb_len)
		abort();
	free(exact);
	kt_spc_alloc_len(cdb);

	run(kt_spc_inquiry, &lu, cdb, len);
	run(kt_spc_rsoc, &lu, cdb, len);
	run(kt_spc_rstmf, &lu, cdb, len);

	nr = rest / 8 < 64 ? rest / 8 : 64;
	for (i = 0; i < nr; i++)
		luns[i] = get_unaligned_be64(tail + 8 * i) >> (tail[0] & 63);
	{
		u8 *buf = malloc(len ? len : 1);

		ret = kt_spc_report_luns(cdb, luns, nr, rest && (tail[0] & 1),
					 len ? buf : NULL, len, &dlen, &f);
		check_reason(ret, &f);
		if (ret == KT_SENSE_NONE &&
		    (dlen < 8 || dlen > 8 + 8 * (nr + 2) ||
		     dlen > get_unaligned_be32(&cdb[6])))
			abort();
		free(buf);
	}

	{
		u32 slen = rest < 252 ? rest : 252;
		u8 *sense = malloc(slen ? slen : 1);
		u8 *buf = malloc(len ? len : 1);

		memcpy(sense, tail, slen);
		ret = kt_spc_request_sense(cdb, slen ? sense : NULL, slen,
					   len ? buf : NULL, len, &dlen, &f);
		check_reason(ret, &f);
		free(buf);
		free(sense);
	}

	free(cdb);
	return 0;
}
