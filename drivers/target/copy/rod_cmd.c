// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: POPULATE TOKEN and WRITE USING TOKEN (SBC-3), token copy
 * as Windows' offloaded data transfer (ODX) uses it.
 *
 * POPULATE TOKEN moves no data: it checks the ranges and makes a token
 * (rod_token.c) that RECEIVE ROD TOKEN INFORMATION returns under the
 * command's LIST IDENTIFIER (xcopy_rcr.c). WRITE USING TOKEN finds the
 * token, lays the destination ranges over the token's source ranges and
 * hands the resulting spans to the EXTENDED COPY engine (xcopy.c), which
 * applies every check a READ of the source and a WRITE of the destination
 * from this nexus would face. Both complete when their work is done, IMMED
 * or not: a token is made at once, and a copy's status is the command's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/unaligned.h>

#include <ktarget/backend.h>
#include <ktarget/fabric.h>

#include "core.h"
#include "rod.h"
#include "scsi/cmdsets.h"
#include "xcopy.h"

/* The parameter list of @cmd into a buffer of @len bytes, or NULL */
static u8 *kt_rod_param(struct kt_cmd *cmd, u32 *len)
{
	u8 *buf;

	*len = min_t(u32, cmd->data_length, PAGE_SIZE);
	buf = kmalloc(max_t(u32, *len, 1), GFP_KERNEL);
	if (buf)
		sg_copy_to_buffer(cmd->sgl, cmd->sg_nents, buf, *len);
	return buf;
}

static void kt_rod_geom(struct kt_cmd *cmd, struct kt_rod_geom *g)
{
	g->nr_blocks = kt_dev_nr_lblocks(cmd->dev);
	g->block_size = cmd->dev->attrib.block_size;
}

static void kt_rod_fail(struct kt_cmd *cmd, int slot,
			const struct kt_xcopy_err *err)
{
	sense_reason_t reason = kt_xcopy_set_err(cmd, err);

	kt_xcopy_ids_finish(cmd, slot, reason);
	kt_cmd_complete(cmd, reason);
}

void kt_rod_pt_execute(struct kt_cmd *cmd)
{
	u32 list_id = get_unaligned_be32(&cmd->cdb[6]);
	struct kt_rod_token *token;
	sense_reason_t reason;
	struct kt_xcopy_err err;
	struct kt_rod_geom g;
	struct kt_rod_pt *pt;
	u8 *buf;
	u32 len;
	int slot;

	pt = kmalloc(sizeof(*pt), GFP_KERNEL);
	buf = kt_rod_param(cmd, &len);
	if (!pt || !buf) {
		reason = KT_SENSE_OUT_OF_RESOURCES;
		goto out;
	}
	kt_rod_geom(cmd, &g);
	if (kt_rod_parse_pt(buf, len, &g, pt, &err) != KT_XCOPY_OK) {
		reason = kt_xcopy_set_err(cmd, &err);
		goto out;
	}
	slot = kt_xcopy_ids_claim(cmd, list_id, KT_XCOPY_KIND_PT, true,
				  &reason);
	if (slot == KT_XCOPY_NO_SLOT)
		goto out;
	token = kt_rod_token_make(cmd, pt, &err);
	if (!token) {
		kt_rod_fail(cmd, slot, &err);
		goto free;
	}
	kt_xcopy_ids_set_token(cmd->sess, slot, token,
			       pt->ranges.blocks * g.block_size);
	kt_xcopy_ids_finish(cmd, slot, KT_SENSE_NONE);
	reason = KT_SENSE_NONE;
out:
	kt_cmd_complete(cmd, reason);
free:
	kfree(buf);
	kfree(pt);
}

/*
 * Lay the destination ranges of @wut (blocks of @dst_bs) over the token's
 * data from OFFSET INTO ROD on: one span per piece that lies in one
 * source range and one destination range. Each piece must be whole
 * blocks of both LUs. Returns the number of spans, or -1 with *@err set.
 */
static int kt_rod_spans(const struct kt_rod_wut *wut, u32 dst_bs,
			const struct kt_rod_ranges *src, u32 src_bs,
			u64 rod_bytes, struct kt_xcopy_span *span,
			struct kt_xcopy_err *err)
{
	u64 off = wut->offset * dst_bs, want = wut->ranges.blocks * dst_bs;
	u32 unit = max(src_bs, dst_bs);
	unsigned int i, n = 0;
	u64 done, len, src_pos;

	/* OFFSET INTO ROD (byte 8) past the data the token represents */
	if (wut->offset > rod_bytes / dst_bs || off >= rod_bytes) {
		kt_rod_sense(err, KT_XCOPY_ASC_INVALID_PARAM);
		err->flags = KT_XCOPY_ERR_SKSV;
		err->field = 8;
		return -1;
	}
	if (want > rod_bytes - off) {
		kt_rod_sense(err, KT_XCOPY_ASC_TARGET_UNDERRUN);
		return -1;
	}
	for (i = 0; i < wut->ranges.nr; i++) {
		const struct kt_rod_range *r = &wut->ranges.r[i];

		for (done = 0; done < (u64)r->nr * dst_bs; done += len) {
			len = kt_rod_src_map(src, src_bs, off,
					     (u64)r->nr * dst_bs - done,
					     &src_pos);
			if (!len || n == KT_XCOPY_MAX_SEGMENTS)
				goto granularity;
			span[n] = (struct kt_xcopy_span){
				.src_lba = src_pos / src_bs,
				.dst_lba = r->lba + done / dst_bs,
				.bytes = len,
				.src_bs = src_bs,
				.dst_bs = dst_bs,
			};
			if (len % unit || src_pos % src_bs)
				goto granularity;
			n++;
			off += len;
		}
	}
	return n;

granularity:
	kt_rod_sense(err, KT_XCOPY_ASC_SEG_GRANULARITY);
	return -1;
}

/*
 * The spans of a WRITE USING TOKEN with the block device zero token: its
 * destination ranges, whatever OFFSET INTO ROD says.
 */
static int kt_rod_zero_spans(const struct kt_rod_wut *wut, u32 dst_bs,
			     struct kt_xcopy_span *span)
{
	unsigned int i;

	for (i = 0; i < wut->ranges.nr; i++)
		span[i] = (struct kt_xcopy_span){
			.src_lba = wut->ranges.r[i].lba,
			.dst_lba = wut->ranges.r[i].lba,
			.bytes = (u64)wut->ranges.r[i].nr * dst_bs,
			.src_bs = dst_bs,
			.dst_bs = dst_bs,
		};
	return wut->ranges.nr;
}

void kt_rod_wut_execute(struct kt_cmd *cmd)
{
	u32 list_id = get_unaligned_be32(&cmd->cdb[6]);
	struct kt_rod_token *token = NULL;
	struct kt_rod_token_info info;
	struct kt_xcopy_span *span;
	struct kt_lun *src = NULL;
	struct kt_xcopy_err err;
	sense_reason_t reason;
	struct kt_rod_geom g;
	struct kt_rod_wut *wut;
	int slot = KT_XCOPY_NO_SLOT, n;
	u8 *buf;
	u32 len;

	wut = kmalloc(sizeof(*wut), GFP_KERNEL);
	span = kmalloc_array(KT_XCOPY_MAX_SEGMENTS, sizeof(*span), GFP_KERNEL);
	buf = kt_rod_param(cmd, &len);
	if (!wut || !span || !buf) {
		kt_cmd_complete(cmd, KT_SENSE_OUT_OF_RESOURCES);
		goto free;
	}
	kt_rod_geom(cmd, &g);
	if (kt_rod_parse_wut(buf, len, &g, wut, &err) != KT_XCOPY_OK) {
		kt_cmd_complete(cmd, kt_xcopy_set_err(cmd, &err));
		goto free;
	}
	slot = kt_xcopy_ids_claim(cmd, list_id, KT_XCOPY_KIND_WUT, true,
				  &reason);
	if (slot == KT_XCOPY_NO_SLOT) {
		kt_cmd_complete(cmd, reason);
		goto free;
	}
	if (kt_rod_token_read(wut->token, &info, &err))
		goto fail;
	if (info.type == KT_ROD_TYPE_ZERO) {
		if (!cmd->dev->ops->write_zeroes) {
			kt_rod_sense(&err, KT_ROD_ASC_TOKEN_TYPE);
			goto fail;
		}
		n = kt_rod_zero_spans(wut, g.block_size, span);
	} else {
		token = kt_rod_token_find(wut->token, &src, &err);
		if (!token)
			goto fail;
		n = kt_rod_spans(wut, g.block_size, kt_rod_token_ranges(token),
				 kt_rod_token_block_size(token),
				 kt_rod_token_ranges(token)->blocks *
				 kt_rod_token_block_size(token),
				 span, &err);
		if (n < 0) {
			kt_lun_put(src);
			kt_rod_token_done(token, false, false);
			goto fail;
		}
	}
	kt_xcopy_token_run(cmd, src, token, wut->flags & KT_ROD_DEL_TKN,
			   span, n, slot);
	goto free;
fail:
	kt_rod_fail(cmd, slot, &err);
free:
	kfree(buf);
	kfree(span);
	kfree(wut);
}
