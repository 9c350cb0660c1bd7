// SPDX-License-Identifier: GPL-2.0
/*
 * ALUA on the wire: REPORT TARGET PORT GROUPS data, SET TARGET PORT GROUPS
 * parameter lists, and the commands each asymmetric access state allows.
 * No allocation, locking or logging: this file is compiled unchanged into
 * the userspace unit and fuzz tests.
 */
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/bits.h>
#include <linux/unaligned.h>

#include <ktarget/proto/alua.h>
#include <ktarget/proto/cdb.h>
#include <ktarget/proto/sense.h>

#define KT_RTPG_HDR_LEN		4
#define KT_RTPG_EXT_HDR_LEN	8
#define KT_RTPG_DESC_LEN	8
#define KT_RTPG_PORT_LEN	4

u8 kt_alua_state_sup(u8 state)
{
	switch (state) {
	case KT_ALUA_AO:		return KT_ALUA_SUP_AO;
	case KT_ALUA_ANO:		return KT_ALUA_SUP_AN;
	case KT_ALUA_STANDBY:		return KT_ALUA_SUP_S;
	case KT_ALUA_UNAVAILABLE:	return KT_ALUA_SUP_U;
	case KT_ALUA_LBA_DEPENDENT:	return KT_ALUA_SUP_LBD;
	case KT_ALUA_OFFLINE:		return KT_ALUA_SUP_O;
	case KT_ALUA_TRANSITIONING:	return KT_ALUA_SUP_T;
	}
	return 0;
}

/* Write @n bytes of @src at @off of @buf, as far as @len lets them. */
static void kt_alua_put(u8 *buf, u32 len, u32 off, const u8 *src, u32 n)
{
	if (off >= len)
		return;
	memcpy(buf + off, src, n < len - off ? n : len - off);
}

sense_reason_t kt_alua_rtpg(const u8 *cdb, const struct kt_alua_desc *d,
			    unsigned int nr, u8 implicit_trans_secs,
			    u8 *buf, u32 len, u32 *data_len,
			    struct kt_sense_field *field)
{
	/* SPC-4 6.27.1: PARAMETER DATA FORMAT, byte 1 bits 7..5 */
	u8 format = cdb[1] >> 5;
	u8 hdr[KT_RTPG_EXT_HDR_LEN] = { 0 };
	u8 desc[KT_RTPG_DESC_LEN], port[KT_RTPG_PORT_LEN];
	u32 off, hdr_len;
	unsigned int i, p;

	*field = (struct kt_sense_field){ 0 };
	if (format > 1) {
		*field = KT_FIELD_CDB_BIT(1, 7);
		return KT_SENSE_INVALID_CDB_FIELD;
	}
	hdr_len = format ? KT_RTPG_EXT_HDR_LEN : KT_RTPG_HDR_LEN;
	off = hdr_len;
	for (i = 0; i < nr; i++) {
		memset(desc, 0, sizeof(desc));
		desc[0] = (d[i].preferred ? 0x80 : 0) | (d[i].state & 0x0f);
		desc[1] = d[i].supported;
		put_unaligned_be16(d[i].id, &desc[2]);
		desc[5] = d[i].status;
		desc[7] = d[i].nr_ports;
		kt_alua_put(buf, len, off, desc, sizeof(desc));
		off += sizeof(desc);
		for (p = 0; p < d[i].nr_ports; p++) {
			memset(port, 0, sizeof(port));
			put_unaligned_be16(d[i].ports[p], &port[2]);
			kt_alua_put(buf, len, off, port, sizeof(port));
			off += sizeof(port);
		}
	}
	/* RETURN DATA LENGTH: the bytes after the field itself */
	put_unaligned_be32(off - 4, &hdr[0]);
	if (format) {
		hdr[4] = 0x10;		/* FORMAT TYPE 001b: extended */
		hdr[5] = implicit_trans_secs;
	}
	kt_alua_put(buf, len, 0, hdr, hdr_len);
	*data_len = off;
	return KT_SENSE_NONE;
}

sense_reason_t kt_alua_stpg_parse(const u8 *buf, u32 len,
				  struct kt_alua_stpg_desc *out,
				  unsigned int max, unsigned int *nr,
				  struct kt_sense_field *field)
{
	const u8 *p;
	u32 off;
	u8 state;

	*field = (struct kt_sense_field){ 0 };
	*nr = 0;
	/* SPC-4 6.36: no parameter data is no change, and no error */
	if (!len)
		return KT_SENSE_NONE;
	if (len < KT_ALUA_STPG_HDR_LEN ||
	    (len - KT_ALUA_STPG_HDR_LEN) % KT_ALUA_STPG_DESC_LEN)
		return KT_SENSE_PARAM_LIST_LENGTH;

	for (off = KT_ALUA_STPG_HDR_LEN; off < len;
	     off += KT_ALUA_STPG_DESC_LEN) {
		p = buf + off;
		state = p[0] & 0x0f;
		/* only primary states can be set for a whole group */
		if (state > KT_ALUA_UNAVAILABLE) {
			*field = KT_FIELD_PARAM_BIT(off, 3);
			return KT_SENSE_INVALID_PARAM_FIELD;
		}
		if (*nr >= max)
			return KT_SENSE_PARAM_LIST_LENGTH;
		out[*nr].state = state;
		out[*nr].id = get_unaligned_be16(&p[2]);
		(*nr)++;
	}
	return KT_SENSE_NONE;
}

/* SPC-4 5.15.2.4.5: what a port in any access state still answers */
static bool kt_alua_always_allowed(const struct kt_cdb_desc *d)
{
	return d && (d->flags & KT_CDB_D_ALUA_ANY);
}

/* SPC-4 5.15.2.4.4: what a port in standby answers on top of those */
static bool kt_alua_standby_allowed(const struct kt_cdb_desc *d)
{
	return d && (d->flags & KT_CDB_D_ALUA_STANDBY);
}

u16 kt_alua_access_check(u8 state, const struct kt_cdb_desc *cmd)
{
	switch (state) {
	case KT_ALUA_AO:
	case KT_ALUA_ANO:
	case KT_ALUA_LBA_DEPENDENT:
		return 0;
	case KT_ALUA_STANDBY:
		if (kt_alua_always_allowed(cmd) || kt_alua_standby_allowed(cmd))
			return 0;
		return KT_ASC_NOT_READY_STANDBY;
	case KT_ALUA_UNAVAILABLE:
		if (kt_alua_always_allowed(cmd))
			return 0;
		return KT_ASC_NOT_READY_UNAVAILABLE;
	case KT_ALUA_TRANSITIONING:
		if (kt_alua_always_allowed(cmd))
			return 0;
		return KT_ASC_NOT_READY_TRANSITIONING;
	case KT_ALUA_OFFLINE:
	default:
		if (kt_alua_always_allowed(cmd))
			return 0;
		return KT_ASC_NOT_READY_OFFLINE;
	}
}
