// SPDX-License-Identifier: GPL-2.0
/*
 * MODE SENSE and MODE SELECT: the mode parameter header, block descriptor
 * and the mode pages ktarget implements, with their changeable and default
 * values. No allocation, locking or logging here: this file is compiled
 * unchanged into the userspace unit and fuzz tests.
 */
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/bits.h>
#include <linux/unaligned.h>

#include <ktarget/proto/cdb.h>
#include <ktarget/proto/sense.h>
#include <ktarget/proto/spc.h>

/* SPC-4 6.11: PAGE CONTROL field */
#define PC_CURRENT	0x0
#define PC_CHANGEABLE	0x1
#define PC_DEFAULT	0x2
#define PC_SAVED	0x3

#define PAGE_ALL	0x3f	/* return all mode pages */
#define SUBPAGE_ALL	0xff	/* return all subpages */
#define PAGE_MAX_LEN	24	/* the longest page: 1Ch/02h, 4 + 14h */

/* SBC-3, Read-Write Error Recovery mode page: nothing to report */
static void kt_mode_rw_recovery(const struct kt_lu_info *lu, u8 pc, u8 *p)
{
}

/* SBC-3, Caching mode page */
static void kt_mode_caching(const struct kt_lu_info *lu, u8 pc, u8 *p)
{
	switch (pc) {
	case PC_CHANGEABLE:
		if (lu->flags & KT_LU_WCE_CHANGEABLE)
			p[2] = 0x04;		/* WCE */
		break;
	default:
		/*
		 * The default is the device attribute: it is what the logical
		 * unit comes up with, and MODE SELECT writes it back there.
		 */
		if (lu->flags & KT_LU_WCE)
			p[2] = 0x04;
		break;
	}
}

/* SPC-4 7.5, Control mode page */
static void kt_mode_control(const struct kt_lu_info *lu, u8 pc, u8 *p)
{
	u8 ua = lu->ua_intlck_ctrl;

	if (pc == PC_CHANGEABLE) {
		if (lu->flags & KT_LU_SWP_CHANGEABLE)
			p[4] = 0x08;		/* SWP */
		return;
	}
	/* TST 000b, TMF_ONLY, DPICZ and D_SENSE zero; no log pages: GLTSD */
	p[2] = 0x02;
	/* QUEUE ALGORITHM MODIFIER 0 (restricted) or 1 (unrestricted), QERR 0 */
	p[3] = lu->flags & KT_LU_REST_REORD ? 0x00 : 0x10;
	/* UA_INTLCK_CTRL: 00b, 10b or 11b (01b is reserved) */
	p[4] = (ua == 2 || ua == 3) ? ua << 4 : 0;
	if (pc == PC_CURRENT && (lu->flags & KT_LU_SWP))
		p[4] |= 0x08;
	p[5] = lu->flags & KT_LU_TAS ? 0x40 : 0;	/* TAS */
	/* BUSY TIMEOUT PERIOD: unlimited */
	p[8] = 0xff;
	p[9] = 0xff;
}

/* SPC-4 7.5, Informational Exceptions Control mode page */
static void kt_mode_iec(const struct kt_lu_info *lu, u8 pc, u8 *p)
{
	if (pc != PC_CHANGEABLE)
		p[2] = 0x08;			/* DEXCPT: none reported */
}

/*
 * SBC-3 6.5.x, Logical Block Provisioning mode page (1Ch/02h): one
 * threshold descriptor, a soft threshold (type 000b) on the available LBA
 * mapping resources (resource 01h), armed decreasing (000b). ENABLED,
 * THRESHOLD COUNT and SITUA are changeable; it starts disabled.
 */
static void kt_mode_lbp(const struct kt_lu_info *lu, u8 pc, u8 *p)
{
	u8 *d = p + 16;

	if (pc == PC_CHANGEABLE) {
		p[4] = 0x01;			/* SITUA */
		d[0] = 0x80;			/* ENABLED */
		put_unaligned_be32(0xffffffff, &d[4]);
		return;
	}
	d[1] = 0x01;				/* available LBA mapping resources */
	if (pc != PC_CURRENT)
		return;
	if (lu->flags & KT_LU_LBP_SITUA)
		p[4] = 0x01;
	if (lu->flags & KT_LU_LBP_THRESH_ON)
		d[0] = 0x80;
	put_unaligned_be32(lu->lbp_thresh_count, &d[4]);
}

struct kt_mode_page {
	u8	code;
	u8	sub;		/* SUBPAGE CODE; nonzero: subpage format */
	u8	len;		/* PAGE LENGTH */
	void	(*fill)(const struct kt_lu_info *lu, u8 pc, u8 *p);
	u32	needs;		/* KT_LU_* flags without which it is absent */
};

/* In page code order, the order MODE SENSE returns them in */
static const struct kt_mode_page kt_mode_pages[] = {
	{ 0x01, 0x00, 0x0a, kt_mode_rw_recovery, 0 },
	{ 0x08, 0x00, 0x12, kt_mode_caching, 0 },
	{ 0x0a, 0x00, 0x0a, kt_mode_control, 0 },
	{ 0x1c, 0x00, 0x0a, kt_mode_iec, 0 },
	{ 0x1c, 0x02, 0x14, kt_mode_lbp, KT_LU_LBP_THRESH },
};

static bool kt_mode_offered(const struct kt_lu_info *lu,
			    const struct kt_mode_page *mp)
{
	return (lu->flags & mp->needs) == mp->needs;
}

/* The page @code of any subpage when @sub is SUBPAGE_ALL */
static const struct kt_mode_page *kt_mode_find(const struct kt_lu_info *lu,
					       u8 code, u8 sub)
{
	const struct kt_mode_page *mp;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kt_mode_pages); i++) {
		mp = &kt_mode_pages[i];
		if (mp->code == code && (sub == SUBPAGE_ALL || mp->sub == sub) &&
		    kt_mode_offered(lu, mp))
			return mp;
	}
	return NULL;
}

/* Whether MODE SENSE of page @code, subpage @sub returns @mp */
static bool kt_mode_selected(const struct kt_lu_info *lu,
			     const struct kt_mode_page *mp, u8 code, u8 sub)
{
	if (!kt_mode_offered(lu, mp))
		return false;
	if (code != PAGE_ALL && code != mp->code)
		return false;
	return sub == SUBPAGE_ALL || sub == mp->sub;
}

/* The whole page, header included, into @p (PAGE_MAX_LEN bytes) */
static u32 kt_mode_build(const struct kt_lu_info *lu,
			 const struct kt_mode_page *mp, u8 pc, u8 *p)
{
	memset(p, 0, PAGE_MAX_LEN);
	mp->fill(lu, pc, p);
	/* SPC-4 7.5.7: PS 0 (nothing saveable); SPF 1 for a subpage */
	if (mp->sub) {
		p[0] = 0x40 | mp->code;
		p[1] = mp->sub;
		put_unaligned_be16(mp->len, &p[2]);
		return mp->len + 4U;
	}
	p[0] = mp->code;
	p[1] = mp->len;
	return mp->len + 2U;
}

static u8 kt_mode_dsp(const struct kt_lu_info *lu)
{
	u8 dsp = 0;

	/* SBC-3 6.4: DEVICE-SPECIFIC PARAMETER, WP and DPOFUA */
	if (lu->flags & (KT_LU_READ_ONLY | KT_LU_SWP))
		dsp |= 0x80;
	if (kt_spc_dpofua(lu))
		dsp |= 0x10;
	return dsp;
}

/* SBC-3 6.4: NUMBER OF LOGICAL BLOCKS of a short LBA block descriptor */
static u32 kt_mode_short_blocks(const struct kt_lu_info *lu)
{
	return lu->nr_blocks > 0xffffffffULL ? 0xffffffff : lu->nr_blocks;
}

sense_reason_t kt_spc_mode_sense(const struct kt_lu_info *lu, const u8 *cdb,
				 u8 *buf, u32 buf_len, u32 *data_len,
				 struct kt_sense_field *field)
{
	bool six = cdb[0] == MODE_SENSE, dbd = cdb[1] & 0x08;
	bool llbaa = !six && (cdb[1] & 0x10);
	u8 pc = cdb[2] >> 6, code = cdb[2] & 0x3f, sub = cdb[3];
	u32 alloc = six ? cdb[4] : get_unaligned_be16(&cdb[7]);
	const struct kt_mode_page *mp;
	u8 page[PAGE_MAX_LEN];
	struct kt_spc_out o;
	unsigned int i;
	u32 n;

	*data_len = 0;
	*field = (struct kt_sense_field){ 0 };

	/* SPC-4 6.11: there are no saved values */
	if (pc == PC_SAVED) {
		*field = KT_FIELD_CDB_BIT(2, 7);
		return KT_SENSE_SAVING_PARAMS_UNSUPPORTED;
	}
	if (code != PAGE_ALL && !kt_mode_find(lu, code, SUBPAGE_ALL)) {
		*field = KT_FIELD_CDB_BIT(2, 5);
		return KT_SENSE_INVALID_CDB_FIELD;
	}
	/* SPC-4 6.11: all pages take only subpage 00h or FFh */
	if (code == PAGE_ALL ? sub != 0x00 && sub != SUBPAGE_ALL :
			       !kt_mode_find(lu, code, sub)) {
		*field = KT_FIELD_CDB(3);
		return KT_SENSE_INVALID_CDB_FIELD;
	}

	kt_spc_out_init(&o, buf, buf_len, alloc);

	/* SPC-4 7.5: mode parameter header, MODE DATA LENGTH set below */
	if (six) {
		kt_spc_out_u8(&o, 0);
		kt_spc_out_u8(&o, 0);			/* MEDIUM TYPE */
		kt_spc_out_u8(&o, kt_mode_dsp(lu));
		kt_spc_out_u8(&o, dbd ? 0 : 8);
	} else {
		kt_spc_out_be16(&o, 0);
		kt_spc_out_u8(&o, 0);
		kt_spc_out_u8(&o, kt_mode_dsp(lu));
		kt_spc_out_u8(&o, dbd ? 0 : llbaa);	/* LONGLBA */
		kt_spc_out_u8(&o, 0);
		kt_spc_out_be16(&o, dbd ? 0 : llbaa ? 16 : 8);
	}

	/* SBC-3 6.4: one block descriptor; nothing in it is changeable */
	if (!dbd) {
		bool chg = pc == PC_CHANGEABLE;

		if (llbaa) {
			kt_spc_out_be64(&o, chg ? 0 : lu->nr_blocks);
			kt_spc_out_be32(&o, 0);
			kt_spc_out_be32(&o, chg ? 0 : lu->block_size);
		} else {
			kt_spc_out_be32(&o, chg ? 0 : kt_mode_short_blocks(lu));
			kt_spc_out_u8(&o, 0);
			kt_spc_out_u8(&o, chg ? 0 : lu->block_size >> 16);
			kt_spc_out_u8(&o, chg ? 0 : lu->block_size >> 8);
			kt_spc_out_u8(&o, chg ? 0 : lu->block_size);
		}
	}

	for (i = 0; i < ARRAY_SIZE(kt_mode_pages); i++) {
		mp = &kt_mode_pages[i];
		if (!kt_mode_selected(lu, mp, code, sub))
			continue;
		n = kt_mode_build(lu, mp, pc, page);
		kt_spc_out_mem(&o, page, n);
	}

	/* MODE DATA LENGTH excludes itself (SPC-4 7.5) */
	if (six)
		kt_spc_out_set(&o, 0, o.off - 1);
	else
		kt_spc_out_set_be16(&o, 0, o.off - 2);
	*data_len = kt_spc_out_len(&o);
	return KT_SENSE_NONE;
}

static sense_reason_t kt_mode_bad_param(struct kt_sense_field *field,
					u32 byte, int bit)
{
	*field = bit < 0 ? KT_FIELD_PARAM(byte) : KT_FIELD_PARAM_BIT(byte, bit);
	return KT_SENSE_INVALID_PARAM_FIELD;
}

/* The left-most bit set in @v */
static int kt_mode_top_bit(u8 v)
{
	int bit = 7;

	while (bit && !(v & BIT(bit)))
		bit--;
	return bit;
}

/* SBC-3 6.4: the block descriptor may only restate what we have */
static sense_reason_t kt_mode_check_bd(const struct kt_lu_info *lu,
				       const u8 *p, u32 off, bool long_lba,
				       struct kt_sense_field *field)
{
	const u8 *d = p + off;
	u64 nr;
	u32 bs;

	if (long_lba) {
		nr = get_unaligned_be64(d);
		if (nr && nr != lu->nr_blocks)
			return kt_mode_bad_param(field, off, -1);
		if (get_unaligned_be32(d + 8))
			return kt_mode_bad_param(field, off + 8, -1);
		bs = get_unaligned_be32(d + 12);
		if (bs != lu->block_size)
			return kt_mode_bad_param(field, off + 12, -1);
	} else {
		nr = get_unaligned_be32(d);
		if (nr && nr != kt_mode_short_blocks(lu))
			return kt_mode_bad_param(field, off, -1);
		if (d[4])
			return kt_mode_bad_param(field, off + 4, -1);
		bs = get_unaligned_be24(d + 5);
		if (bs != lu->block_size)
			return kt_mode_bad_param(field, off + 5, -1);
	}
	return KT_SENSE_NONE;
}

/*
 * One mode page at @off of the parameter list: only the changeable bits
 * may differ from the current values (SPC-4 6.9 and 7.5). Sets *@next to
 * the offset of the page that follows.
 */
static sense_reason_t kt_mode_check_page(const struct kt_lu_info *lu,
					 const u8 *p, u32 len, u32 off,
					 u32 *next, struct kt_mode_select *sel,
					 struct kt_sense_field *field)
{
	u8 cur[PAGE_MAX_LEN], chg[PAGE_MAX_LEN], diff;
	const struct kt_mode_page *mp;
	bool spf;
	u32 i, n, plen;

	if (len - off < 2)
		return KT_SENSE_PARAM_LIST_LENGTH;
	if (p[off] & 0x80)			/* PS is reserved here */
		return kt_mode_bad_param(field, off, 7);
	spf = p[off] & 0x40;
	if (spf && len - off < 4)
		return KT_SENSE_PARAM_LIST_LENGTH;
	/* FFh stands for every subpage in MODE SENSE only */
	if (spf && p[off + 1] == SUBPAGE_ALL)
		return kt_mode_bad_param(field, off + 1, -1);
	mp = kt_mode_find(lu, p[off] & 0x3f, spf ? p[off + 1] : 0);
	/* the page exists, not this subpage of it: SUBPAGE CODE */
	if (!mp && spf && kt_mode_find(lu, p[off] & 0x3f, SUBPAGE_ALL))
		return kt_mode_bad_param(field, off + 1, -1);
	if (!mp)
		return kt_mode_bad_param(field, off, 5);
	/* SPC-4 7.5.7: subpage 00h is sent in page_0 format, others not */
	if (!mp->sub != !spf)
		return kt_mode_bad_param(field, off, 6);
	/* SPC-4 7.5: PAGE LENGTH is what MODE SENSE reports */
	plen = spf ? get_unaligned_be16(&p[off + 2]) : p[off + 1];
	if (plen != mp->len)
		return kt_mode_bad_param(field, off + (spf ? 2 : 1), -1);
	n = kt_mode_build(lu, mp, PC_CURRENT, cur);
	kt_mode_build(lu, mp, PC_CHANGEABLE, chg);
	if (len - off < n)
		return KT_SENSE_PARAM_LIST_LENGTH;

	for (i = spf ? 4 : 2; i < n; i++) {
		diff = (p[off + i] ^ cur[i]) & ~chg[i];
		if (diff)
			return kt_mode_bad_param(field, off + i,
						 kt_mode_top_bit(diff));
	}

	if (mp->code == 0x08 && (chg[2] & 0x04)) {
		sel->set |= KT_MODE_SET_WCE;
		sel->wce = !!(p[off + 2] & 0x04);
	}
	if (mp->code == 0x0a && (chg[4] & 0x08)) {
		sel->set |= KT_MODE_SET_SWP;
		sel->swp = !!(p[off + 4] & 0x08);
	}
	if (mp->fill == kt_mode_lbp) {
		sel->set |= KT_MODE_SET_LBP;
		sel->lbp_situa = p[off + 4] & 0x01;
		sel->lbp_on = !!(p[off + 16] & 0x80);
		sel->lbp_count = get_unaligned_be32(&p[off + 20]);
	}
	*next = off + n;
	return KT_SENSE_NONE;
}

sense_reason_t kt_spc_mode_select(const struct kt_lu_info *lu, const u8 *cdb,
				  const u8 *param, u32 len,
				  struct kt_mode_select *sel,
				  struct kt_sense_field *field)
{
	bool six = cdb[0] == MODE_SELECT, long_lba = false;
	u32 plen = six ? cdb[4] : get_unaligned_be16(&cdb[7]);
	u32 hdr = six ? 4 : 8, bdl, off, bd_len;
	struct kt_mode_select res = { 0 };
	sense_reason_t ret;

	*sel = res;
	*field = (struct kt_sense_field){ 0 };

	/* SPC-4 6.9: PF must be one; there are no saved pages for SP */
	if (!(cdb[1] & 0x10)) {
		*field = KT_FIELD_CDB_BIT(1, 4);
		return KT_SENSE_INVALID_CDB_FIELD;
	}
	if (cdb[1] & 0x01) {
		*field = KT_FIELD_CDB_BIT(1, 0);
		return KT_SENSE_INVALID_CDB_FIELD;
	}

	if (len > plen)
		len = plen;
	if (!len)			/* an empty list is not an error */
		return KT_SENSE_NONE;
	if (len < hdr)
		return KT_SENSE_PARAM_LIST_LENGTH;

	/*
	 * SPC-4 7.5: MODE DATA LENGTH is reserved for MODE SELECT; the
	 * DEVICE-SPECIFIC PARAMETER (WP, DPOFUA) is not ours to change here
	 * and is ignored. MEDIUM TYPE is 00h for direct access devices.
	 */
	if (six) {
		if (param[1])
			return kt_mode_bad_param(field, 1, -1);
		bdl = param[3];
	} else {
		if (param[2])
			return kt_mode_bad_param(field, 2, -1);
		if (param[4] & 0xfe)
			return kt_mode_bad_param(field, 4,
						 kt_mode_top_bit(param[4] & 0xfe));
		long_lba = param[4] & 0x01;
		if (param[5])
			return kt_mode_bad_param(field, 5, -1);
		bdl = get_unaligned_be16(&param[6]);
	}

	/* at most one block descriptor */
	bd_len = long_lba ? 16 : 8;
	if (bdl && bdl != bd_len)
		return kt_mode_bad_param(field, six ? 3 : 6, -1);
	if (len - hdr < bdl)
		return KT_SENSE_PARAM_LIST_LENGTH;
	if (bdl) {
		ret = kt_mode_check_bd(lu, param, hdr, long_lba, field);
		if (ret)
			return ret;
	}

	for (off = hdr + bdl; off < len;) {
		ret = kt_mode_check_page(lu, param, len, off, &off, &res,
					 field);
		if (ret)
			return ret;
	}

	*sel = res;
	return KT_SENSE_NONE;
}
