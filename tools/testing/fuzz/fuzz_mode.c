// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: MODE SENSE and MODE SELECT of
 * drivers/target/proto/mode.c over arbitrary CDBs and parameter lists.
 * Buffers are malloc'ed to their exact length so ASan catches overruns; a
 * truncated MODE SENSE response must be a prefix of the full one, and a
 * MODE SELECT may only change what the changeable values allow.
 *
 * Input: flags (2), nr_blocks (8), buffer length (2), CDB (10), then the
 * MODE SELECT parameter list.
 */
#include <linux/types.h>
#include <linux/unaligned.h>
#include <stdlib.h>
#include <string.h>

#include <ktarget/proto/sense.h>
#include <ktarget/proto/spc.h>

static u8 full[4096];

static void check_field(sense_reason_t ret, const struct kt_sense_field *f)
{
	if (ret == KT_SENSE_INVALID_CDB_FIELD && (!f->valid || !f->in_cdb))
		abort();
	if (ret == KT_SENSE_INVALID_PARAM_FIELD && (!f->valid || f->in_cdb))
		abort();
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct kt_lu_info lu = {
		.dev_id = 1,
		.block_size = 512,
		.proto_id = KT_PROTO_ISCSI,
	};
	u32 len, dlen, flen, plen, n;
	struct kt_sense_field f;
	struct kt_mode_select sel;
	sense_reason_t ret, fret;
	u8 *cdb, *buf, *param;

	if (size < 22)
		return 0;
	lu.flags = get_unaligned_be16(data);
	lu.nr_blocks = get_unaligned_be64(&data[2]);
	lu.ua_intlck_ctrl = data[2] & 3;
	len = get_unaligned_be16(&data[10]);

	cdb = malloc(10);
	memcpy(cdb, &data[12], 10);

	/* MODE SENSE (6) or (10) */
	cdb[0] = cdb[0] & 1 ? 0x5a : 0x1a;
	buf = malloc(len ? len : 1);
	memset(buf, 0x5a, len ? len : 1);
	memset(full, 0x5a, len < sizeof(full) ? len : sizeof(full));
	ret = kt_spc_mode_sense(&lu, cdb, len ? buf : NULL, len, &dlen, &f);
	check_field(ret, &f);
	fret = kt_spc_mode_sense(&lu, cdb, full, sizeof(full), &flen, &f);
	if (ret != fret || dlen != flen || dlen > sizeof(full))
		abort();
	n = dlen < len ? dlen : len;
	if (memcmp(buf, full, n))
		abort();
	free(buf);

	/* MODE SELECT (6) or (10) */
	cdb[0] = cdb[0] == 0x5a ? 0x55 : 0x15;
	plen = size - 22;
	param = malloc(plen ? plen : 1);
	memcpy(param, data + 22, plen);
	ret = kt_spc_mode_select(&lu, cdb, plen ? param : NULL, plen, &sel,
				 &f);
	check_field(ret, &f);
	if (ret != KT_SENSE_NONE && sel.set)
		abort();
	if ((sel.set & KT_MODE_SET_WCE) && !(lu.flags & KT_LU_WCE_CHANGEABLE))
		abort();
	if ((sel.set & KT_MODE_SET_SWP) && !(lu.flags & KT_LU_SWP_CHANGEABLE))
		abort();
	if (sel.set & ~(KT_MODE_SET_WCE | KT_MODE_SET_SWP))
		abort();
	free(param);
	free(cdb);
	return 0;
}
