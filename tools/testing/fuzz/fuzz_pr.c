// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: drivers/target/proto/pr.c. PERSISTENT RESERVE OUT
 * parameter lists and every TransportID in them, then PERSISTENT RESERVE
 * IN built over the registrations those TransportIDs name. Buffers are
 * malloc'ed to their exact length so ASan catches overruns; a truncated
 * PR IN response must be a prefix of the full one, and a TransportID we
 * build must parse back to the same port. A REGISTER AND MOVE list ends
 * with its one TransportID, whose length is the one its header gives.
 *
 * Input: CDB bytes 1, 2 (2), PR IN service action and allocation length
 * (3), then the parameter list.
 */
#include <linux/types.h>
#include <linux/unaligned.h>
#include <stdlib.h>
#include <string.h>

#include <ktarget/proto/cdb.h>
#include <ktarget/proto/pr.h>
#include <ktarget/proto/sense.h>

#define MAX_REGS	8

static u8 full[8192];

static void check_field(sense_reason_t ret, const struct kt_sense_field *f)
{
	if (ret == KT_SENSE_INVALID_CDB_FIELD && (!f->valid || !f->in_cdb))
		abort();
	if (ret == KT_SENSE_INVALID_PARAM_FIELD && (!f->valid || f->in_cdb))
		abort();
}

static void check_tid_round_trip(const struct kt_pr_tid *tid)
{
	struct kt_sense_field f;
	struct kt_pr_tid back;
	u8 *buf = malloc(KT_PR_TID_MAX);
	u32 n, used = 0;

	n = kt_pr_tid_build(tid, buf, KT_PR_TID_MAX);
	if (n > KT_PR_TID_MAX || n % 4 || n < 24)
		abort();
	if (kt_pr_tid_parse(buf, n, 0, &used, &back, &f) != KT_SENSE_NONE)
		abort();
	if (used != n || strcmp(back.name, tid->name) ||
	    back.has_isid != tid->has_isid || !kt_pr_tid_match(tid, &back))
		abort();
	free(buf);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct kt_pr_reg_info regs[MAX_REGS];
	struct kt_pr_info pr = { .regs = regs };
	struct kt_sense_field f;
	struct kt_pr_out out;
	sense_reason_t ret;
	u8 cdb[10] = { 0x5f };
	u32 plen, off, used, alloc, dlen, flen;
	u8 *param, *buf;

	if (size < 5)
		return 0;
	cdb[1] = data[0];
	cdb[2] = data[1];
	plen = size - 5;
	put_unaligned_be32(plen, &cdb[5]);
	param = malloc(plen ? plen : 1);
	memcpy(param, data + 5, plen);

	ret = kt_pr_out_parse(cdb, plen ? param : NULL, plen, &out, &f);
	check_field(ret, &f);
	if (!ret && out.sa == KT_PRO_REGISTER_AND_MOVE) {
		struct kt_pr_tid moved;

		/* the list ends with its one TransportID, of that length */
		if (out.tid_off + out.tid_len != plen)
			abort();
		ret = kt_pr_move_tid(&out, param, &moved, &f);
		check_field(ret, &f);
		if (!ret)
			check_tid_round_trip(&moved);
		ret = KT_SENSE_NONE;
	}
	if (!ret) {
		if (out.tid_len > plen || out.tid_off > plen - out.tid_len)
			abort();
		for (off = out.tid_off; off < out.tid_off + out.tid_len;
		     off += used) {
			struct kt_pr_tid *tid;

			if (pr.nr_regs == MAX_REGS)
				break;
			tid = &regs[pr.nr_regs].tid;
			used = 0;
			ret = kt_pr_tid_parse(param + off,
					      out.tid_off + out.tid_len - off,
					      off, &used, tid, &f);
			check_field(ret, &f);
			if (ret)
				break;
			if (!used || used > out.tid_off + out.tid_len - off)
				abort();
			/* SPC-4 7.6.4.6: 224 bytes of name, 244 with ISID */
			if (used > 4 + 244 || used % 4)
				abort();
			if (strnlen(tid->name, KT_PR_NAME_LEN) >= KT_PR_NAME_LEN)
				abort();
			check_tid_round_trip(tid);
			regs[pr.nr_regs].key = out.sa_key + pr.nr_regs;
			regs[pr.nr_regs].rtpi = pr.nr_regs;
			regs[pr.nr_regs].holder = pr.nr_regs == 0;
			regs[pr.nr_regs].all_tg_pt = out.all_tg_pt;
			pr.nr_regs++;
		}
		pr.type = out.type;
		pr.res_key = out.res_key;
		pr.aptpl = out.aptpl;
	}
	free(param);

	/* PERSISTENT RESERVE IN over what the list described */
	cdb[0] = 0x5e;
	cdb[1] = data[2] & 0x1f;
	alloc = get_unaligned_be16(&data[3]);
	put_unaligned_be16(alloc, &cdb[7]);
	buf = malloc(alloc ? alloc : 1);
	ret = kt_pr_in(&pr, cdb, alloc ? buf : NULL, alloc, &dlen, &f);
	check_field(ret, &f);
	put_unaligned_be16(0xffff, &cdb[7]);
	if (kt_pr_in(&pr, cdb, full, sizeof(full), &flen, &f) != ret)
		abort();
	if (!ret) {
		if (dlen != (alloc < flen ? alloc : flen) || flen > sizeof(full))
			abort();
		if (memcmp(buf, full, dlen))
			abort();
	}
	free(buf);

	/* the conflict tables take any CDB */
	kt_pr_check_access(kt_cdb_desc_find(data, 2), data, data[1] & 0x0f,
			   data[2] & 1, data[2] & 2);
	kt_pr_check_reserve(kt_cdb_desc_find(data, 2));
	return 0;
}
