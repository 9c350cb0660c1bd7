// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_srpt: an SRP_CMD's layout (SRP r16a 6.8), as a pure function
 * over the IU's bytes: no allocation, lock or printk, so that a malformed
 * IU is a status and the offset of the bad field, never a read past the
 * buffer. The caller answers the status with an SRP_RSP.
 *
 *	0	opcode		5	DATA-OUT (7..4) / DATA-IN (3..0) format
 *	6	DATA-OUT count	7	DATA-IN count
 *	8	tag		20	LUN
 *	29	task attribute	31	ADDITIONAL CDB LENGTH (7..2, words)
 *	32	CDB (16 bytes, then the additional CDB bytes)
 *	48 + additional		the data descriptors: a direct one (16 bytes)
 *				or an indirect table (SRP r16a 5.5.2): its
 *				own descriptor (16), the total length (4),
 *				then the partial list, COUNT direct ones
 *
 * Data both ways, immediate data and an indirect table not wholly in the
 * IU (which would need an RDMA READ of the table, as ib_srpt refuses too)
 * are not taken.
 */
#include <linux/kernel.h>
#include <linux/unaligned.h>

#include "parse.h"

enum kt_srpt_parse kt_srpt_parse_cmd(const u8 *iu, u32 len,
				     struct kt_srpt_parsed *p, u32 *bad)
{
	u8 out_fmt, in_fmt, fmt, count;
	u32 add_cdb, off, table_len, i;
	u64 sum = 0;

	*bad = 0;
	if (len < KT_SRPT_CMD_LEN) {
		*bad = len;
		return KT_SRPT_PARSE_SHORT;
	}
	out_fmt = iu[5] >> 4;
	in_fmt = iu[5] & 0xf;
	p->lun = get_unaligned_be64(iu + 20);
	p->task_attr = iu[29] & 7;
	add_cdb = iu[31] & ~3;
	p->cdb = iu + 32;
	p->cdb_len = 16 + add_cdb;
	off = KT_SRPT_CMD_LEN + add_cdb;
	if (off > len) {
		*bad = 31;
		return KT_SRPT_PARSE_SHORT;
	}
	p->ndesc = 0;
	p->desc = NULL;
	p->total = 0;
	if (out_fmt && in_fmt) {
		*bad = 5;
		return KT_SRPT_PARSE_BIDI;
	}
	if (out_fmt) {
		p->dir = KT_SRPT_DIR_OUT;
		fmt = out_fmt;
		count = iu[6];
	} else if (in_fmt) {
		p->dir = KT_SRPT_DIR_IN;
		fmt = in_fmt;
		count = iu[7];
	} else {
		p->dir = KT_SRPT_DIR_NONE;
		return KT_SRPT_PARSE_OK;
	}

	switch (fmt) {
	case KT_SRPT_FMT_DIRECT:
		if (len - off < KT_SRPT_DESC_LEN) {
			*bad = off;
			return KT_SRPT_PARSE_SHORT;
		}
		p->ndesc = 1;
		p->desc = iu + off;
		p->total = get_unaligned_be32(iu + off + 12);
		return KT_SRPT_PARSE_OK;
	case KT_SRPT_FMT_INDIRECT:
		break;
	default:
		*bad = 5;
		return KT_SRPT_PARSE_FORMAT;
	}

	if (len - off < KT_SRPT_IND_HDR_LEN) {
		*bad = off;
		return KT_SRPT_PARSE_SHORT;
	}
	/* the table's own descriptor says how long the whole table is */
	table_len = get_unaligned_be32(iu + off + 12);
	if (table_len % KT_SRPT_DESC_LEN || !table_len) {
		*bad = off + 12;
		return KT_SRPT_PARSE_LENGTH;
	}
	if (table_len / KT_SRPT_DESC_LEN != count) {
		*bad = off + 12;
		return KT_SRPT_PARSE_EXTERNAL;
	}
	if ((len - off - KT_SRPT_IND_HDR_LEN) / KT_SRPT_DESC_LEN < count) {
		*bad = off + KT_SRPT_IND_HDR_LEN;
		return KT_SRPT_PARSE_SHORT;
	}
	p->ndesc = count;
	p->desc = iu + off + KT_SRPT_IND_HDR_LEN;
	for (i = 0; i < count; i++)
		sum += get_unaligned_be32(p->desc + i * KT_SRPT_DESC_LEN + 12);
	/* the TOTAL LENGTH field: what the list adds up to */
	if (sum != get_unaligned_be32(iu + off + 16)) {
		*bad = off + 16;
		return KT_SRPT_PARSE_LENGTH;
	}
	p->total = sum;
	return KT_SRPT_PARSE_OK;
}

const char *kt_srpt_parse_msg(enum kt_srpt_parse st)
{
	switch (st) {
	case KT_SRPT_PARSE_OK:
		return "ok";
	case KT_SRPT_PARSE_SHORT:
		return "the IU ends inside a field";
	case KT_SRPT_PARSE_BIDI:
		return "data in both directions is not supported";
	case KT_SRPT_PARSE_FORMAT:
		return "unsupported data descriptor format";
	case KT_SRPT_PARSE_EXTERNAL:
		return "indirect descriptor table not wholly in the IU";
	case KT_SRPT_PARSE_LENGTH:
		return "descriptor lengths do not add up";
	}
	return "?";
}
