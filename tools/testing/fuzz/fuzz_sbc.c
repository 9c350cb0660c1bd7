// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: READ CAPACITY, WRITE SAME, UNMAP, GET LBA STATUS and
 * READ DEFECT DATA of drivers/target/proto/sbc.c over arbitrary CDBs and
 * parameter lists. Buffers are malloc'ed to their exact length so ASan
 * catches overruns; whatever is accepted must lie within the device.
 *
 * Input: flags (2), nr_blocks (8), limits (4), buffer length (2), CDB (16),
 * then the UNMAP parameter list / GET LBA STATUS extent script.
 */
#include <linux/types.h>
#include <linux/unaligned.h>
#include <stdlib.h>
#include <string.h>

#include <ktarget/proto/cdb.h>
#include <ktarget/proto/sense.h>
#include <ktarget/proto/spc.h>

struct script {
	const u8 *p;
	u32 len;
	u32 pos;
};

/* Extents from the input: each byte is a length, its top bit a status */
static int scripted(void *priv, u64 lba, u64 max, u64 *nr, u8 *status)
{
	struct script *s = priv;
	u8 b;

	if (s->pos >= s->len)
		return -5;
	b = s->p[s->pos++];
	*nr = (b & 0x7f) + 1;
	if (*nr > max)
		*nr = max;
	*status = b >> 7;
	return 0;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct kt_lu_info lu = {
		.dev_id = 1,
		.block_size = 512,
		.proto_id = KT_PROTO_ISCSI,
		.max_caw_blocks = 1,
	};
	struct kt_sense_field f;
	struct kt_sbc_ws ws;
	struct script sc;
	sense_reason_t ret;
	u32 len, dlen, plen, nr, i, n;
	u64 lba, total = 0;
	u8 *cdb, *buf, *param;

	if (size < 32)
		return 0;
	lu.flags = get_unaligned_be16(data);
	lu.nr_blocks = get_unaligned_be64(&data[2]) >> (data[10] & 63);
	lu.max_write_same_len = data[11] << 4;
	lu.max_unmap_lba_count = data[12] << 8;
	lu.max_unmap_block_desc_count = data[13];
	lu.lbppbe = data[10] >> 4;
	len = get_unaligned_be16(&data[14]);

	cdb = malloc(16);
	memcpy(cdb, &data[16], 16);
	plen = size - 32;
	param = malloc(plen ? plen : 1);
	memcpy(param, data + 32, plen);

	buf = malloc(len ? len : 1);
	kt_sbc_read_capacity(&lu, cdb, len ? buf : NULL, len, &dlen, &f);
	kt_sbc_read_defect_data(cdb, len ? buf : NULL, len, &dlen, &f);

	sc = (struct script){ .p = param, .len = plen };
	ret = kt_sbc_get_lba_status(&lu, cdb, (data[0] & 1) ? scripted : NULL,
				    &sc, len ? buf : NULL, len, &dlen, &f);
	/* at least one descriptor, cut to the ALLOCATION LENGTH */
	if (ret == KT_SENSE_NONE &&
	    dlen != (get_unaligned_be32(&cdb[10]) < 24 ?
		     get_unaligned_be32(&cdb[10]) : dlen))
		abort();
	if (ret == KT_SENSE_NONE && dlen > get_unaligned_be32(&cdb[10]))
		abort();
	free(buf);

	ret = kt_sbc_write_same(&lu, cdb, &ws, &f);
	if (ret == KT_SENSE_NONE &&
	    (!ws.nr_blocks || !kt_cdb_range_ok(ws.lba, ws.nr_blocks,
					       lu.nr_blocks) ||
	     (lu.max_write_same_len && ws.nr_blocks > lu.max_write_same_len)))
		abort();

	/* WRITE ATOMIC (16): what passes is within every limit */
	lu.atomic_max_len = data[12];
	lu.atomic_alignment = data[13] & 15;
	lu.atomic_granularity = data[11] & 7;
	lu.atomic_max_with_boundary = data[0] & 0x80 ? data[12] >> 1 : 0;
	lu.atomic_max_boundary = data[0] & 0x80 ? data[13] >> 4 : 0;
	lu.hw_max_sectors = data[1] & 0x80 ? data[13] : 0;
	ret = kt_sbc_write_atomic(&lu, cdb, &f);
	n = get_unaligned_be16(&cdb[12]);
	i = get_unaligned_be16(&cdb[10]);
	if (ret == KT_SENSE_NONE &&
	    (n > (i ? lu.atomic_max_with_boundary : kt_sbc_atomic_max(&lu)) ||
	     i > lu.atomic_max_boundary ||
	     (lu.atomic_granularity && (n % lu.atomic_granularity ||
					i % lu.atomic_granularity)) ||
	     (lu.atomic_alignment &&
	      get_unaligned_be64(&cdb[2]) % lu.atomic_alignment) ||
	     (lu.hw_max_sectors && n > lu.hw_max_sectors && !i)))
		abort();
	lu.hw_max_sectors = 0;

	ret = kt_sbc_unmap_check(&lu, plen ? param : NULL, plen, &nr, &f);
	if (ret == KT_SENSE_NONE) {
		if (nr > lu.max_unmap_block_desc_count ||
		    8 + 16ULL * nr > plen + (plen ? 0 : 8))
			abort();
		for (i = 0; i < nr; i++) {
			kt_sbc_unmap_desc(param, i, &lba, &n);
			if (!kt_cdb_range_ok(lba, n, lu.nr_blocks))
				abort();
			total += n;
		}
		if (total > lu.max_unmap_lba_count)
			abort();
	} else if (nr) {
		abort();
	}

	free(param);
	free(cdb);
	return 0;
}
