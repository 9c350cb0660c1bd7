/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_user: the command ring's accounting and the checks of what the
 * daemon writes into it, pure code over values the caller has read once
 * from the shared memory (no locks, no allocation, no printk), built into
 * ktarget_user and into the userspace unit test (tools/testing/unit).
 *
 * The ring (<linux/target_core_user.h>) is cmdr_size bytes; the kernel
 * puts entries at head, the daemon answers in place and moves cmd_tail.
 * The kernel keeps head and what it has consumed (last) itself: the
 * mailbox's copies are the daemon's to scribble on.
 */
#ifndef KTARGET_USER_ENTRY_H
#define KTARGET_USER_ENTRY_H

#include <linux/types.h>

#define KT_USER_SENSE_LEN	96	/* TCMU_SENSE_BUFFERSIZE */
#define KT_USER_ALIGN		8	/* TCMU_OP_ALIGN_SIZE */

struct kt_user_ring {
	u32	size;		/* cmdr_size, a multiple of KT_USER_ALIGN */
	u32	head;		/* where the next entry goes */
	u32	shown;		/* cmd_head: the entries the daemon may see */
	u32	last;		/* up to where answers were consumed */
};

/* bytes from @from forward to @to, going round */
static inline u32 kt_user_ring_dist(u32 from, u32 to, u32 size)
{
	return to >= from ? to - from : size - from + to;
}

/*
 * Room for an entry of @len bytes at head: entries do not wrap, so one
 * that does not fit before the end needs a PAD entry over the rest
 * (*@pad, else 0). One byte always stays free, to tell full from empty.
 */
bool kt_user_ring_fits(const struct kt_user_ring *r, u32 len, u32 *pad);

/*
 * The daemon's cmd_tail @tail: how many bytes of entries it answered
 * beyond last, or -1 when @tail is no place an answer can end (unaligned,
 * outside the ring, past what it was shown: entries between shown and
 * head are still being written).
 */
s64 kt_user_tail_dist(const struct kt_user_ring *r, u32 tail);

enum kt_user_entry_kind {
	KT_UENT_CMD,		/* an answer: look up its cmd_id */
	KT_UENT_SKIP,		/* PAD or TMR: nothing to answer */
	KT_UENT_BAD,		/* not an entry: the ring is broken */
};

/*
 * The entry at last, whose header word is @len_op, within the @dist bytes
 * the tail passed: its kind, and its length in *@len. A command's answer
 * (status, read length, sense) must lie within the ring before its end.
 */
enum kt_user_entry_kind kt_user_entry_check(const struct kt_user_ring *r,
					    u32 dist, u32 len_op, u32 *len);

/* A SAM status the daemon may answer with (SAM-5 5.3) */
bool kt_user_status_ok(u8 status);

/*
 * The bytes of a data-in command of @data_len the daemon says are valid:
 * its READ_LEN, at most @data_len, with *@given set; all of them, *@given
 * clear, without one (no READ_LEN flag, or a READ_LEN of 0, which
 * tcmu-runner never means as "none valid"). With *@given a CHECK
 * CONDITION still returns that data.
 */
u32 kt_user_read_len(u32 data_len, u8 uflags, u32 read_len, bool *given);

/* The length of the sense data in @sense (KT_USER_SENSE_LEN bytes) */
u32 kt_user_sense_len(const u8 *sense);

#endif /* KTARGET_USER_ENTRY_H */
