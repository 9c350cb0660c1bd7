/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SAM-5 4.7: the LUN field of a target with one level of LUNs. LUNs
 * 0-255 are sent in peripheral device addressing (bus 0), 256-16383 in
 * flat space addressing. A well-known LU is kept as its whole 64-bit
 * field, which no configured LUN can equal. Any other field (a second
 * level, another bus, another method) names no LU here: KT_LUN_NONE.
 */
#ifndef _KTARGET_PROTO_LUN_H
#define _KTARGET_PROTO_LUN_H

#include <linux/types.h>

#define KT_LUN_NONE		U64_MAX
#define KT_LUN_FLAT_MAX		16383
#define KT_LUN_WELL_KNOWN(w)	((0xc100ULL | (w)) << 48)
#define KT_LUN_REPORT_LUNS	KT_LUN_WELL_KNOWN(0x01)	/* SPC-4 8.2 */

#define KT_LUN_LEVELS_2_TO_4	0x0000ffffffffffffULL

/* The LUN of @field, bytes 0-7 of a LUN field as one big-endian number */
static inline u64 kt_lun_decode(u64 field)
{
	u16 first = field >> 48;

	if (field & KT_LUN_LEVELS_2_TO_4)
		return KT_LUN_NONE;
	switch (first >> 14) {
	case 0:		/* peripheral device addressing: bus 0 only */
		return first >> 8 ? KT_LUN_NONE : first;
	case 1:		/* flat space addressing */
		return first & 0x3fff;
	case 3:		/* extended addressing: the well-known LUs */
		return first >> 8 == 0xc1 ? field : KT_LUN_NONE;
	default:
		return KT_LUN_NONE;
	}
}

/* The LUN field of @lun (*@field as kt_lun_decode() takes it), or false */
static inline bool kt_lun_encode(u64 lun, u64 *field)
{
	if (lun < 256)
		*field = lun << 48;
	else if (lun <= KT_LUN_FLAT_MAX)
		*field = (0x4000ULL | lun) << 48;
	else if (lun >> 56 == 0xc1 && !(lun & KT_LUN_LEVELS_2_TO_4))
		*field = lun;
	else
		return false;
	return true;
}

#endif
