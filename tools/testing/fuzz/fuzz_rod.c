// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the POPULATE TOKEN and WRITE USING TOKEN parsers, the
 * ROD token reader and the RECEIVE ROD TOKEN INFORMATION builder over
 * arbitrary bytes.
 *
 * Invariants, checked with abort(): accepted ranges are non-empty, inside
 * the LU, pairwise disjoint, at most KT_ROD_MAX_RANGES and KT_ROD_MAX_BYTES
 * in all, and their sum is what the parser says; an error is ILLEGAL
 * REQUEST with any field pointer inside the list; the source map walks the
 * ranges exactly; the builder never writes past the length it is given.
 */
#include <linux/types.h>
#include <stdlib.h>
#include <string.h>
#include <linux/unaligned.h>

#include <ktarget/proto/rod.h>

static struct kt_rod_pt pt;
static struct kt_rod_wut wut;

static void check_ranges(const struct kt_rod_ranges *r,
			 const struct kt_rod_geom *g)
{
	u64 sum = 0, pos, off = 0, n;
	unsigned int i, j;

	if (r->nr > KT_ROD_MAX_RANGES)
		abort();
	for (i = 0; i < r->nr; i++) {
		if (!r->r[i].nr || r->r[i].lba > g->nr_blocks ||
		    r->r[i].nr > g->nr_blocks - r->r[i].lba)
			abort();
		for (j = 0; j < i; j++)
			if (r->r[i].lba < r->r[j].lba + r->r[j].nr &&
			    r->r[j].lba < r->r[i].lba + r->r[i].nr)
				abort();
		sum += r->r[i].nr;
	}
	if (sum != r->blocks || sum * g->block_size > KT_ROD_MAX_BYTES)
		abort();
	/* the source map covers the ranges end to end, in order */
	for (i = 0; i < r->nr; i++) {
		n = kt_rod_src_map(r, g->block_size, off, ~0ULL, &pos);
		if (n != (u64)r->r[i].nr * g->block_size ||
		    pos != r->r[i].lba * g->block_size)
			abort();
		off += n;
	}
	if (kt_rod_src_map(r, g->block_size, off, 1, &pos))
		abort();
}

static void check_err(const struct kt_xcopy_err *err, size_t size)
{
	if (err->key != KT_XCOPY_KEY_ILLEGAL_REQUEST || !err->asc)
		abort();
	if ((err->flags & KT_XCOPY_ERR_SKSV) && err->field >= size && err->field)
		abort();
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct kt_rod_geom g = { .nr_blocks = 1 << 16, .block_size = 512 };
	struct kt_rod_token_info info;
	struct kt_rod_status st = { 0 };
	struct kt_xcopy_err err;
	u8 out[1024];
	unsigned int cap, n;

	if (size && (data[0] & 1))
		g.block_size = 4096;
	if (kt_rod_parse_pt(data, size, &g, &pt, &err) == KT_XCOPY_OK)
		check_ranges(&pt.ranges, &g);
	else
		check_err(&err, size);
	if (kt_rod_parse_wut(data, size, &g, &wut, &err) == KT_XCOPY_OK) {
		check_ranges(&wut.ranges, &g);
		if (memcmp(wut.token, data + KT_ROD_WUT_TOKEN_OFF, KT_ROD_TOKEN_LEN))
			abort();
	} else {
		check_err(&err, size);
	}
	if (size >= KT_ROD_TOKEN_LEN) {
		if (kt_rod_token_read(data, &info, &err))
			check_err(&err, size);
		else if (info.type != KT_ROD_TYPE_ZERO &&
			 info.type != KT_ROD_TYPE_PIT_VULNERABLE)
			abort();
		/* a response never goes past the length it is given */
		cap = size % sizeof(out);
		memset(out, 0xa5, sizeof(out));
		st.op_status = data[1];
		n = kt_rod_build_rrti(out, cap, &st, data + 2, data[3], data);
		if (n > sizeof(out) || (cap < sizeof(out) && out[cap] != 0xa5))
			abort();
	}
	return 0;
}
