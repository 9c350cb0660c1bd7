// SPDX-License-Identifier: GPL-2.0
/*
 * drivers/target/backend/user/entry.c: the command ring's accounting and
 * the checks of what a (hostile) daemon writes: its cmd_tail, the header
 * word of the entries it passed, its status and READ_LEN, its sense data.
 */
#include <linux/types.h>
#include <linux/target_core_user.h>

#include "kt_test.h"
#include "entry.h"

#define SIZE	4096

static u32 len_op(u32 len, u32 op)
{
	return len | op;
}

static void an_empty_ring_takes_an_entry_without_pad(void)
{
	struct kt_user_ring r = { .size = SIZE };
	u32 pad;

	KT_EXPECT(kt_user_ring_fits(&r, 128, &pad));
	KT_EXPECT_EQ(pad, 0);
}

static void an_entry_past_the_end_needs_a_pad(void)
{
	struct kt_user_ring r = { .size = SIZE, .head = SIZE - 64, .last = SIZE - 64 };
	u32 pad;

	KT_EXPECT(kt_user_ring_fits(&r, 128, &pad));
	KT_EXPECT_EQ(pad, 64);
}

static void a_full_ring_keeps_one_byte(void)
{
	struct kt_user_ring r = { .size = SIZE, .head = 0, .last = 128 };
	u32 pad;

	/* 128 bytes free: an entry of 128 would make head meet last */
	KT_EXPECT(!kt_user_ring_fits(&r, 128, &pad));
	KT_EXPECT(kt_user_ring_fits(&r, 120, &pad));
}

static void a_pad_counts_toward_the_room(void)
{
	struct kt_user_ring r = { .size = SIZE, .head = SIZE - 64, .last = 128 };
	u32 pad;

	/* 64 to the end + 128 from the start = 192, and 192 are free */
	KT_EXPECT(!kt_user_ring_fits(&r, 128, &pad));
	KT_EXPECT(kt_user_ring_fits(&r, 120, &pad));
	KT_EXPECT_EQ(pad, 64);
}

static void a_tail_in_the_answered_part_is_taken(void)
{
	struct kt_user_ring r = { .size = SIZE, .head = 1024, .shown = 1024,
				  .last = 256 };

	KT_EXPECT_EQ(kt_user_tail_dist(&r, 256), 0);
	KT_EXPECT_EQ(kt_user_tail_dist(&r, 512), 256);
	KT_EXPECT_EQ(kt_user_tail_dist(&r, 1024), 768);
}

static void a_tail_past_head_or_unaligned_or_outside_is_refused(void)
{
	struct kt_user_ring r = { .size = SIZE, .head = 1024, .shown = 1024,
				  .last = 256 };

	KT_EXPECT_EQ(kt_user_tail_dist(&r, 1032), -1);
	KT_EXPECT_EQ(kt_user_tail_dist(&r, 128), -1);	/* behind last */
	KT_EXPECT_EQ(kt_user_tail_dist(&r, 513), -1);
	KT_EXPECT_EQ(kt_user_tail_dist(&r, SIZE), -1);
	KT_EXPECT_EQ(kt_user_tail_dist(&r, 0xfffffff8), -1);
}

static void a_tail_going_round_is_taken(void)
{
	struct kt_user_ring r = { .size = SIZE, .head = 256, .shown = 256,
				  .last = SIZE - 512 };

	KT_EXPECT_EQ(kt_user_tail_dist(&r, 0), 512);
	KT_EXPECT_EQ(kt_user_tail_dist(&r, 128), 640);
	KT_EXPECT_EQ(kt_user_tail_dist(&r, 512), -1);
}

/* entries past shown are written, their data still being copied in */
static void a_tail_past_what_was_shown_is_refused(void)
{
	struct kt_user_ring r = { .size = SIZE, .head = 1024, .shown = 512,
				  .last = 256 };

	KT_EXPECT_EQ(kt_user_tail_dist(&r, 512), 256);
	KT_EXPECT_EQ(kt_user_tail_dist(&r, 520), -1);
	KT_EXPECT_EQ(kt_user_tail_dist(&r, 1024), -1);
	r.shown = 256;
	KT_EXPECT_EQ(kt_user_tail_dist(&r, 256), 0);
	KT_EXPECT_EQ(kt_user_tail_dist(&r, 264), -1);
}

static void a_command_answer_is_taken(void)
{
	struct kt_user_ring r = { .size = SIZE, .head = 512, .last = 0 };
	u32 len;

	KT_EXPECT_EQ(kt_user_entry_check(&r, 512, len_op(128, TCMU_OP_CMD), &len),
		     KT_UENT_CMD);
	KT_EXPECT_EQ(len, 128);
}

static void pads_and_tmrs_are_skipped(void)
{
	struct kt_user_ring r = { .size = SIZE, .head = 0, .last = SIZE - 64 };
	u32 len;

	KT_EXPECT_EQ(kt_user_entry_check(&r, 64, len_op(64, TCMU_OP_PAD), &len),
		     KT_UENT_SKIP);
	KT_EXPECT_EQ(kt_user_entry_check(&r, 64, len_op(64, TCMU_OP_TMR), &len),
		     KT_UENT_SKIP);
}

static void entries_that_are_none_break_the_ring(void)
{
	struct kt_user_ring r = { .size = SIZE, .head = 512, .last = 0 };
	u32 len;

	/* zero, shorter than a header, past the tail, unknown op */
	KT_EXPECT_EQ(kt_user_entry_check(&r, 512, len_op(0, TCMU_OP_CMD), &len),
		     KT_UENT_BAD);
	KT_EXPECT_EQ(kt_user_entry_check(&r, 512, len_op(0, TCMU_OP_PAD), &len),
		     KT_UENT_BAD);
	KT_EXPECT_EQ(kt_user_entry_check(&r, 512, len_op(520, TCMU_OP_CMD), &len),
		     KT_UENT_BAD);
	KT_EXPECT_EQ(kt_user_entry_check(&r, 512, len_op(128, 5), &len),
		     KT_UENT_BAD);
	/* a command entry too short to hold an answer */
	KT_EXPECT_EQ(kt_user_entry_check(&r, 512, len_op(64, TCMU_OP_CMD), &len),
		     KT_UENT_BAD);
}

static void an_entry_past_the_ring_end_breaks_the_ring(void)
{
	struct kt_user_ring r = { .size = SIZE, .head = 256, .last = SIZE - 64 };
	u32 len;

	/* the tail went round, but the entry cannot */
	KT_EXPECT_EQ(kt_user_entry_check(&r, 320, len_op(128, TCMU_OP_CMD), &len),
		     KT_UENT_BAD);
}

static void every_header_word_stays_inside(void)
{
	struct kt_user_ring r = { .size = SIZE, .head = 1024, .last = SIZE - 256 };
	u32 w, len;

	for (w = 0; w < 0x20000; w += 3) {
		u32 word = w * 0x9e3779b1u;

		if (kt_user_entry_check(&r, 1280, word, &len) != KT_UENT_BAD)
			KT_EXPECT(len >= 8 && len <= 256 && len % 8 == 0);
	}
}

static void statuses_outside_sam_are_refused(void)
{
	KT_EXPECT(kt_user_status_ok(0x00));
	KT_EXPECT(kt_user_status_ok(0x02));
	KT_EXPECT(kt_user_status_ok(0x28));
	KT_EXPECT(!kt_user_status_ok(0x01));
	KT_EXPECT(!kt_user_status_ok(0xff));
}

static void read_len_only_shortens(void)
{
	bool given;

	KT_EXPECT_EQ(kt_user_read_len(4096, TCMU_UFLAG_READ_LEN, 512, &given), 512);
	KT_EXPECT(given);
	/* past the transfer: all of it valid, and said so (a CHECK CONDITION's data) */
	KT_EXPECT_EQ(kt_user_read_len(4096, TCMU_UFLAG_READ_LEN, 8192, &given), 4096);
	KT_EXPECT(given);
	KT_EXPECT_EQ(kt_user_read_len(4096, TCMU_UFLAG_READ_LEN, 4096, &given), 4096);
	KT_EXPECT(given);
	KT_EXPECT_EQ(kt_user_read_len(4096, TCMU_UFLAG_READ_LEN, 0, &given), 4096);
	KT_EXPECT(!given);
	KT_EXPECT_EQ(kt_user_read_len(4096, 0, 512, &given), 4096);
	KT_EXPECT(!given);
}

static void sense_length_is_bounded(void)
{
	u8 sense[KT_USER_SENSE_LEN] = { 0x70, 0, 5, 0, 0, 0, 0, 10 };

	KT_EXPECT_EQ(kt_user_sense_len(sense), 18);
	sense[7] = 0xff;
	KT_EXPECT_EQ(kt_user_sense_len(sense), KT_USER_SENSE_LEN);
	sense[0] = 0x00;
	KT_EXPECT_EQ(kt_user_sense_len(sense), 0);
}

static const struct kt_test tests[] = {
	KT_TEST_ENTRY(an_empty_ring_takes_an_entry_without_pad),
	KT_TEST_ENTRY(an_entry_past_the_end_needs_a_pad),
	KT_TEST_ENTRY(a_full_ring_keeps_one_byte),
	KT_TEST_ENTRY(a_pad_counts_toward_the_room),
	KT_TEST_ENTRY(a_tail_in_the_answered_part_is_taken),
	KT_TEST_ENTRY(a_tail_past_head_or_unaligned_or_outside_is_refused),
	KT_TEST_ENTRY(a_tail_going_round_is_taken),
	KT_TEST_ENTRY(a_tail_past_what_was_shown_is_refused),
	KT_TEST_ENTRY(a_command_answer_is_taken),
	KT_TEST_ENTRY(pads_and_tmrs_are_skipped),
	KT_TEST_ENTRY(entries_that_are_none_break_the_ring),
	KT_TEST_ENTRY(an_entry_past_the_ring_end_breaks_the_ring),
	KT_TEST_ENTRY(every_header_word_stays_inside),
	KT_TEST_ENTRY(statuses_outside_sam_are_refused),
	KT_TEST_ENTRY(read_len_only_shortens),
	KT_TEST_ENTRY(sense_length_is_bounded),
};

KT_TEST_MAIN(tests)
