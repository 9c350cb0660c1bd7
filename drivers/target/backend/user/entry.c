// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_user: the ring's accounting and the checks of the daemon's
 * answers (entry.h). Pure: also built into tools/testing/unit.
 */
#include <linux/stddef.h>
#include <linux/target_core_user.h>

#include "entry.h"

bool kt_user_ring_fits(const struct kt_user_ring *r, u32 len, u32 *pad)
{
	u32 used = kt_user_ring_dist(r->last, r->head, r->size);
	u32 to_end = r->size - r->head;
	u32 need = len;

	*pad = 0;
	if (to_end < len) {
		*pad = to_end;
		need += to_end;
	}
	return need < r->size - used;
}

s64 kt_user_tail_dist(const struct kt_user_ring *r, u32 tail)
{
	u32 dist;

	if (tail >= r->size || tail % KT_USER_ALIGN)
		return -1;
	dist = kt_user_ring_dist(r->last, tail, r->size);
	if (dist > kt_user_ring_dist(r->last, r->shown, r->size))
		return -1;
	return dist;
}

enum kt_user_entry_kind kt_user_entry_check(const struct kt_user_ring *r,
					    u32 dist, u32 len_op, u32 *len)
{
	u32 to_end = r->size - r->last;

	*len = tcmu_hdr_get_len(len_op);
	if (*len < sizeof(struct tcmu_cmd_entry_hdr) || *len % KT_USER_ALIGN ||
	    *len > dist || *len > to_end)
		return KT_UENT_BAD;
	switch (tcmu_hdr_get_op(len_op)) {
	case TCMU_OP_PAD:
	case TCMU_OP_TMR:
		return KT_UENT_SKIP;
	case TCMU_OP_CMD:
		/* the answer's fields lie within the entry */
		if (*len < sizeof(struct tcmu_cmd_entry))
			return KT_UENT_BAD;
		return KT_UENT_CMD;
	default:
		return KT_UENT_BAD;
	}
}

bool kt_user_status_ok(u8 status)
{
	switch (status) {
	case 0x00:	/* GOOD */
	case 0x02:	/* CHECK CONDITION */
	case 0x04:	/* CONDITION MET */
	case 0x08:	/* BUSY */
	case 0x18:	/* RESERVATION CONFLICT */
	case 0x28:	/* TASK SET FULL */
	case 0x30:	/* ACA ACTIVE */
	case 0x40:	/* TASK ABORTED */
		return true;
	default:
		return false;
	}
}

u32 kt_user_read_len(u32 data_len, u8 uflags, u32 read_len, bool *given)
{
	*given = false;
	if (!(uflags & TCMU_UFLAG_READ_LEN) || !read_len)
		return data_len;
	*given = true;
	return min(read_len, data_len);
}

u32 kt_user_sense_len(const u8 *sense)
{
	u32 len;

	/* SPC-4 4.5.2: response codes 70h-73h; 7 + ADDITIONAL SENSE LENGTH */
	if ((sense[0] & 0x7e) != 0x70 && (sense[0] & 0x7e) != 0x72)
		return 0;
	len = 8 + sense[7];
	return len < KT_USER_SENSE_LEN ? len : KT_USER_SENSE_LEN;
}
